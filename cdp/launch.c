/* launch.c -- cdp_launch: start a private Chromium over
 * --remote-debugging-pipe, and own it until the client is freed.
 *
 * A launched browser gets a fresh temporary profile, its own process group,
 * PR_SET_PDEATHSIG, and the pipe transport: if we die, it dies. The client
 * gets a transport that wraps the pipe and owns the process (launched_tp),
 * so client.c never knows there is one. Its close hook closes the pipe
 * (Chromium exits on EOF), waits briefly, kills the process group, reaps,
 * and removes the profile.
 */
#include "cdp_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const default_flags[] = {
  "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update",
  "--disable-sync", "--disable-extensions", "--no-default-browser-check",
  "--disable-default-apps", "--mute-audio", "--disable-dev-shm-usage",
  "--disable-features=Translate,MediaRouter,OptimizationHints",
  "--remote-debugging-pipe",
};

int cdp_launch_sandboxed(const cdp_launch_opts *o) {
  int want = o ? o->sandbox : 0;
  const char *env = getenv("UIAP_NO_SANDBOX");
  if (want == 0 && env && *env && strcmp(env, "0")) want = -1; /* a container without user namespaces */
  return want > 0 || (want == 0 && geteuid() != 0);
}

static const char *const search_names[] = {"chromium", "chromium-browser", "google-chrome"};

static int is_exec(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* Resolve the binary: explicit, $UIAP_CHROMIUM, then PATH. */
static int find_browser(const char *want, char *out, size_t outlen) {
  if (!want || !*want) want = getenv("UIAP_CHROMIUM");
  if (want && *want) {
    if (strchr(want, '/')) {
      snprintf(out, outlen, "%s", want);
      return is_exec(out) ? 0 : -1;
    }
  }
  const char *path = getenv("PATH");
  if (!path) path = "/usr/local/bin:/usr/bin:/bin";
  size_t nnames = want && *want ? 1 : sizeof search_names / sizeof *search_names;
  for (size_t i = 0; i < nnames; i++) {
    const char *name = want && *want ? want : search_names[i];
    const char *p = path;
    while (*p) {
      const char *e = strchr(p, ':');
      size_t n = e ? (size_t)(e - p) : strlen(p);
      snprintf(out, outlen, "%.*s/%s", (int)n, p, name);
      if (n && is_exec(out)) return 0;
      p += n + (e ? 1 : 0);
    }
  }
  return -1;
}

void cdp__rmtree(const char *path) {
  DIR *d = opendir(path);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char sub[4096];
      snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
      struct stat st;
      if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode)) cdp__rmtree(sub);
      else unlink(sub);
    }
    closedir(d);
  }
  rmdir(path);
}

/* Wait for pid up to ms; 1 when reaped. */
static int reap_within(pid_t pid, int ms) {
  long long end = cdp_now_ms() + ms;
  for (;;) {
    pid_t r = waitpid(pid, NULL, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD)) return 1;
    if (cdp_now_ms() >= end) return 0;
    usleep(10000);
  }
}

/* Terminate and reap the browser pid (its pipe is closed already), then
 * remove its temporary directories (tmpdir may be ""). */
static void browser_reap(pid_t pid, const char *profile, const char *tmpdir) {
  if (pid > 0) {
    /* Chromium exits on EOF. Give it a moment to save nothing (the profile
     * is thrown away anyway), then make sure. */
    if (!reap_within(pid, 1500)) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      reap_within(pid, 3000);
    }
    kill(-pid, SIGKILL); /* stragglers of the group (zygote, renderers) */
  }
  if (*tmpdir) cdp__rmtree(tmpdir);
  /* Renderers may still be writing for a few ms after the kill. */
  for (int i = 0; i < 3; i++) {
    cdp__rmtree(profile);
    if (access(profile, F_OK) != 0) break;
    usleep(50000);
  }
}

/* ---- the launched browser's transport --------------------------------------
 * The pipe transport with the browser process attached: it forwards to the
 * pipe; closing it closes the pipe, then reaps the process. */
typedef struct {
  void *pipe;               /* cdp__pipe_transport's impl */
  pid_t pid;
  char profile[4096];       /* the temporary profile */
  char tmpdir[64];          /* Chromium's own TMPDIR when it is not inside the
                               profile, or "" */
} launched_tp;

static int launched_send(void *impl, const char *msg, size_t len) {
  return cdp__pipe_transport.send(((launched_tp *)impl)->pipe, msg, len);
}

static int launched_poll(void *impl, int timeout_ms, cdp__msg_fn fn, void *ctx) {
  return cdp__pipe_transport.poll(((launched_tp *)impl)->pipe, timeout_ms, fn, ctx);
}

static const char *launched_errmsg(void *impl) {
  return cdp__pipe_transport.errmsg(((launched_tp *)impl)->pipe);
}

static void launched_close(void *impl) {
  launched_tp *t = impl;
  cdp__pipe_transport.close(t->pipe);
  browser_reap(t->pid, t->profile, t->tmpdir);
  free(t);
}

static pid_t launched_pid(void *impl) { return ((launched_tp *)impl)->pid; }
static const char *launched_profile(void *impl) { return ((launched_tp *)impl)->profile; }

static const cdp__transport launched_transport = {
  .send = launched_send, .poll = launched_poll, .errmsg = launched_errmsg,
  .close = launched_close, .pid = launched_pid, .profile = launched_profile,
};

/* ---- cdp_launch, step by step ----------------------------------------------
 * What one launch builds before fork: the child may only make
 * async-signal-safe calls, so argv, the environment and every path are ready
 * before it exists. */
typedef struct {
  char bin[4096];
  char profile[4096];
  char ctmp[64];            /* short TMPDIR for a long profile path, or "" */
  char tmpenv[4200], udd[4200], wsize[64], lang[128], logpath[4200];
  const char *argv[64];
  char **envp;
  int to_browser[2], from_browser[2];
} launch_plan;

/* Fills err for a browser that cannot be found; returns CDP_NOBROWSER. */
static cdp_code no_browser(const cdp_launch_opts *o, char *err, size_t errlen) {
  const char *w = o->chromium && *o->chromium ? o->chromium : getenv("UIAP_CHROMIUM");
  if (err) {
    if (w && *w) snprintf(err, errlen, "Chromium binary not found or not executable: %s", w);
    else snprintf(err, errlen, "no Chromium found on PATH (tried chromium, chromium-browser, google-chrome); install it or pass --chromium PATH");
  }
  return CDP_NOBROWSER;
}

/* Creates the fresh temporary profile directory; -1 (err filled) when it cannot. */
static int make_profile(launch_plan *p, char *err, size_t errlen) {
  const char *tmp = getenv("TMPDIR");
  snprintf(p->profile, sizeof p->profile, "%s/uiap-crawl-profile-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(p->profile)) {
    if (err) snprintf(err, errlen, "cannot create a temporary profile in %s: %s",
                      tmp && *tmp ? tmp : "/tmp", strerror(errno));
    return -1;
  }
  return 0;
}

/* Opens the two command pipes; -1 (none left open) when it cannot. */
static int open_pipes(launch_plan *p) {
  if (pipe2(p->to_browser, O_CLOEXEC) < 0) return -1;
  if (pipe2(p->from_browser, O_CLOEXEC) < 0) {
    close(p->to_browser[0]);
    close(p->to_browser[1]);
    return -1;
  }
  return 0;
}

/* Closes both ends of both pipes. */
static void close_pipes(launch_plan *p) {
  close(p->to_browser[0]); close(p->to_browser[1]);
  close(p->from_browser[0]); close(p->from_browser[1]);
}

/* The browser's command line, and the path of its log file. */
static void build_argv(launch_plan *p, const cdp_launch_opts *o) {
  snprintf(p->udd, sizeof p->udd, "--user-data-dir=%s", o->user_data_dir ? o->user_data_dir : p->profile);
  snprintf(p->wsize, sizeof p->wsize, "--window-size=%d,%d", o->width > 0 ? o->width : 1280,
           o->height > 0 ? o->height : 800);
  const char **argv = p->argv;
  int n = 0;
  argv[n++] = p->bin;
  if (!o->headful) argv[n++] = "--headless";
  if (!cdp_launch_sandboxed(o)) argv[n++] = "--no-sandbox";
  for (size_t i = 0; i < sizeof default_flags / sizeof *default_flags; i++) argv[n++] = default_flags[i];
  argv[n++] = p->udd;
  argv[n++] = p->wsize;
  if (o->lang) {
    snprintf(p->lang, sizeof p->lang, "--lang=%s", o->lang);
    argv[n++] = p->lang;
  }
  for (int i = 0; o->extra_args && o->extra_args[i] && n < 62; i++) argv[n++] = o->extra_args[i];
  argv[n++] = "about:blank";
  argv[n] = NULL;
  snprintf(p->logpath, sizeof p->logpath, "%s/chromium.log", p->profile);
}

/* The browser's environment: ours with TMPDIR pointing into the profile (or
 * a short temp dir); NULL when out of memory. */
static char **build_env(launch_plan *p) {
  /* Chromium's own temp files go inside the profile, so removing the profile
   * removes them too. Environment built before fork. */
  extern char **environ;
  size_t nenv = 0;
  while (environ[nenv]) nenv++;
  char **envp = calloc(nenv + 2, sizeof *envp);
  /* Chromium puts Unix sockets in TMPDIR; their paths must stay under 108
   * bytes, so a long profile path gets a short separate temp dir. */
  if (strlen(p->profile) > 40) {
    snprintf(p->ctmp, sizeof p->ctmp, "/tmp/uiap-t-XXXXXX");
    if (!mkdtemp(p->ctmp)) p->ctmp[0] = 0;
  }
  snprintf(p->tmpenv, sizeof p->tmpenv, "TMPDIR=%s", p->ctmp[0] ? p->ctmp : p->profile);
  if (!envp) return NULL;
  size_t ne = 0;
  for (size_t i = 0; i < nenv; i++)
    if (strncmp(environ[i], "TMPDIR=", 7)) envp[ne++] = environ[i];
  envp[ne++] = p->tmpenv;
  envp[ne] = NULL;
  return envp;
}

/* In the forked child: become the browser (never returns). */
static _Noreturn void exec_browser(const launch_plan *p, pid_t parent) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
  /* fd 3: commands in, fd 4: replies out. dup2 clears CLOEXEC. */
  int r3 = dup(p->to_browser[0]), w4 = dup(p->from_browser[1]);
  if (r3 < 0 || w4 < 0) _exit(127);
  if (dup2(r3, 3) < 0 || dup2(w4, 4) < 0) _exit(127);
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, 0);
  int logfd = open(p->logpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (logfd >= 0) {
    dup2(logfd, 1);
    dup2(logfd, 2);
  }
  signal(SIGPIPE, SIG_DFL);
  execve(p->bin, (char *const *)p->argv, p->envp);
  _exit(127);
}

/* Forks the browser; its pid, or -1 (pipes closed, envp freed) when fork fails. */
static pid_t spawn_browser(launch_plan *p) {
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    free(p->envp);
    close_pipes(p);
    return -1;
  }
  if (pid == 0) exec_browser(p, parent);
  free(p->envp);
  setpgid(pid, pid); /* also from the parent: no race with kill(-pid) */
  close(p->to_browser[0]);
  close(p->from_browser[1]);
  return pid;
}

/* A client whose transport owns the running browser (closing it reaps);
 * CDP_NOMEM (err filled, browser reaped) when out of memory. */
static cdp_code wrap_browser(launch_plan *p, pid_t pid, cdp_client **cl, char *err, size_t errlen) {
  launched_tp *t = calloc(1, sizeof *t);
  if (t) t->pipe = cdp__pipe_new(p->to_browser[1], p->from_browser[0]);
  if (!t || !t->pipe) {
    free(t);
    close(p->to_browser[1]);
    close(p->from_browser[0]);
    browser_reap(pid, p->profile, p->ctmp);
    if (err) snprintf(err, errlen, "out of memory");
    return CDP_NOMEM;
  }
  t->pid = pid;
  snprintf(t->profile, sizeof t->profile, "%s", p->profile);
  snprintf(t->tmpdir, sizeof t->tmpdir, "%s", p->ctmp);
  *cl = cdp__client_new(&launched_transport, t);
  if (!*cl) {
    launched_close(t);
    if (err) snprintf(err, errlen, "out of memory");
    return CDP_NOMEM;
  }
  return CDP_OK;
}

/* The last two lines Chromium printed that are not its usual noise, joined
 * by " / ": the reason is often the line before the last ("Missing X server
 * or $DISPLAY" before "The platform failed to initialize"). */
static void last_log_lines(const char *logpath, char *last, size_t cap) {
  FILE *f = fopen(logpath, "r");
  if (!f) return;
  char line[256], prev[256] = "", cur[256] = "";
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (line[0] && !strstr(line, "unexpected operator") && !strstr(line, "dbus") && !strstr(line, "crashpad") &&
        !strstr(line, "cpufreq")) {
      memcpy(prev, cur, sizeof prev);
      snprintf(cur, sizeof cur, "%s", line);
    }
  }
  fclose(f);
  snprintf(last, cap, "%s%s%s", prev, *prev ? " / " : "", cur);
}

/* Waits for the browser's first reply; on failure fills err, frees the
 * client and returns CDP_CANCELLED or CDP_LAUNCH. */
static cdp_code await_browser(const launch_plan *p, const cdp_launch_opts *o, cdp_client *c,
                              char *err, size_t errlen) {
  cJSON *res = NULL;
  cdp_code rc = cdp_call(c, NULL, "Browser.getVersion", NULL, &res,
                         o->timeout_ms > 0 ? o->timeout_ms : 20000);
  cJSON_Delete(res);
  if (rc == CDP_OK) return CDP_OK;
  if (err) {
    /* what Chromium printed last usually says why */
    char last[520] = "";
    last_log_lines(p->logpath, last, sizeof last);
    snprintf(err, errlen, "Chromium (%s) did not start: %s%s%s", p->bin, cdp_client_errmsg(c),
             *last ? "; it said: " : "", last);
  }
  cdp_client_free(c);
  return rc == CDP_CANCELLED ? rc : CDP_LAUNCH;
}

cdp_code cdp_launch(const cdp_launch_opts *o, cdp_client **out, char *err, size_t errlen) {
  static const cdp_launch_opts zero;
  if (!o) o = &zero;
  *out = NULL;
  launch_plan p;
  p.ctmp[0] = 0;
  if (find_browser(o->chromium, p.bin, sizeof p.bin) < 0) return no_browser(o, err, errlen);
  if (make_profile(&p, err, errlen) < 0) return CDP_LAUNCH;
  if (open_pipes(&p) < 0) goto fail_nopipe;
  /* Build argv before fork: nothing but async-signal-safe calls after it. */
  build_argv(&p, o);
  p.envp = build_env(&p);
  if (!p.envp) {
    close_pipes(&p);
    goto fail_nopipe;
  }
  pid_t pid = spawn_browser(&p);
  if (pid < 0) goto fail_nopipe;
  /* From here the transport owns the browser: closing it reaps. */
  cdp_client *c = NULL;
  cdp_code rc = wrap_browser(&p, pid, &c, err, errlen);
  if (rc != CDP_OK) return rc;
  /* The first reply proves the browser is up. */
  rc = await_browser(&p, o, c, err, errlen);
  if (rc != CDP_OK) return rc;
  *out = c;
  return CDP_OK;

fail_nopipe:
  if (err) snprintf(err, errlen, "cannot start Chromium: %s", strerror(errno));
  cdp__rmtree(p.profile);
  if (p.ctmp[0]) cdp__rmtree(p.ctmp);
  return CDP_LAUNCH;
}

/* workers.c -- crawl --workers N on one machine (docs/scale.md): a child
 * process tied to its parent (crawl_spawn: the workers and the private
 * redis-server), that private redis-server on a unix socket, started,
 * asked PING through hiredis (as the shared frontier speaks to it,
 * shared.c) and stopped, and the run itself (crawl_workers_run): the
 * frontier key, each worker's command line after the caller's arguments,
 * the wait (the caller's signal passed on, progress from the shared
 * frontier), how each worker ended (its exit status and the last line of
 * its log), and the merge of their directories into one package
 * (crawl_merge). Which of the caller's options a worker gets, and what the
 * exit statuses mean, is the caller's (the command line's options and exit
 * codes: crawler/cli/cli_workers.c); this file prints nothing. */
#include "crawl.h"
#include "crawl_base.h"

#include <hiredis/hiredis.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

pid_t crawl_spawn(char *const *argv, const char *exe, const char *log) {
  pid_t parent = getpid(), pid = fork();
  if (pid != 0) return pid;
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(127); /* the parent died before prctl */
  freopen("/dev/null", "r", stdin);
  freopen(log, "w", stderr);
  freopen("/dev/null", "w", stdout);
  execvp(exe, argv);
  fprintf(stderr, "uiap-crawl: cannot start %s: %s\n", exe, strerror(errno));
  _exit(127);
}

/* The private redis-server answers PING on sock within ms. */
static int redis_ready(const char *sock, int ms) {
  for (int t = 0; t < ms; t += 50) {
    struct timeval tv = {.tv_sec = 1};
    redisContext *c = redisConnectUnixWithTimeout(sock, tv);
    redisReply *rep = c && !c->err ? redisCommand(c, "PING") : NULL;
    int ok = rep && rep->type == REDIS_REPLY_STATUS && !strcmp(rep->str, "PONG");
    freeReplyObject(rep);
    redisFree(c);
    if (ok) return 1;
    usleep(50000);
  }
  return 0;
}

crawl_code crawl_workers_redis_start(const char *dir, crawl_workers_redis *wr, char *err, size_t errlen) {
  char log[4400];
  memset(wr, 0, sizeof *wr);
  snprintf(wr->sockdir, sizeof wr->sockdir, "/tmp/uiap-redis-XXXXXX"); /* a unix socket path has 108 bytes at most */
  if ((mkdir(dir, 0700) != 0 && errno != EEXIST) || !mkdtemp(wr->sockdir)) {
    snprintf(err, errlen, "cannot create %.400s: %s", dir, strerror(errno));
    wr->sockdir[0] = 0;
    return CRAWL_IO;
  }
  snprintf(wr->sock, sizeof wr->sock, "%s/redis.sock", wr->sockdir);
  snprintf(log, sizeof log, "%s/redis.log", dir);
  char *rargv[] = {"redis-server", "--port", "0", "--unixsocket", wr->sock, "--unixsocketperm", "700", "--save", "",
                   "--appendonly", "no", NULL};
  wr->pid = crawl_spawn(rargv, "redis-server", log);
  if (!redis_ready(wr->sock, 5000)) {
    crawl_workers_redis_stop(wr);
    snprintf(err, errlen, "--workers needs redis-server (Debian: redis-server); see %.300s", log);
    return CRAWL_FRONTIER;
  }
  snprintf(wr->url, sizeof wr->url, "unix://%s", wr->sock);
  return CRAWL_OK;
}

void crawl_workers_redis_stop(crawl_workers_redis *wr) {
  if (wr->pid > 0) {
    kill(wr->pid, SIGTERM);
    waitpid(wr->pid, NULL, 0);
  }
  wr->pid = 0;
  if (wr->sock[0]) unlink(wr->sock);
  if (wr->sockdir[0]) rmdir(wr->sockdir);
}

/* ---- the run ------------------------------------------------------------------------ */
#define WPATH 4400

/* Worker k's path under OUT: its directory (suffix "") or its log (".log"). */
static void worker_path(char *buf, size_t len, const char *out, int k, const char *suffix) {
  snprintf(buf, len, "%s/workers/w%d%s", out, k + 1, suffix);
}

/* The directories of workers 0..n-1 into dirs and dv (with journals_only,
 * those of them that hold a journal): how many. */
static int worker_dirs(const char *out, int n, int journals_only, char dirs[][WPATH], const char **dv) {
  int m = 0;
  for (int k = 0; k < n; k++) {
    char jp[WPATH + 16];
    struct stat st;
    worker_path(dirs[m], WPATH, out, k, "");
    snprintf(jp, sizeof jp, "%.*s/journal.jsonl", WPATH, dirs[m]);
    if (!journals_only || stat(jp, &st) == 0) dv[m] = dirs[m], m++;
  }
  return m;
}

/* The worker's argv: the caller's (the command, the seeds, its options),
 * then the frontier, run id and output. */
static char **worker_argv(const crawl_workers_opts *o, const char *frontier, int k, char *out, size_t outlen) {
  int na = 0;
  while (o->argv[na]) na++;
  char **v = crawl__xcalloc((size_t)na + 16, sizeof *v);
  int n = 0;
  for (int i = 0; i < na; i++) v[n++] = (char *)o->argv[i];
  worker_path(out, outlen, o->out, k, "");
  v[n++] = "--frontier";
  v[n++] = (char *)frontier;
  v[n++] = "--run-id";
  v[n++] = (char *)o->run_id;
  v[n++] = o->verbose ? "--verbose" : "--quiet";
  v[n++] = "-o";
  v[n++] = out;
  return v;
}

/* The run's frontier key, fresh and random, for the workers only: in
 * UIAP_FRONTIER_KEY of this process, which they inherit (never in argv,
 * never in Redis). 0, or -1 (errno). */
static int frontier_key(void) {
  unsigned char raw[32];
  char hex[2 * sizeof raw + 1];
  if (getentropy(raw, sizeof raw) != 0) return -1;
  for (size_t k = 0; k < sizeof raw; k++) snprintf(hex + 2 * k, 3, "%02x", raw[k]);
  return setenv("UIAP_FRONTIER_KEY", hex, 1);
}

#define PROGRESS_MS 500

static int cancelled(const crawl_workers_opts *o) {
  return o->cancel && *o->cancel;
}

/* o->progress with the run's counts, when it is time (every PROGRESS_MS). */
static void tell_progress(const crawl_workers_opts *o, crawl_watch *watch, long long t0, long long *last) {
  long long now = cdp_now_ms();
  if (!o->progress || !watch || now - *last < PROGRESS_MS) return;
  *last = now;
  crawl_progress p = {.run_id = o->run_id, .status = "exploring", .elapsed_ms = (long)(now - t0), .decisions = -1};
  if (crawl_watch_read(watch, &p) == 0) o->progress(o->progress_ud, &p);
}

/* Wait for every worker; a signal to the parent goes on to them (each
 * writes its package). status[k]: worker k's wait status. With a watch,
 * the run's progress is told meanwhile. */
static void wait_all(const crawl_workers_opts *o, pid_t *pids, int *status, crawl_watch *watch) {
  int n = o->n, left = 0, told = 0;
  long long t0 = cdp_now_ms(), last = t0;
  for (int k = 0; k < n; k++) left += pids[k] > 0; /* a worker that did not start: nothing to wait for */
  while (left > 0) {
    if (cancelled(o) && !told) {
      for (int k = 0; k < n; k++)
        if (pids[k] > 0) kill(pids[k], *o->cancel);
      told = 1;
    }
    int ended = 0;
    for (int k = 0; k < n; k++) { /* the workers only: other children are the embedding program's */
      int st;
      if (pids[k] <= 0) continue;
      pid_t p = waitpid(pids[k], &st, WNOHANG);
      if (p == 0 || (p < 0 && errno == EINTR)) continue;
      if (p > 0) status[k] = st;
      pids[k] = -1; /* ended, or not ours to wait for (ECHILD): counted as ended */
      left--;
      ended = 1;
    }
    if (ended) continue;
    if (watch) tell_progress(o, watch, t0, &last);
    usleep(100000);
  }
}

/* The last line of log, without "uiap-crawl: ": a failed worker's own
 * error line (it exits right after printing it). "" without one. */
static void last_line(const char *log, char *line, size_t len) {
  static const char me[] = "uiap-crawl: ";
  char buf[1024];
  int at_start = 1;
  line[0] = 0;
  FILE *f = fopen(log, "r");
  if (!f) return;
  while (fgets(buf, sizeof buf, f)) {
    if (at_start && buf[0] != '\n') {
      const char *t = buf + (strncmp(buf, me, sizeof me - 1) ? 0 : sizeof me - 1);
      size_t l = strlen(t) < len ? strlen(t) : len - 1;
      memcpy(line, t, l);
      line[l] = 0;
    }
    at_start = strchr(buf, '\n') != NULL;
  }
  fclose(f);
  line[strcspn(line, "\n")] = 0;
}

/* code is one of the n statuses in set. */
static int in_set(const int *set, int n, int code) {
  for (int k = 0; k < n; k++)
    if (set[k] == code) return 1;
  return 0;
}

/* How worker k ended: its exit code (o->killed when a signal killed it)
 * and, when it failed, why. */
static int worker_exit(const crawl_workers_opts *o, int k, int st, char *why, size_t len) {
  char log[WPATH];
  worker_path(log, sizeof log, o->out, k, ".log");
  if (WIFEXITED(st)) {
    last_line(log, why, len);
    return WEXITSTATUS(st);
  }
  int sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
  snprintf(why, len, "worker %d was killed by signal %d (%s)", k + 1, sig, strsignal(sig));
  return o->killed;
}

/* The workers' exits judged (docs/scale.md, "When a worker fails"): every
 * worker failed, or one failed the run (o->fatal), then the run fails as
 * that worker did; else the failures are a warning in warn. Exits caused by
 * the parent's own signal are not failures. */
static void judge_ends(const crawl_workers_opts *o, const int *status, crawl_workers_result *res, char *warn,
                       size_t wlen) {
  size_t used = 0;
  memset(res, 0, sizeof *res);
  warn[0] = 0;
  for (int k = 0; k < o->n; k++) {
    crawl_worker_end *we = &res->worker[k];
    const char *why = we->why;
    int code = we->code = worker_exit(o, k, status[k], we->why, sizeof we->why);
    if (!code || (cancelled(o) && in_set(o->cancelled, o->ncancelled, code))) continue;
    if (!res->failed++ || (in_set(o->fatal, o->nfatal, code) && !in_set(o->fatal, o->nfatal, res->code))) {
      res->code = code;
      snprintf(res->why, sizeof res->why, "%s", why);
    }
    if (used < wlen) used += (size_t)snprintf(warn + used, wlen - used, "%sworker %d (exit %d): %.200s",
                                               used ? "; " : "", k + 1, code, why);
  }
  if (res->failed < o->n && !in_set(o->fatal, o->nfatal, res->code)) res->code = 0;
}

/* Merge the workers' directories into OUT; the summary in sum. */
static crawl_code merge_workers(const crawl_workers_opts *o, crawl_summary *sum) {
  char dirs[CRAWL_WORKERS_MAX][WPATH];
  const char *dv[CRAWL_WORKERS_MAX];
  int n = worker_dirs(o->out, o->n, 0, dirs, dv);
  crawl_merge_opts mo = {.force = 1}; /* OUT holds workers/ */
  crawl_merge_stats st;
  crawl_code rc = crawl_merge(dv, n, o->out, &mo, &st, sum->error, sizeof sum->error);
  if (rc) return rc;
  sum->states = st.states;
  sum->transitions = st.transitions;
  sum->self_loops = st.self_loops;
  sum->decisions = st.decisions;
  sum->failures = st.failures;
  sum->reviews = st.reviews;
  sum->status = st.unended ? "failed" : "completed";
  sum->stopped_by = st.stopped_by ? st.stopped_by : "frontier";
  return CRAWL_OK;
}

/* --verbose: where each worker's actions took their time (the line its own
 * --verbose log ends with; the merged journal has no timing: docs/merge.md). */
static void tell_timings(const char *out, int n) {
  static const char mark[] = "time per action: ";
  for (int k = 0; k < n; k++) {
    char log[WPATH], line[1024], last[1024] = "";
    worker_path(log, sizeof log, out, k, ".log");
    FILE *f = fopen(log, "r");
    if (!f) continue;
    while (fgets(line, sizeof line, f)) {
      const char *t = strstr(line, mark);
      if (t) snprintf(last, sizeof last, "%s", t + sizeof mark - 1);
    }
    fclose(f);
    last[strcspn(last, "\n")] = 0;
    if (*last) crawl_log(CRAWL_LOG_INFO, "crawl", "worker %d: time per action: %s", k + 1, last);
  }
}

/* The workers started on the frontier at url, waited for (with progress
 * from it), their ends in status. */
static void run_workers(const crawl_workers_opts *o, const char *url, int *status) {
  pid_t pids[CRAWL_WORKERS_MAX];
  for (int k = 0; k < o->n; k++) {
    char out[WPATH], log[WPATH];
    char **argv = worker_argv(o, url, k, out, sizeof out);
    worker_path(log, sizeof log, o->out, k, ".log");
    pids[k] = crawl_spawn(argv, o->exe, log);
    free(argv);
  }
  char werr[256];
  crawl_watch *watch = o->progress ? crawl_watch_open(url, o->run_id, werr, sizeof werr) : NULL;
  wait_all(o, pids, status, watch);
  crawl_watch_close(watch);
}

crawl_code crawl_workers_run(const crawl_workers_opts *o, crawl_summary *sum, crawl_workers_result *res) {
  memset(sum, 0, sizeof *sum);
  memset(res, 0, sizeof *res);
  if (o->n < 1 || o->n > CRAWL_WORKERS_MAX || !o->argv || !o->exe || !o->out || !o->run_id) {
    snprintf(sum->error, sizeof sum->error, "--workers takes 1 to %d workers, a program and its arguments",
             CRAWL_WORKERS_MAX);
    return CRAWL_ARG;
  }
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/workers", o->out);
  crawl_workers_redis rs;
  crawl_code rc0 = crawl_workers_redis_start(dir, &rs, sum->error, sizeof sum->error);
  if (rc0 != CRAWL_OK) return rc0;
  if (frontier_key() != 0) {
    crawl_workers_redis_stop(&rs);
    snprintf(sum->error, sizeof sum->error, "cannot make the workers' frontier key: %s", strerror(errno));
    return CRAWL_IO;
  }
  int status[CRAWL_WORKERS_MAX] = {0};
  run_workers(o, rs.url, status);
  crawl_workers_redis_stop(&rs);
  crawl_code rc = merge_workers(o, sum);
  if (o->verbose) tell_timings(o->out, o->n);
  char warn[400];
  judge_ends(o, status, res, warn, sizeof warn);
  if (!rc && res->failed)
    snprintf(sum->error, sizeof sum->error, "%d of %d workers failed (logs in %.60s): %s", res->failed, o->n, dir, warn);
  if (!rc && cancelled(o)) sum->status = "cancelled", sum->stopped_by = "signal";
  return rc;
}

int crawl_workers_gather(const char *out, char *err, size_t errlen) {
  char jp[WPATH], dirs[CRAWL_WORKERS_MAX][WPATH];
  const char *dv[CRAWL_WORKERS_MAX];
  struct stat st;
  snprintf(jp, sizeof jp, "%s/journal.jsonl", out);
  if (stat(jp, &st) == 0) return 0;
  int n = worker_dirs(out, CRAWL_WORKERS_MAX, 1, dirs, dv);
  if (!n) return 0;
  crawl_merge_opts mo = {.force = 1}; /* OUT holds workers/ */
  return crawl_merge(dv, n, out, &mo, NULL, err, errlen) == CRAWL_OK ? n : -1;
}

/* support.c -- see support.h. */
#include <criterion/criterion.h>

#include "support.h"
#include "crawl.h"
#include "crawl_serve.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void append(char **buf, size_t *len, size_t *cap, const char *d, size_t n) {
  if (*len + n + 1 > *cap) {
    *cap = (*len + n + 1) * 2;
    *buf = realloc(*buf, *cap);
  }
  memcpy(*buf + *len, d, n);
  *len += n;
  (*buf)[*len] = 0;
}

t_run t_run_cli(const char *const *args, int timeout_ms) {
  const char *argv[32];
  int n = 0;
  argv[n++] = UIAP_BIN;
  for (int i = 0; args[i] && n < 31; i++) argv[n++] = args[i];
  argv[n] = NULL;
  return t_run_argv(argv, timeout_ms);
}

t_run t_run_argv(const char *const *argv, int timeout_ms) {
  t_run r = {0};
  int op[2], ep[2];
  if (pipe(op) || pipe(ep)) abort();
  long long t0 = now_ms();
  pid_t pid = fork();
  if (pid == 0) {
    dup2(op[1], 1);
    dup2(ep[1], 2);
    close(op[0]); close(ep[0]); close(op[1]); close(ep[1]);
    int dn = open("/dev/null", O_RDONLY);
    dup2(dn, 0);
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  close(op[1]);
  close(ep[1]);
  size_t ol = 0, oc = 0, el = 0, ec = 0;
  r.out = calloc(1, 1);
  r.err = calloc(1, 1);
  int open_fds = 2, killed = 0;
  struct pollfd p[2] = {{.fd = op[0], .events = POLLIN}, {.fd = ep[0], .events = POLLIN}};
  char buf[65536];
  while (open_fds > 0) {
    long long left = t0 + timeout_ms - now_ms();
    if (left <= 0 && !killed) {
      kill(pid, SIGKILL);
      killed = 1;
    }
    int n = poll(p, 2, left > 0 ? (int)(left > 200 ? 200 : left) : 200);
    if (n < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; i++) {
      if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t k = read(p[i].fd, buf, sizeof buf);
      if (k <= 0) {
        close(p[i].fd);
        p[i].fd = -1;
        open_fds--;
        continue;
      }
      if (i == 0) append(&r.out, &ol, &oc, buf, (size_t)k);
      else append(&r.err, &el, &ec, buf, (size_t)k);
    }
  }
  int st = 0;
  waitpid(pid, &st, 0);
  r.ms = now_ms() - t0;
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

void t_run_free(t_run *r) {
  free(r->out);
  free(r->err);
  r->out = r->err = NULL;
}

char *t_read_file(const char *path, size_t *len) {
  /* read in a loop: /proc files report size 0 */
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *b = malloc(cap);
  for (;;) {
    if (n + 4096 + 1 > cap) b = realloc(b, cap *= 2);
    size_t got = fread(b + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) break;
  }
  b[n] = 0;
  fclose(f);
  if (len) *len = n;
  return b;
}

int t_write_file(const char *path, const char *s) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  fputs(s, f);
  return fclose(f);
}

/* ---- outside references (UIAP_SHARED) ---- */

static const char *shared_base(void) {
  const char *env = getenv("UIAP_SHARED");
  return env && *env ? env : UIAP_SHARED;
}

/* UIAP_SHARED/rel as an absolute path kept for the process, or NULL. */
static const char *shared_find(const char *rel) {
  static char *found[32];
  static int nfound;
  char want[4096];
  snprintf(want, sizeof want, "%s/%s", shared_base(), rel);
  char *real = realpath(want, NULL);
  if (!real) return NULL;
  for (int i = 0; i < nfound; i++)
    if (!strcmp(found[i], real)) {
      free(real);
      return found[i];
    }
  if (nfound == (int)(sizeof found / sizeof *found)) {
    fprintf(stderr, "%s:%d: more than 32 shared references\n", __FILE__, __LINE__);
    abort();
  }
  return found[nfound++] = real;
}

/* A note for the run's output at any verbosity: cr_log_warn would make the
 * run exit 1, cr_log_info and [SKIP] lines show only with --verbose. */
static int shared_required(void);
static void shared_note(const char *what, const char *rel) {
  const struct criterion_test *t = criterion_current_test;
  fprintf(stderr, "[----] %s::%s: %s skipped: needs %s/%s (set UIAP_SHARED)\n", t ? t->category : "?",
          t ? t->name : "?", what, shared_base(), rel);
}

int t_ci_required(void) { return shared_required(); }

static int shared_required(void) {
  const char *ci = getenv("CI");
  return ci && !strcmp(ci, "true");
}

const char *t_shared(const char *rel) {
  const char *p = shared_find(rel);
  if (p) return p;
  if (shared_required())
    cr_assert_fail("UIAP_SHARED (%s) has no %s: CI needs the shared references", shared_base(), rel);
  shared_note("test", rel);
  cr_skip_test("needs %s/%s (set UIAP_SHARED)", shared_base(), rel);
}

const char *t_shared_check(const char *rel, const char *check) {
  const char *p = shared_find(rel);
  if (p) return p;
  if (shared_required())
    cr_assert_fail("UIAP_SHARED (%s) has no %s: CI needs the shared references", shared_base(), rel);
  shared_note(check, rel);
  return NULL;
}

int t_validate(const char *definition, const char *path, char *msg, size_t msglen) {
  char check[128];
  snprintf(check, sizeof check, "the ajv check against %s", definition);
  const char *validate = t_shared_check("spec/validate", check);
  if (!validate) {
    if (msg && msglen) snprintf(msg, msglen, "not validated: no spec/validate in UIAP_SHARED");
    return 0;
  }
  const char *argv[] = {"/bin/bash", validate, definition, path, NULL};
  t_run r = t_run_argv(argv, 120000);
  int rc = r.status;
  if (msg) snprintf(msg, msglen, "%s%s", r.out, r.err);
  t_run_free(&r);
  return rc;
}

static crawl_server *servers[2];
static char urlbuf[4][1024];
static int urlslot;

static void stop_servers(void) {
  for (int i = 0; i < 2; i++) crawl_server_stop(servers[i]);
}

int t_fixture_port(int which) {
  if (!servers[0]) {
    for (int i = 0; i < 2; i++) {
      crawl_server_opts o = {.root = UIAP_SRC "/tests/fixtures", .handler = t_test_endpoints, .test_hooks = 1};
      char err[256];
      if (crawl_server_start(&o, &servers[i], err, sizeof err) != 0) {
        fprintf(stderr, "fixture server: %s\n", err);
        abort();
      }
    }
    atexit(stop_servers);
  }
  return crawl_server_port(servers[which]);
}

long t_fixture_hits(const char *prefix) {
  t_fixture_port(0);
  return crawl_server_hits(servers[0], prefix) + crawl_server_hits(servers[1], prefix);
}

static char *local_get(int port, const char *path);
char *t_fixture_get(int which, const char *path) { return local_get(t_fixture_port(which), path); }

/* The body of GET path from the loopback server on port, or NULL. Caller
 * frees. One request, Connection: close, 5 s at most. */
static char *local_get(int port, const char *path) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return NULL;
  struct timeval tv = {.tv_sec = 5};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  char req[512];
  int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", path);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 || write(fd, req, (size_t)n) != n) {
    close(fd);
    return NULL;
  }
  char *buf = NULL, chunk[8192];
  size_t len = 0, cap = 0;
  ssize_t k;
  while ((k = read(fd, chunk, sizeof chunk)) > 0) append(&buf, &len, &cap, chunk, (size_t)k);
  close(fd);
  char *body = buf ? strstr(buf, "\r\n\r\n") : NULL;
  char *out = body ? strdup(body + 4) : NULL;
  free(buf);
  return out;
}

cJSON *t_fixture_hit_table(void) {
  cJSON *sum = cJSON_CreateObject();
  for (int i = 0; i < 2; i++) {
    char *text = local_get(t_fixture_port(i), "/__hits");
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    free(text);
    const cJSON *reqs = cJSON_GetObjectItemCaseSensitive(j, "requests"), *it;
    cr_assert(cJSON_IsObject(reqs), "the fixture server on port %d answers GET /__hits", t_fixture_port(i));
    cJSON_ArrayForEach(it, reqs) {
      cJSON *have = cJSON_GetObjectItemCaseSensitive(sum, it->string);
      if (have) cJSON_SetNumberValue(have, have->valuedouble + it->valuedouble);
      else cJSON_AddNumberToObject(sum, it->string, it->valuedouble);
    }
    cJSON_Delete(j);
  }
  return sum;
}

long t_fixture_hits_since(const cJSON *before, const char *prefix, char *buf, size_t buflen) {
  cJSON *now = t_fixture_hit_table();
  long total = 0;
  size_t used = 0;
  if (buf && buflen) buf[0] = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, now) {
    const char *path = strchr(it->string, ' ');
    if (!path || strncmp(path + 1, prefix, strlen(prefix))) continue;
    const cJSON *old = before ? cJSON_GetObjectItemCaseSensitive(before, it->string) : NULL;
    long n = (long)it->valuedouble - (cJSON_IsNumber(old) ? (long)old->valuedouble : 0);
    if (n <= 0) continue;
    total += n;
    if (buf && used < buflen) {
      int w = n > 1 ? snprintf(buf + used, buflen - used, "%s%ldx %s", used ? ", " : "", n, it->string)
                    : snprintf(buf + used, buflen - used, "%s%s", used ? ", " : "", it->string);
      if (w > 0) used += (size_t)w;
    }
  }
  if (buf && buflen && !total) snprintf(buf, buflen, "none");
  cJSON_Delete(now);
  return total;
}

const char *t_fixture_url(int which, const char *host, const char *path) {
  char *b = urlbuf[urlslot++ & 3];
  snprintf(b, sizeof urlbuf[0], "http://%s:%d%s%s", host ? host : "127.0.0.1",
           t_fixture_port(which), path[0] == '/' ? "" : "/", path);
  return b;
}

static struct { char *root; crawl_server *srv; } roots[8];
static int nroots;

static void stop_roots(void) {
  for (int i = 0; i < nroots; i++) {
    crawl_server_stop(roots[i].srv);
    free(roots[i].root);
  }
  nroots = 0;
}

int t_serve_root(const char *root) {
  for (int i = 0; i < nroots; i++)
    if (!strcmp(roots[i].root, root)) return crawl_server_port(roots[i].srv);
  if (nroots == (int)(sizeof roots / sizeof *roots)) {
    fprintf(stderr, "t_serve_root: too many roots\n");
    return -1;
  }
  crawl_server_opts o = {.root = root, .test_hooks = 1};
  char err[256];
  crawl_server *s = NULL;
  if (crawl_server_start(&o, &s, err, sizeof err) != 0) {
    fprintf(stderr, "server for %s: %s\n", root, err);
    return -1;
  }
  if (nroots == 0) atexit(stop_roots);
  roots[nroots].root = strdup(root);
  roots[nroots].srv = s;
  nroots++;
  return crawl_server_port(s);
}

int t_count_procs(const char *needle) {
  int count = 0;
  DIR *d = opendir("/proc");
  if (!d) return 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    char p[300];
    snprintf(p, sizeof p, "/proc/%s/cmdline", e->d_name);
    size_t n = 0;
    char *s = t_read_file(p, &n);
    if (!s) continue;
    for (size_t i = 0; i + 1 < n; i++)
      if (!s[i]) s[i] = ' ';
    if (strstr(s, needle)) count++;
    free(s);
  }
  closedir(d);
  return count;
}

int t_leftovers(const char *tmp) {
  int left = t_dir_entries(tmp) + t_count_procs(tmp);
  for (int i = 0; i < 20 && left; i++) {
    usleep(50000);
    left = t_dir_entries(tmp) + t_count_procs(tmp);
  }
  if (left) { /* name what stayed, for the failure's reader */
    DIR *d = opendir(tmp);
    struct dirent *e;
    while (d && (e = readdir(d)))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) fprintf(stderr, "left in %s: %s\n", tmp, e->d_name);
    if (d) closedir(d);
    fprintf(stderr, "left in %s: %d process(es) naming it\n", tmp, t_count_procs(tmp));
  }
  return left;
}

char *t_tmpdir(void) {
  char tmpl[] = "/tmp/uiap-test-XXXXXX";
  char *d = mkdtemp(tmpl);
  return d ? strdup(d) : NULL;
}

int t_dir_entries(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(d);
  return n;
}

cJSON *t_snapshot(t_run *run, int *leftover, const char *url, const char *const *args) {
  char *tmp = t_tmpdir();
  char outpath[512];
  snprintf(outpath, sizeof outpath, "%s.json", tmp);
  const char *argv[64];
  int n = 0;
  char env_tmp[600];
  snprintf(env_tmp, sizeof env_tmp, "TMPDIR=%s", tmp);
  argv[n++] = "/usr/bin/env";
  argv[n++] = env_tmp;
  argv[n++] = UIAP_BIN;
  argv[n++] = "snapshot";
  argv[n++] = url;
  for (int i = 0; args && args[i] && n < 58; i++) argv[n++] = args[i];
  argv[n++] = "-o";
  argv[n++] = outpath;
  argv[n] = NULL;
  *run = t_run_argv(argv, 90000);
  if (leftover) *leftover = t_leftovers(tmp);
  cJSON *g = NULL;
  if (run->status == 0) {
    char *text = t_read_file(outpath, NULL);
    if (text) {
      g = cJSON_Parse(text);
      free(text);
    }
    char msg[4096];
    const char *def = "PageGraph";
    for (int i = 0; args && args[i]; i++)
      if (!strcmp(args[i], "--envelope")) def = "UiapMessage";
    if (g && t_validate(def, outpath, msg, sizeof msg) != 0) {
      fprintf(stderr, "schema validation failed for %s:\n%s\n", url, msg);
      cJSON_Delete(g);
      g = NULL;
    }
  }
  unlink(outpath);
  rmdir(tmp);
  free(tmp);
  return g;
}

const cJSON *t_element(const cJSON *graph, const char *role, const char *name) {
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(graph, "elements")) {
    const char *r = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "role"));
    const char *nm = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name"));
    if (role && (!r || strcmp(r, role))) continue;
    if (name && (!nm || strcmp(nm, name))) continue;
    return e;
  }
  return NULL;
}

int t_state(const cJSON *el, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(el, "state"), key);
  if (!v) return -1;
  return cJSON_IsTrue(v) ? 1 : 0;
}

int t_has(const cJSON *obj, const char *key, const char *v) {
  const cJSON *it;
  cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(obj, key))
    if (cJSON_IsString(it) && !strcmp(it->valuestring, v)) return 1;
  return 0;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb; (void)flag; (void)ftw;
  return remove(path);
}
void t_rm_rf(const char *dir) { nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

/* Files below dir/rel ("" at the top) holding needle, appended to buf
 * (" name" for the first, then ", name"); returns how many. */
static int tree_grep(const char *dir, const char *rel, const char *needle, char *buf, size_t buflen, size_t *used,
                     int *nfound) {
  char path[4096];
  snprintf(path, sizeof path, "%s%s%s", dir, *rel ? "/" : "", rel);
  DIR *d = opendir(path);
  if (!d) return 0;
  int found = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char sub[4096], full[8192];
    snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
    snprintf(full, sizeof full, "%s/%s", dir, sub);
    struct stat st;
    if (lstat(full, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      found += tree_grep(dir, sub, needle, buf, buflen, used, nfound);
      continue;
    }
    if (!S_ISREG(st.st_mode)) continue;
    size_t n = 0;
    char *text = t_read_file(full, &n);
    if (text && memmem(text, n, needle, strlen(needle))) {
      found++;
      if (buf && *used < buflen) {
        int w = snprintf(buf + *used, buflen - *used, "%s %s", (*nfound)++ ? "," : "", sub);
        if (w > 0) *used += (size_t)w;
      }
    }
    free(text);
  }
  closedir(d);
  return found;
}

int t_tree_grep(const char *dir, const char *const *needles, char *buf, size_t buflen) {
  int found = 0;
  size_t used = 0;
  if (buf && buflen) buf[0] = 0;
  for (int k = 0; needles[k]; k++) {
    size_t mark = used;
    if (buf && used < buflen) {
      int w = snprintf(buf + used, buflen - used, "%s\"%s\" in", used ? "; " : "", needles[k]);
      if (w > 0) used += (size_t)w;
    }
    int nfound = 0, n = tree_grep(dir, "", needles[k], buf, buflen, &used, &nfound);
    found += n;
    if (!n && buf && mark < buflen) buf[used = mark] = 0; /* nothing: take the label back */
  }
  return found;
}

void t_copy_file(const char *from, const char *to) {
  char *text = t_read_file(from, NULL);
  cr_assert(text, "cannot read %s", from);
  cr_assert_eq(t_write_file(to, text), 0, "cannot write %s", to);
  free(text);
}

#define JOURNALS UIAP_SRC "/tests/fixtures/journals"

char *t_journal_dir(const char *name, const char *journal) {
  char *dir = t_tmpdir(), src[1024], dst[1024];
  cr_assert(dir);
  snprintf(dst, sizeof dst, "%s/states", dir);
  cr_assert_eq(mkdir(dst, 0755), 0);
  for (int i = 1; i <= 3; i++) {
    snprintf(src, sizeof src, JOURNALS "/states/s%d.json", i);
    snprintf(dst, sizeof dst, "%s/states/s%d.json", dir, i);
    t_copy_file(src, dst);
  }
  snprintf(dst, sizeof dst, "%s/journal.jsonl", dir);
  if (journal) cr_assert_eq(t_write_file(dst, journal), 0);
  else {
    snprintf(src, sizeof src, JOURNALS "/%s/journal.jsonl", name);
    t_copy_file(src, dst);
  }
  return dir;
}

int t_journal_lines(const char *out_dir, const char *type) {
  char path[700], needle[64];
  snprintf(path, sizeof path, "%s/journal.jsonl", out_dir);
  snprintf(needle, sizeof needle, "\"type\":\"%s\"", type);
  char *text = t_read_file(path, NULL);
  int n = 0;
  for (char *p = text; p && (p = strstr(p, needle)); p++) n++;
  free(text);
  return n;
}

cJSON *t_journal_records(const char *out_dir, const char *type) {
  char path[700];
  snprintf(path, sizeof path, "%s/journal.jsonl", out_dir);
  char *text = t_read_file(path, NULL);
  cJSON *all = cJSON_CreateArray();
  for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
    nl = strchr(line, '\n');
    if (nl) *nl = 0;
    cJSON *j = cJSON_Parse(line);
    const char *t = cJSON_GetStringValue(cJSON_GetObjectItem(j, "type"));
    if (t && !strcmp(t, type)) cJSON_AddItemToArray(all, j);
    else cJSON_Delete(j);
  }
  free(text);
  return all;
}

cJSON *t_json_at(const char *dir, const char *rel) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  char *text = t_read_file(path, NULL);
  cJSON *j = text ? cJSON_Parse(text) : NULL;
  free(text);
  return j;
}

void t_chromium_start(const char *const *argv, const char *profile, pid_t *pid_out, int *port, char *ws_path) {
  pid_t parent = getpid();
  pid_t pid = fork();
  cr_assert(pid >= 0);
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    int devnull = open("/dev/null", O_RDWR);
    dup2(devnull, 0);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execvp(argv[0], (char *const *)argv);
    _exit(127);
  }
  setpgid(pid, pid);
  *pid_out = pid;
  char path[300];
  snprintf(path, sizeof path, "%s/DevToolsActivePort", profile);
  for (long long end = cdp_now_ms() + 30000; cdp_now_ms() < end;) {
    FILE *f = fopen(path, "r");
    if (f) {
      int ok = ws_path ? fscanf(f, "%d %255s", port, ws_path) == 2 : fscanf(f, "%d", port) == 1;
      fclose(f);
      if (ok && *port > 0) return;
    }
    cr_assert(waitpid(pid, NULL, WNOHANG) == 0, "Chromium exited during start-up");
    usleep(50000);
  }
  cr_assert_fail("Chromium wrote no DevToolsActivePort within 30 s");
}

const char *t_plan_write(const char *dir, const char *env_extra, const char *seed_path) {
  static char path[700];
  char plan[4096];
  snprintf(path, sizeof path, "%s/plan.json", dir);
  snprintf(plan, sizeof plan,
           "{\"environment\":{\"environmentId\":\"test\",\"baseUrl\":\"%s\"%s%s},"
           "\"seeds\":[{\"kind\":\"url\",\"url\":\"%s\"}]}",
           t_fixture_url(0, NULL, "/"), env_extra && *env_extra ? "," : "", env_extra ? env_extra : "", seed_path);
  cr_assert_eq(t_write_file(path, plan), 0, "cannot write %s", path);
  return path;
}

/* ---- a browser of the test's own, child processes, packages ------------------------- */

void t_browser_stop(t_browser *b) {
  if (b->pid > 0) {
    kill(-b->pid, SIGKILL);
    kill(b->pid, SIGKILL);
    waitpid(b->pid, NULL, 0);
    b->pid = 0;
  }
  for (int i = 0; b->profile[0] && i < 5 && access(b->profile, F_OK) == 0; i++) {
    nftw(b->profile, rm_entry, 16, FTW_DEPTH | FTW_PHYS); /* renderers may write for a moment after the kill */
    if (access(b->profile, F_OK) == 0) usleep(100000);
  }
  b->profile[0] = 0;
}

void t_browser_start(t_browser *b, const char *tag) {
  memset(b, 0, sizeof *b);
  snprintf(b->profile, sizeof b->profile, "/tmp/uiap-test-%s-XXXXXX", tag);
  cr_assert_not_null(mkdtemp(b->profile), "mkdtemp: %s", strerror(errno));
  char udd[300];
  snprintf(udd, sizeof udd, "--user-data-dir=%s", b->profile);
  const char *bin = getenv("UIAP_CHROMIUM") && *getenv("UIAP_CHROMIUM") ? getenv("UIAP_CHROMIUM") : "chromium";
  const char *argv[] = {bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        "--disable-dev-shm-usage", "--remote-debugging-port=0", udd, "about:blank", NULL};
  t_chromium_start(argv, b->profile, &b->pid, &b->port, NULL);
}

int t_wait_exit(pid_t pid, int ms, int *status) {
  for (int i = 0; i < ms / 50; i++) {
    if (waitpid(pid, status, WNOHANG) == pid) return 1;
    usleep(50000);
  }
  kill(pid, SIGKILL);
  waitpid(pid, status, 0);
  return 0;
}

cJSON *t_package_read(const char *path) {
  char *text = t_read_file(path, NULL);
  cJSON *p = text ? cJSON_Parse(text) : NULL;
  free(text);
  char msg[4096];
  if (p) cr_expect_eq(t_validate("DiscoveryPackage", path, msg, sizeof msg), 0, "%s", msg);
  return p;
}

int t_review_mentions(const cJSON *pkg, const char *kind, const char *needle) {
  const cJSON *it;
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "reviewQueue"), "items")) {
    const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(it, "kind"));
    const char *d = cJSON_GetStringValue(cJSON_GetObjectItem(it, "description"));
    if (k && !strcmp(k, kind) && d && strstr(d, needle)) return 1;
  }
  return 0;
}

/* scale.c -- end-to-end: several workers share one run's frontier on a real
 * redis-server (started here on loopback); one is SIGKILLed mid-run and
 * replaced, and the package merged from their journals has the same states
 * and edges as one process alone, nothing twice (docs/scale.md). */
#include <criterion/criterion.h>
#include <hiredis/hiredis.h>
#include <pthread.h>
#include <netinet/in.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shared.h"
#include "support.h"

/* A free loopback TCP port (bound, read back, released). */
static int free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  cr_assert(bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(fd, (struct sockaddr *)&a, &len) == 0);
  close(fd);
  return ntohs(a.sin_port);
}

/* redis-server on 127.0.0.1:*port, answering (or the test fails). */
static pid_t redis_start(int *port, char *url, size_t urllen) {
  *port = free_port();
  char ps[16];
  snprintf(ps, sizeof ps, "%d", *port);
  pid_t pid = fork();
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    execlp("redis-server", "redis-server", "--port", ps, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
           (char *)NULL);
    _exit(127);
  }
  snprintf(url, urllen, "redis://127.0.0.1:%d/0", *port);
  char err[300] = "";
  for (int i = 0; i < 100; i++) {
    crawl__shared *sh = crawl__shared_open(url, "probe", 0, 500, err, sizeof err);
    if (sh) {
      crawl__shared_close(sh);
      return pid;
    }
    usleep(50000);
  }
  cr_assert_fail("redis-server did not start: %s (scripts/deps.sh installs it)", err);
  return -1;
}

static const char *seed_url(void) { return t_fixture_url(0, NULL, "/spa/index.html#/r0"); }

/* A worker: crawl URL (or --resume out) -o out on the shared frontier. */
static pid_t worker_start(const char *url, const char *redis, const char *out, int resume) {
  const char *seed = seed_url(); /* resolved before fork: the server runs in this process */
  pid_t pid = fork();
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    freopen("/dev/null", "w", stderr);
    setenv("UIAP_FRONTIER_KEY", "scale-test-key-0123456789", 1); /* the run's key, the same for every worker */
    if (resume)
      execl(UIAP_BIN, UIAP_BIN, "crawl", "--resume", out, "--frontier", redis, "--run-id", "scale-test",
            "--lease-ms", "3000", (char *)NULL);
    else
      execl(UIAP_BIN, UIAP_BIN, "crawl", url ? url : seed, "-o", out, "--frontier", redis, "--run-id",
            "scale-test", "--lease-ms", "3000", (char *)NULL);
    _exit(127);
  }
  return pid;
}

static cJSON *package_of(const char *dir) {
  char path[700];
  snprintf(path, sizeof path, "%s/package.json", dir);
  cJSON *p = t_package_read(path);
  cr_assert(p, "%s has a package", dir);
  return p;
}

static int strcmp_ptr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The package's states and edges as sorted lines ("S id", "E from to
 * action scope role name ordinal"); *dups: lines seen twice. Caller frees. */
static char *graph_lines(const cJSON *p, int *dups) {
  const cJSON *tg = cJSON_GetObjectItem(p, "transitionGraph"), *x;
  size_t n = 0, cap = 64;
  char **v = malloc(cap * sizeof *v);
  cJSON_ArrayForEach(x, cJSON_GetObjectItem(tg, "states")) {
    if (n == cap) v = realloc(v, (cap *= 2) * sizeof *v);
    char line[300];
    snprintf(line, sizeof line, "S %s", cJSON_GetStringValue(cJSON_GetObjectItem(x, "stateId")));
    v[n++] = strdup(line);
  }
  cJSON_ArrayForEach(x, cJSON_GetObjectItem(tg, "edges")) {
    if (n == cap) v = realloc(v, (cap *= 2) * sizeof *v);
    const cJSON *t = cJSON_GetObjectItem(x, "target");
    char line[1200];
    snprintf(line, sizeof line, "E %s %s %s %s %s %s %d", cJSON_GetStringValue(cJSON_GetObjectItem(x, "fromStateId")),
             cJSON_GetStringValue(cJSON_GetObjectItem(x, "toStateId")),
             cJSON_GetStringValue(cJSON_GetObjectItem(x, "viaActionId")), cJSON_GetStringValue(cJSON_GetObjectItem(t, "scopeId")),
             cJSON_GetStringValue(cJSON_GetObjectItem(t, "role")),
             cJSON_GetStringValue(cJSON_GetObjectItem(t, "name")), cJSON_GetObjectItem(t, "ordinal") ? cJSON_GetObjectItem(t, "ordinal")->valueint : 0);
    v[n++] = strdup(line);
  }
  qsort(v, n, sizeof *v, strcmp_ptr);
  *dups = 0;
  size_t len = 1;
  for (size_t i = 0; i < n; i++) len += strlen(v[i]) + 1;
  char *out = calloc(1, len);
  for (size_t i = 0; i < n; i++) {
    if (i && !strcmp(v[i], v[i - 1])) (*dups)++;
    strcat(strcat(out, v[i]), "\n");
  }
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
  return out;
}

/* The first line of a not in b ("" when none), into buf. */
static const char *first_missing(const char *a, const char *b, char *buf, size_t n) {
  buf[0] = 0;
  for (const char *l = a, *nl; *l; l = nl + 1) {
    nl = strchr(l, '\n');
    char line[1300];
    snprintf(line, sizeof line, "%.*s\n", (int)(nl - l), l);
    if (!strstr(b, line)) {
      snprintf(buf, n, "%s", line);
      break;
    }
  }
  return buf;
}

static t_run cli(const char *const *argv, int ms) { return t_run_argv(argv, ms); }

/* The package in dir has every state and edge of ls (one process's
 * graph_lines), nothing else, and none twice; what names the run. */
static void expect_graph_of(const char *ls, const char *dir, const char *what) {
  cJSON *p = package_of(dir);
  int dups;
  char *l = graph_lines(p, &dups), buf[1300];
  cr_expect_eq(dups, 0, "%s: no state or edge twice", what);
  cr_expect(!*first_missing(ls, l, buf, sizeof buf), "%s has every state and edge; missing: %s (in %s)", what, buf, dir);
  cr_expect(!*first_missing(l, ls, buf, sizeof buf), "%s: nothing one process did not find; extra: %s", what, buf);
  free(l);
  cJSON_Delete(p);
}

Test(scale, redis_frontier_worker_killed_and_replaced, .timeout = 600) {
  char *dir = t_tmpdir();
  char single[700], w1[700], w2[700], merged[700], redis[80];
  snprintf(single, sizeof single, "%s/single", dir);
  snprintf(w1, sizeof w1, "%s/w1", dir);
  snprintf(w2, sizeof w2, "%s/w2", dir);
  snprintf(merged, sizeof merged, "%s/merged", dir);
  const char *url = seed_url();
  t_run one = cli((const char *[]){UIAP_BIN, "crawl", url, "-o", single, "--quiet", NULL}, 300000);
  cr_assert_eq(one.status, 0, "one process alone: %s", one.err);
  t_run_free(&one);

  int port;
  pid_t rs = redis_start(&port, redis, sizeof redis);
  pid_t a = worker_start(NULL, redis, w1, 0), b = worker_start(NULL, redis, w2, 0);
  for (int i = 0; i < 600 && t_journal_lines(w1, "transition") < 10; i++) usleep(100000);
  cr_assert_geq(t_journal_lines(w1, "transition"), 10, "worker 1 got going");
  kill(a, SIGKILL); /* mid-run, holding leases */
  waitpid(a, NULL, 0);
  int killed_at = t_journal_lines(w1, "transition");
  pid_t c = worker_start(NULL, redis, w1, 1); /* its replacement, on the same directory */
  int sb = 0, sc = 0;
  cr_assert(t_wait_exit(b, 300000, &sb), "worker 2 finished when the frontier drained");
  cr_assert(t_wait_exit(c, 300000, &sc), "the replacement finished when the frontier drained");
  cr_expect(WIFEXITED(sb) && WEXITSTATUS(sb) == 0, "worker 2 exit %d", WEXITSTATUS(sb));
  cr_expect(WIFEXITED(sc) && WEXITSTATUS(sc) == 0, "replacement exit %d", WEXITSTATUS(sc));
  cr_expect_geq(t_journal_lines(w1, "transition"), killed_at, "nothing worker 1 recorded was lost");
  kill(rs, SIGTERM);
  waitpid(rs, NULL, 0);
  char j1[800], j2[800];
  snprintf(j1, sizeof j1, "%s/journal.jsonl", w1);
  snprintf(j2, sizeof j2, "%s/journal.jsonl", w2);
  char *t1 = t_read_file(j1, NULL), *t2 = t_read_file(j2, NULL);
  cr_expect((t1 && strstr(t1, "took back")) || (t2 && strstr(t2, "took back")),
            "the killed worker's leases ran out and were taken back");
  free(t1);
  free(t2);

  t_run m = cli((const char *[]){UIAP_BIN, "merge", w1, w2, "-o", merged, NULL}, 120000);
  cr_assert_eq(m.status, 0, "merge: %s", m.err);
  t_run_free(&m);
  cJSON *ps = package_of(single);
  int dup_s;
  char *ls = graph_lines(ps, &dup_s);
  cr_expect_gt(strlen(ls), 100, "the single run found something");
  expect_graph_of(ls, merged, "the merged package");

  /* --workers 2: the same on one machine, its redis-server its own */
  char wk[700];
  snprintf(wk, sizeof wk, "%s/workers", dir);
  t_run w = cli((const char *[]){UIAP_BIN, "crawl", url, "-o", wk, "--workers", "2", NULL}, 300000);
  cr_assert_eq(w.status, 0, "--workers 2: %s", w.err);
  cr_expect(strstr(w.err, "package:"), "the summary names the merged package: %s", w.err);
  t_run_free(&w);
  expect_graph_of(ls, wk, "--workers 2");
  free(ls);
  cJSON_Delete(ps);
  t_rm_rf(dir);
  free(dir);
}

/* The argument after flag on the command line of a process whose command
 * line holds needle, into buf ("" when there is none). */
static void proc_arg(const char *needle, const char *flag, char *buf, size_t n) {
  buf[0] = 0;
  DIR *d = opendir("/proc");
  struct dirent *e;
  while (d && !buf[0] && (e = readdir(d))) {
    char path[300], cl[8192];
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    size_t len = fread(cl, 1, sizeof cl - 1, f);
    fclose(f);
    cl[len] = 0;
    int holds = 0;
    for (size_t i = 0; i < len; i += strlen(cl + i) + 1) holds |= strstr(cl + i, needle) != NULL;
    for (size_t i = 0; holds && i < len; i += strlen(cl + i) + 1)
      if (!strcmp(cl + i, flag) && i + strlen(cl + i) + 1 < len) snprintf(buf, n, "%s", cl + i + strlen(cl + i) + 1);
  }
  if (d) closedir(d);
}

/* crawl --workers 2 whose parent is SIGKILLed mid-run (an OOM kill, a CI
 * job cancelled): its workers, their browsers and its redis-server go too
 * (each worker writes its package), and `crawl --resume OUT` merges the
 * workers' journals and finishes the run as one process: every state and
 * edge one process finds, nothing twice. */
Test(scale, a_killed_workers_run_leaves_nothing_running_and_resumes_whole, .timeout = 400) {
  char *dir = t_tmpdir(), *tmp = t_tmpdir();
  char single[700], wk[700], w1[800], sock[300] = "";
  snprintf(single, sizeof single, "%s/single", dir);
  snprintf(wk, sizeof wk, "%s/wk", dir);
  snprintf(w1, sizeof w1, "%s/workers/w1", wk);
  const char *url = seed_url();
  t_run one = cli((const char *[]){UIAP_BIN, "crawl", url, "-o", single, "--quiet", "--workers", "1", NULL}, 300000);
  cr_assert_eq(one.status, 0, "one process alone: %s", one.err);
  t_run_free(&one);
  pid_t p = fork();
  if (p == 0) {
    freopen("/dev/null", "w", stdout);
    freopen("/dev/null", "w", stderr);
    setenv("TMPDIR", tmp, 1);
    execl(UIAP_BIN, UIAP_BIN, "crawl", url, "-o", wk, "--workers", "2", (char *)NULL);
    _exit(127);
  }
  for (int i = 0; i < 600 && t_journal_lines(w1, "transition") < 3; i++) usleep(100000);
  cr_assert_geq(t_journal_lines(w1, "transition"), 3, "worker 1 got going");
  proc_arg(wk, "--frontier", sock, sizeof sock);
  cr_assert(strstr(sock, "unix://"), "a worker names the run's redis-server: %s", sock);
  kill(p, SIGKILL);
  waitpid(p, NULL, 0);
  int left = 1;
  for (int i = 0; i < 150 && left; i++, usleep(100000))
    left = t_count_procs(wk) + t_count_procs(tmp) + t_count_procs(sock + strlen("unix://"));
  cr_expect_eq(left, 0, "workers (%d), browsers (%d) or the redis-server (%d) outlived their parent", t_count_procs(wk),
               t_count_procs(tmp), t_count_procs(sock + strlen("unix://")));
  t_run r = cli((const char *[]){UIAP_BIN, "crawl", "--resume", wk, "--verbose", NULL}, 300000);
  cr_assert_eq(r.status, 0, "--resume: %s", r.err);
  cr_expect(strstr(r.err, "resuming the run of 2 workers in"), "%s", r.err);
  t_run_free(&r);
  cJSON *ps = package_of(single);
  int dup_s;
  char *ls = graph_lines(ps, &dup_s);
  expect_graph_of(ls, wk, "the resumed run");
  free(ls);
  cJSON_Delete(ps);
  t_rm_rf(dir);
  t_rm_rf(tmp);
  free(dir);
  free(tmp);
}

/* A worker with nothing to do leases the queued state nearest its page
 * (the ids it prefers, nearest first), else the oldest: it walks a hop or
 * two instead of reloading and replaying from the start. */
/* A frontier for run `run_id` on a redis-server of its own (*rs). */
static crawl__shared *frontier_open(const char *run_id, pid_t *rs) {
  int port;
  char redis[80], err[300] = "";
  *rs = redis_start(&port, redis, sizeof redis);
  crawl__shared *sh = crawl__shared_open(redis, run_id, 0, 2000, err, sizeof err);
  cr_assert(sh, "%s", err);
  return sh;
}

static void frontier_close(crawl__shared *sh, pid_t rs) {
  crawl__shared_close(sh);
  kill(rs, SIGTERM);
  waitpid(rs, NULL, 0);
}

Test(scale, a_lease_takes_the_nearest_queued_state_first, .timeout = 60) {
  pid_t rs;
  crawl__shared *sh = frontier_open("lease-test", &rs);
  char *winner = NULL;
  static const char *const ids[] = {"s_a", "s_b", "s_c"};
  for (int i = 0; i < 3; i++) {
    cr_assert_eq(crawl__shared_register(sh, ids[i], ids[i], "{}", 1, &winner), 1);
    free(winner);
  }
  char *id = NULL;
  int back = 0;
  const char *prefer[] = {"s_unknown", "s_c", "s_b"};
  cr_assert_eq(crawl__shared_lease(sh, prefer, 3, &id, &back), CRAWL__LEASED);
  cr_expect_str_eq(id, "s_c", "the nearest one still queued, not the oldest");
  free(id);
  cr_assert_eq(crawl__shared_lease(sh, prefer, 3, &id, &back), CRAWL__LEASED);
  cr_expect_str_eq(id, "s_b", "s_c is leased: the next preferred");
  free(id);
  cr_assert_eq(crawl__shared_lease(sh, NULL, 0, &id, &back), CRAWL__LEASED);
  cr_expect_str_eq(id, "s_a", "none preferred: the oldest");
  free(id);
  cr_expect_eq(crawl__shared_lease(sh, prefer, 3, &id, &back), CRAWL__WAIT, "all leased: wait for their work");
  frontier_close(sh, rs);
}

/* A state registered at the depth budget is held back, not queued: the
 * run drains without it. When a worker finds a shorter way there it goes
 * to the front of the queue (once), and a worker takes it. */
Test(scale, a_state_held_back_at_the_depth_budget_is_queued_when_found_nearer, .timeout = 60) {
  pid_t rs;
  crawl__shared *sh = frontier_open("deep-test", &rs);
  char *winner = NULL, *id = NULL;
  int back = 0;
  cr_assert_eq(crawl__shared_register(sh, "fp_deep", "s_deep", "{}", 0, &winner), 1);
  free(winner);
  cr_expect_eq(crawl__shared_lease(sh, NULL, 0, &id, &back), CRAWL__DRAINED, "held back: nothing to lease");
  cr_expect_eq(crawl__shared_take(sh, "s_deep"), 2, "nor to take: not queued, and nobody holds it");
  cr_assert_eq(crawl__shared_unhold(sh, "s_deep"), 1);
  cr_expect_eq(crawl__shared_unhold(sh, "s_deep"), 0, "queued once");
  cr_assert_eq(crawl__shared_lease(sh, NULL, 0, &id, &back), CRAWL__LEASED);
  cr_expect_str_eq(id, "s_deep");
  free(id);
  cr_expect_eq(crawl__shared_take(sh, "s_deep"), 0, "leased: another worker holds it (try again later)");
  cr_expect_eq(crawl__shared_finish(sh, "s_deep"), 1);
  cr_expect_eq(crawl__shared_unhold(sh, "s_deep"), 0, "a finished state is not queued again");
  cr_expect_eq(crawl__shared_lease(sh, NULL, 0, &id, &back), CRAWL__DRAINED);
  frontier_close(sh, rs);
}

/* Fold keys name the state a page was first registered as, under its
 * other URL too: the first worker's id wins, later ones get it back. */
Test(scale, a_fold_key_names_the_first_state_registered, .timeout = 60) {
  pid_t rs;
  crawl__shared *sh = frontier_open("fold-test", &rs);
  cr_expect_eq(crawl__shared_fold_note(sh, "cfp|/|0", "s_first"), 1);
  cr_expect_eq(crawl__shared_fold_note(sh, "cfp|/|0", "s_second"), 0, "taken: the first stays");
  char *id = crawl__shared_fold_find(sh, "cfp|/|0");
  cr_expect_str_eq(id ? id : "(none)", "s_first");
  free(id);
  cr_expect_null(crawl__shared_fold_find(sh, "cfp|/|1"), "the page with a fragment: not registered");
  cr_expect_eq(crawl__shared_count(sh), 0, "fold keys are no states (maxStates counts states)");
  frontier_close(sh, rs);
}

/* count of OUT/workers/wN directories */
static int worker_dirs(const char *out) {
  int n = 0;
  char p[800];
  struct stat st;
  for (int k = 1; k <= 16; k++) {
    snprintf(p, sizeof p, "%s/workers/w%d", out, k);
    if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) n++;
  }
  return n;
}

/* Without --workers a crawl uses the machine: one worker per core (at most
 * 4), when the run can be split; a run that cannot (here --progress jsonl,
 * which one process writes) says why and stays one process. Either way
 * --verbose ends with where the actions took their time (each worker's). */
Test(scale, workers_default_to_the_cores_when_the_run_can_be_split, .timeout = 300) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  char *dir = t_tmpdir();
  char out[700], one[700];
  snprintf(out, sizeof out, "%s/auto", dir);
  snprintf(one, sizeof one, "%s/one", dir);
  const char *url = seed_url();
  char *was = getenv("UIAP_WORKERS") ? strdup(getenv("UIAP_WORKERS")) : NULL;
  unsetenv("UIAP_WORKERS"); /* the suite's one worker (tests/CMakeLists.txt) */
  t_run a = cli((const char *[]){UIAP_BIN, "crawl", url, "-o", out, "--max-states", "8", "--verbose", NULL}, 240000);
  t_run b = cli((const char *[]){UIAP_BIN, "crawl", url, "-o", one, "--max-states", "8", "--verbose", "--progress",
                                 "jsonl", NULL}, 240000);
  if (was) setenv("UIAP_WORKERS", was, 1);
  free(was);
  cr_assert_eq(a.status, 0, "%s", a.err);
  long want = cores < 2 ? 1 : cores > 4 ? 4 : cores;
  if (want > 1) {
    cr_expect_eq(worker_dirs(out), want, "one worker per core (%ld cores): %s", cores, a.err);
    cr_expect(strstr(a.err, "workers (auto:"), "--verbose says how many and why: %s", a.err);
    cr_expect(strstr(a.err, "worker 1: time per action: act ") && strstr(a.err, "worker 2: time per action: act "),
              "--verbose tells where each worker's actions took their time: %s", a.err);
  } else {
    cr_expect_eq(worker_dirs(out), 0, "one core: one process");
  }
  cJSON *p = package_of(out);
  cr_expect_gt(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(p, "transitionGraph"), "states")), 1,
               "the merged package has the run's states");
  cJSON_Delete(p);
  cr_assert_eq(b.status, 0, "%s", b.err);
  cr_expect_eq(worker_dirs(one), 0, "--progress jsonl: one process");
  cr_expect(strstr(b.err, "one worker: --progress jsonl"), "and it says why: %s", b.err);
  cr_expect(strstr(b.err, "time per action: act ") && strstr(b.err, " ms, settle "),
            "--verbose tells where one process's actions took their time: %s", b.err);
  t_run_free(&a);
  t_run_free(&b);
  t_rm_rf(dir);
  free(dir);
}

/* Two state records of one page that observe() folds: the same content,
 * their URLs the same but for a route fragment one of them lacks. */
static int folds(const cJSON *a, const cJSON *b) {
  const char *ca = cJSON_GetStringValue(cJSON_GetObjectItem(a, "contentFingerprint"));
  const char *cb = cJSON_GetStringValue(cJSON_GetObjectItem(b, "contentFingerprint"));
  const char *ua = cJSON_GetStringValue(cJSON_GetObjectItem(a, "url"));
  const char *ub = cJSON_GetStringValue(cJSON_GetObjectItem(b, "url"));
  if (!ca || !cb || !ua || !ub || strcmp(ca, cb)) return 0;
  size_t la = strcspn(ua, "#"), lb = strcspn(ub, "#");
  return la == lb && !strncmp(ua, ub, la) && (!ua[la] || !ub[lb]);
}

/* The bundled demo app shows its default route at "/" and at "#/dashboard"
 * (and keeps the chosen statistics tab across pages): one state, whichever
 * worker comes to it first under which URL. In the merged run no two
 * states are one page under those two URLs (without the shared fold keys
 * there were three such pairs), and the summary counts what one process's
 * counts. */
Test(scale, two_workers_fold_a_page_shown_with_and_without_its_route_fragment, .timeout = 300) {
  char *dir = t_tmpdir();
  char one[700], two[700];
  snprintf(one, sizeof one, "%s/one", dir);
  snprintf(two, sizeof two, "%s/two", dir);
  const char *demo = UIAP_SRC "/docs/demo";
  t_run a = cli((const char *[]){UIAP_BIN, "crawl", demo, "-o", one, "--workers", "1", NULL}, 240000);
  t_run b = cli((const char *[]){UIAP_BIN, "crawl", demo, "-o", two, "--workers", "2", NULL}, 240000);
  cr_assert_eq(a.status, 0, "%s", a.err);
  cr_assert_eq(b.status, 0, "%s", b.err);
  /* the summary line of the merged run counts as one process's does (it said 0) */
  long sa_loops = -1, sb_loops = -1, sa_not = -1, sb_not = -1;
  const char *ca = strstr(a.err, "self-loops"), *cb = strstr(b.err, "self-loops");
  cr_assert(ca && cb, "both print a summary: %s / %s", a.err, b.err);
  for (const char *p = ca; p > a.err; p--) if (*p == '(') { sscanf(p + 1, "%ld", &sa_loops); break; }
  for (const char *p = cb; p > b.err; p--) if (*p == '(') { sscanf(p + 1, "%ld", &sb_loops); break; }
  sscanf(ca, "self-loops), %ld actions not taken", &sa_not);
  sscanf(cb, "self-loops), %ld actions not taken", &sb_not);
  cr_expect_gt(sa_loops, 0);
  cr_expect_gt(sb_loops, 0, "the merged summary counts self-loops: %s", b.err);
  cr_expect_gt(sa_not, 0);
  cr_expect_gt(sb_not, 0, "and the actions not taken: %s", b.err);
  cJSON *states = t_journal_records(two, "state");
  int n = cJSON_GetArraySize(states), pairs = 0;
  char which[600] = "";
  for (int i = 0; i < n; i++)
    for (int k = i + 1; k < n; k++)
      if (folds(cJSON_GetArrayItem(states, i), cJSON_GetArrayItem(states, k)) && !pairs++)
        snprintf(which, sizeof which, "%s and %s",
                 cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(states, i), "stateId")),
                 cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(states, k), "stateId")));
  cr_expect_gt(n, 20, "the two workers found the demo's states");
  cr_expect_eq(pairs, 0, "one page, two states (%s) in %s", which, two);
  cJSON_Delete(states);
  t_run_free(&a);
  t_run_free(&b);
  t_rm_rf(dir);
  free(dir);
}

/* ---- the shared frontier is untrusted input (docs/safety.md, docs/scale.md) ---- */
/* Another origin on loopback: a server that answers every request with a
 * page and remembers what it was asked (how often, with which headers). */
typedef struct other_origin {
  int fd, port;
  pthread_t th;
  pthread_mutex_t mu;
  int hits, authorization;
  char first[256];
} other_origin;

static void *other_serve(void *ud) {
  other_origin *o = ud;
  for (;;) {
    int c = accept(o->fd, NULL, NULL);
    if (c < 0) return NULL;
    char req[8192];
    ssize_t n = read(c, req, sizeof req - 1);
    req[n > 0 ? n : 0] = 0;
    for (char *p = req; *p; p++) *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    pthread_mutex_lock(&o->mu);
    if (!o->hits++) snprintf(o->first, sizeof o->first, "%.*s", (int)strcspn(req, "\r\n"), req);
    o->authorization += strstr(req, "\nauthorization:") != NULL;
    pthread_mutex_unlock(&o->mu);
    static const char page[] = "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n"
                               "<!doctype html><title>Steal</title><button>Steal</button>";
    if (write(c, page, sizeof page - 1) < 0) { /* the client went: nothing to do */ }
    close(c);
  }
}

static void other_start(other_origin *o) {
  memset(o, 0, sizeof *o);
  pthread_mutex_init(&o->mu, NULL);
  o->fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  int one = 1;
  setsockopt(o->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  cr_assert(bind(o->fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(o->fd, 16) == 0 &&
            getsockname(o->fd, (struct sockaddr *)&a, &len) == 0);
  o->port = ntohs(a.sin_port);
  pthread_create(&o->th, NULL, other_serve, o);
}

/* Every key of redis (all types), with its contents, as one text. */
static char *redis_dump(const char *host, int port) {
  redisContext *c = redisConnect(host, port);
  cr_assert(c && !c->err, "connect to redis-server for the scan");
  size_t cap = 1 << 16, len = 0;
  char *out = malloc(cap);
  out[0] = 0;
#define PUT(s, n)                                                         \
  do {                                                                    \
    size_t n_ = (n);                                                      \
    while (len + n_ + 2 > cap) out = realloc(out, cap *= 2);              \
    memcpy(out + len, (s), n_), len += n_, out[len++] = '\n', out[len] = 0; \
  } while (0)
  char cursor[32] = "0";
  do {
    redisReply *rp = redisCommand(c, "SCAN %s COUNT 1000", cursor);
    cr_assert(rp && rp->type == REDIS_REPLY_ARRAY && rp->elements == 2, "SCAN answers");
    snprintf(cursor, sizeof cursor, "%s", rp->element[0]->str);
    for (size_t k = 0; k < rp->element[1]->elements; k++) {
      const redisReply *key = rp->element[1]->element[k];
      PUT(key->str, key->len);
      redisReply *t = redisCommand(c, "TYPE %b", key->str, key->len);
      const char *type = t->str, *how = !strcmp(type, "string") ? "GET %b" : !strcmp(type, "hash") ? "HGETALL %b"
                                      : !strcmp(type, "set") ? "SMEMBERS %b" : !strcmp(type, "list") ? "LRANGE %b 0 -1"
                                      : !strcmp(type, "zset") ? "ZRANGE %b 0 -1 WITHSCORES" : NULL;
      cr_assert(how, "a key of a type the scan reads: %s", type);
      redisReply *v = redisCommand(c, how, key->str, key->len);
      if (v->type == REDIS_REPLY_STRING) PUT(v->str, v->len);
      for (size_t i = 0; v->type == REDIS_REPLY_ARRAY && i < v->elements; i++)
        PUT(v->element[i]->str, v->element[i]->len);
      freeReplyObject(v);
      freeReplyObject(t);
    }
    freeReplyObject(rp);
  } while (strcmp(cursor, "0"));
#undef PUT
  redisFree(c);
  return out;
}

/* value as written, upper-cased, and in base64 (standard): into v[3]. */
static void secret_forms(const char *value, char v[3][200]) {
  snprintf(v[0], 200, "%s", value);
  for (size_t i = 0; i <= strlen(value); i++) v[1][i] = (char)(value[i] >= 'a' && value[i] <= 'z' ? value[i] - 32 : value[i]);
  static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t n = strlen(value), o = 0;
  for (size_t i = 0; i < n; i += 3) {
    unsigned x = (unsigned char)value[i] << 16 | (i + 1 < n ? (unsigned char)value[i + 1] << 8 : 0) |
                 (i + 2 < n ? (unsigned char)value[i + 2] : 0);
    v[2][o++] = b64[x >> 18 & 63];
    v[2][o++] = b64[x >> 12 & 63];
    v[2][o++] = i + 1 < n ? b64[x >> 6 & 63] : '=';
    v[2][o++] = i + 2 < n ? b64[x & 63] : '=';
  }
  v[2][o] = 0;
  v[2][o > 8 ? o - 4 : o] = 0; /* without the last group: it depends on what follows in a longer text */
}

#define TRUST_KEY "trust-test-key-5c1d9e0b7a"
#define TRUST_COOKIE "SESS-trust-5f8e2a91c4d7"
#define TRUST_BEARER "tok-trust-b81f6e0d2c94"

/* A crawl of the trust fixture on the frontier of run "trust" into out. */
static t_run trust_crawl(const char *redis, const char *out, const char *state) {
  return cli((const char *[]){UIAP_BIN, "crawl", t_fixture_url(0, NULL, "/trust/index.html"), "-o", out, "--frontier",
                              redis, "--run-id", "trust", "--lease-ms", "3000", "--storage-state", state, "--header",
                              "Authorization: Bearer " TRUST_BEARER, "--max-runtime-ms", "120000", NULL},
             200000);
}

/* The id of the state the frontier of run "trust" has for a URL ending in
 * suffix: from its states hash (the test reads what the workers wrote). */
static void trust_state_id(const char *host, int port, const char *suffix, char *id, size_t n) {
  redisContext *c = redisConnect(host, port);
  redisReply *rp = redisCommand(c, "HGETALL uiap:{trust}:states");
  id[0] = 0;
  for (size_t k = 0; rp && k + 1 < rp->elements; k += 2) {
    cJSON *j = cJSON_Parse(strchr(rp->element[k + 1]->str, ' ') + 1); /* after the tag */
    const char *url = cJSON_GetStringValue(cJSON_GetObjectItem(j, "url"));
    if (url && strlen(url) >= strlen(suffix) && !strcmp(url + strlen(url) - strlen(suffix), suffix) &&
        !cJSON_GetObjectItem(j, "parentStateId"))
      snprintf(id, n, "%s", rp->element[k]->str);
    cJSON_Delete(j);
  }
  freeReplyObject(rp);
  redisFree(c);
}

/* A worker of the run, or whoever can write to its Redis, injects records:
 * (a) a state on another origin, (b) a child state whose recorded path is
 * "Delete account" (both tagged with the run's key: a worker that has it,
 * gone wrong), (c) records without a good tag (anyone who can reach Redis).
 * None changes what the next worker does: no request to the other origin
 * (so no header there), no click the gate denies, no forged record used;
 * and no secret of the run is in any key of Redis afterwards. */
Test(scale, the_shared_frontier_is_untrusted_input, .timeout = 600) {
  char *dir = t_tmpdir();
  char redis[80], out1[700], out2[700], state[700], err[300] = "";
  int port;
  pid_t rs = redis_start(&port, redis, sizeof redis);
  other_origin other;
  other_start(&other);
  snprintf(out1, sizeof out1, "%s/w1", dir);
  snprintf(out2, sizeof out2, "%s/w2", dir);
  snprintf(state, sizeof state, "%s/state.json", dir);
  char sj[600];
  snprintf(sj, sizeof sj, "{\"cookies\":[{\"name\":\"sid\",\"value\":\"%s\",\"domain\":\"127.0.0.1\",\"path\":\"/\","
           "\"expires\":-1,\"httpOnly\":false,\"secure\":false,\"sameSite\":\"Lax\"}],\"origins\":[]}", TRUST_COOKIE);
  cr_assert_eq(t_write_file(state, sj), 0);
  setenv("UIAP_FRONTIER_KEY", TRUST_KEY, 1);
  cJSON *before = t_fixture_hit_table();

  t_run one = trust_crawl(redis, out1, state); /* worker 1 explores the page: its records are real */
  cr_assert_eq(one.status, 0, "worker 1: %s", one.err);
  t_run_free(&one);
  char home[80];
  trust_state_id("127.0.0.1", port, "/trust/index.html", home, sizeof home);
  cr_assert(home[0], "the frontier has the account page's state");

  crawl__shared *sh = crawl__shared_open(redis, "trust", 0, 2000, err, sizeof err);
  cr_assert(sh, "%s", err);
  cr_assert_eq(crawl__shared_key(sh, TRUST_KEY), 0);
  char rec[1500], *winner = NULL;
  snprintf(rec, sizeof rec, "{\"stateId\":\"s_steal\",\"fingerprint\":\"%032d\",\"url\":\"http://127.0.0.1:%d/steal.html\","
           "\"routeId\":\"/steal.html\",\"depth\":0,\"seed\":0}", 1, other.port);
  cr_assert_eq(crawl__shared_register(sh, "00000000000000000000000000000001", "s_steal", rec, 1, &winner), 1);
  snprintf(rec, sizeof rec, "{\"stateId\":\"s_zap\",\"fingerprint\":\"%032d\",\"url\":\"%s\",\"routeId\":\"/trust/index.html\","
           "\"depth\":1,\"seed\":0,\"parentStateId\":\"%s\",\"via\":{\"actionId\":\"ui.activate\",\"target\":"
           "{\"role\":\"button\",\"name\":\"Delete account\",\"ordinal\":0},\"escape\":false}}",
           2, t_fixture_url(0, NULL, "/trust/index.html"), home);
  cr_assert_eq(crawl__shared_register(sh, "00000000000000000000000000000002", "s_zap", rec, 1, &winner), 1);
  crawl__shared_close(sh);
  redisContext *c = redisConnect("127.0.0.1", port);
  snprintf(rec, sizeof rec, "%064d {\"stateId\":\"s_forged\",\"url\":\"%s\",\"depth\":0,\"seed\":0}", 0,
           t_fixture_url(0, NULL, "/trust/forged.html"));
  freeReplyObject(redisCommand(c, "HSET uiap:{trust}:states s_forged %s", rec));
  freeReplyObject(redisCommand(c, "HSET uiap:{trust}:seen 00000000000000000000000000000003 s_forged"));
  freeReplyObject(redisCommand(c, "RPUSH uiap:{trust}:queue s_forged"));
  snprintf(rec, sizeof rec, "{\"by\":\"x\",\"fromStateId\":\"%s\",\"toStateId\":\"s_forged\",\"viaActionId\":\"ui.activate\","
           "\"target\":{\"role\":\"button\",\"name\":\"Delete account\",\"ordinal\":0}}", home);
  freeReplyObject(redisCommand(c, "RPUSH uiap:{trust}:edges %s", rec));
  redisFree(c);

  t_run two = trust_crawl(redis, out2, state); /* worker 2 takes the injected work */
  cr_expect_eq(two.status, 0, "worker 2: %s", two.err);
  pthread_mutex_lock(&other.mu);
  cr_expect_eq(other.hits, 0, "a record sent the crawler to another origin: %d requests (%s)", other.hits, other.first);
  cr_expect_eq(other.authorization, 0, "the run's Authorization header went to another origin");
  pthread_mutex_unlock(&other.mu);
  char hits[300];
  cr_expect_eq(t_fixture_hits_since(before, "/danger/", hits, sizeof hits), 0, "a denied control was replayed: %s", hits);
  cr_expect_eq(t_fixture_hits_since(before, "/trust/forged", hits, sizeof hits), 0, "a forged record was loaded: %s", hits);
  cr_expect(strstr(two.err, "s_steal") && strstr(two.err, "outside the run's scope"), "a warning names the state "
            "outside the scope: %s", two.err);
  cr_expect(strstr(two.err, "not replaying ui.activate button \"Delete account\""), "a warning names the denied "
            "replay: %s", two.err);
  cr_expect(strstr(two.err, "forged or damaged state record of the shared frontier (s_forged)") &&
            strstr(two.err, "forged or damaged edge record"), "warnings name the forged records: %s", two.err);
  char *journal = t_read_file(strcat(strcpy(hits, out2), "/journal.jsonl"), NULL);
  cr_expect(journal && strstr(journal, "Delete account\\\"), the gate says deny") && strstr(journal, "it was not performed"),
            "a review item says the recorded path was not performed");
  free(journal);
  t_run_free(&two);

  char *dump = redis_dump("127.0.0.1", port), forms[3][200];
  static const char *const secrets[] = {TRUST_COOKIE, TRUST_BEARER, TRUST_KEY};
  for (size_t s = 0; s < sizeof secrets / sizeof *secrets; s++) {
    secret_forms(secrets[s], forms);
    for (int f = 0; f < 3; f++) cr_expect(!strstr(dump, forms[f]), "Redis holds a secret of the run (%s)", forms[f]);
  }
  cr_expect(strstr(dump, "[redacted]"), "the page's cookie reached the frontier redacted");
  free(dump);
  unsetenv("UIAP_FRONTIER_KEY");
  cJSON_Delete(before);
  kill(rs, SIGTERM);
  waitpid(rs, NULL, 0);
}

/* ---- a frontier over TLS with a user and password (docs/scale.md) ---- */
#define TLS_PW "pw-tls-8e41c7a09b"

/* redis-server on 127.0.0.1:*port that speaks only TLS (a certificate for
 * 127.0.0.1 made here with openssl, which is also its CA: DIR/ca.pem) and
 * lets in the user "crawler" with TLS_PW only. */
static pid_t redis_tls_start(const char *dir, int *port) {
  char cmd[2400], conf[700];
  snprintf(cmd, sizeof cmd, "cd %s && openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out ca.pem -days 1 "
           "-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1", dir);
  cr_assert_eq(system(cmd), 0, "openssl makes a certificate (scripts/deps.sh installs openssl)");
  *port = free_port();
  snprintf(conf, sizeof conf, "%s/redis.conf", dir);
  snprintf(cmd, sizeof cmd, "port 0\nbind 127.0.0.1\ntls-port %d\ntls-cert-file %s/ca.pem\ntls-key-file %s/key.pem\n"
           "tls-ca-cert-file %s/ca.pem\ntls-auth-clients no\nsave \"\"\nappendonly no\n"
           "user crawler on >" TLS_PW " ~* &* +@all\nuser default off\n", *port, dir, dir, dir);
  cr_assert_eq(t_write_file(conf, cmd), 0);
  pid_t pid = fork();
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    freopen("/dev/null", "w", stderr);
    execlp("redis-server", "redis-server", conf, (char *)NULL);
    _exit(127);
  }
  return pid;
}

Test(scale, a_frontier_over_tls_with_a_user_and_password, .timeout = 300) {
  char *dir = t_tmpdir();
  char url[200], ca[700], out[700], err[300] = "";
  int port;
  pid_t rs = redis_tls_start(dir, &port);
  snprintf(url, sizeof url, "rediss://crawler:%s@127.0.0.1:%d/0", TLS_PW, port);
  snprintf(ca, sizeof ca, "%s/ca.pem", dir);
  setenv("UIAP_REDIS_CACERT", ca, 1);
  setenv("UIAP_FRONTIER_KEY", "tls-test-key-0123456789", 1);
  crawl__shared *sh = NULL;
  for (int i = 0; i < 100 && !(sh = crawl__shared_open(url, "tls", 0, 500, err, sizeof err)); i++) usleep(50000);
  cr_assert(sh, "redis-server with TLS did not start: %s", err);
  crawl__shared_close(sh);

  snprintf(out, sizeof out, "%s/out", dir);
  t_run r = cli((const char *[]){UIAP_BIN, "crawl", seed_url(), "-o", out, "--frontier", url, "--run-id", "tls",
                                 "--max-states", "3", NULL}, 200000);
  cr_expect_eq(r.status, 0, "a crawl on a TLS frontier: %s", r.err);
  cr_expect_null(strstr(r.err, TLS_PW), "the password is never printed: %s", r.err);
  t_run_free(&r);
  sh = crawl__shared_open(url, "tls", 0, 2000, err, sizeof err);
  cr_assert(sh, "%s", err);
  cr_expect_geq(crawl__shared_count(sh), 1, "the states went to the frontier over TLS");
  crawl__shared_close(sh);

  static const struct { const char *url, *ca, *says; } bad[] = {
    {"rediss://crawler:" TLS_PW "@127.0.0.1:%d/0", NULL, "certificate was not accepted"}, /* an unknown CA */
    {"rediss://crawler:" TLS_PW "@localhost:%d/0", "ca", "hostname mismatch"},           /* not the certificate's host */
    {"rediss://crawler:wrong-pw-123@127.0.0.1:%d/0", "ca", "AUTH: refused"},
    {"redis://crawler:" TLS_PW "@127.0.0.1:%d/0", "ca", "redis"},                        /* plain text to a TLS port */
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char u[200];
    snprintf(u, sizeof u, bad[i].url, port);
    if (bad[i].ca) setenv("UIAP_REDIS_CACERT", ca, 1);
    else unsetenv("UIAP_REDIS_CACERT");
    snprintf(out, sizeof out, "%s/bad%zu", dir, i);
    t_run b = cli((const char *[]){UIAP_BIN, "crawl", seed_url(), "-o", out, "--frontier", u, "--run-id", "tls", NULL},
                  60000);
    cr_expect_eq(b.status, 13, "%s: exit 13 (shared frontier failed): %d %s", u, b.status, b.err);
    cr_expect(strstr(b.err, bad[i].says), "%s: the line says '%s': %s", u, bad[i].says, b.err);
    cr_expect_null(strstr(b.err, TLS_PW), "never the password: %s", b.err);
    cr_expect_null(strstr(b.err, "wrong-pw-123"), "never the password: %s", b.err);
    t_run_free(&b);
  }
  unsetenv("UIAP_REDIS_CACERT");
  unsetenv("UIAP_FRONTIER_KEY");
  kill(rs, SIGTERM);
  waitpid(rs, NULL, 0);
}

/* cli_workers.c -- crawl --workers N on one machine (docs/scale.md): a
 * private redis-server on a unix socket (the library's, workers.c), N
 * worker processes of this binary sharing its frontier (crawl --frontier
 * unix://...), each into OUT/workers/wK, then one package merged into OUT
 * (crawl_merge). The same run as on several machines, with the scheduling
 * done here: which options the workers get, and how their ends are judged
 * (by their exit codes). */
#include "cli_int.h"
#include "crawl.h"
#include "crawl_pkg.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WORKERS_MAX 16
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

/* Options of the parent that are not passed to the workers: each gets its
 * own output, and the parent reports and judges the merged result. */
static const char *const own[] = {"output", "workers", "progress", "fail-on", "quiet", "verbose", "force", NULL};

static int is_own(const char *name, size_t n) {
  for (int k = 0; own[k]; k++)
    if (strlen(own[k]) == n && !strncmp(own[k], name, n)) return 1;
  return 0;
}

/* The long option name..n of longopts: 1 when it takes a value. */
static int takes_value(const struct option *lo, const char *name, size_t n) {
  for (; lo->name; lo++)
    if (strlen(lo->name) == n && !strncmp(lo->name, name, n)) return lo->has_arg != no_argument;
  return 0;
}

/* The worker's argv: crawl, the seed URLs (already resolved: a served
 * directory keeps one origin), the parent's options but its own, then the
 * frontier, run id and output. */
static char **worker_argv(const cli_workers *w, int k, char *out, size_t outlen) {
  char **v = crawl__xcalloc((size_t)w->argc + (size_t)w->nurls + 16, sizeof *v);
  int n = 0;
  v[n++] = "uiap-crawl";
  v[n++] = "crawl";
  for (int i = 0; i < w->nurls; i++) v[n++] = (char *)w->urls[i];
  for (int i = 1; i < w->argc; i++) {
    const char *a = w->argv[i];
    if (strncmp(a, "--", 2)) { /* a seed, or -o DIR / -oDIR: skipped */
      if (!strcmp(a, "-o")) i++;
      continue;
    }
    const char *eq = strchr(a, '=');
    size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
    int val = !eq && takes_value(w->longopts, a + 2, len);
    if (!is_own(a + 2, len)) {
      v[n++] = (char *)a;
      if (val && i + 1 < w->argc) v[n++] = w->argv[i + 1];
    }
    if (val) i++;
  }
  worker_path(out, outlen, w->out, k, "");
  v[n++] = "--frontier";
  v[n++] = (char *)w->frontier;
  v[n++] = "--run-id";
  v[n++] = (char *)w->run_id;
  v[n++] = w->verbose ? "--verbose" : "--quiet";
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

/* w->progress with the run's counts, when it is time (every PROGRESS_MS). */
static void tell_progress(const cli_workers *w, crawl_watch *watch, long long t0, long long *last) {
  long long now = cdp_now_ms();
  if (!w->progress || !watch || now - *last < PROGRESS_MS) return;
  *last = now;
  crawl_progress p = {.run_id = w->run_id, .status = "exploring", .elapsed_ms = (long)(now - t0), .decisions = -1};
  if (crawl_watch_read(watch, &p) == 0) w->progress(w->progress_ud, &p);
}

/* Wait for every worker; a signal to the parent goes on to them (each
 * writes its package). status[k]: worker k's wait status. With a watch,
 * the run's progress is told meanwhile. */
static void wait_all(const cli_workers *w, pid_t *pids, int *status, crawl_watch *watch) {
  int n = w->n, left = n, told = 0;
  long long t0 = cdp_now_ms(), last = t0;
  while (left > 0) {
    if (cli_signal && !told) {
      for (int k = 0; k < n; k++)
        if (pids[k] > 0) kill(pids[k], cli_signal);
      told = 1;
    }
    int st;
    pid_t p = waitpid(-1, &st, watch ? WNOHANG : 0);
    if (p == 0) {
      tell_progress(w, watch, t0, &last);
      usleep(100000);
      continue;
    }
    if (p < 0 && errno == EINTR) continue;
    if (p < 0) break;
    for (int k = 0; k < n; k++)
      if (pids[k] == p) {
        pids[k] = -1;
        status[k] = st;
        left--;
      }
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

/* A worker failing with one of these fails the run though the others went
 * on: an unguarded target stops a run (safety), a lost frontier leaves it
 * partial. */
static const int fails_run[] = {CLI_EXIT_GUARD, CLI_EXIT_FRONTIER};

static int is_fatal(int code) {
  for (size_t k = 0; k < sizeof fails_run / sizeof *fails_run; k++)
    if (fails_run[k] == code) return 1;
  return 0;
}

/* How worker k ended: its exit code (CLI_EXIT_INTERNAL when a signal killed
 * it) and, when it failed, why. */
static int worker_exit(const char *out, int k, int st, char *why, size_t len) {
  char log[WPATH];
  worker_path(log, sizeof log, out, k, ".log");
  if (WIFEXITED(st)) {
    last_line(log, why, len);
    return WEXITSTATUS(st);
  }
  int sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
  snprintf(why, len, "worker %d was killed by signal %d (%s)", k + 1, sig, strsignal(sig));
  return CLI_EXIT_INTERNAL;
}

/* The workers' exits judged (docs/scale.md, "When a worker fails"): every
 * worker failed, or one failed the run (fails_run), then the run fails as
 * that worker did; else the failures are a warning in warn. Exits caused by
 * the parent's own signal are not failures. */
static void judge_ends(const char *out, const int *status, int n, cli_workers_end *end, char *warn, size_t wlen) {
  size_t used = 0;
  memset(end, 0, sizeof *end);
  warn[0] = 0;
  for (int k = 0; k < n; k++) {
    char why[sizeof end->why];
    int code = worker_exit(out, k, status[k], why, sizeof why);
    if (!code || (cli_signal && (code == CLI_EXIT_INTERRUPTED || code == CLI_EXIT_TERMINATED))) continue;
    if (!end->failed++ || (is_fatal(code) && !is_fatal(end->code))) {
      end->code = code;
      snprintf(end->why, sizeof end->why, "%s", why);
    }
    if (used < wlen) used += (size_t)snprintf(warn + used, wlen - used, "%sworker %d (exit %d): %.200s",
                                               used ? "; " : "", k + 1, code, why);
  }
  if (end->failed < n && !is_fatal(end->code)) end->code = 0;
}

/* Merge the workers' directories into OUT; the summary in sum. */
static crawl_code merge_workers(const cli_workers *w, crawl_summary *sum) {
  char dirs[WORKERS_MAX][WPATH];
  const char *dv[WORKERS_MAX];
  int n = worker_dirs(w->out, w->n, 0, dirs, dv);
  crawl_merge_opts mo = {.force = 1}; /* OUT holds workers/ */
  crawl_merge_stats st;
  crawl_code rc = crawl_merge(dv, n, w->out, &mo, &st, sum->error, sizeof sum->error);
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

int cli_workers_run(const cli_workers *w, crawl_summary *sum, cli_workers_end *end) {
  memset(sum, 0, sizeof *sum);
  memset(end, 0, sizeof *end);
  char dir[4200], log[4400];
  snprintf(dir, sizeof dir, "%s/workers", w->out);
  crawl_workers_redis rs;
  crawl_code rc0 = crawl_workers_redis_start(dir, &rs, sum->error, sizeof sum->error);
  if (rc0 != CRAWL_OK) return rc0;
  const char *url = rs.url;
  if (frontier_key() != 0) {
    crawl_workers_redis_stop(&rs);
    snprintf(sum->error, sizeof sum->error, "cannot make the workers' frontier key: %s", strerror(errno));
    return CRAWL_IO;
  }
  cli_workers ww = *w;
  ww.frontier = url;
  pid_t pids[WORKERS_MAX];
  for (int k = 0; k < w->n; k++) {
    char out[4400];
    char **argv = worker_argv(&ww, k, out, sizeof out);
    worker_path(log, sizeof log, w->out, k, ".log");
    pids[k] = crawl_spawn(argv, w->exe, log);
    free(argv);
  }
  int status[WORKERS_MAX] = {0};
  char werr[256];
  crawl_watch *watch = w->progress ? crawl_watch_open(url, w->run_id, werr, sizeof werr) : NULL;
  wait_all(&ww, pids, status, watch);
  crawl_watch_close(watch);
  crawl_workers_redis_stop(&rs);
  crawl_code rc = merge_workers(w, sum);
  if (w->verbose) tell_timings(w->out, w->n);
  char warn[400];
  judge_ends(w->out, status, w->n, end, warn, sizeof warn);
  if (!rc && end->failed)
    snprintf(sum->error, sizeof sum->error, "%d of %d workers failed (logs in %.60s): %s", end->failed, w->n, dir, warn);
  if (!rc && cli_signal) sum->status = "cancelled", sum->stopped_by = "signal";
  return rc;
}

int cli_workers_gather(const char *out, char *err, size_t errlen) {
  char jp[WPATH], dirs[WORKERS_MAX][WPATH];
  const char *dv[WORKERS_MAX];
  struct stat st;
  snprintf(jp, sizeof jp, "%s/journal.jsonl", out);
  if (stat(jp, &st) == 0) return 0;
  int n = worker_dirs(out, WORKERS_MAX, 1, dirs, dv);
  if (!n) return 0;
  crawl_merge_opts mo = {.force = 1}; /* OUT holds workers/ */
  return crawl_merge(dv, n, out, &mo, NULL, err, errlen) == CRAWL_OK ? n : -1;
}

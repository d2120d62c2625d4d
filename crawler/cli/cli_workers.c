/* cli_workers.c -- crawl --workers N (docs/scale.md): what the command line
 * knows of its workers. Which of the crawl command's options are the
 * parent's own (the output, how it reports and judges the merged result)
 * and which go on to the workers, and which of its exit codes a worker's
 * end means for the run. The run itself (the private redis-server, the
 * frontier key, the workers started, waited for and judged, their
 * directories merged) is the library's: crawl_workers_run in
 * crawler/run/workers.c. */
#include "cli_int.h"
#include "crawl.h"

#include <stdlib.h>
#include <string.h>

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

/* The workers' argv (NULL-terminated; the run adds the frontier, run id,
 * verbosity and output): crawl, the seed URLs (already resolved: a served
 * directory keeps one origin), the parent's options but its own. */
static const char **worker_argv(const cli_workers *w) {
  const char **v = crawl__xcalloc((size_t)w->argc + (size_t)w->nurls + 4, sizeof *v);
  int n = 0;
  v[n++] = "uiap-crawl";
  v[n++] = "crawl";
  for (int i = 0; i < w->nurls; i++) v[n++] = w->urls[i];
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
      v[n++] = a;
      if (val && i + 1 < w->argc) v[n++] = w->argv[i + 1];
    }
    if (val) i++;
  }
  return v;
}

/* A worker failing with one of these fails the run though the others went
 * on: an unguarded target stops a run (safety), a lost frontier leaves it
 * partial. */
static const int fails_run[] = {CLI_EXIT_GUARD, CLI_EXIT_FRONTIER};
/* How a worker ends on the signal the parent passes on: no failure then. */
static const int on_signal[] = {CLI_EXIT_INTERRUPTED, CLI_EXIT_TERMINATED};

int cli_workers_run(const cli_workers *w, crawl_summary *sum, crawl_workers_result *end) {
  const char **argv = worker_argv(w);
  crawl_workers_opts o = {.n = w->n, .out = w->out, .exe = w->exe, .argv = argv, .run_id = w->run_id,
                          .verbose = w->verbose, .cancel = &cli_signal, .progress = w->progress,
                          .progress_ud = w->progress_ud, .fatal = fails_run,
                          .nfatal = (int)(sizeof fails_run / sizeof *fails_run), .cancelled = on_signal,
                          .ncancelled = (int)(sizeof on_signal / sizeof *on_signal), .killed = CLI_EXIT_INTERNAL};
  crawl_code rc = crawl_workers_run(&o, sum, end);
  free(argv);
  return rc;
}

/* cmd_merge.c -- `uiap-crawl merge DIR... -o OUT`: one crawl directory from
 * the directories of the workers of one run (crawl_merge), then the reports
 * beside its package (crawl_reports_write). No browser. */
#include "cli_int.h"
#include "crawl_pkg.h"

#include <stdlib.h>
#include <string.h>

const char cli_help_merge[] =
  "usage: uiap-crawl merge DIR DIR... -o OUT [options]\n"
  "\n"
  "Merges the crawl directories of the workers of one run (each wrote its own\n"
  "journal while they shared one frontier) into one crawl directory OUT, as if\n"
  "one process had crawled: one journal (each state once, a transition two\n"
  "workers both wrote once, the transitions renumbered), the state files and\n"
  "screenshots, OUT/package.json and the reports (report.html, graph.dot,\n"
  "review.sarif, junit.xml). No browser. The journals must share one runId;\n"
  "see docs/merge.md.\n"
  "\n"
  "  -o, --output OUT   the merged crawl directory (new or empty)\n"
  "  --force            merge journals of different runs, and write into an OUT\n"
  "                     that is not empty\n"
  "  --quiet, --verbose\n";

typedef struct {
  const char **dirs;
  int ndirs, verbosity;
  const char *out;
  crawl_merge_opts mo;
} merge_opts;

enum { OPT_FORCE = 256, OPT_QUIET, OPT_VERBOSE };

static const struct option longopts[] = {
  {"help", no_argument, NULL, 'h'},
  {"output", required_argument, NULL, 'o'},
  {"force", no_argument, NULL, OPT_FORCE},
  {"quiet", no_argument, NULL, OPT_QUIET},
  {"verbose", no_argument, NULL, OPT_VERBOSE},
  {NULL, 0, NULL, 0},
};

static int merge_parse(int argc, char **argv, merge_opts *o) {
  cli_getopt g;
  int c;
  cli_getopt_init(&g, argc, argv, "-:ho:", longopts);
  while ((c = cli_getopt_next(&g)) != -1) {
    switch (c) {
    case 'h': fputs(cli_help_merge, stdout); return CLI_EXIT_OK;
    case 'o': o->out = g.arg; break;
    case OPT_FORCE: o->mo.force = 1; break;
    case OPT_QUIET: o->verbosity = 0; break;
    case OPT_VERBOSE: o->verbosity++; break;
    case 1: o->dirs[o->ndirs++] = g.arg; break;
    default: return cli_bad_option(&g, c);
    }
  }
  if (!o->ndirs) return cli_fail(CLI_EXIT_USAGE, "merge needs crawl directories (see uiap-crawl merge --help)");
  if (!o->out) return cli_fail(CLI_EXIT_USAGE, "merge needs -o OUT (see uiap-crawl merge --help)");
  return CLI_CONTINUE;
}

static int merge_exit(crawl_code rc) {
  return rc == CRAWL_ARG ? CLI_EXIT_USAGE : rc == CRAWL_IO ? CLI_EXIT_OUTPUT : CLI_EXIT_INTERNAL;
}

int cli_cmd_merge(int argc, char **argv) {
  merge_opts o = {.verbosity = 1, .dirs = crawl__xcalloc((size_t)argc, sizeof(char *))};
  int code = merge_parse(argc, argv, &o);
  if (code != CLI_CONTINUE) {
    free(o.dirs);
    return code;
  }
  cli_log_setup(o.verbosity);
  char err[1024] = "";
  crawl_merge_stats st;
  crawl_code rc = crawl_merge(o.dirs, o.ndirs, o.out, &o.mo, &st, err, sizeof err);
  free(o.dirs);
  if (rc) return cli_fail(merge_exit(rc), "%s", err);
  if (st.foreign)
    fprintf(stderr, "uiap-crawl: warning: %ld state(s) outside the run's origins dropped (forged or damaged worker "
            "journal)\n", st.foreign);
  if (o.verbosity > 0)
    fprintf(stderr, "uiap-crawl: merged %ld directories: %ld states, %ld transitions (%ld duplicates dropped); package: %s/package.json\n",
            st.dirs, st.states, st.transitions, st.dup_states + st.dup_transitions, o.out);
  if (crawl_reports_write(o.out, NULL, err, sizeof err) != CRAWL_OK)
    return cli_fail(CLI_EXIT_OUTPUT, "reports not written: %s", err);
  return CLI_EXIT_OK;
}

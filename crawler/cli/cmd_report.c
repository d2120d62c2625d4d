/* cmd_report.c -- `uiap-crawl report DIR`: rebuilds DIR/package.json from
 * the journal (crawl_package_make) and writes the reports beside it from
 * that package in memory (crawl_package_reports; with --no-package or no
 * journal, from DIR/package.json); the written paths on stdout. No browser. */
#include "cli_int.h"
#include "crawl_pkg.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char cli_help_report[] =
  "usage: uiap-crawl report DIR [options]\n"
  "\n"
  "Rebuilds DIR/package.json from DIR/journal.jsonl and the state files (no\n"
  "browser), then writes the reports beside it:\n"
  "  DIR/report.html   one self-contained page for people (open it in a browser)\n"
  "  DIR/graph.dot     the transition graph (Graphviz)\n"
  "  DIR/review.sarif  review items as SARIF 2.1.0 (code-scanning dashboards)\n"
  "  DIR/junit.xml     one test case per seed and per route (CI test reports)\n"
  "The written paths are printed on stdout.\n"
  "\n"
  "  --layout auto|builtin|dot  graph layout: Graphviz `dot` when on PATH (auto, the\n"
  "                             default), the built-in one, or dot only\n"
  "  --dot PATH                 the Graphviz binary (default: dot on PATH)\n"
  "  --junit-fail-on SEVERITY   lowest review severity that fails a JUnit test case:\n"
  "                             low | medium (default) | high\n"
  "  --no-package               keep DIR/package.json as it is\n"
  "  --reviewed FILE            a reviewer's decisions (a decisions file or a previous\n"
  "                             package, docs/review.md): the entries they verified are\n"
  "                             \"verified\" when they still match; kept as DIR/reviewed.json\n"
  "  --quiet, --verbose\n";

typedef struct {
  const char *dir;
  crawl_report_opts ro;
  int no_package, verbosity;
  const char *reviewed;      /* --reviewed FILE */
} report_opts;

enum { OPT_LAYOUT = 256, OPT_DOT, OPT_JUNIT_FAIL_ON, OPT_NO_PACKAGE, OPT_QUIET, OPT_VERBOSE, OPT_REVIEWED };

static const struct option longopts[] = {
  {"help", no_argument, NULL, 'h'},
  {"layout", required_argument, NULL, OPT_LAYOUT},
  {"dot", required_argument, NULL, OPT_DOT},
  {"junit-fail-on", required_argument, NULL, OPT_JUNIT_FAIL_ON},
  {"no-package", no_argument, NULL, OPT_NO_PACKAGE},
  {"reviewed", required_argument, NULL, OPT_REVIEWED},
  {"quiet", no_argument, NULL, OPT_QUIET},
  {"verbose", no_argument, NULL, OPT_VERBOSE},
  {NULL, 0, NULL, 0},
};

static const struct { const char *name; crawl_layout layout; } layouts[] = {
  {"auto", CRAWL_LAYOUT_AUTO}, {"builtin", CRAWL_LAYOUT_BUILTIN}, {"dot", CRAWL_LAYOUT_DOT},
};

static int layout_arg(const char *v, crawl_report_opts *ro) {
  for (size_t i = 0; i < sizeof layouts / sizeof *layouts; i++)
    if (!strcmp(v, layouts[i].name)) {
      ro->layout = layouts[i].layout;
      return CLI_CONTINUE;
    }
  return cli_fail(CLI_EXIT_USAGE, "--layout takes auto, builtin or dot, not %s", v);
}

static int report_parse(int argc, char **argv, report_opts *o) {
  cli_getopt g;
  int c, code;
  cli_getopt_init(&g, argc, argv, "-:h", longopts);
  while ((c = cli_getopt_next(&g)) != -1) {
    const char *v = g.arg;
    switch (c) {
    case 'h': fputs(cli_help_report, stdout); return CLI_EXIT_OK;
    case OPT_LAYOUT:
      if ((code = layout_arg(v, &o->ro)) != CLI_CONTINUE) return code;
      break;
    case OPT_DOT: o->ro.dot = v; break;
    case OPT_JUNIT_FAIL_ON:
      if (strcmp(v, "low") && strcmp(v, "medium") && strcmp(v, "high"))
        return cli_fail(CLI_EXIT_USAGE, "--junit-fail-on takes low, medium or high, not %s", v);
      o->ro.junit_fail_on = v;
      break;
    case OPT_NO_PACKAGE: o->no_package = 1; break;
    case OPT_REVIEWED: o->reviewed = v; break;
    case OPT_QUIET: o->verbosity = 0; break;
    case OPT_VERBOSE: o->verbosity++; break;
    case 1:
      if (o->dir) return cli_fail(CLI_EXIT_USAGE, "report takes one directory");
      o->dir = v;
      break;
    default: return cli_bad_option(&g, c);
    }
  }
  if (!o->dir) return cli_fail(CLI_EXIT_USAGE, "report needs a crawl directory (see uiap-crawl report --help)");
  if (o->reviewed && o->no_package) return cli_fail(CLI_EXIT_USAGE, "--reviewed rebuilds the package: not with --no-package");
  return CLI_CONTINUE;
}

static int is_file(const char *dir, const char *name) {
  char path[4200];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* --reviewed FILE: its decisions as DIR/reviewed.json, which the package build applies. */
static int report_reviewed(const char *dir, const char *file) {
  char err[1024];
  cJSON *d = NULL;
  crawl_code rc = crawl_reviewed_load(file, &d, err, sizeof err);
  if (rc) return cli_fail(CLI_EXIT_USAGE, "--reviewed: %s", err);
  rc = crawl_reviewed_save(dir, d, err, sizeof err);
  cJSON_Delete(d);
  return rc ? cli_fail(CLI_EXIT_OUTPUT, "%s", err) : CLI_CONTINUE;
}

int cli_cmd_report(int argc, char **argv) {
  report_opts o = {.verbosity = 1};
  int code = report_parse(argc, argv, &o);
  if (code != CLI_CONTINUE) return code;
  const char *dir = o.dir;
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return cli_fail(CLI_EXIT_USAGE, "not a directory: %s", dir);
  cli_log_setup(o.verbosity);
  int have_journal = is_file(dir, "journal.jsonl"), have_package = is_file(dir, "package.json");
  if (!have_journal && !have_package)
    return cli_fail(CLI_EXIT_USAGE, "%s holds no crawl (no journal.jsonl, no package.json)", dir);
  if (access(dir, W_OK) != 0) return cli_fail(CLI_EXIT_OUTPUT, "cannot write to %s: %s", dir, strerror(errno));
  char err[1024];
  crawl_code rc;
  if (o.reviewed && !have_journal) return cli_fail(CLI_EXIT_USAGE, "--reviewed: %s has no journal.jsonl to rebuild the package from", dir);
  if (o.reviewed && (code = report_reviewed(dir, o.reviewed)) != CLI_CONTINUE) return code;
  crawl_package *pkg = NULL; /* the package the reports read: the one just built, else package.json */
  if (have_journal && !o.no_package) {
    if ((rc = crawl_package_make(dir, &pkg, err, sizeof err)))
      return cli_fail(rc == CRAWL_ARG ? CLI_EXIT_USAGE : CLI_EXIT_OUTPUT, "%s", err);
    printf("%s/package.json\n", dir);
  } else if (!have_journal && o.verbosity > 1) {
    fprintf(stderr, "uiap-crawl: %s has no journal.jsonl: reports from package.json as it is\n", dir);
  }
  rc = pkg ? CRAWL_OK : crawl_package_open(dir, &pkg, err, sizeof err);
  if (!rc) rc = crawl_package_reports(pkg, &o.ro, err, sizeof err);
  crawl_package_free(pkg);
  if (rc)
    return cli_fail(rc == CRAWL_ARG || strstr(err, "package.json") ? CLI_EXIT_USAGE : CLI_EXIT_OUTPUT, "%s", err);
  static const char *const files[] = {"report.html", "graph.dot", "review.sarif", "junit.xml"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) printf("%s/%s\n", dir, files[i]);
  return fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_OUTPUT;
}

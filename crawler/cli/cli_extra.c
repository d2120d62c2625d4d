/* cli_extra.c -- `uiap-crawl report`, `diff` and `validate`: option parsing
 * and printing only; the work is in the library (report.c, diff.c,
 * validate.c, package.c). stdout carries data, stderr one-line errors. */
#include "cli_extra.h"
#include "cli_int.h"
#include "crawl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { X_OK_ = 0, X_INTERNAL = 1, X_USAGE = 2, X_OUTPUT = 7 };

const char uiap_usage_report[] =
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
  "  --quiet, --verbose\n";

const char uiap_usage_diff[] =
  "usage: uiap-crawl diff OLD NEW [options]\n"
  "\n"
  "Compares two Discovery Packages (a crawl directory or a package.json each):\n"
  "routes, scopes, elements (by stableId, else semanticKey), actions, states,\n"
  "transitions, review items and workflows added, removed and changed, and the\n"
  "coverage counters.\n"
  "\n"
  "  --format text|json     text for people (default), JSON for machines\n"
  "  --fail-on-regression   exit 9 when a route, element or action disappeared or\n"
  "                         a high-severity review item appeared\n"
  "  --color auto|always|never  (auto: on a terminal unless NO_COLOR is set)\n";

const char uiap_usage_validate[] =
  "usage: uiap-crawl validate FILE [options]\n"
  "\n"
  "Checks FILE (or DIR/package.json, or - for stdin) against the UIAP schema built\n"
  "into uiap-crawl (no network). The definition follows from the document: \"uiap\"\n"
  "-> UiapMessage (and its payload by type), \"spec\"+\"modelVersion\" ->\n"
  "DiscoveryPackage, \"profile\" -> PageGraph. Prints the JSON path of each error.\n"
  "Exit 0 valid, 11 invalid, 2 unreadable or not JSON.\n"
  "\n"
  "  --definition NAME   check against this definition (e.g. WebStateDeltaPayload)\n"
  "  --format text|json  (default text)\n"
  "  --quiet             print nothing; the exit code tells\n";

static int verbosity = 1;


static int is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}
static int is_file(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---- report ------------------------------------------------------------------------ */
int uiap_cmd_report(int argc, char **argv) {
  const char *dir = NULL;
  crawl_report_opts ro = {0};
  int no_package = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE() do { if (!v) return cli_fail(X_USAGE, "%s needs a value", a); i++; } while (0)
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(uiap_usage_report, stdout); return X_OK_; }
    else if (!strcmp(a, "--layout")) {
      NEED_VALUE();
      if (!strcmp(v, "auto")) ro.layout = CRAWL_LAYOUT_AUTO;
      else if (!strcmp(v, "builtin")) ro.layout = CRAWL_LAYOUT_BUILTIN;
      else if (!strcmp(v, "dot")) ro.layout = CRAWL_LAYOUT_DOT;
      else return cli_fail(X_USAGE, "--layout takes auto, builtin or dot, not %s", v);
    } else if (!strcmp(a, "--dot")) { NEED_VALUE(); ro.dot = v; }
    else if (!strcmp(a, "--junit-fail-on")) {
      NEED_VALUE();
      if (strcmp(v, "low") && strcmp(v, "medium") && strcmp(v, "high"))
        return cli_fail(X_USAGE, "--junit-fail-on takes low, medium or high, not %s", v);
      ro.junit_fail_on = v;
    } else if (!strcmp(a, "--no-package")) no_package = 1;
    else if (!strcmp(a, "--quiet")) verbosity = 0;
    else if (!strcmp(a, "--verbose")) verbosity++;
    else if (a[0] == '-' && a[1]) return cli_fail(X_USAGE, "unknown option %s (see uiap-crawl report --help)", a);
    else if (!dir) dir = a;
    else return cli_fail(X_USAGE, "report takes one directory");
#undef NEED_VALUE
  }
  if (!dir) return cli_fail(X_USAGE, "report needs a crawl directory (see uiap-crawl report --help)");
  if (!is_dir(dir)) return cli_fail(X_USAGE, "not a directory: %s", dir);
  cli_log_setup(verbosity);
  char path[4200], err[1024];
  snprintf(path, sizeof path, "%s/journal.jsonl", dir);
  int have_journal = is_file(path);
  snprintf(path, sizeof path, "%s/package.json", dir);
  int have_package = is_file(path);
  if (!have_journal && !have_package) return cli_fail(X_USAGE, "%s holds no crawl (no journal.jsonl, no package.json)", dir);
  if (access(dir, W_OK) != 0) return cli_fail(X_OUTPUT, "cannot write to %s: %s", dir, strerror(errno));
  if (have_journal && !no_package) {
    crawl_code rc = crawl_package_write(dir, err, sizeof err);
    if (rc == CRAWL_ARG) return cli_fail(X_USAGE, "%s", err);
    if (rc) return cli_fail(X_OUTPUT, "%s", err);
    printf("%s/package.json\n", dir);
  } else if (!have_journal && verbosity > 1)
    fprintf(stderr, "uiap-crawl: %s has no journal.jsonl: reports from package.json as it is\n", dir);
  crawl_code rc = crawl_reports_write(dir, &ro, err, sizeof err);
  if (rc == CRAWL_ARG) return cli_fail(X_USAGE, "%s", err);
  if (rc) return cli_fail(strstr(err, "package.json") ? X_USAGE : X_OUTPUT, "%s", err);
  static const char *const files[] = {"report.html", "graph.dot", "review.sarif", "junit.xml"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) printf("%s/%s\n", dir, files[i]);
  return fflush(stdout) == 0 ? X_OK_ : X_OUTPUT;
}

/* ---- diff -------------------------------------------------------------------------- */
static cJSON *load_package(const char *p, char *err, size_t errlen) {
  char path[4200];
  if (is_dir(p)) snprintf(path, sizeof path, "%s/package.json", p);
  else snprintf(path, sizeof path, "%s", p);
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "%.900s: %s", path, strerror(errno));
    return NULL;
  }
  char *text;
  size_t len;
  if (cli_read_all(f, SIZE_MAX, &text, &len)) { free(text); fclose(f); snprintf(err, errlen, "out of memory"); return NULL; }
  fclose(f);
  cJSON *j = text ? cJSON_ParseWithLength(text, len) : NULL;
  free(text);
  if (!j) snprintf(err, errlen, "%.900s is not JSON", path);
  else if (!cJSON_IsObject(j) || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "spec")) ||
           strcmp(cJSON_GetObjectItemCaseSensitive(j, "spec")->valuestring, "uiap.discovery")) {
    snprintf(err, errlen, "%.900s is not a UIAP Discovery Package", path);
    cJSON_Delete(j);
    j = NULL;
  }
  return j;
}

int uiap_cmd_diff(int argc, char **argv) {
  const char *paths[2] = {NULL, NULL}, *format = "text", *color = "auto";
  int np = 0, fail_on_regression = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(uiap_usage_diff, stdout); return X_OK_; }
    else if (!strcmp(a, "--format")) {
      if (!v || (strcmp(v, "text") && strcmp(v, "json"))) return cli_fail(X_USAGE, "--format takes text or json");
      format = v;
      i++;
    } else if (!strcmp(a, "--color")) {
      if (!v || (strcmp(v, "auto") && strcmp(v, "always") && strcmp(v, "never"))) return cli_fail(X_USAGE, "--color takes auto, always or never");
      color = v;
      i++;
    } else if (!strcmp(a, "--fail-on-regression")) fail_on_regression = 1;
    else if (!strcmp(a, "--quiet")) verbosity = 0;
    else if (a[0] == '-' && a[1]) return cli_fail(X_USAGE, "unknown option %s (see uiap-crawl diff --help)", a);
    else if (np < 2) paths[np++] = a;
    else return cli_fail(X_USAGE, "diff takes two packages");
  }
  if (np != 2) return cli_fail(X_USAGE, "diff needs OLD and NEW (see uiap-crawl diff --help)");
  char err[1024];
  cJSON *pk[2];
  for (int i = 0; i < 2; i++) {
    pk[i] = load_package(paths[i], err, sizeof err);
    if (!pk[i]) {
      if (i) cJSON_Delete(pk[0]);
      return cli_fail(X_USAGE, "%s", err);
    }
  }
  cJSON *d = NULL;
  int regression = 0;
  crawl_code rc = crawl_package_diff(pk[0], pk[1], &d, &regression);
  cJSON_Delete(pk[0]);
  cJSON_Delete(pk[1]);
  if (rc) return cli_fail(X_INTERNAL, "cannot compare the packages");
  char *out;
  if (!strcmp(format, "json")) {
    cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(d, "old"), "path", paths[0]);
    cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(d, "new"), "path", paths[1]);
    out = cJSON_Print(d);
  } else {
    int use_color = !strcmp(color, "always") || (!strcmp(color, "auto") && isatty(1) && !getenv("NO_COLOR"));
    out = crawl_diff_text(d, use_color);
  }
  cJSON_Delete(d);
  if (!out) return cli_fail(X_INTERNAL, "out of memory");
  fputs(out, stdout);
  if (out[0] && out[strlen(out) - 1] != '\n') fputc('\n', stdout);
  free(out);
  if (fflush(stdout) != 0) return X_OUTPUT;
  if (fail_on_regression && regression) {
    if (verbosity > 0) fprintf(stderr, "uiap-crawl: regression between %s and %s (--fail-on-regression)\n", paths[0], paths[1]);
    return UIAP_EXIT_REGRESSION;
  }
  return X_OK_;
}

/* ---- validate ------------------------------------------------------------------------- */
int uiap_cmd_validate(int argc, char **argv) {
  const char *file = NULL, *definition = NULL, *format = "text";
  int quiet = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(uiap_usage_validate, stdout); return X_OK_; }
    else if (!strcmp(a, "--definition")) {
      if (!v) return cli_fail(X_USAGE, "--definition needs a value");
      definition = v;
      i++;
    } else if (!strcmp(a, "--format")) {
      if (!v || (strcmp(v, "text") && strcmp(v, "json"))) return cli_fail(X_USAGE, "--format takes text or json");
      format = v;
      i++;
    } else if (!strcmp(a, "--quiet")) quiet = 1;
    else if (a[0] == '-' && a[1]) return cli_fail(X_USAGE, "unknown option %s (see uiap-crawl validate --help)", a);
    else if (!file) file = a;
    else return cli_fail(X_USAGE, "validate takes one file");
  }
  if (!file) return cli_fail(X_USAGE, "validate needs a file (see uiap-crawl validate --help)");
  if (definition && !crawl_schema_has(definition)) return cli_fail(X_USAGE, "the schema has no definition %s", definition);
  char path[4200], err[1024];
  crawl_validation *v = malloc(sizeof *v);
  if (!v) return cli_fail(X_INTERNAL, "out of memory");
  crawl_code rc;
  if (!strcmp(file, "-")) {
    size_t len = 0, cap = 0, k;
    char *text = NULL, buf[65536];
    while ((k = fread(buf, 1, sizeof buf, stdin)) > 0) {
      if (len + k + 1 > cap) {
        char *t = realloc(text, cap = (len + k + 1) * 2);
        if (!t) { free(text); free(v); return cli_fail(X_INTERNAL, "out of memory"); }
        text = t;
      }
      memcpy(text + len, buf, k);
      len += k;
    }
    cJSON *doc = text ? cJSON_ParseWithLength(text, len) : NULL;
    free(text);
    if (!doc) { free(v); return cli_fail(X_USAGE, "stdin is not JSON"); }
    rc = crawl_validate_json(doc, definition, v, err, sizeof err);
    cJSON_Delete(doc);
    snprintf(path, sizeof path, "-");
  } else {
    if (is_dir(file)) snprintf(path, sizeof path, "%s/package.json", file);
    else snprintf(path, sizeof path, "%s", file);
    rc = crawl_validate_file(path, definition, v, err, sizeof err);
  }
  if (rc) {
    free(v);
    return cli_fail(rc == CRAWL_IO || rc == CRAWL_ARG ? X_USAGE : X_INTERNAL, "%s", err);
  }
  long shown = v->nerrors < CRAWL_SCHEMA_MAX_ERRORS ? v->nerrors : CRAWL_SCHEMA_MAX_ERRORS;
  if (!quiet && !strcmp(format, "json")) {
    cJSON *o = cJSON_CreateObject(), *errs = cJSON_CreateArray();
    cJSON_AddStringToObject(o, "file", path);
    cJSON_AddStringToObject(o, "definition", v->definition);
    if (v->payload_definition) cJSON_AddStringToObject(o, "payloadDefinition", v->payload_definition);
    cJSON_AddBoolToObject(o, "valid", v->nerrors == 0);
    cJSON_AddNumberToObject(o, "errorCount", (double)v->nerrors);
    for (long i = 0; i < shown; i++) {
      cJSON *e = cJSON_CreateObject();
      cJSON_AddStringToObject(e, "path", v->errors[i].path);
      cJSON_AddStringToObject(e, "message", v->errors[i].message);
      cJSON_AddItemToArray(errs, e);
    }
    cJSON_AddItemToObject(o, "errors", errs);
    char *t = cJSON_Print(o);
    cJSON_Delete(o);
    if (t) puts(t);
    free(t);
  } else if (!quiet) {
    const char *def = v->definition;
    if (!v->nerrors) printf("%s: valid %s%s%s\n", path, def, v->payload_definition ? " with " : "",
                            v->payload_definition ? v->payload_definition : "");
    else {
      printf("%s: invalid %s (%ld error%s)\n", path, def, v->nerrors, v->nerrors == 1 ? "" : "s");
      for (long i = 0; i < shown; i++) printf("  %s: %s\n", v->errors[i].path, v->errors[i].message);
      if (v->nerrors > shown) printf("  ... %ld more\n", v->nerrors - shown);
    }
  }
  int code = v->nerrors ? UIAP_EXIT_INVALID : X_OK_;
  free(v);
  if (fflush(stdout) != 0) return X_OUTPUT;
  return code;
}

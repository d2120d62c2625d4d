/* cmd_validate.c -- `uiap-crawl validate FILE`: checks a package, PageGraph
 * or message (FILE, DIR/package.json, or - for stdin) against the UIAP
 * schema built into the library (crawl_validate_*) and prints the errors
 * with their JSON paths; exit 11 when it does not conform. */
#include "cli_int.h"
#include "crawl_pkg.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char cli_help_validate[] =
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

typedef struct {
  const char *file, *definition, *format;
  int quiet;
} validate_opts;

enum { OPT_DEFINITION = 256, OPT_FORMAT, OPT_QUIET };

static const struct option longopts[] = {
  {"help", no_argument, NULL, 'h'},
  {"definition", required_argument, NULL, OPT_DEFINITION},
  {"format", required_argument, NULL, OPT_FORMAT},
  {"quiet", no_argument, NULL, OPT_QUIET},
  {NULL, 0, NULL, 0},
};

static int validate_parse(int argc, char **argv, validate_opts *o) {
  cli_getopt g;
  int c;
  cli_getopt_init(&g, argc, argv, "-:h", longopts);
  while ((c = cli_getopt_next(&g)) != -1) {
    switch (c) {
    case 'h': fputs(cli_help_validate, stdout); return CLI_EXIT_OK;
    case OPT_DEFINITION: o->definition = g.arg; break;
    case OPT_FORMAT:
      if (strcmp(g.arg, "text") && strcmp(g.arg, "json")) return cli_fail(CLI_EXIT_USAGE, "--format takes text or json");
      o->format = g.arg;
      break;
    case OPT_QUIET: o->quiet = 1; break;
    case 1:
      if (o->file) return cli_fail(CLI_EXIT_USAGE, "validate takes one file");
      o->file = g.arg;
      break;
    case ':':
      if (g.missing == OPT_FORMAT) return cli_fail(CLI_EXIT_USAGE, "--format takes text or json");
      return cli_bad_option(&g, c);
    default: return cli_bad_option(&g, c);
    }
  }
  if (!o->file) return cli_fail(CLI_EXIT_USAGE, "validate needs a file (see uiap-crawl validate --help)");
  return CLI_CONTINUE;
}

/* The document checked into *v, its name as printed into path: CLI_CONTINUE,
 * or the exit code after the error line. */
static int validate_run(const validate_opts *o, crawl_validation *v, char *path, size_t pathlen) {
  char err[1024];
  crawl_code rc;
  if (!strcmp(o->file, "-")) {
    char *text;
    size_t len;
    if (cli_read_all(stdin, SIZE_MAX, &text, &len)) {
      free(text);
      return cli_fail(CLI_EXIT_INTERNAL, "out of memory");
    }
    cJSON *doc = text ? cJSON_ParseWithLength(text, len) : NULL;
    free(text);
    if (!doc) return cli_fail(CLI_EXIT_USAGE, "stdin is not JSON");
    rc = crawl_validate_json(doc, o->definition, v, err, sizeof err);
    cJSON_Delete(doc);
    snprintf(path, pathlen, "-");
  } else {
    struct stat st;
    if (stat(o->file, &st) == 0 && S_ISDIR(st.st_mode)) snprintf(path, pathlen, "%s/package.json", o->file);
    else snprintf(path, pathlen, "%s", o->file);
    rc = crawl_validate_file(path, o->definition, v, err, sizeof err);
  }
  if (rc) return cli_fail(rc == CRAWL_IO || rc == CRAWL_ARG ? CLI_EXIT_USAGE : CLI_EXIT_INTERNAL, "%s", err);
  return CLI_CONTINUE;
}

static void print_json(const char *path, const crawl_validation *v, long shown) {
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
}

static void print_text(const char *path, const crawl_validation *v, long shown) {
  const char *pd = v->payload_definition;
  if (!v->nerrors) {
    printf("%s: valid %s%s%s\n", path, v->definition, pd ? " with " : "", pd ? pd : "");
    return;
  }
  printf("%s: invalid %s (%ld error%s)\n", path, v->definition, v->nerrors, v->nerrors == 1 ? "" : "s");
  for (long i = 0; i < shown; i++) printf("  %s: %s\n", v->errors[i].path, v->errors[i].message);
  if (v->nerrors > shown) printf("  ... %ld more\n", v->nerrors - shown);
}

int cli_cmd_validate(int argc, char **argv) {
  validate_opts o = {.format = "text"};
  int code = validate_parse(argc, argv, &o);
  if (code != CLI_CONTINUE) return code;
  if (o.definition && !crawl_schema_has(o.definition))
    return cli_fail(CLI_EXIT_USAGE, "the schema has no definition %s", o.definition);
  crawl_validation *v = malloc(sizeof *v);
  if (!v) return cli_fail(CLI_EXIT_INTERNAL, "out of memory");
  char path[4200];
  if ((code = validate_run(&o, v, path, sizeof path)) != CLI_CONTINUE) {
    free(v);
    return code;
  }
  long shown = v->nerrors < CRAWL_SCHEMA_MAX_ERRORS ? v->nerrors : CRAWL_SCHEMA_MAX_ERRORS;
  if (!o.quiet && !strcmp(o.format, "json")) print_json(path, v, shown);
  else if (!o.quiet) print_text(path, v, shown);
  code = v->nerrors ? CLI_EXIT_INVALID : CLI_EXIT_OK;
  free(v);
  if (fflush(stdout) != 0) return CLI_EXIT_OUTPUT;
  return code;
}

/* cmd_diff.c -- `uiap-crawl diff OLD NEW`: compares two Discovery Packages
 * (crawl_package_diff) and prints the difference as text or JSON;
 * --fail-on-regression turns a regression into exit 9. */
#include "cli_int.h"
#include "crawl_pkg.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char cli_help_diff[] =
  "usage: uiap-crawl diff OLD NEW [options]\n"
  "       uiap-crawl diff PKG --principal A --principal B [options]\n"
  "\n"
  "Compares two Discovery Packages (a crawl directory or a package.json each):\n"
  "routes, scopes, elements (by stableId, else semanticKey), actions, states,\n"
  "transitions, review items and workflows added, removed and changed, and the\n"
  "coverage counters. With one package of a principals run and two --principal:\n"
  "what A saw (OLD) against what B saw (NEW) (docs/principals.md).\n"
  "\n"
  "  --format text|json     text for people (default), JSON for machines\n"
  "  --fail-on-regression   exit 9 when a route, element or action disappeared or\n"
  "                         a high-severity review item appeared\n"
  "  --color auto|always|never  (auto: on a terminal unless NO_COLOR is set)\n"
  "  --principal ID         twice: compare two principals of one package\n";

typedef struct {
  const char *paths[2], *format, *color, *principals[2];
  int npaths, fail_on_regression, verbosity, nprincipals;
} diff_opts;

enum { OPT_FORMAT = 256, OPT_COLOR, OPT_FAIL_ON_REGRESSION, OPT_QUIET, OPT_PRINCIPAL };

static const struct option longopts[] = {
  {"help", no_argument, NULL, 'h'},
  {"format", required_argument, NULL, OPT_FORMAT},
  {"color", required_argument, NULL, OPT_COLOR},
  {"fail-on-regression", no_argument, NULL, OPT_FAIL_ON_REGRESSION},
  {"quiet", no_argument, NULL, OPT_QUIET},
  {"principal", required_argument, NULL, OPT_PRINCIPAL},
  {NULL, 0, NULL, 0},
};

static const char bad_format[] = "--format takes text or json", bad_color[] = "--color takes auto, always or never";

static int diff_parse(int argc, char **argv, diff_opts *o) {
  cli_getopt g;
  int c;
  cli_getopt_init(&g, argc, argv, "-:h", longopts);
  while ((c = cli_getopt_next(&g)) != -1) {
    const char *v = g.arg;
    switch (c) {
    case 'h': fputs(cli_help_diff, stdout); return CLI_EXIT_OK;
    case OPT_FORMAT:
      if (strcmp(v, "text") && strcmp(v, "json")) return cli_fail(CLI_EXIT_USAGE, "%s", bad_format);
      o->format = v;
      break;
    case OPT_COLOR:
      if (strcmp(v, "auto") && strcmp(v, "always") && strcmp(v, "never")) return cli_fail(CLI_EXIT_USAGE, "%s", bad_color);
      o->color = v;
      break;
    case OPT_FAIL_ON_REGRESSION: o->fail_on_regression = 1; break;
    case OPT_QUIET: o->verbosity = 0; break;
    case OPT_PRINCIPAL:
      if (o->nprincipals == 2) return cli_fail(CLI_EXIT_USAGE, "--principal: give it twice, not more");
      o->principals[o->nprincipals++] = v;
      break;
    case 1:
      if (o->npaths == 2) return cli_fail(CLI_EXIT_USAGE, "diff takes two packages");
      o->paths[o->npaths++] = v;
      break;
    case ':':
      if (g.missing == OPT_FORMAT || g.missing == OPT_COLOR)
        return cli_fail(CLI_EXIT_USAGE, "%s", g.missing == OPT_FORMAT ? bad_format : bad_color);
      return cli_bad_option(&g, c);
    default: return cli_bad_option(&g, c);
    }
  }
  if (o->nprincipals && (o->nprincipals != 2 || o->npaths != 1))
    return cli_fail(CLI_EXIT_USAGE, "diff PKG --principal A --principal B: one package, two principals");
  if (o->nprincipals) o->paths[1] = o->paths[0];
  else if (o->npaths != 2) return cli_fail(CLI_EXIT_USAGE, "diff needs OLD and NEW (see uiap-crawl diff --help)");
  return CLI_CONTINUE;
}

/* p (a directory: p/package.json) as a Discovery Package, or NULL and err. */
static cJSON *load_package(const char *p, char *err, size_t errlen) {
  char path[4200];
  struct stat st;
  if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) snprintf(path, sizeof path, "%s/package.json", p);
  else snprintf(path, sizeof path, "%s", p);
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "%.900s: %s", path, strerror(errno));
    return NULL;
  }
  char *text;
  size_t len;
  int oom = cli_read_all(f, SIZE_MAX, &text, &len);
  fclose(f);
  if (oom) {
    free(text);
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  cJSON *j = text ? cJSON_ParseWithLength(text, len) : NULL;
  free(text);
  const char *spec = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "spec"));
  if (!j) {
    snprintf(err, errlen, "%.900s is not JSON", path);
  } else if (!cJSON_IsObject(j) || !spec || strcmp(spec, "uiap.discovery")) {
    snprintf(err, errlen, "%.900s is not a UIAP Discovery Package", path);
    cJSON_Delete(j);
    j = NULL;
  }
  return j;
}

static int is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Two crawl directories: their endpoint catalogs compared into d["api"]
 * (api.json, rebuilt from the journal when missing; docs/reports.md). */
static void diff_api(const diff_opts *o, cJSON *d) {
  if (o->nprincipals || !is_dir(o->paths[0]) || !is_dir(o->paths[1])) return;
  cJSON *api[2] = {NULL, NULL};
  char err[1024];
  for (int i = 0; i < 2; i++)
    if (crawl_api_load(o->paths[i], &api[i], err, sizeof err) && o->verbosity > 1)
      fprintf(stderr, "uiap-crawl: no endpoint catalog compared: %s\n", err);
  if (api[0] && api[1]) crawl_api_diff(d, api[0], api[1]);
  cJSON_Delete(api[0]);
  cJSON_Delete(api[1]);
}

/* The difference as printed (caller frees; NULL: out of memory). */
static char *diff_render(const diff_opts *o, cJSON *d) {
  if (!strcmp(o->format, "json")) {
    cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(d, "old"), "path", o->paths[0]);
    cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(d, "new"), "path", o->paths[1]);
    return cJSON_Print(d);
  }
  int color = !strcmp(o->color, "always") || (!strcmp(o->color, "auto") && isatty(1) && !getenv("NO_COLOR"));
  return crawl_diff_text(d, color);
}

int cli_cmd_diff(int argc, char **argv) {
  diff_opts o = {.format = "text", .color = "auto", .verbosity = 1};
  int code = diff_parse(argc, argv, &o);
  if (code != CLI_CONTINUE) return code;
  char err[1024];
  cJSON *pk[2] = {NULL, NULL};
  for (int i = 0; i < 2; i++)
    if (!(pk[i] = load_package(o.paths[i], err, sizeof err))) {
      cJSON_Delete(pk[0]);
      return cli_fail(CLI_EXIT_USAGE, "%s", err);
    }
  for (int i = 0; i < o.nprincipals; i++) { /* one package: principal i's view in pk[i] */
    cJSON *view = crawl_package_principal_view(pk[i], o.principals[i]);
    if (!view) {
      cJSON_Delete(pk[0]);
      cJSON_Delete(pk[1]);
      return cli_fail(CLI_EXIT_USAGE, "%s lists no principal %s (environment.principalProfiles)", o.paths[0],
                      o.principals[i]);
    }
    cJSON_Delete(pk[i]);
    pk[i] = view;
  }
  cJSON *d = NULL;
  int regression = 0;
  crawl_code rc = crawl_package_diff(pk[0], pk[1], &d, &regression);
  cJSON_Delete(pk[0]);
  cJSON_Delete(pk[1]);
  if (rc) return cli_fail(CLI_EXIT_INTERNAL, "cannot compare the packages");
  diff_api(&o, d);
  char *out = diff_render(&o, d);
  cJSON_Delete(d);
  if (!out) return cli_fail(CLI_EXIT_INTERNAL, "out of memory");
  fputs(out, stdout);
  if (out[0] && out[strlen(out) - 1] != '\n') fputc('\n', stdout);
  free(out);
  if (fflush(stdout) != 0) return CLI_EXIT_OUTPUT;
  if (!o.fail_on_regression || !regression) return CLI_EXIT_OK;
  if (o.verbosity > 0)
    fprintf(stderr, "uiap-crawl: regression between %s and %s (--fail-on-regression)\n", o.paths[0], o.paths[1]);
  return CLI_EXIT_REGRESSION;
}

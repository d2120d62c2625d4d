/* main.c -- the uiap-crawl command line: parses options, calls the library,
 * prints results (stdout: data, stderr: one-line errors and logs).
 *
 * Exit codes (also in --help and docs/exit-codes.md):
 *   0 ok, 1 internal error, 2 usage, 3 Chromium missing or failed to start,
 *   4 URL unreachable / navigation failed, 5 timeout, 6 --connect failed,
 *   7 output not writable, 8 capture failed (page crashed),
 *   9 diff: regression, 10 crawl --fail-on: review items, 11 validate: invalid,
 *   130 interrupted (SIGINT), 143 terminated (SIGTERM).
 */
#include "crawl.h"
#include "cli_observe.h"
#include "cli_extra.h"
#include "cli_int.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define UIAP_VERSION "0.1.0"

enum {
  EXIT_OK = 0, EXIT_INTERNAL = 1, EXIT_USAGE = 2, EXIT_BROWSER = 3, EXIT_NAVIGATE = 4,
  EXIT_TIMEOUT = 5, EXIT_CONNECT = 6, EXIT_OUTPUT = 7, EXIT_CAPTURE = 8,
  EXIT_SIGINT = 130, EXIT_SIGTERM = 143,
};

static volatile sig_atomic_t got_signal;
static void on_signal(int sig) { got_signal = sig; }

static void install_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal; /* no SA_RESTART: poll() returns EINTR */
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
}

static int verbosity = 1; /* 0 quiet, 1 warnings, 2 info, 3 debug */

static const char usage_main[] =
  "usage: uiap-crawl <command> [options]\n"
  "\n"
  "commands:\n"
  "  snapshot URL     print the PageGraph of one page (UIAP Web Profile 0.1)\n"
  "  crawl URL|DIR    explore an app safely and write a Discovery Package\n"
  "  serve DIR        serve a directory read-only on loopback (for tests and demos)\n"
  "  report DIR       rebuild DIR/package.json and write report.html, graph.dot,\n"
  "                   review.sarif and junit.xml beside it\n"
  "  diff OLD NEW     compare two packages (--fail-on-regression: exit 9)\n"
  "  validate FILE    check a package, PageGraph or message against the UIAP schema\n"
  "  observe URL      print snapshots, deltas and signals as the page changes (JSON Lines)\n"
  "  help [COMMAND]   show help\n"
  "  version          print the version\n"
  "\n"
  "exit codes: 0 ok, 1 internal error, 2 usage, 3 Chromium missing or failed,\n"
  "  4 URL unreachable, 5 timeout, 6 --connect failed, 7 output not writable,\n"
  "  8 capture failed, 9 diff: regression, 10 crawl --fail-on: review items,\n"
  "  11 validate: invalid, 130 SIGINT, 143 SIGTERM\n";

static const char usage_snapshot[] =
  "usage: uiap-crawl snapshot URL [options]\n"
  "\n"
  "Loads URL in headless Chromium, waits until it settles, prints one PageGraph.\n"
  "URL is http(s)://, file://, or a path to a local file.\n"
  "\n"
  "  --format json|text        JSON PageGraph (default) or an indented text tree\n"
  "  --envelope                wrap the graph in a web.state.snapshot message\n"
  "  --include-hidden          also publish hidden elements\n"
  "  --include-non-interactive also publish non-interactive elements (headings, text, ...)\n"
  "  --max-nodes N             at most N elements (focused, interactive in view first)\n"
  "  --scope ID                only elements inside scope ID (repeatable)\n"
  "  --document ID             only elements of document ID (repeatable)\n"
  "  --bridge-origin ORIGIN    publish frames of ORIGIN as bridged (repeatable)\n"
  "  --allow-bridges           publish a cross-origin frame as bridged when its document\n"
  "                            declares <meta name=\"uiap-bridge\" content=\"ORIGIN|*\">\n"
  "                            naming this page's origin\n"
  "  --viewport WxH            viewport size (default 1280x800)\n"
  "  --timeout-ms N            page load timeout (default 30000)\n"
  "  --settle-ms N             cap on waiting for the page to settle (default 5000)\n"
  "  --chromium PATH           Chromium binary (default: $UIAP_CHROMIUM, then PATH)\n"
  "  --connect URL             attach to a running browser (ws://... or http://HOST:PORT)\n"
  "  --headful                 show the browser window\n"
  "  --hint-attr NAME          copy attribute NAME into element metadata (debugging aid)\n"
  "  -o FILE                   write to FILE instead of stdout\n"
  "  --quiet, --verbose        fewer / more messages on stderr\n";

static const char usage_crawl[] =
  "usage: uiap-crawl crawl URL|DIR [URL...] -o OUT [options]\n"
  "       uiap-crawl crawl --plan plan.json -o OUT [options]\n"
  "\n"
  "Explores the app behind the seeds with the safety gate on and writes a\n"
  "Discovery Package: OUT/package.json, OUT/states/, OUT/journal.jsonl.\n"
  "A directory is served read-only on loopback and crawled from its index.html.\n"
  "\n"
  "  -o, --output DIR          output directory (required)\n"
  "  --plan FILE               DiscoveryPlanPayload or uiap.discovery.plan message\n"
  "  --mode MODE               observe_only | safe_explore (default) | sandbox_write\n"
  "  --max-states N            stop after N distinct states (default 200)\n"
  "  --max-transitions N       stop after N executed actions (default 2000)\n"
  "  --max-depth N             do not expand states deeper than N (default 12)\n"
  "  --max-runtime-ms N        stop after N ms (default 600000)\n"
  "  --max-per-route N         at most N states per route\n"
  "  --allow-origin ORIGIN     another origin in scope (repeatable)\n"
  "  --bridge-origin ORIGIN    publish frames of ORIGIN as bridged (repeatable)\n"
  "  --allow-bridges           also frames whose document declares <meta name=\"uiap-bridge\">\n"
  "  --viewport WxH            viewport (default 1280x800)\n"
  "  --locale LANG             browser language, e.g. de-DE\n"
  "  --screenshots             write OUT/screenshots/<stateId>.png\n"
  "  --include-text-values     field values are part of a state's identity\n"
  "  --force                   overwrite an output directory that holds another run\n"
  "  --fail-on SEVERITY        exit 10 when the package has review items of SEVERITY\n"
  "                            (low | medium | high) or worse\n"
  "  --resume DIR              continue the run journaled in DIR (after a kill or a crash)\n"
  "  --progress jsonl          uiap.discovery.progress events as JSON lines on stdout\n"
  "                            (a live line on stderr is the default on a terminal)\n"
  "  --chromium PATH, --connect URL, --headful   as for snapshot\n"
  "  --quiet, --verbose\n";

static const char usage_serve[] =
  "usage: uiap-crawl serve DIR [--port N] [--host ADDR] [--spa]\n"
  "\n"
  "Serves DIR read-only until SIGINT/SIGTERM; prints the URL on stdout.\n";

typedef struct {
  const char *url;
  const char *chromium, *connect, *out, *format, *hint_attr;
  int envelope, headful;
  pg_options g;
  const char *scopes[32], *documents[32], *bridges[32];
  int nscopes, ndocuments, nbridges;
  int width, height, timeout_ms, settle_ms;
} snap_opts;

/* Accept http(s):// and file:// URLs, or a local file path (made a file:// URL). */
static int normalize_url(const char *in, char *out, size_t outlen) {
  if (!strncmp(in, "http://", 7) || !strncmp(in, "https://", 8) || !strncmp(in, "file://", 7)) {
    snprintf(out, outlen, "%s", in);
    return 0;
  }
  if (strstr(in, "://") || !strncmp(in, "javascript:", 11) || !strncmp(in, "data:", 5) ||
      !strncmp(in, "about:", 6) || !strncmp(in, "mailto:", 7))
    return -1;
  char real[PATH_MAX];
  struct stat st;
  if (realpath(in, real) && stat(real, &st) == 0 && S_ISREG(st.st_mode)) {
    snprintf(out, outlen, "file://%s", real);
    return 0;
  }
  return -2;
}

static int cmd_code(crawl_code rc) {
  switch (rc) {
  case CRAWL_OK: return EXIT_OK;
  case CRAWL_NAVIGATE: return EXIT_NAVIGATE;
  case CRAWL_TIMEOUT: return EXIT_TIMEOUT;
  case CRAWL_CANCELLED: return got_signal == SIGTERM ? EXIT_SIGTERM : EXIT_SIGINT;
  case CRAWL_CRASHED: case CRAWL_CAPTURE: return EXIT_CAPTURE;
  case CRAWL_BROWSER: return EXIT_BROWSER;
  default: return EXIT_INTERNAL;
  }
}

static char *iso_now(char *buf, size_t n) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  char base[32];
  strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(buf, n, "%s.%03ldZ", base, ts.tv_nsec / 1000000);
  return buf;
}

static int write_output(const char *path, const char *text) {
  if (!path || !strcmp(path, "-")) {
    fputs(text, stdout);
    fputc('\n', stdout);
    return fflush(stdout) == 0 ? 0 : -1;
  }
  char tmp[PATH_MAX];
  snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) return -1;
  fputs(text, f);
  fputc('\n', f);
  if (fclose(f) != 0 || rename(tmp, path) != 0) {
    unlink(tmp);
    return -1;
  }
  return 0;
}

static int run_snapshot(snap_opts *o) {
  char url[8192];
  int nu = normalize_url(o->url, url, sizeof url);
  if (nu == -1) return cli_fail(EXIT_USAGE, "unsupported URL (only http, https and file): %s", o->url);
  if (nu == -2) return cli_fail(EXIT_USAGE, "not a URL and no such file: %s", o->url);
  if (o->format && strcmp(o->format, "json") && strcmp(o->format, "text"))
    return cli_fail(EXIT_USAGE, "--format takes json or text, not %s", o->format);
  if (o->out && strcmp(o->out, "-")) {
    /* fail before starting a browser */
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", o->out);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0; else snprintf(dir, sizeof dir, ".");
    if (access(dir, W_OK) != 0) return cli_fail(EXIT_OUTPUT, "cannot write to %s: %s", o->out, strerror(errno));
  }
  cdp_client *c = NULL;
  char err[1024] = "";
  cdp_code cr;
  int total_timeout = o->timeout_ms > 0 ? o->timeout_ms : 30000;
  if (o->connect) {
    cr = cdp_connect(o->connect, total_timeout < 10000 ? total_timeout : 10000, &c, err, sizeof err);
    if (cr) return cli_fail(cr == CDP_ARG ? EXIT_USAGE : EXIT_CONNECT, "%s", err);
  } else {
    const char *extra[] = {NULL};
    cdp_launch_opts lo = {.chromium = o->chromium, .headful = o->headful, .width = o->width,
                          .height = o->height, .extra_args = extra};
    cr = cdp_launch(&lo, &c, err, sizeof err);
    if (cr == CDP_CANCELLED) return got_signal == SIGTERM ? EXIT_SIGTERM : EXIT_SIGINT;
    if (cr) return cli_fail(EXIT_BROWSER, "%s", err);
  }
  cdp_client_set_cancel(c, &got_signal);
  crawl_page_opts po = {.width = o->width, .height = o->height, .nav_timeout_ms = o->timeout_ms,
                        .settle_max_ms = o->settle_ms};
  crawl_page *p = NULL;
  int code = EXIT_OK;
  pg_graph *g = NULL;
  crawl_code rc = crawl_page_open(c, &po, &p);
  if (rc == CRAWL_OK) rc = crawl_page_goto(p, url);
  if (rc == CRAWL_OK) {
    o->scopes[o->nscopes] = NULL;
    o->documents[o->ndocuments] = NULL;
    o->bridges[o->nbridges] = NULL;
    o->g.scope_filter = o->nscopes ? o->scopes : NULL;
    o->g.document_filter = o->ndocuments ? o->documents : NULL;
    o->g.bridge_origins = o->nbridges ? o->bridges : NULL;
    o->g.hint_attr = o->hint_attr;
    rc = crawl_page_capture(p, &o->g, &g);
  }
  if (rc != CRAWL_OK) {
    code = cmd_code(rc);
    if (rc != CRAWL_CANCELLED) cli_fail(code, "%s", crawl_page_errmsg(p));
    else cli_fail(code, "interrupted");
  } else {
    char *text;
    if (o->format && !strcmp(o->format, "text")) {
      text = pg_graph_to_text(g);
    } else {
      cJSON *j = pg_graph_to_json(g);
      if (!crawl_page_settled(p)) {
        cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "metadata");
        cJSON_AddBoolToObject(m, "settled", 0);
      }
      /* what the page tried and we turned away */
      cJSON *md = cJSON_GetObjectItemCaseSensitive(j, "metadata");
      if (crawl_page_dialogs(p)) cJSON_AddNumberToObject(md, "dialogsDismissed", crawl_page_dialogs(p));
      if (crawl_page_popups(p)) cJSON_AddNumberToObject(md, "popupsClosed", crawl_page_popups(p));
      if (o->envelope) {
        cJSON *env = cJSON_CreateObject();
        char ts[64], id[64];
        cJSON_AddStringToObject(env, "uiap", "0.1");
        cJSON_AddStringToObject(env, "kind", "event");
        cJSON_AddStringToObject(env, "type", "web.state.snapshot");
        snprintf(id, sizeof id, "msg_%lld_%d", cdp_now_ms(), (int)getpid());
        cJSON_AddStringToObject(env, "id", id);
        cJSON_AddStringToObject(env, "ts", iso_now(ts, sizeof ts));
        cJSON *src = cJSON_AddObjectToObject(env, "source");
        cJSON_AddStringToObject(src, "role", "runtime");
        cJSON_AddStringToObject(src, "id", "uiap-crawl");
        cJSON *payload = cJSON_AddObjectToObject(env, "payload");
        cJSON_AddItemToObject(payload, "graph", j);
        j = env;
      }
      text = cJSON_PrintUnformatted(j);
      cJSON_Delete(j);
    }
    if (!text) code = cli_fail(EXIT_INTERNAL, "out of memory");
    else if (write_output(o->out, text) != 0) code = cli_fail(EXIT_OUTPUT, "cannot write output to %s", o->out ? o->out : "stdout");
    free(text);
  }
  pg_graph_free(g);
  crawl_page_close(p);
  cdp_client_free(c);
  if (verbosity >= 3) {
    /* our own peak memory (Chromium's processes are not counted) */
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
      if (!strncmp(line, "VmHWM:", 6)) fprintf(stderr, "uiap-crawl: debug: peak RSS%s", line + 5);
    if (f) fclose(f);
  }
  return code;
}

static int cmd_snapshot(int argc, char **argv) {
  snap_opts o = {0};
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    long n;
#define NEED_VALUE() do { if (!v) return cli_fail(EXIT_USAGE, "%s needs a value", a); i++; } while (0)
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(usage_snapshot, stdout); return EXIT_OK; }
    else if (!strcmp(a, "--format")) { NEED_VALUE(); o.format = v; }
    else if (!strcmp(a, "--envelope")) o.envelope = 1;
    else if (!strcmp(a, "--include-hidden")) o.g.include_hidden = 1;
    else if (!strcmp(a, "--include-non-interactive")) o.g.include_non_interactive = 1;
    else if (!strcmp(a, "--max-nodes")) {
      NEED_VALUE();
      if (cli_parse_long(v, 1, 10000000, &n)) return cli_fail(EXIT_USAGE, "--max-nodes takes a number from 1 to 10000000, not %s", v);
      o.g.max_nodes = (size_t)n;
    } else if (!strcmp(a, "--scope")) { NEED_VALUE(); if (o.nscopes < 31) o.scopes[o.nscopes++] = v; }
    else if (!strcmp(a, "--document")) { NEED_VALUE(); if (o.ndocuments < 31) o.documents[o.ndocuments++] = v; }
    else if (!strcmp(a, "--bridge-origin")) { NEED_VALUE(); if (o.nbridges < 31) o.bridges[o.nbridges++] = v; }
    else if (!strcmp(a, "--allow-bridges")) o.g.allow_bridges = 1;
    else if (!strcmp(a, "--viewport")) {
      NEED_VALUE();
      int bad = cli_viewport_arg(v, &o.width, &o.height);
      if (bad) return bad;
    } else if (!strcmp(a, "--timeout-ms")) {
      NEED_VALUE();
      if (cli_parse_long(v, 100, 3600000, &n)) return cli_fail(EXIT_USAGE, "--timeout-ms takes 100..3600000, not %s", v);
      o.timeout_ms = (int)n;
    } else if (!strcmp(a, "--settle-ms")) {
      NEED_VALUE();
      if (cli_parse_long(v, 1, 600000, &n)) return cli_fail(EXIT_USAGE, "--settle-ms takes 1..600000, not %s", v);
      o.settle_ms = (int)n;
    } else if (!strcmp(a, "--chromium")) { NEED_VALUE(); o.chromium = v; }
    else if (!strcmp(a, "--connect")) { NEED_VALUE(); o.connect = v; }
    else if (!strcmp(a, "--headful")) o.headful = 1;
    else if (!strcmp(a, "--hint-attr")) { NEED_VALUE(); o.hint_attr = v; }
    else if (!strcmp(a, "-o") || !strcmp(a, "--output")) { NEED_VALUE(); o.out = v; }
    else if (!strcmp(a, "--quiet")) verbosity = 0;
    else if (!strcmp(a, "--verbose")) verbosity++;
    else if (a[0] == '-' && a[1]) return cli_fail(EXIT_USAGE, "unknown option %s (see uiap-crawl snapshot --help)", a);
    else if (!o.url) o.url = a;
    else return cli_fail(EXIT_USAGE, "snapshot takes one URL (got %s and %s)", o.url, a);
#undef NEED_VALUE
  }
  if (!o.url) return cli_fail(EXIT_USAGE, "snapshot needs a URL (see uiap-crawl snapshot --help)");
  cli_log_setup(verbosity);
  return run_snapshot(&o);
}


/* ---- crawl ------------------------------------------------------------------ */
static int isatty_err;

static int progress_jsonl;

static void progress_line(void *ud, const crawl_progress *p) {
  if (progress_jsonl) {
    /* uiap.discovery.progress events, one JSON line each, on stdout */
    cJSON *m = cJSON_CreateObject();
    char ts[64], id[64];
    static long seq;
    cJSON_AddStringToObject(m, "uiap", "0.1");
    cJSON_AddStringToObject(m, "kind", "event");
    cJSON_AddStringToObject(m, "type", "uiap.discovery.progress");
    snprintf(id, sizeof id, "msg_progress_%ld", ++seq);
    cJSON_AddStringToObject(m, "id", id);
    cJSON_AddStringToObject(m, "ts", iso_now(ts, sizeof ts));
    cJSON *src = cJSON_AddObjectToObject(m, "source");
    cJSON_AddStringToObject(src, "role", "runtime");
    cJSON_AddStringToObject(src, "id", "uiap-crawl");
    cJSON *pl = cJSON_AddObjectToObject(m, "payload");
    cJSON_AddStringToObject(pl, "runId", p->run_id ? p->run_id : "");
    cJSON_AddStringToObject(pl, "status", p->status);
    if (p->route) cJSON_AddStringToObject(pl, "currentRouteId", p->route);
    cJSON_AddNumberToObject(pl, "visitedStates", (double)p->states);
    cJSON_AddNumberToObject(pl, "visitedTransitions", (double)p->transitions);
    char *t = cJSON_PrintUnformatted(m);
    cJSON_Delete(m);
    if (t) { puts(t); fflush(stdout); }
    free(t);
    return;
  }
  if (!isatty_err || verbosity <= 0) return;
  fprintf(stderr, "\r\033[K%-10s states %ld  transitions %ld  not clicked %ld  %lds  %.60s",
          p->status, p->states, p->transitions, p->decisions, p->elapsed_ms / 1000, p->route ? p->route : "");
  fflush(stderr);
}

/* A new browser after the old one died (crawl_opts.relaunch). */
typedef struct {
  cdp_client **c;
  cdp_launch_opts lo;
  const char *connect;
} relaunch_ctx;

static cdp_code relaunch(void *ud, cdp_client **c) {
  relaunch_ctx *x = ud;
  cdp_client_free(*c); /* reaps the dead one and removes its profile */
  *c = NULL;
  char err[1024];
  cdp_code rc = x->connect ? cdp_connect(x->connect, 10000, c, err, sizeof err)
                           : cdp_launch(&x->lo, c, err, sizeof err);
  if (rc) {
    crawl_log(CRAWL_LOG_ERROR, "crawl", "restarting the browser failed: %s", err);
    return rc;
  }
  cdp_client_set_cancel(*c, &got_signal);
  *x->c = *c;
  return CDP_OK;
}

static int remove_tree(const char *path) {
  char cmd[8300];
  /* only our own files: journal, states, screenshots, package and reports */
  static const char *const ours[] = {"journal.jsonl", "package.json", "states", "screenshots",
                                     "report.html", "graph.dot", "review.sarif", "junit.xml"};
  for (size_t i = 0; i < sizeof ours / sizeof *ours; i++) {
    snprintf(cmd, sizeof cmd, "%s/%s", path, ours[i]);
    struct stat st;
    if (stat(cmd, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      char c2[8400];
      snprintf(c2, sizeof c2, "rm -rf -- '%s'", cmd);
      if (system(c2) != 0) return -1;
    } else if (unlink(cmd) != 0) {
      return -1;
    }
  }
  return 0;
}

static int cmd_crawl(int argc, char **argv) {
  crawl_opts co = {0};
  const char *urls[65];
  int nurls = 0;
  const char *allow[33];
  int nallow = 0, nbridge = 0;
  const char *bridge[33];
  const char *plan_path = NULL, *chromium = NULL, *connect = NULL;
  int force = 0, headful = 0;
  const char *fail_on = NULL;
  long n;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE() do { if (!v) return cli_fail(EXIT_USAGE, "%s needs a value", a); i++; } while (0)
#define BUDGET(flag, field, lo, hi)                                                          \
    else if (!strcmp(a, flag)) {                                                             \
      NEED_VALUE();                                                                          \
      if (cli_parse_long(v, lo, hi, &n)) return cli_fail(EXIT_USAGE, "%s takes a number from %ld to %ld, not %s", flag, (long)(lo), (long)(hi), v); \
      co.budget.field = n;                                                                   \
    }
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(usage_crawl, stdout); return EXIT_OK; }
    else if (!strcmp(a, "-o") || !strcmp(a, "--output")) { NEED_VALUE(); co.out_dir = v; }
    else if (!strcmp(a, "--plan")) { NEED_VALUE(); plan_path = v; }
    else if (!strcmp(a, "--mode")) {
      NEED_VALUE();
      if (pol_mode_parse(v, &co.policy.mode) != POL_OK)
        return cli_fail(EXIT_USAGE, "--mode takes observe_only, safe_explore or sandbox_write, not %s", v);
    }
    BUDGET("--max-states", max_states, 1, 100000)
    BUDGET("--max-transitions", max_transitions, 1, 10000000)
    BUDGET("--max-depth", max_depth, 1, 1000)
    BUDGET("--max-runtime-ms", max_runtime_ms, 1000, 86400000)
    BUDGET("--max-per-route", max_per_route, 1, 100000)
    else if (!strcmp(a, "--allow-origin")) { NEED_VALUE(); if (nallow < 32) allow[nallow++] = v; }
    else if (!strcmp(a, "--bridge-origin")) { NEED_VALUE(); if (nbridge < 32) bridge[nbridge++] = v; }
    else if (!strcmp(a, "--allow-bridges")) co.allow_bridges = 1;
    else if (!strcmp(a, "--viewport")) {
      NEED_VALUE();
      int bad = cli_viewport_arg(v, &co.width, &co.height);
      if (bad) return bad;
    } else if (!strcmp(a, "--locale")) { NEED_VALUE(); co.locale = v; }
    else if (!strcmp(a, "--screenshots")) co.screenshots = 1;
    else if (!strcmp(a, "--include-text-values")) co.fp.include_text_values = 1;
    else if (!strcmp(a, "--force")) force = 1;
    else if (!strcmp(a, "--progress")) {
      NEED_VALUE();
      if (strcmp(v, "jsonl") && strcmp(v, "tty")) return cli_fail(EXIT_USAGE, "--progress takes jsonl or tty, not %s", v);
      progress_jsonl = !strcmp(v, "jsonl");
    }
    else if (!strcmp(a, "--fail-on")) {
      NEED_VALUE();
      if (strcmp(v, "low") && strcmp(v, "medium") && strcmp(v, "high"))
        return cli_fail(EXIT_USAGE, "--fail-on takes low, medium or high, not %s", v);
      fail_on = v;
    }
    else if (!strcmp(a, "--resume")) { NEED_VALUE(); co.out_dir = v; co.resume = 1; }
    else if (!strcmp(a, "--chromium")) { NEED_VALUE(); chromium = v; }
    else if (!strcmp(a, "--connect")) { NEED_VALUE(); connect = v; }
    else if (!strcmp(a, "--headful")) headful = 1;
    else if (!strcmp(a, "--quiet")) verbosity = 0;
    else if (!strcmp(a, "--verbose")) verbosity++;
    else if (a[0] == '-' && a[1]) return cli_fail(EXIT_USAGE, "unknown option %s (see uiap-crawl crawl --help)", a);
    else if (nurls < 64) urls[nurls++] = a;
#undef NEED_VALUE
#undef BUDGET
  }
  if (!co.out_dir) return cli_fail(EXIT_USAGE, "crawl needs an output directory (-o DIR)");
  char resume_plan[8300] = "";
  if (co.resume && !nurls && !plan_path) {
    /* the run's own first line holds its environment and seeds */
    char jp0[8300];
    snprintf(jp0, sizeof jp0, "%s/journal.jsonl", co.out_dir);
    FILE *jf = fopen(jp0, "r");
    if (!jf) return cli_fail(EXIT_USAGE, "nothing to resume in %s (no journal.jsonl)", co.out_dir);
    char *line = NULL;
    size_t cap = 0;
    ssize_t got = getline(&line, &cap, jf);
    fclose(jf);
    cJSON *first = got > 0 ? cJSON_Parse(line) : NULL;
    free(line);
    if (!first || strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(first, "type")) ?: "", "run")) {
      cJSON_Delete(first);
      return cli_fail(EXIT_USAGE, "%s/journal.jsonl does not start with a run record", co.out_dir);
    }
    cJSON *pl = cJSON_CreateObject();
    cJSON_AddItemToObject(pl, "environment", cJSON_DetachItemFromObjectCaseSensitive(first, "environment"));
    cJSON_AddItemToObject(pl, "seeds", cJSON_DetachItemFromObjectCaseSensitive(first, "seeds"));
    cJSON_Delete(first);
    char *ptext = cJSON_Print(pl);
    cJSON_Delete(pl);
    snprintf(resume_plan, sizeof resume_plan, "%s/.resume-plan.json", co.out_dir);
    FILE *pf = fopen(resume_plan, "w");
    if (!pf || !ptext) return cli_fail(EXIT_OUTPUT, "cannot write %s", resume_plan);
    fputs(ptext, pf);
    fclose(pf);
    free(ptext);
    plan_path = resume_plan;
  }
  if (!nurls && !plan_path) return cli_fail(EXIT_USAGE, "crawl needs a URL, a directory or --plan (see uiap-crawl crawl --help)");
  cli_log_setup(verbosity);
  /* the plan */
  cJSON *plan = NULL;
  if (plan_path) {
    FILE *f = fopen(plan_path, "rb");
    if (!f) return cli_fail(EXIT_USAGE, "cannot read plan %s: %s", plan_path, strerror(errno));
    char *text = NULL;
    size_t len = 0, cap = 0;
    char buf[65536];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, f)) > 0) {
      if (len + k + 1 > cap) {
        char *grown = realloc(text, cap = (len + k + 1) * 2);
        if (!grown) { free(text); fclose(f); return cli_fail(EXIT_INTERNAL, "out of memory reading plan %s", plan_path); }
        text = grown;
      }
      memcpy(text + len, buf, k);
      len += k;
    }
    fclose(f);
    if (!text) return cli_fail(EXIT_USAGE, "plan %s is empty", plan_path);
    text[len] = 0;
    /* budgets and safety from the plan; flags override */
    int mode_flag = 0;
    for (int q = 0; q < argc; q++) if (!strcmp(argv[q], "--mode")) mode_flag = 1;
    crawl_plan_error pe;
    crawl_code pc = crawl_plan_parse(text, mode_flag, &co.budget, &co.policy, &plan, &pe);
    free(text);
    if (pc != CRAWL_OK && pe.line)
      return cli_fail(EXIT_USAGE, "plan %s is not valid JSON (line %d, column %d)", plan_path, pe.line, pe.column);
    if (pc != CRAWL_OK) return cli_fail(EXIT_USAGE, "plan %s: %s", plan_path, pe.msg);
  }
  /* URLs; a directory is served */
  crawl_server *server = NULL;
  char url_bufs[64][8192];
  for (int i = 0; i < nurls; i++) {
    struct stat st;
    if (stat(urls[i], &st) == 0 && S_ISDIR(st.st_mode)) {
      if (server) { cJSON_Delete(plan); return cli_fail(EXIT_USAGE, "crawl serves one directory at a time"); }
      crawl_server_opts so = {.root = urls[i], .spa_fallback = 1};
      char err[256];
      if (crawl_server_start(&so, &server, err, sizeof err) != 0) { cJSON_Delete(plan); return cli_fail(EXIT_INTERNAL, "%s", err); }
      snprintf(url_bufs[i], sizeof url_bufs[i], "http://127.0.0.1:%d/", crawl_server_port(server));
      urls[i] = url_bufs[i];
      continue;
    }
    int nu = normalize_url(urls[i], url_bufs[i], sizeof url_bufs[i]);
    if (nu == -1) { cJSON_Delete(plan); crawl_server_stop(server); return cli_fail(EXIT_USAGE, "unsupported URL (only http, https and file): %s", urls[i]); }
    if (nu == -2) { cJSON_Delete(plan); crawl_server_stop(server); return cli_fail(EXIT_USAGE, "not a URL, file or directory: %s", urls[i]); }
    urls[i] = url_bufs[i];
  }
  urls[nurls] = NULL;
  allow[nallow] = NULL;
  co.urls = urls;
  co.allow_origins = allow;
  bridge[nbridge] = NULL;
  co.bridge_origins = nbridge ? bridge : NULL;
  co.plan = plan;
  /* the output directory */
  struct stat st;
  char jp[8300];
  snprintf(jp, sizeof jp, "%s/journal.jsonl", co.out_dir);
  if (resume_plan[0]) unlink(resume_plan);
  if (stat(jp, &st) == 0 && !co.resume) {
    if (!force) {
      cJSON_Delete(plan);
      crawl_server_stop(server);
      return cli_fail(EXIT_OUTPUT, "%s holds another run (journal.jsonl); pass --force to replace it", co.out_dir);
    }
    if (remove_tree(co.out_dir) != 0) { cJSON_Delete(plan); crawl_server_stop(server); return cli_fail(EXIT_OUTPUT, "cannot clear %s", co.out_dir); }
  }
  int made = mkdir(co.out_dir, 0755) == 0; /* removed again if no browser starts */
  if (!made && errno != EEXIST) {
    cJSON_Delete(plan);
    crawl_server_stop(server);
    return cli_fail(EXIT_OUTPUT, "cannot create %s: %s", co.out_dir, strerror(errno));
  }
  if (access(co.out_dir, W_OK) != 0) {
    cJSON_Delete(plan);
    crawl_server_stop(server);
    return cli_fail(EXIT_OUTPUT, "cannot write to %s: %s", co.out_dir, strerror(errno));
  }
  /* the browser */
  cdp_client *c = NULL;
  char err[1024] = "";
  cdp_code cr;
  if (connect) {
    cr = cdp_connect(connect, 10000, &c, err, sizeof err);
    if (cr) { cJSON_Delete(plan); crawl_server_stop(server); if (made) rmdir(co.out_dir); return cli_fail(cr == CDP_ARG ? EXIT_USAGE : EXIT_CONNECT, "%s", err); }
  } else {
    cdp_launch_opts lo = {.chromium = chromium, .headful = headful, .width = co.width, .height = co.height,
                          .lang = co.locale};
    cr = cdp_launch(&lo, &c, err, sizeof err);
    if (cr) {
      cJSON_Delete(plan);
      crawl_server_stop(server);
      if (made) rmdir(co.out_dir);
      if (cr == CDP_CANCELLED) return got_signal == SIGTERM ? EXIT_SIGTERM : EXIT_SIGINT;
      return cli_fail(EXIT_BROWSER, "%s", err);
    }
  }
  cdp_client_set_cancel(c, &got_signal);
  co.cancel = &got_signal;
  relaunch_ctx rx = {.c = &c, .connect = connect,
                     .lo = {.chromium = chromium, .headful = headful, .width = co.width, .height = co.height, .lang = co.locale}};
  co.relaunch = relaunch;
  co.relaunch_ud = &rx;
  isatty_err = isatty(2);
  co.progress = progress_line;
  crawl_summary sum;
  crawl_code rc = crawl_run(c, &co, &sum);
  if (isatty_err && verbosity > 0) fputs("\r\033[K", stderr);
  cdp_client_free(c);
  crawl_server_stop(server);
  cJSON_Delete(plan);
  if (rc == CRAWL_IO) return cli_fail(EXIT_OUTPUT, "%s", sum.error);
  if (verbosity > 0)
    fprintf(stderr,
            "uiap-crawl: %s: %ld states, %ld transitions (%ld self-loops), %ld actions not taken, "
            "%ld failed, %ld review findings; stopped by %s\n"
            "uiap-crawl: package: %s/package.json\n",
            sum.status ? sum.status : "failed", sum.states, sum.transitions, sum.self_loops, sum.decisions,
            sum.failures, sum.reviews, sum.stopped_by ? sum.stopped_by : "?", co.out_dir);
  if (rc != CRAWL_OK) return cli_fail(rc == CRAWL_BROWSER ? EXIT_BROWSER : EXIT_INTERNAL, "%s", sum.error);
  if (sum.status && !strcmp(sum.status, "cancelled")) return got_signal == SIGTERM ? EXIT_SIGTERM : EXIT_SIGINT;
  char rerr[1024];
  if (crawl_reports_write(co.out_dir, NULL, rerr, sizeof rerr) != CRAWL_OK && verbosity > 0)
    fprintf(stderr, "uiap-crawl: warning: reports not written: %s\n", rerr);
  if (sum.states == 0) /* the package and reports are written; they list each seed's failure */
    return cli_fail(EXIT_NAVIGATE, "no seed could be loaded%s%s", sum.error[0] ? ": " : "", sum.error);
  if (fail_on) {
    long nrev = 0;
    if (crawl_review_count(co.out_dir, fail_on, &nrev, rerr, sizeof rerr) != CRAWL_OK) return cli_fail(EXIT_INTERNAL, "%s", rerr);
    if (nrev > 0)
      return cli_fail(UIAP_EXIT_REVIEW, "%ld review item%s of severity %s or worse (--fail-on %s)", nrev, nrev == 1 ? "" : "s",
                 fail_on, fail_on);
  }
  return EXIT_OK;
}

static int cmd_serve(int argc, char **argv) {
  crawl_server_opts so = {0};
  long n;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(usage_serve, stdout); return EXIT_OK; }
    else if (!strcmp(a, "--port")) {
      if (!v || cli_parse_long(v, 0, 65535, &n)) return cli_fail(EXIT_USAGE, "--port takes 0..65535");
      so.port = (int)n;
      i++;
    } else if (!strcmp(a, "--host")) {
      if (!v) return cli_fail(EXIT_USAGE, "--host needs a value");
      so.host = v;
      i++;
    } else if (!strcmp(a, "--spa")) so.spa_fallback = 1;
    else if (a[0] == '-') return cli_fail(EXIT_USAGE, "unknown option %s (see uiap-crawl serve --help)", a);
    else if (!so.root) so.root = a;
    else return cli_fail(EXIT_USAGE, "serve takes one directory");
  }
  if (!so.root) return cli_fail(EXIT_USAGE, "serve needs a directory");
  struct stat st;
  if (stat(so.root, &st) != 0 || !S_ISDIR(st.st_mode)) return cli_fail(EXIT_USAGE, "not a directory: %s", so.root);
  crawl_server *s = NULL;
  char err[256];
  if (crawl_server_start(&so, &s, err, sizeof err) != 0) return cli_fail(EXIT_INTERNAL, "%s", err);
  printf("http://%s:%d/\n", so.host ? so.host : "127.0.0.1", crawl_server_port(s));
  fflush(stdout);
  while (!got_signal) pause();
  crawl_server_stop(s);
  return EXIT_OK;
}

int main(int argc, char **argv) {
  install_signals();
  if (argc < 2) {
    fputs(usage_main, stderr);
    return EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "snapshot")) return cmd_snapshot(argc - 2, argv + 2);
  if (!strcmp(cmd, "serve")) return cmd_serve(argc - 2, argv + 2);
  if (!strcmp(cmd, "crawl")) return cmd_crawl(argc - 2, argv + 2);
  if (!strcmp(cmd, "report")) return uiap_cmd_report(argc - 2, argv + 2);
  if (!strcmp(cmd, "diff")) return uiap_cmd_diff(argc - 2, argv + 2);
  if (!strcmp(cmd, "validate")) return uiap_cmd_validate(argc - 2, argv + 2);
  if (!strcmp(cmd, "observe")) return uiap_cmd_observe(argc - 2, argv + 2);
  if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
    printf("uiap-crawl %s\n", UIAP_VERSION);
    return EXIT_OK;
  }
  if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
    if (argc > 2 && !strcmp(argv[2], "snapshot")) fputs(usage_snapshot, stdout);
    else if (argc > 2 && !strcmp(argv[2], "serve")) fputs(usage_serve, stdout);
    else if (argc > 2 && !strcmp(argv[2], "crawl")) fputs(usage_crawl, stdout);
    else if (argc > 2 && !strcmp(argv[2], "observe")) fputs(uiap_usage_observe, stdout);
    else if (argc > 2 && !strcmp(argv[2], "report")) fputs(uiap_usage_report, stdout);
    else if (argc > 2 && !strcmp(argv[2], "diff")) fputs(uiap_usage_diff, stdout);
    else if (argc > 2 && !strcmp(argv[2], "validate")) fputs(uiap_usage_validate, stdout);
    else fputs(usage_main, stdout);
    return EXIT_OK;
  }
  return cli_fail(EXIT_USAGE, "unknown command %s (see uiap-crawl --help)", cmd);
}

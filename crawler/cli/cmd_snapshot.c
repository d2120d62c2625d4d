/* cmd_snapshot.c -- `uiap-crawl snapshot URL`: loads one page in headless
 * Chromium, waits until it settles and prints its PageGraph (JSON, an
 * indented text tree, or a web.state.snapshot message) on stdout or into
 * -o FILE. */
#include "cli_int.h"
#include "crawl.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char cli_help_snapshot[] =
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
  "  --user-agent STRING       the User-Agent, verbatim (default: the browser's, with\n"
  "                            HeadlessChrome as Chrome, as `login`'s browser says it)\n"
  "  --timeout-ms N            page load timeout (default 30000)\n"
  "  --settle-ms N             cap on waiting for the page to settle (default 5000)\n"
  "  --chromium PATH           Chromium binary (default: $UIAP_CHROMIUM, then PATH)\n"
  "  --connect URL             attach to a running browser (ws://... or http://HOST:PORT)\n"
  "  --headful                 show the browser window\n"
  "  --allow-read 'METHOD /path'  requests of METHOD to /path... on the page's origin\n"
  "                            are reads: the write guard lets them through (unless the\n"
  "                            body is a GraphQL mutation); 'graphql:Name': a persisted\n"
  "                            GraphQL query of that name (repeatable, at most 32)\n"
  "  --hint-attr NAME          copy attribute NAME into element metadata (debugging aid)\n"
  "  --redact pii              mask e-mail addresses, phone numbers and person names\n"
  "                            ([email], [phone], [name]) before anything is written\n"
  "                            (docs/safety.md)\n"
  CLI_SESSION_HELP
  "  -o FILE                   write to FILE instead of stdout\n"
  "  --quiet, --verbose        fewer / more messages on stderr\n";

typedef struct {
  const char *url;
  const char *chromium, *connect, *out, *format, *hint_attr, *user_agent;
  int envelope, headful, verbosity;
  pg_options g;
  const char *scopes[32], *documents[32], *bridges[32], *reads[33];
  int nscopes, ndocuments, nbridges, nreads;
  int width, height, timeout_ms, settle_ms;
  crawl_session session;        /* --storage-state, --cookies, --header */
  const char *user_data_dir;
} snap_opts;

enum {
  OPT_FORMAT = 256, OPT_ENVELOPE, OPT_HIDDEN, OPT_NON_INTERACTIVE, OPT_MAX_NODES, OPT_SCOPE, OPT_DOCUMENT,
  OPT_BRIDGE_ORIGIN, OPT_ALLOW_BRIDGES, OPT_VIEWPORT, OPT_TIMEOUT, OPT_SETTLE, OPT_CHROMIUM, OPT_CONNECT,
  OPT_HEADFUL, OPT_HINT_ATTR, OPT_QUIET, OPT_VERBOSE, OPT_STORAGE_STATE, OPT_COOKIES, OPT_HEADER, OPT_USER_DATA_DIR,
  OPT_REDACT, OPT_ALLOW_READ, OPT_USER_AGENT,
};

static const struct option longopts[] = {
  {"help", no_argument, NULL, 'h'},
  {"format", required_argument, NULL, OPT_FORMAT},
  {"envelope", no_argument, NULL, OPT_ENVELOPE},
  {"include-hidden", no_argument, NULL, OPT_HIDDEN},
  {"include-non-interactive", no_argument, NULL, OPT_NON_INTERACTIVE},
  {"max-nodes", required_argument, NULL, OPT_MAX_NODES},
  {"scope", required_argument, NULL, OPT_SCOPE},
  {"document", required_argument, NULL, OPT_DOCUMENT},
  {"bridge-origin", required_argument, NULL, OPT_BRIDGE_ORIGIN},
  {"allow-bridges", no_argument, NULL, OPT_ALLOW_BRIDGES},
  {"viewport", required_argument, NULL, OPT_VIEWPORT},
  {"user-agent", required_argument, NULL, OPT_USER_AGENT},
  {"timeout-ms", required_argument, NULL, OPT_TIMEOUT},
  {"settle-ms", required_argument, NULL, OPT_SETTLE},
  {"chromium", required_argument, NULL, OPT_CHROMIUM},
  {"connect", required_argument, NULL, OPT_CONNECT},
  {"headful", no_argument, NULL, OPT_HEADFUL},
  {"hint-attr", required_argument, NULL, OPT_HINT_ATTR},
  {"redact", required_argument, NULL, OPT_REDACT},
  {"allow-read", required_argument, NULL, OPT_ALLOW_READ},
  {"output", required_argument, NULL, 'o'},
  {"quiet", no_argument, NULL, OPT_QUIET},
  {"verbose", no_argument, NULL, OPT_VERBOSE},
  {"storage-state", required_argument, NULL, OPT_STORAGE_STATE},
  {"cookies", required_argument, NULL, OPT_COOKIES},
  {"header", required_argument, NULL, OPT_HEADER},
  {"user-data-dir", required_argument, NULL, OPT_USER_DATA_DIR},
  {NULL, 0, NULL, 0},
};

/* A number option's value; CLI_CONTINUE, or the usage exit code. */
static int snap_number(int c, const char *v, snap_opts *o) {
  long n;
  if (c == OPT_MAX_NODES) {
    if (cli_parse_long(v, 1, 10000000, &n))
      return cli_fail(CLI_EXIT_USAGE, "--max-nodes takes a number from 1 to 10000000, not %s", v);
    o->g.max_nodes = (size_t)n;
  } else if (c == OPT_TIMEOUT) {
    if (cli_parse_long(v, 100, 3600000, &n)) return cli_fail(CLI_EXIT_USAGE, "--timeout-ms takes 100..3600000, not %s", v);
    o->timeout_ms = (int)n;
  } else {
    if (cli_parse_long(v, 1, 600000, &n)) return cli_fail(CLI_EXIT_USAGE, "--settle-ms takes 1..600000, not %s", v);
    o->settle_ms = (int)n;
  }
  return CLI_CONTINUE;
}

/* A session option (cli_session.c): CLI_CONTINUE, or the usage exit code. */
static int snap_session_opt(snap_opts *o, int c, const char *v) {
  if (c == OPT_USER_DATA_DIR) {
    o->user_data_dir = v;
    return cli_user_data_dir_arg(v);
  }
  return cli_session_arg(&o->session, c == OPT_STORAGE_STATE ? CLI_SESSION_STATE
                                      : c == OPT_COOKIES     ? CLI_SESSION_COOKIES
                                                             : CLI_SESSION_HEADER, v);
}

/* The options into *o: CLI_CONTINUE, or the exit code (0 after --help). */
static int snap_parse(int argc, char **argv, snap_opts *o) {
  cli_getopt g;
  int c, code;
  cli_getopt_init(&g, argc, argv, "-:ho:", longopts);
  while ((c = cli_getopt_next(&g)) != -1) {
    const char *v = g.arg;
    switch (c) {
    case 'h': fputs(cli_help_snapshot, stdout); return CLI_EXIT_OK;
    case OPT_FORMAT: o->format = v; break;
    case OPT_ENVELOPE: o->envelope = 1; break;
    case OPT_HIDDEN: o->g.include_hidden = 1; break;
    case OPT_NON_INTERACTIVE: o->g.include_non_interactive = 1; break;
    case OPT_REDACT:
      if ((code = cli_redact_arg(v, &o->g.redact_pii)) != CLI_CONTINUE) return code;
      break;
    case OPT_MAX_NODES: case OPT_TIMEOUT: case OPT_SETTLE:
      if ((code = snap_number(c, v, o)) != CLI_CONTINUE) return code;
      break;
    case OPT_SCOPE: if (o->nscopes < 31) o->scopes[o->nscopes++] = v; break;
    case OPT_DOCUMENT: if (o->ndocuments < 31) o->documents[o->ndocuments++] = v; break;
    case OPT_BRIDGE_ORIGIN: if (o->nbridges < 31) o->bridges[o->nbridges++] = v; break;
    case OPT_ALLOW_BRIDGES: o->g.allow_bridges = 1; break;
    case OPT_ALLOW_READ:
      if ((code = cli_allow_read_arg(v, o->reads, &o->nreads)) != CLI_CONTINUE) return code;
      break;
    case OPT_VIEWPORT:
      if ((code = cli_viewport_arg(v, &o->width, &o->height))) return code;
      break;
    case OPT_USER_AGENT:
      if (!crawl_user_agent_ok(v))
        return cli_fail(CLI_EXIT_USAGE, "--user-agent takes a non-empty string without control characters");
      o->user_agent = v;
      break;
    case OPT_CHROMIUM: o->chromium = v; break;
    case OPT_CONNECT: o->connect = v; break;
    case OPT_HEADFUL: o->headful = 1; break;
    case OPT_HINT_ATTR: o->hint_attr = v; break;
    case 'o': o->out = v; break;
    case OPT_QUIET: o->verbosity = 0; break;
    case OPT_VERBOSE: o->verbosity++; break;
    case OPT_STORAGE_STATE: case OPT_COOKIES: case OPT_HEADER: case OPT_USER_DATA_DIR:
      if ((code = snap_session_opt(o, c, v)) != CLI_CONTINUE) return code;
      break;
    case 1:
      if (o->url) return cli_fail(CLI_EXIT_USAGE, "snapshot takes one URL (got %s and %s)", o->url, v);
      o->url = v;
      break;
    default: return cli_bad_option(&g, c);
    }
  }
  if (!o->url) return cli_fail(CLI_EXIT_USAGE, "snapshot needs a URL (see uiap-crawl snapshot --help)");
  return CLI_CONTINUE;
}

/* What fails before a browser starts: the URL (into url), --format, -o. */
static int snap_check(const snap_opts *o, char *url, size_t urllen) {
  int nu = cli_url_normalize(o->url, url, urllen);
  if (nu == -1) return cli_fail(CLI_EXIT_USAGE, "unsupported URL (only http, https and file): %s", o->url);
  if (nu == -2) return cli_fail(CLI_EXIT_USAGE, "not a URL and no such file: %s", o->url);
  if (o->format && strcmp(o->format, "json") && strcmp(o->format, "text"))
    return cli_fail(CLI_EXIT_USAGE, "--format takes json or text, not %s", o->format);
  if (o->out && strcmp(o->out, "-")) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", o->out);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    if (access(dir, W_OK) != 0) return cli_fail(CLI_EXIT_OUTPUT, "cannot write to %s: %s", o->out, strerror(errno));
  }
  return CLI_CONTINUE;
}

/* The page opened, loaded and captured into *g (*p: the page, to close;
 * its secret list filters the log while it is open). */
static crawl_code snap_capture(cdp_client *c, snap_opts *o, const char *url, crawl_page **p, pg_graph **g) {
  /* loading a page to read it writes nothing: the write guard is on */
  o->reads[o->nreads] = NULL;
  crawl_page_opts po = {.width = o->width, .height = o->height, .user_agent = o->user_agent,
                        .nav_timeout_ms = o->timeout_ms,
                        .allow_reads = o->nreads ? o->reads : NULL,
                        .settle_max_ms = o->settle_ms, .block_writes = crawl_guard_for_mode(NULL, 0),
                        .session = crawl_session_any(&o->session) ? &o->session : NULL,
                        .secrets = cli_secrets()}; /* the URL's own credentials (?access_token=) */
  crawl_code rc = crawl_page_open(c, &po, p);
  crawl_log_secrets(crawl_page_secrets(*p)); /* the session's values: in no output, no log line */
  if (rc == CRAWL_OK) rc = crawl_page_goto(*p, url);
  if (rc != CRAWL_OK) return rc;
  o->scopes[o->nscopes] = NULL;
  o->documents[o->ndocuments] = NULL;
  o->bridges[o->nbridges] = NULL;
  o->g.scope_filter = o->nscopes ? o->scopes : NULL;
  o->g.document_filter = o->ndocuments ? o->documents : NULL;
  o->g.bridge_origins = o->nbridges ? o->bridges : NULL;
  o->g.hint_attr = o->hint_attr;
  return crawl_page_snapshot(*p, &o->g, g, NULL);
}

/* The graph as printed: text, JSON with what the page tried and we turned
 * away, or that in a web.state.snapshot message. Caller frees; NULL: out of
 * memory. */
static char *snap_render(const snap_opts *o, crawl_page *p, const pg_graph *g) {
  if (o->format && !strcmp(o->format, "text")) return pg_graph_to_text(g);
  cJSON *j = pg_graph_to_json(g);
  cJSON *md = cJSON_GetObjectItemCaseSensitive(j, "metadata");
  if (!crawl_page_settled(p)) cJSON_AddBoolToObject(md, "settled", 0);
  if (crawl_page_dialogs(p)) cJSON_AddNumberToObject(md, "dialogsDismissed", crawl_page_dialogs(p));
  if (crawl_page_popups(p)) cJSON_AddNumberToObject(md, "popupsClosed", crawl_page_popups(p));
  if (o->envelope) {
    char id[64];
    cJSON *payload = cJSON_CreateObject();
    snprintf(id, sizeof id, "msg_%lld_%d", cdp_now_ms(), (int)getpid());
    cJSON_AddItemToObject(payload, "graph", j);
    j = crawl_envelope(&(crawl_msg){.type = "web.state.snapshot", .id = id}, payload);
  }
  char *text = cJSON_PrintUnformatted(j);
  cJSON_Delete(j);
  return text;
}

/* text and a newline to stdout (path NULL or "-"), or to path by a rename. */
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

/* One line on stderr when the guard failed what the page's own load sent:
 * the graph may show a page emptier than it is (docs/safety.md). */
static void snap_load_writes(const snap_opts *o, crawl_page *p) {
  char *line = o->verbosity >= 1 ? crawl_page_load_writes_text(p) : NULL;
  if (!line) return;
  char *text = crawl_page_scrub(p, line);
  free(line);
  if (text) fprintf(stderr, "uiap-crawl: %s\n", text);
  free(text);
}

/* --verbose --verbose --verbose: our own peak memory (Chromium's processes
 * are not counted). */
static void print_peak_rss(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmHWM:", 6)) fprintf(stderr, "uiap-crawl: debug: peak RSS%s", line + 5);
  if (f) fclose(f);
}

static int snap_run(snap_opts *o) {
  char url[8192];
  int code = snap_check(o, url, sizeof url);
  if (code != CLI_CONTINUE) return code;
  int total_timeout = o->timeout_ms > 0 ? o->timeout_ms : 30000;
  cdp_launch_opts lo = {.chromium = o->chromium, .headful = o->headful, .width = o->width, .height = o->height,
                        .user_data_dir = o->user_data_dir};
  cdp_client *c;
  if ((code = cli_browser_open(o->connect, total_timeout < 10000 ? total_timeout : 10000, &lo, &c))) return code;
  crawl_page *p = NULL;
  pg_graph *g = NULL;
  crawl_code rc = snap_capture(c, o, url, &p, &g);
  if (rc != CRAWL_OK) {
    code = cli_fail(cli_exit_from_crawl(rc), "%s", rc == CRAWL_CANCELLED ? "interrupted" : crawl_page_errmsg(p));
  } else {
    snap_load_writes(o, p);
    char *raw = snap_render(o, p, g);
    char *text = crawl_page_scrub(p, raw); /* URLs, titles: the tab's secrets, --redact pii */
    free(raw);
    if (!text) code = cli_fail(CLI_EXIT_INTERNAL, "out of memory");
    else if (write_output(o->out, text) != 0)
      code = cli_fail(CLI_EXIT_OUTPUT, "cannot write output to %s", o->out ? o->out : "stdout");
    free(text);
  }
  pg_graph_free(g);
  crawl_log_secrets(NULL);
  crawl_page_close(p);
  cdp_client_free(c);
  if (o->verbosity >= 3) print_peak_rss();
  return code;
}

int cli_cmd_snapshot(int argc, char **argv) {
  snap_opts o = {.verbosity = 1};
  int code = snap_parse(argc, argv, &o);
  if (code == CLI_CONTINUE) {
    cli_log_setup(o.verbosity);
    code = snap_run(&o);
  }
  crawl_session_release(&o.session);
  return code;
}

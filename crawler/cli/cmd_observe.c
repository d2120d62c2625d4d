/* cmd_observe.c -- `uiap-crawl observe URL`: starts or attaches to a
 * browser and calls crawl_observe_run, whose snapshots, deltas and signals
 * it writes as JSON Lines on stdout (or -o FILE) while the page changes
 * (docs/observe.md).
 *
 * With --connect it attaches to a page that is already open (crawl_page_attach)
 * and leaves it as it found it (crawl_page_detach): no tab opened, none closed;
 * no page to attach to is exit 6. A failed script step is exit 1, the
 * others as for every command (CLI_EXIT_MAP); after SIGINT or SIGTERM
 * web.observe.stopped was printed. */
#include "cli_int.h"
#include "crawl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char cli_help_observe[] =
  "usage: uiap-crawl observe URL [options]\n"
  "       uiap-crawl observe --connect ENDPOINT [URL] [--target ID | --target-url TEXT] [options]\n"
  "\n"
  "Loads URL and prints UIAP messages as JSON Lines while the page changes:\n"
  "web.observe.started, web.state.snapshot, web.state.delta and web.signal,\n"
  "and web.observe.stopped at the end (duration over, SIGINT, the page closed,\n"
  "or the --script done). URL is http(s)://, file://, or a local file.\n"
  "\n"
  "With --connect ws://HOST:PORT/devtools/browser/ID or http://HOST:PORT it\n"
  "watches a page already open in that browser (one another tool drives):\n"
  "it opens no tab, never loads, reloads or resizes the page, leaves its\n"
  "dialogs alone, and at the end switches its observers off and detaches,\n"
  "leaving the tab open. The page: --target ID (a target id from\n"
  "http://HOST:PORT/json/list), else the first page whose URL contains\n"
  "--target-url TEXT, else the first page whose URL starts with URL, else the\n"
  "only page if there is exactly one. When none fits: one line on stderr\n"
  "naming how many pages there are, exit 6.\n"
  "\n"
  "  --duration-ms N           stop after N ms (default: until SIGINT, the page\n"
  "                            closes, or the script is done)\n"
  "  --throttle-ms N           at most one capture per N ms (default 100; 0: none)\n"
  "  --mode snapshot+delta|delta-only   snapshot first (default) or deltas only\n"
  "  --signals KIND,...        also print these signal kinds at once as web.signal\n"
  "                            (route.changed, toast.shown, status.changed,\n"
  "                            validation.changed, dialog.opened, dialog.closed,\n"
  "                            submission.started, submission.finished, or all);\n"
  "                            deltas carry every signal anyway\n"
  "  --script FILE             drive the page: a JSON array of steps, e.g.\n"
  "                            {\"step\":\"click\",\"target\":{\"stableId\":\"save\"}},\n"
  "                            {\"step\":\"type\",\"target\":{\"role\":\"textbox\",\"name\":\"Email\"},\"text\":\"a@b.c\"},\n"
  "                            {\"step\":\"press\",\"key\":\"Enter\"}, {\"step\":\"wait\",\"ms\":500},\n"
  "                            {\"step\":\"wait\",\"target\":{...},\"gone\":false,\"timeoutMs\":10000},\n"
  "                            {\"step\":\"navigate\",\"url\":\"/next\"}\n"
  "  --include-hidden          also publish hidden elements\n"
  "  --include-non-interactive also publish non-interactive elements\n"
  "  --redact pii              mask e-mail addresses, phone numbers and person names\n"
  "                            ([email], [phone], [name]) before anything is written\n"
  "                            (docs/safety.md)\n"
  "  --bridge-origin ORIGIN    publish frames of ORIGIN as bridged (repeatable)\n"
  "  --allow-bridges           also frames whose document declares <meta name=\"uiap-bridge\">\n"
  "  --allow-writes            turn the tab's write guard off (a --script that submits on\n"
  "                            purpose); without it the tab writes nothing (docs/safety.md)\n"
  "  --allow-read 'METHOD /path'  requests of METHOD to /path... on the page's origin\n"
  "                            are reads the guard lets through (repeatable; graphql:Name\n"
  "                            for a persisted GraphQL query; docs/safety.md)\n"
  "  --subscription-id ID      subscriptionId to use (default: generated)\n"
  "  --viewport WxH            viewport size (default 1280x800; not with --connect:\n"
  "                            an attached page keeps its size)\n"
  "  --timeout-ms N            page load timeout (default 30000)\n"
  "  --connect ENDPOINT        attach to a page open in a running browser (above)\n"
  "  --target ID               with --connect: the page with this target id\n"
  "  --target-url TEXT         with --connect: the first page whose URL contains TEXT\n"
  "  --chromium PATH, --headful   as for snapshot (--headful: a visible window)\n"
  "  -o FILE                   write the messages to FILE instead of stdout\n"
  "  --quiet, --verbose        fewer / more messages on stderr\n";

typedef struct {
  crawl_observe_opts o;
  const char *url_arg, *script_path, *out_path, *chromium, *connect, *target, *target_url;
  const char *bridges[33], *reads[33];
  int nbridges, nreads, headful, width, height, verbosity, allow_writes;
  char url[8192];               /* url_arg as a URL, or "" */
  cJSON *script;
  FILE *out;
} observe_cli;

enum {
  OPT_DURATION = 256, OPT_THROTTLE, OPT_MODE, OPT_SIGNALS, OPT_SCRIPT, OPT_HIDDEN, OPT_NON_INTERACTIVE,
  OPT_BRIDGE_ORIGIN, OPT_ALLOW_BRIDGES, OPT_SUBSCRIPTION, OPT_VIEWPORT, OPT_TIMEOUT, OPT_CHROMIUM, OPT_CONNECT,
  OPT_TARGET, OPT_TARGET_URL, OPT_HEADFUL, OPT_QUIET, OPT_VERBOSE, OPT_ALLOW_WRITES, OPT_REDACT,
  OPT_ALLOW_READ,
};

static const struct option longopts[] = {
  {"help", no_argument, NULL, 'h'},
  {"duration-ms", required_argument, NULL, OPT_DURATION},
  {"throttle-ms", required_argument, NULL, OPT_THROTTLE},
  {"mode", required_argument, NULL, OPT_MODE},
  {"signals", required_argument, NULL, OPT_SIGNALS},
  {"script", required_argument, NULL, OPT_SCRIPT},
  {"include-hidden", no_argument, NULL, OPT_HIDDEN},
  {"include-non-interactive", no_argument, NULL, OPT_NON_INTERACTIVE},
  {"bridge-origin", required_argument, NULL, OPT_BRIDGE_ORIGIN},
  {"allow-bridges", no_argument, NULL, OPT_ALLOW_BRIDGES},
  {"subscription-id", required_argument, NULL, OPT_SUBSCRIPTION},
  {"viewport", required_argument, NULL, OPT_VIEWPORT},
  {"timeout-ms", required_argument, NULL, OPT_TIMEOUT},
  {"chromium", required_argument, NULL, OPT_CHROMIUM},
  {"connect", required_argument, NULL, OPT_CONNECT},
  {"target", required_argument, NULL, OPT_TARGET},
  {"target-url", required_argument, NULL, OPT_TARGET_URL},
  {"headful", no_argument, NULL, OPT_HEADFUL},
  {"allow-writes", no_argument, NULL, OPT_ALLOW_WRITES},
  {"allow-read", required_argument, NULL, OPT_ALLOW_READ},
  {"redact", required_argument, NULL, OPT_REDACT},
  {"output", required_argument, NULL, 'o'},
  {"quiet", no_argument, NULL, OPT_QUIET},
  {"verbose", no_argument, NULL, OPT_VERBOSE},
  {NULL, 0, NULL, 0},
};

/* An option whose value is checked: CLI_CONTINUE, or the usage exit code. */
static int observe_value(observe_cli *x, int c, const char *v) {
  long n;
  switch (c) {
  case OPT_DURATION:
    if (cli_parse_long(v, 1, 86400000, &n)) return cli_fail(CLI_EXIT_USAGE, "--duration-ms takes 1..86400000, not %s", v);
    x->o.duration_ms = n;
    break;
  case OPT_THROTTLE:
    if (cli_parse_long(v, 0, 600000, &n)) return cli_fail(CLI_EXIT_USAGE, "--throttle-ms takes 0..600000, not %s", v);
    x->o.throttle_ms = n ? (int)n : -1;
    break;
  case OPT_TIMEOUT:
    if (cli_parse_long(v, 100, 3600000, &n)) return cli_fail(CLI_EXIT_USAGE, "--timeout-ms takes 100..3600000, not %s", v);
    x->o.page_opts.nav_timeout_ms = (int)n;
    break;
  case OPT_MODE:
    if (!strcmp(v, "snapshot+delta")) x->o.mode = CRAWL_OBSERVE_SNAPSHOT_DELTA;
    else if (!strcmp(v, "delta-only")) x->o.mode = CRAWL_OBSERVE_DELTA_ONLY;
    else return cli_fail(CLI_EXIT_USAGE, "--mode takes snapshot+delta or delta-only, not %s", v);
    break;
  case OPT_SIGNALS:
    if (crawl_signal_kinds_parse(v, &x->o.signals))
      return cli_fail(CLI_EXIT_USAGE, "--signals takes kinds separated by commas (see uiap-crawl observe --help), not %s", v);
    break;
  default: return cli_viewport_arg(v, &x->width, &x->height) ? CLI_EXIT_USAGE : CLI_CONTINUE;
  }
  return CLI_CONTINUE;
}

static int observe_parse(int argc, char **argv, observe_cli *x) {
  cli_getopt g;
  int c, code;
  cli_getopt_init(&g, argc, argv, "-:ho:", longopts);
  while ((c = cli_getopt_next(&g)) != -1) {
    const char *v = g.arg;
    switch (c) {
    case 'h': fputs(cli_help_observe, stdout); return CLI_EXIT_OK;
    case OPT_DURATION: case OPT_THROTTLE: case OPT_TIMEOUT: case OPT_MODE: case OPT_SIGNALS: case OPT_VIEWPORT:
      if ((code = observe_value(x, c, v)) != CLI_CONTINUE) return code;
      break;
    case OPT_SCRIPT: x->script_path = v; break;
    case OPT_HIDDEN: x->o.graph.include_hidden = 1; break;
    case OPT_NON_INTERACTIVE: x->o.graph.include_non_interactive = 1; break;
    case OPT_REDACT:
      if ((code = cli_redact_arg(v, &x->o.graph.redact_pii)) != CLI_CONTINUE) return code;
      break;
    case OPT_BRIDGE_ORIGIN: if (x->nbridges < 32) x->bridges[x->nbridges++] = v; break;
    case OPT_ALLOW_BRIDGES: x->o.graph.allow_bridges = 1; break;
    case OPT_SUBSCRIPTION: x->o.subscription_id = v; break;
    case OPT_CHROMIUM: x->chromium = v; break;
    case OPT_CONNECT: x->connect = v; break;
    case OPT_TARGET: x->target = v; break;
    case OPT_TARGET_URL: x->target_url = v; break;
    case OPT_ALLOW_WRITES: x->allow_writes = 1; break;
    case OPT_ALLOW_READ:
      if ((code = cli_allow_read_arg(v, x->reads, &x->nreads)) != CLI_CONTINUE) return code;
      break;
    case OPT_HEADFUL: x->headful = 1; break;
    case 'o': x->out_path = v; break;
    case OPT_QUIET: x->verbosity = 0; break;
    case OPT_VERBOSE: x->verbosity++; break;
    case 1:
      if (x->url_arg) return cli_fail(CLI_EXIT_USAGE, "observe takes one URL");
      x->url_arg = v;
      break;
    default: return cli_bad_option(&g, c);
    }
  }
  return CLI_CONTINUE;
}

/* path's JSON (at most 16 MiB read), or NULL and one line in err. */
static cJSON *read_json(const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
    return NULL;
  }
  char *text;
  size_t len;
  (void)cli_read_all(f, 16u << 20, &text, &len); /* out of memory: what was read */
  fclose(f);
  if (!text) {
    snprintf(err, errlen, "%s is empty", path);
    return NULL;
  }
  text[len] = 0;
  const char *end = NULL;
  cJSON *j = cJSON_ParseWithOpts(text, &end, 0);
  if (!j) {
    int line = 1, col = 1;
    for (const char *p = text; end && p < end && *p; p++) {
      if (*p == '\n') {
        line++;
        col = 1;
      } else {
        col++;
      }
    }
    snprintf(err, errlen, "%s is not valid JSON (line %d, column %d)", path, line, col);
  }
  free(text);
  return j;
}

/* What fails before a browser starts: the options that go together, the
 * URL, the script, the output file. */
static int observe_check(observe_cli *x) {
  if (!x->connect && (x->target || x->target_url)) return cli_fail(CLI_EXIT_USAGE, "--target and --target-url need --connect");
  if (x->target && x->target_url) return cli_fail(CLI_EXIT_USAGE, "--target and --target-url exclude each other");
  if (x->connect && x->width)
    return cli_fail(CLI_EXIT_USAGE, "--viewport does not go with --connect: an attached page keeps its size");
  if (!x->url_arg && !x->connect) return cli_fail(CLI_EXIT_USAGE, "observe needs a URL (see uiap-crawl observe --help)");
  int nu = x->url_arg ? cli_url_normalize(x->url_arg, x->url, sizeof x->url) : 0;
  if (nu == -1) return cli_fail(CLI_EXIT_USAGE, "unsupported URL (only http, https and file): %s", x->url_arg);
  if (nu == -2) return cli_fail(CLI_EXIT_USAGE, "not a URL and no such file: %s", x->url_arg);
  char err[1024];
  if (x->script_path) {
    if (!(x->script = read_json(x->script_path, err, sizeof err))) return cli_fail(CLI_EXIT_USAGE, "--script: %s", err);
    if (crawl_observe_script_check(x->script, err, sizeof err))
      return cli_fail(CLI_EXIT_USAGE, "--script %s: %s", x->script_path, err);
  }
  if (x->out_path && strcmp(x->out_path, "-") && !(x->out = fopen(x->out_path, "w")))
    return cli_fail(CLI_EXIT_OUTPUT, "cannot write to %s: %s", x->out_path, strerror(errno));
  return CLI_CONTINUE;
}

/* --connect: the open page to watch (URL only chooses it, it is never loaded). */
static int observe_attach(observe_cli *x, cdp_client *c, crawl_page **page) {
  crawl_attach_opts sel = {.target_id = x->target, .url_contains = x->target_url,
                           .url_prefix = x->url[0] ? x->url : NULL};
  crawl_code ar = crawl_page_attach(c, &x->o.page_opts, &sel, page);
  if (ar == CRAWL_CANCELLED) return cli_exit_signal();
  if (ar == CRAWL_ARG)
    return cli_fail(CLI_EXIT_CONNECT, "%s; choose one with --target ID or --target-url TEXT", crawl_page_errmsg(*page));
  if (ar)
    return cli_fail(CLI_EXIT_CONNECT, "cannot attach to the page: %s", *page ? crawl_page_errmsg(*page) : crawl_strerror(ar));
  return CLI_EXIT_OK;
}

/* One message as one JSON Line on the FILE ud, flushed (crawl_observe_msg_cb). */
static int observe_line(void *ud, const cJSON *msg) {
  char *text = cJSON_PrintUnformatted(msg);
  if (!text) return -1;
  int rc = fputs(text, ud) < 0 || fputc('\n', ud) < 0 || fflush(ud) != 0 ? -1 : 0;
  free(text);
  return rc;
}

static int observe_watch(observe_cli *x, cdp_client *c) {
  crawl_observe_stats st;
  x->o.cancel = &cli_signal;
  cdp_client_set_cancel(c, &cli_signal);
  crawl_code rc = crawl_observe_run(c, &x->o, observe_line, x->out ? x->out : stdout, &st);
  int code = cli_exit_from_crawl(rc);
  if (rc && rc != CRAWL_CANCELLED) cli_fail(code, "%s", st.error[0] ? st.error : crawl_strerror(rc));
  if (x->verbosity >= 2)
    fprintf(stderr,
            "uiap-crawl: observed %lld ms: %ld deltas (%ld ops), %ld signals, %ld captures (%ld unchanged, "
            "%lld ms capturing); stopped by %s\n",
            st.elapsed_ms, st.deltas, st.ops, st.signals, st.captures, st.unchanged, st.capture_ms,
            st.stopped_by ? st.stopped_by : "?");
  return code;
}

static int observe_run(observe_cli *x) {
  x->bridges[x->nbridges] = NULL;
  x->o.graph.bridge_origins = x->nbridges ? x->bridges : NULL;
  x->o.page_opts.secrets = cli_secrets(); /* a --connect URL's token, a seed's credentials */
  x->o.page_opts.width = x->width;
  x->o.page_opts.height = x->height;
  /* a tab of our own is guarded like a snapshot's; a tab another tool
   * drives (--connect) is its owner's: we only watch it */
  x->o.page_opts.block_writes = crawl_guard_for_mode(NULL, x->connect || x->allow_writes);
  x->reads[x->nreads] = NULL;
  x->o.page_opts.allow_reads = x->nreads ? x->reads : NULL;
  x->o.url = x->connect ? NULL : x->url;
  x->o.script = x->script;
  cli_log_setup(x->verbosity);
  cdp_launch_opts lo = {.chromium = x->chromium, .headful = x->headful, .width = x->width, .height = x->height};
  cdp_client *c;
  crawl_page *attached = NULL;
  int code = cli_browser_open(x->connect, 10000, &lo, &c);
  if (!code && x->connect) code = observe_attach(x, c, &attached);
  x->o.page = attached;
  if (!code) code = observe_watch(x, c);
  if (c) cdp_client_set_cancel(c, NULL); /* after SIGINT too: take our scripts out of the page */
  crawl_page_detach(attached);
  cdp_client_free(c);
  return code;
}

int cli_cmd_observe(int argc, char **argv) {
  observe_cli x = {.verbosity = 1};
  int code = observe_parse(argc, argv, &x);
  if (code == CLI_CONTINUE) code = observe_check(&x);
  if (code == CLI_CONTINUE) code = observe_run(&x);
  cJSON_Delete(x.script);
  if (x.out && fclose(x.out) != 0 && !code) code = cli_fail(CLI_EXIT_OUTPUT, "cannot write to %s", x.out_path);
  return code;
}

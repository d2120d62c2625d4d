/* cli_observe.c -- `uiap-crawl observe`: parses options, starts or attaches
 * to a browser, and calls crawl_observe_run (crawler/observe.c). stdout (or
 * -o FILE) carries the JSON Lines messages, stderr the logs.
 *
 * With --connect it attaches to a page that is already open (crawl_page_attach)
 * and leaves it as it found it (crawl_page_detach): no tab opened, none closed.
 *
 * Exit codes as for the other commands: 0 ok (duration over, script done,
 * page closed), 1 internal error or a failed script step, 2 usage,
 * 3 Chromium missing or failed, 4 URL unreachable, 5 timeout, 6 --connect
 * failed or no open page to attach to, 7 output not writable, 8 capture
 * failed (page crashed), 130 SIGINT, 143 SIGTERM (after web.observe.stopped
 * was printed).
 */
#include "cli_observe.h"
#include "cli_int.h"
#include "crawl.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static volatile sig_atomic_t obs_signal;
static void obs_on_signal(int sig) { obs_signal = sig; }

static int verbosity = 1;

const char uiap_usage_observe[] =
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
  "  --bridge-origin ORIGIN    publish frames of ORIGIN as bridged (repeatable)\n"
  "  --allow-bridges           also frames whose document declares <meta name=\"uiap-bridge\">\n"
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

static int make_url(const char *in, char *out, size_t outlen) {
  if (!strncmp(in, "http://", 7) || !strncmp(in, "https://", 8) || !strncmp(in, "file://", 7)) {
    snprintf(out, outlen, "%s", in);
    return 0;
  }
  if (strstr(in, "://") || !strncmp(in, "javascript:", 11) || !strncmp(in, "data:", 5) || !strncmp(in, "about:", 6))
    return -1;
  char real[PATH_MAX];
  struct stat st;
  if (realpath(in, real) && stat(real, &st) == 0 && S_ISREG(st.st_mode)) {
    snprintf(out, outlen, "file://%s", real);
    return 0;
  }
  return -2;
}

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
      if (*p == '\n') { line++; col = 1; }
      else col++;
    }
    snprintf(err, errlen, "%s is not valid JSON (line %d, column %d)", path, line, col);
  }
  free(text);
  return j;
}

static int exit_code(crawl_code rc) {
  switch (rc) {
  case CRAWL_OK: return 0;
  case CRAWL_NAVIGATE: return 4;
  case CRAWL_TIMEOUT: return 5;
  case CRAWL_CANCELLED: return obs_signal == SIGTERM ? 143 : 130;
  case CRAWL_CRASHED: case CRAWL_CAPTURE: return 8;
  case CRAWL_BROWSER: return 3;
  case CRAWL_IO: return 7;
  default: return 1;
  }
}

int uiap_cmd_observe(int argc, char **argv) {
  crawl_observe_opts o = {0};
  const char *url_arg = NULL, *script_path = NULL, *out_path = NULL, *chromium = NULL, *connect = NULL;
  const char *target = NULL, *target_url = NULL;
  const char *bridges[33];
  int nbridges = 0, headful = 0, width = 0, height = 0, allow_bridges = 0;
  long n;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE() do { if (!v) return cli_fail(2, "%s needs a value", a); i++; } while (0)
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(uiap_usage_observe, stdout); return 0; }
    else if (!strcmp(a, "--duration-ms")) {
      NEED_VALUE();
      if (cli_parse_long(v, 1, 86400000, &n)) return cli_fail(2, "--duration-ms takes 1..86400000, not %s", v);
      o.duration_ms = n;
    } else if (!strcmp(a, "--throttle-ms")) {
      NEED_VALUE();
      if (cli_parse_long(v, 0, 600000, &n)) return cli_fail(2, "--throttle-ms takes 0..600000, not %s", v);
      o.throttle_ms = n ? (int)n : -1;
    } else if (!strcmp(a, "--mode")) {
      NEED_VALUE();
      if (!strcmp(v, "snapshot+delta")) o.mode = CRAWL_OBSERVE_SNAPSHOT_DELTA;
      else if (!strcmp(v, "delta-only")) o.mode = CRAWL_OBSERVE_DELTA_ONLY;
      else return cli_fail(2, "--mode takes snapshot+delta or delta-only, not %s", v);
    } else if (!strcmp(a, "--signals")) {
      NEED_VALUE();
      if (crawl_signal_kinds_parse(v, &o.signals))
        return cli_fail(2, "--signals takes kinds separated by commas (see uiap-crawl observe --help), not %s", v);
    } else if (!strcmp(a, "--script")) { NEED_VALUE(); script_path = v; }
    else if (!strcmp(a, "--include-hidden")) o.graph.include_hidden = 1;
    else if (!strcmp(a, "--include-non-interactive")) o.graph.include_non_interactive = 1;
    else if (!strcmp(a, "--bridge-origin")) { NEED_VALUE(); if (nbridges < 32) bridges[nbridges++] = v; }
    else if (!strcmp(a, "--allow-bridges")) allow_bridges = 1;
    else if (!strcmp(a, "--subscription-id")) { NEED_VALUE(); o.subscription_id = v; }
    else if (!strcmp(a, "--viewport")) {
      NEED_VALUE();
      int bad = cli_viewport_arg(v, &width, &height);
      if (bad) return bad;
    } else if (!strcmp(a, "--timeout-ms")) {
      NEED_VALUE();
      if (cli_parse_long(v, 100, 3600000, &n)) return cli_fail(2, "--timeout-ms takes 100..3600000, not %s", v);
      o.page_opts.nav_timeout_ms = (int)n;
    } else if (!strcmp(a, "--chromium")) { NEED_VALUE(); chromium = v; }
    else if (!strcmp(a, "--connect")) { NEED_VALUE(); connect = v; }
    else if (!strcmp(a, "--target")) { NEED_VALUE(); target = v; }
    else if (!strcmp(a, "--target-url")) { NEED_VALUE(); target_url = v; }
    else if (!strcmp(a, "--headful")) headful = 1;
    else if (!strcmp(a, "-o") || !strcmp(a, "--output")) { NEED_VALUE(); out_path = v; }
    else if (!strcmp(a, "--quiet")) verbosity = 0;
    else if (!strcmp(a, "--verbose")) verbosity++;
    else if (a[0] == '-' && a[1]) return cli_fail(2, "unknown option %s (see uiap-crawl observe --help)", a);
    else if (!url_arg) url_arg = a;
    else return cli_fail(2, "observe takes one URL");
#undef NEED_VALUE
  }
  if (!connect && (target || target_url)) return cli_fail(2, "--target and --target-url need --connect");
  if (target && target_url) return cli_fail(2, "--target and --target-url exclude each other");
  if (connect && width) return cli_fail(2, "--viewport does not go with --connect: an attached page keeps its size");
  if (!url_arg && !connect) return cli_fail(2, "observe needs a URL (see uiap-crawl observe --help)");
  char url[8192] = "";
  if (url_arg) {
    int nu = make_url(url_arg, url, sizeof url);
    if (nu == -1) return cli_fail(2, "unsupported URL (only http, https and file): %s", url_arg);
    if (nu == -2) return cli_fail(2, "not a URL and no such file: %s", url_arg);
  }
  /* --connect: URL only chooses the page, it is never loaded */
  o.url = connect ? NULL : url;
  char err[1024];
  cJSON *script = NULL;
  if (script_path) {
    if (!(script = read_json(script_path, err, sizeof err))) return cli_fail(2, "--script: %s", err);
    if (crawl_observe_script_check(script, err, sizeof err)) {
      cJSON_Delete(script);
      return cli_fail(2, "--script %s: %s", script_path, err);
    }
    o.script = script;
  }
  FILE *out = stdout;
  if (out_path && strcmp(out_path, "-")) {
    out = fopen(out_path, "w");
    if (!out) {
      cJSON_Delete(script);
      return cli_fail(7, "cannot write to %s: %s", out_path, strerror(errno));
    }
  }
  bridges[nbridges] = NULL;
  o.graph.bridge_origins = nbridges ? bridges : NULL;
  o.graph.allow_bridges = allow_bridges;
  o.page_opts.width = width;
  o.page_opts.height = height;
  cli_log_setup(verbosity);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = obs_on_signal; /* no SA_RESTART: poll() returns EINTR */
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);

  cdp_client *c = NULL;
  cdp_code cr;
  int code = 0;
  if (connect) {
    cr = cdp_connect(connect, 10000, &c, err, sizeof err);
    if (cr) code = cli_fail(cr == CDP_ARG ? 2 : 6, "%s", err);
  } else {
    cdp_launch_opts lo = {.chromium = chromium, .headful = headful, .width = width, .height = height};
    cr = cdp_launch(&lo, &c, err, sizeof err);
    if (cr == CDP_CANCELLED) code = obs_signal == SIGTERM ? 143 : 130;
    else if (cr) code = cli_fail(3, "%s", err);
  }
  crawl_page *attached = NULL;
  if (!code && connect) {
    cdp_client_set_cancel(c, &obs_signal);
    crawl_attach_opts sel = {.target_id = target, .url_contains = target_url, .url_prefix = url[0] ? url : NULL};
    crawl_code ar = crawl_page_attach(c, &o.page_opts, &sel, &attached);
    if (ar == CRAWL_CANCELLED) code = obs_signal == SIGTERM ? 143 : 130;
    else if (ar == CRAWL_ARG)
      code = cli_fail(6, "%s; choose one with --target ID or --target-url TEXT", crawl_page_errmsg(attached));
    else if (ar)
      code = cli_fail(6, "cannot attach to the page: %s", attached ? crawl_page_errmsg(attached) : crawl_strerror(ar));
    o.page = attached;
  }
  if (!code) {
    cdp_client_set_cancel(c, &obs_signal);
    o.cancel = &obs_signal;
    crawl_observe_stats st;
    crawl_code rc = crawl_observe_run(c, &o, out, &st);
    code = exit_code(rc);
    if (rc && rc != CRAWL_CANCELLED) cli_fail(code, "%s", st.error[0] ? st.error : crawl_strerror(rc));
    if (verbosity >= 2)
      fprintf(stderr,
              "uiap-crawl: observed %lld ms: %ld deltas (%ld ops), %ld signals, %ld captures (%ld unchanged, "
              "%lld ms capturing); stopped by %s\n",
              st.elapsed_ms, st.deltas, st.ops, st.signals, st.captures, st.unchanged, st.capture_ms,
              st.stopped_by ? st.stopped_by : "?");
  }
  if (c) cdp_client_set_cancel(c, NULL); /* after SIGINT too: take our scripts out of the page */
  crawl_page_detach(attached);
  cdp_client_free(c);
  cJSON_Delete(script);
  if (out != stdout && fclose(out) != 0 && !code) code = cli_fail(7, "cannot write to %s", out_path);
  return code;
}

/* cmd_mcp.c -- `uiap-crawl mcp`: a Model Context Protocol server on stdio.
 * Reads newline-delimited JSON-RPC messages from stdin, hands each to the
 * library (crawl_mcp_handle) and writes its reply as one line to stdout;
 * logs go to stderr. Ends at end of input. The browser starts at the first
 * tool call that needs it. */
#include "cli_int.h"
#include "crawl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cli_help_mcp[] =
  "usage: uiap-crawl mcp [options]\n"
  "\n"
  "An MCP server (Model Context Protocol, JSON-RPC over stdio) with the tools\n"
  "navigate, snapshot, act, changes and crawl, behind the crawler's safety gate.\n"
  "Add it to an agent's configuration (docs/mcp.md):\n"
  "  {\"mcpServers\": {\"uiap\": {\"command\": \"uiap-crawl\", \"args\": [\"mcp\"]}}}\n"
  "\n"
  "  --mode MODE               observe_only | safe_explore (default) | sandbox_write\n"
  "  --allow-origin ORIGIN     another origin in scope besides the first URL's (repeatable)\n"
  "  --allow-read 'METHOD /path'  requests of METHOD to /path... on the app's origins are\n"
  "                            reads the guard lets through (repeatable; graphql:Name)\n"
  "  --output-root DIR         crawl packages go under DIR (default $TMPDIR, else /tmp)\n"
  "  --viewport WxH            viewport (default 1280x800)\n"
  "  --chromium PATH           Chromium binary (default: $UIAP_CHROMIUM, then PATH)\n"
  "  --connect URL             attach to a running browser (ws://... or http://HOST:PORT)\n"
  "  --headful                 show the browser window\n"
  "  --redact pii              mask e-mail addresses, phone numbers and person names\n"
  "                            in every reply and crawl (docs/safety.md)\n"
  "  --quiet, --verbose        fewer / more messages on stderr\n";

#define MCP_LINE_MAX (16u << 20) /* a longer message is refused */

typedef struct {
  crawl_mcp_opts mo;
  const char *allow[65], *reads[33];
  int nallow, nreads;
  const char *chromium, *connect;
  int headful, verbosity, width, height;
} mcp_cli;

enum { OPT_MODE = 256, OPT_ALLOW_ORIGIN, OPT_OUTPUT_ROOT, OPT_VIEWPORT, OPT_CHROMIUM, OPT_CONNECT, OPT_HEADFUL,
       OPT_QUIET, OPT_VERBOSE, OPT_REDACT, OPT_ALLOW_READ };

static const struct option longopts[] = {
  {"help", no_argument, NULL, 'h'},
  {"mode", required_argument, NULL, OPT_MODE},
  {"allow-origin", required_argument, NULL, OPT_ALLOW_ORIGIN},
  {"allow-read", required_argument, NULL, OPT_ALLOW_READ},
  {"output-root", required_argument, NULL, OPT_OUTPUT_ROOT},
  {"viewport", required_argument, NULL, OPT_VIEWPORT},
  {"chromium", required_argument, NULL, OPT_CHROMIUM},
  {"connect", required_argument, NULL, OPT_CONNECT},
  {"headful", no_argument, NULL, OPT_HEADFUL},
  {"redact", required_argument, NULL, OPT_REDACT},
  {"quiet", no_argument, NULL, OPT_QUIET},
  {"verbose", no_argument, NULL, OPT_VERBOSE},
  {NULL, 0, NULL, 0},
};

/* An option with a value: CLI_CONTINUE, or the usage exit code. */
static int mcp_value(mcp_cli *x, int c, const char *v) {
  if (c == OPT_MODE && pol_mode_parse(v, &x->mo.policy.mode) != POL_OK)
    return cli_fail(CLI_EXIT_USAGE, "--mode takes observe_only, safe_explore or sandbox_write, not %s", v);
  if (c == OPT_ALLOW_ORIGIN) {
    if (x->nallow == 64) return cli_fail(CLI_EXIT_USAGE, "at most 64 --allow-origin");
    x->allow[x->nallow++] = v;
  }
  if (c == OPT_OUTPUT_ROOT) x->mo.output_root = v;
  if (c == OPT_VIEWPORT) return cli_viewport_arg(v, &x->width, &x->height) ? CLI_EXIT_USAGE : CLI_CONTINUE;
  if (c == OPT_CHROMIUM) x->chromium = v;
  if (c == OPT_CONNECT) x->connect = v;
  return CLI_CONTINUE;
}

static int mcp_parse(int argc, char **argv, mcp_cli *x) {
  cli_getopt g;
  int c, code;
  cli_getopt_init(&g, argc, argv, "-:h", longopts);
  while ((c = cli_getopt_next(&g)) != -1) {
    switch (c) {
    case 'h': fputs(cli_help_mcp, stdout); return CLI_EXIT_OK;
    case OPT_MODE: case OPT_ALLOW_ORIGIN: case OPT_OUTPUT_ROOT: case OPT_VIEWPORT: case OPT_CHROMIUM: case OPT_CONNECT:
      if ((code = mcp_value(x, c, g.arg)) != CLI_CONTINUE) return code;
      break;
    case OPT_ALLOW_READ:
      if ((code = cli_allow_read_arg(g.arg, x->reads, &x->nreads)) != CLI_CONTINUE) return code;
      break;
    case OPT_HEADFUL: x->headful = 1; break;
    case OPT_REDACT:
      if ((code = cli_redact_arg(g.arg, &x->mo.redact_pii)) != CLI_CONTINUE) return code;
      break;
    case OPT_QUIET: x->verbosity = 0; break;
    case OPT_VERBOSE: x->verbosity++; break;
    case 1: return cli_fail(CLI_EXIT_USAGE, "mcp takes no arguments (got %s)", g.arg);
    default: return cli_bad_option(&g, c);
    }
  }
  return CLI_CONTINUE;
}

/* crawl_mcp_opts.browser: launch or attach as the other commands do. */
static int mcp_browser(void *ud, cdp_client **c, char *err, size_t errlen) {
  mcp_cli *x = ud;
  cdp_launch_opts lo = {.chromium = x->chromium, .headful = x->headful, .width = x->width, .height = x->height};
  int code = cli_browser_open(x->connect, 10000, &lo, c);
  if (code) snprintf(err, errlen, "exit code %d (the server's stderr says why)", code);
  return code;
}

/* One line in, at most one line out, until end of input. */
static int mcp_serve(crawl_mcp *m) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, stdin)) >= 0) {
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
    if (!n) continue;
    char *reply = (size_t)n > MCP_LINE_MAX
                    ? crawl__xstrdup("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"message too large\"}}")
                    : crawl_mcp_handle(m, line, (size_t)n);
    if (reply) {
      fputs(reply, stdout);
      fputc('\n', stdout);
      fflush(stdout);
      free(reply);
    }
  }
  free(line);
  return CLI_EXIT_OK;
}

int cli_cmd_mcp(int argc, char **argv) {
  mcp_cli x = {.verbosity = 1};
  int code = mcp_parse(argc, argv, &x);
  if (code != CLI_CONTINUE) return code;
  cli_log_setup(x.verbosity);
  x.allow[x.nallow] = NULL;
  x.mo.allow_origins = x.allow;
  x.reads[x.nreads] = NULL;
  x.mo.allow_reads = x.nreads ? x.reads : NULL;
  x.mo.width = x.width;
  x.mo.height = x.height;
  x.mo.version = UIAP_VERSION;
  x.mo.browser = mcp_browser;
  x.mo.browser_ud = &x;
  crawl_mcp *m = crawl_mcp_new(&x.mo);
  code = mcp_serve(m);
  crawl_mcp_free(m);
  return code;
}

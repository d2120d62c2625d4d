/* cmd_listen.c -- `uiap-crawl listen URL`: UIAP sessions over a WebSocket
 * on loopback (crawl_listen_run, docs/listen.md) until SIGINT or SIGTERM;
 * one JSON line on stdout with the address and the token. */
#include "cli_int.h"
#include "crawl_listen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cli_help_listen[] =
  "usage: uiap-crawl listen URL [--port N] [options]\n"
  "\n"
  "Serves UIAP sessions over a WebSocket on 127.0.0.1 until SIGINT/SIGTERM and\n"
  "prints one JSON line: {\"url\": \"ws://127.0.0.1:PORT/uiap?token=...\", \"token\": \"...\"}.\n"
  "A connection without the token, or with a browser Origin that is not\n"
  "loopback, is refused. A session: session.initialize, then web.state.get,\n"
  "web.observe.start/stop on URL, and uiap.discovery.plan/start/pause/resume/\n"
  "cancel/package.get (docs/listen.md). Pages are loaded with the write guard on.\n"
  "\n"
  "  --port N                  port (default: any free one)\n"
  "  --runs-dir DIR            discovery runs write DIR/<runId>/ (default: a new\n"
  "                            directory under $TMPDIR)\n"
  "  --viewport WxH            viewport size (default 1280x800)\n"
  "  --chromium PATH, --headful   as for snapshot\n"
  "  --quiet, --verbose        fewer / more messages on stderr\n";

enum { OPT_PORT = 256, OPT_RUNS_DIR, OPT_VIEWPORT, OPT_CHROMIUM, OPT_HEADFUL, OPT_QUIET, OPT_VERBOSE };

static const struct option longopts[] = {
  {"help", no_argument, NULL, 'h'},
  {"port", required_argument, NULL, OPT_PORT},
  {"runs-dir", required_argument, NULL, OPT_RUNS_DIR},
  {"viewport", required_argument, NULL, OPT_VIEWPORT},
  {"chromium", required_argument, NULL, OPT_CHROMIUM},
  {"headful", no_argument, NULL, OPT_HEADFUL},
  {"quiet", no_argument, NULL, OPT_QUIET},
  {"verbose", no_argument, NULL, OPT_VERBOSE},
  {NULL, 0, NULL, 0},
};

typedef struct {
  crawl_listen_opts o;
  const char *url_arg;
  char url[8192];
  int verbosity;
} listen_cli;

static int listen_parse(int argc, char **argv, listen_cli *x) {
  cli_getopt g;
  int c;
  long n;
  cli_getopt_init(&g, argc, argv, "-:h", longopts);
  while ((c = cli_getopt_next(&g)) != -1) {
    switch (c) {
    case 'h': fputs(cli_help_listen, stdout); return CLI_EXIT_OK;
    case OPT_PORT:
      if (cli_parse_long(g.arg, 0, 65535, &n)) return cli_fail(CLI_EXIT_USAGE, "--port takes 0..65535, not %s", g.arg);
      x->o.port = (int)n;
      break;
    case OPT_RUNS_DIR: x->o.runs_dir = g.arg; break;
    case OPT_VIEWPORT:
      if (cli_viewport_arg(g.arg, &x->o.width, &x->o.height)) return CLI_EXIT_USAGE;
      break;
    case OPT_CHROMIUM: x->o.launch.chromium = g.arg; break;
    case OPT_HEADFUL: x->o.launch.headful = 1; break;
    case OPT_QUIET: x->verbosity = 0; break;
    case OPT_VERBOSE: x->verbosity++; break;
    case 1:
      if (x->url_arg) return cli_fail(CLI_EXIT_USAGE, "listen takes one URL");
      x->url_arg = g.arg;
      break;
    default: return cli_bad_option(&g, c);
    }
  }
  if (!x->url_arg) return cli_fail(CLI_EXIT_USAGE, "listen needs a URL (see uiap-crawl listen --help)");
  int nu = cli_url_normalize(x->url_arg, x->url, sizeof x->url);
  if (nu == -1) return cli_fail(CLI_EXIT_USAGE, "unsupported URL (only http, https and file): %s", x->url_arg);
  if (nu == -2) return cli_fail(CLI_EXIT_USAGE, "not a URL and no such file: %s", x->url_arg);
  return CLI_CONTINUE;
}

static void print_ready(void *ud, const char *url, const char *token) {
  (void)ud;
  cJSON *j = cJSON_CreateObject();
  char *text = j && cJSON_AddStringToObject(j, "url", url) && cJSON_AddStringToObject(j, "token", token)
                 ? cJSON_PrintUnformatted(j) : NULL;
  if (!text) abort(); /* out of memory: the one line a client waits for cannot be said */
  printf("%s\n", text);
  fflush(stdout);
  free(text);
  cJSON_Delete(j);
}

int cli_cmd_listen(int argc, char **argv) {
  listen_cli x = {.verbosity = 1};
  int code = listen_parse(argc, argv, &x);
  if (code != CLI_CONTINUE) return code;
  cli_log_setup(x.verbosity);
  x.o.url = x.url;
  x.o.launch.width = x.o.width;
  x.o.launch.height = x.o.height;
  x.o.cancel = &cli_signal;
  x.o.on_ready = print_ready;
  char err[512];
  crawl_code rc = crawl_listen_run(&x.o, err, sizeof err);
  if (rc) return cli_fail(cli_exit_from_crawl(rc), "%s", err);
  return CLI_EXIT_OK;
}

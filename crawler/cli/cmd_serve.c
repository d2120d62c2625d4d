/* cmd_serve.c -- `uiap-crawl serve DIR`: serves DIR read-only on loopback
 * (crawl_server_start) until SIGINT or SIGTERM; the URL on stdout. */
#include "cli_int.h"
#include "crawl_serve.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char cli_help_serve[] =
  "usage: uiap-crawl serve DIR [--port N] [--host ADDR] [--spa]\n"
  "\n"
  "Serves DIR read-only until SIGINT/SIGTERM; prints the URL on stdout.\n";

enum { OPT_PORT = 256, OPT_HOST, OPT_SPA };

static const struct option longopts[] = {
  {"help", no_argument, NULL, 'h'},
  {"port", required_argument, NULL, OPT_PORT},
  {"host", required_argument, NULL, OPT_HOST},
  {"spa", no_argument, NULL, OPT_SPA},
  {NULL, 0, NULL, 0},
};

static int serve_parse(int argc, char **argv, crawl_server_opts *so) {
  cli_getopt g;
  int c;
  long n;
  cli_getopt_init(&g, argc, argv, "-:h", longopts);
  while ((c = cli_getopt_next(&g)) != -1) {
    switch (c) {
    case 'h': fputs(cli_help_serve, stdout); return CLI_EXIT_OK;
    case OPT_PORT:
      if (cli_parse_long(g.arg, 0, 65535, &n)) return cli_fail(CLI_EXIT_USAGE, "--port takes 0..65535");
      so->port = (int)n;
      break;
    case OPT_HOST: so->host = g.arg; break;
    case OPT_SPA: so->spa_fallback = 1; break;
    case 1:
      if (!strcmp(g.arg, "-")) return cli_bad_option(&g, '?'); /* not a directory name here */
      if (so->root) return cli_fail(CLI_EXIT_USAGE, "serve takes one directory");
      so->root = g.arg;
      break;
    case ':':
      if (g.missing == OPT_PORT) return cli_fail(CLI_EXIT_USAGE, "--port takes 0..65535");
      return cli_bad_option(&g, c);
    default: return cli_bad_option(&g, c);
    }
  }
  if (!so->root) return cli_fail(CLI_EXIT_USAGE, "serve needs a directory");
  return CLI_CONTINUE;
}

int cli_cmd_serve(int argc, char **argv) {
  crawl_server_opts so = {0};
  int code = serve_parse(argc, argv, &so);
  if (code != CLI_CONTINUE) return code;
  struct stat st;
  if (stat(so.root, &st) != 0 || !S_ISDIR(st.st_mode)) return cli_fail(CLI_EXIT_USAGE, "not a directory: %s", so.root);
  crawl_server *s = NULL;
  char err[256];
  if (crawl_server_start(&so, &s, err, sizeof err) != 0) return cli_fail(CLI_EXIT_INTERNAL, "%s", err);
  printf("http://%s:%d/\n", so.host ? so.host : "127.0.0.1", crawl_server_port(s));
  fflush(stdout);
  while (!cli_signal) pause();
  crawl_server_stop(s);
  return CLI_EXIT_OK;
}

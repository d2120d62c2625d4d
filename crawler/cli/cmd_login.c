/* cmd_login.c -- `uiap-crawl login URL --save-state FILE`: a visible browser
 * on URL; a person signs in (MFA included); the cookies and localStorage it
 * left are saved as a Playwright storageState (authMode "manual"), for
 * `crawl --storage-state FILE`. Done when the window is closed or, with
 * --until-url PREFIX, once the page's URL starts with PREFIX. The browser
 * is not guarded: the person's clicks are theirs. docs/sessions.md. */
#include "cli_int.h"
#include "cdp.h"
#include "crawl.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char cli_help_login[] =
  "usage: uiap-crawl login URL --save-state FILE [options]\n"
  "\n"
  "Opens a visible browser on URL; sign in there (MFA included), then close the\n"
  "window. The session (cookies, localStorage) is saved to FILE as a Playwright\n"
  "storageState (mode 0600) for `crawl --storage-state FILE`. Needs a display.\n"
  "\n"
  "  --save-state FILE   where to save the session (required)\n"
  "  --until-url PREFIX  done as soon as the page's URL starts with PREFIX\n"
  "  --timeout-ms N      give up after N ms (default 600000): nothing is saved\n"
  "  --chromium PATH     the browser binary (default: $UIAP_CHROMIUM, then PATH)\n"
  "  --quiet, --verbose  less or more on stderr\n";

enum { OPT_SAVE = 256, OPT_UNTIL, OPT_TIMEOUT, OPT_CHROMIUM, OPT_QUIET, OPT_VERBOSE };

static const struct option longopts[] = {
  {"help", no_argument, NULL, 'h'},
  {"save-state", required_argument, NULL, OPT_SAVE},
  {"until-url", required_argument, NULL, OPT_UNTIL},
  {"timeout-ms", required_argument, NULL, OPT_TIMEOUT},
  {"chromium", required_argument, NULL, OPT_CHROMIUM},
  {"quiet", no_argument, NULL, OPT_QUIET},
  {"verbose", no_argument, NULL, OPT_VERBOSE},
  {NULL, 0, NULL, 0},
};

typedef struct login_cli {
  const char *url, *save, *until, *chromium;
  char target[8192];
  long timeout_ms;
  int verbosity;
} login_cli;

static int login_parse(int argc, char **argv, login_cli *x) {
  cli_getopt g;
  int c;
  cli_getopt_init(&g, argc, argv, "-:h", longopts);
  while ((c = cli_getopt_next(&g)) != -1) {
    switch (c) {
    case 'h': fputs(cli_help_login, stdout); return CLI_EXIT_OK;
    case OPT_SAVE: x->save = g.arg; break;
    case OPT_UNTIL: x->until = g.arg; break;
    case OPT_TIMEOUT:
      if (cli_parse_long(g.arg, 1000, 86400000, &x->timeout_ms))
        return cli_fail(CLI_EXIT_USAGE, "--timeout-ms takes 1000..86400000");
      break;
    case OPT_CHROMIUM: x->chromium = g.arg; break;
    case OPT_QUIET: x->verbosity = 0; break;
    case OPT_VERBOSE: x->verbosity = 2; break;
    case 1:
      if (x->url) return cli_fail(CLI_EXIT_USAGE, "login takes one URL");
      x->url = g.arg;
      break;
    default: return cli_bad_option(&g, c);
    }
  }
  if (!x->url) return cli_fail(CLI_EXIT_USAGE, "login needs a URL (see uiap-crawl login --help)");
  if (!x->save) return cli_fail(CLI_EXIT_USAGE, "login needs --save-state FILE");
  int rc = cli_url_normalize(x->url, x->target, sizeof x->target);
  if (rc == -1) return cli_fail(CLI_EXIT_USAGE, "unsupported URL (http, https or a file): %s", x->url);
  if (rc) return cli_fail(CLI_EXIT_USAGE, "not a URL and no such file: %s", x->url);
  return CLI_CONTINUE;
}

/* A person must see the browser: no display, no login. */
static int have_display(void) {
  const char *d = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");
  return (d && *d) || (w && *w);
}

/* The sign-in as FILE (0600: it holds the session). */
static int save_state(const login_cli *x, const crawl_login_capture_out *got) {
  int e = crawl_session_state_write(got->state, x->save);
  int n = got->ncookies;
  if (e) return cli_fail(CLI_EXIT_OUTPUT, "cannot write %s: %s", x->save, strerror(e));
  if (x->verbosity > 0)
    fprintf(stderr, "uiap-crawl: saved the session (%d cookie%s) to %s\n", n, n == 1 ? "" : "s", x->save);
  return CLI_EXIT_OK;
}

/* Watch the sign-in (the library), then save or say why not. */
static int login_wait(cdp_client *c, const char *session, login_cli *x) {
  crawl_login_capture_opts o = {.until = x->until, .timeout_ms = x->timeout_ms, .cancel = &cli_signal};
  crawl_login_capture_out got;
  int code;
  switch (crawl_login_capture(c, session, &o, &got)) {
  case CRAWL_LOGIN_DONE: code = save_state(x, &got); break;
  case CRAWL_LOGIN_GONE: code = cli_fail(CLI_EXIT_BROWSER, "the browser closed before the page loaded"); break;
  case CRAWL_LOGIN_TIMEOUT:
    code = cli_fail(CLI_EXIT_TIMEOUT, "no sign-in within %ld ms; nothing saved", x->timeout_ms);
    break;
  default: code = cli_exit_signal(); break;
  }
  cJSON_Delete(got.state);
  return code;
}

int cli_cmd_login(int argc, char **argv) {
  login_cli x = {.timeout_ms = 600000, .verbosity = 1};
  int code = login_parse(argc, argv, &x);
  if (code != CLI_CONTINUE) return code;
  cli_log_setup(x.verbosity);
  if (!have_display())
    return cli_fail(CLI_EXIT_USAGE, "login needs a display to show the browser (DISPLAY is not set); sign in on "
                                    "a desktop, or write a storage state with Playwright");
  cdp_launch_opts lo = {.chromium = x.chromium, .headful = 1};
  cdp_client *c = NULL;
  if ((code = cli_browser_open(NULL, 0, &lo, &c))) return code;
  char *session = NULL, *target = NULL;
  if (cdp_open_page(c, x.target, &session, &target, 30000) != CDP_OK)
    code = cli_fail(CLI_EXIT_NAVIGATE, "cannot open %s: %s", x.target, cdp_client_errmsg(c));
  else
    code = login_wait(c, session, &x);
  free(session);
  free(target);
  cdp_client_free(c);
  return code;
}

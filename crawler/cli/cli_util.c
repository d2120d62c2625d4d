/* cli_util.c -- what the uiap-crawl commands share (cli_int.h): the error
 * line and log sink on stderr, getopt_long with exact spellings, numbers and
 * viewports, reading a file, URLs, signals, starting or attaching to the
 * browser. */
#include "cli_int.h"
#include "crawl.h"
#include "crawl_base.h"
#include "cdp.h"
#include "pg.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int cli_exit_from_crawl(crawl_code rc) {
  switch (rc) {
  case CRAWL_OK: return CLI_EXIT_OK;
  case CRAWL_NAVIGATE: return CLI_EXIT_NAVIGATE;
  case CRAWL_TIMEOUT: return CLI_EXIT_TIMEOUT;
  case CRAWL_CANCELLED: return cli_exit_signal();
  case CRAWL_CRASHED: case CRAWL_CAPTURE: return CLI_EXIT_CAPTURE;
  case CRAWL_BROWSER: return CLI_EXIT_BROWSER;
  case CRAWL_IO: return CLI_EXIT_OUTPUT;
  case CRAWL_GUARD: return CLI_EXIT_GUARD;
  case CRAWL_FRONTIER: return CLI_EXIT_FRONTIER;
  default: return CLI_EXIT_INTERNAL;
  }
}

/* ---- the command line's secrets ---------------------------------------------------- */
static crawl_secrets *cli_secret_list; /* lives until the process exits */

/* The URL an option of argv[i] carries, when it is one that names a
 * browser pool or a frontier ("--connect URL", "--frontier=URL"), with
 * *every set; else argv[i] itself. */
static const char *cli_url_arg(int argc, char **argv, int *i, int *every) {
  static const char *const whole[] = {"--connect", "--frontier"};
  *every = 0;
  for (size_t k = 0; k < sizeof whole / sizeof *whole; k++) {
    size_t n = strlen(whole[k]);
    if (strncmp(argv[*i], whole[k], n)) continue;
    if (argv[*i][n] == '=') return *every = 1, argv[*i] + n + 1;
    if (!argv[*i][n] && *i + 1 < argc) return *every = 1, argv[++*i];
  }
  return argv[*i];
}

void cli_secrets_from_argv(int argc, char **argv) {
  if (!cli_secret_list) cli_secret_list = crawl_secrets_new();
  for (int i = 0; i < argc; i++) {
    int every;
    const char *url = cli_url_arg(argc, argv, &i, &every);
    crawl_secrets_add_url(cli_secret_list, url, every);
  }
}

const crawl_secrets *cli_secrets(void) { return cli_secret_list; }

/* ---- errors and logs ---------------------------------------------------------- */
/* Error and log lines carry URLs, names and messages from pages: printed
 * through pg_text_terminal_safe, so no page can rewrite the terminal, after
 * the command line's secrets are scrubbed from the whole line. */
static void cli_print_line(const char *prefix, const char *line) {
  char *clean = crawl_secrets_scrub(cli_secret_list, line);
  char out[2048];
  snprintf(out, sizeof out, "%s", clean);
  free(clean);
  pg_text_terminal_safe(out);
  fprintf(stderr, "uiap-crawl: %s%s\n", prefix, out);
}

int cli_fail(int code, const char *fmt, ...) {
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  int n = vsnprintf(NULL, 0, fmt, again);
  va_end(again);
  char *line = crawl__xmalloc(n > 0 ? (size_t)n + 1 : 1);
  line[0] = 0;
  if (n > 0) vsnprintf(line, (size_t)n + 1, fmt, ap);
  va_end(ap);
  cli_print_line("", line);
  free(line);
  return code;
}

static void cli_log_sink(void *ud, crawl_log_level lvl, const char *component, const char *msg) {
  static const char *const names[] = {"error", "warning", "info", "debug"};
  (void)ud;
  char *line = crawl__xprintf("%s: %s: %s", names[lvl], component, msg);
  cli_print_line("", line);
  free(line);
}

void cli_log_setup(int verbosity) {
  crawl_log_set(cli_log_sink, NULL, verbosity <= 0 ? CRAWL_LOG_ERROR : (crawl_log_level)verbosity);
}

/* ---- options ---------------------------------------------------------------- */
void cli_getopt_init(cli_getopt *g, int argc, char **argv, const char *shortopts, const struct option *longopts) {
  *g = (cli_getopt){.argc = argc, .argv = argv, .shortopts = shortopts, .longopts = longopts};
  optind = 0; /* glibc: start afresh */
  opterr = 0;
}

/* An --allow-read value into list[*n] (at most 32): CLI_CONTINUE, or the
 * usage error's exit code after its one line. */
int cli_allow_read_arg(const char *v, const char **list, int *n) {
  if (!crawl_read_entry_ok(v))
    return cli_fail(CLI_EXIT_USAGE, "--allow-read takes 'METHOD /path' (POST /api/search) or graphql:Name, not %s", v);
  if (*n == 32) return cli_fail(CLI_EXIT_USAGE, "--allow-read: at most 32");
  list[(*n)++] = v;
  return CLI_CONTINUE;
}

/* el, an option as typed, names one of longopts exactly ("--name" or
 * "--name=value"), or is a lone short option ("-o"). */
static int spelled_out(const cli_getopt *g, const char *el) {
  if (strncmp(el, "--", 2)) return el[0] == '-' && el[1] && !el[2];
  size_t n = strcspn(el + 2, "=");
  for (const struct option *o = g->longopts; o && o->name; o++)
    if (strlen(o->name) == n && !strncmp(o->name, el + 2, n)) return 1;
  return 0;
}

int cli_getopt_next(cli_getopt *g) {
  if (g->ended) {
    if (optind >= g->argc) return -1;
    g->typed = g->arg = g->argv[optind++];
    return 1;
  }
  int at = optind < 1 ? 1 : optind;
  int c = getopt_long(g->argc, g->argv, g->shortopts, g->longopts, NULL);
  if (c == -1) {
    if (optind >= g->argc) return -1;
    g->ended = 1; /* "--" */
    return cli_getopt_next(g);
  }
  g->typed = at < g->argc ? g->argv[at] : "";
  g->arg = optarg;
  if (c == 1) return 1;
  if (c == ':') g->missing = optopt;
  if (c != '?' && !spelled_out(g, g->typed)) return '?';
  return c;
}

int cli_bad_option(const cli_getopt *g, int c) {
  if (c == ':') return cli_fail(CLI_EXIT_USAGE, "%s needs a value", g->typed);
  return cli_fail(CLI_EXIT_USAGE, "unknown option %s (see uiap-crawl %s --help)", g->typed, g->argv[0]);
}

int cli_redact_arg(const char *v, int *pii) {
  if (!v || strcmp(v, "pii")) return cli_fail(CLI_EXIT_USAGE, "--redact takes pii, not %s", v ? v : "");
  *pii = 1;
  return CLI_CONTINUE;
}

int cli_parse_long(const char *s, long min, long max, long *out) {
  if (!s || !*s) return -1;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || v < min || v > max) return -1;
  *out = v;
  return 0;
}

int cli_viewport_arg(const char *v, int *w, int *h) {
  int x, y;
  char extra;
  if (sscanf(v, "%dx%d%c", &x, &y, &extra) != 2 || x < 100 || y < 100 || x > 10000 || y > 10000)
    return cli_fail(CLI_EXIT_USAGE, "--viewport takes WxH (100..10000), not %s", v);
  *w = x;
  *h = y;
  return 0;
}

/* ---- input ------------------------------------------------------------------ */
int cli_read_all(FILE *f, size_t stop_after, char **text, size_t *len) {
  char *t = NULL;
  size_t n = 0, cap = 0, k;
  char buf[65536];
  int rc = 0;
  while ((k = fread(buf, 1, sizeof buf, f)) > 0) {
    if (n + k + 1 > cap) {
      char *q = realloc(t, cap = (n + k + 1) * 2);
      if (!q) {
        rc = -1;
        break;
      }
      t = q;
    }
    memcpy(t + n, buf, k);
    n += k;
    if (n > stop_after) break;
  }
  *text = t;
  *len = n;
  return rc;
}

/* A command's URL operand: http(s) and file URLs as they are; any other
 * scheme (pg_url_scheme: javascript:, data:, mailto:, ftp://...) -1, unless
 * it names an existing file; a path to an existing file as a file:// URL;
 * else -2. */
int cli_url_normalize(const char *in, char *out, size_t outlen) {
  char scheme[16];
  int sl = pg_url_scheme(in, scheme, sizeof scheme);
  if (sl > 0 && (!strcmp(scheme, "http") || !strcmp(scheme, "https") || !strcmp(scheme, "file"))) {
    snprintf(out, outlen, "%s", in);
    return 0;
  }
  char real[PATH_MAX];
  struct stat st;
  if (realpath(in, real) && stat(real, &st) == 0 && S_ISREG(st.st_mode)) { /* "a:b.html" is a file */
    snprintf(out, outlen, "file://%s", real);
    return 0;
  }
  return sl > 0 ? -1 : -2;
}

/* ---- signals ------------------------------------------------------------------ */
volatile sig_atomic_t cli_signal;

static void on_signal(int sig) { cli_signal = sig; }

void cli_signals_install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal; /* no SA_RESTART: poll() returns EINTR */
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
}

int cli_exit_signal(void) { return cli_signal == SIGTERM ? CLI_EXIT_TERMINATED : CLI_EXIT_INTERRUPTED; }

/* ---- the browser -------------------------------------------------------------- */
int cli_browser_open(const char *connect, int connect_ms, const cdp_launch_opts *lo, cdp_client **c) {
  char err[1024] = "";
  cdp_code cr;
  *c = NULL;
  if (connect) {
    cr = cdp_connect(connect, connect_ms, c, err, sizeof err);
    if (cr) return cli_fail(cr == CDP_ARG ? CLI_EXIT_USAGE : CLI_EXIT_CONNECT, "%s", err);
  } else {
    crawl_log(CRAWL_LOG_INFO, "browser", "starting Chromium %s",
              cdp_launch_sandboxed(lo) ? "with its sandbox"
                                       : "with --no-sandbox (running as root, where the sandbox cannot start)");
    cr = cdp_launch(lo, c, err, sizeof err);
    if (cr == CDP_CANCELLED) return cli_exit_signal();
    if (cr) return cli_fail(CLI_EXIT_BROWSER, "%s", err);
  }
  cdp_client_set_cancel(*c, &cli_signal);
  return CLI_EXIT_OK;
}

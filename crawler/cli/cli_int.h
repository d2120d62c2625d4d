/* cli_int.h -- the private header of the uiap-crawl command line
 * (crawler/cli): the exit codes, the command functions main.c's table
 * dispatches to, and the helpers they share (cli_util.c): the one-line error,
 * the log sink, option parsing over getopt_long, URLs, signals, the browser.
 * Everything else comes from the libraries' public headers.
 * Never included by the library or outside crawler/cli. */
#ifndef UIAP_CLI_INT_H
#define UIAP_CLI_INT_H

#include "crawl_base.h"
#include "crawl_common.h"

#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>

/* ---- exit codes ------------------------------------------------------------
 * The one list: name, number, the words `uiap-crawl --help` prints, and the
 * meaning docs/exit-codes.md gives (its table holds these rows, in order). */
#define CLI_EXIT_MAP(X)                                                                                  \
  X(OK, 0, "ok", "success (a crawl stopped by a budget is a success: see `coverage.stoppedBy`)")         \
  X(INTERNAL, 1, "internal error", "internal error")                                                     \
  X(USAGE, 2, "usage", "usage: unknown flag, bad value, unsupported URL, malformed or invalid plan")      \
  X(BROWSER, 3, "Chromium missing or failed",                                                            \
    "Chromium missing, not executable, or failed to start (`crawl`: also a browser that died mid-run "    \
    "and could not be restarted: the package of what was found is written)")                              \
  X(NAVIGATE, 4, "URL unreachable",                                                                      \
    "the URL could not be loaded (DNS, refused connection, TLS, an off-origin redirect the write guard " \
    "blocked, ...); `crawl`: no seed could be loaded (the package is still written, each seed a "        \
    "`coverage_gap` review item)")                                                                       \
  X(TIMEOUT, 5, "timeout", "timeout (`snapshot`: the main document did not answer within `--timeout-ms`)") \
  X(CONNECT, 6, "--connect failed",                                                                      \
    "`--connect` failed (`crawl`: also a browser pool that stayed at its concurrency limit, HTTP 429 or " \
    "503, past `--connect-timeout-ms`, and a connection lost mid-run that could not be made again or "   \
    "dropped more often than `--max-reconnects` allows: the package of what was found is written)")       \
  X(OUTPUT, 7, "output not writable",                                                                    \
    "output not writable, or the output directory holds another run (use `--force`)")                    \
  X(CAPTURE, 8, "capture failed", "capture failed (the page crashed)")                                   \
  X(REGRESSION, 9, "diff: regression",                                                                   \
    "`diff --fail-on-regression`: a route, element or action disappeared, or a high-severity review "    \
    "item appeared")                                                                                     \
  X(REVIEW, 10, "crawl --fail-on: review items",                                                         \
    "`crawl --fail-on low\\|medium\\|high`: the package has review items of that severity or worse "     \
    "(checked after the package is written)")                                                            \
  X(INVALID, 11, "validate: invalid",                                                                    \
    "`validate`: the document does not conform to the schema (the errors, with their JSON paths, are "   \
    "on stdout)")                                                                                        \
  X(GUARD, 12, "write guard not installed",                                                              \
    "the write guard could not be installed on a target of the page (a frame, worker or popup): the run " \
    "stops rather than go on unguarded (a crawl still writes its package, status `failed`)")              \
  X(FRONTIER, 13, "shared frontier failed",                                                              \
    "`crawl --frontier`: the shared frontier (Redis) could not be reached, or stopped answering during "  \
    "the run (a crawl still writes its package with what it found)")                                      \
  X(BASELINE, 14, "crawl --baseline: unusable",                                                          \
    "`crawl --baseline DIR`: DIR is no usable crawl directory (no journal, no run record first, a "      \
    "malformed line or record, a state file missing, outside DIR or no PageGraph); nothing is written")   \
  X(INTERRUPTED, 130, "SIGINT", "interrupted by SIGINT (a crawl still writes its package, status `cancelled`)") \
  X(TERMINATED, 143, "SIGTERM", "terminated by SIGTERM (likewise)")

typedef enum {
#define CLI__EXIT_ENUM(name, number, brief, meaning) CLI_EXIT_##name = number,
  CLI_EXIT_MAP(CLI__EXIT_ENUM)
#undef CLI__EXIT_ENUM
} cli_exit;

/* Not an exit code: a step's "go on" (a command's parse or setup step
 * returns it, or the exit code to stop with). */
#define CLI_CONTINUE (-1)

/* The exit code for a library result: CRAWL_CANCELLED by the signal that
 * came (cli_exit_signal), CRAWL_IO the output's, anything unknown internal. */
int cli_exit_from_crawl(crawl_code rc);

/* ---- commands: argv[0] is the command name; each returns the exit code ---- */
int cli_cmd_snapshot(int argc, char **argv);
int cli_cmd_crawl(int argc, char **argv);
int cli_cmd_serve(int argc, char **argv);
int cli_cmd_report(int argc, char **argv);
int cli_cmd_diff(int argc, char **argv);
int cli_cmd_validate(int argc, char **argv);
int cli_cmd_observe(int argc, char **argv);
int cli_cmd_listen(int argc, char **argv);
int cli_cmd_login(int argc, char **argv);
int cli_cmd_merge(int argc, char **argv);
int cli_cmd_mcp(int argc, char **argv);

#define UIAP_VERSION "0.1.0"

/* Their --help texts (`uiap-crawl help COMMAND`), beside each command. */
extern const char cli_help_snapshot[], cli_help_crawl[], cli_help_serve[], cli_help_report[],
  cli_help_diff[], cli_help_validate[], cli_help_observe[], cli_help_listen[], cli_help_login[], cli_help_merge[],
  cli_help_mcp[];

/* ---- errors and logs on stderr ---------------------------------------------- */
/* "uiap-crawl: <message>" on stderr; returns code (the exit code). */
int cli_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The secrets of the command line (docs/safety.md): the credentials of
 * every argument that is a URL (crawl_secrets_add_url) -- of a --connect
 * or --frontier value every query value too. Taken once, before the
 * command runs (main.c); cli_fail and the log sink print no spelling of
 * them, and a run adds them to its own list (crawl_opts.secrets). */
void cli_secrets_from_argv(int argc, char **argv);
const crawl_secrets *cli_secrets(void);

/* The library's log lines on stderr ("uiap-crawl: LEVEL: COMPONENT: MESSAGE")
 * for verbosity 0 (quiet: errors only), 1 (warnings, the default), 2
 * (--verbose: info) or 3 and up (debug). */
void cli_log_setup(int verbosity);

/* ---- options ------------------------------------------------------------------ */
/* getopt_long over a command's argv, in order: operands come back as 1
 * where they stand, so options and operands mix as they always did. Exact
 * spellings only, as before getopt_long: an abbreviated long option, or a
 * short one clustered or with its value attached ("-ho", "-oFILE"), is '?'
 * like an unknown one. "--opt=value" works as "--opt value"; "--" ends the
 * options (the rest are operands). The state is global (getopt's): one
 * parse at a time. */
typedef struct cli_getopt {
  int argc;
  char **argv;
  const char *shortopts;        /* must start "-:" (in order; ':' for a missing value) */
  const struct option *longopts;
  const char *arg;              /* the option's value, or the operand */
  const char *typed;            /* the argv element as typed (for messages) */
  int missing;                  /* ':' returned: the option's val */
  int ended;                    /* "--" passed */
} cli_getopt;

void cli_getopt_init(cli_getopt *g, int argc, char **argv, const char *shortopts, const struct option *longopts);
/* The next option's val, 1 (an operand in g->arg), '?' (unknown), ':' (no
 * value; g->missing tells whose), or -1 at the end. */
int cli_getopt_next(cli_getopt *g);
/* For '?' and ':': the usage error line ("unknown option X (see uiap-crawl
 * CMD --help)", "X needs a value"); returns CLI_EXIT_USAGE. */
int cli_bad_option(const cli_getopt *g, int c);

/* --redact WHAT: "pii" sets *pii (docs/safety.md); else the usage error
 * line and CLI_EXIT_USAGE. CLI_CONTINUE on success. */
int cli_redact_arg(const char *v, int *pii);
int cli_allow_read_arg(const char *v, const char **list, int *n);

/* A whole decimal number in min..max: 0 and *out, or -1 (*out untouched). */
int cli_parse_long(const char *s, long min, long max, long *out);

/* --viewport WxH, each 100..10000: 0 with *w and *h set, or the usage exit
 * code after the error line. */
int cli_viewport_arg(const char *v, int *w, int *h);

/* ---- input ------------------------------------------------------------------ */
/* f read to its end into *text (caller frees; room for a NUL at (*len), not
 * written) and *len, stopping once more than stop_after bytes are in. 0, or
 * -1 when memory ran out: *text then holds what was read until then (NULL
 * when nothing was). An empty file leaves *text NULL. */
int cli_read_all(FILE *f, size_t stop_after, char **text, size_t *len);

/* in as a URL to load: http(s):// and file:// as they are, a local file as
 * file://REALPATH. 0 with out set, -1 another scheme (unsupported), -2 not
 * a URL and no such file. */
int cli_url_normalize(const char *in, char *out, size_t outlen);

/* ---- a signed-in session (cli_session.c; docs/sessions.md) ------------------- */
/* --storage-state FILE, --cookies FILE, --header 'Name: value' into *s:
 * CLI_CONTINUE, or the exit code (CLI_EXIT_USAGE) after one line that names
 * the file and the place in it, never a value. */
typedef enum { CLI_SESSION_STATE, CLI_SESSION_COOKIES, CLI_SESSION_HEADER } cli_session_kind;
struct crawl_session;
/* The plan's principals (crawl_principals_parse; pick may be NULL: all),
 * each storageState file loaded into its session. CLI_CONTINUE or the
 * usage exit code after one line. */
struct cJSON;
struct crawl_principal;
int cli_principals(const struct cJSON *plan, const char *const *pick, struct crawl_principal **v, size_t *n);
int cli_session_arg(struct crawl_session *s, cli_session_kind kind, const char *v);
/* --user-data-dir DIR: a directory, or nothing yet (Chromium makes it):
 * CLI_CONTINUE, or CLI_EXIT_USAGE after the line. */
int cli_user_data_dir_arg(const char *dir);
/* The options' help lines, for crawl and snapshot. */
#define CLI_SESSION_HELP                                                                  \
  "  --storage-state FILE      sign in with a Playwright storageState (cookies, localStorage)\n" \
  "  --cookies FILE            sign in with a Netscape cookies.txt (curl, browser exports)\n" \
  "  --header 'Name: value'    send this header to the app's origins only (repeatable)\n" \
  "  --user-data-dir DIR       use (and keep) this browser profile instead of a fresh one\n" \
  "                            (their values never appear in the output: docs/sessions.md)\n"

/* ---- crawl --workers N (cli_workers.c) ------------------------------------------ */
/* N workers of this binary (exe) on one run (crawl_workers_run), each
 * crawling the seed urls with the crawl command's own options (argv, parsed
 * with longopts; its output, --workers, --progress, --fail-on, --quiet,
 * --verbose, --force are its own) into OUT/workers/wK, then the package
 * merged into out. CRAWL_OK with the merged counts in *sum (sum->error:
 * workers that failed, one line) and how the workers ended in *end (code:
 * a CLI_EXIT_*, or 0 when the verdict is the merged package's); CRAWL_FRONTIER
 * when redis-server does not start. cli_signal goes on to the workers. */
struct crawl_summary;
struct crawl_progress;
struct crawl_workers_result;
typedef struct cli_workers {
  int n;
  const char *out, *exe, *run_id;
  int argc;
  char **argv;
  const struct option *longopts;
  const char *const *urls;
  int nurls;
  int verbose;                /* --verbose: the workers log in detail, and their time splits are told */
  /* while the workers run, every 500 ms: the run's counts (status,
     states, transitions, elapsed_ms) from the shared frontier; may be NULL */
  void (*progress)(void *ud, const struct crawl_progress *p);
  void *progress_ud;
} cli_workers;
int cli_workers_run(const cli_workers *w, struct crawl_summary *sum, struct crawl_workers_result *end);

/* ---- signals ------------------------------------------------------------------ */
/* The signal that came (SIGINT, SIGTERM), 0 before; the browser's and the
 * crawl's cancel flag. cli_signals_install: the handlers (no SA_RESTART, so
 * poll() returns EINTR) and SIGPIPE ignored. */
extern volatile sig_atomic_t cli_signal;
void cli_signals_install(void);
/* CLI_EXIT_TERMINATED after SIGTERM, else CLI_EXIT_INTERRUPTED. */
int cli_exit_signal(void);

/* ---- the browser ------------------------------------------------------------ */
struct cdp_client;
struct cdp_launch_opts;
/* Attach to connect (within connect_ms) when set, else launch one with lo;
 * its cancel flag is cli_signal. 0 with *c set, or the exit code: after the
 * error line (CLI_EXIT_USAGE for a bad endpoint, CLI_EXIT_CONNECT,
 * CLI_EXIT_BROWSER), or without one when a signal stopped the launch. */
int cli_browser_open(const char *connect, int connect_ms, const struct cdp_launch_opts *lo,
                     struct cdp_client **c);

#endif

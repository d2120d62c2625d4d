/* main.c -- the uiap-crawl command line: the command table, dispatch,
 * `help` and `version`. Each command is a file of its own (cmd_*.c) that
 * parses its options and calls the library; stdout carries data, stderr
 * one-line errors and logs. The exit codes are CLI_EXIT_MAP (cli_int.h,
 * docs/exit-codes.md). */
#include "cli_int.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <string.h>

typedef struct {
  const char *name;
  int (*run)(int argc, char **argv); /* argv[0]: the command name */
  const char *args;                  /* what follows the name in the list */
  const char *summary;               /* one line (or a wrapped one) */
  const char *help;                  /* `uiap-crawl help NAME`; NULL: the list */
} cli_command;

static int cli_cmd_help(int argc, char **argv);
static int cli_cmd_version(int argc, char **argv);

static const cli_command commands[] = {
  {"snapshot", cli_cmd_snapshot, "URL", "print the PageGraph of one page (UIAP Web Profile 0.1)", cli_help_snapshot},
  {"crawl", cli_cmd_crawl, "URL|DIR", "explore an app safely and write a Discovery Package", cli_help_crawl},
  {"serve", cli_cmd_serve, "DIR", "serve a directory read-only on loopback (for tests and demos)", cli_help_serve},
  {"report", cli_cmd_report, "DIR",
   "rebuild DIR/package.json and write report.html, graph.dot,\n"
   "                   review.sarif and junit.xml beside it", cli_help_report},
  {"merge", cli_cmd_merge, "DIR...", "merge the crawl directories of one run's workers (-o OUT)",
   cli_help_merge},
  {"diff", cli_cmd_diff, "OLD NEW", "compare two packages (--fail-on-regression: exit 9)", cli_help_diff},
  {"validate", cli_cmd_validate, "FILE", "check a package, PageGraph or message against the UIAP schema",
   cli_help_validate},
  {"observe", cli_cmd_observe, "URL", "print snapshots, deltas and signals as the page changes (JSON Lines)",
   cli_help_observe},
  {"listen", cli_cmd_listen, "URL", "serve UIAP sessions over a WebSocket on loopback (web profile, discovery)",
   cli_help_listen},
  {"login", cli_cmd_login, "URL", "sign in by hand in a visible browser; save the session (--save-state)",
   cli_help_login},
  {"mcp", cli_cmd_mcp, "", "an MCP server on stdio: navigate, snapshot, act, changes, crawl\n"
   "                   behind the safety gate (docs/mcp.md)", cli_help_mcp},
  {"help", cli_cmd_help, "[COMMAND]", "show help", NULL},
  {"version", cli_cmd_version, "", "print the version", NULL},
};

/* other spellings of a command */
static const struct { const char *alias, *name; } aliases[] = {
  {"--help", "help"}, {"-h", "help"}, {"--version", "version"},
};

static const cli_command *command_find(const char *name) {
  for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
    if (!strcmp(name, aliases[i].alias)) name = aliases[i].name;
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    if (!strcmp(name, commands[i].name)) return &commands[i];
  return NULL;
}

/* "exit codes: 0 ok, 1 internal error, ..." from CLI_EXIT_MAP, wrapped at 79. */
static void usage_exit_codes(FILE *f) {
  static const struct { int code; const char *brief; } codes[] = {
#define CLI__EXIT_BRIEF(name, number, brief, meaning) {number, brief},
    CLI_EXIT_MAP(CLI__EXIT_BRIEF)
#undef CLI__EXIT_BRIEF
  };
  size_t n = sizeof codes / sizeof *codes;
  int col = fprintf(f, "exit codes:");
  for (size_t i = 0; i < n; i++) {
    char item[96];
    int len = snprintf(item, sizeof item, "%d %s%s", codes[i].code, codes[i].brief, i + 1 < n ? "," : "");
    if (i > 0 && col + 1 + len > 79) col = fprintf(f, "\n ") - 1;
    col += fprintf(f, " %s", item);
  }
  fputc('\n', f);
}

static void usage(FILE *f) {
  fputs("usage: uiap-crawl <command> [options]\n\ncommands:\n", f);
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
    char synopsis[64];
    snprintf(synopsis, sizeof synopsis, "%s%s%s", commands[i].name, commands[i].args[0] ? " " : "", commands[i].args);
    fprintf(f, "  %-16s %s\n", synopsis, commands[i].summary);
  }
  fputc('\n', f);
  usage_exit_codes(f);
}

/* help [COMMAND]: the command's help text, else the list (exit 0 either way). */
static int cli_cmd_help(int argc, char **argv) {
  const cli_command *cmd = argc > 1 ? command_find(argv[1]) : NULL;
  if (cmd && cmd->help) fputs(cmd->help, stdout);
  else usage(stdout);
  return CLI_EXIT_OK;
}

static int cli_cmd_version(int argc, char **argv) {
  (void)argc;
  (void)argv;
  printf("uiap-crawl %s\n", UIAP_VERSION);
  return CLI_EXIT_OK;
}

int main(int argc, char **argv) {
#ifdef __GLIBC__
  /* Buffers of 128 KB and more (a capture's reply, a state file's text)
   * come from their own mappings and go back to the system when freed.
   * glibc's default raises this threshold after the first such free, and
   * the heap then keeps every freed reply resident: the package build of a
   * 1,000-state run peaked 12 MB higher (docs/measurements-memory.md). */
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
  cli_signals_install();
  if (argc < 2) {
    usage(stderr);
    return CLI_EXIT_USAGE;
  }
  cli_secrets_from_argv(argc - 1, argv + 1); /* before any line is printed */
  const cli_command *cmd = command_find(argv[1]);
  if (!cmd) return cli_fail(CLI_EXIT_USAGE, "unknown command %s (see uiap-crawl --help)", argv[1]);
  return cmd->run(argc - 1, argv + 1);
}

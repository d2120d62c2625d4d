/* cli_extra.h -- the `report`, `diff` and `validate` commands of uiap-crawl.
 * Each parses its options, calls the library (crawl.h) and prints; main.c
 * dispatches to them. argv excludes the program and command names, as for
 * main.c's cmd_* functions. Each returns the process exit code. */
#ifndef UIAP_CLI_EXTRA_H
#define UIAP_CLI_EXTRA_H

/* Exit codes beyond main.c's 0..8 (docs/exit-codes.md). */
enum {
  UIAP_EXIT_REGRESSION = 9,   /* diff --fail-on-regression found one */
  UIAP_EXIT_REVIEW = 10,      /* crawl --fail-on: review items of that severity or worse */
  UIAP_EXIT_INVALID = 11,     /* validate: the document does not conform */
};

int uiap_cmd_report(int argc, char **argv);
int uiap_cmd_diff(int argc, char **argv);
int uiap_cmd_validate(int argc, char **argv);

/* --help texts, for `uiap-crawl help COMMAND`. */
extern const char uiap_usage_report[];
extern const char uiap_usage_diff[];
extern const char uiap_usage_validate[];

#endif

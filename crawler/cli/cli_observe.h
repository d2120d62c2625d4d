/* cli_observe.h -- the `observe` command of uiap-crawl (cli_observe.c): it
 * parses its options and calls crawl_observe_run (crawl.h); main.c
 * dispatches to it. argv excludes the program and command names. Returns
 * the process exit code (docs/observe.md). */
#ifndef UIAP_CLI_OBSERVE_H
#define UIAP_CLI_OBSERVE_H

int uiap_cmd_observe(int argc, char **argv);

/* --help text, for `uiap-crawl help observe`. */
extern const char uiap_usage_observe[];

#endif

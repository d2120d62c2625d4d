/* support.h -- shared helpers for the test suites: run the CLI, read files,
 * start the fixture server, validate against the spec schema. */
#ifndef UIAP_TEST_SUPPORT_H
#define UIAP_TEST_SUPPORT_H

#include <stddef.h>
#include <cjson/cJSON.h>

typedef struct {
  int status;        /* exit code, or 128+signal */
  char *out;         /* captured stdout (NUL-terminated) */
  char *err;         /* captured stderr */
  long long ms;      /* wall time */
} t_run;

/* Run argv (argv[0] = program path) with a hard timeout; never hangs. */
t_run t_run_argv(const char *const *argv, int timeout_ms);
void t_run_free(t_run *r);

/* Read a whole file; NULL if missing. Caller frees. */
char *t_read_file(const char *path, size_t *len);
/* Write a string to a file; 0 ok. */
int t_write_file(const char *path, const char *s);

/* Validate a JSON file against a definition of shared/spec/schema.json.
 * Returns 0 when valid; otherwise fills msg with the validator's output. */
int t_validate(const char *definition, const char *path, char *msg, size_t msglen);

/* The fixture server: tests/fixtures served on two loopback ports (started
 * once per process, stopped at exit). */
int t_fixture_port(int which /* 0 or 1 */);
/* "http://127.0.0.1:PORT/path" for port 0/1; host may be "localhost". */
const char *t_fixture_url(int which, const char *host, const char *path);

/* Count processes whose command line contains needle (e.g. a profile dir). */
int t_count_procs(const char *needle);

#endif

/* support.h -- shared helpers for the test suites: run the CLI, read files,
 * start the fixture server (with the test endpoints of test_server.c), find
 * the outside references (UIAP_SHARED), validate against the spec schema. */
#ifndef UIAP_TEST_SUPPORT_H
#define UIAP_TEST_SUPPORT_H

#include <stddef.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

#include "crawl_serve.h"

typedef struct {
  int status;        /* exit code, or 128+signal */
  char *out;         /* captured stdout (NUL-terminated) */
  char *err;         /* captured stderr */
  long long ms;      /* wall time */
} t_run;

/* Run argv (argv[0] = program path) with a hard timeout; never hangs. */
t_run t_run_argv(const char *const *argv, int timeout_ms);
/* `uiap-crawl ARGS...` (args NULL-ended, at most 30) with t_run_argv. */
t_run t_run_cli(const char *const *args, int timeout_ms);
void t_run_free(t_run *r);

/* Read a whole file; NULL if missing. Caller frees. */
char *t_read_file(const char *path, size_t *len);
/* Write a string to a file; 0 ok. */
int t_write_file(const char *path, const char *s);

/* Outside references: the read-only shared/ folder next to the project
 * (the spec and its ajv validator, the web-platform-tests corpus, the SARIF
 * schema). Its place is the environment variable UIAP_SHARED at run time,
 * else the build's default (the UIAP_SHARED define, tests/CMakeLists.txt).
 *
 * t_shared: the absolute path of UIAP_SHARED/rel when it exists. When it
 * does not, under CI=true the test fails ("UIAP_SHARED (DIR) has no rel: CI
 * needs the shared references"); otherwise the test is skipped ("needs
 * DIR/rel (set UIAP_SHARED)"). For a test that is about the reference.
 * t_shared_check: the same path, or NULL after a line on stderr ("SUITE::TEST:
 * CHECK skipped: needs DIR/rel (set UIAP_SHARED)") when it is missing
 * (CI=true: the test fails as above). For one check inside a test that
 * asserts other things too: the caller skips that check.
 * The strings live until the process exits. */
const char *t_shared(const char *rel);
const char *t_shared_check(const char *rel, const char *check);

/* Validate a JSON file against a definition of the spec's schema.json with
 * the spec's ajv validator (UIAP_SHARED/spec/validate). Returns 0 when
 * valid; otherwise fills msg with the validator's output. Without the
 * validator the check is skipped (returns 0, msg says so), as
 * t_shared_check says. */
int t_validate(const char *definition, const char *path, char *msg, size_t msglen);

/* The test endpoints (test_server.c: /__test/redirect, status, slow, hang,
 * download, headers, echo, and POST sinks under /__test/ and /danger/), a
 * crawl_server_handler; ud is unused. */
int t_test_endpoints(void *ud, const crawl_request *req, crawl_response *res);

/* The fixture sign-in app under /auth/ (auth_app.c, called by
 * t_test_endpoints): 1 when it answered. T_AUTH_TOKEN: the X-Test-Token
 * value that signs a request in as a viewer. */
#define T_AUTH_TOKEN "tok-viewer-5be2c7d1"
int t_auth_app(const crawl_request *req, crawl_response *res);
/* /__test/signup and /__test/signup/log (test_signup.c): 1 when it answered. */
int t_signup(const crawl_request *req, crawl_response *res);
/* The server-rendered address book under /book/ (addrbook_app.c, called by
 * t_test_endpoints): 1 when it answered. T_ADDRBOOK_TOKEN: the
 * X-Addrbook-Token value that signs a request in without a cookie. */
#define T_ADDRBOOK_TOKEN "tok-book-81c0d2e4"
int t_addrbook_app(const crawl_request *req, crawl_response *res);

/* The fixture server: tests/fixtures served on two loopback ports with the
 * test endpoints (started once per process, stopped at exit). */
int t_fixture_port(int which /* 0 or 1 */);
/* "http://127.0.0.1:PORT/path" for port 0/1; host may be "localhost". */
const char *t_fixture_url(int which, const char *host, const char *path);
/* DIR/plan.json: a DiscoveryPlanPayload whose environment is {environmentId,
 * baseUrl (fixture port 0), ENV_EXTRA} and whose one seed is the url
 * seed_path; its path (static). Asserts the write. */
const char *t_plan_write(const char *dir, const char *env_extra, const char *seed_path);

/* Serve any directory (read-only, loopback) with the project's own server:
 * started on first use per root, stopped at exit. Returns the port, or -1
 * (with a message on stderr) when it cannot start. */
int t_serve_root(const char *root);

/* The body of GET path from fixture server which (0/1), or NULL. Caller frees. */
char *t_fixture_get(int which, const char *path);
/* 1 under CI=true, where a test that lacks a tool fails instead of skipping. */
int t_ci_required(void);

/* Requests both fixture servers saw whose path starts with prefix. */
long t_fixture_hits(const char *prefix);

/* Every request both fixture servers counted so far, by "METHOD path"
 * (GET /__hits of each, summed): {"POST /danger/x": 2, ...}. Caller frees;
 * fails the test when a server does not answer. */
cJSON *t_fixture_hit_table(void);
/* The requests under prefix that the fixture servers counted since before
 * (a t_fixture_hit_table taken earlier; NULL: since the start): their
 * number, and in buf (when not NULL) a list such as "POST /danger/a,
 * 2x GET /danger/b" ("none" when there are none). */
long t_fixture_hits_since(const cJSON *before, const char *prefix, char *buf, size_t buflen);

/* Count processes whose command line contains needle (e.g. a profile dir). */
int t_count_procs(const char *needle);
/* What a run left behind in its TMPDIR tmp: files there plus processes
 * naming it, once they stay (polled for up to 1 s: a renderer the browser
 * reaped a moment after the run exited is not left behind). */
int t_leftovers(const char *tmp);

#endif

/* Run `uiap-crawl snapshot URL args...` with TMPDIR set to a fresh directory,
 * validate the output against PageGraph, and return the parsed graph (NULL
 * when the run failed; *run keeps the exit code and stderr). After the run,
 * asserts that no Chromium from it is left and its temp dir is empty
 * (leftover != 0 otherwise). */
cJSON *t_snapshot(t_run *run, int *leftover, const char *url, const char *const *args);
/* First element with role and name (NULL: any), or NULL. */
const cJSON *t_element(const cJSON *graph, const char *role, const char *name);
/* 1 if the boolean state key is true. -1 absent. */
int t_state(const cJSON *el, const char *key);
/* 1 if the string array member `key` of obj contains v. */
int t_has(const cJSON *obj, const char *key, const char *v);
/* A fresh temporary directory (caller frees). */
char *t_tmpdir(void);
/* Files left in dir (not counting . and ..). */
int t_dir_entries(const char *dir);

/* Every regular file below dir (links not followed) that holds one of the
 * NULL-terminated needles, byte for byte: the number of (needle, file)
 * pairs found, and in buf (when not NULL) a list such as
 * "\"s3cret\" in package.json, states/s_1.json; \"pin\" in report.html". */
int t_tree_grep(const char *dir, const char *const *needles, char *buf, size_t buflen);

/* Remove dir and everything below it (links not followed). */
void t_rm_rf(const char *dir);
/* Copy a file; fails the test when it cannot. */
void t_copy_file(const char *from, const char *to);
/* A fresh crawl directory (t_tmpdir) holding tests/fixtures/journals/NAME's
 * journal, or the text `journal` when not NULL, and the state files
 * states/s1..s3.json. Caller t_rm_rf's and frees it. */
char *t_journal_dir(const char *name, const char *journal);
/* How many `"type":"TYPE"` records out_dir/journal.jsonl holds (0 when none
 * or no file). */
int t_journal_lines(const char *out_dir, const char *type);
/* out_dir/journal.jsonl's records of a type, parsed, in order (an array,
 * empty when none or no file; caller cJSON_Delete's). */
cJSON *t_journal_records(const char *out_dir, const char *type);
/* dir/rel parsed; NULL when it is missing or no JSON. */
cJSON *t_json_at(const char *dir, const char *rel);

/* Start Chromium as argv says (argv[0] the binary, looked up on PATH when it
 * has no slash; argv should hold --remote-debugging-port=0 and
 * --user-data-dir=profile): stdio on /dev/null, its own process group,
 * killed when the test process dies. *pid is set at once (for the caller's
 * teardown); then waits up to 30 s for profile/DevToolsActivePort and reads
 * *port and, when ws_path is not NULL (256 bytes), the browser's path
 * (/devtools/browser/ID). Fails the test when Chromium exits or writes no
 * port in time. */
void t_chromium_start(const char *const *argv, const char *profile, pid_t *pid, int *port, char *ws_path);
/* A headless Chromium of the test's own on --remote-debugging-port=0 with
 * a fresh profile /tmp/uiap-test-TAG-XXXXXX (UIAP_CHROMIUM, else
 * "chromium"); stop kills its process group and removes the profile. */
typedef struct { pid_t pid; char profile[256]; int port; } t_browser;
void t_browser_start(t_browser *b, const char *tag);
void t_browser_stop(t_browser *b);

/* Wait up to ms for pid to exit (*status); 0 when it did not (then it is
 * SIGKILLed and reaped, so no test leaves it behind). */
int t_wait_exit(pid_t pid, int ms, int *status);
/* The package at path, parsed, with an expectation that it validates as a
 * DiscoveryPackage; NULL when it is missing or no JSON. */
cJSON *t_package_read(const char *path);
/* 1 when the package's review queue has an item of kind whose description
 * holds needle. */
int t_review_mentions(const cJSON *pkg, const char *kind, const char *needle);

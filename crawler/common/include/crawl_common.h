/* crawl_common.h -- what every crawler library shares in its public API:
 * the log sink (library code never prints; the CLI installs a callback),
 * the crawler's error codes, the secret list a run and its log lines keep
 * out of every output, and the UIAP message envelope. Included by crawl.h,
 * crawl_pkg.h, crawl_serve.h.
 */
#ifndef UIAP_CRAWL_COMMON_H
#define UIAP_CRAWL_COMMON_H

#include <stddef.h>
#include <cjson/cJSON.h>

/* ---- logging ------------------------------------------------------------ */
typedef enum { CRAWL_LOG_ERROR, CRAWL_LOG_WARN, CRAWL_LOG_INFO, CRAWL_LOG_DEBUG } crawl_log_level;
typedef void (*crawl_log_fn)(void *ud, crawl_log_level lvl, const char *component, const char *msg);
void crawl_log_set(crawl_log_fn fn, void *ud, crawl_log_level max);
/* 1 when a sink takes lines of level lvl (--verbose: CRAWL_LOG_INFO). */
int crawl_log_enabled(crawl_log_level lvl);
void crawl_log(crawl_log_level lvl, const char *component, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));

/* ---- errors --------------------------------------------------------------- */
#define CRAWL_ERRNO_MAP(X)                                         \
  X(OK,        "ok")                                                \
  X(NOMEM,     "out of memory")                                     \
  X(ARG,       "invalid argument")                                  \
  X(BROWSER,   "browser error")                                     \
  X(NAVIGATE,  "navigation failed")                                 \
  X(TIMEOUT,   "timed out")                                         \
  X(CRASHED,   "the page crashed")                                  \
  X(CANCELLED, "cancelled")                                         \
  X(CAPTURE,   "capture failed")                                    \
  X(IO,        "file error")                                          \
  X(GUARD,     "the write guard could not be installed")            \
  X(FRONTIER,  "the shared frontier failed")                       \
  X(BASELINE,  "the baseline directory cannot be used")
typedef enum {
#define CRAWL__ENUM(name, msg) CRAWL_##name,
  CRAWL_ERRNO_MAP(CRAWL__ENUM)
#undef CRAWL__ENUM
  CRAWL__ECOUNT
} crawl_code;
const char *crawl_strerror(crawl_code c);

/* ---- secrets (secrets.c; docs/safety.md) ---------------------------------- */
/* Values no output and no log line may spell, in any of their spellings (as
 * written, URL-encoded, ...): what crawl_opts.secrets and
 * crawl_page_opts.secrets take. Opaque; free with crawl_secrets_free (NULL:
 * nothing). */
typedef struct crawl__secrets crawl_secrets;
crawl_secrets *crawl_secrets_new(void);
void crawl_secrets_free(crawl_secrets *s);
/* The credentials of url, a URL the user gave: the password of its userinfo
 * (or the whole userinfo when it has no ':'), the values of query and
 * fragment parameters whose key names a credential (token, secret, ...),
 * and with every_query every query value (a --connect or --frontier URL).
 * Returns the values added; not a URL: 0. */
int crawl_secrets_add_url(crawl_secrets *s, const char *url, int every_query);
/* text with every secret of s replaced by "[redacted]": a new string (caller
 * frees), also when nothing matched; NULL for NULL; s NULL: a copy. */
char *crawl_secrets_scrub(const crawl_secrets *s, const char *text);
/* While set, every line crawl_log formats passes through s before it
 * reaches the sink (process-wide, like the sink); clear it (NULL) before s
 * is freed. */
void crawl_log_secrets(const crawl_secrets *s);

/* ---- the journal (journal.c; docs/journal.md) ------------------------------ */
/* The run record DIR/journal.jsonl starts with, into *run (caller frees):
 * CRAWL_OK; CRAWL_IO when there is no journal to read; CRAWL_ARG when it
 * does not start with a well-formed run record (*run NULL). */
crawl_code crawl_journal_run_record(const char *dir, cJSON **run);

/* ---- the UIAP message envelope (envelope.c; core-decisions.md) ------------ */
typedef struct crawl_msg {
  const char *kind;           /* request | response | event | error; NULL: "event" */
  const char *type;           /* e.g. "web.state.snapshot" (required) */
  const char *id;             /* message id (required) */
  const char *correlation_id; /* NULL: none */
  const char *session_id;     /* NULL: none */
  const char *source_id;      /* source.id; NULL: "uiap-crawl" (source.role is "runtime") */
} crawl_msg;
/* A new envelope {uiap, kind, type, id, correlationId?, sessionId?, ts,
 * source, payload} owning payload (NULL: an empty object). Caller frees with
 * cJSON_Delete. Out of memory aborts. */
cJSON *crawl_envelope(const crawl_msg *m, cJSON *payload);

#endif

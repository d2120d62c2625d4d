/* crawl.h -- the crawler module's public API: capture a PageGraph over CDP,
 * the snapshot job, and the built-in static file server.
 *
 * Library code never prints: messages go through crawl_log_set().
 */
#ifndef UIAP_CRAWL_H
#define UIAP_CRAWL_H

#include <stddef.h>
#include <cjson/cJSON.h>

#include "cdp.h"
#include "pg.h"

/* ---- logging ------------------------------------------------------------ */
typedef enum { CRAWL_LOG_ERROR, CRAWL_LOG_WARN, CRAWL_LOG_INFO, CRAWL_LOG_DEBUG } crawl_log_level;
typedef void (*crawl_log_fn)(void *ud, crawl_log_level lvl, const char *component, const char *msg);
void crawl_log_set(crawl_log_fn fn, void *ud, crawl_log_level max);
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
  X(IO,        "file error")
typedef enum {
#define CRAWL__ENUM(name, msg) CRAWL_##name,
  CRAWL_ERRNO_MAP(CRAWL__ENUM)
#undef CRAWL__ENUM
  CRAWL__ECOUNT
} crawl_code;
const char *crawl_strerror(crawl_code c);

/* ---- one page (tab) ------------------------------------------------------- */
/* A page owns one CDP session on one tab: navigation, settling (network and
 * DOM quiet, with a hard cap), JavaScript dialogs dismissed, popups noted,
 * and capture of a PageGraph in a constant number of round trips. */
typedef struct crawl_page crawl_page;
typedef struct crawl_page_opts {
  int width, height;          /* viewport; 0: 1280x800 */
  int nav_timeout_ms;         /* 0: 30000; the load event, after which we capture anyway */
  int settle_quiet_ms;        /* 0: 250; no network, no DOM mutation for this long */
  int settle_max_ms;          /* 0: 5000; hard cap on settling */
  int call_timeout_ms;        /* 0: 30000; any single CDP call */
  size_t ax_full_limit;       /* snapshot nodes above which AX is fetched only for
                                 candidates in view; 0: 20000 */
} crawl_page_opts;

crawl_code crawl_page_open(cdp_client *c, const crawl_page_opts *o, crawl_page **out);
/* Navigate and wait for load (bounded) and settle. */
crawl_code crawl_page_goto(crawl_page *p, const char *url);
/* Wait for network and DOM quiet, at most settle_max_ms. Returns CRAWL_OK
 * also when the cap was hit (crawl_page_settled() tells). */
crawl_code crawl_page_settle(crawl_page *p);
int crawl_page_settled(const crawl_page *p);
/* Capture the current state into a new graph (caller frees). */
crawl_code crawl_page_capture(crawl_page *p, const pg_options *o, pg_graph **out);
const char *crawl_page_errmsg(const crawl_page *p);
const char *crawl_page_session(const crawl_page *p);
cdp_client *crawl_page_client(const crawl_page *p);
/* JavaScript dialogs dismissed and popups closed since the page opened. */
int crawl_page_dialogs(const crawl_page *p);
int crawl_page_popups(const crawl_page *p);
void crawl_page_close(crawl_page *p);

/* ---- static file server ------------------------------------------------- */
/* Serves a directory read-only on loopback from a background thread.
 * Every request (any method) is counted per "METHOD path"; GET /__hits returns
 * the counts as JSON {"total":N,"requests":{"GET /a.html":1,...}}, GET
 * /__reset zeroes them. Paths never escape root. Unknown extension-less paths
 * fall back to /index.html when spa_fallback is set (client-side routing). */
typedef struct crawl_server crawl_server;
typedef struct crawl_server_opts {
  const char *root;        /* directory to serve (required) */
  const char *host;        /* bind address; NULL: 127.0.0.1 */
  int port;                /* 0: any free port */
  int spa_fallback;        /* 1: see above */
  int test_endpoints;      /* 1: enable /__test/... helpers (tests only) */
} crawl_server_opts;

/* Start serving. On error returns -1 and writes a one-line reason to err. */
int crawl_server_start(const crawl_server_opts *o, crawl_server **out, char *err, size_t errlen);
int crawl_server_port(const crawl_server *s);
/* Total requests whose path starts with prefix (NULL: all), any method. */
long crawl_server_hits(crawl_server *s, const char *prefix);
/* Stop the thread, close sockets, free. NULL is a no-op. */
void crawl_server_stop(crawl_server *s);

#endif

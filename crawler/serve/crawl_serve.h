/* crawl_serve.h -- the built-in static file server (loopback, read-only),
 * used by `uiap-crawl serve`, by `crawl DIR`, and by the tests.
 */
#ifndef UIAP_CRAWL_SERVE_H
#define UIAP_CRAWL_SERVE_H

#include <stddef.h>

#include "crawl_common.h"

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

/* crawl_serve.h -- the built-in static file server (loopback, read-only),
 * used by `uiap-crawl serve`, by `crawl DIR`, and by the tests.
 */
#ifndef UIAP_CRAWL_SERVE_H
#define UIAP_CRAWL_SERVE_H

#include <stddef.h>

#include "crawl_common.h"

/* ---- static file server ------------------------------------------------- */
/* Serves a directory read-only on loopback from a background thread: GET and
 * HEAD of files under root (other methods: 405). Paths never escape root.
 * Unknown extension-less paths fall back to /index.html when spa_fallback is
 * set (client-side routing).
 *
 * Hit counters: every request (any method) is counted per "METHOD path"
 * (path as sent, query dropped); crawl_server_hits reads them. With
 * crawl_server_opts.test_hooks (the tests' servers only, never `serve` or
 * `crawl DIR`: every path requested is nobody else's business), GET /__hits
 * returns the counts as JSON {"total":N,"requests":{"GET /a.html":1,...}},
 * GET /__reset zeroes them, and neither is counted; without it they are
 * paths like any other (404). At most CRAWL_SERVER_HIT_PATHS distinct keys are kept:
 * once that many are known, requests for new ones count under the single key
 * "other" (in "total" too), so a long-running server stays bounded. */
#define CRAWL_SERVER_HIT_PATHS 4096

typedef struct crawl_server crawl_server;

/* A request as an extension handler sees it (valid during the call only).
 * The server has already read the body and kept its first
 * CRAWL_SERVER_BODY_KEEP bytes. */
#define CRAWL_SERVER_BODY_KEEP 16384
typedef struct crawl_request {
  const char *method;      /* "GET", "HEAD", "POST", ... */
  const char *path;        /* as sent: percent-encoded, no query; starts with '/' */
  const char *query;       /* after '?', still encoded; "" when none */
  long long body_len;      /* length of the body */
  const char *headers;     /* the header lines as sent ("Name: v\r\n"...); read
                              them with crawl_request_header */
  const char *body;        /* its first body_kept bytes, NUL-terminated ("" when none) */
  size_t body_kept;
} crawl_request;

/* The reply a handler builds with the crawl_response_* calls below. It
 * starts as 200 with an empty body; the server owns it and copies what it
 * is given. HEAD replies get no body, whatever the handler set. */
typedef struct crawl_response crawl_response;

/* An extension: called on the server thread for every request (any method,
 * after counting, before the file lookup), except the test hooks.
 * Returns 1 when it answered (res is sent), 0 to let the server serve the
 * file as usual (res is dropped). It must not block: use
 * crawl_response_delay for a late reply. */
typedef int (*crawl_server_handler)(void *ud, const crawl_request *req, crawl_response *res);

typedef struct crawl_server_opts {
  const char *root;        /* directory to serve (required) */
  const char *host;        /* bind address; NULL: 127.0.0.1 */
  int port;                /* 0: any free port */
  int spa_fallback;        /* 1: see above */
  int test_hooks;          /* 1: answer GET /__hits and /__reset (tests only) */
  crawl_server_handler handler;  /* NULL: files only */
  void *handler_ud;        /* passed to handler */
  int head_timeout_ms;     /* a request head begun must be complete within
                              this, else the connection is closed (slowloris);
                              0: 10000. Idle keep-alive connections close
                              after 120 s. */
} crawl_server_opts;

/* Requests whose Host header names anything but 127.0.0.1, localhost,
 * [::1] or the bind address (any port) get 421 Misdirected Request: a web
 * page on a name that resolves to this machine (DNS rebinding) cannot read
 * the served folder through the user's browser. */

/* Start serving. On error returns -1 and writes a one-line reason to err. */
int crawl_server_start(const crawl_server_opts *o, crawl_server **out, char *err, size_t errlen);
int crawl_server_port(const crawl_server *s);
/* Requests whose counted path starts with prefix, any method; NULL: all,
 * the "other" bucket included (a prefix never matches that bucket). */
long crawl_server_hits(crawl_server *s, const char *prefix);
/* Stop the thread, close sockets, free. NULL is a no-op. */
void crawl_server_stop(crawl_server *s);

/* ---- for handlers ------------------------------------------------------- */

/* The decoded value of query parameter name ('+' is a space), "" when it
 * has no '='; NULL when absent or badly encoded. Caller frees. */
char *crawl_request_param(const crawl_request *req, const char *name);

/* The value of request header name (any case; the first one, spaces
 * around it dropped); NULL when absent. Caller frees. */
char *crawl_request_header(const crawl_request *req, const char *name);

/* Set the status (200..599). Returns -1 (nothing changed) when out of range. */
int crawl_response_status(crawl_response *res, int code);
/* Set the body (copied; replaces an earlier one) and its Content-Type
 * (NULL: none). 204 and 304 replies send no body. Returns -1 (nothing
 * changed) when type holds CR or LF. */
int crawl_response_body(crawl_response *res, const char *type, const void *body, size_t len);
/* Add a header line "name: value". Returns -1 (nothing added) when name is
 * not a token, value holds CR or LF, or name is one the server sets itself
 * (Content-Length, Content-Type, Connection, Transfer-Encoding). */
int crawl_response_header(crawl_response *res, const char *name, const char *value);
/* Answer with the file at path (decoded, starting with '/') under root, by
 * the rules of a GET (403/404 when it is outside root, missing, or a
 * directory without its slash), with the headers added; status and body
 * are ignored. Returns -1 when path does not start with '/'. */
int crawl_response_file(crawl_response *res, const char *path);
/* Send the reply ms milliseconds later (capped at 60 s); other clients are
 * served meanwhile. */
void crawl_response_delay(crawl_response *res, int ms);
/* Never answer: the connection stays open, its input discarded, until the
 * client closes it or the server stops. */
void crawl_response_hang(crawl_response *res);

#endif

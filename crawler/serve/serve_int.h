/* serve_int.h -- the private header of the static server (crawler/serve):
 * its limits, the server and connection state every file of the folder
 * reads, a parsed request, and the functions one file offers another:
 *   serve.c          the server: listen, the poll() thread, connections
 *                    (read head, discard body, wait, send), start and stop
 *   serve_http.c     HTTP/1.1 on a connection: the request head parsed and
 *                    checked, responses queued, each request routed
 *   serve_files.c    the served folder: paths resolved inside root, file
 *                    responses and their MIME types, the SPA fallback
 *   serve_handler.c  the embedder's handler: crawl_request_* to read a
 *                    request, crawl_response_* to build the answer
 *   serve_hits.c     the per-"METHOD path" hit counters (the one shared
 *                    state: one mutex)
 * Never included outside crawler/serve. */
#ifndef UIAP_SERVE_INT_H
#define UIAP_SERVE_INT_H

#include "crawl_serve.h"
#include "crawl_util.h"

#include <pthread.h>
#include <stddef.h>

#define SERVE_HEAD_MAX   (16 * 1024)        /* request line + headers */
#define SERVE_BODY_MAX   (8 * 1024 * 1024)  /* bodies are read and discarded */
#define SERVE_CHUNK      (64 * 1024)        /* file read / recv size */
#define SERVE_MAX_CONNS  512                /* beyond this, new clients are closed */
#define SERVE_DELAY_MAX  60000              /* cap for crawl_response_delay */
#define SERVE_LINGER_MS  2000               /* drain time after a closing reply */
#define SERVE_HEAD_MS    10000              /* default: a started request head must be complete by then */
#define SERVE_IDLE_MS    120000             /* an idle keep-alive connection is closed then */

/* ---- server and connection state ---------------------------------------- */

typedef enum {
  SERVE_C_HEAD,   /* reading the request head */
  SERVE_C_BODY,   /* discarding body_left more bytes, then dispatch */
  SERVE_C_WAIT,   /* response ready, held until wake_at (crawl_response_delay) */
  SERVE_C_SEND,   /* writing the response */
  SERVE_C_HANG,   /* never answers (crawl_response_hang); closed when the
                     client goes away */
  SERVE_C_LINGER, /* answered and shut down for writing: drain input until
                     the client closes or wake_at, so unread request bytes
                     don't make the kernel reset the response away */
} serve_cstate;

typedef struct serve_conn {
  int fd;
  serve_cstate st;
  char *in;                 /* SERVE_HEAD_MAX bytes: unparsed input */
  size_t inlen;
  /* the current request */
  char method[16];
  char *target;             /* raw request target, owned */
  char *headers;            /* the header lines as sent, owned */
  crawl__buf body;          /* its first CRAWL_SERVER_BODY_KEEP bytes */
  int keepalive;
  long long body_left;
  long long body_len;
  /* the response */
  crawl__buf out;
  size_t outoff;
  int file_fd;              /* -1: none; else body continues from this file */
  long long file_left;
  long long wake_at;        /* WAIT / LINGER deadline (monotonic ms) */
  long long head_at;        /* HEAD: when its first byte came (0: none yet) */
  long long idle_at;        /* HEAD: when the connection last went idle */
  const char *bind_host;    /* the server's bind address (for the Host check) */
  int head_ms;              /* the server's head timeout */
} serve_conn;

typedef struct {
  char *key;                /* "METHOD /path" */
  size_t plen;              /* offset of the path in key */
  long n;
} serve_hit;

struct crawl_server {
  int lfd;
  int wake[2];              /* self-pipe: a byte on wake[1] stops the loop */
  int port;
  char *root;               /* realpath of the root directory */
  char *host;               /* bind address */
  int head_ms;              /* head timeout */
  size_t rootlen;
  int spa_fallback;
  int test_hooks;               /* crawl_server_opts.test_hooks */
  crawl_server_handler handler;
  void *handler_ud;
  pthread_t thread;
  serve_conn **conns;
  size_t nconns, capconns;
  /* Hit counters, shared with callers of crawl_server_hits. A flat list of
   * at most CRAWL_SERVER_HIT_PATHS keys (fixture sites have tens to hundreds
   * of distinct URLs); later new keys count in other. */
  pthread_mutex_t mu;
  serve_hit *hits;
  size_t nhits, caphits;
  long other;
  long total;
};

/* A parsed request (crawl_request is the public view of it). */
typedef struct {
  const char *method;
  const char *path;         /* raw path, no query (what is counted) */
  const char *query;        /* after '?', "" if none */
  int head;                 /* HEAD: send no body */
  long long body_len;
} serve_req;

/* ---- serve_hits.c: the hit counters (they take s->mu) -------------------- */
void serve__hit_count(crawl_server *s, const char *method, const char *path);
void serve__hit_reset(crawl_server *s);
/* The counters as JSON text; caller frees. */
char *serve__hit_json(crawl_server *s);

/* ---- serve_http.c: requests and responses ------------------------------- */
/* Percent-decode n bytes of src into a new string (plus_space: '+' is ' ',
 * as in query strings). Returns NULL on a malformed escape or a NUL byte. */
char *serve__pct_decode(const char *src, size_t n, int plus_space);
/* Queue a response head. body_len is the Content-Length; extra is a block of
 * complete header lines ("Name: v\r\n"...) or NULL. */
void serve__head(serve_conn *c, int code, const char *type, long long body_len, const char *extra);
/* Queue a whole response with an in-memory body (r NULL: not a HEAD). */
void serve__respond(serve_conn *c, const serve_req *r, int code, const char *type, const char *body,
                    size_t len, const char *extra);
/* A short text/plain response ("404 Not Found\n"). */
void serve__error(serve_conn *c, const serve_req *r, int code);
/* Answer an unparseable request and close after sending. */
void serve__reject(serve_conn *c, int code);
/* Parse the head in c->in[0..hlen) (hlen includes the blank line). Fills the
 * request fields or queues an error response. Returns 0 when the request is
 * good. */
int serve__parse_head(serve_conn *c, size_t hlen);
/* Route one complete request (head parsed, body discarded). */
void serve__dispatch(crawl_server *s, serve_conn *c);

/* ---- serve_files.c: the served folder ----------------------------------- */
/* GET/HEAD of a decoded path under root, with the SPA fallback for
 * extension-less paths; a directory named without its slash is redirected
 * when redirect_dirs is set, else 404. extra: header lines or NULL. */
void serve__static(crawl_server *s, serve_conn *c, const serve_req *r, const char *dpath, const char *extra,
                   int redirect_dirs);

/* ---- serve_handler.c: the embedder's handler ---------------------------- */
/* Offer the request to s->handler. Returns 1 when it answered. */
int serve__handle(crawl_server *s, serve_conn *c, const serve_req *r);

#endif

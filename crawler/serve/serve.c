/* serve.c -- the built-in static file server (crawl_server_*): serves a
 * directory read-only over HTTP/1.1 from one background thread, counts every
 * request per "METHOD path" (a bounded table), and lets an embedder's handler
 * (crawl_server_opts.handler) answer a request before the file lookup: the
 * tests' endpoints live in tests/support/test_server.c, not here.
 *
 * One thread runs a poll() loop over the listening socket, a self-pipe (so
 * crawl_server_stop wakes it at once) and every client connection. Sockets are
 * non-blocking; each connection is a small state machine (read head, discard
 * body, wait, send), so one slow or silent client never delays another.
 * Files are read from disk in 64 KiB chunks as the socket accepts them.
 *
 * Only the hit counters are shared with other threads; one mutex guards them.
 */
#include <cjson/cJSON.h>

#include "crawl_serve.h"
#include "crawl_util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SERVE_HEAD_MAX   (16 * 1024)        /* request line + headers */
#define SERVE_BODY_MAX   (8 * 1024 * 1024)  /* bodies are read and discarded */
#define SERVE_CHUNK      (64 * 1024)        /* file read / recv size */
#define SERVE_MAX_CONNS  512                /* beyond this, new clients are closed */
#define SERVE_DELAY_MAX  60000              /* cap for crawl_response_delay */
#define SERVE_LINGER_MS  2000               /* drain time after a closing reply */
#define SERVE_HEAD_MS    10000              /* default: a started request head must be complete by then */
#define SERVE_IDLE_MS    120000             /* an idle keep-alive connection is closed then */

/* ---- small helpers ------------------------------------------------------ */

/* Allocation, the buffer and the clock are crawler/common's (crawl_util.h):
 * out of memory aborts there. */

static char *serve_xstrndup(const char *s, size_t n)
{
  char *d = crawl__xrealloc(NULL, n + 1);
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

/* ---- tables ------------------------------------------------------------- */

static const struct {
  const char *ext;    /* lower case, with the dot */
  const char *type;
} serve_types[] = {
  { ".html",  "text/html; charset=utf-8" },
  { ".htm",   "text/html; charset=utf-8" },
  { ".js",    "text/javascript; charset=utf-8" },
  { ".mjs",   "text/javascript; charset=utf-8" },
  { ".css",   "text/css; charset=utf-8" },
  { ".json",  "application/json" },
  { ".map",   "application/json" },
  { ".svg",   "image/svg+xml" },
  { ".png",   "image/png" },
  { ".jpg",   "image/jpeg" },
  { ".jpeg",  "image/jpeg" },
  { ".gif",   "image/gif" },
  { ".webp",  "image/webp" },
  { ".ico",   "image/x-icon" },
  { ".txt",   "text/plain; charset=utf-8" },
  { ".woff2", "font/woff2" },
  { ".wasm",  "application/wasm" },
};

static const char *serve_content_type(const char *path)
{
  const char *slash = strrchr(path, '/');
  const char *dot = strrchr(slash ? slash : path, '.');
  if (dot)
    for (size_t i = 0; i < sizeof serve_types / sizeof serve_types[0]; i++)
      if (strcasecmp(dot, serve_types[i].ext) == 0)
        return serve_types[i].type;
  return "application/octet-stream";
}

static const struct {
  int code;
  const char *reason;
} serve_reasons[] = {
  { 200, "OK" }, { 201, "Created" }, { 204, "No Content" },
  { 301, "Moved Permanently" }, { 302, "Found" }, { 303, "See Other" },
  { 304, "Not Modified" }, { 307, "Temporary Redirect" }, { 308, "Permanent Redirect" },
  { 400, "Bad Request" }, { 401, "Unauthorized" }, { 403, "Forbidden" },
  { 404, "Not Found" }, { 405, "Method Not Allowed" }, { 410, "Gone" },
  { 411, "Length Required" }, { 413, "Content Too Large" }, { 418, "I'm a teapot" },
  { 421, "Misdirected Request" },
  { 429, "Too Many Requests" }, { 431, "Request Header Fields Too Large" },
  { 500, "Internal Server Error" }, { 501, "Not Implemented" }, { 502, "Bad Gateway" },
  { 503, "Service Unavailable" }, { 504, "Gateway Timeout" },
};

static const char *serve_reason(int code)
{
  for (size_t i = 0; i < sizeof serve_reasons / sizeof serve_reasons[0]; i++)
    if (serve_reasons[i].code == code)
      return serve_reasons[i].reason;
  return "Status";
}

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

/* ---- hit counters ------------------------------------------------------- */

static void serve_hit_count(crawl_server *s, const char *method, const char *path)
{
  size_t mlen = strlen(method), plen = strlen(path);
  pthread_mutex_lock(&s->mu);
  s->total++;
  for (size_t i = 0; i < s->nhits; i++) {
    serve_hit *h = &s->hits[i];
    if (h->plen == mlen + 1 && memcmp(h->key, method, mlen) == 0 &&
        strcmp(h->key + h->plen, path) == 0) {
      h->n++;
      pthread_mutex_unlock(&s->mu);
      return;
    }
  }
  if (s->nhits == CRAWL_SERVER_HIT_PATHS) {
    s->other++;
    pthread_mutex_unlock(&s->mu);
    return;
  }
  if (s->nhits == s->caphits) {
    s->caphits = s->caphits ? s->caphits * 2 : 32;
    s->hits = crawl__xrealloc(s->hits, s->caphits * sizeof *s->hits);
  }
  serve_hit *h = &s->hits[s->nhits++];
  h->key = crawl__xrealloc(NULL, mlen + 1 + plen + 1);
  memcpy(h->key, method, mlen);
  h->key[mlen] = ' ';
  memcpy(h->key + mlen + 1, path, plen + 1);
  h->plen = mlen + 1;
  h->n = 1;
  pthread_mutex_unlock(&s->mu);
}

static void serve_hit_reset(crawl_server *s)
{
  pthread_mutex_lock(&s->mu);
  for (size_t i = 0; i < s->nhits; i++)
    free(s->hits[i].key);
  s->nhits = 0;
  s->other = 0;
  s->total = 0;
  pthread_mutex_unlock(&s->mu);
}

/* The counters as JSON text; caller frees. */
static char *serve_hit_json(crawl_server *s)
{
  cJSON *root = cJSON_CreateObject(), *reqs = cJSON_CreateObject();
  if (!root || !reqs) {
    fprintf(stderr, "%s:%d: out of memory\n", __FILE__, __LINE__);
    abort();
  }
  pthread_mutex_lock(&s->mu);
  cJSON_AddNumberToObject(root, "total", (double)s->total);
  for (size_t i = 0; i < s->nhits; i++)
    cJSON_AddNumberToObject(reqs, s->hits[i].key, (double)s->hits[i].n);
  /* no real key collides: they all hold a space */
  if (s->other)
    cJSON_AddNumberToObject(reqs, "other", (double)s->other);
  pthread_mutex_unlock(&s->mu);
  cJSON_AddItemToObject(root, "requests", reqs);
  char *txt = cJSON_PrintUnformatted(root);
  cJSON_Delete(root);
  if (!txt) {
    fprintf(stderr, "%s:%d: out of memory\n", __FILE__, __LINE__);
    abort();
  }
  return txt;
}

long crawl_server_hits(crawl_server *s, const char *prefix)
{
  if (!s)
    return 0;
  size_t pl = prefix ? strlen(prefix) : 0;
  long n = 0;
  pthread_mutex_lock(&s->mu);
  if (!prefix)
    n = s->total;
  else
    for (size_t i = 0; i < s->nhits; i++)
      if (strncmp(s->hits[i].key + s->hits[i].plen, prefix, pl) == 0)
        n += s->hits[i].n;
  pthread_mutex_unlock(&s->mu);
  return n;
}

/* ---- URL pieces --------------------------------------------------------- */

static int serve_hexval(int c)
{
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Percent-decode n bytes of src into a new string (plus_space: '+' is ' ',
 * as in query strings). Returns NULL on a malformed escape or a NUL byte. */
static char *serve_pct_decode(const char *src, size_t n, int plus_space)
{
  char *d = crawl__xrealloc(NULL, n + 1), *o = d;
  for (size_t i = 0; i < n; i++) {
    int c = (unsigned char)src[i];
    if (c == '%') {
      if (i + 2 >= n) {
        free(d);
        return NULL;
      }
      int h = serve_hexval((unsigned char)src[i + 1]), l = serve_hexval((unsigned char)src[i + 2]);
      if (h < 0 || l < 0) {
        free(d);
        return NULL;
      }
      c = h * 16 + l;
      i += 2;
    } else if (c == '+' && plus_space) {
      c = ' ';
    }
    if (c == 0) {
      free(d);
      return NULL;
    }
    *o++ = (char)c;
  }
  *o = '\0';
  return d;
}

/* The decoded value of query parameter name, or NULL; caller frees. */
static char *serve_query_param(const char *query, const char *name)
{
  size_t nl = strlen(name);
  const char *p = query;
  while (p && *p) {
    const char *end = strchr(p, '&');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len > nl && strncmp(p, name, nl) == 0 && p[nl] == '=')
      return serve_pct_decode(p + nl + 1, len - nl - 1, 1);
    if (len == nl && strncmp(p, name, nl) == 0)
      return serve_xstrndup("", 0);
    p = end ? end + 1 : NULL;
  }
  return NULL;
}

/* Header values taken from the URL must not split the response. */
static int serve_header_safe(const char *v)
{
  for (; *v; v++)
    if (*v == '\r' || *v == '\n')
      return 0;
  return 1;
}

/* ---- responses ---------------------------------------------------------- */

/* A parsed request (crawl_request is the public view of it). */
typedef struct {
  const char *method;
  const char *path;         /* raw path, no query (what is counted) */
  const char *query;        /* after '?', "" if none */
  int head;                 /* HEAD: send no body */
  long long body_len;
} serve_req;

static void serve_conn_close_file(serve_conn *c)
{
  if (c->file_fd >= 0)
    close(c->file_fd);
  c->file_fd = -1;
  c->file_left = 0;
}

/* Queue a response head. body_len is the Content-Length; extra is a block of
 * complete header lines ("Name: v\r\n"...) or NULL. */
static void serve_head(serve_conn *c, int code, const char *type, long long body_len,
                       const char *extra)
{
  crawl__buf_printf(&c->out, "HTTP/1.1 %d %s\r\n", code, serve_reason(code));
  if (type)
    crawl__buf_printf(&c->out, "Content-Type: %s\r\n", type);
  if (code != 204 && code != 304 && !(code >= 100 && code < 200))
    crawl__buf_printf(&c->out, "Content-Length: %lld\r\n", body_len);
  crawl__buf_printf(&c->out, "Cache-Control: no-store\r\nConnection: %s\r\n",
                   c->keepalive ? "keep-alive" : "close");
  if (extra)
    crawl__buf_put(&c->out, extra, strlen(extra));
  crawl__buf_put(&c->out, "\r\n", 2);
  c->st = SERVE_C_SEND;
}

/* Queue a whole response with an in-memory body. */
static void serve_respond(serve_conn *c, const serve_req *r, int code, const char *type,
                          const char *body, size_t len, const char *extra)
{
  int nobody = code == 204 || code == 304 || (code >= 100 && code < 200);
  if (nobody)
    len = 0;
  serve_head(c, code, nobody ? NULL : type, (long long)len, extra);
  if (!(r && r->head) && len)
    crawl__buf_put(&c->out, body, len);
}

/* A short text/plain response ("404 Not Found\n"). */
static void serve_error(serve_conn *c, const serve_req *r, int code)
{
  char msg[128];
  int n = snprintf(msg, sizeof msg, "%d %s\n", code, serve_reason(code));
  serve_respond(c, r, code, "text/plain; charset=utf-8", msg, (size_t)n,
                code == 405 ? "Allow: GET, HEAD\r\n" : NULL);
}

/* Resolve a decoded URL path to a regular file inside root. Returns 0 and a
 * malloc'd real path in *out, or an HTTP status: 404 missing, 403 outside
 * root or not a regular file, 301 a directory named without its slash. */
static int serve_resolve(crawl_server *s, const char *dpath, char **out)
{
  *out = NULL;
  /* No ".." segment, whatever the encoding was. */
  for (const char *p = dpath; *p;) {
    const char *e = strchr(p, '/');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n == 2 && p[0] == '.' && p[1] == '.')
      return 403;
    p = e ? e + 1 : p + n;
  }
  size_t dl = strlen(dpath);
  int dir_wanted = dl == 0 || dpath[dl - 1] == '/';
  char *fs = crawl__xrealloc(NULL, s->rootlen + dl + sizeof "/index.html");
  memcpy(fs, s->root, s->rootlen);
  memcpy(fs + s->rootlen, dpath, dl + 1);
  if (dir_wanted)
    strcat(fs, "index.html");
  /* realpath follows every symlink, so the prefix check sees where the
   * file really is. */
  char *real = realpath(fs, NULL);
  int err = errno;
  free(fs);
  if (!real)
    return err == EACCES ? 403 : 404;
  struct stat st;
  int code = 0;
  if (strncmp(real, s->root, s->rootlen) != 0 ||
      (real[s->rootlen] != '/' && real[s->rootlen] != '\0'))
    code = 403;
  else if (stat(real, &st) != 0)
    code = 404;
  else if (S_ISDIR(st.st_mode))
    code = dir_wanted ? 404 : 301;
  else if (!S_ISREG(st.st_mode))
    code = 403;
  if (code) {
    free(real);
    return code;
  }
  *out = real;
  return 0;
}

/* Serve the file at real path fs, with optional extra header lines. */
static void serve_file(serve_conn *c, const serve_req *r, const char *fs, const char *extra)
{
  int fd = open(fs, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (fd >= 0)
      close(fd);
    serve_error(c, r, 404);
    return;
  }
  serve_head(c, 200, serve_content_type(fs), (long long)st.st_size, extra);
  if (r->head || st.st_size == 0) {
    close(fd);
    return;
  }
  c->file_fd = fd;
  c->file_left = (long long)st.st_size;
}

/* GET/HEAD of a path under root, with the SPA fallback for extension-less
 * paths. A directory named without its slash is redirected to it when
 * redirect_dirs is set (a URL the client asked for), else it is 404. */
static void serve_static(crawl_server *s, serve_conn *c, const serve_req *r,
                         const char *dpath, const char *extra, int redirect_dirs)
{
  char *fs = NULL;
  int code = serve_resolve(s, dpath, &fs);
  if (code == 404 && s->spa_fallback) {
    const char *last = strrchr(dpath, '/');
    if (!strchr(last ? last + 1 : dpath, '.'))
      code = serve_resolve(s, "/index.html", &fs);
  }
  if (code == 301 && !redirect_dirs)
    code = 404;
  if (code == 301) {
    /* "/docs" is a directory: send the client to "/docs/" so that relative
     * links inside its index.html resolve against the directory. */
    crawl__buf loc = { 0 };
    crawl__buf_printf(&loc, "Location: %s/%s%s\r\n", r->path, *r->query ? "?" : "", r->query);
    serve_respond(c, r, 301, "text/plain; charset=utf-8", "moved\n", 6, loc.p);
    free(loc.p);
    return;
  }
  if (code) {
    serve_error(c, r, code);
    return;
  }
  serve_file(c, r, fs, extra);
  free(fs);
}

/* ---- extension handlers ------------------------------------------------- */

struct crawl_response {
  int status;
  char *type;               /* Content-Type, owned; NULL: none */
  crawl__buf body;
  crawl__buf headers;        /* complete "Name: v\r\n" lines */
  char *file;               /* decoded path served instead of body, owned */
  int delay_ms;
  int hang;
};

/* Headers the server writes itself: a second copy would break framing. */
static const char *const serve_own_headers[] = {
  "Content-Length", "Content-Type", "Connection", "Transfer-Encoding",
};

/* An RFC 9110 token: what a header name may hold. */
static int serve_token(const char *t)
{
  if (!*t)
    return 0;
  for (; *t; t++)
    if (!isalnum((unsigned char)*t) && !strchr("!#$%&'*+-.^_`|~", *t))
      return 0;
  return 1;
}

char *crawl_request_header(const crawl_request *req, const char *name)
{
  size_t nl = name ? strlen(name) : 0;
  for (const char *p = req && req->headers ? req->headers : ""; nl && *p;) {
    size_t l = strcspn(p, "\r\n");
    if (l > nl && p[nl] == ':' && !strncasecmp(p, name, nl)) {
      const char *v = p + nl + 1 + strspn(p + nl + 1, " \t");
      size_t vl = l - (size_t)(v - p);
      while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
        vl--;
      return serve_xstrndup(v, vl);
    }
    p += l;
    p += strspn(p, "\r\n");
  }
  return NULL;
}

char *crawl_request_param(const crawl_request *req, const char *name)
{
  if (!req || !req->query || !name)
    return NULL;
  return serve_query_param(req->query, name);
}

int crawl_response_status(crawl_response *res, int code)
{
  if (code < 200 || code > 599)
    return -1;
  res->status = code;
  return 0;
}

int crawl_response_body(crawl_response *res, const char *type, const void *body, size_t len)
{
  if (type && !serve_header_safe(type))
    return -1;
  free(res->type);
  res->type = type ? serve_xstrndup(type, strlen(type)) : NULL;
  res->body.n = 0;
  if (len)
    crawl__buf_put(&res->body, body, len);
  return 0;
}

int crawl_response_header(crawl_response *res, const char *name, const char *value)
{
  if (!name || !value || !serve_token(name) || !serve_header_safe(value))
    return -1;
  for (size_t i = 0; i < sizeof serve_own_headers / sizeof serve_own_headers[0]; i++)
    if (strcasecmp(name, serve_own_headers[i]) == 0)
      return -1;
  crawl__buf_printf(&res->headers, "%s: %s\r\n", name, value);
  return 0;
}

int crawl_response_file(crawl_response *res, const char *path)
{
  if (!path || path[0] != '/')
    return -1;
  free(res->file);
  res->file = serve_xstrndup(path, strlen(path));
  return 0;
}

void crawl_response_delay(crawl_response *res, int ms)
{
  res->delay_ms = ms < 0 ? 0 : ms > SERVE_DELAY_MAX ? SERVE_DELAY_MAX : ms;
}

void crawl_response_hang(crawl_response *res)
{
  res->hang = 1;
}

static void serve_response_release(crawl_response *res)
{
  free(res->type);
  free(res->body.p);
  free(res->headers.p);
  free(res->file);
}

/* Queue what a handler built. */
static void serve_answer(crawl_server *s, serve_conn *c, const serve_req *r,
                         const crawl_response *res)
{
  if (res->hang) {
    c->st = SERVE_C_HANG;
    return;
  }
  if (res->file)
    serve_static(s, c, r, res->file, res->headers.p, 0);
  else
    serve_respond(c, r, res->status, res->type, res->body.p, res->body.n, res->headers.p);
  if (res->delay_ms > 0) {
    c->st = SERVE_C_WAIT;
    c->wake_at = crawl__time_ms() + res->delay_ms;
  }
}

/* Offer the request to the handler. Returns 1 when it answered. */
static int serve_handle(crawl_server *s, serve_conn *c, const serve_req *r)
{
  crawl_request q = { .method = r->method, .path = r->path, .query = r->query,
                      .body_len = r->body_len, .headers = c->headers,
                      .body = c->body.n ? c->body.p : "", .body_kept = c->body.n };
  crawl_response res = { .status = 200 };
  int answered = s->handler(s->handler_ud, &q, &res) != 0;
  if (answered)
    serve_answer(s, c, r, &res);
  serve_response_release(&res);
  return answered;
}

/* Route one complete request (head parsed, body discarded). */
static void serve_dispatch(crawl_server *s, serve_conn *c)
{
  serve_req r = { .method = c->method, .body_len = c->body_len, .query = "" };
  char *target = c->target;
  char *q = strpbrk(target, "?#");
  char *path = serve_xstrndup(target, q ? (size_t)(q - target) : strlen(target));
  char *query = NULL;
  if (q && *q == '?') {
    char *hash = strchr(q + 1, '#');
    query = serve_xstrndup(q + 1, hash ? (size_t)(hash - q - 1) : strlen(q + 1));
    r.query = query;
  }
  r.path = path;
  int get = strcmp(c->method, "GET") == 0;
  r.head = strcmp(c->method, "HEAD") == 0;

  if (s->test_hooks && (get || r.head) && strcmp(path, "/__hits") == 0) {
    char *j = serve_hit_json(s);
    serve_respond(c, &r, 200, "application/json", j, strlen(j), NULL);
    free(j);
    goto done;
  }
  if (s->test_hooks && (get || r.head) && strcmp(path, "/__reset") == 0) {
    serve_hit_reset(s);
    serve_respond(c, &r, 200, "application/json", "{\"ok\":true}", 11, NULL);
    goto done;
  }
  /* Counted as sent (still percent-encoded, query dropped): the key matches
   * the URL a test wrote into its fixture page. */
  serve_hit_count(s, c->method, path);

  if (path[0] != '/') {
    serve_error(c, &r, 400);
    goto done;
  }
  if (s->handler && serve_handle(s, c, &r))
    goto done;
  if (!get && !r.head) {
    serve_error(c, &r, 405);
    goto done;
  }
  char *dpath = serve_pct_decode(path, strlen(path), 0);
  if (!dpath) {
    serve_error(c, &r, 400);
    goto done;
  }
  serve_static(s, c, &r, dpath, NULL, 1);
  free(dpath);
done:
  free(path);
  free(query);
}

/* ---- request parsing ---------------------------------------------------- */

/* Answer an unparseable request and close after sending. */
/* The Host a request names must be this machine as a loopback client names
 * it (or the bind address): a page on another name that resolves here (DNS
 * rebinding) gets 421, so no web page can read the served folder through
 * the user's browser. The port is not compared. */
static int serve_host_ok(const serve_conn *c, const char *v, size_t n)
{
  static const char *const names[] = { "127.0.0.1", "localhost", "[::1]" };
  size_t hn = n;
  if (n && v[0] == '[') {
    const char *rb = memchr(v, ']', n);
    hn = rb ? (size_t)(rb - v) + 1 : n;
  } else {
    const char *colon = memchr(v, ':', n);
    if (colon) hn = (size_t)(colon - v);
  }
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strlen(names[i]) == hn && !strncasecmp(v, names[i], hn))
      return 1;
  return c->bind_host && strlen(c->bind_host) == hn && !strncasecmp(v, c->bind_host, hn);
}

static void serve_reject(serve_conn *c, int code)
{
  c->keepalive = 0;
  serve_error(c, NULL, code);
}

/* Parse the head in c->in[0..hlen) (hlen includes the blank line). Fills the
 * request fields or queues an error response. Returns 0 when the request is
 * good. */
static int serve_parse_head(serve_conn *c, size_t hlen)
{
  char *h = c->in;
  char *eol = memchr(h, '\n', hlen);
  if (!eol)
    return serve_reject(c, 400), -1;
  size_t ll = (size_t)(eol - h);
  if (ll && h[ll - 1] == '\r')
    ll--;
  /* request line: METHOD SP target SP HTTP/x.y */
  char *sp1 = memchr(h, ' ', ll);
  char *sp2 = sp1 ? memchr(sp1 + 1, ' ', ll - (size_t)(sp1 + 1 - h)) : NULL;
  if (!sp1 || !sp2 || sp1 == h || sp2 == sp1 + 1 ||
      (size_t)(sp1 - h) >= sizeof c->method)
    return serve_reject(c, 400), -1;
  memcpy(c->method, h, (size_t)(sp1 - h));
  c->method[sp1 - h] = '\0';
  for (char *m = c->method; *m; m++)
    if (!isupper((unsigned char)*m) && *m != '-' && *m != '_')
      return serve_reject(c, 400), -1;
  const char *ver = sp2 + 1;
  size_t vl = ll - (size_t)(ver - h);
  if (vl != 8 || strncmp(ver, "HTTP/1.", 7) != 0)
    return serve_reject(c, 400), -1;
  c->target = serve_xstrndup(sp1 + 1, (size_t)(sp2 - sp1 - 1));
  c->headers = serve_xstrndup(eol + 1, hlen - (size_t)(eol + 1 - h));
  c->keepalive = ver[7] == '1';
  c->body_left = 0;
  int have_len = 0;

  /* headers */
  char *p = eol + 1, *end = h + hlen;
  while (p < end) {
    char *e = memchr(p, '\n', (size_t)(end - p));
    if (!e)
      break;
    size_t l = (size_t)(e - p);
    if (l && p[l - 1] == '\r')
      l--;
    if (l == 0)
      break;
    char *colon = memchr(p, ':', l);
    if (!colon)
      return serve_reject(c, 400), -1;
    size_t nl = (size_t)(colon - p);
    char *v = colon + 1, *ve = p + l;
    while (v < ve && (*v == ' ' || *v == '\t'))
      v++;
    while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
      ve--;
    size_t vlen = (size_t)(ve - v);
    if (nl == 14 && strncasecmp(p, "Content-Length", 14) == 0) {
      long long n = 0;
      if (vlen == 0 || vlen > 18)
        return serve_reject(c, 400), -1;
      for (size_t i = 0; i < vlen; i++) {
        if (!isdigit((unsigned char)v[i]))
          return serve_reject(c, 400), -1;
        n = n * 10 + (v[i] - '0');
      }
      if (have_len && n != c->body_left)
        return serve_reject(c, 400), -1;
      c->body_left = n;
      have_len = 1;
    } else if (nl == 4 && strncasecmp(p, "Host", 4) == 0) {
      if (!serve_host_ok(c, v, vlen))
        return serve_reject(c, 421), -1;
    } else if (nl == 17 && strncasecmp(p, "Transfer-Encoding", 17) == 0) {
      /* Chunked uploads are not needed by any fixture; refuse cleanly. */
      return serve_reject(c, 411), -1;
    } else if (nl == 10 && strncasecmp(p, "Connection", 10) == 0) {
      /* a token list: look for "close" / "keep-alive" */
      for (char *t = v; t < ve;) {
        while (t < ve && (*t == ' ' || *t == ','))
          t++;
        char *te = t;
        while (te < ve && *te != ',' && *te != ' ')
          te++;
        if (te - t == 5 && strncasecmp(t, "close", 5) == 0)
          c->keepalive = 0;
        else if (te - t == 10 && strncasecmp(t, "keep-alive", 10) == 0)
          c->keepalive = 1;
        t = te;
      }
    }
    p = e + 1;
  }
  if (c->body_left > SERVE_BODY_MAX)
    return serve_reject(c, 413), -1;
  c->body_len = c->body_left;
  return 0;
}

/* ---- connection life ---------------------------------------------------- */

static void serve_conn_free(serve_conn *c)
{
  if (!c)
    return;
  close(c->fd);
  serve_conn_close_file(c);
  free(c->in);
  free(c->target);
  free(c->headers);
  free(c->body.p);
  free(c->out.p);
  free(c);
}

/* Forget the finished request; keep unparsed input for the next one. */
static void serve_conn_next(serve_conn *c)
{
  free(c->target);
  c->target = NULL;
  free(c->headers);
  c->headers = NULL;
  c->body.n = 0;
  c->method[0] = '\0';
  c->out.n = 0;
  c->outoff = 0;
  serve_conn_close_file(c);
  c->body_left = c->body_len = 0;
  c->st = SERVE_C_HEAD;
  c->idle_at = crawl__time_ms();
  c->head_at = c->inlen ? c->idle_at : 0; /* a pipelined request has begun */
}

/* The first CRAWL_SERVER_BODY_KEEP bytes of the body, NUL-terminated, for
 * the handler. */
static void serve_body_keep(serve_conn *c, const char *p, size_t n)
{
  size_t room = CRAWL_SERVER_BODY_KEEP - c->body.n;
  if (n > room)
    n = room;
  if (n) {
    crawl__buf_put(&c->body, p, n);
  }
}

/* Parse as many buffered requests as possible (stops once a response is
 * queued: responses go out in order). */
static void serve_conn_process(crawl_server *s, serve_conn *c)
{
  if (c->st == SERVE_C_HEAD) {
    char *blank = NULL;
    for (size_t i = 0; i + 1 < c->inlen && !blank; i++)
      if (c->in[i] == '\n' && (c->in[i + 1] == '\n' ||
          (c->in[i + 1] == '\r' && i + 2 < c->inlen && c->in[i + 2] == '\n')))
        blank = c->in + i + (c->in[i + 1] == '\n' ? 2 : 3);
    if (!blank) {
      if (c->inlen >= SERVE_HEAD_MAX)
        serve_reject(c, 431);
      return;
    }
    size_t hlen = (size_t)(blank - c->in);
    int rc = serve_parse_head(c, hlen);
    memmove(c->in, c->in + hlen, c->inlen - hlen);
    c->inlen -= hlen;
    if (rc != 0)
      return;
    /* body bytes already buffered */
    size_t take = c->body_left < (long long)c->inlen ? (size_t)c->body_left : c->inlen;
    serve_body_keep(c, c->in, take);
    memmove(c->in, c->in + take, c->inlen - take);
    c->inlen -= take;
    c->body_left -= (long long)take;
    c->st = SERVE_C_BODY;
  }
  if (c->st == SERVE_C_BODY && c->body_left == 0)
    serve_dispatch(s, c);
}

/* Read what the socket has. Returns -1 when the connection should go. */
static int serve_conn_read(crawl_server *s, serve_conn *c)
{
  for (;;) {
    char scratch[SERVE_CHUNK];
    char *dst;
    size_t room;
    if (c->st == SERVE_C_HEAD) {
      dst = c->in + c->inlen;
      room = SERVE_HEAD_MAX - c->inlen;
    } else {
      /* body to discard, or input nobody will read (hang, linger) */
      dst = scratch;
      room = sizeof scratch;
      if (c->st == SERVE_C_BODY && (long long)room > c->body_left)
        room = (size_t)c->body_left;
    }
    if (room == 0)
      return 0;
    ssize_t n = recv(c->fd, dst, room, 0);
    if (n == 0)
      return -1;
    if (n < 0)
      return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
    if (c->st == SERVE_C_HEAD) {
      if (!c->inlen)
        c->head_at = crawl__time_ms();
      c->inlen += (size_t)n;
    } else if (c->st == SERVE_C_BODY) {
      serve_body_keep(c, dst, (size_t)n);
      c->body_left -= n;
    }
    else
      continue;  /* hang, linger: discard */
    serve_conn_process(s, c);
    if (c->st != SERVE_C_HEAD && c->st != SERVE_C_BODY)
      return 0;
  }
}

/* Write what the socket takes. Returns -1 when the connection should go. */
static int serve_conn_write(crawl_server *s, serve_conn *c)
{
  for (;;) {
    if (c->outoff == c->out.n) {
      if (c->file_left > 0) {
        /* refill from the file */
        c->out.n = c->outoff = 0;
        size_t want = c->file_left < SERVE_CHUNK ? (size_t)c->file_left : SERVE_CHUNK;
        if (c->out.cap < want + 1) {
          c->out.p = crawl__xrealloc(c->out.p, want + 1);
          c->out.cap = want + 1;
        }
        ssize_t n = read(c->file_fd, c->out.p, want);
        if (n <= 0)
          return -1;  /* file shrank: the length promised can't be kept */
        c->out.n = (size_t)n;
        c->file_left -= n;
      } else {
        /* response complete */
        if (!c->keepalive) {
          shutdown(c->fd, SHUT_WR);
          c->st = SERVE_C_LINGER;
          c->wake_at = crawl__time_ms() + SERVE_LINGER_MS;
          return 0;
        }
        serve_conn_next(c);
        serve_conn_process(s, c);
        if (c->st != SERVE_C_SEND)
          return 0;
        continue;
      }
    }
    ssize_t n = send(c->fd, c->out.p + c->outoff, c->out.n - c->outoff, MSG_NOSIGNAL);
    if (n < 0)
      return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
    c->outoff += (size_t)n;
  }
}

static void serve_accept(crawl_server *s)
{
  for (;;) {
    int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
      return;  /* EAGAIN, or a transient error (EMFILE...): retry next poll */
    if (s->nconns >= SERVE_MAX_CONNS) {
      close(fd);
      continue;
    }
    serve_conn *c = crawl__xrealloc(NULL, sizeof *c);
    memset(c, 0, sizeof *c);
    c->fd = fd;
    c->file_fd = -1;
    c->in = crawl__xrealloc(NULL, SERVE_HEAD_MAX);
    c->st = SERVE_C_HEAD;
    c->idle_at = crawl__time_ms();
    c->bind_host = s->host;
    c->head_ms = s->head_ms;
    if (s->nconns == s->capconns) {
      s->capconns = s->capconns ? s->capconns * 2 : 16;
      s->conns = crawl__xrealloc(s->conns, s->capconns * sizeof *s->conns);
    }
    s->conns[s->nconns++] = c;
  }
}

static void *serve_thread(void *arg)
{
  crawl_server *s = arg;
  struct pollfd *pfds = NULL;
  size_t cap = 0;
  for (;;) {
    size_t n = s->nconns + 2;
    if (n > cap) {
      cap = n * 2;
      pfds = crawl__xrealloc(pfds, cap * sizeof *pfds);
    }
    pfds[0] = (struct pollfd){ .fd = s->wake[0], .events = POLLIN };
    pfds[1] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
    long long now = crawl__time_ms(), next = -1;
    for (size_t i = 0; i < s->nconns; i++) {
      serve_conn *c = s->conns[i];
      short ev = 0;
      if (c->st == SERVE_C_SEND)
        ev = POLLOUT;
      else if (c->st != SERVE_C_WAIT)
        ev = POLLIN;
      if (c->st == SERVE_C_HEAD)
        c->wake_at = c->head_at ? c->head_at + c->head_ms : c->idle_at + SERVE_IDLE_MS;
      if ((c->st == SERVE_C_WAIT || c->st == SERVE_C_LINGER || c->st == SERVE_C_HEAD) &&
          (next < 0 || c->wake_at < next))
        next = c->wake_at;
      pfds[i + 2] = (struct pollfd){ .fd = c->fd, .events = ev };
    }
    int timeout = next < 0 ? -1 : next <= now ? 0 : (int)(next - now);
    int rc = poll(pfds, n, timeout);
    if (rc < 0 && errno != EINTR)
      break;
    if (rc > 0 && pfds[0].revents)
      break;
    /* Connections first (pfds match s->conns by index), then accept. */
    now = crawl__time_ms();
    size_t keep = 0;
    for (size_t i = 0; i < s->nconns; i++) {
      serve_conn *c = s->conns[i];
      short re = rc > 0 ? pfds[i + 2].revents : 0;
      int gone = 0;
      if (c->st == SERVE_C_WAIT && c->wake_at <= now)
        c->st = SERVE_C_SEND;
      if (re & POLLNVAL || (c->st == SERVE_C_LINGER && c->wake_at <= now))
        gone = 1;
      else if (c->st == SERVE_C_HEAD && !(re & POLLIN) && c->wake_at <= now)
        gone = 1;  /* a head that never completes (slowloris), or idle too long */
      else if (c->st == SERVE_C_WAIT && re & (POLLERR | POLLHUP))
        gone = 1;  /* polled for nothing: reset by the peer, drop it */
      else if (re & (POLLIN | POLLHUP | POLLERR) && pfds[i + 2].events == POLLIN)
        gone = serve_conn_read(s, c) < 0;
      if (!gone && c->st == SERVE_C_SEND &&
          (re & (POLLOUT | POLLERR | POLLHUP) || pfds[i + 2].events != POLLOUT))
        gone = serve_conn_write(s, c) < 0;
      if (gone)
        serve_conn_free(c);
      else
        s->conns[keep++] = c;
    }
    s->nconns = keep;
    if (rc > 0 && pfds[1].revents)
      serve_accept(s);
  }
  free(pfds);
  return NULL;
}

/* ---- public API --------------------------------------------------------- */

static int serve_listen(const char *host, int port, int *fd_out, int *port_out,
                        char *err, size_t errlen)
{
  struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                            .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
  struct addrinfo *res = NULL;
  char portstr[16];
  snprintf(portstr, sizeof portstr, "%d", port);
  int gai = getaddrinfo(host, portstr, &hints, &res);
  if (gai != 0) {
    snprintf(err, errlen, "cannot resolve %s: %s", host, gai_strerror(gai));
    return -1;
  }
  int fd = -1, saved = 0;
  for (struct addrinfo *a = res; a; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      saved = errno;
      continue;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 128) == 0)
      break;
    saved = errno;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd < 0) {
    snprintf(err, errlen, "cannot listen on %s:%d: %s", host, port, strerror(saved));
    return -1;
  }
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
    snprintf(err, errlen, "getsockname: %s", strerror(errno));
    close(fd);
    return -1;
  }
  *port_out = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                                       : ntohs(((struct sockaddr_in *)&ss)->sin_port);
  *fd_out = fd;
  return 0;
}

int crawl_server_start(const crawl_server_opts *o, crawl_server **out, char *err, size_t errlen)
{
  char dummy[1];
  if (!err || errlen == 0) {
    err = dummy;
    errlen = sizeof dummy;
  }
  if (!out) {
    snprintf(err, errlen, "crawl_server_start: out is NULL");
    return -1;
  }
  *out = NULL;
  if (!o || !o->root || !*o->root) {
    snprintf(err, errlen, "no root directory given");
    return -1;
  }
  if (o->port < 0 || o->port > 65535) {
    snprintf(err, errlen, "invalid port %d", o->port);
    return -1;
  }
  char *root = realpath(o->root, NULL);
  struct stat st;
  if (!root || stat(root, &st) != 0 || !S_ISDIR(st.st_mode)) {
    snprintf(err, errlen, "root %s: %s", o->root, root ? "not a directory" : strerror(errno));
    free(root);
    return -1;
  }
  crawl_server *s = crawl__xrealloc(NULL, sizeof *s);
  memset(s, 0, sizeof *s);
  s->root = root;
  s->rootlen = strlen(root);
  /* Root "/" would make the prefix check "//..." fail; serve it as "". */
  if (s->rootlen == 1) {
    s->root[0] = '\0';
    s->rootlen = 0;
  }
  s->spa_fallback = o->spa_fallback;
  s->test_hooks = o->test_hooks;
  s->handler = o->handler;
  s->handler_ud = o->handler_ud;
  s->wake[0] = s->wake[1] = -1;
  pthread_mutex_init(&s->mu, NULL);
  const char *host = o->host && *o->host ? o->host : "127.0.0.1";
  s->host = crawl__xstrdup(host);
  s->head_ms = o->head_timeout_ms > 0 ? o->head_timeout_ms : SERVE_HEAD_MS;
  if (serve_listen(host, o->port, &s->lfd, &s->port, err, errlen) != 0) {
    s->lfd = -1;
    goto fail;
  }
  if (pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    snprintf(err, errlen, "pipe: %s", strerror(errno));
    goto fail;
  }
  int prc = pthread_create(&s->thread, NULL, serve_thread, s);
  if (prc != 0) {
    snprintf(err, errlen, "pthread_create: %s", strerror(prc));
    goto fail;
  }
  *out = s;
  return 0;
fail:
  if (s->lfd >= 0)
    close(s->lfd);
  if (s->wake[0] >= 0) {
    close(s->wake[0]);
    close(s->wake[1]);
  }
  pthread_mutex_destroy(&s->mu);
  free(s->root);
  free(s->host);
  free(s);
  return -1;
}

int crawl_server_port(const crawl_server *s)
{
  return s ? s->port : 0;
}

void crawl_server_stop(crawl_server *s)
{
  if (!s)
    return;
  ssize_t w;
  do
    w = write(s->wake[1], "x", 1);
  while (w < 0 && errno == EINTR);
  pthread_join(s->thread, NULL);
  for (size_t i = 0; i < s->nconns; i++)
    serve_conn_free(s->conns[i]);
  free(s->conns);
  close(s->lfd);
  close(s->wake[0]);
  close(s->wake[1]);
  serve_hit_reset(s);
  free(s->hits);
  pthread_mutex_destroy(&s->mu);
  free(s->root);
  free(s->host);
  free(s);
}

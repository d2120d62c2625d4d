/* serve_http.c -- HTTP/1.1 as the static server speaks it on one
 * connection: the request head parsed and checked (request line, headers,
 * Content-Length, the Host a loopback client names: anything else is
 * refused with 400, 411, 413, 421 or 431), the percent-decoding of paths,
 * responses queued into the connection's output (status line, the headers
 * the server writes itself, the body), and each complete request routed:
 * the tests' /__hits and /__reset, the embedder's handler, then the folder.
 * Not here: sockets and the connection's states (serve.c), files
 * (serve_files.c), the handler API (serve_handler.c). */
#include "serve_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
char *serve__pct_decode(const char *src, size_t n, int plus_space)
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


/* ---- responses ---------------------------------------------------------- */

/* Queue a response head. body_len is the Content-Length; extra is a block of
 * complete header lines ("Name: v\r\n"...) or NULL. */
void serve__head(serve_conn *c, int code, const char *type, long long body_len,
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
void serve__respond(serve_conn *c, const serve_req *r, int code, const char *type,
                          const char *body, size_t len, const char *extra)
{
  int nobody = code == 204 || code == 304 || (code >= 100 && code < 200);
  if (nobody)
    len = 0;
  serve__head(c, code, nobody ? NULL : type, (long long)len, extra);
  if (!(r && r->head) && len)
    crawl__buf_put(&c->out, body, len);
}

/* A short text/plain response ("404 Not Found\n"). */
void serve__error(serve_conn *c, const serve_req *r, int code)
{
  char msg[128];
  int n = snprintf(msg, sizeof msg, "%d %s\n", code, serve_reason(code));
  serve__respond(c, r, code, "text/plain; charset=utf-8", msg, (size_t)n,
                code == 405 ? "Allow: GET, HEAD\r\n" : NULL);
}

/* ---- routing ------------------------------------------------------------ */

/* Route one complete request (head parsed, body discarded). */
void serve__dispatch(crawl_server *s, serve_conn *c)
{
  serve_req r = { .method = c->method, .body_len = c->body_len, .query = "" };
  char *target = c->target;
  char *q = strpbrk(target, "?#");
  char *path = crawl__xstrndup(target, q ? (size_t)(q - target) : strlen(target));
  char *query = NULL;
  if (q && *q == '?') {
    char *hash = strchr(q + 1, '#');
    query = crawl__xstrndup(q + 1, hash ? (size_t)(hash - q - 1) : strlen(q + 1));
    r.query = query;
  }
  r.path = path;
  int get = strcmp(c->method, "GET") == 0;
  r.head = strcmp(c->method, "HEAD") == 0;

  if (s->test_hooks && (get || r.head) && strcmp(path, "/__hits") == 0) {
    char *j = serve__hit_json(s);
    serve__respond(c, &r, 200, "application/json", j, strlen(j), NULL);
    free(j);
    goto done;
  }
  if (s->test_hooks && (get || r.head) && strcmp(path, "/__reset") == 0) {
    serve__hit_reset(s);
    serve__respond(c, &r, 200, "application/json", "{\"ok\":true}", 11, NULL);
    goto done;
  }
  /* Counted as sent (still percent-encoded, query dropped): the key matches
   * the URL a test wrote into its fixture page. */
  serve__hit_count(s, c->method, path);

  if (path[0] != '/') {
    serve__error(c, &r, 400);
    goto done;
  }
  if (s->handler && serve__handle(s, c, &r))
    goto done;
  if (!get && !r.head) {
    serve__error(c, &r, 405);
    goto done;
  }
  char *dpath = serve__pct_decode(path, strlen(path), 0);
  if (!dpath) {
    serve__error(c, &r, 400);
    goto done;
  }
  serve__static(s, c, &r, dpath, NULL, 1);
  free(dpath);
done:
  free(path);
  free(query);
}

/* ---- request parsing ---------------------------------------------------- */

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

/* Answer an unparseable request and close after sending. */
void serve__reject(serve_conn *c, int code)
{
  c->keepalive = 0;
  serve__error(c, NULL, code);
}

/* Parse the head in c->in[0..hlen) (hlen includes the blank line). Fills the
 * request fields or queues an error response. Returns 0 when the request is
 * good. */
int serve__parse_head(serve_conn *c, size_t hlen)
{
  char *h = c->in;
  char *eol = memchr(h, '\n', hlen);
  if (!eol)
    return serve__reject(c, 400), -1;
  size_t ll = (size_t)(eol - h);
  if (ll && h[ll - 1] == '\r')
    ll--;
  /* request line: METHOD SP target SP HTTP/x.y */
  char *sp1 = memchr(h, ' ', ll);
  char *sp2 = sp1 ? memchr(sp1 + 1, ' ', ll - (size_t)(sp1 + 1 - h)) : NULL;
  if (!sp1 || !sp2 || sp1 == h || sp2 == sp1 + 1 ||
      (size_t)(sp1 - h) >= sizeof c->method)
    return serve__reject(c, 400), -1;
  memcpy(c->method, h, (size_t)(sp1 - h));
  c->method[sp1 - h] = '\0';
  for (char *m = c->method; *m; m++)
    if (!isupper((unsigned char)*m) && *m != '-' && *m != '_')
      return serve__reject(c, 400), -1;
  const char *ver = sp2 + 1;
  size_t vl = ll - (size_t)(ver - h);
  if (vl != 8 || strncmp(ver, "HTTP/1.", 7) != 0)
    return serve__reject(c, 400), -1;
  c->target = crawl__xstrndup(sp1 + 1, (size_t)(sp2 - sp1 - 1));
  c->headers = crawl__xstrndup(eol + 1, hlen - (size_t)(eol + 1 - h));
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
      return serve__reject(c, 400), -1;
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
        return serve__reject(c, 400), -1;
      for (size_t i = 0; i < vlen; i++) {
        if (!isdigit((unsigned char)v[i]))
          return serve__reject(c, 400), -1;
        n = n * 10 + (v[i] - '0');
      }
      if (have_len && n != c->body_left)
        return serve__reject(c, 400), -1;
      c->body_left = n;
      have_len = 1;
    } else if (nl == 4 && strncasecmp(p, "Host", 4) == 0) {
      if (!serve_host_ok(c, v, vlen))
        return serve__reject(c, 421), -1;
    } else if (nl == 17 && strncasecmp(p, "Transfer-Encoding", 17) == 0) {
      /* Chunked uploads are not needed by any fixture; refuse cleanly. */
      return serve__reject(c, 411), -1;
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
    return serve__reject(c, 413), -1;
  c->body_len = c->body_left;
  return 0;
}

/* serve_handler.c -- the static server's extension point: what an
 * embedder's handler (crawl_server_opts.handler; the tests' endpoints in
 * tests/support/test_server.c) reads of a request (crawl_request_header,
 * crawl_request_param) and builds as the answer (crawl_response_*: status,
 * body, header lines checked so they cannot split the response or repeat
 * the server's own, a file, a delay, a hang), and that answer queued on
 * the connection. Not here: when the handler is asked (serve_http.c). */
#include "serve_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The decoded value of query parameter name, or NULL; caller frees. */
static char *serve_query_param(const char *query, const char *name)
{
  size_t nl = strlen(name);
  const char *p = query;
  while (p && *p) {
    const char *end = strchr(p, '&');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len > nl && strncmp(p, name, nl) == 0 && p[nl] == '=')
      return serve__pct_decode(p + nl + 1, len - nl - 1, 1);
    if (len == nl && strncmp(p, name, nl) == 0)
      return crawl__xstrndup("", 0);
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
      return crawl__xstrndup(v, vl);
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
  res->type = type ? crawl__xstrndup(type, strlen(type)) : NULL;
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
  res->file = crawl__xstrndup(path, strlen(path));
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
    serve__static(s, c, r, res->file, res->headers.p, 0);
  else
    serve__respond(c, r, res->status, res->type, res->body.p, res->body.n, res->headers.p);
  if (res->delay_ms > 0) {
    c->st = SERVE_C_WAIT;
    c->wake_at = crawl__time_ms() + res->delay_ms;
  }
}

/* Offer the request to the handler. Returns 1 when it answered. */
int serve__handle(crawl_server *s, serve_conn *c, const serve_req *r)
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


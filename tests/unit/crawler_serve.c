/* crawler_serve.c -- the static file server (crawl_server_*), over real
 * loopback sockets: content types, traversal, SPA fallback, hit counting and
 * its bound, keep-alive, slow and hanging clients, the handler hook, the
 * tests' /__test/ endpoints (tests/support/test_server.c) on it, and stop. */
#include <criterion/criterion.h>

#include "crawl.h"
#include "crawl_serve.h"
#include "support.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ftw.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- a small blocking HTTP client --------------------------------------- */

typedef struct {
  int status;
  char *head;        /* status line and headers, NUL-terminated */
  char *body;        /* NUL-terminated */
  size_t body_len;
} t_resp;

typedef struct {
  int fd;
  char buf[256 * 1024];
  size_t len;
} t_conn;

static long long now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static t_conn *conn_open(int port)
{
  t_conn *c = calloc(1, sizeof *c);
  cr_assert(c);
  c->fd = socket(AF_INET, SOCK_STREAM, 0);
  cr_assert(c->fd >= 0);
  struct timeval tv = { .tv_sec = 5 };
  setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  cr_assert_eq(connect(c->fd, (struct sockaddr *)&sa, sizeof sa), 0, "connect: %s", strerror(errno));
  return c;
}

static void conn_close(t_conn *c)
{
  if (c) {
    close(c->fd);
    free(c);
  }
}

static void conn_send(t_conn *c, const char *data, size_t n)
{
  while (n) {
    ssize_t w = send(c->fd, data, n, MSG_NOSIGNAL);
    cr_assert(w > 0, "send: %s", strerror(errno));
    data += w;
    n -= (size_t)w;
  }
}

static void conn_sends(t_conn *c, const char *s)
{
  conn_send(c, s, strlen(s));
}

/* Read more into the buffer; 0 on EOF/timeout. */
static int conn_fill(t_conn *c)
{
  if (c->len == sizeof c->buf)
    return 0;
  ssize_t n = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
  if (n <= 0)
    return 0;
  c->len += (size_t)n;
  return 1;
}

static const char *resp_header(const t_resp *r, const char *name)
{
  static char val[1024];
  size_t nl = strlen(name);
  for (const char *p = strchr(r->head, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
    const char *line = p + 1;
    if (strncasecmp(line, name, nl) == 0 && line[nl] == ':') {
      const char *v = line + nl + 1;
      while (*v == ' ')
        v++;
      size_t n = strcspn(v, "\r\n");
      if (n >= sizeof val)
        n = sizeof val - 1;
      memcpy(val, v, n);
      val[n] = '\0';
      return val;
    }
  }
  return NULL;
}

/* Read one response (head, then Content-Length bytes; for HEAD pass
 * no_body). Returns 0 with status -1 if nothing complete arrived. */
static t_resp conn_read(t_conn *c, int no_body)
{
  t_resp r = { .status = -1 };
  char *end;
  while (!(end = memmem(c->buf, c->len, "\r\n\r\n", 4)))
    if (!conn_fill(c))
      return r;
  size_t hl = (size_t)(end - c->buf) + 4;
  r.head = strndup(c->buf, hl);
  sscanf(r.head, "HTTP/1.1 %d", &r.status);
  const char *cl = resp_header(&r, "Content-Length");
  size_t bl = cl && !no_body ? strtoul(cl, NULL, 10) : 0;
  while (c->len < hl + bl)
    if (!conn_fill(c)) {
      r.status = -2;  /* truncated body */
      break;
    }
  if (c->len < hl + bl)
    bl = c->len - hl;
  r.body = strndup(c->buf + hl, bl);
  r.body_len = bl;
  memmove(c->buf, c->buf + hl + bl, c->len - hl - bl);
  c->len -= hl + bl;
  return r;
}

static void resp_free(t_resp *r)
{
  free(r->head);
  free(r->body);
}

/* One request on a fresh connection with Connection: close. */
static t_resp req(int port, const char *method, const char *target, const char *body)
{
  t_conn *c = conn_open(port);
  char head[4096];
  snprintf(head, sizeof head,
           "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: %zu\r\n\r\n",
           method, target, body ? strlen(body) : 0);
  conn_sends(c, head);
  if (body)
    conn_sends(c, body);
  t_resp r = conn_read(c, strcmp(method, "HEAD") == 0);
  conn_close(c);
  return r;
}

static t_resp get(int port, const char *target)
{
  return req(port, "GET", target, NULL);
}

/* 1 if the peer sends nothing within ms milliseconds. */
static int silent_for(int fd, int ms)
{
  struct pollfd p = { .fd = fd, .events = POLLIN };
  return poll(&p, 1, ms) == 0;
}

/* ---- fixture: a temp root and a directory outside it -------------------- */

static char tmp[64];
static char root[128];
static char outside[128];
static crawl_server *srv;
static int port;

static void put(const char *rel, const char *content)
{
  char p[512];
  snprintf(p, sizeof p, "%s/%s", root, rel);
  FILE *f = fopen(p, "w");
  cr_assert(f, "fopen %s", p);
  fputs(content, f);
  fclose(f);
}

static const struct {
  const char *file;
  const char *type;   /* expected Content-Type prefix */
} types[] = {
  { "/page.html",   "text/html" },
  { "/app.js",      "text/javascript" },
  { "/mod.mjs",     "text/javascript" },
  { "/style.css",   "text/css" },
  { "/data.json",   "application/json" },
  { "/img.svg",     "image/svg+xml" },
  { "/img.png",     "image/png" },
  { "/photo.jpg",   "image/jpeg" },
  { "/anim.gif",    "image/gif" },
  { "/pic.webp",    "image/webp" },
  { "/favicon.ico", "image/x-icon" },
  { "/notes.txt",   "text/plain" },
  { "/font.woff2",  "font/woff2" },
  { "/code.wasm",   "application/wasm" },
  { "/app.js.map",  "application/json" },
  { "/blob.bin",    "application/octet-stream" },
};

static void make_tree(void)
{
  strcpy(tmp, "/tmp/crawler_serve_XXXXXX");
  cr_assert(mkdtemp(tmp));
  snprintf(root, sizeof root, "%s/root", tmp);
  snprintf(outside, sizeof outside, "%s/outside", tmp);
  cr_assert_eq(mkdir(root, 0755), 0);
  cr_assert_eq(mkdir(outside, 0755), 0);
  char p[512], q[512];
  snprintf(p, sizeof p, "%s/secret.txt", outside);
  FILE *f = fopen(p, "w");
  fputs("TOP-SECRET\n", f);
  fclose(f);

  put("index.html", "<h1>home</h1>");
  put("a.html", "<p>a</p>");
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    put(types[i].file + 1, types[i].file);
  snprintf(p, sizeof p, "%s/sub", root);
  mkdir(p, 0755);
  put("sub/index.html", "<h1>sub</h1>");
  snprintf(p, sizeof p, "%s/danger", root);
  mkdir(p, 0755);
  put("danger/form.html", "<form method=post></form>");
  put("with space.html", "spaced");
  /* symlinks: one out of root (file and dir), one inside (allowed) */
  snprintf(p, sizeof p, "%s/escape.txt", root);
  snprintf(q, sizeof q, "%s/secret.txt", outside);
  cr_assert_eq(symlink(q, p), 0);
  snprintf(p, sizeof p, "%s/escdir", root);
  cr_assert_eq(symlink(outside, p), 0);
  snprintf(p, sizeof p, "%s/alias.html", root);
  cr_assert_eq(symlink("a.html", p), 0);
  /* a file larger than one read chunk, with a recognisable pattern */
  snprintf(p, sizeof p, "%s/big.txt", root);
  f = fopen(p, "w");
  for (int i = 0; i < 200000; i++)
    fputc('a' + i % 26, f);
  fclose(f);
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
  return remove(p);
}

static void start(int spa, crawl_server_handler handler, void *ud)
{
  char err[256] = "";
  crawl_server_opts o = { .root = root, .spa_fallback = spa, .handler = handler, .handler_ud = ud,
                          .test_hooks = 1 };
  cr_assert_eq(crawl_server_start(&o, &srv, err, sizeof err), 0, "start: %s", err);
  port = crawl_server_port(srv);
  cr_assert(port > 0);
}

/* A handler that shows what the hook offers (see the serve_hook tests).
 * It runs on the server thread, so it records instead of asserting. */
typedef struct {
  int calls;
  char seen[512];           /* the last request it saw */
} hook_state;
static hook_state hook;

static int hook_handler(void *ud, const crawl_request *req, crawl_response *res)
{
  hook_state *h = ud;
  h->calls++;
  char *x = crawl_request_param(req, "x");
  snprintf(h->seen, sizeof h->seen, "%s %s ?%s x=%s body=%lld", req->method, req->path, req->query,
           x ? x : "(none)", req->body_len);
  free(x);
  if (!strcmp(req->path, "/hook/reply")) {
    char body[128];
    /* refused: out-of-range status, a CR/LF in a value or type, a name that
     * is no token, a header the server sets itself */
    snprintf(body, sizeof body, "%d %d %d %d %d %d",
             crawl_response_status(res, 99), crawl_response_status(res, 600),
             crawl_response_header(res, "X-Ok", "a\r\nSet-Cookie: x=1"),
             crawl_response_header(res, "X Bad", "v"),
             crawl_response_header(res, "content-length", "1"),
             crawl_response_body(res, "text/plain\r\nX: y", "z", 1));
    crawl_response_status(res, 201);
    crawl_response_header(res, "X-Hook", "yes");
    crawl_response_body(res, "text/plain", body, strlen(body));
    return 1;
  }
  if (!strcmp(req->path, "/hook/file")) {
    char *f = crawl_request_param(req, "f");
    if (!f || crawl_response_file(res, f) != 0)
      crawl_response_status(res, 400);
    crawl_response_header(res, "X-Hook", "file");
    free(f);
    return 1;
  }
  if (!strcmp(req->path, "/hook/empty"))
    return 1;
  return 0;  /* everything else: the server's own answer */
}

static void setup_plain(void) { make_tree(); start(0, NULL, NULL); }
static void setup_short_heads(void)
{
  make_tree();
  char err[256] = "";
  crawl_server_opts o = { .root = root, .head_timeout_ms = 300 };
  cr_assert_eq(crawl_server_start(&o, &srv, err, sizeof err), 0, "start: %s", err);
  port = crawl_server_port(srv);
}
/* As `uiap-crawl serve` and `crawl DIR` start it: no test hooks. */
static void setup_product(void)
{
  make_tree();
  char err[256] = "";
  crawl_server_opts o = { .root = root };
  cr_assert_eq(crawl_server_start(&o, &srv, err, sizeof err), 0, "start: %s", err);
  port = crawl_server_port(srv);
}
static void setup_spa(void) { make_tree(); start(1, NULL, NULL); }
static void setup_test(void) { make_tree(); start(0, t_test_endpoints, NULL); }
static void setup_hook(void)
{
  make_tree();
  memset(&hook, 0, sizeof hook);
  start(0, hook_handler, &hook);
}

static void teardown(void)
{
  crawl_server_stop(srv);
  srv = NULL;
  nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Criterion runs a suite's init before a test's own, so each server flavour
 * gets its own suite. */
TestSuite(serve, .init = setup_plain, .fini = teardown, .timeout = 30);
TestSuite(serve_heads, .init = setup_short_heads, .fini = teardown, .timeout = 30);
TestSuite(serve_spa, .init = setup_spa, .fini = teardown, .timeout = 30);
TestSuite(serve_product, .init = setup_product, .fini = teardown, .timeout = 30);
TestSuite(serve_test, .init = setup_test, .fini = teardown, .timeout = 30);
TestSuite(serve_hook, .init = setup_hook, .fini = teardown, .timeout = 30);

/* ---- tests --------------------------------------------------------------- */

Test(serve, content_types_and_bodies)
{
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    t_resp r = get(port, types[i].file);
    cr_assert_eq(r.status, 200, "%s: %d", types[i].file, r.status);
    const char *ct = resp_header(&r, "Content-Type");
    cr_assert(ct && strncmp(ct, types[i].type, strlen(types[i].type)) == 0,
              "%s: Content-Type %s, want %s", types[i].file, ct ? ct : "(none)", types[i].type);
    cr_assert_str_eq(r.body, types[i].file);
    const char *cc = resp_header(&r, "Cache-Control");
    cr_assert(cc && strcmp(cc, "no-store") == 0);
    resp_free(&r);
  }
}

Test(serve, head_has_length_but_no_body)
{
  t_conn *c = conn_open(port);
  conn_sends(c, "HEAD /a.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /a.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  t_resp r = conn_read(c, 1);
  cr_assert_eq(r.status, 200);
  cr_assert_str_eq(resp_header(&r, "Content-Length"), "8");
  resp_free(&r);
  r = conn_read(c, 0);  /* would be garbled if HEAD had sent a body */
  cr_assert_eq(r.status, 200);
  cr_assert_str_eq(r.body, "<p>a</p>");
  resp_free(&r);
  conn_close(c);
}

Test(serve, big_file_arrives_whole)
{
  t_resp r = get(port, "/big.txt");
  cr_assert_eq(r.status, 200);
  cr_assert_eq(r.body_len, 200000);
  for (size_t i = 0; i < r.body_len; i++)
    if (r.body[i] != 'a' + (int)(i % 26))
      cr_assert_fail("byte %zu differs", i);
  resp_free(&r);
}

Test(serve, directories_serve_index_html)
{
  t_resp r = get(port, "/");
  cr_assert_eq(r.status, 200);
  cr_assert_str_eq(r.body, "<h1>home</h1>");
  cr_assert(strncmp(resp_header(&r, "Content-Type"), "text/html", 9) == 0);
  resp_free(&r);
  r = get(port, "/sub/");
  cr_assert_eq(r.status, 200);
  cr_assert_str_eq(r.body, "<h1>sub</h1>");
  resp_free(&r);
  /* without the slash: redirected so relative links resolve in /sub/ */
  r = get(port, "/sub?x=1");
  cr_assert_eq(r.status, 301);
  cr_assert_str_eq(resp_header(&r, "Location"), "/sub/?x=1");
  resp_free(&r);
}

Test(serve, query_ignored_and_percent_decoded)
{
  t_resp r = get(port, "/a.html?v=2&x=%2e%2e");
  cr_assert_eq(r.status, 200);
  cr_assert_str_eq(r.body, "<p>a</p>");
  resp_free(&r);
  r = get(port, "/with%20space.html");
  cr_assert_eq(r.status, 200);
  cr_assert_str_eq(r.body, "spaced");
  resp_free(&r);
  r = get(port, "/%61.html");
  cr_assert_eq(r.status, 200);
  resp_free(&r);
  r = get(port, "/bad%zz.html");
  cr_assert_eq(r.status, 400);
  resp_free(&r);
  r = get(port, "/a.html%00.txt");
  cr_assert_eq(r.status, 400);
  resp_free(&r);
}

Test(serve, missing_is_404)
{
  t_resp r = get(port, "/nope.html");
  cr_assert_eq(r.status, 404);
  resp_free(&r);
  r = get(port, "/app/route");  /* no SPA fallback on this server */
  cr_assert_eq(r.status, 404);
  resp_free(&r);
}

Test(serve, no_path_escapes_root)
{
  const char *attempts[] = {
    "/../outside/secret.txt",
    "/%2e%2e/outside/secret.txt",
    "/%2E%2E/%2e%2e/%2e%2e/etc/passwd",
    "/../../../../etc/passwd",
    "/sub/..%2f..%2foutside/secret.txt",
    "/sub/%2e%2e/%2e%2e/outside/secret.txt",
    "/escape.txt",              /* symlink to a file outside */
    "/escdir/secret.txt",       /* symlink to a directory outside */
    "/escdir/",
  };
  for (size_t i = 0; i < sizeof attempts / sizeof attempts[0]; i++) {
    t_resp r = get(port, attempts[i]);
    cr_assert(r.status == 403 || r.status == 404, "%s: status %d", attempts[i], r.status);
    cr_assert(!strstr(r.body, "TOP-SECRET"), "%s leaked", attempts[i]);
    cr_assert(!strstr(r.body, "root:"), "%s leaked /etc/passwd", attempts[i]);
    resp_free(&r);
  }
  /* a symlink that stays inside root is fine */
  t_resp r = get(port, "/alias.html");
  cr_assert_eq(r.status, 200);
  cr_assert_str_eq(r.body, "<p>a</p>");
  resp_free(&r);
}

Test(serve_spa, spa_fallback)
{
  t_resp r = get(port, "/app/settings/profile");
  cr_assert_eq(r.status, 200);
  cr_assert_str_eq(r.body, "<h1>home</h1>");
  resp_free(&r);
  r = get(port, "/missing.js");  /* has an extension: a real 404 */
  cr_assert_eq(r.status, 404);
  resp_free(&r);
  r = get(port, "/a.html");      /* real files still win */
  cr_assert_str_eq(r.body, "<p>a</p>");
  resp_free(&r);
  r = get(port, "/%2e%2e/outside");  /* traversal is not rescued by fallback */
  cr_assert_neq(r.status, 200);
  resp_free(&r);
}

Test(serve, hits_counted_per_method_and_path)
{
  t_resp r;
  r = get(port, "/a.html"); resp_free(&r);
  r = get(port, "/a.html?cache=1"); resp_free(&r);
  r = req(port, "HEAD", "/a.html", NULL); resp_free(&r);
  r = get(port, "/sub/"); resp_free(&r);
  r = get(port, "/nope.html"); resp_free(&r);
  cr_assert_eq(crawl_server_hits(srv, NULL), 5);
  cr_assert_eq(crawl_server_hits(srv, "/a.html"), 3);
  cr_assert_eq(crawl_server_hits(srv, "/sub"), 1);
  cr_assert_eq(crawl_server_hits(srv, "/zzz"), 0);

  r = get(port, "/__hits");
  cr_assert_eq(r.status, 200);
  cr_assert(strncmp(resp_header(&r, "Content-Type"), "application/json", 16) == 0);
  cJSON *j = cJSON_Parse(r.body);
  cr_assert(j, "bad JSON: %s", r.body);
  cJSON *total = cJSON_GetObjectItemCaseSensitive(j, "total");
  cJSON *reqs = cJSON_GetObjectItemCaseSensitive(j, "requests");
  cr_assert(cJSON_IsNumber(total) && total->valueint == 5, "%s", r.body);
  cr_assert_eq(cJSON_GetObjectItemCaseSensitive(reqs, "GET /a.html")->valueint, 2);
  cr_assert_eq(cJSON_GetObjectItemCaseSensitive(reqs, "HEAD /a.html")->valueint, 1);
  cr_assert_eq(cJSON_GetObjectItemCaseSensitive(reqs, "GET /nope.html")->valueint, 1);
  cr_assert_null(cJSON_GetObjectItemCaseSensitive(reqs, "GET /__hits"));
  cJSON_Delete(j);
  resp_free(&r);
  cr_assert_eq(crawl_server_hits(srv, NULL), 5, "/__hits counted itself");
}

Test(serve, reset_zeroes_counters)
{
  t_resp r = get(port, "/a.html"); resp_free(&r);
  r = get(port, "/app.js"); resp_free(&r);
  cr_assert_eq(crawl_server_hits(srv, NULL), 2);
  r = get(port, "/__reset");
  cr_assert_eq(r.status, 200);
  resp_free(&r);
  cr_assert_eq(crawl_server_hits(srv, NULL), 0);
  r = get(port, "/__hits");
  cJSON *j = cJSON_Parse(r.body);
  cr_assert_eq(cJSON_GetObjectItemCaseSensitive(j, "total")->valueint, 0);
  cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "requests")), 0);
  cJSON_Delete(j);
  resp_free(&r);
  r = get(port, "/a.html"); resp_free(&r);
  cr_assert_eq(crawl_server_hits(srv, "/a.html"), 1);
}

/* The product's server does not tell anyone every path it was asked for,
 * nor lets anyone reset that: /__hits and /__reset are paths like any
 * other there (404), counted like any other. */
Test(serve_product, no_test_hooks)
{
  t_resp r = get(port, "/a.html"); resp_free(&r);
  r = get(port, "/__hits");
  cr_expect_eq(r.status, 404, "/__hits: %d %s", r.status, r.body);
  cr_expect_null(strstr(r.body ? r.body : "", "/a.html"), "the paths requested are not listed: %s", r.body);
  resp_free(&r);
  r = get(port, "/__reset");
  cr_expect_eq(r.status, 404, "/__reset: %d", r.status);
  resp_free(&r);
  cr_expect_eq(crawl_server_hits(srv, "/a.html"), 1, "nothing was reset");
  cr_expect_eq(crawl_server_hits(srv, "/__"), 2, "they were counted as ordinary requests");
}

Test(serve, post_is_counted_and_refused)
{
  t_resp r = req(port, "POST", "/a.html", "name=value");
  cr_assert_eq(r.status, 405);
  cr_assert_str_eq(resp_header(&r, "Allow"), "GET, HEAD");
  resp_free(&r);
  r = req(port, "DELETE", "/danger/form.html", NULL);  /* no handler: no sink */
  cr_assert_eq(r.status, 405);
  resp_free(&r);
  cr_assert_eq(crawl_server_hits(srv, "/a.html"), 1);
  cr_assert_eq(crawl_server_hits(srv, "/danger/"), 1);
  r = get(port, "/__hits");
  cr_assert(strstr(r.body, "\"POST /a.html\":1"), "%s", r.body);
  resp_free(&r);
}

Test(serve, post_body_is_discarded_on_keepalive)
{
  t_conn *c = conn_open(port);
  conn_sends(c, "POST /a.html HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 16\r\n\r\n");
  usleep(50 * 1000);  /* body in a separate packet */
  /* 16 body bytes that look like a request, then a real one */
  conn_sends(c, "GET / HTTP/1.1\r\nGET /a.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  t_resp r = conn_read(c, 0);
  cr_assert_eq(r.status, 405);
  resp_free(&r);
  r = conn_read(c, 0);
  cr_assert_eq(r.status, 200, "body bytes were parsed as a request");
  cr_assert_str_eq(r.body, "<p>a</p>");
  resp_free(&r);
  conn_close(c);
}

Test(serve, body_over_cap_is_refused)
{
  t_conn *c = conn_open(port);
  conn_sends(c, "POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 999999999999\r\n\r\n");
  t_resp r = conn_read(c, 0);
  cr_assert_eq(r.status, 413);
  resp_free(&r);
  conn_close(c);
}

Test(serve, keepalive_two_requests_one_connection)
{
  t_conn *c = conn_open(port);
  conn_sends(c, "GET /a.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  t_resp r = conn_read(c, 0);
  cr_assert_eq(r.status, 200);
  cr_assert_str_eq(resp_header(&r, "Connection"), "keep-alive");
  resp_free(&r);
  conn_sends(c, "GET /app.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  r = conn_read(c, 0);
  cr_assert_eq(r.status, 200);
  cr_assert_str_eq(r.body, "/app.js");
  resp_free(&r);
  /* pipelined: two requests in one write, answered in order */
  conn_sends(c, "GET /notes.txt HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /img.svg HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  r = conn_read(c, 0);
  cr_assert_str_eq(r.body, "/notes.txt");
  resp_free(&r);
  r = conn_read(c, 0);
  cr_assert_str_eq(r.body, "/img.svg");
  resp_free(&r);
  conn_close(c);
}

Test(serve, connection_close_closes)
{
  t_conn *c = conn_open(port);
  conn_sends(c, "GET /a.html HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  t_resp r = conn_read(c, 0);
  cr_assert_eq(r.status, 200);
  cr_assert_str_eq(resp_header(&r, "Connection"), "close");
  resp_free(&r);
  char b;
  cr_assert_eq(recv(c->fd, &b, 1, 0), 0, "server kept the connection open");
  conn_close(c);
  /* HTTP/1.0 without keep-alive closes too */
  c = conn_open(port);
  conn_sends(c, "GET /a.html HTTP/1.0\r\n\r\n");
  r = conn_read(c, 0);
  cr_assert_eq(r.status, 200);
  resp_free(&r);
  cr_assert_eq(recv(c->fd, &b, 1, 0), 0);
  conn_close(c);
}

Test(serve, oversized_head_is_431)
{
  t_conn *c = conn_open(port);
  conn_sends(c, "GET /a.html HTTP/1.1\r\nX-Big: ");
  char pad[20 * 1024];
  memset(pad, 'a', sizeof pad);
  /* the server may answer and close before reading it all: ignore send errors */
  send(c->fd, pad, sizeof pad, MSG_NOSIGNAL);
  t_resp r = conn_read(c, 0);
  cr_assert_eq(r.status, 431);
  resp_free(&r);
  conn_close(c);
}

Test(serve, garbage_is_400)
{
  t_conn *c = conn_open(port);
  conn_sends(c, "hello there\r\n\r\n");
  t_resp r = conn_read(c, 0);
  cr_assert_eq(r.status, 400);
  resp_free(&r);
  conn_close(c);
}

Test(serve, slow_client_does_not_block_others)
{
  t_conn *slow = conn_open(port);
  conn_sends(slow, "GET /a.html HTTP/1.1\r\nHo");
  /* several fast clients, like Chromium's parallel connections */
  long long t0 = now_ms();
  for (int i = 0; i < 8; i++) {
    t_resp r = get(port, "/app.js");
    cr_assert_eq(r.status, 200);
    resp_free(&r);
  }
  cr_assert_lt(now_ms() - t0, 2000);
  conn_sends(slow, "st: 127.0.0.1\r\n\r\n");
  t_resp r = conn_read(slow, 0);
  cr_assert_eq(r.status, 200);
  cr_assert_str_eq(r.body, "<p>a</p>");
  resp_free(&r);
  conn_close(slow);
}

Test(serve, many_concurrent_connections)
{
  enum { N = 40 };
  t_conn *cs[N];
  for (int i = 0; i < N; i++)
    cs[i] = conn_open(port);
  for (int i = N - 1; i >= 0; i--)
    conn_sends(cs[i], "GET /a.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  for (int i = 0; i < N; i++) {
    t_resp r = conn_read(cs[i], 0);
    cr_assert_eq(r.status, 200, "connection %d", i);
    resp_free(&r);
    conn_close(cs[i]);
  }
  cr_assert_eq(crawl_server_hits(srv, "/a.html"), N);
}

Test(serve_test, stop_with_open_connections_is_prompt)
{
  t_conn *idle = conn_open(port);
  t_conn *half = conn_open(port);
  t_conn *hang = conn_open(port);
  conn_sends(half, "GET /a.html HTTP/1.1\r\n");
  conn_sends(hang, "GET /__test/hang HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  t_conn *slow = conn_open(port);
  conn_sends(slow, "GET /__test/slow?ms=10000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  usleep(100 * 1000);
  long long t0 = now_ms();
  crawl_server_stop(srv);
  srv = NULL;
  cr_assert_lt(now_ms() - t0, 1000, "stop took %lld ms", now_ms() - t0);
  /* every client sees the connection end */
  t_conn *all[] = { idle, half, hang, slow };
  for (int i = 0; i < 4; i++) {
    char b;
    cr_assert(recv(all[i]->fd, &b, 1, 0) <= 0, "connection %d still open", i);
    conn_close(all[i]);
  }
}

/* ---- the tests' /__test/ endpoints (t_test_endpoints) -------------------- */

Test(serve_test, hang_does_not_block_others)
{
  t_conn *h = conn_open(port);
  conn_sends(h, "GET /__test/hang HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  t_resp r = get(port, "/a.html");
  cr_assert_eq(r.status, 200);
  resp_free(&r);
  cr_assert(silent_for(h->fd, 300), "/__test/hang answered");
  conn_close(h);
  cr_assert_eq(crawl_server_hits(srv, "/__test/hang"), 1);
  /* the server still works after the hanging client left */
  r = get(port, "/a.html");
  cr_assert_eq(r.status, 200);
  resp_free(&r);
}

Test(serve_test, slow_delays_without_blocking)
{
  t_conn *s = conn_open(port);
  long long t0 = now_ms();
  conn_sends(s, "GET /__test/slow?ms=400 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  t_resp r = get(port, "/a.html");
  cr_assert_eq(r.status, 200);
  cr_assert_lt(now_ms() - t0, 300, "a slow reply held up another client");
  resp_free(&r);
  r = conn_read(s, 0);
  cr_assert_eq(r.status, 200);
  cr_assert_geq(now_ms() - t0, 380);
  resp_free(&r);
  /* the same connection is reusable afterwards */
  conn_sends(s, "GET /a.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  r = conn_read(s, 0);
  cr_assert_eq(r.status, 200);
  resp_free(&r);
  conn_close(s);
}

Test(serve_test, redirect_status_download)
{
  t_resp r = get(port, "/__test/redirect?to=%2Fa.html%3Fx%3D1");
  cr_assert_eq(r.status, 302);
  cr_assert_str_eq(resp_header(&r, "Location"), "/a.html?x=1");
  resp_free(&r);
  r = get(port, "/__test/redirect?to=%0d%0aSet-Cookie:%20x=1");
  cr_assert_eq(r.status, 400, "header injection accepted");
  resp_free(&r);
  r = get(port, "/__test/status?code=418");
  cr_assert_eq(r.status, 418);
  resp_free(&r);
  r = get(port, "/__test/status?code=503");
  cr_assert_eq(r.status, 503);
  resp_free(&r);
  r = get(port, "/__test/status?code=abc");
  cr_assert_eq(r.status, 400);
  resp_free(&r);
  r = get(port, "/__test/download");
  cr_assert_eq(r.status, 200);
  const char *cd = resp_header(&r, "Content-Disposition");
  cr_assert(cd && strncmp(cd, "attachment", 10) == 0);
  resp_free(&r);
}

Test(serve_test, headers_adds_csp)
{
  t_resp r = get(port, "/__test/headers?file=%2Fa.html&csp=default-src%20%27none%27");
  cr_assert_eq(r.status, 200);
  cr_assert_str_eq(r.body, "<p>a</p>");
  cr_assert_str_eq(resp_header(&r, "Content-Security-Policy"), "default-src 'none'");
  cr_assert(strncmp(resp_header(&r, "Content-Type"), "text/html", 9) == 0);
  resp_free(&r);
  r = get(port, "/__test/headers?file=/../outside/secret.txt&csp=x");
  cr_assert_neq(r.status, 200);
  cr_assert(!strstr(r.body, "TOP-SECRET"));
  resp_free(&r);
}

Test(serve_test, echo_and_post_sinks)
{
  t_resp r = req(port, "POST", "/__test/echo?q=1", "hello");
  cr_assert_eq(r.status, 200);
  cJSON *j = cJSON_Parse(r.body);
  cr_assert(j, "%s", r.body);
  cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(j, "method")->valuestring, "POST");
  cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(j, "path")->valuestring, "/__test/echo");
  cr_assert_eq(cJSON_GetObjectItemCaseSensitive(j, "body_length")->valueint, 5);
  cJSON_Delete(j);
  resp_free(&r);
  r = req(port, "POST", "/danger/delete-account", "confirm=1");
  cr_assert_eq(r.status, 204);
  resp_free(&r);
  r = req(port, "POST", "/__test/beacon", "x");
  cr_assert_eq(r.status, 204);
  resp_free(&r);
  r = req(port, "POST", "/a.html", "x");  /* elsewhere still refused */
  cr_assert_eq(r.status, 405);
  resp_free(&r);
  r = get(port, "/danger/form.html");    /* GET under /danger/ serves files */
  cr_assert_eq(r.status, 200);
  resp_free(&r);
  cr_assert_eq(crawl_server_hits(srv, "/danger/"), 2);
  cr_assert_eq(crawl_server_hits(srv, "/__test/"), 2);
}

Test(serve, no_test_endpoints_without_the_handler)
{
  t_conn *c = conn_open(port);
  conn_sends(c, "GET /__test/hang HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  t_resp r = conn_read(c, 0);
  cr_assert_eq(r.status, 404);
  resp_free(&r);
  conn_close(c);
  r = get(port, "/__test/redirect?to=/a.html");
  cr_assert_eq(r.status, 404);
  resp_free(&r);
}

/* ---- the handler hook --------------------------------------------------- */

Test(serve_hook, handler_answers_before_the_file_lookup)
{
  t_resp r = get(port, "/hook/reply?x=a%20b+c");
  cr_assert_eq(r.status, 201);
  cr_assert_str_eq(resp_header(&r, "X-Hook"), "yes");
  cr_assert_str_eq(resp_header(&r, "Content-Type"), "text/plain");
  cr_assert_str_eq(r.body, "-1 -1 -1 -1 -1 -1", "a bad status or header was accepted: %s", r.body);
  cr_assert_null(resp_header(&r, "Set-Cookie"), "a header was split");
  cr_assert_str_eq(hook.seen, "GET /hook/reply ?x=a%20b+c x=a b c body=0");
  resp_free(&r);
  r = req(port, "POST", "/hook/reply", "12345");  /* any method */
  cr_assert_eq(r.status, 201);
  cr_assert_str_eq(hook.seen, "POST /hook/reply ? x=(none) body=5");
  resp_free(&r);
  /* HEAD: the length of the body, but no body */
  t_conn *c = conn_open(port);
  conn_sends(c, "HEAD /hook/reply HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /a.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  r = conn_read(c, 1);
  cr_assert_eq(r.status, 201);
  cr_assert_str_eq(resp_header(&r, "Content-Length"), "17");
  resp_free(&r);
  r = conn_read(c, 0);
  cr_assert_str_eq(r.body, "<p>a</p>", "HEAD sent a body");
  resp_free(&r);
  conn_close(c);
  /* answered without setting anything: 200, empty */
  r = get(port, "/hook/empty");
  cr_assert_eq(r.status, 200);
  cr_assert_str_eq(resp_header(&r, "Content-Length"), "0");
  resp_free(&r);
  /* returned 0: the server's own answer */
  r = req(port, "POST", "/a.html", "x");
  cr_assert_eq(r.status, 405);
  resp_free(&r);
  int calls = hook.calls;
  cr_assert_eq(calls, 6);
  /* hits are counted either way; /__hits and /__reset never reach it */
  cr_assert_eq(crawl_server_hits(srv, "/hook/"), 4);
  cr_assert_eq(crawl_server_hits(srv, "/a.html"), 2);
  r = get(port, "/__hits");
  cr_assert_eq(r.status, 200);
  resp_free(&r);
  r = get(port, "/__reset");
  resp_free(&r);
  cr_assert_eq(hook.calls, calls);
}

Test(serve_hook, file_replies_follow_the_rules_of_a_get)
{
  static const struct {
    const char *target;
    int status;
    const char *body;    /* NULL: not checked */
  } cases[] = {
    { "/hook/file?f=%2Fa.html", 200, "<p>a</p>" },
    { "/hook/file?f=/sub/", 200, "<h1>sub</h1>" },
    { "/hook/file?f=/sub", 404, NULL },   /* a directory: no redirect to the handler's URL */
    { "/hook/file?f=/nope.html", 404, NULL },
    { "/hook/file?f=a.html", 400, NULL },  /* not a path */
    { "/hook/file?f=/../outside/secret.txt", 403, NULL },
    { "/hook/file?f=/escape.txt", 403, NULL },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    t_resp r = get(port, cases[i].target);
    cr_assert_eq(r.status, cases[i].status, "%s: %d", cases[i].target, r.status);
    cr_assert(!strstr(r.body, "TOP-SECRET"), "%s leaked", cases[i].target);
    if (cases[i].body)
      cr_assert_str_eq(r.body, cases[i].body, "%s", cases[i].target);
    if (r.status == 200) {
      cr_assert_str_eq(resp_header(&r, "X-Hook"), "file");
      cr_assert(strncmp(resp_header(&r, "Content-Type"), "text/html", 9) == 0);
    }
    resp_free(&r);
  }
}

/* A long-running server sees ever new URLs: the table stops growing at
 * CRAWL_SERVER_HIT_PATHS keys, later new ones count as "other". */
Test(serve, hit_table_is_bounded)
{
  enum { CAP = CRAWL_SERVER_HIT_PATHS, MORE = 10, BATCH = 512 };
  t_conn *c = conn_open(port);
  static char batch[BATCH * 64];
  for (int i = 0; i < CAP + MORE; i += BATCH) {
    /* pipelined, one write a batch: the answers fit the socket buffers */
    int n = i + BATCH <= CAP + MORE ? BATCH : CAP + MORE - i;
    size_t len = 0;
    for (int k = 0; k < n; k++)
      len += (size_t)snprintf(batch + len, sizeof batch - len,
                              "GET /cap/%d.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", i + k);
    conn_send(c, batch, len);
    for (int k = 0; k < n; k++) {
      t_resp r = conn_read(c, 0);
      cr_assert_eq(r.status, 404, "request %d: %d", i + k, r.status);
      resp_free(&r);
    }
  }
  conn_close(c);
  t_resp r = get(port, "/cap/7.html");  /* a known key still counts as itself */
  resp_free(&r);
  cr_assert_eq(crawl_server_hits(srv, NULL), CAP + MORE + 1);
  cr_assert_eq(crawl_server_hits(srv, "/cap/"), CAP + 1);
  cr_assert_eq(crawl_server_hits(srv, "/cap/7.html"), 2);
  cr_assert_eq(crawl_server_hits(srv, "/cap/4100.html"), 0, "a key past the cap was kept");

  r = get(port, "/__hits");
  cJSON *j = cJSON_Parse(r.body);
  cr_assert(j);
  cJSON *reqs = cJSON_GetObjectItemCaseSensitive(j, "requests");
  cr_assert_eq(cJSON_GetArraySize(reqs), CAP + 1);
  cr_assert_eq(cJSON_GetObjectItemCaseSensitive(reqs, "other")->valueint, MORE);
  cr_assert_eq(cJSON_GetObjectItemCaseSensitive(j, "total")->valueint, CAP + MORE + 1);
  cJSON_Delete(j);
  resp_free(&r);
  /* a reset makes room again */
  r = get(port, "/__reset");
  resp_free(&r);
  r = get(port, "/cap/4100.html");
  resp_free(&r);
  cr_assert_eq(crawl_server_hits(srv, "/cap/4100.html"), 1);
  r = get(port, "/__hits");
  cr_assert(!strstr(r.body, "\"other\""), "%s", r.body);
  resp_free(&r);
}

/* ---- start errors -------------------------------------------------------- */

Test(serve, start_reports_errors)
{
  char err[256] = "";
  crawl_server *s2 = NULL;
  crawl_server_opts o = { .root = root, .port = port };
  cr_assert_eq(crawl_server_start(&o, &s2, err, sizeof err), -1, "port taken twice");
  cr_assert_null(s2);
  cr_assert(strstr(err, "listen"), "%s", err);
  err[0] = '\0';
  crawl_server_opts bad = { .root = "/nonexistent/dir/xyz" };
  cr_assert_eq(crawl_server_start(&bad, &s2, err, sizeof err), -1);
  cr_assert(strstr(err, "/nonexistent/dir/xyz"), "%s", err);
  crawl_server_opts nohost = { .root = root, .host = "192.0.2.1" };  /* not a local address */
  cr_assert_eq(crawl_server_start(&nohost, &s2, err, sizeof err), -1);
  crawl_server_stop(NULL);
  cr_assert_eq(crawl_server_hits(srv, NULL), 0);
}

/* ---- who may ask, and how slowly ------------------------------------------ */

static t_resp get_with_host(int port, const char *host)
{
  t_conn *c = conn_open(port);
  char head[512];
  snprintf(head, sizeof head, "GET /index.html HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", host);
  conn_sends(c, head);
  t_resp r = conn_read(c, 0);
  conn_close(c);
  return r;
}

Test(serve, a_foreign_host_name_is_misdirected)
{
  char h[64];
  snprintf(h, sizeof h, "localhost:%d", port);
  const char *ok[] = { h, "127.0.0.1", "LOCALHOST", "[::1]:9" };
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    t_resp r = get_with_host(port, ok[i]);
    cr_expect_eq(r.status, 200, "Host: %s gets %d", ok[i], r.status);
    resp_free(&r);
  }
  const char *bad[] = { "evil.example", "evil.example:80", "127.0.0.1.nip.io", "localhost.evil", "[::2]" };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    t_resp r = get_with_host(port, bad[i]);
    cr_expect_eq(r.status, 421, "Host: %s (DNS rebinding) gets %d, not 421", bad[i], r.status);
    resp_free(&r);
  }
}

Test(serve_heads, a_head_that_never_ends_is_dropped)
{
  t_conn *slow = conn_open(port);
  conn_sends(slow, "GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a");
  long long t0 = now_ms();
  char b;
  ssize_t n = recv(slow->fd, &b, 1, 0); /* SO_RCVTIMEO is 5 s */
  long long waited = now_ms() - t0;
  cr_expect_eq(n, 0, "the server closed the slow connection (recv %zd)", n);
  cr_expect(waited >= 250 && waited < 3000, "closed after %lld ms (timeout 300)", waited);
  conn_close(slow);
  /* a request sent briskly on a fresh connection is still served */
  t_resp r = get(port, "/index.html");
  cr_expect_eq(r.status, 200);
  resp_free(&r);
}

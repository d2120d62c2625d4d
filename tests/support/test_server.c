/* test_server.c -- the endpoints the hostile-page and server tests need,
 * plugged into the project's static server as its handler
 * (crawl_server_opts.handler = t_test_endpoints). Every one answers any
 * method:
 *   /__test/redirect?to=URL    302 with Location: URL.
 *   /__test/status?code=N      status N (100..599; 1xx is sent as 200) with
 *                              a short text body.
 *   /__test/slow?ms=N          200 after N ms (the server caps it at 60 s);
 *                              other clients are served meanwhile.
 *   /__test/hang               never answers; the connection stays open until
 *                              the client closes it or the server stops.
 *   /__test/download           200 with Content-Disposition: attachment
 *                              (filename "download.bin", 16 bytes).
 *   /__test/headers?file=/p&csp=V
 *                              serves file /p from root (same rules as a GET)
 *                              with "Content-Security-Policy: V" added.
 *   /__test/echo               200 JSON {"method","path","query","body_length"}.
 *   /__test/agent              200 HTML: button "H:<the User-Agent header>",
 *                              "C:<the Sec-CH-UA header>", "B:<the brands of
 *                              navigator.userAgentData>"
 *                              and button "J:<navigator.userAgent>" (set by
 *                              the page's script).
 *   /__test/signup             POST: the sign-up form of fixtures/signup,
 *                              validated field by field (test_signup.c):
 *                              200 "Account created", else 422 with the
 *                              errors. GET /__test/signup/log: JSON
 *                              {"accepted":[body,...],"rejected":N}.
 *   any other /__test/ path    204 for non-GET/HEAD methods (a harmless sink
 *                              for forms and beacons), 404 for GET/HEAD.
 * /auth/...: the sign-in app (auth_app.c); /book/...: the address book
 * (addrbook_app.c).
 * And /danger/...: 204 for non-GET/HEAD methods (the fixtures' dangerous
 * actions post there; the tests count the hits); GET/HEAD serve files.
 * /api/pets...: the REST app of fixtures/api (issue 28): GET /api/pets (a
 * JSON list, any query), GET /api/pets/<id> for ids 3, 4, 17 (JSON; 404
 * otherwise), 204 for any other method (a write: the tests prove by the
 * hit count that none arrived). */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char TEXT[] = "text/plain; charset=utf-8";

static int is_read(const crawl_request *req)
{
  return !strcmp(req->method, "GET") || !strcmp(req->method, "HEAD");
}

static void text_reply(crawl_response *res, int code, const char *text)
{
  crawl_response_status(res, code);
  crawl_response_body(res, TEXT, text, strlen(text));
}

static void ep_redirect(const crawl_request *req, crawl_response *res)
{
  char *to = crawl_request_param(req, "to");
  if (to && *to && crawl_response_header(res, "Location", to) == 0)
    text_reply(res, 302, "redirect\n");
  else
    text_reply(res, 400, "400 Bad Request\n");
  free(to);
}

static void ep_status(const crawl_request *req, crawl_response *res)
{
  char *v = crawl_request_param(req, "code"), *end = NULL;
  long code = v ? strtol(v, &end, 10) : 0;
  int ok = v && end != v && *end == '\0' && code >= 100 && code <= 599;
  free(v);
  if (!ok) {
    text_reply(res, 400, "400 Bad Request\n");
    return;
  }
  /* 1xx would need an interim-response protocol; send it as 200. */
  if (code < 200)
    code = 200;
  char body[32];
  snprintf(body, sizeof body, "%ld\n", code);
  text_reply(res, (int)code, body);
}

static void ep_slow(const crawl_request *req, crawl_response *res)
{
  char *v = crawl_request_param(req, "ms");
  long ms = v ? strtol(v, NULL, 10) : 0;
  free(v);
  if (ms < 0)
    ms = 0;
  if (ms > 60000)
    ms = 60000;
  char body[64];
  snprintf(body, sizeof body, "slow %ld\n", ms);
  text_reply(res, 200, body);
  crawl_response_delay(res, (int)ms);
}

static void ep_hang(const crawl_request *req, crawl_response *res)
{
  crawl_response_hang(res);
}

static void ep_download(const crawl_request *req, crawl_response *res)
{
  static const char data[] = "download payload";
  crawl_response_body(res, "application/octet-stream", data, sizeof data - 1);
  crawl_response_header(res, "Content-Disposition", "attachment; filename=\"download.bin\"");
}

static void ep_headers(const crawl_request *req, crawl_response *res)
{
  char *file = crawl_request_param(req, "file");
  char *csp = crawl_request_param(req, "csp");
  /* the file last: once set, it is what goes out */
  if (!file || !csp || crawl_response_header(res, "Content-Security-Policy", csp) != 0 ||
      crawl_response_file(res, file) != 0)
    text_reply(res, 400, "400 Bad Request\n");
  free(file);
  free(csp);
}

static void ep_echo(const crawl_request *req, crawl_response *res)
{
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "method", req->method);
  cJSON_AddStringToObject(o, "path", req->path);
  cJSON_AddStringToObject(o, "query", req->query);
  cJSON_AddNumberToObject(o, "body_length", (double)req->body_len);
  char *txt = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  if (!txt)
    abort();
  crawl_response_body(res, "application/json", txt, strlen(txt));
  free(txt);
}

/* s with < and & escaped into out (at most n bytes). */
static void html_escape(const char *s, char *out, size_t n)
{
  size_t k = 0;
  out[0] = 0;
  for (const char *c = s ? s : ""; *c && k + 6 < n; c++)
    k += (size_t)snprintf(out + k, n - k, "%s", *c == '<' ? "&lt;" : *c == '&' ? "&amp;" : (char[2]){*c, 0});
}

static void ep_agent(const crawl_request *req, crawl_response *res)
{
  char *ua = crawl_request_header(req, "User-Agent"), *ch = crawl_request_header(req, "Sec-CH-UA");
  char esc[2048], chesc[1024];
  html_escape(ua, esc, sizeof esc);
  html_escape(ch, chesc, sizeof chesc);
  char *html = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&html, &len);
  fprintf(f, "<!doctype html><title>agent</title><button>H:%s</button><button id=j>J:</button>"
             "<button>C:%s</button><button id=b>B:</button>"
             "<script>document.getElementById('j').textContent='J:'+navigator.userAgent;"
             "const d=navigator.userAgentData;document.getElementById('b').textContent='B:'+"
             "(d?d.brands.map(x=>x.brand+'/'+x.version).join(', '):'none')</script>", esc, chesc);
  fclose(f);
  crawl_response_body(res, "text/html; charset=utf-8", html, len);
  free(html);
  free(ua);
  free(ch);
}

static const struct {
  const char *name;   /* after "/__test/" */
  void (*fn)(const crawl_request *req, crawl_response *res);
} endpoints[] = {
  { "redirect", ep_redirect }, { "status", ep_status }, { "slow", ep_slow },
  { "hang", ep_hang },         { "download", ep_download }, { "headers", ep_headers },
  { "echo", ep_echo },         { "agent", ep_agent },
};

/* ---- /api/pets: the REST app of fixtures/api --------------------------------- */
static const struct { const char *id, *json; } pets[] = {
  { "3", "{\"id\":3,\"name\":\"Rex\",\"kind\":\"dog\",\"status\":\"available\"}" },
  { "4", "{\"id\":4,\"name\":\"Mia\",\"kind\":\"cat\",\"status\":\"available\"}" },
  { "17", "{\"id\":17,\"name\":\"Kiwi\",\"kind\":\"bird\",\"status\":\"available\"}" },
};

static int pets_api(const crawl_request *req, crawl_response *res)
{
  if (strcmp(req->path, "/api/pets") && strncmp(req->path, "/api/pets/", 10))
    return 0;
  if (!is_read(req)) {
    crawl_response_status(res, 204);
    return 1;
  }
  if (!strcmp(req->path, "/api/pets")) {
    static const char list[] = "[{\"id\":3,\"name\":\"Rex\"},{\"id\":4,\"name\":\"Mia\"},"
                               "{\"id\":17,\"name\":\"Kiwi\"}]";
    crawl_response_body(res, "application/json", list, sizeof list - 1);
    return 1;
  }
  for (size_t i = 0; i < sizeof pets / sizeof pets[0]; i++)
    if (!strcmp(req->path + 10, pets[i].id)) {
      crawl_response_body(res, "application/json", pets[i].json, strlen(pets[i].json));
      return 1;
    }
  text_reply(res, 404, "404 Not Found\n");
  return 1;
}

int t_test_endpoints(void *ud, const crawl_request *req, crawl_response *res)
{
  (void)ud;
  if (t_auth_app(req, res) || t_addrbook_app(req, res) || pets_api(req, res))
    return 1;
  if (!strncmp(req->path, "/danger/", 8)) {
    if (is_read(req))
      return 0;
    crawl_response_status(res, 204);
    return 1;
  }
  if (strncmp(req->path, "/__test/", 8))
    return 0;
  if (t_signup(req, res))
    return 1;
  const char *name = req->path + 8;
  for (size_t i = 0; i < sizeof endpoints / sizeof endpoints[0]; i++)
    if (!strcmp(name, endpoints[i].name)) {
      endpoints[i].fn(req, res);
      return 1;
    }
  if (is_read(req))
    text_reply(res, 404, "404 Not Found\n");
  else
    crawl_response_status(res, 204);
  return 1;
}

/* auth_app.c -- the fixture sign-in app under /auth/ (tests/e2e/session.c),
 * served by the fixture servers through t_test_endpoints:
 *   GET  /auth/login[?expire=N]  a form with a CSRF token (user, password);
 *                                ?autofill=USER: it signs USER in by script
 *   POST /auth/login             checks token, user and password; sets the
 *                                HttpOnly cookie sid=<random> (Path=/auth)
 *                                and 302s to /auth/app/; the session ends
 *                                after N app page views (expire=N; 0: never)
 *   /auth/app/...                needs the cookie, or the request header
 *                                X-Test-Token: T_AUTH_TOKEN (a viewer);
 *                                else 302 to /auth/login. Pages: / (links;
 *                                Users and Audit log only for admin; Export
 *                                CSV, a download the gate denies), profile
 *                                (shows the session's cookie value or the
 *                                token: secrets the crawl must not write),
 *                                users (admin only: 403 for a viewer),
 *                                audit (linked for admin, not protected),
 *                                ?other=PORT: the home page loads an image
 *                                from 127.0.0.1:PORT/auth/app/other-origin,
 *                                note?ls=yes|no (the home page's script says
 *                                whether localStorage "auth-note" was there),
 *                                stats (its load GETs api/stats: 200
 *                                JSON for admin, 403 JSON for viewer)
 *   GET  /auth/__log             {"reached":[{"user","via","path"}...],
 *                                "issued":[sid...]}: every app page a
 *                                principal reached, every session id set
 *   GET  /auth/__reset           forgets sessions and the log
 * Users: admin / admin-pass (admin), viewer / viewer-pass (viewer). One
 * state for both fixture ports, behind a mutex (the servers' threads). */
#include "support.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SESSIONS 64
#define MAX_LOG 512

typedef struct { char sid[33]; const char *user, *role; int views, limit; } auth_session;
typedef struct { const char *user, *via; char path[96]; } auth_hit;
typedef struct { const char *user, *role; auth_session *s; const char *via; } principal;

static const struct { const char *user, *password, *role; } users[] = {
  {"admin", "admin-pass", "admin"}, {"viewer", "viewer-pass", "viewer"},
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static auth_session sessions[MAX_SESSIONS];
static int nsessions;
static char csrf[MAX_SESSIONS][33];
static int ncsrf;
static auth_hit hits[MAX_LOG];
static int nhits;
static char issued[MAX_SESSIONS][33]; /* every sid set, also after it expired */
static int nissued;

static void random_hex(char out[33]) {
  FILE *f = fopen("/dev/urandom", "rb");
  unsigned char b[16] = {0};
  if (!f || fread(b, 1, sizeof b, f) != sizeof b) abort();
  fclose(f);
  for (int i = 0; i < 16; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static void html(crawl_response *res, int code, const char *body) {
  crawl_response_status(res, code);
  crawl_response_body(res, "text/html; charset=utf-8", body, strlen(body));
}

static void redirect(crawl_response *res, const char *to) {
  crawl_response_header(res, "Location", to);
  html(res, 302, "<p>moved</p>");
}

/* ---- sign-in ----------------------------------------------------------------- */
/* ?autofill=USER: the page signs USER in by itself (a scripted sign-in for
 * `login --save-state`, which needs a person otherwise). */
static void autofill_script(const char *user, char *out, size_t cap) {
  out[0] = 0;
  for (size_t i = 0; user && i < sizeof users / sizeof *users; i++)
    if (!strcmp(user, users[i].user))
      snprintf(out, cap,
               "<script>setTimeout(()=>{const f=document.forms[0];f.user.value='%s';"
               "f.password.value='%s';f.submit()},300)</script>", users[i].user, users[i].password);
}

static void login_form(const crawl_request *req, crawl_response *res) {
  char *expire = crawl_request_param(req, "expire"), *auto_user = crawl_request_param(req, "autofill");
  char page[1536], script[256];
  autofill_script(auto_user, script, sizeof script);
  if (ncsrf == MAX_SESSIONS) ncsrf = 0;
  random_hex(csrf[ncsrf]);
  snprintf(page, sizeof page,
           "<!doctype html><title>Sign in</title><h1>Sign in</h1>"
           "<form method=post action=/auth/login><input type=hidden name=csrf value=%s>"
           "<input type=hidden name=expire value=\"%d\">"
           "<label>User <input name=user></label><label>Password <input type=password name=password></label>"
           "<button type=submit>Sign in</button></form>%s",
           csrf[ncsrf++], expire ? atoi(expire) : 0, script);
  free(expire);
  free(auto_user);
  html(res, 200, page);
}

static int csrf_ok(const char *t) {
  for (int i = 0; t && i < MAX_SESSIONS; i++)
    if (csrf[i][0] && !strcmp(csrf[i], t)) return 1;
  return 0;
}

static const char *role_of(const char *user, const char *password) {
  for (size_t i = 0; user && password && i < sizeof users / sizeof *users; i++)
    if (!strcmp(user, users[i].user) && !strcmp(password, users[i].password)) return users[i].role;
  return NULL;
}

static void login_post(const crawl_request *req, crawl_response *res) {
  crawl_request form = {.query = req->body}; /* an urlencoded body reads as a query */
  char *t = crawl_request_param(&form, "csrf"), *u = crawl_request_param(&form, "user");
  char *pw = crawl_request_param(&form, "password"), *ex = crawl_request_param(&form, "expire");
  const char *role = role_of(u, pw);
  if (!csrf_ok(t) || !role || nsessions == MAX_SESSIONS) {
    html(res, 403, "<p>Sign-in refused</p><a href=/auth/login>Try again</a>");
  } else {
    auth_session *s = &sessions[nsessions++];
    random_hex(s->sid);
    if (nissued < MAX_SESSIONS) memcpy(issued[nissued++], s->sid, sizeof s->sid);
    s->user = !strcmp(role, "admin") ? "admin" : "viewer";
    s->role = role;
    s->views = 0;
    s->limit = ex ? atoi(ex) : 0;
    char cookie[128];
    snprintf(cookie, sizeof cookie, "sid=%s; HttpOnly; Path=/auth; SameSite=Lax", s->sid);
    crawl_response_header(res, "Set-Cookie", cookie);
    redirect(res, "/auth/app/");
  }
  free(t), free(u), free(pw), free(ex);
}

/* ---- who is asking ----------------------------------------------------------- */
static auth_session *session_of(const crawl_request *req) {
  char *c = crawl_request_header(req, "Cookie"), *p = c;
  auth_session *found = NULL;
  while (p && (p = strstr(p, "sid=")) && !found) {
    p += 4;
    for (int i = 0; i < nsessions && !found; i++)
      if (sessions[i].sid[0] && !strncmp(p, sessions[i].sid, 32)) found = &sessions[i];
  }
  free(c);
  return found;
}

static principal principal_of(const crawl_request *req) {
  auth_session *s = session_of(req);
  if (s) return (principal){s->user, s->role, s, "cookie"};
  char *tok = crawl_request_header(req, "X-Test-Token");
  int ok = tok && !strcmp(tok, T_AUTH_TOKEN);
  free(tok);
  return ok ? (principal){"viewer", "viewer", NULL, "header"} : (principal){0};
}

static void log_hit(const principal *who, const char *path, const char *query) {
  if (nhits == MAX_LOG) return;
  auth_hit *h = &hits[nhits++];
  h->user = who->user;
  h->via = who->via;
  snprintf(h->path, sizeof h->path, "%s%s%s", path, *query ? "?" : "", query);
}

/* ---- the app ----------------------------------------------------------------- */
/* /auth/app/stats (linked from nowhere: a plan seeds it): its load GETs
 * /auth/app/api/stats, 200 for admin, 403 for viewer. */
static const char STATS_PAGE[] =
  "<!doctype html><title>Stats</title><h1>Stats</h1><p id=s>Loading</p><a href=/auth/app/>Home</a>"
  "<script>fetch('/auth/app/api/stats').then(r=>{document.getElementById('s').textContent="
  "r.ok?'Stats shown':'Stats forbidden';});</script>";

static void app_home(const crawl_request *req, const principal *who, crawl_response *res) {
  char page[2048], img[128] = "";
  int admin = !strcmp(who->role, "admin");
  char *other = crawl_request_param(req, "other"); /* a port: another origin */
  if (other && atoi(other) > 0)
    snprintf(img, sizeof img, "<img alt=\"\" src=\"http://127.0.0.1:%d/auth/app/other-origin\">", atoi(other));
  free(other);
  snprintf(page, sizeof page,
           "<!doctype html><title>App</title><h1>Welcome %s</h1><nav>"
           "<a href=/auth/app/profile>Profile</a>%s%s"
           /* denied (a download): probing access must never fetch it */
           "<a download href=/danger/reports/export.csv>Export CSV</a></nav>%s"
           "<script>var n=localStorage.getItem('auth-note');"
           "fetch('/auth/app/note?ls='+(n?'yes':'no'));"
           "if(!n)localStorage.setItem('auth-note','note-'+Math.random().toString(36).slice(2)+'-ls');"
           "</script>",
           who->user, admin ? "<a href=/auth/app/users>Users</a>" : "",
           admin ? "<a href=/auth/app/audit>Audit log</a>" : "", img);
  html(res, 200, page);
}

static void app_profile(const principal *who, crawl_response *res) {
  char page[1024];
  snprintf(page, sizeof page, "<!doctype html><title>Profile</title><h1>Profile of %s</h1>"
           "<p>Signed in with %s <code>%s</code></p><a href=/auth/app/>Home</a>",
           who->user, who->via, who->s ? who->s->sid : T_AUTH_TOKEN);
  html(res, 200, page);
}

static void app_page(const crawl_request *req, crawl_response *res) {
  principal who = principal_of(req);
  if (who.s && who.s->limit && ++who.s->views > who.s->limit) {
    who.s->sid[0] = 0; /* expired */
    who = (principal){0};
  }
  if (!who.user) return redirect(res, "/auth/login");
  const char *page = req->path + strlen("/auth/app/");
  if (!strcmp(page, "users") && strcmp(who.role, "admin"))
    return html(res, 403, "<p>Forbidden</p><a href=/auth/app/>Home</a>");
  if (!strcmp(page, "api/stats")) { /* issue 28: one endpoint, two answers */
    int admin = !strcmp(who.role, "admin");
    const char *j = admin ? "{\"users\":2,\"sessions\":1}" : "{\"error\":\"forbidden\"}";
    crawl_response_status(res, admin ? 200 : 403);
    crawl_response_body(res, "application/json", j, strlen(j));
    return;
  }
  log_hit(&who, req->path, !strcmp(page, "note") ? req->query : "");
  if (!*page) app_home(req, &who, res);
  else if (!strcmp(page, "profile")) app_profile(&who, res);
  else if (!strcmp(page, "users")) html(res, 200, "<title>Users</title><h1>Users</h1><a href=/auth/app/>Home</a>");
  else if (!strcmp(page, "audit")) html(res, 200, "<title>Audit log</title><h1>Audit log</h1><a href=/auth/app/>Home</a>");
  else if (!strcmp(page, "note")) html(res, 200, "ok");
  else if (!strcmp(page, "stats")) html(res, 200, STATS_PAGE);
  else html(res, 404, "<p>Not found</p>");
}

/* ---- test endpoints ------------------------------------------------------------- */
static void auth_log(crawl_response *res) {
  cJSON *o = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(o, "reached");
  for (int i = 0; i < nhits; i++) {
    cJSON *h = cJSON_CreateObject();
    cJSON_AddStringToObject(h, "user", hits[i].user);
    cJSON_AddStringToObject(h, "via", hits[i].via);
    cJSON_AddStringToObject(h, "path", hits[i].path);
    cJSON_AddItemToArray(a, h);
  }
  cJSON *is = cJSON_AddArrayToObject(o, "issued");
  for (int i = 0; i < nissued; i++) cJSON_AddItemToArray(is, cJSON_CreateString(issued[i]));
  char *t = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  crawl_response_body(res, "application/json", t, strlen(t));
  free(t);
}

static void auth_route(const crawl_request *req, crawl_response *res) {
  int post = !strcmp(req->method, "POST");
  if (!strcmp(req->path, "/auth/login")) post ? login_post(req, res) : login_form(req, res);
  else if (!strncmp(req->path, "/auth/app/", 10)) app_page(req, res);
  else if (!strcmp(req->path, "/auth/__log")) auth_log(res);
  else if (!strcmp(req->path, "/auth/__reset")) {
    nsessions = nhits = ncsrf = nissued = 0;
    html(res, 200, "reset");
  } else html(res, 404, "<p>Not found</p>");
}

int t_auth_app(const crawl_request *req, crawl_response *res) {
  if (strncmp(req->path, "/auth/", 6)) return 0;
  pthread_mutex_lock(&mu);
  auth_route(req, res);
  pthread_mutex_unlock(&mu);
  return 1;
}

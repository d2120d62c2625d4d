/* addrbook_app.c -- a small server-rendered address book under /book/
 * (tests/e2e/navigate.c), modelled on a real PHP app the crawler could not
 * explore (issue 27 section 5), served through t_test_endpoints:
 *   GET  /book/login        the sign-in form: two text fields without
 *                               labels (user, then password: type=password)
 *                               and a submit button "Login"
 *   POST /book/login        admin / book-pass: sets the HttpOnly cookie
 *                               abid=<random> (Path=/book), bound to the
 *                               request's User-Agent as the real app does,
 *                               and 302s to /book/; else 403
 *   /book/ (and below)      needs that cookie from the same User-Agent,
 *                               or the header X-Addrbook-Token:
 *                               T_ADDRBOOK_TOKEN; else 302 to the sign-in
 *                               form. Pages:
 *     /book/?group=G&q=S    the list: a GET form whose group <select>
 *                               submits on change, a GET search form, a row
 *                               link per entry, "Birthdays" (a link whose
 *                               click runs location.assign), "Log out"
 *     /book/view?id=N       one entry
 *     /book/birthdays       the birthdays page
 *     /book/logout          ends the session (the gate never goes there)
 *   GET  /book/__log        {"pages":N,"logouts":N,"posts":N}: app pages
 *                               served signed in, logouts, sign-in posts
 *   GET  /book/__reset      forgets sessions and counts
 * One state for both fixture ports, behind a mutex. */
#include "support.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SESSIONS 32

typedef struct { char sid[33]; char agent[256]; } book_session;

static const struct { const char *name, *group; } entries[] = {
  {"Ada Lovelace", "family"}, {"Alan Turing", "work"},     {"Grace Hopper", "work"},
  {"Edsger Dijkstra", "friends"}, {"Barbara Liskov", "family"}, {"Donald Knuth", "friends"},
};
static const char *const groups[] = {"family", "work", "friends"};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static book_session sessions[MAX_SESSIONS];
static int nsessions, pages, logouts, posts;

static void html(crawl_response *res, int code, const char *body) {
  crawl_response_status(res, code);
  crawl_response_body(res, "text/html; charset=utf-8", body, strlen(body));
}

static void redirect(crawl_response *res, const char *to) {
  crawl_response_header(res, "Location", to);
  html(res, 302, "<p>moved</p>");
}

static void random_hex(char out[33]) {
  FILE *f = fopen("/dev/urandom", "rb");
  unsigned char b[16] = {0};
  if (!f || fread(b, 1, sizeof b, f) != sizeof b) abort();
  fclose(f);
  for (int i = 0; i < 16; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* ---- signing in ------------------------------------------------------------------ */
static void login_form(crawl_response *res) {
  html(res, 200, "<!doctype html><title>Address book: login</title><h1>Address book</h1>"
                 "<form method=post action=/book/login><p><input type=text name=user></p>"
                 "<p><input type=password name=pass></p><p><input type=submit value=Login></p></form>");
}

static void login_post(const crawl_request *req, crawl_response *res) {
  crawl_request form = {.query = req->body};
  char *u = crawl_request_param(&form, "user"), *pw = crawl_request_param(&form, "pass");
  char *agent = crawl_request_header(req, "User-Agent");
  posts++;
  if (!u || !pw || strcmp(u, "admin") || strcmp(pw, "book-pass") || nsessions == MAX_SESSIONS) {
    html(res, 403, "<title>Address book: login</title><p>Wrong user or password</p><a href=/book/login>Again</a>");
  } else {
    book_session *s = &sessions[nsessions++];
    random_hex(s->sid);
    snprintf(s->agent, sizeof s->agent, "%s", agent ? agent : "");
    char cookie[128];
    snprintf(cookie, sizeof cookie, "abid=%s; HttpOnly; Path=/book; SameSite=Lax", s->sid);
    crawl_response_header(res, "Set-Cookie", cookie);
    redirect(res, "/book/");
  }
  free(u), free(pw), free(agent);
}

/* The request's session: its cookie, from the browser that signed in. */
static int signed_in(const crawl_request *req) {
  char *tok = crawl_request_header(req, "X-Addrbook-Token");
  int ok = tok && !strcmp(tok, T_ADDRBOOK_TOKEN);
  free(tok);
  char *c = crawl_request_header(req, "Cookie"), *agent = crawl_request_header(req, "User-Agent");
  const char *p = c ? strstr(c, "abid=") : NULL;
  for (int i = 0; p && !ok && i < nsessions; i++)
    ok = sessions[i].sid[0] && !strncmp(p + 5, sessions[i].sid, 32) && !strcmp(sessions[i].agent, agent ? agent : "");
  free(c), free(agent);
  return ok;
}

/* ---- the book ---------------------------------------------------------------------- */
static int matches(size_t i, const char *group, const char *q) {
  if (group && *group && strcmp(entries[i].group, group)) return 0;
  return !q || !*q || strcasestr(entries[i].name, q) != NULL;
}

static void book_list(const crawl_request *req, crawl_response *res) {
  char *group = crawl_request_param(req, "group"), *q = crawl_request_param(req, "q");
  char *page = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&page, &len);
  fprintf(f, "<!doctype html><title>Address book%s%s</title><h1>%s%s</h1>"
             "<p><a href=/book/>Home</a> <a href=/book/logout>Log out</a> "
             "<a href=#birthdays onclick=\"location.assign('/book/birthdays');return false\">Birthdays</a></p>"
             "<form method=get action=/book/>Group: <select name=group onchange=\"this.parentNode.submit()\">"
             "<option value=\"\">[all]</option>",
          group && *group ? ": " : "", group && *group ? group : "", group && *group ? "Group " : "All contacts",
          group && *group ? group : "");
  for (size_t g = 0; g < sizeof groups / sizeof *groups; g++)
    fprintf(f, "<option value=%s%s>%s</option>", groups[g], group && !strcmp(group, groups[g]) ? " selected" : "",
            groups[g]);
  fprintf(f, "</select></form><form method=get action=/book/><input type=text name=q aria-label=Search> "
             "<input type=submit value=Search></form><table><tr><th>Name</th><th>Group</th></tr>");
  int shown = 0;
  for (size_t i = 0; i < sizeof entries / sizeof *entries; i++)
    if (matches(i, group, q))
      shown++, fprintf(f, "<tr><td><a href=\"/book/view?id=%zu\">%s</a></td><td>%s</td></tr>", i, entries[i].name,
                       entries[i].group);
  fprintf(f, "</table><p>Number of results: %d</p>", shown);
  fclose(f);
  html(res, 200, page);
  free(page), free(group), free(q);
}

static void book_view(const crawl_request *req, crawl_response *res) {
  char *id = crawl_request_param(req, "id"), page[512];
  int i = id ? atoi(id) : -1;
  free(id);
  if (i < 0 || (size_t)i >= sizeof entries / sizeof *entries) return html(res, 404, "<p>No such entry</p>");
  snprintf(page, sizeof page, "<!doctype html><title>%s</title><h1>%s</h1><p>Group %s</p>"
           "<a href=/book/>Home</a>", entries[i].name, entries[i].name, entries[i].group);
  html(res, 200, page);
}

static void book_page(const crawl_request *req, crawl_response *res) {
  const char *page = req->path + strlen("/book/");
  if (!strcmp(page, "logout")) {
    logouts++;
    return redirect(res, "/book/login");
  }
  if (!signed_in(req)) return redirect(res, "/book/login");
  pages++;
  if (!*page || !strcmp(page, "index.php")) book_list(req, res);
  else if (!strcmp(page, "view")) book_view(req, res);
  else if (!strcmp(page, "birthdays"))
    html(res, 200, "<!doctype html><title>Birthdays</title><h1>Birthdays this month</h1><p>Ada Lovelace, 10th</p>"
                   "<a href=/book/>Home</a>");
  else html(res, 404, "<p>Not found</p>");
}

static void book_route(const crawl_request *req, crawl_response *res) {
  if (!strcmp(req->path, "/book/login")) {
    if (!strcmp(req->method, "POST")) login_post(req, res);
    else login_form(res);
  } else if (!strcmp(req->path, "/book/__log")) {
    char t[128];
    snprintf(t, sizeof t, "{\"pages\":%d,\"logouts\":%d,\"posts\":%d}", pages, logouts, posts);
    crawl_response_body(res, "application/json", t, strlen(t));
  } else if (!strcmp(req->path, "/book/__reset")) {
    nsessions = pages = logouts = posts = 0;
    html(res, 200, "reset");
  } else if (strcmp(req->method, "GET") && strcmp(req->method, "HEAD")) {
    html(res, 405, "<p>Method not allowed</p>");
  } else {
    book_page(req, res);
  }
}

int t_addrbook_app(const crawl_request *req, crawl_response *res) {
  if (strncmp(req->path, "/book/", 6)) return 0;
  pthread_mutex_lock(&mu);
  book_route(req, res);
  pthread_mutex_unlock(&mu);
  return 1;
}

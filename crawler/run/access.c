/* access.c -- access probing: after exploring, each route one principal
 * reached is opened by URL (a GET, the write guard on) as each other
 * principal, and what it shows is classified: reached (found by
 * exploring), direct (not offered, but opened and shown), denied (4xx,
 * sent to sign-in, or the app's not-allowed page), absent (not probed).
 * The classification and the route key; the run (explore.c) drives it and
 * writes DIR/access.json. docs/principals.md. */
#include "crawl.h"
#include "run_int.h"
#include "pg_url.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const access_names[] = {"absent", "reached", "direct", "denied"};

const char *crawl__access_name(crawl__access a) {
  return a >= 0 && (size_t)a < sizeof access_names / sizeof *access_names ? access_names[a] : "absent";
}

/* Words of a title or heading that mean the app refused the page. */
static const char *const denied_words[] = {
  "forbidden", "access denied", "not allowed", "not authorized", "unauthorized", "permission denied",
  "no permission", "zugriff verweigert", "keine berechtigung",
};

static int says_denied(const char *text) {
  for (size_t i = 0; text && i < sizeof denied_words / sizeof *denied_words; i++)
    if (strcasestr(text, denied_words[i])) return 1;
  return 0;
}

/* The page's title, its first heading or its first text says denied. */
static int denied_page(const pg_graph *g) {
  if (says_denied(g->route_title)) return 1;
  for (size_t i = 0; i < g->nelements && i < 64; i++) {
    const pg_element *e = &g->elements[i];
    if (e->role && (!strcmp(e->role, "heading") || !strcmp(e->role, "paragraph") || !strcmp(e->role, "StaticText") ||
                    !strcmp(e->role, "text")) && says_denied(e->name))
      return 1;
  }
  return 0;
}

crawl__access crawl__access_classify(int status, int signin_page, const pg_graph *g) {
  if (status >= 400 || signin_page || !g) return CRAWL__ACCESS_DENIED;
  if (g->route_url && !strncmp(g->route_url, "chrome-error:", 13)) return CRAWL__ACCESS_DENIED;
  return denied_page(g) ? CRAWL__ACCESS_DENIED : CRAWL__ACCESS_DIRECT;
}

void crawl__access_route(const char *url, char *buf, size_t n) {
  const char *p = url ? pg_url_rest(url) : ""; /* "/path?query#fragment" */
  if (p[0] != '/') p = "/";
  snprintf(buf, n, "%.*s", (int)pg_url_query_start(p), p);
}

/* report_html_api.c -- report.html's "API" section (docs/reports.md): the
 * endpoints of DIR/api.json (docs/api.md) with who calls them, the writes
 * the guard stopped and the endpoints principals are served differently.
 * Reads api.json only; the catalog is built with the package (api*.c).
 */
#include "report_int.h"

/* DIR/api.json, or NULL (a package file, a run before issue #28, unreadable). */
cJSON *rp_api_load(const rp *r) {
  if (!r->dir) return NULL;
  char *path = crawl__xprintf("%s/api.json", r->dir);
  cJSON *api = NULL;
  if (access(path, F_OK) == 0) {
    char err[512];
    api = crawl__json_load(path, err, sizeof err);
    if (!api) crawl_log(CRAWL_LOG_WARN, "report", "API section left out: %s", err);
  }
  free(path);
  return api;
}

/* role "name", escaped (rp_target_label writes raw text, for DOT). */
static void h_target(crawl__buf *b, const cJSON *t) {
  if (!t) return;
  h(b, crawl__str(t, "role") ? crawl__str(t, "role") : "element");
  crawl__buf_puts(b, " &quot;");
  h(b, crawl__str(t, "name"));
  crawl__buf_puts(b, "&quot;");
}

static void h_statuses(crawl__buf *b, const cJSON *sts) {
  const cJSON *x;
  int i = 0;
  cJSON_ArrayForEach(x, sts) if (cJSON_IsNumber(x)) crawl__buf_printf(b, "%s%d", i++ ? ", " : "", x->valueint);
  if (!i) crawl__buf_puts(b, "<span class=\"muted\">none</span>");
}

/* "owner: 200; viewer: 403" */
static void h_principals(crawl__buf *b, const cJSON *prs) {
  const cJSON *p;
  int i = 0;
  cJSON_ArrayForEach(p, prs) {
    if (i++) crawl__buf_puts(b, "; ");
    h(b, crawl__str(p, "principal"));
    crawl__buf_puts(b, ": ");
    h_statuses(b, crawl__arr(p, "statuses"));
  }
  if (!i) crawl__buf_puts(b, "<span class=\"muted\">–</span>");
}

/* The actions (target names) of the transitions that called it, and of
 * the self-loops (by their state). */
static void h_callers(crawl__buf *b, const cJSON *cf) {
  int nl = cJSON_GetArraySize(crawl__arr(cf, "loads")), ns = cJSON_GetArraySize(crawl__arr(cf, "states"));
  crawl__buf_printf(b, "%d load%s, %d state%s", nl, nl == 1 ? "" : "s", ns, ns == 1 ? "" : "s");
  const cJSON *t;
  int i = 0;
  const char *lists[][2] = {{"transitions", "transitionId"}, {"actions", "stateId"}};
  for (size_t k = 0; k < 2; k++)
    cJSON_ArrayForEach(t, crawl__arr(cf, lists[k][0])) {
      crawl__buf_puts(b, i++ ? ", " : "<br>");
      rp_h_code(b, crawl__str(t, lists[k][1]));
      crawl__buf_puts(b, " ");
      h_target(b, crawl__get(t, "target"));
    }
  if (cJSON_GetArraySize(crawl__arr(cf, "routes"))) {
    crawl__buf_puts(b, "<br>");
    rp_h_list(b, crawl__arr(cf, "routes"), 5, 1);
  }
}

static void h_endpoints(crawl__buf *b, const cJSON *api) {
  crawl__buf_puts(b, "<table><thead><tr><th>Method</th><th>Template</th><th>Kind</th><th>Statuses</th><th>Calls</th>"
                     "<th>Called from</th><th>Principals</th><th>Guard</th></tr></thead><tbody>");
  const cJSON *e;
  cJSON_ArrayForEach(e, crawl__arr(api, "endpoints")) {
    crawl__buf_puts(b, "<tr><td>");
    h(b, crawl__str(e, "method"));
    crawl__buf_puts(b, "</td><td>");
    rp_h_code(b, crawl__str(e, "template"));
    crawl__buf_puts(b, "</td><td>");
    h(b, crawl__str(e, "kind"));
    crawl__buf_puts(b, "</td><td>");
    h_statuses(b, crawl__arr(e, "statuses"));
    crawl__buf_printf(b, "</td><td>%.0f</td><td>", crawl__num(e, "count", 0));
    h_callers(b, crawl__get(e, "calledFrom"));
    crawl__buf_puts(b, "</td><td>");
    h_principals(b, crawl__arr(e, "principals"));
    const cJSON *g = crawl__get(e, "guard");
    crawl__buf_printf(b, "</td><td>%.0f passed, %.0f read, %.0f stopped</td></tr>", crawl__num(g, "passed", 0),
                      crawl__num(g, "read", 0), crawl__num(g, "stopped", 0));
  }
  crawl__buf_puts(b, "</tbody></table>");
}

static void h_stopped(crawl__buf *b, const cJSON *api) {
  const cJSON *list = crawl__arr(api, "stoppedWrites"), *w;
  if (!cJSON_GetArraySize(list)) return;
  crawl__buf_puts(b, "<h3>Stopped writes</h3><p>Requests the write guard failed: what these controls would have written.</p>"
                     "<table><thead><tr><th>Request</th><th>Why</th><th>State</th><th>Control</th><th>Transition</th></tr></thead><tbody>");
  cJSON_ArrayForEach(w, list) {
    crawl__buf_puts(b, "<tr><td>");
    h(b, crawl__str(w, "method"));
    crawl__buf_puts(b, " ");
    rp_h_code(b, crawl__str(w, "template"));
    crawl__buf_puts(b, "</td><td>");
    h(b, crawl__str(w, "why"));
    crawl__buf_puts(b, "</td><td>");
    rp_h_code(b, crawl__str(w, "stateId"));
    crawl__buf_puts(b, "</td><td>");
    rp_h_code(b, crawl__str(w, "actionId"));
    crawl__buf_puts(b, " ");
    h_target(b, crawl__get(w, "target"));
    if (cJSON_IsTrue(crawl__get(w, "probed"))) crawl__buf_puts(b, " <span class=\"muted\">(sealed probe)</span>");
    crawl__buf_puts(b, "</td><td>");
    rp_h_code(b, crawl__str(w, "transitionId"));
    crawl__buf_puts(b, "</td></tr>");
  }
  crawl__buf_puts(b, "</tbody></table>");
}

static void h_access(crawl__buf *b, const cJSON *api) {
  const cJSON *list = crawl__arr(api, "accessDifferences"), *d;
  if (!cJSON_GetArraySize(list)) return;
  crawl__buf_puts(b, "<h3>Served to some principals, refused to others</h3><ul>");
  cJSON_ArrayForEach(d, list) {
    crawl__buf_puts(b, "<li>");
    h(b, crawl__str(d, "method"));
    crawl__buf_puts(b, " ");
    rp_h_code(b, crawl__str(d, "template"));
    crawl__buf_puts(b, ": ");
    h_principals(b, crawl__arr(d, "principals"));
    crawl__buf_puts(b, "</li>");
  }
  crawl__buf_puts(b, "</ul>");
}

void rp_html_api(crawl__buf *b, const cJSON *api) {
  if (!api) return;
  int n = cJSON_GetArraySize(crawl__arr(api, "endpoints"));
  crawl__buf_printf(b, "<section id=\"api\"><h2>API</h2><p>%d endpoint%s the app's pages called (api.json), on ", n, n == 1 ? "" : "s");
  rp_h_list(b, crawl__arr(api, "origins"), 5, 1);
  crawl__buf_printf(b, "; %.0f static asset request%s counted, not listed.</p>", crawl__num(api, "assets", 0),
                    crawl__num(api, "assets", 0) == 1 ? "" : "s");
  if (n) h_endpoints(b, api);
  h_stopped(b, api);
  h_access(b, api);
  crawl__buf_puts(b, "</section>\n");
}

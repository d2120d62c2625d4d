/* report.c -- the files people and CI systems read beside a package:
 * DIR/graph.dot, DIR/review.sarif, DIR/junit.xml and DIR/report.html
 * (docs/reports.md). Everything comes from DIR/package.json, plus the
 * journal's `decision` lines (what the safety gate did not let run, and
 * why) and the screenshots the crawl took. No browser, no network.
 *
 * report.html is one self-contained file: inline CSS and JS, screenshots
 * as data: URLs, the transition graph as inline SVG, and a CSP that forbids
 * any fetch. The graph is laid out by Graphviz `dot` when it is on PATH
 * (crawl_report_opts.layout), else by the layered layout (report_graph.c): states in
 * columns by breadth-first depth from the seeds, ordered within a column by
 * a few barycenter sweeps; parallel edges drawn once.
 *
 * This file owns the model read from the package (rp: states, drawn edges,
 * routes; the journal's decision lines), the review kinds and route
 * colours, and the entry points: crawl_package_reports,
 * crawl_package_review_count, crawl_package_gate_line, which read a package
 * kept in memory (crawl_package: package_kept.c), and crawl_reports_write,
 * crawl_review_count, crawl_gate_line, which read DIR/package.json once. The graph, SARIF/JUnit and HTML are report_graph.c,
 * report_ci.c, report_html.c and report_html_sections.c.
 */
#include "report_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- vocabularies ---------------------------------------------------------------------- */

/* Review kinds: the SARIF rules, in the spec's order (ruleIndex is stable). */
const rp_kind rp_kinds[] = {
  {"missing_stable_id", "MissingStableId", "Interactive element without data-uiap-id",
   "Agents address controls by stableId first. Add data-uiap-id to the controls named in the result."},
  {"duplicate_name", "DuplicateName", "Several elements share a role and name in one scope",
   "A name-based locator is ambiguous. Give each element a distinct accessible name or a data-uiap-id."},
  {"ambiguous_target", "AmbiguousTarget", "A target matched several elements",
   "Make data-uiap-id values unique, or give the elements distinct names."},
  {"opaque_frame", "OpaqueFrame", "A cross-origin frame could not be explored",
   "Publish the frame through a UIAP bridge, or review its content manually."},
  {"closed_shadow", "ClosedShadow", "Closed shadow roots hide content from discovery",
   "Use open shadow roots for app controls, or annotate the host with data-uiap-* attributes."},
  {"missing_success_signal", "MissingSuccessSignal", "No observable success signal",
   "Declare a success signal (status or toast message, dialog or route change) for the action or workflow."},
  {"unsafe_action_candidate", "UnsafeActionCandidate", "The safety gate held back or denied an action",
   "Confirm the classification; annotate the control with data-uiap-risk and data-uiap-action."},
  {"inferred_only", "InferredOnly", "Element recognised by heuristics only",
   "Use a native control or give it an ARIA role and an accessible name."},
  {"coverage_gap", "CoverageGap", "Part of the app was not explored",
   "Raise the budget, seed the route directly, or check that the seed is reachable."},
  {"workflow_uncertain", "WorkflowUncertain", "A workflow candidate rests on unexecuted or unidentified steps",
   "Review the workflow skeleton by hand and verify it in a sandbox environment."},
  {"custom", "Custom", "Other finding", "See the result's message."},
};
#define RP_NKINDS (sizeof rp_kinds / sizeof *rp_kinds)
int rp_kind_index(const char *k) {
  for (size_t i = 0; i < RP_NKINDS; i++)
    if (k && !strcmp(rp_kinds[i].kind, k)) return (int)i;
  return (int)RP_NKINDS - 1;
}

/* Route colours (fill), cycled in route catalog order. */
const char *const rp_palette[] = {"#dbeafe", "#dcfce7", "#fef3c7", "#fce7f3", "#e0e7ff",
                                      "#ccfbf1", "#fee2e2", "#f3e8ff", "#ecfccb", "#ffedd5"};
#define RP_NPALETTE (sizeof rp_palette / sizeof *rp_palette)

/* ---- the model read from the package ---------------------------------------------- */
long rp_state_index(const rp *r, const char *id) { return crawl__strmap_get(&r->st_index, id); }

/* The route's colour: its place in the route catalog, cycled. */
int rp_route_color(const rp *r, const char *route) {
  long i = crawl__strmap_get(&r->route_index, route);
  return i >= 0 ? (int)(i % (long)RP_NPALETTE) : 0;
}

const cJSON *rp_route_entry(const rp *r, const char *route) {
  long i = crawl__strmap_get(&r->route_index, route);
  return i >= 0 ? r->route_v[i] : NULL;
}

static void rp_routes(rp *r) {
  const cJSON *x;
  long i = 0;
  r->routes = crawl__arr2(r->pkg, "routeCatalog", "routes");
  r->route_v = crawl__xcalloc((size_t)cJSON_GetArraySize(r->routes), sizeof *r->route_v);
  cJSON_ArrayForEach(x, r->routes) {
    if (crawl__str(x, "routeId")) crawl__strmap_intern(&r->route_index, crawl__str(x, "routeId"), i, NULL);
    r->route_v[i++] = x;
  }
}

/* Drawn edges: one per (from, to) pair of distinct known states, with a count. */
static void rp_drawn_edges(rp *r, const cJSON *edges) {
  crawl__strmap pairs = {0}; /* "from>to" -> index in ed */
  const cJSON *x;
  cJSON_ArrayForEach(x, edges) {
    long f = rp_state_index(r, crawl__str(x, "fromStateId")), t = rp_state_index(r, crawl__str(x, "toStateId"));
    if (f < 0 || t < 0 || f == t) continue;
    r->st[f].nout++;
    r->st[t].nin++;
    char key[48];
    snprintf(key, sizeof key, "%ld>%ld", f, t);
    int added;
    long k = crawl__strmap_intern(&pairs, key, (long)r->ned, &added);
    if (!added) { r->ed[k].count++; continue; }
    r->ed = crawl__xrealloc(r->ed, (r->ned + 1) * sizeof *r->ed);
    r->ed[r->ned++] = (rp_edge){(int)f, (int)t, 1, x};
  }
  crawl__strmap_release(&pairs);
}

void rp_model(rp *r) {
  const cJSON *tg = crawl__get(r->pkg, "transitionGraph"), *x;
  const cJSON *states = crawl__arr(tg, "states"), *edges = crawl__arr(tg, "edges");
  rp_routes(r);
  r->nst = (size_t)cJSON_GetArraySize(states);
  r->st = crawl__xcalloc(r->nst, sizeof *r->st);
  size_t i = 0;
  cJSON_ArrayForEach(x, states) {
    rp_state *s = &r->st[i++];
    const cJSON *m = crawl__get(x, "metadata");
    s->node = x;
    s->id = crawl__str(x, "stateId") ? crawl__str(x, "stateId") : "?";
    s->route = crawl__str(x, "routeId") ? crawl__str(x, "routeId") : "unknown";
    s->title = crawl__str(m, "title");
    s->url = crawl__str(m, "url");
    s->shot = crawl__str(x, "screenshotRef");
    s->color = rp_route_color(r, s->route);
    s->layer = -1;
    crawl__strmap_intern(&r->st_index, s->id, (long)(i - 1), NULL);
  }
  rp_drawn_edges(r, edges);
}

/* The journal reader's callback: a decision record, frozen, into r->dec_own. */
static int rp_decision(void *ud, const char *type, cJSON *rec) {
  rp *r = ud;
  (void)type;
  PK_GROW(r->dec_own, r->ndec, r->capdec);
  r->dec_own[r->ndec++] = crawl__jfreeze(&r->jar, rec);
  return 0;
}

/* The journal's decision lines (what was not executed), frozen: only
 * those lines are parsed (crawl__journal_read's type filter). The kept
 * package does not hold them (package_kept.c says why). r->have_dec stays
 * 0 when the journal is unreadable. */
void rp_decisions(rp *r) {
  static const char *const types[] = {"decision", NULL};
  r->have_dec = crawl__journal_read(r->dir, types, rp_decision, r, NULL, NULL, 0) == CRAWL_OK;
  r->dec = r->dec_own;
}
/* ---- entry points ---------------------------------------------------------------------------- */
static int write_text(rp *r, const char *name, const char *text) {
  char *path = crawl__xprintf("%s/%s", r->dir, name);
  int e = crawl__file_write(path, text, strlen(text));
  if (e) snprintf(r->err, r->errlen, "%s: %s", path, strerror(e));
  free(path);
  return e;
}

crawl_code crawl_package_reports(const crawl_package *pkg, const crawl_report_opts *o, char *err, size_t errlen) {
  char dummy[8];
  if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
  err[0] = 0;
  static const crawl_report_opts defaults;
  if (!o) o = &defaults;
  int fail_at = 1;
  if (o->junit_fail_on) {
    fail_at = pk_severity_rank(o->junit_fail_on);
    if (fail_at < 0) {
      snprintf(err, errlen, "junit_fail_on must be low, medium or high, not %s", o->junit_fail_on);
      return CRAWL_ARG;
    }
  }
  const char *dir = pkg ? pkg->dir : NULL;
  if (!dir) {
    snprintf(err, errlen, "crawl_package_reports: a package of a crawl directory is required");
    return CRAWL_ARG;
  }
  rp r = {.dir = dir, .o = o, .err = err, .errlen = errlen};
  r.pkg = pkg->pkg;
  if (!crawl__str(r.pkg, "spec") || strcmp(crawl__str(r.pkg, "spec"), "uiap.discovery")) {
    snprintf(err, errlen, "%s/package.json is not a UIAP Discovery Package (no \"spec\": \"uiap.discovery\")", dir);
    return CRAWL_IO;
  }
  rp_model(&r);
  rp_decisions(&r);
  char *path = crawl__xprintf("%s/access.json", dir);
  if (access(path, F_OK) == 0) { /* a principals run */
    char aerr[256];
    r.access = crawl__json_load(path, aerr, sizeof aerr);
    if (!r.access) crawl_log(CRAWL_LOG_WARN, "report", "access matrix left out: %s", aerr);
  }
  free(path);
  crawl_code rc = CRAWL_OK;
  char *dot = rp_dot(&r, 1);
  if (write_text(&r, "graph.dot", dot)) rc = CRAWL_IO;
  free(dot);
  if (!rc) {
    cJSON *sarif = rp_sarif(&r);
    char *text = crawl__jtext(sarif, 1);
    cJSON_Delete(sarif);
    if (write_text(&r, "review.sarif", text)) rc = CRAWL_IO;
    free(text);
  }
  if (!rc) {
    char *xml = rp_junit(&r, fail_at);
    if (write_text(&r, "junit.xml", xml)) rc = CRAWL_IO;
    free(xml);
  }
  if (!rc) {
    char *svg = NULL;
    const char *how = "built-in layered layout";
    if (o->layout != CRAWL_LAYOUT_BUILTIN) {
      svg = rp_svg_dot(&r);
      if (svg) how = "Graphviz dot";
      else if (o->layout == CRAWL_LAYOUT_DOT)
        crawl_log(CRAWL_LOG_WARN, "report", "Graphviz %s is not available: using the built-in layout", o->dot ? o->dot : "dot");
    }
    if (!svg) svg = rp_svg_builtin(&r);
    crawl_log(CRAWL_LOG_DEBUG, "report", "graph: %zu states, %zu edges, %s", r.nst, r.ned, how);
    char *html = rp_html(&r, svg, how);
    if (write_text(&r, "report.html", html)) rc = CRAWL_IO;
    free(html);
    free(svg);
  }
  free(r.st);
  free(r.ed);
  free(r.route_v);
  crawl__strmap_release(&r.route_index);
  crawl__strmap_release(&r.st_index);
  free(r.dec_own);
  cJSON_Delete(r.access);
  crawl__jarena_release(&r.jar);
  return rc;
}

crawl_code crawl_reports_write(const char *dir, const crawl_report_opts *o, char *err, size_t errlen) {
  char dummy[8];
  if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
  err[0] = 0;
  if (!dir) {
    snprintf(err, errlen, "crawl_reports_write: dir is required");
    return CRAWL_ARG;
  }
  if (o && o->junit_fail_on && pk_severity_rank(o->junit_fail_on) < 0) /* before the package is read, as always */
    return crawl_package_reports(NULL, o, err, errlen);
  crawl_package *k = NULL;
  crawl_code rc = crawl_package_open(dir, &k, err, errlen);
  if (!rc) rc = crawl_package_reports(k, o, err, errlen);
  crawl_package_free(k);
  return rc;
}

/* Review items of severity min or worse in package p. */
static long review_count(const cJSON *p, int min) {
  long n = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, crawl__arr2(p, "reviewQueue", "items")) n += pk_severity_rank(crawl__str(it, "severity")) >= min;
  return n;
}

crawl_code crawl_package_review_count(const crawl_package *pkg, const char *min_severity, long *count, char *err,
                                      size_t errlen) {
  char dummy[8];
  if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
  err[0] = 0;
  int min = pk_severity_rank(min_severity);
  if (!pkg || !count || min < 0) {
    snprintf(err, errlen, "severity must be low, medium or high%s%s", min_severity ? ", not " : "", min_severity ? min_severity : "");
    return CRAWL_ARG;
  }
  *count = review_count(pkg->pkg, min);
  return CRAWL_OK;
}

crawl_code crawl_review_count(const char *dir, const char *min_severity, long *count, char *err, size_t errlen) {
  char dummy[8];
  if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
  err[0] = 0;
  int min = pk_severity_rank(min_severity);
  if (!dir || !count || min < 0) {
    snprintf(err, errlen, "severity must be low, medium or high%s%s", min_severity ? ", not " : "", min_severity ? min_severity : "");
    return CRAWL_ARG;
  }
  *count = 0;
  crawl_package *k = NULL;
  if (pk_kept_load(dir, &k, err, errlen)) return CRAWL_IO;
  *count = review_count(k->pkg, min);
  crawl_package_free(k);
  return CRAWL_OK;
}

/* ---- the gate's cost in one line ------------------------------------------------ */
/* ", destructive 9, billing_change 3" of one effect's classes, into b. */
static void gate_classes(crawl__buf *b, const cJSON *per) {
  const cJSON *c;
  int first = 1;
  cJSON_ArrayForEach(c, per) {
    crawl__buf_printf(b, "%s%s %.0f", first ? " (" : ", ", c->string, c->valuedouble);
    first = 0;
  }
  if (!first) crawl__buf_puts(b, ")");
}

/* The gate line of package p into line (n bytes). */
static void gate_line(const cJSON *p, char *line, size_t n) {
  static const char *const effects[][2] = {{"allow", "allowed"}, {"deny", "denied"},
                                           {"review", "held"}, {"skip", "skipped"}};
  const cJSON *g = crawl__get(crawl__get(p, "metadata"), "gate");
  crawl__buf b = {0};
  crawl__buf_puts(&b, "gate:");
  for (size_t k = 0; g && k < sizeof effects / sizeof *effects; k++) {
    crawl__buf_printf(&b, "%s %.0f %s", k ? "," : "", crawl__num(g, effects[k][0], 0), effects[k][1]);
    if (k) gate_classes(&b, crawl__get(crawl__get(g, "byClass"), effects[k][0]));
    double probed = crawl__num(crawl__get(g, "probed"), effects[k][0], 0);
    if (probed > 0) crawl__buf_printf(&b, " (%.0f probed)", probed);
  }
  if (!g) crawl__buf_puts(&b, " not recorded");
  snprintf(line, n, "%s", b.p ? b.p : "");
  crawl__buf_free(&b);
}

crawl_code crawl_package_gate_line(const crawl_package *pkg, char *line, size_t n) {
  if (!pkg || !line || !n) return CRAWL_ARG;
  gate_line(pkg->pkg, line, n);
  return CRAWL_OK;
}

crawl_code crawl_gate_line(const char *dir, char *line, size_t n, char *err, size_t errlen) {
  char dummy[8];
  if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
  err[0] = 0;
  if (!dir || !line || !n) return CRAWL_ARG;
  line[0] = 0;
  crawl_package *k = NULL;
  if (pk_kept_load(dir, &k, err, errlen)) return CRAWL_IO;
  gate_line(k->pkg, line, n);
  crawl_package_free(k);
  return CRAWL_OK;
}

/* report.c -- the files people and CI systems read beside a package:
 * DIR/graph.dot, DIR/review.sarif, DIR/junit.xml and DIR/report.html
 * (docs/reports.md). Everything comes from DIR/package.json, plus the
 * journal's `decision` lines (what the safety gate did not let run, and
 * why) and the screenshots the crawl took. No browser, no network.
 *
 * report.html is one self-contained file: inline CSS and JS, screenshots
 * as data: URLs, the transition graph as inline SVG, and a CSP that forbids
 * any fetch. The graph is laid out by Graphviz `dot` when it is on PATH
 * (crawl_report_opts.layout), else by the layered layout below: states in
 * columns by breadth-first depth from the seeds, ordered within a column by
 * a few barycenter sweeps; parallel edges drawn once.
 */
#include "crawl_pkg.h"
#include "crawl_journal.h"
#include "crawl_strmap.h"
#include "crawl_util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define RP_LABEL_MAX     30            /* characters of a route in a graph node */
#define RP_EDGE_LIST_MAX 40            /* outgoing transitions listed per state */
#define RP_EMBED_DEFAULT ((size_t)64 << 20)
#define RP_PNG_MAX       ((size_t)16 << 20)

static const char *const rp_sev_names[] = {"low", "medium", "high"};
static int rp_sev_rank(const char *s) {
  for (int i = 0; i < 3; i++)
    if (s && !strcmp(s, rp_sev_names[i])) return i;
  return -1;
}

/* Review rp_kinds: the SARIF rules, in the spec's order (ruleIndex is stable). */
static const struct {
  const char *kind, *name, *short_text, *help;
} rp_kinds[] = {
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
static int rp_kind_index(const char *k) {
  for (size_t i = 0; i < RP_NKINDS; i++)
    if (k && !strcmp(rp_kinds[i].kind, k)) return (int)i;
  return (int)RP_NKINDS - 1;
}

/* Route colours (fill), cycled in route catalog order. */
static const char *const rp_palette[] = {"#dbeafe", "#dcfce7", "#fef3c7", "#fce7f3", "#e0e7ff",
                                      "#ccfbf1", "#fee2e2", "#f3e8ff", "#ecfccb", "#ffedd5"};
#define RP_NPALETTE (sizeof rp_palette / sizeof *rp_palette)

/* ---- the model read from the package ---------------------------------------------- */
typedef struct rp_state {
  const cJSON *node;
  const char *id, *route, *title, *url, *shot;
  int color, layer;
  double pos;
  int nout, nin;
} rp_state;

typedef struct rp_edge { int from, to, count; const cJSON *first; } rp_edge; /* drawn edges */

typedef struct rp {
  const char *dir;
  const crawl_report_opts *o;
  const cJSON *pkg;          /* frozen (crawl__jfreeze) into jar: read only */
  crawl__jarena jar;
  rp_state *st;
  size_t nst;
  rp_edge *ed;
  size_t ned;
  cJSON *decisions;          /* journal decision lines (array), or NULL */
  const cJSON *routes;       /* routeCatalog.routes */
  const cJSON **route_v;     /* its entries, in order */
  crawl__strmap route_index; /* routeId -> index in route_v (the first of an id) */
  crawl__strmap st_index;    /* stateId -> index in st (the first of an id) */
  cJSON *access;             /* DIR/access.json of a principals run, or NULL */
  char *err;
  size_t errlen;
} rp;

static long rp_state_index(const rp *r, const char *id) { return crawl__strmap_get(&r->st_index, id); }

/* The route's colour: its place in the route catalog, cycled. */
static int rp_route_color(const rp *r, const char *route) {
  long i = crawl__strmap_get(&r->route_index, route);
  return i >= 0 ? (int)(i % (long)RP_NPALETTE) : 0;
}

static const cJSON *rp_route_entry(const rp *r, const char *route) {
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

static void rp_model(rp *r) {
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

/* DIR/package.json parsed straight into frozen nodes (crawl__jarena_parse):
 * the reports read it, never change it, and a tree of it would take three
 * times the memory. Text cJSON reads differently from the arena parser (or
 * not at all) goes through cJSON, for the error's place. */
static const cJSON *rp_load(crawl__jarena *jar, const char *path, char *err, size_t errlen) {
  size_t len;
  int e;
  char *text = crawl__file_read(path, CRAWL__FILE_MAX, &len, &e);
  const cJSON *p = text ? crawl__jarena_parse(jar, text, len) : NULL;
  free(text);
  if (p) return p;
  cJSON *parsed = crawl__json_load(path, err, errlen);
  p = crawl__jfreeze(jar, parsed);
  cJSON_Delete(parsed);
  return p;
}

/* The journal reader's callback: a decision record into r->decisions. */
static int rp_decision(void *ud, const char *type, cJSON *rec) {
  rp *r = ud;
  crawl__jpush(r->decisions, rec);
  return 1;
}

/* The journal's decision lines (what was not executed); r->decisions stays
 * NULL when the journal is unreadable. */
static void rp_decisions(rp *r) {
  static const char *const types[] = {"decision", NULL};
  r->decisions = crawl__jx(cJSON_CreateArray());
  if (crawl__journal_read(r->dir, types, rp_decision, r, NULL, NULL, 0) == CRAWL_OK) return;
  cJSON_Delete(r->decisions);
  r->decisions = NULL;
}

/* Columns: breadth-first depth from the seeds over the drawn edges; states
 * no edge reaches keep their recorded depth (else a column of their own).
 * Returns the number of columns. */
static int rp_layers(rp *r) {
  size_t n = r->nst;
  int *queue = crawl__xcalloc(n, sizeof *queue), qh = 0, qt = 0;
  for (size_t i = 0; i < n; i++) r->st[i].layer = -1;
  for (size_t i = 0; i < n; i++)
    if (!crawl__str(crawl__get(r->st[i].node, "metadata"), "parentStateId")) {
      r->st[i].layer = 0;
      queue[qt++] = (int)i;
    }
  while (qh < qt) {
    int s = queue[qh++];
    for (size_t k = 0; k < r->ned; k++) {
      if (r->ed[k].from != s || r->st[r->ed[k].to].layer >= 0) continue;
      r->st[r->ed[k].to].layer = r->st[s].layer + 1;
      queue[qt++] = r->ed[k].to;
    }
  }
  free(queue);
  int nl = 0;
  for (size_t i = 0; i < n; i++) if (r->st[i].layer + 1 > nl) nl = r->st[i].layer + 1;
  for (size_t i = 0; i < n; i++)
    if (r->st[i].layer < 0) {
      double d = crawl__num(crawl__get(r->st[i].node, "metadata"), "depth", -1);
      r->st[i].layer = d >= 0 && d < nl ? (int)d : nl;
    }
  nl = 0;
  for (size_t i = 0; i < n; i++) if (r->st[i].layer + 1 > nl) nl = r->st[i].layer + 1;
  return nl;
}

/* ---- small text helpers --------------------------------------------------------------- */
/* At most max characters (UTF-8 aware), with an ellipsis. Caller frees. */
static char *rp_clip(const char *s, size_t max) {
  if (!s) return crawl__xstrdup("");
  size_t n = 0, i = 0;
  for (; s[i]; i++) {
    if (((unsigned char)s[i] & 0xC0) != 0x80) {
      if (n == max) break;
      n++;
    }
  }
  if (!s[i]) return crawl__xstrdup(s);
  return crawl__xprintf("%.*s…", (int)i, s);
}

static const char *rp_short_id(const char *id, char *buf, size_t n) {
  snprintf(buf, n, "%.10s", id);
  return buf;
}

static void rp_target_label(crawl__buf *b, const cJSON *t) {
  const char *role = crawl__str(t, "role"), *name = crawl__str(t, "name");
  if (!t) return;
  crawl__buf_printf(b, "%s \"%s\"", role ? role : "element", name ? name : "");
}

/* ---- graph.dot ---------------------------------------------------------------------------- */
/* labels: edge labels (graph.dot); without, for the page: edges carry their
 * text as tooltips only, which keeps dot's drawing compact. */
/* A state's node: route and short id, coloured by route; seeds bold. */
static void dot_node(crawl__buf *b, const rp_state *s) {
  char sid[16];
  char *route = rp_clip(s->route, RP_LABEL_MAX);
  crawl__buf_puts(b, "  \"");
  crawl__buf_dot(b, s->id);
  crawl__buf_puts(b, "\" [id=\"n-");
  crawl__buf_dot(b, s->id);
  crawl__buf_puts(b, "\", label=\"");
  crawl__buf_dot(b, route);
  crawl__buf_puts(b, "\\n");
  crawl__buf_dot(b, rp_short_id(s->id, sid, sizeof sid));
  if (cJSON_GetArraySize(crawl__arr(s->node, "modalStack"))) crawl__buf_puts(b, " (dialog)");
  crawl__buf_printf(b, "\", fillcolor=\"%s\", URL=\"#state-", rp_palette[s->color]);
  crawl__buf_dot(b, s->id);
  crawl__buf_puts(b, "\", tooltip=\"");
  crawl__buf_dot(b, s->id);
  crawl__buf_puts(b, " ");
  crawl__buf_dot(b, s->route);
  if (s->title) { crawl__buf_puts(b, " - "); crawl__buf_dot(b, s->title); }
  crawl__buf_puts(b, "\"");
  if (!crawl__str(crawl__get(s->node, "metadata"), "parentStateId")) crawl__buf_puts(b, ", penwidth=2");
  crawl__buf_puts(b, "];\n");
  free(route);
}

/* For the page: one edge per pair of states, its text as a tooltip; back
 * edges do not rank. */
static void dot_drawn_edges(crawl__buf *b, rp *r) {
  rp_layers(r);
  for (size_t k = 0; k < r->ned; k++) {
    const rp_edge *e = &r->ed[k];
    crawl__buf tip = {0};
    crawl__buf_printf(&tip, "%s -> %s: %s ", r->st[e->from].id, r->st[e->to].id,
                      crawl__str(e->first, "viaActionId") ? crawl__str(e->first, "viaActionId") : "");
    rp_target_label(&tip, crawl__get(e->first, "target"));
    if (e->count > 1) crawl__buf_printf(&tip, " (and %d more)", e->count - 1);
    crawl__buf_puts(b, "  \"");
    crawl__buf_dot(b, r->st[e->from].id);
    crawl__buf_puts(b, "\" -> \"");
    crawl__buf_dot(b, r->st[e->to].id);
    crawl__buf_puts(b, "\" [tooltip=\"");
    crawl__buf_dot(b, tip.p);
    crawl__buf_puts(b, "\"");
    if (r->st[e->to].layer <= r->st[e->from].layer) crawl__buf_puts(b, ", constraint=false, style=dashed, color=\"#b45309\"");
    if (e->count > 1) crawl__buf_puts(b, ", penwidth=1.6");
    crawl__buf_puts(b, "];\n");
    crawl__buf_free(&tip);
  }
}

/* For graph.dot: every transition, labelled with its action and target. */
static void dot_labelled_edges(crawl__buf *b, const rp *r) {
  const cJSON *e;
  cJSON_ArrayForEach(e, crawl__arr2(r->pkg, "transitionGraph", "edges")) {
    crawl__buf lab = {0};
    crawl__buf_puts(&lab, crawl__str(e, "viaActionId"));
    const cJSON *t = crawl__get(e, "target");
    if (crawl__str(t, "name")) {
      char *n = rp_clip(crawl__str(t, "name"), 24);
      crawl__buf_printf(&lab, " %s", n);
      free(n);
    }
    crawl__buf_puts(b, "  \"");
    crawl__buf_dot(b, crawl__str(e, "fromStateId"));
    crawl__buf_puts(b, "\" -> \"");
    crawl__buf_dot(b, crawl__str(e, "toStateId"));
    crawl__buf_puts(b, "\" [label=\"");
    crawl__buf_dot(b, lab.p);
    crawl__buf_puts(b, "\", tooltip=\"");
    crawl__buf_dot(b, crawl__str(e, "transitionId"));
    crawl__buf_puts(b, ": ");
    crawl__buf_dot(b, lab.p);
    crawl__buf_puts(b, "\"];\n");
    crawl__buf_free(&lab);
  }
}

static char *rp_dot(rp *r, int labels) {
  crawl__buf b = {0};
  crawl__buf_puts(&b, "// uiap-crawl transition graph: states (boxes, one colour per route) and the\n"
                      "// transitions between them. Render: dot -Tsvg graph.dot -o graph.svg\n"
                      "digraph uiap {\n"
                      "  graph [rankdir=LR, fontname=\"Helvetica\", fontsize=10, nodesep=0.25, ranksep=0.6];\n"
                      "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10, color=\"#64748b\"];\n"
                      "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#475569\", arrowsize=0.6];\n");
  for (size_t i = 0; i < r->nst; i++) dot_node(&b, &r->st[i]);
  if (labels) dot_labelled_edges(&b, r);
  else dot_drawn_edges(&b, r);
  crawl__buf_puts(&b, "}\n");
  return crawl__buf_take(&b);
}

/* ---- SVG: Graphviz --------------------------------------------------------------------------- */
/* dot -Tsvg on the compact graph, bounded in time; the <svg> element, or NULL. */
static char *rp_svg_dot(rp *r) {
  char *bin = crawl__find_on_path(r->o->dot ? r->o->dot : "dot");
  if (!bin) return NULL;
  char *in = crawl__xprintf("%s/.graph.%ld.dot", r->dir, (long)getpid()), *out = crawl__xprintf("%s/.graph.%ld.svg", r->dir, (long)getpid());
  char *text = rp_dot(r, 0);
  int we = crawl__file_write(in, text, strlen(text));
  free(text);
  if (we) {
    crawl_log(CRAWL_LOG_WARN, "report", "%s: %s", in, strerror(we));
    free(in);
    free(out);
    free(bin);
    return NULL;
  }
  char *argv[] = {bin, "-Tsvg", in, "-o", out, NULL};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int rc = posix_spawn(&pid, bin, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  char *svg = NULL;
  if (rc == 0) {
    int timeout = r->o->dot_timeout_ms > 0 ? r->o->dot_timeout_ms : 20000, status = 0;
    struct timespec t0, now, nap = {0, 10 * 1000000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) break;
      if (w < 0 && errno != EINTR) { status = -1; break; }
      clock_gettime(CLOCK_MONOTONIC, &now);
      if ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 > timeout) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        status = -1;
        crawl_log(CRAWL_LOG_WARN, "report", "%s took longer than %d ms: using the built-in layout", bin, timeout);
        break;
      }
      nanosleep(&nap, NULL);
    }
    if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      size_t len;
      int e;
      char *text = crawl__file_read(out, CRAWL__FILE_MAX, &len, &e);
      char *start = text ? strstr(text, "<svg") : NULL;
      if (start) svg = crawl__xstrdup(start);
      free(text);
    } else if (status != -1)
      crawl_log(CRAWL_LOG_WARN, "report", "%s failed: using the built-in layout", bin);
  }
  unlink(out);
  unlink(in);
  free(in);
  free(out);
  free(bin);
  return svg;
}

/* ---- SVG: the built-in layered layout ------------------------------------------------------ */
#define NODE_W 176
#define NODE_H 44
#define GAP_X 64
#define GAP_Y 16
#define MARGIN 24

static int cmp_double_idx(const void *x, const void *y, void *ud) {
  const rp_state *st = ud;
  int a = *(const int *)x, b = *(const int *)y;
  if (st[a].pos != st[b].pos) return st[a].pos < st[b].pos ? -1 : 1;
  return crawl__natcmp(st[a].id, st[b].id);
}

static void layout(rp *r, int *nlayers_out, int *maxrow_out) {
  size_t n = r->nst;
  int nl = rp_layers(r);
  /* initial order: route colour, then id; then barycenter sweeps */
  int **col = crawl__xcalloc((size_t)nl, sizeof *col), *ncol = crawl__xcalloc((size_t)nl, sizeof *ncol);
  for (size_t i = 0; i < n; i++) {
    int l = r->st[i].layer;
    col[l] = crawl__xrealloc(col[l], (size_t)(ncol[l] + 1) * sizeof **col);
    col[l][ncol[l]++] = (int)i;
    r->st[i].pos = r->st[i].color * 1000.0 + (double)i / (double)(n + 1);
  }
  for (int l = 0; l < nl; l++) {
    if (ncol[l] > 1) qsort_r(col[l], (size_t)ncol[l], sizeof **col, cmp_double_idx, r->st);
    for (int k = 0; k < ncol[l]; k++) r->st[col[l][k]].pos = k;
  }
  for (int sweep = 0; sweep < 8; sweep++) {
    int down = sweep % 2 == 0;
    for (int li = 1; li < nl; li++) {
      int l = down ? li : nl - 1 - li;
      for (int k = 0; k < ncol[l]; k++) {
        int s = col[l][k];
        double sum = 0;
        int cnt = 0;
        for (size_t e = 0; e < r->ned; e++) {
          int other = -1;
          if (r->ed[e].to == s) other = r->ed[e].from;
          else if (r->ed[e].from == s) other = r->ed[e].to;
          if (other < 0 || r->st[other].layer != (down ? l - 1 : l + 1)) continue;
          sum += r->st[other].pos;
          cnt++;
        }
        if (cnt) r->st[s].pos = sum / cnt + k * 1e-6; /* ties keep their order */
      }
      if (ncol[l] > 1) qsort_r(col[l], (size_t)ncol[l], sizeof **col, cmp_double_idx, r->st);
      for (int k = 0; k < ncol[l]; k++) r->st[col[l][k]].pos = k;
    }
  }
  int maxrow = 0;
  for (int l = 0; l < nl; l++) {
    if (ncol[l] > maxrow) maxrow = ncol[l];
    free(col[l]);
  }
  free(col);
  free(ncol);
  *nlayers_out = nl;
  *maxrow_out = maxrow;
}

static double node_x(const rp_state *s) { return MARGIN + s->layer * (NODE_W + GAP_X); }
static double node_y(const rp_state *s) { return MARGIN + s->pos * (NODE_H + GAP_Y); }

static char *rp_svg_builtin(rp *r) {
  int nl = 0, rows = 0;
  layout(r, &nl, &rows);
  double w = MARGIN * 2 + (nl ? nl : 1) * (NODE_W + GAP_X) - GAP_X, h = MARGIN * 2 + (rows ? rows : 1) * (NODE_H + GAP_Y) + 40;
  crawl__buf b = {0};
  crawl__buf_printf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"graph\" width=\"%.0f\" height=\"%.0f\" "
                        "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"Transition graph: %zu states, %zu edges\">\n",
                    w, h, w, h, r->nst, r->ned);
  crawl__buf_puts(&b, "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
                      "orient=\"auto-start-reverse\"><path d=\"M0,0L10,5L0,10z\" fill=\"#475569\"/></marker>"
                      "<marker id=\"arrow-back\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
                      "orient=\"auto-start-reverse\"><path d=\"M0,0L10,5L0,10z\" fill=\"#b45309\"/></marker></defs>\n");
  /* edges under nodes */
  for (size_t k = 0; k < r->ned; k++) {
    const rp_edge *e = &r->ed[k];
    const rp_state *a = &r->st[e->from], *c = &r->st[e->to];
    double x1, y1, x2, y2;
    int back = c->layer <= a->layer;
    crawl__buf tip = {0};
    crawl__buf_printf(&tip, "%s → %s: ", a->id, c->id);
    crawl__buf_puts(&tip, crawl__str(e->first, "viaActionId"));
    crawl__buf_puts(&tip, " ");
    rp_target_label(&tip, crawl__get(e->first, "target"));
    if (e->count > 1) crawl__buf_printf(&tip, " (and %d more)", e->count - 1);
    crawl__buf_puts(&b, "<g class=\"edge\"><title>");
    crawl__buf_html(&b, tip.p);
    crawl__buf_puts(&b, "</title>");
    crawl__buf_free(&tip);
    if (!back) {
      x1 = node_x(a) + NODE_W; y1 = node_y(a) + NODE_H / 2.0;
      x2 = node_x(c); y2 = node_y(c) + NODE_H / 2.0;
      double dx = (x2 - x1) / 2;
      crawl__buf_printf(&b, "<path d=\"M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"none\" stroke=\"#475569\" "
                            "stroke-width=\"%.1f\" marker-end=\"url(#arrow)\"/>",
                        x1, y1, x1 + dx, y1, x2 - dx, y2, x2, y2, e->count > 1 ? 1.6 : 1.0);
    } else { /* back or sideways: an arc over the top */
      x1 = node_x(a) + NODE_W / 2.0 + 8; y1 = node_y(a);
      x2 = node_x(c) + NODE_W / 2.0 - 8; y2 = node_y(c);
      double lift = 28 + 10 * (a->layer - c->layer);
      double top = (y1 < y2 ? y1 : y2) - lift;
      crawl__buf_printf(&b, "<path d=\"M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"none\" stroke=\"#b45309\" stroke-opacity=\"0.45\" "
                            "stroke-dasharray=\"4 3\" stroke-width=\"1\" marker-end=\"url(#arrow-back)\"/>",
                        x1, y1, x1, top, x2, top, x2, y2);
    }
    crawl__buf_puts(&b, "</g>\n");
  }
  for (size_t i = 0; i < r->nst; i++) {
    const rp_state *s = &r->st[i];
    double x = node_x(s), y = node_y(s);
    char sid[16];
    char *route = rp_clip(s->route, RP_LABEL_MAX);
    int seed = !crawl__str(crawl__get(s->node, "metadata"), "parentStateId");
    int modal = cJSON_GetArraySize(crawl__arr(s->node, "modalStack")) > 0;
    crawl__buf_puts(&b, "<g class=\"node\" id=\"n-");
    crawl__buf_html(&b, s->id);
    crawl__buf_puts(&b, "\" data-state=\"");
    crawl__buf_html(&b, s->id);
    crawl__buf_puts(&b, "\"><a href=\"#state-");
    crawl__buf_html(&b, s->id);
    crawl__buf_puts(&b, "\"><title>");
    crawl__buf_html(&b, s->id);
    crawl__buf_puts(&b, "\n");
    crawl__buf_html(&b, s->route);
    if (s->title) { crawl__buf_puts(&b, "\n"); crawl__buf_html(&b, s->title); }
    crawl__buf_printf(&b, "\n%d in, %d out</title>", s->nin, s->nout);
    crawl__buf_printf(&b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%d\" rx=\"7\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"/>",
                      x, y, NODE_W, NODE_H, rp_palette[s->color], seed ? "#0f172a" : "#64748b", seed ? "2" : "1");
    crawl__buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" class=\"l1\">", x + 8, y + 18);
    crawl__buf_html(&b, route);
    crawl__buf_printf(&b, "</text><text x=\"%.1f\" y=\"%.1f\" class=\"l2\">", x + 8, y + 34);
    crawl__buf_html(&b, rp_short_id(s->id, sid, sizeof sid));
    if (modal) crawl__buf_puts(&b, " · dialog");
    if (seed) crawl__buf_puts(&b, " · seed");
    crawl__buf_puts(&b, "</text></a></g>\n");
    free(route);
  }
  crawl__buf_puts(&b, "</svg>\n");
  return crawl__buf_take(&b);
}

/* ---- SARIF ------------------------------------------------------------------------------------ */
/* {"text": text} */
static cJSON *sarif_text(const char *text) {
  cJSON *t = crawl__jx(cJSON_CreateObject());
  crawl__jstr(t, "text", text);
  return t;
}

/* tool.driver: one rule per review kind, in the spec's order. */
static cJSON *sarif_driver(const rp *r) {
  cJSON *driver = crawl__jx(cJSON_CreateObject());
  crawl__jstr(driver, "name", "uiap-crawl");
  const char *gen = crawl__str(crawl__get(r->pkg, "metadata"), "tool");
  const char *sp = gen ? strchr(gen, ' ') : NULL;
  if (sp && sp[1]) crawl__jstr(driver, "version", sp + 1);
  cJSON *rules = crawl__jx(cJSON_CreateArray());
  for (size_t k = 0; k < RP_NKINDS; k++) {
    cJSON *rule = crawl__jx(cJSON_CreateObject()), *t;
    char *id = crawl__xprintf("uiap/%s", rp_kinds[k].kind);
    crawl__jstr(rule, "id", id);
    free(id);
    crawl__jstr(rule, "name", rp_kinds[k].name);
    crawl__jset(rule, "shortDescription", sarif_text(rp_kinds[k].short_text));
    char *full = crawl__xprintf("UIAP discovery review item of kind %s (discovery-mapper section 6.8): %s.", rp_kinds[k].kind, rp_kinds[k].short_text);
    crawl__jset(rule, "fullDescription", sarif_text(full));
    free(full);
    crawl__jset(rule, "help", sarif_text(rp_kinds[k].help));
    t = crawl__jx(cJSON_CreateObject());
    crawl__jstr(t, "level", "warning");
    crawl__jset(rule, "defaultConfiguration", t);
    t = crawl__jx(cJSON_CreateObject());
    cJSON *tags = crawl__jx(cJSON_CreateArray());
    crawl__jpush(tags, cJSON_CreateString("uiap"));
    crawl__jpush(tags, cJSON_CreateString("discovery"));
    crawl__jset(t, "tags", tags);
    crawl__jset(rule, "properties", t);
    crawl__jpush(rules, rule);
  }
  crawl__jset(driver, "rules", rules);
  return driver;
}

static cJSON *sarif_invocations(const cJSON *run) {
  cJSON *inv = crawl__jx(cJSON_CreateArray()), *iv = crawl__jx(cJSON_CreateObject());
  const char *status = crawl__str(run, "status");
  crawl__jset(iv, "executionSuccessful", cJSON_CreateBool(status && !strcmp(status, "completed")));
  if (crawl__str(run, "startedAt") && *crawl__str(run, "startedAt")) crawl__jstr(iv, "startTimeUtc", crawl__str(run, "startedAt"));
  if (crawl__str(run, "finishedAt")) crawl__jstr(iv, "endTimeUtc", crawl__str(run, "finishedAt"));
  crawl__jpush(inv, iv);
  return inv;
}

/* Where review item it is: the route's first URL (the page a person
 * opens), and the route, scope and stableId as logical locations. */
static cJSON *sarif_locations(const rp *r, const cJSON *it, const cJSON *env) {
  const cJSON *re = rp_route_entry(r, crawl__str(it, "routeId"));
  const char *uri = re ? cJSON_GetStringValue(cJSON_GetArrayItem(crawl__arr(re, "urls"), 0)) : NULL;
  if (!uri) uri = crawl__str(env, "baseUrl") && *crawl__str(env, "baseUrl") ? crawl__str(env, "baseUrl") : "package.json";
  cJSON *locs = crawl__jx(cJSON_CreateArray()), *loc = crawl__jx(cJSON_CreateObject());
  cJSON *pl = crawl__jx(cJSON_CreateObject()), *al = crawl__jx(cJSON_CreateObject());
  crawl__jstr(al, "uri", uri);
  crawl__jset(pl, "artifactLocation", al);
  crawl__jset(loc, "physicalLocation", pl);
  cJSON *ll = crawl__jx(cJSON_CreateArray());
  static const struct { const char *key, *kind; } logical[] = {{"routeId", "module"}, {"scopeId", "namespace"}, {"stableId", "element"}};
  for (size_t q = 0; q < sizeof logical / sizeof *logical; q++) {
    const char *v = crawl__str(it, logical[q].key);
    if (!v) continue;
    cJSON *l = crawl__jx(cJSON_CreateObject());
    crawl__jstr(l, "name", v);
    crawl__jstr(l, "kind", logical[q].kind);
    crawl__jpush(ll, l);
  }
  if (cJSON_GetArraySize(ll)) crawl__jset(loc, "logicalLocations", ll);
  else cJSON_Delete(ll);
  crawl__jpush(locs, loc);
  return locs;
}

/* One result per review item: rule, level by severity, message with the
 * remediation, location, the item id as fingerprint. */
static cJSON *sarif_result(const rp *r, const cJSON *it, const cJSON *env) {
  cJSON *res = crawl__jx(cJSON_CreateObject());
  int k = rp_kind_index(crawl__str(it, "kind"));
  char *rid = crawl__xprintf("uiap/%s", rp_kinds[k].kind);
  crawl__jstr(res, "ruleId", rid);
  free(rid);
  crawl__jset(res, "ruleIndex", cJSON_CreateNumber(k));
  int sv = rp_sev_rank(crawl__str(it, "severity"));
  crawl__jstr(res, "level", sv == 2 ? "error" : sv == 1 ? "warning" : "note");
  const char *desc = crawl__str(it, "description") ? crawl__str(it, "description") : rp_kinds[k].short_text;
  char *text = crawl__str(it, "remediation") ? crawl__xprintf("%s\nRemediation: %s", desc, crawl__str(it, "remediation"))
                                             : crawl__xstrdup(desc);
  crawl__jset(res, "message", sarif_text(text));
  free(text);
  crawl__jset(res, "locations", sarif_locations(r, it, env));
  cJSON *fp = crawl__jx(cJSON_CreateObject());
  crawl__jstr(fp, "uiapReviewId/v1", crawl__str(it, "id"));
  crawl__jset(res, "partialFingerprints", fp);
  cJSON *props = crawl__jx(cJSON_CreateObject());
  crawl__jstr(props, "reviewItemId", crawl__str(it, "id"));
  crawl__jstr(props, "kind", crawl__str(it, "kind"));
  crawl__jstr(props, "severity", crawl__str(it, "severity"));
  crawl__jstr(props, "routeId", crawl__str(it, "routeId"));
  crawl__jstr(props, "remediation", crawl__str(it, "remediation"));
  if (cJSON_IsArray(crawl__get(it, "evidence"))) crawl__jset(props, "evidence", cJSON_Duplicate(crawl__get(it, "evidence"), 1));
  crawl__jset(res, "properties", props);
  return res;
}

static cJSON *rp_sarif(const rp *r) {
  const cJSON *run = crawl__get(r->pkg, "run"), *env = crawl__get(r->pkg, "environment"), *it;
  cJSON *log = crawl__jx(cJSON_CreateObject());
  crawl__jstr(log, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
  crawl__jstr(log, "version", "2.1.0");
  cJSON *runs = crawl__jx(cJSON_CreateArray()), *sr = crawl__jx(cJSON_CreateObject());
  cJSON *tool = crawl__jx(cJSON_CreateObject());
  crawl__jset(tool, "driver", sarif_driver(r));
  crawl__jset(sr, "tool", tool);
  crawl__jset(sr, "invocations", sarif_invocations(run));
  cJSON *ad = crawl__jx(cJSON_CreateObject());
  char *cat = crawl__xprintf("uiap-crawl/%s/", crawl__str(env, "environmentId") ? crawl__str(env, "environmentId") : "default");
  crawl__jstr(ad, "id", cat);
  free(cat);
  crawl__jset(sr, "automationDetails", ad);
  cJSON *results = crawl__jx(cJSON_CreateArray());
  cJSON_ArrayForEach(it, crawl__arr2(r->pkg, "reviewQueue", "items")) crawl__jpush(results, sarif_result(r, it, env));
  crawl__jset(sr, "results", results);
  cJSON *props = crawl__jx(cJSON_CreateObject());
  crawl__jstr(props, "runId", crawl__str(run, "runId"));
  crawl__jstr(props, "environmentId", crawl__str(env, "environmentId"));
  if (cJSON_IsObject(crawl__get(r->pkg, "coverage"))) crawl__jset(props, "coverage", cJSON_Duplicate(crawl__get(r->pkg, "coverage"), 1));
  crawl__jset(sr, "properties", props);
  crawl__jpush(runs, sr);
  crawl__jset(log, "runs", runs);
  return log;
}

/* ---- JUnit --------------------------------------------------------------------------------- */
static double rp_run_seconds(const cJSON *run) {
  const char *a = crawl__str(run, "startedAt"), *b = crawl__str(run, "finishedAt");
  struct tm ta = {0}, tb = {0};
  if (!a || !b || !strptime(a, "%Y-%m-%dT%H:%M:%S", &ta) || !strptime(b, "%Y-%m-%dT%H:%M:%S", &tb)) return 0;
  double d = difftime(timegm(&tb), timegm(&ta));
  return d > 0 ? d : 0;
}

static void junit_case(crawl__buf *b, const char *classname, const char *name, const cJSON *const *items, size_t n,
                       int fail_at, const char *extra) {
  crawl__buf_puts(b, "    <testcase classname=\"");
  crawl__buf_xml(b, classname);
  crawl__buf_puts(b, "\" name=\"");
  crawl__buf_xml(b, name);
  crawl__buf_puts(b, "\">\n");
  size_t nfail = 0;
  int worst = -1, cnt[3] = {0};
  for (size_t i = 0; i < n; i++) {
    int s = rp_sev_rank(crawl__str(items[i], "severity"));
    if (s < 0) s = 1;
    cnt[s]++;
    if (s >= fail_at) { nfail++; if (s > worst) worst = s; }
  }
  if (extra) { /* a failure of the test case itself (an unvisited seed) */
    crawl__buf_puts(b, "      <failure type=\"coverage\" message=\"");
    crawl__buf_xml(b, extra);
    crawl__buf_puts(b, "\"/>\n");
  } else if (nfail) {
    crawl__buf_printf(b, "      <failure type=\"%s\" message=\"%zu review item%s at or above %s (%d high, %d medium, %d low)\">",
                      rp_sev_names[worst], nfail, nfail == 1 ? "" : "s", rp_sev_names[fail_at], cnt[2], cnt[1], cnt[0]);
    for (size_t i = 0; i < n; i++) {
      int s = rp_sev_rank(crawl__str(items[i], "severity"));
      if (s < fail_at) continue;
      crawl__buf_printf(b, "[%s] %s: ", crawl__str(items[i], "severity") ? crawl__str(items[i], "severity") : "?",
                        crawl__str(items[i], "kind") ? crawl__str(items[i], "kind") : "?");
      crawl__buf_xml(b, crawl__str(items[i], "description"));
      if (crawl__str(items[i], "remediation")) {
        crawl__buf_puts(b, " Remediation: ");
        crawl__buf_xml(b, crawl__str(items[i], "remediation"));
      }
      crawl__buf_printf(b, " (%s)\n", crawl__str(items[i], "id") ? crawl__str(items[i], "id") : "");
    }
    crawl__buf_puts(b, "</failure>\n");
  }
  if (n > nfail) {
    crawl__buf_puts(b, "      <system-out>");
    for (size_t i = 0; i < n; i++) {
      int s = rp_sev_rank(crawl__str(items[i], "severity"));
      if (s >= fail_at) continue;
      crawl__buf_printf(b, "[%s] %s: ", crawl__str(items[i], "severity") ? crawl__str(items[i], "severity") : "?",
                        crawl__str(items[i], "kind") ? crawl__str(items[i], "kind") : "?");
      crawl__buf_xml(b, crawl__str(items[i], "description"));
      crawl__buf_puts(b, "\n");
    }
    crawl__buf_puts(b, "</system-out>\n");
  }
  crawl__buf_puts(b, "    </testcase>\n");
}

/* The test cases being written: review items are assigned to a route case,
 * else a seed case, else the catch-all case (used[i]: item i has one). */
typedef struct junit_cases {
  const cJSON *items;
  int fail_at;
  const cJSON **buf;          /* the items of the case at hand */
  int *used;
  crawl__buf seeds, routes;   /* the two suites' test cases */
  int nseed_cases, nseed_fail, nroute_cases, nroute_fail;
} junit_cases;

static int junit_fails(const junit_cases *jc, size_t n) {
  int fails = 0;
  for (size_t k = 0; k < n; k++) fails |= rp_sev_rank(crawl__str(jc->buf[k], "severity")) >= jc->fail_at;
  return fails;
}

/* One case per route: the items that name it. */
static void junit_routes(junit_cases *jc, const rp *r) {
  const cJSON *rt;
  cJSON_ArrayForEach(rt, r->routes) {
    const char *id = crawl__str(rt, "routeId");
    size_t n = 0;
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, jc->items) {
      if (id && crawl__str(it, "routeId") && !strcmp(crawl__str(it, "routeId"), id)) {
        jc->buf[n++] = it;
        jc->used[i] = 1;
      }
      i++;
    }
    junit_case(&jc->routes, "uiap.route", id ? id : "?", jc->buf, n, jc->fail_at, NULL);
    jc->nroute_cases++;
    jc->nroute_fail += junit_fails(jc, n);
  }
}

/* One case per seed: visited or not, and the items without a route that
 * name it ("Seed N ..."). */
static void junit_seeds(junit_cases *jc, const rp *r) {
  const cJSON *seed;
  int si = 0;
  cJSON_ArrayForEach(seed, crawl__arr(crawl__get(r->pkg, "run"), "seeds")) {
    int visited = 0;
    for (size_t s = 0; s < r->nst && !visited; s++) visited = crawl__num(crawl__get(r->st[s].node, "metadata"), "seed", -1) == si;
    const char *what = crawl__str(seed, "url") ? crawl__str(seed, "url") : crawl__str(seed, "routeId") ? crawl__str(seed, "routeId")
                     : crawl__str(seed, "kind") ? crawl__str(seed, "kind") : "?";
    char *name = crawl__xprintf("seed %d: %s", si, what);
    char pfx[32];
    snprintf(pfx, sizeof pfx, "Seed %d ", si);
    size_t n = 0;
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, jc->items) {
      const char *d = crawl__str(it, "description");
      if (!jc->used[i] && !crawl__str(it, "routeId") && d && !strncmp(d, pfx, strlen(pfx))) { jc->buf[n++] = it; jc->used[i] = 1; }
      i++;
    }
    char *why = visited ? NULL : crawl__xprintf("seed %d (%s) was not visited", si, what);
    junit_case(&jc->seeds, "uiap.seed", name, jc->buf, n, jc->fail_at, why);
    jc->nseed_cases++;
    jc->nseed_fail += junit_fails(jc, n) || why;
    free(why);
    free(name);
    si++;
  }
}

/* Anything else (no route, no seed): one more case in the seeds suite. */
static void junit_rest(junit_cases *jc) {
  size_t n = 0;
  int i = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, jc->items) {
    if (!jc->used[i]) jc->buf[n++] = it;
    i++;
  }
  if (!n) return;
  junit_case(&jc->seeds, "uiap.run", "findings without a route", jc->buf, n, jc->fail_at, NULL);
  jc->nseed_cases++;
  jc->nseed_fail += junit_fails(jc, n);
}

/* The document: both suites with their counts and the run's properties. */
static char *junit_document(const junit_cases *jc, const cJSON *run) {
  double secs = rp_run_seconds(run);
  crawl__buf b = {0};
  crawl__buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  crawl__buf_printf(&b, "<testsuites name=\"uiap-crawl\" tests=\"%d\" failures=\"%d\" errors=\"0\" time=\"%.3f\">\n",
                    jc->nseed_cases + jc->nroute_cases, jc->nseed_fail + jc->nroute_fail, secs);
  crawl__buf_printf(&b, "  <testsuite name=\"seeds\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"0\" time=\"%.3f\">\n",
                    jc->nseed_cases, jc->nseed_fail, secs);
  crawl__buf_puts(&b, "    <properties>\n      <property name=\"runId\" value=\"");
  crawl__buf_xml(&b, crawl__str(run, "runId"));
  crawl__buf_puts(&b, "\"/>\n      <property name=\"status\" value=\"");
  crawl__buf_xml(&b, crawl__str(run, "status"));
  crawl__buf_printf(&b, "\"/>\n      <property name=\"failOn\" value=\"%s\"/>\n    </properties>\n", rp_sev_names[jc->fail_at]);
  crawl__buf_puts(&b, jc->seeds.p);
  crawl__buf_puts(&b, "  </testsuite>\n");
  crawl__buf_printf(&b, "  <testsuite name=\"routes\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"0\" time=\"0\">\n",
                    jc->nroute_cases, jc->nroute_fail);
  crawl__buf_puts(&b, jc->routes.p);
  crawl__buf_puts(&b, "  </testsuite>\n</testsuites>\n");
  return crawl__buf_take(&b);
}

static char *rp_junit(const rp *r, int fail_at) {
  junit_cases jc = {.items = crawl__arr2(r->pkg, "reviewQueue", "items"), .fail_at = fail_at};
  int nitems = cJSON_GetArraySize(jc.items);
  jc.buf = crawl__xcalloc((size_t)nitems, sizeof *jc.buf);
  jc.used = crawl__xcalloc((size_t)nitems, sizeof *jc.used);
  junit_routes(&jc, r);
  junit_seeds(&jc, r);
  junit_rest(&jc);
  char *doc = junit_document(&jc, crawl__get(r->pkg, "run"));
  crawl__buf_free(&jc.seeds);
  crawl__buf_free(&jc.routes);
  free(jc.buf);
  free(jc.used);
  return doc;
}

/* ---- HTML ------------------------------------------------------------------------------------ */
static const char html_css[] =
  ":root{--fg:#0f172a;--muted:#64748b;--line:#e2e8f0;--bg:#f8fafc;--card:#fff;--high:#b91c1c;--medium:#b45309;--low:#475569}"
  "*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--fg);background:var(--bg)}"
  ".access-direct{background:#fee2e2;color:var(--high);font-weight:600}"
  "header{background:#0f172a;color:#f8fafc;padding:18px 28px}header h1{margin:0 0 4px;font-size:20px}header .meta{color:#cbd5e1;font-size:13px}"
  "nav{position:sticky;top:0;z-index:5;background:#1e293b;padding:6px 28px}nav a{color:#e2e8f0;margin-right:16px;text-decoration:none;font-size:13px}"
  "nav a:hover{text-decoration:underline}main{padding:8px 28px 40px}section{margin:22px 0}h2{font-size:17px;border-bottom:1px solid var(--line);padding-bottom:4px}"
  "table{border-collapse:collapse;width:100%;background:var(--card);font-size:13px}th,td{border:1px solid var(--line);padding:5px 7px;text-align:left;vertical-align:top}"
  "th{background:#f1f5f9;font-weight:600}code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f1f5f9;padding:0 3px;border-radius:3px;word-break:break-all}"
  ".cards{display:flex;flex-wrap:wrap;gap:10px}.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px;min-width:120px}"
  ".card .n{font-size:22px;font-weight:700}.card .t{color:var(--muted);font-size:12px}"
  ".sev{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600;color:#fff}.sev-high{background:var(--high)}.sev-medium{background:var(--medium)}.sev-low{background:var(--low)}"
  ".eff{display:inline-block;border-radius:4px;padding:0 6px;font-size:12px;font-weight:600}.eff-deny{background:#fee2e2;color:#991b1b}.eff-review{background:#fef3c7;color:#92400e}.eff-skip{background:#e2e8f0;color:#334155}"
  ".muted{color:var(--muted)}.graphbox{overflow:auto;background:#fff;border:1px solid var(--line);border-radius:8px;max-height:80vh}"
  ".graphbox svg{display:block}.graphbox .node text{font:11px system-ui,sans-serif;fill:#0f172a}.graphbox .node .l2{fill:#475569;font-size:10px}"
  ".graphbox .node:hover rect{stroke:#2563eb;stroke-width:2}.legend span{display:inline-block;margin:2px 10px 2px 0;font-size:12px}"
  ".legend i{display:inline-block;width:12px;height:12px;border:1px solid #94a3b8;border-radius:3px;margin-right:4px;vertical-align:-2px}"
  ".states{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:12px}.state{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px}"
  ".state:target{outline:3px solid #2563eb}.state img{width:100%;height:auto;border:1px solid var(--line);border-radius:4px;display:block;cursor:zoom-in}"
  ".state img.big{position:fixed;inset:4vh 4vw;width:92vw;height:92vh;object-fit:contain;background:#0f172acc;z-index:10;cursor:zoom-out}"
  ".noshot{height:80px;display:flex;align-items:center;justify-content:center;background:#f1f5f9;color:var(--muted);border-radius:4px;font-size:12px}"
  ".state h3{font-size:13px;margin:8px 0 4px;word-break:break-all}.state ul{margin:4px 0 0;padding-left:18px;font-size:12px}"
  ".filters{display:flex;flex-wrap:wrap;gap:14px;align-items:center;margin:8px 0;font-size:13px}.filters input[type=search]{padding:3px 6px;min-width:220px}"
  ".wf{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px;margin:10px 0}.wf h3{margin:0 0 6px;font-size:15px}"
  ".wf ol{margin:6px 0;padding-left:22px}.wf li.notrun{color:#92400e}.note{background:#fffbeb;border:1px solid #fde68a;border-radius:6px;padding:6px 10px;font-size:13px}"
  "footer{color:var(--muted);font-size:12px;padding:0 28px 24px}td.nw code{word-break:normal;white-space:nowrap}";

static const char html_js[] =
  "(function(){\n"
  "  var boxes = document.querySelectorAll('#review-filters input[data-sev]');\n"
  "  var kind = document.getElementById('kind-filter'), q = document.getElementById('review-search');\n"
  "  var rows = document.querySelectorAll('#review-table tbody tr'), count = document.getElementById('review-count');\n"
  "  function apply() {\n"
  "    var on = {}, k = kind ? kind.value : '', t = q ? q.value.toLowerCase() : '', n = 0;\n"
  "    for (var i = 0; i < boxes.length; i++) on[boxes[i].getAttribute('data-sev')] = boxes[i].checked;\n"
  "    for (var j = 0; j < rows.length; j++) {\n"
  "      var r = rows[j], ok = on[r.getAttribute('data-severity')] !== false &&\n"
  "        (!k || r.getAttribute('data-kind') === k) && (!t || r.textContent.toLowerCase().indexOf(t) >= 0);\n"
  "      r.hidden = !ok;\n"
  "      if (ok) n++;\n"
  "    }\n"
  "    if (count) count.textContent = String(n);\n"
  "  }\n"
  "  for (var i = 0; i < boxes.length; i++) boxes[i].addEventListener('change', apply);\n"
  "  if (kind) kind.addEventListener('change', apply);\n"
  "  if (q) q.addEventListener('input', apply);\n"
  "  apply();\n"
  "  var imgs = document.querySelectorAll('.state img');\n"
  "  for (var m = 0; m < imgs.length; m++) imgs[m].addEventListener('click', function () { this.classList.toggle('big'); });\n"
  "})();\n";

static void h(crawl__buf *b, const char *s) { crawl__buf_html(b, s); }
static void rp_h_code(crawl__buf *b, const char *s) {
  if (!s) { crawl__buf_puts(b, "<span class=\"muted\">–</span>"); return; }
  crawl__buf_puts(b, "<code>");
  h(b, s);
  crawl__buf_puts(b, "</code>");
}
static void rp_h_list(crawl__buf *b, const cJSON *arr, size_t max, int code) {
  size_t i = 0;
  const cJSON *x;
  int n = cJSON_GetArraySize(arr);
  cJSON_ArrayForEach(x, arr) {
    if (i == max) { crawl__buf_printf(b, " <span class=\"muted\">(+%d more)</span>", n - (int)max); break; }
    if (i++) crawl__buf_puts(b, code ? " " : ", ");
    if (!cJSON_IsString(x)) continue;
    if (code) rp_h_code(b, x->valuestring);
    else h(b, x->valuestring);
  }
  if (!n) crawl__buf_puts(b, "<span class=\"muted\">–</span>");
}
static void rp_h_sev(crawl__buf *b, const char *sev) {
  int s = rp_sev_rank(sev);
  crawl__buf_printf(b, "<span class=\"sev sev-%s\">%s</span>", s >= 0 ? rp_sev_names[s] : "low", s >= 0 ? rp_sev_names[s] : "?");
}
static void rp_h_signal(crawl__buf *b, const cJSON *sg) {
  rp_h_code(b, crawl__str(sg, "kind"));
  if (crawl__str(sg, "pattern")) { crawl__buf_puts(b, " "); h(b, crawl__str(sg, "pattern")); }
  if (crawl__str(sg, "text")) { crawl__buf_puts(b, " “"); h(b, crawl__str(sg, "text")); crawl__buf_puts(b, "”"); }
}

/* A table column as data: its heading and what its cell shows of the row's
 * object o (a package entry). */
typedef enum {
  HC_TEXT,  /* o[key] as text */
  HC_CODE,  /* o[key] as code (– when absent) */
  HC_LIST,  /* the array o[key], at most max, as text or (code) as code */
  HC_NUM,   /* o.metadata[key] as a whole number, 0 when absent */
  HC_YESNO, /* o[key] true: yes, else no */
  HC_FN,    /* what fn(b, o, ctx) writes */
} h_kind;
typedef struct h_col {
  const char *head;
  h_kind kind;
  const char *key;
  size_t max;
  int code;
  void (*fn)(crawl__buf *b, const cJSON *o, const void *ctx);
  const char *td; /* the cell's attributes (" class=..."), or NULL */
} h_col;
#define H_NCOLS(cols) (sizeof (cols) / sizeof *(cols))
#define H_TEXT(head, key) {head, HC_TEXT, key, 0, 0, NULL, NULL}
#define H_CODE(head, key) {head, HC_CODE, key, 0, 0, NULL, NULL}
#define H_LIST(head, key, max, code) {head, HC_LIST, key, max, code, NULL, NULL}
#define H_NUM(head, key) {head, HC_NUM, key, 0, 0, NULL, NULL}
#define H_YESNO(head, key) {head, HC_YESNO, key, 0, 0, NULL, NULL}
#define H_FN(head, fn) {head, HC_FN, NULL, 0, 0, fn, NULL}

/* <thead> with the columns' headings, and <tbody> opened. */
static void rp_h_thead(crawl__buf *b, const h_col *cols, size_t n) {
  crawl__buf_puts(b, "<thead><tr>");
  for (size_t i = 0; i < n; i++) {
    crawl__buf_puts(b, "<th>");
    crawl__buf_puts(b, cols[i].head);
    crawl__buf_puts(b, "</th>");
  }
  crawl__buf_puts(b, "</tr></thead><tbody>");
}

/* The <td> cells of one row (the caller writes <tr> and </tr>). */
static void rp_h_cells(crawl__buf *b, const h_col *cols, size_t n, const cJSON *o, const void *ctx) {
  for (size_t i = 0; i < n; i++) {
    const h_col *c = &cols[i];
    crawl__buf_puts(b, "<td");
    crawl__buf_puts(b, c->td);
    crawl__buf_puts(b, ">");
    switch (c->kind) {
    case HC_TEXT: h(b, crawl__str(o, c->key)); break;
    case HC_CODE: rp_h_code(b, crawl__str(o, c->key)); break;
    case HC_LIST: rp_h_list(b, crawl__arr(o, c->key), c->max, c->code); break;
    case HC_NUM: crawl__buf_printf(b, "%.0f", crawl__num(crawl__get(o, "metadata"), c->key, 0)); break;
    case HC_YESNO: crawl__buf_puts(b, cJSON_IsTrue(crawl__get(o, c->key)) ? "yes" : "no"); break;
    case HC_FN: c->fn(b, o, ctx); break;
    }
    crawl__buf_puts(b, "</td>");
  }
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static void rp_buf_base64(crawl__buf *b, const unsigned char *p, size_t n) {
  char out[4];
  for (size_t i = 0; i < n; i += 3) {
    unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
    out[0] = b64[v >> 18 & 63];
    out[1] = b64[v >> 12 & 63];
    out[2] = i + 1 < n ? b64[v >> 6 & 63] : '=';
    out[3] = i + 2 < n ? b64[v & 63] : '=';
    crawl__buf_put(b, out, 4);
  }
}

static void rp_html_summary(crawl__buf *b, const rp *r) {
  const cJSON *cov = crawl__get(r->pkg, "coverage"), *run = crawl__get(r->pkg, "run");
  int sev[3] = {0};
  const cJSON *it;
  cJSON_ArrayForEach(it, crawl__arr2(r->pkg, "reviewQueue", "items")) {
    int s = rp_sev_rank(crawl__str(it, "severity"));
    if (s >= 0) sev[s]++;
  }
  static const struct { const char *key, *label; } headline[] = {
    {"statesVisited", "states"}, {"transitionsRecorded", "transitions"}, {"routesDiscovered", "routes"},
    {"elementsDiscovered", "elements"}, {"actionsDiscovered", "actions"}, {"workflowCandidatesDiscovered", "workflow candidates"},
    {"reviewItems", "review items"}};
  crawl__buf_puts(b, "<section id=\"summary\"><h2>Summary</h2><div class=\"cards\">");
  for (size_t i = 0; i < sizeof headline / sizeof *headline; i++) {
    double v = crawl__num(cov, headline[i].key, -1);
    if (!strcmp(headline[i].key, "statesVisited") && v < 0) v = (double)r->nst;
    if (v < 0) continue;
    crawl__buf_printf(b, "<div class=\"card\" data-key=\"%s\"><div class=\"n\">%.0f</div><div class=\"t\">%s</div></div>", headline[i].key, v,
                      headline[i].label);
  }
  crawl__buf_printf(b, "<div class=\"card\"><div class=\"n\"><span class=\"sev sev-high\">%d</span> <span class=\"sev sev-medium\">%d</span> "
                       "<span class=\"sev sev-low\">%d</span></div><div class=\"t\">high · medium · low</div></div></div>",
                    sev[2], sev[1], sev[0]);
  /* coverage, every counter */
  crawl__buf_puts(b, "<h3>Coverage</h3><table class=\"kv\"><tbody>");
  const cJSON *x;
  cJSON_ArrayForEach(x, cov) {
    if (!x->string) continue;
    crawl__buf_puts(b, "<tr><th>");
    h(b, x->string);
    crawl__buf_puts(b, "</th><td>");
    if (cJSON_IsNumber(x)) crawl__buf_printf(b, "%g", x->valuedouble);
    else if (cJSON_IsString(x)) h(b, x->valuestring);
    else if (cJSON_IsObject(x)) {
      const cJSON *y;
      int k = 0;
      cJSON_ArrayForEach(y, x) {
        crawl__buf_puts(b, k++ ? ", " : "");
        h(b, y->string);
        if (cJSON_IsNumber(y)) crawl__buf_printf(b, " %g", y->valuedouble);
      }
    }
    crawl__buf_puts(b, "</td></tr>");
  }
  crawl__buf_puts(b, "</tbody></table>");
  const cJSON *notes = crawl__arr(run, "notes");
  if (cJSON_GetArraySize(notes)) {
    crawl__buf_puts(b, "<h3>Run notes</h3><ul>");
    cJSON_ArrayForEach(x, notes) {
      crawl__buf_puts(b, "<li>");
      h(b, cJSON_GetStringValue(x));
      crawl__buf_puts(b, "</li>");
    }
    crawl__buf_puts(b, "</ul>");
  }
  crawl__buf_puts(b, "</section>\n");
}

/* ctx: the rp */
static void h_route_items(crawl__buf *b, const cJSON *rt, const void *ctx) {
  const rp *r = ctx;
  const char *id = crawl__str(rt, "routeId");
  int nitems = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, crawl__arr2(r->pkg, "reviewQueue", "items"))
    nitems += id && crawl__str(it, "routeId") && !strcmp(crawl__str(it, "routeId"), id);
  crawl__buf_printf(b, "%d", nitems);
}

static const h_col route_cols[] = {
  H_CODE("Route", "routeId"),
  H_LIST("Titles", "titles", 5, 0),
  H_NUM("States", "states"),
  H_NUM("Transitions from", "transitionsFrom"),
  H_TEXT("Confidence", "confidence"),
  H_LIST("Entered by", "entryActions", 5, 1),
  H_FN("Review items", h_route_items),
  H_LIST("URLs", "urls", 3, 1),
};

static void rp_html_routes(crawl__buf *b, const rp *r) {
  crawl__buf_puts(b, "<section id=\"routes\"><h2>Routes</h2><table>");
  rp_h_thead(b, route_cols, H_NCOLS(route_cols));
  const cJSON *rt;
  cJSON_ArrayForEach(rt, r->routes) {
    crawl__buf_printf(b, "<tr style=\"background:%s33\">", rp_palette[rp_route_color(r, crawl__str(rt, "routeId"))]);
    rp_h_cells(b, route_cols, H_NCOLS(route_cols), rt, r);
    crawl__buf_puts(b, "</tr>");
  }
  crawl__buf_puts(b, "</tbody></table></section>\n");
}

static void rp_html_graph(crawl__buf *b, const rp *r, const char *svg, const char *how) {
  crawl__buf_printf(b, "<section id=\"graph\"><h2>Transition graph</h2><p class=\"muted\">%zu states, %zu drawn edges "
                       "(parallel transitions drawn once; self-loops omitted). Click a state to see it. Layout: %s.</p>",
                    r->nst, r->ned, how);
  crawl__buf_puts(b, "<div class=\"legend\">");
  const cJSON *rt;
  cJSON_ArrayForEach(rt, r->routes) {
    crawl__buf_printf(b, "<span><i style=\"background:%s\"></i>", rp_palette[rp_route_color(r, crawl__str(rt, "routeId"))]);
    h(b, crawl__str(rt, "routeId"));
    crawl__buf_puts(b, "</span>");
  }
  crawl__buf_puts(b, "</div><div class=\"graphbox\" id=\"graph-svg\">");
  crawl__buf_puts(b, svg);
  crawl__buf_puts(b, "</div></section>\n");
}

static void rp_html_states(crawl__buf *b, rp *r, size_t *embedded) {
  size_t budget = r->o->max_embed_bytes ? r->o->max_embed_bytes : RP_EMBED_DEFAULT;
  crawl__buf_printf(b, "<section id=\"states\"><h2>States (%zu)</h2><div class=\"states\">", r->nst);
  const cJSON *edges = crawl__arr2(r->pkg, "transitionGraph", "edges");
  for (size_t i = 0; i < r->nst; i++) {
    const rp_state *s = &r->st[i];
    const cJSON *m = crawl__get(s->node, "metadata");
    crawl__buf_puts(b, "<div class=\"state\" id=\"state-");
    h(b, s->id);
    crawl__buf_puts(b, "\">");
    int shown = 0;
    if (s->shot && crawl__path_inside(s->shot)) {
      char *path = crawl__xprintf("%s/%s", r->dir, s->shot);
      size_t len = 0;
      int e;
      unsigned char *png = (unsigned char *)crawl__file_read(path, RP_PNG_MAX, &len, &e);
      free(path);
      if (png && len > 8 && !memcmp(png, "\x89PNG\r\n\x1a\n", 8) && *embedded + len <= budget) {
        crawl__buf_puts(b, "<img loading=\"lazy\" alt=\"screenshot of ");
        h(b, s->id);
        crawl__buf_puts(b, "\" src=\"data:image/png;base64,");
        rp_buf_base64(b, png, len);
        crawl__buf_puts(b, "\">");
        *embedded += len;
        shown = 1;
      } else if (png && *embedded + len > budget)
        crawl__buf_puts(b, "<div class=\"noshot\">screenshot not embedded (report size limit)</div>"), shown = 1;
      free(png);
    }
    if (!shown) crawl__buf_puts(b, "<div class=\"noshot\">no screenshot</div>");
    crawl__buf_puts(b, "<h3>");
    h(b, s->id);
    crawl__buf_puts(b, "</h3><div>");
    rp_h_code(b, s->route);
    if (s->title) { crawl__buf_puts(b, " · "); h(b, s->title); }
    crawl__buf_printf(b, "</div><div class=\"muted\">depth %.0f · %s confidence · %d in, %d out",
                      crawl__num(m, "depth", 0), crawl__str(s->node, "confidence") ? crawl__str(s->node, "confidence") : "?", s->nin, s->nout);
    if (crawl__num(m, "selfLoops", 0) > 0) crawl__buf_printf(b, " · %.0f self-loops", crawl__num(m, "selfLoops", 0));
    crawl__buf_puts(b, "</div>");
    if (cJSON_GetArraySize(crawl__arr(s->node, "modalStack"))) {
      crawl__buf_puts(b, "<div>open dialog: ");
      rp_h_list(b, crawl__arr(s->node, "modalStack"), 3, 1);
      crawl__buf_puts(b, "</div>");
    }
    if (crawl__str(m, "parentStateId")) {
      crawl__buf_puts(b, "<div class=\"muted\">first reached from <a href=\"#state-");
      h(b, crawl__str(m, "parentStateId"));
      crawl__buf_puts(b, "\">");
      h(b, crawl__str(m, "parentStateId"));
      crawl__buf_puts(b, "</a></div>");
    }
    int k = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, edges) {
      if (!crawl__str(e, "fromStateId") || strcmp(crawl__str(e, "fromStateId"), s->id)) continue;
      if (!k) crawl__buf_puts(b, "<ul>");
      if (k++ == RP_EDGE_LIST_MAX) { crawl__buf_puts(b, "<li class=\"muted\">…</li>"); break; }
      crawl__buf_puts(b, "<li>");
      rp_h_code(b, crawl__str(e, "viaActionId"));
      crawl__buf_puts(b, " ");
      crawl__buf tl = {0};
      rp_target_label(&tl, crawl__get(e, "target"));
      h(b, tl.p);
      crawl__buf_free(&tl);
      crawl__buf_puts(b, " → <a href=\"#state-");
      h(b, crawl__str(e, "toStateId"));
      crawl__buf_puts(b, "\">");
      h(b, crawl__str(e, "toStateId"));
      crawl__buf_puts(b, "</a></li>");
    }
    if (k) crawl__buf_puts(b, "</ul>");
    crawl__buf_puts(b, "</div>");
  }
  crawl__buf_puts(b, "</div></section>\n");
}

static void h_review_sev(crawl__buf *b, const cJSON *it, const void *ctx) { rp_h_sev(b, crawl__str(it, "severity")); }

static void h_review_finding(crawl__buf *b, const cJSON *it, const void *ctx) {
  h(b, crawl__str(it, "description"));
  if (crawl__str(it, "stableId")) { crawl__buf_puts(b, " <span class=\"muted\">stableId</span> "); rp_h_code(b, crawl__str(it, "stableId")); }
}

/* ctx: the rp (states evidence links to) */
static void h_review_evidence(crawl__buf *b, const cJSON *it, const void *ctx) {
  const rp *r = ctx;
  const cJSON *ev;
  int k = 0;
  cJSON_ArrayForEach(ev, crawl__arr(it, "evidence")) {
    const char *ref = crawl__str(ev, "refId");
    if (!ref) continue;
    if (k == 6) { crawl__buf_printf(b, " <span class=\"muted\">(+%d)</span>", cJSON_GetArraySize(crawl__arr(it, "evidence")) - 6); break; }
    if (k++) crawl__buf_puts(b, " ");
    if (rp_state_index(r, ref) >= 0) {
      crawl__buf_puts(b, "<a href=\"#state-");
      h(b, ref);
      crawl__buf_puts(b, "\">");
      h(b, ref);
      crawl__buf_puts(b, "</a>");
    } else rp_h_code(b, ref);
  }
}

static const h_col review_cols[] = {
  H_FN("Severity", h_review_sev),
  {"Kind", HC_CODE, "kind", 0, 0, NULL, " class=\"nw\""}, /* no wrap */
  H_CODE("Route", "routeId"),
  H_FN("Finding", h_review_finding),
  H_TEXT("Remediation", "remediation"),
  H_FN("Evidence", h_review_evidence),
};

static void rp_html_review(crawl__buf *b, const rp *r) {
  const cJSON *items = crawl__arr2(r->pkg, "reviewQueue", "items"), *it;
  int present[RP_NKINDS] = {0}, sev[3] = {0};
  cJSON_ArrayForEach(it, items) {
    present[rp_kind_index(crawl__str(it, "kind"))]++;
    int s = rp_sev_rank(crawl__str(it, "severity"));
    if (s >= 0) sev[s]++;
  }
  crawl__buf_printf(b, "<section id=\"review\"><h2>Review queue</h2><div class=\"filters\" id=\"review-filters\">"
                       "<label><input type=\"checkbox\" data-sev=\"high\" checked> high (%d)</label>"
                       "<label><input type=\"checkbox\" data-sev=\"medium\" checked> medium (%d)</label>"
                       "<label><input type=\"checkbox\" data-sev=\"low\" checked> low (%d)</label>"
                       "<label>kind <select id=\"kind-filter\"><option value=\"\">all kinds</option>",
                    sev[2], sev[1], sev[0]);
  for (size_t k = 0; k < RP_NKINDS; k++) {
    if (!present[k]) continue;
    crawl__buf_printf(b, "<option value=\"%s\">%s (%d)</option>", rp_kinds[k].kind, rp_kinds[k].kind, present[k]);
  }
  crawl__buf_printf(b, "</select></label><input type=\"search\" id=\"review-search\" placeholder=\"search text\">"
                       "<span><b id=\"review-count\">%d</b> shown</span></div>", cJSON_GetArraySize(items));
  crawl__buf_puts(b, "<table id=\"review-table\">");
  rp_h_thead(b, review_cols, H_NCOLS(review_cols));
  cJSON_ArrayForEach(it, items) {
    int s = rp_sev_rank(crawl__str(it, "severity"));
    crawl__buf_printf(b, "<tr data-severity=\"%s\" data-kind=\"%s\" id=\"", s >= 0 ? rp_sev_names[s] : "medium",
                      rp_kinds[rp_kind_index(crawl__str(it, "kind"))].kind);
    h(b, crawl__str(it, "id"));
    crawl__buf_puts(b, "\">");
    rp_h_cells(b, review_cols, H_NCOLS(review_cols), it, r);
    crawl__buf_puts(b, "</tr>");
  }
  crawl__buf_puts(b, "</tbody></table></section>\n");
}

/* Decisions grouped by what was held back and why. */
typedef struct dgroup { const cJSON *first; int count; cJSON *routes; char *key; int effect; } dgroup;
static int cmp_dgroup(const void *x, const void *y) {
  const dgroup *a = x, *b = y;
  if (a->effect != b->effect) return b->effect - a->effect;
  return crawl__natcmp(a->key, b->key);
}

/* Cells of a safety row: o is the group's first decision, ctx the dgroup. */
static void h_safety_effect(crawl__buf *b, const cJSON *f, const void *ctx) {
  const char *eff = crawl__str(f, "effect") ? crawl__str(f, "effect") : "?";
  crawl__buf_puts(b, "<span class=\"eff eff-");
  h(b, eff);
  crawl__buf_puts(b, "\">");
  h(b, eff);
  crawl__buf_puts(b, "</span>");
}
static void h_safety_control(crawl__buf *b, const cJSON *f, const void *ctx) {
  const cJSON *t = crawl__get(f, "target");
  h(b, crawl__str(t, "role"));
  crawl__buf_puts(b, " “");
  h(b, crawl__str(t, "name"));
  crawl__buf_puts(b, "”");
  if (crawl__str(t, "stableId")) { crawl__buf_puts(b, " "); rp_h_code(b, crawl__str(t, "stableId")); }
}
static void h_safety_routes(crawl__buf *b, const cJSON *f, const void *ctx) {
  rp_h_list(b, ((const dgroup *)ctx)->routes, 6, 1);
}
static void h_safety_times(crawl__buf *b, const cJSON *f, const void *ctx) {
  crawl__buf_printf(b, "%d", ((const dgroup *)ctx)->count);
}

static const h_col safety_cols[] = {
  H_FN("Effect", h_safety_effect),
  H_FN("Control", h_safety_control),
  H_CODE("Action", "actionId"),
  H_TEXT("Side effect", "sideEffectClass"),
  H_TEXT("Reason", "reason"),
  H_CODE("Rule", "rule"),
  H_FN("Routes", h_safety_routes),
  H_FN("Times", h_safety_times),
  H_TEXT("Explanation", "text"),
};

/* What the gate cost (metadata.gate): actions by effect, then by rule. */
static void html_gate(crawl__buf *b, const rp *r) {
  static const char *const effects[][2] = {{"allow", "allowed"}, {"deny", "denied"},
                                           {"review", "held for review"}, {"skip", "skipped"}};
  const cJSON *g = crawl__get(crawl__get(r->pkg, "metadata"), "gate"), *x;
  if (!g) return;
  crawl__buf_puts(b, "<h3>What the gate cost</h3><p>Actions the safety gate allowed, denied, held for review and "
                     "skipped, each counted once per state, and the rules that did not allow them.</p>"
                     "<table id=\"gate-table\"><thead><tr><th>Effect</th><th>Actions</th></tr></thead><tbody>");
  for (size_t k = 0; k < sizeof effects / sizeof *effects; k++)
    crawl__buf_printf(b, "<tr><td>%s</td><td>%.0f</td></tr>", effects[k][1], crawl__num(g, effects[k][0], 0));
  crawl__buf_puts(b, "</tbody></table><table id=\"gate-rules\"><thead><tr><th>Effect</th><th>Rule</th>"
                     "<th>Actions</th></tr></thead><tbody>");
  cJSON_ArrayForEach(x, crawl__get(g, "byRule")) {
    crawl__buf_puts(b, "<tr><td>");
    h(b, crawl__str(x, "effect"));
    crawl__buf_puts(b, "</td><td>");
    rp_h_code(b, crawl__str(x, "rule"));
    crawl__buf_printf(b, "</td><td>%.0f</td></tr>", crawl__num(x, "count", 0));
  }
  crawl__buf_puts(b, "</tbody></table>");
}

static void rp_html_safety(crawl__buf *b, const rp *r) {
  static const char *const effects[] = {"skip", "review", "deny"};
  crawl__buf_puts(b, "<section id=\"safety\"><h2>Safety decisions: what was not executed, and why</h2>");
  const cJSON *md = crawl__get(crawl__get(r->pkg, "metadata"), "decisions");
  const cJSON *safety = crawl__get(crawl__get(r->pkg, "environment"), "safety");
  crawl__buf_puts(b, "<p>Mode ");
  rp_h_code(b, crawl__str(safety, "defaultMode") ? crawl__str(safety, "defaultMode") : "safe_explore");
  if (md) crawl__buf_printf(b, ". Actions denied: %.0f, held for review: %.0f, skipped: %.0f (each counted once per state).",
                            crawl__num(md, "deny", 0), crawl__num(md, "review", 0), crawl__num(md, "skip", 0));
  crawl__buf_puts(b, " None of these controls was clicked.</p>");
  html_gate(b, r);
  if (!r->decisions) {
    crawl__buf_puts(b, "<p class=\"muted\">The journal is not available; see the unsafe_action_candidate items of the review queue.</p></section>\n");
    return;
  }
  dgroup *g = NULL;
  size_t ng = 0;
  const cJSON *d;
  cJSON_ArrayForEach(d, r->decisions) {
    const cJSON *t = crawl__get(d, "target");
    int eff = -1;
    for (int k = 0; k < 3; k++)
      if (crawl__str(d, "effect") && !strcmp(crawl__str(d, "effect"), effects[k])) eff = k;
    char *key = crawl__xprintf("%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s", crawl__str(t, "name") ? crawl__str(t, "name") : "",
                               crawl__str(t, "role") ? crawl__str(t, "role") : "", crawl__str(d, "actionId") ? crawl__str(d, "actionId") : "",
                               crawl__str(d, "effect") ? crawl__str(d, "effect") : "", crawl__str(d, "reason") ? crawl__str(d, "reason") : "",
                               crawl__str(d, "rule") ? crawl__str(d, "rule") : "");
    size_t k;
    for (k = 0; k < ng; k++)
      if (!strcmp(g[k].key, key)) break;
    if (k == ng) {
      g = crawl__xrealloc(g, (ng + 1) * sizeof *g);
      g[ng++] = (dgroup){d, 0, crawl__jx(cJSON_CreateArray()), key, eff};
    } else free(key);
    g[k].count++;
    long si = rp_state_index(r, crawl__str(d, "stateId"));
    const char *route = si >= 0 ? r->st[si].route : NULL;
    int dup = !route;
    const cJSON *x;
    cJSON_ArrayForEach(x, g[k].routes) dup |= !strcmp(x->valuestring, route);
    if (!dup) crawl__jpush(g[k].routes, cJSON_CreateString(route));
  }
  if (ng > 1) qsort(g, ng, sizeof *g, cmp_dgroup);
  crawl__buf_puts(b, "<table id=\"safety-table\">");
  rp_h_thead(b, safety_cols, H_NCOLS(safety_cols));
  for (size_t k = 0; k < ng; k++) {
    crawl__buf_puts(b, "<tr>");
    rp_h_cells(b, safety_cols, H_NCOLS(safety_cols), g[k].first, &g[k]);
    crawl__buf_puts(b, "</tr>");
    cJSON_Delete(g[k].routes);
    free(g[k].key);
  }
  free(g);
  crawl__buf_puts(b, "</tbody></table></section>\n");
}

static const h_col input_cols[] = {
  H_CODE("Input", "name"),
  H_TEXT("Type", "type"),
  H_YESNO("Required", "required"),
  H_TEXT("Data class", "dataClass"),
  H_TEXT("Meaning", "meaning"),
  H_TEXT("Field", "description"),
};

static void rp_html_workflows(crawl__buf *b, const rp *r) {
  const cJSON *wfs = crawl__arr2(r->pkg, "workflowCandidates", "workflows"), *w;
  crawl__buf_printf(b, "<section id=\"workflows\"><h2>Workflow candidates (%d)</h2>", cJSON_GetArraySize(wfs));
  if (!cJSON_GetArraySize(wfs)) crawl__buf_puts(b, "<p class=\"muted\">No workflow candidate was synthesized.</p>");
  cJSON_ArrayForEach(w, wfs) {
    const cJSON *md = crawl__get(w, "metadata");
    crawl__buf_puts(b, "<div class=\"wf\" id=\"wf-");
    h(b, crawl__str(w, "id"));
    crawl__buf_puts(b, "\"><h3>");
    h(b, crawl__str(w, "title") ? crawl__str(w, "title") : crawl__str(w, "id"));
    crawl__buf_puts(b, "</h3><div class=\"muted\">");
    rp_h_code(b, crawl__str(w, "id"));
    crawl__buf_puts(b, " · category ");
    h(b, crawl__str(w, "category"));
    crawl__buf_puts(b, " · confidence ");
    h(b, crawl__str(w, "confidence"));
    crawl__buf_puts(b, " · ");
    h(b, crawl__str(w, "reviewState"));
    crawl__buf_puts(b, " · routes ");
    rp_h_list(b, crawl__arr(w, "routeIds"), 8, 1);
    crawl__buf_puts(b, "</div>");
    if (cJSON_IsTrue(crawl__get(md, "observedOnly"))) {
      crawl__buf_puts(b, "<p class=\"note\">");
      h(b, crawl__str(md, "note") ? crawl__str(md, "note") : "Synthesized from observation: some steps were never executed.");
      crawl__buf_puts(b, "</p>");
    }
    const cJSON *inputs = crawl__arr(w, "requiredInputs"), *p;
    if (cJSON_GetArraySize(inputs)) {
      crawl__buf_puts(b, "<table>");
      rp_h_thead(b, input_cols, H_NCOLS(input_cols));
      cJSON_ArrayForEach(p, inputs) {
        crawl__buf_puts(b, "<tr>");
        rp_h_cells(b, input_cols, H_NCOLS(input_cols), p, NULL);
        crawl__buf_puts(b, "</tr>");
      }
      crawl__buf_puts(b, "</tbody></table>");
    }
    crawl__buf_puts(b, "<ol>");
    const cJSON *st;
    int i = 0;
    cJSON_ArrayForEach(st, crawl__arr(w, "stepSkeleton")) {
      const cJSON *sm = NULL, *x;
      cJSON_ArrayForEach(x, crawl__arr(md, "steps")) if (crawl__num(x, "step", -1) == i) sm = x;
      int notrun = sm && cJSON_IsFalse(crawl__get(sm, "executed"));
      crawl__buf_puts(b, notrun ? "<li class=\"notrun\">" : "<li>");
      crawl__buf_puts(b, "<b>");
      h(b, crawl__str(st, "type"));
      crawl__buf_puts(b, "</b> ");
      if (crawl__str(st, "actionId")) { rp_h_code(b, crawl__str(st, "actionId")); crawl__buf_puts(b, " "); }
      if (crawl__get(st, "target")) {
        crawl__buf tl = {0};
        rp_target_label(&tl, crawl__get(st, "target"));
        h(b, tl.p);
        crawl__buf_free(&tl);
      }
      if (crawl__arr(st, "parameterNames")) { crawl__buf_puts(b, " ← "); rp_h_list(b, crawl__arr(st, "parameterNames"), 8, 1); }
      const cJSON *sg;
      int k = 0;
      cJSON_ArrayForEach(sg, crawl__arr(st, "signals")) {
        crawl__buf_puts(b, k++ ? ", " : " ");
        rp_h_signal(b, sg);
      }
      if (notrun) {
        crawl__buf_puts(b, " <span class=\"muted\">(not executed");
        if (crawl__str(sm, "gate")) { crawl__buf_puts(b, ": "); h(b, crawl__str(sm, "gate")); }
        crawl__buf_puts(b, ")</span>");
      }
      crawl__buf_puts(b, "</li>");
      i++;
    }
    crawl__buf_puts(b, "</ol></div>");
  }
  crawl__buf_puts(b, "</section>\n");
}

static void h_action_risk(crawl__buf *b, const cJSON *a, const void *ctx) {
  const cJSON *risk = crawl__get(a, "risk");
  h(b, crawl__str(risk, "level"));
  if (crawl__arr(risk, "tags")) { crawl__buf_puts(b, " <span class=\"muted\">"); rp_h_list(b, crawl__arr(risk, "tags"), 6, 0); crawl__buf_puts(b, "</span>"); }
}
static void h_action_signals(crawl__buf *b, const cJSON *a, const void *ctx) {
  const cJSON *sg;
  int k = 0;
  cJSON_ArrayForEach(sg, crawl__arr(a, "successSignals")) {
    if (k == 6) { crawl__buf_puts(b, " …"); break; }
    crawl__buf_puts(b, k++ ? "<br>" : "");
    rp_h_signal(b, sg);
  }
}

static const h_col action_cols[] = {
  H_CODE("Action", "id"),
  H_TEXT("Kind", "kind"),
  H_FN("Risk", h_action_risk),
  H_TEXT("Side effect", "sideEffectClass"),
  H_TEXT("Review state", "reviewState"),
  H_NUM("Executed", "executed"),
  H_NUM("Denied", "denied"),
  H_NUM("Held for review", "reviewed"),
  H_FN("Success signals", h_action_signals),
};

static void rp_html_actions(crawl__buf *b, const rp *r) {
  crawl__buf_puts(b, "<section id=\"actions\"><h2>Actions</h2><table>");
  rp_h_thead(b, action_cols, H_NCOLS(action_cols));
  const cJSON *a;
  cJSON_ArrayForEach(a, crawl__arr2(r->pkg, "actionCatalog", "actions")) {
    crawl__buf_puts(b, "<tr>");
    rp_h_cells(b, action_cols, H_NCOLS(action_cols), a, NULL);
    crawl__buf_puts(b, "</tr>");
  }
  crawl__buf_puts(b, "</tbody></table></section>\n");
}

/* The access matrix of a principals run (DIR/access.json, docs/principals.md):
 * a route per row, a principal per column; "direct" stands out. */
static void rp_html_access(crawl__buf *b, const rp *r) {
  const cJSON *ps = crawl__get(r->access, "principals"), *p, *rt;
  if (!r->access || !cJSON_IsArray(ps)) return;
  crawl__buf_puts(b, "<section id=\"access\"><h2>Access by principal</h2><p>reached: found by exploring; direct: "
                     "not offered, but opened by URL and shown (likely access-control gap); denied: refused or sent "
                     "to sign-in; absent: not probed.</p><table><thead><tr><th>Route</th>");
  cJSON_ArrayForEach(p, ps) { crawl__buf_puts(b, "<th>"); h(b, cJSON_GetStringValue(p)); crawl__buf_puts(b, "</th>"); }
  crawl__buf_puts(b, "</tr></thead><tbody>");
  cJSON_ArrayForEach(rt, crawl__get(r->access, "routes")) {
    crawl__buf_puts(b, "<tr><td>");
    rp_h_code(b, rt->string);
    crawl__buf_puts(b, "</td>");
    cJSON_ArrayForEach(p, ps) {
      const char *v = crawl__str(rt, cJSON_GetStringValue(p) ? cJSON_GetStringValue(p) : "");
      crawl__buf_printf(b, "<td class=\"access-%s\">", v && !strcmp(v, "direct") ? "direct" : "other");
      h(b, v ? v : "absent");
      crawl__buf_puts(b, "</td>");
    }
    crawl__buf_puts(b, "</tr>");
  }
  crawl__buf_puts(b, "</tbody></table></section>\n");
}

static char *rp_html(rp *r, const char *svg, const char *how) {
  const cJSON *run = crawl__get(r->pkg, "run"), *env = crawl__get(r->pkg, "environment");
  crawl__buf b = {0};
  crawl__buf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
                      "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
                      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>Discovery report: ");
  h(&b, crawl__str(env, "environmentId"));
  crawl__buf_puts(&b, "</title>\n<style>");
  crawl__buf_puts(&b, html_css);
  crawl__buf_puts(&b, "</style></head>\n<body>\n<header><h1>Discovery report: ");
  h(&b, crawl__str(env, "environmentId"));
  crawl__buf_puts(&b, "</h1><div class=\"meta\">run ");
  h(&b, crawl__str(run, "runId"));
  crawl__buf_puts(&b, " · status <b id=\"run-status\">");
  h(&b, crawl__str(run, "status"));
  crawl__buf_puts(&b, "</b> · ");
  h(&b, crawl__str(run, "startedAt"));
  if (crawl__str(run, "finishedAt")) { crawl__buf_puts(&b, " → "); h(&b, crawl__str(run, "finishedAt")); }
  double secs = rp_run_seconds(run);
  if (secs > 0) crawl__buf_printf(&b, " (%.0f s)", secs);
  crawl__buf_puts(&b, " · base URL ");
  h(&b, crawl__str(env, "baseUrl"));
  const char *stopped = crawl__str(crawl__get(r->pkg, "coverage"), "stoppedBy");
  if (stopped) { crawl__buf_puts(&b, " · stopped by "); h(&b, stopped); }
  crawl__buf_puts(&b, "</div></header>\n<nav><a href=\"#summary\">Summary</a><a href=\"#routes\">Routes</a><a href=\"#graph\">Graph</a>"
                      "<a href=\"#states\">States</a><a href=\"#review\">Review queue</a><a href=\"#safety\">Safety decisions</a>"
                      "<a href=\"#workflows\">Workflows</a><a href=\"#actions\">Actions</a>");
  if (r->access) crawl__buf_puts(&b, "<a href=\"#access\">Access</a>");
  crawl__buf_puts(&b, "</nav>\n<main>\n");
  rp_html_summary(&b, r);
  rp_html_routes(&b, r);
  rp_html_graph(&b, r, svg, how);
  size_t embedded = 0;
  rp_html_states(&b, r, &embedded);
  rp_html_review(&b, r);
  rp_html_safety(&b, r);
  rp_html_workflows(&b, r);
  rp_html_actions(&b, r);
  rp_html_access(&b, r);
  crawl__buf_puts(&b, "</main>\n<footer>Generated by uiap-crawl from package.json (UIAP Discovery Package ");
  h(&b, crawl__str(r->pkg, "modelVersion"));
  crawl__buf_puts(&b, "). Discovery results are proposals: review them before use.</footer>\n<script>");
  crawl__buf_puts(&b, html_js);
  crawl__buf_puts(&b, "</script>\n</body></html>\n");
  return crawl__buf_take(&b);
}

/* ---- entry points ---------------------------------------------------------------------------- */
static int write_text(rp *r, const char *name, const char *text) {
  char *path = crawl__xprintf("%s/%s", r->dir, name);
  int e = crawl__file_write(path, text, strlen(text));
  if (e) snprintf(r->err, r->errlen, "%s: %s", path, strerror(e));
  free(path);
  return e;
}

crawl_code crawl_reports_write(const char *dir, const crawl_report_opts *o, char *err, size_t errlen) {
  char dummy[8];
  if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
  err[0] = 0;
  if (!dir) {
    snprintf(err, errlen, "crawl_reports_write: dir is required");
    return CRAWL_ARG;
  }
  static const crawl_report_opts defaults;
  if (!o) o = &defaults;
  int fail_at = 1;
  if (o->junit_fail_on) {
    fail_at = rp_sev_rank(o->junit_fail_on);
    if (fail_at < 0) {
      snprintf(err, errlen, "junit_fail_on must be low, medium or high, not %s", o->junit_fail_on);
      return CRAWL_ARG;
    }
  }
  rp r = {.dir = dir, .o = o, .err = err, .errlen = errlen};
  char *path = crawl__xprintf("%s/package.json", dir);
  r.pkg = rp_load(&r.jar, path, err, errlen);
  free(path);
  if (!r.pkg) {
    crawl__jarena_release(&r.jar);
    return CRAWL_IO;
  }
  if (!crawl__str(r.pkg, "spec") || strcmp(crawl__str(r.pkg, "spec"), "uiap.discovery")) {
    snprintf(err, errlen, "%s/package.json is not a UIAP Discovery Package (no \"spec\": \"uiap.discovery\")", dir);
    crawl__jarena_release(&r.jar);
    return CRAWL_IO;
  }
  rp_model(&r);
  rp_decisions(&r);
  path = crawl__xprintf("%s/access.json", dir);
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
  cJSON_Delete(r.decisions);
  cJSON_Delete(r.access);
  crawl__jarena_release(&r.jar);
  return rc;
}

crawl_code crawl_review_count(const char *dir, const char *min_severity, long *count, char *err, size_t errlen) {
  char dummy[8];
  if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
  err[0] = 0;
  int min = rp_sev_rank(min_severity);
  if (!dir || !count || min < 0) {
    snprintf(err, errlen, "severity must be low, medium or high%s%s", min_severity ? ", not " : "", min_severity ? min_severity : "");
    return CRAWL_ARG;
  }
  *count = 0;
  cJSON *p = crawl__package_load(dir, err, errlen);
  if (!p) return CRAWL_IO;
  const cJSON *it;
  cJSON_ArrayForEach(it, crawl__arr2(p, "reviewQueue", "items")) *count += rp_sev_rank(crawl__str(it, "severity")) >= min;
  cJSON_Delete(p);
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

crawl_code crawl_gate_line(const char *dir, char *line, size_t n, char *err, size_t errlen) {
  static const char *const effects[][2] = {{"allow", "allowed"}, {"deny", "denied"},
                                           {"review", "held"}, {"skip", "skipped"}};
  char dummy[8];
  if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
  err[0] = 0;
  if (!dir || !line || !n) return CRAWL_ARG;
  line[0] = 0;
  cJSON *p = crawl__package_load(dir, err, errlen);
  if (!p) return CRAWL_IO;
  const cJSON *g = crawl__get(crawl__get(p, "metadata"), "gate");
  crawl__buf b = {0};
  crawl__buf_puts(&b, "gate:");
  for (size_t k = 0; g && k < sizeof effects / sizeof *effects; k++) {
    crawl__buf_printf(&b, "%s %.0f %s", k ? "," : "", crawl__num(g, effects[k][0], 0), effects[k][1]);
    if (k) gate_classes(&b, crawl__get(crawl__get(g, "byClass"), effects[k][0]));
  }
  if (!g) crawl__buf_puts(&b, " not recorded");
  snprintf(line, n, "%s", b.p ? b.p : "");
  crawl__buf_free(&b);
  cJSON_Delete(p);
  return CRAWL_OK;
}

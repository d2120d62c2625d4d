/* report_graph.c -- the transition graph drawn: DIR/graph.dot, and the SVG
 * for report.html, either by Graphviz `dot` (a child process with a timeout)
 * or by the built-in layered layout (columns by breadth-first depth from the
 * seeds, ordered within a column by barycenter sweeps; parallel edges drawn
 * once). Also the short text helpers graph labels share with the HTML.
 */
#include "report_int.h"
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

void rp_target_label(crawl__buf *b, const cJSON *t) {
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

char *rp_dot(rp *r, int labels) {
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
char *rp_svg_dot(rp *r) {
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

char *rp_svg_builtin(rp *r) {
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

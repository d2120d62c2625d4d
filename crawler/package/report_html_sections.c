/* report_html_sections.c -- the sections of report.html: summary, routes, the
 * graph, states with screenshot thumbnails, the review queue, the safety
 * decisions and the gate's cost, workflow candidates, actions, and the
 * principals' access. The page around them is report_html.c.
 */
#include "report_int.h"
/* A run on a baseline (metadata.baseline, docs/nightly.md): one line. */
static void html_baseline(crawl__buf *b, const rp *r) {
  const cJSON *bl = crawl__get(crawl__get(r->pkg, "metadata"), "baseline");
  if (!bl) return;
  crawl__buf_puts(b, "<p id=\"baseline\">Baseline ");
  rp_h_code(b, crawl__str(bl, "runId"));
  crawl__buf_printf(b, ": %.0f states verified (%.0f unchanged, %.0f changed), %.0f gone, %.0f new; %.0f transitions "
                       "carried, %.0f re-executed (%.0f mismatched), %.0f explored, %.0f actions left open.</p>",
                    crawl__num(bl, "verified", 0), crawl__num(bl, "unchanged", 0), crawl__num(bl, "changed", 0),
                    crawl__num(bl, "gone", 0), crawl__num(bl, "new", 0), crawl__num(bl, "carried", 0),
                    crawl__num(bl, "reexecuted", 0), crawl__num(bl, "reexecutedMismatched", 0),
                    crawl__num(bl, "explored", 0), crawl__num(bl, "leftOpen", 0));
}

void rp_html_summary(crawl__buf *b, const rp *r) {
  const cJSON *cov = crawl__get(r->pkg, "coverage"), *run = crawl__get(r->pkg, "run");
  int sev[3] = {0};
  const cJSON *it;
  cJSON_ArrayForEach(it, crawl__arr2(r->pkg, "reviewQueue", "items")) {
    int s = pk_severity_rank(crawl__str(it, "severity"));
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
  html_baseline(b, r);
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

void rp_html_routes(crawl__buf *b, const rp *r) {
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

void rp_html_graph(crawl__buf *b, const rp *r, const char *svg, const char *how) {
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

void rp_html_states(crawl__buf *b, rp *r, size_t *embedded) {
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

void rp_html_review(crawl__buf *b, const rp *r) {
  const cJSON *items = crawl__arr2(r->pkg, "reviewQueue", "items"), *it;
  int present[RP_NKINDS] = {0}, sev[3] = {0};
  cJSON_ArrayForEach(it, items) {
    present[rp_kind_index(crawl__str(it, "kind"))]++;
    int s = pk_severity_rank(crawl__str(it, "severity"));
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
    int s = pk_severity_rank(crawl__str(it, "severity"));
    crawl__buf_printf(b, "<tr data-severity=\"%s\" data-kind=\"%s\" id=\"", s >= 0 ? pk_severities[s] : "medium",
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

void rp_html_safety(crawl__buf *b, const rp *r) {
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
  if (!r->have_dec) {
    crawl__buf_puts(b, "<p class=\"muted\">The journal is not available; see the unsafe_action_candidate items of the review queue.</p></section>\n");
    return;
  }
  dgroup *g = NULL;
  size_t ng = 0;
  for (size_t di = 0; di < r->ndec; di++) {
    const cJSON *d = r->dec[di], *t = crawl__get(d, "target");
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

void rp_html_workflows(crawl__buf *b, const rp *r) {
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

void rp_html_actions(crawl__buf *b, const rp *r) {
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
void rp_html_access(crawl__buf *b, const rp *r) {
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

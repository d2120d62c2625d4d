/* build.c -- turn one capture (DOMSnapshot + accessibility tree + frame and
 * page facts) into a PageGraph.
 *
 * Steps: index the flat snapshot (all in-process documents, shadow trees
 * flattened), join AX nodes by backendNodeId, decide per document whether it
 * may be published (same-origin, bridged, or opaque), mark closed-shadow
 * content as unpublishable, then choose elements (section 8 inclusion), their
 * role, name, state, affordances, actions, scope, bbox, and relations.
 *
 * Boundaries are enforced here, once: nothing under a closed shadow root and
 * nothing inside an opaque document is ever copied into the graph.
 *
 * This file owns the pipeline (pg_build: its steps in order), the error
 * strings, revisions, pg_graph_contains and pg_graph_free; each step lives
 * in a build_*.c file (build_int.h lists them), which says in its first
 * lines what it owns.
 */
#include "build_int.h"

static const char *const pg__errmsgs[] = {
#define PG__MSG(name, msg) msg,
  PG_ERRNO_MAP(PG__MSG)
#undef PG__MSG
};
const char *pg_strerror(pg_code c) {
  return (int)c >= 0 && c < PG__ECOUNT ? pg__errmsgs[c] : "unknown error";
}

static unsigned long long revision_counter;
/* atomic: `listen` captures in several threads (a session's tab, observe, runs) */
unsigned long long pg_next_revision(void) { return __atomic_add_fetch(&revision_counter, 1, __ATOMIC_RELAXED); }


/* Reads the viewport from the page facts (defaults: 1280x800, the root
 * document's scroll, dpr 1). */
static void read_viewport(ctx *c) {
  pg_graph *g = c->g;
  const cJSON *page = c->in->page;
  const cJSON *v;
  g->vp_width = (v = get(page, "vw")) && cJSON_IsNumber(v) ? v->valuedouble : 1280;
  g->vp_height = (v = get(page, "vh")) && cJSON_IsNumber(v) ? v->valuedouble : 800;
  g->vp_scroll_x = (v = get(page, "sx")) && cJSON_IsNumber(v) ? v->valuedouble : c->d[0].scroll_x;
  g->vp_scroll_y = (v = get(page, "sy")) && cJSON_IsNumber(v) ? v->valuedouble : c->d[0].scroll_y;
  g->vp_dpr = (v = get(page, "dpr")) && cJSON_IsNumber(v) ? v->valuedouble : 1;
}

/* Sets the route: URL, title, pathname and its context. */
static void read_route(ctx *c) {
  pg_graph *g = c->g;
  const cJSON *page = c->in->page;
  const char *url = get_str(page, "url") ? get_str(page, "url") : c->d[0].url;
  g->route_url = pg__strdup(c->a, url);
  g->route_title = pg__clean(c, get_str(page, "title") ? get_str(page, "title") : c->d[0].title, NAME_MAX_BYTES);
  if (url) {
    const char *rest = pg_url_rest(url);
    g->route_pathname = *rest == '/' ? pg__strndup(c->a, rest, strcspn(rest, "?#")) : pg__strdup(c->a, "/");
  }
  pg__route_context(c, url);
}

/* Sets the innermost scope of each element. */
static void assign_scopes(ctx *c) {
  pg_graph *g = c->g;
  for (size_t e = 0; e < g->nelements; e++) {
    int ni = hget(c, g->elements[e].backend_node_id);
    g->elements[e].scope = ni >= 0 && c->n[ni].parent >= 0 ? pg__scope_of(c, c->n[ni].parent)
                           : ni >= 0 ? pg__doc_scope(c, c->n[ni].doc) : -1;
  }
}

/* Adds the scopes that appear even when empty: open dialogs, popovers,
 * drawers and annotated scopes (all kinds with include_non_interactive). */
static void add_standing_scopes(ctx *c) {
  for (size_t i = 0; i < c->nn; i++) {
    const snode *n = &c->n[i];
    if (n->type != 1 || n->closed_inside || c->d[n->doc].published < 0 || n->scope != -2) continue;
    if (c->d[n->doc].access == PG_ACCESS_OPAQUE) continue;
    if (!pg__node_visible(c, n) && !c->opt->include_hidden) continue;
    int from_ax;
    const char *role = pg__node_role(c, n, &from_ax);
    const char *stable;
    int kind = pg__scope_kind_of(c, (int)i, role, 1, &stable);
    if (kind == PG_SCOPE_DIALOG || kind == PG_SCOPE_POPOVER || kind == PG_SCOPE_DRAWER || kind == PG_SCOPE_CUSTOM ||
        (kind >= 0 && c->opt->include_non_interactive))
      pg__scope_of(c, (int)i);
  }
}

/* Sets the focused element, or the document that holds the focus. */
static void find_focus(ctx *c) {
  pg_graph *g = c->g;
  if (!c->in->focused_backend_node_id) return;
  int ni = hget(c, c->in->focused_backend_node_id);
  if (ni >= 0 && c->n[ni].frame_doc >= 0) {
    /* focus is inside a frame the page cannot look into (opaque, bridged
     * or out-of-process): that document, no target */
    g->focus_document = c->n[ni].frame_doc;
  } else if (ni >= 0 && c->n[ni].elem >= 0) {
    g->focus_element = c->n[ni].elem;
    g->focus_document = g->elements[c->n[ni].elem].document;
  } else if (ni >= 0 && c->d[c->n[ni].doc].published >= 0) {
    g->focus_document = c->d[c->n[ni].doc].published;
  }
}

/* Collects the visible main headings (h1, h2 of the root document; at
 * most 16): part of a state's identity. */
static void collect_headings(ctx *c) {
  pg_graph *g = c->g;
  for (size_t i = 0; i < c->nn && g->nheadings < 16; i++) {
    const snode *n = &c->n[i];
    if (n->type != 1 || n->doc != 0 || n->closed_inside || n->tag[0] != 'H' || (n->tag[1] != '1' && n->tag[1] != '2') || n->tag[2])
      continue;
    if (!pg__node_visible(c, n)) continue;
    char buf[512];
    size_t len = 0;
    buf[0] = 0;
    pg__light_text(c, (int)i, buf, sizeof buf, &len, 0);
    char *t = pg__clean(c, buf, 200);
    if (!t) continue;
    if (!g->headings) g->headings = pg__alloc(c->a, 16 * sizeof *g->headings);
    g->headings[g->nheadings++] = t;
  }
}

/* Sets the selection: its ends' elements, if they survived the filters, and
 * its text unless an end lies where nothing may be read. */
static void read_selection(ctx *c) {
  pg_graph *g = c->g;
  g->selection_anchor = c->sel_node[0] >= 0 ? c->n[c->sel_node[0]].elem : -1;
  g->selection_focus = c->sel_node[1] >= 0 ? c->n[c->sel_node[1]].elem : -1;
  const char *sel = get_str(c->in->page, "selection");
  g->selection_text = c->sel_drop ? NULL : pg__clean(c, sel, 1000);
}

/* Counts the closed shadow hosts in published, readable documents. */
static void count_closed_hosts(ctx *c) {
  for (size_t i = 0; i < c->nn; i++) {
    const snode *n = &c->n[i];
    if (n->type == 1 && !n->closed_inside && c->d[n->doc].published >= 0 &&
        c->d[n->doc].access != PG_ACCESS_OPAQUE && pg__closed_host(c, (int)i))
      c->g->closed_shadow_hosts++;
  }
}

/* Builds the graph's backendNodeId -> parent map for hit tests. */
static void build_parent_map(ctx *c) {
  pg_graph *g = c->g;
  crawl__intmap_reserve(&g->parent_of, c->nn + 1); /* never empty: pg_graph_contains knows it was built */
  for (size_t i = 0; i < c->nn; i++)
    if (c->n[i].backend)
      crawl__intmap_put(&g->parent_of, c->n[i].backend, c->n[i].parent >= 0 ? c->n[c->n[i].parent].backend : 0);
}

/* Frees the build's working memory (not the graph). */
static void ctx_release(ctx *c) {
  for (size_t dj = 0; dj < c->nd; dj++) {
    free(c->d[dj].styles);
    free(c->d[dj].bounds);
    free(c->d[dj].client);
    free(c->d[dj].paint);
  }
  free(c->d);
  free(c->n);
  crawl__intmap_release(&c->backend);
  crawl__strmap_release(&c->ids);
  crawl__strmap_release(&c->fors);
  crawl__intmap_release(&c->known_nodes);
  crawl__strmap_release(&c->known_keys);
  free(c->controlled);
}

/* The build's steps after indexing, in order: documents, route, elements,
 * scopes, relations, page facts, then redaction. */
static void build_graph(ctx *c) {
  pg_graph *g = c->g;
  read_viewport(c);
  g->revision = pg__printf(c->a, "rev_%llu", c->opt->revision ? c->opt->revision : pg_next_revision());
  g->root_document_id = pg__strdup(c->a, "doc_root");
  pg__propagate(c);
  pg__build_documents(c);
  pg__join_ax(c);
  read_route(c);
  pg__doc_scope(c, 0);

  pg__select_elements(c);
  pg__compute_obscured(c);
  assign_scopes(c);
  pg__apply_filters(c);
  pg__apply_max_nodes(c);
  add_standing_scopes(c);
  for (size_t dj = 1; dj < c->nd; dj++) pg__doc_scope(c, (int)dj);
  pg__prune_scopes(c);
  pg__mark_inert(c);
  pg__build_relations(c);
  find_focus(c);
  collect_headings(c);
  read_selection(c);
  count_closed_hosts(c);
  pg__scrub_sensitive(c);
  pg__list_sensitive_fields(c);
  pg__field_notes(c);
  pg__collect_masks(c);
  if (c->opt->redact_pii) pg__redact_pii(c);
  build_parent_map(c);
}

pg_code pg_build(const pg_input *in, const pg_options *opts, pg_graph **out) {
  static const pg_options zero;
  *out = NULL;
  if (!in || !in->snapshot) return PG_INPUT;
  ctx c = {0};
  c.in = in;
  c.opt = opts ? opts : &zero;
  c.a = pg__arena_new();
  c.g = crawl__xcalloc(1, sizeof *c.g);
  if (!c.g) return PG_NOMEM;
  c.g->arena = c.a;
  c.g->focus_document = -1;
  c.g->focus_element = -1;
  c.g->selection_anchor = c.g->selection_focus = -1;
  c.sel_node[0] = c.sel_node[1] = -1;
  pg_code rc = PG_OK;
  if (pg__index_snapshot(&c) < 0) rc = c.nd ? PG_INPUT : PG_EMPTY;
  else build_graph(&c);
  ctx_release(&c);
  if (rc != PG_OK) {
    pg_graph_free(c.g);
    return rc;
  }
  *out = c.g;
  return PG_OK;
}

int pg_graph_contains(const pg_graph *g, int ancestor, int node) {
  if (!g->parent_of.cap) return ancestor == node;
  for (int k = node, steps = 0; k && steps < 10000; steps++) {
    if (k == ancestor) return 1;
    long parent = crawl__intmap_get(&g->parent_of, k);
    if (parent < 0) return 0;
    k = (int)parent;
  }
  return 0;
}

void pg_graph_free(pg_graph *g) {
  if (!g) return;
  crawl__intmap_release(&g->parent_of);
  free(g->documents);
  free(g->scopes);
  free(g->elements);
  free(g->relations);
  free(g->route_params);
  free(g->route_query);
  free(g->masks);
  free(g->sensitive_fields);
  free(g->secrets);
  free(g->pii_values);
  free(g->pii_kinds);
  cJSON_Delete(g->ax_nodes);
  free(g->ax_of);
  pg__arena_free(g->arena);
  free(g);
}

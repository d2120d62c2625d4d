/* build_scopes.c -- scopes: which node forms a scope and of which kind
 * (dialog, menu, drawer, form, collection, ...), the scope of each
 * document, and the nearest scope of a node (memoised climb).
 * Not here: pruning and filtering scopes (build_select.c). */
#include "build_int.h"

/* ---- scopes ----------------------------------------------------------------- */
/* Drawers (docs/decisions.md): a dialog, or a container that a disclosure
 * control (aria-expanded + aria-controls) names, laid out off-canvas style
 * -- position fixed or absolute, against the left or right edge of its
 * document's viewport, at least DRAWER_MIN_HEIGHT of its height, between
 * DRAWER_MIN_WIDTH px and DRAWER_MAX_WIDTH of its width. Moved out of view
 * past that edge (translateX(-100%)) it is a closed drawer. */
#define DRAWER_EDGE_PX 24.0     /* a scrollbar, a border */
#define DRAWER_MIN_WIDTH 120.0  /* narrower: an icon rail, a toolbar */
#define DRAWER_MAX_WIDTH 0.6
#define DRAWER_MIN_HEIGHT 0.6
enum { DRAWER_NO, DRAWER_OPEN, DRAWER_CLOSED };

static int drawer_shape(ctx *c, int i) {
  const snode *n = &c->n[i];
  const sdoc *d = &c->d[n->doc];
  if (n->layout < 0 || d->published < 0) return DRAWER_NO;
  const char *pos = pg__style_str(d, n->layout, STYLE_POSITION);
  if (strcmp(pos, "fixed") && strcmp(pos, "absolute")) return DRAWER_NO;
  const pg_document *doc = &c->g->documents[d->published];
  double vw = c->g->vp_width, vh = c->g->vp_height;
  if (doc->parent >= 0) {
    if (!doc->has_bbox) return DRAWER_NO;
    vw = doc->bbox.w;
    vh = doc->bbox.h;
  }
  pg_rect b = d->bounds[n->layout];
  double x = b.x - d->scroll_x, y = b.y - d->scroll_y; /* in its viewport */
  if (!(b.w >= DRAWER_MIN_WIDTH && b.w <= DRAWER_MAX_WIDTH * vw && b.h >= DRAWER_MIN_HEIGHT * vh)) return DRAWER_NO;
  if (y + b.h <= 0 || y >= vh) return DRAWER_NO;
  if (fabs(x) <= DRAWER_EDGE_PX || fabs(x + b.w - vw) <= DRAWER_EDGE_PX) return DRAWER_OPEN;
  if (x + b.w <= 1 || x >= vw - 1) return DRAWER_CLOSED;
  return DRAWER_NO;
}

/* 1: a control with aria-expanded names node i in its aria-controls. */
static int disclosed(ctx *c, int i) {
  if (!c->controlled) {
    c->controlled = crawl__xmalloc(c->nn ? c->nn : 1);
    memset(c->controlled, 0, c->nn ? c->nn : 1);
    for (size_t k = 0; k < c->nn; k++) {
      const snode *n = &c->n[k];
      if (n->type != 1 || n->closed_inside || !attr(c, n, "aria-expanded")) continue;
      int refs[16], nrefs = pg__idrefs(c, (int)k, "aria-controls", refs, 16);
      for (int r = 0; r < nrefs; r++) c->controlled[refs[r]] = 1;
    }
  }
  return c->controlled[i];
}

int pg__scope_kind_of(ctx *c, int i, const char *role, int visible, const char **stable) {
  const snode *n = &c->n[i];
  *stable = attr(c, n, "data-uiap-scope");
  if (*stable && !**stable) *stable = NULL;
  if (!visible && !c->opt->include_hidden) return -1;
  const pg__role_info *ri = pg__role_lookup(role);
  int kind = ri ? ri->scope : -1;
  if (kind == PG_SCOPE_REGION && role && !strcmp(role, "region") && !(n->ax && pg__ax_str(n->ax, "name") && *pg__ax_str(n->ax, "name")))
    kind = -1;
  if (kind < 0 && !strcasecmp(n->tag, "FORM")) kind = PG_SCOPE_FORM;
  if (kind < 0 && !strcasecmp(n->tag, "DIALOG")) kind = PG_SCOPE_DIALOG;
  if (attr(c, n, "popover") && kind != PG_SCOPE_DIALOG && kind != PG_SCOPE_MENU) kind = PG_SCOPE_POPOVER;
  if (kind == PG_SCOPE_COLLECTION && role && !strcmp(role, "list") && !c->opt->include_non_interactive)
    kind = -1; /* plain lists are structure, not a UI scope, unless asked */
  if (kind == PG_SCOPE_DIALOG || ((kind < 0 || kind == PG_SCOPE_REGION) && disclosed(c, i))) {
    int ds = drawer_shape(c, i);
    if (ds == DRAWER_CLOSED && !c->opt->include_hidden) return -1; /* off-canvas: not on screen */
    if (ds != DRAWER_NO) kind = PG_SCOPE_DRAWER;
  }
  if (kind < 0 && *stable) kind = PG_SCOPE_CUSTOM;
  return kind;
}


static int make_scope(ctx *c, int i, int kind, const char *stable, const char *role) {
  snode *n = &c->n[i];
  pg_scope sc = {0};
  sc.kind = (pg_scope_kind)kind;
  sc.node = i;
  sc.document = c->d[n->doc].published;
  sc.scope_id = pg__node_id(c, i, "sc");
  sc.stable_id = pg__strdup(c->a, stable);
  /* A scope is named by its author (aria-label, aria-labelledby, title, or a
   * <legend>/<caption> through the AX name), never by its whole text content:
   * a landmark named after its contents changes with every clock tick. */
  {
    const char *al = attr(c, n, "aria-label"), *alb = attr(c, n, "aria-labelledby"), *ti = attr(c, n, "title");
    int from_contents = 0;
    if (n->ax) {
      const cJSON *it;
      cJSON_ArrayForEach(it, get(get(n->ax, "name"), "sources")) {
        const char *t = get_str(it, "type");
        if (t && !strcmp(t, "contents") && get(it, "value") && !cJSON_IsTrue(get(it, "superseded"))) from_contents = 1;
      }
    }
    if ((al && *al) || (alb && *alb) || (ti && *ti) || (n->ax && !from_contents)) sc.name = pg__node_name(c, i);
  }
  if (kind == PG_SCOPE_DIALOG || kind == PG_SCOPE_POPOVER || kind == PG_SCOPE_DRAWER) {
    int open = pg__node_visible(c, n);
    if (kind == PG_SCOPE_DRAWER) open = open && drawer_shape(c, i) == DRAWER_OPEN;
    pg_state_set(&sc.state, PG_ST_OPEN, open);
    const char *am = attr(c, n, "aria-modal");
    const cJSON *m = n->ax ? pg__ax_prop(n->ax, "modal") : NULL;
    if (kind != PG_SCOPE_POPOVER)
      pg_state_set(&sc.state, PG_ST_MODAL, (m && cJSON_IsTrue(m)) || (am && !strcmp(am, "true")));
  }
  if (n->layout >= 0) {
    sc.bbox = pg__node_rect(c, n);
    sc.has_bbox = 1;
  }
  sc.parent = -1; /* scope_of chains it */
  int idx = pg__add_scope(c, sc);
  n->scope = idx;
  return idx;
}

/* Document scopes: the route scope for the top document, iframe-root for
 * same-origin and bridged frames (an opaque one has no scope: nothing inside
 * it is published). Created lazily; *created: 1 when added by this call,
 * with no parent yet (the scope of the frame's iframe element). */
static int doc_scope_get(ctx *c, int docidx, int *created) {
  sdoc *d = &c->d[docidx];
  *created = 0;
  if (d->published < 0 || (d->access != PG_ACCESS_SAME_ORIGIN && d->access != PG_ACCESS_BRIDGED)) return -1;
  pg_document *doc = &c->g->documents[d->published];
  for (size_t s = 0; s < c->g->nscopes; s++)
    if (c->g->scopes[s].node == -1 && c->g->scopes[s].document == d->published) return (int)s;
  pg_scope sc = {0};
  sc.node = -1;
  sc.parent = -1;
  sc.document = d->published;
  sc.scope_id = doc->root_scope_id;
  if (docidx == 0) {
    sc.kind = PG_SCOPE_ROUTE;
    sc.name = pg__clean(c, doc->title, NAME_MAX_BYTES);
  } else {
    sc.kind = PG_SCOPE_IFRAME_ROOT;
    sc.name = pg__clean(c, doc->title, NAME_MAX_BYTES);
    if (doc->has_bbox) { sc.bbox = doc->bbox; sc.has_bbox = 1; }
  }
  *created = 1;
  return pg__add_scope(c, sc);
}

int pg__doc_scope(ctx *c, int docidx) {
  int created, idx = doc_scope_get(c, docidx, &created);
  if (created && docidx > 0 && c->d[docidx].owner >= 0) c->g->scopes[idx].parent = pg__scope_of(c, c->d[docidx].owner);
  return idx;
}

/* Innermost scope containing node i (memoised), at any depth: no recursion
 * and no cap, so a 2,000-level page publishes all of its nested scopes,
 * each chained to the next one out. One climb from i to the first node
 * whose scope is known (or past the top of the top document, through the
 * iframe elements of nested frames) creates the scopes it passes, innermost
 * first (the order of the scopes array); then, outermost first, each new
 * scope gets its parent and each node passed its innermost scope. Each node
 * is climbed over once per graph: linear in the page. */
typedef struct { int node; int made; } climb_step; /* node to memoise (-1: none), scope made there (-1: none) */

int pg__scope_of(ctx *c, int i) {
  climb_step local[256], *path = local;
  size_t np = 0, cap = sizeof local / sizeof *local;
  int top = -1, cur = i;
  while (cur >= 0) {
    snode *n = &c->n[cur];
    if (n->scope != -2) { top = n->scope; break; }
    climb_step st = {cur, -1};
    if (n->type == 1 && !n->closed_inside) {
      int from_ax;
      const char *role = pg__node_role(c, n, &from_ax);
      const char *stable;
      int kind = pg__scope_kind_of(c, cur, role, pg__node_visible(c, n) || n->layout < 0, &stable);
      if (kind >= 0) st.made = make_scope(c, cur, kind, stable, role);
    }
    int next = n->parent;
    climb_step docst = {-1, -1};
    if (next < 0 && st.made < 0) {
      /* the top of a document: into its scope, and on into the frame's owner */
      int created;
      top = doc_scope_get(c, n->doc, &created);
      if (created) {
        docst.made = top;
        top = -1;
        if (n->doc > 0) next = c->d[n->doc].owner;
      }
    }
    for (int k = 0; k < 2; k++) {
      if (k && docst.made < 0) break;
      if (np == cap) {
        cap *= 2;
        climb_step *grown = crawl__xmalloc(cap * sizeof *grown);
        memcpy(grown, path, np * sizeof *path);
        if (path != local) free(path);
        path = grown;
      }
      path[np++] = k ? docst : st;
    }
    cur = next;
  }
  for (size_t k = np; k-- > 0;) {
    if (path[k].made >= 0) {
      c->g->scopes[path[k].made].parent = top;
      top = path[k].made;
    }
    if (path[k].node >= 0) c->n[path[k].node].scope = top;
  }
  if (path != local) free(path);
  return top;
}

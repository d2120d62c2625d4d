/* build_select.c -- which nodes become elements (section 8 inclusion):
 * visually hidden native inputs, wrappers of component frameworks (noise),
 * the selection's ends, inert content under open modals, the max-nodes
 * budget, and pruning and filtering scopes.
 * Not here: making an element (build_semantics.c). */
#include "build_int.h"

/* ---- selection of elements -------------------------------------------------- */
/* ---- visually hidden native inputs ------------------------------------ */
/* Design-system switches, checkboxes and radios keep the real <input>
 * clipped, 1 px or at opacity 0 behind a styled label or host; the user
 * clicks that. A box smaller than this is "visually hidden". */
#define PROXY_MIN_PX 4.0

static int box_usable(ctx *c, const snode *n) {
  if (n->layout < 0 || !pg__node_visible(c, n)) return 0;
  pg_rect b = c->d[n->doc].bounds[n->layout];
  return b.w >= PROXY_MIN_PX && b.h >= PROXY_MIN_PX;
}

static int is_toggle_input(ctx *c, const snode *n) {
  if (n->type != 1 || strcasecmp(n->tag, "INPUT")) return 0;
  const char *t = attr(c, n, "type");
  return t && (!strcasecmp(t, "checkbox") || !strcasecmp(t, "radio"));
}

/* The node whose box stands for input i: a checkbox or radio that has a box
 * and an accessible node but is not usable itself, and a visible label
 * (label[for] or a wrapping one), else the visible open shadow host of the
 * tree it lies in. -1: none (the input is what it looks like). */
int pg__click_proxy(ctx *c, int i) {
  const snode *n = &c->n[i];
  if (!is_toggle_input(c, n) || n->layout < 0 || !n->ax || pg__ax_ignored(n->ax) || box_usable(c, n)) return -1;
  int refs[4], nrefs = pg__native_labels(c, i, refs, 4);
  for (int r = 0; r < nrefs; r++)
    if (!strcasecmp(c->n[refs[r]].tag, "LABEL") && box_usable(c, &c->n[refs[r]])) return refs[r];
  int h = n->shadow == 1 ? n->shadow_host : -1;
  return h >= 0 && !c->n[h].closed_inside && box_usable(c, &c->n[h]) ? h : -1;
}

/* ---- noise: wrappers of component frameworks -------------------------- */
/* Attributes that give a custom element or slot a state, an action or an id
 * a caller can hold on to. */
static const char *const keep_attrs[] = {
  "id", "data-uiap-id", "data-uiap-action", "tabindex", "aria-label", "aria-labelledby", "aria-expanded",
  "aria-pressed", "aria-checked", "aria-selected", "aria-current", "aria-disabled", "aria-live", "contenteditable",
};

/* 1: node i is a custom-element host (a '-' in its tag) or a <slot> that is
 * only a wrapper: role generic, no name, no state or action, no stable id. */
static int wrapper_noise(ctx *c, int i, const char *role) {
  const snode *n = &c->n[i];
  if (strcmp(role, "generic") || (!strchr(n->tag, '-') && strcasecmp(n->tag, "SLOT"))) return 0;
  if (n->clickable || pg__closed_host(c, i)) return 0;
  for (size_t k = 0; k < sizeof keep_attrs / sizeof *keep_attrs; k++)
    if (attr(c, n, keep_attrs[k])) return 0;
  for (size_t k = 0; n->ax && k < sizeof ax_bool_states / sizeof *ax_bool_states; k++)
    if (cJSON_IsTrue(pg__ax_prop(n->ax, ax_bool_states[k].prop))) return 0;
  const char *name = n->ax ? pg__ax_str(n->ax, "name") : NULL;
  return !name || !*name;
}

/* wrapper_noise for a shadow host, whatever its role. */
static int host_noise(ctx *c, int h) {
  int from_ax;
  const char *role = pg__node_role(c, &c->n[h], &from_ax);
  return wrapper_noise(c, h, !role || !strcmp(role, "none") || !strcmp(role, "presentation") ? "generic" : role);
}

/* Section 8: visible interactive and status elements (all non-text ones with
 * include_non_interactive, decorative ones -- role none or presentation --
 * only then), the focused element even when hidden, invalid fields even
 * when out of view; never text, nothing of a closed tree or an opaque
 * frame, nothing below a sensitive value holder. */
static int wanted(ctx *c, int i, const char **role_out, int *visible_out, int *from_ax) {
  snode *n = &c->n[i];
  *role_out = NULL;
  *visible_out = 0;
  *from_ax = 0;
  if (n->type != 1 || n->closed_inside || n->hide_inside) return 0;
  const sdoc *d = &c->d[n->doc];
  if (d->published < 0 || (d->access != PG_ACCESS_SAME_ORIGIN && d->access != PG_ACCESS_BRIDGED)) return 0;
  const char *role = pg__node_role(c, n, from_ax);
  int focused = c->in->focused_backend_node_id && n->backend == c->in->focused_backend_node_id &&
                n->frame_doc < 0; /* focus inside a frame belongs to the frame */
  if (!role || ((!strcmp(role, "none") || !strcmp(role, "presentation")) && !c->opt->include_non_interactive)) {
    /* decorative: only when everything non-text is asked for */
    if (!focused) return 0;
    role = "generic";
  }
  const pg__role_info *ri = pg__role_lookup(role);
  int visible = pg__node_visible(c, n) || pg__click_proxy(c, i) >= 0;
  *role_out = role;
  *visible_out = visible;
  if (focused) return 1;
  unsigned f = ri ? ri->flags : 0;
  int interesting = (f & (PG__R_INTERACTIVE | PG__R_STATUS)) != 0;
  if (pg__closed_host(c, i)) interesting = 1; /* the boundary itself is published */
  if (n->inferred) interesting = 1; /* made clickable without a role (build_inferred.c) */
  if (!interesting && attr(c, n, "aria-live") && strcmp(attr(c, n, "aria-live"), "off")) interesting = 1;
  if (c->opt->include_non_interactive && !(f & PG__R_TEXT)) interesting = 1;
  if (!interesting || wrapper_noise(c, i, role)) return 0;
  if (!visible && !c->opt->include_hidden) {
    /* invalid fields of the current flow stay, even when scrolled away or hidden */
    const char *inv = attr(c, n, "aria-invalid");
    const cJSON *axinv = n->ax ? pg__ax_prop(n->ax, "invalid") : NULL;
    int invalid = (inv && strcmp(inv, "false")) ||
                  (cJSON_IsString(axinv) && strcmp(axinv->valuestring, "false"));
    return invalid && n->layout >= 0;
  }
  return 1;
}

/* The elements the selection's ends lie in (web-profile 5.11): from the node
 * the page reported (a focused text field, or the element around a DOM
 * range's end), the nearest element that is published anyway or carries a
 * role of its own (a paragraph, a heading, a cell) -- published for it,
 * like the texts fields point at. An end in a closed shadow tree, below a
 * sensitive value holder, in an opaque frame or in a sensitive field drops
 * the selection's text (sel_drop); one with nothing around it has no
 * target. */
static void selection_ends(ctx *c, unsigned char *why) {
  const int ids[2] = {c->in->selection_anchor_backend_node_id, c->in->selection_focus_backend_node_id};
  for (int e = 0; e < 2; e++) {
    c->sel_node[e] = -1;
    if (ids[e] <= 0) continue;
    int ni = hget(c, ids[e]);
    if (ni < 0) { c->sel_drop = 1; continue; }
    const snode *n = &c->n[ni];
    const sdoc *d = &c->d[n->doc];
    if (n->closed_inside || n->hide_inside || n->sens_inside || d->published < 0 ||
        (d->access != PG_ACCESS_SAME_ORIGIN && d->access != PG_ACCESS_BRIDGED)) {
      c->sel_drop = 1;
      if (n->closed_inside || n->hide_inside || d->published < 0 || d->access == PG_ACCESS_OPAQUE) continue;
      /* a sensitive field: no text, but the field itself is published */
    }
    for (int k = ni, steps = 0; k >= 0 && steps < 64; k = c->n[k].parent, steps++) {
      const snode *q = &c->n[k];
      if (q->type != 1) continue;
      if (q->closed_inside || q->hide_inside || !strcasecmp(q->tag, "BODY") || !strcasecmp(q->tag, "HTML")) break;
      int from_ax;
      const char *role = why[k] ? NULL : pg__node_role(c, q, &from_ax);
      const pg__role_info *ri = pg__role_lookup(role);
      if (!why[k] && (!role || !strcmp(role, "generic") || !strcmp(role, "none") || !strcmp(role, "presentation") ||
                      (ri && (ri->flags & PG__R_TEXT))))
        continue;
      if (!why[k]) why[k] = WANT_SELECTION;
      c->sel_node[e] = k;
      break;
    }
  }
}

/* Pass 1: what section 8 publishes (wanted). Pass 2 adds the hosts of the
 * open shadow trees those sit in (semantics.shadowHostId names a published
 * element) and the texts fields point at -- aria-errormessage and
 * aria-describedby targets -- so that error-for and describes relations
 * have both ends. Elements are made in document order. */
void pg__select_elements(ctx *c) {
  size_t nn = c->nn;
  size_t m = nn ? nn : 1;
  const char **roles = crawl__xmalloc(m * sizeof *roles);
  unsigned char *why = crawl__xmalloc(m);
  int *vis = crawl__xmalloc(m * sizeof *vis), *fax = crawl__xmalloc(m * sizeof *fax);
  memset(why, 0, m);
  pg__inferred_mark(c);
  for (size_t i = 0; i < nn; i++)
    if (wanted(c, (int)i, &roles[i], &vis[i], &fax[i])) why[i] = WANT_RULE;
  for (size_t i = 0; i < nn; i++) {
    if (!(why[i] & WANT_RULE)) continue;
    const snode *n = &c->n[i];
    /* a wrapper host (wrapper_noise) only for a control or status in it */
    const pg__role_info *ri = roles[i] ? pg__role_lookup(roles[i]) : NULL;
    int control = ri && (ri->flags & (PG__R_INTERACTIVE | PG__R_STATUS));
    for (int h = n->shadow == 1 ? n->shadow_host : -1; h >= 0;
         h = c->n[h].shadow == 1 ? c->n[h].shadow_host : -1) {
      if (why[h] || c->n[h].closed_inside) break;
      if (control || !host_noise(c, h)) why[h] = WANT_HOST;
    }
    static const char *const pointers[] = {"aria-errormessage", "aria-describedby"};
    for (size_t a = 0; a < 2; a++) {
      int refs[16], nrefs = pg__idrefs(c, (int)i, pointers[a], refs, 16);
      for (int r = 0; r < nrefs; r++) {
        const snode *t = &c->n[refs[r]];
        if (t->type != 1 || t->closed_inside || t->hide_inside || why[refs[r]]) continue;
        if (!pg__node_visible(c, t) && !c->opt->include_hidden) continue;
        why[refs[r]] = WANT_ENDPOINT;
      }
    }
  }
  selection_ends(c, why);
  for (size_t i = 0; i < nn; i++) {
    if (!why[i]) continue;
    const char *role = roles[i];
    int from_ax = fax[i];
    if (!role) role = pg__node_role(c, &c->n[i], &from_ax);
    if (!role || (!(why[i] & WANT_RULE) && (!strcmp(role, "none") || !strcmp(role, "presentation"))))
      role = "generic"; /* a host or a text a field points at */
    c->n[i].why = why[i];
    pg__make_element(c, (int)i, role, why[i] & WANT_RULE ? vis[i] : pg__node_visible(c, &c->n[i]), from_ax, why[i]);
  }
  free(roles);
  free(why);
  free(vis);
  free(fax);
}

/* The node above k: its parent, else (a document's root) its frame's owner. */
static int up(ctx *c, int k) { return c->n[k].parent >= 0 ? c->n[k].parent : c->d[c->n[k].doc].owner; }

/* 1: node k or an ancestor (across frame boundaries) carries the inert
 * attribute. memo[k]: 0 unknown, 1 no, 2 yes, filled along the way, so
 * every node's chain is walked once. */
static int inert_attr(ctx *c, int k, unsigned char *memo) {
  int top = k, steps = 0, v = 1;
  for (; top >= 0 && steps < 100000; top = up(c, top), steps++) {
    if (memo[top]) { v = memo[top]; break; }
    if (c->n[top].type == 1 && attr(c, &c->n[top], "inert")) { v = 2; break; }
  }
  for (int m = k; m >= 0 && m != top && steps-- >= 0; m = up(c, m)) memo[m] = (unsigned char)v;
  return v == 2;
}

/* 1: scope s or one of its ancestors is scope anc. */
static int scope_below(const pg_graph *g, int s, int anc) {
  for (int steps = 0; s >= 0 && steps < 4096; s = g->scopes[s].parent, steps++)
    if (s == anc) return 1;
  return 0;
}

/* The open modal dialogs and drawers of g (a <dialog> opened with
 * showModal(), aria-modal="true") into out (at most max); their count. */
static int open_modals(const pg_graph *g, int *out, int max) {
  int n = 0;
  for (size_t s = 0; s < g->nscopes && n < max; s++) {
    const pg_scope *sc = &g->scopes[s];
    if ((sc->kind == PG_SCOPE_DIALOG || sc->kind == PG_SCOPE_DRAWER) && pg_state_is(&sc->state, PG_ST_OPEN) &&
        pg_state_is(&sc->state, PG_ST_MODAL))
      out[n++] = (int)s;
  }
  return n;
}

/* Web 5.7: what is inert -- under an inert attribute, or outside an open
 * modal dialog -- stays published (it is on screen) but takes no action:
 * it reads, nothing else, and is not interactable. Runs once scopes are
 * known. */
void pg__mark_inert(ctx *c) {
  pg_graph *g = c->g;
  int modals[16], nm = open_modals(g, modals, 16);
  unsigned char *memo = crawl__xcalloc(c->nn ? c->nn : 1, 1);
  for (size_t i = 0; i < g->nelements; i++) {
    pg_element *e = &g->elements[i];
    int k = hget(c, e->backend_node_id), inert = memo && k >= 0 && inert_attr(c, k, memo);
    for (int m = 0; m < nm && !inert; m++) inert = !scope_below(g, e->scope, modals[m]);
    if (!inert) continue;
    e->inert = 1;
    e->interactable = 0;
    e->actions = 0;
    e->affordances &= 1u << PG_AF_READ;
  }
  free(memo);
}

/* Priority for --max-nodes: focused, interactive in viewport, status and
 * feedback (error texts), other interactive ones, the rest. */
static int priority(ctx *c, const pg_element *e) {
  if (pg_state_is(&e->state, PG_ST_FOCUSED)) return 0;
  const pg__role_info *ri = pg__role_lookup(e->role);
  unsigned f = ri ? ri->flags : 0;
  if ((f & PG__R_INTERACTIVE) && e->in_viewport) return 1;
  int ni = hget(c, e->backend_node_id);
  if ((f & PG__R_STATUS) || (ni >= 0 && (c->n[ni].why & (WANT_ENDPOINT | WANT_SELECTION)))) return 2;
  if (f & PG__R_INTERACTIVE) return 3;
  return 4;
}

typedef struct { int prio; size_t idx; } rank;
static int cmp_rank(const void *a, const void *b) {
  const rank *x = a, *y = b;
  if (x->prio != y->prio) return x->prio - y->prio;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}
static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : x > y;
}

void pg__apply_max_nodes(ctx *c) {
  pg_graph *g = c->g;
  g->candidates = g->nelements;
  if (!c->opt->max_nodes || g->nelements <= c->opt->max_nodes) return;
  rank *r = crawl__xmalloc(g->nelements * sizeof *r);
  for (size_t i = 0; i < g->nelements; i++) r[i] = (rank){priority(c, &g->elements[i]), i};
  qsort(r, g->nelements, sizeof *r, cmp_rank);
  size_t keep = c->opt->max_nodes;
  size_t *idx = crawl__xmalloc(keep * sizeof *idx);
  for (size_t i = 0; i < keep; i++) idx[i] = r[i].idx;
  qsort(idx, keep, sizeof *idx, cmp_size); /* back to document order */
  pg_element *kept = crawl__xmalloc(keep * sizeof *kept);
  for (size_t i = 0; i < keep; i++) kept[i] = g->elements[idx[i]];
  for (size_t i = 0; i < c->nn; i++) c->n[i].elem = -1;
  for (size_t i = 0; i < keep; i++) {
    int ni = hget(c, kept[i].backend_node_id);
    if (ni >= 0) c->n[ni].elem = (int)i;
  }
  free(g->elements);
  g->elements = kept;
  g->nelements = keep;
  c->cap_el = keep;
  g->truncated = 1;
  free(r);
  free(idx);
}

/* Keep only scopes that hold a kept element (or its ancestors), plus open
 * dialogs and popovers, document scopes; reindex parents. */
static int in_list(const char *const *list, const char *v);

/* Does scope s pass the --scope / --document filters? */
static int scope_passes(ctx *c, int s) {
  const pg_graph *g = c->g;
  if (c->opt->document_filter && !in_list(c->opt->document_filter, g->documents[g->scopes[s].document].document_id))
    return 0;
  if (c->opt->scope_filter) {
    for (int p = s; p >= 0; p = g->scopes[p].parent)
      if (in_list(c->opt->scope_filter, g->scopes[p].scope_id)) return 1;
    return 0;
  }
  return 1;
}

void pg__prune_scopes(ctx *c) {
  pg_graph *g = c->g;
  if (!g->nscopes) return;
  char *keep = crawl__xcalloc(g->nscopes, 1);
  for (size_t s = 0; s < g->nscopes; s++) {
    const pg_scope *sc = &g->scopes[s];
    if ((sc->node < 0 || sc->kind == PG_SCOPE_DIALOG || sc->kind == PG_SCOPE_POPOVER || sc->kind == PG_SCOPE_DRAWER ||
         sc->kind == PG_SCOPE_FORM || sc->kind == PG_SCOPE_CUSTOM || c->opt->include_non_interactive) &&
        scope_passes(c, (int)s))
      for (int p = (int)s; p >= 0 && !keep[p]; p = g->scopes[p].parent) keep[p] = 1;
  }
  for (size_t e = 0; e < g->nelements; e++)
    for (int p = g->elements[e].scope; p >= 0 && !keep[p]; p = g->scopes[p].parent) keep[p] = 1;
  int *map = crawl__xmalloc(g->nscopes * sizeof *map);
  size_t out = 0;
  for (size_t s = 0; s < g->nscopes; s++) {
    map[s] = keep[s] ? (int)out : -1;
    if (keep[s]) g->scopes[out++] = g->scopes[s];
  }
  for (size_t s = 0; s < out; s++)
    if (g->scopes[s].parent >= 0) g->scopes[s].parent = map[g->scopes[s].parent];
  for (size_t e = 0; e < g->nelements; e++)
    if (g->elements[e].scope >= 0) g->elements[e].scope = map[g->elements[e].scope];
  for (size_t i = 0; i < c->nn; i++)
    if (c->n[i].scope >= 0) c->n[i].scope = map[c->n[i].scope];
  g->nscopes = out;
  free(map);
  free(keep);
}

static int in_list(const char *const *list, const char *v) {
  for (int i = 0; list[i]; i++)
    if (v && !strcmp(list[i], v)) return 1;
  return 0;
}

/* --scope / --document filters: keep elements in the named scopes (or their
 * descendants) / documents. */
void pg__apply_filters(ctx *c) {
  pg_graph *g = c->g;
  if (!c->opt->scope_filter && !c->opt->document_filter) return;
  size_t out = 0;
  for (size_t e = 0; e < g->nelements; e++) {
    pg_element *el = &g->elements[e];
    int ok = 1;
    if (c->opt->document_filter) ok = in_list(c->opt->document_filter, g->documents[el->document].document_id);
    if (ok && c->opt->scope_filter) {
      ok = 0;
      for (int p = el->scope; p >= 0; p = g->scopes[p].parent)
        if (in_list(c->opt->scope_filter, g->scopes[p].scope_id)) { ok = 1; break; }
    }
    if (ok) g->elements[out++] = *el;
  }
  g->nelements = out;
  for (size_t i = 0; i < c->nn; i++) c->n[i].elem = -1;
  for (size_t e = 0; e < g->nelements; e++) {
    int ni = hget(c, g->elements[e].backend_node_id);
    if (ni >= 0) c->n[ni].elem = (int)e;
  }
}

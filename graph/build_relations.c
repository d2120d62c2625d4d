/* build_relations.c -- relations between published nodes (labelledBy,
 * describedBy, controls, errorMessage, ...) through the per-document DOM
 * id and label[for] maps (idmap_*, on the base's string map).
 * Not here: names across boundaries (build_names.c) read the same maps. */
#include "build_int.h"

/* ---- relations -------------------------------------------------------------- */
static void add_relation(ctx *c, const char *type, const char *from, const char *to) {
  pg_graph *g = c->g;
  if (!from || !to || !strcmp(from, to)) return;
  for (size_t r = 0; r < g->nrelations; r++)
    if (!strcmp(g->relations[r].type, type) && !strcmp(g->relations[r].from, from) && !strcmp(g->relations[r].to, to))
      return;
  if (g->nrelations == c->cap_rel) {
    c->cap_rel = c->cap_rel ? c->cap_rel * 2 : 16;
    g->relations = crawl__xrealloc(g->relations, c->cap_rel * sizeof *g->relations);
  }
  g->relations[g->nrelations++] = (pg_relation){pg__strdup(c->a, type), pg__strdup(c->a, from), pg__strdup(c->a, to)};
}

/* The map key of an attribute value v in document doc: "DOC:v" (the
 * document's number ends at the first ':'), in buf when it fits, else a new
 * string (the caller frees it when it is not buf). */
static char *idmap_key(int doc, const char *v, char *buf, size_t cap) {
  int n = snprintf(buf, cap, "%d:%s", doc, v);
  return n >= 0 && (size_t)n < cap ? buf : crawl__xprintf("%d:%s", doc, v);
}

/* Node k under (its document, value of attribute); first one wins, as
 * getElementById does. */
static void idmap_put(crawl__strmap *m, const ctx *c, int k, const char *v) {
  char buf[256], *key = idmap_key(c->n[k].doc, v, buf, sizeof buf);
  crawl__strmap_intern(m, key, k, NULL);
  if (key != buf) free(key);
}

int pg__idmap_get(const crawl__strmap *m, int doc, const char *v) {
  char buf[256], *key = idmap_key(doc, v, buf, sizeof buf);
  long k = crawl__strmap_get(m, key);
  if (key != buf) free(key);
  return (int)k;
}

void pg__idmap_build(ctx *c) {
  if (c->idmap_built) return;
  c->idmap_built = 1;
  for (size_t k = 0; k < c->nn; k++) {
    const snode *n = &c->n[k];
    if (n->type != 1 || n->closed_inside) continue;
    const char *v = attr(c, n, "id");
    if (v && *v) idmap_put(&c->ids, c, (int)k, v);
    if (!strcasecmp(n->tag, "LABEL") && (v = attr(c, n, "for")) && *v) idmap_put(&c->fors, c, (int)k, v);
  }
}

/* Published id of the node with DOM id `id` in doc: its element, or the
 * scope it forms (prefer_scope: the scope first -- what a button opens or
 * controls is the dialog, menu or panel as a whole). */
static const char *ref_id(ctx *c, int doc, const char *id, int prefer_scope) {
  if (!id || !*id) return NULL;
  pg__idmap_build(c);
  int k = pg__idmap_get(&c->ids, doc, id);
  if (k < 0) return NULL;
  const snode *n = &c->n[k];
  const char *el = n->elem >= 0 ? c->g->elements[n->elem].instance_id : NULL;
  const char *sc = n->scope >= 0 && c->g->scopes[n->scope].node == k ? c->g->scopes[n->scope].scope_id : NULL;
  return prefer_scope ? (sc ? sc : el) : (el ? el : sc);
}

/* Published id of node i as a relation end (element first). */
static const char *self_id(ctx *c, int i) {
  const snode *n = &c->n[i];
  if (n->elem >= 0) return c->g->elements[n->elem].instance_id;
  if (n->scope >= 0 && c->g->scopes[n->scope].node == i) return c->g->scopes[n->scope].scope_id;
  return NULL;
}

static void idref_relations(ctx *c, int i, const char *attrname, const char *type, int reverse) {
  const snode *n = &c->n[i];
  const char *v = attr(c, n, attrname);
  const char *self = self_id(c, i);
  if (!v || !self) return;
  int prefer_scope = !strcmp(type, "opens") || !strcmp(type, "controls") || !strcmp(type, "submits");
  char buf[512];
  snprintf(buf, sizeof buf, "%s", v);
  for (char *save = NULL, *tok = strtok_r(buf, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
    const char *other = ref_id(c, n->doc, tok, prefer_scope);
    if (!other) continue;
    if (reverse) add_relation(c, type, other, self);
    else add_relation(c, type, self, other);
  }
}

static int ci_contains(const char *hay, const char *needle) {
  size_t l = strlen(needle);
  for (; *hay; hay++)
    if (!strncasecmp(hay, needle, l)) return 1;
  return 0;
}

/* An error text: an alert, a live region, or an id or class that says so. */
static int looks_like_error(ctx *c, int k) {
  const snode *n = &c->n[k];
  const char *r = n->ax ? pg__ax_str(n->ax, "role") : attr(c, n, "role");
  if (r && (!strcmp(r, "alert") || !strcmp(r, "status"))) return 1;
  const char *lv = attr(c, n, "aria-live");
  if (lv && strcmp(lv, "off")) return 1;
  static const char *const words[] = {"error", "invalid", "fehler"};
  const char *const names[] = {attr(c, n, "id"), attr(c, n, "class")};
  for (size_t a = 0; a < 2; a++)
    for (size_t w = 0; names[a] && w < sizeof words / sizeof *words; w++)
      if (ci_contains(names[a], words[w])) return 1;
  return 0;
}

void pg__build_relations(ctx *c) {
  pg_graph *g = c->g;
  size_t nel = g->nelements;
  for (size_t ei = 0; ei < nel; ei++) {
    int i = hget(c, g->elements[ei].backend_node_id);
    if (i < 0) continue;
    const snode *n = &c->n[i];
    const pg_element *e = &g->elements[ei];
    idref_relations(c, i, "aria-labelledby", "labels", 1);
    idref_relations(c, i, "aria-describedby", "describes", 1);
    idref_relations(c, i, "aria-controls", "controls", 0);
    idref_relations(c, i, "aria-owns", "owns", 0);
    idref_relations(c, i, "aria-errormessage", "error-for", 1);
    idref_relations(c, i, "popovertarget", "opens", 0);
    const char *cmd = attr(c, n, "command");
    int closing = cmd && (!strcmp(cmd, "close") || !strcmp(cmd, "hide-popover") || !strcmp(cmd, "request-close"));
    idref_relations(c, i, "commandfor", closing ? "controls" : "opens", 0);
    const char *hp = attr(c, n, "aria-haspopup");
    if (hp && strcmp(hp, "false")) idref_relations(c, i, "aria-controls", "opens", 0);
    if (attr(c, n, "aria-expanded")) {
      /* a disclosure control opens the drawer it names */
      int refs[16], nrefs = pg__idrefs(c, i, "aria-controls", refs, 16);
      for (int r = 0; r < nrefs; r++) {
        int sc = c->n[refs[r]].scope;
        if (sc >= 0 && g->scopes[sc].node == refs[r] && g->scopes[sc].kind == PG_SCOPE_DRAWER)
          add_relation(c, "opens", e->instance_id, g->scopes[sc].scope_id);
      }
    }
    /* a visible error text that describes an invalid field */
    if (pg_state_is(&e->state, PG_ST_INVALID)) {
      int refs[16], nrefs = pg__idrefs(c, i, "aria-describedby", refs, 16);
      for (int r = 0; r < nrefs; r++) {
        const char *other = self_id(c, refs[r]);
        if (other && looks_like_error(c, refs[r]) && pg__node_visible(c, &c->n[refs[r]]))
          add_relation(c, "error-for", other, e->instance_id);
      }
    }
    /* label[for], and the label around a field */
    int labels[4], nlabels = 0;
    const char *dom_id = attr(c, n, "id");
    if (dom_id && *dom_id) {
      pg__idmap_build(c);
      int k = pg__idmap_get(&c->fors, n->doc, dom_id);
      if (k >= 0) labels[nlabels++] = k;
    }
    for (int p = n->parent, steps = 0; p >= 0 && steps < 64; p = c->n[p].parent, steps++)
      if (c->n[p].type == 1 && !strcasecmp(c->n[p].tag, "LABEL")) { labels[nlabels++] = p; break; }
    for (int l = 0; l < nlabels; l++)
      if (c->n[labels[l]].elem >= 0)
        add_relation(c, "labels", g->elements[c->n[labels[l]].elem].instance_id, e->instance_id);
    /* submit button -> its form scope (the form around it, or form="id") */
    if (e->is_submit) {
      const char *form = attr(c, n, "form");
      if (form && *form) {
        idref_relations(c, i, "form", "submits", 0);
      } else {
        for (int k = n->parent; k >= 0; k = c->n[k].parent)
          if (!strcasecmp(c->n[k].tag, "FORM")) {
            if (c->n[k].scope >= 0 && g->scopes[c->n[k].scope].node == k)
              add_relation(c, "submits", e->instance_id, g->scopes[c->n[k].scope].scope_id);
            break;
          }
      }
    }
  }
  /* scopes named or described by other nodes */
  for (size_t s = 0; s < g->nscopes; s++) {
    int k = g->scopes[s].node;
    if (k < 0 || c->n[k].elem >= 0) continue; /* as an element it is done above */
    idref_relations(c, k, "aria-labelledby", "labels", 1);
    idref_relations(c, k, "aria-describedby", "describes", 1);
  }
}

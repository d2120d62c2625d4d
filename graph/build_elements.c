/* build_elements.c -- facts of one element: sensitive fields (also the
 * ones an earlier capture saw: pg_input.known_sensitive_*), adding an
 * element to the graph, and where a control sits and what it shows (form
 * owner, submit facts, context text, container kind, icons: facts for the
 * policy). Not here: making the element (build_semantics.c). */
#include "build_int.h"

/* ---- sensitive fields, also the ones that were ------------------------------ */
static int form_owner(ctx *c, int i);

/* The key of field i that survives a reload (pg_sensitive_field.key) into
 * buf (cut to cap, the same way every time); 0 when it has neither id nor
 * name. */
int pg__field_key(ctx *c, int i, char *buf, size_t cap) {
  const snode *n = &c->n[i];
  const char *id = attr(c, n, "id"), *name = attr(c, n, "name");
  int by_id = id && *id;
  const char *v = by_id ? id : name;
  if (!v || !*v) return 0;
  const char *url = c->d[n->doc].url ? c->d[n->doc].url : "";
  const char *fk = "", *fv = "";
  int f = form_owner(c, i);
  if (f >= 0) {
    static const char *const form_attrs[] = {"id", "name", "action"};
    for (size_t k = 0; k < sizeof form_attrs / sizeof *form_attrs && !*fv; k++) {
      const char *x = attr(c, &c->n[f], form_attrs[k]);
      if (x && *x) fk = form_attrs[k], fv = x;
    }
  }
  snprintf(buf, cap, "%.*s|form%s%s%s%s|%s=%s", (int)strcspn(url, "?#"), url, *fk ? " " : "", fk, *fv ? "=" : "", fv,
           by_id ? "id" : "name", v);
  return 1;
}

/* The sets of pg_input.known_sensitive_nodes and _keys. */
void pg__known_build(ctx *c) {
  const pg_input *in = c->in;
  for (size_t k = 0; in->known_sensitive_nodes && k < in->nknown_sensitive_nodes; k++)
    if (in->known_sensitive_nodes[k]) crawl__intmap_put(&c->known_nodes, in->known_sensitive_nodes[k], 0);
  for (size_t k = 0; in->known_sensitive_keys && k < in->nknown_sensitive_keys; k++)
    if (in->known_sensitive_keys[k]) crawl__strmap_put(&c->known_keys, in->known_sensitive_keys[k], 0);
}

/* 1: field i was sensitive in an earlier capture. */
static int known_sensitive(ctx *c, int i) {
  const snode *n = &c->n[i];
  if (!pg__is_field(n)) return 0;
  if (n->backend && crawl__intmap_get(&c->known_nodes, n->backend) >= 0) return 1;
  char key[1024];
  return c->known_keys.n && pg__field_key(c, i, key, sizeof key) && crawl__strmap_get(&c->known_keys, key) >= 0;
}

/* ---- elements --------------------------------------------------------------- */
int pg__attrs_sensitive(ctx *c, const snode *n) {
  return pg_attrs_sensitive(attr(c, n, "type"), attr(c, n, "data-uiap-sensitive"), attr(c, n, "autocomplete"));
}

int pg__is_sensitive(ctx *c, int i) { return pg__attrs_sensitive(c, &c->n[i]) || known_sensitive(c, i); }

/* The form node i submits (HTML "form owner"): with a form attribute the
 * <form> of that id in its document, or none; else the nearest <form>
 * around it. -1: none. */
static int form_owner(ctx *c, int i) {
  const char *id = attr(c, &c->n[i], "form");
  if (id) {
    if (!*id) return -1;
    pg__idmap_build(c);
    int k = pg__idmap_get(&c->ids, c->n[i].doc, id);
    return k >= 0 && !strcasecmp(c->n[k].tag, "FORM") ? k : -1;
  }
  for (int k = c->n[i].parent; k >= 0; k = c->n[k].parent)
    if (!strcasecmp(c->n[k].tag, "FORM")) return k;
  return -1;
}

/* The effective submission of submit control i: formmethod / formaction
 * override the owner form's method / action (HTML form submission). */
void pg__submit_facts(ctx *c, int i, pg_element *e) {
  const snode *n = &c->n[i];
  int f = form_owner(c, i);
  const snode *fn = f >= 0 ? &c->n[f] : NULL;
  char m[16];
  const char *fm = attr(c, n, "formmethod");
  e->form_method = pg__strdup(c->a, pg__submit_method(fm, fn ? attr(c, fn, "method") : NULL, m, sizeof m));
  if (!e->form_method && fn) e->form_method = pg__strdup(c->a, "get"); /* no method attribute */
  const char *action = attr(c, n, "formaction");
  if (!action && !fn) return; /* submits nothing the page can see */
  if (!action) action = attr(c, fn, "action");
  const sdoc *d = &c->d[n->doc];
  char *url = pg__submit_url(dstr(d, d->sd->base_url), d->url, action);
  e->submit_url = pg__strdup(c->a, url);
  free(url);
}

/* 1: a target attribute that names another browsing context. */
int pg__other_window(const char *t) {
  return t && *t && strcasecmp(t, "_self") && strcasecmp(t, "_parent") && strcasecmp(t, "_top");
}

static int in_form(ctx *c, const snode *n) {
  if (attr(c, n, "form")) return 1;
  for (int k = n->parent; k >= 0; k = c->n[k].parent)
    if (!strcasecmp(c->n[k].tag, "FORM")) return 1;
  return 0;
}

int pg__is_submit_button(ctx *c, const snode *n) {
  const char *type = attr(c, n, "type");
  if (!in_form(c, n)) return 0;
  if (!strcasecmp(n->tag, "BUTTON")) return !type || !strcasecmp(type, "submit");
  if (!strcasecmp(n->tag, "INPUT")) return type && (!strcasecmp(type, "submit") || !strcasecmp(type, "image"));
  return 0;
}

pg_element *pg__add_element(ctx *c) {
  pg_graph *g = c->g;
  if (g->nelements == c->cap_el) {
    c->cap_el = c->cap_el ? c->cap_el * 2 : 64;
    g->elements = crawl__xrealloc(g->elements, c->cap_el * sizeof *g->elements);
  }
  pg_element *e = &g->elements[g->nelements++];
  memset(e, 0, sizeof *e);
  return e;
}

/* Nearest heading text or dialog name above node i, for the policy's
 * "nearby text". Bounded climb. */
char *pg__context_text(ctx *c, int i) {
  int steps = 0;
  for (int k = c->n[i].parent; k >= 0 && steps < 12; k = c->n[k].parent, steps++) {
    const snode *p = &c->n[k];
    if (p->closed_inside) break;
    const char *role = p->ax ? pg__ax_str(p->ax, "role") : NULL;
    if (role && (!strcmp(role, "dialog") || !strcmp(role, "alertdialog") || !strcmp(role, "menu") ||
                 !strcmp(role, "form") || !strcmp(role, "region"))) {
      const char *nm = pg__node_name(c, k); /* closed-shadow and sensitive sources left out */
      if (nm && *nm) return pg__clean(c, nm, 256);
    }
    int seen = 0;
    for (int s = p->first_child; s >= 0 && seen < 64; s = c->n[s].next_sibling, seen++) {
      const snode *h = &c->n[s];
      if (h->type == 1 && h->tag[0] == 'H' && h->tag[1] >= '1' && h->tag[1] <= '6' && !h->tag[2]) {
        char buf[512];
        size_t len = 0;
        buf[0] = 0;
        pg__light_text(c, s, buf, sizeof buf, &len, 0);
        if (len) return pg__clean(c, buf, 256);
      }
    }
  }
  return NULL;
}

/* ---- where a control sits, what it shows (facts for the policy) ---------- */
/* 1: node k has two or more siblings (of the first 64) with its tag and its
 * class attribute: an entry of a collection nothing else marks. */
static int repeated(ctx *c, int k) {
  const snode *n = &c->n[k];
  const char *cls = attr(c, n, "class");
  if (!cls || !*cls || n->parent < 0) return 0;
  int same = 0, seen = 0;
  for (int s = c->n[n->parent].first_child; s >= 0 && seen < 64; s = c->n[s].next_sibling, seen++) {
    if (s == k || c->n[s].type != 1 || strcmp(c->n[s].tag, n->tag)) continue;
    const char *o = attr(c, &c->n[s], "class");
    if (o && !strcmp(o, cls) && ++same >= 2) return 1;
  }
  return 0;
}

static const char *node_kind(ctx *c, int k, int check);

/* 1: node k (an article, a card) is an entry of a collection: its parent
 * is a list, table, grid or feed, or a sibling (of the first 64) of its
 * tag is the same kind of container. */
static int in_collection(ctx *c, int k, const char *kind) {
  const snode *n = &c->n[k];
  if (n->parent < 0) return 0;
  int from_ax;
  pg__ckind pk;
  if (pg__role_container(pg__node_role(c, &c->n[n->parent], &from_ax), &pk) && !strcmp(pk.kind, "collection"))
    return 1;
  int seen = 0;
  for (int s = c->n[n->parent].first_child; s >= 0 && seen < 64; s = c->n[s].next_sibling, seen++) {
    if (s == k || c->n[s].type != 1 || strcmp(c->n[s].tag, n->tag)) continue;
    const char *sk = node_kind(c, s, 0);
    if (sk && !strcmp(sk, kind)) return 1;
  }
  return 0;
}

/* The container kind node k is itself (pg.h, pg_element.container_kind), or
 * NULL: by its scope kind (dialog, drawer, popover), its role, its tag, a
 * live region, its class names; with check, an article or card only as an
 * entry of a collection, and else "repeated" when it is one of several
 * alike. */
static const char *node_kind(ctx *c, int k, int check) {
  const snode *n = &c->n[k];
  if (n->type != 1 || n->closed_inside) return NULL;
  int from_ax;
  const char *stable, *role = pg__node_role(c, n, &from_ax);
  pg__ckind ck = {NULL, 0};
  int sk = pg__scope_kind_of(c, k, role, 1, &stable);
  if (sk == PG_SCOPE_DRAWER) ck.kind = "drawer";
  else if (sk == PG_SCOPE_POPOVER) ck.kind = "popover";
  else if (sk == PG_SCOPE_DIALOG) ck.kind = role && !strcmp(role, "alertdialog") ? "alertdialog" : "dialog";
  int got = ck.kind != NULL || pg__role_container(role, &ck);
  if (!got && !attr(c, n, "role")) got = pg__tag_container(n->tag, &ck);
  const char *live = attr(c, n, "aria-live");
  if (!got && live && (!strcasecmp(live, "polite") || !strcasecmp(live, "assertive"))) {
    ck.kind = "toast";
    got = 1;
  }
  if (!got) got = pg__class_container(attr(c, n, "class"), &ck);
  if (got && ck.needs_collection && check && !in_collection(c, k, ck.kind)) got = 0;
  if (!got && check && repeated(c, k)) return "repeated";
  return got ? ck.kind : NULL;
}

/* The container kind nearest at or above node i, NULL for none: one climb,
 * memoised per node, so every node is tested once per graph. */
const char *pg__container_kind(ctx *c, int i) {
  int local[128], *path = local;
  size_t np = 0, cap = sizeof local / sizeof *local;
  const char *found = "";
  for (int k = i; k >= 0; k = c->n[k].parent) {
    if (c->n[k].ckind) {
      found = c->n[k].ckind;
      break;
    }
    const char *kind = node_kind(c, k, 1);
    if (kind) {
      c->n[k].ckind = found = kind;
      break;
    }
    if (np == cap) {
      int *grown = crawl__xmalloc(2 * cap * sizeof *grown);
      memcpy(grown, path, np * sizeof *path);
      if (path != local) free(path);
      path = grown;
      cap *= 2;
    }
    path[np++] = k;
  }
  for (size_t j = 0; j < np; j++) c->n[path[j]].ckind = found;
  if (path != local) free(path);
  return *found ? found : NULL;
}

/* Appends node k's class tokens to buf (whole tokens; *len bytes used). */
static void add_classes(ctx *c, int k, char *buf, size_t cap, size_t *len) {
  const char *p = attr(c, &c->n[k], "class");
  while (p && *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f') p++;
    size_t n = strcspn(p, " \t\n\r\f");
    if (n && *len + n + 2 <= cap) {
      if (*len) buf[(*len)++] = ' ';
      memcpy(buf + *len, p, n);
      *len += n;
      buf[*len] = 0;
    }
    p += n;
  }
}

/* A control of its own inside another (its icon is not the outer one's). */
static int nested_control(ctx *c, const snode *n) {
  static const char *const tags[] = {"BUTTON", "A", "INPUT", "SELECT", "TEXTAREA"};
  static const char *const roles[] = {"button", "link", "menuitem", "tab", "option", "checkbox", "switch"};
  for (size_t t = 0; t < sizeof tags / sizeof *tags; t++)
    if (!strcasecmp(n->tag, tags[t])) return 1;
  const char *r = attr(c, n, "role");
  for (size_t t = 0; r && t < sizeof roles / sizeof *roles; t++)
    if (!strcmp(r, roles[t])) return 1;
  return 0;
}

typedef struct { char cls[PG_ICON_CLASSES_MAX + 1]; size_t len; char lig[PG_ICON_TEXT_MAX + 1]; int budget; } icon_acc;

/* Control k (depth 0) and the icon elements in it, 3 levels deep. */
static void icon_visit(ctx *c, int k, int depth, icon_acc *acc) {
  const snode *n = &c->n[k];
  int icon = pg__icon_tag(n->tag);
  if (depth == 0 || icon) add_classes(c, k, acc->cls, sizeof acc->cls, &acc->len);
  if (icon && !acc->lig[0] && (attr(c, n, "class") || strcasecmp(n->tag, "SPAN"))) {
    char buf[PG_ICON_TEXT_MAX * 2];
    size_t len = 0;
    buf[0] = 0;
    pg__light_text(c, k, buf, sizeof buf, &len, 0);
    if (!pg__ligature_text(buf, acc->lig, sizeof acc->lig)) acc->lig[0] = 0;
  }
  if (depth == 3) return;
  for (int ch = n->first_child; ch >= 0 && acc->budget > 0; ch = c->n[ch].next_sibling) {
    const snode *m = &c->n[ch];
    if (m->type != 1 || m->closed_inside || m->sens_self || nested_control(c, m)) continue;
    acc->budget--;
    icon_visit(c, ch, depth + 1, acc);
  }
}

/* Icon evidence of control i: pg_element.icon_classes and icon_text. */
void pg__icon_facts(ctx *c, int i, pg_element *e) {
  if (c->n[i].sens_inside) return;
  icon_acc acc = {.budget = 32};
  icon_visit(c, i, 0, &acc);
  e->icon_classes = acc.len ? pg__strdup(c->a, acc.cls) : NULL;
  e->icon_text = acc.lig[0] ? pg__strdup(c->a, acc.lig) : NULL;
}

/* An icon-only control whose name is only icon-font glyphs (private-use
 * code points): its title, else its description (a tooltip), else --
 * marked inferred -- what its icon classes name (fa-search: "Search"). */
void pg__icon_name(ctx *c, int i, pg_element *e) {
  if (!pg__text_is_glyphs(e->name)) return;
  const char *title = attr(c, &c->n[i], "title");
  char *better = title && !pg__text_is_glyphs(title) ? pg__clean(c, title, NAME_MAX_BYTES) : NULL;
  if (!better && e->description && !pg__text_is_glyphs(e->description)) better = e->description;
  if (!better && !e->sensitive && pg__icon_class_name(e->icon_classes)) {
    better = pg__strdup(c->a, pg__icon_class_name(e->icon_classes));
    e->sources |= 1u << PG_SRC_INFERRED;
  }
  e->name = better; /* a glyph names nothing a user reads */
  e->sources &= ~(1u << PG_SRC_TEXT);
  if (e->name && e->description && !strcmp(e->name, e->description)) e->description = NULL;
}

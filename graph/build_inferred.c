/* build_inferred.c -- controls the page made clickable without giving them
 * an interactive role (issue 27 section 4; web profile 5.9 "inferred"): a
 * <div> navigation item with a click listener, one that only shows a
 * pointer cursor (the listener sits on a container: event delegation), a
 * framework's event attribute (onclick, ng-click, @click, v-on:click,
 * x-on:click, jsaction, data-action), tabindex="0" on a text. Such a node
 * becomes an element marked inferred (pg__inferred_mark sets
 * snode.inferred; build_select.c publishes it, build_semantics.c marks its
 * source, build_names.c gives it ui.activate), and the gate judges it like
 * any other control.
 *
 * Bounded: only the leaf-most node of a clickable region (one that holds a
 * real control or another candidate is a container, not a control), only
 * boxes that are visible and not most of the viewport (a click catcher),
 * only with a text or label to name it, at most MAX_INFERRED per capture,
 * in document order. Two linear passes over the nodes.
 *
 * Not here: which nodes with a role become elements (build_select.c). */
#include "build_int.h"

#define MAX_INFERRED 256
/* A box over this share of the viewport is a page wrapper or an overlay
 * that closes on a click, not a control. */
#define MAX_VIEWPORT_SHARE 0.5

/* Roles a click listener may turn into a control without saying so: the
 * generic box, and the parts of tables and lists a grid or a tree makes
 * clickable (a sortable column header, a clickable row cell or list item). */
static const char *const inferable_roles[] = {"generic", "columnheader", "rowheader", "cell",
                                              "gridcell", "listitem", "image"};

/* Attributes by which markup or a framework attaches a click handler. */
static const char *const event_attrs[] = {"onclick", "onmousedown", "onmouseup", "onpointerdown", "onpointerup",
                                          "ng-click", "data-ng-click", "@click", "v-on:click", "x-on:click",
                                          "jsaction", "data-action"};

/* Tags whose clickability belongs to something else: a label's to its
 * field, the document's to nobody. */
static const char *const never_tags[] = {"LABEL", "HTML", "BODY", "OPTION"};

static int in_list(const char *s, const char *const *list, size_t n) {
  for (size_t k = 0; s && k < n; k++)
    if (!strcasecmp(s, list[k])) return 1;
  return 0;
}
#define IN(s, list) in_list((s), (list), sizeof(list) / sizeof *(list))

/* 1: node n is where a pointer cursor starts (its parent shows another). */
static int pointer_origin(ctx *c, const snode *n) {
  if (n->layout < 0) return 0;
  if (strcmp(pg__style_str(&c->d[n->doc], n->layout, STYLE_CURSOR), "pointer")) return 0;
  const snode *p = n->parent >= 0 ? &c->n[n->parent] : NULL;
  return !p || p->layout < 0 || p->doc != n->doc ||
         strcmp(pg__style_str(&c->d[p->doc], p->layout, STYLE_CURSOR), "pointer");
}

/* 1: tabindex is a number >= 0 (in the tab order on purpose). */
static int tab_stop(ctx *c, const snode *n) {
  const char *t = attr(c, n, "tabindex");
  return t && *t && t[0] != '-' && t[0] >= '0' && t[0] <= '9';
}

/* 1: the page made element node i clickable (listener, event attribute,
 * pointer cursor of its own, tab stop). */
static int click_evidence(ctx *c, int i) {
  const snode *n = &c->n[i];
  if (n->type != 1 || IN(n->tag, never_tags)) return 0;
  if (n->clickable || pointer_origin(c, n) || tab_stop(c, n)) return 1;
  for (size_t k = 0; k < sizeof event_attrs / sizeof *event_attrs; k++)
    if (attr(c, n, event_attrs[k])) return 1;
  return 0;
}

/* 1: node i is a control in its own right (a button, a link, a field). */
static int real_control(ctx *c, int i, const char **role) {
  int from_ax;
  *role = c->n[i].type == 1 ? pg__node_role(c, &c->n[i], &from_ax) : NULL;
  const pg__role_info *ri = *role ? pg__role_lookup(*role) : NULL;
  return ri && (ri->flags & PG__R_INTERACTIVE);
}

/* 1: node i has a text, a label or a title to be named by. */
static int nameable(ctx *c, int i) {
  const snode *n = &c->n[i];
  static const char *const labels[] = {"aria-label", "aria-labelledby", "title"};
  for (size_t k = 0; k < sizeof labels / sizeof *labels; k++) {
    const char *v = attr(c, n, labels[k]);
    if (v && *v) return 1;
  }
  if (n->sens_inside) return 0;
  char buf[64];
  size_t len = 0;
  buf[0] = 0;
  pg__light_text(c, i, buf, sizeof buf, &len, 0);
  for (size_t k = 0; k < len; k++)
    if (buf[k] != ' ' && buf[k] != '\t' && buf[k] != '\n') return 1;
  return 0;
}

/* 1: node i's box is visible and not most of the viewport. */
static int control_sized(ctx *c, int i) {
  const snode *n = &c->n[i];
  if (!pg__node_visible(c, n)) return 0;
  pg_rect b = pg__node_rect(c, n);
  double vp = c->g->vp_width * c->g->vp_height;
  return vp <= 0 || b.w * b.h <= MAX_VIEWPORT_SHARE * vp;
}

void pg__inferred_mark(ctx *c) {
  size_t nn = c->nn;
  if (!nn) return;
  /* bit 1: a real control; bit 2: click evidence; bit 4: one of them below */
  unsigned char *f = crawl__xcalloc(nn, 1);
  const char **role = crawl__xcalloc(nn, sizeof *role);
  for (size_t i = nn; i-- > 0;) { /* children come after their parent: below first */
    if (real_control(c, (int)i, &role[i])) f[i] |= 1;
    else if (role[i] && IN(role[i], inferable_roles) && click_evidence(c, (int)i)) f[i] |= 2;
    int p = c->n[i].parent;
    if (p >= 0 && (f[i] & 7)) f[p] |= 4;
    c->n[i].control_below = (f[i] & 4) != 0;
  }
  /* forward: nothing inside a real control (its icon, its label text) */
  unsigned char *inside = crawl__xcalloc(nn, 1);
  int made = 0;
  for (size_t i = 0; i < nn; i++) {
    int p = c->n[i].parent;
    inside[i] = p >= 0 && (inside[p] || (f[p] & 1));
    if (f[i] != 2 || inside[i] || made >= MAX_INFERRED) continue; /* evidence, nothing clickable below */
    if (!control_sized(c, (int)i) || !nameable(c, (int)i)) continue;
    c->n[i].inferred = 1;
    made++;
  }
  free(inside);
  free(role);
  free(f);
}

/* build_semantics.c -- making one element: what decided its semantics
 * (web profile 5.9: ARIA, native, inferred), identity, value (redacted when
 * sensitive), geometry, context; and which elements other boxes cover
 * (compute_obscured, a grid of hit boxes over the viewport).
 * Not here: choosing the nodes (build_select.c), names (build_names.c). */
#include "build_int.h"

/* ---- what decided an element's semantics (web profile 5.9) -------------- */
/* ARIA roles the accessibility tree names otherwise (role="img" is "image"
 * in Chromium's tree, "presentation" is "none"). */
static const struct { const char *attr, *ax; } role_aliases[] = {{"img", "image"}, {"presentation", "none"}};

static int role_token_is(const char *tok, size_t len, const char *role) {
  if (len == strlen(role) && !strncasecmp(tok, role, len)) return 1;
  for (size_t k = 0; k < sizeof role_aliases / sizeof *role_aliases; k++)
    if (len == strlen(role_aliases[k].attr) && !strncasecmp(tok, role_aliases[k].attr, len) &&
        !strcmp(role, role_aliases[k].ax))
      return 1;
  return 0;
}

/* 1: the element's role attribute decided role: one of its tokens is role
 * (a fallback list "switch checkbox" included), or role is not what the tag
 * means natively (the attribute is all that can have made it). An invalid
 * or unsupported token the browser passed over decided nothing. */
static int aria_decided(ctx *c, const snode *n, const char *role) {
  const char *ar = attr(c, n, "role");
  if (!ar || !*ar || !role) return 0;
  for (const char *p = ar; *p;) {
    p += strspn(p, " \t\n\r\f");
    size_t l = strcspn(p, " \t\n\r\f");
    if (l && role_token_is(p, l, role)) return 1;
    p += l;
  }
  const char *native = pg__role_from_tag(n->tag, attr(c, n, "type"), attr(c, n, "href") != NULL);
  return native && strcmp(native, role) && strcmp(role, "generic");
}

/* Native form controls: their state, value and editing are the tag's,
 * whatever role the attribute gives them. */
static int native_control(const snode *n) {
  static const char *const tags[] = {"INPUT", "SELECT", "TEXTAREA", "BUTTON"};
  for (size_t k = 0; k < sizeof tags / sizeof *tags; k++)
    if (!strcasecmp(n->tag, tags[k])) return 1;
  return 0;
}

/* The role's source: aria when the role attribute decided it, native-html
 * when the tag's semantics did (or the tag is a native control: its states
 * are the tag's); an element the page made clickable without a role that
 * says so (build_inferred.c: a click listener, a pointer cursor, an event
 * attribute) is a heuristic's call: inferred. */
static uint32_t role_sources(ctx *c, const snode *n, const char *role) {
  uint32_t src = 0;
  const char *ur = attr(c, n, "data-uiap-role");
  const char *native = pg__role_from_tag(n->tag, attr(c, n, "type"), attr(c, n, "href") != NULL);
  int aria = aria_decided(c, n, role);
  if (!aria && ur && !strcasecmp(ur, role) && strcmp(role, "generic") && (!native || strcmp(native, role)))
    return 1u << PG_SRC_ANNOTATION; /* the app's data-uiap-role decided (annotated_role) */
  if (aria) src |= 1u << PG_SRC_ARIA;
  if (!aria || native_control(n)) src |= 1u << PG_SRC_NATIVE;
  if ((!strcmp(role, "generic") && n->clickable && !n->control_below) || n->inferred) src |= 1u << PG_SRC_INFERRED;
  return src;
}


/* An element data-uiap-role made a widget, or one the page made clickable
 * (build_inferred.c), is named from its contents, as a widget role would
 * have it (accname 2F), and the browser did not (it saw a generic element):
 * light_text, which skips closed shadow roots and sensitive content, then
 * title. */
static char *annotated_name(ctx *c, int i) {
  char buf[2048];
  size_t len = 0;
  buf[0] = 0;
  if (!c->n[i].sens_inside) pg__light_text(c, i, buf, sizeof buf, &len, 0);
  if (len) return pg__clean(c, buf, NAME_MAX_BYTES);
  return pg__clean(c, attr(c, &c->n[i], "title"), NAME_MAX_BYTES);
}


/* Copies what the markup states: ids, role, name, description, the
 * data-uiap-* annotations, tag, input type, ARIA role and href. */
static void element_identity(ctx *c, int i, pg_element *e, const char *role, const pg__role_info *ri) {
  snode *n = &c->n[i];
  /* backendNodeIds are unique within a renderer process: every document of
   * the snapshot shares one */
  e->instance_id = pg__node_id(c, i, "el");
  e->document = c->d[n->doc].published;
  e->role = pg__strdup(c->a, role);
  e->name = pg__node_name(c, i);
  e->description = pg__node_description(c, i);
  const char *sid = attr(c, n, "data-uiap-id");
  e->stable_id = sid && *sid ? pg__strdup(c->a, sid) : NULL;
  const char *act = attr(c, n, "data-uiap-action");
  e->app_action = act && *act ? pg__strdup(c->a, act) : NULL;
  const char *meaning = attr(c, n, "data-uiap-meaning");
  e->meaning = meaning && *meaning ? pg__strdup(c->a, meaning) : NULL;
  e->risk_attr = pg__risk_attr(c->a, attr(c, n, "data-uiap-risk")); /* read by pg_risk_parse */
  e->tag = pg__strdup(c->a, n->tag);
  for (char *p = e->tag; p && *p; p++) *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
  const char *type = attr(c, n, "type");
  if (!strcasecmp(n->tag, "INPUT")) e->input_type = pg__strdup(c->a, type && *type ? type : "text");
  const char *ar = attr(c, n, "role");
  e->aria_role = ar && *ar ? pg__strdup(c->a, ar) : NULL;
  const char *href = attr(c, n, "href");
  if (href && ri && (ri->flags & PG__R_NAVLINK) && n->ax) {
    const cJSON *u = pg__ax_prop(n->ax, "url");
    e->href = pg__strdup(c->a, cJSON_IsString(u) ? u->valuestring : href);
  } else if (href) {
    e->href = pg__strdup(c->a, href);
  }
}

/* Copies the facts the safety policy reads: submission, download, target,
 * autocomplete, sensitivity, nearby text and the debugging hint. */
static void element_policy_facts(ctx *c, int i, pg_element *e) {
  snode *n = &c->n[i];
  e->is_submit = pg__is_submit_button(c, n);
  if (e->is_submit) pg__submit_facts(c, i, e);
  e->has_download = attr(c, n, "download") != NULL;
  e->opens_window = pg__other_window(attr(c, n, "target"));
  e->autocomplete = pg__strdup(c->a, attr(c, n, "autocomplete"));
  e->sensitive = n->sens_inside;
  e->context = pg__context_text(c, i);
  if (c->opt->hint_attr && !(e->sensitive && !strcasecmp(c->opt->hint_attr, "value")))
    e->hint_attr = pg__strdup(c->a, attr(c, n, c->opt->hint_attr));
}

/* Sets the sources bits: what decided the role, then the name (naming an
 * annotated widget from its contents when the browser did not). */
static void element_sources(ctx *c, int i, pg_element *e, const char *role, const pg__role_info *ri) {
  const snode *n = &c->n[i];
  e->sources |= role_sources(c, n, role);
  if ((e->sources & (1u << PG_SRC_ANNOTATION)) && (!e->name || !*e->name) && ri && !(ri->scope >= 0))
    if ((e->name = annotated_name(c, i)) != NULL) e->sources |= 1u << PG_SRC_TEXT; /* the browser saw a generic element */
  if (n->inferred && (!e->name || !*e->name)) /* a control by inference is named as a button would be */
    if ((e->name = annotated_name(c, i)) != NULL) e->sources |= 1u << PG_SRC_TEXT;
  if (attr(c, n, "aria-label") || attr(c, n, "aria-labelledby")) e->sources |= 1u << PG_SRC_ARIA;
  if (n->ax) {
    const cJSON *srcs = get(get(n->ax, "name"), "sources");
    const cJSON *it;
    cJSON_ArrayForEach(it, srcs) {
      const char *t = get_str(it, "type");
      const char *nt = get_str(it, "nativeSource");
      if (get(it, "value") && !cJSON_IsTrue(get(it, "superseded")) && t) {
        if (nt && (!strcmp(nt, "label") || !strcmp(nt, "labelfor") || !strcmp(nt, "labelwrapped")))
          e->sources |= 1u << PG_SRC_LABEL;
        if (!strcmp(t, "contents")) e->sources |= 1u << PG_SRC_TEXT;
      }
    }
  }
  if (attr(c, n, "data-uiap-id") || attr(c, n, "data-uiap-action") || attr(c, n, "data-uiap-meaning") ||
      e->risk_attr)
    e->sources |= 1u << PG_SRC_ANNOTATION;
}

/* Replaces the element's text value with the redaction marker. */
static void redact_value(ctx *c, pg_element *e) {
  e->text_value = pg__strdup(c->a, PG_REDACTED);
  e->redacted = 1;
  c->g->redactions++;
}

/* The current value of a field (input, textarea, chooser, editable), NULL
 * for checkboxes, radios and hidden inputs. */
static const char *field_value(ctx *c, int i, const pg__role_info *ri) {
  const snode *n = &c->n[i];
  const char *val = NULL;
  if (!strcasecmp(n->tag, "TEXTAREA")) val = n->text_value ? n->text_value : n->input_value;
  else if (!strcasecmp(n->tag, "INPUT")) val = n->input_value;
  else if (ri && ((ri->flags & PG__R_CHOOSER) || (ri->flags & PG__R_EDITABLE)) && n->ax && !pg__closed_host(c, i))
    val = pg__ax_str(n->ax, "value"); /* (a closed host's value would be its inside's) */
  const char *type = attr(c, n, "type");
  if (type && !strcasecmp(n->tag, "INPUT") &&
      (!strcasecmp(type, "checkbox") || !strcasecmp(type, "radio") || !strcasecmp(type, "hidden")))
    val = NULL;
  return val;
}

/* Sets the text value, redacted when sensitive: a field's value, else the
 * text of a status, alert or of a text a field points at (error messages,
 * descriptions) when the role gives it no name. */
static void element_value(ctx *c, int i, pg_element *e, const pg__role_info *ri, int why) {
  const snode *n = &c->n[i];
  const char *val = field_value(c, i, ri);
  if (val && *val) {
    if (e->sensitive) redact_value(c, e);
    else e->text_value = pg__clean(c, val, VALUE_MAX_BYTES);
  } else if (e->sensitive) {
    e->redacted = 0;
  }
  int field = !strcasecmp(n->tag, "INPUT") || !strcasecmp(n->tag, "TEXTAREA") || !strcasecmp(n->tag, "SELECT") ||
              (ri && (ri->flags & (PG__R_CHOOSER | PG__R_EDITABLE | PG__R_RANGE)));
  if (!e->text_value && !field && !e->name && ((ri && (ri->flags & PG__R_STATUS)) || (why & WANT_ENDPOINT))) {
    char buf[2048];
    size_t len = 0;
    buf[0] = 0;
    pg__light_text(c, i, buf, sizeof buf, &len, 0);
    char *t = pg__clean(c, buf, VALUE_MAX_BYTES);
    if (t && e->sensitive) redact_value(c, e);
    else e->text_value = t;
  }
}

/* Sets the geometry: its own box, or the one a click goes to. */
static void element_geometry(ctx *c, int i, pg_element *e, int visible) {
  int proxy = pg__click_proxy(c, i);
  const snode *box = proxy >= 0 ? &c->n[proxy] : &c->n[i];
  if (proxy >= 0) e->click_backend_node_id = box->backend;
  if (box->layout >= 0) {
    e->bbox = pg__node_rect(c, box);
    e->has_bbox = 1;
    e->z = c->d[box->doc].paint[box->layout];
    e->in_viewport = visible && e->bbox.x < c->g->vp_width && e->bbox.y < c->g->vp_height &&
                     e->bbox.x + e->bbox.w > 0 && e->bbox.y + e->bbox.h > 0;
  }
}

/* Composite widgets whose role an element inside reports as its container. */
static const char *const composite_roles[] = {"tablist", "menu", "menubar", "dialog", "alertdialog",
                                              "toolbar", "listbox", "tree", "grid", "radiogroup"};
/* Roles that announce changes like a live region. */
static const char *const live_roles[] = {"status", "alert", "log", "timer", "marquee", "progressbar"};

/* 1 when role r is one of list[0..n). */
static int role_in(const char *r, const char *const *list, size_t n) {
  for (size_t z = 0; r && z < n; z++)
    if (!strcmp(r, list[z])) return 1;
  return 0;
}

/* The role of the nearest composite widget above node i, or NULL. */
static const char *composite_above(ctx *c, int i) {
  for (int k = c->n[i].parent, steps = 0; k >= 0 && steps < 32; k = c->n[k].parent, steps++) {
    const snode *q = &c->n[k];
    const char *qr = q->ax ? pg__ax_str(q->ax, "role") : attr(c, q, "role");
    if (!qr && !strcasecmp(q->tag, "DIALOG")) qr = "dialog";
    if (role_in(qr, composite_roles, sizeof composite_roles / sizeof *composite_roles)) return qr;
  }
  return NULL;
}

/* 1 when node i is in a live region, status, alert, log, timer or progressbar. */
static int in_live_region(ctx *c, int i) {
  for (int k = i, steps = 0; k >= 0 && steps < 64; k = c->n[k].parent, steps++) {
    const snode *q = &c->n[k];
    const char *lv = attr(c, q, "aria-live");
    const char *qr = q->ax ? pg__ax_str(q->ax, "role") : attr(c, q, "role");
    if ((lv && strcmp(lv, "off")) || role_in(qr, live_roles, sizeof live_roles / sizeof *live_roles)) return 1;
  }
  return 0;
}

/* Header roles whose aria-sort says a click sorts by them; what ends the
 * climb from a control in a header (a row, a table: the control is not in
 * one). */
static const char *const header_roles[] = {"columnheader", "rowheader"};
static const char *const header_stops[] = {"row", "table", "grid", "treegrid", "rowgroup", "dialog"};

/* 1 when node i is a header with aria-sort or lies in one, a few levels up
 * (a sort button in a <th aria-sort>): sorting a table is local UI. A header
 * without aria-sort ends the climb: its words decide. */
static int sort_header(ctx *c, int i) {
  for (int k = i, steps = 0; k >= 0 && steps < 6; k = c->n[k].parent, steps++) {
    const snode *q = &c->n[k];
    if (q->type != 1 || q->closed_inside) return 0;
    if (attr(c, q, "aria-sort")) return 1;
    int from_ax;
    const char *r = pg__node_role(c, q, &from_ax);
    if (!r && !strcasecmp(q->tag, "TH")) r = "columnheader";
    if (role_in(r, header_roles, 2) || role_in(r, header_stops, sizeof header_stops / sizeof *header_stops)) return 0;
  }
  return 0;
}

/* Sets what its surroundings say: its shadow host, popup and controls
 * facts, container kind and role, icons, live region, a sort header. */
static void element_context(ctx *c, int i, pg_element *e) {
  const snode *n = &c->n[i];
  /* the nearest published open host (a wrapper host may be left out) */
  for (int h = n->shadow == 1 ? n->shadow_host : -1; h >= 0 && !c->n[h].closed_inside;
       h = c->n[h].shadow == 1 ? c->n[h].shadow_host : -1)
    if (c->n[h].elem >= 0) {
      e->shadow_host_id = pg__node_id(c, h, "el");
      break;
    }
  const char *hp = attr(c, n, "aria-haspopup");
  e->aria_haspopup = hp && strcmp(hp, "false") ? pg__strdup(c->a, hp) : NULL;
  e->has_aria_controls = attr(c, n, "aria-controls") != NULL;
  e->container_kind = n->parent >= 0 ? pg__container_kind(c, n->parent) : NULL;
  pg__icon_facts(c, i, e);
  pg__icon_name(c, i, e);
  const char *qr = composite_above(c, i);
  if (qr) e->container_role = pg__strdup(c->a, qr);
  if (in_live_region(c, i)) e->live = 1;
  e->sort_header = sort_header(c, i);
}

/* Publishes node i as an element with the given role: its facts, state,
 * value, geometry, surroundings and actions. */
void pg__make_element(ctx *c, int i, const char *role, int visible, int from_ax, int why) {
  snode *n = &c->n[i];
  const pg__role_info *ri = pg__role_lookup(role);
  pg_element *e = pg__add_element(c);
  e->selection_only = why == WANT_SELECTION;
  n->elem = (int)(c->g->nelements - 1);
  e->backend_node_id = n->backend;
  element_identity(c, i, e, role, ri);
  element_policy_facts(c, i, e);
  pg__node_state(c, n, ri, &e->state, visible);
  /* AX "focused" is only set on the focused node; trust the page's answer */
  if (c->in->focused_backend_node_id && n->backend == c->in->focused_backend_node_id && n->frame_doc < 0)
    pg_state_set(&e->state, PG_ST_FOCUSED, 1);
  element_sources(c, i, e, role, ri);
  element_value(c, i, e, ri, why);
  element_geometry(c, i, e, visible);
  e->attached = 1;
  element_context(c, i, e);
  pg__derive_actions(c, n, e, ri); /* invoke for an app action, unless disabled */
  e->interactable = visible && pg_state_is(&e->state, PG_ST_ENABLED) && e->actions != 0;
}

/* Obscured: another box painted later covers the element's centre and is not
 * inside it (a uniform grid of the viewport keeps this near-linear). */
typedef struct { pg_rect r; int paint, node, doc; } hitbox;
#define CELL 64.0

void pg__compute_obscured(ctx *c) {
  pg_graph *g = c->g;
  int cols = (int)(g->vp_width / CELL) + 1, rows = (int)(g->vp_height / CELL) + 1;
  if (cols <= 0 || rows <= 0 || cols > 1000 || rows > 1000) return;
  size_t ncells = (size_t)cols * (size_t)rows;
  size_t *count = crawl__xcalloc(ncells + 1, sizeof *count);
  /* pass 1: count, pass 2: fill */
  hitbox *boxes = NULL;
  size_t nb = 0, capb = 0;
  for (size_t i = 0; i < c->nn; i++) {
    const snode *n = &c->n[i];
    if (n->type != 1 || n->layout < 0 || !pg__node_visible(c, n)) continue;
    const sdoc *d = &c->d[n->doc];
    const char *pe = d->styles[n->layout][3];
    if (!strcmp(pe, "none")) continue;
    pg_rect r = pg__node_rect(c, n);
    if (r.x >= g->vp_width || r.y >= g->vp_height || r.x + r.w <= 0 || r.y + r.h <= 0) continue;
    if (nb == capb) {
      capb = capb ? capb * 2 : 256;
      boxes = crawl__xrealloc(boxes, capb * sizeof *boxes);
    }
    boxes[nb++] = (hitbox){r, d->paint[n->layout], (int)i, n->doc};
  }
  int **cell = crawl__xcalloc(ncells, sizeof *cell);
  size_t *fill = crawl__xcalloc(ncells, sizeof *fill);
  for (int pass = 0; pass < 2; pass++) {
    for (size_t b = 0; b < nb; b++) {
      pg_rect r = boxes[b].r;
      int x0 = (int)(fmax(r.x, 0) / CELL), x1 = (int)(fmin(r.x + r.w, g->vp_width - 1) / CELL);
      int y0 = (int)(fmax(r.y, 0) / CELL), y1 = (int)(fmin(r.y + r.h, g->vp_height - 1) / CELL);
      for (int y = y0; y <= y1 && y < rows; y++)
        for (int x = x0; x <= x1 && x < cols; x++) {
          size_t k = (size_t)y * (size_t)cols + (size_t)x;
          if (pass == 0) count[k]++;
          else cell[k][fill[k]++] = (int)b;
        }
    }
    if (pass == 0)
      for (size_t k = 0; k < ncells; k++) cell[k] = count[k] ? crawl__xmalloc(count[k] * sizeof **cell) : NULL;
  }
  for (size_t ei = 0; ei < g->nelements; ei++) {
    pg_element *e = &g->elements[ei];
    if (!e->has_bbox || !e->in_viewport) continue;
    int self = hget(c, pg_element_click_node(e));
    if (self < 0) continue;
    const snode *sn = &c->n[self];
    int my_paint = c->d[sn->doc].paint[sn->layout];
    double cx = e->bbox.x + e->bbox.w / 2, cy = e->bbox.y + e->bbox.h / 2;
    if (cx < 0 || cy < 0 || cx >= g->vp_width || cy >= g->vp_height) continue;
    size_t k = (size_t)(cy / CELL) * (size_t)cols + (size_t)(cx / CELL);
    for (size_t j = 0; j < fill[k]; j++) {
      const hitbox *h = &boxes[cell[k][j]];
      if (h->doc != sn->doc || h->paint <= my_paint || h->node == self) continue;
      if (cx < h->r.x || cy < h->r.y || cx >= h->r.x + h->r.w || cy >= h->r.y + h->r.h) continue;
      /* a descendant of the element (its label text, an icon) does not obscure it */
      int inside = 0;
      for (int p = c->n[h->node].parent, steps = 0; p >= 0 && steps < 4096; p = c->n[p].parent, steps++)
        if (p == self) { inside = 1; break; }
      if (inside) continue;
      /* a box that is an ancestor of the element is painted under it */
      int ancestor = 0;
      for (int p = sn->parent, steps = 0; p >= 0 && steps < 4096; p = c->n[p].parent, steps++)
        if (p == h->node) { ancestor = 1; break; }
      if (ancestor) continue;
      /* an invisible wrapper with no background still intercepts clicks: count it */
      e->obscured = 1;
      break;
    }
    if (e->obscured) e->interactable = 0;
  }
  for (size_t k = 0; k < ncells; k++) free(cell[k]);
  free(cell);
  free(fill);
  free(count);
  free(boxes);
}

/* build_redact.c -- what the graph must not carry or show: the second line
 * of redaction (sensitive values scrubbed from every string), the masks a
 * screenshot must paint over, and personal data for --redact pii (pii.c
 * finds it; this file applies it to the graph).
 * Not here: the first line (values of sensitive fields are never copied:
 * build_semantics.c). */
#include "build_int.h"

/* ---- the second line of redaction ----------------------------------------
 * Whatever path a sensitive value might take into a published string (a name
 * computed from it, a selection, an attribute copied for debugging), it does
 * not get out: every published string that contains the value of a
 * sensitive field (SECRET_MIN_BYTES or more, so that short values do not
 * wipe out ordinary words) is replaced by "[redacted]". The --hint-attr copy
 * is left alone: the user asked for that attribute by name (and a "value"
 * hint is never copied from a sensitive field). */
#define SECRET_MIN_BYTES 6

/* One more value of a sensitive field into g->secrets (a copy in the
 * arena; empty ones and repeats left out). */
static void add_secret(ctx *c, size_t *cap, const char *s) {
  pg_graph *g = c->g;
  if (!s || !*s) return;
  for (size_t k = 0; k < g->nsecrets; k++)
    if (!strcmp(g->secrets[k], s)) return;
  if (g->nsecrets == *cap) {
    *cap = *cap ? *cap * 2 : 16;
    g->secrets = crawl__xrealloc(g->secrets, *cap * sizeof *g->secrets);
  }
  g->secrets[g->nsecrets++] = pg__strdup(c->a, s);
}

/* Replace *s by "[redacted]" (keep_null: by NULL) when it holds one of the
 * secrets of SECRET_MIN_BYTES or more. */
static int scrub(ctx *c, char **s, char *const *secrets, size_t n, int keep_null) {
  if (!*s) return 0;
  for (size_t k = 0; k < n; k++)
    if (strlen(secrets[k]) >= SECRET_MIN_BYTES && strstr(*s, secrets[k])) {
      *s = keep_null ? NULL : pg__strdup(c->a, PG_REDACTED);
      c->g->redactions++;
      return 1;
    }
  return 0;
}

void pg__scrub_sensitive(ctx *c) {
  size_t cap = 0;
  for (size_t i = 0; i < c->nn; i++) {
    const snode *nd = &c->n[i];
    if (nd->type == 1 && nd->sens_inside) {
      add_secret(c, &cap, nd->input_value);
      add_secret(c, &cap, nd->text_value);
      add_secret(c, &cap, attr(c, nd, "value"));
      if (nd->option_selected && nd->hide_inside) {
        char buf[512];
        size_t len = 0;
        buf[0] = 0;
        for (int k = nd->first_child; k >= 0; k = c->n[k].next_sibling)
          if (c->n[k].type == 3 && len + strlen(c->n[k].value) + 1 < sizeof buf) {
            strcpy(buf + len, c->n[k].value);
            len += strlen(c->n[k].value);
          }
        add_secret(c, &cap, pg__clean(c, buf, 500));
      }
    } else if (nd->type == 3 && nd->hide_inside) {
      /* a sensitive textarea's or editable's text */
      add_secret(c, &cap, pg__clean(c, nd->value, VALUE_MAX_BYTES));
    }
  }
  pg_graph *g = c->g;
  char *const *secrets = g->secrets;
  size_t n = g->nsecrets;
  if (!n) return;
  for (size_t e = 0; e < g->nelements; e++) {
    pg_element *el = &g->elements[e];
    scrub(c, &el->name, secrets, n, 0);
    scrub(c, &el->description, secrets, n, 0);
    if (!el->redacted && scrub(c, &el->text_value, secrets, n, 0)) el->redacted = 1;
    scrub(c, &el->href, secrets, n, 1);
    scrub(c, &el->context, secrets, n, 1);
  }
  for (size_t s = 0; s < g->nscopes; s++) scrub(c, &g->scopes[s].name, secrets, n, 0);
  for (size_t d = 0; d < g->ndocuments; d++) scrub(c, &g->documents[d].title, secrets, n, 1);
  for (size_t h = 0; h < g->nheadings; h++) scrub(c, &g->headings[h], secrets, n, 0);
  scrub(c, &g->route_title, secrets, n, 1);
  scrub(c, &g->selection_text, secrets, n, 1);
}

/* ---- masks: what a screenshot must not show ---------------------------------
 * The boundaries above, as boxes in top-level viewport px (pg_graph.masks):
 * every layout box (text too: a sensitive container's text may overflow
 * it) of a node that is or lies in a sensitive element, of a node in a
 * closed shadow tree and of a closed shadow host; and the box of every
 * frame, object or embed whose document the graph does not publish
 * (another origin, not bridged, in process or out of it; nothing loaded).
 * Only published documents are walked: whatever lies in another document
 * is inside one of those frame boxes. A frame's boxes are clipped to the
 * frame; a box inside the masked box of a masked ancestor is left out. */
static int embeds_document(const snode *n) {
  static const char *const tags[] = {"IFRAME", "FRAME", "OBJECT", "EMBED", "FENCEDFRAME", "PORTAL"};
  for (size_t k = 0; k < sizeof tags / sizeof *tags; k++)
    if (!strcasecmp(n->tag, tags[k])) return 1;
  return 0;
}

static int withheld(ctx *c, int i) {
  const snode *n = &c->n[i];
  if (n->sens_inside || n->closed_inside || n->hide_inside) return 1;
  if (n->type != 1) return 0;
  if (embeds_document(n))
    return n->frame_doc < 0 || c->g->documents[n->frame_doc].access == PG_ACCESS_OPAQUE;
  return pg__closed_host(c, i);
}

static pg_rect rect_and(pg_rect a, pg_rect b) {
  double x0 = fmax(a.x, b.x), y0 = fmax(a.y, b.y);
  double x1 = fmin(a.x + a.w, b.x + b.w), y1 = fmin(a.y + a.h, b.y + b.h);
  return (pg_rect){x0, y0, x1 > x0 ? x1 - x0 : 0, y1 > y0 ? y1 - y0 : 0};
}

static int rect_inside(pg_rect in, pg_rect out) {
  return in.x >= out.x && in.y >= out.y && in.x + in.w <= out.x + out.w && in.y + in.h <= out.y + out.h;
}

/* Where document dj can paint: its frames' boxes, intersected up to the top. */
static pg_rect doc_clip(ctx *c, int dj) {
  pg_rect r = {-1e9, -1e9, 2e9, 2e9};
  for (int steps = 0; dj > 0 && c->d[dj].owner >= 0 && steps < 64; steps++) {
    const snode *o = &c->n[c->d[dj].owner];
    if (o->layout < 0) return (pg_rect){0, 0, 0, 0};
    r = rect_and(r, pg__node_rect(c, o));
    dj = o->doc;
  }
  return r;
}

void pg__collect_masks(ctx *c) {
  pg_graph *g = c->g;
  size_t cap = 0;
  int *mask_of = pg__alloc(c->a, (c->nn ? c->nn : 1) * sizeof *mask_of); /* node -> its mask + 1 */
  for (size_t dj = 0; dj < c->nd; dj++) {
    const sdoc *d = &c->d[dj];
    if (d->published < 0 || d->access == PG_ACCESS_OPAQUE) continue;
    pg_rect clip = doc_clip(c, (int)dj);
    for (int l = 0; l < d->nlayout; l++) {
      int ln = d->sd->layout_node[l];
      if (ln < 0 || ln >= d->count) continue;
      int i = d->base + ln;
      if (!withheld(c, i)) continue;
      pg_rect b = d->bounds[l];
      b.x += d->ox;
      b.y += d->oy;
      b = rect_and(b, clip);
      if (b.w <= 0 || b.h <= 0) continue;
      /* inside what a masked ancestor's box covers already? */
      int covered = 0;
      for (int k = c->n[i].parent, steps = 0; k >= 0 && steps < 16 && withheld(c, k); k = c->n[k].parent, steps++)
        if (mask_of[k]) {
          covered = rect_inside(b, g->masks[mask_of[k] - 1]);
          break;
        }
      if (covered) continue;
      if (g->nmasks == PG_MASKS_MAX) {
        g->mask_overflow = 1;
        return;
      }
      if (g->nmasks == cap) {
        cap = cap ? cap * 2 : 64;
        g->masks = crawl__xrealloc(g->masks, cap * sizeof *g->masks);
      }
      g->masks[g->nmasks++] = b;
      if (!mask_of[i]) mask_of[i] = (int)g->nmasks;
    }
  }
}

/* ---- personal data (--redact pii, pii.c) -----------------------------------
 * After the sensitive values are out: the values of fields that hold a
 * name, an e-mail address or a phone number, the texts of cells under a
 * name column and of elements marked up as a person's name are masked and
 * remembered (pg_graph.pii_values), then every published text loses the
 * remembered values and whatever pg_pii_find finds. Boxes of elements
 * whose texts changed join the masks. */
static int tag_is(const snode *n, const char *t) { return n->type == 1 && !strcasecmp(n->tag, t); }

static void add_pii(ctx *c, size_t *cap, const char *v, pg_pii_kind k) {
  pg_graph *g = c->g;
  if (!v || strlen(v) < 3 || !strcmp(v, pg_pii_label(k))) return;
  for (size_t j = 0; j < g->npii; j++)
    if (!strcmp(g->pii_values[j], v)) return;
  if (g->npii == *cap) {
    *cap = *cap ? *cap * 2 : 16;
    g->pii_values = crawl__xrealloc(g->pii_values, *cap * sizeof *g->pii_values);
    g->pii_kinds = crawl__xrealloc(g->pii_kinds, *cap * sizeof *g->pii_kinds);
  }
  g->pii_kinds[g->npii] = k;
  g->pii_values[g->npii++] = pg__strdup(c->a, v);
}

static char *subtree_text(ctx *c, int i) {
  char buf[512];
  size_t len = 0;
  buf[0] = 0;
  pg__light_text(c, i, buf, sizeof buf, &len, 0);
  return pg__clean(c, buf, NAME_MAX_BYTES);
}

static int colspan(ctx *c, const snode *n) {
  const char *v = attr(c, n, "colspan");
  int k = v ? atoi(v) : 1;
  return k >= 1 && k <= 1000 ? k : 1;
}

/* The header cell over column col of table t: the first row that has a
 * TH, in the table or in its THEAD/TBODY; -1 none. */
static int column_header(ctx *c, int t, int col) {
  for (int k = c->n[t].first_child; k >= 0; k = c->n[k].next_sibling) {
    const snode *r = &c->n[k];
    if (tag_is(r, "THEAD") || tag_is(r, "TBODY")) {
      int h = column_header(c, k, col);
      if (h >= 0 || tag_is(r, "THEAD")) return h;
      continue;
    }
    if (!tag_is(r, "TR")) continue;
    int at = 0, th = 0, hit = -1;
    for (int x = r->first_child; x >= 0; x = c->n[x].next_sibling) {
      const snode *cell = &c->n[x];
      if (!tag_is(cell, "TH") && !tag_is(cell, "TD")) continue;
      th |= tag_is(cell, "TH");
      int span = colspan(c, cell);
      if (hit < 0 && col >= at && col < at + span) hit = x;
      at += span;
    }
    return th ? hit : -1;
  }
  return -1;
}

/* The TD (at most 6 levels up) of i when its column's header says name. */
static int name_cell(ctx *c, int i) {
  int cell = i;
  for (int s = 0; cell >= 0 && s < 6 && !tag_is(&c->n[cell], "TD"); s++) cell = c->n[cell].parent;
  if (cell < 0 || !tag_is(&c->n[cell], "TD")) return -1;
  int row = c->n[cell].parent, col = 0;
  if (row < 0) return -1;
  for (int x = c->n[row].first_child; x >= 0 && x != cell; x = c->n[x].next_sibling)
    if (tag_is(&c->n[x], "TD") || tag_is(&c->n[x], "TH")) col += colspan(c, &c->n[x]);
  int t = c->n[row].parent;
  for (int s = 0; t >= 0 && s < 3 && !tag_is(&c->n[t], "TABLE"); s++) t = c->n[t].parent;
  if (t < 0 || !tag_is(&c->n[t], "TABLE")) return -1;
  int h = column_header(c, t, col);
  char *txt = h >= 0 ? subtree_text(c, h) : NULL;
  return txt && pg_pii_name_label(txt) ? cell : -1;
}

static int class_has(const char *cls, const char *tok) {
  size_t n = strlen(tok);
  for (const char *p = cls; p && (p = strstr(p, tok)); p += n)
    if ((p == cls || p[-1] == ' ') && (!p[n] || p[n] == ' ')) return 1;
  return 0;
}

/* i or an ancestor (3 levels) marked up as a person's name: class fn or
 * p-name (hCard), itemprop name/givenName/familyName/additionalName in a
 * schema.org Person. That node, or -1. */
static int name_markup(ctx *c, int i) {
  static const char *const props[] = {"name", "givenName", "familyName", "additionalName"};
  for (int k = i, s = 0; k >= 0 && s < 4; k = c->n[k].parent, s++) {
    const snode *n = &c->n[k];
    if (n->type != 1) continue;
    const char *cls = attr(c, n, "class"), *ip = attr(c, n, "itemprop");
    if (class_has(cls, "fn") || class_has(cls, "p-name")) return k;
    for (size_t j = 0; ip && j < sizeof props / sizeof *props; j++) {
      if (strcmp(ip, props[j])) continue;
      for (int a = n->parent, t = 0; a >= 0 && t < 8; a = c->n[a].parent, t++) {
        const char *type = attr(c, &c->n[a], "itemtype");
        if (type) {
          if (strstr(type, "Person")) return k;
          break;
        }
      }
    }
  }
  return -1;
}

/* Fields and name texts: masked and remembered. */
static void pii_collect(ctx *c, unsigned char *changed) {
  pg_graph *g = c->g;
  size_t cap = 0;
  for (size_t e = 0; e < g->nelements; e++) {
    pg_element *el = &g->elements[e];
    int ni = hget(c, el->backend_node_id);
    if (ni < 0) continue;
    const snode *n = &c->n[ni];
    if (pg__is_field(n)) {
      if (!el->text_value || el->redacted) continue;
      pg_pii_kind k = pg_pii_field_kind(attr(c, n, "type"), attr(c, n, "autocomplete"), attr(c, n, "name"),
                                        attr(c, n, "id"), el->name);
      if (!k) continue;
      add_pii(c, &cap, el->text_value, k);
      el->text_value = pg__strdup(c->a, pg_pii_label(k));
      el->redacted = changed[e] = 1;
      continue;
    }
    int holder = name_cell(c, ni);
    if (holder < 0) holder = name_markup(c, ni);
    char *txt = holder >= 0 ? subtree_text(c, holder) : NULL;
    if (txt && el->name && !strcmp(txt, el->name)) add_pii(c, &cap, txt, PG_PII_NAME);
  }
}

/* *s without the remembered values and the addresses and numbers in it. */
static int pii_text(ctx *c, char **s) {
  pg_graph *g = c->g;
  if (!*s) return 0;
  char *cur = pg__strdup(c->a, *s);
  for (size_t j = 0; j < g->npii; j++) {
    const char *v = g->pii_values[j], *lab = pg_pii_label(g->pii_kinds[j]);
    for (size_t from = 0; from < strlen(cur);) {
      char *at = strstr(cur + from, v);
      if (!at) break;
      size_t pos = (size_t)(at - cur);
      cur = pg__printf(c->a, "%.*s%s%s", (int)pos, cur, lab, at + strlen(v));
      from = pos + strlen(lab);
    }
  }
  char *m = pg_pii_mask(cur, NULL);
  if (m) {
    cur = pg__strdup(c->a, m);
    free(m);
  }
  if (!strcmp(cur, *s)) return 0;
  *s = cur;
  return 1;
}

static void pii_boxes(ctx *c, const unsigned char *changed) {
  pg_graph *g = c->g;
  size_t add = 0;
  for (size_t e = 0; e < g->nelements; e++) add += changed[e] && g->elements[e].has_bbox;
  if (!add || g->mask_overflow) return;
  if (g->nmasks + add > PG_MASKS_MAX) {
    g->mask_overflow = 1;
    return;
  }
  g->masks = crawl__xrealloc(g->masks, (g->nmasks + add) * sizeof *g->masks);
  for (size_t e = 0; e < g->nelements; e++)
    if (changed[e] && g->elements[e].has_bbox) g->masks[g->nmasks++] = g->elements[e].bbox;
}

void pg__redact_pii(ctx *c) {
  pg_graph *g = c->g;
  unsigned char *changed = pg__alloc(c->a, g->nelements + 1);
  pii_collect(c, changed);
  for (size_t e = 0; e < g->nelements; e++) {
    pg_element *el = &g->elements[e];
    int hit = pii_text(c, &el->name);
    hit |= pii_text(c, &el->description);
    if (pii_text(c, &el->text_value)) hit = el->redacted = 1;
    pii_text(c, &el->context);
    if (hit) changed[e] = 1;
  }
  for (size_t s = 0; s < g->nscopes; s++) pii_text(c, &g->scopes[s].name);
  for (size_t d = 0; d < g->ndocuments; d++) pii_text(c, &g->documents[d].title);
  for (size_t h = 0; h < g->nheadings; h++) pii_text(c, &g->headings[h]);
  pii_text(c, &g->route_title);
  pii_text(c, &g->selection_text);
  pii_boxes(c, changed);
}

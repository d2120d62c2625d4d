/* build_notes.c -- the text next to each field (pg_element.field_note): a
 * validation message shown as plain text beside a field ("must not be
 * empty"), a hint, a counter. Read from the field's own container: the
 * largest of its ancestors (at most NOTE_LEVELS up) that holds no other
 * field; its visible text, without labels, controls and the field itself.
 * The fingerprint counts it, so a form showing errors is not the clean form
 * (docs/fingerprint.md); the graph never publishes it. Not the field's name
 * or description (build_names.c). */
#include "build_int.h"

#include <string.h>
#include <strings.h>

#define NOTE_LEVELS 3       /* field -> wrapper -> form group -> row */
#define NOTE_NODES 400      /* nodes looked at per container */
#define NOTE_MAX 240        /* bytes of text kept */

/* Subtrees whose text is not a note: labels, controls, what is not shown. */
static int skipped(const snode *n) {
  static const char *const tags[] = {"LABEL", "A", "BUTTON", "SELECT", "TEXTAREA", "INPUT", "OPTION",
                                     "SCRIPT", "STYLE", "TEMPLATE", "NOSCRIPT", "LEGEND"};
  if (n->type != 1) return 0;
  if (n->closed_inside || n->hide_inside || n->sens_inside || n->aria_hidden) return 1;
  for (size_t i = 0; i < sizeof tags / sizeof *tags; i++)
    if (!strcasecmp(n->tag, tags[i])) return 1;
  return 0;
}

/* Fields in the subtree of k other than self, up to a node budget (*left). */
static int other_fields(const ctx *c, int k, int self, int *left) {
  int n = 0;
  for (int ch = c->n[k].first_child; ch >= 0 && *left > 0; ch = c->n[ch].next_sibling) {
    (*left)--;
    if (ch == self) continue;
    if (pg__is_field(&c->n[ch]) && c->n[ch].elem >= 0) n++;
    n += other_fields(c, ch, self, left);
  }
  return n;
}

/* The visible text of k's subtree (not field's, not skipped ones) onto
 * buf (o bytes used of cap). */
static size_t texts(ctx *c, int k, int field, char *buf, size_t o, size_t cap, int *left) {
  for (int ch = c->n[k].first_child; ch >= 0 && *left > 0 && o + 2 < cap; ch = c->n[ch].next_sibling) {
    (*left)--;
    const snode *n = &c->n[ch];
    if (ch == field || skipped(n)) continue;
    if (n->type == 3 && n->value && n->layout >= 0 && !(n->vis_hidden & 1)) {
      size_t l = strlen(n->value);
      if (o && o + 1 < cap) buf[o++] = ' ';
      if (l > cap - o - 1) l = cap - o - 1;
      memcpy(buf + o, n->value, l);
      o += l;
    } else if (n->type == 1) {
      o = texts(c, ch, field, buf, o, cap, left);
    }
  }
  buf[o] = 0;
  return o;
}

/* The container of field node f: its highest ancestor, NOTE_LEVELS up at
 * most, that holds no other field; -1 when its parent already does. */
static int container_of(const ctx *c, int f) {
  int best = -1;
  for (int p = c->n[f].parent, lvl = 0; p >= 0 && lvl < NOTE_LEVELS; p = c->n[p].parent, lvl++) {
    int left = NOTE_NODES;
    if (c->n[p].type != 1 || !strcasecmp(c->n[p].tag, "FORM") || !strcasecmp(c->n[p].tag, "BODY") ||
        other_fields(c, p, f, &left) || left <= 0)
      break;
    best = p;
  }
  return best;
}

void pg__field_notes(ctx *c) {
  pg_graph *g = c->g;
  for (size_t ei = 0; ei < g->nelements; ei++) {
    pg_element *e = &g->elements[ei];
    int i = hget(c, e->backend_node_id);
    if (i < 0 || !pg__is_field(&c->n[i]) || e->sensitive || c->n[i].sens_inside) continue;
    int box = container_of(c, i);
    if (box < 0) continue;
    char buf[NOTE_MAX + 1];
    int left = NOTE_NODES;
    if (texts(c, box, i, buf, 0, sizeof buf, &left)) e->field_note = pg__clean(c, buf, NOTE_MAX);
    if (e->field_note && !*e->field_note) e->field_note = NULL;
  }
}

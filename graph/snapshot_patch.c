/* snapshot_patch.c -- a parsed DOMSnapshot brought up to date without a new
 * one (the patched capture after an action, crawler/run/page_patch.c): a
 * form control's value, checked or selected state set to what the page now
 * holds. The caller proves that nothing else changed; this file only edits
 * the one node, the way DOMSnapshot.captureSnapshot would have reported it
 * (inputValue for an input, textValue for a textarea, inputChecked for a
 * checkbox or radio, optionSelected for an option).
 *
 * Not here: parsing (snapshot.c), deciding when a patch is sound (the
 * crawler), the check that a patched graph equals a full capture
 * (graph_same.c). */
#include "pg_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

int pg_snapshot_patchable(const pg_snapshot *s) {
  if (!s || s->ndocs != 1) return 0;
  const pg__snap_doc *d = &s->docs[0];
  return d->shadow_root_type.nindex == 0 && d->content_document_index.nindex == 0;
}

/* The node of doc 0 with this backend id, -1 when none. */
static long node_of(const pg__snap_doc *d, int backend) {
  for (size_t i = 0; i < d->nbackend; i++)
    if (d->backend[i] == backend) return (long)i;
  return -1;
}

/* The attribute name of node i, "" when it has none. */
static const char *attr_of(const pg_snapshot *s, const pg__snap_doc *d, long i, const char *name) {
  if ((size_t)i >= d->nattr_nodes) return "";
  for (uint32_t k = d->attr_off[i]; k + 1 < d->attr_off[i + 1]; k += 2)
    if (!strcasecmp(pg__snapshot_str(s, d->attr[k]), name)) return pg__snapshot_str(s, d->attr[k + 1]);
  return "";
}

/* The entry of node i in sp, -1 when none. */
static long entry_of(const pg__snap_sparse *sp, long i) {
  for (size_t k = 0; k < sp->nindex; k++)
    if (sp->index[k] == i) return (long)k;
  return -1;
}

/* Node i in the set sp (on) or not (a set has no values). */
static void set_flag(pg__snap_sparse *sp, long i, int on) {
  long k = entry_of(sp, i);
  if (on && k < 0) {
    sp->index = crawl__xrealloc(sp->index, (sp->nindex + 1) * sizeof *sp->index);
    sp->index[sp->nindex++] = (int32_t)i;
  } else if (!on && k >= 0) {
    memmove(sp->index + k, sp->index + k + 1, (sp->nindex - (size_t)k - 1) * sizeof *sp->index);
    sp->nindex--;
  }
}

/* The string table index of text, appended when it is new (-1 for ""). */
static int32_t intern(pg_snapshot *s, const char *text) {
  if (!*text) return -1;
  for (size_t k = 0; k < s->nstrings; k++)
    if (!strcmp(s->text + s->str_off[k], text)) return (int32_t)k;
  size_t n = strlen(text) + 1;
  if (s->text_len + n > UINT32_MAX || s->nstrings >= INT32_MAX) return -2;
  s->text = crawl__xrealloc(s->text, s->text_len + n);
  memcpy(s->text + s->text_len, text, n);
  s->str_off = crawl__xrealloc(s->str_off, (s->nstrings + 1) * sizeof *s->str_off);
  s->str_off[s->nstrings] = (uint32_t)s->text_len;
  s->text_len += n;
  return (int32_t)s->nstrings++;
}

/* Node i of sp takes the string value (an entry added when it had none). */
static int set_value(pg_snapshot *s, pg__snap_sparse *sp, long i, const char *value) {
  int32_t v = intern(s, value);
  if (v < -1) return -1;
  long k = entry_of(sp, i);
  if (k >= 0 && (size_t)k < sp->nvalue) {
    sp->value[k] = v;
    return 0;
  }
  if (k >= 0 || sp->nindex != sp->nvalue) return -1; /* lengths as sent differ: cannot tell */
  sp->index = crawl__xrealloc(sp->index, (sp->nindex + 1) * sizeof *sp->index);
  sp->value = crawl__xrealloc(sp->value, (sp->nvalue + 1) * sizeof *sp->value);
  sp->index[sp->nindex++] = (int32_t)i;
  sp->value[sp->nvalue++] = v;
  return 0;
}

pg_code pg_snapshot_set_control(pg_snapshot *s, int backend_node_id, const char *value, int checked, int selected) {
  if (!pg_snapshot_patchable(s) || !value) return PG_INPUT;
  pg__snap_doc *d = &s->docs[0];
  long i = node_of(d, backend_node_id);
  if (i < 0 || (size_t)i >= d->nname) return PG_INPUT;
  const char *tag = pg__snapshot_str(s, d->name[i]);
  if (!strcasecmp(tag, "OPTION")) {
    set_flag(&d->option_selected, i, selected);
    return PG_OK;
  }
  if (!strcasecmp(tag, "TEXTAREA")) return set_value(s, &d->text_value, i, value) ? PG_INPUT : PG_OK;
  if (!strcasecmp(tag, "SELECT")) return PG_OK; /* its options carry the state */
  if (strcasecmp(tag, "INPUT")) return PG_INPUT;
  const char *type = attr_of(s, d, i, "type");
  if (!strcasecmp(type, "checkbox") || !strcasecmp(type, "radio")) {
    set_flag(&d->input_checked, i, checked);
    return PG_OK;
  }
  return set_value(s, &d->input_value, i, value) ? PG_INPUT : PG_OK;
}

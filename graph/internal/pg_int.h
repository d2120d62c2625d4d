/* pg_int.h -- private to graph/: the arena and the role tables. */
#ifndef UIAP_PG_INT_H
#define UIAP_PG_INT_H

#include "pg.h"
#include "crawl_base.h" /* allocation (out of memory aborts there), maps, hex */

/* One arena per graph: every string of a capture, freed at once. */
typedef struct pg__arena pg__arena;
pg__arena *pg__arena_new(void);
void pg__arena_free(pg__arena *a);
void *pg__alloc(pg__arena *a, size_t n);           /* zeroed; aborts on OOM */
char *pg__strdup(pg__arena *a, const char *s);      /* NULL -> NULL */
char *pg__strndup(pg__arena *a, const char *s, size_t n);
char *pg__printf(pg__arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* data-uiap-risk's value as pg_element.risk_attr keeps it (risk.c): trimmed,
 * capped so that pg_risk_parse reads the copy as it reads raw. NULL -> NULL. */
char *pg__risk_attr(pg__arena *a, const char *raw);

/* ---- facts for the policy (submit.c, context.c) ------------------------- */
/* The method a submission uses (pg_element.form_method) from the control's
 * formmethod and the owner form's method attribute (either NULL when
 * absent): lower case into buf, blanks around dropped, "" read as "get".
 * Returns buf, or NULL (buf "") when both are absent. */
char *pg__submit_method(const char *formmethod, const char *form_method, char *buf, size_t cap);
/* The URL a submission requests: action is the control's formaction when
 * it has one (even ""), else the owner form's action, else NULL; NULL or
 * blank means doc_url; else it is resolved against base (the document's
 * base URL; doc_url when NULL or "") with pg_url_resolve; an action the
 * URL module refuses (unreadable, longer than PG_URL_MAX) is kept as
 * written. At most PG_SUBMIT_URL_MAX bytes (cut at a character boundary).
 * A new string (free), or NULL when there is no URL. */
char *pg__submit_url(const char *base, const char *doc_url, const char *action);
/* A container kind (pg_element.container_kind): a static string, and 1
 * when it counts only as an entry of a collection (an article of a feed or
 * among articles, a card among cards). */
typedef struct pg__ckind { const char *kind; int needs_collection; } pg__ckind;
/* By computed role, by tag (implicit roles the AX tree may not show), by
 * class names (component libraries). 1 and *out when one applies. */
int pg__role_container(const char *role, pg__ckind *out);
int pg__tag_container(const char *tag, pg__ckind *out);
int pg__class_container(const char *class_attr, pg__ckind *out);
/* 1 when an element of this tag draws an icon inside a control. */
int pg__icon_tag(const char *tag);
/* 1: s is only private-use code points (an icon font's glyphs) and blanks,
 * at least one glyph. */
int pg__text_is_glyphs(const char *s);
/* What the first icon class token of classes (space separated: "fa
 * fa-search") names ("Search"), static; NULL: none known. */
const char *pg__icon_class_name(const char *classes);
/* 1 when s (blanks around it ignored) reads like an icon font ligature:
 * 1..PG_ICON_TEXT_MAX of [a-z0-9_], copied into buf (cap bytes). */
int pg__ligature_text(const char *s, char *buf, size_t cap);

/* Heap memory outside the arena: crawl__xmalloc, crawl__xcalloc,
 * crawl__xrealloc, crawl__xstrdup (crawl_base.h; out of memory aborts there). */

/* ---- a parsed DOMSnapshot.captureSnapshot reply (snapshot.c) ------------- */
/* A sparse per-node array: node index[k] has value[k]. The rare booleans
 * (inputChecked, optionSelected, isClickable) have no values: the index list
 * is the set. The two lengths are as sent (they may differ). */
typedef struct pg__snap_sparse {
  int32_t *index; size_t nindex;
  int32_t *value; size_t nvalue;
} pg__snap_sparse;

/* One document. Every array has the length it was sent with: readers check
 * each index against its own count. String indexes are -1 for none. */
typedef struct pg__snap_doc {
  int32_t document_url, title, base_url, frame_id;   /* string indexes */
  double scroll_x, scroll_y, content_width, content_height;
  /* nodes.*, indexed by node */
  int32_t *parent;  size_t nparent;                   /* parentIndex */
  int32_t *type;    size_t ntype;                     /* nodeType */
  int32_t *name;    size_t nname;                     /* nodeName (string) */
  int32_t *value;   size_t nvalue;                    /* nodeValue (string) */
  int32_t *backend; size_t nbackend;                  /* backendNodeId */
  /* attributes of node i < nattr_nodes: attr[attr_off[i] .. attr_off[i+1]),
   * string index pairs name, value (-1: the empty string) */
  uint32_t *attr_off; size_t nattr_nodes;             /* nattr_nodes + 1 offsets */
  int32_t *attr;
  pg__snap_sparse shadow_root_type, text_value, input_value, input_checked,
                  option_selected, content_document_index, is_clickable;
  /* layout.*, indexed by layout object */
  int32_t *layout_node; size_t nlayout_node;          /* nodeIndex */
  int32_t *styles; size_t nstyles; int style_stride;  /* nstyles x stride string indexes,
                                                          short entries padded with -1 */
  double *bounds; size_t nbounds;                     /* x, y, w, h per entry */
  double *client_rects; size_t nclient_rects;         /* ditto; [] entries are zeros */
  int32_t *paint; size_t npaint;                      /* paintOrders */
} pg__snap_doc;

struct pg_snapshot {
  char *text; size_t text_len;      /* every string, NUL-terminated, in one block */
  uint32_t *str_off; size_t nstrings;
  pg__snap_doc *docs; size_t ndocs;
};

/* String idx of the table; "" for -1 and anything out of range. */
static inline const char *pg__snapshot_str(const pg_snapshot *s, int32_t idx) {
  return idx >= 0 && (size_t)idx < s->nstrings ? s->text + s->str_off[idx] : "";
}

/* Role facts, one row per computed role (roles.c). */
enum {
  PG__R_INTERACTIVE = 1u << 0,  /* published by default when visible */
  PG__R_STATUS      = 1u << 1,  /* status / feedback: published by default */
  PG__R_TEXT        = 1u << 2,  /* text, never an element */
  PG__R_EDITABLE    = 1u << 3,  /* takes text input */
  PG__R_CHECKABLE   = 1u << 4,
  PG__R_CHOOSER     = 1u << 5,  /* combobox / listbox */
  PG__R_OPTION      = 1u << 6,
  PG__R_NAVLINK     = 1u << 7,
  PG__R_ACTIVATE    = 1u << 8,  /* activatable by click */
  PG__R_RANGE       = 1u << 9,
  PG__R_NOISE       = 1u << 10, /* timer, marquee: not published by default */
};
typedef struct pg__role_info {
  const char *role;
  unsigned flags;
  int scope;                     /* pg_scope_kind, or -1 */
} pg__role_info;
const pg__role_info *pg__role_lookup(const char *role);

/* Map a Chromium-internal role to its ARIA name (NULL: not an element). */
const char *pg__role_normalize(const char *chrome_role);
/* Implicit role from tag (and input type) when no AX data is available. */
const char *pg__role_from_tag(const char *tag, const char *type, int has_href);

#endif

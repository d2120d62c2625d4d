/* build_int.h -- private to pg_build (graph/build*.c): the build's working
 * state (ctx: the indexed snapshot's nodes and documents, the maps), the
 * small accessors every step uses, and the functions one step offers the
 * others, grouped by the file that defines them. Never included outside
 * graph/. */
#ifndef UIAP_BUILD_INT_H
#define UIAP_BUILD_INT_H

#include "pg_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NAME_MAX_BYTES 1024
#define VALUE_MAX_BYTES 4096

/* ---- the build's working state (filled by build_index.c) ----------------- */
typedef struct snode {
  int doc;
  int parent, first_child, last_child, next_sibling;
  int type;
  const char *tag;
  const char *value;            /* nodeValue (text nodes) */
  int backend;
  const int32_t *attrs;         /* nameIdx, valueIdx, ... (in the snapshot) */
  int nattrs;                   /* entries in attrs (pairs x 2) */
  int layout;                   /* -1: no layout object */
  const char *input_value, *text_value;
  int checked;                  /* -1 unknown, 0, 1 */
  int option_selected;
  int clickable;
  int inferred;                 /* the page made it clickable without a role that says so
                                   (build_inferred.c): an element marked inferred */
  int control_below;            /* a real control (or a candidate) lies inside it: its click
                                   listener belongs to that control (build_inferred.c) */
  int content_doc;              /* -1 or snapshot document index */
  int shadow;                   /* 0 light, 1 open, 2 closed: type of the tree it is in */
  int closed_inside;            /* 1: in a closed shadow tree, or in a tree inside one */
  int shadow_host;              /* host of the shadow tree it is in, -1 for a document tree */
  int vis_hidden;               /* display:none / visibility / opacity 0 up the chain */
  int aria_hidden;              /* aria-hidden="true" on it or an ancestor */
  int sens_self;                /* a sensitive field or container (is_sensitive) */
  int sens_inside;              /* sens_self here or on a flat-tree ancestor */
  int hide_inside;              /* below a sensitive value holder (select, textarea,
                                   editable): its options and text are its value */
  int n_closed, n_sens;         /* closed-shadow / sensitive nodes in the subtree (self included) */
  int frame_doc;                /* iframe: published index of the document it shows, -1 */
  int why;                      /* WANT_* bits: why it is published (0: it is not) */
  const cJSON *ax;
  int scope;                    /* -2 unknown, -1 none, else scope index */
  int elem;                     /* element index or -1 */
  const char *ckind;            /* container kind at or above it (container_kind),
                                   NULL: not yet known; "" none */
} snode;

typedef struct sdoc {
  const pg__snap_doc *sd;
  const pg_snapshot *snap;      /* the snapshot it came from (its string table) */
  int sub;                      /* -1: the page's snapshot, else index of in->subframes */
  const char *id_prefix;        /* ids of a subframe's nodes: el_<prefix>_<id>, NULL */
  int first_of_snap;            /* index of its snapshot's first document */
  const char *url, *frame_id, *title;
  int base;                     /* index of its first node */
  int count;
  int owner;                    /* iframe node in the parent document, -1 top */
  pg_access access;
  int published;                /* index in graph->documents, -1 */
  double ox, oy;                /* doc coords -> top viewport coords */
  double scroll_x, scroll_y;
  /* layout arrays */
  int nlayout;
  const char *(*styles)[4];
  pg_rect *bounds, *client;
  int *paint;
} sdoc;

/* One pg_build call: its input, the graph it makes, and what it indexed. */
typedef struct {
  const pg_input *in;
  const pg_options *opt;
  pg_graph *g;
  pg__arena *a;
  snode *n; size_t nn;
  sdoc *d; size_t nd;
  crawl__intmap backend;           /* backendNodeId -> node index */
  char *top_origin;
  size_t cap_el, cap_sc, cap_rel, cap_doc;
  /* DOM id -> node, and label[for] -> label node, per document (built
   * lazily; keys "DOC:VALUE", see idmap_key) */
  crawl__strmap ids, fors;
  int idmap_built;
  int sel_node[2];                 /* nodes the selection's anchor / focus target, -1 */
  int sel_drop;                    /* 1: an end lies where nothing is published */
  unsigned char *controlled;       /* nodes an aria-expanded control's aria-controls names
                                      (drawer evidence; built lazily) */
  /* pg_input.known_sensitive_*: node ids and field keys (values 0),
   * built in propagate */
  crawl__intmap known_nodes;
  crawl__strmap known_keys;
} ctx;

/* ---- constants and tables more than one step reads ---------------------- */
/* Computed styles asked for beyond the first four (crawler/run/page_capture.c sends
 * them in this order), as CSS pixels; 0 when not captured. */
enum { STYLE_PADDING_LEFT = 4, STYLE_PADDING_TOP = 5, STYLE_POSITION = 6, STYLE_CURSOR = 7 };

#define MAX_SUBFRAMES 100       /* (index + 1) << 24 stays an int */
#define SUB_ID_BITS 24

/* AX property name -> state key, for plain booleans. */
static const struct { const char *prop; pg_state_key key; } ax_bool_states[] = {
  {"focusable", PG_ST_FOCUSABLE}, {"focused", PG_ST_FOCUSED},
  {"readonly", PG_ST_READONLY},   {"required", PG_ST_REQUIRED},
  {"selected", PG_ST_SELECTED},   {"expanded", PG_ST_EXPANDED},
  {"modal", PG_ST_MODAL},         {"multiselectable", PG_ST_MULTISELECTABLE},
  {"busy", PG_ST_BUSY},
};

/* why a node is published besides section 8 (wanted) */
enum { WANT_RULE = 1, WANT_HOST = 2, WANT_ENDPOINT = 4, WANT_SELECTION = 8 };

/* ---- accessors every step uses ------------------------------------------- */
/* String idx of document d's snapshot; "" for -1 and out of range. */
static inline const char *dstr(const sdoc *d, int idx) { return pg__snapshot_str(d->snap, idx); }

static inline const cJSON *get(const cJSON *o, const char *k) {
  return cJSON_GetObjectItemCaseSensitive(o, k);
}
static inline const char *get_str(const cJSON *o, const char *k) {
  const cJSON *v = get(o, k);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static inline void hput(ctx *c, int key, int val) { crawl__intmap_put(&c->backend, key, val); }
static inline int hget(const ctx *c, int key) { return key ? (int)crawl__intmap_get(&c->backend, key) : -1; }

/* Value of attribute `name` (pairs of string indexes; an odd last entry is
 * ignored), NULL when the node has none. */
static inline const char *attr(ctx *c, const snode *n, const char *name) {
  const pg_snapshot *sp = c->d[n->doc].snap;
  for (int k = 0; k + 1 < n->nattrs; k += 2)
    if (!strcmp(pg__snapshot_str(sp, n->attrs[k]), name)) return pg__snapshot_str(sp, n->attrs[k + 1]);
  return NULL;
}

/* ---- what one step offers the others, by the file that defines it -------- */
/* (each definition carries its comment) */
/* build_index.c */
char *pg__origin_of(pg__arena *a, const char *url);
int pg__has_scheme(const char *url, const char *name);
int pg__index_snapshot(ctx *c);
int pg__is_field(const snode *n);
void pg__propagate(ctx *c);
int pg__node_visible(ctx *c, const snode *n);
pg_rect pg__node_rect(ctx *c, const snode *n);
char *pg__node_id(ctx *c, int i, const char *kind);

/* build_inferred.c */
void pg__inferred_mark(ctx *c);

/* build_docs.c */
int pg__add_scope(ctx *c, pg_scope sc);
const char *pg__style_str(const sdoc *d, int layout, int k);
void pg__build_documents(ctx *c);
void pg__join_ax(ctx *c);
const char *pg__ax_str(const cJSON *ax, const char *key);
const cJSON *pg__ax_prop(const cJSON *ax, const char *name);
int pg__ax_ignored(const cJSON *ax);
void pg__route_context(ctx *c, const char *url);
void pg__list_sensitive_fields(ctx *c);
void pg__field_notes(ctx *c); /* build_notes.c: pg_element.field_note */

/* build_names.c */
const char *pg__node_role(ctx *c, const snode *n, int *from_ax);
void pg__light_text(ctx *c, int i, char *buf, size_t cap, size_t *len, int depth);
char *pg__clean(ctx *c, const char *s, size_t max);
int pg__idrefs(ctx *c, int i, const char *attrname, int *out, int max);
int pg__native_labels(ctx *c, int i, int *out, int max);
int pg__closed_host(ctx *c, int i);
char *pg__node_name(ctx *c, int i);
char *pg__node_description(ctx *c, int i);
void pg__node_state(ctx *c, const snode *n, const pg__role_info *ri, pg_state *s, int visible);
void pg__derive_actions(ctx *c, const snode *n, pg_element *e, const pg__role_info *ri);

/* build_scopes.c */
int pg__scope_kind_of(ctx *c, int i, const char *role, int visible, const char **stable);
int pg__doc_scope(ctx *c, int docidx);
int pg__scope_of(ctx *c, int i);

/* build_elements.c */
int pg__field_key(ctx *c, int i, char *buf, size_t cap);
void pg__known_build(ctx *c);
int pg__attrs_sensitive(ctx *c, const snode *n);
int pg__is_sensitive(ctx *c, int i);
void pg__submit_facts(ctx *c, int i, pg_element *e);
int pg__other_window(const char *t);
int pg__is_submit_button(ctx *c, const snode *n);
pg_element *pg__add_element(ctx *c);
char *pg__context_text(ctx *c, int i);
const char *pg__container_kind(ctx *c, int i);
void pg__icon_facts(ctx *c, int i, pg_element *e);
void pg__icon_name(ctx *c, int i, pg_element *e);

/* build_semantics.c */
void pg__make_element(ctx *c, int i, const char *role, int visible, int from_ax, int why);
void pg__compute_obscured(ctx *c);

/* build_relations.c */
int pg__idmap_get(const crawl__strmap *m, int doc, const char *v);
void pg__idmap_build(ctx *c);
void pg__build_relations(ctx *c);

/* build_select.c */
int pg__click_proxy(ctx *c, int i);
void pg__select_elements(ctx *c);
void pg__mark_inert(ctx *c);
void pg__apply_max_nodes(ctx *c);
void pg__prune_scopes(ctx *c);
void pg__apply_filters(ctx *c);

/* build_redact.c */
void pg__scrub_sensitive(ctx *c);
void pg__collect_masks(ctx *c);
void pg__redact_pii(ctx *c);

#endif

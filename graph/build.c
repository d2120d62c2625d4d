/* build.c -- turn one capture (DOMSnapshot + accessibility tree + frame and
 * page facts) into a PageGraph.
 *
 * Steps: index the flat snapshot (all in-process documents, shadow trees
 * flattened), join AX nodes by backendNodeId, decide per document whether it
 * may be published (same-origin, bridged, or opaque), mark closed-shadow
 * content as unpublishable, then choose elements (section 8 inclusion), their
 * role, name, state, affordances, actions, scope, bbox, and relations.
 *
 * Boundaries are enforced here, once: nothing under a closed shadow root and
 * nothing inside an opaque document is ever copied into the graph.
 */
#include "pg_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NAME_MAX_BYTES 1024
#define VALUE_MAX_BYTES 4096

static const char *const pg__errmsgs[] = {
#define PG__MSG(name, msg) msg,
  PG_ERRNO_MAP(PG__MSG)
#undef PG__MSG
};
const char *pg_strerror(pg_code c) {
  return (int)c >= 0 && c < PG__ECOUNT ? pg__errmsgs[c] : "unknown error";
}

static unsigned long long revision_counter;
/* atomic: `listen` captures in several threads (a session's tab, observe, runs) */
unsigned long long pg_next_revision(void) { return __atomic_add_fetch(&revision_counter, 1, __ATOMIC_RELAXED); }

/* ---- the indexed snapshot ---------------------------------------------- */
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

/* String idx of document d's snapshot; "" for -1 and out of range. */
static const char *dstr(const sdoc *d, int idx) { return pg__snapshot_str(d->snap, idx); }

static const cJSON *get(const cJSON *o, const char *k) {
  return cJSON_GetObjectItemCaseSensitive(o, k);
}
static const char *get_str(const cJSON *o, const char *k) {
  const cJSON *v = get(o, k);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void hput(ctx *c, int key, int val) { crawl__intmap_put(&c->backend, key, val); }
static int hget(const ctx *c, int key) { return key ? (int)crawl__intmap_get(&c->backend, key) : -1; }

/* Value of attribute `name` (pairs of string indexes; an odd last entry is
 * ignored), NULL when the node has none. */
static const char *attr(ctx *c, const snode *n, const char *name) {
  const pg_snapshot *sp = c->d[n->doc].snap;
  for (int k = 0; k + 1 < n->nattrs; k += 2)
    if (!strcmp(pg__snapshot_str(sp, n->attrs[k]), name)) return pg__snapshot_str(sp, n->attrs[k + 1]);
  return NULL;
}

/* Apply a sparse {index:[...], value:[...]} array of document d; value is
 * NULL past the end of the value list. */
typedef void (*sparse_fn)(ctx *c, snode *n, const int32_t *value);
static void sparse(ctx *c, const sdoc *d, const pg__snap_sparse *s, sparse_fn fn) {
  for (size_t k = 0; k < s->nindex; k++) {
    int32_t i = s->index[k];
    if (i < 0 || i >= d->count) continue;
    fn(c, &c->n[d->base + i], k < s->nvalue ? &s->value[k] : NULL);
  }
}
static void sp_shadow(ctx *c, snode *n, const int32_t *v) {
  const char *t = v ? dstr(&c->d[n->doc], *v) : "";
  n->shadow = !strcmp(t, "closed") ? 2 : !strcmp(t, "open") ? 1 : 0;
}
static void sp_input(ctx *c, snode *n, const int32_t *v) { n->input_value = v ? dstr(&c->d[n->doc], *v) : ""; }
static void sp_text(ctx *c, snode *n, const int32_t *v) { n->text_value = v ? dstr(&c->d[n->doc], *v) : ""; }
static void sp_checked(ctx *c, snode *n, const int32_t *v) { n->checked = 1; }
static void sp_selected(ctx *c, snode *n, const int32_t *v) { n->option_selected = 1; }
static void sp_clickable(ctx *c, snode *n, const int32_t *v) { n->clickable = 1; }
/* a snapshot-local document index: made global below */
static void sp_content(ctx *c, snode *n, const int32_t *v) { n->content_doc = v ? *v : -1; }

/* The origin of url (pg_url_origin) in the arena; "null" when it is opaque
 * (about:, data:, javascript:, a relative src), NULL for NULL. */
static char *origin_of(pg__arena *a, const char *url) {
  if (!url) return NULL;
  char o[PG_URL_MAX + 1];
  return pg__strdup(a, pg_url_origin(url, o, sizeof o) < 0 ? "null" : o);
}

/* 1 when url's scheme is name (lower case), as browsers read it. */
static int has_scheme(const char *url, const char *name) {
  char s[16];
  return pg_url_scheme(url, s, sizeof s) > 0 && !strcmp(s, name);
}

#define MAX_SUBFRAMES 100       /* (index + 1) << 24 stays an int */
#define SUB_ID_BITS 24

/* Counts the documents of the page's snapshot and its subframes' snapshots
 * (at most MAX_SUBFRAMES) and allocates c->d; -1 on failure. */
static int alloc_docs(ctx *c, size_t *nsub_out) {
  const pg_snapshot *snap = c->in->snapshot;
  if (!snap->ndocs) return -1;
  size_t nsub = c->in->subframes ? c->in->nsubframes : 0;
  if (nsub > MAX_SUBFRAMES) nsub = MAX_SUBFRAMES;
  c->nd = snap->ndocs;
  for (size_t k = 0; k < nsub; k++)
    if (c->in->subframes[k].snapshot) c->nd += c->in->subframes[k].snapshot->ndocs;
  c->d = crawl__xcalloc(c->nd, sizeof *c->d);
  if (!c->d) return -1;
  *nsub_out = nsub;
  return 0;
}

/* Fills the header of each document (snapshot k: -1 the page, else a
 * subframe) and returns the total node count. */
static size_t index_docs(ctx *c, size_t nsub) {
  size_t total = 0, di = 0;
  for (int k = -1; k < (int)nsub; k++) {
    const pg_snapshot *sp = k < 0 ? c->in->snapshot : c->in->subframes[k].snapshot;
    if (!sp) continue;
    const char *prefix = NULL;
    if (k >= 0) {
      const char *fid = c->in->subframes[k].frame_id ? c->in->subframes[k].frame_id : "";
      prefix = pg__printf(c->a, "%.8s", *fid ? fid : "frame");
    }
    size_t first = di;
    for (size_t j = 0; j < sp->ndocs; j++, di++) {
      sdoc *d = &c->d[di];
      const pg__snap_doc *sd = &sp->docs[j];
      d->sd = sd;
      d->snap = sp;
      d->sub = k;
      d->id_prefix = prefix;
      d->first_of_snap = (int)first;
      d->count = (int)sd->nparent;
      d->base = (int)total;
      total += (size_t)d->count;
      d->owner = -1;
      d->published = -1;
      d->url = dstr(d, sd->document_url);
      d->title = dstr(d, sd->title);
      d->frame_id = dstr(d, sd->frame_id);
      d->scroll_x = sd->scroll_x;
      d->scroll_y = sd->scroll_y;
    }
  }
  return total;
}

/* Allocates the node array and the backendNodeId table for total nodes;
 * -1 on failure. */
static int alloc_nodes(ctx *c, size_t total) {
  if (total > INT32_MAX / 2) return -1; /* node indexes are ints */
  c->nn = total;
  c->n = crawl__xcalloc(total ? total : 1, sizeof *c->n);
  crawl__intmap_reserve(&c->backend, total);
  return 0;
}

/* Indexes node i of document dj: its fields, its backendNodeId and its
 * place among its parent's children. */
static void index_node(ctx *c, size_t dj, int i) {
  const sdoc *d = &c->d[dj];
  const pg__snap_doc *sd = d->sd;
  size_t u = (size_t)i;
  snode *n = &c->n[d->base + i];
  n->doc = (int)dj;
  int p = sd->parent[i];
  n->parent = p >= 0 && p < i ? d->base + p : -1; /* parents precede children */
  n->first_child = n->last_child = n->next_sibling = -1;
  n->type = u < sd->ntype ? sd->type[i] : 0;
  n->tag = u < sd->nname ? dstr(d, sd->name[i]) : "";
  n->value = u < sd->nvalue ? dstr(d, sd->value[i]) : "";
  n->backend = u < sd->nbackend ? sd->backend[i] : 0;
  if (d->sub >= 0) /* another renderer's ids: moved to a range of their own */
    n->backend = n->backend > 0 && n->backend < (1 << SUB_ID_BITS) ? n->backend + ((d->sub + 1) << SUB_ID_BITS) : 0;
  if (u < sd->nattr_nodes && sd->attr_off[i + 1] > sd->attr_off[i]) {
    n->attrs = sd->attr + sd->attr_off[i];
    n->nattrs = (int)(sd->attr_off[i + 1] - sd->attr_off[i]);
  }
  n->layout = -1;
  n->checked = -1;
  n->content_doc = -1;
  n->shadow_host = -1;
  n->frame_doc = -1;
  n->scope = -2;
  n->elem = -1;
  if (n->backend > 0) {
    /* ids are unique in Chromium's output; a repeated one (malformed
     * input) is dropped, so that an id always leads back to its node */
    if (hget(c, n->backend) >= 0) n->backend = 0;
    else hput(c, n->backend, d->base + i);
  }
  if (n->parent >= 0) {
    snode *pn = &c->n[n->parent];
    if (pn->last_child >= 0) c->n[pn->last_child].next_sibling = d->base + i;
    else pn->first_child = d->base + i;
    pn->last_child = d->base + i;
  }
}

/* Applies document d's sparse per-node arrays (shadow root type, values,
 * checked, selected, clickable, content document). */
static void index_sparse(ctx *c, const sdoc *d) {
  const pg__snap_doc *sd = d->sd;
  sparse(c, d, &sd->shadow_root_type, sp_shadow);
  sparse(c, d, &sd->input_value, sp_input);
  sparse(c, d, &sd->text_value, sp_text);
  sparse(c, d, &sd->input_checked, sp_checked);
  sparse(c, d, &sd->option_selected, sp_selected);
  sparse(c, d, &sd->is_clickable, sp_clickable);
  sparse(c, d, &sd->content_document_index, sp_content);
}

/* Turns document d's contentDocumentIndex values into document indexes of
 * c->d (-1 when out of its snapshot). */
static void resolve_content_docs(ctx *c, const sdoc *d) {
  for (int i = 0; i < d->count; i++) {
    snode *n = &c->n[d->base + i];
    if (n->content_doc < 0) continue;
    size_t g = (size_t)d->first_of_snap + (size_t)n->content_doc;
    n->content_doc = n->content_doc > 0 && g < c->nd && c->d[g].snap == d->snap ? (int)g : -1;
  }
}

/* Copies document d's layout: the first 4 styles (display, visibility,
 * opacity, pointer-events), bounds, client rect and paint order per box;
 * -1 on failure. */
static int index_layout(ctx *c, sdoc *d) {
  const pg__snap_doc *sd = d->sd;
  size_t nl = sd->nlayout_node;
  if (nl > INT32_MAX) return -1;
  d->nlayout = (int)nl;
  d->styles = crawl__xcalloc(nl ? nl : 1, sizeof *d->styles);
  d->bounds = crawl__xcalloc(nl ? nl : 1, sizeof *d->bounds);
  d->client = crawl__xcalloc(nl ? nl : 1, sizeof *d->client);
  d->paint = crawl__xcalloc(nl ? nl : 1, sizeof *d->paint);
  if (!d->styles || !d->bounds || !d->client || !d->paint) return -1;
  int ns = sd->style_stride < 4 ? sd->style_stride : 4;
  for (size_t l = 0; l < nl; l++) {
    int ln = sd->layout_node[l];
    if (ln >= 0 && ln < d->count) {
      snode *n = &c->n[d->base + ln];
      if (n->layout < 0) n->layout = (int)l; /* first box of the node */
    }
    int s = 0;
    if (l < sd->nstyles)
      for (; s < ns; s++) d->styles[l][s] = dstr(d, sd->styles[l * (size_t)sd->style_stride + (size_t)s]);
    for (; s < 4; s++) d->styles[l][s] = "";
    if (l < sd->nbounds) {
      const double *r = &sd->bounds[4 * l];
      d->bounds[l] = (pg_rect){r[0], r[1], r[2], r[3]};
    }
    if (l < sd->nclient_rects) {
      const double *r = &sd->client_rects[4 * l];
      d->client[l] = (pg_rect){r[0], r[1], r[2], r[3]};
    }
    d->paint[l] = l < sd->npaint ? sd->paint[l] : 0;
  }
  return 0;
}

/* Indexes the flat snapshot: documents, nodes, sparse facts and layout;
 * -1 on failure. */
static int index_snapshot(ctx *c) {
  size_t nsub = 0;
  if (alloc_docs(c, &nsub) < 0) return -1;
  if (alloc_nodes(c, index_docs(c, nsub)) < 0) return -1;
  for (size_t dj = 0; dj < c->nd; dj++) {
    sdoc *d = &c->d[dj];
    for (int i = 0; i < d->count; i++) index_node(c, dj, i);
    index_sparse(c, d);
    resolve_content_docs(c, d);
    if (index_layout(c, d) < 0) return -1;
  }
  return 0;
}

static int is_sensitive(ctx *c, int i);
static void known_build(ctx *c);

/* Form controls: the elements whose value, not their content, is
 * what a sensitivity withholds; what a field memory (pg_input.known_sensitive_*)
 * applies to. */
static int is_field(const snode *n) {
  return n->type == 1 && (!strcasecmp(n->tag, "INPUT") || !strcasecmp(n->tag, "TEXTAREA") ||
                          !strcasecmp(n->tag, "SELECT"));
}


/* Elements whose value is their content: below a sensitive one of these,
 * nothing is published (a select's options, a textarea's text). */
static int holds_value(ctx *c, const snode *n) {
  if (!strcasecmp(n->tag, "SELECT") || !strcasecmp(n->tag, "TEXTAREA") || !strcasecmp(n->tag, "DATALIST"))
    return 1;
  const char *ce = attr(c, n, "contenteditable");
  if (ce && strcasecmp(ce, "false")) return 1;
  const char *r = attr(c, n, "role");
  return r && (!strcmp(r, "listbox") || !strcmp(r, "combobox") || !strcmp(r, "textbox") ||
               !strcmp(r, "radiogroup") || !strcmp(r, "grid") || !strcmp(r, "tree"));
}

/* Shadow, visibility and sensitivity facts flow from parent to child
 * (parents precede children in each document), subtree counts back up.
 *
 * The snapshot is the flat tree: a host's children are its shadow root's
 * children, and light children appear under the <slot> they are assigned to.
 * So a node in a shadow tree starts a new tree below its flat parent when the
 * tree type changes or the parent is a known open host (in->open_hosts; two
 * open trees nested look alike otherwise); a node under a <slot> belongs to
 * the tree of the slot's host (assigned content; fallback content of an
 * empty slot is taken for assigned too). */
static void propagate(ctx *c) {
  known_build(c);
  /* a frame's document inherits sensitivity from its iframe (documents come
   * after the one that holds their frame) */
  int *owner_of = crawl__xcalloc(c->nd ? c->nd : 1, sizeof *owner_of); /* document -> its iframe + 1 */
  for (size_t i = 0; owner_of && i < c->nn; i++)
    if (c->n[i].content_doc > 0 && (size_t)c->n[i].content_doc < c->nd) owner_of[c->n[i].content_doc] = (int)i + 1;
  char *is_host = NULL;
  if (c->in->open_hosts && c->in->nopen_hosts) {
    is_host = crawl__xcalloc(c->nn ? c->nn : 1, 1);
    for (size_t k = 0; is_host && k < c->in->nopen_hosts; k++) {
      int h = hget(c, c->in->open_hosts[k]);
      if (h >= 0) is_host[h] = 1;
    }
  }
  for (size_t i = 0; i < c->nn; i++) {
    snode *n = &c->n[i];
    const snode *p = n->parent >= 0 ? &c->n[n->parent] : NULL;
    if (!p) {
      n->shadow_host = -1;
    } else if (!strcasecmp(p->tag, "SLOT") && p->shadow) {
      /* assigned to a slot: the tree of the slot's host */
      n->shadow_host = p->shadow_host >= 0 ? c->n[p->shadow_host].shadow_host : -1;
    } else if (n->shadow && (n->shadow != p->shadow || (is_host && is_host[n->parent]))) {
      n->shadow_host = n->parent; /* first node of a shadow root hosted by p */
    } else {
      n->shadow_host = p->shadow_host; /* the same tree as its parent */
    }
    if (!n->shadow) n->shadow_host = -1;
    n->closed_inside = n->shadow == 2 || (n->shadow_host >= 0 && c->n[n->shadow_host].closed_inside);
    n->vis_hidden = p ? p->vis_hidden : 0;
    n->aria_hidden = p ? p->aria_hidden : 0;
    if (n->type == 1) {
      const char *ah = attr(c, n, "aria-hidden");
      if (ah && !strcmp(ah, "true")) n->aria_hidden = 1;
    }
    if (n->type == 1) {
      const sdoc *d = &c->d[n->doc];
      if (n->layout < 0) {
        /* no box: display:none (or display:contents, whose children have boxes) */
        n->vis_hidden |= 2; /* this node only has no box */
      } else {
        const char *const *s = d->styles[n->layout];
        if (!strcmp(s[0], "none")) n->vis_hidden |= 1;
        if (s[2][0] && atof(s[2]) == 0.0 && strcmp(s[2], "")) n->vis_hidden |= 1;
      }
      n->sens_self = is_sensitive(c, (int)i);
    }
    const snode *frame = !p && owner_of && owner_of[n->doc] ? &c->n[owner_of[n->doc] - 1] : NULL;
    n->sens_inside = n->sens_self || (p && p->sens_inside) || (frame && frame->sens_inside);
    n->hide_inside = p && (p->hide_inside || (p->sens_self && holds_value(c, p)));
  }
  free(is_host);
  free(owner_of);
  for (size_t i = c->nn; i-- > 0;) {
    snode *n = &c->n[i];
    n->n_closed += n->closed_inside;
    n->n_sens += n->sens_self;
    if (n->parent >= 0) {
      c->n[n->parent].n_closed += n->n_closed;
      c->n[n->parent].n_sens += n->n_sens;
    }
  }
}

static int node_visible(ctx *c, const snode *n) {
  if (n->vis_hidden & 1) return 0;
  if (n->layout < 0) return 0;
  const sdoc *d = &c->d[n->doc];
  const char *const *s = d->styles[n->layout];
  if (!strcmp(s[1], "hidden") || !strcmp(s[1], "collapse")) return 0;
  pg_rect b = d->bounds[n->layout];
  if (b.w <= 0 || b.h <= 0) return 0;
  if (n->doc >= 0 && d->access != PG_ACCESS_SAME_ORIGIN && d->access != PG_ACCESS_BRIDGED) return 0;
  return 1;
}

static pg_rect node_rect(ctx *c, const snode *n) {
  const sdoc *d = &c->d[n->doc];
  pg_rect b = d->bounds[n->layout];
  b.x += d->ox;
  b.y += d->oy;
  return b;
}

/* Published id of node i: <kind>_<backendNodeId>, or for a node of a bridged
 * out-of-process frame <kind>_<frame id prefix>_<its own backendNodeId>. */
static char *node_id(ctx *c, int i, const char *kind) {
  const snode *n = &c->n[i];
  const sdoc *d = &c->d[n->doc];
  if (d->id_prefix) return pg__printf(c->a, "%s_%s_%d", kind, d->id_prefix, n->backend & ((1 << SUB_ID_BITS) - 1));
  return pg__printf(c->a, "%s_%d", kind, n->backend);
}

/* ---- bridges ------------------------------------------------------------ */
/* An origin token of a uiap-bridge meta against an origin: ASCII
 * case-insensitive, a trailing "/" on the token ignored. */
static int origin_token_is(const char *tok, size_t len, const char *origin) {
  if (len && tok[len - 1] == '/') len--;
  return origin && len && strlen(origin) == len && !strncasecmp(tok, origin, len);
}

int pg_bridge_consents(const char *content, const char *top_origin) {
  if (!content) return 0;
  const char *p = content;
  for (int tokens = 0; *p && tokens < 256; tokens++) {
    while (*p == ' ' || *p == ',' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f') p++;
    size_t len = strcspn(p, " ,\t\n\r\f");
    if (!len) break;
    if ((len == 1 && *p == '*') || origin_token_is(p, len, top_origin)) return 1;
    p += len;
  }
  return 0;
}

/* content of the first <meta name="uiap-bridge"> child of the document's
 * <head> (html > head > meta: not one in the body, a template or a shadow
 * tree), NULL when there is none */
static const char *snapdoc_bridge_meta(const pg_snapshot *sp, const pg__snap_doc *sd) {
  int html = -1, head = -1;
  for (size_t i = 1; i < sd->nparent && i < sd->nname && i < sd->ntype; i++) {
    if (sd->type[i] != 1) continue; /* the doctype is named "html" too */
    int p = sd->parent[i];
    const char *tag = pg__snapshot_str(sp, sd->name[i]);
    if (html < 0 && p == 0 && !strcasecmp(tag, "HTML")) html = (int)i;
    else if (head < 0 && html >= 0 && p == html && !strcasecmp(tag, "HEAD")) head = (int)i;
    else if (head >= 0 && p == head && !strcasecmp(tag, "META") && i < sd->nattr_nodes) {
      const char *name = NULL, *content = NULL;
      for (uint32_t k = sd->attr_off[i]; k + 1 < sd->attr_off[i + 1]; k += 2) {
        const char *an = pg__snapshot_str(sp, sd->attr[k]);
        if (!strcasecmp(an, "name")) name = pg__snapshot_str(sp, sd->attr[k + 1]);
        else if (!strcasecmp(an, "content")) content = pg__snapshot_str(sp, sd->attr[k + 1]);
      }
      if (name && !strcasecmp(name, PG_BRIDGE_META)) return content ? content : "";
    }
  }
  return NULL;
}

const char *pg_snapshot_bridge_meta(const pg_snapshot *s, const char *frame_id) {
  for (size_t j = 0; s && j < s->ndocs; j++) {
    const pg__snap_doc *sd = &s->docs[j];
    if (!frame_id || !strcmp(pg__snapshot_str(s, sd->frame_id), frame_id)) return snapdoc_bridge_meta(s, sd);
  }
  return NULL;
}

/* ---- documents ---------------------------------------------------------- */
/* A cross-origin document is bridged when the run names its origin, or
 * when it declares a bridge into this page and the run allows that. */
static int bridged_doc(ctx *c, const sdoc *d, const char *origin) {
  for (int i = 0; c->opt->bridge_origins && c->opt->bridge_origins[i]; i++)
    if (origin && !strcmp(c->opt->bridge_origins[i], origin)) return 1;
  return c->opt->allow_bridges && pg_bridge_consents(snapdoc_bridge_meta(d->snap, d->sd), c->top_origin);
}

static int add_document(ctx *c, pg_document doc) {
  pg_graph *g = c->g;
  if (g->ndocuments == c->cap_doc) {
    c->cap_doc = c->cap_doc ? c->cap_doc * 2 : 4;
    g->documents = crawl__xrealloc(g->documents, c->cap_doc * sizeof *g->documents);
  }
  g->documents[g->ndocuments] = doc;
  return (int)g->ndocuments++;
}

static int add_scope(ctx *c, pg_scope sc) {
  pg_graph *g = c->g;
  if (g->nscopes == c->cap_sc) {
    c->cap_sc = c->cap_sc ? c->cap_sc * 2 : 16;
    g->scopes = crawl__xrealloc(g->scopes, c->cap_sc * sizeof *g->scopes);
  }
  g->scopes[g->nscopes] = sc;
  return (int)g->nscopes++;
}

static const pg_frame_info *frame_info(ctx *c, const char *frame_id) {
  for (size_t i = 0; i < c->in->nframes; i++)
    if (c->in->frames[i].frame_id && frame_id && !strcmp(c->in->frames[i].frame_id, frame_id))
      return &c->in->frames[i];
  return NULL;
}

/* Computed styles asked for beyond the first four (crawler/capture.c sends
 * them in this order), as CSS pixels; 0 when not captured. */
enum { STYLE_PADDING_LEFT = 4, STYLE_PADDING_TOP = 5, STYLE_POSITION = 6 };
static double style_px(ctx *c, const sdoc *d, int layout, int k) {
  const pg__snap_doc *sd = d->sd;
  if (k >= sd->style_stride || layout < 0 || (size_t)layout >= sd->nstyles) return 0;
  double v = atof(dstr(d, sd->styles[(size_t)layout * (size_t)sd->style_stride + (size_t)k]));
  return isfinite(v) ? v : 0;
}

/* The same as a string ("" when not captured). */
static const char *style_str(const sdoc *d, int layout, int k) {
  const pg__snap_doc *sd = d->sd;
  if (k >= sd->style_stride || layout < 0 || (size_t)layout >= sd->nstyles) return "";
  return dstr(d, sd->styles[(size_t)layout * (size_t)sd->style_stride + (size_t)k]);
}

/* readyState of a same-origin frame, as the page facts report it (by URL);
 * NULL when not known (a bridged frame cannot be asked from the page). */
static const char *frame_ready_state(ctx *c, const char *url, pg_access access) {
  if (access != PG_ACCESS_SAME_ORIGIN) return NULL;
  const cJSON *it;
  cJSON_ArrayForEach(it, get(c->in->page, "frames")) {
    const char *u = get_str(it, "url"), *r = get_str(it, "readyState");
    if (u && r && url && !strcmp(u, url) &&
        (!strcmp(r, "loading") || !strcmp(r, "interactive") || !strcmp(r, "complete")))
      return r;
  }
  return NULL;
}

static char *clean(ctx *c, const char *s, size_t max);

/* Links each document to the iframe node that shows it: by
 * contentDocumentIndex, and a bridged out-of-process frame's document by its
 * iframe in the page. */
static void link_owners(ctx *c) {
  /* owners: an iframe node's contentDocumentIndex points at its document */
  for (size_t i = 0; i < c->nn; i++)
    if (c->n[i].content_doc > 0 && (size_t)c->n[i].content_doc < c->nd)
      c->d[c->n[i].content_doc].owner = (int)i;
  /* a bridged out-of-process frame's document: its iframe in the page */
  for (size_t dj = 1; dj < c->nd; dj++) {
    sdoc *d = &c->d[dj];
    if (d->sub < 0 || d->first_of_snap != (int)dj) continue;
    int o = hget(c, c->in->subframes[d->sub].owner_backend_node_id);
    if (o >= 0 && c->d[c->n[o].doc].sub < 0 && !strcasecmp(c->n[o].tag, "IFRAME")) d->owner = o;
  }
}

/* Publishes the page's own document (doc_root). */
static void publish_root(ctx *c, sdoc *d, pg_document doc, char *origin) {
  pg__arena *a = c->a;
  const cJSON *page = c->in->page;
  d->access = PG_ACCESS_SAME_ORIGIN;
  d->ox = -d->scroll_x;
  d->oy = -d->scroll_y;
  doc.document_id = pg__strdup(a, "doc_root");
  doc.url = pg__strdup(a, d->url);
  doc.title = clean(c, get_str(page, "title") ? get_str(page, "title") : d->title, NAME_MAX_BYTES);
  doc.ready_state = pg__strdup(a, get_str(page, "readyState"));
  doc.origin = origin;
  doc.root_scope_id = pg__strdup(a, "scope_route");
  d->published = add_document(c, doc);
}

/* Decides a frame document's access (same-origin, bridged or opaque) and
 * returns its origin (an about: document's is its parent's). */
static char *frame_access(ctx *c, sdoc *d, const sdoc *pd, const pg_document *parent_doc, char *origin) {
  if (has_scheme(d->url, "about")) {
    /* about:blank / srcdoc: the parent's origin and access */
    d->access = pd->access;
    return parent_doc->origin;
  }
  int same = origin && c->top_origin && !strcmp(origin, c->top_origin) && strcmp(origin, "null") != 0;
  d->access = same ? PG_ACCESS_SAME_ORIGIN
                   : bridged_doc(c, d, origin) ? PG_ACCESS_BRIDGED : PG_ACCESS_OPAQUE;
  return origin;
}

/* An opaque frame's metadata: only what the parent already knows, the
 * iframe's src attribute. */
static void opaque_frame_facts(ctx *c, const snode *owner, pg_document *doc) {
  const char *src = attr(c, owner, "src");
  doc->origin = origin_of(c->a, src);
  doc->url = src && *src && !has_scheme(src, "data") ? pg__strdup(c->a, src) : NULL;
  if (!doc->origin || !strcmp(doc->origin, "null")) doc->origin = NULL;
  c->g->opaque_frames++;
}

/* A readable (same-origin or bridged) frame's metadata. */
static void readable_frame_facts(ctx *c, const sdoc *d, char *origin, pg_document *doc) {
  pg__arena *a = c->a;
  doc->origin = origin;
  doc->url = pg__strdup(a, d->url);
  doc->title = clean(c, d->title, NAME_MAX_BYTES);
  doc->ready_state = pg__strdup(a, frame_ready_state(c, d->url, d->access));
  doc->root_scope_id = pg__printf(a, "scope_frame_%s", d->frame_id);
  if (d->access == PG_ACCESS_BRIDGED)
    doc->bridge_session_id = d->sub >= 0 && c->in->subframes[d->sub].session_id
                                 ? pg__strdup(a, c->in->subframes[d->sub].session_id)
                                 : pg__printf(a, "bridge_%s", d->frame_id);
}

/* Publishes the document of a frame whose iframe is published (or marks it
 * opaque when its parent cannot be looked into). */
static void publish_frame(ctx *c, sdoc *d, pg_document doc, char *origin) {
  if (d->owner < 0) return; /* a detached document: nothing to anchor it */
  snode *owner = &c->n[d->owner];
  const sdoc *pd = &c->d[owner->doc];
  if (pd->published < 0 || owner->closed_inside || pd->access == PG_ACCESS_OPAQUE) {
    /* inside an opaque frame or a closed shadow root: not even metadata
     * (its frames, their URLs and boxes are that document's content) */
    d->access = PG_ACCESS_OPAQUE;
    return;
  }
  pg_document *parent_doc = &c->g->documents[pd->published];
  origin = frame_access(c, d, pd, parent_doc, origin);
  doc.access = d->access;
  doc.parent = pd->published;
  doc.depth = parent_doc->depth + 1;
  doc.parent_frame_id = parent_doc->frame_id;
  doc.document_id = pg__printf(c->a, "doc_%s", d->frame_id);
  if (d->access == PG_ACCESS_OPAQUE) opaque_frame_facts(c, owner, &doc);
  else readable_frame_facts(c, d, origin, &doc);
  if (owner->layout >= 0) {
    /* the frame's content box: border box + border (client rect) + padding */
    pg_rect b = pd->bounds[owner->layout], cl = pd->client[owner->layout];
    doc.bbox = (pg_rect){b.x + pd->ox, b.y + pd->oy, b.w, b.h};
    doc.has_bbox = 1;
    d->ox = b.x + pd->ox + cl.x + style_px(c, pd, owner->layout, STYLE_PADDING_LEFT) - d->scroll_x;
    d->oy = b.y + pd->oy + cl.y + style_px(c, pd, owner->layout, STYLE_PADDING_TOP) - d->scroll_y;
  }
  d->published = add_document(c, doc);
  owner->frame_doc = d->published;
}

/* Publishes out-of-process frames, which are not in the snapshot, as opaque
 * documents (unless captured over their own session: bridged). */
static void publish_oopifs(ctx *c) {
  pg__arena *a = c->a;
  for (size_t i = 0; i < c->in->nframes; i++) {
    const pg_frame_info *f = &c->in->frames[i];
    if (!f->oopif) continue;
    int owner = hget(c, f->owner_backend_node_id);
    if (owner < 0) continue;
    snode *on = &c->n[owner];
    if (on->frame_doc >= 0) continue; /* captured over its own session (bridged) */
    const sdoc *pd = &c->d[on->doc];
    if (pd->published < 0 || on->closed_inside || pd->access == PG_ACCESS_OPAQUE) continue;
    pg_document doc = {0};
    pg_document *parent_doc = &c->g->documents[pd->published];
    doc.document_id = pg__printf(a, "doc_%s", f->frame_id);
    doc.frame_id = pg__strdup(a, f->frame_id);
    doc.parent = pd->published;
    doc.depth = parent_doc->depth + 1;
    doc.parent_frame_id = parent_doc->frame_id;
    doc.access = PG_ACCESS_OPAQUE;
    const char *src = attr(c, on, "src");
    doc.origin = origin_of(a, src && *src ? src : NULL);
    if (doc.origin && !strcmp(doc.origin, "null")) doc.origin = NULL;
    doc.url = src && *src && !has_scheme(src, "data") ? pg__strdup(a, src) : NULL;
    if (on->layout >= 0) {
      pg_rect b = pd->bounds[on->layout];
      doc.bbox = (pg_rect){b.x + pd->ox, b.y + pd->oy, b.w, b.h};
      doc.has_bbox = 1;
    }
    c->g->opaque_frames++;
    on->frame_doc = add_document(c, doc);
  }
}

/* Decides which documents may be published and publishes them, parents
 * first: the page, its frames, then out-of-process frames. */
static void build_documents(ctx *c) {
  pg__arena *a = c->a;
  link_owners(c);
  c->top_origin = origin_of(a, c->d[0].url);
  for (size_t dj = 0; dj < c->nd; dj++) {
    sdoc *d = &c->d[dj];
    pg_document doc = {0};
    doc.parent = -1;
    doc.frame_id = pg__strdup(a, d->frame_id);
    char *origin = origin_of(a, d->url);
    if (dj == 0) publish_root(c, d, doc, origin);
    else publish_frame(c, d, doc, origin);
  }
  publish_oopifs(c);
  (void)frame_info;
}

/* ---- AX join -------------------------------------------------------------- */
static void join_ax_nodes(ctx *c, const cJSON *result, int sub) {
  const cJSON *it;
  cJSON_ArrayForEach(it, get(result, "nodes")) {
    const cJSON *b = get(it, "backendDOMNodeId");
    if (!cJSON_IsNumber(b) || b->valuedouble < 1 || b->valuedouble >= (1 << SUB_ID_BITS)) continue;
    int idx = hget(c, b->valueint + (sub >= 0 ? (sub + 1) << SUB_ID_BITS : 0));
    if (idx >= 0 && c->d[c->n[idx].doc].sub == sub && !c->n[idx].ax) c->n[idx].ax = it;
  }
}

static void join_ax(ctx *c) {
  for (size_t k = 0; k < c->in->nax; k++) join_ax_nodes(c, c->in->ax[k], -1);
  for (size_t k = 0; c->in->subframes && k < c->in->nsubframes && k < MAX_SUBFRAMES; k++)
    if (c->in->subframes[k].ax) join_ax_nodes(c, c->in->subframes[k].ax, (int)k);
}

static const char *ax_str(const cJSON *ax, const char *key) {
  const cJSON *v = get(get(ax, key), "value");
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const cJSON *ax_prop(const cJSON *ax, const char *name) {
  const cJSON *it;
  cJSON_ArrayForEach(it, get(ax, "properties")) {
    const char *n = get_str(it, "name");
    if (n && !strcmp(n, name)) return get(get(it, "value"), "value");
  }
  return NULL;
}

static int ax_ignored(const cJSON *ax) { return cJSON_IsTrue(get(ax, "ignored")); }

/* ---- role, name, state ---------------------------------------------------- */
/* Ignored only because it is hidden (display:none, visibility, aria-hidden)? */
static int ax_hidden_only(const cJSON *ax) {
  const cJSON *it;
  int any = 0;
  cJSON_ArrayForEach(it, get(ax, "ignoredReasons")) {
    const char *r = get_str(it, "name");
    if (!r) continue;
    if (strcmp(r, "notRendered") && strcmp(r, "notVisible") && strcmp(r, "ariaHiddenElement") &&
        strcmp(r, "ariaHiddenSubtree"))
      return 0;
    any = 1;
  }
  return any;
}

/* Step 3 of web profile 6.1: the app's annotation (data-uiap-role) gives
 * the role only where neither the tag nor ARIA did (role generic), the role
 * is one we know, and it does not lie: a widget role (one a user operates)
 * only on an element that can be operated (a click listener, tabindex,
 * contenteditable). Otherwise role stays as it is. */
static const char *annotated_role(ctx *c, const snode *n, const char *role) {
  const char *ur = attr(c, n, "data-uiap-role");
  if (!role || strcmp(role, "generic") || !ur || !*ur) return role;
  char low[32];
  size_t l = strlen(ur);
  if (l >= sizeof low) return role;
  for (size_t k = 0; k <= l; k++) low[k] = (char)(ur[k] >= 'A' && ur[k] <= 'Z' ? ur[k] + 32 : ur[k]);
  const pg__role_info *ri = pg__role_lookup(low);
  if (!ri || (ri->flags & PG__R_TEXT)) return role;
  unsigned widget = PG__R_INTERACTIVE | PG__R_ACTIVATE | PG__R_EDITABLE | PG__R_CHECKABLE | PG__R_CHOOSER |
                    PG__R_OPTION | PG__R_NAVLINK | PG__R_RANGE;
  int operable = n->clickable || attr(c, n, "tabindex") || attr(c, n, "contenteditable");
  if ((ri->flags & widget) && !operable) return role;
  return ri->role; /* the table's string: low is gone when we return */
}

static const char *node_role_(ctx *c, const snode *n, int *from_ax);
static const char *node_role(ctx *c, const snode *n, int *from_ax) {
  return annotated_role(c, n, node_role_(c, n, from_ax));
}

static const char *node_role_(ctx *c, const snode *n, int *from_ax) {
  *from_ax = 0;
  if (n->ax && !ax_ignored(n->ax)) {
    const char *r = ax_str(n->ax, "role");
    *from_ax = 1;
    return pg__role_normalize(r);
  }
  /* ignored: not exposed to assistive tech -- unless hidden ones were asked for */
  if (n->ax && !(c->opt->include_hidden && ax_hidden_only(n->ax))) return NULL;
  if (!strcasecmp(n->tag, "IMG")) {
    const char *alt = attr(c, n, "alt");
    const char *r = attr(c, n, "role");
    if (alt && !*alt && (!r || !*r)) return "none"; /* decorative (html-aam) */
  }
  /* without AX data: aria-hidden content is not exposed either */
  if (!n->ax && n->aria_hidden && !c->opt->include_hidden) return NULL;
  const char *explicit_role = attr(c, n, "role");
  if (explicit_role && *explicit_role) {
    static char first[64];
    size_t l = strcspn(explicit_role, " \t\n");
    if (l && l < sizeof first) {
      memcpy(first, explicit_role, l);
      first[l] = 0;
      for (size_t i = 0; i < l; i++) first[i] = (char)(first[i] | 0x20);
      return pg__strdup(c->a, first);
    }
  }
  const char *type = attr(c, n, "type");
  return pg__role_from_tag(n->tag, type, attr(c, n, "href") != NULL);
}

/* Text of a subtree, with both boundaries kept: never descends into closed
 * shadow trees, nor into sensitive elements (a textarea's text, a select's
 * options, whatever a data-uiap-sensitive container holds); nothing at all
 * when i itself is or lies in a sensitive element. */
static void light_text(ctx *c, int i, char *buf, size_t cap, size_t *len, int depth) {
  if (depth > 256 || c->n[i].sens_inside) return;
  for (int k = c->n[i].first_child; k >= 0 && *len + 1 < cap; k = c->n[k].next_sibling) {
    const snode *ch = &c->n[k];
    if (ch->closed_inside || ch->sens_self) continue;
    if (ch->type == 3) {
      size_t l = strlen(ch->value);
      if (l > cap - *len - 2) l = cap - *len - 2;
      memcpy(buf + *len, ch->value, l);
      *len += l;
      buf[(*len)++] = ' ';
      buf[*len] = 0;
    } else if (ch->type == 1 && strcasecmp(ch->tag, "SCRIPT") && strcasecmp(ch->tag, "STYLE")) {
      light_text(c, k, buf, cap, len, depth + 1);
    }
  }
}

static char *clean(ctx *c, const char *s, size_t max) {
  if (!s) return NULL;
  char *t = pg_text_clean(s, strlen(s), max);
  char *r = *t ? pg__strdup(c->a, t) : NULL;
  free(t);
  return r;
}

static void idmap_build(ctx *c);
static int idmap_get(const crawl__strmap *m, int doc, const char *v);

/* ---- names across boundaries ----------------------------------------------
 * Chromium computes names and descriptions over the flat tree: closed shadow
 * content and the values of embedded fields (a password shows as bullets)
 * flow into the names of buttons, labels' fields, aria-labelledby users.
 * When what a name was computed from holds closed-shadow or sensitive
 * content, the name is computed again here from what may be published:
 * the light text of the same sources, sensitive fields and closed trees
 * left out. */
typedef enum { NS_UNKNOWN, NS_OWN, NS_LABELLEDBY, NS_NATIVE, NS_CONTENTS } name_src;

/* Which source gave the AX name: the first one with a value that is not
 * superseded (Chromium lists them in precedence order). */
static name_src ax_name_source(const cJSON *ax) {
  const cJSON *it;
  cJSON_ArrayForEach(it, get(get(ax, "name"), "sources")) {
    if (!get(it, "value") || cJSON_IsTrue(get(it, "superseded"))) continue;
    const char *t = get_str(it, "type"), *a = get_str(it, "attribute");
    if (!t) return NS_UNKNOWN;
    if (!strcmp(t, "attribute") || !strcmp(t, "placeholder")) return NS_OWN;
    if (!strcmp(t, "relatedElement")) return a && !strcmp(a, "aria-labelledby") ? NS_LABELLEDBY : NS_NATIVE;
    if (!strcmp(t, "contents")) return NS_CONTENTS;
    return NS_UNKNOWN;
  }
  return NS_UNKNOWN;
}

/* 1: node t, or what is under it, must not be read into a name. */
static int ref_tainted(ctx *c, int t) {
  const snode *n = &c->n[t];
  return n->closed_inside || n->n_closed > 0 || n->n_sens > 0 || n->sens_inside;
}

/* 1: what node t gives a name is (partly) sensitive: a redaction. */
static int ref_sensitive(ctx *c, int t) { return c->n[t].n_sens > 0 || c->n[t].sens_inside; }

/* What a referenced node may contribute: its aria-label, else its text;
 * nothing from a node that is or lies in a sensitive element. */
static void ref_text(ctx *c, int t, char *buf, size_t cap, size_t *len) {
  const snode *n = &c->n[t];
  if (n->closed_inside || n->sens_inside || *len + 2 >= cap) return;
  const char *al = attr(c, n, "aria-label");
  if (al && *al) {
    size_t l = strlen(al);
    if (l > cap - *len - 2) l = cap - *len - 2;
    memcpy(buf + *len, al, l);
    *len += l;
    buf[(*len)++] = ' ';
    buf[*len] = 0;
    return;
  }
  if (n->type == 3) {
    size_t l = strlen(n->value);
    if (l > cap - *len - 2) l = cap - *len - 2;
    memcpy(buf + *len, n->value, l);
    *len += l;
    buf[(*len)++] = ' ';
    buf[*len] = 0;
    return;
  }
  light_text(c, t, buf, cap, len, 0);
}

/* Nodes named by an idref list attribute of node i (same document), at most max. */
static int idrefs(ctx *c, int i, const char *attrname, int *out, int max) {
  const char *v = attr(c, &c->n[i], attrname);
  if (!v || !*v) return 0;
  idmap_build(c);
  char buf[512];
  snprintf(buf, sizeof buf, "%s", v);
  int k = 0;
  for (char *save = NULL, *tok = strtok_r(buf, " \t\n", &save); tok && k < max; tok = strtok_r(NULL, " \t\n", &save)) {
    int t = idmap_get(&c->ids, c->n[i].doc, tok);
    if (t >= 0) out[k++] = t;
  }
  return k;
}

/* Labels of a field: label[for=id] and the label around it; for groups and
 * tables their legend / caption. */
static int native_labels(ctx *c, int i, int *out, int max) {
  int k = 0;
  const snode *n = &c->n[i];
  const char *id = attr(c, n, "id");
  if (id && *id) {
    idmap_build(c);
    int l = idmap_get(&c->fors, n->doc, id);
    if (l >= 0 && k < max) out[k++] = l;
  }
  for (int p = n->parent, steps = 0; p >= 0 && steps < 64 && k < max; p = c->n[p].parent, steps++)
    if (c->n[p].type == 1 && !strcasecmp(c->n[p].tag, "LABEL")) {
      if (!k || out[k - 1] != p) out[k++] = p;
      break;
    }
  if (!k)
    for (int ch = n->first_child; ch >= 0 && k < max; ch = c->n[ch].next_sibling)
      if (c->n[ch].type == 1 && (!strcasecmp(c->n[ch].tag, "LEGEND") || !strcasecmp(c->n[ch].tag, "CAPTION") ||
                                 !strcasecmp(c->n[ch].tag, "FIGCAPTION"))) {
        out[k++] = ch;
        break;
      }
  return k;
}

static char *refs_text(ctx *c, const int *refs, int nrefs) {
  char buf[2048];
  size_t len = 0;
  buf[0] = 0;
  for (int r = 0; r < nrefs; r++) ref_text(c, refs[r], buf, sizeof buf, &len);
  return clean(c, buf, NAME_MAX_BYTES);
}

static int any_tainted(ctx *c, const int *refs, int nrefs) {
  for (int r = 0; r < nrefs; r++)
    if (ref_tainted(c, refs[r])) return 1;
  return 0;
}

/* 1: node i hosts a closed shadow root. */
static int closed_host(ctx *c, int i) {
  for (int k = c->n[i].first_child; k >= 0; k = c->n[k].next_sibling)
    if (c->n[k].shadow == 2 && c->n[k].shadow_host == i) return 1;
  return 0;
}

/* The accessible name, with the closed-shadow and redaction boundaries
 * enforced. */
static char *node_name(ctx *c, int i) {
  const snode *n = &c->n[i];
  const char *label = attr(c, n, "aria-label");
  enum { MAXREF = 16 };
  int refs[MAXREF], nrefs;
  if (closed_host(c, i)) {
    /* Only what the host itself says: aria-labelledby (light DOM),
     * aria-label, title. */
    if ((nrefs = idrefs(c, i, "aria-labelledby", refs, MAXREF)) > 0) {
      char *t = refs_text(c, refs, nrefs);
      if (t) return t;
    }
    if (label && *label) return clean(c, label, NAME_MAX_BYTES);
    return clean(c, attr(c, n, "title"), NAME_MAX_BYTES);
  }
  if (!n->ax) {
    /* no AX data (huge page fallback): attribute names, then contents */
    if ((nrefs = idrefs(c, i, "aria-labelledby", refs, MAXREF)) > 0) {
      char *t = refs_text(c, refs, nrefs);
      if (t) return t;
    }
    if (label && *label) return clean(c, label, NAME_MAX_BYTES);
    if (!strcasecmp(n->tag, "INPUT") || !strcasecmp(n->tag, "SELECT") || !strcasecmp(n->tag, "TEXTAREA")) {
      /* host-language label: label[for] or a wrapping <label> */
      if ((nrefs = native_labels(c, i, refs, 4)) > 0 && !any_tainted(c, refs, nrefs)) {
        char *t = refs_text(c, refs, nrefs);
        if (t) return t;
      }
      const char *type = attr(c, n, "type");
      if (type && (!strcasecmp(type, "submit") || !strcasecmp(type, "button") || !strcasecmp(type, "reset"))) {
        const char *v = attr(c, n, "value");
        if (v && *v) return clean(c, v, NAME_MAX_BYTES);
      }
    }
    const char *alt = attr(c, n, "alt");
    if (alt && *alt) return clean(c, alt, NAME_MAX_BYTES);
    char buf[2048];
    size_t len = 0;
    buf[0] = 0;
    /* hidden content names nothing (accname 2A) */
    int rendered = n->layout >= 0 && !(n->vis_hidden & 1) &&
                   strcmp(c->d[n->doc].styles[n->layout][1], "hidden") &&
                   strcmp(c->d[n->doc].styles[n->layout][1], "collapse");
    if (rendered) light_text(c, i, buf, sizeof buf, &len, 0);
    if (len) return clean(c, buf, NAME_MAX_BYTES);
    const char *t = attr(c, n, "title");
    if (!t || !*t) t = attr(c, n, "placeholder");
    return clean(c, t, NAME_MAX_BYTES);
  }
  const char *name = ax_str(n->ax, "name");
  if (!name || !*name) return NULL;
  name_src src = ax_name_source(n->ax);
  if (src == NS_OWN) return clean(c, name, NAME_MAX_BYTES);
  /* an element that is or lies in a sensitive one, and is not a field (whose
   * value, not its content, is the secret): its content is the secret */
  int own_secret = n->sens_inside && !is_field(n);
  int contents_tainted = n->n_closed > 0 || n->n_sens - n->sens_self > 0 || own_secret;
  int lb[MAXREF], nlb = idrefs(c, i, "aria-labelledby", lb, MAXREF);
  int nl[4], nnl = native_labels(c, i, nl, 4);
  if (src == NS_UNKNOWN) {
    /* which source won is not known: the first that applies */
    src = nlb ? NS_LABELLEDBY : (label && *label) ? NS_OWN : nnl ? NS_NATIVE : NS_CONTENTS;
    if (src == NS_OWN)
      return clean(c, contents_tainted || any_tainted(c, nl, nnl) ? label : name, NAME_MAX_BYTES);
  }
  char *safe = NULL;
  int tainted = 0, sens = 0;
  switch (src) {
  case NS_LABELLEDBY:
    tainted = any_tainted(c, lb, nlb);
    if (tainted) safe = refs_text(c, lb, nlb);
    for (int r = 0; tainted && r < nlb; r++) sens |= ref_sensitive(c, lb[r]);
    break;
  case NS_NATIVE:
    tainted = any_tainted(c, nl, nnl) || contents_tainted;
    if (tainted) safe = refs_text(c, nl, nnl);
    for (int r = 0; tainted && r < nnl; r++) sens |= ref_sensitive(c, nl[r]);
    sens |= own_secret;
    break;
  default: {
    tainted = contents_tainted;
    sens = n->n_sens - n->sens_self > 0 || own_secret;
    if (tainted) {
      char buf[2048];
      size_t len = 0;
      buf[0] = 0;
      light_text(c, i, buf, sizeof buf, &len, 0);
      safe = clean(c, buf, NAME_MAX_BYTES);
    }
  }
  }
  if (!tainted) return clean(c, name, NAME_MAX_BYTES);
  char *ax_clean = clean(c, name, NAME_MAX_BYTES);
  if (sens && (!safe || !ax_clean || strcmp(safe, ax_clean))) c->g->redactions++;
  return safe;
}

/* The accessible description, the same way: a description Chromium read
 * from closed-shadow or sensitive content is computed again from the light
 * text of aria-describedby's targets. */
static char *node_description(ctx *c, int i) {
  const snode *n = &c->n[i];
  const char *d = n->ax ? ax_str(n->ax, "description") : NULL;
  if (!d || !*d) return NULL;
  enum { MAXREF = 16 };
  int refs[MAXREF], nrefs = idrefs(c, i, "aria-describedby", refs, MAXREF);
  if (nrefs && any_tainted(c, refs, nrefs)) return refs_text(c, refs, nrefs);
  if (!nrefs && closed_host(c, i)) return clean(c, attr(c, n, "title"), NAME_MAX_BYTES);
  return clean(c, d, NAME_MAX_BYTES);
}

static int tristate(const cJSON *v, int *mixed) {
  *mixed = 0;
  if (cJSON_IsString(v)) {
    if (!strcmp(v->valuestring, "mixed")) { *mixed = 1; return 1; }
    return !strcmp(v->valuestring, "true");
  }
  return cJSON_IsTrue(v);
}

/* AX property name -> state key, for plain booleans. */
static const struct { const char *prop; pg_state_key key; } ax_bool_states[] = {
  {"focusable", PG_ST_FOCUSABLE}, {"focused", PG_ST_FOCUSED},
  {"readonly", PG_ST_READONLY},   {"required", PG_ST_REQUIRED},
  {"selected", PG_ST_SELECTED},   {"expanded", PG_ST_EXPANDED},
  {"modal", PG_ST_MODAL},         {"multiselectable", PG_ST_MULTISELECTABLE},
  {"busy", PG_ST_BUSY},
};

static void node_state(ctx *c, const snode *n, const pg__role_info *ri, pg_state *s, int visible) {
  pg_state_set(s, PG_ST_VISIBLE, visible);
  const char *dis = attr(c, n, "disabled");
  const char *adis = attr(c, n, "aria-disabled");
  int disabled = (dis != NULL) || (adis && !strcmp(adis, "true"));
  if (n->ax) {
    const cJSON *d = ax_prop(n->ax, "disabled");
    if (d) disabled = cJSON_IsTrue(d);
    for (size_t i = 0; i < sizeof ax_bool_states / sizeof *ax_bool_states; i++) {
      const cJSON *v = ax_prop(n->ax, ax_bool_states[i].prop);
      if (v) pg_state_set(s, ax_bool_states[i].key, cJSON_IsTrue(v));
    }
    const cJSON *ed = ax_prop(n->ax, "editable");
    if (ed) pg_state_set(s, PG_ST_EDITABLE, 1);
    const cJSON *inv = ax_prop(n->ax, "invalid");
    if (inv) pg_state_set(s, PG_ST_INVALID, cJSON_IsString(inv) && strcmp(inv->valuestring, "false"));
    int mixed;
    const cJSON *ch = ax_prop(n->ax, "checked");
    if (ch) {
      pg_state_set(s, PG_ST_CHECKED, tristate(ch, &mixed));
      if (mixed) s->mixed |= 1u << PG_ST_CHECKED;
    }
    const cJSON *pr = ax_prop(n->ax, "pressed");
    if (pr) {
      pg_state_set(s, PG_ST_PRESSED, tristate(pr, &mixed));
      if (mixed) s->mixed |= 1u << PG_ST_PRESSED;
    }
    const cJSON *v;
    if ((v = ax_prop(n->ax, "valuemin")) && cJSON_IsNumber(v)) { s->value_min = v->valuedouble; s->has_min = 1; }
    if ((v = ax_prop(n->ax, "valuemax")) && cJSON_IsNumber(v)) { s->value_max = v->valuedouble; s->has_max = 1; }
    if (ri && (ri->flags & PG__R_RANGE)) {
      const cJSON *val = get(get(n->ax, "value"), "value");
      if (cJSON_IsNumber(val)) { s->value_now = val->valuedouble; s->has_now = 1; }
    }
  } else {
    /* attribute fallback */
    if (ri && (ri->flags & PG__R_CHECKABLE)) {
      const char *ac = attr(c, n, "aria-checked");
      if (n->checked == 1 || (ac && !strcmp(ac, "true"))) pg_state_set(s, PG_ST_CHECKED, 1);
      else pg_state_set(s, PG_ST_CHECKED, 0);
      if (ac && !strcmp(ac, "mixed")) s->mixed |= 1u << PG_ST_CHECKED;
    }
    const char *ex = attr(c, n, "aria-expanded");
    if (ex) pg_state_set(s, PG_ST_EXPANDED, !strcmp(ex, "true"));
    const char *pr = attr(c, n, "aria-pressed");
    if (pr) pg_state_set(s, PG_ST_PRESSED, !strcmp(pr, "true"));
    const char *se = attr(c, n, "aria-selected");
    if (se) pg_state_set(s, PG_ST_SELECTED, !strcmp(se, "true"));
    if (attr(c, n, "required") || (attr(c, n, "aria-required") && !strcmp(attr(c, n, "aria-required"), "true")))
      pg_state_set(s, PG_ST_REQUIRED, 1);
    const char *iv = attr(c, n, "aria-invalid");
    if (iv && strcmp(iv, "false")) pg_state_set(s, PG_ST_INVALID, 1);
    if (attr(c, n, "readonly")) pg_state_set(s, PG_ST_READONLY, 1);
    if (ri && (ri->flags & PG__R_EDITABLE)) pg_state_set(s, PG_ST_EDITABLE, 1);
  }
  pg_state_set(s, PG_ST_ENABLED, !disabled);
  if (pg_state_is(s, PG_ST_READONLY) && pg_state_has(s, PG_ST_EDITABLE)) pg_state_set(s, PG_ST_EDITABLE, 0);
}

/* ---- affordances and actions (discovery-mapper 15.4) -------------------- */
/* Tags that take focus natively (html "focusable area"), with what they need. */
static const struct { const char *tag; int needs_href; } focus_tags[] = {
  {"BUTTON", 0}, {"INPUT", 0}, {"SELECT", 0}, {"TEXTAREA", 0}, {"SUMMARY", 0},
  {"IFRAME", 0}, {"A", 1}, {"AREA", 1},
};

/* 1: e can take focus (web 5.7: ui.focus only where it works). The
 * accessibility tree says so when the node has one; without it, a native
 * focusable tag, a tabindex or contenteditable. A role alone (a div with
 * role=button and no tabindex) does not make an element focusable. */
static int takes_focus(ctx *c, const snode *n, const pg_element *e) {
  if (n->ax) return pg_state_is(&e->state, PG_ST_FOCUSABLE);
  const char *ti = attr(c, n, "tabindex"), *ce = attr(c, n, "contenteditable");
  if (ti && *ti) return 1;
  if (ce && strcasecmp(ce, "false")) return 1;
  const char *type = attr(c, n, "type");
  if (!strcasecmp(n->tag, "INPUT") && type && !strcasecmp(type, "hidden")) return 0;
  for (size_t k = 0; k < sizeof focus_tags / sizeof *focus_tags; k++)
    if (!strcasecmp(n->tag, focus_tags[k].tag)) return !focus_tags[k].needs_href || attr(c, n, "href");
  return 0;
}

#define AF(x) (1u << PG_AF_##x)
#define AC(x) (1u << PG_AC_##x)
static void derive_actions(ctx *c, const snode *n, pg_element *e, const pg__role_info *ri) {
  uint32_t af = AF(READ), ac = 0;
  int enabled = pg_state_is(&e->state, PG_ST_ENABLED);
  unsigned f = ri ? ri->flags : 0;
  if (takes_focus(c, n, e)) { af |= AF(FOCUS); ac |= AC(FOCUS); }
  if (f & PG__R_ACTIVATE) { af |= AF(ACTIVATE); ac |= AC(ACTIVATE); }
  if (f & PG__R_NAVLINK) { af |= AF(NAVIGATE); ac |= AC(NAVIGATE); }
  if (f & PG__R_CHECKABLE) {
    af |= AF(TOGGLE); ac |= AC(TOGGLE);
    if (!strcmp(e->role, "radio") || !strcmp(e->role, "menuitemradio")) { af |= AF(CHOOSE); ac |= AC(CHOOSE); }
  }
  if (f & PG__R_CHOOSER) { af |= AF(CHOOSE) | AF(EXPAND); ac |= AC(CHOOSE) | AC(EXPAND); }
  if (f & PG__R_OPTION) { af |= AF(SELECT); ac |= AC(CHOOSE); }
  if ((f & PG__R_EDITABLE) && !pg_state_is(&e->state, PG_ST_READONLY) && strcmp(e->role, "combobox") != 0) {
    af |= AF(EDIT); ac |= AC(ENTER_TEXT) | AC(CLEAR_TEXT);
  } else if (!strcmp(e->role, "combobox") && pg_state_is(&e->state, PG_ST_EDITABLE)) {
    af |= AF(EDIT); ac |= AC(ENTER_TEXT) | AC(CLEAR_TEXT);
  }
  if ((f & PG__R_RANGE) && (f & PG__R_INTERACTIVE)) { af |= AF(EDIT); ac |= AC(ENTER_TEXT); }
  if (pg_state_has(&e->state, PG_ST_EXPANDED) && (f & PG__R_ACTIVATE)) {
    if (pg_state_is(&e->state, PG_ST_EXPANDED)) { af |= AF(COLLAPSE); ac |= AC(COLLAPSE); }
    else { af |= AF(EXPAND); ac |= AC(EXPAND); }
  }
  if (pg_state_has(&e->state, PG_ST_PRESSED)) { af |= AF(TOGGLE); ac |= AC(TOGGLE); }
  if (e->is_submit) { af |= AF(SUBMIT); ac |= AC(SUBMIT); }
  if (e->app_action) af |= AF(INVOKE);
  if (!strcmp(e->role, "generic") && n->clickable) { af |= AF(ACTIVATE); ac |= AC(ACTIVATE); }
  if (!enabled) {
    /* a disabled control reads, nothing else */
    af &= AF(READ);
    ac = 0;
  }
  e->affordances = af;
  e->actions = ac;
}
#undef AF
#undef AC

/* ---- scopes ----------------------------------------------------------------- */
/* Drawers (docs/decisions.md): a dialog, or a container that a disclosure
 * control (aria-expanded + aria-controls) names, laid out off-canvas style
 * -- position fixed or absolute, against the left or right edge of its
 * document's viewport, at least DRAWER_MIN_HEIGHT of its height, between
 * DRAWER_MIN_WIDTH px and DRAWER_MAX_WIDTH of its width. Moved out of view
 * past that edge (translateX(-100%)) it is a closed drawer. */
#define DRAWER_EDGE_PX 24.0     /* a scrollbar, a border */
#define DRAWER_MIN_WIDTH 120.0  /* narrower: an icon rail, a toolbar */
#define DRAWER_MAX_WIDTH 0.6
#define DRAWER_MIN_HEIGHT 0.6
enum { DRAWER_NO, DRAWER_OPEN, DRAWER_CLOSED };

static int drawer_shape(ctx *c, int i) {
  const snode *n = &c->n[i];
  const sdoc *d = &c->d[n->doc];
  if (n->layout < 0 || d->published < 0) return DRAWER_NO;
  const char *pos = style_str(d, n->layout, STYLE_POSITION);
  if (strcmp(pos, "fixed") && strcmp(pos, "absolute")) return DRAWER_NO;
  const pg_document *doc = &c->g->documents[d->published];
  double vw = c->g->vp_width, vh = c->g->vp_height;
  if (doc->parent >= 0) {
    if (!doc->has_bbox) return DRAWER_NO;
    vw = doc->bbox.w;
    vh = doc->bbox.h;
  }
  pg_rect b = d->bounds[n->layout];
  double x = b.x - d->scroll_x, y = b.y - d->scroll_y; /* in its viewport */
  if (!(b.w >= DRAWER_MIN_WIDTH && b.w <= DRAWER_MAX_WIDTH * vw && b.h >= DRAWER_MIN_HEIGHT * vh)) return DRAWER_NO;
  if (y + b.h <= 0 || y >= vh) return DRAWER_NO;
  if (fabs(x) <= DRAWER_EDGE_PX || fabs(x + b.w - vw) <= DRAWER_EDGE_PX) return DRAWER_OPEN;
  if (x + b.w <= 1 || x >= vw - 1) return DRAWER_CLOSED;
  return DRAWER_NO;
}

/* 1: a control with aria-expanded names node i in its aria-controls. */
static int disclosed(ctx *c, int i) {
  if (!c->controlled) {
    c->controlled = crawl__xmalloc(c->nn ? c->nn : 1);
    memset(c->controlled, 0, c->nn ? c->nn : 1);
    for (size_t k = 0; k < c->nn; k++) {
      const snode *n = &c->n[k];
      if (n->type != 1 || n->closed_inside || !attr(c, n, "aria-expanded")) continue;
      int refs[16], nrefs = idrefs(c, (int)k, "aria-controls", refs, 16);
      for (int r = 0; r < nrefs; r++) c->controlled[refs[r]] = 1;
    }
  }
  return c->controlled[i];
}

static int scope_kind_of(ctx *c, int i, const char *role, int visible, const char **stable) {
  const snode *n = &c->n[i];
  *stable = attr(c, n, "data-uiap-scope");
  if (*stable && !**stable) *stable = NULL;
  if (!visible && !c->opt->include_hidden) return -1;
  const pg__role_info *ri = pg__role_lookup(role);
  int kind = ri ? ri->scope : -1;
  if (kind == PG_SCOPE_REGION && role && !strcmp(role, "region") && !(n->ax && ax_str(n->ax, "name") && *ax_str(n->ax, "name")))
    kind = -1;
  if (kind < 0 && !strcasecmp(n->tag, "FORM")) kind = PG_SCOPE_FORM;
  if (kind < 0 && !strcasecmp(n->tag, "DIALOG")) kind = PG_SCOPE_DIALOG;
  if (attr(c, n, "popover") && kind != PG_SCOPE_DIALOG && kind != PG_SCOPE_MENU) kind = PG_SCOPE_POPOVER;
  if (kind == PG_SCOPE_COLLECTION && role && !strcmp(role, "list") && !c->opt->include_non_interactive)
    kind = -1; /* plain lists are structure, not a UI scope, unless asked */
  if (kind == PG_SCOPE_DIALOG || ((kind < 0 || kind == PG_SCOPE_REGION) && disclosed(c, i))) {
    int ds = drawer_shape(c, i);
    if (ds == DRAWER_CLOSED && !c->opt->include_hidden) return -1; /* off-canvas: not on screen */
    if (ds != DRAWER_NO) kind = PG_SCOPE_DRAWER;
  }
  if (kind < 0 && *stable) kind = PG_SCOPE_CUSTOM;
  return kind;
}

static int scope_of(ctx *c, int i);

static int make_scope(ctx *c, int i, int kind, const char *stable, const char *role) {
  snode *n = &c->n[i];
  pg_scope sc = {0};
  sc.kind = (pg_scope_kind)kind;
  sc.node = i;
  sc.document = c->d[n->doc].published;
  sc.scope_id = node_id(c, i, "sc");
  sc.stable_id = pg__strdup(c->a, stable);
  /* A scope is named by its author (aria-label, aria-labelledby, title, or a
   * <legend>/<caption> through the AX name), never by its whole text content:
   * a landmark named after its contents changes with every clock tick. */
  {
    const char *al = attr(c, n, "aria-label"), *alb = attr(c, n, "aria-labelledby"), *ti = attr(c, n, "title");
    int from_contents = 0;
    if (n->ax) {
      const cJSON *it;
      cJSON_ArrayForEach(it, get(get(n->ax, "name"), "sources")) {
        const char *t = get_str(it, "type");
        if (t && !strcmp(t, "contents") && get(it, "value") && !cJSON_IsTrue(get(it, "superseded"))) from_contents = 1;
      }
    }
    if ((al && *al) || (alb && *alb) || (ti && *ti) || (n->ax && !from_contents)) sc.name = node_name(c, i);
  }
  if (kind == PG_SCOPE_DIALOG || kind == PG_SCOPE_POPOVER || kind == PG_SCOPE_DRAWER) {
    int open = node_visible(c, n);
    if (kind == PG_SCOPE_DRAWER) open = open && drawer_shape(c, i) == DRAWER_OPEN;
    pg_state_set(&sc.state, PG_ST_OPEN, open);
    const char *am = attr(c, n, "aria-modal");
    const cJSON *m = n->ax ? ax_prop(n->ax, "modal") : NULL;
    if (kind != PG_SCOPE_POPOVER)
      pg_state_set(&sc.state, PG_ST_MODAL, (m && cJSON_IsTrue(m)) || (am && !strcmp(am, "true")));
  }
  if (n->layout >= 0) {
    sc.bbox = node_rect(c, n);
    sc.has_bbox = 1;
  }
  sc.parent = -1; /* scope_of chains it */
  int idx = add_scope(c, sc);
  n->scope = idx;
  return idx;
}

/* Document scopes: the route scope for the top document, iframe-root for
 * same-origin and bridged frames (an opaque one has no scope: nothing inside
 * it is published). Created lazily; *created: 1 when added by this call,
 * with no parent yet (the scope of the frame's iframe element). */
static int doc_scope_get(ctx *c, int docidx, int *created) {
  sdoc *d = &c->d[docidx];
  *created = 0;
  if (d->published < 0 || (d->access != PG_ACCESS_SAME_ORIGIN && d->access != PG_ACCESS_BRIDGED)) return -1;
  pg_document *doc = &c->g->documents[d->published];
  for (size_t s = 0; s < c->g->nscopes; s++)
    if (c->g->scopes[s].node == -1 && c->g->scopes[s].document == d->published) return (int)s;
  pg_scope sc = {0};
  sc.node = -1;
  sc.parent = -1;
  sc.document = d->published;
  sc.scope_id = doc->root_scope_id;
  if (docidx == 0) {
    sc.kind = PG_SCOPE_ROUTE;
    sc.name = clean(c, doc->title, NAME_MAX_BYTES);
  } else {
    sc.kind = PG_SCOPE_IFRAME_ROOT;
    sc.name = clean(c, doc->title, NAME_MAX_BYTES);
    if (doc->has_bbox) { sc.bbox = doc->bbox; sc.has_bbox = 1; }
  }
  *created = 1;
  return add_scope(c, sc);
}

static int doc_scope(ctx *c, int docidx) {
  int created, idx = doc_scope_get(c, docidx, &created);
  if (created && docidx > 0 && c->d[docidx].owner >= 0) c->g->scopes[idx].parent = scope_of(c, c->d[docidx].owner);
  return idx;
}

/* Innermost scope containing node i (memoised), at any depth: no recursion
 * and no cap, so a 2,000-level page publishes all of its nested scopes,
 * each chained to the next one out. One climb from i to the first node
 * whose scope is known (or past the top of the top document, through the
 * iframe elements of nested frames) creates the scopes it passes, innermost
 * first (the order of the scopes array); then, outermost first, each new
 * scope gets its parent and each node passed its innermost scope. Each node
 * is climbed over once per graph: linear in the page. */
typedef struct { int node; int made; } climb_step; /* node to memoise (-1: none), scope made there (-1: none) */

static int scope_of(ctx *c, int i) {
  climb_step local[256], *path = local;
  size_t np = 0, cap = sizeof local / sizeof *local;
  int top = -1, cur = i;
  while (cur >= 0) {
    snode *n = &c->n[cur];
    if (n->scope != -2) { top = n->scope; break; }
    climb_step st = {cur, -1};
    if (n->type == 1 && !n->closed_inside) {
      int from_ax;
      const char *role = node_role(c, n, &from_ax);
      const char *stable;
      int kind = scope_kind_of(c, cur, role, node_visible(c, n) || n->layout < 0, &stable);
      if (kind >= 0) st.made = make_scope(c, cur, kind, stable, role);
    }
    int next = n->parent;
    climb_step docst = {-1, -1};
    if (next < 0 && st.made < 0) {
      /* the top of a document: into its scope, and on into the frame's owner */
      int created;
      top = doc_scope_get(c, n->doc, &created);
      if (created) {
        docst.made = top;
        top = -1;
        if (n->doc > 0) next = c->d[n->doc].owner;
      }
    }
    for (int k = 0; k < 2; k++) {
      if (k && docst.made < 0) break;
      if (np == cap) {
        cap *= 2;
        climb_step *grown = crawl__xmalloc(cap * sizeof *grown);
        memcpy(grown, path, np * sizeof *path);
        if (path != local) free(path);
        path = grown;
      }
      path[np++] = k ? docst : st;
    }
    cur = next;
  }
  for (size_t k = np; k-- > 0;) {
    if (path[k].made >= 0) {
      c->g->scopes[path[k].made].parent = top;
      top = path[k].made;
    }
    if (path[k].node >= 0) c->n[path[k].node].scope = top;
  }
  if (path != local) free(path);
  return top;
}

/* ---- sensitive fields, also the ones that were ------------------------------ */
static int form_owner(ctx *c, int i);

/* The key of field i that survives a reload (pg_sensitive_field.key) into
 * buf (cut to cap, the same way every time); 0 when it has neither id nor
 * name. */
static int field_key(ctx *c, int i, char *buf, size_t cap) {
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
static void known_build(ctx *c) {
  const pg_input *in = c->in;
  for (size_t k = 0; in->known_sensitive_nodes && k < in->nknown_sensitive_nodes; k++)
    if (in->known_sensitive_nodes[k]) crawl__intmap_put(&c->known_nodes, in->known_sensitive_nodes[k], 0);
  for (size_t k = 0; in->known_sensitive_keys && k < in->nknown_sensitive_keys; k++)
    if (in->known_sensitive_keys[k]) crawl__strmap_put(&c->known_keys, in->known_sensitive_keys[k], 0);
}

/* 1: field i was sensitive in an earlier capture. */
static int known_sensitive(ctx *c, int i) {
  const snode *n = &c->n[i];
  if (!is_field(n)) return 0;
  if (n->backend && crawl__intmap_get(&c->known_nodes, n->backend) >= 0) return 1;
  char key[1024];
  return c->known_keys.n && field_key(c, i, key, sizeof key) && crawl__strmap_get(&c->known_keys, key) >= 0;
}

/* ---- elements --------------------------------------------------------------- */
static int attrs_sensitive(ctx *c, const snode *n) {
  return pg_attrs_sensitive(attr(c, n, "type"), attr(c, n, "data-uiap-sensitive"), attr(c, n, "autocomplete"));
}

static int is_sensitive(ctx *c, int i) { return attrs_sensitive(c, &c->n[i]) || known_sensitive(c, i); }

/* The form node i submits (HTML "form owner"): with a form attribute the
 * <form> of that id in its document, or none; else the nearest <form>
 * around it. -1: none. */
static int form_owner(ctx *c, int i) {
  const char *id = attr(c, &c->n[i], "form");
  if (id) {
    if (!*id) return -1;
    idmap_build(c);
    int k = idmap_get(&c->ids, c->n[i].doc, id);
    return k >= 0 && !strcasecmp(c->n[k].tag, "FORM") ? k : -1;
  }
  for (int k = c->n[i].parent; k >= 0; k = c->n[k].parent)
    if (!strcasecmp(c->n[k].tag, "FORM")) return k;
  return -1;
}

/* The effective submission of submit control i: formmethod / formaction
 * override the owner form's method / action (HTML form submission). */
static void submit_facts(ctx *c, int i, pg_element *e) {
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
static int other_window(const char *t) {
  return t && *t && strcasecmp(t, "_self") && strcasecmp(t, "_parent") && strcasecmp(t, "_top");
}

static int in_form(ctx *c, const snode *n) {
  if (attr(c, n, "form")) return 1;
  for (int k = n->parent; k >= 0; k = c->n[k].parent)
    if (!strcasecmp(c->n[k].tag, "FORM")) return 1;
  return 0;
}

static int is_submit_button(ctx *c, const snode *n) {
  const char *type = attr(c, n, "type");
  if (!in_form(c, n)) return 0;
  if (!strcasecmp(n->tag, "BUTTON")) return !type || !strcasecmp(type, "submit");
  if (!strcasecmp(n->tag, "INPUT")) return type && (!strcasecmp(type, "submit") || !strcasecmp(type, "image"));
  return 0;
}

static pg_element *add_element(ctx *c) {
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
static char *context_text(ctx *c, int i) {
  int steps = 0;
  for (int k = c->n[i].parent; k >= 0 && steps < 12; k = c->n[k].parent, steps++) {
    const snode *p = &c->n[k];
    if (p->closed_inside) break;
    const char *role = p->ax ? ax_str(p->ax, "role") : NULL;
    if (role && (!strcmp(role, "dialog") || !strcmp(role, "alertdialog") || !strcmp(role, "menu") ||
                 !strcmp(role, "form") || !strcmp(role, "region"))) {
      const char *nm = node_name(c, k); /* closed-shadow and sensitive sources left out */
      if (nm && *nm) return clean(c, nm, 256);
    }
    int seen = 0;
    for (int s = p->first_child; s >= 0 && seen < 64; s = c->n[s].next_sibling, seen++) {
      const snode *h = &c->n[s];
      if (h->type == 1 && h->tag[0] == 'H' && h->tag[1] >= '1' && h->tag[1] <= '6' && !h->tag[2]) {
        char buf[512];
        size_t len = 0;
        buf[0] = 0;
        light_text(c, s, buf, sizeof buf, &len, 0);
        if (len) return clean(c, buf, 256);
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
  if (pg__role_container(node_role(c, &c->n[n->parent], &from_ax), &pk) && !strcmp(pk.kind, "collection"))
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
  const char *stable, *role = node_role(c, n, &from_ax);
  pg__ckind ck = {NULL, 0};
  int sk = scope_kind_of(c, k, role, 1, &stable);
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
static const char *container_kind(ctx *c, int i) {
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
    light_text(c, k, buf, sizeof buf, &len, 0);
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
static void icon_facts(ctx *c, int i, pg_element *e) {
  if (c->n[i].sens_inside) return;
  icon_acc acc = {.budget = 32};
  icon_visit(c, i, 0, &acc);
  e->icon_classes = acc.len ? pg__strdup(c->a, acc.cls) : NULL;
  e->icon_text = acc.lig[0] ? pg__strdup(c->a, acc.lig) : NULL;
}

/* An icon-only control whose name is only icon-font glyphs (private-use
 * code points): its title, else its description (a tooltip), else --
 * marked inferred -- what its icon classes name (fa-search: "Search"). */
static void icon_name(ctx *c, int i, pg_element *e) {
  if (!pg__text_is_glyphs(e->name)) return;
  const char *title = attr(c, &c->n[i], "title");
  char *better = title && !pg__text_is_glyphs(title) ? clean(c, title, NAME_MAX_BYTES) : NULL;
  if (!better && e->description && !pg__text_is_glyphs(e->description)) better = e->description;
  if (!better && !e->sensitive && pg__icon_class_name(e->icon_classes)) {
    better = pg__strdup(c->a, pg__icon_class_name(e->icon_classes));
    e->sources |= 1u << PG_SRC_INFERRED;
  }
  e->name = better; /* a glyph names nothing a user reads */
  e->sources &= ~(1u << PG_SRC_TEXT);
  if (e->name && e->description && !strcmp(e->name, e->description)) e->description = NULL;
}

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
 * are the tag's); a generic element a click listener makes activatable is a
 * heuristic's call: inferred. */
static uint32_t role_sources(ctx *c, const snode *n, const char *role) {
  uint32_t src = 0;
  const char *ur = attr(c, n, "data-uiap-role");
  const char *native = pg__role_from_tag(n->tag, attr(c, n, "type"), attr(c, n, "href") != NULL);
  int aria = aria_decided(c, n, role);
  if (!aria && ur && !strcasecmp(ur, role) && strcmp(role, "generic") && (!native || strcmp(native, role)))
    return 1u << PG_SRC_ANNOTATION; /* the app's data-uiap-role decided (annotated_role) */
  if (aria) src |= 1u << PG_SRC_ARIA;
  if (!aria || native_control(n)) src |= 1u << PG_SRC_NATIVE;
  if (!strcmp(role, "generic") && n->clickable) src |= 1u << PG_SRC_INFERRED;
  return src;
}

/* why a node is published besides section 8 (wanted) */
enum { WANT_RULE = 1, WANT_HOST = 2, WANT_ENDPOINT = 4, WANT_SELECTION = 8 };

/* An element data-uiap-role made a widget is named from its contents, as
 * the role would have it (accname 2F), and the browser did not (it saw a
 * generic element): light_text, which skips closed shadow roots and
 * sensitive content, then title. */
static char *annotated_name(ctx *c, int i) {
  char buf[2048];
  size_t len = 0;
  buf[0] = 0;
  if (!c->n[i].sens_inside) light_text(c, i, buf, sizeof buf, &len, 0);
  if (len) return clean(c, buf, NAME_MAX_BYTES);
  return clean(c, attr(c, &c->n[i], "title"), NAME_MAX_BYTES);
}

static int click_proxy(ctx *c, int i);

/* Copies what the markup states: ids, role, name, description, the
 * data-uiap-* annotations, tag, input type, ARIA role and href. */
static void element_identity(ctx *c, int i, pg_element *e, const char *role, const pg__role_info *ri) {
  snode *n = &c->n[i];
  /* backendNodeIds are unique within a renderer process: every document of
   * the snapshot shares one */
  e->instance_id = node_id(c, i, "el");
  e->document = c->d[n->doc].published;
  e->role = pg__strdup(c->a, role);
  e->name = node_name(c, i);
  e->description = node_description(c, i);
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
    const cJSON *u = ax_prop(n->ax, "url");
    e->href = pg__strdup(c->a, cJSON_IsString(u) ? u->valuestring : href);
  } else if (href) {
    e->href = pg__strdup(c->a, href);
  }
}

/* Copies the facts the safety policy reads: submission, download, target,
 * autocomplete, sensitivity, nearby text and the debugging hint. */
static void element_policy_facts(ctx *c, int i, pg_element *e) {
  snode *n = &c->n[i];
  e->is_submit = is_submit_button(c, n);
  if (e->is_submit) submit_facts(c, i, e);
  e->has_download = attr(c, n, "download") != NULL;
  e->opens_window = other_window(attr(c, n, "target"));
  e->autocomplete = pg__strdup(c->a, attr(c, n, "autocomplete"));
  e->sensitive = n->sens_inside;
  e->context = context_text(c, i);
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
  else if (ri && ((ri->flags & PG__R_CHOOSER) || (ri->flags & PG__R_EDITABLE)) && n->ax && !closed_host(c, i))
    val = ax_str(n->ax, "value"); /* (a closed host's value would be its inside's) */
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
    else e->text_value = clean(c, val, VALUE_MAX_BYTES);
  } else if (e->sensitive) {
    e->redacted = 0;
  }
  int field = !strcasecmp(n->tag, "INPUT") || !strcasecmp(n->tag, "TEXTAREA") || !strcasecmp(n->tag, "SELECT") ||
              (ri && (ri->flags & (PG__R_CHOOSER | PG__R_EDITABLE | PG__R_RANGE)));
  if (!e->text_value && !field && !e->name && ((ri && (ri->flags & PG__R_STATUS)) || (why & WANT_ENDPOINT))) {
    char buf[2048];
    size_t len = 0;
    buf[0] = 0;
    light_text(c, i, buf, sizeof buf, &len, 0);
    char *t = clean(c, buf, VALUE_MAX_BYTES);
    if (t && e->sensitive) redact_value(c, e);
    else e->text_value = t;
  }
}

/* Sets the geometry: its own box, or the one a click goes to. */
static void element_geometry(ctx *c, int i, pg_element *e, int visible) {
  int proxy = click_proxy(c, i);
  const snode *box = proxy >= 0 ? &c->n[proxy] : &c->n[i];
  if (proxy >= 0) e->click_backend_node_id = box->backend;
  if (box->layout >= 0) {
    e->bbox = node_rect(c, box);
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
    const char *qr = q->ax ? ax_str(q->ax, "role") : attr(c, q, "role");
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
    const char *qr = q->ax ? ax_str(q->ax, "role") : attr(c, q, "role");
    if ((lv && strcmp(lv, "off")) || role_in(qr, live_roles, sizeof live_roles / sizeof *live_roles)) return 1;
  }
  return 0;
}

/* Sets what its surroundings say: its shadow host, popup and controls
 * facts, container kind and role, icons, and live region. */
static void element_context(ctx *c, int i, pg_element *e) {
  const snode *n = &c->n[i];
  /* the nearest published open host (a wrapper host may be left out) */
  for (int h = n->shadow == 1 ? n->shadow_host : -1; h >= 0 && !c->n[h].closed_inside;
       h = c->n[h].shadow == 1 ? c->n[h].shadow_host : -1)
    if (c->n[h].elem >= 0) {
      e->shadow_host_id = node_id(c, h, "el");
      break;
    }
  const char *hp = attr(c, n, "aria-haspopup");
  e->aria_haspopup = hp && strcmp(hp, "false") ? pg__strdup(c->a, hp) : NULL;
  e->has_aria_controls = attr(c, n, "aria-controls") != NULL;
  e->container_kind = n->parent >= 0 ? container_kind(c, n->parent) : NULL;
  icon_facts(c, i, e);
  icon_name(c, i, e);
  const char *qr = composite_above(c, i);
  if (qr) e->container_role = pg__strdup(c->a, qr);
  if (in_live_region(c, i)) e->live = 1;
}

/* Publishes node i as an element with the given role: its facts, state,
 * value, geometry, surroundings and actions. */
static void make_element(ctx *c, int i, const char *role, int visible, int from_ax, int why) {
  snode *n = &c->n[i];
  const pg__role_info *ri = pg__role_lookup(role);
  pg_element *e = add_element(c);
  e->selection_only = why == WANT_SELECTION;
  n->elem = (int)(c->g->nelements - 1);
  e->backend_node_id = n->backend;
  element_identity(c, i, e, role, ri);
  element_policy_facts(c, i, e);
  node_state(c, n, ri, &e->state, visible);
  /* AX "focused" is only set on the focused node; trust the page's answer */
  if (c->in->focused_backend_node_id && n->backend == c->in->focused_backend_node_id && n->frame_doc < 0)
    pg_state_set(&e->state, PG_ST_FOCUSED, 1);
  element_sources(c, i, e, role, ri);
  element_value(c, i, e, ri, why);
  element_geometry(c, i, e, visible);
  e->attached = 1;
  element_context(c, i, e);
  derive_actions(c, n, e, ri); /* invoke for an app action, unless disabled */
  e->interactable = visible && pg_state_is(&e->state, PG_ST_ENABLED) && e->actions != 0;
}

/* Obscured: another box painted later covers the element's centre and is not
 * inside it (a uniform grid of the viewport keeps this near-linear). */
typedef struct { pg_rect r; int paint, node, doc; } hitbox;
#define CELL 64.0

static void compute_obscured(ctx *c) {
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
    if (n->type != 1 || n->layout < 0 || !node_visible(c, n)) continue;
    const sdoc *d = &c->d[n->doc];
    const char *pe = d->styles[n->layout][3];
    if (!strcmp(pe, "none")) continue;
    pg_rect r = node_rect(c, n);
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

static int idmap_get(const crawl__strmap *m, int doc, const char *v) {
  char buf[256], *key = idmap_key(doc, v, buf, sizeof buf);
  long k = crawl__strmap_get(m, key);
  if (key != buf) free(key);
  return (int)k;
}

static void idmap_build(ctx *c) {
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
  idmap_build(c);
  int k = idmap_get(&c->ids, doc, id);
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
  const char *r = n->ax ? ax_str(n->ax, "role") : attr(c, n, "role");
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

static void build_relations(ctx *c) {
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
      int refs[16], nrefs = idrefs(c, i, "aria-controls", refs, 16);
      for (int r = 0; r < nrefs; r++) {
        int sc = c->n[refs[r]].scope;
        if (sc >= 0 && g->scopes[sc].node == refs[r] && g->scopes[sc].kind == PG_SCOPE_DRAWER)
          add_relation(c, "opens", e->instance_id, g->scopes[sc].scope_id);
      }
    }
    /* a visible error text that describes an invalid field */
    if (pg_state_is(&e->state, PG_ST_INVALID)) {
      int refs[16], nrefs = idrefs(c, i, "aria-describedby", refs, 16);
      for (int r = 0; r < nrefs; r++) {
        const char *other = self_id(c, refs[r]);
        if (other && looks_like_error(c, refs[r]) && node_visible(c, &c->n[refs[r]]))
          add_relation(c, "error-for", other, e->instance_id);
      }
    }
    /* label[for], and the label around a field */
    int labels[4], nlabels = 0;
    const char *dom_id = attr(c, n, "id");
    if (dom_id && *dom_id) {
      idmap_build(c);
      int k = idmap_get(&c->fors, n->doc, dom_id);
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

/* ---- selection of elements -------------------------------------------------- */
/* ---- visually hidden native inputs ------------------------------------ */
/* Design-system switches, checkboxes and radios keep the real <input>
 * clipped, 1 px or at opacity 0 behind a styled label or host; the user
 * clicks that. A box smaller than this is "visually hidden". */
#define PROXY_MIN_PX 4.0

static int box_usable(ctx *c, const snode *n) {
  if (n->layout < 0 || !node_visible(c, n)) return 0;
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
static int click_proxy(ctx *c, int i) {
  const snode *n = &c->n[i];
  if (!is_toggle_input(c, n) || n->layout < 0 || !n->ax || ax_ignored(n->ax) || box_usable(c, n)) return -1;
  int refs[4], nrefs = native_labels(c, i, refs, 4);
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
  if (n->clickable || closed_host(c, i)) return 0;
  for (size_t k = 0; k < sizeof keep_attrs / sizeof *keep_attrs; k++)
    if (attr(c, n, keep_attrs[k])) return 0;
  for (size_t k = 0; n->ax && k < sizeof ax_bool_states / sizeof *ax_bool_states; k++)
    if (cJSON_IsTrue(ax_prop(n->ax, ax_bool_states[k].prop))) return 0;
  const char *name = n->ax ? ax_str(n->ax, "name") : NULL;
  return !name || !*name;
}

/* wrapper_noise for a shadow host, whatever its role. */
static int host_noise(ctx *c, int h) {
  int from_ax;
  const char *role = node_role(c, &c->n[h], &from_ax);
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
  const char *role = node_role(c, n, from_ax);
  int focused = c->in->focused_backend_node_id && n->backend == c->in->focused_backend_node_id &&
                n->frame_doc < 0; /* focus inside a frame belongs to the frame */
  if (!role || ((!strcmp(role, "none") || !strcmp(role, "presentation")) && !c->opt->include_non_interactive)) {
    /* decorative: only when everything non-text is asked for */
    if (!focused) return 0;
    role = "generic";
  }
  const pg__role_info *ri = pg__role_lookup(role);
  int visible = node_visible(c, n) || click_proxy(c, i) >= 0;
  *role_out = role;
  *visible_out = visible;
  if (focused) return 1;
  unsigned f = ri ? ri->flags : 0;
  int interesting = (f & (PG__R_INTERACTIVE | PG__R_STATUS)) != 0;
  if (closed_host(c, i)) interesting = 1; /* the boundary itself is published */
  if (!interesting && n->clickable && !strcmp(role, "generic") && strcasecmp(n->tag, "LABEL") &&
      strcasecmp(n->tag, "HTML") && strcasecmp(n->tag, "BODY")) {
    /* a clickable div: keep it when it looks like a control (tabindex or
     * cursor) -- here: tabindex, or a click listener on a leaf-ish node */
    interesting = attr(c, n, "tabindex") != NULL || n->first_child < 0 || c->n[n->first_child].next_sibling < 0;
  }
  if (!interesting && attr(c, n, "aria-live") && strcmp(attr(c, n, "aria-live"), "off")) interesting = 1;
  if (c->opt->include_non_interactive && !(f & PG__R_TEXT)) interesting = 1;
  if (!interesting || wrapper_noise(c, i, role)) return 0;
  if (!visible && !c->opt->include_hidden) {
    /* invalid fields of the current flow stay, even when scrolled away or hidden */
    const char *inv = attr(c, n, "aria-invalid");
    const cJSON *axinv = n->ax ? ax_prop(n->ax, "invalid") : NULL;
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
      const char *role = why[k] ? NULL : node_role(c, q, &from_ax);
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
static void select_elements(ctx *c) {
  size_t nn = c->nn;
  size_t m = nn ? nn : 1;
  const char **roles = crawl__xmalloc(m * sizeof *roles);
  unsigned char *why = crawl__xmalloc(m);
  int *vis = crawl__xmalloc(m * sizeof *vis), *fax = crawl__xmalloc(m * sizeof *fax);
  memset(why, 0, m);
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
      int refs[16], nrefs = idrefs(c, (int)i, pointers[a], refs, 16);
      for (int r = 0; r < nrefs; r++) {
        const snode *t = &c->n[refs[r]];
        if (t->type != 1 || t->closed_inside || t->hide_inside || why[refs[r]]) continue;
        if (!node_visible(c, t) && !c->opt->include_hidden) continue;
        why[refs[r]] = WANT_ENDPOINT;
      }
    }
  }
  selection_ends(c, why);
  for (size_t i = 0; i < nn; i++) {
    if (!why[i]) continue;
    const char *role = roles[i];
    int from_ax = fax[i];
    if (!role) role = node_role(c, &c->n[i], &from_ax);
    if (!role || (!(why[i] & WANT_RULE) && (!strcmp(role, "none") || !strcmp(role, "presentation"))))
      role = "generic"; /* a host or a text a field points at */
    c->n[i].why = why[i];
    make_element(c, (int)i, role, why[i] & WANT_RULE ? vis[i] : node_visible(c, &c->n[i]), from_ax, why[i]);
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
static void mark_inert(ctx *c) {
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

static void apply_max_nodes(ctx *c) {
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

static void prune_scopes(ctx *c) {
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
static void apply_filters(ctx *c) {
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

static void scrub_sensitive(ctx *c) {
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
        add_secret(c, &cap, clean(c, buf, 500));
      }
    } else if (nd->type == 3 && nd->hide_inside) {
      /* a sensitive textarea's or editable's text */
      add_secret(c, &cap, clean(c, nd->value, VALUE_MAX_BYTES));
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

/* ---- the route (web profile 5.4) ------------------------------------------ */

/* The page's own name for its route: data-uiap-route on the first rendered
 * element of the top document that has one (a closed shadow tree is not
 * read), NULL when none does. */
static char *route_annotation(ctx *c) {
  for (size_t i = 0; i < c->nn; i++) {
    const snode *n = &c->n[i];
    if (n->doc != 0 || n->type != 1 || n->closed_inside || n->layout < 0 || (n->vis_hidden & 1)) continue;
    char *r = clean(c, attr(c, n, "data-uiap-route"), NAME_MAX_BYTES);
    if (r) return r;
  }
  return NULL;
}

static void kv_push(ctx *c, pg_kv **v, size_t *n, const char *key, size_t kl, const char *val, size_t vl) {
  *v = crawl__xrealloc(*v, (*n + 1) * sizeof **v);
  (*v)[(*n)++] = (pg_kv){pg__strndup(c->a, key, kl), pg__strndup(c->a, val, vl)};
}

/* RouteContext.query: the pairs of the route key's query (s: after "?"). */
static void route_query(ctx *c, const char *s, size_t n) {
  pg_graph *g = c->g;
  for (const char *p = s, *end = s + n; p < end;) {
    const char *amp = memchr(p, '&', (size_t)(end - p)), *e = amp ? amp : end;
    const char *eq = memchr(p, '=', (size_t)(e - p));
    if (e > p) kv_push(c, &g->route_query, &g->nroute_query, p, (size_t)((eq ? eq : e) - p), eq ? eq + 1 : e,
                       eq ? (size_t)(e - eq - 1) : 0);
    p = e + 1;
  }
}

/* routeId, params and query of the page at url: the route key relative to
 * its own origin, its template (pg_route_template) and what that took out;
 * the page's data-uiap-route, else its router's route, wins for the routeId. */
static void route_context(ctx *c, const char *url) {
  pg_graph *g = c->g;
  char origin[PG_URL_MAX + 1];
  char *key = url ? pg_route_key_rel(url, pg_url_origin(url, origin, sizeof origin) > 0 ? origin : NULL) : NULL;
  pg_route_param *p = NULL;
  size_t np = 0;
  char *tpl = key ? pg_route_template(key, &p, &np) : NULL;
  for (size_t i = 0; i < np; i++)
    kv_push(c, &g->route_params, &g->nroute_params, p[i].name, strlen(p[i].name), p[i].value, strlen(p[i].value));
  pg_route_params_free(p, np);
  const char *q = key ? strchr(key, '?') : NULL;
  if (q && (!strchr(key, '#') || q < strchr(key, '#'))) route_query(c, q + 1, strcspn(q + 1, "#"));
  char *annot = route_annotation(c), *router = clean(c, get_str(c->in->page, "router"), NAME_MAX_BYTES);
  g->route_template = pg__strdup(c->a, tpl);
  g->route_id = annot ? annot : router ? router : g->route_template;
  g->route_source = annot ? PG_ROUTE_ANNOTATION : router ? PG_ROUTE_ROUTER : PG_ROUTE_URL;
  free(tpl);
  free(key);
}

/* The fields that were sensitive (pg_graph.sensitive_fields), for the
 * caller to remember. */
static void list_sensitive_fields(ctx *c) {
  pg_graph *g = c->g;
  size_t cap = 0;
  for (size_t i = 0; i < c->nn; i++) {
    const snode *n = &c->n[i];
    if (!n->sens_inside || !is_field(n) || c->d[n->doc].published < 0) continue;
    if (g->nsensitive_fields == cap) {
      cap = cap ? cap * 2 : 16;
      g->sensitive_fields = crawl__xrealloc(g->sensitive_fields, cap * sizeof *g->sensitive_fields);
    }
    char key[1024];
    const snode *p = n->parent >= 0 ? &c->n[n->parent] : NULL;
    g->sensitive_fields[g->nsensitive_fields++] = (pg_sensitive_field){
      .backend_node_id = n->backend,
      .key = field_key(c, (int)i, key, sizeof key) ? pg__strdup(c->a, key) : NULL,
      .revealed = n->sens_self && !attrs_sensitive(c, n) && !(p && p->sens_inside)};
  }
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
  return closed_host(c, i);
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
    r = rect_and(r, node_rect(c, o));
    dj = o->doc;
  }
  return r;
}

static void collect_masks(ctx *c) {
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
  light_text(c, i, buf, sizeof buf, &len, 0);
  return clean(c, buf, NAME_MAX_BYTES);
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
    if (is_field(n)) {
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

static void redact_pii(ctx *c) {
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

/* Reads the viewport from the page facts (defaults: 1280x800, the root
 * document's scroll, dpr 1). */
static void read_viewport(ctx *c) {
  pg_graph *g = c->g;
  const cJSON *page = c->in->page;
  const cJSON *v;
  g->vp_width = (v = get(page, "vw")) && cJSON_IsNumber(v) ? v->valuedouble : 1280;
  g->vp_height = (v = get(page, "vh")) && cJSON_IsNumber(v) ? v->valuedouble : 800;
  g->vp_scroll_x = (v = get(page, "sx")) && cJSON_IsNumber(v) ? v->valuedouble : c->d[0].scroll_x;
  g->vp_scroll_y = (v = get(page, "sy")) && cJSON_IsNumber(v) ? v->valuedouble : c->d[0].scroll_y;
  g->vp_dpr = (v = get(page, "dpr")) && cJSON_IsNumber(v) ? v->valuedouble : 1;
}

/* Sets the route: URL, title, pathname and its context. */
static void read_route(ctx *c) {
  pg_graph *g = c->g;
  const cJSON *page = c->in->page;
  const char *url = get_str(page, "url") ? get_str(page, "url") : c->d[0].url;
  g->route_url = pg__strdup(c->a, url);
  g->route_title = clean(c, get_str(page, "title") ? get_str(page, "title") : c->d[0].title, NAME_MAX_BYTES);
  if (url) {
    const char *rest = pg_url_rest(url);
    g->route_pathname = *rest == '/' ? pg__strndup(c->a, rest, strcspn(rest, "?#")) : pg__strdup(c->a, "/");
  }
  route_context(c, url);
}

/* Sets the innermost scope of each element. */
static void assign_scopes(ctx *c) {
  pg_graph *g = c->g;
  for (size_t e = 0; e < g->nelements; e++) {
    int ni = hget(c, g->elements[e].backend_node_id);
    g->elements[e].scope = ni >= 0 && c->n[ni].parent >= 0 ? scope_of(c, c->n[ni].parent)
                           : ni >= 0 ? doc_scope(c, c->n[ni].doc) : -1;
  }
}

/* Adds the scopes that appear even when empty: open dialogs, popovers,
 * drawers and annotated scopes (all kinds with include_non_interactive). */
static void add_standing_scopes(ctx *c) {
  for (size_t i = 0; i < c->nn; i++) {
    const snode *n = &c->n[i];
    if (n->type != 1 || n->closed_inside || c->d[n->doc].published < 0 || n->scope != -2) continue;
    if (c->d[n->doc].access == PG_ACCESS_OPAQUE) continue;
    if (!node_visible(c, n) && !c->opt->include_hidden) continue;
    int from_ax;
    const char *role = node_role(c, n, &from_ax);
    const char *stable;
    int kind = scope_kind_of(c, (int)i, role, 1, &stable);
    if (kind == PG_SCOPE_DIALOG || kind == PG_SCOPE_POPOVER || kind == PG_SCOPE_DRAWER || kind == PG_SCOPE_CUSTOM ||
        (kind >= 0 && c->opt->include_non_interactive))
      scope_of(c, (int)i);
  }
}

/* Sets the focused element, or the document that holds the focus. */
static void find_focus(ctx *c) {
  pg_graph *g = c->g;
  if (!c->in->focused_backend_node_id) return;
  int ni = hget(c, c->in->focused_backend_node_id);
  if (ni >= 0 && c->n[ni].frame_doc >= 0) {
    /* focus is inside a frame the page cannot look into (opaque, bridged
     * or out-of-process): that document, no target */
    g->focus_document = c->n[ni].frame_doc;
  } else if (ni >= 0 && c->n[ni].elem >= 0) {
    g->focus_element = c->n[ni].elem;
    g->focus_document = g->elements[c->n[ni].elem].document;
  } else if (ni >= 0 && c->d[c->n[ni].doc].published >= 0) {
    g->focus_document = c->d[c->n[ni].doc].published;
  }
}

/* Collects the visible main headings (h1, h2 of the root document; at
 * most 16): part of a state's identity. */
static void collect_headings(ctx *c) {
  pg_graph *g = c->g;
  for (size_t i = 0; i < c->nn && g->nheadings < 16; i++) {
    const snode *n = &c->n[i];
    if (n->type != 1 || n->doc != 0 || n->closed_inside || n->tag[0] != 'H' || (n->tag[1] != '1' && n->tag[1] != '2') || n->tag[2])
      continue;
    if (!node_visible(c, n)) continue;
    char buf[512];
    size_t len = 0;
    buf[0] = 0;
    light_text(c, (int)i, buf, sizeof buf, &len, 0);
    char *t = clean(c, buf, 200);
    if (!t) continue;
    if (!g->headings) g->headings = pg__alloc(c->a, 16 * sizeof *g->headings);
    g->headings[g->nheadings++] = t;
  }
}

/* Sets the selection: its ends' elements, if they survived the filters, and
 * its text unless an end lies where nothing may be read. */
static void read_selection(ctx *c) {
  pg_graph *g = c->g;
  g->selection_anchor = c->sel_node[0] >= 0 ? c->n[c->sel_node[0]].elem : -1;
  g->selection_focus = c->sel_node[1] >= 0 ? c->n[c->sel_node[1]].elem : -1;
  const char *sel = get_str(c->in->page, "selection");
  g->selection_text = c->sel_drop ? NULL : clean(c, sel, 1000);
}

/* Counts the closed shadow hosts in published, readable documents. */
static void count_closed_hosts(ctx *c) {
  for (size_t i = 0; i < c->nn; i++) {
    const snode *n = &c->n[i];
    if (n->type == 1 && !n->closed_inside && c->d[n->doc].published >= 0 &&
        c->d[n->doc].access != PG_ACCESS_OPAQUE && closed_host(c, (int)i))
      c->g->closed_shadow_hosts++;
  }
}

/* Builds the graph's backendNodeId -> parent map for hit tests. */
static void build_parent_map(ctx *c) {
  pg_graph *g = c->g;
  crawl__intmap_reserve(&g->parent_of, c->nn + 1); /* never empty: pg_graph_contains knows it was built */
  for (size_t i = 0; i < c->nn; i++)
    if (c->n[i].backend)
      crawl__intmap_put(&g->parent_of, c->n[i].backend, c->n[i].parent >= 0 ? c->n[c->n[i].parent].backend : 0);
}

/* Frees the build's working memory (not the graph). */
static void ctx_release(ctx *c) {
  for (size_t dj = 0; dj < c->nd; dj++) {
    free(c->d[dj].styles);
    free(c->d[dj].bounds);
    free(c->d[dj].client);
    free(c->d[dj].paint);
  }
  free(c->d);
  free(c->n);
  crawl__intmap_release(&c->backend);
  crawl__strmap_release(&c->ids);
  crawl__strmap_release(&c->fors);
  crawl__intmap_release(&c->known_nodes);
  crawl__strmap_release(&c->known_keys);
  free(c->controlled);
}

/* The build's steps after indexing, in order: documents, route, elements,
 * scopes, relations, page facts, then redaction. */
static void build_graph(ctx *c) {
  pg_graph *g = c->g;
  read_viewport(c);
  g->revision = pg__printf(c->a, "rev_%llu", c->opt->revision ? c->opt->revision : pg_next_revision());
  g->root_document_id = pg__strdup(c->a, "doc_root");
  propagate(c);
  build_documents(c);
  join_ax(c);
  read_route(c);
  doc_scope(c, 0);

  select_elements(c);
  compute_obscured(c);
  assign_scopes(c);
  apply_filters(c);
  apply_max_nodes(c);
  add_standing_scopes(c);
  for (size_t dj = 1; dj < c->nd; dj++) doc_scope(c, (int)dj);
  prune_scopes(c);
  mark_inert(c);
  build_relations(c);
  find_focus(c);
  collect_headings(c);
  read_selection(c);
  count_closed_hosts(c);
  scrub_sensitive(c);
  list_sensitive_fields(c);
  collect_masks(c);
  if (c->opt->redact_pii) redact_pii(c);
  build_parent_map(c);
}

pg_code pg_build(const pg_input *in, const pg_options *opts, pg_graph **out) {
  static const pg_options zero;
  *out = NULL;
  if (!in || !in->snapshot) return PG_INPUT;
  ctx c = {0};
  c.in = in;
  c.opt = opts ? opts : &zero;
  c.a = pg__arena_new();
  c.g = crawl__xcalloc(1, sizeof *c.g);
  if (!c.g) return PG_NOMEM;
  c.g->arena = c.a;
  c.g->focus_document = -1;
  c.g->focus_element = -1;
  c.g->selection_anchor = c.g->selection_focus = -1;
  c.sel_node[0] = c.sel_node[1] = -1;
  pg_code rc = PG_OK;
  if (index_snapshot(&c) < 0) rc = c.nd ? PG_INPUT : PG_EMPTY;
  else build_graph(&c);
  ctx_release(&c);
  if (rc != PG_OK) {
    pg_graph_free(c.g);
    return rc;
  }
  *out = c.g;
  return PG_OK;
}

int pg_graph_contains(const pg_graph *g, int ancestor, int node) {
  if (!g->parent_of.cap) return ancestor == node;
  for (int k = node, steps = 0; k && steps < 10000; steps++) {
    if (k == ancestor) return 1;
    long parent = crawl__intmap_get(&g->parent_of, k);
    if (parent < 0) return 0;
    k = (int)parent;
  }
  return 0;
}

void pg_graph_free(pg_graph *g) {
  if (!g) return;
  crawl__intmap_release(&g->parent_of);
  free(g->documents);
  free(g->scopes);
  free(g->elements);
  free(g->relations);
  free(g->route_params);
  free(g->route_query);
  free(g->masks);
  free(g->sensitive_fields);
  free(g->secrets);
  free(g->pii_values);
  free(g->pii_kinds);
  cJSON_Delete(g->ax_nodes);
  free(g->ax_of);
  pg__arena_free(g->arena);
  free(g);
}

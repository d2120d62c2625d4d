/* build_index.c -- pg_build's first step: the flat DOMSnapshot indexed into
 * the build's node and document arrays (ctx.n, ctx.d: every in-process
 * document, shadow trees flattened, bridged subframes appended with their
 * node ids offset), the backendNodeId map, the layout copies, and what
 * propagates down the tree (closed shadow, sensitivity, visibility). Also
 * the node-level helpers every step uses: node_visible, node_rect, node_id.
 * Not here: which documents are published (build_docs.c), elements. */
#include "build_int.h"

/* ---- the indexed snapshot ---------------------------------------------- */

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
char *pg__origin_of(pg__arena *a, const char *url) {
  if (!url) return NULL;
  char o[PG_URL_MAX + 1];
  return pg__strdup(a, pg_url_origin(url, o, sizeof o) < 0 ? "null" : o);
}

/* 1 when url's scheme is name (lower case), as browsers read it. */
int pg__has_scheme(const char *url, const char *name) {
  char s[16];
  return pg_url_scheme(url, s, sizeof s) > 0 && !strcmp(s, name);
}


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
int pg__index_snapshot(ctx *c) {
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


/* Form controls: the elements whose value, not their content, is
 * what a sensitivity withholds; what a field memory (pg_input.known_sensitive_*)
 * applies to. */
int pg__is_field(const snode *n) {
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
void pg__propagate(ctx *c) {
  pg__known_build(c);
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
      n->sens_self = pg__is_sensitive(c, (int)i);
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

int pg__node_visible(ctx *c, const snode *n) {
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

pg_rect pg__node_rect(ctx *c, const snode *n) {
  const sdoc *d = &c->d[n->doc];
  pg_rect b = d->bounds[n->layout];
  b.x += d->ox;
  b.y += d->oy;
  return b;
}

/* Published id of node i: <kind>_<backendNodeId>, or for a node of a bridged
 * out-of-process frame <kind>_<frame id prefix>_<its own backendNodeId>. */
char *pg__node_id(ctx *c, int i, const char *kind) {
  const snode *n = &c->n[i];
  const sdoc *d = &c->d[n->doc];
  if (d->id_prefix) return pg__printf(c->a, "%s_%s_%d", kind, d->id_prefix, n->backend & ((1 << SUB_ID_BITS) - 1));
  return pg__printf(c->a, "%s_%d", kind, n->backend);
}

/* build_docs.c -- the documents of a graph: bridges (a cross-origin frame
 * that consents), which documents may be published and how they are
 * placed, the AX join by backendNodeId, and the route (web profile 5.4)
 * with the list of sensitive fields the caller remembers.
 * Not here: indexing (build_index.c), elements and scopes. */
#include "build_int.h"

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

int pg__add_scope(ctx *c, pg_scope sc) {
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

/* Computed style k of a layout entry (STYLE_*, build_int.h) as CSS pixels;
 * 0 when not captured. */
static double style_px(ctx *c, const sdoc *d, int layout, int k) {
  const pg__snap_doc *sd = d->sd;
  if (k >= sd->style_stride || layout < 0 || (size_t)layout >= sd->nstyles) return 0;
  double v = atof(dstr(d, sd->styles[(size_t)layout * (size_t)sd->style_stride + (size_t)k]));
  return isfinite(v) ? v : 0;
}

/* The same as a string ("" when not captured). */
const char *pg__style_str(const sdoc *d, int layout, int k) {
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
  doc.title = pg__clean(c, get_str(page, "title") ? get_str(page, "title") : d->title, NAME_MAX_BYTES);
  doc.ready_state = pg__strdup(a, get_str(page, "readyState"));
  doc.origin = origin;
  doc.root_scope_id = pg__strdup(a, "scope_route");
  d->published = add_document(c, doc);
}

/* Decides a frame document's access (same-origin, bridged or opaque) and
 * returns its origin (an about: document's is its parent's). */
static char *frame_access(ctx *c, sdoc *d, const sdoc *pd, const pg_document *parent_doc, char *origin) {
  if (pg__has_scheme(d->url, "about")) {
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
  doc->origin = pg__origin_of(c->a, src);
  doc->url = src && *src && !pg__has_scheme(src, "data") ? pg__strdup(c->a, src) : NULL;
  if (!doc->origin || !strcmp(doc->origin, "null")) doc->origin = NULL;
  c->g->opaque_frames++;
}

/* A readable (same-origin or bridged) frame's metadata. */
static void readable_frame_facts(ctx *c, const sdoc *d, char *origin, pg_document *doc) {
  pg__arena *a = c->a;
  doc->origin = origin;
  doc->url = pg__strdup(a, d->url);
  doc->title = pg__clean(c, d->title, NAME_MAX_BYTES);
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
    doc.origin = pg__origin_of(a, src && *src ? src : NULL);
    if (doc.origin && !strcmp(doc.origin, "null")) doc.origin = NULL;
    doc.url = src && *src && !pg__has_scheme(src, "data") ? pg__strdup(a, src) : NULL;
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
void pg__build_documents(ctx *c) {
  pg__arena *a = c->a;
  link_owners(c);
  c->top_origin = pg__origin_of(a, c->d[0].url);
  for (size_t dj = 0; dj < c->nd; dj++) {
    sdoc *d = &c->d[dj];
    pg_document doc = {0};
    doc.parent = -1;
    doc.frame_id = pg__strdup(a, d->frame_id);
    char *origin = pg__origin_of(a, d->url);
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

void pg__join_ax(ctx *c) {
  for (size_t k = 0; k < c->in->nax; k++) join_ax_nodes(c, c->in->ax[k], -1);
  for (size_t k = 0; c->in->subframes && k < c->in->nsubframes && k < MAX_SUBFRAMES; k++)
    if (c->in->subframes[k].ax) join_ax_nodes(c, c->in->subframes[k].ax, (int)k);
}

const char *pg__ax_str(const cJSON *ax, const char *key) {
  const cJSON *v = get(get(ax, key), "value");
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

const cJSON *pg__ax_prop(const cJSON *ax, const char *name) {
  const cJSON *it;
  cJSON_ArrayForEach(it, get(ax, "properties")) {
    const char *n = get_str(it, "name");
    if (n && !strcmp(n, name)) return get(get(it, "value"), "value");
  }
  return NULL;
}

int pg__ax_ignored(const cJSON *ax) { return cJSON_IsTrue(get(ax, "ignored")); }

/* ---- the route (web profile 5.4) ------------------------------------------ */

/* The page's own name for its route: data-uiap-route on the first rendered
 * element of the top document that has one (a closed shadow tree is not
 * read), NULL when none does. */
static char *route_annotation(ctx *c) {
  for (size_t i = 0; i < c->nn; i++) {
    const snode *n = &c->n[i];
    if (n->doc != 0 || n->type != 1 || n->closed_inside || n->layout < 0 || (n->vis_hidden & 1)) continue;
    char *r = pg__clean(c, attr(c, n, "data-uiap-route"), NAME_MAX_BYTES);
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
void pg__route_context(ctx *c, const char *url) {
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
  char *annot = route_annotation(c), *router = pg__clean(c, get_str(c->in->page, "router"), NAME_MAX_BYTES);
  g->route_template = pg__strdup(c->a, tpl);
  g->route_id = annot ? annot : router ? router : g->route_template;
  g->route_source = annot ? PG_ROUTE_ANNOTATION : router ? PG_ROUTE_ROUTER : PG_ROUTE_URL;
  free(tpl);
  free(key);
}

/* The fields that were sensitive (pg_graph.sensitive_fields), for the
 * caller to remember. */
void pg__list_sensitive_fields(ctx *c) {
  pg_graph *g = c->g;
  size_t cap = 0;
  for (size_t i = 0; i < c->nn; i++) {
    const snode *n = &c->n[i];
    if (!n->sens_inside || !pg__is_field(n) || c->d[n->doc].published < 0) continue;
    if (g->nsensitive_fields == cap) {
      cap = cap ? cap * 2 : 16;
      g->sensitive_fields = crawl__xrealloc(g->sensitive_fields, cap * sizeof *g->sensitive_fields);
    }
    char key[1024];
    const snode *p = n->parent >= 0 ? &c->n[n->parent] : NULL;
    g->sensitive_fields[g->nsensitive_fields++] = (pg_sensitive_field){
      .backend_node_id = n->backend,
      .key = pg__field_key(c, (int)i, key, sizeof key) ? pg__strdup(c->a, key) : NULL,
      .revealed = n->sens_self && !pg__attrs_sensitive(c, n) && !(p && p->sens_inside)};
  }
}

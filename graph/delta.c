/* delta.c -- deltas between PageGraphs (web-profile 10.3) and the signals a
 * change shows (5.12), on the JSON form of the graph (pg_graph_to_json):
 * the publisher computes ops from two captures, the consumer applies them.
 *
 * Nodes are matched by id: documentId, scopeId, instanceId. The builder
 * derives them from the frame id and the backendNodeId, which stay the same
 * while a node lives, so a renamed button is one upsertElement.
 */
#include "pg_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a small string -> item map (on the base's string map) -------------- */
typedef struct { const cJSON *val; int idx; } slot; /* idx: position (map_array), else -1 */
typedef struct { crawl__strmap keys; slot *s; size_t n, cap; } idmap; /* keys: key -> index into s */

static void map_init(idmap *m, size_t n) {
  *m = (idmap){.cap = n + 1};
  m->s = crawl__xcalloc(m->cap, sizeof *m->s);
}
static void map_free(idmap *m) {
  crawl__strmap_release(&m->keys);
  free(m->s);
  m->s = NULL;
}

/* Insert (a later duplicate key replaces the earlier one). */
static slot *map_put_at(idmap *m, const char *k, const cJSON *v) {
  if (!k) return NULL;
  long i = crawl__strmap_intern(&m->keys, k, (long)m->n, NULL);
  if ((size_t)i == m->n) {
    if (m->n == m->cap) m->s = crawl__xrealloc(m->s, (m->cap *= 2) * sizeof *m->s);
    m->n++;
  }
  m->s[i] = (slot){v, -1};
  return &m->s[i];
}
static void map_put(idmap *m, const char *k, const cJSON *v) { map_put_at(m, k, v); }
static const slot *map_slot(const idmap *m, const char *k) {
  long i = k && m->s ? crawl__strmap_get(&m->keys, k) : -1;
  return i >= 0 ? &m->s[i] : NULL;
}
static const cJSON *map_get(const idmap *m, const char *k) {
  const slot *sl = map_slot(m, k);
  return sl ? sl->val : NULL;
}

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static const char *get_str(const cJSON *o, const char *k) { return cJSON_GetStringValue(get(o, k)); }

static void map_array(idmap *m, const cJSON *arr, const char *idkey) {
  map_init(m, (size_t)cJSON_GetArraySize(arr));
  const cJSON *it;
  int i = 0;
  cJSON_ArrayForEach(it, arr) {
    slot *sl = map_put_at(m, get_str(it, idkey), it);
    if (sl) sl->idx = i;
    i++;
  }
}

/* Every item of arr is an object with a string id. */
static int ids_ok(const cJSON *arr, const char *idkey) {
  if (arr && !cJSON_IsArray(arr)) return 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, arr) if (!get_str(it, idkey)) return 0;
  return 1;
}

static int graph_ok(const cJSON *g) {
  static const char *const objects[] = {"route", "focus", "selection"};
  for (int k = 0; k < 3; k++)
    if (get(g, objects[k]) && !cJSON_IsObject(get(g, objects[k]))) return 0;
  return cJSON_IsObject(g) && ids_ok(get(g, "documents"), "documentId") && ids_ok(get(g, "scopes"), "scopeId") &&
         ids_ok(get(g, "elements"), "instanceId");
}

/* Same JSON value, both absent counting as the same. */
static int same(const cJSON *a, const cJSON *b) {
  if (!a || !b) return a == b;
  return cJSON_Compare(a, b, 1);
}

/* ---- compute ---------------------------------------------------------------- */
static void add_op(cJSON *ops, const char *op, const char *key, cJSON *val) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "op", op);
  if (key) cJSON_AddItemToObject(o, key, val);
  cJSON_AddItemToArray(ops, o);
}

static void add_remove(cJSON *ops, const char *op, const char *key, const char *id) {
  add_op(ops, op, key, cJSON_CreateString(id));
}

/* Depth of item in its own tree (parent chain by parentkey), capped. */
static int depth_of(const idmap *m, const cJSON *it, const char *idkey, const char *parentkey) {
  int d = 0;
  for (const cJSON *p = it; p && d < 1024; d++) {
    const char *pid = get_str(p, parentkey);
    p = pid ? map_get(m, pid) : NULL;
  }
  return d;
}

typedef struct { const cJSON *it; int depth; } deep;
static int cmp_deep(const void *a, const void *b) {
  const deep *x = a, *y = b;
  return y->depth - x->depth; /* deepest first */
}

/* Remove ops for the items of old that new lacks, children first. */
static void removals(cJSON *ops, const cJSON *old_arr, const idmap *old_m, const idmap *new_m, const char *idkey,
                     const char *parentkey, const char *op, const char *opkey) {
  size_t n = (size_t)cJSON_GetArraySize(old_arr), k = 0;
  if (!n) return;
  deep *v = crawl__xmalloc(n * sizeof *v);
  const cJSON *it;
  cJSON_ArrayForEach(it, old_arr) {
    if (map_get(new_m, get_str(it, idkey))) continue;
    v[k].it = it;
    v[k].depth = parentkey ? depth_of(old_m, it, idkey, parentkey) : 0;
    k++;
  }
  if (parentkey) qsort(v, k, sizeof *v, cmp_deep);
  for (size_t i = 0; i < k; i++) add_remove(ops, op, opkey, get_str(v[i].it, idkey));
  free(v);
}

/* One delta's working set: the two graphs' arrays and id maps, what has
 * been sent so far, and the ops. */
typedef struct {
  const cJSON *old_graph, *new_graph;
  const cJSON *od, *nd, *os, *ns, *oe, *ne;
  idmap mod, mnd, mos, mns, moe, mne, sent_doc, sent_scope;
  size_t ndocs, nscopes;
  char *again;  /* per new document: send once more with its rootScopeId */
  cJSON *ops;
} dctx;

static int known_doc(const dctx *d, const char *id) { return map_get(&d->mod, id) || map_get(&d->sent_doc, id); }
static int known_scope(const dctx *d, const char *id) { return map_get(&d->mos, id) || map_get(&d->sent_scope, id); }

static void dctx_open(dctx *d, const cJSON *old_graph, const cJSON *new_graph) {
  memset(d, 0, sizeof *d);
  d->old_graph = old_graph;
  d->new_graph = new_graph;
  d->od = get(old_graph, "documents"), d->nd = get(new_graph, "documents");
  d->os = get(old_graph, "scopes"), d->ns = get(new_graph, "scopes");
  d->oe = get(old_graph, "elements"), d->ne = get(new_graph, "elements");
  map_array(&d->mod, d->od, "documentId");
  map_array(&d->mnd, d->nd, "documentId");
  map_array(&d->mos, d->os, "scopeId");
  map_array(&d->mns, d->ns, "scopeId");
  map_array(&d->moe, d->oe, "instanceId");
  map_array(&d->mne, d->ne, "instanceId");
  d->ndocs = (size_t)cJSON_GetArraySize(d->nd);
  d->nscopes = (size_t)cJSON_GetArraySize(d->ns);
  map_init(&d->sent_doc, d->ndocs);
  map_init(&d->sent_scope, d->nscopes);
  d->again = crawl__xmalloc(d->ndocs + 1);
  memset(d->again, 0, d->ndocs + 1);
  d->ops = cJSON_CreateArray();
}

static void dctx_close(dctx *d) {
  free(d->again);
  map_free(&d->mod); map_free(&d->mnd); map_free(&d->mos); map_free(&d->mns);
  map_free(&d->moe); map_free(&d->mne); map_free(&d->sent_doc); map_free(&d->sent_scope);
}

/* The new graph must be whole: every reference resolves inside it. */
static pg_code check_whole(const dctx *d) {
  const cJSON *it;
  cJSON_ArrayForEach(it, d->nd) {
    const char *p = get_str(it, "parentDocumentId"), *r = get_str(it, "rootScopeId");
    if ((p && !map_get(&d->mnd, p)) || (r && !map_get(&d->mns, r))) return PG_INPUT;
  }
  cJSON_ArrayForEach(it, d->ns) {
    const char *doc = get_str(it, "documentId"), *p = get_str(it, "parentScopeId");
    if (!doc || !map_get(&d->mnd, doc) || (p && !map_get(&d->mns, p))) return PG_INPUT;
  }
  cJSON_ArrayForEach(it, d->ne) {
    const char *doc = get_str(it, "documentId"), *sc = get_str(it, "scopeId");
    if (!doc || !map_get(&d->mnd, doc) || (sc && !map_get(&d->mns, sc))) return PG_INPUT;
  }
  return PG_OK;
}

/* New document i (it) as an upsert; a root scope not yet known is left
 * out, and the document sent again once the scopes are (d->again). */
static void send_document(dctx *d, const cJSON *it, size_t i) {
  cJSON *copy = cJSON_Duplicate(it, 1);
  const char *root = get_str(it, "rootScopeId");
  if (root && !known_scope(d, root)) {
    cJSON_DeleteItemFromObjectCaseSensitive(copy, "rootScopeId");
    d->again[i] = 1;
  }
  add_op(d->ops, "upsertDocument", "document", copy);
  map_put(&d->sent_doc, get_str(it, "documentId"), it);
}

/* Changed documents, parents first. */
static pg_code send_documents(dctx *d) {
  char *pending = crawl__xmalloc(d->ndocs + 1);
  size_t left = 0, i = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, d->nd) {
    pending[i] = !same(map_get(&d->mod, get_str(it, "documentId")), it);
    left += (size_t)pending[i++];
  }
  while (left) {
    size_t before = left;
    i = 0;
    cJSON_ArrayForEach(it, d->nd) {
      const char *parent = get_str(it, "parentDocumentId");
      if (pending[i] && (!parent || known_doc(d, parent))) {
        send_document(d, it, i);
        pending[i] = 0;
        left--;
      }
      i++;
    }
    if (left == before) break; /* a parent the graph lacks */
  }
  free(pending);
  return left ? PG_INPUT : PG_OK;
}

/* Changed scopes, parents first. */
static pg_code send_scopes(dctx *d) {
  char *pending = crawl__xmalloc(d->nscopes + 1);
  size_t left = 0, i = 0;
  const cJSON *it;
  pg_code rc = PG_OK;
  cJSON_ArrayForEach(it, d->ns) {
    pending[i] = !same(map_get(&d->mos, get_str(it, "scopeId")), it);
    left += (size_t)pending[i++];
    if (!known_doc(d, get_str(it, "documentId"))) rc = PG_INPUT;
  }
  while (!rc && left) {
    size_t before = left;
    i = 0;
    cJSON_ArrayForEach(it, d->ns) {
      const char *parent = get_str(it, "parentScopeId");
      if (pending[i] && (!parent || known_scope(d, parent))) {
        add_op(d->ops, "upsertScope", "scope", cJSON_Duplicate(it, 1));
        map_put(&d->sent_scope, get_str(it, "scopeId"), it);
        pending[i] = 0;
        left--;
      }
      i++;
    }
    if (left == before) rc = PG_INPUT;
  }
  free(pending);
  return rc;
}

/* Documents whose root scope was new, again; then the changed elements. */
static pg_code send_roots_and_elements(dctx *d) {
  size_t i = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, d->nd) {
    if (d->again[i++]) {
      if (!known_scope(d, get_str(it, "rootScopeId"))) return PG_INPUT;
      add_op(d->ops, "upsertDocument", "document", cJSON_Duplicate(it, 1));
    }
  }
  cJSON_ArrayForEach(it, d->ne) {
    if (same(map_get(&d->moe, get_str(it, "instanceId")), it)) continue;
    const char *doc = get_str(it, "documentId"), *scope = get_str(it, "scopeId");
    if (!doc || !known_doc(d, doc) || (scope && !known_scope(d, scope))) return PG_INPUT;
    add_op(d->ops, "upsertElement", "element", cJSON_Duplicate(it, 1));
  }
  return PG_OK;
}

/* Route, focus, selection: what focus and selection name must be in the
 * new graph; each that changed is set. */
static pg_code send_singles(dctx *d) {
  const cJSON *f = get(d->new_graph, "focus"), *sel = get(d->new_graph, "selection");
  const char *fd = get_str(f, "documentId"), *ft = get_str(f, "target");
  const char *sa = get_str(sel, "anchorTarget"), *sf = get_str(sel, "focusTarget");
  if ((f && (!fd || !map_get(&d->mnd, fd))) || (ft && !map_get(&d->mne, ft)) || (sa && !map_get(&d->mne, sa)) ||
      (sf && !map_get(&d->mne, sf)))
    return PG_INPUT;
  const cJSON *r = get(d->new_graph, "route");
  if (r && !same(get(d->old_graph, "route"), r)) add_op(d->ops, "setRoute", "route", cJSON_Duplicate(r, 1));
  static const char *const single[][2] = {{"focus", "setFocus"}, {"selection", "setSelection"}};
  for (int k = 0; k < 2; k++) {
    const cJSON *a = get(d->old_graph, single[k][0]), *b = get(d->new_graph, single[k][0]);
    if (same(a, b)) continue;
    add_op(d->ops, single[k][1], b ? single[k][0] : NULL, b ? cJSON_Duplicate(b, 1) : NULL);
  }
  return PG_OK;
}

pg_code pg_delta_compute(const cJSON *old_graph, const cJSON *new_graph, cJSON **ops_out) {
  *ops_out = NULL;
  if (!graph_ok(new_graph) || (old_graph && !graph_ok(old_graph))) return PG_INPUT;
  dctx d;
  dctx_open(&d, old_graph, new_graph);
  pg_code rc = check_whole(&d);
  if (!rc) rc = send_documents(&d);
  if (!rc) rc = send_scopes(&d);
  if (!rc) rc = send_roots_and_elements(&d);
  if (!rc) rc = send_singles(&d);
  if (!rc) { /* removals, children first */
    removals(d.ops, d.oe, &d.moe, &d.mne, "instanceId", NULL, "removeElement", "instanceId");
    removals(d.ops, d.os, &d.mos, &d.mns, "scopeId", "parentScopeId", "removeScope", "scopeId");
    removals(d.ops, d.od, &d.mod, &d.mnd, "documentId", "parentDocumentId", "removeDocument", "documentId");
  }
  dctx_close(&d);
  if (rc) {
    cJSON_Delete(d.ops);
    return rc;
  }
  *ops_out = d.ops;
  return PG_OK;
}

/* ---- signals ----------------------------------------------------------------- */
static cJSON *new_signal(cJSON *signals, const char *kind, const char *prefix, unsigned long *seq) {
  cJSON *s = cJSON_CreateObject();
  char id[96];
  snprintf(id, sizeof id, "%s%lu", prefix ? prefix : "sig_", (*seq)++);
  cJSON_AddStringToObject(s, "signalId", id);
  cJSON_AddStringToObject(s, "kind", kind);
  cJSON_AddItemToArray(signals, s);
  return s;
}

static void add_str(cJSON *o, const char *k, const char *v) {
  if (v) cJSON_AddStringToObject(o, k, v);
}

/* TargetRef of an element (or a scope when el is a scope). */
static cJSON *target_of(const cJSON *el) {
  cJSON *t = cJSON_CreateObject();
  add_str(t, "instanceId", get_str(el, "instanceId"));
  add_str(t, "stableId", get_str(el, "stableId"));
  add_str(t, "role", get_str(el, "role"));
  add_str(t, "name", get_str(el, "name"));
  add_str(t, "scopeId", get_str(el, "scopeId"));
  add_str(t, "documentId", get_str(el, "documentId"));
  return t;
}

/* A dialog, or a modal drawer (a dialog that slides in from an edge). */
static int is_dialog(const cJSON *scope) {
  const char *k = get_str(scope, "kind");
  return k && (!strcmp(k, "dialog") || (!strcmp(k, "drawer") && cJSON_IsTrue(get(get(scope, "state"), "modal"))));
}
/* A dialog scope is open unless its state says open:false. */
static int dialog_open(const cJSON *scope) {
  if (!scope || !is_dialog(scope)) return 0;
  const cJSON *o = get(get(scope, "state"), "open");
  return !cJSON_IsFalse(o);
}
static int invalid(const cJSON *el) { return cJSON_IsTrue(get(get(el, "state"), "invalid")); }

static void dialog_signal(cJSON *signals, const char *kind, const cJSON *scope, const char *prefix, unsigned long *seq) {
  cJSON *s = new_signal(signals, kind, prefix, seq);
  add_str(s, "documentId", get_str(scope, "documentId"));
  add_str(s, "scopeId", get_str(scope, "scopeId"));
  cJSON_AddStringToObject(s, "level", "info");
  add_str(s, "text", get_str(scope, "name"));
  const cJSON *modal = get(get(scope, "state"), "modal");
  if (cJSON_IsBool(modal)) cJSON_AddBoolToObject(cJSON_AddObjectToObject(s, "detail"), "modal", cJSON_IsTrue(modal));
}

int pg_delta_signals(const cJSON *old_graph, const cJSON *new_graph, const char *prefix, unsigned long *seq,
                     cJSON *signals) {
  if (!old_graph || !new_graph || !cJSON_IsArray(signals) || !seq) return 0;
  int before = cJSON_GetArraySize(signals);
  const char *root = get_str(new_graph, "rootDocumentId");
  /* route */
  const cJSON *ra = get(old_graph, "route"), *rb = get(new_graph, "route");
  const char *ua = get_str(ra, "url"), *ub = get_str(rb, "url");
  if (ub && (!ua || strcmp(ua, ub))) {
    cJSON *s = new_signal(signals, "route.changed", prefix, seq);
    add_str(s, "documentId", root);
    cJSON_AddStringToObject(s, "level", "info");
    add_str(s, "text", get_str(rb, "title"));
    cJSON *d = cJSON_AddObjectToObject(s, "detail");
    add_str(d, "from", ua);
    add_str(d, "to", ub);
    add_str(d, "routeId", get_str(rb, "routeId"));
  }
  /* dialogs */
  idmap mos, mns, moe;
  map_array(&mos, get(old_graph, "scopes"), "scopeId");
  map_array(&mns, get(new_graph, "scopes"), "scopeId");
  map_array(&moe, get(old_graph, "elements"), "instanceId");
  const cJSON *it;
  cJSON_ArrayForEach(it, get(old_graph, "scopes"))
    if (dialog_open(it) && !dialog_open(map_get(&mns, get_str(it, "scopeId"))))
      dialog_signal(signals, "dialog.closed", it, prefix, seq);
  cJSON_ArrayForEach(it, get(new_graph, "scopes"))
    if (dialog_open(it) && !dialog_open(map_get(&mos, get_str(it, "scopeId"))))
      dialog_signal(signals, "dialog.opened", it, prefix, seq);
  /* validation: the invalid state of one element flips */
  cJSON_ArrayForEach(it, get(new_graph, "elements")) {
    const cJSON *was = map_get(&moe, get_str(it, "instanceId"));
    if (!was || invalid(was) == invalid(it)) continue;
    cJSON *s = new_signal(signals, "validation.changed", prefix, seq);
    add_str(s, "documentId", get_str(it, "documentId"));
    add_str(s, "scopeId", get_str(it, "scopeId"));
    cJSON_AddItemToObject(s, "target", target_of(it));
    cJSON_AddStringToObject(s, "level", invalid(it) ? "error" : "success");
    add_str(s, "text", get_str(it, "name"));
    cJSON_AddBoolToObject(cJSON_AddObjectToObject(s, "detail"), "invalid", invalid(it));
  }
  map_free(&mos);
  map_free(&mns);
  map_free(&moe);
  return cJSON_GetArraySize(signals) - before;
}

/* ---- success signals of one step (discovery-mapper 15.5) ----------------------- */
/* Roles whose coming and going is noise or has its own signal (toasts). */
static const char *const unwatched_roles[] = {"status", "alert", "log", "progressbar", "timer", "marquee"};

static int in_roles(const char *role, const char *const *set, size_t n) {
  for (size_t i = 0; role && i < n; i++)
    if (!strcmp(role, set[i])) return 1;
  return 0;
}

static int collection_kind(const char *k) { return k && (!strcmp(k, "collection") || !strcmp(k, "rowgroup")); }

/* The innermost collection scope around scope id sc (scopes by id in m), or NULL. */
static const cJSON *collection_around(const idmap *m, const char *sc) {
  for (int steps = 0; sc && steps < 4096; steps++) {
    const cJSON *s = map_get(m, sc);
    if (!s) return NULL;
    if (collection_kind(get_str(s, "kind"))) return s;
    sc = get_str(s, "parentScopeId");
  }
  return NULL;
}

/* 1: scope id sc lies in a dialog (its own signals cover what it holds). */
static int in_dialog(const idmap *m, const char *sc) {
  for (int steps = 0; sc && steps < 4096; steps++) {
    const cJSON *s = map_get(m, sc);
    if (!s) return 0;
    if (is_dialog(s)) return 1;
    sc = get_str(s, "parentScopeId");
  }
  return 0;
}

/* An element whose appearing or going is a signal: visible, not a status
 * or spinner, not in a dialog, not a row of a collection (those count). */
static int watched(const cJSON *el, const idmap *scopes) {
  if (cJSON_IsFalse(get(get(el, "state"), "visible"))) return 0;
  if (in_roles(get_str(el, "role"), unwatched_roles, sizeof unwatched_roles / sizeof *unwatched_roles)) return 0;
  const char *sc = get_str(el, "scopeId");
  return !in_dialog(scopes, sc) && !collection_around(scopes, sc);
}

/* What identifies an element across the step: role, name, stableId (caller frees). */
static char *element_key(const cJSON *el) {
  const char *r = get_str(el, "role"), *n = get_str(el, "name"), *s = get_str(el, "stableId");
  size_t len = strlen(r ? r : "") + strlen(n ? n : "") + strlen(s ? s : "") + 3;
  char *k = crawl__xmalloc(len);
  snprintf(k, len, "%s\x1f%s\x1f%s", r ? r : "", n ? n : "", s ? s : "");
  return k;
}

typedef struct { char **v; size_t n; } keyset; /* sorted, with repeats */

static int cmp_keyp(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

static void keyset_of(keyset *ks, const cJSON *graph, const idmap *scopes) {
  const cJSON *el;
  ks->n = 0;
  ks->v = crawl__xmalloc(((size_t)cJSON_GetArraySize(get(graph, "elements")) + 1) * sizeof *ks->v);
  cJSON_ArrayForEach(el, get(graph, "elements"))
    if (watched(el, scopes)) ks->v[ks->n++] = element_key(el);
  qsort(ks->v, ks->n, sizeof *ks->v, cmp_keyp);
}

static void keyset_free(keyset *ks) {
  for (size_t i = 0; i < ks->n; i++) free(ks->v[i]);
  free(ks->v);
}

/* How often key occurs in ks. */
static size_t keyset_count(const keyset *ks, const char *key) {
  size_t lo = 0, hi = ks->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (strcmp(ks->v[mid], key) < 0) lo = mid + 1;
    else hi = mid;
  }
  size_t n = 0;
  while (lo + n < ks->n && !strcmp(ks->v[lo + n], key)) n++;
  return n;
}

static cJSON *success_signal(cJSON *signals, const char *kind, const char *scope) {
  cJSON *s = cJSON_CreateObject();
  cJSON_AddStringToObject(s, "kind", kind);
  add_str(s, "scopeId", scope);
  cJSON_AddItemToArray(signals, s);
  return s;
}

/* element.appeared (from -> to: old -> new) or element.disappeared (new ->
 * old): the watched elements of `to` that `from` has fewer of, in document
 * order, at most PG_CHANGE_SIGNALS_MAX. */
static int element_signals(const cJSON *to, const idmap *to_scopes, const keyset *from, const keyset *tos,
                           const char *kind, cJSON *signals) {
  int made = 0;
  const cJSON *el;
  cJSON_ArrayForEach(el, get(to, "elements")) {
    if (made == PG_CHANGE_SIGNALS_MAX || !watched(el, to_scopes)) continue;
    char *k = element_key(el);
    size_t had = keyset_count(from, k), has = keyset_count(tos, k);
    free(k);
    if (has <= had) continue;
    /* the first has-had of this key stand for the change: mark by counting
     * those already emitted with the same key */
    int emitted = 0;
    const cJSON *sg;
    cJSON_ArrayForEach(sg, signals) {
      const cJSON *t = get(sg, "target");
      const char *sk = get_str(sg, "kind");
      if (!sk || strcmp(sk, kind) || !t) continue;
      emitted += !strcmp(get_str(t, "role") ? get_str(t, "role") : "", get_str(el, "role") ? get_str(el, "role") : "") &&
                 !strcmp(get_str(t, "name") ? get_str(t, "name") : "", get_str(el, "name") ? get_str(el, "name") : "") &&
                 !strcmp(get_str(t, "stableId") ? get_str(t, "stableId") : "", get_str(el, "stableId") ? get_str(el, "stableId") : "");
    }
    if ((size_t)emitted >= has - had) continue;
    cJSON *s = success_signal(signals, kind, get_str(el, "scopeId"));
    cJSON *t = target_of(el);
    cJSON_DeleteItemFromObjectCaseSensitive(t, "instanceId"); /* one capture's id */
    cJSON_DeleteItemFromObjectCaseSensitive(t, "scopeId");
    cJSON_DeleteItemFromObjectCaseSensitive(t, "documentId");
    cJSON_AddItemToObject(s, "target", t);
    made++;
  }
  return made;
}

/* Visible elements of graph per innermost collection scope, in one pass:
 * counts[i] for the i-th entry of graph's scopes (scopes: map_array of
 * them; caller frees). */
static int *collection_counts(const cJSON *graph, const idmap *scopes) {
  size_t n = (size_t)cJSON_GetArraySize(get(graph, "scopes")) + 1;
  int *count = crawl__xmalloc(n * sizeof *count);
  memset(count, 0, n * sizeof *count);
  const cJSON *el;
  cJSON_ArrayForEach(el, get(graph, "elements")) {
    if (cJSON_IsFalse(get(get(el, "state"), "visible"))) continue;
    const cJSON *c = collection_around(scopes, get_str(el, "scopeId"));
    const slot *sl = c ? map_slot(scopes, get_str(c, "scopeId")) : NULL;
    if (sl && sl->val == c && sl->idx >= 0) count[sl->idx]++;
  }
  return count;
}

/* The count collection_counts gave scope sc. */
static int count_of(const int *count, const idmap *scopes, const cJSON *sc) {
  const slot *sl = map_slot(scopes, get_str(sc, "scopeId"));
  return sl && sl->val == sc && sl->idx >= 0 ? count[sl->idx] : 0;
}

/* The scope of `graph` that is `sc` of the other capture: the same id, else
 * the same kind, name and stableId. */
static const cJSON *same_scope(const cJSON *graph, const idmap *scopes, const cJSON *sc) {
  const cJSON *m = map_get(scopes, get_str(sc, "scopeId")), *it;
  if (m && !strcmp(get_str(m, "kind"), get_str(sc, "kind"))) return m;
  cJSON_ArrayForEach(it, get(graph, "scopes")) {
    const char *k = get_str(it, "kind"), *n = get_str(it, "name"), *s = get_str(it, "stableId");
    const char *k2 = get_str(sc, "kind"), *n2 = get_str(sc, "name"), *s2 = get_str(sc, "stableId");
    if (k && k2 && !strcmp(k, k2) && !strcmp(n ? n : "", n2 ? n2 : "") && !strcmp(s ? s : "", s2 ? s2 : "")) return it;
  }
  return NULL;
}

int pg_change_signals(const cJSON *old_graph, const cJSON *new_graph, cJSON *signals) {
  if (!old_graph || !new_graph || !cJSON_IsArray(signals)) return 0;
  int before = cJSON_GetArraySize(signals), made = 0;
  idmap mos, mns;
  map_array(&mos, get(old_graph, "scopes"), "scopeId");
  map_array(&mns, get(new_graph, "scopes"), "scopeId");
  int *c0 = collection_counts(old_graph, &mos), *c1 = collection_counts(new_graph, &mns);
  const cJSON *sc;
  cJSON_ArrayForEach(sc, get(new_graph, "scopes")) {
    if (made == PG_CHANGE_SIGNALS_MAX || !collection_kind(get_str(sc, "kind"))) continue;
    const cJSON *was = same_scope(old_graph, &mos, sc);
    if (!was || count_of(c0, &mos, was) == count_of(c1, &mns, sc)) continue;
    cJSON *s = success_signal(signals, "collection.count_changed", get_str(sc, "scopeId"));
    add_str(s, "text", get_str(sc, "name"));
    made++;
  }
  free(c0);
  free(c1);
  keyset ka, kb;
  keyset_of(&ka, old_graph, &mos);
  keyset_of(&kb, new_graph, &mns);
  element_signals(new_graph, &mns, &ka, &kb, "element.appeared", signals);
  element_signals(old_graph, &mos, &kb, &ka, "element.disappeared", signals);
  keyset_free(&ka);
  keyset_free(&kb);
  map_free(&mos);
  map_free(&mns);
  return cJSON_GetArraySize(signals) - before;
}

/* ---- apply ------------------------------------------------------------------- */
static const char *const delta_msgs[] = {
#define PG__DM(name, msg) msg,
  PG_DELTA_ERRNO_MAP(PG__DM)
#undef PG__DM
};
const char *pg_delta_strerror(pg_delta_code c) {
  return c >= 0 && c < PG_DELTA__ECOUNT ? delta_msgs[c] : "unknown delta error";
}

typedef struct {
  cJSON *g;
  char *err;
  size_t errlen;
} applier;

static pg_delta_code bad(applier *a, const char *fmt, const char *x, int op) {
  if (a->err && a->errlen) {
    char what[256];
    snprintf(what, sizeof what, fmt, x ? x : "");
    if (op >= 0) snprintf(a->err, a->errlen, "op %d: %s", op, what);
    else snprintf(a->err, a->errlen, "%s", what);
  }
  return PG_DELTA_INVALID;
}

/* Index of the item of arr whose idkey is id, -1 if none. Linear: an op
 * touches one item; the maps below answer the existence checks. */
static cJSON *find(cJSON *arr, const char *idkey, const char *id, int *index) {
  int i = 0;
  cJSON *it;
  cJSON_ArrayForEach(it, arr) {
    const char *v = get_str(it, idkey);
    if (v && id && !strcmp(v, id)) {
      if (index) *index = i;
      return it;
    }
    i++;
  }
  return NULL;
}

/* Replace every member key (a graph from elsewhere may hold one twice) by
 * a copy of v, or remove it when v is NULL. */
static void set_member(cJSON *g, const char *key, const cJSON *v) {
  while (cJSON_GetObjectItemCaseSensitive(g, key)) cJSON_DeleteItemFromObjectCaseSensitive(g, key);
  if (v) cJSON_AddItemToObject(g, key, cJSON_Duplicate(v, 1));
}

static cJSON *ensure_array(cJSON *g, const char *key) {
  cJSON *a = cJSON_GetObjectItemCaseSensitive(g, key);
  if (!cJSON_IsArray(a)) {
    cJSON_DeleteItemFromObjectCaseSensitive(g, key);
    a = cJSON_AddArrayToObject(g, key);
  }
  return a;
}

/* Replace the item with the same id, or append. */
static void upsert(cJSON *arr, const char *idkey, const cJSON *item) {
  int idx = -1;
  cJSON *copy = cJSON_Duplicate(item, 1);
  if (find(arr, idkey, get_str(item, idkey), &idx)) cJSON_ReplaceItemInArray(arr, idx, copy);
  else cJSON_AddItemToArray(arr, copy);
}

static void remove_where(cJSON *arr, const char *key, const char *value) {
  cJSON *it = arr ? arr->child : NULL;
  while (it) {
    cJSON *next = it->next;
    const char *v = get_str(it, key);
    if (v && !strcmp(v, value)) cJSON_Delete(cJSON_DetachItemViaPointer(arr, it));
    it = next;
  }
}

static int exists(cJSON *g, const char *arr, const char *idkey, const char *id) {
  return id && find(cJSON_GetObjectItemCaseSensitive(g, arr), idkey, id, NULL) != NULL;
}

static pg_delta_code apply_op(applier *a, const cJSON *op, int n) {
  cJSON *g = a->g;
  const char *kind = get_str(op, "op");
  if (!kind) return bad(a, "no op name", NULL, n);
  cJSON *docs = ensure_array(g, "documents"), *scopes = ensure_array(g, "scopes"), *els = ensure_array(g, "elements");
  if (!strcmp(kind, "upsertDocument")) {
    const cJSON *d = get(op, "document");
    const char *id = get_str(d, "documentId"), *parent = get_str(d, "parentDocumentId"), *root = get_str(d, "rootScopeId");
    if (!id) return bad(a, "upsertDocument without document.documentId", NULL, n);
    if (parent && strcmp(parent, id) && !exists(g, "documents", "documentId", parent))
      return bad(a, "upsertDocument: unknown parent document %s", parent, n);
    if (root && !exists(g, "scopes", "scopeId", root)) return bad(a, "upsertDocument: unknown root scope %s", root, n);
    upsert(docs, "documentId", d);
  } else if (!strcmp(kind, "removeDocument")) {
    const char *id = get_str(op, "documentId");
    if (!exists(g, "documents", "documentId", id)) return bad(a, "removeDocument: unknown document %s", id, n);
    remove_where(els, "documentId", id);
    remove_where(scopes, "documentId", id);
    remove_where(docs, "documentId", id);
    const cJSON *f = get(g, "focus");
    if (f && get_str(f, "documentId") && !strcmp(get_str(f, "documentId"), id)) set_member(g, "focus", NULL);
  } else if (!strcmp(kind, "upsertScope")) {
    const cJSON *s = get(op, "scope");
    const char *id = get_str(s, "scopeId"), *doc = get_str(s, "documentId"), *parent = get_str(s, "parentScopeId");
    if (!id || !doc) return bad(a, "upsertScope without scope.scopeId and documentId", NULL, n);
    if (!exists(g, "documents", "documentId", doc)) return bad(a, "upsertScope: unknown document %s", doc, n);
    if (parent && strcmp(parent, id) && !exists(g, "scopes", "scopeId", parent))
      return bad(a, "upsertScope: unknown parent scope %s", parent, n);
    upsert(scopes, "scopeId", s);
  } else if (!strcmp(kind, "removeScope")) {
    const char *id = get_str(op, "scopeId");
    if (!exists(g, "scopes", "scopeId", id)) return bad(a, "removeScope: unknown scope %s", id, n);
    remove_where(scopes, "scopeId", id);
  } else if (!strcmp(kind, "upsertElement")) {
    const cJSON *e = get(op, "element");
    const char *id = get_str(e, "instanceId"), *doc = get_str(e, "documentId"), *scope = get_str(e, "scopeId");
    if (!id || !doc) return bad(a, "upsertElement without element.instanceId and documentId", NULL, n);
    if (!exists(g, "documents", "documentId", doc)) return bad(a, "upsertElement: unknown document %s", doc, n);
    if (scope && !exists(g, "scopes", "scopeId", scope)) return bad(a, "upsertElement: unknown scope %s", scope, n);
    upsert(els, "instanceId", e);
  } else if (!strcmp(kind, "removeElement")) {
    const char *id = get_str(op, "instanceId");
    if (!exists(g, "elements", "instanceId", id)) return bad(a, "removeElement: unknown element %s", id, n);
    remove_where(els, "instanceId", id);
  } else if (!strcmp(kind, "setRoute")) {
    const cJSON *r = get(op, "route");
    if (!cJSON_IsObject(r)) return bad(a, "setRoute without route", NULL, n);
    set_member(g, "route", r);
  } else if (!strcmp(kind, "setFocus") || !strcmp(kind, "setSelection")) {
    int focus = kind[3] == 'F';
    const char *key = focus ? "focus" : "selection";
    const cJSON *v = get(op, key);
    if (v && !cJSON_IsObject(v)) return bad(a, "%s is not an object", key, n);
    if (focus && v) {
      const char *doc = get_str(v, "documentId"), *t = get_str(v, "target");
      if (!exists(g, "documents", "documentId", doc)) return bad(a, "setFocus: unknown document %s", doc, n);
      if (t && !exists(g, "elements", "instanceId", t)) return bad(a, "setFocus: unknown element %s", t, n);
    }
    if (!focus && v) {
      static const char *const ends[] = {"anchorTarget", "focusTarget"};
      for (int k = 0; k < 2; k++) {
        const char *t = get_str(v, ends[k]);
        if (t && !exists(g, "elements", "instanceId", t)) return bad(a, "setSelection: unknown element %s", t, n);
      }
    }
    set_member(g, key, v);
  } else {
    return bad(a, "unknown op %s", kind, n);
  }
  return PG_DELTA_OK;
}

/* After the ops: every reference resolves (a removeScope that left an
 * element behind, a removed document's child...). */
static pg_delta_code check_refs(applier *a) {
  cJSON *g = a->g;
  idmap md, ms;
  map_array(&md, get(g, "documents"), "documentId");
  map_array(&ms, get(g, "scopes"), "scopeId");
  pg_delta_code rc = PG_DELTA_OK;
  const cJSON *it;
  cJSON_ArrayForEach(it, get(g, "documents")) {
    const char *p = get_str(it, "parentDocumentId");
    if (p && !map_get(&md, p)) { rc = bad(a, "document %s is left without its parent", get_str(it, "documentId"), -1); break; }
  }
  cJSON_ArrayForEach(it, get(g, "scopes")) {
    const char *p = get_str(it, "parentScopeId");
    if (rc || (p && !map_get(&ms, p)) || !map_get(&md, get_str(it, "documentId"))) {
      if (!rc) rc = bad(a, "scope %s is left without its parent or document", get_str(it, "scopeId"), -1);
      break;
    }
  }
  cJSON_ArrayForEach(it, get(g, "elements")) {
    const char *s = get_str(it, "scopeId");
    if (rc || (s && !map_get(&ms, s)) || !map_get(&md, get_str(it, "documentId"))) {
      if (!rc) rc = bad(a, "element %s is left without its scope or document", get_str(it, "instanceId"), -1);
      break;
    }
  }
  /* the selection names elements that are still there */
  static const char *const ends[] = {"anchorTarget", "focusTarget"};
  for (int k = 0; k < 2 && !rc; k++) {
    const char *t = get_str(get(g, "selection"), ends[k]);
    if (t && !exists(g, "elements", "instanceId", t))
      rc = bad(a, "the selection names element %s, which is gone", t, -1);
  }
  map_free(&md);
  map_free(&ms);
  return rc;
}

/* Relations whose ends are gone are dropped (10.3 has no relation ops). */
static void prune_relations(cJSON *g) {
  cJSON *rels = cJSON_GetObjectItemCaseSensitive(g, "relations");
  if (!cJSON_IsArray(rels)) return;
  idmap ids;
  map_init(&ids, (size_t)(cJSON_GetArraySize(get(g, "elements")) + cJSON_GetArraySize(get(g, "scopes"))));
  const cJSON *it;
  cJSON_ArrayForEach(it, get(g, "elements")) map_put(&ids, get_str(it, "instanceId"), it);
  cJSON_ArrayForEach(it, get(g, "scopes")) map_put(&ids, get_str(it, "scopeId"), it);
  cJSON *r = rels->child;
  while (r) {
    cJSON *next = r->next;
    if (!map_get(&ids, get_str(r, "from")) || !map_get(&ids, get_str(r, "to")))
      cJSON_Delete(cJSON_DetachItemViaPointer(rels, r));
    r = next;
  }
  map_free(&ids);
}

pg_delta_code pg_delta_apply(cJSON *graph, const cJSON *delta, char *err, size_t errlen) {
  applier a = {.err = err, .errlen = errlen};
  if (err && errlen) err[0] = 0;
  if (!cJSON_IsObject(graph)) return bad(&a, "the graph is not an object", NULL, -1);
  const char *rev = get_str(delta, "revision"), *base = get_str(delta, "baseRevision");
  const cJSON *ops = get(delta, "ops");
  if (!rev || !base || !cJSON_IsArray(ops)) return bad(&a, "a delta needs revision, baseRevision and ops", NULL, -1);
  const char *have = get_str(graph, "revision");
  if (!have || strcmp(have, base)) {
    if (err && errlen)
      snprintf(err, errlen, "delta %s is based on %s, the graph is at %s: ask for a new snapshot", rev, base,
               have ? have : "(none)");
    return PG_DELTA_GAP;
  }
  /* all or nothing: work on a copy, swap the contents in at the end */
  a.g = cJSON_Duplicate(graph, 1);
  if (!a.g) return bad(&a, "out of memory", NULL, -1);
  pg_delta_code rc = PG_DELTA_OK;
  int n = 0;
  const cJSON *op;
  cJSON_ArrayForEach(op, ops) {
    if ((rc = apply_op(&a, op, n++))) break;
  }
  if (!rc) rc = check_refs(&a);
  if (!rc) {
    prune_relations(a.g);
    cJSON *r = cJSON_CreateString(rev);
    if (cJSON_GetObjectItemCaseSensitive(a.g, "revision")) {
      cJSON_ReplaceItemInObjectCaseSensitive(a.g, "revision", r); /* keeps its place */
      cJSON *dup = cJSON_GetObjectItemCaseSensitive(a.g, "revision")->next;
      for (; dup; dup = dup->next)
        if (dup->string && !strcmp(dup->string, "revision")) cJSON_SetValuestring(dup, rev);
    } else {
      cJSON_AddItemToObject(a.g, "revision", r);
    }
    cJSON *tmp = graph->child;
    graph->child = a.g->child;
    a.g->child = tmp;
  }
  cJSON_Delete(a.g);
  return rc;
}

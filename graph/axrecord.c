/* axrecord.c -- the accessibility record of a capture (pg_ax_record): the
 * accessibility-tree facts a graph was built from, for the elements it
 * publishes and nothing else, kept as evidence beside the graph
 * (discovery-mapper 11.2: "an AX record SHOULD be stored").
 *
 * What the graph withholds stays out by construction: only nodes of
 * published elements are taken (nothing of a closed shadow tree, an opaque
 * frame, a sensitive field's inside), and every text in a node -- name,
 * description, value -- is the graph's own when the two differ (a
 * redacted password, a masked name, a name the graph took from somewhere
 * safer). Texts the graph never publishes (a link's URL, value texts, role
 * descriptions, the texts of related nodes) are left out. */
#include "pg_int.h"

#include <stdlib.h>
#include <string.h>

#define SUB_ID_BITS 24 /* as build.c offsets a bridged frame's node ids */
#define MAX_SUBFRAMES 100

typedef struct {
  crawl__intmap map;            /* backendDOMNodeId -> entry */
  const cJSON **vals;           /* by entry: the node */
  const cJSON **parents;        /* by entry: the "nodes" array it is in */
  size_t n;
} ax_index;

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

static void index_nodes(ax_index *x, const cJSON *result, int sub) {
  const cJSON *it, *list = get(result, "nodes");
  cJSON_ArrayForEach(it, list) {
    const cJSON *b = get(it, "backendDOMNodeId");
    if (!cJSON_IsNumber(b) || b->valuedouble < 1 || b->valuedouble >= (1 << SUB_ID_BITS)) continue;
    int key = b->valueint + (sub >= 0 ? (sub + 1) << SUB_ID_BITS : 0);
    int added;
    crawl__intmap_intern(&x->map, key, (long)x->n, &added); /* the first node of an id wins, as in build.c */
    if (added) {
      x->vals[x->n] = it;
      x->parents[x->n] = list;
      x->n++;
    }
  }
}

static size_t count_nodes(const cJSON *const *ax, size_t nax, const cJSON *const *sub, size_t nsub) {
  size_t n = 0;
  for (size_t k = 0; k < nax; k++) n += (size_t)cJSON_GetArraySize(get(ax[k], "nodes"));
  for (size_t k = 0; k < nsub && k < MAX_SUBFRAMES; k++) n += (size_t)cJSON_GetArraySize(get(sub[k], "nodes"));
  return n;
}

/* The nodes of the page's trees (ax) and of the bridged frames' (sub, by
 * frame index; entries may be NULL), by backendDOMNodeId as the graph
 * numbers them. */
static void index_build(ax_index *x, const cJSON *const *ax, size_t nax, const cJSON *const *sub, size_t nsub) {
  size_t n = count_nodes(ax, nax, sub, nsub);
  crawl__intmap_reserve(&x->map, n);
  x->vals = crawl__xcalloc(n + 1, sizeof *x->vals);
  x->parents = crawl__xcalloc(n + 1, sizeof *x->parents);
  for (size_t k = 0; k < nax; k++) index_nodes(x, ax[k], -1);
  for (size_t k = 0; k < nsub && k < MAX_SUBFRAMES; k++)
    if (sub[k]) index_nodes(x, sub[k], (int)k);
}

static void index_free(ax_index *x) {
  crawl__intmap_release(&x->map);
  free(x->vals);
  free(x->parents);
}

static const cJSON *index_get(const ax_index *x, int key) {
  if (!key) return NULL;
  long i = crawl__intmap_get(&x->map, key);
  return i >= 0 ? x->vals[i] : NULL;
}

static const char *ax_text(const cJSON *ax, const char *key) {
  const cJSON *v = get(get(ax, key), "value");
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void add_typed(cJSON *o, const char *key, const char *type, const char *value) {
  cJSON *v = cJSON_AddObjectToObject(o, key);
  cJSON_AddStringToObject(v, "type", type);
  cJSON_AddStringToObject(v, "value", value);
}

/* A name source without texts other than the name itself. */
static cJSON *source_json(const cJSON *src, const char *name) {
  static const char *const keep[] = {"type", "attribute", "nativeSource", "superseded", "invalid"};
  cJSON *o = cJSON_CreateObject();
  for (size_t k = 0; k < sizeof keep / sizeof *keep; k++) {
    const cJSON *v = get(src, keep[k]);
    if (cJSON_IsString(v) || cJSON_IsBool(v)) cJSON_AddItemToObject(o, keep[k], cJSON_Duplicate(v, 0));
  }
  const char *val = ax_text(src, "value");
  if (val && name && !strcmp(val, name)) add_typed(o, "value", "computedString", val);
  return o;
}

/* name: the AX name when the graph publishes the same, with its sources;
 * else the graph's name, without them; nothing when the graph has none. */
static void name_json(cJSON *o, const cJSON *ax, const char *published) {
  if (!published) return;
  const char *name = ax_text(ax, "name");
  if (!name || strcmp(name, published)) {
    add_typed(o, "name", "computedString", published);
    return;
  }
  add_typed(o, "name", "computedString", name);
  const cJSON *srcs = get(get(ax, "name"), "sources"), *s;
  if (!cJSON_IsArray(srcs)) return;
  cJSON *arr = cJSON_AddArrayToObject(cJSON_GetObjectItemCaseSensitive(o, "name"), "sources");
  cJSON_ArrayForEach(s, srcs) cJSON_AddItemToArray(arr, source_json(s, name));
}

/* Property value types that carry no page text. */
static int plain_type(const char *t) {
  static const char *const types[] = {"boolean", "tristate", "booleanOrUndefined", "integer", "number",
                                      "token", "tokenList", "idref", "idrefList", "node", "nodeList"};
  for (size_t k = 0; t && k < sizeof types / sizeof *types; k++)
    if (!strcmp(t, types[k])) return 1;
  return 0;
}

/* A property value: its type and value, related nodes by id only. */
static cJSON *prop_value(const cJSON *v) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "type", cJSON_GetStringValue(get(v, "type")));
  const cJSON *val = get(v, "value");
  if (val && !cJSON_IsObject(val) && !cJSON_IsArray(val)) cJSON_AddItemToObject(o, "value", cJSON_Duplicate(val, 0));
  const cJSON *rel = get(v, "relatedNodes"), *r;
  if (cJSON_IsArray(rel)) {
    cJSON *arr = cJSON_AddArrayToObject(o, "relatedNodes");
    cJSON_ArrayForEach(r, rel) {
      cJSON *x = cJSON_CreateObject();
      const cJSON *b = get(r, "backendDOMNodeId"), *id = get(r, "idref");
      if (cJSON_IsNumber(b)) cJSON_AddNumberToObject(x, "backendDOMNodeId", b->valuedouble);
      if (cJSON_IsString(id)) cJSON_AddStringToObject(x, "idref", id->valuestring);
      cJSON_AddItemToArray(arr, x);
    }
  }
  return o;
}

static void props_json(cJSON *o, const cJSON *ax) {
  const cJSON *p;
  cJSON *arr = NULL;
  cJSON_ArrayForEach(p, get(ax, "properties")) {
    const char *name = cJSON_GetStringValue(get(p, "name"));
    const cJSON *v = get(p, "value");
    if (!name || !plain_type(cJSON_GetStringValue(get(v, "type")))) continue;
    if (!arr) arr = cJSON_AddArrayToObject(o, "properties");
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "name", name);
    cJSON_AddItemToObject(x, "value", prop_value(v));
    cJSON_AddItemToArray(arr, x);
  }
}

/* value: the AX value only when the graph publishes it as it is;
 * the graph's own text ("[redacted]", "[name]") when that differs. */
static void value_json(cJSON *o, const cJSON *ax, const pg_element *e) {
  if (!get(ax, "value") || !e->text_value) return;
  const char *v = ax_text(ax, "value"), *type = cJSON_GetStringValue(get(get(ax, "value"), "type"));
  int same = v && !e->redacted && !e->sensitive && !strcmp(v, e->text_value);
  add_typed(o, "value", same && type ? type : "string", e->text_value);
}

static cJSON *node_json(const pg_element *e, const cJSON *ax) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "instanceId", e->instance_id);
  const cJSON *b = get(ax, "backendDOMNodeId");
  cJSON_AddNumberToObject(o, "backendDOMNodeId", b->valuedouble);
  const char *role = ax_text(ax, "role");
  if (role) add_typed(o, "role", "role", role);
  if (cJSON_IsTrue(get(ax, "ignored"))) {
    cJSON_AddBoolToObject(o, "ignored", 1);
    const cJSON *r;
    cJSON *arr = cJSON_AddArrayToObject(o, "ignoredReasons");
    cJSON_ArrayForEach(r, get(ax, "ignoredReasons"))
      if (cJSON_GetStringValue(get(r, "name"))) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "name", cJSON_GetStringValue(get(r, "name")));
        cJSON_AddItemToArray(arr, x);
      }
  }
  name_json(o, ax, e->name);
  if (e->description && get(ax, "description")) add_typed(o, "description", "computedString", e->description);
  value_json(o, ax, e);
  props_json(o, ax);
  return o;
}

/* The record of g, node k of element k from node_of (NULL: none). */
static cJSON *record_build(const pg_graph *g, const cJSON *(*node_of)(const void *ud, size_t k), const void *ud) {
  cJSON *rec = cJSON_CreateObject();
  cJSON *nodes = cJSON_AddArrayToObject(rec, "nodes");
  int with = 0;
  for (size_t k = 0; k < g->nelements; k++) {
    const cJSON *ax = node_of(ud, k);
    if (!ax) continue;
    cJSON_AddItemToArray(nodes, node_json(&g->elements[k], ax));
    with++;
  }
  cJSON_AddNumberToObject(rec, "elements", (double)g->nelements);
  cJSON_AddNumberToObject(rec, "elementsWithAccessibility", with);
  return rec;
}

typedef struct { const pg_graph *g; const ax_index *x; } by_index;
static const cJSON *node_by_index(const void *ud, size_t k) {
  const by_index *b = ud;
  return index_get(b->x, b->g->elements[k].backend_node_id);
}
static const cJSON *node_retained(const void *ud, size_t k) { return ((const pg_graph *)ud)->ax_of[k]; }

static void sub_trees(const pg_input *in, const cJSON **sub, size_t *nsub) {
  *nsub = 0;
  for (size_t k = 0; in->subframes && k < in->nsubframes && k < MAX_SUBFRAMES; k++) sub[(*nsub)++] = in->subframes[k].ax;
}

cJSON *pg_ax_record(const pg_graph *g, const pg_input *in) {
  if (!g || !in) return NULL;
  const cJSON *sub[MAX_SUBFRAMES];
  size_t nsub;
  sub_trees(in, sub, &nsub);
  ax_index x = {0};
  index_build(&x, in->ax, in->nax, sub, nsub);
  by_index b = {g, &x};
  cJSON *rec = record_build(g, node_by_index, &b);
  index_free(&x);
  return rec;
}

void pg_ax_retain(pg_graph *g, const pg_input *in) {
  if (!g || !in || g->ax_nodes) return;
  const cJSON *sub[MAX_SUBFRAMES];
  size_t nsub;
  sub_trees(in, sub, &nsub);
  ax_index x = {0};
  index_build(&x, in->ax, in->nax, sub, nsub);
  g->ax_nodes = cJSON_CreateArray();
  g->ax_of = crawl__xrealloc(NULL, (g->nelements + 1) * sizeof *g->ax_of);
  for (size_t k = 0; k < g->nelements; k++) {
    g->ax_of[k] = NULL;
    int key = g->elements[k].backend_node_id;
    if (!key) continue;
    long h = crawl__intmap_get(&x.map, key);
    if (h < 0 || !x.vals[h]) continue;
    /* moved, not copied: the caller owns the replies (pg.h) */
    cJSON *node = cJSON_DetachItemViaPointer((cJSON *)x.parents[h], (cJSON *)x.vals[h]);
    x.vals[h] = NULL;
    cJSON_AddItemToArray(g->ax_nodes, node);
    g->ax_of[k] = node;
  }
  index_free(&x);
}

cJSON *pg_ax_record_of(const pg_graph *g) {
  if (!g || !g->ax_nodes) return NULL;
  return record_build(g, node_retained, g);
}

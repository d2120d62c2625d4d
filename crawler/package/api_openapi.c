/* api_openapi.c -- OUT/api.openapi.json: an OpenAPI 3.1.0 skeleton of the
 * endpoints in OUT/api.json (docs/api.md "Exports"). One path item per
 * template, one operation per method; endpoints of several origins that
 * share a template and method become one operation, and a path (or an
 * operation) served by only some of the origins names them in its own
 * `servers`. Schemas are empty except request bodies, whose shapes (types,
 * never values) become JSON Schema. Examples and query values are never
 * copied. What OpenAPI has no place for goes into x-uiap-* members.
 */
#include "api_export_int.h"
#include "crawl_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The methods OpenAPI 3.1 has operations for, in the order a path item
 * lists them. Others go to x-uiap-notListed. */
static const char *const oas_methods[] = {"get", "put", "post", "delete", "options", "head", "patch", "trace"};
#define OAS_NMETHODS (sizeof oas_methods / sizeof *oas_methods)

/* Request body kinds (format B requestBody.kinds) to media types. */
static const struct { const char *kind, *media; } body_media[] = {
  {"graphql", "application/json"}, {"json", "application/json"},
  {"form", "application/x-www-form-urlencoded"}, {"other", "*/*"},
};

/* ---- small helpers -------------------------------------------------------- */
static int method_rank(const char *m) {
  for (size_t i = 0; m && i < OAS_NMETHODS; i++)
    if (!strcasecmp(m, oas_methods[i])) return (int)i;
  return -1;
}

static const char *ep_template(const cJSON *ep) { return crawl__str(ep, "template"); }

/* Endpoints by template, then method (path item order), then origin. */
static int cmp_ep(const void *x, const void *y) {
  const cJSON *a = *(const cJSON *const *)x, *b = *(const cJSON *const *)y;
  int c = crawl__natcmp(ep_template(a), ep_template(b));
  if (c) return c;
  int ra = method_rank(crawl__str(a, "method")), rb = method_rank(crawl__str(b, "method"));
  if (ra != rb) return ra - rb;
  return strcmp(crawl__str(a, "origin") ?: "", crawl__str(b, "origin") ?: "");
}

static int same_op(const cJSON *a, const cJSON *b) {
  return !strcmp(ep_template(a), ep_template(b)) && method_rank(crawl__str(a, "method")) ==
                                                       method_rank(crawl__str(b, "method"));
}

/* Push s onto the string array arr unless it is there; NULL: nothing. */
static void add_unique(cJSON *arr, const char *s) {
  if (!s) return;
  const cJSON *x;
  cJSON_ArrayForEach(x, arr) if (cJSON_IsString(x) && !strcmp(x->valuestring, s)) return;
  crawl__jpush(arr, cJSON_CreateString(s));
}

/* Every string of src[key] (an array) into arr, once. */
static void add_all(cJSON *arr, const cJSON *src, const char *key) {
  const cJSON *x;
  cJSON_ArrayForEach(x, crawl__arr(src, key)) if (cJSON_IsString(x)) add_unique(arr, x->valuestring);
}

static int same_set(const cJSON *a, const cJSON *b) {
  if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b)) return 0;
  const cJSON *x;
  cJSON_ArrayForEach(x, a) {
    int found = 0;
    const cJSON *y;
    cJSON_ArrayForEach(y, b) found |= !strcmp(x->valuestring, y->valuestring);
    if (!found) return 0;
  }
  return 1;
}

static cJSON *servers_json(const cJSON *origins) {
  cJSON *s = crawl__jx(cJSON_CreateArray());
  const cJSON *o;
  cJSON_ArrayForEach(o, origins) {
    cJSON *srv = crawl__jx(cJSON_CreateObject());
    crawl__jstr(srv, "url", o->valuestring);
    crawl__jpush(s, srv);
  }
  return s;
}

/* ---- shapes to JSON Schema -------------------------------------------------- */
/* A shape (format A/B: {"name":"string","tags":["string"],"owner":{...}})
 * as JSON Schema: objects with properties, arrays with the items of their
 * first element, leaves by crawl__api_shape_type ({} when unknown). */
static cJSON *shape_schema(const cJSON *shape, int depth) {
  cJSON *s = crawl__jx(cJSON_CreateObject());
  if (depth > CRAWL__API_SHAPE_DEPTH) return s;
  if (cJSON_IsObject(shape)) {
    crawl__jstr(s, "type", "object");
    cJSON *props = crawl__jx(cJSON_CreateObject());
    const cJSON *k;
    int n = 0;
    cJSON_ArrayForEach(k, shape) {
      if (n++ >= CRAWL__API_SHAPE_KEYS || !k->string || cJSON_GetObjectItemCaseSensitive(props, k->string)) continue;
      crawl__jset(props, k->string, shape_schema(k, depth + 1));
    }
    crawl__jset(s, "properties", props);
  } else if (cJSON_IsArray(shape)) {
    crawl__jstr(s, "type", "array");
    if (cJSON_GetArraySize(shape)) crawl__jset(s, "items", shape_schema(cJSON_GetArrayItem(shape, 0), depth + 1));
  } else if (cJSON_IsString(shape)) {
    crawl__jstr(s, "type", crawl__api_shape_type(shape->valuestring));
  }
  return s;
}

/* The body a GraphQL request sends: names of members, never the query. */
static cJSON *graphql_schema(void) {
  cJSON *shape = crawl__jx(cJSON_CreateObject());
  crawl__jstr(shape, "query", "string");
  crawl__jstr(shape, "operationName", "string");
  crawl__jset(shape, "variables", crawl__jx(cJSON_CreateObject()));
  cJSON *s = shape_schema(shape, 0);
  cJSON_Delete(shape);
  return s;
}

/* ---- one operation out of eps[0..k-1] (one template and method) ------------- */
/* parameters: the template's {names} (in: path, required), then the query
 * names seen on any of them. */
static cJSON *op_parameters(const cJSON *const *eps, size_t k) {
  cJSON *names = crawl__jx(cJSON_CreateArray()), *query = crawl__jx(cJSON_CreateArray());
  for (const char *t = ep_template(eps[0]), *open; (open = strchr(t, '{'));) {
    const char *close = strchr(open, '}');
    if (!close) break;
    char *name = crawl__xstrndup(open + 1, (size_t)(close - open - 1));
    if (*name) add_unique(names, name);
    free(name);
    t = close + 1;
  }
  for (size_t i = 0; i < k; i++) add_all(query, eps[i], "queryParams");
  cJSON *params = crawl__jx(cJSON_CreateArray());
  for (int pass = 0; pass < 2; pass++) {
    const cJSON *x, *list = pass ? query : names;
    cJSON_ArrayForEach(x, list) {
      cJSON *p = crawl__jx(cJSON_CreateObject());
      crawl__jstr(p, "name", x->valuestring);
      crawl__jstr(p, "in", pass ? "query" : "path");
      if (!pass) crawl__jset(p, "required", cJSON_CreateTrue());
      cJSON *schema = crawl__jx(cJSON_CreateObject());
      crawl__jstr(schema, "type", "string");
      crawl__jset(p, "schema", schema);
      crawl__jpush(params, p);
    }
  }
  cJSON_Delete(names);
  cJSON_Delete(query);
  return params;
}

static int cmp_num(const void *x, const void *y) { return *(const int *)x - *(const int *)y; }

/* responses: one per status seen (sorted), each with every content type
 * seen (schema {}); "default" when none was seen. */
static cJSON *op_responses(const cJSON *const *eps, size_t k) {
  int st[64];
  size_t n = 0;
  cJSON *types = crawl__jx(cJSON_CreateArray());
  for (size_t i = 0; i < k; i++) {
    add_all(types, eps[i], "contentTypes");
    const cJSON *x;
    cJSON_ArrayForEach(x, crawl__arr(eps[i], "statuses")) {
      int s = cJSON_IsNumber(x) ? x->valueint : 0, dup = 0;
      for (size_t j = 0; j < n; j++) dup |= st[j] == s;
      if (s >= 100 && s <= 599 && !dup && n < sizeof st / sizeof *st) st[n++] = s;
    }
  }
  qsort(st, n, sizeof *st, cmp_num);
  cJSON *r = crawl__jx(cJSON_CreateObject());
  for (size_t j = 0; j < n; j++) {
    cJSON *resp = crawl__jx(cJSON_CreateObject());
    crawl__jstr(resp, "description", "observed");
    if (cJSON_GetArraySize(types)) {
      cJSON *content = crawl__jx(cJSON_CreateObject());
      const cJSON *t;
      cJSON_ArrayForEach(t, types) {
        cJSON *media = crawl__jx(cJSON_CreateObject());
        crawl__jset(media, "schema", crawl__jx(cJSON_CreateObject()));
        crawl__jset(content, t->valuestring, media);
      }
      crawl__jset(resp, "content", content);
    }
    char key[8];
    snprintf(key, sizeof key, "%d", st[j]);
    crawl__jset(r, key, resp);
  }
  if (!n) {
    cJSON *resp = crawl__jx(cJSON_CreateObject());
    crawl__jstr(resp, "description", "no response observed (stopped by the crawler's write guard, or failed)");
    crawl__jset(r, "default", resp);
  }
  cJSON_Delete(types);
  return r;
}

/* requestBody from the body kinds seen, or NULL when none. json and form
 * bodies carry the schema of the first shape seen. */
static cJSON *op_request_body(const cJSON *const *eps, size_t k) {
  cJSON *content = crawl__jx(cJSON_CreateObject());
  for (size_t m = 0; m < sizeof body_media / sizeof *body_media; m++)
    for (size_t i = 0; i < k; i++) {
      const cJSON *rb = crawl__get(eps[i], "requestBody"), *x;
      int has = 0;
      cJSON_ArrayForEach(x, crawl__arr(rb, "kinds")) has |= cJSON_IsString(x) && !strcmp(x->valuestring, body_media[m].kind);
      if (!has || cJSON_GetObjectItemCaseSensitive(content, body_media[m].media)) continue;
      cJSON *media = crawl__jx(cJSON_CreateObject());
      const cJSON *shape = crawl__get(rb, "shape");
      int shaped = m == 1 || m == 2;
      crawl__jset(media, "schema", m == 0 ? graphql_schema() : shaped && shape ? shape_schema(shape, 0)
                                                                           : crawl__jx(cJSON_CreateObject()));
      crawl__jset(content, body_media[m].media, media);
    }
  if (!cJSON_GetArraySize(content)) {
    cJSON_Delete(content);
    return NULL;
  }
  cJSON *body = crawl__jx(cJSON_CreateObject());
  crawl__jset(body, "content", content);
  return body;
}

/* x-uiap-calledFrom: the states, loads, routes and transitions the
 * requests came from (ids only), over eps[0..k-1]. */
static cJSON *op_called_from(const cJSON *const *eps, size_t k) {
  static const char *const lists[] = {"loads", "states", "routes"};
  cJSON *cf = crawl__jx(cJSON_CreateObject());
  for (size_t l = 0; l < sizeof lists / sizeof *lists; l++) {
    cJSON *arr = crawl__jx(cJSON_CreateArray());
    for (size_t i = 0; i < k; i++) add_all(arr, crawl__get(eps[i], "calledFrom"), lists[l]);
    crawl__jset(cf, lists[l], arr);
  }
  cJSON *tr = crawl__jx(cJSON_CreateArray());
  for (size_t i = 0; i < k; i++) {
    const cJSON *t;
    cJSON_ArrayForEach(t, crawl__arr(crawl__get(eps[i], "calledFrom"), "transitions"))
      add_unique(tr, crawl__str(t, "transitionId"));
  }
  crawl__jset(cf, "transitions", tr);
  return cf;
}

/* x-uiap-graphql: the operations ({type, name}) seen, each once; NULL when none. */
static cJSON *op_graphql(const cJSON *const *eps, size_t k) {
  cJSON *ops = crawl__jx(cJSON_CreateArray()), *seen = crawl__jx(cJSON_CreateArray());
  for (size_t i = 0; i < k; i++) {
    const cJSON *o;
    cJSON_ArrayForEach(o, crawl__arr(crawl__get(eps[i], "graphql"), "operations")) {
      const char *type = crawl__str(o, "type"), *name = crawl__str(o, "name");
      char *key = crawl__xprintf("%s\x1f%s", type ?: "", name ?: "");
      int n = cJSON_GetArraySize(seen);
      add_unique(seen, key);
      free(key);
      if (cJSON_GetArraySize(seen) == n) continue;
      cJSON *c = crawl__jx(cJSON_CreateObject());
      crawl__jstr(c, "type", type);
      crawl__jstr(c, "name", name);
      crawl__jpush(ops, c);
    }
  }
  cJSON_Delete(seen);
  if (cJSON_GetArraySize(ops)) return ops;
  cJSON_Delete(ops);
  return NULL;
}

/* x-uiap-guard: passed, read and stopped summed; x-uiap-count likewise. */
static void op_counts(cJSON *op, const cJSON *const *eps, size_t k) {
  static const char *const keys[] = {"passed", "read", "stopped"};
  double count = 0, sum[3] = {0};
  for (size_t i = 0; i < k; i++) {
    count += crawl__num(eps[i], "count", 0);
    for (size_t j = 0; j < 3; j++) sum[j] += crawl__num(crawl__get(eps[i], "guard"), keys[j], 0);
  }
  crawl__jset(op, "x-uiap-count", cJSON_CreateNumber(count));
  cJSON *g = crawl__jx(cJSON_CreateObject());
  for (size_t j = 0; j < 3; j++) crawl__jset(g, keys[j], cJSON_CreateNumber(sum[j]));
  crawl__jset(op, "x-uiap-guard", g);
}

/* x-uiap-principals: each principal with the statuses it got, merged over
 * eps by principal name; NULL when none. */
static cJSON *op_principals(const cJSON *const *eps, size_t k) {
  cJSON *out = crawl__jx(cJSON_CreateArray());
  for (size_t i = 0; i < k; i++) {
    const cJSON *p;
    cJSON_ArrayForEach(p, crawl__arr(eps[i], "principals")) {
      const char *name = crawl__str(p, "principal");
      if (!name) continue;
      cJSON *mine = NULL, *q;
      cJSON_ArrayForEach(q, out) if (!strcmp(crawl__str(q, "principal"), name)) mine = q;
      if (!mine) {
        crawl__jpush(out, mine = crawl__jx(cJSON_CreateObject()));
        crawl__jstr(mine, "principal", name);
        crawl__jset(mine, "statuses", crawl__jx(cJSON_CreateArray()));
      }
      cJSON *sts = cJSON_GetObjectItemCaseSensitive(mine, "statuses");
      const cJSON *s;
      cJSON_ArrayForEach(s, crawl__arr(p, "statuses")) {
        int dup = 0;
        const cJSON *t;
        cJSON_ArrayForEach(t, sts) dup |= t->valueint == s->valueint;
        if (cJSON_IsNumber(s) && !dup) crawl__jpush(sts, cJSON_CreateNumber(s->valueint));
      }
    }
  }
  if (cJSON_GetArraySize(out)) return out;
  cJSON_Delete(out);
  return NULL;
}

/* The operation of eps[0..k-1]: one template and method, one or more
 * origins. operationId: the first endpoint's id (stable: a hash of method,
 * origin and template); x-uiap-endpointIds: all of them. */
static cJSON *operation(const cJSON *const *eps, size_t k) {
  cJSON *op = crawl__jx(cJSON_CreateObject());
  const char *method = crawl__str(eps[0], "method"), *kind = crawl__str(eps[0], "kind");
  char *summary = crawl__xprintf("%s %s", method, ep_template(eps[0]));
  crawl__jstr(op, "summary", summary);
  free(summary);
  crawl__jstr(op, "operationId", crawl__str(eps[0], "id"));
  cJSON *params = op_parameters(eps, k);
  if (cJSON_GetArraySize(params)) crawl__jset(op, "parameters", params);
  else cJSON_Delete(params);
  cJSON *body = op_request_body(eps, k);
  if (body) crawl__jset(op, "requestBody", body);
  crawl__jset(op, "responses", op_responses(eps, k));
  cJSON *ids = crawl__jx(cJSON_CreateArray());
  for (size_t i = 0; i < k; i++) add_unique(ids, crawl__str(eps[i], "id"));
  crawl__jset(op, "x-uiap-endpointIds", ids);
  crawl__jstr(op, "x-uiap-kind", kind);
  op_counts(op, eps, k);
  crawl__jset(op, "x-uiap-calledFrom", op_called_from(eps, k));
  cJSON *gql = op_graphql(eps, k), *pr = op_principals(eps, k);
  if (gql) crawl__jset(op, "x-uiap-graphql", gql);
  if (pr) crawl__jset(op, "x-uiap-principals", pr);
  return op;
}

/* ---- the document ------------------------------------------------------------ */
/* Endpoints OpenAPI can list: not assets, a template that starts with "/",
 * a method it has an operation for. Others go to notlisted (x-uiap-notListed). */
static int listable(const cJSON *ep, cJSON *notlisted) {
  const char *kind = crawl__str(ep, "kind"), *t = ep_template(ep), *m = crawl__str(ep, "method");
  if (!cJSON_IsObject(ep) || (kind && !strcmp(kind, "asset"))) return 0;
  const char *why = !t || t[0] != '/' ? "no path template" : method_rank(m) < 0 ? "a method OpenAPI 3.1 has no operation for"
                                                                              : NULL;
  if (!why) return 1;
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "endpointId", crawl__str(ep, "id"));
  crawl__jstr(o, "method", m);
  crawl__jstr(o, "template", t);
  crawl__jstr(o, "why", why);
  crawl__jpush(notlisted, o);
  return 0;
}

/* The origins of eps[0..k-1], once each, in order. */
static cJSON *origins_of(const cJSON *const *eps, size_t k) {
  cJSON *o = crawl__jx(cJSON_CreateArray());
  for (size_t i = 0; i < k; i++) add_unique(o, crawl__str(eps[i], "origin"));
  return o;
}

/* The path item of eps[0..k-1] (one template, sorted by method): its
 * operations, and `servers` where it is served by fewer origins than
 * top-level servers lists (an operation by fewer than its path). */
static cJSON *path_item(const cJSON *const *eps, size_t k, const cJSON *all) {
  cJSON *item = crawl__jx(cJSON_CreateObject());
  cJSON *mine = origins_of(eps, k);
  if (!same_set(mine, all)) crawl__jset(item, "servers", servers_json(mine));
  for (size_t i = 0, j; i < k; i = j) {
    for (j = i + 1; j < k && same_op(eps[i], eps[j]);) j++;
    cJSON *op = operation(eps + i, j - i), *theirs = origins_of(eps + i, j - i);
    if (!same_set(theirs, mine)) crawl__jset(op, "servers", servers_json(theirs));
    cJSON_Delete(theirs);
    crawl__jset(item, oas_methods[method_rank(crawl__str(eps[i], "method"))], op);
  }
  cJSON_Delete(mine);
  return item;
}

static cJSON *info_json(const cJSON *api, const cJSON *origins) {
  cJSON *info = crawl__jx(cJSON_CreateObject());
  crawl__buf t = {0};
  const cJSON *o;
  cJSON_ArrayForEach(o, origins) crawl__buf_printf(&t, "%s%s", t.n ? ", " : "", o->valuestring);
  crawl__buf_puts(&t, t.n ? " as observed by uiap-crawl" : "an app as observed by uiap-crawl");
  char *title = crawl__buf_take(&t);
  crawl__jstr(info, "title", title);
  free(title);
  crawl__jstr(info, "version", crawl__str(api, "runId") ?: "unknown");
  crawl__jstr(info, "description",
              "The endpoints the app's own UI called while uiap-crawl explored it (OUT/api.json): a skeleton. "
              "Schemas are empty except request bodies, whose shapes hold types, never values; no example, "
              "query value, header value or cookie is copied. Responses list the statuses seen, each with every "
              "content type the endpoint answered with. x-uiap-* members tie operations to the crawl.");
  return info;
}

cJSON *crawl__api_openapi(const cJSON *api) {
  const cJSON *arr = crawl__arr(api, "endpoints"), *x;
  size_t n = 0, cap = (size_t)cJSON_GetArraySize(arr) + 1;
  const cJSON **eps = crawl__xmalloc(cap * sizeof *eps);
  cJSON *notlisted = crawl__jx(cJSON_CreateArray()), *origins = crawl__jx(cJSON_CreateArray());
  add_all(origins, api, "origins");
  cJSON_ArrayForEach(x, arr) if (listable(x, notlisted)) eps[n++] = x;
  for (size_t i = 0; i < n; i++) add_unique(origins, crawl__str(eps[i], "origin"));
  qsort(eps, n, sizeof *eps, cmp_ep);
  cJSON *doc = crawl__jx(cJSON_CreateObject());
  crawl__jstr(doc, "openapi", "3.1.0");
  crawl__jset(doc, "info", info_json(api, origins));
  if (cJSON_GetArraySize(origins)) crawl__jset(doc, "servers", servers_json(origins));
  cJSON *paths = crawl__jx(cJSON_CreateObject());
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && !strcmp(ep_template(eps[i]), ep_template(eps[j]));) j++;
    crawl__jset(paths, ep_template(eps[i]), path_item(eps + i, j - i, origins));
  }
  crawl__jset(doc, "paths", paths);
  crawl__jstr(doc, "x-uiap-runId", crawl__str(api, "runId"));
  crawl__jstr(doc, "x-uiap-generatedAt", crawl__str(api, "generatedAt"));
  if (cJSON_GetArraySize(notlisted)) crawl__jset(doc, "x-uiap-notListed", notlisted);
  else cJSON_Delete(notlisted);
  cJSON_Delete(origins);
  free(eps);
  return doc;
}

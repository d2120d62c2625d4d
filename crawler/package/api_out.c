/* api_out.c -- the endpoint catalog as OUT/api.json (format B, docs/api.md
 * "## api.json"): endpoints sorted by origin, template and method, every
 * list in natural order, so the same journal gives the same bytes. The
 * model is api.c's; writing the file is package_out.c's.
 */
#include "api_int.h"

static int cmp_num_text(const void *x, const void *y) {
  double a = atof(*(char *const *)x), b = atof(*(char *const *)y);
  return a < b ? -1 : a > b;
}

static cJSON *list_json(const strset *s, size_t max) {
  cJSON *a = crawl__jx(cJSON_CreateArray());
  char **v = pk_strset_sorted(s, pk_cmp_nat);
  for (size_t i = 0; i < s->n && (!max || i < max); i++) crawl__jpush(a, cJSON_CreateString(v[i]));
  free(v);
  return a;
}

static cJSON *statuses_json(const strset *s) {
  cJSON *a = crawl__jx(cJSON_CreateArray());
  char **v = pk_strset_sorted(s, cmp_num_text);
  for (size_t i = 0; i < s->n; i++) crawl__jpush(a, cJSON_CreateNumber(atof(v[i])));
  free(v);
  return a;
}

/* ---- request bodies: shapes merged ----------------------------------------------------- */
/* from into into: keys into lacks are added; where both have an object,
 * merged; otherwise into's (the first in natural order of the texts) stays. */
static void shape_merge(cJSON *into, const cJSON *from, int depth) {
  const cJSON *x;
  cJSON_ArrayForEach(x, from) {
    if (!x->string) continue;
    cJSON *have = cJSON_GetObjectItemCaseSensitive(into, x->string);
    if (!have) {
      if (cJSON_GetArraySize(into) < 50) crawl__jset(into, x->string, crawl__jx(cJSON_Duplicate(x, 1)));
    } else if (cJSON_IsObject(have) && cJSON_IsObject(x) && depth < 4) shape_merge(have, x, depth + 1);
  }
}

static cJSON *body_json(const api_ep *e) {
  if (!e->bkinds.n) return NULL;
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jset(o, "kinds", list_json(&e->bkinds, 0));
  if (e->shapes.n) {
    cJSON *shape = crawl__jx(cJSON_CreateObject());
    char **v = pk_strset_sorted(&e->shapes, pk_cmp_nat);
    for (size_t i = 0; i < e->shapes.n; i++) {
      cJSON *s = cJSON_Parse(v[i]);
      shape_merge(shape, s, 1);
      cJSON_Delete(s);
    }
    free(v);
    crawl__jset(o, "shape", shape);
  }
  return o;
}

static cJSON *graphql_json(const api_ep *e) {
  cJSON *ops = crawl__jx(cJSON_CreateArray());
  char **v = pk_strset_sorted(&e->gql, pk_cmp_nat);
  for (size_t i = 0; i < e->gql.n; i++) {
    const char *type = strchr(v[i], '\x1f') + 1;
    cJSON *op = crawl__jx(cJSON_CreateObject());
    crawl__jstr(op, "type", type);
    if (type - 1 > v[i]) {
      char *name = crawl__xstrndup(v[i], (size_t)(type - 1 - v[i]));
      crawl__jstr(op, "name", name);
      free(name);
    }
    crawl__jpush(ops, op);
  }
  free(v);
  cJSON *g = crawl__jx(cJSON_CreateObject());
  crawl__jset(g, "operations", ops);
  return g;
}

/* ---- who called it --------------------------------------------------------------------- */
/* [{id_key: id, "viaActionId", "target"}] from "id \x1f actionId \x1f
 * target JSON" (calledFrom.transitions: transitionId; .actions: stateId). */
static cJSON *callers_json(const strset *s, const char *id_key) {
  cJSON *a = crawl__jx(cJSON_CreateArray());
  char **v = pk_strset_sorted(s, pk_cmp_nat);
  for (size_t i = 0; i < s->n && i < API_CALLERS_MAX; i++) {
    char *t = crawl__xstrdup(v[i]), *act = strchr(t, '\x1f');
    *act++ = 0;
    char *tgt = strchr(act, '\x1f');
    *tgt++ = 0;
    cJSON *o = crawl__jx(cJSON_CreateObject());
    crawl__jstr(o, id_key, t);
    if (*act) crawl__jstr(o, "viaActionId", act);
    cJSON *target = *tgt ? cJSON_Parse(tgt) : NULL;
    if (cJSON_IsObject(target)) crawl__jset(o, "target", target);
    else cJSON_Delete(target);
    crawl__jpush(a, o);
    free(t);
  }
  free(v);
  return a;
}

static cJSON *called_from_json(const api_ep *e) {
  cJSON *c = crawl__jx(cJSON_CreateObject());
  crawl__jset(c, "loads", list_json(&e->loads, 0));
  crawl__jset(c, "states", list_json(&e->states, 0));
  crawl__jset(c, "routes", list_json(&e->routes, 0));
  crawl__jset(c, "transitions", callers_json(&e->transitions, "transitionId"));
  crawl__jset(c, "actions", callers_json(&e->actions, "stateId"));
  return c;
}

/* [{"principal","statuses":[..]}] from "principal \x1f status"; NULL: none. */
static cJSON *principals_json(const api_ep *e) {
  if (!e->principals.n) return NULL;
  cJSON *a = crawl__jx(cJSON_CreateArray());
  char **v = pk_strset_sorted(&e->principals, pk_cmp_nat);
  cJSON *cur = NULL, *sts = NULL;
  size_t curlen = 0;
  for (size_t i = 0; i < e->principals.n; i++) {
    const char *st = strchr(v[i], '\x1f') + 1;
    size_t len = (size_t)(st - 1 - v[i]);
    if (!cur || len != curlen || strncmp(crawl__str(cur, "principal"), v[i], len)) {
      cur = crawl__jx(cJSON_CreateObject());
      char *who = crawl__xstrndup(v[i], len);
      crawl__jstr(cur, "principal", who);
      free(who);
      crawl__jset(cur, "statuses", sts = crawl__jx(cJSON_CreateArray()));
      crawl__jpush(a, cur);
      curlen = len;
    }
    if (*st) crawl__jpush(sts, cJSON_CreateNumber(atof(st)));
  }
  free(v);
  return a;
}

static cJSON *guard_json(const api_ep *e) {
  cJSON *g = crawl__jx(cJSON_CreateObject());
  pk_jnum(g, "passed", (double)e->passed);
  pk_jnum(g, "read", (double)e->read);
  pk_jnum(g, "stopped", (double)e->stopped);
  return g;
}

static cJSON *endpoint_json(const api_ep *e) {
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "id", e->id);
  crawl__jstr(o, "method", e->method);
  crawl__jstr(o, "origin", e->origin);
  crawl__jstr(o, "template", e->tpl);
  cJSON *pp = crawl__jx(cJSON_CreateArray());
  for (size_t i = 0; i < e->nparams; i++) crawl__jpush(pp, cJSON_CreateString(e->params[i]));
  crawl__jset(o, "pathParams", pp);
  crawl__jset(o, "queryParams", list_json(&e->query, 0));
  crawl__jstr(o, "kind", api_kinds[e->kind < 0 ? 2 : e->kind]);
  if (e->kind == 3) crawl__jset(o, "graphql", graphql_json(e));
  cJSON *body = body_json(e);
  if (body) crawl__jset(o, "requestBody", body);
  crawl__jset(o, "statuses", statuses_json(&e->statuses));
  crawl__jset(o, "contentTypes", list_json(&e->ctypes, 0));
  pk_jnum(o, "count", (double)e->count);
  crawl__jset(o, "examples", list_json(&e->examples, API_EXAMPLES_MAX));
  crawl__jset(o, "calledFrom", called_from_json(e));
  cJSON *pr = principals_json(e);
  if (pr) crawl__jset(o, "principals", pr);
  crawl__jset(o, "guard", guard_json(e));
  return o;
}

/* ---- access differences ---------------------------------------------------------------- */
static int has_status(const cJSON *sts, int lo, int hi) {
  const cJSON *x;
  cJSON_ArrayForEach(x, sts) if (cJSON_IsNumber(x) && x->valueint >= lo && x->valueint <= hi) return 1;
  return 0;
}

/* One principal was refused (401 or 403, never a 2xx) and another served
 * (a 2xx): the endpoint's accessDifferences entry, else NULL. */
static cJSON *access_difference(const cJSON *ep) {
  const cJSON *p, *prs = crawl__arr(ep, "principals");
  int refused = 0, served = 0;
  cJSON_ArrayForEach(p, prs) {
    const cJSON *sts = crawl__arr(p, "statuses");
    int ok = has_status(sts, 200, 299);
    served |= ok;
    refused |= !ok && (has_status(sts, 401, 401) || has_status(sts, 403, 403));
  }
  if (!refused || !served) return NULL;
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "endpointId", crawl__str(ep, "id"));
  crawl__jstr(o, "method", crawl__str(ep, "method"));
  crawl__jstr(o, "template", crawl__str(ep, "template"));
  crawl__jset(o, "principals", crawl__jx(cJSON_Duplicate(prs, 1)));
  return o;
}

static cJSON *stopped_json(const pk_api *a) {
  cJSON *arr = crawl__jx(cJSON_CreateArray());
  char **v = pk_strset_sorted(&a->stopped, pk_cmp_nat);
  for (size_t i = 0; i < a->stopped.n; i++) crawl__jpush(arr, crawl__jx(cJSON_Parse(strchr(v[i], '\x1e') + 1)));
  free(v);
  return arr;
}

cJSON *pk_api_json(const pk_api *a, const pk *b) {
  cJSON *o = crawl__jx(cJSON_CreateObject());
  pk_jnum(o, "apiVersion", 1);
  crawl__jstr(o, "runId", crawl__str(b->run, "runId") ? crawl__str(b->run, "runId") : "unknown");
  const char *at = b->end ? (crawl__str(b->end, "finishedAt") ?: crawl__str(b->end, "at")) : NULL;
  crawl__jstr(o, "generatedAt", at ? at : crawl__str(b->run, "startedAt") ?: crawl__str(b->run, "at") ?: "");
  strset origins = {0};
  cJSON *eps = crawl__jx(cJSON_CreateArray()), *diffs = crawl__jx(cJSON_CreateArray());
  char **keys = pk_strset_sorted(&a->ep_keys, pk_cmp_nat);
  for (size_t i = 0; i < a->ep_keys.n; i++) {
    const api_ep *e = &a->eps[pk_strset_find(&a->ep_keys, keys[i])];
    pk_strset_add(&origins, e->origin);
    cJSON *ej = endpoint_json(e), *d = access_difference(ej);
    crawl__jpush(eps, ej);
    if (d) crawl__jpush(diffs, d);
  }
  free(keys);
  crawl__jset(o, "origins", list_json(&origins, 0));
  pk_strset_free(&origins);
  crawl__jset(o, "endpoints", eps);
  crawl__jset(o, "stoppedWrites", stopped_json(a));
  crawl__jset(o, "accessDifferences", diffs);
  pk_jnum(o, "assets", (double)a->assets);
  return o;
}

/* netlog_body.c -- what a request body is, without what it says: the
 * shape of a JSON body (keys and value types), a form's keys, a GraphQL
 * request's operations (graphql.c's scanner), or just its content type;
 * and the endpoint template of a URL's path (pg_route_template, in
 * OpenAPI's "{name}" style). Never a value: the result holds keys, type
 * names and operation names only. Reads nothing but its arguments.
 *
 * Not here: the log of requests and its records (netlog.c).
 */
#include "crawl_base.h"
#include "crawl_pkg.h"
#include "crawl_util.h"
#include "graphql.h"
#include "netlog.h"
#include "pg_url.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define KEY_MAX 100   /* a key longer than this is cut */

/* ---- JSON ---------------------------------------------------------------------------- */
static const struct { int type; const char *name; } json_types[] = {
  {cJSON_String, "string"}, {cJSON_Number, "number"}, {cJSON_True, "boolean"},
  {cJSON_False, "boolean"}, {cJSON_NULL, "null"},     {cJSON_Object, "object"}, {cJSON_Array, "array"},
};

static const char *type_name(const cJSON *v) {
  for (size_t i = 0; i < sizeof json_types / sizeof *json_types; i++)
    if ((v->type & 0xff) == json_types[i].type) return json_types[i].name;
  return "unknown";
}

/* v's shape: a type name, an object of shapes, an array of its first
 * element's shape; depth counts down; *keys the keys left for the body. */
static cJSON *json_shape(const cJSON *v, int depth, int *keys) {
  int container = cJSON_IsObject(v) || cJSON_IsArray(v);
  if (!container || depth <= 0) return crawl__jx(cJSON_CreateString(type_name(v)));
  if (cJSON_IsArray(v)) {
    cJSON *a = crawl__jx(cJSON_CreateArray());
    if (v->child) cJSON_AddItemToArray(a, json_shape(v->child, depth - 1, keys));
    return a;
  }
  cJSON *o = crawl__jx(cJSON_CreateObject());
  for (const cJSON *c = v->child; c && *keys > 0; c = c->next) {
    if (!c->string) continue;
    char k[KEY_MAX + 1];
    snprintf(k, sizeof k, "%s", c->string);
    if (cJSON_GetObjectItemCaseSensitive(o, k)) continue;
    --*keys;
    cJSON_AddItemToObject(o, k, json_shape(c, depth - 1, keys));
  }
  return o;
}

/* ---- GraphQL ------------------------------------------------------------------------- */
/* "mutation AddItem" (crawl__gql_scan's name) as {type, name}. */
static cJSON *gql_operation(crawl_gql_kind kind, const char *what, const char *op_name) {
  static const char *const types[] = {"query", "mutation", "subscription"};
  cJSON *o = crawl__jx(cJSON_CreateObject());
  const char *type = "unknown", *name = NULL;
  for (size_t i = 0; kind != CRAWL_GQL_BAD && i < sizeof types / sizeof *types; i++) {
    size_t n = strlen(types[i]);
    if (!strncmp(what, types[i], n) && (what[n] == ' ' || !what[n])) type = types[i], name = what[n] ? what + n + 1 : NULL;
  }
  crawl__jstr(o, "type", type);
  if (name && *name) crawl__jstr(o, "name", name);
  else if (op_name && strlen(op_name) <= KEY_MAX) crawl__jstr(o, "name", op_name);
  return o;
}

/* One GraphQL request object ({query|id|extensions, operationName}) into ops. */
static void gql_object(const cJSON *j, cJSON *ops) {
  const char *q = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "query"));
  const char *op = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "operationName"));
  char what[200] = "";
  crawl_gql_kind k = q ? crawl__gql_scan(q, strlen(q), what, sizeof what) : CRAWL_GQL_BAD;
  cJSON_AddItemToArray(ops, gql_operation(k, what, op));
}

/* A GraphQL body as {"kind":"graphql","operations":[...]}, or NULL when it is none. */
static cJSON *gql_shape(const char *ct, const char *body, size_t len, const cJSON *j) {
  if (crawl__gql_request(ct, body, len, NULL, NULL, 0) == CRAWL_GQL_NONE) return NULL;
  cJSON *o = crawl__jx(cJSON_CreateObject()), *ops = crawl__jx(cJSON_CreateArray());
  crawl__jstr(o, "kind", "graphql");
  if (!j) { /* application/graphql: the document itself */
    char what[200] = "";
    crawl_gql_kind k = crawl__gql_scan(body, len, what, sizeof what);
    cJSON_AddItemToArray(ops, gql_operation(k, what, NULL));
  } else if (cJSON_IsArray(j)) {
    int n = 0;
    for (const cJSON *e = j->child; e && n < CRAWL__NETLOG_KEYS; e = e->next, n++) gql_object(e, ops);
  } else {
    gql_object(j, ops);
  }
  cJSON_AddItemToObject(o, "operations", ops);
  return o;
}

/* ---- forms and the rest -------------------------------------------------------------- */
/* The keys of an application/x-www-form-urlencoded body (first come, at most KEYS). */
static cJSON *form_shape(const char *body, size_t len) {
  cJSON *o = crawl__jx(cJSON_CreateObject()), *sh = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "kind", "form");
  int keys = CRAWL__NETLOG_KEYS;
  for (size_t i = 0; i < len && keys > 0;) {
    size_t e = i;
    while (e < len && body[e] != '&') e++;
    size_t k = i;
    while (k < e && body[k] != '=') k++;
    char key[KEY_MAX + 1];
    snprintf(key, sizeof key, "%.*s", (int)(k - i < KEY_MAX ? k - i : KEY_MAX), body + i);
    if (key[0] && !cJSON_GetObjectItemCaseSensitive(sh, key)) {
      cJSON_AddStringToObject(sh, key, "string");
      keys--;
    }
    i = e + 1;
  }
  cJSON_AddItemToObject(o, "shape", sh);
  return o;
}

/* The media type of ct, without its parameters, lower case, into buf. */
static const char *media_type(const char *ct, char *buf, size_t n) {
  size_t i = 0;
  for (; ct && ct[i] && ct[i] != ';' && i + 1 < n; i++) buf[i] = (char)(ct[i] >= 'A' && ct[i] <= 'Z' ? ct[i] + 32 : ct[i]);
  while (i > 0 && buf[i - 1] == ' ') i--;
  buf[i] = 0;
  return buf;
}

static cJSON *other_shape(const char *mt) {
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "kind", "other");
  if (mt[0]) crawl__jstr(o, "contentType", mt);
  return o;
}

cJSON *crawl__netlog_body_shape(const char *content_type, const char *body, size_t len) {
  if (!body || !len) return NULL;
  char mt[120];
  media_type(content_type, mt, sizeof mt);
  if (!strcmp(mt, "application/x-www-form-urlencoded")) return form_shape(body, len);
  cJSON *j = strstr(mt, "json") || !mt[0] || !strcmp(mt, "text/plain") ? cJSON_ParseWithLength(body, len) : NULL;
  cJSON *o = gql_shape(content_type, body, len, j);
  if (!o && (cJSON_IsObject(j) || cJSON_IsArray(j))) {
    int keys = CRAWL__NETLOG_KEYS;
    o = crawl__jx(cJSON_CreateObject());
    crawl__jstr(o, "kind", "json");
    cJSON_AddItemToObject(o, "shape", json_shape(j, CRAWL__NETLOG_DEPTH, &keys));
  }
  cJSON_Delete(j);
  return o ? o : other_shape(mt);
}

/* ---- endpoint templates -------------------------------------------------------------- */
char *crawl__netlog_template(const char *url) {
  const char *rest = url ? pg_url_rest(url) : NULL;
  if (!rest || rest[0] != '/') return NULL;
  char *path = crawl__xprintf("%.*s", (int)pg_url_query_start(rest), rest);
  char *t = crawl_api_path_template(path);
  free(path);
  return t;
}

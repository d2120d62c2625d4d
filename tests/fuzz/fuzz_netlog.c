/* fuzz_netlog.c -- libFuzzer target for the request log's body reader
 * (crawler/run/netlog_body.c, crawl__netlog_body_shape): every body comes
 * from a page. The first input byte picks a content type, the rest is the
 * body. Besides "no crash, no leak, no undefined behaviour" it checks what
 * the header promises: a JSON shape's leaves are type names only (never a
 * value), at most CRAWL__NETLOG_KEYS keys and CRAWL__NETLOG_DEPTH levels of
 * containers; a form's values are "string"; GraphQL operation types are
 * one of four words; the result is always one of the four kinds.
 * Seeds: corpus/netlog/. */
#include "netlog.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x) do { if (!(x)) abort(); } while (0)

static const char *const types[] = {"application/json", "application/x-www-form-urlencoded", "application/graphql",
                                    "text/plain", NULL, "application/json; charset=utf-8", "multipart/form-data; b=x"};

static int one_of(const char *s, const char *const *v) {
  for (int i = 0; s && v[i]; i++)
    if (!strcmp(s, v[i])) return 1;
  return 0;
}

/* Leaves are type names; returns the keys counted; depth: containers left. */
static int check_shape(const cJSON *j, int depth) {
  static const char *const leaves[] = {"string", "number", "boolean", "null", "object", "array", "unknown", NULL};
  if (cJSON_IsString(j)) {
    CHECK(one_of(j->valuestring, leaves));
    return 0;
  }
  CHECK((cJSON_IsObject(j) || cJSON_IsArray(j)) && depth > 0);
  CHECK(!cJSON_IsArray(j) || cJSON_GetArraySize(j) <= 1);
  int keys = 0;
  for (const cJSON *c = j->child; c; c = c->next) keys += cJSON_IsObject(j) + check_shape(c, depth - 1);
  return keys;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!size) return 0;
  const char *ct = types[data[0] % (sizeof types / sizeof *types)];
  cJSON *sh = crawl__netlog_body_shape(ct, (const char *)data + 1, size - 1);
  if (size == 1) {
    CHECK(!sh); /* no body, no shape */
    return 0;
  }
  CHECK(sh);
  const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sh, "kind"));
  static const char *const kinds[] = {"json", "form", "graphql", "other", NULL};
  CHECK(one_of(kind, kinds));
  const cJSON *shape = cJSON_GetObjectItemCaseSensitive(sh, "shape");
  if (!strcmp(kind, "json")) CHECK(check_shape(shape, CRAWL__NETLOG_DEPTH) <= CRAWL__NETLOG_KEYS);
  if (!strcmp(kind, "form")) {
    CHECK(cJSON_GetArraySize(shape) <= CRAWL__NETLOG_KEYS);
    for (const cJSON *c = shape->child; c; c = c->next) CHECK(!strcmp(c->valuestring, "string"));
  }
  if (!strcmp(kind, "graphql")) {
    static const char *const ops[] = {"query", "mutation", "subscription", "unknown", NULL};
    const cJSON *o;
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(sh, "operations"))
      CHECK(one_of(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "type")), ops));
  }
  char *t = cJSON_PrintUnformatted(sh);
  CHECK(t);
  free(t);
  cJSON_Delete(sh);
  return 0;
}

/* package_helpers.h -- what the unit tests of the package (crawler_package*.c)
 * share: building a package from a crawl directory, paths into it, review
 * item and catalog lookups, schema validation. Included once per file. */
#ifndef UIAP_TESTS_PACKAGE_HELPERS_H
#define UIAP_TESTS_PACKAGE_HELPERS_H

#include <criterion/criterion.h>

#include "crawl.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIXTURES UIAP_SRC "/tests/fixtures/journals"

/* ---- helpers ---------------------------------------------------------------- */

static inline cJSON *build(const char *dir) {
  cJSON *p = NULL;
  char err[512] = "";
  crawl_code rc = crawl_package_build(dir, &p, err, sizeof err);
  cr_assert_eq(rc, CRAWL_OK, "crawl_package_build: %s (%s)", crawl_strerror(rc), err);
  cr_assert(p);
  return p;
}

static inline const cJSON *get(const cJSON *o, const char *path) {
  /* "a.b.c" */
  char buf[256];
  snprintf(buf, sizeof buf, "%s", path);
  const cJSON *x = o;
  for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && x; k = strtok_r(NULL, ".", &save))
    x = cJSON_GetObjectItemCaseSensitive(x, k);
  return x;
}
static inline const char *str(const cJSON *o, const char *path) { return cJSON_GetStringValue(get(o, path)); }
static inline double num(const cJSON *o, const char *path) {
  const cJSON *x = get(o, path);
  cr_assert(cJSON_IsNumber(x), "%s is not a number", path);
  return x->valuedouble;
}
static inline int len(const cJSON *o, const char *path) {
  const cJSON *x = get(o, path);
  cr_assert(cJSON_IsArray(x), "%s is not an array", path);
  return cJSON_GetArraySize(x);
}
/* First member of array `path` whose string `key` equals v. */
static inline const cJSON *find(const cJSON *o, const char *path, const char *key, const char *v) {
  const cJSON *x;
  cJSON_ArrayForEach(x, get(o, path)) {
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, key));
    if (s && !strcmp(s, v)) return x;
  }
  return NULL;
}
static inline int has_str(const cJSON *arr, const char *v) {
  const cJSON *x;
  cJSON_ArrayForEach(x, arr) if (cJSON_IsString(x) && !strcmp(x->valuestring, v)) return 1;
  return 0;
}
static inline int count_kind(const cJSON *p, const char *kind) {
  int n = 0;
  const cJSON *x;
  cJSON_ArrayForEach(x, get(p, "reviewQueue.items")) if (!strcmp(str(x, "kind"), kind)) n++;
  return n;
}
/* The review item of `kind` whose description contains `needle`. */
static inline const cJSON *item(const cJSON *p, const char *kind, const char *needle) {
  const cJSON *x;
  cJSON_ArrayForEach(x, get(p, "reviewQueue.items"))
    if (!strcmp(str(x, "kind"), kind) && strstr(str(x, "description"), needle)) return x;
  return NULL;
}
static inline int has_evidence(const cJSON *x, const char *source, const char *ref) {
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(x, "evidence"))
    if (!strcmp(str(e, "source"), source) && !strcmp(str(e, "refId"), ref)) return 1;
  return 0;
}
static inline const cJSON *element(const cJSON *p, const char *key, const char *v) {
  return find(p, "elementCatalog.elements", key, v);
}
static inline const cJSON *element_named(const cJSON *p, const char *route, const char *role, const char *name) {
  const cJSON *x;
  cJSON_ArrayForEach(x, get(p, "elementCatalog.elements"))
    if (!strcmp(str(x, "role"), role) && has_str(get(x, "routes"), route) && has_str(get(x, "names"), name)) return x;
  return NULL;
}

static inline void validate_package(const cJSON *p, const char *dir) {
  char path[1024], msg[8192];
  snprintf(path, sizeof path, "%s/check.json", dir);
  char *text = cJSON_Print(p);
  cr_assert_eq(t_write_file(path, text), 0);
  free(text);
  cr_assert_eq(t_validate("DiscoveryPackage", path, msg, sizeof msg), 0, "DiscoveryPackage invalid:\n%s", msg);
  unlink(path);
}

#endif

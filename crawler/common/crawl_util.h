/* crawl_util.h -- helpers every crawler library shares (common/, json.c and
 * envelope.c): JSON loading with a line/column on error, case-sensitive
 * getters, cJSON constructors that abort on out of memory, frozen JSON, the
 * UIAP envelope. The generic helpers (allocation, buffers, maps, hex, files,
 * order, hash, time) are the base layer's: crawl_base.h, included here so
 * crawler code sees one header.
 * Internal to crawler/: never included by cdp/, graph/, policy/ or a user of
 * the library. */
#ifndef UIAP_CRAWL_UTIL_H
#define UIAP_CRAWL_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "crawl_base.h"

#define CRAWL__FILE_MAX ((size_t)512 << 20) /* package, journal, state file cap */

/* Parse a JSON file. On failure NULL and one line in err ("PATH: not JSON
 * (line L, column C)" or "PATH: <strerror>"). */
cJSON *crawl__json_load(const char *path, char *err, size_t errlen);
/* Load DIR/package.json, or the file itself when path is not a directory. */
cJSON *crawl__package_load(const char *path, char *err, size_t errlen);

/* Case-sensitive getters; NULL when absent or of another type. */
static inline const cJSON *crawl__get(const cJSON *o, const char *k) {
  return o ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
}
static inline const char *crawl__str(const cJSON *o, const char *k) {
  const cJSON *x = crawl__get(o, k);
  return cJSON_IsString(x) ? x->valuestring : NULL;
}
static inline double crawl__num(const cJSON *o, const char *k, double dflt) {
  const cJSON *x = crawl__get(o, k);
  return cJSON_IsNumber(x) ? x->valuedouble : dflt;
}
static inline const cJSON *crawl__arr(const cJSON *o, const char *k) {
  const cJSON *x = crawl__get(o, k);
  return cJSON_IsArray(x) ? x : NULL;
}
/* o[k1][k2] as an array (e.g. routeCatalog.routes), NULL if not one. */
static inline const cJSON *crawl__arr2(const cJSON *o, const char *k1, const char *k2) {
  return crawl__arr(crawl__get(o, k1), k2);
}

/* cJSON constructors that abort on out of memory. */
cJSON *crawl__jx(cJSON *x);
void crawl__jset(cJSON *o, const char *k, cJSON *v);
void crawl__jstr(cJSON *o, const char *k, const char *v); /* NULL v: nothing */
void crawl__jpush(cJSON *a, cJSON *v);
char *crawl__jtext(const cJSON *x, int pretty);
/* Link item into parent (array or object; item->string is kept) before the
 * child `before`, or at the end when before is NULL. */
void crawl__insert_before(cJSON *parent, cJSON *before, cJSON *item);

/* ---- frozen JSON: read-only copies that cost little ------------------------ */
/* A reader that keeps many parsed records (the package keeps the journal's)
 * keeps frozen copies: the same members in the same order with the same
 * values, read with the usual getters, but carved out of one arena, each
 * distinct string stored once: about a third of a cJSON tree's memory.
 * A frozen tree lives until crawl__jarena_release; never cJSON_Delete it,
 * change it or link it into another tree (cJSON_Duplicate of it gives an
 * ordinary tree). Zero is an empty arena. */
typedef struct crawl__jslot { char *s; uint64_t h; } crawl__jslot;
typedef struct crawl__jarena {
  struct crawl__jblock *blocks;
  crawl__jslot *slot;         /* interned strings */
  size_t cap, n;
  size_t bytes;               /* held in blocks */
} crawl__jarena;
/* A frozen copy of src (not of its siblings); NULL for NULL. */
const cJSON *crawl__jfreeze(crawl__jarena *a, const cJSON *src);
void crawl__jarena_release(crawl__jarena *a);
/* text (len bytes) parsed straight into frozen nodes, no tree in between:
 * what cJSON_ParseWithLengthOpts(text, len, NULL, 0) gives, frozen; NULL
 * when that fails (parse with cJSON then, for where). */
const cJSON *crawl__jarena_parse(crawl__jarena *a, const char *text, size_t len);

/* The UIAP message envelope: crawl_msg and crawl_envelope (crawl_common.h). */

#endif

/* crawl_strmap.h -- the crawler's one string map: NUL-terminated keys to a
 * long value (typically an index into the caller's own array), open
 * addressing on XXH3-64. Keys are copied into the map; values are the
 * caller's. Internal to crawler/. Out of memory aborts (crawl__xrealloc).
 *
 *   crawl__strmap m = {0};            // zero is an empty map
 *   crawl__strmap_put(&m, "s1", 0);
 *   long i = crawl__strmap_get(&m, "s1");   // 0; -1 when absent
 *   crawl__strmap_release(&m);
 */
#ifndef UIAP_CRAWL_STRMAP_H
#define UIAP_CRAWL_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct crawl__strmap_slot {
  char *key;            /* NULL: empty slot */
  uint64_t hash;
  long value;
} crawl__strmap_slot;

typedef struct crawl__strmap {
  crawl__strmap_slot *slot;
  size_t cap;           /* a power of two, or 0 */
  size_t n;             /* keys held */
} crawl__strmap;

/* The value stored for key, or -1 when key is absent (or NULL). */
long crawl__strmap_get(const crawl__strmap *m, const char *key);
/* key with an explicit length (need not be NUL-terminated). */
long crawl__strmap_getn(const crawl__strmap *m, const char *key, size_t len);
/* Store value under key (a copy of key is kept), replacing an earlier
 * value. Returns 1 when key was new, 0 when it replaced one. */
int crawl__strmap_put(crawl__strmap *m, const char *key, long value);
/* The value for key; when absent, value is stored and returned, and *added
 * (may be NULL) set to 1. One hash and probe for both. */
long crawl__strmap_intern(crawl__strmap *m, const char *key, long value, int *added);
/* The map's own copy of key, added (its value: the count of keys before
 * it) when absent: a pool of strings each kept once, their pointers stable
 * until the map is released. */
const char *crawl__strmap_keep(crawl__strmap *m, const char *key);
/* The map's own copy of key, or NULL when absent (or key NULL). */
const char *crawl__strmap_key(const crawl__strmap *m, const char *key);
/* Free the keys and the table; the map is empty again. */
void crawl__strmap_release(crawl__strmap *m);

#endif

/* intmap.c -- the integer map of crawl_base.h: int64 keys to a long value,
 * linear probing on XXH3-64 (crawl__hash_bytes, the string map's hash),
 * grown at 3/4 load, never shrunk (callers only add keys). */
#include <stdlib.h>
#include <string.h>

#include "crawl_base.h"

static uint64_t key_hash(int64_t key) { return crawl__hash_bytes(&key, sizeof key, 0); }

static size_t find(const crawl__intmap *m, int64_t key) {
  size_t mask = m->cap - 1, i = (size_t)key_hash(key) & mask;
  while (m->slot[i].used && m->slot[i].key != key) i = (i + 1) & mask;
  return i; /* key's slot, or the empty one where it would go */
}

static void grow(crawl__intmap *m) {
  size_t cap = m->cap ? m->cap * 2 : 16;
  crawl__intmap old = *m;
  m->slot = crawl__xcalloc(cap, sizeof *m->slot);
  m->cap = cap;
  for (size_t i = 0; i < old.cap; i++)
    if (old.slot[i].used) m->slot[find(m, old.slot[i].key)] = old.slot[i];
  free(old.slot);
}

void crawl__intmap_reserve(crawl__intmap *m, size_t n) {
  while (n * 4 > m->cap * 3) grow(m);
}

long crawl__intmap_get(const crawl__intmap *m, int64_t key) {
  if (!m->cap) return -1;
  size_t i = find(m, key);
  return m->slot[i].used ? m->slot[i].value : -1;
}

long crawl__intmap_intern(crawl__intmap *m, int64_t key, long value, int *added) {
  if (added) *added = 0;
  if ((m->n + 1) * 4 > m->cap * 3) grow(m);
  size_t i = find(m, key);
  if (m->slot[i].used) return m->slot[i].value;
  m->slot[i] = (crawl__intmap_slot){key, value, 1};
  m->n++;
  if (added) *added = 1;
  return value;
}

int crawl__intmap_put(crawl__intmap *m, int64_t key, long value) {
  int added;
  crawl__intmap_intern(m, key, value, &added);
  if (!added) m->slot[find(m, key)].value = value;
  return added;
}

void crawl__intmap_release(crawl__intmap *m) {
  free(m->slot);
  *m = (crawl__intmap){0};
}

/* strmap.c -- the string map of crawl_base.h: linear probing on XXH3-64
 * (crawl__hash_bytes), grown at 3/4 load, never shrunk (callers only add
 * keys). */
#include <stdlib.h>
#include <string.h>

#include "crawl_base.h"

static uint64_t key_hash(const char *key, size_t len) { return crawl__hash_bytes(key, len, 0); }

static size_t find(const crawl__strmap *m, const char *key, size_t len, uint64_t h) {
  size_t mask = m->cap - 1, i = (size_t)h & mask;
  while (m->slot[i].key) {
    const crawl__strmap_slot *s = &m->slot[i];
    if (s->hash == h && !strncmp(s->key, key, len) && s->key[len] == 0) return i;
    i = (i + 1) & mask;
  }
  return i; /* the empty slot where key would go */
}

static void grow(crawl__strmap *m) {
  size_t cap = m->cap ? m->cap * 2 : 16;
  crawl__strmap old = *m;
  m->slot = crawl__xcalloc(cap, sizeof *m->slot);
  m->cap = cap;
  for (size_t i = 0; i < old.cap; i++) {
    if (!old.slot[i].key) continue;
    size_t mask = cap - 1, j = (size_t)old.slot[i].hash & mask;
    while (m->slot[j].key) j = (j + 1) & mask;
    m->slot[j] = old.slot[i];
  }
  free(old.slot);
}

long crawl__strmap_getn(const crawl__strmap *m, const char *key, size_t len) {
  if (!key || !m->cap) return -1;
  size_t i = find(m, key, len, key_hash(key, len));
  return m->slot[i].key ? m->slot[i].value : -1;
}

long crawl__strmap_get(const crawl__strmap *m, const char *key) {
  return key ? crawl__strmap_getn(m, key, strlen(key)) : -1;
}

long crawl__strmap_intern(crawl__strmap *m, const char *key, long value, int *added) {
  if (added) *added = 0;
  if ((m->n + 1) * 4 > m->cap * 3) grow(m);
  size_t len = strlen(key);
  uint64_t h = key_hash(key, len);
  size_t i = find(m, key, len, h);
  if (m->slot[i].key) return m->slot[i].value;
  m->slot[i] = (crawl__strmap_slot){crawl__xstrdup(key), h, value};
  m->n++;
  if (added) *added = 1;
  return value;
}

const char *crawl__strmap_keep(crawl__strmap *m, const char *key) {
  if ((m->n + 1) * 4 > m->cap * 3) grow(m);
  size_t len = strlen(key);
  uint64_t h = key_hash(key, len);
  size_t i = find(m, key, len, h);
  if (!m->slot[i].key) {
    m->slot[i] = (crawl__strmap_slot){crawl__xstrdup(key), h, (long)m->n};
    m->n++;
  }
  return m->slot[i].key;
}

const char *crawl__strmap_key(const crawl__strmap *m, const char *key) {
  if (!key || !m->cap) return NULL;
  size_t len = strlen(key);
  size_t i = find(m, key, len, key_hash(key, len));
  return m->slot[i].key;
}

int crawl__strmap_put(crawl__strmap *m, const char *key, long value) {
  int added;
  crawl__strmap_intern(m, key, value, &added);
  if (!added) m->slot[find(m, key, strlen(key), key_hash(key, strlen(key)))].value = value;
  return added;
}

void crawl__strmap_release(crawl__strmap *m) {
  for (size_t i = 0; i < m->cap; i++) free(m->slot[i].key);
  free(m->slot);
  *m = (crawl__strmap){0};
}

/* package_strset.c -- the strings of one package build: the thread-local pool
 * that keeps each string once, and strset, the insertion-ordered set of pool
 * strings every catalog entry is made of (plus name normalisation and natural
 * order). Owns no catalog; everything else in crawler/package/package_*.c
 * builds on it.
 */
#include "pkg_int.h"
/* ---- strings ---------------------------------------------------------------- */
int pk_cmp_nat(const void *x, const void *y) {
  return crawl__natcmp(*(const char *const *)x, *(const char *const *)y);
}
static int cmp_str(const void *x, const void *y) { return strcmp(*(const char *const *)x, *(const char *const *)y); }

/* Whitespace collapsed and trimmed, digit runs as "#", ASCII lower case when
 * `lower` (the name part of a semanticKey). NULL -> "". Caller frees. */
char *pk_norm(const char *s, int lower) {
  size_t n = s ? strlen(s) : 0;
  char *o = crawl__xrealloc(NULL, n + 1), *w = o;
  int space = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == ' ' || (c >= '\t' && c <= '\r') || (c == 0xC2 && (unsigned char)s[i + 1] == 0xA0)) {
      if (c == 0xC2) i++;
      space = 1;
      continue;
    }
    if (space && w > o) *w++ = ' ';
    space = 0;
    if (c >= '0' && c <= '9') {
      while (i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9') i++;
      *w++ = '#';
      continue;
    }
    *w++ = lower && c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : (char)c;
  }
  *w = 0;
  return o;
}

/* At most max bytes, cut on a UTF-8 boundary. */
size_t pk_utf8_cut(const char *s, size_t max) {
  size_t n = strlen(s);
  if (n <= max) return n;
  while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80) max--;
  return max;
}

/* ---- the build's strings, each kept once ------------------------------------- */
/* The sets of a build hold pointers into one pool: a state id that is in a
 * thousand elements' sets is stored once, and a set compares pointers. The
 * pool lives for one package_build (thread-local: the listen server builds
 * on its own threads); nothing of it outlives the build. */
static _Thread_local crawl__strmap pk_pool;

static char *pool_keep(const char *k) { return (char *)crawl__strmap_keep(&pk_pool, k); }
void pk_pool_release(void) { crawl__strmap_release(&pk_pool); }


/* The index of a set: positions by pool pointer (4 bytes a slot, where a
 * map would copy every key into every set), hashed with the base's hash. */
static size_t ptr_hash(const void *p) { return (size_t)crawl__hash_bytes(&p, sizeof p, 0); }

static void strset_ix_insert(strset *s, size_t pos) {
  size_t mask = s->ixcap - 1, i = ptr_hash(s->v[pos]) & mask;
  while (s->ix[i]) i = (i + 1) & mask;
  s->ix[i] = (uint32_t)pos + 1;
}

static void strset_ix_build(strset *s, size_t cap) {
  free(s->ix);
  s->ix = crawl__xcalloc(cap, sizeof *s->ix);
  s->ixcap = cap;
  for (size_t k = 0; k < s->n; k++) strset_ix_insert(s, k);
}

/* Position of pool string p in s, or -1. */
static long strset_find_kept(const strset *s, const char *p) {
  if (!s->ix) {
    for (size_t j = 0; j < s->n; j++)
      if (s->v[j] == p) return (long)j;
    return -1;
  }
  size_t mask = s->ixcap - 1;
  for (size_t i = ptr_hash(p) & mask; s->ix[i]; i = (i + 1) & mask)
    if (s->v[s->ix[i] - 1] == p) return (long)s->ix[i] - 1;
  return -1;
}

long pk_strset_find(const strset *s, const char *k) {
  const char *p = s->n ? crawl__strmap_key(&pk_pool, k) : NULL;
  return p ? strset_find_kept(s, p) : -1;
}

/* Index of k, added if new (*added = 1). NULL k is ignored (-1). */
long pk_strset_put(strset *s, const char *k, int *added) {
  if (added) *added = 0;
  if (!k) return -1;
  char *p = pool_keep(k);
  long j = strset_find_kept(s, p);
  if (j >= 0) return j;
  if (s->n == s->cap) { /* from 2, not PK_GROW's 16: most sets (an element's routes, names, ...) hold one */
    s->cap = s->cap ? s->cap * 2 : 2;
    s->v = crawl__xrealloc(s->v, s->cap * sizeof *s->v);
  }
  s->v[s->n++] = p;
  if (added) *added = 1;
  if (s->ix && s->n * 4 > s->ixcap * 3) strset_ix_build(s, s->ixcap * 2);
  else if (s->ix) strset_ix_insert(s, s->n - 1);
  else if (s->n >= STRSET_INDEX_MIN) strset_ix_build(s, 32);
  return (long)s->n - 1;
}
void pk_strset_add(strset *s, const char *k) { (void)pk_strset_put(s, k, NULL); }
void pk_strset_addall(strset *s, const strset *from) {
  for (size_t i = 0; i < from->n; i++) pk_strset_add(s, from->v[i]);
}
void pk_strset_free(strset *s) {
  free(s->v);
  free(s->ix);
  memset(s, 0, sizeof *s);
}
/* A sorted copy of the pointers (caller frees the array only). */
char **pk_strset_sorted(const strset *s, int (*cmp)(const void *, const void *)) {
  char **v = crawl__xcalloc(s->n, sizeof *v);
  if (s->n) memcpy(v, s->v, s->n * sizeof *v);
  qsort(v, s->n, sizeof *v, cmp);
  return v;
}
/* JSON array of the strings in natural order, at most max (0: all). */
cJSON *pk_strset_json(const strset *s, size_t max) {
  cJSON *a = crawl__jx(cJSON_CreateArray());
  char **v = pk_strset_sorted(s, pk_cmp_nat);
  for (size_t i = 0; i < s->n && (!max || i < max); i++) crawl__jpush(a, cJSON_CreateString(v[i]));
  free(v);
  return a;
}
/* JSON array parsed back from a set of canonical JSON texts, in text order. */
cJSON *pk_strset_json_objects(const strset *s) {
  cJSON *a = crawl__jx(cJSON_CreateArray());
  char **v = pk_strset_sorted(s, cmp_str);
  for (size_t i = 0; i < s->n; i++) crawl__jpush(a, cJSON_Parse(v[i]));
  free(v);
  return a;
}
/* The smallest string in natural order, NULL for an empty set. Where one
 * value must stand for many, the smallest does: it does not depend on the
 * order the crawl met things in, nor on state ids. */
const char *pk_strset_min(const strset *s) {
  const char *m = NULL;
  for (size_t i = 0; i < s->n; i++)
    if (!m || crawl__natcmp(s->v[i], m) < 0) m = s->v[i];
  return m;
}
/* *field = the smaller of *field and v (a copy). */
void pk_keep_min(char **field, const char *v) {
  if (!v || (*field && crawl__natcmp(*field, v) <= 0)) return;
  free(*field);
  *field = crawl__xstrdup(v);
}

void pk_jset_list(cJSON *o, const char *k, const strset *s, size_t max) {
  if (s->n) crawl__jset(o, k, pk_strset_json(s, max));
}

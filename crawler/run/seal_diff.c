/* seal_diff.c -- what a probe did to the client storage: two snapshots
 * (seal.h) compared key by key, per channel, into keys added, changed,
 * removed, and stored JSON lists or objects that lost entries. Pure: no
 * browser, no I/O; values are compared and never copied out. */
#include "seal.h"
#include "crawl_strmap.h"
#include "crawl_util.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {"added", "changed", "removed", "shrunk"};

const char *crawl__seal_kind_name(crawl_seal_kind k) {
  return (unsigned)k < sizeof kind_names / sizeof *kind_names ? kind_names[k] : "?";
}

long crawl__seal_lost(const crawl_seal_diff *d) { return d->counts[CRAWL_SEAL_REMOVED] + d->counts[CRAWL_SEAL_SHRUNK]; }

void crawl__seal_diff_release(crawl_seal_diff *d) {
  for (size_t i = 0; i < d->n; i++) free(d->v[i].key);
  d->n = 0;
}

/* Counted; listed while there is room, a loss before any addition or change. */
static void note(crawl_seal_diff *d, const char *channel, const char *key, crawl_seal_kind kind) {
  d->counts[kind]++;
  int lost = kind == CRAWL_SEAL_REMOVED || kind == CRAWL_SEAL_SHRUNK;
  if (d->n == CRAWL_SEAL_KEPT) {
    size_t k = d->n;
    while (lost && k > 0 && d->v[k - 1].kind != CRAWL_SEAL_REMOVED && d->v[k - 1].kind != CRAWL_SEAL_SHRUNK) k--;
    if (!lost || k == d->n) return;
    free(d->v[d->n - 1].key); /* an addition or change makes room for a loss */
    memmove(&d->v[k + 1], &d->v[k], (d->n - 1 - k) * sizeof *d->v);
    d->v[k] = (crawl_seal_change){channel, crawl__xstrdup(key), kind};
    return;
  }
  d->v[d->n++] = (crawl_seal_change){channel, crawl__xstrdup(key), kind};
}

#define MAX_ENTRIES 2000 /* a list longer than this is compared by its length only */

static int lost_from_list(const cJSON *b, const cJSON *a) {
  int nb = cJSON_GetArraySize(b), na = cJSON_GetArraySize(a);
  if (na < nb) return 1;
  if (nb > MAX_ENTRIES || na > MAX_ENTRIES) return 0;
  char **av = crawl__xcalloc((size_t)na + 1, sizeof *av);
  int i = 0, lost = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, a) av[i++] = cJSON_PrintUnformatted(it);
  cJSON_ArrayForEach(it, b) {
    char *s = cJSON_PrintUnformatted(it);
    int found = 0;
    for (int k = 0; k < na && !found && s; k++)
      if (av[k] && !strcmp(av[k], s)) found = 1, free(av[k]), av[k] = NULL; /* each entry matches once */
    free(s);
    if (!found) { lost = 1; break; }
  }
  for (int k = 0; k < na; k++) free(av[k]);
  free(av);
  return lost;
}

int crawl__seal_lost_entries(const char *before, const char *after) {
  if (!before) return 0;
  cJSON *b = cJSON_Parse(before);
  if (!cJSON_IsArray(b) && !cJSON_IsObject(b)) { cJSON_Delete(b); return 0; }
  cJSON *a = after ? cJSON_Parse(after) : NULL;
  int lost;
  if (!cJSON_GetArraySize(b)) lost = 0; /* nothing to lose */
  else if (cJSON_IsArray(b)) lost = !cJSON_IsArray(a) || lost_from_list(b, a);
  else {
    lost = !cJSON_IsObject(a);
    const cJSON *it;
    cJSON_ArrayForEach(it, b) if (!lost && !cJSON_HasObjectItem(a, it->string)) lost = 1;
  }
  cJSON_Delete(a);
  cJSON_Delete(b);
  return lost;
}

/* One channel as flat key -> value (a string, or NULL: present, value not
 * readable); what each channel's snapshot looks like. */
typedef struct flat { char **keys; const char **vals; size_t n, cap; } flat;

static void flat_put(flat *f, char *key, const char *val) {
  if (f->n == f->cap) {
    f->cap = f->cap ? f->cap * 2 : 32;
    f->keys = crawl__xrealloc(f->keys, f->cap * sizeof *f->keys);
    f->vals = crawl__xrealloc(f->vals, f->cap * sizeof *f->vals);
  }
  f->keys[f->n] = key;
  f->vals[f->n++] = val;
}

static void flat_free(flat *f) {
  for (size_t i = 0; i < f->n; i++) free(f->keys[i]);
  free(f->keys);
  free(f->vals);
}

/* {key: value} */
static void flat_map(const cJSON *o, flat *f) {
  const cJSON *it;
  cJSON_ArrayForEach(it, o) if (it->string) flat_put(f, crawl__xstrdup(it->string), cJSON_GetStringValue(it));
}

/* {"db/store": {"records": {key: value}}} as "db/store key" */
static void flat_idb(const cJSON *o, flat *f) {
  const cJSON *st, *rec;
  cJSON_ArrayForEach(st, o) {
    if (!st->string) continue;
    cJSON_ArrayForEach(rec, cJSON_GetObjectItemCaseSensitive(st, "records"))
      if (rec->string) flat_put(f, crawl__xprintf("%s %s", st->string, rec->string), cJSON_GetStringValue(rec));
  }
}

/* {cache: [url]} as "cache url" */
static void flat_cache(const cJSON *o, flat *f) {
  const cJSON *c, *u;
  cJSON_ArrayForEach(c, o) {
    if (!c->string) continue;
    cJSON_ArrayForEach(u, c) if (cJSON_IsString(u)) flat_put(f, crawl__xprintf("%s %s", c->string, u->valuestring), "");
  }
}

static const struct {
  const char *member, *channel;
  void (*flatten)(const cJSON *o, flat *f);
} channels[] = {
  {"localStorage", "localStorage", flat_map},   {"sessionStorage", "sessionStorage", flat_map},
  {"cookies", "cookie", flat_map},              {"indexedDB", "IndexedDB", flat_idb},
  {"cacheStorage", "Cache Storage", flat_cache},
};

static int same_val(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

static void diff_channel(const char *channel, const flat *b, const flat *a, crawl_seal_diff *d) {
  crawl__strmap at = {0};
  for (size_t i = 0; i < a->n; i++) crawl__strmap_put(&at, a->keys[i], (long)i);
  char *seen = crawl__xcalloc(a->n + 1, 1);
  for (size_t i = 0; i < b->n; i++) {
    long k = crawl__strmap_get(&at, b->keys[i]);
    if (k < 0) { note(d, channel, b->keys[i], CRAWL_SEAL_REMOVED); continue; }
    seen[k] = 1;
    if (same_val(b->vals[i], a->vals[k])) continue;
    note(d, channel, b->keys[i], crawl__seal_lost_entries(b->vals[i], a->vals[k]) ? CRAWL_SEAL_SHRUNK : CRAWL_SEAL_CHANGED);
  }
  for (size_t i = 0; i < a->n; i++)
    if (!seen[i]) note(d, channel, a->keys[i], CRAWL_SEAL_ADDED);
  free(seen);
  crawl__strmap_release(&at);
}

void crawl__seal_diff(const cJSON *before, const cJSON *after, crawl_seal_diff *out) {
  memset(out, 0, sizeof *out);
  for (size_t c = 0; c < sizeof channels / sizeof *channels; c++) {
    flat b = {0}, a = {0};
    channels[c].flatten(cJSON_GetObjectItemCaseSensitive(before, channels[c].member), &b);
    channels[c].flatten(cJSON_GetObjectItemCaseSensitive(after, channels[c].member), &a);
    diff_channel(channels[c].channel, &b, &a, out);
    flat_free(&b);
    flat_free(&a);
  }
}

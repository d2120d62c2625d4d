/* arena.c -- bump allocator for the strings and arrays of one graph. Its
 * blocks come from the base layer (crawl__xmalloc: out of memory aborts
 * there, in one place). */
#include "pg_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct chunk {
  struct chunk *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
} chunk;

struct pg__arena { chunk *head; };

pg__arena *pg__arena_new(void) {
  pg__arena *a = crawl__xmalloc(sizeof *a);
  a->head = NULL;
  return a;
}

void pg__arena_free(pg__arena *a) {
  if (!a) return;
  for (chunk *c = a->head, *n; c; c = n) {
    n = c->next;
    free(c);
  }
  free(a);
}

void *pg__alloc(pg__arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  chunk *c = a->head;
  if (!c || c->cap - c->used < n) {
    size_t cap = n > 65536 ? n : 65536;
    c = crawl__xmalloc(sizeof *c + cap);
    c->used = 0;
    c->cap = cap;
    c->next = a->head;
    a->head = c;
  }
  void *p = c->data + c->used;
  c->used += n;
  memset(p, 0, n);
  return p;
}

char *pg__strndup(pg__arena *a, const char *s, size_t n) {
  if (!s) return NULL;
  char *d = pg__alloc(a, n + 1);
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

char *pg__strdup(pg__arena *a, const char *s) { return s ? pg__strndup(a, s, strlen(s)) : NULL; }

char *pg__printf(pg__arena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char tmp[512];
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < (int)sizeof tmp) return pg__strndup(a, tmp, (size_t)n);
  char *d = pg__alloc(a, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(d, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return d;
}

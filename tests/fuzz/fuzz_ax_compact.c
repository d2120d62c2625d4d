/* fuzz_ax_compact.c -- libFuzzer target for pg_ax_compact, which rewrites
 * the text of an accessibility-tree reply (untrusted: page content) in place.
 * A differential check: whenever cJSON reads the input, it must read the
 * output too, as the same tree minus the dropped members; a second pass
 * changes nothing. Seeds: corpus/ax_compact/. */
#include "pg.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x) do { if (!(x)) abort(); } while (0)

static const char *const dropped[] = {"nodeId", "parentId", "childIds", "frameId", "chromeRole"};

static int named(const cJSON *it, const char *name) { return it->string && !strcmp(it->string, name); }

/* Remove the members of o for which drop() says 1. */
static void remove_if(cJSON *o, int (*drop)(const cJSON *)) {
  cJSON *it = o->child;
  while (it) {
    cJSON *next = it->next;
    if (drop(it)) cJSON_Delete(cJSON_DetachItemViaPointer(o, it));
    it = next;
  }
}

static int is_dropped(const cJSON *it) {
  for (size_t i = 0; i < sizeof dropped / sizeof *dropped; i++)
    if (named(it, dropped[i])) return 1;
  return 0;
}
static int source_without_value(const cJSON *s) {
  return !cJSON_IsObject(s) || !cJSON_GetObjectItemCaseSensitive(s, "value");
}
static int empty_sources(const cJSON *it) { return named(it, "sources") && cJSON_IsArray(it) && !it->child; }

static void filter_nodes(cJSON *nodes) {
  for (cJSON *n = nodes->child; n; n = n->next) {
    if (!cJSON_IsObject(n)) continue;
    remove_if(n, is_dropped);
    for (cJSON *nm = n->child; nm; nm = nm->next) {
      if (!named(nm, "name") || !cJSON_IsObject(nm)) continue;
      int had = 0;
      for (cJSON *s = nm->child; s; s = s->next)
        if (named(s, "sources") && cJSON_IsArray(s)) {
          remove_if(s, source_without_value);
          had = 1;
        }
      if (had) remove_if(nm, empty_sources);
    }
  }
}

static void filter(cJSON *top) {
  if (!cJSON_IsObject(top)) return;
  for (cJSON *it = top->child; it; it = it->next) {
    if (named(it, "result") && cJSON_IsObject(it)) {
      for (cJSON *r = it->child; r; r = r->next)
        if (named(r, "nodes") && cJSON_IsArray(r)) filter_nodes(r);
    } else if (named(it, "nodes") && cJSON_IsArray(it)) {
      filter_nodes(it);
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = malloc(size + 1);
  memcpy(buf, data, size);
  buf[size] = 0;
  size_t n = pg_ax_compact(buf, size);
  CHECK(n <= size);
  int changed = n != size || memcmp(buf, data, size) != 0;
  if (changed) {
    CHECK(buf[n] == 0);
    /* idempotent */
    char *again = malloc(n + 1);
    memcpy(again, buf, n + 1);
    CHECK(pg_ax_compact(again, n) == n && !memcmp(again, buf, n));
    free(again);
    cJSON *orig = cJSON_ParseWithLength((const char *)data, size);
    if (orig) {
      cJSON *out = cJSON_ParseWithLength(buf, n);
      CHECK(out);
      /* the compactor compares keys as sent, cJSON after unescaping and up
       * to a NUL: skip the tree comparison when they may differ (Chromium
       * never escapes a key, nor sends a NUL) */
      if (!memchr(data, '\\', size) && !memchr(data, '\0', size)) {
        filter(orig);
        char *a = cJSON_PrintUnformatted(orig), *b = cJSON_PrintUnformatted(out);
        CHECK(a && b && !strcmp(a, b));
        free(a);
        free(b);
      }
      cJSON_Delete(out);
      cJSON_Delete(orig);
    }
  }
  free(buf);
  return 0;
}

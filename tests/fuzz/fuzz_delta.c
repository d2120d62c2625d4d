/* fuzz_delta.c -- libFuzzer target for pg_delta_apply (a consumer applies
 * deltas from a publisher it need not trust) and pg_delta_compute.
 * The input is a JSON array [graph, x]. x is applied to graph as a delta:
 * whatever it is, apply never crashes, and when it refuses, the graph is
 * unchanged. Then the ops from graph to x (read as a second graph) are
 * computed: when graph is consistent (an empty delta applies) and x has
 * unique ids, they apply and give x's documents, scopes, elements, route,
 * focus and selection. Seeds: corpus/delta/. */
#include "pg.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x) do { if (!(x)) abort(); } while (0)

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

/* Every item has a string id, and no id twice. */
static int unique_ids(const cJSON *arr, const char *key) {
  const cJSON *a, *b;
  if (arr && !cJSON_IsArray(arr)) return 0;
  cJSON_ArrayForEach(a, arr) if (!cJSON_GetStringValue(get(a, key))) return 0;
  cJSON_ArrayForEach(a, arr) {
    int n = 0;
    cJSON_ArrayForEach(b, arr) n += !strcmp(cJSON_GetStringValue(get(a, key)), cJSON_GetStringValue(get(b, key)));
    if (n != 1) return 0;
  }
  return 1;
}

/* Same JSON, as text: cJSON_Compare is not reflexive on duplicate keys. */
static int same_text(const cJSON *a, const cJSON *b) {
  char *x = cJSON_PrintUnformatted(a), *y = cJSON_PrintUnformatted(b);
  int same = x && y && !strcmp(x, y);
  free(x);
  free(y);
  return same;
}

/* Every item of want is in have, equal, and the counts match. */
static int same_set(const cJSON *have, const cJSON *want, const char *key) {
  if (cJSON_GetArraySize(have) != cJSON_GetArraySize(want)) return 0;
  const cJSON *w, *h;
  cJSON_ArrayForEach(w, want) {
    int found = 0;
    cJSON_ArrayForEach(h, have)
      if (!strcmp(cJSON_GetStringValue(get(h, key)), cJSON_GetStringValue(get(w, key)))) found = same_text(h, w);
    if (!found) return 0;
  }
  return 1;
}

static cJSON *delta_of(cJSON *ops, const char *base) {
  cJSON *d = cJSON_CreateObject();
  cJSON_AddStringToObject(d, "revision", "rev_fuzz");
  cJSON_AddStringToObject(d, "baseRevision", base);
  cJSON_AddItemToObject(d, "ops", ops);
  return d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 20) return 0;
  cJSON *in = cJSON_ParseWithLength((const char *)data, size);
  if (!cJSON_IsArray(in) || cJSON_GetArraySize(in) != 2 || !cJSON_IsObject(cJSON_GetArrayItem(in, 0))) {
    cJSON_Delete(in);
    return 0;
  }
  const cJSON *g0 = cJSON_GetArrayItem(in, 0), *x = cJSON_GetArrayItem(in, 1);
  /* x as a delta */
  cJSON *g = cJSON_Duplicate(g0, 1);
  char err[256];
  if (pg_delta_apply(g, x, err, sizeof err) != PG_DELTA_OK) CHECK(same_text(g, g0));
  cJSON_Delete(g);
  /* x as a graph */
  cJSON *ops = NULL;
  const char *rev = cJSON_GetStringValue(get(g0, "revision"));
  if (rev && pg_delta_compute(g0, x, &ops) == PG_OK) {
    g = cJSON_Duplicate(g0, 1);
    cJSON *empty = delta_of(cJSON_CreateArray(), rev);
    int consistent = pg_delta_apply(g, empty, NULL, 0) == PG_DELTA_OK;
    cJSON_Delete(empty);
    cJSON_Delete(g);
    g = cJSON_Duplicate(g0, 1);
    cJSON *d = delta_of(ops, rev);
    pg_delta_code rc = pg_delta_apply(g, d, err, sizeof err);
    int unique = unique_ids(get(x, "documents"), "documentId") && unique_ids(get(x, "scopes"), "scopeId") &&
                 unique_ids(get(x, "elements"), "instanceId") && unique_ids(get(g0, "documents"), "documentId") &&
                 unique_ids(get(g0, "scopes"), "scopeId") && unique_ids(get(g0, "elements"), "instanceId");
    if (consistent && unique) {
      CHECK(rc == PG_DELTA_OK);
      CHECK(same_set(get(g, "documents"), get(x, "documents"), "documentId"));
      CHECK(same_set(get(g, "scopes"), get(x, "scopes"), "scopeId"));
      CHECK(same_set(get(g, "elements"), get(x, "elements"), "instanceId"));
      static const char *const single[] = {"focus", "selection"};
      for (int k = 0; k < 2; k++) {
        const cJSON *a = get(g, single[k]), *b = get(x, single[k]);
        CHECK((!a && !b) || (a && b && same_text(a, b)));
      }
    }
    cJSON_Delete(d);
    cJSON_Delete(g);
  }
  cJSON_Delete(in);
  return 0;
}

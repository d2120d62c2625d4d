/* graph_same.c -- whether two PageGraphs of one page say the same
 * (pg_graph_same): the check that a patched capture equals a full one
 * (crawler/run/page_patch.c, tests). Compared as their JSON, member by
 * member and in order, but for what legitimately differs between two
 * captures of the same page: the revision.
 *
 * Not here: building or patching (build*.c, snapshot_patch.c). */
#include "pg_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Members that differ between two captures of the same page. */
static const char *const SKIP[] = {"revision"};

static int skipped(const cJSON *item, int depth) {
  if (depth != 0 || !item->string) return 0;
  for (size_t k = 0; k < sizeof SKIP / sizeof *SKIP; k++)
    if (!strcmp(item->string, SKIP[k])) return 1;
  return 0;
}

/* 1 when a and b are the same; else 0 and where names the first
 * difference (a path like elements[12].state.checked). */
static int same(const cJSON *a, const cJSON *b, int depth, char *where, size_t n, const char *path) {
  char sub[512];
  if ((a->type & 0xff) != (b->type & 0xff)) goto differ;
  if (cJSON_IsNumber(a)) {
    if (a->valuedouble != b->valuedouble && !(isnan(a->valuedouble) && isnan(b->valuedouble))) goto differ;
    return 1;
  }
  if (cJSON_IsString(a)) {
    if (strcmp(a->valuestring, b->valuestring)) goto differ;
    return 1;
  }
  if (!cJSON_IsArray(a) && !cJSON_IsObject(a)) return 1;
  const cJSON *x = a->child, *y = b->child;
  for (int i = 0;; i++) {
    while (x && skipped(x, depth)) x = x->next;
    while (y && skipped(y, depth)) y = y->next;
    if (!x || !y) break;
    if (cJSON_IsObject(a)) {
      if (strcmp(x->string, y->string)) {
        snprintf(sub, sizeof sub, "%s.{%s|%s}", path, x->string, y->string);
        snprintf(where, n, "%s", sub);
        return 0;
      }
      snprintf(sub, sizeof sub, "%s.%s", path, x->string);
    } else {
      snprintf(sub, sizeof sub, "%s[%d]", path, i);
    }
    if (!same(x, y, depth + 1, where, n, sub)) return 0;
    x = x->next;
    y = y->next;
  }
  if (!x && !y) return 1;
  snprintf(where, n, "%s: %s has more", path, x ? "the first" : "the second");
  return 0;
differ:
  snprintf(where, n, "%s", *path ? path : "(top)");
  return 0;
}

static int same_strings(char *const *a, size_t na, char *const *b, size_t nb) {
  if (na != nb) return 0;
  for (size_t k = 0; k < na; k++)
    if (strcmp(a[k] ? a[k] : "", b[k] ? b[k] : "")) return 0;
  return 1;
}

int pg_graph_same(const pg_graph *a, const pg_graph *b, char *where, size_t n) {
  char dummy[8];
  if (!where || !n) where = dummy, n = sizeof dummy;
  *where = '\0';
  if (!a || !b) {
    snprintf(where, n, "(no graph)");
    return a == b;
  }
  /* what never reaches the JSON but the run's secret list: the same too */
  if (!same_strings(a->secrets, a->nsecrets, b->secrets, b->nsecrets) ||
      !same_strings(a->pii_values, a->npii, b->pii_values, b->npii) || a->nsensitive_fields != b->nsensitive_fields) {
    snprintf(where, n, "(the values redacted or the sensitive fields)");
    return 0;
  }
  cJSON *ja = pg_graph_to_json(a), *jb = pg_graph_to_json(b);
  int r = same(ja, jb, 0, where, n, "");
  cJSON_Delete(ja);
  cJSON_Delete(jb);
  return r;
}

/* reviewed.c -- a reviewer's decisions fed back into the package
 * (`crawl --reviewed FILE`, `report --reviewed FILE`; docs/review.md).
 *
 * The crawler never calls its own results "verified": its strongest word is
 * "candidate" (discovery-mapper, security considerations: results are
 * proposals until a person reviews them). "verified" comes only from here:
 * a decisions file, or a previous package whose entries a person marked
 * verified, is normalised into DIR/reviewed.json; every package build of
 * DIR applies it, so `report DIR` keeps the decisions without the option.
 *
 * An entry is verified again when its stable key still matches: an element
 * by stableId (else semanticKey) and, when the decision names one, its role;
 * an action and a workflow candidate by id. Decisions that match nothing
 * are counted in run.notes.
 */
#include "crawl_pkg.h"
#include "crawl_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RV_FILE "reviewed.json"

/* The catalogs a decision may name: its name in a decisions file, the
 * package's array, and the field that is the entry's key. */
static const struct {
  const char *catalog, *section, *array;
} rv_catalogs[] = {
  {"elements", "elementCatalog", "elements"},
  {"actions", "actionCatalog", "actions"},
  {"workflows", "workflowCandidates", "workflows"},
};
#define RV_NCATALOGS (sizeof rv_catalogs / sizeof rv_catalogs[0])

static int rv_catalog(const char *name) {
  for (size_t i = 0; name && i < RV_NCATALOGS; i++)
    if (!strcmp(rv_catalogs[i].catalog, name)) return (int)i;
  return -1;
}

/* An entry's stable key: an element's stableId, else its semanticKey; an
 * action's or a workflow's id. */
static const char *rv_key(int cat, const cJSON *entry) {
  if (cat != 0) return crawl__str(entry, "id");
  return crawl__str(entry, "stableId") ? crawl__str(entry, "stableId") : crawl__str(entry, "semanticKey");
}

static void rv_fail(char *err, size_t errlen, const char *fmt, const char *file, const char *what) {
  if (err && errlen) snprintf(err, errlen, fmt, file, what);
}

static cJSON *rv_decision(int cat, const char *key, const char *role, const char *reviewer) {
  cJSON *d = crawl__jx(cJSON_CreateObject());
  crawl__jstr(d, "catalog", rv_catalogs[cat].catalog);
  crawl__jstr(d, "key", key);
  crawl__jstr(d, "role", role);
  crawl__jstr(d, "decision", "verified");
  crawl__jstr(d, "reviewer", reviewer);
  return d;
}

/* A previous package: its entries whose reviewState is "verified". */
static void rv_from_package(const cJSON *pkg, cJSON *out) {
  for (size_t c = 0; c < RV_NCATALOGS; c++) {
    const cJSON *e;
    cJSON_ArrayForEach(e, crawl__arr2(pkg, rv_catalogs[c].section, rv_catalogs[c].array)) {
      const char *rs = crawl__str(e, "reviewState"), *key = rv_key((int)c, e);
      if (!rs || strcmp(rs, "verified") || !key) continue;
      crawl__jpush(out, rv_decision((int)c, key, c == 0 ? crawl__str(e, "role") : NULL,
                                    crawl__str(crawl__get(e, "metadata"), "reviewedBy")));
    }
  }
}

/* A decisions file: {"reviewDecisions":[{"catalog","key","decision","role"?,"reviewer"?}]}.
 * 0, or -1 with err. */
static int rv_from_decisions(const cJSON *doc, const char *file, cJSON *out, char *err, size_t errlen) {
  const cJSON *d;
  cJSON_ArrayForEach(d, crawl__get(doc, "reviewDecisions")) {
    int cat = rv_catalog(crawl__str(d, "catalog"));
    const char *key = crawl__str(d, "key"), *dec = crawl__str(d, "decision");
    if (cat < 0) {
      rv_fail(err, errlen, "%s: a decision's catalog must be elements, actions or workflows, not %s", file,
              crawl__str(d, "catalog") ? crawl__str(d, "catalog") : "(none)");
      return -1;
    }
    if (!key || !key[0]) {
      rv_fail(err, errlen, "%s: a decision needs a key (%s)", file, "stableId or semanticKey, or the id");
      return -1;
    }
    if (!dec || strcmp(dec, "verified")) {
      rv_fail(err, errlen, "%s: decision must be \"verified\", not %s", file, dec ? dec : "(none)");
      return -1;
    }
    crawl__jpush(out, rv_decision(cat, key, cat == 0 ? crawl__str(d, "role") : NULL, crawl__str(d, "reviewer")));
  }
  return 0;
}

static int rv_cmp(const void *x, const void *y) {
  const cJSON *a = *(const cJSON *const *)x, *b = *(const cJSON *const *)y;
  int c = strcmp(crawl__str(a, "catalog"), crawl__str(b, "catalog"));
  return c ? c : crawl__natcmp(crawl__str(a, "key"), crawl__str(b, "key"));
}

/* The decisions in their canonical order (catalog, key). */
static cJSON *rv_sorted(cJSON *arr) {
  int n = cJSON_GetArraySize(arr);
  cJSON **v = calloc((size_t)n + 1, sizeof *v);
  if (!v) abort();
  for (int i = 0; i < n; i++) v[i] = cJSON_DetachItemFromArray(arr, 0);
  qsort(v, (size_t)n, sizeof *v, rv_cmp);
  for (int i = 0; i < n; i++) crawl__jpush(arr, v[i]);
  free(v);
  return arr;
}

crawl_code crawl_reviewed_load(const char *file, cJSON **decisions, char *err, size_t errlen) {
  if (decisions) *decisions = NULL;
  if (!file || !decisions) {
    rv_fail(err, errlen, "%s%s", "crawl_reviewed_load: ", "file and decisions are required");
    return CRAWL_ARG;
  }
  cJSON *doc = crawl__json_load(file, err, errlen);
  if (!doc) return CRAWL_ARG;
  cJSON *arr = crawl__jx(cJSON_CreateArray());
  int is_pkg = crawl__str(doc, "spec") && !strcmp(crawl__str(doc, "spec"), "uiap.discovery");
  if (!is_pkg && !cJSON_IsArray(crawl__get(doc, "reviewDecisions"))) {
    rv_fail(err, errlen, "%s: %s", file, "neither a DiscoveryPackage nor {\"reviewDecisions\":[...]} (docs/review.md)");
    cJSON_Delete(doc);
    cJSON_Delete(arr);
    return CRAWL_ARG;
  }
  if (is_pkg) rv_from_package(doc, arr);
  else if (rv_from_decisions(doc, file, arr, err, errlen)) {
    cJSON_Delete(doc);
    cJSON_Delete(arr);
    return CRAWL_ARG;
  }
  cJSON_Delete(doc);
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jset(o, "reviewDecisions", rv_sorted(arr));
  *decisions = o;
  return CRAWL_OK;
}

crawl_code crawl_reviewed_save(const char *dir, const cJSON *decisions, char *err, size_t errlen) {
  char path[4200];
  snprintf(path, sizeof path, "%s/" RV_FILE, dir);
  char *text = crawl__jtext(decisions, 1);
  int e = crawl__file_write(path, text, strlen(text));
  free(text);
  if (e) {
    rv_fail(err, errlen, "%s: %s", path, strerror(e));
    return CRAWL_IO;
  }
  return CRAWL_OK;
}

/* Whether decision d names entry e of catalog cat. */
static int rv_matches(int cat, const cJSON *d, const cJSON *e) {
  const char *key = rv_key(cat, e), *role = crawl__str(d, "role");
  if (!key || strcmp(key, crawl__str(d, "key"))) return 0;
  return cat != 0 || !role || (crawl__str(e, "role") && !strcmp(role, crawl__str(e, "role")));
}

/* Entry e verified by d: reviewState, and metadata.reviewedBy when named. */
static void rv_verify(cJSON *e, const cJSON *d) {
  cJSON_DeleteItemFromObjectCaseSensitive(e, "reviewState");
  crawl__jstr(e, "reviewState", "verified");
  const char *who = crawl__str(d, "reviewer");
  cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "metadata");
  if (!who) return;
  if (!cJSON_IsObject(m)) {
    cJSON_DeleteItemFromObjectCaseSensitive(e, "metadata");
    m = crawl__jx(cJSON_CreateObject());
    crawl__jset(e, "metadata", m);
  }
  cJSON_DeleteItemFromObjectCaseSensitive(m, "reviewedBy");
  crawl__jstr(m, "reviewedBy", who);
}

/* Decision d on package: the entries it names verified; their count. */
static int rv_apply_one(cJSON *package, const cJSON *d) {
  int cat = rv_catalog(crawl__str(d, "catalog")), n = 0;
  if (cat < 0 || !crawl__str(d, "key")) return 0;
  cJSON *e;
  cJSON_ArrayForEach(e, (cJSON *)crawl__arr2(package, rv_catalogs[cat].section, rv_catalogs[cat].array)) {
    if (!rv_matches(cat, d, e)) continue;
    rv_verify(e, d);
    n++;
  }
  return n;
}

static void rv_note(cJSON *package, long verified, long stale) {
  cJSON *run = cJSON_GetObjectItemCaseSensitive(package, "run");
  if (!cJSON_IsObject(run)) return;
  cJSON *notes = cJSON_GetObjectItemCaseSensitive(run, "notes");
  if (!cJSON_IsArray(notes)) {
    notes = crawl__jx(cJSON_CreateArray());
    crawl__jset(run, "notes", notes);
  }
  char buf[256];
  snprintf(buf, sizeof buf, RV_FILE ": %ld entr%s verified by a reviewer; %ld decision%s match%s nothing in this run",
           verified, verified == 1 ? "y" : "ies", stale, stale == 1 ? "" : "s", stale == 1 ? "es" : "");
  crawl__jpush(notes, cJSON_CreateString(buf));
}

int crawl_reviewed_apply(cJSON *package, const char *dir) {
  char path[4200];
  snprintf(path, sizeof path, "%s/" RV_FILE, dir);
  cJSON *doc = crawl__json_load(path, NULL, 0);
  if (!doc) return 0; /* no decisions: nothing is verified */
  long verified = 0, stale = 0;
  const cJSON *d;
  cJSON_ArrayForEach(d, crawl__get(doc, "reviewDecisions")) {
    int n = rv_apply_one(package, d);
    verified += n;
    stale += n == 0;
  }
  rv_note(package, verified, stale);
  cJSON_Delete(doc);
  return (int)verified;
}

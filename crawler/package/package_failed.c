/* package_failed.c -- a run whose actions mostly failed says so (issue 27;
 * docs/decisions.md "A run whose actions mostly fail"): the actions it
 * attempted (transitions recorded plus failures) and those that failed, by
 * reason (the reason up to its first ':' or '(': "obscured", "detached"),
 * as metadata.actionFailures; one coverage_gap review item when at least
 * PK_FAILED_MIN actions failed and they are at least half of those
 * attempted; and that in one line for the command line
 * (crawl_package_failure_line). */
#include "pkg_int.h"

#define PK_FAILED_MIN 3      /* fewer failures are never "mostly" */
#define PK_REASON_MAX 80     /* a reason's key, at most */

typedef struct failed_count {
  long attempted, failed;
  char *reason;              /* the commonest reason's key (caller frees), NULL: none */
  long reason_n;
  const char *example;       /* one whole reason of that key (borrowed from the journal) */
} failed_count;

/* The key of a failure's reason: up to its first ':' or " (", trimmed, at
 * most PK_REASON_MAX bytes (caller frees). */
static char *reason_key(const char *why) {
  size_t n = strcspn(why, ":(");
  while (n && why[n - 1] == ' ') n--;
  if (n > PK_REASON_MAX) n = pk_utf8_cut(why, PK_REASON_MAX);
  return crawl__xstrndup(why, n);
}

/* Counts of b's journal; the commonest reason, ties to the first seen. */
static void failed_count_take(const pk *b, failed_count *f) {
  memset(f, 0, sizeof *f);
  strset keys = {0};
  long *n = NULL;
  const char **example = NULL;
  for (size_t i = 0; i < b->nrefs; i++) {
    if (strcmp(b->refs[i].type, "failure")) continue;
    f->failed++;
    const char *why = crawl__str(b->refs[i].line, "reason");
    char *key = reason_key(why ? why : "no reason given");
    int added;
    long k = PK_ENTRY(keys, n, key, &added);
    free(key);
    example = crawl__xrealloc(example, keys.n * sizeof *example);
    if (added) example[k] = why ? why : "no reason given";
    if (++n[k] > f->reason_n) {
      f->reason_n = n[k];
      free(f->reason);
      f->reason = crawl__xstrdup(keys.v[k]);
      f->example = example[k];
    }
  }
  f->attempted = (long)b->transition_ids.n + f->failed;
  free(n);
  free(example);
  pk_strset_free(&keys);
}

static int mostly(const failed_count *f) { return f->failed >= PK_FAILED_MIN && 2 * f->failed >= f->attempted; }

cJSON *pk_failed_json(const pk *b) {
  failed_count f;
  failed_count_take(b, &f);
  cJSON *o = crawl__jx(cJSON_CreateObject());
  pk_jnum(o, "attempted", (double)f.attempted);
  pk_jnum(o, "failed", (double)f.failed);
  if (f.reason) {
    crawl__jstr(o, "commonestReason", f.reason);
    pk_jnum(o, "commonestReasonCount", (double)f.reason_n);
  }
  crawl__jset(o, "mostlyFailed", cJSON_CreateBool(mostly(&f)));
  free(f.reason);
  return o;
}

void pk_review_failed(pk *b) {
  failed_count f;
  failed_count_take(b, &f);
  if (mostly(&f)) {
    pk_item *it = pk_item_get(b, "coverage_gap", "actions-failed", 2, NULL);
    it->count = f.failed;
    pk_item_text(it, crawl__xprintf("%ld of the %ld actions the crawl attempted failed (%ld%%); the commonest reason, "
                                    "%ld time%s: %s (for example: %.*s). What lies behind those controls was not "
                                    "explored.", f.failed, f.attempted, 100 * f.failed / f.attempted, f.reason_n,
                                    f.reason_n == 1 ? "" : "s", f.reason, (int)pk_utf8_cut(f.example, 300), f.example),
                 crawl__xstrdup("Read the failure records in journal.jsonl: an overlay that covers the page, controls "
                                "that move or re-render, or pages that navigate by themselves keep the crawler from "
                                "acting; fix the page or report the failure."));
  }
  free(f.reason);
}

crawl_code crawl_package_failure_line(const crawl_package *pkg, char *line, size_t n) {
  if (!pkg || !line || !n) return CRAWL_ARG;
  line[0] = 0;
  const cJSON *f = crawl__get(crawl__get(pkg->pkg, "metadata"), "actionFailures");
  if (!cJSON_IsTrue(crawl__get(f, "mostlyFailed"))) return CRAWL_OK;
  double failed = crawl__num(f, "failed", 0), attempted = crawl__num(f, "attempted", 0);
  const char *reason = crawl__str(f, "commonestReason");
  snprintf(line, n, "most actions failed: %.0f of %.0f attempted (%.0f%%); commonest reason: %s (%.0f)", failed,
           attempted, attempted > 0 ? 100 * failed / attempted : 0, reason ? reason : "?",
           crawl__num(f, "commonestReasonCount", 0));
  return CRAWL_OK;
}

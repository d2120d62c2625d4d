/* nightly.c -- end-to-end: `crawl --baseline` (docs/nightly.md) with real
 * headless Chromium on the app of tests/fixtures/nightly, served from a
 * temporary directory whose index.html is night 1 or night 2 of it (the
 * same URL both nights, as a staging app is):
 *   - the same app again: `diff` finds no change, the night is cheaper
 *     (its wall time is printed against night 1's), and it carried
 *     transitions with last night's evidence;
 *   - the changed app (a route removed, one added, a control renamed, the
 *     dialog holding one more control): `diff` names exactly those changes,
 *     and the night's package equals a fresh crawl's of the changed app;
 *   - a baseline directory that cannot be used: exit 14, one line, nothing
 *     written. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crawl.h"
#include "support.h"

#define FIXTURE UIAP_SRC "/tests/fixtures/nightly"

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static const char *str(const cJSON *o, const char *k) { return cJSON_GetStringValue(get(o, k)); }
static double num(const cJSON *o, const char *k) { return cJSON_GetNumberValue(get(o, k)); }


/* The app's directory, served once per test process; night n as its index.html. */
static char *root;
static int port;
static void app_night(int n) {
  char from[600], to[600];
  if (!root) {
    root = t_tmpdir();
    cr_assert(root);
  }
  snprintf(from, sizeof from, FIXTURE "/app.js");
  snprintf(to, sizeof to, "%s/app.js", root);
  t_copy_file(from, to);
  snprintf(from, sizeof from, FIXTURE "/night%d.html", n);
  snprintf(to, sizeof to, "%s/index.html", root);
  t_copy_file(from, to);
  if (!port) port = t_serve_root(root);
  cr_assert(port > 0, "the project's server serves %s", root);
}

/* A crawl of the app into a new directory (caller frees), on baseline
 * when not NULL, with a transition budget when max is; its wall time in *ms. */
static char *night_max(const char *baseline, const char *max, long long *ms) {
  char *dir = t_tmpdir(), out[600], url[64];
  cr_assert(dir);
  snprintf(out, sizeof out, "%s/out", dir);
  snprintf(url, sizeof url, "http://127.0.0.1:%d/", port);
  const char *args[12] = {"crawl", url, "-o", out, "--workers", "1", "--quiet"};
  int n = 7;
  if (max) args[n++] = "--max-transitions", args[n++] = max;
  if (baseline) args[n++] = "--baseline", args[n++] = baseline;
  t_run r = t_run_cli(args, 300000);
  cr_assert_eq(r.status, 0, "crawl%s: exit %d: %s", baseline ? " --baseline" : "", r.status, r.err);
  *ms = r.ms;
  t_run_free(&r);
  /* the night's package validates with the project's own schema */
  char pkg[700];
  snprintf(pkg, sizeof pkg, "%s/package.json", out);
  const char *vargs[] = {"validate", pkg, NULL};
  r = t_run_cli(vargs, 60000);
  cr_assert_eq(r.status, 0, "validate %s: %s%s", pkg, r.out, r.err);
  t_run_free(&r);
  free(dir);
  return strdup(out);
}
static char *night(const char *baseline, long long *ms) { return night_max(baseline, NULL, ms); }

/* `diff a b --format json`, parsed (caller frees). */
static cJSON *diff(const char *a, const char *b) {
  const char *args[] = {"diff", a, b, "--format", "json", NULL};
  t_run r = t_run_cli(args, 60000);
  cr_assert(r.status == 0 || r.status == 9, "diff: exit %d: %s", r.status, r.err);
  cJSON *d = cJSON_Parse(r.out);
  cr_assert(d, "diff --format json gave no JSON");
  t_run_free(&r);
  return d;
}

/* The entries of one change kind (added/removed/changed) of a diff section. */
static const cJSON *changes(const cJSON *d, const char *section, const char *kind) {
  return get(get(get(d, "sections"), section), kind);
}

/* Every section of d empty, but those in `except`; the first one that is not, in a message. */
static void no_changes_but(const cJSON *d, const char *const *except) {
  const cJSON *s;
  cJSON_ArrayForEach(s, get(d, "sections")) {
    int skip = 0;
    for (int i = 0; except && except[i]; i++) skip |= !strcmp(except[i], s->string);
    if (skip) continue;
    static const char *const kinds[] = {"added", "removed", "changed"};
    for (int k = 0; k < 3; k++) {
      char *t = cJSON_PrintUnformatted(get(s, kinds[k]));
      cr_expect_eq(cJSON_GetArraySize(get(s, kinds[k])), 0, "diff: %s %s: %.600s", s->string, kinds[k], t);
      free(t);
    }
  }
}

/* The keys of a section's change kind as one sorted, comma-joined string. */
static void keys_of(const cJSON *arr, char *buf, size_t n) {
  const char *v[64];
  int k = 0;
  const cJSON *x;
  cJSON_ArrayForEach(x, arr) if (k < 64) v[k++] = cJSON_IsString(x) ? x->valuestring : str(x, "key");
  for (int i = 1; i < k; i++)
    for (int j = i; j > 0 && strcmp(v[j - 1] ? v[j - 1] : "", v[j] ? v[j] : "") > 0; j--) {
      const char *t = v[j];
      v[j] = v[j - 1], v[j - 1] = t;
    }
  buf[0] = 0;
  for (int i = 0; i < k; i++) snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", i ? "," : "", v[i] ? v[i] : "?");
}

static cJSON *package_of(const char *out) {
  char path[700];
  snprintf(path, sizeof path, "%s/package.json", out);
  char *text = t_read_file(path, NULL);
  cJSON *p = text ? cJSON_Parse(text) : NULL;
  free(text);
  cr_assert(p, "%s is no JSON", path);
  return p;
}

static void rm_out(char *out) {
  char *slash = strrchr(out, '/');
  *slash = 0; /* the temporary directory around out */
  t_rm_rf(out);
  free(out);
}

Test(nightly, the_same_app_again_is_cheaper_and_diff_finds_no_change, .timeout = 600) {
  app_night(1);
  long long ms1, ms2;
  char *n1 = night(NULL, &ms1), *n2 = night(n1, &ms2);
  cJSON *d = diff(n1, n2);
  no_changes_but(d, NULL);
  cJSON *p1 = package_of(n1), *p2 = package_of(n2);
  const cJSON *bl = get(get(p2, "metadata"), "baseline");
  cr_assert(bl, "the package says nothing of its baseline (metadata.baseline)");
  cr_assert_str_eq(str(bl, "runId"), str(get(p1, "run"), "runId"));
  double states = cJSON_GetArraySize(get(get(p1, "transitionGraph"), "states"));
  cr_expect_eq(num(bl, "verified"), states, "every state of night 1 verified");
  cr_expect_eq(num(bl, "unchanged"), states);
  cr_expect_eq(num(bl, "gone"), 0);
  cr_expect_eq(num(bl, "new"), 0);
  cr_expect_gt(num(bl, "carried"), num(bl, "explored"), "most transitions carried, not executed");
  /* a carried edge cites last night's transition, one confidence step lower */
  const cJSON *e, *ev;
  int carried = 0;
  cJSON_ArrayForEach(e, get(get(p2, "transitionGraph"), "edges")) {
    cJSON_ArrayForEach(ev, get(e, "discoveredBy")) {
      const char *note = str(ev, "note");
      if (!note || strncmp(note, "carried from baseline ", 22)) continue;
      carried++;
      cr_expect_str_eq(note + 22, str(get(p1, "run"), "runId"));
      cr_expect_str_neq(str(e, "confidence"), "high");
    }
  }
  cr_expect_gt(carried, 0, "no edge cites its baseline");
  /* report.html says it in one line */
  char path[700];
  snprintf(path, sizeof path, "%s/report.html", n2);
  char *html = t_read_file(path, NULL);
  cr_expect(html && strstr(html, "<p id=\"baseline\">Baseline <code>"), "report.html has no baseline line");
  free(html);
  double ratio = (double)ms2 / (double)ms1;
  fprintf(stderr, "nightly: night 1 %lld ms, night 2 (--baseline, unchanged app) %lld ms: %.0f%%\n", ms1, ms2, 100 * ratio);
  cr_expect_lt(ratio, 0.8, "night 2 took %lld ms, night 1 %lld ms", ms2, ms1);
  cJSON_Delete(d), cJSON_Delete(p1), cJSON_Delete(p2);
  rm_out(n1), rm_out(n2);
}

Test(nightly, the_changed_app_diff_names_exactly_its_changes, .timeout = 600) {
  app_night(1);
  long long ms1, ms2, ms3;
  char *n1 = night(NULL, &ms1);
  app_night(2);
  char *n2 = night(n1, &ms2), *fresh = night(NULL, &ms3);
  fprintf(stderr, "nightly: night 1 %lld ms, changed app: --baseline %lld ms (%.0f%%), fresh %lld ms\n", ms1, ms2,
          100.0 * (double)ms2 / (double)ms1, ms3);
  cJSON *d = diff(n1, n2);
  char buf[2048];
  keys_of(changes(d, "routes", "removed"), buf, sizeof buf);
  cr_expect_str_eq(buf, "/#/settings");
  keys_of(changes(d, "routes", "added"), buf, sizeof buf);
  cr_expect_str_eq(buf, "/#/team");
  keys_of(changes(d, "elements", "added"), buf, sizeof buf);
  cr_expect(strstr(buf, "/#/reports|region|button|refresh data"), "the renamed control is not new: %s", buf);
  cr_expect(strstr(buf, "/#/projects|dialog|checkbox|compact view"), "the dialog's new control is missing: %s", buf);
  cr_expect(strstr(buf, "/#/team|"), "the new route's controls are missing: %s", buf);
  cr_expect(strstr(buf, "|tab|recent activity"), "the renamed tab is not new: %s", buf);
  keys_of(changes(d, "elements", "removed"), buf, sizeof buf);
  cr_expect(strstr(buf, "/#/reports|region|button|refresh,"), "the renamed control's old name is not gone: %s", buf);
  cr_expect(strstr(buf, "/#/settings|region|checkbox|dark mode"), "%s", buf);
  cr_expect(strstr(buf, "|tab|activity"), "the renamed tab's old name is not gone: %s", buf);
  /* nothing else: the night's package is the one a fresh crawl of the changed app gives */
  cJSON *same = diff(fresh, n2);
  no_changes_but(same, (const char *const[]){"reviewItems", NULL});
  keys_of(changes(same, "reviewItems", "removed"), buf, sizeof buf);
  cr_expect_str_eq(buf, "", "review items of a fresh crawl missing: %s", buf);
  cr_expect_eq(cJSON_GetArraySize(changes(same, "reviewItems", "changed")), 0);
  cr_expect_eq(cJSON_GetArraySize(changes(same, "reviewItems", "added")), 1, "more than the gone state's review item");
  cJSON *p = package_of(n2);
  const cJSON *bl = get(get(p, "metadata"), "baseline");
  char *blt = cJSON_PrintUnformatted(bl);
  fprintf(stderr, "nightly: changed app: metadata.baseline %s\n", blt);
  free(blt);
  const cJSON *it;
  cJSON_ArrayForEach(it, get(get(p, "reviewQueue"), "items"))
    if (!strcmp(str(it, "kind"), "coverage_gap")) fprintf(stderr, "nightly: %s\n", str(it, "description"));
  cr_expect_eq(num(bl, "gone"), 1,
               "the Settings state is gone (not the dialog behind the renamed \"Show details\", nor the tab renamed \"Recent activity\")");
  cr_expect_eq(num(bl, "new"), 1, "Team is the one new state (the dialog is last night's, changed)");
  cr_expect(t_review_mentions(p, "coverage_gap", "/#/settings) is gone"), "no review item names the gone state");
  cJSON_Delete(d), cJSON_Delete(same), cJSON_Delete(p);
  rm_out(n1), rm_out(n2), rm_out(fresh);
  app_night(1);
}

Test(nightly, a_baseline_that_cannot_be_used_exits_14_before_writing) {
  app_night(1);
  char *bad = t_tmpdir(), path[700], out[700], url[64];
  snprintf(path, sizeof path, "%s/journal.jsonl", bad);
  cr_assert_eq(t_write_file(path, "{\"type\":\"run\",\"runId\":\"r\"}\n{\"type\":\"state\",\"stateId\":\"s1\"\n"), 0);
  snprintf(out, sizeof out, "%s/out", bad);
  snprintf(url, sizeof url, "http://127.0.0.1:%d/", port);
  const char *const cases[] = {bad, "/nonexistent/last-night"};
  for (int i = 0; i < 2; i++) {
    const char *args[] = {"crawl", url, "-o", out, "--workers", "1", "--baseline", cases[i], NULL};
    t_run r = t_run_cli(args, 120000);
    cr_expect_eq(r.status, 14, "--baseline %s: exit %d: %s", cases[i], r.status, r.err);
    cr_expect(!strncmp(r.err, "uiap-crawl: ", 12) && strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
              "not one line: %s", r.err);
    struct stat st;
    cr_expect_neq(stat(out, &st), 0, "the output directory was made");
    t_run_free(&r);
  }
  t_rm_rf(bad);
  free(bad);
}

/* The state ids of a crawl's package, as a JSON array (caller frees). */
static cJSON *state_ids(const char *out) {
  cJSON *p = package_of(out), *ids = cJSON_CreateArray();
  const cJSON *st;
  cJSON_ArrayForEach(st, get(get(p, "transitionGraph"), "states")) cJSON_AddItemToArray(ids, cJSON_CreateString(str(st, "stateId")));
  cJSON_Delete(p);
  return ids;
}

static int has_id(const cJSON *ids, const char *id) {
  const cJSON *x;
  cJSON_ArrayForEach(x, ids) if (!strcmp(x->valuestring, id)) return 1;
  return 0;
}

Test(nightly, nights_stopped_by_their_budget_accumulate_coverage, .timeout = 600) {
  app_night(1);
  long long ms;
  char *n[4] = {NULL};
  cJSON *ids[4] = {NULL};
  for (int k = 0; k < 4; k++) {
    n[k] = night_max(k ? n[k - 1] : NULL, "12", &ms);
    ids[k] = state_ids(n[k]);
    fprintf(stderr, "nightly: budget 12 transitions, night %d: %d states\n", k + 1, cJSON_GetArraySize(ids[k]));
    const cJSON *x;
    if (k) cJSON_ArrayForEach(x, ids[k - 1]) cr_expect(has_id(ids[k], x->valuestring), "night %d lost state %s", k + 1, x->valuestring);
  }
  cr_expect_lt(cJSON_GetArraySize(ids[0]), cJSON_GetArraySize(ids[3]), "four nights mapped no more than one");
  cr_expect_eq(cJSON_GetArraySize(ids[3]), 6, "four nights did not map the whole app");
  for (int k = 0; k < 4; k++) cJSON_Delete(ids[k]), rm_out(n[k]);
}

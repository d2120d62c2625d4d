/* crawler_merge.c -- `uiap-crawl merge` (crawl_merge): the crawl directories
 * of two workers of one run become one crawl directory whose package holds
 * the states and edges a single process found, each once.
 *
 * Fixtures in tests/fixtures/merge (README there): single/ is a real crawl
 * of tests/fixtures/spa (4 states, 7 transitions); w1/ and w2/ are two
 * workers of that run made from it: both captured the start state, both
 * wrote state C and the transition into it (w1 was killed right after: no
 * end record, a torn last line), their transition ids collide (t_00001..),
 * both wrote a record of a type merge does not know. other-run/ is the run
 * record of another run. */
#include <criterion/criterion.h>

#include "crawl_journal.h"
#include "crawl_pkg.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FIX UIAP_SRC "/tests/fixtures/merge"
#define STATE_B "s_afbed753d09137c6"
#define STATE_C "s_cba9bdc91e37b811"
#define STATE_D "s_1ea68876aecde976"

/* ---- helpers ---------------------------------------------------------------- */
/* Copy each file the journal names by `"field":"` from FIX into dir. */
static void copy_named(const char *journal, const char *field, const char *dir) {
  char needle[64], rel[256], from[1024], to[1024];
  snprintf(needle, sizeof needle, "\"%s\":\"", field);
  for (const char *p = journal; (p = strstr(p, needle)); p++) {
    const char *s = p + strlen(needle), *e = strchr(s, '"');
    cr_assert(e && (size_t)(e - s) < sizeof rel);
    snprintf(rel, sizeof rel, "%.*s", (int)(e - s), s);
    snprintf(from, sizeof from, FIX "/%s", rel);
    snprintf(to, sizeof to, "%s/%s", dir, rel);
    struct stat st;
    if (stat(to, &st) != 0) t_copy_file(from, to);
  }
}

/* A fresh crawl directory holding FIX/name's journal and the files it names. */
static char *crawl_dir(const char *name) {
  char *dir = t_tmpdir(), path[1024];
  cr_assert(dir);
  snprintf(path, sizeof path, "%s/states", dir);
  cr_assert_eq(mkdir(path, 0755), 0);
  snprintf(path, sizeof path, "%s/screenshots", dir);
  cr_assert_eq(mkdir(path, 0755), 0);
  snprintf(path, sizeof path, FIX "/%s/journal.jsonl", name);
  char *journal = t_read_file(path, NULL);
  cr_assert(journal, "no %s", path);
  copy_named(journal, "pageGraphRef", dir);
  copy_named(journal, "screenshotRef", dir);
  snprintf(path, sizeof path, "%s/journal.jsonl", dir);
  cr_assert_eq(t_write_file(path, journal), 0);
  free(journal);
  return dir;
}

/* A path below a fresh temporary directory that does not exist yet. */
static char *fresh_out(char **parent) {
  *parent = t_tmpdir();
  cr_assert(*parent);
  char *out = malloc(strlen(*parent) + 8);
  sprintf(out, "%s/out", *parent);
  return out;
}

static cJSON *load_package(const char *dir) {
  char path[1024], err[512] = "";
  snprintf(path, sizeof path, "%s/package.json", dir);
  char *text = t_read_file(path, NULL);
  cr_assert(text, "no %s", path);
  cJSON *p = cJSON_Parse(text);
  free(text);
  cr_assert(p, "%s is not JSON %s", path, err);
  return p;
}

static cJSON *build_package(const char *dir) {
  cJSON *p = NULL;
  char err[512] = "";
  cr_assert_eq(crawl_package_build(dir, &p, err, sizeof err), CRAWL_OK, "%s", err);
  return p;
}

static const cJSON *graph(const cJSON *p, const char *k) {
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(p, "transitionGraph"), k);
  cr_assert(cJSON_IsArray(a), "transitionGraph.%s is not an array", k);
  return a;
}
static const char *s_of(const cJSON *o, const char *k) {
  return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The package's states ("ID") or edges ("FROM TO ACTION TARGET"), sorted,
 * one a line (caller frees); *dups: entries that came twice. */
static char *key_list(const cJSON *p, const char *which, int *dups) {
  const cJSON *arr = graph(p, which), *x;
  int n = cJSON_GetArraySize(arr), k = 0;
  char **v = calloc((size_t)n + 1, sizeof *v);
  cJSON_ArrayForEach(x, arr) {
    if (!strcmp(which, "states")) { v[k++] = strdup(s_of(x, "stateId")); continue; }
    char *t = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(x, "target"));
    size_t len = strlen(t) + 256;
    v[k] = malloc(len);
    snprintf(v[k++], len, "%s %s %s %s", s_of(x, "fromStateId"), s_of(x, "toStateId"), s_of(x, "viaActionId"), t);
    free(t);
  }
  qsort(v, (size_t)n, sizeof *v, cmp_str);
  size_t total = 1;
  for (int i = 0; i < n; i++) total += strlen(v[i]) + 1;
  char *out = calloc(total, 1);
  *dups = 0;
  for (int i = 1; i < n; i++) *dups += !strcmp(v[i], v[i - 1]);
  for (int i = 0; i < n; i++) {
    strcat(strcat(out, v[i]), "\n");
    free(v[i]);
  }
  free(v);
  return out;
}

/* Edge transitionIds that came twice. */
static int dup_transition_ids(const cJSON *p) {
  const cJSON *a = graph(p, "edges"), *x, *y;
  int d = 0;
  cJSON_ArrayForEach(x, a) for (y = x->next; y; y = y->next) d += !strcmp(s_of(x, "transitionId"), s_of(y, "transitionId"));
  return d;
}

/* merged and expected list the same states and edges, each once. */
static void assert_same_graph(const cJSON *merged, const cJSON *expected) {
  static const char *const which[] = {"states", "edges"};
  for (int w = 0; w < 2; w++) {
    int dm, de;
    char *m = key_list(merged, which[w], &dm), *e = key_list(expected, which[w], &de);
    cr_expect_str_eq(m, e, "merged %s differ from the single-process run's:\n%s\nexpected:\n%s", which[w], m, e);
    cr_expect_eq(dm, 0, "%d %s twice in the merged package", dm, which[w]);
    free(m);
    free(e);
  }
  cr_expect_eq(dup_transition_ids(merged), 0, "a transitionId is on two edges");
}

static crawl_code merge2(const char *a, const char *b, const char *out, crawl_merge_stats *st, char *err, size_t n) {
  const char *dirs[] = {a, b};
  return crawl_merge(dirs, 2, out, NULL, st, err, n);
}

static int lines_of(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

/* A CLI refusal: exit code, one line on stderr starting "uiap-crawl: " and
 * holding needle. */
static void assert_refused(const t_run *r, int code, const char *needle) {
  cr_assert_eq(r->status, code, "exit %d, not %d; stderr: %s", r->status, code, r->err);
  cr_expect_eq(lines_of(r->err), 1, "not one line on stderr: %s", r->err);
  cr_expect(!strncmp(r->err, "uiap-crawl: ", 12), "%s", r->err);
  cr_expect(strstr(r->err, needle), "no \"%s\" in: %s", needle, r->err);
}

/* ---- the merged package ------------------------------------------------------- */

Test(merge, two_workers_give_the_single_process_package) {
  char *w1 = crawl_dir("w1"), *w2 = crawl_dir("w2"), *single = crawl_dir("single"), *parent;
  char *out = fresh_out(&parent), err[1024] = "";
  crawl_merge_stats st;
  cr_assert_eq(merge2(w1, w2, out, &st, err, sizeof err), CRAWL_OK, "%s", err);
  cJSON *merged = load_package(out), *expected = build_package(single);
  assert_same_graph(merged, expected);
  cr_expect_eq(cJSON_GetArraySize(graph(merged, "states")), 4);
  cr_expect_eq(cJSON_GetArraySize(graph(merged, "edges")), 6, "7 transitions, one a self-loop");
  cr_expect_eq(st.states, 4);
  cr_expect_eq(st.transitions, 7);
  cr_expect_eq(st.dup_states, 2, "w2 captured the start state and state C again");
  cr_expect_eq(st.dup_transitions, 1, "w2 redid the action into state C");
  cr_expect_eq(st.unended, 1);
  const cJSON *run = cJSON_GetObjectItemCaseSensitive(merged, "run");
  cr_expect_str_eq(s_of(run, "status"), "completed");
  cr_expect_str_eq(s_of(run, "runId"), s_of(cJSON_GetObjectItemCaseSensitive(expected, "run"), "runId"));
  char *notes = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(run, "notes"));
  cr_expect(strstr(notes, "had no end record (the worker was stopped)") && strstr(notes, w1), "%s", notes);
  free(notes);
  char msg[4096], path[1024];
  snprintf(path, sizeof path, "%s/package.json", out);
  cr_expect_eq(t_validate("DiscoveryPackage", path, msg, sizeof msg), 0, "%s", msg);
  snprintf(path, sizeof path, "%s/states", out);
  cr_expect_eq(t_dir_entries(path), 4, "one PageGraph file per state");
  snprintf(path, sizeof path, "%s/screenshots/" STATE_B ".png", out);
  struct stat sb;
  cr_expect_eq(stat(path, &sb), 0, "state B's screenshot was not copied");
  cJSON_Delete(merged);
  cJSON_Delete(expected);
  t_rm_rf(w1), t_rm_rf(w2), t_rm_rf(single), t_rm_rf(parent);
  free(w1), free(w2), free(single), free(parent), free(out);
}

/* The edge into a state found by w2 keeps pointing at it: the state's
 * viaTransitionId (w2's t_00002) is rewritten to the merged id. */
Test(merge, a_state_still_names_the_transition_that_found_it) {
  char *w1 = crawl_dir("w1"), *w2 = crawl_dir("w2"), *parent;
  char *out = fresh_out(&parent), err[1024] = "";
  cr_assert_eq(merge2(w1, w2, out, NULL, err, sizeof err), CRAWL_OK, "%s", err);
  cJSON *p = load_package(out);
  const cJSON *x, *into_d = NULL, *d = NULL;
  cJSON_ArrayForEach(x, graph(p, "edges")) if (!strcmp(s_of(x, "toStateId"), STATE_D)) into_d = x;
  cJSON_ArrayForEach(x, graph(p, "states")) if (!strcmp(s_of(x, "stateId"), STATE_D)) d = x;
  cr_assert(into_d && d);
  cr_expect_str_eq(s_of(into_d, "fromStateId"), STATE_C);
  char *by = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(d, "discoveredBy")), want[64];
  snprintf(want, sizeof want, "\"refId\":\"%s\"", s_of(into_d, "transitionId"));
  cr_expect(strstr(by, want), "state D's discoveredBy %s does not name its edge %s", by, s_of(into_d, "transitionId"));
  free(by);
  cJSON_Delete(p);
  t_rm_rf(w1), t_rm_rf(w2), t_rm_rf(parent);
  free(w1), free(w2), free(parent), free(out);
}

/* One journal: one run and one end record, transitions t_00001..t_00007 in
 * time order, each lifecycle status once, the unknown record once, no torn
 * line. */
Test(merge, the_merged_journal_is_one_run) {
  char *w1 = crawl_dir("w1"), *w2 = crawl_dir("w2"), *parent;
  char *out = fresh_out(&parent), err[1024] = "";
  cr_assert_eq(merge2(w2, w1, out, NULL, err, sizeof err), CRAWL_OK, "%s", err);
  cr_expect_eq(t_journal_lines(out, "run"), 1);
  cr_expect_eq(t_journal_lines(out, "end"), 1);
  cr_expect_eq(t_journal_lines(out, "status"), 6, "preparing .. extracting, once each");
  cr_expect_eq(t_journal_lines(out, "frontier.lease"), 1, "a record of an unknown type is copied once");
  cr_expect_eq(t_journal_lines(out, "transition"), 7);
  cr_expect_eq(t_journal_lines(out, "decision"), 22);
  char path[1024];
  snprintf(path, sizeof path, "%s/journal.jsonl", out);
  char *text = t_read_file(path, NULL), *p = text;
  cr_assert(text);
  cr_expect(text[strlen(text) - 1] == '\n', "the merged journal ends in a torn line");
  for (int i = 1; i <= 7; i++) {
    char id[40];
    snprintf(id, sizeof id, "\"transitionId\":\"t_%05d\"", i);
    char *at = strstr(text, id);
    cr_expect(at && at > p && !strstr(at + 1, id), "t_%05d missing, twice or out of order", i);
    if (at) p = at;
  }
  free(text);
  t_rm_rf(w1), t_rm_rf(w2), t_rm_rf(parent);
  free(w1), free(w2), free(parent), free(out);
}

/* Whatever the order on the command line, the same graph. */
Test(merge, command_line_order_does_not_change_the_graph) {
  char *w1 = crawl_dir("w1"), *w2 = crawl_dir("w2"), *pa, *pb;
  char *a = fresh_out(&pa), *b = fresh_out(&pb), err[1024] = "";
  cr_assert_eq(merge2(w1, w2, a, NULL, err, sizeof err), CRAWL_OK, "%s", err);
  cr_assert_eq(merge2(w2, w1, b, NULL, err, sizeof err), CRAWL_OK, "%s", err);
  cJSON *x = load_package(a), *y = load_package(b);
  assert_same_graph(x, y);
  cJSON_Delete(x);
  cJSON_Delete(y);
  t_rm_rf(w1), t_rm_rf(w2), t_rm_rf(pa), t_rm_rf(pb);
  free(w1), free(w2), free(pa), free(pb), free(a), free(b);
}

/* A worker that repeated an action itself keeps its repeats (one process
 * would have them too); the other worker's copy of it is dropped. Journals
 * over the states of tests/fixtures/journals (t_journal_dir). */
Test(merge, a_workers_own_repeats_are_kept_another_workers_copy_is_not) {
  static const char head[] =
    "{\"type\":\"run\",\"at\":\"2026-01-05T10:00:00.000Z\",\"runId\":\"run_r\",\"startedAt\":\"2026-01-05T10:00:00.000Z\"}\n"
    "{\"type\":\"state\",\"at\":\"2026-01-05T10:00:01.000Z\",\"stateId\":\"s1\",\"routeId\":\"/home.html\",\"pageGraphRef\":\"states/s1.json\"}\n"
    "{\"type\":\"state\",\"at\":\"2026-01-05T10:00:02.000Z\",\"stateId\":\"s2\",\"routeId\":\"/home.html\",\"pageGraphRef\":\"states/s2.json\"}\n";
  static const char tr[] =
    "{\"type\":\"transition\",\"at\":\"2026-01-05T10:00:0%d.000Z\",\"transitionId\":\"t_0000%d\",\"fromStateId\":\"s1\","
    "\"toStateId\":\"s2\",\"viaActionId\":\"ui.activate\",\"target\":{\"role\":\"button\",\"name\":\"Open help\"}}\n";
  static const char end[] = "{\"type\":\"end\",\"at\":\"2026-01-05T10:00:09.000Z\",\"status\":\"completed\"}\n";
  char a[2048], b[2048], t1[512], t2[512], err[1024] = "";
  snprintf(t1, sizeof t1, tr, 3, 1);
  snprintf(t2, sizeof t2, tr, 5, 2);
  snprintf(a, sizeof a, "%s%s%s%s", head, t1, t2, end); /* worker a: the action twice */
  snprintf(t1, sizeof t1, tr, 4, 1);
  snprintf(b, sizeof b, "%s%s%s", head, t1, end); /* worker b: once */
  char *da = t_journal_dir(NULL, a), *db = t_journal_dir(NULL, b), *parent, *out = fresh_out(&parent);
  crawl_merge_stats st;
  cr_assert_eq(merge2(da, db, out, &st, err, sizeof err), CRAWL_OK, "%s", err);
  cr_expect_eq(st.transitions, 2, "a's repeat is kept, b's copy dropped");
  cr_expect_eq(st.dup_transitions, 1);
  cr_expect_eq(t_journal_lines(out, "transition"), 2);
  t_rm_rf(da), t_rm_rf(db), t_rm_rf(parent);
  free(da), free(db), free(parent), free(out);
}

/* ---- refusals (the command line) ------------------------------------------------ */

Test(merge, journals_of_different_runs_are_refused) {
  char *w1 = crawl_dir("w1"), *other = crawl_dir("other-run"), *parent;
  char *out = fresh_out(&parent);
  t_run r = t_run_argv((const char *[]){UIAP_BIN, "merge", w1, other, "-o", out, NULL}, 30000);
  assert_refused(&r, 2, "run_another_run");
  struct stat st;
  cr_expect_neq(stat(out, &st), 0, "the refused merge created %s", out);
  t_run_free(&r);
  r = t_run_argv((const char *[]){UIAP_BIN, "merge", w1, other, "-o", out, "--force", NULL}, 30000);
  cr_expect_eq(r.status, 0, "--force: %s", r.err);
  t_run_free(&r);
  t_rm_rf(w1), t_rm_rf(other), t_rm_rf(parent);
  free(w1), free(other), free(parent), free(out);
}

Test(merge, an_output_that_is_not_empty_is_refused) {
  char *w1 = crawl_dir("w1"), *w2 = crawl_dir("w2"), *out = t_tmpdir(), path[1024];
  snprintf(path, sizeof path, "%s/keep.txt", out);
  cr_assert_eq(t_write_file(path, "mine"), 0);
  t_run r = t_run_argv((const char *[]){UIAP_BIN, "merge", w1, w2, "-o", out, NULL}, 30000);
  assert_refused(&r, 7, "--force");
  cr_expect_eq(t_dir_entries(out), 1, "the refused merge wrote into %s", out);
  t_run_free(&r);
  r = t_run_argv((const char *[]){UIAP_BIN, "merge", w1, w2, "-o", out, "--force", NULL}, 30000);
  cr_expect_eq(r.status, 0, "--force: %s", r.err);
  cr_expect(strstr(r.err, "merged 2 directories: 4 states, 7 transitions (3 duplicates dropped)"), "%s", r.err);
  t_run_free(&r);
  t_rm_rf(w1), t_rm_rf(w2), t_rm_rf(out);
  free(w1), free(w2), free(out);
}

Test(merge, a_directory_without_journal_or_the_output_among_the_inputs_is_refused) {
  char *w1 = crawl_dir("w1"), *empty = t_tmpdir(), *parent, *out = fresh_out(&parent);
  t_run r = t_run_argv((const char *[]){UIAP_BIN, "merge", w1, empty, "-o", out, NULL}, 30000);
  assert_refused(&r, 2, "no journal.jsonl");
  t_run_free(&r);
  r = t_run_argv((const char *[]){UIAP_BIN, "merge", w1, "-o", w1, "--force", NULL}, 30000);
  assert_refused(&r, 2, "one of the directories to merge");
  t_run_free(&r);
  r = t_run_argv((const char *[]){UIAP_BIN, "merge", w1, NULL}, 30000);
  assert_refused(&r, 2, "-o OUT");
  t_run_free(&r);
  t_rm_rf(w1), t_rm_rf(empty), t_rm_rf(parent);
  free(w1), free(empty), free(parent), free(out);
}

/* A worker's accessibility record goes with its state into the merged
 * directory, and the merged package cites it. */
Test(merge, accessibility_records_are_copied) {
  char *w1 = crawl_dir("w1"), *w2 = crawl_dir("w2"), *parent;
  char *out = fresh_out(&parent), err[1024] = "", path[1200];
  snprintf(path, sizeof path, "%s/journal.jsonl", w1);
  char *j = t_read_file(path, NULL);
  cr_assert(j);
  const char *shot = "\"screenshotRef\":\"screenshots/" STATE_B ".png\"";
  char *at = strstr(j, shot);
  cr_assert(at, "w1 names state B's screenshot");
  size_t cut = (size_t)(at - j) + strlen(shot), n = strlen(j) + 128;
  char *k = malloc(n);
  snprintf(k, n, "%.*s,\"accessibilityRef\":\"accessibility/" STATE_B ".json\"%s", (int)cut, j, j + cut);
  cr_assert_eq(t_write_file(path, k), 0);
  snprintf(path, sizeof path, "%s/accessibility", w1);
  cr_assert_eq(mkdir(path, 0755), 0);
  snprintf(path, sizeof path, "%s/accessibility/" STATE_B ".json", w1);
  cr_assert_eq(t_write_file(path, "{\"stateId\":\"" STATE_B "\",\"nodes\":[]}"), 0);
  cr_assert_eq(merge2(w1, w2, out, NULL, err, sizeof err), CRAWL_OK, "%s", err);
  snprintf(path, sizeof path, "%s/accessibility/" STATE_B ".json", out);
  struct stat sb;
  cr_expect_eq(stat(path, &sb), 0, "state B's accessibility record was copied");
  cJSON *p = load_package(out);
  char *text = cJSON_PrintUnformatted(p);
  cr_expect(strstr(text, "\"refId\":\"ax_" STATE_B "\""), "the merged package cites it");
  free(text);
  cJSON_Delete(p);
  free(j), free(k);
  t_rm_rf(w1), t_rm_rf(w2), t_rm_rf(parent);
  free(w1), free(w2), free(parent), free(out);
}

/* Records put into a crawl directory's journal before its end record (or
 * at its end, its torn last line cut off, when it has none). */
static void journal_insert(const char *dir, const char *lines) {
  char path[1024];
  snprintf(path, sizeof path, "%s/journal.jsonl", dir);
  char *j = t_read_file(path, NULL), *end;
  cr_assert(j);
  if (!(end = strstr(j, "{\"type\":\"end\""))) *(end = strrchr(j, '\n') + 1) = 0;
  char *out = malloc(strlen(j) + strlen(lines) + 1);
  sprintf(out, "%.*s%s%s", (int)(end - j), j, lines, end);
  cr_assert_eq(t_write_file(path, out), 0);
  free(out);
  free(j);
}

/* A worker's journal of more records than merge first makes room for (the
 * big page of tests/e2e/hostile.c wrote 25,000 decisions): merge read the
 * previous record after growing its list (a crash in --workers runs). The
 * run's stoppedBy is the weightiest of the workers': w1 (first) drained the
 * frontier, w2 stopped at maxStates, so the run is partial. */
Test(merge, a_long_journal_and_the_weightiest_stop_reason) {
  enum { EXTRA = 3000 };
  char *w1 = crawl_dir("w1"), *w2 = crawl_dir("w2"), *parent, err[1024] = "";
  char *out = fresh_out(&parent);
  crawl_merge_stats st0, st;
  cr_assert_eq(merge2(w1, w2, out, &st0, err, sizeof err), CRAWL_OK, "%s", err);
  t_rm_rf(out);
  /* w1: its torn line replaced by an end record; w2: EXTRA decisions before its end record */
  journal_insert(w1, "{\"type\":\"end\",\"at\":\"2026-12-01T16:03:01.100Z\",\"status\":\"completed\","
                     "\"stoppedBy\":\"frontier\"}\n");
  char *big = malloc(EXTRA * 300), *p = big;
  for (int i = 0; i < EXTRA; i++)
    p += sprintf(p, "{\"type\":\"decision\",\"stateId\":\"" STATE_C "\",\"actionId\":\"ui.activate\","
                    "\"target\":{\"role\":\"button\",\"name\":\"Delete row %d\",\"scopeId\":\"sc_1\",\"ordinal\":0},"
                    "\"effect\":\"deny\",\"reason\":\"destructive\"}\n", i);
  journal_insert(w2, big);
  free(big);
  cr_assert_eq(merge2(w1, w2, out, &st, err, sizeof err), CRAWL_OK, "%s", err);
  cr_expect_eq(st.decisions, st0.decisions + EXTRA, "every decision once: %ld, before %ld", st.decisions, st0.decisions);
  cr_expect_eq(st.states, 4);
  cr_expect_eq(st.unended, 0);
  cr_expect_str_eq(st.stopped_by ? st.stopped_by : "(none)", "maxStates", "not w1's \"frontier\"");
  char out1[1100];
  snprintf(out1, sizeof out1, "%s/w1only", parent);
  const char *one[] = {w1};
  cr_assert_eq(crawl_merge(one, 1, out1, NULL, &st, err, sizeof err), CRAWL_OK, "%s", err);
  cr_expect_str_eq(st.stopped_by ? st.stopped_by : "(none)", "frontier", "w1 alone drained the frontier");
  cJSON *merged = load_package(out);
  cr_expect_eq(cJSON_GetArraySize(graph(merged, "states")), 4);
  cJSON_Delete(merged);
  t_rm_rf(w1), t_rm_rf(w2), t_rm_rf(parent);
  free(w1), free(w2), free(parent), free(out);
}

#define LOOP_R(action, role, name, n)                                                                          \
  "{\"type\":\"review\",\"kind\":\"missing_success_signal\",\"severity\":\"low\",\"actionId\":\"" action       \
  "\",\"target\":{\"role\":\"" role "\",\"name\":\"" name "\",\"ordinal\":0},\"description\":\"Activating "    \
  "this control (" action ", " #n " times) led to no distinguishable state and no signal.\"}\n"

/* A control each worker saw only loop (its own share of the run) is one
 * review item of the merged run, counted over the run; a control one worker
 * saw loop and the other saw change the page is none (as one process says). */
Test(merge, a_control_that_never_changed_anything_is_one_review_over_the_run) {
  char *w1 = crawl_dir("w1"), *w2 = crawl_dir("w2"), *parent, err[1024] = "";
  char *out = fresh_out(&parent);
  char a[4096], b[4096];
  snprintf(a, sizeof a, "%s%s%s%s",
           "{\"type\":\"transition\",\"transitionId\":\"t_09001\",\"fromStateId\":\"" STATE_C "\",\"toStateId\":\"" STATE_C
           "\",\"viaActionId\":\"ui.choose\",\"target\":{\"role\":\"combobox\",\"name\":\"Visibility\",\"ordinal\":0},"
           "\"args\":{\"optionIndex\":1},\"observedSignals\":[],\"selfLoop\":true}\n",
           "{\"type\":\"transition\",\"transitionId\":\"t_09002\",\"fromStateId\":\"" STATE_C "\",\"toStateId\":\"" STATE_C
           "\",\"viaActionId\":\"ui.toggle\",\"target\":{\"role\":\"switch\",\"name\":\"Dark mode\",\"ordinal\":0},"
           "\"observedSignals\":[],\"selfLoop\":true}\n",
           LOOP_R("ui.choose", "combobox", "Visibility", 1), LOOP_R("ui.toggle", "switch", "Dark mode", 1));
  snprintf(b, sizeof b, "%s%s%s",
           "{\"type\":\"transition\",\"transitionId\":\"t_09003\",\"fromStateId\":\"" STATE_B "\",\"toStateId\":\"" STATE_B
           "\",\"viaActionId\":\"ui.choose\",\"target\":{\"role\":\"combobox\",\"name\":\"Visibility\",\"ordinal\":0},"
           "\"args\":{\"optionIndex\":2},\"observedSignals\":[],\"selfLoop\":true}\n",
           "{\"type\":\"transition\",\"transitionId\":\"t_09004\",\"fromStateId\":\"" STATE_B "\",\"toStateId\":\"" STATE_C
           "\",\"viaActionId\":\"ui.toggle\",\"target\":{\"role\":\"switch\",\"name\":\"Dark mode\",\"ordinal\":0},"
           "\"observedSignals\":[],\"selfLoop\":false}\n",
           LOOP_R("ui.choose", "combobox", "Visibility", 1));
  journal_insert(w1, a);
  journal_insert(w2, b);
  cr_assert_eq(merge2(w1, w2, out, NULL, err, sizeof err), CRAWL_OK, "%s", err);
  char path[1024];
  snprintf(path, sizeof path, "%s/journal.jsonl", out);
  char *j = t_read_file(path, NULL);
  cr_assert(j);
  int choose = 0, toggle = 0;
  for (const char *p = j; (p = strstr(p, "Activating this control (")); p++) {
    choose += !strncmp(p, "Activating this control (ui.choose, 2 times)", 44);
    toggle += !strncmp(p, "Activating this control (ui.toggle", 34);
  }
  cr_expect_eq(choose, 1, "one review for the combobox, counting both workers' loops:\n%s", j);
  cr_expect_eq(toggle, 0, "none for the switch: worker 2 saw it change the page");
  free(j);
  t_rm_rf(w1), t_rm_rf(w2), t_rm_rf(parent);
  free(w1), free(w2), free(parent), free(out);
}

/* A worker's journal is untrusted input (issue #25, 4): a state it names on
 * an origin outside the run's (baseUrl, seeds) is dropped with the
 * transition into it, and the merged journal says so; the run's own states
 * are all kept. */
Test(merge, a_state_outside_the_runs_origins_is_dropped) {
  char *w1 = crawl_dir("w1"), *w2 = crawl_dir("w2"), *parent, err[1024] = "";
  char *out = fresh_out(&parent);
  journal_insert(w2, "{\"type\":\"state\",\"at\":\"2026-12-01T16:03:00.900Z\",\"stateId\":\"s_steal\",\"fingerprint\":"
                     "\"00000000000000000000000000000001\",\"routeId\":\"/steal.html\",\"url\":"
                     "\"http://127.0.0.1:1/steal.html\",\"title\":\"Steal\",\"depth\":1,\"seed\":0}\n"
                     "{\"type\":\"transition\",\"at\":\"2026-12-01T16:03:00.901Z\",\"transitionId\":\"t_09999\","
                     "\"fromStateId\":\"" STATE_C "\",\"toStateId\":\"s_steal\",\"viaActionId\":\"nav.navigate\","
                     "\"target\":{\"role\":\"link\",\"name\":\"Steal\"},\"sideEffectClass\":\"navigation\"}\n");
  crawl_merge_stats st;
  cr_assert_eq(merge2(w1, w2, out, &st, err, sizeof err), CRAWL_OK, "%s", err);
  cr_expect_eq(st.foreign, 1, "one state outside the run's origins");
  cr_expect_eq(st.states, 4, "the run's own four states are kept, the foreign one is not");
  char path[1200];
  snprintf(path, sizeof path, "%s/journal.jsonl", out);
  char *j = t_read_file(path, NULL);
  cr_assert(j);
  cr_expect(!strstr(j, "steal.html") && !strstr(j, "s_steal"), "the merged journal names the foreign state");
  cr_expect(strstr(j, "outside the run's origins"), "a note says states were dropped");
  free(j);
  t_rm_rf(w1), t_rm_rf(w2), t_rm_rf(parent);
  free(w1), free(w2), free(parent), free(out);
}

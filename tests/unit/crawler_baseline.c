/* crawler_baseline.c -- reading last night's crawl directory for
 * `crawl --baseline` (crawler/run/baseline_read.c) on the recorded journals
 * of tests/fixtures/journals: what it keeps of states and transitions, the
 * path that first reached each state, the elements digest, the re-executed
 * sample, and the one-line refusals of a directory it cannot use. */
#include <criterion/criterion.h>

#include "baseline.h"
#include "explore_int.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static crawl__baseline *read_ok(const char *dir, int pct) {
  crawl__baseline *b = NULL;
  char err[512] = "";
  crawl_code rc = crawl__baseline_read(dir, pct, &b, err, sizeof err);
  cr_assert_eq(rc, CRAWL_OK, "crawl__baseline_read: %s", err);
  cr_assert(b);
  return b;
}

/* The refusal of dir: its line in err (asserted to hold `needle`). */
static void read_refused(const char *dir, const char *needle) {
  crawl__baseline *b = (crawl__baseline *)1;
  char err[512] = "";
  crawl_code rc = crawl__baseline_read(dir, 10, &b, err, sizeof err);
  cr_assert_eq(rc, CRAWL_ARG, "a baseline that cannot be used was read (%s)", dir);
  cr_assert_null(b);
  cr_assert(strstr(err, needle), "the error line \"%s\" does not say \"%s\"", err, needle);
  cr_assert_null(strchr(err, '\n'), "the error is more than one line: %s", err);
}

static const crawl__bl_state *bl_state_of(const crawl__baseline *b, const char *id) {
  int i = crawl__baseline_state(b, id);
  cr_assert_geq(i, 0, "state %s not read", id);
  return &b->st[i];
}

Test(baseline, reads_states_transitions_and_paths_of_a_recorded_journal) {
  char *dir = t_journal_dir("normal", NULL);
  crawl__baseline *b = read_ok(dir, 10);
  cr_assert_str_eq(b->run_id, "run_normal");
  cr_assert_eq(b->nst, 3);
  cr_assert_eq(b->ntr, 7);
  const crawl__bl_state *s1 = bl_state_of(b, "s1"), *s2 = bl_state_of(b, "s2"), *s3 = bl_state_of(b, "s3");
  cr_assert_str_eq(s2->fp, "fp_home_help");
  cr_assert_str_eq(s3->url, "http://127.0.0.1:8000/settings.html");
  cr_assert_null(s1->parent, "a seed's state has no parent");
  cr_assert_null(s1->via_key);
  /* the journal has no "via": the path is the viaTransitionId's transition */
  cr_assert_str_eq(s2->parent, "s1");
  cr_assert_str_eq(s2->via_key, "ui.activate|button|Open help|notes.open|0");
  cr_assert_str_eq(s3->via_key, "nav.navigate|link|Settings||0");
  cr_assert_str_eq(s3->via_name, "Settings");
  /* three different pages: three different sets of controls */
  cr_assert_eq(strlen(s1->elems), 16);
  cr_assert_str_neq(s1->elems, s3->elems);
  cr_assert_str_neq(s1->elems, s2->elems);
  cr_assert_eq(s1->now, -1, "nothing is matched before tonight's run");
  cr_assert_eq(s1->nout, 4, "s1's transitions: t1, t3, t6, t7");
  cr_assert_eq(s3->nout, 2, "s3's transitions: t4, t5");
  /* a transition keeps its record for carrying, and its action key */
  const crawl__bl_trans *t4 = NULL;
  for (int k = 0; k < b->ntr; k++)
    if (!strcmp(b->tr[k].id, "t4")) t4 = &b->tr[k];
  cr_assert(t4);
  cr_assert_str_eq(t4->from, "s3");
  cr_assert_str_eq(t4->to, "s3");
  cr_assert_str_eq(t4->key, "ui.activate|button|Save settings|settings.save|0");
  cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t4->rec, "sideEffectClass")), "local_ui");
  crawl__baseline_free(b);
  t_rm_rf(dir);
  free(dir);
}

Test(baseline, refuses_a_directory_it_cannot_use_with_one_line) {
  read_refused("/nonexistent/uiap-baseline", "has no readable journal");
  char *dir = t_journal_dir("interrupted", NULL); /* a malformed line, a pageGraphRef leaving the directory */
  crawl__baseline *b = NULL;
  char err[512] = "";
  cr_assert_eq(crawl__baseline_read(dir, 10, &b, err, sizeof err), CRAWL_ARG);
  cr_assert(strstr(err, "leaves the directory") || strstr(err, "malformed"), "%s", err);
  t_rm_rf(dir);
  free(dir);
  static const struct { const char *journal, *needle; } bad[] = {
    {"{\"type\":\"state\",\"at\":\"x\",\"stateId\":\"s1\",\"fingerprint\":\"f\",\"pageGraphRef\":\"states/s1.json\"}\n",
     "does not start with a run record"},
    {"{\"type\":\"run\",\"at\":\"x\",\"runId\":\"r\"}\n{\"type\":\"state\",\"at\":\"x\",\"stateId\":\"s1\",\"fingerprint\":\"f\","
     "\"pageGraphRef\":\"../../etc/passwd\"}\n", "leaves the directory"},
    {"{\"type\":\"run\",\"at\":\"x\",\"runId\":\"r\"}\n{\"type\":\"state\",\"at\":\"x\",\"stateId\":\"s1\",\"fingerprint\":\"f\","
     "\"pageGraphRef\":\"states/nothere.json\"}\n", "cannot read state file"},
    {"{\"type\":\"run\",\"at\":\"x\",\"runId\":\"r\"}\n{\"type\":\"state\",\"at\":\"x\",\"stateId\":\"s1\","
     "\"pageGraphRef\":\"states/s1.json\"}\n", "without fingerprint"},
    {"{\"type\":\"run\",\"at\":\"x\",\"runId\":\"r\"}\n{\"type\":\"transition\",\"at\":\"x\",\"transitionId\":\"t1\"}\n",
     "without fromStateId"},
    {"{\"type\":\"run\",\"at\":\"x\",\"runId\":\"r\"}\nnot json at all\n{\"type\":\"end\",\"at\":\"x\"}\n", "malformed"},
    {"", "is empty"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    dir = t_journal_dir(NULL, bad[i].journal);
    read_refused(dir, bad[i].needle);
    t_rm_rf(dir);
    free(dir);
  }
}

Test(baseline, a_state_file_that_is_no_page_graph_is_refused) {
  char *dir = t_journal_dir("normal", NULL), path[1024];
  snprintf(path, sizeof path, "%s/states/s3.json", dir);
  cr_assert_eq(t_write_file(path, "[1, 2, 3]"), 0);
  read_refused(dir, "is no PageGraph");
  t_rm_rf(dir);
  free(dir);
}

Test(baseline, the_elements_digest_sees_controls_not_their_order) {
  cJSON *a = cJSON_Parse("{\"elements\":[{\"role\":\"button\",\"name\":\"Save\",\"supportedActions\":[\"ui.activate\"]},"
                         "{\"role\":\"link\",\"name\":\"Home\",\"stableId\":\"nav.home\",\"supportedActions\":[\"nav.navigate\"]},"
                         "{\"role\":\"heading\",\"name\":\"Today 12:00\"}]}");
  cJSON *b = cJSON_Parse("{\"elements\":[{\"role\":\"link\",\"name\":\"Home\",\"stableId\":\"nav.home\",\"supportedActions\":[\"nav.navigate\"]},"
                         "{\"role\":\"heading\",\"name\":\"Today 12:01\"},"
                         "{\"role\":\"button\",\"name\":\"Save\",\"supportedActions\":[\"ui.activate\"]}]}");
  cJSON *c = cJSON_Parse("{\"elements\":[{\"role\":\"button\",\"name\":\"Save all\",\"supportedActions\":[\"ui.activate\"]},"
                         "{\"role\":\"link\",\"name\":\"Home\",\"stableId\":\"nav.home\",\"supportedActions\":[\"nav.navigate\"]}]}");
  char da[17], db[17], dc[17];
  crawl__bl_elements_digest(a, da);
  crawl__bl_elements_digest(b, db);
  crawl__bl_elements_digest(c, dc);
  cr_assert_str_eq(da, db, "order and text without actions changed the digest");
  cr_assert_str_neq(da, dc, "a renamed control left the digest alone");
  cJSON_Delete(a), cJSON_Delete(b), cJSON_Delete(c);
}

Test(baseline, the_reexecuted_share_is_reproducible) {
  int picked = 0;
  for (int i = 0; i < 1000; i++) {
    char tid[32];
    snprintf(tid, sizeof tid, "t_%05d", i);
    int p = crawl__bl_pick("run_a", tid, 10);
    cr_assert_eq(p, crawl__bl_pick("run_a", tid, 10), "the same baseline picked differently");
    cr_assert_eq(crawl__bl_pick("run_a", tid, 0), 0);
    cr_assert_eq(crawl__bl_pick("run_a", tid, 100), 1);
    picked += p;
  }
  cr_assert(picked > 60 && picked < 140, "10%% of 1000 picked %d", picked);
}

Test(baseline, the_plan_names_the_baseline_and_the_share) {
  cJSON *plan = cJSON_Parse("{\"environment\":{\"metadata\":{\"baseline\":\"nights/last\",\"reverify\":0}}}");
  const char *dir = NULL;
  int pct = 0;
  crawl_plan_error pe;
  cr_assert_eq(crawl_plan_baseline(plan, &dir, &pct, &pe), CRAWL_OK, "%s", pe.msg);
  cr_assert_str_eq(dir, "nights/last");
  cr_assert_eq(pct, -1, "0%% is none, not the default");
  const char *flag = "from/the/command/line";
  pct = 30;
  cr_assert_eq(crawl_plan_baseline(plan, &flag, &pct, &pe), CRAWL_OK);
  cr_assert_str_eq(flag, "from/the/command/line", "the plan overrode the flag");
  cr_assert_eq(pct, 30);
  cJSON_Delete(plan);
  static const char *const bad[] = {
    "{\"environment\":{\"metadata\":{\"baseline\":7}}}",
    "{\"environment\":{\"metadata\":{\"baseline\":\"\"}}}",
    "{\"environment\":{\"metadata\":{\"reverify\":101}}}",
    "{\"environment\":{\"metadata\":{\"reverify\":\"10%\"}}}",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    plan = cJSON_Parse(bad[i]);
    dir = NULL, pct = 0;
    cr_expect_eq(crawl_plan_baseline(plan, &dir, &pct, &pe), CRAWL_ARG, "accepted %s", bad[i]);
    cr_expect(strstr(pe.msg, "/environment/metadata/"), "%s", pe.msg);
    cJSON_Delete(plan);
  }
}

/* The end record's openStates: which states last night left work in, and
 * which parts of its tree of first reaches hold any (sub_open): a path
 * into one that holds none only verifies tonight. Without openStates
 * (an older journal, a night that died before its end) every state counts
 * as open. */
Test(baseline, open_work_comes_from_the_end_record) {
  char path[600];
  snprintf(path, sizeof path, "%s/normal/journal.jsonl", UIAP_SRC "/tests/fixtures/journals");
  char *text = t_read_file(path, NULL);
  cr_assert(text);
  /* s1 reaches s2 and s3; only s3 has work left */
  char *with_end = crawl__xprintf("%s{\"type\":\"end\",\"status\":\"completed\",\"openStates\":{\"s3\":4}}\n", text);
  char *dir = t_journal_dir("normal", with_end);
  crawl__baseline *b = read_ok(dir, 10);
  const crawl__bl_state *s1 = bl_state_of(b, "s1"), *s2 = bl_state_of(b, "s2"), *s3 = bl_state_of(b, "s3");
  cr_expect_eq(s3->open, 4);
  cr_expect_eq(s2->open, 0);
  cr_expect(s3->sub_open && s1->sub_open, "s3 has work left, and s1 leads to it");
  cr_expect_not(s2->sub_open, "nothing is left behind s2: its path only verifies");
  crawl__baseline_free(b);
  t_rm_rf(dir);
  free(dir);
  /* no end record: all open, as before */
  dir = t_journal_dir("normal", text);
  b = read_ok(dir, 10);
  for (int i = 0; i < b->nst; i++) cr_expect(b->st[i].open == -1 && b->st[i].sub_open, "%s", b->st[i].id);
  crawl__baseline_free(b);
  t_rm_rf(dir);
  free(dir), free(with_end), free(text);
}

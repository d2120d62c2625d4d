/* crawl.c -- end-to-end: `uiap-crawl crawl` on the fixture SPA
 * (tests/fixtures/spa), whose state space is modelled below. The crawl must
 * find exactly the model's states and transitions, never hit a dangerous
 * endpoint (the fixture server counts requests), list every dangerous
 * control in the review queue, honour each budget exactly, and always write
 * a package that validates. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crawl.h"
#include "support.h"

#include "spa_model.h"

/* ---- running a crawl ------------------------------------------------------------- */
static cJSON *crawl(const char *const *extra, t_run *run, char **dir_out) {
  char *dir = t_tmpdir();
  char tmpenv[600], out[600];
  char *tmp = t_tmpdir();
  snprintf(tmpenv, sizeof tmpenv, "TMPDIR=%s", tmp);
  snprintf(out, sizeof out, "%s/out", dir);
  const char *argv[48];
  int n = 0;
  argv[n++] = "/usr/bin/env";
  argv[n++] = tmpenv;
  argv[n++] = UIAP_BIN;
  argv[n++] = "crawl";
  for (int i = 0; extra && extra[i]; i++) argv[n++] = extra[i];
  argv[n++] = "-o";
  argv[n++] = out;
  argv[n] = NULL;
  *run = t_run_argv(argv, 300000);
  cr_expect_eq(t_leftovers(tmp), 0, "Chromium or its profile outlived the crawl");
  rmdir(tmp);
  free(tmp);
  char pkg[700];
  snprintf(pkg, sizeof pkg, "%s/package.json", out);
  char *text = t_read_file(pkg, NULL);
  cJSON *p = text ? cJSON_Parse(text) : NULL;
  free(text);
  if (p) {
    char msg[4096];
    int v = t_validate("DiscoveryPackage", pkg, msg, sizeof msg);
    cr_expect_eq(v, 0, "package.json validates: %s", msg);
  }
  *dir_out = dir;
  return p;
}

static int count_lines(const char *dir, const char *type) {
  char out[700];
  snprintf(out, sizeof out, "%s/out", dir);
  return t_journal_lines(out, type);
}

static void rm_rf(char *dir) {
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  (void)!system(cmd);
  free(dir);
}

/* requests the fixture servers saw whose path starts with prefix */
static long hits(const char *prefix) { return t_fixture_hits(prefix); }

/* The fixture SPA's package: exactly the model's states and transitions, no
 * duplicates, success signals, no dangerous request since danger0/logout0,
 * every dangerous control in the review queue. */
static void check_model_and_safety(const cJSON *pkg, long danger0, long logout0) {
  int want_states, want_transitions;
  model_counts(&want_states, &want_transitions);
  const cJSON *tg = cJSON_GetObjectItem(pkg, "transitionGraph");
  int states = cJSON_GetArraySize(cJSON_GetObjectItem(tg, "states"));
  int edges = cJSON_GetArraySize(cJSON_GetObjectItem(tg, "edges"));
  cr_expect_eq(states, want_states, "states: %d, the model has %d", states, want_states);
  cr_expect_eq(edges, want_transitions, "transitions: %d, the model has %d", edges, want_transitions);
  /* no two states share a fingerprint */
  const cJSON *a, *b;
  cJSON_ArrayForEach(a, cJSON_GetObjectItem(tg, "states")) {
    int same = 0;
    cJSON_ArrayForEach(b, cJSON_GetObjectItem(tg, "states"))
      same += !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(a, "fingerprint")),
                      cJSON_GetStringValue(cJSON_GetObjectItem(b, "fingerprint")));
    cr_expect_eq(same, 1);
  }
  /* success signals: Open details opens the dialog, Close closes it, a nav
   * link changes the route */
  int opened = 0, closed = 0, routed = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(tg, "edges")) {
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "target"), "name"));
    const cJSON *sg;
    cJSON_ArrayForEach(sg, cJSON_GetObjectItem(e, "observedSignals")) {
      const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(sg, "kind"));
      opened += !strcmp(k, "dialog.opened") && name && !strcmp(name, "Open details");
      closed += !strcmp(k, "dialog.closed") && name && !strcmp(name, "Close");
      routed += !strcmp(k, "route.changed") && name && !strcmp(name, "Reports");
    }
  }
  cr_expect_gt(opened, 0, "Open details transitions carry dialog.opened");
  cr_expect_gt(closed, 0, "Close transitions carry dialog.closed");
  cr_expect_gt(routed, 0, "the Reports link carries route.changed");
  cr_expect_eq(hits("/danger/") - danger0, 0, "a dangerous endpoint was hit");
  cr_expect_eq(hits("/logout.html") - logout0, 0, "the logout page was loaded");
  static const char *const dangerous[] = {"Purge all data", "Pay now", "Delete everything", "Log out", "Send feedback"};
  for (size_t i = 0; i < sizeof dangerous / sizeof *dangerous; i++)
    cr_expect(t_review_mentions(pkg, "unsafe_action_candidate", dangerous[i]),
              "%s is listed as an unsafe action candidate", dangerous[i]);
}

Test(crawl, observe_only_clicks_nothing, .timeout = 120) {
  long danger0 = hits("/danger/");
  const char *args[] = {t_fixture_url(0, NULL, "/spa/index.html"), "--mode", "observe_only", NULL};
  t_run run;
  char *dir;
  cJSON *pkg = crawl(args, &run, &dir);
  cr_assert(pkg, "crawl failed (exit %d): %s", run.status, run.err);
  const cJSON *tg = cJSON_GetObjectItem(pkg, "transitionGraph");
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(tg, "states")), 1, "only the seed state");
  cr_expect_eq(count_lines(dir, "transition"), 0, "no action executed");
  cr_expect_gt(count_lines(dir, "decision"), 5, "every action not taken is recorded with its decision");
  cr_expect_eq(hits("/danger/") - danger0, 0);
  cJSON_Delete(pkg);
  t_run_free(&run);
  rm_rf(dir);
}

Test(crawl, budgets_stop_exactly, .timeout = 200) {
  struct { const char *flag, *value, *line; } cases[] = {
    {"--max-states", "3", "state"},
    {"--max-transitions", "4", "transition"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    const char *args[] = {t_fixture_url(0, NULL, "/spa/index.html"), cases[k].flag, cases[k].value, NULL};
    t_run run;
    char *dir;
    cJSON *pkg = crawl(args, &run, &dir);
    cr_assert(pkg, "crawl %s failed (exit %d): %s", cases[k].flag, run.status, run.err);
    cr_expect_eq(count_lines(dir, cases[k].line), atoi(cases[k].value), "%s stops at its limit", cases[k].flag);
    char *j = NULL;
    char path[700];
    snprintf(path, sizeof path, "%s/out/journal.jsonl", dir);
    j = t_read_file(path, NULL);
    cr_expect(j && strstr(j, "\"type\":\"budget\""), "the budget is reported");
    free(j);
    cJSON_Delete(pkg);
    t_run_free(&run);
    rm_rf(dir);
  }
  /* depth 1: nothing deeper than the seed's children */
  const char *args[] = {t_fixture_url(0, NULL, "/spa/index.html"), "--max-depth", "1", NULL};
  t_run run;
  char *dir;
  cJSON *pkg = crawl(args, &run, &dir);
  cr_assert(pkg, "crawl --max-depth failed: %s", run.err);
  char path[700];
  snprintf(path, sizeof path, "%s/out/journal.jsonl", dir);
  char *j = t_read_file(path, NULL);
  cr_expect(j && !strstr(j, "\"depth\":2"), "no state at depth 2");
  free(j);
  cJSON_Delete(pkg);
  t_run_free(&run);
  rm_rf(dir);
}

/* ---- what a plan's environment sets in the browser ---- */
/* `crawl --plan` of one seed with environment {environmentId, baseUrl,
 * EXTRA}, one state: the package (asserted), the run, the output's dir. */
static cJSON *crawl_plan_one(const char *pdir, const char *extra, const char *seed, t_run *run, char **dir) {
  const char *args[] = {"--plan", t_plan_write(pdir, extra, seed), "--max-states", "1", NULL};
  cJSON *pkg = crawl(args, run, dir);
  cr_assert(pkg, "crawl --plan failed (exit %d): %s", run->status, run->err);
  return pkg;
}

/* A plan with environment {.., EXTRA} is refused: exit 2, a line naming what. */
static void plan_refused(const char *pdir, const char *extra, const char *what) {
  char plan_path[700], plan[1024];
  snprintf(plan_path, sizeof plan_path, "%s/bad.json", pdir);
  snprintf(plan, sizeof plan, "{\"environment\":{\"environmentId\":\"e\",\"baseUrl\":\"http://x/\",%s}}", extra);
  cr_assert_eq(t_write_file(plan_path, plan), 0);
  t_run bad = t_run_argv((const char *[]){UIAP_BIN, "crawl", "--plan", plan_path, "-o", pdir, NULL}, 10000);
  cr_expect_eq(bad.status, 2, "refused with a usage error: %s", bad.err);
  cr_expect(strstr(bad.err, what), "the line names %s: %s", what, bad.err);
  t_run_free(&bad);
}

/* 1 when a state file under DIR/out/states holds text. */
static int states_show(const char *dir, const char *text) {
  char out[700], found[512];
  snprintf(out, sizeof out, "%s/out/states", dir);
  const char *one[] = {text, NULL};
  return t_tree_grep(out, one, found, sizeof found) > 0;
}

/* The plan's viewport and locale are the browser's (the page reports what
 * it sees), and the package's environment says so. */
Test(crawl, plan_viewport_and_locale_are_applied, .timeout = 120) {
  char *pdir = t_tmpdir(), *dir;
  t_run run;
  cJSON *pkg = crawl_plan_one(pdir, "\"locale\":\"de-DE\",\"viewport\":{\"width\":900,\"height\":700}",
                              "/plan/browser.html", &run, &dir);
  static const char *const want[] = {"width=900 height=700", "language=de-DE", "intl=de-DE", NULL};
  for (int i = 0; want[i]; i++) cr_expect(states_show(dir, want[i]), "the page saw %s", want[i]);
  const cJSON *env = cJSON_GetObjectItem(pkg, "environment");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(env, "locale")), "de-DE");
  cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(env, "viewport"), "width")->valueint, 900);
  /* mapper 11.1: the preparation records who explores and what UIAP it speaks */
  const cJSON *pp = cJSON_GetArrayItem(cJSON_GetObjectItem(env, "principalProfiles"), 0);
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(pp, "id")), "anonymous",
                   "a run with no principals explores as nobody signed in, and says so");
  const cJSON *uiap = cJSON_GetObjectItem(cJSON_GetObjectItem(env, "metadata"), "uiap");
  cr_expect(uiap && cJSON_GetArraySize(cJSON_GetObjectItem(uiap, "profiles")) == 1 &&
                !strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItem(uiap, "profiles"), 0)), "web@0.1"),
            "the profiles the run speaks are recorded");
  plan_refused(pdir, "\"viewport\":{\"width\":5}", "/environment/viewport");
  cJSON_Delete(pkg);
  t_run_free(&run);
  rm_rf(dir);
  rm_rf(pdir);
}

/* featureFlags reach the app as the plan's featureFlagDelivery says (cookie,
 * localStorage, query), each is recorded, and none of it is a sign-in. */
Test(crawl, plan_feature_flags_are_applied, .timeout = 120) {
  char *pdir = t_tmpdir(), *dir;
  t_run run;
  cJSON *pkg = crawl_plan_one(pdir,
                              "\"featureFlags\":{\"newNav\":true,\"search\":\"v2\",\"beta\":3,\"untold\":true},"
                              "\"metadata\":{\"featureFlagDelivery\":{\"newNav\":{\"cookie\":\"ff_nav\"},"
                              "\"search\":{\"localStorage\":\"ff.search\"},\"beta\":{\"query\":\"ff_beta\"}}}",
                              "/plan/flags.html", &run, &dir);
  cr_expect(states_show(dir, "nav=true search=v2 beta=3"), "the page saw all three flags");
  const cJSON *env = cJSON_GetObjectItem(pkg, "environment");
  cr_expect(!cJSON_GetObjectItem(env, "authMode"), "feature flags are no sign-in (authMode %s)",
            cJSON_GetStringValue(cJSON_GetObjectItem(env, "authMode")));
  const cJSON *rec = cJSON_GetObjectItem(cJSON_GetObjectItem(env, "metadata"), "featureFlagsApplied");
  cr_assert(rec, "the package records how each flag was applied");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(rec, "newNav")), "cookie ff_nav");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(rec, "beta")), "query ff_beta");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(rec, "untold")), "recorded only");
  plan_refused(pdir, "\"featureFlags\":{\"a\":true},\"metadata\":{\"featureFlagDelivery\":{\"a\":{\"header\":\"x\"}}}",
               "featureFlagDelivery/a");
  cJSON_Delete(pkg);
  t_run_free(&run);
  rm_rf(dir);
  rm_rf(pdir);
}

Test(crawl, directory_is_served, .timeout = 120) {
  const char *args[] = {UIAP_SRC "/tests/fixtures/spa", "--max-states", "2", NULL};
  t_run run;
  char *dir;
  cJSON *pkg = crawl(args, &run, &dir);
  cr_assert(pkg, "crawl of a directory failed (exit %d): %s", run.status, run.err);
  const cJSON *tg = cJSON_GetObjectItem(pkg, "transitionGraph");
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(tg, "states")), 2);
  cJSON_Delete(pkg);
  t_run_free(&run);
  rm_rf(dir);
}

Test(crawl_errors, bad_input) {
  char *dir = t_tmpdir();
  char plan[600];
  snprintf(plan, sizeof plan, "%s/plan.json", dir);
  t_write_file(plan, "{\n  \"environment\": {\n    \"baseUrl\": \"http://x/\",,\n  }\n}\n");
  const char *argv[] = {UIAP_BIN, "crawl", "--plan", plan, "-o", dir, NULL};
  t_run r = t_run_argv(argv, 10000);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "line 3"), "malformed plan: line and column: %s", r.err);
  t_run_free(&r);
  t_write_file(plan, "{\"environment\": {\"environmentId\": \"e\"}}");
  r = t_run_argv(argv, 10000);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "/environment/baseUrl"), "schema violation names the path: %s", r.err);
  t_run_free(&r);
  const char *argv2[] = {UIAP_BIN, "crawl", "http://127.0.0.1:1/", "--max-states", "0", "-o", dir, NULL};
  r = t_run_argv(argv2, 10000);
  cr_expect_eq(r.status, 2, "out-of-range budget");
  cr_expect(strstr(r.err, "--max-states"), "%s", r.err);
  t_run_free(&r);
  const char *argv3[] = {UIAP_BIN, "crawl", "http://127.0.0.1:1/", "-o", "/proc/uiap-cannot-write", NULL};
  r = t_run_argv(argv3, 10000);
  cr_expect_eq(r.status, 7, "unwritable output: %s", r.err);
  t_run_free(&r);
  rm_rf(dir);
}

/* A sorted, newline-joined list of what identifies the crawl's result. */
static char *signature(const cJSON *pkg) {
  const cJSON *tg = cJSON_GetObjectItem(pkg, "transitionGraph");
  size_t cap = 1 << 16, len = 0;
  char **rows = malloc(4096 * sizeof *rows);
  int n = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(tg, "states")) {
    char b[256];
    snprintf(b, sizeof b, "state %s", cJSON_GetStringValue(cJSON_GetObjectItem(it, "stateId")));
    if (n < 4096) rows[n++] = strdup(b);
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(tg, "edges")) {
    char b[512];
    snprintf(b, sizeof b, "edge %s %s %s %s", cJSON_GetStringValue(cJSON_GetObjectItem(it, "fromStateId")),
             cJSON_GetStringValue(cJSON_GetObjectItem(it, "toStateId")),
             cJSON_GetStringValue(cJSON_GetObjectItem(it, "viaActionId")),
             cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(it, "target"), "name")));
    if (n < 4096) rows[n++] = strdup(b);
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "elementCatalog"), "elements")) {
    char b[512];
    snprintf(b, sizeof b, "element %s", cJSON_GetStringValue(cJSON_GetObjectItem(it, "semanticKey")));
    if (n < 4096) rows[n++] = strdup(b);
  }
  for (int i = 1; i < n; i++) /* insertion sort: small */
    for (int k = i; k > 0 && strcmp(rows[k - 1], rows[k]) > 0; k--) {
      char *t = rows[k]; rows[k] = rows[k - 1]; rows[k - 1] = t;
    }
  char *out = malloc(cap);
  out[0] = 0;
  for (int i = 0; i < n; i++) {
    size_t l = strlen(rows[i]);
    if (len + l + 2 > cap) out = realloc(out, cap = (len + l + 2) * 2);
    memcpy(out + len, rows[i], l);
    len += l;
    out[len++] = '\n';
    out[len] = 0;
    free(rows[i]);
  }
  free(rows);
  return out;
}

/* The rows of two sorted signatures that only one has ("-row" for the
 * first, "+row" for the second), newline-joined; "" when they are equal. */
static char *sig_diff(const char *a, const char *b) {
  size_t cap = strlen(a) + strlen(b) + 64, len = 0;
  char *out = malloc(cap);
  out[0] = 0;
  while (*a || *b) {
    size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
    int c = !*a ? 1 : !*b ? -1 : strncmp(a, b, la < lb ? la + 1 : lb + 1);
    if (c == 0) {
      a += la + (a[la] != 0), b += lb + (b[lb] != 0);
      continue;
    }
    const char *row = c < 0 ? a : b;
    size_t l = c < 0 ? la : lb;
    len += (size_t)snprintf(out + len, cap - len, "%c%.*s\n", c < 0 ? '-' : '+', (int)l, row);
    if (c < 0) a += la + (a[la] != 0);
    else b += lb + (b[lb] != 0);
  }
  return out;
}

/* The fixture SPA, crawled three times: the first crawl (one process)
 * finds exactly the model and triggers nothing dangerous; the second gives
 * the same package, and so does the third with two workers sharing the
 * frontier (the default on two cores): the app's default route shows at
 * "/spa/" and at "/spa/#/r0", and whichever URL a worker reached a state
 * by, it is one state with one id. */
Test(crawl, known_state_space_safety_and_determinism, .timeout = 400) {
  const char *args[] = {t_fixture_url(0, NULL, "/spa/index.html"), "--max-runtime-ms", "150000", NULL};
  const char *args2[] = {args[0], args[1], args[2], "--workers", "2", NULL};
  t_run r1, r2;
  char *d1, *d2;
  long danger0 = hits("/danger/"), logout0 = hits("/logout.html");
  cJSON *p1 = crawl(args, &r1, &d1);
  cr_assert(p1, "crawl failed (exit %d): %s", r1.status, r1.err);
  cr_expect_eq(r1.status, 0, "%s", r1.err);
  check_model_and_safety(p1, danger0, logout0);
  char *s1 = signature(p1);
  for (int k = 0; k < 2; k++) {
    cJSON *p2 = crawl(k ? args2 : args, &r2, &d2);
    cr_assert(p2, "crawl %d failed (exit %d): %s", k + 2, r2.status, r2.err);
    cr_expect_eq(r2.status, 0, "%s", r2.err);
    char *s2 = signature(p2), *d = sig_diff(s1, s2);
    cr_expect_str_eq(d, "", "%s gives the same states, edges and elements as the first crawl; only in the "
                            "first (-) or this one (+):\n%s", k ? "--workers 2" : "the second crawl", d);
    free(d);
    free(s2);
    cJSON_Delete(p2);
    t_run_free(&r2);
    rm_rf(d2);
  }
  cr_expect_eq(hits("/danger/") - danger0, 0, "no dangerous endpoint was requested by any crawl");
  cr_expect_eq(hits("/logout.html") - logout0, 0, "no crawl logged out");
  free(s1);
  cJSON_Delete(p1);
  t_run_free(&r1);
  rm_rf(d1);
}

Test(crawl, progress_outputs, .timeout = 180) {
  /* --progress jsonl: uiap.discovery.progress events on stdout, each a valid message */
  char *dir = t_tmpdir();
  char out[600], jl[600];
  snprintf(out, sizeof out, "%s/out", dir);
  snprintf(jl, sizeof jl, "%s/progress.jsonl", dir);
  const char *argv[] = {UIAP_BIN, "crawl", t_fixture_url(0, NULL, "/spa/index.html"), "--max-states", "3",
                        "--progress", "jsonl", "-o", out, NULL};
  t_run r = t_run_argv(argv, 120000);
  cr_assert_eq(r.status, 0, "%s", r.err);
  cr_expect(strstr(r.out, "\"type\":\"uiap.discovery.progress\""), "progress events on stdout: %.300s", r.out);
  cr_expect(strstr(r.out, "\"status\":\"exploring\""), "the exploring status is reported");
  t_write_file(jl, r.out);
  char msg[4096];
  cr_expect_eq(t_validate("UiapMessage", jl, msg, sizeof msg), 0, "%s", msg);
  t_run_free(&r);
  /* without a terminal and without --progress: nothing but the summary on stderr */
  char out2[600];
  snprintf(out2, sizeof out2, "%s/out2", dir);
  const char *argv2[] = {UIAP_BIN, "crawl", t_fixture_url(0, NULL, "/spa/index.html"), "--max-states", "2", "-o", out2, NULL};
  r = t_run_argv(argv2, 120000);
  cr_assert_eq(r.status, 0, "%s", r.err);
  cr_expect_str_eq(r.out, "", "stdout stays empty off a terminal");
  cr_expect(!strchr(r.err, '\r'), "no live progress line off a terminal");
  t_run_free(&r);
  /* on a terminal: a live line ("states N ...") on stderr, rewritten with
   * \r, from one process and from the parent of two workers (the default
   * on two cores), which reads the run's counts from the shared frontier */
  for (int w = 1; w <= 2; w++) {
    char cmd[2000];
    snprintf(cmd, sizeof cmd,
             "script -qec \"'%s' crawl '%s' --max-states 3 --workers %d -o '%s/out3_%d' 2>&1\" /dev/null",
             UIAP_BIN, t_fixture_url(0, NULL, "/spa/index.html"), w, dir, w);
    const char *argv3[] = {"/bin/sh", "-c", cmd, NULL};
    r = t_run_argv(argv3, 120000);
    cr_expect_eq(r.status, 0, "%s", r.out);
    cr_expect(strstr(r.out, "\r") && strstr(r.out, "states "), "--workers %d: a live progress line on a terminal: %.200s",
              w, r.out);
    cr_expect(strstr(r.out, "states 1 ") || strstr(r.out, "states 2 ") || strstr(r.out, "states 3 "),
              "--workers %d: the line counts the states found: %.400s", w, r.out);
    t_run_free(&r);
  }
  rm_rf(dir);
}

static int notes_mention(const cJSON *pkg, const char *needle) {
  const cJSON *it;
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "run"), "notes")) {
    const char *s = cJSON_GetStringValue(it);
    if (s && strstr(s, needle)) return 1;
  }
  return 0;
}

/* Plan seeds of every kind: a url seed loads; a menu seed (a tab by its
 * name) and an action seed (data-uiap-action) are driven first, before any
 * other exploring (the budget of two transitions is spent on exactly them);
 * unresolvable ones are noted and queued for review, not dropped. */
Test(crawl, plan_seeds_menu_and_action_driven_first, .timeout = 120) {
  char *pdir = t_tmpdir(), plan_path[700], plan[2048];
  snprintf(plan_path, sizeof plan_path, "%s/plan.json", pdir);
  snprintf(plan, sizeof plan,
           "{\"type\":\"uiap.discovery.plan\",\"payload\":{\"environment\":{\"environmentId\":\"seeds\",\"baseUrl\":\"%s\"},"
           "\"seeds\":[{\"kind\":\"route\",\"routeId\":\"seeds/index.html\"},{\"kind\":\"menu\",\"label\":\"Second\"},"
           "{\"kind\":\"action\",\"actionId\":\"filters.open\"},{\"kind\":\"menu\",\"label\":\"No such tab\"},"
           "{\"kind\":\"action\",\"actionId\":\"no.such.action\"}]}}",
           t_fixture_url(0, NULL, "/"));
  cr_assert_eq(t_write_file(plan_path, plan), 0);
  const char *args[] = {"--plan", plan_path, "--max-transitions", "2", NULL};
  t_run run;
  char *dir;
  cJSON *pkg = crawl(args, &run, &dir);
  cr_assert(pkg, "crawl failed (exit %d): %s", run.status, run.err);
  const cJSON *edges = cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "transitionGraph"), "edges");
  cr_assert_eq(cJSON_GetArraySize(edges), 2, "exactly the two seed-driven transitions");
  static const char *const want[2][2] = {{"tab", "Second"}, {"button", "Filters"}};
  for (int i = 0; i < 2; i++) {
    const cJSON *t = cJSON_GetObjectItem(cJSON_GetArrayItem(edges, i), "target");
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(t, "role")), want[i][0]);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(t, "name")), want[i][1]);
  }
  cr_expect(notes_mention(pkg, "seed 1 (menu) resolved to tab \"Second\""));
  cr_expect(notes_mention(pkg, "seed 2 (action) resolved to button \"Filters\""));
  cr_expect(notes_mention(pkg, "seed 3 (menu) unresolved"));
  cr_expect(notes_mention(pkg, "seed 4 (action) unresolved"));
  cr_expect(t_review_mentions(pkg, "coverage_gap", "Seed 3 (menu) could not be resolved"));
  cr_expect(t_review_mentions(pkg, "coverage_gap", "Seed 4 (action) could not be resolved"));
  cJSON_Delete(pkg);
  t_run_free(&run);
  rm_rf(dir);
  remove(plan_path);
  rmdir(pdir);
  free(pdir);
}


/* statuses (strings, in order) follow the mapper's lifecycle (10.1, 10.2):
 * each later than the one before, from planning to reviewing. */
static void expect_lifecycle(const char *const *statuses, int n, const char *where) {
  static const char *const order[] = {"planning", "preparing", "seeding", "exploring", "extracting", "synthesizing", "reviewing"};
  int last = -1;
  for (int i = 0; i < n; i++) {
    int k = 0;
    while (k < 7 && strcmp(order[k], statuses[i])) k++;
    if (k == 7) continue; /* completed / failed / cancelled: the end */
    cr_expect(k > last, "%s: %s after %s", where, statuses[i], last >= 0 ? order[last] : "nothing");
    last = k;
  }
  cr_expect(n > 0 && !strcmp(statuses[0], "planning"), "%s: the first status is planning (%s)", where, n ? statuses[0] : "none");
  cr_expect_eq(last, 6, "%s: reviewing is the last step", where);
}

/* Issue #16: the lifecycle in the spec's order in the journal and in the
 * progress events; a plan with workflow and documentation seeds gives each
 * seed a state (its seed line names one), a workflow candidate, or a review
 * item with the reason; --reviewed makes exactly the reviewed action
 * verified, nothing else is. */
Test(crawl, lifecycle_seed_kinds_and_reviewed, .timeout = 180) {
  char *pdir = t_tmpdir(), plan_path[700], dec_path[700], plan[2048];
  snprintf(plan_path, sizeof plan_path, "%s/plan.json", pdir);
  snprintf(dec_path, sizeof dec_path, "%s/decisions.json", pdir);
  snprintf(plan, sizeof plan,
           "{\"environment\":{\"environmentId\":\"seeds\",\"baseUrl\":\"%s\"},\"seeds\":["
           "{\"kind\":\"route\",\"routeId\":\"seeds/index.html\"},"
           "{\"kind\":\"workflow\",\"workflowId\":\"filters.open\"},"
           "{\"kind\":\"workflow\",\"workflowId\":\"checkout\"},"
           "{\"kind\":\"documentation\",\"ref\":\"/seeds/help.html\"},"
           "{\"kind\":\"documentation\",\"ref\":\"https://docs.example.invalid/guide\"},"
           "{\"kind\":\"documentation\",\"ref\":\"guide.pdf\"}]}",
           t_fixture_url(0, NULL, "/"));
  cr_assert_eq(t_write_file(plan_path, plan), 0);
  cr_assert_eq(t_write_file(dec_path, "{\"reviewDecisions\":[{\"catalog\":\"actions\",\"key\":\"filters.open\",\"decision\":\"verified\"}]}"), 0);
  const char *args[] = {"--plan", plan_path, "--max-transitions", "4", "--progress", "jsonl", "--reviewed", dec_path, NULL};
  t_run run;
  char *dir, out[700];
  cJSON *pkg = crawl(args, &run, &dir);
  cr_assert(pkg, "crawl failed (exit %d): %s", run.status, run.err);
  snprintf(out, sizeof out, "%s/out", dir);
  /* the journal's status lines */
  cJSON *sts = t_journal_records(out, "status"), *x;
  const char *js[32];
  int nj = 0;
  cJSON_ArrayForEach(x, sts) if (nj < 32) js[nj++] = cJSON_GetStringValue(cJSON_GetObjectItem(x, "status"));
  expect_lifecycle(js, nj, "journal");
  /* the progress events on stdout */
  const char *ps[512];
  int np = 0;
  char *save = NULL;
  cJSON *events = cJSON_CreateArray();
  for (char *line = strtok_r(run.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    cJSON *m = cJSON_Parse(line);
    const char *st = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(m, "payload"), "status"));
    if (st && np < 512 && (!np || strcmp(ps[np - 1], st))) ps[np++] = st;
    cJSON_AddItemToArray(events, m ? m : cJSON_CreateNull());
  }
  expect_lifecycle(ps, np, "progress");
  /* each seed: a state, a workflow candidate, or a review item with the reason */
  cJSON *seeds = t_journal_records(out, "seed");
  for (int i = 0; i < 6; i++) {
    int state = 0;
    cJSON_ArrayForEach(x, seeds)
      state |= cJSON_GetObjectItem(x, "index")->valueint == i && cJSON_IsTrue(cJSON_GetObjectItem(x, "resolved")) &&
               cJSON_GetStringValue(cJSON_GetObjectItem(x, "stateId"));
    int cand = 0;
    const cJSON *w, *k;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "workflowCandidates"), "workflows"))
      cJSON_ArrayForEach(k, cJSON_GetObjectItem(cJSON_GetObjectItem(w, "metadata"), "seeds")) cand |= k->valueint == i;
    char needle[32];
    snprintf(needle, sizeof needle, "Seed %d (", i);
    int review = t_review_mentions(pkg, "coverage_gap", needle);
    cr_expect(state + cand + review == 1, "seed %d: state %d, candidate %d, review %d (exactly one)", i, state, cand, review);
  }
  cr_expect(t_review_mentions(pkg, "coverage_gap", "Seed 2 (workflow checkout) could not be resolved: no workflow candidate"));
  cr_expect(t_review_mentions(pkg, "coverage_gap", "Seed 4 (documentation) could not be resolved: https://docs.example.invalid/guide is outside the run's origins"));
  cr_expect(t_review_mentions(pkg, "coverage_gap", "Seed 5 (documentation) could not be resolved: the ref guide.pdf names no page"));
  cr_expect(!t_review_mentions(pkg, "coverage_gap", "no matching control"), "a workflow seed is no control seed");
  const cJSON *cov = cJSON_GetObjectItem(pkg, "coverage");
  cr_expect_eq(cJSON_GetObjectItem(cov, "seedsTotal")->valueint, 6);
  cr_expect_eq(cJSON_GetObjectItem(cov, "seedsVisited")->valueint, 3, "the route, the workflow and the help page");
  /* --reviewed: exactly the reviewed action is verified */
  int verified = 0;
  static const char *const cats[][2] = {{"elementCatalog", "elements"}, {"actionCatalog", "actions"}, {"workflowCandidates", "workflows"}};
  for (int c = 0; c < 3; c++)
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, cats[c][0]), cats[c][1])) {
      const char *rs = cJSON_GetStringValue(cJSON_GetObjectItem(x, "reviewState"));
      if (rs && !strcmp(rs, "verified")) {
        verified++;
        cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(x, "id")), "filters.open");
      }
    }
  cr_expect_eq(verified, 1, "only the reviewed action is verified");
  cJSON_Delete(events);
  cJSON_Delete(seeds);
  cJSON_Delete(sts);
  cJSON_Delete(pkg);
  t_run_free(&run);
  rm_rf(dir);
  remove(plan_path);
  remove(dec_path);
  rmdir(pdir);
  free(pdir);
}

/* Bridges reach the crawl too: --allow-bridges publishes the two frames that
 * declare <meta name="uiap-bridge"> in each recorded state, and nothing from
 * the two that do not (canaries ZQX...) is written anywhere in the run's
 * output: package, state files, journal. */
Test(crawl, bridges_declared_by_frames_and_nothing_else, .timeout = 120) {
  char path[256];
  snprintf(path, sizeof path, "/fidelity/bridge.html?p1=%d", t_fixture_port(1));
  const char *args[] = {t_fixture_url(0, NULL, path), "--allow-bridges", "--max-transitions", "1", NULL};
  t_run run;
  char *dir;
  cJSON *pkg = crawl(args, &run, &dir);
  cr_assert(pkg, "crawl failed (exit %d): %s", run.status, run.err);
  const cJSON *st = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "transitionGraph"), "states"), 0);
  const char *ref = cJSON_GetStringValue(cJSON_GetObjectItem(st, "pageGraphRef"));
  cr_assert(ref, "the seed state has a page graph");
  char gpath[900];
  snprintf(gpath, sizeof gpath, "%s/out/%s", dir, ref);
  char *text = t_read_file(gpath, NULL);
  cJSON *g = text ? cJSON_Parse(text) : NULL;
  free(text);
  cr_assert(g, "state file %s", gpath);
  int bridged = 0, opaque = 0;
  const cJSON *d;
  cJSON_ArrayForEach(d, cJSON_GetObjectItem(g, "documents")) {
    const char *access = cJSON_GetStringValue(cJSON_GetObjectItem(d, "access"));
    bridged += access && !strcmp(access, "bridged");
    opaque += access && !strcmp(access, "opaque");
  }
  cr_expect_eq(bridged, 2, "the two frames that declare a bridge are bridged");
  cr_expect_eq(opaque, 2, "the two that do not stay opaque");
  char cmd[1000];
  snprintf(cmd, sizeof cmd, "grep -rq ZQX '%s/out'", dir);
  cr_expect_neq(system(cmd), 0, "a canary from an opaque frame was written to the output");
  cJSON_Delete(g);
  cJSON_Delete(pkg);
  t_run_free(&run);
  rm_rf(dir);
}

/* <select>: ui.choose with real key presses. The Status filter shows another
 * list per option (three states, each reached from the other two: six
 * transitions, each with the option in args); its disabled option is never
 * chosen. The Bulk action select acts on change: "Delete selected" is denied
 * by name (no request reaches /danger/) and queued for review with its
 * option, and so is "Group by day", which the arrow keys reach only by passing
 * over it; "Sort by date" is chosen, although the page resets the select. */
Test(crawl, select_options_are_chosen_safely, .timeout = 150) {
  long danger0 = hits("/danger/");
  const char *args[] = {t_fixture_url(0, NULL, "/select/index.html"), "--max-runtime-ms", "90000", NULL};
  t_run run;
  char *dir;
  cJSON *pkg = crawl(args, &run, &dir);
  cr_assert(pkg, "crawl failed (exit %d): %s", run.status, run.err);
  const cJSON *tg = cJSON_GetObjectItem(pkg, "transitionGraph");
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(tg, "states")), 3, "one state per Status option");
  int moves = 0, chose[3] = {0, 0, 0};
  static const char *const labels[] = {"All", "Open", "Closed"};
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(tg, "edges")) {
    const char *from = cJSON_GetStringValue(cJSON_GetObjectItem(e, "fromStateId"));
    const char *to = cJSON_GetStringValue(cJSON_GetObjectItem(e, "toStateId"));
    if (!strcmp(from, to)) continue;
    moves++;
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(e, "viaActionId")), "ui.choose");
    const char *opt = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "args"), "option"));
    cr_assert(opt, "a ui.choose transition names its option");
    for (int k = 0; k < 3; k++) chose[k] += !strcmp(opt, labels[k]);
    cr_expect(strcmp(opt, "Archived"), "a disabled option was chosen");
  }
  cr_expect_eq(moves, 6, "each Status state reaches the other two");
  for (int k = 0; k < 3; k++) cr_expect_eq(chose[k], 2, "%s chosen from the two other states", labels[k]);
  cr_expect_eq(hits("/danger/") - danger0, 0, "a dangerous option was chosen");
  cr_expect(t_review_mentions(pkg, "unsafe_action_candidate", "(option \"Delete selected\")"));
  cr_expect(!t_review_mentions(pkg, "unsafe_action_candidate", "(option \"Sort by date\")"));
  /* the keys would pass over "Delete selected" on the way to "Group by day" */
  cr_expect(t_review_mentions(pkg, "unsafe_action_candidate", "(option \"Group by day\")"));
  /* Sort by date was chosen: a transition, not a failure (the page resets
   * the select on change, which must not read as a failed choice) */
  char jpath[700];
  snprintf(jpath, sizeof jpath, "%s/out/journal.jsonl", dir);
  char *journal = t_read_file(jpath, NULL);
  int sorted = 0, failed = 0;
  for (char *line = journal, *nl; line && *line; line = nl ? nl + 1 : NULL) {
    nl = strchr(line, '\n');
    if (nl) *nl = 0;
    if (!strstr(line, "\"option\":\"Sort by date\"")) continue;
    sorted += strstr(line, "\"type\":\"transition\"") != NULL;
    failed += strstr(line, "\"type\":\"failure\"") != NULL;
  }
  free(journal);
  cr_expect_gt(sorted, 0, "Sort by date was chosen");
  cr_expect_eq(failed, 0, "choosing Sort by date failed");
  cJSON_Delete(pkg);
  t_run_free(&run);
  rm_rf(dir);
}

/* A loading screen is not a state: the action brings up a progress bar and
 * the page stays silent for 450 ms (longer than the settle quiet time) before
 * the report appears. The crawl records two states, the start and the report,
 * and no recorded state shows the progress bar. */
Test(crawl, loading_screen_is_not_a_state, .timeout = 120) {
  const char *args[] = {t_fixture_url(0, NULL, "/loading/index.html"), "--max-runtime-ms", "60000", NULL};
  t_run run;
  char *dir;
  cJSON *pkg = crawl(args, &run, &dir);
  cr_assert(pkg, "crawl failed (exit %d): %s", run.status, run.err);
  const cJSON *states = cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "transitionGraph"), "states"), *st;
  cr_expect_eq(cJSON_GetArraySize(states), 2, "the start and the report");
  cJSON_ArrayForEach(st, states) {
    char path[900];
    snprintf(path, sizeof path, "%s/out/%s", dir, cJSON_GetStringValue(cJSON_GetObjectItem(st, "pageGraphRef")));
    char *text = t_read_file(path, NULL);
    cr_expect(text && !strstr(text, "\"progressbar\""), "state %s shows the loading spinner", path);
    free(text);
  }
  cJSON_Delete(pkg);
  t_run_free(&run);
  rm_rf(dir);
}

/* Settling on evidence beside a ticker (a timer of under a second always
 * pending): a timer the click set up is waited for, and the state after
 * it shows what the timer did. */
Test(crawl, a_click_waits_for_the_timer_it_set, .timeout = 150) {
  const char *args[] = {t_fixture_url(0, NULL, "/settle/index.html"), "--max-runtime-ms", "90000", "--workers", "1", NULL};
  t_run run;
  char *dir;
  cJSON *pkg = crawl(args, &run, &dir);
  cr_assert(pkg, "crawl failed (exit %d): %s", run.status, run.err);
  /* the line appears in the transition of the click that set its timer, not
   * in whatever was clicked next (the Later click read as a self-loop) */
  int by_later = 0, by_other = 0;
  char other[200] = "";
  const cJSON *e, *sig;
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "transitionGraph"), "edges")) {
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "target"), "name"));
    int revealed = 0;
    cJSON_ArrayForEach(sig, cJSON_GetObjectItem(e, "observedSignals")) {
      const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(sig, "kind"));
      const char *what = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(sig, "target"), "name"));
      revealed |= kind && what && !strcmp(kind, "element.appeared") && !strcmp(what, "Revealed later");
    }
    if (!revealed) continue;
    if (name && !strcmp(name, "Later")) by_later++;
    else by_other++, snprintf(other, sizeof other, "%s", name ? name : "?");
  }
  cr_expect_gt(by_later, 0, "a click on Later shows the line its timer reveals");
  cr_expect_eq(by_other, 0, "the line appeared after another click (%s): Later was captured too early", other);
  cJSON_Delete(pkg);
  t_run_free(&run);
  rm_rf(dir);
}

/* The state of pkg with id `id`, or NULL. */
static const cJSON *state_with_id(const cJSON *pkg, const char *id) {
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "transitionGraph"), "states"))
    if (id && !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(s, "stateId")), id)) return s;
  return NULL;
}

/* 1: state st lists a scope whose id contains part. */
static int state_has_scope(const cJSON *st, const char *part) {
  const cJSON *sc;
  cJSON_ArrayForEach(sc, cJSON_GetObjectItem(st, "scopeIds"))
    if (cJSON_IsString(sc) && strstr(sc->valuestring, part)) return 1;
  return 0;
}

/* Target resolution by scope (web 3.2, mapper 11.5): two cards each hold an
 * "Open details" button; opening one moves its card to the end, so after
 * the first the ordinal names the other card's button. The crawler finds
 * the button again by role, name and scope: each card's button leads to
 * its own card's dialog, and both dialogs are found. */
Test(crawl, target_is_found_again_by_its_scope, .timeout = 150) {
  const char *args[] = {t_fixture_url(0, NULL, "/scope/index.html"), "--max-runtime-ms", "90000", NULL};
  t_run run;
  char *dir;
  cJSON *pkg = crawl(args, &run, &dir);
  cr_assert(pkg, "crawl failed (exit %d): %s", run.status, run.err);
  static const char *const cards[][2] = {{"alpha card", "details of alpha"}, {"beta card", "details of beta"}};
  int opened[2] = {0, 0};
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "transitionGraph"), "edges")) {
    const cJSON *t = cJSON_GetObjectItem(e, "target");
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(t, "name"));
    const char *scope = cJSON_GetStringValue(cJSON_GetObjectItem(t, "scopeId"));
    if (!name || strcmp(name, "Open details") || !scope) continue;
    const cJSON *to = state_with_id(pkg, cJSON_GetStringValue(cJSON_GetObjectItem(e, "toStateId")));
    for (int k = 0; k < 2; k++) {
      if (!strstr(scope, cards[k][0])) continue;
      opened[k]++;
      cr_expect(to && state_has_scope(to, cards[k][1]), "Open details in the %s opened its own dialog (%s)",
                cards[k][0], cards[k][1]);
      cr_expect(to && !state_has_scope(to, cards[1 - k][1]), "Open details in the %s opened the other card's dialog",
                cards[k][0]);
    }
  }
  cr_expect(opened[0] > 0 && opened[1] > 0, "both cards' buttons were tried (%d, %d)", opened[0], opened[1]);
  int beta = 0;
  const cJSON *sc;
  cJSON_ArrayForEach(sc, cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "scopeCatalog"), "scopes"))
    beta += strstr(cJSON_GetStringValue(cJSON_GetObjectItem(sc, "scopeId")), "details of beta") != NULL;
  cr_expect_eq(beta, 1, "the Beta card's dialog was reached");
  cr_expect(!t_review_mentions(pkg, "ambiguous_target", "\"Open details\""),
            "each card's button is unique in its card: told apart by scope, not by position");
  cJSON_Delete(pkg);
  t_run_free(&run);
  rm_rf(dir);
}

/* 1: edge e carries a signal of kind whose target has role and name (any
 * target when role is NULL). */
static int edge_signal(const cJSON *e, const char *kind, const char *role, const char *name) {
  const cJSON *sg;
  cJSON_ArrayForEach(sg, cJSON_GetObjectItem(e, "observedSignals")) {
    const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(sg, "kind"));
    const cJSON *t = cJSON_GetObjectItem(sg, "target");
    if (!k || strcmp(k, kind)) continue;
    if (!role) return 1;
    const char *r = cJSON_GetStringValue(cJSON_GetObjectItem(t, "role")), *n = cJSON_GetStringValue(cJSON_GetObjectItem(t, "name"));
    if (r && n && !strcmp(r, role) && !strcmp(n, name)) return 1;
  }
  return 0;
}

/* Success signals (mapper 15.5) beyond route, dialog and validation: on a
 * page where nothing else shows it, "Load more" changes how many rows the
 * results table holds (collection.count_changed, though the state stays
 * the same), "Show filters" brings up a checkbox and goes away
 * (element.appeared / element.disappeared), "Show less" removes the tip. */
Test(crawl, collection_counts_and_elements_are_signals, .timeout = 150) {
  const char *args[] = {t_fixture_url(0, NULL, "/signals/index.html"), "--max-runtime-ms", "90000", NULL};
  t_run run;
  char *dir;
  cJSON *pkg = crawl(args, &run, &dir);
  cr_assert(pkg, "crawl failed (exit %d): %s", run.status, run.err);
  int shown = 0, hidden = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "transitionGraph"), "edges")) {
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "target"), "name"));
    if (name && !strcmp(name, "Show filters")) {
      shown++;
      cr_expect(edge_signal(e, "element.appeared", "checkbox", "Only mine"), "Show filters: the checkbox appeared");
      cr_expect(edge_signal(e, "element.disappeared", "button", "Show filters"), "Show filters: the button went");
    }
    if (name && !strcmp(name, "Show less")) {
      hidden++;
      cr_expect(edge_signal(e, "element.disappeared", "link", "Read the help"), "Show less: the tip's link went");
      cr_expect(!edge_signal(e, "element.appeared", NULL, NULL), "nothing appeared");
    }
  }
  cr_expect(shown > 0 && hidden > 0, "both disclosures were explored (%d, %d)", shown, hidden);
  /* Load more stays in its state (7 and 10 rows share a fingerprint): the journal's transition */
  char jpath[700];
  snprintf(jpath, sizeof jpath, "%s/out/journal.jsonl", dir);
  char *journal = t_read_file(jpath, NULL);
  int counted = 0;
  for (char *line = journal, *nl; line && *line; line = nl ? nl + 1 : NULL) {
    nl = strchr(line, '\n');
    if (nl) *nl = 0;
    if (strstr(line, "\"type\":\"transition\"") && strstr(line, "\"name\":\"Load more\""))
      counted += strstr(line, "\"kind\":\"collection.count_changed\"") != NULL;
  }
  free(journal);
  cr_expect_gt(counted, 0, "Load more carries collection.count_changed");
  const cJSON *a;
  int in_catalog = 0;
  cJSON_ArrayForEach(a, cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "actionCatalog"), "actions")) {
    const cJSON *sg;
    cJSON_ArrayForEach(sg, cJSON_GetObjectItem(a, "successSignals")) {
      const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(sg, "kind"));
      in_catalog += k && !strcmp(k, "collection.count_changed");
    }
  }
  cr_expect_gt(in_catalog, 0, "the action catalog lists collection.count_changed as a success signal");
  cJSON_Delete(pkg);
  t_run_free(&run);
  rm_rf(dir);
}

/* A state that reloading and replaying cannot bring back (the app shows it
 * once per tab): the crawler tries twice (a first failure may be a slow
 * load on a busy machine), then gives it up with one review item, and the
 * run ends normally. */
Test(crawl, a_state_that_cannot_be_restored_is_tried_twice_then_reviewed_once, .timeout = 150) {
  const char *args[] = {t_fixture_url(0, NULL, "/restore/index.html"), "--max-runtime-ms", "60000", "--workers", "1",
                        "--verbose", "--verbose", "--verbose", NULL};
  t_run run;
  char *dir;
  cJSON *pkg = crawl(args, &run, &dir);
  cr_assert(pkg, "crawl failed (exit %d): %s", run.status, run.err);
  char out[700], tried[200];
  snprintf(out, sizeof out, "%s/out", dir);
  cJSON *reviews = t_journal_records(out, "review"), *rv;
  int unrestorable = 0;
  const char *sid = NULL;
  cJSON_ArrayForEach(rv, reviews) {
    const char *d = cJSON_GetStringValue(cJSON_GetObjectItem(rv, "description"));
    if (d && strstr(d, "Could not restore state")) unrestorable++, sid = cJSON_GetStringValue(cJSON_GetObjectItem(rv, "stateId"));
  }
  cr_assert_eq(unrestorable, 1, "one review item for the state given up");
  int tries = 0; /* --verbose x3 logs each restore: "restore: state ID from ..." */
  snprintf(tried, sizeof tried, "restore: state %s from", sid ? sid : "?");
  for (const char *p = run.err; (p = strstr(p, tried)) != NULL; p++) tries++;
  cr_expect_eq(tries, 2, "tried twice before giving up: %s", run.err);
  cr_expect_eq(run.status, 0, "the run ends normally");
  cJSON_Delete(reviews);
  cJSON_Delete(pkg);
  t_run_free(&run);
  rm_rf(dir);
}

/* Issue 25 item 12: `crawl URL1 ... URL149` kept the first 64 URLs and said
 * nothing about the rest. Every URL typed is a seed of the run: the journal
 * and the package list all 149, in order, and those the budget left
 * unvisited are coverage_gap review items, the 149th among them. */
Test(crawl, every_seed_url_typed_is_taken, .timeout = 150) {
  enum { N = 149 };
  char *dir = t_tmpdir(), out[600], *urls[N];
  snprintf(out, sizeof out, "%s/out", dir);
  const char *argv[N + 16];
  int n = 0;
  argv[n++] = UIAP_BIN;
  argv[n++] = "crawl";
  for (int i = 0; i < N; i++) {
    char path[64];
    /* a word, not a number: "?n=12" is one state for every number (its
     * template "?n=:n", docs/fingerprint.md), "?n=x12" a route of its own */
    snprintf(path, sizeof path, "/seeds/index.html?n=x%d", i + 1);
    argv[n++] = urls[i] = strdup(t_fixture_url(0, NULL, path));
  }
  static const char *const rest[] = {"--max-states", "2", "--max-depth", "1", "--workers", "1", "-o", NULL};
  for (int i = 0; rest[i]; i++) argv[n++] = rest[i];
  argv[n++] = out;
  argv[n] = NULL;
  t_run r = t_run_argv(argv, 120000);
  cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  char path[700];
  snprintf(path, sizeof path, "%s/package.json", out);
  cJSON *p = t_package_read(path);
  cr_assert(p, "a package was written");
  const cJSON *seeds = cJSON_GetObjectItem(cJSON_GetObjectItem(p, "run"), "seeds");
  cr_expect_eq(cJSON_GetArraySize(seeds), N, "the package lists every seed (%d)", cJSON_GetArraySize(seeds));
  const char *last = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(seeds, N - 1), "url"));
  cr_expect(last && strstr(last, "?n=x149"), "the last seed is the 149th URL: %s", last ? last : "(none)");
  cJSON *runs = t_journal_records(out, "run");
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(runs, 0), "seeds")), N,
               "the journal's run record lists every seed");
  cJSON_Delete(runs);
  cr_expect(t_review_mentions(p, "coverage_gap", "?n=x149"), "the 149th seed, not visited, is a coverage_gap item");
  cJSON_Delete(p);
  t_run_free(&r);
  for (int i = 0; i < N; i++) free(urls[i]);
  rm_rf(dir);
}

/* Issue 25 item 12: a 33rd --allow-origin (or --bridge-origin,
 * --allow-beacon) was dropped without a word. It is refused: exit 2 and a
 * line that names the option and its limit. */
Test(crawl_errors, repeated_options_past_their_limit_are_refused) {
  static const char *const opts[] = {"--allow-origin", "--bridge-origin", "--allow-beacon"};
  char *dir = t_tmpdir(), vals[33][64];
  for (size_t k = 0; k < sizeof opts / sizeof *opts; k++) {
    const char *argv[80];
    int n = 0;
    argv[n++] = UIAP_BIN;
    argv[n++] = "crawl";
    argv[n++] = "http://127.0.0.1:1/";
    for (int i = 0; i < 33; i++) {
      snprintf(vals[i], sizeof vals[i], k == 2 ? "/beacon/%d" : "http://h%d.example", i);
      argv[n++] = opts[k];
      argv[n++] = vals[i];
    }
    argv[n++] = "-o";
    argv[n++] = dir;
    argv[n] = NULL;
    t_run r = t_run_argv(argv, 10000);
    cr_expect_eq(r.status, 2, "%s 33 times: exit 2 (%d): %s", opts[k], r.status, r.err);
    cr_expect(strstr(r.err, opts[k]) && strstr(r.err, "at most 32"), "the line names %s and its limit: %s", opts[k],
              r.err);
    t_run_free(&r);
  }
  rm_rf(dir);
}

/* Issue 25 item 11: on a page whose "Next page" goes to a new hash route
 * each time (tests/fixtures/paging: #/page/2, #/page/3, ...; only digits
 * and row text differ, which fingerprints leave out), the alias rule for
 * the seed's default route took #/page/2 for the seed: 1 state, the click
 * a self-loop of the seed. A route that takes parameters is never the
 * seed's: Next page from the seed leads to another state, on its template. */
Test(crawl, a_new_route_from_the_seed_is_another_state, .timeout = 150) {
  const char *args[] = {t_fixture_url(0, NULL, "/paging/index.html"), "--max-states", "10", "--workers", "1", NULL};
  t_run run;
  char *dir;
  cJSON *pkg = crawl(args, &run, &dir);
  cr_assert(pkg, "crawl failed (exit %d): %s", run.status, run.err);
  const cJSON *tg = cJSON_GetObjectItem(pkg, "transitionGraph"), *st, *e;
  cr_expect_gt(cJSON_GetArraySize(cJSON_GetObjectItem(tg, "states")), 1, "more than one state");
  const char *seed = NULL;
  int page2 = 0;
  cJSON_ArrayForEach(st, cJSON_GetObjectItem(tg, "states")) {
    const cJSON *m = cJSON_GetObjectItem(st, "metadata");
    const char *url = cJSON_GetStringValue(cJSON_GetObjectItem(m, "url"));
    if (cJSON_GetObjectItem(m, "depth") && cJSON_GetObjectItem(m, "depth")->valueint == 0) {
      seed = cJSON_GetStringValue(cJSON_GetObjectItem(st, "stateId"));
      cr_expect_eq(cJSON_GetObjectItem(m, "selfLoops") ? cJSON_GetObjectItem(m, "selfLoops")->valueint : 0, 0,
                   "no self-loop on the seed");
    }
    page2 += url && strstr(url, "#/page/2") &&
             !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(st, "routeId")) ?: "", "/paging/#/page/:n");
  }
  cr_assert(seed, "a seed state");
  cr_expect_eq(page2, 1, "#/page/2 is a state of its own, on its template's route");
  int next_leaves = 0;
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(tg, "edges")) {
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "target"), "name"));
    const char *from = cJSON_GetStringValue(cJSON_GetObjectItem(e, "fromStateId"));
    const char *to = cJSON_GetStringValue(cJSON_GetObjectItem(e, "toStateId"));
    next_leaves += name && !strcmp(name, "Next page") && from && !strcmp(from, seed) && to && strcmp(to, seed);
  }
  cr_expect_eq(next_leaves, 1, "Next page leads from the seed to another state");
  cJSON_Delete(pkg);
  t_run_free(&run);
  rm_rf(dir);
}

/* ---- `uiap-crawl serve`: no test hooks in the product ------------------------------ */
/* The status of GET path from 127.0.0.1:port, or -1. */
static int http_status(int port, const char *path) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  char req[256], buf[64] = "";
  snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", path);
  int code = -1;
  if (write(fd, req, strlen(req)) == (ssize_t)strlen(req) && read(fd, buf, sizeof buf - 1) > 0)
    sscanf(buf, "HTTP/1.1 %d", &code);
  close(fd);
  return code;
}

/* `uiap-crawl serve DIR` answers GET /__hits (every path requested) and
 * /__reset with 404: those hooks are the test server's (tests/support),
 * not the product's. */
Test(serve_cli, production_serve_has_no_test_hooks, .timeout = 60) {
  int out[2];
  cr_assert_eq(pipe(out), 0);
  pid_t pid = fork();
  cr_assert_neq(pid, -1);
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    close(out[1]);
    execl(UIAP_BIN, UIAP_BIN, "serve", UIAP_SRC "/tests/fixtures/secrets", (char *)NULL);
    _exit(127);
  }
  close(out[1]);
  char line[128] = "";
  size_t n = 0;
  struct pollfd p = {.fd = out[0], .events = POLLIN};
  while (n < sizeof line - 1 && !strchr(line, '\n') && poll(&p, 1, 20000) == 1) {
    ssize_t r = read(out[0], line + n, sizeof line - 1 - n);
    if (r <= 0) break;
    n += (size_t)r;
    line[n] = 0;
  }
  int port = 0;
  sscanf(line, "http://127.0.0.1:%d/", &port);
  int page = port ? http_status(port, "/next.html") : -1;
  int hits = port ? http_status(port, "/__hits") : -1, reset = port ? http_status(port, "/__reset") : -1;
  kill(pid, SIGTERM);
  waitpid(pid, NULL, 0);
  close(out[0]);
  cr_assert_gt(port, 0, "serve printed its URL: %s", line);
  cr_expect_eq(page, 200, "serve serves the folder");
  cr_expect_eq(hits, 404, "GET /__hits: %d", hits);
  cr_expect_eq(reset, 404, "GET /__reset: %d", reset);
}

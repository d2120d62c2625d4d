/* navigate.c -- end-to-end: real server-rendered apps (issue 27 section 5;
 * docs/sessions.md, docs/decisions.md) against the fixture address book
 * (tests/support/addrbook_app.c) and tests/fixtures/addrbook/. What a user
 * notices:
 *  - choosing a group in a <select onchange="this.parentNode.submit()"> (a
 *    GET form), a GET search form's button and a button that runs
 *    location.assign are transitions to the pages they reached; no action
 *    runs on nodes of a document that is gone ("detached");
 *  - a run whose actions mostly fail says so on stderr, in the package's
 *    metadata and as one review item with the counts and the commonest
 *    reason;
 *  - a login recipe whose fields have no labels signs in with targets by
 *    role and ordinal, or by a CSS hint, and the crawl explores signed in;
 *  - a session that lands on the sign-in page right after it was applied
 *    says so in one line, and the sign-in page is not crawled. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

typedef struct {
  t_run run;
  char *dir, out[600];
} nav_run;

/* `uiap-crawl crawl [SEED] -o OUT --max-runtime-ms 60000 args...`. */
static void crawl(nav_run *r, const char *seed, const char *const *args) {
  memset(r, 0, sizeof *r);
  r->dir = t_tmpdir();
  snprintf(r->out, sizeof r->out, "%s/out", r->dir);
  const char *argv[40] = {UIAP_BIN, "crawl", "-o", r->out, "--max-runtime-ms", "60000"};
  int n = 6;
  if (seed) argv[n++] = seed;
  for (int i = 0; args && args[i] && n < 39; i++) argv[n++] = args[i];
  argv[n] = NULL;
  r->run = t_run_argv(argv, 150000);
}

static void nav_free(nav_run *r) {
  t_run_free(&r->run);
  t_rm_rf(r->dir);
  free(r->dir);
}

/* The package, validated. */
static cJSON *package(const nav_run *r) {
  char path[700];
  snprintf(path, sizeof path, "%s/package.json", r->out);
  cJSON *p = t_package_read(path);
  cr_assert(p, "a package at %s (exit %d): %s", path, r->run.status, r->run.err);
  return p;
}

/* Transitions of the journal that left their state: those whose target's
 * name is name (NULL: any) and whose chosen option is option (NULL: any). */
static int transitions_named(const nav_run *r, const char *name, const char *option) {
  cJSON *all = t_journal_records(r->out, "transition"), *t;
  int n = 0;
  cJSON_ArrayForEach(t, all) {
    const char *nm = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "target"), "name"));
    const char *opt = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "args"), "option"));
    n += (!name || (nm && !strcmp(nm, name))) && (!option || (opt && !strcmp(opt, option))) &&
         cJSON_IsFalse(cJSON_GetObjectItem(t, "selfLoop"));
  }
  cJSON_Delete(all);
  return n;
}

/* Failures whose reason holds needle (NULL: any); the first into first. */
static int failures_with(const nav_run *r, const char *needle, char *first, size_t cap) {
  cJSON *all = t_journal_records(r->out, "failure"), *f;
  int n = 0;
  if (first) first[0] = 0;
  cJSON_ArrayForEach(f, all) {
    const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(f, "reason"));
    if (!why || (needle && !strstr(why, needle))) continue;
    if (first && !n) snprintf(first, cap, "%s", why);
    n++;
  }
  cJSON_Delete(all);
  return n;
}

static cJSON *book_log(void) {
  char *t = t_fixture_get(0, "/book/__log");
  cJSON *j = t ? cJSON_Parse(t) : NULL;
  free(t);
  cr_assert(j, "the address book answers /book/__log");
  return j;
}

/* ---- actions that navigate ------------------------------------------------------- */
Test(navigate, select_that_submits_is_a_transition_per_group, .timeout = 200) {
  nav_run r;
  const char *args[] = {"--header", "X-Addrbook-Token: " T_ADDRBOOK_TOKEN, "--max-states", "14", NULL};
  crawl(&r, t_fixture_url(0, NULL, "/book/"), args);
  cr_assert_eq(r.run.status, 0, "crawl exit %d: %s", r.run.status, r.run.err);
  cr_log_info("address book: %.*s", (int)strcspn(r.run.err, "\n"), r.run.err); /* the figures, with --verbose */
  static const char *const groups[] = {"family", "work", "friends"};
  for (int g = 0; g < 3; g++)
    cr_expect_geq(transitions_named(&r, NULL, groups[g]), 1, "choosing group %s is a transition to its page",
                  groups[g]);
  char first[512];
  cr_expect_eq(failures_with(&r, "detached", first, sizeof first), 0, "no action on a gone document: %s", first);
  cr_expect_eq(failures_with(&r, "went away", first, sizeof first), 0, "no select that went away: %s", first);
  cr_expect_geq(transitions_named(&r, "Birthdays", NULL), 1, "the location.assign button reached Birthdays");
  cr_expect_geq(transitions_named(&r, "Search", NULL), 1, "the GET search form's button is a transition");
  cJSON *pkg = package(&r);
  cJSON *s;
  int group_pages = 0;
  cJSON_ArrayForEach(s, cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "transitionGraph"), "states")) {
    char *t = cJSON_PrintUnformatted(s);
    for (int g = 0; g < 3; g++) {
      char want[64];
      snprintf(want, sizeof want, "Address book: %s", groups[g]);
      group_pages += t && strstr(t, want) != NULL;
    }
    free(t);
  }
  cr_expect_geq(group_pages, 3, "the three group pages are states of the package");
  cJSON *log = book_log();
  cr_expect_eq(cJSON_GetObjectItem(log, "logouts")->valueint, 0, "the crawl never logged out");
  cJSON_Delete(log);
  cJSON_Delete(pkg);
  nav_free(&r);
}

/* ---- a run whose actions mostly fail -------------------------------------------- */
Test(navigate, mostly_failed_run_says_so, .timeout = 150) {
  nav_run r;
  const char *args[] = {"--max-states", "4", NULL};
  crawl(&r, t_fixture_url(0, NULL, "/addrbook/covered.html"), args);
  cr_assert_eq(r.run.status, 0, "crawl exit %d: %s", r.run.status, r.run.err);
  cr_expect(strstr(r.run.err, "uiap-crawl: warning: most actions failed: ") && strstr(r.run.err, "obscured"),
            "stderr says most actions failed and why: %s", r.run.err);
  cJSON *pkg = package(&r);
  const cJSON *f = cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "metadata"), "actionFailures");
  cr_assert(f, "metadata.actionFailures");
  cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(f, "mostlyFailed")));
  cr_expect_geq(cJSON_GetObjectItem(f, "failed")->valueint, 4, "the links and the button the gate allowed failed");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(f, "commonestReason")), "obscured");
  cr_expect(t_review_mentions(pkg, "coverage_gap", "of the") && t_review_mentions(pkg, "coverage_gap", "obscured"),
            "one review item with the counts and the reason");
  cJSON_Delete(pkg);
  nav_free(&r);
  /* the address book's actions do not fail: no such line, no such item */
  const char *args2[] = {"--header", "X-Addrbook-Token: " T_ADDRBOOK_TOKEN, "--max-states", "4", NULL};
  crawl(&r, t_fixture_url(0, NULL, "/book/"), args2);
  cr_assert_eq(r.run.status, 0, "crawl exit %d: %s", r.run.status, r.run.err);
  cr_expect(!strstr(r.run.err, "most actions failed"), "%s", r.run.err);
  pkg = package(&r);
  f = cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "metadata"), "actionFailures");
  cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(f, "mostlyFailed")), "the address book's run did not mostly fail");
  cr_expect(!t_review_mentions(pkg, "coverage_gap", "actions the crawl attempted failed"));
  cJSON_Delete(pkg);
  nav_free(&r);
}

/* ---- sign-in forms without labels -------------------------------------------------- */
/* A plan whose owner signs in to the address book with a recipe whose
 * targets are role + ordinal (the user field), a CSS hint (the password
 * field) and role + ordinal (the button). */
static const char *book_plan(const char *dir) {
  static char path[700];
  char *pj = NULL, base[128];
  snprintf(base, sizeof base, "http://127.0.0.1:%d", t_fixture_port(0));
  cr_assert(asprintf(&pj,
      "{\"environment\":{\"environmentId\":\"book\",\"baseUrl\":\"%s/\",\"principalProfiles\":[{\"id\":\"owner\"}],"
      "\"metadata\":{\"principals\":{\"owner\":{\"login\":{\"url\":\"%s/book/login\",\"steps\":["
      "{\"action\":\"ui.enterText\",\"target\":{\"role\":\"textbox\",\"ordinal\":0},\"value\":\"${env:T_BOOK_USER}\"},"
      "{\"action\":\"ui.enterText\",\"target\":{\"css\":\"input[name=pass]\"},\"value\":\"${env:T_BOOK_PASS}\"},"
      "{\"action\":\"ui.activate\",\"target\":{\"role\":\"button\",\"ordinal\":0}}],"
      "\"success\":{\"urlPrefix\":\"%s/book/\"}}}}}},"
      "\"seeds\":[{\"kind\":\"url\",\"url\":\"/book/\"}]}", base, base, base) > 0);
  snprintf(path, sizeof path, "%s/plan.json", dir);
  t_write_file(path, pj);
  free(pj);
  setenv("T_BOOK_USER", "admin", 1);
  setenv("T_BOOK_PASS", "book-pass", 1);
  return path;
}

Test(navigate, recipe_with_ordinal_and_css_targets_signs_in, .timeout = 200) {
  char *tmp = t_tmpdir();
  cJSON *log0 = book_log();
  int pages0 = cJSON_GetObjectItem(log0, "pages")->valueint, posts0 = cJSON_GetObjectItem(log0, "posts")->valueint;
  cJSON_Delete(log0);
  nav_run r;
  const char *args[] = {"--plan", book_plan(tmp), "--max-states", "14", NULL};
  crawl(&r, NULL, args);
  cr_assert_eq(r.run.status, 0, "crawl exit %d: %s", r.run.status, r.run.err);
  char path[700];
  snprintf(path, sizeof path, "%s/journal.jsonl", r.out);
  char *jl = t_read_file(path, NULL);
  cr_assert(jl);
  cr_expect(strstr(jl, "signed in as owner with its recipe"), "the recipe signed in");
  cr_expect(!strstr(jl, "book-pass"), "the password is in no journal line");
  free(jl);
  cJSON *log = book_log();
  cr_expect_eq(cJSON_GetObjectItem(log, "posts")->valueint - posts0, 1, "one sign-in post");
  cr_expect_geq(cJSON_GetObjectItem(log, "pages")->valueint - pages0, 3, "the crawl saw the book signed in");
  cr_expect_eq(cJSON_GetObjectItem(log, "logouts")->valueint, 0, "never logged out");
  cJSON_Delete(log);
  cr_expect_geq(transitions_named(&r, NULL, "family") + transitions_named(&r, NULL, "work") +
                    transitions_named(&r, NULL, "friends"), 1, "explored signed in: the group select");
  cJSON *pkg = package(&r);
  char *t = cJSON_PrintUnformatted(cJSON_GetObjectItem(pkg, "transitionGraph"));
  cr_expect(t && strstr(t, "\"routeId\":\"/book/\"") && !strstr(t, "/book/login"),
            "the signed-in list is a state, the sign-in page is not");
  free(t);
  cJSON_Delete(pkg);
  nav_free(&r);
  t_rm_rf(tmp);
  free(tmp);
}

/* ---- a session that is not accepted ------------------------------------------------- */
Test(navigate, rejected_session_says_so_in_one_line, .timeout = 150) {
  char *tmp = t_tmpdir(), state[700];
  snprintf(state, sizeof state, "%s/state.json", tmp);
  t_write_file(state, "{\"cookies\":[{\"name\":\"abid\",\"value\":\"5eed0000expired0000cookie00000000\","
                      "\"domain\":\"127.0.0.1\",\"path\":\"/book\",\"expires\":-1,\"httpOnly\":true,\"secure\":false,"
                      "\"sameSite\":\"Lax\"}],\"origins\":[]}");
  nav_run r;
  const char *args[] = {"--storage-state", state, "--max-states", "4", NULL};
  crawl(&r, t_fixture_url(0, NULL, "/book/"), args);
  cr_expect_eq(r.run.status, 4, "exit 4: no seed loaded signed in (%d): %s", r.run.status, r.run.err);
  int lines = 0;
  for (const char *p = r.run.err; (p = strstr(p, "sign-in page")); p++) lines++;
  cr_expect(strstr(r.run.err, "was applied, but the first page is a sign-in page (") &&
            strstr(r.run.err, "/book/login"), "the line names the sign-in page: %s", r.run.err);
  cr_expect(!strstr(r.run.err, "5eed0000expired"), "no cookie value on stderr");
  cJSON *pkg = package(&r);
  char *t = cJSON_PrintUnformatted(cJSON_GetObjectItem(pkg, "transitionGraph"));
  cr_expect(t && !strstr(t, "Address book: login"), "the sign-in page is not crawled: %s", t ? t : "");
  free(t);
  cr_expect(t_review_mentions(pkg, "coverage_gap", "was not accepted"), "a review item says so");
  cJSON_Delete(pkg);
  nav_free(&r);
  t_rm_rf(tmp);
  free(tmp);
}

/* The same for a principal of the plan whose storageState is stale: the
 * line names the principal, it stops exploring, and the run goes on. */
Test(navigate, rejected_principal_session_stops_it, .timeout = 150) {
  char *tmp = t_tmpdir(), state[700], plan[700], base[128], *pj = NULL;
  snprintf(state, sizeof state, "%s/state.json", tmp);
  t_write_file(state, "{\"cookies\":[{\"name\":\"abid\",\"value\":\"5eed1111expired1111cookie11111111\","
                      "\"domain\":\"127.0.0.1\",\"path\":\"/book\",\"expires\":-1,\"httpOnly\":true,\"secure\":false,"
                      "\"sameSite\":\"Lax\"}],\"origins\":[]}");
  snprintf(base, sizeof base, "http://127.0.0.1:%d", t_fixture_port(0));
  cr_assert(asprintf(&pj,
      "{\"environment\":{\"environmentId\":\"book\",\"baseUrl\":\"%s/\",\"principalProfiles\":[{\"id\":\"clerk\"}],"
      "\"metadata\":{\"principals\":{\"clerk\":{\"storageState\":\"%s\"}}}},"
      "\"seeds\":[{\"kind\":\"url\",\"url\":\"/book/\"}]}", base, state) > 0);
  snprintf(plan, sizeof plan, "%s/plan.json", tmp);
  t_write_file(plan, pj);
  free(pj);
  nav_run r;
  const char *args[] = {"--plan", plan, "--max-states", "4", NULL};
  crawl(&r, NULL, args);
  cr_expect(strstr(r.run.err, "the session of principal clerk (its storageState) was applied, but the first page is a "
                              "sign-in page"), "one line names the principal: %s", r.run.err);
  cr_expect(!strstr(r.run.err, "5eed1111expired"), "no cookie value on stderr");
  cJSON *pkg = package(&r);
  char *t = cJSON_PrintUnformatted(cJSON_GetObjectItem(pkg, "transitionGraph"));
  cr_expect(t && !strstr(t, "/book/login"), "the sign-in page is not crawled");
  free(t);
  cr_expect(t_review_mentions(pkg, "coverage_gap", "was not accepted"), "a review item says so");
  cJSON_Delete(pkg);
  nav_free(&r);
  t_rm_rf(tmp);
  free(tmp);
}

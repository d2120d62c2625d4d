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
  static const char *const groups[] = {"family", "work", "friends"};
  for (int g = 0; g < 3; g++)
    cr_expect_geq(transitions_named(&r, NULL, groups[g]), 1, "choosing group %s is a transition to its page",
                  groups[g]);
  char first[512];
  cr_expect_eq(failures_with(&r, "detached", first, sizeof first), 0, "no action on a gone document: %s", first);
  cr_expect_eq(failures_with(&r, "went away", first, sizeof first), 0, "no select that went away: %s", first);
  if (getenv("T_NAV_KEEP")) { char cmd[800]; snprintf(cmd, sizeof cmd, "cp -r %s /tmp/nav-keep", r.out); system(cmd); }
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

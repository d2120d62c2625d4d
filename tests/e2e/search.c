/* search.c -- end-to-end: typing that only reads (issue 27, section 3;
 * docs/safety.md "Typing") in real Chromium on the fixture server. The
 * market page (tests/fixtures/search/index.html) has a search box over a
 * client-side list, a GET search form whose results page lists matches, a
 * field in a search landmark, a table of people with a filter next to it,
 * and a sign-up POST form whose fields send a GET beacon (/__test/echo) on
 * input. safe_explore types a word of the page into the searches (the
 * people's names and contacts are never typed: the probe word instead),
 * submits the GET form with Enter, and never types into the sign-up form;
 * nothing but GETs reaches the server. observe_only types nothing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

typedef struct {
  t_run run;
  char *dir;
  char out[600];
  cJSON *pkg;
  cJSON *before, *after; /* the fixture servers' request counts around the run */
} run_res;

static void crawl(run_res *r, const char *mode) {
  memset(r, 0, sizeof *r);
  r->dir = t_tmpdir();
  cr_assert(r->dir);
  snprintf(r->out, sizeof r->out, "%s/out", r->dir);
  const char *argv[] = {UIAP_BIN, "crawl", t_fixture_url(0, NULL, "/search/index.html"), "--mode", mode,
                        "--max-runtime-ms", "30000", "-o", r->out, NULL};
  r->before = t_fixture_hit_table();
  r->run = t_run_argv(argv, 70000);
  usleep(300000);
  r->after = t_fixture_hit_table();
  cr_assert_eq(r->run.status, 0, "crawl exit %d: %s", r->run.status, r->run.err);
  char pkg[700], msg[4096];
  snprintf(pkg, sizeof pkg, "%s/package.json", r->out);
  r->pkg = t_package_read(pkg);
  cr_assert(r->pkg, "no package: %s", r->run.err);
  cr_expect_eq(t_validate("DiscoveryPackage", pkg, msg, sizeof msg), 0, "the package validates: %s", msg);
}

static void done(run_res *r) {
  t_rm_rf(r->dir);
  free(r->dir);
  cJSON_Delete(r->pkg);
  cJSON_Delete(r->before);
  cJSON_Delete(r->after);
  t_run_free(&r->run);
}

/* How many more requests "METHOD path" the servers counted during the run. */
static long grew(const run_res *r, const char *key) {
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(r->after, key);
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(r->before, key);
  return (long)((cJSON_IsNumber(a) ? a->valuedouble : 0) - (cJSON_IsNumber(b) ? b->valuedouble : 0));
}

/* Requests during the run that were not GET or HEAD, listed into buf. */
static long writes(const run_res *r, char *buf, size_t cap) {
  long n = 0;
  buf[0] = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, r->after) {
    if (!strncmp(it->string, "GET ", 4) || !strncmp(it->string, "HEAD ", 5)) continue;
    long d = grew(r, it->string);
    if (d <= 0) continue;
    n += d;
    size_t used = strlen(buf);
    snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", it->string);
  }
  return n;
}

static const cJSON *edges(const cJSON *pkg) {
  return cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "transitionGraph"), "edges");
}

static const char *str(const cJSON *o, const char *k) {
  return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

/* The first ui.enterText transition into the field named name, or NULL. */
static const cJSON *typed(const cJSON *pkg, const char *name) {
  const cJSON *e;
  cJSON_ArrayForEach(e, edges(pkg)) {
    const char *via = str(e, "viaActionId"), *n = str(cJSON_GetObjectItem(e, "target"), "name");
    if (via && !strcmp(via, "ui.enterText") && n && !strcmp(n, name)) return e;
  }
  return NULL;
}

static const cJSON *state(const cJSON *pkg, const char *id) {
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "transitionGraph"), "states")) {
    const char *sid = str(s, "stateId");
    if (sid && id && !strcmp(sid, id)) return s;
  }
  return NULL;
}

/* 1 when the page graph of state id shows text. */
static int state_shows(const run_res *r, const char *id, const char *text) {
  const char *ref = str(state(r->pkg, id), "pageGraphRef");
  if (!ref) return 0;
  char path[900];
  snprintf(path, sizeof path, "%s/%s", r->out, ref);
  char *g = t_read_file(path, NULL);
  int yes = g && strstr(g, text);
  free(g);
  return yes;
}

/* The words a value may come from: the visible items of each field's section. */
static int page_word(const char *w, const char *const *words) {
  for (int i = 0; words[i]; i++)
    if (!strcmp(w, words[i])) return 1;
  return 0;
}

/* A search, typed with a word of its own list, reaches a new state. */
static const cJSON *expect_search(const run_res *r, const char *field, const char *const *words) {
  const cJSON *e = typed(r->pkg, field);
  cr_assert(e, "a ui.enterText transition into \"%s\"", field);
  const cJSON *args = cJSON_GetObjectItem(e, "args");
  const char *text = str(args, "text"), *src = str(args, "valueSource");
  cr_assert(text, "the transition into \"%s\" carries the value in args.text", field);
  cr_expect(page_word(text, words), "\"%s\" got \"%s\", a word of the list next to it", field, text);
  cr_expect(src && !strcmp(src, "page"), "\"%s\": valueSource page, got %s", field, src ? src : "(none)");
  cr_expect(strcmp(str(e, "fromStateId"), str(e, "toStateId")), "typing into \"%s\" reached another state", field);
  cr_expect_str_eq(str(e, "sideEffectClass"), "read");
  return e;
}

static const char *const signup_fields[] = {"Username", "Search members", "Favourite fruit", "E-mail", "Password",
                                            NULL};

/* No transition or failure typed into a sign-up field; each was decided
 * as not to run. */
static void expect_signup_untouched(const run_res *r) {
  static const char *const kinds[] = {"transition", "failure"};
  for (int k = 0; k < 2; k++) {
    cJSON *recs = t_journal_records(r->out, kinds[k]);
    const cJSON *rec;
    cJSON_ArrayForEach(rec, recs) {
      const char *n = str(cJSON_GetObjectItem(rec, "target"), "name");
      const char *via = str(rec, k ? "actionId" : "viaActionId");
      for (int i = 0; n && signup_fields[i]; i++)
        cr_expect(strcmp(n, signup_fields[i]) || !via || strcmp(via, "ui.enterText"),
                  "the sign-up field \"%s\" was typed into (%s)", n, kinds[k]);
    }
    cJSON_Delete(recs);
  }
  cr_expect_eq(grew(r, "GET /__test/echo"), 0, "no sign-up field saw input (its beacon reached the server)");
}

Test(search, safe_explore_types_searches_and_never_a_write_form, .timeout = 120) {
  run_res r;
  crawl(&r, "safe_explore");
  static const char *const fruit[] = {"Apricot", "jam", "Blueberry", "muffin", "Cherry", "pie", "Damson", "plum", NULL};
  static const char *const popular[] = {"Mango", "chutney", "Quince", "jelly", NULL};
  static const char *const recipes[] = {"Gooseberry", "fool", "Rhubarb", "crumble", "Elderflower", "cordial", NULL};

  /* the search box over a client-side list: filtered, no request */
  const cJSON *e = expect_search(&r, "Filter fruit", fruit);
  cr_expect(state_shows(&r, str(e, "toStateId"), "1 of 4 shown"), "the fruit list was filtered to the match");
  /* the GET form: Enter submits it, the results page lists the match */
  e = expect_search(&r, "Keywords", popular);
  const char *route = str(state(r.pkg, str(e, "toStateId")), "routeId");
  cr_expect(route && strstr(route, "results.html"), "the GET form led to its results page (route %s)",
            route ? route : "(none)");
  cr_expect_str_eq(str(cJSON_GetObjectItem(e, "args"), "submitKey"), "Enter");
  cr_expect(state_shows(&r, str(e, "toStateId"), "1 products match"), "the results page lists a match");
  /* the search landmark's field */
  expect_search(&r, "Recipes", recipes);
  /* the filter over a table of people: their names and contacts are never typed */
  e = typed(r.pkg, "Narrow the table");
  cr_assert(e, "the table's filter was typed into");
  cr_expect_str_eq(str(cJSON_GetObjectItem(e, "args"), "text"), "test");
  cr_expect_str_eq(str(cJSON_GetObjectItem(e, "args"), "valueSource"), "probe");
  static const char *const personal[] = {"Alice", "Wonderly", "Bartholomew", "Quist", "example.com", "555", NULL};
  const cJSON *it;
  cJSON_ArrayForEach(it, edges(r.pkg)) {
    const char *text = str(cJSON_GetObjectItem(it, "args"), "text");
    for (int i = 0; text && personal[i]; i++)
      cr_expect(!strstr(text, personal[i]), "a value typed holds personal data: \"%s\"", text);
  }

  char buf[1024];
  cr_expect_eq(writes(&r, buf, sizeof buf), 0, "only GETs reached the server; also: %s", buf);
  cr_expect_eq(t_fixture_hits_since(r.before, "/danger/", buf, sizeof buf), 0, "no write reached /danger/: %s", buf);
  cr_expect_gt(grew(&r, "GET /search/results.html"), 0, "the GET form was submitted");
  expect_signup_untouched(&r);
  done(&r);
}

Test(search, observe_only_types_nothing, .timeout = 120) {
  run_res r;
  crawl(&r, "observe_only");
  const cJSON *e;
  cJSON_ArrayForEach(e, edges(r.pkg))
    cr_expect(strcmp(str(e, "viaActionId"), "ui.enterText"), "observe_only typed into \"%s\"",
              str(cJSON_GetObjectItem(e, "target"), "name"));
  char buf[1024];
  cr_expect_eq(writes(&r, buf, sizeof buf), 0, "only GETs reached the server; also: %s", buf);
  cr_expect_eq(grew(&r, "GET /search/results.html"), 0, "observe_only submitted no search");
  expect_signup_untouched(&r);
  done(&r);
}

/* api.c -- end-to-end: the app's API as the UI uses it (issue 28,
 * docs/api.md "Recording requests"), in real Chromium on the fixture
 * server, safe_explore. A REST app (tests/fixtures/api/pets.html: its list
 * loads by GET /api/pets?status=available, each pet's button GETs
 * /api/pets/<id>, "Show card" POSTs to /api/pets/3/adopt) and the GraphQL
 * app of tests/fixtures/safety/graphql.html: the journal's `requests`
 * records name each request with the load or the transition that made
 * it, the guard's verdict and the body's shape, never a body value; the
 * write never reaches the server. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

typedef struct {
  t_run run;
  char *dir;
  char out[600];
  cJSON *recs;       /* the journal's requests records */
} crawl_res;

static void crawl(crawl_res *r, const char *path) {
  memset(r, 0, sizeof *r);
  r->dir = t_tmpdir();
  cr_assert(r->dir);
  snprintf(r->out, sizeof r->out, "%s/out", r->dir);
  const char *argv[] = {UIAP_BIN, "crawl", t_fixture_url(0, NULL, path), "--max-runtime-ms", "20000",
                        "-o", r->out, NULL};
  r->run = t_run_argv(argv, 70000);
  cr_expect_eq(r->run.status, 0, "crawl of %s: exit %d: %s", path, r->run.status, r->run.err);
  r->recs = t_journal_records(r->out, "requests");
  cr_assert(r->recs && cJSON_GetArraySize(r->recs) > 0, "the journal has requests records: %s", r->run.err);
}

static void done(crawl_res *r) {
  t_rm_rf(r->dir);
  free(r->dir);
  cJSON_Delete(r->recs);
  t_run_free(&r->run);
}

static const char *str(const cJSON *o, const char *k) { return cJSON_GetStringValue(cJSON_GetObjectItem(o, k)); }

/* The first request of method whose URL ends with suffix, and its record. */
static const cJSON *find_req(const crawl_res *r, const char *method, const char *suffix, const cJSON **rec) {
  const cJSON *rc, *q;
  size_t sl = strlen(suffix);
  cJSON_ArrayForEach(rc, r->recs) cJSON_ArrayForEach(q, cJSON_GetObjectItem(rc, "requests")) {
    const char *u = str(q, "url"), *m = str(q, "method");
    if (u && m && !strcmp(m, method) && strlen(u) >= sl && !strcmp(u + strlen(u) - sl, suffix)) {
      if (rec) *rec = rc;
      return q;
    }
  }
  return NULL;
}

/* The name of the target of transition tid in the journal, or NULL (a copy). */
static char *transition_target(const crawl_res *r, const char *tid) {
  cJSON *ts = t_journal_records(r->out, "transition");
  const cJSON *t;
  char *name = NULL;
  cJSON_ArrayForEach(t, ts)
    if (tid && !strcmp(str(t, "transitionId") ? str(t, "transitionId") : "", tid)) {
      const char *n = str(cJSON_GetObjectItem(t, "target"), "name");
      name = n ? strdup(n) : NULL;
    }
  cJSON_Delete(ts);
  return name;
}

/* GET /api/pets/<id> was recorded, 200, in the record of a transition whose
 * target is the pet's button. */
static void expect_click_fetch(const crawl_res *r, const char *id, const char *pet) {
  char suffix[64];
  snprintf(suffix, sizeof suffix, "/api/pets/%s", id);
  const cJSON *rec = NULL, *q = find_req(r, "GET", suffix, &rec);
  cr_assert(q, "GET %s is recorded", suffix);
  cr_expect_eq(cJSON_GetObjectItem(q, "status")->valueint, 200, "GET %s: status 200", suffix);
  cr_expect_str_eq(str(q, "initiator"), "action", "GET %s was made by an action", suffix);
  cr_expect_str_eq(str(q, "guard"), "passed", "GET %s went out untouched", suffix);
  cr_expect_str_eq(str(rec, "phase"), "action", "GET %s is in an action's record", suffix);
  char *name = transition_target(r, str(rec, "transitionId"));
  cr_expect(name && !strcmp(name, pet), "GET %s belongs to the transition of the click on %s (found: %s)", suffix, pet,
            name ? name : "no transition");
  free(name);
}

/* The list at load, the pets' GETs with their clicks, the adopt POST
 * stopped by the guard with its body's shape and never at the server, no
 * body value anywhere. */
Test(api, rest_requests_are_recorded_with_their_loads_and_clicks, .timeout = 120) {
  cJSON *before = t_fixture_hit_table();
  crawl_res r;
  crawl(&r, "/api/pets.html");
  usleep(300000);
  char wrote[1024];
  long adopt = t_fixture_hits_since(before, "/api/pets/3/adopt", wrote, sizeof wrote);
  cJSON_Delete(before);

  const cJSON *rec = NULL, *q = find_req(&r, "GET", "/api/pets?status=available", &rec);
  cr_assert(q, "the list's GET is recorded");
  cr_expect_str_eq(str(rec, "phase"), "load", "the list's first GET is in the load's record");
  cr_expect_str_eq(str(q, "initiator"), "load", "made by the load");
  cr_expect(str(rec, "stateId"), "the load's record names the state it reached");
  cr_expect_eq(cJSON_GetObjectItem(q, "status")->valueint, 200, "the list: 200");
  cr_expect_str_eq(str(q, "mimeType"), "application/json", "the list's content type");
  cr_expect(str(q, "resourceType") && (!strcmp(str(q, "resourceType"), "Fetch") || !strcmp(str(q, "resourceType"), "XHR")),
            "the list is a fetch (%s)", str(q, "resourceType") ? str(q, "resourceType") : "no type");

  expect_click_fetch(&r, "3", "Rex");
  expect_click_fetch(&r, "4", "Mia");

  const cJSON *post = find_req(&r, "POST", "/api/pets/3/adopt", &rec);
  cr_assert(post, "the adopt POST is recorded");
  cr_expect_str_eq(str(post, "guard"), "write", "the guard failed it as a write");
  cr_expect(!cJSON_GetObjectItem(post, "status"), "a request the guard failed has no status");
  cr_expect(str(rec, "transitionId") || cJSON_IsTrue(cJSON_GetObjectItem(rec, "probed")),
            "it is in the record of the click that made it");
  const cJSON *body = cJSON_GetObjectItem(post, "body"), *shape = cJSON_GetObjectItem(body, "shape");
  cr_expect_str_eq(str(body, "kind"), "json", "its body is JSON");
  cr_expect_str_eq(str(shape, "note"), "string", "its shape has the key note, a string");
  cr_expect_str_eq(str(shape, "petId"), "number", "and petId, a number");
  cr_expect_str_eq(str(cJSON_GetObjectItem(shape, "owner"), "email"), "string", "and owner.email, nested");
  cr_expect_eq(adopt, 0, "the adopt POST never reached the server: %s", wrote);

  const char *const needles[] = {"MARKER-adopt-7f3e9c", "MARKER-owner-7f3e9c", NULL};
  char found[1024];
  cr_expect_eq(t_tree_grep(r.out, needles, found, sizeof found), 0, "no body value in the crawl's output: %s", found);
  done(&r);
}

/* The GraphQL app: the query at load is let through as a read and named
 * by operation; the mutation behind "Show details" is failed as a write
 * and named too. */
Test(api, graphql_operations_are_recorded_by_type_and_name, .timeout = 120) {
  crawl_res r;
  crawl(&r, "/safety/graphql.html");
  const cJSON *rec = NULL, *q = find_req(&r, "POST", "/__test/echo", &rec);
  cr_assert(q, "the query at load is recorded");
  cr_expect_str_eq(str(rec, "phase"), "load", "in the load's record");
  cr_expect_str_eq(str(q, "guard"), "read", "let through as a read");
  const cJSON *op = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(q, "body"), "operations"), 0);
  cr_expect_str_eq(str(cJSON_GetObjectItem(q, "body"), "kind"), "graphql", "its body is GraphQL");
  cr_expect_str_eq(str(op, "type"), "query", "a query");
  cr_expect_str_eq(str(op, "name"), "Feed", "named Feed");

  const cJSON *m = find_req(&r, "POST", "/danger/graphql", &rec);
  cr_assert(m, "the mutation is recorded");
  cr_expect_str_eq(str(m, "guard"), "write", "failed as a write");
  cr_expect(str(m, "guardWhy") && strstr(str(m, "guardWhy"), "MarkSeen"), "the guard's reason names it: %s",
            str(m, "guardWhy") ? str(m, "guardWhy") : "none");
  op = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(m, "body"), "operations"), 0);
  cr_expect_str_eq(str(op, "type"), "mutation", "a mutation");
  cr_expect_str_eq(str(op, "name"), "MarkSeen", "named MarkSeen");
  done(&r);
}

/* observe: a script's fetch POST that no form sent is a submission of its
 * own, naming its endpoint's template; the guard fails it (it never
 * arrives), so it finishes as an error. */
Test(api, observe_names_the_endpoint_of_a_submission, .timeout = 120) {
  char *dir = t_tmpdir(), script[700];
  snprintf(script, sizeof script, "%s/script.json", dir);
  t_write_file(script, "[{\"step\":\"wait\",\"target\":{\"role\":\"button\",\"name\":\"Show card\"}},"
                       "{\"step\":\"click\",\"target\":{\"role\":\"button\",\"name\":\"Show card\"}},{\"step\":\"wait\",\"ms\":800}]");
  cJSON *before = t_fixture_hit_table();
  const char *argv[] = {UIAP_BIN, "observe", t_fixture_url(0, NULL, "/api/pets.html"), "--script", script,
                        "--signals", "all", NULL};
  t_run r = t_run_argv(argv, 90000);
  usleep(300000);
  long adopt = t_fixture_hits_since(before, "/api/pets/3/adopt", NULL, 0);
  cJSON_Delete(before);
  cr_assert_eq(r.status, 0, "observe exits 0 (%d): %s", r.status, r.err);
  int started = 0, finished = 0;
  char level[32] = "";
  for (const char *line = r.out; line && *line;) {
    const char *nl = strchr(line, '\n');
    cJSON *m = cJSON_ParseWithLength(line, nl ? (size_t)(nl - line) : strlen(line));
    const cJSON *sg = cJSON_GetObjectItem(cJSON_GetObjectItem(m, "payload"), "signal");
    const cJSON *ep = cJSON_GetObjectItem(cJSON_GetObjectItem(sg, "detail"), "endpoint");
    const char *kind = str(sg, "kind");
    int adopt_ep = str(ep, "template") && !strcmp(str(ep, "template"), "/api/pets/{id}/adopt") &&
                   !strcmp(str(ep, "method"), "POST");
    if (kind && !strcmp(kind, "submission.started")) started += adopt_ep;
    if (kind && !strcmp(kind, "submission.finished") && adopt_ep) {
      finished++;
      snprintf(level, sizeof level, "%s", str(sg, "level") ? str(sg, "level") : "");
    }
    cJSON_Delete(m);
    line = nl ? nl + 1 : NULL;
  }
  cr_expect_eq(started, 1, "one submission.started names POST /api/pets/{id}/adopt:\n%s", r.out);
  cr_expect_eq(finished, 1, "one submission.finished names it");
  cr_expect_str_eq(level, "error", "it finished as an error: the guard failed it");
  cr_expect_eq(adopt, 0, "the POST never reached the server");
  t_run_free(&r);
  t_rm_rf(dir);
  free(dir);
}

/* A login recipe for user (name and password in the environment variables
 * T_API_<USER>_USER and _PASS) as the plan's metadata.principals entry id. */
static void recipe(char *out, size_t n, const char *id, const char *user, const char *base) {
  char var[64], uvar[64];
  snprintf(var, sizeof var, "T_API_%s_PASS", user);
  for (char *c = var; *c; c++) *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
  snprintf(uvar, sizeof uvar, "%.*s_USER", (int)strlen(var) - 5, var);
  snprintf(out, n,
           "\"%s\":{\"login\":{\"url\":\"%s/auth/login\",\"steps\":["
           "{\"action\":\"ui.enterText\",\"target\":{\"role\":\"textbox\",\"name\":\"User\"},\"value\":\"${env:%s}\"},"
           "{\"action\":\"ui.enterText\",\"target\":{\"role\":\"textbox\",\"name\":\"Password\"},\"value\":\"${env:%s}\"},"
           "{\"action\":\"ui.activate\",\"target\":{\"role\":\"button\",\"name\":\"Sign in\"}}],"
           "\"success\":{\"urlPrefix\":\"%s/auth/app/\"}}}",
           id, base, uvar, var, base);
}

/* The status of GET <path> in a load record of principal, or -1. */
static int load_status(const crawl_res *r, const char *principal, const char *path) {
  const cJSON *rc, *q;
  size_t pl = strlen(path);
  cJSON_ArrayForEach(rc, r->recs) {
    if (!str(rc, "principal") || strcmp(str(rc, "principal"), principal) || strcmp(str(rc, "phase"), "load")) continue;
    cJSON_ArrayForEach(q, cJSON_GetObjectItem(rc, "requests")) {
      const char *u = str(q, "url");
      if (u && strlen(u) >= pl && !strcmp(u + strlen(u) - pl, path) && cJSON_IsNumber(cJSON_GetObjectItem(q, "status")))
        return cJSON_GetObjectItem(q, "status")->valueint;
    }
  }
  return -1;
}

/* Two principals, one endpoint: the stats page's load GETs
 * /auth/app/api/stats, 200 for the admin, 403 for the viewer; each
 * record names the principal it was made as. (The user names are secrets
 * of the run, ${env:} values, redacted wherever they appear: so neither
 * the principals' ids nor the endpoint's path is one of them.) */
Test(api, principals_see_one_endpoint_differently, .timeout = 200) {
  char *tmp = t_tmpdir(), plan[700], base[128], owner[1024], viewer[1024], *pj = NULL;
  snprintf(base, sizeof base, "http://127.0.0.1:%d", t_fixture_port(0));
  recipe(owner, sizeof owner, "owner", "admin", base);
  recipe(viewer, sizeof viewer, "reader", "viewer", base);
  setenv("T_API_ADMIN_USER", "admin", 1);
  setenv("T_API_VIEWER_USER", "viewer", 1);
  setenv("T_API_ADMIN_PASS", "admin-pass", 1);
  setenv("T_API_VIEWER_PASS", "viewer-pass", 1);
  cr_assert(asprintf(&pj,
      "{\"environment\":{\"environmentId\":\"auth\",\"baseUrl\":\"%s/\",\"principalProfiles\":["
      "{\"id\":\"owner\",\"roles\":[\"admin\"]},{\"id\":\"reader\",\"roles\":[\"viewer\"]}],"
      "\"metadata\":{\"principals\":{%s,%s}}},\"seeds\":[{\"kind\":\"url\",\"url\":\"/auth/app/stats\"}]}",
      base, owner, viewer) > 0);
  snprintf(plan, sizeof plan, "%s/plan.json", tmp);
  t_write_file(plan, pj);
  free(pj);
  crawl_res r;
  memset(&r, 0, sizeof r);
  r.dir = tmp;
  snprintf(r.out, sizeof r.out, "%s/out", tmp);
  const char *argv[] = {UIAP_BIN, "crawl", "--plan", plan, "--principal", "owner", "--principal", "reader",
                        "--max-runtime-ms", "40000", "-o", r.out, NULL};
  r.run = t_run_argv(argv, 120000);
  cr_expect_eq(r.run.status, 0, "crawl: exit %d: %s", r.run.status, r.run.err);
  r.recs = t_journal_records(r.out, "requests");
  cr_expect_eq(load_status(&r, "owner", "/auth/app/api/stats"), 200, "the admin's load got 200");
  cr_expect_eq(load_status(&r, "reader", "/auth/app/api/stats"), 403, "the viewer's load got 403");
  cr_expect_eq(load_status(&r, "reader", "/auth/app/users"), 403,
               "the access probe's load of Users as the viewer is recorded: 403");
  const char *const needles[] = {"admin-pass", "viewer-pass", NULL};
  char found[512];
  cr_expect_eq(t_tree_grep(r.out, needles, found, sizeof found), 0, "no password in the output: %s", found);
  done(&r);
}

/* mcp: the act tool's result names the requests the action made, by
 * method, endpoint template, status and the guard's verdict. */
Test(api, mcp_act_names_its_requests, .timeout = 150) {
  struct stat st;
  if (stat(UIAP_SRC "/tests/support/node_modules/@modelcontextprotocol/sdk/package.json", &st) != 0) {
    if (t_ci_required()) cr_assert_fail("@modelcontextprotocol/sdk is missing: npm ci in tests/support");
    cr_skip_test("needs node and @modelcontextprotocol/sdk (npm ci in tests/support)");
  }
  char steps[2048];
  snprintf(steps, sizeof steps,
           "[{\"tool\":\"navigate\",\"args\":{\"url\":\"%s\"}},{\"tool\":\"snapshot\"},"
           "{\"tool\":\"act\",\"args\":{\"action\":\"ui.activate\",\"target\":{\"role\":\"button\",\"name\":\"Refresh\"}}},"
           "{\"tool\":\"act\",\"args\":{\"action\":\"ui.activate\",\"target\":{\"role\":\"button\",\"name\":\"Show card\"}}}]",
           t_fixture_url(0, NULL, "/api/pets.html"));
  const char *argv[] = {"/usr/bin/env", "node", UIAP_SRC "/tests/support/mcp_client.mjs", UIAP_BIN, steps, "--quiet",
                        NULL};
  t_run r = t_run_argv(argv, 140000);
  cr_assert_eq(r.status, 0, "mcp_client.mjs: exit %d\n%s\n%s", r.status, r.out, r.err);
  cJSON *out = cJSON_Parse(r.out);
  cr_assert(out, "not JSON: %s", r.out);
  const char *refresh = str(cJSON_GetArrayItem(cJSON_GetObjectItem(out, "results"), 2), "text");
  const char *card = str(cJSON_GetArrayItem(cJSON_GetObjectItem(out, "results"), 3), "text");
  cr_assert(refresh && card, "two act results: %s", r.out);
  cr_expect(strstr(refresh, "requests: [{\"method\":\"GET\",\"template\":\"/api/pets\",\"status\":200,\"guard\":\"passed\"}]"),
            "the click on Refresh made one GET /api/pets, 200:\n%s", refresh);
  cr_expect(strstr(card, "{\"method\":\"POST\",\"template\":\"/api/pets/{id}/adopt\",\"guard\":\"write\"}"),
            "the click on Show card made a POST the guard failed:\n%s", card);
  cr_expect(!strstr(card, "MARKER"), "no body value in the result");
  cJSON_Delete(out);
  t_run_free(&r);
}

/* api.c -- end-to-end: the app's API as the UI uses it (issue 28,
 * docs/api.md "Recording requests"), in real Chromium on the fixture
 * server, safe_explore. A REST app (tests/fixtures/api/pets.html: its list
 * loads by GET /api/pets?status=available, each pet's button GETs
 * /api/pets/<id>, "Show card" POSTs to /api/pets/3/adopt) and the GraphQL
 * app of tests/fixtures/safety/graphql.html: the journal's `requests`
 * records name each request with the load or the transition that made
 * it, the guard's verdict and the body's shape, never a body value; the
 * write never reaches the server. The same crawls' OUT/api.json (docs/api.md
 * "api.json") lists each endpoint once with its template, statuses and
 * callers (states and transitions of the package), the writes the guard
 * stopped with their controls, the principals' statuses and access
 * differences (the sign-in app's stats, two principals); api.openapi.json
 * and requests.har validate (OpenAPI 3.1, HAR 1.2); and no marker value the
 * pages sent -- bodies, a token query value, headers, cookies -- is in any
 * output file. */
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
  long hits;         /* requests the test server saw under the watched prefix during the crawl ... */
  char wrote[1024];  /* ... by "METHOD path" */
} crawl_res;

/* Crawl the fixture at path, counting what reached the test server under
 * watch (a path prefix the crawl must never write to). */
static void crawl(crawl_res *r, const char *path, const char *watch) {
  memset(r, 0, sizeof *r);
  cJSON *before = t_fixture_hit_table();
  r->dir = t_tmpdir();
  cr_assert(r->dir);
  snprintf(r->out, sizeof r->out, "%s/out", r->dir);
  const char *argv[] = {UIAP_BIN, "crawl", t_fixture_url(0, NULL, path), "--max-runtime-ms", "20000",
                        "-o", r->out, NULL};
  r->run = t_run_argv(argv, 70000);
  usleep(300000);
  r->hits = t_fixture_hits_since(before, watch, r->wrote, sizeof r->wrote);
  cJSON_Delete(before);
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

/* The first request of method whose URL ends with suffix, or holds it
 * followed by more of the query ("&..."), and its record. */
static const cJSON *find_req(const crawl_res *r, const char *method, const char *suffix, const cJSON **rec) {
  const cJSON *rc, *q;
  size_t sl = strlen(suffix);
  cJSON_ArrayForEach(rc, r->recs) cJSON_ArrayForEach(q, cJSON_GetObjectItem(rc, "requests")) {
    const char *u = str(q, "url"), *m = str(q, "method"), *hit = u ? strstr(u, suffix) : NULL;
    if (hit && m && !strcmp(m, method) && (!hit[sl] || hit[sl] == '&')) {
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

/* ---- OUT/api.json, its exports and the package (docs/api.md) ------------------------- */
static const cJSON *at(const cJSON *o, const char *k) { return o ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL; }

static int has_num(const cJSON *arr, int v) {
  const cJSON *x;
  cJSON_ArrayForEach(x, arr) if (cJSON_IsNumber(x) && x->valueint == v) return 1;
  return 0;
}

static int has_str(const cJSON *arr, const char *v) {
  const cJSON *x;
  cJSON_ArrayForEach(x, arr) if (cJSON_IsString(x) && !strcmp(x->valuestring, v)) return 1;
  return 0;
}

static int num(const cJSON *o, const char *k) { return cJSON_IsNumber(at(o, k)) ? at(o, k)->valueint : -1; }

/* The endpoint of method and template in api.json (the last), and in *n
 * how many there are. */
static const cJSON *endpoint(const cJSON *api, const char *method, const char *tpl, int *n) {
  const cJSON *e, *found = NULL;
  *n = 0;
  cJSON_ArrayForEach(e, at(api, "endpoints"))
    if (str(e, "method") && str(e, "template") && !strcmp(str(e, "method"), method) && !strcmp(str(e, "template"), tpl)) {
      found = e;
      (*n)++;
    }
  return found;
}

/* The one endpoint of method and template: asserted to be listed exactly once. */
static const cJSON *endpoint_once(const cJSON *api, const char *method, const char *tpl) {
  int n;
  const cJSON *e = endpoint(api, method, tpl, &n), *x;
  char seen[2048] = "";
  cJSON_ArrayForEach(x, at(api, "endpoints"))
    snprintf(seen + strlen(seen), sizeof seen - strlen(seen), " %s %s;", str(x, "method"), str(x, "template"));
  cr_assert_eq(n, 1, "api.json lists %s %s once (%d times); it lists:%s", method, tpl, n, seen);
  return e;
}

static const cJSON *pkg_edge(const cJSON *pkg, const char *tid) {
  const cJSON *t;
  cJSON_ArrayForEach(t, at(at(pkg, "transitionGraph"), "edges"))
    if (tid && str(t, "transitionId") && !strcmp(str(t, "transitionId"), tid)) return t;
  return NULL;
}

static int pkg_state(const cJSON *pkg, const char *sid) {
  const cJSON *s;
  cJSON_ArrayForEach(s, at(at(pkg, "transitionGraph"), "states"))
    if (sid && str(s, "stateId") && !strcmp(str(s, "stateId"), sid)) return 1;
  return 0;
}

/* Every state and transition ep's calledFrom names is one of the package,
 * each transition with the package's action and target. */
static void expect_callers_in_package(const cJSON *ep, const cJSON *pkg) {
  const cJSON *cf = at(ep, "calledFrom"), *x;
  const char *lists[] = {"loads", "states"};
  for (int i = 0; i < 2; i++)
    cJSON_ArrayForEach(x, at(cf, lists[i]))
      cr_expect(pkg_state(pkg, cJSON_GetStringValue(x)), "%s %s: calledFrom.%s names %s, a state of the package",
                str(ep, "method"), str(ep, "template"), lists[i], cJSON_GetStringValue(x));
  cJSON_ArrayForEach(x, at(cf, "transitions")) {
    const cJSON *t = pkg_edge(pkg, str(x, "transitionId"));
    cr_expect(t, "%s %s: transition %s is in the package", str(ep, "method"), str(ep, "template"), str(x, "transitionId"));
    if (!t) continue;
    cr_expect_str_eq(str(x, "viaActionId"), str(t, "viaActionId"), "transition %s's action", str(x, "transitionId"));
    cr_expect_str_eq(str(at(x, "target"), "name"), str(at(t, "target"), "name"), "transition %s's target",
                     str(x, "transitionId"));
  }
  cJSON_ArrayForEach(x, at(cf, "actions")) /* self-loops: the package counts them, by state */
    cr_expect(pkg_state(pkg, str(x, "stateId")) && str(x, "viaActionId") && str(at(x, "target"), "name"),
              "%s %s: an action in state %s of the package, with its control", str(ep, "method"), str(ep, "template"),
              str(x, "stateId"));
}

/* ep was called by a transition, or an action that stayed in its state,
 * whose target is named name. */
static int called_by(const cJSON *ep, const char *name) {
  const cJSON *x;
  const char *lists[] = {"transitions", "actions"};
  for (int i = 0; i < 2; i++)
    cJSON_ArrayForEach(x, at(at(ep, "calledFrom"), lists[i]))
      if (str(at(x, "target"), "name") && !strcmp(str(at(x, "target"), "name"), name)) return 1;
  return 0;
}

/* An action of the package cites endpoint id as network evidence with a
 * note that starts with note. */
static int pkg_action_cites(const cJSON *pkg, const char *id, const char *note) {
  const cJSON *a, *ev;
  cJSON_ArrayForEach(a, at(at(pkg, "actionCatalog"), "actions")) cJSON_ArrayForEach(ev, at(a, "discoveredBy"))
    if (!strcmp(str(ev, "source") ? str(ev, "source") : "", "network") && id && str(ev, "refId") &&
        !strcmp(str(ev, "refId"), id) && str(ev, "note") && !strncmp(str(ev, "note"), note, strlen(note)))
      return 1;
  return 0;
}

/* The stopped write of method and template sent by the control named name. */
static const cJSON *stopped_write(const cJSON *api, const char *method, const char *tpl, const char *name) {
  const cJSON *w;
  cJSON_ArrayForEach(w, at(api, "stoppedWrites"))
    if (!strcmp(str(w, "method") ? str(w, "method") : "", method) && !strcmp(str(w, "template") ? str(w, "template") : "", tpl) &&
        str(at(w, "target"), "name") && !strcmp(str(at(w, "target"), "name"), name))
      return w;
  return NULL;
}

/* api.openapi.json validates as OpenAPI 3.1 and requests.har as HAR 1.2
 * (tests/support/validate_api.mjs with the schemas kept in the repository). */
static void expect_exports_valid(const char *out) {
  struct stat st;
  int have = stat(UIAP_SRC "/tests/support/node_modules/ajv/package.json", &st) == 0 &&
             stat(UIAP_SRC "/tests/support/node_modules/ajv-formats/package.json", &st) == 0 &&
             system("node --version >/dev/null 2>&1") == 0;
  if (!have) {
    if (t_ci_required()) cr_assert_fail("node or ajv is missing: run npm ci in tests/support (scripts/deps.sh)");
    cr_skip_test("needs node and ajv (npm ci in tests/support)");
  }
  const char *files[][2] = {{"api.openapi.json", "openapi-3.1.schema.json"}, {"requests.har", "har-1.2.schema.json"}};
  for (int i = 0; i < 2; i++) {
    char file[700], schema[512];
    snprintf(file, sizeof file, "%s/%s", out, files[i][0]);
    snprintf(schema, sizeof schema, "%s/tests/fixtures/api-schemas/%s", UIAP_SRC, files[i][1]);
    cr_assert(stat(file, &st) == 0 && st.st_size > 0, "the crawl wrote %s", files[i][0]);
    const char *argv[] = {"/usr/bin/env", "node", UIAP_SRC "/tests/support/validate_api.mjs", schema, file, NULL};
    t_run v = t_run_argv(argv, 60000);
    cr_expect_eq(v.status, 0, "%s validates against %s: %s%s", files[i][0], files[i][1], v.out ? v.out : "",
                 v.err ? v.err : "");
    t_run_free(&v);
  }
}

/* None of the marker values the page sent (in bodies, query values,
 * headers, cookies) is in any file of the crawl's output: api.json, the
 * exports, the journal, the package, the report. */
static void expect_no_marker(const char *out, const char *const *markers) {
  const char *files[] = {"api.json", "api.openapi.json", "requests.har", "journal.jsonl"};
  struct stat st;
  char path[700], found[2048];
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    snprintf(path, sizeof path, "%s/%s", out, files[i]);
    cr_expect(stat(path, &st) == 0, "the crawl wrote %s (the scan covers it)", files[i]);
  }
  cr_expect_eq(t_tree_grep(out, markers, found, sizeof found), 0, "no value the page sent is in the output: %s", found);
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

/* api.json of the pets app: the list, the pet and the adopt endpoint, each
 * once with its template, method and statuses; callers that are states
 * and transitions of the package (the pets' buttons, Refresh); the adopt
 * POST only as a stopped write of "Show card"; no endpoint with an id
 * left in its path. */
static void expect_rest_catalog(const crawl_res *r) {
  cJSON *api = t_json_at(r->out, "api.json"), *pkg = t_json_at(r->out, "package.json");
  cr_assert(api && pkg, "the crawl wrote api.json and package.json");
  const cJSON *list = endpoint_once(api, "GET", "/api/pets");
  cr_expect(has_str(at(list, "queryParams"), "status") && has_str(at(list, "queryParams"), "access_token"),
            "the list's query keys: status and access_token");
  cr_expect(has_num(at(list, "statuses"), 200) && cJSON_GetArraySize(at(list, "statuses")) == 1, "the list: 200 only");
  cr_expect(cJSON_GetArraySize(at(at(list, "calledFrom"), "loads")) > 0, "the list is called by the page's load");
  cr_expect(called_by(list, "Refresh"), "the list is called by the click on Refresh");
  const cJSON *pet = endpoint_once(api, "GET", "/api/pets/{id}");
  cr_expect(has_str(at(pet, "pathParams"), "id") && cJSON_GetArraySize(at(pet, "pathParams")) == 1, "path parameter id");
  cr_expect(has_num(at(pet, "statuses"), 200), "the pet: 200");
  cr_expect(called_by(pet, "Rex") && called_by(pet, "Mia"), "the pet is called by the clicks on Rex and Mia");
  cr_expect_eq(num(at(pet, "guard"), "passed"), num(pet, "count"), "every pet GET went out untouched");
  const cJSON *adopt = endpoint_once(api, "POST", "/api/pets/{petId}/adopt"); /* docs/api.md "Templates": <word>Id */
  cr_expect_eq(cJSON_GetArraySize(at(adopt, "statuses")), 0, "the adopt POST got no status: it was stopped");
  cr_expect(num(at(adopt, "guard"), "stopped") >= 1 && num(at(adopt, "guard"), "passed") == 0 &&
                num(at(adopt, "guard"), "read") == 0, "the adopt POST was only stopped");
  const cJSON *w = stopped_write(api, "POST", "/api/pets/{petId}/adopt", "Show card");
  cr_expect(w, "stoppedWrites lists the adopt POST with its control, Show card");
  cr_expect(w && !strcmp(str(w, "endpointId") ? str(w, "endpointId") : "", str(adopt, "id")), "by the endpoint's id");
  cr_expect(w && pkg_state(pkg, str(w, "stateId")), "in a state of the package");
  cr_expect(!w || !str(w, "transitionId") || pkg_edge(pkg, str(w, "transitionId")),
            "its transition, when named, is one of the package");
  cr_expect(pkg_action_cites(pkg, str(adopt, "id"), "would write: POST /api/pets/{petId}/adopt"),
            "an action of the package cites the write it would have made");
  cr_expect(pkg_action_cites(pkg, str(pet, "id"), "GET /api/pets/{id} 200"), "and the GET a pet's click made");
  /* Badge says nothing: its sealed probe saw the write and denied it */
  const cJSON *badge = endpoint_once(api, "POST", "/api/pets/{petId}/badge");
  cr_expect(num(at(badge, "guard"), "stopped") >= 1 && num(at(badge, "guard"), "passed") == 0 &&
                cJSON_GetArraySize(at(badge, "statuses")) == 0, "the badge POST was only stopped");
  cr_expect(has_str(at(at(badge, "requestBody"), "kinds"), "form"), "its body: a form");
  w = stopped_write(api, "POST", "/api/pets/{petId}/badge", "Badge");
  cr_expect(w && cJSON_IsTrue(at(w, "probed")) && !str(w, "transitionId"),
            "stoppedWrites lists it with its control, Badge, denied by its sealed probe (no transition)");
  cr_expect(pkg_action_cites(pkg, str(badge, "id"), "would write: POST /api/pets/{petId}/badge"),
            "an action of the package cites the write the denied control would have made");
  const cJSON *e;
  cJSON_ArrayForEach(e, at(api, "endpoints")) {
    const char *t = str(e, "template");
    cr_expect(!strstr(t, "/3") && !strstr(t, "/4") && !strstr(t, "/17"), "no id is left in a template: %s", t);
    expect_callers_in_package(e, pkg);
  }
  cJSON_Delete(api);
  cJSON_Delete(pkg);
}

/* The parameter names of an OpenAPI operation in place ("path", "query"),
 * as "a,b," (at most n bytes). */
static void oas_params(const cJSON *op, const char *in, char *out, size_t n) {
  const cJSON *p;
  out[0] = 0;
  cJSON_ArrayForEach(p, at(op, "parameters"))
    if (!strcmp(str(p, "in") ? str(p, "in") : "", in))
      snprintf(out + strlen(out), n - strlen(out), "%s,", str(p, "name") ? str(p, "name") : "?");
}

/* The exports of the pets app as ZAP or Burp would read them: OpenAPI
 * operations with their path and query parameters; HAR entries with the
 * query's names and no value. */
static void expect_rest_exports(const crawl_res *r) {
  cJSON *oas = t_json_at(r->out, "api.openapi.json"), *har = t_json_at(r->out, "requests.har");
  cr_assert(oas && har, "the crawl wrote api.openapi.json and requests.har");
  const cJSON *paths = at(oas, "paths");
  const cJSON *list = at(at(paths, "/api/pets"), "get"), *pet = at(at(paths, "/api/pets/{id}"), "get");
  const cJSON *adopt = at(at(paths, "/api/pets/{petId}/adopt"), "post");
  cr_expect(list && pet && adopt, "OpenAPI: GET /api/pets, GET /api/pets/{id}, POST /api/pets/{petId}/adopt");
  char got[256];
  oas_params(list, "query", got, sizeof got);
  cr_expect_str_eq(got, "access_token,status,", "the list's query parameters");
  oas_params(pet, "path", got, sizeof got);
  cr_expect_str_eq(got, "id,", "the pet's path parameter");
  cr_expect(at(at(pet, "responses"), "200"), "the pet's response 200");
  const cJSON *e;
  int list_entries = 0;
  cJSON_ArrayForEach(e, at(at(har, "log"), "entries")) {
    const char *u = str(at(e, "request"), "url");
    if (u && strstr(u, "/api/pets?")) {
      list_entries++;
      cr_expect(strstr(u, "/api/pets?status=&access_token="), "HAR: the list's URL has its query names, no value: %s", u);
    }
  }
  cr_expect(list_entries >= 1, "HAR: the list's requests are entries");
  cJSON_Delete(oas);
  cJSON_Delete(har);
}

/* The list at load, the pets' GETs with their clicks, the adopt POST (and
 * the badge's, behind a control its probe denied) stopped by the guard with its body's shape and never at the server, no
 * body value anywhere. */
Test(api, rest_requests_are_recorded_with_their_loads_and_clicks, .timeout = 120) {
  crawl_res r;
  crawl(&r, "/api/pets.html", "/api/pets/3/"); /* adopt, badge */

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
  cr_expect_eq(r.hits, 0, "neither the adopt nor the badge POST reached the server: %s", r.wrote);

  cr_expect(strstr(str(q, "url"), "access_token="), "the list's GET carried its token query: %s", str(q, "url"));

  expect_rest_catalog(&r);
  expect_rest_exports(&r);
  const char *const needles[] = {"MARKER-adopt-7f3e9c", "MARKER-owner-7f3e9c", "MARKER-query-7f3e9c",
                                 "MARKER-xtoken-7f3e9c", "MARKER-bearer-7f3e9c", "MARKER-cookie-7f3e9c",
                                 "MARKER-badge-7f3e9c", NULL};
  expect_no_marker(r.out, needles);
  expect_exports_valid(r.out);
  done(&r);
}

/* The app's workers make its requests too (tests/fixtures/api/workers.html):
 * a dedicated worker's GET and a shared worker's GET are in the records of
 * the clicks that asked for them, with their statuses; the shared worker's
 * POST is recorded as a write the guard failed, never reached the server,
 * and its body's marker is in no output. */
Test(api, worker_requests_are_recorded, .timeout = 120) {
  crawl_res r;
  crawl(&r, "/api/workers.html", "/api/pets/17/adopt");
  static const char *const gets[] = {"/api/pets?from=worker", "/api/pets/4?from=shared"};
  for (size_t i = 0; i < 2; i++) {
    const cJSON *rec = NULL, *q = find_req(&r, "GET", gets[i], &rec);
    cr_expect(q, "the worker's GET %s is recorded", gets[i]);
    if (!q) continue;
    cr_expect_eq(num(q, "status"), 200, "%s: its status, 200", gets[i]);
    cr_expect_str_eq(str(q, "guard"), "passed", "%s: the guard let it pass", gets[i]);
    cr_expect(str(rec, "transitionId") || cJSON_IsTrue(cJSON_GetObjectItem(rec, "probed")),
              "%s: in the record of the click that asked for it", gets[i]);
  }
  const cJSON *post = find_req(&r, "POST", "/api/pets/17/adopt", NULL);
  cr_expect(post, "the shared worker's POST is recorded");
  cr_expect(post && str(post, "guard") && !strcmp(str(post, "guard"), "write"), "as a write the guard failed");
  cr_expect_eq(r.hits, 0, "the worker's POST never reached the server: %s", r.wrote);
  const char *const needles[] = {"MARKER-worker-7f3e9c", NULL};
  expect_no_marker(r.out, needles);
  done(&r);
}

/* 1 when ep's GraphQL operations hold one of type (and name, when not NULL). */
static int has_op(const cJSON *ep, const char *type, const char *name) {
  const cJSON *op;
  cJSON_ArrayForEach(op, at(at(ep, "graphql"), "operations"))
    if (!strcmp(str(op, "type") ? str(op, "type") : "", type) &&
        (!name || !strcmp(str(op, "name") ? str(op, "name") : "", name)))
      return 1;
  return 0;
}

/* api.json of the GraphQL app: the queries' endpoint names the query Feed
 * and no mutation; the mutation MarkSeen appears only on its own endpoint,
 * which was only stopped, and as the stopped write of "Show details". */
static void expect_graphql_catalog(const crawl_res *r) {
  cJSON *api = t_json_at(r->out, "api.json");
  cr_assert(api, "the crawl wrote api.json");
  const cJSON *q = endpoint_once(api, "POST", "/__test/echo");
  cr_expect_str_eq(str(q, "kind"), "graphql", "the queries' endpoint is GraphQL");
  cr_expect(has_op(q, "query", "Feed"), "it names the query Feed");
  cr_expect(!has_op(q, "mutation", NULL), "and no mutation");
  cr_expect(num(at(q, "guard"), "read") >= 1 && has_num(at(q, "statuses"), 200), "let through as a read, 200");
  const cJSON *m = endpoint_once(api, "POST", "/danger/graphql");
  cr_expect(has_op(m, "mutation", "MarkSeen") && cJSON_GetArraySize(at(at(m, "graphql"), "operations")) == 1,
            "the mutation's endpoint names MarkSeen alone");
  cr_expect(num(at(m, "guard"), "stopped") >= 1 && num(at(m, "guard"), "passed") == 0 && num(at(m, "guard"), "read") == 0,
            "the mutation was only stopped");
  cr_expect_eq(cJSON_GetArraySize(at(m, "statuses")), 0, "no status came back for it");
  const cJSON *e;
  cJSON_ArrayForEach(e, at(api, "endpoints"))
    cr_expect(e == m || !has_op(e, "mutation", "MarkSeen"), "MarkSeen appears on no other endpoint (%s)", str(e, "template"));
  const cJSON *w = stopped_write(api, "POST", "/danger/graphql", "Show details");
  cr_expect(w, "stoppedWrites lists the mutation with its control, Show details");
  cr_expect(w && str(w, "why") && strstr(str(w, "why"), "MarkSeen"), "and why: %s", w && str(w, "why") ? str(w, "why") : "none");
  cJSON_Delete(api);
}

/* The GraphQL app: the query at load is let through as a read and named
 * by operation; the mutation behind "Show details" is failed as a write
 * and named too. */
Test(api, graphql_operations_are_recorded_by_type_and_name, .timeout = 120) {
  crawl_res r;
  crawl(&r, "/safety/graphql.html", "/danger/graphql");
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

  expect_graphql_catalog(&r);
  cr_expect_eq(r.hits, 0, "the mutation never reached the server: %s", r.wrote);
  const char *const needles[] = {"MARKER-xtoken-5d1a", "MARKER-cookie-5d1a", "MARKER-variable-5d1a", NULL};
  expect_no_marker(r.out, needles);
  expect_exports_valid(r.out);
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
    int adopt_ep = str(ep, "template") && !strcmp(str(ep, "template"), "/api/pets/{petId}/adopt") &&
                   !strcmp(str(ep, "method"), "POST");
    if (kind && !strcmp(kind, "submission.started")) started += adopt_ep;
    if (kind && !strcmp(kind, "submission.finished") && adopt_ep) {
      finished++;
      snprintf(level, sizeof level, "%s", str(sg, "level") ? str(sg, "level") : "");
    }
    cJSON_Delete(m);
    line = nl ? nl + 1 : NULL;
  }
  cr_expect_eq(started, 1, "one submission.started names POST /api/pets/{petId}/adopt:\n%s", r.out);
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

/* The statuses principal got from ep (api.json's principals), or NULL. */
static const cJSON *statuses_of(const cJSON *ep, const char *principal) {
  const cJSON *p;
  cJSON_ArrayForEach(p, at(ep, "principals"))
    if (!strcmp(str(p, "principal") ? str(p, "principal") : "", principal)) return at(p, "statuses");
  return NULL;
}

/* The entry of list (accessDifferences, access.json's endpoints) for GET
 * template, or NULL. */
static const cJSON *difference(const cJSON *list, const char *tpl) {
  const cJSON *d;
  cJSON_ArrayForEach(d, list)
    if (!strcmp(str(d, "template") ? str(d, "template") : "", tpl) && !strcmp(str(d, "method") ? str(d, "method") : "", "GET"))
      return d;
  return NULL;
}

/* api.json of the two principals' crawl: the stats endpoint names both,
 * 200 for the owner, 403 for the reader, and is an access difference in
 * api.json and in access.json; the page itself, served to both, is none. */
static void expect_access_catalog(const crawl_res *r) {
  cJSON *api = t_json_at(r->out, "api.json"), *access = t_json_at(r->out, "access.json");
  cr_assert(api && access, "the crawl wrote api.json and access.json");
  const cJSON *ep = endpoint_once(api, "GET", "/auth/app/api/stats");
  const cJSON *own = statuses_of(ep, "owner"), *rd = statuses_of(ep, "reader");
  cr_expect(own && has_num(own, 200) && !has_num(own, 403), "api.json: the owner got 200");
  cr_expect(rd && has_num(rd, 403) && !has_num(rd, 200), "api.json: the reader got 403");
  const char *tpl = "/auth/app/api/stats";
  const cJSON *lists[] = {at(api, "accessDifferences"), at(access, "endpoints")};
  const char *names[] = {"api.json's accessDifferences", "access.json's endpoints"};
  for (int i = 0; i < 2; i++) {
    const cJSON *d = difference(lists[i], tpl);
    cr_expect(d, "%s lists GET %s", names[i], tpl);
    cr_expect(d && !strcmp(str(d, "endpointId") ? str(d, "endpointId") : "", str(ep, "id")), "%s: by its id", names[i]);
    const cJSON *p;
    int seen = 0;
    cJSON_ArrayForEach(p, at(d, "principals")) {
      const char *who = str(p, "principal") ? str(p, "principal") : "";
      seen += (!strcmp(who, "owner") && has_num(at(p, "statuses"), 200)) || (!strcmp(who, "reader") && has_num(at(p, "statuses"), 403));
    }
    cr_expect_eq(seen, 2, "%s: the owner's 200 and the reader's 403", names[i]);
    cr_expect(!difference(lists[i], "/auth/app/stats"), "%s: the page served to both is no difference", names[i]);
  }
  cJSON_Delete(api);
  cJSON_Delete(access);
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
  expect_access_catalog(&r);
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
  cr_expect(strstr(card, "{\"method\":\"POST\",\"template\":\"/api/pets/{petId}/adopt\",\"guard\":\"write\"}"),
            "the click on Show card made a POST the guard failed:\n%s", card);
  cr_expect(!strstr(card, "MARKER"), "no body value in the result");
  cJSON_Delete(out);
  t_run_free(&r);
}

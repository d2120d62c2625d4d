/* crawler_api_export.c -- the API exports (crawler/package/api_*.c, issue 28):
 * OUT/api.openapi.json built from a hand-written OUT/api.json (format B) and
 * OUT/requests.har from hand-written `requests` records (format A) import as
 * what they claim to be -- ajv validates them against the official OpenAPI
 * 3.1 schema and a HAR 1.2 schema (tests/fixtures/api-schemas, run by
 * tests/support/validate_api.mjs) -- say what a user looks for (paths in
 * {param} form, statuses, body schemas, where a request came from), and
 * never carry a query value, a body value, a header value, a cookie or a
 * password, however the inputs slip one in (MARK* values below). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api_export_int.h"
#include "crawl_util.h"
#include "support.h"

#define O1 "http://127.0.0.1:4000"
#define O2 "http://127.0.0.1:4001"
#define CALLED "\"calledFrom\":{\"loads\":[\"st_1\"],\"states\":[\"st_2\"],\"routes\":[\"/pets/:param\"]," \
               "\"transitions\":[{\"transitionId\":\"tr_1\",\"viaActionId\":\"click\"}]}"

/* Format B: GET /api/pets/{id} (200, 404) on O1 and DELETE of it on O2,
 * POST /graphql with a query and a mutation, a stopped POST /api/pets with
 * a JSON body shape, GET /api/stats on O2 only, and an asset. */
static const char *api_b =
  "{\"apiVersion\":1,\"runId\":\"run_7f3a\",\"generatedAt\":\"2026-12-01T09:40:00.000Z\","
  "\"origins\":[\"" O1 "\",\"" O2 "\"],\"endpoints\":["
  "{\"id\":\"ep_0000aaaa\",\"method\":\"GET\",\"origin\":\"" O1 "\",\"template\":\"/api/pets/{id}\","
  " \"pathParams\":[\"id\"],\"queryParams\":[\"status\",\"sort\"],\"kind\":\"api\",\"statuses\":[404,200],"
  " \"contentTypes\":[\"application/json\"],\"count\":3,\"examples\":[\"/api/pets/3?status=MARKQ1\"]," CALLED ","
  " \"principals\":[{\"principal\":\"owner\",\"statuses\":[200]},{\"principal\":\"viewer\",\"statuses\":[404]}],"
  " \"guard\":{\"passed\":3,\"read\":0,\"stopped\":0}},"
  "{\"id\":\"ep_0000eeee\",\"method\":\"DELETE\",\"origin\":\"" O2 "\",\"template\":\"/api/pets/{id}\","
  " \"pathParams\":[\"id\"],\"kind\":\"api\",\"statuses\":[],\"count\":1,\"guard\":{\"passed\":0,\"read\":0,\"stopped\":1}},"
  "{\"id\":\"ep_0000bbbb\",\"method\":\"POST\",\"origin\":\"" O1 "\",\"template\":\"/graphql\",\"kind\":\"graphql\","
  " \"graphql\":{\"operations\":[{\"type\":\"query\",\"name\":\"Pets\"},{\"type\":\"mutation\",\"name\":\"AddPet\"}]},"
  " \"requestBody\":{\"kinds\":[\"graphql\"]},\"statuses\":[200],\"contentTypes\":[\"application/json\"],\"count\":2,"
  " \"examples\":[\"/graphql\"]," CALLED ",\"guard\":{\"passed\":0,\"read\":1,\"stopped\":1}},"
  "{\"id\":\"ep_0000cccc\",\"method\":\"POST\",\"origin\":\"" O1 "\",\"template\":\"/api/pets\",\"kind\":\"api\","
  " \"requestBody\":{\"kinds\":[\"json\"],\"shape\":{\"name\":\"string\",\"age\":\"number\",\"tags\":[\"string\"],"
  "  \"owner\":{\"id\":\"number\"},\"leak\":\"MARKBODY2\"}},\"statuses\":[],\"contentTypes\":[],\"count\":1,"
  " \"examples\":[\"/api/pets?token=MARKQ5\"],\"guard\":{\"passed\":0,\"read\":0,\"stopped\":1}},"
  "{\"id\":\"ep_0000ffff\",\"method\":\"GET\",\"origin\":\"" O2 "\",\"template\":\"/api/stats\",\"kind\":\"api\","
  " \"statuses\":[200],\"contentTypes\":[\"application/json\"],\"count\":1,\"guard\":{\"passed\":1,\"read\":0,\"stopped\":0}},"
  "{\"id\":\"ep_0000dddd\",\"method\":\"GET\",\"origin\":\"" O1 "\",\"template\":\"/app.js\",\"kind\":\"asset\","
  " \"statuses\":[200],\"count\":1}],"
  "\"stoppedWrites\":[{\"endpointId\":\"ep_0000cccc\",\"method\":\"POST\",\"template\":\"/api/pets\",\"why\":\"a write\","
  " \"stateId\":\"st_2\",\"actionId\":\"submit\",\"probed\":true}],\"assets\":1}";

/* Format A: a load, an action (a GraphQL query let through, a mutation
 * stopped, a 404), a sealed probe without "at" (a stopped JSON write, a
 * form read, a multipart upload), and a record of another type. */
static const char *records_a[] = {
  "{\"type\":\"requests\",\"at\":\"2026-12-01T09:37:37.500Z\",\"phase\":\"load\",\"stateId\":\"st_1\","
  " \"url\":\"" O1 "/#/pets?tab=MARKQ2\",\"offOrigin\":3,\"requests\":["
  " {\"method\":\"GET\",\"url\":\"" O1 "/\",\"resourceType\":\"Document\",\"status\":200,\"mimeType\":\"text/html\","
  "  \"size\":900,\"startMs\":0,\"ms\":20,\"initiator\":\"load\",\"guard\":\"passed\"},"
  " {\"method\":\"GET\",\"url\":\"" O1 "/app.js\",\"resourceType\":\"Script\",\"status\":200,"
  "  \"mimeType\":\"text/javascript\",\"size\":5000,\"startMs\":22,\"ms\":5,\"initiator\":\"load\",\"guard\":\"passed\"},"
  " {\"method\":\"GET\",\"url\":\"" O1 "/api/pets/3?status=MARKQ1&sort=MARKQ3#MARKFRAG\",\"resourceType\":\"Fetch\","
  "  \"status\":200,\"mimeType\":\"application/json\",\"size\":120,\"startMs\":30,\"ms\":12,\"initiator\":\"load\","
  "  \"guard\":\"passed\",\"headers\":[{\"name\":\"Cookie\",\"value\":\"sid=MARKCOOKIE\"}],"
  "  \"cookies\":[{\"name\":\"sid\",\"value\":\"MARKCOOKIE2\"}]}]}",
  "{\"type\":\"requests\",\"at\":\"2026-12-01T09:37:38.000Z\",\"phase\":\"load\",\"stateId\":\"st_3\","
  " \"url\":\"" O1 "/callback#access_token=MARKTOKEN\",\"requests\":[]}",
  "{\"type\":\"state\",\"stateId\":\"st_2\",\"url\":\"" O1 "/?q=MARKQ6\"}",
  "{\"type\":\"requests\",\"at\":\"2026-12-01T09:37:40.000+01:00\",\"phase\":\"action\",\"stateId\":\"st_2\","
  " \"transitionId\":\"tr_1\",\"actionId\":\"click\",\"target\":{\"role\":\"button\",\"name\":\"Add\"},"
  " \"principal\":\"owner\",\"requests\":["
  " {\"method\":\"POST\",\"url\":\"" O1 "/graphql\",\"resourceType\":\"Fetch\",\"status\":200,"
  "  \"mimeType\":\"application/json\",\"size\":80,\"startMs\":3,\"ms\":9,\"initiator\":\"action\",\"guard\":\"read\","
  "  \"guardWhy\":\"a GraphQL query\",\"body\":{\"kind\":\"graphql\",\"operations\":[{\"type\":\"query\",\"name\":\"Pets\"}],"
  "  \"text\":\"query Pets { MARKBODY3 }\"}},"
  " {\"method\":\"POST\",\"url\":\"http://user:MARKPASS@127.0.0.1:4000/graphql\",\"resourceType\":\"Fetch\","
  "  \"startMs\":15,\"ms\":1,\"initiator\":\"action\",\"guard\":\"write\",\"guardWhy\":\"a GraphQL mutation\","
  "  \"body\":{\"kind\":\"graphql\",\"operations\":[{\"type\":\"mutation\",\"name\":\"AddPet\"}]}},"
  " {\"method\":\"GET\",\"url\":\"" O1 "/api/pets/404?status=MARKQ4\",\"resourceType\":\"XHR\",\"status\":404,"
  "  \"mimeType\":\"application/json\",\"size\":20,\"startMs\":20,\"ms\":30,\"initiator\":\"action\",\"guard\":\"passed\"}]}",
  "{\"type\":\"requests\",\"phase\":\"action\",\"stateId\":\"st_2\",\"actionId\":\"submit\",\"probed\":true,"
  " \"target\":{\"role\":\"button\",\"name\":\"Save\"},\"requests\":["
  " {\"method\":\"POST\",\"url\":\"" O1 "/api/pets\",\"resourceType\":\"XHR\",\"startMs\":2,\"ms\":0,"
  "  \"initiator\":\"action\",\"guard\":\"write\",\"guardWhy\":\"a write\",\"body\":{\"kind\":\"json\",\"shape\":{"
  "  \"name\":\"string\",\"age\":\"number\",\"tags\":[\"string\"],\"owner\":{\"id\":\"number\"},\"leak\":\"MARKBODY\"}}},"
  " {\"method\":\"POST\",\"url\":\"" O1 "/search\",\"resourceType\":\"Fetch\",\"status\":200,\"startMs\":5,\"ms\":3,"
  "  \"initiator\":\"action\",\"guard\":\"read\",\"body\":{\"kind\":\"form\",\"shape\":{\"q\":\"string\"}}},"
  " {\"method\":\"POST\",\"url\":\"" O1 "/upload\",\"resourceType\":\"Fetch\",\"startMs\":9,\"ms\":0,"
  "  \"initiator\":\"action\",\"guard\":\"write\","
  "  \"body\":{\"kind\":\"other\",\"contentType\":\"multipart/form-data; boundary=MARKBOUNDARY\"}}]}",
};
#define NREC ((int)(sizeof records_a / sizeof *records_a))
#define RUN_START "2026-12-01T09:37:30.000Z"

/* Every value the inputs hold that must never reach an export. */
static const char *const markers[] = {"MARKQ1", "MARKQ2", "MARKQ3", "MARKQ4", "MARKQ5", "MARKQ6", "MARKFRAG", "MARKTOKEN",
                                      "MARKCOOKIE", "MARKPASS", "MARKBODY", "MARKBOUNDARY", NULL};

typedef struct {
  char *dir;
  cJSON *api, *recs[NREC];
  cJSON *oas, *har; /* the written files, parsed */
} fx;

static void fx_write(fx *f) {
  f->dir = t_tmpdir();
  f->api = cJSON_Parse(api_b);
  cr_assert(f->api, "format B input parses");
  for (int i = 0; i < NREC; i++) cr_assert((f->recs[i] = cJSON_Parse(records_a[i])), "record %d parses", i);
  int rc = crawl__api_exports_write(f->dir, f->api, (const cJSON *const *)f->recs, NREC, "run_7f3a", RUN_START);
  cr_assert_eq(rc, 0, "the exports are written (errno %d)", rc);
  f->oas = t_json_at(f->dir, "api.openapi.json");
  f->har = t_json_at(f->dir, "requests.har");
  cr_assert(f->oas && f->har, "both files are written and parse as JSON");
}

static void fx_free(fx *f) {
  cJSON_Delete(f->api);
  for (int i = 0; i < NREC; i++) cJSON_Delete(f->recs[i]);
  cJSON_Delete(f->oas);
  cJSON_Delete(f->har);
  t_rm_rf(f->dir);
  free(f->dir);
}

/* ---- ajv: tests/support/validate_api.mjs -------------------------------------- */
/* 1 when node and the pinned ajv are there; otherwise the test fails under
 * CI=true and is skipped elsewhere. */
static void need_ajv(void) {
  struct stat st;
  int have = stat(UIAP_SRC "/tests/support/node_modules/ajv/package.json", &st) == 0 &&
             stat(UIAP_SRC "/tests/support/node_modules/ajv-formats/package.json", &st) == 0 &&
             system("node --version >/dev/null 2>&1") == 0;
  if (have) return;
  if (t_ci_required()) cr_assert_fail("node or ajv is missing: run npm ci in tests/support (scripts/deps.sh)");
  cr_skip_test("needs node and ajv (npm ci in tests/support)");
}

/* validate_api.mjs's exit code for file against schema (a file name in
 * tests/fixtures/api-schemas); its output into msg. */
static int ajv_check(const char *schema, const char *file, char *msg, size_t msglen) {
  char sp[512];
  snprintf(sp, sizeof sp, "%s/tests/fixtures/api-schemas/%s", UIAP_SRC, schema);
  const char *argv[] = {"/usr/bin/env", "node", UIAP_SRC "/tests/support/validate_api.mjs", sp, file, NULL};
  t_run r = t_run_argv(argv, 60000);
  int rc = r.status;
  snprintf(msg, msglen, "%s%s", r.out ? r.out : "", r.err ? r.err : "");
  t_run_free(&r);
  return rc;
}

static void expect_valid(const char *dir, const char *name, const char *schema) {
  char path[600], msg[8192];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  cr_expect_eq(ajv_check(schema, path, msg, sizeof msg), 0, "%s validates against %s: %s", name, schema, msg);
}

/* doc (edited) written to dir/name must fail validation: the check can fail. */
static void expect_invalid(const char *dir, const char *name, const cJSON *doc, const char *schema) {
  char path[600], msg[8192];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *text = cJSON_Print(doc);
  cr_assert_eq(t_write_file(path, text), 0);
  free(text);
  cr_expect_eq(ajv_check(schema, path, msg, sizeof msg), 1, "a broken %s is rejected: %s", name, msg);
}

/* ---- small readers ---------------------------------------------------------------- */
static const cJSON *at(const cJSON *o, const char *k) { return o ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL; }
static const char *s_at(const cJSON *o, const char *k) {
  const cJSON *x = at(o, k);
  return cJSON_IsString(x) ? x->valuestring : "(none)";
}
static const cJSON *op_of(const cJSON *oas, const char *path, const char *method) {
  return at(at(at(oas, "paths"), path), method);
}
/* The parameter named name in in of op, or NULL. */
static const cJSON *param(const cJSON *op, const char *name, const char *in) {
  const cJSON *p;
  cJSON_ArrayForEach(p, at(op, "parameters")) if (!strcmp(s_at(p, "name"), name) && !strcmp(s_at(p, "in"), in)) return p;
  return NULL;
}
/* The servers' urls of o, joined by spaces ("" when none). */
static const char *servers(const cJSON *o, char *buf, size_t n) {
  buf[0] = 0;
  const cJSON *s;
  cJSON_ArrayForEach(s, at(o, "servers")) snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? " " : "", s_at(s, "url"));
  return buf;
}
static const cJSON *entry(const cJSON *har, int i) { return cJSON_GetArrayItem(at(at(har, "log"), "entries"), i); }

/* ---- tests ------------------------------------------------------------------------ */
Test(api_export, openapi_validates_and_lists_the_endpoints, .timeout = 120) {
  need_ajv();
  fx f = {0};
  fx_write(&f);
  expect_valid(f.dir, "api.openapi.json", "openapi-3.1.schema.json");
  const cJSON *oas = f.oas;
  cr_expect_str_eq(s_at(oas, "openapi"), "3.1.0");
  cr_expect(strstr(s_at(at(oas, "info"), "title"), O1) && strstr(s_at(at(oas, "info"), "title"), "as observed by uiap-crawl"),
            "title: %s", s_at(at(oas, "info"), "title"));
  cr_expect_str_eq(s_at(at(oas, "info"), "version"), "run_7f3a");
  char buf[512];
  cr_expect_str_eq(servers(oas, buf, sizeof buf), O1 " " O2);
  cr_expect_eq(cJSON_GetArraySize(at(oas, "paths")), 4, "four paths: the asset is not one");
  cr_expect_null(at(at(oas, "paths"), "/app.js"));

  /* GET /api/pets/{id}: path and query parameters, 200 and 404 */
  const cJSON *get = op_of(oas, "/api/pets/{id}", "get");
  cr_assert(get, "GET /api/pets/{id} is an operation");
  cr_expect_str_eq(s_at(get, "operationId"), "ep_0000aaaa");
  const cJSON *id = param(get, "id", "path");
  cr_expect(id && cJSON_IsTrue(at(id, "required")), "{id} is a required path parameter");
  cr_expect_str_eq(s_at(at(id, "schema"), "type"), "string");
  cr_expect(param(get, "status", "query") && param(get, "sort", "query"), "the query names are parameters");
  const cJSON *resp = at(get, "responses");
  cr_expect_eq(cJSON_GetArraySize(resp), 2);
  cr_expect_str_eq(resp->child->string, "200", "statuses in order");
  cr_expect(at(at(at(resp, "404"), "content"), "application/json"), "404 lists the content type");
  cr_expect_str_eq(s_at(at(resp, "200"), "description"), "observed");
  cr_expect_eq(cJSON_GetArraySize(at(get, "x-uiap-principals")), 2);
  const cJSON *st = cJSON_GetArrayItem(at(at(get, "x-uiap-calledFrom"), "states"), 0);
  cr_expect(cJSON_IsString(st) && !strcmp(st->valuestring, "st_2"), "the states it was called from");
  const cJSON *tr = cJSON_GetArrayItem(at(at(get, "x-uiap-calledFrom"), "transitions"), 0);
  cr_expect(cJSON_IsString(tr) && !strcmp(tr->valuestring, "tr_1"), "the transition id, not its target");

  /* two origins share the path: each operation names its own server */
  cr_expect_str_eq(servers(at(at(oas, "paths"), "/api/pets/{id}"), buf, sizeof buf), "", "the path is on both origins");
  cr_expect_str_eq(servers(get, buf, sizeof buf), O1);
  cr_expect_str_eq(servers(op_of(oas, "/api/pets/{id}", "delete"), buf, sizeof buf), O2);
  cr_expect_str_eq(servers(at(at(oas, "paths"), "/api/stats"), buf, sizeof buf), O2, "a path on one origin only");

  /* POST /graphql: a JSON body, the query and the mutation */
  const cJSON *gql = op_of(oas, "/graphql", "post");
  cr_assert(gql);
  cr_expect(at(at(at(gql, "requestBody"), "content"), "application/json"));
  const cJSON *ops = at(gql, "x-uiap-graphql");
  cr_expect_eq(cJSON_GetArraySize(ops), 2);
  cr_expect_str_eq(s_at(cJSON_GetArrayItem(ops, 1), "type"), "mutation");
  cr_expect_str_eq(s_at(cJSON_GetArrayItem(ops, 1), "name"), "AddPet");

  /* the stopped write: its body shape as a schema, no response */
  const cJSON *post = op_of(oas, "/api/pets", "post");
  cr_assert(post);
  const cJSON *schema = at(at(at(at(post, "requestBody"), "content"), "application/json"), "schema");
  cr_expect_str_eq(s_at(schema, "type"), "object");
  const cJSON *props = at(schema, "properties");
  cr_expect_str_eq(s_at(at(props, "name"), "type"), "string");
  cr_expect_str_eq(s_at(at(props, "age"), "type"), "number");
  cr_expect_str_eq(s_at(at(props, "tags"), "type"), "array");
  cr_expect_str_eq(s_at(at(at(props, "tags"), "items"), "type"), "string");
  cr_expect_str_eq(s_at(at(at(at(props, "owner"), "properties"), "id"), "type"), "number");
  cr_expect_eq(cJSON_GetArraySize(at(props, "leak")), 0, "a leaf that is no type word is an empty schema");
  cr_expect(at(at(post, "responses"), "default"), "no status seen: a default response");
  cr_expect_eq(at(at(post, "x-uiap-guard"), "stopped")->valueint, 1);

  /* the check can fail: a response without its description is rejected */
  cJSON *broken = cJSON_Duplicate(oas, 1);
  cJSON *r200 = cJSON_GetObjectItemCaseSensitive(at(op_of(broken, "/api/pets/{id}", "get"), "responses"), "200");
  cJSON_DeleteItemFromObjectCaseSensitive(r200, "description");
  expect_invalid(f.dir, "broken.openapi.json", broken, "openapi-3.1.schema.json");
  cJSON_Delete(broken);
  fx_free(&f);
}

Test(api_export, har_validates_one_entry_per_request, .timeout = 120) {
  need_ajv();
  fx f = {0};
  fx_write(&f);
  expect_valid(f.dir, "requests.har", "har-1.2.schema.json");
  const cJSON *log = at(f.har, "log");
  cr_expect_str_eq(s_at(log, "version"), "1.2");
  cr_expect_str_eq(s_at(at(log, "creator"), "name"), "uiap-crawl");
  cr_expect_eq(cJSON_GetArraySize(at(log, "entries")), 9, "one entry per request, the state record skipped");
  cr_expect_eq(at(at(log, "_uiap"), "offOrigin")->valueint, 3);
  cr_expect_str_eq(s_at(at(log, "_uiap"), "runId"), "run_7f3a");
  const cJSON *page = cJSON_GetArrayItem(at(log, "pages"), 0);
  cr_expect_str_eq(s_at(page, "title"), O1 "/#/pets", "the load's URL keeps its hash route, not its query");
  cr_expect_str_eq(s_at(cJSON_GetArrayItem(at(log, "pages"), 1), "title"), O1 "/callback", "a fragment that is no route goes");

  /* the load: phase start = at - the end of its last request (42 ms) */
  const cJSON *e0 = entry(f.har, 0), *e2 = entry(f.har, 2);
  cr_expect_str_eq(s_at(e0, "startedDateTime"), "2026-12-01T09:37:37.458Z");
  cr_expect_str_eq(s_at(e2, "startedDateTime"), "2026-12-01T09:37:37.488Z");
  cr_expect_str_eq(s_at(e0, "pageref"), "load_1");
  cr_expect_eq(at(e2, "time")->valueint, 12);
  cr_expect_eq(at(at(e2, "timings"), "wait")->valueint, 12);
  const cJSON *req = at(e2, "request");
  cr_expect_str_eq(s_at(req, "url"), O1 "/api/pets/3?status=&sort=", "query names stay, values go");
  const cJSON *qs = at(req, "queryString");
  cr_expect_eq(cJSON_GetArraySize(qs), 2);
  cr_expect_str_eq(s_at(cJSON_GetArrayItem(qs, 1), "name"), "sort");
  cr_expect_str_eq(s_at(cJSON_GetArrayItem(qs, 1), "value"), "");
  cr_expect_eq(cJSON_GetArraySize(at(req, "headers")) + cJSON_GetArraySize(at(req, "cookies")), 0);
  cr_expect_str_eq(s_at(at(at(e2, "response"), "content"), "mimeType"), "application/json");
  cr_expect_eq(at(at(at(e2, "response"), "content"), "size")->valueint, 120);

  /* the action: a +01:00 time, a stopped mutation (no status), its origin */
  const cJSON *mut = entry(f.har, 4);
  cr_expect_str_eq(s_at(mut, "startedDateTime"), "2026-12-01T08:37:39.965Z");
  cr_expect_str_eq(s_at(at(mut, "request"), "url"), O1 "/graphql", "no userinfo");
  cr_expect_eq(at(at(mut, "response"), "status")->valueint, 0);
  const cJSON *pd = at(at(mut, "request"), "postData");
  cr_expect_str_eq(s_at(pd, "mimeType"), "application/json");
  cr_expect_str_eq(s_at(pd, "text"), "");
  const cJSON *u = at(mut, "_uiap");
  cr_expect_str_eq(s_at(u, "guard"), "write");
  cr_expect_str_eq(s_at(u, "transitionId"), "tr_1");
  cr_expect_str_eq(s_at(u, "stateId"), "st_2");
  cr_expect_str_eq(s_at(u, "actionId"), "click");
  cr_expect_str_eq(s_at(u, "principal"), "owner");
  cr_expect_str_eq(s_at(cJSON_GetArrayItem(at(at(u, "body"), "operations"), 0), "name"), "AddPet");

  /* the probe without "at": the run's start; shapes by type only */
  const cJSON *write = entry(f.har, 6);
  cr_expect_str_eq(s_at(write, "startedDateTime"), "2026-12-01T09:37:30.002Z");
  cr_expect(cJSON_IsTrue(at(at(write, "_uiap"), "probed")));
  const cJSON *shape = at(at(at(write, "_uiap"), "body"), "shape");
  cr_expect_str_eq(s_at(at(shape, "owner"), "id"), "number");
  cr_expect_str_eq(s_at(shape, "leak"), "unknown");
  cr_expect_str_eq(s_at(at(at(entry(f.har, 7), "request"), "postData"), "mimeType"), "application/x-www-form-urlencoded");
  cr_expect_str_eq(s_at(at(at(entry(f.har, 8), "request"), "postData"), "mimeType"), "multipart/form-data");

  /* the check can fail: an entry without its time is rejected */
  cJSON *broken = cJSON_Duplicate(f.har, 1);
  cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetArrayItem(at(at(broken, "log"), "entries"), 0), "time");
  expect_invalid(f.dir, "broken.har", broken, "har-1.2.schema.json");
  cJSON_Delete(broken);
  fx_free(&f);
}

Test(api_export, no_value_reaches_either_file) {
  fx f = {0};
  fx_write(&f);
  char found[2048];
  int n = t_tree_grep(f.dir, markers, found, sizeof found);
  cr_expect_eq(n, 0, "values in the exports: %s", found);
  /* and the markers were there to be found: the inputs hold them */
  char *in = cJSON_PrintUnformatted(f.api);
  cr_expect(strstr(in, "MARKQ1") && strstr(in, "MARKBODY2"));
  free(in);
  fx_free(&f);
}

Test(api_export, empty_inputs_still_import, .timeout = 120) {
  need_ajv();
  char *dir = t_tmpdir();
  cJSON *api = cJSON_Parse("{\"apiVersion\":1,\"runId\":\"r\",\"origins\":[],\"endpoints\":[],\"assets\":0}");
  cr_assert_eq(crawl__api_exports_write(dir, api, NULL, 0, NULL, NULL), 0);
  expect_valid(dir, "api.openapi.json", "openapi-3.1.schema.json");
  expect_valid(dir, "requests.har", "har-1.2.schema.json");
  cJSON_Delete(api);
  t_rm_rf(dir);
  free(dir);
}

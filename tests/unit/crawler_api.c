/* crawler_api.c -- the endpoint catalog (OUT/api.json, docs/api.md) the
 * package build makes from the journal's `requests` records: templates,
 * callers, principals, stopped writes, access differences, the network
 * citations in package.json, the report's API section and `diff`.
 *
 * The journal is tests/fixtures/journals/normal's with the records of
 * tests/fixtures/journals/api-requests.jsonl before its end record (or
 * records written here): a load of s1 (a document, a script, /api/pets with
 * a token in its query, /api/pets/3), t1 (pets 4 and 17, alice's posts, a
 * beacon while idle), t3 (bob's and carol's posts, a GraphQL query), t4 (a
 * self-loop: a POST the guard stopped), a sealed probe's stopped DELETE, and
 * /api/admin/stats served to owner and refused to viewer.
 */
#include <criterion/criterion.h>

#include "crawl.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIXTURES UIAP_SRC "/tests/fixtures/journals"

/* ---- helpers ---------------------------------------------------------------- */
/* normal's journal with extra (JSON lines) before its end record. Caller frees. */
static char *journal_with(const char *extra) {
  char *normal = t_read_file(FIXTURES "/normal/journal.jsonl", NULL);
  cr_assert(normal);
  char *end = strstr(normal, "{\"type\":\"end\"");
  cr_assert(end, "normal's journal has an end record");
  size_t head = (size_t)(end - normal), n = strlen(normal) + strlen(extra) + 2;
  char *j = malloc(n);
  snprintf(j, n, "%.*s%s%s", (int)head, normal, extra, end);
  free(normal);
  return j;
}

/* A crawl directory with the fixture's requests, package written. */
static char *api_dir_with(const char *extra) {
  char *j = journal_with(extra), err[512];
  char *dir = t_journal_dir("api", j);
  free(j);
  cr_assert_eq(crawl_package_write(dir, err, sizeof err), CRAWL_OK, "crawl_package_write: %s", err);
  return dir;
}

static char *api_dir(void) {
  char *extra = t_read_file(FIXTURES "/api-requests.jsonl", NULL);
  cr_assert(extra);
  char *dir = api_dir_with(extra);
  free(extra);
  return dir;
}

static cJSON *load(const char *dir, const char *file) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  char *text = t_read_file(path, NULL);
  cr_assert(text, "%s is missing", path);
  cJSON *j = cJSON_Parse(text);
  free(text);
  cr_assert(j, "%s is not JSON", path);
  return j;
}

static const char *s(const cJSON *o, const char *k) { return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k)); }
static const cJSON *g(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

static const cJSON *endpoint(const cJSON *api, const char *method, const char *tpl) {
  const cJSON *e;
  cJSON_ArrayForEach(e, g(api, "endpoints")) if (!strcmp(s(e, "method"), method) && !strcmp(s(e, "template"), tpl)) return e;
  return NULL;
}

static int has_str(const cJSON *arr, const char *v) {
  const cJSON *x;
  cJSON_ArrayForEach(x, arr) if (cJSON_IsString(x) && !strcmp(x->valuestring, v)) return 1;
  return 0;
}

static char *json_text(const cJSON *x) { return cJSON_PrintUnformatted(x); }

/* text with every from replaced by to (caller frees). */
static char *replace_all(const char *text, const char *from, const char *to) {
  size_t n = strlen(text) * 2 + 64, fl = strlen(from);
  char *out = calloc(1, n), *o = out;
  for (const char *p = text; *p;) {
    if (!strncmp(p, from, fl)) { o += sprintf(o, "%s", to); p += fl; }
    else *o++ = *p++;
  }
  return out;
}

/* ---- templates ------------------------------------------------------------------ */
Test(api, ids_in_a_path_make_one_endpoint) {
  char *dir = api_dir();
  cJSON *api = load(dir, "api.json");
  cr_expect_eq(cJSON_GetNumberValue(g(api, "apiVersion")), 1);
  cr_expect_str_eq(s(api, "runId"), "run_normal");
  const cJSON *pets = endpoint(api, "GET", "/api/pets/{id}");
  cr_assert(pets, "/api/pets/3, /4 and /17 are one endpoint");
  cr_expect_eq(cJSON_GetNumberValue(g(pets, "count")), 3);
  char *t = json_text(g(pets, "statuses"));
  cr_expect_str_eq(t, "[200,404]");
  free(t);
  t = json_text(g(pets, "pathParams"));
  cr_expect_str_eq(t, "[\"id\"]");
  free(t);
  cr_expect_eq(cJSON_GetArraySize(g(pets, "examples")), 3);
  cr_expect(has_str(g(pets, "examples"), "/api/pets/17"));
  cr_expect_str_eq(s(pets, "kind"), "api");
  cr_expect(strncmp(s(pets, "id"), "ep_", 3) == 0 && strlen(s(pets, "id")) == 11, "id %s", s(pets, "id"));
  /* each endpoint once, in origin, template, method order */
  const cJSON *e, *prev = NULL;
  cJSON_ArrayForEach(e, g(api, "endpoints")) {
    cr_expect(!strstr(s(e, "template"), "/api/pets/3"), "no endpoint per id: %s", s(e, "template"));
    if (prev) {
      int c = strcmp(s(prev, "template"), s(e, "template"));
      cr_expect(c < 0 || (c == 0 && strcmp(s(prev, "method"), s(e, "method")) < 0), "%s %s listed after %s %s",
                s(e, "method"), s(e, "template"), s(prev, "method"), s(prev, "template"));
    }
    prev = e;
  }
  cr_expect(has_str(g(api, "origins"), "http://127.0.0.1:8000"));
  cJSON_Delete(api);
  t_rm_rf(dir);
  free(dir);
}

Test(api, words_under_one_parent_need_three_values) {
  char *dir = api_dir();
  cJSON *api = load(dir, "api.json");
  const cJSON *posts = endpoint(api, "GET", "/api/users/{user}/posts");
  cr_assert(posts, "alice, bob and carol under /api/users are one parameter");
  char *t = json_text(g(posts, "queryParams"));
  cr_expect_str_eq(t, "[\"page\"]");
  free(t);
  cr_expect(endpoint(api, "GET", "/api/admin/stats"), "a single path stays as it is");
  cr_expect(endpoint(api, "GET", "/api/pets"), "a collection stays beside its items");
  cJSON_Delete(api);
  t_rm_rf(dir);
  free(dir);

  /* two values are not enough; last segments and collections under /api never vary */
  static const char *const urls[] = {"/api/config", "/api/stats", "/api/users", "/api/pets/1", "/api/notes/2",
                                     "/api/users/3", "/api/users/3/posts/5", "/api/teams/red/members",
                                     "/api/teams/blue/members", "/api/reports/2024-01-31"};
  char extra[8192] = "{\"type\":\"requests\",\"phase\":\"load\",\"stateId\":\"s1\",\"requests\":[";
  for (size_t i = 0; i < sizeof urls / sizeof *urls; i++)
    snprintf(extra + strlen(extra), sizeof extra - strlen(extra),
             "%s{\"method\":\"GET\",\"url\":\"http://127.0.0.1:8000%s\",\"resourceType\":\"Fetch\",\"status\":200,\"guard\":\"passed\"}",
             i ? "," : "", urls[i]);
  strcat(extra, "]}\n");
  dir = api_dir_with(extra);
  api = load(dir, "api.json");
  static const char *const want[] = {"/api/config", "/api/stats", "/api/users", "/api/pets/{id}", "/api/notes/{id}",
                                     "/api/users/{id}", "/api/users/{userId}/posts/{id}", "/api/teams/red/members",
                                     "/api/teams/blue/members", "/api/reports/{date}"};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) cr_expect(endpoint(api, "GET", want[i]), "%s is an endpoint", want[i]);
  cr_expect_eq(cJSON_GetArraySize(g(api, "endpoints")), (int)(sizeof want / sizeof *want));
  t = json_text(g(endpoint(api, "GET", "/api/users/{userId}/posts/{id}"), "pathParams"));
  cr_expect_str_eq(t, "[\"userId\",\"id\"]");
  free(t);
  cJSON_Delete(api);
  t_rm_rf(dir);
  free(dir);
}

Test(api, kinds_and_assets) {
  char *dir = api_dir();
  cJSON *api = load(dir, "api.json");
  cr_expect_eq(cJSON_GetNumberValue(g(api, "assets")), 1, "app.js is counted");
  cr_expect_null(endpoint(api, "GET", "/app.js"), "an asset is no endpoint");
  const cJSON *gql = endpoint(api, "POST", "/graphql");
  cr_assert(gql);
  cr_expect_str_eq(s(gql, "kind"), "graphql");
  char *t = json_text(g(gql, "graphql"));
  cr_expect_str_eq(t, "{\"operations\":[{\"type\":\"query\",\"name\":\"Pets\"}]}");
  free(t);
  cr_expect_eq(cJSON_GetNumberValue(g(g(gql, "guard"), "read")), 1);
  cr_expect_str_eq(s(endpoint(api, "POST", "/api/telemetry"), "kind"), "beacon");
  cr_expect_str_eq(s(endpoint(api, "GET", "/home.html"), "kind"), "document");
  cJSON_Delete(api);
  t_rm_rf(dir);
  free(dir);
}

/* ---- callers, principals, stopped writes ---------------------------------------- */
Test(api, called_from_loads_states_and_transitions) {
  char *dir = api_dir();
  cJSON *api = load(dir, "api.json");
  const cJSON *cf = g(endpoint(api, "GET", "/api/pets/{id}"), "calledFrom");
  char *t = json_text(cf);
  cr_expect_str_eq(t, "{\"loads\":[\"s1\"],\"states\":[\"s1\"],\"routes\":[\"/home.html\"],\"transitions\":[{\"transitionId\":\"t1\","
                      "\"viaActionId\":\"ui.activate\",\"target\":{\"stableId\":\"notes.open\",\"role\":\"button\",\"name\":\"Open help\"}}],"
                      "\"actions\":[]}");
  free(t);
  /* a request the page made while idle is not the action's */
  cr_expect_eq(cJSON_GetArraySize(g(g(endpoint(api, "POST", "/api/telemetry"), "calledFrom"), "transitions")), 0);
  const cJSON *posts = g(endpoint(api, "GET", "/api/users/{user}/posts"), "calledFrom");
  cr_expect_eq(cJSON_GetArraySize(g(posts, "transitions")), 2, "t1 and t3");
  cr_expect(has_str(g(g(endpoint(api, "POST", "/api/settings"), "calledFrom"), "routes"), "/settings.html"));
  /* t4, a self-loop the package counts and does not publish: its state and
   * control instead of its id */
  const cJSON *set = g(endpoint(api, "POST", "/api/settings"), "calledFrom");
  cr_expect_eq(cJSON_GetArraySize(g(set, "transitions")), 0, "no transition the package lacks");
  t = json_text(g(set, "actions"));
  cr_expect_str_eq(t, "[{\"stateId\":\"s3\",\"viaActionId\":\"ui.activate\",\"target\":{\"stableId\":\"settings.save\","
                      "\"role\":\"button\",\"name\":\"Save settings\"}}]");
  free(t);
  cJSON_Delete(api);
  t_rm_rf(dir);
  free(dir);
}

Test(api, stopped_writes_name_their_control) {
  char *dir = api_dir();
  cJSON *api = load(dir, "api.json");
  const cJSON *sw = g(api, "stoppedWrites");
  cr_assert_eq(cJSON_GetArraySize(sw), 2);
  const cJSON *del = cJSON_GetArrayItem(sw, 0), *post = cJSON_GetArrayItem(sw, 1);
  cr_expect_str_eq(s(del, "method"), "DELETE");
  cr_expect_str_eq(s(del, "template"), "/api/notes/{id}");
  cr_expect_str_eq(s(del, "endpointId"), s(endpoint(api, "DELETE", "/api/notes/{id}"), "id"));
  cr_expect_str_eq(s(g(del, "target"), "name"), "Delete all notes");
  cr_expect(cJSON_IsTrue(g(del, "probed")));
  cr_expect_null(g(del, "transitionId"));
  cr_expect_str_eq(s(post, "template"), "/api/settings");
  cr_expect_str_eq(s(post, "why"), "a POST to the app");
  cr_expect_str_eq(s(post, "stateId"), "s3");
  cr_expect_str_eq(s(post, "actionId"), "ui.activate");
  cr_expect_null(g(post, "transitionId"), "t4 is a self-loop: the package does not publish it");
  cr_expect_null(g(post, "probed"));
  cr_expect_eq(cJSON_GetNumberValue(g(g(endpoint(api, "POST", "/api/settings"), "guard"), "stopped")), 1);
  /* the body's shape, never a value */
  char *t = json_text(g(endpoint(api, "POST", "/api/settings"), "requestBody"));
  cr_expect_str_eq(t, "{\"kinds\":[\"json\"],\"shape\":{\"theme\":\"string\",\"notify\":\"boolean\"}}");
  free(t);
  cJSON_Delete(api);
  t_rm_rf(dir);
  free(dir);
}

Test(api, principals_and_access_differences) {
  char *extra = t_read_file(FIXTURES "/api-requests.jsonl", NULL);
  char *jj = journal_with(extra);
  char *dir = t_journal_dir("api", jj), err[512];
  free(jj);
  free(extra);
  char path[1024];
  snprintf(path, sizeof path, "%s/access.json", dir);
  cr_assert_eq(t_write_file(path, "{\"principals\":[\"owner\",\"viewer\"],\"routes\":{}}"), 0);
  cr_assert_eq(crawl_package_write(dir, err, sizeof err), CRAWL_OK, "%s", err);
  cJSON *api = load(dir, "api.json");
  char *t = json_text(g(endpoint(api, "GET", "/api/admin/stats"), "principals"));
  cr_expect_str_eq(t, "[{\"principal\":\"owner\",\"statuses\":[200]},{\"principal\":\"viewer\",\"statuses\":[403]}]");
  free(t);
  cr_expect_null(g(endpoint(api, "GET", "/api/pets/{id}"), "principals"), "records without a principal name none");
  const cJSON *ad = g(api, "accessDifferences");
  cr_assert_eq(cJSON_GetArraySize(ad), 1);
  cr_expect_str_eq(s(cJSON_GetArrayItem(ad, 0), "template"), "/api/admin/stats");
  cJSON *acc = load(dir, "access.json");
  cr_expect_eq(cJSON_GetArraySize(g(acc, "principals")), 2, "access.json keeps what it had");
  cr_assert_eq(cJSON_GetArraySize(g(acc, "endpoints")), 1, "access.json lists the endpoint");
  cr_expect_str_eq(s(cJSON_GetArrayItem(g(acc, "endpoints"), 0), "endpointId"), s(endpoint(api, "GET", "/api/admin/stats"), "id"));
  cJSON_Delete(acc);
  cJSON_Delete(api);
  t_rm_rf(dir);
  free(dir);

  dir = api_dir(); /* no access.json: none is made */
  snprintf(path, sizeof path, "%s/access.json", dir);
  cr_expect_neq(access(path, F_OK), 0);
  t_rm_rf(dir);
  free(dir);
}

/* ---- safety and determinism ----------------------------------------------------- */
Test(api, no_query_secret_reaches_a_file) {
  char *dir = api_dir();
  crawl_report_opts o = {.layout = CRAWL_LAYOUT_BUILTIN};
  char err[512];
  cr_assert_eq(crawl_reports_write(dir, &o, err, sizeof err), CRAWL_OK, "%s", err);
  /* the journal has it (the page put it there); nothing made from it does */
  char path[1024];
  snprintf(path, sizeof path, "%s/journal.jsonl", dir);
  unlink(path);
  static const char *const needles[] = {"tok-9f8e7d6c5b", NULL};
  char found[512] = "";
  cr_expect_eq(t_tree_grep(dir, needles, found, sizeof found), 0, "leaked: %s", found);
  cJSON *api = load(dir, "api.json");
  const cJSON *pets = endpoint(api, "GET", "/api/pets");
  cr_expect(has_str(g(pets, "examples"), "/api/pets?status=available&access_token=[redacted]"));
  char *t = json_text(g(pets, "queryParams"));
  cr_expect_str_eq(t, "[\"access_token\",\"status\"]", "keys, never values");
  free(t);
  cJSON_Delete(api);
  t_rm_rf(dir);
  free(dir);
}

Test(api, same_records_in_another_order_same_bytes) {
  char *extra = t_read_file(FIXTURES "/api-requests.jsonl", NULL);
  cr_assert(extra);
  /* the records in reverse order */
  size_t n = strlen(extra);
  char *rev = calloc(1, n + 2), *lines[32];
  int nl = 0;
  for (char *save = NULL, *l = strtok_r(extra, "\n", &save); l && nl < 32; l = strtok_r(NULL, "\n", &save)) lines[nl++] = l;
  for (int i = nl - 1; i >= 0; i--) { strcat(rev, lines[i]); strcat(rev, "\n"); }
  free(extra);
  char *a = api_dir(), *b = api_dir_with(rev);
  free(rev);
  char pa[1024], pb[1024];
  snprintf(pa, sizeof pa, "%s/api.json", a);
  snprintf(pb, sizeof pb, "%s/api.json", b);
  char *ta = t_read_file(pa, NULL), *tb = t_read_file(pb, NULL);
  cr_assert(ta && tb);
  cr_expect_str_eq(ta, tb);
  free(ta);
  free(tb);
  t_rm_rf(a);
  t_rm_rf(b);
  free(a);
  free(b);
}

Test(api, a_run_without_requests_records_has_no_catalog) {
  char *dir = t_journal_dir("normal", NULL), err[512], path[1024];
  cr_assert_eq(crawl_package_write(dir, err, sizeof err), CRAWL_OK, "%s", err);
  snprintf(path, sizeof path, "%s/api.json", dir);
  cr_expect_neq(access(path, F_OK), 0, "no api.json from a journal without requests records");
  cJSON *api = NULL;
  cr_assert_eq(crawl_api_load(dir, &api, err, sizeof err), CRAWL_OK, "%s", err);
  cr_expect_eq(cJSON_GetArraySize(g(api, "endpoints")), 0, "diff reads it as an empty catalog");
  cJSON_Delete(api);
  t_rm_rf(dir);
  free(dir);

  /* one requests record with nothing the app asked for: a catalog, empty */
  dir = api_dir_with("{\"type\":\"requests\",\"phase\":\"load\",\"stateId\":\"s1\",\"offOrigin\":2,\"requests\":[]}\n");
  api = load(dir, "api.json");
  cr_expect_eq(cJSON_GetArraySize(g(api, "endpoints")), 0);
  cr_expect_eq(cJSON_GetArraySize(g(api, "stoppedWrites")), 0);
  cr_expect_eq(cJSON_GetArraySize(g(api, "origins")), 0);
  cJSON_Delete(api);
  t_rm_rf(dir);
  free(dir);
}

/* ---- package citations ------------------------------------------------------------- */
static int cites(const cJSON *entry, const char *ref, const char *note) {
  const cJSON *e;
  cJSON_ArrayForEach(e, g(entry, "discoveredBy"))
    if (!strcmp(s(e, "source"), "network") && !strcmp(s(e, "refId"), ref) && (!note || !strcmp(s(e, "note") ?: "", note))) return 1;
  return 0;
}

static const cJSON *by(const cJSON *arr, const char *k, const char *v) {
  const cJSON *e;
  cJSON_ArrayForEach(e, arr) if (s(e, k) && !strcmp(s(e, k), v)) return e;
  return NULL;
}

Test(api, package_cites_the_requests_and_validates) {
  char *dir = api_dir();
  cJSON *api = load(dir, "api.json"), *p = load(dir, "package.json");
  const char *pets = s(endpoint(api, "GET", "/api/pets/{id}"), "id"), *settings = s(endpoint(api, "POST", "/api/settings"), "id");
  const cJSON *t1 = by(g(g(p, "transitionGraph"), "edges"), "transitionId", "t1");
  cr_assert(t1);
  cr_expect(cites(t1, pets, "GET /api/pets/{id} 200"));
  cr_expect(cites(t1, pets, "GET /api/pets/{id} 404"));
  cr_expect(!cites(t1, s(endpoint(api, "POST", "/api/telemetry"), "id"), NULL), "the idle beacon is not t1's");
  const cJSON *t2 = by(g(g(p, "transitionGraph"), "edges"), "transitionId", "t2");
  cr_expect_null(by(g(t2, "discoveredBy"), "source", "network"), "t2 made no request");
  const cJSON *act = by(g(g(p, "actionCatalog"), "actions"), "id", "ui.activate");
  cr_expect(cites(act, settings, "would write: POST /api/settings, stopped (write)"));
  char path[1024], msg[8192];
  snprintf(path, sizeof path, "%s/package.json", dir);
  cr_expect_eq(t_validate("DiscoveryPackage", path, msg, sizeof msg), 0, "DiscoveryPackage invalid:\n%s", msg);
  cJSON_Delete(p);
  cJSON_Delete(api);
  t_rm_rf(dir);
  free(dir);
}

/* ---- report and diff --------------------------------------------------------------- */
Test(api, report_has_an_api_section) {
  char *dir = api_dir(), err[512];
  crawl_report_opts o = {.layout = CRAWL_LAYOUT_BUILTIN};
  cr_assert_eq(crawl_reports_write(dir, &o, err, sizeof err), CRAWL_OK, "%s", err);
  char path[1024];
  snprintf(path, sizeof path, "%s/report.html", dir);
  char *html = t_read_file(path, NULL);
  cr_assert(html);
  char *sec = strstr(html, "<section id=\"api\">");
  cr_assert(sec, "report.html has the API section");
  cr_expect(strstr(html, "href=\"#api\""), "and a link to it");
  cr_expect(strstr(sec, "/api/pets/{id}"));
  cr_expect(strstr(sec, "Stopped writes"));
  cr_expect(strstr(sec, "Delete all notes"));
  cr_expect(strstr(sec, "owner: 200; viewer: 403"));
  free(html);
  t_rm_rf(dir);
  free(dir);
}

Test(api, diff_lists_endpoints_added_removed_and_status_changes) {
  char *extra = t_read_file(FIXTURES "/api-requests.jsonl", NULL);
  cr_assert(extra);
  char *old = api_dir_with(extra);
  /* the new run: viewer is served, the beacon went elsewhere */
  char *e1 = replace_all(extra, "\"status\":403", "\"status\":200"), *e2 = replace_all(e1, "/api/telemetry", "/api/metrics");
  char *nw = api_dir_with(e2);
  free(extra);
  free(e1);
  free(e2);
  char path[1024], err[512];
  snprintf(path, sizeof path, "%s/api.json", nw);
  unlink(path); /* rebuilt from the journal */
  cJSON *a = NULL, *b = NULL, *d = NULL;
  cr_assert_eq(crawl_api_load(old, &a, err, sizeof err), CRAWL_OK, "%s", err);
  cr_assert_eq(crawl_api_load(nw, &b, err, sizeof err), CRAWL_OK, "%s", err);
  cr_expect_neq(access(path, F_OK), 0, "a rebuild writes nothing");
  cJSON *pa = load(old, "package.json"), *pb = load(nw, "package.json");
  cr_assert_eq(crawl_package_diff(pa, pb, &d, NULL), CRAWL_OK);
  crawl_api_diff(d, a, b);
  const cJSON *api = g(d, "api");
  char *t = json_text(g(api, "added"));
  cr_expect_str_eq(t, "[\"POST /api/metrics\"]");
  free(t);
  t = json_text(g(api, "removed"));
  cr_expect_str_eq(t, "[\"POST /api/telemetry\"]");
  free(t);
  t = json_text(g(api, "statusChanged"));
  cr_expect_str_eq(t, "[{\"key\":\"GET /api/admin/stats\",\"principal\":\"viewer\",\"old\":[403],\"new\":[200]}]");
  free(t);
  char *text = crawl_diff_text(d, 0);
  cr_expect(strstr(text, "endpoints    +1 -1 ~1"), "%s", text);
  cr_expect(strstr(text, "~ GET /api/admin/stats as viewer: statuses [403] -> [200]"), "%s", text);
  free(text);
  cJSON_Delete(d);
  cJSON_Delete(pa);
  cJSON_Delete(pb);
  cJSON_Delete(a);
  cJSON_Delete(b);
  t_rm_rf(old);
  t_rm_rf(nw);
  free(old);
  free(nw);
}

/* ---- merge ---------------------------------------------------------------------------- */
/* A crawl directory holding tests/fixtures/merge/NAME's journal with extra
 * appended, and the files it names. */
static char *merge_dir(const char *name, const char *extra) {
  char *dir = t_tmpdir(), path[1024], rel[256], from[1024], to[1024];
  snprintf(path, sizeof path, "%s/states", dir);
  cr_assert_eq(mkdir(path, 0755), 0);
  snprintf(path, sizeof path, "%s/screenshots", dir);
  cr_assert_eq(mkdir(path, 0755), 0);
  snprintf(path, sizeof path, UIAP_SRC "/tests/fixtures/merge/%s/journal.jsonl", name);
  char *journal = t_read_file(path, NULL);
  cr_assert(journal);
  static const char *const fields[] = {"\"pageGraphRef\":\"", "\"screenshotRef\":\""};
  for (int f = 0; f < 2; f++)
    for (const char *p = journal; (p = strstr(p, fields[f])); p++) {
      const char *s0 = p + strlen(fields[f]), *e = strchr(s0, '"');
      snprintf(rel, sizeof rel, "%.*s", (int)(e - s0), s0);
      snprintf(from, sizeof from, UIAP_SRC "/tests/fixtures/merge/%s", rel);
      snprintf(to, sizeof to, "%s/%s", dir, rel);
      if (access(to, F_OK) != 0) t_copy_file(from, to);
    }
  size_t n = strlen(journal) + strlen(extra) + 2;
  char *j = malloc(n);
  snprintf(j, n, "%s%s", journal, extra);
  snprintf(path, sizeof path, "%s/journal.jsonl", dir);
  cr_assert_eq(t_write_file(path, j), 0);
  free(j);
  free(journal);
  return dir;
}

Test(api, merge_points_requests_at_the_merged_transition) {
  /* w2's t_00002: state C -> D, ui.expand "Actions" */
  char *w1 = merge_dir("w1", ""), *w2 = merge_dir("w2",
    "{\"type\":\"requests\",\"at\":\"2026-12-01T16:03:00.700Z\",\"phase\":\"action\",\"stateId\":\"s_cba9bdc91e37b811\","
    "\"transitionId\":\"t_00002\",\"actionId\":\"ui.expand\",\"target\":{\"role\":\"button\",\"name\":\"Actions\"},"
    "\"requests\":[{\"method\":\"GET\",\"url\":\"http://127.0.0.1:8000/api/actions/7\",\"resourceType\":\"Fetch\",\"status\":200,"
    "\"initiator\":\"action\",\"guard\":\"passed\"}]}\n");
  char *parent = t_tmpdir(), out[1024], err[1024] = "";
  snprintf(out, sizeof out, "%s/out", parent);
  const char *dirs[] = {w1, w2};
  crawl_merge_stats st;
  cr_assert_eq(crawl_merge(dirs, 2, out, NULL, &st, err, sizeof err), CRAWL_OK, "%s", err);
  cJSON *p = load(out, "package.json"), *api = load(out, "api.json");
  const char *want = NULL;
  const cJSON *e;
  cJSON_ArrayForEach(e, g(g(p, "transitionGraph"), "edges"))
    if (!strcmp(s(e, "fromStateId"), "s_cba9bdc91e37b811") && !strcmp(s(e, "viaActionId"), "ui.expand")) want = s(e, "transitionId");
  cr_assert(want, "the merged package has C -> D");
  const cJSON *tr = cJSON_GetArrayItem(g(g(endpoint(api, "GET", "/api/actions/{id}"), "calledFrom"), "transitions"), 0);
  cr_assert(tr);
  cr_expect_str_eq(s(tr, "transitionId"), want);
  cJSON_ArrayForEach(e, g(g(p, "transitionGraph"), "edges"))
    if (!strcmp(s(e, "transitionId"), want)) cr_expect(cites(e, s(endpoint(api, "GET", "/api/actions/{id}"), "id"), NULL));
  cJSON_Delete(p);
  cJSON_Delete(api);
  t_rm_rf(w1);
  t_rm_rf(w2);
  t_rm_rf(parent);
  free(w1);
  free(w2);
  free(parent);
}

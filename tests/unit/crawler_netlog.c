/* crawler_netlog.c -- the request log (crawler/run/netlog.c, netlog_body.c):
 * a body's shape holds keys, types and operation names, never a value, and
 * stays within its bounds; endpoint templates in OpenAPI style; the
 * `requests` record built from CDP events as the tab receives them (the
 * guard's pause before or after Network's event, redirects, failures, off
 * the app's origins, idle time, the per-phase bound). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "crawl.h"
#include "netlog.h"

static const char *s(const cJSON *o, const char *k) { return cJSON_GetStringValue(cJSON_GetObjectItem(o, k)); }

static char *text(const cJSON *j) { return cJSON_PrintUnformatted(j); }

/* ---- body shapes ------------------------------------------------------------------ */
Test(netlog_body, json_keys_and_types_never_values) {
  const char *b = "{\"name\":\"Rex-secret-value\",\"age\":3,\"ok\":true,\"none\":null,"
                  "\"tags\":[\"t-secret\",\"u\"],\"owner\":{\"id\":42,\"mail\":\"a@b.example\"},\"empty\":[]}";
  cJSON *sh = crawl__netlog_body_shape("application/json; charset=utf-8", b, strlen(b));
  cr_assert(sh);
  char *t = text(sh);
  cr_expect_str_eq(t, "{\"kind\":\"json\",\"shape\":{\"name\":\"string\",\"age\":\"number\",\"ok\":\"boolean\","
                      "\"none\":\"null\",\"tags\":[\"string\"],\"owner\":{\"id\":\"number\",\"mail\":\"string\"},"
                      "\"empty\":[]}}");
  cr_expect(!strstr(t, "secret") && !strstr(t, "42") && !strstr(t, "a@b"), "no value in %s", t);
  free(t);
  cJSON_Delete(sh);
}

Test(netlog_body, depth_and_keys_are_bounded) {
  const char *deep = "{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":1}}}}}}";
  cJSON *sh = crawl__netlog_body_shape("application/json", deep, strlen(deep));
  const cJSON *d = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
                     cJSON_GetObjectItem(sh, "shape"), "a"), "b"), "c"), "d");
  cr_expect_str_eq(cJSON_GetStringValue(d), "object", "below depth 4 an object is named, not opened");
  cJSON_Delete(sh);
  char big[4000] = "{";
  for (int i = 0; i < 80; i++) snprintf(big + strlen(big), sizeof big - strlen(big), "%s\"k%d\":%d", i ? "," : "", i, i);
  strcat(big, "}");
  sh = crawl__netlog_body_shape("application/json", big, strlen(big));
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(sh, "shape")), CRAWL__NETLOG_KEYS, "at most 50 keys");
  cJSON_Delete(sh);
}

Test(netlog_body, forms_graphql_and_other) {
  const char *f = "q=secret-term&page=2&q=again&tag=";
  cJSON *sh = crawl__netlog_body_shape("application/x-www-form-urlencoded", f, strlen(f));
  char *t = text(sh);
  cr_expect_str_eq(t, "{\"kind\":\"form\",\"shape\":{\"q\":\"string\",\"page\":\"string\",\"tag\":\"string\"}}");
  free(t);
  cJSON_Delete(sh);

  const char *g = "{\"operationName\":\"AddPet\",\"query\":\"mutation AddPet($n: String) { addPet(name: $n) { id } }\","
                  "\"variables\":{\"n\":\"secret-pet\"}}";
  sh = crawl__netlog_body_shape("application/json", g, strlen(g));
  t = text(sh);
  cr_expect_str_eq(t, "{\"kind\":\"graphql\",\"operations\":[{\"type\":\"mutation\",\"name\":\"AddPet\"}]}");
  free(t);
  cJSON_Delete(sh);

  const char *batch = "[{\"query\":\"{ items { id } }\"},{\"operationName\":\"Saved\","
                      "\"extensions\":{\"persistedQuery\":{\"version\":1,\"sha256Hash\":\"ab\"}}}]";
  sh = crawl__netlog_body_shape("application/json", batch, strlen(batch));
  t = text(sh);
  cr_expect_str_eq(t, "{\"kind\":\"graphql\",\"operations\":[{\"type\":\"query\"},{\"type\":\"unknown\",\"name\":\"Saved\"}]}");
  free(t);
  cJSON_Delete(sh);

  const char *doc = "query Feed { items { id } }";
  sh = crawl__netlog_body_shape("application/graphql", doc, strlen(doc));
  cr_expect_str_eq(s(cJSON_GetArrayItem(cJSON_GetObjectItem(sh, "operations"), 0), "name"), "Feed");
  cJSON_Delete(sh);

  const char *bin = "secret-bytes";
  sh = crawl__netlog_body_shape("application/octet-stream", bin, strlen(bin));
  t = text(sh);
  cr_expect_str_eq(t, "{\"kind\":\"other\",\"contentType\":\"application/octet-stream\"}");
  free(t);
  cJSON_Delete(sh);
  sh = crawl__netlog_body_shape("multipart/form-data; boundary=secret", bin, strlen(bin));
  cr_expect_str_eq(s(sh, "contentType"), "multipart/form-data", "the media type without its parameters");
  cJSON_Delete(sh);
  cr_expect_null(crawl__netlog_body_shape("application/json", NULL, 0), "no body, no shape");
}

Test(netlog_body, endpoint_templates) {
  static const char *const cases[][2] = {
    {"http://h:1/api/pets/3?status=available", "/api/pets/{id}"},
    {"http://h:1/api/pets?status=available", "/api/pets"},
    {"http://h:1/api/pets/17/adopt", "/api/pets/{petId}/adopt"},
    {"http://h:1/api/users/3/posts/7", "/api/users/{userId}/posts/{id}"},
    {"http://h:1/", "/"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *t = crawl__netlog_template(cases[i][0]);
    cr_expect(t && !strcmp(t, cases[i][1]), "%s -> %s (got %s)", cases[i][0], cases[i][1], t ? t : "NULL");
    free(t);
  }
  cr_expect_null(crawl__netlog_template("data:text/plain,x"));
}

/* ---- the record builder ------------------------------------------------------------- */
static cJSON *ev(const char *json) {
  cJSON *j = cJSON_Parse(json);
  cr_assert(j, "test event parses: %s", json);
  return j;
}

static void request(crawl__netlog *nl, const char *rid, const char *method, const char *url, int scope, long long t) {
  char b[600];
  snprintf(b, sizeof b, "{\"requestId\":\"%s\",\"type\":\"Fetch\",\"request\":{\"method\":\"%s\",\"url\":\"%s\"}}", rid,
           method, url);
  cJSON *j = ev(b);
  crawl__netlog_on_request(nl, j, scope, t);
  cJSON_Delete(j);
}

static void response(crawl__netlog *nl, const char *rid, int status, long long t, int size) {
  char b[300];
  snprintf(b, sizeof b, "{\"requestId\":\"%s\",\"response\":{\"status\":%d,\"mimeType\":\"application/json\"}}", rid,
           status);
  cJSON *j = ev(b);
  crawl__netlog_on_response(nl, j);
  cJSON_Delete(j);
  snprintf(b, sizeof b, "{\"requestId\":\"%s\",\"encodedDataLength\":%d}", rid, size);
  j = ev(b);
  crawl__netlog_on_done(nl, j, 0, t);
  cJSON_Delete(j);
}

Test(netlog_record, a_load_with_its_requests_and_context) {
  crawl__netlog *nl = crawl__netlog_new();
  request(nl, "0", "GET", "http://a:1/poll", 1, 50);      /* idle: a timer */
  request(nl, "x", "GET", "http://cdn:2/lib.js", 0, 60);  /* off the app's origins */
  request(nl, "d", "GET", "data:image/png;base64,AAAA", -1, 61); /* no origin: neither */
  crawl__netlog_begin(nl, "load", 100);
  request(nl, "1", "GET", "http://a:1/api/pets?status=available", 1, 112);
  response(nl, "1", 200, 146, 1234);
  cJSON *target = ev("{\"role\":\"button\",\"name\":\"Rex\"}");
  crawl__netlog_ctx ctx = {.phase = "load", .state_id = "s_1", .url = "http://a:1/", .principal = "owner",
                           .target = target};
  cJSON *rec = crawl__netlog_record(nl, &ctx, 200);
  cJSON_Delete(target);
  cr_expect_str_eq(s(rec, "phase"), "load");
  cr_expect_str_eq(s(rec, "stateId"), "s_1");
  cr_expect_str_eq(s(rec, "principal"), "owner");
  cr_expect_str_eq(s(cJSON_GetObjectItem(rec, "target"), "name"), "Rex");
  cr_expect_eq(cJSON_GetObjectItem(rec, "offOrigin")->valueint, 1, "the CDN script is counted, not listed");
  const cJSON *rq = cJSON_GetObjectItem(rec, "requests");
  cr_assert_eq(cJSON_GetArraySize(rq), 2);
  const cJSON *t = cJSON_GetArrayItem(rq, 0), *q = cJSON_GetArrayItem(rq, 1);
  cr_expect_str_eq(s(t, "initiator"), "timer", "a request made while idle");
  cr_expect_eq(cJSON_GetObjectItem(t, "startMs")->valueint, -50, "before the phase began");
  cr_expect_null(cJSON_GetObjectItem(t, "ms"), "still in flight: no duration");
  cr_expect_str_eq(s(q, "initiator"), "load");
  cr_expect_eq(cJSON_GetObjectItem(q, "status")->valueint, 200);
  cr_expect_eq(cJSON_GetObjectItem(q, "size")->valueint, 1234);
  cr_expect_eq(cJSON_GetObjectItem(q, "startMs")->valueint, 12);
  cr_expect_eq(cJSON_GetObjectItem(q, "ms")->valueint, 34);
  cr_expect_str_eq(s(q, "guard"), "passed");
  cr_expect_str_eq(s(q, "mimeType"), "application/json");
  cJSON_Delete(rec);
  cr_expect_eq(crawl__netlog_count(nl), 0, "a record takes its requests");
  cr_expect_null(crawl__netlog_phase(nl), "and the log is idle again");
  crawl__netlog_free(nl);
}

/* A token the page put in a URL's query or fragment is a secret the run
 * was never told: its value is redacted in the record, other values stay. */
Test(netlog_record, credential_query_values_are_redacted) {
  crawl__netlog *nl = crawl__netlog_new();
  crawl__netlog_begin(nl, "load", 100);
  request(nl, "1", "GET", "http://a:1/api/pets?status=available&access_token=tok-7f3e9c-value#sid=sid-7f3e9c", 1, 110);
  crawl__netlog_ctx ctx = {.phase = "load", .state_id = "s_1"};
  cJSON *rec = crawl__netlog_record(nl, &ctx, 200);
  const char *u = s(cJSON_GetArrayItem(cJSON_GetObjectItem(rec, "requests"), 0), "url");
  cr_expect_str_eq(u, "http://a:1/api/pets?status=available&access_token=[redacted]#sid=[redacted]");
  cJSON_Delete(rec);
  crawl__netlog_free(nl);
}

/* The guard's pause joins Network's event by networkId, in either order;
 * its body becomes a shape; a failure it caused stays its verdict. */
Test(netlog_record, the_guards_verdict_and_body_shape) {
  crawl__netlog *nl = crawl__netlog_new();
  crawl__netlog_begin(nl, "action", 0);
  cJSON *paused = ev("{\"requestId\":\"interception-1\",\"networkId\":\"7\",\"resourceType\":\"Fetch\","
                     "\"request\":{\"method\":\"POST\",\"url\":\"http://a:1/api/pets/3/adopt\","
                     "\"headers\":{\"Content-Type\":\"application/json\"},"
                     "\"postData\":\"{\\\"note\\\":\\\"MARKER-x\\\",\\\"petId\\\":3}\"}}");
  crawl__netlog_on_paused(nl, paused, 1, "write", "a write", 5); /* before Network's event */
  cJSON_Delete(paused);
  request(nl, "7", "POST", "http://a:1/api/pets/3/adopt", 1, 6);
  cJSON *failed = ev("{\"requestId\":\"7\",\"errorText\":\"net::ERR_BLOCKED_BY_CLIENT\"}");
  crawl__netlog_on_done(nl, failed, 1, 9);
  cJSON_Delete(failed);
  request(nl, "8", "GET", "http://a:1/api/down", 1, 10);
  failed = ev("{\"requestId\":\"8\",\"errorText\":\"net::ERR_CONNECTION_REFUSED\"}");
  crawl__netlog_on_done(nl, failed, 1, 12);
  cJSON_Delete(failed);
  crawl__netlog_ctx ctx = {.phase = "action", .state_id = "s_1", .transition_id = "t_00001", .action_id = "ui.activate"};
  cJSON *rec = crawl__netlog_record(nl, &ctx, 20);
  char *t = text(rec);
  cr_expect(!strstr(t, "MARKER"), "no body value: %s", t);
  free(t);
  const cJSON *rq = cJSON_GetObjectItem(rec, "requests");
  cr_assert_eq(cJSON_GetArraySize(rq), 2, "one entry per request, joined by networkId");
  const cJSON *w = cJSON_GetArrayItem(rq, 0), *f = cJSON_GetArrayItem(rq, 1);
  cr_expect_str_eq(s(w, "guard"), "write");
  cr_expect_str_eq(s(w, "guardWhy"), "a write");
  cr_expect_null(cJSON_GetObjectItem(w, "status"));
  cr_expect_str_eq(s(cJSON_GetObjectItem(cJSON_GetObjectItem(w, "body"), "shape"), "petId"), "number");
  cr_expect_str_eq(s(f, "guard"), "failed", "a network error the guard did not cause");
  cr_expect_str_eq(s(rec, "transitionId"), "t_00001");
  cJSON_Delete(rec);
  crawl__netlog_free(nl);
}

Test(netlog_record, redirects_mute_and_the_bound) {
  crawl__netlog *nl = crawl__netlog_new();
  crawl__netlog_begin(nl, "action", 0);
  request(nl, "1", "GET", "http://a:1/old", 1, 1);
  cJSON *hop = ev("{\"requestId\":\"1\",\"type\":\"Document\",\"redirectResponse\":{\"status\":302},"
                  "\"request\":{\"method\":\"GET\",\"url\":\"http://a:1/new\"}}");
  crawl__netlog_on_request(nl, hop, 1, 3);
  cJSON_Delete(hop);
  response(nl, "1", 200, 5, 10);
  cr_expect_eq(crawl__netlog_count(nl), 2, "a redirect is two entries");
  cJSON *brief = crawl__netlog_brief(nl);
  char *t = text(brief);
  cr_expect_str_eq(t, "[{\"method\":\"GET\",\"template\":\"/old\",\"status\":302,\"guard\":\"passed\"},"
                      "{\"method\":\"GET\",\"template\":\"/new\",\"status\":200,\"guard\":\"passed\"}]");
  free(t);
  cJSON_Delete(brief);
  crawl__netlog_mute(nl, 1);
  request(nl, "2", "GET", "http://a:1/replayed", 1, 6);
  crawl__netlog_mute(nl, 0);
  cr_expect_eq(crawl__netlog_count(nl), 2, "nothing logged while muted");
  for (int i = 0; i < CRAWL__NETLOG_MAX + 7; i++) {
    char rid[16];
    snprintf(rid, sizeof rid, "m%d", i);
    request(nl, rid, "GET", "http://a:1/api/x", 1, 7);
  }
  crawl__netlog_ctx ctx = {.phase = "action"};
  cJSON *rec = crawl__netlog_record(nl, &ctx, 9);
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(rec, "requests")), CRAWL__NETLOG_MAX);
  cr_expect_eq(cJSON_GetObjectItem(rec, "omitted")->valueint, 9, "the rest are counted");
  cJSON_Delete(rec);
  crawl__netlog_free(nl);
}

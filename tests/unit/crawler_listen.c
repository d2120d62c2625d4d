/* crawler_listen.c -- unit: the listen session without a browser: who may
 * connect by Origin, the envelope errors (and the session going on after
 * them), session.initialize, and a discovery plan's accepted and rejected
 * seeds with their reasons. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "listen_int.h"

Test(listen, origins) {
  static const char *const ok[] = {NULL, "", "http://127.0.0.1", "http://127.0.0.1:8080", "https://localhost:3000",
                                   "http://LOCALHOST", "http://[::1]:9"};
  static const char *const bad[] = {"http://evil.example", "http://127.0.0.1.evil.example", "http://localhost.evil",
                                    "http://127.0.0.1:80x", "http://127.0.0.1:", "null", "file://", "ws://127.0.0.1",
                                    "http://10.0.0.1"};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) cr_expect(crawl_listen_origin_ok(ok[i]), "%s is loopback", ok[i]);
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) cr_expect(!crawl_listen_origin_ok(bad[i]), "%s is refused", bad[i]);
}

/* Send text; the one reply it gets (caller frees). */
static cJSON *roundtrip(lsn_session *s, const char *text) {
  lsn__session_receive(s, text, strlen(text));
  char *t = lsn__session_pop(s);
  cr_assert(t, "a reply to %s", text);
  cr_expect_null(lsn__session_pop(s), "one reply to %s", text);
  cJSON *j = cJSON_Parse(t);
  free(t);
  return j;
}

/* A plan request: its uiap.discovery.planned reply, then one progress event
 * saying the planned run is in "planning" (mapper 10.1), nothing else. */
static cJSON *plan_roundtrip(lsn_session *s, const char *text) {
  lsn__session_receive(s, text, strlen(text));
  char *t = lsn__session_pop(s), *ev = lsn__session_pop(s);
  cr_assert(t, "a reply to %s", text);
  cr_assert(ev, "a progress event after the reply to %s", text);
  cr_expect_null(lsn__session_pop(s), "one reply and one event for %s", text);
  cJSON *j = cJSON_Parse(t), *e = cJSON_Parse(ev);
  free(t);
  free(ev);
  const cJSON *pe = cJSON_GetObjectItem(e, "payload"), *pj = cJSON_GetObjectItem(j, "payload");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(e, "type")), "uiap.discovery.progress");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(pe, "status")), "planning");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(pe, "runId")), cJSON_GetStringValue(cJSON_GetObjectItem(pj, "runId")));
  cJSON_Delete(e);
  return j;
}

static const char *str(const cJSON *j, const char *a, const char *b) {
  const cJSON *x = cJSON_GetObjectItem(j, a);
  if (b) x = cJSON_GetObjectItem(x, b);
  return cJSON_IsString(x) ? x->valuestring : "(none)";
}

#define REQ(id, type, payload) \
  "{\"uiap\":\"0.1\",\"kind\":\"request\",\"type\":\"" type "\",\"id\":\"" id "\",\"payload\":" payload "}"

Test(listen, envelope_errors_and_initialize) {
  crawl_listen_opts o = {.url = "http://127.0.0.1:1/"};
  lsn_session *s = lsn__session_new(&o, "/nonexistent", NULL, NULL);
  static const struct { const char *text, *code, *corr; } cases[] = {
    {"not json", "bad_message", "(none)"},
    {"[1,2]", "bad_message", "(none)"},
    {"{\"uiap\":\"0.1\",\"kind\":\"request\",\"id\":\"a1\"}", "bad_message", "a1"},
    {"{\"uiap\":\"0.2\",\"kind\":\"request\",\"type\":\"web.state.get\",\"id\":\"a2\"}", "bad_message", "a2"},
    {REQ("a3", "web.state.get", "[]"), "bad_message", "a3"},
    {REQ("a4", "web.nope", "{}"), "unknown_type", "a4"},
    {REQ("a5", "web.state.get", "{}"), "not_initialized", "a5"},
    {REQ("a6", "session.initialize", "{\"supportedProfiles\":[\"web@9\"]}"), "unsupported_profile", "a6"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    cJSON *r = roundtrip(s, cases[i].text);
    cr_expect_str_eq(str(r, "kind", NULL), "error", "%s", cases[i].text);
    cr_expect_str_eq(str(r, "payload", "code"), cases[i].code, "%s", cases[i].text);
    cr_expect_str_eq(str(r, "correlationId", NULL), cases[i].corr, "%s", cases[i].text);
    cJSON_Delete(r);
  }
  cJSON *r = roundtrip(s, REQ("i1", "session.initialize",
                              "{\"supportedProfiles\":[\"web@0.1\"],\"extensions\":[{\"id\":\"uiap.discovery\",\"versions\":[\"0.1\"]}]}"));
  cr_expect_str_eq(str(r, "type", NULL), "session.initialized");
  cr_expect_str_eq(str(r, "kind", NULL), "response");
  cr_expect_str_eq(str(r, "correlationId", NULL), "i1");
  cr_expect_str_eq(str(r, "sessionId", NULL), str(r, "payload", "sessionId"));
  char *ext = cJSON_PrintUnformatted(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "payload"), "extensions"));
  cr_expect_str_eq(ext, "[{\"id\":\"uiap.discovery\",\"versions\":[\"0.1\"],\"required\":false}]");
  free(ext);
  cJSON_Delete(r);
  r = roundtrip(s, REQ("i2", "web.observe.stop", "{\"subscriptionId\":\"x\"}"));
  cr_expect_str_eq(str(r, "payload", "code"), "not_found", "initialized: the request reaches its handler");
  cJSON_Delete(r);
  lsn__session_free(s);
}

Test(listen, plan_seeds) {
  crawl_listen_opts o = {.url = "http://127.0.0.1:1/"};
  lsn_session *s = lsn__session_new(&o, "/nonexistent", NULL, NULL);
  cJSON_Delete(roundtrip(s, REQ("i", "session.initialize", "{\"supportedProfiles\":[\"web@0.1\"]}")));
  cJSON *r = plan_roundtrip(s, REQ("p1", "uiap.discovery.plan",
    "{\"environment\":{\"environmentId\":\"e\",\"baseUrl\":\"http://127.0.0.1:8000/app/\"},\"seeds\":["
    "{\"kind\":\"url\",\"url\":\"x.html\"},{\"kind\":\"route\",\"routeId\":\"/r\"},"
    "{\"kind\":\"url\",\"url\":\"http://127.0.0.1:8001/\"},{\"kind\":\"menu\",\"label\":\"\"},"
    "{\"kind\":\"documentation\",\"ref\":\"d\"},{\"kind\":\"action\",\"actionId\":\"video.create\"}]}"));
  cr_expect_str_eq(str(r, "type", NULL), "uiap.discovery.planned");
  const cJSON *p = cJSON_GetObjectItem(r, "payload");
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(p, "acceptedSeeds")), 3, "url, route and action seeds");
  const cJSON *rej = cJSON_GetObjectItem(p, "rejectedSeeds");
  cr_assert_eq(cJSON_GetArraySize(rej), 3);
  static const char *const why[] = {"out of scope", "needs a non-empty label", "not one the crawler drives"};
  for (int i = 0; i < 3; i++) {
    const char *reason = str(cJSON_GetArrayItem(rej, i), "reason", NULL);
    cr_expect(strstr(reason, why[i]), "rejected seed %d: %s", i, reason);
  }
  const char *run = str(r, "payload", "runId");
  cr_expect(!strncmp(run, "run_", 4), "%s", run);
  char req[256];
  snprintf(req, sizeof req, REQ("g1", "uiap.discovery.package.get", "{\"runId\":\"%s\"}"), run);
  cJSON *g = roundtrip(s, req);
  cr_expect_str_eq(str(g, "payload", "code"), "not_ready");
  cJSON_Delete(g);
  cJSON_Delete(r);
  r = roundtrip(s, REQ("p2", "uiap.discovery.plan", "{\"environment\":{\"environmentId\":\"e\"}}"));
  cr_expect_str_eq(str(r, "payload", "code"), "bad_plan");
  cr_expect(strstr(str(r, "payload", "message"), "baseUrl"), "%s", str(r, "payload", "message"));
  cJSON_Delete(r);
  lsn__session_free(s);
}

/* One decision for every tool's tab (crawl_guard_for_mode): guarded in
 * every mode but sandbox_write with allowDestructiveActions, and for a tool
 * that only reads (NULL), unless the user lifted it for that tab. */
Test(listen, guard_for_mode) {
  static const struct { pol_mode mode; int destructive, allow_writes, guarded; } cases[] = {
    {POL_MODE_OBSERVE_ONLY, 0, 0, 1},  {POL_MODE_SAFE_EXPLORE, 0, 0, 1},  {POL_MODE_SAFE_EXPLORE, 1, 0, 1},
    {POL_MODE_SANDBOX_WRITE, 0, 0, 1}, {POL_MODE_SANDBOX_WRITE, 1, 0, 0}, {POL_MODE_SAFE_EXPLORE, 0, 1, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    pol_policy p = {.mode = cases[i].mode, .allow_destructive_actions = cases[i].destructive};
    cr_expect_eq(crawl_guard_for_mode(&p, cases[i].allow_writes), cases[i].guarded, "case %zu", i);
  }
  cr_expect(crawl_guard_for_mode(NULL, 0), "a tool that only reads is guarded");
  cr_expect(!crawl_guard_for_mode(NULL, 1), "observe --allow-writes / --connect: lifted");
}

/* mcp.c -- end-to-end: `uiap-crawl mcp`, the MCP server on stdio.
 *
 * session: the official MCP SDK client (tests/support/mcp_client.mjs,
 * @modelcontextprotocol/sdk pinned in package-lock.json, run by Debian's
 * node) lists the tools and drives the fixture server: the snapshot marks
 * each control with the policy's decision; act on a destructive button is
 * refused with its decision and no request reaches /danger/; typing into a
 * password field is refused; a safe toggle is done and shows in changes; a
 * URL off the session's origins loads nothing; no canary (ZQX...) from a
 * boundary page (cross-origin frames, closed shadow roots, password and
 * sensitive values) is in any reply; crawl returns a package that
 * validates.
 *
 * choose: ui.choose on a <select>, with the crawler's per-option decisions.
 *
 * observe_only: --mode observe_only refuses that toggle; nothing changes.
 *
 * protocol: raw JSON-RPC lines without a browser: a parse error, an
 * unknown method, bad params, a notification (no reply), ping.
 */
#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CLIENT UIAP_SRC "/tests/support/mcp_client.mjs"
#define SDK UIAP_SRC "/tests/support/node_modules/@modelcontextprotocol/sdk/package.json"

static void need_sdk(void) {
  struct stat st;
  t_run r = t_run_argv((const char *const[]){"/usr/bin/env", "node", "--version", NULL}, 10000);
  int node = r.status == 0;
  t_run_free(&r);
  if (node && stat(SDK, &st) == 0) return;
  if (t_ci_required()) cr_assert_fail("%s is missing: scripts/deps.sh (npm ci in tests/support)", node ? SDK : "node");
  cr_skip_test("needs node and @modelcontextprotocol/sdk (npm ci in tests/support)");
}

/* The i-th result's text (asserting it is there). */
static const char *result_text(const cJSON *out, int i, int *is_error) {
  const cJSON *res = cJSON_GetArrayItem(cJSON_GetObjectItem(out, "results"), i);
  cr_assert(res, "no result %d", i);
  *is_error = cJSON_IsTrue(cJSON_GetObjectItem(res, "isError"));
  const char *t = cJSON_GetStringValue(cJSON_GetObjectItem(res, "text"));
  cr_assert(t, "result %d has no text", i);
  return t;
}

#define EXPECT_OK(out, i, needle)                                                               \
  do {                                                                                          \
    int e_;                                                                                     \
    const char *t_ = result_text(out, i, &e_);                                                  \
    cr_expect(!e_, "step %d failed: %s", i, t_);                                                \
    cr_expect(strstr(t_, needle), "step %d lacks \"%s\":\n%s", i, needle, t_);                  \
  } while (0)
#define EXPECT_ERR(out, i, needle)                                                              \
  do {                                                                                          \
    int e_;                                                                                     \
    const char *t_ = result_text(out, i, &e_);                                                  \
    cr_expect(e_, "step %d should be a tool error: %s", i, t_);                                 \
    cr_expect(strstr(t_, needle), "step %d lacks \"%s\":\n%s", i, needle, t_);                  \
  } while (0)

/* The steps of the session test, as JSON (static). */
static const char *session_steps(void) {
  static char s[8192];
  char settings[256], canary[256], other[256], crawl_url[256];
  snprintf(settings, sizeof settings, "%s", t_fixture_url(0, NULL, "/mcp/settings.html"));
  snprintf(other, sizeof other, "%s", t_fixture_url(0, "localhost", "/mcp/settings.html"));
  snprintf(crawl_url, sizeof crawl_url, "%s", settings);
  char path[64];
  snprintf(path, sizeof path, "/fidelity/canary.html?p1=%d", t_fixture_port(1));
  snprintf(canary, sizeof canary, "%s", t_fixture_url(0, NULL, path));
  snprintf(s, sizeof s,
           "[{\"tool\":\"navigate\",\"args\":{\"url\":\"%s\"}},"                                /* 0 */
           "{\"tool\":\"snapshot\"},"                                                           /* 1 */
           "{\"tool\":\"act\",\"args\":{\"action\":\"ui.activate\",\"target\":{\"role\":\"button\",\"name\":\"Delete account\"}}}," /* 2 */
           "{\"tool\":\"act\",\"args\":{\"action\":\"ui.enterText\",\"target\":{\"role\":\"textbox\",\"name\":\"Password\"},\"value\":\"hunter2-typed\"}}," /* 3 */
           "{\"tool\":\"act\",\"args\":{\"action\":\"ui.toggle\",\"target\":{\"role\":\"checkbox\",\"name\":\"Dark mode\"}}}," /* 4 */
           "{\"tool\":\"changes\"},"                                                            /* 5 */
           "{\"tool\":\"navigate\",\"args\":{\"url\":\"%s\"}},"                                 /* 6 */
           "{\"tool\":\"snapshot\",\"args\":{\"format\":\"json\"}},"                            /* 7 */
           "{\"tool\":\"navigate\",\"args\":{\"url\":\"%s\"}},"                                 /* 8 */
           "{\"tool\":\"snapshot\"},"                                                           /* 9 */
           "{\"tool\":\"snapshot\",\"args\":{\"format\":\"json\"}},"                            /* 10 */
           "{\"tool\":\"snapshot\",\"args\":{\"maxNodes\":2}},"                                 /* 11 */
           "{\"tool\":\"crawl\",\"args\":{\"url\":\"%s\",\"maxStates\":5,\"maxRuntimeMs\":30000}}]", /* 12 */
           settings, other, canary, crawl_url);
  return s;
}

/* The package path in crawl's reply ("package: PATH\n"), into buf. */
static int package_path(const char *text, char *buf, size_t n) {
  const char *p = strstr(text, "package: ");
  if (!p) return -1;
  p += 9;
  size_t k = strcspn(p, "\n");
  if (k >= n) return -1;
  memcpy(buf, p, k);
  buf[k] = 0;
  return 0;
}

Test(mcp, session, .timeout = 300) {
  need_sdk();
  char *root = t_tmpdir();
  cJSON *hits0 = t_fixture_hit_table();
  const char *argv[] = {"/usr/bin/env", "node", CLIENT, UIAP_BIN, session_steps(), "--output-root", root, "--quiet", NULL};
  t_run r = t_run_argv(argv, 280000);
  cr_assert_eq(r.status, 0, "mcp_client.mjs: exit %d\n%s\n%s", r.status, r.out, r.err);
  cJSON *out = cJSON_Parse(r.out);
  cr_assert(out, "not JSON: %s", r.out);
  /* the tools, and the server's name */
  const char *names[] = {"navigate", "snapshot", "act", "changes", "crawl"};
  for (size_t i = 0; i < 5; i++)
    cr_expect(t_has(out, "tools", names[i]), "tools/list lacks %s", names[i]);
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(out, "server"), "name")), "uiap-crawl");
  EXPECT_OK(out, 0, "loaded ");
  EXPECT_OK(out, 1, "- button \"Delete account\" [denied: destructive]");
  EXPECT_OK(out, 1, "- checkbox \"Dark mode\" [allowed]");
  EXPECT_ERR(out, 2, "refused: deny destructive");
  EXPECT_ERR(out, 3, "refused: deny credential");
  EXPECT_OK(out, 4, "done: ui.toggle checkbox \"Dark mode\"");
  EXPECT_OK(out, 4, "checked: false -> true");
  EXPECT_OK(out, 5, "~ checkbox \"Dark mode\"");
  EXPECT_OK(out, 5, "checked: false -> true");
  EXPECT_OK(out, 5, "~ status textValue: \"off\" -> \"on\"");
  EXPECT_ERR(out, 6, "is not an origin of this session");
  EXPECT_OK(out, 7, "\"policy\":{\"action\":\"ui.activate\",\"effect\":\"deny\",\"reason\":\"destructive\"}");
  EXPECT_OK(out, 9, "Canary boundaries");
  EXPECT_OK(out, 11, "more elements not shown (maxNodes 2)");
  /* no canary and no typed value in any reply */
  const cJSON *res;
  int i = 0;
  cJSON_ArrayForEach(res, cJSON_GetObjectItem(out, "results")) {
    const char *t = cJSON_GetStringValue(cJSON_GetObjectItem(res, "text"));
    const char *c = t ? strstr(t, "ZQX") : NULL;
    cr_expect(!c, "step %d leaks a canary: ...%.60s", i, c ? c : "");
    cr_expect(!t || !strstr(t, "hunter2-typed"), "step %d shows the refused password", i);
    i++;
  }
  /* nothing reached the server's /danger/ endpoints */
  char list[512];
  cr_expect_eq(t_fixture_hits_since(hits0, "/danger/", list, sizeof list), 0, "requests reached /danger/: %s", list);
  /* crawl: a package that validates */
  int err;
  const char *t = result_text(out, 12, &err);
  cr_expect(!err && !strncmp(t, "crawl completed: ", 17) && strncmp(t + 17, "0 states", 8), "crawl: %s", t);
  char pkg[1024];
  cr_assert_eq(package_path(t, pkg, sizeof pkg), 0, "crawl names no package: %s", t);
  cr_expect(!strncmp(pkg, root, strlen(root)), "the package %s is not under --output-root %s", pkg, root);
  t_run v = t_run_argv((const char *const[]){UIAP_BIN, "validate", pkg, NULL}, 60000);
  cr_expect_eq(v.status, 0, "validate %s: %s%s", pkg, v.out, v.err);
  t_run_free(&v);
  cJSON_Delete(out);
  cJSON_Delete(hits0);
  t_run_free(&r);
  t_rm_rf(root);
  free(root);
}

/* --mode observe_only: the toggle a safe_explore session may do is refused,
 * and the page does not change. */
Test(mcp, observe_only, .timeout = 120) {
  need_sdk();
  char steps[2048];
  snprintf(steps, sizeof steps,
           "[{\"tool\":\"navigate\",\"args\":{\"url\":\"%s\"}},{\"tool\":\"snapshot\"},"
           "{\"tool\":\"act\",\"args\":{\"action\":\"ui.toggle\",\"target\":{\"role\":\"checkbox\","
           "\"name\":\"Dark mode\"}}},{\"tool\":\"changes\"}]",
           t_fixture_url(0, NULL, "/mcp/settings.html"));
  const char *argv[] = {"/usr/bin/env", "node", CLIENT, UIAP_BIN, steps, "--mode", "observe_only", "--quiet", NULL};
  t_run r = t_run_argv(argv, 110000);
  cr_assert_eq(r.status, 0, "mcp_client.mjs: exit %d\n%s\n%s", r.status, r.out, r.err);
  cJSON *out = cJSON_Parse(r.out);
  cr_assert(out, "not JSON: %s", r.out);
  EXPECT_OK(out, 1, "- checkbox \"Dark mode\" [");
  int err;
  const char *snap = result_text(out, 1, &err);
  cr_expect(!strstr(snap, "- checkbox \"Dark mode\" [allowed]"), "observe_only allows the toggle:\n%s", snap);
  EXPECT_ERR(out, 2, "refused: ");
  EXPECT_ERR(out, 2, "Nothing was done.");
  EXPECT_OK(out, 3, "no changes");
  cJSON_Delete(out);
  t_run_free(&r);
}

/* --allow-read: the tab the agent drives lets the page's own load-time
 * POST read through (tests/fixtures/safety/search-load.html), so the
 * snapshot shows the list it loaded; without it the list is not there. */
Test(mcp, allow_read, .timeout = 150) {
  need_sdk();
  char steps[2048];
  snprintf(steps, sizeof steps, "[{\"tool\":\"navigate\",\"args\":{\"url\":\"%s\"}},{\"tool\":\"snapshot\"}]",
           t_fixture_url(0, NULL, "/safety/search-load.html"));
  for (int allowed = 0; allowed < 2; allowed++) {
    const char *argv[] = {"/usr/bin/env", "node", CLIENT, UIAP_BIN, steps, "--quiet",
                          allowed ? "--allow-read" : NULL, "POST /__test/search", NULL};
    t_run r = t_run_argv(argv, 110000);
    cr_assert_eq(r.status, 0, "mcp_client.mjs: exit %d\n%s\n%s", r.status, r.out, r.err);
    cJSON *out = cJSON_Parse(r.out);
    cr_assert(out, "not JSON: %s", r.out);
    int err;
    const char *snap = result_text(out, 1, &err);
    if (allowed) cr_expect(snap && strstr(snap, "Open tickets"), "with --allow-read the list loaded:\n%s", snap);
    else cr_expect(snap && !strstr(snap, "Open tickets"), "without --allow-read no list:\n%s", snap);
    cJSON_Delete(out);
    t_run_free(&r);
  }
}

/* ui.choose on a <select>: a filter option is chosen (and shows in the
 * reply); a destructive option, and an option the arrow keys reach only by
 * passing over it, are refused as the crawler refuses them; nothing at
 * /danger/. */
Test(mcp, choose, .timeout = 120) {
  need_sdk();
  char steps[2048];
  const char *sel = "\"target\":{\"role\":\"combobox\",\"name\":";
  snprintf(steps, sizeof steps,
           "[{\"tool\":\"navigate\",\"args\":{\"url\":\"%s\"}},"
           "{\"tool\":\"act\",\"args\":{\"action\":\"ui.choose\",%s\"Status\"},\"option\":\"Closed\"}},"
           "{\"tool\":\"act\",\"args\":{\"action\":\"ui.choose\",%s\"Bulk action\"},\"option\":\"Delete selected\"}},"
           "{\"tool\":\"act\",\"args\":{\"action\":\"ui.choose\",%s\"Bulk action\"},\"option\":\"Group by day\"}},"
           "{\"tool\":\"act\",\"args\":{\"action\":\"ui.choose\",%s\"Status\"},\"option\":\"No such\"}}]",
           t_fixture_url(0, NULL, "/select/index.html"), sel, sel, sel, sel);
  cJSON *hits0 = t_fixture_hit_table();
  const char *argv[] = {"/usr/bin/env", "node", CLIENT, UIAP_BIN, steps, "--quiet", NULL};
  t_run r = t_run_argv(argv, 110000);
  cr_assert_eq(r.status, 0, "mcp_client.mjs: exit %d\n%s\n%s", r.status, r.out, r.err);
  cJSON *out = cJSON_Parse(r.out);
  cr_assert(out, "not JSON: %s", r.out);
  EXPECT_OK(out, 1, "done: ui.choose combobox \"Status\" -> Closed");
  EXPECT_ERR(out, 2, "refused: deny destructive");
  EXPECT_ERR(out, 3, "the arrow keys pass over option 2 on the way");
  EXPECT_ERR(out, 4, "no option \"No such\"");
  char list[512];
  cr_expect_eq(t_fixture_hits_since(hits0, "/danger/", list, sizeof list), 0, "requests reached /danger/: %s", list);
  cJSON_Delete(out);
  cJSON_Delete(hits0);
  t_run_free(&r);
}

/* Two buttons share data-uiap-id="acct-btn" (tests/fixtures/safety/shared-id.html):
 * act on "Show details" opens it and never clicks "Delete account"; act by
 * the shared stableId alone is refused as ambiguous; nothing at /danger/. */
Test(mcp, act_clicks_the_element_decided_on, .timeout = 120) {
  need_sdk();
  char steps[2048];
  snprintf(steps, sizeof steps,
           "[{\"tool\":\"navigate\",\"args\":{\"url\":\"%s\"}},"
           "{\"tool\":\"act\",\"args\":{\"action\":\"ui.expand\",\"target\":{\"role\":\"button\",\"name\":\"Show details\"}}},"
           "{\"tool\":\"act\",\"args\":{\"action\":\"ui.activate\",\"target\":{\"stableId\":\"acct-btn\"}}}]",
           t_fixture_url(0, NULL, "/safety/shared-id.html"));
  cJSON *hits0 = t_fixture_hit_table();
  const char *argv[] = {"/usr/bin/env", "node", CLIENT, UIAP_BIN, steps, "--quiet", NULL};
  t_run r = t_run_argv(argv, 110000);
  cr_assert_eq(r.status, 0, "mcp_client.mjs: exit %d\n%s\n%s", r.status, r.out, r.err);
  cJSON *out = cJSON_Parse(r.out);
  cr_assert(out, "not JSON: %s", r.out);
  EXPECT_OK(out, 1, "done: ui.expand button \"Show details\"");
  EXPECT_ERR(out, 2, "ambiguous target");
  EXPECT_ERR(out, 2, "Nothing was done.");
  char list[512];
  cr_expect_eq(t_fixture_hits_since(hits0, "/danger/", list, sizeof list), 0, "requests reached /danger/: %s", list);
  cJSON_Delete(out);
  cJSON_Delete(hits0);
  t_run_free(&r);
}

/* Raw lines on stdin; the server's stdout. */
static t_run raw_session(const char *lines) {
  char *dir = t_tmpdir(), in[600], cmd[1400];
  snprintf(in, sizeof in, "%s/in.jsonl", dir);
  cr_assert_eq(t_write_file(in, lines), 0);
  snprintf(cmd, sizeof cmd, "exec %s mcp --quiet < %s", UIAP_BIN, in);
  t_run r = t_run_argv((const char *const[]){"/bin/sh", "-c", cmd, NULL}, 30000);
  t_rm_rf(dir);
  free(dir);
  return r;
}

Test(mcp, protocol, .timeout = 60) {
  t_run r = raw_session(
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
    "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
    "{not json\n"
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"no/such\"}\n"
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"navigate\",\"arguments\":{}}}\n"
    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"no_tool\"}}\n"
    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\n"
    "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"1999-01-01\"}}\n"
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"snapshot\"}}\n");
  cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  const char *want[] = {
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},"
    "\"serverInfo\":{\"name\":\"uiap-crawl\"",
    "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,",
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32601,",
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,\"message\":\"navigate needs url",
    "{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32602,\"message\":\"unknown tool: no_tool\"",
    "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}",
    "{\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{\"protocolVersion\":\"2025-11-25\"",
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"no page yet: call navigate first\"}],\"isError\":true}}",
  };
  /* one line per request, in order; none for the notification */
  char *line = r.out;
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    cr_assert(line && *line, "reply %zu missing; stdout:\n%s", i, r.out);
    cr_expect(!strncmp(line, want[i], strlen(want[i])), "reply %zu:\n%.300s\nwanted it to start with\n%s", i, line, want[i]);
    char *nl = strchr(line, '\n');
    line = nl ? nl + 1 : NULL;
  }
  cr_expect(!line || !*line, "more replies than requests: %s", line);
  t_run_free(&r);
}

/* useragent.c -- end-to-end: the User-Agent a crawler tab presents (issue
 * #27; docs/sessions.md), in real headless Chromium on the fixture server's
 * /__test/agent page, which shows the User-Agent header it received
 * (button "H:...") and navigator.userAgent (button "J:..."). By default
 * both are the browser's own string with "HeadlessChrome" as "Chrome" (what
 * `login`'s headed browser says); --user-agent sets both verbatim; a value
 * with a control character or an empty one is refused with exit 2. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

/* The name after prefix ("H:" or "J:") of the graph's button that starts
 * with it, or NULL. */
static const char *agent_shown(const cJSON *g, const char *prefix) {
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(g, "elements")) {
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(e, "name"));
    if (name && !strncmp(name, prefix, strlen(prefix))) return name + strlen(prefix);
  }
  return NULL;
}

static cJSON *snap(const char *const *args) {
  t_run run;
  int left = 0;
  const char *url = t_fixture_url(0, NULL, "/__test/agent");
  cJSON *g = t_snapshot(&run, &left, url, args);
  cr_assert(g, "snapshot of %s failed (exit %d): %s", url, run.status, run.err);
  cr_expect_eq(left, 0, "Chromium or its temp profile outlived the run");
  t_run_free(&run);
  return g;
}

Test(useragent, default_is_chrome_not_headless) {
  static const char *const none[] = {NULL};
  cJSON *g = snap(none);
  const char *h = agent_shown(g, "H:"), *j = agent_shown(g, "J:");
  cr_assert(h && j, "both buttons are published");
  cr_expect(strstr(h, "Chrome/") && !strstr(h, "HeadlessChrome"), "the header: %s", h);
  cr_expect(strstr(j, "Chrome/") && !strstr(j, "HeadlessChrome"), "navigator.userAgent: %s", j);
  cr_expect_str_eq(h, j, "the header and navigator.userAgent agree");
  /* the client hints as the browser's own: brands (never empty, which no
   * browser shows, never HeadlessChrome), and the header with them */
  const char *b = agent_shown(g, "B:"), *c = agent_shown(g, "C:");
  cr_assert(b && c, "the client-hint buttons are published");
  cr_expect(strstr(b, "Chromium/") && !strstr(b, "Headless"), "navigator.userAgentData.brands: %s", b);
  cr_expect(strstr(c, "\"Chromium\"") && !strstr(c, "Headless"), "the Sec-CH-UA header: %s", c);
  cJSON_Delete(g);
}

/* A Chrome --user-agent takes its version into the client hints, so that
 * navigator.userAgentData agrees with the string. */
Test(useragent, client_hints_follow_a_chrome_agent) {
  static const char *const args[] = {"--user-agent",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.71 Safari/537.36",
    NULL};
  cJSON *g = snap(args);
  const char *b = agent_shown(g, "B:");
  cr_assert(b, "the brands button is published");
  cr_expect(strstr(b, "Chromium/120"), "the brands carry the agent's major version: %s", b);
  cJSON_Delete(g);
}

Test(useragent, flag_sets_both_verbatim) {
  static const char *const args[] = {"--user-agent", "uiap-test-agent/1.0", NULL};
  cJSON *g = snap(args);
  const char *h = agent_shown(g, "H:"), *j = agent_shown(g, "J:");
  cr_assert(h && j, "both buttons are published");
  cr_expect_str_eq(h, "uiap-test-agent/1.0");
  cr_expect_str_eq(j, "uiap-test-agent/1.0");
  cJSON_Delete(g);
}

/* The crawl's tabs too: the state the crawl wrote shows the string. */
Test(useragent, crawl_flag_reaches_the_states) {
  char *dir = t_tmpdir(), *tmp = t_tmpdir();
  char out[600], tmpenv[600];
  snprintf(out, sizeof out, "%s/out", dir);
  snprintf(tmpenv, sizeof tmpenv, "TMPDIR=%s", tmp);
  const char *argv[] = {"/usr/bin/env", tmpenv, UIAP_BIN, "crawl", t_fixture_url(0, NULL, "/__test/agent"),
                        "--user-agent", "uiap-test-agent/1.0", "--max-states", "1", "-o", out, NULL};
  t_run r = t_run_argv(argv, 300000);
  cr_expect_eq(r.status, 0, "crawl exit %d: %s", r.status, r.err);
  cr_expect_eq(t_leftovers(tmp), 0, "Chromium or its profile outlived the crawl");
  char found[1024] = "";
  static const char *const both[] = {"H:uiap-test-agent/1.0", "J:uiap-test-agent/1.0", NULL};
  char states[700];
  snprintf(states, sizeof states, "%s/states", out);
  cr_expect_eq(t_tree_grep(states, both, found, sizeof found), 2, "both in the one state: %s", found);
  static const char *const headless[] = {"HeadlessChrome", NULL};
  cr_expect_eq(t_tree_grep(out, headless, found, sizeof found), 0, "no HeadlessChrome: %s", found);
  t_run_free(&r);
  t_rm_rf(dir);
  rmdir(tmp);
  free(dir);
  free(tmp);
}

static int lines(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

Test(useragent, bad_value_exit_2) {
  static const char *const bad[] = {"uiap\nagent", "", "a\tb", NULL};
  for (int i = 0; bad[i]; i++) {
    t_run r = t_run_argv((const char *[]){UIAP_BIN, "snapshot", "http://127.0.0.1:1/", "--user-agent", bad[i], NULL},
                         10000);
    cr_expect_eq(r.status, 2, "snapshot --user-agent %d: exit %d", i, r.status);
    cr_expect(strstr(r.err, "--user-agent") && lines(r.err) == 1, "one line: %s", r.err);
    t_run_free(&r);
    r = t_run_argv((const char *[]){UIAP_BIN, "crawl", "http://127.0.0.1:1/", "--user-agent", bad[i], "-o",
                                    "/nonexistent/x", NULL},
                   10000);
    cr_expect_eq(r.status, 2, "crawl --user-agent %d: exit %d", i, r.status);
    cr_expect(strstr(r.err, "--user-agent"), "%s", r.err);
    t_run_free(&r);
  }
}

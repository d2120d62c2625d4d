/* snapshot.c -- end-to-end: `uiap-crawl snapshot` against fixture pages
 * served on loopback, in real headless Chromium. Every output is validated
 * against shared/spec/schema.json; every run must leave no Chromium process
 * and no temporary profile behind. */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

static const char *const NONE[] = {NULL};

#define SNAP(graph, url, args)                                                       \
  t_run run_;                                                                        \
  int left_ = 0;                                                                     \
  cJSON *graph = t_snapshot(&run_, &left_, url, args);                               \
  cr_assert(graph, "snapshot of %s failed (exit %d): %s", url, run_.status, run_.err); \
  cr_expect_eq(left_, 0, "Chromium or its temp profile outlived the run");

Test(snapshot, spec_example_form) {
  SNAP(g, t_fixture_url(0, NULL, "/snapshot/spec-example.html"), NONE);
  const cJSON *title = NULL, *submit = NULL, *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(g, "elements")) {
    const char *sid = cJSON_GetStringValue(cJSON_GetObjectItem(e, "stableId"));
    if (sid && !strcmp(sid, "video.title")) title = e;
    if (sid && !strcmp(sid, "video.submit")) submit = e;
  }
  cr_assert(title && submit, "both annotated elements are published");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(title, "role")), "textbox");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(title, "name")), "Titel");
  cr_expect_eq(t_state(title, "required"), 1);
  cr_expect(t_has(title, "supportedActions", "ui.enterText"));
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(submit, "role")), "button");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(submit, "name")), "Video erstellen");
  cr_expect(t_has(submit, "supportedActions", "video.create"));
  cr_expect(t_has(submit, "supportedActions", "ui.activate"));
  cr_expect(t_has(submit, "affordances", "invoke"));
  const cJSON *risk = cJSON_GetObjectItem(submit, "risk");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(risk, "level")), "confirm");
  const cJSON *hints = cJSON_GetObjectItem(cJSON_GetObjectItem(title, "targetHints"), "annotations");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(hints, "meaning")), "title");
  /* both sit in the form scope named by data-uiap-scope */
  const char *scope = cJSON_GetStringValue(cJSON_GetObjectItem(submit, "scopeId"));
  const cJSON *s, *form = NULL;
  cJSON_ArrayForEach(s, cJSON_GetObjectItem(g, "scopes"))
    if (scope && !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(s, "scopeId")), scope)) form = s;
  cr_assert(form, "the submit button's scope is published");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(form, "kind")), "form");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(form, "stableId")), "video.create.form");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(title, "scopeId")), scope);
  const cJSON *route = cJSON_GetObjectItem(g, "route");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(route, "title")), "Neues Video");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(route, "pathname")), "/snapshot/spec-example.html");
  cJSON_Delete(g);
  t_run_free(&run_);
}

Test(snapshot, element_states) {
  SNAP(g, t_fixture_url(0, NULL, "/snapshot/states.html"), NONE);
  const cJSON *dis = t_element(g, "button", "Disabled action");
  cr_assert(dis);
  cr_expect_eq(t_state(dis, "enabled"), 0);
  cr_expect(!t_has(dis, "supportedActions", "ui.activate"), "a disabled button supports no ui.activate");
  const cJSON *cb = t_element(g, "checkbox", "Remember me");
  cr_assert(cb);
  cr_expect_eq(t_state(cb, "checked"), 1);
  cr_expect(t_has(cb, "supportedActions", "ui.toggle"));
  const cJSON *menu = t_element(g, "button", "Open menu");
  cr_assert(menu);
  cr_expect_eq(t_state(menu, "expanded"), 0);
  cr_expect(t_has(menu, "supportedActions", "ui.expand"));
  const cJSON *sel = t_element(g, "combobox", "Country");
  cr_assert(sel);
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(sel, "textValue")), "France");
  cr_expect(t_has(sel, "supportedActions", "ui.choose"));
  const cJSON *email = t_element(g, "textbox", "Email");
  cr_assert(email);
  cr_expect_eq(t_state(email, "invalid"), 1);
  cr_expect(!t_element(g, NULL, "Hidden by CSS"), "a display:none button is absent by default");
  const cJSON *cov = t_element(g, "button", "Covered button");
  cr_assert(cov);
  const cJSON *sem = cJSON_GetObjectItem(cov, "semantics");
  cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(sem, "obscured")), "the overlaid button is obscured");
  cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(sem, "inViewport")));
  const cJSON *far = t_element(g, "button", "Far below");
  cr_assert(far);
  sem = cJSON_GetObjectItem(far, "semantics");
  cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(sem, "inViewport")), "the far button is out of view");
  cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(sem, "obscured")));
  /* the menu button is not obscured either: the overlay only covers its own box */
  cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(menu, "semantics"), "obscured")));
  cJSON_Delete(g);
  t_run_free(&run_);
}

Test(snapshot, include_hidden) {
  const char *const args[] = {"--include-hidden", NULL};
  SNAP(g, t_fixture_url(0, NULL, "/snapshot/states.html"), args);
  const cJSON *h = t_element(g, "button", "Hidden by CSS");
  cr_assert(h, "--include-hidden publishes the display:none button");
  cr_expect_eq(t_state(h, "visible"), 0);
  cJSON_Delete(g);
  t_run_free(&run_);
}

Test(snapshot, envelope_and_text) {
  const char *const env[] = {"--envelope", NULL};
  SNAP(m, t_fixture_url(0, NULL, "/snapshot/spec-example.html"), env);
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(m, "type")), "web.state.snapshot");
  cr_expect(cJSON_GetObjectItem(cJSON_GetObjectItem(m, "payload"), "graph"));
  cJSON_Delete(m);
  t_run_free(&run_);
  const char *argv[] = {UIAP_BIN, "snapshot", t_fixture_url(0, NULL, "/snapshot/spec-example.html"),
                        "--format", "text", NULL};
  t_run r = t_run_argv(argv, 60000);
  cr_assert_eq(r.status, 0, "%s", r.err);
  cr_expect(strstr(r.out, "textbox \"Titel\" [required] {video.title}"), "text tree: %s", r.out);
  cr_expect(strstr(r.out, "form \"Video erstellen\" {video.create.form}"), "text tree: %s", r.out);
  t_run_free(&r);
}

/* ---- errors: one line on stderr, documented exit code, within the timeout ---- */
static void expect_error(const char *const *argv, int code, const char *needle, int max_ms) {
  t_run r = t_run_argv(argv, max_ms + 5000);
  cr_expect_eq(r.status, code, "exit %d, wanted %d; stderr: %s", r.status, code, r.err);
  cr_expect(r.ms <= max_ms, "took %lld ms", r.ms);
  size_t len = strlen(r.err);
  cr_expect(len > 0 && strchr(r.err, '\n') == r.err + len - 1, "one line on stderr, got: %s", r.err);
  cr_expect(strstr(r.err, needle), "stderr names the problem (%s): %s", needle, r.err);
  cr_expect_str_eq(r.out, "", "nothing on stdout");
  t_run_free(&r);
}

Test(snapshot_errors, unreachable_url) {
  /* a port nothing listens on: take a free one and close it again */
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t al = sizeof a;
  cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  getsockname(fd, (struct sockaddr *)&a, &al);
  close(fd); /* now nothing listens there */
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/", ntohs(a.sin_port));
  const char *argv[] = {UIAP_BIN, "snapshot", url, NULL};
  expect_error(argv, 4, "ERR_CONNECTION_REFUSED", 20000);
}

Test(snapshot_errors, unresolvable_host) {
  const char *argv[] = {UIAP_BIN, "snapshot", "http://no-such-host.invalid/", NULL};
  expect_error(argv, 4, "ERR_NAME_NOT_RESOLVED", 20000);
}

Test(snapshot_errors, bad_scheme) {
  const char *argv[] = {UIAP_BIN, "snapshot", "ftp://example.com/", NULL};
  expect_error(argv, 2, "unsupported URL", 2000);
  const char *argv2[] = {UIAP_BIN, "snapshot", "javascript:alert(1)", NULL};
  expect_error(argv2, 2, "unsupported URL", 2000);
}

Test(snapshot_errors, missing_chromium) {
  const char *argv[] = {UIAP_BIN, "snapshot", "--chromium", "/nonexistent/chromium", "http://127.0.0.1:9/", NULL};
  expect_error(argv, 3, "/nonexistent/chromium", 2000);
  const char *argv2[] = {"/usr/bin/env", "PATH=/nonexistent", "UIAP_CHROMIUM=", UIAP_BIN, "snapshot",
                         "http://127.0.0.1:9/", NULL};
  expect_error(argv2, 3, "no Chromium found", 2000);
}

Test(snapshot_errors, broken_chromium) {
  /* a "browser" that exits at once */
  const char *argv[] = {UIAP_BIN, "snapshot", "--chromium", "/bin/false", "http://127.0.0.1:9/", NULL};
  expect_error(argv, 3, "did not start", 10000);
}

Test(snapshot_errors, connect_closed_port) {
  const char *argv[] = {UIAP_BIN, "snapshot", "--connect", "http://127.0.0.1:9", "http://127.0.0.1:9/", NULL};
  expect_error(argv, 6, "127.0.0.1:9", 12000);
}

Test(snapshot_errors, unknown_flag) {
  const char *argv[] = {UIAP_BIN, "snapshot", "--frobnicate", "http://127.0.0.1:9/", NULL};
  expect_error(argv, 2, "--frobnicate", 2000);
}

/* ---- lifecycle: SIGINT stops promptly and cleans up; SIGKILL takes Chromium along ---- */
static pid_t spawn_snapshot(const char *tmp, const char *url) {
  pid_t pid = fork();
  if (pid == 0) {
    setenv("TMPDIR", tmp, 1);
    freopen("/dev/null", "w", stdout);
    char errp[600];
    snprintf(errp, sizeof errp, "%s.stderr", tmp);
    freopen(errp, "w", stderr);
    execl(UIAP_BIN, UIAP_BIN, "snapshot", url, "--timeout-ms", "60000", "--settle-ms", "60000", (char *)NULL);
    _exit(127);
  }
  return pid;
}

static int wait_browser_up(const char *tmp, int ms) {
  for (int i = 0; i < ms / 50; i++) {
    if (t_count_procs(tmp) > 0) return 1;
    usleep(50000);
  }
  return 0;
}

static int wait_gone(const char *tmp, int ms) {
  for (int i = 0; i < ms / 50; i++) {
    if (t_count_procs(tmp) == 0) return 1;
    usleep(50000);
  }
  return 0;
}

Test(snapshot_lifecycle, sigint_cleans_up) {
  char *tmp = t_tmpdir();
  pid_t pid = spawn_snapshot(tmp, t_fixture_url(0, NULL, "/snapshot/slow.html"));
  cr_assert(wait_browser_up(tmp, 10000), "Chromium started");
  usleep(500000);
  kill(pid, SIGINT);
  int st = 0;
  long long t0 = 0;
  for (int i = 0; i < 100 && waitpid(pid, &st, WNOHANG) == 0; i++, t0 += 50) usleep(50000);
  cr_assert(t0 < 5000, "the crawler stopped within 5 s of SIGINT");
  cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 130, "exit 130 after SIGINT");
  cr_expect(wait_gone(tmp, 3000), "no Chromium left");
  cr_expect_eq(t_dir_entries(tmp), 0, "temporary profile removed");
  rmdir(tmp);
  free(tmp);
}

Test(snapshot_lifecycle, sigkill_takes_chromium_along) {
  char *tmp = t_tmpdir();
  pid_t pid = spawn_snapshot(tmp, t_fixture_url(0, NULL, "/snapshot/slow.html"));
  cr_assert(wait_browser_up(tmp, 10000), "Chromium started");
  usleep(500000);
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  cr_expect(wait_gone(tmp, 5000), "Chromium exits when the crawler is SIGKILLed");
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  (void)!system(cmd);
  free(tmp);
}

/* A credential in the URL the user gives (issue #25, 7) is a secret of the
 * run: the page's URL in the graph, its links to itself and the terminal
 * never show it. */
Test(snapshot, a_token_in_the_url_given_is_in_no_output) {
  SNAP(g, t_fixture_url(0, NULL, "/safety/recipe-home.html?access_token=TOKSECRET4417xyz"), NONE);
  char *text = cJSON_PrintUnformatted(g);
  cr_expect(text && !strstr(text, "TOKSECRET4417xyz"), "the graph shows the URL's token: %s", text);
  cr_expect(!strstr(run_.out, "TOKSECRET4417xyz") && !strstr(run_.err, "TOKSECRET4417xyz"),
            "the terminal shows the URL's token");
  free(text);
  cJSON_Delete(g);
  t_run_free(&run_);
}

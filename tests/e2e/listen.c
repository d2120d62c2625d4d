/* listen.c -- end-to-end: `uiap-crawl listen` and a WebSocket client
 * (tests/support/uiap_ws_client.mjs, Node with the pinned `ws`) that walks
 * one whole session: the token, path and Origin refusals, errors for
 * malformed messages and for requests before session.initialize (the
 * session stays usable), initialize, web.state.get, web.observe with
 * deltas whose bases chain and a status.changed web.signal, a discovery plan with accepted and rejected
 * seeds, start / pause / resume / result / package.get, and a cancelled
 * run. Every message the server sent is validated with ajv against
 * shared/spec/schema.json: the envelope as UiapMessage, the payload by its
 * type. Without node or ws the test is skipped, except under CI=true. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

/* The payload definition of each message type the server sends. */
static const struct { const char *type, *def; } payload_defs[] = {
  {"web.state.snapshot", "WebStateSnapshotPayload"},   {"web.observe.started", "WebObserveStartedPayload"},
  {"web.state.delta", "WebStateDeltaPayload"},         {"web.signal", "WebSignalPayload"},
  {"web.observe.stopped", "WebObserveStoppedPayload"}, {"uiap.discovery.planned", "DiscoveryPlannedPayload"},
  {"uiap.discovery.started", "DiscoveryStartedPayload"}, {"uiap.discovery.progress", "DiscoveryProgressPayload"},
  {"uiap.discovery.paused", "DiscoveryPausedPayload"}, {"uiap.discovery.resumed", "DiscoveryResumedPayload"},
  {"uiap.discovery.cancelled", "DiscoveryCancelledPayload"}, {"uiap.discovery.result", "DiscoveryResultPayload"},
  {"uiap.discovery.package", "DiscoveryPackagePayload"},
};
#define NDEFS (sizeof payload_defs / sizeof *payload_defs)

typedef struct {
  pid_t pid;
  char url[512];
  char *tmp;                    /* holds runs/, where the discovery runs write */
  char runs[512];
} listener;

/* uiap-crawl listen URL in the background; its first stdout line read. */
static void listen_start(listener *l, const char *page) {
  l->tmp = t_tmpdir();
  snprintf(l->runs, sizeof l->runs, "%s/runs", l->tmp);
  int fd[2];
  cr_assert_eq(pipe(fd), 0);
  l->pid = fork();
  cr_assert(l->pid >= 0);
  if (l->pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    execl(UIAP_BIN, UIAP_BIN, "listen", page, "--runs-dir", l->runs, "--quiet", (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  FILE *f = fdopen(fd[0], "r");
  char line[1024] = "";
  cr_assert(fgets(line, sizeof line, f), "listen printed its address");
  fclose(f);
  cJSON *j = cJSON_Parse(line);
  const char *url = cJSON_GetStringValue(cJSON_GetObjectItem(j, "url"));
  const char *token = cJSON_GetStringValue(cJSON_GetObjectItem(j, "token"));
  cr_assert(url && token, "one JSON line with url and token: %s", line);
  cr_expect(!strncmp(url, "ws://127.0.0.1:", 15), "loopback only: %s", url);
  cr_expect(strstr(url, token) && strlen(token) >= 32, "the URL carries a token of 128 bits: %s", url);
  snprintf(l->url, sizeof l->url, "%s", url);
  cJSON_Delete(j);
}

/* SIGTERM; the exit status. */
static int listen_stop(listener *l) {
  int st = 0;
  kill(l->pid, SIGTERM);
  waitpid(l->pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Every message in path as UiapMessage, and each payload by its type. */
static void validate_all(const char *path, const char *dir) {
  char msg[8192], out[NDEFS][600];
  size_t len;
  char *text = t_read_file(path, &len);
  cr_assert(text, "the client wrote %s", path);
  FILE *f[NDEFS] = {0};
  int counts[NDEFS] = {0}, n = 0;
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    cJSON *m = cJSON_Parse(line);
    cr_assert(m, "a message is JSON: %.200s", line);
    n++;
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(m, "type"));
    for (size_t i = 0; type && i < NDEFS; i++) {
      if (strcmp(type, payload_defs[i].type)) continue;
      if (!f[i]) {
        snprintf(out[i], sizeof out[i], "%s/%s.jsonl", dir, payload_defs[i].def);
        f[i] = fopen(out[i], "w");
      }
      char *p = cJSON_PrintUnformatted(cJSON_GetObjectItem(m, "payload"));
      fprintf(f[i], "%s\n", p);
      free(p);
      counts[i]++;
    }
    cJSON_Delete(m);
  }
  free(text);
  cr_expect_gt(n, 40, "the session saw many messages (%d)", n);
  cr_expect_eq(t_validate("UiapMessage", path, msg, sizeof msg), 0, "every envelope is a UiapMessage:\n%s", msg);
  for (size_t i = 0; i < NDEFS; i++) {
    if (!f[i]) {
      cr_expect_fail("the session sent no %s", payload_defs[i].type);
      continue;
    }
    fclose(f[i]);
    cr_expect_eq(t_validate(payload_defs[i].def, out[i], msg, sizeof msg), 0, "%d %s payloads validate:\n%s",
                 counts[i], payload_defs[i].type, msg);
  }
}

static const cJSON *at(const cJSON *j, const char *path) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *k = strtok(buf, "."); k && j; k = strtok(NULL, ".")) j = cJSON_GetObjectItem(j, k);
  return j;
}

static const char *str(const cJSON *j, const char *path) {
  const char *s = cJSON_GetStringValue(at(j, path));
  return s ? s : "(none)";
}

static int yes(const cJSON *j, const char *path) {
  return cJSON_IsTrue(at(j, path));
}

static double num(const cJSON *j, const char *path) {
  const cJSON *x = at(j, path);
  return cJSON_IsNumber(x) ? x->valuedouble : -1;
}

/* An error reply with this code and correlationId. */
#define EXPECT_ERROR(r, key, code_, corr)                                                                \
  do {                                                                                                   \
    cr_expect_str_eq(str(r, "errors." key ".kind"), "error", key " is answered by an error");            \
    cr_expect_str_eq(str(r, "errors." key ".code"), code_, key "'s error code");                         \
    if (corr) cr_expect_str_eq(str(r, "errors." key ".correlationId"), (const char *)(corr), key " names its request"); \
  } while (0)

static void check_session(const cJSON *r) {
  cr_expect(yes(r, "ok"), "the client walked the whole session: %s", str(r, "error"));
  /* who may connect */
  cr_expect(yes(r, "refusals.noToken"), "no token: refused");
  cr_expect(yes(r, "refusals.badToken"), "a wrong token: refused");
  cr_expect(yes(r, "refusals.badPath"), "another path: refused");
  cr_expect(yes(r, "refusals.foreignOrigin"), "Origin http://evil.example: refused");
  cr_expect(yes(r, "refusals.lookalikeOrigin"), "Origin http://127.0.0.1.evil.example: refused");
  cr_expect(!yes(r, "refusals.loopbackOrigin"), "Origin http://localhost:5173 is let in");
  /* errors, and the session goes on */
  EXPECT_ERROR(r, "beforeInit", "not_initialized", "c_1");
  EXPECT_ERROR(r, "notJson", "bad_message", NULL);
  cr_expect(cJSON_IsNull(at(r, "errors.notJson.correlationId")), "no id to correlate in a non-JSON message");
  EXPECT_ERROR(r, "noType", "bad_message", "m_notype");
  EXPECT_ERROR(r, "unknownType", "unknown_type", "c_2");
  EXPECT_ERROR(r, "notRequest", "bad_message", "m_event");
  EXPECT_ERROR(r, "initTwice", "already_initialized", NULL);
  EXPECT_ERROR(r, "badGet", "bad_request", NULL);
  EXPECT_ERROR(r, "badSignals", "bad_request", NULL);
  EXPECT_ERROR(r, "observeTwice", "conflict", NULL);
  EXPECT_ERROR(r, "stopUnknown", "not_found", NULL);
  /* initialize */
  const char *sid = str(r, "initialized.payload.sessionId");
  cr_expect_str_eq(str(r, "initialized.type"), "session.initialized");
  cr_expect_str_eq(str(r, "initialized.sessionId"), sid, "the envelope carries the session id");
  char *ext = cJSON_PrintUnformatted(at(r, "initialized.payload.extensions"));
  cr_expect_str_eq(ext, "[{\"id\":\"uiap.discovery\",\"versions\":[\"0.1\"],\"required\":false}]");
  free(ext);
  cr_expect_eq(cJSON_GetArraySize(at(r, "initialized.payload.selectedProfiles")), 1);
  /* web.state.get */
  cr_expect_str_eq(str(r, "snapshot.type"), "web.state.snapshot");
  cr_expect_str_eq(str(r, "snapshot.kind"), "response");
  cr_expect_str_eq(str(r, "snapshot.sessionId"), sid);
  cr_expect_geq(num(r, "snapshot.elements"), 2, "the ticker's heading and button");
  /* observe */
  cr_expect_str_eq(str(r, "observe.started.kind"), "response");
  cr_expect_str_eq(str(r, "observe.initialRevision"), str(r, "observe.snapshotRevision"));
  cr_expect_geq(num(r, "observe.deltas"), 1, "deltas follow the snapshot while the page changes");
  cr_expect(yes(r, "observe.chain"), "each delta's baseRevision is the revision before it");
  cr_expect_eq(cJSON_GetArraySize(at(r, "observe.sessionIds")), 1);
  cr_expect_str_eq(str(r, "observe.signal.kind"), "event", "a status.changed web.signal, as asked");
  cr_expect_str_eq(str(r, "observe.signal.sessionId"), sid);
  cr_expect_str_eq(str(r, "observe.stopped.kind"), "response");
  cr_expect_str_eq(str(r, "observe.stoppedSub"), str(r, "observe.subscriptionId"));
}

static void check_discovery(const cJSON *r) {
  cr_expect_eq(cJSON_GetArraySize(at(r, "discovery.accepted")), 1, "the in-scope url seed is accepted");
  const cJSON *rej = at(r, "discovery.rejected");
  cr_expect_eq(cJSON_GetArraySize(rej), 2, "the foreign url and the workflow seed are rejected");
  const char *r0 = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(rej, 0), "reason"));
  const char *r1 = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(rej, 1), "reason"));
  cr_expect(r0 && strstr(r0, "out of scope"), "reason: %s", r0 ? r0 : "(none)");
  cr_expect(r1 && strstr(r1, "workflow"), "reason: %s", r1 ? r1 : "(none)");
  cr_expect_str_eq(str(r, "discovery.badPlan.code"), "bad_plan");
  cr_expect_str_eq(str(r, "discovery.unknownRun.code"), "not_found");
  cr_expect_str_eq(str(r, "discovery.packageEarly.code"), "not_ready");
  cr_expect_str_eq(str(r, "discovery.started.type"), "uiap.discovery.started");
  cr_expect_str_eq(str(r, "discovery.paused.status"), "paused");
  const cJSON *ps = at(r, "discovery.pausedStates");
  double p0 = cJSON_GetArrayItem(ps, 0) ? cJSON_GetArrayItem(ps, 0)->valuedouble : -1;
  double p1 = cJSON_GetArrayItem(ps, 1) ? cJSON_GetArrayItem(ps, 1)->valuedouble : -2;
  cr_expect(p0 >= 1 && p0 == p1, "no state is visited while paused (%g then %g)", p0, p1);
  cr_expect(!yes(r, "discovery.resultWhilePaused"), "a paused run does not finish");
  cr_expect_str_eq(str(r, "discovery.busy.code"), "busy", "one run at a time: a second start while one is paused");
  cr_expect_str_eq(str(r, "discovery.resumed.status"), "exploring");
  cr_expect(yes(r, "discovery.resultAfterResume"));
  cr_expect_str_eq(str(r, "discovery.resultStatus"), "completed");
  cr_expect_gt(num(r, "discovery.resultStates"), p1, "the run went on after resume (%g states)", num(r, "discovery.resultStates"));
  cr_expect_str_eq(str(r, "discovery.resultRunId"), str(r, "discovery.runId"));
  cr_expect_gt(num(r, "discovery.progress"), 1, "progress events came");
  /* the lifecycle in the mapper's order (10.1, 10.2), planning at the plan */
  static const char *const order[] = {"planning", "preparing", "seeding", "exploring", "extracting", "synthesizing", "reviewing"};
  const cJSON *sts = at(r, "discovery.statuses"), *s;
  int last = -1;
  cJSON_ArrayForEach(s, sts) {
    int k = 0;
    while (k < 7 && strcmp(order[k], cJSON_GetStringValue(s) ? cJSON_GetStringValue(s) : "")) k++;
    cr_expect(k < 7 && k > last, "progress status %s after %s", cJSON_GetStringValue(s), last >= 0 ? order[last] : "nothing");
    last = k;
  }
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(sts, 0)), "planning", "the first status is planning");
  cr_expect_eq(last, 6, "reviewing is the last step reported");
  cr_expect_str_eq(str(r, "discovery.package.type"), "uiap.discovery.package");
  cr_expect(yes(r, "discovery.package.same"), "package.get returns the result's package");
  cr_expect_str_eq(str(r, "discovery.pauseOver.code"), "conflict", "a finished run cannot be paused");
  cr_expect_str_eq(str(r, "discovery.cancel.status"), "cancelled");
  cr_expect_str_eq(str(r, "discovery.cancel.resultStatus"), "cancelled");
  cr_expect_str_eq(str(r, "discovery.cancel.packageStatus"), "cancelled", "a cancelled run writes a cancelled package");
  cr_expect_str_eq(str(r, "after.type"), "web.state.snapshot", "the session is usable at the end");
}

/* node and ws are there; else the test is skipped (failed under CI=true). */
static void need_node(void) {
  struct stat st;
  if (stat(UIAP_SRC "/tests/support/node_modules/ws", &st) != 0 || system("node --version >/dev/null 2>&1") != 0) {
    if (t_ci_required()) cr_assert_fail("node or ws is missing: run npm ci in tests/support (scripts/deps.sh)");
    cr_skip_test("node or ws is missing: run npm ci in tests/support");
  }
}

Test(listen, whole_session, .timeout = 300) {
  need_node();
  listener l;
  listen_start(&l, t_fixture_url(0, NULL, "/listen/ticker.html"));
  char base[512], *dir = t_tmpdir(), out[600];
  snprintf(base, sizeof base, "%s", t_fixture_url(0, NULL, "/listen/"));
  snprintf(out, sizeof out, "%s/received.jsonl", dir);
  const char *argv[] = {"/usr/bin/env", "node", UIAP_SRC "/tests/support/uiap_ws_client.mjs", l.url, base, out, NULL};
  t_run run = t_run_argv(argv, 240000);
  cr_expect_eq(listen_stop(&l), 0, "listen ends cleanly on SIGTERM");
  cr_assert_eq(run.status, 0, "the client ran: %s", run.err);
  cJSON *r = cJSON_Parse(run.out);
  cr_assert(r, "the client printed a JSON report: %.2000s", run.out);
  check_session(r);
  check_discovery(r);
  validate_all(out, dir);
  cJSON_Delete(r);
  t_run_free(&run);
  t_rm_rf(dir);
  t_rm_rf(l.tmp);
  free(l.tmp);
  free(dir);
}

/* How long a cancelled run may take to send its result: a user who pressed
 * cancel waits for its package at most this long (docs/listen.md), on a
 * loaded machine too. */
#define CANCEL_RESULT_MS 30000

/* One cancelled run of the cancel-heavy scenario: its result and package. */
static void check_cancelled(const cJSON *run, int n, const char *out) {
  char pkg[700], msg[8192];
  if (cJSON_IsString(at(run, "how.pauseWhen"))) cr_expect_str_eq(str(run, "paused"), "paused", "run %d: paused", n);
  cr_expect_str_eq(str(run, "cancelled.status"), "cancelled", "run %d: the cancel is answered", n);
  cr_expect_str_eq(str(run, "resultStatus"), "cancelled",
                   "run %d (cancelled while %s): a uiap.discovery.result with status cancelled (error: %s)", n,
                   str(run, "phase"), str(run, "error"));
  cr_expect_str_eq(str(run, "packageStatus"), "cancelled", "run %d: its package says cancelled", n);
  double ms = num(run, "resultMs");
  cr_expect(ms >= 0 && ms <= CANCEL_RESULT_MS, "run %d: the result came %g ms after the cancel (bound %d)", n, ms,
            CANCEL_RESULT_MS);
  snprintf(pkg, sizeof pkg, "%s.%d.package.json", out, n);
  struct stat st;
  if (stat(pkg, &st) != 0) return; /* no result: failed above */
  cr_expect_eq(t_validate("DiscoveryPackage", pkg, msg, sizeof msg), 0, "run %d: the package validates:\n%s", n, msg);
}

Test(listen, cancel_heavy_run, .timeout = 600) {
  /* issue #25 item 10: a run on a 60,000-element page (listen/big.html)
   * cancelled in each phase -- while its browser and tab open, while the
   * seed loads and is captured after a pause and resume, while exploring
   * after a pause and resume, and while paused -- ends with
   * uiap.discovery.result {status: "cancelled"} and a valid package within
   * CANCEL_RESULT_MS (the client's cancelPoints) */
  need_node();
  listener l;
  listen_start(&l, t_fixture_url(0, NULL, "/listen/ticker.html"));
  char base[512], *dir = t_tmpdir(), out[600], msg[8192];
  snprintf(base, sizeof base, "%s", t_fixture_url(0, NULL, "/listen/"));
  snprintf(out, sizeof out, "%s/received.jsonl", dir);
  const char *argv[] = {"/usr/bin/env", "node", UIAP_SRC "/tests/support/uiap_ws_client.mjs", l.url, base, out,
                        "cancel-heavy", NULL};
  t_run run = t_run_argv(argv, 540000);
  cr_expect_eq(listen_stop(&l), 0, "listen ends cleanly on SIGTERM");
  cr_assert_eq(run.status, 0, "the client ran: %s", run.err);
  cJSON *r = cJSON_Parse(run.out);
  cr_assert(r, "the client printed a JSON report: %.2000s", run.out);
  cr_expect(yes(r, "ok"), "the client walked the scenario: %s", str(r, "error"));
  const cJSON *runs = at(r, "runs");
  cr_expect_eq(cJSON_GetArraySize(runs), 4, "four runs, cancelled in four phases");
  for (int i = 0; i < cJSON_GetArraySize(runs); i++) check_cancelled(cJSON_GetArrayItem(runs, i), i, out);
  cr_expect_str_eq(str(r, "after.type"), "web.state.snapshot", "the session is usable after the cancels");
  cr_expect_eq(t_validate("UiapMessage", out, msg, sizeof msg), 0, "every envelope is a UiapMessage:\n%s", msg);
  cJSON_Delete(r);
  t_run_free(&run);
  t_rm_rf(dir);
  t_rm_rf(l.tmp);
  free(l.tmp);
  free(dir);
}

Test(listen, guarded_and_scrubbed, .timeout = 180) {
  /* issue #25 item 13: listen's tab is guarded as its mode says and its
   * snapshots and observations pass the tab's secret list: secret.html
   * shows its password field's value in a heading 3 s after load (no
   * capture of that moment knows it is a password) and POSTs to /danger/
   * on load and later */
  need_node();
  cJSON *before = t_fixture_hit_table();
  listener l;
  listen_start(&l, t_fixture_url(0, NULL, "/listen/secret.html"));
  char base[512], *dir = t_tmpdir(), out[600], hits[1024];
  snprintf(base, sizeof base, "%s", t_fixture_url(0, NULL, "/listen/"));
  snprintf(out, sizeof out, "%s/received.jsonl", dir);
  const char *argv[] = {"/usr/bin/env", "node", UIAP_SRC "/tests/support/uiap_ws_client.mjs", l.url, base, out,
                        "secret", NULL};
  t_run run = t_run_argv(argv, 150000);
  cr_expect_eq(listen_stop(&l), 0, "listen ends cleanly on SIGTERM");
  cr_assert_eq(run.status, 0, "the client ran: %s", run.err);
  cJSON *r = cJSON_Parse(run.out);
  cr_assert(r, "the client printed a JSON report: %.2000s", run.out);
  cr_expect(yes(r, "ok"), "the client walked the scenario: %s", str(r, "error"));
  cr_expect_str_eq(str(r, "secret.first.type"), "web.state.snapshot");
  cr_expect(yes(r, "secret.first.passwordField"), "the first snapshot has the password field");
  cr_expect(!yes(r, "secret.first.holdsSecret"), "its value is redacted");
  cr_expect(yes(r, "secret.second.heading"), "the second snapshot has the heading");
  cr_expect(!yes(r, "secret.second.holdsSecret"), "the heading does not show the password (the tab's secret list)");
  cr_expect(yes(r, "secret.second.redacted"), "it shows [redacted] in its place");
  cr_expect(yes(r, "secret.observed.delta"), "the observation saw the heading come");
  cr_expect(!yes(r, "secret.observed.holdsSecret"), "the observation does not show the password");
  cr_expect(!yes(r, "secret.anyMessage"), "no message of the session holds the password");
  cr_expect_eq(t_fixture_hits_since(before, "/danger/", hits, sizeof hits), 0,
               "the write guard refused the page's writes: %s", hits);
  cJSON_Delete(before);
  cJSON_Delete(r);
  t_run_free(&run);
  t_rm_rf(dir);
  t_rm_rf(l.tmp);
  free(l.tmp);
  free(dir);
}

/* safety.c -- end-to-end: the safety gate against hostile pages
 * (tests/fixtures/safety/). Each test is one class of hole, one page (or a
 * few) and what a user would notice when it is open:
 *  - a write reached the server: every fixture's writes go to /danger/...,
 *    which the fixture servers count by "METHOD path"; after a `snapshot`
 *    (for pages that act at load) and after a `crawl` in safe_explore (the
 *    default, --max-runtime-ms 20000) there must be none, and the failure
 *    names each request that got through;
 *  - a secret shows up in an output file, a screenshot or the terminal;
 *  - a control that only closes something was never used, or one that
 *    removes something was.
 * Like hostile.c, every run must leave no Chromium and no temporary
 * profile behind.
 *
 * Not covered here: a page the guard cannot be installed on must stop the
 * run with a clear error. No fixture can make Fetch.enable fail; that needs
 * a test knob in the crawler (e.g. UIAP_TEST_FAIL_FETCH_ENABLE=1), then a
 * crawl asserted to exit with its documented code, one line on stderr, and
 * no request to the seed.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

/* A crawl's budget, and the most it may take: the step in flight when the
 * budget runs out (a load: up to 15 s), then the package (hostile.c). */
#define BUDGET_MS "20000"
#define CRAWL_MAX_MS (20000 + 15000)
#define SNAP_MAX_MS 30000

/* ---- running ------------------------------------------------------------------- */
typedef struct {
  t_run run;
  char *dir;          /* holds the output */
  char out[600];      /* the crawl's OUT directory, or the snapshot's -o file */
  cJSON *pkg;         /* OUT/package.json of a crawl */
  long writes;        /* requests under /danger/ during the run ... */
  char wrote[2048];   /* ... by "METHOD path" */
} run_res;

/* Chromium processes of the run that used tmp, after giving them 3 s to go. */
static int procs_left(const char *tmp) {
  for (int i = 0; i < 60 && t_count_procs(tmp); i++) usleep(50000);
  return t_count_procs(tmp);
}

/* `uiap-crawl CMD ARGS... [--max-runtime-ms] [-o OUT]` with its own TMPDIR
 * (-o unless to_stdout); counts what reached /danger/ meanwhile. */
static void run_cli(run_res *r, const char *cmd, const char *const *args, int max_ms, int to_stdout) {
  memset(r, 0, sizeof *r);
  int crawl = !strcmp(cmd, "crawl"), as_text = 0;
  const char *what = !strcmp(args[0], "--plan") ? args[1] : args[0];
  for (int i = 0; args[i]; i++) as_text |= !strcmp(args[i], "text");
  r->dir = t_tmpdir();
  cr_assert(r->dir);
  snprintf(r->out, sizeof r->out, "%s/%s", r->dir, crawl ? "out" : "graph.json");
  char *tmp = t_tmpdir(), env_tmp[600];
  snprintf(env_tmp, sizeof env_tmp, "TMPDIR=%s", tmp);
  const char *argv[48];
  int n = 0;
  argv[n++] = "/usr/bin/env";
  argv[n++] = env_tmp;
  argv[n++] = UIAP_BIN;
  argv[n++] = cmd;
  for (int i = 0; args[i] && n < 40; i++) argv[n++] = args[i];
  if (crawl) {
    argv[n++] = "--max-runtime-ms";
    argv[n++] = BUDGET_MS;
  }
  if (!to_stdout) {
    argv[n++] = "-o";
    argv[n++] = r->out;
  }
  argv[n] = NULL;
  cJSON *before = t_fixture_hit_table();
  r->run = t_run_argv(argv, max_ms + 30000);
  cr_expect_leq(r->run.ms, max_ms, "%s of %s took %lld ms", cmd, what, r->run.ms);
  cr_expect_eq(procs_left(tmp), 0, "no Chromium left after %s of %s", cmd, what);
  cr_expect_eq(t_dir_entries(tmp), 0, "no temporary profile left after %s of %s", cmd, what);
  rmdir(tmp);
  free(tmp);
  usleep(300000); /* a request the browser sent as it closed */
  r->writes = t_fixture_hits_since(before, "/danger/", r->wrote, sizeof r->wrote);
  cJSON_Delete(before);
  char msg[4096];
  if (!crawl) {
    if (!to_stdout && !as_text && r->run.status == 0)
      cr_expect_eq(t_validate("PageGraph", r->out, msg, sizeof msg), 0, "the graph of %s validates: %s", what, msg);
    return;
  }
  char pkg[700];
  snprintf(pkg, sizeof pkg, "%s/package.json", r->out);
  char *text = t_read_file(pkg, NULL);
  r->pkg = text ? cJSON_Parse(text) : NULL;
  free(text);
  cr_assert(r->pkg, "crawl of %s wrote no package (exit %d): %s", what, r->run.status, r->run.err);
  cr_expect_eq(r->run.status, 0, "crawl of %s: exit %d: %s", what, r->run.status, r->run.err);
  cr_expect_eq(t_validate("DiscoveryPackage", pkg, msg, sizeof msg), 0, "package of %s validates: %s", what, msg);
}

static void crawl(run_res *r, const char *const *args) { run_cli(r, "crawl", args, CRAWL_MAX_MS, 0); }

static void snapshot(run_res *r, const char *const *args, int to_stdout) {
  run_cli(r, "snapshot", args, SNAP_MAX_MS, to_stdout);
  cr_expect_eq(r->run.status, 0, "snapshot of %s: exit %d: %s", args[0], r->run.status, r->run.err);
}

static void done(run_res *r) {
  t_rm_rf(r->dir);
  free(r->dir);
  cJSON_Delete(r->pkg);
  t_run_free(&r->run);
}

/* The page's URL on fixture port 0; with_port: ?port= the other port
 * (localhost there is another site: an out-of-process frame). */
static const char *page(const char *name, int with_port) {
  char path[300];
  if (with_port) snprintf(path, sizeof path, "/safety/%s?port=%d", name, t_fixture_port(1));
  else snprintf(path, sizeof path, "/safety/%s", name);
  return t_fixture_url(0, NULL, path);
}

#define EXPECT_NO_WRITES(r, cmd, name)                                                            \
  cr_expect_eq((r).writes, 0, "%ld requests reached /danger/ during the %s of %s: %s", (r).writes, \
               cmd, name, (r).wrote)

/* snapshot and crawl of one page; no write may get through either. */
static void no_writes_either_way(const char *name, int with_port) {
  const char *url = page(name, with_port);
  run_res r;
  const char *const args[] = {url, NULL};
  snapshot(&r, args, 0);
  EXPECT_NO_WRITES(r, "snapshot", name);
  done(&r);
  crawl(&r, args);
  EXPECT_NO_WRITES(r, "crawl", name);
  done(&r);
}

/* ---- what the package and journal say ------------------------------------------ */
/* A run note or review item (kind NULL: any) whose text contains needle. */
static int pkg_says(const cJSON *pkg, const char *kind, const char *needle) {
  const cJSON *it;
  if (!kind)
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "run"), "notes"))
      if (cJSON_IsString(it) && strstr(it->valuestring, needle)) return 1;
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "reviewQueue"), "items")) {
    const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(it, "kind"));
    const char *d = cJSON_GetStringValue(cJSON_GetObjectItem(it, "description"));
    if ((!kind || (k && !strcmp(k, kind))) && d && strstr(d, needle)) return 1;
  }
  return 0;
}

static const char *jstr(const cJSON *o, const char *k) {
  const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(o, k));
  return s ? s : "";
}

/* Transitions whose target has this name (the journal's). */
static int clicks(const run_res *r, const char *name) {
  cJSON *ts = t_journal_records(r->out, "transition");
  int n = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, ts) n += !strcmp(jstr(cJSON_GetObjectItem(t, "target"), "name"), name);
  cJSON_Delete(ts);
  return n;
}

static const cJSON *state_by_id(const cJSON *states, const char *id) {
  const cJSON *s;
  cJSON_ArrayForEach(s, states)
    if (!strcmp(jstr(s, "stateId"), id)) return s;
  return NULL;
}

/* ---- 1. beacons, pings, keepalive ---------------------------------------------- */
/* sendBeacon at load, on pagehide and on visibilitychange, a keepalive POST
 * on pagehide, and <a ping> on the link the crawl follows. */
Test(safety, beacons_and_pings, .timeout = 150) {
  const char *const args[] = {page("beacons.html", 0), NULL};
  run_res r;
  snapshot(&r, args, 0);
  EXPECT_NO_WRITES(r, "snapshot", "beacons.html");
  done(&r);
  crawl(&r, args);
  EXPECT_NO_WRITES(r, "crawl", "beacons.html");
  /* the ping only goes out when the link is followed: it must still be */
  cr_expect_geq(clicks(&r, "Next page"), 1, "the harmless link \"Next page\" was followed");
  done(&r);
}

/* ---- 2. other targets ---------------------------------------------------------- */
/* Windows the page opens: their own pages POST at once and at load (with an
 * opener and without), and a form submitted into a new window POSTs as the
 * window's first request. */
Test(safety, popup_windows, .timeout = 90) {
  run_res r;
  const char *const args[] = {page("popup.html", 0), NULL};
  crawl(&r, args);
  EXPECT_NO_WRITES(r, "crawl", "popup.html");
  done(&r);
}

Test(safety, dedicated_worker, .timeout = 150) { no_writes_either_way("worker.html", 0); }

Test(safety, shared_worker, .timeout = 150) { no_writes_either_way("sharedworker.html", 0); }

/* sw.js POSTs on install, on activate and on each fetch of the page. */
Test(safety, service_worker, .timeout = 150) { no_writes_either_way("serviceworker.html", 0); }

/* A frame from another site (an out-of-process frame) that POSTs at load. */
Test(safety, out_of_process_frame, .timeout = 150) { no_writes_either_way("oopif.html", 1); }

/* ---- 3. WebSockets ------------------------------------------------------------- */
/* The handshake is a GET with Upgrade, which the Fetch domain never sees. */
Test(safety, websocket, .timeout = 90) {
  run_res r;
  const char *const args[] = {page("websocket.html", 0), NULL};
  crawl(&r, args);
  EXPECT_NO_WRITES(r, "crawl", "websocket.html");
  cr_expect(pkg_says(r.pkg, NULL, "WebSocket"),
            "the review queue or the run notes say a WebSocket was blocked (clicks on \"Show live updates\": %d)",
            clicks(&r, "Show live updates"));
  done(&r);
}

/* A worker the action starts opens the WebSocket: the page's guard is not in
 * its scope, the worker's own must be. */
Test(safety, websocket_from_a_worker, .timeout = 90) {
  run_res r;
  const char *const args[] = {page("worker-websocket.html", 0), NULL};
  crawl(&r, args);
  cr_expect_geq(clicks(&r, "Open live feed"), 1, "\"Open live feed\" was clicked (else this proves nothing)");
  EXPECT_NO_WRITES(r, "crawl", "worker-websocket.html");
  cr_expect(pkg_says(r.pkg, "unsafe_action_candidate", "refused"),
            "a review item says the worker's WebSocket was refused");
  done(&r);
}

/* A plan that allows WebSockets (environment.metadata.allowWebSockets): the
 * handshake goes through and is still reported, as allowed. */
Test(safety, websocket_allowed_by_the_plan, .timeout = 90) {
  char *pdir = t_tmpdir();
  const char *plan_path = t_plan_write(pdir, "\"safety\":{\"defaultMode\":\"safe_explore\"},"
                                             "\"metadata\":{\"allowWebSockets\":true}", "/safety/websocket.html");
  run_res r;
  const char *const args[] = {"--plan", plan_path, NULL};
  crawl(&r, args);
  cr_expect_geq(clicks(&r, "Show live updates"), 1, "\"Show live updates\" was clicked");
  cr_expect_geq(r.writes, 1, "the allowed handshake reached the server (%s)", r.wrote);
  cr_expect(pkg_says(r.pkg, "unsafe_action_candidate", "allowed by the plan"),
            "a review item says the WebSocket was opened, allowed by the plan");
  done(&r);
  t_rm_rf(pdir);
  free(pdir);
}

/* --allow-beacon: beacons to that path go through, nothing else does. */
Test(safety, allow_beacon_lets_that_beacon_only, .timeout = 90) {
  long state0 = t_fixture_hits("/__test/bench-state"), fetch0 = t_fixture_hits("/__test/bench-state-fetch");
  run_res r;
  const char *const args[] = {page("telemetry.html", 0), "--allow-beacon", "/__test/bench-state", NULL};
  crawl(&r, args);
  long fetched = t_fixture_hits("/__test/bench-state-fetch") - fetch0;
  long beacons = t_fixture_hits("/__test/bench-state") - state0 - fetched;
  cr_expect_geq(beacons, 1, "the allowed beacon reached the server");
  cr_expect_eq(fetched, 0, "a fetch POST to a path beside it did not");
  EXPECT_NO_WRITES(r, "crawl", "telemetry.html");
  done(&r);
  const char *const bad[] = {UIAP_BIN, "crawl", page("telemetry.html", 0), "--allow-beacon", "bench", "-o", "/tmp/x", NULL};
  t_run b = t_run_argv(bad, 10000);
  cr_expect_eq(b.status, 2, "a path without / is a usage error: %s", b.err);
  t_run_free(&b);
}

/* ---- 4. GETs that write -------------------------------------------------------- */
Test(safety, get_with_write_intent, .timeout = 90) {
  run_res r;
  const char *const args[] = {page("list.html", 0), NULL};
  crawl(&r, args);
  EXPECT_NO_WRITES(r, "crawl", "list.html");
  /* each is reported: by the control's name (a denial) or the URL it tried
   * (a blocked request) */
  static const char *const said[][3] = {
    {"\"Refresh list\"", "/danger/items/delete", "the submit button whose formaction deletes"},
    {"\"Continue\"", "/danger/logout", "the GET form to a logout URL"},
    {"\"Go\"", "/danger/account/delete", "the button outside its form (form=\"f2\")"},
    {"\"Manage mail\"", "/danger/unsubscribe", "the unsubscribe link"},
    {"\"Refresh\"", "/danger/api/logout", "the Refresh button whose script GETs a logout URL"},
  };
  for (size_t i = 0; i < sizeof said / sizeof *said; i++)
    cr_expect(pkg_says(r.pkg, "unsafe_action_candidate", said[i][0]) ||
                  pkg_says(r.pkg, "unsafe_action_candidate", said[i][1]),
              "an unsafe_action_candidate review item names %s (%s or %s)", said[i][2], said[i][0], said[i][1]);
  done(&r);
}

/* ---- 5. icon-only controls by context ------------------------------------------ */
/* Transitions by "×" out of a state with a modal open into one with none. */
static int dialog_closed_by_x(const run_res *r) {
  cJSON *ts = t_journal_records(r->out, "transition"), *ss = t_journal_records(r->out, "state");
  int n = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, ts) {
    if (strcmp(jstr(cJSON_GetObjectItem(t, "target"), "name"), "×")) continue;
    const cJSON *from = state_by_id(ss, jstr(t, "fromStateId")), *to = state_by_id(ss, jstr(t, "toStateId"));
    n += from && to && cJSON_GetArraySize(cJSON_GetObjectItem(from, "modalStack")) > 0 &&
         cJSON_GetArraySize(cJSON_GetObjectItem(to, "modalStack")) == 0;
  }
  cJSON_Delete(ts);
  cJSON_Delete(ss);
  return n;
}

/* Transitions by "×" whose target is in the scope named scope_name (looked
 * up in the PageGraph of the state it was clicked in). */
static int x_in_scope(const run_res *r, const char *scope_name) {
  cJSON *ts = t_journal_records(r->out, "transition");
  int n = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, ts) {
    const cJSON *tg = cJSON_GetObjectItem(t, "target");
    if (strcmp(jstr(tg, "name"), "×")) continue;
    char path[900];
    snprintf(path, sizeof path, "%s/states/%s.json", r->out, jstr(t, "fromStateId"));
    char *text = t_read_file(path, NULL);
    cJSON *g = text ? cJSON_Parse(text) : NULL;
    free(text);
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(g, "scopes"))
      n += !strcmp(jstr(s, "scopeId"), jstr(tg, "scopeId")) && !strcmp(jstr(s, "name"), scope_name);
    cJSON_Delete(g);
  }
  cJSON_Delete(ts);
  return n;
}

Test(safety, icon_only_controls, .timeout = 90) {
  run_res r;
  const char *const args[] = {page("icons.html", 0), NULL};
  crawl(&r, args);
  cr_expect_eq(r.writes, 0,
               "%ld items were removed during the crawl of icons.html (/danger/removed/N; 1-3: a list item's ×, "
               "4: the trash icon of a row, 5: the Material \"delete\", 6: the icon-font glyph): %s",
               r.writes, r.wrote);
  /* the × of a help dialog and of a toast only close them */
  cr_expect_geq(dialog_closed_by_x(&r), 1, "the help dialog was closed by its ×: no transition by \"×\" leads "
                                            "from a state with the dialog open to one without");
  cr_expect_geq(x_in_scope(&r, "Notifications"), 1, "the toast's × (in the \"Notifications\" region) was used");
  /* and the review queue says why a list item's × was not clicked */
  cr_expect(r.pkg && pkg_says(r.pkg, "unsafe_action_candidate", "removes a list item"),
            "an unsafe_action_candidate review item says the × \"removes a list item\"");
  done(&r);
}

/* ---- 6. allow flags in safe_explore -------------------------------------------- */
/* "Delete project" deletes with a GET: the write guard lets it through,
 * only the policy can stop it. allowDestructiveActions belongs to
 * sandbox_write; in safe_explore it must not take effect. */
Test(safety, allow_flag_ignored_in_safe_explore, .timeout = 90) {
  char *pdir = t_tmpdir();
  const char *plan_path = t_plan_write(pdir, "\"safety\":{\"defaultMode\":\"safe_explore\",\"allowDestructiveActions\":true}",
                                       "/safety/policy.html");
  run_res r;
  const char *const args[] = {"--plan", plan_path, NULL};
  crawl(&r, args);
  cr_expect_geq(t_journal_lines(r.out, "state"), 1, "the seed policy.html was crawled");
  EXPECT_NO_WRITES(r, "crawl (allowDestructiveActions in safe_explore)", "policy.html");
  done(&r);
  t_rm_rf(pdir);
  free(pdir);
}

/* ---- 7. screenshots ------------------------------------------------------------ */
/* report.html embeds the same PNG files as data: URLs, so checking the
 * files covers the report too. */
static const struct { const char *rgb, *what; } hidden_colours[] = {
  {"ff0000", "the data-uiap-sensitive block"},
  {"ff00ff", "the card number's digits"},
  {"00ff00", "the closed shadow root"},
  {"0000ff", "the frame from another site"},
};
#define MAX_SHOWN_PIXELS 50

/* png_colors.py's count for each of hidden_colours in file. */
static void colour_counts(const char *file, long *counts) {
  const char *const argv[] = {"/usr/bin/env", "python3", UIAP_SRC "/tests/support/png_colors.py", file,
                              hidden_colours[0].rgb, hidden_colours[1].rgb, hidden_colours[2].rgb,
                              hidden_colours[3].rgb, NULL};
  t_run p = t_run_argv(argv, 60000);
  cr_assert_eq(p.status, 0, "png_colors.py %s: exit %d: %s", file, p.status, p.err);
  for (int i = 0; i < 4; i++) {
    char key[16];
    snprintf(key, sizeof key, "%s ", hidden_colours[i].rgb);
    const char *at = strstr(p.out, key);
    cr_assert(at, "png_colors.py printed no count for %s: %s", hidden_colours[i].rgb, p.out);
    counts[i] = atol(at + strlen(key));
  }
  t_run_free(&p);
}

Test(safety, screenshots_hide_what_the_graph_hides, .timeout = 120) {
  run_res r;
  const char *const args[] = {page("screens.html", 1), "--screenshots", NULL};
  crawl(&r, args);
  char dir[700];
  snprintf(dir, sizeof dir, "%s/screenshots", r.out);
  DIR *d = opendir(dir);
  cr_assert(d, "the crawl wrote %s", dir);
  int pngs = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".png")) continue;
    pngs++;
    char file[1000];
    snprintf(file, sizeof file, "%s/%s", dir, e->d_name);
    long counts[4];
    colour_counts(file, counts);
    for (int i = 0; i < 4; i++)
      cr_expect_lt(counts[i], MAX_SHOWN_PIXELS, "screenshots/%s shows %s: %ld pixels of #%s", e->d_name,
                   hidden_colours[i].what, counts[i], hidden_colours[i].rgb);
  }
  closedir(d);
  cr_expect_geq(pngs, 1, "the crawl took screenshots");
  done(&r);
}

/* ---- 8, 9. secrets in the output ----------------------------------------------- */
/* None of secrets in any file below the run's output, nor on its stdout or
 * stderr. */
static void expect_no_secrets(const run_res *r, const char *what, const char *const *secrets) {
  char found[4096];
  int n = t_tree_grep(r->dir, secrets, found, sizeof found);
  cr_expect_eq(n, 0, "the output of %s holds secrets: %s", what, found);
  for (int i = 0; secrets[i]; i++) {
    cr_expect(!strstr(r->run.out, secrets[i]), "stdout of %s shows \"%s\"", what, secrets[i]);
    cr_expect(!strstr(r->run.err, secrets[i]), "stderr of %s shows \"%s\"", what, secrets[i]);
  }
}

/* A password field stays secret after "Show" made it type=text. */
Test(safety, revealed_password_stays_secret, .timeout = 90) {
  static const char *const secrets[] = {"hunter2-SECRET-pw", NULL};
  run_res r;
  const char *const args[] = {page("password.html", 0), NULL};
  crawl(&r, args);
  cr_expect_geq(clicks(&r, "Show"), 1, "the reveal toggle \"Show\" was clicked (else this test proves nothing)");
  cr_expect(r.pkg && pkg_says(r.pkg, "unsafe_action_candidate", "revealed password field"),
            "an unsafe_action_candidate review item says \"Show\" revealed password field");
  expect_no_secrets(&r, "the crawl of password.html", secrets);
  done(&r);
}

/* Text under a data-uiap-sensitive ancestor (and the names and descriptions
 * that point at it), a sensitive button's own name, autocomplete tokens in
 * odd case, and a password in the URL of a blocked POST. */
Test(safety, sensitive_ancestors_and_urls, .timeout = 150) {
  static const char *const secrets[] = {"ACCT-9911-SECRET", "IBAN-LABEL-SECRET", "BTN-NAME-SECRET",
                                        "4111111111111111", "928374", "PW2-SECRET-value", NULL};
  const char *url = page("sensitive.html", 0);
  run_res r;
  const char *const plain[] = {url, NULL};
  snapshot(&r, plain, 0);
  expect_no_secrets(&r, "the snapshot of sensitive.html", secrets);
  done(&r);
  const char *const all[] = {url, "--include-non-interactive", NULL};
  snapshot(&r, all, 0);
  expect_no_secrets(&r, "the snapshot --include-non-interactive of sensitive.html", secrets);
  done(&r);
  crawl(&r, plain);
  EXPECT_NO_WRITES(r, "crawl", "sensitive.html");
  cr_expect_geq(clicks(&r, "Check"), 1, "\"Check\" (which POSTs the password in its URL) was clicked");
  expect_no_secrets(&r, "the crawl of sensitive.html", secrets);
  done(&r);
}

/* ---- 10. terminal output ------------------------------------------------------- */
/* What would act on a terminal: ESC, BEL, a bare CR, C1 CSI (UTF-8 C2 9B).
 * The failure shows the bytes around it escaped (\xNN), so that the test's
 * own output stays inert. */
static void expect_inert(const char *text, const char *what) {
  static const struct { const char *bytes, *name; } bad[] = {
    {"\x1b", "ESC (0x1b)"}, {"\x07", "BEL (0x07)"}, {"\r", "a carriage return"}, {"\xc2\x9b", "U+009B (C1 CSI)"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    const char *at = strstr(text ? text : "", bad[i].bytes);
    char shown[400] = "";
    size_t k = 0;
    for (const char *p = at && at - text > 24 ? at - 24 : text; at && *p && p < at + 24 && k + 5 < sizeof shown; p++) {
      unsigned char c = (unsigned char)*p;
      if (c < 0x20 || c >= 0x7f) k += (size_t)snprintf(shown + k, sizeof shown - k, "\\x%02x", c);
      else shown[k++] = (char)c;
    }
    shown[k] = 0;
    cr_expect(!at, "%s holds %s: ...%s...", what, bad[i].name, shown);
  }
}

Test(safety, terminal_output_is_inert, .timeout = 150) {
  const char *url = page("control-chars.html", 0);
  run_res r;
  const char *const text[] = {url, "--format", "text", NULL};
  snapshot(&r, text, 1);
  cr_expect(strstr(r.run.out, "button"), "snapshot --format text printed the button (%zu bytes out)", strlen(r.run.out));
  expect_inert(r.run.out, "snapshot --format text");
  expect_inert(r.run.err, "stderr of snapshot --format text");
  done(&r);
  /* diff of two crawls: one button more in the second */
  run_res a, b;
  const char *const one[] = {url, NULL};
  crawl(&a, one);
  expect_inert(a.run.err, "stderr of crawl");
  char more[300];
  snprintf(more, sizeof more, "%s?more=1", url);
  const char *const two[] = {more, NULL};
  crawl(&b, two);
  const char *const argv[] = {UIAP_BIN, "diff", a.out, b.out, "--format", "text", "--color", "never", NULL};
  t_run d = t_run_argv(argv, 30000);
  cr_expect(d.status == 0 || d.status == 9, "diff: exit %d: %s", d.status, d.err);
  cr_expect(strstr(d.out, "elements"), "diff printed the elements (%zu bytes out)", strlen(d.out));
  expect_inert(d.out, "diff --format text");
  expect_inert(d.err, "stderr of diff");
  t_run_free(&d);
  done(&a);
  done(&b);
}

/* ---- a target that cannot be guarded stops the run ----------------------------- */
/* No page can make the guard fail to install, so the crawler has a test knob
 * (UIAP_TEST_GUARD_FAIL=page or a target type, crawler/run/page_guard.c). With
 * it, the run must stop with exit 12 and one line naming the guard, and
 * nothing the page or its worker sends may reach the server: the target
 * whose guard failed is never let run. */
static void expect_fail_closed(const char *where, const char *cmd) {
  char *dir = t_tmpdir(), out[700], env_fail[64], env_tmp[700];
  snprintf(out, sizeof out, "%s/%s", dir, strcmp(cmd, "crawl") ? "graph.json" : "out");
  snprintf(env_fail, sizeof env_fail, "UIAP_TEST_GUARD_FAIL=%s", where);
  snprintf(env_tmp, sizeof env_tmp, "TMPDIR=%s", dir);
  const char *argv[] = {"/usr/bin/env", env_fail, env_tmp, UIAP_BIN, cmd, page("worker.html", 0),
                        "--max-runtime-ms", "15000", "-o", out, NULL};
  if (strcmp(cmd, "crawl")) { /* snapshot: no budget flags */
    argv[6] = "-o";
    argv[7] = out;
    argv[8] = NULL;
  }
  cJSON *before = t_fixture_hit_table();
  t_run r = t_run_argv(argv, 90000);
  usleep(300000);
  char wrote[2048] = "";
  long writes = t_fixture_hits_since(before, "/danger/", wrote, sizeof wrote);
  cJSON_Delete(before);
  cr_expect_eq(r.status, 12, "%s with the guard failing in the %s: exit %d, not 12 (stderr: %s)", cmd, where,
               r.status, r.err);
  cr_expect(r.err && strstr(r.err, "write guard"), "%s: the error names the write guard: %s", cmd, r.err);
  cr_expect_eq(writes, 0, "%s with an unguarded %s: %ld requests reached /danger/: %s", cmd, where, writes, wrote);
  if (!strcmp(cmd, "crawl")) {
    char pkg[800];
    snprintf(pkg, sizeof pkg, "%s/package.json", out);
    char *text = t_read_file(pkg, NULL);
    cr_expect(text && strstr(text, "\"failed\""), "the crawl still wrote its package, status failed");
    free(text);
  }
  t_run_free(&r);
  t_rm_rf(dir);
  free(dir);
}

Test(safety, unguardable_target_stops_the_run, .timeout = 240) {
  expect_fail_closed("worker", "snapshot");
  expect_fail_closed("worker", "crawl");
  expect_fail_closed("page", "snapshot");
  expect_fail_closed("page", "crawl");
}

/* observe loads a page of its own under the same guard: reading writes
 * nothing (the beacons of beacons.html, on load and when the tab closes). */
Test(safety, observe_writes_nothing, .timeout = 90) {
  char *dir = t_tmpdir(), env_tmp[700];
  snprintf(env_tmp, sizeof env_tmp, "TMPDIR=%s", dir);
  const char *argv[] = {"/usr/bin/env", env_tmp, UIAP_BIN, "observe", page("beacons.html", 0), "--duration-ms",
                        "3000", NULL};
  cJSON *before = t_fixture_hit_table();
  t_run r = t_run_argv(argv, 60000);
  usleep(300000);
  char wrote[2048] = "";
  long writes = t_fixture_hits_since(before, "/danger/", wrote, sizeof wrote);
  cJSON_Delete(before);
  cr_expect_eq(r.status, 0, "observe exit %d: %s", r.status, r.err);
  cr_expect(r.out && strstr(r.out, "web.state.snapshot"), "observe printed a snapshot");
  cr_expect_eq(writes, 0, "%ld requests reached /danger/ while observing beacons.html: %s", writes, wrote);
  t_run_free(&r);
  t_rm_rf(dir);
  free(dir);
}

/* ---- 9. denials that cost reach (issue #16) ------------------------------------ */
/* The effect of the first decision journaled for a control of this name
 * ("" if none: allowed, or never seen). Only non-allow decisions are
 * journaled. */
static char decided_buf[32];
static const char *decided(const run_res *r, const char *name) {
  cJSON *ds = t_journal_records(r->out, "decision");
  const cJSON *d;
  decided_buf[0] = 0;
  cJSON_ArrayForEach(d, ds)
    if (!strcmp(jstr(cJSON_GetObjectItem(d, "target"), "name"), name)) {
      snprintf(decided_buf, sizeof decided_buf, "%s", jstr(d, "effect"));
      break;
    }
  cJSON_Delete(ds);
  return decided_buf;
}

typedef struct { const char *name; int clicked; } reach_case; /* clicked 0: must stay denied */

static void expect_reach(const char *fixture, const reach_case *cs, size_t n) {
  run_res r;
  const char *const args[] = {page(fixture, 0), NULL};
  crawl(&r, args);
  EXPECT_NO_WRITES(r, "crawl", fixture);
  for (size_t i = 0; i < n; i++) {
    if (cs[i].clicked) {
      cr_expect_geq(clicks(&r, cs[i].name), 1, "%s: \"%s\" was clicked (a transition by it; decision: \"%s\")",
                    fixture, cs[i].name, decided(&r, cs[i].name));
    } else {
      cr_expect_eq(clicks(&r, cs[i].name), 0, "%s: \"%s\" was not clicked", fixture, cs[i].name);
      cr_expect_str_eq(decided(&r, cs[i].name), "deny", "%s: \"%s\" was seen and denied", fixture, cs[i].name);
    }
  }
  /* what the gate cost: in the package and on stderr */
  const cJSON *g = cJSON_GetObjectItem(cJSON_GetObjectItem(r.pkg, "metadata"), "gate");
  cr_expect(g, "%s: the package has metadata.gate", fixture);
  cr_expect_geq(cJSON_GetNumberValue(cJSON_GetObjectItem(g, "allow")), 1, "%s: metadata.gate.allow counts the clicks", fixture);
  cr_expect_geq(cJSON_GetNumberValue(cJSON_GetObjectItem(g, "deny")), 1, "%s: metadata.gate.deny counts the denials", fixture);
  cr_expect_geq(cJSON_GetArraySize(cJSON_GetObjectItem(g, "byRule")), 1, "%s: metadata.gate.byRule names the rules", fixture);
  cr_expect(r.run.err && strstr(r.run.err, "uiap-crawl: gate: ") && strstr(r.run.err, " denied ("),
            "%s: stderr has the gate line: %s", fixture, r.run.err ? r.run.err : "");
  done(&r);
}

/* API-docs accordion headers and an FAQ <summary> only disclose; what they
 * reveal is judged on its own. */
Test(safety, reach_disclosures, .timeout = 90) {
  static const reach_case cs[] = {
    {"DELETE /pets/{petId} Delete a pet", 1}, {"POST /store/orders/{id}/pay Pay an order", 1},
    {"What formats can I upload?", 1},
    {"Delete pet", 0}, {"Pay order", 0}, {"Delete my uploads", 0},
  };
  expect_reach("reach-disclosure.html", cs, sizeof cs / sizeof *cs);
}

/* A menu trigger with an unknown name under a risky heading opens its menu;
 * the menu's "Delete project" stays denied. */
Test(safety, reach_menu_trigger, .timeout = 90) {
  static const reach_case cs[] = {{"Project actions", 1}, {"Delete project", 0}};
  expect_reach("reach-menu.html", cs, sizeof cs / sizeof *cs);
}

/* In-app links next to Login/Register and message links that say "call
 * me" are followed; Login, Register and the tel: link are not. */
Test(safety, reach_plain_links, .timeout = 90) {
  static const reach_case cs[] = {
    {"404 Page", 1}, {"Blank Page", 1},
    {"Am I a good boy? Call me whenever you can, I need to know.", 1},
    {"Login", 0}, {"Register", 0}, {"Call support", 0}, {"Blank Page in a new window", 0},
  };
  expect_reach("reach-context.html", cs, sizeof cs / sizeof *cs);
}

/* ---- the decision and the click are about the same element ------------------- */
/* Two controls share a data-uiap-id: the one the gate allowed is the one
 * clicked ("Show details", never "Delete account"), and the shared id is
 * a review item. */
Test(safety, the_click_lands_on_the_element_decided_on, .timeout = 90) {
  run_res r;
  const char *const args[] = {page("shared-id.html", 0), NULL};
  crawl(&r, args);
  EXPECT_NO_WRITES(r, "crawl", "shared-id.html");
  cr_expect_geq(clicks(&r, "Show details"), 1, "the disclosure \"Show details\" was opened");
  cr_expect_eq(clicks(&r, "Delete account"), 0, "no transition names \"Delete account\"");
  cr_expect(r.pkg && pkg_says(r.pkg, "ambiguous_target", "acct-btn"),
            "an ambiguous_target review item names the data-uiap-id \"acct-btn\" that two controls share");
  done(&r);
}

/* ---- a navigation by URL is decided too --------------------------------------- */
/* A resumed journal is untrusted input: a state it names whose URL reads as
 * a deletion (in the run's origin, so the scope check lets it be) is never
 * loaded -- the write guard lets the URL the crawler itself loads through,
 * so the one path for navigations must refuse it (crawl__act_navigate). */
Test(safety, a_resumed_state_whose_url_deletes_is_not_loaded, .timeout = 150) {
  run_res r;
  const char *const args[] = {page("recipe-home.html", 0), "--max-states", "1", NULL};
  crawl(&r, args);
  char path[700], forged[1400];
  snprintf(path, sizeof path, "%s/journal.jsonl", r.out);
  char *jl = t_read_file(path, NULL);
  cr_assert(jl, "the first crawl wrote its journal");
  const char *sid = strstr(jl, "\"type\":\"state\"");
  sid = sid ? strstr(sid, "\"stateId\":\"") : NULL;
  cr_assert(sid, "the first crawl recorded its seed state");
  sid += 11;
  snprintf(forged, sizeof forged,
           "{\"type\":\"state\",\"at\":\"2026-12-03T00:00:00.000Z\",\"stateId\":\"s_forged0000000001\","
           "\"fingerprint\":\"0000000000000000000000000000abcd\",\"contentFingerprint\":\"0000000000000000000000000000abcd\","
           "\"routeId\":\"/danger/items/3/delete\",\"url\":\"%s\",\"title\":\"Items\",\"depth\":1,\"seed\":0,"
           "\"parentStateId\":\"%.*s\",\"via\":{\"actionId\":\"nav.navigate\",\"target\":{\"role\":\"link\","
           "\"name\":\"No such link\"},\"escape\":false}}\n",
           t_fixture_url(0, NULL, "/danger/items/3/delete"), (int)strcspn(sid, "\""), sid);
  char *end = strstr(jl, "{\"type\":\"end\"");
  cr_assert(end);
  FILE *f = fopen(path, "w");
  cr_assert(f);
  fprintf(f, "%.*s%s%s", (int)(end - jl), jl, forged, end);
  fclose(f);
  free(jl);
  cJSON *before = t_fixture_hit_table();
  const char *argv[] = {UIAP_BIN, "crawl", "--resume", r.out, "--max-states", "5", "--max-runtime-ms", "20000", NULL};
  t_run again = t_run_argv(argv, 60000);
  char wrote[512];
  usleep(300000);
  cr_expect_eq(t_fixture_hits_since(before, "/danger/", wrote, sizeof wrote), 0,
               "the resumed run loaded the forged state's URL: %s", wrote);
  cr_expect(again.err && strstr(again.err, "not loaded: its URL reads as destructive"),
            "a warning says the URL was not loaded (exit %d): %s", again.status, again.err);
  cJSON_Delete(before);
  t_run_free(&again);
  done(&r);
}

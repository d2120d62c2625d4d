/* pool.c -- end-to-end: `crawl --connect` to a browser pool (docs/pools.md).
 * The pool is a Chromium of the test's own on --remote-debugging-port=0
 * behind the proxy of tests/support/pool_proxy.c, which answers some
 * connections 429 Too Many Requests (Retry-After: 1) and drops the crawl's
 * WebSocket mid-run. The crawl of the fixture SPA must carry on: exit 0, the
 * same package as a run straight to the browser, a "reconnected" note and
 * no "browser died" review item, a note that the pool slowed the run, and
 * no tab left behind in the pool's browser. A pool that stays busy fails
 * the run after --connect-timeout-ms: exit 6 and one line on stderr; so
 * does a pool whose browser is gone for good mid-run (the reconnect fails),
 * with the package of what was found. */
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cdp.h"
#include "pool_proxy.h"
#include "support.h"

/* ---- the pool's browser ------------------------------------------------------------ */
static t_browser br;
static void browser_start(void) { t_browser_start(&br, "pool"); }
static void browser_stop(void) { t_browser_stop(&br); }

/* The page targets the pool's browser has open. */
static int page_targets(void) {
  char url[64], err[512] = "";
  snprintf(url, sizeof url, "http://127.0.0.1:%d", br.port);
  cdp_client *c = NULL;
  cr_assert_eq(cdp_connect(url, 10000, &c, err, sizeof err), CDP_OK, "the test connects: %s", err);
  cJSON *res = NULL;
  cr_assert_eq(cdp_call(c, NULL, "Target.getTargets", NULL, &res, 10000), CDP_OK);
  int n = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, cJSON_GetObjectItem(res, "targetInfos"))
    n += !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(t, "type")) ?: "", "page");
  cJSON_Delete(res);
  cdp_client_free(c);
  return n;
}

TestSuite(pool, .fini = browser_stop, .timeout = 300);

/* ---- running a crawl --------------------------------------------------------------- */
/* `crawl SPA --connect endpoint --max-depth 2 -o dir/out EXTRA...`. */
static t_run crawl_via(const char *endpoint, const char *dir, const char *const *extra) {
  char out[700];
  snprintf(out, sizeof out, "%s/out", dir);
  const char *argv[32] = {UIAP_BIN, "crawl", t_fixture_url(0, NULL, "/spa/index.html"), "--connect", endpoint,
                          "--max-depth", "2", "-o", out};
  int n = 9;
  for (int i = 0; extra && extra[i] && n < 31; i++) argv[n++] = extra[i];
  argv[n] = NULL;
  return t_run_argv(argv, 240000);
}

static cJSON *package_of(const char *dir) {
  char path[700];
  snprintf(path, sizeof path, "%s/out/package.json", dir);
  return t_package_read(path);
}

static int count_of(const cJSON *pkg, const char *what) {
  return cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "transitionGraph"), what));
}

/* Review items of severity whose description holds needle. */
static int reviews_saying(const cJSON *pkg, const char *severity, const char *needle) {
  int n = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "reviewQueue"), "items")) {
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(it, "severity"));
    const char *d = cJSON_GetStringValue(cJSON_GetObjectItem(it, "description"));
    n += s && !strcmp(s, severity) && d && strstr(d, needle);
  }
  return n;
}

static char *journal_of(const char *dir) {
  char path[700];
  snprintf(path, sizeof path, "%s/out/journal.jsonl", dir);
  return t_read_file(path, NULL);
}

/* The proxy's drop rule: once the crawl has recorded this many states. */
typedef struct { char out[700]; int states; } mid_run;
static int reached(void *ud) {
  const mid_run *m = ud;
  return t_journal_lines(m->out, "state") >= m->states;
}

static void rm_dir(char *dir) {
  t_rm_rf(dir);
  free(dir);
}

/* ---- the pool drops the crawl's socket, and is busy now and then ------------------- */
/* Busy: the first GET of /json/version, the first WebSocket upgrade (the
 * first connect waits twice, once for each kind of refusal), and the third
 * upgrade, which is the reconnect after the drop (it waits too). */
Test(pool, dropped_socket_is_reconnected_and_busy_pool_slows_the_run) {
  browser_start();
  char direct[64];
  snprintf(direct, sizeof direct, "http://127.0.0.1:%d", br.port);
  /* the same crawl straight to the browser: what a complete package holds */
  char *ref = t_tmpdir();
  t_run r0 = crawl_via(direct, ref, NULL);
  cr_assert_eq(r0.status, 0, "the direct crawl exits 0: %s", r0.err);
  cJSON *p0 = package_of(ref);
  cr_assert(p0, "the direct crawl wrote a package");
  int want_states = count_of(p0, "states"), want_edges = count_of(p0, "edges");
  cr_assert_gt(want_states, 6, "the direct crawl found a state space worth dropping into (%d states)", want_states);
  cr_expect_eq(page_targets(), 1, "the direct crawl closed its own tab");

  char *dir = t_tmpdir();
  mid_run m = {.states = 4};
  snprintf(m.out, sizeof m.out, "%s/out", dir);
  t_pool_proxy_opts po = {.upstream_port = br.port, .busy_http = 1u << 0, .busy_ws = 1u << 0 | 1u << 2,
                          .retry_after_s = 1, .drop_when = reached, .drop_ud = &m};
  t_pool_proxy *px = t_pool_proxy_start(&po);
  cr_assert(px, "the pool proxy starts");
  char endpoint[64];
  snprintf(endpoint, sizeof endpoint, "http://127.0.0.1:%d", t_pool_proxy_port(px));
  t_run r = crawl_via(endpoint, dir, NULL);
  t_pool_proxy_stats st = t_pool_proxy_stats_get(px);
  t_pool_proxy_stop(px);

  cr_expect_eq(st.dropped, 1, "the proxy dropped the crawl's WebSocket mid-run");
  cr_expect_eq(st.busy, 3, "the pool refused 3 connections (%d)", st.busy);
  cr_assert_eq(r.status, 0, "the crawl through the pool exits 0 (%d): %s", r.status, r.err);
  cr_expect(strstr(r.err, "concurrency limit") && strstr(r.err, "the run was slowed"),
            "stderr says the pool slowed the run: %s", r.err);
  cJSON *p = package_of(dir);
  cr_assert(p, "the crawl through the pool wrote a package");
  cr_expect_eq(count_of(p, "states"), want_states, "states: %d, the direct crawl found %d", count_of(p, "states"),
               want_states);
  cr_expect_eq(count_of(p, "edges"), want_edges, "transitions: %d, the direct crawl found %d", count_of(p, "edges"),
               want_edges);
  char *j = journal_of(dir);
  cr_assert(j);
  cr_expect(strstr(j, "the connection to the browser pool dropped") && strstr(j, "reconnected in"),
            "the journal notes the reconnect");
  cr_expect(!strstr(j, "browser died"), "the drop is no crash in the journal");
  cr_expect_eq(reviews_saying(p, "high", "died"), 0, "no \"browser died\" review item");
  cr_expect_eq(page_targets(), 1, "no tab left behind in the pool's browser (the dropped one was closed)");
  free(j);
  cJSON_Delete(p);
  cJSON_Delete(p0);
  t_run_free(&r);
  t_run_free(&r0);
  rm_dir(dir);
  rm_dir(ref);
}

/* ---- the pool stays busy ----------------------------------------------------------- */
/* Both kinds of endpoint: the GET of /json/version answered 429, and (a
 * ws:// endpoint) the WebSocket upgrade answered 429. Each is retried until
 * --connect-timeout-ms, then exit 6 with one line; no output is left. */
Test(pool, always_busy_fails_after_its_deadline) {
  static const char *const paths[] = {"", "/devtools/browser/pool"};
  for (size_t k = 0; k < sizeof paths / sizeof *paths; k++) {
    t_pool_proxy_opts po = {.upstream_port = 9, .busy_always = 1, .retry_after_s = 1};
    t_pool_proxy *px = t_pool_proxy_start(&po);
    cr_assert(px, "the pool proxy starts");
    char endpoint[128];
    snprintf(endpoint, sizeof endpoint, "%s://127.0.0.1:%d%s", k ? "ws" : "http", t_pool_proxy_port(px), paths[k]);
    char *dir = t_tmpdir();
    const char *extra[] = {"--connect-timeout-ms", "3000", NULL};
    t_run r = crawl_via(endpoint, dir, extra);
    t_pool_proxy_stats st = t_pool_proxy_stats_get(px);
    t_pool_proxy_stop(px);
    cr_expect_eq(r.status, 6, "%s: exit 6, --connect failed (%d): %s", endpoint, r.status, r.err);
    const char *nl = strchr(r.err, '\n');
    cr_expect(nl && !nl[1], "%s: one line on stderr: %s", endpoint, r.err);
    cr_expect(strstr(r.err, "uiap-crawl: ") == r.err && strstr(r.err, "concurrency limit") &&
              strstr(r.err, "HTTP 429") && strstr(r.err, "--connect-timeout-ms 3000"),
              "%s: the line says why: %s", endpoint, r.err);
    cr_expect_geq(st.busy, 2, "%s: retried (%d attempts)", endpoint, st.busy);
    cr_expect(r.ms >= 1500 && r.ms < 8000, "%s: gave up at its deadline (%lld ms)", endpoint, r.ms);
    char out[700];
    snprintf(out, sizeof out, "%s/out", dir);
    cr_expect_neq(access(out, F_OK), 0, "%s: no output directory is left", endpoint);
    t_run_free(&r);
    rm_dir(dir);
  }
}

/* ---- the pool's browser is gone for good ------------------------------------------- */
/* Kills the pool's browser (its process group) once the crawl in out has
 * recorded states states; a thread of its own, asserting nothing. */
typedef struct { char out[700]; int states; pid_t pid; int killed; } killer;
static void *kill_mid_run(void *ud) {
  killer *k = ud;
  for (int i = 0; i < 1800 && t_journal_lines(k->out, "state") < k->states; i++) usleep(100000);
  k->killed = kill(-k->pid, SIGKILL) == 0;
  return NULL;
}

/* Issue 25 item 9: the browser behind --connect killed mid-crawl, so the one
 * reconnect --max-reconnects 1 allows fails. The run used to free the old
 * connection twice (exit 134, "free(): invalid size", or SIGSEGV). It ends
 * with exit 6, its last stderr line saying the reconnect failed, and a valid
 * package of the states found before the browser went. */
Test(pool, browser_gone_for_good_is_exit_6_with_the_package) {
  browser_start();
  char direct[64], *dir = t_tmpdir();
  snprintf(direct, sizeof direct, "http://127.0.0.1:%d", br.port);
  killer k = {.states = 3, .pid = br.pid};
  snprintf(k.out, sizeof k.out, "%s/out", dir);
  pthread_t th;
  cr_assert_eq(pthread_create(&th, NULL, kill_mid_run, &k), 0);
  const char *extra[] = {"--max-reconnects", "1", NULL};
  t_run r = crawl_via(direct, dir, extra);
  pthread_join(th, NULL);
  browser_stop(); /* reaps the killed browser */
  cr_assert(k.killed, "the browser was killed mid-run (exit %d): %s", r.status, r.err);
  cr_expect_eq(r.status, 6, "exit 6, the browser behind --connect was lost (%d): %s", r.status, r.err);
  size_t n = strlen(r.err);
  while (n && r.err[n - 1] == '\n') r.err[--n] = 0;
  const char *last = strrchr(r.err, '\n') ? strrchr(r.err, '\n') + 1 : r.err;
  cr_expect(!strncmp(last, "uiap-crawl: ", 12) && strstr(last, "reconnecting to the browser failed") &&
                strstr(last, "the run stopped there"),
            "the last line says why the run stopped: %s", r.err);
  cr_expect(!strstr(r.err, "free(") && !strstr(r.err, "Sanitizer"), "no crash: %s", r.err);
  cJSON *p = package_of(dir);
  cr_assert(p, "the package of what was found is written");
  cr_expect_geq(count_of(p, "states"), 3, "it holds the states found before the browser went (%d)",
                count_of(p, "states"));
  char *j = journal_of(dir);
  cr_expect(j && strstr(j, "reconnecting failed"), "the journal says the reconnect failed");
  free(j);
  cJSON_Delete(p);
  t_run_free(&r);
  rm_dir(dir);
}

/* ---- a pool's credentials are secrets of the run ------------------------------------ */
/* A pool's URL carries its token (browserless: ?token=...): unreachable,
 * the crawl fails with exit 6 (docs/exit-codes.md) and its line names the
 * URL without the token -- CI logs keep stderr. Likewise a password in the
 * URL's userinfo, any query value of --connect, and `snapshot --connect`. */
Test(pool, unreachable_pool_line_names_no_token) {
  static const char *const endpoints[] = {
    "http://127.0.0.1:1/?token=SECRETVALUE",
    "ws://127.0.0.1:1/devtools/browser/x?launch=SECRETVALUE&token=SECRETVALUE",
    "--connect=http://127.0.0.1:1/?token=SECRETVALUE",
  };
  for (size_t k = 0; k < sizeof endpoints / sizeof *endpoints; k++) {
    char *dir = t_tmpdir(), out[700];
    snprintf(out, sizeof out, "%s/out", dir);
    int eq = !strncmp(endpoints[k], "--", 2);
    const char *argv[] = {UIAP_BIN, "crawl", t_fixture_url(0, NULL, "/spa/index.html"), eq ? endpoints[k] : "--connect",
                          eq ? "-o" : endpoints[k], eq ? out : "-o", eq ? NULL : out, NULL};
    t_run r = t_run_argv(argv, 60000);
    cr_expect_eq(r.status, 6, "%s: exit 6, --connect failed (%d): %s", endpoints[k], r.status, r.err);
    cr_expect(strstr(r.err, "127.0.0.1:1"), "%s: the line names the pool: %s", endpoints[k], r.err);
    cr_expect_null(strstr(r.err, "SECRETVALUE"), "%s: the token is on stderr: %s", endpoints[k], r.err);
    cr_expect_null(strstr(r.out, "SECRETVALUE"), "%s: the token is on stdout", endpoints[k]);
    t_run_free(&r);
    rm_dir(dir);
  }
  const char *snap[] = {UIAP_BIN, "snapshot", t_fixture_url(0, NULL, "/spa/index.html"), "--connect",
                        "http://pool-user:PASSWORDVALUE@127.0.0.1:1/?token=SECRETVALUE", NULL};
  t_run r = t_run_argv(snap, 60000);
  cr_expect_neq(r.status, 0, "snapshot fails: %s", r.err);
  cr_expect(strstr(r.err, "127.0.0.1:1"), "the line names the pool: %s", r.err);
  cr_expect(!strstr(r.err, "SECRETVALUE") && !strstr(r.err, "PASSWORDVALUE"), "a credential is on stderr: %s", r.err);
  t_run_free(&r);
}

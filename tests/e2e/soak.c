/* soak.c -- end-to-end: crawls of real, widget-rich third-party apps at the
 * crawler's default settings (workers, mode, budgets), under ASan/UBSan.
 *
 * The apps come from npm, pinned in tests/soak/package-lock.json
 * (scripts/deps.sh installs them): AdminLTE 3.2.0 (an admin template:
 * its dashboard and its advanced forms page with select2 and date
 * pickers), SB Admin 2, swagger-ui on a local OpenAPI document, a
 * Tabulator data grid and a Shoelace settings page (web components in
 * shadow roots); the small pages that mount the last three are in
 * tests/soak/pages. The project's own server serves tests/soak on
 * loopback and counts every request that is not a GET or HEAD.
 *
 * What a user notices, per app: the crawl exits 0 (AdminLTE's dashboard
 * killed it with SIGSEGV, issue #25), it found more than the seed, its
 * package validates against the spec's schema, every file it wrote is
 * valid UTF-8 (freed memory once ended up in a journal), and no write
 * reached the server.
 *
 * Budgets: UIAP_SOAK_RUNTIME_MS per app (default 30000, as `make test`
 * runs it under ASan; "0" leaves the crawler's own default budgets, the
 * long run before a release: docs/hostile.md "Soak"). The suite is
 * registered only in the sanitizer build (tests/CMakeLists.txt).
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

/* ---- the server: tests/soak, writes counted -------------------------------- */
static crawl_server *srv;
static pthread_mutex_t wlock = PTHREAD_MUTEX_INITIALIZER;
static long nwrites;
static char wrote[2048];

static int count_writes(void *ud, const crawl_request *req, crawl_response *res) {
  (void)ud;
  (void)res;
  if (!strcmp(req->method, "GET") || !strcmp(req->method, "HEAD")) return 0;
  pthread_mutex_lock(&wlock);
  size_t used = strlen(wrote);
  if (used + 200 < sizeof wrote)
    snprintf(wrote + used, sizeof wrote - used, "%s%s %.150s", used ? ", " : "", req->method, req->path);
  nwrites++;
  pthread_mutex_unlock(&wlock);
  return 0; /* the static server answers 405: read-only */
}

static void stop_server(void) { crawl_server_stop(srv); }

static int soak_port(void) {
  if (!srv) {
    crawl_server_opts o = {.root = UIAP_SRC "/tests/soak", .handler = count_writes};
    char err[256];
    cr_assert_eq(crawl_server_start(&o, &srv, err, sizeof err), 0, "soak server: %s", err);
    atexit(stop_server);
  }
  return crawl_server_port(srv);
}

/* ---- checks -------------------------------------------------------------------- */
/* 1 when s[0..n) is valid UTF-8 (no overlong forms, no surrogates). */
static int utf8_ok(const unsigned char *s, size_t n, size_t *bad) {
  for (size_t i = 0; i < n;) {
    unsigned c = s[i];
    size_t k = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (!k || i + k > n || (k == 2 && c < 0xc2)) return *bad = i, 0;
    unsigned cp = k == 1 ? c : c & (0x7f >> k);
    for (size_t j = 1; j < k; j++) {
      if ((s[i + j] & 0xc0) != 0x80) return *bad = i, 0;
      cp = cp << 6 | (s[i + j] & 0x3f);
    }
    if ((k == 3 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff)))
      return *bad = i, 0;
    i += k;
  }
  return 1;
}

/* Every text file the crawl wrote (journal, package, states, reports) is
 * valid UTF-8; screenshots aside. */
/* The failures of the crawl in out whose reason is a hit test that landed
 * elsewhere ("obscured: ..."). */
static int failures_obscured(const char *out) {
  char path[700];
  snprintf(path, sizeof path, "%s/journal.jsonl", out);
  char *text = t_read_file(path, NULL);
  int n = 0;
  for (char *p = text; p && (p = strstr(p, "\"reason\":\"obscured")); p++) n++;
  free(text);
  return n;
}

static void expect_utf8_tree(const char *dir) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "find '%s' -type f \\( -name '*.json' -o -name '*.jsonl' -o -name '*.html' -o -name "
           "'*.sarif' -o -name '*.xml' -o -name '*.dot' -o -name '*.txt' \\)", dir);
  FILE *p = popen(cmd, "r");
  cr_assert(p);
  char path[1024];
  int files = 0;
  while (fgets(path, sizeof path, p)) {
    path[strcspn(path, "\n")] = 0;
    size_t n = 0, bad = 0;
    char *s = t_read_file(path, &n);
    if (!s) continue;
    files++;
    cr_expect(utf8_ok((const unsigned char *)s, n, &bad), "%s is not valid UTF-8 at byte %zu", path, bad);
    free(s);
  }
  pclose(p);
  cr_expect_gt(files, 1, "the crawl wrote its files into %s", dir);
}

static int runtime_ms(void) {
  const char *v = getenv("UIAP_SOAK_RUNTIME_MS");
  return v && *v ? atoi(v) : 30000;
}

/* metadata.gate of a package: the gate's decisions, and how many of them
 * were held because nothing settled the control (rule default.unknown). */
typedef struct gate_counts { int allow, skip, review, deny, unknown, untried, total; } gate_counts;

static gate_counts gate_of(const cJSON *pkg) {
  const cJSON *g = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pkg, "metadata"), "gate");
  gate_counts c = {0};
  const cJSON *x;
  if ((x = cJSON_GetObjectItemCaseSensitive(g, "allow"))) c.allow = x->valueint;
  if ((x = cJSON_GetObjectItemCaseSensitive(g, "skip"))) c.skip = x->valueint;
  if ((x = cJSON_GetObjectItemCaseSensitive(g, "review"))) c.review = x->valueint;
  if ((x = cJSON_GetObjectItemCaseSensitive(g, "deny"))) c.deny = x->valueint;
  cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(g, "byRule")) {
    const cJSON *rule = cJSON_GetObjectItemCaseSensitive(x, "rule"), *n = cJSON_GetObjectItemCaseSensitive(x, "count");
    if (cJSON_IsString(rule) && !strcmp(rule->valuestring, "default.unknown") && cJSON_IsNumber(n)) c.unknown += n->valueint;
  }
  /* probe candidates the budget left untried: neither allowed nor held */
  const cJSON *probed = cJSON_GetObjectItemCaseSensitive(g, "probed");
  if ((x = cJSON_GetObjectItemCaseSensitive(probed, "untried"))) c.untried = x->valueint;
  c.total = c.allow + c.skip + c.review + c.deny;
  return c;
}

/* Crawl the app at path on the soak server at default settings (but the
 * runtime budget), and check what a user would notice. */
static void soak(const char *path) {
  int budget = runtime_ms();
  char url[512], *dir = t_tmpdir(), out[600], ms[32], env_tmp[700];
  snprintf(url, sizeof url, "http://127.0.0.1:%d%s", soak_port(), path);
  snprintf(out, sizeof out, "%s/out", dir);
  snprintf(ms, sizeof ms, "%d", budget);
  snprintf(env_tmp, sizeof env_tmp, "%s/tmp", dir);
  cr_assert_eq(mkdir(env_tmp, 0700), 0);
  /* default settings: as many workers as the crawler picks itself */
  char *was = getenv("UIAP_WORKERS") ? strdup(getenv("UIAP_WORKERS")) : NULL;
  unsetenv("UIAP_WORKERS");
  setenv("TMPDIR", env_tmp, 1);
  const char *with_budget[] = {UIAP_BIN, "crawl", url, "-o", out, "--quiet", "--max-runtime-ms", ms, NULL};
  const char *defaults[] = {UIAP_BIN, "crawl", url, "-o", out, "--quiet", NULL};
  pthread_mutex_lock(&wlock);
  long before = nwrites;
  wrote[0] = 0;
  pthread_mutex_unlock(&wlock);
  /* the step in flight when the budget ends, then the package and, under
   * ASan, a slower everything */
  t_run r = t_run_argv(budget > 0 ? with_budget : defaults, budget > 0 ? budget * 3 + 120000 : 3 * 3600 * 1000);
  unsetenv("TMPDIR");
  if (was) setenv("UIAP_WORKERS", was, 1);
  free(was);

  cr_expect_eq(r.status, 0, "crawl %s exits 0 (got %d); stderr:\n%s", url, r.status, r.err);
  char pkg[700], msg[4096];
  snprintf(pkg, sizeof pkg, "%s/package.json", out);
  cJSON *p = t_package_read(pkg);
  cr_assert(p, "%s has a package", out);
  gate_counts gc = gate_of(p);
  cJSON_Delete(p);
  int nstates = t_journal_lines(out, "state");
  int ntrans = t_journal_lines(out, "transition"), nfailed = t_journal_lines(out, "failure");
  int nobscured = failures_obscured(out);
  /* the figures a release note quotes (docs/hostile.md "Soak") */
  fprintf(stderr, "soak: %s: exit %d, %d states, %d transitions, %lld ms; gate allow %d skip %d review %d deny %d, "
          "held unknown %d (%.1f%%), probes untried %d, actions failed %d of %d\n", path, r.status, nstates, ntrans,
          r.ms, gc.allow, gc.skip, gc.review, gc.deny, gc.unknown, gc.total ? 100.0 * gc.unknown / gc.total : 0.0,
          gc.untried, nfailed, ntrans + nfailed);
  cr_expect_gt(nstates, 1, "the crawl of %s found more than its seed (%d states)", url, nstates);
  /* a crawl whose clicks mostly fail maps nothing: a hit test in the wrong
   * coordinates once failed 67 % of AdminLTE's as "obscured"; AG Grid under
   * ASan beside another soak loses up to 59 % of its targets to its
   * re-rendered rows ("target not found", session 16's CI), so the bar for
   * all failures is three in four and for the hit test one in two */
  cr_expect_lt(nobscured, (ntrans + nfailed) / 2 + 1, "most actions of %s failed as obscured: %d of %d", url, nobscured,
               ntrans + nfailed);
  cr_expect_lt(nfailed, 3 * (ntrans + nfailed) / 4 + 1, "most actions of %s failed: %d of %d", url, nfailed, ntrans + nfailed);
  cr_expect_eq(t_validate("DiscoveryPackage", pkg, msg, sizeof msg), 0, "the package of %s validates: %s", url, msg);
  expect_utf8_tree(out);
  pthread_mutex_lock(&wlock);
  long writes = nwrites - before;
  pthread_mutex_unlock(&wlock);
  cr_expect_eq(writes, 0, "no write reached the server while crawling %s: %s", url, wrote);
  cr_expect_eq(t_leftovers(env_tmp), 0, "the crawl of %s left nothing behind in its TMPDIR", url);
  t_run_free(&r);
  t_rm_rf(dir);
  free(dir);
}

static void need_apps(void) {
  if (access(UIAP_SRC "/tests/soak/node_modules/admin-lte/package.json", R_OK) == 0) return;
  if (t_ci_required())
    cr_assert_fail("tests/soak/node_modules is missing: scripts/deps.sh installs it (npm ci in tests/soak)");
  cr_skip_test("needs tests/soak/node_modules (scripts/deps.sh: npm ci in tests/soak)");
}

TestSuite(soak, .init = need_apps, .timeout = 3 * 3600);

Test(soak, adminlte_dashboard) { soak("/node_modules/admin-lte/index.html"); }
Test(soak, adminlte_advanced_forms) { soak("/node_modules/admin-lte/pages/forms/advanced.html"); }
Test(soak, sb_admin_2) { soak("/node_modules/startbootstrap-sb-admin-2/index.html"); }
Test(soak, swagger_ui) { soak("/pages/swagger.html"); }
Test(soak, tabulator_grid) { soak("/pages/tabulator.html"); }
Test(soak, shoelace_components) { soak("/pages/shoelace.html"); }
Test(soak, rapidoc_console) { soak("/pages/rapidoc.html"); }
Test(soak, quill_editor) { soak("/pages/quill.html"); }
Test(soak, jsoneditor_tree) { soak("/pages/jsoneditor.html"); }
Test(soak, aggrid_grid) { soak("/pages/aggrid.html"); }

/* report.c -- end-to-end: crawl the fixture app in tests/fixtures/reports
 * (app-v1, app-v2) with real headless Chromium, then
 *   - `uiap-crawl report`: report.html renders in Chromium with one graph
 *     node per state, a thumbnail per screenshot, working filters, no
 *     console error and nothing fetched; review.sarif has one result per
 *     review item and validates against the SARIF 2.1.0 schema (ajv, from
 *     UIAP_SHARED when it is there); junit.xml parses (Chromium's DOMParser);
 *   - the workflow candidate of the "create a video" shape (18.2);
 *   - `uiap-crawl diff` of app-v1 and app-v2 (a route and a button gone):
 *     a regression, exit 9 with --fail-on-regression;
 *   - `uiap-crawl validate` on real and broken documents;
 *   - `crawl --fail-on high`: exit 10 when such review items exist. */
#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crawl.h"
#include "support.h"

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb; (void)flag; (void)ftw;
  return remove(path);
}
static void rm_rf(const char *dir) { nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static const char *str(const cJSON *o, const char *k) { return cJSON_GetStringValue(get(o, k)); }


/* Crawl fixture app `app` (its directory, served at / by the crawl itself,
 * so both versions have the same routes) into a new directory; returns the
 * output directory (caller frees). */
static char *crawl_app(const char *app, const char *extra, int want_status) {
  char *dir = t_tmpdir(), out[600], path[600];
  cr_assert(dir);
  snprintf(out, sizeof out, "%s/out", dir);
  snprintf(path, sizeof path, UIAP_SRC "/tests/fixtures/reports/%s", app);
  const char *args[] = {"crawl", path, "-o", out, "--max-runtime-ms", "120000", "--quiet", NULL, NULL, NULL};
  if (extra && !strcmp(extra, "--screenshots")) args[7] = extra;
  else if (extra) { args[7] = "--fail-on"; args[8] = extra; }
  t_run r = t_run_cli(args, 200000);
  cr_assert_eq(r.status, want_status, "crawl %s: exit %d: %s", app, r.status, r.err);
  t_run_free(&r);
  char *res = strdup(out);
  free(dir);
  return res;
}

/* ---- Chromium: console errors and exceptions ---------------------------------------------- */
typedef struct { int errors; char first[512]; } console;
static void on_event(void *ud, const char *session, const char *method, const cJSON *params) {
  console *c = ud;
  const char *text = NULL;
  if (!strcmp(method, "Runtime.exceptionThrown")) {
    text = str(get(params, "exceptionDetails"), "text");
    if (!text) text = "exception";
  } else if (!strcmp(method, "Runtime.consoleAPICalled")) {
    const char *type = str(params, "type");
    if (!type || (strcmp(type, "error") && strcmp(type, "warning") && strcmp(type, "assert"))) return;
    text = str(cJSON_GetArrayItem(get(params, "args"), 0), "value");
    if (!text) text = type;
  } else if (!strcmp(method, "Log.entryAdded")) {
    const cJSON *e = get(params, "entry");
    if (!str(e, "level") || strcmp(str(e, "level"), "error")) return;
    text = str(e, "text");
  } else return;
  if (!c->errors++) snprintf(c->first, sizeof c->first, "%s: %s", method, text ? text : "?");
}

/* Evaluate expr in the page; the result as a number (or -1). */
static double eval_num(crawl_page *p, const char *expr) {
  cJSON *params = cJSON_CreateObject(), *res = NULL;
  cJSON_AddStringToObject(params, "expression", expr);
  cJSON_AddBoolToObject(params, "returnByValue", 1);
  cdp_code rc = cdp_call(crawl_page_client(p), crawl_page_session(p), "Runtime.evaluate", params, &res, 10000);
  double v = -1;
  if (rc == CDP_OK && cJSON_IsNumber(get(get(res, "result"), "value"))) v = get(get(res, "result"), "value")->valuedouble;
  cr_expect_eq(rc, CDP_OK, "Runtime.evaluate %s", expr);
  cJSON_Delete(res);
  return v;
}

Test(report, renders_and_validates, .timeout = 400) {
  char *out = crawl_app("app-v1", "--screenshots", 0);
  /* the reports, regenerated from the crawl directory */
  const char *rargs[] = {"report", out, "--layout", "builtin", NULL};
  t_run r = t_run_cli(rargs, 60000);
  cr_assert_eq(r.status, 0, "report: exit %d: %s", r.status, r.err);
  cr_expect(strstr(r.out, "report.html"), "the written files are listed: %s", r.out);
  t_run_free(&r);
  cJSON *pkg = t_json_at(out, "package.json");
  cr_assert(pkg);
  char pkgpath[700], msg[8192];
  snprintf(pkgpath, sizeof pkgpath, "%s/package.json", out);
  cr_expect_eq(t_validate("DiscoveryPackage", pkgpath, msg, sizeof msg), 0, "%s", msg);
  const cJSON *states = get(get(pkg, "transitionGraph"), "states"), *s;
  int nstates = cJSON_GetArraySize(states), nshots = 0, nitems = 0, nhigh = 0, nunsafe_low = 0;
  cJSON_ArrayForEach(s, states) nshots += str(s, "screenshotRef") != NULL;
  cr_assert_geq(nstates, 4, "dashboard, videos, new video, created video");
  cr_expect_eq(nshots, nstates, "every state has a screenshot");
  const cJSON *it;
  cJSON_ArrayForEach(it, get(get(pkg, "reviewQueue"), "items")) {
    nitems++;
    nhigh += !strcmp(str(it, "severity"), "high");
    nunsafe_low += !strcmp(str(it, "kind"), "unsafe_action_candidate") && strcmp(str(it, "severity"), "high");
  }
  cr_expect_geq(nhigh, 1, "Delete all videos is denied: a high item");

  /* the workflow candidate: dashboard -> videos -> new -> title -> create -> route change */
  const cJSON *w = NULL, *x;
  cJSON_ArrayForEach(x, get(get(pkg, "workflowCandidates"), "workflows"))
    if (!strcmp(str(x, "id"), "candidate.video.create")) w = x;
  cr_assert(w, "a candidate for video.create");
  static const struct { const char *type, *action, *target; } want[] = {
    {"action", "nav.navigate", "Videos"}, {"action", "nav.navigate", "New video"},
    {"action", "ui.enterText", "Title"}, {"action", "video.create", "Create video"},
    {"ensure", NULL, NULL}, {"complete", NULL, NULL}};
  const cJSON *steps = get(w, "stepSkeleton");
  cr_assert_eq(cJSON_GetArraySize(steps), 6, "six steps");
  for (int i = 0; i < 6; i++) {
    const cJSON *st = cJSON_GetArrayItem(steps, i);
    cr_expect_str_eq(str(st, "type"), want[i].type, "step %d", i);
    if (want[i].action) cr_expect_str_eq(str(st, "actionId"), want[i].action, "step %d", i);
    if (want[i].target) cr_expect_str_eq(str(get(st, "target"), "name"), want[i].target, "step %d", i);
  }
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(get(cJSON_GetArrayItem(steps, 2), "parameterNames"), 0)), "title");
  const cJSON *sig = cJSON_GetArrayItem(get(cJSON_GetArrayItem(steps, 4), "signals"), 0);
  cr_expect_str_eq(str(sig, "kind"), "route.changed");
  cr_expect_str_eq(str(sig, "pattern"), "/#/videos/4");
  const cJSON *title = cJSON_GetArrayItem(get(w, "requiredInputs"), 0);
  cr_expect_str_eq(str(title, "name"), "title");
  cr_expect_str_eq(str(title, "type"), "string");
  cr_expect(cJSON_IsTrue(get(title, "required")));
  cr_expect_str_eq(str(title, "dataClass"), "free_text");
  cr_expect(cJSON_IsTrue(get(get(w, "metadata"), "observedOnly")), "the title was never typed: observation");

  /* SARIF: one result per review item; valid against the official schema
   * (from UIAP_SHARED: without it, only that check is skipped) */
  cJSON *sarif_log = t_json_at(out, "review.sarif");
  cr_assert(sarif_log, "review.sarif parses");
  cr_expect_eq(cJSON_GetArraySize(get(cJSON_GetArrayItem(get(sarif_log, "runs"), 0), "results")), nitems,
               "one result per review item");
  cJSON_Delete(sarif_log);
  char sarif[700];
  snprintf(sarif, sizeof sarif, "%s/review.sarif", out);
  const char *schema = t_shared_check("conformance/sarif/sarif-schema-2.1.0.json", "SARIF schema check");
  const char *script =
    "const fs=require('fs'),path=require('path');"
    "const tools=process.env.UIAP_SPEC_TOOLS||path.join(process.env.HOME,'.cache','uiap-spec-tools');"
    "const Ajv=require(path.join(tools,'node_modules','ajv'));"
    "const ajv=new (Ajv.default||Ajv)({strict:false,allErrors:true,logger:false});"
    "const log=JSON.parse(fs.readFileSync(process.argv[2],'utf8'));"
    "if(!ajv.validate(JSON.parse(fs.readFileSync(process.argv[1],'utf8')),log)){console.log(JSON.stringify(ajv.errors.slice(0,5)));process.exit(1)}"
    "console.log(log.runs[0].results.length)";
  if (schema) {
    const char *nargv[] = {"/usr/bin/env", "node", "-e", script, schema, sarif, NULL};
    r = t_run_argv(nargv, 60000);
    cr_expect_eq(r.status, 0, "review.sarif validates: %s %s", r.out, r.err);
    cr_expect_eq(atoi(r.out), nitems, "ajv read one result per review item");
    t_run_free(&r);
  }

  /* report.html in Chromium */
  cdp_client *c = NULL;
  char err[512];
  cdp_launch_opts lo = {0};
  cr_assert_eq(cdp_launch(&lo, &c, err, sizeof err), CDP_OK, "%s", err);
  console con = {0};
  cdp_on(c, "Runtime.exceptionThrown", on_event, &con);
  cdp_on(c, "Runtime.consoleAPICalled", on_event, &con);
  cdp_on(c, "Log.entryAdded", on_event, &con);
  crawl_page *p = NULL;
  crawl_page_opts po = {0};
  cr_assert_eq(crawl_page_open(c, &po, &p), CRAWL_OK);
  cJSON *res = NULL;
  cdp_call(c, crawl_page_session(p), "Log.enable", NULL, &res, 5000);
  cJSON_Delete(res);
  char url[800];
  snprintf(url, sizeof url, "file://%s/report.html", out);
  cr_assert_eq(crawl_page_goto(p, url), CRAWL_OK, "%s", crawl_page_errmsg(p));
  cr_expect_eq(eval_num(p, "document.querySelectorAll('#graph-svg svg g.node').length"), nstates, "one graph node per state");
  cr_expect_eq(eval_num(p, "document.querySelectorAll('.state img[src^=\"data:image/png;base64,\"]').length"), nshots,
               "a thumbnail per screenshot");
  cr_expect_eq(eval_num(p, "Array.prototype.filter.call(document.querySelectorAll('.state img'),"
                           "function(i){return i.complete && i.naturalWidth > 0}).length"), nshots, "the thumbnails decode");
  cr_expect_eq(eval_num(p, "Array.prototype.filter.call(document.querySelectorAll('[src],[href]'),function(e){"
                           "var v=e.getAttribute('src')||e.getAttribute('href');return !(v.indexOf('data:')===0||v.charAt(0)==='#')}).length"),
               0, "nothing refers outside the file");
  cr_expect_eq(eval_num(p, "performance.getEntriesByType('resource').length"), 0, "nothing was fetched");
  cr_expect_eq(eval_num(p, "document.querySelectorAll('#review-table tbody tr').length"), nitems);
  cr_expect_eq(eval_num(p, "(function(){document.querySelector('input[data-sev=high]').click();"
                           "return +document.getElementById('review-count').textContent})()"),
               nitems - nhigh, "unticking high hides the high items");
  cr_expect_eq(eval_num(p, "document.querySelectorAll('#review-table tbody tr:not([hidden])').length"), nitems - nhigh);
  cr_expect_eq(eval_num(p, "(function(){var k=document.getElementById('kind-filter');k.value='unsafe_action_candidate';"
                           "k.dispatchEvent(new Event('change'));return +document.getElementById('review-count').textContent})()"),
               nunsafe_low, "high unticked, only unsafe_action_candidate");
  cr_expect_eq(eval_num(p, "document.querySelectorAll('#workflows .wf').length"),
               cJSON_GetArraySize(get(get(pkg, "workflowCandidates"), "workflows")));
  cr_expect_gt(eval_num(p, "document.querySelectorAll('#safety-table tbody tr').length"), 0, "the safety decisions are listed");
  /* junit.xml is well-formed XML: Chromium's parser, in the same page */
  char jpath[700];
  snprintf(jpath, sizeof jpath, "%s/junit.xml", out);
  char *xml = t_read_file(jpath, NULL);
  cr_assert(xml);
  cJSON *js = cJSON_CreateString(xml);
  char *lit = cJSON_PrintUnformatted(js);
  cJSON_Delete(js);
  free(xml);
  size_t n = strlen(lit) + 400;
  char *expr = malloc(n);
  snprintf(expr, n, "(function(x){var d=new DOMParser().parseFromString(x,'application/xml');"
                    "if(d.getElementsByTagName('parsererror').length)return -1;return d.getElementsByTagName('testcase').length})(%s)", lit);
  int nroutes = cJSON_GetArraySize(get(get(pkg, "routeCatalog"), "routes"));
  int nseeds = cJSON_GetArraySize(get(get(pkg, "run"), "seeds"));
  cr_expect_eq(eval_num(p, expr), nseeds + nroutes, "junit.xml parses: a test case per seed and per route");
  free(expr);
  free(lit);
  cdp_pump(c, 300);
  cr_expect_eq(con.errors, 0, "no console errors or exceptions: %s", con.first);
  crawl_page_close(p);
  cdp_client_free(c);

  /* validate: the package and a state file pass; a broken package names the path */
  const char *v1[] = {"validate", out, NULL};
  r = t_run_cli(v1, 30000);
  cr_expect_eq(r.status, 0, "validate package: %s %s", r.out, r.err);
  cr_expect(strstr(r.out, "valid DiscoveryPackage"), "%s", r.out);
  t_run_free(&r);
  char state[900];
  snprintf(state, sizeof state, "%s/%s", out, str(cJSON_GetArrayItem(states, 0), "pageGraphRef"));
  const char *v2[] = {"validate", state, NULL};
  r = t_run_cli(v2, 30000);
  cr_expect_eq(r.status, 0, "validate state: %s %s", r.out, r.err);
  cr_expect(strstr(r.out, "valid PageGraph"), "%s", r.out);
  t_run_free(&r);
  cJSON *broken = cJSON_Duplicate(pkg, 1);
  cJSON *r0 = cJSON_GetArrayItem(get(get(broken, "routeCatalog"), "routes"), 0);
  cJSON_ReplaceItemInObjectCaseSensitive(r0, "confidence", cJSON_CreateString("sure"));
  char bpath[800];
  snprintf(bpath, sizeof bpath, "%s/broken.json", out);
  char *bt = cJSON_Print(broken);
  t_write_file(bpath, bt);
  free(bt);
  cJSON_Delete(broken);
  const char *v3[] = {"validate", bpath, NULL};
  r = t_run_cli(v3, 30000);
  cr_expect_eq(r.status, 11, "a broken package: exit 11, got %d: %s", r.status, r.err);
  cr_expect(strstr(r.out, "/routeCatalog/routes/0/confidence"), "the JSON path of the error: %s", r.out);
  t_run_free(&r);
  const char *v4[] = {"validate", bpath, "--format", "json", NULL};
  r = t_run_cli(v4, 30000);
  cJSON *vj = cJSON_Parse(r.out);
  cr_expect(vj && cJSON_IsFalse(get(vj, "valid")), "%s", r.out);
  cr_expect_str_eq(str(cJSON_GetArrayItem(get(vj, "errors"), 0), "path"), "/routeCatalog/routes/0/confidence");
  cJSON_Delete(vj);
  t_run_free(&r);

  cJSON_Delete(pkg);
  char *top = strdup(out);
  *strrchr(top, '/') = 0;
  rm_rf(top);
  free(top);
  free(out);
}

static int listed(const cJSON *d, const char *section, const char *what, const char *key) {
  const cJSON *x;
  cJSON_ArrayForEach(x, get(get(get(d, "sections"), section), what))
    if (cJSON_IsString(x) && !strcmp(x->valuestring, key)) return 1;
  return 0;
}

Test(report, diff_of_two_versions, .timeout = 400) {
  /* app-v2 has a high-severity item (Delete all videos is denied): --fail-on high
   * fails the crawl with exit 10, after the package and reports are written */
  char *v1 = crawl_app("app-v1", NULL, 0), *v2 = crawl_app("app-v2", "high", 10);
  char rep[700];
  snprintf(rep, sizeof rep, "%s/report.html", v2);
  cr_expect_eq(access(rep, R_OK), 0, "the crawl wrote its reports");
  const char *bad[] = {"crawl", UIAP_SRC "/tests/fixtures/reports/app-v2", "-o", rep, "--fail-on", "critical", NULL};
  t_run r = t_run_cli(bad, 30000);
  cr_expect_eq(r.status, 2, "--fail-on critical is a usage error");
  t_run_free(&r);
  /* text for people, and the exit code only with --fail-on-regression */
  const char *a1[] = {"diff", v1, v2, NULL};
  r = t_run_cli(a1, 30000);
  cr_expect_eq(r.status, 0, "without --fail-on-regression: exit 0 (%s)", r.err);
  cr_expect(strstr(r.out, "REGRESSION"), "%s", r.out);
  cr_expect(strstr(r.out, "- /#/help"), "%s", r.out);
  t_run_free(&r);
  const char *a2[] = {"diff", v1, v2, "--fail-on-regression", "--format", "json", NULL};
  r = t_run_cli(a2, 30000);
  cr_expect_eq(r.status, 9, "a regression: exit 9, got %d (%s)", r.status, r.err);
  cJSON *d = cJSON_Parse(r.out);
  cr_assert(d, "JSON: %s", r.out);
  cr_expect(cJSON_IsTrue(get(d, "regression")));
  cr_expect(listed(d, "routes", "removed", "/#/help"), "the Help route is gone");
  cr_expect(listed(d, "elements", "removed", "videos.tips"), "the Show tips button is gone");
  cr_expect(listed(d, "elements", "removed", "nav.help"), "the Help link is gone");
  cr_expect(listed(d, "elements", "added", "videos.sort"), "Sort by title is new");
  cr_expect(listed(d, "transitions", "removed", "/#/videos ui.expand videos.tips"), "and what it did");
  cr_expect_str_eq(str(get(d, "new"), "path"), v2);
  cJSON_Delete(d);
  t_run_free(&r);
  /* the other way round: Help comes back (no regression), Sort by title goes */
  const char *a3[] = {"diff", v2, v1, "--fail-on-regression", "--format", "json", NULL};
  r = t_run_cli(a3, 30000);
  cr_expect_eq(r.status, 9, "v2 -> v1: %s", r.err);
  d = cJSON_Parse(r.out);
  cr_assert(d);
  cr_expect_eq(cJSON_GetArraySize(get(d, "regressions")), 1, "only the removed Sort button: %s", r.out);
  cr_expect(listed(d, "routes", "added", "/#/help"));
  cJSON_Delete(d);
  t_run_free(&r);
  /* a package against itself */
  const char *a4[] = {"diff", v1, v1, "--fail-on-regression", NULL};
  r = t_run_cli(a4, 30000);
  cr_expect_eq(r.status, 0);
  cr_expect(strstr(r.out, "no differences"), "%s", r.out);
  t_run_free(&r);
  /* usage errors */
  const char *a5[] = {"diff", v1, NULL};
  r = t_run_cli(a5, 30000);
  cr_expect_eq(r.status, 2);
  t_run_free(&r);
  for (int i = 0; i < 2; i++) {
    char *top = strdup(i ? v2 : v1);
    *strrchr(top, '/') = 0;
    rm_rf(top);
    free(top);
  }
  free(v1);
  free(v2);
}

/* crawler_report.c -- unit tests of what is derived from a package without a
 * browser: workflow candidates (workflow.c), the reports (report.c), the
 * package diff (diff.c) and the built-in schema validator (validate.c).
 * Crawl directories are made from the hand-written journals in
 * tests/fixtures/journals (see the README there). */
#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crawl.h"
#include "support.h"

#define FIXTURES UIAP_SRC "/tests/fixtures/journals"

/* ---- helpers ---------------------------------------------------------------- */
static cJSON *build(const char *dir) {
  cJSON *p = NULL;
  char err[512] = "";
  crawl_code rc = crawl_package_build(dir, &p, err, sizeof err);
  cr_assert_eq(rc, CRAWL_OK, "crawl_package_build: %s (%s)", crawl_strerror(rc), err);
  return p;
}

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static const char *str(const cJSON *o, const char *k) { return cJSON_GetStringValue(get(o, k)); }

static const cJSON *workflow(const cJSON *p, const char *id) {
  const cJSON *w;
  cJSON_ArrayForEach(w, get(get(p, "workflowCandidates"), "workflows"))
    if (str(w, "id") && !strcmp(str(w, "id"), id)) return w;
  return NULL;
}

static const cJSON *review_item(const cJSON *p, const char *id) {
  const cJSON *it;
  cJSON_ArrayForEach(it, get(get(p, "reviewQueue"), "items"))
    if (str(it, "id") && !strcmp(str(it, "id"), id)) return it;
  return NULL;
}

static char *read_in(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return t_read_file(path, NULL);
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *s = hay; (s = strstr(s, needle)); s += strlen(needle)) n++;
  return n;
}

/* ---- workflow candidates ------------------------------------------------------ */
Test(workflow, form_and_domain_action_candidates) {
  char *dir = t_journal_dir("normal", NULL);
  cJSON *p = build(dir);
  /* the settings form: Settings link from the seed, the three fields, the app action */
  const cJSON *w = workflow(p, "candidate.settings.save");
  cr_assert(w, "a candidate for the settings form");
  cr_expect_str_eq(str(w, "category"), "settings");
  const cJSON *steps = get(w, "stepSkeleton");
  int n = cJSON_GetArraySize(steps);
  cr_assert_geq(n, 3);
  cr_expect_str_eq(str(cJSON_GetArrayItem(steps, 0), "actionId"), "nav.navigate", "the path from the seed comes first");
  cr_expect_str_eq(str(cJSON_GetArrayItem(steps, n - 2), "actionId"), "settings.save", "the commit is the app action");
  cr_expect_str_eq(str(cJSON_GetArrayItem(steps, n - 1), "type"), "complete");
  /* inputs: a password is a secret credential, never free text */
  const cJSON *in, *pw = NULL;
  cJSON_ArrayForEach(in, get(w, "requiredInputs")) if (!strcmp(str(in, "name"), "password")) pw = in;
  cr_assert(pw, "a password parameter");
  cr_expect_str_eq(str(pw, "type"), "secret");
  cr_expect_str_eq(str(pw, "dataClass"), "credential");
  /* every enterText step names a parameter that is an input */
  const cJSON *st;
  cJSON_ArrayForEach(st, steps) {
    if (!str(st, "actionId") || strcmp(str(st, "actionId"), "ui.enterText")) continue;
    const char *pn = cJSON_GetStringValue(cJSON_GetArrayItem(get(st, "parameterNames"), 0));
    int found = 0;
    cJSON_ArrayForEach(in, get(w, "requiredInputs")) found |= !strcmp(str(in, "name"), pn);
    cr_expect(found, "parameter %s is an input", pn);
  }
  /* the text fields were never typed into: observation only, and so uncertain */
  const cJSON *md = get(w, "metadata");
  cr_expect(cJSON_IsTrue(get(md, "observedOnly")));
  cr_expect_str_eq(str(w, "reviewState"), "needs_review");
  const cJSON *ri;
  int uncertain = 0;
  cJSON_ArrayForEach(ri, get(md, "reviewItems")) {
    const cJSON *it = review_item(p, ri->valuestring);
    cr_expect(it, "review item %s of the workflow is in the queue", ri->valuestring);
    uncertain |= it && !strcmp(str(it, "kind"), "workflow_uncertain");
  }
  cr_expect(uncertain, "a workflow_uncertain item");
  cr_expect(workflow(p, "candidate.note.create"), "the note form");
  /* coverage agrees */
  cr_expect_eq(cJSON_GetNumberValue(get(get(p, "coverage"), "workflowCandidatesDiscovered")),
               cJSON_GetArraySize(get(get(p, "workflowCandidates"), "workflows")));
  cr_expect_eq(cJSON_GetNumberValue(get(get(p, "coverage"), "reviewItems")), cJSON_GetArraySize(get(get(p, "reviewQueue"), "items")));
  /* the package still validates, with the built-in schema and with ajv */
  crawl_validation v;
  char err[256];
  cr_assert_eq(crawl_validate_json(p, NULL, &v, err, sizeof err), CRAWL_OK, "%s", err);
  cr_expect_eq(v.nerrors, 0, "%s: %s", v.errors[0].path, v.errors[0].message);
  char path[1024], msg[4096];
  snprintf(path, sizeof path, "%s/pkg.json", dir);
  char *text = cJSON_Print(p);
  t_write_file(path, text);
  free(text);
  cr_expect_eq(t_validate("DiscoveryPackage", path, msg, sizeof msg), 0, "%s", msg);
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

Test(workflow, no_duplicate_missing_signal_item_for_a_domain_action) {
  char *dir = t_journal_dir("normal", NULL);
  cJSON *p = build(dir);
  /* note.create has the package's own missing_success_signal item: the
   * workflow refers to it instead of adding a second one */
  int n = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, get(get(p, "reviewQueue"), "items"))
    n += !strcmp(str(it, "kind"), "missing_success_signal") && strstr(str(it, "description"), "note.create") != NULL;
  cr_expect_eq(n, 1);
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

Test(workflow, deterministic) {
  char *dir = t_journal_dir("normal", NULL);
  cJSON *a = build(dir), *b = build(dir);
  char *ta = cJSON_PrintUnformatted(a), *tb = cJSON_PrintUnformatted(b);
  cr_expect_str_eq(ta, tb);
  free(ta);
  free(tb);
  cJSON_Delete(a);
  cJSON_Delete(b);
  t_rm_rf(dir);
  free(dir);
}

/* ---- reports -------------------------------------------------------------------- */
static char *reports_dir(const crawl_report_opts *o) {
  char *dir = t_journal_dir("normal", NULL), err[512];
  cr_assert_eq(crawl_package_write(dir, err, sizeof err), CRAWL_OK, "%s", err);
  crawl_code rc = crawl_reports_write(dir, o, err, sizeof err);
  cr_assert_eq(rc, CRAWL_OK, "crawl_reports_write: %s", err);
  return dir;
}

Test(report, files_and_counts) {
  crawl_report_opts o = {.layout = CRAWL_LAYOUT_BUILTIN};
  char *dir = reports_dir(&o);
  char *pkgtext = read_in(dir, "package.json");
  cJSON *p = cJSON_Parse(pkgtext);
  free(pkgtext);
  int nitems = cJSON_GetArraySize(get(get(p, "reviewQueue"), "items"));
  int nstates = cJSON_GetArraySize(get(get(p, "transitionGraph"), "states"));
  int nroutes = cJSON_GetArraySize(get(get(p, "routeCatalog"), "routes"));
  int nseeds = cJSON_GetArraySize(get(get(p, "run"), "seeds"));
  /* SARIF: one result per review item, rules per kind, levels by severity */
  char *t = read_in(dir, "review.sarif");
  cJSON *s = cJSON_Parse(t);
  free(t);
  cr_assert(s, "review.sarif is JSON");
  cr_expect_str_eq(str(s, "version"), "2.1.0");
  const cJSON *run = cJSON_GetArrayItem(get(s, "runs"), 0), *res;
  cr_expect_eq(cJSON_GetArraySize(get(run, "results")), nitems);
  const cJSON *rules = get(get(get(run, "tool"), "driver"), "rules");
  int i = 0;
  cJSON_ArrayForEach(res, get(run, "results")) {
    const cJSON *it = cJSON_GetArrayItem(get(get(p, "reviewQueue"), "items"), i++);
    const cJSON *rule = cJSON_GetArrayItem(rules, (int)cJSON_GetNumberValue(get(res, "ruleIndex")));
    cr_expect_str_eq(str(rule, "id"), str(res, "ruleId"));
    char want[64];
    snprintf(want, sizeof want, "uiap/%s", str(it, "kind"));
    cr_expect_str_eq(str(res, "ruleId"), want);
    const char *sev = str(it, "severity"), *lvl = str(res, "level");
    cr_expect_str_eq(lvl, !strcmp(sev, "high") ? "error" : !strcmp(sev, "medium") ? "warning" : "note");
    cr_expect_str_eq(str(get(res, "partialFingerprints"), "uiapReviewId/v1"), str(it, "id"));
  }
  cJSON_Delete(s);
  /* JUnit: a test case per seed and per route, plus one for findings without either */
  char *x = read_in(dir, "junit.xml");
  cr_assert(x);
  int cases = count(x, "<testcase ");
  cr_expect(cases == nseeds + nroutes || cases == nseeds + nroutes + 1, "%d test cases", cases);
  cr_expect(strstr(x, "seed 1: http://127.0.0.1:8000/missing.html"), "the unvisited seed is a test case");
  cr_expect(strstr(x, "type=\"coverage\""), "and it fails");
  cr_expect_eq(count(x, "<testcase "), count(x, "</testcase>"));
  free(x);
  /* the graph: one node per state, in the dot file and in the SVG */
  char *dot = read_in(dir, "graph.dot"), *html = read_in(dir, "report.html");
  cr_assert(dot && html);
  cr_expect(strstr(dot, "digraph"));
  cr_expect_eq(count(dot, "[id=\"n-"), nstates);
  cr_expect_eq(count(html, "<g class=\"node\""), nstates);
  /* self-contained: no URL that a browser would fetch */
  cr_expect(!strstr(html, "src=\"http"), "no remote src");
  cr_expect(!strstr(html, "<link "), "no stylesheet links");
  cr_expect(strstr(html, "Content-Security-Policy"));
  cr_expect_eq(count(html, "<section id="), 8);
  free(dot);
  free(html);
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

Test(report, page_text_is_escaped) {
  /* a hostile title and target name travel from the journal into the report */
  char *j = t_read_file(FIXTURES "/normal/journal.jsonl", NULL);
  cr_assert(j);
  const char *from = "\"title\":\"Notes\"";
  char *at = strstr(j, from);
  cr_assert(at);
  const char *evil = "\"title\":\"<img src=x onerror=alert(1)> \\\"q\\\" & <b>\"";
  size_t len = strlen(j) + strlen(evil) + 1;
  char *j2 = malloc(len);
  snprintf(j2, len, "%.*s%s%s", (int)(at - j), j, evil, at + strlen(from));
  char *dir = t_journal_dir("normal", j2), err[512];
  free(j);
  free(j2);
  cr_assert_eq(crawl_package_write(dir, err, sizeof err), CRAWL_OK, "%s", err);
  crawl_report_opts o = {.layout = CRAWL_LAYOUT_BUILTIN};
  cr_assert_eq(crawl_reports_write(dir, &o, err, sizeof err), CRAWL_OK, "%s", err);
  char *html = read_in(dir, "report.html"), *dot = read_in(dir, "graph.dot");
  cr_expect(!strstr(html, "<img src=x"), "the title is not markup");
  cr_expect(strstr(html, "&lt;img src=x onerror=alert(1)&gt; &quot;q&quot; &amp; &lt;b&gt;"));
  cr_expect(strstr(dot, "\\\"q\\\""), "quotes escaped in DOT strings");
  free(html);
  free(dot);
  t_rm_rf(dir);
  free(dir);
}

/* A stand-in for Graphviz: a script that writes the -o file (or fails, or hangs). */
static char *fake_dot(const char *dir, const char *body) {
  char *path = malloc(1024);
  snprintf(path, 1024, "%s/fake-dot", dir);
  char script[1024];
  snprintf(script, sizeof script, "#!/bin/sh\n%s\n", body);
  cr_assert_eq(t_write_file(path, script), 0);
  chmod(path, 0755);
  return path;
}

Test(report, graphviz_when_present_else_builtin) {
  char *bin = t_tmpdir();
  /* dot works: its SVG is embedded */
  char *ok = fake_dot(bin, "while [ $# -gt 1 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n"
                           "printf '<?xml version=\"1.0\"?>\\n<svg id=\"from-fake-dot\"><g class=\"node\"></g></svg>\\n' > \"$out\"");
  crawl_report_opts o = {.layout = CRAWL_LAYOUT_DOT, .dot = ok};
  char *dir = reports_dir(&o);
  char *html = read_in(dir, "report.html");
  cr_expect(strstr(html, "<svg id=\"from-fake-dot\">"), "the Graphviz SVG is used");
  cr_expect(!strstr(html, "<?xml"), "without its XML prolog");
  cr_expect(strstr(html, "Layout: Graphviz dot"));
  free(html);
  t_rm_rf(dir);
  free(dir);
  /* dot fails, or hangs: the built-in layout, within the timeout */
  const char *bodies[] = {"exit 3", "sleep 20"};
  for (int i = 0; i < 2; i++) {
    char *bad = fake_dot(bin, bodies[i]);
    crawl_report_opts ob = {.layout = CRAWL_LAYOUT_AUTO, .dot = bad, .dot_timeout_ms = 500};
    long long t0 = cdp_now_ms();
    dir = reports_dir(&ob);
    cr_expect_lt(cdp_now_ms() - t0, 5000, "%s: bounded", bodies[i]);
    html = read_in(dir, "report.html");
    cr_expect(strstr(html, "Layout: built-in layered layout"), "%s: fell back", bodies[i]);
    free(html);
    t_rm_rf(dir);
    free(dir);
    free(bad);
  }
  free(ok);
  t_rm_rf(bin);
  free(bin);
}

Test(report, review_count_by_severity) {
  char *dir = t_journal_dir("normal", NULL), err[512];
  cr_assert_eq(crawl_package_write(dir, err, sizeof err), CRAWL_OK, "%s", err);
  long low = -1, med = -1, high = -1, bad = 0;
  cr_assert_eq(crawl_review_count(dir, "low", &low, err, sizeof err), CRAWL_OK, "%s", err);
  cr_assert_eq(crawl_review_count(dir, "medium", &med, err, sizeof err), CRAWL_OK);
  cr_assert_eq(crawl_review_count(dir, "high", &high, err, sizeof err), CRAWL_OK);
  cJSON *p = build(dir);
  cr_expect_eq(low, cJSON_GetArraySize(get(get(p, "reviewQueue"), "items")), "low or worse: every item");
  cr_expect(high >= 1 && high <= med && med <= low, "%ld %ld %ld", high, med, low);
  cr_expect_eq(crawl_review_count(dir, "critical", &bad, err, sizeof err), CRAWL_ARG);
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

/* ---- diff ---------------------------------------------------------------------------- */
static cJSON *diff_of(const cJSON *a, const cJSON *b, int *reg) {
  cJSON *d = NULL;
  cr_assert_eq(crawl_package_diff(a, b, &d, reg), CRAWL_OK);
  return d;
}
static int section_count(const cJSON *d, const char *section, const char *what) {
  return cJSON_GetArraySize(get(get(get(d, "sections"), section), what));
}
static int listed(const cJSON *d, const char *section, const char *what, const char *key) {
  const cJSON *x;
  cJSON_ArrayForEach(x, get(get(get(d, "sections"), section), what)) {
    const char *k = cJSON_IsString(x) ? x->valuestring : str(x, "key");
    if (k && !strcmp(k, key)) return 1;
  }
  return 0;
}

Test(diff, same_package_no_differences) {
  char *dir = t_journal_dir("normal", NULL);
  cJSON *p = build(dir);
  int reg = -1;
  cJSON *d = diff_of(p, p, &reg);
  cr_expect_eq(reg, 0);
  static const char *const secs[] = {"routes", "scopes", "elements", "actions", "states", "transitions", "reviewItems", "workflows"};
  for (size_t i = 0; i < sizeof secs / sizeof *secs; i++)
    cr_expect_eq(section_count(d, secs[i], "added") + section_count(d, secs[i], "removed") + section_count(d, secs[i], "changed"), 0,
                 "%s", secs[i]);
  char *text = crawl_diff_text(d, 0);
  cr_expect(strstr(text, "no differences"), "%s", text);
  free(text);
  cJSON_Delete(d);
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

Test(diff, removals_and_new_high_items_are_regressions) {
  char *dir = t_journal_dir("normal", NULL);
  cJSON *old = build(dir), *neu = cJSON_Duplicate(old, 1);
  /* remove the first route and the first element with a stableId; raise a
   * medium item to high; change a scope (not a regression) */
  cJSON *routes = (cJSON *)get(get(neu, "routeCatalog"), "routes");
  char *route = strdup(str(cJSON_GetArrayItem(routes, 0), "routeId"));
  cJSON_DeleteItemFromArray(routes, 0);
  cJSON *els = (cJSON *)get(get(neu, "elementCatalog"), "elements"), *e;
  char *stable = NULL;
  int i = 0;
  cJSON_ArrayForEach(e, els) {
    if (str(e, "stableId")) { stable = strdup(str(e, "stableId")); break; }
    i++;
  }
  cr_assert(stable);
  cJSON_DeleteItemFromArray(els, i);
  cJSON *it;
  char *raised = NULL;
  cJSON_ArrayForEach(it, (cJSON *)get(get(neu, "reviewQueue"), "items"))
    if (!strcmp(str(it, "severity"), "medium")) {
      raised = strdup(str(it, "id"));
      cJSON_ReplaceItemInObjectCaseSensitive(it, "severity", cJSON_CreateString("high"));
      break;
    }
  cr_assert(raised);
  int reg = 0;
  cJSON *d = diff_of(old, neu, &reg);
  cr_expect_eq(reg, 1);
  cr_expect(listed(d, "routes", "removed", route), "route %s removed", route);
  cr_expect(listed(d, "elements", "removed", stable), "element %s removed", stable);
  cr_expect(listed(d, "reviewItems", "changed", raised), "item %s changed", raised);
  cr_expect_geq(cJSON_GetArraySize(get(d, "regressions")), 3);
  char *text = crawl_diff_text(d, 0);
  cr_expect(strstr(text, "REGRESSION"), "%s", text);
  cr_expect(strstr(text, route));
  free(text);
  cJSON_Delete(d);
  /* additions alone are no regression, and the direction matters */
  d = diff_of(neu, old, &reg);
  cr_expect_eq(reg, 0, "re-adding what was removed is no regression");
  cr_expect(listed(d, "routes", "added", route));
  cJSON_Delete(d);
  /* not packages */
  cJSON *junk = cJSON_Parse("{\"a\":1}");
  cJSON *dd = NULL;
  cr_expect_eq(crawl_package_diff(old, junk, &dd, NULL), CRAWL_ARG);
  cr_expect_null(dd);
  cJSON_Delete(junk);
  free(route);
  free(stable);
  free(raised);
  cJSON_Delete(old);
  cJSON_Delete(neu);
  t_rm_rf(dir);
  free(dir);
}

/* ---- validate ------------------------------------------------------------------------- */
static crawl_validation *check(const cJSON *doc, const char *def, crawl_code want) {
  static crawl_validation v;
  char err[512] = "";
  crawl_code rc = crawl_validate_json(doc, def, &v, err, sizeof err);
  cr_assert_eq(rc, want, "crawl_validate_json: %s (%s)", crawl_strerror(rc), err);
  return &v;
}
static int has_error(const crawl_validation *v, const char *path, const char *msg) {
  for (long i = 0; i < v->nerrors && i < CRAWL_SCHEMA_MAX_ERRORS; i++)
    if (!strcmp(v->errors[i].path, path) && (!msg || strstr(v->errors[i].message, msg))) return 1;
  return 0;
}
static void dump(const crawl_validation *v) {
  for (long i = 0; i < v->nerrors && i < CRAWL_SCHEMA_MAX_ERRORS; i++)
    fprintf(stderr, "  %s: %s\n", v->errors[i].path, v->errors[i].message);
}

Test(validate, real_documents_are_valid) {
  char *dir = t_journal_dir("normal", NULL);
  cJSON *p = build(dir);
  crawl_validation *v = check(p, NULL, CRAWL_OK);
  cr_expect_str_eq(v->definition, "DiscoveryPackage");
  cr_expect_eq(v->nerrors, 0);
  for (int i = 1; i <= 3; i++) {
    char path[1024];
    snprintf(path, sizeof path, FIXTURES "/states/s%d.json", i);
    crawl_validation fv;
    char err[256];
    cr_assert_eq(crawl_validate_file(path, NULL, &fv, err, sizeof err), CRAWL_OK, "%s", err);
    cr_expect_str_eq(fv.definition, "PageGraph");
    cr_expect_eq(fv.nerrors, 0, "%s", path);
    if (fv.nerrors) dump(&fv);
  }
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

Test(validate, errors_carry_the_json_path) {
  char *dir = t_journal_dir("normal", NULL);
  cJSON *p = build(dir);
  cJSON *r0 = cJSON_GetArrayItem(get(get(p, "routeCatalog"), "routes"), 0);
  cJSON_ReplaceItemInObjectCaseSensitive(r0, "confidence", cJSON_CreateString("sure"));
  cJSON_DeleteItemFromObjectCaseSensitive((cJSON *)get(p, "run"), "runId");
  cJSON *seeds = (cJSON *)get(get(p, "run"), "seeds");
  cJSON_ReplaceItemInArray(seeds, 0, cJSON_Parse("{\"kind\":\"url\"}"));
  cJSON_ReplaceItemInObjectCaseSensitive((cJSON *)get(p, "coverage"), "seedsTotal", cJSON_CreateString("2"));
  crawl_validation *v = check(p, NULL, CRAWL_OK);
  cr_expect_eq(v->nerrors, 4);
  cr_expect(has_error(v, "/routeCatalog/routes/0/confidence", "allowed values"));
  cr_expect(has_error(v, "/run", "required property 'runId'"));
  cr_expect(has_error(v, "/run/seeds/0", "required property 'url'"), "the url branch of DiscoverySeed explains it");
  cr_expect(has_error(v, "/coverage/seedsTotal", "must be number"));
  if (v->nerrors != 4) dump(v);
  /* a seed of no known kind: the anyOf itself */
  cJSON_ReplaceItemInArray(seeds, 0, cJSON_Parse("{\"kind\":\"telepathy\"}"));
  v = check(p, "DiscoveryPackage", CRAWL_OK);
  cr_expect(has_error(v, "/run/seeds/0", "anyOf"));
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

Test(validate, messages_and_their_payloads) {
  char *g = t_read_file(FIXTURES "/states/s1.json", NULL);
  cr_assert(g);
  size_t n = strlen(g) + 512;
  char *m = malloc(n);
  snprintf(m, n, "{\"uiap\":\"0.1\",\"kind\":\"event\",\"type\":\"web.state.snapshot\",\"id\":\"m1\","
                 "\"ts\":\"2026-01-01T00:00:00Z\",\"source\":{\"role\":\"runtime\",\"id\":\"x\"},\"payload\":{\"graph\":%s}}", g);
  cJSON *msg = cJSON_Parse(m);
  cr_assert(msg);
  crawl_validation *v = check(msg, NULL, CRAWL_OK);
  cr_expect_str_eq(v->definition, "UiapMessage");
  cr_expect_str_eq(v->payload_definition, "WebStateSnapshotPayload");
  cr_expect_eq(v->nerrors, 0);
  cJSON *graph = (cJSON *)get(get(msg, "payload"), "graph");
  cJSON_ReplaceItemInObjectCaseSensitive(graph, "profile", cJSON_CreateString("web@9"));
  v = check(msg, NULL, CRAWL_OK);
  cr_expect(has_error(v, "/payload/graph/profile", "constant"), "the payload is checked too");
  cJSON_Delete(msg);
  free(m);
  free(g);
  /* what the shape does not tell */
  cJSON *junk = cJSON_Parse("{\"hello\":1}");
  check(junk, NULL, CRAWL_ARG);
  check(junk, "NoSuchDefinition", CRAWL_ARG);
  v = check(junk, "WebObserveStopPayload", CRAWL_OK);
  cr_expect(has_error(v, "/", "required property 'subscriptionId'"));
  cJSON_Delete(junk);
  cr_expect(crawl_schema_has("PageGraph"));
  cr_expect(!crawl_schema_has("Nope"));
}

Test(validate, hostile_documents) {
  /* deep nesting inside an open metadata object: bounded, no crash */
  char *dir = t_journal_dir("normal", NULL);
  cJSON *p = build(dir);
  cJSON *deep = cJSON_CreateObject(), *cur = deep;
  for (int i = 0; i < 400; i++) cur = cJSON_AddObjectToObject(cur, "m");
  cJSON_ReplaceItemInObjectCaseSensitive(p, "metadata", deep);
  crawl_validation *v = check(p, NULL, CRAWL_OK);
  cr_expect_eq(v->nerrors, 0, "unconstrained metadata is not walked into trouble");
  /* long keys in an error path are cut, not overflowed */
  char key[2000];
  memset(key, 'k', sizeof key - 1);
  key[sizeof key - 1] = 0;
  cJSON *r0 = cJSON_GetArrayItem(get(get(p, "routeCatalog"), "routes"), 0);
  cJSON *bad = cJSON_CreateObject();
  cJSON_AddItemToObject(bad, key, cJSON_CreateString("x"));
  cJSON_ReplaceItemInObjectCaseSensitive(r0, "exitSignals", cJSON_CreateArray());
  cJSON_AddItemToArray((cJSON *)get(r0, "exitSignals"), bad);
  v = check(p, NULL, CRAWL_OK);
  cr_expect_geq(v->nerrors, 1);
  cr_expect_lt(strlen(v->errors[0].path), CRAWL_SCHEMA_PATH_MAX);
  /* a file that is not JSON: line and column */
  char path[1024], err[512];
  snprintf(path, sizeof path, "%s/bad.json", dir);
  t_write_file(path, "{\n  \"a\": 1,\n  oops\n}");
  crawl_validation fv;
  cr_expect_eq(crawl_validate_file(path, NULL, &fv, err, sizeof err), CRAWL_ARG);
  cr_expect(strstr(err, "line 3"), "%s", err);
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

/* The built-in validator and ajv agree on a set of mutated packages (valid
 * and invalid ones), checked by ajv in one run as JSON Lines. */
Test(validate, agrees_with_ajv, .timeout = 120) {
  t_shared("spec/validate");  /* the whole test is the cross-check */
  char *dir = t_journal_dir("normal", NULL);
  cJSON *base = build(dir);
  static const struct { const char *obj, *arr, *field, *value; } muts[] = {
    {"routeCatalog", "routes", "confidence", "\"certain\""},
    {"routeCatalog", "routes", "routeId", "7"},
    {"routeCatalog", "routes", "titles", "[\"still valid\"]"},
    {"elementCatalog", "elements", "role", "null"},
    {"elementCatalog", "elements", "stateKeys", "[\"visible\",\"sparkly\"]"},
    {"actionCatalog", "actions", "kind", "\"domain\""},
    {"actionCatalog", "actions", "risk", "{\"level\":\"maybe\"}"},
    {"transitionGraph", "edges", "observedSignals", "[{\"kind\":\"route.changed\",\"pattern\":3}]"},
    {"transitionGraph", "states", "discoveredBy", "[{\"source\":\"dom\"}]"},
    {"transitionGraph", "states", "metadata", "{\"anything\":[1,{\"goes\":null}]}"},
    {"reviewQueue", "items", "severity", "\"critical\""},
    {"workflowCandidates", "workflows", "stepSkeleton", "[{\"type\":\"jump\"}]"},
    {"workflowCandidates", "workflows", "requiredInputs", "[{\"name\":\"x\",\"type\":\"string\",\"dataClass\":\"gossip\"}]"},
    {"scopeCatalog", "scopes", "kind", "\"form\""},
  };
  enum { N = sizeof muts / sizeof *muts };
  int builtin_valid[N];
  char path[1024], msg[16384];
  snprintf(path, sizeof path, "%s/mutations.jsonl", dir);
  FILE *f = fopen(path, "w");
  cr_assert(f);
  for (size_t i = 0; i < N; i++) {
    cJSON *p = cJSON_Duplicate(base, 1);
    cJSON *e = cJSON_GetArrayItem(get(get(p, muts[i].obj), muts[i].arr), 0);
    cr_assert(e, "%s.%s has an entry", muts[i].obj, muts[i].arr);
    cJSON_DeleteItemFromObjectCaseSensitive(e, muts[i].field);
    cJSON_AddItemToObject(e, muts[i].field, cJSON_Parse(muts[i].value));
    builtin_valid[i] = check(p, "DiscoveryPackage", CRAWL_OK)->nerrors == 0;
    char *text = cJSON_PrintUnformatted(p);
    fprintf(f, "%s\n", text);
    free(text);
    cJSON_Delete(p);
  }
  fclose(f);
  t_validate("DiscoveryPackage", path, msg, sizeof msg); /* "FILE:LINE: ..." per error */
  int nvalid = 0;
  for (size_t i = 0; i < N; i++) {
    char tag[1100];
    snprintf(tag, sizeof tag, "%s:%zu: ", path, i + 1);
    int ajv_valid = !strstr(msg, tag);
    nvalid += ajv_valid;
    cr_expect_eq(builtin_valid[i], ajv_valid, "mutation %zu (%s.%s = %s): built-in says %s, ajv says %s", i, muts[i].arr,
                 muts[i].field, muts[i].value, builtin_valid[i] ? "valid" : "invalid", ajv_valid ? "valid" : "invalid");
  }
  cr_expect_eq(nvalid, 4, "four mutations keep the package valid\n%s", msg);
  cJSON_Delete(base);
  t_rm_rf(dir);
  free(dir);
}

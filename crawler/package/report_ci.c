/* report_ci.c -- what CI systems read: DIR/review.sarif (SARIF 2.1.0, one
 * result per review item, one rule per review kind) and DIR/junit.xml (one
 * test case per seed and per route; review items at or above failOn fail
 * it). No HTML, no graph.
 */
#include "report_int.h"
/* ---- SARIF ------------------------------------------------------------------------------------ */
/* {"text": text} */
static cJSON *sarif_text(const char *text) {
  cJSON *t = crawl__jx(cJSON_CreateObject());
  crawl__jstr(t, "text", text);
  return t;
}

/* tool.driver: one rule per review kind, in the spec's order. */
static cJSON *sarif_driver(const rp *r) {
  cJSON *driver = crawl__jx(cJSON_CreateObject());
  crawl__jstr(driver, "name", "uiap-crawl");
  const char *gen = crawl__str(crawl__get(r->pkg, "metadata"), "tool");
  const char *sp = gen ? strchr(gen, ' ') : NULL;
  if (sp && sp[1]) crawl__jstr(driver, "version", sp + 1);
  cJSON *rules = crawl__jx(cJSON_CreateArray());
  for (size_t k = 0; k < RP_NKINDS; k++) {
    cJSON *rule = crawl__jx(cJSON_CreateObject()), *t;
    char *id = crawl__xprintf("uiap/%s", rp_kinds[k].kind);
    crawl__jstr(rule, "id", id);
    free(id);
    crawl__jstr(rule, "name", rp_kinds[k].name);
    crawl__jset(rule, "shortDescription", sarif_text(rp_kinds[k].short_text));
    char *full = crawl__xprintf("UIAP discovery review item of kind %s (discovery-mapper section 6.8): %s.", rp_kinds[k].kind, rp_kinds[k].short_text);
    crawl__jset(rule, "fullDescription", sarif_text(full));
    free(full);
    crawl__jset(rule, "help", sarif_text(rp_kinds[k].help));
    t = crawl__jx(cJSON_CreateObject());
    crawl__jstr(t, "level", "warning");
    crawl__jset(rule, "defaultConfiguration", t);
    t = crawl__jx(cJSON_CreateObject());
    cJSON *tags = crawl__jx(cJSON_CreateArray());
    crawl__jpush(tags, cJSON_CreateString("uiap"));
    crawl__jpush(tags, cJSON_CreateString("discovery"));
    crawl__jset(t, "tags", tags);
    crawl__jset(rule, "properties", t);
    crawl__jpush(rules, rule);
  }
  crawl__jset(driver, "rules", rules);
  return driver;
}

static cJSON *sarif_invocations(const cJSON *run) {
  cJSON *inv = crawl__jx(cJSON_CreateArray()), *iv = crawl__jx(cJSON_CreateObject());
  const char *status = crawl__str(run, "status");
  crawl__jset(iv, "executionSuccessful", cJSON_CreateBool(status && !strcmp(status, "completed")));
  if (crawl__str(run, "startedAt") && *crawl__str(run, "startedAt")) crawl__jstr(iv, "startTimeUtc", crawl__str(run, "startedAt"));
  if (crawl__str(run, "finishedAt")) crawl__jstr(iv, "endTimeUtc", crawl__str(run, "finishedAt"));
  crawl__jpush(inv, iv);
  return inv;
}

/* Where review item it is: the route's first URL (the page a person
 * opens), and the route, scope and stableId as logical locations. */
static cJSON *sarif_locations(const rp *r, const cJSON *it, const cJSON *env) {
  const cJSON *re = rp_route_entry(r, crawl__str(it, "routeId"));
  const char *uri = re ? cJSON_GetStringValue(cJSON_GetArrayItem(crawl__arr(re, "urls"), 0)) : NULL;
  if (!uri) uri = crawl__str(env, "baseUrl") && *crawl__str(env, "baseUrl") ? crawl__str(env, "baseUrl") : "package.json";
  cJSON *locs = crawl__jx(cJSON_CreateArray()), *loc = crawl__jx(cJSON_CreateObject());
  cJSON *pl = crawl__jx(cJSON_CreateObject()), *al = crawl__jx(cJSON_CreateObject());
  crawl__jstr(al, "uri", uri);
  crawl__jset(pl, "artifactLocation", al);
  crawl__jset(loc, "physicalLocation", pl);
  cJSON *ll = crawl__jx(cJSON_CreateArray());
  static const struct { const char *key, *kind; } logical[] = {{"routeId", "module"}, {"scopeId", "namespace"}, {"stableId", "element"}};
  for (size_t q = 0; q < sizeof logical / sizeof *logical; q++) {
    const char *v = crawl__str(it, logical[q].key);
    if (!v) continue;
    cJSON *l = crawl__jx(cJSON_CreateObject());
    crawl__jstr(l, "name", v);
    crawl__jstr(l, "kind", logical[q].kind);
    crawl__jpush(ll, l);
  }
  if (cJSON_GetArraySize(ll)) crawl__jset(loc, "logicalLocations", ll);
  else cJSON_Delete(ll);
  crawl__jpush(locs, loc);
  return locs;
}

/* One result per review item: rule, level by severity, message with the
 * remediation, location, the item id as fingerprint. */
static cJSON *sarif_result(const rp *r, const cJSON *it, const cJSON *env) {
  cJSON *res = crawl__jx(cJSON_CreateObject());
  int k = rp_kind_index(crawl__str(it, "kind"));
  char *rid = crawl__xprintf("uiap/%s", rp_kinds[k].kind);
  crawl__jstr(res, "ruleId", rid);
  free(rid);
  crawl__jset(res, "ruleIndex", cJSON_CreateNumber(k));
  int sv = pk_severity_rank(crawl__str(it, "severity"));
  crawl__jstr(res, "level", sv == 2 ? "error" : sv == 1 ? "warning" : "note");
  const char *desc = crawl__str(it, "description") ? crawl__str(it, "description") : rp_kinds[k].short_text;
  char *text = crawl__str(it, "remediation") ? crawl__xprintf("%s\nRemediation: %s", desc, crawl__str(it, "remediation"))
                                             : crawl__xstrdup(desc);
  crawl__jset(res, "message", sarif_text(text));
  free(text);
  crawl__jset(res, "locations", sarif_locations(r, it, env));
  cJSON *fp = crawl__jx(cJSON_CreateObject());
  crawl__jstr(fp, "uiapReviewId/v1", crawl__str(it, "id"));
  crawl__jset(res, "partialFingerprints", fp);
  cJSON *props = crawl__jx(cJSON_CreateObject());
  crawl__jstr(props, "reviewItemId", crawl__str(it, "id"));
  crawl__jstr(props, "kind", crawl__str(it, "kind"));
  crawl__jstr(props, "severity", crawl__str(it, "severity"));
  crawl__jstr(props, "routeId", crawl__str(it, "routeId"));
  crawl__jstr(props, "remediation", crawl__str(it, "remediation"));
  if (cJSON_IsArray(crawl__get(it, "evidence"))) crawl__jset(props, "evidence", cJSON_Duplicate(crawl__get(it, "evidence"), 1));
  crawl__jset(res, "properties", props);
  return res;
}

cJSON *rp_sarif(const rp *r) {
  const cJSON *run = crawl__get(r->pkg, "run"), *env = crawl__get(r->pkg, "environment"), *it;
  cJSON *log = crawl__jx(cJSON_CreateObject());
  crawl__jstr(log, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
  crawl__jstr(log, "version", "2.1.0");
  cJSON *runs = crawl__jx(cJSON_CreateArray()), *sr = crawl__jx(cJSON_CreateObject());
  cJSON *tool = crawl__jx(cJSON_CreateObject());
  crawl__jset(tool, "driver", sarif_driver(r));
  crawl__jset(sr, "tool", tool);
  crawl__jset(sr, "invocations", sarif_invocations(run));
  cJSON *ad = crawl__jx(cJSON_CreateObject());
  char *cat = crawl__xprintf("uiap-crawl/%s/", crawl__str(env, "environmentId") ? crawl__str(env, "environmentId") : "default");
  crawl__jstr(ad, "id", cat);
  free(cat);
  crawl__jset(sr, "automationDetails", ad);
  cJSON *results = crawl__jx(cJSON_CreateArray());
  cJSON_ArrayForEach(it, crawl__arr2(r->pkg, "reviewQueue", "items")) crawl__jpush(results, sarif_result(r, it, env));
  crawl__jset(sr, "results", results);
  cJSON *props = crawl__jx(cJSON_CreateObject());
  crawl__jstr(props, "runId", crawl__str(run, "runId"));
  crawl__jstr(props, "environmentId", crawl__str(env, "environmentId"));
  if (cJSON_IsObject(crawl__get(r->pkg, "coverage"))) crawl__jset(props, "coverage", cJSON_Duplicate(crawl__get(r->pkg, "coverage"), 1));
  crawl__jset(sr, "properties", props);
  crawl__jpush(runs, sr);
  crawl__jset(log, "runs", runs);
  return log;
}

/* ---- JUnit --------------------------------------------------------------------------------- */
double rp_run_seconds(const cJSON *run) {
  const char *a = crawl__str(run, "startedAt"), *b = crawl__str(run, "finishedAt");
  struct tm ta = {0}, tb = {0};
  if (!a || !b || !strptime(a, "%Y-%m-%dT%H:%M:%S", &ta) || !strptime(b, "%Y-%m-%dT%H:%M:%S", &tb)) return 0;
  double d = difftime(timegm(&tb), timegm(&ta));
  return d > 0 ? d : 0;
}

static void junit_case(crawl__buf *b, const char *classname, const char *name, const cJSON *const *items, size_t n,
                       int fail_at, const char *extra) {
  crawl__buf_puts(b, "    <testcase classname=\"");
  crawl__buf_xml(b, classname);
  crawl__buf_puts(b, "\" name=\"");
  crawl__buf_xml(b, name);
  crawl__buf_puts(b, "\">\n");
  size_t nfail = 0;
  int worst = -1, cnt[3] = {0};
  for (size_t i = 0; i < n; i++) {
    int s = pk_severity_rank(crawl__str(items[i], "severity"));
    if (s < 0) s = 1;
    cnt[s]++;
    if (s >= fail_at) { nfail++; if (s > worst) worst = s; }
  }
  if (extra) { /* a failure of the test case itself (an unvisited seed) */
    crawl__buf_puts(b, "      <failure type=\"coverage\" message=\"");
    crawl__buf_xml(b, extra);
    crawl__buf_puts(b, "\"/>\n");
  } else if (nfail) {
    crawl__buf_printf(b, "      <failure type=\"%s\" message=\"%zu review item%s at or above %s (%d high, %d medium, %d low)\">",
                      pk_severities[worst], nfail, nfail == 1 ? "" : "s", pk_severities[fail_at], cnt[2], cnt[1], cnt[0]);
    for (size_t i = 0; i < n; i++) {
      int s = pk_severity_rank(crawl__str(items[i], "severity"));
      if (s < fail_at) continue;
      crawl__buf_printf(b, "[%s] %s: ", crawl__str(items[i], "severity") ? crawl__str(items[i], "severity") : "?",
                        crawl__str(items[i], "kind") ? crawl__str(items[i], "kind") : "?");
      crawl__buf_xml(b, crawl__str(items[i], "description"));
      if (crawl__str(items[i], "remediation")) {
        crawl__buf_puts(b, " Remediation: ");
        crawl__buf_xml(b, crawl__str(items[i], "remediation"));
      }
      crawl__buf_printf(b, " (%s)\n", crawl__str(items[i], "id") ? crawl__str(items[i], "id") : "");
    }
    crawl__buf_puts(b, "</failure>\n");
  }
  if (n > nfail) {
    crawl__buf_puts(b, "      <system-out>");
    for (size_t i = 0; i < n; i++) {
      int s = pk_severity_rank(crawl__str(items[i], "severity"));
      if (s >= fail_at) continue;
      crawl__buf_printf(b, "[%s] %s: ", crawl__str(items[i], "severity") ? crawl__str(items[i], "severity") : "?",
                        crawl__str(items[i], "kind") ? crawl__str(items[i], "kind") : "?");
      crawl__buf_xml(b, crawl__str(items[i], "description"));
      crawl__buf_puts(b, "\n");
    }
    crawl__buf_puts(b, "</system-out>\n");
  }
  crawl__buf_puts(b, "    </testcase>\n");
}

/* The test cases being written: review items are assigned to a route case,
 * else a seed case, else the catch-all case (used[i]: item i has one). */
typedef struct junit_cases {
  const cJSON *items;
  int fail_at;
  const cJSON **buf;          /* the items of the case at hand */
  int *used;
  crawl__buf seeds, routes;   /* the two suites' test cases */
  int nseed_cases, nseed_fail, nroute_cases, nroute_fail;
} junit_cases;

static int junit_fails(const junit_cases *jc, size_t n) {
  int fails = 0;
  for (size_t k = 0; k < n; k++) fails |= pk_severity_rank(crawl__str(jc->buf[k], "severity")) >= jc->fail_at;
  return fails;
}

/* One case per route: the items that name it. */
static void junit_routes(junit_cases *jc, const rp *r) {
  const cJSON *rt;
  cJSON_ArrayForEach(rt, r->routes) {
    const char *id = crawl__str(rt, "routeId");
    size_t n = 0;
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, jc->items) {
      if (id && crawl__str(it, "routeId") && !strcmp(crawl__str(it, "routeId"), id)) {
        jc->buf[n++] = it;
        jc->used[i] = 1;
      }
      i++;
    }
    junit_case(&jc->routes, "uiap.route", id ? id : "?", jc->buf, n, jc->fail_at, NULL);
    jc->nroute_cases++;
    jc->nroute_fail += junit_fails(jc, n);
  }
}

/* One case per seed: visited or not, and the items without a route that
 * name it ("Seed N ..."). */
static void junit_seeds(junit_cases *jc, const rp *r) {
  const cJSON *seed;
  int si = 0;
  cJSON_ArrayForEach(seed, crawl__arr(crawl__get(r->pkg, "run"), "seeds")) {
    int visited = 0;
    for (size_t s = 0; s < r->nst && !visited; s++) visited = crawl__num(crawl__get(r->st[s].node, "metadata"), "seed", -1) == si;
    const char *what = crawl__str(seed, "url") ? crawl__str(seed, "url") : crawl__str(seed, "routeId") ? crawl__str(seed, "routeId")
                     : crawl__str(seed, "kind") ? crawl__str(seed, "kind") : "?";
    char *name = crawl__xprintf("seed %d: %s", si, what);
    char pfx[32];
    snprintf(pfx, sizeof pfx, "Seed %d ", si);
    size_t n = 0;
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, jc->items) {
      const char *d = crawl__str(it, "description");
      if (!jc->used[i] && !crawl__str(it, "routeId") && d && !strncmp(d, pfx, strlen(pfx))) { jc->buf[n++] = it; jc->used[i] = 1; }
      i++;
    }
    char *why = visited ? NULL : crawl__xprintf("seed %d (%s) was not visited", si, what);
    junit_case(&jc->seeds, "uiap.seed", name, jc->buf, n, jc->fail_at, why);
    jc->nseed_cases++;
    jc->nseed_fail += junit_fails(jc, n) || why;
    free(why);
    free(name);
    si++;
  }
}

/* Anything else (no route, no seed): one more case in the seeds suite. */
static void junit_rest(junit_cases *jc) {
  size_t n = 0;
  int i = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, jc->items) {
    if (!jc->used[i]) jc->buf[n++] = it;
    i++;
  }
  if (!n) return;
  junit_case(&jc->seeds, "uiap.run", "findings without a route", jc->buf, n, jc->fail_at, NULL);
  jc->nseed_cases++;
  jc->nseed_fail += junit_fails(jc, n);
}

/* The document: both suites with their counts and the run's properties. */
static char *junit_document(const junit_cases *jc, const cJSON *run) {
  double secs = rp_run_seconds(run);
  crawl__buf b = {0};
  crawl__buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  crawl__buf_printf(&b, "<testsuites name=\"uiap-crawl\" tests=\"%d\" failures=\"%d\" errors=\"0\" time=\"%.3f\">\n",
                    jc->nseed_cases + jc->nroute_cases, jc->nseed_fail + jc->nroute_fail, secs);
  crawl__buf_printf(&b, "  <testsuite name=\"seeds\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"0\" time=\"%.3f\">\n",
                    jc->nseed_cases, jc->nseed_fail, secs);
  crawl__buf_puts(&b, "    <properties>\n      <property name=\"runId\" value=\"");
  crawl__buf_xml(&b, crawl__str(run, "runId"));
  crawl__buf_puts(&b, "\"/>\n      <property name=\"status\" value=\"");
  crawl__buf_xml(&b, crawl__str(run, "status"));
  crawl__buf_printf(&b, "\"/>\n      <property name=\"failOn\" value=\"%s\"/>\n    </properties>\n", pk_severities[jc->fail_at]);
  crawl__buf_puts(&b, jc->seeds.p);
  crawl__buf_puts(&b, "  </testsuite>\n");
  crawl__buf_printf(&b, "  <testsuite name=\"routes\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"0\" time=\"0\">\n",
                    jc->nroute_cases, jc->nroute_fail);
  crawl__buf_puts(&b, jc->routes.p);
  crawl__buf_puts(&b, "  </testsuite>\n</testsuites>\n");
  return crawl__buf_take(&b);
}

char *rp_junit(const rp *r, int fail_at) {
  junit_cases jc = {.items = crawl__arr2(r->pkg, "reviewQueue", "items"), .fail_at = fail_at};
  int nitems = cJSON_GetArraySize(jc.items);
  jc.buf = crawl__xcalloc((size_t)nitems, sizeof *jc.buf);
  jc.used = crawl__xcalloc((size_t)nitems, sizeof *jc.used);
  junit_routes(&jc, r);
  junit_seeds(&jc, r);
  junit_rest(&jc);
  char *doc = junit_document(&jc, crawl__get(r->pkg, "run"));
  crawl__buf_free(&jc.seeds);
  crawl__buf_free(&jc.routes);
  free(jc.buf);
  free(jc.used);
  return doc;
}

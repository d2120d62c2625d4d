/* crawler_package_review.c -- review state and review item identity of the
 * DiscoveryPackage (crawl_package_build): "verified" only from a reviewer
 * (`report --reviewed`, reviewed.json, a previous package), and review item
 * ids that name the finding, not the capture it came from. Journals and
 * state files as in crawler_package.c. */
#include "package_helpers.h"

/* ---- reviewState: "verified" only from a reviewer (issue #16) -------------------- */
/* Every entry of the three catalogs with reviewState "verified". */
static int count_verified(const cJSON *p) {
  static const char *const arrays[] = {"elementCatalog.elements", "actionCatalog.actions", "workflowCandidates.workflows"};
  int n = 0;
  for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) {
    const cJSON *x;
    cJSON_ArrayForEach(x, get(p, arrays[i])) {
      const char *rs = str(x, "reviewState");
      n += rs && !strcmp(rs, "verified");
    }
  }
  return n;
}

/* Without a reviewer nothing is "verified" -- not even an annotated element
 * acted on with a signal, nor a primitive executed with signals: the
 * crawler's strongest word is "candidate" with high confidence. */
Test(package, nothing_verified_without_a_reviewer) {
  char *dir = t_journal_dir("normal", NULL);
  cJSON *p = build(dir);
  cr_expect_eq(count_verified(p), 0, "the crawler verified %d entries itself", count_verified(p));
  const cJSON *home = element(p, "stableId", "nav.home");
  cr_expect_str_eq(str(home, "reviewState"), "candidate");
  cr_expect_str_eq(str(home, "confidence"), "high");
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

static void write_decisions(const char *dir, const char *file, const char *text) {
  char path[1024], err[512] = "";
  snprintf(path, sizeof path, "%s/%s", dir, file);
  cr_assert_eq(t_write_file(path, text), 0);
  cJSON *d = NULL;
  cr_assert_eq(crawl_reviewed_load(path, &d, err, sizeof err), CRAWL_OK, "%s", err);
  cr_assert_eq(crawl_reviewed_save(dir, d, err, sizeof err), CRAWL_OK, "%s", err);
  cJSON_Delete(d);
  unlink(path);
}

/* A decisions file: exactly the entries it names (by stable key) become
 * verified; a decision whose key (or role) no longer matches verifies
 * nothing and is counted in run.notes; the package stays valid. */
Test(package, reviewed_decisions_verify_exactly_the_reviewed_entries) {
  char *dir = t_journal_dir("normal", NULL);
  write_decisions(dir, "decisions.json",
                  "{\"reviewDecisions\":["
                  "{\"catalog\":\"elements\",\"key\":\"nav.home\",\"decision\":\"verified\",\"reviewer\":\"ana\"},"
                  "{\"catalog\":\"elements\",\"key\":\"/home.html|region|button|edit\",\"decision\":\"verified\"},"
                  "{\"catalog\":\"elements\",\"key\":\"note.save\",\"role\":\"link\",\"decision\":\"verified\"},"
                  "{\"catalog\":\"actions\",\"key\":\"nav.navigate\",\"decision\":\"verified\"},"
                  "{\"catalog\":\"actions\",\"key\":\"gone.action\",\"decision\":\"verified\"}]}");
  cJSON *p = build(dir);
  validate_package(p, dir);
  cr_expect_eq(count_verified(p), 3);
  cr_expect_str_eq(str(element(p, "stableId", "nav.home"), "reviewState"), "verified");
  cr_expect_str_eq(str(element(p, "stableId", "nav.home"), "metadata.reviewedBy"), "ana");
  cr_expect_str_eq(str(element_named(p, "/home.html", "button", "Edit"), "reviewState"), "verified");
  cr_expect_str_eq(str(element(p, "stableId", "note.save"), "reviewState"), "candidate", "role changed: no match");
  cr_expect_str_eq(str(find(p, "actionCatalog.actions", "id", "nav.navigate"), "reviewState"), "verified");
  cr_expect_str_eq(str(find(p, "actionCatalog.actions", "id", "ui.activate"), "reviewState"), "candidate");
  int noted = 0;
  const cJSON *n;
  cJSON_ArrayForEach(n, get(p, "run.notes")) noted |= strstr(n->valuestring, "3 entries verified by a reviewer; 2 decisions match nothing") != NULL;
  cr_expect(noted, "run.notes count the verified entries and the stale decisions");
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

/* A previous package: the entries a person marked verified there are
 * verified in the new one (same stable key), and only those. */
Test(package, reviewed_previous_package_carries_the_verified_entries) {
  char *dir = t_journal_dir("normal", NULL);
  cJSON *prev = build(dir);
  cJSON *e = (cJSON *)element(prev, "stableId", "notes.open");
  cr_assert(e);
  cJSON_ReplaceItemInObjectCaseSensitive(e, "reviewState", cJSON_CreateString("verified"));
  cJSON *a = (cJSON *)find(prev, "actionCatalog.actions", "id", "note.create");
  cr_assert(a);
  cJSON_ReplaceItemInObjectCaseSensitive(a, "reviewState", cJSON_CreateString("verified"));
  char *text = cJSON_Print(prev);
  cJSON_Delete(prev);
  write_decisions(dir, "previous.json", text);
  free(text);
  cJSON *p = build(dir);
  validate_package(p, dir);
  cr_expect_eq(count_verified(p), 2);
  cr_expect_str_eq(str(element(p, "stableId", "notes.open"), "reviewState"), "verified");
  cr_expect_str_eq(str(find(p, "actionCatalog.actions", "id", "note.create"), "reviewState"), "verified");
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

/* Files that are neither shape, and decisions other than "verified", are refused. */
Test(package, reviewed_bad_files_are_refused) {
  char *dir = t_tmpdir(), path[1024], err[512];
  snprintf(path, sizeof path, "%s/d.json", dir);
  static const char *const bad[] = {
    "{\"items\":[]}", "not json",
    "{\"reviewDecisions\":[{\"catalog\":\"routes\",\"key\":\"/\",\"decision\":\"verified\"}]}",
    "{\"reviewDecisions\":[{\"catalog\":\"elements\",\"key\":\"x\",\"decision\":\"ok\"}]}",
    "{\"reviewDecisions\":[{\"catalog\":\"elements\",\"decision\":\"verified\"}]}"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    cr_assert_eq(t_write_file(path, bad[i]), 0);
    cJSON *d = (cJSON *)1;
    cr_expect_eq(crawl_reviewed_load(path, &d, err, sizeof err), CRAWL_ARG, "%s", bad[i]);
    cr_expect_null(d);
    cr_expect(strstr(err, path), "err names the file: %s", err);
  }
  unlink(path);
  cJSON *d = (cJSON *)1;
  cr_expect_eq(crawl_reviewed_load(path, &d, err, sizeof err), CRAWL_ARG, "a missing file");
  t_rm_rf(dir);
  free(dir);
}

/* The CLI: report --reviewed FILE rebuilds the package with the decisions,
 * and a later plain `report` keeps them (DIR/reviewed.json). */
Test(package, cli_report_reviewed) {
  char *dir = t_journal_dir("normal", NULL), dpath[1024], ppath[1024];
  snprintf(dpath, sizeof dpath, "%s.decisions.json", dir);
  snprintf(ppath, sizeof ppath, "%s/package.json", dir);
  cr_assert_eq(t_write_file(dpath, "{\"reviewDecisions\":[{\"catalog\":\"elements\",\"key\":\"nav.home\",\"decision\":\"verified\"}]}"), 0);
  t_run r = t_run_argv((const char *[]){UIAP_BIN, "report", dir, "--reviewed", dpath, "--layout", "builtin", NULL}, 30000);
  cr_assert_eq(r.status, 0, "%s", r.err);
  t_run_free(&r);
  for (int pass = 0; pass < 2; pass++) {
    char *text = t_read_file(ppath, NULL);
    cJSON *p = text ? cJSON_Parse(text) : NULL;
    free(text);
    cr_assert(p);
    cr_expect_eq(count_verified(p), 1, "pass %d", pass);
    cr_expect_str_eq(str(element(p, "stableId", "nav.home"), "reviewState"), "verified");
    cJSON_Delete(p);
    r = t_run_argv((const char *[]){UIAP_BIN, "report", dir, "--layout", "builtin", NULL}, 30000);
    cr_expect_eq(r.status, 0, "%s", r.err);
    t_run_free(&r);
  }
  /* a bad file: usage error, the package untouched */
  cr_assert_eq(t_write_file(dpath, "{\"nope\":1}"), 0);
  r = t_run_argv((const char *[]){UIAP_BIN, "report", dir, "--reviewed", dpath, NULL}, 30000);
  cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
  cr_expect(strstr(r.err, "reviewDecisions"), "%s", r.err);
  t_run_free(&r);
  r = t_run_argv((const char *[]){UIAP_BIN, "report", dir, "--reviewed", dpath, "--no-package", NULL}, 30000);
  cr_expect_eq(r.status, 2, "--reviewed needs the package rebuilt");
  t_run_free(&r);
  unlink(dpath);
  t_rm_rf(dir);
  free(dir);
}


/* A review item's id names its finding, not the capture it came from: the
 * same journal whose review targets carry other capture-local scope ids
 * ("sc_27" in one crawl, "sc_155" in the next: two crawls of one app) gives
 * the same review item ids, so `diff` of two nights shows no change. */
Test(package, review_item_ids_do_not_depend_on_capture_local_scope_ids) {
  char path[600];
  snprintf(path, sizeof path, "%s/normal/journal.jsonl", FIXTURES);
  char *text = t_read_file(path, NULL);
  cr_assert(text);
  char *other = strdup(text);
  for (char *p = other; (p = strstr(p, "\"scopeId\":\"sc_27\""));) memcpy(p + 11, "sc_91", 5), p += 16;
  cr_assert(strcmp(text, other), "the fixture's review target has scopeId sc_27");
  char *a = t_journal_dir("normal", text), *b = t_journal_dir("normal", other);
  cJSON *pa = build(a), *pb = build(b);
  const cJSON *ia = get(pa, "reviewQueue.items"), *ib = get(pb, "reviewQueue.items"), *x;
  cr_assert_eq(cJSON_GetArraySize(ia), cJSON_GetArraySize(ib));
  int i = 0;
  cJSON_ArrayForEach(x, ia) {
    const cJSON *y = cJSON_GetArrayItem(ib, i++);
    cr_expect_str_eq(str(x, "id"), str(y, "id"), "item %d (%s)", i, str(x, "description"));
  }
  cJSON_Delete(pa), cJSON_Delete(pb);
  t_rm_rf(a), t_rm_rf(b);
  free(a), free(b), free(text), free(other);
}

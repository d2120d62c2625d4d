/* crawler_package.c -- the DiscoveryPackage derived from a crawl directory
 * (crawl_package_build / crawl_package_write), on hand-written journals in
 * tests/fixtures/journals/<case>/journal.jsonl over the PageGraph state files
 * in tests/fixtures/journals/states/ (captured by `uiap-crawl snapshot` from
 * tests/fixtures/journals/pages/, see the README there).
 *
 * normal:      a finished run: transitions, two self-loops, deny/review/skip
 *              decisions, a failure, an opaque frame, a closed shadow root,
 *              an unresolved seed, journal review lines, a budget line.
 * interrupted: no end record, a malformed line, an unknown record type, a
 *              pageGraphRef leaving the directory, a torn last line.
 * behaviour:   transitions whose outcome contradicts the target's semantics,
 *              a silent primitive transition, billing controls executed and
 *              denied (review duties, mapper 15.5 and 16).
 */
#include "package_helpers.h"

#include <ftw.h>
#include <sys/stat.h>

/* ---- a finished run ---------------------------------------------------------- */

Test(package, normal_run_validates_and_summarises_the_run) {
  char *dir = t_journal_dir("normal", NULL);
  cJSON *p = build(dir);
  validate_package(p, dir);
  cr_expect_str_eq(str(p, "modelVersion"), "0.1");
  cr_expect_str_eq(str(p, "spec"), "uiap.discovery");
  cr_expect_str_eq(str(p, "run.runId"), "run_normal");
  cr_expect_str_eq(str(p, "run.status"), "completed");
  cr_expect_str_eq(str(p, "run.finishedAt"), "2026-01-05T10:00:10.400Z");
  cr_expect_str_eq(str(p, "run.environmentId"), "notes-local");
  cr_expect_str_eq(str(p, "run.profile"), "web@0.1");
  cr_expect_eq(len(p, "run.seeds"), 2);
  const cJSON *notes = get(p, "run.notes");
  cr_expect(has_str(notes, "browser restarted once"));
  cr_expect(has_str(notes, "budget maxStates=10 reached"));
  cr_expect(has_str(notes, "seed 1 (http://127.0.0.1:8000/missing.html) unresolved: net::ERR_CONNECTION_REFUSED"));
  cr_expect_str_eq(str(p, "environment.baseUrl"), "http://127.0.0.1:8000/");
  cr_expect_str_eq(str(p, "environment.safety.defaultMode"), "safe_explore");
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

Test(package, coverage_counts_equal_the_catalogs) {
  char *dir = t_journal_dir("normal", NULL);
  cJSON *p = build(dir);
  cr_expect_eq(num(p, "coverage.routesDiscovered"), len(p, "routeCatalog.routes"));
  cr_expect_eq(num(p, "coverage.scopesDiscovered"), len(p, "scopeCatalog.scopes"));
  cr_expect_eq(num(p, "coverage.elementsDiscovered"), len(p, "elementCatalog.elements"));
  cr_expect_eq(num(p, "coverage.actionsDiscovered"), len(p, "actionCatalog.actions"));
  cr_expect_eq(num(p, "coverage.reviewItems"), len(p, "reviewQueue.items"));
  cr_expect_eq(num(p, "coverage.workflowCandidatesDiscovered"), len(p, "workflowCandidates.workflows"));
  cr_expect_eq(num(p, "coverage.statesVisited"), len(p, "transitionGraph.states"));
  double total = num(p, "coverage.confidenceSummary.high") + num(p, "coverage.confidenceSummary.medium") +
                 num(p, "coverage.confidenceSummary.low");
  cr_expect_eq(total, len(p, "routeCatalog.routes") + len(p, "scopeCatalog.scopes") +
                          len(p, "elementCatalog.elements") + len(p, "actionCatalog.actions"));
  cr_expect_eq(num(p, "coverage.routesDiscovered"), 2);
  cr_expect_eq(num(p, "coverage.seedsTotal"), 2);
  cr_expect_eq(num(p, "coverage.seedsVisited"), 1);
  cr_expect_eq(num(p, "coverage.statesVisited"), 3);
  cr_expect_eq(num(p, "coverage.transitionsRecorded"), 7);
  cr_expect_eq(num(p, "coverage.selfLoops"), 2);
  /* one failure line + one review about a replay that landed elsewhere */
  cr_expect_eq(num(p, "coverage.unresolvedTransitions"), 2);
  /* the opaque frame from :8001 and the closed shadow root, both on /home.html */
  cr_expect_eq(num(p, "coverage.opaqueRegions"), 2);
  cr_expect_str_eq(str(p, "coverage.stoppedBy"), "maxStates");
  cr_expect_eq(num(p, "metadata.decisions.deny"), 3);
  cr_expect_eq(num(p, "metadata.failures"), 1);
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

Test(package, route_catalog) {
  char *dir = t_journal_dir("normal", NULL);
  cJSON *p = build(dir);
  const cJSON *home = find(p, "routeCatalog.routes", "routeId", "/home.html");
  const cJSON *set = find(p, "routeCatalog.routes", "routeId", "/settings.html");
  cr_assert(home && set);
  cr_expect_str_eq(str(cJSON_GetArrayItem(get(p, "routeCatalog.routes"), 0), "routeId"), "/home.html"); /* sorted */
  cr_expect_eq(len(home, "urls"), 2); /* home.html and home.html?dialog */
  cr_expect(has_str(get(home, "titles"), "Notes"));
  cr_expect_str_eq(str(home, "confidence"), "high");   /* seen in two states */
  cr_expect_str_eq(str(set, "confidence"), "medium");  /* seen once */
  /* entered from the other route by navigation, left with route.changed */
  cr_expect(has_str(get(set, "entryActions"), "nav.navigate"));
  cr_expect(has_str(get(home, "entryActions"), "nav.navigate"));
  cr_expect_str_eq(str(cJSON_GetArrayItem(get(home, "exitSignals"), 0), "kind"), "route.changed");
  cr_expect_str_eq(str(cJSON_GetArrayItem(get(home, "exitSignals"), 0), "pattern"), "/settings.html");
  cr_expect(has_str(get(home, "scopes"), "scope:note.form"));
  cr_expect(has_str(get(home, "scopes"), "scope:/home.html:dialog:help"));
  cr_expect(find(set, "discoveredBy", "refId", "s3"));
  cr_expect(find(set, "discoveredBy", "refId", "t3")); /* the transition that entered it */
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

Test(package, scope_catalog) {
  char *dir = t_journal_dir("normal", NULL);
  cJSON *p = build(dir);
  /* deduplicated by stableId across states s1 and s2 (local ids sc_2, sc_3) */
  const cJSON *form = find(p, "scopeCatalog.scopes", "scopeId", "scope:note.form");
  cr_assert(form);
  cr_expect_str_eq(str(form, "kind"), "form");
  cr_expect(has_str(get(form, "stableIds"), "note.form"));
  cr_expect(has_str(get(form, "names"), "New note"));
  cr_expect(has_str(get(form, "routeIds"), "/home.html"));
  cr_expect_str_eq(str(form, "confidence"), "high");
  cr_expect_eq(num(form, "metadata.occurrences"), 2);
  /* no stableId: kind + name + route */
  const cJSON *dlg = find(p, "scopeCatalog.scopes", "scopeId", "scope:/home.html:dialog:help");
  cr_assert(dlg);
  cr_expect_str_eq(str(dlg, "kind"), "dialog");
  cr_expect(str(dlg, "parentScopeId") != NULL);
  cr_expect(find(p, "scopeCatalog.scopes", "scopeId", "scope:/settings.html:form:account"));
  /* ids are unique and sorted */
  const cJSON *x, *prev = NULL;
  cJSON_ArrayForEach(x, get(p, "scopeCatalog.scopes")) {
    if (prev) cr_expect_neq(strcmp(str(prev, "scopeId"), str(x, "scopeId")), 0);
    prev = x;
  }
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

Test(package, element_catalog) {
  char *dir = t_journal_dir("normal", NULL);
  cJSON *p = build(dir);
  /* stableId element seen in all three states, acted on with a signal */
  const cJSON *home = element(p, "stableId", "nav.home");
  cr_assert(home);
  cr_expect_eq(len(home, "routes"), 2);
  cr_expect_str_eq(str(home, "reviewState"), "candidate"); /* "verified" is a reviewer's word */
  cr_expect_str_eq(str(home, "confidence"), "high");
  cr_expect(has_str(get(home, "supportedActions"), "nav.navigate"));
  cr_expect(find(home, "discoveredBy", "source", "annotation"));
  cr_expect_eq(num(home, "metadata.states"), 3);
  cr_expect_str_eq(str(element(p, "stableId", "notes.open"), "reviewState"), "candidate");
  /* stableId but never acted on */
  cr_expect_str_eq(str(element(p, "stableId", "note.save"), "reviewState"), "candidate");
  cr_expect_str_eq(str(element(p, "stableId", "note.save"), "risk.level"), "confirm");
  /* annotated data-uiap-risk=blocked, and denied by the gate */
  const cJSON *revoke = element(p, "stableId", "keys.revoke");
  cr_expect_str_eq(str(revoke, "risk.level"), "blocked");
  cr_expect(has_str(get(revoke, "risk.tags"), "security_change"));
  /* two "Edit" buttons in each of two states fold into one semanticKey */
  const cJSON *edit = element_named(p, "/home.html", "button", "Edit");
  cr_assert(edit);
  cr_expect_null(get(edit, "stableId"));
  cr_expect_eq(num(edit, "metadata.occurrences"), 4);
  cr_expect_str_eq(str(edit, "semanticKey"), "/home.html|region|button|edit");
  cr_expect_str_eq(str(edit, "reviewState"), "candidate");
  /* the gate denied it: risk from the decision */
  const cJSON *del = element_named(p, "/home.html", "button", "Delete all notes");
  cr_expect_str_eq(str(del, "risk.level"), "blocked");
  cr_expect(strstr(str(del, "risk.reason"), "lexicon.en.delete"));
  /* data classes */
  cr_expect(has_str(get(element_named(p, "/settings.html", "textbox", "Password"), "dataClasses"), "credential"));
  cr_expect(has_str(get(element_named(p, "/settings.html", "textbox", "API token"), "dataClasses"), "secret"));
  cr_expect(has_str(get(element_named(p, "/settings.html", "textbox", "Email"), "dataClasses"), "contact"));
  cr_expect(has_str(get(element(p, "stableId", "note.title"), "dataClasses"), "free_text"));
  cr_expect(has_str(get(element(p, "stableId", "note.title"), "meanings"), "title"));
  /* a clickable div recognised by heuristics only */
  const cJSON *fancy = element_named(p, "/home.html", "generic", "Fancy");
  cr_assert(fancy);
  cr_expect_str_eq(str(fancy, "reviewState"), "needs_review");
  cr_expect_str_eq(str(fancy, "confidence"), "low");
  /* semanticKeys are unique */
  const cJSON *x, *y;
  cJSON_ArrayForEach(x, get(p, "elementCatalog.elements")) {
    int same = 0;
    cJSON_ArrayForEach(y, get(p, "elementCatalog.elements"))
      same += !strcmp(str(x, "semanticKey"), str(y, "semanticKey")) &&
              !!str(x, "stableId") == !!str(y, "stableId") &&
              (!str(x, "stableId") || !strcmp(str(x, "stableId"), str(y, "stableId")));
    cr_expect_eq(same, 1, "duplicate element %s", str(x, "semanticKey"));
  }
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

Test(package, action_catalog) {
  char *dir = t_journal_dir("normal", NULL);
  cJSON *p = build(dir);
  /* domain action from data-uiap-action, held for review, never executed */
  const cJSON *create = find(p, "actionCatalog.actions", "id", "note.create");
  cr_assert(create);
  cr_expect_str_eq(str(create, "kind"), "domain");
  cr_expect_str_eq(str(create, "reviewState"), "candidate");
  cr_expect_str_eq(str(create, "risk.level"), "confirm");
  cr_expect_str_eq(str(create, "sideEffectClass"), "write");
  cr_expect_str_eq(str(create, "confidence"), "high");
  cr_expect(find(create, "targetPatterns", "stableId", "note.save"));
  cr_expect_str_eq(str(cJSON_GetArrayItem(get(create, "targetPatterns"), 0), "scopeId"), "scope:note.form");
  cr_expect_null(get(create, "successSignals"));
  /* executed once through ui.activate on its element, without a signal */
  const cJSON *save = find(p, "actionCatalog.actions", "id", "settings.save");
  cr_assert(save);
  cr_expect_eq(num(save, "metadata.executed"), 1);
  cr_expect_str_eq(str(save, "reviewState"), "candidate");
  cr_expect_str_eq(str(save, "sideEffectClass"), "local_ui");
  /* primitives */
  const cJSON *nav = find(p, "actionCatalog.actions", "id", "nav.navigate");
  cr_assert(nav);
  cr_expect_str_eq(str(nav, "kind"), "primitive");
  cr_expect_str_eq(str(nav, "reviewState"), "candidate");
  cr_expect_eq(len(nav, "successSignals"), 2);
  cr_expect(find(nav, "targetPatterns", "stableId", "nav.home"));
  cr_expect(find(nav, "targetPatterns", "role", "link"));
  const cJSON *act = find(p, "actionCatalog.actions", "id", "ui.activate");
  cr_expect_str_eq(str(act, "reviewState"), "candidate");
  cr_expect_str_eq(str(act, "risk.level"), "confirm"); /* some targets were denied */
  cr_expect_null(get(act, "sideEffectClass"));         /* target-dependent */
  cr_expect_eq(num(act, "metadata.denied"), 3);
  cr_expect(find(p, "actionCatalog.actions", "id", "ui.enterText"));
  cr_expect_eq(num(find(p, "actionCatalog.actions", "id", "ui.enterText"), "metadata.failed"), 1);
  /* every ui./nav. id is primitive, every other id domain */
  const cJSON *x;
  cJSON_ArrayForEach(x, get(p, "actionCatalog.actions")) {
    int prim = !strncmp(str(x, "id"), "ui.", 3) || !strncmp(str(x, "id"), "nav.", 4);
    cr_expect_str_eq(str(x, "kind"), prim ? "primitive" : "domain");
  }
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

Test(package, transition_graph) {
  char *dir = t_journal_dir("normal", NULL);
  cJSON *p = build(dir);
  cr_expect_eq(len(p, "transitionGraph.states"), 3);
  /* t4 and t6 are self-loops: counted, not published */
  cr_assert_eq(len(p, "transitionGraph.edges"), 5);
  const char *ids[] = {"t1", "t2", "t3", "t5", "t7"};
  for (int i = 0; i < 5; i++) {
    const cJSON *e = cJSON_GetArrayItem(get(p, "transitionGraph.edges"), i);
    cr_expect_str_eq(str(e, "transitionId"), ids[i]);
    cr_expect_str_neq(str(e, "fromStateId"), str(e, "toStateId"));
  }
  const cJSON *t1 = find(p, "transitionGraph.edges", "transitionId", "t1");
  cr_expect_str_eq(str(t1, "confidence"), "high");   /* t7 repeats it with the same signal */
  cr_expect_str_eq(str(t1, "viaActionId"), "ui.activate");
  cr_expect_str_eq(str(t1, "sideEffectClass"), "local_ui");
  cr_expect_str_eq(str(t1, "target.stableId"), "notes.open");
  cr_expect_str_eq(str(t1, "target.semanticKey"), "/home.html|region|button|open help");
  cr_expect_str_eq(str(t1, "metadata.decision.effect"), "allow");
  cr_expect_str_eq(str(cJSON_GetArrayItem(get(t1, "observedSignals"), 0), "kind"), "dialog.opened");
  const cJSON *t2 = find(p, "transitionGraph.edges", "transitionId", "t2");
  cr_expect_str_eq(str(t2, "confidence"), "medium");
  cr_expect_str_eq(str(t2, "target.scopeId"), "scope:/home.html:dialog:help"); /* local sc_72 mapped */
  const cJSON *s2 = find(p, "transitionGraph.states", "stateId", "s2");
  cr_expect_str_eq(str(s2, "fingerprint"), "fp_home_help");
  cr_expect_str_eq(str(s2, "routeId"), "/home.html");
  cr_expect_str_eq(str(s2, "pageGraphRef"), "states/s2.json");
  cr_expect(has_str(get(s2, "modalStack"), "scope:/home.html:dialog:help"));
  cr_expect(has_str(get(s2, "scopeIds"), "scope:note.form"));
  cr_expect(find(s2, "discoveredBy", "refId", "t1"));
  cr_expect_eq(num(find(p, "transitionGraph.states", "stateId", "s1"), "metadata.selfLoops"), 1);
  /* evidence index: every state and transition */
  const cJSON *ev = find(p, "evidenceIndex.entries", "refId", "s3");
  cr_expect_str_eq(str(ev, "path"), "states/s3.json");
  cr_expect_str_eq(str(find(p, "evidenceIndex.entries", "refId", "t4"), "path"), "journal.jsonl");
  cr_expect_eq(len(p, "evidenceIndex.entries"), 3 + 7);
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

Test(package, review_queue_has_every_derived_kind) {
  char *dir = t_journal_dir("normal", NULL);
  cJSON *p = build(dir);
  const cJSON *it;

  /* one missing_stable_id per route, with the count and names */
  cr_expect_eq(count_kind(p, "missing_stable_id"), 2);
  it = item(p, "missing_stable_id", "route /settings.html");
  cr_assert(it);
  cr_expect_str_eq(str(it, "severity"), "low");
  cr_expect(strstr(str(it, "description"), "4 interactive elements"));
  cr_expect(strstr(str(it, "description"), "\"Password\""));
  cr_expect(strstr(str(it, "remediation"), "data-uiap-id"));

  it = item(p, "duplicate_name", "\"Edit\"");
  cr_assert(it);
  cr_expect_str_eq(str(it, "severity"), "medium");
  cr_expect(has_evidence(it, "dom", "s1"));

  it = item(p, "ambiguous_target", "\"Edit\"");
  cr_assert(it);
  cr_expect(has_evidence(it, "transition", "t6"));

  cr_expect_eq(count_kind(p, "opaque_frame"), 1);
  it = item(p, "opaque_frame", "http://127.0.0.1:8001");
  cr_assert(it);
  cr_expect_str_eq(str(it, "severity"), "medium");
  cr_expect_str_eq(str(it, "routeId"), "/home.html");

  cr_expect_eq(count_kind(p, "closed_shadow"), 1);

  /* 15.5: every domain action without a signal; the primitives here each
   * have a signal or stay put */
  cr_expect_eq(count_kind(p, "missing_success_signal"), 2);
  cr_expect(item(p, "missing_success_signal", "note.create"));
  it = item(p, "missing_success_signal", "settings.save");
  cr_assert(it);
  cr_expect(has_evidence(it, "transition", "t4"));
  cr_expect_str_eq(str(it, "stableId"), "settings.save");

  /* one per target+action; both denials of "Delete all notes" merge */
  cr_expect_eq(count_kind(p, "unsafe_action_candidate"), 3);
  it = item(p, "unsafe_action_candidate", "Delete all notes");
  cr_assert(it);
  cr_expect_str_eq(str(it, "severity"), "high");
  cr_expect(strstr(str(it, "description"), "destructive"));
  cr_expect(strstr(str(it, "description"), "lexicon.en.delete"));
  cr_expect(has_evidence(it, "dom", "s1") && has_evidence(it, "dom", "s2"));
  it = item(p, "unsafe_action_candidate", "Revoke API keys");
  cr_expect_str_eq(str(it, "severity"), "high");
  cr_expect_str_eq(str(it, "stableId"), "keys.revoke");
  it = item(p, "unsafe_action_candidate", "Save note");
  cr_expect_str_eq(str(it, "severity"), "medium"); /* review, not deny */
  cr_expect(strstr(str(it, "description"), "native.form.post"));

  it = item(p, "inferred_only", "\"Fancy\"");
  cr_assert(it);
  cr_expect_str_eq(str(it, "severity"), "medium");

  it = item(p, "coverage_gap", "Seed 1");
  cr_assert(it);
  cr_expect_str_eq(str(it, "severity"), "high");
  cr_expect_eq(count_kind(p, "coverage_gap"), 1); /* both routes were explored */

  /* the journal's own findings pass through */
  cr_expect(item(p, "custom", "replaying its recorded path"));
  cr_expect(item(p, "custom", "no distinguishable state"));

  /* every item: unique id, one-sentence description, remediation; high first */
  const cJSON *x, *y;
  int last = 3;
  cJSON_ArrayForEach(x, get(p, "reviewQueue.items")) {
    int sev = !strcmp(str(x, "severity"), "high") ? 2 : !strcmp(str(x, "severity"), "medium") ? 1 : 0;
    cr_expect_leq(sev, last, "items are not sorted by severity");
    last = sev;
    cr_expect(str(x, "remediation") && *str(x, "remediation"));
    cr_expect(str(x, "description")[strlen(str(x, "description")) - 1] == '.');
    int same = 0;
    cJSON_ArrayForEach(y, get(p, "reviewQueue.items")) same += !strcmp(str(x, "id"), str(y, "id"));
    cr_expect_eq(same, 1);
  }
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

/* ---- review duties on observed behaviour (mapper 15.5, 16) --------------------------- */

/* 1: item x cites evidence ref (any source). */
static int cites(const cJSON *x, const char *ref) {
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(x, "evidence"))
    if (!strcmp(str(e, "refId"), ref)) return 1;
  return 0;
}

Test(package, semantics_contradicting_behaviour_are_review_items) {
  char *dir = t_journal_dir("behaviour", NULL);
  cJSON *p = build(dir);
  validate_package(p, dir);
  const cJSON *it = item(p, "custom", "The button \"Open help\"");
  cr_assert(it, "a button that navigated to another route is a review item");
  cr_expect(strstr(str(it, "description"), "navigated to another route"));
  cr_expect(cites(it, "t1"));
  cr_expect_str_eq(str(it, "stableId"), "notes.open");
  it = item(p, "custom", "The link \"Settings\"");
  cr_assert(it, "a link that opened a dialog is a review item");
  cr_expect(strstr(str(it, "description"), "opened a dialog"));
  cr_expect(cites(it, "t2"));
  it = item(p, "custom", "The checkbox \"Remember me\"");
  cr_assert(it, "a toggle that changed nothing is a review item");
  cr_expect(cites(it, "t3"));
  cr_expect_str_eq(str(it, "routeId"), "/settings.html");
  /* a submit button's form may lead to another page: not a contradiction */
  cr_expect(!item(p, "custom", "\"Save note\""));
  cr_expect(!item(p, "custom", "\"Upgrade plan\" on route"), "a link that navigates does what it says");
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

Test(package, silent_primitive_transition_is_missing_success_signal) {
  char *dir = t_journal_dir("behaviour", NULL);
  cJSON *p = build(dir);
  const cJSON *it = item(p, "missing_success_signal", "ui.activate on button \"Edit\"");
  cr_assert(it, "a primitive transition to another state without a signal is missing_success_signal");
  cr_expect(cites(it, "t4"));
  cr_expect_str_eq(str(it, "severity"), "low");
  /* the toggle stayed put (its own item above), the others had signals */
  cr_expect(!item(p, "missing_success_signal", "\"Remember me\""));
  cr_expect(!item(p, "missing_success_signal", "\"Open help\""));
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

Test(package, security_and_billing_flows_touched_are_review_items) {
  char *dir = t_journal_dir("behaviour", NULL);
  cJSON *p = build(dir);
  const cJSON *it = item(p, "custom", "billing-related flow was touched on route /settings.html");
  cr_assert(it, "an exercised billing control is a review item");
  cr_expect_str_eq(str(it, "severity"), "high", "exercised: high");
  cr_expect(strstr(str(it, "description"), "\"Upgrade plan\""));
  cr_expect(cites(it, "t5"));
  it = item(p, "custom", "billing-related flow was touched on route /home.html");
  cr_assert(it, "a denied billing control is still a touched billing flow");
  cr_expect_str_eq(str(it, "severity"), "medium");
  cr_expect(strstr(str(it, "description"), "\"Pay now\""));
  it = item(p, "custom", "security-related flow was touched on route /settings.html");
  cr_assert(it, "a route with credential fields touches a security flow");
  cr_expect(strstr(str(it, "description"), "\"Password\""));
  cr_expect(strstr(str(it, "remediation"), "by hand"));
  cr_expect(!item(p, "custom", "security-related flow was touched on route /home.html"));
  cJSON_Delete(p);
  /* the normal run: a denied security control and a password field */
  t_rm_rf(dir);
  free(dir);
  dir = t_journal_dir("normal", NULL);
  p = build(dir);
  it = item(p, "custom", "security-related flow was touched on route /settings.html");
  cr_assert(it);
  cr_expect(strstr(str(it, "description"), "\"Revoke API keys\""));
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

/* ---- determinism --------------------------------------------------------------- */

Test(package, building_twice_gives_identical_json) {
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

/* The same crawl met in another order, under another run id: the catalogs,
 * graph, review queue and coverage do not change. */
Test(package, record_order_and_run_id_do_not_change_the_catalogs) {
  char *text = t_read_file(FIXTURES "/normal/journal.jsonl", NULL);
  cr_assert(text);
  size_t cap = strlen(text) + 64, off = 0;
  char *out = malloc(cap);
  cr_assert(out);
  char *lines[64];
  int n = 0;
  for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && n < 64; l = strtok_r(NULL, "\n", &save)) lines[n++] = l;
  /* run first, end last, everything between reversed */
  char *run = strstr(lines[0], "run_normal");
  cr_assert(run);
  memcpy(run, "run_other!", 10); /* same length */
  off += (size_t)snprintf(out + off, cap - off, "%s\n", lines[0]);
  for (int i = n - 2; i >= 1; i--) off += (size_t)snprintf(out + off, cap - off, "%s\n", lines[i]);
  snprintf(out + off, cap - off, "%s\n", lines[n - 1]);
  char *d1 = t_journal_dir("normal", NULL), *d2 = t_journal_dir(NULL, out);
  cJSON *a = build(d1), *b = build(d2);
  cr_expect_str_eq(str(b, "run.runId"), "run_other!");
  const char *parts[] = {"routeCatalog", "scopeCatalog", "elementCatalog", "actionCatalog", "transitionGraph",
                         "reviewQueue", "coverage", "evidenceIndex"};
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
    char *ta = cJSON_PrintUnformatted(get(a, parts[i])), *tb = cJSON_PrintUnformatted(get(b, parts[i]));
    cr_expect_str_eq(ta, tb, "%s differs", parts[i]);
    free(ta);
    free(tb);
  }
  cJSON_Delete(a);
  cJSON_Delete(b);
  t_rm_rf(d1);
  t_rm_rf(d2);
  free(d1);
  free(d2);
  free(out);
  free(text);
}

/* ---- an interrupted crawl -------------------------------------------------------- */

Test(package, interrupted_journal) {
  char *dir = t_journal_dir("interrupted", NULL);
  cJSON *p = build(dir);
  validate_package(p, dir);
  cr_expect_str_eq(str(p, "run.status"), "failed");
  cr_expect_null(get(p, "run.finishedAt"));
  const cJSON *notes = get(p, "run.notes");
  cr_expect(has_str(notes, "journal ends without an end record (last status: exploring)"));
  cr_expect(has_str(notes, "journal: 1 malformed line skipped"));
  cr_expect(has_str(notes, "journal: the last line was cut off (ignored)"));
  cr_expect(has_str(notes, "budget maxStates=2 reached"));
  int refused = 0;
  const cJSON *x;
  cJSON_ArrayForEach(x, notes) refused |= strstr(x->valuestring, "leaves the crawl directory") != NULL;
  cr_expect(refused, "a pageGraphRef outside DIR must be refused");
  cr_expect_str_eq(str(p, "coverage.stoppedBy"), "interrupted");
  /* the torn transition t2 is not there; the heartbeat line is skipped */
  cr_expect_eq(num(p, "coverage.transitionsRecorded"), 1);
  cr_expect_eq(num(p, "metadata.journalRecords"), 9);
  cr_expect_eq(num(p, "metadata.malformedLines"), 1);
  /* s9's graph could not be read: its route is low, and unexplored */
  const cJSON *about = find(p, "routeCatalog.routes", "routeId", "/about.html");
  cr_assert(about);
  cr_expect_str_eq(str(about, "confidence"), "low");
  cr_expect_str_eq(str(find(p, "transitionGraph.states", "stateId", "s9"), "confidence"), "low");
  cr_expect(item(p, "coverage_gap", "Route /about.html"));
  /* a domain action the gate denied is unsafe */
  const cJSON *create = find(p, "actionCatalog.actions", "id", "note.create");
  cr_expect_str_eq(str(create, "reviewState"), "unsafe");
  cr_expect_str_eq(str(create, "risk.level"), "blocked");
  const cJSON *it = item(p, "unsafe_action_candidate", "Save note");
  cr_assert(it);
  cr_expect_str_eq(str(it, "severity"), "high"); /* deny of external_effect */
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

/* A seed the crawler already reported gets no second coverage_gap. */
Test(package, seed_reported_by_the_crawler_is_not_repeated) {
  char *text = t_read_file(FIXTURES "/normal/journal.jsonl", NULL);
  cr_assert(text);
  const char *extra = "{\"type\":\"review\",\"at\":\"2026-01-05T10:00:02.050Z\",\"kind\":\"coverage_gap\",\"severity\":\"high\","
                      "\"description\":\"Seed 1 (http://127.0.0.1:8000/missing.html) could not be loaded: refused\","
                      "\"remediation\":\"Check that the seed URL is reachable from the crawler.\"}\n";
  char *j = malloc(strlen(text) + strlen(extra) + 1);
  strcpy(j, text);
  strcat(j, extra);
  char *dir = t_journal_dir(NULL, j);
  cJSON *p = build(dir);
  cr_expect_eq(count_kind(p, "coverage_gap"), 1);
  cr_expect(item(p, "coverage_gap", "could not be loaded: refused"));
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
  free(j);
  free(text);
}

/* ---- errors and writing ------------------------------------------------------------- */

Test(package, errors) {
  cJSON *p = (cJSON *)1;
  char err[256];
  cr_expect_eq(crawl_package_build("/nonexistent/uiap-crawl", &p, err, sizeof err), CRAWL_IO);
  cr_expect_null(p);
  cr_expect(strstr(err, "journal.jsonl"), "err: %s", err);
  cr_expect_eq(crawl_package_build(NULL, &p, err, sizeof err), CRAWL_ARG);
  cr_expect_eq(crawl_package_build("/tmp", NULL, err, sizeof err), CRAWL_ARG);
  char *dir = t_journal_dir(NULL, "{\"type\":\"status\",\"at\":\"2026-01-01T00:00:00Z\",\"status\":\"seeding\"}\n");
  cr_expect_eq(crawl_package_build(dir, &p, err, sizeof err), CRAWL_ARG);
  cr_expect(strstr(err, "no run record"), "err: %s", err);
  cr_expect_eq(crawl_package_write(dir, NULL, 0), CRAWL_ARG);
  t_rm_rf(dir);
  free(dir);
}

Test(package, write_is_atomic_and_matches_build) {
  char *dir = t_journal_dir("normal", NULL);
  char err[256] = "", path[1024], msg[8192];
  cr_assert_eq(crawl_package_write(dir, err, sizeof err), CRAWL_OK, "%s", err);
  /* journal.jsonl, states/, package.json: no temporary file left behind */
  cr_expect_eq(t_dir_entries(dir), 3);
  snprintf(path, sizeof path, "%s/package.json", dir);
  size_t n = 0;
  char *text = t_read_file(path, &n);
  cr_assert(text && n > 0);
  cr_expect_eq(text[n - 1], '\n');
  cr_expect_eq(t_validate("DiscoveryPackage", path, msg, sizeof msg), 0, "%s", msg);
  cJSON *written = cJSON_Parse(text), *built = build(dir);
  cr_expect(cJSON_Compare(written, built, 1));
  /* writing again replaces it */
  cr_assert_eq(crawl_package_write(dir, err, sizeof err), CRAWL_OK, "%s", err);
  cr_expect_eq(t_dir_entries(dir), 3);
  cJSON_Delete(written);
  cJSON_Delete(built);
  free(text);
  t_rm_rf(dir);
  free(dir);
}

/* ---- what the gate cost (issue #16) -------------------------------------------- */
/* gate records add up the allowed actions (a state once: a resumed run may
 * repeat one); the decisions give the rest, by class and by rule; the CLI's
 * line says the same. */
Test(package, gate_counts_what_the_gate_cost) {
  char *text = t_read_file(FIXTURES "/normal/journal.jsonl", NULL);
  cr_assert(text);
  static const char gates[] =
    "{\"type\":\"gate\",\"at\":\"2026-01-05T10:00:02.300Z\",\"stateId\":\"s1\",\"allowed\":4}\n"
    "{\"type\":\"gate\",\"at\":\"2026-01-05T10:00:03.200Z\",\"stateId\":\"s2\",\"allowed\":2}\n"
    "{\"type\":\"gate\",\"at\":\"2026-01-05T10:00:08.200Z\",\"stateId\":\"s1\",\"allowed\":9}\n";
  size_t n = strlen(text) + sizeof gates;
  char *journal = malloc(n);
  cr_assert(journal);
  snprintf(journal, n, "%s%s", text, gates);
  free(text);
  char *dir = t_journal_dir("normal", journal);
  free(journal);
  cJSON *p = build(dir);
  validate_package(p, dir);
  cr_expect_eq(num(p, "metadata.gate.allow"), 6);
  cr_expect_eq(num(p, "metadata.gate.deny"), num(p, "metadata.decisions.deny"));
  cr_expect_eq(num(p, "metadata.gate.review"), num(p, "metadata.decisions.review"));
  cr_expect_eq(num(p, "metadata.gate.skip"), num(p, "metadata.decisions.skip"));
  cr_expect_eq(num(p, "metadata.gate.byClass.deny.destructive"), 2);
  const cJSON *first = cJSON_GetArrayItem(get(p, "metadata.gate.byRule"), 0);
  cr_expect_str_eq(str(first, "effect"), "deny");
  cr_expect_str_eq(str(first, "rule"), "lexicon.en.delete");
  cr_expect_eq(num(first, "count"), 2);
  cJSON_Delete(p);
  char err[256] = "", line[512];
  cr_assert_eq(crawl_package_write(dir, err, sizeof err), CRAWL_OK, "%s", err);
  cr_assert_eq(crawl_gate_line(dir, line, sizeof line, err, sizeof err), CRAWL_OK, "%s", err);
  cr_expect(!strncmp(line, "gate: 6 allowed, 3 denied (destructive 2, ", 42), "%s", line);
  cr_expect(strstr(line, " held (write 1)") && strstr(line, " skipped (draft 1)"), "%s", line);
  t_rm_rf(dir);
  free(dir);
}

/* ---- every seed gets a state or a review item (mapper 11.2, issue #16) --------- */
/* The normal run with four more seeds: a workflow seed naming a synthesized
 * candidate (note.create), one naming none (checkout), a documentation seed
 * that led to a state met before (s3), and one the crawler could not open
 * (its planning review line). Each is visited or has a review item that
 * says why; coverage counts the visited ones; the package stays valid. */
Test(package, workflow_and_documentation_seeds_are_resolved_or_reported) {
  char *text = t_read_file(FIXTURES "/normal/journal.jsonl", NULL);
  cr_assert(text);
  static const char old[] = "{\"kind\":\"url\",\"url\":\"http://127.0.0.1:8000/missing.html\"}]";
  static const char more[] =
    "{\"kind\":\"url\",\"url\":\"http://127.0.0.1:8000/missing.html\"},{\"kind\":\"workflow\",\"workflowId\":\"note.create\"},"
    "{\"kind\":\"workflow\",\"workflowId\":\"checkout\"},{\"kind\":\"documentation\",\"ref\":\"/settings.html\"},"
    "{\"kind\":\"documentation\",\"ref\":\"guide.pdf\"}]";
  static const char lines[] =
    "{\"type\":\"seed\",\"at\":\"2026-01-05T10:00:02.010Z\",\"index\":4,\"seed\":{\"kind\":\"documentation\",\"ref\":\"/settings.html\"},"
    "\"resolved\":true,\"url\":\"http://127.0.0.1:8000/settings.html\",\"stateId\":\"s3\"}\n"
    "{\"type\":\"seed\",\"at\":\"2026-01-05T10:00:00.150Z\",\"index\":5,\"seed\":{\"kind\":\"documentation\",\"ref\":\"guide.pdf\"},"
    "\"resolved\":false,\"reason\":\"the ref guide.pdf names no page of the app\"}\n"
    "{\"type\":\"review\",\"at\":\"2026-01-05T10:00:00.160Z\",\"kind\":\"coverage_gap\",\"severity\":\"medium\","
    "\"description\":\"Seed 5 (documentation) could not be resolved: the ref guide.pdf names no page of the app.\"}\n";
  char *at = strstr(text, old);
  cr_assert(at);
  size_t n = strlen(text) + sizeof more + sizeof lines;
  char *j = malloc(n);
  snprintf(j, n, "%.*s%s%s%s", (int)(at - text), text, more, at + strlen(old), lines);
  free(text);
  char *dir = t_journal_dir("normal", j);
  free(j);
  cJSON *p = build(dir);
  validate_package(p, dir);
  cr_expect_eq(num(p, "coverage.seedsTotal"), 6);
  /* seed 0 (home), seed 2 (the note form candidate), seed 4 (s3) */
  cr_expect_eq(num(p, "coverage.seedsVisited"), 3);
  const cJSON *wf = find(p, "workflowCandidates.workflows", "id", "candidate.note.create");
  cr_assert(wf);
  cr_expect(cJSON_IsNumber(cJSON_GetArrayItem(get(wf, "metadata.seeds"), 0)) &&
            cJSON_GetArrayItem(get(wf, "metadata.seeds"), 0)->valueint == 2, "the candidate names its seed");
  cr_expect_null(item(p, "coverage_gap", "Seed 2 "));
  cr_expect(item(p, "coverage_gap", "Seed 3 (workflow checkout) could not be resolved: no workflow candidate"));
  cr_expect_null(item(p, "coverage_gap", "Seed 4 "), "the documentation seed reached s3");
  cr_expect_eq(count_kind(p, "coverage_gap") >= 1, 1);
  int seed5 = 0;
  const cJSON *x;
  cJSON_ArrayForEach(x, get(p, "reviewQueue.items")) seed5 += strstr(str(x, "description"), "Seed 5 ") != NULL;
  cr_expect_eq(seed5, 1, "the unopenable documentation seed has one review item, with its reason");
  cr_expect(item(p, "coverage_gap", "guide.pdf names no page"));
  cr_expect_eq(num(p, "coverage.reviewItems"), len(p, "reviewQueue.items"));
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

/* A route whose pages folded into an equal state of another route (journal:
 * the transition's "route") is in the catalog all the same: its URLs,
 * the params seen, the state it showed; and, with no page naming it, a
 * review item for a route without stable identity. */
Test(package, folded_routes_catalogued) {
  char path[4200];
  char *dir = t_journal_dir("normal", NULL);
  snprintf(path, sizeof path, "%s/journal.jsonl", dir);
  FILE *f = fopen(path, "a");
  cr_assert(f);
  for (int n = 2; n <= 3; n++)
    fprintf(f,
            "{\"type\":\"transition\",\"at\":\"2026-01-05T10:00:09.000Z\",\"transitionId\":\"tp%d\",\"fromStateId\":\"s1\","
            "\"toStateId\":\"s1\",\"viaActionId\":\"nav.navigate\",\"target\":{\"role\":\"link\",\"name\":\"Page %d\"},"
            "\"sideEffectClass\":\"navigation\",\"observedSignals\":[],\"selfLoop\":true,\"route\":{\"routeId\":"
            "\"/home.html#/page/:n\",\"url\":\"http://127.0.0.1:8000/home.html#/page/%d\",\"title\":\"Notes\","
            "\"params\":{\"n\":\"%d\"},\"query\":{\"sort\":\"name\"}}}\n",
            n, n, n, n);
  fclose(f);
  cJSON *p = build(dir);
  const cJSON *rt = find(p, "routeCatalog.routes", "routeId", "/home.html#/page/:n");
  cr_assert(rt, "the folded route is catalogued");
  cr_expect_eq(len(rt, "urls"), 2);
  cr_expect(has_str(get(rt, "metadata.params.n"), "2") && has_str(get(rt, "metadata.params.n"), "3"), "params.n: 2, 3");
  cr_expect(has_str(get(rt, "metadata.query.sort"), "name"), "query.sort");
  cr_expect(has_str(get(rt, "metadata.foldedInto"), "s1"), "its pages showed s1");
  cr_expect(find(rt, "discoveredBy", "refId", "tp2") && find(rt, "discoveredBy", "refId", "s1"));
  cr_expect_eq(num(rt, "metadata.states"), 0);
  cr_expect(has_str(get(rt, "entryActions"), "nav.navigate"), "entered by the page links");
  const cJSON *it = item(p, "missing_stable_id", "no stable identity");
  cr_assert(it, "a route without stable identity is a review item");
  cr_expect_str_eq(str(it, "routeId"), "/home.html#/page/:n");
  cr_expect(!item(p, "coverage_gap", "/home.html#/page/:n"), "no coverage gap: it was explored as s1");
  cr_expect_eq(num(p, "coverage.routesDiscovered"), len(p, "routeCatalog.routes"));
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

/* ---- evidence files (discovery-mapper 11.2, 17) -------------------------------- */
/* Every "accessibility" or "screenshot" reference in discoveredBy/evidence
 * arrays anywhere under o: checked against the index, counted. */
static int check_refs(const cJSON *o, const cJSON *index, const char *want_ref, int *hits) {
  int bad = 0;
  if (cJSON_IsObject(o) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "refId")) &&
      cJSON_GetObjectItemCaseSensitive(o, "source") && !cJSON_GetObjectItemCaseSensitive(o, "path")) {
    const char *src = str(o, "source"), *ref = str(o, "refId");
    if (!strcmp(src, "screenshot") || (!strcmp(src, "accessibility") && !strncmp(ref, "ax_", 3))) {
      const cJSON *e = find(index, "entries", "refId", ref);
      if (!e || strcmp(str(e, "source"), src)) bad++;
    }
    if (want_ref && !strcmp(ref, want_ref)) (*hits)++;
  }
  const cJSON *ch;
  for (ch = o ? o->child : NULL; ch; ch = ch->next) bad += check_refs(ch, index, want_ref, hits);
  return bad;
}

Test(package, accessibility_records_and_screenshots_are_evidence) {
  char *dir = t_journal_dir("evidence", NULL);
  char src[1024], dst[1024];
  snprintf(dst, sizeof dst, "%s/accessibility", dir);
  cr_assert_eq(mkdir(dst, 0755), 0);
  for (int i = 1; i <= 2; i++) { /* recorded by a crawl of pages/ (README) */
    snprintf(src, sizeof src, FIXTURES "/evidence/accessibility/s%d.json", i);
    snprintf(dst, sizeof dst, "%s/accessibility/s%d.json", dir, i);
    t_copy_file(src, dst);
  }
  cJSON *p = build(dir);
  validate_package(p, dir);
  /* the states: their own record and screenshot */
  const cJSON *s1 = find(p, "transitionGraph.states", "stateId", "s1");
  const cJSON *s3 = find(p, "transitionGraph.states", "stateId", "s3");
  const cJSON *ax1 = find(s1, "discoveredBy", "refId", "ax_s1"), *shot1 = find(s1, "discoveredBy", "refId", "shot_s1");
  cr_assert(ax1 && shot1, "s1 cites its accessibility record and its screenshot");
  cr_expect_str_eq(str(ax1, "source"), "accessibility");
  cr_expect_str_eq(str(shot1, "source"), "screenshot");
  cr_expect(find(find(p, "transitionGraph.states", "stateId", "s2"), "discoveredBy", "refId", "ax_s2"));
  cr_expect_null(find(s3, "discoveredBy", "source", "accessibility"), "s3 has no record: none cited");
  cr_expect_null(find(s3, "discoveredBy", "source", "screenshot"));
  /* the index says where each lives */
  const cJSON *idx = get(p, "evidenceIndex");
  const cJSON *e = find(idx, "entries", "refId", "ax_s1");
  cr_assert(e);
  cr_expect_str_eq(str(e, "source"), "accessibility");
  cr_expect_str_eq(str(e, "path"), "accessibility/s1.json");
  cr_expect_str_eq(str(e, "stateId"), "s1");
  snprintf(dst, sizeof dst, "%s/%s", dir, str(e, "path"));
  cr_expect_eq(access(dst, R_OK), 0, "the path is the file in the crawl directory");
  cr_expect_str_eq(str(find(idx, "entries", "refId", "shot_s1"), "path"), "screenshots/s1.png");
  cr_expect_str_eq(str(find(idx, "entries", "refId", "ax_s2"), "path"), "accessibility/s2.json");
  cr_expect_null(find(idx, "entries", "refId", "ax_s3"));
  cr_expect_eq(len(p, "evidenceIndex.entries"), 3 + 7 + 3);
  /* catalog entries from those states cite the record; every reference resolves */
  int hits = 0;
  cr_expect_eq(check_refs(p, idx, "ax_s1", &hits), 0, "every accessibility/screenshot refId is in the index");
  cr_expect_gt(hits, 5, "elements, scopes and routes of s1 cite its record (%d)", hits);
  const cJSON *home = find(p, "routeCatalog.routes", "routeId", "/home.html");
  const cJSON *settings = find(p, "routeCatalog.routes", "routeId", "/settings.html");
  cr_expect(find(home, "discoveredBy", "refId", "ax_s1"));
  cr_expect_null(find(settings, "discoveredBy", "source", "accessibility"), "its only state has no record");
  const cJSON *el;
  int els = 0;
  cJSON_ArrayForEach(el, get(p, "elementCatalog.elements")) {
    const cJSON *a = find(el, "discoveredBy", "source", "accessibility");
    if (a && !strncmp(str(a, "refId"), "ax_", 3)) els++;
  }
  cr_expect_gt(els, 3, "elements cite the records (%d)", els);
  /* the normal journal (no records): no accessibility record cited anywhere */
  char *plain = t_journal_dir("normal", NULL);
  cJSON *q = build(plain);
  hits = 0;
  check_refs(q, get(q, "evidenceIndex"), "ax_s1", &hits);
  cr_expect_eq(hits, 0);
  cJSON_Delete(q);
  t_rm_rf(plain);
  free(plain);
  cJSON_Delete(p);
  t_rm_rf(dir);
  free(dir);
}

/* A signal journaled with its scope's identity (kind, name, stable id)
 * names the catalog's scope whatever capture-local id it carries: the
 * capture a state file holds numbers its scopes otherwise (a toast shifts
 * them), and sc_3 of one capture is the form of another (docs/nightly.md). */
Test(package, signal_scopes_are_named_by_identity_not_capture_local_id) {
  char path[600];
  snprintf(path, sizeof path, "%s/normal/journal.jsonl", FIXTURES);
  char *text = t_read_file(path, NULL);
  cr_assert(text);
  static const char *const ids[] = {"sc_72", "sc_3", "sc_404"}; /* s2's dialog, s2's form, none */
  const char *want = "scope:/home.html:dialog:help";
  for (int i = 0; i < 3; i++) {
    const char *from = "\"observedSignals\":[{\"kind\":\"dialog.opened\"}]";
    char to[200];
    snprintf(to, sizeof to,
             "\"observedSignals\":[{\"kind\":\"dialog.opened\",\"scopeId\":\"%s\",\"scopeIdentity\":"
             "{\"kind\":\"dialog\",\"name\":\"Help\"}}]", ids[i]);
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, from)); p++) n++;
    cr_assert_gt(n, 0);
    char *j = malloc(strlen(text) + n * strlen(to) + 1), *o = j;
    for (const char *p = text, *q; ; p = q + strlen(from)) {
      q = strstr(p, from);
      size_t k = q ? (size_t)(q - p) : strlen(p);
      memcpy(o, p, k), o += k;
      if (!q) break;
      o += sprintf(o, "%s", to);
    }
    *o = 0;
    char *dir = t_journal_dir("normal", j);
    cJSON *p = build(dir);
    const cJSON *t1 = find(p, "transitionGraph.edges", "transitionId", "t1");
    const cJSON *sg = cJSON_GetArrayItem(get(t1, "observedSignals"), 0);
    cr_expect_str_eq(str(sg, "kind"), "dialog.opened");
    cr_expect_str_eq(str(sg, "scopeId"), want, "journaled as %s", ids[i]);
    cr_expect_null(get(sg, "scopeIdentity"), "the journal's identity is not a SuccessSignal member");
    cr_expect_str_eq(str(t1, "confidence"), "high", "t7 repeats t1 with the same signal (journaled as %s)", ids[i]);
    validate_package(p, dir);
    cJSON_Delete(p);
    t_rm_rf(dir);
    free(dir), free(j);
  }
  free(text);
}

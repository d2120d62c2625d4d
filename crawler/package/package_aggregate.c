/* package_aggregate.c -- aggregation after all states are folded: each resolved
 * transition, decision and failure updates its element, the action catalog
 * (side effects, signals, gate verdicts) and the routes it enters or leaves.
 * Does not emit JSON (package_out*.c) nor review items (package_review*.c).
 */
#include "pkg_int.h"
/* ---- aggregation after all states are folded --------------------------------------- */
/* The actions a record exercised: its action id, and the element's app
 * action when a primitive fires it (ui.activate on a data-uiap-action). */
static void ref_actions(pk *b, const pk_ref *rf, const char *aid, strset *out) {
  pk_strset_add(out, aid);
  if (rf->element >= 0 && PK_IN(pk_firing_actions, aid)) pk_strset_addall(out, &b->elements[rf->element].app_actions);
}

char *pk_canonical_target(const pk_ref *rf) {
  const cJSON *t = crawl__get(rf->line, "target");
  if (!cJSON_IsObject(t)) return NULL;
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "instanceId", crawl__str(t, "instanceId"));
  crawl__jstr(o, "stableId", crawl__str(t, "stableId"));
  crawl__jstr(o, "semanticKey", rf->semkey);
  crawl__jstr(o, "role", crawl__str(t, "role"));
  crawl__jstr(o, "name", crawl__str(t, "name"));
  crawl__jstr(o, "scopeId", rf->scope); /* the catalog's scope id */
  crawl__jstr(o, "documentId", crawl__str(t, "documentId"));
  const cJSON *ord = crawl__get(t, "ordinal");
  if (cJSON_IsNumber(ord)) pk_jnum(o, "ordinal", ord->valuedouble);
  char *s = crawl__jtext(o, 0);
  cJSON_Delete(o);
  return s;
}

/* A SuccessSignal in canonical key order, its scopeId mapped to the catalog. */
char *pk_canonical_signal(pk *b, const cJSON *s, const pk_state *to, const pk_state *from) {
  const char *kind = crawl__str(s, "kind");
  if (!PK_IN(pk_signal_kinds, kind)) return NULL;
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "kind", kind);
  crawl__jstr(o, "pattern", crawl__str(s, "pattern"));
  crawl__jstr(o, "text", crawl__str(s, "text"));
  const cJSON *t = crawl__get(s, "target");
  if (cJSON_IsObject(t)) crawl__jset(o, "target", cJSON_Duplicate(t, 1));
  const char *sc = crawl__str(s, "scopeId");
  const cJSON *key = crawl__get(s, "scopeIdentity");
  if (sc && cJSON_IsObject(key)) {
    /* journaled with the scope's kind, name and stable id: the catalog's
     * scope whichever capture the state files hold */
    const char *k = crawl__str(key, "kind"), *n = crawl__str(key, "name"), *st = crawl__str(key, "stableId");
    const char *c = to ? pk_scope_by_key(b, to->route, k, n, st) : NULL;
    if (!c && from) c = pk_scope_by_key(b, from->route, k, n, st);
    if (c) crawl__jstr(o, "scopeId", c);
  } else if (sc) {
    const char *c = pk_state_scope(b, to, sc);
    if (!c) c = pk_state_scope(b, from, sc);
    /* a capture's own scope id ("sc_12") that neither state's graph holds
     * names nothing outside that capture: left out, so two crawls of an
     * unchanged app give the same signal (docs/nightly.md) */
    if (c || strncmp(sc, "sc_", 3)) crawl__jstr(o, "scopeId", c ? c : sc);
  }
  char *text = crawl__jtext(o, 0);
  cJSON_Delete(o);
  return text;
}

pk_state *pk_state_of(pk *b, const char *id) {
  long i = id ? pk_strset_find(&b->state_ids, id) : -1;
  return i >= 0 ? &b->states[i] : NULL;
}

/* A transition between routes: the entry action of the target route, and a
 * route.changed exit signal of the source route (the observed ones, else
 * a bare one). */
static void route_crossing(pk *b, const pk_state *from, const char *to_route, const char *aid, const char *tid,
                           const strset *sigs) {
  pk_route *in = &b->routes[pk_strset_find(&b->route_ids, to_route)];
  pk_route *out = &b->routes[pk_strset_find(&b->route_ids, from->route)];
  pk_strset_add(&in->entry_actions, aid);
  pk_strset_add(&in->entry_tr, tid);
  int any = 0;
  for (size_t k = 0; k < sigs->n; k++)
    if (!strncmp(sigs->v[k], "{\"kind\":\"route.changed\"", 23)) { pk_strset_add(&out->exit_signals, sigs->v[k]); any = 1; }
  if (!any) pk_strset_add(&out->exit_signals, "{\"kind\":\"route.changed\"}");
}

/* A transition record: reach and self-loop counts, route entries and exits,
 * the element acted on, and the actions it executed. */
static void aggregate_transition(pk *b, const pk_ref *rf, pk_element *el, const char *se) {
  const cJSON *j = rf->line;
  const char *tid = crawl__str(j, "transitionId"), *aid = crawl__str(j, "viaActionId");
  pk_state *from = pk_state_of(b, crawl__str(j, "fromStateId")), *to = pk_state_of(b, crawl__str(j, "toStateId"));
  int self = cJSON_IsTrue(crawl__get(j, "selfLoop")) || !strcmp(crawl__str(j, "fromStateId"), crawl__str(j, "toStateId"));
  strset sigs = {0}, used = {0};
  const cJSON *s;
  cJSON_ArrayForEach(s, crawl__get(j, "observedSignals")) {
    char *c = pk_canonical_signal(b, s, to, from);
    pk_strset_add(&sigs, c);
    free(c);
  }
  if (self) {
    b->nself++;
    if (from) from->self_loops++;
  } else if (to) to->reached++;
  if (from) b->routes[pk_strset_find(&b->route_ids, from->route)].explored++;
  /* the route it entered: where it landed (a route folded into the state), else the state's */
  const char *in = crawl__str(crawl__get(j, "route"), "routeId");
  if (!in || pk_strset_find(&b->route_ids, in) < 0) in = to ? to->route : NULL;
  if (from && to && (!self || in != to->route) && strcmp(from->route, in)) route_crossing(b, from, in, aid, tid, &sigs);
  if (el) {
    el->acted++;
    if (!self || sigs.n) el->acted_ok++;
    pk_strset_add(&el->transitions, tid);
  }
  ref_actions(b, rf, aid, &used);
  for (size_t k = 0; k < used.n; k++) {
    pk_action *ac = pk_action_get(b, used.v[k]);
    ac->executed++;
    if (sigs.n) ac->executed_signal++;
    pk_strset_addall(&ac->signals, &sigs);
    pk_strset_add(&ac->transitions, tid);
    pk_strset_add(&ac->classes, se);
    if (from) pk_strset_add(&ac->routes, from->route);
    if (ac->primitive && el && el->stable_id) {
      cJSON *p = crawl__jx(cJSON_CreateObject());
      crawl__jstr(p, "role", el->role);
      crawl__jstr(p, "stableId", el->stable_id);
      crawl__jstr(p, "scopeId", rf->scope);
      char *t = crawl__jtext(p, 0);
      pk_strset_add(&ac->patterns, t);
      free(t);
      cJSON_Delete(p);
    }
    if (ac->primitive) pk_strset_add(&ac->roles, crawl__str(crawl__get(j, "target"), "role"));
  }
  pk_strset_free(&used);
  pk_strset_free(&sigs);
}

/* A decision record: counts by effect; a review or deny gates the actions
 * (strictest gate, smallest reason) and raises the element's risk. */
static void aggregate_decision(pk *b, const pk_ref *rf, pk_element *el, const char *se) {
  const cJSON *j = rf->line;
  const char *effect = crawl__str(j, "effect"), *aid = crawl__str(j, "actionId");
  int e = effect ? pk_index((const char *const[]){"allow", "skip", "review", "deny"}, 4, effect) : -1;
  if (e >= 0) b->ndecisions[e]++;
  strset used = {0};
  ref_actions(b, rf, aid, &used);
  char *why = crawl__xprintf("policy: %s (%s)", crawl__str(j, "reason") ? crawl__str(j, "reason") : "?",
                             crawl__str(j, "rule") ? crawl__str(j, "rule") : "?");
  for (size_t k = 0; k < used.n; k++) {
    pk_action *ac = pk_action_get(b, used.v[k]);
    if (rf->state >= 0) pk_strset_add(&ac->states, b->states[rf->state].id);
    ac->denied += e == 3;
    ac->reviewed += e == 2;
    ac->skipped += e == 1;
    if (e >= 2) {
      pk_strset_add(&ac->classes, se);
      if (e > ac->gate_level) { free(ac->gate_reason); ac->gate_reason = NULL; ac->gate_level = e; }
      if (e == ac->gate_level) pk_keep_min(&ac->gate_reason, why);
    }
  }
  if (el && e >= 2) {
    int lvl = e == 3 ? RISK_BLOCKED : RISK_CONFIRM;
    if (lvl > el->risk_policy) { el->risk_policy = lvl; free(el->risk_reason); el->risk_reason = NULL; }
    if (lvl == el->risk_policy) pk_keep_min(&el->risk_reason, why);
    if (pk_se_dangerous(se) || (se && !strcmp(se, "unknown"))) pk_strset_add(&el->risk_tags, se);
  }
  free(why);
  pk_strset_free(&used);
}

static void aggregate_failure(pk *b, const pk_ref *rf, pk_element *el, const char *se) {
  strset used = {0};
  b->nfailures++;
  ref_actions(b, rf, crawl__str(rf->line, "actionId"), &used);
  for (size_t k = 0; k < used.n; k++) {
    pk_action *ac = pk_action_get(b, used.v[k]);
    ac->failed++;
    if (rf->state >= 0) pk_strset_add(&ac->states, b->states[rf->state].id);
  }
  if (el) el->failures++;
  pk_strset_free(&used);
}

/* Every record, in canonical order, into the catalogs (pk_ref.type). */
static const struct {
  const char *type;
  void (*aggregate)(pk *b, const pk_ref *rf, pk_element *el, const char *side_effect);
} aggregators[] = {
  {"transition", aggregate_transition},
  {"decision", aggregate_decision},
  {"failure", aggregate_failure},
};

/* A route a transition (tid) or a seed landed on while the page showed
 * state sid, an equal state of another route: record j's "route". */
static void landed_route(pk *b, const cJSON *j, const char *sid, const char *tid) {
  const cJSON *route = crawl__get(j, "route");
  const char *id = crawl__str(route, "routeId");
  if (!id || !*id || !sid) return;
  long ri = pk_route_of(b, id); /* may grow b->routes: index it after */
  pk_route *rt = &b->routes[ri];
  pk_strset_add(&rt->urls, crawl__str(route, "url"));
  const char *title = crawl__str(route, "title");
  if (title && *title) pk_strset_add(&rt->titles, title);
  pk_route_context_fold(rt, route, NULL, NULL);
  if (pk_strset_find(&rt->states, sid) < 0) pk_strset_add(&rt->folded_into, sid);
  if (tid) pk_strset_add(&rt->landed_tr, tid);
}

void pk_aggregate(pk *b) {
  for (size_t i = 0; i < b->nrefs; i++) {
    const pk_ref *rf = &b->refs[i];
    pk_element *el = rf->element >= 0 ? &b->elements[rf->element] : NULL;
    const char *se = crawl__str(rf->line, "sideEffectClass");
    if (pk_se_rank(se) < 0) se = NULL;
    if (!strcmp(rf->type, "transition") && pk_state_of(b, crawl__str(rf->line, "toStateId")))
      landed_route(b, rf->line, crawl__str(rf->line, "toStateId"), crawl__str(rf->line, "transitionId"));
    for (size_t k = 0; k < PK_COUNT(aggregators); k++)
      if (!strcmp(rf->type, aggregators[k].type)) aggregators[k].aggregate(b, rf, el, se);
  }
  for (size_t k = 0; k < b->nseed_lines; k++) {
    const char *sid = crawl__str(b->seed_lines[k], "stateId");
    if (sid && pk_strset_find(&b->state_ids, sid) >= 0) landed_route(b, b->seed_lines[k], sid, NULL);
  }
}

/* package_out.c -- the catalogs as JSON: evidence references, confidence,
 * the route, scope, element and action catalogs, and the evidence files
 * (accessibility records, screenshots) they cite; pk_park, which keeps a
 * section as its printed text when the package is only written; and the
 * files written beside package.json from the endpoint catalog (api.json,
 * access.json's "endpoints", the exports). The graph,
 * review queue, evidence index, run and environment are package_out_graph.c.
 */
#include "pkg_int.h"
/* ---- output -------------------------------------------------------------------------- */
void pk_ev_push(cJSON *arr, const char *source, const char *ref, const char *note) {
  cJSON *e = crawl__jx(cJSON_CreateObject());
  crawl__jstr(e, "source", source);
  crawl__jstr(e, "refId", ref);
  crawl__jstr(e, "note", note);
  crawl__jpush(arr, e);
}
void pk_ev_push_set(cJSON *arr, const char *source, const strset *refs) {
  char **v = pk_strset_sorted(refs, pk_cmp_nat);
  for (size_t i = 0; i < refs->n && i < PK_EVIDENCE_MAX; i++) pk_ev_push(arr, source, v[i], NULL);
  free(v);
}

static cJSON *names_json(const strset *raw);

static const char *conf(conf_sum *cs, int level /* 2 high, 1 medium, 0 low */) {
  if (level >= 2) { cs->high++; return "high"; }
  if (level == 1) { cs->medium++; return "medium"; }
  cs->low++;
  return "low";
}

/* metadata.principals: the principals whose states (ids in states) show
 * the entry (the state line's metadata.principal; docs/principals.md),
 * sorted; nothing when no state names one. */
static void principals_meta(const pk *b, const strset *states, cJSON *m) {
  strset who = {0};
  for (size_t i = 0; i < states->n; i++) {
    long s = pk_strset_find(&b->state_ids, states->v[i]);
    const char *p = s >= 0 ? crawl__str(crawl__get(b->states[s].line, "metadata"), "principal") : NULL;
    if (p) pk_strset_add(&who, p);
  }
  if (who.n) pk_jset_list(m, "principals", &who, 0);
  pk_strset_free(&who);
}

/* metadata.params and metadata.query: each name with the values seen, in
 * natural order (rt->observed). */
static void route_observed_meta(const pk_route *rt, cJSON *m) {
  char **v = pk_strset_sorted(&rt->observed, pk_cmp_nat);
  for (size_t i = 0; i < rt->observed.n; i++) {
    const char *name = strchr(v[i], '\x1f') + 1, *value = strchr(name, '\x1f') + 1;
    const char *member = v[i][0] == 'p' ? "params" : "query";
    cJSON *obj = cJSON_GetObjectItemCaseSensitive(m, member);
    if (!obj) crawl__jset(m, member, obj = crawl__jx(cJSON_CreateObject()));
    char *key = crawl__xstrndup(name, (size_t)(value - 1 - name));
    cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!arr) crawl__jset(obj, key, arr = crawl__jx(cJSON_CreateArray()));
    if (cJSON_GetArraySize(arr) < PK_NAMES_MAX) crawl__jpush(arr, cJSON_CreateString(value));
    free(key);
  }
  free(v);
}

/* ---- evidence files: accessibility records and screenshots ------------------
 * A state line's accessibilityRef (DIR/accessibility/<id>.json, the AX facts
 * its graph was built from) and screenshotRef are evidence of their own:
 * refIds ax_<stateId> and shot_<stateId> in the evidenceIndex. */
static const char *ax_ref_path(pk *b, const char *state_id) {
  const pk_state *st = pk_state_of(b, state_id);
  return st ? crawl__str(st->line, "accessibilityRef") : NULL;
}

static char *ax_ref_id(const char *state_id) { return crawl__xprintf("ax_%s", state_id); }

/* ev cites accessibility records: an "accessibility" entry that names a
 * state with a record names the record; with none, the record of the
 * first state (natural order) in states that has one. */
static void ev_accessibility(pk *b, cJSON *ev, const strset *states) {
  int cited = 0;
  cJSON *e;
  cJSON_ArrayForEach(e, ev) {
    const char *src = crawl__str(e, "source"), *ref = crawl__str(e, "refId");
    if (!src || strcmp(src, "accessibility")) continue;
    cited = 1;
    if (ax_ref_path(b, ref)) {
      char *id = ax_ref_id(ref);
      cJSON_ReplaceItemInObjectCaseSensitive(e, "refId", crawl__jx(cJSON_CreateString(id)));
      free(id);
    }
  }
  if (cited || !states || !states->n) return;
  char **v = pk_strset_sorted(states, pk_cmp_nat);
  for (size_t i = 0; i < states->n; i++)
    if (ax_ref_path(b, v[i])) {
      char *id = ax_ref_id(v[i]);
      pk_ev_push(ev, "accessibility", id, NULL);
      free(id);
      break;
    }
  free(v);
}

/* A state's own files as evidence: its accessibility record, its screenshot. */
void pk_ev_state_files(cJSON *ev, const pk_state *st) {
  if (crawl__str(st->line, "accessibilityRef")) {
    char *id = ax_ref_id(st->id);
    pk_ev_push(ev, "accessibility", id, NULL);
    free(id);
  }
  if (crawl__str(st->line, "screenshotRef")) {
    char *id = crawl__xprintf("shot_%s", st->id);
    pk_ev_push(ev, "screenshot", id, "a supplementary record, not a source of semantics");
    free(id);
  }
}

/* evidenceIndex entries for the states' files, into v (room for 2 per state). */
size_t pk_evidence_files(const pk *b, cJSON **v, size_t n) {
  static const struct { const char *key, *prefix, *source; } files[] = {
    {"accessibilityRef", "ax_", "accessibility"}, {"screenshotRef", "shot_", "screenshot"}};
  for (size_t i = 0; i < b->state_ids.n; i++)
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
      const pk_state *st = &b->states[i];
      const char *path = crawl__str(st->line, files[f].key);
      if (!path) continue;
      cJSON *o = crawl__jx(cJSON_CreateObject());
      char *id = crawl__xprintf("%s%s", files[f].prefix, st->id);
      crawl__jstr(o, "refId", id);
      free(id);
      crawl__jstr(o, "source", files[f].source);
      crawl__jstr(o, "path", path);
      crawl__jstr(o, "stateId", st->id);
      v[n++] = o;
    }
  return n;
}

cJSON *pk_out_routes(pk *b, conf_sum *cs) {
  cJSON *routes = crawl__jx(cJSON_CreateArray());
  char **ids = pk_strset_sorted(&b->route_ids, pk_cmp_nat);
  for (size_t i = 0; i < b->route_ids.n; i++) {
    pk_route *rt = &b->routes[pk_strset_find(&b->route_ids, ids[i])];
    cJSON *o = crawl__jx(cJSON_CreateObject());
    crawl__jstr(o, "routeId", rt->id);
    pk_jset_list(o, "urls", &rt->urls, PK_NAMES_MAX);
    pk_jset_list(o, "titles", &rt->titles, PK_NAMES_MAX);
    pk_jset_list(o, "scopes", &rt->scopes, 0);
    cJSON *ev = crawl__jx(cJSON_CreateArray());
    if (rt->annot_states.n) pk_ev_push(ev, "annotation", rt->annot_states.v[0], "the page names this route");
    if (rt->router_states.n) pk_ev_push(ev, "app_registry", rt->router_states.v[0], "the app's router names this route");
    pk_ev_push_set(ev, "dom", rt->states.n ? &rt->states : &rt->folded_into);
    strset tr = {0};
    pk_strset_addall(&tr, &rt->entry_tr);
    pk_strset_addall(&tr, &rt->landed_tr);
    pk_ev_push_set(ev, "transition", &tr);
    pk_strset_free(&tr);
    if (!rt->loaded && rt->states.n) pk_ev_push(ev, "inferred", rt->states.v[0], "no page graph could be read");
    ev_accessibility(b, ev, rt->states.n ? &rt->states : &rt->folded_into);
    crawl__jset(o, "discoveredBy", ev);
    /* 7.3: annotation, the app's router or several states: high; one state,
     * or visited but folded into an equal state of another route: medium;
     * no graph: low */
    int named = rt->annot_states.n || rt->router_states.n;
    crawl__jstr(o, "confidence", conf(cs, !rt->states.n ? 1 : !rt->loaded ? 0 : named || rt->states.n > 1 ? 2 : 1));
    pk_jset_list(o, "entryActions", &rt->entry_actions, 0);
    if (rt->exit_signals.n) crawl__jset(o, "exitSignals", pk_strset_json_objects(&rt->exit_signals));
    cJSON *m = crawl__jx(cJSON_CreateObject());
    pk_jnum(m, "states", (double)rt->states.n);
    pk_jnum(m, "transitionsFrom", rt->explored);
    route_observed_meta(rt, m);
    pk_jset_list(m, "templates", &rt->templates, 0);
    pk_jset_list(m, "foldedInto", &rt->folded_into, 0);
    principals_meta(b, &rt->states, m);
    crawl__jset(o, "metadata", m);
    crawl__jpush(routes, o);
  }
  free(ids);
  return routes;
}

cJSON *pk_out_scopes(pk *b, conf_sum *cs) {
  cJSON *arr = crawl__jx(cJSON_CreateArray());
  char **ids = pk_strset_sorted(&b->scope_ids, pk_cmp_nat);
  for (size_t i = 0; i < b->scope_ids.n; i++) {
    pk_scope *sc = pk_scope_by_id(b, ids[i]);
    cJSON *o = crawl__jx(cJSON_CreateObject());
    crawl__jstr(o, "scopeId", sc->id);
    crawl__jstr(o, "kind", sc->kind);
    pk_jset_list(o, "routeIds", &sc->routes, 0);
    crawl__jstr(o, "parentScopeId", sc->parent);
    if (sc->names.n) crawl__jset(o, "names", names_json(&sc->names));
    pk_jset_list(o, "stableIds", &sc->stable_ids, 0);
    cJSON *ev = crawl__jx(cJSON_CreateArray());
    char **st = pk_strset_sorted(&sc->states, pk_cmp_nat);
    pk_ev_push(ev, sc->has_stable ? "annotation" : "dom", st[0], NULL);
    free(st);
    ev_accessibility(b, ev, &sc->states);
    crawl__jset(o, "discoveredBy", ev);
    /* stableId: high; a named scope or a route/dialog/form landmark: medium; else low */
    int named = sc->names.n > 0;
    int landmark = !strcmp(sc->kind, "route") || !strcmp(sc->kind, "form") || !strcmp(sc->kind, "dialog") ||
                   !strcmp(sc->kind, "iframe-root");
    crawl__jstr(o, "confidence", conf(cs, sc->has_stable ? 2 : named || landmark ? 1 : 0));
    cJSON *m = crawl__jx(cJSON_CreateObject());
    pk_jnum(m, "occurrences", (double)sc->occurrences);
    pk_jnum(m, "states", (double)sc->states.n);
    crawl__jset(o, "metadata", m);
    crawl__jpush(arr, o);
  }
  free(ids);
  return arr;
}

/* Names: raw names, except that names differing only in digits or
 * whitespace (a counter, a clock) are published once, digits as "#". */
static cJSON *names_json(const strset *raw) {
  strset masks = {0}, out = {0};
  long *cnt = NULL;
  char **first = NULL;
  char **v = pk_strset_sorted(raw, pk_cmp_nat);
  for (size_t i = 0; i < raw->n; i++) {
    char *m = pk_norm(v[i], 0);
    int added;
    long k = pk_strset_put(&masks, m, &added);
    free(m);
    cnt = crawl__xrealloc(cnt, masks.cap * sizeof *cnt);
    first = crawl__xrealloc(first, masks.cap * sizeof *first);
    if (added) { cnt[k] = 0; first[k] = v[i]; }
    cnt[k]++;
  }
  for (size_t k = 0; k < masks.n; k++) pk_strset_add(&out, cnt[k] == 1 ? first[k] : masks.v[k]);
  cJSON *a = pk_strset_json(&out, PK_NAMES_MAX);
  pk_strset_free(&masks);
  pk_strset_free(&out);
  free(cnt);
  free(first);
  free(v);
  return a;
}

static int cmp_affordance(const void *x, const void *y) {
  const char *a = *(const char *const *)x, *b = *(const char *const *)y;
  int ia = pk_index(pk_affordance_order, PK_COUNT(pk_affordance_order), a);
  int ib = pk_index(pk_affordance_order, PK_COUNT(pk_affordance_order), b);
  if (ia < 0) ia = 1000;
  if (ib < 0) ib = 1000;
  return ia != ib ? ia - ib : strcmp(a, b);
}

cJSON *pk_out_elements(pk *b, conf_sum *cs) {
  cJSON *arr = crawl__jx(cJSON_CreateArray());
  /* order: stableId elements by stableId, then the rest by semanticKey */
  char **keys = pk_strset_sorted(&b->element_keys, pk_cmp_nat);
  for (size_t i = 0; i < b->element_keys.n; i++) {
    pk_element *el = &b->elements[pk_strset_find(&b->element_keys, keys[i])];
    cJSON *o = crawl__jx(cJSON_CreateObject());
    crawl__jstr(o, "stableId", el->stable_id);
    crawl__jstr(o, "semanticKey", el->semkey);
    pk_jset_list(o, "routes", &el->routes, 0);
    pk_jset_list(o, "scopes", &el->scopes, 0);
    crawl__jstr(o, "role", el->role);
    if (el->names.n) crawl__jset(o, "names", names_json(&el->names));
    pk_jset_list(o, "meanings", &el->meanings, 0);
    if (el->state_keys) {
      cJSON *sk = crawl__jx(cJSON_CreateArray());
      for (size_t k = 0; k < PK_COUNT(pk_state_keys); k++)
        if (el->state_keys >> k & 1u) crawl__jpush(sk, cJSON_CreateString(pk_state_keys[k]));
      crawl__jset(o, "stateKeys", sk);
    }
    if (el->affordances.n) {
      cJSON *af = crawl__jx(cJSON_CreateArray());
      char **v = pk_strset_sorted(&el->affordances, cmp_affordance);
      for (size_t k = 0; k < el->affordances.n; k++) crawl__jpush(af, cJSON_CreateString(v[k]));
      free(v);
      crawl__jset(o, "affordances", af);
    }
    pk_jset_list(o, "supportedActions", &el->actions, 0);
    int level = el->risk_annot > el->risk_policy ? el->risk_annot : el->risk_policy;
    if (level) {
      cJSON *r = crawl__jx(cJSON_CreateObject());
      crawl__jstr(r, "level", pk_risk_names[level]);
      pk_jset_list(r, "tags", &el->risk_tags, 0);
      crawl__jstr(r, "reason", el->risk_annot >= el->risk_policy ? "data-uiap-risk" : el->risk_reason);
      crawl__jset(o, "risk", r);
    }
    pk_jset_list(o, "dataClasses", &el->data_classes, 0);
    cJSON *ev = crawl__jx(cJSON_CreateArray());
    strset seen = {0};
    for (size_t k = 0; k < PK_NSOURCES; k++) {
      if (!el->src_state[k]) continue;
      char *pair = crawl__xprintf("%s\x1f%s", pk_source_map[k].evidence, el->src_state[k]);
      int added;
      pk_strset_put(&seen, pair, &added);
      free(pair);
      if (added) pk_ev_push(ev, pk_source_map[k].evidence, el->src_state[k], NULL);
    }
    pk_strset_free(&seen);
    if (!cJSON_GetArraySize(ev)) pk_ev_push(ev, "dom", el->states.v[0], NULL);
    pk_ev_push_set(ev, "transition", &el->transitions);
    ev_accessibility(b, ev, &el->states);
    crawl__jset(o, "discoveredBy", ev);
    int annotated = el->src_state[0] || el->src_state[1] || el->stable_id;
    int sem_kinds = 0;
    for (size_t k = 2; k + 1 < PK_NSOURCES; k++) sem_kinds += el->src_state[k] != NULL;
    /* 7.3: annotation or repeated successful use: high; heuristics only: low;
     * one successful use or several semantic indicators: medium */
    int c = annotated || el->acted_ok >= 2 ? 2 : el->inferred_only ? 0 : el->acted_ok || sem_kinds >= 2 ? 1 : 0;
    crawl__jstr(o, "confidence", conf(cs, c));
    /* never "verified": that is a reviewer's word (crawl_reviewed_apply) */
    crawl__jstr(o, "reviewState", el->inferred_only ? "needs_review" : "candidate");
    cJSON *m = crawl__jx(cJSON_CreateObject());
    pk_jnum(m, "occurrences", (double)el->occurrences);
    pk_jnum(m, "states", (double)el->states.n);
    if (el->acted) pk_jnum(m, "actedOn", el->acted);
    if (el->failures) pk_jnum(m, "failures", el->failures);
    principals_meta(b, &el->states, m);
    crawl__jset(o, "metadata", m);
    crawl__jpush(arr, pk_park(b, o));
  }
  free(keys);
  return arr;
}

/* Target patterns: primitives by role (plus stableId targets acted on);
 * domain actions by every element that carries them. */
static void action_patterns(cJSON *o, const pk_action *ac) {
  strset pats = {0};
  pk_strset_addall(&pats, &ac->patterns);
  if (ac->primitive)
    for (size_t k = 0; k < ac->roles.n; k++) {
      cJSON *p = crawl__jx(cJSON_CreateObject());
      crawl__jstr(p, "role", ac->roles.v[k]);
      char *t = crawl__jtext(p, 0);
      pk_strset_add(&pats, t);
      free(t);
      cJSON_Delete(p);
    }
  if (pats.n) crawl__jset(o, "targetPatterns", pk_strset_json_objects(&pats));
  pk_strset_free(&pats);
}

/* A primitive's arguments (pk_action_args). */
static void action_arguments(cJSON *o, const pk_action *ac) {
  for (size_t k = 0; k < PK_COUNT(pk_action_args); k++)
    if (!strcmp(pk_action_args[k].action, ac->id)) {
      cJSON *args = crawl__jx(cJSON_CreateArray()), *a = crawl__jx(cJSON_CreateObject());
      crawl__jstr(a, "name", pk_action_args[k].name);
      crawl__jstr(a, "type", pk_action_args[k].type);
      crawl__jset(a, "required", cJSON_CreateTrue());
      crawl__jpush(args, a);
      crawl__jset(o, "args", args);
    }
}

/* The most severe side effect class seen, or NULL. */
static const char *action_worst_class(const pk_action *ac) {
  const char *worst = NULL;
  for (size_t k = 0; k < ac->classes.n; k++)
    if (!worst || pk_se_rank(ac->classes.v[k]) > pk_se_rank(worst)) worst = ac->classes.v[k];
  return worst;
}

/* Risk level and *reason (static or owned by ac): a primitive by what the
 * gate did to its targets; a domain action by annotation, gate and the
 * worst side effect seen. */
static int action_risk_level(const pk_action *ac, const char *worst, const char **reason) {
  int level = RISK_NONE;
  *reason = NULL;
  if (ac->primitive) {
    if (ac->denied || ac->reviewed) {
      level = RISK_CONFIRM;
      *reason = "target-dependent: the safety gate held some targets back";
    } else if (ac->executed) level = RISK_SAFE;
    return level;
  }
  level = ac->risk_annot;
  if (level) *reason = "data-uiap-risk";
  int gate = ac->denied ? RISK_BLOCKED : ac->reviewed ? RISK_CONFIRM : RISK_NONE;
  if (gate > level) { level = gate; *reason = ac->gate_reason; }
  if (level < RISK_CONFIRM && worst && (pk_se_dangerous(worst) || !strcmp(worst, "unknown"))) {
    level = RISK_CONFIRM;
    *reason = "side effect";
  }
  if (level == RISK_NONE && ac->executed) level = RISK_SAFE;
  return level;
}

static void action_risk(cJSON *o, const pk_action *ac, const char *worst) {
  const char *reason;
  int level = action_risk_level(ac, worst, &reason);
  if (!level) return;
  strset tags = {0};
  for (size_t k = 0; k < ac->classes.n; k++)
    if (pk_se_dangerous(ac->classes.v[k])) pk_strset_add(&tags, ac->classes.v[k]);
  cJSON *r = crawl__jx(cJSON_CreateObject());
  crawl__jstr(r, "level", pk_risk_names[level]);
  pk_jset_list(r, "tags", &tags, 0);
  crawl__jstr(r, "reason", reason);
  crawl__jset(o, "risk", r);
  pk_strset_free(&tags);
}

static cJSON *action_evidence(const pk *b, const pk_action *ac) {
  cJSON *ev = crawl__jx(cJSON_CreateArray());
  if (ac->states.n) {
    char **st = pk_strset_sorted(&ac->states, pk_cmp_nat);
    pk_ev_push(ev, ac->annotated ? "annotation" : "dom", st[0], NULL);
    free(st);
  }
  pk_ev_push_set(ev, "transition", &ac->transitions);
  pk_api_cite_action(b->api, ac->id, ev); /* the endpoints its clicks called, or would have written */
  if (!cJSON_GetArraySize(ev)) pk_ev_push(ev, "inferred", ac->id, "named only by a safety decision or a failure");
  return ev;
}

/* The crawler's strongest word is "candidate" (with its confidence);
 * "verified" comes from a reviewer only (crawl_reviewed_apply). */
static const char *action_review_state(const pk_action *ac) {
  if (!ac->primitive) return ac->denied ? "unsafe" : "candidate";
  return ac->denied && !ac->executed ? "unsafe" : "candidate";
}

static cJSON *action_metadata(const pk_action *ac) {
  cJSON *m = crawl__jx(cJSON_CreateObject());
  pk_jnum(m, "executed", ac->executed);
  pk_jnum(m, "denied", ac->denied);
  pk_jnum(m, "reviewed", ac->reviewed);
  pk_jnum(m, "skipped", ac->skipped);
  pk_jnum(m, "failed", ac->failed);
  if (ac->classes.n) {
    cJSON *cl = crawl__jx(cJSON_CreateArray());
    for (size_t k = 0; k < PK_COUNT(pk_side_effects); k++)
      if (pk_strset_find(&ac->classes, pk_side_effects[k].name) >= 0) crawl__jpush(cl, cJSON_CreateString(pk_side_effects[k].name));
    crawl__jset(m, "sideEffectClasses", cl);
  }
  return m;
}

static cJSON *out_action(const pk *b, const pk_action *ac, conf_sum *cs) {
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "id", ac->id);
  crawl__jstr(o, "kind", ac->primitive ? "primitive" : "domain");
  action_patterns(o, ac);
  pk_jset_list(o, "routes", &ac->routes, 0);
  pk_jset_list(o, "scopes", &ac->scopes, 0);
  action_arguments(o, ac);
  /* side effect: the most severe seen for a domain action; for a primitive
   * only when every use agreed (its effect depends on the target) */
  const char *worst = action_worst_class(ac);
  action_risk(o, ac, worst);
  crawl__jstr(o, "sideEffectClass", ac->primitive ? (ac->classes.n == 1 ? worst : NULL) : worst);
  if (ac->signals.n) crawl__jset(o, "successSignals", pk_strset_json_objects(&ac->signals));
  crawl__jset(o, "discoveredBy", action_evidence(b, ac));
  /* 7.3: annotation or repeated use with signals: high; one use or native
   * semantics: medium; otherwise low */
  int c = ac->annotated || ac->executed_signal >= 2 ? 2 : ac->executed || ac->native ? 1 : 0;
  crawl__jstr(o, "confidence", conf(cs, c));
  crawl__jstr(o, "reviewState", action_review_state(ac));
  cJSON *am = action_metadata(ac);
  principals_meta(b, &ac->states, am);
  crawl__jset(o, "metadata", am);
  return o;
}

cJSON *pk_out_actions(pk *b, conf_sum *cs) {
  cJSON *arr = crawl__jx(cJSON_CreateArray());
  char **ids = pk_strset_sorted(&b->action_ids, pk_cmp_nat);
  for (size_t i = 0; i < b->action_ids.n; i++)
    crawl__jpush(arr, out_action(b, &b->actions[pk_strset_find(&b->action_ids, ids[i])], cs));
  free(ids);
  return arr;
}

/* ---- beside package.json: api.json and the files made from it ------------------------ */
/* DIR/access.json (a principals run) gets "endpoints": api.json's
 * accessDifferences (docs/api.md); other members are left as they are. */
static int access_endpoints_write(const char *dir, const cJSON *api, char *err, size_t errlen) {
  char *path = crawl__xprintf("%s/access.json", dir);
  int e = 0;
  if (access(path, F_OK) == 0) {
    char lerr[256];
    cJSON *acc = crawl__json_load(path, lerr, sizeof lerr);
    if (cJSON_IsObject(acc)) {
      cJSON_DeleteItemFromObjectCaseSensitive(acc, "endpoints");
      const cJSON *d = crawl__get(api, "accessDifferences");
      crawl__jset(acc, "endpoints", crawl__jx(d ? cJSON_Duplicate(d, 1) : cJSON_CreateArray()));
      char *t = crawl__jtext(acc, 1);
      e = crawl__file_write(path, t, strlen(t));
      if (e) snprintf(err, errlen, "%s: %s", path, strerror(e));
      free(t);
    }
    cJSON_Delete(acc);
  }
  free(path);
  return e;
}

int pk_api_files_write(const char *dir, const cJSON *api, char *err, size_t errlen) {
  if (!api) return 0;
  char *path = crawl__xprintf("%s/api.json", dir), *t = crawl__jtext(api, 1);
  size_t len = strlen(t);
  t = crawl__xrealloc(t, len + 2);
  t[len++] = '\n';
  t[len] = 0;
  int e = crawl__file_write(path, t, len);
  if (e) snprintf(err, errlen, "%s: %s", path, strerror(e));
  free(t);
  free(path);
  if (!e) e = access_endpoints_write(dir, api, err, errlen);
  /* after api.json: the exports (OpenAPI, HAR) are written here */
  return e;
}

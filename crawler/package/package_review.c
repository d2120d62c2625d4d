/* package_review.c -- the review queue, first half: the journal's own review
 * items, and the items derived from routes (missing ids, unexplored,
 * unstable, closed shadow), inferred-only elements, ambiguous and gated
 * records and unsafe action candidates. The behaviour checks, sensitive
 * flows, seed coverage and the order of all items are package_review_seen.c.
 */
#include "pkg_int.h"
/* ---- review queue ------------------------------------------------------------------ */
static const char *ref_target_label(const pk_ref *rf, char *buf, size_t n) {
  const cJSON *t = crawl__get(rf->line, "target");
  const char *role = crawl__str(t, "role"), *name = crawl__str(t, "name"), *stable = crawl__str(t, "stableId");
  if (stable) snprintf(buf, n, "%s \"%s\" (%s)", role ? role : "element", name ? name : "", stable);
  else snprintf(buf, n, "%s \"%s\"", role ? role : "element", name ? name : "");
  return buf;
}

/* What identifies a review record's target across runs (its role, name,
 * stable id, scope key and ordinal; caller frees): not its scopeId or
 * documentId, which are capture-local ("sc_155") and made every item's id
 * differ between two crawls of the same app. */
static char *target_identity(const cJSON *t) {
  if (!cJSON_IsObject(t)) return crawl__xstrdup("");
  const cJSON *o = crawl__get(t, "ordinal");
  return crawl__xprintf("%s\x1e%s\x1e%s\x1e%s\x1e%d", crawl__str(t, "role") ?: "", crawl__str(t, "name") ?: "",
                        crawl__str(t, "stableId") ?: "", crawl__str(t, "scopeKey") ?: "",
                        cJSON_IsNumber(o) ? o->valueint : -1);
}

/* The journal's own findings, as written (a replay that landed elsewhere
 * also counts as an unresolved transition). */
void pk_review_journal(pk *b) {
  for (size_t i = 0; i < b->nreviews; i++) {
    const cJSON *j = b->reviews[i];
    const char *kind = crawl__str(j, "kind"), *sev = crawl__str(j, "severity"), *desc = crawl__str(j, "description");
    int k = pk_index(pk_review_kinds, PK_COUNT(pk_review_kinds), kind);
    kind = pk_review_kinds[k >= 0 ? k : (int)PK_COUNT(pk_review_kinds) - 1];
    int s = pk_severity_rank(sev);
    const cJSON *t = crawl__get(j, "target");
    char *tt = target_identity(t);
    const char *sid = crawl__str(j, "stateId"), *rid = crawl__str(j, "routeId");
    char *key = crawl__xprintf("journal\x1f%s\x1f%s\x1f%s\x1f%s", sid ? sid : "", rid ? rid : "", desc, tt);
    free(tt);
    const pk_state *st = pk_state_of(b, crawl__str(j, "stateId"));
    const char *route = crawl__str(j, "routeId") ? crawl__str(j, "routeId") : st ? st->route : NULL;
    pk_item *it = pk_item_get(b, kind, key, s >= 0 ? s : 1, route);
    free(key);
    pk_item_set(&it->stable, crawl__str(t, "stableId"));
    pk_strset_add(&it->ev_states, crawl__str(j, "stateId"));
    pk_strset_add(&it->ev_transitions, crawl__str(j, "transitionId"));
    pk_item_text(it, crawl__xstrdup(desc), crawl__str(j, "remediation") ? crawl__xstrdup(crawl__str(j, "remediation")) : NULL);
    char *low = pk_norm(desc, 1);
    if (cJSON_IsTrue(crawl__get(j, "replay")) || strstr(low, "replay")) b->nreplays++;
    free(low);
  }
}

/* The first PK_LIST_NAMES names in natural order, quoted and comma
 * separated (caller frees). */
char *pk_quoted_list(const strset *names) {
  char **v = pk_strset_sorted(names, pk_cmp_nat);
  size_t len = 0, cap = 256;
  char *list = crawl__xrealloc(NULL, cap);
  list[0] = 0;
  for (size_t k = 0; k < names->n && k < PK_LIST_NAMES; k++) {
    size_t need = len + strlen(v[k]) + 8;
    if (need > cap) list = crawl__xrealloc(list, cap = need * 2);
    len += (size_t)sprintf(list + len, "%s\"%s\"", k ? ", " : "", v[k]);
  }
  free(v);
  return list;
}

/* missing_stable_id: the route's interactive elements without a stableId. */
static void route_missing_ids(pk *b, pk_route *rt) {
  strset names = {0};
  long count = 0;
  for (size_t e = 0; e < b->element_keys.n; e++) {
    pk_element *el = &b->elements[e];
    if (el->stable_id || !el->interactive || pk_strset_find(&el->routes, rt->id) < 0) continue;
    count++;
    if (el->names.n) pk_strset_add(&names, pk_strset_min(&el->names));
    else {
      char *n = crawl__xprintf("(unnamed %s)", el->role);
      pk_strset_add(&names, n);
      free(n);
    }
  }
  if (count) {
    pk_item *it = pk_item_get(b, "missing_stable_id", rt->id, 0, rt->id);
    it->count = count;
    pk_strset_addall(&it->ev_states, &rt->states);
    char *list = pk_quoted_list(&names);
    pk_item_text(it, crawl__xprintf("%ld interactive element%s on route %s ha%s no data-uiap-id: %s%s.", count,
                                    count == 1 ? "" : "s", rt->id, count == 1 ? "s" : "ve", list,
                                    names.n > PK_LIST_NAMES ? ", ..." : ""),
                 crawl__xprintf("Add data-uiap-id to %s so agents can address %s independent of text and position.",
                                count == 1 ? "this control" : "these controls", count == 1 ? "it" : "them"));
    free(list);
  }
  pk_strset_free(&names);
}

/* coverage_gap: a route no action was explored from. */
static void route_unexplored(pk *b, pk_route *rt) {
  if (rt->explored || !rt->states.n) return; /* folded: explored as the state it showed */
  pk_item *it = pk_item_get(b, "coverage_gap", rt->id, 1, rt->id);
  pk_strset_addall(&it->ev_states, &rt->states);
  pk_item_text(it, crawl__xprintf("Route %s was captured in %zu state%s but no action was explored from it.", rt->id,
                                  rt->states.n, rt->states.n == 1 ? "" : "s"),
               crawl__xstrdup("Raise the budget (maxStates, maxTransitions, maxPerRoute, maxDepth) or seed this route directly."));
}

/* missing_stable_id (mapper 16: "a route without stable identity"): a
 * route neither a page (data-uiap-route) nor the app's router names, whose id is a template the crawler
 * derived from URLs that differ in their parameters. A route at one fixed
 * URL has a stable URL structure (15.1) and no item. */
static void route_unstable(pk *b, pk_route *rt) {
  strset names = {0}, values = {0};
  for (size_t i = 0; i < rt->observed.n; i++) {
    if (rt->observed.v[i][0] != 'p') continue;
    const char *name = rt->observed.v[i] + 2, *value = strchr(name, '\x1f');
    char *n = crawl__xstrndup(name, (size_t)(value - name));
    pk_strset_add(&names, n);
    free(n);
    pk_strset_add(&values, value + 1);
  }
  if (!rt->annot_states.n && !rt->router_states.n && names.n) {
    char *key = crawl__xprintf("route\x1f%s", rt->id);
    pk_item *it = pk_item_get(b, "missing_stable_id", key, 0, rt->id);
    free(key);
    pk_strset_addall(&it->ev_states, rt->states.n ? &rt->states : &rt->folded_into);
    pk_strset_addall(&it->ev_transitions, &rt->landed_tr);
    char *nl = pk_quoted_list(&names), *vl = pk_quoted_list(&values);
    pk_item_text(it, crawl__xprintf("Route %s has no stable identity: no page names it (data-uiap-route); its id is a "
                                    "template the crawler derived from %zu URL%s that differ in %s (%s%s).",
                                    rt->id, rt->urls.n, rt->urls.n == 1 ? "" : "s", nl, vl, values.n > PK_LIST_NAMES ? ", ..." : ""),
                 crawl__xstrdup("Name the route on the page (data-uiap-route on its root element) so agents address it "
                                "independent of its URL, or confirm the template."));
    free(nl);
    free(vl);
  }
  pk_strset_free(&names);
  pk_strset_free(&values);
}

/* closed_shadow: the route's item (pk_fold_state_findings) gets its text. */
static void route_closed_shadow(pk *b, pk_route *rt) {
  char *ck = crawl__xprintf("closed_shadow\x1f%s", rt->id);
  long ci = pk_strset_find(&b->item_keys, ck);
  free(ck);
  if (ci < 0) return;
  pk_item *it = &b->items[ci];
  pk_item_text(it, crawl__xprintf("%ld closed shadow root%s on route %s hide%s %s content from discovery.", it->count,
                                  it->count == 1 ? "" : "s", rt->id, it->count == 1 ? "s" : "", it->count == 1 ? "its" : "their"),
               crawl__xstrdup("Use an open shadow root for app controls, or annotate the host with data-uiap-* attributes."));
}

/* Per route: missing stableIds, unexplored routes, closed shadow roots,
 * and the opaque regions they add up to. */
void pk_review_routes(pk *b) {
  for (size_t r = 0; r < b->route_ids.n; r++) {
    pk_route *rt = &b->routes[r];
    route_missing_ids(b, rt);
    route_unexplored(b, rt);
    route_unstable(b, rt);
    route_closed_shadow(b, rt);
    b->opaque_regions += (int)rt->opaque_origins.n + rt->closed_shadow;
  }
}

/* inferred_only: elements recognised by heuristics alone. */
void pk_review_inferred(pk *b) {
  for (size_t e = 0; e < b->element_keys.n; e++) {
    pk_element *el = &b->elements[e];
    if (!el->inferred_only) continue;
    int act = 0;
    for (size_t k = 0; k < el->actions.n; k++) act |= PK_IN(pk_activating_actions, el->actions.v[k]);
    const char *route = pk_strset_min(&el->routes), *name = pk_strset_min(&el->names);
    pk_item *it = pk_item_get(b, "inferred_only", el->key, act ? 1 : 0, route);
    pk_strset_addall(&it->ev_states, &el->states);
    pk_item_set(&it->scope, pk_strset_min(&el->scopes));
    pk_item_text(it, crawl__xprintf("The %s%s%s%s on route %s was recognised only by heuristics (a clickable element without role, label or text evidence).",
                                    el->role, name ? " \"" : "", name ? name : "", name ? "\"" : "",
                                    route ? route : "?"),
                 crawl__xstrdup("Use a native control (button, a href) or give it an ARIA role and an accessible name, plus a data-uiap-id."));
  }
}

/* ambiguous_target: a record whose target was told apart only by position. */
static void record_ambiguous(pk *b, const pk_ref *rf, const pk_state *st) {
  const cJSON *j = rf->line, *t = crawl__get(j, "target");
  const char *route = st ? st->route : NULL;
  char label[600];
  char *nn = pk_norm(crawl__str(t, "name"), 1);
  char *key = crawl__xprintf("%s\x1f%s\x1f%s", route ? route : "", crawl__str(t, "role"), nn);
  free(nn);
  pk_item *it = pk_item_get(b, "ambiguous_target", key, 1, route);
  free(key);
  pk_item_set(&it->scope, rf->scope);
  pk_strset_add(&it->ev_states, st ? st->id : NULL);
  pk_strset_add(&it->ev_transitions, crawl__str(j, "transitionId"));
  if (rf->same_name > it->count) it->count = rf->same_name;
  pk_item_text(it, crawl__xprintf("The target %s on route %s matched %ld elements and was told apart only by its position.",
                                  ref_target_label(rf, label, sizeof label), route ? route : "?", rf->same_name),
               crawl__xstrdup("Give each of these elements a data-uiap-id or a distinct accessible name."));
}

/* unsafe_action_candidate: a decision record that denied an action or held
 * it for review (high when denied with a dangerous side effect). */
static void record_gated(pk *b, const pk_ref *rf, const pk_state *st) {
  const cJSON *j = rf->line, *t = crawl__get(j, "target");
  const char *route = st ? st->route : NULL, *effect = crawl__str(j, "effect");
  if (!effect || (strcmp(effect, "deny") && strcmp(effect, "review"))) return;
  int deny = !strcmp(effect, "deny");
  const char *aid = crawl__str(j, "actionId"), *se = crawl__str(j, "sideEffectClass");
  const char *tkey = crawl__str(t, "stableId") ? crawl__str(t, "stableId") : rf->semkey ? rf->semkey : crawl__str(t, "name");
  const char *option = crawl__str(crawl__get(j, "args"), "option"); /* ui.choose of a <select> */
  char *key = crawl__xprintf("%s\x1f%s\x1f%s", aid, tkey ? tkey : "", option ? option : "");
  pk_item *it = pk_item_get(b, "unsafe_action_candidate", key, deny && pk_se_dangerous(se) ? 2 : 1, route);
  free(key);
  if (deny && !it->deny) { /* a denial speaks over a hold for review */
    free(it->desc);
    free(it->remedy);
    it->desc = it->remedy = NULL;
  }
  it->deny |= deny;
  pk_item_set(&it->stable, crawl__str(t, "stableId"));
  pk_item_set(&it->scope, rf->scope);
  pk_strset_add(&it->ev_states, st ? st->id : crawl__str(j, "stateId"));
  const char *rs = crawl__str(j, "reason"), *rule = crawl__str(j, "rule");
  const char *why = crawl__str(j, "text"); /* the policy's sentence: "deny: destructive: removes a list item ..." */
  char label[600];
  pk_item_text(it, crawl__xprintf("The safety gate %s %s on %s%s%s%s (reason %s, rule %s, side effect %s)%s%s.",
                                  deny ? "denied" : "held for review", aid, ref_target_label(rf, label, sizeof label),
                                  option ? " (option \"" : "", option ? option : "", option ? "\")" : "",
                                  rs ? rs : "?", rule ? rule : "?", se ? se : "unknown", why ? ": " : "",
                                  why ? why : ""),
               crawl__xstrdup(deny ? "Confirm the classification and annotate the control with data-uiap-risk=\"blocked\" (or \"confirm\") "
                                     "and a data-uiap-action; exercise it only in a sandbox environment."
                                   : "Annotate the control with data-uiap-risk and a data-uiap-action so its side effect is explicit, "
                                     "then decide whether discovery may execute it."));
}

/* Per journal record: ambiguous targets and gated actions. */
void pk_review_records(pk *b) {
  for (size_t i = 0; i < b->nrefs; i++) {
    const pk_ref *rf = &b->refs[i];
    const pk_state *st = rf->state >= 0 ? &b->states[rf->state] : NULL;
    if (rf->ambiguous) record_ambiguous(b, rf, st);
    if (!strcmp(rf->type, "decision")) record_gated(b, rf, st);
  }
}

/* missing_success_signal: a domain action with no signal (section 15.5). */
void pk_review_actions(pk *b) {
  for (size_t a = 0; a < b->action_ids.n; a++) {
    pk_action *ac = &b->actions[a];
    if (ac->primitive || ac->signals.n) continue;
    pk_item *it = pk_item_get(b, "missing_success_signal", ac->id, 1, pk_strset_min(&ac->routes));
    pk_strset_addall(&it->ev_transitions, &ac->transitions);
    if (!ac->transitions.n) pk_strset_addall(&it->ev_states, &ac->states);
    for (size_t k = 0; k < ac->patterns.n && !it->stable; k++) {
      cJSON *p = cJSON_Parse(ac->patterns.v[k]);
      pk_item_set(&it->stable, crawl__str(p, "stableId"));
      cJSON_Delete(p);
    }
    pk_item_text(it, ac->executed
                     ? crawl__xprintf("The domain action %s was executed %d time%s without an observable success signal.", ac->id,
                                      ac->executed, ac->executed == 1 ? "" : "s")
                     : crawl__xprintf("The domain action %s was never executed, so no success signal was observed for it.", ac->id),
                 crawl__xprintf("Declare a success signal for %s (a role=status or toast message, a dialog or route change) or verify it manually.", ac->id));
  }
}

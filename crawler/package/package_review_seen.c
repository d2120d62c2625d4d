/* package_review_seen.c -- review duties on observed behaviour (mapper 15.5, 16):
 * contradictions between a control's role and what it did, silent
 * transitions, sensitive flows, seeds never reached; pk_review_derive runs
 * every review step in order, and pk_cmp_item orders the items.
 */
#include "pkg_int.h"
/* ---- review duties on observed behaviour (mapper 15.5, 16) ---------------------------- */
/* What a transition record observed, for the checks below. */
typedef struct pk_seen {
  const pk_ref *rf;
  const pk_state *from, *to;
  const pk_element *el;           /* its element in the catalog, or NULL */
  const char *role, *action;
  int self_loop, nsignals, dialog_opened;
} pk_seen;

static int seen_route_changed(const pk_seen *s) {
  return s->from && s->to && s->from->route && s->to->route && strcmp(s->from->route, s->to->route);
}

static const char *const toggle_roles[] = {"checkbox", "switch", "menuitemcheckbox"};

/* A button that leaves its route (a submit button may: a form's result is a page). */
static int button_navigates(const pk_seen *s) {
  return !strcmp(s->role, "button") && seen_route_changed(s) &&
         !(s->el && pk_strset_find(&s->el->affordances, "submit") >= 0);
}
/* A link that opens a dialog on its own route. */
static int link_opens_dialog(const pk_seen *s) {
  return !strcmp(s->role, "link") && s->dialog_opened && !seen_route_changed(s);
}
/* A toggle (checkbox, switch, aria-pressed) whose use changed nothing. */
static int toggle_does_nothing(const pk_seen *s) {
  int pressed = s->el && (s->el->state_keys >> pk_index(pk_state_keys, PK_COUNT(pk_state_keys), "pressed") & 1u);
  int toggle = !strcmp(s->action, "ui.toggle") || PK_IN(toggle_roles, s->role) || pressed;
  return toggle && s->self_loop && !s->nsignals;
}

/* Semantics that contradict what was observed (mapper 16): the check, what
 * it says (role, name, route) and what to do. */
static const struct {
  const char *id;
  int (*test)(const pk_seen *s);
  const char *says, *remedy;
} contradictions[] = {
  {"button-navigates", button_navigates,
   "The %s \"%s\" on route %s navigated to another route: its role says it acts in place, the app treats it as a link.",
   "Use a link (<a href>) for navigation, or keep the button on its route; then check the mapped transition."},
  {"link-opens-dialog", link_opens_dialog,
   "The %s \"%s\" on route %s opened a dialog without navigating: its role says navigation, the app treats it as a button.",
   "Use a button (with aria-haspopup=\"dialog\") to open dialogs; then check the mapped transition."},
  {"toggle-does-nothing", toggle_does_nothing,
   "The %s \"%s\" on route %s was toggled but nothing observable changed: its semantics promise a state change.",
   "Check that the toggle works and exposes its state (checked / aria-pressed), or remove the toggle semantics."},
};

static void seen_of(pk *b, const pk_ref *rf, pk_seen *s) {
  const cJSON *j = rf->line, *sg;
  memset(s, 0, sizeof *s);
  s->rf = rf;
  s->from = rf->state >= 0 ? &b->states[rf->state] : pk_state_of(b, crawl__str(j, "fromStateId"));
  s->to = pk_state_of(b, crawl__str(j, "toStateId"));
  s->el = rf->element >= 0 ? &b->elements[rf->element] : NULL;
  s->role = crawl__str(crawl__get(j, "target"), "role");
  s->action = crawl__str(j, "viaActionId");
  if (!s->role) s->role = "";
  if (!s->action) s->action = "";
  const char *fid = crawl__str(j, "fromStateId"), *tid = crawl__str(j, "toStateId");
  s->self_loop = cJSON_IsTrue(crawl__get(j, "selfLoop")) || (fid && tid && !strcmp(fid, tid));
  cJSON_ArrayForEach(sg, crawl__get(j, "observedSignals")) {
    const char *k = crawl__str(sg, "kind");
    s->nsignals += PK_IN(pk_signal_kinds, k);
    s->dialog_opened |= k && !strcmp(k, "dialog.opened");
  }
}

static void contradiction_item(pk *b, const pk_seen *s, size_t c) {
  const char *route = s->from ? s->from->route : NULL, *name = crawl__str(crawl__get(s->rf->line, "target"), "name");
  const char *tkey = crawl__str(crawl__get(s->rf->line, "target"), "stableId");
  if (!tkey) tkey = s->rf->semkey ? s->rf->semkey : name;
  char *key = crawl__xprintf("contradiction\x1f%s\x1f%s\x1f%s", contradictions[c].id, route ? route : "", tkey ? tkey : "");
  pk_item *it = pk_item_get(b, "custom", key, 1, route);
  free(key);
  pk_item_set(&it->stable, crawl__str(crawl__get(s->rf->line, "target"), "stableId"));
  pk_item_set(&it->scope, s->rf->scope);
  pk_strset_add(&it->ev_states, s->from ? s->from->id : NULL);
  pk_strset_add(&it->ev_transitions, crawl__str(s->rf->line, "transitionId"));
  pk_item_text(it, crawl__xprintf(contradictions[c].says, s->role, name ? name : "", route ? route : "?"),
               crawl__xstrdup(contradictions[c].remedy));
}

/* Primitive actions whose effect is the target's own state (checked,
 * selected): the new state is their observable signal. */
static const char *const self_evident_actions[] = {"ui.toggle", "ui.choose"};

/* missing_success_signal (15.5): a primitive transition into another state
 * with no observed signal. */
static void silent_transition_item(pk *b, const pk_seen *s) {
  const char *route = s->from ? s->from->route : NULL, *name = crawl__str(crawl__get(s->rf->line, "target"), "name");
  char *key = crawl__xprintf("primitive\x1f%s\x1f%s\x1f%s", s->action, route ? route : "",
                             s->rf->semkey ? s->rf->semkey : name ? name : "");
  pk_item *it = pk_item_get(b, "missing_success_signal", key, 0, route);
  free(key);
  pk_item_set(&it->stable, crawl__str(crawl__get(s->rf->line, "target"), "stableId"));
  pk_item_set(&it->scope, s->rf->scope);
  pk_strset_add(&it->ev_transitions, crawl__str(s->rf->line, "transitionId"));
  pk_item_text(it, crawl__xprintf("%s on %s \"%s\" on route %s led to another state without an observable success signal.",
                                  s->action, s->role, name ? name : "", route ? route : "?"),
               crawl__xstrdup("Give the change an observable signal (a status message, a dialog, a route, a counted list) or verify it manually."));
}

/* Per transition record: contradicting semantics, silent primitive transitions. */
static void review_behaviour(pk *b) {
  for (size_t i = 0; i < b->nrefs; i++) {
    if (strcmp(b->refs[i].type, "transition")) continue;
    pk_seen s;
    seen_of(b, &b->refs[i], &s);
    for (size_t c = 0; c < PK_COUNT(contradictions); c++)
      if (contradictions[c].test(&s)) contradiction_item(b, &s, c);
    if (!s.self_loop && !s.nsignals && s.to && pk_is_primitive(s.action) && !PK_IN(self_evident_actions, s.action))
      silent_transition_item(b, &s);
  }
}

/* Security- and billing-related flows (mapper 16): the side effect class of
 * their controls and the data classes of their fields. */
static const struct {
  const char *what, *side_effect, *data_classes[2];
} sensitive_flows[] = {
  {"security", "security_change", {"credential", "secret"}},
  {"billing", "billing_change", {"payment", NULL}},
};

/* The controls (decision and transition records) and fields of flow f on
 * route rt into names; evidence into it. 1 when one was executed. */
static int flow_touches(pk *b, size_t f, const pk_route *rt, strset *names, pk_item *it) {
  int executed = 0;
  for (size_t i = 0; i < b->nrefs; i++) {
    const pk_ref *rf = &b->refs[i];
    const pk_state *st = rf->state >= 0 ? &b->states[rf->state] : NULL;
    const char *se = crawl__str(rf->line, "sideEffectClass");
    if (!st || !st->route || strcmp(st->route, rt->id) || !se || strcmp(se, sensitive_flows[f].side_effect)) continue;
    if (strcmp(rf->type, "decision") && strcmp(rf->type, "transition")) continue;
    pk_strset_add(names, crawl__str(crawl__get(rf->line, "target"), "name"));
    pk_strset_add(&it->ev_states, st->id);
    if (!strcmp(rf->type, "transition")) {
      executed = 1;
      pk_strset_add(&it->ev_transitions, crawl__str(rf->line, "transitionId"));
    }
  }
  for (size_t e = 0; e < b->element_keys.n; e++) {
    const pk_element *el = &b->elements[e];
    if (pk_strset_find(&el->routes, rt->id) < 0) continue;
    int hit = 0;
    for (size_t k = 0; k < 2 && sensitive_flows[f].data_classes[k]; k++)
      hit |= pk_strset_find(&el->data_classes, sensitive_flows[f].data_classes[k]) >= 0;
    if (!hit) continue;
    pk_strset_add(names, pk_strset_min(&el->names));
    pk_strset_addall(&it->ev_states, &el->states);
  }
  return executed;
}

static void review_sensitive_flows(pk *b) {
  for (size_t r = 0; r < b->route_ids.n; r++) {
    const pk_route *rt = &b->routes[r];
    for (size_t f = 0; f < PK_COUNT(sensitive_flows); f++) {
      pk_item probe = {0};
      strset names = {0};
      int executed = flow_touches(b, f, rt, &names, &probe);
      if (probe.ev_states.n || names.n) {
        char *key = crawl__xprintf("flow\x1f%s\x1f%s", sensitive_flows[f].what, rt->id);
        pk_item *it = pk_item_get(b, "custom", key, executed ? 2 : 1, rt->id);
        free(key);
        pk_strset_addall(&it->ev_states, &probe.ev_states);
        pk_strset_addall(&it->ev_transitions, &probe.ev_transitions);
        char *list = pk_quoted_list(&names);
        pk_item_text(it, crawl__xprintf("A %s-related flow was touched on route %s (%s%s)%s.", sensitive_flows[f].what,
                                        rt->id, list, names.n > PK_LIST_NAMES ? ", ..." : "",
                                        executed ? " and exercised" : ""),
                     crawl__xprintf("Review this %s flow by hand: what discovery mapped for it is a proposal until a person confirms it.",
                                    sensitive_flows[f].what));
        free(list);
      }
      pk_strset_free(&names);
      pk_strset_free(&probe.ev_states);
      pk_strset_free(&probe.ev_transitions);
    }
  }
}

/* The last `seed` line of seed s, or NULL. */
static const cJSON *seed_last_line(const pk *b, int s) {
  const cJSON *last = NULL;
  for (size_t k = 0; k < b->nseed_lines; k++)
    if ((int)crawl__get(b->seed_lines[k], "index")->valuedouble == s) last = b->seed_lines[k];
  return last;
}

/* Whether some state was reached from seed s: a state it entered, or the
 * state its last seed line names (a seed can lead to a state met before). */
int pk_seed_visited(const pk *b, int s) {
  const cJSON *last = seed_last_line(b, s);
  int visited = last && cJSON_IsTrue(crawl__get(last, "resolved")) && crawl__str(last, "stateId") &&
                pk_strset_find(&b->state_ids, crawl__str(last, "stateId")) >= 0;
  for (size_t k = 0; k < b->state_ids.n && !visited; k++) {
    const cJSON *sd = crawl__get(b->states[k].line, "seed");
    visited = cJSON_IsNumber(sd) && (int)sd->valuedouble == s;
  }
  return visited;
}

/* The crawler journals its own review for a seed it could not load: a
 * coverage_gap whose description starts "Seed N ". */
static int seed_reported(const pk *b, int s) {
  int reported = 0;
  for (size_t k = 0; k < b->nreviews && !reported; k++) {
    const char *kk = crawl__str(b->reviews[k], "kind"), *d = crawl__str(b->reviews[k], "description");
    if (!kk || strcmp(kk, "coverage_gap") || (d[0] != 'S' && d[0] != 's') || strncmp(d + 1, "eed ", 4)) continue;
    char *e;
    long v = strtol(d + 5, &e, 10);
    reported = e != d + 5 && v == s && (*e == ' ' || *e == ':' || *e == 0);
  }
  return reported;
}

/* coverage_gap: url/route/documentation seeds never visited, unless the journal already
 * reported them; an unresolved one is also a run note. */
static void review_seeds(pk *b) {
  const cJSON *seeds = crawl__get(b->run, "seeds");
  int nseeds = cJSON_GetArraySize(seeds);
  for (int s = 0; s < nseeds; s++) {
    const cJSON *last = seed_last_line(b, s), *seed = cJSON_GetArrayItem(seeds, s);
    const char *kind = crawl__str(seed, "kind");
    if (pk_seed_visited(b, s) || !kind || (strcmp(kind, "url") && strcmp(kind, "route") && strcmp(kind, "documentation"))) continue;
    const char *what = crawl__str(seed, "url")       ? crawl__str(seed, "url")
                       : crawl__str(seed, "routeId") ? crawl__str(seed, "routeId")
                       : crawl__str(seed, "ref")     ? crawl__str(seed, "ref")
                                                     : kind;
    int unresolved = last && cJSON_IsFalse(crawl__get(last, "resolved"));
    const char *reason = crawl__str(last, "reason") ? crawl__str(last, "reason") : "no reason given";
    if (unresolved) {
      char *n = crawl__xprintf("seed %d (%s) unresolved: %s", s, what, reason);
      pk_note(b, n);
      free(n);
    }
    if (seed_reported(b, s)) continue;
    char *desc = unresolved ? crawl__xprintf("Seed %d (%s) could not be resolved: %s.", s, what, reason)
                            : crawl__xprintf("Seed %d (%s) was not visited.", s, what);
    char *key = crawl__xprintf("seed\x1f%d", s);
    pk_item *it = pk_item_get(b, "coverage_gap", key, unresolved ? 2 : 1, NULL);
    free(key);
    pk_item_text(it, desc, crawl__xstrdup(unresolved ? "Check that the seed is reachable from the crawler and that the environment is signed in."
                                                     : "Raise the budget or check why exploration stopped before this seed."));
  }
}

/* The review queue's sources, in the order they run (sections 6.8, 15.5, 16). */
static const struct {
  const char *what;
  void (*derive)(pk *b);
} review_derivers[] = {
  {"journal review lines (any kind)", pk_review_journal},
  {"missing_stable_id, coverage_gap, closed_shadow per route", pk_review_routes},
  {"inferred_only per element", pk_review_inferred},
  {"ambiguous_target, unsafe_action_candidate per record", pk_review_records},
  {"missing_success_signal per domain action", pk_review_actions},
  {"contradicting semantics, silent primitive transitions per transition", review_behaviour},
  {"security- and billing-related flows per route", review_sensitive_flows},
  {"coverage_gap per unvisited seed", review_seeds},
  {"coverage_gap when most actions failed", pk_review_failed},
};

void pk_review_derive(pk *b) {
  for (size_t i = 0; i < PK_COUNT(review_derivers); i++) review_derivers[i].derive(b);
}

/* Review order: severity (high first), kind, route, key. */
int pk_cmp_item(const void *x, const void *y) {
  const pk_item *a = *(const pk_item *const *)x, *b = *(const pk_item *const *)y;
  if (a->severity != b->severity) return b->severity - a->severity;
  int c = strcmp(a->kind, b->kind);
  if (c) return c;
  c = crawl__natcmp(a->route ? a->route : "", b->route ? b->route : "");
  return c ? c : crawl__natcmp(a->key, b->key);
}

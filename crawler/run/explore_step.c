/* explore_step.c -- one step: action i of state si performed, where it led
 * observed and registered, and its journal lines (the transition with its
 * signals, what the write guard turned away, a failure); per control, how
 * often it changed anything (crawl__run_count_loop, reviewed at the end). */
#include "explore_int.h"

/* ---- the run ------------------------------------------------------------------------- */
void crawl__run_count_loop(run *r, const action *a, int self, int nsignals) {
  char key[1200];
  snprintf(key, sizeof key, "%s|%s|%s", a->action_id, a->role ? a->role : "", a->name ? a->name : "");
  int i = (int)crawl__strmap_get(&r->by_loop, key);
  if (i < 0) {
    i = r->nloops;
    crawl__strmap_put(&r->by_loop, key, i);
    if (r->nloops == r->caploops) {
      r->caploops = r->caploops ? r->caploops * 2 : 32;
      r->loops = crawl__xrealloc(r->loops, (size_t)r->caploops * sizeof *r->loops);
    }
    memset(&r->loops[i], 0, sizeof r->loops[i]);
    r->loops[i].key = crawl__xstrdup(key);
    fr_action_copy(&r->loops[i].a, a);
    r->nloops++;
  }
  if (self) r->loops[i].self++;
  else r->loops[i].moved++;
  r->loops[i].signals += nsignals;
}

/* ---- one step -------------------------------------------------------------------------- */
/* What the page counted before an action: its side effects are the difference. */
typedef struct step_marks {
  int blocked, dialogs, popups, websockets, ws_frames, ws_unguarded;
  long long t;                /* when the action started */
} step_marks;

/* What the write guard turned away during an action, as review items on
 * the control (the request with the guard's reason: "POST url (a write)",
 * "GET url (its URL reads as a logout ...)"), and counts on transition o. */
static void journal_guarded(run *r, int from, const action *a, const step_marks *m, cJSON *o) {
  const char *last = NULL, *ws_last = NULL;
  int blocked = crawl_page_blocked(r->page, &last), frames = 0, unguarded = 0;
  int ws = crawl_page_websockets(r->page, &frames, &unguarded, &ws_last);
  static const char fix[] = "Annotate the control with data-uiap-risk, or give it a name that says what it does.";
  if (blocked > m->blocked) {
    cJSON_AddNumberToObject(o, "blockedRequests", blocked - m->blocked);
    crawl__run_jl_review(r, "unsafe_action_candidate", "high", from, a, fix,
              "Activating this control made a request the write guard blocked: %s.", last ? last : "a request");
  }
  if (ws > m->websockets)
    crawl__run_jl_review(r, "unsafe_action_candidate", "medium", from, a, fix,
              "Activating this control tried to open a WebSocket (%s); the write guard refused it, since "
              "what an app sends over it cannot be read.", ws_last ? ws_last : "?");
  if (unguarded > m->ws_unguarded && r->allow_ws)
    crawl__run_jl_review(r, "unsafe_action_candidate", "medium", from, a, fix,
              "Activating this control opened a WebSocket (%s), allowed by the plan "
              "(environment.metadata.allowWebSockets); what was sent over it is unknown.", ws_last ? ws_last : "?");
  else if (unguarded > m->ws_unguarded)
    crawl__run_jl_review(r, "unsafe_action_candidate", "high", from, a, fix,
              "Activating this control opened a WebSocket (%s) the write guard could not refuse (from a "
              "worker the page started before); what was sent over it is unknown.", ws_last ? ws_last : "?");
  if (frames > m->ws_frames)
    crawl__run_jl_review(r, "unsafe_action_candidate", "medium", from, a, fix,
              "Activating this control sent %d WebSocket frame%s on a connection the page had opened "
              "(not readable by the guard).", frames - m->ws_frames, frames - m->ws_frames == 1 ? "" : "s");
}

/* Fields that only the tab's memory keeps secret in g (a toggle turned a
 * password into text) and that were not so in before. */
static int newly_revealed(const pg_graph *before, const pg_graph *g) {
  int n = 0;
  for (size_t k = 0; g && k < g->nsensitive_fields; k++) {
    if (!g->sensitive_fields[k].revealed) continue;
    int seen = 0;
    for (size_t j = 0; before && j < before->nsensitive_fields && !seen; j++)
      seen = before->sensitive_fields[j].revealed &&
             before->sensitive_fields[j].backend_node_id == g->sensitive_fields[k].backend_node_id;
    n += !seen;
  }
  return n;
}

/* A control that shows a password's value: the value stays withheld (the
 * tab remembers the field), but a person should know the app does this. */
static void journal_revealed(run *r, int from, const action *a, const pg_graph *before) {
  int n = newly_revealed(before, r->g);
  if (n)
    crawl__run_jl_review(r, "unsafe_action_candidate", "medium", from, a,
              "Nothing to fix if the toggle is intended; the crawler keeps the value withheld.",
              "Activating this control revealed password field%s: %d field%s that %s a password now "
              "show%s %s value as text (withheld in every output).", n == 1 ? "" : "s", n, n == 1 ? "" : "s",
              n == 1 ? "was" : "were", n == 1 ? "s" : "", n == 1 ? "its" : "their");
}

/* The journal's "failure" line: action a of state s could not be performed (why). */
static void journal_failure(run *r, const state *s, const action *a, const char *why) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "stateId", s->id);
  cJSON_AddStringToObject(o, "actionId", a->action_id);
  cJSON_AddItemToObject(o, "target", crawl__run_target_json(a));
  crawl__run_add_args(o, a);
  cJSON_AddStringToObject(o, "reason", why);
  crawl__run_jl_write(r, "failure", o);
  r->failures++;
}

/* Browser side effects the page caused since m, as custom signals into sigs. */
static void side_effect_signals(run *r, cJSON *sigs, const step_marks *m) {
  static const char *const side[] = {"javascript dialog dismissed", "popup window closed"};
  int counts[2] = {crawl_page_dialogs(r->page) - m->dialogs, crawl_page_popups(r->page) - m->popups};
  for (int k = 0; k < 2; k++)
    if (counts[k] > 0) {
      cJSON *sg = cJSON_CreateObject();
      cJSON_AddStringToObject(sg, "kind", "custom");
      cJSON_AddStringToObject(sg, "text", side[k]);
      cJSON_AddItemToArray(sigs, sg);
    }
}

/* 1 when the current capture, on route key rk, is state `to` under another
 * route: a route folded into an equal state (pagination "#/page/2" showing
 * what "#/page/1" does, a default route at "page.html" and "#/home"). */
int crawl__run_folded(const run *r, int to, const char *rk) {
  return to >= 0 && rk && r->f.st[to].route && strcmp(rk, r->f.st[to].route);
}

/* The route of the current capture (its graph's RouteContext, the routeId
 * as the crawler names it) as member "route" of o: a route visited but
 * folded into a state of another route still reaches the route catalog. */
void crawl__run_landed_route(run *r, cJSON *o, const char *rk) {
  cJSON *rt = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(crawl__run_graph_json(r, r->g), "route"), 1);
  if (!rt) return;
  char *id = crawl__run_route_id_of(r, rk);
  cJSON_DeleteItemFromObjectCaseSensitive(rt, "routeId");
  if (id) cJSON_AddStringToObject(rt, "routeId", id);
  free(id);
  cJSON_AddItemToObject(o, "route", rt);
}

/* The journal's "transition" line: a took the page from state `from`
 * (captured as `before`) to `to` (the current capture, on route); guarded:
 * the write guard failed its navigation. A review when the guard blocked
 * anything since m. */

static void journal_transition(run *r, int from, int to, const action *a, const pg_graph *before,
                               const char *route, int guarded, const step_marks *m) {
  char tid[32];
  snprintf(tid, sizeof tid, "t_%05ld", r->transitions);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "transitionId", tid);
  cJSON_AddStringToObject(o, "fromStateId", r->f.st[from].id);
  cJSON_AddStringToObject(o, "toStateId", r->f.st[to].id);
  cJSON_AddStringToObject(o, "viaActionId", a->action_id);
  cJSON_AddItemToObject(o, "target", crawl__run_target_json(a));
  crawl__run_add_args(o, a);
  crawl__run_add_draft(r, o); /* sandbox_write: the form draft's fields and values */
  cJSON_AddStringToObject(o, "sideEffectClass", pol_side_effect_name(a->cls.side_effect));
  cJSON *sigs = guarded ? cJSON_CreateArray() : crawl__run_signals_between(r, before, r->f.st[from].route, r->g, route);
  side_effect_signals(r, sigs, m);
  crawl__run_count_loop(r, a, to == from, cJSON_GetArraySize(sigs));
  cJSON_AddItemToObject(o, "observedSignals", sigs);
  cJSON *d = cJSON_AddObjectToObject(o, "decision");
  cJSON_AddStringToObject(d, "effect", pol_effect_name(a->dec.effect));
  cJSON_AddStringToObject(d, "reason", pol_reason_name(a->dec.reason));
  cJSON_AddStringToObject(d, "rule", a->cls.rule);
  cJSON_AddStringToObject(d, "text", a->dec.text ? a->dec.text : "");
  cJSON_AddBoolToObject(o, "selfLoop", to == from);
  if (!guarded && crawl__run_folded(r, to, route)) crawl__run_landed_route(r, o, route);
  cJSON_AddNumberToObject(o, "durationMs", (double)(cdp_now_ms() - m->t));
  crawl__run_probe_annotate(r, o); /* a sealed probe's evidence and storage keys */
  journal_guarded(r, from, a, m, o);
  if (!guarded) journal_revealed(r, from, a, before);
  if (r->sh && to != from) crawl__run_shared_edge_out(r, o);
  crawl__run_jl_write(r, "transition", o);
}


/* Execute action i of state si (the page shows si) and record where it led. */
/* What the page has counted so far, and now. */
static step_marks marks_now(run *r) {
  step_marks m = {.blocked = crawl_page_blocked(r->page, NULL), .dialogs = crawl_page_dialogs(r->page),
                  .popups = crawl_page_popups(r->page), .t = cdp_now_ms()};
  m.websockets = crawl_page_websockets(r->page, &m.ws_frames, &m.ws_unguarded, NULL);
  return m;
}

/* 1 when the page shows state si under another route than si's own. */
static int shown_elsewhere(const run *r, int si) {
  char *rk = r->g ? pg_route_key_rel(r->g->route_url, r->page_origin) : NULL;
  int d = crawl__run_folded(r, si, rk);
  free(rk);
  return d;
}

/* Steps in a row that may find the page gone before acting before one is
 * taken all the same (a page that navigates on a timer after every load
 * would otherwise be restored forever). */
#define LEFT_ALONE_MAX 3

/* 1 when the page left the document of si's capture since it was taken (a
 * navigation a timer or a late script started after the page settled):
 * the state's actions would name nodes of a document that is gone. The
 * page counts as nowhere (r->cur -1): the explorer restores si first and
 * the action stays to do. */
static int page_left(run *r, int si) {
  if (!r->g || crawl__page_documents(r->page) == r->g_docs || r->left_alone >= LEFT_ALONE_MAX) return 0;
  r->left_alone++;
  crawl_log(CRAWL_LOG_DEBUG, "explore", "state %s: the page navigated to %.200s by itself; restoring it first",
            r->f.st[si].id, crawl_page_url(r->page) ? crawl_page_url(r->page) : "?");
  r->cur = -1;
  return 1;
}

/* A failed action after which the page is not where it was (it navigated
 * meanwhile, or the action replaced the document before failing): the
 * next action of si must not run on nodes of the gone document, so the
 * page counts as nowhere and the explorer restores si first. why says so. */
static void failed_elsewhere(run *r, char *why, size_t whylen) {
  if (!r->g || crawl__page_documents(r->page) == r->g_docs) return;
  size_t n = strlen(why);
  if (n + 40 < whylen) snprintf(why + n, whylen - n, " (the page had navigated away)");
  r->cur = -1;
}

static void step_(run *r, int si, int i) {
  action *a = &r->f.st[si].acts[i];
  if (page_left(r, si)) return;
  r->left_alone = 0;
  a->done = 1;
  fr_control_tried(&r->f, a);
  r->deviations = 0;
  char why[256] = "";
  probe_ctx pc;
  int probing = a->probe; /* nothing settles it: tried under the seal (explore_probe.c) */
  if (probing && crawl__run_probe_begin(r, si, a, &pc)) return; /* held after all */
  step_marks m = marks_now(r);
  crawl__run_net_begin(r, "action"); /* its record: crawl__run_step */
  crawl_code rc = crawl__run_perform(r, a, why, sizeof why);
  if (rc == CRAWL_ARG && !probing && r->cur == si && shown_elsewhere(r, si)) {
    /* the page shows si under another route (folded): what it lists need
     * not be si's (page 3's items, not page 1's); once more on si's own page */
    r->cur = -1;
    if (crawl__run_restore(r, si) == 0) {
      m = marks_now(r);
      rc = crawl__run_perform(r, a, why, sizeof why);
    } else if (!r->fatal && !r->cancelled && !r->signed_out) {
      crawl__run_unrestorable(r, si);
    }
  }
  crawl__timing_add(&r->tm, CRAWL_PH_ACT, cdp_now_ms() - m.t);
  if (probing && rc) crawl__run_probe_abort(r, si, a, &pc);
  if (rc == CRAWL_ARG) {
    failed_elsewhere(r, why, sizeof why);
    journal_failure(r, &r->f.st[si], a, why);
    return;
  }
  if (rc) {
    crawl__run_note_error(r, rc);
    if (r->fatal) a->done = 0; /* try it again after recovering */
    return;
  }
  pg_graph *saved = r->g; /* the graph before the action, for signals */
  r->g = NULL;
  r->before = saved;
  char *route = NULL;
  int to = crawl__run_observe(r, &rc, &route);
  if (probing && rc) crawl__run_probe_abort(r, si, &r->f.st[si].acts[i], &pc);
  if (probing && !rc && crawl__run_probe_end(r, si, &r->f.st[si].acts[i], &pc)) {
    /* denied (or held): what it reached is not published; the page is restored next */
    pg_graph_free(saved);
    free(route);
    return;
  }
  if (rc) {
    /* keep a graph around; the page is somewhere we do not know */
    if (!r->g) r->g = saved;
    else pg_graph_free(saved);
    r->cur = -1;
    free(route);
    crawl__run_note_error(r, rc);
    if (r->fatal || r->signed_out) r->f.st[si].acts[i].done = 0; /* its outcome is unknown: again */
    return;
  }
  /* a navigation the write guard failed shows the browser's error page:
   * the app stayed in si (the next step restores it) */
  int guarded = crawl_page_blocked(r->page, NULL) > m.blocked && r->g && r->g->route_url &&
                !strncmp(r->g->route_url, "chrome-error:", 13);
  if (guarded) to = si;
  if (to < 0) {
    to = crawl__run_add_state(r, si, a, r->f.st[si].seed, route);
    if (to < 0) {
      /* a budget refused the state: we are somewhere unregistered */
      pg_graph_free(saved);
      free(route);
      r->cur = -1;
      return;
    }
    r->cur = to;
  }
  if (r->f.st[to].mirrored && r->cur == to) crawl__run_journal_mirrored(r, to);
  a = &r->f.st[si].acts[i];
  fr_outcome_note(&r->f, a->pk, a->pkr, si, to);
  r->transitions++;
  int took = (int)(cdp_now_ms() - m.t);
  if (to == si) r->self_loops++, fr_note_ms(&r->f, a->pk, -1, took);
  else {
    fr_note_ms(&r->f, a->pk, fr_add_edge(&r->f, si, to, a), took);
    fr_relax(&r->f, si, to, a);
  }
  journal_transition(r, si, to, a, saved, route, guarded, &m);
  crawl__run_baseline_step(r, si, to, a); /* --baseline: executed, not carried; a re-executed one checked */
  pg_graph_free(saved);
  free(route);
  crawl__run_report_progress(r, crawl__run_phase(r), r->cur >= 0 ? r->f.st[r->cur].route_id : NULL);
}

/* Shared: one of the run's maxTransitions reserved for the next action
 * (1), or none left (0: r->sh_spent, budget_stop reports it; or the
 * frontier stopped answering). */
static int shared_reserve(run *r) {
  long n = crawl__shared_transitions_add(r->sh, 1);
  if (n < 0) {
    crawl__run_shared_failed(r);
    return 0;
  }
  if (n <= r->b.max_transitions) return 1;
  crawl__shared_transitions_add(r->sh, -1);
  r->sh_spent = 1;
  return 0;
}

/* step_, then, on a shared frontier, the action is done for every worker
 * (after its journal line: a worker killed before that has it redone). A
 * shared run reserves the transition first and gives it back when the
 * action recorded none. */
/* The step's `requests` record, after its transition, decision or failure
 * (transitions: the count before the step). Nothing when the step did not
 * act (the page had left si, a probe was held). */
static void journal_requests(run *r, int si, int i, long transitions, int probed) {
  if (!crawl__run_net_active(r)) return;
  const action *a = &r->f.st[si].acts[i];
  char tid[32];
  snprintf(tid, sizeof tid, "t_%05ld", r->transitions);
  cJSON *target = crawl__run_target_json(a);
  crawl__netlog_ctx ctx = {.phase = "action", .state_id = r->f.st[si].id, .action_id = a->action_id,
                           .target = target, .probed = probed,
                           .transition_id = r->transitions > transitions ? tid : NULL};
  crawl__run_net_write(r, &ctx);
  cJSON_Delete(target);
}

void crawl__run_step(run *r, int si, int i) {
  if (r->sh && !shared_reserve(r)) return;
  long before = r->transitions;
  int probed = r->f.st[si].acts[i].probe;
  step_(r, si, i);
  journal_requests(r, si, i, before, probed);
  if (r->sh && r->transitions == before && crawl__shared_transitions_add(r->sh, -1) < 0) crawl__run_shared_failed(r);
  if (r->sh && r->f.st[si].acts[i].done) crawl__run_shared_did(r, si, i);
}

/* crawler_frontier.c -- the run's shared state without a browser: what makes
 * a control predictable, and where the planner goes next. These decide the
 * order of a crawl (unpredictable controls first) and its paths (known edges
 * and predictable controls instead of reloads). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontier.h"

/* A frontier with n states on the given routes, each prepared with the
 * allowed actions named in acts (one string per state, names separated by
 * ','; "" none). Action keys are their names. */
static void make(frontier *f, int n, const char *const *routes, const char *const *acts) {
  memset(f, 0, sizeof *f);
  f->max_depth = 12;
  f->st = calloc((size_t)n, sizeof *f->st);
  f->capst = n;
  for (int i = 0; i < n; i++) {
    state *s = &f->st[i];
    snprintf(s->fp, sizeof s->fp, "fp%d", i);
    s->id = strdup(s->fp);
    s->route = strdup(routes[i]);
    s->parent = -1;
    f->nst++;
    fr_index_state(f, i);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", acts[i]);
    s->acts = calloc(16, sizeof *s->acts);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
      action *a = &s->acts[s->nacts++];
      a->action_id = strdup("ui.activate");
      a->role = strdup("button");
      a->name = strdup(tok);
      a->dec.effect = POL_EFFECT_ALLOW;
      fr_outcome_keys(f, tok, s->route, &a->pk, &a->pkr);
    }
  }
}

static int act(const frontier *f, int si, const char *name) {
  for (int i = 0; i < f->st[si].nacts; i++)
    if (!strcmp(f->st[si].acts[i].name, name)) return i;
  return -1;
}

/* what happened when state `from` took control `name` */
static void took(frontier *f, int from, const char *name, int to) {
  action *a = &f->st[from].acts[act(f, from, name)];
  a->done = 1;
  fr_control_tried(f, a); /* as explore_step.c does */
  fr_outcome_note(f, a->pk, a->pkr, from, to);
  if (from != to) fr_add_edge(f, from, to, a);
}

static int predicted(const frontier *f, int si, const char *name) {
  return fr_predict(f, &f->st[si].acts[act(f, si, name)], si);
}

Test(frontier, a_control_is_predictable_after_two_agreeing_observations) {
  static const char *const routes[] = {"/a", "/a", "/b", "/b", "/c"};
  static const char *const acts[] = {"Home,Tab", "Home,Tab", "Home,Tab", "Home,Tab", "Home,Tab"};
  frontier f;
  make(&f, 5, routes, acts);
  took(&f, 0, "Home", 4);
  cr_expect_eq(predicted(&f, 1, "Home"), -1, "one observation predicts nothing");
  took(&f, 2, "Home", 4);
  /* seen on two routes: predicted everywhere, also on a route never seen */
  cr_expect_eq(predicted(&f, 1, "Home"), 4);
  cr_expect_eq(predicted(&f, 3, "Home"), 4);
  /* a route's own tab seen twice on one route says nothing about another */
  took(&f, 0, "Tab", 1);
  took(&f, 1, "Tab", 1); /* stays put where it leads: the same target */
  cr_expect_eq(predicted(&f, 0, "Tab"), 1, "on /a the tab leads to state 1");
  cr_expect_eq(predicted(&f, 2, "Tab"), -1, "on /b the tab is not known yet");
  fr_free(&f);
}

Test(frontier, disagreeing_observations_are_unpredictable) {
  static const char *const routes[] = {"/a", "/a", "/a", "/a"};
  static const char *const acts[] = {"Toggle", "Toggle", "Toggle", "Toggle"};
  frontier f;
  make(&f, 4, routes, acts);
  took(&f, 0, "Toggle", 1);
  took(&f, 2, "Toggle", 3); /* an accordion: where it goes depends on the state */
  cr_expect_eq(predicted(&f, 1, "Toggle"), -1);
  /* tier LOCAL holds only unpredictable untried actions */
  cr_expect_geq(fr_next_action(&f, 1, FR_TIER_LOCAL), 0);
  fr_free(&f);
}

Test(frontier, stays_put_twice_is_a_predicted_self_loop) {
  static const char *const routes[] = {"/a", "/b", "/c"};
  static const char *const acts[] = {"Save", "Save", "Save,Other"};
  frontier f;
  make(&f, 3, routes, acts);
  took(&f, 0, "Save", 0);
  took(&f, 1, "Save", 1);
  cr_expect_eq(predicted(&f, 2, "Save"), 2, "stays in state 2");
  cr_expect_eq(fr_next_action(&f, 2, FR_TIER_NEW), act(&f, 2, "Other"), "the first tiers skip the predicted Save");
  cr_expect_eq(fr_next_action(&f, 2, FR_TIER_ANY), act(&f, 2, "Save"), "the last tier takes it in rank order");
  fr_free(&f);
}

Test(frontier, the_planner_walks_known_edges_and_predictable_controls) {
  /* 0 --Open--> 1 (known edge); Nav is predictable (led to 3 from 4 and
   * 5 on two routes) and untried in 1; state 3 has untried work, the others
   * are done */
  static const char *const routes[] = {"/a", "/a", "/x", "/n", "/b", "/c"};
  static const char *const acts[] = {"Open", "Nav", "", "Work", "Nav", "Nav"};
  frontier f;
  make(&f, 6, routes, acts);
  took(&f, 0, "Open", 1);
  took(&f, 4, "Nav", 3);
  took(&f, 5, "Nav", 3);
  f.st[2].dead = 1;
  fr_hop path[FR_MAX_HOPS];
  int len = -1;
  /* from 0: 0 -> 1 over the known edge, then 1 -> 3 over Nav (untried, predicted) */
  int t = fr_plan_path(&f, 0, FR_TIER_NEW, FR_MAX_HOPS, path, &len);
  cr_assert_eq(t, 3);
  cr_assert_eq(len, 2);
  cr_expect_eq(path[0].edge, 0, "first hop: the known edge");
  cr_expect_eq(path[1].edge, -1, "second hop: a predictable control, taken as a transition");
  cr_expect_eq(path[1].from, 1);
  cr_expect_eq(path[1].act, act(&f, 1, "Nav"));
  /* in the state itself: no hops */
  cr_expect_eq(fr_plan_path(&f, 3, FR_TIER_NEW, FR_MAX_HOPS, path, &len), 3);
  cr_expect_eq(len, 0);
  /* nothing reachable from the dead end 2 */
  cr_expect_eq(fr_plan_path(&f, 2, FR_TIER_ANY, FR_MAX_HOPS, path, &len), -1);
  fr_free(&f);
}

Test(frontier, known_edges_are_kept_once_per_pair) {
  static const char *const routes[] = {"/a", "/a"};
  static const char *const acts[] = {"X,Y", ""};
  frontier f;
  make(&f, 2, routes, acts);
  int e1 = fr_add_edge(&f, 0, 1, &f.st[0].acts[0]);
  int e2 = fr_add_edge(&f, 0, 1, &f.st[0].acts[1]);
  cr_expect_eq(e1, e2);
  cr_expect_eq(f.ned, 1);
  cr_expect_eq(fr_find_state(&f, "fp1"), 1);
  cr_expect_eq(fr_find_state(&f, "nope"), -1);
  fr_free(&f);
}

/* the action named name of state si, as a tab (or a link to href) */
static action *as_tab(frontier *f, int si, const char *name) {
  action *a = &f->st[si].acts[act(f, si, name)];
  free(a->role);
  a->role = strdup("tab");
  return a;
}

Test(frontier, a_tab_or_link_seen_once_is_likely_a_toggle_is_not) {
  static const char *const routes[] = {"/a", "/a", "/a", "/a", "/b"};
  static const char *const acts[] = {"Activity,Panel,Go", "Activity,Panel,Go", "", "", "Go"};
  frontier f;
  make(&f, 5, routes, acts);
  for (int i = 0; i < 2; i++) as_tab(&f, i, "Activity");
  for (int i = 0; i < 2; i++) f.st[i].acts[act(&f, i, "Go")].href = strdup("http://x/#/b");
  f.st[4].acts[0].href = strdup("http://x/#/b");
  took(&f, 0, "Activity", 2);
  took(&f, 0, "Panel", 3);
  took(&f, 4, "Go", 4); /* the link, from another route: it led to /b's state 4 */
  const action *tab = &f.st[1].acts[act(&f, 1, "Activity")];
  const action *panel = &f.st[1].acts[act(&f, 1, "Panel")];
  const action *go = &f.st[1].acts[act(&f, 1, "Go")];
  cr_expect_eq(fr_predict(&f, tab, 1), -1, "one observation predicts nothing (paths stay safe)");
  cr_expect_eq(fr_likely(&f, tab, 1), 2, "a tab goes where it went before");
  cr_expect_eq(fr_likely(&f, panel, 1), -1, "a button may toggle: where it goes depends on the page");
  cr_expect_eq(fr_likely(&f, go, 1), -1, "a link that stayed put once says nothing yet");
  took(&f, 0, "Go", 4);
  cr_expect_eq(fr_likely(&f, go, 1), 4, "a link that moved once is expected to move there again");
  /* tier 0: the panel first; the likely tab and link wait */
  cr_expect_eq(fr_next_action(&f, 1, FR_TIER_NEW), act(&f, 1, "Panel"));
  cr_expect_eq(fr_next_action(&f, 1, FR_TIER_ANY), act(&f, 1, "Activity"), "the last tier still does them, in rank order");
  fr_free(&f);
}

Test(frontier, a_selected_tab_or_a_link_to_the_page_itself_is_expected_to_stay) {
  static const char *const routes[] = {"/a"};
  static const char *const acts[] = {"Overview,More"};
  frontier f;
  make(&f, 1, routes, acts);
  as_tab(&f, 0, "Overview")->here = 1;
  cr_expect_eq(fr_likely(&f, &f.st[0].acts[act(&f, 0, "Overview")], 0), 0);
  cr_expect_eq(fr_next_action(&f, 0, FR_TIER_NEW), act(&f, 0, "More"));
  fr_free(&f);
}

Test(frontier, states_are_listed_nearest_first) {
  /* 0 -> 1 -> 2, 0 -> 3; 4 unreachable */
  static const char *const routes[] = {"/a", "/a", "/a", "/a", "/z"};
  static const char *const acts[] = {"A,B", "C", "", "", ""};
  frontier f;
  make(&f, 5, routes, acts);
  took(&f, 0, "A", 1);
  took(&f, 1, "C", 2);
  took(&f, 0, "B", 3);
  int out[8];
  int n = fr_nearest(&f, 0, out, 8);
  cr_assert_eq(n, 4, "the unreachable state is not listed");
  cr_expect_eq(out[0], 0, "the page's own state first");
  cr_expect(out[1] != 2 && out[2] != 2, "one hop before two hops");
  cr_expect_eq(out[3], 2);
  cr_expect_eq(fr_nearest(&f, 0, out, 2), 2, "at most max");
  fr_free(&f);
}

Test(frontier, a_nearer_way_to_a_state_makes_it_and_what_was_found_from_it_nearer) {
  /* found deep: 0 -> 1 -> 2 -> 3 -> 4 (depths 1..4); then 0 --Short--> 3 */
  static const char *const routes[] = {"/a", "/b", "/c", "/d", "/e"};
  static const char *const acts[] = {"Next,Short", "Next", "Next", "Next", "Work"};
  frontier f;
  make(&f, 5, routes, acts);
  f.max_depth = 3;
  for (int i = 1; i < 5; i++) f.st[i].depth = i, f.st[i].parent = i - 1;
  for (int i = 0; i < 4; i++) took(&f, i, "Next", i + 1);
  cr_expect_eq(fr_pending(&f, 4, 0), 0, "state 4 is beyond maxDepth 3: held back");
  const action *shortcut = &f.st[0].acts[act(&f, 0, "Short")];
  took(&f, 0, "Short", 3);
  fr_relax(&f, 0, 3, shortcut);
  cr_expect_eq(f.st[3].depth, 1);
  cr_expect_eq(f.st[3].parent, 0, "replayed from 0 over Short now");
  cr_expect_str_eq(f.st[3].via.name, "Short");
  cr_expect_eq(f.st[4].depth, 2, "what was found from 3 follows");
  cr_expect_eq(f.st[4].parent, 3);
  cr_expect_eq(fr_pending(&f, 4, 0), 1, "and is explored after all");
  fr_relax(&f, 2, 3, &f.st[2].acts[0]);
  cr_expect_eq(f.st[3].parent, 0, "a longer way changes nothing");
  fr_free(&f);
}

Test(frontier, a_state_one_likely_click_from_the_seed_is_shallow) {
  /* found the long way: 0 -> 1 -> 2 -> 3 (depths 1..3); the seed 0 has a
   * link, untried, to where the same link went from state 1 (state 3) */
  static const char *const routes[] = {"/a", "/b", "/c", "/d"};
  static const char *const acts[] = {"Next,Go", "Next,Go", "Next", "Work"};
  frontier f;
  make(&f, 4, routes, acts);
  for (int i = 1; i < 4; i++) f.st[i].depth = i, f.st[i].parent = i - 1;
  for (int i = 0; i < 2; i++) f.st[i].acts[act(&f, i, "Go")].href = strdup("http://x/d");
  for (int i = 0; i < 3; i++) took(&f, i, "Next", i + 1);
  took(&f, 1, "Go", 3);
  f.st[3].depth = 3; /* as found first */
  fr_depths(&f);
  cr_expect_eq(f.st[3].depth, 1, "the seed's untried link is likely to go there");
  cr_expect_eq(f.st[3].parent, 2, "the replay keeps its observed path");
  cr_expect_eq(f.st[2].depth, 2, "nothing nearer for state 2");
  cr_expect_eq(f.st[0].depth, 0);
  fr_free(&f);
}

/* what control `name` of state si offers (ui.expand, ui.collapse, ...) */
static void offers(frontier *f, int si, const char *name, const char *action_id) {
  action *a = &f->st[si].acts[act(f, si, name)];
  free(a->action_id);
  a->action_id = strdup(action_id);
}

/* state si was first reached from parent by its control `name` */
static void found_by(frontier *f, int si, int parent, const char *name) {
  f->st[si].parent = parent;
  fr_action_copy(&f->st[si].via, &f->st[parent].acts[act(f, parent, name)]);
}

static void signatures(frontier *f) {
  for (int i = 0; i < f->nst; i++) fr_state_sig(f, i);
  fr_learn(f);
}

Test(frontier, a_change_seen_elsewhere_predicts_a_known_state_or_a_new_one) {
  /* 0 --Menu--> 1 opened the menu (Item appeared, Menu offers collapse);
   * state 2 has the panel open and the menu closed: its Menu is expected to
   * show a state not seen yet, and goes before Zed, which nothing predicts,
   * once Zed and Panel were tried somewhere (before: a control never tried
   * goes first) */
  static const char *const routes[] = {"/a", "/a", "/a", "/a"};
  static const char *const acts[] = {"Zed,Menu,Panel", "Zed,Menu,Item,Panel", "Zed,Menu,Panel", "Zed,Menu,Item,Panel"};
  frontier f;
  make(&f, 3, routes, acts);
  for (int i = 0; i < 3; i++) offers(&f, i, "Menu", i == 1 ? "ui.collapse" : "ui.expand");
  offers(&f, 2, "Panel", "ui.collapse");
  signatures(&f);
  took(&f, 0, "Menu", 1);
  fr_learn(&f);
  const action *menu = &f.st[2].acts[act(&f, 2, "Menu")];
  cr_expect_eq(fr_analogy(&f, menu, 2), -2, "a new state: the menu open over the open panel");
  cr_expect_eq(fr_likely(&f, menu, 2), -1);
  cr_expect_eq(fr_next_action(&f, 2, FR_TIER_NEW), act(&f, 2, "Zed"), "a control never tried comes first");
  fr_control_tried(&f, &f.st[0].acts[act(&f, 0, "Zed")]);
  fr_control_tried(&f, &f.st[0].acts[act(&f, 0, "Panel")]);
  cr_expect_eq(fr_next_action(&f, 2, FR_TIER_NEW), act(&f, 2, "Menu"), "then what shows a new state");
  cr_expect_eq(fr_analogy(&f, &f.st[2].acts[act(&f, 2, "Zed")], 2), -1, "Zed was never seen: no analogy");
  fr_free(&f);
  /* the same, with the state it predicts known: now the Menu click is expected to lead there */
  frontier g;
  make(&g, 4, routes, acts);
  for (int i = 0; i < 4; i++) offers(&g, i, "Menu", i % 2 ? "ui.collapse" : "ui.expand");
  offers(&g, 2, "Panel", "ui.collapse");
  offers(&g, 3, "Panel", "ui.collapse");
  signatures(&g);
  took(&g, 0, "Menu", 1);
  fr_learn(&g);
  menu = &g.st[2].acts[act(&g, 2, "Menu")];
  cr_expect_eq(fr_analogy(&g, menu, 2), 3);
  cr_expect_eq(fr_likely(&g, menu, 2), 3, "likely: it waits behind the unknown");
  cr_expect_eq(fr_next_action(&g, 2, FR_TIER_NEW), act(&g, 2, "Zed"));
  cr_expect_eq(fr_predict(&g, menu, 2), -1, "an analogy is no path: paths need agreeing observations");
  /* a change that does not fit (state 1 lacks the closed Menu it removes) predicts nothing */
  cr_expect_eq(fr_analogy(&g, &g.st[1].acts[act(&g, 1, "Menu")], 1), -1);
  fr_free(&g);
}

Test(frontier, two_states_with_one_signature_predict_nothing) {
  /* 2 and 3 list the same controls (pages of one list, say): the change
   * seen 0 -> 1 leads from 2 to a set both have; no prediction */
  static const char *const routes[] = {"/a", "/a", "/a", "/a", "/a"};
  static const char *const acts[] = {"Go,Open", "Go,Close", "Go,Open", "Go,Close", "Go,Close"};
  frontier f;
  make(&f, 5, routes, acts);
  signatures(&f);
  took(&f, 0, "Open", 1);
  fr_learn(&f);
  cr_expect_eq(fr_analogy(&f, &f.st[2].acts[act(&f, 2, "Open")], 2), -1, "1, 3 and 4 share the set");
  fr_free(&f);
}

Test(frontier, what_undoes_the_way_in_is_expected_to_lead_back) {
  /* 0 --Panel (expand)--> 1; 0 --Activity tab--> 2 (Overview was selected in
   * 0); 0 --Open--> 3, a dialog with Escape */
  static const char *const routes[] = {"/a", "/a", "/a", "/a"};
  static const char *const acts[] = {"Overview,Activity,Panel,Open", "Overview,Activity,Panel,Other",
                                     "Overview,Activity,Other", "Close"};
  frontier f;
  make(&f, 4, routes, acts);
  offers(&f, 0, "Panel", "ui.expand");
  offers(&f, 1, "Panel", "ui.collapse");
  for (int i = 0; i < 3; i++) as_tab(&f, i, "Overview"), as_tab(&f, i, "Activity");
  f.st[0].acts[act(&f, 0, "Overview")].here = 1;
  f.st[2].acts[act(&f, 2, "Activity")].here = 1;
  action *esc = &f.st[3].acts[f.st[3].nacts++];
  esc->action_id = strdup("ui.dismiss");
  esc->role = strdup("dialog");
  esc->name = strdup("Details");
  esc->escape = 1;
  esc->dec.effect = POL_EFFECT_ALLOW;
  const char *via[] = {NULL, "Panel", "Activity", "Open"};
  for (int i = 1; i < 4; i++) found_by(&f, i, 0, via[i]);
  cr_expect_eq(fr_likely(&f, &f.st[1].acts[act(&f, 1, "Panel")], 1), 0, "collapse after expand: back");
  cr_expect_eq(fr_likely(&f, &f.st[1].acts[act(&f, 1, "Other")], 1), -1);
  cr_expect_eq(fr_likely(&f, &f.st[2].acts[act(&f, 2, "Overview")], 2), 0, "the tab selected before: back");
  cr_expect_eq(fr_likely(&f, esc, 3), 0, "Escape on the dialog the click opened: back");
  cr_expect_eq(fr_likely(&f, &f.st[3].acts[act(&f, 3, "Close")], 3), -1, "a button in it may do anything");
  f.st[1].acts[act(&f, 1, "Overview")].here = 1;
  f.st[1].acts[act(&f, 1, "Activity")].done = 1;
  cr_expect_eq(fr_next_action(&f, 1, FR_TIER_NEW), act(&f, 1, "Other"), "the way back waits");
  fr_free(&f);
}

Test(frontier, local_work_first_and_a_likely_click_is_a_short_way_there) {
  /* 0 --Panel--> 1 (expand); in 1 only a link is untried; 0 still has
   * Spec. Local tier: 1 has none (the link is navigation); the nearest
   * is 0, one likely click (collapse Panel) away */
  static const char *const routes[] = {"/a", "/a"};
  static const char *const acts[] = {"Panel,Spec", "Panel,Link"};
  frontier f;
  make(&f, 2, routes, acts);
  offers(&f, 0, "Panel", "ui.expand");
  offers(&f, 1, "Panel", "ui.collapse");
  f.st[1].acts[act(&f, 1, "Link")].rank = FR_RANK_NAV;
  found_by(&f, 1, 0, "Panel");
  took(&f, 0, "Panel", 1);
  cr_expect_eq(fr_next_action(&f, 1, FR_TIER_LOCAL), -1, "a link is not local work");
  cr_expect_eq(fr_next_action(&f, 1, FR_TIER_NEW), act(&f, 1, "Link"));
  fr_hop path[FR_MAX_HOPS];
  int len = -1;
  cr_assert_eq(fr_plan_path(&f, 1, FR_TIER_LOCAL, FR_LIKELY_HOPS, path, &len), 0);
  cr_assert_eq(len, 1);
  cr_expect_eq(path[0].edge, -1, "an untried click, taken as a transition");
  cr_expect_eq(path[0].act, act(&f, 1, "Panel"));
  cr_expect_eq(fr_plan_path(&f, 1, FR_TIER_LOCAL, 0, path, &len), -1, "none within 0 hops");
  fr_free(&f);
}

Test(frontier, the_planner_takes_the_cheapest_way_not_the_fewest_hops) {
  /* 0 --Load--> 2 took 900 ms (a page load); 0 --A--> 1 --B--> 2 took 60 ms each.
   * State 2 has work: two quick clicks beat one slow load */
  static const char *const routes[] = {"/a", "/a", "/a"};
  static const char *const acts[] = {"Load,A", "B", "Work"};
  frontier f;
  make(&f, 3, routes, acts);
  took(&f, 0, "Load", 2);
  fr_note_ms(&f, f.st[0].acts[act(&f, 0, "Load")].pk, 0, 900);
  took(&f, 0, "A", 1);
  fr_note_ms(&f, f.st[0].acts[act(&f, 0, "A")].pk, 1, 60);
  took(&f, 1, "B", 2);
  fr_note_ms(&f, f.st[1].acts[act(&f, 1, "B")].pk, 2, 60);
  fr_hop path[FR_MAX_HOPS];
  int len = -1;
  cr_assert_eq(fr_plan_path(&f, 0, FR_TIER_NEW, FR_MAX_HOPS, path, &len), 2);
  cr_expect_eq(len, 2, "two quick hops, not the slow one");
  cr_expect_eq(path[0].edge, 1);
  cr_expect_eq(path[1].edge, 2);
  cr_expect_eq(fr_plan_path(&f, 0, FR_TIER_NEW, 1, path, &len), 2, "within one hop: the slow way is the only one");
  cr_expect_eq(len, 1);
  cr_expect_eq(path[0].edge, 0);
  fr_free(&f);
}

/* Shared frontier: a state known only from another worker's transition
 * (learned) offers this worker its predictable work alone; one another
 * worker holds, nothing. What is left in a state does not depend on
 * either: a worker that leaves one gives it back unfinished. */
Test(frontier, another_workers_states_are_planned_only_as_far_as_theirs_allows) {
  static const char *const routes[] = {"/a", "/a"};
  static const char *const acts[] = {"Go", "Go"};
  frontier f;
  make(&f, 2, routes, acts);
  f.st[1].learned = 1;
  cr_expect_eq(fr_pending(&f, 1, FR_TIER_NEW), 0, "a learned state: nothing new to find there for this worker");
  cr_expect_eq(fr_pending(&f, 1, FR_TIER_ANY), 1, "but its remaining work is done by whoever is there");
  f.st[1].learned = 0;
  f.st[1].foreign = 1;
  cr_expect_eq(fr_pending(&f, 1, FR_TIER_ANY), 0, "held by another worker: never");
  cr_expect_eq(fr_untried(&f, 1, FR_TIER_ANY), 1, "it still has work left");
  f.st[1].foreign = 0;
  f.st[1].acts[0].done = 1;
  cr_expect_eq(fr_untried(&f, 1, FR_TIER_ANY), 0, "all done");
  fr_free(&f);
}

Test(frontier, a_control_never_tried_outranks_a_new_combination_of_tried_ones) {
  /* a search dialog's tick boxes A and B, and the app's navigation Nav in
   * every state: once A and B were ticked from state 0, ticking B in state 1
   * (A ticked) is only a new combination; Nav, never tried, is new ground */
  static const char *const routes[] = {"/a", "/a", "/a"};
  static const char *const acts[] = {"A,B,Nav", "A,B,Nav", "A,B,Nav"};
  frontier f;
  make(&f, 3, routes, acts);
  took(&f, 0, "A", 1);
  took(&f, 0, "B", 2);
  cr_expect(fr_fresh(&f, &f.st[1].acts[act(&f, 1, "Nav")]), "Nav was never tried");
  cr_expect_not(fr_fresh(&f, &f.st[1].acts[act(&f, 1, "B")]), "B was tried in state 0");
  cr_expect_eq(fr_next_action(&f, 1, FR_TIER_FRESH), act(&f, 1, "Nav"));
  cr_expect_eq(fr_next_action(&f, 1, FR_TIER_NEW), act(&f, 1, "Nav"), "before B, which comes first in the state");
  cr_expect(fr_pending(&f, 2, FR_TIER_FRESH), "state 2 has Nav untried");
  took(&f, 1, "Nav", 1);
  cr_expect_not(fr_pending(&f, 2, FR_TIER_FRESH), "Nav was tried in state 1: state 2 has no new ground left");
  cr_expect(fr_pending(&f, 2, FR_TIER_NEW), "but combinations still to try");
  cr_expect_eq(fr_next_action(&f, 2, FR_TIER_NEW), act(&f, 2, "A"));
  /* the same name in another scope is another control */
  free(f.st[2].acts[act(&f, 2, "Nav")].scope_key);
  f.st[2].acts[act(&f, 2, "Nav")].scope_key = strdup("s:footer");
  cr_expect(fr_fresh(&f, &f.st[2].acts[act(&f, 2, "Nav")]), "Nav of the footer was never tried");
  fr_free(&f);
}

/* frontier.h -- the run's shared state, kept apart from the code that drives
 * a tab (explore.c): the state table, the known edges, what each control did
 * wherever it was tried (outcomes), and the planner that picks the state to
 * work on next. Nothing here talks to a browser or writes a file, so several
 * tabs (and later several machines) can work on one frontier. Internal to
 * crawler/; not a public header. */
#ifndef UIAP_FRONTIER_H
#define UIAP_FRONTIER_H

#include <stddef.h>

#include "pol.h"
#include "crawl_strmap.h"

/* A decision as an action keeps it: pol_decision without its 384-byte
 * sentence buffer (a state of a big app has a hundred actions, a run a
 * thousand states). text is one of the process's shared sentences
 * (crawl__act_text in act.c), never freed; NULL: not decided. */
typedef struct act_decision {
  pol_effect effect;
  pol_reason reason;
  const char *text;
} act_decision;

typedef struct action {
  char *action_id;          /* ui.activate, nav.navigate, ui.toggle, ... */
  char *role, *name, *stable_id, *scope_id, *document_id;
  int ordinal;              /* among same role+name in the graph */
  char *scope_key;          /* its scope across captures (crawl__act_scope_key), NULL none */
  int escape;               /* ui.dismiss by the Escape key */
  pol_classification cls;
  act_decision dec;
  int rank;                 /* exploration priority, lower first */
  int done;                 /* executed (in this or an earlier session of this run) */
  int pk, pkr;              /* its outcome record: any route, this route (-1 none) */
  char *option;             /* ui.choose on a <select>: the option's label */
  char *href;               /* a link's target (access probing); NULL: none */
  int option_index;         /* and its index */
  int option_from;          /* the index selected when it was decided (-1 unknown) */
  int here;                 /* a tab already selected, a link to the page itself: expected to stay */
  int draft;                /* sandbox_write, a submit control: 1 fill its form first (act_form.c),
                               2 the same with one required field left empty; 0 just the click */
  int backend;              /* backendNodeId of the element it was decided on, in that capture (0:
                               unknown); a hint only: act.c checks role, name and scope again */
  char *text;               /* ui.enterText into a search or filter field (act_text.c): the value
                               typed; NULL: none chosen (a draft value in sandbox_write) */
  int text_enter;           /* and Enter pressed after it (a GET form's submission, a search) */
  int text_probe;           /* the value is the fixed probe word, not a word of the page */
  int verify_only;          /* --baseline: a path into what last night left nothing open in:
                               planned last (FR_TIER_ANY; baseline.c); not copied by fr_action_copy */
  int probe;                /* nothing settles it (pol_probeable): tried only under the seal
                               (explore_probe.c); not copied by fr_action_copy */
} action;

typedef struct state {
  char fp[33];
  char cfp[33];             /* content fingerprint: the same without the route */
  char *id, *url, *title;
  char *route;              /* route key (pg_route_key_rel): identity, outcomes */
  char *route_id;           /* routeId: data-uiap-route, else the key's template */
  int depth, parent, seed;
  action via;               /* the action that first reached it (replay) */
  char **done;              /* keys of actions already executed (resume) */
  int ndone;
  int decided;              /* its decisions are in the journal */
  int addressable;          /* -1 unknown, 0 no, 1 yes */
  action *acts;
  int nacts, cap_acts;
  int dead;                 /* could not be restored: not explored further */
  int restore_fails;        /* restores that failed (dead after RESTORE_TRIES, explore.c) */
  int principal;            /* index in crawl_opts.principals, 0 without any */
  int mirrored;             /* from the shared frontier's record: not yet in this worker's journal */
  int held_back;            /* shared frontier: known at the depth budget, not queued there */
  int held;                 /* shared frontier: this worker holds its lease */
  int foreign;              /* shared frontier: another worker's (held or finished): not planned */
  long long foreign_until;  /* held by another worker: planned again from then (ms; 0: for good) */
  int learned;              /* shared frontier: known from another worker's transition, not leased
                               yet: only its predictable work is planned here (FR_TIER_ANY) */
  unsigned long long *sig;  /* its signature (fr_state_sig): the sorted hashes of its controls, NULL: not yet */
  int nsig;
  unsigned long long sighash; /* their sum */
} state;

typedef struct edge { int from, to; action a; int ms; /* what taking it took (0 unknown) */ } edge;
/* What a control did wherever it was tried: the key is the action's identity
 * (action, role, name, stable id, ordinal), once for any route and once per
 * route. A control that went to the same state from two states (a global nav
 * link, a tab of this route) or stayed put twice is predictable: its outcome
 * is known before it is tried, so it waits until the unpredictable controls
 * (toggles, menus, dialogs) are done, and it serves as a path to its target. */
/* One observation of a control, for prediction by analogy: it took state
 * `from` to `to`; once both have signatures, the change: the control
 * hashes `to` lost (rem) and gained (add), sorted, with their sums. */
typedef struct fr_obs {
  int from, to;
  int ready;                /* 1 change known, 0 not yet, -1 never (a state without signature) */
  int nrem, nadd;
  unsigned long long *d;    /* nrem removed, then nadd added */
  unsigned long long hrem, hadd;
} fr_obs;
#define FR_OBS 3            /* observations kept per outcome record, the latest */

typedef struct outcome {
  char *key;
  fr_obs *obs;              /* FR_OBS slots once observed, newest at nobs-1 mod FR_OBS */
  int nobs;
  int move_to;              /* state of its moves, -1 none yet */
  int nmove, nself, self_from;
  int mixed;                /* went to different places: not predictable */
  int first_from;           /* state of the first observation */
  int multi_route;          /* observed from states on two routes */
  long ms_sum;              /* what taking it took, over ms_n observations */
  int ms_n;
} outcome;
typedef struct frontier {
  state *st;                /* the state table */
  int nst, capst;
  edge *ed;                 /* known edges, one per (from, to) */
  int ned, caped;
  outcome *out;             /* outcome records */
  int nout, capout;
  crawl__strmap by_fp, by_pair, by_outcome; /* indexes: states by fingerprint, edges, outcomes */
  crawl__strmap by_sig;     /* states by signature hash (-2: two states share it) */
  crawl__strmap tried;      /* controls tried anywhere in the run (fr_control_tried), by role, name,
                               scope key, stable id and option */
  int *learn;               /* observations whose change is not worked out yet: outcome * FR_OBS + slot */
  int nlearn, caplearn;
  int max_depth;            /* states this deep are not expanded */
} frontier;

void fr_action_copy(action *dst, const action *src);
void fr_action_free(action *a);
void fr_state_free(state *s);

/* State with fingerprint fp, or -1. fr_index_state registers st[i]'s fp. */
int fr_find_state(const frontier *f, const char *fp);
void fr_index_state(frontier *f, int i);
/* The known edge from -> to (taken by a), added when new. Returns its index. */
int fr_add_edge(frontier *f, int from, int to, const action *a);
/* Action a took `from` to `to`: when that is a shorter way to `to` than the
 * one it was found by, its depth, parent and replay action follow it, and
 * so do the states found from it over known edges (a state first found
 * deep in the app is not held back by maxDepth once a nearer way is seen). */
void fr_relax(frontier *f, int from, int to, const action *a);
/* Every state's depth lowered to its fewest steps from a seed over known
 * edges and the untried actions likely to lead there (fr_likely): a state
 * one likely click from the seed is not held back by maxDepth because the
 * crawl first came to it the long way. Depths only; replays keep their
 * observed paths. */
void fr_depths(frontier *f);

/* Outcomes. key identifies an action (action, role, name, stable id,
 * ordinal, option); fr_outcome_keys gives its two records (any route, this
 * route); fr_outcome_note records that it went from `from` to `to`. */
void fr_outcome_keys(frontier *f, const char *key, const char *route, int *pk, int *pkr);
void fr_outcome_note(frontier *f, int pk, int pkr, int from, int to);
/* Taking the action of outcome record pk (the any-route one) took ms; so
 * did the known edge `edge` (-1 none), the first time. Paths are planned
 * by what their hops take, not by their count: a page load costs more
 * than a toggle. */
void fr_note_ms(frontier *f, int pk, int edge, int ms);
/* Predicted target of a in state si (si itself when it stays put), -1 unknown. */
int fr_predict(const frontier *f, const action *a, int si);
/* fr_predict; else si for a tab already selected or a link to the page
 * itself; else for a link or a tab (which go where their target says) the
 * one move seen so far: where a is expected to go, not yet known.
 * Orders the work only; paths use fr_predict. */
int fr_likely(const frontier *f, const action *a, int si);

/* State si's signature: the hashes of its controls (each action's control
 * and what it offers: expand or collapse, a selected tab, a link to the
 * page itself) and of its route, from its prepared actions; indexed for
 * fr_analogy. Its actions done already (a resumed run) count as tried
 * (fr_control_tried). Call once its actions are built. */
void fr_state_sig(frontier *f, int si);
/* The changes of observations whose states now have signatures worked out
 * (call before planning). */
void fr_learn(frontier *f);
/* Action a in state si by analogy with what the same control did elsewhere:
 * an observed change (what its target listed that its source did not, and
 * the reverse) applied to si's signature. A known state's index, -2 when it
 * predicts a state never seen (a new one), -1 when no observation applies. */
int fr_analogy(const frontier *f, const action *a, int si);

/* Controls tried anywhere in the run, by role, name, scope key, stable id
 * and option (not by action: an expanded control is the one that was
 * collapsed; not by ordinal: the tenth "Edit" of a list is no new ground
 * once the first was tried). fr_control_tried: a was executed (whatever
 * came of it); fr_fresh: a's control was never tried in this run. */
void fr_control_tried(frontier *f, const action *a);
int fr_fresh(const frontier *f, const action *a);

/* An action's rank orders the work of a state, lower first (act.c): app
 * actions, local UI, what closes (collapse), other, navigation, Escape. */
enum { FR_RANK_APP, FR_RANK_LOCAL, FR_RANK_CLOSE, FR_RANK_OTHER, FR_RANK_NAV, FR_RANK_DISMISS };

/* Untried allowed actions come in four tiers: FR_TIER_FRESH, those whose
 * control was never tried anywhere in the run (fr_fresh) and whose outcome
 * is neither predictable nor likely (a control never tried outranks a new
 * combination of controls already tried: the tick boxes of a search
 * dialog, ticked in another order, are not new ground; its navigation is);
 * FR_TIER_LOCAL, local UI (rank up to FR_RANK_CLOSE) whose outcome is
 * neither predictable nor likely; FR_TIER_NEW, any such; FR_TIER_ANY, any.
 * Within FR_TIER_LOCAL and FR_TIER_NEW, fresh controls come first, then
 * what the analogy expects to show a new state, then rank. fr_next_action: the
 * first of the tier, or -1; fr_untried: state si has one (or was never
 * prepared) and is within the depth budget, not dead; fr_pending: so, and
 * this worker may plan it (shared frontier: not another worker's, only
 * predictable work in a learned state). */
enum { FR_TIER_FRESH, FR_TIER_LOCAL, FR_TIER_NEW, FR_TIER_ANY };
int fr_next_action(const frontier *f, int si, int tier);
int fr_untried(const frontier *f, int si, int tier);
int fr_pending(const frontier *f, int si, int tier);

/* One hop of a path: a known edge (edge >= 0), or an untried predictable
 * action `act` of state `from` (recorded as a transition when taken). */
typedef struct fr_hop { int from, to, edge, act; } fr_hop;
#define FR_MAX_HOPS 12
/* The nearest state with pending actions of the tier, by a cheapest-path
 * search (each hop costs what it took when taken, FR_HOP_MS when never
 * timed) from state cur over known edges and predictable actions, and
 * within the first FR_LIKELY_HOPS hops also untried likely ones (fr_likely:
 * checked when walked, a path that goes astray is planned again); its path
 * in hops (*len, 0 when it is cur; at most max_hops, FR_MAX_HOPS). -1 when
 * none is reachable. */
#define FR_LIKELY_HOPS 2
#define FR_HOP_MS 100
int fr_plan_path(const frontier *f, int cur, int tier, int max_hops, fr_hop *path, int *len);
/* The states reachable from cur over known edges and predictable actions,
 * nearest first (cur itself first), at most max into out; their count. */
int fr_nearest(const frontier *f, int cur, int *out, int max);

void fr_free(frontier *f);

#endif

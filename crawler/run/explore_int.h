/* explore_int.h -- what the files of the discovery run (explore*.c) share
 * and nothing else sees: the run's state (`run`), a seed, and the functions
 * one part of the run calls in another (crawl__run_*, grouped by the file
 * that defines them; each is documented there). Internal to crawler/run/;
 * never included from outside it. crawl_run itself is crawl.h's. */
#ifndef UIAP_EXPLORE_INT_H
#define UIAP_EXPLORE_INT_H

#include "crawl.h"
#include "crawl_journal.h"
#include "crawl_secrets.h"
#include "crawl_strmap.h"
#include "frontier.h"
#include "shared.h"
#include "run_int.h"
#include "timing.h"
#include "act.h"
#include "netlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CRAWL__PRINCIPALS_MAX 16


typedef struct run {
  const crawl_opts *o;
  cdp_client *c;
  crawl_page *page;
  crawl__journal *jl;       /* DIR/journal.jsonl, appended to */
  crawl__secrets *secrets;  /* every value a capture redacted: the journal, the
                               state files and the log pass through it */
  char dir[4096];
  frontier f;               /* states, edges, outcomes: shared by whatever drives tabs */
  long transitions, self_loops, decisions, failures, reviews;
  long long t0;
  int cur;                  /* current state index, -1 unknown */
  pg_graph *g;              /* capture of the current page */
  int g_docs;               /* crawl__page_documents when g was captured: another
                               count now says the page left g's document */
  int left_alone;           /* steps in a row that found the page gone from its
                               state before acting (explore_step.c page_left) */
  char cur_fp[33], cur_cfp[33];
  crawl__strmap route_alias; /* route key -> the seed state whose route it showed
                               (observe's fold: "page.html#/home" showing what the
                               seed "page.html" shows); captures there are
                               fingerprinted under the seed's route, so a state
                               has one id whichever URL a worker reached it by */
  pg_route_learner *routes; /* route templates learned from the pages seen
                               (explore_states.c; NULL until the first capture) */
  const char *stopped_by;
  char run_id[64];
  crawl_budget b;
  const char *allowed[66];
  char page_origin[512];
  char (*seed_origins)[512]; /* the seeds' origins: with allowed, the run's scope for
                               URLs it reads back (scope_has) */
  int nseed_origins;
  const char **scope;       /* allowed, then the seeds' origins (NULL-terminated): where
                               navigate() may load */
  int cancelled;
  int fatal;                /* browser gone, tab crashed or hung */
  int guard_stop;           /* a target could not be guarded: stop, no restart */
  int allow_ws;             /* the plan lets actions open WebSockets (reported, not refused) */
  const char *reads[66];    /* crawl_opts.allow_reads, then the plan's allowRead (NULL-terminated) */
  long reads_let;           /* requests the guard let through as reads, of the tabs closed */
  int load_blocked_seen;    /* crawl_page_load_blocked when last looked at (review_load_writes) */
  crawl__strmap load_writes; /* what a page's own load sent and the guard failed, reported once each */
  crawl_timing tm;          /* where the time goes, per phase (--verbose, the "end" record) */
  int in_restore;           /* settling and captures count as restore time */
  int hops_ok, hops_bad;    /* hash_hop: same-document restores that landed / did not */
  int restarts;
  int reconnects;           /* --connect: dropped connections reconnected (recover) */
  long dialogs, popups;     /* of tabs already closed */
  char seed_err[512];       /* why the first seed that failed to load failed */
  int pri;                  /* the principal exploring (index), -1: none */
  char *contexts[CRAWL__PRINCIPALS_MAX]; /* each principal's browser context */
  int signed_out;           /* the last capture was a sign-in page or a 401/419 */
  int session_checked;      /* the first capture after a session was applied was
                               looked at (explore_observe.c session_rejected); 0
                               again for each principal */
  char signin_path[512];    /* the sign-in page that capture showed: the session was
                               not accepted, and no capture there is a state */
  int relogins;             /* of the current principal */
  int kept[CRAWL__PRINCIPALS_MAX]; /* its context holds its cookies and localStorage */
  crawl_page_opts po;
  /* per control (action + role + name): how often it changed the state */
  struct loopstat { char *key; int self, moved, signals; action a; } *loops;
  int nloops, caploops;
  crawl__strmap by_loop;    /* index of loops */
  crawl__strmap drafted;    /* form drafts done, per mode and submit control (explore_forms.c) */
  int deviations;           /* walks that ended off their path since the last step */
  long depths_at;           /* r->transitions when the depths were last lowered (fr_depths) */
  const pg_graph *before;   /* the capture before an action, while r->g is NULL */
  /* JSON of the two latest graphs asked for, by revision (unique per
   * process): a graph is converted once, whether for its state file or for
   * the signals of the steps into and out of it */
  struct { char *revision; cJSON *json; } gjc[2];
  int gj_last;              /* the slot returned last */
  crawl__shared *sh;        /* the frontier shared with other workers (--frontier), or NULL */
  int sh_lost;              /* the shared frontier stopped answering */
  int sh_spent;             /* the run's maxTransitions are taken (by all workers) */
  long sh_edges;            /* the shared frontier's transitions read so far (shared_edges_in) */
  int phase;                /* the lifecycle step reached (run_phases), -1: none yet */
  /* sealed probes (explore_probe.c) */
  cJSON *probe_meta;        /* the allowed probe's metadata, for its transition line */
  crawl__strmap probed_ok;  /* action keys probed harmless: replayed under the seal */
  crawl__strmap probed_bad; /* action keys a probe denied (1 write, 2 destructive): not tried again */
  long probes_allowed, probes_denied;
  struct crawl__baseline *bl; /* --baseline: last night's run (baseline.c), or NULL */
  char err[512];
} run;

/* A probe under way (explore_probe.c): the storage before it, and what the
 * page had counted when the seal went on. */
typedef struct probe_ctx {
  cJSON *before;
  int blocked, ws_opened, ws_unguarded, ws_frames, refused;
} probe_ctx;

/* A seed of the run: the URLs given, then the plan's (explore_seeds.c). */
typedef struct seed {
  char *url;
  cJSON *json;
  int resolved;
  int settled;   /* unusable: its seed line and review were written at planning (plan_seeds) */
} seed;

/* ---- explore_journal.c ---- */
int crawl__run_open_dialog(const pg_scope *sc);
long crawl__run_elapsed(const run *r);
const cJSON *crawl__run_graph_json(run *r, const pg_graph *g);
void crawl__run_graph_json_drop(run *r);
void crawl__run_url_origin(const char *url, char *buf, size_t n);
void crawl__run_jl_write(run *r, const char *type, cJSON *o);
void crawl__run_jl_note(run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void crawl__run_report_progress(run *r, const char *status, const char *route);
const char *crawl__run_phase(const run *r);
void crawl__run_jl_status(run *r, const char *status);
cJSON *crawl__run_target_json(const action *a);
void crawl__run_add_args(cJSON *o, const action *a);
void crawl__run_jl_review(run *r, const char *kind, const char *severity, int state, const action *a,
                      const char *remediation, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
void crawl__run_journal_run(run *r, const cJSON *env, const char *base, const seed *seeds, int nseeds, int resumed);
void crawl__run_net_begin(run *r, const char *phase);
void crawl__run_net_mute(run *r, int off);
int crawl__run_net_active(run *r);
void crawl__run_net_write(run *r, crawl__netlog_ctx *ctx);

/* ---- explore_states.c ---- */
int crawl__run_find_state(const run *r, const char *fp);
char *crawl__run_route_id_of(const run *r, const char *rk);
char *crawl__run_fp_route(run *r, const pg_graph *g, const char *rk);
int crawl__run_template_fold(const run *r, const char *rk);
state *crawl__run_state_slot(run *r);
pg_options crawl__run_graph_opts(const run *r);
int crawl__run_add_state(run *r, int parent, const action *via, int seed, const char *route);
void crawl__run_journal_mirrored(run *r, int si);

/* ---- explore_actions.c ---- */
void crawl__run_action_key(char *buf, size_t n, const char *action_id, const cJSON *target_or_null,
                       const cJSON *args_or_null, const action *a);
void crawl__run_prepare_state(run *r, int si);

/* ---- explore_forms.c ---- */
/* sandbox_write: marks the submit controls among actions [0, n) of state
 * si as form drafts (draft 1) and appends their required-field-left-empty
 * variants (draft 2); returns the new count. Elsewhere: n. */
int crawl__run_draft_actions(run *r, int si, int n);
/* The last draft's record (act_form.c) as args.draft of journal line o;
 * its mode and submit control count as done for the run. */
void crawl__run_add_draft(run *r, cJSON *o);

/* ---- explore_observe.c ---- */
const crawl_login *crawl__run_signin_recipe(const run *r);
int crawl__run_observe(run *r, crawl_code *rc, char **route);
cJSON *crawl__run_signals_between(run *r, const pg_graph *a, const char *route_a, const pg_graph *b, const char *route_b);
crawl_code crawl__run_perform_(run *r, const action *a, act_refusal *refused, char *why, size_t whylen);
crawl_code crawl__run_perform(run *r, const action *a, char *why, size_t whylen);
crawl_code crawl__run_navigate(run *r, const char *url, int same_document, char *why, size_t whylen);

/* ---- explore_tab.c ---- */
int crawl__run_scope_has(const run *r, const char *url);
int crawl__run_budget_stop(run *r);
int crawl__run_cancel_seen(run *r, crawl_code rc);
void crawl__run_note_error(run *r, crawl_code rc);
void crawl__run_strv_free(char **v, size_t n);
int crawl__run_recover(run *r);
int crawl__run_walk_edge(run *r, const edge *e);
void crawl__run_unrestorable(run *r, int si);
int crawl__run_restore(run *r, int si);
void crawl__run_open_tab(run *r);

/* ---- explore_resume.c ---- */
int crawl__run_state_by_id(const run *r, const char *id);
void crawl__run_mark_done(state *s, char *const *keys, size_t n);
void crawl__run_resume_state(run *r, const cJSON *j, const char *sid);
void crawl__run_known_transition(run *r, int from, int to, const cJSON *j);
int crawl__run_resume_record(void *ud, const char *type, cJSON *j);
extern const char *const crawl__run_resume_types[];

/* ---- explore_seeds.c ---- */
const cJSON *crawl__run_plan_payload(const cJSON *plan);
void crawl__run_seeds_free(seed *seeds, int n);
void crawl__run_drive_url_seeds(run *r, seed *seeds, int nseeds);
void crawl__run_drive_control_seeds(run *r, seed *seeds, int nseeds);
int crawl__run_control_seeds(const seed *seeds, int nseeds);
int crawl__run_seeds(run *r, int resumed, seed **out);

/* ---- explore_step.c ---- */
int crawl__run_folded(const run *r, int to, const char *rk);
void crawl__run_landed_route(run *r, cJSON *o, const char *rk);
void crawl__run_step(run *r, int si, int i);
/* A control's outcome counted (self-loop, signals) for the end's missing_success_signal review. */
void crawl__run_count_loop(run *r, const action *a, int self, int nsignals);

/* ---- explore_probe.c ---- */
void crawl__run_probe_pending(action *a);
int crawl__run_probe_begin(run *r, int si, action *a, probe_ctx *pc);
void crawl__run_probe_abort(run *r, int si, const action *a, probe_ctx *pc);
int crawl__run_probe_end(run *r, int si, action *a, probe_ctx *pc);
void crawl__run_probe_annotate(run *r, cJSON *transition);
int crawl__run_probe_known(const run *r, const action *rec);
crawl_code crawl__run_probe_replay(run *r, int si, const action *rec, act_refusal *refused, char *why,
                                   size_t whylen);

/* ---- explore_shared.c ---- */
void crawl__run_shared_failed(run *r);
int crawl__run_shared_known(run *r, const char *rk);
void crawl__run_shared_add(run *r, int idx, const char *record);
void crawl__run_shared_edge_out(run *r, const cJSON *o);
void crawl__run_shared_refresh(run *r);
void crawl__run_shared_did(run *r, int si, int i);
int crawl__run_shared_hold(run *r, int si);
void crawl__run_shared_settle(run *r, int si);
void crawl__run_shared_release_all(run *r);
int crawl__run_shared_more(run *r);
crawl_code crawl__run_shared_open(run *r, crawl_summary *sum);

/* ---- explore_principals.c ---- */
int crawl__run_sign_in(run *r, int again);
int crawl__run_sign_in_again(run *r);
void crawl__run_close_tab(run *r);
void crawl__run_explore_principals(run *r, seed *seeds, int nseeds);

/* ---- explore_access.c ---- */
void crawl__run_probe_access(run *r);

/* ---- baseline.c ---- */
crawl_code crawl__run_baseline_open(run *r, char *err, size_t errlen);
void crawl__run_baseline_state(run *r, int si);
void crawl__run_baseline_prepared(run *r, int si); /* si's actions built: the paths that only verify */
void crawl__run_baseline_step(run *r, int si, int to, const action *a);
void crawl__run_baseline_close(run *r);
cJSON *crawl__run_baseline_summary(const run *r);
/* The end record's openStates: per state, the actions the gate allowed that
 * nobody tried and whose outcome the frontier cannot predict (-1: never prepared), and a kept state's as last night left
 * it; the next night's baseline explores there first (docs/nightly.md). */
cJSON *crawl__run_open_states(const run *r);
void crawl__run_baseline_free(run *r);

/* ---- explore.c ---- */
void crawl__run_explore(run *r);

#endif

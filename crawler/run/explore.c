/* explore.c -- the discovery run (crawl_run) as a pipeline of named steps:
 * open (budgets, output folders, the journal; a resumed run read back),
 * seeds (collected, resolved, planned: explore_seeds.c), explore (the loop
 * below: where to work next, the walk there, one step), close (the end
 * record, then the package from the journal).
 *
 * Order of work (discovery-mapper section 10): prepare (browser, tab, guard),
 * seed (load each seed URL, capture the initial states), explore (BFS over
 * states; per state, its actions in priority order: local UI first, then
 * navigation), then extract/synthesize/review via the package builder, which
 * reads the journal. Every action is decided by the policy first and the
 * decision is journaled, also for actions never taken.
 *
 * The run's state (`run`, explore_int.h) is shared by the explore_*.c files;
 * each owns one part: the journal (explore_journal.c), the state table
 * (explore_states.c), a state's actions (explore_actions.c), observing the
 * page (explore_observe.c), the tab and restoring states (explore_tab.c),
 * one step (explore_step.c), resume (explore_resume.c), seeds
 * (explore_seeds.c), the shared frontier (explore_shared.c), principals
 * (explore_principals.c) and access probing (explore_access.c). */
#include "explore_int.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the run: open ----------------------------------------------------------------------- */
static int mkdir_p(const char *dir) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s", dir);
  for (char *p = tmp + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
      *p = '/';
    }
  return mkdir(tmp, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

/* Budgets with their defaults, the output folders, and the journal opened
 * for appending (a torn last line cut off), then, when resuming, read back:
 * states, edges, what was done, counters (*resumed: a run to continue was
 * there). */
static crawl_code run_open(run *r, const crawl_opts *o, crawl_summary *sum, int *resumed) {
  if (o->baseline && crawl__run_baseline_open(r, sum->error, sizeof sum->error) != CRAWL_OK)
    return CRAWL_BASELINE; /* before anything is written */
  r->b = o->budget;
  if (r->b.max_states <= 0) r->b.max_states = 200;
  if (r->b.max_transitions <= 0) r->b.max_transitions = 2000;
  if (r->b.max_depth <= 0) r->b.max_depth = 12;
  r->f.max_depth = r->b.max_depth;
  if (r->b.max_runtime_ms <= 0) r->b.max_runtime_ms = 600000;
  snprintf(r->dir, sizeof r->dir, "%s", o->out_dir);
  char path[8400];
  snprintf(path, sizeof path, "%s/states", r->dir);
  if (mkdir_p(path) != 0) {
    snprintf(sum->error, sizeof sum->error, "cannot create %.300s: %s", path, strerror(errno));
    return CRAWL_IO;
  }
  if (o->screenshots) {
    snprintf(path, sizeof path, "%s/screenshots", r->dir);
    mkdir_p(path);
  }
  snprintf(path, sizeof path, "%s/accessibility", r->dir);
  mkdir_p(path);
  snprintf(path, sizeof path, "%s/" CRAWL__JOURNAL_FILE, r->dir);
  *resumed = 0;
  if (o->resume && access(path, F_OK) != 0) {
    snprintf(sum->error, sizeof sum->error, "nothing to resume: %.300s does not exist", path);
    return CRAWL_IO;
  }
  char err[480];
  r->jl = crawl__journal_open(r->dir, 1, err, sizeof err);
  if (!r->jl) {
    snprintf(sum->error, sizeof sum->error, "cannot write %s", err);
    return CRAWL_IO;
  }
  r->secrets = crawl__secrets_for(o->session, o->redact_pii); /* before the first line */
  crawl__journal_secrets(r->jl, r->secrets);
  crawl__secrets_add_all(r->secrets, o->secrets);  /* the caller's: --connect's credentials */
  crawl__secrets_add_url(r->secrets, o->frontier, 1);
  for (int i = 0; o->urls && o->urls[i]; i++) crawl__secrets_add_url(r->secrets, o->urls[i], 0);
  crawl__log_secrets(r->secrets);
  if (!o->resume) return CRAWL_OK;
  crawl__journal_stats st;
  if (crawl__journal_read(r->dir, crawl__run_resume_types, crawl__run_resume_record, r, &st, err, sizeof err)) {
    snprintf(sum->error, sizeof sum->error, "cannot resume: %s", err);
    return CRAWL_IO;
  }
  *resumed = st.records > 0 && r->run_id[0];
  return CRAWL_OK;
}

/* ---- the run: explore ------------------------------------------------------------------------ */
/* Where to work next, tier by tier (frontier.h): a control never tried in
 * the run wherever it is (new ground before new combinations of what was
 * tried); then unpredictable local UI a few steps away (finish what is near
 * before following links away: coming back costs a reload), else
 * unpredictable actions wherever they are; then the rest. Wherever: in the
 * current state, else the nearest state over known edges and predictable
 * controls (path, *len hops), else the oldest (*len -1: reload and replay).
 * A walk that went astray three times in a row falls back to reloading.
 * Returns the state (-1: the frontier is empty) and its tier in *tier. */
static int explore_tier(run *r, int t, fr_hop *path, int *len) {
  int target = -1;
  if (r->deviations < 3) target = fr_plan_path(&r->f, r->cur, t, FR_MAX_HOPS, path, len);
  if (target >= 0 && *len > r->f.st[target].depth + 2) *len = -1; /* a reload is cheaper */
  for (int k = 0; k < r->f.nst && target < 0; k++)
    if (fr_pending(&r->f, k, t)) { target = k; *len = -1; }
  return target;
}

static int explore_target(run *r, fr_hop *path, int *len, int *tier) {
  *tier = FR_TIER_FRESH;
  int target = explore_tier(r, FR_TIER_FRESH, path, len);
  if (target >= 0) return target;
  *tier = FR_TIER_LOCAL;
  if (r->deviations < 3) target = fr_plan_path(&r->f, r->cur, FR_TIER_LOCAL, FR_LIKELY_HOPS, path, len);
  for (int t = FR_TIER_NEW; t <= FR_TIER_ANY && target < 0; t++) target = explore_tier(r, *tier = t, path, len);
  return target;
}

/* Walk the len hops of path; 1 when the page arrived at target. */
static int walk_path(run *r, const fr_hop *path, int len, int target) {
  for (int h = 0; h < len && !r->fatal && !r->cancelled && !r->signed_out && !crawl__run_budget_stop(r); h++) {
    if (path[h].edge >= 0) crawl__run_walk_edge(r, &r->f.ed[path[h].edge]);
    else crawl__run_step(r, path[h].from, path[h].act);
    if (r->cur != path[h].to) { r->deviations++; break; }
  }
  return r->cur == target;
}

/* A state whose restore failed this often is given up (dead): the first
 * failure may be a slow load on a busy machine, not a path that is gone. */
#define RESTORE_TRIES 2

/* Greedy online exploration: go on from where the page is while the
 * current state has untried actions; otherwise the nearest state (over
 * known edges) that has some; otherwise the oldest, by reload and replay. */

void crawl__run_explore(run *r) {
  while (!crawl__run_budget_stop(r) && !r->sh_lost) {
    if (r->fatal && crawl__run_recover(r) != 0) break;
    if (r->signed_out && crawl__run_sign_in_again(r) != 0) break;
    fr_hop path[FR_MAX_HOPS];
    int len = 0, tier;
    if (r->transitions - r->depths_at >= 32) { /* what is one likely click from a seed is not deep */
      fr_depths(&r->f);
      r->depths_at = r->transitions;
    }
    fr_learn(&r->f);
    if (r->sh) crawl__run_shared_refresh(r);
    int target = explore_target(r, path, &len, &tier);
    if (target < 0 && (!r->sh || crawl__run_shared_more(r) < 0)) break; /* frontier empty (shared: drained) */
    if (target < 0) continue;                                  /* leased one, or waited */
    if (r->sh && !crawl__run_shared_hold(r, target)) continue;            /* another worker's: plan again */
    if (len > 0) {
      long long t0 = cdp_now_ms();
      r->in_restore = 1;
      int walked = walk_path(r, path, len, target);
      r->in_restore = 0;
      crawl__timing_add(&r->tm, CRAWL_PH_RESTORE, cdp_now_ms() - t0);
      if (!walked) continue; /* plan again from where we are */
    } else if (r->cur != target && crawl__run_restore(r, target) != 0) {
      if (r->cancelled) break;
      if (r->fatal || r->signed_out) continue; /* recover or sign in at the top */
      if (++r->f.st[target].restore_fails < RESTORE_TRIES) continue; /* a slow load, a busy machine: again */
      r->f.st[target].dead = 1;
      crawl__run_unrestorable(r, target);
      if (r->sh) crawl__run_shared_settle(r, target);
      continue;
    }
    if (r->sh && r->f.st[target].mirrored) crawl__run_journal_mirrored(r, target);
    if (!r->f.st[target].acts) crawl__run_prepare_state(r, target);
    int i = -1; /* the tier planned for; a state prepared just now may hold only later tiers' work */
    for (int t = tier; t <= FR_TIER_ANY && i < 0; t++) i = fr_next_action(&r->f, target, t);
    if (i >= 0) crawl__run_step(r, target, i);
    if (r->sh) crawl__run_shared_settle(r, target);
  }
  if (r->sh) crawl__run_shared_release_all(r);
}

/* ---- the run: close ---------------------------------------------------------------------------- */
/* The end record and the summary: a review item per control that never
 * changed anything, the status, what stopped the run, the timing. */
static void finish(run *r, crawl_summary *sum) {
  /* controls that never changed anything: the spec wants a review item
   * (this is the live side of "reviewing"; the package build derives the rest) */
  for (int i = 0; i < r->nloops; i++) {
    struct loopstat *l = &r->loops[i];
    if (!l->moved && l->self && !l->signals)
      crawl__run_jl_review(r, "missing_success_signal", "low", -1, &l->a,
                "Give the control an observable effect (a status message, a route or state change) or annotate what it does.",
                CRAWL__LOOP_REVIEW_FMT, l->a.action_id, l->self);
    free(l->key);
    fr_action_free(&l->a);
  }
  free(r->loops);
  r->loops = NULL;
  r->nloops = 0;
  const char *status = r->cancelled ? "cancelled" : r->fatal ? "failed" : "completed";
  cJSON *o = cJSON_CreateObject();
  char ts[64];
  cJSON_AddStringToObject(o, "status", status);
  cJSON_AddStringToObject(o, "finishedAt", crawl__time_iso(ts, sizeof ts));
  cJSON_AddStringToObject(o, "stoppedBy", r->stopped_by ? r->stopped_by : "frontier");
  cJSON_AddItemToObject(o, "timing", crawl__timing_json(&r->tm));
  cJSON *bl = crawl__run_baseline_summary(r);
  if (bl) cJSON_AddItemToObject(o, "baseline", bl);
  cJSON_AddItemToObject(o, "openStates", crawl__run_open_states(r)); /* the next night's frontier */
  crawl__run_jl_write(r, "end", o);
  char tm[512];
  crawl__timing_format(&r->tm, (long)r->tm.ph[CRAWL_PH_ACT].count, tm, sizeof tm);
  crawl_log(CRAWL_LOG_INFO, "crawl", "time per action: %s", tm);
  sum->states = r->f.nst;
  sum->transitions = r->transitions;
  sum->self_loops = r->self_loops;
  sum->decisions = r->decisions;
  sum->failures = r->failures;
  sum->reviews = r->reviews;
  sum->stopped_by = r->stopped_by ? r->stopped_by : "frontier";
  sum->status = status;
}

/* The closing notes, the depth budget, the end line; then the package. */
static crawl_code run_close(run *r, crawl_summary *sum) {
  crawl__run_baseline_close(r); /* carried transitions, gone states */
  if (r->stopped_by) crawl__run_jl_note(r, "stopped by %s", r->stopped_by);
  if (r->page) {
    r->dialogs += crawl_page_dialogs(r->page);
    r->popups += crawl_page_popups(r->page);
    r->reads_let += crawl_page_reads(r->page, NULL);
  }
  if (r->dialogs) crawl__run_jl_note(r, "dismissed %ld JavaScript dialogs (alert, confirm, prompt, beforeunload)", r->dialogs);
  if (r->popups) crawl__run_jl_note(r, "closed %ld popup windows", r->popups);
  if (r->reads_let)
    crawl__run_jl_note(r, "the write guard let %ld requests through as reads (GraphQL queries, --allow-read; "
                       "docs/safety.md)", r->reads_let);
  if (crawl__secrets_dropped(r->secrets))
    crawl__run_jl_note(r, "the secret list was full (%d values): %ld more redacted values were not remembered; later "
            "outputs may hold them", CRAWL__SECRETS_MAX, crawl__secrets_dropped(r->secrets));
  int depth_capped = 0;
  for (int si = 0; si < r->f.nst; si++) depth_capped += r->f.st[si].depth >= r->b.max_depth;
  if (depth_capped) {
    cJSON *bo = cJSON_CreateObject();
    cJSON_AddStringToObject(bo, "budget", "maxDepth");
    cJSON_AddNumberToObject(bo, "limit", (double)r->b.max_depth);
    crawl__run_jl_write(r, "budget", bo);
  }
  /* 5.-7.: the catalogs, the workflow candidates and the review queue come
   * from the journal (crawl_package_write, right after the end record);
   * the statuses say so in the lifecycle's order */
  crawl__run_jl_status(r, "extracting");
  crawl__run_jl_status(r, "synthesizing");
  crawl__run_jl_status(r, "reviewing");
  finish(r, sum);
  crawl_page_close(r->page);
  r->page = NULL;
  pg_graph_free(r->g);
  r->g = NULL;
  crawl__journal_close(r->jl);
  r->jl = NULL;
  /* the package comes from the journal and the state files alone: the
   * run's tables go first, so its build reuses their memory (docs/performance.md) */
  fr_free(&r->f);
  crawl__run_graph_json_drop(r);
#ifdef __GLIBC__
  /* what exploring freed goes back to the system before the build grows:
   * left resident, the freed pieces that the build's allocations do not
   * fit stayed counted in the run's peak (docs/measurements-memory.md) */
  malloc_trim(0);
#endif
  return crawl_package_make(r->dir, r->o->package, sum->error, sizeof sum->error);
}

static void run_free(run *r) {
  if (r->sh && crawl__shared_dropped(r->sh))
    crawl_log(CRAWL_LOG_WARN, "frontier", "%ld records of the shared frontier were dropped: forged or damaged "
              "(their tags do not match the run's key)", crawl__shared_dropped(r->sh));
  free(r->seed_origins);
  r->seed_origins = NULL;
  free(r->scope);
  r->scope = NULL;
  crawl__shared_close(r->sh);
  r->sh = NULL;
  crawl__timing_release(&r->tm);
  crawl__journal_close(r->jl);
  r->jl = NULL;
  crawl__log_secrets(NULL);
  crawl__secrets_free(r->secrets);
  r->secrets = NULL;
  fr_free(&r->f);
  crawl__strmap_release(&r->by_loop);
  crawl__strmap_release(&r->drafted);
  crawl__strmap_release(&r->route_alias);
  pg_route_learner_free(r->routes);
  crawl__strmap_release(&r->load_writes);
  crawl__strmap_release(&r->probed_ok);
  crawl__strmap_release(&r->probed_bad);
  cJSON_Delete(r->probe_meta);
  crawl__run_graph_json_drop(r);
  crawl__run_baseline_free(r);
}

/* ---- the run: the pipeline -------------------------------------------------------------------- */
/* Seeding and exploring: as each principal in turn, else in one tab. */
static void run_explore(run *r, seed *seeds, int nseeds) {
  const crawl_opts *o = r->o;
  if (o->nprincipals) {
    crawl__run_explore_principals(r, seeds, nseeds);
  } else {
    crawl__run_open_tab(r);
    crawl__run_jl_status(r, "seeding");
    crawl__run_drive_url_seeds(r, seeds, nseeds);
    if (!r->sh) crawl__run_drive_control_seeds(r, seeds, nseeds);
    else if (crawl__run_control_seeds(seeds, nseeds))
      crawl__run_jl_note(r, "control seeds are not driven first with a shared frontier; the workers explore from the URL seeds");
    crawl__run_jl_status(r, "exploring");
    crawl__run_explore(r);
  }
}

/* How a run that wrote its package ended, as crawl_run's code (sum->error:
 * why): the guard stopped it (CRAWL_OK: the package is written; the CLI
 * exits with the guard's code), the browser was lost, the shared frontier
 * stopped answering, or no seed loaded. */
static crawl_code run_verdict(const run *r, crawl_summary *sum) {
  if (r->guard_stop) { /* the package is written; the CLI exits with the guard's code */
    snprintf(sum->error, sizeof sum->error, "%.500s", r->err);
    return CRAWL_OK;
  }
  if (r->fatal && !r->cancelled) { /* a cancelled run's package says "cancelled" (mapper 14.7) */
    snprintf(sum->error, sizeof sum->error, "%.500s", r->err);
    return CRAWL_BROWSER;
  }
  if (r->sh_lost) { /* the package holds what this worker found */
    snprintf(sum->error, sizeof sum->error, "%.500s", r->err);
    return CRAWL_FRONTIER;
  }
  /* NB: run_free emptied the table, so this always copies seed_err (""
   * when every seed loaded), as it did before the split */
  if (!r->f.nst) snprintf(sum->error, sizeof sum->error, "%.500s", r->seed_err); /* no seed loaded: why */
  return CRAWL_OK;
}

/* The run: open -> seeds -> explore (each principal, or one tab) -> close
 * (the package). Documented in crawl.h. */
crawl_code crawl_run(cdp_client *c, const crawl_opts *o, crawl_summary *sum) {
  memset(sum, 0, sizeof *sum);
  run R = {.o = o, .c = c, .cur = -1, .pri = -1, .phase = -1, .t0 = cdp_now_ms()}, *r = &R;
  crawl_code rc0;
  if ((rc0 = crawl__run_shared_open(r, sum)) != CRAWL_OK) return rc0; /* before anything is written */
  int resumed;
  crawl_code rc = run_open(r, o, sum, &resumed);
  if (rc) {
    run_free(r);
    return rc;
  }
  if (r->sh) crawl__shared_use_secrets(r->sh, r->secrets);
  seed *seeds;
  int nseeds = crawl__run_seeds(r, resumed, &seeds);
  crawl__run_jl_status(r, "preparing");
  run_explore(r, seeds, nseeds);
  crawl__run_cancel_seen(r, CRAWL_OK); /* cancelled in any phase: the package says so */
  crawl_code prc = run_close(r, sum);
  if (!prc && o->nprincipals && !r->cancelled && !r->guard_stop) {
    char aerr[512];
    if (crawl_access_actions_write(r->dir, aerr, sizeof aerr))
      crawl_log(CRAWL_LOG_WARN, "crawl", "access.json keeps no actions: %s", aerr);
  }
  run_free(r);
  crawl__run_seeds_free(seeds, nseeds);
  free(seeds);
  if (prc) return prc;
  return run_verdict(r, sum);
}

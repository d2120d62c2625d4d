/* explore_shared.c -- the run's side of a frontier shared with other workers
 * (docs/scale.md): opening it with the run's key, mirroring its states
 * into the table (never widening the scope), its transitions as edges,
 * leases (hold, settle, release), and the maxTransitions all workers share.
 * The Redis protocol is shared.c's. */
#include "explore_int.h"

#include <unistd.h>

/* ---- the run: a frontier shared with other workers (docs/scale.md) ---------------------------- */
/* How long a state another worker holds is left out of planning: it holds
 * one state at a time and moves on after a few actions, giving it back. */
#define FOREIGN_RETRY_MS 1000

/* The shared frontier failed (Redis gone after its one reconnect): stop. */
void crawl__run_shared_failed(run *r) {
  if (r->sh_lost) return;
  r->sh_lost = 1;
  snprintf(r->err, sizeof r->err, "the shared frontier stopped answering: %s", crawl__shared_error(r->sh));
  crawl__run_jl_note(r, "stopped: %s", r->err);
  if (!r->stopped_by) r->stopped_by = "error";
}

/* State id of the shared frontier in the table, its ancestors first (from
 * their records). -1 when the frontier does not know it. */
static int shared_mirror(run *r, const char *id, int hops) {
  int k = crawl__run_state_by_id(r, id);
  if (k >= 0 || hops > 256) return k;
  char *rec = crawl__shared_record(r->sh, id);
  cJSON *j = rec ? cJSON_Parse(rec) : NULL;
  free(rec);
  if (!j) return -1;
  const char *url = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "url"));
  if (!crawl__run_scope_has(r, url)) { /* another worker's state never widens this run's scope */
    crawl_log(CRAWL_LOG_WARN, "frontier", "dropped state %.80s of the shared frontier: its URL %.200s is outside "
              "the run's scope", id, url ? url : "(none)");
    cJSON_Delete(j);
    return -1;
  }
  const char *pid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "parentStateId"));
  if (pid) shared_mirror(r, pid, hops + 1);
  crawl__run_resume_state(r, j, id);
  cJSON_Delete(j);
  r->f.st[r->f.nst - 1].mirrored = 1;
  r->f.st[r->f.nst - 1].held_back = r->f.st[r->f.nst - 1].depth >= r->b.max_depth;
  return r->f.nst - 1;
}

/* The fold key of a state with content fingerprint cfp on route rk: its
 * content and the route without its fragment, and whether it had one
 * (other: the key of the counterpart, with a fragment where rk has none
 * and the reverse). observe() folds the two in one table; the shared
 * frontier's fold keys do so across workers. */
static void fold_key(char *buf, size_t n, const char *cfp, const char *rk, int other) {
  size_t base = strcspn(rk ? rk : "", "#");
  int frag = rk && rk[base] != 0;
  snprintf(buf, n, "%s|%.*s|%d", cfp, (int)(base < 900 ? base : 900), rk ? rk : "", other ? !frag : frag);
}

/* The current capture is a state another worker registered (under its
 * fingerprint, or the same page with or without a route fragment: folded
 * as observe() does): its index in the table (mirrored, and journaled
 * here: the page shows it); -1 when it is new to the run. */
int crawl__run_shared_known(run *r, const char *rk) {
  char *id = crawl__shared_known(r->sh, r->cur_fp);
  if (!id && !crawl__shared_error(r->sh)[0]) {
    char key[1100];
    fold_key(key, sizeof key, r->cur_cfp, rk, 1);
    id = crawl__shared_fold_find(r->sh, key);
  }
  if (!id) {
    if (crawl__shared_error(r->sh)[0]) crawl__run_shared_failed(r);
    return -1;
  }
  int k = shared_mirror(r, id, 0);
  free(id);
  if (k >= 0) {
    memcpy(r->cur_fp, r->f.st[k].fp, sizeof r->cur_fp);
    crawl__run_journal_mirrored(r, k);
  }
  return k;
}

/* State idx is new to this worker: offer it to the run (queued for
 * expansion unless at the depth budget). */
void crawl__run_shared_add(run *r, int idx, const char *record) {
  char *winner = NULL;
  const state *s = &r->f.st[idx];
  if (crawl__shared_register(r->sh, s->fp, s->id, record, s->depth < r->b.max_depth, &winner) < 0) crawl__run_shared_failed(r);
  free(winner); /* the same fingerprint gives the same id */
  r->f.st[idx].held_back = s->depth >= r->b.max_depth;
  char key[1100];
  fold_key(key, sizeof key, s->cfp, s->route, 0);
  if (crawl__shared_fold_note(r->sh, key, s->id) < 0) crawl__run_shared_failed(r);
}

/* Transition o (a journal record) for the other workers' paths: what it
 * needs to be walked and timed, scrubbed as the state records are. */
void crawl__run_shared_edge_out(run *r, const cJSON *o) {
  static const char *const keep[] = {"fromStateId", "toStateId", "viaActionId", "target", "args", "durationMs"};
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, "by", crawl__shared_owner(r->sh));
  for (size_t k = 0; k < sizeof keep / sizeof *keep; k++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, keep[k]);
    if (v) cJSON_AddItemToObject(e, keep[k], cJSON_Duplicate(v, 1));
  }
  crawl__secrets_scrub_json(r->secrets, e);
  char *text = cJSON_PrintUnformatted(e);
  if (text && crawl__shared_edge_push(r->sh, text) < 0) crawl__run_shared_failed(r);
  free(text);
  cJSON_Delete(e);
}

/* A state of another worker's transition in the table: one new to this
 * worker is the other's to expand (it is there, and goes on from it). Until
 * this worker leases it, it is learned: only its predictable work is
 * planned here (FR_TIER_ANY: the links every state has, which land a
 * worker on a page the other found). Planning all of it after a while (1 s,
 * 5 s) made R=20 at 40 s find far fewer states (199-217 of 260 against
 * 260): both workers crowded into what one of them had just found. */
static int edge_end(run *r, const char *id) {
  int known = crawl__run_state_by_id(r, id);
  if (known >= 0) return known;
  int k = shared_mirror(r, id, 0);
  if (k >= 0) r->f.st[k].learned = 1;
  return k;
}

/* The other workers' transitions since the last call, into the table: this
 * worker's paths use their edges (and what they did is done here), so it
 * walks the run's graph, not the half it took itself. */
static void shared_edges_in(run *r) {
  char **recs = NULL;
  size_t n = 0;
  if (crawl__shared_edges(r->sh, r->sh_edges, &recs, &n) < 0) {
    crawl__run_shared_failed(r);
    return;
  }
  const char *me = crawl__shared_owner(r->sh);
  for (size_t k = 0; k < n; k++) {
    cJSON *j = cJSON_Parse(recs[k]);
    const char *by = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "by"));
    if (j && by && strcmp(by, me)) {
      int from = edge_end(r, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "fromStateId")));
      int to = edge_end(r, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "toStateId")));
      if (from >= 0 && to >= 0 && from != to) crawl__run_known_transition(r, from, to, j);
    }
    cJSON_Delete(j);
  }
  r->sh_edges += (long)n;
  crawl__run_strv_free(recs, n);
}

/* Before each plan: states another worker held are planned again once
 * FOREIGN_RETRY_MS have passed (shared_hold); states held back at the depth
 * budget that this worker now knows a shorter way to (fr_relax, fr_depths)
 * go to the queue, for whoever is free: maxDepth holds back what is deep,
 * not what one worker found the long way. */
void crawl__run_shared_refresh(run *r) {
  long long now = cdp_now_ms();
  shared_edges_in(r);
  for (int k = 0; k < r->f.nst && !r->sh_lost; k++) {
    state *s = &r->f.st[k];
    if (s->foreign && s->foreign_until && now >= s->foreign_until) s->foreign = 0, s->foreign_until = 0;
    if (!s->held_back || s->depth >= r->b.max_depth) continue;
    s->held_back = 0;
    s->foreign = 0;
    if (crawl__shared_unhold(r->sh, s->id) < 0) crawl__run_shared_failed(r);
  }
}

/* What any worker already did in state si, as done in the table. */
static void shared_pull_done(run *r, int si) {
  char **keys = NULL;
  size_t n = 0;
  if (crawl__shared_acts(r->sh, r->f.st[si].id, &keys, &n) != 0) {
    crawl__run_shared_failed(r);
    return;
  }
  crawl__run_mark_done(&r->f.st[si], keys, n);
  crawl__run_strv_free(keys, n);
}

/* Action i of state si was done here: so on the shared frontier (step()). */
void crawl__run_shared_did(run *r, int si, int i) {
  char key[1200];
  crawl__run_action_key(key, sizeof key, NULL, NULL, NULL, &r->f.st[si].acts[i]);
  if (crawl__shared_act_done(r->sh, r->f.st[si].id, key) < 0) crawl__run_shared_failed(r);
}

/* Give up the lease on si: finished when nothing is left in it (or it is
 * dead), else back to the front of the queue for whoever is free. */
static void shared_let_go(run *r, int si) {
  state *s = &r->f.st[si];
  if (!s->held) return;
  s->held = 0;
  int rc = fr_untried(&r->f, si, FR_TIER_ANY) ? crawl__shared_release(r->sh, s->id) : crawl__shared_finish(r->sh, s->id);
  if (rc < 0) crawl__run_shared_failed(r);
}

/* The planner picked si: work in it only under our lease, taken from the
 * queue when nobody holds it (then what others did there is pulled in).
 * A worker holds one lease at a time: the states it leaves go back to the
 * queue (front) unless finished, so an idle worker never waits on work a
 * busy one merely holds. One that can not be taken is another worker's
 * (foreign): one it holds is planned again after FOREIGN_RETRY_MS (it is
 * likely back in the queue, near this worker's page), a finished one not
 * again unless leased. */
int crawl__run_shared_hold(run *r, int si) {
  state *s = &r->f.st[si];
  if (!s->held) {
    int took = crawl__shared_take(r->sh, s->id);
    if (took < 0) crawl__run_shared_failed(r);
    if (took != 1) {
      s->foreign = 1;
      s->foreign_until = took == 0 ? cdp_now_ms() + FOREIGN_RETRY_MS : 0;
      return 0;
    }
    s->held = 1;
    s->learned = 0;
    shared_pull_done(r, si);
  }
  for (int k = 0; k < r->f.nst; k++) {
    state *h = &r->f.st[k];
    if (!h->held) continue;
    if (k != si) { /* left for work elsewhere: finished, or back to the queue for whoever is free */
      shared_let_go(r, k);
      continue;
    }
    int mine = crawl__shared_renew(r->sh, h->id);
    if (mine < 0) crawl__run_shared_failed(r);
    if (mine == 0) h->held = 0, h->foreign = 1, h->foreign_until = cdp_now_ms() + FOREIGN_RETRY_MS;
  }
  return s->held;
}

/* After working in si: finished when nothing is left in it. */
void crawl__run_shared_settle(run *r, int si) {
  if (r->f.st[si].held && !fr_untried(&r->f, si, FR_TIER_ANY)) shared_let_go(r, si);
}

void crawl__run_shared_release_all(run *r) {
  for (int k = 0; k < r->f.nst && !r->sh_lost; k++) shared_let_go(r, k);
}

/* Wait ms, in slices, unless cancelled. */
static void shared_wait(run *r, int ms) {
  for (int t = 0; t < ms && !(r->o->cancel && *r->o->cancel); t += 50) usleep(50000);
}

/* The states this worker knows that it could take next, nearest to the
 * page first (into ids, at most max; borrowed): not its own, not dead. */
static int shared_prefer(run *r, const char **ids, int max) {
  int *near = crawl__xrealloc(NULL, (size_t)(r->f.nst ? r->f.nst : 1) * sizeof *near);
  int n = fr_nearest(&r->f, r->cur, near, r->f.nst), k = 0;
  for (int i = 0; i < n && k < max; i++) {
    const state *s = &r->f.st[near[i]];
    if (!s->held && !s->dead) ids[k++] = s->id;
  }
  free(near);
  return k;
}

/* Nothing to do here: lease the queued state nearest to the page, else the
 * oldest (1), wait while others hold leases (0: their states may add
 * more), or -1: drained, or failed. */
int crawl__run_shared_more(run *r) {
  char *id = NULL;
  const char *prefer[CRAWL__LEASE_PREFER_MAX];
  int np = shared_prefer(r, prefer, CRAWL__LEASE_PREFER_MAX);
  int back = 0, what = crawl__shared_lease(r->sh, prefer, np, &id, &back);
  if (back) crawl__run_jl_note(r, "took back %d expired lease%s of another worker", back, back == 1 ? "" : "s");
  if (what < 0) crawl__run_shared_failed(r);
  if (what == CRAWL__WAIT) shared_wait(r, 200);
  if (what != CRAWL__LEASED) return what == CRAWL__WAIT ? 0 : -1;
  int si = shared_mirror(r, id, 0);
  if (si < 0) {
    crawl__run_jl_note(r, "state %s has no record on the shared frontier; skipped", id);
    crawl__shared_finish(r->sh, id);
  } else {
    state *s = &r->f.st[si];
    s->held = 1;
    s->foreign = 0;
    s->foreign_until = 0;
    s->learned = 0;
    /* queued means within the depth budget: another worker knows a shorter
     * way than this one's table (shared_refresh) */
    if (s->depth >= r->b.max_depth) s->depth = r->b.max_depth - 1;
    s->held_back = 0;
    shared_pull_done(r, si);
    crawl__run_shared_settle(r, si); /* nothing this worker can do there (dead): finished at once */
  }
  free(id);
  return 1;
}


/* The shared frontier of o (none: CRAWL_OK and r->sh NULL), with the
 * run's key: a frontier without one is refused (its records could not be
 * told from forged ones). */
crawl_code crawl__run_shared_open(run *r, crawl_summary *sum) {
  const crawl_opts *o = r->o;
  if (!o->frontier) return CRAWL_OK;
  size_t nk = o->frontier_key ? strlen(o->frontier_key) : 0;
  if (nk < CRAWL__FRONTIER_KEY_MIN || nk > CRAWL__FRONTIER_KEY_MAX) {
    snprintf(sum->error, sizeof sum->error, "--frontier needs the run's key in UIAP_FRONTIER_KEY (%d to %d bytes, "
             "the same on every worker; docs/scale.md)%s", CRAWL__FRONTIER_KEY_MIN, CRAWL__FRONTIER_KEY_MAX,
             nk ? ": the one given has the wrong length" : "");
    return CRAWL_ARG;
  }
  if (!(r->sh = crawl__shared_open(o->frontier, o->run_id, o->lease_ms, 5000, sum->error, sizeof sum->error)))
    return CRAWL_FRONTIER;
  crawl__shared_key(r->sh, o->frontier_key);
  return CRAWL_OK;
}

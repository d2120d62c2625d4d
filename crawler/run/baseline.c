/* baseline.c -- tonight's run on last night's knowledge (--baseline;
 * docs/nightly.md). The explorer does the walking; this file only tells
 * it what it need not do again and accounts for what it did:
 *   - each state tonight is matched to last night's: the same id (its
 *     fingerprint), else the same path (parent matched, same via action),
 *     else, for a seed's state, the same URL; unchanged when the
 *     fingerprint and the actionable elements are the same, else changed;
 *   - a matched state's transitions are marked done (carried), except
 *     the actions that first reached its children (the paths that verify
 *     them), sealed probes and a seeded sample re-executed (--reverify; a
 *     changed state's twice the share); a re-executed one that lands
 *     elsewhere turns the state changed and explored afresh; a state
 *     matched late (first reached another way) is adopted with what was
 *     executed in it already;
 *   - at the close (baseline_carry.c), the carried transitions whose
 *     action the gate still allows are journaled (evidence: last night's
 *     transition), a state not reached is kept (a budget stopped the night)
 *     or gone (a review item naming where its path broke), and the counts
 *     go into the end record (metadata.baseline).
 * Reading the directory is baseline_read.c's; the close (carried
 * transitions, states kept or gone) baseline_carry.c's. */
#include "baseline.h"
#include "explore_int.h"

crawl_code crawl__run_baseline_open(run *r, char *err, size_t errlen) {
  const crawl_opts *o = r->o;
  int pct = o->reverify < 0 ? 0 : o->reverify == 0 ? 10 : o->reverify;
  return crawl__baseline_read(o->baseline, pct, &r->bl, err, errlen) ? CRAWL_BASELINE : CRAWL_OK;
}

/* ---- matching tonight's states ------------------------------------------------- */
static int of_now(const run *r, int si) {
  return r->bl && si >= 0 && si < r->bl->nof_now ? r->bl->of_now[si] : -1;
}

static void set_of_now(crawl__baseline *b, int si, int bi) {
  if (si >= b->nof_now) {
    int n = si + 64;
    b->of_now = crawl__xrealloc(b->of_now, (size_t)n * sizeof *b->of_now);
    for (int k = b->nof_now; k < n; k++) b->of_now[k] = -1;
    b->nof_now = n;
  }
  b->of_now[si] = bi;
}

static int same_str(const char *a, const char *b) { return a ? b && !strcmp(a, b) : !b; }

/* 1 when tonight's state si has a control of this role, name and scope key. */
static int now_has(const run *r, int si, const char *role, const char *name, const char *scope) {
  const state *s = &r->f.st[si];
  for (int k = 0; k < s->nacts; k++)
    if (same_str(s->acts[k].role, role) && same_str(s->acts[k].name, name) && same_str(s->acts[k].scope_key, scope)) return 1;
  return 0;
}

/* 1 when last night's state pb acted on a control of this role and name. */
static int then_had(const crawl__baseline *b, int pb, const char *role, const char *name) {
  for (int j = 0; j < b->st[pb].nout; j++) {
    const cJSON *t = crawl__get(b->tr[b->st[pb].out[j]].rec, "target");
    if (same_str(crawl__str(t, "role"), role) && same_str(crawl__str(t, "name"), name)) return 1;
  }
  return 0;
}

/* A renamed control of last night's state x: the same action, role and
 * stable id as tonight's via; without a stable id, the same action, role
 * and scope key, and a rename it must be: last night's name is gone from
 * tonight's parent (ps), tonight's was not in last night's (pb). */
static int renamed(const run *r, const crawl__bl_state *x, int pb, int ps, const action *via) {
  if (!x->via_role || !x->via_action || strcmp(x->via_role, via->role) || strcmp(x->via_action, via->action_id)) return 0;
  if (via->stable_id && *via->stable_id) return x->via_stable && !strcmp(x->via_stable, via->stable_id);
  return !x->via_stable && x->via_name && via->name && strcmp(x->via_name, via->name) && same_str(x->via_scope, via->scope_key) &&
         ps >= 0 && !now_has(r, ps, via->role, x->via_name, x->via_scope) && !then_had(r->bl, pb, via->role, via->name);
}

/* Last night's state reached from pb by a renamed control (renamed(): by
 * stable id, else the only one of its role and scope whose name changed):
 * the state is the same one, changed (issue 29). -1: none. */
static int match_renamed(const run *r, int pb, int ps, const action *via) {
  const crawl__baseline *b = r->bl;
  if (pb < 0 || !via->action_id || !via->role) return -1;
  int found = -1, n = 0;
  for (int k = 0; k < b->nst; k++) {
    const crawl__bl_state *x = &b->st[k];
    if (x->now < 0 && x->parent && !strcmp(x->parent, b->st[pb].id) && renamed(r, x, pb, ps, via)) {
      if (via->stable_id && *via->stable_id) return k;
      found = k, n++;
    }
  }
  return n == 1 ? found : -1;
}

/* Last night's state that tonight's state si is: its id, else its path, else its URL (a seed's),
 * else the path of a renamed control with the same stable id. */
static int match(const run *r, int si) {
  const crawl__baseline *b = r->bl;
  const state *s = &r->f.st[si];
  int bi = crawl__baseline_state(b, s->id);
  if (bi >= 0 && b->st[bi].now < 0) return bi;
  int pb = of_now(r, s->parent);
  char key[1200];
  if (pb >= 0) crawl__run_action_key(key, sizeof key, NULL, NULL, NULL, &s->via);
  for (int k = 0; k < b->nst; k++) {
    const crawl__bl_state *x = &b->st[k];
    if (x->now >= 0) continue;
    if (pb >= 0 && x->parent && x->via_key && !strcmp(x->parent, b->st[pb].id) && !strcmp(x->via_key, key)) return k;
    if (s->parent < 0 && !x->parent && x->url && s->url && !strcmp(x->url, s->url)) return k;
  }
  return match_renamed(r, pb, s->parent, &s->via);
}

/* The elements digest of tonight's state file of si ("" unreadable). */
static void now_digest(const run *r, int si, char d[17]) {
  char *path = crawl__xprintf("%s/states/%s.json", r->dir, r->f.st[si].id);
  size_t len;
  int e;
  char *text = crawl__file_read(path, CRAWL__BL_MAX_GRAPH, &len, &e);
  free(path);
  cJSON *g = text ? cJSON_ParseWithLength(text, len) : NULL;
  free(text);
  d[0] = 0;
  if (g) crawl__bl_elements_digest(g, d);
  cJSON_Delete(g);
}

/* 1 when transition t is the path that first reached one of last night's states from its from-state. */
static int is_path(const crawl__baseline *b, const crawl__bl_trans *t) {
  int ti = crawl__baseline_state(b, t->to);
  return ti >= 0 && b->st[ti].parent && !strcmp(b->st[ti].parent, t->from) && b->st[ti].via_key &&
         !strcmp(b->st[ti].via_key, t->key);
}

/* 1 when t was a sealed probe's: probed again tonight, never carried. */
static int probed(const crawl__bl_trans *t) {
  const char *rule = crawl__str(crawl__get(t->rec, "decision"), "rule");
  return rule && !strncmp(rule, "probe.", 6);
}

/* The actions of s with one of these keys only verify (a path into a
 * subtree last night left nothing open in): planned after everything
 * else (FR_TIER_ANY), so a night with less budget than the app explores
 * the frontier first; what it does not verify is kept. */
static int verify_only(const crawl__baseline *b, int bi, const char *key) {
  for (int j = 0; j < b->st[bi].nout; j++) {
    const crawl__bl_trans *t = &b->tr[b->st[bi].out[j]];
    int to = crawl__baseline_state(b, t->to);
    if (!strcmp(t->key, key) && !strcmp(t->from, b->st[bi].id) && !t->reverify && is_path(b, t) && to >= 0 &&
        !b->st[to].sub_open)
      return 1;
  }
  return 0;
}

static void verify_marks(run *r, int si, int bi) {
  state *s = &r->f.st[si];
  for (int i = 0; i < s->nacts; i++) { /* each action's key once */
    char key[1200];
    crawl__run_action_key(key, sizeof key, NULL, NULL, NULL, &s->acts[i]);
    s->acts[i].verify_only = verify_only(r->bl, bi, key);
  }
}

/* A matched state: its transitions done, but for the paths to its
 * children, the sealed probes and the sample to re-execute (of a changed
 * state, twice the share). A control it no longer has is not there to be
 * done; a new one is explored. */
static void carry_marks(run *r, int si, int bi) {
  crawl__baseline *b = r->bl;
  char **keys = crawl__xcalloc((size_t)b->st[bi].nout + 1, sizeof *keys);
  size_t n = 0;
  int pct = b->st[bi].verdict == CRAWL__BL_CHANGED ? 2 * b->reverify_pct : b->reverify_pct;
  for (int j = 0; j < b->st[bi].nout; j++) {
    crawl__bl_trans *t = &b->tr[b->st[bi].out[j]];
    if (strcmp(t->from, b->st[bi].id)) continue;
    t->reverify = crawl__bl_pick(b->run_id, t->id, pct > 100 ? 100 : pct);
    if (t->reverify || is_path(b, t) || probed(t)) continue;
    keys[n++] = t->key;
  }
  crawl__run_mark_done(&r->f.st[si], keys, n);
  free(keys);
  verify_marks(r, si, bi);
}

void crawl__run_baseline_prepared(run *r, int si) {
  int bi = of_now(r, si);
  if (bi >= 0 && !r->bl->st[bi].afresh) verify_marks(r, si, bi);
}

static void adopt_late(run *r, int bi, const char *key, int to);

/* Tonight's edges out of si, taken before si was known as last night's bi:
 * their ends matched now. */
static void adopt_ends(run *r, int si, int bi) {
  for (int e = 0; e < r->f.ned; e++) {
    if (r->f.ed[e].from != si || of_now(r, r->f.ed[e].to) >= 0) continue;
    char key[1200];
    crawl__run_action_key(key, sizeof key, NULL, NULL, NULL, &r->f.ed[e].a);
    adopt_late(r, bi, key, r->f.ed[e].to);
  }
}

/* What tonight executed in si before it was known as last night's bi:
 * those transitions of bi are executed, not carried. */
static void executed_before(run *r, int si, int bi) {
  crawl__baseline *b = r->bl;
  const state *s = &r->f.st[si];
  for (int i = 0; i < s->nacts; i++) {
    if (!s->acts[i].done) continue;
    char key[1200];
    crawl__run_action_key(key, sizeof key, NULL, NULL, NULL, &s->acts[i]);
    for (int j = 0; j < b->st[bi].nout; j++)
      if (!strcmp(b->tr[b->st[bi].out[j]].key, key)) b->tr[b->st[bi].out[j]].executed = 1;
  }
}

/* Tonight's state si is last night's bi: compared, and its known
 * transitions carried instead of executed. */
static void adopt(run *r, int si, int bi) {
  crawl__baseline *b = r->bl;
  set_of_now(b, si, bi);
  crawl__bl_state *x = &b->st[bi];
  char d[17];
  now_digest(r, si, d);
  x->now = si;
  x->verdict = !strcmp(x->fp, r->f.st[si].fp) && !strcmp(x->elems, d) ? CRAWL__BL_UNCHANGED : CRAWL__BL_CHANGED;
  executed_before(r, si, bi);
  carry_marks(r, si, bi);
  adopt_ends(r, si, bi);
}

/* A new state tonight (crawl__run_add_state): last night's, or new for now
 * (a later step may show which of last night's it is: baseline_step). */
void crawl__run_baseline_state(run *r, int si) {
  crawl__baseline *b = r->bl;
  if (!b) return;
  int bi = match(r, si);
  if (bi >= 0) adopt(r, si, bi);
  else set_of_now(b, si, -1), b->fresh++;
}

/* State si was matched late: its children reached before that, left new
 * for want of a matched parent, may be last night's too (their paths start
 * at si). One level per call; adopting a child matches its children in turn. */
static void rematch_children(run *r, int si) {
  crawl__baseline *b = r->bl;
  for (int k = 0; k < r->f.nst; k++) {
    if (r->f.st[k].parent != si || of_now(r, k) >= 0) continue;
    int bi = match(r, k);
    if (bi < 0) continue;
    b->fresh--;
    adopt(r, k, bi);
    rematch_children(r, k);
  }
}

/* Tonight's `to`, first reached another way, is where last night's
 * transition of this key from bi led: that state, when it is unmatched. */
static void adopt_late(run *r, int bi, const char *key, int to) {
  crawl__baseline *b = r->bl;
  for (int j = 0; j < b->st[bi].nout; j++) {
    const crawl__bl_trans *t = &b->tr[b->st[bi].out[j]];
    if (strcmp(t->from, b->st[bi].id) || strcmp(t->key, key)) continue;
    int y = crawl__baseline_state(b, t->to);
    if (y < 0 || b->st[y].now >= 0) continue;
    b->fresh--;
    adopt(r, to, y);
    rematch_children(r, to);
    return;
  }
}

/* ---- re-executed transitions --------------------------------------------------- */
/* State si turns changed: the actions carried in it are to be explored again. */
static void uncarry(run *r, int si, int bi) {
  crawl__baseline *b = r->bl;
  state *s = &r->f.st[si];
  b->st[bi].verdict = CRAWL__BL_CHANGED;
  b->st[bi].afresh = 1;
  for (int j = 0; j < b->st[bi].nout; j++) {
    const crawl__bl_trans *t = &b->tr[b->st[bi].out[j]];
    if (strcmp(t->from, b->st[bi].id) || t->executed) continue;
    for (int d = 0; d < s->ndone; d++)
      if (s->done[d][0] && !strcmp(s->done[d], t->key)) s->done[d][0] = 0;
    for (int i = 0; i < s->nacts; i++) {
      char key[1200];
      crawl__run_action_key(key, sizeof key, NULL, NULL, NULL, &s->acts[i]);
      if (!strcmp(key, t->key)) s->acts[i].done = 0, s->acts[i].verify_only = 0;
    }
  }
}

/* 1 when tonight's state `to` is where transition t led last night. */
static int same_end(const run *r, const crawl__bl_trans *t, int to) {
  int ti = crawl__baseline_state(r->bl, t->to);
  if (ti >= 0 && r->bl->st[ti].now >= 0) return r->bl->st[ti].now == to;
  return !strcmp(r->f.st[to].id, t->to);
}

/* Action a was executed in state si and led to `to` (explore_step.c): last
 * night's transitions of that action are executed, not carried; a
 * re-executed one that led elsewhere turns the state changed. */
void crawl__run_baseline_step(run *r, int si, int to, const action *a) {
  int bi = of_now(r, si);
  if (bi < 0 || to < 0) return;
  crawl__baseline *b = r->bl;
  char key[1200];
  crawl__run_action_key(key, sizeof key, NULL, NULL, NULL, a);
  int mismatch = 0;
  if (of_now(r, to) < 0) adopt_late(r, bi, key, to);
  for (int j = 0; j < b->st[bi].nout; j++) {
    crawl__bl_trans *t = &b->tr[b->st[bi].out[j]];
    if (t->executed || strcmp(t->from, b->st[bi].id) || strcmp(t->key, key)) continue;
    t->executed = 1;
    if (!t->reverify || b->st[bi].afresh) continue;
    b->reexecuted++;
    if (!same_end(r, t, to)) mismatch = 1;
  }
  if (!mismatch) return;
  b->mismatched++;
  uncarry(r, si, bi);
}

/* The counts for the end record's "baseline" (the package's metadata.baseline); NULL without one. */
cJSON *crawl__run_baseline_summary(const run *r) {
  const crawl__baseline *b = r->bl;
  if (!b) return NULL;
  long unchanged = 0, changed = 0, gone = 0, open = 0;
  for (int k = 0; k < b->nst; k++) {
    unchanged += b->st[k].now >= 0 && b->st[k].verdict == CRAWL__BL_UNCHANGED;
    changed += b->st[k].now >= 0 && b->st[k].verdict == CRAWL__BL_CHANGED;
    gone += b->st[k].now < 0 && !b->st[k].kept;
  }
  for (int si = 0; si < r->f.nst; si++)
    for (int i = 0; i < r->f.st[si].nacts; i++)
      open += r->f.st[si].acts[i].dec.effect == POL_EFFECT_ALLOW && !r->f.st[si].acts[i].done &&
              !r->f.st[si].acts[i].verify_only;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "runId", b->run_id);
  cJSON_AddNumberToObject(o, "states", b->nst);
  cJSON_AddNumberToObject(o, "verified", (double)(unchanged + changed));
  cJSON_AddNumberToObject(o, "unchanged", (double)unchanged);
  cJSON_AddNumberToObject(o, "changed", (double)changed);
  cJSON_AddNumberToObject(o, "gone", (double)gone);
  cJSON_AddNumberToObject(o, "kept", (double)b->kept);
  cJSON_AddNumberToObject(o, "new", (double)b->fresh);
  cJSON_AddNumberToObject(o, "carried", (double)b->carried);
  cJSON_AddNumberToObject(o, "reverifyPercent", b->reverify_pct);
  cJSON_AddNumberToObject(o, "reexecuted", (double)b->reexecuted);
  cJSON_AddNumberToObject(o, "reexecutedMismatched", (double)b->mismatched);
  cJSON_AddNumberToObject(o, "explored", (double)b->explored);
  cJSON_AddNumberToObject(o, "leftOpen", (double)open);
  return o;
}

cJSON *crawl__run_open_states(const run *r) {
  cJSON *o = cJSON_CreateObject();
  for (int si = 0; si < r->f.nst; si++) {
    const state *s = &r->f.st[si];
    int n = s->acts ? 0 : -1; /* never prepared: all of it open */
    for (int i = 0; i < s->nacts; i++) /* an outcome the frontier predicts is not news (a link seen elsewhere) */
      n += s->acts[i].dec.effect == POL_EFFECT_ALLOW && !s->acts[i].done && !s->acts[i].verify_only &&
           fr_likely(&r->f, &s->acts[i], si) < 0;
    if (n && s->id) cJSON_AddNumberToObject(o, s->id, n);
  }
  for (int k = 0; r->bl && k < r->bl->nst; k++) /* a kept state's, as last night left it */
    if (r->bl->st[k].kept && r->bl->st[k].open && !cJSON_GetObjectItemCaseSensitive(o, r->bl->st[k].id))
      cJSON_AddNumberToObject(o, r->bl->st[k].id, r->bl->st[k].open);
  return o;
}

void crawl__run_baseline_free(run *r) {
  crawl__baseline_free(r->bl);
  r->bl = NULL;
}

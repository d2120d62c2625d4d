/* baseline_carry.c -- the close of a night on a baseline (docs/nightly.md):
 * what tonight did not execute but knows from last night goes into
 * tonight's journal, so its package is complete on its own:
 *   - a state of last night not reached tonight is gone (a review item
 *     naming where its path broke), or, when a budget stopped the night
 *     before it could be reached, kept: its state record and file carried
 *     as last night's, with its decisions, gate and review records;
 *   - the transitions carried (baseline.c marked them done): a transition
 *     record with `carried`, last night's review records about it, its
 *     signals' scope ids translated to tonight's state files.
 * Matching and marking is baseline.c's. */
#include "baseline.h"
#include "explore_int.h"

#include <errno.h>

/* ---- tonight's side of last night's states ---------------------------------------- */
/* Tonight's id of last night's state bi (reached, or kept), else NULL. */
static const char *id_now(const run *r, int bi) {
  const crawl__bl_state *x = bi >= 0 ? &r->bl->st[bi] : NULL;
  return !x ? NULL : x->now >= 0 ? r->f.st[x->now].id : x->kept ? x->id : NULL;
}

static char **bl_scopes_of(crawl__baseline *b, int bi) {
  crawl__bl_state *x = &b->st[bi];
  if (!x->scopes) {
    char *path = crawl__xprintf("%s/%s", b->dir, x->graph);
    x->scopes = crawl__bl_scopes(path);
    free(path);
  }
  return x->scopes;
}

/* The scopes of tonight's state file of last night's bi (a kept one's is last night's). */
static char **now_scopes_of(run *r, int bi) {
  crawl__baseline *b = r->bl;
  int si = b->st[bi].now;
  if (si < 0) return bl_scopes_of(b, bi);
  if (si >= b->nnow_scopes) {
    int n = si + 64;
    b->now_scopes = crawl__xrealloc(b->now_scopes, (size_t)n * sizeof *b->now_scopes);
    memset(b->now_scopes + b->nnow_scopes, 0, (size_t)(n - b->nnow_scopes) * sizeof *b->now_scopes);
    b->nnow_scopes = n;
  }
  if (!b->now_scopes[si]) {
    char *path = crawl__xprintf("%s/states/%s.json", r->dir, r->f.st[si].id);
    b->now_scopes[si] = crawl__bl_scopes(path);
    free(path);
  }
  return b->now_scopes[si];
}

/* The signals of carried record o: a scope id of last night's from or to
 * state becomes the id of the same scope (stable id, else kind and name)
 * in tonight's files (left out when they have none), so the package maps
 * it as it maps tonight's. A signal journaled with its scope's
 * identity (explore_observe.c) needs none of this. */
static void carry_scopes(run *r, cJSON *o, int fi, int ti) {
  crawl__baseline *b = r->bl;
  cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(o, "observedSignals")) {
    const char *sc = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "scopeId"));
    if (!sc || cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(s, "scopeIdentity"))) continue; /* named by its identity */
    const char *who = crawl__bl_scope_find(bl_scopes_of(b, ti), sc, 0);
    if (!who) who = crawl__bl_scope_find(bl_scopes_of(b, fi), sc, 0);
    const char *now = crawl__bl_scope_find(now_scopes_of(r, ti), who, 1);
    if (!now) now = crawl__bl_scope_find(now_scopes_of(r, fi), who, 1);
    if (now) cJSON_ReplaceItemInObjectCaseSensitive(s, "scopeId", cJSON_CreateString(now));
    else if (who || !strncmp(sc, "sc_", 3)) cJSON_DeleteItemFromObjectCaseSensitive(s, "scopeId");
  }
}

/* Record v of last night journaled again, about tonight's state id. */
static void carry_record(run *r, crawl__bl_review *v, const char *id) {
  v->carried = 1;
  cJSON *o = cJSON_Duplicate(v->rec, 1);
  static const char *const drop[] = {"type", "at", "stateId", NULL};
  for (int k = 0; drop[k]; k++) cJSON_DeleteItemFromObjectCaseSensitive(o, drop[k]);
  cJSON_AddStringToObject(o, "stateId", id);
  crawl__run_jl_write(r, v->type, o);
  r->reviews += !strcmp(v->type, "review");
  r->decisions += !strcmp(v->type, "decision");
}

/* ---- transitions ------------------------------------------------------------------------ */
/* The action of state si with this key, when the gate allows it tonight; NULL otherwise. */
static const action *allowed_now(const run *r, int si, const char *key) {
  const state *s = &r->f.st[si];
  for (int i = 0; i < s->nacts; i++) {
    char k[1200];
    crawl__run_action_key(k, sizeof k, NULL, NULL, NULL, &s->acts[i]);
    if (!strcmp(k, key)) return s->acts[i].dec.effect == POL_EFFECT_ALLOW && !s->acts[i].probe ? &s->acts[i] : NULL;
  }
  return NULL;
}

/* Transition t of last night, carried from tonight's state of fi to that
 * of ti (a: tonight's action of that key; NULL from a kept state), with
 * the review records about it. */
static void carry_one(run *r, const crawl__bl_trans *t, int fi, int ti, const action *a) {
  crawl__baseline *b = r->bl;
  const char *from = id_now(r, fi), *to = id_now(r, ti);
  for (int k = 0; k < b->nrv; k++)
    if (!b->rv[k].carried && !strcmp(b->rv[k].type, "review") && !strcmp(b->rv[k].state, t->from) &&
        !strcmp(b->rv[k].key, t->key))
      carry_record(r, &b->rv[k], from);
  if (a) crawl__run_count_loop(r, a, fi == ti, cJSON_GetArraySize(crawl__get(t->rec, "observedSignals")));
  cJSON *o = cJSON_Duplicate(t->rec, 1);
  static const char *const drop[] = {"type", "at", "transitionId", "fromStateId", "toStateId", "selfLoop", "carried", NULL};
  for (int k = 0; drop[k]; k++) cJSON_DeleteItemFromObjectCaseSensitive(o, drop[k]);
  char tid[32];
  snprintf(tid, sizeof tid, "t_%05ld", ++r->transitions); /* as explore_step.c numbers them */
  cJSON_AddStringToObject(o, "transitionId", tid);
  cJSON_AddStringToObject(o, "fromStateId", from);
  cJSON_AddStringToObject(o, "toStateId", to);
  cJSON_AddBoolToObject(o, "selfLoop", !strcmp(from, to));
  carry_scopes(r, o, fi, ti);
  cJSON *c = cJSON_AddObjectToObject(o, "carried");
  cJSON_AddStringToObject(c, "refId", t->id);
  cJSON_AddStringToObject(c, "runId", b->run_id);
  crawl__run_jl_write(r, "transition", o);
  r->self_loops += !strcmp(from, to);
  b->carried++;
}

/* Every transition left carried whose ends are tonight's: from a reached
 * state when tonight's gate allows its action (a state never decided
 * tonight carries nothing), from a kept one as last night decided it. */
static void carry_all(run *r) {
  crawl__baseline *b = r->bl;
  for (int k = 0; k < b->ntr; k++) {
    const crawl__bl_trans *t = &b->tr[k];
    int fi = crawl__baseline_state(b, t->from), ti = crawl__baseline_state(b, t->to);
    if (t->executed || fi < 0 || ti < 0 || b->st[fi].afresh || !id_now(r, fi) || !id_now(r, ti)) continue;
    int si = b->st[fi].now;
    const action *a = si >= 0 && r->f.st[si].acts ? allowed_now(r, si, t->key) : NULL;
    if (a || b->st[fi].kept) carry_one(r, t, fi, ti, a);
  }
}

/* ---- states not reached: gone or kept ---------------------------------------------------- */
/* Where the path to last night's state x broke, in words, into buf: 1
 * when it is gone for sure, 0 when a budget may have kept the night from it. */
static int broke_at(const run *r, const crawl__bl_state *x, char *buf, size_t n) {
  const crawl__baseline *b = r->bl;
  int pb = crawl__baseline_state(b, x->parent);
  if (!x->parent || pb < 0) {
    snprintf(buf, n, "its URL %.300s led to no state of last night's", x->url ? x->url : "?");
    return 1;
  }
  if (b->st[pb].now < 0) {
    snprintf(buf, n, "its parent state %.40s was not reached either", x->parent);
    return !b->st[pb].kept;
  }
  const state *p = &r->f.st[b->st[pb].now];
  const action *a = NULL;
  for (int i = 0; i < p->nacts && !a; i++) {
    char k[1200];
    crawl__run_action_key(k, sizeof k, NULL, NULL, NULL, &p->acts[i]);
    if (x->via_key && !strcmp(k, x->via_key)) a = &p->acts[i];
  }
  int budget = !p->acts || (a && a->dec.effect == POL_EFFECT_ALLOW && !a->done);
  const char *why = !p->acts ? "was not explored tonight (budget)"
                  : !a ? "has no such control any more"
                  : a->dec.effect != POL_EFFECT_ALLOW ? "is not allowed by the gate now"
                  : !a->done ? "was not tried tonight (budget)" : "leads elsewhere now";
  snprintf(buf, n, "in state %.40s (%.200s), %.40s on %.40s \"%.120s\" %s", p->id, p->route_id ? p->route_id : "?",
           x->via_action ? x->via_action : "?", x->via_role ? x->via_role : "?", x->via_name ? x->via_name : "", why);
  return !budget;
}

static void review_gone(run *r, const crawl__bl_state *x, const char *where) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "kind", "coverage_gap");
  cJSON_AddStringToObject(o, "severity", "medium");
  char *d = crawl__xprintf("State %s of baseline %s (route %s) is gone: its path broke: %s.", x->id, r->bl->run_id,
                           x->route ? x->route : "?", where);
  cJSON_AddStringToObject(o, "description", d);
  free(d);
  if (x->route) cJSON_AddStringToObject(o, "routeId", x->route);
  cJSON_AddStringToObject(o, "remediation", "If the change is intended, nothing to do; otherwise restore the route or control.");
  crawl__run_jl_write(r, "review", o);
  r->reviews++;
}

/* Last night's state x, kept: its state file copied, its state record (its
 * parent as tonight's), decisions, gate and reviews journaled again. 0, or
 * -1 when its file could not be copied (then it is not kept). */
static int keep(run *r, crawl__bl_state *x) {
  crawl__baseline *b = r->bl;
  char *from = crawl__xprintf("%s/%s", b->dir, x->graph), *to = crawl__xprintf("%s/%s", r->dir, x->graph);
  size_t len;
  int e = 0;
  char *text = crawl__file_read(from, CRAWL__BL_MAX_GRAPH, &len, &e);
  if (text) e = crawl__file_write(to, text, len);
  free(text), free(from), free(to);
  if (e) return -1;
  x->kept = 1;
  cJSON *o = cJSON_Duplicate(x->rec, 1);
  static const char *const drop[] = {"type", "at", "parentStateId", "accessibilityRef", "screenshotRef", NULL};
  for (int k = 0; drop[k]; k++) cJSON_DeleteItemFromObjectCaseSensitive(o, drop[k]);
  const char *parent = id_now(r, crawl__baseline_state(b, x->parent));
  if (parent) cJSON_AddStringToObject(o, "parentStateId", parent);
  cJSON *c = cJSON_AddObjectToObject(o, "carried");
  cJSON_AddStringToObject(c, "refId", x->id);
  cJSON_AddStringToObject(c, "runId", b->run_id);
  crawl__run_jl_write(r, "state", o);
  for (int k = 0; k < b->nrv; k++)
    if (!b->rv[k].carried && !strcmp(b->rv[k].state, x->id)) carry_record(r, &b->rv[k], x->id);
  b->kept++;
  return 0;
}

/* Each state of last night not reached: kept when the night stopped by a
 * budget before it could reach it, else gone (in journal order: a parent
 * is decided before its children). */
static void unreached(run *r) {
  crawl__baseline *b = r->bl;
  for (int k = 0; k < b->nst; k++) {
    crawl__bl_state *x = &b->st[k];
    if (x->now >= 0) continue;
    char where[800];
    int gone = broke_at(r, x, where, sizeof where);
    if (gone || !r->stopped_by || keep(r, x)) review_gone(r, x, where);
  }
}

/* Before the end record: the states not reached, then the carried transitions. */
void crawl__run_baseline_close(run *r) {
  if (!r->bl) return;
  r->bl->explored = r->transitions;
  unreached(r);
  carry_all(r);
}

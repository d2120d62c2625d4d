/* frontier.c -- the run's shared state: states, edges, outcomes, the planner
 * (see frontier.h). */
#include "frontier.h"
#include "crawl_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fr_action_copy(action *dst, const action *src) {
  memset(dst, 0, sizeof *dst);
  if (!src) return;
  dst->action_id = crawl__xstrdup(src->action_id);
  dst->role = crawl__xstrdup(src->role);
  dst->name = crawl__xstrdup(src->name);
  dst->stable_id = crawl__xstrdup(src->stable_id);
  dst->ordinal = src->ordinal;
  dst->scope_key = crawl__xstrdup(src->scope_key);
  dst->escape = src->escape;
  dst->option = crawl__xstrdup(src->option);
  dst->href = crawl__xstrdup(src->href);
  dst->option_index = src->option_index;
  dst->option_from = src->option_from;
  dst->here = src->here;
}

void fr_action_free(action *a) {
  free(a->action_id); free(a->role); free(a->name); free(a->stable_id);
  free(a->scope_id); free(a->document_id); free(a->option); free(a->href); free(a->scope_key);
}

void fr_state_free(state *s) {
  fr_action_free(&s->via);
  for (int i = 0; i < s->ndone; i++) free(s->done[i]);
  free(s->done);
  for (int i = 0; i < s->nacts; i++) fr_action_free(&s->acts[i]);
  free(s->acts);
  free(s->id); free(s->url); free(s->route); free(s->route_id); free(s->title);
}

/* Index of the outcome record of key, created when new. */
static int outcome_of(frontier *f, const char *key) {
  int known = (int)crawl__strmap_get(&f->by_outcome, key);
  if (known >= 0) return known;
  if (f->nout == f->capout) {
    f->capout = f->capout ? f->capout * 2 : 128;
    f->out = crawl__xrealloc(f->out, (size_t)f->capout * sizeof *f->out);
  }
  f->out[f->nout] = (outcome){.key = crawl__xstrdup(key), .move_to = -1, .self_from = -1, .first_from = -1};
  crawl__strmap_put(&f->by_outcome, key, f->nout);
  return f->nout++;
}

/* The two outcome records of an action with key `key` in a state on `route`. */
void fr_outcome_keys(frontier *f, const char *key, const char *route, int *pk, int *pkr) {
  *pk = outcome_of(f, key);
  char rk[1400];
  snprintf(rk, sizeof rk, "%s\x1f%s", route ? route : "", key);
  *pkr = outcome_of(f, rk);
}

static void outcome_note1(const frontier *f, outcome *o, int from, int to) {
  if (o->first_from < 0) o->first_from = from;
  const char *a = f->st[o->first_from].route, *b = f->st[from].route;
  if (a && b && strcmp(a, b)) o->multi_route = 1;
  if (from == to) {
    if (!o->nself++) o->self_from = from;
  } else {
    if (o->move_to < 0) o->move_to = to;
    else if (o->move_to != to) o->mixed = 1;
    o->nmove++;
  }
  /* stays put in one state and moves to that same state from others: the
   * same target; staying put in two states and moving elsewhere: mixed */
  if (o->nmove && o->nself && !(o->nself == 1 && o->self_from == o->move_to)) o->mixed = 1;
}

void fr_outcome_note(frontier *f, int pk, int pkr, int from, int to) {
  if (pk >= 0) outcome_note1(f, &f->out[pk], from, to);
  if (pkr >= 0) outcome_note1(f, &f->out[pkr], from, to);
}

/* Predicted target of action a in state si: a state index (si itself when it
 * stays put), or -1 when its outcome is not known. The any-route record
 * predicts only what it saw hold on two routes (a global nav link, a toast
 * button in the header), not a route's own tab seen twice on one route. */
static int predict1(const outcome *o, int si, int any_route) {
  if (o->mixed || o->nmove + o->nself < 2 || (any_route && !o->multi_route)) return -1;
  return o->nmove ? o->move_to : si;
}

int fr_predict(const frontier *f, const action *a, int si) {
  int t = a->pkr >= 0 ? predict1(&f->out[a->pkr], si, 0) : -1;
  if (t < 0 && a->pk >= 0) t = predict1(&f->out[a->pk], si, 1);
  return t;
}

/* Following a link or selecting a tab goes where its target says, not
 * relative to the page it starts from (a toggle does): one move seen is
 * enough to expect the same move again. */
static int absolute(const action *a) { return (a->href && *a->href) || (a->role && !strcmp(a->role, "tab")); }

static int likely1(const outcome *o) { return !o->mixed && o->nmove == 1 && !o->nself ? o->move_to : -1; }

int fr_likely(const frontier *f, const action *a, int si) {
  int t = fr_predict(f, a, si);
  if (t >= 0) return t;
  if (a->here) return si;
  if (!absolute(a)) return -1;
  if (a->pkr >= 0) t = likely1(&f->out[a->pkr]);
  if (t < 0 && a->pk >= 0 && a->href && *a->href) t = likely1(&f->out[a->pk]);
  return t;
}

int fr_add_edge(frontier *f, int from, int to, const action *a) {
  char pair[32];
  snprintf(pair, sizeof pair, "%d>%d", from, to);
  int known = (int)crawl__strmap_get(&f->by_pair, pair);
  if (known >= 0) return known;
  crawl__strmap_put(&f->by_pair, pair, f->ned);
  if (f->ned == f->caped) {
    f->caped = f->caped ? f->caped * 2 : 64;
    f->ed = crawl__xrealloc(f->ed, (size_t)f->caped * sizeof *f->ed);
  }
  edge *e = &f->ed[f->ned];
  e->from = from;
  e->to = to;
  fr_action_copy(&e->a, a);
  return f->ned++;
}

/* The known edges grouped by source state: state x's edges are
 * f->ed[by_from[j]] for j in [start[x], start[x + 1]) (caller frees both). */
static void edges_by_source(const frontier *f, int **start_out, int **by_from_out) {
  int n = f->nst;
  int *start = crawl__xcalloc((size_t)n + 1, sizeof *start);
  int *by_from = crawl__xrealloc(NULL, (size_t)(f->ned ? f->ned : 1) * sizeof *by_from);
  for (int k = 0; k < f->ned; k++) start[f->ed[k].from + 1]++;
  for (int k = 0; k < n; k++) start[k + 1] += start[k];
  int *fill = crawl__xrealloc(NULL, ((size_t)n + 1) * sizeof *fill);
  memcpy(fill, start, ((size_t)n + 1) * sizeof *fill);
  for (int k = 0; k < f->ned; k++) by_from[fill[f->ed[k].from]++] = k;
  free(fill);
  *start_out = start;
  *by_from_out = by_from;
}

/* State x is reached from `from` over action a in fewer steps than it
 * was: its depth, parent and replay action follow the shorter path. */
static int relax1(frontier *f, int from, int x, const action *a) {
  state *s = &f->st[x];
  if (f->st[from].depth + 1 >= s->depth || f->st[from].principal != s->principal) return 0; /* a seed is at 0 */
  s->depth = f->st[from].depth + 1;
  s->parent = from;
  fr_action_free(&s->via);
  fr_action_copy(&s->via, a);
  return 1;
}

void fr_relax(frontier *f, int from, int to, const action *a) {
  if (!relax1(f, from, to, a)) return;
  int *queue = crawl__xrealloc(NULL, (size_t)f->nst * sizeof *queue), qh = 0, qt = 0;
  char *queued = crawl__xcalloc((size_t)f->nst, 1);
  queue[qt++] = to;
  queued[to] = 1;
  while (qh < qt) { /* what was found from `to` is nearer now as well */
    int x = queue[qh++];
    queued[x] = 0;
    for (int k = 0; k < f->ned; k++)
      if (f->ed[k].from == x && relax1(f, x, f->ed[k].to, &f->ed[k].a) && !queued[f->ed[k].to]) {
        if (qt == f->nst) { memmove(queue, queue + qh, (size_t)(qt - qh) * sizeof *queue); qt -= qh; qh = 0; }
        queue[qt++] = f->ed[k].to;
        queued[f->ed[k].to] = 1;
      }
  }
  free(queue);
  free(queued);
}

void fr_depths(frontier *f) {
  int n = f->nst, qh = 0, qt = 0;
  if (!n) return;
  int *queue = crawl__xrealloc(NULL, (size_t)n * sizeof *queue), *dist = crawl__xrealloc(NULL, (size_t)n * sizeof *dist);
  int *start, *by_from;
  edges_by_source(f, &start, &by_from);
  for (int k = 0; k < n; k++) {
    dist[k] = f->st[k].depth == 0 ? 0 : -1;
    if (!dist[k]) queue[qt++] = k;
  }
  while (qh < qt) {
    int x = queue[qh++];
    if (dist[x] < f->st[x].depth) f->st[x].depth = dist[x];
    for (int j = start[x]; j < start[x + 1]; j++) {
      int t = f->ed[by_from[j]].to;
      if (dist[t] < 0 && f->st[t].principal == f->st[x].principal) dist[t] = dist[x] + 1, queue[qt++] = t;
    }
    for (int i = 0; i < f->st[x].nacts; i++) {
      const action *a = &f->st[x].acts[i];
      int t = a->done || a->dec.effect != POL_EFFECT_ALLOW ? -1 : fr_likely(f, a, x);
      if (t >= 0 && dist[t] < 0 && f->st[t].principal == f->st[x].principal) dist[t] = dist[x] + 1, queue[qt++] = t;
    }
  }
  free(queue); free(dist); free(start); free(by_from);
}

/* Untried allowed actions come in two tiers: 0, those whose outcome is
 * neither predictable nor likely (they find new states); 1, any. First of
 * the tier by rank, or -1. */
int fr_next_action(const frontier *f, int si, int tier) {
  const state *s = &f->st[si];
  for (int i = 0; i < s->nacts; i++) {
    const action *a = &s->acts[i];
    if (a->dec.effect != POL_EFFECT_ALLOW || a->done) continue;
    if (tier == 0 && fr_likely(f, a, si) >= 0) continue;
    return i;
  }
  return -1;
}

int fr_pending(const frontier *f, int si, int tier) {
  const state *s = &f->st[si];
  if (s->dead || s->foreign || s->depth >= f->max_depth) return 0;
  if (!s->acts) return 1; /* never prepared: everything is untried */
  return fr_next_action(f, si, tier) >= 0;
}

/* Breadth-first search from cur over known edges and untried predictable
 * actions for the nearest state x with want(x, arg); its path in hops into
 * path (*len). -1 when none is reachable. */
typedef int (*fr_want)(const frontier *f, int x, void *arg);

static int bfs(const frontier *f, int cur, fr_want want, void *arg, fr_hop *path, int *len) {
  *len = 0;
  if (cur < 0) return -1;
  int n = f->nst, found = -1;
  int *start, *by_from;
  edges_by_source(f, &start, &by_from);
  int *dist = crawl__xrealloc(NULL, (size_t)n * sizeof *dist), *queue = crawl__xrealloc(NULL, (size_t)n * sizeof *queue);
  fr_hop *prev = crawl__xrealloc(NULL, (size_t)n * sizeof *prev);
  for (int k = 0; k < n; k++) dist[k] = -1;
  int qh = 0, qt = 0;
  dist[cur] = 0;
  queue[qt++] = cur;
  while (qh < qt && found < 0) {
    int x = queue[qh++];
    if (want(f, x, arg)) { found = x; break; }
    if (dist[x] >= FR_MAX_HOPS) continue;
    for (int j = start[x]; j < start[x + 1]; j++) {
      int t = f->ed[by_from[j]].to;
      if (dist[t] >= 0) continue;
      dist[t] = dist[x] + 1;
      prev[t] = (fr_hop){x, t, by_from[j], -1};
      queue[qt++] = t;
    }
    const state *s = &f->st[x];
    for (int i = 0; i < s->nacts; i++) {
      const action *a = &s->acts[i];
      if (a->dec.effect != POL_EFFECT_ALLOW || a->done) continue;
      int t = fr_predict(f, a, x);
      if (t < 0 || t == x || dist[t] >= 0) continue;
      dist[t] = dist[x] + 1;
      prev[t] = (fr_hop){x, t, -1, i};
      queue[qt++] = t;
    }
  }
  if (found >= 0) {
    *len = dist[found];
    for (int x = found, i = *len - 1; i >= 0; i--) {
      path[i] = prev[x];
      x = prev[x].from;
    }
  }
  free(start); free(by_from); free(dist); free(queue); free(prev);
  return found;
}

static int want_pending(const frontier *f, int x, void *tier) { return fr_pending(f, x, *(int *)tier); }

int fr_plan_path(const frontier *f, int cur, int tier, fr_hop *path, int *len) {
  return bfs(f, cur, want_pending, &tier, path, len);
}

/* fr_nearest's list: every state the search reaches, in the order it does
 * (never "found": the search runs to the end). */
typedef struct {
  int *out, n, max;
} near_list;

static int want_none(const frontier *f, int x, void *arg) {
  near_list *l = arg;
  (void)f;
  if (l->n < l->max) l->out[l->n++] = x;
  return 0;
}

int fr_nearest(const frontier *f, int cur, int *out, int max) {
  near_list l = {out, 0, max};
  int len;
  bfs(f, cur, want_none, &l, NULL, &len);
  return l.n;
}

int fr_find_state(const frontier *f, const char *fp) { return (int)crawl__strmap_get(&f->by_fp, fp); }

void fr_index_state(frontier *f, int i) { crawl__strmap_put(&f->by_fp, f->st[i].fp, i); }

void fr_free(frontier *f) {
  for (int i = 0; i < f->nst; i++) fr_state_free(&f->st[i]);
  free(f->st);
  for (int i = 0; i < f->ned; i++) fr_action_free(&f->ed[i].a);
  free(f->ed);
  for (int i = 0; i < f->nout; i++) free(f->out[i].key);
  free(f->out);
  crawl__strmap_release(&f->by_fp);
  crawl__strmap_release(&f->by_pair);
  crawl__strmap_release(&f->by_outcome);
  memset(f, 0, sizeof *f);
}

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
  dst->draft = src->draft;
  dst->text = crawl__xstrdup(src->text);
  dst->text_enter = src->text_enter;
  dst->text_probe = src->text_probe;
}

void fr_action_free(action *a) {
  free(a->action_id); free(a->role); free(a->name); free(a->stable_id);
  free(a->scope_id); free(a->document_id); free(a->option); free(a->href); free(a->scope_key);
  free(a->text);
}

void fr_state_free(state *s) {
  fr_action_free(&s->via);
  for (int i = 0; i < s->ndone; i++) free(s->done[i]);
  free(s->done);
  for (int i = 0; i < s->nacts; i++) fr_action_free(&s->acts[i]);
  free(s->acts);
  free(s->sig);
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

/* Keep the observation from -> to in o's ring; its change is worked out by
 * fr_learn once both states have signatures. */
static void keep_observation(frontier *f, int oi, int from, int to) {
  outcome *o = &f->out[oi];
  if (!o->obs) o->obs = crawl__xcalloc(FR_OBS, sizeof *o->obs);
  int slot = o->nobs++ % FR_OBS;
  fr_obs *b = &o->obs[slot];
  free(b->d);
  *b = (fr_obs){.from = from, .to = to};
  if (f->nlearn == f->caplearn) {
    f->caplearn = f->caplearn ? f->caplearn * 2 : 64;
    f->learn = crawl__xrealloc(f->learn, (size_t)f->caplearn * sizeof *f->learn);
  }
  f->learn[f->nlearn++] = oi * FR_OBS + slot;
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
  if (pk >= 0) outcome_note1(f, &f->out[pk], from, to), keep_observation(f, pk, from, to);
  if (pkr >= 0) outcome_note1(f, &f->out[pkr], from, to), keep_observation(f, pkr, from, to);
}

/* ---- prediction by analogy ---- */
/* A state's signature is the set of its controls, each hashed with what it
 * offers (ui.expand or ui.collapse, a tab selected or not), plus its route.
 * A control observed taking x to y changed x's set into y's: some controls
 * went (a menu's items, "expand" turned "collapse"), some came. The same
 * change applied to another state whose set holds what went (and not what
 * came) names the state it would lead to, when one with that set is known;
 * otherwise a state never seen. It orders the work only. */
static unsigned long long mix64(unsigned long long x) {
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27; x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static unsigned long long fnv(unsigned long long h, const char *str) {
  for (const unsigned char *p = (const unsigned char *)(str ? str : ""); *p; p++) h = (h ^ *p) * 0x100000001b3ULL;
  return (h ^ 0x1f) * 0x100000001b3ULL; /* a separator: ("ab","c") is not ("a","bc") */
}

static unsigned long long control_hash(const action *a) {
  unsigned long long h = 0xcbf29ce484222325ULL;
  h = fnv(h, a->action_id); h = fnv(h, a->role); h = fnv(h, a->name);
  h = fnv(h, a->stable_id); h = fnv(h, a->option);
  h = (h ^ (unsigned)a->ordinal) * 0x100000001b3ULL;
  return mix64(h ^ (unsigned long long)(a->here | a->escape << 1) << 56);
}

static int cmp_u64(const void *a, const void *b) {
  unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
  return x < y ? -1 : x > y;
}

static void sig_key(char *buf, size_t n, unsigned long long h) { snprintf(buf, n, "%016llx", h); }

void fr_state_sig(frontier *f, int si) {
  state *s = &f->st[si];
  free(s->sig);
  unsigned long long *v = crawl__xrealloc(NULL, ((size_t)s->nacts + 1) * sizeof *v);
  int n = 0;
  v[n++] = mix64(fnv(0x84222325cbf29ce4ULL, s->route));
  for (int i = 0; i < s->nacts; i++) {
    v[n++] = control_hash(&s->acts[i]);
    if (s->acts[i].done) fr_control_tried(f, &s->acts[i]); /* done before a resume */
  }
  qsort(v, (size_t)n, sizeof *v, cmp_u64);
  int u = 0;
  s->sighash = 0;
  for (int i = 0; i < n; i++)
    if (!u || v[u - 1] != v[i]) s->sighash += v[u++] = v[i];
  s->sig = v;
  s->nsig = u;
  char key[20];
  sig_key(key, sizeof key, s->sighash);
  long known = crawl__strmap_get(&f->by_sig, key);
  if (known == -1) crawl__strmap_put(&f->by_sig, key, si);
  else if (known != si) crawl__strmap_put(&f->by_sig, key, -2); /* two states, one set: no prediction */
}

/* b's change from its states' signatures: 1 done, 0 not yet, -1 never. */
static int obs_change(const frontier *f, fr_obs *b) {
  const state *x = &f->st[b->from], *y = &f->st[b->to];
  if (!x->sig || !y->sig) return x->dead || y->dead ? -1 : 0;
  unsigned long long *rem = crawl__xrealloc(NULL, ((size_t)x->nsig + y->nsig + 1) * sizeof *rem);
  unsigned long long *add = rem + x->nsig, hrem = 0, hadd = 0;
  int i = 0, j = 0, nr = 0, na = 0;
  while (i < x->nsig || j < y->nsig) {
    if (j == y->nsig || (i < x->nsig && x->sig[i] < y->sig[j])) hrem += rem[nr++] = x->sig[i++];
    else if (i == x->nsig || y->sig[j] < x->sig[i]) hadd += add[na++] = y->sig[j++];
    else i++, j++;
  }
  memmove(rem + nr, add, (size_t)na * sizeof *add);
  b->d = crawl__xrealloc(rem, ((size_t)nr + na + 1) * sizeof *rem);
  b->nrem = nr; b->nadd = na; b->hrem = hrem; b->hadd = hadd;
  return 1;
}

void fr_learn(frontier *f) {
  int keep = 0;
  for (int k = 0; k < f->nlearn; k++) {
    fr_obs *b = &f->out[f->learn[k] / FR_OBS].obs[f->learn[k] % FR_OBS];
    if (b->ready == 0) b->ready = obs_change(f, b);
    if (b->ready == 0) f->learn[keep++] = f->learn[k];
  }
  f->nlearn = keep;
}

static int sig_has(const state *s, unsigned long long h) {
  return bsearch(&h, s->sig, (size_t)s->nsig, sizeof h, cmp_u64) != NULL;
}

/* What b's change makes of state s: a known state, -2 a new one, -1 it
 * does not apply (s lacks what went or holds what came). */
static int apply_change(const frontier *f, const fr_obs *b, const state *s) {
  for (int k = 0; k < b->nrem; k++)
    if (!sig_has(s, b->d[k])) return -1;
  for (int k = 0; k < b->nadd; k++)
    if (sig_has(s, b->d[b->nrem + k])) return -1;
  char key[20];
  sig_key(key, sizeof key, s->sighash - b->hrem + b->hadd);
  long t = crawl__strmap_get(&f->by_sig, key);
  return t == -1 ? -2 : t == -2 ? -1 : (int)t;
}

int fr_analogy(const frontier *f, const action *a, int si) {
  const state *s = &f->st[si];
  if (!s->sig) return -1;
  int recs[2] = {a->pkr, a->pk}; /* this route's observations first */
  for (int r = 0; r < 2; r++) {
    const outcome *o = recs[r] >= 0 ? &f->out[recs[r]] : NULL;
    if (!o || !o->obs) continue;
    for (int k = 0; k < o->nobs && k < FR_OBS; k++) {
      const fr_obs *b = &o->obs[(o->nobs - 1 - k) % FR_OBS];
      if (b->ready != 1 || b->from == si) continue;
      int t = apply_change(f, b, s);
      if (t != -1) return t;
    }
  }
  return -1;
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

static int same_str(const char *a, const char *b) { return !strcmp(a ? a : "", b ? b : ""); }

/* The same control: role, name, ordinal and stable id agree (the action
 * may differ: an expanded control offers ui.collapse where it offered
 * ui.expand). */
static int same_control(const action *a, const action *b) {
  return same_str(a->role, b->role) && same_str(a->name, b->name) && same_str(a->stable_id, b->stable_id) &&
         a->ordinal == b->ordinal && !a->option && !b->option;
}

static int has_escape(const state *s) {
  for (int i = 0; i < s->nacts; i++)
    if (s->acts[i].escape) return 1;
  return 0;
}

/* A tab of state p's that was selected there. */
static int selected_in(const state *p, const action *a) {
  for (int i = 0; i < p->nacts; i++)
    if (p->acts[i].here && same_control(&p->acts[i], a)) return 1;
  return 0;
}

/* The way back: state si was reached from its parent by its via action;
 * what undoes that is expected to return there: the same control toggled
 * the other way (collapse after expand, a checkbox or a menu button a
 * second time), Escape on a dialog the parent did not show, the tab that
 * was selected in the parent after another tab. -1 when a undoes nothing. */
static int undo_of(const frontier *f, const action *a, int si) {
  const state *s = &f->st[si];
  const action *v = &s->via;
  int p = s->parent;
  if (p < 0 || p >= f->nst || !v->action_id || !a->action_id) return -1;
  const char *x = a->action_id, *y = v->action_id;
  int opposite = (!strcmp(x, "ui.collapse") && !strcmp(y, "ui.expand")) ||
                 (!strcmp(x, "ui.expand") && !strcmp(y, "ui.collapse")) ||
                 (!strcmp(x, "ui.toggle") && !strcmp(y, "ui.toggle"));
  if (opposite && same_control(a, v)) return p;
  if (a->escape && !has_escape(&f->st[p]) && !v->escape) return p;
  if (same_str(a->role, "tab") && same_str(v->role, "tab") && !same_control(a, v) && selected_in(&f->st[p], a))
    return p;
  return -1;
}

/* fr_likely, and in *novel whether the analogy expects a new state. */
static int expect(const frontier *f, const action *a, int si, int *novel) {
  *novel = 0;
  int t = fr_predict(f, a, si);
  if (t >= 0) return t;
  if (a->here) return si;
  if (absolute(a)) {
    if (a->pkr >= 0) t = likely1(&f->out[a->pkr]);
    if (t < 0 && a->pk >= 0 && a->href && *a->href) t = likely1(&f->out[a->pk]);
    if (t >= 0) return t;
  }
  if ((t = fr_analogy(f, a, si)) != -1) {
    *novel = t == -2;
    return t >= 0 ? t : -1;
  }
  return undo_of(f, a, si);
}

int fr_likely(const frontier *f, const action *a, int si) {
  int novel;
  return expect(f, a, si, &novel);
}

void fr_note_ms(frontier *f, int pk, int edge, int ms) {
  if (ms <= 0) return;
  if (pk >= 0) f->out[pk].ms_sum += ms, f->out[pk].ms_n++;
  if (edge >= 0 && !f->ed[edge].ms) f->ed[edge].ms = ms;
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
  e->ms = 0;
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

/* ---- controls tried anywhere ------------------------------------------------------ */
static void control_key(const action *a, crawl__buf *k) {
  const char *parts[] = {a->role, a->name, a->scope_key, a->stable_id, a->option};
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
    if (i) crawl__buf_put(k, "\x1f", 1);
    crawl__buf_puts(k, parts[i] ? parts[i] : "");
  }
}

void fr_control_tried(frontier *f, const action *a) {
  crawl__buf k = {0};
  control_key(a, &k);
  crawl__strmap_put(&f->tried, k.p, 1);
  crawl__buf_free(&k);
}

int fr_fresh(const frontier *f, const action *a) {
  crawl__buf k = {0};
  control_key(a, &k);
  int fresh = crawl__strmap_get(&f->tried, k.p) < 0;
  crawl__buf_free(&k);
  return fresh;
}

/* The first untried allowed action of the tier (frontier.h), or -1. */
int fr_next_action(const frontier *f, int si, int tier) {
  const state *s = &f->st[si];
  int first = -1, novel_first = -1;
  for (int i = 0; i < s->nacts; i++) {
    const action *a = &s->acts[i];
    if (a->dec.effect != POL_EFFECT_ALLOW || a->done) continue;
    if (tier == FR_TIER_ANY) return i;
    if (a->verify_only) continue;
    if (tier == FR_TIER_LOCAL && a->rank > FR_RANK_CLOSE) continue;
    int novel;
    if (expect(f, a, si, &novel) >= 0) continue;
    if (fr_fresh(f, a)) return i; /* never tried anywhere: before the rest */
    if (tier == FR_TIER_FRESH) continue;
    if (novel && novel_first < 0) novel_first = i; /* expected to show a new state: next */
    if (first < 0) first = i;
  }
  return novel_first >= 0 ? novel_first : first;
}

int fr_untried(const frontier *f, int si, int tier) {
  const state *s = &f->st[si];
  if (s->dead || s->depth >= f->max_depth) return 0;
  if (!s->acts) return 1; /* never prepared: everything is untried */
  return fr_next_action(f, si, tier) >= 0;
}

int fr_pending(const frontier *f, int si, int tier) {
  const state *s = &f->st[si];
  if (s->foreign || (s->learned && tier != FR_TIER_ANY)) return 0;
  return fr_untried(f, si, tier);
}

/* A cheapest-first search from cur over known edges and untried
 * predictable actions (likely ones within FR_LIKELY_HOPS hops) for the
 * nearest state x with want(x, arg); its path in hops into path (*len). -1
 * when none is reachable. */
typedef int (*fr_want)(const frontier *f, int x, void *arg);

typedef struct { long cost; int x; } heap_item;

static void heap_push(heap_item **h, int *n, int *cap, long cost, int x) {
  if (*n == *cap) *h = crawl__xrealloc(*h, (size_t)(*cap = *cap ? *cap * 2 : 64) * sizeof **h);
  int i = (*n)++;
  for (; i > 0 && (*h)[(i - 1) / 2].cost > cost; i = (i - 1) / 2) (*h)[i] = (*h)[(i - 1) / 2];
  (*h)[i] = (heap_item){cost, x};
}

static heap_item heap_pop(heap_item *h, int *n) {
  heap_item top = h[0], last = h[--*n];
  int i = 0;
  for (int c; (c = 2 * i + 1) < *n; i = c) {
    if (c + 1 < *n && h[c + 1].cost < h[c].cost) c++;
    if (h[c].cost >= last.cost) break;
    h[i] = h[c];
  }
  h[i] = last;
  return top;
}

static long edge_ms(const edge *e) { return e->ms > 0 ? e->ms : FR_HOP_MS; }

static long action_ms(const frontier *f, const action *a) {
  const outcome *o = a->pk >= 0 ? &f->out[a->pk] : NULL;
  return o && o->ms_n ? o->ms_sum / o->ms_n : FR_HOP_MS;
}

typedef struct {
  long *cost;
  int *hops;
  char *settled;
  fr_hop *prev;
  heap_item *heap;
  int nheap, capheap;
} search;

static void reach(search *sr, int from, int t, long cost, fr_hop hop) {
  if (sr->settled[t] || cost >= sr->cost[t]) return;
  sr->cost[t] = cost;
  sr->hops[t] = sr->hops[from] + 1;
  sr->prev[t] = hop;
  heap_push(&sr->heap, &sr->nheap, &sr->capheap, cost, t);
}

/* The hops out of x: its known edges, its untried predictable (or, near
 * the start, likely) actions. */
static void expand(const frontier *f, search *sr, int x, const int *start, const int *by_from) {
  for (int j = start[x]; j < start[x + 1]; j++) {
    const edge *e = &f->ed[by_from[j]];
    reach(sr, x, e->to, sr->cost[x] + edge_ms(e), (fr_hop){x, e->to, by_from[j], -1});
  }
  const state *s = &f->st[x];
  for (int i = 0; i < s->nacts; i++) {
    const action *a = &s->acts[i];
    if (a->dec.effect != POL_EFFECT_ALLOW || a->done) continue;
    int t = sr->hops[x] < FR_LIKELY_HOPS ? fr_likely(f, a, x) : fr_predict(f, a, x);
    if (t < 0 || t == x || f->st[t].principal != s->principal) continue;
    reach(sr, x, t, sr->cost[x] + action_ms(f, a), (fr_hop){x, t, -1, i});
  }
}

static int cheapest_search(const frontier *f, int cur, int max_hops, fr_want want, void *arg, fr_hop *path, int *len) {
  *len = 0;
  if (cur < 0) return -1;
  int n = f->nst, found = -1;
  int *start, *by_from;
  edges_by_source(f, &start, &by_from);
  search sr = {crawl__xrealloc(NULL, (size_t)n * sizeof *sr.cost), crawl__xcalloc((size_t)n, sizeof *sr.hops),
               crawl__xcalloc((size_t)n, 1), crawl__xrealloc(NULL, (size_t)n * sizeof *sr.prev), NULL, 0, 0};
  for (int k = 0; k < n; k++) sr.cost[k] = -1UL >> 1;
  sr.cost[cur] = 0;
  heap_push(&sr.heap, &sr.nheap, &sr.capheap, 0, cur);
  while (sr.nheap && found < 0) {
    int x = heap_pop(sr.heap, &sr.nheap).x;
    if (sr.settled[x]) continue;
    sr.settled[x] = 1;
    if (want(f, x, arg)) found = x;
    else if (sr.hops[x] < max_hops) expand(f, &sr, x, start, by_from);
  }
  if (found >= 0) {
    *len = sr.hops[found];
    for (int x = found, i = *len - 1; i >= 0; i--) {
      path[i] = sr.prev[x];
      x = sr.prev[x].from;
    }
  }
  free(start); free(by_from); free(sr.cost); free(sr.hops); free(sr.settled); free(sr.prev); free(sr.heap);
  return found;
}

static int want_pending(const frontier *f, int x, void *tier) { return fr_pending(f, x, *(int *)tier); }

int fr_plan_path(const frontier *f, int cur, int tier, int max_hops, fr_hop *path, int *len) {
  return cheapest_search(f, cur, max_hops < FR_MAX_HOPS ? max_hops : FR_MAX_HOPS, want_pending, &tier, path, len);
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
  cheapest_search(f, cur, FR_MAX_HOPS, want_none, &l, NULL, &len);
  return l.n;
}

int fr_find_state(const frontier *f, const char *fp) { return (int)crawl__strmap_get(&f->by_fp, fp); }

void fr_index_state(frontier *f, int i) { crawl__strmap_put(&f->by_fp, f->st[i].fp, i); }

void fr_free(frontier *f) {
  for (int i = 0; i < f->nst; i++) fr_state_free(&f->st[i]);
  free(f->st);
  for (int i = 0; i < f->ned; i++) fr_action_free(&f->ed[i].a);
  free(f->ed);
  for (int i = 0; i < f->nout; i++) {
    free(f->out[i].key);
    for (int k = 0; f->out[i].obs && k < FR_OBS; k++) free(f->out[i].obs[k].d);
    free(f->out[i].obs);
  }
  free(f->learn);
  crawl__strmap_release(&f->by_sig);
  crawl__strmap_release(&f->tried);
  free(f->out);
  crawl__strmap_release(&f->by_fp);
  crawl__strmap_release(&f->by_pair);
  crawl__strmap_release(&f->by_outcome);
  memset(f, 0, sizeof *f);
}

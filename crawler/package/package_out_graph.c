/* package_out_graph.c -- the rest of the package as JSON: the states and edges of
 * the transitionGraph, the reviewQueue, the evidenceIndex, run and
 * environment. Catalogs are package_out.c; coverage, metadata and the
 * package's member order are package.c.
 */
#include "pkg_int.h"
static cJSON *map_scope_list(pk *b, const pk_state *st, const cJSON *list, int all_if_missing) {
  strset out = {0};
  const cJSON *x;
  if (cJSON_IsArray(list)) {
    cJSON_ArrayForEach(x, list) {
      if (!cJSON_IsString(x)) continue;
      const char *c = pk_state_scope(b, st, x->valuestring);
      pk_strset_add(&out, c ? c : x->valuestring);
    }
  } else if (all_if_missing)
    for (size_t k = 0; k < st->scope_local.n; k++) pk_strset_add(&out, b->scopes[st->scope_idx[k]].id);
  cJSON *a = pk_strset_json(&out, 0);
  pk_strset_free(&out);
  return a;
}

typedef struct edge_ord { const char *id; size_t ref; } edge_ord;
static int cmp_edge(const void *x, const void *y) {
  const edge_ord *a = x, *b = y;
  int c = crawl__natcmp(a->id, b->id);
  return c ? c : (a->ref > b->ref) - (a->ref < b->ref);
}

static cJSON *out_state(pk *b, const pk_state *st) {
  const cJSON *l = st->line;
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "stateId", st->id);
  crawl__jstr(o, "fingerprint", st->fingerprint ? st->fingerprint : "");
  crawl__jstr(o, "routeId", st->route);
  crawl__jset(o, "scopeIds", map_scope_list(b, st, crawl__get(l, "scopeIds"), 1));
  if (cJSON_IsArray(crawl__get(l, "modalStack"))) crawl__jset(o, "modalStack", map_scope_list(b, st, crawl__get(l, "modalStack"), 0));
  crawl__jstr(o, "pageGraphRef", crawl__str(l, "pageGraphRef"));
  crawl__jstr(o, "screenshotRef", crawl__str(l, "screenshotRef"));
  cJSON *ev = crawl__jx(cJSON_CreateArray());
  pk_ev_push(ev, "dom", st->id, NULL);
  if (crawl__str(l, "viaTransitionId")) pk_ev_push(ev, "transition", crawl__str(l, "viaTransitionId"), NULL);
  pk_ev_state_files(ev, st);
  crawl__jset(o, "discoveredBy", ev);
  /* reached more than once: high; once: medium; no readable graph: low */
  int seedy = !crawl__str(l, "parentStateId");
  int reached = st->reached + seedy;
  crawl__jstr(o, "confidence", !st->loaded ? "low" : reached >= 2 ? "high" : "medium");
  cJSON *m = crawl__jx(cJSON_CreateObject());
  crawl__jstr(m, "url", crawl__str(l, "url"));
  crawl__jstr(m, "title", crawl__str(l, "title"));
  if (cJSON_IsNumber(crawl__get(l, "depth"))) pk_jnum(m, "depth", crawl__get(l, "depth")->valuedouble);
  if (cJSON_IsNumber(crawl__get(l, "seed"))) pk_jnum(m, "seed", crawl__get(l, "seed")->valuedouble);
  crawl__jstr(m, "parentStateId", crawl__str(l, "parentStateId"));
  pk_jnum(m, "selfLoops", st->self_loops);
  crawl__jstr(m, "principal", crawl__str(crawl__get(l, "metadata"), "principal")); /* docs/principals.md */
  crawl__jset(o, "metadata", m);
  return o;
}

/* The transition records' edges: each one's identity key (from, action,
 * target, to, signals) counted in sig/reps, and the published ones (not
 * self-loops) in transitionId order. */
typedef struct edge_set {
  strset sig;
  long *reps;                   /* per sig key: how many records share it */
  char **keys;                  /* per record (b->refs): its key, or NULL */
  edge_ord *order;              /* published edges */
  size_t ne;
} edge_set;

/* A transition record's identity key (caller frees). */
static char *edge_key(pk *b, const pk_ref *rf) {
  const cJSON *j = rf->line;
  pk_state *from = pk_state_of(b, crawl__str(j, "fromStateId")), *to = pk_state_of(b, crawl__str(j, "toStateId"));
  char *t = pk_canonical_target(rf);
  size_t len = 1;
  char *sg = crawl__xstrdup("");
  const cJSON *s;
  cJSON_ArrayForEach(s, crawl__get(j, "observedSignals")) {
    char *c = pk_canonical_signal(b, s, to, from);
    if (!c) continue;
    len += strlen(c) + 1;
    sg = crawl__xrealloc(sg, len);
    strcat(strcat(sg, c), "\x1e");
    free(c);
  }
  char *key = crawl__xprintf("%s\x1f%s\x1f%s\x1f%s\x1f%s", crawl__str(j, "fromStateId"), crawl__str(j, "viaActionId"),
                             rf->element >= 0 ? b->elements[rf->element].key : t ? t : "", crawl__str(j, "toStateId"), sg);
  free(t);
  free(sg);
  return key;
}

static void edge_set_build(pk *b, edge_set *es) {
  es->keys = crawl__xcalloc(b->nrefs, sizeof *es->keys);
  es->order = crawl__xcalloc(b->nrefs, sizeof *es->order);
  for (size_t i = 0; i < b->nrefs; i++) {
    pk_ref *rf = &b->refs[i];
    if (strcmp(rf->type, "transition")) continue;
    const cJSON *j = rf->line;
    es->keys[i] = edge_key(b, rf);
    long r = PK_ENTRY(es->sig, es->reps, es->keys[i], NULL);
    es->reps[r]++;
    /* edges in transitionId order; self-loops are counted, not published */
    if (cJSON_IsTrue(crawl__get(j, "selfLoop")) || !strcmp(crawl__str(j, "fromStateId"), crawl__str(j, "toStateId"))) continue;
    es->order[es->ne].id = crawl__str(j, "transitionId");
    es->order[es->ne++].ref = i;
  }
  qsort(es->order, es->ne, sizeof *es->order, cmp_edge);
}

static void edge_set_free(edge_set *es, size_t nrefs) {
  for (size_t i = 0; i < nrefs; i++) free(es->keys[i]);
  free(es->keys);
  free(es->order);
  free(es->reps);
  pk_strset_free(&es->sig);
}

/* Published edge of transition record rf, repeated `reps` times. */
static cJSON *out_edge(pk *b, const pk_ref *rf, long reps) {
  const cJSON *j = rf->line;
  const pk_state *from = pk_state_of(b, crawl__str(j, "fromStateId")), *to = pk_state_of(b, crawl__str(j, "toStateId"));
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "transitionId", crawl__str(j, "transitionId"));
  crawl__jstr(o, "fromStateId", crawl__str(j, "fromStateId"));
  crawl__jstr(o, "toStateId", crawl__str(j, "toStateId"));
  crawl__jstr(o, "viaActionId", crawl__str(j, "viaActionId"));
  char *t = pk_canonical_target(rf);
  if (t) crawl__jset(o, "target", cJSON_Parse(t));
  free(t);
  if (cJSON_IsObject(crawl__get(j, "args"))) crawl__jset(o, "args", cJSON_Duplicate(crawl__get(j, "args"), 1));
  const char *se = crawl__str(j, "sideEffectClass");
  if (pk_se_rank(se) >= 0) crawl__jstr(o, "sideEffectClass", se);
  cJSON *sigs = crawl__jx(cJSON_CreateArray());
  const cJSON *s;
  int nsig = 0;
  cJSON_ArrayForEach(s, crawl__get(j, "observedSignals")) {
    char *c = pk_canonical_signal(b, s, to, from);
    if (c) { crawl__jpush(sigs, cJSON_Parse(c)); nsig++; }
    free(c);
  }
  crawl__jset(o, "observedSignals", sigs);
  /* 7.3: repeated with the same signals: high; once: medium; an end we never saw: low;
   * carried from a baseline without executing it (docs/nightly.md): one step lower */
  const cJSON *carried = crawl__get(j, "carried");
  int level = !from || !to ? 0 : reps >= 2 ? 2 : 1;
  if (carried && level) level--;
  crawl__jstr(o, "confidence", (const char *const[]){"low", "medium", "high"}[level]);
  cJSON *ev = crawl__jx(cJSON_CreateArray());
  pk_ev_push(ev, "transition", crawl__str(j, "transitionId"), NULL);
  if (crawl__str(carried, "refId")) {
    const char *from_run = crawl__str(carried, "runId");
    char *note = crawl__xprintf("carried from baseline %s", from_run ? from_run : "?");
    pk_ev_push(ev, "transition", crawl__str(carried, "refId"), note);
    free(note);
  }
  if (nsig) pk_ev_push(ev, "signal", crawl__str(j, "transitionId"), NULL);
  pk_api_cite_transition(b->api, crawl__str(j, "transitionId"), ev); /* the app requests it made (api.c) */
  crawl__jset(o, "discoveredBy", ev);
  cJSON *m = crawl__jx(cJSON_CreateObject());
  if (cJSON_IsObject(crawl__get(j, "decision"))) crawl__jset(m, "decision", cJSON_Duplicate(crawl__get(j, "decision"), 1));
  if (cJSON_IsNumber(crawl__get(j, "durationMs"))) pk_jnum(m, "durationMs", crawl__get(j, "durationMs")->valuedouble);
  if (cJSON_IsNumber(crawl__get(j, "blockedRequests"))) pk_jnum(m, "blockedRequests", crawl__get(j, "blockedRequests")->valuedouble);
  if (cJSON_IsObject(crawl__get(crawl__get(j, "metadata"), "probe"))) /* a sealed probe's storage keys */
    crawl__jset(m, "probe", cJSON_Duplicate(crawl__get(crawl__get(j, "metadata"), "probe"), 1));
  crawl__jset(o, "metadata", m);
  return o;
}

cJSON *pk_out_graph(pk *b) {
  cJSON *tg = crawl__jx(cJSON_CreateObject()), *states = crawl__jx(cJSON_CreateArray()), *edges = crawl__jx(cJSON_CreateArray());
  char **ids = pk_strset_sorted(&b->state_ids, pk_cmp_nat);
  for (size_t i = 0; i < b->state_ids.n; i++)
    crawl__jpush(states, pk_park(b, out_state(b, &b->states[pk_strset_find(&b->state_ids, ids[i])])));
  free(ids);
  edge_set es = {0};
  edge_set_build(b, &es);
  for (size_t x = 0; x < es.ne; x++) {
    size_t ri = es.order[x].ref;
    crawl__jpush(edges, pk_park(b, out_edge(b, &b->refs[ri], es.reps[pk_strset_find(&es.sig, es.keys[ri])])));
  }
  edge_set_free(&es, b->nrefs);
  crawl__jset(tg, "states", states);
  crawl__jset(tg, "edges", edges);
  return tg;
}

cJSON *pk_out_review(pk *b) {
  cJSON *q = crawl__jx(cJSON_CreateObject()), *items = crawl__jx(cJSON_CreateArray());
  pk_item **v = crawl__xcalloc(b->item_keys.n, sizeof *v);
  for (size_t i = 0; i < b->item_keys.n; i++) v[i] = &b->items[i];
  qsort(v, b->item_keys.n, sizeof *v, pk_cmp_item);
  strset ids = {0};
  for (size_t i = 0; i < b->item_keys.n; i++) {
    pk_item *it = v[i];
    /* a stable id: the hash of kind and key, so it survives reordering */
    char *id = pk_review_id(it->key, 0);
    int added;
    pk_strset_put(&ids, id, &added);
    for (int k = 2; !added; k++) {
      char *alt = pk_review_id(it->key, k);
      pk_strset_put(&ids, alt, &added);
      free(id);
      id = alt;
    }
    cJSON *o = crawl__jx(cJSON_CreateObject());
    crawl__jstr(o, "id", id);
    free(id);
    crawl__jstr(o, "severity", pk_severities[it->severity]);
    crawl__jstr(o, "kind", it->kind);
    crawl__jstr(o, "routeId", it->route);
    crawl__jstr(o, "scopeId", it->scope);
    crawl__jstr(o, "stableId", it->stable);
    crawl__jstr(o, "description", it->desc ? it->desc : it->kind);
    cJSON *ev = crawl__jx(cJSON_CreateArray());
    pk_ev_push_set(ev, "dom", &it->ev_states);
    pk_ev_push_set(ev, "transition", &it->ev_transitions);
    crawl__jset(o, "evidence", ev);
    crawl__jstr(o, "remediation", it->remedy);
    crawl__jpush(items, o);
  }
  pk_strset_free(&ids);
  free(v);
  crawl__jset(q, "items", items);
  return q;
}

static int cmp_entry(const void *x, const void *y) {
  const cJSON *a = *(const cJSON *const *)x, *b = *(const cJSON *const *)y;
  return crawl__natcmp(crawl__str(a, "refId"), crawl__str(b, "refId"));
}

/* Where each refId lives: a state's page graph, or a journal line. */
cJSON *pk_out_evidence(pk *b) {
  cJSON *idx = crawl__jx(cJSON_CreateObject()), *entries = crawl__jx(cJSON_CreateArray());
  size_t n = 0, cap = 3 * b->state_ids.n + b->transition_ids.n;
  cJSON **v = crawl__xcalloc(cap, sizeof *v);
  for (size_t i = 0; i < b->state_ids.n; i++) {
    const pk_state *st = &b->states[i];
    cJSON *o = crawl__jx(cJSON_CreateObject());
    crawl__jstr(o, "refId", st->id);
    crawl__jstr(o, "source", "dom");
    crawl__jstr(o, "path", crawl__str(st->line, "pageGraphRef"));
    crawl__jstr(o, "stateId", st->id);
    if (!st->loaded) crawl__jstr(o, "note", "page graph missing or unreadable");
    v[n++] = o;
  }
  for (size_t i = 0; i < b->nrefs && n < cap; i++) {
    if (strcmp(b->refs[i].type, "transition")) continue;
    const char *tid = crawl__str(b->refs[i].line, "transitionId");
    if (pk_strset_find(&b->state_ids, tid) >= 0) continue; /* a state of that name wins */
    cJSON *o = crawl__jx(cJSON_CreateObject());
    crawl__jstr(o, "refId", tid);
    crawl__jstr(o, "source", "transition");
    crawl__jstr(o, "path", "journal.jsonl");
    crawl__jstr(o, "stateId", crawl__str(b->refs[i].line, "fromStateId"));
    v[n++] = o;
  }
  n = pk_evidence_files(b, v, n);
  qsort(v, n, sizeof *v, cmp_entry);
  for (size_t i = 0; i < n; i++) crawl__jpush(entries, v[i]);
  free(v);
  crawl__jset(idx, "entries", entries);
  return idx;
}

cJSON *pk_out_run(pk *b, char **stopped_by) {
  const cJSON *run = b->run;
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "runId", crawl__str(run, "runId") ? crawl__str(run, "runId") : "unknown");
  crawl__jstr(o, "startedAt", crawl__str(run, "startedAt") ? crawl__str(run, "startedAt") : crawl__str(run, "at") ? crawl__str(run, "at") : "");
  const char *status;
  *stopped_by = NULL;
  if (b->end) {
    status = crawl__str(b->end, "status");
    if (!PK_IN(pk_run_statuses, status)) status = "failed";
    crawl__jstr(o, "finishedAt", crawl__str(b->end, "finishedAt") ? crawl__str(b->end, "finishedAt") : crawl__str(b->end, "at"));
    if (crawl__str(b->end, "stoppedBy")) *stopped_by = crawl__xstrdup(crawl__str(b->end, "stoppedBy"));
  } else {
    status = "failed";
    const char *last = b->last_status ? crawl__str(b->last_status, "status") : NULL;
    char *n = crawl__xprintf("journal ends without an end record (last status: %s)", last ? last : "none");
    pk_note(b, n);
    free(n);
    *stopped_by = crawl__xstrdup("interrupted");
  }
  if (!*stopped_by && b->last_budget) {
    const cJSON *bu = crawl__get(b->last_budget, "budget"), *li = crawl__get(b->last_budget, "limit");
    *stopped_by = crawl__xstrdup(cJSON_IsString(bu) ? bu->valuestring : cJSON_IsString(li) ? li->valuestring : "budget");
  }
  crawl__jstr(o, "status", status);
  const cJSON *env = crawl__get(run, "environment");
  crawl__jstr(o, "environmentId", crawl__str(env, "environmentId") ? crawl__str(env, "environmentId") : "unknown");
  crawl__jstr(o, "profile", "web@0.1");
  if (cJSON_IsArray(crawl__get(run, "seeds"))) crawl__jset(o, "seeds", cJSON_Duplicate(crawl__get(run, "seeds"), 1));
  if (b->malformed) {
    char *n = crawl__xprintf("journal: %ld malformed line%s skipped", b->malformed, b->malformed == 1 ? "" : "s");
    pk_note(b, n);
    free(n);
  }
  if (b->torn) pk_note(b, "journal: the last line was cut off (ignored)");
  if (b->nnotes) {
    cJSON *notes = crawl__jx(cJSON_CreateArray());
    for (size_t i = 0; i < b->nnotes; i++) crawl__jpush(notes, cJSON_CreateString(b->note_v[i]));
    crawl__jset(o, "notes", notes);
  }
  return o;
}

cJSON *pk_out_environment(pk *b) {
  const cJSON *env = crawl__get(b->run, "environment");
  cJSON *o = cJSON_IsObject(env) ? crawl__jx(cJSON_Duplicate(env, 1)) : crawl__jx(cJSON_CreateObject());
  if (!crawl__str(o, "environmentId")) {
    cJSON_DeleteItemFromObjectCaseSensitive(o, "environmentId");
    crawl__jstr(o, "environmentId", "unknown");
  }
  if (!crawl__str(o, "baseUrl")) {
    cJSON_DeleteItemFromObjectCaseSensitive(o, "baseUrl");
    const cJSON *s0 = cJSON_GetArrayItem(crawl__get(b->run, "seeds"), 0);
    crawl__jstr(o, "baseUrl", crawl__str(s0, "url") ? crawl__str(s0, "url") : "");
  }
  return o;
}

/* workflow.c -- workflow candidates (discovery-mapper 6.7, 11.7), added to a
 * package by the package build (pk_workflows).
 *
 * Sources, in the order 11.7 prefers them that a crawl can see:
 *   - semantic form and dialog structures in the state graphs: a form or
 *     dialog with a commit control (a submit button, a data-uiap-action, or
 *     in a dialog any button that does not just close it) is a candidate;
 *     its fields are the inputs;
 *   - app actions (data-uiap-action) outside such a structure;
 *   - transition chains: the shortest recorded path from a seed state to the
 *     state that shows the structure is the skeleton's first steps.
 *
 * A skeleton is: the path's actions, one action per input (required fields;
 * all text fields when none is marked required), the commit, an `ensure`
 * with the signals observed when the commit ran (or the app action's
 * declared/observed signals), and `complete`.
 *
 * Section 13 lets synthesis rest on observation: the safety gate never lets
 * the crawler type into forms or press a gated commit, so most skeletons are
 * partly unexecuted. metadata.observedOnly and metadata.steps say which
 * steps ran; review items follow section 16:
 *   missing_success_signal  no signal was seen or declared for the commit
 *                           (unless the package has one for its app action);
 *   workflow_uncertain      a step was never executed, an input had no
 *                           name, or no recorded path leads to it.
 * Confidence (7.3): high when the commit ran twice or more with the same
 * signals; medium with one observed signal or an annotated structure
 * (data-uiap-id on the form/dialog, or an app action); low otherwise.
 *
 * Deterministic: states in natural id order, adjacency sorted by content
 * (not by transition numbering), candidates sorted by id.
 *
 * This file owns picking the journal's transition and decision records out
 * of the build's decoding (crawl__jlog), the transition graph (BFS from the
 * seeds), the review items and candidates put into the package, workflow
 * seeds, and pk_workflows. The coverage counters are the build's: it calls
 * pk_workflows before it emits them (package.c).
 * Structures and names are workflow_struct.c; one candidate's skeleton,
 * signals and review is workflow_candidate.c.
 */
#include "workflow_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the journal's records ------------------------------------------------------- */
/* The transition and decision records of the journal the build decoded
 * (package_journal.c): borrowed, in file order. */
static void wf_journal(wf *w, const crawl__jlog *log) {
  w->recs = crawl__xcalloc(log->n ? log->n : 1, sizeof *w->recs);
  for (size_t i = 0; i < log->n; i++)
    if (log->v[i].kind == CRAWL__REC_TRANSITION || log->v[i].kind == CRAWL__REC_DECISION) w->recs[w->nrecs++] = &log->v[i];
}

/* ---- the transition graph: BFS from the seeds ------------------------------------- */
static int cmp_edge_content(const void *x, const void *y, void *ud) {
  const cJSON *const *edges = ud;
  const cJSON *a = edges[*(const int *)x], *b = edges[*(const int *)y];
  const char *ka[] = {crawl__str(a, "viaActionId"), crawl__str(crawl__get(a, "target"), "stableId"),
                      crawl__str(crawl__get(a, "target"), "role"), crawl__str(crawl__get(a, "target"), "name"),
                      crawl__str(a, "toStateId"), crawl__str(a, "transitionId")};
  const char *kb[] = {crawl__str(b, "viaActionId"), crawl__str(crawl__get(b, "target"), "stableId"),
                      crawl__str(crawl__get(b, "target"), "role"), crawl__str(crawl__get(b, "target"), "name"),
                      crawl__str(b, "toStateId"), crawl__str(b, "transitionId")};
  for (size_t i = 0; i < sizeof ka / sizeof *ka; i++) {
    int c = crawl__natcmp(ka[i] ? ka[i] : "", kb[i] ? kb[i] : "");
    if (c) return c;
  }
  return 0;
}

/* A state or an edge of the package; crawl_package_write hands them over
 * parked (printed as soon as they were built, a raw item: package.c
 * pk_park), so those are read back from their text, frozen. */
static const cJSON *wf_item(wf *w, const cJSON *x) {
  if (!cJSON_IsRaw(x) || !x->valuestring) return x;
  const cJSON *f = crawl__jarena_parse(&w->jar, x->valuestring, strlen(x->valuestring));
  if (f) return f;
  cJSON *t = cJSON_Parse(x->valuestring); /* what the arena parser leaves to cJSON */
  f = t ? crawl__jfreeze(&w->jar, t) : NULL;
  cJSON_Delete(t);
  return f ? f : x;
}

static void wf_graph(wf *w) {
  const cJSON *tg = crawl__get(w->pkg, "transitionGraph");
  const cJSON *states = crawl__arr(tg, "states"), *edges = crawl__arr(tg, "edges"), *x;
  w->nst = (size_t)cJSON_GetArraySize(states);
  w->st = crawl__xcalloc(w->nst, sizeof *w->st);
  size_t i = 0;
  cJSON_ArrayForEach(x, states) {
    const cJSON *n = w->st[i].node = wf_item(w, x); /* x walks the array */
    w->st[i].id = crawl__str(n, "stateId") ? crawl__str(n, "stateId") : "";
    crawl__strmap_intern(&w->st_index, w->st[i].id, (long)i, NULL);
    w->st[i].route = crawl__str(n, "routeId") ? crawl__str(n, "routeId") : "unknown";
    w->st[i].dist = -1;
    w->st[i].prev_edge = -1;
    i++;
  }
  w->nedges = (size_t)cJSON_GetArraySize(edges);
  w->edges = crawl__xcalloc(w->nedges, sizeof *w->edges);
  i = 0;
  cJSON_ArrayForEach(x, edges) w->edges[i++] = wf_item(w, x);
  for (size_t e = 0; e < w->nedges; e++) {
    long f = wf_state_index(w, crawl__str(w->edges[e], "fromStateId"));
    if (f < 0) continue;
    wf_state *s = &w->st[f];
    s->adj = crawl__xrealloc(s->adj, (s->nadj + 1) * sizeof *s->adj);
    s->adj[s->nadj++] = (int)e;
  }
  for (size_t s = 0; s < w->nst; s++)
    if (w->st[s].nadj > 1) qsort_r(w->st[s].adj, w->st[s].nadj, sizeof *w->st[s].adj, cmp_edge_content, (void *)w->edges);
  /* seeds: states nothing led to (no parentStateId) */
  size_t *queue = crawl__xcalloc(w->nst, sizeof *queue), qh = 0, qt = 0;
  for (size_t s = 0; s < w->nst; s++)
    if (!crawl__str(crawl__get(w->st[s].node, "metadata"), "parentStateId")) {
      w->st[s].dist = 0;
      queue[qt++] = s;
    }
  while (qh < qt) {
    wf_state *s = &w->st[queue[qh++]];
    for (size_t k = 0; k < s->nadj; k++) {
      long t = wf_state_index(w, crawl__str(w->edges[s->adj[k]], "toStateId"));
      if (t < 0 || w->st[t].dist >= 0) continue;
      w->st[t].dist = s->dist + 1;
      w->st[t].prev_edge = s->adj[k];
      queue[qt++] = (size_t)t;
    }
  }
  free(queue);
}

/* ---- review items into the package ---------------------------------------------------- */
/* The package's review order: severity (high first), kind, route. */
static int item_before(const cJSON *a, const cJSON *b) {
  int sa = pk_severity_rank(crawl__str(a, "severity")), sb = pk_severity_rank(crawl__str(b, "severity"));
  if (sa < 0) sa = 1; /* here an unknown severity sorts as medium, as it always has */
  if (sb < 0) sb = 1;
  if (sa != sb) return sa > sb;
  int c = strcmp(crawl__str(a, "kind") ? crawl__str(a, "kind") : "", crawl__str(b, "kind") ? crawl__str(b, "kind") : "");
  if (c) return c < 0;
  c = crawl__natcmp(crawl__str(a, "routeId") ? crawl__str(a, "routeId") : "", crawl__str(b, "routeId") ? crawl__str(b, "routeId") : "");
  if (c) return c < 0;
  return crawl__natcmp(crawl__str(a, "id"), crawl__str(b, "id")) < 0;
}

static void review_insert(cJSON *items, cJSON *it) {
  cJSON *x;
  cJSON_ArrayForEach(x, items) if (item_before(it, x)) break;
  crawl__insert_before(items, x, it);
}

static void wf_free(wf *w) {
  for (size_t i = 0; i < w->nst; i++) free(w->st[i].adj);
  free(w->st);
  free(w->edges);
  crawl__jarena_release(&w->jar);
  free(w->recs);
  for (size_t i = 0; i < w->nss; i++) wf_struct_free(&w->ss[i]);
  free(w->ss);
  crawl__strmap_release(&w->st_index);
  crawl__strmap_release(&w->ss_index);
  crawl__strmap_release(&w->committed);
}

static int cmp_struct_id(const void *x, const void *y) {
  const cJSON *a = *(const cJSON *const *)x, *b = *(const cJSON *const *)y;
  return crawl__natcmp(crawl__str(a, "id"), crawl__str(b, "id"));
}

/* An app action a form or dialog commits is no candidate of its own. */
static void wf_committed(wf *w) {
  for (size_t k = 0; k < w->nss; k++)
    if (strcmp(w->ss[k].kind, "action") && w->ss[k].c_app) crawl__strmap_put(&w->committed, w->ss[k].c_app, 0);
}
static int action_covered(const wf *w, const wf_struct *s) {
  return !strcmp(s->kind, "action") && crawl__strmap_get(&w->committed, s->c_app) >= 0;
}

/* An id that says what the candidate is about, stable across crawls, made
 * unique against ids (and added to it). Caller frees. */
static char *candidate_id(const wf_struct *s, crawl__strmap *ids) {
  char *base;
  if (s->c_app) base = crawl__xprintf("candidate.%s", s->c_app);
  else {
    char *slug = wf_slug(s->scope_stable ? s->scope_stable : s->c_stable ? s->c_stable : s->c_name ? s->c_name : s->scope_name);
    base = crawl__xprintf("candidate.%s.%s", s->kind, *slug ? slug : "unnamed");
    free(slug);
  }
  char *id = crawl__xstrdup(base);
  for (int k = 2; crawl__strmap_get(ids, id) >= 0; k++) {
    free(id);
    id = crawl__xprintf("%s~%d", base, k);
  }
  free(base);
  crawl__strmap_put(ids, id, 0);
  return id;
}

/* Review item rv of candidate c (structure s) into the package's items, in
 * review order; its id goes into c's metadata.reviewItems. */
static void candidate_review_add(cJSON *items, cJSON *c, const wf_struct *s, const char *id, const wf_review *rv) {
  char *key = crawl__xprintf("workflow\x1f%s\x1f%s", rv->kind, id);
  char *rid = pk_review_id(key, 0);
  free(key);
  cJSON *it = crawl__jx(cJSON_CreateObject());
  crawl__jstr(it, "id", rid);
  crawl__jstr(it, "severity", pk_severities[rv->severity]);
  crawl__jstr(it, "kind", rv->kind);
  crawl__jstr(it, "routeId", s->route);
  crawl__jstr(it, "scopeId", s->scope);
  crawl__jstr(it, "stableId", s->c_stable);
  crawl__jstr(it, "description", rv->desc);
  cJSON *ev = crawl__jx(cJSON_CreateArray());
  wf_ev_add(ev, "dom", s->state, NULL);
  wf_ev_add(ev, "inferred", id, "workflow candidate");
  crawl__jset(it, "evidence", ev);
  crawl__jstr(it, "remediation", rv->remedy);
  review_insert(items, it);
  cJSON *md = cJSON_GetObjectItemCaseSensitive(c, "metadata");
  cJSON *ri = cJSON_GetObjectItemCaseSensitive(md, "reviewItems");
  if (!ri) {
    ri = crawl__jx(cJSON_CreateArray());
    crawl__jset(md, "reviewItems", ri);
  }
  crawl__jpush(ri, cJSON_CreateString(rid));
  free(rid);
}

/* package.workflowCandidates (the n candidates, taken, sorted by id), before
 * reviewQueue as in the spec's interface. */
static void candidates_place(cJSON *package, cJSON **cands, size_t n) {
  qsort(cands, n, sizeof *cands, cmp_struct_id);
  cJSON *cat = crawl__jx(cJSON_CreateObject()), *arr = crawl__jx(cJSON_CreateArray());
  for (size_t i = 0; i < n; i++) crawl__jpush(arr, cands[i]);
  crawl__jset(cat, "workflows", arr);
  cJSON_DeleteItemFromObjectCaseSensitive(package, "workflowCandidates");
  cat->string = crawl__xstrdup("workflowCandidates");
  crawl__insert_before(package, cJSON_GetObjectItemCaseSensitive(package, "reviewQueue"), cat);
}

/* ---- workflow seeds (discovery-mapper 9.1, 11.2) ------------------------------------- */
/* Whether candidate id is the one workflow seed wid names: wid itself,
 * "candidate.<wid>" (an app action), or "candidate.<kind>.<slug of wid>". */
static int seed_names(const char *id, const char *wid) {
  if (!strcmp(id, wid)) return 1;
  if (strncmp(id, "candidate.", 10)) return 0;
  const char *rest = id + 10, *dot = strchr(rest, '.');
  if (!strcmp(rest, wid)) return 1;
  char *slug = wf_slug(wid);
  int m = dot && *slug && !strcmp(dot + 1, slug);
  free(slug);
  return m;
}

static void run_note(cJSON *package, char *text) {
  cJSON *run = cJSON_GetObjectItemCaseSensitive(package, "run");
  cJSON *notes = cJSON_GetObjectItemCaseSensitive(run, "notes");
  if (cJSON_IsObject(run) && !cJSON_IsArray(notes)) {
    notes = crawl__jx(cJSON_CreateArray());
    crawl__jset(run, "notes", notes);
  }
  if (cJSON_IsArray(notes)) crawl__jpush(notes, cJSON_CreateString(text));
  free(text);
}

/* Seed i (workflow wid) resolved to candidate c: in its metadata.seeds. */
static void seed_resolved(cJSON *package, cJSON *c, int i, const char *wid) {
  cJSON *md = cJSON_GetObjectItemCaseSensitive(c, "metadata");
  if (!cJSON_IsObject(md)) {
    md = crawl__jx(cJSON_CreateObject());
    crawl__jset(c, "metadata", md);
  }
  cJSON *sv = cJSON_GetObjectItemCaseSensitive(md, "seeds");
  if (!cJSON_IsArray(sv)) {
    sv = crawl__jx(cJSON_CreateArray());
    crawl__jset(md, "seeds", sv);
  }
  crawl__jpush(sv, cJSON_CreateNumber(i));
  run_note(package, crawl__xprintf("seed %d (workflow %s) resolved to workflow candidate %s", i, wid, crawl__str(c, "id")));
}

/* Seed i (workflow wid) that no candidate matches: a coverage_gap with the reason. */
static void seed_gap(cJSON *package, cJSON *items, int i, const char *wid, int ncands) {
  char *key = crawl__xprintf("workflow-seed\x1f%d", i);
  char *rid = pk_review_id(key, 0);
  free(key);
  char *reason = crawl__xprintf("no workflow candidate synthesized from this run (%d) has the id it names", ncands);
  cJSON *it = crawl__jx(cJSON_CreateObject());
  crawl__jstr(it, "id", rid);
  crawl__jstr(it, "severity", "medium");
  crawl__jstr(it, "kind", "coverage_gap");
  char *desc = crawl__xprintf("Seed %d (workflow %s) could not be resolved: %s.", i, wid, reason);
  crawl__jstr(it, "description", desc);
  free(desc);
  crawl__jset(it, "evidence", cJSON_CreateArray());
  crawl__jstr(it, "remediation", "Seed the workflow's entry page, or annotate its commit control or form "
                                 "(data-uiap-action, data-uiap-scope) with the workflow's id so a candidate is synthesized under it.");
  review_insert(items, it);
  free(rid);
  run_note(package, crawl__xprintf("seed %d (workflow %s) unresolved: %s", i, wid, reason));
  free(reason);
}

/* Every workflow seed of the run resolves to a candidate or becomes a review
 * item. Returns how many resolved (coverage.seedsVisited counts them). */
static int wf_seeds(cJSON *package, cJSON *items) {
  const cJSON *seeds = crawl__arr(crawl__get(package, "run"), "seeds");
  cJSON *cands = (cJSON *)crawl__arr2(package, "workflowCandidates", "workflows");
  int i = 0, resolved = 0;
  const cJSON *sd;
  cJSON_ArrayForEach(sd, seeds) {
    const char *kind = crawl__str(sd, "kind"), *wid = crawl__str(sd, "workflowId");
    if (kind && !strcmp(kind, "workflow") && wid && *wid) {
      cJSON *c = NULL;
      cJSON_ArrayForEach(c, cands) if (crawl__str(c, "id") && seed_names(crawl__str(c, "id"), wid)) break;
      if (c) seed_resolved(package, c, i, wid);
      else if (items) seed_gap(package, items, i, wid, cJSON_GetArraySize(cands));
      resolved += c != NULL;
    }
    i++;
  }
  return resolved;
}

int pk_workflows(cJSON *package, const char *dir, const crawl__jlog *log, int *seeds_resolved) {
  *seeds_resolved = 0;
  if (!cJSON_IsObject(package) || !dir) return 0;
  wf w = {.pkg = package, .dir = dir};
  wf_graph(&w);
  wf_journal(&w, log);
  wf_structures(&w);
  wf_committed(&w);
  size_t n = 0;
  cJSON **cands = crawl__xcalloc(w.nss, sizeof *cands);
  crawl__strmap ids = {0};
  cJSON *items = (cJSON *)crawl__arr2(package, "reviewQueue", "items");
  for (size_t i = 0; i < w.nss; i++) {
    wf_struct *s = &w.ss[i];
    if (action_covered(&w, s) || s->dist > WF_MAX_STEPS_PATH) continue;
    char *id = candidate_id(s, &ids);
    wf_review rv[2];
    size_t nrv = 0;
    cJSON *c = wf_candidate(&w, s, id, rv, &nrv);
    cands[n++] = c;
    for (size_t r = 0; r < nrv; r++) {
      if (items) candidate_review_add(items, c, s, id, &rv[r]);
      free(rv[r].desc);
      free(rv[r].remedy);
    }
    free(id);
  }
  crawl__strmap_release(&ids);
  candidates_place(package, cands, n);
  *seeds_resolved = wf_seeds(package, items);
  free(cands);
  wf_free(&w);
  return (int)n;
}

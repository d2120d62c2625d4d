/* package_journal.c -- collecting DIR/journal.jsonl into the build's model: one
 * collector per record type (run, status, end, note, budget, seed, review,
 * state, gate, requests, the records that target an element), and the canonical record
 * order (pk_refs_sort) that makes the package independent of the order the
 * crawl met things in. The journal is read through crawl_journal.h only.
 */
#include "pkg_int.h"
/* ---- collecting the journal ------------------------------------------------------- */
/* One collector per record type: what the package needs of a record of
 * that type (pointers into b->log, which lives as long as b). */
static void collect_run(pk *b, const crawl__jrec *r) {
  if (!b->run) b->run = r->json;
}
static void collect_status(pk *b, const crawl__jrec *r) {
  if (PK_IN(pk_run_statuses, crawl__str(r->json, "status"))) b->last_status = r->json;
}
static void collect_end(pk *b, const crawl__jrec *r) { b->end = r->json; }
static void collect_note(pk *b, const crawl__jrec *r) {
  if (crawl__str(r->json, "text")) pk_note(b, crawl__str(r->json, "text"));
}

/* {"budget":"maxStates","limit":N}, or {"budget":{...},"limit":"maxStates"}:
 * a run note. */
static void collect_budget(pk *b, const crawl__jrec *r) {
  const cJSON *j = r->json;
  const cJSON *bu = crawl__get(j, "budget"), *li = crawl__get(j, "limit");
  char *n = NULL;
  if (cJSON_IsString(bu) && cJSON_IsNumber(li)) n = crawl__xprintf("budget %s=%.0f reached", bu->valuestring, li->valuedouble);
  else if (cJSON_IsString(li) && cJSON_IsNumber(crawl__get(bu, li->valuestring)))
    n = crawl__xprintf("budget %s=%.0f reached", li->valuestring, crawl__get(bu, li->valuestring)->valuedouble);
  else if (cJSON_IsString(li) || cJSON_IsString(bu)) n = crawl__xprintf("budget %s reached", cJSON_IsString(li) ? li->valuestring : bu->valuestring);
  if (!n) return;
  const char *route = crawl__str(j, "routeId");
  if (route) {
    char *m = crawl__xprintf("%s on route %s", n, route);
    free(n);
    n = m;
  }
  pk_note(b, n);
  free(n);
  b->last_budget = j;
}

static void collect_seed(pk *b, const crawl__jrec *r) {
  if (!cJSON_IsNumber(crawl__get(r->json, "index"))) { b->malformed++; return; }
  PK_GROW(b->seed_lines, b->nseed_lines, b->capseed_lines);
  b->seed_lines[b->nseed_lines++] = r->json;
}

static void collect_review(pk *b, const crawl__jrec *r) {
  if (!crawl__str(r->json, "description")) { b->malformed++; return; }
  PK_GROW(b->reviews, b->nreviews, b->capreviews);
  b->reviews[b->nreviews++] = r->json;
}

static void collect_state(pk *b, const crawl__jrec *r) {
  const char *id = r->state;
  if (!id) { b->malformed++; return; }
  int added;
  long s = PK_ENTRY(b->state_ids, b->states, id, &added);
  if (!added) return; /* a resumed crawl may repeat it: the first wins */
  b->states[s].line = r->json;
  b->states[s].id = b->state_ids.v[s];
  const char *route = crawl__str(r->json, "routeId");
  b->states[s].route = route && *route ? route : "unknown";
  b->states[s].fingerprint = crawl__str(r->json, "fingerprint");
}

/* A gate record: how many actions the safety gate allowed in a state (the
 * others are decision records). A state counts once. */
static void collect_gate(pk *b, const crawl__jrec *r) {
  int added;
  pk_strset_put(&b->gated_states, r->state, &added);
  if (added) b->nallowed += (long)crawl__num(r->json, "allowed", 0);
  if (added) b->nprobes += (long)crawl__num(r->json, "probes", 0);
}

/* transition, decision, failure: records that target an element (pk_ref). */
static void collect_ref(pk *b, const crawl__jrec *r) {
  int tr = r->kind == CRAWL__REC_TRANSITION;
  if (tr && (!r->id || !r->state || !r->to || !r->action)) { b->malformed++; return; }
  if (!tr && !r->action) { b->malformed++; return; }
  if (tr) {
    int added;
    pk_strset_put(&b->transition_ids, r->id, &added);
    if (!added) return;
    if (cJSON_IsTrue(crawl__get(r->json, "selfLoop")) || !strcmp(r->state, r->to)) pk_strset_add(&b->self_loop_ids, r->id);
  }
  PK_GROW(b->refs, b->nrefs, b->caprefs);
  pk_ref *rf = &b->refs[b->nrefs++];
  memset(rf, 0, sizeof *rf);
  rf->line = r->json;
  rf->type = tr ? "transition" : r->kind == CRAWL__REC_DECISION ? "decision" : "failure";
  rf->state = -1;
  rf->element = -1;
}

/* requests: the app's requests of a load or an action (api.c reads them). */
static void collect_requests(pk *b, const crawl__jrec *r) {
  if (!cJSON_IsArray(crawl__get(r->json, "requests"))) { b->malformed++; return; }
  PK_GROW(b->req_recs, b->nreq, b->capreq);
  b->req_recs[b->nreq++] = r->json;
}

/* The collector of each record kind (crawl__rec_kind order). */
static void (*const collectors[])(pk *b, const crawl__jrec *r) = {
  [CRAWL__REC_RUN] = collect_run, [CRAWL__REC_STATUS] = collect_status, [CRAWL__REC_SEED] = collect_seed,
  [CRAWL__REC_STATE] = collect_state, [CRAWL__REC_TRANSITION] = collect_ref, [CRAWL__REC_DECISION] = collect_ref,
  [CRAWL__REC_FAILURE] = collect_ref, [CRAWL__REC_REVIEW] = collect_review, [CRAWL__REC_NOTE] = collect_note,
  [CRAWL__REC_BUDGET] = collect_budget, [CRAWL__REC_END] = collect_end, [CRAWL__REC_GATE] = collect_gate,
  [CRAWL__REC_REQUESTS] = collect_requests,
};

/* Read DIR/journal.jsonl once into typed records (crawl_journal.h: the one
 * reader and its rules) and collect them in file order. b->log stays for
 * the workflow finder (package.c). 0, or -1 with b->err set. */
int pk_journal_read(pk *b) {
  if (crawl__jlog_read(&b->log, b->dir, b->err, b->errlen) != CRAWL_OK) return -1;
  for (size_t i = 0; i < b->log.n; i++) {
    const crawl__jrec *r = &b->log.v[i];
    b->nlines++;
    if (collectors[r->kind]) collectors[r->kind](b, r);
  }
  b->malformed += b->log.st.malformed;
  b->torn = b->log.st.torn; /* the line being written when the crawl died */
  return 0;
}

/* ---- canonical record order ----------------------------------------------------------- */
/* Where several records merge into one entry (an item, a risk reason), the
 * first one speaks. "First" is this order, not the journal's, so a crawl
 * that met the same things in another order gives the same package: state
 * (natural id order), type, transitionId, action, target, then the rest. */
static int cmp_ref(const void *x, const void *y) {
  const pk_ref *a = x, *b = y;
  return crawl__natcmp(a->order, b->order);
}
void pk_refs_sort(pk *b, const long *rank) {
  static const char *const types[] = {"transition", "decision", "failure"};
  for (size_t i = 0; i < b->nrefs; i++) {
    pk_ref *rf = &b->refs[i];
    const cJSON *j = rf->line;
    char *t = pk_canonical_target(rf);
    const char *f[] = {crawl__str(j, "transitionId"), crawl__str(j, "viaActionId"), crawl__str(j, "actionId"), crawl__str(j, "toStateId"),
                       crawl__str(j, "effect"), crawl__str(j, "reason"), crawl__str(j, "rule"), crawl__str(j, "sideEffectClass")};
    size_t len = 64 + (t ? strlen(t) : 0);
    for (size_t k = 0; k < PK_COUNT(f); k++) len += (f[k] ? strlen(f[k]) : 0) + 1;
    rf->order = crawl__xrealloc(NULL, len);
    int n = snprintf(rf->order, len, "%010ld\x1f%d\x1f", rf->state >= 0 ? rank[rf->state] : 9999999999L,
                     pk_index(types, 3, rf->type));
    for (size_t k = 0; k < PK_COUNT(f); k++) n += snprintf(rf->order + n, len - (size_t)n, "%s\x1f", f[k] ? f[k] : "");
    snprintf(rf->order + n, len - (size_t)n, "%s", t ? t : "");
    free(t);
  }
  if (b->nrefs) qsort(b->refs, b->nrefs, sizeof *b->refs, cmp_ref); /* NULL with none: UB for qsort */
  for (size_t i = 0; i < b->nrefs; i++) { /* the keys served the sort only */
    free(b->refs[i].order);
    b->refs[i].order = NULL;
  }
}

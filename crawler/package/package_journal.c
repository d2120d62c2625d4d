/* package_journal.c -- collecting DIR/journal.jsonl into the build's model: one
 * collector per record type (run, status, end, note, budget, seed, review,
 * state, gate, the records that target an element), and the canonical record
 * order (pk_refs_sort) that makes the package independent of the order the
 * crawl met things in. The journal is read through crawl_journal.h only.
 */
#include "pkg_int.h"
/* ---- collecting the journal ------------------------------------------------------- */
/* One collector per record type: what the package needs of a record of
 * that type (pointers into b->jar, which lives as long as b). */
static void collect_run(pk *b, const cJSON *j) {
  if (!b->run) b->run = j;
}
static void collect_status(pk *b, const cJSON *j) {
  if (PK_IN(pk_run_statuses, crawl__str(j, "status"))) b->last_status = j;
}
static void collect_end(pk *b, const cJSON *j) { b->end = j; }
static void collect_note(pk *b, const cJSON *j) {
  if (crawl__str(j, "text")) pk_note(b, crawl__str(j, "text"));
}

/* {"budget":"maxStates","limit":N}, or {"budget":{...},"limit":"maxStates"}:
 * a run note. */
static void collect_budget(pk *b, const cJSON *j) {
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

static void collect_seed(pk *b, const cJSON *j) {
  if (!cJSON_IsNumber(crawl__get(j, "index"))) { b->malformed++; return; }
  PK_GROW(b->seed_lines, b->nseed_lines, b->capseed_lines);
  b->seed_lines[b->nseed_lines++] = j;
}

static void collect_review(pk *b, const cJSON *j) {
  if (!crawl__str(j, "description")) { b->malformed++; return; }
  PK_GROW(b->reviews, b->nreviews, b->capreviews);
  b->reviews[b->nreviews++] = j;
}

static void collect_state(pk *b, const cJSON *j) {
  const char *id = crawl__str(j, "stateId");
  if (!id) { b->malformed++; return; }
  int added;
  long s = PK_ENTRY(b->state_ids, b->states, id, &added);
  if (!added) return; /* a resumed crawl may repeat it: the first wins */
  b->states[s].line = j;
  b->states[s].id = b->state_ids.v[s];
  const char *r = crawl__str(j, "routeId");
  b->states[s].route = r && *r ? r : "unknown";
  b->states[s].fingerprint = crawl__str(j, "fingerprint");
}

/* A gate record: how many actions the safety gate allowed in a state (the
 * others are decision records). A state counts once. */
static void collect_gate(pk *b, const cJSON *j) {
  int added;
  pk_strset_put(&b->gated_states, crawl__str(j, "stateId"), &added);
  if (added) b->nallowed += (long)crawl__num(j, "allowed", 0);
}

/* transition, decision, failure: records that target an element (pk_ref). */
static void collect_ref(pk *b, const cJSON *j) {
  const char *type = crawl__str(j, "type"), *id = crawl__str(j, "transitionId");
  int tr = !strcmp(type, "transition");
  if (tr && (!id || !crawl__str(j, "fromStateId") || !crawl__str(j, "toStateId") || !crawl__str(j, "viaActionId"))) { b->malformed++; return; }
  if (!tr && !crawl__str(j, "actionId")) { b->malformed++; return; }
  if (tr) {
    int added;
    pk_strset_put(&b->transition_ids, id, &added);
    if (!added) return;
  }
  PK_GROW(b->refs, b->nrefs, b->caprefs);
  pk_ref *rf = &b->refs[b->nrefs++];
  memset(rf, 0, sizeof *rf);
  rf->line = j;
  rf->type = tr ? "transition" : !strcmp(type, "decision") ? "decision" : "failure";
  rf->state = -1;
  rf->element = -1;
}

static const struct {
  const char *type;
  void (*collect)(pk *b, const cJSON *j);
} collectors[] = {
  {"run", collect_run}, {"status", collect_status}, {"end", collect_end}, {"note", collect_note},
  {"budget", collect_budget}, {"seed", collect_seed}, {"review", collect_review}, {"state", collect_state},
  {"transition", collect_ref}, {"decision", collect_ref}, {"failure", collect_ref},
  {"gate", collect_gate},
};

/* The journal reader's callback: every record is kept as a frozen copy in
 * b->jar (the model points into them; a third of the parsed tree's memory)
 * and collected in file order. The parsed record goes back to the reader. */
static int pk_record(void *ud, const char *type, cJSON *rec) {
  pk *b = ud;
  const cJSON *j = crawl__jfreeze(&b->jar, rec);
  b->nlines++;
  for (size_t k = 0; k < PK_COUNT(collectors); k++)
    if (!strcmp(type, collectors[k].type)) collectors[k].collect(b, j);
  return 0;
}

/* Read and collect DIR/journal.jsonl (crawl_journal.h: the one reader and
 * its rules). 0, or -1 with b->err set. */
int pk_journal_read(pk *b) {
  crawl__journal_stats st;
  if (crawl__journal_read(b->dir, NULL, pk_record, b, &st, b->err, b->errlen) != CRAWL_OK) return -1;
  b->malformed += st.malformed;
  b->torn = st.torn; /* the line being written when the crawl died */
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

/* baseline_read.c -- reading last night's crawl directory (--baseline
 * PREV_DIR) as knowledge: its run id, its states (fingerprint, URL, route,
 * the action that first reached each, a digest of its actionable elements
 * from its state file) and its transitions (from, action key, to, the whole
 * record for carrying). The directory is untrusted input: every record is
 * checked, sizes are capped, and anything malformed is one line in err.
 * Tonight's use of it is baseline.c's. */
#include "baseline.h"
#include "explore_int.h"

#include <errno.h>

typedef struct bl_reader {
  crawl__baseline *b;
  const char *dir;
  char *err;
  size_t errlen;
  long seen;       /* records handed over so far */
  cJSON *open;     /* the last end record's openStates, or NULL */
  int failed;
} bl_reader;

static int bl_fail(bl_reader *rd, const char *fmt, const char *what) {
  snprintf(rd->err, rd->errlen, fmt, rd->dir, what ? what : "?");
  rd->failed = 1;
  return -1;
}

/* ---- the elements digest ------------------------------------------------------ */
static int cmp_line(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

/* One element with actions as a line (caller frees), or NULL. */
static char *element_line(const cJSON *e) {
  const cJSON *acts = crawl__arr(e, "supportedActions"), *a;
  if (!cJSON_GetArraySize(acts)) return NULL;
  crawl__buf l = {0};
  crawl__buf_printf(&l, "%s\x1f%s\x1f%s\x1f", crawl__str(e, "role") ?: "", crawl__str(e, "name") ?: "",
                    crawl__str(e, "stableId") ?: "");
  cJSON_ArrayForEach(a, acts) if (cJSON_IsString(a)) crawl__buf_printf(&l, "%s,", a->valuestring);
  return crawl__buf_take(&l);
}

void crawl__bl_elements_digest(const cJSON *graph, char out[17]) {
  const cJSON *els = crawl__arr(graph, "elements"), *e;
  int n = 0, cap = cJSON_GetArraySize(els);
  char **v = crawl__xcalloc((size_t)cap + 1, sizeof *v);
  cJSON_ArrayForEach(e, els) if (n < cap && (v[n] = element_line(e))) n++;
  qsort(v, (size_t)n, sizeof *v, cmp_line);
  crawl__buf all = {0};
  for (int i = 0; i < n; i++) {
    crawl__buf_puts(&all, v[i]);
    crawl__buf_puts(&all, "\n");
    free(v[i]);
  }
  free(v);
  snprintf(out, 17, "%016llx", (unsigned long long)crawl__hash(all.p ? all.p : ""));
  crawl__buf_free(&all);
}

char **crawl__bl_scopes(const char *path) {
  size_t len;
  int e, n = 0;
  char *text = crawl__file_read(path, CRAWL__BL_MAX_GRAPH, &len, &e);
  cJSON *g = text ? cJSON_ParseWithLength(text, len) : NULL;
  free(text);
  const cJSON *scopes = crawl__arr(g, "scopes"), *s;
  char **v = crawl__xcalloc(2 * (size_t)cJSON_GetArraySize(scopes) + 2, sizeof *v);
  cJSON_ArrayForEach(s, scopes) {
    const char *id = crawl__str(s, "scopeId"), *stable = crawl__str(s, "stableId");
    if (!id) continue;
    v[n++] = crawl__xstrdup(id);
    v[n++] = stable ? crawl__xprintf("id\x1f%s", stable)
                    : crawl__xprintf("k\x1f%s\x1f%s", crawl__str(s, "kind") ?: "", crawl__str(s, "name") ?: "");
  }
  cJSON_Delete(g);
  return v;
}

void crawl__bl_scopes_free(char **pairs) {
  for (int i = 0; pairs && pairs[i]; i++) free(pairs[i]);
  free(pairs);
}

const char *crawl__bl_scope_find(char *const *pairs, const char *s, int by) {
  for (int i = 0; pairs && s && pairs[i]; i += 2)
    if (!strcmp(pairs[i + by], s)) return pairs[i + !by];
  return NULL;
}

int crawl__bl_pick(const char *run_id, const char *tid, int pct) {
  if (pct <= 0) return 0;
  if (pct >= 100) return 1;
  char key[256];
  snprintf(key, sizeof key, "%s/%s", run_id ? run_id : "", tid ? tid : "");
  return (int)(crawl__hash(key) % 100) < pct;
}

/* ---- records --------------------------------------------------------------------- */
/* The state file at rel inside the directory: its elements digest into d. 0 or -1 (rd->err). */
static int state_graph(bl_reader *rd, const char *rel, char d[17]) {
  if (!rel || !crawl__path_inside(rel)) return bl_fail(rd, "%s: a state's pageGraphRef is missing or leaves the directory: %s", rel);
  char *path = crawl__xprintf("%s/%s", rd->dir, rel);
  size_t len;
  int e;
  char *text = crawl__file_read(path, CRAWL__BL_MAX_GRAPH, &len, &e);
  free(path);
  if (!text) return bl_fail(rd, "%s: cannot read state file %s", rel);
  cJSON *g = cJSON_ParseWithLength(text, len);
  free(text);
  int ok = cJSON_IsObject(g) && cJSON_IsArray(crawl__get(g, "elements"));
  if (ok) crawl__bl_elements_digest(g, d);
  cJSON_Delete(g);
  return ok ? 0 : bl_fail(rd, "%s: state file %s is no PageGraph", rel);
}

static void via_of(crawl__bl_state *s, const cJSON *via) {
  if (!cJSON_IsObject(via)) return;
  char key[1200];
  const cJSON *t = crawl__get(via, "target");
  crawl__run_action_key(key, sizeof key, crawl__str(via, "actionId"), t, crawl__get(via, "args"), NULL);
  s->via_key = crawl__xstrdup(key);
  s->via_action = crawl__xstrdup(crawl__str(via, "actionId"));
  s->via_role = crawl__xstrdup(crawl__str(t, "role"));
  s->via_name = crawl__xstrdup(crawl__str(t, "name"));
  s->via_stable = crawl__xstrdup(crawl__str(t, "stableId"));
  s->via_scope = crawl__xstrdup(crawl__str(t, "scopeKey"));
}

static int read_state(bl_reader *rd, const cJSON *j) {
  crawl__baseline *b = rd->b;
  const char *id = crawl__str(j, "stateId"), *fp = crawl__str(j, "fingerprint");
  if (!id || !*id || !fp) return bl_fail(rd, "%s/journal.jsonl: a state record without %s", !id || !*id ? "stateId" : "fingerprint");
  if (crawl__strmap_get(&b->by_id, id) >= 0) return 0; /* a resumed run may repeat it: the first wins */
  if (b->nst >= CRAWL__BL_MAX_STATES) return bl_fail(rd, "%s: more than %s states", "100000");
  char d[17];
  if (state_graph(rd, crawl__str(j, "pageGraphRef"), d)) return -1;
  if (b->nst % 64 == 0) b->st = crawl__xrealloc(b->st, (size_t)(b->nst + 64) * sizeof *b->st);
  crawl__bl_state *s = &b->st[b->nst];
  memset(s, 0, sizeof *s);
  s->id = crawl__xstrdup(id);
  s->fp = crawl__xstrdup(fp);
  s->url = crawl__xstrdup(crawl__str(j, "url"));
  s->route = crawl__xstrdup(crawl__str(j, "routeId"));
  s->parent = crawl__xstrdup(crawl__str(j, "parentStateId"));
  s->elems = crawl__xstrdup(d);
  s->graph = crawl__xstrdup(crawl__str(j, "pageGraphRef"));
  s->now = -1;
  via_of(s, crawl__get(j, "via"));
  s->via_tid = crawl__xstrdup(crawl__str(j, "viaTransitionId"));
  s->rec = cJSON_Duplicate(j, 1);
  crawl__strmap_put(&b->by_id, id, b->nst++);
  return 0;
}

static int read_transition(bl_reader *rd, cJSON *j) {
  crawl__baseline *b = rd->b;
  const char *id = crawl__str(j, "transitionId"), *from = crawl__str(j, "fromStateId"), *to = crawl__str(j, "toStateId");
  const char *aid = crawl__str(j, "viaActionId");
  if (!id || !from || !to || !aid) return bl_fail(rd, "%s/journal.jsonl: a transition record without %s", !id ? "transitionId" : !from ? "fromStateId" : !to ? "toStateId" : "viaActionId");
  if (b->ntr >= CRAWL__BL_MAX_TRANSITIONS) return bl_fail(rd, "%s: more than %s transitions", "2000000");
  if (b->ntr == b->captr) b->tr = crawl__xrealloc(b->tr, (size_t)(b->captr = b->captr ? 2 * b->captr : 256) * sizeof *b->tr);
  crawl__bl_trans *t = &b->tr[b->ntr++];
  memset(t, 0, sizeof *t);
  char key[1200];
  crawl__run_action_key(key, sizeof key, aid, crawl__get(j, "target"), crawl__get(j, "args"), NULL);
  t->id = crawl__xstrdup(id);
  t->from = crawl__xstrdup(from);
  t->to = crawl__xstrdup(to);
  t->key = crawl__xstrdup(key);
  t->rec = j;
  t->reverify = crawl__bl_pick(b->run_id, id, b->reverify_pct);
  return 1; /* the record is the baseline's now */
}

/* A review or decision record about an action in a state, or a state's
 * gate record: carried with its transition, or with its state. */
static int read_review(bl_reader *rd, const char *type, cJSON *j) {
  crawl__baseline *b = rd->b;
  const char *st = crawl__str(j, "stateId"), *aid = crawl__str(j, "actionId");
  int gate = !strcmp(type, "gate");
  if (!st || (!gate && (!aid || !cJSON_IsObject(crawl__get(j, "target"))))) return 0;
  if (b->nrv >= CRAWL__BL_MAX_TRANSITIONS) return bl_fail(rd, "%s: more than %s review records", "2000000");
  if (b->nrv == b->caprv) b->rv = crawl__xrealloc(b->rv, (size_t)(b->caprv = b->caprv ? 2 * b->caprv : 64) * sizeof *b->rv);
  char key[1200] = "";
  if (!gate) crawl__run_action_key(key, sizeof key, aid, crawl__get(j, "target"), crawl__get(j, "args"), NULL);
  static const char *const types[] = {"review", "decision", "gate"};
  const char *t = types[!strcmp(type, "decision") ? 1 : gate ? 2 : 0];
  b->rv[b->nrv++] = (crawl__bl_review){t, crawl__xstrdup(st), crawl__xstrdup(key), j, 0};
  return 1;
}

/* The end record's openStates {stateId: untried actions, -1 unknown}: kept
 * (a copy) until the states are read (a torn journal has no end record:
 * every state counts as open). The last end record wins (a resumed run). */
static int read_end(bl_reader *rd, const cJSON *j) {
  const cJSON *o = crawl__get(j, "openStates");
  if (!cJSON_IsObject(o)) return 0;
  cJSON_Delete(rd->open);
  rd->open = cJSON_Duplicate(o, 1);
  return 0;
}

/* crawl__journal_read's callback: the run record first, then states and transitions. */
static int read_record(void *ud, const char *type, cJSON *j) {
  bl_reader *rd = ud;
  if (rd->seen++ == 0) {
    const char *id = crawl__str(j, "runId");
    if (strcmp(type, "run") || !id || !*id || strlen(id) >= sizeof rd->b->run_id)
      return bl_fail(rd, "%s/journal.jsonl does not start with a run record with a %s", "runId");
    snprintf(rd->b->run_id, sizeof rd->b->run_id, "%s", id);
    return 0;
  }
  if (!strcmp(type, "end")) return read_end(rd, j);
  if (!strcmp(type, "state")) return read_state(rd, j);
  if (!strcmp(type, "transition")) return read_transition(rd, j);
  if (!strcmp(type, "review") || !strcmp(type, "decision") || !strcmp(type, "gate")) return read_review(rd, type, j);
  return 0;
}

static const char *const bl_types[] = {"run", "state", "transition", "review", "decision", "gate", "end", NULL};

/* Each state's open work from the end record (all open without one), and
 * whether it or a state first reached through it has any (sub_open): a
 * path into a subtree with nothing open only verifies. */
static void open_work(crawl__baseline *b, const cJSON *open) {
  for (int i = 0; i < b->nst; i++) {
    const cJSON *n = open ? crawl__get(open, b->st[i].id) : NULL;
    b->st[i].open = !open ? -1 : cJSON_IsNumber(n) ? (n->valuedouble < 0 ? -1 : n->valuedouble > 1e6 ? 1000000 : (int)n->valuedouble) : 0;
  }
  for (int i = 0; i < b->nst; i++) {
    if (!b->st[i].open) continue;
    /* up the first-reach tree until a state already marked; steps capped: a crafted cycle of parents */
    for (int k = i, steps = 0; k >= 0 && !b->st[k].sub_open && steps <= b->nst; steps++) {
      b->st[k].sub_open = 1;
      k = crawl__baseline_state(b, b->st[k].parent);
    }
  }
}

/* A state without "via" (older journals): the path that reached it is its
 * viaTransitionId's transition, else the first one from its parent into it.
 * Both looked up in maps: a crafted journal of many states without via and
 * many transitions costs one pass over each, not their product. */
static void via_from_transitions(crawl__baseline *b) {
  crawl__strmap by_id = {0}, by_edge = {0};
  for (int k = 0; k < b->ntr; k++) {
    char *edge = crawl__xprintf("%s\x1f%s", b->tr[k].from, b->tr[k].to);
    crawl__strmap_intern(&by_id, b->tr[k].id, k, NULL); /* the first of an id wins */
    crawl__strmap_intern(&by_edge, edge, k, NULL);
    free(edge);
  }
  for (int i = 0; i < b->nst; i++) {
    crawl__bl_state *s = &b->st[i];
    if (!s->parent || s->via_key) continue;
    long k = -1;
    if (s->via_tid) {
      k = crawl__strmap_get(&by_id, s->via_tid);
    } else {
      char *edge = crawl__xprintf("%s\x1f%s", s->parent, s->id);
      k = crawl__strmap_get(&by_edge, edge);
      free(edge);
    }
    if (k < 0) continue;
    const crawl__bl_trans *t = &b->tr[k];
    s->via_key = crawl__xstrdup(t->key);
    s->via_action = crawl__xstrdup(crawl__str(t->rec, "viaActionId"));
    s->via_role = crawl__xstrdup(crawl__str(crawl__get(t->rec, "target"), "role"));
    s->via_name = crawl__xstrdup(crawl__str(crawl__get(t->rec, "target"), "name"));
    s->via_stable = crawl__xstrdup(crawl__str(crawl__get(t->rec, "target"), "stableId"));
    s->via_scope = crawl__xstrdup(crawl__str(crawl__get(t->rec, "target"), "scopeKey"));
  }
  crawl__strmap_release(&by_id);
  crawl__strmap_release(&by_edge);
}

/* Each state's transitions, by index. */
static void index_transitions(crawl__baseline *b) {
  for (int k = 0; k < b->ntr; k++) {
    int fi = crawl__baseline_state(b, b->tr[k].from);
    if (fi < 0) continue;
    crawl__bl_state *s = &b->st[fi];
    if ((s->nout & (s->nout - 1)) == 0) s->out = crawl__xrealloc(s->out, (size_t)(s->nout ? 2 * s->nout : 1) * sizeof *s->out);
    s->out[s->nout++] = k;
  }
}

crawl_code crawl__baseline_read(const char *dir, int reverify_pct, crawl__baseline **out, char *err, size_t errlen) {
  crawl__baseline *b = crawl__xcalloc(1, sizeof *b);
  b->reverify_pct = reverify_pct < 0 ? 0 : reverify_pct > 100 ? 100 : reverify_pct;
  b->dir = crawl__xstrdup(dir);
  bl_reader rd = {.b = b, .dir = dir, .err = err, .errlen = errlen};
  crawl__journal_stats st;
  char jerr[512];
  *out = NULL;
  if (crawl__journal_read(dir, bl_types, read_record, &rd, &st, jerr, sizeof jerr) != CRAWL_OK)
    snprintf(err, errlen, "baseline %.300s has no readable journal: %.150s", dir, jerr), rd.failed = 1;
  else if (!rd.failed && st.malformed)
    snprintf(err, errlen, "baseline %.300s/journal.jsonl has %ld malformed lines", dir, st.malformed), rd.failed = 1;
  else if (!rd.failed && !rd.seen)
    snprintf(err, errlen, "baseline %.300s/journal.jsonl is empty", dir), rd.failed = 1;
  if (rd.failed) {
    cJSON_Delete(rd.open);
    crawl__baseline_free(b);
    return CRAWL_ARG;
  }
  via_from_transitions(b);
  index_transitions(b);
  open_work(b, rd.open);
  cJSON_Delete(rd.open);
  *out = b;
  return CRAWL_OK;
}

int crawl__baseline_state(const crawl__baseline *b, const char *id) {
  return id ? (int)crawl__strmap_get(&b->by_id, id) : -1;
}

void crawl__baseline_free(crawl__baseline *b) {
  if (!b) return;
  for (int i = 0; i < b->nst; i++) {
    crawl__bl_state *s = &b->st[i];
    free(s->id), free(s->fp), free(s->url), free(s->route), free(s->parent), free(s->via_key), free(s->elems);
    free(s->via_role), free(s->via_name), free(s->via_stable), free(s->via_scope), free(s->via_action), free(s->graph), free(s->via_tid);
    crawl__bl_scopes_free(s->scopes);
    cJSON_Delete(s->rec);
    free(s->out);
  }
  for (int i = 0; i < b->ntr; i++) {
    free(b->tr[i].id), free(b->tr[i].from), free(b->tr[i].to), free(b->tr[i].key);
    cJSON_Delete(b->tr[i].rec);
  }
  for (int i = 0; i < b->nrv; i++) {
    free(b->rv[i].state), free(b->rv[i].key);
    cJSON_Delete(b->rv[i].rec);
  }
  free(b->rv);
  free(b->st);
  free(b->tr);
  free(b->of_now);
  for (int i = 0; i < b->nnow_scopes; i++) crawl__bl_scopes_free(b->now_scopes[i]);
  free(b->now_scopes);
  free(b->dir);
  crawl__strmap_release(&b->by_id);
  free(b);
}

/* explore_resume.c -- rebuilding the run from its journal (--resume): states,
 * transitions (done actions, outcomes, edges), failures, decisions and
 * counters read back, and the plan of a run resumed without one (its first
 * record's environment and seeds: crawl_resume_plan). The same record
 * readers serve the shared frontier's states and edges of other workers
 * (explore_shared.c). */
#include "explore_int.h"

/* ---- resume: rebuild the run from its journal ----------------------------------- */
static void action_from_json(action *a, const char *action_id, const cJSON *t, const cJSON *args, int escape) {
  memset(a, 0, sizeof *a);
  a->action_id = crawl__xstrdup(action_id ? action_id : "ui.activate");
  a->role = crawl__xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "role")));
  a->name = crawl__xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "name")));
  a->stable_id = crawl__xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "stableId")));
  a->scope_key = crawl__xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "scopeKey")));
  const cJSON *ord = cJSON_GetObjectItemCaseSensitive(t, "ordinal");
  a->ordinal = cJSON_IsNumber(ord) ? ord->valueint : 0;
  a->escape = escape;
  a->option = crawl__xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "option")));
  const cJSON *oi = cJSON_GetObjectItemCaseSensitive(args, "optionIndex");
  a->option_index = cJSON_IsNumber(oi) ? oi->valueint : 0;
  const cJSON *fi = cJSON_GetObjectItemCaseSensitive(args, "fromIndex");
  a->option_from = cJSON_IsNumber(fi) ? fi->valueint : -1;
  crawl__act_text_from_args(a, args);
}

int crawl__run_state_by_id(const run *r, const char *id) {
  for (int i = 0; id && i < r->f.nst; i++)
    if (!strcmp(r->f.st[i].id, id)) return i;
  return -1;
}

static void add_done(state *s, const char *key) {
  s->done = crawl__xrealloc(s->done, (size_t)(s->ndone + 1) * sizeof *s->done);
  s->done[s->ndone++] = crawl__xstrdup(key);
}

/* The n actions with these keys are done in s (by this run's journal or
 * another worker): kept for when s is prepared, and marked now if it is
 * (each action's key made once). */
void crawl__run_mark_done(state *s, char *const *keys, size_t n) {
  for (size_t k = 0; k < n; k++) add_done(s, keys[k]);
  for (int i = 0; i < s->nacts; i++) {
    char key[1200];
    if (s->acts[i].done) continue;
    crawl__run_action_key(key, sizeof key, NULL, NULL, NULL, &s->acts[i]);
    for (size_t k = 0; k < n && !s->acts[i].done; k++) s->acts[i].done = !strcmp(keys[k], key);
  }
}

/* A "state" line: the state back in the table (once per id). */
void crawl__run_resume_state(run *r, const cJSON *j, const char *sid) {
  state *st = crawl__run_state_slot(r);
  snprintf(st->fp, sizeof st->fp, "%s", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "fingerprint")) ?: "");
  snprintf(st->cfp, sizeof st->cfp, "%s", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "contentFingerprint")) ?: "");
  st->id = crawl__xstrdup(sid);
  st->url = crawl__xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "url")));
  /* routeKey only when it differs from routeId (journals before it: the key) */
  const char *rid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "routeId"));
  const char *rkey = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "routeKey"));
  st->route = crawl__xstrdup(rkey ? rkey : rid);
  st->route_id = crawl__xstrdup(rid);
  st->title = crawl__xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "title")));
  const cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "depth"), *sd = cJSON_GetObjectItemCaseSensitive(j, "seed");
  st->depth = cJSON_IsNumber(d) ? d->valueint : 0;
  st->seed = cJSON_IsNumber(sd) ? sd->valueint : 0;
  st->parent = crawl__run_state_by_id(r, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "parentStateId")));
  const cJSON *via = cJSON_GetObjectItemCaseSensitive(j, "via");
  if (via)
    action_from_json(&st->via, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(via, "actionId")),
                     cJSON_GetObjectItemCaseSensitive(via, "target"), cJSON_GetObjectItemCaseSensitive(via, "args"),
                     cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(via, "escape")));
  st->addressable = st->parent < 0 ? 1 : -1;
  fr_index_state(&r->f, r->f.nst++);
}

/* A "transition" line: done in its state, an outcome, an edge or a self loop. */
/* A transition record (this run's journal, or another worker's on the
 * shared frontier) into the table: the action done in `from`, its outcome,
 * its time, and the edge. */
void crawl__run_known_transition(run *r, int from, int to, const cJSON *j) {
  const char *aid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "viaActionId"));
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "target"), *args = cJSON_GetObjectItemCaseSensitive(j, "args");
  char key[1200];
  crawl__run_action_key(key, sizeof key, aid, t, args, NULL);
  char *one = key;
  crawl__run_mark_done(&r->f.st[from], &one, 1);
  int pk, pkr;
  fr_outcome_keys(&r->f, key, r->f.st[from].route, &pk, &pkr);
  fr_outcome_note(&r->f, pk, pkr, from, to);
  const cJSON *dur = cJSON_GetObjectItemCaseSensitive(j, "durationMs");
  int took = cJSON_IsNumber(dur) && dur->valuedouble > 0 && dur->valuedouble < 3600000 ? (int)dur->valuedouble : 0;
  if (from == to) {
    fr_note_ms(&r->f, pk, -1, took);
    return;
  }
  action a;
  const char *role = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "role"));
  action_from_json(&a, aid, t, args, aid && !strcmp(aid, "ui.dismiss") && role && !strcmp(role, "dialog"));
  fr_note_ms(&r->f, pk, fr_add_edge(&r->f, from, to, &a), took);
  fr_relax(&r->f, from, to, &a); /* the depths the run had found, not the first ones */
  fr_action_free(&a);
}

static void resume_transition(run *r, const cJSON *j) {
  int from = crawl__run_state_by_id(r, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "fromStateId")));
  int to = crawl__run_state_by_id(r, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "toStateId")));
  r->transitions++;
  if (from < 0 || to < 0) return;
  r->self_loops += from == to;
  crawl__run_known_transition(r, from, to, j);
}

/* One journal record back into the run (crawl__journal_read's callback). */
int crawl__run_resume_record(void *ud, const char *type, cJSON *j) {
  run *r = ud;
  const char *sid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "stateId"));
  if (!strcmp(type, "run")) {
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "runId"));
    if (id) snprintf(r->run_id, sizeof r->run_id, "%s", id);
  } else if (!strcmp(type, "state") && sid && crawl__run_state_by_id(r, sid) < 0) {
    crawl__run_resume_state(r, j, sid);
  } else if (!strcmp(type, "transition")) {
    resume_transition(r, j);
  } else if (!strcmp(type, "failure")) {
    int st = crawl__run_state_by_id(r, sid);
    r->failures++;
    if (st >= 0) {
      char key[1200];
      crawl__run_action_key(key, sizeof key, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "actionId")),
                 cJSON_GetObjectItemCaseSensitive(j, "target"), cJSON_GetObjectItemCaseSensitive(j, "args"), NULL);
      add_done(&r->f.st[st], key);
    }
  } else if (!strcmp(type, "decision")) {
    int st = crawl__run_state_by_id(r, sid);
    r->decisions++;
    if (st >= 0) r->f.st[st].decided = 1;
  } else if (!strcmp(type, "review")) {
    r->reviews++;
  }
  return 0;
}

/* The record types a resumed run reads back. */
const char *const crawl__run_resume_types[] = {"run", "state", "transition", "failure", "decision", "review", NULL};

/* ---- resume without a plan: the run's own ---------------------------------------- */
/* crawl__journal_read: a copy of the first record, then stop. */
static int first_record(void *ud, const char *type, cJSON *rec) {
  (void)type;
  *(cJSON **)ud = cJSON_Duplicate(rec, 1);
  return -1;
}

crawl_code crawl_resume_plan(const char *dir, char **text, char *err, size_t errlen) {
  cJSON *first = NULL;
  crawl__journal_stats st;
  *text = NULL;
  if (crawl__journal_read(dir, NULL, first_record, &first, &st, NULL, 0) != CRAWL_OK) {
    snprintf(err, errlen, "nothing to resume in %s (no journal.jsonl)", dir);
    return CRAWL_ARG;
  }
  if (!first || st.malformed || st.unknown || strcmp(crawl__str(first, "type") ?: "", "run")) {
    cJSON_Delete(first);
    snprintf(err, errlen, "%s/journal.jsonl does not start with a run record", dir);
    return CRAWL_ARG;
  }
  cJSON *pl = cJSON_CreateObject();
  cJSON_AddItemToObject(pl, "environment", cJSON_DetachItemFromObjectCaseSensitive(first, "environment"));
  cJSON_AddItemToObject(pl, "seeds", cJSON_DetachItemFromObjectCaseSensitive(first, "seeds"));
  cJSON_Delete(first);
  *text = cJSON_Print(pl);
  cJSON_Delete(pl);
  if (*text) return CRAWL_OK;
  snprintf(err, errlen, "out of memory");
  return CRAWL_IO;
}

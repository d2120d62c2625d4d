/* merge.c -- one crawl directory out of the directories of the workers of
 * one run that shared a frontier (crawl_merge in crawl_pkg.h;
 * docs/merge.md). No browser: journals and files only.
 *
 * A pipeline of named steps: read every journal (mg_read), check that they
 * are of one run and that the output is free (mg_check_runs, mg_check_out),
 * put the records in time order (mg_sort), find the states outside the
 * run's origins (mg_scope), judge each one a keeper or a duplicate
 * (mg_judge), give the kept transitions new ids and point the
 * references at them (mg_renumber), copy the kept states' files
 * (mg_copy_files), write the journal (mg_write), then the package. */
#include "crawl_journal.h"
#include "crawl_pkg.h"
#include "crawl_strmap.h"
#include "crawl_util.h"
#include "pg_url.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One record of some worker's journal (not its run and end records). */
typedef struct {
  cJSON *j;          /* the record (owned) */
  const char *type;  /* its type (inside j) */
  char *at;          /* its "at", else the one of the record before it in its file (owned) */
  int dir;           /* its directory (index) */
  long seq;          /* its place among its directory's records */
  int keep;          /* goes into the merged journal */
  long tid;          /* a transition: the number of the kept copy (new id t_%05ld) */
} mg_rec;

typedef struct {
  const char *path;
  struct stat st;
  cJSON *run, *end;     /* its first run record, its last end record (owned) */
  crawl__strmap tids;   /* its transitionIds -> new numbers */
} mg_dir;

typedef struct {
  mg_dir *dirs;
  int ndirs, cur;       /* cur: the directory being read */
  mg_rec *recs;
  size_t n, cap;
  long ntid;            /* transitions kept so far */
  crawl__strmap first;  /* dedupe key -> index of the kept record */
  crawl__strmap count;  /* dedupe key -> copies kept (kinds a directory may repeat) */
  crawl__strmap seen;   /* "dir\x1ekey" -> copies seen in that directory */
  crawl__strmap scope;  /* the run's origins (mg_scope) */
  crawl__strmap foreign; /* ids of states outside them: dropped with what names them */
  const char *out;
  const crawl_merge_opts *o;
  crawl_merge_stats *st;
  char *err;
  size_t errlen;
} mg;

/* ---- what makes two records the same ------------------------------------------- */
/* Records of a type are duplicates when these fields are equal (strings as
 * they are, anything else as JSON text); no fields: the whole record but
 * its "at" (types this version does not know). per_dir: one worker may
 * repeat the record itself (a resumed worker, an action taken twice), so
 * as many copies are kept as the directory with the most has -- what one
 * process would have written; the others are kept once. */
typedef struct {
  const char *type;
  const char *fields[6];
  int per_dir;
} mg_kind;

static const mg_kind kinds[] = {
  {"state", {"stateId"}, 0},
  {"transition", {"fromStateId", "toStateId", "viaActionId", "target", "args"}, 1},
  {"decision", {"stateId", "actionId", "target"}, 1},
  {"failure", {"stateId", "actionId", "target"}, 1},
  {"review", {"kind", "stateId", "routeId", "description"}, 0},
  {"seed", {"index"}, 0},
  {"budget", {"budget", "limit", "routeId"}, 0},
  {"status", {"status"}, 0},
  {"note", {"text"}, 0},
  {"gate", {"stateId"}, 0}, /* one per state; the package counts a state once */
};
static const mg_kind unknown_kind = {"", {NULL}, 0};

static const mg_kind *kind_of(const char *type) {
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    if (!strcmp(type, kinds[i].type)) return &kinds[i];
  return &unknown_kind;
}

/* A target's identity across workers: role, name, stableId, ordinal. Its
 * scopeId, documentId and instanceId come from backend node ids, which
 * differ between page loads and so between workers (caller frees). */
static char *target_key(const cJSON *t) {
  return crawl__xprintf("%s\x1e%s\x1e%s\x1e%d", crawl__str(t, "role") ?: "", crawl__str(t, "name") ?: "",
                        crawl__str(t, "stableId") ?: "", cJSON_IsNumber(crawl__get(t, "ordinal")) ? crawl__get(t, "ordinal")->valueint : 0);
}

/* The record's dedupe key (caller frees): its type, then the key fields. */
static char *mg_key(const mg_kind *k, const mg_rec *r) {
  crawl__buf b = {0};
  crawl__buf_puts(&b, r->type);
  if (!k->fields[0]) {
    cJSON *c = crawl__jx(cJSON_Duplicate(r->j, 1));
    cJSON_DeleteItemFromObjectCaseSensitive(c, "at");
    char *t = crawl__jtext(c, 0);
    cJSON_Delete(c);
    crawl__buf_printf(&b, "\x1f%s", t);
    free(t);
    return crawl__buf_take(&b);
  }
  for (size_t f = 0; f < sizeof k->fields / sizeof *k->fields && k->fields[f]; f++) {
    const cJSON *v = crawl__get(r->j, k->fields[f]);
    char *t = !v                             ? crawl__xstrdup("")
              : !strcmp(k->fields[f], "target") ? target_key(v)
              : cJSON_IsString(v)             ? crawl__xstrdup(v->valuestring)
                                              : crawl__jtext(v, 0);
    crawl__buf_printf(&b, "\x1f%s", t);
    free(t);
  }
  return crawl__buf_take(&b);
}

/* ---- reading ------------------------------------------------------------------- */
static int mg_record(void *ud, const char *type, cJSON *rec) {
  mg *m = ud;
  mg_dir *d = &m->dirs[m->cur];
  if (!strcmp(type, "run")) {
    if (d->run) return 0; /* a resumed worker's again: the first one speaks */
    d->run = rec;
    return 1;
  }
  if (!strcmp(type, "end")) { /* the last one, as the package reads it */
    cJSON_Delete(d->end);
    d->end = rec;
    return 1;
  }
  const char *at = crawl__str(rec, "at");
  if (m->n == m->cap) m->recs = crawl__xrealloc(m->recs, (m->cap = m->cap ? 2 * m->cap : 256) * sizeof *m->recs);
  const mg_rec *prev = m->n && m->recs[m->n - 1].dir == m->cur ? &m->recs[m->n - 1] : NULL; /* after the realloc */
  mg_rec *r = &m->recs[m->n];
  memset(r, 0, sizeof *r);
  r->j = rec;
  r->type = crawl__str(rec, "type");
  r->at = crawl__xstrdup(at ? at : prev ? prev->at : "");
  r->dir = m->cur;
  r->seq = prev ? prev->seq + 1 : 0;
  m->n++;
  return 1;
}

static int same_file(const struct stat *a, const struct stat *b) {
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Directory i: a directory, not given before, with a journal. */
static crawl_code mg_dir_check(mg *m, int i) {
  mg_dir *d = &m->dirs[i];
  if (stat(d->path, &d->st) != 0 || !S_ISDIR(d->st.st_mode))
    return crawl__errf(m->err, m->errlen, CRAWL_ARG, "%s: not a directory", d->path);
  for (int k = 0; k < i; k++)
    if (same_file(&m->dirs[k].st, &d->st))
      return crawl__errf(m->err, m->errlen, CRAWL_ARG, "%s and %s are the same directory", m->dirs[k].path, d->path);
  char *jp = crawl__xprintf("%s/" CRAWL__JOURNAL_FILE, d->path);
  struct stat js;
  int have = stat(jp, &js) == 0 && S_ISREG(js.st_mode);
  free(jp);
  if (!have) return crawl__errf(m->err, m->errlen, CRAWL_ARG, "%s has no " CRAWL__JOURNAL_FILE " (not a crawl directory)", d->path);
  return CRAWL_OK;
}

static crawl_code mg_read(mg *m) {
  for (int i = 0; i < m->ndirs; i++) {
    crawl_code rc = mg_dir_check(m, i);
    if (rc) return rc;
    m->cur = i;
    if (crawl__journal_read_all(m->dirs[i].path, mg_record, m, NULL, m->err, m->errlen) != CRAWL_OK) return CRAWL_ARG;
  }
  return CRAWL_OK;
}

/* ---- checks -------------------------------------------------------------------- */
static crawl_code mg_check_runs(mg *m) {
  for (int i = 0; i < m->ndirs; i++)
    if (!m->dirs[i].run)
      return crawl__errf(m->err, m->errlen, CRAWL_ARG, "%s/" CRAWL__JOURNAL_FILE " has no run record", m->dirs[i].path);
  const char *id0 = crawl__str(m->dirs[0].run, "runId");
  for (int i = 1; i < m->ndirs && !m->o->force; i++) {
    const char *id = crawl__str(m->dirs[i].run, "runId");
    if (!id0 || !id || strcmp(id0, id))
      return crawl__errf(m->err, m->errlen, CRAWL_ARG,
                         "%s is of run %s but %s of run %s: not workers of one run (--force merges them anyway)",
                         m->dirs[i].path, id ? id : "(none)", m->dirs[0].path, id0 ? id0 : "(none)");
  }
  return CRAWL_OK;
}

static int dir_empty(const char *path) {
  DIR *d = opendir(path);
  if (!d) return 0;
  struct dirent *e;
  int empty = 1;
  while (empty && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = 0;
  closedir(d);
  return empty;
}

/* The output: none of the inputs; new (made here), or empty unless force. */
static crawl_code mg_check_out(mg *m) {
  struct stat st;
  if (stat(m->out, &st) != 0) {
    if (errno == ENOENT && mkdir(m->out, 0755) == 0) return CRAWL_OK;
    return crawl__errf(m->err, m->errlen, CRAWL_IO, "cannot create %s: %s", m->out, strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) return crawl__errf(m->err, m->errlen, CRAWL_IO, "%s is not a directory", m->out);
  for (int i = 0; i < m->ndirs; i++)
    if (same_file(&m->dirs[i].st, &st))
      return crawl__errf(m->err, m->errlen, CRAWL_ARG, "%s is one of the directories to merge", m->out);
  if (!m->o->force && !dir_empty(m->out))
    return crawl__errf(m->err, m->errlen, CRAWL_IO, "%s is not empty (it may hold another run); pass --force to write into it", m->out);
  return CRAWL_OK;
}

/* ---- time order and duplicates ---------------------------------------------------- */
/* By time; at the same time, by directory on the command line, then file order. */
static int cmp_rec(const void *x, const void *y) {
  const mg_rec *a = x, *b = y;
  int c = strcmp(a->at, b->at);
  if (c) return c;
  if (a->dir != b->dir) return a->dir < b->dir ? -1 : 1;
  return (a->seq > b->seq) - (a->seq < b->seq);
}

static void mg_sort(mg *m) { qsort(m->recs, m->n, sizeof *m->recs, cmp_rec); }

/* A kind a directory may repeat: kept while its directory has shown more
 * copies than were kept. */
static int mg_repeat_kept(mg *m, const mg_rec *r, const char *key) {
  char *dk = crawl__xprintf("%d\x1e%s", r->dir, key);
  long seen = crawl__strmap_get(&m->seen, dk), kept = crawl__strmap_get(&m->count, key);
  seen = (seen < 0 ? 0 : seen) + 1;
  kept = kept < 0 ? 0 : kept;
  crawl__strmap_put(&m->seen, dk, seen);
  free(dk);
  if (seen <= kept) return 0;
  crawl__strmap_put(&m->count, key, kept + 1);
  return 1;
}

/* r's file named by field (a path inside its directory) exists. */
static int has_file(const mg *m, const mg_rec *r, const char *field) {
  const char *ref = crawl__str(r->j, field);
  if (!ref || !crawl__path_inside(ref)) return 0;
  char *p = crawl__xprintf("%s/%s", m->dirs[r->dir].path, ref);
  struct stat st;
  int ok = stat(p, &st) == 0 && S_ISREG(st.st_mode);
  free(p);
  return ok;
}

/* A state seen again: this copy replaces the kept one when only it has its
 * PageGraph file (the kept one's worker died before writing it out). */
static void mg_state_again(mg *m, size_t i, long first, const char *key) {
  mg_rec *r = &m->recs[i], *k = &m->recs[first];
  if (has_file(m, k, "pageGraphRef") || !has_file(m, r, "pageGraphRef")) return;
  k->keep = 0;
  r->keep = 1;
  crawl__strmap_put(&m->first, key, (long)i);
}

static void mg_count(mg *m, const mg_rec *r) {
  int state = !strcmp(r->type, "state"), tr = !strcmp(r->type, "transition");
  if (r->keep) {
    m->st->states += state;
    m->st->transitions += tr;
    m->st->self_loops += tr && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r->j, "selfLoop"));
    m->st->decisions += !strcmp(r->type, "decision");
    m->st->failures += !strcmp(r->type, "failure");
    m->st->reviews += !strcmp(r->type, "review");
  } else {
    long *dup = state ? &m->st->dup_states : tr ? &m->st->dup_transitions : &m->st->dup_other;
    (*dup)++;
  }
}

/* ---- the run's scope: a worker's journal is untrusted input --------------------------- */
/* The run's origins, from the first directory's run record: its baseUrl,
 * its seeds' URLs and environment.metadata.allowedOrigins. A state whose
 * URL lies elsewhere is not one this run could have found (a forged or
 * damaged worker journal): it is dropped with every record that names it,
 * a note says so, and the merged package never widens the run. */
static void scope_add(mg *m, const char *url) {
  char o[512];
  if (url && pg_url_origin(url, o, sizeof o) > 0) crawl__strmap_intern(&m->scope, o, 1, NULL);
}

static void mg_scope(mg *m) {
  const cJSON *run = m->dirs[0].run, *env = crawl__get(run, "environment"), *it;
  scope_add(m, crawl__str(env, "baseUrl"));
  cJSON_ArrayForEach(it, crawl__get(run, "seeds")) scope_add(m, crawl__str(it, "url"));
  cJSON_ArrayForEach(it, crawl__get(crawl__get(env, "metadata"), "allowedOrigins")) scope_add(m, cJSON_GetStringValue(it));
  for (size_t i = 0; i < m->n; i++) {
    const mg_rec *r = &m->recs[i];
    const char *url = crawl__str(r->j, "url"), *id = crawl__str(r->j, "stateId");
    char o[512];
    if (strcmp(r->type, "state") || !id || !url) continue;
    if (pg_url_origin(url, o, sizeof o) > 0 && crawl__strmap_get(&m->scope, o) >= 0) continue;
    if (crawl__strmap_get(&m->foreign, id) < 0) m->st->foreign++;
    crawl__strmap_intern(&m->foreign, id, 1, NULL);
  }
}

/* 1 when r names a state outside the run's scope. */
static int names_foreign(const mg *m, const mg_rec *r) {
  static const char *const fields[] = {"stateId", "fromStateId", "toStateId", "parentStateId"};
  for (size_t k = 0; m->foreign.n && k < sizeof fields / sizeof *fields; k++) {
    const char *id = crawl__str(r->j, fields[k]);
    if (id && crawl__strmap_get(&m->foreign, id) >= 0) return 1;
  }
  return 0;
}

/* Record i (in time order): dropped when it names a state outside the
 * run's scope, else kept or a duplicate; a transition gets its new number,
 * and its directory's old id is mapped to it (the first wins). */
static void mg_judge(mg *m, size_t i) {
  mg_rec *r = &m->recs[i];
  if (names_foreign(m, r)) {
    r->keep = 0;
    return;
  }
  const mg_kind *k = kind_of(r->type);
  char *key = mg_key(k, r);
  int added;
  long first = crawl__strmap_intern(&m->first, key, (long)i, &added);
  if (k->per_dir) r->keep = mg_repeat_kept(m, r, key);
  else r->keep = added;
  mg_count(m, r);
  if (!added && !strcmp(r->type, "state")) mg_state_again(m, i, first, key); /* one kept either way */
  if (!strcmp(r->type, "transition")) {
    r->tid = r->keep ? ++m->ntid : m->recs[first].tid;
    const char *old = crawl__str(r->j, "transitionId");
    if (old) crawl__strmap_intern(&m->dirs[r->dir].tids, old, r->tid, NULL);
  }
  free(key);
}

/* ---- new transition ids ------------------------------------------------------------- */
static void set_str(cJSON *o, const char *k, const char *v) {
  cJSON *s = crawl__jx(cJSON_CreateString(v));
  if (crawl__get(o, k)) cJSON_ReplaceItemInObjectCaseSensitive(o, k, s);
  else cJSON_AddItemToObject(o, k, s);
}

/* Kept transitions take their new ids; a state's viaTransitionId and a
 * requests record's transitionId follow its directory's mapping (dropped
 * when it names no transition there). */
static void mg_renumber(mg *m) {
  char id[32];
  for (size_t i = 0; i < m->n; i++) {
    mg_rec *r = &m->recs[i];
    if (!r->keep) continue;
    if (!strcmp(r->type, "transition")) {
      snprintf(id, sizeof id, "t_%05ld", r->tid);
      set_str(r->j, "transitionId", id);
    }
    /* a state's viaTransitionId, a requests record's transitionId (docs/api.md) */
    const char *field = !strcmp(r->type, "state") ? "viaTransitionId" : !strcmp(r->type, "requests") ? "transitionId" : NULL;
    const char *via = field ? crawl__str(r->j, field) : NULL;
    if (!via) continue;
    long t = crawl__strmap_get(&m->dirs[r->dir].tids, via);
    snprintf(id, sizeof id, "t_%05ld", t);
    if (t >= 0) set_str(r->j, field, id);
    else cJSON_DeleteItemFromObjectCaseSensitive(r->j, field);
  }
}

/* ---- files -------------------------------------------------------------------------- */
/* Make the folders of out/rel above its last part. 0 or errno. */
static int mkdir_parents(const char *out, const char *rel) {
  char *p = crawl__xprintf("%s/%s", out, rel);
  int e = 0;
  for (char *s = p + strlen(out) + 1; !e && (s = strchr(s, '/')); *s++ = '/') {
    *s = 0;
    if (mkdir(p, 0755) != 0 && errno != EEXIST) e = errno;
  }
  free(p);
  return e;
}

/* Copy the file r names by field into out at the same place. A file that
 * is missing is no error here: the package notes it as it does for a crawl. */
static crawl_code mg_copy(mg *m, const mg_rec *r, const char *field) {
  if (!has_file(m, r, field)) return CRAWL_OK;
  const char *ref = crawl__str(r->j, field);
  char *from = crawl__xprintf("%s/%s", m->dirs[r->dir].path, ref), *to = crawl__xprintf("%s/%s", m->out, ref);
  size_t len = 0;
  int e = 0;
  char *data = crawl__file_read(from, CRAWL__FILE_MAX, &len, &e);
  crawl_code rc = CRAWL_OK;
  if (!data) rc = crawl__errf(m->err, m->errlen, CRAWL_ARG, "%s: %s", from, strerror(e));
  else if ((e = mkdir_parents(m->out, ref)) || (e = crawl__file_write(to, data, len)))
    rc = crawl__errf(m->err, m->errlen, CRAWL_IO, "%s: %s", to, strerror(e));
  free(data);
  free(from);
  free(to);
  return rc;
}

static crawl_code mg_copy_files(mg *m) {
  crawl_code rc = CRAWL_OK;
  for (size_t i = 0; i < m->n && !rc; i++) {
    const mg_rec *r = &m->recs[i];
    if (!r->keep || strcmp(r->type, "state")) continue;
    if (!(rc = mg_copy(m, r, "pageGraphRef")) && !(rc = mg_copy(m, r, "screenshotRef")))
      rc = mg_copy(m, r, "accessibilityRef");
  }
  return rc;
}

/* ---- the merged journal ---------------------------------------------------------------- */
/* The latest time of any record (the merged end's and notes' "at"). */
static const char *mg_last_at(const mg *m) {
  const char *at = crawl__str(m->dirs[0].run, "at");
  if (!at) at = "";
  for (size_t i = 0; i < m->n; i++)
    if (strcmp(m->recs[i].at, at) > 0) at = m->recs[i].at;
  for (int i = 0; i < m->ndirs; i++) {
    const char *e = crawl__str(m->dirs[i].end, "at");
    if (e && strcmp(e, at) > 0) at = e;
  }
  return at;
}

/* What stopped the merged run: the input's reason that says the most about
 * the result, in this order (a worker stopped by a budget leaves the run
 * partial though the others drained the frontier). Reasons not listed rank
 * before "frontier". */
static const char *const stop_rank[] = {"guard", "error", "signal", "maxRuntimeMs", "maxTransitions", "maxStates",
                                        NULL};

static int stop_rank_of(const char *sb) {
  int k = 0;
  for (; stop_rank[k]; k++)
    if (!strcmp(stop_rank[k], sb)) return k;
  return strcmp(sb, "frontier") ? k : k + 1;
}

/* One end for all: completed unless an input ended otherwise (the first
 * such status); the latest finishedAt; the weightiest stoppedBy (stop_rank),
 * also in m->st->stopped_by. NULL when no input has an end record. Caller
 * frees. */
static cJSON *mg_end(const mg *m, const char *at) {
  const char *status = NULL, *stopped = NULL, *finished = NULL;
  for (int i = 0; i < m->ndirs; i++) {
    const cJSON *e = m->dirs[i].end;
    if (!e) continue;
    const char *s = crawl__str(e, "status"), *sb = crawl__str(e, "stoppedBy"), *fa = crawl__str(e, "finishedAt");
    if (!s) s = "failed";
    if (!status || (!strcmp(status, "completed") && strcmp(s, "completed"))) status = s;
    if (sb && (!stopped || stop_rank_of(sb) < stop_rank_of(stopped))) stopped = sb;
    if (fa && (!finished || strcmp(fa, finished) > 0)) finished = fa;
  }
  if (!status) return NULL;
  if (stopped) {
    int k = stop_rank_of(stopped), nk = (int)(sizeof stop_rank / sizeof *stop_rank) - 1;
    m->st->stopped_by = k < nk ? stop_rank[k] : !strcmp(stopped, "frontier") ? "frontier" : "other";
  }
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "type", "end");
  crawl__jstr(o, "at", at);
  crawl__jstr(o, "status", status);
  crawl__jstr(o, "finishedAt", finished ? finished : at);
  crawl__jstr(o, "stoppedBy", stopped);
  return o;
}

/* A note for each input without an end record (its worker was stopped). */
/* A note record of the merge itself (text is freed). */
static void mg_note(crawl__journal *j, const char *at, char *text) {
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "type", "note");
  crawl__jstr(o, "at", at);
  crawl__jstr(o, "text", text);
  crawl__journal_put(j, o);
  cJSON_Delete(o);
  free(text);
}

static void mg_notes(mg *m, crawl__journal *j, const char *at) {
  for (int i = 0; i < m->ndirs; i++) {
    if (m->dirs[i].end) continue;
    m->st->unended++;
    mg_note(j, at, crawl__xprintf("worker journal %s had no end record (the worker was stopped)", m->dirs[i].path));
  }
  if (m->st->foreign)
    mg_note(j, at, crawl__xprintf("%ld state(s) of the worker journals lay outside the run's origins (forged or "
                                  "damaged input): dropped with every record naming them", m->st->foreign));
}

static crawl_code mg_write(mg *m) {
  crawl__journal *j = crawl__journal_open(m->out, 0, m->err, m->errlen);
  if (!j) return CRAWL_IO;
  const char *at = mg_last_at(m);
  crawl__journal_put(j, m->dirs[0].run);
  for (size_t i = 0; i < m->n; i++)
    if (m->recs[i].keep) crawl__journal_put(j, m->recs[i].j);
  mg_notes(m, j, at);
  cJSON *end = mg_end(m, at);
  if (end) crawl__journal_put(j, end);
  cJSON_Delete(end);
  int bad = crawl__journal_failed(j) > 0 || crawl__journal_sync(j) != 0;
  crawl__journal_close(j);
  if (bad) return crawl__errf(m->err, m->errlen, CRAWL_IO, "%s/" CRAWL__JOURNAL_FILE ": cannot write", m->out);
  return CRAWL_OK;
}

/* ---- controls that never changed anything -------------------------------------- */
/* Each worker writes a missing_success_signal review for a control all of
 * whose activations it saw were self-loops without a signal, counted over
 * its own share of the run. The merged run says it once, as one process
 * would: counted over the kept transitions, and not at all when one of them
 * shows the control changing something (explore.c finish()). */
static char *loop_key(const char *action, const cJSON *t) {
  return crawl__xprintf("%s\x1e%s\x1e%s", action ? action : "", crawl__str(t, "role") ?: "", crawl__str(t, "name") ?: "");
}

static int is_loop_review(const mg_rec *r) {
  return !strcmp(r->type, "review") && crawl__str(r->j, "actionId") &&
         !strcmp(crawl__str(r->j, "kind") ?: "", "missing_success_signal");
}

/* The kept transitions' self-loops per control (in loops) and the controls
 * that moved or signalled at least once (in moved). */
static void mg_loop_counts(const mg *m, crawl__strmap *loops, crawl__strmap *moved) {
  for (size_t i = 0; i < m->n; i++) {
    const mg_rec *r = &m->recs[i];
    if (!r->keep || strcmp(r->type, "transition")) continue;
    char *key = loop_key(crawl__str(r->j, "viaActionId"), crawl__get(r->j, "target"));
    const cJSON *sig = crawl__get(r->j, "observedSignals");
    long n = crawl__strmap_get(loops, key);
    if (!cJSON_IsTrue(crawl__get(r->j, "selfLoop")) || cJSON_GetArraySize(sig) > 0) crawl__strmap_put(moved, key, 1);
    else crawl__strmap_put(loops, key, n < 0 ? 1 : n + 1);
    free(key);
  }
}

static void mg_loops(mg *m) {
  crawl__strmap loops = {0}, moved = {0}, said = {0};
  mg_loop_counts(m, &loops, &moved);
  for (size_t i = 0; i < m->n; i++) {
    mg_rec *r = &m->recs[i];
    if (!is_loop_review(r)) continue;
    const char *action = crawl__str(r->j, "actionId");
    char *key = loop_key(action, crawl__get(r->j, "target"));
    long n = crawl__strmap_get(&loops, key);
    int was = r->keep, added = 0;
    if (crawl__strmap_get(&moved, key) < 0 && n > 0) crawl__strmap_intern(&said, key, 1, &added);
    r->keep = added;
    if (added) {
      char *d = crawl__xprintf(CRAWL__LOOP_REVIEW_FMT, action, (int)n);
      cJSON_ReplaceItemInObjectCaseSensitive(r->j, "description", cJSON_CreateString(d));
      free(d);
    }
    m->st->reviews += r->keep - was;
    m->st->dup_other += was - r->keep;
    free(key);
  }
  crawl__strmap_release(&loops);
  crawl__strmap_release(&moved);
  crawl__strmap_release(&said);
}

/* ---- the pipeline ------------------------------------------------------------------------ */
static crawl_code mg_run(mg *m) {
  crawl_code rc;
  if ((rc = mg_read(m)) || (rc = mg_check_runs(m)) || (rc = mg_check_out(m))) return rc;
  mg_sort(m);
  mg_scope(m);
  for (size_t i = 0; i < m->n; i++) mg_judge(m, i);
  mg_loops(m);
  mg_renumber(m);
  if ((rc = mg_copy_files(m)) || (rc = mg_write(m))) return rc;
  return crawl_package_write(m->out, m->err, m->errlen);
}

static void mg_free(mg *m) {
  for (size_t i = 0; i < m->n; i++) {
    cJSON_Delete(m->recs[i].j);
    free(m->recs[i].at);
  }
  free(m->recs);
  for (int i = 0; i < m->ndirs; i++) {
    cJSON_Delete(m->dirs[i].run);
    cJSON_Delete(m->dirs[i].end);
    crawl__strmap_release(&m->dirs[i].tids);
  }
  free(m->dirs);
  crawl__strmap_release(&m->first);
  crawl__strmap_release(&m->count);
  crawl__strmap_release(&m->seen);
  crawl__strmap_release(&m->scope);
  crawl__strmap_release(&m->foreign);
}

crawl_code crawl_merge(const char *const *dirs, int n, const char *out, const crawl_merge_opts *o,
                       crawl_merge_stats *st, char *err, size_t errlen) {
  static const crawl_merge_opts defaults;
  crawl_merge_stats local;
  if (!dirs || n < 1 || !out) return crawl__errf(err, errlen, CRAWL_ARG, "merge needs crawl directories and an output");
  for (int i = 0; i < n; i++)
    if (!dirs[i]) return crawl__errf(err, errlen, CRAWL_ARG, "merge: directory %d is NULL", i);
  mg m = {.ndirs = n, .out = out, .o = o ? o : &defaults, .st = st ? st : &local, .err = err, .errlen = errlen};
  memset(m.st, 0, sizeof *m.st);
  m.st->dirs = n;
  m.dirs = crawl__xcalloc((size_t)n, sizeof *m.dirs);
  for (int i = 0; i < n; i++) m.dirs[i].path = dirs[i];
  crawl_code rc = mg_run(&m);
  mg_free(&m);
  return rc;
}

/* journal.c -- the one writer and reader of DIR/journal.jsonl (see
 * crawl_journal.h and docs/journal.md).
 *
 * Reading rules, the same for every reader: blank lines are skipped; a line
 * is a record when it is a JSON object with a string "type" and nothing
 * after it; a last line without a newline that is no record is torn (the
 * writer died) and ignored; any other line that is no record is malformed
 * and counted; records of unknown types are counted and skipped. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crawl_journal.h"
#include "crawl_secrets.h"
#include "crawl_util.h"

const char *const crawl__journal_types[] = {
  "run", "status", "seed", "state", "transition", "decision", "failure", "review", "note",
  "budget", "end", "gate", "requests", NULL};

struct crawl__journal {
  FILE *f;
  long failed;
  const crawl__secrets *secrets; /* borrowed: every line passes through it */
};

/* ---- writing --------------------------------------------------------------- */
/* Cut a torn last line off path (no newline at the end). 0 or -1. */
static int cut_torn_tail(FILE *f) {
  if (fseek(f, 0, SEEK_END) != 0) return -1;
  long end = ftell(f), keep = end;
  char c;
  while (keep > 0) {
    if (fseek(f, keep - 1, SEEK_SET) != 0 || fread(&c, 1, 1, f) != 1) return -1;
    if (c == '\n') break;
    keep--;
  }
  if (keep < end && ftruncate(fileno(f), (off_t)keep) != 0) return -1;
  return fseek(f, 0, SEEK_END);
}

crawl__journal *crawl__journal_open(const char *dir, int append, char *err, size_t errlen) {
  char *path = crawl__xprintf("%s/" CRAWL__JOURNAL_FILE, dir);
  FILE *f = fopen(path, append ? "a+" : "w");
  if (!f || (append && cut_torn_tail(f) != 0)) {
    if (err && errlen) snprintf(err, errlen, "%s: %s", path, strerror(errno));
    if (f) fclose(f);
    free(path);
    return NULL;
  }
  free(path);
  crawl__journal *j = crawl__xcalloc(1, sizeof *j);
  j->f = f;
  return j;
}

/* Scrub line, write it as one line and flush: 0 or -1 (counted). */
static int put_line(crawl__journal *j, cJSON *line) {
  crawl__secrets_scrub_json(j ? j->secrets : NULL, line);
  char *text = crawl__jtext(line, 0);
  int rc = -1;
  if (j && j->f && fputs(text, j->f) >= 0 && fputc('\n', j->f) != EOF && fflush(j->f) == 0) rc = 0;
  if (rc && j) j->failed++;
  free(text);
  return rc;
}

int crawl__journal_write(crawl__journal *j, const char *type, cJSON *fields) {
  char ts[40];
  cJSON *line = crawl__jx(cJSON_CreateObject());
  crawl__jstr(line, "type", type);
  crawl__jstr(line, "at", crawl__time_iso(ts, sizeof ts));
  for (cJSON *it = fields ? fields->child : NULL, *next; it; it = next) {
    next = it->next;
    cJSON_AddItemToObject(line, it->string, cJSON_DetachItemViaPointer(fields, it));
  }
  cJSON_Delete(fields);
  int rc = put_line(j, line);
  cJSON_Delete(line);
  return rc;
}

int crawl__journal_put(crawl__journal *j, cJSON *rec) {
  if (!cJSON_IsObject(rec) || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(rec, "type"))) {
    if (j) j->failed++;
    return -1;
  }
  return put_line(j, rec);
}

void crawl__journal_secrets(crawl__journal *j, const crawl__secrets *s) {
  if (j) j->secrets = s;
}

int crawl__journal_sync(crawl__journal *j) {
  return j && j->f && fflush(j->f) == 0 && fdatasync(fileno(j->f)) == 0 ? 0 : -1;
}

long crawl__journal_failed(const crawl__journal *j) { return j ? j->failed : 0; }

void crawl__journal_close(crawl__journal *j) {
  if (!j) return;
  if (j->f) fclose(j->f);
  free(j);
}

/* ---- reading --------------------------------------------------------------- */
static int listed(const char *const *list, const char *s, size_t n) {
  for (; *list; list++)
    if (strlen(*list) == n && !strncmp(*list, s, n)) return 1;
  return 0;
}

/* The type of a line as the writer puts it ({"type":"X",...}) without
 * parsing: 1 with *t, *n set; 0 when the line starts otherwise. */
static int quick_type(const char *line, const char **t, size_t *n) {
  static const char lead[] = "{\"type\":\"";
  if (strncmp(line, lead, sizeof lead - 1)) return 0;
  const char *s = line + sizeof lead - 1, *e = s;
  while (*e && *e != '"' && *e != '\\') e++;
  if (*e != '"') return 0;
  *t = s;
  *n = (size_t)(e - s);
  return 1;
}

/* What one read asks for: the wanted types (NULL: every known one), and
 * whether records of unknown types are handed over too. */
typedef struct {
  const char *const *types;
  int unknown_too;
  crawl__journal_fn fn;
  void *ud;
} read_req;

/* One line: -1 stop, 0 go on. */
static int read_line(char *line, int last, const read_req *q, crawl__journal_stats *st) {
  const char *const *types = q->types;
  while (*line == ' ' || *line == '\t' || *line == '\r') line++;
  if (!*line) return 0;
  const char *qt;
  size_t qn;
  if (types && quick_type(line, &qt, &qn) && !listed(types, qt, qn))
    return 0; /* not wanted: not parsed, not counted */
  cJSON *j = cJSON_ParseWithOpts(line, NULL, 1);
  const char *type = cJSON_IsObject(j) ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "type")) : NULL;
  if (!type) {
    cJSON_Delete(j);
    if (last) st->torn = 1;
    else st->malformed++;
    return 0;
  }
  int known = listed(crawl__journal_types, type, strlen(type));
  if (!known) st->unknown++;
  if ((known && (!types || listed(types, type, strlen(type)))) || (!known && q->unknown_too)) {
    st->records++;
    int keep = q->fn(q->ud, type, j);
    if (keep == 1) return 0;
    cJSON_Delete(j);
    return keep < 0 ? -1 : 0;
  }
  cJSON_Delete(j);
  return 0;
}

static void parse_text(char *text, size_t len, const read_req *q, crawl__journal_stats *st) {
  crawl__journal_stats local;
  if (!st) st = &local;
  memset(st, 0, sizeof *st);
  for (size_t pos = 0; pos < len;) {
    char *nl = memchr(text + pos, '\n', len - pos);
    size_t end = nl ? (size_t)(nl - text) : len;
    char *line = text + pos;
    text[end] = 0; /* text[len] is the caller's spare byte */
    pos = end + 1;
    if (read_line(line, !nl, q, st) < 0) break;
  }
}

void crawl__journal_parse(char *text, size_t len, const char *const *types, crawl__journal_fn fn, void *ud,
                          crawl__journal_stats *st) {
  read_req q = {.types = types, .fn = fn, .ud = ud};
  parse_text(text, len, &q, st);
}

static crawl_code read_file(const char *dir, const read_req *q, crawl__journal_stats *st, char *err, size_t errlen) {
  if (st) memset(st, 0, sizeof *st);
  char *path = crawl__xprintf("%s/" CRAWL__JOURNAL_FILE, dir);
  size_t len = 0;
  int e = 0;
  char *text = crawl__file_read(path, CRAWL__FILE_MAX, &len, &e);
  if (!text) {
    if (err && errlen) snprintf(err, errlen, "%s: %s", path, strerror(e));
    free(path);
    return CRAWL_IO;
  }
  free(path);
  parse_text(text, len, q, st);
  free(text);
  return CRAWL_OK;
}

crawl_code crawl__journal_read(const char *dir, const char *const *types, crawl__journal_fn fn, void *ud,
                               crawl__journal_stats *st, char *err, size_t errlen) {
  read_req q = {.types = types, .fn = fn, .ud = ud};
  return read_file(dir, &q, st, err, errlen);
}

crawl_code crawl__journal_read_all(const char *dir, crawl__journal_fn fn, void *ud, crawl__journal_stats *st,
                                   char *err, size_t errlen) {
  read_req q = {.unknown_too = 1, .fn = fn, .ud = ud};
  return read_file(dir, &q, st, err, errlen);
}

/* ---- the public face (crawl_common.h) --------------------------------------- */
/* crawl__journal_read: a copy of the first record, then stop. */
static int first_record(void *ud, const char *type, cJSON *rec) {
  (void)type;
  *(cJSON **)ud = cJSON_Duplicate(rec, 1);
  return -1;
}

crawl_code crawl_journal_run_record(const char *dir, cJSON **run) {
  cJSON *first = NULL;
  crawl__journal_stats st;
  *run = NULL;
  if (crawl__journal_read(dir, NULL, first_record, &first, &st, NULL, 0) != CRAWL_OK) return CRAWL_IO;
  if (!first || st.malformed || st.unknown || strcmp(crawl__str(first, "type") ?: "", "run")) {
    cJSON_Delete(first);
    return CRAWL_ARG;
  }
  *run = first;
  return CRAWL_OK;
}

/* ---- typed records ----------------------------------------------------------- */
/* The reader's callback: rec frozen into the log's arena and decoded. */
static int jlog_record(void *ud, const char *type, cJSON *rec) {
  crawl__jlog *log = ud;
  int kind = 0;
  while (crawl__journal_types[kind] && strcmp(crawl__journal_types[kind], type)) kind++;
  if (!crawl__journal_types[kind]) return 0; /* the reader hands over known types only */
  if (log->n == log->cap)
    log->v = crawl__xrealloc(log->v, (log->cap = log->cap ? log->cap * 2 : 256) * sizeof *log->v);
  crawl__jrec *r = &log->v[log->n++];
  memset(r, 0, sizeof *r);
  const cJSON *j = r->json = crawl__jfreeze(&log->jar, rec);
  r->kind = (crawl__rec_kind)kind;
  int tr = r->kind == CRAWL__REC_TRANSITION;
  const cJSON *t = crawl__get(j, "target");
  r->state = crawl__str(j, tr ? "fromStateId" : "stateId");
  r->action = crawl__str(j, tr ? "viaActionId" : "actionId");
  r->role = crawl__str(t, "role");
  r->name = crawl__str(t, "name");
  r->stable_id = crawl__str(t, "stableId");
  r->effect = crawl__str(j, "effect");
  r->reason = crawl__str(j, "reason");
  r->rule = crawl__str(j, "rule");
  if (tr) {
    r->to = crawl__str(j, "toStateId");
    r->id = crawl__str(j, "transitionId");
    r->self_loop = cJSON_IsTrue(crawl__get(j, "selfLoop"));
    r->signals = crawl__arr(j, "observedSignals");
  }
  return 0;
}

crawl_code crawl__jlog_read(crawl__jlog *log, const char *dir, char *err, size_t errlen) {
  memset(log, 0, sizeof *log);
  return crawl__journal_read(dir, NULL, jlog_record, log, &log->st, err, errlen);
}

void crawl__jlog_release(crawl__jlog *log) {
  if (!log) return;
  crawl__jarena_release(&log->jar);
  free(log->v);
  memset(log, 0, sizeof *log);
}

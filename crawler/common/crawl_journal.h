/* crawl_journal.h -- DIR/journal.jsonl, the crawl's append-only record
 * (docs/journal.md). This module is the only code that writes or reads it:
 * the live side writes and, on --resume, reads it back; the package side
 * derives package.json, reports and workflows from it. Internal to crawler/.
 *
 * One record per line: a JSON object whose first member is "type" and whose
 * second is "at" (RFC 3339 UTC), then the record's own fields.
 */
#ifndef UIAP_CRAWL_JOURNAL_H
#define UIAP_CRAWL_JOURNAL_H

#include <stddef.h>
#include <cjson/cJSON.h>

#include "crawl_common.h"
#include "crawl_util.h"

#define CRAWL__JOURNAL_FILE "journal.jsonl"
/* The description of a `missing_success_signal` review of a control whose
 * every activation was a self-loop without a signal (the action id, the
 * count): written by the explorer at the end of a run, rewritten by merge
 * for the whole run. The record also holds `actionId` and `target`. */
#define CRAWL__LOOP_REVIEW_FMT "Activating this control (%s, %d times) led to no distinguishable state and no signal."

/* ---- writing --------------------------------------------------------------- */
typedef struct crawl__journal crawl__journal;

/* Open DIR/journal.jsonl for writing. append 0: a new, empty journal
 * (truncated); 1: continue one (a torn last line -- the process died while
 * writing it -- is cut off first, so new lines start clean). NULL on error
 * with one line in err. Close with crawl__journal_close. */
crawl__journal *crawl__journal_open(const char *dir, int append, char *err, size_t errlen);
/* Append {"type": type, "at": now, ...fields} as one line and flush it.
 * fields (may be NULL) is consumed: its members move into the record.
 * 0, or -1 when the line could not be written (the journal remembers it:
 * crawl__journal_failed). */
int crawl__journal_write(crawl__journal *j, const char *type, cJSON *fields);
/* Append rec, a whole record that carries its own "type" and "at" (one read
 * from another journal: `merge` copies records), as one line and flush it.
 * rec is borrowed; the secret list scrubs it in place. 0 or -1 (also when
 * rec is no object with a string type), as crawl__journal_write. */
int crawl__journal_put(crawl__journal *j, cJSON *rec);
/* The run's secret list (crawl_secrets.h), borrowed until the journal is
 * closed or another one is set (NULL: none): every string value of every
 * line written from now on passes through it, so no record -- a blocked
 * request's URL in a review item, a state's URL -- carries a secret, nor
 * anything the package side derives from the journal. */
struct crawl__secrets;
void crawl__journal_secrets(crawl__journal *j, const struct crawl__secrets *s);
/* fdatasync: what is written survives a power loss. 0 or -1. */
int crawl__journal_sync(crawl__journal *j);
/* Lines that could not be written since open. */
long crawl__journal_failed(const crawl__journal *j);
/* Flush, close, free. NULL is a no-op. */
void crawl__journal_close(crawl__journal *j);

/* ---- reading --------------------------------------------------------------- */
/* What a read saw besides the records it handed over. */
typedef struct crawl__journal_stats {
  long records;      /* records handed to the callback */
  long malformed;    /* complete lines that are not a JSON object with a string type */
  long unknown;      /* records of a type this version does not know (a newer writer) */
  int torn;          /* the last line has no newline and is not a record: cut off */
} crawl__journal_stats;

/* Called for each record in file order. rec is the parsed line; return 1 to
 * keep it (the callback owns it now), 0 to let the reader free it, -1 to
 * stop reading (the reader frees rec). */
typedef int (*crawl__journal_fn)(void *ud, const char *type, cJSON *rec);

/* Read DIR/journal.jsonl. types: NULL-terminated list of the record types
 * wanted (lines of other types are skipped without being parsed), or NULL
 * for every known type. Records of unknown types are never handed over.
 * st may be NULL. CRAWL_OK (also when the callback stopped the read),
 * CRAWL_IO when the file cannot be read (err: "PATH: reason"). */
crawl_code crawl__journal_read(const char *dir, const char *const *types, crawl__journal_fn fn, void *ud,
                               crawl__journal_stats *st, char *err, size_t errlen);

/* The same for every record, also those of types this version does not
 * know (counted in st->unknown and handed over): for `merge`, which copies
 * them through. */
crawl_code crawl__journal_read_all(const char *dir, crawl__journal_fn fn, void *ud, crawl__journal_stats *st,
                                   char *err, size_t errlen);

/* The same on a journal's text in memory: text[len] must be writable (a
 * NUL goes there); lines are cut in place. For the fuzz target and readers
 * that hold the text already. */
void crawl__journal_parse(char *text, size_t len, const char *const *types, crawl__journal_fn fn, void *ud,
                          crawl__journal_stats *st);

/* ---- typed records: the journal decoded once -------------------------------- */
/* Every reader on the package side (the package build, the workflow finder,
 * the reports' safety decisions) works from one decoding of the journal: a
 * crawl__jlog, the records of the known types in file order, each a
 * crawl__jrec with the fields those readers share decoded, and the whole
 * record kept (json, a frozen copy: crawl_util.h) for what is particular to
 * its kind. The reading rules are crawl__journal_read's. */
typedef enum crawl__rec_kind {  /* the order of crawl__journal_types */
  CRAWL__REC_RUN, CRAWL__REC_STATUS, CRAWL__REC_SEED, CRAWL__REC_STATE, CRAWL__REC_TRANSITION,
  CRAWL__REC_DECISION, CRAWL__REC_FAILURE, CRAWL__REC_REVIEW, CRAWL__REC_NOTE, CRAWL__REC_BUDGET,
  CRAWL__REC_END, CRAWL__REC_GATE, CRAWL__REC_REQUESTS,
} crawl__rec_kind;

/* One record. Strings point into the log's arena (NULL when absent or not a
 * string); what a kind does not carry stays NULL / 0. */
typedef struct crawl__jrec {
  crawl__rec_kind kind;
  int self_loop;              /* transition: "selfLoop" is true */
  const cJSON *json;          /* the whole record, frozen */
  const char *state;          /* "stateId"; a transition's "fromStateId" */
  const char *to;             /* transition: "toStateId" */
  const char *action;         /* transition: "viaActionId"; else "actionId" */
  const char *id;             /* transition: "transitionId" */
  const char *role, *name, *stable_id; /* "target": role, name, stableId */
  const char *effect, *reason, *rule;  /* decision: the gate's word */
  const cJSON *signals;       /* transition: "observedSignals" (array), or NULL */
} crawl__jrec;

typedef struct crawl__jlog {
  crawl__jarena jar;          /* the frozen records */
  crawl__jrec *v;             /* in file order */
  size_t n, cap;
  crawl__journal_stats st;    /* what the read saw (st.records == n) */
} crawl__jlog;

/* Read and decode DIR/journal.jsonl into *log (zeroed first). CRAWL_OK, or
 * CRAWL_IO as crawl__journal_read (log empty). Release with
 * crawl__jlog_release (also after an error). */
crawl_code crawl__jlog_read(crawl__jlog *log, const char *dir, char *err, size_t errlen);
void crawl__jlog_release(crawl__jlog *log);

/* The record types of docs/journal.md, NULL-terminated. */
extern const char *const crawl__journal_types[];

#endif

/* baseline.h -- last night's crawl as tonight's knowledge (crawl --baseline
 * PREV_DIR; docs/nightly.md): what PREV_DIR's journal and state files say
 * (baseline_read.c: read and checked, no browser), and how tonight's run
 * uses it (baseline.c: match tonight's states to last night's, carry the
 * transitions of unchanged states, re-execute a sample, name what is gone).
 * Private to crawler/run/. */
#ifndef UIAP_BASELINE_H
#define UIAP_BASELINE_H

#include "crawl_base.h"
#include "crawl_common.h"

#include <stddef.h>
#include <cjson/cJSON.h>

/* What tonight made of a state of last night's. */
enum { CRAWL__BL_PENDING, CRAWL__BL_UNCHANGED, CRAWL__BL_CHANGED };

typedef struct crawl__bl_state {
  char *id, *fp, *url, *route;
  char *parent;      /* last night's stateId of the state it was first reached from, or NULL */
  char *via_key;     /* the key of the action that reached it from parent (crawl__run_action_key), or NULL */
  char *elems;       /* its actionable elements as one digest (crawl__bl_elements_digest) */
  char *via_role, *via_name, *via_action; /* the via action, for the review item of a gone state */
  char *via_stable;  /* its target's stable id (data-uiap-id), or NULL: a renamed control still matches */
  char *via_scope;   /* its target's scope key (target.scopeKey), or NULL */
  char *via_tid;     /* its viaTransitionId (journals without "via") */
  char *graph;       /* its pageGraphRef */
  int *out, nout;    /* its transitions (indexes in tr) */
  char **scopes;     /* its scopes as pairs (scopeId, what identifies it), NULL-ended; NULL: not read yet */
  int now;           /* tonight's state index, -1: not reached (gone, at the end) */
  int verdict;       /* CRAWL__BL_* */
  int afresh;        /* a re-executed transition led elsewhere: explored as in a fresh crawl, nothing carried */
  int kept;          /* not reached tonight because a budget stopped the night: carried as last night's */
  int open;          /* actions last night's gate allowed there and nobody tried (end record's
                        openStates; -1: not known, a journal without it or a state never prepared) */
  int sub_open;      /* it or a state first reached through it has open work (baseline_read.c open_work) */
  cJSON *rec;        /* its state record (owned) */
} crawl__bl_state;

typedef struct crawl__bl_trans {
  char *id, *from, *to, *key;
  cJSON *rec;        /* the whole record (owned) */
  int reverify;      /* picked to be executed again tonight */
  int executed;      /* executed tonight: not carried */
} crawl__bl_trans;

typedef struct crawl__bl_review {
  const char *type;  /* "review", "decision" or "gate" */
  char *state, *key; /* where and on which action it was found ("" for a gate) */
  cJSON *rec;        /* the whole record (owned) */
  int carried;       /* journaled tonight already */
} crawl__bl_review;

typedef struct crawl__baseline {
  char run_id[64];
  char *dir;            /* PREV_DIR */
  char ***now_scopes;   /* per tonight's state: its scopes as pairs (crawl__bl_scopes), read when needed */
  int nnow_scopes;
  crawl__bl_state *st;
  int nst;
  crawl__bl_trans *tr;
  int ntr, captr;
  crawl__bl_review *rv; /* review records about an action (the write guard blocked what it sent, ...) */
  int nrv, caprv;
  crawl__strmap by_id;  /* stateId -> index in st */
  int reverify_pct;     /* 0..100 */
  int *of_now;          /* tonight's state index -> index in st, -1 (grown as states come) */
  int nof_now;
  long carried, reexecuted, mismatched, fresh, kept;
  long explored;        /* transitions executed tonight (set at the close) */
} crawl__baseline;

/* Caps on what a baseline may hold (it is untrusted input). */
#define CRAWL__BL_MAX_STATES 100000
#define CRAWL__BL_MAX_TRANSITIONS 2000000
#define CRAWL__BL_MAX_GRAPH (64u << 20) /* bytes of one state file */

/* ---- baseline_read.c ---- */
/* Read PREV_DIR (its journal.jsonl and the state files it names) into a new
 * baseline (*out, free with crawl__baseline_free). CRAWL_OK, or CRAWL_ARG
 * with one line in err: no journal, no run record first, a malformed line,
 * a state without id or fingerprint, a state file outside the directory,
 * missing or no PageGraph, too many records. reverify_pct: 0..100. */
crawl_code crawl__baseline_read(const char *dir, int reverify_pct, crawl__baseline **out, char *err, size_t errlen);
void crawl__baseline_free(crawl__baseline *b);
/* The index of last night's state id, or -1. */
int crawl__baseline_state(const crawl__baseline *b, const char *id);
/* A PageGraph's actionable elements (role, name, stableId, supportedActions
 * of every element with an action), sorted, as a 16-digit hex digest into
 * out (17 bytes). Equal digests: the same controls. */
void crawl__bl_elements_digest(const cJSON *graph, char out[17]);
/* The scopes of the PageGraph at path as pairs (scopeId, its identity:
 * the stable id, else kind and name), NULL-ended; an unreadable file has
 * none. Free with crawl__bl_scopes_free. */
char **crawl__bl_scopes(const char *path);
void crawl__bl_scopes_free(char **pairs);
/* The identity of scope id in pairs, or the id of identity (by 1), or NULL. */
const char *crawl__bl_scope_find(char *const *pairs, const char *s, int by);
/* 1 when transition tid of run run_id is in the re-executed share pct:
 * a hash, so the same baseline picks the same ones (reproducible). */
int crawl__bl_pick(const char *run_id, const char *tid, int pct);

#endif

/* workflow_int.h -- what the parts of the workflow finder
 * (crawler/package/workflow*.c) share and nothing outside this folder sees:
 * the journal records it keeps, the structures found in the state graphs
 * (forms, dialogs, app actions with their fields and commit control), the
 * transition graph it searches, and each part's entry points. The package
 * build calls pk_workflows (pkg_int.h).
 */
#ifndef UIAP_WORKFLOW_INT_H
#define UIAP_WORKFLOW_INT_H

#include "crawl_pkg.h"
#include "pkg_int.h"
#include "pol.h"
#include "crawl_journal.h"
#include "crawl_strmap.h"
#include "crawl_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define WF_MAX_STEPS_PATH 12 /* path steps before a skeleton is not worth proposing */
#define WF_EVIDENCE_MAX   10

/* ---- the journal records we need: the build's (crawl__jrec) ---------------------- */
typedef crawl__jrec wf_rec;  /* a transition or decision record */

/* ---- structures found in the state graphs ----------------------------------------- */
typedef struct wf_field {
  char *role, *name, *stable, *meaning, *input_type, *tag, *scope;
  int required, sensitive, editable;
} wf_field;

typedef struct wf_struct {
  char *key;                 /* dedupe key across states */
  char *kind;                /* "form", "dialog", "action" */
  char *state, *route;       /* where it was seen first by path length */
  char *scope;               /* catalog scope id, or NULL */
  char *scope_stable, *scope_name;
  wf_field *fields;
  size_t nfields;
  /* the commit control */
  char *c_role, *c_name, *c_stable, *c_app, *c_scope;
  int c_submit;
  int dist;                  /* path length from a seed; -1 none */
} wf_struct;

typedef struct wf_state {
  const cJSON *node;         /* transitionGraph.states[i] */
  const char *id, *route;
  int dist, prev_edge;       /* BFS */
  int *adj;                  /* edge indexes, sorted */
  size_t nadj;
} wf_state;

typedef struct wf {
  cJSON *pkg;
  const char *dir;
  wf_state *st;
  size_t nst;
  const cJSON **edges;
  size_t nedges;
  crawl__jarena jar;         /* parked states and edges read back, frozen */
  const wf_rec **recs;       /* the journal's transition and decision records (borrowed) */
  size_t nrecs;
  wf_struct *ss;
  size_t nss, capss;
  crawl__strmap st_index;    /* stateId -> index in st (the first of an id) */
  crawl__strmap ss_index;    /* structure key -> index in ss */
  crawl__strmap committed;   /* app actions a form or dialog commits */
} wf;

/* A review item a candidate raises. */
typedef struct wf_review { const char *kind; int severity; char *desc, *remedy; } wf_review;

static inline long wf_state_index(const wf *w, const char *id) { return crawl__strmap_get(&w->st_index, id); }

/* ---- workflow_struct.c ----------------------------------------------------- */
char *wf_slug(const char *s);

/* ---- workflow_draft.c: inputs from a form draft that ran (sandbox_write) ---- */
/* args.draft of the latest transition on s's commit control (a "valid"
 * one first), borrowed from the journal; NULL: none. */
const cJSON *wf_draft_of(const wf *w, const wf_struct *s);
/* The WorkflowParameter of a draft field, named name (a new object). */
cJSON *wf_draft_param(const cJSON *field, const char *name);
/* The action that fills it: ui.enterText, ui.toggle or ui.choose (static). */
const char *wf_draft_action(const cJSON *field);
const char *wf_category(const char *const *texts, size_t n);
void wf_struct_free(wf_struct *s);
void wf_structures(wf *w);

/* ---- workflow_candidate.c -------------------------------------------------- */
void wf_ev_add(cJSON *ev, const char *source, const char *ref, const char *note);
cJSON *wf_candidate(wf *w, const wf_struct *s, const char *id, wf_review *rv, size_t *nrv);

#endif

/* pkg_int.h -- what the parts of the package build (crawler/package/package*.c)
 * share and nothing outside this folder sees: the limits, the model (pk and
 * its catalogs of routes, scopes, elements, actions, records and review
 * items), the string set, the vocabularies and each part's entry points.
 * The public API is crawl_pkg.h.
 *
 * One build runs the parts in this order (package.c): the journal is
 * decoded once into typed records (crawl__jlog) and collected
 * (package_journal.c), every state folded (package_fold.c) and the records
 * pointing into it resolved (package_resolve.c), the records put in
 * canonical order, the catalogs aggregated (package_aggregate.c), the
 * review queue derived (package_review*.c), the endpoint catalog built from
 * the `requests` records (api*.c: api.json, and the network citations the
 * transitions and actions take from it), the package emitted as JSON up
 * to its review queue (package_out*.c, package.c), the model freed, the
 * workflow candidates found from the same records (workflow*.c), and last
 * the coverage counters, evidence index and metadata. package_kept.c keeps
 * a written package for the reports.
 */
#ifndef UIAP_PKG_INT_H
#define UIAP_PKG_INT_H

#include "crawl_pkg.h"
#include "pol.h"
#include "pg_url.h"
#include "crawl_journal.h"
#include "crawl_strmap.h"
#include "crawl_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PK_EVIDENCE_MAX 10                  /* refs of one kind per entry */
#define PK_NAMES_MAX    20                  /* names per catalog entry */
#define PK_LIST_NAMES   10                  /* names quoted in a review item */
#define PK_ID_NAME_MAX  48                  /* bytes of a name inside a scope id */

/* ---- memory and cJSON: crawl_util.h, plus what it lacks --------------------- */
#define PK_GROW(arr, n, cap)                                             \
  do {                                                                   \
    if ((n) == (cap)) {                                                  \
      (cap) = (cap) ? (cap) * 2 : 16;                                    \
      (arr) = crawl__xrealloc((arr), (cap) * sizeof *(arr));             \
    }                                                                    \
  } while (0)
static inline void pk_jnum(cJSON *o, const char *k, double v) { crawl__jset(o, k, cJSON_CreateNumber(v)); }

/* ---- the string set (package_strset.c) ---------------------------------------- */
/* ---- strset: unique strings in insertion order, with a hash index ---------- */
/* v holds pool strings (never freed by the set, never written to). Small
 * sets (most of them: an element's routes, names, ...) are searched
 * linearly; from STRSET_INDEX_MIN strings on, ix maps each string's
 * pointer to its position (+1; 0 is an empty slot). */
#define STRSET_INDEX_MIN 9
typedef struct strset {
  char **v;
  size_t n, cap;
  uint32_t *ix;
  size_t ixcap;        /* a power of two, or 0 */
} strset;

/* ---- vocabularies (package_vocab.c) --------------------------------------------- */
#define PK_COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define PK_IN(tab, s) (pk_index((tab), PK_COUNT(tab), (s)) >= 0)
extern const char *const pk_run_statuses[10];
extern const char *const pk_scope_kinds[14];
extern const char *const pk_review_kinds[11];
extern const char *const pk_severities[3];
extern const char *const pk_signal_kinds[11];
extern const char *const pk_state_keys[19];
extern const char *const pk_affordance_order[14];
extern const char *const pk_interactive_affordances[11];
extern const char *const pk_firing_actions[2];
extern const char *const pk_activating_actions[5];
typedef struct pk_side_effect { const char *name; int dangerous; } pk_side_effect;
extern const pk_side_effect pk_side_effects[13];
typedef struct pk_source { const char *sem; const char *evidence; } pk_source;
extern const pk_source pk_source_map[7];
#define PK_NSOURCES (sizeof pk_source_map / sizeof pk_source_map[0])
typedef struct pk_action_arg { const char *action, *name, *type; } pk_action_arg;
extern const pk_action_arg pk_action_args[3];
/* Risk levels, ordered. */
enum { RISK_NONE, RISK_SAFE, RISK_CONFIRM, RISK_BLOCKED };
extern const char *const pk_risk_names[4];
/* A severity's rank: 0 "low", 1 "medium", 2 "high"; -1 for NULL or any
 * other text. The one ranking in crawler/package (build, reports,
 * workflows, diff); a caller that treats an unknown one otherwise says so. */
int pk_severity_rank(const char *s);
/* A review item's id: "rev_" and 12 hex digits of the hash of key (what
 * the item is about, so the id survives reordering), and "_n" for n > 0
 * (the n-th item whose key hashes alike). Caller frees. */
char *pk_review_id(const char *key, int n);

/* ---- the model --------------------------------------------------------------- */
typedef struct pk_route {
  char *id;
  strset urls, titles, scopes, states, entry_actions, entry_tr, exit_signals;
  strset annot_states;  /* states whose graph names this routeId itself */
  strset router_states; /* states whose app router names it (routeSource "router") */
  strset opaque_origins;
  strset observed;      /* "p|q \x1f name \x1f value": RouteContext params and query seen */
  strset templates;     /* URL templates seen (routeId from data-uiap-route) */
  strset folded_into;   /* states its pages showed (folded: no state of its own) */
  strset landed_tr;     /* transitions that landed on it folded */
  int loaded;           /* states with a readable graph */
  int closed_shadow;    /* most closed shadow hosts in one state */
  int explored;         /* transitions from its states */
} pk_route;

typedef struct pk_scope {
  char *key, *id, *kind, *parent, *stable;
  int has_stable;
  strset routes, names, stable_ids, states;
  long occurrences;
} pk_scope;

typedef struct pk_element {
  char *key, *stable_id, *semkey, *role;
  strset routes, scopes, names, meanings, affordances, actions, app_actions, states;
  strset transitions, risk_tags, data_classes;
  char *src_state[PK_NSOURCES]; /* first state per evidence source */
  uint32_t state_keys;
  int inferred_only;            /* every occurrence was recognised by heuristics only */
  int risk_annot, risk_policy;
  char *risk_reason;            /* from the first gating decision */
  int acted, acted_ok;          /* transitions on it; of those not self-loops or with a signal */
  int failures;
  int interactive;
  long occurrences;
} pk_element;

typedef struct pk_action {
  char *id;
  int primitive, annotated, native;
  strset roles, patterns, routes, scopes, signals, transitions, classes, states;
  int executed, executed_signal, denied, reviewed, skipped, failed;
  int risk_annot;
  char *gate_reason;            /* "policy: reason (rule)" of the strictest gate (smallest text) */
  int gate_level;
} pk_action;

/* A journal record that targets an element, resolved against its state. */
typedef struct pk_ref {
  const cJSON *line;
  char *order;                  /* canonical sort key (see pk_refs_sort; NULL after it) */
  const char *type;             /* "transition", "decision", "failure" */
  long state;                   /* index into states, -1 unknown */
  long element;                 /* index into elements, -1 unresolved */
  char *scope;                  /* canonical scope id, or NULL */
  char *semkey;
  int ambiguous;                /* role+name matched several elements, no stableId */
  long same_name;               /* how many */
} pk_ref;

typedef struct pk_state {
  const cJSON *line;
  const char *id, *route, *fingerprint;
  int loaded;
  strset scope_local;              /* the graph's scopeIds ... */
  long *scope_idx;                 /* ... and their catalog scopes (parallel) */
  int reached;                     /* seed entry or transitions into it from elsewhere */
  int self_loops;
} pk_state;

typedef struct pk_item {
  int severity;
  const char *kind;
  char *key, *route, *scope, *stable, *desc, *remedy;
  strset ev_states, ev_transitions;
  long count;                     /* elements or hosts concerned (largest seen) */
  int deny;                       /* unsafe_action_candidate: some decision denied */
} pk_item;

typedef struct pk {
  const char *dir;
  char *err;
  size_t errlen;
  /* journal: decoded once (crawl__jlog_read); the model points into it */
  crawl__jlog log;
  size_t nlines;
  long malformed;
  int torn;
  const cJSON *run, *end, *last_status;
  char **note_v; size_t nnotes, capnotes; /* run.notes, in the order found */
  const cJSON **seed_lines; size_t nseed_lines, capseed_lines;
  const cJSON **reviews; size_t nreviews, capreviews;
  const cJSON *last_budget;
  /* model */
  strset state_ids; pk_state *states;
  strset route_ids; pk_route *routes;
  strset scope_keys; pk_scope *scopes; strset scope_ids;
  strset element_keys; pk_element *elements;
  strset action_ids; pk_action *actions;
  strset transition_ids;
  strset self_loop_ids;         /* transitions counted, not published (api.c) */
  pk_ref *refs; size_t nrefs, caprefs;
  strset item_keys; pk_item *items;
  long nfailures, nreplays, nself, ndecisions[4];
  long nallowed;                /* gate records: actions allowed, summed once per state */
  long nprobes;                 /* gate records: controls left to a sealed probe, once per state */
  strset gated_states;
  int opaque_regions;
  int park;                     /* the package is only written: see pk_park */
  const cJSON **req_recs; size_t nreq, capreq; /* `requests` records, file order (api.c) */
  struct pk_api *api;           /* the endpoint catalog (api.c), or NULL */
} pk;

#define PK_ENTRY(set, arr, key, added) pk_entry(&(set), (void **)&(arr), sizeof *(arr), (key), (added))

/* Confidence counts of the catalogs (coverage.confidenceSummary). */
typedef struct conf_sum { long high, medium, low; } conf_sum;

/* ---- package.c ------------------------------------------------------------- */
void pk_note(pk *b, const char *text);
/* Index of key in set; a new key gets a zeroed entry in the parallel array
 * *arr (element size sz), grown alongside the set (PK_ENTRY). */
long pk_entry(strset *set, void **arr, size_t sz, const char *key, int *added);
cJSON *pk_park(const pk *b, cJSON *section);

/* ---- package_strset.c ------------------------------------------------------ */
int pk_cmp_nat(const void *x, const void *y);
char *pk_norm(const char *s, int lower);
size_t pk_utf8_cut(const char *s, size_t max);
void pk_pool_release(void);
long pk_strset_find(const strset *s, const char *k);
long pk_strset_put(strset *s, const char *k, int *added);
void pk_strset_add(strset *s, const char *k);
void pk_strset_addall(strset *s, const strset *from);
void pk_strset_free(strset *s);
char **pk_strset_sorted(const strset *s, int (*cmp)(const void *, const void *));
cJSON *pk_strset_json(const strset *s, size_t max);
cJSON *pk_strset_json_objects(const strset *s);
const char *pk_strset_min(const strset *s);
void pk_keep_min(char **field, const char *v);
void pk_jset_list(cJSON *o, const char *k, const strset *s, size_t max);

/* ---- package_vocab.c ------------------------------------------------------- */
int pk_index(const char *const *tab, size_t n, const char *s);
int pk_se_rank(const char *s);
int pk_se_dangerous(const char *s);
int pk_is_primitive(const char *action);
int pk_risk_parse(const char *s);

/* ---- package_fold.c -------------------------------------------------------- */
long pk_route_of(pk *b, const char *route);
const char *pk_state_scope(pk *b, const pk_state *st, const char *local);
/* The catalog id of the scope with this kind, name and stable id on route
 * (as pk_fold_scopes keys it), NULL when no state holds one. */
const char *pk_scope_by_key(pk *b, const char *route, const char *kind, const char *name, const char *stable);
pk_scope *pk_scope_by_id(pk *b, const char *canon);
char *pk_semantic_key(const char *route, const pk_scope *sc, const char *role, const char *name);
void pk_fold_scopes(pk *b, pk_state *st, const cJSON *g, pk_route *rt);
pk_action *pk_action_get(pk *b, const char *id);
void pk_fold_element(pk *b, pk_state *st, const cJSON *e, strset *local_ids, long **local_el);
pk_item *pk_item_get(pk *b, const char *kind, const char *key, int severity, const char *route);
void pk_item_text(pk_item *it, char *desc, char *remedy);
void pk_item_set(char **field, const char *v);
void pk_fold_state_findings(pk *b, pk_state *st, pk_route *rt, const cJSON *g);

/* ---- package_failed.c ------------------------------------------------------ */
/* metadata.actionFailures: attempted, failed, the commonest reason and
 * whether most failed (the caller owns the object). */
cJSON *pk_failed_json(const pk *b);
/* The coverage_gap item of a run whose actions mostly failed. */
void pk_review_failed(pk *b);

/* ---- package_resolve.c ----------------------------------------------------- */
void pk_route_context_fold(pk_route *rt, const cJSON *route, const cJSON *meta, const pk_state *st);
void pk_fold_states(pk *b);

/* ---- package_journal.c ----------------------------------------------------- */
int pk_journal_read(pk *b);
void pk_refs_sort(pk *b, const long *rank);

/* ---- package_aggregate.c --------------------------------------------------- */
char *pk_canonical_target(const pk_ref *rf);
char *pk_canonical_signal(pk *b, const cJSON *s, const pk_state *to, const pk_state *from);
pk_state *pk_state_of(pk *b, const char *id);
void pk_aggregate(pk *b);

/* ---- package_review.c ------------------------------------------------------ */
void pk_review_journal(pk *b);
char *pk_quoted_list(const strset *names);
void pk_review_routes(pk *b);
void pk_review_inferred(pk *b);
void pk_review_records(pk *b);
void pk_review_actions(pk *b);

/* ---- package_review_seen.c ------------------------------------------------- */
int pk_seed_visited(const pk *b, int s);
void pk_review_derive(pk *b);
int pk_cmp_item(const void *x, const void *y);

/* ---- package_out.c --------------------------------------------------------- */
void pk_ev_push(cJSON *arr, const char *source, const char *ref, const char *note);
void pk_ev_push_set(cJSON *arr, const char *source, const strset *refs);
void pk_ev_state_files(cJSON *ev, const pk_state *st);
size_t pk_evidence_files(const pk *b, cJSON **v, size_t n);
cJSON *pk_out_routes(pk *b, conf_sum *cs);
cJSON *pk_out_scopes(pk *b, conf_sum *cs);
cJSON *pk_out_elements(pk *b, conf_sum *cs);
cJSON *pk_out_actions(pk *b, conf_sum *cs);

/* ---- package_out_graph.c --------------------------------------------------- */
cJSON *pk_out_graph(pk *b);
cJSON *pk_out_review(pk *b);
cJSON *pk_out_evidence(pk *b);
cJSON *pk_out_run(pk *b, char **stopped_by);
cJSON *pk_out_environment(pk *b);

/* ---- api.c, api_template.c, api_out.c: the endpoint catalog (docs/api.md) ---- */
typedef struct pk_api pk_api;
/* The endpoint catalog of b's `requests` records (b->req_recs), with the
 * citations of transitions and actions; needs the states collected (their
 * routes). Always returns one (empty when no record); pk_api_free frees. */
pk_api *pk_api_build(pk *b);
void pk_api_free(pk_api *a);
/* OUT/api.json's object (format B of docs/api.md): a new tree, caller frees. */
cJSON *pk_api_json(const pk_api *a, const pk *b);
/* Push the network evidence refs of transition id / action id into ev
 * ({"source":"network","refId":"ep_..","note":"GET /api/pets/{id} 200"}),
 * at most PK_EVIDENCE_MAX, in natural order. a may be NULL. */
void pk_api_cite_transition(const pk_api *a, const char *id, cJSON *ev);
void pk_api_cite_action(const pk_api *a, const char *id, cJSON *ev);
/* The endpoint template of path ("/api/pets/3") given the set of the
 * origin's id-templated paths (learned: api_template.c); *params gets the
 * parameter names (caller frees each and the array). Caller frees. */
typedef struct pk_tpl_learner pk_tpl_learner;
pk_tpl_learner *pk_tpl_learner_new(void);
void pk_tpl_learner_free(pk_tpl_learner *l);
void pk_tpl_note(pk_tpl_learner *l, const char *origin, const char *path);
void pk_tpl_learn(pk_tpl_learner *l);
char *pk_tpl_template(const pk_tpl_learner *l, const char *origin, const char *path, char ***params, size_t *nparams);
/* Write api.json (and access.json's "endpoints" when DIR/access.json is
 * there) for dir: package_out.c. 0 or errno. */
int pk_api_files_write(const char *dir, const cJSON *api, char *err, size_t errlen);
/* api.json's object of dir built from its journal, nothing written
 * (package.c); *api NULL when the journal has no `requests` record.
 * Errors as crawl_package_build. */
crawl_code pk_api_rebuild(const char *dir, cJSON **api, char *err, size_t errlen);

/* ---- a package kept for the reports (crawl_package, crawl_pkg.h) ---------------- */
struct crawl_package {
  char *dir;                    /* the crawl directory, or NULL (a package file) */
  crawl__jarena jar;            /* holds pkg */
  const cJSON *pkg;             /* frozen */
};
/* A new, empty one for dir (may be NULL). */
crawl_package *pk_kept_new(const char *dir);
/* text (len bytes, a package) parsed into k->pkg; NULL when not JSON. */
const cJSON *pk_kept_parse(crawl_package *k, const char *text, size_t len);
/* path: a crawl directory (its package.json) or a package file. CRAWL_IO
 * with err as crawl__json_load. */
crawl_code pk_kept_load(const char *path, crawl_package **pkg, char *err, size_t errlen);

/* ---- workflow.c ------------------------------------------------------------ */
/* Workflow candidates (discovery-mapper 6.7, 11.7) from the package's
 * transition graph, scopes and actions, the state files in dir and the
 * journal's transition and decision records (log, the build's): adds
 * package.workflowCandidates before reviewQueue, their review items
 * (workflow_uncertain, missing_success_signal) and the workflow seeds'
 * (resolved: a run note; not: a coverage_gap). Touches no coverage counter:
 * returns the number of candidates and, in *seeds_resolved, the workflow
 * seeds resolved, which the build counts when it emits coverage. */
int pk_workflows(cJSON *package, const char *dir, const crawl__jlog *log, int *seeds_resolved);

#endif

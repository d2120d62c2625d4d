/* package.c -- the DiscoveryPackage (discovery-mapper section 6), derived
 * from a crawl directory alone: DIR/journal.jsonl and the state files
 * (PageGraph JSON) its `state` lines name. No browser, no clock: the same
 * journal and states give the same package, byte for byte.
 *
 * The derivation, in one pass over the states in natural stateId order:
 *   - every scope and element of every state graph is folded into the scope
 *     and element catalogs under a canonical key (stableId, else a
 *     semanticKey built from route, scope stableId/kind, role and the
 *     normalised name -- core-decisions.md);
 *   - every journal record that targets an element (transition, decision,
 *     failure) is resolved against the graph of its state;
 * then the records are put in a canonical order (pk_refs_sort) and the
 * action catalog, transition graph, review queue and coverage are computed.
 * Every array is sorted (natural order of ids, or canonical JSON text), so
 * two crawls of the same app give the same catalogs up to run ids and times.
 *
 * Rules in brief (details at each section):
 *   ids        scope "scope:<stableId>" or "scope:<route>:<kind>:<name|->";
 *              semanticKey "<route>|<scope stableId|kind|->|<role>|<name>",
 *              name lower-cased, digit runs "#", blanks collapsed.
 *   confidence (7.3) annotation or repeated consistent use: high; one use or
 *              several semantic indicators: medium; heuristics only or no
 *              readable evidence: low.
 *   actions    ui.* and nav.* are primitive, any other id (data-uiap-action)
 *              domain; ui.activate/ui.submit on an element also exercise its
 *              app action. Domain: most severe side effect seen, "unsafe"
 *              once denied, else "candidate": "verified" only from a
 *              reviewer's decisions (DIR/reviewed.json, reviewed.c).
 *              Primitive: a side effect only when all uses agree.
 *   review     journal items as written, plus the items of sections 6.8,
 *              15.5 and 16 (see pk_review_derive); ids hash kind and key.
 */
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
static void pk_jnum(cJSON *o, const char *k, double v) { crawl__jset(o, k, cJSON_CreateNumber(v)); }

/* ---- strings ---------------------------------------------------------------- */
static int pk_cmp_nat(const void *x, const void *y) {
  return crawl__natcmp(*(const char *const *)x, *(const char *const *)y);
}
static int cmp_str(const void *x, const void *y) { return strcmp(*(const char *const *)x, *(const char *const *)y); }

/* Whitespace collapsed and trimmed, digit runs as "#", ASCII lower case when
 * `lower` (the name part of a semanticKey). NULL -> "". Caller frees. */
static char *pk_norm(const char *s, int lower) {
  size_t n = s ? strlen(s) : 0;
  char *o = crawl__xrealloc(NULL, n + 1), *w = o;
  int space = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == ' ' || (c >= '\t' && c <= '\r') || (c == 0xC2 && (unsigned char)s[i + 1] == 0xA0)) {
      if (c == 0xC2) i++;
      space = 1;
      continue;
    }
    if (space && w > o) *w++ = ' ';
    space = 0;
    if (c >= '0' && c <= '9') {
      while (i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9') i++;
      *w++ = '#';
      continue;
    }
    *w++ = lower && c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : (char)c;
  }
  *w = 0;
  return o;
}

/* At most max bytes, cut on a UTF-8 boundary. */
static size_t pk_utf8_cut(const char *s, size_t max) {
  size_t n = strlen(s);
  if (n <= max) return n;
  while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80) max--;
  return max;
}

/* ---- the build's strings, each kept once ------------------------------------- */
/* The sets of a build hold pointers into one pool: a state id that is in a
 * thousand elements' sets is stored once, and a set compares pointers. The
 * pool lives for one package_build (thread-local: the listen server builds
 * on its own threads); nothing of it outlives the build. */
static _Thread_local crawl__strmap pk_pool;

static char *pool_keep(const char *k) { return (char *)crawl__strmap_keep(&pk_pool, k); }
static void pk_pool_release(void) { crawl__strmap_release(&pk_pool); }

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

static size_t ptr_hash(const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (size_t)x;
}

static void strset_ix_insert(strset *s, size_t pos) {
  size_t mask = s->ixcap - 1, i = ptr_hash(s->v[pos]) & mask;
  while (s->ix[i]) i = (i + 1) & mask;
  s->ix[i] = (uint32_t)pos + 1;
}

static void strset_ix_build(strset *s, size_t cap) {
  free(s->ix);
  s->ix = crawl__xcalloc(cap, sizeof *s->ix);
  s->ixcap = cap;
  for (size_t k = 0; k < s->n; k++) strset_ix_insert(s, k);
}

/* Position of pool string p in s, or -1. */
static long strset_find_kept(const strset *s, const char *p) {
  if (!s->ix) {
    for (size_t j = 0; j < s->n; j++)
      if (s->v[j] == p) return (long)j;
    return -1;
  }
  size_t mask = s->ixcap - 1;
  for (size_t i = ptr_hash(p) & mask; s->ix[i]; i = (i + 1) & mask)
    if (s->v[s->ix[i] - 1] == p) return (long)s->ix[i] - 1;
  return -1;
}

static long pk_strset_find(const strset *s, const char *k) {
  const char *p = s->n ? crawl__strmap_key(&pk_pool, k) : NULL;
  return p ? strset_find_kept(s, p) : -1;
}

/* Index of k, added if new (*added = 1). NULL k is ignored (-1). */
static long pk_strset_put(strset *s, const char *k, int *added) {
  if (added) *added = 0;
  if (!k) return -1;
  char *p = pool_keep(k);
  long j = strset_find_kept(s, p);
  if (j >= 0) return j;
  if (s->n == s->cap) { /* from 2, not PK_GROW's 16: most sets (an element's routes, names, ...) hold one */
    s->cap = s->cap ? s->cap * 2 : 2;
    s->v = crawl__xrealloc(s->v, s->cap * sizeof *s->v);
  }
  s->v[s->n++] = p;
  if (added) *added = 1;
  if (s->ix && s->n * 4 > s->ixcap * 3) strset_ix_build(s, s->ixcap * 2);
  else if (s->ix) strset_ix_insert(s, s->n - 1);
  else if (s->n >= STRSET_INDEX_MIN) strset_ix_build(s, 32);
  return (long)s->n - 1;
}
static void pk_strset_add(strset *s, const char *k) { (void)pk_strset_put(s, k, NULL); }
static void pk_strset_addall(strset *s, const strset *from) {
  for (size_t i = 0; i < from->n; i++) pk_strset_add(s, from->v[i]);
}
static void pk_strset_free(strset *s) {
  free(s->v);
  free(s->ix);
  memset(s, 0, sizeof *s);
}
/* A sorted copy of the pointers (caller frees the array only). */
static char **pk_strset_sorted(const strset *s, int (*cmp)(const void *, const void *)) {
  char **v = crawl__xcalloc(s->n, sizeof *v);
  if (s->n) memcpy(v, s->v, s->n * sizeof *v);
  qsort(v, s->n, sizeof *v, cmp);
  return v;
}
/* JSON array of the strings in natural order, at most max (0: all). */
static cJSON *pk_strset_json(const strset *s, size_t max) {
  cJSON *a = crawl__jx(cJSON_CreateArray());
  char **v = pk_strset_sorted(s, pk_cmp_nat);
  for (size_t i = 0; i < s->n && (!max || i < max); i++) crawl__jpush(a, cJSON_CreateString(v[i]));
  free(v);
  return a;
}
/* JSON array parsed back from a set of canonical JSON texts, in text order. */
static cJSON *pk_strset_json_objects(const strset *s) {
  cJSON *a = crawl__jx(cJSON_CreateArray());
  char **v = pk_strset_sorted(s, cmp_str);
  for (size_t i = 0; i < s->n; i++) crawl__jpush(a, cJSON_Parse(v[i]));
  free(v);
  return a;
}
/* The smallest string in natural order, NULL for an empty set. Where one
 * value must stand for many, the smallest does: it does not depend on the
 * order the crawl met things in, nor on state ids. */
static const char *pk_strset_min(const strset *s) {
  const char *m = NULL;
  for (size_t i = 0; i < s->n; i++)
    if (!m || crawl__natcmp(s->v[i], m) < 0) m = s->v[i];
  return m;
}
/* *field = the smaller of *field and v (a copy). */
static void pk_keep_min(char **field, const char *v) {
  if (!v || (*field && crawl__natcmp(*field, v) <= 0)) return;
  free(*field);
  *field = crawl__xstrdup(v);
}

static void pk_jset_list(cJSON *o, const char *k, const strset *s, size_t max) {
  if (s->n) crawl__jset(o, k, pk_strset_json(s, max));
}

/* ---- fixed vocabularies (tables, not switch ladders) ------------------------ */
static const char *const pk_run_statuses[] = {
  "planning", "preparing", "seeding", "exploring", "extracting", "synthesizing",
  "reviewing", "completed", "failed", "cancelled"};
static const char *const pk_scope_kinds[] = {
  "route", "region", "form", "dialog", "drawer", "popover", "menu", "toolbar", "tabset",
  "tabpanel", "collection", "rowgroup", "iframe-root", "custom"};
static const char *const pk_review_kinds[] = {
  "missing_stable_id", "duplicate_name", "ambiguous_target", "opaque_frame", "closed_shadow",
  "missing_success_signal", "unsafe_action_candidate", "inferred_only", "coverage_gap",
  "workflow_uncertain", "custom"};
static const char *const pk_severities[] = {"low", "medium", "high"};
static const char *const pk_signal_kinds[] = {
  "route.changed", "toast.contains", "dialog.opened", "dialog.closed", "validation.changed",
  "status.changed", "element.appeared", "element.disappeared", "collection.count_changed",
  "submission.finished", "custom"};
/* UIStateKey in UIState order. */
static const char *const pk_state_keys[] = {
  "visible", "enabled", "focused", "focusable", "editable", "readonly", "required", "invalid",
  "checked", "selected", "expanded", "pressed", "open", "busy", "modal", "multiselectable",
  "valueMin", "valueMax", "valueNow"};
static const char *const pk_affordance_order[] = {
  "read", "focus", "edit", "activate", "invoke", "toggle", "select", "choose", "expand",
  "collapse", "navigate", "scroll", "submit", "dismiss"};
/* Affordances that make an element interactive (missing_stable_id). */
static const char *const pk_interactive_affordances[] = {
  "edit", "activate", "invoke", "toggle", "select", "choose", "expand", "collapse",
  "navigate", "submit", "dismiss"};
/* Primitive actions that fire an element's app action (data-uiap-action). */
static const char *const pk_firing_actions[] = {"ui.activate", "ui.submit"};
/* Primitive actions that activate (for inferred_only severity). */
static const char *const pk_activating_actions[] = {"ui.activate", "ui.toggle", "ui.submit", "ui.choose", "nav.navigate"};

/* SideEffectClass by severity, for "the most severe class seen". unknown
 * ranks above write: it is never executed autonomously. */
static const struct { const char *name; int dangerous; } pk_side_effects[] = {
  {"none", 0}, {"read", 0}, {"navigation", 0}, {"local_ui", 0}, {"draft", 0},
  {"reversible_write", 0}, {"write", 0}, {"unknown", 0}, {"external_effect", 1},
  {"destructive", 1}, {"billing_change", 1}, {"security_change", 1}, {"irreversible", 1}};

/* PageGraph semantics.sources -> EvidenceSource. */
static const struct { const char *sem; const char *evidence; } pk_source_map[] = {
  {"agent-annotation", "annotation"}, {"app-registry", "app_registry"}, {"aria", "accessibility"},
  {"native-html", "dom"}, {"label-association", "dom"}, {"visible-text", "visible_text"},
  {"inferred", "inferred"}};
#define PK_NSOURCES (sizeof pk_source_map / sizeof pk_source_map[0])

/* Primitive action arguments (ActionArgDescriptor). */
static const struct { const char *action, *name, *type; } pk_action_args[] = {
  {"ui.enterText", "text", "string"}, {"ui.choose", "option", "string"}, {"nav.navigate", "url", "string"}};

#define PK_COUNT(a) (sizeof(a) / sizeof((a)[0]))
static int pk_index(const char *const *tab, size_t n, const char *s) {
  if (!s) return -1;
  for (size_t i = 0; i < n; i++)
    if (!strcmp(tab[i], s)) return (int)i;
  return -1;
}
#define PK_IN(tab, s) (pk_index((tab), PK_COUNT(tab), (s)) >= 0)
static int pk_se_rank(const char *s) {
  for (size_t i = 0; s && i < PK_COUNT(pk_side_effects); i++)
    if (!strcmp(pk_side_effects[i].name, s)) return (int)i;
  return -1;
}
static int pk_se_dangerous(const char *s) {
  int r = pk_se_rank(s);
  return r >= 0 && pk_side_effects[r].dangerous;
}
static int pk_is_primitive(const char *action) { return !strncmp(action, "ui.", 3) || !strncmp(action, "nav.", 4); }

/* Risk levels, ordered. */
enum { RISK_NONE, RISK_SAFE, RISK_CONFIRM, RISK_BLOCKED };
static const char *const pk_risk_names[] = {NULL, "safe", "confirm", "blocked"};
static int pk_risk_parse(const char *s) {
  int i = s ? pk_index(pk_risk_names + 1, 3, s) : -1;
  return i < 0 ? RISK_NONE : i + 1;
}

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
  /* journal: frozen copies of its records (crawl__jfreeze), read-only */
  crawl__jarena jar;
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
  pk_ref *refs; size_t nrefs, caprefs;
  strset item_keys; pk_item *items;
  long nfailures, nreplays, nself, ndecisions[4];
  long nallowed;                /* gate records: actions allowed, summed once per state */
  strset gated_states;
  int opaque_regions;
  int park;                     /* the package is only written: see pk_park */
} pk;

static void pk_note(pk *b, const char *text) {
  PK_GROW(b->note_v, b->nnotes, b->capnotes);
  b->note_v[b->nnotes++] = crawl__xstrdup(text);
}

/* Index of key in set; a new key gets a zeroed entry in the parallel array
 * *arr (element size sz), grown alongside the set. */
static long pk_entry(strset *set, void **arr, size_t sz, const char *key, int *added) {
  size_t n0 = set->n;
  long i = pk_strset_put(set, key, added);
  if (set->n != n0) {
    *arr = crawl__xrealloc(*arr, set->cap * sz);
    memset((char *)*arr + (size_t)i * sz, 0, sz);
  }
  return i;
}
#define PK_ENTRY(set, arr, key, added) pk_entry(&(set), (void **)&(arr), sizeof *(arr), (key), (added))

/* ---- states: fold one graph into the catalogs --------------------------------- */
static long pk_route_of(pk *b, const char *route) {
  int added;
  long r = PK_ENTRY(b->route_ids, b->routes, route, &added);
  if (added) b->routes[r].id = b->route_ids.v[r];
  return r;
}

static char *scope_canonical_id(pk *b, const char *route, const char *kind, const char *stable,
                                const char *name) {
  char *id;
  if (stable) id = crawl__xprintf("scope:%s", stable);
  else {
    char *nn = pk_norm(name, 1);
    size_t cut = pk_utf8_cut(nn, PK_ID_NAME_MAX);
    if (!*nn) id = crawl__xprintf("scope:%s:%s:-", route, kind);
    else if (cut < strlen(nn)) id = crawl__xprintf("scope:%s:%s:%.*s~%08x", route, kind, (int)cut, nn, (unsigned)crawl__hash(nn));
    else id = crawl__xprintf("scope:%s:%s:%s", route, kind, nn);
    free(nn);
  }
  /* ids are unique even when a stableId looks like a route:kind:name triple */
  int added;
  pk_strset_put(&b->scope_ids, id, &added);
  for (int k = 2; !added; k++) {
    char *alt = crawl__xprintf("%s~%d", id, k);
    pk_strset_put(&b->scope_ids, alt, &added);
    free(id);
    id = alt;
  }
  return id;
}

/* The catalog scope of a scopeId of state st's graph, or NULL. Catalog
 * scopes are created in step with b->scope_ids, so indexes agree. */
static pk_scope *state_scope_of(pk *b, const pk_state *st, const char *local) {
  long i = st && local ? pk_strset_find(&st->scope_local, local) : -1;
  return i >= 0 ? &b->scopes[st->scope_idx[i]] : NULL;
}
static const char *pk_state_scope(pk *b, const pk_state *st, const char *local) {
  pk_scope *sc = state_scope_of(b, st, local);
  return sc ? sc->id : NULL;
}
static pk_scope *pk_scope_by_id(pk *b, const char *canon) {
  long i = canon ? pk_strset_find(&b->scope_ids, canon) : -1;
  return i >= 0 ? &b->scopes[i] : NULL;
}

static char *pk_semantic_key(const char *route, const pk_scope *sc, const char *role, const char *name) {
  char *nn = pk_norm(name, 1);
  const char *sp = !sc ? "-" : sc->stable ? sc->stable : sc->kind;
  char *k = crawl__xprintf("%s|%s|%s|%s", route, sp, role, nn);
  free(nn);
  return k;
}

static void pk_fold_scopes(pk *b, pk_state *st, const cJSON *g, pk_route *rt) {
  const cJSON *scopes = crawl__get(g, "scopes"), *s;
  cJSON_ArrayForEach(s, scopes) {
    const char *lid = crawl__str(s, "scopeId"), *kind = crawl__str(s, "kind");
    const char *stable = crawl__str(s, "stableId"), *name = crawl__str(s, "name");
    if (!PK_IN(pk_scope_kinds, kind)) kind = "custom";
    char *nn = pk_norm(name, 1);
    char *key = stable ? crawl__xprintf("id\x1f%s", stable) : crawl__xprintf("k\x1f%s\x1f%s\x1f%s", st->route, kind, nn);
    free(nn);
    int added;
    long x = PK_ENTRY(b->scope_keys, b->scopes, key, &added);
    pk_scope *sc = &b->scopes[x];
    if (added) {
      sc->key = b->scope_keys.v[x];
      sc->kind = crawl__xstrdup(kind);
      sc->has_stable = stable != NULL;
      sc->stable = crawl__xstrdup(stable);
      sc->id = scope_canonical_id(b, st->route, kind, stable, name);
    }
    free(key);
    sc->occurrences++;
    pk_strset_add(&sc->routes, st->route);
    if (name && *name) pk_strset_add(&sc->names, name);
    pk_strset_add(&sc->stable_ids, stable);
    pk_strset_add(&sc->states, st->id);
    pk_strset_add(&rt->scopes, sc->id);
    if (lid) {
      long li = PK_ENTRY(st->scope_local, st->scope_idx, lid, &added);
      if (added) st->scope_idx[li] = x;
    }
  }
  /* parents: a scope seen under several (a form in one of many row
   * dialogs) keeps the smallest */
  cJSON_ArrayForEach(s, scopes) {
    pk_scope *sc = state_scope_of(b, st, crawl__str(s, "scopeId"));
    const char *parent = pk_state_scope(b, st, crawl__str(s, "parentScopeId"));
    if (sc && parent && strcmp(parent, sc->id)) pk_keep_min(&sc->parent, parent);
  }
}

/* DataClass of an editable or sensitive field. The policy module knows the
 * input types, autocomplete tokens and data-uiap-sensitive; a
 * data-uiap-meaning is read like an autocomplete token ("email", "name",
 * "cc-number"). A text field with no other class holds free_text. */
static void element_data_classes(pk_element *el, const cJSON *e) {
  const cJSON *sem = crawl__get(e, "semantics"), *md = crawl__get(e, "metadata");
  const cJSON *an = crawl__get(crawl__get(e, "targetHints"), "annotations");
  const char *itype = crawl__str(sem, "inputType"), *tag = crawl__str(sem, "tagName");
  int sensitive = cJSON_IsTrue(crawl__get(md, "sensitive"));
  int editable = 0;
  const cJSON *a;
  cJSON_ArrayForEach(a, crawl__get(e, "affordances")) if (cJSON_IsString(a) && !strcmp(a->valuestring, "edit")) editable = 1;
  if (!editable && !sensitive) return;
  pol_subject s = {.role = crawl__str(e, "role"), .tag = tag, .input_type = itype,
                   .sensitive = sensitive ? "true" : NULL};
  pol_data_class dc = pol_subject_data_class(&s);
  if (dc == POL_DC_NONE && crawl__str(an, "meaning")) {
    pol_subject m = {.autocomplete = crawl__str(an, "meaning")};
    dc = pol_subject_data_class(&m);
  }
  if (dc == POL_DC_NONE && editable &&
      (!itype || !strcmp(itype, "text") || !strcmp(itype, "search") || (tag && !strcasecmp(tag, "textarea"))))
    dc = POL_DC_FREE_TEXT;
  if (dc != POL_DC_NONE) pk_strset_add(&el->data_classes, pol_data_class_name(dc));
}

/* Transient indicators (spinners, clocks, marquees) come and go on their own:
 * like the state fingerprints, the catalog leaves them out unless annotated. */
static const char *const transient_roles[] = {"progressbar", "timer", "marquee"};

/* The catalog action id, created on first sight. */
static pk_action *pk_action_get(pk *b, const char *id) {
  int added;
  long ai = PK_ENTRY(b->action_ids, b->actions, id, &added);
  pk_action *ac = &b->actions[ai];
  if (added) {
    ac->id = b->action_ids.v[ai];
    ac->primitive = pk_is_primitive(id);
  }
  return ac;
}

/* The catalog element of graph element e (role already defaulted), created
 * on first sight; its identity, where it was seen and its smallest
 * semanticKey updated. *index gets its index in b->elements. */
static pk_element *element_entry(pk *b, const pk_state *st, const cJSON *e, const char *role, const pk_scope *sc,
                                 long *index) {
  const char *stable = crawl__str(e, "stableId"), *name = crawl__str(e, "name");
  char *semkey = pk_semantic_key(st->route, sc, role, name);
  char *key = stable ? crawl__xprintf("id\x1f%s", stable) : crawl__xprintf("sk\x1f%s", semkey);
  int added;
  long x = PK_ENTRY(b->element_keys, b->elements, key, &added);
  free(key);
  pk_element *el = &b->elements[x];
  if (added) {
    el->key = b->element_keys.v[x];
    el->stable_id = crawl__xstrdup(stable);
    el->role = crawl__xstrdup(role);
    el->inferred_only = 1;
  }
  /* a stableId element keeps the smallest semanticKey it was seen under */
  if (!el->semkey || crawl__natcmp(semkey, el->semkey) < 0) {
    free(el->semkey);
    el->semkey = semkey;
  } else free(semkey);
  el->occurrences++;
  pk_strset_add(&el->routes, st->route);
  pk_strset_add(&el->scopes, sc ? sc->id : NULL);
  if (name && *name) pk_strset_add(&el->names, name);
  pk_strset_add(&el->states, st->id);
  *index = x;
  return el;
}

/* Evidence sources of e (first state per source) and whether it stays
 * inferred-only. Returns 1 when e has native or semantic evidence, i.e.
 * is not a heuristics-only match. */
static int element_sources(pk_element *el, const cJSON *e, const char *state_id) {
  const cJSON *x;
  int heuristic = 0, semantic = 0;
  cJSON_ArrayForEach(x, crawl__get(crawl__get(e, "semantics"), "sources")) {
    if (!cJSON_IsString(x)) continue;
    for (size_t k = 0; k < PK_NSOURCES; k++)
      if (!strcmp(pk_source_map[k].sem, x->valuestring) && !el->src_state[k]) el->src_state[k] = crawl__xstrdup(state_id);
    if (!strcmp(x->valuestring, "inferred")) heuristic = 1;
    else if (strcmp(x->valuestring, "native-html")) semantic = 1; /* a generic tag says nothing */
  }
  /* inferred-only: recognised by heuristics, with no ARIA, label, text,
   * annotation or registry evidence (native-html of a generic <div> is none) */
  if (!(heuristic && !semantic)) el->inferred_only = 0;
  return !heuristic || semantic;
}

/* What e can do: its meaning, UI state keys, affordances, supported and app
 * actions, annotated risk and data classes. Returns e's annotated risk. */
static int element_traits(pk_element *el, const cJSON *e) {
  const cJSON *an = crawl__get(crawl__get(e, "targetHints"), "annotations"), *x;
  pk_strset_add(&el->meanings, crawl__str(an, "meaning"));
  cJSON_ArrayForEach(x, crawl__get(e, "state")) {
    int k = pk_index(pk_state_keys, PK_COUNT(pk_state_keys), x->string);
    if (k >= 0) el->state_keys |= 1u << k;
  }
  cJSON_ArrayForEach(x, crawl__get(e, "affordances")) {
    if (!cJSON_IsString(x)) continue;
    pk_strset_add(&el->affordances, x->valuestring);
    if (PK_IN(pk_interactive_affordances, x->valuestring)) el->interactive = 1;
  }
  pk_strset_add(&el->app_actions, crawl__str(an, "defaultAction"));
  cJSON_ArrayForEach(x, crawl__get(e, "supportedActions")) {
    if (!cJSON_IsString(x)) continue;
    pk_strset_add(&el->actions, x->valuestring);
    if (!pk_is_primitive(x->valuestring)) pk_strset_add(&el->app_actions, x->valuestring);
  }
  int r = pk_risk_parse(crawl__str(crawl__get(e, "risk"), "level"));
  if (r > el->risk_annot) el->risk_annot = r;
  element_data_classes(el, e);
  return r;
}

/* A domain action's target pattern for element e (canonical JSON, caller frees). */
static char *element_pattern(const cJSON *e, const char *role, const char *scope) {
  cJSON *p = crawl__jx(cJSON_CreateObject());
  crawl__jstr(p, "role", role);
  crawl__jstr(p, "stableId", crawl__str(e, "stableId"));
  crawl__jstr(p, "meaning", crawl__str(crawl__get(crawl__get(e, "targetHints"), "annotations"), "meaning"));
  crawl__jstr(p, "scopeId", scope);
  char *t = crawl__jtext(p, 0);
  cJSON_Delete(p);
  return t;
}

/* The actions element el (graph element e) offers, into the action catalog. */
static void element_offer_actions(pk *b, const pk_state *st, const pk_element *el, const cJSON *e, const char *role,
                                  const char *scope, int native, int risk) {
  strset offered = {0};
  const cJSON *x;
  pk_strset_addall(&offered, &el->app_actions); /* cheap: usually 0 or 1 */
  cJSON_ArrayForEach(x, crawl__get(e, "supportedActions")) if (cJSON_IsString(x)) pk_strset_add(&offered, x->valuestring);
  for (size_t k = 0; k < offered.n; k++) {
    pk_action *ac = pk_action_get(b, offered.v[k]);
    pk_strset_add(&ac->roles, role);
    pk_strset_add(&ac->routes, st->route);
    pk_strset_add(&ac->states, st->id);
    if (native) ac->native = 1;
    if (ac->primitive) continue;
    ac->annotated = 1; /* app action ids come from data-uiap-action */
    pk_strset_add(&ac->scopes, scope);
    if (risk > ac->risk_annot) ac->risk_annot = risk;
    char *t = element_pattern(e, role, scope);
    pk_strset_add(&ac->patterns, t);
    free(t);
  }
  pk_strset_free(&offered);
}

/* Fold graph element e of state st into the element and action catalogs;
 * its instanceId -> catalog index goes into local_ids / *local_el. */
static void pk_fold_element(pk *b, pk_state *st, const cJSON *e, strset *local_ids, long **local_el) {
  const char *iid = crawl__str(e, "instanceId"), *role = crawl__str(e, "role");
  if (!role) role = "generic";
  for (size_t t = 0; !crawl__str(e, "stableId") && t < PK_COUNT(transient_roles); t++)
    if (!strcmp(role, transient_roles[t])) return;
  pk_scope *sc = state_scope_of(b, st, crawl__str(e, "scopeId"));
  long x;
  pk_element *el = element_entry(b, st, e, role, sc, &x);
  int native = element_sources(el, e, st->id);
  int risk = element_traits(el, e);
  element_offer_actions(b, st, el, e, role, sc ? sc->id : NULL, native, risk);
  if (iid) {
    int added;
    long li = PK_ENTRY(*local_ids, *local_el, iid, &added);
    if (added) (*local_el)[li] = x;
  }
}

/* ---- review items ------------------------------------------------------------- */
static pk_item *pk_item_get(pk *b, const char *kind, const char *key, int severity, const char *route) {
  char *k = crawl__xprintf("%s\x1f%s", kind, key);
  int added;
  long i = PK_ENTRY(b->item_keys, b->items, k, &added);
  free(k);
  pk_item *it = &b->items[i];
  if (added) {
    it->key = b->item_keys.v[i];
    it->kind = kind;
    it->severity = severity;
  }
  pk_keep_min(&it->route, route);
  if (severity > it->severity) it->severity = severity;
  return it;
}
/* Several findings merged into one item: the smallest description (and its
 * remediation) stands for them. Takes ownership of desc and remedy. */
static void pk_item_text(pk_item *it, char *desc, char *remedy) {
  if (desc && (!it->desc || crawl__natcmp(desc, it->desc) < 0)) {
    free(it->desc);
    free(it->remedy);
    it->desc = desc;
    it->remedy = remedy;
    return;
  }
  free(desc);
  free(remedy);
}
static void pk_item_set(char **field, const char *v) { pk_keep_min(field, v); }

/* opaque_frame: one item per origin per route. */
static void findings_opaque_frames(pk *b, pk_state *st, pk_route *rt, const cJSON *g) {
  const cJSON *d;
  cJSON_ArrayForEach(d, crawl__get(g, "documents")) {
    const char *acc = crawl__str(d, "access");
    if (!acc || strcmp(acc, "opaque")) continue;
    const char *origin = crawl__str(d, "origin");
    char buf[512] = "";
    if (!origin && crawl__str(d, "url") && pg_url_origin(crawl__str(d, "url"), buf, sizeof buf) > 0)
      origin = buf; /* scheme://host[:port] of the url (pg_url.h) */
    if (!origin) origin = "an unknown origin";
    pk_strset_add(&rt->opaque_origins, origin);
    char *key = crawl__xprintf("%s\x1f%s", st->route, origin);
    pk_item *it = pk_item_get(b, "opaque_frame", key, 1, st->route);
    free(key);
    pk_strset_add(&it->ev_states, st->id);
    pk_item_text(it, crawl__xprintf("A cross-origin frame from %s on route %s is opaque: its content was not explored.", origin, st->route),
                 crawl__xprintf("If the frame belongs to the app, publish it through a UIAP bridge (--bridge-origin %s, or "
                                "<meta name=\"uiap-bridge\"> in the frame); otherwise review its content manually.", origin));
  }
}

/* closed_shadow: one item per route (its text comes in route_closed_shadow). */
static void findings_closed_shadow(pk *b, pk_state *st, pk_route *rt, const cJSON *g) {
  const cJSON *csh = crawl__get(crawl__get(g, "metadata"), "closedShadowHosts");
  if (!cJSON_IsNumber(csh) || csh->valuedouble <= 0) return;
  int n = csh->valuedouble > 1e6 ? 1000000 : (int)csh->valuedouble;
  if (n > rt->closed_shadow) rt->closed_shadow = n;
  pk_item *it = pk_item_get(b, "closed_shadow", st->route, 1, st->route);
  pk_strset_add(&it->ev_states, st->id);
  if (n > it->count) it->count = n;
}

/* duplicate_name: several elements of one scope share role and name
 * without a stableId. groups holds "scope\x1frole\x1fname" keys (split in
 * a copy: pool strings are shared), count how often each. */
static void findings_duplicate_names(pk *b, pk_state *st, strset *groups, const long *count) {
  for (size_t i = 0; i < groups->n; i++) {
    if (count[i] < 2) continue;
    char *lscope = crawl__xstrdup(groups->v[i]), *role = strchr(lscope, '\x1f') + 1, *name = strchr(role, '\x1f') + 1;
    role[-1] = 0;
    name[-1] = 0;
    const char *scope = pk_state_scope(b, st, lscope);
    char *nn = pk_norm(name, 1);
    char *key = crawl__xprintf("%s\x1f%s\x1f%s\x1f%s", st->route, scope ? scope : "-", role, nn);
    free(nn);
    pk_item *it = pk_item_get(b, "duplicate_name", key, 1, st->route);
    free(key);
    pk_item_set(&it->scope, scope);
    pk_strset_add(&it->ev_states, st->id);
    if (count[i] > it->count) it->count = count[i];
    pk_item_text(it, crawl__xprintf("%s contains several %s elements named \"%s\" without a data-uiap-id, so a name-based locator is ambiguous.",
                                    scope ? scope : "A scope", role, name),
                 crawl__xprintf("Give each %s a distinct accessible name (e.g. an aria-label naming its row or subject) or a data-uiap-id.", role));
    free(lscope);
  }
}

/* ambiguous_target: a stableId carried by several elements of one state. */
static void findings_shared_stable_ids(pk *b, pk_state *st, const strset *stables, const long *count) {
  for (size_t i = 0; i < stables->n; i++) {
    if (count[i] < 2) continue;
    char *key = crawl__xprintf("stable\x1f%s", stables->v[i]);
    pk_item *it = pk_item_get(b, "ambiguous_target", key, 1, st->route);
    free(key);
    pk_item_set(&it->stable, stables->v[i]);
    pk_strset_add(&it->ev_states, st->id);
    if (count[i] > it->count) it->count = count[i];
    pk_item_text(it, crawl__xprintf("The data-uiap-id \"%s\" is carried by several elements of one state, so it does not identify a target.", stables->v[i]),
                 crawl__xstrdup("Make every data-uiap-id unique within a page (add the row or item key to repeated controls)."));
  }
}

/* Duplicate names in one scope, and stableIds used twice. */
static void findings_duplicates(pk *b, pk_state *st, const cJSON *g) {
  strset groups = {0}, stables = {0};
  long *gcount = NULL, *scount = NULL;
  const cJSON *e;
  cJSON_ArrayForEach(e, crawl__get(g, "elements")) {
    const char *stable = crawl__str(e, "stableId"), *name = crawl__str(e, "name"), *role = crawl__str(e, "role");
    if (stable) {
      long i = PK_ENTRY(stables, scount, stable, NULL); /* may move scount */
      scount[i]++;
      continue;
    }
    if (!name || !*name || !role) continue;
    char *k = crawl__xprintf("%s\x1f%s\x1f%s", crawl__str(e, "scopeId") ? crawl__str(e, "scopeId") : "", role, name);
    long i = PK_ENTRY(groups, gcount, k, NULL);
    gcount[i]++;
    free(k);
  }
  findings_duplicate_names(b, st, &groups, gcount);
  findings_shared_stable_ids(b, st, &stables, scount);
  pk_strset_free(&groups);
  pk_strset_free(&stables);
  free(gcount);
  free(scount);
}

/* The review findings one state graph shows by itself. */
static void pk_fold_state_findings(pk *b, pk_state *st, pk_route *rt, const cJSON *g) {
  findings_opaque_frames(b, st, rt, g);
  findings_closed_shadow(b, st, rt, g);
  findings_duplicates(b, st, g);
}

/* ---- resolving journal targets --------------------------------------------------- */
/* How many elements of a state share each role + name ("role\x1fname"):
 * counted once per state, not once per record (a 100,000-element page has
 * tens of thousands of decision records). */
typedef struct { strset keys; long *count; } rn_count;
static char *rn_key(const char *role, const char *name) { return crawl__xprintf("%s\x1f%s", role, name ? name : ""); }
static void rn_count_build(rn_count *rc, const cJSON *g) {
  const cJSON *e;
  cJSON_ArrayForEach(e, crawl__get(g, "elements")) {
    const char *r = crawl__str(e, "role");
    if (!r) continue;
    char *k = rn_key(r, crawl__str(e, "name"));
    int added;
    long j = pk_strset_put(&rc->keys, k, &added);
    free(k);
    if (added) {
      rc->count = crawl__xrealloc(rc->count, rc->keys.n * sizeof *rc->count);
      rc->count[j] = 0;
    }
    rc->count[j]++;
  }
}

/* Where a target sits in a state's graph, indexed once per state (a state
 * of 50,000 controls has as many decisions): per scope, role and name how
 * many elements there are ("sc\x1frole\x1fname"), and the scope of the
 * first element that is the k-th of its role and name in its scope
 * ("role\x1fname\x1fk" -> index into sc). Keys and scopes borrow from g. */
typedef struct scope_index {
  crawl__strmap count, kth;
  const char **sc;
  size_t n;
} scope_index;

static void scope_index_build(scope_index *x, const cJSON *g) {
  const cJSON *e;
  cJSON_ArrayForEach(e, crawl__get(g, "elements")) {
    const char *r = crawl__str(e, "role"), *n = crawl__str(e, "name"), *sc = crawl__str(e, "scopeId");
    if (!r || !sc) continue;
    char *k1 = crawl__xprintf("%s\x1f%s\x1f%s", sc, r, n ? n : "");
    long k = crawl__strmap_get(&x->count, k1);
    k = k < 0 ? 0 : k;
    crawl__strmap_put(&x->count, k1, k + 1);
    free(k1);
    char *k2 = crawl__xprintf("%s\x1f%s\x1f%ld", r, n ? n : "", k);
    int added;
    crawl__strmap_intern(&x->kth, k2, (long)x->n, &added);
    free(k2);
    if (!added) continue;
    x->sc = crawl__xrealloc(x->sc, (x->n + 1) * sizeof *x->sc);
    x->sc[x->n++] = sc;
  }
}

static void scope_index_free(scope_index *x) {
  crawl__strmap_release(&x->count);
  crawl__strmap_release(&x->kth);
  free(x->sc);
  memset(x, 0, sizeof *x);
}

/* g has an element with role and name in its scope sc. */
static int scope_holds(const scope_index *x, const char *sc, const char *role, const char *name) {
  char *k = crawl__xprintf("%s\x1f%s\x1f%s", sc, role, name ? name : "");
  long n = crawl__strmap_get(&x->count, k);
  free(k);
  return n > 0;
}

/* 1: the crawler found the target by its scope (target.scopeKey) and its
 * scope sc of g holds no other element with its role and name: the scope,
 * not the ordinal, told it apart (web 3.2). */
static int told_apart_by_scope(const scope_index *x, const cJSON *t, const char *sc, const char *role,
                               const char *name) {
  if (!sc || !crawl__str(t, "scopeKey")) return 0;
  char *k = crawl__xprintf("%s\x1f%s\x1f%s", sc, role, name ? name : "");
  long n = crawl__strmap_get(&x->count, k);
  free(k);
  return n == 1;
}

/* The graph-local scopeId of the element with role and name that is the
 * ordinal-th of its kind in its scope: the target's scope when its own
 * scopeId is from another capture of the state (backend node ids differ
 * between page loads and between workers). NULL when none. */
static const char *element_scope(const scope_index *x, const char *role, const char *name, int ordinal) {
  char *k = crawl__xprintf("%s\x1f%s\x1f%d", role, name ? name : "", ordinal);
  long i = crawl__strmap_get(&x->kth, k);
  free(k);
  return i >= 0 ? x->sc[i] : NULL;
}

static void pk_resolve_ref(pk *b, pk_ref *rf, const pk_state *st, const cJSON *g, const strset *local_ids,
                        const long *local_el, const rn_count *rn, const scope_index *sx) {
  const cJSON *t = crawl__get(rf->line, "target");
  const char *iid = crawl__str(t, "instanceId"), *stable = crawl__str(t, "stableId");
  const char *role = crawl__str(t, "role"), *name = crawl__str(t, "name");
  rf->element = -1;
  const char *tsc = crawl__str(t, "scopeId");
  if (g && role && tsc && !scope_holds(sx, tsc, role, name)) tsc = NULL; /* an id of another capture */
  if (st) rf->scope = crawl__xstrdup(pk_state_scope(b, st, tsc));
  if (st && !rf->scope && g && role && crawl__str(t, "scopeId")) {
    const cJSON *ord = crawl__get(t, "ordinal");
    rf->scope = crawl__xstrdup(pk_state_scope(b, st, element_scope(sx, role, name, cJSON_IsNumber(ord) ? ord->valueint : 0)));
  }
  if (st && iid) {
    long li = pk_strset_find(local_ids, iid);
    if (li >= 0) rf->element = local_el[li];
  }
  if (rf->element < 0 && stable) {
    char *k = crawl__xprintf("id\x1f%s", stable);
    rf->element = pk_strset_find(&b->element_keys, k);
    free(k);
  }
  if (st && role) {
    char *sk = pk_semantic_key(st->route, pk_scope_by_id(b, rf->scope), role, name);
    if (rf->element < 0) {
      char *k = crawl__xprintf("sk\x1f%s", sk);
      rf->element = pk_strset_find(&b->element_keys, k);
      free(k);
    }
    rf->semkey = sk;
  }
  if (rf->element >= 0 && !rf->semkey) rf->semkey = crawl__xstrdup(b->elements[rf->element].semkey);
  /* several elements of the state share the target's role and name, and no
   * stableId tells them apart: only the ordinal did */
  if (g && !stable && role && rn) {
    char *k = rn_key(role, name);
    long j = pk_strset_find(&rn->keys, k), same = j >= 0 ? rn->count[j] : 0;
    free(k);
    rf->ambiguous = same > 1 && !told_apart_by_scope(sx, t, tsc, role, name);
    rf->same_name = same;
  }
}

/* A RouteContext (route) seen on route rt: its url, title, params and
 * query; in a state's graph (st, meta: the graph's metadata), also whether
 * the page named the route (metadata.routeSource "annotation"; a graph
 * without routeSource that names the state's routeId, as before it) or
 * the app's router did ("router"). */
static void pk_route_context_fold(pk_route *rt, const cJSON *route, const cJSON *meta, const pk_state *st) {
  static const struct { const char *member, *tag; } parts[] = {{"params", "p"}, {"query", "q"}};
  for (size_t k = 0; k < PK_COUNT(parts); k++) {
    const cJSON *kv;
    cJSON_ArrayForEach(kv, crawl__get(route, parts[k].member)) {
      const cJSON *v, *one = cJSON_IsArray(kv) ? kv->child : kv;
      for (v = one; v; v = cJSON_IsArray(kv) ? v->next : NULL) {
        if (!cJSON_IsString(v)) continue;
        char *e = crawl__xprintf("%s\x1f%s\x1f%s", parts[k].tag, kv->string, v->valuestring);
        pk_strset_add(&rt->observed, e);
        free(e);
      }
    }
  }
  if (!st) return;
  const char *gr = crawl__str(route, "routeId"), *src = crawl__str(meta, "routeSource");
  if (gr && !strcmp(gr, st->route) && (!src || !strcmp(src, "annotation"))) pk_strset_add(&rt->annot_states, st->id);
  if (gr && !strcmp(gr, st->route) && src && !strcmp(src, "router")) pk_strset_add(&rt->router_states, st->id);
  const char *tpl = crawl__str(meta, "routeTemplate");
  if (tpl && strcmp(tpl, rt->id)) pk_strset_add(&rt->templates, tpl);
}

/* Load state i's graph and fold it; resolve the records that point into it. */
static void pk_state_fold(pk *b, size_t si, long **by_state, size_t *nby_state) {
  pk_state *st = &b->states[si];
  long ri = pk_route_of(b, st->route); /* may move b->routes */
  pk_route *rt = &b->routes[ri];
  pk_strset_add(&rt->states, st->id);
  pk_strset_add(&rt->urls, crawl__str(st->line, "url"));
  const char *title = crawl__str(st->line, "title");
  if (title && *title) pk_strset_add(&rt->titles, title);

  const char *ref = crawl__str(st->line, "pageGraphRef");
  char path[4096];
  path[0] = 0;
  if (crawl__path_inside(ref)) snprintf(path, sizeof path, "%s/%s", b->dir, ref);
  else if (!strchr(st->id, '/') && strcmp(st->id, "..") && strcmp(st->id, "."))
    snprintf(path, sizeof path, "%s/states/%s.json", b->dir, st->id);
  cJSON *g = NULL;
  if (path[0]) {
    size_t len;
    int e;
    char *text = crawl__file_read(path, CRAWL__FILE_MAX, &len, &e);
    if (text) g = cJSON_ParseWithLength(text, len);
    free(text);
  }
  if (g && !cJSON_IsObject(g)) { cJSON_Delete(g); g = NULL; }
  if (!g) {
    char *n = ref && !crawl__path_inside(ref)
                  ? crawl__xprintf("state %s: pageGraphRef %s leaves the crawl directory (refused); states/%s.json is missing or unreadable", st->id, ref, st->id)
                  : crawl__xprintf("state %s: page graph %s is missing or unreadable", st->id, ref ? ref : "(none)");
    pk_note(b, n);
    free(n);
  }
  strset local_ids = {0};
  long *local_el = NULL;
  if (g) {
    st->loaded = 1;
    rt->loaded++;
    pk_route_context_fold(rt, crawl__get(g, "route"), crawl__get(g, "metadata"), st);
    pk_fold_scopes(b, st, g, rt);
    const cJSON *e;
    cJSON_ArrayForEach(e, crawl__get(g, "elements")) pk_fold_element(b, st, e, &local_ids, &local_el);
    pk_fold_state_findings(b, st, rt, g);
  }
  rn_count rn = {0};
  scope_index sx = {0};
  if (g && nby_state[si]) {
    rn_count_build(&rn, g);
    scope_index_build(&sx, g);
  }
  for (size_t k = 0; k < nby_state[si]; k++)
    pk_resolve_ref(b, &b->refs[by_state[si][k]], st, g, &local_ids, local_el, &rn, &sx);
  scope_index_free(&sx);
  pk_strset_free(&rn.keys);
  free(rn.count);
  pk_strset_free(&local_ids);
  free(local_el);
  cJSON_Delete(g);
}

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
static int pk_journal_read(pk *b) {
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
static char *pk_canonical_target(const pk_ref *rf);
static void pk_refs_sort(pk *b, const long *rank) {
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

/* ---- aggregation after all states are folded --------------------------------------- */
/* The actions a record exercised: its action id, and the element's app
 * action when a primitive fires it (ui.activate on a data-uiap-action). */
static void ref_actions(pk *b, const pk_ref *rf, const char *aid, strset *out) {
  pk_strset_add(out, aid);
  if (rf->element >= 0 && PK_IN(pk_firing_actions, aid)) pk_strset_addall(out, &b->elements[rf->element].app_actions);
}

static char *pk_canonical_target(const pk_ref *rf) {
  const cJSON *t = crawl__get(rf->line, "target");
  if (!cJSON_IsObject(t)) return NULL;
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "instanceId", crawl__str(t, "instanceId"));
  crawl__jstr(o, "stableId", crawl__str(t, "stableId"));
  crawl__jstr(o, "semanticKey", rf->semkey);
  crawl__jstr(o, "role", crawl__str(t, "role"));
  crawl__jstr(o, "name", crawl__str(t, "name"));
  crawl__jstr(o, "scopeId", rf->scope); /* the catalog's scope id */
  crawl__jstr(o, "documentId", crawl__str(t, "documentId"));
  const cJSON *ord = crawl__get(t, "ordinal");
  if (cJSON_IsNumber(ord)) pk_jnum(o, "ordinal", ord->valuedouble);
  char *s = crawl__jtext(o, 0);
  cJSON_Delete(o);
  return s;
}

/* A SuccessSignal in canonical key order, its scopeId mapped to the catalog. */
static char *pk_canonical_signal(pk *b, const cJSON *s, const pk_state *to, const pk_state *from) {
  const char *kind = crawl__str(s, "kind");
  if (!PK_IN(pk_signal_kinds, kind)) return NULL;
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "kind", kind);
  crawl__jstr(o, "pattern", crawl__str(s, "pattern"));
  crawl__jstr(o, "text", crawl__str(s, "text"));
  const cJSON *t = crawl__get(s, "target");
  if (cJSON_IsObject(t)) crawl__jset(o, "target", cJSON_Duplicate(t, 1));
  const char *sc = crawl__str(s, "scopeId");
  if (sc) {
    const char *c = pk_state_scope(b, to, sc);
    if (!c) c = pk_state_scope(b, from, sc);
    crawl__jstr(o, "scopeId", c ? c : sc);
  }
  char *text = crawl__jtext(o, 0);
  cJSON_Delete(o);
  return text;
}

static pk_state *pk_state_of(pk *b, const char *id) {
  long i = id ? pk_strset_find(&b->state_ids, id) : -1;
  return i >= 0 ? &b->states[i] : NULL;
}

/* A transition between routes: the entry action of the target route, and a
 * route.changed exit signal of the source route (the observed ones, else
 * a bare one). */
static void route_crossing(pk *b, const pk_state *from, const char *to_route, const char *aid, const char *tid,
                           const strset *sigs) {
  pk_route *in = &b->routes[pk_strset_find(&b->route_ids, to_route)];
  pk_route *out = &b->routes[pk_strset_find(&b->route_ids, from->route)];
  pk_strset_add(&in->entry_actions, aid);
  pk_strset_add(&in->entry_tr, tid);
  int any = 0;
  for (size_t k = 0; k < sigs->n; k++)
    if (!strncmp(sigs->v[k], "{\"kind\":\"route.changed\"", 23)) { pk_strset_add(&out->exit_signals, sigs->v[k]); any = 1; }
  if (!any) pk_strset_add(&out->exit_signals, "{\"kind\":\"route.changed\"}");
}

/* A transition record: reach and self-loop counts, route entries and exits,
 * the element acted on, and the actions it executed. */
static void aggregate_transition(pk *b, const pk_ref *rf, pk_element *el, const char *se) {
  const cJSON *j = rf->line;
  const char *tid = crawl__str(j, "transitionId"), *aid = crawl__str(j, "viaActionId");
  pk_state *from = pk_state_of(b, crawl__str(j, "fromStateId")), *to = pk_state_of(b, crawl__str(j, "toStateId"));
  int self = cJSON_IsTrue(crawl__get(j, "selfLoop")) || !strcmp(crawl__str(j, "fromStateId"), crawl__str(j, "toStateId"));
  strset sigs = {0}, used = {0};
  const cJSON *s;
  cJSON_ArrayForEach(s, crawl__get(j, "observedSignals")) {
    char *c = pk_canonical_signal(b, s, to, from);
    pk_strset_add(&sigs, c);
    free(c);
  }
  if (self) {
    b->nself++;
    if (from) from->self_loops++;
  } else if (to) to->reached++;
  if (from) b->routes[pk_strset_find(&b->route_ids, from->route)].explored++;
  /* the route it entered: where it landed (a route folded into the state), else the state's */
  const char *in = crawl__str(crawl__get(j, "route"), "routeId");
  if (!in || pk_strset_find(&b->route_ids, in) < 0) in = to ? to->route : NULL;
  if (from && to && (!self || in != to->route) && strcmp(from->route, in)) route_crossing(b, from, in, aid, tid, &sigs);
  if (el) {
    el->acted++;
    if (!self || sigs.n) el->acted_ok++;
    pk_strset_add(&el->transitions, tid);
  }
  ref_actions(b, rf, aid, &used);
  for (size_t k = 0; k < used.n; k++) {
    pk_action *ac = pk_action_get(b, used.v[k]);
    ac->executed++;
    if (sigs.n) ac->executed_signal++;
    pk_strset_addall(&ac->signals, &sigs);
    pk_strset_add(&ac->transitions, tid);
    pk_strset_add(&ac->classes, se);
    if (from) pk_strset_add(&ac->routes, from->route);
    if (ac->primitive && el && el->stable_id) {
      cJSON *p = crawl__jx(cJSON_CreateObject());
      crawl__jstr(p, "role", el->role);
      crawl__jstr(p, "stableId", el->stable_id);
      crawl__jstr(p, "scopeId", rf->scope);
      char *t = crawl__jtext(p, 0);
      pk_strset_add(&ac->patterns, t);
      free(t);
      cJSON_Delete(p);
    }
    if (ac->primitive) pk_strset_add(&ac->roles, crawl__str(crawl__get(j, "target"), "role"));
  }
  pk_strset_free(&used);
  pk_strset_free(&sigs);
}

/* A decision record: counts by effect; a review or deny gates the actions
 * (strictest gate, smallest reason) and raises the element's risk. */
static void aggregate_decision(pk *b, const pk_ref *rf, pk_element *el, const char *se) {
  const cJSON *j = rf->line;
  const char *effect = crawl__str(j, "effect"), *aid = crawl__str(j, "actionId");
  int e = effect ? pk_index((const char *const[]){"allow", "skip", "review", "deny"}, 4, effect) : -1;
  if (e >= 0) b->ndecisions[e]++;
  strset used = {0};
  ref_actions(b, rf, aid, &used);
  char *why = crawl__xprintf("policy: %s (%s)", crawl__str(j, "reason") ? crawl__str(j, "reason") : "?",
                             crawl__str(j, "rule") ? crawl__str(j, "rule") : "?");
  for (size_t k = 0; k < used.n; k++) {
    pk_action *ac = pk_action_get(b, used.v[k]);
    if (rf->state >= 0) pk_strset_add(&ac->states, b->states[rf->state].id);
    ac->denied += e == 3;
    ac->reviewed += e == 2;
    ac->skipped += e == 1;
    if (e >= 2) {
      pk_strset_add(&ac->classes, se);
      if (e > ac->gate_level) { free(ac->gate_reason); ac->gate_reason = NULL; ac->gate_level = e; }
      if (e == ac->gate_level) pk_keep_min(&ac->gate_reason, why);
    }
  }
  if (el && e >= 2) {
    int lvl = e == 3 ? RISK_BLOCKED : RISK_CONFIRM;
    if (lvl > el->risk_policy) { el->risk_policy = lvl; free(el->risk_reason); el->risk_reason = NULL; }
    if (lvl == el->risk_policy) pk_keep_min(&el->risk_reason, why);
    if (pk_se_dangerous(se) || (se && !strcmp(se, "unknown"))) pk_strset_add(&el->risk_tags, se);
  }
  free(why);
  pk_strset_free(&used);
}

static void aggregate_failure(pk *b, const pk_ref *rf, pk_element *el, const char *se) {
  strset used = {0};
  b->nfailures++;
  ref_actions(b, rf, crawl__str(rf->line, "actionId"), &used);
  for (size_t k = 0; k < used.n; k++) {
    pk_action *ac = pk_action_get(b, used.v[k]);
    ac->failed++;
    if (rf->state >= 0) pk_strset_add(&ac->states, b->states[rf->state].id);
  }
  if (el) el->failures++;
  pk_strset_free(&used);
}

/* Every record, in canonical order, into the catalogs (pk_ref.type). */
static const struct {
  const char *type;
  void (*aggregate)(pk *b, const pk_ref *rf, pk_element *el, const char *side_effect);
} aggregators[] = {
  {"transition", aggregate_transition},
  {"decision", aggregate_decision},
  {"failure", aggregate_failure},
};

/* A route a transition (tid) or a seed landed on while the page showed
 * state sid, an equal state of another route: record j's "route". */
static void landed_route(pk *b, const cJSON *j, const char *sid, const char *tid) {
  const cJSON *route = crawl__get(j, "route");
  const char *id = crawl__str(route, "routeId");
  if (!id || !*id || !sid) return;
  long ri = pk_route_of(b, id); /* may grow b->routes: index it after */
  pk_route *rt = &b->routes[ri];
  pk_strset_add(&rt->urls, crawl__str(route, "url"));
  const char *title = crawl__str(route, "title");
  if (title && *title) pk_strset_add(&rt->titles, title);
  pk_route_context_fold(rt, route, NULL, NULL);
  if (pk_strset_find(&rt->states, sid) < 0) pk_strset_add(&rt->folded_into, sid);
  if (tid) pk_strset_add(&rt->landed_tr, tid);
}

static void pk_aggregate(pk *b) {
  for (size_t i = 0; i < b->nrefs; i++) {
    const pk_ref *rf = &b->refs[i];
    pk_element *el = rf->element >= 0 ? &b->elements[rf->element] : NULL;
    const char *se = crawl__str(rf->line, "sideEffectClass");
    if (pk_se_rank(se) < 0) se = NULL;
    if (!strcmp(rf->type, "transition") && pk_state_of(b, crawl__str(rf->line, "toStateId")))
      landed_route(b, rf->line, crawl__str(rf->line, "toStateId"), crawl__str(rf->line, "transitionId"));
    for (size_t k = 0; k < PK_COUNT(aggregators); k++)
      if (!strcmp(rf->type, aggregators[k].type)) aggregators[k].aggregate(b, rf, el, se);
  }
  for (size_t k = 0; k < b->nseed_lines; k++) {
    const char *sid = crawl__str(b->seed_lines[k], "stateId");
    if (sid && pk_strset_find(&b->state_ids, sid) >= 0) landed_route(b, b->seed_lines[k], sid, NULL);
  }
}

/* ---- review queue ------------------------------------------------------------------ */
static const char *ref_target_label(const pk_ref *rf, char *buf, size_t n) {
  const cJSON *t = crawl__get(rf->line, "target");
  const char *role = crawl__str(t, "role"), *name = crawl__str(t, "name"), *stable = crawl__str(t, "stableId");
  if (stable) snprintf(buf, n, "%s \"%s\" (%s)", role ? role : "element", name ? name : "", stable);
  else snprintf(buf, n, "%s \"%s\"", role ? role : "element", name ? name : "");
  return buf;
}

/* The journal's own findings, as written (a replay that landed elsewhere
 * also counts as an unresolved transition). */
static void pk_review_journal(pk *b) {
  for (size_t i = 0; i < b->nreviews; i++) {
    const cJSON *j = b->reviews[i];
    const char *kind = crawl__str(j, "kind"), *sev = crawl__str(j, "severity"), *desc = crawl__str(j, "description");
    int k = pk_index(pk_review_kinds, PK_COUNT(pk_review_kinds), kind);
    kind = pk_review_kinds[k >= 0 ? k : (int)PK_COUNT(pk_review_kinds) - 1];
    int s = pk_index(pk_severities, 3, sev);
    const cJSON *t = crawl__get(j, "target");
    char *tt = cJSON_IsObject(t) ? crawl__jtext(t, 0) : crawl__xstrdup("");
    const char *sid = crawl__str(j, "stateId"), *rid = crawl__str(j, "routeId");
    char *key = crawl__xprintf("journal\x1f%s\x1f%s\x1f%s\x1f%s", sid ? sid : "", rid ? rid : "", desc, tt);
    free(tt);
    const pk_state *st = pk_state_of(b, crawl__str(j, "stateId"));
    const char *route = crawl__str(j, "routeId") ? crawl__str(j, "routeId") : st ? st->route : NULL;
    pk_item *it = pk_item_get(b, kind, key, s >= 0 ? s : 1, route);
    free(key);
    pk_item_set(&it->stable, crawl__str(t, "stableId"));
    pk_strset_add(&it->ev_states, crawl__str(j, "stateId"));
    pk_strset_add(&it->ev_transitions, crawl__str(j, "transitionId"));
    pk_item_text(it, crawl__xstrdup(desc), crawl__str(j, "remediation") ? crawl__xstrdup(crawl__str(j, "remediation")) : NULL);
    char *low = pk_norm(desc, 1);
    if (cJSON_IsTrue(crawl__get(j, "replay")) || strstr(low, "replay")) b->nreplays++;
    free(low);
  }
}

/* The first PK_LIST_NAMES names in natural order, quoted and comma
 * separated (caller frees). */
static char *pk_quoted_list(const strset *names) {
  char **v = pk_strset_sorted(names, pk_cmp_nat);
  size_t len = 0, cap = 256;
  char *list = crawl__xrealloc(NULL, cap);
  list[0] = 0;
  for (size_t k = 0; k < names->n && k < PK_LIST_NAMES; k++) {
    size_t need = len + strlen(v[k]) + 8;
    if (need > cap) list = crawl__xrealloc(list, cap = need * 2);
    len += (size_t)sprintf(list + len, "%s\"%s\"", k ? ", " : "", v[k]);
  }
  free(v);
  return list;
}

/* missing_stable_id: the route's interactive elements without a stableId. */
static void route_missing_ids(pk *b, pk_route *rt) {
  strset names = {0};
  long count = 0;
  for (size_t e = 0; e < b->element_keys.n; e++) {
    pk_element *el = &b->elements[e];
    if (el->stable_id || !el->interactive || pk_strset_find(&el->routes, rt->id) < 0) continue;
    count++;
    if (el->names.n) pk_strset_add(&names, pk_strset_min(&el->names));
    else {
      char *n = crawl__xprintf("(unnamed %s)", el->role);
      pk_strset_add(&names, n);
      free(n);
    }
  }
  if (count) {
    pk_item *it = pk_item_get(b, "missing_stable_id", rt->id, 0, rt->id);
    it->count = count;
    pk_strset_addall(&it->ev_states, &rt->states);
    char *list = pk_quoted_list(&names);
    pk_item_text(it, crawl__xprintf("%ld interactive element%s on route %s ha%s no data-uiap-id: %s%s.", count,
                                    count == 1 ? "" : "s", rt->id, count == 1 ? "s" : "ve", list,
                                    names.n > PK_LIST_NAMES ? ", ..." : ""),
                 crawl__xprintf("Add data-uiap-id to %s so agents can address %s independent of text and position.",
                                count == 1 ? "this control" : "these controls", count == 1 ? "it" : "them"));
    free(list);
  }
  pk_strset_free(&names);
}

/* coverage_gap: a route no action was explored from. */
static void route_unexplored(pk *b, pk_route *rt) {
  if (rt->explored || !rt->states.n) return; /* folded: explored as the state it showed */
  pk_item *it = pk_item_get(b, "coverage_gap", rt->id, 1, rt->id);
  pk_strset_addall(&it->ev_states, &rt->states);
  pk_item_text(it, crawl__xprintf("Route %s was captured in %zu state%s but no action was explored from it.", rt->id,
                                  rt->states.n, rt->states.n == 1 ? "" : "s"),
               crawl__xstrdup("Raise the budget (maxStates, maxTransitions, maxPerRoute, maxDepth) or seed this route directly."));
}

/* missing_stable_id (mapper 16: "a route without stable identity"): a
 * route neither a page (data-uiap-route) nor the app's router names, whose id is a template the crawler
 * derived from URLs that differ in their parameters. A route at one fixed
 * URL has a stable URL structure (15.1) and no item. */
static void route_unstable(pk *b, pk_route *rt) {
  strset names = {0}, values = {0};
  for (size_t i = 0; i < rt->observed.n; i++) {
    if (rt->observed.v[i][0] != 'p') continue;
    const char *name = rt->observed.v[i] + 2, *value = strchr(name, '\x1f');
    char *n = crawl__xstrndup(name, (size_t)(value - name));
    pk_strset_add(&names, n);
    free(n);
    pk_strset_add(&values, value + 1);
  }
  if (!rt->annot_states.n && !rt->router_states.n && names.n) {
    char *key = crawl__xprintf("route\x1f%s", rt->id);
    pk_item *it = pk_item_get(b, "missing_stable_id", key, 0, rt->id);
    free(key);
    pk_strset_addall(&it->ev_states, rt->states.n ? &rt->states : &rt->folded_into);
    pk_strset_addall(&it->ev_transitions, &rt->landed_tr);
    char *nl = pk_quoted_list(&names), *vl = pk_quoted_list(&values);
    pk_item_text(it, crawl__xprintf("Route %s has no stable identity: no page names it (data-uiap-route); its id is a "
                                    "template the crawler derived from %zu URL%s that differ in %s (%s%s).",
                                    rt->id, rt->urls.n, rt->urls.n == 1 ? "" : "s", nl, vl, values.n > PK_LIST_NAMES ? ", ..." : ""),
                 crawl__xstrdup("Name the route on the page (data-uiap-route on its root element) so agents address it "
                                "independent of its URL, or confirm the template."));
    free(nl);
    free(vl);
  }
  pk_strset_free(&names);
  pk_strset_free(&values);
}

/* closed_shadow: the route's item (pk_fold_state_findings) gets its text. */
static void route_closed_shadow(pk *b, pk_route *rt) {
  char *ck = crawl__xprintf("closed_shadow\x1f%s", rt->id);
  long ci = pk_strset_find(&b->item_keys, ck);
  free(ck);
  if (ci < 0) return;
  pk_item *it = &b->items[ci];
  pk_item_text(it, crawl__xprintf("%ld closed shadow root%s on route %s hide%s %s content from discovery.", it->count,
                                  it->count == 1 ? "" : "s", rt->id, it->count == 1 ? "s" : "", it->count == 1 ? "its" : "their"),
               crawl__xstrdup("Use an open shadow root for app controls, or annotate the host with data-uiap-* attributes."));
}

/* Per route: missing stableIds, unexplored routes, closed shadow roots,
 * and the opaque regions they add up to. */
static void pk_review_routes(pk *b) {
  for (size_t r = 0; r < b->route_ids.n; r++) {
    pk_route *rt = &b->routes[r];
    route_missing_ids(b, rt);
    route_unexplored(b, rt);
    route_unstable(b, rt);
    route_closed_shadow(b, rt);
    b->opaque_regions += (int)rt->opaque_origins.n + rt->closed_shadow;
  }
}

/* inferred_only: elements recognised by heuristics alone. */
static void pk_review_inferred(pk *b) {
  for (size_t e = 0; e < b->element_keys.n; e++) {
    pk_element *el = &b->elements[e];
    if (!el->inferred_only) continue;
    int act = 0;
    for (size_t k = 0; k < el->actions.n; k++) act |= PK_IN(pk_activating_actions, el->actions.v[k]);
    const char *route = pk_strset_min(&el->routes), *name = pk_strset_min(&el->names);
    pk_item *it = pk_item_get(b, "inferred_only", el->key, act ? 1 : 0, route);
    pk_strset_addall(&it->ev_states, &el->states);
    pk_item_set(&it->scope, pk_strset_min(&el->scopes));
    pk_item_text(it, crawl__xprintf("The %s%s%s%s on route %s was recognised only by heuristics (a clickable element without role, label or text evidence).",
                                    el->role, name ? " \"" : "", name ? name : "", name ? "\"" : "",
                                    route ? route : "?"),
                 crawl__xstrdup("Use a native control (button, a href) or give it an ARIA role and an accessible name, plus a data-uiap-id."));
  }
}

/* ambiguous_target: a record whose target was told apart only by position. */
static void record_ambiguous(pk *b, const pk_ref *rf, const pk_state *st) {
  const cJSON *j = rf->line, *t = crawl__get(j, "target");
  const char *route = st ? st->route : NULL;
  char label[600];
  char *nn = pk_norm(crawl__str(t, "name"), 1);
  char *key = crawl__xprintf("%s\x1f%s\x1f%s", route ? route : "", crawl__str(t, "role"), nn);
  free(nn);
  pk_item *it = pk_item_get(b, "ambiguous_target", key, 1, route);
  free(key);
  pk_item_set(&it->scope, rf->scope);
  pk_strset_add(&it->ev_states, st ? st->id : NULL);
  pk_strset_add(&it->ev_transitions, crawl__str(j, "transitionId"));
  if (rf->same_name > it->count) it->count = rf->same_name;
  pk_item_text(it, crawl__xprintf("The target %s on route %s matched %ld elements and was told apart only by its position.",
                                  ref_target_label(rf, label, sizeof label), route ? route : "?", rf->same_name),
               crawl__xstrdup("Give each of these elements a data-uiap-id or a distinct accessible name."));
}

/* unsafe_action_candidate: a decision record that denied an action or held
 * it for review (high when denied with a dangerous side effect). */
static void record_gated(pk *b, const pk_ref *rf, const pk_state *st) {
  const cJSON *j = rf->line, *t = crawl__get(j, "target");
  const char *route = st ? st->route : NULL, *effect = crawl__str(j, "effect");
  if (!effect || (strcmp(effect, "deny") && strcmp(effect, "review"))) return;
  int deny = !strcmp(effect, "deny");
  const char *aid = crawl__str(j, "actionId"), *se = crawl__str(j, "sideEffectClass");
  const char *tkey = crawl__str(t, "stableId") ? crawl__str(t, "stableId") : rf->semkey ? rf->semkey : crawl__str(t, "name");
  const char *option = crawl__str(crawl__get(j, "args"), "option"); /* ui.choose of a <select> */
  char *key = crawl__xprintf("%s\x1f%s\x1f%s", aid, tkey ? tkey : "", option ? option : "");
  pk_item *it = pk_item_get(b, "unsafe_action_candidate", key, deny && pk_se_dangerous(se) ? 2 : 1, route);
  free(key);
  if (deny && !it->deny) { /* a denial speaks over a hold for review */
    free(it->desc);
    free(it->remedy);
    it->desc = it->remedy = NULL;
  }
  it->deny |= deny;
  pk_item_set(&it->stable, crawl__str(t, "stableId"));
  pk_item_set(&it->scope, rf->scope);
  pk_strset_add(&it->ev_states, st ? st->id : crawl__str(j, "stateId"));
  const char *rs = crawl__str(j, "reason"), *rule = crawl__str(j, "rule");
  const char *why = crawl__str(j, "text"); /* the policy's sentence: "deny: destructive: removes a list item ..." */
  char label[600];
  pk_item_text(it, crawl__xprintf("The safety gate %s %s on %s%s%s%s (reason %s, rule %s, side effect %s)%s%s.",
                                  deny ? "denied" : "held for review", aid, ref_target_label(rf, label, sizeof label),
                                  option ? " (option \"" : "", option ? option : "", option ? "\")" : "",
                                  rs ? rs : "?", rule ? rule : "?", se ? se : "unknown", why ? ": " : "",
                                  why ? why : ""),
               crawl__xstrdup(deny ? "Confirm the classification and annotate the control with data-uiap-risk=\"blocked\" (or \"confirm\") "
                                     "and a data-uiap-action; exercise it only in a sandbox environment."
                                   : "Annotate the control with data-uiap-risk and a data-uiap-action so its side effect is explicit, "
                                     "then decide whether discovery may execute it."));
}

/* Per journal record: ambiguous targets and gated actions. */
static void pk_review_records(pk *b) {
  for (size_t i = 0; i < b->nrefs; i++) {
    const pk_ref *rf = &b->refs[i];
    const pk_state *st = rf->state >= 0 ? &b->states[rf->state] : NULL;
    if (rf->ambiguous) record_ambiguous(b, rf, st);
    if (!strcmp(rf->type, "decision")) record_gated(b, rf, st);
  }
}

/* missing_success_signal: a domain action with no signal (section 15.5). */
static void pk_review_actions(pk *b) {
  for (size_t a = 0; a < b->action_ids.n; a++) {
    pk_action *ac = &b->actions[a];
    if (ac->primitive || ac->signals.n) continue;
    pk_item *it = pk_item_get(b, "missing_success_signal", ac->id, 1, pk_strset_min(&ac->routes));
    pk_strset_addall(&it->ev_transitions, &ac->transitions);
    if (!ac->transitions.n) pk_strset_addall(&it->ev_states, &ac->states);
    for (size_t k = 0; k < ac->patterns.n && !it->stable; k++) {
      cJSON *p = cJSON_Parse(ac->patterns.v[k]);
      pk_item_set(&it->stable, crawl__str(p, "stableId"));
      cJSON_Delete(p);
    }
    pk_item_text(it, ac->executed
                     ? crawl__xprintf("The domain action %s was executed %d time%s without an observable success signal.", ac->id,
                                      ac->executed, ac->executed == 1 ? "" : "s")
                     : crawl__xprintf("The domain action %s was never executed, so no success signal was observed for it.", ac->id),
                 crawl__xprintf("Declare a success signal for %s (a role=status or toast message, a dialog or route change) or verify it manually.", ac->id));
  }
}

/* ---- review duties on observed behaviour (mapper 15.5, 16) ---------------------------- */
/* What a transition record observed, for the checks below. */
typedef struct pk_seen {
  const pk_ref *rf;
  const pk_state *from, *to;
  const pk_element *el;           /* its element in the catalog, or NULL */
  const char *role, *action;
  int self_loop, nsignals, dialog_opened;
} pk_seen;

static int seen_route_changed(const pk_seen *s) {
  return s->from && s->to && s->from->route && s->to->route && strcmp(s->from->route, s->to->route);
}

static const char *const toggle_roles[] = {"checkbox", "switch", "menuitemcheckbox"};

/* A button that leaves its route (a submit button may: a form's result is a page). */
static int button_navigates(const pk_seen *s) {
  return !strcmp(s->role, "button") && seen_route_changed(s) &&
         !(s->el && pk_strset_find(&s->el->affordances, "submit") >= 0);
}
/* A link that opens a dialog on its own route. */
static int link_opens_dialog(const pk_seen *s) {
  return !strcmp(s->role, "link") && s->dialog_opened && !seen_route_changed(s);
}
/* A toggle (checkbox, switch, aria-pressed) whose use changed nothing. */
static int toggle_does_nothing(const pk_seen *s) {
  int pressed = s->el && (s->el->state_keys >> pk_index(pk_state_keys, PK_COUNT(pk_state_keys), "pressed") & 1u);
  int toggle = !strcmp(s->action, "ui.toggle") || PK_IN(toggle_roles, s->role) || pressed;
  return toggle && s->self_loop && !s->nsignals;
}

/* Semantics that contradict what was observed (mapper 16): the check, what
 * it says (role, name, route) and what to do. */
static const struct {
  const char *id;
  int (*test)(const pk_seen *s);
  const char *says, *remedy;
} contradictions[] = {
  {"button-navigates", button_navigates,
   "The %s \"%s\" on route %s navigated to another route: its role says it acts in place, the app treats it as a link.",
   "Use a link (<a href>) for navigation, or keep the button on its route; then check the mapped transition."},
  {"link-opens-dialog", link_opens_dialog,
   "The %s \"%s\" on route %s opened a dialog without navigating: its role says navigation, the app treats it as a button.",
   "Use a button (with aria-haspopup=\"dialog\") to open dialogs; then check the mapped transition."},
  {"toggle-does-nothing", toggle_does_nothing,
   "The %s \"%s\" on route %s was toggled but nothing observable changed: its semantics promise a state change.",
   "Check that the toggle works and exposes its state (checked / aria-pressed), or remove the toggle semantics."},
};

static void seen_of(pk *b, const pk_ref *rf, pk_seen *s) {
  const cJSON *j = rf->line, *sg;
  memset(s, 0, sizeof *s);
  s->rf = rf;
  s->from = rf->state >= 0 ? &b->states[rf->state] : pk_state_of(b, crawl__str(j, "fromStateId"));
  s->to = pk_state_of(b, crawl__str(j, "toStateId"));
  s->el = rf->element >= 0 ? &b->elements[rf->element] : NULL;
  s->role = crawl__str(crawl__get(j, "target"), "role");
  s->action = crawl__str(j, "viaActionId");
  if (!s->role) s->role = "";
  if (!s->action) s->action = "";
  const char *fid = crawl__str(j, "fromStateId"), *tid = crawl__str(j, "toStateId");
  s->self_loop = cJSON_IsTrue(crawl__get(j, "selfLoop")) || (fid && tid && !strcmp(fid, tid));
  cJSON_ArrayForEach(sg, crawl__get(j, "observedSignals")) {
    const char *k = crawl__str(sg, "kind");
    s->nsignals += PK_IN(pk_signal_kinds, k);
    s->dialog_opened |= k && !strcmp(k, "dialog.opened");
  }
}

static void contradiction_item(pk *b, const pk_seen *s, size_t c) {
  const char *route = s->from ? s->from->route : NULL, *name = crawl__str(crawl__get(s->rf->line, "target"), "name");
  const char *tkey = crawl__str(crawl__get(s->rf->line, "target"), "stableId");
  if (!tkey) tkey = s->rf->semkey ? s->rf->semkey : name;
  char *key = crawl__xprintf("contradiction\x1f%s\x1f%s\x1f%s", contradictions[c].id, route ? route : "", tkey ? tkey : "");
  pk_item *it = pk_item_get(b, "custom", key, 1, route);
  free(key);
  pk_item_set(&it->stable, crawl__str(crawl__get(s->rf->line, "target"), "stableId"));
  pk_item_set(&it->scope, s->rf->scope);
  pk_strset_add(&it->ev_states, s->from ? s->from->id : NULL);
  pk_strset_add(&it->ev_transitions, crawl__str(s->rf->line, "transitionId"));
  pk_item_text(it, crawl__xprintf(contradictions[c].says, s->role, name ? name : "", route ? route : "?"),
               crawl__xstrdup(contradictions[c].remedy));
}

/* Primitive actions whose effect is the target's own state (checked,
 * selected): the new state is their observable signal. */
static const char *const self_evident_actions[] = {"ui.toggle", "ui.choose"};

/* missing_success_signal (15.5): a primitive transition into another state
 * with no observed signal. */
static void silent_transition_item(pk *b, const pk_seen *s) {
  const char *route = s->from ? s->from->route : NULL, *name = crawl__str(crawl__get(s->rf->line, "target"), "name");
  char *key = crawl__xprintf("primitive\x1f%s\x1f%s\x1f%s", s->action, route ? route : "",
                             s->rf->semkey ? s->rf->semkey : name ? name : "");
  pk_item *it = pk_item_get(b, "missing_success_signal", key, 0, route);
  free(key);
  pk_item_set(&it->stable, crawl__str(crawl__get(s->rf->line, "target"), "stableId"));
  pk_item_set(&it->scope, s->rf->scope);
  pk_strset_add(&it->ev_transitions, crawl__str(s->rf->line, "transitionId"));
  pk_item_text(it, crawl__xprintf("%s on %s \"%s\" on route %s led to another state without an observable success signal.",
                                  s->action, s->role, name ? name : "", route ? route : "?"),
               crawl__xstrdup("Give the change an observable signal (a status message, a dialog, a route, a counted list) or verify it manually."));
}

/* Per transition record: contradicting semantics, silent primitive transitions. */
static void review_behaviour(pk *b) {
  for (size_t i = 0; i < b->nrefs; i++) {
    if (strcmp(b->refs[i].type, "transition")) continue;
    pk_seen s;
    seen_of(b, &b->refs[i], &s);
    for (size_t c = 0; c < PK_COUNT(contradictions); c++)
      if (contradictions[c].test(&s)) contradiction_item(b, &s, c);
    if (!s.self_loop && !s.nsignals && s.to && pk_is_primitive(s.action) && !PK_IN(self_evident_actions, s.action))
      silent_transition_item(b, &s);
  }
}

/* Security- and billing-related flows (mapper 16): the side effect class of
 * their controls and the data classes of their fields. */
static const struct {
  const char *what, *side_effect, *data_classes[2];
} sensitive_flows[] = {
  {"security", "security_change", {"credential", "secret"}},
  {"billing", "billing_change", {"payment", NULL}},
};

/* The controls (decision and transition records) and fields of flow f on
 * route rt into names; evidence into it. 1 when one was executed. */
static int flow_touches(pk *b, size_t f, const pk_route *rt, strset *names, pk_item *it) {
  int executed = 0;
  for (size_t i = 0; i < b->nrefs; i++) {
    const pk_ref *rf = &b->refs[i];
    const pk_state *st = rf->state >= 0 ? &b->states[rf->state] : NULL;
    const char *se = crawl__str(rf->line, "sideEffectClass");
    if (!st || !st->route || strcmp(st->route, rt->id) || !se || strcmp(se, sensitive_flows[f].side_effect)) continue;
    if (strcmp(rf->type, "decision") && strcmp(rf->type, "transition")) continue;
    pk_strset_add(names, crawl__str(crawl__get(rf->line, "target"), "name"));
    pk_strset_add(&it->ev_states, st->id);
    if (!strcmp(rf->type, "transition")) {
      executed = 1;
      pk_strset_add(&it->ev_transitions, crawl__str(rf->line, "transitionId"));
    }
  }
  for (size_t e = 0; e < b->element_keys.n; e++) {
    const pk_element *el = &b->elements[e];
    if (pk_strset_find(&el->routes, rt->id) < 0) continue;
    int hit = 0;
    for (size_t k = 0; k < 2 && sensitive_flows[f].data_classes[k]; k++)
      hit |= pk_strset_find(&el->data_classes, sensitive_flows[f].data_classes[k]) >= 0;
    if (!hit) continue;
    pk_strset_add(names, pk_strset_min(&el->names));
    pk_strset_addall(&it->ev_states, &el->states);
  }
  return executed;
}

static void review_sensitive_flows(pk *b) {
  for (size_t r = 0; r < b->route_ids.n; r++) {
    const pk_route *rt = &b->routes[r];
    for (size_t f = 0; f < PK_COUNT(sensitive_flows); f++) {
      pk_item probe = {0};
      strset names = {0};
      int executed = flow_touches(b, f, rt, &names, &probe);
      if (probe.ev_states.n || names.n) {
        char *key = crawl__xprintf("flow\x1f%s\x1f%s", sensitive_flows[f].what, rt->id);
        pk_item *it = pk_item_get(b, "custom", key, executed ? 2 : 1, rt->id);
        free(key);
        pk_strset_addall(&it->ev_states, &probe.ev_states);
        pk_strset_addall(&it->ev_transitions, &probe.ev_transitions);
        char *list = pk_quoted_list(&names);
        pk_item_text(it, crawl__xprintf("A %s-related flow was touched on route %s (%s%s)%s.", sensitive_flows[f].what,
                                        rt->id, list, names.n > PK_LIST_NAMES ? ", ..." : "",
                                        executed ? " and exercised" : ""),
                     crawl__xprintf("Review this %s flow by hand: what discovery mapped for it is a proposal until a person confirms it.",
                                    sensitive_flows[f].what));
        free(list);
      }
      pk_strset_free(&names);
      pk_strset_free(&probe.ev_states);
      pk_strset_free(&probe.ev_transitions);
    }
  }
}

/* The last `seed` line of seed s, or NULL. */
static const cJSON *seed_last_line(const pk *b, int s) {
  const cJSON *last = NULL;
  for (size_t k = 0; k < b->nseed_lines; k++)
    if ((int)crawl__get(b->seed_lines[k], "index")->valuedouble == s) last = b->seed_lines[k];
  return last;
}

/* Whether some state was reached from seed s: a state it entered, or the
 * state its last seed line names (a seed can lead to a state met before). */
static int pk_seed_visited(const pk *b, int s) {
  const cJSON *last = seed_last_line(b, s);
  int visited = last && cJSON_IsTrue(crawl__get(last, "resolved")) && crawl__str(last, "stateId") &&
                pk_strset_find(&b->state_ids, crawl__str(last, "stateId")) >= 0;
  for (size_t k = 0; k < b->state_ids.n && !visited; k++) {
    const cJSON *sd = crawl__get(b->states[k].line, "seed");
    visited = cJSON_IsNumber(sd) && (int)sd->valuedouble == s;
  }
  return visited;
}

/* The crawler journals its own review for a seed it could not load: a
 * coverage_gap whose description starts "Seed N ". */
static int seed_reported(const pk *b, int s) {
  int reported = 0;
  for (size_t k = 0; k < b->nreviews && !reported; k++) {
    const char *kk = crawl__str(b->reviews[k], "kind"), *d = crawl__str(b->reviews[k], "description");
    if (!kk || strcmp(kk, "coverage_gap") || (d[0] != 'S' && d[0] != 's') || strncmp(d + 1, "eed ", 4)) continue;
    char *e;
    long v = strtol(d + 5, &e, 10);
    reported = e != d + 5 && v == s && (*e == ' ' || *e == ':' || *e == 0);
  }
  return reported;
}

/* coverage_gap: url/route/documentation seeds never visited, unless the journal already
 * reported them; an unresolved one is also a run note. */
static void review_seeds(pk *b) {
  const cJSON *seeds = crawl__get(b->run, "seeds");
  int nseeds = cJSON_GetArraySize(seeds);
  for (int s = 0; s < nseeds; s++) {
    const cJSON *last = seed_last_line(b, s), *seed = cJSON_GetArrayItem(seeds, s);
    const char *kind = crawl__str(seed, "kind");
    if (pk_seed_visited(b, s) || !kind || (strcmp(kind, "url") && strcmp(kind, "route") && strcmp(kind, "documentation"))) continue;
    const char *what = crawl__str(seed, "url")       ? crawl__str(seed, "url")
                       : crawl__str(seed, "routeId") ? crawl__str(seed, "routeId")
                       : crawl__str(seed, "ref")     ? crawl__str(seed, "ref")
                                                     : kind;
    int unresolved = last && cJSON_IsFalse(crawl__get(last, "resolved"));
    const char *reason = crawl__str(last, "reason") ? crawl__str(last, "reason") : "no reason given";
    if (unresolved) {
      char *n = crawl__xprintf("seed %d (%s) unresolved: %s", s, what, reason);
      pk_note(b, n);
      free(n);
    }
    if (seed_reported(b, s)) continue;
    char *desc = unresolved ? crawl__xprintf("Seed %d (%s) could not be resolved: %s.", s, what, reason)
                            : crawl__xprintf("Seed %d (%s) was not visited.", s, what);
    char *key = crawl__xprintf("seed\x1f%d", s);
    pk_item *it = pk_item_get(b, "coverage_gap", key, unresolved ? 2 : 1, NULL);
    free(key);
    pk_item_text(it, desc, crawl__xstrdup(unresolved ? "Check that the seed is reachable from the crawler and that the environment is signed in."
                                                     : "Raise the budget or check why exploration stopped before this seed."));
  }
}

/* The review queue's sources, in the order they run (sections 6.8, 15.5, 16). */
static const struct {
  const char *what;
  void (*derive)(pk *b);
} review_derivers[] = {
  {"journal review lines (any kind)", pk_review_journal},
  {"missing_stable_id, coverage_gap, closed_shadow per route", pk_review_routes},
  {"inferred_only per element", pk_review_inferred},
  {"ambiguous_target, unsafe_action_candidate per record", pk_review_records},
  {"missing_success_signal per domain action", pk_review_actions},
  {"contradicting semantics, silent primitive transitions per transition", review_behaviour},
  {"security- and billing-related flows per route", review_sensitive_flows},
  {"coverage_gap per unvisited seed", review_seeds},
};

static void pk_review_derive(pk *b) {
  for (size_t i = 0; i < PK_COUNT(review_derivers); i++) review_derivers[i].derive(b);
}

/* Review order: severity (high first), kind, route, key. */
static int pk_cmp_item(const void *x, const void *y) {
  const pk_item *a = *(const pk_item *const *)x, *b = *(const pk_item *const *)y;
  if (a->severity != b->severity) return b->severity - a->severity;
  int c = strcmp(a->kind, b->kind);
  if (c) return c;
  c = crawl__natcmp(a->route ? a->route : "", b->route ? b->route : "");
  return c ? c : crawl__natcmp(a->key, b->key);
}

/* ---- output -------------------------------------------------------------------------- */
static void pk_ev_push(cJSON *arr, const char *source, const char *ref, const char *note) {
  cJSON *e = crawl__jx(cJSON_CreateObject());
  crawl__jstr(e, "source", source);
  crawl__jstr(e, "refId", ref);
  crawl__jstr(e, "note", note);
  crawl__jpush(arr, e);
}
static void pk_ev_push_set(cJSON *arr, const char *source, const strset *refs) {
  char **v = pk_strset_sorted(refs, pk_cmp_nat);
  for (size_t i = 0; i < refs->n && i < PK_EVIDENCE_MAX; i++) pk_ev_push(arr, source, v[i], NULL);
  free(v);
}

static cJSON *names_json(const strset *raw);

typedef struct conf_sum { long high, medium, low; } conf_sum;
static const char *conf(conf_sum *cs, int level /* 2 high, 1 medium, 0 low */) {
  if (level >= 2) { cs->high++; return "high"; }
  if (level == 1) { cs->medium++; return "medium"; }
  cs->low++;
  return "low";
}

/* metadata.principals: the principals whose states (ids in states) show
 * the entry (the state line's metadata.principal; docs/principals.md),
 * sorted; nothing when no state names one. */
static void principals_meta(const pk *b, const strset *states, cJSON *m) {
  strset who = {0};
  for (size_t i = 0; i < states->n; i++) {
    long s = pk_strset_find(&b->state_ids, states->v[i]);
    const char *p = s >= 0 ? crawl__str(crawl__get(b->states[s].line, "metadata"), "principal") : NULL;
    if (p) pk_strset_add(&who, p);
  }
  if (who.n) pk_jset_list(m, "principals", &who, 0);
  pk_strset_free(&who);
}

/* metadata.params and metadata.query: each name with the values seen, in
 * natural order (rt->observed). */
static void route_observed_meta(const pk_route *rt, cJSON *m) {
  char **v = pk_strset_sorted(&rt->observed, pk_cmp_nat);
  for (size_t i = 0; i < rt->observed.n; i++) {
    const char *name = strchr(v[i], '\x1f') + 1, *value = strchr(name, '\x1f') + 1;
    const char *member = v[i][0] == 'p' ? "params" : "query";
    cJSON *obj = cJSON_GetObjectItemCaseSensitive(m, member);
    if (!obj) crawl__jset(m, member, obj = crawl__jx(cJSON_CreateObject()));
    char *key = crawl__xstrndup(name, (size_t)(value - 1 - name));
    cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!arr) crawl__jset(obj, key, arr = crawl__jx(cJSON_CreateArray()));
    if (cJSON_GetArraySize(arr) < PK_NAMES_MAX) crawl__jpush(arr, cJSON_CreateString(value));
    free(key);
  }
  free(v);
}

/* ---- evidence files: accessibility records and screenshots ------------------
 * A state line's accessibilityRef (DIR/accessibility/<id>.json, the AX facts
 * its graph was built from) and screenshotRef are evidence of their own:
 * refIds ax_<stateId> and shot_<stateId> in the evidenceIndex. */
static const char *ax_ref_path(pk *b, const char *state_id) {
  const pk_state *st = pk_state_of(b, state_id);
  return st ? crawl__str(st->line, "accessibilityRef") : NULL;
}

static char *ax_ref_id(const char *state_id) { return crawl__xprintf("ax_%s", state_id); }

/* ev cites accessibility records: an "accessibility" entry that names a
 * state with a record names the record; with none, the record of the
 * first state (natural order) in states that has one. */
static void ev_accessibility(pk *b, cJSON *ev, const strset *states) {
  int cited = 0;
  cJSON *e;
  cJSON_ArrayForEach(e, ev) {
    const char *src = crawl__str(e, "source"), *ref = crawl__str(e, "refId");
    if (!src || strcmp(src, "accessibility")) continue;
    cited = 1;
    if (ax_ref_path(b, ref)) {
      char *id = ax_ref_id(ref);
      cJSON_ReplaceItemInObjectCaseSensitive(e, "refId", crawl__jx(cJSON_CreateString(id)));
      free(id);
    }
  }
  if (cited || !states || !states->n) return;
  char **v = pk_strset_sorted(states, pk_cmp_nat);
  for (size_t i = 0; i < states->n; i++)
    if (ax_ref_path(b, v[i])) {
      char *id = ax_ref_id(v[i]);
      pk_ev_push(ev, "accessibility", id, NULL);
      free(id);
      break;
    }
  free(v);
}

/* A state's own files as evidence: its accessibility record, its screenshot. */
static void pk_ev_state_files(cJSON *ev, const pk_state *st) {
  if (crawl__str(st->line, "accessibilityRef")) {
    char *id = ax_ref_id(st->id);
    pk_ev_push(ev, "accessibility", id, NULL);
    free(id);
  }
  if (crawl__str(st->line, "screenshotRef")) {
    char *id = crawl__xprintf("shot_%s", st->id);
    pk_ev_push(ev, "screenshot", id, "a supplementary record, not a source of semantics");
    free(id);
  }
}

/* evidenceIndex entries for the states' files, into v (room for 2 per state). */
static size_t pk_evidence_files(const pk *b, cJSON **v, size_t n) {
  static const struct { const char *key, *prefix, *source; } files[] = {
    {"accessibilityRef", "ax_", "accessibility"}, {"screenshotRef", "shot_", "screenshot"}};
  for (size_t i = 0; i < b->state_ids.n; i++)
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
      const pk_state *st = &b->states[i];
      const char *path = crawl__str(st->line, files[f].key);
      if (!path) continue;
      cJSON *o = crawl__jx(cJSON_CreateObject());
      char *id = crawl__xprintf("%s%s", files[f].prefix, st->id);
      crawl__jstr(o, "refId", id);
      free(id);
      crawl__jstr(o, "source", files[f].source);
      crawl__jstr(o, "path", path);
      crawl__jstr(o, "stateId", st->id);
      v[n++] = o;
    }
  return n;
}

static cJSON *pk_out_routes(pk *b, conf_sum *cs) {
  cJSON *routes = crawl__jx(cJSON_CreateArray());
  char **ids = pk_strset_sorted(&b->route_ids, pk_cmp_nat);
  for (size_t i = 0; i < b->route_ids.n; i++) {
    pk_route *rt = &b->routes[pk_strset_find(&b->route_ids, ids[i])];
    cJSON *o = crawl__jx(cJSON_CreateObject());
    crawl__jstr(o, "routeId", rt->id);
    pk_jset_list(o, "urls", &rt->urls, PK_NAMES_MAX);
    pk_jset_list(o, "titles", &rt->titles, PK_NAMES_MAX);
    pk_jset_list(o, "scopes", &rt->scopes, 0);
    cJSON *ev = crawl__jx(cJSON_CreateArray());
    if (rt->annot_states.n) pk_ev_push(ev, "annotation", rt->annot_states.v[0], "the page names this route");
    if (rt->router_states.n) pk_ev_push(ev, "app_registry", rt->router_states.v[0], "the app's router names this route");
    pk_ev_push_set(ev, "dom", rt->states.n ? &rt->states : &rt->folded_into);
    strset tr = {0};
    pk_strset_addall(&tr, &rt->entry_tr);
    pk_strset_addall(&tr, &rt->landed_tr);
    pk_ev_push_set(ev, "transition", &tr);
    pk_strset_free(&tr);
    if (!rt->loaded && rt->states.n) pk_ev_push(ev, "inferred", rt->states.v[0], "no page graph could be read");
    ev_accessibility(b, ev, rt->states.n ? &rt->states : &rt->folded_into);
    crawl__jset(o, "discoveredBy", ev);
    /* 7.3: annotation, the app's router or several states: high; one state,
     * or visited but folded into an equal state of another route: medium;
     * no graph: low */
    int named = rt->annot_states.n || rt->router_states.n;
    crawl__jstr(o, "confidence", conf(cs, !rt->states.n ? 1 : !rt->loaded ? 0 : named || rt->states.n > 1 ? 2 : 1));
    pk_jset_list(o, "entryActions", &rt->entry_actions, 0);
    if (rt->exit_signals.n) crawl__jset(o, "exitSignals", pk_strset_json_objects(&rt->exit_signals));
    cJSON *m = crawl__jx(cJSON_CreateObject());
    pk_jnum(m, "states", (double)rt->states.n);
    pk_jnum(m, "transitionsFrom", rt->explored);
    route_observed_meta(rt, m);
    pk_jset_list(m, "templates", &rt->templates, 0);
    pk_jset_list(m, "foldedInto", &rt->folded_into, 0);
    principals_meta(b, &rt->states, m);
    crawl__jset(o, "metadata", m);
    crawl__jpush(routes, o);
  }
  free(ids);
  return routes;
}

static cJSON *pk_out_scopes(pk *b, conf_sum *cs) {
  cJSON *arr = crawl__jx(cJSON_CreateArray());
  char **ids = pk_strset_sorted(&b->scope_ids, pk_cmp_nat);
  for (size_t i = 0; i < b->scope_ids.n; i++) {
    pk_scope *sc = pk_scope_by_id(b, ids[i]);
    cJSON *o = crawl__jx(cJSON_CreateObject());
    crawl__jstr(o, "scopeId", sc->id);
    crawl__jstr(o, "kind", sc->kind);
    pk_jset_list(o, "routeIds", &sc->routes, 0);
    crawl__jstr(o, "parentScopeId", sc->parent);
    if (sc->names.n) crawl__jset(o, "names", names_json(&sc->names));
    pk_jset_list(o, "stableIds", &sc->stable_ids, 0);
    cJSON *ev = crawl__jx(cJSON_CreateArray());
    char **st = pk_strset_sorted(&sc->states, pk_cmp_nat);
    pk_ev_push(ev, sc->has_stable ? "annotation" : "dom", st[0], NULL);
    free(st);
    ev_accessibility(b, ev, &sc->states);
    crawl__jset(o, "discoveredBy", ev);
    /* stableId: high; a named scope or a route/dialog/form landmark: medium; else low */
    int named = sc->names.n > 0;
    int landmark = !strcmp(sc->kind, "route") || !strcmp(sc->kind, "form") || !strcmp(sc->kind, "dialog") ||
                   !strcmp(sc->kind, "iframe-root");
    crawl__jstr(o, "confidence", conf(cs, sc->has_stable ? 2 : named || landmark ? 1 : 0));
    cJSON *m = crawl__jx(cJSON_CreateObject());
    pk_jnum(m, "occurrences", (double)sc->occurrences);
    pk_jnum(m, "states", (double)sc->states.n);
    crawl__jset(o, "metadata", m);
    crawl__jpush(arr, o);
  }
  free(ids);
  return arr;
}

/* Names: raw names, except that names differing only in digits or
 * whitespace (a counter, a clock) are published once, digits as "#". */
static cJSON *names_json(const strset *raw) {
  strset masks = {0}, out = {0};
  long *cnt = NULL;
  char **first = NULL;
  char **v = pk_strset_sorted(raw, pk_cmp_nat);
  for (size_t i = 0; i < raw->n; i++) {
    char *m = pk_norm(v[i], 0);
    int added;
    long k = pk_strset_put(&masks, m, &added);
    free(m);
    cnt = crawl__xrealloc(cnt, masks.cap * sizeof *cnt);
    first = crawl__xrealloc(first, masks.cap * sizeof *first);
    if (added) { cnt[k] = 0; first[k] = v[i]; }
    cnt[k]++;
  }
  for (size_t k = 0; k < masks.n; k++) pk_strset_add(&out, cnt[k] == 1 ? first[k] : masks.v[k]);
  cJSON *a = pk_strset_json(&out, PK_NAMES_MAX);
  pk_strset_free(&masks);
  pk_strset_free(&out);
  free(cnt);
  free(first);
  free(v);
  return a;
}

static cJSON *pk_park(const pk *b, cJSON *section);
static int cmp_affordance(const void *x, const void *y) {
  const char *a = *(const char *const *)x, *b = *(const char *const *)y;
  int ia = pk_index(pk_affordance_order, PK_COUNT(pk_affordance_order), a);
  int ib = pk_index(pk_affordance_order, PK_COUNT(pk_affordance_order), b);
  if (ia < 0) ia = 1000;
  if (ib < 0) ib = 1000;
  return ia != ib ? ia - ib : strcmp(a, b);
}

static cJSON *pk_out_elements(pk *b, conf_sum *cs) {
  cJSON *arr = crawl__jx(cJSON_CreateArray());
  /* order: stableId elements by stableId, then the rest by semanticKey */
  char **keys = pk_strset_sorted(&b->element_keys, pk_cmp_nat);
  for (size_t i = 0; i < b->element_keys.n; i++) {
    pk_element *el = &b->elements[pk_strset_find(&b->element_keys, keys[i])];
    cJSON *o = crawl__jx(cJSON_CreateObject());
    crawl__jstr(o, "stableId", el->stable_id);
    crawl__jstr(o, "semanticKey", el->semkey);
    pk_jset_list(o, "routes", &el->routes, 0);
    pk_jset_list(o, "scopes", &el->scopes, 0);
    crawl__jstr(o, "role", el->role);
    if (el->names.n) crawl__jset(o, "names", names_json(&el->names));
    pk_jset_list(o, "meanings", &el->meanings, 0);
    if (el->state_keys) {
      cJSON *sk = crawl__jx(cJSON_CreateArray());
      for (size_t k = 0; k < PK_COUNT(pk_state_keys); k++)
        if (el->state_keys >> k & 1u) crawl__jpush(sk, cJSON_CreateString(pk_state_keys[k]));
      crawl__jset(o, "stateKeys", sk);
    }
    if (el->affordances.n) {
      cJSON *af = crawl__jx(cJSON_CreateArray());
      char **v = pk_strset_sorted(&el->affordances, cmp_affordance);
      for (size_t k = 0; k < el->affordances.n; k++) crawl__jpush(af, cJSON_CreateString(v[k]));
      free(v);
      crawl__jset(o, "affordances", af);
    }
    pk_jset_list(o, "supportedActions", &el->actions, 0);
    int level = el->risk_annot > el->risk_policy ? el->risk_annot : el->risk_policy;
    if (level) {
      cJSON *r = crawl__jx(cJSON_CreateObject());
      crawl__jstr(r, "level", pk_risk_names[level]);
      pk_jset_list(r, "tags", &el->risk_tags, 0);
      crawl__jstr(r, "reason", el->risk_annot >= el->risk_policy ? "data-uiap-risk" : el->risk_reason);
      crawl__jset(o, "risk", r);
    }
    pk_jset_list(o, "dataClasses", &el->data_classes, 0);
    cJSON *ev = crawl__jx(cJSON_CreateArray());
    strset seen = {0};
    for (size_t k = 0; k < PK_NSOURCES; k++) {
      if (!el->src_state[k]) continue;
      char *pair = crawl__xprintf("%s\x1f%s", pk_source_map[k].evidence, el->src_state[k]);
      int added;
      pk_strset_put(&seen, pair, &added);
      free(pair);
      if (added) pk_ev_push(ev, pk_source_map[k].evidence, el->src_state[k], NULL);
    }
    pk_strset_free(&seen);
    if (!cJSON_GetArraySize(ev)) pk_ev_push(ev, "dom", el->states.v[0], NULL);
    pk_ev_push_set(ev, "transition", &el->transitions);
    ev_accessibility(b, ev, &el->states);
    crawl__jset(o, "discoveredBy", ev);
    int annotated = el->src_state[0] || el->src_state[1] || el->stable_id;
    int sem_kinds = 0;
    for (size_t k = 2; k + 1 < PK_NSOURCES; k++) sem_kinds += el->src_state[k] != NULL;
    /* 7.3: annotation or repeated successful use: high; heuristics only: low;
     * one successful use or several semantic indicators: medium */
    int c = annotated || el->acted_ok >= 2 ? 2 : el->inferred_only ? 0 : el->acted_ok || sem_kinds >= 2 ? 1 : 0;
    crawl__jstr(o, "confidence", conf(cs, c));
    /* never "verified": that is a reviewer's word (crawl_reviewed_apply) */
    crawl__jstr(o, "reviewState", el->inferred_only ? "needs_review" : "candidate");
    cJSON *m = crawl__jx(cJSON_CreateObject());
    pk_jnum(m, "occurrences", (double)el->occurrences);
    pk_jnum(m, "states", (double)el->states.n);
    if (el->acted) pk_jnum(m, "actedOn", el->acted);
    if (el->failures) pk_jnum(m, "failures", el->failures);
    principals_meta(b, &el->states, m);
    crawl__jset(o, "metadata", m);
    crawl__jpush(arr, pk_park(b, o));
  }
  free(keys);
  return arr;
}

/* Target patterns: primitives by role (plus stableId targets acted on);
 * domain actions by every element that carries them. */
static void action_patterns(cJSON *o, const pk_action *ac) {
  strset pats = {0};
  pk_strset_addall(&pats, &ac->patterns);
  if (ac->primitive)
    for (size_t k = 0; k < ac->roles.n; k++) {
      cJSON *p = crawl__jx(cJSON_CreateObject());
      crawl__jstr(p, "role", ac->roles.v[k]);
      char *t = crawl__jtext(p, 0);
      pk_strset_add(&pats, t);
      free(t);
      cJSON_Delete(p);
    }
  if (pats.n) crawl__jset(o, "targetPatterns", pk_strset_json_objects(&pats));
  pk_strset_free(&pats);
}

/* A primitive's arguments (pk_action_args). */
static void action_arguments(cJSON *o, const pk_action *ac) {
  for (size_t k = 0; k < PK_COUNT(pk_action_args); k++)
    if (!strcmp(pk_action_args[k].action, ac->id)) {
      cJSON *args = crawl__jx(cJSON_CreateArray()), *a = crawl__jx(cJSON_CreateObject());
      crawl__jstr(a, "name", pk_action_args[k].name);
      crawl__jstr(a, "type", pk_action_args[k].type);
      crawl__jset(a, "required", cJSON_CreateTrue());
      crawl__jpush(args, a);
      crawl__jset(o, "args", args);
    }
}

/* The most severe side effect class seen, or NULL. */
static const char *action_worst_class(const pk_action *ac) {
  const char *worst = NULL;
  for (size_t k = 0; k < ac->classes.n; k++)
    if (!worst || pk_se_rank(ac->classes.v[k]) > pk_se_rank(worst)) worst = ac->classes.v[k];
  return worst;
}

/* Risk level and *reason (static or owned by ac): a primitive by what the
 * gate did to its targets; a domain action by annotation, gate and the
 * worst side effect seen. */
static int action_risk_level(const pk_action *ac, const char *worst, const char **reason) {
  int level = RISK_NONE;
  *reason = NULL;
  if (ac->primitive) {
    if (ac->denied || ac->reviewed) {
      level = RISK_CONFIRM;
      *reason = "target-dependent: the safety gate held some targets back";
    } else if (ac->executed) level = RISK_SAFE;
    return level;
  }
  level = ac->risk_annot;
  if (level) *reason = "data-uiap-risk";
  int gate = ac->denied ? RISK_BLOCKED : ac->reviewed ? RISK_CONFIRM : RISK_NONE;
  if (gate > level) { level = gate; *reason = ac->gate_reason; }
  if (level < RISK_CONFIRM && worst && (pk_se_dangerous(worst) || !strcmp(worst, "unknown"))) {
    level = RISK_CONFIRM;
    *reason = "side effect";
  }
  if (level == RISK_NONE && ac->executed) level = RISK_SAFE;
  return level;
}

static void action_risk(cJSON *o, const pk_action *ac, const char *worst) {
  const char *reason;
  int level = action_risk_level(ac, worst, &reason);
  if (!level) return;
  strset tags = {0};
  for (size_t k = 0; k < ac->classes.n; k++)
    if (pk_se_dangerous(ac->classes.v[k])) pk_strset_add(&tags, ac->classes.v[k]);
  cJSON *r = crawl__jx(cJSON_CreateObject());
  crawl__jstr(r, "level", pk_risk_names[level]);
  pk_jset_list(r, "tags", &tags, 0);
  crawl__jstr(r, "reason", reason);
  crawl__jset(o, "risk", r);
  pk_strset_free(&tags);
}

static cJSON *action_evidence(const pk_action *ac) {
  cJSON *ev = crawl__jx(cJSON_CreateArray());
  if (ac->states.n) {
    char **st = pk_strset_sorted(&ac->states, pk_cmp_nat);
    pk_ev_push(ev, ac->annotated ? "annotation" : "dom", st[0], NULL);
    free(st);
  }
  pk_ev_push_set(ev, "transition", &ac->transitions);
  if (!cJSON_GetArraySize(ev)) pk_ev_push(ev, "inferred", ac->id, "named only by a safety decision or a failure");
  return ev;
}

/* The crawler's strongest word is "candidate" (with its confidence);
 * "verified" comes from a reviewer only (crawl_reviewed_apply). */
static const char *action_review_state(const pk_action *ac) {
  if (!ac->primitive) return ac->denied ? "unsafe" : "candidate";
  return ac->denied && !ac->executed ? "unsafe" : "candidate";
}

static cJSON *action_metadata(const pk_action *ac) {
  cJSON *m = crawl__jx(cJSON_CreateObject());
  pk_jnum(m, "executed", ac->executed);
  pk_jnum(m, "denied", ac->denied);
  pk_jnum(m, "reviewed", ac->reviewed);
  pk_jnum(m, "skipped", ac->skipped);
  pk_jnum(m, "failed", ac->failed);
  if (ac->classes.n) {
    cJSON *cl = crawl__jx(cJSON_CreateArray());
    for (size_t k = 0; k < PK_COUNT(pk_side_effects); k++)
      if (pk_strset_find(&ac->classes, pk_side_effects[k].name) >= 0) crawl__jpush(cl, cJSON_CreateString(pk_side_effects[k].name));
    crawl__jset(m, "sideEffectClasses", cl);
  }
  return m;
}

static cJSON *out_action(const pk *b, const pk_action *ac, conf_sum *cs) {
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "id", ac->id);
  crawl__jstr(o, "kind", ac->primitive ? "primitive" : "domain");
  action_patterns(o, ac);
  pk_jset_list(o, "routes", &ac->routes, 0);
  pk_jset_list(o, "scopes", &ac->scopes, 0);
  action_arguments(o, ac);
  /* side effect: the most severe seen for a domain action; for a primitive
   * only when every use agreed (its effect depends on the target) */
  const char *worst = action_worst_class(ac);
  action_risk(o, ac, worst);
  crawl__jstr(o, "sideEffectClass", ac->primitive ? (ac->classes.n == 1 ? worst : NULL) : worst);
  if (ac->signals.n) crawl__jset(o, "successSignals", pk_strset_json_objects(&ac->signals));
  crawl__jset(o, "discoveredBy", action_evidence(ac));
  /* 7.3: annotation or repeated use with signals: high; one use or native
   * semantics: medium; otherwise low */
  int c = ac->annotated || ac->executed_signal >= 2 ? 2 : ac->executed || ac->native ? 1 : 0;
  crawl__jstr(o, "confidence", conf(cs, c));
  crawl__jstr(o, "reviewState", action_review_state(ac));
  cJSON *am = action_metadata(ac);
  principals_meta(b, &ac->states, am);
  crawl__jset(o, "metadata", am);
  return o;
}

static cJSON *pk_out_actions(pk *b, conf_sum *cs) {
  cJSON *arr = crawl__jx(cJSON_CreateArray());
  char **ids = pk_strset_sorted(&b->action_ids, pk_cmp_nat);
  for (size_t i = 0; i < b->action_ids.n; i++)
    crawl__jpush(arr, out_action(b, &b->actions[pk_strset_find(&b->action_ids, ids[i])], cs));
  free(ids);
  return arr;
}

static cJSON *map_scope_list(pk *b, const pk_state *st, const cJSON *list, int all_if_missing) {
  strset out = {0};
  const cJSON *x;
  if (cJSON_IsArray(list)) {
    cJSON_ArrayForEach(x, list) {
      if (!cJSON_IsString(x)) continue;
      const char *c = pk_state_scope(b, st, x->valuestring);
      pk_strset_add(&out, c ? c : x->valuestring);
    }
  } else if (all_if_missing)
    for (size_t k = 0; k < st->scope_local.n; k++) pk_strset_add(&out, b->scopes[st->scope_idx[k]].id);
  cJSON *a = pk_strset_json(&out, 0);
  pk_strset_free(&out);
  return a;
}

typedef struct edge_ord { const char *id; size_t ref; } edge_ord;
static int cmp_edge(const void *x, const void *y) {
  const edge_ord *a = x, *b = y;
  int c = crawl__natcmp(a->id, b->id);
  return c ? c : (a->ref > b->ref) - (a->ref < b->ref);
}

static cJSON *out_state(pk *b, const pk_state *st) {
  const cJSON *l = st->line;
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "stateId", st->id);
  crawl__jstr(o, "fingerprint", st->fingerprint ? st->fingerprint : "");
  crawl__jstr(o, "routeId", st->route);
  crawl__jset(o, "scopeIds", map_scope_list(b, st, crawl__get(l, "scopeIds"), 1));
  if (cJSON_IsArray(crawl__get(l, "modalStack"))) crawl__jset(o, "modalStack", map_scope_list(b, st, crawl__get(l, "modalStack"), 0));
  crawl__jstr(o, "pageGraphRef", crawl__str(l, "pageGraphRef"));
  crawl__jstr(o, "screenshotRef", crawl__str(l, "screenshotRef"));
  cJSON *ev = crawl__jx(cJSON_CreateArray());
  pk_ev_push(ev, "dom", st->id, NULL);
  if (crawl__str(l, "viaTransitionId")) pk_ev_push(ev, "transition", crawl__str(l, "viaTransitionId"), NULL);
  pk_ev_state_files(ev, st);
  crawl__jset(o, "discoveredBy", ev);
  /* reached more than once: high; once: medium; no readable graph: low */
  int seedy = !crawl__str(l, "parentStateId");
  int reached = st->reached + seedy;
  crawl__jstr(o, "confidence", !st->loaded ? "low" : reached >= 2 ? "high" : "medium");
  cJSON *m = crawl__jx(cJSON_CreateObject());
  crawl__jstr(m, "url", crawl__str(l, "url"));
  crawl__jstr(m, "title", crawl__str(l, "title"));
  if (cJSON_IsNumber(crawl__get(l, "depth"))) pk_jnum(m, "depth", crawl__get(l, "depth")->valuedouble);
  if (cJSON_IsNumber(crawl__get(l, "seed"))) pk_jnum(m, "seed", crawl__get(l, "seed")->valuedouble);
  crawl__jstr(m, "parentStateId", crawl__str(l, "parentStateId"));
  pk_jnum(m, "selfLoops", st->self_loops);
  crawl__jstr(m, "principal", crawl__str(crawl__get(l, "metadata"), "principal")); /* docs/principals.md */
  crawl__jset(o, "metadata", m);
  return o;
}

/* The transition records' edges: each one's identity key (from, action,
 * target, to, signals) counted in sig/reps, and the published ones (not
 * self-loops) in transitionId order. */
typedef struct edge_set {
  strset sig;
  long *reps;                   /* per sig key: how many records share it */
  char **keys;                  /* per record (b->refs): its key, or NULL */
  edge_ord *order;              /* published edges */
  size_t ne;
} edge_set;

/* A transition record's identity key (caller frees). */
static char *edge_key(pk *b, const pk_ref *rf) {
  const cJSON *j = rf->line;
  pk_state *from = pk_state_of(b, crawl__str(j, "fromStateId")), *to = pk_state_of(b, crawl__str(j, "toStateId"));
  char *t = pk_canonical_target(rf);
  size_t len = 1;
  char *sg = crawl__xstrdup("");
  const cJSON *s;
  cJSON_ArrayForEach(s, crawl__get(j, "observedSignals")) {
    char *c = pk_canonical_signal(b, s, to, from);
    if (!c) continue;
    len += strlen(c) + 1;
    sg = crawl__xrealloc(sg, len);
    strcat(strcat(sg, c), "\x1e");
    free(c);
  }
  char *key = crawl__xprintf("%s\x1f%s\x1f%s\x1f%s\x1f%s", crawl__str(j, "fromStateId"), crawl__str(j, "viaActionId"),
                             rf->element >= 0 ? b->elements[rf->element].key : t ? t : "", crawl__str(j, "toStateId"), sg);
  free(t);
  free(sg);
  return key;
}

static void edge_set_build(pk *b, edge_set *es) {
  es->keys = crawl__xcalloc(b->nrefs, sizeof *es->keys);
  es->order = crawl__xcalloc(b->nrefs, sizeof *es->order);
  for (size_t i = 0; i < b->nrefs; i++) {
    pk_ref *rf = &b->refs[i];
    if (strcmp(rf->type, "transition")) continue;
    const cJSON *j = rf->line;
    es->keys[i] = edge_key(b, rf);
    long r = PK_ENTRY(es->sig, es->reps, es->keys[i], NULL);
    es->reps[r]++;
    /* edges in transitionId order; self-loops are counted, not published */
    if (cJSON_IsTrue(crawl__get(j, "selfLoop")) || !strcmp(crawl__str(j, "fromStateId"), crawl__str(j, "toStateId"))) continue;
    es->order[es->ne].id = crawl__str(j, "transitionId");
    es->order[es->ne++].ref = i;
  }
  qsort(es->order, es->ne, sizeof *es->order, cmp_edge);
}

static void edge_set_free(edge_set *es, size_t nrefs) {
  for (size_t i = 0; i < nrefs; i++) free(es->keys[i]);
  free(es->keys);
  free(es->order);
  free(es->reps);
  pk_strset_free(&es->sig);
}

/* Published edge of transition record rf, repeated `reps` times. */
static cJSON *out_edge(pk *b, const pk_ref *rf, long reps) {
  const cJSON *j = rf->line;
  const pk_state *from = pk_state_of(b, crawl__str(j, "fromStateId")), *to = pk_state_of(b, crawl__str(j, "toStateId"));
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "transitionId", crawl__str(j, "transitionId"));
  crawl__jstr(o, "fromStateId", crawl__str(j, "fromStateId"));
  crawl__jstr(o, "toStateId", crawl__str(j, "toStateId"));
  crawl__jstr(o, "viaActionId", crawl__str(j, "viaActionId"));
  char *t = pk_canonical_target(rf);
  if (t) crawl__jset(o, "target", cJSON_Parse(t));
  free(t);
  if (cJSON_IsObject(crawl__get(j, "args"))) crawl__jset(o, "args", cJSON_Duplicate(crawl__get(j, "args"), 1));
  const char *se = crawl__str(j, "sideEffectClass");
  if (pk_se_rank(se) >= 0) crawl__jstr(o, "sideEffectClass", se);
  cJSON *sigs = crawl__jx(cJSON_CreateArray());
  const cJSON *s;
  int nsig = 0;
  cJSON_ArrayForEach(s, crawl__get(j, "observedSignals")) {
    char *c = pk_canonical_signal(b, s, to, from);
    if (c) { crawl__jpush(sigs, cJSON_Parse(c)); nsig++; }
    free(c);
  }
  crawl__jset(o, "observedSignals", sigs);
  /* 7.3: repeated with the same signals: high; once: medium; an end we never saw: low */
  crawl__jstr(o, "confidence", !from || !to ? "low" : reps >= 2 ? "high" : "medium");
  cJSON *ev = crawl__jx(cJSON_CreateArray());
  pk_ev_push(ev, "transition", crawl__str(j, "transitionId"), NULL);
  if (nsig) pk_ev_push(ev, "signal", crawl__str(j, "transitionId"), NULL);
  crawl__jset(o, "discoveredBy", ev);
  cJSON *m = crawl__jx(cJSON_CreateObject());
  if (cJSON_IsObject(crawl__get(j, "decision"))) crawl__jset(m, "decision", cJSON_Duplicate(crawl__get(j, "decision"), 1));
  if (cJSON_IsNumber(crawl__get(j, "durationMs"))) pk_jnum(m, "durationMs", crawl__get(j, "durationMs")->valuedouble);
  if (cJSON_IsNumber(crawl__get(j, "blockedRequests"))) pk_jnum(m, "blockedRequests", crawl__get(j, "blockedRequests")->valuedouble);
  crawl__jset(o, "metadata", m);
  return o;
}

static cJSON *pk_out_graph(pk *b) {
  cJSON *tg = crawl__jx(cJSON_CreateObject()), *states = crawl__jx(cJSON_CreateArray()), *edges = crawl__jx(cJSON_CreateArray());
  char **ids = pk_strset_sorted(&b->state_ids, pk_cmp_nat);
  for (size_t i = 0; i < b->state_ids.n; i++)
    crawl__jpush(states, pk_park(b, out_state(b, &b->states[pk_strset_find(&b->state_ids, ids[i])])));
  free(ids);
  edge_set es = {0};
  edge_set_build(b, &es);
  for (size_t x = 0; x < es.ne; x++) {
    size_t ri = es.order[x].ref;
    crawl__jpush(edges, pk_park(b, out_edge(b, &b->refs[ri], es.reps[pk_strset_find(&es.sig, es.keys[ri])])));
  }
  edge_set_free(&es, b->nrefs);
  crawl__jset(tg, "states", states);
  crawl__jset(tg, "edges", edges);
  return tg;
}

static cJSON *pk_out_review(pk *b) {
  cJSON *q = crawl__jx(cJSON_CreateObject()), *items = crawl__jx(cJSON_CreateArray());
  pk_item **v = crawl__xcalloc(b->item_keys.n, sizeof *v);
  for (size_t i = 0; i < b->item_keys.n; i++) v[i] = &b->items[i];
  qsort(v, b->item_keys.n, sizeof *v, pk_cmp_item);
  strset ids = {0};
  for (size_t i = 0; i < b->item_keys.n; i++) {
    pk_item *it = v[i];
    /* a stable id: the hash of kind and key, so it survives reordering */
    char *id = crawl__xprintf("rev_%012llx", (unsigned long long)(crawl__hash(it->key) & 0xffffffffffffull));
    int added;
    pk_strset_put(&ids, id, &added);
    for (int k = 2; !added; k++) {
      char *alt = crawl__xprintf("rev_%012llx_%d", (unsigned long long)(crawl__hash(it->key) & 0xffffffffffffull), k);
      pk_strset_put(&ids, alt, &added);
      free(id);
      id = alt;
    }
    cJSON *o = crawl__jx(cJSON_CreateObject());
    crawl__jstr(o, "id", id);
    free(id);
    crawl__jstr(o, "severity", pk_severities[it->severity]);
    crawl__jstr(o, "kind", it->kind);
    crawl__jstr(o, "routeId", it->route);
    crawl__jstr(o, "scopeId", it->scope);
    crawl__jstr(o, "stableId", it->stable);
    crawl__jstr(o, "description", it->desc ? it->desc : it->kind);
    cJSON *ev = crawl__jx(cJSON_CreateArray());
    pk_ev_push_set(ev, "dom", &it->ev_states);
    pk_ev_push_set(ev, "transition", &it->ev_transitions);
    crawl__jset(o, "evidence", ev);
    crawl__jstr(o, "remediation", it->remedy);
    crawl__jpush(items, o);
  }
  pk_strset_free(&ids);
  free(v);
  crawl__jset(q, "items", items);
  return q;
}

static int cmp_entry(const void *x, const void *y) {
  const cJSON *a = *(const cJSON *const *)x, *b = *(const cJSON *const *)y;
  return crawl__natcmp(crawl__str(a, "refId"), crawl__str(b, "refId"));
}

/* Where each refId lives: a state's page graph, or a journal line. */
static cJSON *pk_out_evidence(pk *b) {
  cJSON *idx = crawl__jx(cJSON_CreateObject()), *entries = crawl__jx(cJSON_CreateArray());
  size_t n = 0, cap = 3 * b->state_ids.n + b->transition_ids.n;
  cJSON **v = crawl__xcalloc(cap, sizeof *v);
  for (size_t i = 0; i < b->state_ids.n; i++) {
    const pk_state *st = &b->states[i];
    cJSON *o = crawl__jx(cJSON_CreateObject());
    crawl__jstr(o, "refId", st->id);
    crawl__jstr(o, "source", "dom");
    crawl__jstr(o, "path", crawl__str(st->line, "pageGraphRef"));
    crawl__jstr(o, "stateId", st->id);
    if (!st->loaded) crawl__jstr(o, "note", "page graph missing or unreadable");
    v[n++] = o;
  }
  for (size_t i = 0; i < b->nrefs && n < cap; i++) {
    if (strcmp(b->refs[i].type, "transition")) continue;
    const char *tid = crawl__str(b->refs[i].line, "transitionId");
    if (pk_strset_find(&b->state_ids, tid) >= 0) continue; /* a state of that name wins */
    cJSON *o = crawl__jx(cJSON_CreateObject());
    crawl__jstr(o, "refId", tid);
    crawl__jstr(o, "source", "transition");
    crawl__jstr(o, "path", "journal.jsonl");
    crawl__jstr(o, "stateId", crawl__str(b->refs[i].line, "fromStateId"));
    v[n++] = o;
  }
  n = pk_evidence_files(b, v, n);
  qsort(v, n, sizeof *v, cmp_entry);
  for (size_t i = 0; i < n; i++) crawl__jpush(entries, v[i]);
  free(v);
  crawl__jset(idx, "entries", entries);
  return idx;
}

static cJSON *pk_out_run(pk *b, char **stopped_by) {
  const cJSON *run = b->run;
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "runId", crawl__str(run, "runId") ? crawl__str(run, "runId") : "unknown");
  crawl__jstr(o, "startedAt", crawl__str(run, "startedAt") ? crawl__str(run, "startedAt") : crawl__str(run, "at") ? crawl__str(run, "at") : "");
  const char *status;
  *stopped_by = NULL;
  if (b->end) {
    status = crawl__str(b->end, "status");
    if (!PK_IN(pk_run_statuses, status)) status = "failed";
    crawl__jstr(o, "finishedAt", crawl__str(b->end, "finishedAt") ? crawl__str(b->end, "finishedAt") : crawl__str(b->end, "at"));
    if (crawl__str(b->end, "stoppedBy")) *stopped_by = crawl__xstrdup(crawl__str(b->end, "stoppedBy"));
  } else {
    status = "failed";
    const char *last = b->last_status ? crawl__str(b->last_status, "status") : NULL;
    char *n = crawl__xprintf("journal ends without an end record (last status: %s)", last ? last : "none");
    pk_note(b, n);
    free(n);
    *stopped_by = crawl__xstrdup("interrupted");
  }
  if (!*stopped_by && b->last_budget) {
    const cJSON *bu = crawl__get(b->last_budget, "budget"), *li = crawl__get(b->last_budget, "limit");
    *stopped_by = crawl__xstrdup(cJSON_IsString(bu) ? bu->valuestring : cJSON_IsString(li) ? li->valuestring : "budget");
  }
  crawl__jstr(o, "status", status);
  const cJSON *env = crawl__get(run, "environment");
  crawl__jstr(o, "environmentId", crawl__str(env, "environmentId") ? crawl__str(env, "environmentId") : "unknown");
  crawl__jstr(o, "profile", "web@0.1");
  if (cJSON_IsArray(crawl__get(run, "seeds"))) crawl__jset(o, "seeds", cJSON_Duplicate(crawl__get(run, "seeds"), 1));
  if (b->malformed) {
    char *n = crawl__xprintf("journal: %ld malformed line%s skipped", b->malformed, b->malformed == 1 ? "" : "s");
    pk_note(b, n);
    free(n);
  }
  if (b->torn) pk_note(b, "journal: the last line was cut off (ignored)");
  if (b->nnotes) {
    cJSON *notes = crawl__jx(cJSON_CreateArray());
    for (size_t i = 0; i < b->nnotes; i++) crawl__jpush(notes, cJSON_CreateString(b->note_v[i]));
    crawl__jset(o, "notes", notes);
  }
  return o;
}

static cJSON *pk_out_environment(pk *b) {
  const cJSON *env = crawl__get(b->run, "environment");
  cJSON *o = cJSON_IsObject(env) ? crawl__jx(cJSON_Duplicate(env, 1)) : crawl__jx(cJSON_CreateObject());
  if (!crawl__str(o, "environmentId")) {
    cJSON_DeleteItemFromObjectCaseSensitive(o, "environmentId");
    crawl__jstr(o, "environmentId", "unknown");
  }
  if (!crawl__str(o, "baseUrl")) {
    cJSON_DeleteItemFromObjectCaseSensitive(o, "baseUrl");
    const cJSON *s0 = cJSON_GetArrayItem(crawl__get(b->run, "seeds"), 0);
    crawl__jstr(o, "baseUrl", crawl__str(s0, "url") ? crawl__str(s0, "url") : "");
  }
  return o;
}

/* ---- entry points --------------------------------------------------------------------- */
static void pk_free(pk *b) {
  crawl__jarena_release(&b->jar);
  for (size_t i = 0; i < b->nnotes; i++) free(b->note_v[i]);
  free(b->note_v);
  free(b->seed_lines);
  free(b->reviews);
  for (size_t i = 0; i < b->state_ids.n; i++) {
    pk_strset_free(&b->states[i].scope_local);
    free(b->states[i].scope_idx);
  }
  free(b->states);
  pk_strset_free(&b->state_ids);
  for (size_t i = 0; i < b->route_ids.n; i++) {
    pk_route *r = &b->routes[i];
    strset *sets[] = {&r->urls, &r->titles, &r->scopes, &r->states, &r->entry_actions, &r->entry_tr,
                      &r->exit_signals, &r->annot_states, &r->opaque_origins, &r->observed, &r->templates,
                      &r->folded_into, &r->landed_tr, &r->router_states};
    for (size_t k = 0; k < PK_COUNT(sets); k++) pk_strset_free(sets[k]);
  }
  free(b->routes);
  pk_strset_free(&b->route_ids);
  for (size_t i = 0; i < b->scope_keys.n; i++) {
    pk_scope *s = &b->scopes[i];
    free(s->id);
    free(s->kind);
    free(s->parent);
    free(s->stable);
    pk_strset_free(&s->routes);
    pk_strset_free(&s->names);
    pk_strset_free(&s->stable_ids);
    pk_strset_free(&s->states);
  }
  free(b->scopes);
  pk_strset_free(&b->scope_keys);
  pk_strset_free(&b->scope_ids);
  for (size_t i = 0; i < b->element_keys.n; i++) {
    pk_element *e = &b->elements[i];
    free(e->stable_id);
    free(e->semkey);
    free(e->role);
    free(e->risk_reason);
    for (size_t k = 0; k < PK_NSOURCES; k++) free(e->src_state[k]);
    strset *sets[] = {&e->routes, &e->scopes, &e->names, &e->meanings, &e->affordances, &e->actions,
                      &e->app_actions, &e->states, &e->transitions, &e->risk_tags, &e->data_classes};
    for (size_t k = 0; k < PK_COUNT(sets); k++) pk_strset_free(sets[k]);
  }
  free(b->elements);
  pk_strset_free(&b->element_keys);
  for (size_t i = 0; i < b->action_ids.n; i++) {
    pk_action *a = &b->actions[i];
    free(a->gate_reason);
    strset *sets[] = {&a->roles, &a->patterns, &a->routes, &a->scopes, &a->signals, &a->transitions,
                      &a->classes, &a->states};
    for (size_t k = 0; k < PK_COUNT(sets); k++) pk_strset_free(sets[k]);
  }
  free(b->actions);
  pk_strset_free(&b->action_ids);
  pk_strset_free(&b->transition_ids);
  pk_strset_free(&b->gated_states);
  for (size_t i = 0; i < b->nrefs; i++) {
    free(b->refs[i].scope);
    free(b->refs[i].semkey);
    free(b->refs[i].order);
  }
  free(b->refs);
  for (size_t i = 0; i < b->item_keys.n; i++) {
    pk_item *it = &b->items[i];
    free(it->route);
    free(it->scope);
    free(it->stable);
    free(it->desc);
    free(it->remedy);
    pk_strset_free(&it->ev_states);
    pk_strset_free(&it->ev_transitions);
  }
  free(b->items);
  pk_strset_free(&b->item_keys);
}

/* Every state folded in natural id order, each resolving the records that
 * point into it (records of no known state resolve against nothing), then
 * the records put in canonical order. */
static void pk_fold_states(pk *b) {
  size_t ns = b->state_ids.n;
  long **by_state = crawl__xcalloc(ns, sizeof *by_state);
  size_t *nby = crawl__xcalloc(ns, sizeof *nby), *capby = crawl__xcalloc(ns, sizeof *capby);
  for (size_t i = 0; i < b->nrefs; i++) {
    const cJSON *j = b->refs[i].line;
    const char *sid = !strcmp(b->refs[i].type, "transition") ? crawl__str(j, "fromStateId") : crawl__str(j, "stateId");
    long s = sid ? pk_strset_find(&b->state_ids, sid) : -1;
    b->refs[i].state = s;
    if (s < 0) {
      pk_resolve_ref(b, &b->refs[i], NULL, NULL, NULL, NULL, NULL, NULL);
      continue;
    }
    PK_GROW(by_state[s], nby[s], capby[s]);
    by_state[s][nby[s]++] = (long)i;
  }
  char **order = pk_strset_sorted(&b->state_ids, pk_cmp_nat);
  long *rank = crawl__xcalloc(ns, sizeof *rank);
  for (size_t i = 0; i < ns; i++) {
    size_t si = (size_t)pk_strset_find(&b->state_ids, order[i]);
    rank[si] = (long)i;
    pk_state_fold(b, si, by_state, nby);
  }
  free(order);
  pk_refs_sort(b, rank);
  free(rank);
  for (size_t i = 0; i < ns; i++) free(by_state[i]);
  free(by_state);
  free(nby);
  free(capby);
}

/* coverage (takes stopped_by). */
static cJSON *out_coverage(pk *b, const conf_sum *cs, char *stopped_by) {
  cJSON *cov = crawl__jx(cJSON_CreateObject());
  int nseeds = cJSON_GetArraySize(crawl__get(b->run, "seeds")), visited = 0;
  for (int s = 0; s < nseeds; s++) visited += pk_seed_visited(b, s); /* workflow seeds: workflow.c */
  pk_jnum(cov, "seedsTotal", nseeds);
  pk_jnum(cov, "seedsVisited", visited);
  pk_jnum(cov, "routesDiscovered", (double)b->route_ids.n);
  pk_jnum(cov, "scopesDiscovered", (double)b->scope_keys.n);
  pk_jnum(cov, "elementsDiscovered", (double)b->element_keys.n);
  pk_jnum(cov, "actionsDiscovered", (double)b->action_ids.n);
  pk_jnum(cov, "workflowCandidatesDiscovered", 0);
  pk_jnum(cov, "opaqueRegions", b->opaque_regions);
  pk_jnum(cov, "unresolvedTransitions", (double)(b->nfailures + b->nreplays));
  pk_jnum(cov, "reviewItems", (double)b->item_keys.n);
  cJSON *csum = crawl__jx(cJSON_CreateObject());
  pk_jnum(csum, "high", (double)cs->high);
  pk_jnum(csum, "medium", (double)cs->medium);
  pk_jnum(csum, "low", (double)cs->low);
  crawl__jset(cov, "confidenceSummary", csum);
  crawl__jstr(cov, "stoppedBy", stopped_by);
  pk_jnum(cov, "statesVisited", (double)b->state_ids.n);
  pk_jnum(cov, "transitionsRecorded", (double)b->transition_ids.n);
  pk_jnum(cov, "selfLoops", (double)b->nself);
  free(stopped_by);
  return cov;
}

/* ---- what the gate cost -------------------------------------------------------- */
/* metadata.gate: the actions the safety gate allowed, skipped, held for
 * review and denied (each counted once per state); those it did not allow
 * by effect and side-effect class ({"deny": {"destructive": 9}}), and by
 * effect and rule, most first. */
typedef struct { const char *effect, *rule; long n; } gate_rule;

static int cmp_gate_rule(const void *x, const void *y) {
  const gate_rule *a = x, *b = y;
  int e = strcmp(a->effect, b->effect);
  if (e) return e;
  if (a->n != b->n) return a->n < b->n ? 1 : -1;
  return strcmp(a->rule, b->rule);
}

static cJSON *out_gate_rules(pk *b, cJSON *by_class) {
  strset keys = {0};
  gate_rule *v = NULL;
  for (size_t i = 0; i < b->nrefs; i++) {
    const cJSON *j = b->refs[i].line;
    const char *effect = crawl__str(j, "effect"), *rule = crawl__str(j, "rule"), *se = crawl__str(j, "sideEffectClass");
    if (strcmp(b->refs[i].type, "decision") || !effect ||
        pk_index((const char *const[]){"skip", "review", "deny"}, 3, effect) < 0) continue;
    if (pk_se_rank(se) < 0) se = NULL;
    char *key = crawl__xprintf("%s\x1f%s", effect, rule ? rule : "?");
    int added;
    long k = PK_ENTRY(keys, v, key, &added);
    free(key);
    if (added) v[k] = (gate_rule){effect, rule ? rule : "?", 0};
    v[k].n++;
    cJSON *per = cJSON_GetObjectItemCaseSensitive(by_class, effect);
    if (!per) crawl__jset(by_class, effect, per = crawl__jx(cJSON_CreateObject()));
    cJSON *c = cJSON_GetObjectItemCaseSensitive(per, se ? se : "unknown");
    if (c) cJSON_SetNumberValue(c, c->valuedouble + 1);
    else pk_jnum(per, se ? se : "unknown", 1);
  }
  if (keys.n) qsort(v, keys.n, sizeof *v, cmp_gate_rule);
  cJSON *a = crawl__jx(cJSON_CreateArray());
  for (size_t k = 0; k < keys.n; k++) {
    cJSON *o = crawl__jx(cJSON_CreateObject());
    crawl__jstr(o, "effect", v[k].effect);
    crawl__jstr(o, "rule", v[k].rule);
    pk_jnum(o, "count", (double)v[k].n);
    crawl__jpush(a, o);
  }
  free(v);
  pk_strset_free(&keys);
  return a;
}

static cJSON *out_gate(pk *b) {
  cJSON *g = crawl__jx(cJSON_CreateObject());
  pk_jnum(g, "allow", (double)b->nallowed);
  pk_jnum(g, "skip", (double)b->ndecisions[1]);
  pk_jnum(g, "review", (double)b->ndecisions[2]);
  pk_jnum(g, "deny", (double)b->ndecisions[3]);
  cJSON *by_class = crawl__jx(cJSON_CreateObject());
  cJSON *by_rule = out_gate_rules(b, by_class);
  crawl__jset(g, "byClass", by_class);
  crawl__jset(g, "byRule", by_rule);
  return g;
}

static cJSON *out_metadata(pk *b) {
  cJSON *m = crawl__jx(cJSON_CreateObject());
  crawl__jstr(m, "generator", "uiap-crawl");
  const cJSON *jv = crawl__get(b->run, "journalVersion");
  if (cJSON_IsNumber(jv)) pk_jnum(m, "journalVersion", jv->valuedouble);
  crawl__jstr(m, "tool", crawl__str(b->run, "tool"));
  pk_jnum(m, "journalRecords", (double)b->nlines);
  pk_jnum(m, "malformedLines", (double)b->malformed);
  crawl__jset(m, "tornLastLine", cJSON_CreateBool(b->torn));
  cJSON *dec = crawl__jx(cJSON_CreateObject());
  pk_jnum(dec, "skip", (double)b->ndecisions[1]);
  pk_jnum(dec, "review", (double)b->ndecisions[2]);
  pk_jnum(dec, "deny", (double)b->ndecisions[3]);
  crawl__jset(m, "decisions", dec);
  crawl__jset(m, "gate", out_gate(b));
  pk_jnum(m, "failures", (double)b->nfailures);
  return m;
}

/* A catalog: {"<key>": array}. */
static cJSON *out_catalog(const char *key, cJSON *array) {
  cJSON *c = crawl__jx(cJSON_CreateObject());
  crawl__jset(c, key, array);
  return c;
}

/* When the package is only written (crawl_package_write), a section or an
 * entry of one is printed as soon as it is built and kept as its text, a
 * cJSON raw item that prints verbatim: the biggest sections never sit as
 * trees beside the model. Only what nothing reads afterwards is parked; the
 * workflow finder reads transitionGraph's states and edges back from their
 * text (workflow.c wf_item) and scopeCatalog, actionCatalog, reviewQueue
 * and coverage as trees. The same bytes come out: the growth test compares
 * what report wrote with crawl_package_build's package. */
static cJSON *pk_park(const pk *b, cJSON *section) {
  if (!b->park) return section;
  char *text = crawl__jtext(section, 0);
  cJSON_Delete(section);
  cJSON *raw = crawl__jx(cJSON_CreateRaw(""));
  cJSON_free(raw->valuestring);
  raw->valuestring = text; /* both from cJSON's allocator */
  return raw;
}

/* The package, in the spec's member order (workflow candidates are added
 * afterwards by crawl_workflows_add). */
static cJSON *pk_emit(pk *b) {
  cJSON *p = crawl__jx(cJSON_CreateObject());
  char *stopped_by = NULL;
  crawl__jstr(p, "modelVersion", "0.1");
  crawl__jstr(p, "spec", "uiap.discovery");
  crawl__jset(p, "run", pk_out_run(b, &stopped_by));
  crawl__jset(p, "environment", pk_out_environment(b));
  conf_sum cs = {0};
  crawl__jset(p, "routeCatalog", pk_park(b, out_catalog("routes", pk_out_routes(b, &cs))));
  crawl__jset(p, "scopeCatalog", out_catalog("scopes", pk_out_scopes(b, &cs)));
  crawl__jset(p, "elementCatalog", out_catalog("elements", pk_out_elements(b, &cs))); /* parked one by one */
  crawl__jset(p, "actionCatalog", out_catalog("actions", pk_out_actions(b, &cs)));
  crawl__jset(p, "transitionGraph", pk_out_graph(b));
  crawl__jset(p, "reviewQueue", pk_out_review(b));
  crawl__jset(p, "coverage", out_coverage(b, &cs, stopped_by));
  crawl__jset(p, "evidenceIndex", pk_park(b, pk_out_evidence(b)));
  crawl__jset(p, "metadata", out_metadata(b));
  return p;
}

static crawl_code package_build(const char *dir, cJSON **package, char *err, size_t errlen, int park) {
  char dummy[8];
  if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
  err[0] = 0;
  if (package) *package = NULL;
  if (!dir || !package) {
    snprintf(err, errlen, "crawl_package_build: dir and package are required");
    return CRAWL_ARG;
  }
  /* a reviewer's decisions edit the built catalogs (crawl_reviewed_apply):
   * nothing may be parked as text then */
  char rv[4200];
  snprintf(rv, sizeof rv, "%s/reviewed.json", dir);
  if (park && access(rv, F_OK) == 0) park = 0;
  pk b = {.dir = dir, .err = err, .errlen = errlen, .park = park};
  if (pk_journal_read(&b) != 0) { pk_free(&b); pk_pool_release(); return CRAWL_IO; }
  if (!b.run) {
    snprintf(err, errlen, "%s/journal.jsonl has no run record", dir);
    pk_free(&b);
    pk_pool_release();
    return CRAWL_ARG;
  }
  pk_fold_states(&b);
  pk_aggregate(&b);
  pk_review_derive(&b);
  cJSON *p = pk_emit(&b);
  pk_free(&b); /* p holds copies: the journal's records go before workflow.c reads it again */
  pk_pool_release();
  /* workflow candidates (6.7, 11.7): placed before reviewQueue, with their
   * review items and coverage.workflowCandidatesDiscovered (workflow.c) */
  crawl_workflows_add(p, dir);
  /* "verified" only from a reviewer's decisions (reviewed.c) */
  crawl_reviewed_apply(p, dir);
  *package = p;
  return CRAWL_OK;
}

crawl_code crawl_package_build(const char *dir, cJSON **package, char *err, size_t errlen) {
  return package_build(dir, package, err, errlen, 0);
}

crawl_code crawl_package_write(const char *dir, char *err, size_t errlen) {
  char dummy[8];
  if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
  cJSON *p = NULL;
  crawl_code rc = package_build(dir, &p, err, errlen, 1); /* sections parked as text: only printed */
  if (rc) return rc;
  char *text = crawl__jtext(p, 0);
  cJSON_Delete(p);
  size_t len = strlen(text);
  text = crawl__xrealloc(text, len + 2);
  text[len++] = '\n';
  text[len] = 0;
  char path[4096], tmp[4200];
  snprintf(path, sizeof path, "%s/package.json", dir);
  snprintf(tmp, sizeof tmp, "%s/.package.json.%ld.tmp", dir, (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
    free(text);
    return CRAWL_IO;
  }
  size_t off = 0;
  int ok = 1;
  errno = 0;
  while (ok && off < len) {
    ssize_t w = write(fd, text + off, len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) ok = 0;
    else off += (size_t)w;
  }
  int saved = errno;
  if (ok && fsync(fd) != 0) { ok = 0; saved = errno; }
  if (close(fd) != 0 && ok) { ok = 0; saved = errno; }
  free(text);
  if (!ok || rename(tmp, path) != 0) {
    if (ok) saved = errno;
    snprintf(err, errlen, "%s: %s", path, strerror(saved));
    unlink(tmp);
    return CRAWL_IO;
  }
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)fsync(dfd); /* the rename itself is durable */
    close(dfd);
  }
  return CRAWL_OK;
}

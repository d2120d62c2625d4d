/* workflow.c -- workflow candidates (discovery-mapper 6.7, 11.7), added to a
 * package by crawl_package_build.
 *
 * Sources, in the order 11.7 prefers them that a crawl can see:
 *   - semantic form and dialog structures in the state graphs: a form or
 *     dialog with a commit control (a submit button, a data-uiap-action, or
 *     in a dialog any button that does not just close it) is a candidate;
 *     its fields are the inputs;
 *   - app actions (data-uiap-action) outside such a structure;
 *   - transition chains: the shortest recorded path from a seed state to the
 *     state that shows the structure is the skeleton's first steps.
 *
 * A skeleton is: the path's actions, one action per input (required fields;
 * all text fields when none is marked required), the commit, an `ensure`
 * with the signals observed when the commit ran (or the app action's
 * declared/observed signals), and `complete`.
 *
 * Section 13 lets synthesis rest on observation: the safety gate never lets
 * the crawler type into forms or press a gated commit, so most skeletons are
 * partly unexecuted. metadata.observedOnly and metadata.steps say which
 * steps ran; review items follow section 16:
 *   missing_success_signal  no signal was seen or declared for the commit
 *                           (unless the package has one for its app action);
 *   workflow_uncertain      a step was never executed, an input had no
 *                           name, or no recorded path leads to it.
 * Confidence (7.3): high when the commit ran twice or more with the same
 * signals; medium with one observed signal or an annotated structure
 * (data-uiap-id on the form/dialog, or an app action); low otherwise.
 *
 * Deterministic: states in natural id order, adjacency sorted by content
 * (not by transition numbering), candidates sorted by id.
 */
#include "crawl_pkg.h"
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

/* ---- the journal records we need ------------------------------------------------ */
typedef struct wf_rec {
  int transition;            /* 1 transition, 0 decision */
  const char *state, *to, *action, *role, *name, *stable;
  const char *effect, *reason, *rule;
  const char *tid;
  int self_loop;
  const cJSON *signals;
} wf_rec;

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
  crawl__jarena jar;         /* frozen copies of the journal lines we keep */
  wf_rec *recs;
  size_t nrecs, caprecs;
  wf_struct *ss;
  size_t nss, capss;
  crawl__strmap st_index;    /* stateId -> index in st (the first of an id) */
  crawl__strmap ss_index;    /* structure key -> index in ss */
  crawl__strmap committed;   /* app actions a form or dialog commits */
} wf;

static long wf_state_index(const wf *w, const char *id) { return crawl__strmap_get(&w->st_index, id); }

/* ---- reading ----------------------------------------------------------------------- */
/* The journal reader's callback: transition and decision records, kept as
 * frozen copies in w->jar (the wf_rec strings point into them). */
static int wf_record(void *ud, const char *type, cJSON *rec) {
  wf *w = ud;
  int tr = !strcmp(type, "transition");
  const cJSON *j = crawl__jfreeze(&w->jar, rec);
  if (w->nrecs == w->caprecs)
    w->recs = crawl__xrealloc(w->recs, (w->caprecs = w->caprecs ? w->caprecs * 2 : 64) * sizeof *w->recs);
  wf_rec *r = &w->recs[w->nrecs++];
  memset(r, 0, sizeof *r);
  const cJSON *t = crawl__get(j, "target");
  r->transition = tr;
  r->state = crawl__str(j, tr ? "fromStateId" : "stateId");
  r->to = crawl__str(j, "toStateId");
  r->action = crawl__str(j, tr ? "viaActionId" : "actionId");
  r->role = crawl__str(t, "role");
  r->name = crawl__str(t, "name");
  r->stable = crawl__str(t, "stableId");
  r->effect = crawl__str(j, "effect");
  r->reason = crawl__str(j, "reason");
  r->rule = crawl__str(j, "rule");
  r->tid = crawl__str(j, "transitionId");
  r->self_loop = cJSON_IsTrue(crawl__get(j, "selfLoop")) || (r->state && r->to && !strcmp(r->state, r->to));
  r->signals = crawl__arr(j, "observedSignals");
  return 0;
}

/* The journal's transition and decision records (crawl_journal.h); none
 * when it is unreadable. */
static void wf_journal(wf *w) {
  static const char *const types[] = {"transition", "decision", NULL};
  (void)crawl__journal_read(w->dir, types, wf_record, w, NULL, NULL, 0);
}

/* ---- the transition graph: BFS from the seeds ------------------------------------- */
static int cmp_edge_content(const void *x, const void *y, void *ud) {
  const cJSON *const *edges = ud;
  const cJSON *a = edges[*(const int *)x], *b = edges[*(const int *)y];
  const char *ka[] = {crawl__str(a, "viaActionId"), crawl__str(crawl__get(a, "target"), "stableId"),
                      crawl__str(crawl__get(a, "target"), "role"), crawl__str(crawl__get(a, "target"), "name"),
                      crawl__str(a, "toStateId"), crawl__str(a, "transitionId")};
  const char *kb[] = {crawl__str(b, "viaActionId"), crawl__str(crawl__get(b, "target"), "stableId"),
                      crawl__str(crawl__get(b, "target"), "role"), crawl__str(crawl__get(b, "target"), "name"),
                      crawl__str(b, "toStateId"), crawl__str(b, "transitionId")};
  for (size_t i = 0; i < sizeof ka / sizeof *ka; i++) {
    int c = crawl__natcmp(ka[i] ? ka[i] : "", kb[i] ? kb[i] : "");
    if (c) return c;
  }
  return 0;
}

/* A state or an edge of the package; crawl_package_write hands them over
 * parked (printed as soon as they were built, a raw item: package.c
 * pk_park), so those are read back from their text, frozen. */
static const cJSON *wf_item(wf *w, const cJSON *x) {
  if (!cJSON_IsRaw(x) || !x->valuestring) return x;
  const cJSON *f = crawl__jarena_parse(&w->jar, x->valuestring, strlen(x->valuestring));
  if (f) return f;
  cJSON *t = cJSON_Parse(x->valuestring); /* what the arena parser leaves to cJSON */
  f = t ? crawl__jfreeze(&w->jar, t) : NULL;
  cJSON_Delete(t);
  return f ? f : x;
}

static void wf_graph(wf *w) {
  const cJSON *tg = crawl__get(w->pkg, "transitionGraph");
  const cJSON *states = crawl__arr(tg, "states"), *edges = crawl__arr(tg, "edges"), *x;
  w->nst = (size_t)cJSON_GetArraySize(states);
  w->st = crawl__xcalloc(w->nst, sizeof *w->st);
  size_t i = 0;
  cJSON_ArrayForEach(x, states) {
    const cJSON *n = w->st[i].node = wf_item(w, x); /* x walks the array */
    w->st[i].id = crawl__str(n, "stateId") ? crawl__str(n, "stateId") : "";
    crawl__strmap_intern(&w->st_index, w->st[i].id, (long)i, NULL);
    w->st[i].route = crawl__str(n, "routeId") ? crawl__str(n, "routeId") : "unknown";
    w->st[i].dist = -1;
    w->st[i].prev_edge = -1;
    i++;
  }
  w->nedges = (size_t)cJSON_GetArraySize(edges);
  w->edges = crawl__xcalloc(w->nedges, sizeof *w->edges);
  i = 0;
  cJSON_ArrayForEach(x, edges) w->edges[i++] = wf_item(w, x);
  for (size_t e = 0; e < w->nedges; e++) {
    long f = wf_state_index(w, crawl__str(w->edges[e], "fromStateId"));
    if (f < 0) continue;
    wf_state *s = &w->st[f];
    s->adj = crawl__xrealloc(s->adj, (s->nadj + 1) * sizeof *s->adj);
    s->adj[s->nadj++] = (int)e;
  }
  for (size_t s = 0; s < w->nst; s++)
    if (w->st[s].nadj > 1) qsort_r(w->st[s].adj, w->st[s].nadj, sizeof *w->st[s].adj, cmp_edge_content, (void *)w->edges);
  /* seeds: states nothing led to (no parentStateId) */
  size_t *queue = crawl__xcalloc(w->nst, sizeof *queue), qh = 0, qt = 0;
  for (size_t s = 0; s < w->nst; s++)
    if (!crawl__str(crawl__get(w->st[s].node, "metadata"), "parentStateId")) {
      w->st[s].dist = 0;
      queue[qt++] = s;
    }
  while (qh < qt) {
    wf_state *s = &w->st[queue[qh++]];
    for (size_t k = 0; k < s->nadj; k++) {
      long t = wf_state_index(w, crawl__str(w->edges[s->adj[k]], "toStateId"));
      if (t < 0 || w->st[t].dist >= 0) continue;
      w->st[t].dist = s->dist + 1;
      w->st[t].prev_edge = s->adj[k];
      queue[qt++] = (size_t)t;
    }
  }
  free(queue);
}

/* ---- names -------------------------------------------------------------------------- */
static int ci_contains(const char *hay, const char *needle) {
  if (!hay) return 0;
  size_t n = strlen(needle);
  for (; *hay; hay++)
    if (!strncasecmp(hay, needle, n)) return 1;
  return 0;
}

/* An identifier: ASCII lower case, other runs as "_". */
static char *wf_slug(const char *s) {
  size_t n = s ? strlen(s) : 0;
  char *o = crawl__xrealloc(NULL, n + 1), *w = o;
  int us = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) { *w++ = (char)c; us = 0; }
    else if (c >= 'A' && c <= 'Z') { *w++ = (char)(c - 'A' + 'a'); us = 0; }
    else if (!us && w > o) { *w++ = '_'; us = 1; }
  }
  while (w > o && w[-1] == '_') w--;
  *w = 0;
  return o;
}

/* Controls in a dialog that only close it. */
static const char *const dismiss_words[] = {"close", "cancel", "dismiss", "no", "back", "abbrechen", "schließen", "×", "x"};
static int is_dismissive(const char *name) {
  if (!name || !*name) return 1;
  char *s = wf_slug(name);
  int d = 0;
  for (size_t i = 0; i < sizeof dismiss_words / sizeof *dismiss_words && !d; i++)
    d = !strcasecmp(name, dismiss_words[i]) || !strcmp(s, dismiss_words[i]);
  if (!*s) d = 1; /* a name with no letters or digits: an icon */
  free(s);
  return d;
}

/* Category by the words of the title, app action, scope and route. */
static const struct { const char *category; const char *words[12]; } categories[] = {
  {"delete", {"delete", "remove", "destroy", "erase", "revoke", "löschen", NULL}},
  {"onboarding", {"sign up", "signup", "register", "get started", "welcome", "onboard", "sign in", "log in", "login", NULL}},
  {"create", {"create", "new", "add", "upload", "invite", "compose", "erstellen", "neu", NULL}},
  {"search", {"search", "find", "filter", "suche", NULL}},
  {"settings", {"setting", "preference", "profile", "account", "einstellung", NULL}},
  {"support", {"help", "support", "contact", "feedback", NULL}},
  {"update", {"save", "update", "edit", "rename", "change", "apply", "speichern", NULL}},
};
static const char *wf_category(const char *const *texts, size_t n) {
  for (size_t c = 0; c < sizeof categories / sizeof *categories; c++)
    for (size_t i = 0; i < n; i++)
      for (size_t k = 0; categories[c].words[k]; k++)
        if (ci_contains(texts[i], categories[c].words[k])) return categories[c].category;
  return "other";
}

/* ---- structures ------------------------------------------------------------------------- */
static const char *scope_catalog_id(const cJSON *pkg, const char *route, const char *kind, const char *stable,
                                    const char *name) {
  const cJSON *s;
  cJSON_ArrayForEach(s, crawl__arr2(pkg, "scopeCatalog", "scopes")) {
    const cJSON *x;
    if (stable) {
      cJSON_ArrayForEach(x, crawl__arr(s, "stableIds")) if (cJSON_IsString(x) && !strcmp(x->valuestring, stable)) return crawl__str(s, "scopeId");
      continue;
    }
    if (!crawl__str(s, "kind") || strcmp(crawl__str(s, "kind"), kind) || crawl__arr(s, "stableIds")) continue;
    int in_route = 0;
    cJSON_ArrayForEach(x, crawl__arr(s, "routeIds")) in_route |= cJSON_IsString(x) && !strcmp(x->valuestring, route);
    if (!in_route) continue;
    if (name && *name) {
      cJSON_ArrayForEach(x, crawl__arr(s, "names")) if (cJSON_IsString(x) && !strcmp(x->valuestring, name)) return crawl__str(s, "scopeId");
    } else if (!crawl__arr(s, "names")) return crawl__str(s, "scopeId");
  }
  return NULL;
}

static const char *el_app_action(const cJSON *e) {
  const char *d = crawl__str(crawl__get(crawl__get(e, "targetHints"), "annotations"), "defaultAction");
  if (d) return d;
  const cJSON *a;
  cJSON_ArrayForEach(a, crawl__arr(e, "supportedActions"))
    if (cJSON_IsString(a) && strncmp(a->valuestring, "ui.", 3) && strncmp(a->valuestring, "nav.", 4)) return a->valuestring;
  return NULL;
}
static int el_has(const cJSON *e, const char *list, const char *v) {
  const cJSON *a;
  cJSON_ArrayForEach(a, crawl__arr(e, list)) if (cJSON_IsString(a) && !strcmp(a->valuestring, v)) return 1;
  return 0;
}
static int el_state(const cJSON *e, const char *k) { return cJSON_IsTrue(crawl__get(crawl__get(e, "state"), k)); }

static void field_free(wf_field *f) {
  free(f->role); free(f->name); free(f->stable); free(f->meaning); free(f->input_type); free(f->tag); free(f->scope);
}
static void struct_free(wf_struct *s) {
  free(s->key); free(s->kind); free(s->state); free(s->route); free(s->scope); free(s->scope_stable); free(s->scope_name);
  for (size_t i = 0; i < s->nfields; i++) field_free(&s->fields[i]);
  free(s->fields);
  free(s->c_role); free(s->c_name); free(s->c_stable); free(s->c_app); free(s->c_scope);
}

/* One structure per key: the instance with the most fields (a form behind
 * a modal dialog loses its inert fields), then the one nearest a seed, then
 * the first in natural state order. Takes s. */
static void wf_keep(wf *w, wf_struct *s) {
  long i = crawl__strmap_get(&w->ss_index, s->key);
  if (i >= 0) {
    const wf_struct *o = &w->ss[i];
    int better = s->nfields != o->nfields ? s->nfields > o->nfields
               : s->dist >= 0 && (o->dist < 0 || s->dist < o->dist);
    if (better) { struct_free(&w->ss[i]); w->ss[i] = *s; }
    else struct_free(s);
    return;
  }
  if (w->nss == w->capss) w->ss = crawl__xrealloc(w->ss, (w->capss = w->capss ? w->capss * 2 : 16) * sizeof *w->ss);
  crawl__strmap_put(&w->ss_index, s->key, (long)w->nss);
  w->ss[w->nss++] = *s;
}

/* The innermost form or dialog scope around local scope id sc, or -1. */
static int struct_scope_of(const cJSON *scopes, const char *sc) {
  for (int guard = 0; sc && guard < 64; guard++) {
    int i = 0;
    const cJSON *s, *hit = NULL;
    int hi = -1;
    cJSON_ArrayForEach(s, scopes) {
      if (crawl__str(s, "scopeId") && !strcmp(crawl__str(s, "scopeId"), sc)) { hit = s; hi = i; break; }
      i++;
    }
    if (!hit) return -1;
    const char *k = crawl__str(hit, "kind");
    if (k && (!strcmp(k, "form") || !strcmp(k, "dialog"))) return hi;
    sc = crawl__str(hit, "parentScopeId");
  }
  return -1;
}

/* Field f from element e (role defaulted; editable: it takes text). */
static void field_from(wf_field *f, const cJSON *e, const char *role, int editable) {
  const cJSON *sem = crawl__get(e, "semantics");
  memset(f, 0, sizeof *f);
  f->role = crawl__xstrdup(role);
  f->name = crawl__xstrdup(crawl__str(e, "name"));
  f->stable = crawl__xstrdup(crawl__str(e, "stableId"));
  f->meaning = crawl__xstrdup(crawl__str(crawl__get(crawl__get(e, "targetHints"), "annotations"), "meaning"));
  f->input_type = crawl__xstrdup(crawl__str(sem, "inputType"));
  f->tag = crawl__xstrdup(crawl__str(sem, "tagName"));
  f->required = el_state(e, "required");
  f->sensitive = cJSON_IsTrue(crawl__get(crawl__get(e, "metadata"), "sensitive"));
  f->editable = editable;
}

/* How well e commits a structure of this kind: app action 3, submit 2, (in
 * a dialog) a button that does not just close it 1, else 0. */
static int commit_rank(const cJSON *e, const char *kind, const char *role) {
  const char *app = el_app_action(e);
  int submit = el_has(e, "affordances", "submit") || el_has(e, "supportedActions", "ui.submit");
  int button = !strcmp(role, "button") || !strcmp(role, "link") || !strcmp(role, "menuitem");
  int closes = is_dismissive(crawl__str(e, "name")); /* a "Close" submit of a <form method=dialog> */
  return app ? 3 : closes ? 0 : submit ? 2 : !strcmp(kind, "dialog") && button ? 1 : 0;
}

/* The fields and the best commit control among the visible, enabled
 * elements owned by structure scope si. Returns the commit (or NULL). */
static const cJSON *structure_members(wf_struct *s, const cJSON *elements, const int *owner, int si, const char *kind,
                                      int *rank_out) {
  const cJSON *commit = NULL, *e;
  int best = 0, i = 0;
  cJSON_ArrayForEach(e, elements) {
    if (owner[i++] != si || !el_state(e, "visible") ||
        (crawl__get(crawl__get(e, "state"), "enabled") && !el_state(e, "enabled")))
      continue;
    const char *role = crawl__str(e, "role") ? crawl__str(e, "role") : "generic";
    int edit = el_has(e, "affordances", "edit") && !el_state(e, "readonly");
    int toggle = !strcmp(role, "checkbox") || !strcmp(role, "switch");
    int choose = !strcmp(role, "combobox") || !strcmp(role, "listbox") || !strcmp(role, "radio");
    if (edit || toggle || choose) {
      s->fields = crawl__xrealloc(s->fields, (s->nfields + 1) * sizeof *s->fields);
      field_from(&s->fields[s->nfields++], e, role, edit);
      continue;
    }
    int rank = commit_rank(e, kind, role);
    if (rank > best) { commit = e; best = rank; }
  }
  *rank_out = best;
  return commit;
}

/* The form or dialog scope si of state st, when it has a commit control
 * (and fields, or a submit, or is a dialog): into w. */
static void structure_of_scope(wf *w, const wf_state *st, const cJSON *sc, const cJSON *elements, const int *owner, int si) {
  const char *kind = crawl__str(sc, "kind");
  if (!kind || (strcmp(kind, "form") && strcmp(kind, "dialog"))) return;
  if (!strcmp(kind, "dialog") && crawl__get(crawl__get(sc, "state"), "open") && !el_state(sc, "open")) return;
  wf_struct s = {0};
  int rank;
  const cJSON *commit = structure_members(&s, elements, owner, si, kind, &rank);
  if (!commit || (!s.nfields && rank < 2 && strcmp(kind, "dialog"))) {
    struct_free(&s);
    return;
  }
  s.kind = crawl__xstrdup(kind);
  s.state = crawl__xstrdup(st->id);
  s.route = crawl__xstrdup(st->route);
  s.scope_stable = crawl__xstrdup(crawl__str(sc, "stableId"));
  s.scope_name = crawl__xstrdup(crawl__str(sc, "name"));
  s.scope = crawl__xstrdup(scope_catalog_id(w->pkg, st->route, kind, s.scope_stable, s.scope_name));
  s.c_role = crawl__xstrdup(crawl__str(commit, "role"));
  s.c_name = crawl__xstrdup(crawl__str(commit, "name"));
  s.c_stable = crawl__xstrdup(crawl__str(commit, "stableId"));
  s.c_app = crawl__xstrdup(el_app_action(commit));
  s.c_submit = rank == 2 || el_has(commit, "affordances", "submit");
  s.c_scope = crawl__xstrdup(s.scope);
  s.dist = st->dist;
  crawl__buf k = {0};
  crawl__buf_printf(&k, "%s\x1f%s\x1f%s\x1f%s", kind, s.scope_stable ? s.scope_stable : s.scope_name ? s.scope_name : "",
                    s.c_app ? s.c_app : "", s.c_stable ? s.c_stable : s.c_name ? s.c_name : "");
  s.key = crawl__buf_take(&k);
  wf_keep(w, &s);
}

/* A visible element with an app action outside any form or dialog: into w. */
static void structure_of_action(wf *w, const wf_state *st, const cJSON *scopes, const cJSON *e, const char *app) {
  wf_struct s = {0};
  s.kind = crawl__xstrdup("action");
  s.state = crawl__xstrdup(st->id);
  s.route = crawl__xstrdup(st->route);
  s.c_role = crawl__xstrdup(crawl__str(e, "role"));
  s.c_name = crawl__xstrdup(crawl__str(e, "name"));
  s.c_stable = crawl__xstrdup(crawl__str(e, "stableId"));
  s.c_app = crawl__xstrdup(app);
  const char *lsc = crawl__str(e, "scopeId");
  const cJSON *sc;
  cJSON_ArrayForEach(sc, scopes) if (lsc && crawl__str(sc, "scopeId") && !strcmp(crawl__str(sc, "scopeId"), lsc)) {
    s.c_scope = crawl__xstrdup(scope_catalog_id(w->pkg, st->route, crawl__str(sc, "kind") ? crawl__str(sc, "kind") : "custom",
                                                crawl__str(sc, "stableId"), crawl__str(sc, "name")));
    break;
  }
  s.dist = st->dist;
  s.key = crawl__xprintf("action\x1f%s", app);
  wf_keep(w, &s);
}

/* The structures of state st's graph g: forms and dialogs, then app actions
 * outside them. */
static void wf_state_structures(wf *w, const wf_state *st, const cJSON *g) {
  const cJSON *scopes = crawl__arr(g, "scopes"), *elements = crawl__arr(g, "elements"), *e;
  int nsc = cJSON_GetArraySize(scopes), ne = cJSON_GetArraySize(elements);
  int *owner = crawl__xcalloc((size_t)ne, sizeof *owner); /* per element: structure scope index */
  int i = 0;
  cJSON_ArrayForEach(e, elements) owner[i++] = struct_scope_of(scopes, crawl__str(e, "scopeId"));
  for (int si = 0; si < nsc; si++) structure_of_scope(w, st, cJSON_GetArrayItem(scopes, si), elements, owner, si);
  i = 0;
  cJSON_ArrayForEach(e, elements) {
    int own = owner[i++];
    const char *app = el_app_action(e);
    if (!app || own >= 0 || !el_state(e, "visible")) continue;
    structure_of_action(w, st, scopes, e, app);
  }
  free(owner);
}

static void wf_structures(wf *w) {
  for (size_t i = 0; i < w->nst; i++) {
    const char *ref = crawl__str(w->st[i].node, "pageGraphRef");
    if (!ref || ref[0] == '/' || strstr(ref, "..")) continue;
    char *path = crawl__xprintf("%s/%s", w->dir, ref);
    char err[256];
    cJSON *g = crawl__json_load(path, err, sizeof err);
    free(path);
    if (!g) continue;
    wf_state_structures(w, &w->st[i], g);
    cJSON_Delete(g);
  }
}

/* ---- building one candidate ------------------------------------------------------------ */
static int rec_matches(const wf_rec *r, const char *role, const char *name, const char *stable) {
  if (stable && r->stable) return !strcmp(stable, r->stable);
  return r->role && role && !strcmp(r->role, role) && !strcmp(r->name ? r->name : "", name ? name : "");
}

static cJSON *target_json(const char *stable, const char *role, const char *name, const char *scope) {
  cJSON *t = crawl__jx(cJSON_CreateObject());
  crawl__jstr(t, "stableId", stable);
  crawl__jstr(t, "role", role);
  crawl__jstr(t, "name", name);
  crawl__jstr(t, "scopeId", scope);
  return t;
}

static void ev_add(cJSON *ev, const char *source, const char *ref, const char *note) {
  if (!ref || cJSON_GetArraySize(ev) >= WF_EVIDENCE_MAX) return;
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "source", source);
  crawl__jstr(o, "refId", ref);
  crawl__jstr(o, "note", note);
  crawl__jpush(ev, o);
}

typedef struct wf_param { char *name; int guessed; } wf_param;

/* A parameter name for field f, unique among used (and added to it). */
static wf_param param_name(const wf_field *f, crawl__strmap *used) {
  char *base = NULL;
  int guessed = 0;
  if (f->meaning && *f->meaning) base = wf_slug(f->meaning);
  if ((!base || !*base) && f->stable) {
    free(base);
    const char *dot = strrchr(f->stable, '.');
    base = wf_slug(dot ? dot + 1 : f->stable);
  }
  if ((!base || !*base) && f->name) { free(base); base = wf_slug(f->name); }
  if (!base || !*base) { free(base); base = wf_slug(f->role); guessed = 1; }
  char *name = crawl__xstrdup(base);
  for (int k = 2; crawl__strmap_get(used, name) >= 0; k++) {
    free(name);
    name = crawl__xprintf("%s_%d", base, k);
  }
  free(base);
  crawl__strmap_put(used, name, 0);
  return (wf_param){name, guessed};
}

static cJSON *param_json(const wf_field *f, const char *name) {
  cJSON *p = crawl__jx(cJSON_CreateObject());
  crawl__jstr(p, "name", name);
  const char *it = f->input_type;
  pol_subject s = {.role = f->role, .tag = f->tag, .input_type = it, .sensitive = f->sensitive ? "true" : NULL};
  pol_data_class dc = pol_subject_data_class(&s);
  if (dc == POL_DC_NONE && f->meaning) {
    pol_subject m = {.autocomplete = f->meaning};
    dc = pol_subject_data_class(&m);
  }
  const char *type = "string";
  if (!strcmp(f->role, "checkbox") || !strcmp(f->role, "switch")) type = "boolean";
  else if (!strcmp(f->role, "combobox") || !strcmp(f->role, "listbox") || !strcmp(f->role, "radio")) type = "enum";
  else if (!strcmp(f->role, "spinbutton") || !strcmp(f->role, "slider") || (it && (!strcmp(it, "number") || !strcmp(it, "range")))) type = "number";
  else if (it && (!strcmp(it, "date") || !strcmp(it, "datetime-local") || !strcmp(it, "month") || !strcmp(it, "week") || !strcmp(it, "time"))) type = "date";
  if ((it && !strcmp(it, "password")) || dc == POL_DC_CREDENTIAL || dc == POL_DC_SECRET) type = "secret";
  if (dc == POL_DC_NONE && f->editable && (!it || !strcmp(it, "text") || !strcmp(it, "search") || (f->tag && !strcasecmp(f->tag, "textarea"))))
    dc = POL_DC_FREE_TEXT;
  crawl__jstr(p, "type", type);
  crawl__jset(p, "required", cJSON_CreateBool(f->required));
  crawl__jstr(p, "meaning", f->meaning);
  if (dc != POL_DC_NONE) crawl__jstr(p, "dataClass", pol_data_class_name(dc));
  if (f->name) crawl__jstr(p, "description", f->name);
  return p;
}

static const char *field_action(const wf_field *f) {
  if (!strcmp(f->role, "checkbox") || !strcmp(f->role, "switch")) return "ui.toggle";
  if (!strcmp(f->role, "combobox") || !strcmp(f->role, "listbox") || !strcmp(f->role, "radio")) return "ui.choose";
  return "ui.enterText";
}

/* What happened to (action on) a target: executed (and signals), or gated. */
typedef struct wf_seen { int executed, with_signal; const wf_rec *gate; } wf_seen;
static wf_seen wf_seen_of(const wf *w, const char *role, const char *name, const char *stable, const char *route,
                          cJSON *signals /* canonical texts collected, may be NULL */, cJSON *ev) {
  wf_seen r = {0};
  for (size_t i = 0; i < w->nrecs; i++) {
    const wf_rec *x = &w->recs[i];
    if (!rec_matches(x, role, name, stable)) continue;
    long si = wf_state_index(w, x->state);
    if (!stable && (si < 0 || strcmp(w->st[si].route, route))) continue; /* a name means something per route */
    if (x->transition) {
      r.executed++;
      int n = cJSON_GetArraySize(x->signals);
      if (n) r.with_signal++;
      if (ev) ev_add(ev, "transition", x->tid, NULL);
      const cJSON *sg;
      cJSON_ArrayForEach(sg, x->signals) {
        if (!signals || !cJSON_IsObject(sg)) continue;
        char *t = crawl__jtext(sg, 0);
        int dup = 0;
        const cJSON *u;
        cJSON_ArrayForEach(u, signals) dup |= !strcmp(u->valuestring, t);
        if (!dup) crawl__jpush(signals, cJSON_CreateString(t));
        free(t);
      }
    } else if (x->effect && strcmp(x->effect, "allow")) {
      static const char *const order[] = {"skip", "review", "deny"};
      int a = 0, b = 0;
      for (int k = 0; k < 3; k++) {
        if (!strcmp(order[k], x->effect)) a = k + 1;
        if (r.gate && !strcmp(order[k], r.gate->effect)) b = k + 1;
      }
      if (a > b) r.gate = x;
    }
  }
  return r;
}

static int cmp_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Texts (canonical JSON) -> sorted array of objects. */
static cJSON *signals_json(const cJSON *texts) {
  int n = cJSON_GetArraySize(texts);
  char **v = crawl__xcalloc((size_t)n, sizeof *v);
  int i = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, texts) v[i++] = t->valuestring;
  qsort(v, (size_t)n, sizeof *v, cmp_text);
  cJSON *a = crawl__jx(cJSON_CreateArray());
  for (i = 0; i < n; i++) crawl__jpush(a, crawl__jx(cJSON_Parse(v[i])));
  free(v);
  return a;
}

typedef struct wf_review { const char *kind; int severity; char *desc, *remedy; } wf_review;

/* One candidate being built: what its sections fill in and hand on. */
typedef struct wf_cand {
  const wf_struct *s;
  const char *id;
  const char *commit_label;  /* the commit control in words */
  const char *commit_action;
  cJSON *c;                  /* the candidate (returned) */
  cJSON *steps, *ev, *routes, *inputs, *stepmeta; /* linked into c at the end */
  crawl__strmap used;        /* parameter names taken */
  cJSON *not_run;            /* steps never executed, in words */
  cJSON *sigtexts;           /* success signals, canonical texts */
  int np, no_path, guessed, nsig;
  wf_seen commit;            /* what happened to the commit control */
} wf_cand;

/* title and category */
static void cand_title(wf_cand *k) {
  const wf_struct *s = k->s;
  char *title;
  if (!strcmp(s->kind, "dialog") && s->scope_name && *s->scope_name && s->c_name && strcasecmp(s->scope_name, s->c_name))
    title = crawl__xprintf("%s: %s", s->scope_name, s->c_name);
  else title = crawl__xstrdup(s->c_name && *s->c_name ? s->c_name : s->scope_name ? s->scope_name : s->c_app ? s->c_app : k->id);
  crawl__jstr(k->c, "title", title);
  const char *texts[] = {title, s->c_app, s->scope_stable, s->scope_name, s->route};
  crawl__jstr(k->c, "category", wf_category(texts, sizeof texts / sizeof *texts));
  free(title);
}

/* The shortest recorded path from a seed to the structure's state: its
 * steps (executed), the entry condition, the routes it passes. */
static void cand_path(wf *w, wf_cand *k) {
  const wf_struct *s = k->s;
  long si = wf_state_index(w, s->state);
  int path[WF_MAX_STEPS_PATH + 1], np = 0; /* last edge first */
  k->no_path = si < 0 || w->st[si].dist < 0;
  for (long cur = si; cur >= 0 && w->st[cur].prev_edge >= 0 && np <= WF_MAX_STEPS_PATH;) {
    path[np++] = w->st[cur].prev_edge;
    cur = wf_state_index(w, crawl__str(w->edges[w->st[cur].prev_edge], "fromStateId"));
  }
  k->np = np;
  long start = si;
  if (np) start = wf_state_index(w, crawl__str(w->edges[path[np - 1]], "fromStateId"));
  if (start >= 0) crawl__jpush(k->routes, cJSON_CreateString(w->st[start].route));
  if (start >= 0 && !k->no_path) {
    cJSON *ec = crawl__jx(cJSON_CreateArray()), *cond = crawl__jx(cJSON_CreateObject());
    crawl__jstr(cond, "kind", "route");
    crawl__jstr(cond, "routeId", w->st[start].route);
    crawl__jstr(cond, "description", "start where the crawl started (a seed state)");
    crawl__jpush(ec, cond);
    crawl__jset(k->c, "entryConditions", ec);
  }
  for (int p = np - 1; p >= 0; p--) {
    const cJSON *e = w->edges[path[p]];
    cJSON *st = crawl__jx(cJSON_CreateObject());
    crawl__jstr(st, "type", "action");
    crawl__jstr(st, "actionId", crawl__str(e, "viaActionId"));
    if (cJSON_IsObject(crawl__get(e, "target"))) crawl__jset(st, "target", cJSON_Duplicate(crawl__get(e, "target"), 1));
    crawl__jpush(k->steps, st);
    cJSON *m = crawl__jx(cJSON_CreateObject());
    crawl__jset(m, "step", cJSON_CreateNumber(cJSON_GetArraySize(k->steps) - 1));
    crawl__jset(m, "executed", cJSON_CreateTrue());
    crawl__jstr(m, "transitionId", crawl__str(e, "transitionId"));
    crawl__jpush(k->stepmeta, m);
    ev_add(k->ev, "transition", crawl__str(e, "transitionId"), p == np - 1 ? "path from a seed" : NULL);
    long to = wf_state_index(w, crawl__str(e, "toStateId"));
    if (to >= 0) {
      int dup = 0;
      const cJSON *r;
      cJSON_ArrayForEach(r, k->routes) dup |= !strcmp(r->valuestring, w->st[to].route);
      if (!dup) crawl__jpush(k->routes, cJSON_CreateString(w->st[to].route));
    }
  }
  if (si >= 0 && !cJSON_GetArraySize(k->routes)) crawl__jpush(k->routes, cJSON_CreateString(s->route));
  ev_add(k->ev, "dom", s->state, !strcmp(s->kind, "action") ? "the control with the app action" : "the form or dialog structure");
  if (s->scope_stable) ev_add(k->ev, "annotation", s->state, "data-uiap-id on the structure");
}

/* metadata.steps entry of the step just added: whether it ran, and the
 * strictest gate that held it back. */
static void cand_step_meta(wf_cand *k, int executed, const wf_rec *gate) {
  cJSON *m = crawl__jx(cJSON_CreateObject());
  crawl__jset(m, "step", cJSON_CreateNumber(cJSON_GetArraySize(k->steps) - 1));
  crawl__jset(m, "executed", cJSON_CreateBool(executed));
  if (gate) {
    char *g = crawl__xprintf("%s: %s (%s)", gate->effect, gate->reason ? gate->reason : "?", gate->rule ? gate->rule : "?");
    crawl__jstr(m, "gate", g);
    free(g);
  }
  crawl__jpush(k->stepmeta, m);
}

/* An action step on a target (parameter: NULL or the one it fills). */
static void cand_action_step(wf_cand *k, const char *action, cJSON *target, const char *parameter) {
  cJSON *st = crawl__jx(cJSON_CreateObject());
  crawl__jstr(st, "type", "action");
  crawl__jstr(st, "actionId", action);
  crawl__jset(st, "target", target);
  if (parameter) {
    cJSON *pnames = crawl__jx(cJSON_CreateArray());
    crawl__jpush(pnames, cJSON_CreateString(parameter));
    crawl__jset(st, "parameterNames", pnames);
  }
  crawl__jpush(k->steps, st);
}

/* Inputs: one parameter per field; a step per required field (every
 * editable one when none is marked required). */
static void cand_inputs(wf *w, wf_cand *k) {
  const wf_struct *s = k->s;
  int any_required = 0;
  for (size_t f = 0; f < s->nfields; f++) any_required |= s->fields[f].required;
  for (size_t f = 0; f < s->nfields; f++) {
    const wf_field *fd = &s->fields[f];
    wf_param pn = param_name(fd, &k->used);
    k->guessed |= pn.guessed;
    crawl__jpush(k->inputs, param_json(fd, pn.name));
    int in_skeleton = any_required ? fd->required : fd->editable;
    if (in_skeleton) {
      const char *act = field_action(fd);
      cand_action_step(k, act, target_json(fd->stable, fd->role, fd->name, s->scope), pn.name);
      wf_seen seen = wf_seen_of(w, fd->role, fd->name, fd->stable, s->route, NULL, NULL);
      cand_step_meta(k, seen.executed > 0, seen.gate);
      if (!seen.executed) {
        char *t = crawl__xprintf("%s %s", act, pn.name);
        crawl__jpush(k->not_run, cJSON_CreateString(t));
        free(t);
      }
    }
    free(pn.name);
  }
}

/* The commit step, and the signals seen when it ran. */
static void cand_commit(wf *w, wf_cand *k) {
  const wf_struct *s = k->s;
  k->commit = wf_seen_of(w, s->c_role, s->c_name, s->c_stable, s->route, k->sigtexts, k->ev);
  k->commit_action = s->c_app ? s->c_app : s->c_submit ? "ui.submit" : "ui.activate";
  cand_action_step(k, k->commit_action, target_json(s->c_stable, s->c_role, s->c_name, s->c_scope), NULL);
  cand_step_meta(k, k->commit.executed > 0, k->commit.gate);
  if (!k->commit.executed) {
    char *t = crawl__xprintf("%s on %s", k->commit_action, k->commit_label);
    crawl__jpush(k->not_run, cJSON_CreateString(t));
    free(t);
  }
}

/* Signals: seen when the commit ran, else the app action's; an `ensure`
 * step when there are any. */
static void cand_signals(wf *w, wf_cand *k) {
  const wf_struct *s = k->s;
  if (!cJSON_GetArraySize(k->sigtexts) && s->c_app) {
    const cJSON *a;
    cJSON_ArrayForEach(a, crawl__arr2(w->pkg, "actionCatalog", "actions")) {
      if (!crawl__str(a, "id") || strcmp(crawl__str(a, "id"), s->c_app)) continue;
      const cJSON *sg;
      cJSON_ArrayForEach(sg, crawl__arr(a, "successSignals")) {
        char *t = crawl__jtext(sg, 0);
        crawl__jpush(k->sigtexts, cJSON_CreateString(t));
        free(t);
      }
    }
  }
  k->nsig = cJSON_GetArraySize(k->sigtexts);
  if (!k->nsig) return;
  cJSON *ens = crawl__jx(cJSON_CreateObject());
  crawl__jstr(ens, "type", "ensure");
  crawl__jset(ens, "signals", signals_json(k->sigtexts));
  crawl__jpush(k->steps, ens);
  crawl__jset(k->c, "successSignals", signals_json(k->sigtexts));
  ev_add(k->ev, "signal", s->state, "signals observed after the commit");
}

/* The review item id of the package's missing_success_signal item for the
 * commit's app action, when there is one (package.c: its id hashes
 * "missing_success_signal\x1f<action>"): that item speaks for the workflow
 * too. Caller frees. */
static char *cand_action_item(wf *w, const wf_cand *k) {
  if (k->nsig || !k->s->c_app) return NULL;
  char *found = NULL;
  char *key = crawl__xprintf("missing_success_signal\x1f%s", k->s->c_app);
  char *rid = crawl__xprintf("rev_%012llx", (unsigned long long)(crawl__hash(key) & 0xffffffffffffull));
  free(key);
  const cJSON *it;
  cJSON_ArrayForEach(it, crawl__arr2(w->pkg, "reviewQueue", "items"))
    if (crawl__str(it, "id") && !strcmp(crawl__str(it, "id"), rid)) found = crawl__xstrdup(rid);
  free(rid);
  return found;
}

/* missing_success_signal: no signal seen or declared for the commit. */
static void cand_review_signal(const wf_cand *k, wf_review *rv) {
  rv->kind = "missing_success_signal";
  rv->severity = 1;
  rv->desc = k->commit.executed
                 ? crawl__xprintf("Workflow candidate %s: its commit (%s on %s) ran %d time%s without an observable success signal.",
                                  k->id, k->commit_action, k->commit_label, k->commit.executed, k->commit.executed == 1 ? "" : "s")
                 : crawl__xprintf("Workflow candidate %s: its commit (%s on %s) was never executed, so no success signal was observed.",
                                  k->id, k->commit_action, k->commit_label);
  rv->remedy = crawl__xprintf("Declare a success signal for %s (a role=status or toast message, a dialog or route change), "
                              "or run the workflow in a sandbox (--mode sandbox_write) and verify it manually.", k->commit_label);
}

/* workflow_uncertain: steps never executed, an unnamed input, no path. */
static void cand_review_uncertain(const wf_cand *k, int observed_only, wf_review *rv) {
  crawl__buf why = {0};
  if (observed_only) {
    crawl__buf_puts(&why, "steps never executed (synthesized from observation): ");
    int n = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, k->not_run) crawl__buf_printf(&why, "%s%s", n++ ? ", " : "", x->valuestring);
  }
  if (k->guessed) crawl__buf_printf(&why, "%san input has no name, label or data-uiap-meaning", why.n ? "; " : "");
  if (k->no_path) crawl__buf_printf(&why, "%sno recorded path leads from a seed to it", why.n ? "; " : "");
  int risky = k->commit.gate && strcmp(k->commit.gate->effect, "skip");
  rv->kind = "workflow_uncertain";
  rv->severity = risky ? 1 : 0;
  rv->desc = crawl__xprintf("Workflow candidate %s (\"%s\") is uncertain: %s.", k->id,
                            crawl__str(k->c, "title") ? crawl__str(k->c, "title") : k->id, why.p);
  rv->remedy = crawl__xprintf("Review the skeleton by hand; annotate the %s and its fields (data-uiap-id, data-uiap-meaning, "
                              "data-uiap-action) and verify it in a sandbox environment.",
                              !strcmp(k->s->kind, "action") ? "control" : k->s->kind);
  crawl__buf_free(&why);
}

static void cand_metadata(wf_cand *k, int observed_only, char *action_item /* taken */) {
  cJSON *md = crawl__jx(cJSON_CreateObject());
  crawl__jstr(md, "source", k->s->kind);
  crawl__jstr(md, "stateId", k->s->state);
  crawl__jstr(md, "scopeId", k->s->scope);
  crawl__jset(md, "observedOnly", cJSON_CreateBool(observed_only));
  if (observed_only) {
    crawl__jset(md, "notExecuted", cJSON_Duplicate(k->not_run, 1));
    crawl__jstr(md, "note", "Synthesized from observation: some steps were never executed (discovery-mapper section 13 "
                            "allows synthesis without executing risky actions). Verify before use.");
  }
  crawl__jset(md, "steps", k->stepmeta);
  crawl__jset(md, "pathLength", cJSON_CreateNumber(k->np));
  if (action_item) {
    cJSON *ri = crawl__jx(cJSON_CreateArray());
    crawl__jpush(ri, cJSON_CreateString(action_item));
    crawl__jset(md, "reviewItems", ri); /* the caller adds the workflow's own items */
    free(action_item);
  }
  crawl__jset(k->c, "metadata", md);
}

/* The candidate for structure s (a new object the caller owns); its own
 * review items into rv (at most 2, *nrv of them; the caller frees their
 * texts). */
static cJSON *wf_candidate(wf *w, const wf_struct *s, const char *id, wf_review *rv, size_t *nrv) {
  wf_cand k = {.s = s, .id = id};
  k.c = crawl__jx(cJSON_CreateObject());
  k.steps = crawl__jx(cJSON_CreateArray());
  k.ev = crawl__jx(cJSON_CreateArray());
  k.routes = crawl__jx(cJSON_CreateArray());
  k.inputs = crawl__jx(cJSON_CreateArray());
  k.stepmeta = crawl__jx(cJSON_CreateArray());
  k.not_run = crawl__jx(cJSON_CreateArray());
  k.sigtexts = crawl__jx(cJSON_CreateArray());
  k.commit_label = s->c_name && *s->c_name ? s->c_name : s->c_stable ? s->c_stable : s->c_role;
  crawl__jstr(k.c, "id", id);
  cand_title(&k);
  cand_path(w, &k);
  cand_inputs(w, &k);
  cand_commit(w, &k);
  cand_signals(w, &k);
  cJSON *done = crawl__jx(cJSON_CreateObject());
  crawl__jstr(done, "type", "complete");
  crawl__jpush(k.steps, done);
  crawl__jset(k.c, "routeIds", k.routes);
  if (cJSON_GetArraySize(k.inputs)) crawl__jset(k.c, "requiredInputs", k.inputs);
  else cJSON_Delete(k.inputs);
  crawl__jset(k.c, "stepSkeleton", k.steps);
  crawl__jset(k.c, "discoveredBy", k.ev);
  /* confidence (7.3) */
  int annotated = s->scope_stable || s->c_app;
  crawl__jstr(k.c, "confidence", k.commit.with_signal >= 2 && k.nsig == 1 ? "high" : k.nsig || annotated ? "medium" : "low");
  /* review */
  int observed_only = cJSON_GetArraySize(k.not_run) > 0;
  char *action_item = cand_action_item(w, &k);
  *nrv = 0;
  if (!k.nsig && !action_item) cand_review_signal(&k, &rv[(*nrv)++]);
  if (observed_only || k.guessed || k.no_path) cand_review_uncertain(&k, observed_only, &rv[(*nrv)++]);
  crawl__jstr(k.c, "reviewState", *nrv || action_item ? "needs_review" : "candidate");
  cand_metadata(&k, observed_only, action_item);
  cJSON_Delete(k.not_run);
  crawl__strmap_release(&k.used);
  cJSON_Delete(k.sigtexts);
  return k.c;
}

/* ---- review items into the package ---------------------------------------------------- */
static const char *const sev_names[] = {"low", "medium", "high"};
static int sev_rank(const char *s) {
  for (int i = 0; i < 3; i++)
    if (s && !strcmp(s, sev_names[i])) return i;
  return 1;
}
/* The package's review order: severity (high first), kind, route. */
static int item_before(const cJSON *a, const cJSON *b) {
  int sa = sev_rank(crawl__str(a, "severity")), sb = sev_rank(crawl__str(b, "severity"));
  if (sa != sb) return sa > sb;
  int c = strcmp(crawl__str(a, "kind") ? crawl__str(a, "kind") : "", crawl__str(b, "kind") ? crawl__str(b, "kind") : "");
  if (c) return c < 0;
  c = crawl__natcmp(crawl__str(a, "routeId") ? crawl__str(a, "routeId") : "", crawl__str(b, "routeId") ? crawl__str(b, "routeId") : "");
  if (c) return c < 0;
  return crawl__natcmp(crawl__str(a, "id"), crawl__str(b, "id")) < 0;
}

static void review_insert(cJSON *items, cJSON *it) {
  cJSON *x;
  cJSON_ArrayForEach(x, items) if (item_before(it, x)) break;
  crawl__insert_before(items, x, it);
}

static void wf_free(wf *w) {
  for (size_t i = 0; i < w->nst; i++) free(w->st[i].adj);
  free(w->st);
  free(w->edges);
  crawl__jarena_release(&w->jar);
  free(w->recs);
  for (size_t i = 0; i < w->nss; i++) struct_free(&w->ss[i]);
  free(w->ss);
  crawl__strmap_release(&w->st_index);
  crawl__strmap_release(&w->ss_index);
  crawl__strmap_release(&w->committed);
}

static int cmp_struct_id(const void *x, const void *y) {
  const cJSON *a = *(const cJSON *const *)x, *b = *(const cJSON *const *)y;
  return crawl__natcmp(crawl__str(a, "id"), crawl__str(b, "id"));
}

/* An app action a form or dialog commits is no candidate of its own. */
static void wf_committed(wf *w) {
  for (size_t k = 0; k < w->nss; k++)
    if (strcmp(w->ss[k].kind, "action") && w->ss[k].c_app) crawl__strmap_put(&w->committed, w->ss[k].c_app, 0);
}
static int action_covered(const wf *w, const wf_struct *s) {
  return !strcmp(s->kind, "action") && crawl__strmap_get(&w->committed, s->c_app) >= 0;
}

/* An id that says what the candidate is about, stable across crawls, made
 * unique against ids (and added to it). Caller frees. */
static char *candidate_id(const wf_struct *s, crawl__strmap *ids) {
  char *base;
  if (s->c_app) base = crawl__xprintf("candidate.%s", s->c_app);
  else {
    char *slug = wf_slug(s->scope_stable ? s->scope_stable : s->c_stable ? s->c_stable : s->c_name ? s->c_name : s->scope_name);
    base = crawl__xprintf("candidate.%s.%s", s->kind, *slug ? slug : "unnamed");
    free(slug);
  }
  char *id = crawl__xstrdup(base);
  for (int k = 2; crawl__strmap_get(ids, id) >= 0; k++) {
    free(id);
    id = crawl__xprintf("%s~%d", base, k);
  }
  free(base);
  crawl__strmap_put(ids, id, 0);
  return id;
}

/* Review item rv of candidate c (structure s) into the package's items, in
 * review order; its id goes into c's metadata.reviewItems. */
static void candidate_review_add(cJSON *items, cJSON *c, const wf_struct *s, const char *id, const wf_review *rv) {
  char *key = crawl__xprintf("workflow\x1f%s\x1f%s", rv->kind, id);
  char *rid = crawl__xprintf("rev_%012llx", (unsigned long long)(crawl__hash(key) & 0xffffffffffffull));
  free(key);
  cJSON *it = crawl__jx(cJSON_CreateObject());
  crawl__jstr(it, "id", rid);
  crawl__jstr(it, "severity", sev_names[rv->severity]);
  crawl__jstr(it, "kind", rv->kind);
  crawl__jstr(it, "routeId", s->route);
  crawl__jstr(it, "scopeId", s->scope);
  crawl__jstr(it, "stableId", s->c_stable);
  crawl__jstr(it, "description", rv->desc);
  cJSON *ev = crawl__jx(cJSON_CreateArray());
  ev_add(ev, "dom", s->state, NULL);
  ev_add(ev, "inferred", id, "workflow candidate");
  crawl__jset(it, "evidence", ev);
  crawl__jstr(it, "remediation", rv->remedy);
  review_insert(items, it);
  cJSON *md = cJSON_GetObjectItemCaseSensitive(c, "metadata");
  cJSON *ri = cJSON_GetObjectItemCaseSensitive(md, "reviewItems");
  if (!ri) {
    ri = crawl__jx(cJSON_CreateArray());
    crawl__jset(md, "reviewItems", ri);
  }
  crawl__jpush(ri, cJSON_CreateString(rid));
  free(rid);
}

/* package.workflowCandidates (the n candidates, taken, sorted by id), before
 * reviewQueue as in the spec's interface, and the coverage counters. */
static void candidates_place(cJSON *package, cJSON **cands, size_t n, const cJSON *items) {
  qsort(cands, n, sizeof *cands, cmp_struct_id);
  cJSON *cat = crawl__jx(cJSON_CreateObject()), *arr = crawl__jx(cJSON_CreateArray());
  for (size_t i = 0; i < n; i++) crawl__jpush(arr, cands[i]);
  crawl__jset(cat, "workflows", arr);
  cJSON_DeleteItemFromObjectCaseSensitive(package, "workflowCandidates");
  cat->string = crawl__xstrdup("workflowCandidates");
  crawl__insert_before(package, cJSON_GetObjectItemCaseSensitive(package, "reviewQueue"), cat);
  cJSON *cov = cJSON_GetObjectItemCaseSensitive(package, "coverage");
  if (cJSON_IsObject(cov)) {
    cJSON_ReplaceItemInObjectCaseSensitive(cov, "workflowCandidatesDiscovered", crawl__jx(cJSON_CreateNumber((double)n)));
    if (items) cJSON_ReplaceItemInObjectCaseSensitive(cov, "reviewItems", crawl__jx(cJSON_CreateNumber(cJSON_GetArraySize(items))));
  }
}

/* ---- workflow seeds (discovery-mapper 9.1, 11.2) ------------------------------------- */
/* Whether candidate id is the one workflow seed wid names: wid itself,
 * "candidate.<wid>" (an app action), or "candidate.<kind>.<slug of wid>". */
static int seed_names(const char *id, const char *wid) {
  if (!strcmp(id, wid)) return 1;
  if (strncmp(id, "candidate.", 10)) return 0;
  const char *rest = id + 10, *dot = strchr(rest, '.');
  if (!strcmp(rest, wid)) return 1;
  char *slug = wf_slug(wid);
  int m = dot && *slug && !strcmp(dot + 1, slug);
  free(slug);
  return m;
}

static void run_note(cJSON *package, char *text) {
  cJSON *run = cJSON_GetObjectItemCaseSensitive(package, "run");
  cJSON *notes = cJSON_GetObjectItemCaseSensitive(run, "notes");
  if (cJSON_IsObject(run) && !cJSON_IsArray(notes)) {
    notes = crawl__jx(cJSON_CreateArray());
    crawl__jset(run, "notes", notes);
  }
  if (cJSON_IsArray(notes)) crawl__jpush(notes, cJSON_CreateString(text));
  free(text);
}

/* Seed i (workflow wid) resolved to candidate c: in its metadata.seeds. */
static void seed_resolved(cJSON *package, cJSON *c, int i, const char *wid) {
  cJSON *md = cJSON_GetObjectItemCaseSensitive(c, "metadata");
  if (!cJSON_IsObject(md)) {
    md = crawl__jx(cJSON_CreateObject());
    crawl__jset(c, "metadata", md);
  }
  cJSON *sv = cJSON_GetObjectItemCaseSensitive(md, "seeds");
  if (!cJSON_IsArray(sv)) {
    sv = crawl__jx(cJSON_CreateArray());
    crawl__jset(md, "seeds", sv);
  }
  crawl__jpush(sv, cJSON_CreateNumber(i));
  run_note(package, crawl__xprintf("seed %d (workflow %s) resolved to workflow candidate %s", i, wid, crawl__str(c, "id")));
}

/* Seed i (workflow wid) that no candidate matches: a coverage_gap with the reason. */
static void seed_gap(cJSON *package, cJSON *items, int i, const char *wid, int ncands) {
  char *key = crawl__xprintf("workflow-seed\x1f%d", i);
  char *rid = crawl__xprintf("rev_%012llx", (unsigned long long)(crawl__hash(key) & 0xffffffffffffull));
  free(key);
  char *reason = crawl__xprintf("no workflow candidate synthesized from this run (%d) has the id it names", ncands);
  cJSON *it = crawl__jx(cJSON_CreateObject());
  crawl__jstr(it, "id", rid);
  crawl__jstr(it, "severity", "medium");
  crawl__jstr(it, "kind", "coverage_gap");
  char *desc = crawl__xprintf("Seed %d (workflow %s) could not be resolved: %s.", i, wid, reason);
  crawl__jstr(it, "description", desc);
  free(desc);
  crawl__jset(it, "evidence", cJSON_CreateArray());
  crawl__jstr(it, "remediation", "Seed the workflow's entry page, or annotate its commit control or form "
                                 "(data-uiap-action, data-uiap-scope) with the workflow's id so a candidate is synthesized under it.");
  review_insert(items, it);
  free(rid);
  run_note(package, crawl__xprintf("seed %d (workflow %s) unresolved: %s", i, wid, reason));
  free(reason);
}

/* Every workflow seed of the run resolves to a candidate (coverage.seedsVisited)
 * or becomes a review item. */
static void wf_seeds(cJSON *package, cJSON *items) {
  const cJSON *seeds = crawl__arr(crawl__get(package, "run"), "seeds");
  cJSON *cands = (cJSON *)crawl__arr2(package, "workflowCandidates", "workflows");
  int i = 0, resolved = 0;
  const cJSON *sd;
  cJSON_ArrayForEach(sd, seeds) {
    const char *kind = crawl__str(sd, "kind"), *wid = crawl__str(sd, "workflowId");
    if (kind && !strcmp(kind, "workflow") && wid && *wid) {
      cJSON *c = NULL;
      cJSON_ArrayForEach(c, cands) if (crawl__str(c, "id") && seed_names(crawl__str(c, "id"), wid)) break;
      if (c) seed_resolved(package, c, i, wid);
      else if (items) seed_gap(package, items, i, wid, cJSON_GetArraySize(cands));
      resolved += c != NULL;
    }
    i++;
  }
  cJSON *cov = cJSON_GetObjectItemCaseSensitive(package, "coverage");
  const cJSON *sv = crawl__get(cov, "seedsVisited");
  if (resolved && cJSON_IsNumber(sv))
    cJSON_ReplaceItemInObjectCaseSensitive(cov, "seedsVisited", crawl__jx(cJSON_CreateNumber(sv->valuedouble + resolved)));
  if (items && cJSON_IsObject(cov))
    cJSON_ReplaceItemInObjectCaseSensitive(cov, "reviewItems", crawl__jx(cJSON_CreateNumber(cJSON_GetArraySize(items))));
}

int crawl_workflows_add(cJSON *package, const char *dir) {
  if (!cJSON_IsObject(package) || !dir) return 0;
  wf w = {.pkg = package, .dir = dir};
  wf_graph(&w);
  wf_journal(&w);
  wf_structures(&w);
  wf_committed(&w);
  size_t n = 0;
  cJSON **cands = crawl__xcalloc(w.nss, sizeof *cands);
  crawl__strmap ids = {0};
  cJSON *items = (cJSON *)crawl__arr2(package, "reviewQueue", "items");
  for (size_t i = 0; i < w.nss; i++) {
    wf_struct *s = &w.ss[i];
    if (action_covered(&w, s) || s->dist > WF_MAX_STEPS_PATH) continue;
    char *id = candidate_id(s, &ids);
    wf_review rv[2];
    size_t nrv = 0;
    cJSON *c = wf_candidate(&w, s, id, rv, &nrv);
    cands[n++] = c;
    for (size_t r = 0; r < nrv; r++) {
      if (items) candidate_review_add(items, c, s, id, &rv[r]);
      free(rv[r].desc);
      free(rv[r].remedy);
    }
    free(id);
  }
  crawl__strmap_release(&ids);
  candidates_place(package, cands, n, items);
  wf_seeds(package, items);
  free(cands);
  wf_free(&w);
  return (int)n;
}

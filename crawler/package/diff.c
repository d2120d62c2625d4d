/* diff.c -- compare two Discovery Packages (discovery-mapper 17: "compare
 * historical packages"): what appeared, disappeared or changed between two
 * crawls of one app, as JSON for machines and text for people, and whether
 * that is a regression.
 *
 * Entries are matched by identity, never by position:
 *   routes by routeId, scopes by scopeId, elements by stableId (else
 *   semanticKey), actions by id, states by stateId (a fingerprint), review
 *   items by id (a hash of kind and subject), workflows by id, and
 *   transitions by (route of the from state, action, target): a state id is
 *   a fingerprint of the page, so any change to a page makes all its states
 *   new, while "on /videos, New video leads to /videos/new" survives it;
 *   transitionIds are sequence numbers and differ between runs. The
 *   transitions of one such key are merged: the routes they led to, their
 *   side-effect classes and signals.
 * "Changed" compares a fixed list of fields per section (the table below);
 * run-specific fields (URLs with their port, evidence refs, metadata) are
 * left out, so two crawls of an unchanged app compare equal.
 *
 * Regression: a route, element or action disappeared, or a review item of
 * severity high appeared (new, or raised to high).
 * Two crawl directories also compare their endpoint catalogs (api_diff.c,
 * added by the CLI into diff["api"]); the text shows them as "endpoints".
 */
#include "crawl_pkg.h"
#include "pkg_int.h"
#include "crawl_util.h"
#include "pg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DF_TEXT_LIST_MAX 50 /* entries listed per section and change kind in the text */

typedef enum { KEY_FIELD, KEY_ELEMENT, KEY_TRANSITION } df_key;

static const struct df_section {
  const char *name, *singular;
  const char *obj, *arr;       /* package[obj][arr] */
  df_key key;
  const char *key_field;
  int regress_removed;
  const char *fields[10];
} sections[] = {
  {"routes", "route", "routeCatalog", "routes", KEY_FIELD, "routeId", 1,
   {"titles", "scopes", "entryActions", "confidence", NULL}},
  {"scopes", "scope", "scopeCatalog", "scopes", KEY_FIELD, "scopeId", 0,
   {"kind", "names", "parentScopeId", "routeIds", "stableIds", "confidence", NULL}},
  {"elements", "element", "elementCatalog", "elements", KEY_ELEMENT, NULL, 1,
   {"role", "names", "meanings", "routes", "supportedActions", "affordances", "risk", "dataClasses", "reviewState", NULL}},
  {"actions", "action", "actionCatalog", "actions", KEY_FIELD, "id", 1,
   {"kind", "risk", "sideEffectClass", "successSignals", "routes", "reviewState", "confidence", NULL}},
  {"states", "state", "transitionGraph", "states", KEY_FIELD, "stateId", 0,
   {"routeId", "scopeIds", "modalStack", NULL}},
  {"transitions", "transition", "transitionGraph", "edges", KEY_TRANSITION, NULL, 0,
   {"toRoutes", "sideEffectClasses", "observedSignals", NULL}},
  {"reviewItems", "review item", "reviewQueue", "items", KEY_FIELD, "id", 0,
   {"severity", "kind", "routeId", "description", NULL}},
  {"workflows", "workflow", "workflowCandidates", "workflows", KEY_FIELD, "id", 0,
   {"title", "category", "routeIds", "requiredInputs", "stepSkeleton", "successSignals", "confidence", "reviewState", NULL}},
};
#define DF_NSECTIONS (sizeof sections / sizeof *sections)

/* The identity of an entry (caller frees), or NULL when it has none. */
static char *entry_key(const struct df_section *s, const cJSON *e) {
  switch (s->key) {
  case KEY_FIELD: return crawl__xstrdup(crawl__str(e, s->key_field));
  case KEY_ELEMENT:
    return crawl__str(e, "stableId") ? crawl__xstrdup(crawl__str(e, "stableId")) : crawl__xstrdup(crawl__str(e, "semanticKey"));
  case KEY_TRANSITION: {
    const cJSON *t = crawl__get(e, "target");
    const char *tk = crawl__str(t, "stableId") ? crawl__str(t, "stableId") : crawl__str(t, "semanticKey");
    char *tn = NULL;
    if (!tk && t) tk = tn = crawl__xprintf("%s \"%s\"", crawl__str(t, "role") ? crawl__str(t, "role") : "?",
                                           crawl__str(t, "name") ? crawl__str(t, "name") : "");
    char *k = crawl__xprintf("%s %s %s", crawl__str(e, "fromRoute") ? crawl__str(e, "fromRoute") : "?",
                             crawl__str(e, "viaActionId") ? crawl__str(e, "viaActionId") : "?", tk ? tk : "-");
    free(tn);
    return k;
  }
  }
  return NULL;
}

typedef struct df_entry { char *key; const cJSON *e; } df_entry;

static const char *route_of(const cJSON *pkg, const char *state) {
  const cJSON *st;
  cJSON_ArrayForEach(st, crawl__arr2(pkg, "transitionGraph", "states"))
    if (state && crawl__str(st, "stateId") && !strcmp(crawl__str(st, "stateId"), state)) return crawl__str(st, "routeId");
  return NULL;
}

static void add_unique(cJSON *arr, const cJSON *v) {
  const cJSON *x;
  cJSON_ArrayForEach(x, arr) if (cJSON_Compare(x, v, 1)) return;
  cJSON *c = crawl__jx(cJSON_Duplicate(v, 1));
  /* kept sorted by text, so equal packages compare equal */
  char *t = crawl__jtext(c, 0);
  cJSON *before = NULL;
  cJSON_ArrayForEach(before, arr) {
    char *u = crawl__jtext(before, 0);
    int lt = strcmp(t, u) < 0;
    free(u);
    if (lt) break;
  }
  free(t);
  crawl__insert_before(arr, before, c);
}

/* The package's edges, merged per (route of the from state, action, target):
 * a new array of {fromRoute, viaActionId, target, toRoutes, sideEffectClasses,
 * observedSignals}. Caller frees. */
static cJSON *merged_transitions(const cJSON *pkg) {
  cJSON *out = crawl__jx(cJSON_CreateArray());
  const cJSON *e;
  cJSON_ArrayForEach(e, crawl__arr2(pkg, "transitionGraph", "edges")) {
    const char *from = route_of(pkg, crawl__str(e, "fromStateId")), *to = route_of(pkg, crawl__str(e, "toStateId"));
    const cJSON *t = crawl__get(e, "target");
    cJSON *m = NULL, *x;
    cJSON_ArrayForEach(x, out) {
      if (!cJSON_Compare(crawl__get(x, "viaActionId"), crawl__get(e, "viaActionId"), 1)) continue;
      if (strcmp(crawl__str(x, "fromRoute"), from ? from : "?")) continue;
      const cJSON *xt = crawl__get(x, "target");
      int same = crawl__str(t, "stableId") || crawl__str(xt, "stableId")
                     ? cJSON_Compare(crawl__get(xt, "stableId"), crawl__get(t, "stableId"), 1)
                     : cJSON_Compare(crawl__get(xt, "semanticKey"), crawl__get(t, "semanticKey"), 1) &&
                           cJSON_Compare(crawl__get(xt, "name"), crawl__get(t, "name"), 1);
      if (same) { m = x; break; }
    }
    if (!m) {
      m = crawl__jx(cJSON_CreateObject());
      crawl__jstr(m, "fromRoute", from ? from : "?");
      crawl__jstr(m, "viaActionId", crawl__str(e, "viaActionId"));
      cJSON *tt = crawl__jx(cJSON_CreateObject());
      crawl__jstr(tt, "stableId", crawl__str(t, "stableId"));
      crawl__jstr(tt, "semanticKey", crawl__str(t, "semanticKey"));
      crawl__jstr(tt, "role", crawl__str(t, "role"));
      crawl__jstr(tt, "name", crawl__str(t, "name"));
      crawl__jset(m, "target", tt);
      crawl__jset(m, "toRoutes", cJSON_CreateArray());
      crawl__jset(m, "sideEffectClasses", cJSON_CreateArray());
      crawl__jset(m, "observedSignals", cJSON_CreateArray());
      crawl__jpush(out, m);
    }
    cJSON *tmp = crawl__jx(cJSON_CreateString(to ? to : "?"));
    add_unique(cJSON_GetObjectItemCaseSensitive(m, "toRoutes"), tmp);
    cJSON_Delete(tmp);
    if (crawl__get(e, "sideEffectClass")) add_unique(cJSON_GetObjectItemCaseSensitive(m, "sideEffectClasses"), crawl__get(e, "sideEffectClass"));
    const cJSON *sg;
    cJSON_ArrayForEach(sg, crawl__arr(e, "observedSignals")) add_unique(cJSON_GetObjectItemCaseSensitive(m, "observedSignals"), sg);
  }
  return out;
}
static int cmp_entry(const void *x, const void *y) {
  const df_entry *a = x, *b = y;
  int c = crawl__natcmp(a->key, b->key);
  if (c) return c;
  char *ta = crawl__jtext(a->e, 0), *tb = crawl__jtext(b->e, 0); /* ties: by content */
  c = strcmp(ta, tb);
  free(ta);
  free(tb);
  return c;
}

/* Entries with their keys, sorted; the second of two equal keys gets " #2". */
static df_entry *entries(const struct df_section *s, const cJSON *arr, size_t *n) {
  const cJSON *e;
  size_t cap = (size_t)cJSON_GetArraySize(arr), k = 0;
  df_entry *v = crawl__xcalloc(cap, sizeof *v);
  cJSON_ArrayForEach(e, arr) {
    char *key = entry_key(s, e);
    if (!key) continue;
    v[k++] = (df_entry){key, e};
  }
  qsort(v, k, sizeof *v, cmp_entry);
  int renamed = 0;
  for (size_t i = 0; i < k;) {
    size_t j = i + 1;
    while (j < k && !strcmp(v[j].key, v[i].key)) j++;
    for (size_t q = i + 1; q < j; q++) {
      char *nk = crawl__xprintf("%s #%zu", v[q].key, q - i + 1);
      free(v[q].key);
      v[q].key = nk;
      renamed = 1;
    }
    i = j;
  }
  if (renamed) qsort(v, k, sizeof *v, cmp_entry);
  *n = k;
  return v;
}

static void entries_free(df_entry *v, size_t n) {
  for (size_t i = 0; i < n; i++) free(v[i].key);
  free(v);
}

static const df_entry *find(const df_entry *v, size_t n, const char *key) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = crawl__natcmp(v[mid].key, key);
    if (!c) return &v[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

static void regress(cJSON *list, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void regress(cJSON *list, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char buf[1024];
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  crawl__jpush(list, cJSON_CreateString(buf));
}

static cJSON *side(const cJSON *pkg) {
  const cJSON *run = crawl__get(pkg, "run");
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "runId", crawl__str(run, "runId"));
  crawl__jstr(o, "startedAt", crawl__str(run, "startedAt"));
  crawl__jstr(o, "status", crawl__str(run, "status"));
  crawl__jstr(o, "environmentId", crawl__str(crawl__get(pkg, "environment"), "environmentId"));
  crawl__jstr(o, "baseUrl", crawl__str(crawl__get(pkg, "environment"), "baseUrl"));
  return o;
}

/* The section's fields that differ between entries o and n, or NULL. */
static cJSON *diff_fields(const struct df_section *s, const cJSON *o, const cJSON *n) {
  cJSON *fields = crawl__jx(cJSON_CreateObject());
  for (size_t f = 0; s->fields[f]; f++) {
    const cJSON *a = crawl__get(o, s->fields[f]), *b = crawl__get(n, s->fields[f]);
    if ((!a && !b) || (a && b && cJSON_Compare(a, b, 1))) continue;
    cJSON *ch = crawl__jx(cJSON_CreateObject());
    crawl__jset(ch, "old", a ? cJSON_Duplicate(a, 1) : cJSON_CreateNull());
    crawl__jset(ch, "new", b ? cJSON_Duplicate(b, 1) : cJSON_CreateNull());
    crawl__jset(fields, s->fields[f], ch);
  }
  if (cJSON_GetArraySize(fields)) return fields;
  cJSON_Delete(fields);
  return NULL;
}

/* A review item that is high now, new or raised from a lower severity: a
 * regression. */
static void regress_high(cJSON *regs, const df_entry *n, int raised) {
  const char *kind = crawl__str(n->e, "kind"), *desc = crawl__str(n->e, "description");
  if (raised) regress(regs, "review item %s (%s) raised to high: %s", n->key, kind ? kind : "?", desc ? desc : "");
  else regress(regs, "new high-severity review item %s (%s): %s", n->key, kind ? kind : "?", desc ? desc : "");
}

/* One section: {"added":[keys],"removed":[keys],"changed":[{key,fields}]};
 * regressions into regs. */
static cJSON *diff_section(const struct df_section *s, const cJSON *old_pkg, const cJSON *new_pkg, cJSON *regs) {
  size_t no, nn;
  cJSON *mo = s->key == KEY_TRANSITION ? merged_transitions(old_pkg) : NULL;
  cJSON *mn = s->key == KEY_TRANSITION ? merged_transitions(new_pkg) : NULL;
  df_entry *vo = entries(s, mo ? mo : crawl__arr2(old_pkg, s->obj, s->arr), &no);
  df_entry *vn = entries(s, mn ? mn : crawl__arr2(new_pkg, s->obj, s->arr), &nn);
  cJSON *sec = crawl__jx(cJSON_CreateObject()), *added = crawl__jx(cJSON_CreateArray());
  cJSON *removed = crawl__jx(cJSON_CreateArray()), *changed = crawl__jx(cJSON_CreateArray());
  int is_review = !strcmp(s->name, "reviewItems");
  for (size_t i = 0; i < nn; i++) {
    const df_entry *o = find(vo, no, vn[i].key);
    int high = is_review && pk_severity_rank(crawl__str(vn[i].e, "severity")) == 2;
    if (!o) {
      crawl__jpush(added, cJSON_CreateString(vn[i].key));
      if (high) regress_high(regs, &vn[i], 0);
      continue;
    }
    cJSON *fields = diff_fields(s, o->e, vn[i].e);
    if (!fields) continue;
    cJSON *c = crawl__jx(cJSON_CreateObject());
    crawl__jstr(c, "key", vn[i].key);
    crawl__jset(c, "fields", fields);
    crawl__jpush(changed, c);
    if (high && pk_severity_rank(crawl__str(o->e, "severity")) < 2) regress_high(regs, &vn[i], 1);
  }
  for (size_t i = 0; i < no; i++) {
    if (find(vn, nn, vo[i].key)) continue;
    crawl__jpush(removed, cJSON_CreateString(vo[i].key));
    if (s->regress_removed) regress(regs, "%s removed: %s", s->singular, vo[i].key);
  }
  crawl__jset(sec, "added", added);
  crawl__jset(sec, "removed", removed);
  crawl__jset(sec, "changed", changed);
  entries_free(vo, no);
  entries_free(vn, nn);
  cJSON_Delete(mo);
  cJSON_Delete(mn);
  return sec;
}

/* The new package's coverage counters: {"old","new","delta"} each. */
static cJSON *diff_coverage(const cJSON *old_pkg, const cJSON *new_pkg) {
  cJSON *cov = crawl__jx(cJSON_CreateObject());
  const cJSON *oc = crawl__get(old_pkg, "coverage"), *ncv = crawl__get(new_pkg, "coverage"), *x;
  cJSON_ArrayForEach(x, ncv) {
    if (!x->string || !cJSON_IsNumber(x)) continue;
    double was = crawl__num(oc, x->string, 0);
    cJSON *c = crawl__jx(cJSON_CreateObject());
    crawl__jset(c, "old", cJSON_CreateNumber(was));
    crawl__jset(c, "new", cJSON_CreateNumber(x->valuedouble));
    crawl__jset(c, "delta", cJSON_CreateNumber(x->valuedouble - was));
    crawl__jset(cov, x->string, c);
  }
  return cov;
}

static int is_package(const cJSON *p) {
  return cJSON_IsObject(p) && crawl__str(p, "spec") && !strcmp(crawl__str(p, "spec"), "uiap.discovery");
}

crawl_code crawl_package_diff(const cJSON *old_pkg, const cJSON *new_pkg, cJSON **diff, int *regression) {
  if (diff) *diff = NULL;
  if (regression) *regression = 0;
  if (!diff || !is_package(old_pkg) || !is_package(new_pkg)) return CRAWL_ARG;
  cJSON *d = crawl__jx(cJSON_CreateObject()), *secs = crawl__jx(cJSON_CreateObject());
  cJSON *regs = crawl__jx(cJSON_CreateArray());
  crawl__jset(d, "old", side(old_pkg));
  crawl__jset(d, "new", side(new_pkg));
  for (size_t si = 0; si < DF_NSECTIONS; si++)
    crawl__jset(secs, sections[si].name, diff_section(&sections[si], old_pkg, new_pkg, regs));
  crawl__jset(d, "sections", secs);
  crawl__jset(d, "coverage", diff_coverage(old_pkg, new_pkg));
  int reg = cJSON_GetArraySize(regs) > 0;
  crawl__jset(d, "regression", cJSON_CreateBool(reg));
  crawl__jset(d, "regressions", regs);
  if (regression) *regression = reg;
  *diff = d;
  return CRAWL_OK;
}

/* ---- text --------------------------------------------------------------------------- */
static void value_text(crawl__buf *b, const cJSON *v) {
  if (!v || cJSON_IsNull(v)) { crawl__buf_puts(b, "(none)"); return; }
  if (cJSON_IsString(v)) { crawl__buf_puts(b, v->valuestring); return; }
  char *t = crawl__jtext(v, 0);
  if (strlen(t) > 160) strcpy(t + 157, "...");
  crawl__buf_puts(b, t);
  free(t);
}

/* Every string of the diff (keys too) made safe for a terminal, in place:
 * they come from packages, that is from pages. */
static void df_terminal_safe(cJSON *x) {
  for (; x; x = x->next) {
    if (x->string) pg_text_terminal_safe(x->string);
    if (cJSON_IsString(x) && x->valuestring) pg_text_terminal_safe(x->valuestring);
    df_terminal_safe(x->child);
  }
}

static char *df_text(const cJSON *diff, int color);

char *crawl_diff_text(const cJSON *diff, int color) {
  cJSON *safe = crawl__jx(cJSON_Duplicate(diff, 1));
  df_terminal_safe(safe->child);
  char *text = df_text(safe, color);
  cJSON_Delete(safe);
  return text;
}

/* diff["api"] (crawl_api_diff, api_diff.c): endpoints added, removed and
 * whose statuses changed. 1 when it lists something. */
static int df_text_api(crawl__buf *b, const cJSON *api, int color) {
  if (!api) return 0;
  const char *red = color ? "\033[31m" : "", *green = color ? "\033[32m" : "", *yellow = color ? "\033[33m" : "";
  const char *bold = color ? "\033[1m" : "", *off = color ? "\033[0m" : "";
  const cJSON *added = crawl__arr(api, "added"), *removed = crawl__arr(api, "removed"), *changed = crawl__arr(api, "statusChanged"), *x;
  int na = cJSON_GetArraySize(added), nr = cJSON_GetArraySize(removed), nc = cJSON_GetArraySize(changed);
  crawl__buf_printf(b, "%s%-12s%s %s+%d%s %s-%d%s %s~%d%s\n", bold, "endpoints", off, na ? green : "", na, off, nr ? red : "", nr, off,
                    nc ? yellow : "", nc, off);
  int k = 0;
  cJSON_ArrayForEach(x, removed) if (k++ < DF_TEXT_LIST_MAX) crawl__buf_printf(b, "  %s- %s%s\n", red, x->valuestring, off);
  k = 0;
  cJSON_ArrayForEach(x, added) if (k++ < DF_TEXT_LIST_MAX) crawl__buf_printf(b, "  %s+ %s%s\n", green, x->valuestring, off);
  k = 0;
  cJSON_ArrayForEach(x, changed) {
    if (k++ == DF_TEXT_LIST_MAX) break;
    crawl__buf_printf(b, "  %s~ %s%s", yellow, crawl__str(x, "key") ? crawl__str(x, "key") : "?", off);
    if (crawl__str(x, "principal")) crawl__buf_printf(b, " as %s", crawl__str(x, "principal"));
    crawl__buf_puts(b, ": statuses ");
    value_text(b, crawl__get(x, "old"));
    crawl__buf_puts(b, " -> ");
    value_text(b, crawl__get(x, "new"));
    crawl__buf_puts(b, "\n");
  }
  return na || nr || nc;
}

static char *df_text(const cJSON *diff, int color) {
  const char *red = color ? "\033[31m" : "", *green = color ? "\033[32m" : "", *yellow = color ? "\033[33m" : "";
  const char *bold = color ? "\033[1m" : "", *off = color ? "\033[0m" : "";
  crawl__buf b = {0};
  const cJSON *o = crawl__get(diff, "old"), *n = crawl__get(diff, "new");
  crawl__buf_printf(&b, "%sold%s  %s  %s  %s\n", bold, off, crawl__str(o, "runId") ? crawl__str(o, "runId") : "?",
                    crawl__str(o, "startedAt") ? crawl__str(o, "startedAt") : "", crawl__str(o, "status") ? crawl__str(o, "status") : "");
  crawl__buf_printf(&b, "%snew%s  %s  %s  %s\n\n", bold, off, crawl__str(n, "runId") ? crawl__str(n, "runId") : "?",
                    crawl__str(n, "startedAt") ? crawl__str(n, "startedAt") : "", crawl__str(n, "status") ? crawl__str(n, "status") : "");
  const cJSON *secs = crawl__get(diff, "sections");
  int any = 0;
  for (size_t si = 0; si < DF_NSECTIONS; si++) {
    const cJSON *s = crawl__get(secs, sections[si].name);
    const cJSON *added = crawl__arr(s, "added"), *removed = crawl__arr(s, "removed"), *changed = crawl__arr(s, "changed");
    int na = cJSON_GetArraySize(added), nr = cJSON_GetArraySize(removed), nc = cJSON_GetArraySize(changed);
    crawl__buf_printf(&b, "%s%-12s%s %s+%d%s %s-%d%s %s~%d%s\n", bold, sections[si].name, off, na ? green : "", na, off,
                      nr ? red : "", nr, off, nc ? yellow : "", nc, off);
    any |= na || nr || nc;
    const cJSON *x;
    int k = 0;
    cJSON_ArrayForEach(x, removed) {
      if (k++ == DF_TEXT_LIST_MAX) { crawl__buf_printf(&b, "  ... %d more removed\n", nr - DF_TEXT_LIST_MAX); break; }
      crawl__buf_printf(&b, "  %s- %s%s\n", red, x->valuestring, off);
    }
    k = 0;
    cJSON_ArrayForEach(x, added) {
      if (k++ == DF_TEXT_LIST_MAX) { crawl__buf_printf(&b, "  ... %d more added\n", na - DF_TEXT_LIST_MAX); break; }
      crawl__buf_printf(&b, "  %s+ %s%s\n", green, x->valuestring, off);
    }
    k = 0;
    cJSON_ArrayForEach(x, changed) {
      if (k++ == DF_TEXT_LIST_MAX) { crawl__buf_printf(&b, "  ... %d more changed\n", nc - DF_TEXT_LIST_MAX); break; }
      crawl__buf_printf(&b, "  %s~ %s%s\n", yellow, crawl__str(x, "key") ? crawl__str(x, "key") : "?", off);
      const cJSON *f;
      cJSON_ArrayForEach(f, crawl__get(x, "fields")) {
        crawl__buf_printf(&b, "      %s: ", f->string ? f->string : "?");
        value_text(&b, crawl__get(f, "old"));
        crawl__buf_puts(&b, " -> ");
        value_text(&b, crawl__get(f, "new"));
        crawl__buf_puts(&b, "\n");
      }
    }
  }
  any |= df_text_api(&b, crawl__get(diff, "api"), color);
  crawl__buf_puts(&b, "\ncoverage\n");
  const cJSON *c;
  cJSON_ArrayForEach(c, crawl__get(diff, "coverage")) {
    double dl = crawl__num(c, "delta", 0);
    if (!dl) continue;
    crawl__buf_printf(&b, "  %-30s %g -> %g (%s%+g%s)\n", c->string ? c->string : "?", crawl__num(c, "old", 0), crawl__num(c, "new", 0),
                      dl < 0 ? red : green, dl, off);
  }
  const cJSON *regs = crawl__arr(diff, "regressions");
  if (cJSON_GetArraySize(regs)) {
    crawl__buf_printf(&b, "\n%s%sREGRESSION%s: %d finding%s\n", bold, red, off, cJSON_GetArraySize(regs), cJSON_GetArraySize(regs) == 1 ? "" : "s");
    const cJSON *x;
    cJSON_ArrayForEach(x, regs) crawl__buf_printf(&b, "  %s\n", x->valuestring);
  } else crawl__buf_printf(&b, "\n%s\n", any ? "no regression" : "no differences");
  return crawl__buf_take(&b);
}

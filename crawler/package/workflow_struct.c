/* workflow_struct.c -- the structures a workflow can be made of, found in the
 * state graphs: forms and dialogs with a commit control and their fields,
 * and app actions (data-uiap-action) outside them, each kept once across
 * states; and the names (slugs, categories, dismissive controls) used to
 * title them. No journal, no package output.
 */
#include "workflow_int.h"
/* ---- names -------------------------------------------------------------------------- */
static int ci_contains(const char *hay, const char *needle) {
  if (!hay) return 0;
  size_t n = strlen(needle);
  for (; *hay; hay++)
    if (!strncasecmp(hay, needle, n)) return 1;
  return 0;
}

/* An identifier: ASCII lower case, other runs as "_". */
char *wf_slug(const char *s) {
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
const char *wf_category(const char *const *texts, size_t n) {
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
void wf_struct_free(wf_struct *s) {
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
    if (better) { wf_struct_free(&w->ss[i]); w->ss[i] = *s; }
    else wf_struct_free(s);
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
    wf_struct_free(&s);
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

void wf_structures(wf *w) {
  for (size_t i = 0; i < w->nst; i++) {
    const char *ref = crawl__str(w->st[i].node, "pageGraphRef");
    if (!crawl__path_inside(ref)) continue;
    char *path = crawl__xprintf("%s/%s", w->dir, ref);
    char err[256];
    cJSON *g = crawl__json_load(path, err, sizeof err);
    free(path);
    if (!g) continue;
    wf_state_structures(w, &w->st[i], g);
    cJSON_Delete(g);
  }
}

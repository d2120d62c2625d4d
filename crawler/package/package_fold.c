/* package_fold.c -- folding one state graph (PageGraph JSON) into the
 * route, scope and element catalogs under their canonical keys (scope ids,
 * semanticKeys), and the findings a single state shows (opaque frames, closed
 * shadow roots, duplicate names, shared stableIds) as review items. Does not
 * read the journal (package_journal.c) nor resolve its records
 * (package_resolve.c).
 */
#include "pkg_int.h"
/* ---- states: fold one graph into the catalogs --------------------------------- */
long pk_route_of(pk *b, const char *route) {
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
const char *pk_state_scope(pk *b, const pk_state *st, const char *local) {
  pk_scope *sc = state_scope_of(b, st, local);
  return sc ? sc->id : NULL;
}
pk_scope *pk_scope_by_id(pk *b, const char *canon) {
  long i = canon ? pk_strset_find(&b->scope_ids, canon) : -1;
  return i >= 0 ? &b->scopes[i] : NULL;
}

char *pk_semantic_key(const char *route, const pk_scope *sc, const char *role, const char *name) {
  char *nn = pk_norm(name, 1);
  const char *sp = !sc ? "-" : sc->stable ? sc->stable : sc->kind;
  char *k = crawl__xprintf("%s|%s|%s|%s", route, sp, role, nn);
  free(nn);
  return k;
}

/* A scope's catalog key: its stable id, else its route, kind and
 * normalised name (caller frees). */
static char *scope_key(const char *route, const char *kind, const char *stable, const char *name) {
  if (stable) return crawl__xprintf("id\x1f%s", stable);
  char *nn = pk_norm(name, 1);
  char *key = crawl__xprintf("k\x1f%s\x1f%s\x1f%s", route, PK_IN(pk_scope_kinds, kind) ? kind : "custom", nn);
  free(nn);
  return key;
}

const char *pk_scope_by_key(pk *b, const char *route, const char *kind, const char *name, const char *stable) {
  if (!route && !stable) return NULL;
  char *key = scope_key(route, kind, stable, name);
  long i = pk_strset_find(&b->scope_keys, key);
  free(key);
  return i >= 0 ? b->scopes[i].id : NULL;
}

void pk_fold_scopes(pk *b, pk_state *st, const cJSON *g, pk_route *rt) {
  const cJSON *scopes = crawl__get(g, "scopes"), *s;
  cJSON_ArrayForEach(s, scopes) {
    const char *lid = crawl__str(s, "scopeId"), *kind = crawl__str(s, "kind");
    const char *stable = crawl__str(s, "stableId"), *name = crawl__str(s, "name");
    if (!PK_IN(pk_scope_kinds, kind)) kind = "custom";
    char *key = scope_key(st->route, kind, stable, name);
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

/* A live region without a name or stable id (a toast's "status", an
 * "alert", a "log"): whether a capture holds it is a matter of timing, and
 * two crawls of one app disagreed on it (the synth app's toasts). */
static int nameless_live(const char *role) {
  static const char *const live[] = {"status", "alert", "log"};
  for (size_t i = 0; i < PK_COUNT(live); i++)
    if (!strcmp(role, live[i])) return 1;
  return 0;
}

/* The catalog action id, created on first sight. */
pk_action *pk_action_get(pk *b, const char *id) {
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
void pk_fold_element(pk *b, pk_state *st, const cJSON *e, strset *local_ids, long **local_el) {
  const char *iid = crawl__str(e, "instanceId"), *role = crawl__str(e, "role");
  if (!role) role = "generic";
  for (size_t t = 0; !crawl__str(e, "stableId") && t < PK_COUNT(transient_roles); t++)
    if (!strcmp(role, transient_roles[t])) return;
  if (!crawl__str(e, "stableId") && !crawl__str(e, "name") && nameless_live(role)) return;
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
pk_item *pk_item_get(pk *b, const char *kind, const char *key, int severity, const char *route) {
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
void pk_item_text(pk_item *it, char *desc, char *remedy) {
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
void pk_item_set(char **field, const char *v) { pk_keep_min(field, v); }

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
void pk_fold_state_findings(pk *b, pk_state *st, pk_route *rt, const cJSON *g) {
  findings_opaque_frames(b, st, rt, g);
  findings_closed_shadow(b, st, rt, g);
  findings_duplicates(b, st, g);
}

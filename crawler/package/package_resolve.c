/* package_resolve.c -- resolving the journal records that target an element
 * (transition, decision, failure) against the graph of their state: role +
 * name counts, the scope index, the route context; and pk_state_fold, which
 * folds one state and resolves the records that point into it. Order and
 * aggregation come afterwards (package_journal.c, package_aggregate.c).
 */
#include "pkg_int.h"
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
void pk_route_context_fold(pk_route *rt, const cJSON *route, const cJSON *meta, const pk_state *st) {
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


/* Every state folded in natural id order, each resolving the records that
 * point into it (records of no known state resolve against nothing), then
 * the records put in canonical order. */
void pk_fold_states(pk *b) {
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

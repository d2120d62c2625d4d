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
#include "pkg_int.h"
#include "api_export_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the model: notes and catalog entries ------------------------------------ */
void pk_note(pk *b, const char *text) {
  PK_GROW(b->note_v, b->nnotes, b->capnotes);
  b->note_v[b->nnotes++] = crawl__xstrdup(text);
}

/* Index of key in set; a new key gets a zeroed entry in the parallel array
 * *arr (element size sz), grown alongside the set. */
long pk_entry(strset *set, void **arr, size_t sz, const char *key, int *added) {
  size_t n0 = set->n;
  long i = pk_strset_put(set, key, added);
  if (set->n != n0) {
    *arr = crawl__xrealloc(*arr, set->cap * sz);
    memset((char *)*arr + (size_t)i * sz, 0, sz);
  }
  return i;
}
/* ---- entry points --------------------------------------------------------------------- */
/* The model; b->log (the journal's records) is released by the caller. */
static void pk_free(pk *b) {
  for (size_t i = 0; i < b->nnotes; i++) free(b->note_v[i]);
  free(b->note_v);
  free(b->seed_lines);
  free(b->reviews);
  free(b->req_recs);
  pk_api_free(b->api);
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
  pk_strset_free(&b->self_loop_ids);
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

/* ---- coverage ------------------------------------------------------------------ */
/* coverage's counters, taken from the model while it is there; the coverage
 * object is emitted after the workflow finder ran (pk_emit_tail), with its
 * candidates, resolved workflow seeds and review items counted in. */
typedef struct pk_cover {
  int nseeds, visited, opaque;
  size_t routes, scopes, elements, actions, items, states, transitions;
  long unresolved, self;
  conf_sum cs;
  char *stopped_by;             /* owned */
} pk_cover;

static void cover_take(pk *b, const conf_sum *cs, char *stopped_by, pk_cover *c) {
  c->nseeds = cJSON_GetArraySize(crawl__get(b->run, "seeds"));
  c->visited = 0;
  for (int s = 0; s < c->nseeds; s++) c->visited += pk_seed_visited(b, s); /* workflow seeds: pk_workflows */
  c->routes = b->route_ids.n;
  c->scopes = b->scope_keys.n;
  c->elements = b->element_keys.n;
  c->actions = b->action_ids.n;
  c->opaque = b->opaque_regions;
  c->unresolved = b->nfailures + b->nreplays;
  c->items = b->item_keys.n;
  c->cs = *cs;
  c->stopped_by = stopped_by;
  c->states = b->state_ids.n;
  c->transitions = b->transition_ids.n;
  c->self = b->nself;
}

/* coverage (takes c->stopped_by): ncands workflow candidates, seeds_resolved
 * workflow seeds resolved, items the review queue's items (NULL: none). */
static cJSON *out_coverage(pk_cover *c, int ncands, int seeds_resolved, const cJSON *items) {
  cJSON *cov = crawl__jx(cJSON_CreateObject());
  pk_jnum(cov, "seedsTotal", c->nseeds);
  pk_jnum(cov, "seedsVisited", c->visited + seeds_resolved);
  pk_jnum(cov, "routesDiscovered", (double)c->routes);
  pk_jnum(cov, "scopesDiscovered", (double)c->scopes);
  pk_jnum(cov, "elementsDiscovered", (double)c->elements);
  pk_jnum(cov, "actionsDiscovered", (double)c->actions);
  pk_jnum(cov, "workflowCandidatesDiscovered", ncands);
  pk_jnum(cov, "opaqueRegions", c->opaque);
  pk_jnum(cov, "unresolvedTransitions", (double)c->unresolved);
  pk_jnum(cov, "reviewItems", items ? (double)cJSON_GetArraySize(items) : (double)c->items);
  cJSON *csum = crawl__jx(cJSON_CreateObject());
  pk_jnum(csum, "high", (double)c->cs.high);
  pk_jnum(csum, "medium", (double)c->cs.medium);
  pk_jnum(csum, "low", (double)c->cs.low);
  crawl__jset(cov, "confidenceSummary", csum);
  crawl__jstr(cov, "stoppedBy", c->stopped_by);
  pk_jnum(cov, "statesVisited", (double)c->states);
  pk_jnum(cov, "transitionsRecorded", (double)c->transitions);
  pk_jnum(cov, "selfLoops", (double)c->self);
  free(c->stopped_by);
  c->stopped_by = NULL;
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

/* Sealed probes (docs/safety.md): the transitions a probe allowed (rule
 * probe.sealed, in their decision) and the decisions it denied (rules
 * probe.write, probe.destructive), each once per state. */
static void count_probes(const pk *b, long *allowed, long *denied) {
  *allowed = *denied = 0;
  for (size_t i = 0; i < b->nrefs; i++) {
    const cJSON *j = b->refs[i].line;
    int tr = !strcmp(b->refs[i].type, "transition"), dec = !strcmp(b->refs[i].type, "decision");
    const char *rule = tr ? crawl__str(crawl__get(j, "decision"), "rule") : dec ? crawl__str(j, "rule") : NULL;
    if (!rule || strncmp(rule, "probe.", 6)) continue;
    if (tr && !strcmp(rule, "probe.sealed")) ++*allowed;
    else if (dec && !strcmp(crawl__str(j, "effect") ? crawl__str(j, "effect") : "", "deny")) ++*denied;
  }
}

static cJSON *out_gate(pk *b) {
  cJSON *g = crawl__jx(cJSON_CreateObject());
  long pa, pd;
  count_probes(b, &pa, &pd);
  pk_jnum(g, "allow", (double)(b->nallowed + pa));
  pk_jnum(g, "skip", (double)b->ndecisions[1]);
  pk_jnum(g, "review", (double)b->ndecisions[2]);
  pk_jnum(g, "deny", (double)b->ndecisions[3]);
  cJSON *by_class = crawl__jx(cJSON_CreateObject());
  cJSON *by_rule = out_gate_rules(b, by_class);
  crawl__jset(g, "byClass", by_class);
  crawl__jset(g, "byRule", by_rule);
  cJSON *pr = crawl__jx(cJSON_CreateObject()); /* of allow and deny above: what sealed probes decided */
  pk_jnum(pr, "allow", (double)pa);
  pk_jnum(pr, "deny", (double)pd);
  pk_jnum(pr, "untried", (double)(b->nprobes > pa + pd ? b->nprobes - pa - pd : 0));
  crawl__jset(g, "probed", pr);
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
  crawl__jset(m, "actionFailures", pk_failed_json(b));
  /* a run on a baseline (docs/nightly.md): what it verified, carried, explored */
  if (cJSON_IsObject(crawl__get(b->end, "baseline")))
    crawl__jset(m, "baseline", crawl__jx(cJSON_Duplicate(crawl__get(b->end, "baseline"), 1)));
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
 * text (workflow.c wf_item) and scopeCatalog, actionCatalog and reviewQueue
 * as trees. The same bytes come out: the growth test compares
 * what report wrote with crawl_package_build's package. */
cJSON *pk_park(const pk *b, cJSON *section) {
  if (!b->park) return section;
  char *text = crawl__jtext(section, 0);
  cJSON_Delete(section);
  cJSON *raw = crawl__jx(cJSON_CreateRaw(""));
  cJSON_free(raw->valuestring);
  raw->valuestring = text; /* both from cJSON's allocator */
  return raw;
}

/* What the package's last members need of the model, taken before it goes. */
typedef struct pk_tail {
  pk_cover cover;
  cJSON *evidence, *metadata;
} pk_tail;

/* The package, in the spec's member order, up to reviewQueue; the rest of
 * it, which the model alone gives, into *t (pk_emit_tail adds it once the
 * workflow candidates are in). */
static cJSON *pk_emit(pk *b, pk_tail *t) {
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
  cover_take(b, &cs, stopped_by, &t->cover);
  t->evidence = pk_park(b, pk_out_evidence(b));
  t->metadata = out_metadata(b);
  return p;
}

/* coverage, evidenceIndex and metadata after the workflow finder's
 * workflowCandidates (before reviewQueue) and review items. */
static void pk_emit_tail(cJSON *p, pk_tail *t, int ncands, int seeds_resolved) {
  const cJSON *items = crawl__arr2(p, "reviewQueue", "items");
  crawl__jset(p, "coverage", out_coverage(&t->cover, ncands, seeds_resolved, items));
  crawl__jset(p, "evidenceIndex", t->evidence);
  crawl__jset(p, "metadata", t->metadata);
}

/* The package of dir into *package; park: sections as text (only written). */
static crawl_code package_build(const char *dir, cJSON **package, cJSON **api, cJSON **har, char *err, size_t errlen,
                                int park) {
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
  crawl_code rc = pk_journal_read(&b) != 0 ? CRAWL_IO : !b.run ? CRAWL_ARG : CRAWL_OK;
  if (rc) {
    if (rc == CRAWL_ARG) snprintf(err, errlen, "%s/journal.jsonl has no run record", dir);
    crawl__jlog_release(&b.log);
    pk_free(&b);
    pk_pool_release();
    return rc;
  }
  pk_fold_states(&b);
  pk_aggregate(&b);
  pk_review_derive(&b);
  b.api = pk_api_build(&b); /* the endpoint catalog: api.json, and the network citations */
  pk_tail t = {0};
  cJSON *p = pk_emit(&b, &t);
  if (api && b.nreq) *api = pk_api_json(b.api, &b); /* a journal without requests records: no api.json */
  if (har && b.nreq) *har = crawl__api_har_log(&b.log); /* requests.har (api_har.c) */
  crawl__jlog log = b.log; /* the workflow finder reads the same records */
  pk_free(&b);             /* p holds copies: the model goes before the workflow finder grows */
  pk_pool_release();
  /* workflow candidates (6.7, 11.7): placed before reviewQueue, with their
   * review items, before coverage counts them (workflow.c) */
  int resolved = 0, ncands = pk_workflows(p, dir, &log, &resolved);
  crawl__jlog_release(&log);
  pk_emit_tail(p, &t, ncands, resolved);
  /* "verified" only from a reviewer's decisions (reviewed.c) */
  crawl_reviewed_apply(p, dir);
  *package = p;
  return CRAWL_OK;
}

crawl_code crawl_package_build(const char *dir, cJSON **package, char *err, size_t errlen) {
  return package_build(dir, package, NULL, NULL, err, errlen, 0);
}

crawl_code pk_api_rebuild(const char *dir, cJSON **api, char *err, size_t errlen) {
  cJSON *p = NULL;
  *api = NULL;
  crawl_code rc = package_build(dir, &p, api, NULL, err, errlen, 0);
  cJSON_Delete(p);
  return rc;
}

/* Build and write DIR/package.json; keep (may be NULL) gets the package as
 * written, parsed from the text in hand. */
static crawl_code package_write(const char *dir, char *err, size_t errlen, crawl_package *keep) {
  char dummy[8];
  if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
  cJSON *p = NULL, *api = NULL, *har = NULL;
  crawl_code rc = package_build(dir, &p, &api, &har, err, errlen, 1); /* sections parked as text: only printed */
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
    cJSON_Delete(api);
    cJSON_Delete(har);
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
  if (ok && keep) pk_kept_parse(keep, text, len); /* what the reports read: no second load */
  free(text);
  if (!ok || rename(tmp, path) != 0) {
    if (ok) saved = errno;
    snprintf(err, errlen, "%s: %s", path, strerror(saved));
    unlink(tmp);
    cJSON_Delete(api);
    cJSON_Delete(har);
    return CRAWL_IO;
  }
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)fsync(dfd); /* the rename itself is durable */
    close(dfd);
  }
  /* beside package.json: api.json and what is made from it (package_out.c) */
  int e = pk_api_files_write(dir, api, err, errlen);
  /* the exports: OpenAPI of api.json, HAR of the requests (api_export.c) */
  int x = crawl__api_exports_put(dir, api, har);
  if (x && !e) e = x, snprintf(err, errlen, "%s/requests.har or api.openapi.json: %s", dir, strerror(x));
  cJSON_Delete(api);
  return e ? CRAWL_IO : CRAWL_OK;
}

crawl_code crawl_package_write(const char *dir, char *err, size_t errlen) {
  return package_write(dir, err, errlen, NULL);
}

crawl_code crawl_package_make(const char *dir, crawl_package **pkg, char *err, size_t errlen) {
  if (!pkg) return package_write(dir, err, errlen, NULL);
  *pkg = NULL;
  crawl_package *k = pk_kept_new(dir);
  crawl_code rc = package_write(dir, err, errlen, k);
  if (!rc && !k->pkg) { /* written, but not read back: cannot happen with our own text */
    if (err && errlen) snprintf(err, errlen, "%s/package.json: not read back", dir);
    rc = CRAWL_IO;
  }
  if (rc) {
    crawl_package_free(k);
    return rc;
  }
  *pkg = k;
  return CRAWL_OK;
}

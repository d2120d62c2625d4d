/* api.c -- the endpoint catalog (OUT/api.json, docs/api.md): the journal's
 * `requests` records (format A, collected by package_journal.c) grouped
 * into endpoints -- one per method, origin and path template
 * (api_template.c) -- with who called them (loads, states, routes,
 * transitions, principals), what came back and what the write guard
 * stopped; and the citations the package's transitions and actions take
 * from it (discoveredBy {source "network"}). The JSON is api_out.c's.
 * Static assets (scripts, styles, images, fonts, media) are counted only.
 * No value reaches the catalog but what the URLs carry, and an example URL
 * loses the values of credential-named query keys (crawl_secrets.h).
 */
#include "api_int.h"

#include "crawl_secrets.h"

static const char *const asset_types[] = {"Script", "Stylesheet", "Image", "Font", "Media", "Manifest", "TextTrack"};
static const char *const beacon_types[] = {"Ping", "CSPViolationReport"};

/* An endpoint's kind, by rank: the highest any of its requests had. */
const char *const api_kinds[API_NKINDS] = {"document", "beacon", "api", "graphql"};

static int kind_rank(const cJSON *req) {
  const char *rt = crawl__str(req, "resourceType"), *guard = crawl__str(req, "guard");
  if (!strcmp(crawl__str(crawl__get(req, "body"), "kind") ?: "", "graphql")) return 3;
  if ((guard && !strcmp(guard, "beacon")) || (rt && PK_IN(beacon_types, rt))) return 1;
  if (rt && !strcmp(rt, "Document")) return 0;
  return 2;
}

static int is_asset(const cJSON *req) {
  const char *rt = crawl__str(req, "resourceType");
  return rt && PK_IN(asset_types, rt);
}

int api_stopped(const char *guard) { return guard && (!strcmp(guard, "write") || !strcmp(guard, "write_intent")); }

/* ---- one request's parts ------------------------------------------------------------- */
typedef struct api_req {
  const cJSON *rec, *req;
  const char *method, *url, *guard;
  char origin[512];
  char *path;           /* the path alone, "/" at least (owned) */
} api_req;

/* 0 and r filled, or -1: no method or URL, off the app's origins, an asset. */
static int req_parse(const cJSON *rec, const cJSON *req, api_req *r, pk_api *a) {
  memset(r, 0, sizeof *r);
  r->rec = rec;
  r->req = req;
  r->method = crawl__str(req, "method");
  r->url = crawl__str(req, "url");
  r->guard = crawl__str(req, "guard");
  if (!r->method || !r->url || (r->guard && !strcmp(r->guard, "off_origin"))) return -1;
  if (is_asset(req)) { a->assets++; return -1; }
  if (pg_url_origin(r->url, r->origin, sizeof r->origin) < 0) return -1;
  const char *rest = pg_url_rest(r->url);
  size_t n = pg_url_query_start(rest);
  r->path = n ? crawl__xstrndup(rest, n) : crawl__xstrdup("/");
  return 0;
}

/* The example: path and query (no fragment), with the values of query keys
 * that name a credential as "[redacted]". Caller frees. */
static char *req_example(const api_req *r) {
  const char *rest = pg_url_rest(r->url);
  char *ex = crawl__xstrndup(rest, pg_url_fragment_start(rest));
  if (!strchr(ex, '?')) return ex; /* no query: nothing named a credential */
  crawl__secrets *s = crawl__secrets_new();
  crawl__secrets_add_url(s, r->url, 0);
  char *clean = crawl__secrets_scrub(s, ex, NULL);
  crawl__secrets_free(s);
  free(ex);
  return clean;
}

/* The query's keys into set (never a value). */
static void req_query_keys(const api_req *r, strset *set) {
  const char *rest = pg_url_rest(r->url);
  size_t q = pg_url_query_start(rest), f = pg_url_fragment_start(rest);
  if (q >= f || rest[q] != '?') return;
  for (const char *p = rest + q + 1, *end = rest + f; p < end;) {
    const char *amp = memchr(p, '&', (size_t)(end - p)), *e = amp ? amp : end;
    const char *eq = memchr(p, '=', (size_t)(e - p));
    size_t kl = (size_t)((eq ? eq : e) - p);
    if (kl && kl < 200) {
      char *k = crawl__xstrndup(p, kl);
      pk_strset_add(set, k);
      free(k);
    }
    p = e + 1;
  }
}

/* ---- endpoints --------------------------------------------------------------------- */
static api_ep *ep_get(pk_api *a, const api_req *r) {
  char **params;
  size_t np;
  char *tpl = pk_tpl_template(a->learner, r->origin, r->path, &params, &np);
  char *key = crawl__xprintf("%s\x1f%s\x1f%s", r->origin, tpl, r->method);
  int added;
  long i = PK_ENTRY(a->ep_keys, a->eps, key, &added);
  api_ep *e = &a->eps[i];
  if (added) {
    char *h = crawl__xprintf("%s %s%s", r->method, r->origin, tpl);
    e->id = crawl__xprintf("ep_%08x", (unsigned)(crawl__hash_bytes(h, strlen(h), 0) >> 32));
    free(h);
    e->method = crawl__xstrdup(r->method);
    e->origin = crawl__xstrdup(r->origin);
    e->tpl = tpl;
    e->params = params;
    e->nparams = np;
    e->kind = -1;
    tpl = NULL;
    params = NULL;
    np = 0;
  }
  for (size_t k = 0; k < np; k++) free(params[k]);
  free(params);
  free(tpl);
  free(key);
  return e;
}

/* "GET /api/pets/{id} 200", "POST /api/pets stopped (write)". Caller frees. */
static char *cite_note(const api_ep *e, const api_req *r) {
  const cJSON *st = crawl__get(r->req, "status");
  if (api_stopped(r->guard)) return crawl__xprintf("would write: %s %s, stopped (%s)", e->method, e->tpl, r->guard);
  if (cJSON_IsNumber(st)) return crawl__xprintf("%s %s %d", e->method, e->tpl, st->valueint);
  return crawl__xprintf("%s %s failed", e->method, e->tpl);
}

static void cite(strset *ids, strset **cites, const char *id, const api_ep *e, const api_req *r) {
  if (!id) return;
  int added;
  long i = pk_entry(ids, (void **)cites, sizeof **cites, id, &added);
  char *note = cite_note(e, r), *c = crawl__xprintf("%s\x1f%s", e->id, note);
  pk_strset_add(&(*cites)[i], c);
  free(c);
  free(note);
}

/* Where the request came from: calledFrom, principals, citations. */
static void ep_caller(pk *b, pk_api *a, api_ep *e, const api_req *r) {
  const cJSON *rec = r->rec;
  const char *phase = crawl__str(rec, "phase"), *state = crawl__str(rec, "stateId");
  const char *tr = crawl__str(rec, "transitionId"), *act = crawl__str(rec, "actionId");
  int timer = !strcmp(crawl__str(r->req, "initiator") ?: "", "timer");
  int load = phase && !strcmp(phase, "load");
  if (state) pk_strset_add(load ? &e->loads : &e->states, state);
  const pk_state *st = state ? pk_state_of(b, state) : NULL;
  if (st && st->route && strcmp(st->route, "unknown")) pk_strset_add(&e->routes, st->route);
  if (load || timer) return; /* a load's requests, or the page's own while idle: not the action's */
  if (tr) { /* a self-loop is not published (package_out_graph.c): its state and control are */
    int loop = pk_strset_find(&b->self_loop_ids, tr) >= 0;
    char *t = crawl__jtext(crawl__get(rec, "target"), 0);
    char *k = crawl__xprintf("%s\x1f%s\x1f%s", loop ? state ? state : "" : tr, act ? act : "", t ? t : "");
    pk_strset_add(loop ? &e->actions : &e->transitions, k);
    free(k);
    free(t);
  }
  cite(&a->tr_ids, &a->tr_cites, tr, e, r);
  cite(&a->act_ids, &a->act_cites, act, e, r);
}

/* A stopped write: its stoppedWrites entry, kept as sort key \x1e JSON. */
static void ep_stopped(pk *b, pk_api *a, const api_ep *e, const api_req *r) {
  const cJSON *rec = r->rec;
  const char *tr = crawl__str(rec, "transitionId");
  if (tr && pk_strset_find(&b->self_loop_ids, tr) >= 0) tr = NULL; /* not published */
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "endpointId", e->id);
  crawl__jstr(o, "method", e->method);
  crawl__jstr(o, "template", e->tpl);
  const char *why = crawl__str(r->req, "guardWhy");
  crawl__jstr(o, "why", why ? why : !strcmp(r->guard, "write") ? "a write" : "a GET whose URL reads as a write");
  crawl__jstr(o, "stateId", crawl__str(rec, "stateId"));
  crawl__jstr(o, "actionId", crawl__str(rec, "actionId"));
  if (cJSON_IsObject(crawl__get(rec, "target"))) crawl__jset(o, "target", cJSON_Duplicate(crawl__get(rec, "target"), 1));
  crawl__jstr(o, "transitionId", tr);
  if (cJSON_IsTrue(crawl__get(rec, "probed"))) crawl__jset(o, "probed", cJSON_CreateTrue());
  char *t = crawl__jtext(o, 0);
  char *k = crawl__xprintf("%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\x1e%s", e->origin, e->tpl, e->method, crawl__str(rec, "stateId") ?: "",
                           crawl__str(rec, "actionId") ?: "", tr ?: "", t);
  pk_strset_add(&a->stopped, k);
  free(k);
  free(t);
  cJSON_Delete(o);
}

/* What came back and what went out: statuses, types, body, guard. */
static void ep_response(api_ep *e, const api_req *r) {
  const cJSON *req = r->req, *st = crawl__get(req, "status"), *body = crawl__get(req, "body");
  const char *who = crawl__str(r->rec, "principal");
  e->count++;
  int k = kind_rank(req);
  if (k > e->kind) e->kind = k;
  if (cJSON_IsNumber(st)) {
    char s[24];
    snprintf(s, sizeof s, "%d", st->valueint);
    pk_strset_add(&e->statuses, s);
    if (who) {
      char *p = crawl__xprintf("%s\x1f%s", who, s);
      pk_strset_add(&e->principals, p);
      free(p);
    }
  } else if (who) {
    char *p = crawl__xprintf("%s\x1f", who); /* called, nothing came back */
    pk_strset_add(&e->principals, p);
    free(p);
  }
  if (crawl__str(req, "mimeType")) pk_strset_add(&e->ctypes, crawl__str(req, "mimeType"));
  if (api_stopped(r->guard)) e->stopped++;
  else if (r->guard && (!strcmp(r->guard, "read") || !strcmp(r->guard, "beacon"))) e->read++;
  else if (!r->guard || !strcmp(r->guard, "passed")) e->passed++;
  const char *bk = crawl__str(body, "kind");
  if (bk) pk_strset_add(&e->bkinds, bk);
  if (cJSON_IsObject(crawl__get(body, "shape"))) {
    char *t = crawl__jtext(crawl__get(body, "shape"), 0);
    pk_strset_add(&e->shapes, t);
    free(t);
  }
  const cJSON *op;
  cJSON_ArrayForEach(op, crawl__arr(body, "operations")) {
    char *t = crawl__xprintf("%s\x1f%s", crawl__str(op, "name") ?: "", crawl__str(op, "type") ?: "unknown");
    pk_strset_add(&e->gql, t);
    free(t);
  }
}

static void api_request(pk *b, pk_api *a, const api_req *r) {
  api_ep *e = ep_get(a, r);
  ep_response(e, r);
  req_query_keys(r, &e->query);
  char *ex = req_example(r);
  pk_strset_add(&e->examples, ex);
  free(ex);
  ep_caller(b, a, e, r);
  if (api_stopped(r->guard)) ep_stopped(b, a, e, r);
}

/* ---- the build --------------------------------------------------------------------- */
/* fn on every request of every record (parsed; skipped ones not). */
static void each_request(pk *b, pk_api *a, void (*fn)(pk *, pk_api *, const api_req *)) {
  for (size_t i = 0; i < b->nreq; i++) {
    const cJSON *req;
    cJSON_ArrayForEach(req, crawl__arr(b->req_recs[i], "requests")) {
      api_req r;
      if (req_parse(b->req_recs[i], req, &r, a)) continue;
      fn(b, a, &r);
      free(r.path);
    }
  }
}

static void note_path(pk *b, pk_api *a, const api_req *r) {
  (void)b;
  pk_tpl_note(a->learner, r->origin, r->path);
}

pk_api *pk_api_build(pk *b) {
  pk_api *a = crawl__xcalloc(1, sizeof *a);
  a->learner = pk_tpl_learner_new();
  each_request(b, a, note_path);
  pk_tpl_learn(a->learner);
  a->assets = 0; /* counted again by the second pass */
  each_request(b, a, api_request);
  return a;
}

void pk_api_free(pk_api *a) {
  if (!a) return;
  for (size_t i = 0; i < a->ep_keys.n; i++) {
    api_ep *e = &a->eps[i];
    free(e->id);
    free(e->method);
    free(e->origin);
    free(e->tpl);
    for (size_t k = 0; k < e->nparams; k++) free(e->params[k]);
    free(e->params);
    strset *sets[] = {&e->query, &e->statuses, &e->ctypes, &e->examples, &e->loads, &e->states, &e->routes,
                      &e->transitions, &e->actions, &e->principals, &e->bkinds, &e->shapes, &e->gql};
    for (size_t k = 0; k < PK_COUNT(sets); k++) pk_strset_free(sets[k]);
  }
  free(a->eps);
  pk_strset_free(&a->ep_keys);
  for (size_t i = 0; i < a->tr_ids.n; i++) pk_strset_free(&a->tr_cites[i]);
  for (size_t i = 0; i < a->act_ids.n; i++) pk_strset_free(&a->act_cites[i]);
  free(a->tr_cites);
  free(a->act_cites);
  pk_strset_free(&a->tr_ids);
  pk_strset_free(&a->act_ids);
  pk_strset_free(&a->stopped);
  pk_tpl_learner_free(a->learner);
  free(a);
}

/* ---- citations --------------------------------------------------------------------- */
static void cite_push(const strset *ids, const strset *cites, const char *id, cJSON *ev) {
  long i = ids && id ? pk_strset_find(ids, id) : -1;
  if (i < 0) return;
  char **v = pk_strset_sorted(&cites[i], pk_cmp_nat);
  for (size_t k = 0; k < cites[i].n && k < PK_EVIDENCE_MAX; k++) {
    char *ref = crawl__xstrdup(v[k]), *note = strchr(ref, '\x1f');
    *note++ = 0;
    pk_ev_push(ev, "network", ref, note);
    free(ref);
  }
  free(v);
}

void pk_api_cite_transition(const pk_api *a, const char *id, cJSON *ev) {
  if (a) cite_push(&a->tr_ids, a->tr_cites, id, ev);
}
void pk_api_cite_action(const pk_api *a, const char *id, cJSON *ev) {
  if (a) cite_push(&a->act_ids, a->act_cites, id, ev);
}

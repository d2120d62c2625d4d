/* observe_signals.c -- what web.observe learns between captures, and the
 * signals it makes of it (5.12): the signal kinds and their names, the
 * events (the reporter's binding, navigations, the page closing, network
 * requests), element keys resolved to backendNodeIds, live-region reports
 * (toast.shown, status.changed) and form submits with the requests that
 * follow them, and non-GET requests of the app's origins no form sent
 * (submission.started, submission.finished; detail.endpoint: the method
 * and path template, docs/api.md).
 *
 * Not here: the signals the graphs show (route.changed, dialog.*,
 * validation.changed: pg_delta_signals, called from observe.c), the
 * page-side reporter (js/live_reporter.js).
 */
#include "netlog.h"
#include "observe_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- signal kinds -------------------------------------------------------------- */
static const char *const kind_names[] = {
#define CRAWL__SK(name, str) str,
  CRAWL_SIGNAL_KINDS(CRAWL__SK)
#undef CRAWL__SK
};

const char *crawl_signal_kind_name(crawl_signal_kind k) {
  return k < CRAWL_SIG__COUNT ? kind_names[k] : "custom";
}

int crawl_signal_kinds_parse(const char *csv, unsigned *out) {
  *out = 0;
  if (!csv) return -1;
  const char *p = csv;
  while (*p) {
    size_t n = strcspn(p, ",");
    int found = 0;
    if (n == 3 && !strncmp(p, "all", 3)) {
      *out = (1u << CRAWL_SIG__COUNT) - 1;
      found = 1;
    }
    for (int k = 0; k < CRAWL_SIG__COUNT && !found; k++)
      if (strlen(kind_names[k]) == n && !strncmp(p, kind_names[k], n)) {
        *out |= 1u << k;
        found = 1;
      }
    if (!found) return -1;
    p += n;
    if (*p == ',') p++;
  }
  return 0;
}

int crawl__obs_kind_bit(const char *name) {
  for (int k = 0; k < CRAWL_SIG__COUNT; k++)
    if (name && !strcmp(kind_names[k], name)) return k;
  return -1;
}

/* ---- events ------------------------------------------------------------------------------ */
static int mine(obs *s, const char *session) {
  const char *me = crawl_page_session(s->p);
  return session && me && !strcmp(session, me);
}

static void submit_register(obs *s, const cJSON *item, int ctx);

void crawl__obs_on_binding(void *ud, const char *session, const char *method, const cJSON *params) {
  obs *s = ud;
  if (!mine(s, session)) return;
  const char *name = crawl__str(params, "name"), *payload = crawl__str(params, "payload");
  if (!name || strcmp(name, s->binding) || !payload) return;
  if (strlen(payload) > 1 << 20) return; /* untrusted: cap */
  cJSON *r = cJSON_Parse(payload);
  if (!cJSON_IsObject(r)) {
    cJSON_Delete(r);
    return;
  }
  const cJSON *ctx = crawl__get(params, "executionContextId");
  int cx = cJSON_IsNumber(ctx) ? ctx->valueint : 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, crawl__get(r, "sub")) submit_register(s, it, cx);
  cJSON_DeleteItemFromObjectCaseSensitive(r, "sub");
  cJSON_AddNumberToObject(r, "ctx", cx);
  if (cJSON_GetArraySize(s->reports) >= 256) cJSON_DeleteItemFromArray(s->reports, 0); /* untrusted: cap */
  cJSON_AddItemToArray(s->reports, r);
  s->own_dirty = 1;
}

void crawl__obs_on_nav(void *ud, const char *session, const char *method, const cJSON *params) {
  obs *s = ud;
  if (!mine(s, session)) return;
  if (!strcmp(method, "Page.navigatedWithinDocument")) {
    const char *fid = crawl__str(params, "frameId");
    const char *top = s->last && s->last->ndocuments ? s->last->documents[0].frame_id : NULL;
    if (fid && (!top || !strcmp(fid, top))) s->nav_same = 1;
  } else if (!crawl__get(crawl__get(params, "frame"), "parentId")) {
    s->nav_full = 1;
  }
  s->own_dirty = 1; /* a navigation is no noise */
}

void crawl__obs_on_closed(void *ud, const char *session, const char *method, const cJSON *params) {
  obs *s = ud;
  if (!strcmp(method, "Inspector.targetCrashed")) {
    if (mine(s, session)) s->crashed = 1;
    return;
  }
  if (!strcmp(method, "Inspector.detached")) {
    if (mine(s, session)) s->closed = 1;
    return;
  }
  /* Target.detachedFromTarget */
  if (mine(s, crawl__str(params, "sessionId"))) s->closed = 1;
}

/* The submit's endpoint, from its first request of the app's origins. */
static void submit_endpoint(obs *s, submit *b, const char *m, const char *url) {
  if (b->endpoint || !m || !url || strlen(m) >= sizeof b->emethod || crawl__page_net_scope(s->p, url) <= 0) return;
  b->endpoint = crawl__netlog_template(url);
  snprintf(b->emethod, sizeof b->emethod, "%s", m);
}

/* A free submit slot, cleared, or NULL. */
static submit *submit_slot(obs *s) {
  for (int i = 0; i < MAX_SUBMITS; i++)
    if (!s->submits[i].active) {
      memset(&s->submits[i], 0, sizeof s->submits[i]);
      return &s->submits[i];
    }
  return NULL;
}

/* A non-GET request of the app's origins that no form sent (a script's
 * fetch): a submission of its own. 1 when it is one. */
static int submit_from_request(obs *s, const char *rid, const char *m, const char *url, long long now) {
  if (!m || !strcmp(m, "GET") || !strcmp(m, "HEAD") || !strcmp(m, "OPTIONS") || !url || crawl__page_net_scope(s->p, url) <= 0)
    return 0;
  submit *b = submit_slot(s);
  if (!b) return 0;
  b->active = b->from_request = 1;
  b->t0 = now;
  for (size_t i = 0; m[i] && i + 1 < sizeof b->method; i++) /* lower case, as a form's method */
    b->method[i] = (char)(m[i] >= 'A' && m[i] <= 'Z' ? m[i] + 32 : m[i]);
  submit_endpoint(s, b, m, url);
  b->req[b->nreq++] = crawl__xstrdup(rid);
  s->own_dirty = 1;
  return 1;
}

/* A request starts: a submit's in its window, a submission of its own, or
 * kept a moment for a submit reported after it. */
static void request_started(obs *s, const char *rid, const cJSON *params, long long now) {
  const cJSON *req = crawl__get(params, "request");
  const char *m = crawl__str(req, "method"), *url = crawl__str(req, "url");
  for (int i = 0; i < MAX_SUBMITS; i++) {
    submit *b = &s->submits[i];
    if (!b->active || now - b->t0 > SUBMIT_WINDOW_MS) continue;
    for (int k = 0; k < b->nreq; k++)
      if (b->req[k] && !strcmp(b->req[k], rid)) return; /* a redirect */
    if (b->nreq < MAX_REQS) b->req[b->nreq++] = crawl__xstrdup(rid);
    submit_endpoint(s, b, m, url);
    return;
  }
  if (submit_from_request(s, rid, m, url, now)) return;
  /* no submit yet: its report may still be on the way */
  recent_req *r = &s->recent[s->nrecent++ % RECENT];
  free(r->rid);
  r->rid = crawl__xstrdup(rid);
  r->t = now;
}

/* Submissions: requests that start soon after a submit belong to it. */
void crawl__obs_on_network(void *ud, const char *session, const char *method, const cJSON *params) {
  obs *s = ud;
  if (!mine(s, session)) return;
  const char *rid = crawl__str(params, "requestId");
  if (!rid) return;
  long long now = cdp_now_ms();
  if (!strcmp(method, "Network.requestWillBeSent")) {
    const char *type = crawl__str(params, "type");
    if (!type || (strcmp(type, "XHR") && strcmp(type, "Fetch") && strcmp(type, "Document"))) return;
    request_started(s, rid, params, now);
    return;
  }
  for (int i = 0; i < MAX_SUBMITS; i++) {
    submit *b = &s->submits[i];
    if (!b->active) continue;
    for (int k = 0; k < b->nreq; k++) {
      if (!b->req[k] || strcmp(b->req[k], rid)) continue;
      if (!strcmp(method, "Network.responseReceived")) {
        const cJSON *st = crawl__get(crawl__get(params, "response"), "status");
        if (cJSON_IsNumber(st)) b->status = st->valueint;
        return;
      }
      /* loadingFinished / loadingFailed: this request is done */
      if (!strcmp(method, "Network.loadingFailed")) b->failed++;
      free(b->req[k]);
      b->req[k] = NULL;
      b->ndone++;
      b->last_done = now;
      s->own_dirty = 1;
      return;
    }
  }
}

/* ---- element keys -> backendNodeIds ------------------------------------------------------ */
/* The reporter names elements by a small key per frame; the graph by
 * backendNodeId. Ask the frame for the element, then DOM for its id. */
static int resolve_key(obs *s, int ctx, int key) {
  for (int i = 0; i < s->nkeys; i++)
    if (s->keys[i].ctx == ctx && s->keys[i].key == key) return s->keys[i].backend;
  char *expr = crawl__xprintf(CRAWL__JS(live_reporter_element), s->binding, key);
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddStringToObject(a, "expression", expr);
  free(expr);
  if (ctx) cJSON_AddNumberToObject(a, "contextId", ctx);
  cJSON_AddBoolToObject(a, "silent", 1);
  int backend = 0;
  const char *sess = crawl_page_session(s->p);
  if (cdp_call(s->c, sess, "Runtime.evaluate", a, &res, 5000) == CDP_OK) {
    const char *oid = crawl__str(crawl__get(res, "result"), "objectId");
    if (oid) {
      cJSON *d = cJSON_CreateObject(), *dr = NULL;
      cJSON_AddStringToObject(d, "objectId", oid);
      if (cdp_call(s->c, sess, "DOM.describeNode", d, &dr, 5000) == CDP_OK) {
        const cJSON *b = crawl__get(crawl__get(dr, "node"), "backendNodeId");
        if (cJSON_IsNumber(b)) backend = b->valueint;
      }
      cJSON_Delete(dr);
      cJSON *rel = cJSON_CreateObject();
      cJSON_AddStringToObject(rel, "objectId", oid);
      int id = cdp_send(s->c, sess, "Runtime.releaseObject", rel);
      if (id > 0) cdp_abandon(s->c, id);
    }
  }
  cJSON_Delete(res);
  if (backend) {
    if (s->nkeys == KEY_CACHE) s->nkeys = 0;
    s->keys[s->nkeys++] = (key_entry){ctx, key, backend};
  }
  return backend;
}

static const pg_element *element_by_backend(const pg_graph *g, int backend) {
  for (size_t i = 0; g && backend && i < g->nelements; i++)
    if (g->elements[i].backend_node_id == backend) return &g->elements[i];
  return NULL;
}

/* ---- live regions and submits ------------------------------------------------------------- */
/* Level of a live-region message: words in its class or data-type/level
 * attributes, else by politeness. */
static const struct { const char *word, *level; } level_words[] = {
  {"error", "error"}, {"danger", "error"}, {"fail", "error"}, {"invalid", "error"},
  {"warn", "warning"}, {"success", "success"}, {"saved", "success"}, {"ok", "success"},
  {"info", "info"}, {"notice", "info"},
};
static const char *live_level(const char *hint, const char *role, const char *live) {
  char low[256];
  size_t n = 0;
  for (; hint && hint[n] && n < sizeof low - 1; n++) low[n] = (char)(hint[n] >= 'A' && hint[n] <= 'Z' ? hint[n] + 32 : hint[n]);
  low[n] = 0;
  for (size_t i = 0; i < sizeof level_words / sizeof *level_words; i++)
    if (strstr(low, level_words[i].word)) return level_words[i].level;
  if ((role && !strcmp(role, "alert")) || (live && !strcmp(live, "assertive"))) return "warning";
  return "info";
}

/* Live-region reports become toast.shown (an alert, or a region that shows
 * text it did not show before) or status.changed (a shown region's text
 * changes); targets are resolved against g, the capture they go out with. */
static void live_signals(obs *s, const cJSON *rep, int ctx, const pg_graph *g) {
  const cJSON *it;
  cJSON_ArrayForEach(it, crawl__get(rep, "live")) {
    const char *role = crawl__str(it, "role"), *live = crawl__str(it, "live"), *text = crawl__str(it, "text");
    const cJSON *k = crawl__get(it, "k");
    if (!text || !*text || !cJSON_IsNumber(k)) continue;
    int fresh = cJSON_IsTrue(crawl__get(it, "fresh"));
    int toast = fresh || (role && !strcmp(role, "alert")) || (live && !strcmp(live, "assertive"));
    cJSON *sg = crawl__obs_signal_new(s, toast ? "toast.shown" : "status.changed");
    const pg_element *e = element_by_backend(g, resolve_key(s, ctx, k->valueint));
    if (e) {
      cJSON_AddStringToObject(sg, "documentId", g->documents[e->document].document_id);
      if (e->scope >= 0) cJSON_AddStringToObject(sg, "scopeId", g->scopes[e->scope].scope_id);
      cJSON *t = cJSON_AddObjectToObject(sg, "target");
      cJSON_AddStringToObject(t, "instanceId", e->instance_id);
      if (e->stable_id) cJSON_AddStringToObject(t, "stableId", e->stable_id);
      cJSON_AddStringToObject(t, "role", e->role);
    } else if (role && *role) {
      cJSON_AddStringToObject(cJSON_AddObjectToObject(sg, "target"), "role", role);
    }
    cJSON_AddStringToObject(sg, "level", live_level(crawl__str(it, "hint"), role, live));
    char *clean = pg_text_clean(text, strlen(text), 300);
    if (clean) cJSON_AddStringToObject(sg, "text", clean);
    free(clean);
    cJSON *d = cJSON_AddObjectToObject(sg, "detail");
    cJSON_AddStringToObject(d, "politeness", live && !strcmp(live, "assertive") ? "assertive" : "polite");
    crawl__obs_signal_publish(s, sg);
  }
}

/* A submit event: track the requests that follow (and those of the last
 * moments: the report can arrive after its request). Called from the event
 * callback, so no CDP calls here: crawl__obs_submits_resolve publishes the signal. */
static void submit_register(obs *s, const cJSON *item, int ctx) {
  long long now = cdp_now_ms();
  submit *b = NULL;
  for (int i = 0; i < MAX_SUBMITS && !b; i++) { /* its request came first: that submission is the form's */
    submit *q = &s->submits[i];
    if (q->active && q->from_request && now - q->t0 <= 200) b = q;
  }
  if (b && b->started_sent) return; /* announced already, without its form */
  if (b) {
    b->from_request = 0;
    b->ctx = ctx;
    const cJSON *k = crawl__get(item, "k");
    b->key = cJSON_IsNumber(k) ? k->valueint : 0;
    s->own_dirty = 1;
    return;
  }
  if (!(b = submit_slot(s))) return;
  b->active = 1;
  b->t0 = now;
  b->ctx = ctx;
  const cJSON *k = crawl__get(item, "k");
  b->key = cJSON_IsNumber(k) ? k->valueint : 0;
  const char *m = crawl__str(item, "method");
  snprintf(b->method, sizeof b->method, "%s", m && strlen(m) < 10 ? m : "get");
  for (int i = 0; i < RECENT; i++) {
    recent_req *r = &s->recent[i];
    if (r->rid && b->t0 - r->t <= 200 && b->nreq < MAX_REQS) {
      b->req[b->nreq++] = r->rid;
      r->rid = NULL;
    }
  }
  s->own_dirty = 1;
}

/* The form scope: the nearest form scope of an element inside the form node. */
static const pg_scope *form_scope(const pg_graph *g, int form_backend) {
  for (size_t i = 0; g && form_backend && i < g->nelements; i++) {
    const pg_element *e = &g->elements[i];
    if (!pg_graph_contains(g, form_backend, e->backend_node_id)) continue;
    for (int sc = e->scope; sc >= 0; sc = g->scopes[sc].parent)
      if (g->scopes[sc].kind == PG_SCOPE_FORM) return &g->scopes[sc];
  }
  return NULL;
}

/* detail.endpoint: {method, template} of the submit's first request of
 * the app's origins, once known. */
static void add_endpoint(cJSON *d, const submit *b) {
  if (!b->endpoint) return;
  cJSON *e = cJSON_AddObjectToObject(d, "endpoint");
  cJSON_AddStringToObject(e, "method", b->emethod);
  cJSON_AddStringToObject(e, "template", b->endpoint);
}

/* Publish submission.started for new submits, with the form scope. */
void crawl__obs_submits_resolve(obs *s) {
  for (int i = 0; i < MAX_SUBMITS; i++) {
    submit *b = &s->submits[i];
    if (!b->active || b->started_sent) continue;
    b->started_sent = 1;
    const pg_graph *g = s->last;
    const pg_scope *sc = b->key ? form_scope(g, resolve_key(s, b->ctx, b->key)) : NULL;
    cJSON *sg = crawl__obs_signal_new(s, "submission.started");
    if (sc) {
      b->scope_id = crawl__xstrdup(sc->scope_id);
      b->document_id = crawl__xstrdup(g->documents[sc->document].document_id);
      cJSON_AddStringToObject(sg, "documentId", b->document_id);
      cJSON_AddStringToObject(sg, "scopeId", b->scope_id);
      if (sc->name) cJSON_AddStringToObject(sg, "text", sc->name);
    }
    cJSON_AddStringToObject(sg, "level", "info");
    cJSON *d = cJSON_AddObjectToObject(sg, "detail");
    cJSON_AddStringToObject(d, "method", b->method);
    add_endpoint(d, b);
    crawl__obs_signal_publish(s, sg);
  }
}

void crawl__obs_submit_free(submit *b) {
  for (int k = 0; k < b->nreq; k++) free(b->req[k]);
  free(b->scope_id);
  free(b->document_id);
  free(b->endpoint);
  memset(b, 0, sizeof *b);
}

/* A submission is finished when its window is over and its requests are done. */
void crawl__obs_submits_check(obs *s, long long now, int force) {
  for (int i = 0; i < MAX_SUBMITS; i++) {
    submit *b = &s->submits[i];
    if (!b->active || !b->started_sent) continue;
    int timeout = now - b->t0 > SUBMIT_TIMEOUT_MS;
    /* done: its requests finished (and no follow-up started for a moment),
     * or none came within the window */
    int done = b->nreq ? b->ndone == b->nreq && now - b->last_done >= SUBMIT_GRACE_MS
                       : now - b->t0 > SUBMIT_WINDOW_MS;
    if (!force && !timeout && !done) continue;
    cJSON *sg = crawl__obs_signal_new(s, "submission.finished");
    if (b->document_id) cJSON_AddStringToObject(sg, "documentId", b->document_id);
    if (b->scope_id) cJSON_AddStringToObject(sg, "scopeId", b->scope_id);
    const char *level = b->failed || b->status >= 400 ? "error" : b->ndone < b->nreq ? "warning" : "success";
    cJSON_AddStringToObject(sg, "level", level);
    cJSON *d = cJSON_AddObjectToObject(sg, "detail");
    cJSON_AddStringToObject(d, "method", b->method);
    add_endpoint(d, b);
    cJSON_AddNumberToObject(d, "requests", b->nreq);
    if (b->status) cJSON_AddNumberToObject(d, "status", b->status);
    if (b->failed) cJSON_AddNumberToObject(d, "failed", b->failed);
    if (b->ndone < b->nreq) cJSON_AddBoolToObject(d, "timedOut", 1);
    crawl__obs_signal_publish(s, sg);
    crawl__obs_submit_free(b);
  }
}

/* Handle the reporter's batches: live regions become signals, resolved
 * against g (the capture they go out with). */
void crawl__obs_reports_take(obs *s, const pg_graph *g) {
  cJSON *r;
  while ((r = cJSON_DetachItemFromArray(s->reports, 0))) {
    const cJSON *ctx = crawl__get(r, "ctx");
    live_signals(s, r, cJSON_IsNumber(ctx) ? ctx->valueint : 0, g);
    cJSON_Delete(r);
  }
}

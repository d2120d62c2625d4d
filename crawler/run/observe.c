/* observe.c -- web.observe (web-profile 10.2-10.5): watch one page and print
 * UIAP messages as JSON Lines: web.observe.started, a web.state.snapshot,
 * then web.state.delta and web.signal as the page changes, and
 * web.observe.stopped at the end.
 *
 * Change detection: the page's MutationObserver binding and navigations
 * (crawl_page_changes), plus a script of our own in every same-origin frame
 * that reports what mutations of the top document do not show: changes
 * inside open shadow roots, focus, input, scrolling, form submits and the
 * text of live regions (role alert/status/log, aria-live). On a change the
 * page is captured again (at most once per throttle_ms) and the delta to the
 * last published graph is printed (graph/delta.c).
 *
 * Signals (5.12): route.changed, dialog.opened/closed and validation.changed
 * come from the graphs (pg_delta_signals); toast.shown and status.changed
 * from the live-region reports; submission.started/finished from submit
 * events and the requests that follow them (Network events).
 */
#include "crawl.h"
#include "crawl_secrets.h"
#include "run_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static int kind_bit(const char *name) {
  for (int k = 0; k < CRAWL_SIG__COUNT; k++)
    if (name && !strcmp(kind_names[k], name)) return k;
  return -1;
}

/* ---- the page-side reporter ------------------------------------------------------ */
/* Runs in every frame (before the page's scripts, and at once in the frames
 * already there). It reports nothing from a frame whose top is on another
 * origin, never observes inside a closed shadow root, and masks the values
 * of sensitive fields (and card-like digit runs) in live-region text before
 * the text leaves the page. Reports are batched: one binding call per 20 ms
 * at most. window.<binding>_off undoes it all (uninstall). The script is
 * js/live_reporter.js; __B__ in it is replaced by the binding name, __SENS__
 * by the graph's sensitive selector (PG_SENSITIVE_SELECTOR: password type,
 * data-uiap-sensitive, the autocomplete tokens in any case). */

/* ---- state -------------------------------------------------------------------------- */
#define MAX_SUBMITS 16
#define MAX_REQS 32
#define SUBMIT_WINDOW_MS 1000    /* requests starting this soon after a submit belong to it */
#define SUBMIT_GRACE_MS 150       /* ... and after the last one ended */
#define SUBMIT_TIMEOUT_MS 30000
#define STEP_QUIET_MS 150        /* a script step waits for this much quiet */
#define STEP_MAX_WAIT_MS 3000    /* ... but not longer than this */
#define KEY_CACHE 256
/* A change is captured once more this long after it was published: the
 * accessibility tree can lag the DOM, so a capture made while the page
 * moved may mix two states; the second capture corrects it. */
#define CONFIRM_MS 150
/* Noise: a clock ticking outside anything published mutates the DOM but
 * changes no graph. After NOISE_AFTER such captures in a row the throttle
 * for mutation-only changes doubles from 125 ms up to NOISE_MAX_MS; a
 * published change, or anything the reporter or a navigation reports
 * (focus, input, live regions, submits), is captured at the normal pace. */
#define NOISE_AFTER 4
#define NOISE_MAX_MS 1000

/* The pause before the next capture, given what made the page dirty. */
static int pace(int throttle, int noise, int own) {
  if (own || noise < NOISE_AFTER) return throttle;
  int shift = noise - NOISE_AFTER;
  int slow = shift >= 3 ? NOISE_MAX_MS : 125 << shift;
  return slow > throttle ? slow : throttle;
}

typedef struct submit {
  int active;
  int ctx, key;                 /* the form, as the reporter names it */
  long long t0;
  char *scope_id;               /* form scope, when the graph has it */
  char *document_id;
  char method[16];
  char *req[MAX_REQS];
  int nreq, ndone, failed, status;
  long long last_done;
  int started_sent;
} submit;

typedef struct { int ctx, key, backend; } key_entry;

/* Requests of the last moments, for a submit reported after its request. */
#define RECENT 32
typedef struct { char *rid; long long t; } recent_req;

typedef struct obs {
  cdp_client *c;
  crawl_page *p;
  const crawl_observe_opts *o;
  FILE *out;
  crawl_observe_stats *st;
  char sub[64], sig_prefix[80];
  const char *source_id;
  unsigned long msg_seq, sig_seq;
  unsigned long long rev;        /* revision of `graph` */
  cJSON *graph;                  /* what the consumer has: the last published graph */
  pg_graph *last;                /* the latest capture (published or not) */
  cJSON *pending;                /* signals for the next delta */
  cJSON *reports;                /* binding reports to handle: [{ctx, report}] */
  unsigned long seen;            /* crawl_page_changes at the last capture */
  int own_dirty;
  long long last_capture, t_start;
  long long last_delta;           /* last delta published (or snapshot, or step done) */
  long long retry_at;             /* after a failed capture */
  long long confirm_at;           /* capture once more then, to confirm a change (0: none) */
  int noise;                      /* captures in a row that mutations caused and that showed nothing */
  int throttle;
  char binding[64];
  char *script_id;
  int subs[16], nsubs;
  int closed, crashed;
  int nav_full, nav_same;
  submit submits[MAX_SUBMITS];
  recent_req recent[RECENT];
  unsigned nrecent;
  key_entry keys[KEY_CACHE];
  int nkeys;
  /* script */
  int step;                      /* index of the next step */
  int nsteps;
  long long step_started, step_deadline, prev_step_done;
  int step_waiting;
  char err[512];
} obs;

/* ---- output --------------------------------------------------------------------------- */
/* Print one message, an event in the UIAP envelope; payload is consumed. */
static int emit(obs *s, const char *type, cJSON *payload) {
  char id[128];
  snprintf(id, sizeof id, "msg_%s_%lu", s->sub, ++s->msg_seq);
  cJSON *m = crawl__envelope(&(crawl__msg){.kind = "event", .type = type, .id = id, .source_id = s->source_id},
                             payload);
  crawl__secrets_scrub_json(crawl__page_secrets(s->p), m); /* the tab's secrets, --redact pii */
  char *text = crawl__jtext(m, 0);
  cJSON_Delete(m);
  int rc = fputs(text, s->out) < 0 || fputc('\n', s->out) < 0 || fflush(s->out) != 0 ? -1 : 0;
  free(text);
  s->st->messages++;
  return rc;
}

static cJSON *sub_payload(obs *s) {
  cJSON *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "subscriptionId", s->sub);
  return p;
}

/* A new signal of kind; also printed at once as web.signal when asked for. */
static cJSON *signal_new(obs *s, const char *kind) {
  cJSON *sg = cJSON_CreateObject();
  char id[128];
  snprintf(id, sizeof id, "%s%lu", s->sig_prefix, s->sig_seq++);
  cJSON_AddStringToObject(sg, "signalId", id);
  cJSON_AddStringToObject(sg, "kind", kind);
  return sg;
}

static void signal_publish(obs *s, cJSON *sg) {
  const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sg, "kind"));
  int bit = kind_bit(kind);
  s->st->signals++;
  if (bit >= 0 && (s->o->signals >> bit & 1u)) {
    cJSON *p = cJSON_CreateObject();
    cJSON_AddItemToObject(p, "signal", cJSON_Duplicate(sg, 1));
    emit(s, "web.signal", p);
  }
  cJSON_AddItemToArray(s->pending, sg);
}

/* ---- events ------------------------------------------------------------------------------ */
static int mine(obs *s, const char *session) {
  const char *me = crawl_page_session(s->p);
  return session && me && !strcmp(session, me);
}

static void submit_register(obs *s, const cJSON *item, int ctx);

static void on_binding(void *ud, const char *session, const char *method, const cJSON *params) {
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

static void on_nav(void *ud, const char *session, const char *method, const cJSON *params) {
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

static void on_closed(void *ud, const char *session, const char *method, const cJSON *params) {
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

/* Submissions: requests that start soon after a submit belong to it. */
static void on_network(void *ud, const char *session, const char *method, const cJSON *params) {
  obs *s = ud;
  if (!mine(s, session)) return;
  const char *rid = crawl__str(params, "requestId");
  if (!rid) return;
  long long now = cdp_now_ms();
  if (!strcmp(method, "Network.requestWillBeSent")) {
    const char *type = crawl__str(params, "type");
    if (!type || (strcmp(type, "XHR") && strcmp(type, "Fetch") && strcmp(type, "Document"))) return;
    for (int i = 0; i < MAX_SUBMITS; i++) {
      submit *b = &s->submits[i];
      if (!b->active || now - b->t0 > SUBMIT_WINDOW_MS) continue;
      for (int k = 0; k < b->nreq; k++)
        if (b->req[k] && !strcmp(b->req[k], rid)) return; /* a redirect */
      if (b->nreq < MAX_REQS) b->req[b->nreq++] = crawl__xstrdup(rid);
      return;
    }
    /* no submit yet: its report may still be on the way */
    recent_req *r = &s->recent[s->nrecent++ % RECENT];
    free(r->rid);
    r->rid = crawl__xstrdup(rid);
    r->t = now;
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
    cJSON *sg = signal_new(s, toast ? "toast.shown" : "status.changed");
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
    signal_publish(s, sg);
  }
}

/* A submit event: track the requests that follow (and those of the last
 * moments: the report can arrive after its request). Called from the event
 * callback, so no CDP calls here: submits_resolve publishes the signal. */
static void submit_register(obs *s, const cJSON *item, int ctx) {
  submit *b = NULL;
  for (int i = 0; i < MAX_SUBMITS && !b; i++)
    if (!s->submits[i].active) b = &s->submits[i];
  if (!b) return;
  memset(b, 0, sizeof *b);
  b->active = 1;
  b->t0 = cdp_now_ms();
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

/* Publish submission.started for new submits, with the form scope. */
static void submits_resolve(obs *s) {
  for (int i = 0; i < MAX_SUBMITS; i++) {
    submit *b = &s->submits[i];
    if (!b->active || b->started_sent) continue;
    b->started_sent = 1;
    const pg_graph *g = s->last;
    const pg_scope *sc = b->key ? form_scope(g, resolve_key(s, b->ctx, b->key)) : NULL;
    cJSON *sg = signal_new(s, "submission.started");
    if (sc) {
      b->scope_id = crawl__xstrdup(sc->scope_id);
      b->document_id = crawl__xstrdup(g->documents[sc->document].document_id);
      cJSON_AddStringToObject(sg, "documentId", b->document_id);
      cJSON_AddStringToObject(sg, "scopeId", b->scope_id);
      if (sc->name) cJSON_AddStringToObject(sg, "text", sc->name);
    }
    cJSON_AddStringToObject(sg, "level", "info");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(sg, "detail"), "method", b->method);
    signal_publish(s, sg);
  }
}

static void submit_free(submit *b) {
  for (int k = 0; k < b->nreq; k++) free(b->req[k]);
  free(b->scope_id);
  free(b->document_id);
  memset(b, 0, sizeof *b);
}

/* A submission is finished when its window is over and its requests are done. */
static void submits_check(obs *s, long long now, int force) {
  for (int i = 0; i < MAX_SUBMITS; i++) {
    submit *b = &s->submits[i];
    if (!b->active || !b->started_sent) continue;
    int timeout = now - b->t0 > SUBMIT_TIMEOUT_MS;
    /* done: its requests finished (and no follow-up started for a moment),
     * or none came within the window */
    int done = b->nreq ? b->ndone == b->nreq && now - b->last_done >= SUBMIT_GRACE_MS
                       : now - b->t0 > SUBMIT_WINDOW_MS;
    if (!force && !timeout && !done) continue;
    cJSON *sg = signal_new(s, "submission.finished");
    if (b->document_id) cJSON_AddStringToObject(sg, "documentId", b->document_id);
    if (b->scope_id) cJSON_AddStringToObject(sg, "scopeId", b->scope_id);
    const char *level = b->failed || b->status >= 400 ? "error" : b->ndone < b->nreq ? "warning" : "success";
    cJSON_AddStringToObject(sg, "level", level);
    cJSON *d = cJSON_AddObjectToObject(sg, "detail");
    cJSON_AddStringToObject(d, "method", b->method);
    cJSON_AddNumberToObject(d, "requests", b->nreq);
    if (b->status) cJSON_AddNumberToObject(d, "status", b->status);
    if (b->failed) cJSON_AddNumberToObject(d, "failed", b->failed);
    if (b->ndone < b->nreq) cJSON_AddBoolToObject(d, "timedOut", 1);
    signal_publish(s, sg);
    submit_free(b);
  }
}

/* Handle the reporter's batches: live regions become signals, resolved
 * against g (the capture they go out with). */
static void reports_take(obs *s, const pg_graph *g) {
  cJSON *r;
  while ((r = cJSON_DetachItemFromArray(s->reports, 0))) {
    const cJSON *ctx = crawl__get(r, "ctx");
    live_signals(s, r, cJSON_IsNumber(ctx) ? ctx->valueint : 0, g);
    cJSON_Delete(r);
  }
}

/* ---- capture and publish ------------------------------------------------------------------- */
static crawl_code capture(obs *s, pg_graph **out) {
  pg_options go = s->o->graph;
  go.revision = s->rev + 1;
  long long t0 = cdp_now_ms();
  crawl_code rc = crawl_page_snapshot(s->p, &go, out, NULL); /* what it redacts joins the tab's list */
  s->st->captures++;
  s->st->capture_ms += cdp_now_ms() - t0;
  return rc;
}

/* Capture, compare with what the consumer has, publish a delta when
 * something changed (ops or signals). */
static crawl_code cycle(obs *s) {
  submits_resolve(s);
  unsigned long before = crawl_page_changes(s->p);
  /* only DOM mutations made this capture: if it shows nothing, that was noise */
  int mutations_only = before != s->seen && !s->own_dirty && !cJSON_GetArraySize(s->pending) &&
                       !cJSON_GetArraySize(s->reports);
  s->own_dirty = 0;
  int nav_full = s->nav_full, nav_same = s->nav_same;
  s->nav_full = s->nav_same = 0;
  pg_graph *g = NULL;
  s->last_capture = cdp_now_ms();
  crawl_code rc = capture(s, &g);
  s->seen = before;
  if (rc) {
    s->nav_full |= nav_full; /* for the next try */
    s->nav_same |= nav_same;
    return rc;
  }
  pg_graph_free(s->last);
  s->last = g;
  reports_take(s, g);
  cJSON *nj = pg_graph_to_json(g);
  cJSON *ops = NULL;
  if (pg_delta_compute(s->graph, nj, &ops) != PG_OK) {
    cJSON_Delete(nj);
    snprintf(s->err, sizeof s->err, "the captured graph is inconsistent");
    return CRAWL_CAPTURE;
  }
  /* what the graphs show: route, dialogs, validation */
  cJSON *sigs = cJSON_CreateArray();
  pg_delta_signals(s->graph, nj, s->sig_prefix, &s->sig_seq, sigs);
  cJSON *sg;
  while ((sg = cJSON_DetachItemFromArray(sigs, 0))) {
    const char *kind = crawl__str(sg, "kind");
    if (kind && !strcmp(kind, "route.changed")) {
      cJSON *d = cJSON_GetObjectItemCaseSensitive(sg, "detail");
      if (d) cJSON_AddBoolToObject(d, "sameDocument", nav_same && !nav_full);
    }
    signal_publish(s, sg);
  }
  cJSON_Delete(sigs);
  if (cJSON_GetArraySize(ops) == 0 && cJSON_GetArraySize(s->pending) == 0) {
    cJSON_Delete(ops);
    cJSON_Delete(nj);
    s->st->unchanged++;
    s->confirm_at = 0;
    if (mutations_only && s->noise < 64) s->noise++;
    if (s->o->on_capture) s->o->on_capture(s->o->on_capture_ud, s->rev, s->graph, 0);
    return CRAWL_OK;
  }
  cJSON *p = sub_payload(s);
  char rev[48], base[48];
  snprintf(rev, sizeof rev, "rev_%llu", s->rev + 1);
  snprintf(base, sizeof base, "rev_%llu", s->rev);
  cJSON_AddStringToObject(p, "revision", rev);
  cJSON_AddStringToObject(p, "baseRevision", base);
  s->st->ops += cJSON_GetArraySize(ops);
  cJSON_AddItemToObject(p, "ops", ops);
  if (cJSON_GetArraySize(s->pending)) {
    cJSON_AddItemToObject(p, "signals", s->pending);
    s->pending = cJSON_CreateArray();
  }
  s->rev++;
  cJSON_Delete(s->graph);
  s->graph = nj;
  s->st->deltas++;
  s->last_delta = cdp_now_ms();
  s->noise = 0;
  if (emit(s, "web.state.delta", p)) {
    snprintf(s->err, sizeof s->err, "cannot write the output");
    return CRAWL_IO;
  }
  s->confirm_at = s->last_delta + CONFIRM_MS;
  if (s->o->on_capture) s->o->on_capture(s->o->on_capture_ud, s->rev, s->graph, 1);
  return CRAWL_OK;
}

/* The capture before stopping: a page caught mid-navigation is no error. */
static crawl_code last_cycle(obs *s) {
  crawl_code rc = cycle(s);
  if (rc == CRAWL_CAPTURE || rc == CRAWL_BROWSER || rc == CRAWL_TIMEOUT) {
    crawl_log(CRAWL_LOG_DEBUG, "observe", "last capture failed (%s): %s", crawl_strerror(rc), crawl_page_errmsg(s->p));
    rc = CRAWL_OK;
  }
  return rc;
}

static int dirty(obs *s) {
  return crawl_page_changes(s->p) != s->seen || s->own_dirty || cJSON_GetArraySize(s->pending) > 0 ||
         cJSON_GetArraySize(s->reports) > 0;
}

/* ---- the script ----------------------------------------------------------------------------- */
static int target_matches(const pg_element *e, const cJSON *t) {
  const char *id = crawl__str(t, "instanceId"), *stable = crawl__str(t, "stableId"), *role = crawl__str(t, "role"), *name = crawl__str(t, "name");
  if (id && strcmp(id, e->instance_id)) return 0;
  if (stable && (!e->stable_id || strcmp(stable, e->stable_id))) return 0;
  if (role && strcmp(role, e->role)) return 0;
  if (name && (!e->name || strcmp(name, e->name))) return 0;
  return 1;
}

static const pg_element *find_target(const pg_graph *g, const cJSON *t) {
  const cJSON *ord = crawl__get(t, "ordinal");
  int want = cJSON_IsNumber(ord) ? ord->valueint : 0, seen = 0;
  for (size_t i = 0; g && i < g->nelements; i++)
    if (target_matches(&g->elements[i], t) && seen++ == want) return &g->elements[i];
  return NULL;
}

static const char *const step_names[] = {"navigate", "click", "type", "press", "wait"};

int crawl_observe_script_check(const cJSON *script, char *err, size_t errlen) {
  if (!cJSON_IsArray(script)) {
    snprintf(err, errlen, "the script must be a JSON array of steps");
    return -1;
  }
  int i = 0;
  const cJSON *st;
  cJSON_ArrayForEach(st, script) {
    const char *name = crawl__str(st, "step");
    int known = 0;
    for (size_t k = 0; name && k < sizeof step_names / sizeof *step_names; k++) known |= !strcmp(name, step_names[k]);
    const cJSON *t = crawl__get(st, "target");
    if (!cJSON_IsObject(st) || !known) {
      snprintf(err, errlen, "step %d: \"step\" must be one of navigate, click, type, press, wait", i);
      return -1;
    }
    if (!strcmp(name, "navigate") && !crawl__str(st, "url")) {
      snprintf(err, errlen, "step %d: navigate needs \"url\"", i);
      return -1;
    }
    if ((!strcmp(name, "click") || !strcmp(name, "type")) &&
        (!cJSON_IsObject(t) || !(crawl__str(t, "stableId") || crawl__str(t, "instanceId") || crawl__str(t, "role") || crawl__str(t, "name")))) {
      snprintf(err, errlen, "step %d: %s needs \"target\" with stableId, instanceId, or role and name", i, name);
      return -1;
    }
    if (!strcmp(name, "type") && !crawl__str(st, "text")) {
      snprintf(err, errlen, "step %d: type needs \"text\"", i);
      return -1;
    }
    if (!strcmp(name, "press") && !crawl__str(st, "key")) {
      snprintf(err, errlen, "step %d: press needs \"key\" (Enter, Escape or Tab)", i);
      return -1;
    }
    if (!strcmp(name, "wait") && !cJSON_IsNumber(crawl__get(st, "ms")) && !cJSON_IsObject(t)) {
      snprintf(err, errlen, "step %d: wait needs \"ms\" or \"target\"", i);
      return -1;
    }
    i++;
  }
  return 0;
}

/* Centre of a node's first quad, after scrolling it into view. */
static crawl_code node_centre(obs *s, int backend, double *x, double *y) {
  const char *sess = crawl_page_session(s->p);
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddNumberToObject(a, "backendNodeId", backend);
  cdp_code r = cdp_call(s->c, sess, "DOM.scrollIntoViewIfNeeded", a, NULL, 10000);
  if (r == CDP_CANCELLED) return CRAWL_CANCELLED;
  a = cJSON_CreateObject();
  cJSON_AddNumberToObject(a, "backendNodeId", backend);
  r = cdp_call(s->c, sess, "DOM.getContentQuads", a, &res, 10000);
  if (r == CDP_CANCELLED) return CRAWL_CANCELLED;
  const cJSON *q = cJSON_GetArrayItem(crawl__get(res, "quads"), 0);
  if (r || cJSON_GetArraySize(q) < 8) {
    cJSON_Delete(res);
    return CRAWL_ARG;
  }
  double sx = 0, sy = 0;
  for (int i = 0; i < 4; i++) {
    sx += cJSON_GetArrayItem(q, i * 2)->valuedouble;
    sy += cJSON_GetArrayItem(q, i * 2 + 1)->valuedouble;
  }
  cJSON_Delete(res);
  *x = sx / 4;
  *y = sy / 4;
  return CRAWL_OK;
}

static crawl_code do_type(obs *s, const pg_element *e, const cJSON *st) {
  const char *sess = crawl_page_session(s->p);
  cJSON *a = cJSON_CreateObject();
  cJSON_AddNumberToObject(a, "backendNodeId", e->backend_node_id);
  cdp_code r = cdp_call(s->c, sess, "DOM.focus", a, NULL, 10000);
  if (r == CDP_CANCELLED) return CRAWL_CANCELLED;
  if (r) return CRAWL_ARG;
  if (cJSON_IsTrue(crawl__get(st, "clear"))) {
    cJSON *res = NULL;
    a = cJSON_CreateObject();
    cJSON_AddNumberToObject(a, "backendNodeId", e->backend_node_id);
    if (cdp_call(s->c, sess, "DOM.resolveNode", a, &res, 10000) == CDP_OK) {
      const char *oid = crawl__str(crawl__get(res, "object"), "objectId");
      if (oid) {
        cJSON *f = cJSON_CreateObject();
        cJSON_AddStringToObject(f, "objectId", oid);
        cJSON_AddStringToObject(f, "functionDeclaration", CRAWL__JS(select_contents));
        cdp_call(s->c, sess, "Runtime.callFunctionOn", f, NULL, 10000);
      }
    }
    cJSON_Delete(res);
  }
  a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "text", crawl__str(st, "text"));
  r = cdp_call(s->c, sess, "Input.insertText", a, NULL, 10000);
  return r == CDP_CANCELLED ? CRAWL_CANCELLED : r ? CRAWL_BROWSER : CRAWL_OK;
}

/* Resolve a navigate URL: absolute, or relative to the page's origin/path. */
static void resolve_url(obs *s, const char *u, char *out, size_t n) {
  const char *cur = s->last ? s->last->route_url : NULL;
  char *r = cur ? pg_url_resolve(cur, u) : NULL; /* pg_url.h: RFC 3986 */
  snprintf(out, n, "%s", r ? r : u);
  free(r);
}

/* Run the current step. Returns CRAWL_OK when it is done (or still
 * waiting: s->step_waiting), an error when it failed. */
static crawl_code step_run(obs *s, long long now) {
  const cJSON *st = cJSON_GetArrayItem(s->o->script, s->step);
  const char *name = crawl__str(st, "step");
  const cJSON *t = crawl__get(st, "target");
  const cJSON *tmo = crawl__get(st, "timeoutMs");
  if (!s->step_waiting) {
    s->step_started = now;
    s->step_deadline = now + (cJSON_IsNumber(tmo) ? (long long)tmo->valuedouble : 10000);
    crawl_log(CRAWL_LOG_INFO, "observe", "step %d: %s", s->step, name);
  }
  s->step_waiting = 0;
  if (!strcmp(name, "wait")) {
    const cJSON *ms = crawl__get(st, "ms");
    if (cJSON_IsNumber(ms) && !t) {
      if (now - s->step_started < (long long)ms->valuedouble) s->step_waiting = 1;
      return CRAWL_OK;
    }
    int gone = cJSON_IsTrue(crawl__get(st, "gone"));
    if ((find_target(s->last, t) != NULL) == gone) {
      if (now >= s->step_deadline) {
        snprintf(s->err, sizeof s->err, "script step %d: the target %s within %lld ms", s->step,
                 gone ? "did not go" : "did not appear", s->step_deadline - s->step_started);
        return CRAWL_TIMEOUT;
      }
      s->step_waiting = 1;
    }
    return CRAWL_OK;
  }
  if (!strcmp(name, "navigate")) {
    char url[8192];
    resolve_url(s, crawl__str(st, "url"), url, sizeof url);
    cJSON *a = cJSON_CreateObject(), *res = NULL;
    cJSON_AddStringToObject(a, "url", url);
    cdp_code r = cdp_call(s->c, crawl_page_session(s->p), "Page.navigate", a, &res, 30000);
    const char *e = crawl__str(res, "errorText");
    if (r == CDP_CANCELLED) {
      cJSON_Delete(res);
      return CRAWL_CANCELLED;
    }
    if (r || (e && *e)) {
      snprintf(s->err, sizeof s->err, "script step %d: cannot load %.200s: %.200s", s->step, url, e ? e : cdp_client_errmsg(s->c));
      cJSON_Delete(res);
      return CRAWL_NAVIGATE;
    }
    cJSON_Delete(res);
    return CRAWL_OK;
  }
  if (!strcmp(name, "press")) {
    crawl_code rc = crawl_page_key(s->p, crawl__str(st, "key"));
    if (rc == CRAWL_ARG) snprintf(s->err, sizeof s->err, "script step %d: unknown key %s", s->step, crawl__str(st, "key"));
    return rc;
  }
  /* click, type: the target must be in the latest capture (auto-wait) */
  const pg_element *e = find_target(s->last, t);
  if (!e) {
    if (now >= s->step_deadline) {
      char *what = cJSON_PrintUnformatted(t);
      snprintf(s->err, sizeof s->err, "script step %d: no element matches %s", s->step, what ? what : "");
      free(what);
      return CRAWL_TIMEOUT;
    }
    s->step_waiting = 1;
    return CRAWL_OK;
  }
  if (!strcmp(name, "type")) {
    crawl_code rc = do_type(s, e, st);
    if (rc && rc != CRAWL_CANCELLED) snprintf(s->err, sizeof s->err, "script step %d: cannot type into %s", s->step, e->instance_id);
    return rc;
  }
  double x, y;
  crawl_code rc = node_centre(s, pg_element_click_node(e), &x, &y);
  if (rc == CRAWL_OK) rc = crawl_page_click(s->p, x, y);
  if (rc && rc != CRAWL_CANCELLED) snprintf(s->err, sizeof s->err, "script step %d: cannot click %s", s->step, e->instance_id);
  return rc;
}

/* ---- set-up and the loop -------------------------------------------------------------------- */
static crawl_code install(obs *s) {
  const char *sess = crawl_page_session(s->p);
  snprintf(s->binding, sizeof s->binding, "__uiap_obs_%08lx",
           (unsigned long)((unsigned long long)cdp_now_ms() * 2654435761u ^ (unsigned long)getpid()) & 0xffffffffUL);
  /* the script with the binding name in place of __B__ (and the graph's
   * sensitive selector in place of __SENS__) */
  crawl__buf b = {0};
  char *with_sens = crawl__js_sensitive(CRAWL__JS(live_reporter));
  const char *src = with_sens, *hit;
  while ((hit = strstr(src, "__B__"))) {
    crawl__buf_put(&b, src, (size_t)(hit - src));
    crawl__buf_puts(&b, s->binding);
    src = hit + 5;
  }
  crawl__buf_puts(&b, src);
  free(with_sens);
  char *js = crawl__buf_take(&b);
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "name", s->binding);
  cdp_code r = cdp_call(s->c, sess, "Runtime.addBinding", a, NULL, 10000);
  cJSON *res = NULL;
  if (!r) {
    a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "source", js);
    cJSON_AddBoolToObject(a, "runImmediately", 1);
    r = cdp_call(s->c, sess, "Page.addScriptToEvaluateOnNewDocument", a, &res, 10000);
  }
  free(js);
  if (r) {
    snprintf(s->err, sizeof s->err, "cannot install the change reporter: %s", cdp_client_errmsg(s->c));
    cJSON_Delete(res);
    return r == CDP_CANCELLED ? CRAWL_CANCELLED : CRAWL_BROWSER;
  }
  const char *id = crawl__str(res, "identifier");
  s->script_id = crawl__xstrdup(id);
  cJSON_Delete(res);
  return CRAWL_OK;
}

/* Withdraw the reporter: no more in new documents, and switched off in
 * every frame of this one (a page observed in place, e.g. another tool's
 * tab, goes on without it: listeners removed, attachShadow restored). */
static void uninstall(obs *s) {
  if (!cdp_client_alive(s->c) || s->closed || s->crashed) return;
  const char *sess = crawl_page_session(s->p);
  if (s->script_id) {
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "identifier", s->script_id);
    cdp_call(s->c, sess, "Page.removeScriptToEvaluateOnNewDocument", a, NULL, 2000);
  }
  /* run the off switch in every frame at once: a script for new documents
   * run immediately (in the frames there are), then withdrawn */
  char *js = crawl__xprintf(CRAWL__JS(live_reporter_off), s->binding, s->binding);
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddStringToObject(a, "source", js);
  free(js);
  cJSON_AddBoolToObject(a, "runImmediately", 1);
  if (cdp_call(s->c, sess, "Page.addScriptToEvaluateOnNewDocument", a, &res, 2000) == CDP_OK) {
    const char *id = crawl__str(res, "identifier");
    if (id) {
      a = cJSON_CreateObject();
      cJSON_AddStringToObject(a, "identifier", id);
      cdp_call(s->c, sess, "Page.removeScriptToEvaluateOnNewDocument", a, NULL, 2000);
    }
  }
  cJSON_Delete(res);
  a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "name", s->binding);
  cdp_call(s->c, sess, "Runtime.removeBinding", a, NULL, 2000);
}

/* Mark the live regions there are now as seen, so that only later changes
 * are signalled. */
static void live_baseline(obs *s) {
  char *expr = crawl__xprintf(CRAWL__JS(live_reporter_baseline), s->binding, s->binding);
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "expression", expr);
  free(expr);
  cJSON_AddBoolToObject(a, "silent", 1);
  cdp_call(s->c, crawl_page_session(s->p), "Runtime.evaluate", a, NULL, 5000);
}

static void stop_message(obs *s, const char *reason) {
  cJSON *p = sub_payload(s);
  cJSON_AddStringToObject(p, "reason", reason);
  emit(s, "web.observe.stopped", p);
  s->st->stopped_by = reason;
}

/* The run's state for o, printing to out, counting into st (borrowed). */
static obs *obs_new(cdp_client *c, const crawl_observe_opts *o, FILE *out, crawl_observe_stats *st) {
  obs *s = crawl__xcalloc(1, sizeof *s);
  s->c = c;
  s->o = o;
  s->out = out;
  s->st = st;
  s->source_id = o->source_id ? o->source_id : "uiap-crawl";
  s->throttle = o->throttle_ms > 0 ? o->throttle_ms : o->throttle_ms < 0 ? 0 : 100;
  s->nsteps = o->script ? cJSON_GetArraySize(o->script) : 0;
  s->pending = cJSON_CreateArray();
  s->reports = cJSON_CreateArray();
  if (o->subscription_id) snprintf(s->sub, sizeof s->sub, "%s", o->subscription_id);
  else snprintf(s->sub, sizeof s->sub, "sub_%d_%llx", (int)getpid(), (unsigned long long)cdp_now_ms() & 0xffffffULL);
  snprintf(s->sig_prefix, sizeof s->sig_prefix, "sig_%s_", s->sub);
  return s;
}

/* The page (o->page, or a new tab), the events, the reporter, o->url
 * loaded. An error goes to st->error. */
static crawl_code obs_open(obs *s) {
  const crawl_observe_opts *o = s->o;
  crawl_code rc;
  if (o->page) {
    s->p = o->page;
  } else {
    crawl_page_opts po = o->page_opts;
    if (!po.settle_max_ms) po.settle_max_ms = 2000; /* what comes later is observed anyway */
    if ((rc = crawl_page_open(s->c, &po, &s->p))) {
      snprintf(s->st->error, sizeof s->st->error, "%s", crawl_page_errmsg(s->p));
      return rc;
    }
  }
  static const struct { const char *ev; cdp_event_cb cb; } evs[] = {
    {"Runtime.bindingCalled", on_binding},      {"Page.frameNavigated", on_nav},
    {"Page.navigatedWithinDocument", on_nav},   {"Inspector.targetCrashed", on_closed},
    {"Inspector.detached", on_closed},          {"Target.detachedFromTarget", on_closed},
    {"Network.requestWillBeSent", on_network},  {"Network.responseReceived", on_network},
    {"Network.loadingFinished", on_network},    {"Network.loadingFailed", on_network},
  };
  for (size_t i = 0; i < sizeof evs / sizeof *evs; i++) s->subs[s->nsubs++] = cdp_on(s->c, evs[i].ev, evs[i].cb, s);
  if ((rc = install(s))) {
    snprintf(s->st->error, sizeof s->st->error, "%s", s->err);
    return rc;
  }
  if (o->url && (rc = crawl_page_goto(s->p, o->url))) {
    snprintf(s->st->error, sizeof s->st->error, "%s", crawl_page_errmsg(s->p));
    return rc;
  }
  return CRAWL_OK;
}

/* web.observe.started, the first capture (the first revision), the live
 * regions there are marked as seen, and the snapshot unless delta-only. A
 * failed capture goes to st->error. */
static crawl_code obs_start(obs *s) {
  const crawl_observe_opts *o = s->o;
  s->rev = pg_next_revision() - 1; /* then rev+1, rev+2, ...: ours alone */
  cJSON *p = sub_payload(s);
  char rev[48];
  snprintf(rev, sizeof rev, "rev_%llu", s->rev + 1);
  cJSON_AddStringToObject(p, "initialRevision", rev);
  emit(s, "web.observe.started", p);
  s->t_start = cdp_now_ms();
  s->reports = (cJSON_Delete(s->reports), cJSON_CreateArray());
  unsigned long before = crawl_page_changes(s->p);
  s->own_dirty = 0;
  s->nav_full = s->nav_same = 0;
  pg_graph *g = NULL;
  crawl_code rc = capture(s, &g);
  if (rc) {
    snprintf(s->st->error, sizeof s->st->error, "%s", crawl_page_errmsg(s->p));
    return rc;
  }
  s->seen = before;
  s->last = g;
  s->last_capture = s->last_delta = cdp_now_ms();
  s->rev++;
  s->graph = pg_graph_to_json(g);
  live_baseline(s);
  if (o->mode != CRAWL_OBSERVE_DELTA_ONLY) {
    cJSON *sp = cJSON_CreateObject();
    cJSON_AddItemToObject(sp, "graph", cJSON_Duplicate(s->graph, 1));
    emit(s, "web.state.snapshot", sp);
  }
  s->confirm_at = s->last_delta + CONFIRM_MS;
  if (o->on_capture) o->on_capture(o->on_capture_ud, s->rev, s->graph, 1);
  return CRAWL_OK;
}

/* 1 when observing ends now, with *reason and *rc: cancelled, the page
 * crashed or closed, or the duration over (after a last capture). */
static int obs_ended(obs *s, long long now, long long end, const char **reason, crawl_code *rc) {
  if (s->o->cancel && *s->o->cancel) { *reason = "signal"; *rc = CRAWL_CANCELLED; return 1; }
  if (s->crashed) { *reason = "crashed"; *rc = CRAWL_CRASHED; snprintf(s->err, sizeof s->err, "the page crashed"); return 1; }
  if (s->closed || !cdp_client_alive(s->c)) { *reason = "pageClosed"; *rc = CRAWL_OK; return 1; }
  if (end && now >= end) {
    *reason = "duration";
    submits_check(s, now, 0);
    *rc = last_cycle(s);
    return 1;
  }
  return 0;
}

/* A capture when one is due; a failed one (the document went away
 * mid-capture, say) is tried again soon. */
static crawl_code obs_cycle(obs *s) {
  crawl_code rc = cycle(s);
  if (rc == CRAWL_CAPTURE || rc == CRAWL_BROWSER || rc == CRAWL_TIMEOUT) {
    crawl_log(CRAWL_LOG_DEBUG, "observe", "capture failed (%s): %s; retrying", crawl_strerror(rc),
              crawl_page_errmsg(s->p));
    s->own_dirty = 1;
    s->retry_at = cdp_now_ms() + 100;
    rc = CRAWL_OK;
  }
  return rc;
}

/* The script: one step at a time, each after the page went quiet (d: it
 * is dirty); when it is done and the page quiet, observing ends. 1 when it
 * ends (*reason, *rc). */
static int obs_script(obs *s, long long now, int d, long long end, const char **reason, crawl_code *rc) {
  /* Quiet: no delta for a while, and a capture since then found nothing
   * new (a ticking clock keeps the page dirty, not changing). */
  int quiet = !s->confirm_at && now - s->last_delta >= STEP_QUIET_MS &&
              (!d || s->last_capture - s->last_delta >= STEP_QUIET_MS);
  if (s->step < s->nsteps) {
    if (s->step_waiting || quiet || now - s->prev_step_done >= STEP_MAX_WAIT_MS) {
      *rc = step_run(s, now);
      if (*rc) { *reason = *rc == CRAWL_CANCELLED ? "signal" : "error"; return 1; }
      if (!s->step_waiting) {
        s->step++;
        s->prev_step_done = s->last_delta = cdp_now_ms();
      }
    }
  } else if (s->nsteps && !end && quiet) {
    /* the script is done and the page quiet */
    submits_check(s, now, 1);
    *rc = last_cycle(s);
    *reason = "script";
    return 1;
  }
  return 0;
}

/* How long to pump events before looking again. */
static int obs_wait_ms(const obs *s, long long now, int d, int gap, long long end) {
  int wait = 1000;
  if (d) wait = (int)((s->retry_at > s->last_capture + gap ? s->retry_at : s->last_capture + gap) - now);
  else if (s->confirm_at) wait = (int)(s->confirm_at - now);
  if (s->step < s->nsteps || s->nsteps) wait = wait < 25 ? wait : 25;
  if (end && end - now < wait) wait = (int)(end - now);
  for (int i = 0; i < MAX_SUBMITS; i++)
    if (s->submits[i].active) wait = wait < 50 ? wait : 50;
  return wait < 1 ? 1 : wait;
}

/* Observe until an end (obs_ended, obs_script, the pump); *reason says
 * which. An error goes to st->error. */
static crawl_code obs_loop(obs *s, const char **reason) {
  long long end = s->o->duration_ms > 0 ? s->t_start + s->o->duration_ms : 0;
  s->prev_step_done = cdp_now_ms();
  crawl_code rc = CRAWL_OK;
  for (;;) {
    long long now = cdp_now_ms();
    if (obs_ended(s, now, end, reason, &rc)) break;
    submits_resolve(s);
    submits_check(s, now, 0);
    int d = dirty(s);
    int confirm = s->confirm_at && now >= s->confirm_at;
    int own = s->own_dirty || cJSON_GetArraySize(s->pending) || cJSON_GetArraySize(s->reports);
    int gap = pace(s->throttle, s->noise, own || confirm);
    if ((d || confirm) && now - s->last_capture >= gap && now >= s->retry_at) {
      if ((rc = obs_cycle(s))) break;
      continue;
    }
    if (obs_script(s, now, d, end, reason, &rc)) break;
    cdp_code r = cdp_pump(s->c, obs_wait_ms(s, now, d, gap, end));
    if (r == CDP_CANCELLED) { *reason = "signal"; rc = CRAWL_CANCELLED; break; }
    if (r == CDP_CLOSED) { *reason = "pageClosed"; rc = CRAWL_OK; break; }
  }
  if (rc && rc != CRAWL_CANCELLED)
    snprintf(s->st->error, sizeof s->st->error, "%s", s->err[0] ? s->err : crawl_page_errmsg(s->p));
  return rc;
}

/* Events off, the reporter out of the page, the tab closed if it is ours,
 * s freed. */
static void obs_free(obs *s, crawl_code rc) {
  for (int i = 0; i < s->nsubs; i++) cdp_off(s->c, s->subs[i]);
  /* a cancelled run still takes its scripts out of the page (another tool's
   * tab goes on): the client's cancel flag would fail every call, so lift it */
  if (rc == CRAWL_CANCELLED) cdp_client_set_cancel(s->c, NULL);
  if (s->p) uninstall(s);
  if (s->p && !s->o->page) crawl_page_close(s->p);
  for (int i = 0; i < MAX_SUBMITS; i++) submit_free(&s->submits[i]);
  for (int i = 0; i < RECENT; i++) free(s->recent[i].rid);
  pg_graph_free(s->last);
  cJSON_Delete(s->graph);
  cJSON_Delete(s->pending);
  cJSON_Delete(s->reports);
  free(s->script_id);
  free(s);
}

crawl_code crawl_observe_run(cdp_client *c, const crawl_observe_opts *o, FILE *out, crawl_observe_stats *st) {
  static crawl_observe_stats dummy;
  if (!st) st = &dummy;
  memset(st, 0, sizeof *st);
  if (!c || !o || !out || (!o->page && !o->url)) {
    snprintf(st->error, sizeof st->error, "observe needs a browser, options, an output, and a URL or a page");
    return CRAWL_ARG;
  }
  obs *s = obs_new(c, o, out, st);
  crawl_code rc = obs_open(s);
  if (!rc) {
    const char *reason = "error";
    rc = obs_start(s);
    if (!rc) rc = obs_loop(s, &reason);
    if (rc == CRAWL_CANCELLED) reason = "signal";
    stop_message(s, rc == CRAWL_CRASHED ? "crashed" : rc && rc != CRAWL_CANCELLED ? "error" : reason);
    st->elapsed_ms = cdp_now_ms() - s->t_start;
  }
  obs_free(s, rc);
  return rc;
}

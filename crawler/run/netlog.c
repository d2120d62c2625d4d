/* netlog.c -- the log of a tab's requests to the app's origins, by phase:
 * the CDP events the tab receives anyway (Network.requestWillBeSent,
 * responseReceived, loadingFinished, loadingFailed; the write guard's
 * Fetch.requestPaused, joined by its networkId) fill one entry per
 * request; a `requests` record takes them (crawl__netlog_record). Requests
 * off the app's origins are counted only; past CRAWL__NETLOG_MAX a phase's
 * requests are counted only.
 *
 * Not here: body shapes and endpoint templates (netlog_body.c), when a
 * phase begins and where its record goes (explore_*.c, mcp_tools.c), the
 * guard's verdict (page_guard.c).
 */
#include "crawl_base.h"
#include "crawl_secrets.h"
#include "crawl_util.h"
#include "netlog.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct nl_req {
  char *rid;               /* Network requestId (or "f:" + Fetch's when none) */
  char *method, *url, *type, *mime, *guard, *why;
  cJSON *body;             /* the body's shape, or NULL */
  const char *initiator;   /* "load", "action", "timer" */
  int status, failed, done;
  double size;
  long long t0, t1;
} nl_req;

struct crawl__netlog {
  nl_req *v;
  size_t n, cap;
  const char *phase;       /* NULL: idle */
  long long t0;            /* when the phase began (idle: the last record) */
  int muted;
  long off_origin, omitted;
};

crawl__netlog *crawl__netlog_new(void) { return crawl__xcalloc(1, sizeof(crawl__netlog)); }

static void req_free(nl_req *q) {
  free(q->rid), free(q->method), free(q->url), free(q->type), free(q->mime), free(q->guard), free(q->why);
  cJSON_Delete(q->body);
}

static void clear(crawl__netlog *nl) {
  for (size_t i = 0; i < nl->n; i++) req_free(&nl->v[i]);
  nl->n = 0;
  nl->off_origin = nl->omitted = 0;
}

void crawl__netlog_free(crawl__netlog *nl) {
  if (!nl) return;
  clear(nl);
  free(nl->v);
  free(nl);
}

void crawl__netlog_begin(crawl__netlog *nl, const char *phase, long long now) {
  if (!nl) return;
  nl->phase = phase;
  nl->t0 = now;
  nl->muted = 0;
}

void crawl__netlog_mute(crawl__netlog *nl, int off) {
  if (nl) nl->muted = off;
}

void crawl__netlog_idle(crawl__netlog *nl) {
  if (nl) nl->phase = NULL;
}

const char *crawl__netlog_phase(const crawl__netlog *nl) { return nl ? nl->phase : NULL; }

size_t crawl__netlog_count(const crawl__netlog *nl) { return nl ? nl->n : 0; }

static char *dup_or_null(const char *s) { return s ? crawl__xstrdup(s) : NULL; }

/* The newest entry of rid (a redirect makes a second one), or NULL. */
static nl_req *find(crawl__netlog *nl, const char *rid) {
  for (size_t i = nl->n; rid && i-- > 0;)
    if (!strcmp(nl->v[i].rid, rid)) return &nl->v[i];
  return NULL;
}

/* A new entry, or NULL when the log is muted, the request is off the
 * app's origins (counted) or the phase has its fill (counted). */
static nl_req *add(crawl__netlog *nl, const char *rid, const char *method, const char *url, const char *type,
                   int in_scope, long long now) {
  if (nl->muted || in_scope < 0) return NULL;
  if (!in_scope) return nl->off_origin++, NULL;
  if (nl->n >= CRAWL__NETLOG_MAX) return nl->omitted++, NULL;
  if (nl->n == nl->cap) {
    nl->cap = nl->cap ? nl->cap * 2 : 32;
    nl->v = crawl__xrealloc(nl->v, nl->cap * sizeof *nl->v);
  }
  nl_req *q = &nl->v[nl->n++];
  memset(q, 0, sizeof *q);
  q->rid = crawl__xstrdup(rid);
  q->method = dup_or_null(method);
  q->url = dup_or_null(url);
  q->type = dup_or_null(type);
  q->initiator = nl->phase ? nl->phase : "timer";
  q->t0 = now;
  return q;
}

/* ---- events ------------------------------------------------------------------------- */
void crawl__netlog_on_request(crawl__netlog *nl, const cJSON *params, int in_scope, long long now) {
  const char *rid = crawl__str(params, "requestId");
  const cJSON *req = crawl__get(params, "request");
  if (!nl || !rid) return;
  nl_req *q = find(nl, rid);
  const cJSON *redirect = crawl__get(params, "redirectResponse");
  if (q && redirect) { /* the hop before ends here; the next one is a new entry */
    q->status = (int)crawl__num(redirect, "status", 0);
    q->done = 1;
    q->t1 = now;
  } else if (q && !q->done) { /* the guard's pause came first (crawl__netlog_on_paused) */
    const char *type = crawl__str(params, "type"); /* Network's word, as when it comes first */
    if (type) free(q->type), q->type = crawl__xstrdup(type);
    return;
  }
  add(nl, rid, crawl__str(req, "method"), crawl__str(req, "url"), crawl__str(params, "type"), in_scope, now);
}

void crawl__netlog_on_response(crawl__netlog *nl, const cJSON *params) {
  nl_req *q = nl ? find(nl, crawl__str(params, "requestId")) : NULL;
  if (!q) return;
  const cJSON *res = crawl__get(params, "response");
  q->status = (int)crawl__num(res, "status", 0);
  const char *mime = crawl__str(res, "mimeType");
  free(q->mime);
  q->mime = mime && mime[0] && strlen(mime) < 120 ? crawl__xstrdup(mime) : NULL;
  if (!q->type) q->type = dup_or_null(crawl__str(params, "type"));
}

void crawl__netlog_on_done(crawl__netlog *nl, const cJSON *params, int failed, long long now) {
  nl_req *q = nl ? find(nl, crawl__str(params, "requestId")) : NULL;
  if (!q || q->done) return;
  q->done = 1;
  q->t1 = now;
  if (!failed) {
    q->size = crawl__num(params, "encodedDataLength", 0);
    return;
  }
  q->failed = 1;
  q->status = 0;
  if (!q->guard || !strcmp(q->guard, "passed")) { /* not the guard's doing */
    free(q->guard);
    q->guard = crawl__xstrdup("failed");
    const char *err = crawl__str(params, "errorText");
    free(q->why);
    q->why = err && strlen(err) < 200 ? crawl__xstrdup(err) : NULL;
  }
}

void crawl__netlog_on_paused(crawl__netlog *nl, const cJSON *params, int in_scope, const char *guard,
                             const char *why, long long now) {
  if (!nl) return;
  const cJSON *req = crawl__get(params, "request");
  const char *nid = crawl__str(params, "networkId"), *fid = crawl__str(params, "requestId");
  char *key = nid ? crawl__xstrdup(nid) : crawl__xprintf("f:%s", fid ? fid : "?");
  nl_req *q = find(nl, key);
  if (!q || q->done)
    q = add(nl, key, crawl__str(req, "method"), crawl__str(req, "url"), crawl__str(params, "resourceType"), in_scope, now);
  free(key);
  if (!q) return;
  free(q->guard);
  free(q->why);
  q->guard = dup_or_null(guard);
  q->why = why && strlen(why) < 400 ? crawl__xstrdup(why) : NULL;
  const char *body = crawl__str(req, "postData");
  const cJSON *hs = crawl__get(req, "headers");
  const char *ct = NULL;
  for (const cJSON *h = hs ? hs->child : NULL; h; h = h->next)
    if (h->string && !strcasecmp(h->string, "Content-Type")) ct = cJSON_GetStringValue(h);
  cJSON_Delete(q->body);
  q->body = crawl__netlog_body_shape(ct, body, body ? strlen(body) : 0);
}

/* ---- records --------------------------------------------------------------------------- */
/* url with the values of its credential-named query and fragment keys
 * (token, session, key, ...: crawl__secrets_add_url) as "[redacted]": a
 * token the page put in a URL is a secret the run was never told.
 * Caller frees. */
static char *url_scrubbed(const char *url) {
  if (!strpbrk(url, "?#")) return crawl__xstrdup(url);
  crawl__secrets *s = crawl__secrets_new();
  crawl__secrets_add_url(s, url, 0);
  char *clean = crawl__secrets_scrub(s, url, NULL);
  crawl__secrets_free(s);
  return clean;
}

static cJSON *req_json(const nl_req *q, long long t0) {
  cJSON *o = crawl__jx(cJSON_CreateObject());
  char *url = url_scrubbed(q->url ? q->url : "");
  crawl__jstr(o, "method", q->method ? q->method : "GET");
  crawl__jstr(o, "url", url);
  free(url);
  crawl__jstr(o, "resourceType", q->type ? q->type : "Other");
  if (q->status > 0 && !q->failed) cJSON_AddNumberToObject(o, "status", q->status);
  if (q->mime && !q->failed) crawl__jstr(o, "mimeType", q->mime);
  if (q->size > 0) cJSON_AddNumberToObject(o, "size", q->size);
  cJSON_AddNumberToObject(o, "startMs", (double)(q->t0 - t0));
  if (q->done) cJSON_AddNumberToObject(o, "ms", (double)(q->t1 - q->t0));
  crawl__jstr(o, "initiator", q->initiator);
  crawl__jstr(o, "guard", q->guard ? q->guard : "passed");
  if (q->why) crawl__jstr(o, "guardWhy", q->why);
  if (q->body) cJSON_AddItemToObject(o, "body", cJSON_Duplicate(q->body, 1));
  return o;
}

static void ctx_fields(cJSON *o, const crawl__netlog_ctx *c) {
  crawl__jstr(o, "phase", c->phase ? c->phase : "action");
  crawl__jstr(o, "stateId", c->state_id);
  crawl__jstr(o, "url", c->url);
  crawl__jstr(o, "transitionId", c->transition_id);
  crawl__jstr(o, "actionId", c->action_id);
  if (c->target) cJSON_AddItemToObject(o, "target", cJSON_Duplicate(c->target, 1));
  if (c->probed) cJSON_AddBoolToObject(o, "probed", 1);
  crawl__jstr(o, "principal", c->principal);
}

cJSON *crawl__netlog_record(crawl__netlog *nl, const crawl__netlog_ctx *ctx, long long now) {
  cJSON *o = crawl__jx(cJSON_CreateObject());
  ctx_fields(o, ctx);
  cJSON_AddNumberToObject(o, "offOrigin", nl ? (double)nl->off_origin : 0);
  if (nl && nl->omitted) cJSON_AddNumberToObject(o, "omitted", (double)nl->omitted);
  cJSON *a = cJSON_AddArrayToObject(o, "requests");
  for (size_t i = 0; nl && i < nl->n; i++) cJSON_AddItemToArray(a, req_json(&nl->v[i], nl->t0));
  if (nl) {
    clear(nl);
    nl->phase = NULL;
    nl->t0 = now;
  }
  return o;
}

cJSON *crawl__netlog_brief(const crawl__netlog *nl) {
  cJSON *a = crawl__jx(cJSON_CreateArray());
  for (size_t i = 0; nl && i < nl->n; i++) {
    const nl_req *q = &nl->v[i];
    cJSON *o = crawl__jx(cJSON_CreateObject());
    char *t = crawl__netlog_template(q->url);
    crawl__jstr(o, "method", q->method ? q->method : "GET");
    crawl__jstr(o, "template", t ? t : "");
    free(t);
    if (q->status > 0 && !q->failed) cJSON_AddNumberToObject(o, "status", q->status);
    crawl__jstr(o, "guard", q->guard ? q->guard : "passed");
    cJSON_AddItemToArray(a, o);
  }
  return a;
}

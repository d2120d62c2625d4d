/* page_guard.c -- the write guard: in the safe modes every request of the
 * tab and of every target under it (frames in other processes, workers,
 * service and shared workers, popups) pauses in on_paused, and what
 * guard_reason names (a write, a URL with write intent, a navigation off the
 * allowed origins) is failed before it leaves the browser. New targets
 * attach paused and run only once their own guard answered (guard_kid,
 * guard_service); a target that cannot be guarded fails the tab
 * (CRAWL_GUARD). Also: WebSockets after an action, the one write a login
 * recipe may make, the reads a POST may be (GraphQL queries, the
 * --allow-read endpoints: read_allowed), the session's headers on in-scope requests, the empty
 * pages the tab primes localStorage on, and leaving a guarded document
 * before the tab closes.
 *
 * Not here: what the policy calls a write intent (policy/), the page-side
 * half of the guard (js/page_guard.js, js/worker_guard.js), opening the tab
 * (page_open.c subscribes the events). docs/safety.md has the threat model.
 */
#include "graphql.h"
#include "page_int.h"
#include "pg_url.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A test knob (tests/e2e/safety.c): UIAP_TEST_GUARD_FAIL=page, or a target
 * type ("worker", "iframe", ...), makes installing the guard there fail, to
 * show that the run then stops instead of going on unguarded. */
static int guard_fault(const char *where) {
  const char *f = getenv("UIAP_TEST_GUARD_FAIL");
  return f && where && !strcmp(f, where);
}

/* Every request of every resource type pauses here (crawl__page_send_guard); see
 * crawl__page_on_paused. One pattern for the page and each guarded target. */
static cJSON *fetch_patterns(void) {
  cJSON *a = cJSON_CreateObject();
  cJSON *pats = cJSON_AddArrayToObject(a, "patterns");
  cJSON *pt = cJSON_CreateObject();
  cJSON_AddStringToObject(pt, "urlPattern", "*");
  cJSON_AddStringToObject(pt, "requestStage", "Request");
  cJSON_AddItemToArray(pats, pt);
  return a;
}

cJSON *crawl__page_auto_attach_params(int wait) {
  cJSON *a = cJSON_CreateObject();
  cJSON_AddBoolToObject(a, "autoAttach", 1);
  cJSON_AddBoolToObject(a, "waitForDebuggerOnStart", wait);
  cJSON_AddBoolToObject(a, "flatten", 1);
  return a;
}

static void send_forget(crawl_page *p, const char *session, const char *method, cJSON *params) {
  int id = cdp_send(p->c, session, method, params);
  if (id > 0) cdp_abandon(p->c, id);
}

/* Target types the guard knows how to cover, and how: frames in their own
 * process and service and shared workers make their own requests, which
 * pause in their own session once Fetch is enabled there; a dedicated
 * worker's requests go through the frame that started it, whose Fetch
 * already pauses them (Fetch is not offered in a dedicated worker). */
static const struct { const char *type; int own_fetch, worker; } guardable_types[] = {
  {"iframe", 1, 0}, {"service_worker", 1, 1}, {"shared_worker", 1, 1}, {"worker", 0, 1},
  {"page", 1, 0}, /* a popup: guarded, let run (its opener may wait for it), closed */
};

/* 1: a worker of some kind (it has no document; it may outlive its page). */
int crawl__page_is_worker(const char *type) {
  for (size_t i = 0; i < sizeof guardable_types / sizeof *guardable_types; i++)
    if (!strcmp(type, guardable_types[i].type)) return guardable_types[i].worker;
  return 0;
}

/* 1: own Fetch, 0: covered by its parent, -1: not guardable. */
static int guardable(const char *type) {
  for (size_t i = 0; i < sizeof guardable_types / sizeof *guardable_types; i++)
    if (!strcmp(type, guardable_types[i].type)) return guardable_types[i].own_fetch;
  return -1;
}

/* WebSockets in a new target, before it runs: a frame's documents refuse
 * them after input, as the page's do; a worker started after an action
 * (ws_block) refuses every one. Each reports through the page's binding,
 * added to its own session. Nothing when the plan allows WebSockets. */
static void guard_kid_websockets(crawl_page *p, const char *sid, const char *type) {
  int frame = !strcmp(type, "iframe"), worker = crawl__page_is_worker(type);
  if (p->o.allow_websockets || !(frame || (worker && p->ws_block))) return;
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "name", p->binding);
  send_forget(p, sid, "Runtime.addBinding", a);
  a = cJSON_CreateObject();
  char *js = frame ? crawl__xprintf(CRAWL__JS(page_guard), p->binding, 0)
                   : crawl__xprintf(CRAWL__JS(worker_guard), p->binding);
  cJSON_AddStringToObject(a, frame ? "source" : "expression", js);
  free(js);
  if (!frame) cJSON_AddBoolToObject(a, "silent", 1);
  send_forget(p, sid, frame ? "Page.addScriptToEvaluateOnNewDocument" : "Runtime.evaluate", a);
}

/* A new target under the guard (attached paused): Fetch on its session, and
 * auto-attach there too (a frame's own frames and workers, a worker's
 * workers), all before it runs. */
static void guard_kid(crawl_page *p, const char *sid, const char *tid, const char *type) {
  if (p->nkids == MAX_KIDS) {
    p->guard_failed = 1;
    snprintf(p->err, sizeof p->err, "more than %d frames and workers: the write guard cannot follow", MAX_KIDS);
    return; /* left paused */
  }
  guarded_kid *k = &p->kids[p->nkids++]; /* fetch_id: -1 fault, 0 no Fetch of its own */
  k->session = crawl__xstrdup(sid);
  k->target_id = crawl__xstrdup(tid);
  k->type = crawl__xstrdup(type);
  int own = guardable(type);
  k->fetch_id = guard_fault(type) ? -1 : own ? cdp_send(p->c, sid, "Fetch.enable", fetch_patterns()) : 0;
  send_forget(p, sid, "Target.setAutoAttach", crawl__page_auto_attach_params(1));
  if (crawl__page_is_worker(type)) { /* its requests' statuses for the netlog; no post data in events */
    cJSON *na = cJSON_CreateObject();
    cJSON_AddNumberToObject(na, "maxPostDataSize", 0);
    send_forget(p, sid, "Network.enable", na);
  }
  guard_kid_websockets(p, sid, type);
  /* A worker or frame runs once Fetch.enable answered (guard_service): the
   * Fetch domain lives in the browser process and the resume in the
   * target's, so sending both at once is a race a loaded machine loses (a
   * service worker's install POST got out). A popup runs now, as its
   * opener may wait for it (the race stays open there: docs/safety.md). */
  k->paused = k->fetch_id > 0 && strcmp(type, "page");
  if (k->fetch_id >= 0 && !k->paused) send_forget(p, sid, "Runtime.runIfWaitingForDebugger", NULL);
  if (k->fetch_id < 0 || (own && k->fetch_id == 0)) {
    k->fetch_id = 0;
    p->guard_failed = 1; /* it stays paused */
    snprintf(p->err, sizeof p->err, "the write guard could not be installed in a %s target: stopping", type);
    crawl_log(CRAWL_LOG_ERROR, "guard", "%s", p->err);
  }
}

static void close_target(crawl_page *p, const char *tid) {
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "targetId", tid);
  send_forget(p, NULL, "Target.closeTarget", a);
}

/* Unguarded (block_writes off): frames run at once, as before. */
static void on_attached_open(crawl_page *p, const char *session, const char *type, const char *tid,
                             const char *sid) {
  if (!strcmp(type, "iframe") && crawl__page_mine(p, session))
    send_forget(p, sid, "Runtime.runIfWaitingForDebugger", NULL);
  else if (!strcmp(type, "page") && crawl__page_mine(p, session)) {
    p->popups++;
    close_target(p, tid);
  }
}

void crawl__page_on_attached(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  const cJSON *info = cJSON_GetObjectItemCaseSensitive(params, "targetInfo");
  const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "type"));
  const char *tid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "targetId"));
  const char *sid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "sessionId"));
  if (!type || !tid || !sid) return;
  if (!strcmp(method, "Target.detachedFromTarget")) return;
  int ours = crawl__page_guarded_session(p, session) || (!session && p->browser_guard);
  const char *opener = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "openerId"));
  if (!session && p->browser_guard && !strcmp(type, "page") &&
      !(opener && p->target_id && !strcmp(opener, p->target_id))) {
    /* a page that is no popup of ours (our own next tab, say): not ours to
     * guard; let it go on and drop the extra session */
    send_forget(p, sid, "Runtime.runIfWaitingForDebugger", NULL);
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "sessionId", sid);
    send_forget(p, NULL, "Target.detachFromTarget", d);
    return;
  }
  if (!ours) return;
  if (!strcmp(type, "iframe") && crawl__page_mine(p, session) && p->noopifs < MAX_FRAMES) {
    oopif *f = &p->oopifs[p->noopifs++];
    f->target_id = crawl__xstrdup(tid);
    f->session = crawl__xstrdup(sid);
    f->url = NULL;
  }
  if (!p->o.block_writes) {
    on_attached_open(p, session, type, tid, sid);
  } else if (guardable(type) >= 0) {
    guard_kid(p, sid, tid, type);
  } else {
    /* a kind of target the guard does not know: it stays paused */
    crawl_log(CRAWL_LOG_INFO, "guard", "left a %s target paused (not guardable)", type);
  }
}

/* Reads the answers to the guarded targets' Fetch.enable: a target whose
 * guard failed fails the page (CRAWL_GUARD from then on, before the next
 * action); guarded popups are closed. Called between event pumps, never
 * from an event callback. */
static void guard_service(crawl_page *p) {
  for (int i = 0; i < p->nkids; i++) {
    guarded_kid *k = &p->kids[i];
    if (k->fetch_id <= 0) continue;
    int id = k->fetch_id;
    k->fetch_id = 0;
    char *sid = crawl__xstrdup(k->session), *type = crawl__xstrdup(k->type), *tid = crawl__xstrdup(k->target_id);
    cdp_code rc = cdp_wait(p->c, id, NULL, p->o.call_timeout_ms);
    int gone = crawl__page_kid_index(p, sid) < 0; /* detached while we waited: nothing to guard */
    if (rc == CDP_OK && !gone) {
      int at = crawl__page_kid_index(p, sid);
      if (p->kids[at].paused) { /* guarded now: let it run */
        p->kids[at].paused = 0;
        send_forget(p, sid, "Runtime.runIfWaitingForDebugger", NULL);
      }
      if (!strcmp(type, "page")) { /* a popup: guarded now, and closed */
        p->popups++;
        close_target(p, tid);
        crawl_log(CRAWL_LOG_INFO, "page", "closed a popup window (guarded)");
      }
    } else if (!gone && rc != CDP_CANCELLED) {
      p->guard_failed = 1;
      snprintf(p->err, sizeof p->err, "the write guard could not be installed in a %s target (%s): stopping",
               type, cdp_client_errmsg(p->c));
      crawl_log(CRAWL_LOG_ERROR, "guard", "%s", p->err);
    }
    free(sid);
    free(type);
    free(tid);
    i = -1; /* the list may have changed while waiting: start over */
  }
}

/* cdp_pump, then the guarded targets that wait for their guard. */
cdp_code crawl__page_pump(crawl_page *p, int timeout_ms) {
  cdp_code rc = cdp_pump(p->c, timeout_ms);
  guard_service(p);
  return rc;
}

/* CRAWL_GUARD once a target could not be guarded: nothing more is done on
 * this page (fail closed). */
crawl_code crawl__page_guard_check(crawl_page *p) {
  guard_service(p);
  return p->guard_failed ? CRAWL_GUARD : CRAWL_OK;
}

void crawl__page_on_detached(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  const char *sid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "sessionId"));
  if (!sid) return;
  int k = crawl__page_kid_index(p, sid);
  if (k >= 0) {
    free(p->kids[k].session);
    free(p->kids[k].target_id);
    free(p->kids[k].type);
    p->kids[k] = p->kids[--p->nkids];
  }
  for (int i = 0; i < p->noopifs; i++)
    if (!strcmp(p->oopifs[i].session, sid)) {
      free(p->oopifs[i].target_id);
      free(p->oopifs[i].session);
      free(p->oopifs[i].url);
      p->oopifs[i] = p->oopifs[--p->noopifs];
      return;
    }
}

void crawl__page_on_target_created(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  const cJSON *info = cJSON_GetObjectItemCaseSensitive(params, "targetInfo");
  const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "type"));
  const char *opener = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "openerId"));
  const char *tid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "targetId"));
  if (p->o.block_writes) return; /* guarded: popups attach paused (crawl__page_on_attached) */
  if (type && !strcmp(type, "page") && opener && p->target_id && !strcmp(opener, p->target_id) && tid) {
    p->popups++;
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "targetId", tid);
    int id = cdp_send(p->c, NULL, "Target.closeTarget", a);
    if (id > 0) cdp_abandon(p->c, id);
    crawl_log(CRAWL_LOG_INFO, "page", "closed a popup window");
  }
}

/* origin of an absolute URL into buf ("" when it has none): graph's one URL
 * module (canonical: lower case, default port dropped) */
void crawl__page_url_origin(const char *url, char *buf, size_t n) {
  if (!url || pg_url_origin(url, buf, n) < 0) buf[0] = 0;
}

static int origin_allowed(crawl_page *p, const char *url) {
  char o[512];
  crawl__page_url_origin(url, o, sizeof o);
  if (!o[0]) return strncmp(url, "about:", 6) == 0 || strncmp(url, "data:", 5) == 0;
  for (int i = 0; i < p->nallowed; i++)
    if (!strcmp(p->allowed[i], o)) return 1;
  return 0;
}

/* Static files a page loads as images, styles, fonts or media: their URL
 * words ("delete-icon.png") say nothing about intent. */
static int static_asset(const char *type, const char *url) {
  static const char *const types[] = {"Image", "Stylesheet", "Font", "Media"};
  static const char *const exts[] = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".ico", ".avif",
                                     ".css", ".woff", ".woff2", ".ttf", ".otf", ".mp4", ".webm", ".mp3"};
  int t = 0;
  for (size_t i = 0; type && i < sizeof types / sizeof *types; i++) t |= !strcmp(type, types[i]);
  if (!t || !url) return 0;
  size_t n = pg_url_query_start(url);
  for (size_t i = 0; i < sizeof exts / sizeof *exts; i++) {
    size_t e = strlen(exts[i]);
    if (n > e && !strncasecmp(url + n - e, exts[i], e)) return 1;
  }
  return 0;
}

/* The one write a login recipe opened the guard for (crawl__page_allow_write):
 * same method, same URL up to its query. Taken once, then closed again. */
static int write_once_takes(crawl_page *p, const char *m, const char *url) {
  if (!p->write_once || !m || !url) return 0;
  size_t ml = strlen(m), ul = pg_url_query_start(url);
  const char *w = p->write_once;
  if (strncmp(w, m, ml) || w[ml] != ' ' || strlen(w + ml + 1) != ul || strncmp(w + ml + 1, url, ul)) return 0;
  free(p->write_once);
  p->write_once = NULL;
  crawl_log(CRAWL_LOG_INFO, "guard", "let the login recipe's %s through", m);
  return 1;
}

void crawl__page_allow_write(crawl_page *p, const char *method, const char *url) {
  free(p->write_once);
  p->write_once = method && url ? crawl__xprintf("%s %.*s", method, (int)pg_url_query_start(url), url) : NULL;
}

/* Why the guard fails a request, or NULL to let it go: any method but
 * GET/HEAD/OPTIONS writes (beacons, pings and keepalive requests too); a
 * GET whose URL the policy reads as a logout, a deletion, a billing change
 * (pol_url_intent) has write intent, unless it is the URL the crawler was
 * asked to load or a static asset; a top-level navigation off the allowed
 * origins leaves the app. */
static int in_scope(crawl_page *p, const char *url);

/* A beacon the options let through (crawl_page_opts.allow_beacons). */
static int beacon_allowed(crawl_page *p, const char *url, const char *type) {
  if (!p->o.allow_beacons || !url || !type || strcmp(type, "Ping") || !in_scope(p, url)) return 0;
  const char *path = pg_url_rest(url); /* "/path?query", "" when none */
  path = path[0] == '/' ? path : NULL;
  for (int i = 0; path && p->o.allow_beacons[i]; i++)
    if (!strncmp(path, p->o.allow_beacons[i], strlen(p->o.allow_beacons[i]))) return 1;
  return 0;
}

/* The --allow-read entries "graphql:Name" as a NULL-terminated list (at
 * most 32), for crawl__gql_request. */
static void graphql_names(crawl_page *p, const char **names) {
  int n = 0;
  for (int i = 0; p->o.allow_reads && p->o.allow_reads[i] && n < 32; i++)
    if (!strncmp(p->o.allow_reads[i], "graphql:", 8)) names[n++] = p->o.allow_reads[i] + 8;
  names[n] = NULL;
}

/* An --allow-read "METHOD /path" entry that names this request: the same
 * method and a path that starts with the entry's. */
static int endpoint_allowed(crawl_page *p, const char *m, const char *url) {
  const char *path = pg_url_rest(url); /* "/path?query", "" when none */
  if (path[0] != '/') return 0;
  size_t ml = strlen(m);
  for (int i = 0; p->o.allow_reads && p->o.allow_reads[i]; i++) {
    const char *e = p->o.allow_reads[i];
    if (!strncmp(e, m, ml) && e[ml] == ' ' && !strncmp(path, e + ml + 1, strlen(e + ml + 1))) return 1;
  }
  return 0;
}

/* A persisted query's --allow-read entry, "graphql:Name", into hint when
 * the body is one object with an operationName; else hint stays. */
static void persisted_hint(const char *body, char *hint, size_t hn) {
  cJSON *j = body ? cJSON_Parse(body) : NULL;
  const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "operationName"));
  char e[160];
  if (name && !cJSON_HasObjectItem(j, "query") && snprintf(e, sizeof e, "graphql:%s", name) < (int)sizeof e &&
      crawl_read_entry_ok(e))
    snprintf(hint, hn, "%s", e);
  cJSON_Delete(j);
}

static const char *header_value(const cJSON *headers, const char *name) {
  const cJSON *h;
  cJSON_ArrayForEach(h, headers)
    if (h->string && !strcasecmp(h->string, name)) return cJSON_GetStringValue(h);
  return NULL;
}

/* A POST that is a read (docs/safety.md "Reads over POST"), to one of the
 * app's origins: a GraphQL document whose operations are all queries, a
 * persisted GraphQL query whose name --allow-read allows, or any body to
 * an --allow-read endpoint -- but never a GraphQL mutation or
 * subscription, whatever the endpoint. 1: let through, with what it is in
 * why; 0: fail it, with why the reason. A body Chromium leaves out (too
 * large) is not read: only an --allow-read endpoint lets it through. */
static int read_allowed(crawl_page *p, const char *m, const char *url, const cJSON *req, char *why, size_t n,
                        char *hint, size_t hn) {
  snprintf(why, n, "a write");
  if (!url || !in_scope(p, url)) return 0; /* no advice: --allow-read is for the app's origins */
  const char *rest = pg_url_rest(url);
  snprintf(hint, hn, "'%s %.*s'", m, (int)(rest[0] == '/' ? pg_url_query_start(rest) : 1), rest[0] == '/' ? rest : "/");
  const char *body = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(req, "postData"));
  const char *names[33];
  graphql_names(p, names);
  const char *ct = header_value(cJSON_GetObjectItemCaseSensitive(req, "headers"), "Content-Type");
  char what[300];
  crawl_gql_verdict v = strcmp(m, "POST") ? CRAWL_GQL_NONE /* GraphQL reads are POSTs */
                                          : crawl__gql_request(ct, body, body ? strlen(body) : 0, names, what, sizeof what);
  if (v == CRAWL_GQL_MUTATION) return snprintf(why, n, "%s: a write", what), hint[0] = 0, 0;
  if (endpoint_allowed(p, m, url)) return snprintf(why, n, "a read by --allow-read"), 1;
  if (v == CRAWL_GQL_QUERY || v == CRAWL_GQL_NAMED) return snprintf(why, n, "%s", what), 1;
  if (v == CRAWL_GQL_UNKNOWN) snprintf(why, n, "%s", what), persisted_hint(body, hint, hn);
  else if (!body && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(req, "hasPostData")))
    snprintf(why, n, "a write (its body was not shown to the guard)");
  return 0;
}

/* Why the guard fails the request, in why (n bytes), or NULL to let it go
 * (a read let through: its kind in read, else read[0] = 0). */
static int is_write(const char *m) { return m && strcmp(m, "GET") && strcmp(m, "HEAD") && strcmp(m, "OPTIONS"); }

static const char *guard_reason(crawl_page *p, const cJSON *req, const char *type, const char *fid, char *why,
                                size_t n, char *read, size_t rn, char *hint, size_t hn) {
  const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(req, "method"));
  const char *url = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(req, "url"));
  read[0] = 0;
  if (write_once_takes(p, m, url)) return NULL;
  if (is_write(m)) {
    if (beacon_allowed(p, url, type)) return NULL;
    if (read_allowed(p, m, url, req, why, n, hint, hn)) return snprintf(read, rn, "%s", why), NULL;
    return why;
  }
  const char *main_frame = p->main_frame ? p->main_frame : p->target_id;
  int top_nav = type && !strcmp(type, "Document") && fid && main_frame && !strcmp(fid, main_frame);
  if (top_nav && url && !origin_allowed(p, url)) return "off the allowed origins";
  if (!url || (p->goto_url && !strcmp(url, p->goto_url)) || static_asset(type, url)) return NULL;
  pol_classification cls;
  switch (pol_url_intent(url, &cls)) {
  case POL_SE_SECURITY_CHANGE: return "its URL reads as a logout or a security change";
  case POL_SE_DESTRUCTIVE: return "its URL reads as a deletion";
  case POL_SE_BILLING_CHANGE: return "its URL reads as a billing change";
  case POL_SE_IRREVERSIBLE: return "its URL reads as irreversible";
  default: return NULL;
  }
}

/* A request to one of the allowed origins (the session's headers go there
 * and nowhere else; about:, data: and the like are none). */
static int in_scope(crawl_page *p, const char *url) {
  char o[512];
  crawl__page_url_origin(url, o, sizeof o);
  for (int i = 0; o[0] && i < p->nallowed; i++)
    if (!strcmp(p->allowed[i], o)) return 1;
  return 0;
}

/* While the tab sets localStorage (session_storage): a document GET gets
 * an empty page from us, anything else fails; nothing reaches a server. */
static void prime_reply(crawl_page *p, const char *session, cJSON *a, const char *m, const char *type) {
  if (m && !strcmp(m, "GET") && type && !strcmp(type, "Document")) {
    cJSON_AddNumberToObject(a, "responseCode", 200);
    cJSON *hs = cJSON_AddArrayToObject(a, "responseHeaders");
    cJSON *h = cJSON_CreateObject();
    cJSON_AddStringToObject(h, "name", "Content-Type");
    cJSON_AddStringToObject(h, "value", "text/html");
    cJSON_AddItemToArray(hs, h);
    cJSON_AddStringToObject(a, "body", ""); /* base64 of nothing */
    send_forget(p, session, "Fetch.fulfillRequest", a);
  } else {
    cJSON_AddStringToObject(a, "errorReason", "BlockedByClient");
    send_forget(p, session, "Fetch.failRequest", a);
  }
}

/* The guard's verdict on a request as the request log names it
 * (docs/api.md): why and read as guard_reason left them. */
static const char *guard_verdict(crawl_page *p, const char *m, const char *url, const char *type, const char *why,
                                 const char *read) {
  if (why && is_write(m)) return "write";
  if (why) return !strcmp(why, "off the allowed origins") ? "off_origin" : "write_intent";
  if (read[0]) return "read";
  if (p->o.block_writes && is_write(m) && beacon_allowed(p, url, type)) return "beacon";
  return "passed";
}

/* The write guard: in the safe modes every request of the page and of every
 * target under it (frames in other processes, workers, service and shared
 * workers) pauses here, and what guard_reason names is failed before it
 * leaves the browser. A second line of defence behind the policy: whatever a
 * click does, nothing is written. */
void crawl__page_on_paused(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  if (!crawl__page_guarded_session(p, session)) return;
  const char *rid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "requestId"));
  const cJSON *req = cJSON_GetObjectItemCaseSensitive(params, "request");
  const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(req, "method"));
  const char *url = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(req, "url"));
  const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "resourceType"));
  const char *fid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "frameId"));
  if (!rid) return;
  p->last_paused = cdp_now_ms();
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "requestId", rid);
  if (p->priming) {
    prime_reply(p, session, a, m, type);
    return;
  }
  char whybuf[400], read[400] = "", hint[300] = "";
  const char *why = p->o.block_writes
                      ? guard_reason(p, req, type, fid, whybuf, sizeof whybuf, read, sizeof read, hint, sizeof hint)
                      : NULL;
  if (crawl__page_mine(p, session) || crawl__page_worker_session(p, session))
    crawl__netlog_on_paused(p->net, params, url ? crawl__page_net_scope(p, url) : -1, guard_verdict(p, m, url, type, why, read),
                            why ? why : read[0] ? read : NULL, cdp_now_ms());
  if (why) {
    p->blocked++;
    free(p->last_blocked);
    p->last_blocked = crawl__xprintf("%s %.1000s (%s)", m ? m : "?", url ? url : "", why);
    if (!p->ws_block && is_write(m)) { /* the page's own load wrote, before any action */
      p->load_blocked++;
      free(p->last_load_blocked);
      p->last_load_blocked = crawl__xstrdup(p->last_blocked);
      free(p->load_hint);
      p->load_hint = crawl__xstrdup(hint);
    }
    cJSON_AddStringToObject(a, "errorReason", "BlockedByClient");
    send_forget(p, session, "Fetch.failRequest", a);
    crawl_log(CRAWL_LOG_INFO, "guard", "blocked %s", p->last_blocked);
  } else {
    if (read[0]) {
      p->reads++;
      free(p->last_read);
      p->last_read = crawl__xprintf("%s %.1000s (%s)", m ? m : "?", url ? url : "", read);
      crawl_log(CRAWL_LOG_INFO, "guard", "let %s through as a read", p->last_read);
    }
    if (p->o.session && p->o.session->nheaders && url && in_scope(p, url))
      cJSON_AddItemToObject(a, "headers",
                            crawl_session_merge_headers(p->o.session, cJSON_GetObjectItemCaseSensitive(req, "headers")));
    send_forget(p, session, "Fetch.continueRequest", a);
  }
}

int crawl_page_load_blocked(const crawl_page *p, const char **last) {
  if (last) *last = p->last_load_blocked;
  return p->load_blocked;
}

char *crawl_page_load_writes_text(const crawl_page *p) {
  if (!p->load_blocked || !p->last_load_blocked) return NULL;
  char more[64] = "";
  if (p->load_blocked > 1) snprintf(more, sizeof more, " (and %d more)", p->load_blocked - 1);
  if (!p->load_hint || !p->load_hint[0])
    return crawl__xprintf("the page's own load sent %s%s -- blocked by the write guard, so the page may show "
                          "less than it would", p->last_load_blocked, more);
  return crawl__xprintf("the page's own load sent %s%s -- a write? a read? -- blocked by the write guard, so the "
                        "page may show less than it would; allow it with --allow-read %s if it is a read",
                        p->last_load_blocked, more, p->load_hint);
}

int crawl_page_reads(const crawl_page *p, const char **last) {
  if (last) *last = p->last_read;
  return p->reads;
}

/* WebSockets do not pass Fetch. After an action (a trusted pointer or key
 * event in the document) js/page_guard.js refuses new ones in the page
 * and its frames and reports them (crawl__page_on_binding, "ws:URL"); a handshake that
 * still happens after an action (from a worker) and frames sent then on a
 * connection opened earlier are counted here (crawl_page_websockets). */
void crawl__page_on_websocket(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  if (!crawl__page_guarded_session(p, session) || !p->ws_block) return;
  if (!strcmp(method, "Network.webSocketCreated")) {
    const char *url = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "url"));
    p->ws_unguarded++;
    free(p->last_ws);
    p->last_ws = crawl__xprintf("%.1000s", url ? url : "");
    crawl_log(CRAWL_LOG_INFO, "guard", "a WebSocket to %s was opened after an action", p->last_ws);
  } else if (!strcmp(method, "Network.webSocketFrameSent")) {
    p->ws_frames++;
  }
}

/* After an action (on), until the next fresh load (off). */
void crawl__page_ws_block_set(crawl_page *p, int on) { p->ws_block = on; }

int crawl_page_websockets(const crawl_page *p, int *frames, int *unguarded, const char **last) {
  if (frames) *frames = p->ws_frames;
  if (unguarded) *unguarded = p->ws_unguarded;
  if (last) *last = p->last_ws;
  return p->ws_opened;
}

/* With block_writes: the allowed origins from the options after those
 * already in p->allowed, and every request of the page paused (crawl__page_on_paused)
 * for the guard. Fetch.enable is waited for: a page whose guard does not
 * answer is not used (CRAWL_GUARD). A service worker the page registered
 * earlier must not answer in place of the network (setBypassServiceWorker).
 * browser_wide (a browser we launched): service and shared workers, which
 * belong to no page, attach paused to the browser session and are guarded
 * like the page's own targets. */
crawl_code crawl__page_send_guard(crawl_page *p, int browser_wide) {
  if (!p->o.block_writes && !p->o.session) return CRAWL_OK; /* a session: Fetch for its headers */
  browser_wide = browser_wide && p->o.block_writes;
  for (int i = 0; p->o.allowed_origins && p->o.allowed_origins[i] && p->nallowed < 64; i++) {
    char o[512]; /* compared with crawl__page_url_origin's canonical form */
    crawl__page_url_origin(p->o.allowed_origins[i], o, sizeof o);
    p->allowed[p->nallowed++] = crawl__xstrdup(o[0] ? o : p->o.allowed_origins[i]);
  }
  if (guard_fault("page")) {
    snprintf(p->err, sizeof p->err, "the write guard could not be installed in the page (UIAP_TEST_GUARD_FAIL)");
    return CRAWL_GUARD;
  }
  cdp_code rc = cdp_call(p->c, p->session, "Fetch.enable", fetch_patterns(), NULL, p->o.call_timeout_ms);
  if (rc == CDP_OK) {
    cJSON *a = cJSON_CreateObject();
    cJSON_AddBoolToObject(a, "bypass", 1);
    rc = cdp_call(p->c, p->session, "Network.setBypassServiceWorker", a, NULL, p->o.call_timeout_ms);
  }
  if (rc == CDP_OK && browser_wide) {
    cJSON *a = crawl__page_auto_attach_params(1);
    cJSON *filter = cJSON_AddArrayToObject(a, "filter");
    static const char *const types[] = {"page", "service_worker", "shared_worker"};
    for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
      cJSON *f = cJSON_CreateObject();
      cJSON_AddStringToObject(f, "type", types[i]);
      cJSON_AddItemToArray(filter, f);
    }
    rc = cdp_call(p->c, NULL, "Target.setAutoAttach", a, NULL, p->o.call_timeout_ms);
    p->browser_guard = rc == CDP_OK;
  }
  if (rc == CDP_CANCELLED) return CRAWL_CANCELLED;
  if (rc != CDP_OK) {
    snprintf(p->err, sizeof p->err, "the write guard could not be installed in the page: %s", cdp_client_errmsg(p->c));
    return CRAWL_GUARD;
  }
  return CRAWL_OK;
}

/* A guarded page leaves its document while the guard still listens: what
 * it sends on pagehide, unload or visibilitychange (beacons, keepalive
 * fetches) pauses and fails here, not after the session is gone. Bounded by
 * 2 s; a page that is dead or failed closed is just closed. */
#define LEAVE_QUIET_MS 200
void crawl__page_leave_guarded(crawl_page *p) {
  if (!p->o.block_writes || p->crashed || !p->session || !cdp_client_alive(p->c)) return;
  int navs0 = p->navs;
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "url", "about:blank");
  int id = cdp_send(p->c, p->session, "Page.navigate", a);
  if (id <= 0) return;
  cdp_code rc = cdp_wait(p->c, id, NULL, 2000);
  long long deadline = cdp_now_ms() + 2000;
  while (rc == CDP_OK && p->navs == navs0 && cdp_now_ms() < deadline) rc = crawl__page_pump(p, 50);
  /* what the old document sent as it went (a keepalive beacon outlives it)
   * reaches us after the navigation, later on a loaded machine, and one
   * still unseen when the session goes may be let through (once seen in
   * e2e safety/observe_writes_nothing under load). So: pump until
   * LEAVE_QUIET_MS without one (within the same 2 s). */
  long long left = cdp_now_ms();
  while (rc == CDP_OK && cdp_now_ms() < deadline &&
         cdp_now_ms() - (p->last_paused > left ? p->last_paused : left) < LEAVE_QUIET_MS)
    rc = crawl__page_pump(p, 50);
}

/* page.c -- the tab's state as its events tell it: requests in flight,
 * loads, navigations of the top frame, dialogs, crashes, the document's
 * HTTP status and what the change observer reports through the binding;
 * the tab's errors (crawl__page_perr, crawl__page_from_cdp), its plain calls
 * (crawl__page_call) and its accessors.
 *
 * Not here: opening, attaching and closing (page_open.c), the write guard
 * and its events (page_guard.c), settling (page_settle.c), capture
 * (page_capture.c), input (page_input.c), screenshots (page_screenshot.c).
 * The struct is in page_int.h.
 */
#include "page_int.h"
#include "seal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void crawl__page_perr(crawl_page *p, const char *what) {
  snprintf(p->err, sizeof p->err, "%s: %s", what, cdp_client_errmsg(p->c));
}

crawl_code crawl__page_from_cdp(crawl_page *p, cdp_code rc) {
  switch (rc) {
  case CDP_OK: return CRAWL_OK;
  case CDP_CANCELLED: return CRAWL_CANCELLED;
  case CDP_TIMEOUT: return p->crashed ? CRAWL_CRASHED : CRAWL_TIMEOUT;
  case CDP_NOMEM: return CRAWL_NOMEM;
  default: return p->crashed ? CRAWL_CRASHED : CRAWL_BROWSER;
  }
}

/* ---- events ---------------------------------------------------------------- */
int crawl__page_mine(crawl_page *p, const char *session) {
  return session && p->session && !strcmp(session, p->session);
}

int crawl__page_kid_index(const crawl_page *p, const char *session) {
  for (int i = 0; session && i < p->nkids; i++)
    if (!strcmp(p->kids[i].session, session)) return i;
  return -1;
}

/* A worker of the page (dedicated, shared, service): same origin as what
 * started it, its requests are the app's; a frame in another process is
 * not (what a cross-origin frame loads is its inside). */
int crawl__page_worker_session(const crawl_page *p, const char *session) {
  int k = crawl__page_kid_index(p, session);
  return k >= 0 && p->kids[k].type && crawl__page_is_worker(p->kids[k].type);
}

/* The page's own session or one of its guarded targets. */
int crawl__page_guarded_session(crawl_page *p, const char *session) {
  return crawl__page_mine(p, session) || crawl__page_kid_index(p, session) >= 0;
}

/* ---- the request log (netlog.c) ---------------------------------------------- */
static int origin_listed(const char *o, const char *const *v, int n) {
  for (int i = 0; o[0] && v && (n < 0 ? v[i] != NULL : i < n); i++) {
    char c[512];
    crawl__page_url_origin(v[i], c, sizeof c);
    if (!strcmp(c[0] ? c : v[i], o)) return 1;
  }
  return 0;
}

int crawl__page_net_scope(crawl_page *p, const char *url) {
  char o[512], top[512];
  crawl__page_url_origin(url, o, sizeof o);
  if (!o[0]) return -1;
  if (p->nallowed) return origin_listed(o, (const char *const *)p->allowed, p->nallowed);
  if (origin_listed(o, p->o.allowed_origins, -1)) return 1;
  crawl__page_url_origin(p->goto_url ? p->goto_url : p->url, top, sizeof top);
  return !strcmp(o, top);
}

/* One of the tab's Network events into its request log. */
static void net_event(crawl_page *p, const char *method, const cJSON *params) {
  long long now = cdp_now_ms();
  if (!strcmp(method, "Network.requestWillBeSent")) {
    const char *url = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(params, "request"), "url"));
    crawl__netlog_on_request(p->net, params, url ? crawl__page_net_scope(p, url) : -1, now);
  } else if (!strcmp(method, "Network.responseReceived")) {
    crawl__netlog_on_response(p->net, params);
  } else {
    crawl__netlog_on_done(p->net, params, !strcmp(method, "Network.loadingFailed"), now);
  }
}

crawl__netlog *crawl__page_netlog(crawl_page *p) { return p ? p->net : NULL; }

void crawl__page_on_request(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  if (!crawl__page_mine(p, session)) {
    if (crawl__page_worker_session(p, session)) net_event(p, method, params); /* logged, not waited for */
    return;
  }
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(params, "requestId");
  if (!cJSON_IsString(id)) return;
  p->last_activity = cdp_now_ms();
  net_event(p, method, params);
  if (!strcmp(method, "Network.requestWillBeSent")) {
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "type"));
    if (type && (!strcmp(type, "EventSource") || !strcmp(type, "WebSocket"))) return;
    for (int i = 0; i < p->ninflight; i++)
      if (!strcmp(p->inflight[i], id->valuestring)) return; /* a redirect */
    if (p->ninflight < MAX_INFLIGHT) {
      p->inflight_t[p->ninflight] = cdp_now_ms();
      p->inflight[p->ninflight++] = crawl__xstrdup(id->valuestring);
    }
  } else {
    for (int i = 0; i < p->ninflight; i++)
      if (!strcmp(p->inflight[i], id->valuestring)) {
        free(p->inflight[i]);
        --p->ninflight;
        p->inflight[i] = p->inflight[p->ninflight];
        p->inflight_t[i] = p->inflight_t[p->ninflight];
        break;
      }
  }
}

void crawl__page_clear_inflight(crawl_page *p) {
  for (int i = 0; i < p->ninflight; i++) free(p->inflight[i]);
  p->ninflight = 0;
}

void crawl__page_on_binding(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  if (!crawl__page_guarded_session(p, session)) return;
  const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "name"));
  const char *payload = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "payload"));
  /* a frame or worker of the page says only what its guard refused */
  if (!crawl__page_mine(p, session) && !(payload && (!strncmp(payload, "ws:", 3) || !strncmp(payload, "seal:", 5))))
    return;
  if (name && p->binding && !strcmp(name, p->binding) && payload && !strcmp(payload, "popup:")) {
    p->popups++; /* window.open refused in the page (js/page_guard.js): no window at all */
    crawl_log(CRAWL_LOG_INFO, "page", "refused a window.open");
  } else if (name && p->binding && !strcmp(name, p->binding) && payload && !strncmp(payload, "ws:", 3)) {
    p->ws_opened++; /* refused in the page (js/page_guard.js) */
    free(p->last_ws);
    p->last_ws = crawl__xprintf("%.1000s", payload + 3);
    crawl_log(CRAWL_LOG_INFO, "guard", "blocked a WebSocket to %s", p->last_ws);
  } else if (name && p->binding && !strcmp(name, p->binding) && payload && !strncmp(payload, "seal:", 5)) {
    crawl__page_seal_report(p, payload + 5); /* a send the probe's seal refused (page_seal.c) */
  } else if (name && p->binding && !strcmp(name, p->binding) && payload && !strncmp(payload, "dialogs:", 8)) {
    long k = strtol(payload + 8, NULL, 10); /* answered in the page: not a change */
    if (k > 0) p->dialogs = k > INT_MAX - p->dialogs ? INT_MAX : p->dialogs + (int)k;
  } else if (name && p->binding && !strcmp(name, p->binding)) {
    p->last_activity = cdp_now_ms();
    p->changes++;
  }
}

void crawl__page_on_load(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  if (!crawl__page_mine(p, session)) return;
  if (!strcmp(method, "Page.domContentEventFired")) {
    p->dcl = 1;
    p->ndcl++;
    return;
  }
  p->loaded = 1;
  p->last_activity = cdp_now_ms();
  p->changes++;
}

void crawl__page_on_dialog(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  if (!crawl__page_mine(p, session)) return;
  p->dialogs++;
  const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "type"));
  cJSON *a = cJSON_CreateObject();
  /* beforeunload: accept, so navigation goes on; others: dismiss */
  cJSON_AddBoolToObject(a, "accept", type && !strcmp(type, "beforeunload"));
  int id = cdp_send(p->c, p->session, "Page.handleJavaScriptDialog", a);
  if (id > 0) cdp_abandon(p->c, id);
  crawl_log(CRAWL_LOG_INFO, "page", "dismissed a JavaScript %s dialog", type ? type : "");
}

void crawl__page_on_crash(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  if (!crawl__page_mine(p, session)) return;
  p->crashed = 1;
  cdp_fail_session(p->c, p->session, "the page crashed");
}

void crawl__page_set_url(crawl_page *p, const char *url) {
  if (!url) return;
  free(p->url);
  p->url = crawl__xstrdup(url);
}

void crawl__page_on_frame_nav(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  if (!crawl__page_mine(p, session)) return;
  p->last_activity = cdp_now_ms();
  p->changes++;
  if (!strcmp(method, "Page.navigatedWithinDocument")) {
    const char *fid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "frameId"));
    if (fid && p->main_frame && !strcmp(fid, p->main_frame))
      crawl__page_set_url(p, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "url")));
    return;
  }
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(params, "frame");
  if (!cJSON_GetObjectItemCaseSensitive(f, "parentId")) {
    p->navs++;
    crawl__page_forget_nodes(p);
    const char *fid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "id"));
    if (fid) {
      free(p->main_frame);
      p->main_frame = crawl__xstrdup(fid);
    }
    const char *u = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "url"));
    const char *frag = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "urlFragment"));
    if (u && frag) {
      char *full = crawl__xprintf("%s%s", u, frag);
      crawl__page_set_url(p, full);
      free(full);
    } else {
      crawl__page_set_url(p, u);
    }
  }
}

int crawl_page_status(const crawl_page *p) { return p->doc_status; }

int crawl__page_documents(const crawl_page *p) { return p ? p->navs : 0; }

/* The top frame's document response: its HTTP status (crawl_page_status). */
void crawl__page_on_response(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  if (!crawl__page_mine(p, session)) {
    if (crawl__page_worker_session(p, session)) net_event(p, method, params);
    return;
  }
  net_event(p, method, params);
  const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "type"));
  const char *fid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "frameId"));
  const char *main_frame = p->main_frame ? p->main_frame : p->target_id;
  const cJSON *st = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(params, "response"), "status");
  if (type && !strcmp(type, "Document") && fid && main_frame && !strcmp(fid, main_frame) && cJSON_IsNumber(st))
    p->doc_status = st->valueint;
}

crawl_code crawl__page_call(crawl_page *p, const char *method, cJSON *params, cJSON **res) {
  cdp_code rc = cdp_call(p->c, p->session, method, params, res, p->o.call_timeout_ms);
  if (rc) crawl__page_perr(p, method);
  return crawl__page_from_cdp(p, rc);
}

const char *crawl_page_errmsg(const crawl_page *p) { return p ? p->err : ""; }
const char *crawl_page_session(const crawl_page *p) { return p->session; }
cdp_client *crawl_page_client(const crawl_page *p) { return p->c; }
int crawl_page_dialogs(const crawl_page *p) { return p->dialogs; }
int crawl_page_popups(const crawl_page *p) { return p->popups; }
int crawl_page_blocked(const crawl_page *p, const char **last) {
  if (last) *last = p->last_blocked;
  return p->blocked;
}
const char *crawl_page_url(const crawl_page *p) { return p->url; }

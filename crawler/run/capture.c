/* capture.c -- one tab: navigate, settle, capture a PageGraph.
 *
 * Settling: a page is settled when no request is in flight and no DOM
 * mutation was reported (MutationObserver -> Runtime.addBinding) for
 * settle_quiet_ms, or when settle_max_ms has passed (a page that never stops
 * changing still moves on). JavaScript dialogs are dismissed as they open.
 *
 * Capture: DOMSnapshot.captureSnapshot, Page.getFrameTree, page facts and the
 * focused element, and the accessibility tree per same-origin frame, sent
 * pipelined: two round trips whatever the page size. The tab remembers the
 * fields any capture found sensitive and hands them to every later one (a
 * password a "Show" toggle made type=text stays a password), and adds the
 * values each graph redacted to the run's secret list.
 *
 * Screenshots: the viewport with what the graph withholds painted over
 * (mask.c), or none at all.
 */
#include "crawl.h"
#include "crawl_secrets.h"
#include "crawl_strmap.h"
#include "run_int.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_FRAMES 256
#define MAX_INFLIGHT 4096

#define MAX_KIDS 256

/* A target attached under the page (a frame in its own process, a worker,
 * a service or shared worker) that the write guard covers: its requests
 * pause in its own session. It starts paused (waitForDebuggerOnStart) and is
 * let run only once its Fetch.enable answered (guard_service). */
typedef struct guarded_kid {
  char *session;
  char *target_id;
  char *type;
  int fetch_id;      /* Fetch.enable sent, reply not checked yet; 0: running */
  int paused;        /* 1: let run only once Fetch.enable answered */
} guarded_kid;

typedef struct oopif {
  char *target_id;   /* == frameId */
  char *session;
  char *url;
} oopif;

struct crawl_page {
  cdp_client *c;
  crawl_page_opts o;
  char *session;
  char *target_id;
  char *binding;
  char *main_frame;
  int subs[20];
  int nsubs;
  /* settling */
  long long last_activity;
  long long last_paused;      /* when the guard last saw a request (leave_guarded) */
  char *inflight[MAX_INFLIGHT];
  long long inflight_t[MAX_INFLIGHT];
  int ninflight;
  int loaded;
  int settled;
  int still;                 /* the last settle was on evidence: nothing pending, */
  long long still_at;        /* ... and last_activity was this then */
  int crashed;
  int navs, dcl;             /* top-frame navigations; DOMContentLoaded seen */
  unsigned ndcl;             /* DOMContentLoaded events, ever */
  int loop_stops;            /* navigation loops stopped in the current load (page_goto) */
  int terminated;            /* scripts terminated in the current load */
  char *loop_guard;          /* its script for new documents, while settling */
  int dialogs, popups;
  unsigned long changes;     /* mutations and navigations reported (crawl_page_changes) */
  int blocked;
  char *last_blocked;
  char *url;                 /* top frame URL */
  char *allowed[64];
  int nallowed;
  oopif oopifs[MAX_FRAMES];
  int noopifs;
  guarded_kid kids[MAX_KIDS];
  int nkids;
  int guard_failed;          /* a target could not be guarded: every call fails (CRAWL_GUARD) */
  int browser_guard;         /* service and shared workers attach to us browser-wide */
  char *goto_url;            /* the URL asked for last (a GET the guard never reads as a write) */
  int priming;               /* session_storage: documents get an empty page, nothing leaves */
  char *write_once;          /* "METHOD url-without-query": the one write a login
                                recipe's submit may make (crawl__page_allow_write) */
  int doc_status;            /* HTTP status of the last top-frame document (0: none) */
  /* WebSockets (invisible to Fetch): counted, and blocked after an action */
  int ws_block;              /* ws:// and wss:// blocked until the next fresh load */
  int ws_opened;             /* WebSockets refused after an action */
  int ws_unguarded;          /* opened after an action all the same (a worker) */
  int ws_frames;             /* frames sent after an action */
  char *last_ws;
  /* the fields any capture found sensitive (pg_graph.sensitive_fields), for
   * every later capture (pg_input.known_sensitive_*); seen: "n<id>", "k<key>" */
  int *sens_nodes;
  char **sens_keys;
  size_t nsens_nodes, nsens_keys, capsens_nodes, capsens_keys;
  crawl__strmap sens_seen;
  crawl__secrets *secrets;   /* own_secrets, or the run's, borrowed (crawl__page_use_secrets) */
  crawl__secrets *own_secrets; /* the tab's own: its session's values and what it redacted */
  char err[512];
};

static void perr(crawl_page *p, const char *what) {
  snprintf(p->err, sizeof p->err, "%s: %s", what, cdp_client_errmsg(p->c));
}

static crawl_code from_cdp(crawl_page *p, cdp_code rc) {
  switch (rc) {
  case CDP_OK: return CRAWL_OK;
  case CDP_CANCELLED: return CRAWL_CANCELLED;
  case CDP_TIMEOUT: return p->crashed ? CRAWL_CRASHED : CRAWL_TIMEOUT;
  case CDP_NOMEM: return CRAWL_NOMEM;
  default: return p->crashed ? CRAWL_CRASHED : CRAWL_BROWSER;
  }
}

/* ---- events ---------------------------------------------------------------- */
static int mine(crawl_page *p, const char *session) {
  return session && p->session && !strcmp(session, p->session);
}

static int kid_index(const crawl_page *p, const char *session) {
  for (int i = 0; session && i < p->nkids; i++)
    if (!strcmp(p->kids[i].session, session)) return i;
  return -1;
}

/* The page's own session or one of its guarded targets. */
static int guarded_session(crawl_page *p, const char *session) {
  return mine(p, session) || kid_index(p, session) >= 0;
}

static void on_request(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  if (!mine(p, session)) return;
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(params, "requestId");
  if (!cJSON_IsString(id)) return;
  p->last_activity = cdp_now_ms();
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

static void clear_inflight(crawl_page *p) {
  for (int i = 0; i < p->ninflight; i++) free(p->inflight[i]);
  p->ninflight = 0;
}

static void on_binding(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  if (!guarded_session(p, session)) return;
  const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "name"));
  const char *payload = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "payload"));
  /* a frame or worker of the page says only what its guard refused */
  if (!mine(p, session) && !(payload && !strncmp(payload, "ws:", 3))) return;
  if (name && p->binding && !strcmp(name, p->binding) && payload && !strcmp(payload, "popup:")) {
    p->popups++; /* window.open refused in the page (js/page_guard.js): no window at all */
    crawl_log(CRAWL_LOG_INFO, "page", "refused a window.open");
  } else if (name && p->binding && !strcmp(name, p->binding) && payload && !strncmp(payload, "ws:", 3)) {
    p->ws_opened++; /* refused in the page (js/page_guard.js) */
    free(p->last_ws);
    p->last_ws = crawl__xprintf("%.1000s", payload + 3);
    crawl_log(CRAWL_LOG_INFO, "guard", "blocked a WebSocket to %s", p->last_ws);
  } else if (name && p->binding && !strcmp(name, p->binding) && payload && !strncmp(payload, "dialogs:", 8)) {
    long k = strtol(payload + 8, NULL, 10); /* answered in the page: not a change */
    if (k > 0) p->dialogs = k > INT_MAX - p->dialogs ? INT_MAX : p->dialogs + (int)k;
  } else if (name && p->binding && !strcmp(name, p->binding)) {
    p->last_activity = cdp_now_ms();
    p->changes++;
  }
}

static void on_load(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  if (!mine(p, session)) return;
  if (!strcmp(method, "Page.domContentEventFired")) {
    p->dcl = 1;
    p->ndcl++;
    return;
  }
  p->loaded = 1;
  p->last_activity = cdp_now_ms();
  p->changes++;
}

static void on_dialog(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  if (!mine(p, session)) return;
  p->dialogs++;
  const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "type"));
  cJSON *a = cJSON_CreateObject();
  /* beforeunload: accept, so navigation goes on; others: dismiss */
  cJSON_AddBoolToObject(a, "accept", type && !strcmp(type, "beforeunload"));
  int id = cdp_send(p->c, p->session, "Page.handleJavaScriptDialog", a);
  if (id > 0) cdp_abandon(p->c, id);
  crawl_log(CRAWL_LOG_INFO, "page", "dismissed a JavaScript %s dialog", type ? type : "");
}

static void on_crash(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  if (!mine(p, session)) return;
  p->crashed = 1;
  cdp_fail_session(p->c, p->session, "the page crashed");
}

/* A test knob (tests/e2e/safety.c): UIAP_TEST_GUARD_FAIL=page, or a target
 * type ("worker", "iframe", ...), makes installing the guard there fail, to
 * show that the run then stops instead of going on unguarded. */
static int guard_fault(const char *where) {
  const char *f = getenv("UIAP_TEST_GUARD_FAIL");
  return f && where && !strcmp(f, where);
}

/* Every request of every resource type pauses here (send_guard); see
 * on_paused. One pattern for the page and each guarded target. */
static cJSON *fetch_patterns(void) {
  cJSON *a = cJSON_CreateObject();
  cJSON *pats = cJSON_AddArrayToObject(a, "patterns");
  cJSON *pt = cJSON_CreateObject();
  cJSON_AddStringToObject(pt, "urlPattern", "*");
  cJSON_AddStringToObject(pt, "requestStage", "Request");
  cJSON_AddItemToArray(pats, pt);
  return a;
}

static cJSON *auto_attach_params(int wait) {
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
static int is_worker(const char *type) {
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
  int frame = !strcmp(type, "iframe"), worker = is_worker(type);
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
  send_forget(p, sid, "Target.setAutoAttach", auto_attach_params(1));
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
  if (!strcmp(type, "iframe") && mine(p, session))
    send_forget(p, sid, "Runtime.runIfWaitingForDebugger", NULL);
  else if (!strcmp(type, "page") && mine(p, session)) {
    p->popups++;
    close_target(p, tid);
  }
}

static void on_attached(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  const cJSON *info = cJSON_GetObjectItemCaseSensitive(params, "targetInfo");
  const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "type"));
  const char *tid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "targetId"));
  const char *sid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "sessionId"));
  if (!type || !tid || !sid) return;
  if (!strcmp(method, "Target.detachedFromTarget")) return;
  int ours = guarded_session(p, session) || (!session && p->browser_guard);
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
  if (!strcmp(type, "iframe") && mine(p, session) && p->noopifs < MAX_FRAMES) {
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
    int gone = kid_index(p, sid) < 0; /* detached while we waited: nothing to guard */
    if (rc == CDP_OK && !gone) {
      int at = kid_index(p, sid);
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
static cdp_code pump(crawl_page *p, int timeout_ms) {
  cdp_code rc = cdp_pump(p->c, timeout_ms);
  guard_service(p);
  return rc;
}

/* CRAWL_GUARD once a target could not be guarded: nothing more is done on
 * this page (fail closed). */
static crawl_code guard_check(crawl_page *p) {
  guard_service(p);
  return p->guard_failed ? CRAWL_GUARD : CRAWL_OK;
}

static void on_detached(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  const char *sid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "sessionId"));
  if (!sid) return;
  int k = kid_index(p, sid);
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

static void on_target_created(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  const cJSON *info = cJSON_GetObjectItemCaseSensitive(params, "targetInfo");
  const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "type"));
  const char *opener = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "openerId"));
  const char *tid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "targetId"));
  if (p->o.block_writes) return; /* guarded: popups attach paused (on_attached) */
  if (type && !strcmp(type, "page") && opener && p->target_id && !strcmp(opener, p->target_id) && tid) {
    p->popups++;
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "targetId", tid);
    int id = cdp_send(p->c, NULL, "Target.closeTarget", a);
    if (id > 0) cdp_abandon(p->c, id);
    crawl_log(CRAWL_LOG_INFO, "page", "closed a popup window");
  }
}

static void set_url(crawl_page *p, const char *url) {
  if (!url) return;
  free(p->url);
  p->url = crawl__xstrdup(url);
}

static void on_frame_nav(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  if (!mine(p, session)) return;
  p->last_activity = cdp_now_ms();
  p->changes++;
  if (!strcmp(method, "Page.navigatedWithinDocument")) {
    const char *fid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "frameId"));
    if (fid && p->main_frame && !strcmp(fid, p->main_frame))
      set_url(p, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "url")));
    return;
  }
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(params, "frame");
  if (!cJSON_GetObjectItemCaseSensitive(f, "parentId")) {
    p->navs++;
    const char *fid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "id"));
    if (fid) {
      free(p->main_frame);
      p->main_frame = crawl__xstrdup(fid);
    }
    const char *u = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "url"));
    const char *frag = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "urlFragment"));
    if (u && frag) {
      char *full = crawl__xprintf("%s%s", u, frag);
      set_url(p, full);
      free(full);
    } else {
      set_url(p, u);
    }
  }
}

/* origin of an absolute URL into buf ("" when it has none): graph's one URL
 * module (canonical: lower case, default port dropped) */
static void url_origin(const char *url, char *buf, size_t n) {
  if (!url || pg_url_origin(url, buf, n) < 0) buf[0] = 0;
}

static int origin_allowed(crawl_page *p, const char *url) {
  char o[512];
  url_origin(url, o, sizeof o);
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
  size_t n = strcspn(url, "?#");
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
  size_t ml = strlen(m), ul = strcspn(url, "?#");
  const char *w = p->write_once;
  if (strncmp(w, m, ml) || w[ml] != ' ' || strlen(w + ml + 1) != ul || strncmp(w + ml + 1, url, ul)) return 0;
  free(p->write_once);
  p->write_once = NULL;
  crawl_log(CRAWL_LOG_INFO, "guard", "let the login recipe's %s through", m);
  return 1;
}

void crawl__page_allow_write(crawl_page *p, const char *method, const char *url) {
  free(p->write_once);
  p->write_once = method && url ? crawl__xprintf("%s %.*s", method, (int)strcspn(url, "?#"), url) : NULL;
}

int crawl_page_status(const crawl_page *p) { return p->doc_status; }

/* Quad centre of a node (run_int.h). */
int crawl__page_node_point(crawl_page *p, int backend, double *x, double *y) {
  cdp_client *c = p->c;
  const char *sess = p->session;
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddNumberToObject(a, "backendNodeId", backend);
  if (cdp_call(c, sess, "DOM.getContentQuads", a, &res, 10000) != CDP_OK) return -1;
  const cJSON *q = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(res, "quads"), 0);
  if (cJSON_GetArraySize(q) < 8) {
    cJSON_Delete(res);
    return -1;
  }
  double sx = 0, sy = 0;
  for (int i = 0; i < 4; i++) {
    sx += cJSON_GetArrayItem(q, i * 2)->valuedouble;
    sy += cJSON_GetArrayItem(q, i * 2 + 1)->valuedouble;
  }
  cJSON_Delete(res);
  *x = sx / 4;
  *y = sy / 4;
  return 0;
}


/* The top frame's document response: its HTTP status (crawl_page_status). */
static void on_response(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  (void)method;
  if (!mine(p, session)) return;
  const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "type"));
  const char *fid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "frameId"));
  const char *main_frame = p->main_frame ? p->main_frame : p->target_id;
  const cJSON *st = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(params, "response"), "status");
  if (type && !strcmp(type, "Document") && fid && main_frame && !strcmp(fid, main_frame) && cJSON_IsNumber(st))
    p->doc_status = st->valueint;
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
  const char *path = strstr(url, "://");
  path = path ? strchr(path + 3, '/') : NULL;
  for (int i = 0; path && p->o.allow_beacons[i]; i++)
    if (!strncmp(path, p->o.allow_beacons[i], strlen(p->o.allow_beacons[i]))) return 1;
  return 0;
}

static const char *guard_reason(crawl_page *p, const char *m, const char *url, const char *type, const char *fid) {
  if (write_once_takes(p, m, url)) return NULL;
  if (m && strcmp(m, "GET") && strcmp(m, "HEAD") && strcmp(m, "OPTIONS"))
    return beacon_allowed(p, url, type) ? NULL : "a write";
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
  url_origin(url, o, sizeof o);
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

/* The write guard: in the safe modes every request of the page and of every
 * target under it (frames in other processes, workers, service and shared
 * workers) pauses here, and what guard_reason names is failed before it
 * leaves the browser. A second line of defence behind the policy: whatever a
 * click does, nothing is written. */
static void on_paused(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  if (!guarded_session(p, session)) return;
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
  const char *why = p->o.block_writes ? guard_reason(p, m, url, type, fid) : NULL;
  if (why) {
    p->blocked++;
    free(p->last_blocked);
    p->last_blocked = crawl__xprintf("%s %.1000s (%s)", m ? m : "?", url ? url : "", why);
    cJSON_AddStringToObject(a, "errorReason", "BlockedByClient");
    send_forget(p, session, "Fetch.failRequest", a);
    crawl_log(CRAWL_LOG_INFO, "guard", "blocked %s", p->last_blocked);
  } else {
    if (p->o.session && p->o.session->nheaders && url && in_scope(p, url))
      cJSON_AddItemToObject(a, "headers",
                            crawl_session_merge_headers(p->o.session, cJSON_GetObjectItemCaseSensitive(req, "headers")));
    send_forget(p, session, "Fetch.continueRequest", a);
  }
}

/* WebSockets do not pass Fetch. After an action (a trusted pointer or key
 * event in the document) js/page_guard.js refuses new ones in the page
 * and its frames and reports them (on_binding, "ws:URL"); a handshake that
 * still happens after an action (from a worker) and frames sent then on a
 * connection opened earlier are counted here (crawl_page_websockets). */
static void on_websocket(void *ud, const char *session, const char *method, const cJSON *params) {
  crawl_page *p = ud;
  if (!guarded_session(p, session) || !p->ws_block) return;
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
static void ws_block_set(crawl_page *p, int on) { p->ws_block = on; }

int crawl_page_websockets(const crawl_page *p, int *frames, int *unguarded, const char **last) {
  if (frames) *frames = p->ws_frames;
  if (unguarded) *unguarded = p->ws_unguarded;
  if (last) *last = p->last_ws;
  return p->ws_opened;
}

/* ---- open ------------------------------------------------------------------ */
/* At document start: a MutationObserver that reports through the binding,
 * and alert/confirm/prompt answered in the page as dismissing them would
 * (undefined, false, null), counted and reported as "dialogs:N": a script
 * that loops over dialogs stays an ordinary script (which unstick() can
 * stop) instead of a round trip per dialog. Dialogs these miss (beforeunload,
 * cross-origin frames) are dismissed over CDP (on_dialog). The script is
 * js/change_observer.js. */

static crawl_code call(crawl_page *p, const char *method, cJSON *params, cJSON **res) {
  cdp_code rc = cdp_call(p->c, p->session, method, params, res, p->o.call_timeout_ms);
  if (rc) perr(p, method);
  return from_cdp(p, rc);
}

/* ---- what open and attach share ---------------------------------------------- */
/* A page for c with o's defaults filled in (not the viewport: only
 * crawl_page_open sets one) and a fresh binding name. */
static crawl_page *page_new(cdp_client *c, const crawl_page_opts *o) {
  crawl_page *p = crawl__xcalloc(1, sizeof *p);
  p->c = c;
  if (o) p->o = *o;
  if (!p->o.nav_timeout_ms) p->o.nav_timeout_ms = 30000;
  if (!p->o.settle_quiet_ms) p->o.settle_quiet_ms = 150;
  if (!p->o.settle_max_ms) p->o.settle_max_ms = 5000;
  if (!p->o.call_timeout_ms) p->o.call_timeout_ms = 30000;
  if (!p->o.ax_full_limit) {
    /* a tuning knob for measurements (docs/decisions.md) */
    const char *env = getenv("UIAP_AX_FULL_LIMIT");
    p->o.ax_full_limit = env && atol(env) > 0 ? (size_t)atol(env) : 12000;
  }
  char b[64];
  snprintf(b, sizeof b, "__uiap_%08lx", (unsigned long)(cdp_now_ms() * 2654435761u) & 0xffffffffUL);
  p->binding = crawl__xstrdup(b);
  p->secrets = p->own_secrets = crawl__secrets_for(p->o.session, 0);
  if (p->o.secrets) crawl__secrets_add_all(p->own_secrets, p->o.secrets);
  return p;
}

typedef struct page_sub {
  const char *ev;
  cdp_event_cb cb;
} page_sub;

static void page_subscribe(crawl_page *p, const page_sub *subs, size_t n) {
  for (size_t i = 0; i < n; i++) p->subs[p->nsubs++] = cdp_on(p->c, subs[i].ev, subs[i].cb, p);
}

/* Sends, without waiting, the domains, the binding and the observer js for
 * documents to come, network events and auto-attach; their ids go to
 * ids[n..], the new count is returned. attached: js also runs in the frames
 * there are now (runImmediately, and the top one once more by
 * Runtime.evaluate). */
static int send_setup(crawl_page *p, const char *js, int attached, int *ids, int n) {
  cJSON *a;
  ids[n++] = cdp_send(p->c, p->session, "Page.enable", NULL);
  a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "name", p->binding);
  ids[n++] = cdp_send(p->c, p->session, "Runtime.addBinding", a);
  a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "source", js);
  if (attached) cJSON_AddBoolToObject(a, "runImmediately", 1);
  ids[n++] = cdp_send(p->c, p->session, "Page.addScriptToEvaluateOnNewDocument", a);
  if (p->o.block_writes) {
    a = cJSON_CreateObject();
    char *ws = crawl__xprintf(CRAWL__JS(page_guard), p->binding, p->o.allow_websockets);
    cJSON_AddStringToObject(a, "source", ws);
    free(ws);
    if (attached) cJSON_AddBoolToObject(a, "runImmediately", 1);
    ids[n++] = cdp_send(p->c, p->session, "Page.addScriptToEvaluateOnNewDocument", a);
  }
  ids[n++] = cdp_send(p->c, p->session, "Runtime.enable", NULL);
  if (attached) {
    a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "expression", js);
    cJSON_AddBoolToObject(a, "silent", 1);
    ids[n++] = cdp_send(p->c, p->session, "Runtime.evaluate", a);
  }
  a = cJSON_CreateObject();
  cJSON_AddNumberToObject(a, "maxPostDataSize", 0);
  ids[n++] = cdp_send(p->c, p->session, "Network.enable", a);
  /* guarded: every new target starts paused until its guard is in */
  ids[n++] = cdp_send(p->c, p->session, "Target.setAutoAttach", auto_attach_params(p->o.block_writes));
  return n;
}

/* With block_writes: the allowed origins from the options after those
 * already in p->allowed, and every request of the page paused (on_paused)
 * for the guard. Fetch.enable is waited for: a page whose guard does not
 * answer is not used (CRAWL_GUARD). A service worker the page registered
 * earlier must not answer in place of the network (setBypassServiceWorker).
 * browser_wide (a browser we launched): service and shared workers, which
 * belong to no page, attach paused to the browser session and are guarded
 * like the page's own targets. */
static crawl_code send_guard(crawl_page *p, int browser_wide) {
  if (!p->o.block_writes && !p->o.session) return CRAWL_OK; /* a session: Fetch for its headers */
  browser_wide = browser_wide && p->o.block_writes;
  for (int i = 0; p->o.allowed_origins && p->o.allowed_origins[i] && p->nallowed < 64; i++) {
    char o[512]; /* compared with url_origin's canonical form */
    url_origin(p->o.allowed_origins[i], o, sizeof o);
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
    cJSON *a = auto_attach_params(1);
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

/* Waits for the n replies; the first failure other than a CDP error reply
 * goes to p->err and is returned. The reply to ids[keep] (keep < 0: none)
 * goes to *kept when it came (the caller deletes it), NULL otherwise. */
static crawl_code wait_setup(crawl_page *p, const int *ids, int n, int keep, cJSON **kept) {
  crawl_code result = CRAWL_OK;
  if (kept) *kept = NULL;
  for (int i = 0; i < n; i++) {
    cJSON *res = NULL;
    cdp_code r = cdp_wait(p->c, ids[i], i == keep ? &res : NULL, p->o.call_timeout_ms);
    if (r && result == CRAWL_OK && r != CDP_REMOTE) {
      perr(p, "set up the tab");
      result = from_cdp(p, r);
    }
    if (i == keep && !r) *kept = res;
    else cJSON_Delete(res);
  }
  return result;
}

/* o.locale: Intl's locale, and navigator.language with the Accept-Language
 * header (the browser's own user agent string kept). Headless Chromium
 * ignores --lang for both. */
static crawl_code set_locale(crawl_page *p) {
  if (!p->o.locale) return CRAWL_OK;
  cJSON *res = NULL;
  crawl_code rc = call(p, "Browser.getVersion", NULL, &res);
  const char *ua = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "userAgent"));
  if (!rc && ua) {
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "userAgent", ua);
    cJSON_AddStringToObject(a, "acceptLanguage", p->o.locale);
    rc = call(p, "Emulation.setUserAgentOverride", a, NULL);
  }
  cJSON_Delete(res);
  if (!rc) {
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "locale", p->o.locale);
    rc = call(p, "Emulation.setLocaleOverride", a, NULL);
  }
  return rc;
}

/* ---- a signed-in session (crawl_page_opts.session; docs/sessions.md) ---------- */
static crawl_code navigate(crawl_page *p, const char *url, int *same_doc);
static crawl_code wait_load(crawl_page *p, const char *url, long long deadline, int navs0);

/* Load url in the tab with priming on (prime_reply answers it) and wait. */
static crawl_code prime_load(crawl_page *p, const char *url) {
  int same = 0;
  p->loaded = p->dcl = 0;
  crawl_code rc = navigate(p, url, &same);
  if (!rc && !same) rc = wait_load(p, url, cdp_now_ms() + p->o.nav_timeout_ms, p->navs);
  return rc;
}

/* origin's localStorage items, set as Playwright sets them: the tab opens
 * the origin on an empty page of ours (nothing reaches the server, no app
 * script runs), a script sets the items, the tab leaves again. */
static crawl_code session_storage_one(crawl_page *p, const char *origin) {
  char *js = crawl_session_storage_script(p->o.session, origin);
  if (!js) return CRAWL_OK;
  char *url = crawl__xprintf("%s/", origin);
  p->priming = 1;
  crawl_code rc = prime_load(p, url);
  cJSON *res = NULL;
  if (!rc) {
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "expression", js);
    cJSON_AddBoolToObject(a, "silent", 1);
    rc = call(p, "Runtime.evaluate", a, &res);
  }
  if (!rc && cJSON_GetObjectItemCaseSensitive(res, "exceptionDetails")) {
    snprintf(p->err, sizeof p->err, "could not set the localStorage of %.400s", origin);
    rc = CRAWL_ARG;
  }
  if (!rc) rc = prime_load(p, "about:blank");
  p->priming = 0;
  cJSON_Delete(res);
  free(js);
  free(url);
  return rc;
}

/* The session's cookies (the browser's jar) and localStorage (each origin
 * once), before the first navigation. */
static crawl_code session_apply(crawl_page *p) {
  const crawl_session *s = p->o.session;
  if (!s || p->o.session_kept) return CRAWL_OK;
  cJSON *a = crawl_session_cookie_params(s);
  crawl_code rc = a ? call(p, "Network.setCookies", a, NULL) : CRAWL_OK;
  for (size_t i = 0; !rc && i < s->nstorage; i++) {
    size_t k = 0;
    while (k < i && strcmp(s->storage[k].origin, s->storage[i].origin)) k++;
    if (k == i) rc = session_storage_one(p, s->storage[i].origin);
  }
  return rc;
}

crawl_code crawl_page_open(cdp_client *c, const crawl_page_opts *o, crawl_page **out) {
  *out = NULL;
  crawl_page *p = page_new(c, o);
  if (!p->o.width) p->o.width = 1280;
  if (!p->o.height) p->o.height = 800;
  cdp_code rc = cdp_open_page_in(c, p->o.browser_context, "about:blank", &p->session, &p->target_id,
                                 p->o.call_timeout_ms);
  if (rc) {
    perr(p, "open a tab");
    crawl_code r = from_cdp(p, rc);
    *out = p;
    return r;
  }
  static const page_sub subs[] = {
    {"Network.requestWillBeSent", on_request}, {"Network.loadingFinished", on_request},
    {"Network.loadingFailed", on_request},     {"Runtime.bindingCalled", on_binding},
    {"Page.loadEventFired", on_load},          {"Page.javascriptDialogOpening", on_dialog},
    {"Inspector.targetCrashed", on_crash},     {"Target.attachedToTarget", on_attached},
    {"Target.detachedFromTarget", on_detached}, {"Target.targetCreated", on_target_created},
    {"Page.frameNavigated", on_frame_nav},     {"Page.navigatedWithinDocument", on_frame_nav},
    {"Fetch.requestPaused", on_paused},        {"Page.domContentEventFired", on_load},
    {"Network.webSocketCreated", on_websocket}, {"Network.webSocketFrameSent", on_websocket},
    {"Network.responseReceived", on_response},
  };
  page_subscribe(p, subs, sizeof subs / sizeof *subs);

  /* pipelined set-up */
  char *js = crawl__xprintf(CRAWL__JS(change_observer), p->binding, p->binding, p->binding, p->binding);
  int ids[16];
  int n = send_setup(p, js, 0, ids, 0);
  free(js);
  cJSON *a = cJSON_CreateObject();
  cJSON_AddNumberToObject(a, "width", p->o.width);
  cJSON_AddNumberToObject(a, "height", p->o.height);
  cJSON_AddNumberToObject(a, "deviceScaleFactor", 1);
  cJSON_AddBoolToObject(a, "mobile", 0);
  ids[n++] = cdp_send(c, p->session, "Emulation.setDeviceMetricsOverride", a);
  a = cJSON_CreateObject();
  cJSON_AddBoolToObject(a, "enabled", 1);
  ids[n++] = cdp_send(c, p->session, "Emulation.setFocusEmulationEnabled", a);
  a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "behavior", "deny");
  if (p->o.browser_context) cJSON_AddStringToObject(a, "browserContextId", p->o.browser_context);
  ids[n++] = cdp_send(c, NULL, "Browser.setDownloadBehavior", a);
  a = cJSON_CreateObject();
  cJSON_AddBoolToObject(a, "discover", 1);
  ids[n++] = cdp_send(c, NULL, "Target.setDiscoverTargets", a);
  crawl_code result = wait_setup(p, ids, n, -1, NULL);
  if (result == CRAWL_OK) result = set_locale(p);
  if (result == CRAWL_OK) result = send_guard(p, 1);
  if (result == CRAWL_OK) result = session_apply(p);
  *out = p;
  return result;
}

/* ---- attach to a page that is already open ------------------------------------ */
/* The change observer for a page we attached to (js/change_observer_attached.js):
 * change_observer without taking over alert/confirm/prompt (the page's owner
 * answers its dialogs), and with an off switch, window.<binding>__off, that
 * crawl_page_detach calls in every frame (js/change_observer_off.js): the
 * owner's page keeps nothing of ours running. */

/* Only frames: a page the auto-attach reports (a prerendered page) is the
 * owner's, not a popup to close. */
static void on_attached_frame(void *ud, const char *session, const char *method, const cJSON *params) {
  const cJSON *info = cJSON_GetObjectItemCaseSensitive(params, "targetInfo");
  const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "type"));
  if (type && !strcmp(type, "iframe")) on_attached(ud, session, method, params);
}

/* "ID (URL), ..." of the first page targets, for an error line. */
static void list_pages(const cJSON *infos, char *buf, size_t n) {
  const cJSON *t;
  size_t o = 0;
  int k = 0;
  buf[0] = 0;
  cJSON_ArrayForEach(t, infos) {
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "type"));
    if (!type || strcmp(type, "page")) continue;
    if (k++ == 3) {
      snprintf(buf + o, n - o, ", ...");
      return;
    }
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "targetId"));
    const char *url = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "url"));
    int w = snprintf(buf + o, n - o, "%s%s (%.80s%s)", k > 1 ? ", " : "", id ? id : "?", url ? url : "",
                     url && strlen(url) > 80 ? "..." : "");
    if (w < 0 || (size_t)w >= n - o) return;
    o += (size_t)w;
  }
}

/* The target sel names, from Target.getTargets; CRAWL_ARG with p->err when
 * none (or, without a selector, not exactly one) fits. */
static crawl_code attach_pick(crawl_page *p, const crawl_attach_opts *sel, char **target_id, char **url) {
  cJSON *res = NULL;
  crawl_code rc = call(p, "Target.getTargets", NULL, &res);
  if (rc) return rc;
  const cJSON *infos = cJSON_GetObjectItemCaseSensitive(res, "targetInfos"), *t, *hit = NULL;
  const char *want_id = sel ? sel->target_id : NULL, *contains = sel ? sel->url_contains : NULL;
  const char *prefix = sel ? sel->url_prefix : NULL;
  int pages = 0;
  cJSON_ArrayForEach(t, infos) {
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "type"));
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "targetId"));
    const char *u = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "url"));
    if (!id || !u) continue;
    if (want_id && !strcmp(id, want_id)) {
      if (!type || strcmp(type, "page")) {
        snprintf(p->err, sizeof p->err, "target %.100s is a %.40s, not a page", want_id, type ? type : "?");
        cJSON_Delete(res);
        return CRAWL_ARG;
      }
      hit = t;
    }
    if (!type || strcmp(type, "page")) continue;
    pages++;
    if (want_id || hit) continue;
    if ((contains && strstr(u, contains)) || (!contains && prefix && !strncmp(u, prefix, strlen(prefix)))) hit = t;
  }
  if (!hit && !want_id && !contains && !prefix && pages == 1)
    cJSON_ArrayForEach(t, infos) {
      const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "type"));
      if (type && !strcmp(type, "page")) hit = t;
    }
  if (!hit) {
    char what[240], list[200];
    if (want_id) snprintf(what, sizeof what, "no target %.100s", want_id);
    else if (contains) snprintf(what, sizeof what, "no page target's URL contains \"%.200s\"", contains);
    else if (prefix) snprintf(what, sizeof what, "no page target's URL starts with %.200s", prefix);
    else snprintf(what, sizeof what, "no page chosen, and there is not exactly one");
    list_pages(infos, list, sizeof list);
    snprintf(p->err, sizeof p->err, "%s (%d page target%s%s%s)", what, pages, pages == 1 ? "" : "s",
             pages ? ": " : "", list);
    cJSON_Delete(res);
    return CRAWL_ARG;
  }
  *target_id = crawl__xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(hit, "targetId")));
  *url = crawl__xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(hit, "url")));
  cJSON_Delete(res);
  return CRAWL_OK;
}

/* The top frame's id and URL from a Page.getFrameTree reply. */
static void take_frame_tree(crawl_page *p, const cJSON *res) {
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "frameTree"), "frame");
  const char *fid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "id"));
  const char *u = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "url"));
  const char *frag = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "urlFragment"));
  if (fid) p->main_frame = crawl__xstrdup(fid);
  if (u) {
    char *full = crawl__xprintf("%s%s", u, frag ? frag : "");
    set_url(p, full);
    free(full);
  }
}

crawl_code crawl_page_attach(cdp_client *c, const crawl_page_opts *o, const crawl_attach_opts *sel,
                             crawl_page **out) {
  *out = NULL;
  crawl_page *p = page_new(c, o);
  *out = p;
  /* the target: never p->target_id, so that crawl_page_close cannot close it */
  char *tid = NULL, *turl = NULL;
  crawl_code rc = attach_pick(p, sel, &tid, &turl);
  if (rc) return rc;
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddStringToObject(a, "targetId", tid);
  cJSON_AddBoolToObject(a, "flatten", 1);
  rc = call(p, "Target.attachToTarget", a, &res);
  const char *sid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "sessionId"));
  if (!rc && !sid) {
    snprintf(p->err, sizeof p->err, "Target.attachToTarget: no sessionId in the reply");
    rc = CRAWL_BROWSER;
  }
  if (rc) {
    cJSON_Delete(res);
    free(tid);
    free(turl);
    return rc;
  }
  p->session = crawl__xstrdup(sid);
  cJSON_Delete(res);
  crawl_log(CRAWL_LOG_INFO, "page", "attached to the page %s (%.200s)", tid, turl);
  free(tid);
  set_url(p, turl);
  free(turl);

  static const page_sub subs[] = {
    {"Network.requestWillBeSent", on_request},  {"Network.loadingFinished", on_request},
    {"Network.loadingFailed", on_request},      {"Runtime.bindingCalled", on_binding},
    {"Page.loadEventFired", on_load},           {"Page.domContentEventFired", on_load},
    {"Inspector.targetCrashed", on_crash},      {"Target.attachedToTarget", on_attached_frame},
    {"Target.detachedFromTarget", on_detached}, {"Page.frameNavigated", on_frame_nav},
    {"Page.navigatedWithinDocument", on_frame_nav}, {"Fetch.requestPaused", on_paused},
  };
  page_subscribe(p, subs, sizeof subs / sizeof *subs);

  /* pipelined set-up: no viewport, focus or download override, no dialog
   * handling, nothing browser-wide; the observer runs in the frames there
   * are now (runImmediately, and the top one once more by Runtime.evaluate)
   * and in documents to come */
  char *js = crawl__xprintf(CRAWL__JS(change_observer_attached), p->binding);
  int ids[16];
  int n = send_setup(p, js, 1, ids, 0);
  free(js);
  if (p->o.block_writes) {
    char origin[512];
    url_origin(p->url, origin, sizeof origin);
    if (origin[0]) p->allowed[p->nallowed++] = crawl__xstrdup(origin);
  }
  int tree = n;
  ids[n++] = cdp_send(c, p->session, "Page.getFrameTree", NULL);
  crawl_code result = wait_setup(p, ids, n, tree, &res);
  if (result == CRAWL_OK) result = send_guard(p, 0);
  if (res) take_frame_tree(p, res); /* the reply came (the last one waited for) */
  cJSON_Delete(res);
  /* the document is there: nothing to wait for */
  p->loaded = p->dcl = 1;
  p->last_activity = cdp_now_ms();
  return result;
}

void crawl_page_detach(crawl_page *p) {
  if (!p) return;
  for (int i = 0; i < p->nsubs; i++) cdp_off(p->c, p->subs[i]);
  p->nsubs = 0;
  if (p->session && cdp_client_alive(p->c) && !p->crashed) {
    /* the observer off in every frame (a script run at once and withdrawn) */
    char *js = crawl__xprintf(CRAWL__JS(change_observer_off), p->binding, p->binding);
    cJSON *a = cJSON_CreateObject(), *res = NULL;
    cJSON_AddStringToObject(a, "source", js);
    free(js);
    cJSON_AddBoolToObject(a, "runImmediately", 1);
    if (cdp_call(p->c, p->session, "Page.addScriptToEvaluateOnNewDocument", a, &res, 2000) == CDP_OK) {
      const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "identifier"));
      if (id) {
        a = cJSON_CreateObject();
        cJSON_AddStringToObject(a, "identifier", id);
        cdp_call(p->c, p->session, "Page.removeScriptToEvaluateOnNewDocument", a, NULL, 2000);
      }
    }
    cJSON_Delete(res);
    a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "sessionId", p->session);
    cdp_call(p->c, NULL, "Target.detachFromTarget", a, NULL, 2000);
  }
  free(p->target_id); /* a tab crawl_page_open made stays open too */
  p->target_id = NULL;
  crawl_page_close(p);
}

/* ---- navigate and settle ------------------------------------------------------ */
/* Requests younger than this hold settling; older ones are long polls,
 * beacons or requests whose end the browser never reported. */
#define INFLIGHT_STALE_MS 1500

static int busy_requests(const crawl_page *p, long long now) {
  int n = 0;
  for (int i = 0; i < p->ninflight; i++) n += now - p->inflight_t[i] < INFLIGHT_STALE_MS;
  return n;
}

/* ---- liveness, loops ----------------------------------------------------------- */
/* Top-level navigations within one load, or one settle, after which the page
 * is in a navigation loop (a location.replace or meta refresh loop, two pages
 * sending the browser to each other): it is stopped. Sign-in flows and
 * redirect chains commit a few documents; a loop commits one every 50-150 ms,
 * so this is 0.5-1.5 s of it. */
#define LOAD_MAX_NAVS 10
/* While waiting for load or settling, the page is asked for "0"
 * (Runtime.evaluate, served by its main thread) every PROBE_EVERY_MS. No
 * answer for HUNG_MS while the thread is running JavaScript (in_script)
 * means a script that does not yield (an endless loop, a dialog loop): it is
 * terminated, sooner than at the load timeout (crawl 15 s, snapshot 30 s).
 * Building 100,000 elements in script takes at most 2-4 s on a loaded 2-core
 * machine. */
#define PROBE_EVERY_MS 500
#define HUNG_MS 8000
#define UNSTICK_MS 2000

/* A navigation loop is broken by cancelling the page's next navigation of
 * its own (Navigation API: a "navigate" event whose default is prevented;
 * location.replace/assign/href, meta refresh, link clicks; never our
 * Page.navigate), once, in the current document and in the next one. The
 * page then stays on a whole document, which is captured; the load counts as
 * not settled. The guard for new documents is dropped when settling ends.
 * The script is js/navigation_loop_guard.js. */

static void stop_loop(crawl_page *p, const char *when, int navs) {
  crawl_log(CRAWL_LOG_WARN, "page", "%s: %d top-level navigations %s (a redirect or refresh loop?); stopping it",
            p->url ? p->url : "", navs, when);
  p->loop_stops++;
  if (!p->loop_guard) {
    cJSON *a = cJSON_CreateObject(), *res = NULL;
    cJSON_AddStringToObject(a, "source", CRAWL__JS(navigation_loop_guard));
    if (cdp_call(p->c, p->session, "Page.addScriptToEvaluateOnNewDocument", a, &res, 2000) == CDP_OK) {
      const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "identifier"));
      if (id) p->loop_guard = crawl__xstrdup(id);
    }
    cJSON_Delete(res);
  }
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "expression", CRAWL__JS(navigation_loop_guard));
  int id = cdp_send(p->c, p->session, "Runtime.evaluate", a);
  if (id > 0) cdp_abandon(p->c, id);
}

static void drop_loop_guard(crawl_page *p) {
  if (!p->loop_guard) return;
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "identifier", p->loop_guard);
  int id = cdp_send(p->c, p->session, "Page.removeScriptToEvaluateOnNewDocument", a);
  if (id > 0) cdp_abandon(p->c, id);
  free(p->loop_guard);
  p->loop_guard = NULL;
}

/* Asks the page for "0" within timeout_ms. 1: answered (an error reply,
 * e.g. no context during a navigation, is an answer too, and so is a
 * crash, which the caller reports); 0: no answer; -code: the call failed
 * otherwise (cancelled, the browser gone). */
/* A probe's answer: 1 answered (or crashed: the caller's to report), 0 no
 * answer in time, < 0 -crawl_code. */
static int probe_answer(crawl_page *p, cdp_code rc) {
  if (rc == CDP_OK || rc == CDP_REMOTE || p->crashed) return 1;
  if (rc == CDP_TIMEOUT) return 0;
  perr(p, "Runtime.evaluate");
  return -(int)from_cdp(p, rc);
}

static int probe(crawl_page *p, int timeout_ms) {
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "expression", "0");
  return probe_answer(p, cdp_call(p->c, p->session, "Runtime.evaluate", a, NULL, timeout_ms));
}

/* probe, asking the page what it still has pending (js/change_observer.js:
 * timers of up to 1 s, animation frames, running animations, a mutation
 * report not sent yet) into *pending (-1: it cannot say). */
static int probe_pending(crawl_page *p, int timeout_ms, int *pending) {
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  char *expr = crawl__xprintf("(()=>{const f=window['%s__pending'];return f?f():-1})()", p->binding);
  cJSON_AddStringToObject(a, "expression", expr);
  cJSON_AddBoolToObject(a, "returnByValue", 1);
  free(expr);
  cdp_code rc = cdp_call(p->c, p->session, "Runtime.evaluate", a, &res, timeout_ms);
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "result"), "value");
  *pending = rc == CDP_OK && cJSON_IsNumber(v) ? v->valueint : -1;
  cJSON_Delete(res);
  return probe_answer(p, rc);
}

/* 1 when the page's main thread is running JavaScript. Performance.getMetrics
 * is one of the DevTools commands Chromium delivers by interrupting running
 * JavaScript: it is answered while a script loops, but not while the thread
 * parses, lays out or paints (a page with 100,000 elements keeps it busy for
 * seconds on a loaded machine: that is not a script to terminate). */
static int in_script(crawl_page *p) {
  cdp_code rc = cdp_call(p->c, p->session, "Performance.getMetrics", NULL, NULL, 1000);
  return !p->crashed && (rc == CDP_OK || rc == CDP_REMOTE);
}

/* Runtime.terminateExecution is served off the page's main thread too: it
 * stops the running script, and the parser goes on. 1: terminated; 0: the
 * thread is not running a script (or answered after all). */
static int terminate_script(crawl_page *p, long long since) {
  if (!in_script(p) || probe(p, 200) != 0) return 0;
  cdp_call(p->c, p->session, "Runtime.terminateExecution", NULL, NULL, 2000);
  p->terminated++;
  crawl_log(CRAWL_LOG_WARN, "page", "the page's script did not yield for %lld ms (an endless loop?): terminated it",
            cdp_now_ms() - since);
  return 1;
}

typedef struct {
  long long next;          /* when the next probe is due */
  long long unanswered;    /* since when probes go unanswered, 0: they do not */
} liveness;

/* Probes the page if a probe is due, waiting at most until limit (the load
 * or settle deadline): a page that has answered nothing for HUNG_MS gets its
 * running script terminated. Returns CRAWL_OK or the error. */
static crawl_code live_check(crawl_page *p, liveness *l, long long limit) {
  long long now = cdp_now_ms();
  if (now < l->next || now >= limit) return CRAWL_OK;
  long long since = l->unanswered ? l->unanswered : now, to = since + HUNG_MS - now;
  if (to > limit - now) to = limit - now;
  int alive = probe(p, to > 1 ? (int)to : 1);
  if (alive < 0) return (crawl_code)-alive;
  now = cdp_now_ms();
  if (alive && now - since >= 1000)
    crawl_log(CRAWL_LOG_DEBUG, "page", "the page's main thread was busy for %lld ms", now - since);
  if (alive) {
    l->unanswered = 0;
    l->next = now + PROBE_EVERY_MS;
  } else {
    l->unanswered = since; /* cut short by limit: go on probing */
    if (now - since >= HUNG_MS) {
      /* terminated; or busy, but not in a script: another HUNG_MS */
      l->unanswered = terminate_script(p, since) ? 0 : cdp_now_ms();
      l->next = cdp_now_ms() + PROBE_EVERY_MS;
    }
  }
  return CRAWL_OK;
}

/* At the load timeout (always) or the settle cap (when a probe is
 * unanswered): wait for an answer until HUNG_MS have passed without one,
 * UNSTICK_MS at most, then terminate the running script, so that what it
 * built can be captured (every capture call would wait for it). */
static void unstick(crawl_page *p, liveness *l) {
  long long now = cdp_now_ms(), since = l->unanswered ? l->unanswered : now;
  long long to = since + HUNG_MS - now;
  if (to > UNSTICK_MS) to = UNSTICK_MS;
  if (probe(p, to > 1 ? (int)to : 1) != 0) return;
  if (terminate_script(p, since)) l->unanswered = 0;
}

/* ---- settle ---------------------------------------------------------------------- */
/* Settles the page; navs0: top-level navigations before the load or settle
 * (navigations beyond LOAD_MAX_NAVS from there are a loop). */
/* Settling on evidence (crawl_page_opts.settle_early): quiet for
 * EARLY_QUIET_MS with no request in flight, and the page says nothing is
 * pending: settled, without waiting out the whole quiet window. Asked once
 * per quiet spell. 1: settled early; 0: wait on; < 0: -crawl_code. */
#define EARLY_QUIET_MS 30
#define EARLY_PROBE_MS 500
static int settled_early(crawl_page *p, long long deadline, long long *asked, int *off) {
  long long now = cdp_now_ms();
  if (!p->o.settle_early || *off || *asked == p->last_activity || busy_requests(p, now) ||
      now - p->last_activity < EARLY_QUIET_MS || now >= deadline)
    return 0;
  *asked = p->last_activity;
  int pending = -1, alive = probe_pending(p, EARLY_PROBE_MS, &pending);
  if (alive < 0) return alive;
  if (!alive) *off = 1; /* its main thread is busy: the liveness rules below decide */
  return alive && pending == 0 && !p->crashed && !busy_requests(p, cdp_now_ms()) && *asked == p->last_activity;
}

static crawl_code settle_until(crawl_page *p, int navs0) {
  long long start = cdp_now_ms(), deadline = start + p->o.settle_max_ms, asked = -1;
  int early_off = 0;
  if (p->last_activity < start - p->o.settle_quiet_ms) p->last_activity = start - p->o.settle_quiet_ms / 2;
  p->settled = p->still = 0;
  liveness live = {start + PROBE_EVERY_MS, 0};
  for (;;) {
    long long now = cdp_now_ms();
    if (p->crashed) {
      snprintf(p->err, sizeof p->err, "the page crashed");
      return CRAWL_CRASHED;
    }
    if (p->navs - navs0 > LOAD_MAX_NAVS) {
      stop_loop(p, "while settling", p->navs - navs0);
      navs0 = p->navs;
    }
    int early = settled_early(p, deadline, &asked, &early_off);
    if (early < 0) return (crawl_code)-early;
    if (early) {
      p->settled = !p->loop_stops && !p->terminated;
      p->still = p->settled;
      p->still_at = p->last_activity;
      return CRAWL_OK;
    }
    now = cdp_now_ms();
    if (busy_requests(p, now) == 0 && now - p->last_activity >= p->o.settle_quiet_ms && now < deadline) {
      /* quiet: and does its main thread answer? (a script that started an
       * endless loop is quiet too) */
      long long sent = cdp_now_ms();
      int alive = probe(p, deadline - sent > 1 ? (int)(deadline - sent) : 1);
      if (alive < 0) return (crawl_code)-alive;
      if (p->crashed) continue;
      if (!alive) {
        if (!live.unanswered) live.unanswered = sent;
        continue; /* at the cap now: unstick */
      }
      now = cdp_now_ms();
      if (busy_requests(p, now) == 0 && now - p->last_activity >= p->o.settle_quiet_ms) {
        /* a stopped loop or a terminated script did not come to rest by itself */
        p->settled = !p->loop_stops && !p->terminated;
        return CRAWL_OK;
      }
    }
    if (now >= deadline) {
      crawl_log(CRAWL_LOG_DEBUG, "page", "not settled after %d ms (%d requests in flight%s%s, last activity %lld ms ago)",
                p->o.settle_max_ms, p->ninflight, p->ninflight ? ": " : "", p->ninflight ? p->inflight[0] : "",
                now - p->last_activity);
      if (live.unanswered) unstick(p, &live);
      return CRAWL_OK;
    }
    crawl_code lc = live_check(p, &live, deadline);
    if (lc) return lc;
    now = cdp_now_ms();
    long long wait = p->o.settle_quiet_ms - (now - p->last_activity);
    if (p->o.settle_early && !early_off && asked != p->last_activity &&
        wait > EARLY_QUIET_MS - (now - p->last_activity))
      wait = EARLY_QUIET_MS - (now - p->last_activity); /* wake for the early look */
    if (wait < 10) wait = 10;
    if (wait > deadline - now) wait = deadline - now;
    if (wait > live.next - now) wait = live.next - now;
    if (wait < 1) wait = 1;
    cdp_code rc = pump(p, (int)wait);
    if (rc) {
      perr(p, "while waiting for the page to settle");
      return from_cdp(p, rc);
    }
  }
}

static crawl_code settle(crawl_page *p, int navs0) {
  crawl_code rc = settle_until(p, navs0);
  drop_loop_guard(p);
  return rc;
}

crawl_code crawl_page_settle(crawl_page *p) {
  crawl_code rc = settle(p, p->navs);
  return rc ? rc : guard_check(p);
}

int crawl_page_settled(const crawl_page *p) { return p->settled; }

int crawl_page_still(const crawl_page *p) {
  return p->still && p->last_activity == p->still_at && !p->ninflight && !p->crashed;
}

unsigned long crawl_page_changes(const crawl_page *p) { return p->changes; }

crawl_code crawl_page_wait_change(crawl_page *p, int timeout_ms) {
  unsigned long seen = p->changes;
  long long deadline = cdp_now_ms() + timeout_ms;
  for (;;) {
    if (p->changes != seen) return CRAWL_OK;
    if (p->crashed) {
      snprintf(p->err, sizeof p->err, "the page crashed");
      return CRAWL_CRASHED;
    }
    long long left = deadline - cdp_now_ms();
    if (left <= 0) return CRAWL_TIMEOUT;
    cdp_code rc = pump(p, (int)left);
    if (rc) {
      perr(p, "while waiting for a change");
      return from_cdp(p, rc);
    }
  }
}

/* The load event waits for no request pending this long once the document
 * is parsed (a hung image or script): we go on when the rest is quiet. */
#define LOAD_STALE_MS 5000

static crawl_code page_goto(crawl_page *p, const char *url, int fresh);
crawl_code crawl_page_goto(crawl_page *p, const char *url) { return page_goto(p, url, 0); }
crawl_code crawl_page_load(crawl_page *p, const char *url) { return page_goto(p, url, 1); }

/* With block_writes: url's origin joins the allowed ones (the seed's own
 * origin is always allowed). */
static void allow_origin_of(crawl_page *p, const char *url) {
  char o[512];
  url_origin(url, o, sizeof o);
  int known = 0;
  for (int i = 0; i < p->nallowed; i++)
    if (!strcmp(p->allowed[i], o)) known = 1;
  if (!known && o[0] && p->nallowed < 64) p->allowed[p->nallowed++] = crawl__xstrdup(o);
}

/* Page.navigate to url; *same_doc: it was a same-document navigation. */
static crawl_code navigate(crawl_page *p, const char *url, int *same_doc) {
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddStringToObject(a, "url", url);
  cdp_code nr = cdp_call(p->c, p->session, "Page.navigate", a, &res, p->o.nav_timeout_ms);
  if (nr == CDP_TIMEOUT && !p->crashed) {
    snprintf(p->err, sizeof p->err, "cannot load %s: no response within %d ms", url, p->o.nav_timeout_ms);
    return CRAWL_TIMEOUT;
  }
  if (nr) perr(p, "Page.navigate");
  crawl_code rc = from_cdp(p, nr);
  if (rc) return rc;
  const char *err = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "errorText"));
  const char *frame = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "frameId"));
  if (frame) {
    free(p->main_frame);
    p->main_frame = crawl__xstrdup(frame);
  }
  *same_doc = cJSON_GetObjectItemCaseSensitive(res, "loaderId") == NULL;
  if (err && *err) {
    snprintf(p->err, sizeof p->err, "cannot load %s: %s", url, err);
    cJSON_Delete(res);
    return CRAWL_NAVIGATE;
  }
  cJSON_Delete(res);
  return CRAWL_OK;
}

/* Wait for the load event, at most until deadline; also done when only
 * stale requests hold it, when the page loops (stopped), or at the deadline
 * (its running script unstuck). */
static crawl_code wait_load(crawl_page *p, const char *url, long long deadline, int navs0) {
  liveness live = {cdp_now_ms() + PROBE_EVERY_MS, 0};
  crawl_code rc;
  while (!p->loaded) {
    long long now = cdp_now_ms(), left = deadline - now;
    int young = 0;
    for (int i = 0; i < p->ninflight; i++) young += now - p->inflight_t[i] < LOAD_STALE_MS;
    if (p->dcl && p->ninflight && !young && now - p->last_activity >= p->o.settle_quiet_ms) {
      crawl_log(CRAWL_LOG_INFO, "page", "%s: the load event waits for %d requests pending for %d ms or more; going on",
                url, p->ninflight, LOAD_STALE_MS);
      break;
    }
    if (p->navs - navs0 > LOAD_MAX_NAVS) {
      stop_loop(p, "without a load event", p->navs - navs0);
      break;
    }
    if (p->crashed) {
      snprintf(p->err, sizeof p->err, "the page crashed while loading %s", url);
      return CRAWL_CRASHED;
    }
    if (left <= 0) {
      crawl_log(CRAWL_LOG_WARN, "page", "%s: no load event within %d ms; capturing what is there",
                url, p->o.nav_timeout_ms);
      unstick(p, &live);
      break;
    }
    if ((rc = live_check(p, &live, deadline))) return rc;
    now = cdp_now_ms();
    long long wait = deadline - now;
    if (wait > live.next - now) wait = live.next - now;
    if (wait > 200) wait = 200;
    if (wait < 1) wait = 1;
    cdp_code r = pump(p, (int)wait);
    if (r) {
      perr(p, "while loading");
      return from_cdp(p, r);
    }
  }
  return CRAWL_OK;
}

static crawl_code page_goto(crawl_page *p, const char *url, int fresh) {
  if (guard_check(p)) return CRAWL_GUARD;
  if (p->o.block_writes || p->o.session) allow_origin_of(p, url);
  if (strcmp(url, "about:blank")) {
    free(p->goto_url);
    p->goto_url = crawl__xstrdup(url);
  }
  ws_block_set(p, 0); /* a load's own WebSockets are the app's, not an action's */
  if (fresh && p->url) {
    /* the same document with another fragment would be a same-document
     * navigation, which keeps the page's state: leave it first */
    size_t lc = strcspn(p->url, "#"), ln = strcspn(url, "#");
    if (lc == ln && !strncmp(p->url, url, lc)) {
      crawl_code r0 = page_goto(p, "about:blank", 0);
      if (r0) return r0;
    }
  }
  p->loaded = p->dcl = 0;
  p->loop_stops = p->terminated = 0;
  clear_inflight(p);
  /* one deadline for the response and the load: a server that never
   * answers holds Page.navigate */
  long long deadline = cdp_now_ms() + p->o.nav_timeout_ms;
  int navs0 = p->navs, same_doc = 0;
  crawl_code rc = navigate(p, url, &same_doc);
  if (rc) return rc;
  set_url(p, url);
  if (!same_doc && (rc = wait_load(p, url, deadline, navs0))) return rc;
  return settle(p, p->loop_stops ? p->navs : navs0);
}

/* ---- capture ------------------------------------------------------------------- */
/* The scripts a capture evaluates in the page (js/):
 * - selection.js: usel(), the text selection (web-profile 5.11) -> {t: text,
 *   a: anchor element, f: focus element} or null:
 *   - a focused text field (the deepest focused element, through open shadow
 *     roots and same-origin frames) with a selection inside it: that field
 *     for both ends, and the selected part of its value -- none for a
 *     sensitive field (password, data-uiap-sensitive, card and one-time-code
 *     autocomplete: the graph's PG_SENSITIVE_SELECTOR, at __SENS__). A focused field with a caret only: no selection.
 *   - otherwise the DOM range of the top document, or of the focused
 *     same-origin frame when the top has none: the elements around its ends
 *     and its text (Range.toString: the light tree only, never a closed
 *     shadow root's inside); no text when an end lies in a sensitive element
 *     or the range covers one, no selection when an end lies in a shadow tree.
 *   A cross-origin frame cannot be read (contentDocument is null). pg_build
 *   checks the ends again against what it may publish.
 * - selection_anchor.js, selection_focus.js: the selection's anchor and focus
 *   elements (by reference: their backend ids come from DOM.describeNode).
 * - page_facts.js: viewport, scroll, title, URL, readyState; selection: the
 *   selection's text; frames: URL and readyState of each same-origin frame (a
 *   cross-origin one throws and is skipped); router: the route the app's
 *   router names (Next.js window.next.router.pathname, Vue Router's current
 *   route on the [data-v-app] container, Nuxt 2's $nuxt.$route: its name,
 *   else its matched path; at most 200 characters; "" when none answers).
 * - shadow_hosts.js: elements inside a shadow tree that host an open shadow
 *   root themselves (top document and same-origin frames): the flat snapshot
 *   cannot tell their shadow children from plain children (pg_input.open_hosts).
 * - active_element.js: the deepest focused element.
 * - bridge_meta.js: the content of a frame document's <meta name="uiap-bridge">
 *   (html > head > meta, as pg_snapshot_bridge_meta reads it from a
 *   snapshot), or null. Only this string is read from a frame before it is
 *   known to be bridged. */

char *crawl__js_sensitive(const char *js) {
  /* a single-quoted literal: the selector has double quotes, never ' or \
   * (tests/unit/graph_redaction.c checks) */
  crawl__buf b = {0};
  const char *hit;
  while ((hit = strstr(js, "__SENS__"))) {
    crawl__buf_put(&b, js, (size_t)(hit - js));
    crawl__buf_puts(&b, "'" PG_SENSITIVE_SELECTOR "'");
    js = hit + 8;
  }
  crawl__buf_puts(&b, js);
  return crawl__buf_take(&b);
}

/* Template (one %s) with usel() in place (caller frees). */
static char *with_selection(const char *tmpl) {
  char *sel = crawl__js_sensitive(CRAWL__JS(selection));
  char *js = crawl__xprintf(tmpl, sel);
  free(sel);
  return js;
}

/* ---- what the tab remembers ------------------------------------------------------ */
#define MAX_REMEMBERED 4096 /* fields, by node and by key */

void crawl__page_use_secrets(crawl_page *p, crawl__secrets *s) { p->secrets = s ? s : p->own_secrets; }

crawl__secrets *crawl__page_secrets(const crawl_page *p) { return p ? p->secrets : NULL; }

static void remember_key(crawl_page *p, const char *key) {
  if (!key || p->nsens_keys >= MAX_REMEMBERED) return;
  char *seen = crawl__xprintf("k%s", key);
  if (crawl__strmap_put(&p->sens_seen, seen, 0)) {
    if (p->nsens_keys == p->capsens_keys) {
      p->capsens_keys = p->capsens_keys ? p->capsens_keys * 2 : 16;
      p->sens_keys = crawl__xrealloc(p->sens_keys, p->capsens_keys * sizeof *p->sens_keys);
    }
    p->sens_keys[p->nsens_keys++] = crawl__xstrdup(key);
  }
  free(seen);
}

size_t crawl__page_sensitive_keys(const crawl_page *p, const char *const **keys) {
  *keys = p ? (const char *const *)p->sens_keys : NULL;
  return p ? p->nsens_keys : 0;
}

void crawl__page_remember_keys(crawl_page *p, const char *const *keys, size_t n) {
  for (size_t k = 0; k < n; k++) remember_key(p, keys[k]);
}

/* What capture g found: its sensitive fields into the tab's memory, its
 * redacted values into the run's secret list. */
static void remember(crawl_page *p, const pg_graph *g) {
  for (size_t k = 0; k < g->nsecrets; k++) crawl__secrets_add(p->secrets, g->secrets[k]);
  for (size_t k = 0; k < g->npii; k++) crawl__secrets_add_masked(p->secrets, g->pii_values[k], pg_pii_label(g->pii_kinds[k]));
  for (size_t k = 0; k < g->nsensitive_fields; k++) {
    const pg_sensitive_field *f = &g->sensitive_fields[k];
    char id[24];
    snprintf(id, sizeof id, "n%d", f->backend_node_id);
    if (f->backend_node_id && p->nsens_nodes < MAX_REMEMBERED && crawl__strmap_put(&p->sens_seen, id, 0)) {
      if (p->nsens_nodes == p->capsens_nodes) {
        p->capsens_nodes = p->capsens_nodes ? p->capsens_nodes * 2 : 16;
        p->sens_nodes = crawl__xrealloc(p->sens_nodes, p->capsens_nodes * sizeof *p->sens_nodes);
      }
      p->sens_nodes[p->nsens_nodes++] = f->backend_node_id;
    }
    remember_key(p, f->key);
  }
}

static void memory_release(crawl_page *p) {
  for (size_t k = 0; k < p->nsens_keys; k++) free(p->sens_keys[k]);
  free(p->sens_keys);
  free(p->sens_nodes);
  crawl__strmap_release(&p->sens_seen);
}

static int send_eval_in(crawl_page *p, const char *session, const char *expr, int by_value, const char *group) {
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "expression", expr);
  cJSON_AddBoolToObject(a, "returnByValue", by_value);
  cJSON_AddBoolToObject(a, "silent", 1);
  if (group) cJSON_AddStringToObject(a, "objectGroup", group);
  return cdp_send(p->c, session, "Runtime.evaluate", a);
}
static int send_eval(crawl_page *p, const char *expr, int by_value) {
  return send_eval_in(p, p->session, expr, by_value, NULL);
}

/* The objectId of a Runtime.evaluate reply's result, NULL when there is none. */
static const char *result_object(const cJSON *reply) {
  return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(reply, "result"), "objectId"));
}

/* Wait for an accessibility-tree reply sent with cdp_send_raw: the text is
 * shrunk to what the builder reads (pg_ax_compact, ~40% smaller tree), then
 * parsed. *result is the "result" object (caller deletes); a reply that is
 * not JSON gives an empty one (names and states then come from attributes). */
static cdp_code wait_ax(crawl_page *p, int id, cJSON **result) {
  char *text = NULL;
  size_t len = 0;
  *result = NULL;
  cdp_code r = cdp_wait_raw(p->c, id, &text, &len, p->o.call_timeout_ms);
  if (r) return r;
  len = pg_ax_compact(text, len);
  cJSON *msg = cJSON_ParseWithLength(text, len);
  if (!msg && cdp_json_fix_surrogates(text, len)) msg = cJSON_ParseWithLength(text, len);
  free(text);
  *result = cJSON_DetachItemFromObjectCaseSensitive(msg, "result");
  cJSON_Delete(msg);
  if (!*result) {
    crawl_log(CRAWL_LOG_WARN, "capture", "malformed accessibility tree reply: not used");
    *result = cJSON_CreateObject();
  }
  return CDP_OK;
}

/* Collect same-origin child frames from Page.getFrameTree. */
typedef struct { const char *id, *parent, *url, *origin; } frame_row;
static void walk_frames(const cJSON *node, const char *parent, frame_row *rows, int *n) {
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(node, "frame");
  if (f && *n < MAX_FRAMES) {
    frame_row *r = &rows[(*n)++];
    r->id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "id"));
    r->parent = parent;
    r->url = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "url"));
    r->origin = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "securityOrigin"));
  }
  const cJSON *ch;
  cJSON_ArrayForEach(ch, cJSON_GetObjectItemCaseSensitive(node, "childFrames"))
    walk_frames(ch, f ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "id")) : parent, rows, n);
}

static crawl_code capture_once(crawl_page *p, const pg_options *opts, pg_graph **out);

/* A page that navigates while it is captured (a redirect loop, a refresh)
 * fails some calls ("Inspected target navigated or closed") or mixes two
 * documents: capture again, at most three times in all. */
crawl_code crawl_page_capture(crawl_page *p, const pg_options *opts, pg_graph **out) {
  *out = NULL;
  crawl_code rc = guard_check(p);
  if (rc) return rc;
  pg_graph *best = NULL; /* of the captures a navigation overtook: the fullest */
  for (int attempt = 0; attempt < 3; attempt++) {
    int navs0 = p->navs;
    rc = capture_once(p, opts, out);
    int moved = p->navs != navs0 ||
                (rc != CRAWL_OK && strstr(p->err, "navigated or closed") && !p->crashed);
    int fatal = p->crashed || rc == CRAWL_CANCELLED || !cdp_client_alive(p->c);
    if (!moved || fatal) {
      if (rc == CRAWL_OK || !best || fatal) {
        pg_graph_free(best);
        return rc;
      }
      pg_graph_free(*out);
      *out = best;
      return CRAWL_OK;
    }
    crawl_log(CRAWL_LOG_INFO, "capture", "the page navigated while it was captured; again");
    if (*out && (!best || (*out)->nelements > best->nelements)) {
      pg_graph_free(best);
      best = *out;
    } else {
      pg_graph_free(*out);
    }
    *out = NULL;
    /* the next document, once its DOM is there (bounded) */
    unsigned ndcl0 = p->ndcl;
    for (long long end = cdp_now_ms() + 1000; attempt < 2 && p->ndcl == ndcl0 && cdp_now_ms() < end;) pump(p, 50);
  }
  if (!best) {
    snprintf(p->err, sizeof p->err, "the page kept navigating while it was captured (a redirect loop?)");
    return CRAWL_NAVIGATE;
  }
  /* a page that keeps navigating: the fullest document it showed (a capture
   * between two documents holds next to nothing) */
  *out = best;
  return CRAWL_OK;
}

/* DOMSnapshot.captureSnapshot parameters: the computed styles pg_build reads
 * (by position: keep the order; the paddings place a frame's content inside
 * its iframe, position tells drawers), DOM rects and paint order. */
static cJSON *snapshot_params(void) {
  cJSON *a = cJSON_CreateObject();
  cJSON *styles = cJSON_AddArrayToObject(a, "computedStyles");
  static const char *const want[] = {"display", "visibility", "opacity", "pointer-events",
                                     "padding-left", "padding-top", "position"};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) cJSON_AddItemToArray(styles, cJSON_CreateString(want[i]));
  cJSON_AddBoolToObject(a, "includeDOMRects", 1);
  cJSON_AddBoolToObject(a, "includePaintOrder", 1);
  return a;
}

/* Bridged out-of-process frames (site isolation puts another site's frame in
 * a target of its own): the browser says each one's URL; a frame whose
 * origin the run bridges, or -- when the run allows bridges -- whose
 * document declares a bridge into this page (top_origin; the
 * <meta name="uiap-bridge"> content and nothing else is read to decide), is
 * captured over its own session -- DOMSnapshot and the full accessibility
 * tree, coordinates local to the frame (pg_build places them, and checks
 * the declaration again). Nothing is read from any other frame. Fills subs
 * (at most MAX_BRIDGED), snaps and axs (the caller frees them); returns the
 * count. */
#define MAX_BRIDGED 16

/* The candidates: out-of-process frames with an owner and a session of
 * ours. For each, the browser is asked for its URL (by_origin) and the frame
 * for its bridge declaration (opts->allow_bridges); the ids of those
 * requests go to info_ids and meta_ids (0: not asked). Returns the count. */
static int bridge_ask(crawl_page *p, const pg_options *opts, int by_origin, const pg_frame_info *frames,
                      int nframes, const pg_frame_info **cand, const char **sessions, int *info_ids,
                      int *meta_ids) {
  char *meta_js = opts->allow_bridges ? crawl__xprintf(CRAWL__JS(bridge_meta), PG_BRIDGE_META) : NULL;
  int n = 0;
  for (int i = 0; i < nframes; i++) {
    if (!frames[i].oopif || !frames[i].owner_backend_node_id) continue;
    const char *session = NULL;
    for (int k = 0; k < p->noopifs; k++)
      if (!strcmp(p->oopifs[k].target_id, frames[i].frame_id)) session = p->oopifs[k].session;
    if (!session) continue;
    cand[n] = &frames[i];
    sessions[n] = session;
    info_ids[n] = meta_ids[n] = 0;
    if (by_origin) {
      cJSON *t = cJSON_CreateObject();
      cJSON_AddStringToObject(t, "targetId", frames[i].frame_id);
      info_ids[n] = cdp_send(p->c, NULL, "Target.getTargetInfo", t);
    }
    if (meta_js) meta_ids[n] = send_eval_in(p, session, meta_js, 1, NULL);
    n++;
  }
  free(meta_js);
  return n;
}

/* The replies to bridge_ask for one candidate: 1 when its origin is one the
 * run bridges or its document declares a bridge into top_origin. */
static int bridge_consented(crawl_page *p, const pg_options *opts, const char *top_origin, int info_id,
                            int meta_id) {
  int bridged = 0, to = p->o.call_timeout_ms;
  cJSON *res = NULL;
  if (info_id > 0 && cdp_wait(p->c, info_id, &res, to) == CDP_OK) {
    const char *url = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(res, "targetInfo"), "url"));
    char o[512];
    url_origin(url, o, sizeof o);
    for (int b = 0; o[0] && opts->bridge_origins[b]; b++) bridged |= !strcmp(opts->bridge_origins[b], o);
  }
  cJSON_Delete(res);
  res = NULL;
  if (meta_id > 0 && cdp_wait(p->c, meta_id, &res, to) == CDP_OK) {
    const char *content = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(res, "result"), "value"));
    bridged |= pg_bridge_consents(content, top_origin);
  }
  cJSON_Delete(res);
  return bridged;
}

/* The snapshot and AX replies of the nsubs bridged frames: those with a
 * snapshot are kept, in order, in subs, snaps and axs (the caller frees
 * those). Returns how many were kept. */
static int bridge_collect(crawl_page *p, pg_subframe *subs, const int *snap_ids, const int *ax_ids, int nsubs,
                          pg_snapshot **snaps, cJSON **axs) {
  int kept = 0;
  for (int k = 0; k < nsubs; k++) {
    char *text = NULL;
    size_t len = 0;
    pg_snapshot *snap = NULL;
    cJSON *ax = NULL;
    if (cdp_wait_raw(p->c, snap_ids[k], &text, &len, p->o.call_timeout_ms) == CDP_OK)
      pg_snapshot_parse(text, len, &snap);
    free(text);
    if (wait_ax(p, ax_ids[k], &ax) != CDP_OK) ax = NULL;
    if (!snap) {
      crawl_log(CRAWL_LOG_WARN, "capture", "bridged frame %s: no snapshot; it stays opaque", subs[k].frame_id);
      cJSON_Delete(ax);
      continue;
    }
    subs[kept] = subs[k];
    subs[kept].snapshot = snap;
    subs[kept].ax = ax;
    snaps[kept] = snap;
    axs[kept] = ax;
    kept++;
  }
  return kept;
}

static int capture_bridged(crawl_page *p, const pg_options *opts, const char *top_origin,
                           const pg_frame_info *frames, int nframes,
                           pg_subframe *subs, pg_snapshot **snaps, cJSON **axs) {
  int by_origin = opts && opts->bridge_origins && opts->bridge_origins[0];
  if (!opts || (!by_origin && !opts->allow_bridges)) return 0;
  int info_ids[MAX_FRAMES], meta_ids[MAX_FRAMES];
  const pg_frame_info *cand[MAX_FRAMES];
  const char *sessions[MAX_FRAMES];
  int n = bridge_ask(p, opts, by_origin, frames, nframes, cand, sessions, info_ids, meta_ids);
  int snap_ids[MAX_BRIDGED], ax_ids[MAX_BRIDGED], nsubs = 0;
  for (int k = 0; k < n; k++) {
    int bridged = bridge_consented(p, opts, top_origin, info_ids[k], meta_ids[k]);
    const char *session = sessions[k];
    if (!bridged || nsubs == MAX_BRIDGED) continue;
    subs[nsubs] = (pg_subframe){.frame_id = cand[k]->frame_id, .session_id = session,
                                .owner_backend_node_id = cand[k]->owner_backend_node_id};
    snap_ids[nsubs] = cdp_send_raw(p->c, session, "DOMSnapshot.captureSnapshot", snapshot_params());
    ax_ids[nsubs] = cdp_send_raw(p->c, session, "Accessibility.getFullAXTree", NULL);
    nsubs++;
  }
  return bridge_collect(p, subs, snap_ids, ax_ids, nsubs, snaps, axs);
}

/* One capture in flight (capture_once): the requests of each round, the
 * replies (owned: capture_release frees them), and what is built from them.
 * Round 1 needs nothing else: the snapshot, the frame tree, the page facts,
 * the focused element, the selection's ends, the shadow hosts, the owners of
 * out-of-process frames, and (pages of up to ax_full_limit nodes) the whole
 * AX tree. Round 2 needs round 1: the AX trees of same-origin frames, the
 * backend ids of the focused element and the selection's ends, and those of
 * the nested open shadow hosts. */
typedef struct capture {
  crawl_page *p;
  const pg_options *opts;
  int to;                                /* the call timeout */
  long long t0, t1, t2, t3;              /* round 1 sent, waited, AX, frames done */
  int id_snap, id_tree, id_facts, id_active, id_sel[2], id_hosts, owner_ids[MAX_FRAMES];
  pg_snapshot *snap;
  cJSON *tree, *facts, *active, *hosts, *sel[2], *ax_main;
  size_t nodes;                          /* in the snapshot */
  int full_ax;                           /* the whole AX tree, else the candidates in view */
  pg_frame_info frames[MAX_FRAMES];      /* out-of-process frames, then the others */
  int nframes;
  frame_row rows[MAX_FRAMES];            /* Page.getFrameTree, the top frame first */
  int nrows;
  const char *top_origin;
  int ax_ids[MAX_FRAMES], nax_ids, id_desc, id_sel_desc[2];
  const cJSON *ax[MAX_FRAMES + 1];       /* ax_main, ax_owned, then the partial tree */
  cJSON *ax_owned[MAX_FRAMES];
  size_t nax;
  int focused, sel_ends[2];              /* backend node ids, 0 none */
  int *open_hosts, nopen_hosts;
  pg_subframe subs[MAX_BRIDGED];
  pg_snapshot *sub_snaps[MAX_BRIDGED];
  cJSON *sub_ax[MAX_BRIDGED];
  int nsubs;
  cJSON *partial;                        /* AX of the candidates in view (huge pages) */
} capture;

static void capture_send_first(capture *k) {
  crawl_page *p = k->p;
  cdp_client *c = p->c;
  /* raw: ~10 MB of integers on a 50k-element page, read straight into arrays */
  k->id_snap = cdp_send_raw(c, p->session, "DOMSnapshot.captureSnapshot", snapshot_params());
  k->id_tree = cdp_send(c, p->session, "Page.getFrameTree", NULL);
  char *facts = with_selection(CRAWL__JS(page_facts));
  k->id_facts = send_eval(p, facts, 1);
  free(facts);
  k->id_active = send_eval(p, CRAWL__JS(active_element), 0);
  char *sel_anchor = with_selection(CRAWL__JS(selection_anchor)), *sel_focus = with_selection(CRAWL__JS(selection_focus));
  k->id_sel[0] = send_eval_in(p, p->session, sel_anchor, 0, "uiap-sel");
  k->id_sel[1] = send_eval_in(p, p->session, sel_focus, 0, "uiap-sel");
  free(sel_anchor);
  free(sel_focus);
  cJSON *ha = cJSON_CreateObject();
  cJSON_AddStringToObject(ha, "expression", CRAWL__JS(shadow_hosts));
  cJSON_AddStringToObject(ha, "objectGroup", "uiap-hosts");
  cJSON_AddBoolToObject(ha, "silent", 1);
  k->id_hosts = cdp_send(c, p->session, "Runtime.evaluate", ha);
  for (int i = 0; i < p->noopifs; i++) {
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "frameId", p->oopifs[i].target_id);
    k->owner_ids[i] = cdp_send(c, p->session, "DOM.getFrameOwner", f);
  }
}

/* The snapshot reply, parsed. */
static crawl_code capture_snapshot(capture *k) {
  crawl_page *p = k->p;
  char *snap_text = NULL;
  size_t snap_len = 0;
  cdp_code r = cdp_wait_raw(p->c, k->id_snap, &snap_text, &snap_len, k->to);
  if (r) {
    perr(p, "DOMSnapshot.captureSnapshot");
    return from_cdp(p, r);
  }
  long long tp = cdp_now_ms();
  pg_code pc = pg_snapshot_parse(snap_text, snap_len, &k->snap);
  free(snap_text); /* at once: the biggest block of the capture */
  crawl_log(CRAWL_LOG_DEBUG, "capture", "snapshot reply: %zu bytes, parsed in %lld ms", snap_len, cdp_now_ms() - tp);
  if (pc) {
    snprintf(p->err, sizeof p->err, "building the page graph: DOMSnapshot reply: %s", pg_strerror(pc));
    return CRAWL_CAPTURE;
  }
  return CRAWL_OK;
}

/* Wait for the reply to id into *res unless an earlier one failed (*rc):
 * then 1 ms, so that a dead page costs one timeout, not five. The first
 * failure (a CDP error reply too, unless remote_ok) goes to *rc. */
static void capture_wait(capture *k, int id, cJSON **res, const char *what, int remote_ok, crawl_code *rc) {
  cdp_code r = cdp_wait(k->p->c, id, res, *rc ? 1 : k->to);
  if (r && !*rc && !(remote_ok && r == CDP_REMOTE)) {
    perr(k->p, what);
    *rc = from_cdp(k->p, r);
  }
}

/* The owners of the out-of-process frames, into k->frames. */
static void capture_frame_owners(capture *k, crawl_code rc) {
  crawl_page *p = k->p;
  for (int i = 0; i < p->noopifs; i++) {
    cJSON *o = NULL;
    if (cdp_wait(p->c, k->owner_ids[i], &o, rc ? 1 : k->to) == CDP_OK) {
      const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "backendNodeId");
      k->frames[k->nframes++] = (pg_frame_info){.frame_id = p->oopifs[i].target_id, .oopif = 1,
                                                .owner_backend_node_id = b ? b->valueint : 0};
    }
    cJSON_Delete(o);
  }
}

static crawl_code capture_wait_first(capture *k) {
  crawl_page *p = k->p;
  crawl_code rc = capture_snapshot(k);
  capture_wait(k, k->id_tree, &k->tree, "Page.getFrameTree", 0, &rc);
  capture_wait(k, k->id_facts, &k->facts, "page facts", 0, &rc);
  capture_wait(k, k->id_active, &k->active, "focus", 1, &rc);
  capture_wait(k, k->id_hosts, &k->hosts, "shadow hosts", 1, &rc);
  for (int j = 0; j < 2; j++) capture_wait(k, k->id_sel[j], &k->sel[j], "selection", 1, &rc);
  k->t1 = cdp_now_ms();
  /* Accessibility data: the whole tree on ordinary pages; on huge ones
   * (getFullAXTree grows faster than the page) only for the candidates in
   * view, the rest computed from the snapshot. */
  k->nodes = pg_snapshot_node_count(k->snap);
  k->full_ax = k->nodes <= p->o.ax_full_limit;
  if (!rc && k->full_ax) {
    cdp_code r = wait_ax(p, cdp_send_raw(p->c, p->session, "Accessibility.getFullAXTree", NULL), &k->ax_main);
    if (r && r != CDP_REMOTE) { perr(p, "Accessibility.getFullAXTree"); rc = from_cdp(p, r); }
  }
  k->t2 = cdp_now_ms();
  capture_frame_owners(k, rc);
  return rc;
}

/* Whether the AX tree of frame row i may be read: only frames whose origin
 * equals the top's, or a bridge (named by the run, or declared by the frame
 * when the run allows it); about: frames inherit their parent's. */
static int frame_readable(const capture *k, int i) {
  const frame_row *row = &k->rows[i];
  const pg_options *opts = k->opts;
  const char *top = k->top_origin;
  int readable = top && row->origin && !strcmp(row->origin, top) && strcmp(top, "null");
  for (int b = 0; !readable && opts && opts->bridge_origins && opts->bridge_origins[b]; b++)
    readable = row->origin && !strcmp(row->origin, opts->bridge_origins[b]);
  if (!readable && opts && opts->allow_bridges && row->id)
    readable = pg_bridge_consents(pg_snapshot_bridge_meta(k->snap, row->id), top);
  if (row->url && !strncmp(row->url, "about:", 6)) readable = 1;
  return readable;
}

/* DOM.describeNode of a remote object, sent; its id (0: no object). */
static int send_describe(crawl_page *p, const char *object_id) {
  if (!object_id) return 0;
  cJSON *d = cJSON_CreateObject();
  cJSON_AddStringToObject(d, "objectId", object_id);
  return cdp_send(p->c, p->session, "DOM.describeNode", d);
}

static void capture_send_second(capture *k) {
  crawl_page *p = k->p;
  walk_frames(cJSON_GetObjectItemCaseSensitive(k->tree, "frameTree"), NULL, k->rows, &k->nrows);
  k->top_origin = k->nrows ? k->rows[0].origin : NULL;
  for (int i = 1; i < k->nrows; i++) {
    if (!frame_readable(k, i) || !k->full_ax) continue;
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "frameId", k->rows[i].id);
    k->ax_ids[k->nax_ids++] = cdp_send_raw(p->c, p->session, "Accessibility.getFullAXTree", f);
  }
  k->id_desc = send_describe(p, result_object(k->active));
  for (int j = 0; j < 2; j++) k->id_sel_desc[j] = send_describe(p, result_object(k->sel[j]));
}

/* The backend node id in the reply to DOM.describeNode id (0: not sent)
 * into *backend; 1 when there was one. */
static int wait_backend(capture *k, int id, int *backend) {
  cJSON *d = NULL;
  int found = 0;
  if (id && cdp_wait(k->p->c, id, &d, k->to) == CDP_OK) {
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, "node"), "backendNodeId");
    if ((found = cJSON_IsNumber(b))) *backend = b->valueint;
  }
  cJSON_Delete(d);
  return found;
}

/* Release, without waiting, what Runtime holds for us: an object, or
 * (object_id NULL) an object group. */
static void release_remote(crawl_page *p, const char *object_id, const char *group) {
  cJSON *a = cJSON_CreateObject();
  if (object_id) cJSON_AddStringToObject(a, "objectId", object_id);
  else cJSON_AddStringToObject(a, "objectGroup", group);
  int id = cdp_send(p->c, p->session, object_id ? "Runtime.releaseObject" : "Runtime.releaseObjectGroup", a);
  if (id > 0) cdp_abandon(p->c, id);
}

static void capture_wait_second(capture *k) {
  crawl_page *p = k->p;
  if (k->ax_main) k->ax[k->nax++] = k->ax_main;
  for (int i = 0; i < k->nax_ids; i++) {
    cJSON *x = NULL;
    wait_ax(p, k->ax_ids[i], &x);
    k->ax_owned[i] = x;
    if (x) k->ax[k->nax++] = x;
  }
  if (k->id_desc) {
    wait_backend(k, k->id_desc, &k->focused);
    release_remote(p, result_object(k->active), NULL);
  }
  for (int j = 0; j < 2; j++) wait_backend(k, k->id_sel_desc[j], &k->sel_ends[j]);
  if (result_object(k->sel[0]) || result_object(k->sel[1])) release_remote(p, NULL, "uiap-sel");
}

/* Nested open shadow hosts: the elements of the array shadow_hosts.js
 * returned, then their backend ids (k->open_hosts). */
static void capture_open_hosts(capture *k) {
  crawl_page *p = k->p;
  const cJSON *harr = cJSON_GetObjectItemCaseSensitive(k->hosts, "result");
  const char *hdesc = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(harr, "description"));
  const char *hobj = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(harr, "objectId"));
  if (hobj && hdesc && strcmp(hdesc, "Array(0)")) {
    cJSON *gp = cJSON_CreateObject(), *props = NULL;
    cJSON_AddStringToObject(gp, "objectId", hobj);
    cJSON_AddBoolToObject(gp, "ownProperties", 1);
    if (cdp_call(p->c, p->session, "Runtime.getProperties", gp, &props, k->to) == CDP_OK) {
      const cJSON *it, *list = cJSON_GetObjectItemCaseSensitive(props, "result");
      int n = cJSON_GetArraySize(list), nids = 0;
      int *ids = crawl__xcalloc((size_t)n + 1, sizeof *ids);
      k->open_hosts = crawl__xcalloc((size_t)n + 1, sizeof *k->open_hosts);
      cJSON_ArrayForEach(it, list) {
        const char *oid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(it, "value"), "objectId"));
        if (oid && nids < n) ids[nids++] = send_describe(p, oid);
      }
      for (int j = 0; j < nids; j++)
        if (wait_backend(k, ids[j], &k->open_hosts[k->nopen_hosts])) k->nopen_hosts++;
      free(ids);
    }
    cJSON_Delete(props);
  }
  if (hobj) release_remote(p, NULL, "uiap-hosts");
}

/* On a huge page: a first build without AX picks the candidates in view
 * (and the focused element); their AX (getPartialAXTree, pipelined) joins
 * in->ax as one more tree, k->partial. */
static void capture_partial_ax(capture *k, pg_input *in) {
  crawl_page *p = k->p;
  pg_graph *g1 = NULL;
  pg_options o1 = k->opts ? *k->opts : (pg_options){0};
  o1.max_nodes = 0;
  o1.revision = 1;
  if (pg_build(in, &o1, &g1) == PG_OK) {
    enum { MAX_PARTIAL = 600 };
    int ids[MAX_PARTIAL], nids = 0;
    for (size_t e = 0; e < g1->nelements && nids < MAX_PARTIAL; e++)
      if (g1->elements[e].in_viewport || pg_state_is(&g1->elements[e].state, PG_ST_FOCUSED)) {
        cJSON *a2 = cJSON_CreateObject();
        cJSON_AddNumberToObject(a2, "backendNodeId", g1->elements[e].backend_node_id);
        cJSON_AddBoolToObject(a2, "fetchRelatives", 0);
        ids[nids++] = cdp_send(p->c, p->session, "Accessibility.getPartialAXTree", a2);
      }
    pg_graph_free(g1);
    k->partial = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(k->partial, "nodes");
    for (int j = 0; j < nids; j++) {
      cJSON *x = NULL;
      if (cdp_wait(p->c, ids[j], &x, k->to) == CDP_OK) {
        cJSON *nodesx = cJSON_DetachItemFromObjectCaseSensitive(x, "nodes");
        cJSON *nd;
        while (nodesx && (nd = cJSON_DetachItemFromArray(nodesx, 0))) cJSON_AddItemToArray(arr, nd);
        cJSON_Delete(nodesx);
      }
      cJSON_Delete(x);
    }
    k->ax[k->nax++] = k->partial;
    in->nax = k->nax;
  }
  crawl_log(CRAWL_LOG_DEBUG, "capture", "%zu nodes: accessibility data for %d elements in view, %lld ms",
            k->nodes, cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(k->partial, "nodes")), cdp_now_ms() - k->t3);
}

/* The frames (out-of-process ones first), the bridged frames' captures,
 * and the graph built from everything. */
static crawl_code capture_build(capture *k, pg_graph **out) {
  for (int i = 1; i < k->nrows && k->nframes < MAX_FRAMES; i++)
    k->frames[k->nframes++] = (pg_frame_info){.frame_id = k->rows[i].id, .parent_frame_id = k->rows[i].parent,
                                              .url = k->rows[i].url, .origin = k->rows[i].origin};
  k->nsubs = capture_bridged(k->p, k->opts, k->top_origin, k->frames, k->nframes, k->subs, k->sub_snaps, k->sub_ax);
  pg_input in = {
    .snapshot = k->snap,
    .ax = k->ax,
    .nax = k->nax,
    .frames = k->frames,
    .nframes = (size_t)k->nframes,
    .page = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(k->facts, "result"), "value"),
    .focused_backend_node_id = k->focused,
    .selection_anchor_backend_node_id = k->sel_ends[0],
    .selection_focus_backend_node_id = k->sel_ends[1],
    .top_frame_id = k->nrows ? k->rows[0].id : NULL,
    .open_hosts = k->open_hosts,
    .nopen_hosts = (size_t)k->nopen_hosts,
    .subframes = k->subs,
    .nsubframes = (size_t)k->nsubs,
    .known_sensitive_nodes = k->p->sens_nodes,
    .nknown_sensitive_nodes = k->p->nsens_nodes,
    .known_sensitive_keys = (const char *const *)k->p->sens_keys,
    .nknown_sensitive_keys = k->p->nsens_keys,
  };
  k->t3 = cdp_now_ms();
  if (!k->full_ax) capture_partial_ax(k, &in);
  pg_code pr = pg_build(&in, k->opts, out);
  crawl_log(CRAWL_LOG_DEBUG, "capture", "snapshot+facts %lld ms, ax %lld ms, frames %lld ms, build %lld ms",
            k->t1 - k->t0, k->t2 - k->t1, k->t3 - k->t2, cdp_now_ms() - k->t3);
  if (pr) {
    snprintf(k->p->err, sizeof k->p->err, "building the page graph: %s", pg_strerror(pr));
    return CRAWL_CAPTURE;
  }
  if (k->p->o.ax_record) { /* the replies are ours, freed next */
    long long ta = cdp_now_ms();
    pg_ax_retain(*out, &in);
    crawl_log(CRAWL_LOG_DEBUG, "capture", "accessibility nodes of %zu elements kept, %lld ms", (*out)->nelements,
              cdp_now_ms() - ta);
  }
  remember(k->p, *out);
  return CRAWL_OK;
}

static void capture_release(capture *k) {
  cJSON_Delete(k->partial);
  for (int i = 0; i < k->nax_ids; i++) cJSON_Delete(k->ax_owned[i]);
  free(k->open_hosts);
  for (int j = 0; j < k->nsubs; j++) {
    pg_snapshot_free(k->sub_snaps[j]);
    cJSON_Delete(k->sub_ax[j]);
  }
  cJSON_Delete(k->sel[0]);
  cJSON_Delete(k->sel[1]);
  cJSON_Delete(k->hosts);
  pg_snapshot_free(k->snap);
  cJSON_Delete(k->tree);
  cJSON_Delete(k->facts);
  cJSON_Delete(k->active);
  cJSON_Delete(k->ax_main);
}

static crawl_code capture_once(crawl_page *p, const pg_options *opts, pg_graph **out) {
  *out = NULL;
  capture k = {.p = p, .opts = opts, .to = p->o.call_timeout_ms};
  capture_send_first(&k);
  k.t0 = cdp_now_ms();
  crawl_code rc = capture_wait_first(&k);
  if (!rc) {
    capture_send_second(&k);
    capture_wait_second(&k);
    capture_open_hosts(&k);
    rc = capture_build(&k, out);
  }
  capture_release(&k);
  return rc;
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

crawl_code crawl_page_click(crawl_page *p, double x, double y) {
  static const char *const types[] = {"mouseMoved", "mousePressed", "mouseReleased"};
  if (guard_check(p)) return CRAWL_GUARD;
  ws_block_set(p, 1);
  int ids[3];
  for (int i = 0; i < 3; i++) {
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "type", types[i]);
    cJSON_AddNumberToObject(a, "x", x);
    cJSON_AddNumberToObject(a, "y", y);
    if (i) {
      cJSON_AddStringToObject(a, "button", "left");
      cJSON_AddNumberToObject(a, "clickCount", 1);
    }
    ids[i] = cdp_send(p->c, p->session, "Input.dispatchMouseEvent", a);
  }
  crawl_code rc = CRAWL_OK;
  for (int i = 0; i < 3; i++) {
    cdp_code r = cdp_wait(p->c, ids[i], NULL, p->o.call_timeout_ms);
    if (r && !rc) {
      perr(p, "Input.dispatchMouseEvent");
      rc = from_cdp(p, r);
    }
  }
  p->last_activity = cdp_now_ms();
  return rc;
}

crawl_code crawl_page_key(crawl_page *p, const char *key) {
  if (guard_check(p)) return CRAWL_GUARD;
  ws_block_set(p, 1);
  static const struct { const char *key, *code; int vk; } keys[] = {
    {"Escape", "Escape", 27}, {"Enter", "Enter", 13}, {"Tab", "Tab", 9},
    {"ArrowDown", "ArrowDown", 40}, {"ArrowUp", "ArrowUp", 38},
  };
  int k = -1;
  for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
    if (!strcmp(keys[i].key, key)) k = (int)i;
  if (k < 0) return CRAWL_ARG;
  static const char *const types[] = {"rawKeyDown", "keyUp"};
  int ids[2];
  for (int i = 0; i < 2; i++) {
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "type", types[i]);
    cJSON_AddStringToObject(a, "key", keys[k].key);
    cJSON_AddStringToObject(a, "code", keys[k].code);
    cJSON_AddNumberToObject(a, "windowsVirtualKeyCode", keys[k].vk);
    ids[i] = cdp_send(p->c, p->session, "Input.dispatchKeyEvent", a);
  }
  crawl_code rc = CRAWL_OK;
  for (int i = 0; i < 2; i++) {
    cdp_code r = cdp_wait(p->c, ids[i], NULL, p->o.call_timeout_ms);
    if (r && !rc) {
      perr(p, "Input.dispatchKeyEvent");
      rc = from_cdp(p, r);
    }
  }
  p->last_activity = cdp_now_ms();
  return rc;
}

crawl_code crawl_page_insert_text(crawl_page *p, const char *text) {
  if (guard_check(p)) return CRAWL_GUARD;
  ws_block_set(p, 1);
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "text", text);
  crawl_code rc = call(p, "Input.insertText", a, NULL);
  p->last_activity = cdp_now_ms();
  return rc;
}

static int b64val(int ch) {
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
  if (ch >= '0' && ch <= '9') return ch - '0' + 52;
  if (ch == '+') return 62;
  if (ch == '/') return 63;
  return -1;
}

/* The viewport as Chromium paints it: PNG bytes (caller frees), unmasked. */
static crawl_code screenshot_raw(crawl_page *p, unsigned char **png, size_t *len) {
  *png = NULL;
  *len = 0;
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddStringToObject(a, "format", "png");
  crawl_code rc = call(p, "Page.captureScreenshot", a, &res);
  if (rc) return rc;
  const char *d = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "data"));
  if (d) {
    size_t n = strlen(d);
    unsigned char *out = crawl__xrealloc(NULL, n / 4 * 3 + 3);
    size_t o = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
      int v = b64val((unsigned char)d[i]);
      if (v < 0) continue;
      acc = acc << 6 | (unsigned)v;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out[o++] = (unsigned char)(acc >> bits);
      }
    }
    *png = out;
    *len = o;
  }
  cJSON_Delete(res);
  if (!*png || !*len) {
    free(*png);
    *png = NULL;
    snprintf(p->err, sizeof p->err, "Page.captureScreenshot returned no image");
    return CRAWL_CAPTURE;
  }
  return CRAWL_OK;
}

/* A guarded page leaves its document while the guard still listens: what
 * it sends on pagehide, unload or visibilitychange (beacons, keepalive
 * fetches) pauses and fails here, not after the session is gone. Bounded by
 * 2 s; a page that is dead or failed closed is just closed. */
#define LEAVE_QUIET_MS 200
static void leave_guarded(crawl_page *p) {
  if (!p->o.block_writes || p->crashed || !p->session || !cdp_client_alive(p->c)) return;
  int navs0 = p->navs;
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "url", "about:blank");
  int id = cdp_send(p->c, p->session, "Page.navigate", a);
  if (id <= 0) return;
  cdp_code rc = cdp_wait(p->c, id, NULL, 2000);
  long long deadline = cdp_now_ms() + 2000;
  while (rc == CDP_OK && p->navs == navs0 && cdp_now_ms() < deadline) rc = pump(p, 50);
  /* what the old document sent as it went (a keepalive beacon outlives it)
   * reaches us after the navigation, later on a loaded machine, and one
   * still unseen when the session goes may be let through (once seen in
   * e2e safety/observe_writes_nothing under load). So: pump until
   * LEAVE_QUIET_MS without one (within the same 2 s). */
  long long left = cdp_now_ms();
  while (rc == CDP_OK && cdp_now_ms() < deadline &&
         cdp_now_ms() - (p->last_paused > left ? p->last_paused : left) < LEAVE_QUIET_MS)
    rc = pump(p, 50);
}

/* The masks of a capture taken before the screenshot and of one taken right
 * after it: what moved in between is covered where it was and where it is.
 * Any step that fails leaves no PNG (fail closed), p->err says why. */
crawl_code crawl_page_screenshot(crawl_page *p, const pg_graph *g, const pg_options *o, unsigned char **png,
                                 size_t *len) {
  *png = NULL;
  *len = 0;
  pg_graph *before = NULL, *after = NULL;
  unsigned char *raw = NULL;
  size_t rawlen = 0;
  crawl_code rc = g ? CRAWL_OK : crawl_page_capture(p, o, &before);
  if (!g) g = before;
  if (!rc) rc = screenshot_raw(p, &raw, &rawlen);
  if (!rc) rc = crawl_page_capture(p, o, &after);
  if (rc) {
    char why[sizeof p->err];
    snprintf(why, sizeof why, "%s", p->err);
    snprintf(p->err, sizeof p->err, "no mask for the screenshot: %.400s", why);
  } else if (g->mask_overflow || after->mask_overflow) {
    snprintf(p->err, sizeof p->err, "more than %d boxes to mask in the screenshot", PG_MASKS_MAX);
    rc = CRAWL_CAPTURE;
  } else {
    size_t n = g->nmasks + after->nmasks;
    pg_rect *rects = crawl__xmalloc((n ? n : 1) * sizeof *rects);
    if (g->nmasks) memcpy(rects, g->masks, g->nmasks * sizeof *rects);
    if (after->nmasks) memcpy(rects + g->nmasks, after->masks, after->nmasks * sizeof *rects);
    char why[300];
    if (crawl__png_mask(raw, rawlen, rects, n, after->vp_width, after->vp_height, png, len, why, sizeof why)) {
      snprintf(p->err, sizeof p->err, "masking the screenshot: %s", why);
      rc = CRAWL_CAPTURE;
    }
    free(rects);
  }
  free(raw);
  pg_graph_free(before);
  pg_graph_free(after);
  return rc;
}

void crawl_page_close(crawl_page *p) {
  if (!p) return;
  leave_guarded(p);
  for (int i = 0; i < p->nsubs; i++) cdp_off(p->c, p->subs[i]);
  if (p->target_id && cdp_client_alive(p->c)) {
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "targetId", p->target_id);
    cdp_call(p->c, NULL, "Target.closeTarget", a, NULL, 2000);
  }
  /* Workers outlive their page (a service worker goes on installing), and
   * turning auto-attach off below detaches their sessions, which lets the
   * requests our guard holds go on: CI once saw a service worker's install
   * POST get out after a snapshot on a loaded machine. They are stopped
   * first. */
  for (int i = 0; i < p->nkids && cdp_client_alive(p->c); i++) {
    if (!is_worker(p->kids[i].type)) continue;
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "targetId", p->kids[i].target_id);
    cdp_call(p->c, NULL, "Target.closeTarget", a, NULL, 2000);
  }
  if (p->browser_guard && cdp_client_alive(p->c)) {
    /* the browser-wide auto-attach is this page's: a tab opened next would
     * attach paused to nobody (it sets its own) */
    cJSON *a = cJSON_CreateObject();
    cJSON_AddBoolToObject(a, "autoAttach", 0);
    cJSON_AddBoolToObject(a, "waitForDebuggerOnStart", 0);
    cJSON_AddBoolToObject(a, "flatten", 1);
    cdp_call(p->c, NULL, "Target.setAutoAttach", a, NULL, 2000);
  }
  clear_inflight(p);
  for (int i = 0; i < p->noopifs; i++) {
    free(p->oopifs[i].target_id);
    free(p->oopifs[i].session);
    free(p->oopifs[i].url);
  }
  free(p->session);
  free(p->target_id);
  free(p->binding);
  crawl__secrets_free(p->own_secrets);
  free(p->main_frame);
  free(p->last_blocked);
  free(p->url);
  free(p->write_once);
  free(p->goto_url);
  free(p->last_ws);
  for (int i = 0; i < p->nkids; i++) {
    free(p->kids[i].session);
    free(p->kids[i].target_id);
    free(p->kids[i].type);
  }
  for (int i = 0; i < p->nallowed; i++) free(p->allowed[i]);
  memory_release(p);
  free(p);
}

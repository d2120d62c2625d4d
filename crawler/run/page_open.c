/* page_open.c -- a tab's life: open one (crawl_page_open: viewport, focus
 * emulation, downloads denied, User-Agent and locale, the guard, a signed-in session's
 * cookies and localStorage), attach to a page already open
 * (crawl_page_attach, crawl_page_detach: nothing of ours stays in the
 * owner's page), and close (crawl_page_close). The set-up both share is
 * pipelined: one round trip.
 *
 * Not here: the event callbacks it subscribes (page.c, page_guard.c),
 * navigating and settling (page_settle.c).
 */
#include "page_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- open ------------------------------------------------------------------ */
/* At document start: a MutationObserver that reports through the binding,
 * and alert/confirm/prompt answered in the page as dismissing them would
 * (undefined, false, null), counted and reported as "dialogs:N": a script
 * that loops over dialogs stays an ordinary script (which unstick() can
 * stop) instead of a round trip per dialog. Dialogs these miss (beforeunload,
 * cross-origin frames) are dismissed over CDP (crawl__page_on_dialog). The script is
 * js/change_observer.js. */

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
  p->net = crawl__netlog_new();
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
  if (crawl__patch_on(p)) { /* the patched capture's witness, before the page's scripts (page_patch.c) */
    a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "source", CRAWL__JS(capture_patch));
    int id = cdp_send(p->c, p->session, "Page.addScriptToEvaluateOnNewDocument", a);
    if (id > 0) cdp_abandon(p->c, id);
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
  ids[n++] = cdp_send(p->c, p->session, "Target.setAutoAttach", crawl__page_auto_attach_params(p->o.block_writes));
  return n;
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
      crawl__page_perr(p, "set up the tab");
      result = crawl__page_from_cdp(p, r);
    }
    if (i == keep && !r) *kept = res;
    else cJSON_Delete(res);
  }
  return result;
}

int crawl_user_agent_ok(const char *s) {
  if (!s || !*s) return 0;
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f) return 0;
  return 1;
}

/* The User-Agent the tab presents into ua: o.user_agent, or the browser's
 * own with "HeadlessChrome" as "Chrome" (what `login`'s headed browser of
 * the same binary says: a session bound to it keeps working). */
static crawl_code agent_string(crawl_page *p, char *ua, size_t len, int *changed) {
  *changed = 1;
  if (p->o.user_agent) {
    snprintf(ua, len, "%s", p->o.user_agent);
    return CRAWL_OK;
  }
  cJSON *res = NULL;
  crawl_code rc = crawl__page_call(p, "Browser.getVersion", NULL, &res);
  const char *own = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "userAgent"));
  const char *h = own ? strstr(own, "HeadlessChrome") : NULL;
  if (!rc && own && h) snprintf(ua, len, "%.*s%s", (int)(h - own), own, h + strlen("Headless"));
  else snprintf(ua, len, "%s", own ? own : "");
  *changed = h != NULL;
  cJSON_Delete(res);
  return rc;
}

/* User-Agent client hints (navigator.userAgentData, Sec-CH-UA-*) for ua:
 * an override without them leaves the brands empty, which no browser
 * shows. A Chrome-like ua ("... Chrome/156.0.1.2 ...") gets the brands this
 * Chromium reports itself (Chromium and its GREASE brand, never
 * "HeadlessChrome") and the platform its text names; any other ua none
 * (NULL: as that browser would). */
static cJSON *agent_metadata(const char *ua) {
  static const struct { const char *needle, *platform; int mobile; } platforms[] = {
    {"Android", "Android", 1}, {"Windows", "Windows", 0}, {"Macintosh", "macOS", 0},
    {"CrOS", "Chrome OS", 0}, {"Linux", "Linux", 0},
  };
  const char *v = strstr(ua, "Chrome/");
  if (!v) return NULL;
  v += 7;
  size_t full = strspn(v, "0123456789."), major = strspn(v, "0123456789");
  if (!major || full > 40) return NULL;
  char fv[48], mv[48];
  snprintf(fv, sizeof fv, "%.*s", (int)full, v);
  snprintf(mv, sizeof mv, "%.*s", (int)major, v);
  const char *platform = "Linux";
  int mobile = 0;
  for (size_t i = 0; i < sizeof platforms / sizeof *platforms; i++)
    if (strstr(ua, platforms[i].needle)) {
      platform = platforms[i].platform, mobile = platforms[i].mobile;
      break;
    }
  cJSON *m = cJSON_CreateObject(), *brands = cJSON_AddArrayToObject(m, "brands"),
        *list = cJSON_AddArrayToObject(m, "fullVersionList");
  const char *names[] = {"Not:A-Brand", "Chromium"}, *grease[] = {"8", "8.0.0.0"};
  for (int i = 0; i < 2; i++) {
    cJSON *b = cJSON_CreateObject(), *f = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "brand", names[i]);
    cJSON_AddStringToObject(b, "version", i ? mv : grease[0]);
    cJSON_AddStringToObject(f, "brand", names[i]);
    cJSON_AddStringToObject(f, "version", i ? fv : grease[1]);
    cJSON_AddItemToArray(brands, b);
    cJSON_AddItemToArray(list, f);
  }
  cJSON_AddStringToObject(m, "fullVersion", fv);
  cJSON_AddStringToObject(m, "platform", platform);
  cJSON_AddStringToObject(m, "platformVersion", "");
  cJSON_AddStringToObject(m, "architecture", mobile ? "" : "x86");
  cJSON_AddStringToObject(m, "model", "");
  cJSON_AddBoolToObject(m, "mobile", mobile);
  cJSON_AddStringToObject(m, "bitness", mobile ? "" : "64");
  return m;
}

/* The User-Agent (agent_string) and o.locale: Intl's locale, and
 * navigator.language with the Accept-Language header, in one override.
 * Headless Chromium ignores --lang for both. Nothing to override (a headed
 * browser, no locale): no call. */
static crawl_code set_agent_locale(crawl_page *p) {
  char ua[2048];
  int changed;
  crawl_code rc = agent_string(p, ua, sizeof ua, &changed);
  if (!rc && *ua && (changed || p->o.locale)) {
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "userAgent", ua);
    cJSON *meta = agent_metadata(ua);
    if (meta) cJSON_AddItemToObject(a, "userAgentMetadata", meta);
    if (p->o.locale) cJSON_AddStringToObject(a, "acceptLanguage", p->o.locale);
    rc = crawl__page_call(p, "Emulation.setUserAgentOverride", a, NULL);
  }
  if (!rc && p->o.locale) {
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "locale", p->o.locale);
    rc = crawl__page_call(p, "Emulation.setLocaleOverride", a, NULL);
  }
  return rc;
}

/* ---- a signed-in session (crawl_page_opts.session; docs/sessions.md) ---------- */

/* Load url in the tab with priming on (prime_reply answers it) and wait. */
static crawl_code prime_load(crawl_page *p, const char *url) {
  int same = 0;
  p->loaded = p->dcl = 0;
  crawl_code rc = crawl__page_navigate(p, url, &same);
  if (!rc && !same) rc = crawl__page_wait_load(p, url, cdp_now_ms() + p->o.nav_timeout_ms, p->navs);
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
    rc = crawl__page_call(p, "Runtime.evaluate", a, &res);
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
  crawl_code rc = a ? crawl__page_call(p, "Network.setCookies", a, NULL) : CRAWL_OK;
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
    crawl__page_perr(p, "open a tab");
    crawl_code r = crawl__page_from_cdp(p, rc);
    *out = p;
    return r;
  }
  static const page_sub subs[] = {
    {"Network.requestWillBeSent", crawl__page_on_request}, {"Network.loadingFinished", crawl__page_on_request},
    {"Network.loadingFailed", crawl__page_on_request},     {"Runtime.bindingCalled", crawl__page_on_binding},
    {"Page.loadEventFired", crawl__page_on_load},          {"Page.javascriptDialogOpening", crawl__page_on_dialog},
    {"Inspector.targetCrashed", crawl__page_on_crash},     {"Target.attachedToTarget", crawl__page_on_attached},
    {"Target.detachedFromTarget", crawl__page_on_detached}, {"Target.targetCreated", crawl__page_on_target_created},
    {"Page.frameNavigated", crawl__page_on_frame_nav},     {"Page.navigatedWithinDocument", crawl__page_on_frame_nav},
    {"Fetch.requestPaused", crawl__page_on_paused},        {"Page.domContentEventFired", crawl__page_on_load},
    {"Network.webSocketCreated", crawl__page_on_websocket}, {"Network.webSocketFrameSent", crawl__page_on_websocket},
    {"Network.responseReceived", crawl__page_on_response},
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
  if (result == CRAWL_OK) result = set_agent_locale(p);
  if (result == CRAWL_OK) result = crawl__page_send_guard(p, 1);
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
  if (type && !strcmp(type, "iframe")) crawl__page_on_attached(ud, session, method, params);
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
  crawl_code rc = crawl__page_call(p, "Target.getTargets", NULL, &res);
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
    crawl__page_set_url(p, full);
    free(full);
  }
}

crawl_code crawl_page_attach(cdp_client *c, const crawl_page_opts *o, const crawl_attach_opts *sel,
                             crawl_page **out) {
  *out = NULL;
  crawl_page *p = page_new(c, o);
  *out = p;
  p->owners_page = 1; /* no patched captures: their witness would stay in the page */
  /* the target: never p->target_id, so that crawl_page_close cannot close it */
  char *tid = NULL, *turl = NULL;
  crawl_code rc = attach_pick(p, sel, &tid, &turl);
  if (rc) return rc;
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddStringToObject(a, "targetId", tid);
  cJSON_AddBoolToObject(a, "flatten", 1);
  rc = crawl__page_call(p, "Target.attachToTarget", a, &res);
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
  crawl__page_set_url(p, turl);
  free(turl);

  static const page_sub subs[] = {
    {"Network.requestWillBeSent", crawl__page_on_request},  {"Network.loadingFinished", crawl__page_on_request},
    {"Network.loadingFailed", crawl__page_on_request},      {"Runtime.bindingCalled", crawl__page_on_binding},
    {"Page.loadEventFired", crawl__page_on_load},           {"Page.domContentEventFired", crawl__page_on_load},
    {"Inspector.targetCrashed", crawl__page_on_crash},      {"Target.attachedToTarget", on_attached_frame},
    {"Target.detachedFromTarget", crawl__page_on_detached}, {"Page.frameNavigated", crawl__page_on_frame_nav},
    {"Page.navigatedWithinDocument", crawl__page_on_frame_nav}, {"Fetch.requestPaused", crawl__page_on_paused},
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
    crawl__page_url_origin(p->url, origin, sizeof origin);
    if (origin[0]) p->allowed[p->nallowed++] = crawl__xstrdup(origin);
  }
  int tree = n;
  ids[n++] = cdp_send(c, p->session, "Page.getFrameTree", NULL);
  crawl_code result = wait_setup(p, ids, n, tree, &res);
  if (result == CRAWL_OK) result = crawl__page_send_guard(p, 0);
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

void crawl_page_close(crawl_page *p) {
  if (!p) return;
  crawl__page_leave_guarded(p);
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
    if (!crawl__page_is_worker(p->kids[i].type)) continue;
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
  crawl__page_clear_inflight(p);
  for (int i = 0; i < p->noopifs; i++) {
    free(p->oopifs[i].target_id);
    free(p->oopifs[i].session);
    free(p->oopifs[i].url);
  }
  free(p->session);
  free(p->target_id);
  free(p->binding);
  crawl__secrets_free(p->own_secrets);
  crawl__netlog_free(p->net);
  free(p->main_frame);
  free(p->last_blocked);
  free(p->last_load_blocked);
  free(p->load_hint);
  free(p->last_read);
  free(p->url);
  free(p->write_once);
  free(p->goto_url);
  free(p->last_ws);
  free(p->last_seal);
  free(p->seal_doc);
  for (int i = 0; i < p->nkids; i++) {
    free(p->kids[i].session);
    free(p->kids[i].target_id);
    free(p->kids[i].type);
  }
  for (int i = 0; i < p->nallowed; i++) free(p->allowed[i]);
  crawl__page_memory_release(p);
  free(p);
}

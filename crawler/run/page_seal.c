/* page_seal.c -- the seal a probe runs under, on the page's side: sends the
 * network guard cannot see (WebSocket and RTCDataChannel sends, WebTransport,
 * messages to service and shared workers, BroadcastChannel) refused in every
 * document while sealed (js/page_seal.js, installed on the first seal and
 * kept dormant afterwards), and the client storage -- localStorage,
 * sessionStorage, IndexedDB, Cache Storage of the page's origin
 * (js/storage_snapshot.js) and its cookies (Network.getCookies) --
 * snapshotted and put back (js/storage_restore.js, Network.setCookie and
 * deleteCookies). Snapshots hold values in memory only; nothing here logs one.
 *
 * Not here: deciding what a probe found (explore_probe.c, seal_diff.c), the
 * network guard (page_guard.c). docs/safety.md "Sealed probes". */
#include "page_int.h"
#include "seal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void send_forget(crawl_page *p, const char *session, const char *method, cJSON *params) {
  int id = cdp_send(p->c, session, method, params);
  if (id > 0) cdp_abandon(p->c, id);
}

/* An expression in the top document's main world, awaited when it is a
 * promise; its string result into *out (caller frees). */
static crawl_code eval_string(crawl_page *p, const char *expr, int timeout_ms, char **out) {
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddStringToObject(a, "expression", expr);
  cJSON_AddBoolToObject(a, "awaitPromise", 1);
  cJSON_AddBoolToObject(a, "returnByValue", 1);
  cJSON_AddBoolToObject(a, "silent", 1);
  cdp_code rc = cdp_call(p->c, p->session, "Runtime.evaluate", a, &res, timeout_ms);
  if (rc == CDP_CANCELLED) return CRAWL_CANCELLED;
  const char *v = cJSON_GetStringValue(
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "result"), "value"));
  int ok = rc == CDP_OK && v && !cJSON_GetObjectItemCaseSensitive(res, "exceptionDetails");
  if (out) *out = ok ? crawl__xstrdup(v) : NULL;
  cJSON_Delete(res);
  return ok ? CRAWL_OK : rc == CDP_OK ? CRAWL_ARG : CRAWL_BROWSER;
}

/* The seal's script in the page session and in each frame of another
 * process: for every new document, and now in the current ones. */
static void install(crawl_page *p) {
  unsigned long long r = (unsigned long long)cdp_now_ms() ^ ((unsigned long long)(uintptr_t)p << 4);
  snprintf(p->seal_name, sizeof p->seal_name, "__uiap_seal_%08llx", r & 0xffffffffULL);
  char *js = crawl__xprintf(CRAWL__JS(page_seal), p->binding, p->seal_name);
  const char *sessions[1 + MAX_FRAMES];
  int n = 0;
  sessions[n++] = p->session;
  for (int i = 0; i < p->noopifs && n < 1 + MAX_FRAMES; i++) sessions[n++] = p->oopifs[i].session;
  for (int i = 0; i < n; i++) {
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "source", js);
    send_forget(p, sessions[i], "Page.addScriptToEvaluateOnNewDocument", a);
    a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "expression", js);
    cJSON_AddBoolToObject(a, "silent", 1);
    send_forget(p, sessions[i], "Runtime.evaluate", a);
  }
  free(js);
}

/* The switch in the current documents (the top one passes it to its
 * same-origin frames; frames of another process in their session). */
static crawl_code flip(crawl_page *p, int on) {
  char *js = crawl__xprintf(CRAWL__JS(page_seal_on), p->seal_name, on);
  for (int i = 0; i < p->noopifs; i++) {
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "expression", js);
    cJSON_AddBoolToObject(a, "silent", 1);
    send_forget(p, p->oopifs[i].session, "Runtime.evaluate", a);
  }
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "expression", js);
  cJSON_AddBoolToObject(a, "silent", 1);
  cdp_code rc = cdp_call(p->c, p->session, "Runtime.evaluate", a, NULL, p->o.call_timeout_ms);
  free(js);
  return rc == CDP_OK ? CRAWL_OK : rc == CDP_CANCELLED ? CRAWL_CANCELLED : CRAWL_BROWSER;
}

/* While sealed, every new document starts sealed (after the seal's own
 * script, registered first). */
static void seal_new_documents(crawl_page *p, int on) {
  if (on && !p->seal_doc) {
    char *js = crawl__xprintf(CRAWL__JS(page_seal_on), p->seal_name, 1);
    cJSON *a = cJSON_CreateObject(), *res = NULL;
    cJSON_AddStringToObject(a, "source", js);
    free(js);
    if (cdp_call(p->c, p->session, "Page.addScriptToEvaluateOnNewDocument", a, &res, p->o.call_timeout_ms) == CDP_OK) {
      const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "identifier"));
      if (id) p->seal_doc = crawl__xstrdup(id);
    }
    cJSON_Delete(res);
  } else if (!on && p->seal_doc) {
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "identifier", p->seal_doc);
    send_forget(p, p->session, "Page.removeScriptToEvaluateOnNewDocument", a);
    free(p->seal_doc);
    p->seal_doc = NULL;
  }
}

crawl_code crawl__page_seal(crawl_page *p, int on) {
  if (!p || !p->session) return CRAWL_ARG;
  if (on && !p->o.block_writes) {
    snprintf(p->err, sizeof p->err, "a probe needs the write guard, and this tab has none");
    return CRAWL_ARG;
  }
  if (on && !p->seal_name[0]) install(p);
  if (!p->seal_name[0]) return CRAWL_OK;
  seal_new_documents(p, on);
  p->sealed = on;
  crawl_code rc = flip(p, on);
  if (on && !p->seal_doc && rc == CRAWL_OK) {
    snprintf(p->err, sizeof p->err, "the seal for new documents could not be installed");
    rc = CRAWL_ARG;
  }
  return rc;
}

int crawl__page_sealed(const crawl_page *p) { return p && p->sealed; }

int crawl__page_seal_refused(const crawl_page *p, const char **last) {
  if (last) *last = p->last_seal;
  return p->seal_refused;
}

void crawl__page_seal_report(crawl_page *p, const char *payload) {
  p->seal_refused++;
  free(p->last_seal);
  p->last_seal = crawl__xprintf("%.400s", payload);
  crawl_log(CRAWL_LOG_INFO, "guard", "the seal refused a send: %s", p->last_seal);
}

/* ---- the client storage ---------------------------------------------------------- */
/* The page's cookies (Network.getCookies: the top document's URL and its
 * frames'), by "name; domain; path", into snap; their records for the restore. */
static crawl_code snapshot_cookies(crawl_page *p, cJSON *snap) {
  cJSON *res = NULL;
  cdp_code rc = cdp_call(p->c, p->session, "Network.getCookies", cJSON_CreateObject(), &res, p->o.call_timeout_ms);
  if (rc != CDP_OK) {
    cJSON_Delete(res);
    return rc == CDP_CANCELLED ? CRAWL_CANCELLED : CRAWL_BROWSER;
  }
  cJSON *by = cJSON_AddObjectToObject(snap, "cookies");
  cJSON *recs = cJSON_DetachItemFromObjectCaseSensitive(res, "cookies");
  const cJSON *c;
  cJSON_ArrayForEach(c, recs) {
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "name"));
    const char *dom = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "domain"));
    const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "path"));
    const char *val = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "value"));
    if (!name || !dom || !path) continue;
    char *key = crawl__xprintf("%s; %s; %s", name, dom, path);
    cJSON_AddStringToObject(by, key, val ? val : "");
    free(key);
  }
  cJSON_AddItemToObject(snap, "cookieRecords", recs ? recs : cJSON_CreateArray());
  cJSON_Delete(res);
  return CRAWL_OK;
}

crawl_code crawl__page_storage_snapshot(crawl_page *p, cJSON **out, char *why, size_t whylen) {
  *out = NULL;
  char *text = NULL;
  crawl_code rc = eval_string(p, CRAWL__JS(storage_snapshot), 15000, &text);
  if (rc) {
    snprintf(why, whylen, "the page's storage could not be read");
    return rc;
  }
  cJSON *snap = cJSON_Parse(text);
  free(text);
  if (!cJSON_IsObject(snap) || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(snap, "tooLarge")) ||
      cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(snap, "unreadable")) > 0) {
    snprintf(why, whylen, "the page's storage is %s",
             cJSON_IsObject(snap) && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(snap, "tooLarge"))
                 ? "too large to snapshot (over 4 MB)" : "not readable whole");
    cJSON_Delete(snap);
    return CRAWL_ARG;
  }
  if ((rc = snapshot_cookies(p, snap)) != CRAWL_OK) {
    snprintf(why, whylen, "the page's cookies could not be read");
    cJSON_Delete(snap);
    return rc;
  }
  *out = snap;
  return CRAWL_OK;
}

/* 1 when cookie record c is in recs by name, domain and path (and, with
 * value, has the same value). */
static int cookie_in(const cJSON *c, const cJSON *recs, int value) {
  static const char *const keys[] = {"name", "domain", "path", "value"};
  const cJSON *o;
  cJSON_ArrayForEach(o, recs) {
    int same = 1;
    for (int k = 0; k < 3 + value && same; k++) {
      const char *x = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, keys[k]));
      const char *y = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, keys[k]));
      same = x && y && !strcmp(x, y);
    }
    if (same) return 1;
  }
  return 0;
}

/* The cookie record c set again (Network.setCookie: a host-only cookie by
 * its URL, a domain cookie by its domain). */
static void cookie_set(crawl_page *p, const cJSON *c) {
  cJSON *a = cJSON_CreateObject();
  static const char *const copy[] = {"name", "value", "path", "secure", "httpOnly", "sameSite", "expires", "priority"};
  for (size_t k = 0; k < sizeof copy / sizeof *copy; k++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, copy[k]);
    if (v && !(!strcmp(copy[k], "expires") && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "session"))))
      cJSON_AddItemToObject(a, copy[k], cJSON_Duplicate(v, 1));
  }
  const char *dom = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "domain"));
  const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "path"));
  int secure = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "secure"));
  if (dom && dom[0] == '.') cJSON_AddStringToObject(a, "domain", dom);
  else if (dom) {
    char *url = crawl__xprintf("%s://%s%s", secure ? "https" : "http", dom, path ? path : "/");
    cJSON_AddStringToObject(a, "url", url);
    free(url);
  }
  cdp_call(p->c, p->session, "Network.setCookie", a, NULL, p->o.call_timeout_ms);
}

static void restore_cookies(crawl_page *p, const cJSON *before) {
  cJSON *res = NULL;
  if (cdp_call(p->c, p->session, "Network.getCookies", cJSON_CreateObject(), &res, p->o.call_timeout_ms) != CDP_OK) {
    cJSON_Delete(res);
    return;
  }
  const cJSON *now = cJSON_GetObjectItemCaseSensitive(res, "cookies"), *c;
  cJSON_ArrayForEach(c, now) {
    if (cookie_in(c, before, 0)) continue; /* added by the probe: deleted */
    cJSON *a = cJSON_CreateObject();
    static const char *const keys[] = {"name", "domain", "path"};
    for (int k = 0; k < 3; k++)
      cJSON_AddItemToObject(a, keys[k], cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(c, keys[k]), 1));
    cdp_call(p->c, p->session, "Network.deleteCookies", a, NULL, p->o.call_timeout_ms);
  }
  cJSON_ArrayForEach(c, before) if (!cookie_in(c, now, 1)) cookie_set(p, c);
  cJSON_Delete(res);
}

crawl_code crawl__page_storage_restore(crawl_page *p, const cJSON *snap, char **lost) {
  *lost = NULL;
  if (!snap) return CRAWL_OK;
  cJSON *page = cJSON_Duplicate(snap, 1); /* what the page script gets: no cookies */
  cJSON_DeleteItemFromObjectCaseSensitive(page, "cookies");
  cJSON_DeleteItemFromObjectCaseSensitive(page, "cookieRecords");
  char *arg = cJSON_PrintUnformatted(page);
  cJSON_Delete(page);
  char *expr = crawl__xprintf(CRAWL__JS(storage_restore), arg ? arg : "{}");
  free(arg);
  char *text = NULL;
  crawl_code rc = eval_string(p, expr, 15000, &text);
  free(expr);
  restore_cookies(p, cJSON_GetObjectItemCaseSensitive(snap, "cookieRecords"));
  if (rc) {
    *lost = crawl__xstrdup("the page's storage (the restore did not run)");
    return rc;
  }
  cJSON *r = cJSON_Parse(text);
  free(text);
  const cJSON *l = cJSON_GetObjectItemCaseSensitive(r, "lost"), *it;
  crawl__buf b = {0};
  cJSON_ArrayForEach(it, l) {
    if (!cJSON_IsString(it)) continue;
    crawl__buf_printf(&b, "%s%.200s", b.n ? ", " : "", it->valuestring);
  }
  cJSON_Delete(r);
  if (b.n) *lost = crawl__xstrdup(b.p);
  crawl__buf_free(&b);
  return CRAWL_OK;
}

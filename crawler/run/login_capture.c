/* login_capture.c -- a person's sign-in, watched and kept (`uiap-crawl
 * login`; docs/sessions.md): every 500 ms one look at the visible tab (its
 * URL, the localStorage items of its origin, the browser's cookies) until
 * the window closes, the URL reaches a prefix, the time is up or the caller
 * cancels; the last look as a Playwright storageState (session_save.c) and
 * written to a file (mode 0600). Owns the CDP calls of that watch; not the
 * browser's launch, the options or the messages (crawler/cli/cmd_login.c).
 * The browser is not guarded: the person's clicks are theirs. */
#include "crawl.h"
#include "crawl_util.h"

#include <stdlib.h>
#include <string.h>

typedef struct login_look {
  cJSON *cookies, *storage;  /* the last look: Storage.getCookies, {origin: items} */
  int looked;                /* a look succeeded at least once */
} login_look;

/* What the page shows now: its URL, origin and localStorage items. */
static const char PAGE_LOOK[] =
  "(()=>{let items=[];try{for(let i=0;i<localStorage.length;i++){const k=localStorage.key(i);"
  "items.push([k,localStorage.getItem(k)])}}catch(e){}"
  "return JSON.stringify({url:location.href,origin:location.origin,items})})()";

/* One look at the browser: the cookies, the page's storage (kept per origin)
 * and URL into url. -1: the page or the browser is gone. */
static int look(cdp_client *c, const char *session, login_look *x, char *url, size_t urllen) {
  cJSON *res = NULL, *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "expression", PAGE_LOOK);
  cJSON_AddBoolToObject(a, "returnByValue", 1);
  if (cdp_call(c, session, "Runtime.evaluate", a, &res, 5000) != CDP_OK) return -1;
  const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
    cJSON_GetObjectItemCaseSensitive(res, "result"), "value"));
  cJSON *page = v ? cJSON_Parse(v) : NULL;
  cJSON_Delete(res);
  const char *origin = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(page, "origin"));
  const char *at = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(page, "url"));
  snprintf(url, urllen, "%s", at ? at : "");
  if (origin && strcmp(origin, "null")) {
    cJSON_DeleteItemFromObjectCaseSensitive(x->storage, origin);
    cJSON_AddItemToObject(x->storage, origin, cJSON_DetachItemFromObjectCaseSensitive(page, "items"));
  }
  cJSON_Delete(page);
  if (cdp_call(c, NULL, "Storage.getCookies", NULL, &res, 5000) != CDP_OK) return -1;
  cJSON_Delete(x->cookies);
  x->cookies = cJSON_DetachItemFromObjectCaseSensitive(res, "cookies");
  cJSON_Delete(res);
  x->looked = 1;
  return 0;
}

/* The last look as out's storageState and cookie count. */
static crawl_login_end keep(const login_look *x, crawl_login_capture_out *out) {
  out->state = crawl_session_state_from_cdp(x->cookies, x->storage);
  out->ncookies = cJSON_GetArraySize(x->cookies);
  return CRAWL_LOGIN_DONE;
}

/* Look every 500 ms until the window closes, the URL is reached, a signal
 * or the timeout. */
static crawl_login_end watch(cdp_client *c, const char *session, const crawl_login_capture_opts *o,
                             login_look *x, crawl_login_capture_out *out) {
  long long end = cdp_now_ms() + o->timeout_ms;
  char url[8192];
  while (!(o->cancel && *o->cancel)) {
    if (look(c, session, x, url, sizeof url) < 0) /* the person closed it */
      return x->looked ? keep(x, out) : CRAWL_LOGIN_GONE;
    if (o->until && !strncmp(url, o->until, strlen(o->until))) return keep(x, out);
    if (cdp_now_ms() >= end) return CRAWL_LOGIN_TIMEOUT;
    cdp_pump(c, 500);
  }
  return CRAWL_LOGIN_CANCELLED;
}

crawl_login_end crawl_login_capture(cdp_client *c, const char *session, const crawl_login_capture_opts *o,
                                    crawl_login_capture_out *out) {
  login_look x = {.storage = cJSON_CreateObject()};
  out->state = NULL;
  out->ncookies = 0;
  crawl_login_end end = watch(c, session, o, &x, out);
  cJSON_Delete(x.cookies);
  cJSON_Delete(x.storage);
  return end;
}

int crawl_session_state_write(const cJSON *state, const char *path) {
  char *text = cJSON_Print(state);
  int e = crawl__file_write_mode(path, text, strlen(text), 0600);
  free(text);
  return e;
}

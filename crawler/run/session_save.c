/* session_save.c -- what a sign-in left in the browser, as a Playwright
 * storageState document (`uiap-crawl login --save-state`; docs/sessions.md):
 * the cookies Storage.getCookies reports and the localStorage items seen
 * per origin. Pure: no browser. */
#include "crawl.h"

#include <string.h>

static const char *same_site(const char *cdp) {
  static const char *const known[] = {"Strict", "Lax", "None"};
  for (size_t i = 0; cdp && i < sizeof known / sizeof *known; i++)
    if (!strcmp(cdp, known[i])) return known[i];
  return "Lax"; /* unspecified: what Chromium applies */
}

/* One CDP Network.Cookie as a Playwright cookie; NULL when it lacks a name,
 * value or domain. */
static cJSON *state_cookie(const cJSON *c) {
  const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "name"));
  const char *value = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "value"));
  const char *domain = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "domain"));
  const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "path"));
  const cJSON *exp = cJSON_GetObjectItemCaseSensitive(c, "expires");
  if (!name || !value || !domain || !*domain) return NULL;
  int session = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "session")) || !cJSON_IsNumber(exp) ||
                exp->valuedouble <= 0;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "name", name);
  cJSON_AddStringToObject(o, "value", value);
  cJSON_AddStringToObject(o, "domain", domain);
  cJSON_AddStringToObject(o, "path", path && *path ? path : "/");
  cJSON_AddNumberToObject(o, "expires", session ? -1 : exp->valuedouble);
  cJSON_AddBoolToObject(o, "httpOnly", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "httpOnly")));
  cJSON_AddBoolToObject(o, "secure", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "secure")));
  cJSON_AddStringToObject(o, "sameSite",
                          same_site(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "sameSite"))));
  return o;
}

/* {origin: [[name, value], ...]} as Playwright's origins array; entries
 * that are not pairs of strings are dropped. */
static cJSON *state_origins(const cJSON *storage) {
  cJSON *arr = cJSON_CreateArray();
  const cJSON *o, *kv;
  cJSON_ArrayForEach(o, storage) {
    if (!o->string || !cJSON_IsArray(o) || !cJSON_GetArraySize(o)) continue;
    cJSON *entry = cJSON_CreateObject(), *items = cJSON_CreateArray();
    cJSON_AddStringToObject(entry, "origin", o->string);
    cJSON_ArrayForEach(kv, o) {
      const char *k = cJSON_GetStringValue(cJSON_GetArrayItem(kv, 0));
      const char *v = cJSON_GetStringValue(cJSON_GetArrayItem(kv, 1));
      if (!k || !v || cJSON_GetArraySize(kv) != 2) continue;
      cJSON *it = cJSON_CreateObject();
      cJSON_AddStringToObject(it, "name", k);
      cJSON_AddStringToObject(it, "value", v);
      cJSON_AddItemToArray(items, it);
    }
    cJSON_AddItemToObject(entry, "localStorage", items);
    cJSON_AddItemToArray(arr, entry);
  }
  return arr;
}

cJSON *crawl_session_state_from_cdp(const cJSON *cookies, const cJSON *storage) {
  cJSON *doc = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(doc, "cookies");
  const cJSON *c;
  cJSON_ArrayForEach(c, cookies) {
    cJSON *o = state_cookie(c);
    if (o) cJSON_AddItemToArray(arr, o);
  }
  cJSON_AddItemToObject(doc, "origins", state_origins(storage));
  return doc;
}

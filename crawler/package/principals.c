/* principals.c -- one principal's view of a package made by a principals
 * run (docs/principals.md): the routes, elements and actions whose
 * metadata.principals names it, its states (metadata.principal) and the
 * edges between them. `diff PKG --principal A --principal B` compares two
 * such views of one package. Entries that name no principal (a run without
 * principals) stay in every view. And access.json's "actions": who took
 * which action, by the package's semanticKey. */
#include "crawl_pkg.h"
#include "crawl_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int names(const cJSON *list, const char *id) {
  const cJSON *x;
  cJSON_ArrayForEach(x, list) if (cJSON_IsString(x) && !strcmp(x->valuestring, id)) return 1;
  return 0;
}

/* Keep the entry: it names no principal, or id among them. */
static int kept(const cJSON *e, const char *id) {
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "metadata");
  const cJSON *ps = cJSON_GetObjectItemCaseSensitive(m, "principals");
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(m, "principal");
  if (ps) return names(ps, id);
  if (cJSON_IsString(p)) return !strcmp(p->valuestring, id);
  return 1;
}

/* Drop the entries of arr that keep() refuses; 1 when one named id. */
static int filter(cJSON *arr, const char *id) {
  int seen = 0;
  for (cJSON *e = arr ? arr->child : NULL, *next; e; e = next) {
    next = e->next;
    if (!kept(e, id)) cJSON_Delete(cJSON_DetachItemViaPointer(arr, e));
    else seen |= cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(e, "metadata"), "principal") ||
                 cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(e, "metadata"), "principals");
  }
  return seen;
}

static cJSON *at(cJSON *o, const char *a, const char *b) {
  return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, a), b);
}

/* Edges whose two ends are states of the view. */
static void filter_edges(cJSON *edges, const cJSON *states) {
  for (cJSON *e = edges ? edges->child : NULL, *next; e; e = next) {
    next = e->next;
    const char *f = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "fromStateId"));
    const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "toStateId"));
    int hf = 0, ht = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, states) {
      const char *sid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "stateId"));
      hf |= f && sid && !strcmp(f, sid);
      ht |= t && sid && !strcmp(t, sid);
    }
    if (!hf || !ht) cJSON_Delete(cJSON_DetachItemViaPointer(edges, e));
  }
}

cJSON *crawl_package_principal_view(const cJSON *pkg, const char *id) {
  const cJSON *pp = at((cJSON *)pkg, "environment", "principalProfiles"), *p;
  int listed = 0;
  cJSON_ArrayForEach(p, pp) listed |= !strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "id")) ?: "", id);
  if (!listed) return NULL;
  cJSON *v = cJSON_Duplicate(pkg, 1);
  filter(at(v, "routeCatalog", "routes"), id);
  filter(at(v, "elementCatalog", "elements"), id);
  filter(at(v, "actionCatalog", "actions"), id);
  filter(at(v, "transitionGraph", "states"), id);
  filter_edges(at(v, "transitionGraph", "edges"), at(v, "transitionGraph", "states"));
  return v;
}

/* The package's states: stateId -> principal (borrowed strings). */
static const char *state_principal(const cJSON *states, const char *id) {
  const cJSON *s;
  cJSON_ArrayForEach(s, states) {
    const char *sid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "stateId"));
    if (sid && id && !strcmp(sid, id))
      return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s, "metadata"), "principal"));
  }
  return NULL;
}

/* {semanticKey: [principal...]}: who took each action (an edge from one of
 * its states on that target). */
static cJSON *actions_by_principal(const cJSON *pkg) {
  cJSON *acts = cJSON_CreateObject();
  const cJSON *states = at((cJSON *)pkg, "transitionGraph", "states"), *e;
  cJSON_ArrayForEach(e, at((cJSON *)pkg, "transitionGraph", "edges")) {
    const char *key = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(e, "target"), "semanticKey"));
    const char *who = state_principal(states, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "fromStateId")));
    if (!key || !who) continue;
    cJSON *list = cJSON_GetObjectItemCaseSensitive(acts, key);
    if (!list) list = cJSON_AddArrayToObject(acts, key);
    if (!names(list, who)) cJSON_AddItemToArray(list, cJSON_CreateString(who));
  }
  return acts;
}

crawl_code crawl_access_actions_write(const char *dir, char *err, size_t errlen) {
  char *ap = crawl__xprintf("%s/access.json", dir), *pp = crawl__xprintf("%s/package.json", dir);
  cJSON *acc = crawl__json_load(ap, err, errlen), *pkg = acc ? crawl__json_load(pp, err, errlen) : NULL;
  crawl_code rc = acc && pkg ? CRAWL_OK : CRAWL_IO;
  if (!rc) {
    cJSON_DeleteItemFromObjectCaseSensitive(acc, "actions");
    cJSON_AddItemToObject(acc, "actions", actions_by_principal(pkg));
    char *t = cJSON_Print(acc);
    int e = crawl__file_write(ap, t, strlen(t));
    if (e) snprintf(err, errlen, "%s: %s", ap, strerror(e));
    rc = e ? CRAWL_IO : CRAWL_OK;
    free(t);
  }
  cJSON_Delete(acc);
  cJSON_Delete(pkg);
  free(ap);
  free(pp);
  return rc;
}

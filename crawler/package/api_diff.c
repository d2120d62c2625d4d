/* api_diff.c -- two runs' endpoint catalogs compared (`diff PREV NEW`,
 * docs/reports.md): endpoints added and removed, and endpoints whose
 * statuses changed for a principal (for the run as a whole when neither
 * run has principals). Endpoints are matched by method and template, not by
 * id: the id hashes the origin, whose port differs between runs. Also
 * crawl_api_load: a directory's api.json, rebuilt in memory from its
 * journal when the file is missing.
 */
#include "api_int.h"

crawl_code crawl_api_load(const char *dir, cJSON **api, char *err, size_t errlen) {
  char *path = crawl__xprintf("%s/api.json", dir);
  crawl_code rc = CRAWL_OK;
  *api = NULL;
  if (access(path, F_OK) == 0) {
    *api = crawl__json_load(path, err, errlen);
    if (!*api) rc = CRAWL_IO;
  } else {
    rc = pk_api_rebuild(dir, api, err, errlen);
    if (!rc && !*api) { /* a run that recorded no requests: an empty catalog */
      *api = crawl__jx(cJSON_CreateObject());
      crawl__jset(*api, "endpoints", crawl__jx(cJSON_CreateArray()));
    }
  }
  free(path);
  return rc;
}

static char *ep_key(const cJSON *ep) {
  return crawl__xprintf("%s %s", crawl__str(ep, "method") ?: "?", crawl__str(ep, "template") ?: "?");
}

static const cJSON *find_ep(const cJSON *api, const char *key) {
  const cJSON *e;
  cJSON_ArrayForEach(e, crawl__arr(api, "endpoints")) {
    char *k = ep_key(e);
    int same = !strcmp(k, key);
    free(k);
    if (same) return e;
  }
  return NULL;
}

/* The statuses principal who (NULL: the endpoint's own) got, or NULL. */
static const cJSON *statuses_of(const cJSON *ep, const char *who) {
  if (!who) return crawl__arr(ep, "statuses");
  const cJSON *p;
  cJSON_ArrayForEach(p, crawl__arr(ep, "principals")) if (!strcmp(crawl__str(p, "principal") ?: "", who)) return crawl__arr(p, "statuses");
  return NULL;
}

static void status_change(cJSON *list, const char *key, const char *who, const cJSON *o, const cJSON *n) {
  char *to = o ? crawl__jtext(o, 0) : crawl__xstrdup("[]"), *tn = n ? crawl__jtext(n, 0) : crawl__xstrdup("[]");
  if (strcmp(to, tn)) {
    cJSON *c = crawl__jx(cJSON_CreateObject());
    crawl__jstr(c, "key", key);
    crawl__jstr(c, "principal", who);
    crawl__jset(c, "old", crawl__jx(o ? cJSON_Duplicate(o, 1) : cJSON_CreateArray()));
    crawl__jset(c, "new", crawl__jx(n ? cJSON_Duplicate(n, 1) : cJSON_CreateArray()));
    crawl__jpush(list, c);
  }
  free(to);
  free(tn);
}

/* The statuses of one endpoint in both runs, principal by principal. */
static void diff_statuses(cJSON *list, const char *key, const cJSON *o, const cJSON *n) {
  strset who = {0};
  const cJSON *sides[] = {o, n}, *p;
  for (int s = 0; s < 2; s++)
    cJSON_ArrayForEach(p, crawl__arr(sides[s], "principals")) if (crawl__str(p, "principal")) pk_strset_add(&who, crawl__str(p, "principal"));
  if (!who.n) status_change(list, key, NULL, statuses_of(o, NULL), statuses_of(n, NULL));
  char **v = pk_strset_sorted(&who, pk_cmp_nat);
  for (size_t i = 0; i < who.n; i++) {
    const cJSON *so = statuses_of(o, v[i]), *sn = statuses_of(n, v[i]);
    if (so && sn) status_change(list, key, v[i], so, sn); /* one who did not call it in one run: not a change */
  }
  free(v);
  pk_strset_free(&who);
}

void crawl_api_diff(cJSON *diff, const cJSON *old_api, const cJSON *new_api) {
  cJSON *d = crawl__jx(cJSON_CreateObject()), *added = crawl__jx(cJSON_CreateArray());
  cJSON *removed = crawl__jx(cJSON_CreateArray()), *changed = crawl__jx(cJSON_CreateArray());
  const cJSON *e;
  cJSON_ArrayForEach(e, crawl__arr(new_api, "endpoints")) {
    char *k = ep_key(e);
    const cJSON *o = find_ep(old_api, k);
    if (!o) crawl__jpush(added, cJSON_CreateString(k));
    else diff_statuses(changed, k, o, e);
    free(k);
  }
  cJSON_ArrayForEach(e, crawl__arr(old_api, "endpoints")) {
    char *k = ep_key(e);
    if (!find_ep(new_api, k)) crawl__jpush(removed, cJSON_CreateString(k));
    free(k);
  }
  crawl__jset(d, "added", added);
  crawl__jset(d, "removed", removed);
  crawl__jset(d, "statusChanged", changed);
  cJSON_DeleteItemFromObjectCaseSensitive(diff, "api");
  crawl__jset(diff, "api", d);
}

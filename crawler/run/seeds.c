/* seeds.c -- the kinds of seed (discovery-mapper 9.1) in one table: the
 * field each names its target by, and what a crawl (crawl_run) and a listen
 * session (crawler/listen) do with it; and the one check of a seed against
 * it (crawl_seed_problem), which both use. Not the driving of seeds
 * (explore_seeds.c) nor the sorting of a plan's seeds (listen_discovery.c). */
#include "crawl.h"
#include "pg_url.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const crawl_seed_kind seed_kinds[] = {
  /* kind            field         a crawl                  a listen session */
  {"url",           "url",        {CRAWL_SEED_PAGE,         CRAWL_SEED_PAGE_BASE}},
  {"route",         "routeId",    {CRAWL_SEED_PAGE,         CRAWL_SEED_PAGE_BASE}},
  {"menu",          "label",      {CRAWL_SEED_CONTROL,      CRAWL_SEED_CONTROL}},
  {"action",        "actionId",   {CRAWL_SEED_CONTROL,      CRAWL_SEED_CONTROL}},
  {"workflow",      "workflowId", {CRAWL_SEED_PACKAGE,      CRAWL_SEED_REFUSED}},
  {"documentation", "ref",        {CRAWL_SEED_PAGE_ALLOWED, CRAWL_SEED_REFUSED}},
};
#define NKINDS (sizeof seed_kinds / sizeof *seed_kinds)

/* How each user names the kinds it serves when it refuses another. */
static const char *const refusal[] = {
  [CRAWL_SEEDS_RUN] = "is not one of the mapper's",
  [CRAWL_SEEDS_LISTEN] = "is not one the crawler drives",
};

const crawl_seed_kind *crawl_seed_kind_find(const char *kind) {
  for (size_t k = 0; kind && k < NKINDS; k++)
    if (!strcmp(seed_kinds[k].kind, kind)) return &seed_kinds[k];
  return NULL;
}

crawl_seed_use crawl_seed_use_of(const cJSON *sd, crawl_seed_user user) {
  const crawl_seed_kind *k = crawl_seed_kind_find(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sd, "kind")));
  return k ? k->use[user] : CRAWL_SEED_REFUSED;
}

/* The kinds user serves, in the table's order: "url, route, ...". */
static void served(crawl_seed_user user, char *buf, size_t n) {
  size_t at = 0;
  buf[0] = 0;
  for (size_t k = 0; k < NKINDS; k++)
    if (seed_kinds[k].use[user] != CRAWL_SEED_REFUSED && at < n)
      at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? ", " : "", seed_kinds[k].kind);
}

/* A page seed that must lie on an origin: why it does not (into buf), or NULL. */
static const char *page_problem(crawl_seed_use use, const char *v, const crawl_seed_check *c, char *buf, size_t n) {
  if (use == CRAWL_SEED_PAGE_BASE) {
    char *url = pg_url_resolve(c->base, v);
    int same = url && pg_url_same_origin(url, c->base);
    free(url);
    if (same) return NULL;
    snprintf(buf, n, "%.300s is out of scope: not on the origin of baseUrl %.300s", v, c->base);
    return buf;
  }
  if (!c->url) {
    snprintf(buf, n, "the ref %.300s names no page of the app (a URL or a path from \"/\"); the crawler reads "
             "documentation only as pages on the run's origins", v);
    return buf;
  }
  char o[512];
  if (pg_url_origin(c->url, o, sizeof o) < 0) o[0] = 0;
  for (int i = 0; c->allowed && c->allowed[i]; i++)
    if (!strcmp(o, c->allowed[i])) return NULL;
  snprintf(buf, n, "%.300s is outside the run's origins (add its origin with --allow-origin)", c->url);
  return buf;
}

const char *crawl_seed_problem(const cJSON *sd, const crawl_seed_check *c, char *buf, size_t n) {
  const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sd, "kind"));
  const crawl_seed_kind *k = crawl_seed_kind_find(kind);
  crawl_seed_use use = k ? k->use[c->user] : CRAWL_SEED_REFUSED;
  if (use == CRAWL_SEED_REFUSED) {
    char kinds[128];
    served(c->user, kinds, sizeof kinds);
    snprintf(buf, n, "seed kind %.100s %s (%s)", kind ? kind : "(none)", refusal[c->user], kinds);
    return buf;
  }
  const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sd, k->field));
  if (!v || !v[0]) {
    snprintf(buf, n, "a %s seed needs a non-empty %s", k->kind, k->field);
    return buf;
  }
  if (use != CRAWL_SEED_PAGE_BASE && use != CRAWL_SEED_PAGE_ALLOWED) return NULL;
  return page_problem(use, v, c, buf, n);
}

/* explore_access.c -- access probing after the principals explored: each
 * principal opens the app's routes the others reached, classified
 * (access.c) into OUT/access.json, with a review item for a route a
 * principal can open although its navigation never offers it. Each
 * probe's load is a "load" phase with its `requests` record (docs/api.md). */
#include "explore_int.h"

/* ---- access probing ---- */
typedef struct probe_route { char key[512]; const char *url; unsigned reached, offered; } probe_route;

/* Route url (its key) in v: reached (1) or offered (0) to principal pri.
 * Only a reached route is added: a link's target is marked offered on a
 * route some principal reached, never added by itself (a denied control's
 * target, an <a download> say, is never fetched). */
static void probe_add(run *r, probe_route *v, int *n, int max, const char *url, int pri, int reached) {
  char key[512], o[512];
  if (!url || strncmp(url, "http", 4)) return;
  crawl__run_url_origin(url, o, sizeof o);
  if (strcmp(o, r->page_origin)) return; /* the app's own routes only */
  crawl__access_route(url, key, sizeof key);
  int k = 0;
  while (k < *n && strcmp(v[k].key, key)) k++;
  if (k == *n && (*n == max || !reached)) return;
  if (k == *n) {
    memset(&v[k], 0, sizeof v[k]);
    snprintf(v[k].key, sizeof v[k].key, "%s", key);
    v[k].url = url;
    (*n)++;
  }
  v[k].offered |= 1u << pri;
  if (reached) v[k].reached |= 1u << pri;
}

/* The routes the principals' states show (reached: by a seed or an allowed
 * action), and which of them each principal's states link to (offered). */
static int probe_routes(run *r, probe_route *v, int max) {
  int n = 0;
  for (int i = 0; i < r->f.nst; i++) probe_add(r, v, &n, max, r->f.st[i].url, r->f.st[i].principal, 1);
  for (int i = 0; i < r->f.nst; i++)
    for (int k = 0; k < r->f.st[i].nacts; k++) probe_add(r, v, &n, max, r->f.st[i].acts[k].href, r->f.st[i].principal, 0);
  return n;
}

/* Load url and capture it (*g, the caller frees) as a "load" phase whose
 * `requests` record (docs/api.md) names the principal: what one endpoint
 * answers each principal. */
static crawl_code probe_load(run *r, const char *url, pg_graph **g) {
  char why[512];
  pg_options go = {.redact_pii = r->o->redact_pii};
  crawl__run_net_begin(r, "load");
  crawl_code rc = crawl__run_navigate(r, url, 0, why, sizeof why); /* a logout, a deletion: refused, absent */
  if (!rc) rc = crawl_page_capture(r->page, &go, g);
  crawl__netlog_ctx ctx = {.phase = "load", .url = url};
  crawl__run_net_write(r, &ctx);
  return rc;
}

/* Open url as the principal of the current tab; signed out on the way
 * (a recipe principal): sign in again once and retry. */
static crawl__access probe_one(run *r, const char *url) {
  for (int attempt = 0; attempt < 2; attempt++) {
    pg_graph *g = NULL;
    crawl_code rc = probe_load(r, url, &g);
    if (rc) {
      pg_graph_free(g);
      return CRAWL__ACCESS_ABSENT;
    }
    int st = crawl_page_status(r->page);
    int signin = crawl__login_page(crawl__run_signin_recipe(r), g->route_url, g) || st == 401 || st == 419;
    crawl__access a = crawl__access_classify(st, signin, g);
    pg_graph_free(g);
    if (!signin || !r->o->principals[r->pri].login || attempt || crawl__run_sign_in(r, 1)) return a;
  }
  return CRAWL__ACCESS_DENIED;
}

static void probe_review(run *r, const char *pid, const probe_route *rt) {
  crawl__run_jl_review(r, "custom", "high", -1, NULL,
            "Check the route's access control: deny it on the server for principals that are not offered it.",
            "Principal %s can open %s directly, although its navigation never offers it (likely access-control gap).",
            pid, rt->key);
}

static void access_write(run *r, cJSON *o) {
  char path[4400];
  snprintf(path, sizeof path, "%s/access.json", r->dir);
  crawl__secrets_scrub_json(r->secrets, o);
  char *t = cJSON_Print(o);
  int e = crawl__file_write(path, t, strlen(t));
  if (e) crawl__run_jl_note(r, "could not write access.json: %s", strerror(e));
  free(t);
}

void crawl__run_probe_access(run *r) {
  probe_route rts[256];
  int n = probe_routes(r, rts, 256);
  cJSON *o = cJSON_CreateObject(), *ps = cJSON_AddArrayToObject(o, "principals");
  cJSON *routes = cJSON_AddObjectToObject(o, "routes");
  for (size_t k = 0; k < r->o->nprincipals; k++) cJSON_AddItemToArray(ps, cJSON_CreateString(r->o->principals[k].id));
  for (int i = 0; i < n; i++) cJSON_AddObjectToObject(routes, rts[i].key);
  crawl__run_jl_note(r, "probing access: %d routes as each of %zu principals", n, r->o->nprincipals);
  for (size_t k = 0; k < r->o->nprincipals && !r->cancelled; k++) {
    const char *pid = r->o->principals[k].id;
    r->pri = (int)k;
    r->relogins = 0;
    if (r->contexts[k]) crawl__run_open_tab(r);
    for (int i = 0; i < n; i++) {
      unsigned me = 1u << k;
      crawl__access a = rts[i].reached & me ? CRAWL__ACCESS_REACHED : CRAWL__ACCESS_ABSENT;
      if (!a && r->page && !r->fatal) a = probe_one(r, rts[i].url);
      if (a == CRAWL__ACCESS_DIRECT && (rts[i].offered & me)) a = CRAWL__ACCESS_REACHED; /* offered, shown */
      cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(routes, rts[i].key), pid, crawl__access_name(a));
      if (a == CRAWL__ACCESS_DIRECT) probe_review(r, pid, &rts[i]);
    }
    crawl__run_close_tab(r);
    r->fatal = 0;
  }
  cJSON_AddObjectToObject(o, "actions"); /* by semanticKey, once the package is written */
  access_write(r, o);
  cJSON_Delete(o);
}

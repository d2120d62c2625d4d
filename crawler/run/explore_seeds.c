/* explore_seeds.c -- the run's seeds: collected from the URLs given and the
 * plan (resolved against its base URL), checked at planning (seeds.c's
 * table of seed kinds), the run's origins and scope, then driven: URL seeds
 * loaded and registered, menu and action seeds resolved to a control on
 * the seed pages and stepped first. Workflow seeds are the package's. */
#include "explore_int.h"

/* ---- seeds ------------------------------------------------------------------------- */

static const char *seed_kind(const seed *sd) {
  return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sd->json, "kind"));
}
/* Menu and action seeds name a control on the seed pages. */
static int is_control_seed(const seed *sd) {
  return !sd->url && !sd->settled && crawl_seed_use_of(sd->json, CRAWL_SEEDS_RUN) == CRAWL_SEED_CONTROL;
}

/* A seed's URL or route against the base URL (RFC 3986: "../", "?q", "#f",
 * "//host" included), or NULL. Caller frees. */
static char *resolve_url(const char *base, const char *ref) {
  if (!ref) return NULL;
  if (!base) return pg_url_normalize(ref);
  return pg_url_resolve(base, ref);
}

/* ---- the run: seeds ------------------------------------------------------------------------ */
/* A plan's payload: the plan itself, or a uiap.discovery.plan message's. */
const cJSON *crawl__run_plan_payload(const cJSON *plan) {
  const cJSON *payload = cJSON_GetObjectItemCaseSensitive(plan, "payload");
  return plan && payload ? payload : plan;
}

static void seed_set(seed *sd, char *url, cJSON *json) {
  sd->url = url;
  sd->json = json;
  sd->resolved = 0;
  sd->settled = 0;
}

/* A documentation seed's page: a ref that is a URL or a path (from "/")
 * against the base URL; another ref (a document name, "guide.pdf") is
 * none (NULL). Caller frees. */
static char *doc_url(const char *base, const char *ref) {
  if (!ref || !ref[0]) return NULL;
  if (ref[0] == '/' && ref[1] != '/') return resolve_url(base, ref);
  if (!strncmp(ref, "http://", 7) || !strncmp(ref, "https://", 8)) return resolve_url(base, ref);
  return NULL;
}

static cJSON *url_seed_json(const char *url) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "kind", "url");
  cJSON_AddStringToObject(j, "url", url);
  return j;
}

/* The seeds, at most max: the URLs (NULL-terminated, may be NULL), then
 * the plan's seeds (a url or route seed resolved against base, a
 * documentation seed too when its ref is a URL or a path; menu and action
 * seeds, without a URL, are driven after the seed pages, workflow seeds
 * resolved by the package), else base itself. Reads
 * nothing but its arguments. The caller frees each seed's url and json
 * (seeds_free). Returns the count. */
static int seeds_collect(const char *const *urls, const cJSON *plan_seeds, const char *base, seed *seeds, int max) {
  int n = 0;
  for (int i = 0; urls && urls[i] && n < max; i++) seed_set(&seeds[n++], crawl__xstrdup(urls[i]), url_seed_json(urls[i]));
  const cJSON *sj;
  cJSON_ArrayForEach(sj, plan_seeds) {
    if (n >= max) break;
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sj, "kind"));
    char *url = NULL;
    if (kind && !strcmp(kind, "url")) url = resolve_url(base, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sj, "url")));
    else if (kind && !strcmp(kind, "route")) url = resolve_url(base, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sj, "routeId")));
    else if (kind && !strcmp(kind, "documentation")) url = doc_url(base, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sj, "ref")));
    seed_set(&seeds[n++], url, cJSON_Duplicate(sj, 1));
  }
  if (!n && base && max > 0) seed_set(&seeds[n++], crawl__xstrdup(base), url_seed_json(base));
  return n;
}

/* url (freed) with query's parameters added, before any fragment. */
static char *with_query(char *url, const char *query) {
  if (!url) return NULL;
  size_t at = pg_url_fragment_start(url);
  char *out = crawl__xprintf("%.*s%s%s%s", (int)at, url, memchr(url, '?', at) ? "&" : "?", query, url + at);
  free(url);
  return out;
}

void crawl__run_seeds_free(seed *seeds, int n) {
  for (int i = 0; i < n; i++) {
    free(seeds[i].url);
    cJSON_Delete(seeds[i].json);
  }
}

/* The page's origin (base's) and the origins in scope: it, then allow_origins. */
static void run_origins(run *r, const char *base) {
  crawl__run_url_origin(base, r->page_origin, sizeof r->page_origin);
  int na = 0;
  r->allowed[na++] = r->page_origin;
  for (int i = 0; r->o->allow_origins && r->o->allow_origins[i] && na < 64; i++) r->allowed[na++] = r->o->allow_origins[i];
  r->allowed[na] = NULL;
}

/* The journal's "seed" line for seed i, so (consumed), not resolved: why. */
static void seed_unresolved(run *r, cJSON *so, const char *why) {
  cJSON_AddBoolToObject(so, "resolved", 0);
  cJSON_AddStringToObject(so, "reason", why);
  crawl__run_jl_write(r, "seed", so);
}

/* Why seed sd cannot be used at all (into buf), or NULL: seeds.c's table
 * (an unknown kind, a missing target, a documentation ref that is no page
 * of the run's origins). */
static const char *seed_problem(const run *r, const seed *sd, char *buf, size_t n) {
  crawl_seed_check c = {.user = CRAWL_SEEDS_RUN, .url = sd->url, .allowed = r->allowed};
  return crawl_seed_problem(sd->json, &c, buf, n);
}

/* Planning: each seed that cannot be used gets its seed line and a
 * coverage_gap with the reason now, and is not loaded. */
static void plan_seeds(run *r, seed *seeds, int nseeds) {
  char why[900];
  for (int i = 0; i < nseeds; i++) {
    const char *reason = seed_problem(r, &seeds[i], why, sizeof why);
    if (!reason) continue;
    const char *kind = seed_kind(&seeds[i]);
    cJSON *so = cJSON_CreateObject();
    cJSON_AddNumberToObject(so, "index", i);
    cJSON_AddItemToObject(so, "seed", cJSON_Duplicate(seeds[i].json, 1));
    seed_unresolved(r, so, reason);
    crawl__run_jl_review(r, "coverage_gap", "medium", -1, NULL,
              "Give the seed a target the crawler can open: a URL or path on the app's origins, a route, a menu "
              "label, an action or workflow id.",
              "Seed %d (%s) could not be resolved: %s.", i, kind ? kind : "?", reason);
    free(seeds[i].url);
    seeds[i].url = NULL;
    seeds[i].settled = 1;
  }
}

/* Load URL seed i and register its state; the "seed" line says how it
 * went. Returns the state's index, or -1. */
static int seed_load_(run *r, seed *sd, int i) {
  cJSON *so = cJSON_CreateObject();
  cJSON_AddNumberToObject(so, "index", i);
  cJSON_AddItemToObject(so, "seed", cJSON_Duplicate(sd->json, 1));
  if (!sd->url) {
    seed_unresolved(r, so, is_control_seed(sd) ? "a menu or action seed is resolved on the seed pages once they are loaded"
                           : "a workflow seed is resolved against the workflow candidates synthesized from the run");
    return -1;
  }
  crawl_code rc = crawl_page_load(r->page, sd->url);
  if (rc) {
    crawl__run_note_error(r, rc);
    seed_unresolved(r, so, crawl_page_errmsg(r->page));
    crawl__run_jl_review(r, "coverage_gap", "high", -1, NULL, "Check that the seed URL is reachable from the crawler.",
              "Seed %d (%s) could not be loaded: %s", i, sd->url, crawl_page_errmsg(r->page));
    if (!r->seed_err[0]) snprintf(r->seed_err, sizeof r->seed_err, "%s", crawl_page_errmsg(r->page));
    return -1;
  }
  char *route = NULL;
  int si = crawl__run_observe(r, &rc, &route);
  if (rc) {
    crawl__run_note_error(r, rc);
    free(route);
    seed_unresolved(r, so, crawl_page_errmsg(r->page));
    return -1;
  }
  if (si < 0) {
    si = crawl__run_add_state(r, -1, NULL, i, route);
    r->cur = si;
  } else if (crawl__run_folded(r, si, route)) {
    cJSON_AddStringToObject(so, "stateId", r->f.st[si].id);
    crawl__run_landed_route(r, so, route);
  }
  if (!crawl_page_settled(r->page))
    crawl__run_jl_review(r, "custom", "medium", si, NULL,
              "Check the page for redirect or refresh loops and for content that changes without end.",
              "Seed %d (%s) did not settle within %d ms: it kept changing or navigating, or its script did not stop; "
              "it was captured as it was.",
              i, sd->url, r->po.settle_max_ms);
  sd->resolved = 1;
  cJSON_AddBoolToObject(so, "resolved", 1);
  cJSON_AddStringToObject(so, "url", sd->url);
  if (si >= 0) cJSON_AddStringToObject(so, "stateId", r->f.st[si].id); /* new or met before */
  crawl__run_jl_write(r, "seed", so);
  free(route);
  return si;
}

/* seed_load_ as a "load" phase: its `requests` record after its seed line. */
static void seed_load(run *r, seed *sd, int i) {
  if (!sd->url) {
    seed_load_(r, sd, i);
    return;
  }
  crawl__run_net_begin(r, "load");
  int si = seed_load_(r, sd, i);
  crawl__netlog_ctx ctx = {.phase = "load", .state_id = si >= 0 ? r->f.st[si].id : NULL, .url = sd->url};
  crawl__run_net_write(r, &ctx);
}

/* A seed that hangs the tab costs a new tab, not the other seeds; a seed
 * whose state a resumed run recorded is not loaded again. */
void crawl__run_drive_url_seeds(run *r, seed *seeds, int nseeds) {
  for (int i = 0; i < nseeds && !crawl__run_budget_stop(r) && !(r->fatal && crawl__run_recover(r) != 0); i++) {
    int have = 0;
    for (int k = 0; k < r->f.nst; k++)
      have |= r->f.st[k].seed == i && r->f.st[k].parent < 0 && r->f.st[k].principal == (r->pri < 0 ? 0 : r->pri);
    if (have || seeds[i].settled) continue;
    seed_load(r, &seeds[i], i);
    /* sent to sign-in: a recipe signs in again and the seed is loaded once more */
    if (r->signed_out && r->o->principals[r->pri].login && crawl__run_sign_in(r, 1) == 0) seed_load(r, &seeds[i], i);
  }
}

/* The element of g a menu seed (label: a link, menu item or tab of that
 * name) or an action seed (aid: that data-uiap-action) names, or NULL. */
static const pg_element *seed_element(const pg_graph *g, const char *label, const char *aid) {
  for (size_t k = 0; g && k < g->nelements; k++) {
    const pg_element *e = &g->elements[k];
    if (label && e->name && !strcmp(e->name, label) &&
        (!strcmp(e->role, "link") || !strncmp(e->role, "menuitem", 8) || !strcmp(e->role, "tab")))
      return e;
    if (aid && e->app_action && !strcmp(e->app_action, aid)) return e;
  }
  return NULL;
}

/* The first action of s on element el (same role, name and stable id), or -1. */
static int action_on(const state *s, const pg_element *el) {
  for (int k = 0; k < s->nacts; k++) {
    const action *ac = &s->acts[k];
    if (!strcmp(ac->role, el->role) && !strcmp(ac->name ? ac->name : "", el->name ? el->name : "") &&
        (!el->stable_id || (ac->stable_id && !strcmp(ac->stable_id, el->stable_id))))
      return k;
  }
  return -1;
}

/* The action a menu or action seed names, in the first seed state that has
 * it (each restored and prepared in turn): its index, its state in *si; -1
 * when none has it. */
static int seed_control(run *r, const cJSON *json, int *found) {
  const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(json, "kind"));
  const char *label = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(json, "label"));
  const char *aid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(json, "actionId"));
  int is_menu = kind && !strcmp(kind, "menu") && label, is_action = kind && !strcmp(kind, "action") && aid;
  for (int si = 0; si < r->f.nst && (is_menu || is_action); si++) {
    if (r->f.st[si].parent >= 0 || r->f.st[si].dead) continue;
    if (r->cur != si && crawl__run_restore(r, si) != 0) {
      if (!r->fatal && !r->cancelled && !r->signed_out) crawl__run_unrestorable(r, si);
      continue;
    }
    if (!r->f.st[si].acts) crawl__run_prepare_state(r, si);
    const pg_element *el = seed_element(r->g, is_menu ? label : NULL, is_action ? aid : NULL);
    int k = el ? action_on(&r->f.st[si], el) : -1;
    if (k >= 0) {
      *found = si;
      return k;
    }
  }
  return -1;
}

/* Menu and action seeds: the control of a seed state they name, driven
 * first when the policy allows it. */
void crawl__run_drive_control_seeds(run *r, seed *seeds, int nseeds) {
  for (int i = 0; i < nseeds && !r->cancelled && !r->fatal; i++) {
    if (!is_control_seed(&seeds[i])) continue; /* workflow seeds: the package's */
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(seeds[i].json, "kind"));
    int si = -1, k = seed_control(r, seeds[i].json, &si);
    if (k < 0) {
      crawl__run_jl_review(r, "coverage_gap", "high", -1, NULL, "Check the seed against the app, or add the annotation it names.",
                "Seed %d (%s) could not be resolved: no matching control on the seed pages.", i, kind ? kind : "?");
      crawl__run_jl_note(r, "seed %d (%s) unresolved", i, kind ? kind : "?");
      continue;
    }
    action *ac = &r->f.st[si].acts[k];
    seeds[i].resolved = 1;
    if (ac->dec.effect != POL_EFFECT_ALLOW) {
      crawl__run_jl_note(r, "seed %d (%s) resolved to %s \"%s\" in %s, not driven: %s", i, kind, ac->role, ac->name ? ac->name : "",
              r->f.st[si].id, ac->dec.text ? ac->dec.text : "");
      continue;
    }
    crawl__run_jl_note(r, "seed %d (%s) resolved to %s \"%s\" in %s and driven first", i, kind, ac->role, ac->name ? ac->name : "",
            r->f.st[si].id);
    if (!ac->done && !crawl__run_budget_stop(r)) crawl__run_step(r, si, k);
  }
}

int crawl__run_control_seeds(const seed *seeds, int nseeds) {
  int n = 0;
  for (int i = 0; i < nseeds; i++) n += is_control_seed(&seeds[i]);
  return n;
}

/* ---- the run: its seeds, planned ------------------------------------------------------------- */
/* The run's seeds (*out, nseeds of them; the caller frees them with
 * crawl__run_seeds_free and *out with free): the URLs given and the plan's,
 * resolved, its origins and scope set, its "run" line (or, resumed, a
 * note), and each seed that cannot be used settled at planning. */
int crawl__run_seeds(run *r, int resumed, seed **out) {
  const crawl_opts *o = r->o;
  const cJSON *plan = crawl__run_plan_payload(o->plan);
  const cJSON *env = cJSON_GetObjectItemCaseSensitive(plan, "environment");
  const char *base = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(env, "baseUrl"));
  const cJSON *plan_sd = cJSON_GetObjectItemCaseSensitive(plan, "seeds");
  int maxseeds = cJSON_GetArraySize(plan_sd) + 1; /* every seed given, or the base URL */
  for (int i = 0; o->urls && o->urls[i]; i++) maxseeds++;
  seed *seeds = crawl__xcalloc((size_t)maxseeds, sizeof *seeds);
  int nseeds = seeds_collect(o->urls, plan_sd, base, seeds, maxseeds);
  for (int i = 0; i < nseeds && o->seed_query; i++) seeds[i].url = with_query(seeds[i].url, o->seed_query);
  for (int i = 0; i < nseeds && !base; i++) base = seeds[i].url; /* else the first seed URL */
  run_origins(r, base);
  r->seed_origins = crawl__xcalloc((size_t)nseeds + 1, sizeof *r->seed_origins);
  for (int i = 0; i < nseeds; i++) crawl__run_url_origin(seeds[i].url, r->seed_origins[r->nseed_origins++], 512);
  int nscope = 0;
  while (r->allowed[nscope]) nscope++;
  r->scope = crawl__xcalloc((size_t)(nscope + nseeds + 1), sizeof *r->scope);
  for (int i = 0; i < nscope; i++) r->scope[i] = r->allowed[i];
  for (int i = 0; i < nseeds; i++) r->scope[nscope + i] = r->seed_origins[i];
  crawl__run_journal_run(r, env, base, seeds, nseeds, resumed);
  crawl__run_jl_status(r, "planning");
  plan_seeds(r, seeds, nseeds);
  *out = seeds;
  return nseeds;
}

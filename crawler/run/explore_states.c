/* explore_states.c -- the run's state table: a capture registered as a new
 * state (its budget check, its files: PageGraph JSON, screenshot,
 * accessibility record; its journal line and its shared frontier record),
 * and the lookups by fingerprint and route. Not how a capture is made
 * (explore_observe.c) nor how a state is reached (explore_tab.c). */
#include "explore_int.h"

#include <errno.h>

/* ---- states ----------------------------------------------------------------------- */
int crawl__run_find_state(const run *r, const char *fp) { return fr_find_state(&r->f, fp); }

/* States on routeId route (a template counts its pages together). */
static int route_count(const run *r, const char *route) {
  int n = 0;
  for (int i = 0; i < r->f.nst; i++)
    if (route && r->f.st[i].route_id && !strcmp(r->f.st[i].route_id, route)) n++;
  return n;
}

/* The routeId of the current capture on route key rk: the page's
 * data-uiap-route or its router's route, else rk's template with what the
 * run learned (pg_route_learned_template; caller frees). */
char *crawl__run_route_id_of(const run *r, const char *rk) {
  if (r->g && r->g->route_source != PG_ROUTE_URL && r->g->route_id) return crawl__xstrdup(r->g->route_id);
  return rk ? pg_route_learned_template(r->routes, rk, NULL, NULL) : NULL;
}

/* ---- route templates learned from the run's pages (docs/fingerprint.md) ------------- */
/* The route to fingerprint capture g under, on route key rk: its template
 * with the word segments learned as parameters; g is noted first (its
 * route and layout: the fingerprint without route and row counts), so
 * that the second page of a kind already counts as the first one's
 * route. Caller frees. */
char *crawl__run_fp_route(run *r, const pg_graph *g, const char *rk) {
  if (!rk) return NULL;
  if (!r->routes) r->routes = pg_route_learner_new();
  pg_fp_policy lp = r->o->fp;
  lp.base_origin = r->page_origin;
  lp.ignore_route = 1;
  lp.ignore_collection_sizes = 1;
  char layout[33];
  pg_fingerprint(g, &lp, layout, NULL);
  pg_route_learn(r->routes, rk, layout);
  return pg_route_learned_template(r->routes, rk, NULL, NULL);
}

/* The state the current capture (route key rk, a fingerprint no state has)
 * is, when a parameter learned after that state was registered makes
 * their routes one: the same content fingerprint, and the same learned
 * template for both routes. -1: none. */
int crawl__run_template_fold(const run *r, const char *rk) {
  if (!rk || !r->routes) return -1;
  char *mine = NULL;
  int found = -1;
  for (int i = 0; i < r->f.nst && found < 0; i++) {
    const state *s = &r->f.st[i];
    if (!s->route || strcmp(s->cfp, r->cur_cfp)) continue;
    if (!mine) mine = pg_route_learned_template(r->routes, rk, NULL, NULL);
    char *theirs = pg_route_learned_template(r->routes, s->route, NULL, NULL);
    if (mine && theirs && !strcmp(mine, theirs)) found = i;
    free(theirs);
  }
  free(mine);
  return found;
}

/* The slot for one more state, zeroed, at r->f.st[r->f.nst] (the table
 * grows as needed; the caller fills it and counts it). */
state *crawl__run_state_slot(run *r) {
  if (r->f.nst == r->f.capst) {
    r->f.capst = r->f.capst ? r->f.capst * 2 : 64;
    r->f.st = crawl__xrealloc(r->f.st, (size_t)r->f.capst * sizeof *r->f.st);
  }
  state *s = &r->f.st[r->f.nst];
  memset(s, 0, sizeof *s);
  return s;
}

/* 1 when a budget refuses one more state on route (journaled). */
static int state_refused(run *r, const char *route) {
  long n = r->sh ? crawl__shared_count(r->sh) : r->f.nst; /* shared: the run's, not this worker's */
  if (n >= r->b.max_states) {
    if (!r->stopped_by) {
      r->stopped_by = "maxStates";
      cJSON *o = cJSON_CreateObject();
      cJSON_AddStringToObject(o, "budget", "maxStates");
      cJSON_AddNumberToObject(o, "limit", (double)r->b.max_states);
      crawl__run_jl_write(r, "budget", o);
    }
    return 1;
  }
  if (r->b.max_per_route > 0 && route_count(r, route) >= r->b.max_per_route) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "budget", "maxPerRoute");
    cJSON_AddNumberToObject(o, "limit", (double)r->b.max_per_route);
    cJSON_AddStringToObject(o, "routeId", route ? route : "");
    crawl__run_jl_write(r, "budget", o);
    return 1;
  }
  return 0;
}

/* What the run's graphs publish: its bridges, --redact pii. */
pg_options crawl__run_graph_opts(const run *r) {
  return (pg_options){.bridge_origins = r->o->bridge_origins, .allow_bridges = r->o->allow_bridges,
                      .redact_pii = r->o->redact_pii};
}


/* DIR/accessibility/<id>.json: the capture's accessibility record
 * (pg_ax_record_of: only what the graph publishes), with the state's id and
 * URL, through the run's secret list and filter as the graph is; its path
 * relative to DIR into ax_rel ("" when there is none). */
static void ax_record_file(run *r, const state *s, char *ax_rel, size_t axlen) {
  ax_rel[0] = 0;
  cJSON *rec = r->g ? pg_ax_record_of(r->g) : NULL;
  if (!rec) return;
  char path[4400], rel[128];
  snprintf(rel, sizeof rel, "accessibility/%s.json", s->id);
  snprintf(path, sizeof path, "%s/%s", r->dir, rel);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "stateId", s->id);
  if (r->g->route_url) cJSON_AddStringToObject(o, "url", r->g->route_url);
  cJSON_AddStringToObject(o, "pageGraphRevision", r->g->revision);
  for (cJSON *it; (it = rec->child);) cJSON_AddItemToObject(o, it->string, cJSON_DetachItemViaPointer(rec, it));
  cJSON_Delete(rec);
  crawl__secrets_scrub_json(r->secrets, o);
  char *text = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  int e = text ? crawl__file_write(path, text, strlen(text)) : ENOMEM;
  free(text);
  if (e) crawl__run_jl_note(r, "could not write %s: %s", rel, strerror(e));
  else snprintf(ax_rel, axlen, "%s", rel);
}

/* The state record o with its accessibilityRef, the file written first. */
static cJSON *with_ax(run *r, const state *s, cJSON *o) {
  char ax_rel[160];
  ax_record_file(r, s, ax_rel, sizeof ax_rel);
  if (ax_rel[0]) cJSON_AddStringToObject(o, "accessibilityRef", ax_rel);
  return o;
}

/* The RouteContext of graph JSON gj (the current capture, state s) with
 * what the run learned: routeId the state's, the learned segments' values
 * in params (docs/fingerprint.md). A named route (annotation, router) is
 * left as it is. */
static void learned_route(const run *r, const state *s, cJSON *gj) {
  cJSON *rt = cJSON_GetObjectItemCaseSensitive(gj, "route");
  if (!rt || !r->g || r->g->route_source != PG_ROUTE_URL || !s->route_id || !s->route || !r->routes) return;
  pg_route_param *p = NULL;
  size_t np = 0;
  free(pg_route_learned_template(r->routes, s->route, &p, &np));
  cJSON_DeleteItemFromObjectCaseSensitive(rt, "routeId");
  cJSON_AddStringToObject(rt, "routeId", s->route_id);
  cJSON *params = cJSON_GetObjectItemCaseSensitive(rt, "params");
  for (size_t i = 0; i < np; i++) {
    if (!params) params = cJSON_AddObjectToObject(rt, "params");
    if (!cJSON_GetObjectItemCaseSensitive(params, p[i].name)) cJSON_AddStringToObject(params, p[i].name, p[i].value);
  }
  pg_route_params_free(p, np);
}

/* The state's files: DIR/states/<id>.json (its PageGraph, path relative to
 * DIR into rel; what the graph did not redact itself but an earlier capture
 * did -- the run's secret list -- redacted too) and, with screenshots,
 * DIR/screenshots/<id>.png (into shot_rel, "" when there is none): masked
 * (crawl_page_screenshot), or not written at all, with a note that says why. */
static void state_files(run *r, const state *s, char *rel, size_t rellen, char *shot_rel, size_t shotlen) {
  char path[4400];
  snprintf(rel, rellen, "states/%s.json", s->id);
  snprintf(path, sizeof path, "%s/%s", r->dir, rel);
  const cJSON *gj = crawl__run_graph_json(r, r->g);
  cJSON *copy = gj ? cJSON_Duplicate(gj, 1) : NULL;
  learned_route(r, s, copy);
  crawl__secrets_scrub_json(r->secrets, copy);
  char *text = copy ? cJSON_PrintUnformatted(copy) : NULL; /* NULL: no graph JSON */
  cJSON_Delete(copy);
  int e = text ? crawl__file_write(path, text, strlen(text)) : ENOMEM;
  if (e) crawl__run_jl_note(r, "could not write %s: %s", rel, strerror(e));
  free(text);
  shot_rel[0] = 0;
  if (!r->o->screenshots) return;
  unsigned char *png = NULL;
  size_t len = 0;
  pg_options go = crawl__run_graph_opts(r);
  crawl_code rc = crawl_page_screenshot(r->page, r->g, &go, &png, &len);
  if (rc == CRAWL_OK) {
    snprintf(shot_rel, shotlen, "screenshots/%s.png", s->id);
    snprintf(path, sizeof path, "%s/%s", r->dir, shot_rel);
    if ((e = crawl__file_write(path, (const char *)png, len)) != 0) {
      crawl__run_jl_note(r, "could not write %s: %s", shot_rel, strerror(e));
      shot_rel[0] = 0;
    }
  } else {
    crawl__run_jl_note(r, "no screenshot of %s: %s", s->id, crawl_page_errmsg(r->page));
    crawl__run_note_error(r, rc);
  }
  free(png);
}

/* The journal's "state" record for state s (the current capture), reached
 * by via (NULL for a seed's). */
static cJSON *state_record(run *r, const state *s, const action *via, const char *route, const char *rel,
                           const char *shot_rel) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "stateId", s->id);
  cJSON_AddStringToObject(o, "fingerprint", s->fp);
  cJSON_AddStringToObject(o, "contentFingerprint", s->cfp);
  cJSON_AddStringToObject(o, "routeId", s->route_id ? s->route_id : "");
  if (route && (!s->route_id || strcmp(route, s->route_id))) cJSON_AddStringToObject(o, "routeKey", route);
  if (s->url) cJSON_AddStringToObject(o, "url", s->url);
  if (s->title) cJSON_AddStringToObject(o, "title", s->title);
  cJSON_AddNumberToObject(o, "depth", s->depth);
  cJSON_AddNumberToObject(o, "seed", s->seed);
  if (s->parent >= 0) cJSON_AddStringToObject(o, "parentStateId", r->f.st[s->parent].id);
  if (via) {
    cJSON *v = cJSON_AddObjectToObject(o, "via");
    cJSON_AddStringToObject(v, "actionId", via->action_id);
    cJSON_AddItemToObject(v, "target", crawl__run_target_json(via));
    crawl__run_add_args(v, via);
    cJSON_AddBoolToObject(v, "escape", via->escape);
  }
  if (r->pri >= 0) cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "metadata"), "principal", r->o->principals[r->pri].id);
  cJSON_AddStringToObject(o, "pageGraphRef", rel);
  if (shot_rel[0]) cJSON_AddStringToObject(o, "screenshotRef", shot_rel);
  cJSON *scopes = cJSON_AddArrayToObject(o, "scopeIds");
  cJSON *modal = cJSON_AddArrayToObject(o, "modalStack");
  for (size_t k = 0; k < r->g->nscopes; k++) {
    const pg_scope *sc = &r->g->scopes[k];
    cJSON_AddItemToArray(scopes, cJSON_CreateString(sc->scope_id));
    if ((sc->kind == PG_SCOPE_DIALOG || sc->kind == PG_SCOPE_DRAWER || sc->kind == PG_SCOPE_POPOVER) &&
        pg_state_is(&sc->state, PG_ST_OPEN))
      cJSON_AddItemToArray(modal, cJSON_CreateString(sc->scope_id));
  }
  return o;
}

/* The record o (consumed) as the journal's "state" line; with a shared
 * frontier, also as JSON text for it (*shared, redacted as the journal
 * line is; caller frees). */
static void state_line(run *r, cJSON *o, char **shared) {
  if (shared) {
    cJSON *copy = cJSON_Duplicate(o, 1);
    crawl__secrets_scrub_json(r->secrets, copy);
    *shared = cJSON_PrintUnformatted(copy);
    cJSON_Delete(copy);
  }
  crawl__run_jl_write(r, "state", o);
  crawl__journal_sync(r->jl);
}


/* Register the current capture as a new state: the table, its files, its
 * journal line (and the shared frontier's record). Returns its index, or
 * -1 when a budget refuses it. */
/* What the write guard failed while the page of new state si loaded (before
 * any action), as a coverage_gap review item on its route, once per
 * request: a page whose own load wants a write, or a POST the guard cannot
 * read, may look emptier than it is (docs/safety.md "Reads over POST"). */
static void review_load_writes(run *r, int si) {
  const char *last = NULL;
  int n = r->page ? crawl_page_load_blocked(r->page, &last) : 0;
  if (n <= r->load_blocked_seen || !last) return;
  r->load_blocked_seen = n;
  if (crawl__strmap_get(&r->load_writes, last) >= 0) return;
  crawl__strmap_put(&r->load_writes, last, si);
  char *text = crawl_page_load_writes_text(r->page);
  if (!text) return;
  text[0] = 'T'; /* a sentence */
  crawl__run_jl_review(r, "coverage_gap", "medium", si, NULL,
                       "A page that writes as it loads cannot be explored read-only. A request that only "
                       "reads can be allowed with --allow-read or the plan's environment.metadata.allowRead "
                       "(never a GraphQL mutation).",
                       "%s.", text);
  free(text);
}

int crawl__run_add_state(run *r, int parent, const action *via, int seed, const char *route) {
  int known = r->sh ? crawl__run_shared_known(r, route) : -1; /* another worker found it first */
  if (known >= 0) return known;
  char *route_id = crawl__run_route_id_of(r, route);
  if (state_refused(r, route_id)) {
    free(route_id);
    return -1;
  }
  state *s = crawl__run_state_slot(r);
  memcpy(s->fp, r->cur_fp, sizeof s->fp);
  memcpy(s->cfp, r->cur_cfp, sizeof s->cfp);
  char id[40];
  snprintf(id, sizeof id, "s_%.16s", s->fp);
  for (int k = 0; k < r->f.nst; k++) /* a 64-bit prefix collision: lengthen */
    if (!strcmp(r->f.st[k].id, id)) snprintf(id, sizeof id, "s_%.32s", s->fp);
  s->id = crawl__xstrdup(id);
  s->url = crawl__xstrdup(r->g->route_url);
  s->route = crawl__xstrdup(route);
  s->route_id = route_id;
  s->title = crawl__xstrdup(r->g->route_title);
  s->parent = parent;
  fr_action_copy(&s->via, via);
  s->depth = parent >= 0 ? r->f.st[parent].depth + 1 : 0;
  s->seed = seed;
  s->principal = r->pri < 0 ? 0 : r->pri;
  s->addressable = parent < 0 ? 1 : -1;
  int idx = r->f.nst++;
  fr_index_state(&r->f, idx);
  char rel[200], shot_rel[200], *shared = NULL;
  state_files(r, s, rel, sizeof rel, shot_rel, sizeof shot_rel);
  state_line(r, with_ax(r, s, state_record(r, s, via, route, rel, shot_rel)), r->sh ? &shared : NULL);
  if (shared) crawl__run_shared_add(r, idx, shared);
  free(shared);
  review_load_writes(r, idx);
  crawl__run_baseline_state(r, idx); /* --baseline: unchanged, changed or new */
  return idx;
}

/* A state the table has from the shared frontier, not from this worker's
 * own capture: once the page shows it, its files and journal line, so each
 * worker's journal names every state it worked in. */
void crawl__run_journal_mirrored(run *r, int si) {
  state *s = &r->f.st[si];
  if (!s->mirrored || !r->g) return;
  s->mirrored = 0;
  char rel[200], shot_rel[200];
  state_files(r, s, rel, sizeof rel, shot_rel, sizeof shot_rel);
  state_line(r, with_ax(r, s, state_record(r, s, s->parent >= 0 ? &s->via : NULL, s->route, rel, shot_rel)), NULL);
}

/* explore_observe.c -- observing the page: settle, capture, fingerprint
 * (per principal, folding a hash-routed default route into its seed's
 * state), the signals between two captures, and the run's one path for
 * performing an action or loading a URL (act.c behind the gate). */
#include "explore_int.h"
#include "seal.h"

#include <strings.h>

/* ---- observing the page ----------------------------------------------------------------- */
/* Settle, capture, fingerprint. Returns the state index of the capture, or -1
 * when unknown; *rc gets the error. */
/* A visible progress bar in g that `before` did not have: the page is still
 * loading what the action asked for (a busy indicator that was there all
 * along is background noise). */
static int new_busy(const pg_graph *g, const pg_graph *before) {
  for (size_t i = 0; i < g->nelements; i++) {
    const pg_element *e = &g->elements[i];
    if (strcmp(e->role, "progressbar") || !pg_state_is(&e->state, PG_ST_VISIBLE)) continue;
    int seen = 0;
    for (size_t j = 0; before && j < before->nelements && !seen; j++)
      seen = before->elements[j].backend_node_id == e->backend_node_id &&
             pg_state_is(&before->elements[j].state, PG_ST_VISIBLE);
    if (!seen) return 1;
  }
  return 0;
}

/* The recipe that tells the app's sign-in page: the principal's, else the
 * first any principal has. */
const crawl_login *crawl__run_signin_recipe(const run *r) {
  if (r->pri >= 0 && r->o->principals[r->pri].login) return r->o->principals[r->pri].login;
  for (size_t k = 0; k < r->o->nprincipals; k++)
    if (r->o->principals[k].login) return r->o->principals[k].login;
  return NULL;
}

/* A visible password field: a sign-in form when no recipe says what the
 * app's looks like. */
static int password_shown(const pg_graph *g) {
  for (size_t i = 0; g && i < g->nelements; i++) {
    const pg_element *e = &g->elements[i];
    if (e->input_type && !strcasecmp(e->input_type, "password") && pg_state_is(&e->state, PG_ST_VISIBLE)) return 1;
  }
  return 0;
}

/* url up to its query and fragment, into buf. */
static void url_path(const char *url, char *buf, size_t n) {
  snprintf(buf, n, "%.*s", (int)strcspn(url ? url : "", "?#"), url ? url : "");
}

/* What applied a session to the tab (a storage state, cookies or a header,
 * not a recipe: a recipe checks where it landed itself), for a line; NULL:
 * no session was applied. */
static const char *session_source(const run *r) {
  if (r->pri >= 0) {
    const crawl_principal *pr = &r->o->principals[r->pri];
    return !pr->login && crawl_session_any(&pr->session) ? "its storageState" : NULL;
  }
  return crawl_session_any(r->o->session) ? "--storage-state, --cookies or --header" : NULL;
}

/* The first capture after a session was applied (issue 27): when it is a
 * sign-in page -- the main document said 401 or 419, a recipe's form, or a
 * visible password field -- the session has expired or was not accepted
 * (a session cookie bound to another browser's User-Agent). That is said
 * once, in one line on stderr, a journal note and a review item, and the
 * page (by its URL path) is never a state of the run. 1: g is that page. */
static int session_rejected(run *r, const pg_graph *g) {
  const char *src = r->session_checked ? NULL : session_source(r);
  r->session_checked = 1;
  int st = crawl_page_status(r->page);
  if (src && (st == 401 || st == 419 || crawl__login_page(crawl__run_signin_recipe(r), g->route_url, g) ||
              password_shown(g))) {
    url_path(g->route_url, r->signin_path, sizeof r->signin_path);
    const char *who = r->pri >= 0 ? r->o->principals[r->pri].id : NULL;
    crawl_log(CRAWL_LOG_WARN, "session", "the session%s%s (%s) was applied, but the first page is a sign-in page "
              "(%.200s): it has expired or was not accepted (bound to another browser or User-Agent?); the sign-in "
              "page is not crawled", who ? " of principal " : "", who ? who : "", src, r->signin_path);
    crawl__run_jl_note(r, "the session%s%s was not accepted: the first page was the sign-in page %s", who ? " of " : "",
                       who ? who : "", r->signin_path);
    crawl__run_jl_review(r, "coverage_gap", "high", -1, NULL,
              "Sign in again (uiap-crawl login --save-state) with the User-Agent the crawl presents, or give a login "
              "recipe (docs/principals.md).",
              "The session%s%s (%s) was applied, but the first page was the sign-in page %s: it has expired or was "
              "not accepted. The sign-in page was not crawled.", who ? " of principal " : "", who ? who : "", src,
              r->signin_path);
    if (!r->seed_err[0])
      snprintf(r->seed_err, sizeof r->seed_err, "the session was not accepted: the page is the sign-in page %.300s",
               r->signin_path);
  }
  char here[512];
  url_path(g->route_url, here, sizeof here);
  return r->signin_path[0] && !strcmp(here, r->signin_path);
}

/* Signed out: the main document said 401 or 419, or g is the sign-in page. */
static int signed_out(const run *r, const pg_graph *g) {
  if (r->pri < 0) return 0;
  int st = crawl_page_status(r->page);
  return st == 401 || st == 419 || crawl__login_page(crawl__run_signin_recipe(r), g->route_url, g);
}

/* States are the principal's: the same page seen by two principals is two
 * states (fp: 32 hex digits, rewritten in place). */
static void principal_salt(const run *r, char *fp) {
  if (r->pri < 0) return;
  char *a = crawl__xprintf("%s\n%s", r->o->principals[r->pri].id, fp), *b = crawl__xprintf("%s\n%s", fp, a);
  snprintf(fp, 33, "%016llx%016llx", (unsigned long long)crawl__hash(a), (unsigned long long)crawl__hash(b));
  free(a);
  free(b);
}

/* A hash-routed app shows its default route at "page.html" and at
 * "page.html#/home": the same UI (content fingerprint) under route keys a
 * and b, one with a route fragment and one without, is one state. Only a
 * fixed route can be the default one: a fragment that takes parameters
 * (#/page/2, #/item/42) is one page of its template, a route of its own
 * even when its page looks like the seed's (issue 25; docs/decisions.md). */
static int default_route_alias(const char *a, const char *b) {
  if (!a || !b) return 0;
  size_t la = strcspn(a, "#"), lb = strcspn(b, "#");
  if (la != lb || strncmp(a, b, la) || (a[la] && b[lb])) return 0;
  const char *frag = a[la] ? a + la : b + lb;
  pg_route_param *params = NULL;
  size_t nparams = 0;
  free(pg_route_template(frag, &params, &nparams));
  pg_route_params_free(params, nparams);
  return nparams == 0;
}

#define BUSY_ROUNDS 8
int crawl__run_observe(run *r, crawl_code *rc, char **route) {
  pg_graph *prev = r->g;   /* ours to free once the new capture is in */
  const pg_graph *before = prev ? prev : r->before; /* the step's, alive until we return */
  r->before = NULL;
  r->g = NULL;
  pg_options go = crawl__run_graph_opts(r);
  char *rk = NULL;
  /* Settle, capture, fingerprint. A capture that would be a new state while
   * a busy indicator the action brought up is showing is looked at again
   * after settling (a bounded number of rounds): a loading screen is not a
   * state. Known states cost nothing extra. */
  for (int round = 0; round < BUSY_ROUNDS; round++) {
    pg_graph *g = NULL;
    long long t0 = cdp_now_ms();
    *rc = crawl_page_settle(r->page);
    long long t1 = cdp_now_ms();
    if (!*rc) *rc = crawl_page_capture(r->page, &go, &g);
    if (!r->in_restore) {
      crawl__timing_add(&r->tm, CRAWL_PH_SETTLE, t1 - t0);
      crawl__timing_add(&r->tm, CRAWL_PH_CAPTURE, cdp_now_ms() - t1);
    }
    if (!*rc && (r->signed_out = signed_out(r, g)) != 0) *rc = CRAWL_NAVIGATE; /* not a state of the principal */
    if (!*rc && session_rejected(r, g)) {
      *rc = CRAWL_NAVIGATE; /* the session's sign-in page: no state of the run */
      r->signed_out = r->pri >= 0; /* a principal stops (it has no recipe); without one, no seed lands here */
    }
    if (*rc) {
      pg_graph_free(g);
      if (!r->g) r->g = prev; /* keep a graph around, as before the call */
      else pg_graph_free(prev);
      free(rk);
      return -1;
    }
    pg_graph_free(r->g); /* an earlier round's capture */
    r->g = g;
    r->g_docs = crawl__page_documents(r->page);
    free(rk);
    rk = NULL;
    pg_fp_policy fp = r->o->fp;
    fp.base_origin = r->page_origin;
    long long t2 = cdp_now_ms();
    rk = pg_route_key_rel(g->route_url, r->page_origin);
    long canon = rk ? crawl__strmap_get(&r->route_alias, rk) : -1;
    if (canon >= 0) { /* this URL shows a seed's route: fingerprinted and named as that route */
      free(rk);
      rk = crawl__xstrdup(r->f.st[canon].route);
    }
    char *fpr = crawl__run_fp_route(r, g, rk); /* its template, learned ones included */
    fp.route_key = fpr;
    pg_fingerprint(g, &fp, r->cur_fp, NULL);
    fp.route_key = NULL;
    free(fpr);
    fp.ignore_route = 1;
    pg_fingerprint(g, &fp, r->cur_cfp, NULL);
    if (!r->in_restore) crawl__timing_add(&r->tm, CRAWL_PH_FINGERPRINT, cdp_now_ms() - t2);
    principal_salt(r, r->cur_fp);
    principal_salt(r, r->cur_cfp);
    r->cur = crawl__run_find_state(r, r->cur_fp);
    if (r->cur < 0) {
      for (int i = 0; i < r->f.nst && r->cur < 0; i++)
        if (!strcmp(r->f.st[i].cfp, r->cur_cfp) && default_route_alias(r->f.st[i].route, rk)) r->cur = i;
      if (r->cur >= 0) {
        memcpy(r->cur_fp, r->f.st[r->cur].fp, sizeof r->cur_fp);
        /* this URL shows that route: from now on fingerprinted as it (any
         * state without a fragment proves it, not only the seed's: a worker
         * that first lands on "#/r0" with a panel open must not register
         * the states it opens from there under "#/r0") */
        if (r->f.st[r->cur].depth == 0 || !strchr(r->f.st[r->cur].route, '#'))
          crawl__strmap_put(&r->route_alias, rk, r->cur);
      } else if ((r->cur = crawl__run_template_fold(r, rk)) >= 0) {
        memcpy(r->cur_fp, r->f.st[r->cur].fp, sizeof r->cur_fp);
      }
    }
    if (r->cur >= 0 || !new_busy(g, before)) break;
  }
  pg_graph_free(prev);
  if (route) *route = rk;
  else free(rk);
  return r->cur;
}

/* Observed signals of a transition (SuccessSignal), from the graphs before
 * and after: route, dialog and validation changes come from the machinery
 * observe publishes with (pg_delta_signals); a status or alert element that
 * appeared with text is a toast (observe sees those as live-region events);
 * on the same route, collection counts and elements that appeared or went
 * (pg_change_signals). */
/* Each signal's scope by what names it beyond this capture, as member
 * "scopeIdentity" {kind, name, stableId}: scope ids are one capture's, so the
 * package maps the key to its scope catalog (package_aggregate.c), which
 * two crawls of one app then name alike (docs/nightly.md). A signal of
 * something gone names a scope of the capture before (a), else of the
 * capture after (b). */
static void signal_scope_keys(cJSON *sigs, const pg_graph *a, const pg_graph *b) {
  cJSON *s;
  cJSON_ArrayForEach(s, sigs) {
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "scopeId"));
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "kind"));
    if (!id || !kind) continue;
    const pg_graph *g = !strcmp(kind, "dialog.closed") || !strcmp(kind, "element.disappeared") ? a : b;
    for (size_t k = 0; k < g->nscopes; k++) {
      const pg_scope *sc = &g->scopes[k];
      if (!sc->scope_id || strcmp(sc->scope_id, id)) continue;
      cJSON *key = cJSON_AddObjectToObject(s, "scopeIdentity");
      cJSON_AddStringToObject(key, "kind", pg_scope_kind_name(sc->kind));
      if (sc->name) cJSON_AddStringToObject(key, "name", sc->name);
      if (sc->stable_id) cJSON_AddStringToObject(key, "stableId", sc->stable_id);
      break;
    }
  }
}

cJSON *crawl__run_signals_between(run *r, const pg_graph *a, const char *route_a, const pg_graph *b, const char *route_b) {
  cJSON *arr = cJSON_CreateArray(), *ws = cJSON_CreateArray();
  unsigned long seq = 0;
  const cJSON *ja = crawl__run_graph_json(r, a), *jb = crawl__run_graph_json(r, b); /* b takes the other slot: ja stays */
  pg_delta_signals(ja, jb, "sig_", &seq, ws);
  const cJSON *w;
  int routed = 0;
  cJSON_ArrayForEach(w, ws) {
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(w, "kind"));
    if (!kind) continue;
    if (!strcmp(kind, "route.changed")) {
      /* the crawler's route is its route key (query normalised), not the raw URL */
      if (!route_a || !route_b || !strcmp(route_a, route_b) || routed++) continue;
      cJSON *sg = cJSON_CreateObject();
      cJSON_AddStringToObject(sg, "kind", "route.changed");
      cJSON_AddStringToObject(sg, "pattern", route_b);
      cJSON_AddItemToArray(arr, sg);
    } else if (!strcmp(kind, "dialog.opened") || !strcmp(kind, "dialog.closed") || !strcmp(kind, "validation.changed")) {
      cJSON *sg = cJSON_CreateObject();
      cJSON_AddStringToObject(sg, "kind", kind);
      const char *scope = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(w, "scopeId"));
      if (scope) cJSON_AddStringToObject(sg, "scopeId", scope);
      cJSON_AddItemToArray(arr, sg);
    }
  }
  cJSON_Delete(ws);
  /* a status or alert element that appeared with text: a toast */
  for (size_t k = 0; k < b->nelements; k++) {
    const pg_element *e = &b->elements[k];
    if (!e->name || !*e->name || (strcmp(e->role, "status") && strcmp(e->role, "alert"))) continue;
    int before = 0;
    for (size_t j = 0; j < a->nelements; j++)
      if (a->elements[j].name && !strcmp(a->elements[j].name, e->name) && !strcmp(a->elements[j].role, e->role)) before = 1;
    if (!before) {
      cJSON *s = cJSON_CreateObject();
      cJSON_AddStringToObject(s, "kind", "toast.contains");
      cJSON_AddStringToObject(s, "text", e->name);
      cJSON_AddItemToArray(arr, s);
      break;
    }
  }
  if (route_a && route_b && !strcmp(route_a, route_b)) pg_change_signals(ja, jb, arr);
  signal_scope_keys(arr, a, b);
  return arr;
}

/* Perform action a on the current page (act.c: found again and decided
 * again there; *refused, may be NULL, says why nothing was done). An
 * ambiguous target is a review item of the state the page is in; a refusal
 * is logged (the caller records the failure). */
crawl_code crawl__run_perform_(run *r, const action *a, act_refusal *refused, char *why, size_t whylen) {
  act_gate gate = {.policy = &r->o->policy, .page_origin = r->page_origin, .allowed = (const char *const *)r->allowed,
                   .sealed = crawl__page_sealed(r->page)}; /* a probe (explore_probe.c) */
  act_refusal ignored;
  if (!refused) refused = &ignored;
  crawl_code rc = crawl__act_perform(r->page, r->g, &gate, a, NULL, refused, why, whylen);
  if (*refused == ACT_AMBIGUOUS)
    crawl__run_jl_review(r, "ambiguous_target", "medium", r->cur, a,
              "Make every data-uiap-id unique within a page (add the row or item key to repeated controls).", "%s",
              why);
  else if (*refused == ACT_REFUSED)
    crawl_log(CRAWL_LOG_WARN, "gate", "%s %s \"%s\": %s", a->action_id, a->role, a->name ? a->name : "", why);
  return rc;
}

crawl_code crawl__run_perform(run *r, const action *a, char *why, size_t whylen) {
  return crawl__run_perform_(r, a, NULL, why, whylen);
}

/* Load url (a state's, a route to probe) through the one path for
 * navigations (crawl__act_navigate): inside the run's scope (its origins
 * and the seeds'), never a URL that reads as a logout or a deletion. A
 * refusal is logged; CRAWL_ARG with why. */
crawl_code crawl__run_navigate(run *r, const char *url, int same_document, char *why, size_t whylen) {
  act_gate gate = {.policy = &r->o->policy, .page_origin = r->page_origin, .allowed = (const char *const *)r->scope};
  act_refusal refused;
  crawl_code rc = crawl__act_navigate(r->page, &gate, url, same_document, &refused, why, whylen);
  if (refused == ACT_REFUSED) crawl_log(CRAWL_LOG_WARN, "gate", "%.300s: %s", url ? url : "", why);
  return rc;
}

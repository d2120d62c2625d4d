/* explore_principals.c -- exploring as each principal in turn
 * (docs/principals.md): a browser context of its own, signing in with its
 * recipe (again when signed out, bounded), the seeds and exploring; then
 * the access probe (explore_access.c). */
#include "explore_int.h"

#define RELOGINS_MAX 3

/* ---- the run: principals (docs/principals.md) ---------------------------------------------- */
/* The principal signs in with its recipe on the current tab (again: bounded
 * per principal). 0 when signed in. */
int crawl__run_sign_in(run *r, int again) {
  const crawl_principal *pr = &r->o->principals[r->pri];
  char why[512];
  r->signed_out = 0;
  r->cur = -1;
  pg_graph_free(r->g);
  r->g = NULL;
  if (again && r->relogins >= RELOGINS_MAX) {
    crawl__run_jl_note(r, "signed out as %s again; %d sign-ins already: stopped exploring as it", pr->id, RELOGINS_MAX);
    crawl__run_jl_review(r, "coverage_gap", "high", -1, NULL, "Check why the app ends this principal's sessions so often.",
              "The session of principal %s kept ending; exploring as it stopped after %d new sign-ins.", pr->id,
              RELOGINS_MAX);
    return -1;
  }
  r->relogins += again;
  crawl__run_net_mute(r, 1); /* a sign-in is no phase of the crawl (docs/api.md) */
  crawl_code rc = crawl__login_run(r->page, pr->login, &r->o->policy, (const char *const *)r->allowed, r->secrets, why,
                                   sizeof why);
  crawl__run_net_mute(r, 0);
  if (rc) {
    crawl__run_note_error(r, rc);
    crawl__run_jl_note(r, "signing in as %s failed: %s", pr->id, why);
    crawl__run_jl_review(r, "coverage_gap", "high", -1, NULL, "Check the principal's login recipe and its environment variables.",
              "Signing in as %s with its recipe failed: %s", pr->id, why);
    return -1;
  }
  if (again) crawl__run_jl_note(r, "signed out as %s; signed in again with its recipe (%d of %d)", pr->id, r->relogins, RELOGINS_MAX);
  else crawl__run_jl_note(r, "signed in as %s with its recipe", pr->id);
  return 0;
}

/* Signed out while exploring: sign in again, or stop this principal. */
int crawl__run_sign_in_again(run *r) {
  const crawl_principal *pr = &r->o->principals[r->pri];
  if (pr->login) return crawl__run_sign_in(r, 1);
  r->signed_out = 0;
  crawl__run_jl_note(r, "signed out as %s, which has no login recipe: stopped exploring as it", pr->id);
  crawl__run_jl_review(r, "coverage_gap", "high", -1, NULL,
            "Give the principal a login recipe (environment.metadata.principals.<id>.login) or a fresh session.",
            "The session of principal %s ended during the crawl; it has no login recipe, so exploring as it stopped.",
            pr->id);
  return -1;
}

/* A browser context of its own (its own cookie jar and storage), or NULL. */
static char *new_context(run *r) {
  cJSON *res = NULL;
  if (cdp_call(r->c, NULL, "Target.createBrowserContext", cJSON_CreateObject(), &res, 10000) != CDP_OK) return NULL;
  const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "browserContextId"));
  char *out = id ? crawl__xstrdup(id) : NULL;
  cJSON_Delete(res);
  return out;
}

void crawl__run_close_tab(run *r) {
  if (r->page) {
    r->dialogs += crawl_page_dialogs(r->page);
    r->popups += crawl_page_popups(r->page);
    r->reads_let += crawl_page_reads(r->page, NULL);
  }
  crawl_page_close(r->page);
  r->page = NULL;
  pg_graph_free(r->g);
  r->g = NULL;
  r->cur = -1;
}

/* Explore as principal k: a fresh context, its session or its recipe, the
 * seeds, exploring; the states of the principals before stay as they are. */
static void explore_as(run *r, int k, seed *seeds, int nseeds) {
  const crawl_principal *pr = &r->o->principals[k];
  for (int i = 0; i < r->f.nst; i++) r->f.st[i].dead = 1;
  r->pri = k;
  r->relogins = r->signed_out = r->session_checked = 0;
  r->signin_path[0] = 0;
  r->cur = -1;
  if (!(r->contexts[k] = new_context(r))) {
    crawl__run_jl_note(r, "no browser context for principal %s: %s", pr->id, cdp_client_errmsg(r->c));
    return;
  }
  crawl__session_secrets(&pr->session, r->secrets);
  crawl__login_secrets(pr->login, r->secrets);
  crawl__run_jl_note(r, "exploring as principal %s (%s)", pr->id, pr->login ? "login recipe" : "session");
  crawl__run_open_tab(r);
  if (r->fatal || (pr->login && crawl__run_sign_in(r, 0))) {
    crawl__run_close_tab(r);
    r->fatal = 0;
    return;
  }
  crawl__run_drive_url_seeds(r, seeds, nseeds);
  crawl__run_drive_control_seeds(r, seeds, nseeds);
  crawl__run_jl_status(r, "exploring");
  crawl__run_explore(r);
  crawl__run_close_tab(r);
}

/* Each principal in turn, then the access probe; the contexts go at the end. */
void crawl__run_explore_principals(run *r, seed *seeds, int nseeds) {
  crawl__run_jl_status(r, "seeding");
  for (size_t k = 0; k < r->o->nprincipals && k < CRAWL__PRINCIPALS_MAX && !r->cancelled && !r->guard_stop; k++)
    explore_as(r, (int)k, seeds, nseeds);
  if (!r->cancelled && !r->guard_stop) crawl__run_probe_access(r);
  for (size_t k = 0; k < CRAWL__PRINCIPALS_MAX; k++) {
    if (!r->contexts[k]) continue;
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "browserContextId", r->contexts[k]);
    cdp_call(r->c, NULL, "Target.disposeBrowserContext", a, NULL, 5000);
    free(r->contexts[k]);
    r->contexts[k] = NULL;
  }
}

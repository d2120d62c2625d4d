/* explore_journal.c -- what the run writes into its journal that is not a
 * state or a step: notes, status lines in the lifecycle's order, review
 * items, progress reports, the "run" record with its environment; and the
 * small helpers every part of the run uses (elapsed time, a graph's JSON,
 * a URL's origin). The journal file itself is crawl_journal.h's; state
 * records are explore_states.c's, transitions explore_step.c's; the
 * `requests` record of a phase (crawl__run_net_*: when a phase begins is
 * the caller's, the log itself netlog.c's). */
#include "explore_int.h"

#include <stdarg.h>
#include <time.h>
#include <unistd.h>

/* ---- small helpers ---------------------------------------------------------- */
/* An open dialog, or an open modal drawer (a dialog that slides in from an edge). */
int crawl__run_open_dialog(const pg_scope *sc) {
  return pg_state_is(&sc->state, PG_ST_OPEN) &&
         (sc->kind == PG_SCOPE_DIALOG || (sc->kind == PG_SCOPE_DRAWER && pg_state_is(&sc->state, PG_ST_MODAL)));
}

long crawl__run_elapsed(const run *r) { return (long)(cdp_now_ms() - r->t0); }

/* JSON of g, borrowed: it stays valid until another graph is asked for
 * after the next call (the slot not returned last is the one replaced). */
const cJSON *crawl__run_graph_json(run *r, const pg_graph *g) {
  for (int k = 0; k < 2; k++)
    if (r->gjc[k].revision && g->revision && !strcmp(r->gjc[k].revision, g->revision)) {
      r->gj_last = k;
      return r->gjc[k].json;
    }
  int k = !r->gj_last;
  free(r->gjc[k].revision);
  cJSON_Delete(r->gjc[k].json);
  r->gjc[k].revision = crawl__xstrdup(g->revision);
  r->gjc[k].json = pg_graph_to_json(g);
  r->gj_last = k;
  return r->gjc[k].json;
}

/* Empty graph_json's cache. */
void crawl__run_graph_json_drop(run *r) {
  for (int k = 0; k < 2; k++) {
    free(r->gjc[k].revision);
    cJSON_Delete(r->gjc[k].json);
    r->gjc[k].revision = NULL;
    r->gjc[k].json = NULL;
  }
}

/* origin of an absolute URL into buf ("" when it has none): pg_url.h */
void crawl__run_url_origin(const char *url, char *buf, size_t n) {
  if (!url || pg_url_origin(url, buf, n) < 0) buf[0] = 0;
}

/* ---- journal ------------------------------------------------------------------- */
/* One record (o consumed) into the journal; crawl_journal.h does the writing. */
void crawl__run_jl_write(run *r, const char *type, cJSON *o) { crawl__journal_write(r->jl, type, o); }

void crawl__run_jl_note(run *r, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "text", buf);
  crawl__run_jl_write(r, "note", o);
  crawl_log(CRAWL_LOG_INFO, "crawl", "%s", buf);
}

/* Tell the caller's progress callback, if any, where the run is. */
void crawl__run_report_progress(run *r, const char *status, const char *route) {
  if (!r->o->progress) return;
  char *shown = crawl__secrets_scrub(r->secrets, route, NULL); /* a URL's query may hold a secret */
  crawl_progress p = {.run_id = r->run_id, .status = status, .states = r->f.nst, .transitions = r->transitions,
                      .decisions = r->decisions, .elapsed_ms = crawl__run_elapsed(r), .route = shown};
  r->o->progress(r->o->progress_ud, &p);
  free(shown);
}

/* The run's lifecycle in the mapper's order (10.1, 10.2): plan, prepare the
 * environment, resolve the seeds, explore, then extract, synthesize
 * workflow candidates, review. "completed", "failed" and "cancelled" are
 * the end record's. */
static const char *const run_phases[] = {"planning", "preparing", "seeding", "exploring",
                                         "extracting", "synthesizing", "reviewing"};
#define RUN_NPHASES ((int)(sizeof run_phases / sizeof run_phases[0]))

/* The step the run is in, for progress reports between status lines. */
const char *crawl__run_phase(const run *r) { return run_phases[r->phase < 0 ? 0 : r->phase]; }

/* A status line when the run reaches step `status`; a step reached already
 * (the next principal seeding, exploring again) or passed is not repeated,
 * so the journal and the progress reports go in the lifecycle's order. */
void crawl__run_jl_status(run *r, const char *status) {
  int k = 0;
  while (k < RUN_NPHASES && strcmp(run_phases[k], status)) k++;
  if (k == RUN_NPHASES || k <= r->phase) return;
  r->phase = k;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "status", status);
  crawl__run_jl_write(r, "status", o);
  crawl__run_report_progress(r, status, NULL);
}

cJSON *crawl__run_target_json(const action *a) {
  cJSON *t = cJSON_CreateObject();
  if (a->stable_id) cJSON_AddStringToObject(t, "stableId", a->stable_id);
  cJSON_AddStringToObject(t, "role", a->role ? a->role : "");
  cJSON_AddStringToObject(t, "name", a->name ? a->name : "");
  if (a->scope_id) cJSON_AddStringToObject(t, "scopeId", a->scope_id);
  if (a->document_id) cJSON_AddStringToObject(t, "documentId", a->document_id);
  if (a->scope_key) cJSON_AddStringToObject(t, "scopeKey", a->scope_key);
  cJSON_AddNumberToObject(t, "ordinal", a->ordinal);
  return t;
}

/* The option a ui.choose picks, or the text a ui.enterText types, as the
 * transition's args. */
void crawl__run_add_args(cJSON *o, const action *a) {
  if (a->text) {
    crawl__act_text_args(cJSON_AddObjectToObject(o, "args"), a);
    return;
  }
  if (!a->option) return;
  cJSON *args = cJSON_AddObjectToObject(o, "args");
  cJSON_AddStringToObject(args, "option", a->option);
  cJSON_AddNumberToObject(args, "optionIndex", a->option_index);
  cJSON_AddNumberToObject(args, "fromIndex", a->option_from);
}

void crawl__run_jl_review(run *r, const char *kind, const char *severity, int state, const action *a,
                      const char *remediation, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "kind", kind);
  cJSON_AddStringToObject(o, "severity", severity);
  cJSON_AddStringToObject(o, "description", buf);
  if (state >= 0) {
    cJSON_AddStringToObject(o, "stateId", r->f.st[state].id);
    if (r->f.st[state].route_id) cJSON_AddStringToObject(o, "routeId", r->f.st[state].route_id);
  }
  if (a) {
    cJSON_AddStringToObject(o, "actionId", a->action_id);
    cJSON_AddItemToObject(o, "target", crawl__run_target_json(a));
  }
  if (remediation) cJSON_AddStringToObject(o, "remediation", remediation);
  crawl__run_jl_write(r, "review", o);
  r->reviews++;
}

/* The principals the run explores as (only those) and the authMode they
 * make: seeded when one signs in with a recipe, else session_reuse. */
static void env_principals(const crawl_opts *o, cJSON *e) {
  int seeded = 0;
  cJSON_DeleteItemFromObjectCaseSensitive(e, "principalProfiles");
  cJSON *pp = cJSON_AddArrayToObject(e, "principalProfiles");
  for (size_t k = 0; k < o->nprincipals; k++) {
    cJSON_AddItemToArray(pp, cJSON_Duplicate(o->principals[k].profile, 1));
    seeded |= o->principals[k].login != NULL;
  }
  cJSON_DeleteItemFromObjectCaseSensitive(e, "authMode");
  cJSON_AddStringToObject(e, "authMode", seeded ? "seeded" : "session_reuse");
}

/* With no principals the run still explores as someone (mapper 11.1): the
 * session it was handed (storage state, cookies, headers, a browser it
 * attached to), or nobody signed in. */
static void env_default_principal(const crawl_opts *o, cJSON *e) {
  int given = crawl_session_any(o->session) || o->session_reuse;
  cJSON *pp = cJSON_AddArrayToObject(e, "principalProfiles"), *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "id", given ? "session" : "anonymous");
  cJSON_AddStringToObject(p, "description", given ? "whoever the session handed to the crawler is signed in as"
                                                   : "nobody signed in: a fresh browser profile");
  cJSON_AddItemToArray(pp, p);
}

/* The UIAP profiles and extensions this run speaks (mapper 11.1); the app's
 * own annotations and bridges are read as the pages show them (their
 * evidence in the catalogs: annotation, app_registry). */
static void env_profiles(cJSON *e) {
  cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "metadata");
  if (!cJSON_IsObject(m)) {
    cJSON_DeleteItemFromObjectCaseSensitive(e, "metadata");
    m = cJSON_AddObjectToObject(e, "metadata");
  }
  cJSON_DeleteItemFromObjectCaseSensitive(m, "uiap");
  cJSON *u = cJSON_AddObjectToObject(m, "uiap");
  static const char *const profiles[] = {"web@0.1"};
  static const char *const extensions[] = {"uiap.discovery@0.1", "uiap.policy@0.1", "uiap.workflow@0.1"};
  cJSON_AddItemToObject(u, "profiles", cJSON_CreateStringArray(profiles, 1));
  cJSON_AddItemToObject(u, "extensions", cJSON_CreateStringArray(extensions, 3));
  static const char *const annotations[] = {"data-uiap-id", "data-uiap-scope", "data-uiap-meaning", "data-uiap-action",
                                            "data-uiap-risk", "data-uiap-sensitive", "data-uiap-route", "data-uiap-role"};
  cJSON_AddItemToObject(u, "annotationsRead", cJSON_CreateStringArray(annotations, 8));
}

/* The run record's environment (caller owns): the plan's, with defaults for
 * its id, base URL and locale, and this run's viewport, budgets and safety. */
static cJSON *run_environment(const run *r, const cJSON *env, const char *base) {
  const crawl_opts *o = r->o;
  cJSON *e = env ? cJSON_Duplicate(env, 1) : cJSON_CreateObject();
  if (!cJSON_GetObjectItemCaseSensitive(e, "environmentId")) cJSON_AddStringToObject(e, "environmentId", "default");
  if (!cJSON_GetObjectItemCaseSensitive(e, "baseUrl")) cJSON_AddStringToObject(e, "baseUrl", base ? base : "");
  if (o->locale && !cJSON_GetObjectItemCaseSensitive(e, "locale")) cJSON_AddStringToObject(e, "locale", o->locale);
  if (crawl_session_any(o->session) || o->session_reuse) { /* signed in with what it was given */
    cJSON_DeleteItemFromObjectCaseSensitive(e, "authMode");
    cJSON_AddStringToObject(e, "authMode", "session_reuse");
  }
  if (o->nprincipals) env_principals(o, e);
  else if (!cJSON_GetObjectItemCaseSensitive(e, "principalProfiles")) env_default_principal(o, e);
  env_profiles(e);
  cJSON_DeleteItemFromObjectCaseSensitive(e, "viewport");
  cJSON *vp = cJSON_AddObjectToObject(e, "viewport");
  cJSON_AddNumberToObject(vp, "width", o->width ? o->width : 1280);
  cJSON_AddNumberToObject(vp, "height", o->height ? o->height : 800);
  cJSON_DeleteItemFromObjectCaseSensitive(e, "budgets");
  cJSON *bj = cJSON_AddObjectToObject(e, "budgets");
  cJSON_AddNumberToObject(bj, "maxStates", (double)r->b.max_states);
  cJSON_AddNumberToObject(bj, "maxTransitions", (double)r->b.max_transitions);
  cJSON_AddNumberToObject(bj, "maxDepth", (double)r->b.max_depth);
  cJSON_AddNumberToObject(bj, "maxRuntimeMs", (double)r->b.max_runtime_ms);
  if (r->b.max_per_route > 0) cJSON_AddNumberToObject(bj, "maxPerRoute", (double)r->b.max_per_route);
  cJSON_DeleteItemFromObjectCaseSensitive(e, "safety");
  cJSON *sf = cJSON_AddObjectToObject(e, "safety");
  cJSON_AddStringToObject(sf, "defaultMode", pol_mode_name(o->policy.mode));
  cJSON_AddBoolToObject(sf, "allowExternalEffects", o->policy.allow_external_effects);
  cJSON_AddBoolToObject(sf, "allowDestructiveActions", o->policy.allow_destructive_actions);
  cJSON_AddBoolToObject(sf, "allowAuthFlows", o->policy.allow_auth_flows);
  cJSON_AddBoolToObject(sf, "allowPaymentFlows", o->policy.allow_payment_flows);
  return e;
}

/* The journal's "run" line (a new run id), or on a resumed run a note. */
void crawl__run_journal_run(run *r, const cJSON *env, const char *base, const seed *seeds, int nseeds, int resumed) {
  if (resumed) {
    crawl__run_jl_note(r, "resumed after an interruption: %d states, %ld transitions already recorded", r->f.nst, r->transitions);
    return;
  }
  if (r->o->run_id) snprintf(r->run_id, sizeof r->run_id, "%s", r->o->run_id);
  else snprintf(r->run_id, sizeof r->run_id, "run_%lld_%d", (long long)time(NULL), (int)getpid());
  char ts[64];
  cJSON *rl = cJSON_CreateObject();
  cJSON_AddStringToObject(rl, "runId", r->run_id);
  cJSON_AddStringToObject(rl, "startedAt", crawl__time_iso(ts, sizeof ts));
  cJSON_AddNumberToObject(rl, "journalVersion", 1);
  cJSON_AddStringToObject(rl, "tool", "uiap-crawl");
  cJSON *renv = run_environment(r, env, base);
  cJSON_AddItemToObject(rl, "environment", renv);
  if (r->allowed[1]) { /* --allow-origin: in the run's scope (merge checks states against it) */
    cJSON *md = cJSON_GetObjectItemCaseSensitive(renv, "metadata");
    if (!md) md = cJSON_AddObjectToObject(renv, "metadata");
    cJSON *ao = cJSON_IsObject(md) ? cJSON_AddArrayToObject(md, "allowedOrigins") : NULL;
    for (int i = 1; ao && r->allowed[i]; i++) cJSON_AddItemToArray(ao, cJSON_CreateString(r->allowed[i]));
  }
  cJSON *sa = cJSON_AddArrayToObject(rl, "seeds");
  for (int i = 0; i < nseeds; i++) cJSON_AddItemToArray(sa, cJSON_Duplicate(seeds[i].json, 1));
  crawl__run_jl_write(r, "run", rl);
}

/* ---- the requests of a phase (netlog.c; docs/api.md "Recording requests") ---------------- */
/* A load or an action begins: the tab's requests from now on are its own. */
void crawl__run_net_begin(run *r, const char *phase) {
  crawl__netlog_begin(crawl__page_netlog(r->page), phase, cdp_now_ms());
}

/* A restore or a replay (off 1): what it loads was recorded the first time. */
void crawl__run_net_mute(run *r, int off) { crawl__netlog_mute(crawl__page_netlog(r->page), off); }

/* 1 while a phase begun by crawl__run_net_begin has no record yet. */
int crawl__run_net_active(run *r) { return crawl__netlog_phase(crawl__page_netlog(r->page)) != NULL; }

/* The phase's `requests` record (after the record it belongs to); the
 * principal exploring is added to ctx. */
void crawl__run_net_write(run *r, crawl__netlog_ctx *ctx) {
  crawl__netlog *nl = crawl__page_netlog(r->page);
  if (!nl) return;
  if (r->pri >= 0 && (size_t)r->pri < r->o->nprincipals) ctx->principal = r->o->principals[r->pri].id;
  crawl__run_jl_write(r, "requests", crawl__netlog_record(nl, ctx, cdp_now_ms()));
}

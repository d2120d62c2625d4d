/* listen_discovery.c -- the discovery extension in a session: a plan is
 * checked (crawl_plan_parse) and its seeds sorted into accepted and
 * rejected ones with reasons; start runs crawl_run in a thread with a
 * browser of its own, writing RUNS_DIR/<runId>/; progress events come from
 * its progress callback; pause holds the run (its browser and frontier)
 * before its next step, resume lets it go on, cancel stops it with a
 * "cancelled" package; the package is sent as the result event when the
 * run ends and again on package.get. */
#include "listen_int.h"
#include "crawl_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Runs going in this process: one at a time (crawl_run keeps the run's
 * secret list in the process-wide log sink, and two browsers exploring on
 * two shared cores only slow each other down). */
static int runs_active;

/* Why seed sd cannot be used (NULL: it can). base: environment.baseUrl.
 * The kinds and what a session does with each: seeds.c's table. */
static const char *seed_problem(const cJSON *sd, const char *base, char *buf, size_t len) {
  crawl_seed_check c = {.user = CRAWL_SEEDS_LISTEN, .base = base};
  return crawl_seed_problem(sd, &c, buf, len);
}

/* The plan's seeds split: the accepted ones stay in plan (it is what runs),
 * the rejected ones go into rejected [{seed, reason}]. */
static void seeds_sort(cJSON *plan, cJSON *accepted, cJSON *rejected) {
  cJSON *pl = cJSON_GetObjectItemCaseSensitive(plan, "payload");
  if (!pl) pl = plan;
  const char *base = cJSON_GetStringValue(
    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pl, "environment"), "baseUrl"));
  cJSON *seeds = cJSON_GetObjectItemCaseSensitive(pl, "seeds");
  cJSON *keep = crawl__jx(cJSON_CreateArray()), *sd;
  char why[800];
  cJSON_ArrayForEach(sd, seeds) {
    const char *reason = seed_problem(sd, base, why, sizeof why);
    if (!reason) {
      cJSON_AddItemToArray(keep, crawl__jx(cJSON_Duplicate(sd, 1)));
      cJSON_AddItemToArray(accepted, crawl__jx(cJSON_Duplicate(sd, 1)));
      continue;
    }
    cJSON *r = crawl__jx(cJSON_CreateObject());
    cJSON_AddItemToObject(r, "seed", crawl__jx(cJSON_Duplicate(sd, 1)));
    crawl__jstr(r, "reason", reason);
    cJSON_AddItemToArray(rejected, r);
  }
  if (seeds) cJSON_ReplaceItemInObjectCaseSensitive(pl, "seeds", keep);
  else cJSON_Delete(keep);
}

void lsn__disc_plan(lsn_session *s, const char *req, const cJSON *payload) {
  static unsigned long counter;
  if (s->nruns >= LSN_MAX_RUNS) {
    lsn__error(s, req, "limit", "a session holds at most %d runs", LSN_MAX_RUNS);
    return;
  }
  lsn_run *r = crawl__xcalloc(1, sizeof *r);
  char *text = cJSON_PrintUnformatted(payload);
  crawl_plan_error perr = {0};
  crawl_code rc = crawl_plan_parse(text, 0, &r->budget, &r->policy, &r->plan, &perr);
  free(text);
  if (rc) {
    lsn__error(s, req, "bad_plan", "%s", perr.msg);
    free(r);
    return;
  }
  r->s = s;
  snprintf(r->id, sizeof r->id, "run_%lu_%s", __atomic_add_fetch(&counter, 1, __ATOMIC_SEQ_CST), s->id + 4);
  snprintf(r->dir, sizeof r->dir, "%s/%s", s->runs_dir, r->id);
  cJSON *p = crawl__jx(cJSON_CreateObject());
  crawl__jstr(p, "runId", r->id);
  cJSON *acc = crawl__jx(cJSON_CreateArray()), *rej = crawl__jx(cJSON_CreateArray());
  seeds_sort(r->plan, acc, rej);
  cJSON_AddNumberToObject(p, "estimatedSeedCount", cJSON_GetArraySize(acc) ? cJSON_GetArraySize(acc) : 1);
  cJSON_AddItemToObject(p, "acceptedSeeds", acc);
  cJSON_AddItemToObject(p, "rejectedSeeds", rej);
  s->runs[s->nruns++] = r;
  lsn__reply(s, req, "uiap.discovery.planned", p);
  /* the run's lifecycle starts here (mapper 10.1): planned, it is in
   * planning until started; from start on, the run's own statuses */
  cJSON *pp = crawl__jx(cJSON_CreateObject());
  crawl__jstr(pp, "runId", r->id);
  crawl__jstr(pp, "status", "planning");
  lsn__event(s, "uiap.discovery.progress", pp);
}

/* The run payload names, or NULL after an error reply. */
static lsn_run *run_of(lsn_session *s, const char *req, const cJSON *payload) {
  const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(payload, "runId"));
  if (!id) {
    lsn__error(s, req, "bad_request", "the request needs a runId");
    return NULL;
  }
  for (int i = 0; i < s->nruns; i++)
    if (!strcmp(s->runs[i]->id, id)) return s->runs[i];
  lsn__error(s, req, "not_found", "no run %.200s in this session (plan it first)", id);
  return NULL;
}

static int run_finished(lsn_run *r) {
  pthread_mutex_lock(&r->s->mu);
  int f = r->finished;
  pthread_mutex_unlock(&r->s->mu);
  return f;
}

/* ---- the run's thread -------------------------------------------------------------- */
static void run_progress(void *ud, const crawl_progress *pr) {
  lsn_run *r = ud;
  if (!strcmp(pr->status, "planning")) return; /* reported at uiap.discovery.plan, before "started" */
  cJSON *p = crawl__jx(cJSON_CreateObject());
  crawl__jstr(p, "runId", r->id);
  crawl__jstr(p, "status", pr->status);
  crawl__jstr(p, "currentRouteId", pr->route);
  cJSON_AddNumberToObject(p, "visitedStates", (double)pr->states);
  cJSON_AddNumberToObject(p, "visitedTransitions", (double)pr->transitions);
  lsn__event(r->s, "uiap.discovery.progress", p);
}

/* RUN_DIR/package.json, parsed (caller frees), or NULL. */
static cJSON *run_package(const lsn_run *r) {
  char path[PATH_MAX + 16], err[256];
  snprintf(path, sizeof path, "%s/package.json", r->dir);
  return crawl__json_load(path, err, sizeof err);
}

static void *run_main(void *ud) {
  lsn_run *r = ud;
  char err[512] = "";
  cdp_client *c = NULL;
  crawl_summary sum = {0};
  int launched = !cdp_launch(&r->s->o->launch, &c, err, sizeof err);
  crawl_code rc = launched ? CRAWL_OK : CRAWL_BROWSER;
  if (launched) {
    crawl_opts co = {.out_dir = r->dir, .plan = r->plan, .policy = r->policy, .budget = r->budget,
                     .width = r->s->o->width, .height = r->s->o->height, .run_id = r->id,
                     .cancel = &r->cancel, .pause = &r->pause, .progress = run_progress, .progress_ud = r};
    cdp_client_set_cancel(c, &r->cancel);
    rc = crawl_run(c, &co, &sum);
    cdp_client_set_cancel(c, NULL);
  }
  cdp_client_free(c);
  cJSON *pkg = rc ? NULL : run_package(r);
  pthread_mutex_lock(&r->s->mu);
  snprintf(r->status, sizeof r->status, "%s", pkg && sum.status ? sum.status : "failed");
  r->finished = 1;
  pthread_mutex_unlock(&r->s->mu);
  __atomic_store_n(&runs_active, 0, __ATOMIC_SEQ_CST);
  if (!pkg) {
    lsn__error(r->s, NULL, "run_failed", "run %s: %s", r->id, !launched ? err : sum.error[0] ? sum.error : crawl_strerror(rc));
    return NULL;
  }
  cJSON *p = crawl__jx(cJSON_CreateObject());
  crawl__jstr(p, "runId", r->id);
  crawl__jstr(p, "status", r->status);
  cJSON_AddItemToObject(p, "package", pkg);
  lsn__event(r->s, "uiap.discovery.result", p);
  return NULL;
}

/* ---- start, pause, resume, cancel, package.get ---------------------------------- */
static void run_reply(lsn_session *s, const char *req, const char *type, const lsn_run *r, const char *status) {
  cJSON *p = crawl__jx(cJSON_CreateObject());
  crawl__jstr(p, "runId", r->id);
  crawl__jstr(p, "status", status);
  lsn__reply(s, req, type, p);
}

void lsn__disc_start(lsn_session *s, const char *req, const cJSON *payload) {
  lsn_run *r = run_of(s, req, payload);
  if (!r) return;
  if (r->started) {
    lsn__error(s, req, "conflict", "run %s was started already", r->id);
    return;
  }
  if (mkdir(s->runs_dir, 0700) && errno != EEXIST) {
    lsn__error(s, req, "internal", "cannot create %s: %s", s->runs_dir, strerror(errno));
    return;
  }
  int idle = 0;
  if (!__atomic_compare_exchange_n(&runs_active, &idle, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    lsn__error(s, req, "busy", "another discovery run is going in this process; start %s when it ends", r->id);
    return;
  }
  r->started = 1;
  run_reply(s, req, "uiap.discovery.started", r, "preparing");
  if (pthread_create(&r->th, NULL, run_main, r)) {
    r->started = 0;
    __atomic_store_n(&runs_active, 0, __ATOMIC_SEQ_CST);
    lsn__error(s, req, "internal", "cannot start a thread");
  }
}

/* r runs (started, not finished); else an error reply and 0. */
static int run_live(lsn_session *s, const char *req, lsn_run *r) {
  if (r->started && !run_finished(r)) return 1;
  lsn__error(s, req, "conflict", "run %s is %s", r->id, r->started ? "over" : "not started");
  return 0;
}

void lsn__disc_pause(lsn_session *s, const char *req, const cJSON *payload) {
  lsn_run *r = run_of(s, req, payload);
  if (!r || !run_live(s, req, r)) return;
  r->pause = 1;
  run_reply(s, req, "uiap.discovery.paused", r, "paused");
}

void lsn__disc_resume(lsn_session *s, const char *req, const cJSON *payload) {
  lsn_run *r = run_of(s, req, payload);
  if (!r || !run_live(s, req, r)) return;
  r->pause = 0;
  run_reply(s, req, "uiap.discovery.resumed", r, "exploring");
}

void lsn__disc_cancel(lsn_session *s, const char *req, const cJSON *payload) {
  lsn_run *r = run_of(s, req, payload);
  if (!r || !run_live(s, req, r)) return;
  r->cancel = 1;
  r->pause = 0;
  run_reply(s, req, "uiap.discovery.cancelled", r, "cancelled");
}

void lsn__disc_package_get(lsn_session *s, const char *req, const cJSON *payload) {
  lsn_run *r = run_of(s, req, payload);
  if (!r) return;
  cJSON *pkg = r->started && run_finished(r) ? run_package(r) : NULL;
  if (!pkg) {
    lsn__error(s, req, "not_ready", "run %s has no package (%s)", r->id,
               !r->started ? "not started" : run_finished(r) ? "it failed" : "still running");
    return;
  }
  cJSON *p = crawl__jx(cJSON_CreateObject());
  cJSON_AddItemToObject(p, "package", pkg);
  lsn__reply(s, req, "uiap.discovery.package", p);
}

void lsn__disc_release(lsn_session *s) {
  for (int i = 0; i < s->nruns; i++) {
    lsn_run *r = s->runs[i];
    r->cancel = 1;
    r->pause = 0;
    if (r->started) pthread_join(r->th, NULL);
    cJSON_Delete(r->plan);
    free(r);
  }
  s->nruns = 0;
}

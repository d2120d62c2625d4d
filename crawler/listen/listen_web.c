/* listen_web.c -- the web profile in a session: web.state.get captures the
 * session's own tab (opened and loaded once, in a browser of its own);
 * web.observe.start runs crawl_observe_run in a thread with a browser of
 * its own, each of its messages re-sent with the session's id,
 * web.observe.started and .stopped as the responses to their requests;
 * revisions and bases are observe's. */
#include "listen_int.h"
#include "crawl_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILTER 32

/* ---- web.state.get ------------------------------------------------------------ */
static crawl_code page_ready(lsn_session *s, char *err, size_t errlen) {
  if (s->page) return crawl_page_settle(s->page);
  if (!s->c && cdp_launch(&s->o->launch, &s->c, err, errlen)) return CRAWL_BROWSER;
  crawl_page_opts po = {.width = s->o->width, .height = s->o->height, .block_writes = crawl_guard_for_mode(NULL, 0)};
  crawl_code rc = crawl_page_open(s->c, &po, &s->page);
  if (!rc) rc = crawl_page_load(s->page, s->o->url);
  if (rc) snprintf(err, errlen, "%s", s->page ? crawl_page_errmsg(s->page) : crawl_strerror(rc));
  return rc;
}

/* A string array of payload into v (NULL-terminated; NULL when absent):
 * 0, or -1 when it is not an array of strings. */
static int string_list(const cJSON *payload, const char *key, const char **v, const char *const **out) {
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(payload, key), *x;
  int n = 0;
  *out = NULL;
  if (!a) return 0;
  if (!cJSON_IsArray(a)) return -1;
  cJSON_ArrayForEach(x, a) {
    if (!cJSON_IsString(x) || n >= MAX_FILTER) return -1;
    v[n++] = x->valuestring;
  }
  v[n] = NULL;
  *out = v;
  return 0;
}

/* includeHidden, includeNonInteractive: 0, or -1 when one is not a boolean. */
static int graph_flags(const cJSON *payload, pg_options *g) {
  const cJSON *h = cJSON_GetObjectItemCaseSensitive(payload, "includeHidden");
  const cJSON *ni = cJSON_GetObjectItemCaseSensitive(payload, "includeNonInteractive");
  if ((h && !cJSON_IsBool(h)) || (ni && !cJSON_IsBool(ni))) return -1;
  g->include_hidden = cJSON_IsTrue(h);
  g->include_non_interactive = cJSON_IsTrue(ni);
  return 0;
}

void lsn__web_state_get(lsn_session *s, const char *req, const cJSON *payload) {
  pg_options g = {0};
  const char *scopes[MAX_FILTER + 1], *docs[MAX_FILTER + 1];
  const cJSON *mx = cJSON_GetObjectItemCaseSensitive(payload, "maxNodes");
  if (graph_flags(payload, &g) || string_list(payload, "scopes", scopes, &g.scope_filter) ||
      string_list(payload, "documents", docs, &g.document_filter) ||
      (mx && (!cJSON_IsNumber(mx) || mx->valuedouble < 1 || mx->valuedouble > 1e7))) {
    lsn__error(s, req, "bad_request",
               "web.state.get takes includeHidden, includeNonInteractive (booleans), scopes, documents "
               "(at most %d strings each) and maxNodes (1..10000000)", MAX_FILTER);
    return;
  }
  g.max_nodes = mx ? (size_t)mx->valuedouble : 0;
  char err[512] = "";
  cJSON *graph = NULL;
  crawl_code rc = page_ready(s, err, sizeof err);
  if (!rc) rc = crawl_page_snapshot(s->page, &g, NULL, &graph); /* through the tab's secret list */
  if (rc) {
    lsn__error(s, req, "capture_failed", "%s", err[0] ? err : crawl_page_errmsg(s->page));
    return;
  }
  cJSON *p = crawl__jx(cJSON_CreateObject());
  cJSON_AddItemToObject(p, "graph", crawl__jx(graph));
  lsn__reply(s, req, "web.state.snapshot", p);
}

/* ---- web.observe ------------------------------------------------------------------ */
/* One of observe's messages, re-sent in the session's envelope
 * (crawl_observe_msg_cb). */
static int observe_message(void *ud, const cJSON *m) {
  lsn_session *s = ud;
  const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "type"));
  const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "id"));
  if (!type || !id) return 0;
  const char *corr = NULL;
  if (!strcmp(type, "web.observe.started")) corr = s->obs_req;
  pthread_mutex_lock(&s->mu);
  if (!strcmp(type, "web.observe.stopped") && s->stop_req[0]) {
    corr = s->stop_req;
    s->stop_answered = 1;
  }
  pthread_mutex_unlock(&s->mu);
  crawl_msg env = {.kind = corr ? "response" : "event", .type = type, .id = id, .correlation_id = corr,
                    .session_id = s->id};
  cJSON *payload = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(m, "payload"), 1);
  lsn__send(s, crawl_envelope(&env, payload));
  return 0;
}

static void observe_watch(lsn_session *s) {
  char err[512];
  cdp_client *c = NULL;
  if (cdp_launch(&s->o->launch, &c, err, sizeof err)) {
    lsn__error(s, s->obs_req, "browser_failed", "%s", err);
    return;
  }
  cdp_client_set_cancel(c, &s->obs_cancel);
  crawl_observe_stats st;
  crawl_code rc = crawl_observe_run(c, &s->oo, observe_message, s, &st);
  if (rc && rc != CRAWL_CANCELLED && st.messages == 0)
    lsn__error(s, s->obs_req, "observe_failed", "%s", st.error[0] ? st.error : crawl_strerror(rc));
  cdp_client_set_cancel(c, NULL);
  cdp_client_free(c);
}

static void *observe_main(void *ud) {
  lsn_session *s = ud;
  observe_watch(s);
  __atomic_store_n(&s->obs_done, 1, __ATOMIC_SEQ_CST);
  return NULL;
}

/* signals (an array of kind names) into *bits: 0, or -1. */
static int signal_bits(const cJSON *a, unsigned *bits) {
  char csv[1024] = "";
  size_t at = 0;
  const cJSON *x;
  *bits = 0;
  if (!a) return 0;
  if (!cJSON_IsArray(a)) return -1;
  cJSON_ArrayForEach(x, a) {
    if (!cJSON_IsString(x) || at + strlen(x->valuestring) + 2 > sizeof csv) return -1;
    at += (size_t)snprintf(csv + at, sizeof csv - at, "%s%s", at ? "," : "", x->valuestring);
  }
  return at ? crawl_signal_kinds_parse(csv, bits) : 0;
}

/* The request's options into s->oo: 0, or -1. */
static int observe_opts(lsn_session *s, const cJSON *payload) {
  crawl_observe_opts *oo = &s->oo;
  memset(oo, 0, sizeof *oo);
  const char *mode = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(payload, "mode"));
  const cJSON *th = cJSON_GetObjectItemCaseSensitive(payload, "throttleMs");
  if (cJSON_GetObjectItemCaseSensitive(payload, "mode") && !mode) return -1;
  if (mode && strcmp(mode, "snapshot+delta") && strcmp(mode, "delta-only")) return -1;
  if (th && (!cJSON_IsNumber(th) || th->valuedouble < 0 || th->valuedouble > 600000)) return -1;
  if (graph_flags(payload, &oo->graph) || signal_bits(cJSON_GetObjectItemCaseSensitive(payload, "signals"), &oo->signals))
    return -1;
  oo->mode = mode && !strcmp(mode, "delta-only") ? CRAWL_OBSERVE_DELTA_ONLY : CRAWL_OBSERVE_SNAPSHOT_DELTA;
  oo->throttle_ms = th ? (th->valuedouble >= 1 ? (int)th->valuedouble : -1) : 0;
  oo->url = s->o->url;
  oo->page_opts = (crawl_page_opts){.width = s->o->width, .height = s->o->height,
                                    .block_writes = crawl_guard_for_mode(NULL, 0)};
  oo->subscription_id = s->sub;
  oo->cancel = &s->obs_cancel;
  return 0;
}

/* End the observation, if one runs, and wait for its thread. */
static void observe_end(lsn_session *s) {
  if (!s->obs_on) return;
  s->obs_cancel = 1;
  pthread_join(s->obs_th, NULL);
  s->obs_on = 0;
}

void lsn__web_observe_start(lsn_session *s, const char *req, const cJSON *payload) {
  static unsigned long counter;
  if (s->obs_on && __atomic_load_n(&s->obs_done, __ATOMIC_SEQ_CST)) observe_end(s); /* it ended by itself */
  if (s->obs_on) {
    lsn__error(s, req, "conflict", "subscription %s is running; stop it first", s->sub);
    return;
  }
  snprintf(s->sub, sizeof s->sub, "sub_%s_%lu", s->id, ++counter);
  if (observe_opts(s, payload)) {
    lsn__error(s, req, "bad_request",
               "web.observe.start takes mode (snapshot+delta or delta-only), includeHidden, "
               "includeNonInteractive, throttleMs (0..600000) and signals (WebSignalKind names)");
    return;
  }
  snprintf(s->obs_req, sizeof s->obs_req, "%s", req);
  s->stop_req[0] = 0;
  s->obs_cancel = 0;
  s->obs_done = 0;
  if (pthread_create(&s->obs_th, NULL, observe_main, s)) {
    lsn__error(s, req, "internal", "cannot start a thread");
    return;
  }
  s->obs_on = 1;
}

void lsn__web_observe_stop(lsn_session *s, const char *req, const cJSON *payload) {
  const char *sub = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(payload, "subscriptionId"));
  if (!sub) {
    lsn__error(s, req, "bad_request", "web.observe.stop needs a subscriptionId");
    return;
  }
  if (!s->obs_on || strcmp(sub, s->sub)) {
    lsn__error(s, req, "not_found", "no subscription %.200s", sub);
    return;
  }
  pthread_mutex_lock(&s->mu);
  snprintf(s->stop_req, sizeof s->stop_req, "%s", req);
  s->stop_answered = 0;
  pthread_mutex_unlock(&s->mu);
  observe_end(s);
  if (s->stop_answered) return;
  /* it had ended by itself (the page closed, an error): stopped already
   * went out as an event; the request still gets its response */
  cJSON *p = crawl__jx(cJSON_CreateObject());
  crawl__jstr(p, "subscriptionId", s->sub);
  lsn__reply(s, req, "web.observe.stopped", p);
}

void lsn__web_release(lsn_session *s) {
  observe_end(s);
  crawl_page_close(s->page);
  s->page = NULL;
  cdp_client_free(s->c);
  s->c = NULL;
}

/* observe.c -- web.observe (web-profile 10.2-10.5): watch one page and hand
 * UIAP messages to the caller's callback (crawl_observe_run):
 * web.observe.started, a web.state.snapshot, then web.state.delta and
 * web.signal as the page changes, and web.observe.stopped at the end.
 *
 * Change detection: the page's MutationObserver binding and navigations
 * (crawl_page_changes), plus a script of our own in every same-origin frame
 * that reports what mutations of the top document do not show: changes
 * inside open shadow roots, focus, input, scrolling, form submits and the
 * text of live regions (role alert/status/log, aria-live). On a change the
 * page is captured again (at most once per throttle_ms) and the delta to the
 * last published graph is sent (graph/delta.c).
 *
 * Here: the output, capture and publish, installing the reporter, and the
 * loop. Not here: the events, signal kinds, live regions and submits
 * (observe_signals.c), the script's steps (observe_script.c), writing the
 * messages anywhere (the caller: cmd_observe.c writes JSON Lines, listen
 * sends them over its WebSocket).
 */
#include "observe_int.h"
#include "crawl_secrets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the page-side reporter ------------------------------------------------------ */
/* Runs in every frame (before the page's scripts, and at once in the frames
 * already there). It reports nothing from a frame whose top is on another
 * origin, never observes inside a closed shadow root, and masks the values
 * of sensitive fields (and card-like digit runs) in live-region text before
 * the text leaves the page. Reports are batched: one binding call per 20 ms
 * at most. window.<binding>_off undoes it all (uninstall). The script is
 * js/live_reporter.js; __B__ in it is replaced by the binding name, __SENS__
 * by the graph's sensitive selector (PG_SENSITIVE_SELECTOR: password type,
 * data-uiap-sensitive, the autocomplete tokens in any case). */

/* The pause before the next capture, given what made the page dirty. */
static int pace(int throttle, int noise, int own) {
  if (own || noise < NOISE_AFTER) return throttle;
  int shift = noise - NOISE_AFTER;
  int slow = shift >= 3 ? NOISE_MAX_MS : 125 << shift;
  return slow > throttle ? slow : throttle;
}

/* ---- output --------------------------------------------------------------------------- */
/* Hand one message, an event in the UIAP envelope, to on_msg; payload is
 * consumed. */
static int emit(obs *s, const char *type, cJSON *payload) {
  char id[128];
  snprintf(id, sizeof id, "msg_%s_%lu", s->sub, ++s->msg_seq);
  cJSON *m = crawl_envelope(&(crawl_msg){.kind = "event", .type = type, .id = id, .source_id = s->source_id},
                             payload);
  crawl__secrets_scrub_json(crawl_page_secrets(s->p), m); /* the tab's secrets, --redact pii */
  int rc = s->on_msg(s->on_msg_ud, m) ? -1 : 0;
  cJSON_Delete(m);
  s->st->messages++;
  return rc;
}

static cJSON *sub_payload(obs *s) {
  cJSON *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "subscriptionId", s->sub);
  return p;
}

/* A new signal of kind; also printed at once as web.signal when asked for. */
cJSON *crawl__obs_signal_new(obs *s, const char *kind) {
  cJSON *sg = cJSON_CreateObject();
  char id[128];
  snprintf(id, sizeof id, "%s%lu", s->sig_prefix, s->sig_seq++);
  cJSON_AddStringToObject(sg, "signalId", id);
  cJSON_AddStringToObject(sg, "kind", kind);
  return sg;
}

void crawl__obs_signal_publish(obs *s, cJSON *sg) {
  const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sg, "kind"));
  int bit = crawl__obs_kind_bit(kind);
  s->st->signals++;
  if (bit >= 0 && (s->o->signals >> bit & 1u)) {
    cJSON *p = cJSON_CreateObject();
    cJSON_AddItemToObject(p, "signal", cJSON_Duplicate(sg, 1));
    emit(s, "web.signal", p);
  }
  cJSON_AddItemToArray(s->pending, sg);
}

/* ---- capture and publish ------------------------------------------------------------------- */
static crawl_code capture(obs *s, pg_graph **out) {
  pg_options go = s->o->graph;
  go.revision = s->rev + 1;
  long long t0 = cdp_now_ms();
  crawl_code rc = crawl_page_snapshot(s->p, &go, out, NULL); /* what it redacts joins the tab's list */
  s->st->captures++;
  s->st->capture_ms += cdp_now_ms() - t0;
  return rc;
}

/* Capture, compare with what the consumer has, publish a delta when
 * something changed (ops or signals). */
static crawl_code cycle(obs *s) {
  crawl__obs_submits_resolve(s);
  unsigned long before = crawl_page_changes(s->p);
  /* only DOM mutations made this capture: if it shows nothing, that was noise */
  int mutations_only = before != s->seen && !s->own_dirty && !cJSON_GetArraySize(s->pending) &&
                       !cJSON_GetArraySize(s->reports);
  s->own_dirty = 0;
  int nav_full = s->nav_full, nav_same = s->nav_same;
  s->nav_full = s->nav_same = 0;
  pg_graph *g = NULL;
  s->last_capture = cdp_now_ms();
  crawl_code rc = capture(s, &g);
  s->seen = before;
  if (rc) {
    s->nav_full |= nav_full; /* for the next try */
    s->nav_same |= nav_same;
    return rc;
  }
  pg_graph_free(s->last);
  s->last = g;
  crawl__obs_reports_take(s, g);
  cJSON *nj = pg_graph_to_json(g);
  cJSON *ops = NULL;
  if (pg_delta_compute(s->graph, nj, &ops) != PG_OK) {
    cJSON_Delete(nj);
    snprintf(s->err, sizeof s->err, "the captured graph is inconsistent");
    return CRAWL_CAPTURE;
  }
  /* what the graphs show: route, dialogs, validation */
  cJSON *sigs = cJSON_CreateArray();
  pg_delta_signals(s->graph, nj, s->sig_prefix, &s->sig_seq, sigs);
  cJSON *sg;
  while ((sg = cJSON_DetachItemFromArray(sigs, 0))) {
    const char *kind = crawl__str(sg, "kind");
    if (kind && !strcmp(kind, "route.changed")) {
      cJSON *d = cJSON_GetObjectItemCaseSensitive(sg, "detail");
      if (d) cJSON_AddBoolToObject(d, "sameDocument", nav_same && !nav_full);
    }
    crawl__obs_signal_publish(s, sg);
  }
  cJSON_Delete(sigs);
  if (cJSON_GetArraySize(ops) == 0 && cJSON_GetArraySize(s->pending) == 0) {
    cJSON_Delete(ops);
    cJSON_Delete(nj);
    s->st->unchanged++;
    s->confirm_at = 0;
    if (mutations_only && s->noise < 64) s->noise++;
    if (s->o->on_capture) s->o->on_capture(s->o->on_capture_ud, s->rev, s->graph, 0);
    return CRAWL_OK;
  }
  cJSON *p = sub_payload(s);
  char rev[48], base[48];
  snprintf(rev, sizeof rev, "rev_%llu", s->rev + 1);
  snprintf(base, sizeof base, "rev_%llu", s->rev);
  cJSON_AddStringToObject(p, "revision", rev);
  cJSON_AddStringToObject(p, "baseRevision", base);
  s->st->ops += cJSON_GetArraySize(ops);
  cJSON_AddItemToObject(p, "ops", ops);
  if (cJSON_GetArraySize(s->pending)) {
    cJSON_AddItemToObject(p, "signals", s->pending);
    s->pending = cJSON_CreateArray();
  }
  s->rev++;
  cJSON_Delete(s->graph);
  s->graph = nj;
  s->st->deltas++;
  s->last_delta = cdp_now_ms();
  s->noise = 0;
  if (emit(s, "web.state.delta", p)) {
    snprintf(s->err, sizeof s->err, "cannot write the output");
    return CRAWL_IO;
  }
  s->confirm_at = s->last_delta + CONFIRM_MS;
  if (s->o->on_capture) s->o->on_capture(s->o->on_capture_ud, s->rev, s->graph, 1);
  return CRAWL_OK;
}

/* The capture before stopping: a page caught mid-navigation is no error. */
static crawl_code last_cycle(obs *s) {
  crawl_code rc = cycle(s);
  if (rc == CRAWL_CAPTURE || rc == CRAWL_BROWSER || rc == CRAWL_TIMEOUT) {
    crawl_log(CRAWL_LOG_DEBUG, "observe", "last capture failed (%s): %s", crawl_strerror(rc), crawl_page_errmsg(s->p));
    rc = CRAWL_OK;
  }
  return rc;
}

static int dirty(obs *s) {
  return crawl_page_changes(s->p) != s->seen || s->own_dirty || cJSON_GetArraySize(s->pending) > 0 ||
         cJSON_GetArraySize(s->reports) > 0;
}

/* ---- set-up and the loop -------------------------------------------------------------------- */
static crawl_code install(obs *s) {
  const char *sess = crawl_page_session(s->p);
  snprintf(s->binding, sizeof s->binding, "__uiap_obs_%08lx",
           (unsigned long)((unsigned long long)cdp_now_ms() * 2654435761u ^ (unsigned long)getpid()) & 0xffffffffUL);
  /* the script with the binding name in place of __B__ (and the graph's
   * sensitive selector in place of __SENS__) */
  crawl__buf b = {0};
  char *with_sens = crawl__js_sensitive(CRAWL__JS(live_reporter));
  const char *src = with_sens, *hit;
  while ((hit = strstr(src, "__B__"))) {
    crawl__buf_put(&b, src, (size_t)(hit - src));
    crawl__buf_puts(&b, s->binding);
    src = hit + 5;
  }
  crawl__buf_puts(&b, src);
  free(with_sens);
  char *js = crawl__buf_take(&b);
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "name", s->binding);
  cdp_code r = cdp_call(s->c, sess, "Runtime.addBinding", a, NULL, 10000);
  cJSON *res = NULL;
  if (!r) {
    a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "source", js);
    cJSON_AddBoolToObject(a, "runImmediately", 1);
    r = cdp_call(s->c, sess, "Page.addScriptToEvaluateOnNewDocument", a, &res, 10000);
  }
  free(js);
  if (r) {
    snprintf(s->err, sizeof s->err, "cannot install the change reporter: %s", cdp_client_errmsg(s->c));
    cJSON_Delete(res);
    return r == CDP_CANCELLED ? CRAWL_CANCELLED : CRAWL_BROWSER;
  }
  const char *id = crawl__str(res, "identifier");
  s->script_id = crawl__xstrdup(id);
  cJSON_Delete(res);
  return CRAWL_OK;
}

/* Withdraw the reporter: no more in new documents, and switched off in
 * every frame of this one (a page observed in place, e.g. another tool's
 * tab, goes on without it: listeners removed, attachShadow restored). */
static void uninstall(obs *s) {
  if (!cdp_client_alive(s->c) || s->closed || s->crashed) return;
  const char *sess = crawl_page_session(s->p);
  if (s->script_id) {
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "identifier", s->script_id);
    cdp_call(s->c, sess, "Page.removeScriptToEvaluateOnNewDocument", a, NULL, 2000);
  }
  /* run the off switch in every frame at once: a script for new documents
   * run immediately (in the frames there are), then withdrawn */
  char *js = crawl__xprintf(CRAWL__JS(live_reporter_off), s->binding, s->binding);
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddStringToObject(a, "source", js);
  free(js);
  cJSON_AddBoolToObject(a, "runImmediately", 1);
  if (cdp_call(s->c, sess, "Page.addScriptToEvaluateOnNewDocument", a, &res, 2000) == CDP_OK) {
    const char *id = crawl__str(res, "identifier");
    if (id) {
      a = cJSON_CreateObject();
      cJSON_AddStringToObject(a, "identifier", id);
      cdp_call(s->c, sess, "Page.removeScriptToEvaluateOnNewDocument", a, NULL, 2000);
    }
  }
  cJSON_Delete(res);
  a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "name", s->binding);
  cdp_call(s->c, sess, "Runtime.removeBinding", a, NULL, 2000);
}

/* Mark the live regions there are now as seen, so that only later changes
 * are signalled. */
static void live_baseline(obs *s) {
  char *expr = crawl__xprintf(CRAWL__JS(live_reporter_baseline), s->binding, s->binding);
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "expression", expr);
  free(expr);
  cJSON_AddBoolToObject(a, "silent", 1);
  cdp_call(s->c, crawl_page_session(s->p), "Runtime.evaluate", a, NULL, 5000);
}

static void stop_message(obs *s, const char *reason) {
  cJSON *p = sub_payload(s);
  cJSON_AddStringToObject(p, "reason", reason);
  emit(s, "web.observe.stopped", p);
  s->st->stopped_by = reason;
}

/* The run's state for o, handing its messages to on_msg, counting into st
 * (borrowed). */
static obs *obs_new(cdp_client *c, const crawl_observe_opts *o, crawl_observe_msg_cb on_msg, void *ud,
                    crawl_observe_stats *st) {
  obs *s = crawl__xcalloc(1, sizeof *s);
  s->c = c;
  s->o = o;
  s->on_msg = on_msg;
  s->on_msg_ud = ud;
  s->st = st;
  s->source_id = o->source_id ? o->source_id : "uiap-crawl";
  s->throttle = o->throttle_ms > 0 ? o->throttle_ms : o->throttle_ms < 0 ? 0 : 100;
  s->nsteps = o->script ? cJSON_GetArraySize(o->script) : 0;
  s->pending = cJSON_CreateArray();
  s->reports = cJSON_CreateArray();
  if (o->subscription_id) snprintf(s->sub, sizeof s->sub, "%s", o->subscription_id);
  else snprintf(s->sub, sizeof s->sub, "sub_%d_%llx", (int)getpid(), (unsigned long long)cdp_now_ms() & 0xffffffULL);
  snprintf(s->sig_prefix, sizeof s->sig_prefix, "sig_%s_", s->sub);
  return s;
}

/* The page (o->page, or a new tab), the events, the reporter, o->url
 * loaded. An error goes to st->error. */
static crawl_code obs_open(obs *s) {
  const crawl_observe_opts *o = s->o;
  crawl_code rc;
  if (o->page) {
    s->p = o->page;
  } else {
    crawl_page_opts po = o->page_opts;
    if (!po.settle_max_ms) po.settle_max_ms = 2000; /* what comes later is observed anyway */
    if ((rc = crawl_page_open(s->c, &po, &s->p))) {
      snprintf(s->st->error, sizeof s->st->error, "%s", crawl_page_errmsg(s->p));
      return rc;
    }
  }
  static const struct { const char *ev; cdp_event_cb cb; } evs[] = {
    {"Runtime.bindingCalled", crawl__obs_on_binding},      {"Page.frameNavigated", crawl__obs_on_nav},
    {"Page.navigatedWithinDocument", crawl__obs_on_nav},   {"Inspector.targetCrashed", crawl__obs_on_closed},
    {"Inspector.detached", crawl__obs_on_closed},          {"Target.detachedFromTarget", crawl__obs_on_closed},
    {"Network.requestWillBeSent", crawl__obs_on_network},  {"Network.responseReceived", crawl__obs_on_network},
    {"Network.loadingFinished", crawl__obs_on_network},    {"Network.loadingFailed", crawl__obs_on_network},
  };
  for (size_t i = 0; i < sizeof evs / sizeof *evs; i++) s->subs[s->nsubs++] = cdp_on(s->c, evs[i].ev, evs[i].cb, s);
  if ((rc = install(s))) {
    snprintf(s->st->error, sizeof s->st->error, "%s", s->err);
    return rc;
  }
  if (o->url && (rc = crawl_page_goto(s->p, o->url))) {
    snprintf(s->st->error, sizeof s->st->error, "%s", crawl_page_errmsg(s->p));
    return rc;
  }
  return CRAWL_OK;
}

/* web.observe.started, the first capture (the first revision), the live
 * regions there are marked as seen, and the snapshot unless delta-only. A
 * failed capture goes to st->error. */
static crawl_code obs_start(obs *s) {
  const crawl_observe_opts *o = s->o;
  s->rev = pg_next_revision() - 1; /* then rev+1, rev+2, ...: ours alone */
  cJSON *p = sub_payload(s);
  char rev[48];
  snprintf(rev, sizeof rev, "rev_%llu", s->rev + 1);
  cJSON_AddStringToObject(p, "initialRevision", rev);
  emit(s, "web.observe.started", p);
  s->t_start = cdp_now_ms();
  s->reports = (cJSON_Delete(s->reports), cJSON_CreateArray());
  unsigned long before = crawl_page_changes(s->p);
  s->own_dirty = 0;
  s->nav_full = s->nav_same = 0;
  pg_graph *g = NULL;
  crawl_code rc = capture(s, &g);
  if (rc) {
    snprintf(s->st->error, sizeof s->st->error, "%s", crawl_page_errmsg(s->p));
    return rc;
  }
  s->seen = before;
  s->last = g;
  s->last_capture = s->last_delta = cdp_now_ms();
  s->rev++;
  s->graph = pg_graph_to_json(g);
  live_baseline(s);
  if (o->mode != CRAWL_OBSERVE_DELTA_ONLY) {
    cJSON *sp = cJSON_CreateObject();
    cJSON_AddItemToObject(sp, "graph", cJSON_Duplicate(s->graph, 1));
    emit(s, "web.state.snapshot", sp);
  }
  s->confirm_at = s->last_delta + CONFIRM_MS;
  if (o->on_capture) o->on_capture(o->on_capture_ud, s->rev, s->graph, 1);
  return CRAWL_OK;
}

/* 1 when observing ends now, with *reason and *rc: cancelled, the page
 * crashed or closed, or the duration over (after a last capture). */
static int obs_ended(obs *s, long long now, long long end, const char **reason, crawl_code *rc) {
  if (s->o->cancel && *s->o->cancel) { *reason = "signal"; *rc = CRAWL_CANCELLED; return 1; }
  if (s->crashed) { *reason = "crashed"; *rc = CRAWL_CRASHED; snprintf(s->err, sizeof s->err, "the page crashed"); return 1; }
  if (s->closed || !cdp_client_alive(s->c)) { *reason = "pageClosed"; *rc = CRAWL_OK; return 1; }
  if (end && now >= end) {
    *reason = "duration";
    crawl__obs_submits_check(s, now, 0);
    *rc = last_cycle(s);
    return 1;
  }
  return 0;
}

/* A capture when one is due; a failed one (the document went away
 * mid-capture, say) is tried again soon. */
static crawl_code obs_cycle(obs *s) {
  crawl_code rc = cycle(s);
  if (rc == CRAWL_CAPTURE || rc == CRAWL_BROWSER || rc == CRAWL_TIMEOUT) {
    crawl_log(CRAWL_LOG_DEBUG, "observe", "capture failed (%s): %s; retrying", crawl_strerror(rc),
              crawl_page_errmsg(s->p));
    s->own_dirty = 1;
    s->retry_at = cdp_now_ms() + 100;
    rc = CRAWL_OK;
  }
  return rc;
}

/* The script: one step at a time, each after the page went quiet (d: it
 * is dirty); when it is done and the page quiet, observing ends. 1 when it
 * ends (*reason, *rc). */
static int obs_script(obs *s, long long now, int d, long long end, const char **reason, crawl_code *rc) {
  /* Quiet: no delta for a while, and a capture since then found nothing
   * new (a ticking clock keeps the page dirty, not changing). */
  int quiet = !s->confirm_at && now - s->last_delta >= STEP_QUIET_MS &&
              (!d || s->last_capture - s->last_delta >= STEP_QUIET_MS);
  if (s->step < s->nsteps) {
    if (s->step_waiting || quiet || now - s->prev_step_done >= STEP_MAX_WAIT_MS) {
      *rc = crawl__obs_step_run(s, now);
      if (*rc) { *reason = *rc == CRAWL_CANCELLED ? "signal" : "error"; return 1; }
      if (!s->step_waiting) {
        s->step++;
        s->prev_step_done = s->last_delta = cdp_now_ms();
      }
    }
  } else if (s->nsteps && !end && quiet) {
    /* the script is done and the page quiet */
    crawl__obs_submits_check(s, now, 1);
    *rc = last_cycle(s);
    *reason = "script";
    return 1;
  }
  return 0;
}

/* How long to pump events before looking again. */
static int obs_wait_ms(const obs *s, long long now, int d, int gap, long long end) {
  int wait = 1000;
  if (d) wait = (int)((s->retry_at > s->last_capture + gap ? s->retry_at : s->last_capture + gap) - now);
  else if (s->confirm_at) wait = (int)(s->confirm_at - now);
  if (s->step < s->nsteps || s->nsteps) wait = wait < 25 ? wait : 25;
  if (end && end - now < wait) wait = (int)(end - now);
  for (int i = 0; i < MAX_SUBMITS; i++)
    if (s->submits[i].active) wait = wait < 50 ? wait : 50;
  return wait < 1 ? 1 : wait;
}

/* Observe until an end (obs_ended, obs_script, the pump); *reason says
 * which. An error goes to st->error. */
static crawl_code obs_loop(obs *s, const char **reason) {
  long long end = s->o->duration_ms > 0 ? s->t_start + s->o->duration_ms : 0;
  s->prev_step_done = cdp_now_ms();
  crawl_code rc = CRAWL_OK;
  for (;;) {
    long long now = cdp_now_ms();
    if (obs_ended(s, now, end, reason, &rc)) break;
    crawl__obs_submits_resolve(s);
    crawl__obs_submits_check(s, now, 0);
    int d = dirty(s);
    int confirm = s->confirm_at && now >= s->confirm_at;
    int own = s->own_dirty || cJSON_GetArraySize(s->pending) || cJSON_GetArraySize(s->reports);
    int gap = pace(s->throttle, s->noise, own || confirm);
    if ((d || confirm) && now - s->last_capture >= gap && now >= s->retry_at) {
      if ((rc = obs_cycle(s))) break;
      continue;
    }
    if (obs_script(s, now, d, end, reason, &rc)) break;
    cdp_code r = cdp_pump(s->c, obs_wait_ms(s, now, d, gap, end));
    if (r == CDP_CANCELLED) { *reason = "signal"; rc = CRAWL_CANCELLED; break; }
    if (r == CDP_CLOSED) { *reason = "pageClosed"; rc = CRAWL_OK; break; }
  }
  if (rc && rc != CRAWL_CANCELLED)
    snprintf(s->st->error, sizeof s->st->error, "%s", s->err[0] ? s->err : crawl_page_errmsg(s->p));
  return rc;
}

/* Events off, the reporter out of the page, the tab closed if it is ours,
 * s freed. */
static void obs_free(obs *s, crawl_code rc) {
  for (int i = 0; i < s->nsubs; i++) cdp_off(s->c, s->subs[i]);
  /* a cancelled run still takes its scripts out of the page (another tool's
   * tab goes on): the client's cancel flag would fail every call, so lift it */
  if (rc == CRAWL_CANCELLED) cdp_client_set_cancel(s->c, NULL);
  if (s->p) uninstall(s);
  if (s->p && !s->o->page) crawl_page_close(s->p);
  for (int i = 0; i < MAX_SUBMITS; i++) crawl__obs_submit_free(&s->submits[i]);
  for (int i = 0; i < RECENT; i++) free(s->recent[i].rid);
  pg_graph_free(s->last);
  cJSON_Delete(s->graph);
  cJSON_Delete(s->pending);
  cJSON_Delete(s->reports);
  free(s->script_id);
  free(s);
}

crawl_code crawl_observe_run(cdp_client *c, const crawl_observe_opts *o, crawl_observe_msg_cb on_msg, void *ud,
                             crawl_observe_stats *st) {
  static crawl_observe_stats dummy;
  if (!st) st = &dummy;
  memset(st, 0, sizeof *st);
  if (!c || !o || !on_msg || (!o->page && !o->url)) {
    snprintf(st->error, sizeof st->error, "observe needs a browser, options, an output, and a URL or a page");
    return CRAWL_ARG;
  }
  obs *s = obs_new(c, o, on_msg, ud, st);
  crawl_code rc = obs_open(s);
  if (!rc) {
    const char *reason = "error";
    rc = obs_start(s);
    if (!rc) rc = obs_loop(s, &reason);
    if (rc == CRAWL_CANCELLED) reason = "signal";
    stop_message(s, rc == CRAWL_CRASHED ? "crashed" : rc && rc != CRAWL_CANCELLED ? "error" : reason);
    st->elapsed_ms = cdp_now_ms() - s->t_start;
  }
  obs_free(s, rc);
  return rc;
}

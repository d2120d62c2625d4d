/* explore_tab.c -- the run's tab: opening it behind the write guard,
 * budgets and cancellation, errors that end or restart it (recover: a new
 * tab, a new browser, a reconnect), and bringing it back to a state
 * (hash hop, reload and replay of the recorded path). What the run reads
 * back (a recorded path, a URL of a resumed journal or of another worker)
 * is untrusted: scope_has and replay check it again (docs/safety.md). */
#include "explore_int.h"

#include <unistd.h>

/* ---- what the run reads back: untrusted (docs/safety.md) ----------------------------- */
/* 1 when url lies in the run's own scope: its origin is the page's, one the
 * options allow, or a seed's. A URL read back (a state of the shared
 * frontier, of a resumed journal) never widens it. */
int crawl__run_scope_has(const run *r, const char *url) {
  act_gate gate = {.page_origin = r->page_origin,
                   .allowed = r->scope ? (const char *const *)r->scope : (const char *const *)r->allowed};
  return crawl__act_in_scope(&gate, url);
}

/* Action rec, recorded earlier (a state's path, a known edge: this run's,
 * a resumed journal's or another worker's), on the current page through
 * the one path (perform_: found on the page, decided again by the gate on
 * that element as it is now; a recorded action carries no decision of its
 * own). Refused: nothing is done, a warning line and a review item say so,
 * CRAWL_ARG with why. State si: where the recorded path leads. */
static crawl_code replay(run *r, int si, const action *rec, char *why, size_t whylen) {
  if (!rec->escape && !r->g) {
    snprintf(why, whylen, "the recorded target is not on the page (no capture)");
    return CRAWL_ARG;
  }
  act_refusal refused;
  crawl_code rc = crawl__run_probe_known(r, rec) ? crawl__run_probe_replay(r, si, rec, &refused, why, whylen)
                                                 : crawl__run_perform_(r, rec, &refused, why, whylen);
  if (refused != ACT_REFUSED) return rc;
  const char *role = rec->role ? rec->role : "", *name = rec->name ? rec->name : "";
  crawl_log(CRAWL_LOG_WARN, "crawl", "not replaying %s %s \"%.80s\" on the way to %s: %s", rec->action_id, role, name,
            r->f.st[si].id, why);
  crawl__run_jl_review(r, "custom", "high", si, rec, "Check where the recorded path came from (another worker, a resumed journal).",
            "A recorded path to this state asks for %s on %s \"%.120s\": it was not performed (%.600s).",
            rec->action_id, role, name, why);
  return rc;
}

/* 1 when state si's URL may be loaded: in the run's scope. Else (a record
 * read back that names another origin) a warning, once, and never loaded. */
static int url_loadable(run *r, int si) {
  state *s = &r->f.st[si];
  if (crawl__run_scope_has(r, s->url)) return 1;
  if (s->addressable != 0)
    crawl_log(CRAWL_LOG_WARN, "crawl", "not loading state %s: its URL %.200s is outside the run's scope", s->id,
              s->url ? s->url : "(none)");
  s->addressable = 0;
  return 0;
}


int crawl__run_budget_stop(run *r) {
  while (r->o->pause && *r->o->pause && !(r->o->cancel && *r->o->cancel)) usleep(50000);
  if (r->o->cancel && *r->o->cancel) {
    r->cancelled = 1;
    if (!r->stopped_by) r->stopped_by = "signal";
    return 1;
  }
  if (r->stopped_by) return 1;
  if (r->sh ? r->sh_spent : r->transitions >= r->b.max_transitions) {
    r->stopped_by = "maxTransitions";
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "budget", "maxTransitions");
    cJSON_AddNumberToObject(o, "limit", (double)r->b.max_transitions);
    crawl__run_jl_write(r, "budget", o);
    return 1;
  }
  if (crawl__run_elapsed(r) >= r->b.max_runtime_ms) {
    r->stopped_by = "maxRuntimeMs";
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "budget", "maxRuntimeMs");
    cJSON_AddNumberToObject(o, "limit", (double)r->b.max_runtime_ms);
    crawl__run_jl_write(r, "budget", o);
    return 1;
  }
  return 0;
}

/* 1 when rc or the cancel flag says the run was cancelled (noted: the run
 * ends with what it collected, status "cancelled", whatever failed on the
 * way, since a cancel interrupts the browser call under way). */
int crawl__run_cancel_seen(run *r, crawl_code rc) {
  if (rc != CRAWL_CANCELLED && !(r->o->cancel && *r->o->cancel)) return 0;
  r->cancelled = 1;
  if (!r->stopped_by) r->stopped_by = "signal";
  return 1;
}

void crawl__run_note_error(run *r, crawl_code rc) {
  if (crawl__run_cancel_seen(r, rc)) {
    return;
  } else if (rc == CRAWL_GUARD) {
    /* fail closed: going on (or restarting into the same page) would run
     * something the guard does not cover */
    r->fatal = r->guard_stop = 1;
    r->stopped_by = "guard";
    snprintf(r->err, sizeof r->err, "%s", crawl_page_errmsg(r->page));
  } else if (rc == CRAWL_BROWSER || rc == CRAWL_CRASHED || rc == CRAWL_TIMEOUT) {
    if (!cdp_client_alive(r->c) || rc == CRAWL_CRASHED || rc == CRAWL_TIMEOUT) {
      r->fatal = 1;
      snprintf(r->err, sizeof r->err, "%s", crawl_page_errmsg(r->page));
    }
  }
}

void crawl__run_strv_free(char **v, size_t n) {
  for (size_t k = 0; k < n; k++) free(v[k]);
  free(v);
}

/* After the browser died or the tab crashed or hung: a new tab (or a new
 * browser), bounded. Under --connect (o->reconnect) a dead connection is a
 * dropped socket, not a crash: a pool closes long sessions. It is
 * reconnected, bounded by max_reconnects apart from max_restarts, noted in
 * the journal, not a review item. 0 when exploring can go on from a
 * restored state. */
int crawl__run_recover(run *r) {
  int browser_dead = !cdp_client_alive(r->c), dropped = browser_dead && r->o->reconnect;
  int mr = r->o->max_reconnects, max = dropped ? (mr > 0 ? mr : mr < 0 ? 0 : 10)
                                                : (r->o->max_restarts > 0 ? r->o->max_restarts : 3);
  int *count = dropped ? &r->reconnects : &r->restarts;
  const char *what = dropped ? "the connection to the browser pool dropped" : "the browser died";
  if (r->cancelled) return -1;
  if (r->guard_stop) {
    crawl__run_jl_note(r, "stopped: %s", r->err);
    return -1;
  }
  if (*count >= max) {
    crawl__run_jl_note(r, "stopped: %s; %d %s already, giving up", r->err, *count, dropped ? "reconnects" : "restarts");
    if (!r->stopped_by) r->stopped_by = "error";
    return -1;
  }
  (*count)++;
  long long t0 = cdp_now_ms();
  if (r->page) {
    r->dialogs += crawl_page_dialogs(r->page);
    r->popups += crawl_page_popups(r->page);
    r->reads_let += crawl_page_reads(r->page, NULL);
  }
  /* the fields the old tab found sensitive stay so in the new one */
  const char *const *old_keys;
  size_t nkeys = crawl__page_sensitive_keys(r->page, &old_keys);
  char **keys = crawl__xcalloc(nkeys + 1, sizeof *keys);
  for (size_t k = 0; k < nkeys; k++) keys[k] = crawl__xstrdup(old_keys[k]);
  crawl_page_close(r->page);
  r->page = NULL;
  if (browser_dead) {
    if (!r->o->relaunch || r->o->relaunch(r->o->relaunch_ud, &r->c) != CDP_OK) {
      crawl__run_jl_note(r, "stopped: %s (%s) and %s", what, r->err, dropped ? "reconnecting failed" : "could not be restarted");
      if (!r->stopped_by) r->stopped_by = "error";
      crawl__run_strv_free(keys, nkeys);
      return -1;
    }
  }
  crawl_code rc = crawl_page_open(r->c, &r->po, &r->page);
  if (!rc) {
    crawl__page_use_secrets(r->page, r->secrets);
    crawl__page_remember_keys(r->page, (const char *const *)keys, nkeys);
  }
  crawl__run_strv_free(keys, nkeys);
  if (rc && crawl__run_cancel_seen(r, rc)) return -1;
  if (rc) {
    crawl__run_jl_note(r, "stopped: could not open a new tab: %s", crawl_page_errmsg(r->page));
    if (!r->stopped_by) r->stopped_by = "error";
    return -1;
  }
  if (r->cur >= 0 && !dropped)
    crawl__run_jl_review(r, "custom", "high", r->cur, NULL, "Check the page for crashes or endless scripts.",
              "The %s while in this state (%s); it was replaced and exploring went on.",
              browser_dead ? "browser died" : "tab crashed or stopped answering", r->err);
  crawl__run_jl_note(r, "%s (%s); %s in %lld ms (%s %d of %d)", browser_dead ? what : "the tab crashed or hung", r->err,
          dropped ? "reconnected" : browser_dead ? "started a new browser" : "opened a new tab", cdp_now_ms() - t0,
          dropped ? "reconnect" : "restart", *count, max);
  r->fatal = 0;
  r->cur = -1;
  pg_graph_free(r->g);
  r->g = NULL;
  return 0;
}


/* Take known edge e from the current page. 0 when it landed where it did before. */
int crawl__run_walk_edge(run *r, const edge *e) {
  char why[256];
  crawl__run_net_mute(r, 1); /* its requests were recorded when it was taken first */
  crawl_code rc = replay(r, e->to, &e->a, why, sizeof why);
  if (!rc) crawl__run_observe(r, &rc, NULL);
  crawl__run_net_mute(r, 0);
  if (rc) { crawl__run_note_error(r, rc); return -1; }
  return r->cur == e->to ? 0 : -1;
}

/* The cheapest way back to a hash-routed state: a same-document navigation
 * from the page that is there (the app's router draws the route), kept only
 * when the capture is that state; otherwise the caller loads it afresh. An
 * app whose router does not answer hash changes stops being asked after a
 * few misses. 1: the page is in state si. */
static int hash_hop(run *r, int si) {
  const char *cur = r->page ? crawl_page_url(r->page) : NULL, *url = r->f.st[si].url;
  if (!cur || !url || (r->hops_bad >= 4 && r->hops_bad > 2 * r->hops_ok)) return 0;
  size_t lc = strcspn(cur, "#"), lu = strcspn(url, "#");
  if (lc != lu || strncmp(cur, url, lc) || !url[lu] || !strcmp(cur, url)) return 0;
  char why[512];
  crawl_code rc = crawl__run_navigate(r, url, 1, why, sizeof why);
  if (rc == CRAWL_ARG) return 0;
  if (!rc) crawl__run_observe(r, &rc, NULL);
  if (rc) {
    crawl__run_note_error(r, rc);
    return 0;
  }
  if (r->cur == si) r->hops_ok++;
  else r->hops_bad++;
  crawl_log(CRAWL_LOG_DEBUG, "restore", "state %s by a hash change: %s", r->f.st[si].id,
            r->cur == si ? "landed" : "landed elsewhere; loading it");
  return r->cur == si;
}

/* Bring the page to state si by reloading its nearest URL-addressable
 * ancestor and replaying the recorded path (the planner has already looked
 * for a cheaper path over known edges). 0 on success. */
static int restore_path(run *r, int si) {
  crawl_code rc;
  char why[256];
  /* ancestors of si, nearest first */
  int chain[256], nchain = 0;
  for (int a = si; a >= 0 && nchain < 256; a = r->f.st[a].parent) chain[nchain++] = a;
  for (int k = 0; k < nchain; k++) {
    state *a = &r->f.st[chain[k]];
    if (a->addressable == 0 || !url_loadable(r, chain[k])) continue;
    if (a->addressable < 0 && a->parent >= 0 && a->url && r->f.st[a->parent].url &&
        !strcmp(a->url, r->f.st[a->parent].url)) {
      a->addressable = 0; /* same URL as its parent: not URL-addressable */
      continue;
    }
    int hopped = hash_hop(r, chain[k]);
    if (r->fatal || r->cancelled || r->signed_out) return -1;
    if (hopped) rc = CRAWL_OK;
    else if ((rc = crawl__run_navigate(r, a->url, 0, why, sizeof why)) == CRAWL_OK) crawl__run_observe(r, &rc, NULL);
    else if (rc == CRAWL_ARG) { a->addressable = 0; continue; } /* refused: not by its URL */
    else { crawl__run_note_error(r, rc); if (r->fatal || r->cancelled) return -1; continue; }
    if (rc) { crawl__run_note_error(r, rc); if (r->fatal || r->cancelled || r->signed_out) return -1; continue; }
    if (r->cur != chain[k]) {
      if (a->addressable < 0) a->addressable = 0;
      continue;
    }
    if (!hopped) a->addressable = 1; /* a load showed it (a hop proves nothing about loads) */
    /* replay down the chain */
    int ok = 1;
    for (int j = k - 1; j >= 0 && ok; j--) {
      state *child = &r->f.st[chain[j]];
      rc = replay(r, chain[j], &child->via, why, sizeof why);
      if (rc) { crawl__run_note_error(r, rc); ok = 0; break; }
      crawl__run_observe(r, &rc, NULL);
      if (rc) { crawl__run_note_error(r, rc); ok = 0; break; }
      if (r->cur != chain[j]) ok = 0;
    }
    if (ok) return 0;
    if (r->fatal || r->cancelled || r->signed_out) return -1;
    break;
  }
  return -1;
}

/* State si could not be restored (for good): a review item. */
void crawl__run_unrestorable(run *r, int si) {
  crawl__run_jl_review(r, "custom", "medium", si, NULL,
            "Make the state reachable deterministically (a URL or a stable path).",
            "Could not restore state %s: replaying its recorded path landed in a different state.", r->f.st[si].id);
}


/* restore_path, timed as a whole (its loads, clicks and captures). */
int crawl__run_restore(run *r, int si) {
  if (r->cur == si) return 0;
  crawl_log(CRAWL_LOG_DEBUG, "restore", "state %s from %s", r->f.st[si].id, r->cur >= 0 ? r->f.st[r->cur].id : "an unknown state");
  long long t0 = cdp_now_ms();
  r->in_restore = 1;
  crawl__run_net_mute(r, 1); /* a load or replay recorded before */
  int rc = restore_path(r, si);
  crawl__run_net_mute(r, 0);
  r->in_restore = 0;
  crawl__timing_add(&r->tm, CRAWL_PH_RESTORE, cdp_now_ms() - t0);
  return rc;
}

/* The plan lets actions open WebSockets: environment.metadata.allowWebSockets
 * (the spec's safety policy has no word for it; docs/safety.md). */
static int plan_allows_websockets(const cJSON *plan) {
  const cJSON *env = cJSON_GetObjectItemCaseSensitive(crawl__run_plan_payload(plan), "environment");
  return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "metadata"),
                                                       "allowWebSockets"));
}

/* The reads a POST may be: crawl_opts.allow_reads, then the plan's
 * environment.metadata.allowRead (checked by crawl_plan_parse; at most 64). */
static const char *const *run_reads(run *r) {
  int n = 0;
  for (int i = 0; r->o->allow_reads && r->o->allow_reads[i] && n < 32; i++) r->reads[n++] = r->o->allow_reads[i];
  if (crawl_plan_allow_read(r->o->plan, r->reads, &n, 64, NULL) != CRAWL_OK) n = n > 64 ? 64 : n;
  r->reads[n] = NULL;
  return n ? r->reads : NULL;
}

/* The tab, behind the write guard unless the run may write. */
void crawl__run_open_tab(run *r) {
  const crawl_opts *o = r->o;
  r->allow_ws = plan_allows_websockets(o->plan);
  const char *const *reads = run_reads(r);
  r->load_blocked_seen = 0; /* a new tab counts from 0 */
  r->po = (crawl_page_opts){.width = o->width, .height = o->height, .locale = o->locale, .ax_record = 1,
                            .user_agent = o->user_agent,
                            .settle_quiet_ms = o->settle_quiet_ms ? o->settle_quiet_ms : 200,
                            .settle_early = !o->settle_quiet_ms, /* --settle-ms: the window asked for */
                            .settle_max_ms = o->settle_max_ms ? o->settle_max_ms : 3000,
                            .nav_timeout_ms = 15000, .call_timeout_ms = 10000,
                            .block_writes = crawl_guard_for_mode(&o->policy, 0),
                            .allow_websockets = r->allow_ws, .allow_beacons = o->allow_beacons,
                            .allow_reads = reads,
                            .allowed_origins = r->allowed,
                            .session = r->pri >= 0 ? &o->principals[r->pri].session : o->session,
                            .browser_context = r->pri >= 0 ? r->contexts[r->pri] : NULL,
                            .session_kept = r->pri >= 0 && r->kept[r->pri]};
  crawl_code rc = crawl_page_open(r->c, &r->po, &r->page);
  if (rc && crawl__run_cancel_seen(r, rc)) { /* cancelled while the tab opened: no tab, nothing failed */
    crawl_page_close(r->page);
    r->page = NULL;
    return;
  }
  if (rc) {
    snprintf(r->err, sizeof r->err, "%s", crawl_page_errmsg(r->page));
    crawl__run_jl_note(r, "could not open a tab: %s", r->err);
    r->fatal = 1;
    r->guard_stop = rc == CRAWL_GUARD;
    r->stopped_by = r->guard_stop ? "guard" : "error";
  } else {
    crawl__page_use_secrets(r->page, r->secrets);
    if (r->pri >= 0) r->kept[r->pri] = 1; /* a principal's own context keeps them */
  }
}

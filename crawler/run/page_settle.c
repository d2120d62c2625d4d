/* page_settle.c -- navigate and settle. A page is settled when no request
 * is in flight and no DOM mutation was reported (MutationObserver ->
 * Runtime.addBinding) for settle_quiet_ms, or when settle_max_ms has passed
 * (a page that never stops changing still moves on); with settle_early, as
 * soon as the page says nothing is pending. A page whose main thread stops
 * answering has its running script terminated; a navigation loop is
 * stopped. Also crawl_page_goto/load and crawl_page_wait_change.
 *
 * Not here: the events that move the counters (page.c), the page-side
 * pending counters (js/change_observer.js). docs/performance.md.
 */
#include "page_int.h"
#include "pg_url.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- navigate and settle ------------------------------------------------------ */
/* Requests younger than this hold settling; older ones are long polls,
 * beacons or requests whose end the browser never reported. */
#define INFLIGHT_STALE_MS 1500

static int busy_requests(const crawl_page *p, long long now) {
  int n = 0;
  for (int i = 0; i < p->ninflight; i++) n += now - p->inflight_t[i] < INFLIGHT_STALE_MS;
  return n;
}

/* ---- liveness, loops ----------------------------------------------------------- */
/* Top-level navigations within one load, or one settle, after which the page
 * is in a navigation loop (a location.replace or meta refresh loop, two pages
 * sending the browser to each other): it is stopped. Sign-in flows and
 * redirect chains commit a few documents; a loop commits one every 50-150 ms,
 * so this is 0.5-1.5 s of it. */
#define LOAD_MAX_NAVS 10
/* While waiting for load or settling, the page is asked for "0"
 * (Runtime.evaluate, served by its main thread) every PROBE_EVERY_MS. No
 * answer for HUNG_MS while the thread is running JavaScript (in_script)
 * means a script that does not yield (an endless loop, a dialog loop): it is
 * terminated, sooner than at the load timeout (crawl 15 s, snapshot 30 s).
 * Building 100,000 elements in script takes at most 2-4 s on a loaded 2-core
 * machine. */
#define PROBE_EVERY_MS 500
#define HUNG_MS 8000
#define UNSTICK_MS 2000

/* A navigation loop is broken by cancelling the page's next navigation of
 * its own (Navigation API: a "navigate" event whose default is prevented;
 * location.replace/assign/href, meta refresh, link clicks; never our
 * Page.navigate), once, in the current document and in the next one. The
 * page then stays on a whole document, which is captured; the load counts as
 * not settled. The guard for new documents is dropped when settling ends.
 * The script is js/navigation_loop_guard.js. */

static void stop_loop(crawl_page *p, const char *when, int navs) {
  crawl_log(CRAWL_LOG_WARN, "page", "%s: %d top-level navigations %s (a redirect or refresh loop?); stopping it",
            p->url ? p->url : "", navs, when);
  p->loop_stops++;
  if (!p->loop_guard) {
    cJSON *a = cJSON_CreateObject(), *res = NULL;
    cJSON_AddStringToObject(a, "source", CRAWL__JS(navigation_loop_guard));
    if (cdp_call(p->c, p->session, "Page.addScriptToEvaluateOnNewDocument", a, &res, 2000) == CDP_OK) {
      const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "identifier"));
      if (id) p->loop_guard = crawl__xstrdup(id);
    }
    cJSON_Delete(res);
  }
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "expression", CRAWL__JS(navigation_loop_guard));
  int id = cdp_send(p->c, p->session, "Runtime.evaluate", a);
  if (id > 0) cdp_abandon(p->c, id);
}

static void drop_loop_guard(crawl_page *p) {
  if (!p->loop_guard) return;
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "identifier", p->loop_guard);
  int id = cdp_send(p->c, p->session, "Page.removeScriptToEvaluateOnNewDocument", a);
  if (id > 0) cdp_abandon(p->c, id);
  free(p->loop_guard);
  p->loop_guard = NULL;
}

/* Asks the page for "0" within timeout_ms. 1: answered (an error reply,
 * e.g. no context during a navigation, is an answer too, and so is a
 * crash, which the caller reports); 0: no answer; -code: the call failed
 * otherwise (cancelled, the browser gone). */
/* A probe's answer: 1 answered (or crashed: the caller's to report), 0 no
 * answer in time, < 0 -crawl_code. */
static int probe_answer(crawl_page *p, cdp_code rc) {
  if (rc == CDP_OK || rc == CDP_REMOTE || p->crashed) return 1;
  if (rc == CDP_TIMEOUT) return 0;
  crawl__page_perr(p, "Runtime.evaluate");
  return -(int)crawl__page_from_cdp(p, rc);
}

static int probe(crawl_page *p, int timeout_ms) {
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "expression", "0");
  return probe_answer(p, cdp_call(p->c, p->session, "Runtime.evaluate", a, NULL, timeout_ms));
}

/* probe, asking the page what it still has pending (js/change_observer.js:
 * timers of up to 1 s, animation frames, running animations, a mutation
 * report not sent yet) into *pending (-1: it cannot say). */
static int probe_pending(crawl_page *p, int timeout_ms, int *pending) {
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  char *expr = crawl__xprintf("(()=>{const f=window['%s__pending'];return f?f():-1})()", p->binding);
  cJSON_AddStringToObject(a, "expression", expr);
  cJSON_AddBoolToObject(a, "returnByValue", 1);
  free(expr);
  cdp_code rc = cdp_call(p->c, p->session, "Runtime.evaluate", a, &res, timeout_ms);
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "result"), "value");
  *pending = rc == CDP_OK && cJSON_IsNumber(v) ? v->valueint : -1;
  cJSON_Delete(res);
  return probe_answer(p, rc);
}

/* 1 when the page's main thread is running JavaScript. Performance.getMetrics
 * is one of the DevTools commands Chromium delivers by interrupting running
 * JavaScript: it is answered while a script loops, but not while the thread
 * parses, lays out or paints (a page with 100,000 elements keeps it busy for
 * seconds on a loaded machine: that is not a script to terminate). */
static int in_script(crawl_page *p) {
  cdp_code rc = cdp_call(p->c, p->session, "Performance.getMetrics", NULL, NULL, 1000);
  return !p->crashed && (rc == CDP_OK || rc == CDP_REMOTE);
}

/* Runtime.terminateExecution is served off the page's main thread too: it
 * stops the running script, and the parser goes on. 1: terminated; 0: the
 * thread is not running a script (or answered after all). */
static int terminate_script(crawl_page *p, long long since) {
  if (!in_script(p) || probe(p, 200) != 0) return 0;
  cdp_call(p->c, p->session, "Runtime.terminateExecution", NULL, NULL, 2000);
  p->terminated++;
  crawl_log(CRAWL_LOG_WARN, "page", "the page's script did not yield for %lld ms (an endless loop?): terminated it",
            cdp_now_ms() - since);
  return 1;
}

typedef struct {
  long long next;          /* when the next probe is due */
  long long unanswered;    /* since when probes go unanswered, 0: they do not */
} liveness;

/* Probes the page if a probe is due, waiting at most until limit (the load
 * or settle deadline): a page that has answered nothing for HUNG_MS gets its
 * running script terminated. Returns CRAWL_OK or the error. */
static crawl_code live_check(crawl_page *p, liveness *l, long long limit) {
  long long now = cdp_now_ms();
  if (now < l->next || now >= limit) return CRAWL_OK;
  long long since = l->unanswered ? l->unanswered : now, to = since + HUNG_MS - now;
  if (to > limit - now) to = limit - now;
  int alive = probe(p, to > 1 ? (int)to : 1);
  if (alive < 0) return (crawl_code)-alive;
  now = cdp_now_ms();
  if (alive && now - since >= 1000)
    crawl_log(CRAWL_LOG_DEBUG, "page", "the page's main thread was busy for %lld ms", now - since);
  if (alive) {
    l->unanswered = 0;
    l->next = now + PROBE_EVERY_MS;
  } else {
    l->unanswered = since; /* cut short by limit: go on probing */
    if (now - since >= HUNG_MS) {
      /* terminated; or busy, but not in a script: another HUNG_MS */
      l->unanswered = terminate_script(p, since) ? 0 : cdp_now_ms();
      l->next = cdp_now_ms() + PROBE_EVERY_MS;
    }
  }
  return CRAWL_OK;
}

/* At the load timeout (always) or the settle cap (when a probe is
 * unanswered): wait for an answer until HUNG_MS have passed without one,
 * UNSTICK_MS at most, then terminate the running script, so that what it
 * built can be captured (every capture call would wait for it). */
static void unstick(crawl_page *p, liveness *l) {
  long long now = cdp_now_ms(), since = l->unanswered ? l->unanswered : now;
  long long to = since + HUNG_MS - now;
  if (to > UNSTICK_MS) to = UNSTICK_MS;
  if (probe(p, to > 1 ? (int)to : 1) != 0) return;
  if (terminate_script(p, since)) l->unanswered = 0;
}

/* ---- settle ---------------------------------------------------------------------- */
/* Settles the page; navs0: top-level navigations before the load or settle
 * (navigations beyond LOAD_MAX_NAVS from there are a loop). */
/* Settling on evidence (crawl_page_opts.settle_early): quiet for
 * EARLY_QUIET_MS with no request in flight, and the page says nothing is
 * pending: settled, without waiting out the whole quiet window. Asked once
 * per quiet spell. 1: settled early; 0: wait on; < 0: -crawl_code. */
#define EARLY_QUIET_MS 30
#define EARLY_PROBE_MS 500
static int settled_early(crawl_page *p, long long deadline, long long *asked, int *off) {
  long long now = cdp_now_ms();
  if (!p->o.settle_early || *off || *asked == p->last_activity || busy_requests(p, now) ||
      now - p->last_activity < EARLY_QUIET_MS || now >= deadline)
    return 0;
  *asked = p->last_activity;
  int pending = -1, alive = probe_pending(p, EARLY_PROBE_MS, &pending);
  if (alive < 0) return alive;
  if (!alive) *off = 1; /* its main thread is busy: the liveness rules below decide */
  return alive && pending == 0 && !p->crashed && !busy_requests(p, cdp_now_ms()) && *asked == p->last_activity;
}

static crawl_code settle_until(crawl_page *p, int navs0) {
  long long start = cdp_now_ms(), deadline = start + p->o.settle_max_ms, asked = -1;
  int early_off = 0;
  if (p->last_activity < start - p->o.settle_quiet_ms) p->last_activity = start - p->o.settle_quiet_ms / 2;
  p->settled = p->still = 0;
  liveness live = {start + PROBE_EVERY_MS, 0};
  for (;;) {
    long long now = cdp_now_ms();
    if (p->crashed) {
      snprintf(p->err, sizeof p->err, "the page crashed");
      return CRAWL_CRASHED;
    }
    if (p->navs - navs0 > LOAD_MAX_NAVS) {
      stop_loop(p, "while settling", p->navs - navs0);
      navs0 = p->navs;
    }
    int early = settled_early(p, deadline, &asked, &early_off);
    if (early < 0) return (crawl_code)-early;
    if (early) {
      p->settled = !p->loop_stops && !p->terminated;
      p->still = p->settled;
      p->still_at = p->last_activity;
      return CRAWL_OK;
    }
    now = cdp_now_ms();
    if (busy_requests(p, now) == 0 && now - p->last_activity >= p->o.settle_quiet_ms && now < deadline) {
      /* quiet: and does its main thread answer? (a script that started an
       * endless loop is quiet too) */
      long long sent = cdp_now_ms();
      int alive = probe(p, deadline - sent > 1 ? (int)(deadline - sent) : 1);
      if (alive < 0) return (crawl_code)-alive;
      if (p->crashed) continue;
      if (!alive) {
        if (!live.unanswered) live.unanswered = sent;
        continue; /* at the cap now: unstick */
      }
      now = cdp_now_ms();
      if (busy_requests(p, now) == 0 && now - p->last_activity >= p->o.settle_quiet_ms) {
        /* a stopped loop or a terminated script did not come to rest by itself */
        p->settled = !p->loop_stops && !p->terminated;
        return CRAWL_OK;
      }
    }
    if (now >= deadline) {
      crawl_log(CRAWL_LOG_DEBUG, "page", "not settled after %d ms (%d requests in flight%s%s, last activity %lld ms ago)",
                p->o.settle_max_ms, p->ninflight, p->ninflight ? ": " : "", p->ninflight ? p->inflight[0] : "",
                now - p->last_activity);
      if (live.unanswered) unstick(p, &live);
      return CRAWL_OK;
    }
    crawl_code lc = live_check(p, &live, deadline);
    if (lc) return lc;
    now = cdp_now_ms();
    long long wait = p->o.settle_quiet_ms - (now - p->last_activity);
    if (p->o.settle_early && !early_off && asked != p->last_activity &&
        wait > EARLY_QUIET_MS - (now - p->last_activity))
      wait = EARLY_QUIET_MS - (now - p->last_activity); /* wake for the early look */
    if (wait < 10) wait = 10;
    if (wait > deadline - now) wait = deadline - now;
    if (wait > live.next - now) wait = live.next - now;
    if (wait < 1) wait = 1;
    cdp_code rc = crawl__page_pump(p, (int)wait);
    if (rc) {
      crawl__page_perr(p, "while waiting for the page to settle");
      return crawl__page_from_cdp(p, rc);
    }
  }
}

static crawl_code settle(crawl_page *p, int navs0) {
  crawl_code rc = settle_until(p, navs0);
  drop_loop_guard(p);
  return rc;
}

crawl_code crawl_page_settle(crawl_page *p) {
  crawl_code rc = settle(p, p->navs);
  return rc ? rc : crawl__page_guard_check(p);
}

int crawl_page_settled(const crawl_page *p) { return p->settled; }

int crawl_page_still(const crawl_page *p) {
  return p->still && p->last_activity == p->still_at && !p->ninflight && !p->crashed;
}

unsigned long crawl_page_changes(const crawl_page *p) { return p->changes; }

crawl_code crawl_page_wait_change(crawl_page *p, int timeout_ms) {
  unsigned long seen = p->changes;
  long long deadline = cdp_now_ms() + timeout_ms;
  for (;;) {
    if (p->changes != seen) return CRAWL_OK;
    if (p->crashed) {
      snprintf(p->err, sizeof p->err, "the page crashed");
      return CRAWL_CRASHED;
    }
    long long left = deadline - cdp_now_ms();
    if (left <= 0) return CRAWL_TIMEOUT;
    cdp_code rc = crawl__page_pump(p, (int)left);
    if (rc) {
      crawl__page_perr(p, "while waiting for a change");
      return crawl__page_from_cdp(p, rc);
    }
  }
}

/* The load event waits for no request pending this long once the document
 * is parsed (a hung image or script): we go on when the rest is quiet. */
#define LOAD_STALE_MS 5000

static crawl_code page_goto(crawl_page *p, const char *url, int fresh);
crawl_code crawl_page_goto(crawl_page *p, const char *url) { return page_goto(p, url, 0); }
crawl_code crawl_page_load(crawl_page *p, const char *url) { return page_goto(p, url, 1); }

/* With block_writes: url's origin joins the allowed ones (the seed's own
 * origin is always allowed). */
static void allow_origin_of(crawl_page *p, const char *url) {
  char o[512];
  crawl__page_url_origin(url, o, sizeof o);
  int known = 0;
  for (int i = 0; i < p->nallowed; i++)
    if (!strcmp(p->allowed[i], o)) known = 1;
  if (!known && o[0] && p->nallowed < 64) p->allowed[p->nallowed++] = crawl__xstrdup(o);
}

/* Page.navigate to url; *same_doc: it was a same-document navigation. */
crawl_code crawl__page_navigate(crawl_page *p, const char *url, int *same_doc) {
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddStringToObject(a, "url", url);
  cdp_code nr = cdp_call(p->c, p->session, "Page.navigate", a, &res, p->o.nav_timeout_ms);
  if (nr == CDP_TIMEOUT && !p->crashed) {
    snprintf(p->err, sizeof p->err, "cannot load %s: no response within %d ms", url, p->o.nav_timeout_ms);
    return CRAWL_TIMEOUT;
  }
  if (nr) crawl__page_perr(p, "Page.navigate");
  crawl_code rc = crawl__page_from_cdp(p, nr);
  if (rc) return rc;
  const char *err = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "errorText"));
  const char *frame = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "frameId"));
  if (frame) {
    free(p->main_frame);
    p->main_frame = crawl__xstrdup(frame);
  }
  *same_doc = cJSON_GetObjectItemCaseSensitive(res, "loaderId") == NULL;
  if (err && *err) {
    snprintf(p->err, sizeof p->err, "cannot load %s: %s", url, err);
    cJSON_Delete(res);
    return CRAWL_NAVIGATE;
  }
  cJSON_Delete(res);
  return CRAWL_OK;
}

/* Wait for the load event, at most until deadline; also done when only
 * stale requests hold it, when the page loops (stopped), or at the deadline
 * (its running script unstuck). */
crawl_code crawl__page_wait_load(crawl_page *p, const char *url, long long deadline, int navs0) {
  liveness live = {cdp_now_ms() + PROBE_EVERY_MS, 0};
  crawl_code rc;
  while (!p->loaded) {
    long long now = cdp_now_ms(), left = deadline - now;
    int young = 0;
    for (int i = 0; i < p->ninflight; i++) young += now - p->inflight_t[i] < LOAD_STALE_MS;
    if (p->dcl && p->ninflight && !young && now - p->last_activity >= p->o.settle_quiet_ms) {
      crawl_log(CRAWL_LOG_INFO, "page", "%s: the load event waits for %d requests pending for %d ms or more; going on",
                url, p->ninflight, LOAD_STALE_MS);
      break;
    }
    if (p->navs - navs0 > LOAD_MAX_NAVS) {
      stop_loop(p, "without a load event", p->navs - navs0);
      break;
    }
    if (p->crashed) {
      snprintf(p->err, sizeof p->err, "the page crashed while loading %s", url);
      return CRAWL_CRASHED;
    }
    if (left <= 0) {
      crawl_log(CRAWL_LOG_WARN, "page", "%s: no load event within %d ms; capturing what is there",
                url, p->o.nav_timeout_ms);
      unstick(p, &live);
      break;
    }
    if ((rc = live_check(p, &live, deadline))) return rc;
    now = cdp_now_ms();
    long long wait = deadline - now;
    if (wait > live.next - now) wait = live.next - now;
    if (wait > 200) wait = 200;
    if (wait < 1) wait = 1;
    cdp_code r = crawl__page_pump(p, (int)wait);
    if (r) {
      crawl__page_perr(p, "while loading");
      return crawl__page_from_cdp(p, r);
    }
  }
  return CRAWL_OK;
}

static crawl_code page_goto(crawl_page *p, const char *url, int fresh) {
  if (crawl__page_guard_check(p)) return CRAWL_GUARD;
  if (p->o.block_writes || p->o.session) allow_origin_of(p, url);
  if (strcmp(url, "about:blank")) {
    free(p->goto_url);
    p->goto_url = crawl__xstrdup(url);
  }
  crawl__page_ws_block_set(p, 0); /* a load's own WebSockets are the app's, not an action's */
  if (fresh && p->url) {
    /* the same document with another fragment would be a same-document
     * navigation, which keeps the page's state: leave it first */
    size_t lc = pg_url_fragment_start(p->url), ln = pg_url_fragment_start(url);
    if (lc == ln && !strncmp(p->url, url, lc)) {
      crawl_code r0 = page_goto(p, "about:blank", 0);
      if (r0) return r0;
    }
  }
  p->loaded = p->dcl = 0;
  p->loop_stops = p->terminated = 0;
  crawl__page_clear_inflight(p);
  /* one deadline for the response and the load: a server that never
   * answers holds Page.navigate */
  long long deadline = cdp_now_ms() + p->o.nav_timeout_ms;
  int navs0 = p->navs, same_doc = 0;
  crawl_code rc = crawl__page_navigate(p, url, &same_doc);
  if (rc) return rc;
  crawl__page_set_url(p, url);
  if (!same_doc && (rc = crawl__page_wait_load(p, url, deadline, navs0))) return rc;
  return settle(p, p->loop_stops ? p->navs : navs0);
}

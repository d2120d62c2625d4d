/* browser.c -- the run's browser as the caller hands it over and gets it
 * back: a connection to a browser pool behind --connect (waiting while it
 * is busy, closing what a dropped connection left open), and a new browser
 * or a new connection after the old one was lost (crawl_relaunch, for
 * crawl_opts.relaunch). Starting the first browser is cdp_launch's. */
#include "crawl.h"

#include <stdio.h>

/* cdp_connect_opts.on_busy: each refusal, at --verbose. */
static void pool_busy(void *ud, int status, int attempt, int wait_ms) {
  (void)ud;
  crawl_log(CRAWL_LOG_INFO, "browser", "the browser pool answered HTTP %d (try %d); trying again in %d ms", status,
            attempt, wait_ms);
}

cdp_code crawl_pool_connect(const char *url, long timeout_ms, const cdp_client *previous,
                            volatile sig_atomic_t *cancel, cdp_client **c, char *err, size_t errlen) {
  cdp_connect_opts o = {.attempt_ms = 10000, .busy_ms = timeout_ms > 0 ? (int)timeout_ms : 60000,
                        .on_busy = pool_busy, .cancel = cancel, .previous = previous};
  cdp_connect_report rep;
  cdp_code rc = cdp_connect_ex(url, &o, c, &rep, err, errlen);
  if (rc != CDP_OK) return rc;
  if (rep.busy)
    crawl_log(CRAWL_LOG_WARN, "browser", "the browser pool was at its concurrency limit (HTTP %d, %d answer%s): "
              "the run was slowed by %.1f s", rep.last_status, rep.busy, rep.busy == 1 ? "" : "s",
              (double)rep.waited_ms / 1000.0);
  if (rep.stale_closed)
    crawl_log(CRAWL_LOG_INFO, "browser", "closed %d tab%s the dropped connection left open", rep.stale_closed,
              rep.stale_closed == 1 ? "" : "s");
  cdp_client_set_cancel(*c, cancel);
  return CDP_OK;
}

cdp_code crawl_relaunch(void *ud, cdp_client **c) {
  crawl_relaunch_ctx *x = ud;
  cdp_client *old = *c;
  *c = *x->c = NULL;
  char err[1024] = "";
  cdp_code rc;
  if (x->connect) {
    rc = crawl_pool_connect(x->connect, x->connect_timeout_ms, old, x->cancel, c, err, sizeof err);
    cdp_client_free(old);
  } else {
    cdp_client_free(old); /* reaps the dead one and removes its profile */
    rc = cdp_launch(&x->lo, c, err, sizeof err);
    if (!rc) cdp_client_set_cancel(*c, x->cancel);
  }
  *x->c = *c;
  if (rc == CDP_CANCELLED) return rc; /* a signal: the run ends as cancelled */
  if (rc) {
    snprintf(x->err, sizeof x->err, "%s failed: %s", x->connect ? "reconnecting to the browser" : "restarting the browser",
             err);
    return rc;
  }
  x->err[0] = 0;
  return CDP_OK;
}

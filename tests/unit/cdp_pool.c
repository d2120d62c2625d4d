/* cdp_pool.c -- cdp_connect_ex against a busy browser pool (the proxy of
 * tests/support/pool_proxy.c answering every connection 429 or 503): what
 * it waits, when it gives up, what it says; and Retry-After parsing. No
 * browser needed. */
#include <criterion/criterion.h>

#include "cdp_int.h"
#include "pool_proxy.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

Test(cdp_pool, retry_after_values) {
  cr_expect_eq(cdp__retry_after_ms("1"), 1000);
  cr_expect_eq(cdp__retry_after_ms(" 120"), 120000);
  cr_expect_eq(cdp__retry_after_ms("0"), 0);
  cr_expect_eq(cdp__retry_after_ms("99999999"), 86400 * 1000, "capped at a day");
  cr_expect_eq(cdp__retry_after_ms("soon"), -1);
  cr_expect_eq(cdp__retry_after_ms(""), -1);
  char date[64];
  time_t t = time(NULL) + 30;
  strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", gmtime(&t));
  int ms = cdp__retry_after_ms(date);
  cr_expect(ms > 27000 && ms <= 30000, "an HTTP-date 30 s ahead: %d ms", ms);
  cr_expect_eq(cdp__retry_after_ms("Sun, 06 Nov 1994 08:49:37 GMT"), 0, "a date in the past: at once");
}

typedef struct { int calls, min_wait, status; } busy_log;
static void on_busy(void *ud, int status, int attempt, int wait_ms) {
  busy_log *b = ud;
  b->calls++;
  b->status = status;
  if (b->min_wait == 0 || wait_ms < b->min_wait) b->min_wait = wait_ms;
  (void)attempt;
}

static t_pool_proxy *busy_pool(int retry_after_s, char *url, size_t len, const char *path) {
  t_pool_proxy_opts po = {.upstream_port = 9, .busy_always = 1, .retry_after_s = retry_after_s};
  t_pool_proxy *px = t_pool_proxy_start(&po);
  cr_assert(px);
  snprintf(url, len, "%s://127.0.0.1:%d%s", *path ? "ws" : "http", t_pool_proxy_port(px), path);
  return px;
}

/* Without busy_ms: CDP_BUSY at the first answer, which the line names. */
Test(cdp_pool, busy_without_retries_is_busy_at_once) {
  static const char *const paths[] = {"", "/devtools/browser/x", "?token=x"}; /* "": http:// */
  for (int k = 0; k < 3; k++) {
    char url[128], err[512] = "";
    t_pool_proxy *px = busy_pool(1, url, sizeof url, paths[k]);
    cdp_client *c = (cdp_client *)1;
    cdp_connect_report rep;
    long long t0 = cdp_now_ms();
    cdp_code rc = cdp_connect_ex(url, NULL, &c, &rep, err, sizeof err);
    cr_expect_eq(rc, CDP_BUSY, "%s: %s (%s)", url, cdp_strerror(rc), err);
    cr_expect_null(c);
    cr_expect_eq(rep.busy, 1);
    cr_expect_eq(rep.last_status, 429);
    cr_expect(cdp_now_ms() - t0 < 1000, "%s: no waiting", url);
    cr_expect(strstr(err, "429") && !strchr(err, '\n'), "%s: one line naming the status: %s", url, err);
    t_pool_proxy_stop(px);
  }
}

/* With busy_ms: waits at least Retry-After between tries, gives up before
 * the deadline would pass, says so in one line. */
Test(cdp_pool, busy_retries_until_the_deadline) {
  char url[128], err[512] = "";
  t_pool_proxy *px = busy_pool(1, url, sizeof url, "");
  busy_log b = {0};
  cdp_connect_opts o = {.busy_ms = 3500, .on_busy = on_busy, .ud = &b};
  cdp_client *c = NULL;
  cdp_connect_report rep;
  long long t0 = cdp_now_ms();
  cdp_code rc = cdp_connect_ex(url, &o, &c, &rep, err, sizeof err);
  long long took = cdp_now_ms() - t0;
  cr_expect_eq(rc, CDP_BUSY, "%s (%s)", cdp_strerror(rc), err);
  cr_expect(took >= 2000 && took <= 3600, "gave up within the deadline, after waiting (%lld ms)", took);
  cr_expect_geq(b.calls, 2, "tried again (%d waits)", b.calls);
  cr_expect_geq(b.min_wait, 1000, "each wait honours Retry-After: 1 (%d ms)", b.min_wait);
  cr_expect_eq(rep.busy, b.calls + 1);
  cr_expect_geq(rep.waited_ms, 2000);
  cr_expect(strstr(err, "concurrency limit") && strstr(err, "HTTP 429") && !strchr(err, '\n'), "%s", err);
  t_pool_proxy_stop(px);
}

/* A Retry-After longer than the time left: no pointless wait. */
Test(cdp_pool, retry_after_past_the_deadline_gives_up_at_once) {
  char url[128], err[512] = "";
  t_pool_proxy *px = busy_pool(30, url, sizeof url, "/devtools/browser/x");
  cdp_connect_opts o = {.busy_ms = 5000};
  cdp_client *c = NULL;
  long long t0 = cdp_now_ms();
  cr_expect_eq(cdp_connect_ex(url, &o, &c, NULL, err, sizeof err), CDP_BUSY, "%s", err);
  cr_expect(cdp_now_ms() - t0 < 1500, "no wait for a Retry-After beyond the deadline");
  t_pool_proxy_stop(px);
}

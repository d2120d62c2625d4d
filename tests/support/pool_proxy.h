/* pool_proxy.h -- a browser pool to test against: a TCP proxy on loopback in
 * front of a Chromium's --remote-debugging-port (tests/e2e/pool.c). It
 * forwards bytes both ways, answers chosen connections with `HTTP/1.1 429
 * Too Many Requests` and a Retry-After header as a pool at its concurrency
 * limit does, and drops a proxied WebSocket mid-run as a pool that closes
 * long sessions does. It runs on a thread of the test process; nothing in
 * it asserts (it may not: Criterion asserts only on the test's thread). */
#ifndef UIAP_TEST_POOL_PROXY_H
#define UIAP_TEST_POOL_PROXY_H

typedef struct {
  int upstream_port;      /* the browser's port on 127.0.0.1 */
  /* Which connections get 429 instead of the browser, by the order in
   * which their request head arrived, counted apart for plain HTTP (GET
   * /json/version) and for WebSocket upgrades: bit k of busy_http is the
   * k-th HTTP request (from 0), bit k of busy_ws the k-th upgrade. */
  unsigned busy_http, busy_ws;
  int busy_always;        /* every connection gets 429 */
  int retry_after_s;      /* the Retry-After value sent with 429; 0: 1 */
  /* Drop (close both ways) a forwarded WebSocket drop_after_ms after it
   * opened, or as soon as drop_when(drop_ud) returns non-zero (polled
   * about every 100 ms on the proxy's thread); at most drop_max of them
   * (0: 1). Neither set: never. */
  int drop_after_ms;
  int (*drop_when)(void *ud);
  void *drop_ud;
  int drop_max;
} t_pool_proxy_opts;

typedef struct {
  int http, ws;           /* request heads seen: plain HTTP, WebSocket upgrades */
  int busy;               /* answered 429 */
  int dropped;            /* WebSockets dropped mid-session */
} t_pool_proxy_stats;

typedef struct t_pool_proxy t_pool_proxy;

/* Listen on 127.0.0.1 (a free port) and serve until t_pool_proxy_stop; NULL
 * (with a line on stderr) when it cannot start. opts is copied. */
t_pool_proxy *t_pool_proxy_start(const t_pool_proxy_opts *opts);
int t_pool_proxy_port(const t_pool_proxy *p);
t_pool_proxy_stats t_pool_proxy_stats_get(t_pool_proxy *p);
/* Stop the thread, close every connection, free p. NULL is a no-op. */
void t_pool_proxy_stop(t_pool_proxy *p);

#endif

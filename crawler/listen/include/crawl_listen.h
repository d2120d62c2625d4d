/* crawl_listen.h -- `uiap-crawl listen`: UIAP sessions over a WebSocket on
 * loopback (docs/listen.md). A client connects to
 * ws://127.0.0.1:PORT/uiap?token=TOKEN, sends session.initialize, and then
 * the web profile's requests (web.state.get, web.observe.*) and the
 * discovery extension's (uiap.discovery.*). Every session gets its own
 * browsers: one for web.state.get, one per observation, one per discovery
 * run (in threads, so the socket keeps serving).
 *
 * Library code never prints: the caller learns the address through on_ready.
 */
#ifndef UIAP_CRAWL_LISTEN_H
#define UIAP_CRAWL_LISTEN_H

#include <signal.h>

#include "crawl.h"

typedef struct crawl_listen_opts {
  const char *url;              /* the page web.state.get and web.observe work on */
  int port;                     /* 0: any free port */
  const char *token;            /* NULL: 32 random hex digits */
  const char *runs_dir;         /* discovery runs write RUNS_DIR/<runId>/ (created);
                                   NULL: a new directory under $TMPDIR */
  cdp_launch_opts launch;       /* for every browser a session starts */
  int width, height;            /* viewport; 0: 1280x800 */
  volatile sig_atomic_t *cancel; /* set: stop serving (sessions are ended) */
  /* called once the socket listens (borrowed strings) */
  void (*on_ready)(void *ud, const char *url, const char *token);
  void *ud;
} crawl_listen_opts;

/* Serve until *cancel. CRAWL_OK after cancel; CRAWL_ARG / CRAWL_BROWSER
 * etc. with one line in err when it cannot listen. */
crawl_code crawl_listen_run(const crawl_listen_opts *o, char *err, size_t errlen);

/* 1 when an Origin header value may connect: empty/NULL (no browser), or
 * http(s) on 127.0.0.1, localhost or [::1] with any port. */
int crawl_listen_origin_ok(const char *origin);

#endif

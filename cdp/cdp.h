/* cdp.h -- the Chrome DevTools Protocol client: the public API.
 *
 * A client owns one connection to one browser: either a Chromium it launched
 * itself (over --remote-debugging-pipe, so the browser dies with us) or a
 * running browser it attached to over a WebSocket (--connect). The core is
 * asynchronous (cdp_send / cdp_pump dispatch replies and events as they
 * arrive); cdp_call is the blocking convenience on top of it.
 *
 * Threading: a client is used from one thread. Library code never prints;
 * errors come back as a cdp_code, detail via cdp_client_errmsg().
 *
 * Ownership: params passed to cdp_send/cdp_call are consumed (freed by the
 * client, even on error). Results handed back through out-parameters belong
 * to the caller (cJSON_Delete; raw reply text: free). Event params passed to callbacks belong to
 * the client and are only valid during the callback.
 */
#ifndef UIAP_CDP_H
#define UIAP_CDP_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

/* One error enum for the module, generated from one list (name, message). */
#define CDP_ERRNO_MAP(X)                                                    \
  X(OK,        "ok")                                                         \
  X(NOMEM,     "out of memory")                                              \
  X(ARG,       "invalid argument")                                           \
  X(NOBROWSER, "no Chromium binary found")                                   \
  X(LAUNCH,    "could not start Chromium")                                   \
  X(CONNECT,   "could not connect to the browser")                           \
  X(TIMEOUT,   "timed out waiting for the browser")                          \
  X(CLOSED,    "the browser connection closed")                              \
  X(PROTO,     "malformed message from the browser")                         \
  X(REMOTE,    "the browser returned an error")                              \
  X(CANCELLED, "cancelled by signal")                                        \
  X(CRASHED,   "the page crashed")                                          \
  X(BUSY,      "the browser pool is at its concurrency limit")

typedef enum {
#define CDP__ENUM(name, msg) CDP_##name,
  CDP_ERRNO_MAP(CDP__ENUM)
#undef CDP__ENUM
  CDP__ECOUNT
} cdp_code;

const char *cdp_strerror(cdp_code code);

typedef struct cdp_client cdp_client;

/* Options for cdp_launch; zero means the default. */
typedef struct cdp_launch_opts {
  const char *chromium;     /* binary; NULL: $UIAP_CHROMIUM, then PATH search */
  int headful;              /* 1: no --headless */
  int width, height;        /* window size; 0: 1280x800 */
  int timeout_ms;           /* start-up timeout; 0: 20000 */
  const char *const *extra_args; /* NULL-terminated extra flags, or NULL */
  const char *lang;         /* --lang=..., or NULL */
  int sandbox;              /* 0: Chromium's sandbox unless running as root
                               (where it cannot start with one) or
                               $UIAP_NO_SANDBOX is set (not "0"); 1: always;
                               -1: never (--no-sandbox) */
  const char *user_data_dir; /* a browser profile to use (--user-data-dir),
                               kept: never removed or cleaned; NULL: a fresh
                               temporary one. Either way a temporary
                               directory holds Chromium's log and temp files
                               (cdp_client_profile) and is removed. */
} cdp_launch_opts;

/* Whether cdp_launch with these options starts Chromium with its sandbox
 * (1) or with --no-sandbox (0). opts may be NULL (the defaults). */
int cdp_launch_sandboxed(const cdp_launch_opts *opts);

/* Launch Chromium with a fresh temporary profile (or opts->user_data_dir)
 * over --remote-debugging-pipe.
 * On success *out is a connected client; on error *out is NULL and, if errbuf
 * is given, a one-line reason is written there. */
cdp_code cdp_launch(const cdp_launch_opts *opts, cdp_client **out,
                    char *errbuf, size_t errlen);

/* Attach to a running browser. url is ws://HOST:PORT/devtools/browser/ID or
 * http://HOST:PORT (the endpoint is read from /json/version). */
cdp_code cdp_connect(const char *url, int timeout_ms, cdp_client **out,
                     char *errbuf, size_t errlen);

/* Options for cdp_connect_ex; zero means the default. */
typedef struct cdp_connect_opts {
  int attempt_ms;     /* one attempt (/json/version, the WebSocket handshake,
                         Browser.getVersion); 0: 10000 */
  int busy_ms;        /* while the endpoint answers HTTP 429 or 503 (a pool at
                         its concurrency limit), keep trying for this long
                         overall, with exponential backoff and jitter (500 ms
                         doubling to 10 s, at least its Retry-After); 0: do
                         not retry (CDP_BUSY at once) */
  void (*on_busy)(void *ud, int status, int attempt, int wait_ms); /* before each wait */
  void *ud;
  volatile sig_atomic_t *cancel; /* a wait ends early (CDP_CANCELLED) when non-zero */
  const cdp_client *previous; /* a reconnect: the targets this dead connection
                         created and did not close (and their popups) are
                         closed if the browser still has them */
} cdp_connect_opts;

/* What cdp_connect_ex went through; zero-initialised by it. */
typedef struct cdp_connect_report {
  int busy;             /* answers of 429 or 503 */
  int last_status;      /* the last of them */
  long long waited_ms;  /* spent waiting between attempts */
  int stale_closed;     /* targets of `previous` closed */
} cdp_connect_report;

/* cdp_connect, retrying while the endpoint is busy (o->busy_ms). Both the
 * HTTP GET of /json/version (an http:// endpoint, re-read on every attempt:
 * a pool hands out a new WebSocket URL per session) and the WebSocket
 * upgrade count: their status is read from the answer. Other failures
 * (refused, not a browser) are not retried. CDP_BUSY when the deadline
 * passed while busy (err says for how long and how often). o and rep may be
 * NULL; rep is filled on success and failure. */
cdp_code cdp_connect_ex(const char *url, const cdp_connect_opts *o, cdp_client **out,
                        cdp_connect_report *rep, char *errbuf, size_t errlen);

/* Close the connection. A launched browser is terminated (its whole process
 * group), reaped, and its temporary profile removed. NULL is a no-op. */
void cdp_client_free(cdp_client *c);

/* Last error detail, e.g. "Page.navigate: -32000 Cannot navigate to invalid URL". */
const char *cdp_client_errmsg(const cdp_client *c);
/* The CDP {code} of the last CDP_REMOTE error, 0 otherwise. */
int cdp_client_remote_code(const cdp_client *c);
/* pid of the launched browser (0 for --connect). */
pid_t cdp_client_pid(const cdp_client *c);
/* The temporary profile directory of a launched browser, NULL for --connect. */
const char *cdp_client_profile(const cdp_client *c);
/* 1 while the transport is up. */
int cdp_client_alive(const cdp_client *c);

/* Calls return CDP_CANCELLED as soon as *flag becomes non-zero (set it from a
 * signal handler). */
void cdp_client_set_cancel(cdp_client *c, volatile sig_atomic_t *flag);

/* Asynchronous core. cdp_send queues a command (session NULL = browser) and
 * returns its id (> 0), or a negative cdp_code. */
int cdp_send(cdp_client *c, const char *session, const char *method, cJSON *params);
/* Wait for the reply to id. *result (may be NULL) receives the "result"
 * object on success. Events arriving meanwhile are dispatched. */
cdp_code cdp_wait(cdp_client *c, int id, cJSON **result, int timeout_ms);
/* Fail every pending call on session now (its target crashed or detached):
 * waiters get CDP_REMOTE with `why`, instead of waiting for their timeout. */
void cdp_fail_session(cdp_client *c, const char *session, const char *why);
/* Forget a pending id: its reply will be dropped when it arrives. */
void cdp_abandon(cdp_client *c, int id);

/* Raw replies, for big results that the caller parses itself (e.g.
 * DOMSnapshot.captureSnapshot: ~10 MB of mostly integers on a 50,000-element
 * page, several times that as a cJSON tree). cdp_send_raw is cdp_send, but a
 * successful reply is kept as text and never parsed by the client: its id is
 * read from the message head. An error reply is parsed as usual.
 *
 * cdp_wait_raw waits like cdp_wait. On CDP_OK *json is the whole reply
 * message text, e.g. {"id":7,"result":{...},"sessionId":"..."}, NUL-terminated
 * at (*json)[*len]; the caller frees it with free(). It is handed over without
 * a copy. On error *json is NULL and *len 0; a CDP error gives CDP_REMOTE with
 * the {code, message} in cdp_client_errmsg/cdp_client_remote_code.
 * cdp_wait_raw also accepts an id from cdp_send (the text is then printed from
 * the parsed reply), and cdp_wait an id from cdp_send_raw (the text is parsed;
 * CDP_PROTO if it is not JSON). len may be NULL. */
int cdp_send_raw(cdp_client *c, const char *session, const char *method, cJSON *params);
cdp_code cdp_wait_raw(cdp_client *c, int id, char **json, size_t *len, int timeout_ms);

/* Blocking call = cdp_send + cdp_wait. */
cdp_code cdp_call(cdp_client *c, const char *session, const char *method,
                  cJSON *params, cJSON **result, int timeout_ms);

/* Event subscription. method NULL matches every event. Returns a handle > 0
 * for cdp_off, or 0 on out of memory. */
typedef void (*cdp_event_cb)(void *ud, const char *session, const char *method,
                             const cJSON *params);
int cdp_on(cdp_client *c, const char *method, cdp_event_cb cb, void *ud);
void cdp_off(cdp_client *c, int handle);

/* Read and dispatch whatever arrives for up to timeout_ms (0: only what is
 * already there). CDP_OK on timeout without error. */
cdp_code cdp_pump(cdp_client *c, int timeout_ms);

/* Rewrite unpaired UTF-16 surrogate escapes ("\\ud800") in JSON text to
 * "\\ufffd", in place (same length), so a strict parser accepts a page's
 * broken strings. Returns how many were rewritten. */
int cdp_json_fix_surrogates(char *json, size_t len);

/* Monotonic milliseconds, for callers measuring their own deadlines. */
long long cdp_now_ms(void);

/* Helper: create a page target, attach with flatten:true, return the new
 * session id (caller frees) and target id (caller frees; may be NULL). */
cdp_code cdp_open_page(cdp_client *c, const char *url, char **session,
                       char **target_id, int timeout_ms);
/* The same in browser context context_id (Target.createBrowserContext; its
 * own cookies and storage); NULL: the default context. */
cdp_code cdp_open_page_in(cdp_client *c, const char *context_id, const char *url, char **session,
                          char **target_id, int timeout_ms);

#endif

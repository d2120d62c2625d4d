/* listen_int.h -- private to crawler/listen: the session (listen_session.c,
 * listen_web.c, listen_discovery.c) and its outgoing queue (listen_send.c),
 * which the server (listen.c) drains from its WRITEABLE callback. */
#ifndef UIAP_LISTEN_INT_H
#define UIAP_LISTEN_INT_H

#include <limits.h>
#include <pthread.h>

#include "crawl_listen.h"

#define LSN_MAX_RUNS 16

typedef struct lsn_out {
  char *text;
  struct lsn_out *next;
} lsn_out;

typedef struct lsn_session lsn_session;

/* One discovery run of a session. */
typedef struct lsn_run {
  lsn_session *s;
  char id[64];
  cJSON *plan;                  /* the plan, its seeds the accepted ones */
  crawl_budget budget;
  pol_policy policy;
  char dir[PATH_MAX];
  int started, finished;        /* finished: the thread is done (under s->mu) */
  pthread_t th;
  volatile sig_atomic_t cancel, pause;
  char status[16];              /* completed | cancelled | failed, once finished */
} lsn_run;

struct lsn_session {
  const crawl_listen_opts *o;
  void (*wake)(void *ud);       /* a message is queued (thread-safe) */
  void *wake_ud;
  pthread_mutex_t mu;
  lsn_out *head, *tail;
  int initialized;
  char id[64];
  unsigned long seq;            /* message ids */
  /* web.state.get */
  cdp_client *c;
  crawl_page *page;
  /* web.observe */
  int obs_on;                   /* a thread was started and not joined */
  int obs_done;                 /* ... and it has ended (atomic) */
  int stop_answered;            /* its web.observe.stopped answered stop_req (under mu) */
  pthread_t obs_th;
  volatile sig_atomic_t obs_cancel;
  char sub[96], obs_req[128], stop_req[128];
  crawl_observe_opts oo;
  /* uiap.discovery */
  lsn_run *runs[LSN_MAX_RUNS];
  int nruns;
  const char *runs_dir;
};

/* listen_session.c */
lsn_session *lsn__session_new(const crawl_listen_opts *o, const char *runs_dir, void (*wake)(void *), void *ud);
/* Ends its observation and runs (cancelled, joined), closes its browser. */
void lsn__session_free(lsn_session *s);
/* One text frame from the client; replies are queued. */
void lsn__session_receive(lsn_session *s, const char *text, size_t len);

/* listen_send.c: the outgoing queue; below the session, the web profile
 * and discovery, which all send through it */
/* The next message to send (caller frees), or NULL. */
char *lsn__session_pop(lsn_session *s);
/* Queue a message (consumed). Thread-safe. */
void lsn__send(lsn_session *s, cJSON *msg);
/* A new message id. Thread-safe. */
void lsn__msg_id(lsn_session *s, char *buf, size_t len);
/* A reply to request id req (a response; kind "error" for an error). */
void lsn__reply(lsn_session *s, const char *req, const char *type, cJSON *payload);
void lsn__event(lsn_session *s, const char *type, cJSON *payload);
/* kind "error": {code, message}; req may be NULL (unreadable). */
void lsn__error(lsn_session *s, const char *req, const char *code, const char *fmt, ...);

/* A request handler: req is the request's id, payload its payload (an
 * object). */
typedef void (*lsn_handler)(lsn_session *s, const char *req, const cJSON *payload);

/* listen_web.c */
void lsn__web_state_get(lsn_session *s, const char *req, const cJSON *payload);
void lsn__web_observe_start(lsn_session *s, const char *req, const cJSON *payload);
void lsn__web_observe_stop(lsn_session *s, const char *req, const cJSON *payload);
void lsn__web_release(lsn_session *s);

/* listen_discovery.c */
void lsn__disc_plan(lsn_session *s, const char *req, const cJSON *payload);
void lsn__disc_start(lsn_session *s, const char *req, const cJSON *payload);
void lsn__disc_pause(lsn_session *s, const char *req, const cJSON *payload);
void lsn__disc_resume(lsn_session *s, const char *req, const cJSON *payload);
void lsn__disc_cancel(lsn_session *s, const char *req, const cJSON *payload);
void lsn__disc_package_get(lsn_session *s, const char *req, const cJSON *payload);
void lsn__disc_release(lsn_session *s);

#endif

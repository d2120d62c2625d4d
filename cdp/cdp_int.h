/* cdp_int.h -- private to cdp/: the transport table and the client struct. */
#ifndef UIAP_CDP_INT_H
#define UIAP_CDP_INT_H

#include "cdp.h"

/* Replies of tens of MB are normal (a 50,000-element DOM); cap at 1 GiB. */
#define CDP__MAX_MESSAGE (1024u * 1024u * 1024u)

/* One complete incoming message: msg is a malloc'd block of len bytes plus a
 * NUL at msg[len]. fn takes ownership and frees it (so a reply of tens of MB
 * can be handed to the caller without a copy). */
typedef void (*cdp__msg_fn)(void *ctx, char *msg, size_t len);

/* A transport moves whole JSON messages. It is a table of functions so that
 * tests can replay recorded traffic (see tests/unit). */
typedef struct cdp__transport {
  /* Queue one message (not NUL-terminated); 0 ok, -1 closed. */
  int (*send)(void *impl, const char *msg, size_t len);
  /* Flush queued output and deliver each complete incoming message to fn,
   * waiting up to timeout_ms for the first. 0 ok (also on timeout), -1 the
   * connection is gone. fn may be called several times. */
  int (*poll)(void *impl, int timeout_ms, cdp__msg_fn fn, void *ctx);
  /* Detail of the last failure. */
  const char *(*errmsg)(void *impl);
  void (*close)(void *impl);
} cdp__transport;

typedef struct cdp__reply {
  int id;
  int done;                 /* 1: arrived */
  int abandoned;
  int raw;                  /* 1: sent with cdp_send_raw, keep the text */
  cJSON *result;            /* owned until handed out */
  char *raw_json;           /* raw: the whole reply message, owned until handed out */
  size_t raw_len;
  int err_code;             /* CDP error code, if any */
  char *err_msg;
  char *method;             /* for error messages */
  char *session;            /* NULL: the browser */
  struct cdp__reply *next;
} cdp__reply;

typedef struct cdp__sub {
  int handle;
  char *method;             /* NULL = all */
  cdp_event_cb cb;
  void *ud;
  int dead;
  struct cdp__sub *next;
} cdp__sub;

struct cdp_client {
  const cdp__transport *tp;
  void *impl;
  int alive;
  int next_id;
  int next_sub;
  cdp__reply *pending;
  cdp__sub *subs;
  int dispatching;
  volatile sig_atomic_t *cancel;
  char errmsg[512];
  int remote_code;
  /* launched browser */
  pid_t pid;
  char *profile;
  char *tmpdir;             /* Chromium's own TMPDIR when it is not inside the profile */
};

cdp_client *cdp__client_new(const cdp__transport *tp, void *impl);
void cdp__set_err(cdp_client *c, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));

/* Transports. */
void *cdp__pipe_new(int wfd, int rfd);
extern const cdp__transport cdp__pipe_transport;
void *cdp__ws_new(const char *ws_url, int timeout_ms, char *err, size_t errlen);
extern const cdp__transport cdp__ws_transport;

/* Terminate and reap a launched browser, remove its profile (launch.c). */
void cdp__browser_reap(cdp_client *c);

/* Remove a directory tree (the temp profile). */
void cdp__rmtree(const char *path);

#endif

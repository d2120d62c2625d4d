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
 * tests can replay recorded traffic (see tests/unit). A transport may own the
 * browser at its other end (launch.c: the process and its temporary profile);
 * the client never sees that process except through pid and profile. */
typedef struct cdp__transport {
  /* Queue one message (not NUL-terminated); 0 ok, -1 closed. */
  int (*send)(void *impl, const char *msg, size_t len);
  /* Flush queued output and deliver each complete incoming message to fn,
   * waiting up to timeout_ms for the first. 0 ok (also on timeout), -1 the
   * connection is gone. fn may be called several times. */
  int (*poll)(void *impl, int timeout_ms, cdp__msg_fn fn, void *ctx);
  /* Detail of the last failure. */
  const char *(*errmsg)(void *impl);
  /* Close the connection and free impl with all it owns: a launched
   * browser is terminated with its process group, reaped, and its
   * temporary profile removed before close returns. */
  void (*close)(void *impl);
  /* Optional (NULL: no browser process of ours, e.g. --connect). The pid of
   * the browser this transport owns, and its temporary profile directory
   * (owned by impl, valid until close). */
  pid_t (*pid)(void *impl);
  const char *(*profile)(void *impl);
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

#define CDP__OWN_MAX 64

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
  char *own[CDP__OWN_MAX];  /* targets this connection created (Target.createTarget),
                               until it closes them; oldest dropped when full */
  int nown;
};

cdp_client *cdp__client_new(const cdp__transport *tp, void *impl);
/* 1 when target_id is one of the targets c created and has not closed. */
int cdp__client_owns(const cdp_client *c, const char *target_id);
void cdp__set_err(cdp_client *c, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));

/* Reassembly of the pipe transport's input: NUL-terminated messages that
 * arrive in pieces of any size. in[0..head) is consumed, in[head..scanned)
 * holds no NUL, in[0..len) is filled, cap is allocated. Zero-initialised is
 * empty. Pure (no I/O): the transport reads into it, tests/fuzz feeds it. */
typedef struct cdp__nulbuf {
  char *in;
  size_t head, len, cap, scanned;
  size_t handover;          /* a message at least this long is handed over in
                               the buffer itself, not copied; 0: 256 KiB */
} cdp__nulbuf;
/* Make room for want more bytes at in + len (write them, then add to len).
 * 0 ok; -1 past CDP__MAX_MESSAGE or out of memory (nothing changed). */
int cdp__nulbuf_reserve(cdp__nulbuf *b, size_t want);
/* Hand each complete message to fn as a malloc'd block that fn owns (the
 * NUL delimiter is the block's terminator); the partial rest stays. b is up
 * to date before each call, so fn may append and deliver again. */
void cdp__nulbuf_deliver(cdp__nulbuf *b, cdp__msg_fn fn, void *ctx);
/* Free the buffer (a partial message is dropped); b is empty again. */
void cdp__nulbuf_release(cdp__nulbuf *b);

/* Reassembly of one WebSocket message from fragments (the WebSocket
 * transport's RECEIVE callback). Zero-initialised is empty. Pure. */
typedef struct cdp__wsrx {
  char *in;
  size_t len, cap;
} cdp__wsrx;
/* Append a fragment of len bytes; remaining is what lws says is still to come
 * in this frame (room is reserved for it). CDP_OK; CDP_PROTO when the message
 * would exceed CDP__MAX_MESSAGE; CDP_NOMEM. Nothing changes on error. */
cdp_code cdp__wsrx_append(cdp__wsrx *rx, const void *data, size_t len, size_t remaining);
/* The message is complete: *msg (NUL-terminated at (*msg)[*len]) is handed
 * over, the caller frees it; rx is empty again. CDP_OK or CDP_NOMEM (then
 * rx is unchanged). */
cdp_code cdp__wsrx_finish(cdp__wsrx *rx, char **msg, size_t *len);
/* Free a partial message; rx is empty again. */
void cdp__wsrx_release(cdp__wsrx *rx);

/* Transports. */
void *cdp__pipe_new(int wfd, int rfd);
extern const cdp__transport cdp__pipe_transport;
/* How a WebSocket upgrade was refused: the HTTP status (0: no answer, e.g.
 * refused or timed out) and Retry-After in ms (-1: none). */
typedef struct cdp__ws_refusal {
  int status;
  int retry_after_ms;
} cdp__ws_refusal;
/* Connect to ws_url; the transport, or NULL with the reason in err and,
 * when the server answered the upgrade with a status other than 101, that
 * status in *refused (may be NULL). */
void *cdp__ws_new(const char *ws_url, int timeout_ms, cdp__ws_refusal *refused, char *err,
                  size_t errlen);
/* A Retry-After value (delta-seconds or an HTTP-date) in ms from now; -1
 * when it is neither (http_util.c). */
int cdp__retry_after_ms(const char *v);
extern const cdp__transport cdp__ws_transport;

/* Remove a directory tree (the temp profile; launch.c). */
void cdp__rmtree(const char *path);

#endif

/* transport_ws.c -- CDP over a WebSocket (libwebsockets 4.1), for attaching
 * to a browser that is already running (--connect).
 *
 * One lws context per connection, serviced only from ws_poll on the caller's
 * thread. Output is queued by ws_send and written only from the WRITEABLE
 * callback; big messages go out as a text frame plus continuation frames.
 * Input fragments are appended to one growing buffer (cdp__wsrx: doubling,
 * capped at CDP__MAX_MESSAGE) and complete messages are queued, then handed
 * over (the buffer itself, no copy) after lws_service returns, so a callback
 * that calls back into the client never re-enters lws.
 *
 * lws 4.x ignores lws_service's timeout: every wait is bounded by a
 * lws_sorted_usec_list_t timer scheduled for the caller's deadline.
 */
#include "cdp_int.h"

#include <libwebsockets.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WS_RX_BUFFER (64 * 1024)
#define WS_TX_CHUNK  (256 * 1024)  /* payload per frame for big messages */

typedef struct ws_msg {
  struct ws_msg *next;
  size_t len, off;        /* payload bytes, bytes already written */
  char *buf;              /* LWS_PRE bytes of room, then the payload */
} ws_msg;

typedef struct {
  struct lws_context *ctx;
  struct lws *wsi;
  int established;
  int closed;             /* the connection is gone (or never came up) */
  int timer_fired;
  lws_sorted_usec_list_t timer;
  ws_msg *out_head, *out_tail;  /* queued output */
  cdp__wsrx rx;                     /* the message being reassembled */
  ws_msg *done_head, *done_tail;    /* complete incoming messages */
  cdp__ws_refusal refused;          /* the upgrade's status when it was not 101 */
  char err[256];
} ws_tp;

static void set_err(ws_tp *t, const char *what, const char *detail) {
  if (t->err[0]) return; /* keep the first cause */
  snprintf(t->err, sizeof t->err, "%s%s%s", what, detail && *detail ? ": " : "",
           detail ? detail : "");
}

static void queue_free(ws_msg *m) {
  while (m) {
    ws_msg *n = m->next;
    free(m->buf);
    free(m);
    m = n;
  }
}

cdp_code cdp__wsrx_append(cdp__wsrx *rx, const void *data, size_t len, size_t remaining) {
  /* rx->len + len + remaining > CDP__MAX_MESSAGE, without wrapping around
   * (remaining comes from the frame header: up to 2^63 - 1) */
  if (len > CDP__MAX_MESSAGE - rx->len || remaining > CDP__MAX_MESSAGE - rx->len - len)
    return CDP_PROTO;
  size_t need = rx->len + len + remaining + 1; /* +1: a NUL for the reader */
  if (need > rx->cap) {
    size_t n = rx->cap ? rx->cap : WS_RX_BUFFER;
    while (n < need) n *= 2;
    char *b = realloc(rx->in, n);
    if (!b) return CDP_NOMEM;
    rx->in = b;
    rx->cap = n;
  }
  if (len) memcpy(rx->in + rx->len, data, len);
  rx->len += len;
  return CDP_OK;
}

cdp_code cdp__wsrx_finish(cdp__wsrx *rx, char **msg, size_t *len) {
  if (!rx->in) { /* empty message */
    rx->in = malloc(1);
    if (!rx->in) return CDP_NOMEM;
  }
  rx->in[rx->len] = '\0';
  if (rx->cap - rx->len > 65536) { /* the buffer doubled: give back the slack */
    char *b = realloc(rx->in, rx->len + 1);
    if (b) rx->in = b;
  }
  *msg = rx->in;
  *len = rx->len;
  rx->in = NULL;
  rx->len = rx->cap = 0;
  return CDP_OK;
}

void cdp__wsrx_release(cdp__wsrx *rx) {
  free(rx->in);
  memset(rx, 0, sizeof *rx);
}

/* Append one fragment of an incoming message; 0 ok, -1 too big or no memory. */
static int rx_append(ws_tp *t, const void *in, size_t len, size_t remaining) {
  cdp_code rc = cdp__wsrx_append(&t->rx, in, len, remaining);
  if (rc == CDP_OK) return 0;
  set_err(t, rc == CDP_PROTO ? "message from browser exceeds 1 GiB" : "out of memory reading a message", NULL);
  return -1;
}

/* Move the reassembled message to the done queue (no copy). */
static int rx_finish(ws_tp *t) {
  ws_msg *m = calloc(1, sizeof *m);
  if (!m || cdp__wsrx_finish(&t->rx, &m->buf, &m->len) != CDP_OK) {
    free(m);
    set_err(t, "out of memory reading a message", NULL);
    return -1;
  }
  if (t->done_tail) t->done_tail->next = m;
  else t->done_head = m;
  t->done_tail = m;
  return 0;
}

/* Write (part of) the head of the output queue. */
static int tx_some(ws_tp *t, struct lws *wsi) {
  ws_msg *m = t->out_head;
  if (!m) return 0;
  size_t chunk = m->len - m->off;
  if (chunk > WS_TX_CHUNK) chunk = WS_TX_CHUNK;
  int flags = m->off == 0 ? LWS_WRITE_TEXT : LWS_WRITE_CONTINUATION;
  if (m->off + chunk < m->len) flags |= LWS_WRITE_NO_FIN;
  /* For continuation frames the LWS_PRE bytes in front of this chunk are the
   * tail of the previous one, already sent (or copied by lws): free to use. */
  unsigned char *p = (unsigned char *)m->buf + LWS_PRE + m->off;
  int n = lws_write(wsi, p, chunk, (enum lws_write_protocol)flags);
  if (n < 0) {
    set_err(t, "write to browser failed", NULL);
    return -1;
  }
  m->off += chunk;
  if (m->off == m->len) {
    t->out_head = m->next;
    if (!t->out_head) t->out_tail = NULL;
    free(m->buf);
    free(m);
  }
  if (t->out_head) lws_callback_on_writable(wsi);
  return 0;
}

/* The upgrade was answered with something other than 101: its status and
 * Retry-After, read from the response headers lws still holds (a pool at
 * its concurrency limit answers 429 or 503). 0 when there was no response. */
static void read_refusal(ws_tp *t, struct lws *wsi) {
  char v[64];
  if (!wsi || lws_hdr_copy(wsi, v, sizeof v, WSI_TOKEN_HTTP) <= 0) return;
  t->refused.status = atoi(v);
  t->refused.retry_after_ms = -1;
  if (lws_hdr_copy(wsi, v, sizeof v, WSI_TOKEN_HTTP_RETRY_AFTER) > 0)
    t->refused.retry_after_ms = cdp__retry_after_ms(v);
}

static int ws_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
                       void *in, size_t len) {
  ws_tp *t = lws_context_user(lws_get_context(wsi));
  if (!t) return 0;
  switch (reason) {
  case LWS_CALLBACK_CLIENT_ESTABLISHED:
    t->wsi = wsi;
    t->established = 1;
    if (t->out_head) lws_callback_on_writable(wsi);
    break;
  case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
    read_refusal(t, wsi);
    set_err(t, "connection failed", in ? (const char *)in : NULL);
    t->closed = 1;
    t->wsi = NULL;
    break;
  case LWS_CALLBACK_CLIENT_RECEIVE: {
    size_t remaining = lws_remaining_packet_payload(wsi);
    if (rx_append(t, in, len, remaining) < 0) return -1;
    if (lws_is_final_fragment(wsi) && remaining == 0 && rx_finish(t) < 0) return -1;
    break;
  }
  case LWS_CALLBACK_CLIENT_WRITEABLE:
    if (tx_some(t, wsi) < 0) return -1;
    break;
  case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
    set_err(t, "the browser closed the WebSocket", NULL);
    break;
  case LWS_CALLBACK_CLIENT_CLOSED:
    set_err(t, "the browser closed the connection", NULL);
    t->closed = 1;
    t->wsi = NULL;
    break;
  case LWS_CALLBACK_WSI_DESTROY:
    if (t->wsi == wsi || !t->established) {
      set_err(t, "connection closed", NULL);
      t->closed = 1;
      t->wsi = NULL;
    }
    break;
  default:
    break;
  }
  return 0;
}

static const struct lws_protocols ws_protocols[] = {
  {"cdp", ws_callback, 0, WS_RX_BUFFER, 0, NULL, 0},
  {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* lws runs ripe timers before it polls, then still waits for its own next
 * timer (up to 30 s): wake that wait so lws_service returns now. */
static void timer_cb(lws_sorted_usec_list_t *sul) {
  ws_tp *t = lws_container_of(sul, ws_tp, timer);
  t->timer_fired = 1;
  lws_cancel_service(t->ctx);
}

/* Service lws until done() or timeout_ms pass; timeout 0 is one pass that
 * does not block. */
static void service_until(ws_tp *t, int timeout_ms, int (*done)(ws_tp *)) {
  if (timeout_ms <= 0) {
    lws_service(t->ctx, -1); /* a negative timeout never waits */
    return;
  }
  t->timer_fired = 0;
  lws_sul_schedule(t->ctx, 0, &t->timer, timer_cb, (lws_usec_t)timeout_ms * 1000);
  while (!done(t) && !t->timer_fired)
    if (lws_service(t->ctx, 0) < 0) {
      set_err(t, "lws_service failed", NULL);
      t->closed = 1;
      break;
    }
  lws_sul_cancel(&t->timer);
}

static int up_or_closed(ws_tp *t) { return t->established || t->closed; }
static int got_msg_or_closed(ws_tp *t) { return t->done_head || t->closed; }

static void ws_close(void *impl);

void *cdp__ws_new(const char *ws_url, int timeout_ms, cdp__ws_refusal *refused, char *err,
                  size_t errlen) {
  if (err && errlen) err[0] = '\0';
  if (refused) *refused = (cdp__ws_refusal){0, -1};
  if (!ws_url) {
    if (err) snprintf(err, errlen, "no WebSocket URL");
    return NULL;
  }
  char *copy = strdup(ws_url);
  ws_tp *t = calloc(1, sizeof *t);
  if (!copy || !t) {
    free(copy);
    free(t);
    if (err) snprintf(err, errlen, "out of memory");
    return NULL;
  }
  const char *scheme = NULL, *address = NULL, *path = NULL;
  int port = 0;
  if (lws_parse_uri(copy, &scheme, &address, &port, &path) || strcmp(scheme, "ws") != 0 ||
      !*address) {
    if (err) snprintf(err, errlen, "not a ws://HOST:PORT/PATH URL: %s", ws_url);
    free(copy);
    free(t);
    return NULL;
  }
  char host[300], fullpath[2048];
  snprintf(host, sizeof host, strchr(address, ':') ? "[%s]:%d" : "%s:%d", address, port);
  snprintf(fullpath, sizeof fullpath, "/%s", path);

  lws_set_log_level(0, NULL); /* library code never prints */
  struct lws_context_creation_info info;
  memset(&info, 0, sizeof info);
  info.port = CONTEXT_PORT_NO_LISTEN;
  info.protocols = ws_protocols;
  info.gid = -1;
  info.uid = -1;
  info.user = t;
  info.timeout_secs = (unsigned)(timeout_ms > 0 ? (timeout_ms + 999) / 1000 : 20);
  /* lws sets SIGPIPE to SIG_IGN for the whole process; it sends with
   * MSG_NOSIGNAL anyway, so put back whatever the application chose. */
  struct sigaction old_pipe;
  sigaction(SIGPIPE, NULL, &old_pipe);
  t->ctx = lws_create_context(&info);
  sigaction(SIGPIPE, &old_pipe, NULL);
  if (!t->ctx) {
    if (err) snprintf(err, errlen, "cannot create a WebSocket context for %s", ws_url);
    free(copy);
    free(t);
    return NULL;
  }

  struct lws_client_connect_info ci;
  memset(&ci, 0, sizeof ci);
  ci.context = t->ctx;
  ci.address = address;
  ci.port = port;
  ci.path = fullpath;
  ci.host = host;
  ci.origin = NULL; /* no Origin header: Chromium then needs no --remote-allow-origins */
  ci.protocol = NULL;
  ci.local_protocol_name = "cdp";
  ci.pwsi = &t->wsi;
  struct lws *w = lws_client_connect_via_info(&ci);
  free(copy);
  if (!w) {
    if (err) snprintf(err, errlen, "cannot connect to %s: %s", ws_url,
                      t->err[0] ? t->err : "connection failed");
    t->wsi = NULL;
    ws_close(t);
    return NULL;
  }
  service_until(t, timeout_ms > 0 ? timeout_ms : 20000, up_or_closed);
  if (!t->established || t->closed) {
    if (err) snprintf(err, errlen, "cannot connect to %s: %s", ws_url,
                      t->closed ? (t->err[0] ? t->err : "connection failed")
                                : "timed out during the WebSocket handshake");
    if (refused && t->refused.status) *refused = t->refused;
    ws_close(t);
    return NULL;
  }
  return t;
}

static int ws_send(void *impl, const char *msg, size_t len) {
  ws_tp *t = impl;
  if (t->closed || !t->wsi) {
    set_err(t, "connection is closed", NULL);
    return -1;
  }
  ws_msg *m = calloc(1, sizeof *m);
  char *buf = malloc(LWS_PRE + len + 1);
  if (!m || !buf) {
    free(m);
    free(buf);
    set_err(t, "out of memory queueing a message", NULL);
    return -1;
  }
  memcpy(buf + LWS_PRE, msg, len);
  m->buf = buf;
  m->len = len;
  if (t->out_tail) t->out_tail->next = m;
  else t->out_head = m;
  t->out_tail = m;
  lws_callback_on_writable(t->wsi);
  return 0;
}

static int ws_poll(void *impl, int timeout_ms, cdp__msg_fn fn, void *ctx) {
  ws_tp *t = impl;
  if (!t->done_head && !t->closed) service_until(t, timeout_ms, got_msg_or_closed);
  /* Pop before calling fn: fn may call back into the client and poll again. */
  while (t->done_head) {
    ws_msg *m = t->done_head;
    t->done_head = m->next;
    if (!t->done_head) t->done_tail = NULL;
    fn(ctx, m->buf, m->len); /* fn owns the buffer now */
    free(m);
  }
  return t->closed ? -1 : 0;
}

static const char *ws_errmsg(void *impl) {
  ws_tp *t = impl;
  return t->err[0] ? t->err : "no error";
}

static void ws_close(void *impl) {
  ws_tp *t = impl;
  if (!t) return;
  if (t->ctx) {
    lws_sul_cancel(&t->timer);
    lws_context_destroy(t->ctx); /* may still run callbacks: t stays valid */
  }
  queue_free(t->out_head);
  queue_free(t->done_head);
  cdp__wsrx_release(&t->rx);
  free(t);
}

/* An attached browser is not ours: no pid, no profile. */
const cdp__transport cdp__ws_transport = {
  .send = ws_send, .poll = ws_poll, .errmsg = ws_errmsg, .close = ws_close,
};

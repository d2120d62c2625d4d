/* listen.c -- the WebSocket server of `uiap-crawl listen`: libwebsockets on
 * 127.0.0.1 only, one protocol. A connection must name the token in its
 * query (?token=) and, when it comes from a browser, carry a loopback
 * Origin; others are refused before the upgrade (any local page could
 * otherwise drive the browser). Each connection is one session
 * (listen_session.c); its threads queue messages and wake the service loop
 * with lws_cancel_service, the only call that is safe from another thread,
 * and the WRITEABLE callback sends them one by one. */
#include "listen_int.h"
#include "crawl_util.h"

#include <libwebsockets.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#define MAX_FRAME (4u << 20)

typedef struct server {
  const crawl_listen_opts *o;
  char token[80];
  char runs_dir[PATH_MAX];
  struct lws_context *ctx;
  lws_sorted_usec_list_t tick;
} server;

typedef struct conn {
  lsn_session *s;
  char *in;
  size_t nin, capin;
  int too_big;
} conn;

/* ---- who may connect ----------------------------------------------------------- */
static const char *const loopback_hosts[] = {"127.0.0.1", "localhost", "[::1]"};

int crawl_listen_origin_ok(const char *origin) {
  if (!origin || !origin[0]) return 1;
  const char *h = !strncmp(origin, "http://", 7) ? origin + 7 : !strncmp(origin, "https://", 8) ? origin + 8 : NULL;
  if (!h) return 0;
  for (size_t i = 0; i < sizeof loopback_hosts / sizeof *loopback_hosts; i++) {
    size_t n = strlen(loopback_hosts[i]);
    if (!strncasecmp(h, loopback_hosts[i], n) && (!h[n] || (h[n] == ':' && strspn(h + n + 1, "0123456789") == strlen(h + n + 1) && h[n + 1])))
      return 1;
  }
  return 0;
}

/* Equal strings, in time that does not depend on where they differ. */
static int same_secret(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  unsigned char d = na != nb;
  for (size_t i = 0; i < na && i < nb; i++) d |= (unsigned char)(a[i] ^ b[i]);
  return d == 0;
}

/* 1 when the handshake may go on: path /uiap, the token, a loopback Origin. */
static int admitted(server *sv, struct lws *wsi) {
  char uri[256], buf[256], origin[512] = "";
  if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0 || strcmp(uri, "/uiap")) return 0;
  const char *tok = lws_get_urlarg_by_name(wsi, "token=", buf, sizeof buf);
  if (!tok || !same_secret(tok, sv->token)) return 0;
  if (lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN) > 0 && lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) <= 0)
    return 0;
  return crawl_listen_origin_ok(origin);
}

/* ---- the connection ------------------------------------------------------------------ */
static void wake(void *ud) {
  lws_cancel_service(((server *)ud)->ctx);
}

/* A received fragment; at the end of the message, the session gets it. */
static void conn_receive(conn *k, struct lws *wsi, const char *data, size_t len) {
  if (!k->too_big && k->nin + len + 1 > MAX_FRAME) k->too_big = 1;
  if (!k->too_big) {
    if (k->nin + len + 1 > k->capin) {
      k->capin = (k->nin + len + 1) * 2;
      k->in = crawl__xrealloc(k->in, k->capin);
    }
    memcpy(k->in + k->nin, data, len);
    k->nin += len;
  }
  if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi)) return;
  if (k->too_big) lsn__session_receive(k->s, "", MAX_FRAME + 1ul);
  else lsn__session_receive(k->s, k->in, k->nin);
  k->nin = 0;
  k->too_big = 0;
}

/* Send the next queued message; ask for another turn while more wait. */
static int conn_write(conn *k, struct lws *wsi) {
  char *text = lsn__session_pop(k->s);
  if (!text) return 0;
  size_t n = strlen(text);
  unsigned char *buf = crawl__xmalloc(LWS_PRE + n);
  memcpy(buf + LWS_PRE, text, n);
  free(text);
  int w = lws_write(wsi, buf + LWS_PRE, n, LWS_WRITE_TEXT);
  free(buf);
  if (w < (int)n) return -1;
  pthread_mutex_lock(&k->s->mu);
  int more = k->s->head != NULL;
  pthread_mutex_unlock(&k->s->mu);
  if (more) lws_callback_on_writable(wsi);
  return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
  server *sv = lws_context_user(lws_get_context(wsi));
  conn *k = user;
  switch (reason) {
  case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: return admitted(sv, wsi) ? 0 : 1;
  case LWS_CALLBACK_ESTABLISHED:
    memset(k, 0, sizeof *k);
    k->s = lsn__session_new(sv->o, sv->runs_dir, wake, sv);
    return 0;
  case LWS_CALLBACK_RECEIVE:
    conn_receive(k, wsi, in, len);
    lws_callback_on_writable(wsi);
    return 0;
  case LWS_CALLBACK_HTTP: return -1; /* WebSocket only */
  case LWS_CALLBACK_SERVER_WRITEABLE: return conn_write(k, wsi);
  case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
    lws_callback_on_writable_all_protocol(lws_get_context(wsi), lws_get_protocol(wsi));
    return 0;
  case LWS_CALLBACK_CLOSED:
    lsn__session_free(k->s);
    free(k->in);
    memset(k, 0, sizeof *k);
    return 0;
  default: return 0;
  }
}

static const struct lws_protocols protocols[] = {
  {"uiap", callback, sizeof(conn), 65536, 0, NULL, 0},
  {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* ---- the loop --------------------------------------------------------------------------- */
static void tick(lws_sorted_usec_list_t *sul) {
  server *sv = lws_container_of(sul, server, tick);
  if (sv->o->cancel && *sv->o->cancel) {
    lws_cancel_service(sv->ctx);
    return;
  }
  lws_sul_schedule(sv->ctx, 0, &sv->tick, tick, 200 * LWS_US_PER_MS);
}

static int make_token(char *buf, size_t len) {
  unsigned char raw[16];
  if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) return -1;
  for (size_t i = 0; i < sizeof raw && 2 * i + 2 < len; i++) snprintf(buf + 2 * i, 3, "%02x", raw[i]);
  return 0;
}

static crawl_code server_setup(server *sv, const crawl_listen_opts *o, char *err, size_t errlen) {
  if (o->token) snprintf(sv->token, sizeof sv->token, "%s", o->token);
  else if (make_token(sv->token, sizeof sv->token)) return crawl__errf(err, errlen, CRAWL_IO, "no random bytes for a token");
  if (o->runs_dir) {
    snprintf(sv->runs_dir, sizeof sv->runs_dir, "%s", o->runs_dir);
  } else {
    const char *t = getenv("TMPDIR");
    snprintf(sv->runs_dir, sizeof sv->runs_dir, "%s/uiap-listen-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(sv->runs_dir)) return crawl__errf(err, errlen, CRAWL_IO, "cannot create a runs directory under %s", t && *t ? t : "/tmp");
  }
  struct lws_context_creation_info info;
  memset(&info, 0, sizeof info);
  lws_set_log_level(0, NULL); /* library code never prints */
  info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS;
  info.user = sv;
  info.gid = -1;
  info.uid = -1;
  if (!(sv->ctx = lws_create_context(&info))) return crawl__errf(err, errlen, CRAWL_IO, "cannot create the WebSocket context");
  info.port = o->port;
  info.iface = "127.0.0.1";
  info.protocols = protocols;
  info.vhost_name = "uiap";
  struct lws_vhost *vh = lws_create_vhost(sv->ctx, &info);
  if (!vh) return crawl__errf(err, errlen, CRAWL_IO, "cannot listen on 127.0.0.1:%d", o->port);
  char url[256];
  snprintf(url, sizeof url, "ws://127.0.0.1:%d/uiap?token=%s", lws_get_vhost_listen_port(vh), sv->token);
  if (o->on_ready) o->on_ready(o->ud, url, sv->token);
  return CRAWL_OK;
}

crawl_code crawl_listen_run(const crawl_listen_opts *o, char *err, size_t errlen) {
  server sv;
  memset(&sv, 0, sizeof sv);
  sv.o = o;
  crawl_code rc = server_setup(&sv, o, err, errlen);
  if (!rc) {
    lws_sul_schedule(sv.ctx, 0, &sv.tick, tick, 200 * LWS_US_PER_MS);
    while (!(o->cancel && *o->cancel) && lws_service(sv.ctx, 0) >= 0) {}
  }
  if (sv.ctx) lws_context_destroy(sv.ctx); /* closes the connections: their sessions end */
  return rc;
}

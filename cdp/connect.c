/* connect.c -- cdp_connect: attach to a browser that is already running.
 *
 * Accepts the browser's WebSocket endpoint (ws://HOST:PORT/devtools/browser/ID)
 * or its HTTP endpoint (http://HOST:PORT), in which case the WebSocket URL is
 * read from /json/version with a tiny HTTP/1.1 GET over a plain socket. The
 * whole attach -- HTTP, WebSocket handshake, first Browser.getVersion -- runs
 * against one deadline.
 *
 * cdp_connect_ex adds what a browser pool (browserless, Selenium Grid's
 * se:cdp) needs: an answer of 429 or 503, to the GET or to the WebSocket
 * upgrade (its status and Retry-After read from the headers lws keeps,
 * transport_ws.c), means "wait and try again", on the backoff schedule
 * below, until an overall deadline; and a reconnect closes the targets the
 * dead connection left behind.
 */
#include "cdp_int.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define VERSION_REPLY_MAX (256 * 1024)

typedef struct {
  char scheme[8];     /* "ws" or "http" */
  char host[256];     /* without brackets */
  char port[8];
  const char *path;   /* points into the URL: "", "/..." or "?..." (a pool's
                         token, e.g. browserless's ?token=) */
} cdp__url;

/* Split scheme://host[:port][/path]; 0 ok, -1 malformed (reason in why). */
static int url_parse(const char *url, cdp__url *u, const char **why) {
  memset(u, 0, sizeof *u);
  const char *p = strstr(url, "://");
  if (!p || p == url || (size_t)(p - url) >= sizeof u->scheme) {
    *why = "expected ws://HOST:PORT/devtools/browser/ID or http://HOST:PORT";
    return -1;
  }
  memcpy(u->scheme, url, (size_t)(p - url));
  if (strcmp(u->scheme, "ws") != 0 && strcmp(u->scheme, "http") != 0) {
    *why = "the scheme must be ws:// or http://";
    return -1;
  }
  p += 3;
  const char *hs = p, *he;
  if (*p == '[') { /* [IPv6] */
    hs = p + 1;
    he = strchr(hs, ']');
    if (!he) {
      *why = "unterminated [IPv6] host";
      return -1;
    }
    p = he + 1;
  } else {
    he = p + strcspn(p, ":/?#");
    p = he;
  }
  if (he == hs || (size_t)(he - hs) >= sizeof u->host) {
    *why = "missing or overlong host";
    return -1;
  }
  memcpy(u->host, hs, (size_t)(he - hs));
  for (const char *c = u->host; *c; c++)
    if ((unsigned char)*c <= ' ' || *c == '@' || *c == '"') {
      *why = "invalid character in host";
      return -1;
    }
  if (*p == ':') {
    p++;
    size_t n = strspn(p, "0123456789");
    long v = n && n < 6 ? strtol(p, NULL, 10) : 0;
    if (v < 1 || v > 65535 || (p[n] && p[n] != '/' && p[n] != '?')) {
      *why = "invalid port";
      return -1;
    }
    snprintf(u->port, sizeof u->port, "%ld", v);
    p += n;
  } else {
    snprintf(u->port, sizeof u->port, "80");
  }
  if (*p && *p != '/' && *p != '?') {
    *why = "unexpected characters after the host";
    return -1;
  }
  u->path = p;
  return 0;
}

static int ms_left(long long deadline) {
  long long l = deadline - cdp_now_ms();
  return l > 0 ? (int)l : 0;
}

/* Connect a TCP socket to host:port before the deadline; fd or -1. */
static int tcp_connect(const cdp__url *u, long long deadline, char *why, size_t whylen) {
  struct addrinfo hints, *res = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  int gai = getaddrinfo(u->host, u->port, &hints, &res);
  if (gai) {
    snprintf(why, whylen, "cannot resolve %s: %s", u->host, gai_strerror(gai));
    return -1;
  }
  int fd = -1, saved = ETIMEDOUT;
  for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) {
      saved = errno;
      continue;
    }
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
    if (errno == EINPROGRESS) {
      struct pollfd p = {.fd = fd, .events = POLLOUT};
      int n;
      do n = poll(&p, 1, ms_left(deadline));
      while (n < 0 && errno == EINTR);
      int soerr = 0;
      socklen_t sl = sizeof soerr;
      if (n > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && soerr == 0) break;
      saved = n == 0 ? ETIMEDOUT : soerr ? soerr : errno;
    } else {
      saved = errno;
    }
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd < 0) snprintf(why, whylen, "%s", saved == ETIMEDOUT ? "timed out" : strerror(saved));
  return fd;
}

/* The Retry-After header of an HTTP reply in buf (NUL-terminated), or -1. */
static int reply_retry_after(const char *buf) {
  const char *body = strstr(buf, "\r\n\r\n");
  const char *h = strcasestr(buf, "\r\nretry-after:");
  if (!h || (body && h > body)) return -1;
  char v[64];
  h += 14;
  size_t n = strcspn(h, "\r\n");
  snprintf(v, sizeof v, "%.*s", (int)(n < sizeof v ? n : sizeof v - 1), h);
  return cdp__retry_after_ms(v);
}

/* GET /json/version and return the webSocketDebuggerUrl (caller frees); a
 * reply other than 200 leaves its status and Retry-After in *refused. */
static char *fetch_ws_url(const cdp__url *u, long long deadline, cdp__ws_refusal *refused, char *why,
                          size_t whylen) {
  int fd = tcp_connect(u, deadline, why, whylen);
  if (fd < 0) return NULL;
  const char *query = strchr(u->path, '?'); /* a pool's token goes along */
  char req[2048];
  int rl = snprintf(req, sizeof req,
                    "GET /json/version%s HTTP/1.1\r\nHost: %s%s%s:%s\r\n"
                    "Accept: application/json\r\nConnection: close\r\n\r\n",
                    query ? query : "", strchr(u->host, ':') ? "[" : "", u->host,
                    strchr(u->host, ':') ? "]" : "", u->port);
  if (rl < 0 || (size_t)rl >= sizeof req || (query && query[strcspn(query, " \t\r\n")])) {
    snprintf(why, whylen, "the URL's query is too long or holds a space");
    close(fd);
    return NULL;
  }
  char *buf = malloc(VERSION_REPLY_MAX + 1);
  char *ws = NULL;
  size_t got = 0, sent = 0;
  if (!buf) {
    snprintf(why, whylen, "out of memory");
    close(fd);
    return NULL;
  }
  /* Send the request, then read until the peer closes, Content-Length is
   * satisfied, or the deadline passes. */
  for (;;) {
    struct pollfd p = {.fd = fd, .events = sent < (size_t)rl ? POLLOUT : POLLIN};
    int n = poll(&p, 1, ms_left(deadline));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      snprintf(why, whylen, n == 0 ? "timed out reading /json/version" : "poll failed");
      goto out;
    }
    if (sent < (size_t)rl) {
      ssize_t w = send(fd, req + sent, (size_t)rl - sent, MSG_NOSIGNAL);
      if (w < 0 && errno != EAGAIN && errno != EINTR) {
        snprintf(why, whylen, "sending the request failed: %s", strerror(errno));
        goto out;
      }
      if (w > 0) sent += (size_t)w;
      continue;
    }
    ssize_t r = recv(fd, buf + got, VERSION_REPLY_MAX - got, 0);
    if (r < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      snprintf(why, whylen, "reading the reply failed: %s", strerror(errno));
      goto out;
    }
    got += (size_t)r;
    buf[got] = '\0';
    char *body = strstr(buf, "\r\n\r\n");
    if (body) {
      const char *cl = strcasestr(buf, "\r\ncontent-length:");
      if (cl && cl < body && got - (size_t)(body + 4 - buf) >= strtoul(cl + 17, NULL, 10)) break;
    }
    if (r == 0) break;
    if (got == VERSION_REPLY_MAX) {
      snprintf(why, whylen, "reply to /json/version is too large");
      goto out;
    }
  }
  int status = 0;
  if (sscanf(buf, "HTTP/%*d.%*d %d", &status) != 1) {
    snprintf(why, whylen, "not an HTTP reply from /json/version");
    goto out;
  }
  if (status != 200) {
    snprintf(why, whylen, "/json/version answered HTTP %d", status);
    *refused = (cdp__ws_refusal){status, reply_retry_after(buf)};
    goto out;
  }
  char *body = strstr(buf, "\r\n\r\n");
  cJSON *j = body ? cJSON_Parse(body + 4) : NULL;
  const cJSON *w = cJSON_GetObjectItemCaseSensitive(j, "webSocketDebuggerUrl");
  if (cJSON_IsString(w) && w->valuestring[0]) ws = strdup(w->valuestring);
  else snprintf(why, whylen, "/json/version has no webSocketDebuggerUrl");
  cJSON_Delete(j);
out:
  free(buf);
  close(fd);
  return ws;
}

/* A pool at its concurrency limit answers one of these. */
static int is_busy(int status) { return status == 429 || status == 503; }

/* One attempt at url: /json/version when it is http://, the WebSocket
 * handshake, Browser.getVersion, all before the deadline. A refusal with a
 * status (429, 503, ...) is left in *refused. */
static cdp_code connect_once(const char *url, const cdp__url *u, long long deadline, cdp_client **out,
                             cdp__ws_refusal *refused, char *err, size_t errlen) {
  char why[300] = "";
  char *ws_url = NULL;
  *refused = (cdp__ws_refusal){0, -1};
  if (strcmp(u->scheme, "http") == 0) {
    ws_url = fetch_ws_url(u, deadline, refused, why, sizeof why);
    if (!ws_url) {
      if (err) snprintf(err, errlen, "cannot connect to %s: %s", url, why);
      return CDP_CONNECT;
    }
  } else if (u->path[0] == '?') { /* ws://HOST:PORT?token=...: the path is "/" */
    if (asprintf(&ws_url, "%.*s/%s", (int)(u->path - url), url, u->path) < 0) ws_url = NULL;
    if (!ws_url) {
      if (err) snprintf(err, errlen, "out of memory");
      return CDP_NOMEM;
    }
  } else {
    ws_url = strdup(url);
    if (!ws_url) {
      if (err) snprintf(err, errlen, "out of memory");
      return CDP_NOMEM;
    }
  }
  int left = ms_left(deadline);
  void *impl = left > 0 ? cdp__ws_new(ws_url, left, refused, why, sizeof why) : NULL;
  if (!impl) {
    if (err) {
      if (left <= 0) snprintf(err, errlen, "cannot connect to %s: timed out", url);
      else if (strcmp(ws_url, url) == 0)
        snprintf(err, errlen, "%s%s", why, strstr(why, "not 101") && !is_busy(refused->status)
                 ? " (the path must be /devtools/browser/ID; or pass http://HOST:PORT)" : "");
      else snprintf(err, errlen, "%s (from %s)", why, url);
      if (refused->status) {
        size_t n = strlen(err);
        snprintf(err + n, errlen - n, " (HTTP %d)", refused->status);
      }
    }
    free(ws_url);
    return CDP_CONNECT;
  }
  cdp_client *c = cdp__client_new(&cdp__ws_transport, impl);
  if (!c) {
    cdp__ws_transport.close(impl);
    free(ws_url);
    if (err) snprintf(err, errlen, "out of memory");
    return CDP_NOMEM;
  }
  /* pid 0 and profile NULL: we never terminate a browser we did not start. */
  cJSON *res = NULL;
  left = ms_left(deadline);
  cdp_code rc = left > 0 ? cdp_call(c, NULL, "Browser.getVersion", NULL, &res, left)
                         : CDP_TIMEOUT;
  cJSON_Delete(res);
  if (rc != CDP_OK) {
    if (err) snprintf(err, errlen, "connected to %s but the browser did not answer: %s", ws_url,
                      rc == CDP_TIMEOUT && left <= 0 ? "timed out" : cdp_client_errmsg(c));
    free(ws_url);
    cdp_client_free(c);
    return rc == CDP_CANCELLED ? rc : CDP_CONNECT;
  }
  free(ws_url);
  *out = c;
  return CDP_OK;
}

/* ---- a busy pool: wait and try again ----------------------------------------------- */
/* The wait before attempt n+1 (n = 0 after the first refusal): the base,
 * then a random 50..100% of it (so that many crawlers refused at once do
 * not come back at once). The last row repeats. */
static const int busy_backoff_ms[] = {500, 1000, 2000, 4000, 8000, 10000};
#define BUSY_ROWS ((int)(sizeof busy_backoff_ms / sizeof *busy_backoff_ms))

static int busy_wait(int n, int retry_after_ms, unsigned *seed) {
  int base = busy_backoff_ms[n < BUSY_ROWS ? n : BUSY_ROWS - 1];
  int w = base / 2 + (int)(rand_r(seed) % (unsigned)(base / 2 + 1));
  return retry_after_ms > w ? retry_after_ms : w;
}

/* Sleep ms, in slices, unless *cancel becomes non-zero: 0, or -1 cancelled. */
static int nap(int ms, volatile sig_atomic_t *cancel) {
  for (long long end = cdp_now_ms() + ms; cdp_now_ms() < end;) {
    if (cancel && *cancel) return -1;
    long long l = end - cdp_now_ms();
    struct timespec ts = {0, (l > 100 ? 100 : l > 0 ? l : 0) * 1000000L};
    nanosleep(&ts, NULL);
  }
  return cancel && *cancel ? -1 : 0;
}

/* ---- a reconnect: the dead connection's targets ------------------------------------ */
/* Close every target of the browser that `prev` created and did not close,
 * and the popups they opened; how many. */
static int close_stale(cdp_client *c, const cdp_client *prev, int timeout_ms) {
  if (!prev || !prev->nown) return 0;
  cJSON *res = NULL;
  if (cdp_call(c, NULL, "Target.getTargets", NULL, &res, timeout_ms) != CDP_OK) {
    cJSON_Delete(res);
    return 0;
  }
  int n = 0;
  const cJSON *ti;
  cJSON_ArrayForEach(ti, cJSON_GetObjectItemCaseSensitive(res, "targetInfos")) {
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ti, "targetId"));
    const char *opener = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ti, "openerId"));
    if (!id || !(cdp__client_owns(prev, id) || cdp__client_owns(prev, opener))) continue;
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "targetId", id);
    n += cdp_call(c, NULL, "Target.closeTarget", a, NULL, timeout_ms) == CDP_OK;
  }
  cJSON_Delete(res);
  return n;
}

/* The line for a deadline that passed while the pool stayed busy. */
static void busy_error(char *err, size_t errlen, const char *url, const cdp_connect_report *r,
                       long long spent_ms) {
  if (err) snprintf(err, errlen,
                    "the browser pool at %s stayed at its concurrency limit (HTTP %d, %d answer%s) "
                    "for %.1f s; gave up", url, r->last_status, r->busy, r->busy == 1 ? "" : "s",
                    (double)spent_ms / 1000.0);
}

cdp_code cdp_connect_ex(const char *url, const cdp_connect_opts *o, cdp_client **out,
                        cdp_connect_report *rep, char *err, size_t errlen) {
  static const cdp_connect_opts none;
  cdp_connect_report mine;
  if (!o) o = &none;
  if (!rep) rep = &mine;
  memset(rep, 0, sizeof *rep);
  if (out) *out = NULL;
  if (!url || !out) {
    if (err) snprintf(err, errlen, "cdp_connect: no URL given");
    return CDP_ARG;
  }
  cdp__url u;
  const char *bad = NULL;
  if (url_parse(url, &u, &bad) < 0) {
    if (err) snprintf(err, errlen, "invalid browser URL '%s': %s", url, bad);
    return CDP_ARG;
  }
  int attempt_ms = o->attempt_ms > 0 ? o->attempt_ms : 10000;
  long long t0 = cdp_now_ms(), deadline = t0 + (o->busy_ms > 0 ? o->busy_ms : attempt_ms);
  unsigned seed = (unsigned)t0 ^ (unsigned)getpid();
  for (int n = 0;; n++) {
    long long end = cdp_now_ms() + attempt_ms; /* this attempt's deadline */
    cdp__ws_refusal ref;
    cdp_code rc = connect_once(url, &u, end < deadline ? end : deadline, out, &ref, err, errlen);
    if (rc == CDP_OK) {
      rep->stale_closed = close_stale(*out, o->previous, attempt_ms);
      return CDP_OK;
    }
    if (!is_busy(ref.status)) return rc;
    rep->busy++;
    rep->last_status = ref.status;
    /* give up as soon as the next wait would end past the deadline */
    int left = ms_left(deadline), w = busy_wait(n, ref.retry_after_ms, &seed);
    if (o->busy_ms <= 0) return CDP_BUSY; /* err has the answer */
    if (w >= left) {
      busy_error(err, errlen, url, rep, cdp_now_ms() - t0);
      return CDP_BUSY;
    }
    if (o->on_busy) o->on_busy(o->ud, ref.status, n + 1, w);
    if (nap(w, o->cancel) < 0) {
      if (err) snprintf(err, errlen, "cancelled while waiting for the browser pool at %s", url);
      return CDP_CANCELLED;
    }
    rep->waited_ms += w;
  }
}

cdp_code cdp_connect(const char *url, int timeout_ms, cdp_client **out, char *err,
                     size_t errlen) {
  cdp_connect_opts o = {.attempt_ms = timeout_ms > 0 ? timeout_ms : 20000};
  return cdp_connect_ex(url, &o, out, NULL, err, errlen);
}

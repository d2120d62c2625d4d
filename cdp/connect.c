/* connect.c -- cdp_connect: attach to a browser that is already running.
 *
 * Accepts the browser's WebSocket endpoint (ws://HOST:PORT/devtools/browser/ID)
 * or its HTTP endpoint (http://HOST:PORT), in which case the WebSocket URL is
 * read from /json/version with a tiny HTTP/1.1 GET over a plain socket. The
 * whole attach -- HTTP, WebSocket handshake, first Browser.getVersion -- runs
 * against one deadline.
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
#include <unistd.h>

#define VERSION_REPLY_MAX (256 * 1024)

typedef struct {
  char scheme[8];     /* "ws" or "http" */
  char host[256];     /* without brackets */
  char port[8];
  const char *path;   /* points into the URL; "" when absent */
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
    if (v < 1 || v > 65535 || (p[n] && p[n] != '/')) {
      *why = "invalid port";
      return -1;
    }
    snprintf(u->port, sizeof u->port, "%ld", v);
    p += n;
  } else {
    snprintf(u->port, sizeof u->port, "80");
  }
  if (*p && *p != '/') {
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

/* GET /json/version and return the webSocketDebuggerUrl (caller frees). */
static char *fetch_ws_url(const cdp__url *u, long long deadline, char *why, size_t whylen) {
  int fd = tcp_connect(u, deadline, why, whylen);
  if (fd < 0) return NULL;
  char req[512];
  int rl = snprintf(req, sizeof req,
                    "GET /json/version HTTP/1.1\r\nHost: %s%s%s:%s\r\n"
                    "Accept: application/json\r\nConnection: close\r\n\r\n",
                    strchr(u->host, ':') ? "[" : "", u->host, strchr(u->host, ':') ? "]" : "",
                    u->port);
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

cdp_code cdp_connect(const char *url, int timeout_ms, cdp_client **out, char *err,
                     size_t errlen) {
  if (out) *out = NULL;
  if (!url || !out) {
    if (err) snprintf(err, errlen, "cdp_connect: no URL given");
    return CDP_ARG;
  }
  long long deadline = cdp_now_ms() + (timeout_ms > 0 ? timeout_ms : 20000);
  cdp__url u;
  const char *bad = NULL;
  if (url_parse(url, &u, &bad) < 0) {
    if (err) snprintf(err, errlen, "invalid browser URL '%s': %s", url, bad);
    return CDP_ARG;
  }
  char why[300] = "";
  char *ws_url = NULL;
  if (strcmp(u.scheme, "http") == 0) {
    ws_url = fetch_ws_url(&u, deadline, why, sizeof why);
    if (!ws_url) {
      if (err) snprintf(err, errlen, "cannot connect to %s: %s", url, why);
      return CDP_CONNECT;
    }
  } else {
    ws_url = strdup(url);
    if (!ws_url) {
      if (err) snprintf(err, errlen, "out of memory");
      return CDP_NOMEM;
    }
  }
  int left = ms_left(deadline);
  void *impl = left > 0 ? cdp__ws_new(ws_url, left, why, sizeof why) : NULL;
  if (!impl) {
    if (err) {
      if (left <= 0) snprintf(err, errlen, "cannot connect to %s: timed out", url);
      else if (strcmp(ws_url, url) == 0)
        snprintf(err, errlen, "%s%s", why, strstr(why, "not 101")
                 ? " (the path must be /devtools/browser/ID; or pass http://HOST:PORT)" : "");
      else snprintf(err, errlen, "%s (from %s)", why, url);
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

/* shared_tls.c -- rediss:// for hiredis 0.14, which speaks no TLS: an
 * OpenSSL client connection to Redis, and a socketpair whose one end
 * hiredis gets (redisConnectFd) while a thread pumps bytes between the
 * other end and the TLS connection. The server's certificate is checked
 * against the CA file (or the system's CAs) and the host name or IP
 * address of the URL. Internal to crawler/run/ (shared.c). */
#include "shared.h"
#include "crawl_util.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

struct crawl__tls_pipe {
  SSL_CTX *ctx;
  SSL *ssl;
  int net;      /* the TCP socket to Redis */
  int mine;     /* this side of the socketpair; hiredis holds the other */
  pthread_t th;
  int running;
};

/* A TCP connection to host:port within timeout_ms (blocking, with send
 * and receive timeouts of timeout_ms): the socket, or -1 with err. */
static int tcp_dial(const char *host, int port, int timeout_ms, char *err, size_t errlen) {
  struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
  char ps[16];
  snprintf(ps, sizeof ps, "%d", port);
  int gai = getaddrinfo(host, ps, &hints, &res);
  if (gai) {
    snprintf(err, errlen, "cannot resolve %.200s: %s", host, gai_strerror(gai));
    return -1;
  }
  int fd = -1;
  struct timeval tv = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
  for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv); /* bounds connect() too */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      snprintf(err, errlen, "cannot connect to %.200s:%d: %s", host, port, strerror(errno));
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  return fd;
}

/* OpenSSL's last error, one line, into err after what. */
static void tls_err(char *err, size_t errlen, const char *what) {
  unsigned long e = ERR_get_error();
  char buf[256] = "";
  if (e) ERR_error_string_n(e, buf, sizeof buf);
  snprintf(err, errlen, "%s%s%s", what, buf[0] ? ": " : "", buf);
  ERR_clear_error();
}

/* All n bytes of buf to fd (the socketpair end). 0, or -1. */
static int write_all(int fd, const char *buf, size_t n) {
  while (n) {
    ssize_t w = send(fd, buf, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    buf += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Wait until the TCP socket can do what OpenSSL asked for (err: an
 * SSL_get_error code). 0, or -1 for any other error. */
static int tls_wait(const struct crawl__tls_pipe *t, int err) {
  if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) return -1;
  struct pollfd p = {.fd = t->net, .events = err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT};
  return poll(&p, 1, -1) < 0 && errno != EINTR ? -1 : 0;
}

/* What came from Redis to hiredis: every record OpenSSL can give now.
 * 0, or -1 when the connection ended. */
static int pump_in(struct crawl__tls_pipe *t) {
  char buf[16384];
  for (;;) {
    int n = SSL_read(t->ssl, buf, sizeof buf);
    if (n > 0) {
      if (write_all(t->mine, buf, (size_t)n)) return -1;
      continue;
    }
    int e = SSL_get_error(t->ssl, n);
    return e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE ? 0 : -1;
  }
}

/* What hiredis wrote, to Redis. 0, or -1 when hiredis closed its end or
 * the connection ended. */
static int pump_out(struct crawl__tls_pipe *t) {
  char buf[16384];
  ssize_t n = read(t->mine, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return 0;
  if (n <= 0) return -1;
  for (ssize_t off = 0; off < n;) {
    int w = SSL_write(t->ssl, buf + off, (int)(n - off));
    if (w > 0) off += w;
    else if (tls_wait(t, SSL_get_error(t->ssl, w))) return -1;
  }
  return 0;
}

static void *pump(void *ud) {
  struct crawl__tls_pipe *t = ud;
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE); /* an alert OpenSSL sends to a closed socket is EPIPE here, not the end of the process */
  pthread_sigmask(SIG_BLOCK, &pipe, NULL);
  for (;;) {
    struct pollfd p[2] = {{.fd = t->net, .events = POLLIN}, {.fd = t->mine, .events = POLLIN}};
    if (!SSL_pending(t->ssl) && poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if ((SSL_pending(t->ssl) || p[0].revents) && pump_in(t)) break;
    if (p[1].revents && pump_out(t)) break;
  }
  shutdown(t->mine, SHUT_RDWR); /* hiredis sees the end of the connection */
  return NULL;
}

/* The certificate checks: the CA file (NULL: the system's CAs) and the
 * URL's host, as an IP address or a DNS name. */
static int tls_setup(struct crawl__tls_pipe *t, const char *host, const char *cafile, char *err, size_t errlen) {
  if (!(t->ctx = SSL_CTX_new(TLS_client_method()))) return tls_err(err, errlen, "TLS"), -1;
  SSL_CTX_set_min_proto_version(t->ctx, TLS1_2_VERSION);
  SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);
  if (cafile ? SSL_CTX_load_verify_locations(t->ctx, cafile, NULL) != 1 : SSL_CTX_set_default_verify_paths(t->ctx) != 1) {
    tls_err(err, errlen, cafile ? "cannot read the CA file in UIAP_REDIS_CACERT" : "cannot read the system's CAs");
    return -1;
  }
  if (!(t->ssl = SSL_new(t->ctx))) return tls_err(err, errlen, "TLS"), -1;
  unsigned char ip[16];
  int is_ip = inet_pton(AF_INET, host, ip) == 1 || inet_pton(AF_INET6, host, ip) == 1;
  X509_VERIFY_PARAM *vp = SSL_get0_param(t->ssl);
  if (is_ip ? X509_VERIFY_PARAM_set1_ip_asc(vp, host) != 1 : SSL_set1_host(t->ssl, host) != 1)
    return tls_err(err, errlen, "TLS host check"), -1;
  if (!is_ip) SSL_set_tlsext_host_name(t->ssl, host);
  return 0;
}

void crawl__tls_pipe_close(crawl__tls_pipe *t) {
  if (!t) return;
  if (t->running) {
    shutdown(t->mine, SHUT_RDWR); /* wakes the pump when hiredis has not closed its end yet */
    shutdown(t->net, SHUT_RDWR);
    pthread_join(t->th, NULL);
  }
  if (t->ssl) SSL_free(t->ssl);
  if (t->ctx) SSL_CTX_free(t->ctx);
  if (t->net >= 0) close(t->net);
  if (t->mine >= 0) close(t->mine);
  free(t);
}

int crawl__tls_pipe_open(const char *host, int port, const char *cafile, int timeout_ms, crawl__tls_pipe **out,
                         char *err, size_t errlen) {
  struct crawl__tls_pipe *t = crawl__xcalloc(1, sizeof *t);
  int sp[2] = {-1, -1};
  t->mine = -1;
  *out = NULL;
  if ((t->net = tcp_dial(host, port, timeout_ms, err, errlen)) < 0 || tls_setup(t, host, cafile, err, errlen)) {
    crawl__tls_pipe_close(t);
    return -1;
  }
  SSL_set_fd(t->ssl, t->net);
  if (SSL_connect(t->ssl) != 1) {
    long v = SSL_get_verify_result(t->ssl);
    if (v != X509_V_OK) {
      snprintf(err, errlen, "TLS: the server's certificate was not accepted: %s", X509_verify_cert_error_string(v));
      ERR_clear_error();
    } else {
      tls_err(err, errlen, "TLS handshake failed");
    }
    crawl__tls_pipe_close(t);
    return -1;
  }
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) != 0) {
    snprintf(err, errlen, "socketpair: %s", strerror(errno));
    crawl__tls_pipe_close(t);
    return -1;
  }
  t->mine = sp[1];
  fcntl(t->net, F_SETFL, fcntl(t->net, F_GETFL) | O_NONBLOCK); /* the pump waits in poll() */
  if (pthread_create(&t->th, NULL, pump, t) != 0) {
    snprintf(err, errlen, "cannot start the TLS thread");
    close(sp[0]);
    crawl__tls_pipe_close(t);
    return -1;
  }
  t->running = 1;
  *out = t;
  return sp[0];
}

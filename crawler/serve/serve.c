/* serve.c -- the built-in static file server (crawl_server_*): serves a
 * directory read-only over HTTP/1.1 from one background thread, counts every
 * request per "METHOD path" (a bounded table), and lets an embedder's handler
 * (crawl_server_opts.handler) answer a request before the file lookup: the
 * tests' endpoints live in tests/support/test_server.c, not here.
 *
 * This file owns the server and its connections: listening, the thread and
 * its poll() loop over the listening socket, a self-pipe (so
 * crawl_server_stop wakes it at once) and every client connection. Sockets are
 * non-blocking; each connection is a small state machine (read head, discard
 * body, wait, send), so one slow or silent client never delays another.
 * Files are read from disk in 64 KiB chunks as the socket accepts them.
 * Not here: what a request says and what goes back (serve_http.c), the
 * folder's files (serve_files.c), the handler API (serve_handler.c), the hit
 * counters (serve_hits.c): serve_int.h.
 *
 * Only the hit counters are shared with other threads; one mutex guards them.
 * Allocation, the buffer and the clock are crawler/common's (crawl_util.h):
 * out of memory aborts there.
 */
#include "serve_int.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- connection life ---------------------------------------------------- */

static void serve_conn_close_file(serve_conn *c)
{
  if (c->file_fd >= 0)
    close(c->file_fd);
  c->file_fd = -1;
  c->file_left = 0;
}

static void serve_conn_free(serve_conn *c)
{
  if (!c)
    return;
  close(c->fd);
  serve_conn_close_file(c);
  free(c->in);
  free(c->target);
  free(c->headers);
  free(c->body.p);
  free(c->out.p);
  free(c);
}

/* Forget the finished request; keep unparsed input for the next one. */
static void serve_conn_next(serve_conn *c)
{
  free(c->target);
  c->target = NULL;
  free(c->headers);
  c->headers = NULL;
  c->body.n = 0;
  c->method[0] = '\0';
  c->out.n = 0;
  c->outoff = 0;
  serve_conn_close_file(c);
  c->body_left = c->body_len = 0;
  c->st = SERVE_C_HEAD;
  c->idle_at = crawl__time_ms();
  c->head_at = c->inlen ? c->idle_at : 0; /* a pipelined request has begun */
}

/* The first CRAWL_SERVER_BODY_KEEP bytes of the body, NUL-terminated, for
 * the handler. */
static void serve_body_keep(serve_conn *c, const char *p, size_t n)
{
  size_t room = CRAWL_SERVER_BODY_KEEP - c->body.n;
  if (n > room)
    n = room;
  if (n) {
    crawl__buf_put(&c->body, p, n);
  }
}

/* Parse as many buffered requests as possible (stops once a response is
 * queued: responses go out in order). */
static void serve_conn_process(crawl_server *s, serve_conn *c)
{
  if (c->st == SERVE_C_HEAD) {
    char *blank = NULL;
    for (size_t i = 0; i + 1 < c->inlen && !blank; i++)
      if (c->in[i] == '\n' && (c->in[i + 1] == '\n' ||
          (c->in[i + 1] == '\r' && i + 2 < c->inlen && c->in[i + 2] == '\n')))
        blank = c->in + i + (c->in[i + 1] == '\n' ? 2 : 3);
    if (!blank) {
      if (c->inlen >= SERVE_HEAD_MAX)
        serve__reject(c, 431);
      return;
    }
    size_t hlen = (size_t)(blank - c->in);
    int rc = serve__parse_head(c, hlen);
    memmove(c->in, c->in + hlen, c->inlen - hlen);
    c->inlen -= hlen;
    if (rc != 0)
      return;
    /* body bytes already buffered */
    size_t take = c->body_left < (long long)c->inlen ? (size_t)c->body_left : c->inlen;
    serve_body_keep(c, c->in, take);
    memmove(c->in, c->in + take, c->inlen - take);
    c->inlen -= take;
    c->body_left -= (long long)take;
    c->st = SERVE_C_BODY;
  }
  if (c->st == SERVE_C_BODY && c->body_left == 0)
    serve__dispatch(s, c);
}

/* Read what the socket has. Returns -1 when the connection should go. */
static int serve_conn_read(crawl_server *s, serve_conn *c)
{
  for (;;) {
    char scratch[SERVE_CHUNK];
    char *dst;
    size_t room;
    if (c->st == SERVE_C_HEAD) {
      dst = c->in + c->inlen;
      room = SERVE_HEAD_MAX - c->inlen;
    } else {
      /* body to discard, or input nobody will read (hang, linger) */
      dst = scratch;
      room = sizeof scratch;
      if (c->st == SERVE_C_BODY && (long long)room > c->body_left)
        room = (size_t)c->body_left;
    }
    if (room == 0)
      return 0;
    ssize_t n = recv(c->fd, dst, room, 0);
    if (n == 0)
      return -1;
    if (n < 0)
      return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
    if (c->st == SERVE_C_HEAD) {
      if (!c->inlen)
        c->head_at = crawl__time_ms();
      c->inlen += (size_t)n;
    } else if (c->st == SERVE_C_BODY) {
      serve_body_keep(c, dst, (size_t)n);
      c->body_left -= n;
    }
    else
      continue;  /* hang, linger: discard */
    serve_conn_process(s, c);
    if (c->st != SERVE_C_HEAD && c->st != SERVE_C_BODY)
      return 0;
  }
}

/* Write what the socket takes. Returns -1 when the connection should go. */
static int serve_conn_write(crawl_server *s, serve_conn *c)
{
  for (;;) {
    if (c->outoff == c->out.n) {
      if (c->file_left > 0) {
        /* refill from the file */
        c->out.n = c->outoff = 0;
        size_t want = c->file_left < SERVE_CHUNK ? (size_t)c->file_left : SERVE_CHUNK;
        if (c->out.cap < want + 1) {
          c->out.p = crawl__xrealloc(c->out.p, want + 1);
          c->out.cap = want + 1;
        }
        ssize_t n = read(c->file_fd, c->out.p, want);
        if (n <= 0)
          return -1;  /* file shrank: the length promised can't be kept */
        c->out.n = (size_t)n;
        c->file_left -= n;
      } else {
        /* response complete */
        if (!c->keepalive) {
          shutdown(c->fd, SHUT_WR);
          c->st = SERVE_C_LINGER;
          c->wake_at = crawl__time_ms() + SERVE_LINGER_MS;
          return 0;
        }
        serve_conn_next(c);
        serve_conn_process(s, c);
        if (c->st != SERVE_C_SEND)
          return 0;
        continue;
      }
    }
    ssize_t n = send(c->fd, c->out.p + c->outoff, c->out.n - c->outoff, MSG_NOSIGNAL);
    if (n < 0)
      return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
    c->outoff += (size_t)n;
  }
}

static void serve_accept(crawl_server *s)
{
  for (;;) {
    int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
      return;  /* EAGAIN, or a transient error (EMFILE...): retry next poll */
    if (s->nconns >= SERVE_MAX_CONNS) {
      close(fd);
      continue;
    }
    serve_conn *c = crawl__xrealloc(NULL, sizeof *c);
    memset(c, 0, sizeof *c);
    c->fd = fd;
    c->file_fd = -1;
    c->in = crawl__xrealloc(NULL, SERVE_HEAD_MAX);
    c->st = SERVE_C_HEAD;
    c->idle_at = crawl__time_ms();
    c->bind_host = s->host;
    c->head_ms = s->head_ms;
    if (s->nconns == s->capconns) {
      s->capconns = s->capconns ? s->capconns * 2 : 16;
      s->conns = crawl__xrealloc(s->conns, s->capconns * sizeof *s->conns);
    }
    s->conns[s->nconns++] = c;
  }
}

static void *serve_thread(void *arg)
{
  crawl_server *s = arg;
  struct pollfd *pfds = NULL;
  size_t cap = 0;
  for (;;) {
    size_t n = s->nconns + 2;
    if (n > cap) {
      cap = n * 2;
      pfds = crawl__xrealloc(pfds, cap * sizeof *pfds);
    }
    pfds[0] = (struct pollfd){ .fd = s->wake[0], .events = POLLIN };
    pfds[1] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
    long long now = crawl__time_ms(), next = -1;
    for (size_t i = 0; i < s->nconns; i++) {
      serve_conn *c = s->conns[i];
      short ev = 0;
      if (c->st == SERVE_C_SEND)
        ev = POLLOUT;
      else if (c->st != SERVE_C_WAIT)
        ev = POLLIN;
      if (c->st == SERVE_C_HEAD)
        c->wake_at = c->head_at ? c->head_at + c->head_ms : c->idle_at + SERVE_IDLE_MS;
      if ((c->st == SERVE_C_WAIT || c->st == SERVE_C_LINGER || c->st == SERVE_C_HEAD) &&
          (next < 0 || c->wake_at < next))
        next = c->wake_at;
      pfds[i + 2] = (struct pollfd){ .fd = c->fd, .events = ev };
    }
    int timeout = next < 0 ? -1 : next <= now ? 0 : (int)(next - now);
    int rc = poll(pfds, n, timeout);
    if (rc < 0 && errno != EINTR)
      break;
    if (rc > 0 && pfds[0].revents)
      break;
    /* Connections first (pfds match s->conns by index), then accept. */
    now = crawl__time_ms();
    size_t keep = 0;
    for (size_t i = 0; i < s->nconns; i++) {
      serve_conn *c = s->conns[i];
      short re = rc > 0 ? pfds[i + 2].revents : 0;
      int gone = 0;
      if (c->st == SERVE_C_WAIT && c->wake_at <= now)
        c->st = SERVE_C_SEND;
      if (re & POLLNVAL || (c->st == SERVE_C_LINGER && c->wake_at <= now))
        gone = 1;
      else if (c->st == SERVE_C_HEAD && !(re & POLLIN) && c->wake_at <= now)
        gone = 1;  /* a head that never completes (slowloris), or idle too long */
      else if (c->st == SERVE_C_WAIT && re & (POLLERR | POLLHUP))
        gone = 1;  /* polled for nothing: reset by the peer, drop it */
      else if (re & (POLLIN | POLLHUP | POLLERR) && pfds[i + 2].events == POLLIN)
        gone = serve_conn_read(s, c) < 0;
      if (!gone && c->st == SERVE_C_SEND &&
          (re & (POLLOUT | POLLERR | POLLHUP) || pfds[i + 2].events != POLLOUT))
        gone = serve_conn_write(s, c) < 0;
      if (gone)
        serve_conn_free(c);
      else
        s->conns[keep++] = c;
    }
    s->nconns = keep;
    if (rc > 0 && pfds[1].revents)
      serve_accept(s);
  }
  free(pfds);
  return NULL;
}

/* ---- public API --------------------------------------------------------- */

static int serve_listen(const char *host, int port, int *fd_out, int *port_out,
                        char *err, size_t errlen)
{
  struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                            .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
  struct addrinfo *res = NULL;
  char portstr[16];
  snprintf(portstr, sizeof portstr, "%d", port);
  int gai = getaddrinfo(host, portstr, &hints, &res);
  if (gai != 0) {
    snprintf(err, errlen, "cannot resolve %s: %s", host, gai_strerror(gai));
    return -1;
  }
  int fd = -1, saved = 0;
  for (struct addrinfo *a = res; a; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      saved = errno;
      continue;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 128) == 0)
      break;
    saved = errno;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd < 0) {
    snprintf(err, errlen, "cannot listen on %s:%d: %s", host, port, strerror(saved));
    return -1;
  }
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
    snprintf(err, errlen, "getsockname: %s", strerror(errno));
    close(fd);
    return -1;
  }
  *port_out = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                                       : ntohs(((struct sockaddr_in *)&ss)->sin_port);
  *fd_out = fd;
  return 0;
}

int crawl_server_start(const crawl_server_opts *o, crawl_server **out, char *err, size_t errlen)
{
  char dummy[1];
  if (!err || errlen == 0) {
    err = dummy;
    errlen = sizeof dummy;
  }
  if (!out) {
    snprintf(err, errlen, "crawl_server_start: out is NULL");
    return -1;
  }
  *out = NULL;
  if (!o || !o->root || !*o->root) {
    snprintf(err, errlen, "no root directory given");
    return -1;
  }
  if (o->port < 0 || o->port > 65535) {
    snprintf(err, errlen, "invalid port %d", o->port);
    return -1;
  }
  char *root = realpath(o->root, NULL);
  struct stat st;
  if (!root || stat(root, &st) != 0 || !S_ISDIR(st.st_mode)) {
    snprintf(err, errlen, "root %s: %s", o->root, root ? "not a directory" : strerror(errno));
    free(root);
    return -1;
  }
  crawl_server *s = crawl__xrealloc(NULL, sizeof *s);
  memset(s, 0, sizeof *s);
  s->root = root;
  s->rootlen = strlen(root);
  /* Root "/" would make the prefix check "//..." fail; serve it as "". */
  if (s->rootlen == 1) {
    s->root[0] = '\0';
    s->rootlen = 0;
  }
  s->spa_fallback = o->spa_fallback;
  s->test_hooks = o->test_hooks;
  s->handler = o->handler;
  s->handler_ud = o->handler_ud;
  s->wake[0] = s->wake[1] = -1;
  pthread_mutex_init(&s->mu, NULL);
  const char *host = o->host && *o->host ? o->host : "127.0.0.1";
  s->host = crawl__xstrdup(host);
  s->head_ms = o->head_timeout_ms > 0 ? o->head_timeout_ms : SERVE_HEAD_MS;
  if (serve_listen(host, o->port, &s->lfd, &s->port, err, errlen) != 0) {
    s->lfd = -1;
    goto fail;
  }
  if (pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    snprintf(err, errlen, "pipe: %s", strerror(errno));
    goto fail;
  }
  int prc = pthread_create(&s->thread, NULL, serve_thread, s);
  if (prc != 0) {
    snprintf(err, errlen, "pthread_create: %s", strerror(prc));
    goto fail;
  }
  *out = s;
  return 0;
fail:
  if (s->lfd >= 0)
    close(s->lfd);
  if (s->wake[0] >= 0) {
    close(s->wake[0]);
    close(s->wake[1]);
  }
  pthread_mutex_destroy(&s->mu);
  free(s->root);
  free(s->host);
  free(s);
  return -1;
}

int crawl_server_port(const crawl_server *s)
{
  return s ? s->port : 0;
}

void crawl_server_stop(crawl_server *s)
{
  if (!s)
    return;
  ssize_t w;
  do
    w = write(s->wake[1], "x", 1);
  while (w < 0 && errno == EINTR);
  pthread_join(s->thread, NULL);
  for (size_t i = 0; i < s->nconns; i++)
    serve_conn_free(s->conns[i]);
  free(s->conns);
  close(s->lfd);
  close(s->wake[0]);
  close(s->wake[1]);
  serve__hit_reset(s);
  free(s->hits);
  pthread_mutex_destroy(&s->mu);
  free(s->root);
  free(s->host);
  free(s);
}

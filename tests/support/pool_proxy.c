/* pool_proxy.c -- the browser pool of tests/e2e/pool.c (pool_proxy.h): one
 * thread, one poll loop over the listening socket and every connection.
 * A connection first sends its request head; then it is answered 429 and
 * closed, or joined to a new connection to the browser and both are pumped
 * until either side closes (or the drop rule closes a WebSocket). */
#include "pool_proxy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 64
#define HEAD_MAX 16384

typedef struct {
  int cfd, ufd;             /* client, browser; -1: none */
  char head[HEAD_MAX];      /* the request head (and whatever came with it) */
  size_t hlen;
  int ws;                   /* a WebSocket upgrade */
  long long since;          /* forwarding since (ms); 0: still reading the head */
} conn;

struct t_pool_proxy {
  t_pool_proxy_opts o;
  int lfd, port;
  pthread_t th;
  atomic_int stop;
  pthread_mutex_t mu;       /* guards st */
  t_pool_proxy_stats st;
  conn c[MAX_CONNS];
};

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int send_all(int fd, const char *b, size_t n) {
  while (n) {
    ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    b += w;
    n -= (size_t)w;
  }
  return 0;
}

static void conn_close(conn *k) {
  if (k->cfd >= 0) close(k->cfd);
  if (k->ufd >= 0) close(k->ufd);
  k->cfd = k->ufd = -1;
  k->hlen = 0;
  k->since = 0;
  k->ws = 0;
}

static int connect_upstream(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0) return fd;
  if (fd >= 0) close(fd);
  return -1;
}

/* The head of k is complete: answer 429, or start forwarding. */
static void head_done(t_pool_proxy *p, conn *k) {
  k->ws = strcasestr(k->head, "\r\nupgrade: websocket") != NULL;
  pthread_mutex_lock(&p->mu);
  int nth = k->ws ? p->st.ws++ : p->st.http++;
  unsigned mask = k->ws ? p->o.busy_ws : p->o.busy_http;
  int busy = p->o.busy_always || (nth < 32 && (mask >> nth) & 1u);
  if (busy) p->st.busy++;
  pthread_mutex_unlock(&p->mu);
  if (busy) {
    char r[256];
    int n = snprintf(r, sizeof r,
                     "HTTP/1.1 429 Too Many Requests\r\nRetry-After: %d\r\nContent-Type: text/plain\r\n"
                     "Content-Length: 9\r\nConnection: close\r\n\r\ntoo many\n",
                     p->o.retry_after_s > 0 ? p->o.retry_after_s : 1);
    send_all(k->cfd, r, (size_t)n);
    conn_close(k);
    return;
  }
  k->ufd = connect_upstream(p->o.upstream_port);
  if (k->ufd < 0 || send_all(k->ufd, k->head, k->hlen) < 0) {
    conn_close(k);
    return;
  }
  k->since = now_ms();
}

/* Data on k's client side. */
static void client_readable(t_pool_proxy *p, conn *k) {
  if (k->since) {
    char b[65536];
    ssize_t r = recv(k->cfd, b, sizeof b, 0);
    if (r <= 0 || send_all(k->ufd, b, (size_t)r) < 0) conn_close(k);
    return;
  }
  ssize_t r = recv(k->cfd, k->head + k->hlen, HEAD_MAX - 1 - k->hlen, 0);
  if (r <= 0) {
    conn_close(k);
    return;
  }
  k->hlen += (size_t)r;
  k->head[k->hlen] = '\0';
  if (strstr(k->head, "\r\n\r\n")) head_done(p, k);
  else if (k->hlen == HEAD_MAX - 1) conn_close(k);
}

static void upstream_readable(conn *k) {
  char b[65536];
  ssize_t r = recv(k->ufd, b, sizeof b, 0);
  if (r <= 0 || send_all(k->cfd, b, (size_t)r) < 0) conn_close(k);
}

/* The drop rule, on every forwarded WebSocket. */
static void maybe_drop(t_pool_proxy *p) {
  int max = p->o.drop_max > 0 ? p->o.drop_max : 1;
  for (int i = 0; i < MAX_CONNS; i++) {
    conn *k = &p->c[i];
    if (k->cfd < 0 || !k->since || !k->ws) continue;
    pthread_mutex_lock(&p->mu);
    int room = p->st.dropped < max;
    pthread_mutex_unlock(&p->mu);
    if (!room) return;
    int due = (p->o.drop_after_ms > 0 && now_ms() - k->since >= p->o.drop_after_ms) ||
              (p->o.drop_when && p->o.drop_when(p->o.drop_ud));
    if (!due) continue;
    shutdown(k->cfd, SHUT_RDWR);
    conn_close(k);
    pthread_mutex_lock(&p->mu);
    p->st.dropped++;
    pthread_mutex_unlock(&p->mu);
  }
}

static void accept_one(t_pool_proxy *p) {
  int fd = accept4(p->lfd, NULL, NULL, SOCK_CLOEXEC);
  if (fd < 0) return;
  for (int i = 0; i < MAX_CONNS; i++)
    if (p->c[i].cfd < 0) {
      p->c[i].cfd = fd;
      return;
    }
  close(fd); /* full */
}

static void *serve(void *ud) {
  t_pool_proxy *p = ud;
  struct pollfd fds[1 + 2 * MAX_CONNS];
  int who[1 + 2 * MAX_CONNS]; /* conn index * 2 (+1: the browser side) */
  long long next_drop_check = 0;
  while (!atomic_load(&p->stop)) {
    int n = 0;
    fds[n++] = (struct pollfd){.fd = p->lfd, .events = POLLIN};
    for (int i = 0; i < MAX_CONNS; i++) {
      if (p->c[i].cfd < 0) continue;
      who[n] = 2 * i;
      fds[n++] = (struct pollfd){.fd = p->c[i].cfd, .events = POLLIN};
      if (p->c[i].ufd < 0) continue;
      who[n] = 2 * i + 1;
      fds[n++] = (struct pollfd){.fd = p->c[i].ufd, .events = POLLIN};
    }
    if (poll(fds, (nfds_t)n, 100) < 0 && errno != EINTR) break;
    if (fds[0].revents & POLLIN) accept_one(p);
    for (int j = 1; j < n; j++) {
      conn *k = &p->c[who[j] / 2];
      if (!(fds[j].revents & (POLLIN | POLLHUP | POLLERR)) || k->cfd < 0) continue;
      if (who[j] % 2 == 0) client_readable(p, k);
      else if (k->ufd >= 0) upstream_readable(k);
    }
    if (now_ms() >= next_drop_check) {
      maybe_drop(p);
      next_drop_check = now_ms() + 100;
    }
  }
  return NULL;
}

t_pool_proxy *t_pool_proxy_start(const t_pool_proxy_opts *opts) {
  t_pool_proxy *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->o = *opts;
  for (int i = 0; i < MAX_CONNS; i++) p->c[i].cfd = p->c[i].ufd = -1;
  pthread_mutex_init(&p->mu, NULL);
  p->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in a = {.sin_family = AF_INET};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t al = sizeof a;
  if (p->lfd < 0 || bind(p->lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(p->lfd, 64) != 0 ||
      getsockname(p->lfd, (struct sockaddr *)&a, &al) != 0 || pthread_create(&p->th, NULL, serve, p) != 0) {
    fprintf(stderr, "pool proxy: cannot start: %s\n", strerror(errno));
    if (p->lfd >= 0) close(p->lfd);
    free(p);
    return NULL;
  }
  p->port = ntohs(a.sin_port);
  return p;
}

int t_pool_proxy_port(const t_pool_proxy *p) { return p->port; }

t_pool_proxy_stats t_pool_proxy_stats_get(t_pool_proxy *p) {
  pthread_mutex_lock(&p->mu);
  t_pool_proxy_stats s = p->st;
  pthread_mutex_unlock(&p->mu);
  return s;
}

void t_pool_proxy_stop(t_pool_proxy *p) {
  if (!p) return;
  atomic_store(&p->stop, 1);
  pthread_join(p->th, NULL);
  for (int i = 0; i < MAX_CONNS; i++) conn_close(&p->c[i]);
  close(p->lfd);
  pthread_mutex_destroy(&p->mu);
  free(p);
}

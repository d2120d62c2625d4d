/* transport_pipe.c -- CDP over --remote-debugging-pipe: NUL-terminated JSON
 * messages; we write to the browser's fd 3 and read from its fd 4.
 *
 * Used for browsers we launch: when this process dies the pipe closes and
 * Chromium exits, so a launched browser never outlives the crawler.
 * Reassembly of the input (cdp__nulbuf) does no I/O, so the fuzz target
 * tests/fuzz/fuzz_cdp_message.c runs it directly.
 */
#include "cdp_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  int wfd, rfd;
  char *out;  size_t out_len, out_off, out_cap;   /* pending output */
  cdp__nulbuf rx;                                 /* input, reassembled into messages */
  const char *err;
} pipe_tp;

void *cdp__pipe_new(int wfd, int rfd) {
  pipe_tp *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->wfd = wfd;
  t->rfd = rfd;
  t->err = "";
  fcntl(wfd, F_SETFL, fcntl(wfd, F_GETFL) | O_NONBLOCK);
  fcntl(rfd, F_SETFL, fcntl(rfd, F_GETFL) | O_NONBLOCK);
  return t;
}

static int grow(char **buf, size_t *cap, size_t need) {
  if (need <= *cap) return 0;
  if (need > CDP__MAX_MESSAGE + 1) return -1;
  size_t n = *cap ? *cap : 65536;
  while (n < need) n *= 2;
  char *b = realloc(*buf, n);
  if (!b) return -1;
  *buf = b;
  *cap = n;
  return 0;
}

static int pipe_send(void *impl, const char *msg, size_t len) {
  pipe_tp *t = impl;
  if (t->wfd < 0) return -1;
  if (t->out_off == t->out_len) t->out_off = t->out_len = 0;
  if (grow(&t->out, &t->out_cap, t->out_len + len + 1) < 0) {
    t->err = "output buffer too large";
    return -1;
  }
  memcpy(t->out + t->out_len, msg, len);
  t->out[t->out_len + len] = '\0';
  t->out_len += len + 1;
  /* try to write right away; the rest goes out from poll */
  while (t->out_off < t->out_len) {
    ssize_t n = write(t->wfd, t->out + t->out_off, t->out_len - t->out_off);
    if (n > 0) {
      t->out_off += (size_t)n;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    t->err = "write to browser failed";
    return -1;
  }
  return 0;
}

/* A message at least this big is handed over in the input buffer itself
 * (the bytes after it move to a new buffer); smaller ones are copied out. */
#define PIPE_HANDOVER (256u * 1024u)

int cdp__nulbuf_reserve(cdp__nulbuf *b, size_t want) {
  return grow(&b->in, &b->cap, b->len + want);
}

void cdp__nulbuf_deliver(cdp__nulbuf *b, cdp__msg_fn fn, void *ctx) {
  size_t handover = b->handover ? b->handover : PIPE_HANDOVER;
  for (;;) {
    size_t start = b->head;
    size_t from = start > b->scanned ? start : b->scanned;
    char *nul = b->len > from ? memchr(b->in + from, '\0', b->len - from) : NULL;
    if (!nul) {
      b->scanned = b->len;
      break;
    }
    size_t len = (size_t)(nul - (b->in + start));
    size_t rest = b->len - (start + len + 1);
    char *msg = NULL;
    if (len >= handover) {
      /* no copy of the big one: it keeps the buffer, the rest moves */
      size_t cap = rest > 65536 ? rest : 65536;
      char *nb = rest ? malloc(cap) : NULL;
      if (!rest || nb) {
        if (rest) memcpy(nb, nul + 1, rest);
        if (start) memmove(b->in, b->in + start, len + 1);
        msg = b->in;
        char *shrunk = realloc(msg, len + 1);
        if (shrunk) msg = shrunk;
        b->in = nb;
        b->cap = rest ? cap : 0;
        b->len = rest;
        b->head = b->scanned = 0;
      }
    }
    if (!msg) {
      msg = malloc(len + 1);
      if (msg) memcpy(msg, b->in + start, len + 1);
      b->head = start + len + 1; /* out of memory: the message is dropped */
    }
    if (msg) fn(ctx, msg, len);
  }
  if (b->head) {
    memmove(b->in, b->in + b->head, b->len - b->head);
    b->len -= b->head;
    b->scanned = b->scanned > b->head ? b->scanned - b->head : 0;
    b->head = 0;
  }
}

void cdp__nulbuf_release(cdp__nulbuf *b) {
  free(b->in);
  memset(b, 0, sizeof *b);
}

static int pipe_poll(void *impl, int timeout_ms, cdp__msg_fn fn, void *ctx) {
  pipe_tp *t = impl;
  if (t->rfd < 0) return -1;
  int got_any = 0;
  for (;;) {
    struct pollfd p[2] = {{.fd = t->rfd, .events = POLLIN},
                          {.fd = t->wfd, .events = t->out_off < t->out_len ? POLLOUT : 0}};
    int n = poll(p, t->out_off < t->out_len ? 2 : 1, got_any ? 0 : timeout_ms);
    if (n < 0) {
      if (errno == EINTR) return 0; /* let the caller check its cancel flag */
      t->err = "poll failed";
      return -1;
    }
    if (n == 0) return 0;
    if (p[1].revents & (POLLERR | POLLHUP)) {
      t->err = "browser closed its end of the pipe";
      return -1;
    }
    if (p[1].revents & POLLOUT) {
      ssize_t w = write(t->wfd, t->out + t->out_off, t->out_len - t->out_off);
      if (w > 0) t->out_off += (size_t)w;
      else if (w < 0 && errno != EAGAIN && errno != EINTR) {
        t->err = "write to browser failed";
        return -1;
      }
    }
    if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      for (;;) {
        if (cdp__nulbuf_reserve(&t->rx, 262144) < 0) {
          t->err = "message from browser exceeds 1 GiB";
          return -1;
        }
        ssize_t r = read(t->rfd, t->rx.in + t->rx.len, t->rx.cap - t->rx.len);
        if (r > 0) {
          t->rx.len += (size_t)r;
          got_any = 1;
          continue;
        }
        if (r == 0) {
          cdp__nulbuf_deliver(&t->rx, fn, ctx);
          t->err = "browser exited (pipe closed)";
          return -1;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) break;
        t->err = "read from browser failed";
        return -1;
      }
      cdp__nulbuf_deliver(&t->rx, fn, ctx);
    }
    if (got_any) return 0;
  }
}

static const char *pipe_errmsg(void *impl) { return ((pipe_tp *)impl)->err; }

static void pipe_close(void *impl) {
  pipe_tp *t = impl;
  if (t->wfd >= 0) close(t->wfd);
  if (t->rfd >= 0) close(t->rfd);
  free(t->out);
  cdp__nulbuf_release(&t->rx);
  free(t);
}

/* The pipe itself owns no process: launch.c wraps it in one that does. */
const cdp__transport cdp__pipe_transport = {
  .send = pipe_send, .poll = pipe_poll, .errmsg = pipe_errmsg, .close = pipe_close,
};

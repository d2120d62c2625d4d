/* fuzz_cdp_message.c -- libFuzzer target for what the browser sends us:
 * reassembly of incoming messages (the pipe's NUL-delimited stream,
 * cdp__nulbuf; the WebSocket's fragments, cdp__wsrx) and the client's
 * dispatch of each complete message (JSON parse, raw replies read by their
 * head, id correlation, error replies, events, cdp_json_fix_surrogates).
 *
 * No socket: a client runs on a fake transport whose poll feeds the next
 * chunk of the input to the reassembler and hands complete messages to the
 * client. Calls are pending (plain, raw, on sessions, abandoned) before the
 * first byte; when the input is used up the transport reports "closed" and
 * every call is waited for (the answers must be consistent), then freed.
 *
 * Input: a 3-byte header, the chunk sizes, then the stream.
 *   [0] flags: bit 0 WebSocket (else pipe), bit 1 small pipe handover
 *       threshold (1 + [1]), bits 2-3 the WebSocket "remaining" hint (0 none,
 *       1 the rest of the message, 2 [1] KiB more than that, 3 near
 *       SIZE_MAX or past the cap), bit 4 event callbacks pump the client again
 *       (re-entrant poll), bit 5 the catch-all subscriber removes itself
 *       during dispatch, bit 6 wait for call 1 before pumping, bit 7 the
 *       connection closes in the same poll that delivers the last chunk (as
 *       the pipe does when it reads the last bytes and then EOF).
 *   [1] parameter of the flags above.
 *   [2] n (low 4 bits): n chunk sizes follow, used in turn (0 = 4096); n = 0
 *       is the whole stream at once.
 *   stream: messages, each ended by a NUL (the pipe's framing; for the
 *       WebSocket mode the NUL marks the final fragment and is not sent).
 * Seeds: corpus/cdp_message/ (header "\0\0\0" + messages); dictionary
 * cdp_message.dict. */
#include "cdp_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x) do { if (!(x)) abort(); } while (0)

typedef struct {
  const uint8_t *data;
  size_t size, pos;            /* stream; next byte to feed */
  const uint8_t *sizes;
  size_t nsizes, next_size;
  int ws;
  int hint;
  unsigned param;
  int dead;                    /* the reassembler refused: the connection is gone */
  int close_with_last;         /* flags bit 7 */
  cdp__nulbuf nb;
  cdp__wsrx wr;
  size_t msg_left;             /* ws: bytes of the current message not fed yet */
  /* the client's callback, wrapped */
  cdp__msg_fn fn;
  void *ctx;
} fake_tp;

typedef struct {
  cdp_client *c;
  fake_tp *t;
  int flags;
  int depth;
  int all_handle;
  int events;
} fuzz_state;

static size_t next_chunk(fake_tp *t) {
  size_t n = t->nsizes ? t->sizes[t->next_size++ % t->nsizes] : 0;
  return n ? n : 4096;
}

/* Every message a reassembler hands over: NUL-terminated, and the surrogate
 * fix-up keeps its length and is idempotent. */
static void check_msg(void *ctx, char *msg, size_t len) {
  fake_tp *t = ctx;
  CHECK(msg && msg[len] == '\0');
  char *copy = malloc(len + 1);
  CHECK(copy);
  memcpy(copy, msg, len + 1);
  cdp_json_fix_surrogates(copy, len);
  CHECK(copy[len] == '\0');
  CHECK(cdp_json_fix_surrogates(copy, len) == 0);
  free(copy);
  t->fn(t->ctx, msg, len);
}

static int fake_send(void *impl, const char *msg, size_t len) {
  (void)impl;
  CHECK(msg && len);
  return 0;
}

/* Feed one chunk (pipe) or one fragment (WebSocket), deliver what completes. */
static int fake_poll(void *impl, int timeout_ms, cdp__msg_fn fn, void *ctx) {
  fake_tp *t = impl;
  (void)timeout_ms;
  if (t->dead || t->pos >= t->size) return -1;
  cdp__msg_fn saved_fn = t->fn;
  void *saved_ctx = t->ctx;
  t->fn = fn;
  t->ctx = ctx;
  size_t n = next_chunk(t);
  if (!t->ws) {
    if (n > t->size - t->pos) n = t->size - t->pos;
    if (cdp__nulbuf_reserve(&t->nb, n) < 0) {
      t->dead = 1;
    } else {
      memcpy(t->nb.in + t->nb.len, t->data + t->pos, n);
      t->nb.len += n;
      t->pos += n;
      cdp__nulbuf_deliver(&t->nb, check_msg, t);
    }
  } else {
    if (!t->msg_left) { /* the next message runs to its NUL (or the end) */
      const uint8_t *nul = memchr(t->data + t->pos, 0, t->size - t->pos);
      t->msg_left = nul ? (size_t)(nul - (t->data + t->pos)) + 1 : t->size - t->pos;
    }
    int has_nul = t->data[t->pos + t->msg_left - 1] == 0;
    size_t body = t->msg_left - has_nul; /* payload bytes still to send */
    if (n > body) n = body;
    size_t after = body - n;
    int final = after == 0 && has_nul;
    size_t remaining = 0;
    switch (t->hint) {
    case 1: remaining = after; break;
    case 2: remaining = after ? after + t->param * 1024 : 0; break;
    case 3: remaining = t->param & 1 ? SIZE_MAX - (t->param >> 1) : CDP__MAX_MESSAGE - t->wr.len - n + 1 + (t->param >> 1); break;
    default: break;
    }
    size_t before = t->wr.len;
    cdp_code rc = cdp__wsrx_append(&t->wr, t->data + t->pos, n, remaining);
    if (rc != CDP_OK) {
      CHECK(rc == CDP_PROTO && t->wr.len == before);
      t->dead = 1; /* the transport's callback returns -1: lws drops the connection */
    } else {
      CHECK(t->wr.len == before + n && t->wr.cap > t->wr.len);
      t->pos += n;
      t->msg_left -= n;
      if (final) {
        t->pos++; /* the NUL */
        t->msg_left = 0;
        if (remaining == 0) {
          char *msg;
          size_t len;
          CHECK(cdp__wsrx_finish(&t->wr, &msg, &len) == CDP_OK);
          CHECK(t->wr.in == NULL && t->wr.len == 0);
          check_msg(t, msg, len);
        }
      }
    }
  }
  t->fn = saved_fn;
  t->ctx = saved_ctx;
  return t->dead || (t->close_with_last && t->pos >= t->size) ? -1 : 0;
}

static const char *fake_errmsg(void *impl) {
  return ((fake_tp *)impl)->dead ? "refused" : "end of input";
}

static void fake_close(void *impl) {
  fake_tp *t = impl;
  cdp__nulbuf_release(&t->nb);
  cdp__wsrx_release(&t->wr);
}

static const cdp__transport fake_transport = {
  .send = fake_send, .poll = fake_poll, .errmsg = fake_errmsg, .close = fake_close,
};

static void on_detached(void *ud, const char *session, const char *method, const cJSON *params) {
  fuzz_state *s = ud;
  const char *sid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "sessionId"));
  cdp_fail_session(s->c, sid ? sid : session, "target detached");
}

static void on_any(void *ud, const char *session, const char *method, const cJSON *params) {
  fuzz_state *s = ud;
  CHECK(method);
  s->events++;
  /* params and session belong to the client: touch them (ASan checks) */
  if (session) CHECK(strlen(session) < SIZE_MAX);
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(params, "id");
  if (!strcmp(method, "Fuzz.send")) {
    int nid = cdp_send(s->c, session, "Fuzz.reply", NULL);
    CHECK(nid > 0 || !cdp_client_alive(s->c));
  } else if (!strcmp(method, "Fuzz.abandon") && cJSON_IsNumber(id)) {
    cdp_abandon(s->c, id->valueint);
  } else if (!strcmp(method, "Fuzz.wait") && cJSON_IsNumber(id) && s->depth < 2) {
    /* a blocking call from inside a callback: pumps re-entrantly */
    s->depth++;
    cJSON *res = NULL;
    if (cdp_wait(s->c, id->valueint, &res, 1) == CDP_OK) CHECK(res != NULL);
    cJSON_Delete(res);
    s->depth--;
  }
  if (s->flags & 0x10 && s->depth < 3) {
    s->depth++;
    cdp_pump(s->c, 0);
    s->depth--;
  }
  if (s->flags & 0x20 && s->events == 2) cdp_off(s->c, s->all_handle);
}

static void on_load(void *ud, const char *session, const char *method, const cJSON *params) {
  CHECK(!strcmp(method, "Page.loadEventFired"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3) return 0;
  int flags = data[0];
  unsigned param = data[1];
  size_t nsizes = data[2] & 15;
  if (size < 3 + nsizes) return 0;
  fake_tp t = {.data = data + 3 + nsizes, .size = size - 3 - nsizes, .sizes = data + 3,
               .nsizes = nsizes, .ws = flags & 1, .hint = flags >> 2 & 3, .param = param,
               .close_with_last = flags >> 7 & 1};
  if (flags & 2) t.nb.handover = 1 + param;
  cdp_client *c = cdp__client_new(&fake_transport, &t);
  CHECK(c);
  fuzz_state s = {.c = c, .t = &t, .flags = flags};
  cdp_on(c, "Target.detachedFromTarget", on_detached, &s);
  s.all_handle = cdp_on(c, NULL, on_any, &s);
  cdp_on(c, "Page.loadEventFired", on_load, &s);

  /* calls pending before the first byte: ids 1..6 */
  CHECK(cdp_send(c, NULL, "Page.navigate", NULL) == 1);
  CHECK(cdp_send(c, "S1", "Runtime.evaluate", cJSON_CreateObject()) == 2);
  CHECK(cdp_send_raw(c, NULL, "DOMSnapshot.captureSnapshot", NULL) == 3);
  CHECK(cdp_send_raw(c, "S1", "Accessibility.getFullAXTree", NULL) == 4);
  CHECK(cdp_send(c, "S2", "DOM.getDocument", NULL) == 5);
  CHECK(cdp_send_raw(c, "S2", "Page.captureScreenshot", NULL) == 6);
  cdp_abandon(c, 5);
  cdp_abandon(c, 6);

  if (flags & 0x40) {
    cJSON *res = NULL;
    cdp_code rc = cdp_wait(c, 1, &res, 1000);
    CHECK((rc == CDP_OK) == (res != NULL));
    cJSON_Delete(res);
  }
  while (cdp_pump(c, 0) == CDP_OK) {}
  CHECK(!cdp_client_alive(c));
  CHECK(t.dead || t.pos >= t.size);

  /* every call gets an answer now: its reply, its error, or "closed" */
  int last = c->next_id;
  for (int id = 1; id < last; id++) {
    if (id & 1) {
      cJSON *res = NULL;
      cdp_code rc = cdp_wait(c, id, &res, 1000);
      CHECK((rc == CDP_OK) == (res != NULL));
      if (rc != CDP_OK) CHECK(cdp_client_errmsg(c)[0]);
      cJSON_Delete(res);
    } else {
      char *json = NULL;
      size_t len = 7;
      cdp_code rc = cdp_wait_raw(c, id, &json, &len, 1000);
      CHECK((rc == CDP_OK) == (json != NULL));
      if (json) CHECK(json[len] == '\0');
      else CHECK(len == 0);
      free(json);
    }
  }
  cdp_client_free(c);
  return 0;
}

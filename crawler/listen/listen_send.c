/* listen_send.c -- a session's outgoing messages: the queue (filled from
 * any thread, drained by the server's WRITEABLE callback through
 * lsn__session_pop), message ids, and the envelopes of replies, events and
 * errors. The bottom of crawler/listen/: the session (listen_session.c),
 * the web profile (listen_web.c) and the discovery extension
 * (listen_discovery.c) all send through it; it calls none of them.
 */
#include "listen_int.h"
#include "crawl_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the queue -------------------------------------------------------------- */
void lsn__msg_id(lsn_session *s, char *buf, size_t len) {
  unsigned long n = __atomic_add_fetch(&s->seq, 1, __ATOMIC_SEQ_CST);
  snprintf(buf, len, "msg_%s_%lu", s->id, n);
}

void lsn__send(lsn_session *s, cJSON *msg) {
  lsn_out *q = crawl__xcalloc(1, sizeof *q);
  q->text = crawl__jtext(msg, 0);
  cJSON_Delete(msg);
  pthread_mutex_lock(&s->mu);
  if (s->tail) s->tail->next = q;
  else s->head = q;
  s->tail = q;
  pthread_mutex_unlock(&s->mu);
  if (s->wake) s->wake(s->wake_ud);
}

char *lsn__session_pop(lsn_session *s) {
  pthread_mutex_lock(&s->mu);
  lsn_out *q = s->head;
  if (q && !(s->head = q->next)) s->tail = NULL;
  pthread_mutex_unlock(&s->mu);
  if (!q) return NULL;
  char *t = q->text;
  free(q);
  return t;
}

static void send_kind(lsn_session *s, const char *kind, const char *req, const char *type, cJSON *payload) {
  char id[128];
  lsn__msg_id(s, id, sizeof id);
  crawl_msg m = {.kind = kind, .type = type, .id = id, .correlation_id = req,
                  .session_id = s->initialized ? s->id : NULL};
  lsn__send(s, crawl_envelope(&m, payload));
}

void lsn__reply(lsn_session *s, const char *req, const char *type, cJSON *payload) {
  send_kind(s, "response", req, type, payload);
}

void lsn__event(lsn_session *s, const char *type, cJSON *payload) {
  send_kind(s, "event", NULL, type, payload);
}

void lsn__error(lsn_session *s, const char *req, const char *code, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  cJSON *p = crawl__jx(cJSON_CreateObject());
  crawl__jstr(p, "code", code);
  crawl__jstr(p, "message", msg);
  send_kind(s, "error", req, "error", p);
}

/* client.c -- CDP request/response correlation and event dispatch.
 *
 * Owns the id space of one connection, the list of pending replies and the
 * event subscriptions. Transports (pipe, websocket) only move whole messages.
 * This is the bottom of cdp/: launch.c and connect.c build a transport and
 * sit on top; nothing here calls into them.
 */
#include "cdp_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const cdp__messages[] = {
#define CDP__MSG(name, msg) msg,
  CDP_ERRNO_MAP(CDP__MSG)
#undef CDP__MSG
};

const char *cdp_strerror(cdp_code code) {
  if ((int)code < 0 || code >= CDP__ECOUNT) return "unknown error";
  return cdp__messages[code];
}

long long cdp_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void cdp__set_err(cdp_client *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->errmsg, sizeof c->errmsg, fmt, ap);
  va_end(ap);
}

cdp_client *cdp__client_new(const cdp__transport *tp, void *impl) {
  cdp_client *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->tp = tp;
  c->impl = impl;
  c->alive = 1;
  c->next_id = 1;
  c->next_sub = 1;
  return c;
}

/* ---- the targets this connection opened (closed on a reconnect: connect.c) ---- */
static void own_add(cdp_client *c, const char *target_id) {
  char *id = strdup(target_id);
  if (!id) return;
  if (c->nown == CDP__OWN_MAX) { /* the oldest is most likely long closed */
    free(c->own[0]);
    memmove(c->own, c->own + 1, (CDP__OWN_MAX - 1) * sizeof *c->own);
    c->nown--;
  }
  c->own[c->nown++] = id;
}

/* A Target.closeTarget being sent: that target is no longer ours to close. */
static void own_forget(cdp_client *c, const char *method, const cJSON *params) {
  if (strcmp(method, "Target.closeTarget") != 0) return;
  const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "targetId"));
  for (int i = 0; id && i < c->nown; i++)
    if (!strcmp(c->own[i], id)) {
      free(c->own[i]);
      memmove(c->own + i, c->own + i + 1, (size_t)(c->nown - i - 1) * sizeof *c->own);
      c->nown--;
      return;
    }
}

int cdp__client_owns(const cdp_client *c, const char *target_id) {
  for (int i = 0; c && target_id && i < c->nown; i++)
    if (!strcmp(c->own[i], target_id)) return 1;
  return 0;
}

const char *cdp_client_errmsg(const cdp_client *c) { return c ? c->errmsg : ""; }
int cdp_client_remote_code(const cdp_client *c) { return c ? c->remote_code : 0; }
/* A launched browser belongs to its transport (launch.c); ask it. */
pid_t cdp_client_pid(const cdp_client *c) {
  return c && c->impl && c->tp->pid ? c->tp->pid(c->impl) : 0;
}
const char *cdp_client_profile(const cdp_client *c) {
  return c && c->impl && c->tp->profile ? c->tp->profile(c->impl) : NULL;
}
int cdp_client_alive(const cdp_client *c) { return c && c->alive; }
void cdp_client_set_cancel(cdp_client *c, volatile sig_atomic_t *flag) { c->cancel = flag; }

static void reply_free(cdp__reply *r) {
  cJSON_Delete(r->result);
  free(r->raw_json);
  free(r->err_msg);
  free(r->method);
  free(r->session);
  free(r);
}

static cdp__reply *reply_find(cdp_client *c, int id, cdp__reply ***link) {
  cdp__reply **pp = &c->pending;
  for (; *pp; pp = &(*pp)->next)
    if ((*pp)->id == id) {
      if (link) *link = pp;
      return *pp;
    }
  return NULL;
}

static void dispatch_event(cdp_client *c, const char *session, const char *method,
                           const cJSON *params) {
  c->dispatching++;
  for (cdp__sub *s = c->subs; s; s = s->next) {
    if (s->dead) continue;
    if (s->method && strcmp(s->method, method) != 0) continue;
    s->cb(s->ud, session, method, params);
  }
  c->dispatching--;
  if (c->dispatching == 0) { /* sweep subscriptions removed during dispatch */
    cdp__sub **pp = &c->subs;
    while (*pp) {
      if ((*pp)->dead) {
        cdp__sub *d = *pp;
        *pp = d->next;
        free(d->method);
        free(d);
      } else {
        pp = &(*pp)->next;
      }
    }
  }
}

/* The head of a reply as Chromium writes it: {"id":N,"result":... or
 * {"id":N,"error":... . Returns 1 and sets *id and *is_result when msg starts
 * with {"id":N, (N at most 9 digits); 0 otherwise (then parse it fully). */
static int peek_reply(const char *m, size_t len, int *id, int *is_result) {
  static const char head[] = "{\"id\":", result[] = "\"result\":";
  size_t k = sizeof head - 1;
  if (len < k || memcmp(m, head, k) != 0) return 0;
  int v = 0, digits = 0;
  for (; k < len && m[k] >= '0' && m[k] <= '9' && digits < 9; k++, digits++) v = v * 10 + (m[k] - '0');
  if (!digits || k >= len || m[k] != ',') return 0;
  k++;
  *id = v;
  *is_result = len - k >= sizeof result - 1 && memcmp(m + k, result, sizeof result - 1) == 0;
  return 1;
}

/* Keep the text of a raw reply (takes msg). */
static void reply_take_raw(cdp__reply *r, char *msg, size_t len) {
  free(r->raw_json);
  r->raw_json = msg;
  r->raw_len = len;
  r->done = 1;
}

static int hexval(const char *p, unsigned *v) {
  unsigned x = 0;
  for (int i = 0; i < 4; i++) {
    char ch = p[i];
    x <<= 4;
    if (ch >= '0' && ch <= '9') x |= (unsigned)(ch - '0');
    else if (ch >= 'a' && ch <= 'f') x |= (unsigned)(ch - 'a' + 10);
    else if (ch >= 'A' && ch <= 'F') x |= (unsigned)(ch - 'A' + 10);
    else return 0;
  }
  *v = x;
  return 1;
}

/* Pages can hold lone UTF-16 surrogates, which Chromium sends as "\ud800"
 * escapes that cJSON rejects. Rewrite each unpaired one to "\ufffd" in place
 * (same length). Returns the number rewritten. */
int cdp_json_fix_surrogates(char *m, size_t len) {
  int fixed = 0;
  for (size_t i = 0; i + 1 < len; i++) {
    if (m[i] != '\\') continue;
    if (m[i + 1] != 'u') { i++; continue; }
    unsigned v, w;
    if (i + 6 > len || !hexval(m + i + 2, &v)) { i++; continue; }
    int paired = 0;
    if (v >= 0xD800 && v <= 0xDBFF && i + 12 <= len && m[i + 6] == '\\' && m[i + 7] == 'u' &&
        hexval(m + i + 8, &w) && w >= 0xDC00 && w <= 0xDFFF)
      paired = 1;
    if (paired) { i += 11; continue; }
    if (v >= 0xD800 && v <= 0xDFFF) {
      memcpy(m + i + 2, "fffd", 4);
      fixed++;
    }
    i += 5;
  }
  return fixed;
}

static void on_message(void *ctx, char *msg, size_t len) {
  cdp_client *c = ctx;
  int rid, is_result;
  if (peek_reply(msg, len, &rid, &is_result) && is_result) {
    /* a successful reply to a raw call is never parsed here */
    cdp__reply **link = NULL;
    cdp__reply *r = reply_find(c, rid, &link);
    if (r && r->raw) {
      if (r->abandoned) {
        *link = r->next;
        reply_free(r);
        free(msg);
      } else if (r->done) {
        free(msg); /* a duplicate reply: keep the first */
      } else {
        reply_take_raw(r, msg, len);
      }
      return;
    }
  }
  cJSON *root = cJSON_ParseWithLength(msg, len);
  if (!root && cdp_json_fix_surrogates(msg, len)) root = cJSON_ParseWithLength(msg, len);
  if (!root) {
    /* malformed: fail its call now rather than let the waiter time out */
    if (peek_reply(msg, len, &rid, &is_result)) {
      cdp__reply *r = reply_find(c, rid, NULL);
      if (r && !r->done) {
        r->err_code = -32700;
        r->err_msg = strdup("malformed reply from the browser");
        r->done = 1;
      }
    }
    free(msg);
    return;
  }
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "id");
  if (cJSON_IsNumber(id)) {
    cdp__reply **link = NULL;
    cdp__reply *r = reply_find(c, id->valueint, &link);
    if (r && r->abandoned) {
      *link = r->next;
      reply_free(r);
    } else if (r && !r->done) {
      const cJSON *err = cJSON_GetObjectItemCaseSensitive(root, "error");
      if (err) {
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(err, "code");
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(err, "message");
        r->err_code = cJSON_IsNumber(code) ? code->valueint : -1;
        r->err_msg = strdup(cJSON_IsString(m) ? m->valuestring : "unknown error");
      } else if (r->raw) {
        reply_take_raw(r, msg, len); /* a reply that did not start the usual way */
        msg = NULL;
      } else {
        r->result = cJSON_DetachItemFromObjectCaseSensitive(root, "result");
        if (!r->result) r->result = cJSON_CreateObject();
      }
      r->done = 1;
    }
    cJSON_Delete(root);
    free(msg);
    return;
  }
  const cJSON *method = cJSON_GetObjectItemCaseSensitive(root, "method");
  if (cJSON_IsString(method)) {
    const cJSON *sess = cJSON_GetObjectItemCaseSensitive(root, "sessionId");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "params");
    dispatch_event(c, cJSON_IsString(sess) ? sess->valuestring : NULL,
                   method->valuestring, params);
  }
  cJSON_Delete(root);
  free(msg);
}

cdp_code cdp_pump(cdp_client *c, int timeout_ms) {
  if (!c->alive) return CDP_CLOSED;
  if (c->cancel && *c->cancel) {
    cdp__set_err(c, "interrupted");
    return CDP_CANCELLED;
  }
  if (c->tp->poll(c->impl, timeout_ms, on_message, c) < 0) {
    c->alive = 0;
    cdp__set_err(c, "browser connection closed: %s", c->tp->errmsg(c->impl));
    return CDP_CLOSED;
  }
  return CDP_OK;
}

static int send_call(cdp_client *c, const char *session, const char *method, cJSON *params,
                     int raw) {
  if (!c || !method) {
    cJSON_Delete(params);
    return -CDP_ARG;
  }
  if (!c->alive) {
    cJSON_Delete(params);
    cdp__set_err(c, "%s: browser connection is closed", method);
    return -CDP_CLOSED;
  }
  cJSON *msg = cJSON_CreateObject();
  cdp__reply *r = calloc(1, sizeof *r);
  if (!msg || !r) {
    cJSON_Delete(msg);
    cJSON_Delete(params);
    free(r);
    return -CDP_NOMEM;
  }
  own_forget(c, method, params);
  int id = c->next_id++;
  cJSON_AddNumberToObject(msg, "id", id);
  cJSON_AddStringToObject(msg, "method", method);
  cJSON_AddItemToObject(msg, "params", params ? params : cJSON_CreateObject());
  if (session) cJSON_AddStringToObject(msg, "sessionId", session);
  char *text = cJSON_PrintUnformatted(msg);
  cJSON_Delete(msg);
  if (!text) {
    free(r);
    return -CDP_NOMEM;
  }
  int rc = c->tp->send(c->impl, text, strlen(text));
  free(text);
  if (rc < 0) {
    free(r);
    c->alive = 0;
    cdp__set_err(c, "%s: browser connection closed: %s", method, c->tp->errmsg(c->impl));
    return -CDP_CLOSED;
  }
  r->id = id;
  r->raw = raw;
  r->method = strdup(method);
  r->session = session ? strdup(session) : NULL;
  r->next = c->pending;
  c->pending = r;
  return id;
}

int cdp_send(cdp_client *c, const char *session, const char *method, cJSON *params) {
  return send_call(c, session, method, params, 0);
}

int cdp_send_raw(cdp_client *c, const char *session, const char *method, cJSON *params) {
  return send_call(c, session, method, params, 1);
}

void cdp_fail_session(cdp_client *c, const char *session, const char *why) {
  for (cdp__reply *r = c->pending; r; r = r->next) {
    if (r->done || !r->session || !session || strcmp(r->session, session)) continue;
    r->done = 1;
    r->err_code = -32000;
    free(r->err_msg);
    r->err_msg = strdup(why ? why : "target gone");
  }
}

void cdp_abandon(cdp_client *c, int id) {
  cdp__reply **link = NULL;
  cdp__reply *r = reply_find(c, id, &link);
  if (!r) return;
  if (r->done) {
    *link = r->next;
    reply_free(r);
  } else {
    r->abandoned = 1;
  }
}

/* Wait until the reply to id arrives; on CDP_OK *out is that reply, unlinked
 * from the pending list (the caller frees it with reply_free). */
static cdp_code wait_reply(cdp_client *c, int id, int timeout_ms, cdp__reply **out) {
  *out = NULL;
  /* a failed cdp_send's -code passes through; any other id <= 0 (INT_MIN
   * too, whose negation overflows) is an argument error */
  if (id <= 0) return id < 0 && id > -CDP__ECOUNT ? (cdp_code)-id : CDP_ARG;
  long long deadline = cdp_now_ms() + (timeout_ms > 0 ? timeout_ms : 30000);
  for (;;) {
    cdp__reply **link = NULL;
    cdp__reply *r = reply_find(c, id, &link);
    if (!r) {
      cdp__set_err(c, "no pending call with id %d", id);
      return CDP_ARG;
    }
    if (r->done) {
      *link = r->next;
      if (r->err_msg) {
        cdp__set_err(c, "%s: %d %s", r->method, r->err_code, r->err_msg);
        c->remote_code = r->err_code;
        reply_free(r);
        return CDP_REMOTE;
      }
      *out = r;
      return CDP_OK;
    }
    long long left = deadline - cdp_now_ms();
    if (left <= 0) {
      cdp__set_err(c, "%s: no reply within %d ms", r->method, timeout_ms);
      r->abandoned = 1;
      return CDP_TIMEOUT;
    }
    char method[65];
    snprintf(method, sizeof method, "%s", r->method);
    cdp_code rc = cdp_pump(c, left > 100 ? 100 : (int)left);
    if (rc != CDP_OK) {
      /* The pump ran event callbacks: r may be gone (a nested wait for the
       * same id took it, cdp_abandon freed it). Look it up again. */
      r = reply_find(c, id, NULL);
      if (rc == CDP_CLOSED) {
        char tmp[sizeof c->errmsg];
        memcpy(tmp, c->errmsg, sizeof tmp);
        cdp__set_err(c, "%s: %.400s", method, tmp);
      }
      if (r) r->abandoned = 1;
      return rc;
    }
  }
}

cdp_code cdp_wait(cdp_client *c, int id, cJSON **result, int timeout_ms) {
  if (result) *result = NULL;
  cdp__reply *r;
  cdp_code rc = wait_reply(c, id, timeout_ms, &r);
  if (rc) return rc;
  if (r->raw_json) { /* sent raw, wanted parsed */
    cJSON *root = cJSON_ParseWithLength(r->raw_json, r->raw_len);
    if (!root) {
      cdp__set_err(c, "%s: the reply is not JSON", r->method);
      reply_free(r);
      return CDP_PROTO;
    }
    r->result = cJSON_DetachItemFromObjectCaseSensitive(root, "result");
    cJSON_Delete(root);
    if (!r->result) r->result = cJSON_CreateObject();
  }
  if (result) {
    *result = r->result;
    r->result = NULL;
  }
  reply_free(r);
  return CDP_OK;
}

cdp_code cdp_wait_raw(cdp_client *c, int id, char **json, size_t *len, int timeout_ms) {
  *json = NULL;
  if (len) *len = 0;
  cdp__reply *r;
  cdp_code rc = wait_reply(c, id, timeout_ms, &r);
  if (rc) return rc;
  if (!r->raw_json) { /* sent with cdp_send: print the reply back */
    cJSON *msg = cJSON_CreateObject();
    if (msg) {
      cJSON_AddNumberToObject(msg, "id", id);
      cJSON_AddItemToObject(msg, "result", r->result);
      r->result = NULL;
      r->raw_json = cJSON_PrintUnformatted(msg);
      r->raw_len = r->raw_json ? strlen(r->raw_json) : 0;
      cJSON_Delete(msg);
    }
    if (!r->raw_json) {
      cdp__set_err(c, "%s: out of memory", r->method);
      reply_free(r);
      return CDP_NOMEM;
    }
  }
  *json = r->raw_json;
  if (len) *len = r->raw_len;
  r->raw_json = NULL;
  reply_free(r);
  return CDP_OK;
}

cdp_code cdp_call(cdp_client *c, const char *session, const char *method,
                  cJSON *params, cJSON **result, int timeout_ms) {
  if (result) *result = NULL;
  int id = cdp_send(c, session, method, params);
  if (id < 0) return (cdp_code)-id;
  return cdp_wait(c, id, result, timeout_ms);
}

int cdp_on(cdp_client *c, const char *method, cdp_event_cb cb, void *ud) {
  cdp__sub *s = calloc(1, sizeof *s);
  if (!s) return 0;
  if (method && !(s->method = strdup(method))) {
    free(s);
    return 0;
  }
  s->handle = c->next_sub++;
  s->cb = cb;
  s->ud = ud;
  /* append, so subscribers run in registration order */
  cdp__sub **pp = &c->subs;
  while (*pp) pp = &(*pp)->next;
  *pp = s;
  return s->handle;
}

void cdp_off(cdp_client *c, int handle) {
  for (cdp__sub *s = c->subs; s; s = s->next)
    if (s->handle == handle) s->dead = 1;
  if (!c->dispatching) dispatch_event(c, NULL, "", NULL); /* sweeps only: no live sub matches "" */
}

cdp_code cdp_open_page(cdp_client *c, const char *url, char **session,
                       char **target_id, int timeout_ms) {
  return cdp_open_page_in(c, NULL, url, session, target_id, timeout_ms);
}

cdp_code cdp_open_page_in(cdp_client *c, const char *context_id, const char *url, char **session,
                          char **target_id, int timeout_ms) {
  *session = NULL;
  if (target_id) *target_id = NULL;
  cJSON *p = cJSON_CreateObject(), *res = NULL;
  cJSON_AddStringToObject(p, "url", url ? url : "about:blank");
  if (context_id) cJSON_AddStringToObject(p, "browserContextId", context_id);
  cdp_code rc = cdp_call(c, NULL, "Target.createTarget", p, &res, timeout_ms);
  if (rc) return rc;
  const cJSON *tid = cJSON_GetObjectItemCaseSensitive(res, "targetId");
  if (!cJSON_IsString(tid)) {
    cJSON_Delete(res);
    cdp__set_err(c, "Target.createTarget: no targetId in reply");
    return CDP_PROTO;
  }
  char *target = strdup(tid->valuestring);
  cJSON_Delete(res);
  if (target) own_add(c, target);
  p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "targetId", target);
  cJSON_AddBoolToObject(p, "flatten", 1);
  rc = cdp_call(c, NULL, "Target.attachToTarget", p, &res, timeout_ms);
  if (rc) {
    free(target);
    return rc;
  }
  const cJSON *sid = cJSON_GetObjectItemCaseSensitive(res, "sessionId");
  if (!cJSON_IsString(sid)) {
    cJSON_Delete(res);
    free(target);
    cdp__set_err(c, "Target.attachToTarget: no sessionId in reply");
    return CDP_PROTO;
  }
  *session = strdup(sid->valuestring);
  cJSON_Delete(res);
  if (target_id) *target_id = target;
  else free(target);
  return CDP_OK;
}

void cdp_client_free(cdp_client *c) {
  if (!c) return;
  if (c->tp && c->impl) c->tp->close(c->impl); /* also reaps a launched browser */
  c->impl = NULL;
  while (c->pending) {
    cdp__reply *r = c->pending;
    c->pending = r->next;
    reply_free(r);
  }
  while (c->subs) {
    cdp__sub *s = c->subs;
    c->subs = s->next;
    free(s->method);
    free(s);
  }
  for (int i = 0; i < c->nown; i++) free(c->own[i]);
  free(c);
}

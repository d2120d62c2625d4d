/* page_input.c -- input to the tab: a click at a point, the pointer moved
 * to a point (hover), a named key, text inserted into the focused field,
 * and the point of a node
 * (crawl__page_node_point). Each refuses on a failed guard and blocks the
 * WebSockets an action would open.
 *
 * Not here: which element to act on and whether it may be (act.c, policy/).
 */
#include "page_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Quad centre of a node (run_int.h). */
int crawl__page_node_point(crawl_page *p, int backend, double *x, double *y) {
  cdp_client *c = p->c;
  const char *sess = p->session;
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddNumberToObject(a, "backendNodeId", backend);
  if (cdp_call(c, sess, "DOM.getContentQuads", a, &res, 10000) != CDP_OK) return -1;
  const cJSON *q = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(res, "quads"), 0);
  if (cJSON_GetArraySize(q) < 8) {
    cJSON_Delete(res);
    return -1;
  }
  double sx = 0, sy = 0;
  for (int i = 0; i < 4; i++) {
    sx += cJSON_GetArrayItem(q, i * 2)->valuedouble;
    sy += cJSON_GetArrayItem(q, i * 2 + 1)->valuedouble;
  }
  cJSON_Delete(res);
  *x = sx / 4;
  *y = sy / 4;
  return 0;
}

crawl_code crawl_page_click(crawl_page *p, double x, double y) {
  static const char *const types[] = {"mouseMoved", "mousePressed", "mouseReleased"};
  if (crawl__page_guard_check(p)) return CRAWL_GUARD;
  crawl__page_ws_block_set(p, 1);
  int ids[3];
  for (int i = 0; i < 3; i++) {
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "type", types[i]);
    cJSON_AddNumberToObject(a, "x", x);
    cJSON_AddNumberToObject(a, "y", y);
    if (i) {
      cJSON_AddStringToObject(a, "button", "left");
      cJSON_AddNumberToObject(a, "clickCount", 1);
    }
    ids[i] = cdp_send(p->c, p->session, "Input.dispatchMouseEvent", a);
  }
  crawl_code rc = CRAWL_OK;
  for (int i = 0; i < 3; i++) {
    cdp_code r = cdp_wait(p->c, ids[i], NULL, p->o.call_timeout_ms);
    if (r && !rc) {
      crawl__page_perr(p, "Input.dispatchMouseEvent");
      rc = crawl__page_from_cdp(p, r);
    }
  }
  p->last_activity = cdp_now_ms();
  return rc;
}

/* The pointer moved to (x, y), nothing pressed: what :hover and mouseover
 * show (a row's tools) is there for the next look; then two animation
 * frames, so styles that depend on :hover are applied. */
crawl_code crawl__page_hover(crawl_page *p, double x, double y) {
  if (crawl__page_guard_check(p)) return CRAWL_GUARD;
  crawl__page_ws_block_set(p, 1);
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "type", "mouseMoved");
  cJSON_AddNumberToObject(a, "x", x);
  cJSON_AddNumberToObject(a, "y", y);
  cdp_code r = cdp_call(p->c, p->session, "Input.dispatchMouseEvent", a, NULL, p->o.call_timeout_ms);
  if (r) {
    crawl__page_perr(p, "Input.dispatchMouseEvent");
    return crawl__page_from_cdp(p, r);
  }
  a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "expression", CRAWL__JS(two_animation_frames));
  cJSON_AddBoolToObject(a, "awaitPromise", 1);
  r = cdp_call(p->c, p->session, "Runtime.evaluate", a, NULL, 2000);
  p->last_activity = cdp_now_ms();
  return r == CDP_CANCELLED ? CRAWL_CANCELLED : CRAWL_OK;
}

crawl_code crawl_page_key(crawl_page *p, const char *key) {
  if (crawl__page_guard_check(p)) return CRAWL_GUARD;
  crawl__page_ws_block_set(p, 1);
  static const struct { const char *key, *code; int vk; } keys[] = {
    {"Escape", "Escape", 27}, {"Enter", "Enter", 13}, {"Tab", "Tab", 9},
    {"ArrowDown", "ArrowDown", 40}, {"ArrowUp", "ArrowUp", 38},
  };
  int k = -1;
  for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
    if (!strcmp(keys[i].key, key)) k = (int)i;
  if (k < 0) return CRAWL_ARG;
  static const char *const types[] = {"rawKeyDown", "keyUp"};
  int ids[2];
  for (int i = 0; i < 2; i++) {
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "type", types[i]);
    cJSON_AddStringToObject(a, "key", keys[k].key);
    cJSON_AddStringToObject(a, "code", keys[k].code);
    cJSON_AddNumberToObject(a, "windowsVirtualKeyCode", keys[k].vk);
    ids[i] = cdp_send(p->c, p->session, "Input.dispatchKeyEvent", a);
  }
  crawl_code rc = CRAWL_OK;
  for (int i = 0; i < 2; i++) {
    cdp_code r = cdp_wait(p->c, ids[i], NULL, p->o.call_timeout_ms);
    if (r && !rc) {
      crawl__page_perr(p, "Input.dispatchKeyEvent");
      rc = crawl__page_from_cdp(p, r);
    }
  }
  p->last_activity = cdp_now_ms();
  return rc;
}

crawl_code crawl_page_insert_text(crawl_page *p, const char *text) {
  if (crawl__page_guard_check(p)) return CRAWL_GUARD;
  crawl__page_ws_block_set(p, 1);
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "text", text);
  crawl_code rc = crawl__page_call(p, "Input.insertText", a, NULL);
  p->last_activity = cdp_now_ms();
  return rc;
}

/* ---- typing a value, key by key (act_text.c) ---- */
/* Sends the key events of params (keyDown then keyUp each) pipelined and
 * waits for them all. */
static crawl_code send_keys(crawl_page *p, cJSON **events, int n) {
  int ids[2 * CRAWL__TYPE_MAX + 2];
  for (int i = 0; i < n; i++) ids[i] = cdp_send(p->c, p->session, "Input.dispatchKeyEvent", events[i]);
  crawl_code rc = CRAWL_OK;
  for (int i = 0; i < n; i++) {
    cdp_code r = cdp_wait(p->c, ids[i], NULL, p->o.call_timeout_ms);
    if (r && !rc) {
      crawl__page_perr(p, "Input.dispatchKeyEvent");
      rc = crawl__page_from_cdp(p, r);
    }
  }
  p->last_activity = cdp_now_ms();
  return rc;
}

static cJSON *key_event(const char *type, const char *key, const char *code, const char *text, int vk) {
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "type", type);
  cJSON_AddStringToObject(a, "key", key);
  if (code) cJSON_AddStringToObject(a, "code", code);
  if (text) cJSON_AddStringToObject(a, "text", text);
  if (vk) cJSON_AddNumberToObject(a, "windowsVirtualKeyCode", vk);
  return a;
}

crawl_code crawl__page_type_keys(crawl_page *p, const char *text) {
  if (crawl__page_guard_check(p)) return CRAWL_GUARD;
  crawl__page_ws_block_set(p, 1);
  cJSON *ev[2 * CRAWL__TYPE_MAX];
  int n = 0;
  for (const unsigned char *s = (const unsigned char *)text; *s && n + 2 <= 2 * CRAWL__TYPE_MAX;) {
    size_t len = *s < 0x80 ? 1 : *s < 0xE0 ? 2 : *s < 0xF0 ? 3 : 4; /* one UTF-8 character */
    char ch[5] = {0};
    for (size_t k = 0; k < len && s[k]; k++) ch[k] = (char)s[k];
    s += strlen(ch);
    ev[n++] = key_event("keyDown", ch, NULL, ch, 0);
    ev[n++] = key_event("keyUp", ch, NULL, NULL, 0);
  }
  return send_keys(p, ev, n);
}

crawl_code crawl__page_enter(crawl_page *p) {
  if (crawl__page_guard_check(p)) return CRAWL_GUARD;
  crawl__page_ws_block_set(p, 1);
  cJSON *ev[2] = {key_event("keyDown", "Enter", "Enter", "\r", 13), key_event("keyUp", "Enter", "Enter", NULL, 13)};
  return send_keys(p, ev, 2);
}

int crawl__page_blocker_known(const crawl_page *p, int backend) {
  int n = p->nblockers < 8 ? p->nblockers : 8;
  for (int i = 0; backend && i < n; i++)
    if (p->blockers[i] == backend) return 1;
  return 0;
}

void crawl__page_blocker_note(crawl_page *p, int backend) {
  if (!backend || crawl__page_blocker_known(p, backend)) return;
  p->blockers[p->nblockers++ % 8] = backend;
}

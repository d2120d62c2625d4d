/* page_capture.c -- capture a PageGraph of the tab (crawl_page_capture):
 * DOMSnapshot.captureSnapshot, Page.getFrameTree, page facts and the
 * focused element, and the accessibility tree per same-origin frame, sent
 * pipelined: two round trips whatever the page size. The tab remembers the
 * fields any capture found sensitive and hands them to every later one (a
 * password a "Show" toggle made type=text stays a password), and adds the
 * values each graph redacted to the run's secret list.
 *
 * After an action that changed only form-control values the snapshot is
 * the last one, patched (page_patch.c: UIAP_CAPTURE_PATCH=1).
 *
 * Not here: bridged out-of-process frames (page_bridge.c), building the
 * graph from the replies (graph/).
 */
#include "page_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- capture ------------------------------------------------------------------- */
/* The scripts a capture evaluates in the page (js/):
 * - selection.js: usel(), the text selection (web-profile 5.11) -> {t: text,
 *   a: anchor element, f: focus element} or null:
 *   - a focused text field (the deepest focused element, through open shadow
 *     roots and same-origin frames) with a selection inside it: that field
 *     for both ends, and the selected part of its value -- none for a
 *     sensitive field (password, data-uiap-sensitive, card and one-time-code
 *     autocomplete: the graph's PG_SENSITIVE_SELECTOR, at __SENS__). A focused field with a caret only: no selection.
 *   - otherwise the DOM range of the top document, or of the focused
 *     same-origin frame when the top has none: the elements around its ends
 *     and its text (Range.toString: the light tree only, never a closed
 *     shadow root's inside); no text when an end lies in a sensitive element
 *     or the range covers one, no selection when an end lies in a shadow tree.
 *   A cross-origin frame cannot be read (contentDocument is null). pg_build
 *   checks the ends again against what it may publish.
 * - selection_anchor.js, selection_focus.js: the selection's anchor and focus
 *   elements (by reference: their backend ids come from DOM.describeNode).
 * - page_facts.js: viewport, scroll, title, URL, readyState; selection: the
 *   selection's text; frames: URL and readyState of each same-origin frame (a
 *   cross-origin one throws and is skipped); router: the route the app's
 *   router names (Next.js window.next.router.pathname, Vue Router's current
 *   route on the [data-v-app] container, Nuxt 2's $nuxt.$route: its name,
 *   else its matched path; at most 200 characters; "" when none answers).
 * - shadow_hosts.js: elements inside a shadow tree that host an open shadow
 *   root themselves (top document and same-origin frames): the flat snapshot
 *   cannot tell their shadow children from plain children (pg_input.open_hosts).
 * - active_element.js: the deepest focused element.
 * - bridge_meta.js: the content of a frame document's <meta name="uiap-bridge">
 *   (html > head > meta, as pg_snapshot_bridge_meta reads it from a
 *   snapshot), or null. Only this string is read from a frame before it is
 *   known to be bridged. */

char *crawl__js_sensitive(const char *js) {
  /* a single-quoted literal: the selector has double quotes, never ' or \
   * (tests/unit/graph_redaction.c checks) */
  crawl__buf b = {0};
  const char *hit;
  while ((hit = strstr(js, "__SENS__"))) {
    crawl__buf_put(&b, js, (size_t)(hit - js));
    crawl__buf_puts(&b, "'" PG_SENSITIVE_SELECTOR "'");
    js = hit + 8;
  }
  crawl__buf_puts(&b, js);
  return crawl__buf_take(&b);
}

/* Template (one %s) with usel() in place (caller frees). */
static char *with_selection(const char *tmpl) {
  char *sel = crawl__js_sensitive(CRAWL__JS(selection));
  char *js = crawl__xprintf(tmpl, sel);
  free(sel);
  return js;
}

/* ---- what the tab remembers ------------------------------------------------------ */
#define MAX_REMEMBERED 4096 /* fields, by node and by key */

void crawl__page_use_secrets(crawl_page *p, crawl__secrets *s) { p->secrets = s ? s : p->own_secrets; }

crawl__secrets *crawl_page_secrets(const crawl_page *p) { return p ? p->secrets : NULL; }

static void remember_key(crawl_page *p, const char *key) {
  if (!key || p->nsens_keys >= MAX_REMEMBERED) return;
  char *seen = crawl__xprintf("k%s", key);
  if (crawl__strmap_put(&p->sens_seen, seen, 0)) {
    if (p->nsens_keys == p->capsens_keys) {
      p->capsens_keys = p->capsens_keys ? p->capsens_keys * 2 : 16;
      p->sens_keys = crawl__xrealloc(p->sens_keys, p->capsens_keys * sizeof *p->sens_keys);
    }
    p->sens_keys[p->nsens_keys++] = crawl__xstrdup(key);
  }
  free(seen);
}

void crawl__page_forget_nodes(crawl_page *p) { p->nsens_nodes = 0; }

size_t crawl__page_sensitive_keys(const crawl_page *p, const char *const **keys) {
  *keys = p ? (const char *const *)p->sens_keys : NULL;
  return p ? p->nsens_keys : 0;
}

void crawl__page_remember_keys(crawl_page *p, const char *const *keys, size_t n) {
  for (size_t k = 0; k < n; k++) remember_key(p, keys[k]);
}

/* What capture g found: its sensitive fields into the tab's memory, its
 * redacted values into the run's secret list. */
static void remember(crawl_page *p, const pg_graph *g) {
  for (size_t k = 0; k < g->nsecrets; k++) crawl__secrets_add(p->secrets, g->secrets[k]);
  for (size_t k = 0; k < g->npii; k++) crawl__secrets_add_masked(p->secrets, g->pii_values[k], pg_pii_label(g->pii_kinds[k]));
  for (size_t k = 0; k < g->nsensitive_fields; k++) {
    const pg_sensitive_field *f = &g->sensitive_fields[k];
    int known = 0;
    for (size_t j = 0; j < p->nsens_nodes && !known; j++) known = p->sens_nodes[j] == f->backend_node_id;
    if (f->backend_node_id && p->nsens_nodes < MAX_REMEMBERED && !known) {
      if (p->nsens_nodes == p->capsens_nodes) {
        p->capsens_nodes = p->capsens_nodes ? p->capsens_nodes * 2 : 16;
        p->sens_nodes = crawl__xrealloc(p->sens_nodes, p->capsens_nodes * sizeof *p->sens_nodes);
      }
      p->sens_nodes[p->nsens_nodes++] = f->backend_node_id;
    }
    remember_key(p, f->key);
  }
}

void crawl__page_memory_release(crawl_page *p) {
  crawl__patch_free(p);
  for (size_t k = 0; k < p->nsens_keys; k++) free(p->sens_keys[k]);
  free(p->sens_keys);
  free(p->sens_nodes);
  crawl__strmap_release(&p->sens_seen);
}

int crawl__page_send_eval_in(crawl_page *p, const char *session, const char *expr, int by_value, const char *group) {
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "expression", expr);
  cJSON_AddBoolToObject(a, "returnByValue", by_value);
  cJSON_AddBoolToObject(a, "silent", 1);
  if (group) cJSON_AddStringToObject(a, "objectGroup", group);
  return cdp_send(p->c, session, "Runtime.evaluate", a);
}
static int send_eval(crawl_page *p, const char *expr, int by_value) {
  return crawl__page_send_eval_in(p, p->session, expr, by_value, NULL);
}

/* The objectId of a Runtime.evaluate reply's result, NULL when there is none. */
static const char *result_object(const cJSON *reply) {
  return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(reply, "result"), "objectId"));
}

/* Wait for an accessibility-tree reply sent with cdp_send_raw: the text is
 * shrunk to what the builder reads (pg_ax_compact, ~40% smaller tree), then
 * parsed. *result is the "result" object (caller deletes); a reply that is
 * not JSON gives an empty one (names and states then come from attributes). */
cdp_code crawl__page_wait_ax(crawl_page *p, int id, cJSON **result) {
  char *text = NULL;
  size_t len = 0;
  *result = NULL;
  cdp_code r = cdp_wait_raw(p->c, id, &text, &len, p->o.call_timeout_ms);
  if (r) return r;
  len = pg_ax_compact(text, len);
  cJSON *msg = cJSON_ParseWithLength(text, len);
  if (!msg && cdp_json_fix_surrogates(text, len)) msg = cJSON_ParseWithLength(text, len);
  free(text);
  *result = cJSON_DetachItemFromObjectCaseSensitive(msg, "result");
  cJSON_Delete(msg);
  if (!*result) {
    crawl_log(CRAWL_LOG_WARN, "capture", "malformed accessibility tree reply: not used");
    *result = cJSON_CreateObject();
  }
  return CDP_OK;
}

/* Collect same-origin child frames from Page.getFrameTree. */
typedef struct { const char *id, *parent, *url, *origin; } frame_row;
static void walk_frames(const cJSON *node, const char *parent, frame_row *rows, int *n) {
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(node, "frame");
  if (f && *n < MAX_FRAMES) {
    frame_row *r = &rows[(*n)++];
    r->id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "id"));
    r->parent = parent;
    r->url = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "url"));
    r->origin = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "securityOrigin"));
  }
  const cJSON *ch;
  cJSON_ArrayForEach(ch, cJSON_GetObjectItemCaseSensitive(node, "childFrames"))
    walk_frames(ch, f ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "id")) : parent, rows, n);
}

static crawl_code capture_checked(crawl_page *p, const pg_options *opts, pg_graph **out);

/* A page that navigates while it is captured (a redirect loop, a refresh)
 * fails some calls ("Inspected target navigated or closed") or mixes two
 * documents: capture again, at most three times in all. */
crawl_code crawl_page_capture(crawl_page *p, const pg_options *opts, pg_graph **out) {
  *out = NULL;
  crawl_code rc = crawl__page_guard_check(p);
  if (rc) return rc;
  pg_graph *best = NULL; /* of the captures a navigation overtook: the fullest */
  for (int attempt = 0; attempt < 3; attempt++) {
    int navs0 = p->navs;
    rc = capture_checked(p, opts, out);
    int moved = p->navs != navs0 ||
                (rc != CRAWL_OK && strstr(p->err, "navigated or closed") && !p->crashed);
    int fatal = p->crashed || rc == CRAWL_CANCELLED || !cdp_client_alive(p->c);
    if (!moved || fatal) {
      if (rc == CRAWL_OK || !best || fatal) {
        pg_graph_free(best);
        return rc;
      }
      pg_graph_free(*out);
      *out = best;
      return CRAWL_OK;
    }
    crawl_log(CRAWL_LOG_INFO, "capture", "the page navigated while it was captured; again");
    if (*out && (!best || (*out)->nelements > best->nelements)) {
      pg_graph_free(best);
      best = *out;
    } else {
      pg_graph_free(*out);
    }
    *out = NULL;
    /* the next document, once its DOM is there (bounded) */
    unsigned ndcl0 = p->ndcl;
    for (long long end = cdp_now_ms() + 1000; attempt < 2 && p->ndcl == ndcl0 && cdp_now_ms() < end;) crawl__page_pump(p, 50);
  }
  if (!best) {
    snprintf(p->err, sizeof p->err, "the page kept navigating while it was captured (a redirect loop?)");
    return CRAWL_NAVIGATE;
  }
  /* a page that keeps navigating: the fullest document it showed (a capture
   * between two documents holds next to nothing) */
  *out = best;
  return CRAWL_OK;
}

/* DOMSnapshot.captureSnapshot parameters: the computed styles pg_build reads
 * (by position: keep the order; the paddings place a frame's content inside
 * its iframe, position tells drawers, cursor where the page made a box
 * clickable: graph/build_inferred.c), DOM rects and paint order. */
cJSON *crawl__page_snapshot_params(void) {
  cJSON *a = cJSON_CreateObject();
  cJSON *styles = cJSON_AddArrayToObject(a, "computedStyles");
  static const char *const want[] = {"display", "visibility", "opacity", "pointer-events",
                                     "padding-left", "padding-top", "position", "cursor"};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) cJSON_AddItemToArray(styles, cJSON_CreateString(want[i]));
  cJSON_AddBoolToObject(a, "includeDOMRects", 1);
  cJSON_AddBoolToObject(a, "includePaintOrder", 1);
  return a;
}

/* One capture in flight (capture_once): the requests of each round, the
 * replies (owned: capture_release frees them), and what is built from them.
 * Round 1 needs nothing else: the snapshot, the frame tree, the page facts,
 * the focused element, the selection's ends, the shadow hosts, the owners of
 * out-of-process frames, and (pages of up to ax_full_limit nodes) the whole
 * AX tree. Round 2 needs round 1: the AX trees of same-origin frames, the
 * backend ids of the focused element and the selection's ends, and those of
 * the nested open shadow hosts. */
typedef struct capture {
  crawl_page *p;
  const pg_options *opts;
  int to;                                /* the call timeout */
  long long t0, t1, t2, t3;              /* round 1 sent, waited, AX, frames done */
  int id_snap, id_tree, id_facts, id_active, id_sel[2], id_hosts, owner_ids[MAX_FRAMES];
  pg_snapshot *snap;
  cJSON *tree, *facts, *active, *hosts, *sel[2], *ax_main;
  size_t nodes;                          /* in the snapshot */
  int full_ax;                           /* the whole AX tree, else the candidates in view */
  pg_frame_info frames[MAX_FRAMES];      /* out-of-process frames, then the others */
  int nframes;
  frame_row rows[MAX_FRAMES];            /* Page.getFrameTree, the top frame first */
  int nrows;
  const char *top_origin;
  int ax_ids[MAX_FRAMES], nax_ids, id_desc, id_sel_desc[2];
  const cJSON *ax[MAX_FRAMES + 1];       /* ax_main, ax_owned, then the partial tree */
  cJSON *ax_owned[MAX_FRAMES];
  size_t nax;
  int focused, sel_ends[2];              /* backend node ids, 0 none */
  int *open_hosts, nopen_hosts;
  pg_subframe subs[MAX_BRIDGED];
  pg_snapshot *sub_snaps[MAX_BRIDGED];
  cJSON *sub_ax[MAX_BRIDGED];
  int nsubs;
  cJSON *partial;                        /* AX of the candidates in view (huge pages) */
  int patched;                           /* snap is the tab's kept one, patched (page_patch.c) */
  int id_base, navs0;                    /* the witness' baseline sent; p->navs at the start */
} capture;

static void capture_send_first(capture *k) {
  crawl_page *p = k->p;
  cdp_client *c = p->c;
  /* raw: ~10 MB of integers on a 50k-element page, read straight into arrays */
  if (!k->patched) k->id_snap = cdp_send_raw(c, p->session, "DOMSnapshot.captureSnapshot", crawl__page_snapshot_params());
  k->id_tree = cdp_send(c, p->session, "Page.getFrameTree", NULL);
  char *facts = with_selection(CRAWL__JS(page_facts));
  k->id_facts = send_eval(p, facts, 1);
  free(facts);
  k->id_active = send_eval(p, CRAWL__JS(active_element), 0);
  char *sel_anchor = with_selection(CRAWL__JS(selection_anchor)), *sel_focus = with_selection(CRAWL__JS(selection_focus));
  k->id_sel[0] = crawl__page_send_eval_in(p, p->session, sel_anchor, 0, "uiap-sel");
  k->id_sel[1] = crawl__page_send_eval_in(p, p->session, sel_focus, 0, "uiap-sel");
  free(sel_anchor);
  free(sel_focus);
  cJSON *ha = cJSON_CreateObject();
  cJSON_AddStringToObject(ha, "expression", CRAWL__JS(shadow_hosts));
  cJSON_AddStringToObject(ha, "objectGroup", "uiap-hosts");
  cJSON_AddBoolToObject(ha, "silent", 1);
  k->id_hosts = cdp_send(c, p->session, "Runtime.evaluate", ha);
  for (int i = 0; i < p->noopifs; i++) {
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "frameId", p->oopifs[i].target_id);
    k->owner_ids[i] = cdp_send(c, p->session, "DOM.getFrameOwner", f);
  }
}

/* The snapshot reply, parsed. */
static crawl_code capture_snapshot(capture *k) {
  crawl_page *p = k->p;
  if (k->patched) return CRAWL_OK;
  char *snap_text = NULL;
  size_t snap_len = 0;
  cdp_code r = cdp_wait_raw(p->c, k->id_snap, &snap_text, &snap_len, k->to);
  if (r) {
    crawl__page_perr(p, "DOMSnapshot.captureSnapshot");
    return crawl__page_from_cdp(p, r);
  }
  long long tp = cdp_now_ms();
  pg_code pc = pg_snapshot_parse(snap_text, snap_len, &k->snap);
  free(snap_text); /* at once: the biggest block of the capture */
  crawl_log(CRAWL_LOG_DEBUG, "capture", "snapshot reply: %zu bytes after %lld ms, parsed in %lld ms", snap_len,
            tp - k->t0, cdp_now_ms() - tp);
  if (pc) {
    snprintf(p->err, sizeof p->err, "building the page graph: DOMSnapshot reply: %s", pg_strerror(pc));
    return CRAWL_CAPTURE;
  }
  return CRAWL_OK;
}

/* Wait for the reply to id into *res unless an earlier one failed (*rc):
 * then 1 ms, so that a dead page costs one timeout, not five. The first
 * failure (a CDP error reply too, unless remote_ok) goes to *rc. */
static void capture_wait(capture *k, int id, cJSON **res, const char *what, int remote_ok, crawl_code *rc) {
  cdp_code r = cdp_wait(k->p->c, id, res, *rc ? 1 : k->to);
  if (r && !*rc && !(remote_ok && r == CDP_REMOTE)) {
    crawl__page_perr(k->p, what);
    *rc = crawl__page_from_cdp(k->p, r);
  }
}

/* The owners of the out-of-process frames, into k->frames. */
static void capture_frame_owners(capture *k, crawl_code rc) {
  crawl_page *p = k->p;
  for (int i = 0; i < p->noopifs; i++) {
    cJSON *o = NULL;
    if (cdp_wait(p->c, k->owner_ids[i], &o, rc ? 1 : k->to) == CDP_OK) {
      const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "backendNodeId");
      k->frames[k->nframes++] = (pg_frame_info){.frame_id = p->oopifs[i].target_id, .oopif = 1,
                                                .owner_backend_node_id = b ? b->valueint : 0};
    }
    cJSON_Delete(o);
  }
}

static crawl_code capture_wait_first(capture *k) {
  crawl_page *p = k->p;
  crawl_code rc = capture_snapshot(k);
  capture_wait(k, k->id_tree, &k->tree, "Page.getFrameTree", 0, &rc);
  capture_wait(k, k->id_facts, &k->facts, "page facts", 0, &rc);
  capture_wait(k, k->id_active, &k->active, "focus", 1, &rc);
  capture_wait(k, k->id_hosts, &k->hosts, "shadow hosts", 1, &rc);
  for (int j = 0; j < 2; j++) capture_wait(k, k->id_sel[j], &k->sel[j], "selection", 1, &rc);
  k->t1 = cdp_now_ms();
  /* Accessibility data: the whole tree on ordinary pages; on huge ones
   * (getFullAXTree grows faster than the page) only for the candidates in
   * view, the rest computed from the snapshot. */
  k->nodes = pg_snapshot_node_count(k->snap);
  k->full_ax = k->nodes <= p->o.ax_full_limit;
  if (!rc && k->full_ax) {
    cdp_code r = crawl__page_wait_ax(p, cdp_send_raw(p->c, p->session, "Accessibility.getFullAXTree", NULL), &k->ax_main);
    if (r && r != CDP_REMOTE) { crawl__page_perr(p, "Accessibility.getFullAXTree"); rc = crawl__page_from_cdp(p, r); }
  }
  k->t2 = cdp_now_ms();
  capture_frame_owners(k, rc);
  return rc;
}

/* Whether the AX tree of frame row i may be read: only frames whose origin
 * equals the top's, or a bridge (named by the run, or declared by the frame
 * when the run allows it); about: frames inherit their parent's. */
static int frame_readable(const capture *k, int i) {
  const frame_row *row = &k->rows[i];
  const pg_options *opts = k->opts;
  const char *top = k->top_origin;
  int readable = top && row->origin && !strcmp(row->origin, top) && strcmp(top, "null");
  for (int b = 0; !readable && opts && opts->bridge_origins && opts->bridge_origins[b]; b++)
    readable = row->origin && !strcmp(row->origin, opts->bridge_origins[b]);
  if (!readable && opts && opts->allow_bridges && row->id)
    readable = pg_bridge_consents(pg_snapshot_bridge_meta(k->snap, row->id), top);
  if (row->url && !strncmp(row->url, "about:", 6)) readable = 1;
  return readable;
}

/* DOM.describeNode of a remote object, sent; its id (0: no object). */
static int send_describe(crawl_page *p, const char *object_id) {
  if (!object_id) return 0;
  cJSON *d = cJSON_CreateObject();
  cJSON_AddStringToObject(d, "objectId", object_id);
  return cdp_send(p->c, p->session, "DOM.describeNode", d);
}

static void capture_send_second(capture *k) {
  crawl_page *p = k->p;
  walk_frames(cJSON_GetObjectItemCaseSensitive(k->tree, "frameTree"), NULL, k->rows, &k->nrows);
  k->top_origin = k->nrows ? k->rows[0].origin : NULL;
  for (int i = 1; i < k->nrows; i++) {
    if (!frame_readable(k, i) || !k->full_ax) continue;
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "frameId", k->rows[i].id);
    k->ax_ids[k->nax_ids++] = cdp_send_raw(p->c, p->session, "Accessibility.getFullAXTree", f);
  }
  k->id_desc = send_describe(p, result_object(k->active));
  for (int j = 0; j < 2; j++) k->id_sel_desc[j] = send_describe(p, result_object(k->sel[j]));
}

/* The backend node id in the reply to DOM.describeNode id (0: not sent)
 * into *backend; 1 when there was one. */
static int wait_backend(capture *k, int id, int *backend) {
  cJSON *d = NULL;
  int found = 0;
  if (id && cdp_wait(k->p->c, id, &d, k->to) == CDP_OK) {
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, "node"), "backendNodeId");
    if ((found = cJSON_IsNumber(b))) *backend = b->valueint;
  }
  cJSON_Delete(d);
  return found;
}

/* Release, without waiting, what Runtime holds for us: an object, or
 * (object_id NULL) an object group. */
static void release_remote(crawl_page *p, const char *object_id, const char *group) {
  cJSON *a = cJSON_CreateObject();
  if (object_id) cJSON_AddStringToObject(a, "objectId", object_id);
  else cJSON_AddStringToObject(a, "objectGroup", group);
  int id = cdp_send(p->c, p->session, object_id ? "Runtime.releaseObject" : "Runtime.releaseObjectGroup", a);
  if (id > 0) cdp_abandon(p->c, id);
}

static void capture_wait_second(capture *k) {
  crawl_page *p = k->p;
  if (k->ax_main) k->ax[k->nax++] = k->ax_main;
  for (int i = 0; i < k->nax_ids; i++) {
    cJSON *x = NULL;
    crawl__page_wait_ax(p, k->ax_ids[i], &x);
    k->ax_owned[i] = x;
    if (x) k->ax[k->nax++] = x;
  }
  if (k->id_desc) {
    wait_backend(k, k->id_desc, &k->focused);
    release_remote(p, result_object(k->active), NULL);
  }
  for (int j = 0; j < 2; j++) wait_backend(k, k->id_sel_desc[j], &k->sel_ends[j]);
  if (result_object(k->sel[0]) || result_object(k->sel[1])) release_remote(p, NULL, "uiap-sel");
}

/* Nested open shadow hosts: the elements of the array shadow_hosts.js
 * returned, then their backend ids (k->open_hosts). */
static void capture_open_hosts(capture *k) {
  crawl_page *p = k->p;
  const cJSON *harr = cJSON_GetObjectItemCaseSensitive(k->hosts, "result");
  const char *hdesc = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(harr, "description"));
  const char *hobj = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(harr, "objectId"));
  if (hobj && hdesc && strcmp(hdesc, "Array(0)")) {
    cJSON *gp = cJSON_CreateObject(), *props = NULL;
    cJSON_AddStringToObject(gp, "objectId", hobj);
    cJSON_AddBoolToObject(gp, "ownProperties", 1);
    if (cdp_call(p->c, p->session, "Runtime.getProperties", gp, &props, k->to) == CDP_OK) {
      const cJSON *it, *list = cJSON_GetObjectItemCaseSensitive(props, "result");
      int n = cJSON_GetArraySize(list), nids = 0;
      int *ids = crawl__xcalloc((size_t)n + 1, sizeof *ids);
      k->open_hosts = crawl__xcalloc((size_t)n + 1, sizeof *k->open_hosts);
      cJSON_ArrayForEach(it, list) {
        const char *oid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(it, "value"), "objectId"));
        if (oid && nids < n) ids[nids++] = send_describe(p, oid);
      }
      for (int j = 0; j < nids; j++)
        if (wait_backend(k, ids[j], &k->open_hosts[k->nopen_hosts])) k->nopen_hosts++;
      free(ids);
    }
    cJSON_Delete(props);
  }
  if (hobj) release_remote(p, NULL, "uiap-hosts");
}

/* On a huge page: a first build without AX picks the candidates in view
 * (and the focused element); their AX (getPartialAXTree, pipelined) joins
 * in->ax as one more tree, k->partial. */
static void capture_partial_ax(capture *k, pg_input *in) {
  crawl_page *p = k->p;
  pg_graph *g1 = NULL;
  pg_options o1 = k->opts ? *k->opts : (pg_options){0};
  o1.max_nodes = 0;
  o1.revision = 1;
  long long tb = cdp_now_ms();
  if (pg_build(in, &o1, &g1) == PG_OK) {
    crawl_log(CRAWL_LOG_DEBUG, "capture", "first build (no AX, picks what is in view): %lld ms", cdp_now_ms() - tb);
    enum { MAX_PARTIAL = 600 };
    int ids[MAX_PARTIAL], nids = 0;
    for (size_t e = 0; e < g1->nelements && nids < MAX_PARTIAL; e++)
      if (g1->elements[e].in_viewport || pg_state_is(&g1->elements[e].state, PG_ST_FOCUSED)) {
        cJSON *a2 = cJSON_CreateObject();
        cJSON_AddNumberToObject(a2, "backendNodeId", g1->elements[e].backend_node_id);
        cJSON_AddBoolToObject(a2, "fetchRelatives", 0);
        ids[nids++] = cdp_send(p->c, p->session, "Accessibility.getPartialAXTree", a2);
      }
    pg_graph_free(g1);
    k->partial = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(k->partial, "nodes");
    for (int j = 0; j < nids; j++) {
      cJSON *x = NULL;
      if (cdp_wait(p->c, ids[j], &x, k->to) == CDP_OK) {
        cJSON *nodesx = cJSON_DetachItemFromObjectCaseSensitive(x, "nodes");
        cJSON *nd;
        while (nodesx && (nd = cJSON_DetachItemFromArray(nodesx, 0))) cJSON_AddItemToArray(arr, nd);
        cJSON_Delete(nodesx);
      }
      cJSON_Delete(x);
    }
    k->ax[k->nax++] = k->partial;
    in->nax = k->nax;
  }
  crawl_log(CRAWL_LOG_DEBUG, "capture", "%zu nodes: accessibility data for %d elements in view, %lld ms",
            k->nodes, cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(k->partial, "nodes")), cdp_now_ms() - k->t3);
}

/* The frames (out-of-process ones first), the bridged frames' captures,
 * and the graph built from everything. */
static crawl_code capture_build(capture *k, pg_graph **out) {
  for (int i = 1; i < k->nrows && k->nframes < MAX_FRAMES; i++)
    k->frames[k->nframes++] = (pg_frame_info){.frame_id = k->rows[i].id, .parent_frame_id = k->rows[i].parent,
                                              .url = k->rows[i].url, .origin = k->rows[i].origin};
  k->nsubs = crawl__page_capture_bridged(k->p, k->opts, k->top_origin, k->frames, k->nframes, k->subs, k->sub_snaps, k->sub_ax);
  pg_input in = {
    .snapshot = k->snap,
    .ax = k->ax,
    .nax = k->nax,
    .frames = k->frames,
    .nframes = (size_t)k->nframes,
    .page = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(k->facts, "result"), "value"),
    .focused_backend_node_id = k->focused,
    .selection_anchor_backend_node_id = k->sel_ends[0],
    .selection_focus_backend_node_id = k->sel_ends[1],
    .top_frame_id = k->nrows ? k->rows[0].id : NULL,
    .open_hosts = k->open_hosts,
    .nopen_hosts = (size_t)k->nopen_hosts,
    .subframes = k->subs,
    .nsubframes = (size_t)k->nsubs,
    .known_sensitive_nodes = k->p->sens_nodes,
    .nknown_sensitive_nodes = k->p->nsens_nodes,
    .known_sensitive_keys = (const char *const *)k->p->sens_keys,
    .nknown_sensitive_keys = k->p->nsens_keys,
  };
  k->t3 = cdp_now_ms();
  if (!k->full_ax) capture_partial_ax(k, &in);
  pg_code pr = pg_build(&in, k->opts, out);
  crawl_log(CRAWL_LOG_DEBUG, "capture", "snapshot+facts %lld ms, ax %lld ms, frames %lld ms, build %lld ms",
            k->t1 - k->t0, k->t2 - k->t1, k->t3 - k->t2, cdp_now_ms() - k->t3);
  if (pr) {
    snprintf(k->p->err, sizeof k->p->err, "building the page graph: %s", pg_strerror(pr));
    return CRAWL_CAPTURE;
  }
  if (k->p->o.ax_record) { /* the replies are ours, freed next */
    long long ta = cdp_now_ms();
    pg_ax_retain(*out, &in);
    crawl_log(CRAWL_LOG_DEBUG, "capture", "accessibility nodes of %zu elements kept, %lld ms", (*out)->nelements,
              cdp_now_ms() - ta);
  }
  remember(k->p, *out);
  return CRAWL_OK;
}

static void capture_release(capture *k) {
  cJSON_Delete(k->partial);
  for (int i = 0; i < k->nax_ids; i++) cJSON_Delete(k->ax_owned[i]);
  free(k->open_hosts);
  for (int j = 0; j < k->nsubs; j++) {
    pg_snapshot_free(k->sub_snaps[j]);
    cJSON_Delete(k->sub_ax[j]);
  }
  cJSON_Delete(k->sel[0]);
  cJSON_Delete(k->sel[1]);
  cJSON_Delete(k->hosts);
  pg_snapshot_free(k->snap);
  cJSON_Delete(k->tree);
  cJSON_Delete(k->facts);
  cJSON_Delete(k->active);
  cJSON_Delete(k->ax_main);
}

/* One capture: patched from the last one when the page vouches that only
 * form-control values changed (page_patch.c; *patched 1), else in full. */
static crawl_code capture_once(crawl_page *p, const pg_options *opts, pg_graph **out, int *patched) {
  *out = NULL;
  capture k = {.p = p, .opts = opts, .to = p->o.call_timeout_ms, .navs0 = p->navs};
  k.t0 = cdp_now_ms();
  if ((k.snap = crawl__patch_try(p)) != NULL) k.patched = 1; /* the tab's: not freed here */
  else k.id_base = crawl__patch_send_base(p);
  capture_send_first(&k);
  crawl_code rc = capture_wait_first(&k);
  if (!rc) {
    capture_send_second(&k);
    capture_wait_second(&k);
    capture_open_hosts(&k);
    rc = capture_build(&k, out);
  }
  if (k.patched) {
    k.snap = NULL;
    if (rc) crawl__patch_forget(p);
  } else if (k.id_base) {
    if (rc) cdp_abandon(p->c, k.id_base);
    else crawl__patch_keep(p, k.id_base, k.navs0, &k.snap);
  }
  *patched = k.patched && !rc;
  capture_release(&k);
  return rc;
}

/* A patched capture, and when a check is due a full one: compared (a
 * difference is logged), the full one kept. */
static crawl_code capture_checked(crawl_page *p, const pg_options *opts, pg_graph **out) {
  int patched = 0, again = 0;
  crawl_code rc = capture_once(p, opts, out, &patched);
  if (rc || !patched || !crawl__patch_verify_due(p)) return rc;
  pg_graph *full = NULL;
  crawl__patch_forget(p);
  if (capture_once(p, opts, &full, &again) != CRAWL_OK) { /* the patched one stands */
    pg_graph_free(full);
    return CRAWL_OK;
  }
  crawl__patch_verified(p, *out, full);
  pg_graph_free(*out);
  *out = full;
  return CRAWL_OK;
}

/* page_patch.c -- the patched capture after an action (issue 29): most
 * actions change a small part of a page, yet DOMSnapshot.captureSnapshot
 * dumps all of it (85-90 % of a capture of the bench's large-10000 page:
 * docs/performance.md). When the witness in the page (js/capture_patch.js)
 * vouches that since the last full capture nothing but form-control values
 * changed (no DOM mutation, CSSOM edit, state-selector match, listener,
 * animation, image, scroll, resize, frame, shadow root, URL), the last
 * capture's parsed snapshot is brought up to date (pg_snapshot_set_control)
 * and the graph is built from it; the accessibility data and everything
 * else are read afresh as in a full capture. Any doubt: a full capture.
 *
 * Off unless UIAP_CAPTURE_PATCH=1. UIAP_CAPTURE_VERIFY=1 checks every
 * patched graph against a full capture (pg_graph_same); with patching on,
 * a --verbose run checks one in VERIFY_ONE_IN at random. A difference is
 * logged (a warning, with where), counted, the full graph is used, and the
 * tab patches no more.
 *
 * Not here: the capture itself (page_capture.c), patching the parsed
 * snapshot (graph/snapshot_patch.c). */
#include "page_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHANGED 64     /* controls a patch may touch; more: a full capture */
#define VERIFY_ONE_IN 4    /* --verbose: the share of patched captures checked */

struct crawl__patch {
  pg_snapshot *snap;       /* the last capture's, brought up to date; NULL: none */
  int navs;                /* p->navs when it was taken */
  unsigned long patched, full, verified, differ;
  int off;                 /* a patched graph differed: no more patches on this tab */
};

static int env_on(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0");
}

static crawl__patch *state(crawl_page *p) {
  if (!p->cp) p->cp = crawl__xcalloc(1, sizeof *p->cp);
  return p->cp;
}

/* Never on a page crawl_page_attach took: the witness wraps the page's
 * addEventListener and attachShadow for good, and that page is the owner's. */
int crawl__patch_on(const crawl_page *p) {
  return p && !p->owners_page && !(p->cp && p->cp->off) && env_on("UIAP_CAPTURE_PATCH");
}

/* The witness called with mode: Runtime.evaluate sent, its id. */
static int send_witness(crawl_page *p, const char *mode, int by_value) {
  char *js = crawl__xprintf("%s('%s')", CRAWL__JS(capture_patch), mode);
  int id = crawl__page_send_eval_in(p, p->session, js, by_value, by_value ? NULL : "uiap-cp");
  free(js);
  return id;
}

int crawl__patch_send_base(crawl_page *p) { return crawl__patch_on(p) ? send_witness(p, "base", 1) : 0; }

void crawl__patch_forget(crawl_page *p) {
  if (!p->cp) return;
  pg_snapshot_free(p->cp->snap);
  p->cp->snap = NULL;
}

void crawl__patch_keep(crawl_page *p, int base_id, int navs0, pg_snapshot **snap) {
  if (!base_id) return;
  cJSON *r = NULL;
  int held = cdp_wait(p->c, base_id, &r, p->o.call_timeout_ms) == CDP_OK &&
             cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "result"), "value"));
  cJSON_Delete(r);
  crawl__patch *s = state(p);
  crawl__patch_forget(p);
  s->full++;
  if (!held || !*snap || !pg_snapshot_patchable(*snap) || p->navs != navs0) return;
  s->snap = *snap;
  s->navs = p->navs;
  *snap = NULL;
}

/* The changed controls of the witness' array (objectId arr, n of them):
 * their backend ids and states, patched into snap. 0: done; -1: cannot. */
static int patch_controls(crawl_page *p, pg_snapshot *snap, const char *arr, int n) {
  cJSON *fa = cJSON_CreateObject();
  cJSON_AddStringToObject(fa, "objectId", arr);
  cJSON_AddStringToObject(fa, "functionDeclaration",
                          "function(){return this.map(e=>[e.value==null?'':String(e.value),!!e.checked,!!e.selected])}");
  cJSON_AddBoolToObject(fa, "returnByValue", 1);
  int id_vals = cdp_send(p->c, p->session, "Runtime.callFunctionOn", fa);
  cJSON *gp = cJSON_CreateObject(), *props = NULL, *vals = NULL;
  cJSON_AddStringToObject(gp, "objectId", arr);
  cJSON_AddBoolToObject(gp, "ownProperties", 1);
  int rc = cdp_call(p->c, p->session, "Runtime.getProperties", gp, &props, p->o.call_timeout_ms) == CDP_OK ? 0 : -1;
  int ids[MAX_CHANGED], nids = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(props, "result")) {
    const char *oid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(it, "value"), "objectId"));
    if (!oid || nids >= n) continue; /* "length", "__proto__" */
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "objectId", oid);
    ids[nids++] = cdp_send(p->c, p->session, "DOM.describeNode", d);
  }
  if (cdp_wait(p->c, id_vals, &vals, p->o.call_timeout_ms) != CDP_OK || nids != n) rc = -1;
  const cJSON *rows = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(vals, "result"), "value");
  for (int j = 0; j < nids; j++) {
    cJSON *d = NULL;
    cdp_code w = cdp_wait(p->c, ids[j], &d, rc ? 1 : p->o.call_timeout_ms);
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, "node"), "backendNodeId");
    const cJSON *row = cJSON_GetArrayItem(rows, j);
    const char *v = cJSON_GetStringValue(cJSON_GetArrayItem(row, 0));
    if (w || !cJSON_IsNumber(b) || !v ||
        pg_snapshot_set_control(snap, b->valueint, v, cJSON_IsTrue(cJSON_GetArrayItem(row, 1)),
                                cJSON_IsTrue(cJSON_GetArrayItem(row, 2))))
      rc = -1;
    cJSON_Delete(d);
  }
  cJSON_Delete(props);
  cJSON_Delete(vals);
  return rc;
}

pg_snapshot *crawl__patch_try(crawl_page *p) {
  crawl__patch *s = p->cp;
  if (!s || !s->snap) return NULL;
  if (!crawl__patch_on(p)) { /* turned off: what is kept is no longer kept up to date */
    crawl__patch_forget(p);
    return NULL;
  }
  if (s->navs != p->navs || p->noopifs) {
    crawl__patch_forget(p);
    return NULL;
  }
  cJSON *r = NULL;
  int ok = 0;
  long long t0 = cdp_now_ms();
  if (cdp_wait(p->c, send_witness(p, "diff", 0), &r, p->o.call_timeout_ms) == CDP_OK) {
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(r, "result");
    const char *arr = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "objectId"));
    const char *desc = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "description"));
    int n = -1;
    if (arr && desc && sscanf(desc, "Array(%d)", &n) == 1 && n >= 0 && n <= MAX_CHANGED)
      ok = n == 0 || patch_controls(p, s->snap, arr, n) == 0;
    if (arr) {
      cJSON *a = cJSON_CreateObject();
      cJSON_AddStringToObject(a, "objectGroup", "uiap-cp");
      int id = cdp_send(p->c, p->session, "Runtime.releaseObjectGroup", a);
      if (id > 0) cdp_abandon(p->c, id);
    }
    const char *why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "value"));
    crawl_log(CRAWL_LOG_DEBUG, "capture", "patch: the witness says %s%s%s (%lld ms)",
              ok ? "only values changed" : "a full capture is due", why ? ": " : "", why ? why : "", cdp_now_ms() - t0);
  }
  cJSON_Delete(r);
  if (!ok) {
    crawl__patch_forget(p);
    return NULL;
  }
  s->patched++;
  return s->snap;
}

int crawl__patch_verify_due(crawl_page *p) {
  if (env_on("UIAP_CAPTURE_VERIFY")) return 1;
  return crawl_log_enabled(CRAWL_LOG_INFO) && rand() % VERIFY_ONE_IN == 0;
}

void crawl__patch_verified(crawl_page *p, const pg_graph *patched, const pg_graph *full) {
  crawl__patch *s = state(p);
  char where[512];
  s->verified++;
  if (pg_graph_same(patched, full, where, sizeof where)) {
    crawl_log(CRAWL_LOG_INFO, "capture", "patched capture checked: the same as a full one");
    return;
  }
  s->differ++;
  s->off = 1;
  crawl_log(CRAWL_LOG_WARN, "capture",
            "patched capture differs from a full one at %s: the full one is used, and no more patches on this tab", where);
}

void crawl__patch_free(crawl_page *p) {
  if (!p->cp) return;
  if (p->cp->patched || p->cp->verified)
    crawl_log(CRAWL_LOG_INFO, "capture", "patched captures: %lu (full %lu); checked %lu, differing %lu", p->cp->patched,
              p->cp->full, p->cp->verified, p->cp->differ);
  crawl__patch_forget(p);
  free(p->cp);
  p->cp = NULL;
}

void crawl_page_patch_counts(const crawl_page *p, unsigned long *patched, unsigned long *verified, unsigned long *differ) {
  *patched = p && p->cp ? p->cp->patched : 0;
  *verified = p && p->cp ? p->cp->verified : 0;
  *differ = p && p->cp ? p->cp->differ : 0;
}

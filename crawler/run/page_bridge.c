/* page_bridge.c -- bridged out-of-process frames in a capture
 * (crawl__page_capture_bridged, called by page_capture.c): which frames in
 * a process of their own may be read (the run names their origin, or they
 * declare a bridge into this page and the run allows that), and their
 * snapshot and accessibility tree, over their own sessions.
 *
 * Not here: the same-process frames (page_capture.c), how a bridged frame
 * joins the graph (graph/build.c).
 */
#include "page_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bridged out-of-process frames (site isolation puts another site's frame in
 * a target of its own): the browser says each one's URL; a frame whose
 * origin the run bridges, or -- when the run allows bridges -- whose
 * document declares a bridge into this page (top_origin; the
 * <meta name="uiap-bridge"> content and nothing else is read to decide), is
 * captured over its own session -- DOMSnapshot and the full accessibility
 * tree, coordinates local to the frame (pg_build places them, and checks
 * the declaration again). Nothing is read from any other frame. Fills subs
 * (at most MAX_BRIDGED), snaps and axs (the caller frees them); returns the
 * count. */

/* The candidates: out-of-process frames with an owner and a session of
 * ours. For each, the browser is asked for its URL (by_origin) and the frame
 * for its bridge declaration (opts->allow_bridges); the ids of those
 * requests go to info_ids and meta_ids (0: not asked). Returns the count. */
static int bridge_ask(crawl_page *p, const pg_options *opts, int by_origin, const pg_frame_info *frames,
                      int nframes, const pg_frame_info **cand, const char **sessions, int *info_ids,
                      int *meta_ids) {
  char *meta_js = opts->allow_bridges ? crawl__xprintf(CRAWL__JS(bridge_meta), PG_BRIDGE_META) : NULL;
  int n = 0;
  for (int i = 0; i < nframes; i++) {
    if (!frames[i].oopif || !frames[i].owner_backend_node_id) continue;
    const char *session = NULL;
    for (int k = 0; k < p->noopifs; k++)
      if (!strcmp(p->oopifs[k].target_id, frames[i].frame_id)) session = p->oopifs[k].session;
    if (!session) continue;
    cand[n] = &frames[i];
    sessions[n] = session;
    info_ids[n] = meta_ids[n] = 0;
    if (by_origin) {
      cJSON *t = cJSON_CreateObject();
      cJSON_AddStringToObject(t, "targetId", frames[i].frame_id);
      info_ids[n] = cdp_send(p->c, NULL, "Target.getTargetInfo", t);
    }
    if (meta_js) meta_ids[n] = crawl__page_send_eval_in(p, session, meta_js, 1, NULL);
    n++;
  }
  free(meta_js);
  return n;
}

/* The replies to bridge_ask for one candidate: 1 when its origin is one the
 * run bridges or its document declares a bridge into top_origin. */
static int bridge_consented(crawl_page *p, const pg_options *opts, const char *top_origin, int info_id,
                            int meta_id) {
  int bridged = 0, to = p->o.call_timeout_ms;
  cJSON *res = NULL;
  if (info_id > 0 && cdp_wait(p->c, info_id, &res, to) == CDP_OK) {
    const char *url = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(res, "targetInfo"), "url"));
    char o[512];
    crawl__page_url_origin(url, o, sizeof o);
    for (int b = 0; o[0] && opts->bridge_origins[b]; b++) bridged |= !strcmp(opts->bridge_origins[b], o);
  }
  cJSON_Delete(res);
  res = NULL;
  if (meta_id > 0 && cdp_wait(p->c, meta_id, &res, to) == CDP_OK) {
    const char *content = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(res, "result"), "value"));
    bridged |= pg_bridge_consents(content, top_origin);
  }
  cJSON_Delete(res);
  return bridged;
}

/* The snapshot and AX replies of the nsubs bridged frames: those with a
 * snapshot are kept, in order, in subs, snaps and axs (the caller frees
 * those). Returns how many were kept. */
static int bridge_collect(crawl_page *p, pg_subframe *subs, const int *snap_ids, const int *ax_ids, int nsubs,
                          pg_snapshot **snaps, cJSON **axs) {
  int kept = 0;
  for (int k = 0; k < nsubs; k++) {
    char *text = NULL;
    size_t len = 0;
    pg_snapshot *snap = NULL;
    cJSON *ax = NULL;
    if (cdp_wait_raw(p->c, snap_ids[k], &text, &len, p->o.call_timeout_ms) == CDP_OK)
      pg_snapshot_parse(text, len, &snap);
    free(text);
    if (crawl__page_wait_ax(p, ax_ids[k], &ax) != CDP_OK) ax = NULL;
    if (!snap) {
      crawl_log(CRAWL_LOG_WARN, "capture", "bridged frame %s: no snapshot; it stays opaque", subs[k].frame_id);
      cJSON_Delete(ax);
      continue;
    }
    subs[kept] = subs[k];
    subs[kept].snapshot = snap;
    subs[kept].ax = ax;
    snaps[kept] = snap;
    axs[kept] = ax;
    kept++;
  }
  return kept;
}

int crawl__page_capture_bridged(crawl_page *p, const pg_options *opts, const char *top_origin,
                           const pg_frame_info *frames, int nframes,
                           pg_subframe *subs, pg_snapshot **snaps, cJSON **axs) {
  int by_origin = opts && opts->bridge_origins && opts->bridge_origins[0];
  if (!opts || (!by_origin && !opts->allow_bridges)) return 0;
  int info_ids[MAX_FRAMES], meta_ids[MAX_FRAMES];
  const pg_frame_info *cand[MAX_FRAMES];
  const char *sessions[MAX_FRAMES];
  int n = bridge_ask(p, opts, by_origin, frames, nframes, cand, sessions, info_ids, meta_ids);
  int snap_ids[MAX_BRIDGED], ax_ids[MAX_BRIDGED], nsubs = 0;
  for (int k = 0; k < n; k++) {
    int bridged = bridge_consented(p, opts, top_origin, info_ids[k], meta_ids[k]);
    const char *session = sessions[k];
    if (!bridged || nsubs == MAX_BRIDGED) continue;
    subs[nsubs] = (pg_subframe){.frame_id = cand[k]->frame_id, .session_id = session,
                                .owner_backend_node_id = cand[k]->owner_backend_node_id};
    snap_ids[nsubs] = cdp_send_raw(p->c, session, "DOMSnapshot.captureSnapshot", crawl__page_snapshot_params());
    ax_ids[nsubs] = cdp_send_raw(p->c, session, "Accessibility.getFullAXTree", NULL);
    nsubs++;
  }
  return bridge_collect(p, subs, snap_ids, ax_ids, nsubs, snaps, axs);
}

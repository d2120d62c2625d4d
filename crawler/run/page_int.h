/* page_int.h -- what the files of the tab share (page.c, page_open.c,
 * page_guard.c, page_settle.c, page_capture.c, page_bridge.c, page_input.c,
 * page_screenshot.c) and nothing else sees: the tab's struct and the
 * helpers one of them defines and another calls. Internal to crawler/run/;
 * the rest of the live side sees a crawl_page through crawl.h and run_int.h
 * only. */
#ifndef UIAP_PAGE_INT_H
#define UIAP_PAGE_INT_H

#include "crawl.h"
#include "crawl_secrets.h"
#include "crawl_strmap.h"
#include "netlog.h"
#include "run_int.h"

#define MAX_FRAMES 256
#define MAX_INFLIGHT 4096

#define MAX_KIDS 256

/* A target attached under the page (a frame in its own process, a worker,
 * a service or shared worker) that the write guard covers: its requests
 * pause in its own session. It starts paused (waitForDebuggerOnStart) and is
 * let run only once its Fetch.enable answered (guard_service). */
typedef struct guarded_kid {
  char *session;
  char *target_id;
  char *type;
  int fetch_id;      /* Fetch.enable sent, reply not checked yet; 0: running */
  int paused;        /* 1: let run only once Fetch.enable answered */
} guarded_kid;

typedef struct oopif {
  char *target_id;   /* == frameId */
  char *session;
  char *url;
} oopif;

struct crawl_page {
  cdp_client *c;
  crawl_page_opts o;
  char *session;
  char *target_id;
  char *binding;
  char *main_frame;
  int subs[20];
  int nsubs;
  /* settling */
  long long last_activity;
  long long last_paused;      /* when the guard last saw a request (leave_guarded) */
  char *inflight[MAX_INFLIGHT];
  long long inflight_t[MAX_INFLIGHT];
  int ninflight;
  int loaded;
  int settled;
  int still;                 /* the last settle was on evidence: nothing pending, */
  long long still_at;        /* ... and last_activity was this then */
  int crashed;
  int navs, dcl;             /* top-frame navigations; DOMContentLoaded seen */
  unsigned ndcl;             /* DOMContentLoaded events, ever */
  int loop_stops;            /* navigation loops stopped in the current load (page_goto) */
  int terminated;            /* scripts terminated in the current load */
  char *loop_guard;          /* its script for new documents, while settling */
  int dialogs, popups;
  unsigned long changes;     /* mutations and navigations reported (crawl_page_changes) */
  int blocked;
  char *last_blocked;
  int load_blocked;          /* of blocked: while a load of crawl_page_goto ran, before any action */
  char *last_load_blocked;
  char *load_hint;           /* its --allow-read entry ("'POST /graphql'", "graphql:Feed"), "" for a mutation */
  int reads;                 /* writes let through as reads (crawl_page_reads) */
  char *last_read;
  char *url;                 /* top frame URL */
  char *allowed[64];
  int nallowed;
  oopif oopifs[MAX_FRAMES];
  int noopifs;
  guarded_kid kids[MAX_KIDS];
  int nkids;
  int guard_failed;          /* a target could not be guarded: every call fails (CRAWL_GUARD) */
  int browser_guard;         /* service and shared workers attach to us browser-wide */
  char *goto_url;            /* the URL asked for last (a GET the guard never reads as a write) */
  int priming;               /* session_storage: documents get an empty page, nothing leaves */
  char *write_once;          /* "METHOD url-without-query": the one write a login
                                recipe's submit may make (crawl__page_allow_write) */
  int doc_status;            /* HTTP status of the last top-frame document (0: none) */
  /* WebSockets (invisible to Fetch): counted, and blocked after an action */
  int ws_block;              /* ws:// and wss:// blocked until the next fresh load */
  int ws_opened;             /* WebSockets refused after an action */
  int ws_unguarded;          /* opened after an action all the same (a worker) */
  int ws_frames;             /* frames sent after an action */
  char *last_ws;
  /* a sealed probe (page_seal.c) */
  char seal_name[40];        /* the seal's switch in the page's documents, "" until installed */
  char *seal_doc;            /* while sealed: the script that seals each new document */
  int sealed;
  int seal_refused;          /* sends the seal refused in the page (crawl__page_seal_report) */
  char *last_seal;           /* the last: "WebSocket ws://host/path" (no query, no data) */
  /* the fields any capture found sensitive (pg_graph.sensitive_fields), for
   * every later capture (pg_input.known_sensitive_*): nodes while their document
   * lasts (crawl__page_forget_nodes), keys for the tab; seen: "k<key>" */
  int *sens_nodes;
  char **sens_keys;
  size_t nsens_nodes, nsens_keys, capsens_nodes, capsens_keys;
  crawl__strmap sens_seen;
  crawl__secrets *secrets;   /* own_secrets, or the run's, borrowed (crawl__page_use_secrets) */
  crawl__secrets *own_secrets; /* the tab's own: its session's values and what it redacted */
  crawl__netlog *net;        /* the requests of the app's origins, by phase (netlog.c) */
  struct crawl__patch *cp;   /* the patched capture's state (page_patch.c), NULL until used */
  int owners_page;           /* crawl_page_attach: someone else's page, left as it was (never patched) */
  int blockers[8];           /* nodes that kept covering a target (crawl__page_blocker_note), a ring */
  int nblockers;
  char err[512];
};

/* ---- page.c: errors, calls, the events that feed settling ---------------------- */
/* p->err = "what: " + the client's message. */
void crawl__page_perr(crawl_page *p, const char *what);
/* A CDP code as a crawl code (a timeout or failure of a crashed page:
 * CRAWL_CRASHED). */
crawl_code crawl__page_from_cdp(crawl_page *p, cdp_code rc);
/* cdp_call on the tab's session with its call timeout; params consumed,
 * *res the caller's to delete; a failure goes to p->err. */
crawl_code crawl__page_call(crawl_page *p, const char *method, cJSON *params, cJSON **res);
/* 1: session is the tab's own. */
int crawl__page_mine(crawl_page *p, const char *session);
/* The index in p->kids of the guarded target with session, or -1. */
int crawl__page_kid_index(const crawl_page *p, const char *session);
/* 1: the tab's own session or one of its guarded targets. */
int crawl__page_guarded_session(crawl_page *p, const char *session);
/* 1: session is one of the page's workers (its requests go to the netlog) */
int crawl__page_worker_session(const crawl_page *p, const char *session);
/* Forget the requests in flight. */
void crawl__page_clear_inflight(crawl_page *p);
/* The top frame's URL (copied; NULL: kept). */
void crawl__page_set_url(crawl_page *p, const char *url);
/* Event callbacks (cdp_event_cb, ud = the page), subscribed by page_open.c. */
void crawl__page_on_request(void *ud, const char *session, const char *method, const cJSON *params);
void crawl__page_on_binding(void *ud, const char *session, const char *method, const cJSON *params);
void crawl__page_on_load(void *ud, const char *session, const char *method, const cJSON *params);
void crawl__page_on_dialog(void *ud, const char *session, const char *method, const cJSON *params);
void crawl__page_on_crash(void *ud, const char *session, const char *method, const cJSON *params);
void crawl__page_on_frame_nav(void *ud, const char *session, const char *method, const cJSON *params);
void crawl__page_on_response(void *ud, const char *session, const char *method, const cJSON *params);

/* ---- page_capture.c: what the tab remembers -------------------------------------- */
/* A new top-level document: the node ids of the fields found sensitive
 * were the old document's (a new renderer may give the same numbers to
 * other nodes: a select of the page after a sign-in taken for the password
 * field); their keys (URL and field) stay. */
void crawl__page_forget_nodes(crawl_page *p);

/* ---- page_guard.c: the write guard ------------------------------------------------ */
/* Target.setAutoAttach parameters (flattened; wait: new targets start
 * paused). The caller sends (consumes) them. */
cJSON *crawl__page_auto_attach_params(int wait);
/* 1: a target type that is a worker of some kind. */
int crawl__page_is_worker(const char *type);
/* The guard in the tab (Fetch, the allowed origins, browser-wide
 * auto-attach when browser_wide): CRAWL_OK, or CRAWL_GUARD with p->err. */
crawl_code crawl__page_send_guard(crawl_page *p, int browser_wide);
/* cdp_pump, then the guarded targets that wait for their guard. */
cdp_code crawl__page_pump(crawl_page *p, int timeout_ms);
/* CRAWL_GUARD once a target could not be guarded, else CRAWL_OK. */
crawl_code crawl__page_guard_check(crawl_page *p);
/* WebSockets refused from now on (on: after an action) or allowed (off: a
 * fresh load). */
void crawl__page_ws_block_set(crawl_page *p, int on);
/* The origin of url into buf (pg_url_origin; "" when it has none). */
void crawl__page_url_origin(const char *url, char *buf, size_t n);
/* A guarded tab leaves its document before it closes (crawl_page_close). */
void crawl__page_leave_guarded(crawl_page *p);
/* Event callbacks (ud = the page), subscribed by page_open.c. */
void crawl__page_on_attached(void *ud, const char *session, const char *method, const cJSON *params);
void crawl__page_on_detached(void *ud, const char *session, const char *method, const cJSON *params);
void crawl__page_on_target_created(void *ud, const char *session, const char *method, const cJSON *params);
void crawl__page_on_paused(void *ud, const char *session, const char *method, const cJSON *params);
void crawl__page_on_websocket(void *ud, const char *session, const char *method, const cJSON *params);

/* ---- page_settle.c: navigate and settle ------------------------------------------- */
/* Page.navigate to url; *same_doc: it was a same-document navigation. */
crawl_code crawl__page_navigate(crawl_page *p, const char *url, int *same_doc);
/* Wait for the load event of url, at most until deadline; navs0: the
 * top-level navigations before it (a loop is stopped). */
crawl_code crawl__page_wait_load(crawl_page *p, const char *url, long long deadline, int navs0);

/* ---- page_capture.c, page_bridge.c: capture ------------------------------------- */
#define MAX_BRIDGED 16
/* Runtime.evaluate of expr in session, sent (objectGroup group unless
 * NULL); its id. */
int crawl__page_send_eval_in(crawl_page *p, const char *session, const char *expr, int by_value, const char *group);
/* An accessibility-tree reply sent with cdp_send_raw, compacted and parsed:
 * *result (caller deletes). */
cdp_code crawl__page_wait_ax(crawl_page *p, int id, cJSON **result);
/* DOMSnapshot.captureSnapshot parameters (the caller sends them). */
cJSON *crawl__page_snapshot_params(void);
/* The tab's memory of sensitive fields, freed (crawl_page_close). */
void crawl__page_memory_release(crawl_page *p);
/* The bridged out-of-process frames among frames, captured over their own
 * sessions: subs, snaps and axs filled (at most MAX_BRIDGED; the caller
 * frees snaps and axs); returns the count (page_bridge.c). */
int crawl__page_capture_bridged(crawl_page *p, const pg_options *opts, const char *top_origin,
                                const pg_frame_info *frames, int nframes, pg_subframe *subs, pg_snapshot **snaps,
                                cJSON **axs);

/* ---- page_patch.c: the patched capture after an action ----------------------------- */
typedef struct crawl__patch crawl__patch;
/* 1 when patched captures are on (UIAP_CAPTURE_PATCH=1). */
int crawl__patch_on(const crawl_page *p);
/* A full capture: the witness' baseline, sent just before its snapshot; its
 * id (0: patching is off). */
int crawl__patch_send_base(crawl_page *p);
/* After a full capture built from *snap: when the baseline (base_id) held
 * and no navigation came since navs0, the snapshot is kept for the next
 * capture (taken: *snap NULL); else nothing is kept. */
void crawl__patch_keep(crawl_page *p, int base_id, int navs0, pg_snapshot **snap);
/* The kept snapshot brought up to date when the witness vouches that only
 * form-control values changed (owned by the tab: do not free), else NULL
 * (a full capture is due; the kept one is dropped). */
pg_snapshot *crawl__patch_try(crawl_page *p);
/* Drop the kept snapshot (a patched capture that failed). */
void crawl__patch_forget(crawl_page *p);
/* 1 when this patched capture is to be checked against a full one. */
int crawl__patch_verify_due(crawl_page *p);
/* Log and count the check of patched against full. */
void crawl__patch_verified(crawl_page *p, const pg_graph *patched, const pg_graph *full);
/* The patched capture's state, freed (crawl_page_close). */
void crawl__patch_free(crawl_page *p);

#endif

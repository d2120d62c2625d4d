/* netlog.h -- the requests of the app's origins a tab made, grouped by
 * phase (a load, an action, idle time between them), for the journal's
 * `requests` records (docs/journal.md, docs/api.md "Recording requests").
 * Fed by the CDP events the tab already receives (page.c, page_guard.c):
 * no call of its own. What it keeps of a request: method, URL, resource
 * type, status, content type, size, timing, the guard's verdict and the
 * shape of its body -- never a body value, a header value or a cookie.
 * Internal to crawler/run/. */
#ifndef UIAP_NETLOG_H
#define UIAP_NETLOG_H

#include <cjson/cJSON.h>
#include <stddef.h>

#define CRAWL__NETLOG_MAX 500      /* requests kept per phase; the rest are counted */
#define CRAWL__NETLOG_DEPTH 4      /* a body shape's depth */
#define CRAWL__NETLOG_KEYS 50      /* a body shape's keys, all levels together */

typedef struct crawl__netlog crawl__netlog;

/* A new, idle log (requests go in as initiator "timer"). Free with
 * crawl__netlog_free (NULL: nothing). */
crawl__netlog *crawl__netlog_new(void);
void crawl__netlog_free(crawl__netlog *nl);

/* A phase begins at now (ms): "load" or "action" (a static string); the
 * requests from here on are its own. Requests already logged (idle time)
 * stay, as "timer", for the phase's record. */
void crawl__netlog_begin(crawl__netlog *nl, const char *phase, long long now);
/* off 1: requests are not logged at all (a restore replays what was
 * recorded before); 0: logged again, as idle time. */
void crawl__netlog_mute(crawl__netlog *nl, int off);
/* The phase under way ("load", "action"), NULL when idle. */
const char *crawl__netlog_phase(const crawl__netlog *nl);
/* The phase ends without a record: its requests stay for the next one. */
void crawl__netlog_idle(crawl__netlog *nl);

/* ---- events (params: the CDP event's; in_scope: 1 the URL is on one of
 * the run's origins, 0 another origin (counted in offOrigin), -1 a URL
 * without an origin (data:, blob:: not logged at all), decided by the
 * caller) ---- */
void crawl__netlog_on_request(crawl__netlog *nl, const cJSON *params, int in_scope, long long now);
void crawl__netlog_on_response(crawl__netlog *nl, const cJSON *params);
/* loadingFinished (failed 0) or loadingFailed (failed 1). */
void crawl__netlog_on_done(crawl__netlog *nl, const cJSON *params, int failed, long long now);
/* Fetch.requestPaused with the guard's verdict: guard "passed", "write",
 * "write_intent", "read", "beacon", "off_origin"; why its reason (NULL:
 * none). The body shape is taken from request.postData here (the value
 * itself is not kept). */
void crawl__netlog_on_paused(crawl__netlog *nl, const cJSON *params, int in_scope, const char *guard,
                             const char *why, long long now);

/* The tab's log (page.c; NULL for NULL). The tab owns it. */
struct crawl_page;
crawl__netlog *crawl__page_netlog(struct crawl_page *p);
/* 1: url is on one of the app's origins (the guard's allowed origins, else
 * the tab's options', else the top frame's); 0: another origin; -1: a URL
 * without an origin (data:, blob:, about:) (page.c). */
int crawl__page_net_scope(struct crawl_page *p, const char *url);

/* What a record says besides its requests (all may be NULL / 0). */
typedef struct crawl__netlog_ctx {
  const char *phase;          /* "load" or "action" */
  const char *state_id, *url; /* url: the load's page URL */
  const char *transition_id, *action_id;
  const cJSON *target;        /* copied */
  int probed;
  const char *principal;
} crawl__netlog_ctx;

/* The fields of a `requests` record (docs/api.md format A, without type
 * and at): ctx, offOrigin, omitted, and the requests logged since the last
 * record, which leave the log; the log is idle again. now: for the
 * requests still in flight (no duration). Caller owns the result. */
cJSON *crawl__netlog_record(crawl__netlog *nl, const crawl__netlog_ctx *ctx, long long now);
/* The requests logged so far as {method, template, status, guard} items
 * (the mcp act tool's answer); they stay in the log. Caller owns it. */
cJSON *crawl__netlog_brief(const crawl__netlog *nl);
/* Requests logged and not yet taken (for tests). */
size_t crawl__netlog_count(const crawl__netlog *nl);

/* The shape of a request body (never a value): {"kind":"json","shape":...},
 * {"kind":"form","shape":{key:"string"}}, {"kind":"graphql","operations":[...]},
 * {"kind":"other","contentType":"..."}; NULL when there is no body.
 * content_type may be NULL; body[0..len) need not be terminated. */
cJSON *crawl__netlog_body_shape(const char *content_type, const char *body, size_t len);

/* The endpoint template of url's path as api.json names it
 * (crawl_api_path_template: "/api/pets/3/adopt?x=1" -> "/api/pets/{petId}/adopt").
 * Caller frees; NULL when url has no path. */
char *crawl__netlog_template(const char *url);

#endif

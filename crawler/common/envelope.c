/* envelope.c -- the UIAP message envelope of core-decisions.md, built in one
 * place for every message the tool sends (snapshot --envelope, progress
 * events, observe). Field order is fixed: uiap, kind, type, id,
 * correlationId, sessionId, ts, source, payload. */
#include "crawl_common.h"
#include "crawl_util.h"

cJSON *crawl_envelope(const crawl_msg *m, cJSON *payload) {
  char ts[40];
  cJSON *e = crawl__jx(cJSON_CreateObject());
  crawl__jstr(e, "uiap", "0.1");
  crawl__jstr(e, "kind", m->kind ? m->kind : "event");
  crawl__jstr(e, "type", m->type);
  crawl__jstr(e, "id", m->id);
  crawl__jstr(e, "correlationId", m->correlation_id);
  crawl__jstr(e, "sessionId", m->session_id);
  crawl__jstr(e, "ts", crawl__time_iso(ts, sizeof ts));
  cJSON *src = crawl__jx(cJSON_CreateObject());
  crawl__jstr(src, "role", "runtime");
  crawl__jstr(src, "id", m->source_id ? m->source_id : "uiap-crawl");
  crawl__jset(e, "source", src);
  crawl__jset(e, "payload", payload ? payload : cJSON_CreateObject());
  return e;
}

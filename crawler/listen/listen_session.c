/* listen_session.c -- one UIAP session: the envelope of what comes in is
 * checked, session.initialize opens the session, every other request goes
 * to its handler by the table below (listen_web.c, listen_discovery.c).
 * Whatever is wrong with a message gets a kind "error" reply (with the
 * correlationId when the id could be read) and the session stays usable.
 * Replies go into the session's queue (listen_send.c), which the server
 * drains. */
#include "listen_int.h"
#include "crawl_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LSN_MAX_MESSAGE (4u << 20)

/* ---- session.initialize ------------------------------------------------------ */
/* 1 when the JSON array a holds the string v. */
static int has_string(const cJSON *a, const char *v) {
  const cJSON *x;
  cJSON_ArrayForEach(x, a) if (cJSON_IsString(x) && !strcmp(x->valuestring, v)) return 1;
  return 0;
}

static void session_initialize(lsn_session *s, const char *req, const cJSON *payload) {
  if (s->initialized) {
    lsn__error(s, req, "already_initialized", "session %s is initialized already", s->id);
    return;
  }
  const cJSON *prof = cJSON_GetObjectItemCaseSensitive(payload, "supportedProfiles");
  if (!cJSON_IsArray(prof) || !has_string(prof, "web@0.1")) {
    lsn__error(s, req, "unsupported_profile", "supportedProfiles must hold \"web@0.1\"");
    return;
  }
  int disc = 0;
  const cJSON *ext;
  cJSON_ArrayForEach(ext, cJSON_GetObjectItemCaseSensitive(payload, "extensions")) {
    const char *eid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ext, "id"));
    if (eid && !strcmp(eid, "uiap.discovery") && has_string(cJSON_GetObjectItemCaseSensitive(ext, "versions"), "0.1"))
      disc = 1;
  }
  s->initialized = 1;
  cJSON *p = crawl__jx(cJSON_CreateObject());
  crawl__jstr(p, "sessionId", s->id);
  cJSON *sel = crawl__jx(cJSON_AddArrayToObject(p, "selectedProfiles"));
  cJSON_AddItemToArray(sel, cJSON_CreateString("web@0.1"));
  cJSON *exts = crawl__jx(cJSON_AddArrayToObject(p, "extensions"));
  if (disc) {
    cJSON *e = crawl__jx(cJSON_CreateObject());
    crawl__jstr(e, "id", "uiap.discovery");
    cJSON *v = crawl__jx(cJSON_AddArrayToObject(e, "versions"));
    cJSON_AddItemToArray(v, cJSON_CreateString("0.1"));
    cJSON_AddBoolToObject(e, "required", 0);
    cJSON_AddItemToArray(exts, e);
  }
  lsn__reply(s, req, "session.initialized", p);
}

/* ---- dispatch ------------------------------------------------------------------- */
typedef struct {
  const char *type;
  lsn_handler fn;
} route;

static const route routes[] = {
  {"session.initialize", session_initialize},
  {"web.state.get", lsn__web_state_get},
  {"web.observe.start", lsn__web_observe_start},
  {"web.observe.stop", lsn__web_observe_stop},
  {"uiap.discovery.plan", lsn__disc_plan},
  {"uiap.discovery.start", lsn__disc_start},
  {"uiap.discovery.pause", lsn__disc_pause},
  {"uiap.discovery.resume", lsn__disc_resume},
  {"uiap.discovery.cancel", lsn__disc_cancel},
  {"uiap.discovery.package.get", lsn__disc_package_get},
};

/* What is wrong with the envelope m (NULL: nothing). */
static const char *envelope_problem(const cJSON *m) {
  static const char *const strings[] = {"uiap", "kind", "type", "id"};
  if (!cJSON_IsObject(m)) return "a message is a JSON object";
  for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
    if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(m, strings[i]))) return "uiap, kind, type and id must be strings";
  if (strcmp(cJSON_GetObjectItemCaseSensitive(m, "uiap")->valuestring, "0.1")) return "uiap must be \"0.1\"";
  if (strcmp(cJSON_GetObjectItemCaseSensitive(m, "kind")->valuestring, "request"))
    return "this runtime takes requests only (kind \"request\")";
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(m, "payload");
  if (p && !cJSON_IsObject(p)) return "payload must be an object";
  return NULL;
}

void lsn__session_receive(lsn_session *s, const char *text, size_t len) {
  if (len > LSN_MAX_MESSAGE) {
    lsn__error(s, NULL, "bad_message", "message of %zu bytes is over the limit of %u", len, LSN_MAX_MESSAGE);
    return;
  }
  cJSON *m = cJSON_ParseWithLength(text, len);
  const char *req = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "id"));
  const char *problem = m ? envelope_problem(m) : "not valid JSON";
  if (problem) {
    lsn__error(s, req, "bad_message", "%s", problem);
    cJSON_Delete(m);
    return;
  }
  const char *type = cJSON_GetObjectItemCaseSensitive(m, "type")->valuestring;
  const cJSON *payload = cJSON_GetObjectItemCaseSensitive(m, "payload");
  cJSON *empty = payload ? NULL : cJSON_CreateObject();
  const route *r = NULL;
  for (size_t i = 0; i < sizeof routes / sizeof *routes && !r; i++)
    if (!strcmp(routes[i].type, type)) r = &routes[i];
  if (!r) lsn__error(s, req, "unknown_type", "unknown message type %.200s", type);
  else if (!s->initialized && r->fn != session_initialize)
    lsn__error(s, req, "not_initialized", "send session.initialize first");
  else r->fn(s, req, payload ? payload : empty);
  cJSON_Delete(empty);
  cJSON_Delete(m);
}

/* ---- lifetime --------------------------------------------------------------------- */
lsn_session *lsn__session_new(const crawl_listen_opts *o, const char *runs_dir, void (*wake)(void *), void *ud) {
  static unsigned long counter;
  lsn_session *s = crawl__xcalloc(1, sizeof *s);
  s->o = o;
  s->runs_dir = runs_dir;
  s->wake = wake;
  s->wake_ud = ud;
  pthread_mutex_init(&s->mu, NULL);
  snprintf(s->id, sizeof s->id, "ses_%lld_%d_%lu", (long long)time(NULL), (int)getpid(),
           __atomic_add_fetch(&counter, 1, __ATOMIC_SEQ_CST));
  return s;
}

void lsn__session_free(lsn_session *s) {
  if (!s) return;
  lsn__web_release(s);
  lsn__disc_release(s);
  s->wake = NULL;
  char *t;
  while ((t = lsn__session_pop(s))) free(t);
  pthread_mutex_destroy(&s->mu);
  free(s);
}

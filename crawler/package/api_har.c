/* api_har.c -- OUT/requests.har: the journal's `requests` records (format A,
 * docs/api.md) as HAR 1.2, one entry per request in journal order, for
 * ZAP, Burp and browser devtools. The HAR holds what the crawler measured
 * and nothing the app sent or answered: URLs keep their query names with
 * the values cut ("?q=&page="), queryString values are "", headers and
 * cookies are empty, postData is {mimeType, text: ""} and a response's
 * content carries no text. Where a request came from (state, transition,
 * action, the write guard's verdict) is in each entry's _uiap member (HAR
 * allows custom members that start with "_").
 */
#include "api_export_int.h"
#include "crawl_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef UIAP_PROJECT_VERSION
#define UIAP_PROJECT_VERSION "0"
#endif

#define HAR_TIME_ZERO "1970-01-01T00:00:00.000Z"

/* A request body's kind (format A body.kind) as a media type; "other" uses
 * the record's contentType. */
static const struct { const char *kind, *media; } body_media[] = {
  {"json", "application/json"}, {"graphql", "application/json"}, {"form", "application/x-www-form-urlencoded"},
};

/* ---- time ------------------------------------------------------------------------ */
/* RFC 3339 text ("2026-12-01T09:37:37.123Z", "...+02:00") as milliseconds
 * since the epoch; 0 when it does not read as one. */
static int parse_iso(const char *s, long long *ms) {
  struct tm tm = {0};
  int frac_len = 0, used = 0;
  char frac[16] = "";
  if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                   &tm.tm_sec, &used) != 6)
    return 0;
  s += used;
  if (*s == '.' && sscanf(s + 1, "%15[0-9]%n", frac, &frac_len) == 1) s += 1 + frac_len;
  int sign = 0, oh = 0, om = 0;
  if (*s == 'Z' || *s == 'z') sign = 0;
  else if ((*s == '+' || *s == '-') && sscanf(s + 1, "%2d:%2d", &oh, &om) == 2) sign = *s == '+' ? 1 : -1;
  else return 0;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  long long t = (long long)timegm(&tm);
  if (t == -1 && tm.tm_year != 69) return 0;
  int milli = 0;
  for (int i = 0; i < 3; i++) milli = milli * 10 + (frac[i] >= '0' && frac[i] <= '9' ? frac[i] - '0' : 0);
  *ms = (t - sign * (oh * 3600LL + om * 60LL)) * 1000 + milli;
  return 1;
}

/* ms since the epoch as "YYYY-MM-DDTHH:MM:SS.mmmZ" into buf (32 bytes). */
static const char *format_iso(long long ms, char *buf, size_t n) {
  time_t t = (time_t)(ms / 1000);
  struct tm tm;
  if (ms < 0 || !gmtime_r(&t, &tm) || tm.tm_year > 8099) return HAR_TIME_ZERO;
  size_t k = strftime(buf, n, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(buf + k, n - k, ".%03dZ", (int)(ms % 1000));
  return buf;
}

/* ---- URLs -------------------------------------------------------------------------- */
/* url without userinfo, fragment and query values: "s://host/p?a=&b=".
 * The query names go to qs as HAR query objects {name, value: ""}. With
 * keep_hash, a hash route ("#/pets/3", "#!/pets") stays up to its own
 * query or any "=", "&", ";"; another fragment ("#access_token=...") goes. */
static char *url_scrubbed(const char *url, cJSON *qs, int keep_hash) {
  crawl__buf b = {0};
  const char *auth = strstr(url, "://"), *end = url + strcspn(url, "?#");
  if (auth && auth < end) {
    auth += 3;
    const char *path = auth + strcspn(auth, "/?#"), *at = NULL;
    for (const char *p = auth; p < path; p++)
      if (*p == '@') at = p;
    crawl__buf_put(&b, url, (size_t)(auth - url));
    if (at) auth = at + 1;
  } else {
    auth = url;
  }
  crawl__buf_put(&b, auth, (size_t)(end - auth));
  if (*end == '?') {
    const char *q = end + 1, *qend = q + strcspn(q, "#");
    int first = 1;
    while (q < qend) {
      size_t len = strcspn(q, "&#"), name = strcspn(q, "=&#");
      if (name > len) name = len;
      if (len) {
        crawl__buf_puts(&b, first ? "?" : "&");
        crawl__buf_put(&b, q, name);
        crawl__buf_puts(&b, "=");
        cJSON *o = crawl__jx(cJSON_CreateObject());
        char *nm = crawl__xstrndup(q, name);
        crawl__jstr(o, "name", nm);
        free(nm);
        crawl__jstr(o, "value", "");
        crawl__jpush(qs, o);
        first = 0;
      }
      q += len + (q[len] == '&');
    }
  }
  const char *hash = strchr(url, '#');
  if (keep_hash && hash && (!strncmp(hash, "#/", 2) || !strncmp(hash, "#!/", 3)))
    crawl__buf_put(&b, hash, strcspn(hash, "?=&;"));
  if (!b.n) crawl__buf_puts(&b, "");
  return crawl__buf_take(&b);
}

/* ---- shapes: types only ---------------------------------------------------------------- */
/* A body shape rebuilt from its names and type words: any leaf that is not
 * a type word becomes "unknown", so no value can pass. */
static cJSON *shape_clean(const cJSON *shape, int depth) {
  if (depth <= CRAWL__API_SHAPE_DEPTH && cJSON_IsObject(shape)) {
    cJSON *o = crawl__jx(cJSON_CreateObject());
    const cJSON *k;
    int n = 0;
    cJSON_ArrayForEach(k, shape) {
      if (n++ >= CRAWL__API_SHAPE_KEYS || !k->string || cJSON_GetObjectItemCaseSensitive(o, k->string)) continue;
      crawl__jset(o, k->string, shape_clean(k, depth + 1));
    }
    return o;
  }
  if (depth <= CRAWL__API_SHAPE_DEPTH && cJSON_IsArray(shape)) {
    cJSON *a = crawl__jx(cJSON_CreateArray());
    if (cJSON_GetArraySize(shape)) crawl__jpush(a, shape_clean(cJSON_GetArrayItem(shape, 0), depth + 1));
    return a;
  }
  const char *t = cJSON_IsString(shape) ? crawl__api_shape_type(shape->valuestring) : NULL;
  return crawl__jx(cJSON_CreateString(t ?: "unknown"));
}

/* _uiap.body: the body's kind and its shape or GraphQL operations, cleaned. */
static cJSON *body_uiap(const cJSON *body) {
  cJSON *o = crawl__jx(cJSON_CreateObject());
  const char *kind = crawl__str(body, "kind");
  crawl__jstr(o, "kind", kind ?: "other");
  if (crawl__get(body, "shape")) crawl__jset(o, "shape", shape_clean(crawl__get(body, "shape"), 0));
  const cJSON *op;
  cJSON *ops = crawl__jx(cJSON_CreateArray());
  cJSON_ArrayForEach(op, crawl__arr(body, "operations")) {
    cJSON *c = crawl__jx(cJSON_CreateObject());
    crawl__jstr(c, "type", crawl__str(op, "type"));
    crawl__jstr(c, "name", crawl__str(op, "name"));
    crawl__jpush(ops, c);
  }
  if (cJSON_GetArraySize(ops)) crawl__jset(o, "operations", ops);
  else cJSON_Delete(ops);
  return o;
}

/* postData of a body: {mimeType, text: ""}; the text is never kept. */
static cJSON *post_data(const cJSON *body) {
  const char *kind = crawl__str(body, "kind"), *media = NULL;
  for (size_t i = 0; kind && i < sizeof body_media / sizeof *body_media; i++)
    if (!strcmp(kind, body_media[i].kind)) media = body_media[i].media;
  const char *ct = crawl__str(body, "contentType");
  char *own = media || !ct ? NULL : crawl__xstrndup(ct, strcspn(ct, "; \t")); /* no parameters (boundary) */
  cJSON *pd = crawl__jx(cJSON_CreateObject());
  crawl__jstr(pd, "mimeType", media ?: own ?: "");
  crawl__jstr(pd, "text", "");
  free(own);
  return pd;
}

/* ---- entries ---------------------------------------------------------------------- */
static cJSON *empty_array(void) { return crawl__jx(cJSON_CreateArray()); }

static void jint(cJSON *o, const char *k, double v) { crawl__jset(o, k, cJSON_CreateNumber(v)); }

/* A number of q (NULL: absent) as a whole count >= 0, else dflt. */
static double count_of(const cJSON *q, const char *k, double dflt) {
  double v = crawl__num(q, k, dflt);
  return v >= 0 && v < 1e15 ? (double)(long long)v : dflt;
}

static cJSON *har_request(const cJSON *q) {
  cJSON *r = crawl__jx(cJSON_CreateObject()), *qs = empty_array();
  crawl__jstr(r, "method", crawl__str(q, "method") ?: "GET");
  char *url = url_scrubbed(crawl__str(q, "url") ?: "", qs, 0);
  crawl__jstr(r, "url", url);
  free(url);
  crawl__jstr(r, "httpVersion", "");
  crawl__jset(r, "cookies", empty_array());
  crawl__jset(r, "headers", empty_array());
  crawl__jset(r, "queryString", qs);
  if (cJSON_IsObject(crawl__get(q, "body"))) crawl__jset(r, "postData", post_data(crawl__get(q, "body")));
  jint(r, "headersSize", -1);
  jint(r, "bodySize", -1);
  return r;
}

static cJSON *har_response(const cJSON *q) {
  cJSON *r = crawl__jx(cJSON_CreateObject()), *content = crawl__jx(cJSON_CreateObject());
  double status = count_of(q, "status", 0);
  jint(r, "status", status <= 999 ? status : 0);
  crawl__jstr(r, "statusText", "");
  crawl__jstr(r, "httpVersion", "");
  crawl__jset(r, "cookies", empty_array());
  crawl__jset(r, "headers", empty_array());
  jint(content, "size", count_of(q, "size", 0));
  crawl__jstr(content, "mimeType", crawl__str(q, "mimeType") ?: "");
  crawl__jset(r, "content", content);
  crawl__jstr(r, "redirectURL", "");
  jint(r, "headersSize", -1);
  jint(r, "bodySize", -1);
  return r;
}

/* _uiap: where the request came from and what the write guard did. */
static cJSON *har_uiap(const cJSON *rec, const cJSON *q) {
  static const char *const from_rec[] = {"phase", "stateId", "transitionId", "actionId", "principal"};
  static const char *const from_req[] = {"resourceType", "initiator", "guard"};
  cJSON *u = crawl__jx(cJSON_CreateObject());
  for (size_t i = 0; i < sizeof from_rec / sizeof *from_rec; i++) crawl__jstr(u, from_rec[i], crawl__str(rec, from_rec[i]));
  if (cJSON_IsTrue(crawl__get(rec, "probed"))) crawl__jset(u, "probed", cJSON_CreateTrue());
  for (size_t i = 0; i < sizeof from_req / sizeof *from_req; i++) crawl__jstr(u, from_req[i], crawl__str(q, from_req[i]));
  if (cJSON_IsObject(crawl__get(q, "body"))) crawl__jset(u, "body", body_uiap(crawl__get(q, "body")));
  return u;
}

/* The entry of request q of record rec, whose phase began at t0 (ms since
 * the epoch). */
static cJSON *har_entry(const cJSON *rec, const cJSON *q, long long t0, const char *pageref) {
  cJSON *e = crawl__jx(cJSON_CreateObject());
  char when[40];
  double ms = count_of(q, "ms", 0);
  if (pageref) crawl__jstr(e, "pageref", pageref);
  crawl__jstr(e, "startedDateTime", format_iso(t0 + (long long)count_of(q, "startMs", 0), when, sizeof when));
  jint(e, "time", ms);
  crawl__jset(e, "request", har_request(q));
  crawl__jset(e, "response", har_response(q));
  crawl__jset(e, "cache", crawl__jx(cJSON_CreateObject()));
  cJSON *t = crawl__jx(cJSON_CreateObject());
  jint(t, "send", 0);
  jint(t, "wait", ms);
  jint(t, "receive", 0);
  crawl__jset(e, "timings", t);
  crawl__jset(e, "_uiap", har_uiap(rec, q));
  return e;
}

/* A page per load record: id "load_<n>", its URL (scrubbed, with its hash route) as title. */
static cJSON *har_page(const cJSON *rec, long long t0, int n, char *id, size_t idlen) {
  cJSON *p = crawl__jx(cJSON_CreateObject()), *ignore = empty_array();
  char when[40];
  snprintf(id, idlen, "load_%d", n);
  crawl__jstr(p, "startedDateTime", format_iso(t0, when, sizeof when));
  crawl__jstr(p, "id", id);
  char *title = url_scrubbed(crawl__str(rec, "url") ?: "", ignore, 1);
  crawl__jstr(p, "title", title);
  free(title);
  cJSON_Delete(ignore);
  crawl__jset(p, "pageTimings", crawl__jx(cJSON_CreateObject()));
  crawl__jstr(p, "_stateId", crawl__str(rec, "stateId"));
  return p;
}

/* ---- the log ----------------------------------------------------------------------- */
/* When a record's phase began: its "at" (written once the phase was over)
 * less the end of its last request (startMs + ms): approximate, but in
 * order. Records without a readable "at" use the run's start. */
static long long phase_start(const cJSON *rec, long long run_start) {
  long long at, span = 0;
  if (!parse_iso(crawl__str(rec, "at"), &at)) return run_start;
  const cJSON *q;
  cJSON_ArrayForEach(q, crawl__arr(rec, "requests")) {
    long long end = (long long)count_of(q, "startMs", 0) + (long long)count_of(q, "ms", 0);
    if (end > span) span = end;
  }
  return at - span >= 0 ? at - span : 0;
}

cJSON *crawl__api_har(const cJSON *const *records, int n, const char *run_id, const char *started_at) {
  cJSON *log = crawl__jx(cJSON_CreateObject()), *pages = empty_array(), *entries = empty_array();
  long long start = 0, off = 0;
  if (!parse_iso(started_at, &start)) start = 0;
  char page[32] = "";
  for (int i = 0; records && i < n; i++) {
    const cJSON *rec = records[i], *q;
    const char *type = crawl__str(rec, "type"), *phase = crawl__str(rec, "phase");
    if (!type || strcmp(type, "requests")) continue;
    long long t0 = phase_start(rec, start);
    if (phase && !strcmp(phase, "load"))
      crawl__jpush(pages, har_page(rec, t0, cJSON_GetArraySize(pages) + 1, page, sizeof page));
    off += (long long)count_of(rec, "offOrigin", 0);
    cJSON_ArrayForEach(q, crawl__arr(rec, "requests")) if (cJSON_IsObject(q))
      crawl__jpush(entries, har_entry(rec, q, t0, page[0] ? page : NULL));
  }
  crawl__jstr(log, "version", "1.2");
  cJSON *creator = crawl__jx(cJSON_CreateObject());
  crawl__jstr(creator, "name", "uiap-crawl");
  crawl__jstr(creator, "version", UIAP_PROJECT_VERSION);
  crawl__jset(log, "creator", creator);
  crawl__jset(log, "pages", pages);
  crawl__jset(log, "entries", entries);
  crawl__jstr(log, "comment",
              "Requests the app's UI made while uiap-crawl explored it. Never recorded: bodies, header values, "
              "cookies, query values (URLs keep query names only).");
  cJSON *u = crawl__jx(cJSON_CreateObject());
  crawl__jstr(u, "runId", run_id);
  jint(u, "offOrigin", (double)off);
  crawl__jset(log, "_uiap", u);
  cJSON *har = crawl__jx(cJSON_CreateObject());
  crawl__jset(har, "log", log);
  return har;
}

/* api_export_int.h -- the exports of the API the UI was seen to use
 * (issue 28, docs/api.md "Exports"): OUT/api.openapi.json, an OpenAPI 3.1.0
 * skeleton built from OUT/api.json (api_openapi.c), and OUT/requests.har,
 * HAR 1.2 built from the journal's `requests` records (api_har.c), written
 * by api_export.c. Neither ever holds a body, a header value, a cookie or a
 * query value: only names, shapes (types) and what the crawler itself
 * measured (status, content type, size, time).
 * Private to crawler/package.
 */
#ifndef UIAP_API_EXPORT_INT_H
#define UIAP_API_EXPORT_INT_H

#include <cjson/cJSON.h>

#include "crawl_journal.h"

/* The OpenAPI 3.1.0 document of api_json (OUT/api.json, format B of
 * docs/api.md): its endpoints except kind "asset". A new object the caller
 * cJSON_Delete's; never NULL (an api_json that is not an object gives a
 * document without paths). Reads api_json only. */
cJSON *crawl__api_openapi(const cJSON *api_json);

/* The HAR 1.2 log of the `requests` records records[0..n-1] (format A, in
 * journal order; other records are skipped), one entry per request.
 * run_id and started_at (the run's start, RFC 3339; the time of an entry
 * whose record has no readable "at") may be NULL. A new object the caller
 * cJSON_Delete's; never NULL. */
cJSON *crawl__api_har(const cJSON *const *records, int n, const char *run_id, const char *started_at);

/* Write DIR/api.openapi.json (when api_json is not NULL) and
 * DIR/requests.har, each atomically (crawl__file_write). 0, or the errno
 * of the first write that failed (the other is still attempted). */
int crawl__api_exports_write(const char *dir, const cJSON *api_json, const cJSON *const *records, int n,
                             const char *run_id, const char *started_at);

/* The HAR of the `requests` records of log (a journal read by
 * crawl__jlog_read), with the run id and start of its `run` record. */
cJSON *crawl__api_har_log(const crawl__jlog *log);
/* Write DIR/api.openapi.json (api_json not NULL) and DIR/requests.har
 * (har not NULL; consumed). 0, or the errno of the first write that failed. */
int crawl__api_exports_put(const char *dir, const cJSON *api_json, cJSON *har);

/* ---- shared by the two (api_export.c) ---- */
/* The JSON Schema type of a shape's leaf word ("string", "number",
 * "integer", "boolean", "null"), or NULL for any other text: a shape is
 * read as types only, so a value that slipped into one never goes out. */
const char *crawl__api_shape_type(const char *word);
/* A shape's deepest nesting and widest object read (more is cut). */
#define CRAWL__API_SHAPE_DEPTH 6
#define CRAWL__API_SHAPE_KEYS  64

#endif

/* api_export.c -- writes the API exports (api_export_int.h): DIR/api.openapi.json
 * (api_openapi.c) and DIR/requests.har (api_har.c); and the one reading of
 * a body shape's leaves both use.
 */
#include "api_export_int.h"
#include "crawl_util.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shape leaf words (format A body.shape) to JSON Schema types. */
static const struct { const char *word, *type; } shape_types[] = {
  {"string", "string"}, {"number", "number"}, {"integer", "integer"}, {"boolean", "boolean"}, {"null", "null"},
};

const char *crawl__api_shape_type(const char *word) {
  for (size_t i = 0; word && i < sizeof shape_types / sizeof *shape_types; i++)
    if (!strcmp(word, shape_types[i].word)) return shape_types[i].type;
  return NULL;
}

/* doc as DIR/name (pretty, a final newline), atomically; 0 or errno. */
static int write_json(const char *dir, const char *name, cJSON *doc) {
  char *text = crawl__jtext(doc, 1);
  cJSON_Delete(doc);
  size_t len = strlen(text);
  text = crawl__xrealloc(text, len + 2);
  text[len++] = '\n';
  text[len] = 0;
  char *path = crawl__xprintf("%s/%s", dir, name);
  int rc = crawl__file_write(path, text, len);
  free(path);
  free(text);
  return rc;
}

int crawl__api_exports_write(const char *dir, const cJSON *api_json, const cJSON *const *records, int n,
                             const char *run_id, const char *started_at) {
  if (!dir) return EINVAL;
  int rc = api_json ? write_json(dir, "api.openapi.json", crawl__api_openapi(api_json)) : 0;
  int rh = write_json(dir, "requests.har", crawl__api_har(records, n, run_id, started_at));
  return rc ? rc : rh;
}

cJSON *crawl__api_har_log(const crawl__jlog *log) {
  size_t n = 0;
  const cJSON **recs = crawl__xmalloc((log ? log->n : 0) * sizeof *recs + 1);
  const char *run_id = NULL, *started = NULL;
  for (size_t i = 0; log && i < log->n; i++) {
    const cJSON *j = log->v[i].json;
    const char *type = crawl__str(j, "type");
    if (!type) continue;
    if (!strcmp(type, "requests")) recs[n++] = j;
    else if (!strcmp(type, "run") && !run_id) {
      run_id = crawl__str(j, "runId");
      started = crawl__str(j, "startedAt");
    }
  }
  cJSON *har = crawl__api_har(recs, n > INT32_MAX ? INT32_MAX : (int)n, run_id, started);
  free(recs);
  return har;
}

int crawl__api_exports_put(const char *dir, const cJSON *api_json, cJSON *har) {
  if (!dir) return cJSON_Delete(har), EINVAL;
  int rc = api_json ? write_json(dir, "api.openapi.json", crawl__api_openapi(api_json)) : 0;
  int rh = har ? write_json(dir, "requests.har", har) : 0;
  return rc ? rc : rh;
}

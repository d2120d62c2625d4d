/* log.c -- the crawler's log sink: library code reports through a callback
 * the CLI installs; nothing is printed here. */
#include "crawl_common.h"
#include "crawl_secrets.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crawl_util.h"

#define CRAWL__LOG_LINE_MAX 1023 /* bytes of a line the sink gets */

static crawl_log_fn sink;
static void *sink_ud;
static crawl_log_level sink_max = CRAWL_LOG_WARN;
static const crawl__secrets *sink_secrets; /* the running crawl's, or NULL */

void crawl__log_secrets(const crawl__secrets *s) { sink_secrets = s; }

static const char *const crawl__errmsgs[] = {
#define CRAWL__MSG(name, msg) msg,
  CRAWL_ERRNO_MAP(CRAWL__MSG)
#undef CRAWL__MSG
};
const char *crawl_strerror(crawl_code c) {
  return (int)c >= 0 && c < CRAWL__ECOUNT ? crawl__errmsgs[c] : "unknown error";
}

void crawl_log_set(crawl_log_fn fn, void *ud, crawl_log_level max) {
  sink = fn;
  sink_ud = ud;
  sink_max = max;
}

int crawl_log_enabled(crawl_log_level lvl) { return sink && lvl <= sink_max; }

/* The line as formatted, whole (caller frees). */
static char *log_format(const char *fmt, va_list ap) {
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(NULL, 0, fmt, again);
  va_end(again);
  if (n < 0) return crawl__xstrdup(fmt);
  char *line = crawl__xmalloc((size_t)n + 1);
  vsnprintf(line, (size_t)n + 1, fmt, ap);
  return line;
}

/* A line is scrubbed whole, then cut to CRAWL__LOG_LINE_MAX bytes (at a
 * character boundary): a secret across the cut is never printed in part. */
void crawl_log(crawl_log_level lvl, const char *component, const char *fmt, ...) {
  if (!sink || lvl > sink_max) return; /* test before formatting */
  va_list ap;
  va_start(ap, fmt);
  char *line = log_format(fmt, ap);
  va_end(ap);
  if (crawl__secrets_count(sink_secrets) || crawl__secrets_filtered(sink_secrets)) {
    char *clean = crawl__secrets_scrub(sink_secrets, line, NULL);
    free(line);
    line = clean;
  }
  size_t n = strlen(line);
  if (n > CRAWL__LOG_LINE_MAX) {
    n = CRAWL__LOG_LINE_MAX;
    while (n && ((unsigned char)line[n] & 0xC0) == 0x80) n--;
    line[n] = 0;
  }
  sink(sink_ud, lvl, component, line);
  free(line);
}

/* log.c -- the crawler's log sink: library code reports through a callback
 * the CLI installs; nothing is printed here. */
#include "crawl_common.h"
#include "crawl_secrets.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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

void crawl_log(crawl_log_level lvl, const char *component, const char *fmt, ...) {
  if (!sink || lvl > sink_max) return; /* test before formatting */
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (!crawl__secrets_count(sink_secrets) && !crawl__secrets_filtered(sink_secrets)) {
    sink(sink_ud, lvl, component, buf);
    return;
  }
  char *clean = crawl__secrets_scrub(sink_secrets, buf, NULL);
  sink(sink_ud, lvl, component, clean);
  free(clean);
}

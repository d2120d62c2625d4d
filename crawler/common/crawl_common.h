/* crawl_common.h -- what every crawler library shares in its public API:
 * the log sink (library code never prints; the CLI installs a callback) and
 * the crawler's error codes. Included by crawl.h, crawl_pkg.h, crawl_serve.h.
 */
#ifndef UIAP_CRAWL_COMMON_H
#define UIAP_CRAWL_COMMON_H

#include <stddef.h>

/* ---- logging ------------------------------------------------------------ */
typedef enum { CRAWL_LOG_ERROR, CRAWL_LOG_WARN, CRAWL_LOG_INFO, CRAWL_LOG_DEBUG } crawl_log_level;
typedef void (*crawl_log_fn)(void *ud, crawl_log_level lvl, const char *component, const char *msg);
void crawl_log_set(crawl_log_fn fn, void *ud, crawl_log_level max);
void crawl_log(crawl_log_level lvl, const char *component, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));

/* ---- errors --------------------------------------------------------------- */
#define CRAWL_ERRNO_MAP(X)                                         \
  X(OK,        "ok")                                                \
  X(NOMEM,     "out of memory")                                     \
  X(ARG,       "invalid argument")                                  \
  X(BROWSER,   "browser error")                                     \
  X(NAVIGATE,  "navigation failed")                                 \
  X(TIMEOUT,   "timed out")                                         \
  X(CRASHED,   "the page crashed")                                  \
  X(CANCELLED, "cancelled")                                         \
  X(CAPTURE,   "capture failed")                                    \
  X(IO,        "file error")                                          \
  X(GUARD,     "the write guard could not be installed")            \
  X(FRONTIER,  "the shared frontier failed")
typedef enum {
#define CRAWL__ENUM(name, msg) CRAWL_##name,
  CRAWL_ERRNO_MAP(CRAWL__ENUM)
#undef CRAWL__ENUM
  CRAWL__ECOUNT
} crawl_code;
const char *crawl_strerror(crawl_code c);

#endif

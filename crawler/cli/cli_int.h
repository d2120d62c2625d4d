/* cli_int.h -- helpers the command-line front end shares (main.c,
 * cli_extra.c, cli_observe.c): the one-line error and the log sink on
 * stderr, option values, reading a file to its end. Static inline, so the
 * executable's source list stays as it is; never included by the library
 * or outside crawler/. */
#ifndef UIAP_CLI_INT_H
#define UIAP_CLI_INT_H

#include "crawl.h"
#include "crawl_serve.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "uiap-crawl: <message>" on stderr; returns code (the exit code). */
static inline int cli_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int cli_fail(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("uiap-crawl: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return code;
}

/* The library's log lines on stderr: "uiap-crawl: LEVEL: COMPONENT: MESSAGE". */
static inline void cli_log_sink(void *ud, crawl_log_level lvl, const char *component, const char *msg) {
  static const char *const names[] = {"error", "warning", "info", "debug"};
  (void)ud;
  fprintf(stderr, "uiap-crawl: %s: %s: %s\n", names[lvl], component, msg);
}

/* cli_log_sink installed for verbosity 0 (quiet: errors only), 1 (warnings,
 * the default), 2 (--verbose: info) or 3 and up (debug). */
static inline void cli_log_setup(int verbosity) {
  crawl_log_set(cli_log_sink, NULL, verbosity <= 0 ? CRAWL_LOG_ERROR : (crawl_log_level)verbosity);
}

/* A whole decimal number in min..max: 0 and *out, or -1 (*out untouched). */
static inline int cli_parse_long(const char *s, long min, long max, long *out) {
  if (!s || !*s) return -1;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || v < min || v > max) return -1;
  *out = v;
  return 0;
}

/* --viewport WxH, each 100..10000: 0 with *w and *h set, or the usage exit
 * code (2) after the error line. */
static inline int cli_viewport_arg(const char *v, int *w, int *h) {
  int x, y;
  char extra;
  if (sscanf(v, "%dx%d%c", &x, &y, &extra) != 2 || x < 100 || y < 100 || x > 10000 || y > 10000)
    return cli_fail(2, "--viewport takes WxH (100..10000), not %s", v);
  *w = x;
  *h = y;
  return 0;
}

/* f read to its end into *text (caller frees; room for a NUL at (*len), not
 * written) and *len, stopping once more than stop_after bytes are in. 0, or
 * -1 when memory ran out: *text then holds what was read until then (NULL
 * when nothing was). An empty file leaves *text NULL. */
static inline int cli_read_all(FILE *f, size_t stop_after, char **text, size_t *len) {
  char *t = NULL;
  size_t n = 0, cap = 0, k;
  char buf[65536];
  int rc = 0;
  while ((k = fread(buf, 1, sizeof buf, f)) > 0) {
    if (n + k + 1 > cap) {
      char *q = realloc(t, cap = (n + k + 1) * 2);
      if (!q) {
        rc = -1;
        break;
      }
      t = q;
    }
    memcpy(t + n, buf, k);
    n += k;
    if (n > stop_after) break;
  }
  *text = t;
  *len = n;
  return rc;
}

#endif

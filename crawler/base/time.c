/* time.c -- the project's clock (crawl_base.h): RFC 3339 timestamps for
 * journals and envelopes, and a monotonic millisecond clock for durations. */
#include <stdio.h>
#include <time.h>

#include "crawl_base.h"

char *crawl__time_iso(char *buf, size_t n) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  char base[32];
  strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(buf, n, "%s.%03ldZ", base, ts.tv_nsec / 1000000);
  return buf;
}

long long crawl__time_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

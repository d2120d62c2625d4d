/* timing.c -- phase timings of a crawl (timing.h). */
#include "timing.h"
#include "crawl_util.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const phase_names[] = {
#define CRAWL__PHN(name, str) str,
  CRAWL_PHASES(CRAWL__PHN)
#undef CRAWL__PHN
};

void crawl__timing_add(crawl_timing *t, crawl_phase ph, long long ms) {
  if (ms < 0) ms = 0;
  t->ph[ph].total_ms += ms;
  t->ph[ph].count++;
  if (t->ph[ph].n == CRAWL_TIMING_SAMPLES) return;
  if (t->ph[ph].n == t->ph[ph].cap) {
    t->ph[ph].cap = t->ph[ph].cap ? t->ph[ph].cap * 2 : 64;
    t->ph[ph].ms = crawl__xrealloc(t->ph[ph].ms, t->ph[ph].cap * sizeof *t->ph[ph].ms);
  }
  t->ph[ph].ms[t->ph[ph].n++] = ms > 1000000000 ? 1000000000 : (int)ms;
}

static int by_value(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

long long crawl__timing_median(crawl_timing *t, crawl_phase ph) {
  size_t n = t->ph[ph].n;
  if (!n) return -1;
  qsort(t->ph[ph].ms, n, sizeof *t->ph[ph].ms, by_value);
  return n % 2 ? t->ph[ph].ms[n / 2] : ((long long)t->ph[ph].ms[n / 2 - 1] + t->ph[ph].ms[n / 2]) / 2;
}

void crawl__timing_format(crawl_timing *t, long actions, char *buf, size_t cap) {
  size_t off = 0;
  buf[0] = 0;
  for (int ph = 0; ph < CRAWL_PH__COUNT && off < cap; ph++) {
    long long m = crawl__timing_median(t, (crawl_phase)ph);
    if (m < 0) continue;
    int w = snprintf(buf + off, cap - off, "%s%s %lld ms", off ? ", " : "", phase_names[ph], m);
    off += w > 0 ? (size_t)w : 0;
  }
  if (off < cap)
    snprintf(buf + off, cap - off, " (medians; %ld action%s, %lld restores)", actions, actions == 1 ? "" : "s",
             t->ph[CRAWL_PH_RESTORE].count);
}

cJSON *crawl__timing_json(crawl_timing *t) {
  cJSON *o = cJSON_CreateObject();
  for (int ph = 0; ph < CRAWL_PH__COUNT; ph++) {
    cJSON *p = cJSON_AddObjectToObject(o, phase_names[ph]);
    cJSON_AddNumberToObject(p, "count", (double)t->ph[ph].count);
    cJSON_AddNumberToObject(p, "medianMs", (double)crawl__timing_median(t, (crawl_phase)ph));
    cJSON_AddNumberToObject(p, "totalMs", (double)t->ph[ph].total_ms);
  }
  return o;
}

void crawl__timing_release(crawl_timing *t) {
  for (int ph = 0; ph < CRAWL_PH__COUNT; ph++) free(t->ph[ph].ms);
  *t = (crawl_timing){0};
}

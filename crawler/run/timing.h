/* timing.h -- where a crawl's time goes, by phase of an action: the click
 * or key (act), settling, the capture, the fingerprint, and bringing the
 * page back to a state before the next action (restore: a walk over known
 * edges or a reload and replay, each as a whole). Samples in ms;
 * medians and totals for `crawl --verbose` and the journal's "end" record. */
#ifndef CRAWL_TIMING_H
#define CRAWL_TIMING_H

#include <cJSON.h>
#include <stddef.h>

#define CRAWL_PHASES(X) X(ACT, "act") X(SETTLE, "settle") X(CAPTURE, "capture") \
  X(FINGERPRINT, "fingerprint") X(RESTORE, "restore")

typedef enum {
#define CRAWL__PHE(name, str) CRAWL_PH_##name,
  CRAWL_PHASES(CRAWL__PHE)
#undef CRAWL__PHE
  CRAWL_PH__COUNT
} crawl_phase;

typedef struct crawl_timing {
  struct {
    int *ms;                  /* samples, at most CRAWL_TIMING_SAMPLES kept */
    size_t n, cap;
    long long total_ms, count;
  } ph[CRAWL_PH__COUNT];
} crawl_timing;

#define CRAWL_TIMING_SAMPLES 100000

void crawl__timing_add(crawl_timing *t, crawl_phase ph, long long ms);
/* The median of a phase's samples, -1 when there are none. */
long long crawl__timing_median(crawl_timing *t, crawl_phase ph);
/* "act 12 ms, settle 210 ms, ... (median per action over N actions)" */
void crawl__timing_format(crawl_timing *t, long actions, char *buf, size_t cap);
/* {"act": {"count", "medianMs", "totalMs"}, ...} */
cJSON *crawl__timing_json(crawl_timing *t);
void crawl__timing_release(crawl_timing *t);

#endif

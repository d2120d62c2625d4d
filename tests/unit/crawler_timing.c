/* crawler_timing.c -- the phase timings `crawl --verbose` prints and the
 * journal's "end" record holds (crawler/run/timing.h). */
#include <criterion/criterion.h>
#include <string.h>

#include "timing.h"

Test(timing, medians_totals_and_the_line) {
  crawl_timing t = {0};
  cr_expect_eq(crawl__timing_median(&t, CRAWL_PH_SETTLE), -1, "no samples: no median");
  static const int settle[] = {250, 200, 900, 210};
  for (size_t i = 0; i < 4; i++) crawl__timing_add(&t, CRAWL_PH_SETTLE, settle[i]);
  crawl__timing_add(&t, CRAWL_PH_ACT, 40);
  crawl__timing_add(&t, CRAWL_PH_ACT, -5); /* a clock step back counts as 0 */
  crawl__timing_add(&t, CRAWL_PH_ACT, 20);
  cr_expect_eq(crawl__timing_median(&t, CRAWL_PH_SETTLE), 230, "even count: the mean of the middle two");
  cr_expect_eq(crawl__timing_median(&t, CRAWL_PH_ACT), 20);
  char line[256];
  crawl__timing_format(&t, 3, line, sizeof line);
  cr_expect_str_eq(line, "act 20 ms, settle 230 ms (medians; 3 actions, 0 restores)");
  cJSON *j = crawl__timing_json(&t);
  cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "settle"), "totalMs")->valuedouble, 1560);
  cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "restore"), "medianMs")->valuedouble, -1);
  cJSON_Delete(j);
  char tiny[8];
  crawl__timing_format(&t, 3, tiny, sizeof tiny);
  cr_expect_eq(strlen(tiny), 7, "a short buffer is cut, not overrun");
  crawl__timing_release(&t);
  cr_expect_eq(t.ph[CRAWL_PH_ACT].count, 0);
}

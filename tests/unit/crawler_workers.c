/* crawler_workers.c -- crawl_workers_run (crawler/run/workers.c), the
 * library behind `crawl --workers N`, as a program embedding the crawler
 * calls it: what it refuses, and how it reports workers that fail. The
 * workers here are /bin/sh, so no browser runs; the run's private
 * redis-server is real (the library starts and stops it). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crawl.h"

static char *scratch(void) {
  char tmpl[] = "/tmp/uiap-workers-XXXXXX";
  cr_assert_not_null(mkdtemp(tmpl));
  return strdup(tmpl);
}

Test(workers, refuses_what_it_cannot_run) {
  const char *argv[] = {"sh", "-c", "exit 0", NULL};
  crawl_workers_opts o = {.n = 0, .out = "/tmp", .exe = "/bin/sh", .argv = argv, .run_id = "r"};
  crawl_summary sum;
  crawl_workers_result res;
  cr_expect_eq(crawl_workers_run(&o, &sum, &res), CRAWL_ARG, "no workers");
  cr_expect(strstr(sum.error, "1 to"), "the reason names the range: %s", sum.error);
  o.n = CRAWL_WORKERS_MAX + 1;
  cr_expect_eq(crawl_workers_run(&o, &sum, &res), CRAWL_ARG, "too many workers");
  o.n = 1;
  o.exe = NULL;
  cr_expect_eq(crawl_workers_run(&o, &sum, &res), CRAWL_ARG, "no program");
}

/* Every worker fails: the run fails as the first did, with the last line
 * of its log (its own error line), and nothing is merged from nothing. */
Test(workers, every_worker_failing_fails_the_run_with_its_line, .timeout = 60) {
  char *out = scratch();
  const char *argv[] = {"sh", "-c", "echo 'uiap-crawl: the app is gone' >&2; exit 4", NULL};
  crawl_workers_opts o = {.n = 2, .out = out, .exe = "/bin/sh", .argv = argv, .run_id = "run-unit", .killed = 70};
  crawl_summary sum;
  crawl_workers_result res;
  crawl_code rc = crawl_workers_run(&o, &sum, &res);
  cr_expect_neq(rc, CRAWL_OK, "no worker wrote a journal: nothing to merge");
  cr_expect_eq(res.failed, 2, "both workers failed");
  cr_expect_eq(res.code, 4, "the run fails as the workers did");
  cr_expect_str_eq(res.worker[0].why, "the app is gone");
  cr_expect_eq(res.worker[1].code, 4);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
  cr_expect_eq(system(cmd), 0);
  free(out);
}

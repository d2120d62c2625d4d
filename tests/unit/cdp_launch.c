/* cdp_launch.c -- cdp_launch and cdp_client_free against a real headless
 * Chromium: the launched browser (owned by its transport, launch.c) is up
 * while the client lives, and on free its processes are gone, it is reaped
 * and its temporary profile removed. Also a "browser" that exits at once:
 * the failed launch leaves nothing behind either. */
#include <criterion/criterion.h>

#include "cdp.h"
#include "support.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHROMIUM "/usr/bin/chromium"

/* Each test runs in its own process: TMPDIR, where cdp_launch puts the
 * profile, is a fresh directory of the test's. SIGPIPE is ignored as the CLI
 * does (crawler/main.c): the pipe transport writes to a browser that may
 * have exited already. */
static char *tmp;

static void tmp_make(void) {
  tmp = t_tmpdir();
  cr_assert_not_null(tmp);
  setenv("TMPDIR", tmp, 1);
  signal(SIGPIPE, SIG_IGN);
}

static void tmp_remove(void) {
  if (!tmp) return;
  t_rm_rf(tmp);
  free(tmp);
  tmp = NULL;
}

TestSuite(cdp_launch, .init = tmp_make, .fini = tmp_remove, .timeout = 120);

/* 1 when no process names tmp in its command line within ms. */
static int gone_within(int ms) {
  for (int i = 0; i <= ms / 50; i++) {
    if (t_count_procs(tmp) == 0) return 1;
    usleep(50000);
  }
  return 0;
}

Test(cdp_launch, free_kills_reaps_and_removes_the_profile) {
  cdp_launch_opts o = {.chromium = CHROMIUM};
  cdp_client *c = NULL;
  char err[512] = "";
  cdp_code rc = cdp_launch(&o, &c, err, sizeof err);
  cr_assert_eq(rc, CDP_OK, "cdp_launch: %s: %s", cdp_strerror(rc), err);
  pid_t pid = cdp_client_pid(c);
  const char *profile = cdp_client_profile(c);
  cr_assert_gt(pid, 0, "a launched browser has a pid");
  cr_assert_not_null(profile);
  cr_expect_eq(strncmp(profile, tmp, strlen(tmp)), 0, "the profile %s is under TMPDIR", profile);
  cr_expect_eq(access(profile, F_OK), 0, "the profile exists while the client lives");
  cr_expect_gt(t_count_procs(tmp), 0, "Chromium runs with the profile");
  cJSON *res = NULL;
  rc = cdp_call(c, NULL, "Browser.getVersion", NULL, &res, 10000);
  cr_expect_eq(rc, CDP_OK, "%s", cdp_client_errmsg(c));
  cJSON_Delete(res);

  cdp_client_free(c);
  errno = 0;
  cr_expect(waitpid(pid, NULL, WNOHANG) < 0 && errno == ECHILD, "the browser is reaped");
  cr_expect(gone_within(3000), "no Chromium process is left (%d)", t_count_procs(tmp));
  cr_expect_eq(t_dir_entries(tmp), 0, "the temporary profile is removed");
}

Test(cdp_launch, a_browser_that_exits_leaves_nothing) {
  cdp_launch_opts o = {.chromium = "/bin/true", .timeout_ms = 5000};
  cdp_client *c = NULL;
  char err[512] = "";
  cdp_code rc = cdp_launch(&o, &c, err, sizeof err);
  cr_expect_eq(rc, CDP_LAUNCH, "%s", cdp_strerror(rc));
  cr_expect_null(c);
  cr_expect(strstr(err, "did not start"), "the reason: %s", err);
  errno = 0;
  cr_expect(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "no child left unreaped");
  cr_expect_eq(t_dir_entries(tmp), 0, "the temporary profile is removed");
}

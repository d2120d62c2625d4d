/* reliability.c -- end-to-end: a crawl survives Chromium being killed, the
 * crawler being SIGKILLed (then --resume), and SIGINT; each time the package
 * is valid and nothing recorded is lost or duplicated. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crawl.h"
#include "spa_model.h"
#include "support.h"

static pid_t start_crawl(const char *tmp, const char *out, const char *extra) {
  /* the fixture server runs in this process: resolve the URL before fork */
  const char *url = t_fixture_url(0, NULL, "/spa/index.html");
  pid_t pid = fork();
  if (pid == 0) {
    setenv("TMPDIR", tmp, 1);
    freopen("/dev/null", "w", stdout);
    freopen("/dev/null", "w", stderr);
    if (extra)
      execl(UIAP_BIN, UIAP_BIN, "crawl", "--resume", out, (char *)NULL);
    else
      execl(UIAP_BIN, UIAP_BIN, "crawl", url, "-o", out, (char *)NULL);
    _exit(127);
  }
  return pid;
}

static cJSON *package_of(const char *out) {
  char path[800];
  snprintf(path, sizeof path, "%s/package.json", out);
  return t_package_read(path);
}

/* no (from, action, target) executed twice */
static int duplicate_transitions(const char *out) {
  char path[700];
  snprintf(path, sizeof path, "%s/journal.jsonl", out);
  char *text = t_read_file(path, NULL);
  int dups = 0;
  char *keys[4096];
  int nk = 0;
  for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
    nl = strchr(line, '\n');
    if (nl) *nl = 0;
    cJSON *j = cJSON_Parse(line);
    if (j && !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(j, "type")) ?: "", "transition")) {
      const cJSON *t = cJSON_GetObjectItem(j, "target");
      char key[1024];
      snprintf(key, sizeof key, "%s|%s|%s|%s|%d", cJSON_GetStringValue(cJSON_GetObjectItem(j, "fromStateId")),
               cJSON_GetStringValue(cJSON_GetObjectItem(j, "viaActionId")),
               cJSON_GetStringValue(cJSON_GetObjectItem(t, "role")), cJSON_GetStringValue(cJSON_GetObjectItem(t, "name")),
               cJSON_GetObjectItem(t, "ordinal") ? cJSON_GetObjectItem(t, "ordinal")->valueint : 0);
      for (int k = 0; k < nk; k++) dups += !strcmp(keys[k], key);
      if (nk < 4096) keys[nk++] = strdup(key);
    }
    cJSON_Delete(j);
  }
  for (int k = 0; k < nk; k++) free(keys[k]);
  free(text);
  return dups;
}

static void expect_complete(const char *out) {
  int want_states, want_transitions;
  model_counts(&want_states, &want_transitions);
  cJSON *p = package_of(out);
  cr_assert(p, "a package was written");
  const cJSON *tg = cJSON_GetObjectItem(p, "transitionGraph");
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(tg, "states")), want_states);
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(tg, "edges")), want_transitions);
  cr_expect_eq(duplicate_transitions(out), 0, "no action recorded twice");
  cJSON_Delete(p);
}

static void cleanup(char *tmp, char *dir) {
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", tmp, dir);
  (void)!system(cmd);
  free(tmp);
  free(dir);
}

Test(reliability, chromium_killed_mid_crawl, .timeout = 240) {
  char *tmp = t_tmpdir(), *dir = t_tmpdir();
  char out[700];
  snprintf(out, sizeof out, "%s/out", dir);
  pid_t pid = start_crawl(tmp, out, NULL);
  for (int i = 0; i < 200 && t_journal_lines(out, "state") < 4; i++) usleep(100000);
  cr_assert_geq(t_journal_lines(out, "state"), 4, "the crawl got going");
  char cmd[800];
  snprintf(cmd, sizeof cmd, "pkill -9 -f -- '--user-data-dir=%s'", tmp);
  (void)!system(cmd);
  int st = 0;
  cr_assert(t_wait_exit(pid, 200000, &st), "the crawl finished");
  cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit %d", WEXITSTATUS(st));
  char path[800];
  snprintf(path, sizeof path, "%s/journal.jsonl", out);
  char *j = t_read_file(path, NULL);
  cr_expect(j && strstr(j, "the browser died"), "the restart is in the run notes");
  free(j);
  expect_complete(out);
  cr_expect_eq(t_count_procs(tmp), 0, "no Chromium left");
  cleanup(tmp, dir);
}

Test(reliability, sigkill_then_resume, .timeout = 240) {
  char *tmp = t_tmpdir(), *dir = t_tmpdir();
  char out[700];
  snprintf(out, sizeof out, "%s/out", dir);
  pid_t pid = start_crawl(tmp, out, NULL);
  for (int i = 0; i < 200 && t_journal_lines(out, "state") < 6; i++) usleep(100000);
  cr_assert_geq(t_journal_lines(out, "state"), 6, "the crawl got going");
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  int before = t_journal_lines(out, "state");
  pid = start_crawl(tmp, out, "resume");
  int st = 0;
  cr_assert(t_wait_exit(pid, 200000, &st), "the resumed crawl finished");
  cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit %d", WEXITSTATUS(st));
  cr_expect_geq(t_journal_lines(out, "state"), before, "no recorded state lost");
  expect_complete(out);
  cleanup(tmp, dir);
}

Test(reliability, sigint_finalizes, .timeout = 120) {
  char *tmp = t_tmpdir(), *dir = t_tmpdir();
  char out[700];
  snprintf(out, sizeof out, "%s/out", dir);
  pid_t pid = start_crawl(tmp, out, NULL);
  for (int i = 0; i < 200 && t_journal_lines(out, "state") < 3; i++) usleep(100000);
  kill(pid, SIGINT);
  int st = 0;
  cr_assert(t_wait_exit(pid, 5000, &st), "stopped within 5 s of SIGINT");
  cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 130, "exit 130");
  cJSON *p = package_of(out);
  cr_assert(p, "a package was written");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(p, "run"), "status")), "cancelled");
  cJSON_Delete(p);
  for (int i = 0; i < 60 && t_count_procs(tmp); i++) usleep(50000);
  cr_expect_eq(t_count_procs(tmp), 0, "no Chromium left");
  cr_expect_eq(t_dir_entries(tmp), 0, "temporary profile removed");
  cleanup(tmp, dir);
}

/* Issue 25 item 9, the launched browser: Chromium killed mid-crawl, and the
 * new one the run starts does not come up (a --chromium that starts once).
 * The run used to free the dead browser's client twice (exit 134 or a
 * SIGSEGV). Exit 3, a last line that says the restart failed, and a valid
 * package of the states found before. */
Test(reliability, chromium_killed_and_not_restarted, .timeout = 240) {
  char *tmp = t_tmpdir(), *dir = t_tmpdir();
  char out[700], wrap[700], errpath[700];
  snprintf(out, sizeof out, "%s/out", dir);
  snprintf(wrap, sizeof wrap, "%s/chromium-once", dir);
  snprintf(errpath, sizeof errpath, "%s/stderr", dir);
  const char *bin = getenv("UIAP_CHROMIUM") && *getenv("UIAP_CHROMIUM") ? getenv("UIAP_CHROMIUM") : "chromium";
  FILE *f = fopen(wrap, "w");
  cr_assert(f);
  fprintf(f, "#!/bin/sh\n[ -e '%s/launched' ] && exit 1\n: > '%s/launched'\nexec '%s' \"$@\"\n", dir, dir, bin);
  fclose(f);
  chmod(wrap, 0755);
  const char *url = t_fixture_url(0, NULL, "/spa/index.html");
  pid_t pid = fork();
  if (pid == 0) {
    setenv("TMPDIR", tmp, 1);
    freopen("/dev/null", "w", stdout);
    freopen(errpath, "w", stderr);
    execl(UIAP_BIN, UIAP_BIN, "crawl", url, "--chromium", wrap, "-o", out, (char *)NULL);
    _exit(127);
  }
  for (int i = 0; i < 200 && t_journal_lines(out, "state") < 4; i++) usleep(100000);
  cr_assert_geq(t_journal_lines(out, "state"), 4, "the crawl got going");
  char cmd[800];
  snprintf(cmd, sizeof cmd, "pkill -9 -f -- '--user-data-dir=%s'", tmp);
  (void)!system(cmd);
  int st = 0;
  cr_assert(t_wait_exit(pid, 200000, &st), "the crawl finished");
  char *err = t_read_file(errpath, NULL);
  cr_assert(err);
  cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 3, "exit 3, the browser could not be restarted (status %d): %s", st,
            err);
  size_t n = strlen(err);
  while (n && err[n - 1] == '\n') err[--n] = 0;
  const char *last = strrchr(err, '\n') ? strrchr(err, '\n') + 1 : err;
  cr_expect(!strncmp(last, "uiap-crawl: ", 12) && strstr(last, "restarting the browser failed"),
            "the last line says why the run stopped: %s", err);
  free(err);
  cJSON *p = package_of(out);
  cr_assert(p, "the package of what was found is written");
  cr_expect_geq(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(p, "transitionGraph"), "states")), 4);
  cJSON_Delete(p);
  cr_expect_eq(t_count_procs(tmp), 0, "no Chromium left");
  cleanup(tmp, dir);
}

/* outdir.c -- the output directory of a run: which files a run owns there
 * (crawl_out_clear removes only those, for --force), making it ready for a
 * new run or a resumed one (crawl_out_prepare), and removing a directory a
 * run made (crawl_out_remove). What goes into it is the run's and the
 * package builder's. */
#include "crawl.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a run writes into its directory: its journal, states, screenshots,
 * package and reports, the access probe, the reviewer's decisions it keeps,
 * the workers' directories, the endpoint catalog (api.json) and its exports. */
static const char *const ours[] = {"journal.jsonl", "package.json", "states", "screenshots", "accessibility",
                                   "report.html", "graph.dot", "review.sarif", "junit.xml", "access.json",
                                   "reviewed.json", "workers",
                                   "api.json", "api.openapi.json", "requests.har"};

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)ftw;
  return (flag == FTW_DP ? rmdir(path) : unlink(path)) == 0 ? 0 : -1;
}

int crawl_out_remove(const char *path) {
  if (!path[0] || !path[strspn(path, "/")]) return -1;
  return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

int crawl_out_clear(const char *dir) {
  char path[8300];
  for (size_t i = 0; i < sizeof ours / sizeof *ours; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, ours[i]);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode) ? crawl_out_remove(path) != 0 : unlink(path) != 0) return -1;
  }
  return 0;
}

crawl_code crawl_out_prepare(const char *dir, int resume, int force, int *made, char *err, size_t errlen) {
  struct stat st;
  char jp[8300];
  *made = 0;
  snprintf(jp, sizeof jp, "%s/journal.jsonl", dir);
  if (stat(jp, &st) == 0 && !resume) {
    if (!force) {
      snprintf(err, errlen, "%s holds another run (journal.jsonl); pass --force to replace it", dir);
      return CRAWL_IO;
    }
    if (crawl_out_clear(dir) != 0) {
      snprintf(err, errlen, "cannot clear %s", dir);
      return CRAWL_IO;
    }
  }
  *made = mkdir(dir, 0755) == 0;
  if (!*made && errno != EEXIST) {
    snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
    return CRAWL_IO;
  }
  if (access(dir, W_OK) != 0) {
    snprintf(err, errlen, "cannot write to %s: %s", dir, strerror(errno));
    return CRAWL_IO;
  }
  return CRAWL_OK;
}

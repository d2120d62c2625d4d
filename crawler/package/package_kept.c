/* package_kept.c -- a package kept for the reports (crawl_package,
 * crawl_pkg.h): made from the text crawl_package_make has just written, or
 * opened from DIR/package.json (or a package file); the package frozen
 * (crawl__jarena_parse: a third of a cJSON tree's memory). The journal's
 * decision records the reports show are not kept: 4,620 frozen records of a
 * 1,000-state run cost 4 MB of peak, more than the reports' own filtered
 * read of them (report.c rp_decisions). It owns making, opening
 * and freeing one; what the reports, the gate line and the review count do
 * with it is report.c, what the build puts in it is package.c.
 */
#include "pkg_int.h"

crawl_package *pk_kept_new(const char *dir) {
  crawl_package *k = crawl__xcalloc(1, sizeof *k);
  k->dir = crawl__xstrdup(dir);
  return k;
}

const cJSON *pk_kept_parse(crawl_package *k, const char *text, size_t len) {
  k->pkg = crawl__jarena_parse(&k->jar, text, len);
  if (!k->pkg) { /* what the arena parser leaves to cJSON */
    cJSON *t = cJSON_ParseWithLength(text, len);
    k->pkg = crawl__jfreeze(&k->jar, t);
    cJSON_Delete(t);
  }
  return k->pkg;
}

/* path: a package file; dir: the crawl directory it belongs to, or NULL. */
static crawl_code kept_open(const char *dir, const char *path, crawl_package **pkg, char *err, size_t errlen) {
  size_t len;
  int e;
  char *text = crawl__file_read(path, CRAWL__FILE_MAX, &len, &e);
  crawl_package *k = pk_kept_new(dir);
  k->pkg = text ? crawl__jarena_parse(&k->jar, text, len) : NULL;
  free(text);
  if (!k->pkg) { /* cJSON's reading, for the error's place */
    cJSON *parsed = crawl__json_load(path, err, errlen);
    k->pkg = crawl__jfreeze(&k->jar, parsed);
    cJSON_Delete(parsed);
  }
  if (!k->pkg) {
    crawl_package_free(k);
    return CRAWL_IO;
  }
  *pkg = k;
  return CRAWL_OK;
}

crawl_code crawl_package_open(const char *dir, crawl_package **pkg, char *err, size_t errlen) {
  char dummy[8];
  if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
  err[0] = 0;
  if (pkg) *pkg = NULL;
  if (!dir || !pkg) {
    snprintf(err, errlen, "crawl_package_open: dir and pkg are required");
    return CRAWL_ARG;
  }
  char *path = crawl__xprintf("%s/package.json", dir);
  crawl_code rc = kept_open(dir, path, pkg, err, errlen);
  free(path);
  return rc;
}

/* A directory's package.json, or a package file (crawl__package_load's rule). */
crawl_code pk_kept_load(const char *path, crawl_package **pkg, char *err, size_t errlen) {
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return crawl_package_open(path, pkg, err, errlen);
  return kept_open(NULL, path, pkg, err, errlen);
}

const cJSON *crawl_package_json(const crawl_package *pkg) { return pkg ? pkg->pkg : NULL; }

void crawl_package_free(crawl_package *pkg) {
  if (!pkg) return;
  crawl__jarena_release(&pkg->jar);
  free(pkg->dir);
  free(pkg);
}

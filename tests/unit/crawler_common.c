/* crawler_common.c -- the shared modules of crawler/common: the journal
 * (its one set of reading rules: torn tail, malformed lines, unknown types,
 * type filters; appending after a crash), the string map, the envelope, and
 * the one atomic file write (no temp file another user can plant or link). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crawl_journal.h"
#include "crawl_strmap.h"
#include "crawl_util.h"

static char dir[64];

static void mkscratch(void) {
  snprintf(dir, sizeof dir, "/tmp/uiap-common-XXXXXX");
  cr_assert(mkdtemp(dir));
}
static void rmscratch(void) {
  char p[128];
  snprintf(p, sizeof p, "%s/journal.jsonl", dir);
  unlink(p);
  rmdir(dir);
}

static void put_file(const char *text) {
  char p[128];
  snprintf(p, sizeof p, "%s/journal.jsonl", dir);
  FILE *f = fopen(p, "w");
  cr_assert(f);
  fputs(text, f);
  fclose(f);
}

typedef struct { int n; char types[16][16]; } seen;
static int collect(void *ud, const char *type, cJSON *rec) {
  seen *s = ud;
  (void)rec;
  if (s->n < 16) snprintf(s->types[s->n++], 16, "%s", type);
  return 0;
}

TestSuite(journal, .init = mkscratch, .fini = rmscratch);

Test(journal, one_set_of_rules_for_every_reader) {
  put_file("{\"type\":\"run\",\"at\":\"x\",\"runId\":\"r1\"}\n"
           "\n"
           "not json at all\n"
           "{\"type\":\"state\",\"at\":\"x\"} trailing\n"
           "{\"type\":\"fromTheFuture\",\"at\":\"x\"}\n"
           "[1,2]\n"
           "  {\"at\":\"x\",\"type\":\"decision\"}\n"
           "{\"type\":\"end\",\"at\":\"x\",\"sta");
  seen s = {0};
  crawl__journal_stats st;
  char err[256];
  cr_assert_eq(crawl__journal_read(dir, NULL, collect, &s, &st, err, sizeof err), CRAWL_OK);
  cr_assert_eq(s.n, 2, "run and the decision whose type is not first; got %d", s.n);
  cr_assert_str_eq(s.types[0], "run");
  cr_assert_str_eq(s.types[1], "decision");
  cr_assert_eq(st.malformed, 3, "garbage, trailing text and a JSON array: %ld", st.malformed);
  cr_assert_eq(st.unknown, 1);
  cr_assert_eq(st.torn, 1, "the cut-off end line");
}

Test(journal, type_filter_hands_over_only_what_is_asked) {
  put_file("{\"type\":\"run\",\"at\":\"x\"}\n{\"type\":\"decision\",\"at\":\"x\"}\n"
           "{\"at\":\"x\",\"type\":\"transition\"}\n{\"type\":\"note\",\"at\":\"x\"}\n");
  static const char *const want[] = {"decision", "transition", NULL};
  seen s = {0};
  cr_assert_eq(crawl__journal_read(dir, want, collect, &s, NULL, NULL, 0), CRAWL_OK);
  cr_assert_eq(s.n, 2);
  cr_assert_str_eq(s.types[0], "decision");
  cr_assert_str_eq(s.types[1], "transition");
}

static int stop_at_first(void *ud, const char *type, cJSON *rec) {
  (void)type;
  *(cJSON **)ud = rec;
  return -1; /* the reader frees it */
}

Test(journal, a_callback_can_stop_and_a_missing_file_is_an_io_error) {
  put_file("{\"type\":\"run\",\"at\":\"x\"}\n{\"type\":\"note\",\"at\":\"x\"}\n");
  cJSON *got = NULL;
  crawl__journal_stats st;
  cr_assert_eq(crawl__journal_read(dir, NULL, stop_at_first, &got, &st, NULL, 0), CRAWL_OK);
  cr_assert_eq(st.records, 1);
  char err[256] = "";
  cr_assert_eq(crawl__journal_read("/nonexistent-uiap", NULL, collect, &(seen){0}, NULL, err, sizeof err), CRAWL_IO);
  cr_assert(strstr(err, "/nonexistent-uiap/journal.jsonl: "), "%s", err);
}

Test(journal, appending_after_a_crash_cuts_the_torn_line) {
  put_file("{\"type\":\"run\",\"at\":\"x\"}\n{\"type\":\"state\",\"at\":\"x\",\"stat");
  char err[256];
  crawl__journal *j = crawl__journal_open(dir, 1, err, sizeof err);
  cr_assert(j, "%s", err);
  cJSON *f = cJSON_CreateObject();
  cJSON_AddStringToObject(f, "text", "after the crash");
  cr_assert_eq(crawl__journal_write(j, "note", f), 0);
  cr_assert_eq(crawl__journal_sync(j), 0);
  crawl__journal_close(j);
  seen s = {0};
  crawl__journal_stats st;
  cr_assert_eq(crawl__journal_read(dir, NULL, collect, &s, &st, NULL, 0), CRAWL_OK);
  cr_assert_eq(s.n, 2);
  cr_assert_str_eq(s.types[1], "note");
  cr_assert_eq(st.malformed + st.torn, 0);
}

Test(journal, written_records_start_with_type_and_at) {
  crawl__journal *j = crawl__journal_open(dir, 0, NULL, 0);
  cr_assert(j);
  cJSON *f = cJSON_CreateObject();
  cJSON_AddNumberToObject(f, "index", 3);
  crawl__journal_write(j, "seed", f);
  crawl__journal_close(j);
  char p[128];
  snprintf(p, sizeof p, "%s/journal.jsonl", dir);
  size_t len;
  int e;
  char *text = crawl__file_read(p, 1 << 20, &len, &e);
  cr_assert(text);
  cr_assert(!strncmp(text, "{\"type\":\"seed\",\"at\":\"20", 23), "%s", text);
  cr_assert(strstr(text, "\"index\":3}\n"), "%s", text);
  free(text);
}

Test(strmap, keys_are_copied_and_values_found_after_growth) {
  crawl__strmap m = {0};
  char k[32];
  for (long i = 0; i < 5000; i++) {
    snprintf(k, sizeof k, "state-%ld", i);
    cr_assert_eq(crawl__strmap_put(&m, k, i), 1);
  }
  cr_assert_eq(m.n, 5000);
  for (long i = 0; i < 5000; i += 7) {
    snprintf(k, sizeof k, "state-%ld", i);
    cr_assert_eq(crawl__strmap_get(&m, k), i);
  }
  cr_assert_eq(crawl__strmap_get(&m, "state-5000"), -1);
  cr_assert_eq(crawl__strmap_get(&m, NULL), -1);
  cr_assert_eq(crawl__strmap_getn(&m, "state-12xyz", 8), 12);
  cr_assert_eq(crawl__strmap_put(&m, "state-1", 99), 0, "replaced, not added");
  cr_assert_eq(crawl__strmap_get(&m, "state-1"), 99);
  int added;
  cr_assert_eq(crawl__strmap_intern(&m, "state-2", 7, &added), 2);
  cr_assert_eq(added, 0);
  cr_assert_eq(crawl__strmap_intern(&m, "new", 7, &added), 7);
  cr_assert_eq(added, 1);
  crawl__strmap_release(&m);
  cr_assert_eq(m.n, 0);
  cr_assert_eq(crawl__strmap_get(&m, "new"), -1);
}

Test(strmap, a_kept_string_is_one_copy_that_survives_growth) {
  crawl__strmap m = {0};
  char k[32];
  const char *first = crawl__strmap_keep(&m, "s_0");
  cr_assert_str_eq(first, "s_0");
  for (long i = 1; i < 3000; i++) {
    snprintf(k, sizeof k, "s_%ld", i);
    crawl__strmap_keep(&m, k);
  }
  cr_expect_eq(crawl__strmap_keep(&m, "s_0"), first, "the same pointer again, after the table grew");
  cr_expect_eq(crawl__strmap_key(&m, "s_0"), first);
  cr_expect_eq(crawl__strmap_get(&m, "s_2999"), 2999, "its value is its order of arrival");
  cr_expect_null(crawl__strmap_key(&m, "s_3000"), "never kept: NULL, and not added");
  cr_expect_eq(m.n, 3000);
  cr_expect_null(crawl__strmap_key(&m, NULL));
  crawl__strmap_release(&m);
}

Test(envelope, fields_in_the_order_of_core_decisions) {
  cJSON *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "x", "y");
  cJSON *e = crawl_envelope(&(crawl_msg){.kind = "response", .type = "session.initialized", .id = "m1",
                                           .correlation_id = "c1", .session_id = "s1"}, p);
  const char *order[] = {"uiap", "kind", "type", "id", "correlationId", "sessionId", "ts", "source", "payload"};
  int i = 0;
  for (cJSON *it = e->child; it; it = it->next, i++) cr_assert_str_eq(it->string, order[i]);
  cr_assert_eq(i, 9);
  cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "source"), "id")->valuestring, "uiap-crawl");
  cJSON_Delete(e);
  e = crawl_envelope(&(crawl_msg){.type = "web.signal", .id = "m2"}, NULL);
  cr_assert_str_eq(cJSON_GetObjectItem(e, "kind")->valuestring, "event");
  cr_assert_null(cJSON_GetObjectItem(e, "correlationId"));
  cr_assert(cJSON_IsObject(cJSON_GetObjectItem(e, "payload")));
  cJSON_Delete(e);
}

/* ---- crawl__file_write: a shared directory (`login --save-state` into one) ---- */
static char fdir[64];
static void fscratch(void) {
  snprintf(fdir, sizeof fdir, "/tmp/uiap-fwrite-XXXXXX");
  cr_assert(mkdtemp(fdir));
}
static void frm(void) {
  DIR *d = opendir(fdir);
  struct dirent *e;
  char p[400];
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      snprintf(p, sizeof p, "%s/%s", fdir, e->d_name);
      unlink(p);
    }
  if (d) closedir(d);
  rmdir(fdir);
}
static int entries(void) {
  DIR *d = opendir(fdir);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d))) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  if (d) closedir(d);
  return n;
}
static void fput(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  cr_assert(f);
  fputs(text, f);
  fclose(f);
}
TestSuite(file_write, .init = fscratch, .fini = frm);

/* Another local user plants a symlink where the temp file used to be
 * (PATH.PID.tmp, a predictable name) pointing at a file of theirs, to
 * capture the session: the write goes to PATH only, the link's target is
 * untouched, and nothing is left beside PATH. */
Test(file_write, a_planted_link_at_the_temp_name_is_not_followed) {
  char victim[128], path[128], link[160];
  snprintf(victim, sizeof victim, "%s/captured", fdir);
  snprintf(path, sizeof path, "%s/state.json", fdir);
  snprintf(link, sizeof link, "%s.%ld.tmp", path, (long)getpid());
  fput(victim, "nothing yet");
  cr_assert_eq(symlink(victim, link), 0);
  cr_assert_eq(crawl__file_write(path, "SESSION-COOKIE", 14), 0);
  char *v = crawl__file_read(victim, 1024, NULL, &(int){0});
  cr_expect_str_eq(v, "nothing yet", "the write went through the planted link");
  free(v);
  char *t = crawl__file_read(path, 1024, NULL, &(int){0});
  cr_expect_str_eq(t ? t : "(none)", "SESSION-COOKIE");
  free(t);
  struct stat st;
  cr_expect_eq(lstat(path, &st), 0);
  cr_expect(S_ISREG(st.st_mode), "the file is a file of its own");
  cr_expect_eq(entries(), 3, "no temp file left beside it (the victim, the link, the file)");
}

/* A symlink at PATH itself is replaced by the file, never written through. */
Test(file_write, a_link_at_the_path_is_replaced_not_followed) {
  char victim[128], path[128];
  snprintf(victim, sizeof victim, "%s/captured", fdir);
  snprintf(path, sizeof path, "%s/state.json", fdir);
  fput(victim, "nothing yet");
  cr_assert_eq(symlink(victim, path), 0);
  cr_assert_eq(crawl__file_write_mode(path, "SESSION-COOKIE", 14, 0600), 0);
  char *v = crawl__file_read(victim, 1024, NULL, &(int){0});
  cr_expect_str_eq(v, "nothing yet");
  free(v);
  struct stat st;
  cr_expect_eq(lstat(path, &st), 0);
  cr_expect(S_ISREG(st.st_mode), "the link was replaced by the file");
}

/* A saved session is its owner's only (0600), whatever the umask and
 * whatever mode the file it replaces had; other files keep 0644 less the
 * umask. */
Test(file_write, a_session_file_is_its_owners_only) {
  char path[128], other[128];
  snprintf(path, sizeof path, "%s/state.json", fdir);
  snprintf(other, sizeof other, "%s/package.json", fdir);
  fput(path, "old");
  chmod(path, 0666);
  mode_t old = umask(022);
  cr_assert_eq(crawl__file_write_mode(path, "{}", 2, 0600), 0);
  cr_assert_eq(crawl__file_write(other, "{}", 2), 0);
  umask(old);
  struct stat st;
  cr_assert_eq(stat(path, &st), 0);
  cr_expect_eq(st.st_mode & 0777, 0600, "mode %o", st.st_mode & 0777);
  cr_assert_eq(stat(other, &st), 0);
  cr_expect_eq(st.st_mode & 0777, 0644, "mode %o", st.st_mode & 0777);
}

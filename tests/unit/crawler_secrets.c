/* crawler_secrets.c -- the run's secret list (crawler/common/secrets.c):
 * what counts as a secret, what a match is (as written, percent-encoded,
 * '+' for a space), the JSON filter, and the two seams it sits in: the
 * journal writer (so a blocked request's URL in a review item carries no
 * password) and the log. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crawl_journal.h"
#include "crawl_secrets.h"
#include "crawl_util.h"
#include "support.h"

static char *scrubbed(const crawl__secrets *s, const char *text, int *n) { return crawl__secrets_scrub(s, text, n); }

Test(secrets, what_counts_as_a_secret) {
  crawl__secrets *s = crawl__secrets_new();
  cr_expect_eq(crawl__secrets_add(s, "abc"), 0, "three characters are too few");
  cr_expect_eq(crawl__secrets_add(s, "  ab c \t"), 0, "white space does not count");
  cr_expect_eq(crawl__secrets_add(s, "\xc3\xa9\xc3\xa9\xc3\xa9"), 0, "three characters in six bytes are too few");
  cr_expect_eq(crawl__secrets_add(s, NULL), 0);
  cr_expect_eq(crawl__secrets_add(s, "abcd"), 1, "four are enough");
  cr_expect_eq(crawl__secrets_add(s, "abcd"), 0, "once");
  cr_expect_eq(crawl__secrets_add(s, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"), 1);
  cr_expect_eq(crawl__secrets_count(s), 2);
  crawl__secrets_free(s);
  crawl__secrets_free(NULL);
}

Test(secrets, matches_as_written_and_url_encoded) {
  crawl__secrets *s = crawl__secrets_new();
  crawl__secrets_add(s, "PW2-SECRET-value");
  crawl__secrets_add(s, "hunter 2&x");
  crawl__secrets_add(s, "\xc3\xa9t\xc3\xa9-pass"); /* été-pass */
  static const struct { const char *in, *out; int n; } cs[] = {
    {"POST http://h/danger/check?pw=PW2-SECRET-value", "POST http://h/danger/check?pw=[redacted]", 1},
    {"pw=PW2%2DSECRET%2dvalue&again=PW2-SECRET-value", "pw=[redacted]&again=[redacted]", 2},
    {"q=%50%57%32-SECRET-value", "q=[redacted]", 1},
    {"q=hunter+2%26x;r=hunter%202%26x;s=hunter 2&x", "q=[redacted];r=[redacted];s=[redacted]", 3},
    {"q=%C3%A9t%c3%a9-pass", "q=[redacted]", 1},
    {"PW2-SECRET-valu is not it", "PW2-SECRET-valu is not it", 0},
    {"pw2-secret-value: case matters", "pw2-secret-value: case matters", 0},
    {"%", "%", 0},
    {"", "", 0},
  };
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
    int n = -1;
    char *t = scrubbed(s, cs[i].in, &n);
    cr_expect_str_eq(t, cs[i].out, "%s", cs[i].in);
    cr_expect_eq(n, cs[i].n, "%s: %d matches", cs[i].in, n);
    free(t);
  }
  cr_expect_null(scrubbed(s, NULL, NULL));
  char *copy = scrubbed(NULL, "PW2-SECRET-value", NULL);
  cr_expect_str_eq(copy, "PW2-SECRET-value", "no list: a copy");
  free(copy);
  crawl__secrets_free(s);
}

Test(secrets, longest_first) {
  crawl__secrets *s = crawl__secrets_new();
  crawl__secrets_add(s, "1234");
  crawl__secrets_add(s, "12345678");
  char *t = scrubbed(s, "a 12345678 b 1234", NULL);
  cr_expect_str_eq(t, "a [redacted] b [redacted]", "the longer value is one match, not \"[redacted]5678\"");
  free(t);
  crawl__secrets_free(s);
}

Test(secrets, json_values_not_keys) {
  crawl__secrets *s = crawl__secrets_new();
  crawl__secrets_add(s, "hunter2-SECRET-pw");
  cJSON *o = cJSON_Parse("{\"hunter2-SECRET-pw\":1,\"a\":[\"x hunter2-SECRET-pw\",{\"b\":\"hunter2%2DSECRET-pw\"},3],"
                         "\"c\":\"kept\"}");
  cr_assert(o);
  cr_expect_eq(crawl__secrets_scrub_json(s, o), 2);
  char *text = cJSON_PrintUnformatted(o);
  cr_expect_str_eq(text, "{\"hunter2-SECRET-pw\":1,\"a\":[\"x [redacted]\",{\"b\":\"[redacted]\"},3],\"c\":\"kept\"}");
  free(text);
  cJSON_Delete(o);
  cJSON *str = cJSON_CreateString("hunter2-SECRET-pw!");
  cr_expect_eq(crawl__secrets_scrub_json(s, str), 1);
  cr_expect_str_eq(str->valuestring, "[redacted]!");
  cJSON_Delete(str);
  crawl__secrets_free(s);
}

/* The journal writer is the seam: whatever a record says, the line holds
 * no secret -- and what was written before the list knew it stays as it
 * was (the list grows as the run captures). */
Test(secrets, journal_lines_pass_through_the_list) {
  char *dir = t_tmpdir();
  cr_assert(dir);
  crawl__journal *j = crawl__journal_open(dir, 0, NULL, 0);
  cr_assert(j);
  crawl__secrets *s = crawl__secrets_new();
  crawl__journal_secrets(j, s);
  crawl__secrets_add(s, "PW2-SECRET-value");
  cJSON *r = cJSON_CreateObject();
  cJSON_AddStringToObject(r, "kind", "unsafe_action_candidate");
  cJSON_AddStringToObject(r, "description",
                          "Activating this control tried to write (POST http://h/danger/check?pw=PW2-SECRET-value)");
  cJSON *t = cJSON_AddObjectToObject(r, "target");
  cJSON_AddStringToObject(t, "name", "PW2-SECRET-value");
  cr_assert_eq(crawl__journal_write(j, "review", r), 0);
  crawl__journal_close(j);
  crawl__secrets_free(s);
  char path[600];
  snprintf(path, sizeof path, "%s/journal.jsonl", dir);
  char *text = t_read_file(path, NULL);
  cr_assert(text);
  cr_expect_null(strstr(text, "PW2-SECRET-value"), "the journal holds the secret: %s", text);
  cr_expect(strstr(text, "check?pw=[redacted])"), "%s", text);
  cr_expect(strstr(text, "\"name\":\"[redacted]\""), "%s", text);
  free(text);
  t_rm_rf(dir);
  free(dir);
}

static char logged[1024];
static void sink(void *ud, crawl_log_level lvl, const char *component, const char *msg) {
  snprintf(logged, sizeof logged, "%s: %s", component, msg);
}

Test(secrets, log_lines_pass_through_the_list) {
  crawl__secrets *s = crawl__secrets_new();
  crawl__secrets_add(s, "PW2-SECRET-value");
  crawl_log_set(sink, NULL, CRAWL_LOG_INFO);
  crawl__log_secrets(s);
  crawl_log(CRAWL_LOG_INFO, "guard", "blocked %s", "POST http://h/danger/check?pw=PW2-SECRET-value");
  cr_expect_str_eq(logged, "guard: blocked POST http://h/danger/check?pw=[redacted]");
  crawl__log_secrets(NULL);
  crawl_log(CRAWL_LOG_INFO, "guard", "blocked %s", "x=PW2-SECRET-value");
  cr_expect_str_eq(logged, "guard: blocked x=PW2-SECRET-value", "no list, no filter");
  crawl_log_set(NULL, NULL, CRAWL_LOG_WARN);
  crawl__secrets_free(s);
}

/* --redact pii: values remembered with their own mask, and a text filter
 * after the list, in every seam (scrub, JSON, the log), also with an
 * empty list. */
static char *email_filter(const char *text, int *hits) {
  const char *at = strstr(text, "jane@x.org");
  if (!at) return NULL;
  *hits = 1;
  return crawl__xprintf("%.*s[email]%s", (int)(at - text), text, at + strlen("jane@x.org"));
}

Test(secrets, masked_values_and_a_filter) {
  crawl__secrets *s = crawl__secrets_new();
  cr_expect_not(crawl__secrets_filtered(s));
  crawl__secrets_filter(s, email_filter);
  cr_expect(crawl__secrets_filtered(s));
  int n = 0;
  char *t = scrubbed(s, "to jane@x.org now", &n);
  cr_expect_str_eq(t, "to [email] now", "an empty list still filters");
  cr_expect_eq(n, 1);
  free(t);
  cr_expect_eq(crawl__secrets_add_masked(s, "Jane Doe", "[name]"), 1);
  crawl__secrets_add(s, "PW2-SECRET-value");
  t = scrubbed(s, "Jane Doe <jane@x.org> pw=PW2-SECRET-value", &n);
  cr_expect_str_eq(t, "[name] <[email]> pw=[redacted]");
  cr_expect_eq(n, 3);
  free(t);
  cJSON *j = cJSON_Parse("{\"jane@x.org\":\"Jane+Doe\"}");
  cr_expect_eq(crawl__secrets_scrub_json(s, j), 1);
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "jane@x.org")), "[name]", "keys are ours, values filtered");
  cJSON_Delete(j);
  crawl__secrets *only = crawl__secrets_new();
  crawl__secrets_filter(only, email_filter);
  crawl_log_set(sink, NULL, CRAWL_LOG_INFO);
  crawl__log_secrets(only);
  crawl_log(CRAWL_LOG_INFO, "run", "mailto:%s", "jane@x.org");
  cr_expect_str_eq(logged, "run: mailto:[email]", "a filter alone filters log lines");
  crawl__log_secrets(NULL);
  crawl_log_set(NULL, NULL, CRAWL_LOG_WARN);
  crawl__secrets_free(only);
  crawl__secrets_free(s);
}

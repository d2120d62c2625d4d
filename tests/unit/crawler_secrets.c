/* crawler_secrets.c -- the run's secret list (crawler/common/secrets.c):
 * what counts as a secret, what a match is (as written, percent-encoded,
 * '+' for a space, and the spellings a page makes of a secret: case, hex,
 * base64 at each alignment), the credentials of a URL the user gave, the JSON
 * filter, and the two seams it sits in: the
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
    {"pw2-secret-value PW2-SECRET-VALUE: its lower and upper case", "[redacted] [redacted]: its lower and upper case", 2},
    {"Pw2-Secret-Value: other mixes of case are not it", "Pw2-Secret-Value: other mixes of case are not it", 0},
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

static char logged[4096];
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

/* A page turns a token into other spellings: btoa() into an href, the
 * token upper-cased into a link's name, hex. The expected texts were
 * worked out by hand (Python's base64 and bytes.hex, independent of the
 * code under test): base64 of "Tk~s3cr?t>vAlue1" alone is
 * VGt+czNjcj90PnZBbHVlMQ==; inside a longer encoded value, the characters
 * that mix its bits with its neighbours' stay (they carry at most 4 bits
 * of it), the rest is "[redacted]". */
Test(secrets, spellings_a_page_makes_of_a_secret) {
  crawl__secrets *s = crawl__secrets_new();
  crawl__secrets_add(s, "Tk~s3cr?t>vAlue1");
  static const struct { const char *in, *out; } cs[] = {
    /* btoa(token), padded, both alphabets, and percent-encoded in a URL */
    {"href=/p?t=VGt+czNjcj90PnZBbHVlMQ==", "href=/p?t=[redacted]"},
    {"href=/p?t=VGt-czNjcj90PnZBbHVlMQ==", "href=/p?t=[redacted]"},
    {"href=/p?t=VGt-czNjcj90PnZBbHVlMQ&x", "href=/p?t=[redacted]&x", /* URL-safe, no padding (JWT) */},
    {"href=/p?t=VGt%2BczNjcj90PnZBbHVlMQ%3D%3D", "href=/p?t=[redacted]"},
    /* inside a longer value: btoa("abc" + token + "!"), alignment 0 */
    {"YWJjVGt+czNjcj90PnZBbHVlMSE=", "YWJj[redacted]SE="},
    {"YWJjVGt-czNjcj90PnZBbHVlMSE=", "YWJj[redacted]SE="},
    /* btoa("x" + token + "yz"), alignment 1 */
    {"eFRrfnMzY3I/dD52QWx1ZTF5eg==", "eF[redacted]F5eg=="},
    {"eFRrfnMzY3I_dD52QWx1ZTF5eg==", "eF[redacted]F5eg=="},
    /* btoa("u=" + token + ";x"), alignment 2 */
    {"dT1Ua35zM2NyP3Q+dkFsdWUxO3g=", "dT1[redacted]O3g="},
    {"dT1Ua35zM2NyP3Q-dkFsdWUxO3g=", "dT1[redacted]O3g="},
    /* hex, either case of digits */
    {"h=546b7e733363723f743e76416c756531", "h=[redacted]"},
    {"h=546B7E733363723F743E76416C756531", "h=[redacted]"},
    /* the token upper- and lower-cased (a link's name) */
    {"link TK~S3CR?T>VALUE1", "link [redacted]"},
    {"link tk~s3cr?t>value1", "link [redacted]"},
    /* not it: another token's base64, a mix of cases */
    {"dG9rZW4tb3RoZXI=", "dG9rZW4tb3RoZXI="},
    {"tK~S3cr?T>valUE1", "tK~S3cr?T>valUE1"},
  };
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
    char *t = scrubbed(s, cs[i].in, NULL);
    cr_expect_str_eq(t, cs[i].out, "%s", cs[i].in);
    free(t);
  }
  cr_expect_eq(crawl__secrets_count(s), 1, "one value, however many spellings");
  crawl__secrets_free(s);
}

/* The shortest-secret guard holds for the spellings too: a short value
 * is no secret in any spelling; a value of 4 characters wipes out only
 * its own spellings, not ordinary text. */
Test(secrets, short_values_do_not_wipe_out_text) {
  crawl__secrets *s = crawl__secrets_new();
  cr_expect_eq(crawl__secrets_add(s, "abc"), 0);
  cr_expect_eq(crawl__secrets_add(s, "wxyz"), 1);
  const char *text = "The quick brown fox 0123456789 abcdef YWJj d3h5 ABC";
  char *t = scrubbed(s, text, NULL);
  cr_expect_str_eq(t, text, "nothing here spells wxyz");
  free(t);
  t = scrubbed(s, "d3h5eg== WXYZ 7778797a", NULL);
  cr_expect_str_eq(t, "[redacted] [redacted] [redacted]");
  free(t);
  crawl__secrets_free(s);
}

/* Scrubbing stays fast with a full list: every string the crawler writes
 * passes it. 4096 values (about 60,000 spellings) over 256 KiB of text
 * that looks like base64 and hex: well under a second on a laptop; the
 * bound is loose for a loaded machine. */
Test(secrets, a_full_list_scrubs_fast) {
  crawl__secrets *s = crawl__secrets_new();
  char v[32];
  for (int i = 0; i < CRAWL__SECRETS_MAX; i++) {
    snprintf(v, sizeof v, "tok-%08x-%d", (unsigned)i * 2654435761u, i);
    crawl__secrets_add(s, v);
  }
  cr_assert_eq(crawl__secrets_count(s), CRAWL__SECRETS_MAX);
  size_t n = 256 * 1024;
  char *text = crawl__xmalloc(n + 1);
  static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/%=";
  unsigned r = 12345;
  for (size_t i = 0; i < n; i++) text[i] = abc[(r = r * 1103515245u + 12345u) >> 16 & 63];
  text[n] = 0;
  memcpy(text + n / 2, "tok-00000000-0", 14);
  long long t0 = crawl__time_ms();
  int hits = 0;
  char *t = scrubbed(s, text, &hits);
  long long ms = crawl__time_ms() - t0;
  cr_expect_geq(hits, 1);
  cr_expect_lt(ms, 3000, "256 KiB through 4096 secrets took %lld ms", ms);
  free(t);
  free(text);
  crawl__secrets_free(s);
}

/* crawl_log scrubs the whole line, then cuts it: a secret across the
 * 1024-byte cut is not printed in part. */
Test(secrets, a_secret_across_the_log_cut_is_not_printed_in_part) {
  crawl__secrets *s = crawl__secrets_new();
  crawl__secrets_add(s, "CUT-SECRET-0123456789");
  crawl_log_set(sink, NULL, CRAWL_LOG_INFO);
  crawl__log_secrets(s);
  char pad[1200];
  for (size_t start = 1000; start < 1030; start++) {
    memset(pad, 'x', start);
    pad[start] = 0;
    crawl_log(CRAWL_LOG_INFO, "run", "%s%s tail", pad, "CUT-SECRET-0123456789");
    cr_expect_null(strstr(logged, "CUT-SECRET"), "a secret at byte %zu is printed in part", start);
    cr_expect_leq(strlen(logged), strlen("run: ") + 1023, "the line is still cut");
  }
  crawl__log_secrets(NULL);
  crawl_log_set(NULL, NULL, CRAWL_LOG_WARN);
  crawl__secrets_free(s);
}

/* Credentials in URLs the user gave (--connect, --frontier, seeds): the
 * userinfo's password, a token as user name, credential-named query and
 * fragment values; every query value of a --connect or --frontier URL. */
Test(secrets, credentials_of_a_url_the_user_gave) {
  crawl__secrets *s = crawl__secrets_new();
  cr_expect_eq(crawl__secrets_add_url(s, "redis://default:R3dis%2Fpass@127.0.0.1:6379/0", 1), 1);
  cr_expect_eq(crawl__secrets_add_url(s, "https://ghp_TOKENASUSER@example.test/x", 0), 1);
  cr_expect_eq(crawl__secrets_add_url(s, "http://app.test/?page=2&access_token=AT-12345&lang=en#id_token=IDT-6789", 0), 2);
  cr_expect_eq(crawl__secrets_add_url(s, "http://pool:3000/?launch=fast-mode&token=POOLTOKEN1", 1), 2);
  cr_expect_eq(crawl__secrets_add_url(s, "not a url ?token=x1234", 1), 0);
  static const struct { const char *in, *out; } cs[] = {
    {"cannot reach redis://default:R3dis%2Fpass@127.0.0.1", "cannot reach redis://default:[redacted]@127.0.0.1"},
    {"pw R3dis/pass", "pw [redacted]"},
    {"https://ghp_TOKENASUSER@example.test/x", "https://[redacted]@example.test/x"},
    {"/?page=2&access_token=AT-12345&lang=en#id_token=IDT-6789", "/?page=2&access_token=[redacted]&lang=en#id_token=[redacted]"},
    {"ws://pool:3000/?launch=fast-mode&token=POOLTOKEN1", "ws://pool:3000/?launch=[redacted]&token=[redacted]"},
  };
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
    char *t = scrubbed(s, cs[i].in, NULL);
    cr_expect_str_eq(t, cs[i].out, "%s", cs[i].in);
    free(t);
  }
  crawl__secrets *run = crawl__secrets_new();
  cr_expect_eq(crawl__secrets_add_all(run, s), (int)crawl__secrets_count(s));
  char *t = scrubbed(run, "token=POOLTOKEN1 pooltoken1", NULL);
  cr_expect_str_eq(t, "token=[redacted] [redacted]", "a copy keeps the spellings");
  free(t);
  crawl__secrets_free(run);
  crawl__secrets_free(s);
}

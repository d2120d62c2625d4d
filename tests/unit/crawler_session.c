/* crawler_session.c -- the session inputs (crawler/run/session.c): a
 * Playwright storageState, a Netscape cookies.txt, --header lines; what is
 * refused and how the refusal reads (never a value from the file); and what
 * the tab sends for them (Network.setCookies params, merged headers, the
 * localStorage script), and that every value is a secret of the run. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "crawl.h"
#include "crawl_secrets.h"
#include "run_int.h"

static crawl_code state(crawl_session *s, const char *text, char *err) {
  return crawl_session_storage_state(s, text, strlen(text), err, 256);
}

static crawl_code txt(crawl_session *s, const char *text, char *err) {
  return crawl_session_cookies_txt(s, text, strlen(text), err, 256);
}

Test(session, storage_state_as_playwright_writes_it) {
  static const char doc[] =
    "{\"cookies\":[{\"name\":\"sid\",\"value\":\"s3cr3t-sid\",\"domain\":\"127.0.0.1\",\"path\":\"/auth\","
    "\"expires\":-1,\"httpOnly\":true,\"secure\":false,\"sameSite\":\"Lax\"},"
    "{\"name\":\"pref\",\"value\":\"dark-mode\",\"domain\":\".example.com\",\"path\":\"/\",\"expires\":1999999999,"
    "\"httpOnly\":false,\"secure\":true,\"sameSite\":\"None\"}],"
    "\"origins\":[{\"origin\":\"http://127.0.0.1:8080\",\"localStorage\":[{\"name\":\"token\",\"value\":\"tok-123\"}]}]}";
  crawl_session s = {0};
  char err[256] = "";
  cr_assert_eq(state(&s, doc, err), CRAWL_OK, "%s", err);
  cr_assert_eq(s.ncookies, 2);
  cr_expect_str_eq(s.cookies[0].name, "sid");
  cr_expect_str_eq(s.cookies[0].value, "s3cr3t-sid");
  cr_expect_str_eq(s.cookies[0].path, "/auth");
  cr_expect(s.cookies[0].host_only && s.cookies[0].http_only && !s.cookies[0].secure);
  cr_expect_str_eq(s.cookies[0].same_site, "Lax");
  cr_expect(s.cookies[0].expires <= 0, "-1: a session cookie");
  cr_expect_str_eq(s.cookies[1].domain, "example.com");
  cr_expect(!s.cookies[1].host_only && s.cookies[1].secure);
  cr_assert_eq(s.nstorage, 1);
  cr_expect_str_eq(s.storage[0].origin, "http://127.0.0.1:8080");
  cr_expect_str_eq(s.storage[0].value, "tok-123");
  cr_expect(crawl_session_any(&s));
  crawl_session_release(&s);
  cr_expect(!crawl_session_any(&s));
  cr_expect_eq(state(&s, "{}", err), CRAWL_OK, "both arrays are optional");
}

Test(session, storage_state_refusals_name_the_place_not_the_value) {
  static const struct { const char *doc, *msg; } cs[] = {
    {"{\"cookies\":[", "not valid JSON"},
    {"[]", "the storage state must be a JSON object"},
    {"{\"cookies\":{}}", "/cookies must be an array"},
    {"{\"cookies\":[{\"name\":\"a\",\"value\":\"TOPSECRET\"}]}", "/cookies/0/domain must be a domain name"},
    {"{\"cookies\":[{\"name\":\"a\",\"value\":\"TOPSECRET\",\"domain\":\"h\",\"sameSite\":\"Weird\"}]}",
     "/cookies/0/sameSite must be Strict, Lax or None"},
    {"{\"cookies\":[{\"name\":\"a\",\"value\":\"TOP;SECRET\",\"domain\":\"h\"}]}",
     "/cookies/0/value must be a string without control characters or ';'"},
    {"{\"origins\":[{\"origin\":\"http://h/path\"}]}", "/origins/0/origin must be an http(s) origin (scheme://host[:port])"},
    {"{\"origins\":[{\"origin\":\"http://h\",\"localStorage\":[{\"name\":\"k\"}]}]}",
     "/origins/0/localStorage/0 must be an object with string name and value"},
  };
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
    crawl_session s = {0};
    char err[256] = "";
    cr_expect_eq(state(&s, cs[i].doc, err), CRAWL_ARG, "%s", cs[i].doc);
    cr_expect_str_eq(err, cs[i].msg, "%s", cs[i].doc);
    cr_expect(!strstr(err, "SECRET"));
    cr_expect(!crawl_session_any(&s), "unchanged on error");
  }
}

Test(session, cookies_txt_as_curl_writes_it) {
  static const char file[] =
    "# Netscape HTTP Cookie File\r\n"
    "# https://curl.se/docs/http-cookies.html\n"
    "\n"
    "#HttpOnly_127.0.0.1\tFALSE\t/auth\tFALSE\t0\tsid\tabc-123-sid\r\n"
    ".example.com\tTRUE\t/\tTRUE\t1999999999\tpref\tdark mode\n"
    "example.org\tFALSE\t/\tFALSE\t0\tempty\t";
  crawl_session s = {0};
  char err[256] = "";
  cr_assert_eq(txt(&s, file, err), CRAWL_OK, "%s", err);
  cr_assert_eq(s.ncookies, 3);
  cr_expect_str_eq(s.cookies[0].domain, "127.0.0.1");
  cr_expect(s.cookies[0].http_only && s.cookies[0].host_only && s.cookies[0].expires <= 0);
  cr_expect_str_eq(s.cookies[0].value, "abc-123-sid", "the CR is not part of the value");
  cr_expect_str_eq(s.cookies[1].domain, "example.com");
  cr_expect(!s.cookies[1].host_only && s.cookies[1].secure && !s.cookies[1].http_only);
  cr_expect_eq(s.cookies[1].expires, 1999999999.0);
  cr_expect_str_eq(s.cookies[2].value, "", "an empty value is a value");
  crawl_session_release(&s);
}

Test(session, cookies_txt_refusals_name_the_line) {
  static const struct { const char *file, *msg; } cs[] = {
    {"# ok\nh\tFALSE\t/\tFALSE\t0\tname\n",
     "line 2: expected 7 tab-separated fields (domain, subdomains, path, secure, expiry, name, value)"},
    {"h FALSE / FALSE 0 name SECRETVALUE\n",
     "line 1: expected 7 tab-separated fields (domain, subdomains, path, secure, expiry, name, value)"},
    {"h\tyes\t/\tFALSE\t0\tname\tSECRETVALUE\n", "line 1: the subdomains and secure fields must be TRUE or FALSE"},
    {"h\tFALSE\t/\tFALSE\tsoon\tname\tSECRETVALUE\n", "line 1: the expiry must be a whole number of seconds"},
    {"\tFALSE\t/\tFALSE\t0\tname\tSECRETVALUE\n", "line 1: bad domain"},
  };
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
    crawl_session s = {0};
    char err[256] = "";
    cr_expect_eq(txt(&s, cs[i].file, err), CRAWL_ARG, "%s", cs[i].file);
    cr_expect_str_eq(err, cs[i].msg);
    cr_expect(!strstr(err, "SECRET"));
    cr_expect_eq(s.ncookies, 0);
  }
  crawl_session s = {0};
  char err[256];
  cr_expect_eq(crawl_session_cookies_txt(&s, "h\tFALSE\t/\tFALSE\t0\tn\tv\0x\n", 24, err, sizeof err), CRAWL_ARG);
  cr_expect_str_eq(err, "line 1: holds a NUL byte");
}

Test(session, headers) {
  crawl_session s = {0};
  char err[256] = "";
  cr_assert_eq(crawl_session_header(&s, "X-Test-Token:   tok-value-1  ", err, sizeof err), CRAWL_OK);
  cr_expect_str_eq(s.headers[0].name, "X-Test-Token");
  cr_expect_str_eq(s.headers[0].value, "tok-value-1");
  cr_expect_eq(crawl_session_header(&s, "no colon", err, sizeof err), CRAWL_ARG);
  cr_expect_str_eq(err, "--header takes 'Name: value' (Name an HTTP token)");
  cr_expect_eq(crawl_session_header(&s, "Bad Name: v", err, sizeof err), CRAWL_ARG);
  cr_expect_eq(crawl_session_header(&s, ": v", err, sizeof err), CRAWL_ARG);
  cr_expect_eq(crawl_session_header(&s, "host: evil", err, sizeof err), CRAWL_ARG);
  cr_expect_str_eq(err, "--header cannot set Host (the browser sets it)");
  cr_expect_eq(crawl_session_header(&s, "X-A: one\r\nX-B: two", err, sizeof err), CRAWL_ARG);
  cr_expect_str_eq(err, "--header X-A: the value holds a line break");
  cr_expect_eq(s.nheaders, 1);

  /* merged into a paused request's own headers; the session's replaces a same-named one */
  cJSON *req = cJSON_Parse("{\"Accept\":\"text/html\",\"x-test-token\":\"old\"}");
  cJSON *m = crawl_session_merge_headers(&s, req);
  char *t = cJSON_PrintUnformatted(m);
  cr_expect_str_eq(t, "[{\"name\":\"Accept\",\"value\":\"text/html\"},{\"name\":\"X-Test-Token\",\"value\":\"tok-value-1\"}]");
  free(t);
  cJSON_Delete(m);
  cJSON_Delete(req);
  crawl_session_release(&s);
}

Test(session, cookie_params_for_cdp) {
  crawl_session s = {0};
  char err[256];
  cr_assert_eq(txt(&s, "#HttpOnly_127.0.0.1\tFALSE\t/auth\tFALSE\t0\tsid\tabc-123\n"
                       ".example.com\tTRUE\t/\tTRUE\t1999999999\tpref\tdark\n", err), CRAWL_OK);
  cJSON *p = crawl_session_cookie_params(&s);
  char *t = cJSON_PrintUnformatted(p);
  cr_expect_str_eq(t, "{\"cookies\":[{\"name\":\"sid\",\"value\":\"abc-123\",\"url\":\"http://127.0.0.1/auth\","
                      "\"path\":\"/auth\",\"secure\":false,\"httpOnly\":true},"
                      "{\"name\":\"pref\",\"value\":\"dark\",\"domain\":\".example.com\",\"path\":\"/\","
                      "\"secure\":true,\"httpOnly\":false,\"expires\":1999999999}]}");
  free(t);
  cJSON_Delete(p);
  crawl_session_release(&s);
  cr_expect_null(crawl_session_cookie_params(&s));
}

Test(session, storage_script_for_one_origin) {
  crawl_session s = {0};
  char err[256];
  cr_assert_eq(state(&s, "{\"origins\":[{\"origin\":\"http://a:1\",\"localStorage\":[{\"name\":\"k\",\"value\":\"v\\\"');\"}]},"
                         "{\"origin\":\"http://b:2\",\"localStorage\":[{\"name\":\"x\",\"value\":\"y\"}]}]}", err), CRAWL_OK, "%s", err);
  char *js = crawl_session_storage_script(&s, "http://a:1");
  cr_expect_str_eq(js, "localStorage.setItem(\"k\",\"v\\\"');\");", "values are JSON string literals");
  free(js);
  cr_expect_null(crawl_session_storage_script(&s, "http://c:3"));
  crawl_session_release(&s);
}

Test(session, every_value_is_a_secret) {
  crawl_session s = {0};
  char err[256];
  cr_assert_eq(state(&s, "{\"cookies\":[{\"name\":\"sid\",\"value\":\"cookie-secret\",\"domain\":\"h\"}],"
                         "\"origins\":[{\"origin\":\"http://h\",\"localStorage\":[{\"name\":\"tok\",\"value\":\"ls-secret\"}]}]}", err),
               CRAWL_OK);
  cr_assert_eq(crawl_session_header(&s, "Authorization: Bearer header-secret", err, sizeof err), CRAWL_OK);
  crawl__secrets *sec = crawl__secrets_new();
  crawl__session_secrets(&s, sec);
  char *t = crawl__secrets_scrub(sec, "sid=cookie-secret tok=ls-secret auth=Bearer header-secret sid", NULL);
  cr_expect_str_eq(t, "sid=[redacted] tok=[redacted] auth=[redacted] sid", "names are not secrets");
  free(t);
  crawl__secrets_free(sec);
  crawl_session_release(&s);
}

/* login --save-state: what Storage.getCookies and the page's localStorage
 * showed, as a storageState that the parser reads back the same. */
Test(session, saved_state_reads_back) {
  cJSON *cookies = cJSON_Parse(
    "[{\"name\":\"sid\",\"value\":\"s3cr3t-sid\",\"domain\":\"127.0.0.1\",\"path\":\"/auth\",\"expires\":-1,"
    "\"session\":true,\"httpOnly\":true,\"secure\":false,\"sameSite\":\"Lax\"},"
    "{\"name\":\"pref\",\"value\":\"dark\",\"domain\":\".example.com\",\"path\":\"/\",\"expires\":2000000000,"
    "\"httpOnly\":false,\"secure\":true},"
    "{\"name\":\"broken\"}]");
  cJSON *storage = cJSON_Parse("{\"http://127.0.0.1:8080\":[[\"auth-note\",\"note-1\"],[\"bad\"]],\"http://x.test\":[]}");
  cJSON *doc = crawl_session_state_from_cdp(cookies, storage);
  char *text = cJSON_PrintUnformatted(doc);
  crawl_session s = {0};
  char err[256] = "";
  cr_assert_eq(crawl_session_storage_state(&s, text, strlen(text), err, sizeof err), CRAWL_OK, "%s", err);
  cr_assert_eq(s.ncookies, 2, "the cookie without a value is dropped");
  cr_expect_str_eq(s.cookies[0].value, "s3cr3t-sid");
  cr_expect_str_eq(s.cookies[0].path, "/auth");
  cr_expect(s.cookies[0].http_only && s.cookies[0].host_only && s.cookies[0].expires <= 0);
  cr_expect_str_eq(s.cookies[1].domain, "example.com");
  cr_expect(!s.cookies[1].host_only && s.cookies[1].secure && s.cookies[1].expires == 2000000000);
  cr_expect_str_eq(s.cookies[1].same_site, "Lax", "an unspecified SameSite is saved as Lax");
  cr_assert_eq(s.nstorage, 1, "one item; the broken pair and the empty origin are dropped");
  cr_expect_str_eq(s.storage[0].origin, "http://127.0.0.1:8080");
  cr_expect_str_eq(s.storage[0].value, "note-1");
  crawl_session_release(&s);
  free(text);
  cJSON_Delete(doc);
  cJSON_Delete(cookies);
  cJSON_Delete(storage);
}

/* crawler_shared.c -- the shared frontier's URL (crawl --frontier): what a
 * user types is read as they meant it, and a mistake gets a reason. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "shared.h"

Test(shared_url, tcp_with_password_port_and_database) {
  crawl__redis_url u;
  const char *why = NULL;
  cr_assert_eq(crawl__redis_url_parse("redis://:s3cret@redis.internal:6380/2", &u, &why), 0, "%s", why);
  cr_expect_str_eq(u.host, "redis.internal");
  cr_expect_eq(u.port, 6380);
  cr_expect_eq(u.db, 2);
  cr_expect_str_eq(u.password, "s3cret");
  cr_expect_str_eq(u.path, "");
  cr_expect_str_eq(u.user, "", "no user: AUTH with the password alone");
  cr_assert_eq(crawl__redis_url_parse("redis://user:pw@h", &u, &why), 0);
  cr_expect_str_eq(u.user, "user", "an ACL user (AUTH user password)");
  cr_expect_str_eq(u.password, "pw");
  cr_expect_eq(u.port, 6379, "the default port");
  cr_expect_eq(u.db, 0);
  cr_expect_eq(u.tls, 0);
}

Test(shared_url, rediss_and_a_percent_encoded_password) {
  crawl__redis_url u;
  const char *why = NULL;
  cr_assert_eq(crawl__redis_url_parse("rediss://crawler:p%40ss%3Aw%25rd@redis.internal:6380/1", &u, &why), 0, "%s", why);
  cr_expect_eq(u.tls, 1, "rediss:// is TLS");
  cr_expect_str_eq(u.user, "crawler");
  cr_expect_str_eq(u.password, "p@ss:w%rd", "the password as the user meant it");
  cr_expect_str_eq(u.host, "redis.internal");
  cr_expect_eq(u.port, 6380);
  cr_expect_eq(u.db, 1);
  cr_assert_eq(crawl__redis_url_parse("redis://:50%@h", &u, &why), 0, "a lone %% stays as it is");
  cr_expect_str_eq(u.password, "50%");
}

/* The tags that tell a worker's records from forged ones. */
Test(shared_tag, a_record_passes_only_with_its_key_kind_and_place) {
  static const unsigned char key[] = "0123456789abcdef-run-key";
  const size_t nk = sizeof key - 1;
  const char *rec = "{\"stateId\":\"s_1\",\"url\":\"http://127.0.0.1/a\"}";
  char tag[CRAWL__TAG_HEX + 1], stored[400];
  crawl__record_tag(key, nk, "state", "s_1", rec, strlen(rec), tag);
  cr_expect_eq(strlen(tag), 64);
  cr_expect_eq(strspn(tag, "0123456789abcdef"), 64, "hex: %s", tag);
  snprintf(stored, sizeof stored, "%s %s", tag, rec);
  size_t n = strlen(stored);
  cr_expect_eq(crawl__record_check(key, nk, "state", "s_1", stored, n), 65, "its own record passes");
  cr_expect_eq(crawl__record_check(key, nk - 1, "state", "s_1", stored, n), -1, "another key");
  cr_expect_eq(crawl__record_check(key, nk, "state", "s_2", stored, n), -1, "moved to another state id");
  cr_expect_eq(crawl__record_check(key, nk, "edge", "s_1", stored, n), -1, "read as another kind");
  stored[n - 3] = 'b';
  cr_expect_eq(crawl__record_check(key, nk, "state", "s_1", stored, n), -1, "one byte changed");
  stored[n - 3] = 'a';
  cr_expect_eq(crawl__record_check(key, nk, "state", "s_1", stored, n), 65);
  cr_expect_eq(crawl__record_check(key, nk, "state", "s_1", rec, strlen(rec)), -1, "no tag at all");
  cr_expect_eq(crawl__record_check(key, nk, "state", "s_1", stored, 64), -1, "a tag alone");
  /* the same text, tagged by someone who guessed the format but not the key */
  static const unsigned char guess[] = "0000000000000000";
  crawl__record_tag(guess, sizeof guess - 1, "state", "s_1", rec, strlen(rec), tag);
  snprintf(stored, sizeof stored, "%s %s", tag, rec);
  cr_expect_eq(crawl__record_check(key, nk, "state", "s_1", stored, strlen(stored)), -1, "a forged tag");
}

Test(shared_url, unix_socket_with_database) {
  crawl__redis_url u;
  const char *why = NULL;
  cr_assert_eq(crawl__redis_url_parse("unix:///tmp/r.sock?db=3", &u, &why), 0, "%s", why);
  cr_expect_str_eq(u.path, "/tmp/r.sock");
  cr_expect_eq(u.port, 0);
  cr_expect_eq(u.db, 3);
}

Test(shared_url, mistakes_get_a_reason) {
  static const struct { const char *url, *why; } bad[] = {
    {"http://redis:6379", "expected redis://"},
    {"rediss://", "missing host"},
    {"redis://", "missing host"},
    {"redis://h:0", "invalid port"},
    {"redis://h:99999", "invalid port"},
    {"redis://h:12x", "unexpected text"},
    {"redis://h/abc", "database must be a number"},
    {"unix://relative.sock", "absolute socket path"},
    {"unix:///tmp/s?database=1", "?db=N"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    crawl__redis_url u;
    const char *why = NULL;
    cr_expect_eq(crawl__redis_url_parse(bad[i].url, &u, &why), -1, "%s refused", bad[i].url);
    cr_expect(why && strstr(why, bad[i].why), "%s: reason '%s' says '%s'", bad[i].url, why ? why : "", bad[i].why);
  }
}

Test(shared_url, an_unreachable_redis_is_one_line_without_the_password) {
  char err[300];
  crawl__shared *sh = crawl__shared_open("redis://:hunter2@127.0.0.1:1/0", "r", 0, 500, err, sizeof err);
  cr_expect_null(sh);
  cr_expect(strstr(err, "127.0.0.1"), "names the host: %s", err);
  cr_expect_null(strstr(err, "hunter2"), "never the password: %s", err);
  cr_expect_null(strchr(err, '\n'), "one line");
}

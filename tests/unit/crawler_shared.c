/* crawler_shared.c -- the shared frontier's URL (crawl --frontier): what a
 * user types is read as they meant it, and a mistake gets a reason. */
#include <criterion/criterion.h>
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
  cr_assert_eq(crawl__redis_url_parse("redis://user:pw@h", &u, &why), 0);
  cr_expect_str_eq(u.password, "pw", "a user name is ignored (Redis 5 AUTH)");
  cr_expect_eq(u.port, 6379, "the default port");
  cr_expect_eq(u.db, 0);
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

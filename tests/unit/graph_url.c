/* graph_url.c -- the URL module (pg_url.h) on tables of cases: RFC 3986
 * section 5.4 resolution (normal and abnormal examples, base
 * http://a/b/c/d;p?q), references as pages write them (spaces, backslashes,
 * UTF-8, tabs), normalisation, origins (default ports, case, IPv6,
 * userinfo, blob:, data:, about:blank, file:), same-origin, the scheme and
 * path scanners, and garbage and overlong input. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_url.h"

#define N(a) (sizeof(a) / sizeof *(a))

typedef struct { const char *base, *ref, *want; } resolve_case;

static void check_resolve(const resolve_case *c, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char *got = pg_url_resolve(c[i].base, c[i].ref);
    if (c[i].want)
      cr_expect(got && !strcmp(got, c[i].want), "resolve(%s, \"%s\") = %s, want %s", c[i].base, c[i].ref,
                got ? got : "NULL", c[i].want);
    else
      cr_expect_null(got, "resolve(%s, \"%s\") = %s, want NULL", c[i].base, c[i].ref, got);
    free(got);
  }
}

#define RFC "http://a/b/c/d;p?q"

/* RFC 3986 5.4.1. "//g" gives "http://g/": an empty http path is "/"
 * (equivalent by RFC 3986 6.2.3; what browsers show). */
Test(graph_url, rfc3986_normal_examples) {
  static const resolve_case t[] = {
    {RFC, "g:h", "g:h"},           {RFC, "g", "http://a/b/c/g"},        {RFC, "./g", "http://a/b/c/g"},
    {RFC, "g/", "http://a/b/c/g/"}, {RFC, "/g", "http://a/g"},          {RFC, "//g", "http://g/"},
    {RFC, "?y", "http://a/b/c/d;p?y"}, {RFC, "g?y", "http://a/b/c/g?y"}, {RFC, "#s", "http://a/b/c/d;p?q#s"},
    {RFC, "g#s", "http://a/b/c/g#s"}, {RFC, "g?y#s", "http://a/b/c/g?y#s"}, {RFC, ";x", "http://a/b/c/;x"},
    {RFC, "g;x", "http://a/b/c/g;x"}, {RFC, "g;x?y#s", "http://a/b/c/g;x?y#s"}, {RFC, "", "http://a/b/c/d;p?q"},
    {RFC, ".", "http://a/b/c/"},    {RFC, "./", "http://a/b/c/"},        {RFC, "..", "http://a/b/"},
    {RFC, "../", "http://a/b/"},    {RFC, "../g", "http://a/b/g"},       {RFC, "../..", "http://a/"},
    {RFC, "../../", "http://a/"},   {RFC, "../../g", "http://a/g"},
  };
  check_resolve(t, N(t));
}

/* RFC 3986 5.4.2. "http:g" reads as "g" against an http base: the
 * backward-compatible result the RFC allows, and what browsers do. */
Test(graph_url, rfc3986_abnormal_examples) {
  static const resolve_case t[] = {
    {RFC, "../../../g", "http://a/g"}, {RFC, "../../../../g", "http://a/g"},
    {RFC, "/./g", "http://a/g"},       {RFC, "/../g", "http://a/g"},
    {RFC, "g.", "http://a/b/c/g."},    {RFC, ".g", "http://a/b/c/.g"},
    {RFC, "g..", "http://a/b/c/g.."},  {RFC, "..g", "http://a/b/c/..g"},
    {RFC, "./../g", "http://a/b/g"},   {RFC, "./g/.", "http://a/b/c/g/"},
    {RFC, "g/./h", "http://a/b/c/g/h"}, {RFC, "g/../h", "http://a/b/c/h"},
    {RFC, "g;x=1/./y", "http://a/b/c/g;x=1/y"}, {RFC, "g;x=1/../y", "http://a/b/c/y"},
    {RFC, "g?y/./x", "http://a/b/c/g?y/./x"}, {RFC, "g?y/../x", "http://a/b/c/g?y/../x"},
    {RFC, "g#s/./x", "http://a/b/c/g#s/./x"}, {RFC, "g#s/../x", "http://a/b/c/g#s/../x"},
    {RFC, "http:g", "http://a/b/c/g"},
  };
  check_resolve(t, N(t));
}

/* What pages write: the clean-up a browser does before parsing. */
Test(graph_url, resolve_page_references) {
  static const resolve_case t[] = {
    {"http://h/dir/page.html", "../up/x.html?q=1", "http://h/up/x.html?q=1"},
    {"http://h/dir/page.html?old=1#top", "?q=2", "http://h/dir/page.html?q=2"},
    {"http://h/dir/page.html?old=1#top", "#sec", "http://h/dir/page.html?old=1#sec"},
    {"https://h/a", "//cdn.example/x.js", "https://cdn.example/x.js"},
    {"http://h/a", "  /x \n", "http://h/x"},
    {"http://h/a", "/se\tarch?q=a b#c d", "http://h/search?q=a%20b#c%20d"},
    {"http://h/a", "/caf\xc3\xa9", "http://h/caf%C3%A9"},
    {"http://h/a", "/100%", "http://h/100%25"},
    {"http://h/a", "/ok%2Fthere", "http://h/ok%2Fthere"},
    {"http://h/a/b", "\\x\\y", "http://h/x/y"},
    {"http://h/a/b", "\\\\other\\y", "http://other/y"},
    {"http://h/a", "x?q=\\", "http://h/x?q=%5C"},
    {"http://h/a", "/a#b#c", "http://h/a#b%23c"},
    {"http://h/a", "/a[1]", "http://h/a%5B1%5D"},
    {"http://h/dir/", "1a:b", "http://h/dir/1a:b"},
    {"HTTP://H:80/a", "b", "http://h/b"},
    {"http://h/a", "HTTPS://X:443", "https://x/"},
    {"http://h/a", "http://x/./y/../z", "http://x/z"},
    {"http://h/a", "mailto:a@b", "mailto:a@b"},
    {"http://h/a", "javascript:void(0)", "javascript:void(0)"},
    {"http://[::1]:8080/a", "b", "http://[::1]:8080/b"},
    {"about:blank", "#x", "about:blank#x"},
    {"blob:http://[::1]:8000/id", "#f", "blob:http://%5B::1%5D:8000/id#f"},
    {"blob:http://h/id", "x", NULL},        /* nor can blob: */
    {"about:blank", "x", NULL},            /* about:blank cannot be a base */
    {"data:text/html,hi", "?q", NULL},
    {"/relative/base", "x", NULL},          /* the base must be absolute */
    {NULL, "x", NULL},
    {"http://h/", NULL, NULL},
    {"http://h:99999/", "x", NULL},         /* no such port */
    {"http://h/", "http://x:65536/", NULL},
    {"http://h/", "http://x:65535/", "http://x:65535/"},
    {"http://h/", "http://[v1.x]/", NULL},  /* browsers refuse IPvFuture */
  };
  check_resolve(t, N(t));
}

Test(graph_url, normalize) {
  static const struct { const char *in, *want; } t[] = {
    {"HTTP://Example.COM:80", "http://example.com/"},
    {"https://example.com:443/a/./b/../c?x#F", "https://example.com/a/c?x#F"},
    {"http://h:0080/", "http://h/"},
    {"http://h:08080/", "http://h:8080/"},
    {"http://h/%7e%2f%41", "http://h/~%2FA"},
    {"http://[0:0:0:0:0:0:0:1]/", "http://[::1]/"},
    {"http://[2001:DB8:0:0:1:0:0:1]/", "http://[2001:db8::1:0:0:1]/"},
    {"http://u:p@h/", "http://u:p@h/"},
    {"ws://h:80/s", "ws://h/s"},
    {"file://localhost/etc/x", "file:///etc/x"},
    {"about:blank", "about:blank"},
    {"mailto:A@B", "mailto:A@B"},
    {"/relative", NULL},
    {"", NULL},
    {"   ", NULL},
    {NULL, NULL},
  };
  for (size_t i = 0; i < N(t); i++) {
    char *got = pg_url_normalize(t[i].in);
    if (t[i].want)
      cr_expect(got && !strcmp(got, t[i].want), "normalize(%s) = %s, want %s", t[i].in, got ? got : "NULL", t[i].want);
    else
      cr_expect_null(got, "normalize(%s) = %s, want NULL", t[i].in, got);
    free(got);
  }
}

Test(graph_url, origins) {
  static const struct { const char *url, *want; } t[] = {
    {"https://Example.com:443/a?b#c", "https://example.com"},
    {"http://EXAMPLE.COM:80/", "http://example.com"},
    {"http://example.com:8080", "http://example.com:8080"},
    {"http://u:p@127.0.0.1:8000#x", "http://127.0.0.1:8000"},
    {"http://user@host/", "http://host"},
    {"http://[::1]:80/", "http://[::1]"},
    {"http://[::1]/", "http://[::1]"},
    {"http://[0::1]:8080/", "http://[::1]:8080"},
    {"http://127.0.0.1:8000", "http://127.0.0.1:8000"}, /* an origin is its own origin */
    {"http://localhost:9000/", "http://localhost:9000"},
    {"wss://h:443/s", "wss://h"},
    {"ftp://x/", "ftp://x"},
    {"blob:https://x/0a1b", "https://x"},
    {"blob:http://h:8000/id", "http://h:8000"},
    {"blob:file:///tmp/x", "file://"},
    {"blob:http://[::1]:8000/id", "http://[::1]:8000"},
    {"blob:http://[::1]:8000/id#f", "http://[::1]:8000"},
    {"blob:http://%5B::1%5D:8000/id#f", "http://[::1]:8000"}, /* as pg_url_resolve writes it */
    {"blob: http://h/", NULL},
    {"blob:%06http://h/", NULL},
    {"file:///tmp/x", "file://"},
    {"file://server/share/x", "file://server"},
    {" \t HTTP://h/ ", "http://h"},
    {"http://h\\path", "http://h"},
    {"about:blank", NULL},
    {"about:srcdoc", NULL},
    {"data:text/html,<a href=http://x/y>", NULL},
    {"javascript:alert(1)", NULL},
    {"mailto:a@b", NULL},
    {"blob:data:text/plain,x", NULL},
    {"blob:blob:https://x/", NULL},
    {"blob:", NULL},
    {"/relative/path", NULL},
    {"//host/p", NULL},
    {"http:///nohost", NULL},
    {"http:/x", NULL},
    {"http://", NULL},
    {"http://h:99999/", NULL},
    {"null", NULL},
    {"", NULL},
    {NULL, NULL},
  };
  for (size_t i = 0; i < N(t); i++) {
    char o[128];
    int n = pg_url_origin(t[i].url, o, sizeof o);
    if (t[i].want) {
      cr_expect_str_eq(o, t[i].want, "origin(%s)", t[i].url);
      cr_expect_eq(n, (int)strlen(t[i].want), "origin(%s) returns its length", t[i].url);
    } else {
      cr_expect_eq(n, -1, "origin(%s) = %s, want opaque", t[i].url, o);
      cr_expect_str_empty(o);
    }
  }
}

Test(graph_url, origin_buffer_too_small) {
  char o[8] = "garbage";
  cr_expect_eq(pg_url_origin("http://example.com/", o, sizeof o), -1);
  cr_expect_str_empty(o);
  char o2[9];
  cr_expect_eq(pg_url_origin("http://a:81", o2, sizeof o2), -1); /* needs 12 */
  cr_expect_eq(pg_url_origin("http://a", o2, sizeof o2), 8);
  cr_expect_eq(pg_url_origin("http://a", NULL, 0), -1);
}

Test(graph_url, same_origin) {
  static const struct { const char *a, *b; int same; } t[] = {
    {"http://example.com/start", "HTTP://User@Example.COM:80/a", 1},
    {"https://h/", "https://h:443/x?y", 1},
    {"http://127.0.0.1:8000", "http://127.0.0.1:8000/x", 1},
    {"blob:https://x/id", "https://x/page", 1},
    {"http://h/", "https://h/", 0},
    {"http://h:8000/", "http://h:8001/", 0},
    {"http://a.h/", "http://b.h/", 0},
    {"data:text/plain,x", "data:text/plain,x", 0}, /* opaque: never the same as another string */
    {"about:blank", "about:blank", 0},
    {"/a", "/a", 0},
    {NULL, "http://h/", 0},
  };
  for (size_t i = 0; i < N(t); i++)
    cr_expect_eq(pg_url_same_origin(t[i].a, t[i].b), t[i].same, "same_origin(%s, %s)", t[i].a, t[i].b);
}

Test(graph_url, scheme_scanner) {
  static const struct { const char *url; int len; const char *scheme; } t[] = {
    {"https://x/", 5, "https"},
    {" HTTP://x/", 4, "http"},
    {"JavaScript:void(0)", 10, "javascript"},
    {"java\tscr\nipt:alert(1)", 10, "javascript"}, /* browsers drop tabs and newlines */
    {"\x01\x1f javascript:x", 10, "javascript"},  /* and leading C0 controls */
    {"mailto:a@b", 6, "mailto"},
    {"web+app:x", 7, "web+app"},
    {"#/r1", 0, ""},
    {"/a:b", 0, ""},
    {"1a:b", 0, ""},
    {"a b:c", 0, ""},
    {"noscheme", 0, ""},
    {"", -1, ""},
    {" \t\n", -1, ""},
    {NULL, -1, ""},
  };
  for (size_t i = 0; i < N(t); i++) {
    char s[16] = "x";
    cr_expect_eq(pg_url_scheme(t[i].url, s, sizeof s), t[i].len, "scheme(%s)", t[i].url);
    cr_expect_str_eq(s, t[i].scheme, "scheme(%s)", t[i].url);
  }
  char small[4];
  cr_expect_eq(pg_url_scheme("https://x", small, sizeof small), 5, "the full length, truncated text");
  cr_expect_str_eq(small, "htt");
}

Test(graph_url, rest_scanner) {
  static const struct { const char *url, *rest; } t[] = {
    {"http://h:1/p/q?x#f", "/p/q?x#f"},
    {"http://h", ""},
    {"http://h?x=/y", "?x=/y"},
    {"http://u@h#f", "#f"},
    {"file:///tmp/x", "/tmp/x"},
    {"http://h\\p", "\\p"},
    {"about:blank", ""},
    {"data:text/html,http://x/y", ""},
    {"/relative", ""},
    {NULL, ""},
  };
  for (size_t i = 0; i < N(t); i++)
    cr_expect_str_eq(pg_url_rest(t[i].url), t[i].rest, "rest(%s)", t[i].url);
}

/* Garbage never crashes and gives NULL or -1; text over PG_URL_MAX is
 * refused, in and out. */
Test(graph_url, garbage_and_overlong) {
  static const char *const junk[] = {
    "%", "%%", "::::", "http://[", "http://[::1", "http://]/", "http://a:b:c/", "http://@", "http://:80",
    "\xff\xfe", "[[[", "//", "///", "?", "#", "http://h/\x7f", "a:", "blob:http:", "http://%zz/",
  };
  for (size_t i = 0; i < N(junk); i++) {
    char o[64];
    free(pg_url_resolve("http://h/", junk[i]));
    free(pg_url_resolve(junk[i], "x"));
    free(pg_url_normalize(junk[i]));
    pg_url_origin(junk[i], o, sizeof o);
    pg_url_same_origin(junk[i], junk[i]);
  }
  size_t n = PG_URL_MAX + 10;
  char *big = malloc(n + 1);
  memcpy(big, "http://h/", 9);
  memset(big + 9, 'a', n - 9);
  big[n] = 0;
  char o[64];
  cr_expect_null(pg_url_resolve("http://h/", big));
  cr_expect_null(pg_url_resolve(big, "x"));
  cr_expect_null(pg_url_normalize(big));
  cr_expect_eq(pg_url_origin(big, o, sizeof o), -1);
  big[PG_URL_MAX] = 0; /* just fits in; the base's path makes the result too long */
  char *fits = pg_url_normalize(big);
  cr_expect(fits && strlen(fits) == PG_URL_MAX);
  free(fits);
  cr_expect_null(pg_url_resolve("http://h/dir/", big + 9)); /* "aaaa..." under /dir/ */
  memset(big + 9, 0xc3, PG_URL_MAX - 9); /* every byte becomes %C3: three times as long */
  cr_expect_null(pg_url_normalize(big));
  free(big);
}

/* Route templates: segments and query values that name one record (numbers,
 * UUIDs, long hex ids, dates) become parameters; everything else stays. */
typedef struct { const char *route, *want, *params; } template_case;

/* "name=value,name=value" (a "?" before a query value's name) */
static void params_text(const pg_route_param *p, size_t n, char *buf, size_t cap) {
  size_t o = 0;
  buf[0] = 0;
  for (size_t i = 0; i < n && o < cap; i++)
    o += (size_t)snprintf(buf + o, cap - o, "%s%s%s=%s", i ? "," : "", p[i].in_query ? "?" : "", p[i].name, p[i].value);
}

static void check_templates(const template_case *t, size_t n) {
  for (size_t i = 0; i < n; i++) {
    pg_route_param *p = NULL;
    size_t np = 0;
    char *got = pg_route_template(t[i].route, &p, &np), ps[512];
    params_text(p, np, ps, sizeof ps);
    cr_expect(got && !strcmp(got, t[i].want), "template(%s) = %s, want %s", t[i].route, got ? got : "NULL", t[i].want);
    cr_expect_str_eq(ps, t[i].params, "params of %s", t[i].route);
    free(got);
    pg_route_params_free(p, np);
  }
}

Test(graph_url, route_template_hash_routes) {
  static const template_case t[] = {
    {"/#/page/2", "/#/page/:n", "n=2"},
    {"/#/page/3", "/#/page/:n", "n=3"},
    {"/#/item/7", "/#/item/:id", "id=7"},
    {"/#/items", "/#/items", ""},
    {"/app.html#!/p/12", "/app.html#!/p/:n", "n=12"},
    {"/#!page/4", "/#!page/:n", "n=4"},
    {"/#/42", "/#/:id", "id=42"},
    {"/#/seite/9/list", "/#/seite/:n/list", "n=9"},
    {"/#section-2", "/#section-2", ""}, /* not a route: kept */
    {"/#/", "/#/", ""},
  };
  check_templates(t, N(t));
}

Test(graph_url, route_template_paths_and_ids) {
  static const template_case t[] = {
    {"/users/42", "/users/:id", "id=42"},
    {"/users/42/posts/7", "/users/:id/posts/:id2", "id=42,id2=7"},
    {"/orders/3f2504e0-4f89-11d3-9a0c-0305e82c3301/items", "/orders/:id/items", "id=3f2504e0-4f89-11d3-9a0c-0305e82c3301"},
    {"/o/507f1f77bcf86cd799439011", "/o/:id", "id=507f1f77bcf86cd799439011"},
    {"/reports/2024-05-12", "/reports/:date", "date=2024-05-12"},
    {"/reports/2024-13-12", "/reports/2024-13-12", ""}, /* no month 13 */
    {"/api/v2/decadefacade", "/api/v2/decadefacade", ""}, /* hex letters only: a word */
    {"/a/deadbeef", "/a/deadbeef", ""},                   /* too short for a hex id */
    {"/", "/", ""},
    {"/dir/", "/dir/", ""},
    {"http://h:8000/users/5", "http://h:8000/users/:id", "id=5"}, /* the origin is kept */
    {"about:blank", "about:blank", ""},
    {"", "", ""},
  };
  check_templates(t, N(t));
}

Test(graph_url, route_template_query) {
  static const template_case t[] = {
    {"/list?page=2", "/list?page=:page", "?page=2"},
    {"/list?page=2&sort=name", "/list?page=:page&sort=name", "?page=2"},
    {"/index.php?view=settings", "/index.php?view=settings", ""}, /* a word names a place */
    {"/u/3?tab=a#/page/5", "/u/:id?tab=a#/page/:n", "id=3,n=5"},
    {"/#/list?id=9", "/#/list?id=:id", "?id=9"},
    {"/x?flag", "/x?flag", ""},
  };
  check_templates(t, N(t));
}

/* Routes that differ only in their records share one template. */
Test(graph_url, route_template_shared) {
  static const char *const same[][2] = {
    {"/#/page/1", "/#/page/30"},
    {"/users/1/edit", "/users/99/edit"},
    {"/d/2024-01-01", "/d/2025-12-31"},
    {"/s?page=1", "/s?page=2"},
  };
  static const char *const differ[][2] = {{"/#/page/1", "/#/item/1"}, {"/users/1", "/groups/1"}, {"/s?view=a", "/s?view=b"}};
  for (size_t i = 0; i < N(same); i++) {
    char *a = pg_route_template(same[i][0], NULL, NULL), *b = pg_route_template(same[i][1], NULL, NULL);
    cr_expect(a && b && !strcmp(a, b), "%s and %s share a template (%s, %s)", same[i][0], same[i][1], a, b);
    free(a);
    free(b);
  }
  for (size_t i = 0; i < N(differ); i++) {
    char *a = pg_route_template(differ[i][0], NULL, NULL), *b = pg_route_template(differ[i][1], NULL, NULL);
    cr_expect(a && b && strcmp(a, b), "%s and %s do not (%s)", differ[i][0], differ[i][1], a);
    free(a);
    free(b);
  }
  cr_expect_null(pg_route_template(NULL, NULL, NULL));
  char *big = malloc(PG_URL_MAX + 2);
  memset(big, '1', PG_URL_MAX + 1);
  big[0] = '/';
  big[PG_URL_MAX + 1] = 0;
  cr_expect_null(pg_route_template(big, NULL, NULL), "over PG_URL_MAX: refused");
  free(big);
}

/* The host a plan's feature-flag cookie is set for: the origin's host,
 * without scheme or port, lower-cased, an IPv6 host in brackets. */
Test(graph_url, host_of_an_origin) {
  char h[64];
  cr_expect_eq(pg_url_host("http://App.Example:8080/x?y#z", h, sizeof h), 11);
  cr_expect_str_eq(h, "app.example");
  cr_expect_eq(pg_url_host("http://127.0.0.1:41234", h, sizeof h), 9);
  cr_expect_str_eq(h, "127.0.0.1");
  cr_expect_eq(pg_url_host("http://[::1]:8080/", h, sizeof h), 5);
  cr_expect_str_eq(h, "[::1]");
  cr_expect_eq(pg_url_host("https://example.com", h, sizeof h), 11);
  cr_expect_str_eq(h, "example.com");
  cr_expect_eq(pg_url_host("about:blank", h, sizeof h), -1);
  cr_expect_str_eq(h, "");
  cr_expect_eq(pg_url_host("http://example.com", h, 5), -1); /* does not fit */
  cr_expect_str_eq(h, "");
}

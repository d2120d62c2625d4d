/* pg_url.h -- the project's one URL module (graph/url.c): resolution of a
 * reference against a base URL (RFC 3986 section 5), normalisation, origins
 * as the URL Standard serialises them, and two scanners that read the text
 * as given (the scheme, the part after the authority).
 *
 * Input is untrusted page data. Before parsing, the text is cleaned the way
 * a browser does: leading and trailing C0 controls and spaces are dropped,
 * tabs and newlines removed, "\" read as "/" before the query of http(s),
 * ws(s), ftp and file URLs, and bytes RFC 3986 does not allow (spaces,
 * non-ASCII, a lone "%", ...) percent-encoded. Text longer than PG_URL_MAX
 * bytes, in or out, is refused. Nothing here prints or keeps state; every
 * function is safe to call from several threads. Out of memory aborts
 * (crawl__xmalloc).
 *
 * Not done: IDNA (a non-ASCII host stays percent-encoded), the URL
 * Standard's IPv4 forms ("0x7f.1"), and percent-decoding of hosts.
 */
#ifndef UIAP_PG_URL_H
#define UIAP_PG_URL_H

#include <stddef.h>

#define PG_URL_MAX 8192 /* bytes of a URL, in or out */

/* The absolute URL that ref names when read in a document at base.
 * base must be absolute; ref may be anything an href holds ("../x", "?q",
 * "#f", "//host/p", "mailto:a@b", ...). A relative ref against a base
 * without a hierarchy (about:blank, data:, mailto:) resolves only when it is
 * a fragment ("#f"). "http:g" against an http base reads as "g" (as
 * browsers do; RFC 3986 5.4.2 allows both). The result has lower-case
 * scheme and host, no default port, no dot segments, and "/" for an empty
 * http(s) path; other percent-encodings are kept as written.
 * Returns a new string the caller frees (free), or NULL when base is not an
 * absolute URL, ref cannot be read, the port is not a number up to 65535,
 * or a text is longer than PG_URL_MAX. */
char *pg_url_resolve(const char *base, const char *ref);

/* url in normal form: what pg_url_resolve(url, "") would give, and further
 * percent-encoding normalised (RFC 3986 6.2.2: hex digits upper case,
 * unreserved characters decoded, "%7E" -> "~"). The fragment is kept.
 * Returns a new string the caller frees (free), or NULL when url is not an
 * absolute URL (or as pg_url_resolve). */
char *pg_url_normalize(const char *url);

/* The origin of url, serialised: "scheme://host[:port]", lower case, no
 * userinfo, no default port (http/ws 80, https/wss 443, ftp 21), IPv6 hosts
 * compressed ("[::1]"). http, https, ws, wss and ftp URLs with a host have
 * one; blob:URL has the origin of its inner http(s) or file URL
 * ("blob:https://x/id" -> "https://x"); file: URLs give "file://" plus their
 * host ("localhost" dropped), as Chromium reports them (the URL Standard
 * leaves file: to the implementation). Everything else -- about:blank,
 * data:, javascript:, mailto:, relative references, garbage -- has an
 * opaque origin: -1.
 * Writes NUL-terminated into buf (cap bytes; buf is "" on failure) and
 * returns the length, or -1 when there is no tuple origin or it does not
 * fit. */
int pg_url_origin(const char *url, char *buf, size_t cap);

/* 1 when a and b have the same tuple origin (pg_url_origin); 0 otherwise,
 * also when either origin is opaque (an opaque origin is only ever the same
 * as itself, which two strings cannot show). a and b may be origins
 * ("http://h:8000") or URLs. */
int pg_url_same_origin(const char *a, const char *b);

/* The scheme of url, read from the text as given (no allocation, no
 * length cap): leading C0 controls and spaces skipped, tabs and newlines
 * inside ignored, lower-cased into buf (cap bytes, NUL-terminated,
 * truncated if longer; "" when there is none). Returns the scheme's full
 * length, 0 when url has no scheme (a relative reference: "/a:b", "#x"),
 * -1 when url is NULL or blank. */
int pg_url_scheme(const char *url, char *buf, size_t cap);

/* Where the part after the authority ("/path?query#fragment") starts in
 * the text of url ("scheme://authority..."); the empty string "" (static)
 * when url has no scheme or no authority. Points into url. */
const char *pg_url_rest(const char *url);

/* ---- route templates ----------------------------------------------------
 * Routes that differ only in the records they show share one template
 * (docs/decisions.md, "Route templates"). A path or hash-route segment that
 * is a number, a UUID, a long hex id (12 or more hex digits, one of them a
 * digit) or a date (YYYY-MM-DD) becomes ":name": "n" after a pagination
 * word (page, pages, p, pg, seite, pagina), "date" for a date, "id"
 * otherwise; a name used before in the template gets a number ("id2").
 * A query value of those kinds becomes ":key" after its key ("?page=:page").
 * Everything else is kept as written: "/users/42/posts?tab=a#/page/3" ->
 * "/users/:id/posts?tab=a#/page/:n". */

/* One value a template took out of a route. */
typedef struct pg_route_param {
  char *name;                   /* "n", "id", "date", a query key */
  char *value;                  /* as written in the route */
  int in_query;                 /* 1: a query value */
} pg_route_param;

/* The template of route: a route key (pg_route_key: "/path?query#/hash")
 * or an absolute URL, whose "scheme://authority" is kept as it is; a URL
 * without an authority (about:blank, data:) is its own template. A
 * fragment counts as a route when it starts with "#/" or "#!"; another one
 * is kept as it is. The values taken out go to *params (*nparams of them,
 * in order; free with pg_route_params_free) when params is not NULL.
 * Returns a new string the caller frees (free), or NULL when route is NULL
 * or longer than PG_URL_MAX. */
char *pg_route_template(const char *route, pg_route_param **params, size_t *nparams);
void pg_route_params_free(pg_route_param *params, size_t n);

/* The host of url's tuple origin (pg_url_origin: lower-cased, IDNA as
 * given), without the port; an IPv6 host keeps its brackets ("[::1]").
 * NUL-terminated into buf (cap bytes; "" on failure); its length, or -1
 * when url has no tuple origin or the host does not fit. */
int pg_url_host(const char *url, char *buf, size_t cap);

/* ---- where a URL's parts end ----------------------------------------------
 * Where a URL's parts end, read from the text as given (no allocation, no
 * normalisation): the crawler compares URLs "up to the query" (the write a
 * login recipe may make, static assets by extension) and "up to the
 * fragment" (a load of the same document). url is not NULL. */
/* The length of url before its query or fragment: the first '?' or '#'
 * (the whole length when there is neither). */
size_t pg_url_query_start(const char *url);
/* The length of url before its fragment: the first '#'. */
size_t pg_url_fragment_start(const char *url);

#endif

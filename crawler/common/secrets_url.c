/* secrets_url.c -- the credentials a URL the user gave carries
 * (crawl__secrets_add_url): its userinfo, and the query values that are
 * credentials. A URL is only text here: nothing is resolved or fetched. */
#include "crawl_secrets.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "crawl_util.h"

/* Query (and fragment) keys whose values are credentials, any case: the
 * whole key, or a part of it. */
static const char *const cred_keys[] = {
  "auth", "authorization", "key", "apikey", "api_key", "api-key", "pass", "passwd", "pwd", "sig", "session",
  "sessionid", "sid", "jwt", "bearer", "code_verifier",
};
static const char *const cred_parts[] = {"token", "secret", "password", "credential", "signature", "apikey", "api_key"};

static int cred_key(const char *k, size_t n) {
  for (size_t i = 0; i < sizeof cred_keys / sizeof *cred_keys; i++)
    if (strlen(cred_keys[i]) == n && !strncasecmp(cred_keys[i], k, n)) return 1;
  for (size_t i = 0; i < sizeof cred_parts / sizeof *cred_parts; i++) {
    size_t m = strlen(cred_parts[i]);
    for (size_t j = 0; j + m <= n; j++)
      if (!strncasecmp(k + j, cred_parts[i], m)) return 1;
  }
  return 0;
}

static int hexval(unsigned char ch) {
  return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

/* p (n bytes) percent-decoded, '+' as a space when plus (caller frees). */
static char *decode(const char *p, size_t n, int plus) {
  char *out = crawl__xmalloc(n + 1);
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] == '%' && i + 2 < n && hexval((unsigned char)p[i + 1]) >= 0 && hexval((unsigned char)p[i + 2]) >= 0) {
      out[o++] = (char)(hexval((unsigned char)p[i + 1]) * 16 + hexval((unsigned char)p[i + 2]));
      i += 2;
    } else {
      out[o++] = plus && p[i] == '+' ? ' ' : p[i];
    }
  }
  out[o] = 0;
  return out;
}

/* A value as written (p, n bytes), decoded: with '+' as a space (form
 * encoding), and as a '+' when it has one. */
static int add_value(crawl__secrets *s, const char *p, size_t n) {
  int added = 0;
  for (int plus = 1; plus >= 0; plus--) {
    if (!plus && !memchr(p, '+', n)) break;
    char *v = decode(p, n, plus);
    added += crawl__secrets_add(s, v);
    free(v);
  }
  return added;
}

/* The values of the key=value pairs in p (n bytes, '&' or ';' between
 * them): every one, or those of credential keys. */
static int add_params(crawl__secrets *s, const char *p, size_t n, int every) {
  int added = 0;
  for (size_t i = 0; i < n;) {
    size_t e = i;
    while (e < n && p[e] != '&' && p[e] != ';') e++;
    const char *eq = memchr(p + i, '=', e - i);
    if (eq) {
      char *k = decode(p + i, (size_t)(eq - p - i), 1);
      if (every || cred_key(k, strlen(k))) added += add_value(s, eq + 1, (size_t)(p + e - eq - 1));
      free(k);
    }
    i = e + 1;
  }
  return added;
}

int crawl__secrets_add_url(crawl__secrets *s, const char *url, int every_query) {
  if (!s || !url) return 0;
  const char *sep = strstr(url, "://");
  if (!sep || strcspn(url, "/?#") < (size_t)(sep - url)) return 0; /* no scheme: not a URL */
  const char *auth = sep + 3, *end = auth + strcspn(auth, "/?#");
  int added = 0;
  const char *at = NULL;
  for (const char *p = auth; p < end; p++)
    if (*p == '@') at = p; /* the last: a password may hold an '@' as written */
  if (at) {
    const char *colon = memchr(auth, ':', (size_t)(at - auth));
    added += colon ? add_value(s, colon + 1, (size_t)(at - colon - 1)) : add_value(s, auth, (size_t)(at - auth));
  }
  const char *q = strchr(end, '?'), *h = strchr(end, '#');
  if (q && (!h || q < h)) added += add_params(s, q + 1, (size_t)((h ? h : q + strlen(q)) - q - 1), every_query);
  if (h) added += add_params(s, h + 1, strlen(h + 1), 0);
  return added;
}

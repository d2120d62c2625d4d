/* submit.c -- where a submit control sends its form, and how: the method
 * and URL of HTML's form submission algorithm, for the policy (a GET to
 * /items/delete behind a "Refresh list" button deletes, whatever the
 * button says). build.c finds the owner form and the attributes; the
 * reading of them is here.
 *
 * pg__url_resolve_min is a stand-in: the project's URL module
 * (graph/pg_url.h, pg_url_resolve; branch h-url) is not in this tree yet.
 * It resolves references as RFC 3986 section 5.2 says, with the two things
 * browsers add that matter here ("\" read as "/" in http(s) URLs; tabs and
 * newlines dropped), and nothing else (no percent-encoding, no IDNA, no
 * host normalisation). When pg_url.h is merged, pg__submit_url calls
 * pg_url_resolve instead and this resolver goes.
 */
#include "pg_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

char *pg__submit_method(const char *formmethod, const char *form_method, char *buf, size_t cap) {
  const char *m = formmethod ? formmethod : form_method;
  if (!cap) return NULL;
  buf[0] = 0;
  if (!formmethod && !form_method) return NULL;
  while (*m == ' ' || *m == '\t' || *m == '\n' || *m == '\r' || *m == '\f') m++;
  size_t n = 0;
  for (; m[n] && n + 1 < cap; n++) buf[n] = (char)(m[n] >= 'A' && m[n] <= 'Z' ? m[n] + 32 : m[n]);
  while (n && (buf[n - 1] == ' ' || buf[n - 1] == '\t' || buf[n - 1] == '\n' || buf[n - 1] == '\r'))
    n--;
  buf[n] = 0;
  if (!n) snprintf(buf, cap, "get"); /* method="" is the invalid value: GET */
  return buf;
}

/* ---- the stand-in resolver ----------------------------------------------- */

/* Length of the scheme of s ("http" in "http://x"), 0 when it has none. */
static size_t scheme_len(const char *s) {
  size_t n = 0;
  if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) return 0;
  while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= '0' && s[n] <= '9') ||
         s[n] == '+' || s[n] == '-' || s[n] == '.')
    n++;
  return s[n] == ':' ? n : 0;
}

/* ref as a browser reads it: C0 controls and spaces around it dropped, tabs
 * and newlines inside removed, "\" as "/" before the query when backslash
 * is set. A new string. */
static char *clean_ref(const char *ref, int backslash) {
  while (*ref && (unsigned char)*ref <= ' ') ref++;
  size_t n = strlen(ref);
  while (n && (unsigned char)ref[n - 1] <= ' ') n--;
  char *out = pg__xmalloc(n + 1), *w = out;
  int in_query = 0;
  for (size_t i = 0; i < n; i++) {
    char ch = ref[i];
    if (ch == '\t' || ch == '\n' || ch == '\r') continue;
    if (ch == '?' || ch == '#') in_query = 1;
    *w++ = backslash && !in_query && ch == '\\' ? '/' : ch;
  }
  *w = 0;
  return out;
}

/* RFC 3986 5.2.4 on path[0..n): appended to out (room for n + 1 bytes). */
static void remove_dots(const char *path, size_t n, char *out) {
  size_t w = strlen(out), base = w;
  size_t i = 0;
  while (i < n) {
    const char *p = path + i;
    size_t left = n - i;
    if (left >= 3 && !strncmp(p, "../", 3)) { i += 3; continue; }
    if (left >= 2 && !strncmp(p, "./", 2)) { i += 2; continue; }
    if ((left >= 3 && !strncmp(p, "/./", 3)) || (left == 2 && !strncmp(p, "/.", 2))) {
      i += 2; /* "/./x" -> "/x"; "/." -> "/" */
      if (left == 2) out[w++] = '/';
      continue;
    }
    if ((left >= 4 && !strncmp(p, "/../", 4)) || (left == 3 && !strncmp(p, "/..", 3))) {
      while (w > base && out[w - 1] != '/') w--; /* drop the last segment */
      if (w > base) w--;
      i += 3;
      if (left == 3) out[w++] = '/';
      continue;
    }
    if ((left == 1 && p[0] == '.') || (left == 2 && !strncmp(p, "..", 2))) break;
    size_t seg = 1;
    while (seg < left && p[seg] != '/') seg++;
    memcpy(out + w, p, seg);
    w += seg;
    i += seg;
  }
  out[w] = 0;
}

char *pg__url_resolve_min(const char *base, const char *ref) {
  if (!base || !ref) return NULL;
  size_t bs = scheme_len(base);
  if (!bs) return NULL;
  int web = (bs == 4 && !strncasecmp(base, "http", 4)) || (bs == 5 && !strncasecmp(base, "https", 5));
  char *r = clean_ref(ref, web);
  size_t rs = scheme_len(r);
  if (rs && !(web && rs == bs && !strncasecmp(r, base, bs) && r[rs + 1] != '/')) return r; /* absolute */
  const char *rel = rs ? r + rs + 1 : r; /* "http:g" on an http base reads as "g" */
  /* the base's parts: scheme ":" ["//" authority] path ["?" query] ["#" fragment] */
  const char *auth = base + bs + 1;
  int has_auth = auth[0] == '/' && auth[1] == '/';
  const char *path = has_auth ? auth + 2 + strcspn(auth + 2, "/?#") : auth;
  size_t plen = strcspn(path, "?#");
  const char *query_end = path + plen + strcspn(path + plen, "#");
  size_t cap = strlen(base) + strlen(rel) + 4;
  char *out = pg__xmalloc(cap);
  out[0] = 0;
  if (!has_auth && rel[0] != '#' && rel[0]) { /* about:blank, data:, mailto: */
    free(r);
    free(out);
    return NULL;
  }
  if (rel[0] == '/' && rel[1] == '/') { /* scheme-relative */
    memcpy(out, base, bs + 1);
    out[bs + 1] = 0;
    size_t a = 2 + strcspn(rel + 2, "/?#");
    strncat(out, rel, a);
    size_t rp = strcspn(rel + a, "?#");
    remove_dots(rel + a, rp, out);
    strcat(out, rel + a + rp);
  } else {
    size_t prefix = (size_t)(path - base); /* scheme://authority */
    memcpy(out, base, prefix);
    out[prefix] = 0;
    if (!rel[0] || rel[0] == '#') {
      strncat(out, path, (size_t)(query_end - path));
      strcat(out, rel);
    } else if (rel[0] == '?') {
      strncat(out, path, plen);
      strcat(out, rel);
    } else {
      /* a path: absolute, or merged with the base's directory */
      size_t rp = strcspn(rel, "?#");
      char *merged = pg__xmalloc(plen + rp + 2);
      merged[0] = 0;
      if (rel[0] != '/') {
        size_t dir = plen;
        while (dir && path[dir - 1] != '/') dir--;
        if (!plen && has_auth) strcat(merged, "/");
        else strncat(merged, path, dir);
      }
      strncat(merged, rel, rp);
      remove_dots(merged, strlen(merged), out);
      free(merged);
      strcat(out, rel + rp);
    }
  }
  free(r);
  return out;
}

/* ---- the submission URL -------------------------------------------------- */

char *pg__submit_url(const char *base, const char *doc_url, const char *action) {
  if (!base || !*base) base = doc_url;
  if (!base || !*base) return NULL;
  int blank = 1; /* an empty (or all-blank) action is the document's URL */
  for (const char *p = action; p && *p && blank; p++) blank = (unsigned char)*p <= ' ';
  char *url = blank ? (doc_url && *doc_url ? pg__url_resolve_min(doc_url, "") : NULL)
                    : pg__url_resolve_min(base, action);
  if (url && strlen(url) > PG_SUBMIT_URL_MAX) {
    size_t n = PG_SUBMIT_URL_MAX;
    while (n && ((unsigned char)url[n] & 0xC0) == 0x80) n--; /* a character boundary */
    url[n] = 0;
  }
  return url;
}

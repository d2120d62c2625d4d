/* submit.c -- where a submit control sends its form, and how: the method
 * and URL of HTML's form submission algorithm, for the policy (a GET to
 * /items/delete behind a "Refresh list" button deletes, whatever the
 * button says). build.c finds the owner form and the attributes; the
 * reading of them is here, URLs resolved by the URL module (pg_url.h).
 */
#include "pg_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

char *pg__submit_url(const char *base, const char *doc_url, const char *action) {
  if (!base || !*base) base = doc_url;
  if (!base || !*base) return NULL;
  int blank = 1; /* an empty (or all-blank) action is the document's URL */
  for (const char *p = action; p && *p && blank; p++) blank = (unsigned char)*p <= ' ';
  char *url = blank ? (doc_url && *doc_url ? pg_url_resolve(doc_url, "") : NULL)
                    : pg_url_resolve(base, action);
  if (!url && !blank) {
    /* unreadable or too long for the URL module: its text as written, so
     * that its words still count (the policy reads a cut one as unknown) */
    size_t n = strnlen(action, PG_SUBMIT_URL_MAX + 1);
    url = crawl__xmalloc(n + 1);
    memcpy(url, action, n);
    url[n] = 0;
  }
  if (url && strlen(url) > PG_SUBMIT_URL_MAX) {
    size_t n = PG_SUBMIT_URL_MAX;
    while (n && ((unsigned char)url[n] & 0xC0) == 0x80) n--; /* a character boundary */
    url[n] = 0;
  }
  return url;
}

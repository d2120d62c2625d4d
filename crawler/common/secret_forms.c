/* secret_forms.c -- the spellings of a secret a page can make of it
 * (secrets_int.h): what the list matches besides the value itself. A page
 * can upper- or lower-case a token (a link's name), hex it, or base64 it
 * (btoa into an href, a JWT segment); in base64 a secret inside a longer
 * value is one of three shifted encodings, so each alignment is kept, its
 * boundary characters (which mix the secret's bits with its neighbours')
 * dropped. */
#include "secrets_int.h"

#include <stdlib.h>
#include <string.h>

#include "crawl_util.h"

static const char b64_std[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char b64_url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* in (n bytes) as base64 with '=' padding into out (4 * ((n + 2) / 3) + 1 bytes). */
static size_t b64_encode(const unsigned char *in, size_t n, const char *abc, char *out) {
  size_t o = 0;
  for (size_t i = 0; i < n; i += 3) {
    unsigned long w = (unsigned long)in[i] << 16 | (i + 1 < n ? (unsigned long)in[i + 1] << 8 : 0) |
                      (i + 2 < n ? in[i + 2] : 0);
    out[o++] = abc[w >> 18 & 63];
    out[o++] = abc[w >> 12 & 63];
    out[o++] = i + 1 < n ? abc[w >> 6 & 63] : '=';
    out[o++] = i + 2 < n ? abc[w & 63] : '=';
  }
  out[o] = 0;
  return o;
}

/* v's base64 in alphabet abc: the whole encoding of v alone (padded and
 * not), and at each alignment (0, 1 or 2 bytes before it in its group of
 * three) the characters made of v's bits only. */
static void b64_forms(crawl__secrets *s, const char *v, size_t n, const char *mask, const char *abc) {
  unsigned char *in = crawl__xmalloc(n + 2);
  char *out = crawl__xmalloc(4 * ((n + 4) / 3) + 1);
  for (size_t a = 0; a < 3; a++) {
    memset(in, 0, a);
    memcpy(in + a, v, n);
    size_t len = b64_encode(in, a + n, abc, out);
    if (a == 0) {
      crawl__secrets_form(s, out, len, mask, 0);
      crawl__secrets_form(s, out, strcspn(out, "="), mask, 0);
    }
    size_t lo = (8 * a + 5) / 6, hi = (8 * a + 8 * n) / 6; /* characters k with 6k >= 8a, 6k + 6 <= 8(a + n) */
    if (hi > lo + 3) crawl__secrets_form(s, out + lo, hi - lo, mask, 0);
  }
  free(out);
  free(in);
}

static void hex_form(crawl__secrets *s, const char *v, size_t n, const char *mask, int upper) {
  char *out = crawl__hex_encode(v, n, crawl__xmalloc(2 * n + 1), upper);
  crawl__secrets_form(s, out, 2 * n, mask, 0);
  free(out);
}

/* v with its ASCII letters in one case (other bytes as they are). */
static void case_form(crawl__secrets *s, const char *v, size_t n, const char *mask, int upper) {
  char *out = crawl__xmalloc(n + 1);
  for (size_t i = 0; i < n; i++) {
    char c = v[i];
    out[i] = upper && c >= 'a' && c <= 'z' ? (char)(c - 32) : !upper && c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
  }
  crawl__secrets_form(s, out, n, mask, 0);
  free(out);
}

void crawl__secret_forms(crawl__secrets *s, const char *v, size_t n, const char *mask) {
  case_form(s, v, n, mask, 1);
  case_form(s, v, n, mask, 0);
  hex_form(s, v, n, mask, 0);
  hex_form(s, v, n, mask, 1);
  b64_forms(s, v, n, mask, b64_std);
  b64_forms(s, v, n, mask, b64_url);
}

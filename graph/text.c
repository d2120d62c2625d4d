/* text.c -- text from the page made safe to publish: valid UTF-8 (invalid
 * bytes and lone surrogates become U+FFFD), no control characters, runs of
 * white space collapsed, trimmed, capped at a byte length on a character
 * boundary. */
#include "pg_int.h"

#include <string.h>

/* Decode one UTF-8 sequence at s (n bytes left); returns its length, or 0
 * when invalid (overlong, surrogate, > U+10FFFF, truncated). */
static size_t utf8_seq(const unsigned char *s, size_t n, unsigned *cp) {
  unsigned c = s[0];
  size_t len;
  unsigned min;
  if (c < 0x80) { *cp = c; return 1; }
  else if ((c & 0xE0) == 0xC0) { len = 2; *cp = c & 0x1F; min = 0x80; }
  else if ((c & 0xF0) == 0xE0) { len = 3; *cp = c & 0x0F; min = 0x800; }
  else if ((c & 0xF8) == 0xF0) { len = 4; *cp = c & 0x07; min = 0x10000; }
  else return 0;
  if (n < len) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    *cp = (*cp << 6) | (s[i] & 0x3F);
  }
  if (*cp < min || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF)) return 0;
  return len;
}

char *pg_text_clean(const char *src, size_t n, size_t max) {
  const unsigned char *s = (const unsigned char *)src;
  char *out = crawl__xmalloc(n * 3 + 1); /* worst case: every byte -> U+FFFD */
  size_t o = 0;
  int space = 0;
  for (size_t i = 0; i < n;) {
    unsigned cp;
    size_t len = utf8_seq(s + i, n - i, &cp);
    if (!len) { cp = 0xFFFD; len = 1; }
    /* white space (incl. NBSP? no: U+00A0 is kept, as accname does) */
    if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\f') {
      space = 1;
      i += len;
      continue;
    }
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0)) { i += len; continue; }
    size_t need = (space && o ? 1 : 0) + (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);
    if (max && o + need > max) break;
    if (space && o) out[o++] = ' ';
    space = 0;
    if (cp == 0xFFFD && !utf8_seq(s + i, n - i, &(unsigned){0})) {
      out[o++] = (char)0xEF; out[o++] = (char)0xBF; out[o++] = (char)0xBD;
    } else {
      memcpy(out + o, s + i, len);
      o += len;
    }
    i += len;
  }
  out[o] = 0;
  return out;
}

/* In place: what a terminal would act on becomes '?': C0 controls but tab
 * and newline, DEL, C1 controls (U+0080..U+009F, which some terminals read
 * as CSI/OSC) and bytes that are no valid UTF-8 (a lone 0x9B is CSI in 8-bit
 * mode). Returns the new length; s stays NUL-terminated. */
size_t pg_text_terminal_safe(char *s) {
  unsigned char *u = (unsigned char *)s;
  size_t n = strlen(s), o = 0;
  for (size_t i = 0; i < n;) {
    unsigned cp;
    size_t len = utf8_seq(u + i, n - i, &cp);
    int bad = !len || (cp < 0x20 && cp != '\t' && cp != '\n') || cp == 0x7F || (cp >= 0x80 && cp < 0xA0);
    if (bad) {
      u[o++] = '?';
      i += len ? len : 1;
      continue;
    }
    memmove(u + o, u + i, len);
    o += len;
    i += len;
  }
  u[o] = 0;
  return o;
}

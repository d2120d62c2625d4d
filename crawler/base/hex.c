/* hex.c -- hex digits for the whole project (crawl_base.h): the digit
 * tables, one digit's value, bytes to hex and back. Percent-encoding and
 * IPv6 text stay in graph/url.c; they use the tables from here. */
#include "crawl_base.h"

static const char hex_lower[] = "0123456789abcdef", hex_upper[] = "0123456789ABCDEF";

const char *crawl__hex_digits(int upper) { return upper ? hex_upper : hex_lower; }

int crawl__hex_digit(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char *crawl__hex_encode(const void *src, size_t n, char *out, int upper) {
  const unsigned char *s = src;
  const char *digits = crawl__hex_digits(upper);
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = digits[s[i] >> 4];
    out[2 * i + 1] = digits[s[i] & 15];
  }
  out[2 * n] = 0;
  return out;
}

int crawl__hex_decode(const char *src, size_t n, unsigned char *out) {
  for (size_t i = 0; i < n; i++) {
    int hi = crawl__hex_digit((unsigned char)src[2 * i]), lo = hi < 0 ? -1 : crawl__hex_digit((unsigned char)src[2 * i + 1]);
    if (lo < 0) return -1;
    out[i] = (unsigned char)(hi << 4 | lo);
  }
  return 0;
}

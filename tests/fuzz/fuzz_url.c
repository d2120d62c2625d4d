/* fuzz_url.c -- libFuzzer target for the URL module (graph/pg_url.h): every
 * href, src and document URL it reads comes from a page. The input is
 * "base\nref" (split at the first newline; no newline: base and ref are
 * both the whole input). Besides "no crash, no leak, no undefined
 * behaviour" it checks what the header promises:
 *   - results are at most PG_URL_MAX bytes and absolute (they have a scheme);
 *   - normalisation is idempotent;
 *   - an origin is its own origin, and same-origin with its URL;
 *   - a "?q" or "#f" reference keeps the base's origin;
 *   - pg_url_rest points into its argument (or is "").
 * Seeds: corpus/url/. */
#include "pg_url.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x) do { if (!(x)) abort(); } while (0)

static void check_result(const char *r) {
  char s[8];
  if (!r) return;
  CHECK(strlen(r) <= PG_URL_MAX);
  CHECK(pg_url_scheme(r, s, sizeof s) > 0);
  char *n1 = pg_url_normalize(r), *n2 = n1 ? pg_url_normalize(n1) : NULL;
  CHECK(!n1 || (n2 && !strcmp(n1, n2)));
  free(n1);
  free(n2);
}

static void check_origin(const char *url) {
  char o[PG_URL_MAX + 1], o2[PG_URL_MAX + 1];
  int n = pg_url_origin(url, o, sizeof o);
  if (n < 0) { CHECK(!o[0]); return; }
  CHECK((size_t)n == strlen(o));
  CHECK(pg_url_origin(o, o2, sizeof o2) == n && !strcmp(o, o2));
  CHECK(pg_url_same_origin(url, o));
}

static void check_rest(const char *url) {
  const char *rest = pg_url_rest(url);
  CHECK(!*rest || (rest >= url && rest <= url + strlen(url)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4 * PG_URL_MAX) return 0;
  char *in = malloc(size + 1);
  memcpy(in, data, size);
  in[size] = 0;
  char *nl = strchr(in, '\n');
  const char *base = in, *ref = in;
  if (nl) { *nl = 0; ref = nl + 1; }
  char *r = pg_url_resolve(base, ref);
  check_result(r);
  if (r && (ref[0] == '?' || ref[0] == '#')) {
    char ob[PG_URL_MAX + 1], orr[PG_URL_MAX + 1];
    int nb = pg_url_origin(base, ob, sizeof ob), nr = pg_url_origin(r, orr, sizeof orr);
    CHECK(nb == nr && !strcmp(ob, orr));
  }
  check_origin(base);
  check_origin(ref);
  if (r) check_origin(r);
  char *n = pg_url_normalize(base);
  check_result(n);
  check_rest(base);
  check_rest(ref);
  free(n);
  free(r);
  free(in);
  return 0;
}

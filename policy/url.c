/* url.c -- the policy's reading of a URL's scheme: which kind of target a
 * link or form action is (same-app navigation, script, another program).
 * Parsing, origins and paths belong to the URL module (graph/pg_url.h);
 * this file only maps a scheme to a kind. Nothing here allocates. */
#include <string.h>

#include "pg_url.h"
#include "pol_int.h"

/* Schemes with a kind of their own; every other scheme is POL__URL_OTHER. */
static const struct { const char *scheme; pol__url_kind kind; } scheme_kinds[] = {
  {"http", POL__URL_HTTP},
  {"https", POL__URL_HTTP},
  {"javascript", POL__URL_SCRIPT}, /* behaves like a button */
};

pol__url_kind pol__url_scheme(const char *url, char *scheme, size_t cap)
{
  char s[16];
  int n = pg_url_scheme(url, s, sizeof s);
  if (cap)
    pg_url_scheme(url, scheme, cap);
  if (n < 0)
    return POL__URL_NONE;
  if (n == 0)
    return POL__URL_RELATIVE;
  for (size_t i = 0; (size_t)n < sizeof s && i < sizeof scheme_kinds / sizeof *scheme_kinds; i++)
    if (!strcmp(s, scheme_kinds[i].scheme))
      return scheme_kinds[i].kind;
  return POL__URL_OTHER;
}

/* url.c -- the policy's reading of a URL: which kind of target a link or
 * form action is (same-app navigation, script, another program), and what
 * its own words say it does (pol_url_intent), the one reading that links,
 * form submissions and the crawler's network guard share. Parsing, origins
 * and paths belong to the URL module (graph/pg_url.h). Nothing here
 * allocates; lengths are capped. */
#include <stdio.h>
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

/* ---- the words of a URL ------------------------------------------------- */

static int hexval(int c)
{
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Windows of the lexicon scanner's reach, overlapping by more than the
 * longest URL phrase, so no word is only ever seen cut. */
#define WINDOW_STEP (POL__TEXT_MAX - 128)

const pol__lex_entry *pol__url_words(const char *rest, int *too_long)
{
  char buf[POL_URL_MAX + 1];
  size_t n = 0;
  *too_long = 0;
  if (!rest)
    return NULL;
  /* "%6Cogout" is "logout" to the server that decodes it */
  const char *p = rest;
  for (; *p && n < POL_URL_MAX; p++) {
    int hi, lo;
    if (*p == '%' && (hi = hexval((unsigned char)p[1])) >= 0 && (lo = hexval((unsigned char)p[2])) >= 0) {
      int ch = hi << 4 | lo;
      buf[n++] = (char)(ch ? ch : ' ');
      p += 2;
    } else {
      buf[n++] = *p;
    }
  }
  buf[n] = 0;
  *too_long = *p != 0;
  const pol__lex_entry *best = NULL;
  for (size_t off = 0;; off += WINDOW_STEP) {
    pol__scan sc;
    pol__lexicon_scan(buf + off, POL__SCAN_URL, &sc);
    const pol__lex_entry *e = sc.risky;
    if (e && (!best || pol__rank(e->cls) > pol__rank(best->cls) ||
              (pol__rank(e->cls) == pol__rank(best->cls) && strlen(e->phrase) > strlen(best->phrase))))
      best = e;
    if (off + POL__TEXT_MAX >= n)
      break;
  }
  return best;
}

static const char *const url_explains[POL__SE_COUNT] = {
  [POL_SE_DESTRUCTIVE] = "the URL it requests reads as a delete or removal",
  [POL_SE_IRREVERSIBLE] = "the URL it requests reads as a delete or removal",
  [POL_SE_SECURITY_CHANGE] = "the URL it requests reads as a logout or an access change",
  [POL_SE_BILLING_CHANGE] = "the URL it requests reads as a payment or subscription change",
  [POL_SE_EXTERNAL_EFFECT] = "the URL it requests reads as an action outside the app",
  [POL_SE_WRITE] = "the URL it requests reads as a change",
};

const char *pol__url_explain(pol_side_effect se)
{
  return (unsigned)se < POL__SE_COUNT ? url_explains[se] : NULL;
}

pol_side_effect pol_url_intent(const char *url, pol_classification *out)
{
  pol_classification tmp;
  if (!out)
    out = &tmp;
  memset(out, 0, sizeof *out);
  out->side_effect = POL_SE_NONE;
  snprintf(out->rule, sizeof out->rule, "url.none");
  out->where = "url";
  if (!url)
    return out->side_effect;
  char scheme[24];
  const char *rest = pol__url_scheme(url, scheme, sizeof scheme) == POL__URL_HTTP ? pg_url_rest(url) : url;
  int too_long;
  const pol__lex_entry *e = pol__url_words(rest, &too_long);
  if (e) {
    pol__lexicon_rule(e, "url", 0, out->rule, sizeof out->rule);
    out->side_effect = (pol_side_effect)e->cls;
    out->keyword = e->phrase;
    out->explain = pol__url_explain(out->side_effect);
  } else if (too_long) {
    out->side_effect = POL_SE_UNKNOWN;
    snprintf(out->rule, sizeof out->rule, "url.too_long");
    out->explain = "the URL is too long to read all of its words";
  }
  return out->side_effect;
}

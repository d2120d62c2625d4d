/* url.c -- the little URL knowledge the policy needs: a URL's scheme kind
 * and its canonical origin, for telling same-origin navigation from links
 * that leave the app or hand off to another program (mailto:, tel:, ...);
 * and what a URL's own words say it does (pol_url_intent), the one reading
 * that links, form submissions and the crawler's network guard share.
 * Input is untrusted page data: nothing here allocates, lengths are capped. */
#include <stdio.h>
#include <string.h>

#include "pol_int.h"

static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

pol__url_kind pol__url_scheme(const char *url, char *scheme, size_t cap)
{
  if (cap)
    scheme[0] = 0;
  if (!url)
    return POL__URL_NONE;
  while (*url == ' ' || *url == '\t' || *url == '\n' || *url == '\r')
    url++;
  if (!*url)
    return POL__URL_NONE;
  /* RFC 3986: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" */
  size_t n = 0;
  if (is_alpha((unsigned char)url[0])) {
    n = 1;
    while (is_alpha((unsigned char)url[n]) || (url[n] >= '0' && url[n] <= '9') ||
           url[n] == '+' || url[n] == '-' || url[n] == '.')
      n++;
  }
  if (n == 0 || url[n] != ':')
    return POL__URL_RELATIVE;
  if (cap) {
    size_t w = n < cap - 1 ? n : cap - 1;
    for (size_t i = 0; i < w; i++)
      scheme[i] = (char)lower((unsigned char)url[i]);
    scheme[w] = 0;
  }
  char s[16] = {0};
  for (size_t i = 0; i < n && i < sizeof s - 1; i++)
    s[i] = (char)lower((unsigned char)url[i]);
  if (n < sizeof s && (!strcmp(s, "http") || !strcmp(s, "https")))
    return POL__URL_HTTP;
  if (n < sizeof s && !strcmp(s, "javascript"))
    return POL__URL_SCRIPT;
  return POL__URL_OTHER;
}

int pol__url_origin(const char *url, char *buf, size_t cap)
{
  char scheme[16];
  if (cap)
    buf[0] = 0;
  if (pol__url_scheme(url, scheme, sizeof scheme) != POL__URL_HTTP)
    return -1;
  while (*url == ' ' || *url == '\t' || *url == '\n' || *url == '\r')
    url++;
  const char *p = strchr(url, ':') + 1;
  if (p[0] != '/' || p[1] != '/')
    return -1;
  p += 2;
  size_t alen = strcspn(p, "/?#\\");
  const char *at = memchr(p, '@', alen);
  if (at) { /* drop userinfo */
    alen -= (size_t)(at + 1 - p);
    p = at + 1;
  }
  char host[256];
  if (alen == 0 || alen >= sizeof host)
    return -1;
  for (size_t i = 0; i < alen; i++)
    host[i] = (char)lower((unsigned char)p[i]);
  host[alen] = 0;
  /* port: after the last ':' that is not inside [IPv6] brackets */
  char *colon = strrchr(host, ':');
  char *bracket = strrchr(host, ']');
  if (colon && (!bracket || colon > bracket)) {
    const char *port = colon + 1;
    int https = !strcmp(scheme, "https");
    if (!*port || (!https && !strcmp(port, "80")) || (https && !strcmp(port, "443")))
      *colon = 0;
  }
  if (!host[0])
    return -1;
  int n = snprintf(buf, cap, "%s://%s", scheme, host);
  return n < 0 || (size_t)n >= cap ? -1 : 0;
}

const char *pol__url_rest(const char *url)
{
  if (!url)
    return "";
  const char *p = strstr(url, "://");
  if (!p)
    return "";
  p += 3;
  return p + strcspn(p, "/?#");
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
  const char *rest = pol__url_scheme(url, scheme, sizeof scheme) == POL__URL_HTTP ? pol__url_rest(url) : url;
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

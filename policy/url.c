/* url.c -- the little URL knowledge the policy needs: a URL's scheme kind
 * and its canonical origin, for telling same-origin navigation from links
 * that leave the app or hand off to another program (mailto:, tel:, ...).
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

/* http_util.c -- the pieces of HTTP both ways of attaching read: the
 * Retry-After value a browser pool sends with 429 or 503, whether it came
 * with the /json/version reply (connect.c) or with the WebSocket upgrade
 * (transport_ws.c). Below both: it calls neither. */
#include "cdp_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int cdp__retry_after_ms(const char *v) {
  while (*v == ' ' || *v == '\t') v++;
  if (*v >= '0' && *v <= '9') {
    long n = strtol(v, NULL, 10);
    return n > 86400 ? 86400 * 1000 : (int)n * 1000;
  }
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  const char *end = strptime(v, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (!end) return -1;
  double d = difftime(timegm(&tm), time(NULL));
  return d <= 0 ? 0 : d > 86400 ? 86400 * 1000 : (int)(d * 1000);
}

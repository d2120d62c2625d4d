/* url.c -- the project's one URL module (see pg_url.h): owns the clean-up
 * of untrusted URL text, resolution and normalisation over liburiparser
 * (RFC 3986), the serialisation of origins, and the scanners that read a
 * scheme or the path of a URL's text without parsing it.
 *
 * The pipeline is the same for every entry point: tidy (browser-style
 * clean-up into RFC 3986's character set) -> parse (uriparser) -> resolve
 * or normalise (uriparser) -> compose (our own serialiser: lower-case host,
 * no default port, compressed IPv6, "/" for an empty special path). */
#include "pg_int.h"
#include "pg_url.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <uriparser/Uri.h>

/* The URL Standard's special schemes: default port (-1: none) and whether
 * the origin is a tuple (file: is not, though pg_url_origin still names it). */
typedef struct { const char *name; int port; int tuple_origin; } url_scheme_info;
static const url_scheme_info special_schemes[] = {
  {"http", 80, 1}, {"https", 443, 1}, {"ws", 80, 1}, {"wss", 443, 1}, {"ftp", 21, 1}, {"file", -1, 0},
};

/* uriparser allocates through our one allocation policy: OOM aborts. */
static void *mm_malloc(UriMemoryManager *m, size_t n) { (void)m; return crawl__xmalloc(n); }
static void *mm_realloc(UriMemoryManager *m, void *p, size_t n) { (void)m; return crawl__xrealloc(p, n); }
static void mm_free(UriMemoryManager *m, void *p) { (void)m; free(p); }
static UriMemoryManager mm = {mm_malloc, uriEmulateCalloc, mm_realloc, uriEmulateReallocarray, mm_free, NULL};

static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_hex(int c) { return crawl__hex_digit(c) >= 0; }
static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }
static int upper(int c) { return c >= 'a' && c <= 'z' ? c - 32 : c; }
static int is_tabnl(int c) { return c == '\t' || c == '\n' || c == '\r'; }
static int is_scheme_char(int c) { return is_alpha(c) || is_digit(c) || c == '+' || c == '-' || c == '.'; }

static const url_scheme_info *special_of(const char *s, size_t n) {
  for (size_t i = 0; i < sizeof special_schemes / sizeof *special_schemes; i++)
    if (strlen(special_schemes[i].name) == n && !strncmp(special_schemes[i].name, s, n))
      return &special_schemes[i];
  return NULL;
}

/* ---- scanners over the text as given -------------------------------------- */

/* Scans the scheme of url (leading C0 controls and spaces skipped, tabs and
 * newlines ignored), lower-cased into buf as pg_url_scheme. Returns the
 * character after its ':' and the scheme's length in *len; NULL with *len 0
 * (no scheme) or -1 (NULL or blank). */
static const char *scheme_scan(const char *url, char *buf, size_t cap, int *len) {
  if (cap) buf[0] = 0;
  *len = -1;
  if (!url) return NULL;
  const unsigned char *p = (const unsigned char *)url;
  while (*p && *p <= 0x20) p++;
  if (!*p) return NULL;
  *len = 0;
  if (!is_alpha(*p)) return NULL;
  size_t n = 0;
  for (; *p && *p != ':'; p++) {
    if (is_tabnl(*p)) continue;
    if (!is_scheme_char(*p)) break;
    if (n + 1 < cap) buf[n] = (char)lower(*p);
    n += n < (size_t)0x7fffffff;
  }
  if (*p != ':') {
    if (cap) buf[0] = 0;
    return NULL;
  }
  if (cap) buf[n < cap ? n : cap - 1] = 0;
  *len = (int)n;
  return (const char *)p + 1;
}

int pg_url_scheme(const char *url, char *buf, size_t cap) {
  int n;
  scheme_scan(url, buf, cap, &n);
  return n;
}

const char *pg_url_rest(const char *url) {
  char scheme[8];
  int n;
  const char *p = scheme_scan(url, scheme, sizeof scheme, &n);
  if (!p) return "";
  int special = (size_t)n < sizeof scheme && special_of(scheme, (size_t)n);
  int slashes = 0;
  for (; *p && slashes < 2; p++)
    if (*p == '/' || (special && *p == '\\')) slashes++;
    else if (!is_tabnl((unsigned char)*p)) break;
  if (slashes < 2) return "";
  while (*p && *p != '/' && *p != '?' && *p != '#' && !(special && *p == '\\')) p++;
  return p;
}

/* ---- tidy: browser-style clean-up into RFC 3986's character set ----------- */

/* A bounded output buffer; over is set (and the text dropped) at the cap. */
typedef struct { char *p; size_t n, cap; int over; } obuf;

static void ob_ch(obuf *o, int c) {
  if (o->n + 1 < o->cap) o->p[o->n++] = (char)c;
  else o->over = 1;
}
static void ob_put(obuf *o, const char *s, size_t n) { for (size_t i = 0; i < n; i++) ob_ch(o, s[i]); }
static void ob_pct(obuf *o, unsigned char c) {
  const char *hex = crawl__hex_digits(1);
  ob_ch(o, '%');
  ob_ch(o, hex[c >> 4]);
  ob_ch(o, hex[c & 15]);
}

/* One byte of text at s: kept when RFC 3986 allows it (a "%" only as the
 * start of an escape), percent-encoded otherwise. '#', '[' and ']' are the
 * caller's business. */
static void tidy_byte(obuf *o, const char *s) {
  unsigned char c = (unsigned char)*s;
  if (c == '%' ? is_hex((unsigned char)s[1]) && is_hex((unsigned char)s[2])
               : is_alpha(c) || is_digit(c) || (c && strchr("-._~!$&'()*+,;=:@/?", c)))
    ob_ch(o, c);
  else
    ob_pct(o, c);
}

/* The authority at raw[i..]: every '@' but the last is data (%40), brackets
 * stay (IPv6). Returns the index where it ends. */
static size_t tidy_authority(obuf *o, const char *raw, size_t i, int special) {
  size_t end = i;
  while (raw[end] && !strchr("/?#", raw[end]) && !(special && raw[end] == '\\')) end++;
  const char *last_at = NULL;
  for (size_t j = i; j < end; j++)
    if (raw[j] == '@') last_at = raw + j;
  for (size_t j = i; j < end; j++) {
    if (raw[j] == '@' && raw + j != last_at) ob_pct(o, '@');
    else if (raw[j] == '[' || raw[j] == ']') ob_ch(o, raw[j]);
    else tidy_byte(o, raw + j);
  }
  return end;
}

/* Path, query and fragment: '\' is '/' in a special path, a second '#'
 * and brackets are data. */
static void tidy_rest(obuf *o, const char *s, int special) {
  int query = 0, frag = 0;
  for (; *s; s++) {
    if (*s == '#') {
      if (frag) ob_pct(o, '#');
      else ob_ch(o, '#');
      frag = 1;
    } else if (*s == '?' && !query && !frag) {
      query = 1;
      ob_ch(o, '?');
    } else if (*s == '\\' && special && !query && !frag) {
      ob_ch(o, '/');
    } else if (*s == '[' || *s == ']') {
      ob_pct(o, (unsigned char)*s);
    } else {
      tidy_byte(o, s);
    }
  }
}

/* Copies in, tidied, into o (lower-case scheme; "./" before a relative path
 * whose first segment holds a ':', so it does not read as a scheme). The
 * scheme decides whether the URL is special; a reference without one is
 * special when its base is (base_special). Sets *special. -1: NULL or
 * longer than PG_URL_MAX, in or out. */
static int tidy(const char *in, int base_special, obuf *o, int *special) {
  size_t len = in ? strnlen(in, PG_URL_MAX + 1) : PG_URL_MAX + 1;
  if (len > PG_URL_MAX) return -1;
  const char *s = in, *e = in + len;
  while (s < e && (unsigned char)*s <= 0x20) s++;
  while (e > s && (unsigned char)e[-1] <= 0x20) e--;
  char raw[PG_URL_MAX + 1];
  size_t n = 0, i = 0;
  for (const char *p = s; p < e; p++)
    if (!is_tabnl((unsigned char)*p)) raw[n++] = *p;
  raw[n] = 0;
  while (is_scheme_char((unsigned char)raw[i])) i++;
  int has_scheme = i > 0 && raw[i] == ':' && is_alpha((unsigned char)raw[0]);
  *special = base_special;
  if (has_scheme) {
    for (size_t k = 0; k < i; k++) raw[k] = (char)lower((unsigned char)raw[k]);
    *special = special_of(raw, i) != NULL;
    ob_put(o, raw, ++i);
  } else {
    i = 0;
    size_t seg = strcspn(raw, *special ? "/?#\\" : "/?#");
    if (seg && memchr(raw, ':', seg)) ob_put(o, "./", 2);
  }
  int slash0 = raw[i] == '/' || (*special && raw[i] == '\\');
  int slash1 = slash0 && (raw[i + 1] == '/' || (*special && raw[i + 1] == '\\'));
  if (slash1) {
    ob_put(o, "//", 2);
    i = tidy_authority(o, raw, i + 2, *special);
  }
  tidy_rest(o, raw + i, *special);
  if (o->over) return -1;
  o->p[o->n] = 0;
  return 0;
}

/* ---- parse and compose ------------------------------------------------- */

/* A tidied text and its parse; the parse points into text. */
typedef struct {
  char text[PG_URL_MAX + 1];
  UriUriA uri;
  int special;
} url_doc;

/* Tidies and parses in into d. 0: d->uri must be freed (doc_release). */
static int doc_parse(url_doc *d, const char *in, int base_special) {
  obuf o = {d->text, 0, sizeof d->text, 0};
  if (tidy(in, base_special, &o, &d->special)) return -1;
  const char *err;
  return uriParseSingleUriExMmA(&d->uri, d->text, d->text + o.n, &err, &mm) == URI_SUCCESS ? 0 : -1;
}
static void doc_release(url_doc *d) { uriFreeUriMembersMmA(&d->uri, &mm); }

static size_t range_len(UriTextRangeA r) { return r.first && r.afterLast > r.first ? (size_t)(r.afterLast - r.first) : 0; }
static void ob_range(obuf *o, UriTextRangeA r) { ob_put(o, r.first, range_len(r)); }

/* The port: -1 none (or empty), -2 not a number up to 65535. */
static long port_of(const UriUriA *u) {
  size_t n = range_len(u->portText);
  long v = 0;
  for (size_t i = 0; i < n; i++) {
    if (!is_digit((unsigned char)u->portText.first[i])) return -2;
    v = v * 10 + (u->portText.first[i] - '0');
    if (v > 65535) return -2;
  }
  return n ? v : -1;
}

/* ":port" in decimal, without leading zeros (port is 0..65535). */
static void ob_port(obuf *o, long port) {
  char digits[8];
  int n = 0;
  do digits[n++] = (char)('0' + port % 10); while ((port /= 10) && n < 5);
  ob_ch(o, ':');
  while (n) ob_ch(o, digits[--n]);
}

/* RFC 5952 / URL Standard: lower-case hex, the first longest run of two or
 * more zero pieces as "::". */
static void ip6_put(obuf *o, const unsigned char *b) {
  const char *hex = crawl__hex_digits(0);
  int run = -1, runlen = 1;
  for (int i = 0, j; i < 8; i = j + 1) {
    for (j = i; j < 8 && !b[2 * j] && !b[2 * j + 1]; j++) {}
    if (j - i > runlen) run = i, runlen = j - i;
  }
  for (int i = 0; i < 8; i++) {
    if (i == run) {
      ob_put(o, i ? ":" : "::", i ? 1 : 2);
      i += runlen - 1;
      continue;
    }
    unsigned v = (unsigned)b[2 * i] << 8 | b[2 * i + 1];
    int started = 0;
    for (int sh = 12; sh >= 0; sh -= 4)
      if ((started |= (v >> sh) & 15) || !sh) ob_ch(o, hex[(v >> sh) & 15]);
    if (i < 7) ob_ch(o, ':');
  }
}

/* The host: IPv6 compressed in brackets, a name lower case (escapes upper
 * case); "localhost" of a file: URL is "". -1: a host browsers refuse. */
static int host_put(obuf *o, const UriUriA *u, const url_scheme_info *si) {
  if (u->hostData.ip6) {
    ob_ch(o, '[');
    ip6_put(o, u->hostData.ip6->data);
    ob_ch(o, ']');
    return 0;
  }
  if (u->hostData.ipFuture.first) return -1; /* "[v1.x]" */
  size_t n = range_len(u->hostText);
  const char *h = u->hostText.first;
  if (si && !si->tuple_origin && n == 9 && !strncasecmp(h, "localhost", 9)) return 0;
  for (size_t i = 0; i < n; i++)
    ob_ch(o, h[i] == '%' || (i && h[i - 1] == '%') || (i > 1 && h[i - 2] == '%') ? upper(h[i]) : lower(h[i]));
  return 0;
}

/* The path: "/" for an empty one with an authority in a special URL; "/."
 * before a path that starts "//" without an authority (so it does not read
 * as one). */
static void path_put(obuf *o, const UriUriA *u, int has_auth, int special) {
  size_t start = o->n;
  if (u->absolutePath || (has_auth && u->pathHead)) ob_ch(o, '/');
  for (const UriPathSegmentA *s = u->pathHead; s; s = s->next) {
    if (s != u->pathHead) ob_ch(o, '/');
    ob_range(o, s->text);
  }
  if (has_auth && special && o->n == start) ob_ch(o, '/');
  if (!has_auth && o->n >= start + 2 && o->p[start] == '/' && o->p[start + 1] == '/') {
    if (o->n + 3 > o->cap) {
      o->over = 1;
      return;
    }
    memmove(o->p + start + 2, o->p + start, o->n - start);
    memcpy(o->p + start, "/.", 2);
    o->n += 2;
  }
}

/* u as text in normal form (scheme and host lower case, no default port).
 * Returns a new string (caller frees), NULL when u has no scheme, a bad
 * port or host, or is longer than PG_URL_MAX. */
static char *compose(const UriUriA *u) {
  size_t sl = range_len(u->scheme);
  if (!sl) return NULL;
  const url_scheme_info *si = special_of(u->scheme.first, sl);
  long port = port_of(u);
  if (port == -2) return NULL;
  obuf o = {crawl__xmalloc(PG_URL_MAX + 1), 0, PG_URL_MAX + 1, 0};
  for (size_t i = 0; i < sl; i++) ob_ch(&o, lower((unsigned char)u->scheme.first[i]));
  ob_ch(&o, ':');
  int has_auth = u->hostText.first != NULL, bad = 0;
  if (has_auth) {
    ob_put(&o, "//", 2);
    if (u->userInfo.first) {
      ob_range(&o, u->userInfo);
      ob_ch(&o, '@');
    }
    bad = host_put(&o, u, si);
    if (port >= 0 && !(si && si->port == port)) ob_port(&o, port);
  }
  path_put(&o, u, has_auth, si != NULL);
  if (u->query.first) {
    ob_ch(&o, '?');
    ob_range(&o, u->query);
  }
  if (u->fragment.first) {
    ob_ch(&o, '#');
    ob_range(&o, u->fragment);
  }
  if (bad || o.over) {
    free(o.p);
    return NULL;
  }
  o.p[o.n] = 0;
  return crawl__xrealloc(o.p, o.n + 1);
}

/* ---- the API ------------------------------------------------------------ */

/* A base that cannot be a base (about:blank, data:, mailto:: no authority,
 * no "/" path) takes only a fragment. */
static int takes_ref(const url_doc *b, const url_doc *r) {
  return r->uri.scheme.first || b->uri.hostText.first || b->uri.absolutePath || r->text[0] == '#';
}

char *pg_url_resolve(const char *base, const char *ref) {
  url_doc *b = crawl__xmalloc(sizeof *b), *r = crawl__xmalloc(sizeof *r);
  char *out = NULL;
  if (!doc_parse(b, base, 0)) {
    if (b->uri.scheme.first && !doc_parse(r, ref, b->special)) {
      UriUriA dst;
      UriResolutionOptions opt = b->special ? URI_RESOLVE_IDENTICAL_SCHEME_COMPAT : URI_RESOLVE_STRICTLY;
      if (takes_ref(b, r) && uriAddBaseUriExMmA(&dst, &r->uri, &b->uri, opt, &mm) == URI_SUCCESS) {
        out = compose(&dst);
        uriFreeUriMembersMmA(&dst, &mm);
      }
      doc_release(r);
    }
    doc_release(b);
  }
  free(b);
  free(r);
  return out;
}

char *pg_url_normalize(const char *url) {
  static const unsigned all = URI_NORMALIZE_SCHEME | URI_NORMALIZE_USER_INFO | URI_NORMALIZE_HOST |
                              URI_NORMALIZE_PATH | URI_NORMALIZE_QUERY | URI_NORMALIZE_FRAGMENT;
  url_doc *d = crawl__xmalloc(sizeof *d);
  char *out = NULL;
  if (!doc_parse(d, url, 0)) {
    if (uriNormalizeSyntaxExMmA(&d->uri, all, &mm) == URI_SUCCESS) out = compose(&d->uri);
    doc_release(d);
  }
  free(d);
  return out;
}

/* The tuple origin of a parsed URL into o; -1 when it has none. */
static int origin_compose(obuf *o, const UriUriA *u) {
  const url_scheme_info *si = special_of(u->scheme.first, range_len(u->scheme));
  long port = port_of(u);
  if (!si || port == -2) return -1;
  if (si->tuple_origin && !range_len(u->hostText)) return -1; /* "http:///x", "http:/x" */
  ob_put(o, si->name, strlen(si->name));
  ob_put(o, "://", 3);
  if (u->hostText.first && host_put(o, u, si)) return -1;
  if (si->tuple_origin && port >= 0 && port != si->port) ob_port(o, port);
  return 0;
}

static int origin_put(obuf *o, const char *url, int allow_blob);

/* blob:URL takes the origin of an inner http(s) or file URL, once. The
 * inner URL is read with '[', ']' and '\' as written: tidy encodes them
 * in a blob: path (a resolved blob: URL holds %5B, %5D, %5C), and they
 * mean something in the inner URL's authority. */
static int blob_origin_put(obuf *o, const char *inner) {
  char scheme[8], text[PG_URL_MAX + 1];
  while (is_tabnl((unsigned char)*inner)) inner++;
  if (!is_alpha((unsigned char)*inner)) return -1; /* "blob: http:", "blob:%06http:": opaque */
  int n = pg_url_scheme(inner, scheme, sizeof scheme);
  if (!((n == 4 && !strcmp(scheme, "http")) || (n == 5 && !strcmp(scheme, "https")) ||
        (n == 4 && !strcmp(scheme, "file"))))
    return -1;
  size_t len = strnlen(inner, PG_URL_MAX + 1), k = 0;
  if (len > PG_URL_MAX) return -1;
  for (size_t i = 0; i < len; i++) {
    const char *e = inner + i;
    int c = e[0] == '%' && e[1] == '5' ? upper((unsigned char)e[2]) : 0;
    if (c == 'B' || c == 'D' || c == 'C') {
      text[k++] = c == 'B' ? '[' : c == 'D' ? ']' : '\\';
      i += 2;
    } else {
      text[k++] = *e;
    }
  }
  text[k] = 0;
  return origin_put(o, text, 0);
}

static int origin_put(obuf *o, const char *url, int allow_blob) {
  char scheme[8];
  int n;
  const char *after = scheme_scan(url, scheme, sizeof scheme, &n);
  if (!after) return -1;
  if (n == 4 && !strcmp(scheme, "blob")) return allow_blob ? blob_origin_put(o, after) : -1;
  url_doc *d = crawl__xmalloc(sizeof *d);
  int rc = -1;
  if (!doc_parse(d, url, 0)) {
    rc = origin_compose(o, &d->uri);
    doc_release(d);
  }
  free(d);
  return rc;
}

int pg_url_origin(const char *url, char *buf, size_t cap) {
  if (!cap) return -1;
  obuf o = {buf, 0, cap, 0};
  if (origin_put(&o, url, 1) || o.over) {
    buf[0] = 0;
    return -1;
  }
  buf[o.n] = 0;
  return (int)o.n;
}

int pg_url_same_origin(const char *a, const char *b) {
  char oa[PG_URL_MAX + 1], ob[PG_URL_MAX + 1];
  return pg_url_origin(a, oa, sizeof oa) >= 0 && pg_url_origin(b, ob, sizeof ob) >= 0 && !strcmp(oa, ob);
}

/* ---- route templates (pg_route_template) ----------------------------------- */

/* What a segment or query value is: a word names a place, the others name
 * one record among many. */
typedef enum { SEG_WORD, SEG_NUMBER, SEG_UUID, SEG_HEX, SEG_DATE } seg_kind;

static int digits(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!is_digit((unsigned char)s[i])) return 0;
  return 1;
}

/* 8-4-4-4-12 hex digits */
static int uuid_shaped(const char *s, size_t n) {
  if (n != 36) return 0;
  for (size_t i = 0; i < n; i++)
    if ((i == 8 || i == 13 || i == 18 || i == 23) ? s[i] != '-' : !is_hex((unsigned char)s[i])) return 0;
  return 1;
}

/* 12 or more hex digits, at least one of them a digit (a word such as
 * "decadefacade" is no id) */
static int hex_id(const char *s, size_t n) {
  int digit = 0;
  for (size_t i = 0; i < n; i++) {
    if (!is_hex((unsigned char)s[i])) return 0;
    digit |= is_digit((unsigned char)s[i]);
  }
  return n >= 12 && digit;
}

/* YYYY-MM-DD, month 01-12, day 01-31 */
static int date_shaped(const char *s, size_t n) {
  if (n != 10 || s[4] != '-' || s[7] != '-' || !digits(s, 4) || !digits(s + 5, 2) || !digits(s + 8, 2)) return 0;
  int m = (s[5] - '0') * 10 + s[6] - '0', d = (s[8] - '0') * 10 + s[9] - '0';
  return m >= 1 && m <= 12 && d >= 1 && d <= 31;
}

static seg_kind seg_classify(const char *s, size_t n) {
  if (!n) return SEG_WORD;
  if (n <= 20 && digits(s, n)) return SEG_NUMBER;
  if (uuid_shaped(s, n)) return SEG_UUID;
  if (date_shaped(s, n)) return SEG_DATE;
  if (hex_id(s, n)) return SEG_HEX;
  return SEG_WORD;
}

/* Segments before which a number is a page number. */
static const char *const pagination_words[] = {"page", "pages", "p", "pg", "seite", "pagina"};

static int is_pagination_word(const char *s, size_t n) {
  for (size_t i = 0; i < sizeof pagination_words / sizeof *pagination_words; i++)
    if (strlen(pagination_words[i]) == n && !strncasecmp(pagination_words[i], s, n)) return 1;
  return 0;
}

/* A template being written, and the parameters it took. */
typedef struct {
  char *p;
  size_t n, cap;
  pg_route_param *v;
  size_t nv, capv;
} tpl;

static void tp_put(tpl *t, const char *s, size_t n) {
  if (t->n + n + 1 > t->cap) {
    while (t->n + n + 1 > t->cap) t->cap = t->cap ? t->cap * 2 : 128;
    t->p = crawl__xrealloc(t->p, t->cap);
  }
  memcpy(t->p + t->n, s, n);
  t->n += n;
  t->p[t->n] = 0;
}

static int tp_has_name(const tpl *t, const char *name) {
  for (size_t i = 0; i < t->nv; i++)
    if (!strcmp(t->v[i].name, name)) return 1;
  return 0;
}

static char *dup_n(const char *s, size_t n) {
  char *d = crawl__xmalloc(n + 1);
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

/* Write ":name" for value (n bytes): base, made unique with a number. */
static void tp_param(tpl *t, const char *base, const char *value, size_t n, int in_query) {
  char name[80];
  snprintf(name, sizeof name, "%s", base);
  for (int k = 2; tp_has_name(t, name); k++) snprintf(name, sizeof name, "%s%d", base, k);
  if (t->nv == t->capv) {
    t->capv = t->capv ? t->capv * 2 : 4;
    t->v = crawl__xrealloc(t->v, t->capv * sizeof *t->v);
  }
  t->v[t->nv++] = (pg_route_param){dup_n(name, strlen(name)), dup_n(value, n), in_query};
  tp_put(t, ":", 1);
  tp_put(t, name, strlen(name));
}

/* The segments of a path (s, n bytes), "/" kept between them. */
static void tp_path(tpl *t, const char *s, size_t n) {
  const char *prev = NULL, *end = s + n;
  size_t prevn = 0;
  for (const char *p = s; p <= end;) {
    const char *slash = memchr(p, '/', (size_t)(end - p));
    const char *e = slash ? slash : end;
    size_t len = (size_t)(e - p);
    seg_kind k = seg_classify(p, len);
    if (k == SEG_WORD) tp_put(t, p, len);
    else tp_param(t, k == SEG_DATE ? "date" : k == SEG_NUMBER && prev && is_pagination_word(prev, prevn) ? "n" : "id", p,
                  len, 0);
    if (!slash) break;
    tp_put(t, "/", 1);
    prev = p;
    prevn = len;
    p = slash + 1;
  }
}

/* A query (s, n bytes, after its "?"): a record's value becomes ":key". */
static void tp_query(tpl *t, const char *s, size_t n) {
  const char *end = s + n;
  for (const char *p = s; p <= end;) {
    const char *amp = memchr(p, '&', (size_t)(end - p));
    const char *e = amp ? amp : end;
    const char *eq = memchr(p, '=', (size_t)(e - p));
    char key[64];
    size_t kl = 0;
    for (const char *q = p; eq && q < eq && kl + 1 < sizeof key; q++)
      if (is_alpha((unsigned char)*q) || is_digit((unsigned char)*q) || *q == '_' || *q == '-') key[kl++] = *q;
    key[kl] = 0;
    if (eq && seg_classify(eq + 1, (size_t)(e - eq - 1)) != SEG_WORD) {
      tp_put(t, p, (size_t)(eq + 1 - p));
      tp_param(t, kl ? key : "q", eq + 1, (size_t)(e - eq - 1), 1);
    } else {
      tp_put(t, p, (size_t)(e - p));
    }
    if (!amp) break;
    tp_put(t, "&", 1);
    p = amp + 1;
  }
}

/* path[?query] of s (n bytes) */
static void tp_path_query(tpl *t, const char *s, size_t n) {
  const char *q = memchr(s, '?', n);
  tp_path(t, s, q ? (size_t)(q - s) : n);
  if (!q) return;
  tp_put(t, "?", 1);
  tp_query(t, q + 1, n - (size_t)(q + 1 - s));
}

char *pg_route_template(const char *route, pg_route_param **params, size_t *nparams) {
  if (params) *params = NULL;
  if (nparams) *nparams = 0;
  if (!route || strlen(route) > PG_URL_MAX) return NULL;
  tpl t = {0};
  tp_put(&t, "", 0);
  const char *rest = route;
  if (*route != '/' && *route != '?' && *route != '#') {
    rest = pg_url_rest(route);
    if (!*rest) rest = route + strlen(route); /* no authority, or nothing after it */
    tp_put(&t, route, (size_t)(rest - route));
  }
  const char *h = strchr(rest, '#');
  tp_path_query(&t, rest, h ? (size_t)(h - rest) : strlen(rest));
  if (h && (h[1] == '/' || h[1] == '!')) {
    size_t pre = h[1] == '!' ? (h[2] == '/' ? 3 : 2) : 1;
    tp_put(&t, h, pre);
    tp_path_query(&t, h + pre, strlen(h + pre));
  } else if (h) {
    tp_put(&t, h, strlen(h));
  }
  if (params) *params = t.v;
  else pg_route_params_free(t.v, t.nv);
  if (nparams) *nparams = params ? t.nv : 0;
  return t.p;
}

void pg_route_params_free(pg_route_param *params, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(params[i].name);
    free(params[i].value);
  }
  free(params);
}

/* ---- added for crawler/run (issue #26, helper "capture"; kept apart) ---- */
size_t pg_url_query_start(const char *url) { return strcspn(url, "?#"); }

size_t pg_url_fragment_start(const char *url) { return strcspn(url, "#"); }

int pg_url_host(const char *url, char *buf, size_t cap) {
  char o[PG_URL_MAX];
  if (cap) buf[0] = 0;
  if (pg_url_origin(url, o, sizeof o) < 0) return -1;
  const char *h = strstr(o, "://") + 3; /* a tuple origin always has one */
  const char *colon = strrchr(h, ':');
  size_t n = colon && !strchr(colon, ']') ? (size_t)(colon - h) : strlen(h);
  if (n >= cap) return -1;
  memcpy(buf, h, n);
  buf[n] = 0;
  return (int)n;
}

/* snapshot.c -- read the text of a DOMSnapshot.captureSnapshot reply straight
 * into compact arrays (pg_snapshot), without building a JSON tree.
 *
 * On a 50,000-element page the reply is ~10 MB of mostly small integers; as
 * a cJSON tree that is several times the text (one 64-byte node per number).
 * Here every per-node and per-layout array becomes an int32 (or double)
 * array, and every string of the table is unescaped once into one block.
 *
 * The text is untrusted: every read is bounds-checked against the length,
 * the known structure is parsed by fixed-depth functions, unknown keys are
 * skipped by a loop (not recursion) with the total nesting capped, sizes are
 * capped by the input length, and anything malformed gives PG_INPUT.
 * Out of memory aborts in crawl__xmalloc, as everywhere in graph/.
 */
#include "pg_int.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64          /* JSON nesting, known structure included */
#define MAX_STYLES 64         /* computed styles per layout object */
#define MAX_NUMBER_TEXT 512   /* a number longer than this is not CDP's */

typedef struct {
  const char *p, *end;
  size_t len;                 /* of the whole text: caps padded output */
  int depth;                  /* nesting of the value being read */
  char *key;                  /* the object key just read (unescaped) */
  size_t keylen, keycap;
} rd;

/* A growing buffer; `n` elements of `size` bytes. */
typedef struct {
  void *v;
  size_t n, cap;
} vec;

static void vec_reserve(vec *a, size_t size, size_t more) {
  if (a->cap - a->n >= more) return;
  size_t cap = a->cap ? a->cap : 16;
  while (cap - a->n < more) cap *= 2;
  a->v = crawl__xrealloc(a->v, cap * size);
  a->cap = cap;
}
static void push_i32(vec *a, int32_t x) {
  vec_reserve(a, sizeof x, 1);
  ((int32_t *)a->v)[a->n++] = x;
}
static void push_f64(vec *a, double x) {
  vec_reserve(a, sizeof x, 1);
  ((double *)a->v)[a->n++] = x;
}
/* Hand the elements over with no slack; NULL when empty. */
static void *vec_take(vec *a, size_t size, size_t *n) {
  void *v = a->v;
  if (n) *n = a->n;
  if (!a->n) {
    free(v);
    v = NULL;
  } else if (a->cap > a->n) {
    v = crawl__xrealloc(v, a->n * size);
  }
  a->v = NULL;
  a->n = a->cap = 0;
  return v;
}

/* ---- lexical level -------------------------------------------------------- */
static void ws(rd *r) {
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t')) r->p++;
}
/* Next significant byte (not consumed), or -1 at the end. */
static int peek(rd *r) {
  ws(r);
  return r->p < r->end ? (unsigned char)*r->p : -1;
}
static int eat(rd *r, char ch) {
  if (peek(r) != (unsigned char)ch) return -1;
  r->p++;
  return 0;
}

static int hex4(const char *p, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char ch = p[i];
    v <<= 4;
    if (ch >= '0' && ch <= '9') v |= (unsigned)(ch - '0');
    else if (ch >= 'a' && ch <= 'f') v |= (unsigned)(ch - 'a' + 10);
    else if (ch >= 'A' && ch <= 'F') v |= (unsigned)(ch - 'A' + 10);
    else return -1;
  }
  *out = v;
  return 0;
}

static size_t put_utf8(char *o, unsigned cp) {
  if (cp < 0x80) { o[0] = (char)cp; return 1; }
  if (cp < 0x800) {
    o[0] = (char)(0xC0 | cp >> 6);
    o[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = (char)(0xE0 | cp >> 12);
    o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
    o[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (char)(0xF0 | cp >> 18);
  o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
  o[2] = (char)(0x80 | (cp >> 6 & 0x3F));
  o[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* Length of the valid UTF-8 sequence at p (lead byte >= 0x80), or 0 when
 * it is not; then *bad is the length of its maximal valid prefix (>= 1),
 * to be replaced by one U+FFFD (Unicode's "maximal subpart" rule). */
static size_t utf8_seq(const unsigned char *p, const unsigned char *end, size_t *bad) {
  unsigned char b = p[0];
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF; /* range of the second byte */
  if (b >= 0xC2 && b <= 0xDF) need = 2;
  else if (b >= 0xE0 && b <= 0xEF) {
    need = 3;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F; /* no UTF-16 surrogates */
  } else if (b >= 0xF0 && b <= 0xF4) {
    need = 4;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
  } else {
    *bad = 1;
    return 0;
  }
  size_t k = 1;
  for (; k < need; k++) {
    if (p + k >= end) break;
    unsigned char c = p[k];
    if (k == 1 ? (c < lo || c > hi) : (c < 0x80 || c > 0xBF)) break;
  }
  if (k == need) return need;
  *bad = k;
  return 0;
}

/* Read the string at r->p (which is '"') into out (a vec of char), unescaped
 * into valid UTF-8: escapes decoded, surrogate pairs joined, a lone
 * surrogate or an invalid byte sequence becomes U+FFFD, control characters
 * are kept. Appends no NUL. -1 on a bad escape or an unterminated string. */
static int read_string(rd *r, vec *out) {
  const unsigned char *p = (const unsigned char *)r->p + 1, *end = (const unsigned char *)r->end;
  for (;;) {
    const unsigned char *run = p;
    while (p < end && *p != '"' && *p != '\\' && *p < 0x80) p++;
    if (p > run) {
      vec_reserve(out, 1, (size_t)(p - run));
      memcpy((char *)out->v + out->n, run, (size_t)(p - run));
      out->n += (size_t)(p - run);
    }
    if (p >= end) return -1;
    vec_reserve(out, 1, 8);
    char *o = (char *)out->v + out->n;
    if (*p == '"') {
      r->p = (const char *)p + 1;
      return 0;
    }
    if (*p >= 0x80) {
      size_t bad, n = utf8_seq(p, end, &bad);
      if (n) {
        memcpy(o, p, n);
        out->n += n;
        p += n;
      } else {
        out->n += put_utf8(o, 0xFFFD);
        p += bad;
      }
      continue;
    }
    /* an escape */
    if (end - p < 2) return -1;
    unsigned char e = p[1];
    p += 2;
    switch (e) {
    case '"': *o = '"'; break;
    case '\\': *o = '\\'; break;
    case '/': *o = '/'; break;
    case 'b': *o = '\b'; break;
    case 'f': *o = '\f'; break;
    case 'n': *o = '\n'; break;
    case 'r': *o = '\r'; break;
    case 't': *o = '\t'; break;
    case 'u': {
      unsigned cp, lo;
      if (end - p < 4 || hex4((const char *)p, &cp) < 0) return -1;
      p += 4;
      if (cp >= 0xD800 && cp <= 0xDBFF && end - p >= 6 && p[0] == '\\' && p[1] == 'u' &&
          hex4((const char *)p + 2, &lo) == 0 && lo >= 0xDC00 && lo <= 0xDFFF) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        p += 6;
      } else if (cp >= 0xD800 && cp <= 0xDFFF) {
        cp = 0xFFFD; /* a lone surrogate */
      }
      out->n += put_utf8(o, cp);
      continue;
    }
    default:
      return -1;
    }
    out->n++;
  }
}

/* Skip the string at r->p (which is '"'); escapes are not checked. */
static int skip_string(rd *r) {
  const char *p = r->p + 1;
  for (;;) {
    const char *q = p;
    while (q < r->end && *q != '"' && *q != '\\') q++;
    if (q >= r->end) return -1;
    if (*q == '"') {
      r->p = q + 1;
      return 0;
    }
    if (r->end - q < 2) return -1;
    p = q + 2;
  }
}

/* Read an object key and the ':' after it into r->key. */
static int read_key(rd *r) {
  if (peek(r) != '"') return -1;
  vec k = {r->key, 0, r->keycap};
  if (read_string(r, &k) < 0) {
    r->key = k.v;
    r->keycap = k.cap;
    return -1;
  }
  r->key = k.v;
  r->keycap = k.cap;
  r->keylen = k.n;
  return eat(r, ':');
}
static int key_is(const rd *r, const char *name) {
  size_t n = strlen(name);
  return r->keylen == n && memcmp(r->key, name, n) == 0;
}

/* A JSON number at r->p. Values with at most 15 significant digits and no
 * exponent are computed directly: the digits as an integer (exact in a
 * double) divided by a power of ten up to 1e22 (exact too) is one correctly
 * rounded division, so the result equals strtod's. Others go through strtod,
 * as cJSON does. *is_int: no fraction and no exponent. */
static int read_number(rd *r, double *out, long long *iout, int *is_int) {
  static const double pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char *p = r->p, *end = r->end, *start = p;
  int neg = 0;
  if (p < end && *p == '-') { neg = 1; p++; }
  if (p >= end || *p < '0' || *p > '9') return -1;
  if (*p == '0' && p + 1 < end && p[1] >= '0' && p[1] <= '9') return -1; /* leading zero */
  long long v = 0;
  int digits = 0, fdigits = 0, frac = 0, expo = 0;
  while (p < end && *p >= '0' && *p <= '9') {
    if (digits < 15) v = v * 10 + (*p - '0');
    digits++;
    p++;
  }
  if (p < end && *p == '.') {
    p++;
    if (p >= end || *p < '0' || *p > '9') return -1;
    while (p < end && *p >= '0' && *p <= '9') {
      if (digits + fdigits < 15) v = v * 10 + (*p - '0');
      fdigits++;
      p++;
    }
    frac = 1;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    p++;
    if (p < end && (*p == '+' || *p == '-')) p++;
    if (p >= end || *p < '0' || *p > '9') return -1;
    while (p < end && *p >= '0' && *p <= '9') p++;
    frac = expo = 1;
  }
  r->p = p;
  *is_int = !frac;
  *iout = 0;
  if (!expo && digits + fdigits <= 15) {
    if (!frac) *iout = neg ? -v : v;
    double d = fdigits ? (double)v / pow10[fdigits] : (double)v;
    *out = neg ? -d : d;
    return 0;
  }
  size_t n = (size_t)(p - start);
  if (n >= MAX_NUMBER_TEXT) return -1;
  char buf[MAX_NUMBER_TEXT];
  memcpy(buf, start, n);
  buf[n] = 0;
  /* strtod reads the locale's decimal point */
  const char *dp = localeconv()->decimal_point;
  if (dp && dp[0] && dp[0] != '.' && !dp[1]) {
    char *dot = memchr(buf, '.', n);
    if (dot) *dot = dp[0];
  }
  *out = strtod(buf, NULL);
  /* too big for a double (1e400): not a coordinate, not an index */
  return isinf(*out) ? -1 : 0;
}

/* An int32: integral values as such; a fraction is cut toward zero (as
 * cJSON's valueint); a value out of range is an error. */
static int read_i32(rd *r, int32_t *out) {
  /* fast path: plain integers, the bulk of a snapshot */
  const char *p = r->p, *end = r->end;
  int neg = p < end && *p == '-';
  const char *d = p + neg;
  if (d < end && *d >= '0' && *d <= '9') {
    long long v = 0;
    const char *q = d;
    if (*d == '0') q++; /* "01" is not a number: the digit after sends it below */
    else
      while (q < end && *q >= '0' && *q <= '9' && q - d < 11) v = v * 10 + (*q++ - '0');
    if ((q >= end || (*q != '.' && *q != 'e' && *q != 'E' && (*q < '0' || *q > '9'))) &&
        v <= 2147483647LL + neg) {
      *out = (int32_t)(neg ? -v : v);
      r->p = q;
      return 0;
    }
  }
  double dv;
  long long iv;
  int is_int;
  if (read_number(r, &dv, &iv, &is_int) < 0) return -1;
  if (!(dv > -2147483649.0 && dv < 2147483648.0)) return -1;
  *out = (int32_t)dv;
  return 0;
}

/* Skip one value of any type. A loop, not recursion: nesting is counted
 * against MAX_DEPTH together with the depth already entered. */
static int skip_value(rd *r) {
  char stack[MAX_DEPTH];
  int top = 0, room = MAX_DEPTH - r->depth;
  for (;;) {
    /* a value */
    int ch = peek(r);
    if (ch == '{' || ch == '[') {
      if (top >= room) return -1;
      stack[top++] = (char)ch;
      r->p++;
      int close = ch == '{' ? '}' : ']';
      if (peek(r) == close) {
        r->p++;
        top--;
      } else {
        if (ch == '{' && read_key(r) < 0) return -1;
        continue; /* read the first member */
      }
    } else if (ch == '"') {
      if (skip_string(r) < 0) return -1;
    } else if (ch == '-' || (ch >= '0' && ch <= '9')) {
      double d;
      long long iv;
      int is_int;
      if (read_number(r, &d, &iv, &is_int) < 0) return -1;
    } else {
      static const char *const lits[] = {"true", "false", "null"};
      size_t i = 0;
      for (; i < 3; i++) {
        size_t n = strlen(lits[i]);
        if ((size_t)(r->end - r->p) >= n && !memcmp(r->p, lits[i], n)) {
          r->p += n;
          break;
        }
      }
      if (i == 3) return -1;
    }
    /* after a value: close containers, or go on to the next member */
    for (;;) {
      if (!top) return 0;
      ch = peek(r);
      if (ch == ',') {
        r->p++;
        if (stack[top - 1] == '{' && read_key(r) < 0) return -1;
        break;
      }
      if (ch != (stack[top - 1] == '{' ? '}' : ']')) return -1;
      r->p++;
      top--;
    }
  }
}

/* ---- arrays --------------------------------------------------------------- */
/* Iterate "[v, v, ...]": begin() consumes '[' and tells whether it is
 * empty; next() consumes ',' (1: another element) or ']' (0: done). */
static int arr_begin(rd *r, int *empty) {
  if (eat(r, '[') < 0) return -1;
  if (++r->depth > MAX_DEPTH) return -1;
  *empty = peek(r) == ']';
  if (*empty) {
    r->p++;
    r->depth--;
  }
  return 0;
}
static int arr_next(rd *r) {
  int ch = peek(r);
  if (ch == ',') {
    r->p++;
    return 1;
  }
  if (ch == ']') {
    r->p++;
    r->depth--;
    return 0;
  }
  return -1;
}

/* Same for objects: *more is 1 with r->key set to the next key. */
static int obj_begin(rd *r, int *more) {
  if (eat(r, '{') < 0) return -1;
  if (++r->depth > MAX_DEPTH) return -1;
  if (peek(r) == '}') {
    r->p++;
    r->depth--;
    *more = 0;
    return 0;
  }
  *more = 1;
  return read_key(r);
}
static int obj_next(rd *r, int *more) {
  int ch = peek(r);
  if (ch == ',') {
    r->p++;
    *more = 1;
    return read_key(r);
  }
  if (ch == '}') {
    r->p++;
    r->depth--;
    *more = 0;
    return 0;
  }
  return -1;
}

/* Bit for a known key, so that a repeated key is skipped (the first one
 * counts, as with cJSON's getters) and never leaks. */
static int first_time(unsigned *seen, int bit) {
  if (*seen >> bit & 1u) return 0;
  *seen |= 1u << bit;
  return 1;
}

static int read_i32_array(rd *r, vec *out) {
  int empty;
  if (arr_begin(r, &empty) < 0) return -1;
  if (empty) return 0;
  int more;
  do {
    int32_t v;
    ws(r);
    if (read_i32(r, &v) < 0) return -1;
    push_i32(out, v);
  } while ((more = arr_next(r)) == 1);
  return more;
}

static int take_i32_array(rd *r, int32_t **v, size_t *n) {
  vec a = {0};
  if (read_i32_array(r, &a) < 0) {
    free(a.v);
    return -1;
  }
  *v = vec_take(&a, sizeof(int32_t), n);
  return 0;
}

/* A number where a double is expected. */
static int read_f64(rd *r, double *out) {
  long long iv;
  int is_int;
  ws(r);
  return read_number(r, out, &iv, &is_int);
}

/* [[x,y,w,h], ...]: 4 doubles per entry; a short entry (clientRects has
 * empty ones) is padded with 0, numbers past the 4th are ignored. */
static int take_rects(rd *r, double **v, size_t *n) {
  vec a = {0};
  int empty, more = 0;
  if (arr_begin(r, &empty) < 0) goto bad;
  if (!empty) {
    do {
      double q[4] = {0, 0, 0, 0};
      int e2, m2, k = 0;
      if (arr_begin(r, &e2) < 0) goto bad;
      if (!e2) {
        do {
          double x;
          if (read_f64(r, &x) < 0) goto bad;
          if (k < 4) q[k] = x;
          k++;
        } while ((m2 = arr_next(r)) == 1);
        if (m2 < 0) goto bad;
      }
      for (k = 0; k < 4; k++) push_f64(&a, q[k]);
    } while ((more = arr_next(r)) == 1);
    if (more < 0) goto bad;
  }
  *n = a.n / 4;
  *v = vec_take(&a, sizeof(double), NULL);
  return 0;
bad:
  free(a.v);
  return -1;
}

/* [[idx, ...], ...] of one stride: the longest entry sets it; shorter ones
 * are padded with -1 (the empty string, as a missing style reads). */
static int take_styles(rd *r, int32_t **v, size_t *n, int *stride) {
  vec a = {0};
  int s = 0, empty, more = 0;
  size_t entries = 0;
  if (arr_begin(r, &empty) < 0) goto bad;
  if (!empty) {
    do {
      int e2, m2, k = 0;
      if (arr_begin(r, &e2) < 0) goto bad;
      size_t base = entries * (size_t)s;
      /* padding may not outgrow the text (real entries all have one length) */
      if (base + (size_t)s > r->len) goto bad;
      vec_reserve(&a, sizeof(int32_t), (size_t)s);
      for (int j = 0; j < s; j++) ((int32_t *)a.v)[base + (size_t)j] = -1;
      a.n = base + (size_t)s;
      if (!e2) {
        do {
          int32_t x;
          ws(r);
          if (read_i32(r, &x) < 0) goto bad;
          if (k == s) {
            /* a longer entry: widen every entry so far */
            if (s == MAX_STYLES || (entries + 1) * (size_t)(s + 1) > r->len) goto bad;
            int ns = s + 1;
            vec_reserve(&a, sizeof(int32_t), (entries + 1) * (size_t)ns - a.n);
            int32_t *w = a.v;
            for (size_t e = entries + 1; e-- > 0;) {
              for (int j = s; j-- > 0;) w[e * (size_t)ns + (size_t)j] = w[e * (size_t)s + (size_t)j];
              w[e * (size_t)ns + (size_t)s] = -1;
            }
            s = ns;
            a.n = (entries + 1) * (size_t)s;
            base = entries * (size_t)s;
          }
          ((int32_t *)a.v)[base + (size_t)k] = x;
          k++;
        } while ((m2 = arr_next(r)) == 1);
        if (m2 < 0) goto bad;
      }
      entries++;
    } while ((more = arr_next(r)) == 1);
    if (more < 0) goto bad;
  }
  *v = vec_take(&a, sizeof(int32_t), NULL);
  *n = entries;
  *stride = s;
  return 0;
bad:
  free(a.v);
  return -1;
}

/* attributes: [[name, value, ...], ...] -> offsets and one flat array. */
static int take_attributes(rd *r, pg__snap_doc *d) {
  vec off = {0}, flat = {0};
  int empty, more = 0;
  if (arr_begin(r, &empty) < 0) goto bad;
  if (!empty) {
    do {
      if (flat.n > UINT32_MAX) goto bad;
      vec_reserve(&off, sizeof(uint32_t), 1);
      ((uint32_t *)off.v)[off.n++] = (uint32_t)flat.n;
      if (read_i32_array(r, &flat) < 0) goto bad;
    } while ((more = arr_next(r)) == 1);
    if (more < 0) goto bad;
  }
  if (flat.n > UINT32_MAX) goto bad;
  d->nattr_nodes = off.n;
  vec_reserve(&off, sizeof(uint32_t), 1); /* the end of the last entry */
  ((uint32_t *)off.v)[off.n++] = (uint32_t)flat.n;
  d->attr_off = vec_take(&off, sizeof(uint32_t), NULL);
  d->attr = vec_take(&flat, sizeof(int32_t), NULL);
  return 0;
bad:
  free(off.v);
  free(flat.v);
  return -1;
}

/* {index:[...], value:[...]}; value is optional (rare booleans have none). */
static int take_sparse(rd *r, pg__snap_sparse *s) {
  int more;
  unsigned seen = 0;
  if (obj_begin(r, &more) < 0) return -1;
  while (more) {
    int rc;
    if (key_is(r, "index") && first_time(&seen, 0)) rc = take_i32_array(r, &s->index, &s->nindex);
    else if (key_is(r, "value") && first_time(&seen, 1)) rc = take_i32_array(r, &s->value, &s->nvalue);
    else rc = skip_value(r);
    if (rc < 0 || obj_next(r, &more) < 0) return -1;
  }
  return 0;
}

/* ---- the structure ---------------------------------------------------------- */
typedef enum { K_INT_ARRAY, K_SPARSE } node_kind;
static const struct {
  const char *key;
  node_kind kind;
  size_t off, noff;             /* of the pointer and the count (or the sparse) */
} node_keys[] = {
#define A(k, f) {k, K_INT_ARRAY, offsetof(pg__snap_doc, f), offsetof(pg__snap_doc, n##f)}
#define S(k, f) {k, K_SPARSE, offsetof(pg__snap_doc, f), 0}
  A("parentIndex", parent), A("nodeType", type), A("nodeName", name),
  A("nodeValue", value), A("backendNodeId", backend),
  S("shadowRootType", shadow_root_type), S("textValue", text_value),
  S("inputValue", input_value), S("inputChecked", input_checked),
  S("optionSelected", option_selected), S("contentDocumentIndex", content_document_index),
  S("isClickable", is_clickable),
#undef A
#undef S
};

static int read_nodes(rd *r, pg__snap_doc *d) {
  int more;
  unsigned seen = 0;
  if (obj_begin(r, &more) < 0) return -1;
  while (more) {
    int rc = 1; /* 1: not a known key */
    size_t nk = sizeof node_keys / sizeof *node_keys;
    for (size_t k = 0; k < nk && rc == 1; k++) {
      if (!key_is(r, node_keys[k].key)) continue;
      if (!first_time(&seen, (int)k)) break;
      char *base = (char *)d;
      if (node_keys[k].kind == K_INT_ARRAY)
        rc = take_i32_array(r, (int32_t **)(void *)(base + node_keys[k].off), (size_t *)(void *)(base + node_keys[k].noff));
      else
        rc = take_sparse(r, (pg__snap_sparse *)(void *)(base + node_keys[k].off));
    }
    if (rc == 1 && key_is(r, "attributes") && first_time(&seen, 31)) rc = take_attributes(r, d);
    if (rc == 1) rc = skip_value(r);
    if (rc < 0 || obj_next(r, &more) < 0) return -1;
  }
  return 0;
}

static int read_layout(rd *r, pg__snap_doc *d) {
  int more;
  unsigned seen = 0;
  if (obj_begin(r, &more) < 0) return -1;
  while (more) {
    int rc;
    if (key_is(r, "nodeIndex") && first_time(&seen, 0)) rc = take_i32_array(r, &d->layout_node, &d->nlayout_node);
    else if (key_is(r, "styles") && first_time(&seen, 1)) rc = take_styles(r, &d->styles, &d->nstyles, &d->style_stride);
    else if (key_is(r, "bounds") && first_time(&seen, 2)) rc = take_rects(r, &d->bounds, &d->nbounds);
    else if (key_is(r, "clientRects") && first_time(&seen, 3)) rc = take_rects(r, &d->client_rects, &d->nclient_rects);
    else if (key_is(r, "paintOrders") && first_time(&seen, 4)) rc = take_i32_array(r, &d->paint, &d->npaint);
    else rc = skip_value(r);
    if (rc < 0 || obj_next(r, &more) < 0) return -1;
  }
  return 0;
}

static int read_document(rd *r, pg__snap_doc *d) {
  static const char *const str_keys[] = {"documentURL", "title", "baseURL", "frameId"};
  static const char *const num_keys[] = {"scrollOffsetX", "scrollOffsetY", "contentWidth", "contentHeight"};
  int32_t *strs[] = {&d->document_url, &d->title, &d->base_url, &d->frame_id};
  double *nums[] = {&d->scroll_x, &d->scroll_y, &d->content_width, &d->content_height};
  int more;
  unsigned seen = 0;
  if (obj_begin(r, &more) < 0) return -1;
  while (more) {
    int rc = 1;
    for (int k = 0; k < 4 && rc == 1; k++) {
      if (key_is(r, str_keys[k]) && first_time(&seen, k)) {
        ws(r);
        rc = read_i32(r, strs[k]);
      } else if (key_is(r, num_keys[k]) && first_time(&seen, 4 + k)) {
        rc = read_f64(r, nums[k]);
      }
    }
    if (rc == 1 && key_is(r, "nodes") && first_time(&seen, 8)) rc = read_nodes(r, d);
    if (rc == 1 && key_is(r, "layout") && first_time(&seen, 9)) rc = read_layout(r, d);
    if (rc == 1) rc = skip_value(r);
    if (rc < 0 || obj_next(r, &more) < 0) return -1;
  }
  return 0;
}

static void doc_release(pg__snap_doc *d) {
  free(d->parent);
  free(d->type);
  free(d->name);
  free(d->value);
  free(d->backend);
  free(d->attr_off);
  free(d->attr);
  pg__snap_sparse *sp[] = {&d->shadow_root_type, &d->text_value, &d->input_value, &d->input_checked,
                           &d->option_selected, &d->content_document_index, &d->is_clickable};
  for (size_t i = 0; i < sizeof sp / sizeof *sp; i++) {
    free(sp[i]->index);
    free(sp[i]->value);
  }
  free(d->layout_node);
  free(d->styles);
  free(d->bounds);
  free(d->client_rects);
  free(d->paint);
}

static int read_documents(rd *r, pg_snapshot *s) {
  vec docs = {0};
  int empty, more = 0;
  if (arr_begin(r, &empty) < 0) return -1;
  if (!empty) {
    do {
      vec_reserve(&docs, sizeof(pg__snap_doc), 1);
      pg__snap_doc *d = (pg__snap_doc *)docs.v + docs.n++;
      memset(d, 0, sizeof *d);
      d->document_url = d->title = d->base_url = d->frame_id = -1;
      /* the documents so far are visible to pg_snapshot_free */
      s->docs = docs.v;
      s->ndocs = docs.n;
      if (read_document(r, d) < 0) return -1;
    } while ((more = arr_next(r)) == 1);
    if (more < 0) return -1;
  }
  s->docs = vec_take(&docs, sizeof(pg__snap_doc), &s->ndocs);
  return 0;
}

static int read_strings(rd *r, pg_snapshot *s) {
  vec text = {0}, off = {0};
  int empty, more = 0;
  if (arr_begin(r, &empty) < 0) goto bad;
  if (!empty) {
    do {
      if (peek(r) != '"' || text.n > UINT32_MAX) goto bad;
      vec_reserve(&off, sizeof(uint32_t), 1);
      ((uint32_t *)off.v)[off.n++] = (uint32_t)text.n;
      if (read_string(r, &text) < 0) goto bad;
      vec_reserve(&text, 1, 1);
      ((char *)text.v)[text.n++] = '\0';
    } while ((more = arr_next(r)) == 1);
    if (more < 0) goto bad;
  }
  s->text = vec_take(&text, 1, &s->text_len);
  s->str_off = vec_take(&off, sizeof(uint32_t), &s->nstrings);
  return 0;
bad:
  free(text.v);
  free(off.v);
  return -1;
}

/* {documents, strings} directly, or inside "result" of the whole message. */
static int read_top(rd *r, pg_snapshot *s, int in_result, unsigned *seen) {
  int more;
  if (obj_begin(r, &more) < 0) return -1;
  while (more) {
    int rc;
    if (key_is(r, "documents") && first_time(seen, 0)) rc = read_documents(r, s);
    else if (key_is(r, "strings") && first_time(seen, 1)) rc = read_strings(r, s);
    else if (!in_result && key_is(r, "result") && first_time(seen, 2)) rc = read_top(r, s, 1, seen);
    else rc = skip_value(r);
    if (rc < 0 || obj_next(r, &more) < 0) return -1;
  }
  return 0;
}

pg_code pg_snapshot_parse(const char *json, size_t len, pg_snapshot **out) {
  *out = NULL;
  if (!json || len > UINT32_MAX) return PG_INPUT;
  pg_snapshot *s = crawl__xmalloc(sizeof *s);
  memset(s, 0, sizeof *s);
  rd r = {json, json + len, len, 0, NULL, 0, 0};
  unsigned seen = 0;
  int rc = read_top(&r, s, 0, &seen);
  free(r.key);
  /* both parts must be there, and nothing but white space after */
  if (rc < 0 || (seen & 3u) != 3u || peek(&r) != -1) {
    pg_snapshot_free(s);
    return PG_INPUT;
  }
  *out = s;
  return PG_OK;
}

void pg_snapshot_free(pg_snapshot *s) {
  if (!s) return;
  for (size_t i = 0; i < s->ndocs; i++) doc_release(&s->docs[i]);
  free(s->docs);
  free(s->text);
  free(s->str_off);
  free(s);
}

size_t pg_snapshot_node_count(const pg_snapshot *s) {
  size_t n = 0;
  for (size_t i = 0; s && i < s->ndocs; i++) n += s->docs[i].nparent;
  return n;
}

size_t pg_snapshot_document_count(const pg_snapshot *s) { return s ? s->ndocs : 0; }

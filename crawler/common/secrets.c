/* secrets.c -- the run's secret list and its one filter (crawl_secrets.h):
 * every value kept in each of its spellings (secret_forms.c), indexed by
 * their first two bytes, longest first, matched as written or URL-encoded. */
#include "crawl_common.h"
#include "crawl_secrets.h"
#include "secrets_int.h"

#include <stdlib.h>
#include <string.h>

#include "crawl_util.h"

typedef struct {
  char *v;           /* one spelling of a secret */
  size_t len;
  const char *mask;  /* what it becomes: "[redacted]", or a pii mask */
  int value;         /* 1: the value as added (the others derive from it) */
} form;

typedef struct {
  size_t *at;        /* indices into forms, longest first */
  size_t n, cap;
} bucket;

#define BUCKETS 4096 /* the index: forms by a hash of their first two bytes */

struct crawl__secrets {
  form *f;           /* every spelling, in the order added */
  size_t nf, capf;
  bucket *first;     /* BUCKETS of them, allocated with the first form */
  size_t n;          /* values kept */
  long dropped;
  crawl__text_filter filter;
};

crawl__secrets *crawl__secrets_new(void) { return crawl__xcalloc(1, sizeof(crawl__secrets)); }

void crawl__secrets_free(crawl__secrets *s) {
  if (!s) return;
  for (size_t k = 0; k < s->nf; k++) free(s->f[k].v);
  for (int b = 0; s->first && b < BUCKETS; b++) free(s->first[b].at);
  free(s->first);
  free(s->f);
  free(s);
}

size_t crawl__secrets_count(const crawl__secrets *s) { return s ? s->n : 0; }
long crawl__secrets_dropped(const crawl__secrets *s) { return s ? s->dropped : 0; }

static int is_space(unsigned char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f'; }

/* Characters of v (UTF-8 lead bytes) that are not white space. */
static size_t visible_chars(const char *v, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)v[i];
    k += (ch & 0xC0) != 0x80 && !is_space(ch);
  }
  return k;
}

int crawl__secrets_add(crawl__secrets *s, const char *value) {
  return crawl__secrets_add_masked(s, value, CRAWL__REDACTED);
}

void crawl__secrets_filter(crawl__secrets *s, crawl__text_filter fn) {
  if (s) s->filter = fn;
}
int crawl__secrets_filtered(const crawl__secrets *s) { return s && s->filter; }

static size_t bucket_of(unsigned char b1, unsigned char b2) { return ((size_t)b1 * 131 + b2) % BUCKETS; }

/* The form spelled v (n >= 2 bytes), a value as added when value is set; -1 when none. */
static long find_form(const crawl__secrets *s, const char *v, size_t n, int value) {
  if (!s->first) return -1;
  const bucket *b = &s->first[bucket_of((unsigned char)v[0], (unsigned char)v[1])];
  for (size_t i = 0; i < b->n; i++) {
    const form *f = &s->f[b->at[i]];
    if (f->len == n && (!value || f->value) && !memcmp(f->v, v, n)) return (long)b->at[i];
  }
  return -1;
}

/* secrets_int.h: one more spelling of the value being added; a spelling
 * already known (any value's) is not kept twice. */
void crawl__secrets_form(crawl__secrets *s, const char *v, size_t n, const char *mask, int value) {
  if (n < 2 || find_form(s, v, n, 0) >= 0) return; /* a value has 4 characters at least */
  if (!s->first) s->first = crawl__xcalloc(BUCKETS, sizeof *s->first);
  if (s->nf == s->capf) {
    s->capf = s->capf ? s->capf * 2 : 64;
    s->f = crawl__xrealloc(s->f, s->capf * sizeof *s->f);
  }
  s->f[s->nf] = (form){.v = crawl__xstrndup(v, n), .len = n, .mask = mask, .value = value};
  bucket *b = &s->first[bucket_of((unsigned char)v[0], (unsigned char)v[1])];
  if (b->n == b->cap) {
    b->cap = b->cap ? b->cap * 2 : 8;
    b->at = crawl__xrealloc(b->at, b->cap * sizeof *b->at);
  }
  size_t at = 0; /* after every longer or equal one */
  while (at < b->n && s->f[b->at[at]].len >= n) at++;
  memmove(b->at + at + 1, b->at + at, (b->n - at) * sizeof *b->at);
  b->at[at] = s->nf++;
  b->n++;
}

int crawl__secrets_add_masked(crawl__secrets *s, const char *value, const char *mask) {
  if (!s || !value) return 0;
  size_t n = strnlen(value, CRAWL__SECRET_MAX_BYTES);
  while (n && ((unsigned char)value[n] & 0xC0) == 0x80 && value[n]) n--; /* a cut at a character boundary */
  if (visible_chars(value, n) < CRAWL__SECRET_MIN_CHARS) return 0;
  if (find_form(s, value, n, 1) >= 0) return 0;
  if (s->n == CRAWL__SECRETS_MAX) {
    s->dropped++;
    return 0;
  }
  mask = mask ? mask : CRAWL__REDACTED;
  crawl__secrets_form(s, value, n, mask, 1);
  s->f[find_form(s, value, n, 0)].value = 1; /* it may have been another value's spelling */
  crawl__secret_forms(s, value, n, mask);
  s->n++;
  return 1;
}

int crawl__secrets_add_all(crawl__secrets *s, const crawl__secrets *from) {
  int added = 0;
  for (size_t k = 0; s && from && k < from->nf; k++)
    if (from->f[k].value) {
      char *v = crawl__xstrndup(from->f[k].v, from->f[k].len);
      added += crawl__secrets_add_masked(s, v, from->f[k].mask);
      free(v);
    }
  return added;
}

static int hexval(unsigned char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

/* The byte %XX at p stands for, or -1. */
static int pct_byte(const char *p) {
  if (p[0] != '%') return -1;
  int hi = hexval((unsigned char)p[1]), lo = hi < 0 ? -1 : hexval((unsigned char)p[2]);
  return lo < 0 ? -1 : hi * 16 + lo;
}

/* Bytes of text at p that spell secret v (n bytes) -- each byte plain, as
 * %XX, or a space as '+' -- or 0. */
static size_t match_at(const char *p, const char *v, size_t n) {
  const char *q = p;
  for (size_t i = 0; i < n; i++) {
    unsigned char want = (unsigned char)v[i], ch = (unsigned char)*q;
    if (!ch) return 0;
    if (ch == want) q++;
    else if (ch == '%' && pct_byte(q) == want) q += 3;
    else if (ch == '+' && want == ' ') q++;
    else return 0;
  }
  return (size_t)(q - p);
}

/* The longest form of bucket b spelled at p (longer than *best to count):
 * its bytes in text into *m and its index into *k. */
static void match_bucket(const crawl__secrets *s, const bucket *b, const char *p, size_t *best, size_t *m,
                         size_t *k) {
  for (size_t i = 0; i < b->n; i++) {
    const form *f = &s->f[b->at[i]];
    if (f->len <= *best) return; /* longest first: none left can win */
    size_t got = match_at(p, f->v, f->len);
    if (got) {
      *best = f->len, *m = got, *k = b->at[i];
      return;
    }
  }
}

/* What the text at p can stand for, one byte of a form: itself, the byte
 * a %XX spells, a space for '+'. Returns how many (1 or 2) into b and the
 * text each takes into adv. */
static int units(const char *p, unsigned char b[2], size_t adv[2]) {
  int k = 0, pct = pct_byte(p);
  b[k] = (unsigned char)*p, adv[k++] = 1;
  if (pct > 0) b[k] = (unsigned char)pct, adv[k++] = 3;
  else if (*p == '+') b[k] = ' ', adv[k++] = 1;
  return k;
}

/* The longest form at p: its bytes in text, or 0; its index into *k. Only
 * the buckets of what p's first two bytes can stand for are tried. */
static size_t match_any(const crawl__secrets *s, const char *p, size_t *k) {
  size_t best = 0, m = 0, adv1[2], adv2[2];
  unsigned char b1[2], b2[2];
  int n1 = units(p, b1, adv1);
  for (int i = 0; i < n1; i++) {
    const char *q = p + adv1[i];
    if (!*q) continue;
    int n2 = units(q, b2, adv2);
    for (int j = 0; j < n2; j++) match_bucket(s, &s->first[bucket_of(b1[i], b2[j])], p, &best, &m, k);
  }
  return m;
}

static char *list_scrub(const crawl__secrets *s, const char *text, int *n) {
  *n = 0;
  if (!s || !s->nf) return crawl__xstrdup(text);
  crawl__buf b = {0};
  const char *plain = text; /* start of the text not yet copied */
  int hits = 0;
  for (const char *p = text; *p;) {
    size_t k = 0, m = match_any(s, p, &k);
    if (!m) {
      p++;
      continue;
    }
    crawl__buf_put(&b, plain, (size_t)(p - plain));
    crawl__buf_puts(&b, s->f[k].mask);
    p += m;
    plain = p;
    hits++;
  }
  *n = hits;
  if (!hits) return crawl__xstrdup(text);
  crawl__buf_puts(&b, plain);
  return crawl__buf_take(&b);
}

char *crawl__secrets_scrub(const crawl__secrets *s, const char *text, int *n) {
  if (n) *n = 0;
  if (!text) return NULL;
  int hits = 0, more = 0;
  char *t = list_scrub(s, text, &hits);
  char *f = s && s->filter ? s->filter(t, &more) : NULL;
  if (f) {
    free(t);
    t = f;
    hits += more;
  }
  if (n) *n = hits;
  return t;
}

/* cJSON_SetValuestring (cJSON 1.7.15: a longer value gets a new buffer)
 * keeps the item where it is, key included. */
static int scrub_item(const crawl__secrets *s, cJSON *item, int depth) {
  if (cJSON_IsString(item) && item->valuestring && !(item->type & cJSON_IsReference)) {
    int hits = 0;
    char *t = crawl__secrets_scrub(s, item->valuestring, &hits);
    if (hits && !cJSON_SetValuestring(item, t)) abort(); /* out of memory: the one policy */
    free(t);
    return hits;
  }
  int hits = 0;
  if (depth > 512) return 0;
  for (cJSON *ch = item ? item->child : NULL; ch; ch = ch->next) hits += scrub_item(s, ch, depth + 1);
  return hits;
}

int crawl__secrets_scrub_json(const crawl__secrets *s, cJSON *item) {
  if (!s || (!s->nf && !s->filter) || !item) return 0;
  return scrub_item(s, item, 0);
}

/* ---- the public face (crawl_common.h): the same list, for callers outside
 * the crawler libraries (the command line) ---------------------------------- */
crawl_secrets *crawl_secrets_new(void) { return crawl__secrets_new(); }
void crawl_secrets_free(crawl_secrets *s) { crawl__secrets_free(s); }
int crawl_secrets_add_url(crawl_secrets *s, const char *url, int every_query) {
  return crawl__secrets_add_url(s, url, every_query);
}
char *crawl_secrets_scrub(const crawl_secrets *s, const char *text) { return crawl__secrets_scrub(s, text, NULL); }
void crawl_log_secrets(const crawl_secrets *s) { crawl__log_secrets(s); }

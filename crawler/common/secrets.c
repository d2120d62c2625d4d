/* secrets.c -- the run's secret list and its one filter (crawl_secrets.h):
 * values kept longest first, matched as written or URL-encoded. */
#include "crawl_secrets.h"

#include <stdlib.h>
#include <string.h>

#include "crawl_util.h"

struct crawl__secrets {
  char **v;          /* longest first */
  size_t *len;
  const char **mask; /* what each becomes: "[redacted]", or a pii mask */
  crawl__text_filter filter;
  size_t n, cap;
  long dropped;
};

crawl__secrets *crawl__secrets_new(void) { return crawl__xcalloc(1, sizeof(crawl__secrets)); }

void crawl__secrets_free(crawl__secrets *s) {
  if (!s) return;
  for (size_t k = 0; k < s->n; k++) free(s->v[k]);
  free(s->v);
  free(s->len);
  free(s->mask);
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

int crawl__secrets_add_masked(crawl__secrets *s, const char *value, const char *mask) {
  if (!s || !value) return 0;
  size_t n = strnlen(value, CRAWL__SECRET_MAX_BYTES);
  while (n && ((unsigned char)value[n] & 0xC0) == 0x80 && value[n]) n--; /* a cut at a character boundary */
  if (visible_chars(value, n) < CRAWL__SECRET_MIN_CHARS) return 0;
  for (size_t k = 0; k < s->n; k++)
    if (s->len[k] == n && !memcmp(s->v[k], value, n)) return 0;
  if (s->n == CRAWL__SECRETS_MAX) {
    s->dropped++;
    return 0;
  }
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 16;
    s->v = crawl__xrealloc(s->v, s->cap * sizeof *s->v);
    s->len = crawl__xrealloc(s->len, s->cap * sizeof *s->len);
    s->mask = crawl__xrealloc(s->mask, s->cap * sizeof *s->mask);
  }
  size_t at = 0; /* after every longer or equal one */
  while (at < s->n && s->len[at] >= n) at++;
  memmove(s->v + at + 1, s->v + at, (s->n - at) * sizeof *s->v);
  memmove(s->len + at + 1, s->len + at, (s->n - at) * sizeof *s->len);
  memmove(s->mask + at + 1, s->mask + at, (s->n - at) * sizeof *s->mask);
  char *copy = crawl__xmalloc(n + 1);
  memcpy(copy, value, n);
  copy[n] = 0;
  s->v[at] = copy;
  s->len[at] = n;
  s->mask[at] = mask ? mask : CRAWL__REDACTED;
  s->n++;
  return 1;
}

static int hexval(unsigned char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

/* Bytes of text at p that spell secret v (n bytes) -- each byte plain, as
 * %XX, or a space as '+' -- or 0. */
static size_t match_at(const char *p, const char *v, size_t n) {
  const char *q = p;
  for (size_t i = 0; i < n; i++) {
    unsigned char want = (unsigned char)v[i], ch = (unsigned char)*q;
    if (!ch) return 0;
    if (ch == want) {
      q++;
    } else if (ch == '%' && hexval((unsigned char)q[1]) >= 0 && hexval((unsigned char)q[2]) >= 0 &&
               hexval((unsigned char)q[1]) * 16 + hexval((unsigned char)q[2]) == want) {
      q += 3;
    } else if (ch == '+' && want == ' ') {
      q++;
    } else {
      return 0;
    }
  }
  return (size_t)(q - p);
}

static char *list_scrub(const crawl__secrets *s, const char *text, int *n) {
  *n = 0;
  if (!s || !s->n) return crawl__xstrdup(text);
  crawl__buf b = {0};
  const char *plain = text; /* start of the text not yet copied */
  int hits = 0;
  for (const char *p = text; *p;) {
    size_t m = 0, k = 0;
    for (; k < s->n && !m; k++) {
      unsigned char first = (unsigned char)s->v[k][0];
      if ((unsigned char)*p == first || *p == '%' || (*p == '+' && first == ' ')) m = match_at(p, s->v[k], s->len[k]);
    }
    if (!m) {
      p++;
      continue;
    }
    crawl__buf_put(&b, plain, (size_t)(p - plain));
    crawl__buf_puts(&b, s->mask[k - 1]);
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
  if (!s || (!s->n && !s->filter) || !item) return 0;
  return scrub_item(s, item, 0);
}

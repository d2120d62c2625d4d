/* json.c -- the crawler's JSON helpers (crawl_util.h): loading a file with
 * a line and column on error, cJSON constructors that abort on out of
 * memory, linking an item before another, and frozen JSON (read-only
 * copies carved out of one arena, or parsed straight into it). The generic
 * helpers (allocation, buffers, files, order, hash) are the base layer's
 * (crawler/base/crawl_base.h). */
#include "crawl_util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

cJSON *crawl__json_load(const char *path, char *err, size_t errlen) {
  size_t len;
  int e;
  char *text = crawl__file_read(path, CRAWL__FILE_MAX, &len, &e);
  if (!text) {
    snprintf(err, errlen, "%s: %s", path, strerror(e));
    return NULL;
  }
  const char *end = NULL;
  cJSON *j = cJSON_ParseWithLengthOpts(text, len, &end, 0);
  if (!j) {
    const char *at = end ? end : text;
    int line = 1, col = 1;
    for (const char *p = text; p < at && *p; p++) {
      if (*p == '\n') { line++; col = 1; }
      else col++;
    }
    snprintf(err, errlen, "%s: not JSON (line %d, column %d)", path, line, col);
  }
  free(text);
  return j;
}

cJSON *crawl__package_load(const char *path, char *err, size_t errlen) {
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    char *p = crawl__xprintf("%s/package.json", path);
    cJSON *j = crawl__json_load(p, err, errlen);
    free(p);
    return j;
  }
  return crawl__json_load(path, err, errlen);
}

/* ---- cJSON ------------------------------------------------------------------- */
cJSON *crawl__jx(cJSON *x) {
  if (!x) crawl__oom(0);
  return x;
}
void crawl__jset(cJSON *o, const char *k, cJSON *v) {
  if (!cJSON_AddItemToObject(o, k, crawl__jx(v))) crawl__oom(0);
}
void crawl__jstr(cJSON *o, const char *k, const char *v) {
  if (v) crawl__jset(o, k, cJSON_CreateString(v));
}
void crawl__jpush(cJSON *a, cJSON *v) {
  if (!cJSON_AddItemToArray(a, crawl__jx(v))) crawl__oom(0);
}
char *crawl__jtext(const cJSON *x, int pretty) {
  char *s = pretty ? cJSON_Print(x) : cJSON_PrintUnformatted(x);
  if (!s) crawl__oom(0);
  return s;
}

/* cJSON 1.7.15's cJSON_InsertItemInArray fails (returns 0, inserts nothing)
 * for any position but the first, so we link the item by hand: the list is
 * doubly linked and the first child's prev is the last child. */
void crawl__insert_before(cJSON *parent, cJSON *before, cJSON *item) {
  if (!before) {
    if (!cJSON_AddItemToArray(parent, item)) abort(); /* appends; keeps item->string */
    return;
  }
  item->next = before;
  item->prev = before->prev;
  if (before == parent->child) parent->child = item;
  else item->prev->next = item;
  before->prev = item;
}

/* ---- frozen JSON ----------------------------------------------------------------- */
/* Nodes and strings are carved out of 64 KiB blocks (a string bigger than a
 * quarter block gets a block of its own); each distinct string is stored
 * once, found again through an open-addressing table of (hash, pointer). */
enum { JA_BLOCK = 64 * 1024 };

struct crawl__jblock {
  struct crawl__jblock *next;
  size_t used, cap;
  _Alignas(16) char data[];
};

static void *ja_alloc(crawl__jarena *a, size_t n, size_t align) {
  struct crawl__jblock *b = a->blocks;
  size_t off = b ? (b->used + align - 1) & ~(align - 1) : 0;
  if (b && off + n <= b->cap) {
    b->used = off + n;
    return b->data + off;
  }
  size_t cap = n > JA_BLOCK / 4 ? n : JA_BLOCK - sizeof *b;
  struct crawl__jblock *nb = crawl__xmalloc(sizeof *nb + cap);
  nb->cap = cap;
  nb->used = n;
  if (cap == n && b) { /* a big one: the current block stays the one carved from */
    nb->next = b->next;
    b->next = nb;
  } else {
    nb->next = b;
    a->blocks = nb;
  }
  a->bytes += sizeof *nb + cap;
  return nb->data;
}

static void ja_grow(crawl__jarena *a) {
  size_t cap = a->cap ? a->cap * 2 : 1024;
  crawl__jslot *s = crawl__xcalloc(cap, sizeof *s);
  for (size_t i = 0; i < a->cap; i++) {
    if (!a->slot[i].s) continue;
    size_t k = (size_t)a->slot[i].h & (cap - 1);
    while (s[k].s) k = (k + 1) & (cap - 1);
    s[k] = a->slot[i];
  }
  free(a->slot);
  a->slot = s;
  a->cap = cap;
}

static char *ja_intern(crawl__jarena *a, const char *str) {
  if (2 * (a->n + 1) > a->cap) ja_grow(a);
  size_t n = strlen(str) + 1;
  uint64_t h = crawl__hash_bytes(str, n - 1, 0); /* the base's table hash (XXH3) */
  size_t k = (size_t)h & (a->cap - 1);
  for (; a->slot[k].s; k = (k + 1) & (a->cap - 1))
    if (a->slot[k].h == h && !strcmp(a->slot[k].s, str)) return a->slot[k].s;
  char *d = memcpy(ja_alloc(a, n, 1), str, n);
  a->slot[k].s = d;
  a->slot[k].h = h;
  a->n++;
  return d;
}

static cJSON *ja_list(crawl__jarena *a, const cJSON *first);
static cJSON *ja_node(crawl__jarena *a, const cJSON *s) {
  cJSON *n = ja_alloc(a, sizeof *n, _Alignof(cJSON));
  memset(n, 0, sizeof *n);
  n->type = s->type & ~(cJSON_IsReference | cJSON_StringIsConst);
  n->valueint = s->valueint;
  n->valuedouble = s->valuedouble;
  if (s->valuestring) n->valuestring = ja_intern(a, s->valuestring);
  if (s->string) n->string = ja_intern(a, s->string);
  n->child = ja_list(a, s->child);
  return n;
}

/* A copy of the siblings from first on, linked as cJSON links them (the
 * first's prev is the last). */
static cJSON *ja_list(crawl__jarena *a, const cJSON *first) {
  cJSON *head = NULL, *prev = NULL;
  for (const cJSON *s = first; s; s = s->next) {
    cJSON *n = ja_node(a, s);
    n->prev = prev;
    if (prev) prev->next = n;
    else head = n;
    prev = n;
  }
  if (head) head->prev = prev;
  return head;
}

const cJSON *crawl__jfreeze(crawl__jarena *a, const cJSON *src) {
  if (!src) return NULL;
  cJSON *n = ja_node(a, src);
  n->string = NULL; /* a root, as cJSON_Parse gives it */
  return n;
}

void crawl__jarena_release(crawl__jarena *a) {
  for (struct crawl__jblock *b = a->blocks, *next; b; b = next) {
    next = b->next;
    free(b);
  }
  free(a->slot);
  memset(a, 0, sizeof *a);
}

/* ---- parsing straight into an arena --------------------------------------------- */
/* What cJSON_ParseWithLengthOpts(text, len, NULL, 0) accepts, with the same
 * values (its number and string rules are followed to the letter), but no
 * intermediate tree: the nodes are frozen ones as they are read. */
typedef struct jp {
  const char *p, *end;
  crawl__jarena *a;
  int depth;
  char *buf;                  /* a string being decoded */
  size_t cap;
} jp;

static void jp_ws(jp *j) {
  while (j->p < j->end && (unsigned char)*j->p <= 32) j->p++;
}

static int jp_hex4(const char *s, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = s[i];
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
    else return -1;
  }
  *out = v;
  return 0;
}

/* \uXXXX (and its low surrogate) at s (the backslash) to UTF-8 in out;
 * the bytes of input used, 0 when invalid (cJSON's utf16_literal_to_utf8). */
static size_t jp_utf16(const char *s, const char *end, char *out, size_t *n) {
  unsigned first, cp;
  size_t used = 6;
  if (end - s < 6 || jp_hex4(s + 2, &first)) return 0;
  if (first >= 0xDC00 && first <= 0xDFFF) return 0;
  if (first >= 0xD800 && first <= 0xDBFF) {
    unsigned second;
    if (end - s < 12 || s[6] != '\\' || s[7] != 'u' || jp_hex4(s + 8, &second)) return 0;
    if (second < 0xDC00 || second > 0xDFFF) return 0;
    cp = 0x10000 + (((first & 0x3FF) << 10) | (second & 0x3FF));
    used = 12;
  } else {
    cp = first;
  }
  size_t len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  static const unsigned char lead[] = {0x00, 0x00, 0xC0, 0xE0, 0xF0};
  for (size_t i = len - 1; i > 0; i--) {
    out[i] = (char)((cp | 0x80) & 0xBF);
    cp >>= 6;
  }
  out[0] = (char)(len > 1 ? (cp | lead[len]) & 0xFF : cp);
  *n = len;
  return used;
}

/* A string at j->p (the opening quote), interned; NULL when invalid. */
static char *jp_string(jp *j) {
  if (j->p >= j->end || *j->p != '"') return NULL;
  const char *s = j->p + 1, *q = s;
  while (q < j->end && *q != '"') q += *q == '\\' ? 2 : 1;
  if (q >= j->end) return NULL;
  size_t need = (size_t)(q - s) + 1;
  if (need > j->cap) j->buf = crawl__xrealloc(j->buf, j->cap = need * 2);
  char *o = j->buf;
  while (s < q) {
    if (*s != '\\') { *o++ = *s++; continue; }
    if (q - s < 1) return NULL;
    static const char esc[] = "b\bf\fn\nr\rt\t\"\"\\\\//";
    const char *e = s[1] ? strchr(esc, s[1]) : NULL;
    if (e && (e - esc) % 2 == 0) { *o++ = e[1]; s += 2; continue; }
    if (s[1] != 'u') return NULL;
    size_t n, used = jp_utf16(s, q, o, &n);
    if (!used) return NULL;
    o += n;
    s += used;
  }
  *o = 0;
  j->p = q + 1;
  return ja_intern(j->a, j->buf);
}

/* cJSON's parse_number: the run of [0-9+-eE.], strtod. */
static int jp_number(jp *j, cJSON *n) {
  char num[64], *after;
  size_t i = 0;
  while (i < sizeof num - 1 && j->p + i < j->end && strchr("0123456789+-eE.", j->p[i]) && j->p[i]) {
    num[i] = j->p[i];
    i++;
  }
  num[i] = 0;
  /* a longer run: cJSON releases differ (1.7.15 reads 63 characters, its
   * patched and later builds the whole run): no answer here, the caller
   * parses with the cJSON it links */
  if (i == sizeof num - 1) return -1;
  double d = strtod(num, &after);
  if (after == num) return -1;
  n->type = cJSON_Number;
  n->valuedouble = d;
  n->valueint = d >= INT_MAX ? INT_MAX : d <= (double)INT_MIN ? INT_MIN : (int)d;
  j->p += after - num;
  return 0;
}

static cJSON *jp_value(jp *j);
/* The members or elements up to close (']' or '}'), j->p after the opener. */
static int jp_items(jp *j, cJSON *parent, char close) {
  if (++j->depth > CJSON_NESTING_LIMIT) return -1;
  jp_ws(j);
  if (j->p < j->end && *j->p == close) {
    j->p++;
    j->depth--;
    return 0;
  }
  cJSON *prev = NULL;
  for (;;) {
    char *key = NULL;
    jp_ws(j);
    if (close == '}') {
      if (!(key = jp_string(j))) return -1;
      jp_ws(j);
      if (j->p >= j->end || *j->p != ':') return -1;
      j->p++;
    }
    jp_ws(j);
    cJSON *v = jp_value(j);
    if (!v) return -1;
    v->string = key;
    v->prev = prev;
    if (prev) prev->next = v;
    else parent->child = v;
    prev = v;
    parent->child->prev = v;
    jp_ws(j);
    if (j->p >= j->end) return -1;
    if (*j->p == ',') { j->p++; continue; }
    if (*j->p != close) return -1;
    j->p++;
    j->depth--;
    return 0;
  }
}

static cJSON *jp_value(jp *j) {
  if (j->p >= j->end) return NULL;
  cJSON *n = ja_alloc(j->a, sizeof *n, _Alignof(cJSON));
  memset(n, 0, sizeof *n);
  static const struct { const char *word; int type, valueint; } words[] = {
    {"null", cJSON_NULL, 0}, {"false", cJSON_False, 0}, {"true", cJSON_True, 1}};
  for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
    size_t wl = strlen(words[i].word);
    if ((size_t)(j->end - j->p) >= wl && !strncmp(j->p, words[i].word, wl)) {
      n->type = words[i].type;
      n->valueint = words[i].valueint;
      j->p += wl;
      return n;
    }
  }
  char c = *j->p;
  if (c == '"') {
    n->type = cJSON_String;
    return (n->valuestring = jp_string(j)) ? n : NULL;
  }
  if (c == '-' || (c >= '0' && c <= '9')) return jp_number(j, n) ? NULL : n;
  if (c == '[' || c == '{') {
    n->type = c == '[' ? cJSON_Array : cJSON_Object;
    j->p++;
    return jp_items(j, n, c == '[' ? ']' : '}') ? NULL : n;
  }
  return NULL;
}

const cJSON *crawl__jarena_parse(crawl__jarena *a, const char *text, size_t len) {
  jp j = {.p = text, .end = text + len, .a = a};
  if (len >= 3 && !strncmp(text, "\xEF\xBB\xBF", 3)) return NULL; /* cJSON's BOM rule has corners: its call */
  jp_ws(&j);
  const cJSON *v = jp_value(&j);
  free(j.buf);
  return v; /* on failure, what was carved stays in the arena until it is released */
}

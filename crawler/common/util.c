/* report_util.c -- the helpers of report_int.h: buffers and escaping, file
 * reads and atomic writes, JSON loading, natural order, hashing. */
#include "crawl_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void *crawl__xmalloc(size_t n) { return crawl__xrealloc(NULL, n); }

void *crawl__xcalloc(size_t n, size_t size) {
  void *q = calloc(n ? n : 1, size ? size : 1);
  if (!q) abort();
  return q;
}

void *crawl__xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) abort();
  return q;
}

char *crawl__xstrdup(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  return memcpy(crawl__xrealloc(NULL, n), s, n);
}

char *crawl__xstrndup(const char *s, size_t n) {
  char *d = crawl__xrealloc(NULL, n + 1);
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

int crawl__errf(char *err, size_t errlen, int code, const char *fmt, ...) {
  if (!err || !errlen) return code;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return code;
}

char *crawl__xprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) abort();
  char *s = crawl__xrealloc(NULL, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

/* ---- buffer ------------------------------------------------------------------ */
static void buf_reserve(crawl__buf *b, size_t more) {
  if (b->n + more + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->n + more + 1) cap *= 2;
  b->p = crawl__xrealloc(b->p, cap);
  b->cap = cap;
}

void crawl__buf_put(crawl__buf *b, const char *s, size_t n) {
  buf_reserve(b, n);
  if (n) memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}

void crawl__buf_puts(crawl__buf *b, const char *s) {
  if (s) crawl__buf_put(b, s, strlen(s));
}

void crawl__buf_printf(crawl__buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) abort();
  buf_reserve(b, (size_t)n);
  va_start(ap, fmt);
  vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)n;
}

void crawl__buf_html(crawl__buf *b, const char *s) {
  if (!s) return;
  const char *run = s;
  for (; *s; s++) {
    const char *rep;
    switch (*s) {
    case '&': rep = "&amp;"; break;
    case '<': rep = "&lt;"; break;
    case '>': rep = "&gt;"; break;
    case '"': rep = "&quot;"; break;
    case '\'': rep = "&#39;"; break;
    default: continue;
    }
    crawl__buf_put(b, run, (size_t)(s - run));
    crawl__buf_puts(b, rep);
    run = s + 1;
  }
  crawl__buf_put(b, run, (size_t)(s - run));
}

/* Length of a valid UTF-8 sequence at s (1..4), 0 if invalid. */
static size_t utf8_len(const unsigned char *s) {
  if (s[0] < 0x80) return 1;
  size_t n = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 && s[0] < 0xE0 ? 2 : 0;
  if (!n) return 0;
  for (size_t i = 1; i < n; i++)
    if ((s[i] & 0xC0) != 0x80) return 0;
  if (n == 3 && s[0] == 0xE0 && s[1] < 0xA0) return 0;          /* overlong */
  if (n == 3 && s[0] == 0xED && s[1] >= 0xA0) return 0;         /* surrogates */
  if (n == 3 && s[0] == 0xEF && s[1] == 0xBF && s[2] >= 0xBE) return 0; /* U+FFFE/FFFF */
  if (n == 4 && s[0] == 0xF0 && s[1] < 0x90) return 0;
  if (n == 4 && s[0] == 0xF4 && s[1] >= 0x90) return 0;
  return n;
}

void crawl__buf_xml(crawl__buf *b, const char *s) {
  if (!s) return;
  const unsigned char *u = (const unsigned char *)s;
  while (*u) {
    unsigned char c = *u;
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') { u++; continue; }
    if (c < 0x80) {
      char one[2] = {(char)c, 0};
      crawl__buf_html(b, one);
      u++;
      continue;
    }
    size_t n = utf8_len(u);
    if (!n) { u++; continue; }
    crawl__buf_put(b, (const char *)u, n);
    u += n;
  }
}

void crawl__buf_dot(crawl__buf *b, const char *s) {
  if (!s) return;
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') {
      char e[3] = {'\\', *s, 0};
      crawl__buf_puts(b, e);
    } else if (*s == '\n' || *s == '\r' || *s == '\t') crawl__buf_put(b, " ", 1);
    else crawl__buf_put(b, s, 1);
  }
}

char *crawl__buf_take(crawl__buf *b) {
  char *p = b->p ? b->p : crawl__xstrdup("");
  memset(b, 0, sizeof *b);
  return p;
}

void crawl__buf_free(crawl__buf *b) {
  free(b->p);
  memset(b, 0, sizeof *b);
}

/* ---- files ------------------------------------------------------------------- */
char *crawl__file_read(const char *path, size_t max, size_t *len, int *err) {
  *err = 0;
  if (len) *len = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) { *err = errno; return NULL; }
  struct stat st;
  if (fstat(fd, &st) != 0) { *err = errno; close(fd); return NULL; }
  if (!S_ISREG(st.st_mode)) { *err = S_ISDIR(st.st_mode) ? EISDIR : EINVAL; close(fd); return NULL; }
  if ((size_t)st.st_size > max) { *err = EFBIG; close(fd); return NULL; }
  size_t cap = (size_t)st.st_size + 1, n = 0;
  char *buf = crawl__xrealloc(NULL, cap + 1);
  for (;;) {
    if (n == cap) {
      if (cap > max) { free(buf); close(fd); *err = EFBIG; return NULL; }
      cap *= 2;
      buf = crawl__xrealloc(buf, cap + 1);
    }
    ssize_t r = read(fd, buf + n, cap - n);
    if (r < 0) {
      if (errno == EINTR) continue;
      *err = errno;
      free(buf);
      close(fd);
      return NULL;
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  close(fd);
  buf[n] = 0;
  if (len) *len = n;
  return buf;
}

int crawl__path_inside(const char *rel) {
  if (!rel || !*rel || rel[0] == '/') return 0;
  for (const char *s = rel; *s;) {
    const char *e = strchr(s, '/');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if (n == 2 && s[0] == '.' && s[1] == '.') return 0;
    s += n + (e ? 1 : 0);
  }
  return 1;
}

int crawl__file_write(const char *path, const char *data, size_t len) {
  char *tmp = crawl__xprintf("%s.%ld.tmp", path, (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    int e = errno;
    free(tmp);
    return e;
  }
  size_t off = 0;
  int e = 0;
  while (off < len) {
    ssize_t w = write(fd, data + off, len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) { e = w < 0 ? errno : EIO; break; }
    off += (size_t)w;
  }
  if (close(fd) != 0 && !e) e = errno;
  if (!e && rename(tmp, path) != 0) e = errno;
  if (e) unlink(tmp);
  free(tmp);
  return e;
}

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

/* ---- order and hash ------------------------------------------------------------ */
int crawl__natcmp(const char *a, const char *b) {
  const char *a_start = a, *b_start = b;
  while (*a && *b) {
    if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
      const char *a0 = a, *b0 = b;
      while (*a0 == '0') a0++;
      while (*b0 == '0') b0++;
      const char *a1 = a0, *b1 = b0;
      while (*a1 >= '0' && *a1 <= '9') a1++;
      while (*b1 >= '0' && *b1 <= '9') b1++;
      if (a1 - a0 != b1 - b0) return a1 - a0 < b1 - b0 ? -1 : 1;
      int c = memcmp(a0, b0, (size_t)(a1 - a0));
      if (c) return c;
      a = a1;
      b = b1;
      continue;
    }
    if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
    a++;
    b++;
  }
  if (*a || *b) return *a ? 1 : -1;
  return strcmp(a_start, b_start); /* "s01" vs "s1": bytes decide */
}

uint64_t crawl__hash(const char *s) {
  uint64_t h = 14695981039346656037ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* ---- cJSON ------------------------------------------------------------------- */
cJSON *crawl__jx(cJSON *x) {
  if (!x) abort();
  return x;
}
void crawl__jset(cJSON *o, const char *k, cJSON *v) {
  if (!cJSON_AddItemToObject(o, k, crawl__jx(v))) abort();
}
void crawl__jstr(cJSON *o, const char *k, const char *v) {
  if (v) crawl__jset(o, k, cJSON_CreateString(v));
}
void crawl__jpush(cJSON *a, cJSON *v) {
  if (!cJSON_AddItemToArray(a, crawl__jx(v))) abort();
}
char *crawl__jtext(const cJSON *x, int pretty) {
  char *s = pretty ? cJSON_Print(x) : cJSON_PrintUnformatted(x);
  if (!s) abort();
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
  uint64_t h = crawl__hash(str);
  size_t k = (size_t)h & (a->cap - 1);
  for (; a->slot[k].s; k = (k + 1) & (a->cap - 1))
    if (a->slot[k].h == h && !strcmp(a->slot[k].s, str)) return a->slot[k].s;
  size_t n = strlen(str) + 1;
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

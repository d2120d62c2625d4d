/* report_util.c -- the helpers of report_int.h: buffers and escaping, file
 * reads and atomic writes, JSON loading, natural order, hashing. */
#include "crawl_util.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
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
  for (char *c = err; *c; c++) /* one line, whatever a plan's key or a page's text held */
    if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = ' ';
  return code;
}

char *crawl__find_on_path(const char *name) {
  if (strchr(name, '/')) return access(name, X_OK) == 0 ? crawl__xstrdup(name) : NULL;
  const char *path = getenv("PATH");
  if (!path) return NULL;
  for (const char *p = path; *p;) {
    const char *e = strchr(p, ':');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    char *cand = crawl__xprintf("%.*s/%s", (int)n, n ? p : ".", name);
    struct stat st;
    if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) return cand;
    free(cand);
    p += n + (e ? 1 : 0);
  }
  return NULL;
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

/* A temporary file beside path no one else can have made or linked: an
 * unpredictable name, created here (O_EXCL: never one that exists, a
 * symlink included; O_NOFOLLOW). Its fd, or -1 with errno; *tmp the name. */
static int file_tmp_open(const char *path, mode_t mode, char **tmp) {
  for (int tries = 0; tries < 16; tries++) {
    unsigned char r[8];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) return -1;
    *tmp = crawl__xprintf("%s.%02x%02x%02x%02x%02x%02x%02x%02x.tmp", path, r[0], r[1], r[2], r[3], r[4], r[5], r[6],
                          r[7]);
    int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd >= 0 || errno != EEXIST) return fd;
    free(*tmp);
    *tmp = NULL;
  }
  errno = EEXIST;
  return -1;
}

int crawl__file_write_mode(const char *path, const char *data, size_t len, unsigned mode) {
  char *tmp = NULL;
  int fd = file_tmp_open(path, (mode_t)mode, &tmp);
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
  if (!e && fsync(fd) != 0) e = errno;
  if (close(fd) != 0 && !e) e = errno;
  if (!e && rename(tmp, path) != 0) e = errno; /* a symlink at path is replaced, not followed */
  if (e) unlink(tmp);
  free(tmp);
  return e;
}

int crawl__file_write(const char *path, const char *data, size_t len) {
  return crawl__file_write_mode(path, data, len, 0644);
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

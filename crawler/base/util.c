/* util.c -- the base layer's helpers (crawl_base.h): the one allocation
 * policy (out of memory: one line, then abort), the growable buffer and its
 * HTML/XML/DOT escapes, whole-file reads and atomic writes, paths, natural
 * order and the stable hash. Not here: the maps (strmap.c, intmap.c), hex
 * (hex.c), the clock (time.c), anything JSON (crawler/common/json.c). */
#include "crawl_base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

/* The one out-of-memory path of the project (graph/, policy/ and the
 * crawler allocate through the functions below). */
_Noreturn void crawl__oom(size_t n) {
  fprintf(stderr, "uiap-crawl: out of memory (%zu bytes)\n", n);
  abort();
}

void *crawl__xmalloc(size_t n) { return crawl__xrealloc(NULL, n); }

void *crawl__xcalloc(size_t n, size_t size) {
  void *q = calloc(n ? n : 1, size ? size : 1);
  if (!q) crawl__oom(n * size);
  return q;
}

void *crawl__xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) crawl__oom(n);
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

uint64_t crawl__hash_bytes(const void *p, size_t n, uint64_t seed) {
  return (uint64_t)XXH3_64bits_withSeed(p, n, (XXH64_hash_t)seed);
}

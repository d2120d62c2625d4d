/* crawl_util.h -- helpers every crawler library shares (common/): one
 * allocation policy (out of memory aborts here), one growable buffer with
 * HTML/XML/DOT escaping, whole-file reads with a size cap, atomic writes,
 * JSON loading with a line/column on error, natural order and a stable hash.
 * Internal to crawler/: never included by cdp/, graph/, policy/ or a user of
 * the library. */
#ifndef UIAP_CRAWL_UTIL_H
#define UIAP_CRAWL_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#define CRAWL__FILE_MAX ((size_t)512 << 20) /* package, journal, state file cap */

/* The allocation policy of every crawler library: out of memory aborts here,
 * in one place (a crawl cannot go on without memory, and a NULL that slips
 * through is worse). */
void *crawl__xmalloc(size_t n);
void *crawl__xcalloc(size_t n, size_t size);
void *crawl__xrealloc(void *p, size_t n);
char *crawl__xstrdup(const char *s);                /* NULL -> NULL */
char *crawl__xstrndup(const char *s, size_t n);     /* n bytes of s, NUL-terminated */
/* A one-line reason into err (errlen bytes; nothing when err is NULL or
 * errlen 0); returns code, for `return crawl__errf(err, n, CRAWL_ARG, ...)`. */
int crawl__errf(char *err, size_t errlen, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
char *crawl__xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable byte buffer, always NUL-terminated once anything was put. */
typedef struct crawl__buf { char *p; size_t n, cap; } crawl__buf;
void crawl__buf_put(crawl__buf *b, const char *s, size_t n);
void crawl__buf_puts(crawl__buf *b, const char *s); /* NULL puts nothing */
void crawl__buf_printf(crawl__buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s escaped for HTML text and attribute values (& < > " '). NULL: nothing. */
void crawl__buf_html(crawl__buf *b, const char *s);
/* The same for XML 1.0, also dropping characters XML cannot carry (C0
 * controls other than tab, newline, carriage return; invalid UTF-8). */
void crawl__buf_xml(crawl__buf *b, const char *s);
/* s inside a DOT double-quoted string: \ and " escaped, newlines as spaces. */
void crawl__buf_dot(crawl__buf *b, const char *s);
/* The buffer's text, handed over (never NULL); the buffer is reset. */
char *crawl__buf_take(crawl__buf *b);
void crawl__buf_free(crawl__buf *b);

/* The whole file, NUL-terminated (caller frees), or NULL with *err = errno
 * (EFBIG above max, EISDIR for a non-regular file). */
char *crawl__file_read(const char *path, size_t max, size_t *len, int *err);
/* name as a path (it has a '/'), else the first executable regular file
 * called name in $PATH's folders; NULL when none. Caller frees. */
char *crawl__find_on_path(const char *name);
/* A path relative to a directory that stays inside it: not empty, not
 * absolute, no ".." part. 1 or 0. */
int crawl__path_inside(const char *rel);
/* Write atomically: a temporary file beside path that no one else can have
 * made or linked (an unpredictable name, created with O_EXCL|O_NOFOLLOW),
 * written, fsync'd, then renamed over path (a symlink at path is replaced,
 * never followed). 0 or errno. The file gets mode 0644 less the umask;
 * _mode gives another (0600 for a saved session: only its owner reads it). */
int crawl__file_write(const char *path, const char *data, size_t len);
int crawl__file_write_mode(const char *path, const char *data, size_t len, unsigned mode);

/* Parse a JSON file. On failure NULL and one line in err ("PATH: not JSON
 * (line L, column C)" or "PATH: <strerror>"). */
cJSON *crawl__json_load(const char *path, char *err, size_t errlen);
/* Load DIR/package.json, or the file itself when path is not a directory. */
cJSON *crawl__package_load(const char *path, char *err, size_t errlen);

/* Natural order: digit runs by value ("s2" < "s10"), then bytes. */
int crawl__natcmp(const char *a, const char *b);
uint64_t crawl__hash(const char *s); /* FNV-1a 64 */

/* Case-sensitive getters; NULL when absent or of another type. */
static inline const cJSON *crawl__get(const cJSON *o, const char *k) {
  return o ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
}
static inline const char *crawl__str(const cJSON *o, const char *k) {
  const cJSON *x = crawl__get(o, k);
  return cJSON_IsString(x) ? x->valuestring : NULL;
}
static inline double crawl__num(const cJSON *o, const char *k, double dflt) {
  const cJSON *x = crawl__get(o, k);
  return cJSON_IsNumber(x) ? x->valuedouble : dflt;
}
static inline const cJSON *crawl__arr(const cJSON *o, const char *k) {
  const cJSON *x = crawl__get(o, k);
  return cJSON_IsArray(x) ? x : NULL;
}
/* o[k1][k2] as an array (e.g. routeCatalog.routes), NULL if not one. */
static inline const cJSON *crawl__arr2(const cJSON *o, const char *k1, const char *k2) {
  return crawl__arr(crawl__get(o, k1), k2);
}

/* cJSON constructors that abort on out of memory. */
cJSON *crawl__jx(cJSON *x);
void crawl__jset(cJSON *o, const char *k, cJSON *v);
void crawl__jstr(cJSON *o, const char *k, const char *v); /* NULL v: nothing */
void crawl__jpush(cJSON *a, cJSON *v);
char *crawl__jtext(const cJSON *x, int pretty);
/* Link item into parent (array or object; item->string is kept) before the
 * child `before`, or at the end when before is NULL. */
void crawl__insert_before(cJSON *parent, cJSON *before, cJSON *item);

/* ---- frozen JSON: read-only copies that cost little ------------------------ */
/* A reader that keeps many parsed records (the package keeps the journal's)
 * keeps frozen copies: the same members in the same order with the same
 * values, read with the usual getters, but carved out of one arena, each
 * distinct string stored once: about a third of a cJSON tree's memory.
 * A frozen tree lives until crawl__jarena_release; never cJSON_Delete it,
 * change it or link it into another tree (cJSON_Duplicate of it gives an
 * ordinary tree). Zero is an empty arena. */
typedef struct crawl__jslot { char *s; uint64_t h; } crawl__jslot;
typedef struct crawl__jarena {
  struct crawl__jblock *blocks;
  crawl__jslot *slot;         /* interned strings */
  size_t cap, n;
  size_t bytes;               /* held in blocks */
} crawl__jarena;
/* A frozen copy of src (not of its siblings); NULL for NULL. */
const cJSON *crawl__jfreeze(crawl__jarena *a, const cJSON *src);
void crawl__jarena_release(crawl__jarena *a);
/* text (len bytes) parsed straight into frozen nodes, no tree in between:
 * what cJSON_ParseWithLengthOpts(text, len, NULL, 0) gives, frozen; NULL
 * when that fails (parse with cJSON then, for where). */
const cJSON *crawl__jarena_parse(crawl__jarena *a, const char *text, size_t len);

/* ---- time -------------------------------------------------------------- */
/* Now as RFC 3339 UTC with milliseconds ("2026-12-01T09:37:37.123Z") into
 * buf (32 bytes are enough); returns buf. */
char *crawl__time_iso(char *buf, size_t n);
/* Milliseconds of a monotonic clock (for durations, not for dates). */
long long crawl__time_ms(void);

/* ---- the UIAP message envelope (core-decisions.md) ------------------------ */
typedef struct crawl__msg {
  const char *kind;           /* request | response | event | error; NULL: "event" */
  const char *type;           /* e.g. "web.state.snapshot" (required) */
  const char *id;             /* message id (required) */
  const char *correlation_id; /* NULL: none */
  const char *session_id;     /* NULL: none */
  const char *source_id;      /* source.id; NULL: "uiap-crawl" (source.role is "runtime") */
} crawl__msg;
/* A new envelope {uiap, kind, type, id, correlationId?, sessionId?, ts,
 * source, payload} owning payload (NULL: an empty object). Caller frees with
 * cJSON_Delete. Out of memory aborts. */
cJSON *crawl__envelope(const crawl__msg *m, cJSON *payload);

#endif

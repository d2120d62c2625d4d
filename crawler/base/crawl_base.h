/* crawl_base.h -- the project's bottom layer (crawl_base, crawler/base/):
 * one allocation policy (out of memory aborts in one place), one growable
 * buffer with HTML/XML/DOT escaping, one string map and one integer map,
 * hex digits, whole-file reads with a size cap and atomic writes, paths,
 * natural order, a stable hash, and the clock.
 *
 * Public: graph/, policy/, every crawler library and the CLI may use it.
 * It depends on nothing of ours (libc and xxHash only); it never prints,
 * except the one line out of memory writes before it aborts. What is only
 * the crawler's (JSON helpers, the frozen JSON arena, the UIAP envelope)
 * stays in crawler/common/crawl_util.h. */
#ifndef UIAP_CRAWL_BASE_H
#define UIAP_CRAWL_BASE_H

#include <stddef.h>
#include <stdint.h>

/* ---- allocation (util.c) ------------------------------------------------- */
/* Out of memory aborts here, in one place (a crawl cannot go on without
 * memory, and a NULL that slips through is worse): one line on stderr
 * naming the size asked for, then abort(). A size of 0 asks for 1. */
/* Out of memory: one line on stderr ("uiap-crawl: out of memory (N bytes)"),
 * then abort. For allocators outside these functions (cJSON, libwebsockets)
 * whose NULL means out of memory; n may be 0 when unknown. */
_Noreturn void crawl__oom(size_t n);
void *crawl__xmalloc(size_t n);
void *crawl__xcalloc(size_t n, size_t size);
void *crawl__xrealloc(void *p, size_t n);
char *crawl__xstrdup(const char *s);                /* NULL -> NULL */
char *crawl__xstrndup(const char *s, size_t n);     /* n bytes of s, NUL-terminated */
/* A one-line reason into err (errlen bytes; nothing when err is NULL or
 * errlen 0); returns code, for `return crawl__errf(err, n, CRAWL_ARG, ...)`. */
int crawl__errf(char *err, size_t errlen, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
char *crawl__xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- a growable byte buffer (util.c) ------------------------------------- */
/* Always NUL-terminated once anything was put. Zero is an empty buffer. */
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

/* ---- hex digits (hex.c) --------------------------------------------------- */
/* "0123456789abcdef" (upper 0) or "0123456789ABCDEF" (upper 1). */
const char *crawl__hex_digits(int upper);
/* The value of the hex digit c (0..15), or -1 when c is not one. */
int crawl__hex_digit(int c);
/* n bytes of src as 2n hex digits into out (2n + 1 bytes: NUL-terminated),
 * lower or upper case. Returns out. */
char *crawl__hex_encode(const void *src, size_t n, char *out, int upper);
/* 2n hex digits at src (either case) to n bytes into out. 0, or -1 when
 * one of them is not a hex digit (out then holds an unspecified prefix). */
int crawl__hex_decode(const char *src, size_t n, unsigned char *out);

/* ---- files and paths (util.c) --------------------------------------------- */
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

/* ---- order and hash (util.c) ---------------------------------------------- */
/* Natural order: digit runs by value ("s2" < "s10"), then bytes. */
int crawl__natcmp(const char *a, const char *b);
/* FNV-1a 64: stable across builds and machines, so it may reach output
 * (ids, fingerprints). Not for tables keyed by page data: the maps below
 * hash with XXH3 (crawl__hash_bytes). */
uint64_t crawl__hash(const char *s);
/* XXH3-64 of n bytes with a seed: the one hash of the maps. */
uint64_t crawl__hash_bytes(const void *p, size_t n, uint64_t seed);

/* ---- time (time.c) ---------------------------------------------------------- */
/* Now as RFC 3339 UTC with milliseconds ("2026-12-01T09:37:37.123Z") into
 * buf (32 bytes are enough); returns buf. */
char *crawl__time_iso(char *buf, size_t n);
/* Milliseconds of a monotonic clock (for durations, not for dates). */
long long crawl__time_ms(void);

/* ---- the string map (strmap.c) --------------------------------------------- */
/* NUL-terminated keys to a long value (typically an index into the caller's
 * own array), open addressing on XXH3-64. Keys are copied into the map;
 * values are the caller's. Out of memory aborts.
 *
 *   crawl__strmap m = {0};            // zero is an empty map
 *   crawl__strmap_put(&m, "s1", 0);
 *   long i = crawl__strmap_get(&m, "s1");   // 0; -1 when absent
 *   crawl__strmap_release(&m);
 */
typedef struct crawl__strmap_slot {
  char *key;            /* NULL: empty slot */
  uint64_t hash;
  long value;
} crawl__strmap_slot;

typedef struct crawl__strmap {
  crawl__strmap_slot *slot;
  size_t cap;           /* a power of two, or 0 */
  size_t n;             /* keys held */
} crawl__strmap;

/* The value stored for key, or -1 when key is absent (or NULL). */
long crawl__strmap_get(const crawl__strmap *m, const char *key);
/* key with an explicit length (need not be NUL-terminated). */
long crawl__strmap_getn(const crawl__strmap *m, const char *key, size_t len);
/* Store value under key (a copy of key is kept), replacing an earlier
 * value. Returns 1 when key was new, 0 when it replaced one. */
int crawl__strmap_put(crawl__strmap *m, const char *key, long value);
/* The value for key; when absent, value is stored and returned, and *added
 * (may be NULL) set to 1. One hash and probe for both. */
long crawl__strmap_intern(crawl__strmap *m, const char *key, long value, int *added);
/* The map's own copy of key, added (its value: the count of keys before
 * it) when absent: a pool of strings each kept once, their pointers stable
 * until the map is released. */
const char *crawl__strmap_keep(crawl__strmap *m, const char *key);
/* The map's own copy of key, or NULL when absent (or key NULL). */
const char *crawl__strmap_key(const crawl__strmap *m, const char *key);
/* Free the keys and the table; the map is empty again. */
void crawl__strmap_release(crawl__strmap *m);

/* ---- the integer map (intmap.c) ------------------------------------------- */
/* int64 keys (any value, 0 included) to a long value, open addressing on
 * the string map's hash. Values are the caller's; -1 reads as absent, so
 * store values >= 0. Zero is an empty map. Out of memory aborts.
 *
 *   crawl__intmap m = {0};
 *   crawl__intmap_put(&m, backend_node_id, node_index);
 *   long i = crawl__intmap_get(&m, backend_node_id);   // -1 when absent
 *   crawl__intmap_release(&m);
 */
typedef struct crawl__intmap_slot {
  int64_t key;
  long value;
  int used;             /* 0: empty slot */
} crawl__intmap_slot;

typedef struct crawl__intmap {
  crawl__intmap_slot *slot;
  size_t cap;           /* a power of two, or 0 */
  size_t n;             /* keys held */
} crawl__intmap;

/* The value stored for key, or -1 when key is absent. */
long crawl__intmap_get(const crawl__intmap *m, int64_t key);
/* Store value under key, replacing an earlier value. 1 when key was new. */
int crawl__intmap_put(crawl__intmap *m, int64_t key, long value);
/* The value for key; when absent, value is stored and returned, and *added
 * (may be NULL) set to 1: the first value stored for a key wins. */
long crawl__intmap_intern(crawl__intmap *m, int64_t key, long value, int *added);
/* Room for n keys without growing (a map about to be filled). */
void crawl__intmap_reserve(crawl__intmap *m, size_t n);
/* Free the table; the map is empty again. */
void crawl__intmap_release(crawl__intmap *m);

#endif

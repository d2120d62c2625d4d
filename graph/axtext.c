/* axtext.c -- shrink the text of an accessibility-tree reply, in place,
 * before it is parsed into a cJSON tree.
 *
 * Accessibility.getFullAXTree on a 10,000-element page is ~9 MB of text and
 * ~66 MB as a cJSON tree. A good part of each node is never read by the
 * builder: ids of the node, its parent and children, Chromium's internal
 * role, and the name sources that carry no value. Cutting those out of the text first gives a tree ~40% smaller.
 *
 * The kept members are byte for byte what was sent, in their order; white
 * space between tokens goes. The text is scanned twice: once to check that
 * it is well-formed (a loop, nesting capped), then to rewrite it; malformed
 * text is left as it was, for the JSON parser to reject.
 *
 * If build.c starts reading one of the dropped members, take it off the
 * list below.
 */
#include "pg_int.h"

#include <string.h>

#define MAX_DEPTH 64

/* Members of an AX node that pg_build never reads. (ignoredReasons is
 * small and read: --include-hidden keeps nodes ignored only as hidden.) */
static const char *const dropped[] = {
  "nodeId", "parentId", "childIds", "frameId", "chromeRole",
};

typedef struct {
  char *p, *end;
} scan;

static int peek(scan *s) {
  while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t')) s->p++;
  return s->p < s->end ? (unsigned char)*s->p : -1;
}

static int is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A string; its escapes must be JSON's. */
static int skip_string(scan *s) {
  if (peek(s) != '"') return -1;
  for (char *q = s->p + 1; q < s->end; q++) {
    if (*q == '"') {
      s->p = q + 1;
      return 0;
    }
    if (*q != '\\') continue;
    if (++q >= s->end) return -1;
    if (*q == 'u') {
      if (s->end - q < 5 || !is_hex(q[1]) || !is_hex(q[2]) || !is_hex(q[3]) || !is_hex(q[4])) return -1;
      q += 4;
    } else if (!strchr("\"\\/bfnrt", *q) || !*q) {
      return -1;
    }
  }
  return -1;
}

static int digits(scan *s) {
  char *from = s->p;
  while (s->p < s->end && *s->p >= '0' && *s->p <= '9') s->p++;
  return s->p > from ? 0 : -1;
}

/* A number as JSON writes it, or true/false/null. */
static int skip_scalar(scan *s) {
  static const char *const lits[] = {"true", "false", "null"};
  for (int i = 0; i < 3; i++) {
    size_t n = strlen(lits[i]);
    if ((size_t)(s->end - s->p) >= n && !memcmp(s->p, lits[i], n)) {
      s->p += n;
      return 0;
    }
  }
  if (s->p < s->end && *s->p == '-') s->p++;
  if (s->p < s->end && *s->p == '0') s->p++;
  else if (digits(s) < 0) return -1;
  if (s->p < s->end && *s->p == '.') {
    s->p++;
    if (digits(s) < 0) return -1;
  }
  if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
    s->p++;
    if (s->p < s->end && (*s->p == '+' || *s->p == '-')) s->p++;
    if (digits(s) < 0) return -1;
  }
  return 0;
}

/* A key and its ':'; [*k, *kend) is the key with its quotes. */
static int skip_key(scan *s, char **k, char **kend) {
  if (peek(s) != '"') return -1;
  *k = s->p;
  if (skip_string(s) < 0) return -1;
  *kend = s->p;
  if (peek(s) != ':') return -1;
  s->p++;
  return 0;
}

/* One value of any type, checked as JSON, without recursion; nesting capped. */
static int skip_value(scan *s, int depth) {
  char stack[MAX_DEPTH];
  int top = 0, room = MAX_DEPTH - depth;
  char *k, *kend;
  for (;;) {
    int ch = peek(s);
    if (ch == '{' || ch == '[') {
      if (top >= room) return -1;
      stack[top++] = (char)ch;
      s->p++;
      if (peek(s) == (ch == '{' ? '}' : ']')) {
        s->p++;
        top--;
      } else {
        if (ch == '{' && skip_key(s, &k, &kend) < 0) return -1;
        continue;
      }
    } else if (ch == '"') {
      if (skip_string(s) < 0) return -1;
    } else if (skip_scalar(s) < 0) {
      return -1;
    }
    for (;;) {
      if (!top) return 0;
      ch = peek(s);
      if (ch == ',') {
        s->p++;
        if (stack[top - 1] == '{' && skip_key(s, &k, &kend) < 0) return -1;
        break;
      }
      if (ch != (stack[top - 1] == '{' ? '}' : ']')) return -1;
      s->p++;
      top--;
    }
  }
}

static int key_is(const char *k, const char *kend, const char *name) {
  size_t n = strlen(name);
  return (size_t)(kend - k) == n + 2 && memcmp(k + 1, name, n) == 0;
}

/* The writer trails the reader: what is written was read before. */
static void put(char **w, const char *from, size_t n) {
  memmove(*w, from, n);
  *w += n;
}
static void put_member(char **w, int *first, const char *k, const char *kend) {
  if (!*first) *(*w)++ = ',';
  *first = 0;
  put(w, k, (size_t)(kend - k));
  *(*w)++ = ':';
}

/* An object with a member named `name` at its top level? */
static int has_member(scan t, const char *name) {
  char *k, *kend;
  if (peek(&t) != '{') return 0;
  t.p++;
  if (peek(&t) == '}') return 0;
  for (;;) {
    if (skip_key(&t, &k, &kend) < 0) return 0;
    if (key_is(k, kend, name)) return 1;
    if (skip_value(&t, 1) < 0 || peek(&t) != ',') return 0;
    t.p++;
  }
}

/* Walk an object member by member; `fn` rewrites a member's value or
 * returns 1 to have it copied as it is, 2 to drop it. */
typedef int (*member_fn)(scan *s, char **w, int *first, char *k, char *kend, int depth);

static int walk_object(scan *s, char **w, int depth, member_fn fn) {
  if (depth >= MAX_DEPTH || peek(s) != '{') return -1;
  s->p++;
  *(*w)++ = '{';
  int first = 1;
  if (peek(s) == '}') {
    s->p++;
    *(*w)++ = '}';
    return 0;
  }
  for (;;) {
    char *k, *kend;
    if (skip_key(s, &k, &kend) < 0) return -1;
    peek(s);
    int rc = fn(s, w, &first, k, kend, depth + 1);
    if (rc < 0) return -1;
    if (rc > 0) {
      char *v = s->p;
      if (skip_value(s, depth + 1) < 0) return -1;
      if (rc == 1) {
        put_member(w, &first, k, kend);
        put(w, v, (size_t)(s->p - v));
      }
    }
    int ch = peek(s);
    s->p++;
    if (ch == '}') break;
    if (ch != ',') return -1;
  }
  *(*w)++ = '}';
  return 0;
}

/* name: {"type":..,"value":..,"sources":[..]}: sources without a value go. */
static int name_member(scan *s, char **w, int *first, char *k, char *kend, int depth) {
  if (!key_is(k, kend, "sources") || peek(s) != '[') return 1;
  char *rewind = *w;
  int was_first = *first, kept = 0;
  put_member(w, first, k, kend);
  s->p++;
  *(*w)++ = '[';
  if (peek(s) != ']') {
    for (;;) {
      int keep = has_member(*s, "value");
      char *v = s->p;
      if (skip_value(s, depth + 1) < 0) return -1;
      if (keep) {
        if (kept++) *(*w)++ = ',';
        put(w, v, (size_t)(s->p - v));
      }
      int ch = peek(s);
      if (ch == ']') break;
      if (ch != ',') return -1;
      s->p++;
      peek(s);
    }
  }
  s->p++; /* ']' */
  if (!kept) { /* nothing left: no member at all */
    *w = rewind;
    *first = was_first;
  } else {
    *(*w)++ = ']';
  }
  return 0;
}

static int node_member(scan *s, char **w, int *first, char *k, char *kend, int depth) {
  for (size_t i = 0; i < sizeof dropped / sizeof *dropped; i++)
    if (key_is(k, kend, dropped[i])) return 2;
  if (key_is(k, kend, "name") && peek(s) == '{') {
    put_member(w, first, k, kend);
    return walk_object(s, w, depth, name_member);
  }
  return 1;
}

/* "nodes": [node, ...] */
static int walk_nodes(scan *s, char **w, int depth) {
  s->p++;
  *(*w)++ = '[';
  int n = 0;
  if (peek(s) != ']') {
    for (;;) {
      if (n++) *(*w)++ = ',';
      if (peek(s) == '{') {
        if (walk_object(s, w, depth + 1, node_member) < 0) return -1;
      } else {
        char *v = s->p;
        if (skip_value(s, depth + 1) < 0) return -1;
        put(w, v, (size_t)(s->p - v));
      }
      int ch = peek(s);
      if (ch == ']') break;
      if (ch != ',') return -1;
      s->p++;
    }
  }
  s->p++;
  *(*w)++ = ']';
  return 0;
}

static int result_member(scan *s, char **w, int *first, char *k, char *kend, int depth) {
  if (!key_is(k, kend, "nodes") || peek(s) != '[') return 1;
  put_member(w, first, k, kend);
  return walk_nodes(s, w, depth);
}

static int top_member(scan *s, char **w, int *first, char *k, char *kend, int depth) {
  if (key_is(k, kend, "result") && peek(s) == '{') {
    put_member(w, first, k, kend);
    return walk_object(s, w, depth, result_member);
  }
  return result_member(s, w, first, k, kend, depth);
}

size_t pg_ax_compact(char *json, size_t len) {
  if (!json) return 0;
  scan s = {json, json + len};
  /* pass 1: well-formed, or left alone */
  if (skip_value(&s, 0) < 0 || peek(&s) != -1) return len;
  s.p = json;
  char *w = json;
  /* pass 2 cannot fail where pass 1 did not: same grammar, same limits */
  if (peek(&s) != '{' || walk_object(&s, &w, 0, top_member) < 0) return len;
  size_t n = (size_t)(w - json);
  if (n < len) json[n] = '\0';
  return n;
}

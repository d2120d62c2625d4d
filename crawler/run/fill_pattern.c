/* fill_pattern.c -- the regular-expression subset of HTML `pattern`
 * attributes that form drafts honour (fill.h): a parser into a small tree
 * (character sets and groups of alternatives, each with a repeat range), a
 * generator that makes a matching string, and a backtracking matcher with
 * a step budget that checks a candidate value. Everything the subset does
 * not cover is reported (-1), never guessed: the caller falls back and
 * says so. */
#include "fill.h"

#include <stdlib.h>
#include <string.h>

#define RX_PATTERN_MAX 512   /* longer patterns are not attempted */
#define RX_NODES_MAX 256     /* items in the whole tree */
#define RX_DEPTH_MAX 16      /* nested groups */
#define RX_REPEAT_MAX 64     /* {n,m} beyond this is not attempted */
#define RX_STEPS_MAX 200000  /* matcher steps */

typedef struct rx_node rx_node;
typedef struct rx_seq { int first, len; } rx_seq; /* items[first .. first+len) in the tree's seq table */

struct rx_node {
  int group;                 /* 0: a set of bytes, 1: a group of alternatives */
  unsigned char set[32];     /* the bytes it matches (group 0) */
  int alt0, nalts;           /* its alternatives: seqs[alt0 .. alt0+nalts) (group 1) */
  int min, max;              /* repeat range; max -1: unbounded */
};

typedef struct rx {
  rx_node nodes[RX_NODES_MAX];
  int nn;
  int items[RX_NODES_MAX];   /* node indexes, sequence by sequence */
  int ni;
  rx_seq seqs[RX_NODES_MAX];
  int ns;
  const char *p;             /* parse position */
  int bad;
  long steps;
} rx;

static void set_add(unsigned char *s, unsigned ch) { s[ch >> 3] |= (unsigned char)(1u << (ch & 7)); }
static int set_has(const unsigned char *s, unsigned ch) { return (s[ch >> 3] >> (ch & 7)) & 1; }
static void set_range(unsigned char *s, unsigned a, unsigned b) {
  for (unsigned c = a; c <= b && c < 256; c++) set_add(s, c);
}

/* \d \w \s and their complements (over printable ASCII and blanks). */
static int class_escape(char c, unsigned char *s) {
  unsigned char t[32] = {0};
  char lc = (char)(c | 0x20);
  if (lc == 'd') set_range(t, '0', '9');
  else if (lc == 'w') set_range(t, '0', '9'), set_range(t, 'a', 'z'), set_range(t, 'A', 'Z'), set_add(t, '_');
  else if (lc == 's') set_add(t, ' '), set_add(t, '\t');
  else return 0;
  int neg = c != lc;
  for (unsigned ch = 1; ch < 128; ch++)
    if (set_has(t, ch) != neg && (ch >= 0x20 || ch == '\t')) set_add(s, ch);
  return 1;
}

/* An escape after '\': a class escape into s, or the literal byte in *lit. */
static int escape(rx *x, unsigned char *s, unsigned *lit) {
  char c = *x->p++;
  *lit = 256;
  if (!c) return x->bad = 1, 0;
  if (class_escape(c, s)) return 1;
  if (c == 'n') return *lit = '\n', 1;
  if (c == 't') return *lit = '\t', 1;
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return x->bad = 1, 0; /* \b \1 \u ... */
  *lit = (unsigned char)c;
  return 1;
}

static int new_node(rx *x) {
  if (x->nn == RX_NODES_MAX) return x->bad = 1, 0;
  memset(&x->nodes[x->nn], 0, sizeof x->nodes[x->nn]);
  x->nodes[x->nn].min = x->nodes[x->nn].max = 1;
  return x->nn++;
}

/* [...] into node n's set. */
static void parse_class(rx *x, int n) {
  unsigned char s[32] = {0};
  int neg = *x->p == '^';
  if (neg) x->p++;
  int first = 1;
  while (*x->p && (*x->p != ']' || first)) {
    first = 0;
    unsigned lo;
    if ((unsigned char)*x->p >= 0x80) { x->bad = 1; return; }
    if (*x->p == '\\') { x->p++; if (!escape(x, s, &lo) || x->bad) return; }
    else lo = (unsigned char)*x->p++;
    if (lo == 256) continue; /* a class escape */
    if (x->p[0] == '-' && x->p[1] && x->p[1] != ']') {
      x->p++;
      unsigned hi;
      if (*x->p == '\\') { x->p++; if (!escape(x, s, &hi) || hi == 256) { x->bad = 1; return; } }
      else hi = (unsigned char)*x->p++;
      if (hi < lo || hi >= 0x80) { x->bad = 1; return; }
      set_range(s, lo, hi);
    } else {
      set_add(s, lo);
    }
  }
  if (*x->p != ']') { x->bad = 1; return; }
  x->p++;
  for (unsigned ch = 0; ch < 256; ch++) {
    int in = set_has(s, ch);
    if (neg) in = !in && ch >= 0x20 && ch < 0x7f;
    if (in) set_add(x->nodes[n].set, ch);
  }
}

static long number(rx *x) {
  long v = -1;
  while (*x->p >= '0' && *x->p <= '9') v = (v < 0 ? 0 : v) * 10 + (*x->p++ - '0'), v = v > 100000 ? 100000 : v;
  return v;
}

/* A quantifier after node n, if any. */
static void quantifier(rx *x, int n) {
  rx_node *d = &x->nodes[n];
  char c = *x->p;
  if (c == '?') d->min = 0, d->max = 1, x->p++;
  else if (c == '*') d->min = 0, d->max = -1, x->p++;
  else if (c == '+') d->min = 1, d->max = -1, x->p++;
  else if (c == '{') {
    x->p++;
    long lo = number(x), hi = lo;
    if (*x->p == ',') { x->p++; hi = number(x); if (hi < 0) hi = -1; }
    if (lo < 0 || *x->p != '}' || (hi >= 0 && hi < lo) || lo > RX_REPEAT_MAX || hi > RX_REPEAT_MAX) { x->bad = 1; return; }
    x->p++;
    d->min = (int)lo, d->max = (int)hi;
  } else return;
  if (*x->p == '?') x->p++; /* lazy: the same strings */
  if (*x->p == '?' || *x->p == '*' || *x->p == '+' || *x->p == '{') x->bad = 1;
}

static int parse_alts(rx *x, int depth);

/* One item (a set or a group) with its quantifier; -1 at the end of a sequence. */
static int parse_item(rx *x, int depth) {
  char c = *x->p;
  if (!c || c == '|' || c == ')') return -1;
  if (c == '^' || c == '$') { x->bad = 1; return -1; } /* anchors inside: not the subset */
  int n = new_node(x);
  if (x->bad) return -1;
  x->p++;
  if (c == '(') {
    if (x->p[0] == '?' && x->p[1] == ':') x->p += 2;
    else if (x->p[0] == '?') { x->bad = 1; return -1; }
    x->nodes[n].group = 1;
    x->nodes[n].alt0 = parse_alts(x, depth + 1);
    if (x->bad || *x->p != ')') { x->bad = 1; return -1; }
    x->p++;
    x->nodes[n].nalts = x->ns - x->nodes[n].alt0; /* parse_alts appended its sequences last */
  } else if (c == '[') {
    parse_class(x, n);
  } else if (c == '\\') {
    unsigned lit;
    if (escape(x, x->nodes[n].set, &lit) && lit != 256) set_add(x->nodes[n].set, lit);
  } else if (c == '.') {
    set_range(x->nodes[n].set, 0x20, 0x7e);
  } else if (c == '*' || c == '+' || c == '?' || c == '{' || c == ']' || c == '}') {
    if (c != ']' && c != '}') { x->bad = 1; return -1; }
    set_add(x->nodes[n].set, (unsigned char)c);
  } else {
    set_add(x->nodes[n].set, (unsigned char)c);
  }
  if (!x->bad) quantifier(x, n);
  return x->bad ? -1 : n;
}

/* Alternatives a|b|c up to ')' or the end: their sequences are appended to
 * seqs contiguously (nested groups' sequences are parsed into a scratch
 * list first, then copied, so that a group's alternatives stay adjacent);
 * returns the index of the first. */
static int parse_alts(rx *x, int depth) {
  if (depth > RX_DEPTH_MAX) return x->bad = 1, 0;
  rx_seq mine[RX_NODES_MAX / 4];
  int nmine = 0;
  for (;;) {
    int items[RX_NODES_MAX], nit = 0;
    for (int n; (n = parse_item(x, depth)) >= 0;) {
      if (nit == RX_NODES_MAX) return x->bad = 1, 0;
      items[nit++] = n;
    }
    if (x->bad) return 0;
    if (nmine == (int)(sizeof mine / sizeof *mine) || x->ni + nit > RX_NODES_MAX) return x->bad = 1, 0;
    mine[nmine++] = (rx_seq){x->ni, nit};
    memcpy(&x->items[x->ni], items, (size_t)nit * sizeof *items);
    x->ni += nit;
    if (*x->p != '|') break;
    x->p++;
  }
  if (x->ns + nmine > RX_NODES_MAX) return x->bad = 1, 0;
  int first = x->ns;
  memcpy(&x->seqs[x->ns], mine, (size_t)nmine * sizeof *mine);
  x->ns += nmine;
  return first;
}

/* Parse pattern into x (heap: the tree is ~20 KB); NULL outside the subset.
 * The root is a group node whose alternatives are the top level. */
static rx *rx_parse(const char *pattern) {
  if (!pattern || strlen(pattern) > RX_PATTERN_MAX) return NULL;
  rx *x = calloc(1, sizeof *x);
  if (!x) return NULL;
  size_t len = strlen(pattern);
  char buf[RX_PATTERN_MAX + 1];
  const char *s = pattern;
  if (*s == '^') s++, len--;
  memcpy(buf, s, len);
  buf[len] = 0;
  if (len && buf[len - 1] == '$' && !(len > 1 && buf[len - 2] == '\\')) buf[len - 1] = 0;
  x->p = buf;
  int root = new_node(x);
  x->nodes[root].group = 1;
  x->nodes[root].alt0 = parse_alts(x, 0);
  x->nodes[root].nalts = x->ns - x->nodes[root].alt0;
  if (x->bad || *x->p) { free(x); return NULL; }
  x->p = NULL;
  return x;
}

/* ---- generating ---- */
typedef struct gen { char *o; size_t n, cap; const char *prefer; size_t cursor; int extra; } gen;

/* The byte a set gives at this point: its only member; else the next
 * character of prefer (from the cursor on) that it holds, so that a
 * pattern like \d{3}-\d{4} takes "555-0100" from the preferred value; else a
 * plain one. -1: the set is empty. */
static int pick(const unsigned char *set, gen *g) {
  int members = 0, only = -1;
  for (unsigned c = 0; c < 256 && members < 2; c++)
    if (set_has(set, c)) members++, only = (int)c;
  if (members == 1) return only;
  const char *pre = g->prefer ? g->prefer : "";
  for (size_t j = g->cursor; pre[j]; j++)
    if (set_has(set, (unsigned char)pre[j])) return g->cursor = j + 1, (unsigned char)pre[j];
  for (const char *p = pre; *p; p++)
    if (set_has(set, (unsigned char)*p)) return (unsigned char)*p;
  static const char fallback[] = "x5aA0-_. @";
  for (const char *p = fallback; *p; p++)
    if (set_has(set, (unsigned char)*p)) return (unsigned char)*p;
  for (unsigned c = 0x21; c < 0x7f; c++)
    if (set_has(set, c)) return (int)c;
  return set_has(set, ' ') ? ' ' : set_has(set, '\t') ? '\t' : -1;
}

static int gen_node(const rx *x, int n, gen *g);

static int gen_seq(const rx *x, const rx_seq *q, gen *g) {
  for (int i = 0; i < q->len; i++)
    if (gen_node(x, x->items[q->first + i], g)) return -1;
  return 0;
}

static int gen_node(const rx *x, int n, gen *g) {
  const rx_node *d = &x->nodes[n];
  int reps = d->min;
  if (g->extra > 0 && (d->max < 0 || d->max > d->min) && !d->group) {
    int more = d->max < 0 ? g->extra : (d->max - d->min < g->extra ? d->max - d->min : g->extra);
    reps += more;
    g->extra -= more;
  }
  for (int r = 0; r < reps; r++) {
    if (d->group) {
      if (gen_seq(x, &x->seqs[d->alt0], g)) return -1; /* the first alternative */
      continue;
    }
    int c = pick(d->set, g);
    if (c < 0 || g->n + 1 >= g->cap) return -1;
    g->o[g->n++] = (char)c;
  }
  return 0;
}

int crawl__fill_pattern_make(const char *pattern, const char *prefer, int extra, char *out, size_t cap) {
  if (!out || cap < 1) return -1;
  out[0] = 0;
  rx *x = rx_parse(pattern);
  if (!x) return -1;
  gen g = {.o = out, .cap = cap, .prefer = prefer, .extra = extra};
  int rc = gen_node(x, 0, &g);
  out[rc ? 0 : g.n] = 0;
  free(x);
  return rc;
}

/* ---- matching ---- */
/* What remains to match after the current item: the rest of a sequence,
 * or more repetitions of a group (then the rest after it). */
typedef struct rx_k {
  int kind;                  /* 0: the rest of seq from idx; 1: group node `node` again (count done) */
  const rx_seq *seq;
  int idx, node, count;
  size_t start;              /* where this repetition of the group began */
  const struct rx_k *next;
} rx_k;

static int m_seq(rx *x, const rx_seq *q, int i, const char *s, size_t p, size_t n, const rx_k *k);
static int m_rep(rx *x, int node, int count, const rx_seq *q, int i, const char *s, size_t p, size_t n, const rx_k *k);

static int m_cont(rx *x, const rx_k *k, const char *s, size_t p, size_t n) {
  if (!k) return p == n;
  if (k->kind == 0) return m_seq(x, k->seq, k->idx, s, p, n, k->next);
  if (p == k->start && k->count > x->nodes[k->node].min) return 0; /* an empty repetition: no progress */
  return m_rep(x, k->node, k->count, k->seq, k->idx, s, p, n, k->next);
}

/* Node `node` (item i of q) matched `count` times so far, ending at p. */
static int m_rep(rx *x, int node, int count, const rx_seq *q, int i, const char *s, size_t p, size_t n, const rx_k *k) {
  if (++x->steps > RX_STEPS_MAX) return 0;
  const rx_node *d = &x->nodes[node];
  rx_k rest = {.kind = 0, .seq = q, .idx = i + 1, .next = k};
  int more = d->max < 0 || count < d->max;
  if (more && !d->group && p < n && set_has(d->set, (unsigned char)s[p]) &&
      m_rep(x, node, count + 1, q, i, s, p + 1, n, k))
    return 1;
  if (more && d->group) {
    rx_k again = {.kind = 1, .seq = q, .idx = i, .node = node, .count = count + 1, .start = p, .next = k};
    for (int a = 0; a < d->nalts; a++)
      if (m_seq(x, &x->seqs[d->alt0 + a], 0, s, p, n, &again)) return 1;
  }
  return count >= d->min && m_cont(x, &rest, s, p, n);
}

static int m_seq(rx *x, const rx_seq *q, int i, const char *s, size_t p, size_t n, const rx_k *k) {
  if (i == q->len) return m_cont(x, k, s, p, n);
  return m_rep(x, x->items[q->first + i], 0, q, i, s, p, n, k);
}

int crawl__fill_pattern_match(const char *pattern, const char *s) {
  rx *x = rx_parse(pattern);
  if (!x) return -1;
  if (!s) s = "";
  const rx_node *root = &x->nodes[0];
  int ok = 0;
  for (int a = 0; a < root->nalts && !ok; a++) ok = m_seq(x, &x->seqs[root->alt0 + a], 0, s, 0, strlen(s), NULL);
  int rc = x->steps > RX_STEPS_MAX ? -1 : ok;
  free(x);
  return rc;
}

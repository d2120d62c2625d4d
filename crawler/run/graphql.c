/* graphql.c -- reads GraphQL requests far enough to know what they do: a
 * lexer (names, punctuators, strings, block strings, numbers; whitespace,
 * commas and # comments ignored) and a scanner of a document's top-level
 * definitions (operations and fragments; every selection set, argument
 * list and value skipped as balanced brackets), and the shapes a request
 * body takes (application/graphql, JSON with "query", persisted queries,
 * batches). Whatever it cannot read is not a read: the guard fails it.
 *
 * Not here: letting requests through or failing them (page_guard.c), the
 * operations' fields, variables or the schema (the guard needs none). */
#include "graphql.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define GQL_MAX_DEPTH 256

/* ---- lexer ----------------------------------------------------------------- */
typedef enum { T_EOF, T_ERR, T_NAME, T_PUNCT, T_VALUE } tok_type;
typedef struct {
  const char *s;
  size_t n, i;
  tok_type t;
  const char *at; /* the token's text (T_NAME) */
  size_t len;
  char c;         /* T_PUNCT: the character ('.' for "...") */
} lexer;

static int name_start(char c) { return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
static int name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }

/* Whitespace, line ends, commas, a byte order mark and comments. */
static void skip_ignored(lexer *x) {
  while (x->i < x->n) {
    char c = x->s[x->i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',') x->i++;
    else if (c == '#') while (x->i < x->n && x->s[x->i] != '\n' && x->s[x->i] != '\r') x->i++;
    else if (x->n - x->i >= 3 && !memcmp(x->s + x->i, "\xEF\xBB\xBF", 3)) x->i += 3;
    else return;
  }
}

static int at(const lexer *x, size_t k, const char *lit) {
  size_t l = strlen(lit);
  return x->n - k >= l && !memcmp(x->s + k, lit, l);
}

/* A "..." string (escapes, no line end) or a """...""" block string (\"""
 * escapes its quotes); x->i at the opening quote. 0, or -1 unterminated. */
static int skip_string(lexer *x) {
  if (at(x, x->i, "\"\"\"")) {
    for (x->i += 3; x->i < x->n; x->i++) {
      if (at(x, x->i, "\\\"\"\"")) x->i += 3;
      else if (at(x, x->i, "\"\"\"")) return x->i += 3, 0;
    }
    return -1;
  }
  for (x->i++; x->i < x->n; x->i++) {
    char c = x->s[x->i];
    if (c == '\\') x->i++;
    else if (c == '"') return x->i++, 0;
    else if (c == '\n' || c == '\r') return -1;
  }
  return -1;
}

static tok_type next(lexer *x) {
  skip_ignored(x);
  x->at = x->s + x->i;
  x->len = 0;
  if (x->i >= x->n) return x->t = T_EOF;
  char c = x->s[x->i];
  if (name_start(c)) {
    size_t b = x->i;
    while (x->i < x->n && name_char(x->s[x->i])) x->i++;
    x->len = x->i - b;
    return x->t = T_NAME;
  }
  if (c == '"') return x->t = skip_string(x) ? T_ERR : T_VALUE;
  if (c == '-' || (c >= '0' && c <= '9')) {
    while (x->i < x->n && strchr("0123456789+-.eE", x->s[x->i]) && x->s[x->i]) x->i++;
    return x->t = T_VALUE;
  }
  if (at(x, x->i, "...")) return x->i += 3, x->c = '.', x->t = T_PUNCT;
  if (strchr("!$&()[]{}:=@|", c) && c) return x->i++, x->c = c, x->t = T_PUNCT;
  return x->t = T_ERR;
}

static int is_name(const lexer *x, const char *kw) {
  return x->t == T_NAME && x->len == strlen(kw) && !memcmp(x->at, kw, x->len);
}
static int is_punct(const lexer *x, char c) { return x->t == T_PUNCT && x->c == c; }

/* ---- scanner --------------------------------------------------------------- */
/* The group the current token opens ('(', '[' or '{'), to its matching
 * closer; then the token after it. 0, or -1. */
static int skip_group(lexer *x) {
  char stack[GQL_MAX_DEPTH];
  int d = 0;
  do {
    if (x->t == T_EOF || x->t == T_ERR) return -1;
    if (x->t == T_PUNCT && strchr("([{", x->c)) {
      if (d == GQL_MAX_DEPTH) return -1;
      stack[d++] = x->c == '(' ? ')' : x->c == '[' ? ']' : '}';
    } else if (x->t == T_PUNCT && strchr(")]}", x->c)) {
      if (!d || stack[d - 1] != x->c) return -1;
      d--;
    }
    next(x);
  } while (d);
  return 0;
}

/* Directives (@name, @name(args)) then a selection set; then the token after. */
static int directives_and_set(lexer *x) {
  while (is_punct(x, '@')) {
    if (next(x) != T_NAME) return -1;
    next(x);
    if (is_punct(x, '(') && skip_group(x)) return -1;
  }
  return is_punct(x, '{') ? skip_group(x) : -1;
}

/* fragment Name on Type @directives { ... }; the current token is "fragment". */
static int fragment(lexer *x) {
  if (next(x) != T_NAME || is_name(x, "on")) return -1;
  next(x);
  if (!is_name(x, "on") || next(x) != T_NAME) return -1;
  next(x);
  return directives_and_set(x);
}

typedef struct {
  int nops, write;
  char first[160]; /* the deciding operation, "mutation Name" */
} scan_out;

/* query|mutation|subscription Name? (variables)? @directives { ... }, or
 * the shorthand { ... }; the current token is the type or the '{'. */
static int operation(lexer *x, scan_out *o) {
  char type[16] = "query", name[128] = "";
  if (x->t == T_NAME) {
    snprintf(type, sizeof type, "%.*s", (int)x->len, x->at);
    if (next(x) == T_NAME) {
      snprintf(name, sizeof name, "%.*s", (int)(x->len < 127 ? x->len : 127), x->at);
      next(x);
    }
    if (is_punct(x, '(') && skip_group(x)) return -1;
  }
  if (directives_and_set(x)) return -1;
  int w = strcmp(type, "query") != 0;
  if (!o->nops++ || (w && !o->write)) snprintf(o->first, sizeof o->first, "%s%s%s", type, name[0] ? " " : "", name);
  o->write |= w;
  return 0;
}

crawl_gql_kind crawl__gql_scan(const char *text, size_t len, char *name, size_t n) {
  lexer x = {.s = text ? text : "", .n = text ? len : 0};
  scan_out o = {0};
  if (name && n) name[0] = 0;
  next(&x);
  while (x.t != T_EOF) {
    int rc;
    if (is_punct(&x, '{') || is_name(&x, "query") || is_name(&x, "mutation") || is_name(&x, "subscription"))
      rc = operation(&x, &o);
    else if (is_name(&x, "fragment")) rc = fragment(&x);
    else rc = -1; /* type system definitions, stray tokens */
    if (rc) return CRAWL_GQL_BAD;
  }
  if (!o.nops) return CRAWL_GQL_BAD;
  if (name && n) snprintf(name, n, "%s", o.first);
  return o.write ? CRAWL_GQL_WRITE : CRAWL_GQL_READ;
}

/* ---- request bodies -------------------------------------------------------- */
static int name_allowed(const char *name, const char *const *allowed) {
  for (int i = 0; name && allowed && allowed[i]; i++)
    if (!strcmp(name, allowed[i])) return 1;
  return 0;
}

/* A persisted query: no document, only something that names one. */
static int persisted(const cJSON *o) {
  const cJSON *ext = cJSON_GetObjectItemCaseSensitive(o, "extensions");
  if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(ext, "persistedQuery"))) return 1;
  int named = cJSON_HasObjectItem(o, "operationName") || cJSON_HasObjectItem(o, "variables");
  return named && (cJSON_HasObjectItem(o, "id") || cJSON_HasObjectItem(o, "documentId"));
}

static crawl_gql_verdict of_document(const char *doc, size_t len, char *what, size_t n) {
  char op[160];
  crawl_gql_kind k = crawl__gql_scan(doc, len, op, sizeof op);
  if (k == CRAWL_GQL_BAD) {
    snprintf(what, n, "a GraphQL document the guard cannot read");
    return CRAWL_GQL_UNKNOWN;
  }
  snprintf(what, n, "a GraphQL %s", op);
  return k == CRAWL_GQL_WRITE ? CRAWL_GQL_MUTATION : CRAWL_GQL_QUERY;
}

/* One JSON request object. */
static crawl_gql_verdict of_object(const cJSON *o, const char *const *allowed, char *what, size_t n) {
  const cJSON *q = cJSON_GetObjectItemCaseSensitive(o, "query");
  if (cJSON_IsString(q)) return of_document(q->valuestring, strlen(q->valuestring), what, n);
  if (q || !cJSON_IsObject(o) || !persisted(o)) return CRAWL_GQL_NONE;
  const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "operationName"));
  if (name_allowed(name, allowed)) {
    snprintf(what, n, "a persisted GraphQL query %.120s (allowed by name)", name);
    return CRAWL_GQL_NAMED;
  }
  snprintf(what, n, "a persisted GraphQL operation%s%.120s (only its hash is sent: a mutation? a read?)",
           name ? " " : "", name ? name : "");
  return CRAWL_GQL_UNKNOWN;
}

/* The verdicts of a batch: any mutation decides, then anything unread;
 * all NONE is no GraphQL. */
static int rank(crawl_gql_verdict v) {
  static const int r[] = {[CRAWL_GQL_NONE] = 0, [CRAWL_GQL_QUERY] = 1, [CRAWL_GQL_NAMED] = 2,
                          [CRAWL_GQL_UNKNOWN] = 3, [CRAWL_GQL_MUTATION] = 4};
  return r[v];
}

static crawl_gql_verdict of_batch(const cJSON *arr, const char *const *allowed, char *what, size_t n) {
  crawl_gql_verdict worst = CRAWL_GQL_NONE;
  int none = 0, total = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, arr) {
    char w[256] = "";
    crawl_gql_verdict v = of_object(e, allowed, w, sizeof w);
    total++;
    none += v == CRAWL_GQL_NONE;
    if (rank(v) > rank(worst)) worst = v, snprintf(what, n, "%s", w);
  }
  if (worst != CRAWL_GQL_NONE && none && rank(worst) < rank(CRAWL_GQL_UNKNOWN)) {
    snprintf(what, n, "a GraphQL batch with parts the guard cannot read");
    return CRAWL_GQL_UNKNOWN;
  }
  return total ? worst : CRAWL_GQL_NONE;
}

static int is_graphql_type(const char *ct) {
  static const char t[] = "application/graphql";
  if (!ct || strncasecmp(ct, t, sizeof t - 1)) return 0;
  char c = ct[sizeof t - 1];
  return !c || c == ';' || c == ' ';
}

crawl_gql_verdict crawl__gql_request(const char *content_type, const char *body, size_t len,
                                     const char *const *allowed_ops, char *what, size_t n) {
  char sink[8];
  if (!what || !n) what = sink, n = sizeof sink;
  what[0] = 0;
  if (!body) return CRAWL_GQL_NONE;
  if (is_graphql_type(content_type)) return of_document(body, len, what, n);
  cJSON *j = cJSON_ParseWithLength(body, len);
  crawl_gql_verdict v = CRAWL_GQL_NONE;
  if (cJSON_IsArray(j)) v = of_batch(j, allowed_ops, what, n);
  else if (cJSON_IsObject(j)) v = of_object(j, allowed_ops, what, n);
  cJSON_Delete(j);
  return v;
}

/* api_template.c -- endpoint templates for api.json (docs/api.md,
 * "## Templates"): a request URL's path becomes a template such as
 * "/api/users/{userId}/posts/{id}".
 *
 *   1. values: a path segment that is a number, a UUID, a long hex id or a
 *      date (pg_route_template's rule, graph/pg_url.h) is a parameter;
 *   2. words: a segment that took 3 or more different values under one
 *      parent (the same origin, the same segments before and after it) is a
 *      parameter, when it sits between a literal parent and a literal child
 *      and has at least two segments before it:
 *      /api/users/alice/posts, /bob/posts, /carol/posts -> /api/users/{user}/posts.
 *      So a last segment is never learned (/api/config, /api/stats,
 *      /api/users are three endpoints, not three values), nor the second
 *      (/api/pets/{id}, /api/notes/{id}, /api/users/{id} stay three);
 *   3. names: after the literal segment before it, singularised and
 *      camel-cased ("pets" -> "pet", "user-groups" -> "userGroup"): a
 *      value id is "<word>Id", except in the last segment, where it is
 *      "id" (/api/pets/{id}, /api/users/{userId}/posts/{id}); a learned word
 *      is "<word>"; a date is "date"; a number after a pagination word is
 *      "page"; with no literal segment before it: "id" or "name". A name
 *      used before in the template gets a number ("id2").
 * The learned segments depend on the set of paths noted, not their order.
 * The learner is this file's own: graph/route_learn.c learns route
 * parameters from page layouts, which requests do not have.
 */
#include "pkg_int.h"

#include <ctype.h>

#define TPL_WORD_MIN 3      /* different values under one parent that make a parameter */
#define TPL_NAME_MAX 40     /* bytes of a parameter name */
#define TPL_SEG_MAX 64      /* path segments looked at; more: no parameters learned past them */

/* Parameter kinds, as markers in an id-templated segment. */
#define K_ID "\001id"
#define K_PAGE "\001n"
#define K_DATE "\001date"
#define K_WORD "\001w"

struct pk_tpl_learner {
  strset paths;   /* "origin\x1f" + id-templated path */
  strset groups;  /* group keys (segment i blanked) ... */
  strset *values; /* ... and the values seen there (parallel) */
  strset learned; /* group keys with TPL_WORD_MIN values or more */
};

pk_tpl_learner *pk_tpl_learner_new(void) { return crawl__xcalloc(1, sizeof(pk_tpl_learner)); }

void pk_tpl_learner_free(pk_tpl_learner *l) {
  if (!l) return;
  for (size_t i = 0; i < l->groups.n; i++) pk_strset_free(&l->values[i]);
  free(l->values);
  pk_strset_free(&l->groups);
  pk_strset_free(&l->paths);
  pk_strset_free(&l->learned);
  free(l);
}

/* ---- segments ---------------------------------------------------------------------- */
typedef struct segs { char *v[TPL_SEG_MAX]; size_t n; } segs;

static void segs_free(segs *s) {
  for (size_t i = 0; i < s->n; i++) free(s->v[i]);
  s->n = 0;
}

/* path ("/a/b/c") cut at '/' (the leading one dropped; at most TPL_SEG_MAX,
 * the rest kept whole in the last). */
static void segs_split(const char *path, segs *s) {
  s->n = 0;
  const char *p = *path == '/' ? path + 1 : path;
  while (s->n < TPL_SEG_MAX) {
    const char *e = s->n + 1 < TPL_SEG_MAX ? strchr(p, '/') : NULL;
    s->v[s->n++] = e ? crawl__xstrndup(p, (size_t)(e - p)) : crawl__xstrdup(p);
    if (!e) break;
    p = e + 1;
  }
}

static char *segs_join(const segs *s, size_t skip /* index shown as "\x02", or SIZE_MAX */) {
  crawl__buf b = {0};
  for (size_t i = 0; i < s->n; i++) {
    crawl__buf_puts(&b, "/");
    crawl__buf_puts(&b, i == skip ? "\x02" : s->v[i]);
  }
  if (!s->n) crawl__buf_puts(&b, "/");
  return crawl__buf_take(&b);
}

/* Step 1: path's segments with value segments replaced by their kind marker. */
static void id_segments(const char *path, segs *out) {
  segs_split(path, out);
  char *t = pg_route_template(path, NULL, NULL);
  segs ts = {.n = 0};
  if (t) segs_split(t, &ts);
  free(t);
  if (ts.n == out->n) {
    for (size_t i = 0; i < out->n; i++) {
      const char *m = ts.v[i];
      if (m[0] != ':' || !strcmp(m, out->v[i])) continue;
      const char *kind = !strncmp(m, ":date", 5) ? K_DATE : !strncmp(m, ":n", 2) && (!m[2] || isdigit((unsigned char)m[2])) ? K_PAGE : K_ID;
      free(out->v[i]);
      out->v[i] = crawl__xstrdup(kind);
    }
  }
  segs_free(&ts);
}

static int is_param(const char *seg) { return seg[0] == '\001'; }

/* Segment i may be learned: a literal with two segments before it, a
 * literal parent just before and a literal child after it. */
static int learnable(const segs *s, size_t i) {
  return i >= 2 && i + 1 < s->n && !is_param(s->v[i]) && !is_param(s->v[i - 1]) && !is_param(s->v[i + 1]);
}

/* The key of the group of segment i of s under origin. Caller frees. */
static char *group_key(const char *origin, const segs *s, size_t i) {
  char *j = segs_join(s, i);
  char *k = crawl__xprintf("%s\x1f%zu\x1f%zu\x1f%s", origin, s->n, i, j);
  free(j);
  return k;
}

/* ---- learning ---------------------------------------------------------------------- */
void pk_tpl_note(pk_tpl_learner *l, const char *origin, const char *path) {
  segs s;
  id_segments(path, &s);
  char *j = segs_join(&s, SIZE_MAX), *k = crawl__xprintf("%s\x1f%s", origin, j);
  int fresh, added;
  pk_strset_put(&l->paths, k, &fresh);
  free(k);
  free(j);
  for (size_t i = 0; fresh && i < s.n; i++) {
    if (!learnable(&s, i)) continue;
    char *g = group_key(origin, &s, i);
    long gi = PK_ENTRY(l->groups, l->values, g, &added);
    pk_strset_add(&l->values[gi], s.v[i]);
    free(g);
  }
  segs_free(&s);
}

void pk_tpl_learn(pk_tpl_learner *l) {
  for (size_t i = 0; i < l->groups.n; i++)
    if (l->values[i].n >= TPL_WORD_MIN) pk_strset_add(&l->learned, l->groups.v[i]);
}

/* ---- names ------------------------------------------------------------------------- */
/* word singularised and camel-cased into out (TPL_NAME_MAX bytes); "" when
 * nothing of it is a letter or digit. */
static void word_name(const char *word, char *out) {
  size_t n = 0;
  int up = 0;
  for (const char *p = word; *p && n + 1 < TPL_NAME_MAX; p++) {
    unsigned char c = (unsigned char)*p;
    if (!isalnum(c)) { up = n > 0; continue; }
    out[n] = (char)(n == 0 ? tolower(c) : up ? toupper(c) : c);
    n++;
    up = 0;
  }
  out[n] = 0;
  if (n > 3 && !strcmp(out + n - 3, "ies")) strcpy(out + n - 3, "y");
  else if (n > 3 && (!strcmp(out + n - 3, "ses") || !strcmp(out + n - 3, "xes"))) out[n - 2] = 0;
  else if (n > 4 && (!strcmp(out + n - 4, "ches") || !strcmp(out + n - 4, "shes"))) out[n - 2] = 0;
  else if (n > 1 && out[n - 1] == 's' && out[n - 2] != 's') out[n - 1] = 0;
  if (out[0] && isdigit((unsigned char)out[0])) out[0] = 0; /* not a name */
}

/* The name of parameter segment i of s (kind marker), before numbering. */
static void param_name(const segs *s, size_t i, char *out) {
  const char *kind = s->v[i];
  char w[TPL_NAME_MAX] = "";
  if (i > 0 && !is_param(s->v[i - 1])) word_name(s->v[i - 1], w);
  if (!strcmp(kind, K_DATE)) snprintf(out, TPL_NAME_MAX, "date");
  else if (!strcmp(kind, K_PAGE)) snprintf(out, TPL_NAME_MAX, "page");
  else if (!strcmp(kind, K_WORD)) snprintf(out, TPL_NAME_MAX, "%s", *w ? w : "name");
  else if (i + 1 == s->n || !*w) snprintf(out, TPL_NAME_MAX, "id");
  else snprintf(out, TPL_NAME_MAX, "%.*sId", TPL_NAME_MAX - 3, w);
}

char *pk_tpl_template(const pk_tpl_learner *l, const char *origin, const char *path, char ***params, size_t *nparams) {
  segs s;
  id_segments(path, &s);
  for (size_t i = 0; l && i < s.n; i++) {
    if (!learnable(&s, i)) continue;
    char *g = group_key(origin, &s, i);
    if (pk_strset_find(&l->learned, g) >= 0) {
      free(s.v[i]);
      s.v[i] = crawl__xstrdup(K_WORD);
    }
    free(g);
  }
  *params = NULL;
  *nparams = 0;
  crawl__buf b = {0};
  for (size_t i = 0; i < s.n; i++) {
    crawl__buf_puts(&b, "/");
    if (!is_param(s.v[i])) { crawl__buf_puts(&b, s.v[i]); continue; }
    char base[TPL_NAME_MAX], name[TPL_NAME_MAX + 16];
    param_name(&s, i, base);
    snprintf(name, sizeof name, "%s", base);
    for (int k = 2;; k++) { /* a name used before gets a number */
      size_t j = 0;
      while (j < *nparams && strcmp((*params)[j], name)) j++;
      if (j == *nparams) break;
      snprintf(name, sizeof name, "%s%d", base, k);
    }
    *params = crawl__xrealloc(*params, (*nparams + 1) * sizeof **params);
    (*params)[(*nparams)++] = crawl__xstrdup(name);
    crawl__buf_printf(&b, "{%s}", name);
  }
  if (!s.n) crawl__buf_puts(&b, "/");
  segs_free(&s);
  return crawl__buf_take(&b);
}

/* One path alone (no learned words: nothing to learn from): the template
 * observe and mcp act name while the crawl runs, the same as api.json's
 * for any path whose parameters are values. */
char *crawl_api_path_template(const char *path) {
  char **params = NULL;
  size_t n = 0;
  char *t = pk_tpl_template(NULL, "", path && *path ? path : "/", &params, &n);
  for (size_t i = 0; i < n; i++) free(params[i]);
  free(params);
  return t;
}

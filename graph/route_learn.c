/* route_learn.c -- route templates learned from the pages of a run
 * (pg_route_learner): a path segment that is a word, not an id, becomes
 * ":param" once two pages that differ only in it show the same layout
 * (/owners/george and /owners/betty, both an owner's page). What
 * pg_route_template does without knowledge of the run (ids, UUIDs, hashes,
 * dates) happens first; docs/fingerprint.md "Route templates" states the
 * rule. Not where templates are used (the crawler's observe and state
 * table). */
#include "pg_int.h"
#include "pg_url.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pg_route_learner {
  crawl__strmap first;   /* "shape\x1flayout" -> index of the first value seen */
  char **values;         /* the word seen there first, by that index */
  size_t nvalues, capvalues;
  crawl__strmap learned; /* shapes whose blank is a parameter */
};

pg_route_learner *pg_route_learner_new(void) { return crawl__xcalloc(1, sizeof(pg_route_learner)); }

void pg_route_learner_free(pg_route_learner *l) {
  if (!l) return;
  crawl__strmap_release(&l->first);
  crawl__strmap_release(&l->learned);
  for (size_t i = 0; i < l->nvalues; i++) free(l->values[i]);
  free(l->values);
  free(l);
}

/* The word segments of template t that may be parameters: the segments of
 * its path and of a client-side route ("#/...", "#!/..."), not its query;
 * not empty, not a parameter already. Offsets and lengths into off/len (at
 * most cap); returns how many. */
static size_t word_segments(const char *t, size_t *off, size_t *len, size_t cap) {
  size_t n = 0, i = 0, end = strcspn(t, "?#");
  const char *rest = *t == '/' ? t : pg_url_rest(t);
  if (*rest) i = (size_t)(rest - t);
  for (int part = 0; part < 2; part++) {
    while (i < end && n < cap) {
      if (t[i] == '/') { i++; continue; }
      size_t s = i;
      while (i < end && t[i] != '/') i++;
      if (t[s] != ':' && i > s) off[n] = s, len[n++] = i - s;
    }
    const char *h = strchr(t, '#');
    if (part || !h || (h[1] != '/' && h[1] != '!')) break;
    i = (size_t)(h - t) + 1 + (h[1] == '!');
    end = i + strcspn(t + i, "?");
  }
  return n;
}

/* "t with segment (off, len) as '\x01'" and without its queries: where a
 * value sits, without it (a query does not change which segment is a
 * record). */
static char *shape_of(const char *t, size_t off, size_t len) {
  size_t n = strlen(t), o = 0;
  char *s = crawl__xmalloc(n - len + 2);
  for (size_t i = 0; i < n;) {
    if (i == off) {
      s[o++] = '\x01';
      i += len;
    } else if (t[i] == '?') {
      i += strcspn(t + i, "#");
    } else {
      s[o++] = t[i++];
    }
  }
  s[o] = 0;
  return s;
}

#define SEGS_MAX 32

int pg_route_learn(pg_route_learner *l, const char *route_key, const char *layout) {
  char *t = route_key ? pg_route_template(route_key, NULL, NULL) : NULL;
  if (!l || !t || !layout) {
    free(t);
    return 0;
  }
  size_t off[SEGS_MAX], len[SEGS_MAX], n = word_segments(t, off, len, SEGS_MAX);
  int taught = 0;
  for (size_t k = 0; k < n; k++) {
    char *shape = shape_of(t, off[k], len[k]);
    char *key = crawl__xprintf("%s\x1f%s", shape, layout);
    long first = crawl__strmap_get(&l->first, key);
    if (first < 0) {
      if (l->nvalues == l->capvalues) {
        l->capvalues = l->capvalues ? l->capvalues * 2 : 32;
        l->values = crawl__xrealloc(l->values, l->capvalues * sizeof *l->values);
      }
      l->values[l->nvalues] = crawl__xstrndup(t + off[k], len[k]);
      crawl__strmap_put(&l->first, key, (long)l->nvalues++);
    } else if ((strlen(l->values[first]) != len[k] || strncmp(l->values[first], t + off[k], len[k])) &&
               crawl__strmap_get(&l->learned, shape) < 0) {
      crawl__strmap_put(&l->learned, shape, 1);
      taught = 1;
    }
    free(key);
    free(shape);
  }
  free(t);
  return taught;
}

char *pg_route_learned_template(const pg_route_learner *l, const char *route_key, pg_route_param **params,
                                size_t *nparams) {
  pg_route_param *p = NULL;
  size_t np = 0;
  char *t = pg_route_template(route_key, &p, &np);
  if (t && l && l->learned.n) {
    size_t off[SEGS_MAX], len[SEGS_MAX], n = word_segments(t, off, len, SEGS_MAX), o = 0;
    char *out = crawl__xmalloc(strlen(t) + n * 8 + 1);
    size_t from = 0;
    for (size_t k = 0; k < n; k++) {
      char *shape = shape_of(t, off[k], len[k]);
      int learned = crawl__strmap_get(&l->learned, shape) >= 0;
      free(shape);
      if (!learned) continue;
      memcpy(out + o, t + from, off[k] - from);
      o += off[k] - from;
      char name[16];
      int uses = 0;
      for (size_t i = 0; i < np; i++) uses += !strncmp(p[i].name, "param", 5);
      snprintf(name, sizeof name, uses ? "param%d" : "param", uses + 1);
      o += (size_t)sprintf(out + o, ":%s", name);
      p = crawl__xrealloc(p, (np + 1) * sizeof *p);
      p[np++] = (pg_route_param){crawl__xstrdup(name), crawl__xstrndup(t + off[k], len[k]), 0};
      from = off[k] + len[k];
    }
    strcpy(out + o, t + from);
    free(t);
    t = out;
  }
  if (params) *params = p;
  else pg_route_params_free(p, np);
  if (nparams) *nparams = params ? np : 0;
  return t;
}

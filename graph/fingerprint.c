/* fingerprint.c -- state identity for the explorer (discovery-mapper 11.3).
 *
 * A fingerprint hashes what makes a UI state distinct for a user: the route,
 * the visible scopes and the modal stack, the relevant controls (role,
 * normalised name, stable id, and their toggle/selection states), collection
 * shapes (row counts bucketed, not row text), and focus only when it sits in
 * an editable field. It leaves out what changes on its own: clocks, spinners,
 * toasts and live regions, generated DOM ids (never read), scroll positions,
 * digits in names (counts, times, dates are normalised to "#").
 * The lines are sorted and de-duplicated before hashing, so the order of
 * elements (a re-sorted table) does not split states.
 * The route counts as its template (pg_route_template: /owners/3 and
 * /owners/4 are one route), the rest of the lines decide whether two
 * entity pages are one state. A field's invalid state and the text next to
 * it (a validation message) count; the checked or selected value of a form
 * control does not unless values count (include_text_values): what it
 * changes elsewhere on the page does. docs/fingerprint.md has the rules.
 */
#include "pg_int.h"
#include "pg_url.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* Query keys that never identify a route. */
static const char *const volatile_params[] = {
  "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "gclid", "fbclid",
  "_", "ts", "t", "timestamp", "cb", "cachebust", "nocache", "rand", "random", "nonce",
  "sid", "session", "sessionid", "phpsessid", "jsessionid", "token", "state", "code",
};

static int is_volatile(const char *k, size_t n) {
  for (size_t i = 0; i < sizeof volatile_params / sizeof *volatile_params; i++)
    if (strlen(volatile_params[i]) == n && !strncasecmp(volatile_params[i], k, n)) return 1;
  return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

char *pg_route_key(const char *url) {
  if (!url) return NULL;
  size_t n = strlen(url);
  const char *q = strchr(url, '?'), *h = strchr(url, '#');
  if (q && h && q > h) q = NULL;
  size_t base = q ? (size_t)(q - url) : h ? (size_t)(h - url) : n;
  char *out = crawl__xmalloc(n + 2);
  memcpy(out, url, base);
  size_t o = base;
  /* "/dir/index.html" is the directory "/dir/" */
  static const char *const index_names[] = {"/index.html", "/index.htm"};
  for (size_t i = 0; i < 2; i++) {
    size_t l = strlen(index_names[i]);
    if (o >= l && !strncmp(out + o - l, index_names[i], l)) {
      o -= l - 1;
      break;
    }
  }
  /* drop a default port and a trailing "/index.html"? keep the path exact */
  if (q) {
    const char *qe = h ? h : url + n;
    char *params[128];
    int np = 0;
    const char *p = q + 1;
    while (p < qe && np < 128) {
      const char *amp = memchr(p, '&', (size_t)(qe - p));
      const char *end = amp ? amp : qe;
      const char *eq = memchr(p, '=', (size_t)(end - p));
      size_t klen = (size_t)((eq ? eq : end) - p);
      if (end > p && !is_volatile(p, klen)) {
        params[np] = crawl__xmalloc((size_t)(end - p) + 1);
        memcpy(params[np], p, (size_t)(end - p));
        params[np][end - p] = 0;
        np++;
      }
      p = end + 1;
    }
    qsort(params, (size_t)np, sizeof *params, cmp_str);
    for (int i = 0; i < np; i++) {
      out[o++] = i ? '&' : '?';
      size_t l = strlen(params[i]);
      memcpy(out + o, params[i], l);
      o += l;
      free(params[i]);
    }
  }
  if (h && (h[1] == '/' || h[1] == '!')) {
    /* a client-side route: keep its path part, normalise its own query */
    const char *hq = strchr(h, '?');
    size_t l = hq ? (size_t)(hq - h) : strlen(h);
    memcpy(out + o, h, l);
    o += l;
  }
  out[o] = 0;
  return out;
}

char *pg_route_key_rel(const char *url, const char *base_origin) {
  char *k = pg_route_key(url);
  size_t n = base_origin ? strlen(base_origin) : 0;
  if (k && n && !strncmp(k, base_origin, n) && (k[n] == '/' || k[n] == '?' || k[n] == '#' || !k[n])) {
    memmove(k, k + n, strlen(k + n) + 1);
    if (!*k) strcpy(k, "/");
  }
  return k;
}

/* lower case, digit runs -> '#', white space collapsed */
static void norm(const char *s, char *out, size_t cap) {
  size_t o = 0;
  int digit = 0, space = 0;
  for (; s && *s && o + 2 < cap; s++) {
    unsigned char ch = (unsigned char)*s;
    if (isdigit(ch)) {
      if (!digit) out[o++] = '#';
      digit = 1;
      space = 0;
      continue;
    }
    digit = 0;
    if (isspace(ch)) {
      if (!space && o) out[o++] = ' ';
      space = 1;
      continue;
    }
    space = 0;
    out[o++] = (char)tolower(ch);
  }
  while (o && out[o - 1] == ' ') o--;
  out[o] = 0;
}

typedef struct { char **v; size_t n, cap; } lines;
static void add_line(lines *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void add_line(lines *l, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 64;
    l->v = crawl__xrealloc(l->v, l->cap * sizeof *l->v);
  }
  l->v[l->n++] = crawl__xstrdup(buf);
}

static const char *const noise_roles[] = {"timer", "marquee", "progressbar"};
/* Roles whose checked / selected state is a form value, not a view. */
static const char *const value_roles[] = {"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio", "option"};
#define NVALUE_ROLES (sizeof value_roles / sizeof *value_roles)
static const char *const toast_roles[] = {"status", "alert", "log"};

static int in_set(const char *r, const char *const *set, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (r && !strcmp(r, set[i])) return 1;
  return 0;
}

/* The innermost collection scope of an element, or -1. */
static int collection_of(const pg_graph *g, int scope) {
  for (int s = scope; s >= 0; s = g->scopes[s].parent)
    if (g->scopes[s].kind == PG_SCOPE_COLLECTION || g->scopes[s].kind == PG_SCOPE_ROWGROUP) return s;
  return -1;
}

static const char *bucket(size_t n) {
  return n == 0 ? "0" : n == 1 ? "1" : n <= 5 ? "2-5" : n <= 20 ? "6-20" : n <= 100 ? "21-100" : "100+";
}

void pg_fingerprint(const pg_graph *g, const pg_fp_policy *p, char out[33], char **route_key) {
  static const pg_fp_policy zero;
  if (!p) p = &zero;
  lines L = {0};
  char *rk = p->route_key ? crawl__xstrdup(p->route_key) : pg_route_key_rel(g->route_url, p->base_origin);
  if (!p->ignore_route) {
    char *t = rk ? pg_route_template(rk, NULL, NULL) : NULL;
    add_line(&L, "route|%s", t ? t : rk ? rk : "");
    free(t);
  }
  char nb[512], sb[512];
  size_t *coll_count = crawl__xcalloc(g->nscopes + 1, sizeof *coll_count);
  for (size_t i = 0; i < g->nelements; i++) {
    const pg_element *e = &g->elements[i];
    if (!pg_state_is(&e->state, PG_ST_VISIBLE) || e->selection_only) continue; /* a selection is not app state */
    if (!p->keep_spinners && (in_set(e->role, noise_roles, 3))) continue;
    if (!p->keep_toasts && (e->live || in_set(e->role, toast_roles, 3))) continue;
    norm(e->name, nb, sizeof nb);
    char states[64];
    int value = !p->include_text_values && in_set(e->role, value_roles, NVALUE_ROLES);
    snprintf(states, sizeof states, "%c%c%c%c%c%c",
             pg_state_has(&e->state, PG_ST_EXPANDED) ? (pg_state_is(&e->state, PG_ST_EXPANDED) ? 'E' : 'e') : '-',
             value || !pg_state_has(&e->state, PG_ST_SELECTED) ? '-' : pg_state_is(&e->state, PG_ST_SELECTED) ? 'S' : 's',
             value || !pg_state_has(&e->state, PG_ST_CHECKED) ? '-' : e->state.mixed >> PG_ST_CHECKED & 1 ? 'M' : pg_state_is(&e->state, PG_ST_CHECKED) ? 'C' : 'c',
             pg_state_has(&e->state, PG_ST_PRESSED) ? (pg_state_is(&e->state, PG_ST_PRESSED) ? 'P' : 'p') : '-',
             pg_state_is(&e->state, PG_ST_ENABLED) ? '+' : 'x',
             pg_state_is(&e->state, PG_ST_INVALID) ? 'I' : '-');
    int coll = p->exact_collections ? -1 : collection_of(g, e->scope);
    if (coll >= 0) {
      /* row text is data, not state: role only, plus the bucketed count */
      coll_count[coll]++;
      norm(g->scopes[coll].name, sb, sizeof sb);
      add_line(&L, "coll|%s|%s|%s", pg_scope_kind_name(g->scopes[coll].kind), sb, e->role);
      continue;
    }
    add_line(&L, "el|%s|%s|%s|%s", e->role, nb, e->stable_id ? e->stable_id : "", states);
    if (e->field_note) {
      norm(e->field_note, sb, sizeof sb);
      add_line(&L, "note|%s|%s|%s", e->role, nb, sb);
    }
    if (p->include_text_values && e->text_value && !e->redacted) {
      norm(e->text_value, sb, sizeof sb);
      add_line(&L, "val|%s|%s|%s", e->role, nb, sb);
    }
  }
  for (size_t s = 0; s < g->nscopes; s++) {
    const pg_scope *sc = &g->scopes[s];
    norm(sc->name, sb, sizeof sb);
    switch (sc->kind) {
    case PG_SCOPE_DIALOG: case PG_SCOPE_POPOVER: case PG_SCOPE_MENU: case PG_SCOPE_DRAWER:
      if (!pg_state_has(&sc->state, PG_ST_OPEN) || pg_state_is(&sc->state, PG_ST_OPEN))
        add_line(&L, "layer|%s|%s|%s", pg_scope_kind_name(sc->kind), sc->stable_id ? sc->stable_id : "", sb);
      break;
    case PG_SCOPE_COLLECTION: case PG_SCOPE_ROWGROUP:
      if (!p->ignore_collection_sizes) add_line(&L, "collsize|%s|%s", sb, bucket(coll_count[s]));
      break;
    case PG_SCOPE_ROUTE: case PG_SCOPE_IFRAME_ROOT:
      break;
    default:
      add_line(&L, "scope|%s|%s|%s", pg_scope_kind_name(sc->kind), sc->stable_id ? sc->stable_id : "", sb);
    }
  }
  for (size_t h = 0; h < g->nheadings; h++) {
    norm(g->headings[h], nb, sizeof nb);
    add_line(&L, "heading|%s", nb);
  }
  if (g->focus_element >= 0) {
    const pg_element *f = &g->elements[g->focus_element];
    if (pg_state_is(&f->state, PG_ST_EDITABLE) && !pg_state_is(&f->state, PG_ST_READONLY)) {
      norm(f->name, nb, sizeof nb);
      add_line(&L, "focus|%s|%s|%s", f->role, nb, f->stable_id ? f->stable_id : "");
    }
  }
  for (size_t d = 1; d < g->ndocuments; d++)
    add_line(&L, "doc|%s|%s", g->documents[d].access == PG_ACCESS_OPAQUE ? "opaque" : "open",
             g->documents[d].origin ? g->documents[d].origin : "");
  if (L.n) qsort(L.v, L.n, sizeof *L.v, cmp_str); /* an empty page's content has no line: L.v is NULL */
  if (getenv("UIAP_DEBUG_FINGERPRINT")) { /* a debugging aid: what went into the hash */
    for (size_t i = 0; i < L.n; i++) fprintf(stderr, "fp: %s\n", L.v[i]);
    fprintf(stderr, "fp: ----\n");
  }
  XXH3_state_t *st = XXH3_createState();
  XXH3_128bits_reset(st);
  for (size_t i = 0; i < L.n; i++) {
    if (i && !strcmp(L.v[i], L.v[i - 1])) continue; /* a set, not a list */
    XXH3_128bits_update(st, L.v[i], strlen(L.v[i]) + 1);
  }
  XXH128_hash_t h = XXH3_128bits_digest(st);
  XXH3_freeState(st);
  snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
  for (size_t i = 0; i < L.n; i++) free(L.v[i]);
  free(L.v);
  free(coll_count);
  if (route_key) *route_key = rk;
  else free(rk);
}

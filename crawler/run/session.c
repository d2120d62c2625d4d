/* session.c -- a signed-in session's inputs: Playwright's storageState
 * JSON, Netscape cookies.txt and --header lines parsed into a crawl_session,
 * and what the tab sends for it (Network.setCookies params, a paused
 * request's headers, the localStorage script). Pure: no browser, no I/O,
 * no output; errors name a place in the input, never a value from it.
 * The values are the run's secrets (crawl__session_secrets). */
#include "crawl.h"
#include "crawl_secrets.h"
#include "crawl_util.h"
#include "pg_url.h"
#include "run_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A one-line reason into err, and CRAWL_ARG. */
#define fail(err, errlen, ...) crawl__errf((err), (errlen), CRAWL_ARG, __VA_ARGS__)


static void cookie_free(crawl_cookie *c) {
  free(c->name);
  free(c->value);
  free(c->domain);
  free(c->path);
}

static void cookies_free(crawl_cookie *v, size_t n) {
  for (size_t i = 0; i < n; i++) cookie_free(&v[i]);
  free(v);
}

static void storage_free(crawl_storage_item *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(v[i].origin);
    free(v[i].name);
    free(v[i].value);
  }
  free(v);
}

void crawl_session_release(crawl_session *s) {
  if (!s) return;
  cookies_free(s->cookies, s->ncookies);
  storage_free(s->storage, s->nstorage);
  for (size_t i = 0; i < s->nheaders; i++) {
    free(s->headers[i].name);
    free(s->headers[i].value);
  }
  free(s->headers);
  memset(s, 0, sizeof *s);
}

int crawl_session_any(const crawl_session *s) {
  if (!s) return 0;
  for (size_t i = 0; i < s->ncookies; i++)
    if (!s->cookies[i].public_value) return 1;
  for (size_t i = 0; i < s->nstorage; i++)
    if (!s->storage[i].public_value) return 1;
  return s->nheaders > 0;
}

/* Appends the parsed cookies (moved) to s; the arrays are the caller's. */
static void cookies_take(crawl_session *s, crawl_cookie *v, size_t n) {
  if (!n) return;
  s->cookies = crawl__xrealloc(s->cookies, (s->ncookies + n) * sizeof *s->cookies);
  memcpy(s->cookies + s->ncookies, v, n * sizeof *v);
  s->ncookies += n;
}

/* ---- a cookie's fields ------------------------------------------------------ */
static const char *const same_sites[] = {"Strict", "Lax", "None"};

static const char *same_site_of(const char *v) {
  for (size_t i = 0; v && i < sizeof same_sites / sizeof *same_sites; i++)
    if (!strcasecmp(v, same_sites[i])) return same_sites[i];
  return NULL;
}

/* A domain as a cookie may name it: not empty, no spaces, control bytes,
 * '/', ';' or ','. The leading '.' is the caller's to strip. */
static int domain_ok(const char *d) {
  if (!*d) return 0;
  for (const unsigned char *p = (const unsigned char *)d; *p; p++)
    if (*p <= ' ' || *p == 0x7f || *p == '/' || *p == ';' || *p == ',') return 0;
  return 1;
}

/* A cookie name or value byte string: no control bytes, no ';'. */
static int cookie_text_ok(const char *t, int name) {
  if (name && !*t) return 0;
  for (const unsigned char *p = (const unsigned char *)t; *p; p++)
    if (*p < ' ' || *p == 0x7f || *p == ';' || (name && (*p == '=' || *p == ' '))) return 0;
  return 1;
}

/* c->domain and host_only from d (a leading '.': the domain and its
 * subdomains). 0, or -1 when d is no domain. */
static int cookie_set_domain(crawl_cookie *c, const char *d) {
  int dot = d[0] == '.';
  if (!domain_ok(d + dot)) return -1;
  c->domain = crawl__xstrdup(d + dot);
  c->host_only = !dot;
  return 0;
}

/* ---- storageState ----------------------------------------------------------- */

/* Cookie i of the storageState into *c; NULL, or what is wrong with it. */
static const char *state_cookie(const cJSON *j, crawl_cookie *c) {
  const char *name = crawl__str(j, "name"), *value = crawl__str(j, "value"), *domain = crawl__str(j, "domain");
  const cJSON *exp = cJSON_GetObjectItemCaseSensitive(j, "expires");
  const cJSON *ss = cJSON_GetObjectItemCaseSensitive(j, "sameSite");
  if (!cJSON_IsObject(j)) return "must be an object";
  if (!name || !cookie_text_ok(name, 1)) return "/name must be a cookie name (a string)";
  if (!value || !cookie_text_ok(value, 0)) return "/value must be a string without control characters or ';'";
  if (!domain || cookie_set_domain(c, domain)) return "/domain must be a domain name";
  if (exp && !cJSON_IsNumber(exp)) return "/expires must be a number";
  if (ss && !same_site_of(cJSON_GetStringValue(ss))) return "/sameSite must be Strict, Lax or None";
  const char *path = crawl__str(j, "path");
  c->name = crawl__xstrdup(name);
  c->value = crawl__xstrdup(value);
  c->path = crawl__xstrdup(path && path[0] == '/' ? path : "/");
  c->expires = exp ? exp->valuedouble : -1;
  c->http_only = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "httpOnly"));
  c->secure = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "secure"));
  c->same_site = ss ? same_site_of(ss->valuestring) : NULL;
  return NULL;
}

/* An origin as localStorage is keyed: http(s)://host[:port], nothing after. */
static int origin_ok(const char *o) {
  char canon[512];
  if (strncmp(o, "http://", 7) && strncmp(o, "https://", 8)) return 0;
  const char *host = strstr(o, "//") + 2;
  return *host && !strchr(host, '/') && !strchr(host, '?') && !strchr(host, '#') &&
         pg_url_origin(o, canon, sizeof canon) >= 0;
}

/* The origins' localStorage items, appended to *v (*n of them). NULL, or
 * what is wrong, at path (filled in). */
static const char *state_origins(const cJSON *origins, crawl_storage_item **v, size_t *n, char *path, size_t plen) {
  const cJSON *o;
  int i = 0;
  cJSON_ArrayForEach(o, origins) {
    const char *origin = crawl__str(o, "origin");
    const cJSON *ls = cJSON_GetObjectItemCaseSensitive(o, "localStorage"), *it;
    snprintf(path, plen, "/origins/%d", i++);
    if (!cJSON_IsObject(o)) return "must be an object";
    if (!origin || !origin_ok(origin)) return "/origin must be an http(s) origin (scheme://host[:port])";
    if (ls && !cJSON_IsArray(ls)) return "/localStorage must be an array";
    int k = 0;
    cJSON_ArrayForEach(it, ls) {
      const char *name = crawl__str(it, "name"), *value = crawl__str(it, "value");
      snprintf(path, plen, "/origins/%d/localStorage/%d", i - 1, k++);
      if (!name || !value) return " must be an object with string name and value";
      if (*n >= CRAWL_SESSION_MAX_ITEMS) return ": too many localStorage items";
      *v = crawl__xrealloc(*v, (*n + 1) * sizeof **v);
      (*v)[(*n)++] = (crawl_storage_item){crawl__xstrdup(origin), crawl__xstrdup(name), crawl__xstrdup(value), 0};
    }
  }
  return NULL;
}

/* The cookies array into *v (*n). NULL, or what is wrong, at path. */
static const char *state_cookies(const cJSON *cookies, crawl_cookie **v, size_t *n, char *path, size_t plen) {
  const cJSON *j;
  cJSON_ArrayForEach(j, cookies) {
    snprintf(path, plen, "/cookies/%zu", *n);
    if (*n >= CRAWL_SESSION_MAX_ITEMS) return ": too many cookies";
    crawl_cookie c = {0};
    const char *why = state_cookie(j, &c);
    if (why) {
      cookie_free(&c);
      return why;
    }
    *v = crawl__xrealloc(*v, (*n + 1) * sizeof **v);
    (*v)[(*n)++] = c;
  }
  return NULL;
}

crawl_code crawl_session_storage_state(crawl_session *s, const char *text, size_t len, char *err, size_t errlen) {
  cJSON *root = cJSON_ParseWithLength(text, len);
  if (!root) return fail(err, errlen, "not valid JSON");
  const cJSON *cookies = cJSON_GetObjectItemCaseSensitive(root, "cookies");
  const cJSON *origins = cJSON_GetObjectItemCaseSensitive(root, "origins");
  char path[96] = "";
  const char *why = NULL;
  if (!cJSON_IsObject(root)) why = "the storage state must be a JSON object";
  else if (cookies && !cJSON_IsArray(cookies)) why = "/cookies must be an array";
  else if (origins && !cJSON_IsArray(origins)) why = "/origins must be an array";
  crawl_cookie *cv = NULL;
  crawl_storage_item *sv = NULL;
  size_t nc = 0, ns = 0;
  if (!why) why = state_cookies(cookies, &cv, &nc, path, sizeof path);
  if (!why) why = state_origins(origins, &sv, &ns, path, sizeof path);
  cJSON_Delete(root);
  if (why) {
    cookies_free(cv, nc);
    storage_free(sv, ns);
    return fail(err, errlen, "%s%s", path, why);
  }
  cookies_take(s, cv, nc);
  free(cv);
  if (ns) {
    s->storage = crawl__xrealloc(s->storage, (s->nstorage + ns) * sizeof *s->storage);
    memcpy(s->storage + s->nstorage, sv, ns * sizeof *sv);
    s->nstorage += ns;
  }
  free(sv);
  return CRAWL_OK;
}

/* ---- cookies.txt --------------------------------------------------------------- */
/* TRUE / FALSE (any case): 1 / 0, else -1. */
static int bool_field(const char *f) {
  if (!strcasecmp(f, "TRUE")) return 1;
  if (!strcasecmp(f, "FALSE")) return 0;
  return -1;
}

/* A whole decimal number >= 0. */
static int expiry_field(const char *f, double *out) {
  if (!*f) return -1;
  for (const char *p = f; *p; p++)
    if (!isdigit((unsigned char)*p)) return -1;
  *out = strtod(f, NULL);
  return 0;
}

/* One line (NUL-terminated, no line end) into *c: NULL, or what is wrong. */
static const char *txt_cookie(char *line, crawl_cookie *c) {
  int http_only = !strncmp(line, "#HttpOnly_", 10);
  char *f[8], *p = line + (http_only ? 10 : 0);
  int n = 0;
  for (; n < 8; n++) {
    f[n] = p;
    char *tab = strchr(p, '\t');
    if (!tab) { n++; break; }
    *tab = 0;
    p = tab + 1;
  }
  if (n != 7) return "expected 7 tab-separated fields (domain, subdomains, path, secure, expiry, name, value)";
  int sub = bool_field(f[1]), sec = bool_field(f[3]);
  if (sub < 0 || sec < 0) return "the subdomains and secure fields must be TRUE or FALSE";
  if (expiry_field(f[4], &c->expires)) return "the expiry must be a whole number of seconds";
  if (!cookie_text_ok(f[5], 1) || !cookie_text_ok(f[6], 0)) return "bad cookie name or value";
  if (cookie_set_domain(c, f[0])) return "bad domain";
  c->host_only = !sub && f[0][0] != '.';
  c->name = crawl__xstrdup(f[5]);
  c->value = crawl__xstrdup(f[6]);
  c->path = crawl__xstrdup(f[2][0] == '/' ? f[2] : "/");
  c->secure = sec;
  c->http_only = http_only;
  if (c->expires == 0) c->expires = -1; /* 0: a session cookie */
  return NULL;
}

/* A line to skip: blank, or a comment (but not #HttpOnly_). */
static int txt_skip(const char *line) {
  const char *p = line + strspn(line, " \t");
  return !*p || (*p == '#' && strncmp(p, "#HttpOnly_", 10));
}

crawl_code crawl_session_cookies_txt(crawl_session *s, const char *text, size_t len, char *err, size_t errlen) {
  crawl_cookie *v = NULL;
  size_t n = 0, at = 0;
  for (int lineno = 1; at < len; lineno++) {
    const char *nl = memchr(text + at, '\n', len - at);
    size_t ll = nl ? (size_t)(nl - text - at) : len - at;
    char *line = crawl__xstrndup(text + at, ll);
    at += ll + (nl != NULL);
    line[strcspn(line, "\r")] = 0;
    const char *why = NULL;
    crawl_cookie c = {0};
    if (memchr(text + at - ll - (nl != NULL), 0, ll)) why = "holds a NUL byte";
    else if (txt_skip(line)) { free(line); continue; }
    else if (n >= CRAWL_SESSION_MAX_ITEMS) why = "too many cookies";
    else why = txt_cookie(line, &c);
    free(line);
    if (why) {
      cookie_free(&c);
      cookies_free(v, n);
      return fail(err, errlen, "line %d: %s", lineno, why);
    }
    v = crawl__xrealloc(v, (n + 1) * sizeof *v);
    v[n++] = c;
  }
  cookies_take(s, v, n);
  free(v);
  return CRAWL_OK;
}

/* ---- --header --------------------------------------------------------------------- */
static int token_char(unsigned char ch) {
  return ch > ' ' && ch < 0x7f && !strchr("\"(),/:;<=>?@[\\]{}", ch);
}

crawl_code crawl_session_header(crawl_session *s, const char *line, char *err, size_t errlen) {
  static const char *const owned[] = {"Host", "Content-Length", "Connection", "Transfer-Encoding"};
  const char *colon = strchr(line, ':');
  size_t nl = colon ? (size_t)(colon - line) : 0;
  for (size_t i = 0; i < nl; i++)
    if (!token_char((unsigned char)line[i])) nl = 0;
  if (!nl) return fail(err, errlen, "--header takes 'Name: value' (Name an HTTP token)");
  for (size_t i = 0; i < sizeof owned / sizeof *owned; i++)
    if (strlen(owned[i]) == nl && !strncasecmp(line, owned[i], nl))
      return fail(err, errlen, "--header cannot set %s (the browser sets it)", owned[i]);
  const char *v = colon + 1 + strspn(colon + 1, " \t");
  size_t vl = strlen(v);
  while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t')) vl--;
  if (strpbrk(v, "\r\n")) return fail(err, errlen, "--header %.*s: the value holds a line break", (int)nl, line);
  if (s->nheaders >= CRAWL_SESSION_MAX_ITEMS) return fail(err, errlen, "too many --header options");
  s->headers = crawl__xrealloc(s->headers, (s->nheaders + 1) * sizeof *s->headers);
  s->headers[s->nheaders++] = (crawl_header){crawl__xstrndup(line, nl), crawl__xstrndup(v, vl)};
  return CRAWL_OK;
}

/* ---- what the tab sends ------------------------------------------------------------ */
static cJSON *cookie_param(const crawl_cookie *c) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "name", c->name);
  cJSON_AddStringToObject(j, "value", c->value);
  if (c->host_only) { /* CDP: a url, no domain, makes a host-only cookie */
    char *url = crawl__xprintf("%s://%s%s", c->secure ? "https" : "http", c->domain, c->path);
    cJSON_AddStringToObject(j, "url", url);
    free(url);
  } else {
    char *d = crawl__xprintf(".%s", c->domain);
    cJSON_AddStringToObject(j, "domain", d);
    free(d);
  }
  cJSON_AddStringToObject(j, "path", c->path);
  cJSON_AddBoolToObject(j, "secure", c->secure);
  cJSON_AddBoolToObject(j, "httpOnly", c->http_only);
  if (c->same_site) cJSON_AddStringToObject(j, "sameSite", c->same_site);
  if (c->expires > 0) cJSON_AddNumberToObject(j, "expires", c->expires);
  return j;
}

cJSON *crawl_session_cookie_params(const crawl_session *s) {
  if (!s || !s->ncookies) return NULL;
  cJSON *a = cJSON_CreateObject();
  cJSON *arr = cJSON_AddArrayToObject(a, "cookies");
  for (size_t i = 0; i < s->ncookies; i++) cJSON_AddItemToArray(arr, cookie_param(&s->cookies[i]));
  return a;
}

static int session_has_header(const crawl_session *s, const char *name) {
  for (size_t i = 0; s && i < s->nheaders; i++)
    if (!strcasecmp(s->headers[i].name, name)) return 1;
  return 0;
}

static void add_header(cJSON *arr, const char *name, const char *value) {
  cJSON *h = cJSON_CreateObject();
  cJSON_AddStringToObject(h, "name", name);
  cJSON_AddStringToObject(h, "value", value);
  cJSON_AddItemToArray(arr, h);
}

cJSON *crawl_session_merge_headers(const crawl_session *s, const cJSON *request_headers) {
  cJSON *arr = cJSON_CreateArray();
  const cJSON *h;
  cJSON_ArrayForEach(h, request_headers)
    if (h->string && cJSON_IsString(h) && !session_has_header(s, h->string)) add_header(arr, h->string, h->valuestring);
  for (size_t i = 0; s && i < s->nheaders; i++) add_header(arr, s->headers[i].name, s->headers[i].value);
  return arr;
}

char *crawl_session_storage_script(const crawl_session *s, const char *origin) {
  crawl__buf b = {0};
  for (size_t i = 0; s && i < s->nstorage; i++) {
    if (strcmp(s->storage[i].origin, origin)) continue;
    cJSON *k = cJSON_CreateString(s->storage[i].name), *v = cJSON_CreateString(s->storage[i].value);
    char *ks = cJSON_PrintUnformatted(k), *vs = cJSON_PrintUnformatted(v);
    if (!ks || !vs) abort(); /* out of memory */
    crawl__buf_printf(&b, "localStorage.setItem(%s,%s);", ks, vs);
    free(ks);
    free(vs);
    cJSON_Delete(k);
    cJSON_Delete(v);
  }
  return b.n ? crawl__buf_take(&b) : NULL;
}

/* ---- secrets ----------------------------------------------------------------------- */
void crawl__session_secrets(const crawl_session *s, crawl__secrets *sec) {
  for (size_t i = 0; s && i < s->ncookies; i++)
    if (!s->cookies[i].public_value) crawl__secrets_add(sec, s->cookies[i].value);
  for (size_t i = 0; s && i < s->nstorage; i++)
    if (!s->storage[i].public_value) crawl__secrets_add(sec, s->storage[i].value);
  for (size_t i = 0; s && i < s->nheaders; i++) crawl__secrets_add(sec, s->headers[i].value);
}

/* plan.c -- the discovery plan (`crawl --plan FILE`): text to a checked
 * DiscoveryPlanPayload, or a whole uiap.discovery.plan message, whose
 * budgets and safety settings go into the run's options. No I/O: the CLI
 * reads the file, tests/fuzz/fuzz_plan.c feeds anything.
 */
#include "crawl.h"
#include "crawl_util.h"
#include "pg_url.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Line and column (1-based) of at in text; columns count bytes. */
static void error_pos(const char *text, const char *at, int *line, int *col) {
  *line = 1;
  *col = 1;
  for (const char *p = text; p && at && p < at && *p; p++) {
    if (*p == '\n') { (*line)++; *col = 1; }
    else (*col)++;
  }
}

static crawl_code invalid(crawl_plan_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static crawl_code invalid(crawl_plan_error *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
  return CRAWL_ARG;
}

/* s for an error line: control characters as '?', at most 200 bytes. */
static void printable(char *out, size_t cap, const char *s) {
  size_t n = 0;
  for (; *s && n + 4 < cap && n < 200; s++) out[n++] = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
  if (*s) { memcpy(out + n, "...", 3); n += 3; }
  out[n] = '\0';
}

static const struct { const char *key; size_t off; } budget_keys[] = {
  {"maxStates", offsetof(crawl_budget, max_states)},
  {"maxTransitions", offsetof(crawl_budget, max_transitions)},
  {"maxDepth", offsetof(crawl_budget, max_depth)},
  {"maxRuntimeMs", offsetof(crawl_budget, max_runtime_ms)},
  {"maxPerRoute", offsetof(crawl_budget, max_per_route)},
};

crawl_code crawl_plan_parse(const char *text, int keep_mode, crawl_budget *budget, pol_policy *policy,
                            cJSON **plan, crawl_plan_error *err) {
  crawl_plan_error scratch;
  if (!err) err = &scratch;
  memset(err, 0, sizeof *err);
  *plan = NULL;
  const char *end = NULL;
  cJSON *root = text ? cJSON_ParseWithOpts(text, &end, 0) : NULL;
  if (!root) {
    if (text) error_pos(text, end ? end : cJSON_GetErrorPtr(), &err->line, &err->column);
    else err->line = err->column = 1;
    return invalid(err, "not valid JSON (line %d, column %d)", err->line, err->column);
  }
  crawl_code rc = CRAWL_OK;
  const cJSON *pl = cJSON_GetObjectItemCaseSensitive(root, "payload") ? cJSON_GetObjectItemCaseSensitive(root, "payload") : root;
  const cJSON *env = cJSON_GetObjectItemCaseSensitive(pl, "environment");
  const cJSON *seeds = cJSON_GetObjectItemCaseSensitive(pl, "seeds");
  const cJSON *sd;
  int si = 0;
  if (!cJSON_IsObject(env)) { rc = invalid(err, "/environment must be an object"); goto out; }
  if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(env, "environmentId"))) { rc = invalid(err, "/environment/environmentId must be a string"); goto out; }
  if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(env, "baseUrl"))) { rc = invalid(err, "/environment/baseUrl must be a string"); goto out; }
  if (seeds && !cJSON_IsArray(seeds)) { rc = invalid(err, "/seeds must be an array"); goto out; }
  cJSON_ArrayForEach(sd, seeds) {
    if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(sd, "kind"))) { rc = invalid(err, "/seeds/%d/kind must be a string", si); goto out; }
    si++;
  }

  /* budgets and safety from the plan; what the caller set already wins */
  crawl_budget b = *budget;
  pol_policy p = *policy;
  const cJSON *bj = cJSON_GetObjectItemCaseSensitive(env, "budgets");
  for (size_t q = 0; q < sizeof budget_keys / sizeof *budget_keys; q++) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(bj, budget_keys[q].key);
    long *field = (long *)((char *)&b + budget_keys[q].off);
    if (x && (!cJSON_IsNumber(x) || x->valuedouble < 1)) { rc = invalid(err, "/environment/budgets/%s must be a positive number", budget_keys[q].key); goto out; }
    /* (long) of a double past LONG_MAX (1e30, 1e999 = inf) is undefined */
    if (x && !*field) *field = x->valuedouble >= (double)LONG_MAX ? LONG_MAX : (long)x->valuedouble;
  }
  const cJSON *sf = cJSON_GetObjectItemCaseSensitive(env, "safety");
  const char *mode = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sf, "defaultMode"));
  if (mode && !keep_mode && pol_mode_parse(mode, &p.mode) != POL_OK) {
    char shown[208];
    printable(shown, sizeof shown, mode);
    rc = invalid(err, "/environment/safety/defaultMode: unknown mode %s", shown);
    goto out;
  }
  const char *reads[32];
  int nreads = 0;
  if ((rc = crawl_plan_allow_read(root, reads, &nreads, 32, err)) != CRAWL_OK) goto out;
  p.allow_destructive_actions = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sf, "allowDestructiveActions"));
  p.allow_payment_flows = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sf, "allowPaymentFlows"));
  p.allow_auth_flows = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sf, "allowAuthFlows"));
  p.allow_external_effects = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sf, "allowExternalEffects"));
  *budget = b;
  *policy = p;
  *plan = root;
  return CRAWL_OK;
out:
  cJSON_Delete(root);
  return rc;
}

/* ---- reads over POST (--allow-read, environment.metadata.allowRead) -------------- */
int crawl_read_entry_ok(const char *s) {
  if (!s) return 0;
  if (!strncmp(s, "graphql:", 8)) {
    const char *n = s + 8;
    if (!(isalpha((unsigned char)*n) || *n == '_')) return 0;
    for (; *n; n++)
      if (!(isalnum((unsigned char)*n) || *n == '_')) return 0;
    return strlen(s) <= 8 + 128;
  }
  size_t m = 0;
  while (s[m] >= 'A' && s[m] <= 'Z') m++;
  if (m < 3 || m > 16 || s[m] != ' ' || s[m + 1] != '/' || strlen(s) > 2048) return 0;
  for (const char *c = s + m + 1; *c; c++)
    if ((unsigned char)*c <= 0x20 || *c == 0x7f) return 0;
  return 1;
}

crawl_code crawl_plan_allow_read(const cJSON *plan, const char **out, int *n, int max, crawl_plan_error *err) {
  crawl_plan_error scratch;
  if (!err) err = &scratch;
  memset(err, 0, sizeof *err);
  const cJSON *pl = cJSON_GetObjectItemCaseSensitive(plan, "payload") ? cJSON_GetObjectItemCaseSensitive(plan, "payload") : plan;
  const cJSON *meta = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pl, "environment"), "metadata");
  const cJSON *ar = cJSON_GetObjectItemCaseSensitive(meta, "allowRead"), *e;
  if (!ar) return CRAWL_OK;
  if (!cJSON_IsArray(ar)) return invalid(err, "/environment/metadata/allowRead must be an array of strings");
  int i = 0;
  cJSON_ArrayForEach(e, ar) {
    char shown[208];
    if (!cJSON_IsString(e)) return invalid(err, "/environment/metadata/allowRead/%d must be a string", i);
    printable(shown, sizeof shown, e->valuestring);
    if (!crawl_read_entry_ok(e->valuestring))
      return invalid(err, "/environment/metadata/allowRead/%d: not \"METHOD /path\" or \"graphql:Name\": %s", i, shown);
    if (*n >= max) return invalid(err, "/environment/metadata/allowRead: at most %d entries with --allow-read", max);
    out[(*n)++] = e->valuestring;
    i++;
  }
  return CRAWL_OK;
}

/* ---- nightly runs (--baseline, environment.metadata.baseline; docs/nightly.md) ---- */
crawl_code crawl_plan_baseline(const cJSON *plan, const char **dir, int *reverify, crawl_plan_error *err) {
  crawl_plan_error scratch;
  if (!err) err = &scratch;
  memset(err, 0, sizeof *err);
  const cJSON *pl = cJSON_GetObjectItemCaseSensitive(plan, "payload") ? cJSON_GetObjectItemCaseSensitive(plan, "payload") : plan;
  const cJSON *meta = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pl, "environment"), "metadata");
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(meta, "baseline"), *rv = cJSON_GetObjectItemCaseSensitive(meta, "reverify");
  if (b && (!cJSON_IsString(b) || !*b->valuestring))
    return invalid(err, "/environment/metadata/baseline must be a directory name");
  if (rv && (!cJSON_IsNumber(rv) || rv->valuedouble < 0 || rv->valuedouble > 100))
    return invalid(err, "/environment/metadata/reverify must be a percent from 0 to 100");
  if (b && !*dir) *dir = b->valuestring;
  if (rv && !*reverify) *reverify = rv->valuedouble >= 1 ? (int)rv->valuedouble : -1;
  return CRAWL_OK;
}

/* ---- the browser a plan asks for ------------------------------------------------ */
static int locale_ok(const char *s) {
  size_t n = strlen(s);
  if (n < 2 || n > 35) return 0;
  for (size_t i = 0; i < n; i++)
    if (!(isalnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '_')) return 0;
  return 1;
}

crawl_code crawl_plan_browser(const cJSON *plan, int *width, int *height, const char **locale,
                              crawl_plan_error *err) {
  crawl_plan_error scratch;
  if (!err) err = &scratch;
  memset(err, 0, sizeof *err);
  const cJSON *pl = cJSON_GetObjectItemCaseSensitive(plan, "payload") ? cJSON_GetObjectItemCaseSensitive(plan, "payload") : plan;
  const cJSON *env = cJSON_GetObjectItemCaseSensitive(pl, "environment");
  const cJSON *vp = cJSON_GetObjectItemCaseSensitive(env, "viewport");
  const cJSON *loc = cJSON_GetObjectItemCaseSensitive(env, "locale");
  if (vp) {
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(vp, "width"), *h = cJSON_GetObjectItemCaseSensitive(vp, "height");
    if (!cJSON_IsNumber(w) || !cJSON_IsNumber(h) || w->valuedouble < 100 || h->valuedouble < 100 ||
        w->valuedouble > 10000 || h->valuedouble > 10000)
      return invalid(err, "/environment/viewport must be {width, height}, each 100..10000");
    if (!*width) {
      *width = (int)w->valuedouble;
      *height = (int)h->valuedouble;
    }
  }
  if (loc) {
    char shown[208];
    if (!cJSON_IsString(loc)) return invalid(err, "/environment/locale must be a string");
    printable(shown, sizeof shown, loc->valuestring);
    if (!locale_ok(loc->valuestring)) return invalid(err, "/environment/locale: not a language tag: %s", shown);
    if (!*locale) *locale = loc->valuestring;
  }
  return CRAWL_OK;
}

/* ---- feature flags ---------------------------------------------------------------- */
/* A flag's value as text: true/false, a number, a string. */
static void flag_text(const cJSON *v, char *buf, size_t cap) {
  if (cJSON_IsBool(v)) snprintf(buf, cap, "%s", cJSON_IsTrue(v) ? "true" : "false");
  else if (cJSON_IsNumber(v)) snprintf(buf, cap, "%.17g", v->valuedouble);
  else snprintf(buf, cap, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

/* s percent-encoded for a query (unreserved characters as they are). */
static void query_encode(const char *s, char *buf, size_t cap) {
  static const char hex[] = "0123456789ABCDEF";
  size_t o = 0;
  for (const unsigned char *c = (const unsigned char *)s; *c && o + 4 < cap; c++) {
    if (isalnum(*c) || strchr("-._~", *c)) {
      buf[o++] = (char)*c;
    } else {
      buf[o++] = '%';
      buf[o++] = hex[*c >> 4];
      buf[o++] = hex[*c & 15];
    }
  }
  buf[o] = 0;
}

static const char *const deliveries[] = {"cookie", "localStorage", "query"};

/* Flag name with value v, delivered as kind/key: into s, or query. */
static void flag_apply(int kind, const char *key, const char *value, const char *origin, crawl_session *s,
                       char *query, size_t cap) {
  if (kind == 0) {
    s->cookies = crawl__xrealloc(s->cookies, (s->ncookies + 1) * sizeof *s->cookies);
    char host[256];
    pg_url_host(origin, host, sizeof host); /* origin is pg_url_origin's */
    s->cookies[s->ncookies++] = (crawl_cookie){.name = crawl__xstrdup(key), .value = crawl__xstrdup(value),
                                               .domain = crawl__xstrdup(host), .path = crawl__xstrdup("/"),
                                               .host_only = 1, .public_value = 1};
  } else if (kind == 1) {
    s->storage = crawl__xrealloc(s->storage, (s->nstorage + 1) * sizeof *s->storage);
    s->storage[s->nstorage++] = (crawl_storage_item){.origin = crawl__xstrdup(origin), .name = crawl__xstrdup(key),
                                                     .value = crawl__xstrdup(value), .public_value = 1};
  } else {
    size_t len = strlen(query);
    char k[600], v[3100];
    query_encode(key, k, sizeof k);
    query_encode(value, v, sizeof v);
    if (len < cap) snprintf(query + len, cap - len, "%s%s=%s", len ? "&" : "", k, v);
  }
}

/* Which delivery d names (0 cookie, 1 localStorage, 2 query) and its key;
 * -1 when malformed. */
static int delivery_of(const cJSON *d, const char **key) {
  for (int i = 0; cJSON_IsObject(d) && i < 3; i++) {
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(d, deliveries[i]);
    if (!k) continue;
    if (!cJSON_IsString(k) || !k->valuestring[0] || cJSON_GetArraySize(d) != 1) return -1;
    *key = k->valuestring;
    return i;
  }
  return -1;
}

crawl_code crawl_plan_feature_flags(cJSON *plan, crawl_session *s, char *query, size_t cap, crawl_plan_error *err) {
  crawl_plan_error scratch;
  if (!err) err = &scratch;
  memset(err, 0, sizeof *err);
  query[0] = 0;
  cJSON *pl = cJSON_GetObjectItemCaseSensitive(plan, "payload") ? cJSON_GetObjectItemCaseSensitive(plan, "payload") : plan;
  cJSON *env = cJSON_GetObjectItemCaseSensitive(pl, "environment");
  const cJSON *flags = cJSON_GetObjectItemCaseSensitive(env, "featureFlags"), *f;
  if (!cJSON_IsObject(flags) || !cJSON_GetArraySize(flags)) return CRAWL_OK;
  cJSON *meta = cJSON_GetObjectItemCaseSensitive(env, "metadata");
  if (!cJSON_IsObject(meta)) meta = cJSON_AddObjectToObject(env, "metadata");
  const cJSON *how = cJSON_GetObjectItemCaseSensitive(meta, "featureFlagDelivery");
  char origin[512];
  pg_url_origin(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(env, "baseUrl")), origin, sizeof origin);
  cJSON *rec = cJSON_CreateObject();
  cJSON_ArrayForEach(f, flags) {
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(how, f->string);
    const char *key = NULL;
    int kind = d ? delivery_of(d, &key) : -2;
    char shown[208], value[1024], what[600];
    printable(shown, sizeof shown, f->string);
    if (kind == -1 || (kind == 0 || kind == 1 ? !origin[0] : 0)) {
      cJSON_Delete(rec);
      return invalid(err, "/environment/metadata/featureFlagDelivery/%s must be {\"cookie\"|\"localStorage\"|\"query\": "
                     "NAME} (and a cookie or localStorage needs an http(s) baseUrl)", shown);
    }
    flag_text(f, value, sizeof value);
    if (kind >= 0) flag_apply(kind, key, value, origin, s, query, cap);
    if (kind >= 0) snprintf(what, sizeof what, "%s %.500s", deliveries[kind], key);
    else snprintf(what, sizeof what, "recorded only");
    cJSON_AddStringToObject(rec, f->string, what);
  }
  cJSON_DeleteItemFromObjectCaseSensitive(meta, "featureFlagsApplied");
  cJSON_AddItemToObject(meta, "featureFlagsApplied", rec);
  return CRAWL_OK;
}

/* validate.c -- `uiap-crawl validate`: a small JSON Schema (draft-07)
 * validator and the UIAP schema compiled into the binary.
 *
 * The schema is crawler/package/uiap-schema.json, the project's copy of the
 * spec's schema.json (tests/unit/crawler_schema.c notices when they differ),
 * embedded at build time as crawl__schema_json (CMake runs
 * crawler/embed.cmake), so validating needs no network and no file beside
 * the binary.
 *
 * Keywords: type (also a list; "integer"), enum, const, required,
 * properties, additionalProperties (bool or schema), patternProperties is
 * not supported, items (one schema or a tuple), additionalItems, $ref to a
 * JSON pointer inside the schema ("#/definitions/X"; siblings of $ref are
 * ignored, as draft-07 says), anyOf, allOf, oneOf, not, minimum, maximum,
 * exclusiveMinimum, exclusiveMaximum, minLength, maxLength (in code points),
 * minItems, maxItems, uniqueItems, minProperties, maxProperties, and boolean
 * schemas. format and pattern are annotations here (not checked).
 *
 * Errors carry the instance's JSON pointer ("/routeCatalog/routes/0") and an
 * ajv-like message. For anyOf/oneOf the branch that came closest explains
 * the failure: a branch whose own discriminator (a const, enum or type of
 * the instance itself or a direct property) fails is a worse match than one
 * that fails deeper down.
 */
#include "crawl_pkg.h"
#include "crawl_util.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const unsigned char crawl__schema_json[];
extern const size_t crawl__schema_json_len;

#define V_MAX_DEPTH 256 /* instance nesting, and $ref hops in a row */

static cJSON *schema_root;
static pthread_once_t schema_once = PTHREAD_ONCE_INIT;
static void schema_load(void) {
  schema_root = cJSON_ParseWithLength((const char *)crawl__schema_json, crawl__schema_json_len);
}
static const cJSON *schema(void) {
  pthread_once(&schema_once, schema_load);
  return schema_root;
}

/* ---- message types and their payloads ------------------------------------------ */
static const struct { const char *type, *payload; } payloads[] = {
  {"web.state.get", "WebStateGetPayload"},
  {"web.state.snapshot", "WebStateSnapshotPayload"},
  {"web.observe.start", "WebObserveStartPayload"},
  {"web.observe.started", "WebObserveStartedPayload"},
  {"web.state.delta", "WebStateDeltaPayload"},
  {"web.signal", "WebSignalPayload"},
  {"web.observe.stop", "WebObserveStopPayload"},
  {"web.observe.stopped", "WebObserveStoppedPayload"},
  {"uiap.discovery.plan", "DiscoveryPlanPayload"},
  {"uiap.discovery.planned", "DiscoveryPlannedPayload"},
  {"uiap.discovery.start", "DiscoveryStartPayload"},
  {"uiap.discovery.started", "DiscoveryStartedPayload"},
  {"uiap.discovery.progress", "DiscoveryProgressPayload"},
  {"uiap.discovery.pause", "DiscoveryPausePayload"},
  {"uiap.discovery.paused", "DiscoveryPausedPayload"},
  {"uiap.discovery.resume", "DiscoveryResumePayload"},
  {"uiap.discovery.resumed", "DiscoveryResumedPayload"},
  {"uiap.discovery.cancel", "DiscoveryCancelPayload"},
  {"uiap.discovery.cancelled", "DiscoveryCancelledPayload"},
  {"uiap.discovery.result", "DiscoveryResultPayload"},
  {"uiap.discovery.package.get", "DiscoveryPackageGetPayload"},
  {"uiap.discovery.package", "DiscoveryPackagePayload"},
};

/* ---- the validator ---------------------------------------------------------------- */
typedef struct vctx {
  const cJSON *root;
  crawl_schema_error *errs;   /* the first max errors */
  size_t max;
  long n;                     /* all errors */
  char path[CRAWL_SCHEMA_PATH_MAX];
  size_t plen;
} vctx;

static void v_error(vctx *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void v_error(vctx *v, const char *fmt, ...) {
  if ((size_t)v->n < v->max) {
    crawl_schema_error *e = &v->errs[v->n];
    snprintf(e->path, sizeof e->path, "%s", v->plen ? v->path : "/");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
  }
  v->n++;
}

/* Push a JSON pointer segment (~ and / escaped); returns the old length. A
 * path too long for the buffer is cut with "...". */
static size_t v_push(vctx *v, const char *key) {
  size_t old = v->plen;
  char seg[CRAWL_SCHEMA_PATH_MAX];
  size_t k = 0;
  seg[k++] = '/';
  for (const char *s = key; *s && k + 3 < sizeof seg; s++) {
    if (*s == '~') { seg[k++] = '~'; seg[k++] = '0'; }
    else if (*s == '/') { seg[k++] = '~'; seg[k++] = '1'; }
    else seg[k++] = *s;
  }
  seg[k] = 0;
  if (v->plen + k + 1 < sizeof v->path) {
    memcpy(v->path + v->plen, seg, k + 1);
    v->plen += k;
  } else if (v->plen + 4 < sizeof v->path && strcmp(v->path + v->plen - 3, "...")) {
    memcpy(v->path + v->plen, "...", 4);
    v->plen += 3;
  }
  return old;
}
static size_t v_push_index(vctx *v, int i) {
  char b[24];
  snprintf(b, sizeof b, "%d", i);
  return v_push(v, b);
}
static void v_pop(vctx *v, size_t old) {
  v->plen = old;
  v->path[old] = 0;
}

static const char *type_of(const cJSON *x) {
  if (cJSON_IsObject(x)) return "object";
  if (cJSON_IsArray(x)) return "array";
  if (cJSON_IsString(x)) return "string";
  if (cJSON_IsNumber(x)) return "number";
  if (cJSON_IsBool(x)) return "boolean";
  return "null";
}
static int type_is(const cJSON *x, const char *t) {
  if (!strcmp(t, "integer")) return cJSON_IsNumber(x) && x->valuedouble == floor(x->valuedouble) && isfinite(x->valuedouble);
  return !strcmp(type_of(x), t);
}

/* Resolve "#/a/b" inside the schema (a URI fragment: %-escapes decoded,
 * then ~1 and ~0). */
static const cJSON *v_ref(const cJSON *root, const char *ref) {
  if (ref[0] != '#') return NULL;
  const cJSON *cur = root;
  const char *p = ref + 1;
  while (*p == '/') {
    p++;
    char seg[256];
    size_t k = 0;
    while (*p && *p != '/' && k + 1 < sizeof seg) {
      if (p[0] == '%' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) { /* a URI fragment */
        char hx[3] = {p[1], p[2], 0};
        seg[k++] = (char)strtol(hx, NULL, 16);
        p += 3;
      } else if (p[0] == '~' && p[1] == '0') { seg[k++] = '~'; p += 2; }
      else if (p[0] == '~' && p[1] == '1') { seg[k++] = '/'; p += 2; }
      else seg[k++] = *p++;
    }
    seg[k] = 0;
    if (cJSON_IsArray(cur)) {
      char *end;
      long i = strtol(seg, &end, 10);
      cur = *end ? NULL : cJSON_GetArrayItem(cur, (int)i);
    } else cur = cJSON_GetObjectItemCaseSensitive(cur, seg);
    if (!cur) return NULL;
  }
  return *p ? NULL : cur;
}

static int json_equal(const cJSON *a, const cJSON *b) { return cJSON_Compare(a, b, 1); }

static void v_value_text(const cJSON *x, char *buf, size_t n) {
  char *t = cJSON_PrintUnformatted(x);
  snprintf(buf, n, "%s", t ? t : "?");
  if (t && strlen(t) >= n && n > 4) memcpy(buf + n - 4, "...", 4);
  free(t);
}

static size_t utf8_count(const char *s) {
  size_t n = 0;
  for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

static void v_check(vctx *v, const cJSON *sc, const cJSON *x, int depth);

/* Run sc on x into a scratch context; returns its error count and fills
 * *worst with whether a discriminator of x itself failed. */
typedef struct trial { long n; int shallow; crawl_schema_error errs[CRAWL_SCHEMA_MAX_ERRORS]; } trial;
static void v_trial(vctx *v, const cJSON *sc, const cJSON *x, int depth, trial *t) {
  vctx s = {.root = v->root, .errs = t->errs, .max = CRAWL_SCHEMA_MAX_ERRORS};
  memcpy(s.path, v->path, v->plen + 1);
  s.plen = v->plen;
  v_check(&s, sc, x, depth);
  t->n = s.n;
  t->shallow = 0;
  /* a discriminator miss: a type/const/enum error on x or on a direct property */
  size_t n = s.n < (long)CRAWL_SCHEMA_MAX_ERRORS ? (size_t)s.n : CRAWL_SCHEMA_MAX_ERRORS;
  for (size_t i = 0; i < n; i++) {
    const char *p = t->errs[i].path, *m = t->errs[i].message;
    const char *base = v->plen ? v->path : "";
    size_t bl = strlen(base);
    if (strncmp(p, base, bl)) continue;
    const char *rest = p + bl;
    int direct = !*rest || !strcmp(rest, "/") || (rest[0] == '/' && !strchr(rest + 1, '/'));
    int disc = !strncmp(m, "must be equal to", 16) || !strncmp(m, "must be ", 8);
    if (direct && disc && (strncmp(m, "must be >", 9) && strncmp(m, "must be <", 9))) t->shallow = 1;
  }
}

static void v_copy_errors(vctx *v, const trial *t) {
  size_t n = t->n < (long)CRAWL_SCHEMA_MAX_ERRORS ? (size_t)t->n : CRAWL_SCHEMA_MAX_ERRORS;
  for (size_t i = 0; i < n; i++) {
    if ((size_t)v->n < v->max) v->errs[v->n] = t->errs[i];
    v->n++;
  }
  v->n += t->n - (long)n;
}

static void v_combine(vctx *v, const cJSON *list, const cJSON *x, int depth, int one) {
  int count = cJSON_GetArraySize(list), pass = 0;
  trial *best = NULL, *t = crawl__xcalloc(2, sizeof *t);
  int bi = -1;
  for (int i = 0; i < count; i++) {
    trial *cur = &t[bi == 0 ? 1 : 0];
    v_trial(v, cJSON_GetArrayItem(list, i), x, depth, cur);
    if (!cur->n) { pass++; if (!one) break; continue; }
    if (!best || cur->shallow < best->shallow || (cur->shallow == best->shallow && cur->n < best->n)) {
      best = cur;
      bi = (int)(cur - t);
    }
  }
  if (one && pass > 1) v_error(v, "must match exactly one schema in oneOf (matches %d)", pass);
  else if (!pass) {
    if (best && !best->shallow) v_copy_errors(v, best);
    else v_error(v, "must match a schema in %s (no allowed shape fits this %s)", one ? "oneOf" : "anyOf", type_of(x));
  }
  free(t);
}

/* ---- keyword families: each checks x against its keywords of sc; a
 * family returns 1 when nothing after it is meaningful (v_check stops). -- */
static int v_kw_ref(vctx *v, const cJSON *sc, const cJSON *x, int depth) {
  const cJSON *k = crawl__get(sc, "$ref");
  if (!k) return 0;
  /* draft-07: siblings of $ref are ignored */
  const cJSON *target = cJSON_IsString(k) ? v_ref(v->root, k->valuestring) : NULL;
  if (!target) v_error(v, "schema error: cannot resolve $ref %s", cJSON_IsString(k) ? k->valuestring : "?");
  else v_check(v, target, x, depth + 1);
  return 1;
}

static int v_kw_type(vctx *v, const cJSON *sc, const cJSON *x, int depth) {
  const cJSON *k = crawl__get(sc, "type");
  if (!k) return 0;
  int ok = 0;
  char want[128] = "";
  if (cJSON_IsString(k)) {
    ok = type_is(x, k->valuestring);
    snprintf(want, sizeof want, "%s", k->valuestring);
  } else {
    const cJSON *t;
    cJSON_ArrayForEach(t, k) {
      if (!cJSON_IsString(t)) continue;
      ok |= type_is(x, t->valuestring);
      size_t l = strlen(want);
      snprintf(want + l, sizeof want - l, "%s%s", l ? "," : "", t->valuestring);
    }
  }
  if (ok) return 0;
  v_error(v, "must be %s (is %s)", want, type_of(x));
  return 1; /* nothing else is meaningful */
}

static int v_kw_const(vctx *v, const cJSON *sc, const cJSON *x, int depth) {
  const cJSON *k = crawl__get(sc, "const");
  if (k && !json_equal(k, x)) {
    char want[160];
    v_value_text(k, want, sizeof want);
    v_error(v, "must be equal to constant %s", want);
  }
  return 0;
}

static int v_kw_enum(vctx *v, const cJSON *sc, const cJSON *x, int depth) {
  const cJSON *k = crawl__get(sc, "enum"), *e;
  if (!k) return 0;
  int ok = 0;
  cJSON_ArrayForEach(e, k) ok |= json_equal(e, x);
  if (ok) return 0;
  char list[200] = "", got[64];
  cJSON_ArrayForEach(e, k) {
    char t[64];
    v_value_text(e, t, sizeof t);
    size_t l = strlen(list);
    if (l + strlen(t) + 8 >= sizeof list) { snprintf(list + l, sizeof list - l, ", ..."); break; }
    snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "", t);
  }
  v_value_text(x, got, sizeof got);
  v_error(v, "must be equal to one of the allowed values: %s (is %s)", list, got);
  return 0;
}

/* allOf, anyOf, oneOf, not */
static int v_kw_combinators(vctx *v, const cJSON *sc, const cJSON *x, int depth) {
  const cJSON *k;
  if ((k = crawl__get(sc, "allOf"))) {
    const cJSON *s;
    cJSON_ArrayForEach(s, k) v_check(v, s, x, depth + 1);
  }
  if ((k = crawl__get(sc, "anyOf"))) v_combine(v, k, x, depth + 1, 0);
  if ((k = crawl__get(sc, "oneOf"))) v_combine(v, k, x, depth + 1, 1);
  if ((k = crawl__get(sc, "not"))) {
    trial *t = crawl__xcalloc(1, sizeof *t);
    v_trial(v, k, x, depth + 1, t);
    if (!t->n) v_error(v, "must NOT be valid against the schema in not");
    free(t);
  }
  return 0;
}

/* minimum, maximum, exclusiveMinimum, exclusiveMaximum: x fails a bound when
 * it lies below (or above) it, or on it for an exclusive one. */
static const struct { const char *kw, *op; int lower, exclusive; } number_bounds[] = {
  {"minimum", ">=", 1, 0}, {"maximum", "<=", 0, 0}, {"exclusiveMinimum", ">", 1, 1}, {"exclusiveMaximum", "<", 0, 1}};

static int v_kw_number(vctx *v, const cJSON *sc, const cJSON *x, int depth) {
  if (!cJSON_IsNumber(x)) return 0;
  double d = x->valuedouble;
  for (size_t i = 0; i < sizeof number_bounds / sizeof *number_bounds; i++) {
    const cJSON *k = crawl__get(sc, number_bounds[i].kw);
    if (!cJSON_IsNumber(k)) continue;
    double lim = k->valuedouble;
    int fails = number_bounds[i].lower ? (number_bounds[i].exclusive ? d <= lim : d < lim)
                                       : (number_bounds[i].exclusive ? d >= lim : d > lim);
    if (fails) v_error(v, "must be %s %g", number_bounds[i].op, lim);
  }
  return 0;
}

/* minLength/maxLength, minItems/maxItems, minProperties/maxProperties: n
 * counts the unit (characters, items, properties). */
static void v_count_bounds(vctx *v, const cJSON *sc, const char *min_kw, const char *max_kw, double n, const char *unit) {
  const cJSON *k;
  if ((k = crawl__get(sc, min_kw)) && cJSON_IsNumber(k) && n < k->valuedouble) v_error(v, "must NOT have fewer than %g %s", k->valuedouble, unit);
  if ((k = crawl__get(sc, max_kw)) && cJSON_IsNumber(k) && n > k->valuedouble) v_error(v, "must NOT have more than %g %s", k->valuedouble, unit);
}

static int v_kw_string(vctx *v, const cJSON *sc, const cJSON *x, int depth) {
  if (cJSON_IsString(x)) v_count_bounds(v, sc, "minLength", "maxLength", (double)utf8_count(x->valuestring), "characters");
  return 0;
}

/* items (one schema, or a tuple with additionalItems) */
static void v_items(vctx *v, const cJSON *sc, const cJSON *x, int depth) {
  const cJSON *items = crawl__get(sc, "items"), *e;
  int i = 0;
  if (cJSON_IsArray(items)) { /* a tuple */
    int ni = cJSON_GetArraySize(items);
    const cJSON *extra = crawl__get(sc, "additionalItems");
    cJSON_ArrayForEach(e, x) {
      size_t old = v_push_index(v, i);
      if (i < ni) v_check(v, cJSON_GetArrayItem(items, i), e, depth + 1);
      else if (extra) v_check(v, extra, e, depth + 1);
      v_pop(v, old);
      i++;
    }
  } else if (items) {
    cJSON_ArrayForEach(e, x) {
      size_t old = v_push_index(v, i++);
      v_check(v, items, e, depth + 1);
      v_pop(v, old);
    }
  }
}

static int v_kw_array(vctx *v, const cJSON *sc, const cJSON *x, int depth) {
  if (!cJSON_IsArray(x)) return 0;
  v_count_bounds(v, sc, "minItems", "maxItems", cJSON_GetArraySize(x), "items");
  if (cJSON_IsTrue(crawl__get(sc, "uniqueItems"))) {
    int dup = 0;
    for (const cJSON *a = x->child; a && !dup; a = a->next)
      for (const cJSON *b = a->next; b && !dup; b = b->next) dup = json_equal(a, b);
    if (dup) v_error(v, "must NOT have duplicate items");
  }
  v_items(v, sc, x, depth);
  return 0;
}

/* properties, additionalProperties (bool or schema) */
static void v_properties(vctx *v, const cJSON *sc, const cJSON *x, int depth) {
  const cJSON *props = crawl__get(sc, "properties"), *addl = crawl__get(sc, "additionalProperties"), *m;
  cJSON_ArrayForEach(m, x) {
    const cJSON *ps = m->string ? crawl__get(props, m->string) : NULL;
    if (!ps && !addl) continue;
    size_t old = v_push(v, m->string ? m->string : "");
    if (ps) v_check(v, ps, m, depth + 1);
    else if (cJSON_IsFalse(addl)) {
      v_pop(v, old);
      v_error(v, "must NOT have additional properties ('%s')", m->string);
      continue;
    } else v_check(v, addl, m, depth + 1);
    v_pop(v, old);
  }
}

static int v_kw_object(vctx *v, const cJSON *sc, const cJSON *x, int depth) {
  if (!cJSON_IsObject(x)) return 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, crawl__get(sc, "required"))
    if (cJSON_IsString(r) && !cJSON_GetObjectItemCaseSensitive(x, r->valuestring))
      v_error(v, "must have required property '%s'", r->valuestring);
  v_count_bounds(v, sc, "minProperties", "maxProperties", cJSON_GetArraySize(x), "properties");
  v_properties(v, sc, x, depth);
  return 0;
}

/* The keyword families in the order they are checked (errors come out in
 * this order). */
static const struct {
  const char *keywords;
  int (*check)(vctx *v, const cJSON *sc, const cJSON *x, int depth);
} v_families[] = {
  {"$ref", v_kw_ref},
  {"type", v_kw_type},
  {"const", v_kw_const},
  {"enum", v_kw_enum},
  {"allOf anyOf oneOf not", v_kw_combinators},
  {"minimum maximum exclusiveMinimum exclusiveMaximum", v_kw_number},
  {"minLength maxLength", v_kw_string},
  {"minItems maxItems uniqueItems items additionalItems", v_kw_array},
  {"required minProperties maxProperties properties additionalProperties", v_kw_object},
};

static void v_check(vctx *v, const cJSON *sc, const cJSON *x, int depth) {
  if (depth > V_MAX_DEPTH) { v_error(v, "nested too deeply (more than %d levels)", V_MAX_DEPTH); return; }
  if (cJSON_IsBool(sc)) {
    if (cJSON_IsFalse(sc)) v_error(v, "is not allowed here");
    return;
  }
  if (!cJSON_IsObject(sc)) return;
  for (size_t i = 0; i < sizeof v_families / sizeof *v_families; i++)
    if (v_families[i].check(v, sc, x, depth)) return;
}

/* ---- entry points ------------------------------------------------------------------ */
const char *crawl_schema_guess(const cJSON *doc) {
  if (!cJSON_IsObject(doc)) return NULL;
  if (crawl__get(doc, "uiap")) return "UiapMessage";
  if (crawl__get(doc, "spec") && crawl__get(doc, "modelVersion")) return "DiscoveryPackage";
  if (crawl__get(doc, "profile")) return "PageGraph";
  return NULL;
}

int crawl_schema_has(const char *definition) {
  const cJSON *root = schema();
  return root && definition && cJSON_IsObject(crawl__get(crawl__get(root, "definitions"), definition));
}

crawl_code crawl_validate_json(const cJSON *doc, const char *definition, crawl_validation *out, char *err,
                               size_t errlen) {
  char dummy[8];
  if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
  err[0] = 0;
  if (!doc || !out) {
    snprintf(err, errlen, "crawl_validate_json: doc and out are required");
    return CRAWL_ARG;
  }
  memset(out, 0, sizeof *out);
  const cJSON *root = schema();
  if (!root) {
    snprintf(err, errlen, "the built-in schema is unreadable");
    return CRAWL_IO;
  }
  const cJSON *defs = crawl__get(root, "definitions");
  if (!definition) {
    definition = crawl_schema_guess(doc);
    if (!definition) {
      snprintf(err, errlen, "cannot tell what this document is (no \"uiap\", \"spec\"+\"modelVersion\" or \"profile\" "
                            "member); name a definition with --definition");
      return CRAWL_ARG;
    }
  }
  const cJSON *def = crawl__get(defs, definition);
  if (!cJSON_IsObject(def)) {
    snprintf(err, errlen, "the schema has no definition %s", definition);
    return CRAWL_ARG;
  }
  out->definition = def->string; /* lives as long as the schema: the process */
  vctx v = {.root = root, .errs = out->errors, .max = CRAWL_SCHEMA_MAX_ERRORS};
  v_check(&v, def, doc, 0);
  /* a message: its payload against the definition its type names */
  const char *type = crawl__str(doc, "type");
  if (!strcmp(definition, "UiapMessage") && type && crawl__get(doc, "payload")) {
    for (size_t i = 0; i < sizeof payloads / sizeof *payloads; i++) {
      if (strcmp(payloads[i].type, type)) continue;
      const cJSON *pd = crawl__get(defs, payloads[i].payload);
      if (!pd) break;
      out->payload_definition = pd->string;
      size_t old = v_push(&v, "payload");
      v_check(&v, pd, crawl__get(doc, "payload"), 0);
      v_pop(&v, old);
      break;
    }
  }
  out->nerrors = v.n;
  return CRAWL_OK;
}

crawl_code crawl_validate_file(const char *path, const char *definition, crawl_validation *out, char *err,
                               size_t errlen) {
  char dummy[8];
  if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
  err[0] = 0;
  if (!path || !out) {
    snprintf(err, errlen, "crawl_validate_file: path and out are required");
    return CRAWL_ARG;
  }
  memset(out, 0, sizeof *out);
  cJSON *doc = crawl__json_load(path, err, errlen);
  if (!doc) return strstr(err, ": not JSON") ? CRAWL_ARG : CRAWL_IO;
  crawl_code rc = crawl_validate_json(doc, definition, out, err, errlen);
  cJSON_Delete(doc);
  return rc;
}

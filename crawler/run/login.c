/* login.c -- login recipes and the plan's principals: ${env:NAME}
 * expansion, the recipe parser (pure, no browser), and the recipe runner
 * (one tab: load the sign-in page, type, submit with the write guard open
 * for that one submit, check where it landed) and the sign-in page test
 * the explorer uses to notice a lost session. Errors name a JSON path or a
 * variable, never a value. docs/principals.md. */
#include "act.h"
#include "crawl.h"
#include "crawl_secrets.h"
#include "crawl_util.h"
#include "pg_url.h"
#include "run_int.h"

#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A one-line reason into err, and CRAWL_ARG. */
#define fail(err, errlen, ...) crawl__errf((err), (errlen), CRAWL_ARG, __VA_ARGS__)


/* ---- ${env:NAME} -------------------------------------------------------------- */
#define ENV_OPEN "${env:"
#define ENV_NAME_MAX 128

/* The name of the reference at s (just after "${env:") into name; its
 * length up to and with '}', or 0 when it is not NAME}. */
static size_t env_name(const char *s, char *name) {
  size_t n = 0;
  if (!isalpha((unsigned char)s[0]) && s[0] != '_') return 0;
  while (isalnum((unsigned char)s[n]) || s[n] == '_') n++;
  if (s[n] != '}' || n >= ENV_NAME_MAX) return 0;
  memcpy(name, s, n);
  name[n] = 0;
  return n + 1;
}

crawl_code crawl_env_expand(const char *in, int whole, char **out, char *err, size_t errlen) {
  *out = NULL;
  if (!in) return fail(err, errlen, "must be a string");
  crawl__buf b = {0};
  const char *p = in;
  int refs = 0;
  while (*p) {
    const char *q = strstr(p, ENV_OPEN);
    if (!q) q = p + strlen(p);
    if (whole && q != p) goto literal;
    crawl__buf_put(&b, p, (size_t)(q - p));
    if (!*q) break;
    char name[ENV_NAME_MAX];
    size_t len = env_name(q + strlen(ENV_OPEN), name);
    if (!len) {
      crawl__buf_free(&b);
      return fail(err, errlen, "has a malformed ${env:NAME} reference (NAME: letters, digits, _)");
    }
    const char *v = getenv(name);
    if (!v) {
      crawl__buf_free(&b);
      return fail(err, errlen, "needs the environment variable %s, which is not set", name);
    }
    crawl__buf_put(&b, v, strlen(v));
    refs++;
    p = q + strlen(ENV_OPEN) + len;
  }
  if (whole && refs != 1) goto literal;
  *out = crawl__buf_take(&b);
  return CRAWL_OK;
literal:
  crawl__buf_free(&b);
  return fail(err, errlen, "must be one ${env:NAME} reference (values are never written in the plan)");
}

/* ---- the recipe ------------------------------------------------------------------ */
static const char *const step_actions[] = {"ui.enterText", "ui.activate"};

void crawl_login_release(crawl_login *l) {
  if (!l) return;
  for (size_t i = 0; i < l->nsteps; i++) {
    free(l->steps[i].action);
    free(l->steps[i].role);
    free(l->steps[i].name);
    free(l->steps[i].stable_id);
    free(l->steps[i].scope);
    free(l->steps[i].css);
    free(l->steps[i].value);
  }
  free(l->steps);
  free(l->url);
  free(l->success_prefix);
  memset(l, 0, sizeof *l);
}

static int known_action(const char *a) {
  for (size_t i = 0; a && i < sizeof step_actions / sizeof *step_actions; i++)
    if (!strcmp(a, step_actions[i])) return 1;
  return 0;
}

/* A target's string members (TargetRef's, and css: TargetHints.runtime's
 * local hint, web 5.8), each at its offset in a step. */
static const struct { const char *key; size_t off; } target_strings[] = {
  {"stableId", offsetof(crawl_login_step, stable_id)}, {"role", offsetof(crawl_login_step, role)},
  {"name", offsetof(crawl_login_step, name)},         {"scopeId", offsetof(crawl_login_step, scope)},
  {"css", offsetof(crawl_login_step, css)},
};

#define ORDINAL_MAX 999

/* Step i's target t into st: each member of the right type, and enough of
 * them to find one element (stableId, role and name, role and ordinal, or
 * css). CRAWL_ARG with the path in err. */
static crawl_code target_parse(const cJSON *t, size_t i, crawl_login_step *st, char *err, size_t errlen) {
  st->ordinal = -1;
  if (!cJSON_IsObject(t)) return fail(err, errlen, "/steps/%zu/target must be an object", i);
  for (size_t k = 0; k < sizeof target_strings / sizeof *target_strings; k++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, target_strings[k].key);
    if (!v) continue;
    if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) > 1024)
      return fail(err, errlen, "/steps/%zu/target/%s must be a non-empty string", i, target_strings[k].key);
    *(char **)((char *)st + target_strings[k].off) = crawl__xstrdup(v->valuestring);
  }
  const cJSON *o = cJSON_GetObjectItemCaseSensitive(t, "ordinal");
  if (o && (!cJSON_IsNumber(o) || o->valuedouble < 0 || o->valuedouble > ORDINAL_MAX ||
            o->valuedouble != (double)(int)o->valuedouble))
    return fail(err, errlen, "/steps/%zu/target/ordinal must be a whole number 0..%d", i, ORDINAL_MAX);
  if (o) st->ordinal = o->valueint;
  if (st->stable_id || (st->role && (st->name || st->ordinal >= 0)) || st->css) return CRAWL_OK;
  return fail(err, errlen, "/steps/%zu/target must name one element: stableId, role and name, role and ordinal, "
              "or css (docs/principals.md)", i);
}

/* Step i of the recipe into *st; CRAWL_ARG with the path in err. */
static crawl_code step_parse(const cJSON *j, size_t i, crawl_login_step *st, char *err, size_t errlen) {
  const char *action = crawl__str(j, "action");
  if (!cJSON_IsObject(j)) return fail(err, errlen, "/steps/%zu must be an object", i);
  if (!known_action(action)) return fail(err, errlen, "/steps/%zu/action must be ui.enterText or ui.activate", i);
  st->action = crawl__xstrdup(action);
  crawl_code rc = target_parse(cJSON_GetObjectItemCaseSensitive(j, "target"), i, st, err, errlen);
  if (rc || strcmp(action, "ui.enterText")) return rc;
  char why[200];
  if (crawl_env_expand(crawl__str(j, "value"), 1, &st->value, why, sizeof why))
    return fail(err, errlen, "/steps/%zu/value %s", i, why);
  return CRAWL_OK;
}

static crawl_code url_parse(const char *in, const char *path, char **out, char *err, size_t errlen) {
  char why[200];
  if (crawl_env_expand(in, 0, out, why, sizeof why)) return fail(err, errlen, "%s %s", path, why);
  if (strncmp(*out, "http://", 7) && strncmp(*out, "https://", 8))
    return fail(err, errlen, "%s must be an http(s) URL", path);
  return CRAWL_OK;
}

crawl_code crawl_login_parse(const cJSON *j, crawl_login *l, char *err, size_t errlen) {
  memset(l, 0, sizeof *l);
  if (!cJSON_IsObject(j)) return fail(err, errlen, " must be an object {url, steps, success}");
  crawl_code rc = url_parse(crawl__str(j, "url"), "/url", &l->url, err, errlen);
  if (rc) return rc;
  const cJSON *steps = cJSON_GetObjectItemCaseSensitive(j, "steps");
  if (!cJSON_IsArray(steps) || !cJSON_GetArraySize(steps) || cJSON_GetArraySize(steps) > 32)
    return fail(err, errlen, "/steps must be an array of 1 to 32 steps");
  l->steps = crawl__xcalloc((size_t)cJSON_GetArraySize(steps), sizeof *l->steps);
  const cJSON *sj;
  cJSON_ArrayForEach(sj, steps) {
    if ((rc = step_parse(sj, l->nsteps, &l->steps[l->nsteps], err, errlen)) != CRAWL_OK) {
      l->nsteps++; /* released with the others */
      return rc;
    }
    l->nsteps++;
  }
  const cJSON *succ = cJSON_GetObjectItemCaseSensitive(j, "success");
  if (succ && !cJSON_IsObject(succ)) return fail(err, errlen, "/success must be an object {urlPrefix}");
  const cJSON *pre = cJSON_GetObjectItemCaseSensitive(succ, "urlPrefix");
  if (pre) return url_parse(cJSON_GetStringValue(pre), "/success/urlPrefix", &l->success_prefix, err, errlen);
  return CRAWL_OK;
}

void crawl__login_secrets(const crawl_login *l, struct crawl__secrets *sec) {
  for (size_t i = 0; l && i < l->nsteps; i++)
    if (l->steps[i].value) crawl__secrets_add(sec, l->steps[i].value);
}

/* ---- the plan's principals ------------------------------------------------------------- */
void crawl_principals_free(crawl_principal *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(v[i].id);
    cJSON_Delete(v[i].profile);
    crawl_login_release(v[i].login);
    free(v[i].login);
    free(v[i].storage_state);
    crawl_session_release(&v[i].session);
  }
  free(v);
}

static int picked(const char *const *pick, const char *id) {
  if (!pick) return 1;
  for (size_t i = 0; pick[i]; i++)
    if (!strcmp(pick[i], id)) return 1;
  return 0;
}

/* What one place of the plan adds to principal pr: extra (an object at the
 * JSON path where: the environment's metadata.principals.<id>, or the
 * profile's own metadata) may hold a login recipe and a storage state. A
 * second recipe or storage state for pr (from the other place) is refused. */
static crawl_code principal_extras(const cJSON *extra, const char *where, crawl_principal *pr, char *err,
                                   size_t errlen) {
  if (!extra) return CRAWL_OK;
  if (!cJSON_IsObject(extra)) return fail(err, errlen, "%s must be an object", where);
  const cJSON *login = cJSON_GetObjectItemCaseSensitive(extra, "login");
  const cJSON *ss = cJSON_GetObjectItemCaseSensitive(extra, "storageState");
  if (ss && !cJSON_IsString(ss)) return fail(err, errlen, "%s/storageState must be a file name", where);
  if ((ss && pr->storage_state) || (login && pr->login))
    return fail(err, errlen, "%s/%s: principal %s has one already in the plan; give it in one place only", where,
                login && pr->login ? "login" : "storageState", pr->id);
  if (ss) pr->storage_state = crawl__xstrdup(ss->valuestring);
  if (!login) return CRAWL_OK;
  char why[300];
  pr->login = crawl__xcalloc(1, sizeof *pr->login);
  if (crawl_login_parse(login, pr->login, why, sizeof why)) return fail(err, errlen, "%s/login%s", where, why);
  return CRAWL_OK;
}

/* Principal pr's sign-in, from both places docs/principals.md names: the
 * environment's metadata.principals.<id> and the profile's own metadata
 * (pj, profile i). A recipe or storage state on the profile itself is in
 * neither: refused, with the places it goes. */
static crawl_code principal_signin(const cJSON *extras, const cJSON *pj, int i, crawl_principal *pr, char *err,
                                   size_t errlen) {
  static const char *const misplaced[] = {"login", "storageState"};
  for (size_t k = 0; k < sizeof misplaced / sizeof *misplaced; k++)
    if (cJSON_GetObjectItemCaseSensitive(pj, misplaced[k]))
      return fail(err, errlen,
                  "/environment/principalProfiles/%d/%s: a principal's %s goes in its profile's metadata.%s or in "
                  "environment.metadata.principals.%s.%s (docs/principals.md)",
                  i, misplaced[k], misplaced[k], misplaced[k], pr->id, misplaced[k]);
  char where[300];
  snprintf(where, sizeof where, "/environment/metadata/principals/%s", pr->id);
  crawl_code rc = principal_extras(cJSON_GetObjectItemCaseSensitive(extras, pr->id), where, pr, err, errlen);
  if (rc) return rc;
  const cJSON *meta = cJSON_GetObjectItemCaseSensitive(pj, "metadata");
  snprintf(where, sizeof where, "/environment/principalProfiles/%d/metadata", i);
  return principal_extras(meta, where, pr, err, errlen);
}

static const cJSON *plan_env(const cJSON *plan) {
  const cJSON *payload = cJSON_GetObjectItemCaseSensitive(plan, "payload");
  return cJSON_GetObjectItemCaseSensitive(payload ? payload : plan, "environment");
}

/* Every entry of the environment's metadata.principals names a profile: a
 * recipe for nobody would be dropped without a word. */
static crawl_code extras_named(const cJSON *profiles, const cJSON *extras, char *err, size_t errlen) {
  const cJSON *xj, *named = cJSON_IsObject(extras) ? extras : NULL;
  cJSON_ArrayForEach(xj, named) {
    const cJSON *pj;
    int found = 0;
    cJSON_ArrayForEach(pj, profiles) found |= crawl__str(pj, "id") && !strcmp(crawl__str(pj, "id"), xj->string);
    if (!found)
      return fail(err, errlen, "/environment/metadata/principals/%s: no principal profile has this id "
                  "(environment.principalProfiles)", xj->string);
  }
  return CRAWL_OK;
}

/* Every id of pick is a profile of the plan. */
static crawl_code picks_exist(const cJSON *profiles, const char *const *pick, char *err, size_t errlen) {
  for (size_t i = 0; pick && pick[i]; i++) {
    const cJSON *pj;
    int found = 0;
    cJSON_ArrayForEach(pj, profiles) found |= crawl__str(pj, "id") && !strcmp(crawl__str(pj, "id"), pick[i]);
    if (!found) return fail(err, errlen, "--principal %s: the plan has no principal profile with this id", pick[i]);
  }
  return CRAWL_OK;
}

crawl_code crawl_principals_parse(const cJSON *plan, const char *const *pick, crawl_principal **v, size_t *n,
                                  char *err, size_t errlen) {
  const cJSON *env = plan_env(plan);
  const cJSON *profiles = cJSON_GetObjectItemCaseSensitive(env, "principalProfiles");
  const cJSON *extras = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "metadata"), "principals");
  *v = NULL;
  *n = 0;
  if (profiles && !cJSON_IsArray(profiles)) return fail(err, errlen, "/environment/principalProfiles must be an array");
  crawl_code rc = picks_exist(profiles, pick, err, errlen);
  if (!rc) rc = extras_named(profiles, extras, err, errlen);
  if (rc) return rc;
  *v = crawl__xcalloc((size_t)cJSON_GetArraySize(profiles) + 1, sizeof **v);
  const cJSON *pj;
  int i = 0;
  cJSON_ArrayForEach(pj, profiles) {
    const char *id = crawl__str(pj, "id");
    if (!id || !*id) return fail(err, errlen, "/environment/principalProfiles/%d/id must be a string", i);
    for (size_t k = 0; k < *n; k++)
      if (!strcmp((*v)[k].id, id)) return fail(err, errlen, "/environment/principalProfiles/%d/id repeats %s", i, id);
    if (!picked(pick, id)) {
      i++;
      continue;
    }
    crawl_principal *pr = &(*v)[(*n)++];
    pr->id = crawl__xstrdup(id);
    pr->profile = cJSON_Duplicate(pj, 1);
    if ((rc = principal_signin(extras, pj, i, pr, err, errlen)) != CRAWL_OK) return rc;
    i++;
  }
  return CRAWL_OK;
}

/* ---- a step's target ------------------------------------------------------------------------ */
/* 1 when e lies in a scope (itself or an ancestor) whose stable id, name
 * (case-insensitive) or scope id is scope; NULL scope: anywhere. */
static int in_scope(const pg_graph *g, const pg_element *e, const char *scope) {
  if (!scope) return 1;
  for (int s = e->scope, steps = 0; s >= 0 && (size_t)s < g->nscopes && steps < 4096; s = g->scopes[s].parent, steps++) {
    const pg_scope *sc = &g->scopes[s];
    if ((sc->stable_id && !strcmp(sc->stable_id, scope)) || (sc->name && !strcasecmp(sc->name, scope)) ||
        (sc->scope_id && !strcmp(sc->scope_id, scope)))
      return 1;
  }
  return 0;
}

/* The n-th (0-based) element of g that st's members (those not NULL of
 * stable id, role, name) and scope select, in document order; NULL: none. */
static const pg_element *nth_match(const pg_graph *g, const crawl_login_step *st, const char *stable_id,
                                   const char *role, const char *name, int n) {
  for (size_t i = 0; g && i < g->nelements; i++) {
    const pg_element *e = &g->elements[i];
    if (stable_id && (!e->stable_id || strcmp(e->stable_id, stable_id))) continue;
    if (role && (!e->role || strcmp(e->role, role))) continue;
    if (name && (!e->name || strcasecmp(e->name, name))) continue;
    if (in_scope(g, e, st->scope) && n-- == 0) return e;
  }
  return NULL;
}

const pg_element *crawl__login_target(const pg_graph *g, const crawl_login_step *st, const char **how) {
  int n = st->ordinal >= 0 ? st->ordinal : 0;
  const pg_element *e = NULL;
  const char *by = NULL;
  /* a stable id is one element: narrowed by role and name only when several carry it */
  if (st->stable_id && (e = nth_match(g, st, st->stable_id, NULL, NULL, 0)) != NULL) {
    const pg_element *second = nth_match(g, st, st->stable_id, NULL, NULL, 1);
    if (second) e = nth_match(g, st, st->stable_id, st->role, st->name, n);
    by = "stableId";
  }
  if (!e && st->role && st->name && (e = nth_match(g, st, NULL, st->role, st->name, n)) != NULL) by = "role and name";
  if (!e && st->role && st->ordinal >= 0 && (e = nth_match(g, st, NULL, st->role, NULL, n)) != NULL)
    by = "role and ordinal";
  if (how) *how = by;
  return e;
}

/* A password field in g (input type=password): what tells a sign-in form
 * from any form with two text fields. */
static int has_password(const pg_graph *g) {
  for (size_t i = 0; g && i < g->nelements; i++)
    if (g->elements[i].input_type && !strcasecmp(g->elements[i].input_type, "password")) return 1;
  return 0;
}

/* The element the selector css selects in p's top document (its first
 * match), found in g by its node: a local hint (web 5.8) for a target the
 * semantic members did not find. NULL: none, or not one of g's elements. */
static const pg_element *by_css(crawl_page *p, const pg_graph *g, const char *css) {
  cJSON *lit = cJSON_CreateString(css), *a = cJSON_CreateObject(), *res = NULL;
  char *q = cJSON_PrintUnformatted(lit);
  cJSON_Delete(lit);
  char *expr = crawl__xprintf("document.querySelector(%s)", q ? q : "''");
  free(q);
  cJSON_AddStringToObject(a, "expression", expr);
  free(expr);
  cdp_client *c = crawl_page_client(p);
  if (cdp_call(c, crawl_page_session(p), "Runtime.evaluate", a, &res, 5000) != CDP_OK) return NULL;
  const char *oid = crawl__str(cJSON_GetObjectItemCaseSensitive(res, "result"), "objectId");
  int backend = 0;
  if (oid && !cJSON_GetObjectItemCaseSensitive(res, "exceptionDetails")) {
    cJSON *d = cJSON_CreateObject(), *dres = NULL;
    cJSON_AddStringToObject(d, "objectId", oid);
    if (cdp_call(c, crawl_page_session(p), "DOM.describeNode", d, &dres, 5000) == CDP_OK)
      backend = (int)crawl__num(cJSON_GetObjectItemCaseSensitive(dres, "node"), "backendNodeId", 0);
    cJSON_Delete(dres);
    cJSON *rel = cJSON_CreateObject();
    cJSON_AddStringToObject(rel, "objectId", oid);
    cdp_call(c, crawl_page_session(p), "Runtime.releaseObject", rel, NULL, 2000);
  }
  cJSON_Delete(res);
  for (size_t i = 0; backend && g && i < g->nelements; i++)
    if (g->elements[i].backend_node_id == backend || pg_element_click_node(&g->elements[i]) == backend)
      return &g->elements[i];
  return NULL;
}

/* What a step's target names, for a line: "textbox #1", "button \"Sign
 * in\"", "the element with stableId login-user", "css #user". */
static void target_text(const crawl_login_step *st, char *buf, size_t n) {
  if (st->stable_id) snprintf(buf, n, "the element with stableId %.100s", st->stable_id);
  else if (st->role && st->name) snprintf(buf, n, "%.40s \"%.100s\"", st->role, st->name);
  else if (st->role && st->ordinal >= 0) snprintf(buf, n, "%.40s #%d", st->role, st->ordinal);
  else snprintf(buf, n, "the one css %.100s selects", st->css ? st->css : "?");
  if (st->scope) snprintf(buf + strlen(buf), n - strlen(buf), " in scope %.100s", st->scope);
}

/* ---- running a recipe (one tab) ------------------------------------------------------------ */
static int same_path(const char *a, const char *b) {
  size_t la = strcspn(a, "?#"), lb = strcspn(b, "?#");
  return la == lb && !strncmp(a, b, la);
}

int crawl__login_page(const crawl_login *l, const char *url, const pg_graph *g) {
  if (!l) return 0;
  if (url && same_path(url, l->url)) return 1;
  int weak = 0, found = 0;
  for (size_t i = 0; g && i < l->nsteps; i++) {
    const char *how = NULL;
    int semantic = l->steps[i].stable_id || (l->steps[i].role && (l->steps[i].name || l->steps[i].ordinal >= 0));
    if (!semantic) { weak = 1; continue; } /* a CSS hint alone: the capture cannot tell */
    if (!crawl__login_target(g, &l->steps[i], &how)) return 0;
    found++;
    weak |= !strcmp(how, "role and ordinal");
  }
  return found > 0 && (!weak || has_password(g));
}

/* A submit opens the guard for its own form's request, nothing else. */
static void open_for_submit(crawl_page *p, const pg_element *e) {
  char m[16] = "POST";
  if (e->form_method && strlen(e->form_method) < sizeof m) {
    snprintf(m, sizeof m, "%s", e->form_method);
    for (char *c = m; *c; c++) *c = (char)toupper((unsigned char)*c);
  }
  if (e->submit_url) crawl__page_allow_write(p, m, e->submit_url);
}

/* Step i on g's page: the recipe decided it (the user's sign-in); the gate
 * checks it like any action (act.c: the element found, decided again,
 * nothing beyond signing in) and the click or the typing goes through the
 * one path from a decision to input. */
static crawl_code do_step(crawl_page *p, const pg_graph *g, const act_gate *gate, const crawl_login_step *st,
                          size_t i, char *why, size_t whylen) {
  const pg_element *e = crawl__login_target(g, st, NULL);
  if (!e && st->css) e = by_css(p, g, st->css);
  if (!e) {
    char what[400];
    target_text(st, what, sizeof what);
    return fail(why, whylen, "step %zu: no element on the sign-in page is %s", i, what);
  }
  action a = {.action_id = st->value ? "ui.enterText" : "ui.activate", .role = e->role,
              .name = e->name ? e->name : "", .stable_id = e->stable_id, .backend = e->backend_node_id,
              .dec = {.effect = POL_EFFECT_ALLOW, .text = "a step of the principal's login recipe"}};
  if (!st->value) open_for_submit(p, e);
  char refusal[512] = "";
  crawl_code rc = crawl__act_perform(p, g, gate, &a, st->value, NULL, refusal, sizeof refusal);
  if (!rc && !st->value) rc = crawl_page_settle(p);
  if (rc) fail(why, whylen, "step %zu: %s", i, refusal[0] ? refusal : crawl_page_errmsg(p));
  return rc;
}

/* The page's cookies for its URL: their values become secrets (a session id
 * the server just set). */
static void cookies_secret(crawl_page *p, struct crawl__secrets *sec) {
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON *urls = cJSON_AddArrayToObject(a, "urls");
  cJSON_AddItemToArray(urls, cJSON_CreateString(crawl_page_url(p) ? crawl_page_url(p) : "about:blank"));
  if (cdp_call(crawl_page_client(p), crawl_page_session(p), "Network.getCookies", a, &res, 10000) != CDP_OK) return;
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(res, "cookies")) crawl__secrets_add(sec, crawl__str(c, "value"));
  cJSON_Delete(res);
}

crawl_code crawl__login_run(crawl_page *p, const crawl_login *l, const pol_policy *policy, const char *const *allowed,
                            struct crawl__secrets *sec, char *why, size_t whylen) {
  char origin[512];
  if (pg_url_origin(l->url, origin, sizeof origin) < 0) origin[0] = 0;
  act_gate gate = {.policy = policy, .page_origin = origin, .allowed = allowed, .recipe = 1};
  crawl__login_secrets(l, sec);
  char refusal[512] = "";
  crawl_code rc = crawl__act_navigate(p, &gate, l->url, 0, NULL, refusal, sizeof refusal);
  if (rc) {
    fail(why, whylen, "the sign-in page did not load: %s", refusal[0] ? refusal : crawl_page_errmsg(p));
    return rc;
  }
  for (size_t i = 0; i < l->nsteps && !rc; i++) {
    pg_graph *g = NULL;
    pg_options go = {0};
    rc = crawl_page_capture(p, &go, &g);
    if (rc) fail(why, whylen, "step %zu: %s", i, crawl_page_errmsg(p));
    else rc = do_step(p, g, &gate, &l->steps[i], i, why, whylen);
    pg_graph_free(g);
  }
  crawl__page_allow_write(p, NULL, NULL);
  if (rc) return rc;
  const char *at = crawl_page_url(p);
  cookies_secret(p, sec);
  int ok = at && (l->success_prefix ? !strncmp(at, l->success_prefix, strlen(l->success_prefix))
                                    : !same_path(at, l->url));
  if (!ok) return fail(why, whylen, "signing in did not arrive where the recipe expects (HTTP %d)", crawl_page_status(p));
  return CRAWL_OK;
}

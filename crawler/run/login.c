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

/* Step i of the recipe into *st; CRAWL_ARG with the path in err. */
static crawl_code step_parse(const cJSON *j, size_t i, crawl_login_step *st, char *err, size_t errlen) {
  const char *action = crawl__str(j, "action");
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "target");
  if (!cJSON_IsObject(j)) return fail(err, errlen, "/steps/%zu must be an object", i);
  if (!known_action(action)) return fail(err, errlen, "/steps/%zu/action must be ui.enterText or ui.activate", i);
  if (!crawl__str(t, "role") || !crawl__str(t, "name"))
    return fail(err, errlen, "/steps/%zu/target must be an object with string role and name", i);
  st->action = crawl__xstrdup(action);
  st->role = crawl__xstrdup(crawl__str(t, "role"));
  st->name = crawl__xstrdup(crawl__str(t, "name"));
  if (strcmp(action, "ui.enterText")) return CRAWL_OK;
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

/* ---- running a recipe (one tab) ------------------------------------------------------------ */
static const pg_element *find_el(const pg_graph *g, const char *role, const char *name) {
  for (size_t i = 0; g && i < g->nelements; i++) {
    const pg_element *e = &g->elements[i];
    if (e->role && !strcmp(e->role, role) && e->name && !strcasecmp(e->name, name)) return e;
  }
  return NULL;
}

static int same_path(const char *a, const char *b) {
  size_t la = strcspn(a, "?#"), lb = strcspn(b, "?#");
  return la == lb && !strncmp(a, b, la);
}

int crawl__login_page(const crawl_login *l, const char *url, const pg_graph *g) {
  if (!l) return 0;
  if (url && same_path(url, l->url)) return 1;
  for (size_t i = 0; i < l->nsteps; i++)
    if (!find_el(g, l->steps[i].role, l->steps[i].name)) return 0;
  return g != NULL && l->nsteps > 0;
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
  const pg_element *e = find_el(g, st->role, st->name);
  if (!e) return fail(why, whylen, "step %zu: no %s \"%s\" on the sign-in page", i, st->role, st->name);
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

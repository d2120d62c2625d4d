/* crawler_login.c -- login recipes and principals (crawler/run/login.c),
 * no browser: ${env:NAME} expansion, the recipe parser and its refusals
 * (which name a JSON path or a variable, never a value), the plan's
 * principals (--principal picks, storageState), the typed values as
 * secrets, the sign-in page test, and the access classification
 * (crawler/run/access.c). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "crawl.h"
#include "crawl_secrets.h"
#include "run_int.h"

static void env_init(void) {
  setenv("T_LOGIN_USER", "alice@example.test", 1);
  setenv("T_LOGIN_PASS", "pa55-w0rd-xyz", 1);
  setenv("T_LOGIN_HOST", "app.example.test", 1);
  unsetenv("T_LOGIN_MISSING");
}

TestSuite(login, .init = env_init);

Test(login, env_expand_replaces_every_reference) {
  char *out = NULL, err[200] = "";
  cr_assert_eq(crawl_env_expand("https://${env:T_LOGIN_HOST}/login?u=${env:T_LOGIN_USER}", 0, &out, err, sizeof err),
               CRAWL_OK, "%s", err);
  cr_expect_str_eq(out, "https://app.example.test/login?u=alice@example.test");
  free(out);
  cr_assert_eq(crawl_env_expand("plain text", 0, &out, err, sizeof err), CRAWL_OK);
  cr_expect_str_eq(out, "plain text");
  free(out);
}

Test(login, env_expand_whole_refuses_literals) {
  char *out = NULL, err[200] = "";
  cr_assert_eq(crawl_env_expand("${env:T_LOGIN_PASS}", 1, &out, err, sizeof err), CRAWL_OK, "%s", err);
  cr_expect_str_eq(out, "pa55-w0rd-xyz");
  free(out);
  static const char *const bad[] = {"hunter22", "x${env:T_LOGIN_PASS}", "${env:T_LOGIN_PASS}x",
                                    "${env:T_LOGIN_USER}${env:T_LOGIN_PASS}", ""};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    cr_expect_eq(crawl_env_expand(bad[i], 1, &out, err, sizeof err), CRAWL_ARG, "\"%s\" refused", bad[i]);
    cr_expect_null(out);
    cr_expect(strstr(err, "one ${env:NAME} reference"), "%s", err);
    cr_expect(!strstr(err, "hunter22"), "the refusal quotes no value: %s", err);
  }
}

Test(login, env_expand_names_the_missing_variable) {
  char *out = NULL, err[200] = "";
  cr_assert_eq(crawl_env_expand("${env:T_LOGIN_MISSING}", 1, &out, err, sizeof err), CRAWL_ARG);
  cr_expect(strstr(err, "T_LOGIN_MISSING") && strstr(err, "not set"), "%s", err);
  static const char *const malformed[] = {"${env:}", "${env:1X}", "${env:T_LOGIN_USER", "${env:A-B}"};
  for (size_t i = 0; i < sizeof malformed / sizeof *malformed; i++) {
    cr_expect_eq(crawl_env_expand(malformed[i], 0, &out, err, sizeof err), CRAWL_ARG, "%s", malformed[i]);
    cr_expect(strstr(err, "malformed"), "%s: %s", malformed[i], err);
  }
}

#define RECIPE(value)                                                                                      \
  "{\"url\":\"https://${env:T_LOGIN_HOST}/login\",\"steps\":["                                              \
  "{\"action\":\"ui.enterText\",\"target\":{\"role\":\"textbox\",\"name\":\"Email\"},\"value\":\"${env:T_LOGIN_USER}\"}," \
  "{\"action\":\"ui.enterText\",\"target\":{\"role\":\"textbox\",\"name\":\"Password\"},\"value\":\"" value "\"}," \
  "{\"action\":\"ui.activate\",\"target\":{\"role\":\"button\",\"name\":\"Sign in\"}}],"                    \
  "\"success\":{\"urlPrefix\":\"https://${env:T_LOGIN_HOST}/app/\"}}"

static crawl_code parse(const char *text, crawl_login *l, char *err) {
  cJSON *j = cJSON_Parse(text);
  cr_assert(j, "test JSON parses");
  crawl_code rc = crawl_login_parse(j, l, err, 300);
  cJSON_Delete(j);
  return rc;
}

Test(login, recipe_parses) {
  crawl_login l;
  char err[300] = "";
  cr_assert_eq(parse(RECIPE("${env:T_LOGIN_PASS}"), &l, err), CRAWL_OK, "%s", err);
  cr_expect_str_eq(l.url, "https://app.example.test/login");
  cr_assert_eq(l.nsteps, 3);
  cr_expect_str_eq(l.steps[0].name, "Email");
  cr_expect_str_eq(l.steps[1].value, "pa55-w0rd-xyz");
  cr_expect_null(l.steps[2].value);
  cr_expect_str_eq(l.steps[2].action, "ui.activate");
  cr_expect_str_eq(l.success_prefix, "https://app.example.test/app/");
  crawl__secrets *sec = crawl__secrets_new();
  crawl__login_secrets(&l, sec);
  char *t = crawl__secrets_scrub(sec, "typed alice@example.test and pa55-w0rd-xyz", NULL);
  cr_expect_str_eq(t, "typed [redacted] and [redacted]");
  free(t);
  crawl__secrets_free(sec);
  crawl_login_release(&l);
}

Test(login, recipe_refusals_name_the_place) {
  static const struct { const char *json, *want; } cases[] = {
    {RECIPE("hunter22"), "/steps/1/value must be one ${env:NAME}"},
    {RECIPE("${env:T_LOGIN_MISSING}"), "/steps/1/value needs the environment variable T_LOGIN_MISSING"},
    {"{\"steps\":[]}", "/url must be a string"},
    {"{\"url\":\"ftp://x/\",\"steps\":[]}", "/url must be an http(s) URL"},
    {"{\"url\":\"http://x/\",\"steps\":[]}", "/steps must be an array of 1 to 32 steps"},
    {"{\"url\":\"http://x/\",\"steps\":[{\"action\":\"ui.delete\",\"target\":{\"role\":\"button\",\"name\":\"x\"}}]}",
     "/steps/0/action must be ui.enterText or ui.activate"},
    {"{\"url\":\"http://x/\",\"steps\":[{\"action\":\"ui.activate\",\"target\":{\"role\":\"button\"}}]}",
     "/steps/0/target must name one element: stableId, role and name, role and ordinal, or css"},
    {"{\"url\":\"http://x/\",\"steps\":[{\"action\":\"ui.activate\",\"target\":{\"name\":\"Login\",\"ordinal\":0}}]}",
     "/steps/0/target must name one element"},
    {"{\"url\":\"http://x/\",\"steps\":[{\"action\":\"ui.activate\",\"target\":{\"role\":\"button\",\"ordinal\":-1}}]}",
     "/steps/0/target/ordinal must be a whole number 0..999"},
    {"{\"url\":\"http://x/\",\"steps\":[{\"action\":\"ui.activate\",\"target\":{\"role\":\"button\",\"ordinal\":1.5}}]}",
     "/steps/0/target/ordinal must be a whole number"},
    {"{\"url\":\"http://x/\",\"steps\":[{\"action\":\"ui.activate\",\"target\":{\"css\":\"\"}}]}",
     "/steps/0/target/css must be a non-empty string"},
    {"{\"url\":\"http://x/\",\"steps\":[{\"action\":\"ui.activate\",\"target\":{\"stableId\":7}}]}",
     "/steps/0/target/stableId must be a non-empty string"},
    {"{\"url\":\"http://x/\",\"steps\":[{\"action\":\"ui.activate\",\"target\":\"#login\"}]}",
     "/steps/0/target must be an object"},
    {"{\"url\":\"http://x/\",\"steps\":[{\"action\":\"ui.activate\",\"target\":{\"role\":\"b\",\"name\":\"x\"}}],"
     "\"success\":7}", "/success must be an object"},
    {"[]", "must be an object"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    crawl_login l;
    char err[300] = "";
    cr_expect_eq(parse(cases[i].json, &l, err), CRAWL_ARG, "case %zu refused", i);
    cr_expect(strstr(err, cases[i].want), "case %zu: \"%s\" says \"%s\"", i, err, cases[i].want);
    cr_expect(!strstr(err, "hunter22") && !strstr(err, "pa55"), "no value in: %s", err);
    crawl_login_release(&l);
  }
}

static const char plan[] =
  "{\"environment\":{\"environmentId\":\"e\",\"baseUrl\":\"http://x/\",\"principalProfiles\":["
  "{\"id\":\"owner\",\"roles\":[\"admin\"]},{\"id\":\"viewer\"},{\"id\":\"guest\"}],"
  "\"metadata\":{\"principals\":{\"owner\":{\"login\":" RECIPE("${env:T_LOGIN_PASS}") "},"
  "\"viewer\":{\"storageState\":\"viewer.json\"}}}}}";

Test(login, principals_from_the_plan) {
  cJSON *j = cJSON_Parse(plan);
  crawl_principal *v;
  size_t n;
  char err[300] = "";
  cr_assert_eq(crawl_principals_parse(j, NULL, &v, &n, err, sizeof err), CRAWL_OK, "%s", err);
  cr_assert_eq(n, 3);
  cr_expect_str_eq(v[0].id, "owner");
  cr_expect(v[0].login && v[0].login->nsteps == 3);
  cr_expect_str_eq(v[1].storage_state, "viewer.json");
  cr_expect(!v[1].login && !v[2].login && !v[2].storage_state);
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(v[0].profile, "id")), "owner");
  crawl_principals_free(v, n);
  const char *const pick[] = {"viewer", NULL};
  cr_assert_eq(crawl_principals_parse(j, pick, &v, &n, err, sizeof err), CRAWL_OK, "%s", err);
  cr_expect(n == 1 && !strcmp(v[0].id, "viewer"));
  crawl_principals_free(v, n);
  const char *const bad[] = {"nobody", NULL};
  cr_expect_eq(crawl_principals_parse(j, bad, &v, &n, err, sizeof err), CRAWL_ARG);
  cr_expect(strstr(err, "--principal nobody"), "%s", err);
  crawl_principals_free(v, n);
  cJSON_Delete(j);
}

Test(login, principals_with_a_missing_variable_refused) {
  unsetenv("T_LOGIN_PASS");
  cJSON *j = cJSON_Parse(plan);
  crawl_principal *v;
  size_t n;
  char err[300] = "";
  cr_expect_eq(crawl_principals_parse(j, NULL, &v, &n, err, sizeof err), CRAWL_ARG);
  cr_expect(strstr(err, "/environment/metadata/principals/owner/login/steps/1/value needs the environment variable "
                        "T_LOGIN_PASS"), "%s", err);
  crawl_principals_free(v, n);
  cJSON_Delete(j);
}

Test(login, access_classification) {
  pg_graph g = {0};
  g.route_title = "Billing";
  cr_expect_eq(crawl__access_classify(200, 0, &g), CRAWL__ACCESS_DIRECT);
  cr_expect_eq(crawl__access_classify(403, 0, &g), CRAWL__ACCESS_DENIED);
  cr_expect_eq(crawl__access_classify(200, 1, &g), CRAWL__ACCESS_DENIED, "sent to sign-in");
  g.route_title = "Access denied";
  cr_expect_eq(crawl__access_classify(200, 0, &g), CRAWL__ACCESS_DENIED, "the app's not-allowed page");
  cr_expect_str_eq(crawl__access_name(CRAWL__ACCESS_DIRECT), "direct");
  char key[64];
  crawl__access_route("http://127.0.0.1:8080/auth/app/users?x=1#top", key, sizeof key);
  cr_expect_str_eq(key, "/auth/app/users");
}

Test(login, sign_in_page_by_url_or_form) {
  crawl_login l;
  char err[300] = "";
  cr_assert_eq(parse(RECIPE("${env:T_LOGIN_PASS}"), &l, err), CRAWL_OK, "%s", err);
  cr_expect(crawl__login_page(&l, "https://app.example.test/login?next=/app", NULL));
  cr_expect(!crawl__login_page(&l, "https://app.example.test/app/", NULL));
  pg_element els[3] = {{.role = "textbox", .name = "Email"}, {.role = "textbox", .name = "Password"},
                       {.role = "button", .name = "Sign in"}};
  pg_graph g = {.elements = els, .nelements = 3};
  cr_expect(crawl__login_page(&l, "https://app.example.test/app/", &g), "the sign-in form where it was not");
  g.nelements = 2;
  cr_expect(!crawl__login_page(&l, "https://app.example.test/app/", &g));
  crawl_login_release(&l);
}

Test(login, principal_view_of_a_package) {
  static const char pkg[] =
    "{\"spec\":\"uiap.discovery\",\"environment\":{\"principalProfiles\":[{\"id\":\"owner\"},{\"id\":\"viewer\"}]},"
    "\"routeCatalog\":{\"routes\":[{\"routeId\":\"/\",\"metadata\":{\"principals\":[\"owner\",\"viewer\"]}},"
    "{\"routeId\":\"/users\",\"metadata\":{\"principals\":[\"owner\"]}},{\"routeId\":\"/plain\"}]},"
    "\"transitionGraph\":{\"states\":[{\"stateId\":\"a\",\"metadata\":{\"principal\":\"owner\"}},"
    "{\"stateId\":\"b\",\"metadata\":{\"principal\":\"owner\"}},{\"stateId\":\"c\",\"metadata\":{\"principal\":\"viewer\"}}],"
    "\"edges\":[{\"fromStateId\":\"a\",\"toStateId\":\"b\"}]}}";
  cJSON *p = cJSON_Parse(pkg);
  cJSON *v = crawl_package_principal_view(p, "viewer");
  cr_assert(v);
  char *t = cJSON_PrintUnformatted(v);
  cr_expect(strstr(t, "\"/\"") && strstr(t, "/plain") && !strstr(t, "/users"), "%s", t);
  cr_expect(strstr(t, "\"c\"") && !strstr(t, "\"a\"") && !strstr(t, "fromStateId"), "%s", t);
  free(t);
  cJSON_Delete(v);
  cr_expect_null(crawl_package_principal_view(p, "nobody"));
  cJSON_Delete(p);
}

/* A step's target resolves like any target (web 3.2, mapper 11.5): stable
 * id first, then role and name in scope, then role and ordinal; a CSS hint
 * alone needs the page (not here). Fields without labels: role + ordinal. */
Test(login, recipe_targets_resolve_in_order) {
  static const char recipe[] =
    "{\"url\":\"http://x/login\",\"steps\":["
    "{\"action\":\"ui.enterText\",\"target\":{\"role\":\"textbox\",\"ordinal\":0},\"value\":\"${env:T_LOGIN_USER}\"},"
    "{\"action\":\"ui.enterText\",\"target\":{\"role\":\"textbox\",\"ordinal\":1,\"css\":\"input[name=pass]\"},"
    "\"value\":\"${env:T_LOGIN_PASS}\"},"
    "{\"action\":\"ui.activate\",\"target\":{\"stableId\":\"go\",\"role\":\"button\",\"name\":\"Login\"}},"
    "{\"action\":\"ui.activate\",\"target\":{\"role\":\"button\",\"name\":\"Login\",\"scopeId\":\"Sign in\"}},"
    "{\"action\":\"ui.activate\",\"target\":{\"css\":\"form button\"}}]}";
  crawl_login l;
  char err[300] = "";
  cr_assert_eq(parse(recipe, &l, err), CRAWL_OK, "%s", err);
  cr_expect_eq(l.steps[0].ordinal, 0);
  cr_expect_null(l.steps[0].name);
  cr_expect_str_eq(l.steps[1].css, "input[name=pass]");
  cr_expect_str_eq(l.steps[2].stable_id, "go");
  cr_expect_str_eq(l.steps[3].scope, "Sign in");
  pg_scope scopes[2] = {{.scope_id = "sc_0", .parent = -1}, {.scope_id = "sc_1", .parent = 0, .name = "Sign in"}};
  pg_element els[5] = {
    {.role = "textbox", .name = "Search", .scope = 0},            /* the header's search field */
    {.role = "textbox", .scope = 1},                              /* user: no label */
    {.role = "textbox", .scope = 1, .input_type = "password"},    /* password: no label */
    {.role = "button", .name = "Login", .scope = 0},              /* another Login, outside the form */
    {.role = "button", .name = "Go", .stable_id = "go", .scope = 1},
  };
  pg_graph g = {.elements = els, .nelements = 5, .scopes = scopes, .nscopes = 2};
  const char *how = NULL;
  cr_expect_eq(crawl__login_target(&g, &l.steps[0], &how), &els[0], "ordinal 0 of the page's textboxes");
  cr_expect_str_eq(how, "role and ordinal");
  cr_expect_eq(crawl__login_target(&g, &l.steps[1], &how), &els[1]);
  cr_expect_eq(crawl__login_target(&g, &l.steps[2], &how), &els[4], "the stable id wins over role and name");
  cr_expect_str_eq(how, "stableId");
  cr_expect_null(crawl__login_target(&g, &l.steps[3], &how), "no Login button in scope Sign in");
  els[4].name = "Login";
  cr_expect_eq(crawl__login_target(&g, &l.steps[3], &how), &els[4], "the one in the scope, not the first");
  cr_expect_str_eq(how, "role and name");
  cr_expect_null(crawl__login_target(&g, &l.steps[4], &how), "a CSS hint alone is resolved on the page");
  /* the stable id gone: role and name take over */
  els[4].stable_id = NULL;
  cr_expect_eq(crawl__login_target(&g, &l.steps[2], &how), &els[3]);
  cr_expect_str_eq(how, "role and name");
  /* ordinal and scope: the first textbox of the form is the user field */
  free(l.steps[0].scope);
  l.steps[0].scope = strdup("sc_1");
  cr_expect_eq(crawl__login_target(&g, &l.steps[0], &how), &els[1], "ordinal within the scope");
  crawl_login_release(&l);
}

/* Two text fields and a button found by ordinal are a sign-in form only
 * with a password field on the page (a search form is not). */
Test(login, sign_in_page_by_ordinal_needs_a_password_field) {
  static const char recipe[] =
    "{\"url\":\"http://x/login\",\"steps\":["
    "{\"action\":\"ui.enterText\",\"target\":{\"role\":\"textbox\",\"ordinal\":0},\"value\":\"${env:T_LOGIN_USER}\"},"
    "{\"action\":\"ui.enterText\",\"target\":{\"role\":\"textbox\",\"ordinal\":1},\"value\":\"${env:T_LOGIN_PASS}\"},"
    "{\"action\":\"ui.activate\",\"target\":{\"role\":\"button\",\"ordinal\":0}}]}";
  crawl_login l;
  char err[300] = "";
  cr_assert_eq(parse(recipe, &l, err), CRAWL_OK, "%s", err);
  pg_element els[3] = {{.role = "textbox"}, {.role = "textbox"}, {.role = "button", .name = "Search"}};
  pg_graph g = {.elements = els, .nelements = 3};
  cr_expect(!crawl__login_page(&l, "http://x/home", &g), "a page with two fields and a button");
  els[1].input_type = "password";
  cr_expect(crawl__login_page(&l, "http://x/home", &g), "the sign-in form where it was not");
  crawl_login_release(&l);
}

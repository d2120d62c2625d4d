/* fuzz_plan.c -- libFuzzer target for crawl_plan_parse, the reader of
 * `crawl --plan FILE` (a DiscoveryPlanPayload or a uiap.discovery.plan
 * message; the file may come from anyone who can hand a plan to a CI job).
 * The input is the file's bytes. Besides "no crash, no leak, no undefined
 * behaviour" it checks what the function promises:
 *   - CRAWL_OK exactly when a plan comes back; otherwise CRAWL_ARG with a
 *     non-empty one-line reason, line/column set exactly for syntax errors,
 *     and the budgets and policy passed in left unchanged;
 *   - an accepted plan keeps what the caller set (a flag's budget, --mode),
 *     its budgets are >= 0, and it survives a round trip (printed and read
 *     again: accepted, same policy, the same budgets but for cJSON's
 *     rounding).
 * An accepted plan's principals and login recipes (crawl_principals_parse,
 * crawl_login_parse, ${env:NAME} expansion: FUZZ_USER and FUZZ_PASS are
 * set, anything else is missing) either come back, each with an id and
 * only ui.enterText steps carrying a value, or are refused with one line
 * that starts with a JSON path or names --principal and quotes no value.
 * Seeds: corpus/plan/ (principals-*.json); dictionary plan.dict. */
#include "crawl.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x) do { if (!(x)) abort(); } while (0)

static void check_error(const crawl_plan_error *e, const char *text) {
  CHECK(e->msg[0]);
  CHECK(!strchr(e->msg, '\n') && !strchr(e->msg, '\r'));
  int syntax = !strncmp(e->msg, "not valid JSON", 14);
  CHECK(syntax == (e->line > 0));
  if (!syntax) { CHECK(e->msg[0] == '/' && e->column == 0); return; }
  int lines = 1;
  for (const char *p = text; *p; p++) lines += *p == '\n';
  CHECK(e->line <= lines && e->column >= 1);
}

/* 0 if a budget of the plan is infinite (1e999). */
static int finite_budgets(const cJSON *plan) {
  const cJSON *pl = cJSON_GetObjectItemCaseSensitive(plan, "payload") ? cJSON_GetObjectItemCaseSensitive(plan, "payload") : plan;
  const cJSON *env = cJSON_GetObjectItemCaseSensitive(pl, "environment");
  const cJSON *x;
  cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(env, "budgets"))
    if (cJSON_IsNumber(x) && !isfinite(x->valuedouble)) return 0;
  return 1;
}

#define FUZZ_PASS "fuzz-pass-value"

/* The plan's principals and recipes: what crawl_principals_parse promises.
 * The environment's values never reach an error line -- unless the plan's
 * own text holds them (a key that equals the password is the plan's). */
static void check_principals(const cJSON *plan, const char *text, size_t size) {
  setenv("FUZZ_USER", "fuzz-user", 1);
  setenv("FUZZ_PASS", FUZZ_PASS, 1);
  const char *const pick[] = {"admin", NULL};
  crawl_principal *v = (crawl_principal *)1;
  size_t n = 99;
  char err[400] = "";
  crawl_code rc = crawl_principals_parse(plan, size & 4 ? pick : NULL, &v, &n, err, sizeof err);
  CHECK(rc == CRAWL_OK || rc == CRAWL_ARG);
  CHECK(v != (crawl_principal *)1 && (v || n == 0));
  if (rc) {
    CHECK(err[0] && !strchr(err, '\n') && (!strstr(err, FUZZ_PASS) || strstr(text, FUZZ_PASS)));
    CHECK(err[0] == '/' || !strncmp(err, "--principal ", 12));
  }
  for (size_t i = 0; rc == CRAWL_OK && i < n; i++) {
    CHECK(v[i].id && v[i].id[0] && v[i].profile);
    for (size_t k = 0; v[i].login && k < v[i].login->nsteps; k++) {
      const crawl_login_step *st = &v[i].login->steps[k];
      CHECK(st->action && st->role && st->name);
      CHECK((st->value != NULL) == !strcmp(st->action, "ui.enterText"));
    }
    CHECK(!v[i].login || !strncmp(v[i].login->url, "http", 4));
  }
  crawl_principals_free(v, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  CHECK(text);
  memcpy(text, data, size);
  text[size] = '\0';
  /* what the command line set before the plan is read, from the size */
  int keep_mode = size & 1;
  crawl_budget budget = {.max_depth = size & 2 ? 3 : 0};
  pol_policy policy = {.mode = keep_mode ? POL_MODE_OBSERVE_ONLY : POL_MODE_SAFE_EXPLORE};
  crawl_budget b = budget;
  pol_policy p = policy;
  cJSON *plan = (cJSON *)1;
  crawl_plan_error e;
  crawl_code rc = crawl_plan_parse(text, keep_mode, &b, &p, &plan, &e);
  CHECK((rc == CRAWL_OK) == (plan != NULL));
  if (rc != CRAWL_OK) {
    CHECK(rc == CRAWL_ARG);
    check_error(&e, text);
    CHECK(!memcmp(&b, &budget, sizeof b) && !memcmp(&p, &policy, sizeof p));
    free(text);
    return 0;
  }
  CHECK(e.line == 0 && e.msg[0] == '\0');
  if (budget.max_depth) CHECK(b.max_depth == budget.max_depth);
  if (keep_mode) CHECK(p.mode == policy.mode);
  const long *v = (const long *)&b;
  for (size_t i = 0; i < sizeof b / sizeof *v; i++) CHECK(v[i] >= 0);
  /* the browser it asks for: a viewport in range, a locale of tag bytes */
  int w = 0, h = 0;
  const char *loc = NULL;
  if (crawl_plan_browser(plan, &w, &h, &loc, &e) == CRAWL_OK) {
    CHECK((w == 0) == (h == 0) && (w == 0 || (w >= 100 && w <= 10000 && h >= 100 && h <= 10000)));
    CHECK(!loc || (strlen(loc) >= 2 && strlen(loc) <= 35 && strspn(loc, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                   "abcdefghijklmnopqrstuvwxyz0123456789-_") == strlen(loc)));
  } else {
    check_error(&e, text);
  }
  memset(&e, 0, sizeof e);
  /* its feature flags: applied or refused with a reason, nothing secret */
  crawl_session fs = {0};
  char q[512];
  if (crawl_plan_feature_flags(plan, &fs, q, sizeof q, &e) == CRAWL_OK) {
    CHECK(strlen(q) < sizeof q && !crawl_session_any(&fs));
  } else {
    check_error(&e, text);
  }
  crawl_session_release(&fs);
  memset(&e, 0, sizeof e);
  check_principals(plan, text, size);

  /* round trip: what we accepted, printed, is accepted the same way (but
   * cJSON prints a budget of 1e999, infinity, as null) */
  if (!finite_budgets(plan)) goto done;
  char *again = cJSON_PrintUnformatted(plan);
  CHECK(again);
  crawl_budget b2 = budget;
  pol_policy p2 = policy;
  cJSON *plan2 = NULL;
  CHECK(crawl_plan_parse(again, keep_mode, &b2, &p2, &plan2, NULL) == CRAWL_OK);
  CHECK(!memcmp(&p, &p2, sizeof p));
  /* cJSON prints doubles to within an ulp, not exactly: 2.9999999999999996
   * comes back as 3 */
  const long *v2 = (const long *)&b2;
  for (size_t i = 0; i < sizeof b / sizeof *v; i++)
    CHECK(fabs((double)v[i] - (double)v2[i]) <= 1 + fabs((double)v[i]) * 1e-14);
  cJSON_Delete(plan2);
  free(again);
done:
  cJSON_Delete(plan);
  free(text);
  return 0;
}

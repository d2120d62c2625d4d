/* forms.c -- end-to-end: form drafts in sandbox_write (issue #27 section 3;
 * docs/forms.md), in real headless Chromium on fixtures/signup, a sign-up
 * form with constraints (e-mail, phone pattern, numbers with min/max/step,
 * a date with min, URL, postal-code pattern, select, radio group, required
 * terms box, optional newsletter box, hidden honeypot) that posts to
 * /__test/signup, which validates every field again (test_signup.c).
 *  - sandbox_write with the plan's allow flags permitting the "Sign up"
 *    submit: the server accepts exactly one submission, with synthetic
 *    values; the submit with a required field left empty records the
 *    form's validation (validation.changed, the invalid fields); the
 *    workflow candidate's requiredInputs are the fields filled.
 *  - safe_explore with the same flags: nothing typed, nothing posted. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#define FLAGS "\"allowAuthFlows\":true,\"allowDestructiveActions\":true"

typedef struct crawl_res {
  char *dir;
  char out[700];
  t_run run;
  cJSON *pkg;
  long signup_hits;   /* requests to /__test/signup during the crawl */
  char hits[1024];
} crawl_res;

static void crawl_signup_with(crawl_res *r, const char *mode, const char *extra) {
  memset(r, 0, sizeof *r);
  r->dir = t_tmpdir();
  char safety[256];
  snprintf(safety, sizeof safety, "\"safety\":{\"defaultMode\":\"%s\"," FLAGS "}", mode);
  const char *plan = t_plan_write(r->dir, safety, "/signup/index.html");
  snprintf(r->out, sizeof r->out, "%s/out", r->dir);
  cJSON *before = t_fixture_hit_table();
  const char *argv[] = {UIAP_BIN, "crawl", "--plan", plan, "--max-states", "12", "--max-runtime-ms", "90000",
                        "-o", r->out, extra, extra ? "pii" : NULL, NULL};
  r->run = t_run_argv(argv, 150000);
  usleep(200000);
  r->signup_hits = t_fixture_hits_since(before, "/__test/signup", r->hits, sizeof r->hits);
  cJSON_Delete(before);
  cr_expect_eq(r->run.status, 0, "crawl (%s) exit %d: %s", mode, r->run.status, r->run.err);
  char pkg[800], msg[4096];
  snprintf(pkg, sizeof pkg, "%s/package.json", r->out);
  r->pkg = t_package_read(pkg);
  cr_assert(r->pkg, "no package: %s", r->run.err);
  cr_expect_eq(t_validate("DiscoveryPackage", pkg, msg, sizeof msg), 0, "the package validates: %s", msg);
}

static void crawl_signup(crawl_res *r, const char *mode) { crawl_signup_with(r, mode, NULL); }

static void crawl_done(crawl_res *r) {
  cJSON_Delete(r->pkg);
  t_run_free(&r->run);
  if (getenv("UIAP_FORMS_KEEP")) fprintf(stderr, "kept %s\n", r->out); /* to look at a failure */
  else t_rm_rf(r->dir);
  free(r->dir);
}

/* The journal's transitions whose args.draft.mode is mode. */
static cJSON *drafts(const crawl_res *r, const char *mode) {
  cJSON *all = t_journal_records(r->out, "transition"), *out = cJSON_CreateArray();
  const cJSON *t;
  cJSON_ArrayForEach(t, all) {
    const char *m = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "args"), "draft"), "mode"));
    if (m && !strcmp(m, mode)) cJSON_AddItemToArray(out, cJSON_Duplicate(t, 1));
  }
  cJSON_Delete(all);
  return out;
}

static int has_signal(const cJSON *t, const char *kind) {
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItem(t, "observedSignals")) {
    const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(s, "kind"));
    if (k && !strcmp(k, kind)) return 1;
  }
  return 0;
}

/* The requiredInputs entry named name of the first candidate that has one. */
static const cJSON *input_named(const cJSON *pkg, const char *name) {
  const cJSON *w, *p;
  cJSON_ArrayForEach(w, cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "workflowCandidates"), "workflows"))
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(w, "requiredInputs")) {
      const char *n = cJSON_GetStringValue(cJSON_GetObjectItem(p, "name"));
      if (n && !strcmp(n, name)) return p;
    }
  return NULL;
}

Test(forms, sandbox_write_fills_submits_and_records_validation, .timeout = 200) {
  crawl_res r;
  crawl_signup(&r, "sandbox_write");
  char *log = t_fixture_get(0, "/__test/signup/log");
  cJSON *lj = log ? cJSON_Parse(log) : NULL;
  free(log);
  cr_assert(lj, "the signup log");
  const cJSON *acc = cJSON_GetObjectItem(lj, "accepted");
  cr_expect_eq(cJSON_GetArraySize(acc), 1, "one accepted submission (requests: %s; rejected %d)", r.hits,
               (int)cJSON_GetNumberValue(cJSON_GetObjectItem(lj, "rejected")));
  const char *body = cJSON_GetStringValue(cJSON_GetArrayItem(acc, 0));
  if (body) {
    static const char *const synthetic[] = {"email=uiap.draft%40example.invalid", "phone=555-0100", "postal=12345",
                                            "full_name=Uiap+Draft", "terms=yes", "start=2031-02-01"};
    for (size_t i = 0; i < sizeof synthetic / sizeof *synthetic; i++)
      cr_expect(strstr(body, synthetic[i]), "the accepted body has %s: %s", synthetic[i], body);
    cr_expect(!strstr(body, "newsletter="), "the optional newsletter box stayed unticked: %s", body);
    const char *hp = strstr(body, "company_url=");
    cr_expect(hp && (hp[12] == '&' || !hp[12]), "the hidden honeypot stayed empty: %s", body);
  }
  cJSON_Delete(lj);

  cJSON *valid = drafts(&r, "valid"), *empty = drafts(&r, "required_empty");
  cr_expect_geq(cJSON_GetArraySize(valid), 1, "a transition records the filled submit");
  cr_expect_geq(cJSON_GetArraySize(empty), 1, "a transition records the submit with a required field left empty");
  const cJSON *e = cJSON_GetArrayItem(empty, 0);
  if (e) {
    const cJSON *d = cJSON_GetObjectItem(cJSON_GetObjectItem(e, "args"), "draft");
    const char *left = cJSON_GetStringValue(cJSON_GetObjectItem(d, "leftEmpty"));
    cr_expect(left && *left, "it names the field left empty");
    cr_expect_geq(cJSON_GetArraySize(cJSON_GetObjectItem(d, "invalidFields")), 1,
                  "the browser held the form back: the invalid field is recorded");
    cr_expect(has_signal(e, "validation.changed"), "the page marked the field invalid: validation.changed");
    const char *from = cJSON_GetStringValue(cJSON_GetObjectItem(e, "fromStateId"));
    const cJSON *sigs = cJSON_GetObjectItem(e, "observedSignals");
    cr_expect(from && !has_signal(e, "route.changed"), "the invalid submit stays on the form: %s",
              sigs ? cJSON_PrintUnformatted(sigs) : "");
  }
  cJSON_Delete(valid);
  cJSON_Delete(empty);

  /* requiredInputs from the fields filled, with their constraints */
  const cJSON *email = input_named(r.pkg, "email"), *age = input_named(r.pkg, "age"), *plan = input_named(r.pkg, "plan"),
              *phone = input_named(r.pkg, "phone"), *terms = input_named(r.pkg, "terms");
  cr_assert(email && age && plan && phone && terms, "requiredInputs name the fields filled");
  cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(email, "required")));
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(age, "type")), "number");
  const char *ad = cJSON_GetStringValue(cJSON_GetObjectItem(age, "description"));
  cr_expect(ad && strstr(ad, "min 18") && strstr(ad, "max 120"), "age's constraints: %s", ad ? ad : "(none)");
  const char *pd = cJSON_GetStringValue(cJSON_GetObjectItem(phone, "description"));
  cr_expect(pd && strstr(pd, "pattern [0-9]{3}-[0-9]{4}"), "phone's pattern: %s", pd ? pd : "(none)");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(plan, "type")), "enum");
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(plan, "enum")), 2, "the plan's two options");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(terms, "type")), "boolean");
  cr_expect(!input_named(r.pkg, "company_url"), "the honeypot is no input");
  crawl_done(&r);
}

Test(forms, safe_explore_types_nothing_and_posts_nothing, .timeout = 200) {
  crawl_res r;
  crawl_signup(&r, "safe_explore");
  cr_expect_eq(r.signup_hits, 0, "nothing reached /__test/signup: %s", r.hits);
  cJSON *all = t_journal_records(r.out, "transition");
  const cJSON *t;
  int typed = 0, drafted = 0;
  cJSON_ArrayForEach(t, all) {
    const char *via = cJSON_GetStringValue(cJSON_GetObjectItem(t, "viaActionId"));
    typed += via && !strcmp(via, "ui.enterText");
    drafted += cJSON_GetObjectItem(cJSON_GetObjectItem(t, "args"), "draft") != NULL;
  }
  cr_expect_eq(typed, 0, "no text typed in safe_explore");
  cr_expect_eq(drafted, 0, "no form filled in safe_explore");
  cJSON_Delete(all);
  crawl_done(&r);
}

/* --redact pii: the draft's e-mail address and phone number are masked in
 * the journal and the package like any personal data the page shows (they
 * are synthetic, but a reader cannot tell). */
Test(forms, redact_pii_masks_the_draft_values, .timeout = 200) {
  crawl_res r;
  crawl_signup_with(&r, "sandbox_write", "--redact");
  cJSON *valid = drafts(&r, "valid");
  cr_expect_geq(cJSON_GetArraySize(valid), 1, "the draft ran");
  cJSON_Delete(valid);
  static const char *const values[] = {"uiap.draft@example.invalid", "555-0100", NULL};
  char found[1024] = "";
  cr_expect_eq(t_tree_grep(r.out, values, found, sizeof found), 0, "no e-mail or phone value in the output: %s", found);
  crawl_done(&r);
}

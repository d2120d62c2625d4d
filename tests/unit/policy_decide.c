/* policy_decide.c -- pol_decide: the mode x class table, allow flags,
 * opaque boundaries, data-uiap-risk blocked/confirm, reasons and the
 * human sentence; the name tables; the redaction helpers. */
#include <criterion/criterion.h>
#include <string.h>

#include "pol.h"

static pol_decision decide_class(pol_policy p, pol_side_effect se, pol_risk_level risk,
                                 pol_data_class dc)
{
  pol_classification c = {.side_effect = se, .risk = risk, .data_class = dc};
  strcpy(c.rule, "test.rule");
  pol_decision d;
  cr_assert_eq(pol_decide(&p, NULL, &c, &d), POL_OK);
  return d;
}

/* The expected table, written out independently of decide.c:
 * A allow, S skip, R review, D deny; one string per mode, classes in enum
 * order (none read navigation local_ui draft reversible_write write
 * external_effect destructive billing_change security_change irreversible
 * unknown). */
static const struct { pol_mode mode; const char *row; } table[] = {
  {POL_MODE_OBSERVE_ONLY,  "ASSSSSSDDDDDR"},
  {POL_MODE_SAFE_EXPLORE,  "AAAASSSDDDDDR"},
  {POL_MODE_SANDBOX_WRITE, "AAAAAARDDDDDR"},
};

static char letter(pol_effect e) { return "ASRD"[e]; }

Test(policy_decide, mode_table)
{
  for (size_t m = 0; m < sizeof table / sizeof table[0]; m++)
    for (int se = 0; se < POL__SE_COUNT; se++) {
      pol_decision d = decide_class((pol_policy){.mode = table[m].mode}, se,
                                    POL_RISK_NONE, POL_DC_NONE);
      cr_expect_eq(letter(d.effect), table[m].row[se], "%s x %s: got %c (%s)",
                   pol_mode_name(table[m].mode), pol_side_effect_name(se),
                   letter(d.effect), d.text);
    }
}

Test(policy_decide, zero_policy_is_safe_explore)
{
  pol_policy zero = {0};
  cr_assert_eq(zero.mode, POL_MODE_SAFE_EXPLORE);
  pol_classification c = {.side_effect = POL_SE_LOCAL_UI};
  pol_decision d1, d2;
  pol_decide(NULL, NULL, &c, &d1);
  pol_decide(&zero, NULL, &c, &d2);
  cr_assert_eq(d1.effect, POL_EFFECT_ALLOW);
  cr_assert_eq(d2.effect, POL_EFFECT_ALLOW);
  c.side_effect = POL_SE_WRITE;
  pol_decide(NULL, NULL, &c, &d1);
  cr_assert_eq(d1.effect, POL_EFFECT_SKIP);
}

Test(policy_decide, reasons)
{
  static const struct { pol_side_effect se; pol_data_class dc; pol_reason r; } rs[] = {
    {POL_SE_LOCAL_UI, POL_DC_NONE, POL_REASON_SAFE},
    {POL_SE_NAVIGATION, POL_DC_NONE, POL_REASON_SAFE},
    {POL_SE_WRITE, POL_DC_NONE, POL_REASON_MANUAL_ONLY},
    {POL_SE_DRAFT, POL_DC_NONE, POL_REASON_MANUAL_ONLY},
    {POL_SE_UNKNOWN, POL_DC_NONE, POL_REASON_UNKNOWN_SIDE_EFFECT},
    {POL_SE_EXTERNAL_EFFECT, POL_DC_NONE, POL_REASON_EXTERNAL_EFFECT},
    {POL_SE_DESTRUCTIVE, POL_DC_NONE, POL_REASON_DESTRUCTIVE},
    {POL_SE_IRREVERSIBLE, POL_DC_NONE, POL_REASON_DESTRUCTIVE},
    {POL_SE_BILLING_CHANGE, POL_DC_NONE, POL_REASON_PAYMENT},
    {POL_SE_BILLING_CHANGE, POL_DC_PAYMENT, POL_REASON_PAYMENT},
    {POL_SE_SECURITY_CHANGE, POL_DC_NONE, POL_REASON_SECURITY_SENSITIVE},
    {POL_SE_SECURITY_CHANGE, POL_DC_CREDENTIAL, POL_REASON_CREDENTIAL},
    {POL_SE_SECURITY_CHANGE, POL_DC_SECRET, POL_REASON_CREDENTIAL},
  };
  for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++) {
    pol_decision d = decide_class((pol_policy){0}, rs[i].se, POL_RISK_NONE, rs[i].dc);
    cr_expect_eq(d.reason, rs[i].r, "%s/%s: got %s", pol_side_effect_name(rs[i].se),
                 pol_data_class_name(rs[i].dc), pol_reason_name(d.reason));
  }
  /* a skip of a safe class in observe_only is manual_only, not "safe" */
  pol_decision d = decide_class((pol_policy){.mode = POL_MODE_OBSERVE_ONLY}, POL_SE_LOCAL_UI,
                                POL_RISK_NONE, POL_DC_NONE);
  cr_assert_eq(d.effect, POL_EFFECT_SKIP);
  cr_assert_eq(d.reason, POL_REASON_MANUAL_ONLY);
}

/* The allow flags lift a deny in sandbox_write only: safe_explore runs only
 * reversible, non-destructive, non-external actions (mapper section 8), and
 * observe_only nothing that activates. */
static const struct { pol_side_effect se; pol_policy p; const char *flag; } lifts[] = {
  {POL_SE_DESTRUCTIVE, {.allow_destructive_actions = 1}, "allowDestructiveActions"},
  {POL_SE_IRREVERSIBLE, {.allow_destructive_actions = 1}, "allowDestructiveActions"},
  {POL_SE_BILLING_CHANGE, {.allow_payment_flows = 1}, "allowPaymentFlows"},
  {POL_SE_SECURITY_CHANGE, {.allow_auth_flows = 1}, "allowAuthFlows"},
  {POL_SE_EXTERNAL_EFFECT, {.allow_external_effects = 1}, "allowExternalEffects"},
};

Test(policy_decide, allow_flags_lift_a_deny_in_sandbox_write)
{
  for (size_t i = 0; i < sizeof lifts / sizeof lifts[0]; i++) {
    pol_policy p = lifts[i].p;
    p.mode = POL_MODE_SANDBOX_WRITE;
    const char *se = pol_side_effect_name(lifts[i].se);
    pol_decision d = decide_class(p, lifts[i].se, POL_RISK_NONE, POL_DC_NONE);
    cr_expect_eq(d.effect, POL_EFFECT_ALLOW, "%s in sandbox_write with its flag: %s", se, d.text);
    cr_expect(strstr(d.text, lifts[i].flag), "the sentence names the flag: %s", d.text);
    /* the flag of another class does not help */
    pol_policy other = {.mode = POL_MODE_SANDBOX_WRITE,
                        .allow_destructive_actions = !p.allow_destructive_actions,
                        .allow_payment_flows = !p.allow_payment_flows,
                        .allow_auth_flows = !p.allow_auth_flows,
                        .allow_external_effects = !p.allow_external_effects};
    d = decide_class(other, lifts[i].se, POL_RISK_NONE, POL_DC_NONE);
    cr_expect_eq(d.effect, POL_EFFECT_DENY, "%s in sandbox_write with other flags", se);
  }
}

Test(policy_decide, allow_flags_change_nothing_in_safe_explore_or_observe_only)
{
  static const pol_mode modes[] = {POL_MODE_SAFE_EXPLORE, POL_MODE_OBSERVE_ONLY};
  for (size_t i = 0; i < sizeof lifts / sizeof lifts[0]; i++)
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
      pol_policy p = lifts[i].p;
      p.mode = modes[m];
      const char *se = pol_side_effect_name(lifts[i].se), *mn = pol_mode_name(modes[m]);
      pol_decision d = decide_class(p, lifts[i].se, POL_RISK_NONE, POL_DC_NONE);
      cr_expect_eq(d.effect, POL_EFFECT_DENY, "%s in %s with its flag: %s", se, mn, d.text);
      cr_expect_neq(d.reason, POL_REASON_SAFE);
      cr_expect(strstr(d.text, lifts[i].flag) && strstr(d.text, "sandbox_write only"),
                "the sentence says the flag is ignored here: %s", d.text);
    }
  /* the zero mode is safe_explore: every flag set still denies */
  pol_policy all = {.allow_destructive_actions = 1, .allow_payment_flows = 1,
                    .allow_auth_flows = 1, .allow_external_effects = 1};
  for (size_t i = 0; i < sizeof lifts / sizeof lifts[0]; i++)
    cr_expect_eq(decide_class(all, lifts[i].se, POL_RISK_NONE, 0).effect, POL_EFFECT_DENY,
                 "%s, all flags, safe_explore", pol_side_effect_name(lifts[i].se));
  /* No flag makes unknown or write executable in safe_explore. */
  cr_assert_eq(decide_class(all, POL_SE_UNKNOWN, POL_RISK_NONE, 0).effect, POL_EFFECT_REVIEW);
  cr_assert_eq(decide_class(all, POL_SE_WRITE, POL_RISK_NONE, 0).effect, POL_EFFECT_SKIP);
  /* a classified subject end to end: "Delete" with every flag, per mode */
  pol_subject s = {.role = "button", .name = "Delete project"};
  pol_classification c;
  pol_classify(&s, &c);
  pol_decision d;
  pol_decide(&all, &s, &c, &d);
  cr_assert_eq(d.effect, POL_EFFECT_DENY, "%s", d.text);
  all.mode = POL_MODE_SANDBOX_WRITE;
  pol_decide(&all, &s, &c, &d);
  cr_assert_eq(d.effect, POL_EFFECT_ALLOW, "%s", d.text);
}

Test(policy_decide, blocked_is_always_denied)
{
  pol_policy all = {.mode = POL_MODE_SANDBOX_WRITE, .allow_destructive_actions = 1,
                    .allow_payment_flows = 1, .allow_auth_flows = 1, .allow_external_effects = 1};
  for (int se = 0; se < POL__SE_COUNT; se++) {
    pol_decision d = decide_class(all, se, POL_RISK_BLOCKED, POL_DC_NONE);
    cr_expect_eq(d.effect, POL_EFFECT_DENY, "%s blocked", pol_side_effect_name(se));
    cr_expect_neq(d.reason, POL_REASON_SAFE);
  }
  pol_subject s = {.role = "button", .name = "Purge cache", .risk = "blocked"};
  pol_classification c;
  pol_classify(&s, &c);
  pol_decision d;
  pol_decide(&all, &s, &c, &d);
  cr_assert_eq(d.effect, POL_EFFECT_DENY);
  cr_assert_eq(d.reason, POL_REASON_DESTRUCTIVE);
  cr_assert(strstr(d.text, "blocked"), "%s", d.text);
}

Test(policy_decide, confirm_needs_review)
{
  pol_decision d = decide_class((pol_policy){.mode = POL_MODE_SANDBOX_WRITE}, POL_SE_LOCAL_UI,
                                POL_RISK_CONFIRM, POL_DC_NONE);
  cr_assert_eq(d.effect, POL_EFFECT_REVIEW);
  cr_assert_eq(d.reason, POL_REASON_MANUAL_ONLY);
  d = decide_class((pol_policy){0}, POL_SE_DESTRUCTIVE, POL_RISK_CONFIRM, POL_DC_NONE);
  cr_assert_eq(d.effect, POL_EFFECT_DENY, "confirm never softens a deny");
  d = decide_class((pol_policy){.mode = POL_MODE_SANDBOX_WRITE, .allow_destructive_actions = 1},
                   POL_SE_DESTRUCTIVE, POL_RISK_CONFIRM, POL_DC_NONE);
  cr_assert_eq(d.effect, POL_EFFECT_REVIEW, "a flag-allowed confirm action still needs a human");
}

Test(policy_decide, opaque_boundary)
{
  pol_subject s = {.role = "button", .name = "Open details", .aria_haspopup = "dialog",
                   .in_opaque = 1};
  pol_classification c;
  pol_classify(&s, &c);
  cr_assert_eq(c.side_effect, POL_SE_LOCAL_UI);
  pol_policy all = {.mode = POL_MODE_SANDBOX_WRITE, .allow_external_effects = 1};
  pol_decision d;
  pol_decide(&all, &s, &c, &d);
  cr_assert_eq(d.effect, POL_EFFECT_DENY);
  cr_assert_eq(d.reason, POL_REASON_OPAQUE_BOUNDARY);
  cr_assert_str_eq(pol_reason_name(d.reason), "opaque_boundary");
}

Test(policy_decide, sentence_holds_no_page_text)
{
  pol_subject s = {.role = "button", .name = "Delete customer Jane Roe 4111", .context = "Secret area"};
  pol_classification c;
  pol_classify(&s, &c);
  pol_decision d;
  pol_decide(NULL, &s, &c, &d);
  cr_assert(strstr(d.text, "lexicon.en.delete"), "%s", d.text);
  cr_assert(strstr(d.text, "allowDestructiveActions"), "%s", d.text);
  cr_assert_null(strstr(d.text, "Jane"), "%s", d.text);
  cr_assert_null(strstr(d.text, "4111"), "%s", d.text);
  cr_assert(!strncmp(d.text, "deny:", 5), "%s", d.text);
}

Test(policy_decide, bad_arguments)
{
  pol_decision d;
  cr_assert_eq(pol_decide(NULL, NULL, NULL, &d), POL_ARG);
  cr_assert_eq(d.effect, POL_EFFECT_DENY, "failure never reads as allow");
  pol_classification c = {.side_effect = 99};
  cr_assert_eq(pol_decide(NULL, NULL, &c, &d), POL_OK);
  cr_assert_eq(d.effect, POL_EFFECT_REVIEW, "out-of-range class is unknown");
  pol_policy p = {.mode = 42};
  c.side_effect = POL_SE_LOCAL_UI;
  pol_decide(&p, NULL, &c, &d);
  cr_assert_eq(d.effect, POL_EFFECT_SKIP, "out-of-range mode is observe_only");
}

Test(policy_names, spec_strings_round_trip)
{
  static const char *const se[] = {"none", "read", "navigation", "local_ui", "draft",
    "reversible_write", "write", "external_effect", "destructive", "billing_change",
    "security_change", "irreversible", "unknown"};
  cr_assert_eq(sizeof se / sizeof se[0], POL__SE_COUNT);
  for (int i = 0; i < POL__SE_COUNT; i++) {
    pol_side_effect v = POL_SE_NONE;
    cr_expect_str_eq(pol_side_effect_name(i), se[i]);
    cr_expect_eq(pol_side_effect_parse(se[i], &v), POL_OK);
    cr_expect_eq((int)v, i);
  }
  pol_side_effect v = POL_SE_READ;
  cr_assert_eq(pol_side_effect_parse("Local_UI", &v), POL_PARSE);
  cr_assert_eq(pol_side_effect_parse(NULL, &v), POL_PARSE);
  cr_assert_eq(v, POL_SE_READ, "untouched on error");
  cr_assert_str_eq(pol_side_effect_name(POL__SE_COUNT), "?");

  static const char *const ef[] = {"allow", "skip", "review", "deny"};
  for (int i = 0; i < POL__EFFECT_COUNT; i++)
    cr_expect_str_eq(pol_effect_name(i), ef[i]);
  static const char *const rn[] = {"safe", "unknown_side_effect", "destructive",
    "external_effect", "credential", "payment", "security_sensitive", "budget_exceeded",
    "opaque_boundary", "manual_only"};
  cr_assert_eq(sizeof rn / sizeof rn[0], POL__REASON_COUNT);
  for (int i = 0; i < POL__REASON_COUNT; i++)
    cr_expect_str_eq(pol_reason_name(i), rn[i]);
  static const char *const dc[] = {"none", "pii", "credential", "secret", "payment",
    "financial", "contact", "free_text"};
  for (int i = 0; i < POL__DC_COUNT; i++)
    cr_expect_str_eq(pol_data_class_name(i), dc[i]);
  pol_mode m;
  cr_assert_eq(pol_mode_parse("observe_only", &m), POL_OK);
  cr_assert_eq(m, POL_MODE_OBSERVE_ONLY);
  cr_assert_eq(pol_mode_parse("sandbox_write", &m), POL_OK);
  cr_assert_eq(m, POL_MODE_SANDBOX_WRITE);
  cr_assert_eq(pol_mode_parse("yolo", &m), POL_PARSE);
  cr_assert_str_eq(pol_mode_name(POL_MODE_SAFE_EXPLORE), "safe_explore");
  cr_assert_str_eq(pol_strerror(POL_OK), "ok");
  cr_assert_str_eq(pol_strerror(POL_PARSE), "unknown name");
}

Test(policy_redact, sensitive_fields)
{
  static const struct { pol_subject s; int want; pol_data_class dc; } cs[] = {
    {{.input_type = "password"}, 1, POL_DC_CREDENTIAL},
    {{.input_type = "PASSWORD"}, 1, POL_DC_CREDENTIAL},
    {{.sensitive = "true"}, 1, POL_DC_SECRET},
    {{.sensitive = ""}, 1, POL_DC_SECRET},
    {{.sensitive = "false"}, 0, POL_DC_NONE},
    {{.autocomplete = "cc-number"}, 1, POL_DC_PAYMENT},
    {{.autocomplete = "billing cc-csc"}, 1, POL_DC_PAYMENT},
    {{.autocomplete = "one-time-code"}, 1, POL_DC_SECRET},
    {{.autocomplete = "current-password"}, 1, POL_DC_CREDENTIAL},
    {{.autocomplete = "new-password"}, 1, POL_DC_CREDENTIAL},
    {{.autocomplete = "email"}, 0, POL_DC_CONTACT},
    {{.input_type = "email"}, 0, POL_DC_CONTACT},
    {{.autocomplete = "given-name"}, 0, POL_DC_PII},
    {{.autocomplete = "address-line1"}, 0, POL_DC_PII},
    {{.autocomplete = "transaction-amount"}, 0, POL_DC_FINANCIAL},
    {{.autocomplete = "occ-number"}, 0, POL_DC_NONE},
    {{.tag = "TEXTAREA"}, 0, POL_DC_FREE_TEXT},
    {{.input_type = "text", .autocomplete = "off"}, 0, POL_DC_NONE},
  };
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
    cr_expect_eq(pol_is_sensitive_field(&cs[i].s), cs[i].want, "case %zu", i);
    cr_expect_eq(pol_subject_data_class(&cs[i].s), cs[i].dc, "case %zu: %s", i,
                 pol_data_class_name(pol_subject_data_class(&cs[i].s)));
  }
  cr_assert_eq(pol_is_sensitive_field(NULL), 0);
}

Test(policy_redact, mask)
{
  cr_assert_str_eq(pol_mask(), "\u2022\u2022\u2022\u2022");
  cr_assert_eq(strlen(pol_mask()), 12);
  cr_assert_eq(pol_mask(), pol_mask(), "static");
}

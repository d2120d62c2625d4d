/* policy_urls.c -- what a URL's words say it does (pol_url_intent), the
 * one reading shared by links, form submissions and the crawler's network
 * guard; form submissions by their effective method and URL whatever the
 * button says; autocomplete tokens in any letter case. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg.h"
#include "pol.h"

#define O "http://127.0.0.1:8000"

Test(policy_urls, url_intent)
{
  static const struct { const char *url, *se, *rule; } cs[] = {
    {O "/logout", "security_change", "url.logout"},
    {O "/account/signout", "security_change", "url.logout"},
    {O "/users/sign-out?next=/", "security_change", "url.logout"},
    {"/api/doLogout", "security_change", "url.logout"},
    {O "/konto/abmelden", "security_change", "url.logout"},
    {O "/l%6Fgout", "security_change", "url.logout"},          /* the server decodes it */
    {O "/items/3/delete", "destructive", "url.delete"},
    {O "/items/3?action=delete", "destructive", "url.delete"},
    {O "/items/delete?all=1", "destructive", "url.delete"},
    {O "/projects/7/destroy", "destructive", "url.destroy"},
    {O "/cart/remove/9", "destructive", "url.remove"},
    {O "/eintrag/loeschen", "destructive", "url.loeschen"},
    {O "/eintrag/l%C3%B6schen", "destructive", "url.loeschen"},
    {O "/newsletter/unsubscribe", "billing_change", "url.unsubscribe"},
    {O "/account/cancel-subscription", "billing_change", "url.cancel_subscription"},
    {O "/billing/cancelSubscription", "billing_change", "url.cancel_subscription"},
    {O "/vertrag/kuendigen", "billing_change", "url.kuendigen"},
    {O "/items?page=2", "none", "url.none"},
    {O "/deleted-items", "none", "url.none"},                  /* a view, not a verb */
    {O "/", "none", "url.none"},
    {"#/r2", "none", "url.none"},
  };
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
    pol_classification c;
    pol_side_effect se = pol_url_intent(cs[i].url, &c);
    cr_expect_eq(se, c.side_effect);
    cr_expect(!strcmp(pol_side_effect_name(se), cs[i].se) && !strcmp(c.rule, cs[i].rule),
              "%s: %s/%s, want %s/%s", cs[i].url, pol_side_effect_name(se), c.rule, cs[i].se, cs[i].rule);
    cr_expect_str_eq(c.where, "url");
    if (se != POL_SE_NONE)
      cr_expect(c.explain && strstr(c.explain, "the URL it requests"), "%s: %s", cs[i].url, c.explain);
  }
  cr_assert_eq(pol_url_intent(NULL, NULL), POL_SE_NONE);
  cr_assert_eq(pol_url_intent(O "/logout", NULL), POL_SE_SECURITY_CHANGE, "out may be NULL");
}

Test(policy_urls, long_urls_hide_nothing)
{
  /* padding past the lexicon's 512-byte window: the word is still read */
  static char url[POL_URL_MAX + 64];
  snprintf(url, sizeof url, O "/x/%0*d/delete", 3000, 0);
  pol_classification c;
  cr_assert_eq(pol_url_intent(url, &c), POL_SE_DESTRUCTIVE, "%s", c.rule);
  /* longer than anything read: unknown, unless the part read names worse */
  memset(url, 'a', sizeof url - 1);
  memcpy(url, O "/", strlen(O "/"));
  url[sizeof url - 1] = 0;
  cr_assert_eq(pol_url_intent(url, &c), POL_SE_UNKNOWN);
  cr_assert_str_eq(c.rule, "url.too_long");
  memcpy(url + strlen(O "/"), "logout/", 7);
  cr_assert_eq(pol_url_intent(url, &c), POL_SE_SECURITY_CHANGE);
}

/* Links and submissions read URL words exactly as pol_url_intent does. */
Test(policy_urls, one_url_reading_for_links_forms_and_requests)
{
  static const char *const urls[] = {O "/account/logout", O "/a/b?action=delete", O "/unsubscribe",
                                     O "/konto/abmelden", O "/list?page=2"};
  for (size_t i = 0; i < sizeof urls / sizeof urls[0]; i++) {
    pol_classification u, l, f;
    pol_url_intent(urls[i], &u);
    pol_subject link = {.role = "link", .name = "Account", .href = urls[i], .page_origin = O};
    pol_subject form = {.role = "button", .name = "Account", .is_submit = 1, .form_method = "get",
                        .form_action = urls[i], .page_origin = O};
    pol_classify(&link, &l);
    pol_classify(&form, &f);
    if (u.side_effect == POL_SE_NONE) {
      cr_expect_eq(l.side_effect, POL_SE_NAVIGATION, "%s", urls[i]);
      cr_expect_eq(f.side_effect, POL_SE_READ, "%s", urls[i]);
      continue;
    }
    cr_expect(l.side_effect == u.side_effect && !strcmp(l.rule, u.rule), "link %s: %s", urls[i], l.rule);
    cr_expect(f.side_effect == u.side_effect && !strcmp(f.rule, u.rule), "form %s: %s", urls[i], f.rule);
  }
}

typedef struct {
  const char *label;
  pol_subject s;
  const char *se, *rule, *effect;
} ucase;

static const ucase submissions[] = {
  {"Refresh list, formaction GET to a delete URL", {.role = "button", .name = "Refresh list", .is_submit = 1,
   .form_method = "get", .form_action = O "/items/delete?all=1", .page_origin = O},
   "destructive", "url.delete", "deny"},
  {"an innocent submit in a logout form", {.role = "button", .name = "Continue", .is_submit = 1,
   .form_method = "post", .form_action = O "/logout", .page_origin = O},
   "security_change", "url.logout", "deny"},
  {"a safe-word submit to a sign-out URL", {.role = "button", .name = "Search", .is_submit = 1,
   .form_method = "GET", .form_action = O "/session/signout", .page_origin = O},
   "security_change", "url.logout", "deny"},
  {"formmethod=DELETE", {.role = "button", .name = "Go", .is_submit = 1, .form_method = "DELETE",
   .form_action = O "/items/3", .page_origin = O}, "destructive", "native.submit.delete", "deny"},
  {"formmethod=put", {.role = "button", .name = "Go", .is_submit = 1, .form_method = " put ",
   .form_action = O "/items/3", .page_origin = O}, "write", "native.submit.put", "skip"},
  {"formmethod=patch", {.role = "button", .name = "Go", .is_submit = 1, .form_method = "patch",
   .form_action = O "/items/3", .page_origin = O}, "write", "native.submit.patch", "skip"},
  {"a method nobody knows", {.role = "button", .name = "Go", .is_submit = 1, .form_method = "frob",
   .form_action = O "/items/3", .page_origin = O}, "unknown", "native.submit.method_unknown", "review"},
  {"GET search to its own page", {.role = "button", .name = "Search", .is_submit = 1, .form_method = "get",
   .form_action = O "/list?page=2", .page_origin = O}, "read", "native.submit.get", "allow"},
  {"a form URL the graph had to cut", {.role = "button", .name = "Search", .is_submit = 1,
   .form_method = "get", .page_origin = O}, "unknown", "native.submit.url_cut", "review"},
};

Test(policy_urls, submissions)
{
  char *cut = malloc(PG_SUBMIT_URL_MAX + 1);
  memset(cut, 'a', PG_SUBMIT_URL_MAX);
  memcpy(cut, O "/", strlen(O "/"));
  cut[PG_SUBMIT_URL_MAX] = 0;
  for (size_t i = 0; i < sizeof submissions / sizeof submissions[0]; i++) {
    pol_subject s = submissions[i].s;
    if (!s.form_action)
      s.form_action = cut;
    pol_classification c;
    pol_decision d;
    pol_classify(&s, &c);
    pol_decide(NULL, &s, &c, &d);
    cr_expect(!strcmp(pol_side_effect_name(c.side_effect), submissions[i].se) &&
                  !strcmp(c.rule, submissions[i].rule) && !strcmp(pol_effect_name(d.effect), submissions[i].effect),
              "%s: %s/%s/%s (%s)", submissions[i].label, pol_side_effect_name(c.side_effect), c.rule,
              pol_effect_name(d.effect), d.text);
  }
  free(cut);
}

Test(policy_urls, autocomplete_tokens_in_any_case)
{
  static const struct { const char *ac, *rule; pol_data_class dc; } cs[] = {
    {"CC-NUMBER", "native.autocomplete.payment", POL_DC_PAYMENT},
    {"billing Cc-Exp-Month", "native.autocomplete.payment", POL_DC_PAYMENT},
    {"One-Time-Code", "native.autocomplete.otp", POL_DC_SECRET},
    {"section-login CURRENT-PASSWORD", "native.autocomplete.credential", POL_DC_CREDENTIAL},
    {"New-Password", "native.autocomplete.credential", POL_DC_CREDENTIAL},
  };
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
    pol_subject s = {.role = "textbox", .autocomplete = cs[i].ac, .action = "ui.enterText"};
    pol_classification c;
    pol_decision d;
    pol_classify(&s, &c);
    pol_decide(NULL, &s, &c, &d);
    cr_expect_str_eq(c.rule, cs[i].rule, "%s", cs[i].ac);
    cr_expect_eq(c.data_class, cs[i].dc, "%s: %s", cs[i].ac, pol_data_class_name(c.data_class));
    cr_expect_eq(d.effect, POL_EFFECT_DENY, "%s", cs[i].ac);
    cr_expect(pol_is_sensitive_field(&s), "%s is never recorded", cs[i].ac);
  }
  pol_subject given = {.autocomplete = "GIVEN-NAME"};
  cr_expect_eq(pol_subject_data_class(&given), POL_DC_PII);
  cr_expect(!pol_is_sensitive_field(&given));
}

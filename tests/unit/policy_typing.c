/* policy_typing.c -- which text fields safe_explore types into (issue 27,
 * section 3; policy/typing.c): search boxes, GET-form fields, fields of a
 * search landmark and list filters read; the fields of write forms
 * (POST, sign-up, personal data, a submit that writes, an action that
 * leaves the app), passwords, payment fields and free text are never
 * typed into there. Each case is a field as the crawler describes it
 * (crawler/run/act_text.c fills the form facts from the page) and ends in
 * what a user sees: the class, the rule and the effect in each mode. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "pol.h"

#define O "http://127.0.0.1:8000"
#define T .action = "ui.enterText", .page_origin = O

typedef struct {
  const char *label;
  pol_subject s;
  const char *se, *rule;
  const char *safe, *observe, *sandbox; /* the effect in each mode */
} tcase;

static const char *effect_in(pol_mode m, const pol_subject *s, const pol_classification *c)
{
  pol_policy p = {.mode = m};
  pol_decision d;
  cr_assert_eq(pol_decide(&p, s, c, &d), POL_OK);
  return pol_effect_name(d.effect);
}

static int run_cases(const tcase *t, size_t n)
{
  int bad = 0;
  for (size_t i = 0; i < n; i++) {
    pol_classification c;
    cr_assert_eq(pol_classify(&t[i].s, &c), POL_OK, "%s", t[i].label);
    const char *se = pol_side_effect_name(c.side_effect);
    const char *safe = effect_in(POL_MODE_SAFE_EXPLORE, &t[i].s, &c);
    const char *obs = effect_in(POL_MODE_OBSERVE_ONLY, &t[i].s, &c);
    const char *sb = effect_in(POL_MODE_SANDBOX_WRITE, &t[i].s, &c);
    if (strcmp(se, t[i].se) || strcmp(c.rule, t[i].rule) || strcmp(safe, t[i].safe) ||
        strcmp(obs, t[i].observe) || strcmp(sb, t[i].sandbox)) {
      cr_log_error("%s: got %s/%s safe_explore %s observe_only %s sandbox_write %s, want %s/%s %s %s %s",
                   t[i].label, se, c.rule, safe, obs, sb, t[i].se, t[i].rule, t[i].safe, t[i].observe,
                   t[i].sandbox);
      bad++;
    }
  }
  return bad;
}

#define RUN(cases) cr_expect_eq(run_cases(cases, sizeof cases / sizeof cases[0]), 0, \
                                "mismatches in " #cases " (see log)")

/* ---- fields that only read ------------------------------------------------ */
static const tcase reads[] = {
  {"input type=search outside a form", {.role = "searchbox", .tag = "INPUT", .input_type = "search",
   .name = "Search fruit", T}, "read", "text.searchbox", "allow", "skip", "allow"},
  {"role=searchbox on a div", {.role = "searchbox", .tag = "DIV", .name = "Query", T},
   "read", "text.searchbox", "allow", "skip", "allow"},
  {"text field of a GET form", {.role = "textbox", .tag = "INPUT", .input_type = "text", .name = "Keywords",
   .form_method = "get", .form_action = O "/search/results.html", .form_submits = "Go", T},
   "read", "text.form.get", "allow", "skip", "allow"},
  {"search field of a GET form", {.role = "searchbox", .tag = "INPUT", .input_type = "search", .name = "q",
   .form_method = "GET", .form_action = O "/find", .form_submits = "Search", T},
   "read", "text.form.get", "allow", "skip", "allow"},
  {"field in a search landmark", {.role = "textbox", .tag = "INPUT", .name = "Docs", .in_search = 1, T},
   "read", "text.search_landmark", "allow", "skip", "allow"},
  {"field named Filter", {.role = "textbox", .tag = "INPUT", .input_type = "text", .name = "Filter", T},
   "read", "text.search_name", "allow", "skip", "allow"},
  {"unnamed field next to a list", {.role = "textbox", .tag = "INPUT", .input_type = "text", .name = "",
   .near_collection = 1, T}, "read", "text.filter", "allow", "skip", "allow"},
};
Test(policy_typing, searches_and_filters_read) { RUN(reads); }

/* ---- fields of write forms and other fields: never typed in safe_explore ---- */
static const tcase drafts[] = {
  {"POST form", {.role = "textbox", .tag = "INPUT", .input_type = "text", .name = "Favourite fruit",
   .form_method = "post", .form_action = O "/signup", .form_submits = "Continue", T},
   "draft", "text.form.write", "skip", "skip", "allow"},
  {"search field of a POST form", {.role = "searchbox", .tag = "INPUT", .input_type = "search", .name = "Search",
   .form_method = "post", .form_action = O "/search", .form_submits = "Search", T},
   "draft", "text.form.write", "skip", "skip", "allow"},
  {"dialog form", {.role = "textbox", .tag = "INPUT", .name = "New name", .form_method = "dialog", T},
   "draft", "text.form.write", "skip", "skip", "allow"},
  {"GET sign-up form", {.role = "textbox", .tag = "INPUT", .name = "Team motto", .form_method = "get",
   .form_action = O "/welcome", .form_submits = "Sign up", T},
   "draft", "text.form.submit", "skip", "skip", "allow"},
  {"GET form whose submit saves", {.role = "textbox", .tag = "INPUT", .name = "Title", .form_method = "get",
   .form_action = O "/notes", .form_submits = "Cancel | Save", T},
   "draft", "text.form.submit", "skip", "skip", "allow"},
  {"GET form asking for personal data", {.role = "textbox", .tag = "INPUT", .name = "City",
   .form_method = "get", .form_action = O "/n", .form_submits = "Go", .form_personal = 1, T},
   "draft", "text.form.personal", "skip", "skip", "allow"},
  {"GET form to another origin", {.role = "searchbox", .tag = "INPUT", .input_type = "search", .name = "Search",
   .form_method = "get", .form_action = "https://www.example.com/search", .form_submits = "Search", T},
   "draft", "text.form.elsewhere", "skip", "skip", "allow"},
  {"GET form whose URL deletes", {.role = "textbox", .tag = "INPUT", .name = "Id",
   .form_method = "get", .form_action = O "/items/delete", .form_submits = "Go", T},
   "draft", "text.form.url", "skip", "skip", "allow"},
  {"textarea next to a list", {.role = "textbox", .tag = "TEXTAREA", .name = "Notes", .near_collection = 1, T},
   "draft", "action.text_entry", "skip", "skip", "allow"},
  {"e-mail field outside a form", {.role = "textbox", .tag = "INPUT", .input_type = "email", .name = "Search",
   .near_collection = 1, T}, "draft", "action.text_entry", "skip", "skip", "allow"},
  {"a field that adds to the list", {.role = "textbox", .tag = "INPUT", .name = "Add a task",
   .near_collection = 1, T}, "draft", "action.text_entry", "skip", "skip", "allow"},
  {"name autocomplete next to a list", {.role = "textbox", .tag = "INPUT", .name = "", .autocomplete = "name",
   .near_collection = 1, T}, "draft", "action.text_entry", "skip", "skip", "allow"},
  {"a person's name next to a list", {.role = "textbox", .tag = "INPUT", .name = "Full name",
   .near_collection = 1, T}, "draft", "action.text_entry", "skip", "skip", "allow"},
  {"plain field alone", {.role = "textbox", .tag = "INPUT", .input_type = "text", .name = "Motto", T},
   "draft", "action.text_entry", "skip", "skip", "allow"},
  {"username in a GET form", {.role = "textbox", .tag = "INPUT", .name = "Username", .form_method = "get",
   .form_action = O "/s", .form_submits = "Go", T},
   "draft", "action.text_entry", "skip", "skip", "allow"},
  {"app action on a search field", {.role = "searchbox", .tag = "INPUT", .name = "Search",
   .app_action = "search.run", T}, "draft", "action.text_entry", "skip", "skip", "allow"},
};
Test(policy_typing, write_forms_and_free_text_draft) { RUN(drafts); }

/* ---- hard facts come first -------------------------------------------------- */
static const tcase hard[] = {
  {"password in a GET form", {.role = "textbox", .tag = "INPUT", .input_type = "password", .name = "Password",
   .form_method = "get", .form_action = O "/s", .form_submits = "Search", T},
   "security_change", "native.password", "deny", "deny", "deny"},
  {"card number that looks like a filter", {.role = "textbox", .tag = "INPUT", .name = "Search",
   .autocomplete = "cc-number", .near_collection = 1, T},
   "billing_change", "native.autocomplete.payment", "deny", "deny", "deny"},
  {"sensitive search box", {.role = "searchbox", .tag = "INPUT", .input_type = "search", .name = "Search",
   .sensitive = "", T}, "security_change", "annotation.sensitive", "deny", "deny", "deny"},
};
Test(policy_typing, credentials_and_payment_deny) { RUN(hard); }

/* policy_classify.c -- pol_classify and pol_decide on single subjects, one
 * rule at a time: a table of subjects with the class, the deciding rule and
 * the safe_explore effect a user of the crawler would see. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "pol.h"

#define O "http://127.0.0.1:8000"
#define X(...) (const char *const[]){__VA_ARGS__}

typedef struct {
  const char *label;
  pol_subject s;
  const char *se;     /* expected class */
  const char *rule;   /* expected rule id */
  const char *effect; /* expected effect under the zero policy (safe_explore) */
} tcase;

static int run_cases(const tcase *t, size_t n)
{
  int bad = 0;
  for (size_t i = 0; i < n; i++) {
    pol_classification c;
    pol_decision d;
    cr_assert_eq(pol_classify(&t[i].s, &c), POL_OK, "%s", t[i].label);
    cr_assert_eq(pol_decide(NULL, &t[i].s, &c, &d), POL_OK, "%s", t[i].label);
    const char *se = pol_side_effect_name(c.side_effect);
    const char *ef = pol_effect_name(d.effect);
    if (strcmp(se, t[i].se) || (t[i].rule && strcmp(c.rule, t[i].rule)) ||
        strcmp(ef, t[i].effect)) {
      cr_log_error("%s: got %s/%s/%s, want %s/%s/%s (%s)", t[i].label, se, c.rule, ef,
                   t[i].se, t[i].rule ? t[i].rule : "*", t[i].effect, d.text);
      bad++;
    }
  }
  return bad;
}

#define RUN(cases) cr_expect_eq(run_cases(cases, sizeof cases / sizeof cases[0]), 0, \
                                "mismatches in " #cases " (see log)")

/* ---- (1) annotations ---------------------------------------------------- */
static const tcase annotations[] = {
  {"blocked, harmless words", {.role = "button", .name = "Frobnicate", .risk = "blocked"},
   "destructive", "annotation.risk.blocked", "deny"},
  {"blocked keeps the more specific class", {.role = "button", .name = "Log out", .risk = "blocked"},
   "security_change", "annotation.risk.blocked", "deny"},
  {"blocked beats local-UI signals", {.role = "button", .name = "Open details",
   .aria_haspopup = "dialog", .risk = " BLOCKED "},
   "destructive", "annotation.risk.blocked", "deny"},
  {"blocked beats passive actions", {.role = "button", .name = "Go", .risk = "blocked",
   .action = "ui.focus"}, "destructive", "annotation.risk.blocked", "deny"},
  {"safe: the app vouches", {.role = "button", .name = "Frobnicate", .risk = "safe"},
   "local_ui", "annotation.risk.safe", "allow"},
  {"safe overrides the lexicon", {.role = "button", .name = "Delete filter preset", .risk = "safe"},
   "local_ui", "annotation.risk.safe", "allow"},
  {"safe link is navigation", {.role = "link", .name = "Trash", .href = O "/trash",
   .page_origin = O, .risk = "safe"}, "navigation", "annotation.risk.safe", "allow"},
  {"safe cannot make leaving the origin safe", {.role = "link", .name = "Docs",
   .href = "https://docs.example.com/", .page_origin = O, .risk = "safe"},
   "external_effect", "url.cross_origin", "deny"},
  {"safe cannot make a download safe", {.role = "link", .name = "Report", .href = O "/r.pdf",
   .page_origin = O, .has_download = 1, .risk = "safe"},
   "external_effect", "native.download", "deny"},
  {"confirm without words is a write", {.role = "button", .name = "Frobnicate", .risk = "confirm"},
   "write", "annotation.risk.confirm", "review"},
  {"confirm keeps a worse lexicon class", {.role = "button", .name = "Delete", .risk = "confirm"},
   "destructive", "lexicon.en.delete", "deny"},
  {"confirm lifts a local-UI button to review", {.role = "button", .name = "Open details",
   .aria_haspopup = "dialog", .risk = "confirm"}, "write", "annotation.risk.confirm", "review"},
  {"unrecognised risk value counts as confirm", {.role = "button", .name = "Go", .risk = "dangerous"},
   "write", "annotation.risk.confirm", "review"},
  {"an empty risk value counts as confirm", {.role = "button", .name = "Go", .risk = ""},
   "write", "annotation.risk.confirm", "review"},
  {"risk values ignore case and blanks", {.role = "button", .name = "Frobnicate", .risk = "\tSafe\n"},
   "local_ui", "annotation.risk.safe", "allow"},
  {"app action id word", {.role = "button", .name = "Go", .app_action = "project.delete"},
   "destructive", "lexicon.en.delete", "deny"},
  {"app action camelCase id", {.role = "button", .name = "Go", .app_action = "deleteProject"},
   "destructive", "lexicon.en.delete", "deny"},
  {"app action create", {.role = "button", .name = "New video", .app_action = "video.create"},
   "write", "lexicon.en.create", "skip"},
  {"app action without telling words is unknown, not local_ui",
   {.role = "button", .name = "Toggle panel", .app_action = "panel.frob", .has_aria_expanded = 1},
   "unknown", "annotation.action.unknown", "review"},
  {"app action performed by id", {.role = "button", .name = "Go", .action = "project.archive"},
   "destructive", "lexicon.en.archive", "deny"},
  {"app action with risk=safe", {.role = "button", .name = "Go", .app_action = "panel.frob",
   .risk = "safe"}, "local_ui", "annotation.risk.safe", "allow"},
  {"app action on a tab is not a plain tab", {.role = "tab", .name = "Sync", .app_action = "data.sync"},
   "external_effect", "lexicon.en.sync", "deny"},
  {"data-uiap-sensitive field", {.role = "textbox", .name = "Recovery phrase", .sensitive = "",
   .action = "ui.enterText"}, "security_change", "annotation.sensitive", "deny"},
  {"data-uiap-sensitive=false is not sensitive", {.role = "textbox", .name = "Nickname",
   .sensitive = "false", .action = "ui.enterText"}, "draft", "action.text_entry", "skip"},
};
Test(policy_classify, annotations) { RUN(annotations); }

/* ---- (2) native semantics ----------------------------------------------- */
static const tcase natives[] = {
  {"password input", {.role = "textbox", .tag = "INPUT", .input_type = "password",
   .name = "Password", .action = "ui.enterText"}, "security_change", "native.password", "deny"},
  {"autocomplete new-password", {.role = "textbox", .tag = "input", .autocomplete = "new-password",
   .action = "ui.enterText"}, "security_change", "native.autocomplete.credential", "deny"},
  {"autocomplete current-password", {.role = "textbox", .autocomplete = "section-login current-password",
   .action = "ui.enterText"}, "security_change", "native.autocomplete.credential", "deny"},
  {"one-time-code", {.role = "textbox", .autocomplete = "one-time-code", .action = "ui.enterText"},
   "security_change", "native.autocomplete.otp", "deny"},
  {"card number", {.role = "textbox", .autocomplete = "cc-number", .action = "ui.enterText"},
   "billing_change", "native.autocomplete.payment", "deny"},
  {"card expiry among tokens", {.role = "textbox", .autocomplete = "shipping billing CC-EXP",
   .action = "ui.enterText"}, "billing_change", "native.autocomplete.payment", "deny"},
  {"download attribute", {.role = "link", .name = "Quarterly report", .href = O "/r.pdf",
   .page_origin = O, .has_download = 1}, "external_effect", "native.download", "deny"},
  {"file input", {.role = "button", .tag = "input", .input_type = "file", .name = "Choose file"},
   "external_effect", "native.file_input", "deny"},
  {"mailto:", {.role = "link", .name = "Contact us", .href = "mailto:a@example.test", .page_origin = O},
   "external_effect", "url.scheme.mailto", "deny"},
  {"tel:", {.role = "link", .name = "Hotline", .href = "tel:+4930123", .page_origin = O},
   "external_effect", "url.scheme.tel", "deny"},
  {"sms:", {.role = "link", .name = "Text us", .href = "SMS:+4930123", .page_origin = O},
   "external_effect", "url.scheme.sms", "deny"},
  {"custom app scheme", {.role = "link", .name = "Open in app", .href = "slack://open", .page_origin = O},
   "external_effect", "url.scheme.slack", "deny"},
  {"javascript: link behaves like a button", {.role = "link", .name = "Details",
   .href = "javascript:void(0)", .page_origin = O}, "local_ui", "signal.safe_word", "allow"},
  {"java<TAB>script: is javascript: too", {.role = "link", .name = "Details",
   .href = "java\tscript:void(0)", .page_origin = O}, "local_ui", "signal.safe_word", "allow"},
  {"blob: URL of the page's origin is another program's scheme", {.role = "link", .name = "Details",
   .href = "blob:" O "/0a1b", .page_origin = O}, "external_effect", "url.scheme.blob", "deny"},
  {"IPv6 page origin, long form", {.role = "link", .name = "Home",
   .href = "http://[0:0:0:0:0:0:0:1]:8000/a", .page_origin = "http://[::1]:8000"},
   "navigation", "url.same_origin", "allow"},
  {"logout in the URL path", {.role = "link", .name = "Account", .href = O "/account/logout",
   .page_origin = O}, "security_change", "url.logout", "deny"},
  {"sign-out in the URL path", {.role = "link", .name = "Bye", .href = O "/users/sign-out?x=1",
   .page_origin = O}, "security_change", "url.logout", "deny"},
  {"camelCase logout in the URL", {.role = "link", .name = "Bye", .href = O "/api/doLogout",
   .page_origin = O}, "security_change", "url.logout", "deny"},
  {"German logout in the URL", {.role = "link", .name = "Tschüss", .href = O "/konto/abmelden",
   .page_origin = O}, "security_change", "url.logout", "deny"},
  {"delete in the URL query", {.role = "link", .name = "Go", .href = O "/items/7?action=delete",
   .page_origin = O}, "destructive", "url.delete", "deny"},
  {"logout in the name of a link", {.role = "link", .name = "Sign out", .href = O "/session/end",
   .page_origin = O}, "security_change", "lexicon.en.logout", "deny"},
  {"other host", {.role = "link", .name = "Blog", .href = "https://example.com/blog", .page_origin = O},
   "external_effect", "url.cross_origin", "deny"},
  {"other port is another origin", {.role = "link", .name = "Blog", .href = "http://127.0.0.1:8001/",
   .page_origin = O}, "external_effect", "url.cross_origin", "deny"},
  {"other scheme is another origin", {.role = "link", .name = "Blog", .href = "https://127.0.0.1:8000/",
   .page_origin = O}, "external_effect", "url.cross_origin", "deny"},
  {"allowed origin", {.role = "link", .name = "Admin", .href = "http://localhost:9000/x",
   .page_origin = O, .allowed_origins = X("http://localhost:9000/"), .n_allowed_origins = 1},
   "navigation", "url.same_origin", "allow"},
  {"same-origin hash route", {.role = "link", .name = "Amber Falcon", .href = O "/#/r1",
   .page_origin = O}, "navigation", "url.same_origin", "allow"},
  {"default port and case fold to one origin", {.role = "link", .name = "Home",
   .href = "HTTP://User@Example.COM:80/a", .page_origin = "http://example.com/start"},
   "navigation", "url.same_origin", "allow"},
  {"unresolved relative link", {.role = "link", .name = "Next page", .href = "#/r2", .page_origin = O},
   "navigation", "url.same_origin", "allow"},
  {"scheme-relative link to another host", {.role = "link", .name = "CDN", .href = "//evil.example/x",
   .page_origin = O}, "external_effect", "url.cross_origin", "deny"},
  {"origin unknown", {.role = "link", .name = "Home", .href = "http://example.com/"},
   "unknown", "url.origin_unknown", "review"},
  {"POST submit", {.role = "button", .name = "Go", .is_submit = 1, .form_method = "POST"},
   "write", "native.submit.post", "skip"},
  {"POST submit with a worse word", {.role = "button", .name = "Delete", .is_submit = 1,
   .form_method = "post"}, "destructive", "lexicon.en.delete", "deny"},
  {"GET submit", {.role = "button", .name = "Go", .is_submit = 1, .form_method = "get"},
   "read", "native.submit.get", "allow"},
  {"GET submit named Save is a write", {.role = "button", .name = "Save", .is_submit = 1,
   .form_method = "get"}, "write", "lexicon.en.save", "skip"},
  {"implicit method, safe word", {.role = "button", .name = "Search", .is_submit = 1},
   "read", "native.submit.safe_name", "allow"},
  {"implicit method, no word", {.role = "button", .name = "Continue", .is_submit = 1},
   "unknown", "native.submit.implicit", "review"},
  {"ui.submit action counts as submit", {.role = "form", .name = "Go", .action = "ui.submit",
   .form_method = "post"}, "write", "native.submit.post", "skip"},
  {"method=dialog closes the dialog", {.role = "button", .name = "OK", .is_submit = 1,
   .form_method = "dialog", .container_role = "dialog"}, "local_ui", "native.submit.dialog", "allow"},
  {"method=dialog OK in a delete dialog", {.role = "button", .name = "OK", .is_submit = 1,
   .form_method = "dialog", .container_role = "dialog", .context = "Delete project?"},
   "destructive", "lexicon.en.delete", "deny"},
  {"submit to another origin", {.role = "button", .name = "Go", .is_submit = 1, .form_method = "get",
   .form_action = "https://pay.example.com/checkout", .page_origin = O},
   "billing_change", "url.checkout", "deny"},
  {"submit to another origin, plain path", {.role = "button", .name = "Go", .is_submit = 1,
   .form_method = "get", .form_action = "https://search.example.com/q", .page_origin = O},
   "external_effect", "native.submit.cross_origin", "deny"},
  {"mailto form", {.role = "button", .name = "Go", .is_submit = 1, .form_method = "post",
   .form_action = "mailto:x@example.test", .page_origin = O},
   "external_effect", "native.submit.scheme.mailto", "deny"},
  {"logout form", {.role = "button", .name = "Go", .is_submit = 1, .form_method = "post",
   .form_action = O "/logout", .page_origin = O}, "security_change", "url.logout", "deny"},
  {"form reset", {.role = "button", .tag = "input", .input_type = "reset", .name = "Start over"},
   "local_ui", "native.form_reset", "allow"},
  {"form reset named Reset is still destructive", {.role = "button", .input_type = "reset",
   .name = "Reset"}, "destructive", "lexicon.en.reset", "deny"},
  {"summary disclosure", {.role = "group", .tag = "SUMMARY", .name = "Shipping"},
   "local_ui", "signal.summary", "allow"},
};
Test(policy_classify, natives) { RUN(natives); }

/* ---- (3) lexicons, English and German ----------------------------------- */
static const tcase lexicon[] = {
  {"delete", {.role = "button", .name = "Delete"}, "destructive", "lexicon.en.delete", "deny"},
  {"undo delete is still destructive", {.role = "button", .name = "Undo delete"},
   "destructive", "lexicon.en.delete", "deny"},
  {"word boundary: Deleted items link", {.role = "link", .name = "Deleted items",
   .href = O "/trash", .page_origin = O}, "navigation", "url.same_origin", "allow"},
  {"word boundary: undeletable", {.role = "button", .name = "Undeletable", .has_aria_expanded = 1},
   "local_ui", "signal.expanded", "allow"},
  {"word boundary: Summit is not submit", {.role = "button", .name = "Summit"},
   "unknown", "default.unknown", "review"},
  {"German delete", {.role = "button", .name = "Projekt löschen"},
   "destructive", "lexicon.de.loeschen", "deny"},
  {"German delete, capitals", {.role = "button", .name = "PROJEKT LÖSCHEN"},
   "destructive", "lexicon.de.loeschen", "deny"},
  {"German delete, transliterated", {.role = "button", .name = "Projekt loeschen"},
   "destructive", "lexicon.de.loeschen", "deny"},
  {"German remove", {.role = "menuitem", .name = "Alle Mitglieder entfernen"},
   "destructive", "lexicon.de.entfernen", "deny"},
  {"German reset", {.role = "button", .name = "Zurücksetzen"},
   "destructive", "lexicon.de.zuruecksetzen", "deny"},
  {"German back is not reset", {.role = "button", .name = "Zurück"},
   "local_ui", "signal.safe_word", "allow"},
  {"German cancel subscription", {.role = "button", .name = "Abo kündigen"},
   "billing_change", "lexicon.de.abo_kuendigen", "deny"},
  {"German cancel contract", {.role = "button", .name = "Kündigen"},
   "billing_change", "lexicon.de.kuendigen", "deny"},
  {"German publish", {.role = "button", .name = "Veröffentlichen"},
   "external_effect", "lexicon.de.veroeffentlichen", "deny"},
  {"German pay", {.role = "button", .name = "Jetzt bezahlen"},
   "billing_change", "lexicon.de.jetzt_bezahlen", "deny"},
  {"German buy", {.role = "button", .name = "Kaufen"}, "billing_change", "lexicon.de.kaufen", "deny"},
  {"German checkout", {.role = "link", .name = "Zur Kasse", .href = O "/k", .page_origin = O},
   "billing_change", "lexicon.de.zur_kasse", "deny"},
  {"German invite", {.role = "button", .name = "Einladen"},
   "external_effect", "lexicon.de.einladen", "deny"},
  {"German password change", {.role = "button", .name = "Passwort ändern"},
   "security_change", "lexicon.de.passwort_aendern", "deny"},
  {"German logout", {.role = "button", .name = "Abmelden"},
   "security_change", "lexicon.de.logout", "deny"},
  {"German save", {.role = "button", .name = "Speichern"}, "write", "lexicon.de.speichern", "skip"},
  {"German create", {.role = "button", .name = "Projekt anlegen"}, "write", "lexicon.de.anlegen", "skip"},
  {"German transfer", {.role = "button", .name = "Eigentum übertragen"},
   "irreversible", "lexicon.de.uebertragen", "deny"},
  {"sign-out with a hyphen", {.role = "button", .name = "Sign-out"},
   "security_change", "lexicon.en.logout", "deny"},
  {"log out with NBSP", {.role = "button", .name = "Log\xC2\xA0out"},
   "security_change", "lexicon.en.logout", "deny"},
  {"logout", {.role = "button", .name = "LOGOUT"}, "security_change", "lexicon.en.logout", "deny"},
  {"change password", {.role = "button", .name = "Change password"},
   "security_change", "lexicon.en.change_password", "deny"},
  {"show password is not just 'show'", {.role = "button", .name = "Show password"},
   "security_change", "lexicon.en.show_password", "deny"},
  {"rotate key", {.role = "button", .name = "Rotate key"},
   "security_change", "lexicon.en.rotate_key", "deny"},
  {"regenerate", {.role = "button", .name = "Regenerate"},
   "security_change", "lexicon.en.regenerate", "deny"},
  {"cancel subscription", {.role = "button", .name = "Cancel subscription"},
   "billing_change", "lexicon.en.cancel_subscription", "deny"},
  {"close account beats close", {.role = "button", .name = "Close account"},
   "destructive", "lexicon.en.close_account", "deny"},
  {"pay", {.role = "button", .name = "Pay now"}, "billing_change", "lexicon.en.pay_now", "deny"},
  {"order", {.role = "button", .name = "Order"}, "billing_change", "lexicon.en.order", "deny"},
  {"sort order is local", {.role = "button", .name = "Sort order"},
   "local_ui", "signal.safe_word", "allow"},
  {"upgrade plan", {.role = "button", .name = "Upgrade plan"},
   "billing_change", "lexicon.en.upgrade_plan", "deny"},
  {"send", {.role = "button", .name = "Send invitation"}, "external_effect", "lexicon.en.send", "deny"},
  {"email", {.role = "button", .name = "E-mail report"}, "external_effect", "lexicon.en.e_mail", "deny"},
  {"publish", {.role = "button", .name = "Publish"}, "external_effect", "lexicon.en.publish", "deny"},
  {"approve", {.role = "button", .name = "Approve"}, "external_effect", "lexicon.en.approve", "deny"},
  {"save", {.role = "button", .name = "Save"}, "write", "lexicon.en.save", "skip"},
  {"save as draft beats save", {.role = "button", .name = "Save as draft"},
   "draft", "lexicon.en.save_as_draft", "skip"},
  {"delete permanently is irreversible", {.role = "button", .name = "Delete permanently"},
   "irreversible", "lexicon.en.permanently", "deny"},
  {"rename", {.role = "button", .name = "Rename"}, "write", "lexicon.en.rename", "skip"},
  {"remove filter is local", {.role = "button", .name = "Remove filter"},
   "local_ui", "signal.safe_word", "allow"},
  {"remove filter and delete rows", {.role = "button", .name = "Remove filter, then delete rows"},
   "destructive", "lexicon.en.delete", "deny"},
  {"risky verb beats aria-expanded", {.role = "button", .name = "Delete", .has_aria_expanded = 1,
   .aria_haspopup = "menu"}, "destructive", "lexicon.en.delete", "deny"},
  {"risky verb on a menu item", {.role = "menuitem", .name = "Archive", .container_role = "menu"},
   "destructive", "lexicon.en.archive", "deny"},
  {"risky word on a checkbox", {.role = "checkbox", .name = "Delete files after upload"},
   "destructive", "lexicon.en.delete", "deny"},
  {"risky word on a switch", {.role = "switch", .name = "Enable two-factor authentication"},
   "security_change", "lexicon.en.two_factor", "deny"},
  {"tabs are local UI whatever their label", {.role = "tab", .name = "Deleted items"},
   "local_ui", "role.tab", "allow"},
  {"a tab named Delete is still a tab", {.role = "tab", .name = "Delete"},
   "local_ui", "role.tab", "allow"},
  {"context: OK in a delete dialog", {.role = "button", .name = "OK", .container_role = "dialog",
   .context = "Delete project?"}, "destructive", "lexicon.en.delete", "deny"},
  {"context: German Ja in a Kündigung dialog", {.role = "button", .name = "Ja",
   .container_role = "alertdialog", .context = "Wirklich kündigen?"},
   "billing_change", "lexicon.de.kuendigen", "deny"},
  {"context: Cancel in a delete dialog is local", {.role = "button", .name = "Cancel",
   .container_role = "dialog", .context = "Delete project?"}, "local_ui", "signal.safe_word", "allow"},
  {"context: Abbrechen in a delete dialog", {.role = "button", .name = "Abbrechen",
   .container_role = "dialog", .context = "Projekt löschen?"}, "local_ui", "signal.safe_word", "allow"},
  {"context: unknown button in the danger zone", {.role = "button", .name = "Frobnicate",
   .context = "Danger zone"}, "destructive", "lexicon.en.danger_zone", "deny"},
  {"context ignored for a plain safe word", {.role = "button", .name = "Details",
   .context = "Billing"}, "local_ui", "signal.safe_word", "allow"},
};
Test(policy_classify, lexicon) { RUN(lexicon); }

/* ---- (4) role defaults and local-UI signals ----------------------------- */
static const tcase roles[] = {
  {"tab", {.role = "tab", .name = "Overview"}, "local_ui", "role.tab", "allow"},
  {"checkbox", {.role = "checkbox", .name = "Remember me", .action = "ui.toggle"},
   "local_ui", "role.checkbox", "allow"},
  {"switch", {.role = "switch", .name = "Dark mode", .action = "ui.toggle"},
   "local_ui", "role.switch", "allow"},
  {"radio", {.role = "radio", .name = "Monthly"}, "local_ui", "role.radio", "allow"},
  {"option named Archived (a view, not a verb)", {.role = "option", .name = "Archived",
   .action = "ui.choose"}, "local_ui", "role.option", "allow"},
  {"combobox choose", {.role = "combobox", .name = "Country", .action = "ui.choose"},
   "local_ui", "role.combobox", "allow"},
  {"menuitemradio", {.role = "menuitemradio", .name = "Compact", .container_role = "menu"},
   "local_ui", "role.menuitemradio", "allow"},
  {"menuitemcheckbox", {.role = "menuitemcheckbox", .name = "Word wrap"},
   "local_ui", "role.menuitemcheckbox", "allow"},
  {"accordion button", {.role = "button", .name = "Specifications", .has_aria_expanded = 1,
   .has_aria_controls = 1}, "local_ui", "signal.expanded", "allow"},
  {"menu button", {.role = "button", .name = "Actions", .aria_haspopup = "menu"},
   "local_ui", "signal.haspopup", "allow"},
  {"aria-haspopup=false is no signal", {.role = "button", .name = "Actions", .aria_haspopup = "false"},
   "unknown", "default.unknown", "review"},
  {"aria-controls", {.role = "button", .name = "Filters panel", .has_aria_controls = 1},
   "local_ui", "signal.controls", "allow"},
  {"button inside a tablist", {.role = "button", .name = "Scroll tabs", .container_role = "tablist"},
   "local_ui", "signal.tablist", "allow"},
  {"column header with aria-sort", {.role = "columnheader", .name = "Name", .sort_header = 1},
   "local_ui", "signal.sort", "allow"},
  {"sort button in a header with aria-sort", {.role = "button", .name = "Stock", .sort_header = 1},
   "local_ui", "signal.sort", "allow"},
  {"a header without aria-sort: its words decide", {.role = "columnheader", .name = "Name"},
   "unknown", "default.unknown", "review"},
  {"a risky word in a sort header still decides", {.role = "button", .name = "Delete column", .sort_header = 1},
   "destructive", "lexicon.en.delete", "deny"},
  {"ui.expand", {.role = "button", .name = "Team", .action = "ui.expand"},
   "local_ui", "signal.expand", "allow"},
  {"ui.dismiss on a button", {.role = "button", .name = "Got it", .action = "ui.dismiss"},
   "local_ui", "signal.dismiss", "allow"},
  {"ui.dismiss on the dialog itself", {.role = "dialog", .name = "Delete project?",
   .action = "ui.dismiss"}, "local_ui", "action.dismiss", "allow"},
  {"safe word: Open details", {.role = "button", .name = "Open details"},
   "local_ui", "signal.safe_word", "allow"},
  {"safe word: Show more", {.role = "button", .name = "Show more"},
   "local_ui", "signal.safe_word", "allow"},
  {"safe word: Next", {.role = "button", .name = "Next"}, "local_ui", "signal.safe_word", "allow"},
  {"safe word: Close", {.role = "button", .name = "Close"}, "local_ui", "signal.safe_word", "allow"},
  {"safe word: Close dialog", {.role = "button", .name = "Close dialog"},
   "local_ui", "signal.safe_word", "allow"},
  {"x glyph inside a dialog (composite container role) dismisses it", {.role = "button",
   .name = "\xC3\x97", .container_role = "dialog"}, "local_ui", "icon.close.dismiss", "allow"},
  {"safe word: Schließen", {.role = "button", .name = "Schließen"},
   "local_ui", "signal.safe_word", "allow"},
  {"close issue is a command", {.role = "button", .name = "Close issue"},
   "unknown", "default.unknown", "review"},
  {"hide thread is a command", {.role = "button", .name = "Hide thread"},
   "unknown", "default.unknown", "review"},
  {"hide post: post is a risky word", {.role = "button", .name = "Hide post"},
   "external_effect", "lexicon.en.post", "deny"},
  {"cancel outside a dialog is no signal", {.role = "button", .name = "Cancel"},
   "unknown", "default.unknown", "review"},
  {"cancel booking", {.role = "button", .name = "Cancel", .container_role = "dialog",
   .context = "Cancel booking?"}, "local_ui", "signal.safe_word", "allow"},
  {"plain button", {.role = "button", .name = "Frobnicate"}, "unknown", "default.unknown", "review"},
  {"plain menu item", {.role = "menuitem", .name = "Frobnicate", .container_role = "menu"},
   "unknown", "default.unknown", "review"},
  {"a toolbar is no signal", {.role = "button", .name = "Frobnicate", .container_role = "toolbar"},
   "unknown", "default.unknown", "review"},
  {"submenu item", {.role = "menuitem", .name = "Frobnicate", .aria_haspopup = "menu"},
   "local_ui", "signal.haspopup", "allow"},
  {"no name at all", {.role = "button"}, "unknown", "default.unknown", "review"},
  {"empty subject", {0}, "unknown", "default.unknown", "review"},
};
Test(policy_classify, roles_and_signals) { RUN(roles); }

/* ---- actions ------------------------------------------------------------ */
static const tcase actions[] = {
  {"focus is passive", {.role = "button", .name = "Delete project", .action = "ui.focus"},
   "none", "action.passive", "allow"},
  {"scroll is passive", {.role = "region", .action = "ui.scroll"}, "none", "action.passive", "allow"},
  {"text entry is a draft", {.role = "textbox", .name = "Project name", .action = "ui.enterText"},
   "draft", "action.text_entry", "skip"},
  {"clearing text is a draft", {.role = "searchbox", .name = "Search", .action = "ui.clearText"},
   "draft", "action.text_entry", "skip"},
  {"text entry ignores the label's words", {.role = "textbox", .name = "Type DELETE to confirm",
   .action = "ui.enterText"}, "draft", "action.text_entry", "skip"},
  {"nav.back", {.action = "nav.back"}, "navigation", "action.back", "allow"},
};
Test(policy_classify, actions) { RUN(actions); }

Test(policy_classify, keyword_and_where)
{
  pol_classification c;
  pol_subject s = {.role = "button", .name = "OK", .container_role = "dialog",
                   .context = "Projekt endgültig löschen?"};
  pol_classify(&s, &c);
  cr_assert_eq(c.side_effect, POL_SE_IRREVERSIBLE);
  cr_assert_str_eq(c.keyword, "endgültig");
  cr_assert_str_eq(c.where, "context");
  pol_subject t = {.role = "button", .name = "Go", .app_action = "billing.pay"};
  pol_classify(&t, &c);
  cr_assert_str_eq(c.where, "app_action");
  cr_assert_str_eq(c.keyword, "billing");
  cr_assert_eq(c.side_effect, POL_SE_BILLING_CHANGE);
}

Test(policy_classify, null_arguments)
{
  pol_classification c;
  cr_assert_eq(pol_classify(NULL, &c), POL_ARG);
  cr_assert_eq(c.side_effect, POL_SE_UNKNOWN, "out is still filled");
  pol_subject s = {0};
  cr_assert_eq(pol_classify(&s, NULL), POL_ARG);
}

Test(policy_classify, long_hostile_text_is_capped)
{
  static char name[100000];
  for (size_t i = 0; i + 1 < sizeof name; i++)
    name[i] = "ab\xC3\xA4 -"[i % 5];
  name[sizeof name - 1] = 0;
  /* a risky word beyond the cap is not seen; nothing crashes or overflows */
  memcpy(name + 90000, " delete ", 8);
  pol_subject s = {.role = "button", .name = name, .context = name, .app_action = NULL};
  pol_classification c;
  cr_assert_eq(pol_classify(&s, &c), POL_OK);
  cr_assert_eq(c.side_effect, POL_SE_UNKNOWN);
  /* invalid UTF-8 is a separator, not a crash */
  pol_subject u = {.role = "button", .name = "\xFF\xC3" "Delete\xE2\x80"};
  pol_classify(&u, &c);
  cr_assert_eq(c.side_effect, POL_SE_DESTRUCTIVE);
}

/* ---- (issue #16) denials that cost reach -------------------------------- */
/* A control's own semantics are read before the words of its label; a
 * plain same-origin link is judged by its own name and href. Each positive
 * case was denied or held before; each negative one must stay as strict. */
static const tcase reach[] = {
  /* disclosures named after what they reveal */
  {"API docs header: DELETE", {.role = "button", .name = "DELETE /pets/{petId} Delete a pet",
   .has_aria_expanded = 1, .has_aria_controls = 1, .action = "ui.expand"},
   "local_ui", "signal.expanded", "allow"},
  {"API docs header: pay", {.role = "button", .name = "POST /store/orders/{id}/pay",
   .has_aria_expanded = 1, .action = "ui.expand"}, "local_ui", "signal.expanded", "allow"},
  {"API docs header: logout", {.role = "button", .name = "GET /user/logout Logs out the user",
   .has_aria_expanded = 1, .action = "ui.collapse"}, "local_ui", "signal.expanded", "allow"},
  {"FAQ summary", {.role = "DisclosureTriangle", .tag = "SUMMARY",
   .name = "What formats can I upload?", .has_aria_expanded = 1, .action = "ui.expand"},
   "local_ui", "signal.summary", "allow"},
  {"disclosure that is also a submit", {.role = "button", .name = "Delete a pet",
   .has_aria_expanded = 1, .is_submit = 1}, "destructive", "lexicon.en.delete", "deny"},
  {"disclosure with type=submit", {.role = "button", .name = "Delete a pet",
   .input_type = "submit", .has_aria_expanded = 1}, "destructive", "lexicon.en.delete", "deny"},
  {"disclosure annotated confirm", {.role = "button", .name = "Delete a pet",
   .has_aria_expanded = 1, .risk = "confirm"}, "destructive", "lexicon.en.delete", "deny"},
  {"disclosure annotated blocked", {.role = "button", .name = "Details",
   .has_aria_expanded = 1, .risk = "blocked"}, "destructive", "annotation.risk.blocked", "deny"},
  {"disclosure with an app action", {.role = "button", .name = "Delete a pet",
   .has_aria_expanded = 1, .app_action = "pet.delete"}, "destructive", "lexicon.en.delete", "deny"},
  {"expanded link that navigates", {.role = "link", .name = "Delete a pet", .has_aria_expanded = 1,
   .href = O "/pets/3/delete", .page_origin = O}, "destructive", "lexicon.en.delete", "deny"},
  {"expanded button with a trash icon", {.role = "button", .name = "Pet",
   .has_aria_expanded = 1, .icon_classes = "fa fa-trash"}, "destructive", "icon.delete", "deny"},
  {"the revealed Delete button", {.role = "button", .name = "Delete pet",
   .context = "DELETE /pets/{petId} Delete a pet"}, "destructive", "lexicon.en.delete", "deny"},
  /* menu and dialog triggers with unknown names */
  {"menu trigger under a Delete heading", {.role = "button", .name = "Project actions",
   .aria_haspopup = "menu", .has_aria_expanded = 1, .action = "ui.expand",
   .context = "Delete project"}, "local_ui", "signal.haspopup", "allow"},
  {"kebab dialog trigger", {.role = "button", .name = "Project options", .aria_haspopup = "dialog",
   .has_aria_expanded = 1, .context = "Billing: pay now"}, "local_ui", "signal.haspopup", "allow"},
  {"listbox trigger", {.role = "button", .name = "Workspace", .aria_haspopup = "listbox",
   .has_aria_expanded = 1, .context = "Remove members"}, "local_ui", "signal.haspopup", "allow"},
  {"menu trigger named Delete", {.role = "button", .name = "Delete", .aria_haspopup = "menu",
   .has_aria_expanded = 1}, "destructive", "lexicon.en.delete", "deny"},
  {"menu trigger that submits", {.role = "button", .name = "Project actions",
   .aria_haspopup = "menu", .has_aria_expanded = 1, .is_submit = 1,
   .context = "Delete project"}, "destructive", "lexicon.en.delete", "deny"},
  {"menu trigger without aria-expanded keeps context", {.role = "button", .name = "Project actions",
   .aria_haspopup = "menu", .context = "Delete project"}, "destructive", "lexicon.en.delete", "deny"},
  {"the menu's Delete project item", {.role = "menuitem", .name = "Delete project",
   .container_role = "menu", .context = "Project actions"}, "destructive", "lexicon.en.delete", "deny"},
  /* context that taints its neighbours */
  {"404 Page next to Login", {.role = "link", .name = "404 Page", .href = O "/404.html",
   .page_origin = O, .context = "Login Screens:"}, "navigation", "url.same_origin", "allow"},
  {"Blank Page next to Register", {.role = "link", .tag = "A", .name = "Blank Page",
   .href = O "/blank.html", .page_origin = O, .context = "Register"},
   "navigation", "url.same_origin", "allow"},
  {"message link: call me", {.role = "link", .name = "Hi! Call me whenever you can",
   .href = O "/messages/7", .page_origin = O}, "navigation", "url.same_origin", "allow"},
  {"Login link itself", {.role = "link", .name = "Login", .href = O "/login.html",
   .page_origin = O, .context = "Login Screens:"}, "security_change", "lexicon.en.login", "deny"},
  {"Log out link inside a nav", {.role = "link", .name = "Log out", .href = O "/bye",
   .page_origin = O, .context = "Account"}, "security_change", "lexicon.en.logout", "deny"},
  {"harmless name, logout href", {.role = "link", .name = "Bye", .href = O "/logout",
   .page_origin = O, .context = "Pages"}, "security_change", "url.logout", "deny"},
  {"a real tel: link", {.role = "link", .name = "Call me", .href = "tel:+4930123",
   .page_origin = O}, "external_effect", "url.scheme.tel", "deny"},
  {"a call button is still a call", {.role = "button", .name = "Call me whenever you can"},
   "external_effect", "lexicon.en.call", "deny"},
  {"call me, and send", {.role = "link", .name = "Call me or send a note",
   .href = O "/messages/7", .page_origin = O}, "external_effect", "lexicon.en.send", "deny"},
  {"link in a dialog keeps the dialog's words", {.role = "link", .name = "Yes",
   .href = O "/projects/3", .page_origin = O, .container_role = "dialog",
   .context = "Delete project?"}, "destructive", "lexicon.en.delete", "deny"},
  {"link in a menu keeps the menu's words", {.role = "link", .name = "Now",
   .href = O "/projects/3", .page_origin = O, .container_kind = "menu",
   .context = "Delete project"}, "destructive", "lexicon.en.delete", "deny"},
  {"cross-origin link keeps context", {.role = "link", .name = "Docs",
   .href = "https://example.com/docs", .page_origin = O, .context = "Login"},
   "security_change", "lexicon.en.login", "deny"},
  {"link opening a window keeps context", {.role = "link", .name = "404 Page", .href = O "/404.html",
   .page_origin = O, .opens_window = 1, .context = "Login Screens:"},
   "security_change", "lexicon.en.login", "deny"},
  {"download link keeps context", {.role = "link", .name = "Report", .href = O "/r.csv",
   .page_origin = O, .has_download = 1}, "external_effect", "native.download", "deny"},
};
Test(policy_classify, reach) { RUN(reach); }

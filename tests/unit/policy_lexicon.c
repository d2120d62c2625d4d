/* policy_lexicon.c -- the lexicon tables and the text machinery under them:
 * normalisation (case, umlauts, punctuation, caps), whole-word matching,
 * superseding, the sanity of the table itself, and the URL helpers. */
#include <criterion/criterion.h>
#include <string.h>

#include "pol_int.h"

static const char *norm(const char *in, int camel)
{
  static char buf[POL__TEXT_MAX + 8];
  pol__normalize(in, camel, buf, sizeof buf);
  return buf;
}

Test(policy_lexicon, normalize)
{
  static const struct { const char *in; int camel; const char *out; } cs[] = {
    {"Delete project", 0, " delete project "},
    {"  SIGN-OUT!! ", 0, " sign out "},
    {"Löschen", 0, " loeschen "},
    {"LÖSCHEN", 0, " loeschen "},
    {"Ändern Übertragen Schließen", 0, " aendern uebertragen schliessen "},
    {"GROẞ", 0, " gross "},
    {"Log\xC2\xA0out", 0, " log out "},
    {"Save \xE2\x80\x94 now\xE2\x80\xA6", 0, " save now "},
    {"«Café»", 0, " café "},
    {"ÉCOLE", 0, " école "},
    {"deleteProject", 1, " delete project "},
    {"deleteProject", 0, " deleteproject "},
    {"/api/v2/doLogout?x=1", 1, " api v2 do logout x 1 "},
    {"", 0, " "},
    {NULL, 0, " "},
    {"\xFF\xFE", 0, " "},
  };
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
    cr_expect_str_eq(norm(cs[i].in, cs[i].camel), cs[i].out, "case %zu", i);
}

Test(policy_lexicon, normalize_caps_output)
{
  char small[8];
  size_t n = pol__normalize("delete everything now", 0, small, sizeof small);
  cr_assert_lt(n, sizeof small);
  cr_assert_eq(strlen(small), n);
  cr_assert_eq(small[n - 1], ' ', "always ends on a space: \"%s\"", small);
}

static const pol__lex_entry *risky(const char *text)
{
  pol__scan s;
  pol__lexicon_scan(text, 0, &s);
  return s.risky;
}

Test(policy_lexicon, whole_words_only)
{
  static const char *const no[] = {"Deleted items", "Undeletable", "Summit", "Payload",
    "Removed", "Resettled", "Orders", "Shared with me", "Archived", "Sender", "Posting rules",
    "Löschung", "Kassenbuch", "Budget", "Reviews", "Releases", "Team", "Repayment"};
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
    cr_expect_null(risky(no[i]), "%s matched %s", no[i],
                   risky(no[i]) ? risky(no[i])->phrase : "");
  static const char *const yes[] = {"Delete", "delete.", "(Delete)", "Delete/Remove",
    "Undo delete", "Pay", "Order", "Löschen", "Passwort ändern", "Log-out"};
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
    cr_expect_not_null(risky(yes[i]), "%s", yes[i]);
}

Test(policy_lexicon, worst_class_wins_and_phrases_supersede)
{
  cr_assert_str_eq(risky("Save and delete")->phrase, "delete");
  cr_assert_str_eq(risky("Delete permanently")->phrase, "permanently");
  cr_assert_str_eq(risky("Cancel subscription")->phrase, "cancel subscription");
  cr_assert_str_eq(risky("Close account")->phrase, "close account");
  cr_assert_null(risky("Remove filters"));
  cr_assert_null(risky("Order by"));
  cr_assert_str_eq(risky("Save as draft")->phrase, "save as draft");
}

Test(policy_lexicon, safe_signal_rules)
{
  pol__scan s;
  pol__lexicon_scan("Close", 0, &s);
  cr_assert(s.safe_signal);
  pol__lexicon_scan("Close the panel", 0, &s);
  cr_assert(s.safe_signal, "fillers allowed");
  pol__lexicon_scan("Close issue", 0, &s);
  cr_assert(!s.safe_signal, "whole-text word with a foreign word");
  pol__lexicon_scan("Open project Falcon", 0, &s);
  cr_assert(s.safe_signal, "open counts anywhere");
  pol__lexicon_scan("Cancel", 0, &s);
  cr_assert(!s.safe_signal, "cancel outside a dialog");
  pol__lexicon_scan("Cancel", POL__SCAN_DIALOG, &s);
  cr_assert(s.safe_signal);
  pol__lexicon_scan("Open and delete", 0, &s);
  cr_assert(!s.safe_signal, "a risky word removes the signal");
  cr_assert_not_null(s.risky);
  pol__lexicon_scan("All", 0, &s);
  cr_assert(!s.safe_signal, "fillers alone are no signal");
}

Test(policy_lexicon, url_scan_uses_url_words_only)
{
  pol__scan s;
  pol__lexicon_scan("/blog/post/12", POL__SCAN_URL, &s);
  cr_assert_null(s.risky, "post is not a URL word");
  pol__lexicon_scan("/users/7/delete", POL__SCAN_URL, &s);
  cr_assert_not_null(s.risky);
  pol__lexicon_scan("/auth/signOut", POL__SCAN_URL, &s);
  cr_assert_not_null(s.risky);
  cr_assert_str_eq(s.risky->group, "logout");
}

/* The table itself: each phrase normalises to something, no phrase is listed
 * twice, flags are consistent, rule ids are short ASCII. */
Test(policy_lexicon, table_sanity)
{
  char a[256], b[256], rule[48], rule2[64];
  for (size_t i = 0; i < pol__lexicon_len; i++) {
    const pol__lex_entry *e = &pol__lexicon[i];
    size_t n = pol__normalize(e->phrase, 0, a, sizeof a);
    cr_expect_gt(n, 2, "empty phrase at %zu", i);
    for (size_t j = i + 1; j < pol__lexicon_len; j++) {
      pol__normalize(pol__lexicon[j].phrase, 0, b, sizeof b);
      cr_expect(strcmp(a, b), "duplicate phrase \"%s\" (%zu, %zu)", e->phrase, i, j);
    }
    if (e->flags & (POL__LX_WHOLE | POL__LX_DIALOG))
      cr_expect(e->flags & POL__LX_SAFE, "%s: WHOLE/DIALOG without SAFE", e->phrase);
    if (e->flags & POL__LX_SAFE)
      cr_expect_eq(e->cls, POL_SE_LOCAL_UI, "%s", e->phrase);
    else if (!(e->flags & POL__LX_FILLER))
      cr_expect_geq(pol__rank(e->cls), pol__rank(POL_SE_DRAFT),
                    "%s: a risky word must be draft or worse", e->phrase);
    pol__lexicon_rule(e, "lexicon", 1, rule, sizeof rule);
    pol__lexicon_rule(e, "lexicon", 1, rule2, sizeof rule2);
    cr_expect_str_eq(rule, rule2, "rule id of %s is truncated", e->phrase);
    for (const char *p = rule; *p; p++)
      cr_expect(*p > ' ' && *p < 0x7f, "rule id %s is not ASCII", rule);
  }
}

/* The words the project promised (brief), each with its class. */
Test(policy_lexicon, required_words)
{
  static const struct { const char *w; pol_side_effect se; } req[] = {
    {"delete", POL_SE_DESTRUCTIVE}, {"löschen", POL_SE_DESTRUCTIVE},
    {"remove", POL_SE_DESTRUCTIVE}, {"entfernen", POL_SE_DESTRUCTIVE},
    {"destroy", POL_SE_DESTRUCTIVE}, {"vernichten", POL_SE_DESTRUCTIVE},
    {"drop", POL_SE_DESTRUCTIVE}, {"purge", POL_SE_DESTRUCTIVE}, {"erase", POL_SE_DESTRUCTIVE},
    {"wipe", POL_SE_DESTRUCTIVE}, {"reset", POL_SE_DESTRUCTIVE},
    {"zurücksetzen", POL_SE_DESTRUCTIVE}, {"revoke", POL_SE_SECURITY_CHANGE},
    {"widerrufen", POL_SE_SECURITY_CHANGE}, {"archive", POL_SE_DESTRUCTIVE},
    {"archivieren", POL_SE_DESTRUCTIVE}, {"transfer", POL_SE_IRREVERSIBLE},
    {"übertragen", POL_SE_IRREVERSIBLE}, {"cancel subscription", POL_SE_BILLING_CHANGE},
    {"abo kündigen", POL_SE_BILLING_CHANGE}, {"kündigen", POL_SE_BILLING_CHANGE},
    {"deactivate", POL_SE_DESTRUCTIVE}, {"deaktivieren", POL_SE_DESTRUCTIVE},
    {"disable account", POL_SE_DESTRUCTIVE}, {"close account", POL_SE_DESTRUCTIVE},
    {"terminate", POL_SE_DESTRUCTIVE}, {"pay", POL_SE_BILLING_CHANGE},
    {"bezahlen", POL_SE_BILLING_CHANGE}, {"zahlen", POL_SE_BILLING_CHANGE},
    {"buy", POL_SE_BILLING_CHANGE}, {"kaufen", POL_SE_BILLING_CHANGE},
    {"purchase", POL_SE_BILLING_CHANGE}, {"checkout", POL_SE_BILLING_CHANGE},
    {"kasse", POL_SE_BILLING_CHANGE}, {"order", POL_SE_BILLING_CHANGE},
    {"bestellen", POL_SE_BILLING_CHANGE}, {"subscribe", POL_SE_BILLING_CHANGE},
    {"abonnieren", POL_SE_BILLING_CHANGE}, {"upgrade plan", POL_SE_BILLING_CHANGE},
    {"billing", POL_SE_BILLING_CHANGE}, {"send", POL_SE_EXTERNAL_EFFECT},
    {"senden", POL_SE_EXTERNAL_EFFECT}, {"versenden", POL_SE_EXTERNAL_EFFECT},
    {"publish", POL_SE_EXTERNAL_EFFECT}, {"veröffentlichen", POL_SE_EXTERNAL_EFFECT},
    {"invite", POL_SE_EXTERNAL_EFFECT}, {"einladen", POL_SE_EXTERNAL_EFFECT},
    {"share", POL_SE_EXTERNAL_EFFECT}, {"teilen", POL_SE_EXTERNAL_EFFECT},
    {"post", POL_SE_EXTERNAL_EFFECT}, {"submit", POL_SE_WRITE}, {"absenden", POL_SE_WRITE},
    {"email", POL_SE_EXTERNAL_EFFECT}, {"log out", POL_SE_SECURITY_CHANGE},
    {"logout", POL_SE_SECURITY_CHANGE}, {"abmelden", POL_SE_SECURITY_CHANGE},
    {"ausloggen", POL_SE_SECURITY_CHANGE}, {"sign out", POL_SE_SECURITY_CHANGE},
    {"sign-out", POL_SE_SECURITY_CHANGE}, {"change password", POL_SE_SECURITY_CHANGE},
    {"passwort ändern", POL_SE_SECURITY_CHANGE}, {"regenerate", POL_SE_SECURITY_CHANGE},
    {"rotate key", POL_SE_SECURITY_CHANGE}, {"approve", POL_SE_EXTERNAL_EFFECT},
    {"genehmigen", POL_SE_EXTERNAL_EFFECT}, {"reject", POL_SE_EXTERNAL_EFFECT},
    {"ablehnen", POL_SE_EXTERNAL_EFFECT}, {"confirm", POL_SE_WRITE},
    {"bestätigen", POL_SE_WRITE}, {"save", POL_SE_WRITE}, {"speichern", POL_SE_WRITE},
    {"create", POL_SE_WRITE}, {"erstellen", POL_SE_WRITE}, {"anlegen", POL_SE_WRITE},
    {"import", POL_SE_WRITE}, {"upload", POL_SE_WRITE}, {"hochladen", POL_SE_WRITE},
    {"sync", POL_SE_EXTERNAL_EFFECT}, {"restore", POL_SE_WRITE}, {"merge", POL_SE_WRITE},
    {"move", POL_SE_WRITE}, {"rename", POL_SE_WRITE}, {"duplicate", POL_SE_WRITE},
  };
  for (size_t i = 0; i < sizeof req / sizeof req[0]; i++) {
    const pol__lex_entry *e = risky(req[i].w);
    cr_expect_not_null(e, "%s missing", req[i].w);
    if (e)
      cr_expect_eq(e->cls, req[i].se, "%s: %s", req[i].w, pol_side_effect_name(e->cls));
  }
  static const char *const safe[] = {"open", "close", "show", "hide", "expand", "collapse",
    "more", "details", "menu", "next", "previous", "back", "view", "filter", "sort", "search",
    "refresh", "öffnen", "schließen", "anzeigen", "weiter", "zurück"};
  for (size_t i = 0; i < sizeof safe / sizeof safe[0]; i++) {
    pol__scan s;
    pol__lexicon_scan(safe[i], 0, &s);
    cr_expect(s.safe_signal && !s.risky, "%s should be a safe word", safe[i]);
  }
}

Test(policy_url, scheme_kinds)
{
  char sch[16];
  cr_assert_eq(pol__url_scheme("https://x/", sch, sizeof sch), POL__URL_HTTP);
  cr_assert_eq(pol__url_scheme(" HTTP://x/", sch, sizeof sch), POL__URL_HTTP);
  cr_assert_str_eq(sch, "http");
  cr_assert_eq(pol__url_scheme("mailto:a@b", sch, sizeof sch), POL__URL_OTHER);
  cr_assert_str_eq(sch, "mailto");
  cr_assert_eq(pol__url_scheme("JavaScript:void(0)", sch, sizeof sch), POL__URL_SCRIPT);
  /* browsers drop tabs and newlines: this is javascript:, not a relative path */
  cr_assert_eq(pol__url_scheme("java\tscript:alert(1)", sch, sizeof sch), POL__URL_SCRIPT);
  cr_assert_eq(pol__url_scheme("#/r1", sch, sizeof sch), POL__URL_RELATIVE);
  cr_assert_eq(pol__url_scheme("/a:b", sch, sizeof sch), POL__URL_RELATIVE);
  cr_assert_eq(pol__url_scheme(NULL, sch, sizeof sch), POL__URL_NONE);
  cr_assert_eq(pol__url_scheme(" ", sch, sizeof sch), POL__URL_NONE);
  /* a long scheme is another program's, even when the buffer cuts it */
  char small[4];
  cr_assert_eq(pol__url_scheme("httpsx://x", small, sizeof small), POL__URL_OTHER);
  cr_assert_str_eq(small, "htt");
  cr_assert_eq(pol__url_scheme("https://x", small, sizeof small), POL__URL_HTTP);
}

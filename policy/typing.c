/* typing.c -- pol__text_entry(): whether typing into a text field only
 * reads (a search or a filter: safe_explore types into it) or drafts data
 * the app may keep (everything else: only sandbox_write types into it).
 * Issue 27, section 3; docs/safety.md "Typing".
 *
 * Only entering text is judged here (ui.clearText stays a draft). A field
 * reads when it is a one-line text or search field whose name has
 * no risky word, that asks for nothing personal (by its type, autocomplete
 * or a label that names a person: pg_pii_name_label), and
 *   - it belongs to a GET form (method GET or none) that submits to the
 *     app's origins, whose URL and submit controls have no risky word and
 *     that asks for no password, payment, one-time code or personal data
 *     (rule text.form.get); or, outside any form,
 *   - it is a search field (role searchbox, input type=search: rule
 *     text.searchbox), or sits in a search landmark (text.search_landmark),
 *     or its name says search/find/filter (text.search_name), or a list,
 *     table or listbox shares its section (text.filter, inferred: a field
 *     next to a list filters it; what it sends is still the write guard's
 *     to judge, and a request other than a read fails there).
 * A field of any other form -- POST or another method, one that asks for
 * personal data, whose submit reads as a write ("Sign up", "Save") or
 * whose action leaves the app or reads as a write -- is a write form's
 * field: draft, never typed into in safe_explore. Passwords, credentials,
 * payment and sensitive fields are denied before this (classify.c step 1).
 */
#include <string.h>

#include "pg.h"
#include "pg_url.h"
#include "pol_int.h"

/* Input types whose value is free one-line text; NULL: no type attribute. */
static const char *const text_types[] = {"text", "search"};

static int one_line_text(const pol_subject *s)
{
  if (pol__attr_eq(s->role, "searchbox"))
    return 1;
  if (!pol__attr_eq(s->tag, "input"))
    return 0; /* a textarea or contenteditable holds free text: drafts */
  if (!s->input_type || !*s->input_type)
    return 1;
  for (size_t i = 0; i < sizeof text_types / sizeof *text_types; i++)
    if (pol__attr_eq(s->input_type, text_types[i]))
      return 1;
  return 0;
}

/* Safe words of a name that say "search": the field is a search box. */
static const char *const search_words[] = {"search", "find", "filter", "filters",
                                           "suche", "suchen", "filtern"};

static const char *search_word(const pol__scan *name)
{
  if (!name->safe_signal || !name->safe)
    return NULL;
  for (size_t i = 0; i < sizeof search_words / sizeof *search_words; i++)
    if (pol__attr_eq(name->safe->phrase, search_words[i]))
      return name->safe->phrase;
  return NULL;
}

/* 1 when url (absolute) is on the page's origin or an allowed one. */
static int on_app_origin(const pol_subject *s, const char *url)
{
  char o[320];
  if (!url || pol__url_scheme(url, o, sizeof o) != POL__URL_HTTP)
    return 0;
  if (pg_url_origin(url, o, sizeof o) < 0)
    return 0;
  if (s->page_origin && pg_url_same_origin(s->page_origin, o))
    return 1;
  for (size_t i = 0; s->allowed_origins && i < s->n_allowed_origins; i++)
    if (s->allowed_origins[i] && pg_url_same_origin(s->allowed_origins[i], o))
      return 1;
  return 0;
}

static void verdict(pol__text_verdict *out, pol_side_effect se, const char *rule,
                    const char *keyword, const char *where, const char *explain)
{
  out->se = se;
  out->rule = rule;
  out->keyword = keyword;
  out->where = where;
  out->explain = explain;
  out->inferred = 0;
}

/* A field of a form: 1 with a read verdict when the form only reads,
 * else 0 with the write form's verdict. */
static int form_reads(const pol_subject *s, pol__text_verdict *out)
{
  if (!pol__attr_eq(s->form_method, "get"))
    return verdict(out, POL_SE_DRAFT, "text.form.write", NULL, "form_method",
                   "a field of a form that does not submit by GET (a write form)"), 0;
  if (s->form_personal)
    return verdict(out, POL_SE_DRAFT, "text.form.personal", NULL, "attribute",
                   "a field of a form that asks for a password, payment or personal data"), 0;
  if (!on_app_origin(s, s->form_action))
    return verdict(out, POL_SE_DRAFT, "text.form.elsewhere", NULL, "form_action",
                   "a field of a form that submits outside the app's origins"), 0;
  int too_long = 0;
  const pol__lex_entry *u = pol__url_words(pg_url_rest(s->form_action), &too_long);
  if ((u && pol__rank((pol_side_effect)u->cls) > pol__rank(POL_SE_READ)) || too_long)
    return verdict(out, POL_SE_DRAFT, "text.form.url", u ? u->phrase : NULL, "form_action",
                   "a field of a form whose URL reads as a write"), 0;
  pol__scan sub;
  pol__lexicon_scan(s->form_submits, 0, &sub);
  if (sub.risky && pol__rank((pol_side_effect)sub.risky->cls) > pol__rank(POL_SE_READ))
    return verdict(out, POL_SE_DRAFT, "text.form.submit", sub.risky->phrase, "form_submits",
                   "a field of a form whose submit reads as a write"), 0;
  verdict(out, POL_SE_READ, "text.form.get", NULL, "form_method",
          "a field of a GET form on the app's origins: submitting it only reads");
  return 1;
}

void pol__text_entry(const pol_subject *s, const pol__scan *name, pol__text_verdict *out)
{
  verdict(out, POL_SE_DRAFT, "action.text_entry", NULL, "action", NULL);
  if (!pol__attr_eq(s->action, "ui.enterText") || !one_line_text(s) || pol_subject_data_class(s) != POL_DC_NONE ||
      (s->app_action && *s->app_action) || (s->name && pg_pii_name_label(s->name)))
    return; /* free text, personal data ("Username", "Full name"), an app's own action */
  if (name->risky && pol__rank((pol_side_effect)name->risky->cls) > pol__rank(POL_SE_READ)) {
    out->keyword = name->risky->phrase; /* "New task", "Add a comment" */
    out->where = "name";
    return;
  }
  if (s->form_method) {
    form_reads(s, out);
    return;
  }
  const char *word = search_word(name);
  if (pol__attr_eq(s->role, "searchbox"))
    verdict(out, POL_SE_READ, "text.searchbox", NULL, "role", "a search field: typing only reads");
  else if (s->in_search)
    verdict(out, POL_SE_READ, "text.search_landmark", NULL, "role",
            "a field of a search landmark: typing only reads");
  else if (word)
    verdict(out, POL_SE_READ, "text.search_name", word, "name", "a field named for searching");
  else if (s->near_collection) {
    verdict(out, POL_SE_READ, "text.filter", NULL, "context",
            "a field outside any form next to a list: a filter (inferred)");
    out->inferred = 1;
  }
}

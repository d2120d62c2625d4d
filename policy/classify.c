/* classify.c -- pol_classify(): which SideEffectClass performing an action
 * on a page element has, and which rule decided it; plus the data class and
 * sensitivity of fields.
 *
 * The order of evidence follows discovery-mapper sections 11 and 13
 * (annotations, then native HTML/ARIA, then text, then heuristics):
 *
 *   0. passive actions (ui.focus, ui.scroll, ui.hover)     -> none
 *   1. hard native facts, which no annotation or wording can soften:
 *      credential / payment fields, `download`, file inputs, non-http(s)
 *      schemes, links and form actions that leave the allowed origins
 *   2. data-uiap-risk: blocked -> the deny class (destructive unless the
 *      words say billing/security/external/irreversible); safe -> trusted,
 *      the role's class without any lexicon; confirm -> at least write
 *   3. fixed cases: text entry -> read for a search or filter field,
 *      else draft (typing.c); dismissing a dialog -> local_ui;
 *      a tab -> local_ui (a tab only switches panels, whatever its label);
 *      the control's own semantics before the words of its label (table
 *      own_semantics): a <summary>, or a button with aria-expanded (an
 *      accordion header "DELETE /pets/{petId} Delete a pet") only discloses;
 *      a button with aria-expanded and aria-haspopup menu|listbox|dialog
 *      whose own name names no side effect only opens its popup ("Project
 *      actions" under a "Delete project" heading) -- only for a plain click:
 *      no href, no submission, no data-uiap-risk, no app action, no hard
 *      fact of step 1, no trash icon (rules signal.summary, signal.expanded,
 *      signal.haspopup, as in step 7). What they reveal is judged on its own.
 *      A plain same-origin link (role link, no download, no target=_blank,
 *      not in a dialog or menu) is judged by its own name and href: the
 *      nearby text is not read, nor channel words ("call") in its name
 *   4. keyword lexicons (lexicon.c) over the accessible name, an app action
 *      id, and the nearby text (skipped when the name is a plain local-UI
 *      word such as "Cancel", so a dialog titled "Delete project?" does not
 *      taint its own Cancel button; but an "OK" in it is destructive).
 *      A name without words (a glyph, an icon font code point, a ligature)
 *      is not read as words: icons (icons.c) read it, with the control's
 *      icon classes: a trash icon is destructive, a close or minus icon on
 *      an entry of a collection removes it (destructive), and one whose
 *      container does not settle it is unknown
 *   5. an app action (data-uiap-action or a non-ui./nav. action id) with no
 *      lexicon hit is unknown, never local_ui
 *   6. soft native semantics: form submit by method (submit_methods), form
 *      reset, same-origin links, the words of the URL a link or a form
 *      submission requests (pol__url_words: the URL rows of lexicon.c, one
 *      reading for links, forms and pol_url_intent), nav.back
 *   The worst class among the evidence of steps 1, 4 and 6 wins (pol__rank),
 *   so "unless the lexicon says worse" holds everywhere.
 *   7. nothing yet: role defaults and local-UI signals (tables below), a
 *      close icon inside a dialog, popover, toast, drawer, menu or chip;
 *      otherwise unknown.
 */
#include <stdio.h>
#include <string.h>

#include "pg_url.h"
#include "pol_int.h"
#include "pg.h"

/* ---- the action being performed ----------------------------------------- */

enum { ACT_ACTIVATE, ACT_PASSIVE, ACT_TEXT, ACT_SUBMIT, ACT_DISCLOSE,
       ACT_DISMISS, ACT_BACK, ACT_NAVIGATE, ACT_APP };

/* Primitive action ids (core-decisions; mapper 15.4). Any other ui.* or nav.*
 * id is treated as an activation; anything else is an app action id. */
static const struct { const char *id; int kind; } action_kinds[] = {
  {"ui.focus", ACT_PASSIVE},      {"ui.scroll", ACT_PASSIVE},
  {"ui.hover", ACT_PASSIVE},
  {"ui.enterText", ACT_TEXT},     {"ui.clearText", ACT_TEXT},
  {"ui.submit", ACT_SUBMIT},
  {"ui.expand", ACT_DISCLOSE},    {"ui.collapse", ACT_DISCLOSE},
  {"ui.dismiss", ACT_DISMISS},
  {"nav.back", ACT_BACK},         {"nav.navigate", ACT_NAVIGATE},
  {"ui.activate", ACT_ACTIVATE},  {"ui.toggle", ACT_ACTIVATE},
  {"ui.choose", ACT_ACTIVATE},
};

static int action_kind(const char *id)
{
  if (!id || !*id)
    return ACT_ACTIVATE;
  for (size_t i = 0; i < sizeof action_kinds / sizeof action_kinds[0]; i++)
    if (!strcmp(id, action_kinds[i].id))
      return action_kinds[i].kind;
  if (!strncmp(id, "ui.", 3) || !strncmp(id, "nav.", 4))
    return ACT_ACTIVATE;
  return ACT_APP;
}

/* ---- role defaults and local-UI signals (step 7) ------------------------- */

/* Roles whose activation only changes local UI state: switching a tab,
 * toggling a checkbox/switch/radio (form state until a submit), choosing an
 * option, opening a combobox or tree item, moving a slider. Their names are
 * still run through the lexicon first (step 4), so a switch named "Enable
 * two-factor authentication" or a checkbox "Delete files after upload" is
 * not local UI. Plain `menuitem` and `button` are deliberately absent: menus
 * and toolbars are where apps put their commands ("Remove all members"), so
 * they need a signal below. */
static const struct { const char *role; const char *rule; } role_defaults[] = {
  {"tab", "role.tab"},
  {"switch", "role.switch"},
  {"checkbox", "role.checkbox"},
  {"radio", "role.radio"},
  {"menuitemcheckbox", "role.menuitemcheckbox"},
  {"menuitemradio", "role.menuitemradio"},
  {"option", "role.option"},
  {"treeitem", "role.treeitem"},
  {"combobox", "role.combobox"},
  {"listbox", "role.listbox"},
  {"slider", "role.slider"},
  {"spinbutton", "role.spinbutton"},
  {"textbox", "role.textbox"},
  {"searchbox", "role.searchbox"},
  {"scrollbar", "role.scrollbar"},
};

static int has(const char *v) { return v && *v; }

static int sig_summary(const pol_subject *s, int act)
{
  (void)act;
  return pol__attr_eq(s->tag, "summary");
}
static int sig_expanded(const pol_subject *s, int act)
{
  (void)act;
  return s->has_aria_expanded;
}
static int sig_haspopup(const pol_subject *s, int act)
{
  (void)act;
  return has(s->aria_haspopup) && !pol__attr_eq(s->aria_haspopup, "false");
}
static int sig_controls(const pol_subject *s, int act)
{
  (void)act;
  return s->has_aria_controls;
}
static int sig_tablist(const pol_subject *s, int act)
{
  (void)act;
  return pol__attr_eq(s->container_role, "tablist");
}
static int sig_sort(const pol_subject *s, int act)
{
  (void)act;
  return s->sort_header;
}
static int sig_disclose(const pol_subject *s, int act)
{
  (void)s;
  return act == ACT_DISCLOSE;
}
static int sig_dismiss(const pol_subject *s, int act)
{
  (void)s;
  return act == ACT_DISMISS;
}

/* A plain button/link/menuitem with no risky word is local UI only with one
 * of these signals (checked in this order), or with a safe word in its name
 * ("signal.safe_word"). Being inside a toolbar or menu is NOT a signal. */
static const struct {
  int (*test)(const pol_subject *, int act);
  const char *rule;
  const char *where;
} signals[] = {
  {sig_summary,  "signal.summary",  "role"},      /* <summary> disclosure */
  {sig_expanded, "signal.expanded", "attribute"}, /* accordion, disclosure */
  {sig_haspopup, "signal.haspopup", "attribute"}, /* menu/dialog button */
  {sig_controls, "signal.controls", "attribute"}, /* toggles a region */
  {sig_tablist,  "signal.tablist",  "role"},      /* inside a tablist */
  {sig_sort,     "signal.sort",     "attribute"}, /* a header with aria-sort, or in one */
  {sig_disclose, "signal.expand",   "action"},    /* ui.expand/ui.collapse */
  {sig_dismiss,  "signal.dismiss",  "action"},    /* ui.dismiss */
};

/* ---- data classes -------------------------------------------------------- */

/* autocomplete tokens (WHATWG autofill field names), lower case; any case
 * in the page matches (pg_autocomplete_has). A trailing '-' in the token
 * means "this prefix". The worst class over all tokens wins (dc_rank). */
static const struct { const char *token; pol_data_class dc; } autofill[] = {
  {"current-password", POL_DC_CREDENTIAL}, {"new-password", POL_DC_CREDENTIAL},
  {"one-time-code", POL_DC_SECRET},
  {"cc-", POL_DC_PAYMENT},
  {"transaction-", POL_DC_FINANCIAL},
  {"email", POL_DC_CONTACT}, {"tel", POL_DC_CONTACT}, {"tel-", POL_DC_CONTACT},
  {"impp", POL_DC_CONTACT},
  {"name", POL_DC_PII}, {"given-name", POL_DC_PII}, {"family-name", POL_DC_PII},
  {"additional-name", POL_DC_PII}, {"honorific-prefix", POL_DC_PII},
  {"honorific-suffix", POL_DC_PII}, {"nickname", POL_DC_PII},
  {"username", POL_DC_PII}, {"street-address", POL_DC_PII},
  {"address-", POL_DC_PII}, {"postal-code", POL_DC_PII},
  {"country", POL_DC_PII}, {"country-name", POL_DC_PII}, {"bday", POL_DC_PII},
  {"bday-", POL_DC_PII}, {"sex", POL_DC_PII}, {"photo", POL_DC_PII},
};

static const unsigned char dc_rank[POL__DC_COUNT] = {
  [POL_DC_NONE] = 0, [POL_DC_FREE_TEXT] = 1, [POL_DC_CONTACT] = 2,
  [POL_DC_PII] = 3, [POL_DC_FINANCIAL] = 4, [POL_DC_PAYMENT] = 5,
  [POL_DC_SECRET] = 6, [POL_DC_CREDENTIAL] = 7,
};

static pol_data_class worse_dc(pol_data_class a, pol_data_class b)
{
  return dc_rank[b] > dc_rank[a] ? b : a;
}

/* Worst data class over the autocomplete tokens (graph/autofill.c reads
 * them: whitespace separated, ASCII case-insensitive). */
static pol_data_class autocomplete_dc(const char *ac)
{
  pol_data_class dc = POL_DC_NONE;
  for (size_t i = 0; ac && i < sizeof autofill / sizeof autofill[0]; i++)
    if (pg_autocomplete_has(ac, autofill[i].token))
      dc = worse_dc(dc, autofill[i].dc);
  return dc;
}

static int sensitive_attr(const pol_subject *s)
{
  return s->sensitive && !pol__attr_eq(s->sensitive, "false");
}

pol_data_class pol_subject_data_class(const pol_subject *s)
{
  if (!s)
    return POL_DC_NONE;
  pol_data_class dc = autocomplete_dc(s->autocomplete);
  if (pol__attr_eq(s->input_type, "password"))
    dc = worse_dc(dc, POL_DC_CREDENTIAL);
  if (sensitive_attr(s))
    dc = worse_dc(dc, POL_DC_SECRET);
  if (pol__attr_eq(s->input_type, "email") || pol__attr_eq(s->input_type, "tel"))
    dc = worse_dc(dc, POL_DC_CONTACT);
  if (pol__attr_eq(s->tag, "textarea"))
    dc = worse_dc(dc, POL_DC_FREE_TEXT);
  return dc;
}

int pol_is_sensitive_field(const pol_subject *s)
{
  if (!s)
    return 0;
  if (pol__attr_eq(s->input_type, "password") || sensitive_attr(s))
    return 1;
  pol_data_class dc = autocomplete_dc(s->autocomplete);
  return dc == POL_DC_CREDENTIAL || dc == POL_DC_SECRET || dc == POL_DC_PAYMENT;
}

/* ---- evidence accumulation ----------------------------------------------- */

typedef struct {
  int set;
  pol_side_effect se;
  char rule[48];
  const char *keyword;
  const char *where;
  const char *explain;
  int inferred;
} cand;

/* Evidence with its phrase for people and whether it was inferred. */
static void offer_ex(cand *c, pol_side_effect se, const char *rule, const char *keyword,
                     const char *where, const char *explain, int inferred)
{
  if (c->set && pol__rank(se) <= pol__rank(c->se))
    return;
  c->set = 1;
  c->se = se;
  snprintf(c->rule, sizeof c->rule, "%s", rule);
  c->keyword = keyword;
  c->where = where;
  c->explain = explain;
  c->inferred = inferred;
}

static void offer(cand *c, pol_side_effect se, const char *rule,
                  const char *keyword, const char *where)
{
  offer_ex(c, se, rule, keyword, where, NULL, 0);
}

static void offer_lex(cand *c, const pol__lex_entry *e, const char *prefix,
                      const char *where)
{
  char rule[48];
  if (!e)
    return;
  int url = !strcmp(prefix, "url");
  pol__lexicon_rule(e, prefix, !url, rule, sizeof rule);
  offer_ex(c, (pol_side_effect)e->cls, rule, e->phrase, where,
           url ? pol__url_explain((pol_side_effect)e->cls) : NULL, 0);
}

/* The words of a URL (a link's, a submission's): pol__url_words. */
static void offer_url(cand *c, const char *path, const char *where)
{
  int too_long;
  offer_lex(c, pol__url_words(path, &too_long), "url", where);
  if (too_long)
    offer_ex(c, POL_SE_UNKNOWN, "url.too_long", NULL, where,
             "the URL is too long to read all of its words", 0);
}

/* ---- URLs ---------------------------------------------------------------- */

/* 0: same or allowed origin; 1: another origin; -1: cannot tell.
 * url is an absolute http(s) URL; one without a host is another origin. */
static int origin_state(const pol_subject *s, const char *url)
{
  char o[320];
  if (pg_url_origin(url, o, sizeof o) < 0)
    return 1;
  if (s->page_origin && pg_url_same_origin(s->page_origin, o))
    return 0;
  for (size_t i = 0; s->allowed_origins && i < s->n_allowed_origins; i++)
    if (s->allowed_origins[i] && pg_url_same_origin(s->allowed_origins[i], o))
      return 0;
  if (!s->page_origin && (!s->allowed_origins || !s->n_allowed_origins))
    return -1;
  return 1;
}

/* Hard facts about a URL (href or form action): other schemes and other
 * origins. *path_out gets the part to match against URL words, or NULL if
 * the URL leads nowhere the lexicon applies to. Returns 1 if it is a
 * same-origin http(s) target. */
static int url_facts(const pol_subject *s, const char *url, const char *where,
                     const char *rule_stem, cand *c, const char **path_out)
{
  char scheme[24], rule[48];
  *path_out = NULL;
  switch (pol__url_scheme(url, scheme, sizeof scheme)) {
  case POL__URL_NONE:
  case POL__URL_SCRIPT: /* javascript: runs in the page, like a button */
    return 0;
  case POL__URL_OTHER: /* mailto: tel: sms: file: data: blob: app schemes */
    for (char *q = scheme; *q; q++)
      if (!((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9')))
        *q = '_';
    snprintf(rule, sizeof rule, "%s.scheme.%s", rule_stem, scheme);
    offer(c, POL_SE_EXTERNAL_EFFECT, rule, NULL, where);
    return 0;
  case POL__URL_RELATIVE:
    if (url[0] == '/' && url[1] == '/') { /* scheme-relative: another host? */
      char abs[POL__TEXT_MAX + 16];
      const char *https = s->page_origin && !strncmp(s->page_origin, "https:", 6)
                            ? "https:" : "http:";
      snprintf(abs, sizeof abs, "%s%s", https, url);
      int st = origin_state(s, abs);
      if (st != 0) {
        snprintf(rule, sizeof rule, "%s.%s", rule_stem,
                 st < 0 ? "origin_unknown" : "cross_origin");
        offer(c, st < 0 ? POL_SE_UNKNOWN : POL_SE_EXTERNAL_EFFECT, rule, NULL, where);
      }
      *path_out = url + 2;
      return st == 0;
    }
    *path_out = url; /* unresolved relative URL: same document's origin */
    return 1;
  case POL__URL_HTTP: {
    int st = origin_state(s, url);
    if (st != 0) {
      snprintf(rule, sizeof rule, "%s.%s", rule_stem,
               st < 0 ? "origin_unknown" : "cross_origin");
      offer(c, st < 0 ? POL_SE_UNKNOWN : POL_SE_EXTERNAL_EFFECT, rule, NULL, where);
    }
    *path_out = pg_url_rest(url);
    return st == 0;
  }
  }
  return 0;
}

/* ---- classification ------------------------------------------------------ */

/* data-uiap-risk is read by graph/'s parser only (pg_risk_parse: trimmed,
 * any case, unknown -> confirm), so the policy and the published graph
 * never disagree about what a value means. */
static pol_risk_level parse_risk(const char *v)
{
  static const pol_risk_level levels[] = {
    [PG_RISK_NONE] = POL_RISK_NONE,
    [PG_RISK_SAFE] = POL_RISK_SAFE,
    [PG_RISK_CONFIRM] = POL_RISK_CONFIRM,
    [PG_RISK_BLOCKED] = POL_RISK_BLOCKED,
  };
  return levels[pg_risk_parse(v)];
}

static const char *role_default(const pol_subject *s)
{
  if (!s->role)
    return NULL;
  for (size_t i = 0; i < sizeof role_defaults / sizeof role_defaults[0]; i++)
    if (pol__attr_eq(s->role, role_defaults[i].role))
      return role_defaults[i].rule;
  return NULL;
}

static int in_dialog(const pol_subject *s, int act)
{
  return act == ACT_DISMISS || pol__attr_eq(s->container_role, "dialog") ||
         pol__attr_eq(s->container_role, "alertdialog");
}

static void finish(const cand *c, pol_classification *out)
{
  out->side_effect = c->se;
  snprintf(out->rule, sizeof out->rule, "%s", c->rule);
  out->keyword = c->keyword;
  out->where = c->where;
  out->explain = c->explain;
  out->inferred = c->inferred;
}

/* ---- the control's own semantics (step 3) --------------------------------- */

/* aria-haspopup values whose popup only shows more controls (ARIA: "true"
 * is a menu). "tree" and "grid" are left to the words. */
static const char *const popup_kinds[] = {"menu", "true", "listbox", "dialog"};

static int popup_kind(const char *v)
{
  for (size_t i = 0; i < sizeof popup_kinds / sizeof popup_kinds[0]; i++)
    if (pol__attr_eq(v, popup_kinds[i]))
      return 1;
  return 0;
}

enum { SEM_NONE, SEM_SUMMARY, SEM_DISCLOSURE, SEM_POPUP };

static const struct { const char *rule; const char *where; const char *explain; } sem_rules[] = {
  [SEM_SUMMARY] = {"signal.summary", "role", "opens or closes its <details>: it only shows content"},
  [SEM_DISCLOSURE] = {"signal.expanded", "attribute",
                      "a disclosure (aria-expanded): it only shows or hides a panel"},
  [SEM_POPUP] = {"signal.haspopup", "attribute",
                 "opens its menu, listbox or dialog (aria-haspopup, aria-expanded)"},
};

/* What the control's own markup says a click does. A popup trigger whose
 * own name names a side effect ("Delete" with a menu) is left to the
 * words. */
static int own_semantics(const pol_subject *s, const pol__scan *name_scan)
{
  if (pol__attr_eq(s->tag, "summary"))
    return SEM_SUMMARY;
  if (!pol__attr_eq(s->role, "button") || !s->has_aria_expanded)
    return SEM_NONE;
  if (!has(s->aria_haspopup) || pol__attr_eq(s->aria_haspopup, "false"))
    return SEM_DISCLOSURE;
  return popup_kind(s->aria_haspopup) && !name_scan->risky ? SEM_POPUP : SEM_NONE;
}

/* A click and nothing else: no link, no submission, no annotation, no app
 * action, no hard fact (step 1), no trash icon. */
static int plain_click(const pol_subject *s, int act, int submit, int app,
                       pol_risk_level risk, const cand *c, const pol__icon *ic)
{
  return (act == ACT_ACTIVATE || act == ACT_DISCLOSE) && !submit && !app &&
         risk == POL_RISK_NONE && !has(s->href) && !c->set &&
         ic->meaning != POL__ICON_DELETE && !pol__attr_eq(s->input_type, "submit") &&
         !pol__attr_eq(s->input_type, "image");
}

/* Containers whose name says what their links do ("Delete project?" over
 * a "Yes" link): their text still counts for a link. */
static const char *const telling_containers[] = {"dialog", "alertdialog", "menu", "popover"};

/* A plain same-origin link: judged by its own name and href, not by the
 * words of its group or neighbours. */
static int plain_link(const pol_subject *s, int act, int submit, int same_origin_link)
{
  if (!same_origin_link || submit || s->has_download || s->opens_window ||
      (act != ACT_ACTIVATE && act != ACT_NAVIGATE) ||
      !(pol__attr_eq(s->role, "link") || pol__attr_eq(s->tag, "a")))
    return 0;
  for (size_t i = 0; i < sizeof telling_containers / sizeof telling_containers[0]; i++)
    if (pol__attr_eq(s->container_role, telling_containers[i]) ||
        pol__attr_eq(s->container_kind, telling_containers[i]))
      return 0;
  return 1;
}

/* ---- form submissions (step 6) ------------------------------------------- */

/* The method of a submission (the control's formmethod, else its form's).
 * HTML knows get, post and dialog; put, patch and delete are what scripts
 * and method-override frameworks read from the attribute, so they count. */
static const struct { const char *method; pol_side_effect se; const char *rule; } submit_methods[] = {
  {"post", POL_SE_WRITE, "native.submit.post"},
  {"put", POL_SE_WRITE, "native.submit.put"},
  {"patch", POL_SE_WRITE, "native.submit.patch"},
  {"delete", POL_SE_DESTRUCTIVE, "native.submit.delete"},
  {"get", POL_SE_READ, "native.submit.get"},
  {"dialog", POL_SE_LOCAL_UI, "native.submit.dialog"},
};

static void offer_submit(const pol_subject *s, cand *c, const char *action_path)
{
  size_t i, n = sizeof submit_methods / sizeof submit_methods[0];
  for (i = 0; s->form_method && i < n; i++)
    if (pol__attr_eq(s->form_method, submit_methods[i].method)) {
      offer(c, submit_methods[i].se, submit_methods[i].rule, NULL, "attribute");
      break;
    }
  if (s->form_method && i == n)
    offer(c, POL_SE_UNKNOWN, "native.submit.method_unknown", NULL, "attribute");
  if (s->form_action && strnlen(s->form_action, PG_SUBMIT_URL_MAX) >= PG_SUBMIT_URL_MAX)
    offer_ex(c, POL_SE_UNKNOWN, "native.submit.url_cut", NULL, "form_action",
             "the form's URL was cut: its tail is not known", 0);
  if (action_path)
    offer_url(c, action_path, "form_action");
}

/* ---- icons (step 4 and 7) ------------------------------------------------ */

static const char *const icon_rules[][4] = {
  /* meaning x context: none, dismiss, item, other */
  [POL__ICON_CLOSE] = {"icon.close.no_context", "icon.close.dismiss", "icon.close.item", "icon.close.other"},
  [POL__ICON_MINUS] = {"icon.minus.no_context", "icon.minus.no_context", "icon.minus.item", "icon.minus.other"},
};

/* The icon evidence of a subject and what its container makes of it. */
typedef struct {
  pol__icon ic;
  int ctx;             /* POL__CTX_* */
  const char *phrase;  /* what a close glyph does there */
  int wordless;        /* the name has no words (or there is none) */
  int dismiss;         /* a close icon in a dismiss container, and no words
                          that say otherwise: local UI (step 7) */
} icon_view;

/* Reads the icons of s; a name without words is not read as words, so
 * its lexicon scan is cleared. */
static void icon_view_read(const pol_subject *s, pol__scan *name_scan, icon_view *v)
{
  pol__icon_read(s, &v->ic);
  v->ctx = pol__icon_context(s, &v->phrase);
  v->wordless = v->ic.name_is_icon || !has(s->name);
  if (v->ic.name_is_icon)
    memset(name_scan, 0, sizeof *name_scan);
  v->dismiss = v->ic.meaning == POL__ICON_CLOSE && v->ctx == POL__CTX_DISMISS &&
               (v->wordless || name_scan->safe_signal);
}

/* Step 4: what an icon says whatever the words: a trash icon deletes; a
 * close or minus icon on an entry of a collection removes it; one that
 * nothing around settles is unknown -- when the name has no words that
 * could settle it either. */
static void offer_icon(cand *c, const icon_view *v)
{
  const pol__icon *ic = &v->ic;
  int ctx = v->ctx, wordless = v->wordless;
  const char *phrase = v->phrase;
  if (ic->meaning == POL__ICON_DELETE) {
    offer_ex(c, POL_SE_DESTRUCTIVE, "icon.delete", ic->token, "icon", "deletes (a trash or delete icon)", 1);
  } else if (ic->meaning == POL__ICON_CLOSE || ic->meaning == POL__ICON_MINUS) {
    const char *rule = icon_rules[ic->meaning][ctx];
    if (ctx == POL__CTX_ITEM)
      offer_ex(c, POL_SE_DESTRUCTIVE, rule, ic->token, "icon", phrase, 1);
    else if (wordless && (ctx != POL__CTX_DISMISS || ic->meaning == POL__ICON_MINUS))
      offer_ex(c, POL_SE_UNKNOWN, rule, ic->token, "icon",
               ctx == POL__CTX_DISMISS ? "a minus icon in a dialog or popover: what it lessens is not known"
                                       : phrase, 1);
  }
}

/* ---- pol_classify, step by step ------------------------------------------- */

/* What the steps share: the subject, what it is asked to do, and what its
 * words, URLs and icons say. */
typedef struct {
  const pol_subject *s;
  pol_risk_level risk;
  int act, app, submit, scan_flags;
  int same_origin_link;
  const char *href_path, *action_path;
  pol__scan name_scan, ctx_scan, app_scan, act_scan, class_scan;
  icon_view iv;
} cls_facts;

/* Step 1: offers the hard native facts (password, credential, payment,
 * download, file input) and reads the href and form action. */
static void offer_hard_facts(cls_facts *f, cand *c)
{
  const pol_subject *s = f->s;
  pol_data_class fdc = autocomplete_dc(s->autocomplete);
  if (pol__attr_eq(s->input_type, "password"))
    offer(c, POL_SE_SECURITY_CHANGE, "native.password", NULL, "attribute");
  if (fdc == POL_DC_CREDENTIAL)
    offer(c, POL_SE_SECURITY_CHANGE, "native.autocomplete.credential", NULL, "attribute");
  if (fdc == POL_DC_SECRET)
    offer(c, POL_SE_SECURITY_CHANGE, "native.autocomplete.otp", NULL, "attribute");
  if (sensitive_attr(s))
    offer(c, POL_SE_SECURITY_CHANGE, "annotation.sensitive", NULL, "attribute");
  if (fdc == POL_DC_PAYMENT)
    offer(c, POL_SE_BILLING_CHANGE, "native.autocomplete.payment", NULL, "attribute");
  if (s->has_download)
    offer(c, POL_SE_EXTERNAL_EFFECT, "native.download", NULL, "attribute");
  if (pol__attr_eq(s->input_type, "file") && f->act != ACT_TEXT)
    offer(c, POL_SE_EXTERNAL_EFFECT, "native.file_input", NULL, "attribute");
  f->href_path = f->action_path = NULL;
  f->same_origin_link = url_facts(s, s->href, "href", "url", c, &f->href_path);
  if (f->submit)
    url_facts(s, s->form_action, "form_action", "native.submit", c, &f->action_path);
}

/* Scans the name, context and action ids with the lexicons (used from step
 * 2 on) and reads the icons. */
static void scan_words(cls_facts *f)
{
  const pol_subject *s = f->s;
  int link = plain_link(s, f->act, f->submit, f->same_origin_link) && !f->app;
  pol__lexicon_scan(s->name, f->scan_flags | (link ? POL__SCAN_LINK : 0), &f->name_scan);
  pol__lexicon_scan(link ? NULL : s->context, f->scan_flags, &f->ctx_scan);
  pol__lexicon_scan(s->app_action, POL__SCAN_CAMEL, &f->app_scan);
  pol__lexicon_scan(f->act == ACT_APP ? s->action : NULL, POL__SCAN_CAMEL, &f->act_scan);
  icon_view_read(s, &f->name_scan, &f->iv);
  /* a control without any name or icon: its class words ("btn-delete-row") */
  int nameless = !(s->name && *s->name) && f->iv.ic.meaning == POL__ICON_NONE;
  pol__lexicon_scan(nameless ? s->icon_classes : NULL, POL__SCAN_CAMEL, &f->class_scan);
  if (f->name_scan.safe_signal || f->iv.dismiss) /* "Cancel", "Open details", a
                                                    dialog's ×: no context taint */
    memset(&f->ctx_scan, 0, sizeof f->ctx_scan);
}

/* Offers the risky words of the name, the action ids and the context. */
static void offer_words(const cls_facts *f, cand *c)
{
  offer_lex(c, f->name_scan.risky, "lexicon", "name");
  offer_lex(c, f->class_scan.risky, "lexicon", "class");
  offer_lex(c, f->app_scan.risky, "lexicon", "app_action");
  offer_lex(c, f->act_scan.risky, "lexicon", "app_action");
  offer_lex(c, f->ctx_scan.risky, "lexicon", "context");
}

/* Step 2, data-uiap-risk="blocked": the verdict names the worst evidence
 * known (at least destructive). */
static void decide_blocked(const cls_facts *f, const cand *c, pol_classification *out)
{
  cand words = {0};
  offer_words(f, &words);
  pol_side_effect se = POL_SE_DESTRUCTIVE;
  if (c->set && pol__rank(c->se) >= pol__rank(POL_SE_EXTERNAL_EFFECT))
    se = c->se;
  else if (words.set && pol__rank(words.se) >= pol__rank(POL_SE_EXTERNAL_EFFECT))
    se = words.se;
  cand b = {0};
  offer(&b, se, "annotation.risk.blocked", words.keyword, "attribute");
  finish(&b, out);
}

/* Step 2, data-uiap-risk="safe": the app vouches for its own side effects;
 * that cannot make leaving the origin, a download or a credential field
 * safe (step 1). */
static void decide_safe(const cls_facts *f, cand *c, pol_classification *out)
{
  if (!c->set) {
    pol_side_effect se = f->act == ACT_TEXT ? POL_SE_DRAFT
                       : f->same_origin_link ? POL_SE_NAVIGATION : POL_SE_LOCAL_UI;
    offer(c, se, "annotation.risk.safe", NULL, "attribute");
  }
  finish(c, out);
}

/* Step 3, the fixed cases (text entry, dismissing a dialog, a tab, a
 * control whose markup says what a click does); 1 when one decided. */
static int fixed_case(const cls_facts *f, cand *c)
{
  const pol_subject *s = f->s;
  if (f->act == ACT_TEXT) { /* a search or filter reads, else a draft (typing.c) */
    pol__text_verdict v;
    pol__text_entry(s, &f->name_scan, &v);
    offer_ex(c, v.se, v.rule, v.keyword, v.where, v.explain, v.inferred);
    return 1;
  }
  if (f->act == ACT_DISMISS && (pol__attr_eq(s->role, "dialog") ||
                                pol__attr_eq(s->role, "alertdialog"))) {
    offer(c, POL_SE_LOCAL_UI, "action.dismiss", NULL, "action");
    return 1;
  }
  if (pol__attr_eq(s->role, "tab") && !f->app) {
    offer(c, POL_SE_LOCAL_UI, "role.tab", NULL, "role");
    return 1;
  }
  int sem = own_semantics(s, &f->name_scan);
  if (sem != SEM_NONE && plain_click(s, f->act, f->submit, f->app, f->risk, c, &f->iv.ic)) {
    offer_ex(c, POL_SE_LOCAL_UI, sem_rules[sem].rule, NULL, sem_rules[sem].where,
             sem_rules[sem].explain, 0);
    return 1;
  }
  return 0;
}

/* Step 6: offers the soft native semantics (submission, reset, the href,
 * going back). */
static void offer_soft_native(const cls_facts *f, cand *c)
{
  const pol_subject *s = f->s;
  if (f->submit)
    offer_submit(s, c, f->action_path);
  else if (pol__attr_eq(s->input_type, "reset"))
    offer(c, POL_SE_LOCAL_UI, "native.form_reset", NULL, "attribute");
  if (f->href_path) {
    offer_url(c, f->href_path, "href");
    if (f->same_origin_link)
      offer(c, POL_SE_NAVIGATION, "url.same_origin", NULL, "href");
  }
  if (f->act == ACT_BACK)
    offer(c, POL_SE_NAVIGATION, "action.back", NULL, "action");
}

/* Step 7, no evidence yet: offers the role default or a local-UI signal,
 * else unknown. */
static void offer_fallback(const cls_facts *f, cand *c)
{
  const pol_subject *s = f->s;
  if (f->submit) {
    /* A form submit whose method the page does not state: scripted forms
     * usually look like this, so only a plain safe word ("Search") makes
     * it a read. */
    if (f->name_scan.safe_signal)
      offer(c, POL_SE_READ, "native.submit.safe_name", f->name_scan.safe->phrase, "name");
    else
      offer(c, POL_SE_UNKNOWN, "native.submit.implicit", NULL, "attribute");
    return;
  }
  const char *rr = role_default(s);
  if (rr) {
    offer(c, POL_SE_LOCAL_UI, rr, NULL, "role");
    return;
  }
  for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
    if (signals[i].test(s, f->act)) {
      offer(c, POL_SE_LOCAL_UI, signals[i].rule, NULL, signals[i].where);
      return;
    }
  if (f->iv.dismiss) {
    offer_ex(c, POL_SE_LOCAL_UI, "icon.close.dismiss", f->iv.ic.token, "icon", f->iv.phrase, 1);
    return;
  }
  if (f->name_scan.safe_signal) {
    offer(c, POL_SE_LOCAL_UI, "signal.safe_word", f->name_scan.safe->phrase, "name");
    return;
  }
  offer(c, POL_SE_UNKNOWN, "default.unknown", NULL, NULL);
}

/* Steps 4 to 7: words and icons, app actions, soft native semantics, then
 * the fallbacks. */
static void offer_evidence(const cls_facts *f, cand *c)
{
  /* 4. lexicons */
  offer_words(f, c);
  offer_icon(c, &f->iv);
  /* 5. app actions without a telling word */
  if (f->app) {
    if (!c->set)
      offer(c, POL_SE_UNKNOWN, "annotation.action.unknown", NULL, "app_action");
    return;
  }
  /* 6. soft native semantics */
  offer_soft_native(f, c);
  if (c->set)
    return;
  /* 7. no evidence yet: role defaults and local-UI signals */
  offer_fallback(f, c);
}

/* data-uiap-risk="confirm": at least a write, whatever the words say. */
static void confirm_floor(cand *c, pol_risk_level risk)
{
  if (risk == POL_RISK_CONFIRM &&
      (c->se == POL_SE_UNKNOWN || pol__rank(c->se) < pol__rank(POL_SE_WRITE))) {
    c->se = POL_SE_WRITE;
    snprintf(c->rule, sizeof c->rule, "annotation.risk.confirm");
    c->keyword = NULL;
    c->where = "attribute";
    c->explain = NULL;
    c->inferred = 0;
  }
}

pol_code pol_classify(const pol_subject *s, pol_classification *out)
{
  if (!out)
    return POL_ARG;
  memset(out, 0, sizeof *out);
  out->side_effect = POL_SE_UNKNOWN;
  snprintf(out->rule, sizeof out->rule, "default.unknown");
  if (!s)
    return POL_ARG;

  out->data_class = pol_subject_data_class(s);
  out->risk = parse_risk(s->risk);
  cls_facts f;
  f.s = s;
  f.risk = out->risk;
  f.act = action_kind(s->action);
  f.app = has(s->app_action) || f.act == ACT_APP;
  f.submit = s->is_submit || f.act == ACT_SUBMIT;
  f.scan_flags = in_dialog(s, f.act) ? POL__SCAN_DIALOG : 0;
  cand c = {0};

  /* 0. passive actions */
  if (f.act == ACT_PASSIVE && out->risk != POL_RISK_BLOCKED) {
    offer(&c, POL_SE_NONE, "action.passive", NULL, "action");
    finish(&c, out);
    return POL_OK;
  }
  offer_hard_facts(&f, &c);
  scan_words(&f);
  if (out->risk == POL_RISK_BLOCKED) {
    decide_blocked(&f, &c, out);
    return POL_OK;
  }
  if (out->risk == POL_RISK_SAFE) {
    decide_safe(&f, &c, out);
    return POL_OK;
  }
  if (!fixed_case(&f, &c))
    offer_evidence(&f, &c);
  confirm_floor(&c, out->risk);
  finish(&c, out);
  return POL_OK;
}

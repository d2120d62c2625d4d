/* decide.c -- pol_decide(): may a classified action run under the run's
 * safety policy? The answer (allow | skip | review | deny, and a reason) is
 * the DiscoveryActionPolicyDecision of discovery-mapper section 13.
 *
 * Evaluation order:
 *   1. inside an opaque boundary              -> deny, opaque_boundary
 *   2. data-uiap-risk="blocked"               -> deny, reason of the class
 *      (no allow flag lifts it)
 *   3. mode_table[mode][class] (below); a deny is lifted by the class's
 *      allow flag in sandbox_write only (flag_lift): safe_explore runs only
 *      reversible, non-destructive, non-external actions (discovery-mapper
 *      section 8) and observe_only nothing that activates or writes, so
 *      there a set flag changes nothing and the sentence says so
 *   4. data-uiap-risk="confirm"               -> at least review
 *   reason: the class's reason (class_rules), except that a skip or confirm
 *   of a safe class says manual_only, and security_change on a credential or
 *   secret field says credential.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "pol_int.h"

#define A POL_EFFECT_ALLOW
#define S POL_EFFECT_SKIP
#define R POL_EFFECT_REVIEW
#define D POL_EFFECT_DENY

/* mode x class -> effect (core-decisions "Risk and side effects"):
 *  - observe_only executes no activating or writing action: only passive
 *    ones (focus, scroll) are allowed; navigation happens to seeds only,
 *    which the crawler does without asking here.
 *  - safe_explore executes only none/read/navigation/local_ui.
 *  - sandbox_write adds draft and reversible_write (and text entry, which
 *    classifies as draft); a plain write still needs a human (review).
 *  - external/destructive/billing/security/irreversible: deny in every mode;
 *    in sandbox_write the allow flag of class_rules lifts it (flag_lift).
 *  - unknown is never executed autonomously: review in every mode. */
static const unsigned char mode_table[POL__MODE_COUNT][POL__SE_COUNT] = {
  /*                      none read nav local draft rev write ext destr bill sec irrev unk */
  [POL_MODE_OBSERVE_ONLY]  = {A, S, S, S, S, S, S, D, D, D, D, D, R},
  [POL_MODE_SAFE_EXPLORE]  = {A, A, A, A, S, S, S, D, D, D, D, D, R},
  [POL_MODE_SANDBOX_WRITE] = {A, A, A, A, A, A, R, D, D, D, D, D, R},
};

/* What a set allow flag makes of a deny, per mode: only sandbox_write runs
 * flagged destructive, payment, auth or external actions. */
static const unsigned char flag_lift[POL__MODE_COUNT] = {
  [POL_MODE_OBSERVE_ONLY]  = D,
  [POL_MODE_SAFE_EXPLORE]  = D,
  [POL_MODE_SANDBOX_WRITE] = A,
};

enum { FLAG_NONE, FLAG_DESTRUCTIVE, FLAG_PAYMENT, FLAG_AUTH, FLAG_EXTERNAL };

static const struct { size_t offset; const char *name; } flags[] = {
  [FLAG_NONE] = {0, NULL},
  [FLAG_DESTRUCTIVE] = {offsetof(pol_policy, allow_destructive_actions), "allowDestructiveActions"},
  [FLAG_PAYMENT] = {offsetof(pol_policy, allow_payment_flows), "allowPaymentFlows"},
  [FLAG_AUTH] = {offsetof(pol_policy, allow_auth_flows), "allowAuthFlows"},
  [FLAG_EXTERNAL] = {offsetof(pol_policy, allow_external_effects), "allowExternalEffects"},
};

/* class -> reason, and the allow flag that lifts its deny. */
static const struct { pol_reason reason; unsigned char flag; } class_rules[POL__SE_COUNT] = {
  [POL_SE_NONE]             = {POL_REASON_SAFE, FLAG_NONE},
  [POL_SE_READ]             = {POL_REASON_SAFE, FLAG_NONE},
  [POL_SE_NAVIGATION]       = {POL_REASON_SAFE, FLAG_NONE},
  [POL_SE_LOCAL_UI]         = {POL_REASON_SAFE, FLAG_NONE},
  [POL_SE_DRAFT]            = {POL_REASON_MANUAL_ONLY, FLAG_NONE},
  [POL_SE_REVERSIBLE_WRITE] = {POL_REASON_MANUAL_ONLY, FLAG_NONE},
  [POL_SE_WRITE]            = {POL_REASON_MANUAL_ONLY, FLAG_NONE},
  [POL_SE_EXTERNAL_EFFECT]  = {POL_REASON_EXTERNAL_EFFECT, FLAG_EXTERNAL},
  [POL_SE_DESTRUCTIVE]      = {POL_REASON_DESTRUCTIVE, FLAG_DESTRUCTIVE},
  [POL_SE_BILLING_CHANGE]   = {POL_REASON_PAYMENT, FLAG_PAYMENT},
  [POL_SE_SECURITY_CHANGE]  = {POL_REASON_SECURITY_SENSITIVE, FLAG_AUTH},
  [POL_SE_IRREVERSIBLE]     = {POL_REASON_DESTRUCTIVE, FLAG_DESTRUCTIVE},
  [POL_SE_UNKNOWN]          = {POL_REASON_UNKNOWN_SIDE_EFFECT, FLAG_NONE},
};

/* "destructive: removes a list item (rule icon.close.item, keyword "×",
 * inferred)": only static text (names, rule ids, table spellings). */
static void evidence(const pol_classification *c, char *buf, size_t cap)
{
  char kw[48] = "";
  if (c->keyword)
    snprintf(kw, sizeof kw, ", keyword \"%.32s\"", c->keyword);
  snprintf(buf, cap, "%s%s%s (rule %s%s%s)", pol_side_effect_name(c->side_effect),
           c->explain ? ": " : "", c->explain ? c->explain : "", c->rule, kw,
           c->inferred ? ", inferred" : "");
}

pol_code pol_decide(const pol_policy *policy, const pol_subject *s,
                    const pol_classification *c, pol_decision *out)
{
  static const pol_policy zero;
  if (!out)
    return POL_ARG;
  out->effect = POL_EFFECT_DENY;
  out->reason = POL_REASON_UNKNOWN_SIDE_EFFECT;
  snprintf(out->text, sizeof out->text, "deny: no classification");
  if (!c)
    return POL_ARG;
  if (!policy)
    policy = &zero;
  pol_mode mode = (unsigned)policy->mode < POL__MODE_COUNT ? policy->mode
                                                           : POL_MODE_OBSERVE_ONLY;
  pol_side_effect se = (unsigned)c->side_effect < POL__SE_COUNT ? c->side_effect
                                                                : POL_SE_UNKNOWN;
  const char *mname = pol_mode_name(mode);
  char ev[200];
  evidence(c, ev, sizeof ev);

  pol_reason reason = class_rules[se].reason;
  if (se == POL_SE_SECURITY_CHANGE &&
      (c->data_class == POL_DC_CREDENTIAL || c->data_class == POL_DC_SECRET))
    reason = POL_REASON_CREDENTIAL;

  /* 1. opaque boundary */
  if (s && s->in_opaque) {
    out->effect = POL_EFFECT_DENY;
    out->reason = POL_REASON_OPAQUE_BOUNDARY;
    snprintf(out->text, sizeof out->text,
             "deny: the target is inside an opaque boundary (cross-origin frame "
             "or closed shadow root); %s is not touched.", ev);
    return POL_OK;
  }
  /* 2. blocked by the app */
  if (c->risk == POL_RISK_BLOCKED) {
    out->effect = POL_EFFECT_DENY;
    out->reason = reason == POL_REASON_SAFE || reason == POL_REASON_MANUAL_ONLY ||
                  reason == POL_REASON_UNKNOWN_SIDE_EFFECT ? POL_REASON_DESTRUCTIVE : reason;
    snprintf(out->text, sizeof out->text,
             "deny: data-uiap-risk=blocked, %s; never executed.", ev);
    return POL_OK;
  }
  /* 3. mode table and allow flags */
  pol_effect eff = (pol_effect)mode_table[mode][se];
  const char *flag = NULL;     /* a set flag that lifted the deny */
  const char *inert = NULL;    /* a set flag this mode ignores */
  if (eff == POL_EFFECT_DENY && class_rules[se].flag != FLAG_NONE) {
    const int *on = (const int *)((const char *)policy + flags[class_rules[se].flag].offset);
    if (*on && flag_lift[mode] != POL_EFFECT_DENY) {
      flag = flags[class_rules[se].flag].name;
      eff = (pol_effect)flag_lift[mode];
    } else if (*on) {
      inert = flags[class_rules[se].flag].name;
    }
  }
  if (eff == POL_EFFECT_SKIP && reason == POL_REASON_SAFE)
    reason = POL_REASON_MANUAL_ONLY;
  /* 4. confirm */
  int confirm = c->risk == POL_RISK_CONFIRM && eff < POL_EFFECT_REVIEW;
  if (confirm) {
    eff = POL_EFFECT_REVIEW;
    if (reason == POL_REASON_SAFE)
      reason = POL_REASON_MANUAL_ONLY;
  }
  out->effect = eff;
  out->reason = reason;

  if (confirm)
    snprintf(out->text, sizeof out->text,
             "review: data-uiap-risk=confirm, %s; a human must confirm it.", ev);
  else if (flag)
    snprintf(out->text, sizeof out->text, "%s: %s; permitted by %s in %s.",
             pol_effect_name(eff), ev, flag, mname);
  else if (eff == POL_EFFECT_ALLOW)
    snprintf(out->text, sizeof out->text, "allow: %s is safe to execute in %s.", ev, mname);
  else if (eff == POL_EFFECT_SKIP)
    snprintf(out->text, sizeof out->text, "skip: %s is not executed in %s.", ev, mname);
  else if (se == POL_SE_UNKNOWN)
    snprintf(out->text, sizeof out->text,
             "review: %s; an action without a known safe side effect is never "
             "executed autonomously.", ev);
  else if (eff == POL_EFFECT_REVIEW)
    snprintf(out->text, sizeof out->text, "review: %s needs a human in %s.", ev, mname);
  else if (inert)
    snprintf(out->text, sizeof out->text, "deny: %s; %s takes effect in %s only, not in %s.",
             ev, inert, pol_mode_name(POL_MODE_SANDBOX_WRITE), mname);
  else if (class_rules[se].flag != FLAG_NONE)
    snprintf(out->text, sizeof out->text, "deny: %s; denied unless %s is set in %s.",
             ev, flags[class_rules[se].flag].name, pol_mode_name(POL_MODE_SANDBOX_WRITE));
  else
    snprintf(out->text, sizeof out->text, "deny: %s.", ev);
  return POL_OK;
}

/* 1 when name holds a word: two ASCII letters in a row, or a character
 * beyond ASCII that is no symbol, no icon-font glyph (private use areas)
 * and no emoji -- a letter of another script. */
static int has_word(const char *name)
{
  const unsigned char *p = (const unsigned char *)name;
  int run = 0;
  while (p && *p) {
    if (*p < 0x80) {
      int alpha = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z');
      run = alpha ? run + 1 : 0;
      if (run >= 2)
        return 1;
      p++;
      continue;
    }
    run = 0;
    unsigned cp = 0;
    int len = *p >= 0xF0 ? 4 : *p >= 0xE0 ? 3 : *p >= 0xC0 ? 2 : 1;
    cp = len == 1 ? 0 : *p & (0xFF >> (len + 1));
    for (int k = 1; k < len && p[k]; k++)
      cp = (cp << 6) | (p[k] & 0x3F);
    int symbol = cp < 0xC0 || cp == 0xD7 || cp == 0xF7 /* × ÷ */ || (cp >= 0x2000 && cp <= 0x2BFF) || (cp >= 0x3000 && cp <= 0x303F) ||
                 (cp >= 0xE000 && cp <= 0xF8FF) || (cp >= 0xFE00 && cp <= 0xFE0F) || cp >= 0x1F000;
    if (len > 1 && !symbol)
      return 1;
    for (int k = 0; k < len && *p; k++)
      p++;
  }
  return 0;
}

/* 1 when name is a figure: digits with the punctuation of numbers, dates,
 * times, amounts and ranges ("1001", "37.5", "2024-02-11", "$1,234.00",
 * "10:30", "3/4", "12 %") -- a cell's or a page link's datum, not an icon. */
static int is_figure(const char *name)
{
  static const char *const marks = " .,:;-/+%$#()'";
  int digits = 0;
  for (const unsigned char *p = (const unsigned char *)name; p && *p; p++) {
    if (*p >= '0' && *p <= '9')
      digits++;
    else if (!strchr(marks, *p) && strncmp((const char *)p, "\xE2\x82\xAC", 3) && strncmp((const char *)p, "\xC2\xA3", 2))
      return 0;
    else if (*p >= 0x80)
      p += (*p == 0xE2) ? 2 : 1; /* € or £ */
  }
  return digits > 0;
}

/* Class words that tell nothing: framework prefixes, states, shapes. */
static const char *const hollow_words[] = {
  "btn", "button", "icon", "icons", "item", "items", "active", "selected", "open", "show", "shown", "hidden",
  "disabled", "focus", "focused", "hover", "visible", "svg", "fill", "stroke", "small", "large", "link", "label",
  "wrapper", "container", "inner", "outer", "default", "primary", "secondary", "light", "dark", "clickable",
};

static int hollow(const char *w, size_t n)
{
  for (size_t i = 0; i < sizeof hollow_words / sizeof *hollow_words; i++)
    if (strlen(hollow_words[i]) == n && !strncmp(hollow_words[i], w, n))
      return 1;
  return 0;
}

/* 1 when a control without any name has a class word (its own and its
 * icon's classes, normalised into words) that want accepts. */
static int nameless_class_word(const pol_subject *s, int (*want)(const char *w, size_t n))
{
  char buf[512];
  if ((s->name && *s->name) || !s->icon_classes)
    return 0;
  pol__normalize(s->icon_classes, 1, buf, sizeof buf);
  for (const char *p = buf; *p;) {
    p += strspn(p, " ");
    size_t n = strcspn(p, " ");
    if (n && want(p, n))
      return 1;
    p += n;
  }
  return 0;
}

/* A telling word ("picker" in "ql-picker-item"): three letters or more,
 * no framework prefix, state or shape. */
static int telling(const char *w, size_t n)
{
  int letters = n >= 3;
  for (size_t k = 0; k < n && letters; k++)
    letters = w[k] >= 'a' && w[k] <= 'z';
  return letters && !hollow(w, n);
}

/* 1 when a control without any name has a telling class word. Its class
 * words passed the lexicon before (classify.c: "btn-delete" is denied,
 * never probed). */
static int class_word(const pol_subject *s)
{
  return nameless_class_word(s, telling);
}

/* 1 when name is one small triangle, a disclosure's caret (▸ ▾ ▴ ◂ ▹ ▿):
 * it opens or closes what follows it. The large ones (▶ "run", "play")
 * are held like any glyph. */
static int caret(const char *name)
{
  static const char *const carets[] = {"\xE2\x96\xB8", "\xE2\x96\xBE", "\xE2\x96\xB4",
                                       "\xE2\x97\x82", "\xE2\x96\xB9", "\xE2\x96\xBF"};
  size_t skip = name ? strspn(name, " ") : 0;
  for (size_t i = 0; name && i < sizeof carets / sizeof *carets; i++)
    if (!strncmp(name + skip, carets[i], 3) && !name[skip + 3 + strspn(name + skip + 3, " ")])
      return 1;
  return 0;
}

/* 1 when name is one or two arrows and nothing else (← ↩ ↻ ⟳ ⤴: the
 * blocks U+2190-21FF, U+27F0-27FF, U+2900-297F; the pointers < > « » ‹ ›):
 * a direction, a return, a reload, a pager's or a dual list box's
 * "move" -- navigation or a view's own control; what it sends is the
 * seal's to see. Outside an item of a collection only (in_item). */
static int arrow_cp(unsigned cp) {
  return cp == '<' || cp == '>' || cp == 0xAB || cp == 0xBB || cp == 0x2039 || cp == 0x203A ||
         (cp >= 0x2190 && cp <= 0x21FF) || (cp >= 0x27F0 && cp <= 0x27FF) || (cp >= 0x2900 && cp <= 0x297F);
}

static int arrow(const char *name) {
  const unsigned char *p = (const unsigned char *)name;
  int n = 0;
  while (p && *p) {
    if (*p == ' ') {
      p++;
      continue;
    }
    int len = *p < 0x80 ? 1 : (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3 : 0;
    unsigned cp = len == 1 ? *p : len == 2 ? (*p & 0x1Fu) : (*p & 0x0Fu);
    for (int k = 1; k < len; k++) {
      if ((p[k] & 0xC0) != 0x80) return 0;
      cp = (cp << 6) | (p[k] & 0x3Fu);
    }
    if (!len || !arrow_cp(cp)) return 0;
    n++;
    p += len;
  }
  return n >= 1 && n <= 2;
}

/* 1 when s sits in an entry of a marked collection (a list item, a row, a
 * card, an option...), where a nameless control may remove its entry; one
 * of several alike siblings without such a mark ("repeated": a toolbar's
 * groups, a picker's swatches) is no evidence of that. */
static int in_item(const pol_subject *s)
{
  const char *phrase;
  int ctx = pol__icon_context(s, &phrase);
  return ctx == POL__CTX_ITEM && !(s->container_kind && !strcmp(s->container_kind, "repeated"));
}

/* 1 when s sits in an entry -- a list item, a row, a cell of a grid, an
 * option, a tree or menu item -- where an arrow may undo or move that
 * entry. A card, an article, a whole table or list (a date picker's
 * arrows) hold arrows that page, move or open. */
static int in_line(const pol_subject *s)
{
  static const char *const entries[] = {"listitem", "row", "gridcell", "option", "treeitem", "menuitem"};
  for (size_t i = 0; s->container_kind && i < sizeof entries / sizeof *entries; i++)
    if (!strcmp(s->container_kind, entries[i])) return 1;
  return 0;
}

static int arrow_word(const char *w, size_t n)
{
  static const char *const words[] = {"chevron", "arrow", "angle", "caret"};
  for (size_t i = 0; i < sizeof words / sizeof *words; i++)
    if (n == strlen(words[i]) && !strncmp(w, words[i], n)) return 1;
  return 0;
}

/* 1 when a control without a name shows an arrow by its icon's class
 * (fa-chevron-up, bi-arrow-left, fa-angle-right, a caret): the same as an
 * arrow glyph. */
static int arrow_class(const pol_subject *s)
{
  return nameless_class_word(s, arrow_word);
}

int pol_probeable(const pol_policy *policy, const pol_subject *s, const pol_classification *c)
{
  return policy && s && c && policy->mode == POL_MODE_SAFE_EXPLORE && policy->probe_unknown &&
         c->side_effect == POL_SE_UNKNOWN && c->risk == POL_RISK_NONE && !strcmp(c->rule, "default.unknown") &&
         (has_word(s->name) || is_figure(s->name) || caret(s->name) ||
          (class_word(s) && !in_item(s)) || ((arrow(s->name) || arrow_class(s)) && !in_line(s)));
}

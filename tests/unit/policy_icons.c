/* policy_icons.c -- icon-only controls: a close glyph dismisses inside a
 * dialog, popover, toast, drawer, menu or chip, removes the entry it sits
 * on in a collection (destructive), and is unknown where nothing settles
 * it; trash icons are destructive anywhere; icon classes and font
 * ligatures are evidence too, marked inferred. One table of subjects with
 * the class, rule and safe_explore effect a user would see, and the phrase
 * the decision carries. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "pg.h"
#include "pol.h"

#define TIMES "\xC3\x97"             /* × */
#define MULT_X "\xE2\x9C\x95"        /* ✕ */
#define HEAVY_X "\xE2\x9C\x96"       /* ✖ */
#define BALLOT_X "\xE2\x9C\x97"      /* ✗ */
#define CROSS_MARK "\xE2\x9D\x8C"    /* ❌ */
#define VS16 "\xEF\xB8\x8F"          /* emoji presentation selector */
#define WASTEBASKET "\xF0\x9F\x97\x91" /* 🗑 */
#define MINUS_SIGN "\xE2\x88\x92"    /* − */
#define HEAVY_MINUS "\xE2\x9E\x96"   /* ➖ */
#define PUA_SEARCH "\xEE\xA2\xB6"    /* U+E8B6, an icon font's search glyph */
#define PUA_TRASH "\xEF\x87\xB8"     /* U+F1F8, Font Awesome's trash */
#define PUA_PLANE15 "\xF3\xB0\x80\x81" /* U+F0001 */

typedef struct {
  const char *label;
  pol_subject s;
  const char *se, *rule, *effect;
  const char *explain; /* a phrase the classification and the decision carry, or NULL */
} icase;

static int run_icons(const icase *t, size_t n)
{
  int bad = 0;
  for (size_t i = 0; i < n; i++) {
    pol_classification c;
    pol_decision d;
    cr_assert_eq(pol_classify(&t[i].s, &c), POL_OK, "%s", t[i].label);
    cr_assert_eq(pol_decide(NULL, &t[i].s, &c, &d), POL_OK, "%s", t[i].label);
    const char *se = pol_side_effect_name(c.side_effect), *ef = pol_effect_name(d.effect);
    int ok = !strcmp(se, t[i].se) && !strcmp(c.rule, t[i].rule) && !strcmp(ef, t[i].effect);
    if (t[i].explain)
      ok = ok && c.explain && strstr(c.explain, t[i].explain) && strstr(d.text, t[i].explain);
    if (!strncmp(c.rule, "icon.", 5))
      ok = ok && c.inferred && !strcmp(c.where, "icon") && strstr(d.text, "inferred");
    if (!ok) {
      cr_log_error("%s: got %s/%s/%s, want %s/%s/%s (%s)", t[i].label, se, c.rule, ef, t[i].se, t[i].rule,
                   t[i].effect, d.text);
      bad++;
    }
  }
  return bad;
}

#define RUN(cases) cr_expect_eq(run_icons(cases, sizeof cases / sizeof cases[0]), 0, \
                                "mismatches in " #cases " (see log)")

static const icase close_glyphs[] = {
  {"x in a dialog: dismiss", {.role = "button", .name = TIMES, .container_kind = "dialog"},
   "local_ui", "icon.close.dismiss", "allow", "closes the dialog"},
  {"x in a dialog titled Delete: still only closes it", {.role = "button", .name = TIMES,
   .container_kind = "alertdialog", .context = "Delete project?"},
   "local_ui", "icon.close.dismiss", "allow", "closes the dialog"},
  {"x in a popover", {.role = "button", .name = MULT_X, .container_kind = "popover"},
   "local_ui", "icon.close.dismiss", "allow", "closes the popover"},
  {"x in a toast", {.role = "button", .name = HEAVY_X, .container_kind = "toast"},
   "local_ui", "icon.close.dismiss", "allow", "dismisses the notification"},
  {"x in a drawer", {.role = "button", .name = BALLOT_X, .container_kind = "drawer"},
   "local_ui", "icon.close.dismiss", "allow", "closes the drawer"},
  {"x on a chip", {.role = "button", .name = TIMES, .container_kind = "chip"},
   "local_ui", "icon.close.dismiss", "allow", "removes the chip"},
  {"emoji x with a variation selector in a dialog", {.role = "button", .name = HEAVY_X VS16,
   .container_kind = "dialog"}, "local_ui", "icon.close.dismiss", "allow", "closes the dialog"},
  {"a lone X in a dialog", {.role = "button", .name = " X ", .container_kind = "dialog"},
   "local_ui", "icon.close.dismiss", "allow", NULL},
  {"x on a list item: removes it", {.role = "button", .name = TIMES, .container_kind = "listitem"},
   "destructive", "icon.close.item", "deny", "removes a list item"},
  {"x on a table row", {.role = "button", .name = MULT_X, .container_kind = "row"},
   "destructive", "icon.close.item", "deny", "removes a list item"},
  {"x in a table cell", {.role = "button", .name = TIMES, .container_kind = "gridcell"},
   "destructive", "icon.close.item", "deny", "removes a list item"},
  {"x on a card of a collection", {.role = "button", .name = CROSS_MARK, .container_kind = "card"},
   "destructive", "icon.close.item", "deny", "removes a list item"},
  {"x on an article of a feed", {.role = "button", .name = TIMES, .container_kind = "article"},
   "destructive", "icon.close.item", "deny", "removes a list item"},
  {"x on one of several alike entries", {.role = "button", .name = TIMES, .container_kind = "repeated"},
   "destructive", "icon.close.item", "deny", "removes a list item"},
  {"x on a list item inside a dialog (the nearest container tells)", {.role = "button", .name = TIMES,
   .container_kind = "listitem", .container_role = "dialog"},
   "destructive", "icon.close.item", "deny", "removes a list item"},
  {"x with no context: unknown, not clicked", {.role = "button", .name = TIMES},
   "unknown", "icon.close.no_context", "review", "may dismiss or delete"},
  {"x on a tab", {.role = "button", .name = TIMES, .container_kind = "tab"},
   "unknown", "icon.close.other", "review", "closes a tab"},
  {"x link with no context", {.role = "link", .name = TIMES, .href = "http://127.0.0.1:8000/inbox",
   .page_origin = "http://127.0.0.1:8000"}, "unknown", "icon.close.no_context", "review", NULL},
  {"no kind: the composite container role decides", {.role = "button", .name = TIMES,
   .container_role = "listbox"}, "destructive", "icon.close.item", "deny", "removes a list item"},
  {"an unknown kind is no context", {.role = "button", .name = TIMES, .container_kind = "spaceship"},
   "unknown", "icon.close.no_context", "review", NULL},
  {"an app action with an x is still an app action", {.role = "button", .name = TIMES,
   .container_kind = "dialog", .app_action = "panel.frob"},
   "unknown", "annotation.action.unknown", "review", NULL},
};
Test(policy_icons, close_glyphs_by_context) { RUN(close_glyphs); }

static const icase words_and_icons[] = {
  {"Close and a close class in a dialog", {.role = "button", .name = "Close",
   .icon_classes = "btn-close", .container_kind = "dialog"},
   "local_ui", "icon.close.dismiss", "allow", "closes the dialog"},
  {"Close issue with an x icon in a dialog: the words do not agree", {.role = "button",
   .name = "Close issue", .icon_classes = "fa fa-xmark", .container_kind = "dialog"},
   "unknown", "default.unknown", "review", NULL},
  {"Clear search with an x icon, no context: the words settle it", {.role = "button",
   .name = "Clear search", .icon_classes = "bi bi-x-lg"}, "local_ui", "signal.safe_word", "allow", NULL},
  {"Remove with an x icon in a dialog: the words say worse", {.role = "button", .name = "Remove",
   .icon_classes = "fa-times", .container_kind = "dialog"}, "destructive", "lexicon.en.remove", "deny", NULL},
  {"Close on a list item: removing it outweighs the word", {.role = "button", .name = "Close",
   .icon_classes = "close", .container_kind = "listitem"},
   "destructive", "icon.close.item", "deny", "removes a list item"},
  {"words next to a glyph are words", {.role = "button", .name = "Close " TIMES},
   "local_ui", "signal.safe_word", "allow", NULL},
  {"icon-font glyph next to words", {.role = "button", .name = PUA_SEARCH " Search"},
   "local_ui", "signal.safe_word", "allow", NULL},
  {"private-use glyph labelled Search: by its label", {.role = "button", .name = "Search",
   .icon_classes = "icon icon-search"}, "local_ui", "signal.safe_word", "allow", NULL},
  {"private-use glyph alone, nothing known", {.role = "button", .name = PUA_SEARCH},
   "unknown", "default.unknown", "review", NULL},
  {"plane-15 private-use glyph alone, in a dialog", {.role = "button", .name = PUA_PLANE15,
   .container_kind = "dialog"}, "unknown", "default.unknown", "review", NULL},
  {"private-use glyph in a danger zone: the context still speaks", {.role = "button",
   .name = PUA_SEARCH, .context = "Danger zone"}, "destructive", "lexicon.en.danger_zone", "deny", NULL},
};
Test(policy_icons, words_and_icons) { RUN(words_and_icons); }

static const icase trash_and_minus[] = {
  {"fa-trash icon button without a name", {.role = "button", .icon_classes = "btn fa fa-trash"},
   "destructive", "icon.delete", "deny", "trash"},
  {"fa-trash-can in a dialog", {.role = "button", .icon_classes = "fa-solid fa-trash-can",
   .container_kind = "dialog"}, "destructive", "icon.delete", "deny", NULL},
  {"Font Awesome glyph as the name, fa-trash class", {.role = "button", .name = PUA_TRASH,
   .icon_classes = "fas fa-trash-alt"}, "destructive", "icon.delete", "deny", NULL},
  {"bi-trash3", {.role = "button", .icon_classes = "bi bi-trash3"}, "destructive", "icon.delete", "deny", NULL},
  {"glyphicon-trash", {.role = "button", .icon_classes = "glyphicon glyphicon-trash"},
   "destructive", "icon.delete", "deny", NULL},
  {"mdi-delete-forever", {.role = "button", .icon_classes = "mdi mdi-delete-forever"},
   "destructive", "icon.delete", "deny", NULL},
  {"glyphicon-remove is a close icon", {.role = "button", .icon_classes = "glyphicon glyphicon-remove",
   .container_kind = "row"}, "destructive", "icon.close.item", "deny", NULL},
  {"mdi-close in a toast", {.role = "button", .icon_classes = "mdi mdi-close", .container_kind = "toast"},
   "local_ui", "icon.close.dismiss", "allow", NULL},
  {"Bulma's delete button in a notification", {.role = "button", .icon_classes = "delete is-small",
   .container_kind = "toast"}, "local_ui", "icon.close.dismiss", "allow", NULL},
  {"fa-xbox is not fa-x", {.role = "button", .icon_classes = "fab fa-xbox"},
   "unknown", "default.unknown", "review", NULL},
  {"fa-trashy is not fa-trash", {.role = "button", .icon_classes = "fa-trashy"},
   "unknown", "default.unknown", "review", NULL},
  {"wastebasket glyph in a dialog", {.role = "button", .name = WASTEBASKET, .container_kind = "dialog"},
   "destructive", "icon.delete", "deny", NULL},
  {"material ligature delete", {.role = "button", .name = "delete", .icon_text = "delete",
   .icon_classes = "material-icons"}, "destructive", "icon.delete", "deny", "trash"},
  {"material symbols delete_forever", {.role = "button", .name = "delete_forever",
   .icon_text = "delete_forever", .icon_classes = "material-symbols-outlined"},
   "destructive", "icon.delete", "deny", NULL},
  {"material close ligature in a dialog", {.role = "button", .name = "close", .icon_text = "close",
   .icon_classes = "material-icons", .container_kind = "dialog"},
   "local_ui", "icon.close.dismiss", "allow", "closes the dialog"},
  {"material close ligature on a list item", {.role = "button", .name = "close", .icon_text = "close",
   .icon_classes = "mat-icon material-icons", .container_kind = "listitem"},
   "destructive", "icon.close.item", "deny", "removes a list item"},
  {"material clear ligature, no context", {.role = "button", .name = "clear", .icon_text = "clear",
   .icon_classes = "material-icons"}, "unknown", "icon.close.no_context", "review", NULL},
  {"remove_circle ligature on a row", {.role = "button", .name = "remove_circle",
   .icon_text = "remove_circle", .icon_classes = "material-icons", .container_kind = "row"},
   "destructive", "icon.minus.item", "deny", "removes a list item"},
  {"ligature text without a ligature font is plain text", {.role = "button", .name = "close",
   .icon_text = "close", .icon_classes = "icon"}, "local_ui", "signal.safe_word", "allow", NULL},
  {"minus on a list item", {.role = "button", .name = MINUS_SIGN, .container_kind = "listitem"},
   "destructive", "icon.minus.item", "deny", "removes a list item"},
  {"heavy minus in a dialog: unknown", {.role = "button", .name = HEAVY_MINUS, .container_kind = "dialog"},
   "unknown", "icon.minus.no_context", "review", NULL},
  {"fa-minus with no context", {.role = "button", .icon_classes = "fa fa-minus"},
   "unknown", "icon.minus.no_context", "review", NULL},
  {"a nameless button's class words: btn-delete-row", {.role = "button", .icon_classes = "btn btn-delete-row"},
   "destructive", "lexicon.en.delete", "deny", NULL},
  {"a nameless button's class words: removeItem", {.role = "button", .icon_classes = "removeItem"},
   "destructive", "lexicon.en.remove", "deny", NULL},
  {"a nameless picker item: nothing risky in its classes", {.role = "button", .icon_classes = "ql-picker-item"},
   "unknown", "default.unknown", "review", NULL},
  {"a named button's classes are not read", {.role = "button", .name = "Rows", .icon_classes = "btn-delete-row"},
   "unknown", "default.unknown", "review", NULL},
  {"a labelled minus is read by its label", {.role = "button", .name = "Zoom out",
   .icon_classes = "fa fa-minus"}, "local_ui", "signal.safe_word", "allow", NULL},
};
Test(policy_icons, trash_minus_classes_ligatures) { RUN(trash_and_minus); }

/* Every container kind the graph can hand over is one the policy knows:
 * the strings of pg.h's list, with what a close glyph does in each. */
Test(policy_icons, every_graph_kind_is_known)
{
  static const struct { const char *kind; const char *se; } kinds[] = {
    {"dialog", "local_ui"}, {"alertdialog", "local_ui"}, {"popover", "local_ui"}, {"toast", "local_ui"},
    {"drawer", "local_ui"}, {"menu", "local_ui"}, {"chip", "local_ui"},
    {"listitem", "destructive"}, {"row", "destructive"}, {"gridcell", "destructive"},
    {"option", "destructive"}, {"treeitem", "destructive"}, {"menuitem", "destructive"},
    {"article", "destructive"}, {"card", "destructive"}, {"collection", "destructive"},
    {"repeated", "destructive"}, {"tab", "unknown"},
  };
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    pol_subject s = {.role = "button", .name = TIMES, .container_kind = kinds[i].kind};
    pol_classification c;
    pol_classify(&s, &c);
    cr_expect_str_eq(pol_side_effect_name(c.side_effect), kinds[i].se, "x in %s (%s)", kinds[i].kind, c.rule);
    cr_expect(strcmp(c.rule, "icon.close.no_context"), "%s is a known kind", kinds[i].kind);
  }
}

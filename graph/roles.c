/* roles.c -- what each computed role means to the graph: is it interactive,
 * status/feedback, text; which scope kind it opens. Plus the mapping of
 * Chromium-internal roles and the implicit-role fallback by tag. Tables, kept
 * sorted by role for bsearch. */
#include "pg_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define I PG__R_INTERACTIVE
#define A PG__R_ACTIVATE
static const pg__role_info roles[] = {
  /* role              flags                                   scope */
  {"alert",            PG__R_STATUS,                           -1},
  {"alertdialog",      PG__R_STATUS,                           PG_SCOPE_DIALOG},
  {"banner",           0,                                      PG_SCOPE_REGION},
  {"button",           I | A,                                  -1},
  {"checkbox",         I | A | PG__R_CHECKABLE,                -1},
  {"columnheader",     0,                                      -1},
  {"combobox",         I | PG__R_CHOOSER | PG__R_EDITABLE,     -1},
  {"complementary",    0,                                      PG_SCOPE_REGION},
  {"contentinfo",      0,                                      PG_SCOPE_REGION},
  {"dialog",           0,                                      PG_SCOPE_DIALOG},
  {"form",             0,                                      PG_SCOPE_FORM},
  {"grid",             0,                                      PG_SCOPE_COLLECTION},
  {"gridcell",         0,                                      -1},
  {"link",             I | A | PG__R_NAVLINK,                  -1},
  {"list",             0,                                      PG_SCOPE_COLLECTION},
  {"listbox",          I | PG__R_CHOOSER,                      PG_SCOPE_COLLECTION},
  {"log",              PG__R_STATUS,                           -1},
  {"main",             0,                                      PG_SCOPE_REGION},
  {"marquee",          PG__R_NOISE,                            -1},
  {"menu",             0,                                      PG_SCOPE_MENU},
  {"menubar",          0,                                      PG_SCOPE_MENU},
  {"menuitem",         I | A,                                  -1},
  {"menuitemcheckbox", I | A | PG__R_CHECKABLE,                -1},
  {"menuitemradio",    I | A | PG__R_CHECKABLE,                -1},
  {"meter",            PG__R_STATUS | PG__R_RANGE,             -1},
  {"navigation",       0,                                      PG_SCOPE_REGION},
  {"option",           I | A | PG__R_OPTION,                   -1},
  {"progressbar",      PG__R_STATUS | PG__R_RANGE,             -1},
  {"radio",            I | A | PG__R_CHECKABLE,                -1},
  {"region",           0,                                      PG_SCOPE_REGION},
  {"row",              0,                                      -1},
  {"rowgroup",         0,                                      PG_SCOPE_ROWGROUP},
  {"scrollbar",        I | PG__R_RANGE,                        -1},
  {"search",           0,                                      PG_SCOPE_REGION},
  {"searchbox",        I | PG__R_EDITABLE,                     -1},
  {"slider",           I | PG__R_RANGE,                        -1},
  {"spinbutton",       I | PG__R_EDITABLE | PG__R_RANGE,       -1},
  {"status",           PG__R_STATUS,                           -1},
  {"switch",           I | A | PG__R_CHECKABLE,                -1},
  {"tab",              I | A,                                  -1},
  {"table",            0,                                      PG_SCOPE_COLLECTION},
  {"tablist",          0,                                      PG_SCOPE_TABSET},
  {"tabpanel",         0,                                      PG_SCOPE_TABPANEL},
  {"textbox",          I | PG__R_EDITABLE,                     -1},
  {"timer",            PG__R_NOISE,                            -1},
  {"toolbar",          0,                                      PG_SCOPE_TOOLBAR},
  {"tree",             0,                                      PG_SCOPE_COLLECTION},
  {"treegrid",         0,                                      PG_SCOPE_COLLECTION},
  {"treeitem",         I | A,                                  -1},
};
#undef I
#undef A

static int cmp_role(const void *k, const void *e) {
  return strcmp(k, ((const pg__role_info *)e)->role);
}

const pg__role_info *pg__role_lookup(const char *role) {
  if (!role) return NULL;
  return bsearch(role, roles, sizeof roles / sizeof *roles, sizeof *roles, cmp_role);
}

/* Chromium-internal roles (role.type "internalRole") and their ARIA names.
 * NULL: text or structure, never published as an element. */
static const struct { const char *chrome, *aria; } internal[] = {
  {"Abbr", "generic"},          {"Canvas", "img"},        {"Caption", "caption"},
  {"DescriptionListDetail", "definition"}, {"DescriptionListTerm", "term"},
  {"DisclosureTriangle", "button"}, {"Iframe", "generic"}, {"IframePresentational", NULL},
  {"ColorWell", "button"},       {"Date", "textbox"},      {"DateTime", "textbox"},
  {"InputTime", "textbox"},      {"DescriptionList", "list"}, {"MathMLMath", "math"},
  {"InlineTextBox", NULL},       {"LabelText", "generic"}, {"LayoutTable", NULL},
  {"LayoutTableCell", NULL},     {"LayoutTableRow", NULL}, {"LineBreak", NULL},
  {"ListMarker", NULL},          {"MenuListOption", "option"}, {"MenuListPopup", NULL},
  {"PdfActionableHighlight", NULL}, {"PdfRoot", NULL},     {"RootWebArea", NULL},
  {"Ruby", "generic"},           {"StaticText", NULL},     {"SvgRoot", "graphics-document"},
  {"Video", "generic"},          {"Audio", "generic"},     {"EmbeddedObject", "generic"},
  {"PluginObject", "generic"},   {"WebView", NULL},        {"Unknown", NULL},
};

const char *pg__role_normalize(const char *r) {
  if (!r || !*r) return NULL;
  if (r[0] >= 'a' && r[0] <= 'z') return r; /* already an ARIA role */
  for (size_t i = 0; i < sizeof internal / sizeof *internal; i++)
    if (!strcmp(internal[i].chrome, r)) return internal[i].aria;
  return NULL;
}

/* Implicit ARIA roles of HTML elements (html-aam), used only when the
 * accessibility tree is not fetched for a node. */
static const struct { const char *tag, *role; } implicit[] = {
  {"A", "link"}, {"AREA", "link"}, {"ARTICLE", "article"}, {"ASIDE", "complementary"},
  {"BUTTON", "button"}, {"DATALIST", "listbox"}, {"DETAILS", "group"},
  {"DIALOG", "dialog"}, {"FIELDSET", "group"}, {"FOOTER", "contentinfo"},
  {"FORM", "form"}, {"H1", "heading"}, {"H2", "heading"}, {"H3", "heading"},
  {"H4", "heading"}, {"H5", "heading"}, {"H6", "heading"}, {"HEADER", "banner"},
  {"HR", "separator"}, {"IMG", "image"}, {"LI", "listitem"}, {"MAIN", "main"},
  {"MENU", "list"}, {"METER", "meter"}, {"NAV", "navigation"}, {"OL", "list"},
  {"OPTGROUP", "group"}, {"OPTION", "option"}, {"OUTPUT", "status"},
  {"PROGRESS", "progressbar"}, {"SEARCH", "search"}, {"SECTION", "region"},
  {"SELECT", "combobox"}, {"SUMMARY", "button"}, {"TABLE", "table"},
  {"TBODY", "rowgroup"}, {"TD", "cell"}, {"TEXTAREA", "textbox"}, {"TFOOT", "rowgroup"},
  {"TH", "columnheader"}, {"THEAD", "rowgroup"}, {"TR", "row"}, {"UL", "list"},
};

static const struct { const char *type, *role; } input_roles[] = {
  {"button", "button"}, {"checkbox", "checkbox"}, {"email", "textbox"},
  {"image", "button"}, {"number", "spinbutton"}, {"radio", "radio"},
  {"range", "slider"}, {"reset", "button"}, {"search", "searchbox"},
  {"submit", "button"}, {"tel", "textbox"}, {"text", "textbox"}, {"url", "textbox"},
  {"password", "textbox"}, {"color", "button"}, {"file", "button"},
};

const char *pg__role_from_tag(const char *tag, const char *type, int has_href) {
  if (!tag) return NULL;
  if (!strcasecmp(tag, "INPUT")) {
    if (!type || !*type) return "textbox";
    if (!strcasecmp(type, "hidden")) return NULL;
    for (size_t i = 0; i < sizeof input_roles / sizeof *input_roles; i++)
      if (!strcasecmp(input_roles[i].type, type)) return input_roles[i].role;
    return "textbox";
  }
  if ((!strcasecmp(tag, "A") || !strcasecmp(tag, "AREA")) && !has_href) return "generic";
  for (size_t i = 0; i < sizeof implicit / sizeof *implicit; i++)
    if (!strcasecmp(implicit[i].tag, tag)) return implicit[i].role;
  return "generic";
}

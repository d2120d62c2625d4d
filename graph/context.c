/* context.c -- where a control sits and what it shows, as tables: the
 * container kinds (pg_element.container_kind) that roles and class names
 * imply, and which elements draw a control's icon. The policy reads a
 * close glyph by them: a dismiss inside a dialog, popover, toast, drawer or
 * chip; the removal of an item on a list item, table row or card of a
 * collection (policy/icons.c). build.c climbs the tree with these tables.
 */
#include "pg_int.h"

#include <string.h>
#include <strings.h>

/* Roles, as computed (AX, explicit, or implicit by tag). Landmarks and
 * plain groups are not here: they say nothing about a close glyph. */
static const struct { const char *role; pg__ckind k; } role_kinds[] = {
  {"dialog", {"dialog", 0}},         {"alertdialog", {"alertdialog", 0}},
  {"tooltip", {"popover", 0}},       {"status", {"toast", 0}},
  {"alert", {"toast", 0}},           {"menu", {"menu", 0}},
  {"menubar", {"menu", 0}},          {"listitem", {"listitem", 0}},
  {"row", {"row", 0}},               {"gridcell", {"gridcell", 0}},
  {"cell", {"gridcell", 0}},         {"columnheader", {"gridcell", 0}},
  {"rowheader", {"gridcell", 0}},    {"option", {"option", 0}},
  {"treeitem", {"treeitem", 0}},     {"menuitem", {"menuitem", 0}},
  {"menuitemcheckbox", {"menuitem", 0}}, {"menuitemradio", {"menuitem", 0}},
  {"article", {"article", 1}},       {"tab", {"tab", 0}},
  {"list", {"collection", 0}},       {"listbox", {"collection", 0}},
  {"grid", {"collection", 0}},       {"table", {"collection", 0}},
  {"treegrid", {"collection", 0}},   {"tree", {"collection", 0}},
  {"feed", {"collection", 0}},
};

/* Tags whose implicit role the accessibility tree may not show (a layout
 * table's row, a list item with its list's role removed). */
static const struct { const char *tag; pg__ckind k; } tag_kinds[] = {
  {"LI", {"listitem", 0}}, {"TR", {"row", 0}}, {"TD", {"gridcell", 0}},
  {"TH", {"gridcell", 0}}, {"DIALOG", {"dialog", 0}}, {"ARTICLE", {"article", 1}},
};

int pg__role_container(const char *role, pg__ckind *out) {
  for (size_t i = 0; role && i < sizeof role_kinds / sizeof *role_kinds; i++)
    if (!strcmp(role, role_kinds[i].role)) {
      *out = role_kinds[i].k;
      return 1;
    }
  return 0;
}

int pg__tag_container(const char *tag, pg__ckind *out) {
  for (size_t i = 0; tag && i < sizeof tag_kinds / sizeof *tag_kinds; i++)
    if (!strcasecmp(tag, tag_kinds[i].tag)) {
      *out = tag_kinds[i].k;
      return 1;
    }
  return 0;
}

/* Class names of component libraries (Bootstrap, Bulma, Material, MUI, Ant,
 * Element, Vuetify, ...): a class token is split into words at '-', '_'
 * and lower-to-upper steps ("MuiListItem-root" -> mui list item root), a
 * trailing "root" dropped, and its LAST word decides, so that the parts of
 * a component ("card-header", "toast-body", "MuiChip-deleteIcon") are not
 * the component. `after` (when set) must be the word before it:
 * "table-row" is a row, Bootstrap's layout "row" is not. */
static const struct { const char *word, *after; pg__ckind k; } class_words[] = {
  {"modal", NULL, {"dialog", 0}},        {"dialog", NULL, {"dialog", 0}},
  {"popover", NULL, {"popover", 0}},     {"tooltip", NULL, {"popover", 0}},
  {"toast", NULL, {"toast", 0}},         {"snackbar", NULL, {"toast", 0}},
  {"alert", NULL, {"toast", 0}},         {"notification", NULL, {"toast", 0}},
  {"drawer", NULL, {"drawer", 0}},       {"offcanvas", NULL, {"drawer", 0}},
  {"chip", NULL, {"chip", 0}},           {"tag", NULL, {"chip", 0}},
  {"token", NULL, {"chip", 0}},          {"card", NULL, {"card", 1}},
  {"row", "table", {"row", 0}},          {"row", "data", {"row", 0}},
  {"row", "grid", {"row", 0}},           {"item", NULL, {"listitem", 0}},
};

/* "item" after these words is navigation or layout, not an entry of a
 * collection ("nav-item", "breadcrumb-item", "page-item"). */
static const char *const not_items[] = {"nav", "navbar", "breadcrumb", "carousel", "form", "page"};

#define WORDS_MAX 8
#define WORD_MAX 24

/* Split token (n bytes) into at most WORDS_MAX lower-case words. */
static int split_words(const char *tok, size_t n, char words[][WORD_MAX]) {
  int nw = 0;
  size_t wl = 0;
  for (size_t i = 0; i <= n && nw < WORDS_MAX; i++) {
    char ch = i < n ? tok[i] : 0;
    int upper = ch >= 'A' && ch <= 'Z';
    int boundary = !ch || ch == '-' || ch == '_' || (upper && i > 0 && tok[i - 1] >= 'a' && tok[i - 1] <= 'z');
    if (boundary && wl) {
      words[nw++][wl] = 0;
      wl = 0;
    }
    if (ch && ch != '-' && ch != '_' && nw < WORDS_MAX && wl + 1 < WORD_MAX)
      words[nw][wl++] = (char)(upper ? ch + 32 : ch);
  }
  return nw;
}

static int token_container(const char *tok, size_t n, pg__ckind *out) {
  char words[WORDS_MAX][WORD_MAX];
  int nw = split_words(tok, n, words);
  if (nw && !strcmp(words[nw - 1], "root")) nw--;
  if (!nw) return 0;
  const char *last = words[nw - 1], *before = nw > 1 ? words[nw - 2] : "";
  for (size_t i = 0; i < sizeof class_words / sizeof *class_words; i++) {
    if (strcmp(last, class_words[i].word)) continue;
    if (class_words[i].after && strcmp(before, class_words[i].after)) continue;
    if (!strcmp(last, "item"))
      for (size_t k = 0; k < sizeof not_items / sizeof *not_items; k++)
        if (!strcmp(before, not_items[k])) return 0;
    *out = class_words[i].k;
    return 1;
  }
  return 0;
}

int pg__class_container(const char *cls, pg__ckind *out) {
  for (const char *p = cls; p && *p;) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f') p++;
    size_t n = strcspn(p, " \t\n\r\f");
    if (n && token_container(p, n, out)) return 1;
    p += n;
  }
  return 0;
}

/* Elements that draw an icon inside a control: icon fonts (<i>, <span>),
 * inline SVG, and the icon components of Angular Material and Ionic.
 * (SVG tags come in lower case, HTML ones in upper case.) */
static const char *const icon_tags[] = {"I", "SPAN", "SVG", "MAT-ICON", "ION-ICON", "EM"};

int pg__icon_tag(const char *tag) {
  for (size_t i = 0; tag && i < sizeof icon_tags / sizeof *icon_tags; i++)
    if (!strcasecmp(tag, icon_tags[i])) return 1;
  return 0;
}

int pg__ligature_text(const char *s, char *buf, size_t cap) {
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
  size_t n = 0;
  for (; s[n] && !(s[n] == ' ' || s[n] == '\t' || s[n] == '\n' || s[n] == '\r'); n++)
    if (!((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9') || s[n] == '_')) return 0;
  for (const char *t = s + n; *t; t++)
    if (!(*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r')) return 0;
  if (!n || n > PG_ICON_TEXT_MAX || n + 1 > cap) return 0;
  memcpy(buf, s, n);
  buf[n] = 0;
  return 1;
}

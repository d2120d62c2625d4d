/* icons.c -- what an icon-only control does. A close glyph (×, ✕, an
 * fa-xmark, a material "close") is a dismiss inside a dialog, popover,
 * toast, drawer, menu or chip, and removes the item on a list item, table
 * row, card or any entry of a collection; anywhere else nobody can tell,
 * so it is unknown (never clicked). A trash can (🗑, fa-trash, material
 * "delete") deletes wherever it is. A minus (−, fa-minus, "remove_circle")
 * removes an item, and is unknown anywhere else (zoom out, a quantity).
 *
 * The evidence, read by pol__icon_read and weighed by pol_classify:
 *  - the accessible name, when it holds no words: only glyphs of the table
 *    below, icon-font code points (Unicode private use areas: U+E000-U+F8FF,
 *    planes 15 and 16), variation selectors and zero-width characters;
 *  - the class names of the control and its icon elements (icon_classes):
 *    Font Awesome, Bootstrap Icons, Glyphicons, Material Design Icons,
 *    Remix, Tabler, Lucide, Feather, PrimeIcons, Ant, Element, Bulma;
 *  - the ligature text of an icon font element (icon_text) when a ligature
 *    font's class is there (Material Icons / Symbols, Angular mat-icon).
 * All of it is inferred (pol_classification.inferred).
 */
#include <string.h>

#include "pol_int.h"

#define CLOSE POL__ICON_CLOSE
#define MINUS POL__ICON_MINUS
#define TRASH POL__ICON_DELETE

/* Glyphs that may make up a whole accessible name (UTF-8). */
static const struct { const char *glyph; unsigned char meaning; } glyphs[] = {
  {"\xC3\x97", CLOSE},         /* × U+00D7 multiplication sign */
  {"\xE2\x9C\x95", CLOSE},     /* ✕ U+2715 */
  {"\xE2\x9C\x96", CLOSE},     /* ✖ U+2716 */
  {"\xE2\x9C\x97", CLOSE},     /* ✗ U+2717 */
  {"\xE2\x9C\x98", CLOSE},     /* ✘ U+2718 */
  {"\xE2\x9D\x8C", CLOSE},     /* ❌ U+274C */
  {"\xE2\x9D\x8E", CLOSE},     /* ❎ U+274E */
  {"\xE2\xA8\xAF", CLOSE},     /* ⨯ U+2A2F vector product */
  {"\xE2\x95\xB3", CLOSE},     /* ╳ U+2573 */
  {"\xF0\x9F\x97\x99", CLOSE}, /* 🗙 U+1F5D9 cancellation x */
  {"\xF0\x9F\x97\x91", TRASH}, /* 🗑 U+1F5D1 wastebasket */
  {"\xE2\x88\x92", MINUS},     /* − U+2212 minus sign */
  {"\xE2\x9E\x96", MINUS},     /* ➖ U+2796 heavy minus */
  {"\xE2\x8A\x96", MINUS},     /* ⊖ U+2296 circled minus */
  {"-", MINUS},
};

/* Icon classes. A stem matches a class token equal to it, or one that
 * continues it with '-' or a digit ("fa-trash" matches "fa-trash-can",
 * "bi-trash3"; "fa-x" does not match "fa-xbox"). ASCII case ignored. */
static const struct { const char *stem; unsigned char meaning; } icon_classes[] = {
  /* delete: always destructive */
  {"fa-trash", TRASH},         {"bi-trash", TRASH},        {"glyphicon-trash", TRASH},
  {"mdi-delete", TRASH},       {"mdi-trash-can", TRASH},   {"ri-delete-bin", TRASH},
  {"ti-trash", TRASH},         {"lucide-trash", TRASH},    {"feather-trash", TRASH},
  {"icon-trash", TRASH},       {"icon-delete", TRASH},     {"pi-trash", TRASH},
  {"octicon-trash", TRASH},    {"la-trash", TRASH},        {"anticon-delete", TRASH},
  {"el-icon-delete", TRASH},
  /* close: dismiss or remove, where it sits decides */
  {"fa-xmark", CLOSE},         {"fa-times", CLOSE},        {"fa-close", CLOSE},
  {"fa-x", CLOSE},             {"fa-circle-xmark", CLOSE}, {"fa-rectangle-xmark", CLOSE},
  {"fa-window-close", CLOSE},  {"bi-x", CLOSE},            {"glyphicon-remove", CLOSE},
  {"mdi-close", CLOSE},        {"ri-close", CLOSE},        {"ti-x", CLOSE},
  {"lucide-x", CLOSE},         {"feather-x", CLOSE},       {"icon-close", CLOSE},
  {"icon-x", CLOSE},           {"icon-cross", CLOSE},      {"pi-times", CLOSE},
  {"octicon-x", CLOSE},        {"la-times", CLOSE},        {"anticon-close", CLOSE},
  {"el-icon-close", CLOSE},    {"btn-close", CLOSE},       {"close", CLOSE},
  {"delete", CLOSE},           /* Bulma's .delete is its close button */
  {"muichip-deleteicon", CLOSE}, {"ant-tag-close-icon", CLOSE}, {"v-chip__close", CLOSE},
  {"el-tag__close", CLOSE},
  /* minus: removes an item, else unknown */
  {"fa-minus", MINUS},         {"fa-circle-minus", MINUS}, {"bi-dash", MINUS},
  {"glyphicon-minus", MINUS},  {"mdi-minus", MINUS},       {"ti-minus", MINUS},
  {"lucide-minus", MINUS},     {"pi-minus", MINUS},
};

/* Fonts whose glyphs are ligatures of their text (class prefixes). */
static const char *const ligature_fonts[] = {
  "material-icons", "material-symbols", "mat-icon", "google-symbols",
};

static const struct { const char *text; unsigned char meaning; } ligatures[] = {
  {"delete", TRASH},           {"delete_forever", TRASH},  {"delete_outline", TRASH},
  {"delete_sweep", TRASH},     {"close", CLOSE},           {"clear", CLOSE},
  {"cancel", CLOSE},           {"highlight_off", CLOSE},   {"remove", MINUS},
  {"remove_circle", MINUS},    {"remove_circle_outline", MINUS}, {"do_not_disturb_on", MINUS},
};

/* What the nearest container makes of a close glyph (container_kind, or
 * container_role when the kind is not known), and the phrase the
 * classification's explain carries. */
#define DISMISS POL__CTX_DISMISS
#define ITEM POL__CTX_ITEM
#define OTHER POL__CTX_OTHER
static const struct { const char *kind; unsigned char ctx; const char *phrase; } containers[] = {
  {"dialog", DISMISS, "closes the dialog"},
  {"alertdialog", DISMISS, "closes the dialog"},
  {"popover", DISMISS, "closes the popover"},
  {"toast", DISMISS, "dismisses the notification"},
  {"drawer", DISMISS, "closes the drawer"},
  {"menu", DISMISS, "closes the menu"},
  {"menubar", DISMISS, "closes the menu"},
  {"chip", DISMISS, "removes the chip (a filter or a chosen value)"},
  {"listitem", ITEM, "removes a list item"},
  {"row", ITEM, "removes a list item (a table row)"},
  {"gridcell", ITEM, "removes a list item (a table row or grid cell)"},
  {"option", ITEM, "removes a list item (an option)"},
  {"treeitem", ITEM, "removes a list item (a tree item)"},
  {"menuitem", ITEM, "removes a list item (a menu entry)"},
  {"article", ITEM, "removes a list item (an article of a feed)"},
  {"card", ITEM, "removes a list item (a card of a collection)"},
  {"collection", ITEM, "removes a list item (inside a list, table or grid)"},
  {"listbox", ITEM, "removes a list item (inside a list, table or grid)"},
  {"grid", ITEM, "removes a list item (inside a list, table or grid)"},
  {"tree", ITEM, "removes a list item (inside a list, table or grid)"},
  {"repeated", ITEM, "removes a list item (one of several alike)"},
  {"tab", OTHER, "closes a tab (what it discards is not known)"},
};

static const char *const no_context = "a close or minus icon that nothing around settles: it may dismiss or delete";

int pol__icon_context(const pol_subject *s, const char **phrase)
{
  const char *kind = s->container_kind && *s->container_kind ? s->container_kind : s->container_role;
  *phrase = no_context;
  for (size_t i = 0; kind && i < sizeof containers / sizeof containers[0]; i++)
    if (pol__attr_eq(kind, containers[i].kind)) {
      *phrase = containers[i].phrase;
      return containers[i].ctx;
    }
  return POL__CTX_NONE;
}

/* ---- reading the evidence ------------------------------------------------ */

/* Code point of the UTF-8 sequence at p (*n its length), -1 if invalid. */
static long decode(const unsigned char *p, size_t *n)
{
  if (p[0] < 0x80) return *n = 1, p[0];
  size_t len = p[0] >= 0xF0 && p[0] < 0xF5 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 ? 2 : 0;
  if (!len || p[0] >= 0xF5) return *n = 1, -1;
  long cp = p[0] & (0x7F >> len);
  for (size_t i = 1; i < len; i++) {
    if ((p[i] & 0xC0) != 0x80) return *n = 1, -1;
    cp = cp << 6 | (p[i] & 0x3F);
  }
  *n = len;
  return cp;
}

/* Characters that carry no meaning of their own in an icon's name: blanks,
 * icon-font code points (private use), variation selectors, zero-width. */
static int silent(long cp)
{
  return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == 0xA0 ||
         (cp >= 0xE000 && cp <= 0xF8FF) || cp >= 0xF0000 || (cp >= 0xFE00 && cp <= 0xFE0F) ||
         (cp >= 0x200B && cp <= 0x200D) || cp == 0x2060;
}

/* 1 when name holds no words: glyphs of the table, silent characters, or
 * a lone "x". *meaning / *token: the worst glyph (NONE for private use
 * code points only). */
static int glyph_name(const char *name, int *meaning, const char **token)
{
  *meaning = POL__ICON_NONE;
  *token = NULL;
  if (!name || !*name)
    return 0;
  if (pol__attr_eq(name, "x")) {
    *meaning = CLOSE;
    *token = "x";
    return 1;
  }
  const unsigned char *p = (const unsigned char *)name;
  int any = 0;
  for (size_t seen = 0; *p && seen < POL__TEXT_MAX;) {
    size_t k, n;
    for (k = 0; k < sizeof glyphs / sizeof glyphs[0]; k++)
      if (!strncmp((const char *)p, glyphs[k].glyph, strlen(glyphs[k].glyph)))
        break;
    if (k < sizeof glyphs / sizeof glyphs[0]) {
      if (glyphs[k].meaning > *meaning)
        *meaning = glyphs[k].meaning, *token = glyphs[k].glyph;
      n = strlen(glyphs[k].glyph);
      any = 1;
    } else {
      long cp = decode(p, &n);
      if (!silent(cp))
        return *meaning = POL__ICON_NONE, *token = NULL, 0;
      any |= cp >= 0xE000 && !(cp >= 0xFE00 && cp <= 0xFE0F);
    }
    p += n, seen += n;
  }
  return any;
}

/* 1 when class token tok (n bytes) is stem or continues it ('-', digit). */
static int stem_match(const char *tok, size_t n, const char *stem)
{
  size_t sl = strlen(stem);
  if (n < sl)
    return 0;
  for (size_t i = 0; i < sl; i++) {
    char a = tok[i] >= 'A' && tok[i] <= 'Z' ? (char)(tok[i] + 32) : tok[i];
    if (a != stem[i])
      return 0;
  }
  return n == sl || tok[sl] == '-' || (tok[sl] >= '0' && tok[sl] <= '9');
}

/* Calls fn on each class token of classes until it returns nonzero. */
static int each_token(const char *classes, int (*fn)(const char *, size_t, void *), void *ud)
{
  const char *p = classes, *end = classes ? classes + strnlen(classes, POL__TEXT_MAX) : NULL;
  while (p && p < end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
      p++;
    size_t n = 0;
    while (p + n < end && !(p[n] == ' ' || p[n] == '\t' || p[n] == '\n' || p[n] == '\r'))
      n++;
    if (n && fn(p, n, ud))
      return 1;
    p += n;
  }
  return 0;
}

static int class_meaning(const char *tok, size_t n, void *ud)
{
  pol__icon *ic = ud;
  for (size_t i = 0; i < sizeof icon_classes / sizeof icon_classes[0]; i++)
    if (icon_classes[i].meaning > ic->meaning && stem_match(tok, n, icon_classes[i].stem)) {
      ic->meaning = icon_classes[i].meaning;
      ic->token = icon_classes[i].stem;
      ic->source = "class";
    }
  return 0;
}

static int is_ligature_font(const char *tok, size_t n, void *ud)
{
  (void)ud;
  for (size_t i = 0; i < sizeof ligature_fonts / sizeof ligature_fonts[0]; i++) {
    size_t fl = strlen(ligature_fonts[i]);
    if (n >= fl && !strncmp(tok, ligature_fonts[i], fl))
      return 1;
  }
  return 0;
}

void pol__icon_read(const pol_subject *s, pol__icon *out)
{
  memset(out, 0, sizeof *out);
  int gm;
  const char *gt;
  out->name_is_icon = glyph_name(s->name, &gm, &gt);
  if (gm) {
    out->meaning = gm;
    out->token = gt;
    out->source = "name";
  }
  if (s->icon_text && each_token(s->icon_classes, is_ligature_font, NULL))
    for (size_t i = 0; i < sizeof ligatures / sizeof ligatures[0]; i++)
      if (pol__attr_eq(s->icon_text, ligatures[i].text)) {
        /* the name Chromium computes from a ligature icon is its text */
        if (!s->name || !*s->name || pol__attr_eq(s->name, ligatures[i].text))
          out->name_is_icon = 1;
        if (ligatures[i].meaning > out->meaning) {
          out->meaning = ligatures[i].meaning;
          out->token = ligatures[i].text;
          out->source = "ligature";
        }
      }
  each_token(s->icon_classes, class_meaning, out);
}

/* Readable names for icon-only controls: a name made only of private-use
 * code points (an icon font's glyph, "\uf002") names nothing a user reads;
 * the icon's class tokens (fa-search, bi-trash) say what it shows. */
#include <string.h>

#include "pg_int.h"

/* One UTF-8 sequence at s (n bytes left): its length, *cp the code point;
 * 0 for a malformed one. */
static size_t utf8_next(const unsigned char *s, size_t n, unsigned *cp) {
  static const struct { unsigned char mask, lead; size_t len; unsigned min; } seq[] = {
    {0x80, 0x00, 1, 0}, {0xE0, 0xC0, 2, 0x80}, {0xF0, 0xE0, 3, 0x800}, {0xF8, 0xF0, 4, 0x10000},
  };
  for (size_t k = 0; k < sizeof seq / sizeof *seq; k++) {
    if ((s[0] & seq[k].mask) != seq[k].lead) continue;
    if (n < seq[k].len) return 0;
    unsigned v = s[0] & (unsigned char)~seq[k].mask;
    for (size_t j = 1; j < seq[k].len; j++) {
      if ((s[j] & 0xC0) != 0x80) return 0;
      v = (v << 6) | (s[j] & 0x3F);
    }
    if (v < seq[k].min) return 0;
    *cp = v;
    return seq[k].len;
  }
  return 0;
}

static int is_pua(unsigned cp) {
  return (cp >= 0xE000 && cp <= 0xF8FF) || (cp >= 0xF0000 && cp <= 0xFFFFD) || (cp >= 0x100000 && cp <= 0x10FFFD);
}

int pg__text_is_glyphs(const char *s) {
  if (!s) return 0;
  size_t n = strlen(s);
  int glyphs = 0;
  for (size_t i = 0; i < n;) {
    unsigned cp = 0;
    size_t len = utf8_next((const unsigned char *)s + i, n - i, &cp);
    if (!len) return 0;
    if (is_pua(cp)) glyphs++;
    else if (cp != ' ' && cp != '\t' && cp != '\n' && cp != 0xA0 && cp != 0x200B) return 0;
    i += len;
  }
  return glyphs > 0;
}

/* Icon-set prefixes of a class token, then what the rest of it names. No
 * close (fa-times, fa-xmark) or minus: what those do depends on where they
 * sit (a dialog's dismiss, a row's removal), which the policy reads from the
 * icon and its container (policy/icons.c); a name "Close" would read as a
 * safe word anywhere. */
static const char *const prefixes[] = {"fa-", "bi-", "mdi-", "icon-", "glyphicon-", "ti-", "ion-", "la-"};
static const struct { const char *icon, *name; } icon_names[] = {
  {"search", "Search"}, {"magnifying-glass", "Search"}, {"bars", "Menu"}, {"navicon", "Menu"},
  {"reorder", "Menu"}, {"menu", "Menu"}, {"list", "Menu"}, {"trash", "Delete"}, {"trash-o", "Delete"}, {"trash-alt", "Delete"}, {"trash-can", "Delete"},
  {"trash3", "Delete"}, {"delete", "Delete"}, {"cog", "Settings"}, {"cogs", "Settings"}, {"gear", "Settings"},
  {"gears", "Settings"}, {"settings", "Settings"}, {"plus", "Add"}, {"add", "Add"}, {"plus-circle", "Add"},
  {"pen", "Edit"}, {"pencil", "Edit"}, {"edit", "Edit"}, {"pen-to-square", "Edit"}, {"pencil-square-o", "Edit"},
  {"ellipsis-v", "More options"}, {"ellipsis-vertical", "More options"}, {"ellipsis-h", "More options"},
  {"ellipsis", "More options"}, {"three-dots", "More options"}, {"home", "Home"}, {"house", "Home"},
  {"download", "Download"}, {"upload", "Upload"}, {"filter", "Filter"}, {"refresh", "Refresh"},
  {"sync", "Refresh"}, {"arrows-rotate", "Refresh"}, {"bell", "Notifications"}, {"user", "Account"},
  {"share", "Share"}, {"print", "Print"}, {"copy", "Copy"}, {"save", "Save"}, {"floppy-disk", "Save"},
  {"question-circle", "Help"}, {"circle-question", "Help"}, {"info-circle", "Information"},
};

static const char *token_name(const char *tok, size_t len) {
  for (size_t p = 0; p < sizeof prefixes / sizeof *prefixes; p++) {
    size_t pl = strlen(prefixes[p]);
    if (len <= pl || strncmp(tok, prefixes[p], pl)) continue;
    for (size_t k = 0; k < sizeof icon_names / sizeof *icon_names; k++)
      if (strlen(icon_names[k].icon) == len - pl && !strncmp(tok + pl, icon_names[k].icon, len - pl))
        return icon_names[k].name;
  }
  return NULL;
}

const char *pg__icon_class_name(const char *classes) {
  for (const char *p = classes; p && *p;) {
    p += strspn(p, " ");
    size_t len = strcspn(p, " ");
    const char *name = len ? token_name(p, len) : NULL;
    if (name) return name;
    p += len;
  }
  return NULL;
}

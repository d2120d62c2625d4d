/* Icon-font glyph names (graph/iconname.c): what counts as a bare glyph,
 * and what icon class tokens name. */
#include <criterion/criterion.h>
#include <string.h>

#include "pg_int.h"

Test(graph_iconname, glyph_only_names) {
  cr_expect(pg__text_is_glyphs("\xef\x80\x82"), "U+F002 (fa-search's glyph)");
  cr_expect(pg__text_is_glyphs(" \xef\x83\x89 "), "a glyph between blanks");
  cr_expect(pg__text_is_glyphs("\xee\x80\x81\xef\x80\x82"), "two glyphs");
  cr_expect(pg__text_is_glyphs("\xf3\xb0\x80\x80"), "supplementary private use (U+F0000)");
  cr_expect(!pg__text_is_glyphs("\xef\x80\x82 Search"), "a glyph and a word is a name");
  cr_expect(!pg__text_is_glyphs("Search"));
  cr_expect(!pg__text_is_glyphs(""), "empty: no glyph");
  cr_expect(!pg__text_is_glyphs("  "));
  cr_expect(!pg__text_is_glyphs(NULL));
  cr_expect(!pg__text_is_glyphs("\xef\x80"), "a cut sequence");
  cr_expect(!pg__text_is_glyphs("\xe2\x9c\x95"), "U+2715 (a multiplication x) is not private use");
}

Test(graph_iconname, class_names) {
  static const struct { const char *classes, *name; } cases[] = {
    {"fa fa-search", "Search"},   {"fas fa-magnifying-glass", "Search"}, {"fa fa-bars", "Menu"},
    {"fa fa-trash", "Delete"},
    {"bi bi-trash3", "Delete"},   {"fa fa-cog", "Settings"},             {"fa fa-gear", "Settings"},
    {"fa fa-plus", "Add"},        {"fa fa-pen", "Edit"},                 {"fa fa-edit", "Edit"},
    {"btn fa fa-fw fa-bars", "Menu"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    const char *n = pg__icon_class_name(cases[k].classes);
    cr_expect(n && !strcmp(n, cases[k].name), "%s: %s, got %s", cases[k].classes, cases[k].name, n ? n : "(none)");
  }
  cr_expect(!pg__icon_class_name("fa fa-fw"), "a set's own classes name nothing");
  cr_expect(!pg__icon_class_name("fa fa-times") && !pg__icon_class_name("fa-solid fa-xmark") &&
                !pg__icon_class_name("fa fa-minus"),
            "a close or minus icon gets no name: what it does depends on where it is (policy/icons.c)");
  cr_expect(!pg__icon_class_name("search-toggle"), "a token without an icon-set prefix names nothing");
  cr_expect(!pg__icon_class_name("fa-searchbar"), "whole tokens only");
  cr_expect(!pg__icon_class_name(NULL));
}

/* crawler_fill.c -- the synthetic values of sandbox_write form drafts
 * (crawler/run/fill.c) and the pattern subset they honour
 * (crawler/run/fill_pattern.c). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "fill.h"

static crawl_fill_field field(const char *type) {
  return (crawl_fill_field){.tag = "input", .type = type, .minlength = -1, .maxlength = -1};
}

static crawl_fill_status value_of(const crawl_fill_field *f, char *out) {
  return crawl__fill_value(f, out, CRAWL_FILL_VALUE_MAX, NULL, NULL);
}

/* ---- patterns ---- */
static const struct { const char *pattern, *yes, *no; } matches[] = {
  {"[0-9]{5}", "12345", "1234"},
  {"\\d{3}-\\d{4}", "555-0100", "5550100"},
  {"[A-Z]{2}[0-9]{2,4}", "AB123", "AB12345"},
  {"(?:abc|de)+x?", "deabcx", "dex x"},
  {"[^@\\s]+@[^@\\s]+\\.invalid", "a@b.invalid", "a@b.com"},
  {"^\\+?[0-9 ]{7,15}$", "+1 555 0100", "+1 555-0100"},
  {"colou?r", "color", "colr"},
  {"[a-c-]*", "ab-c", "abd"},
  {"a.c", "a-c", "ac"},
  {"(a|ab)c", "abc", "ab"},
};

Test(fill_pattern, matches_the_whole_value) {
  for (size_t i = 0; i < sizeof matches / sizeof *matches; i++) {
    cr_expect_eq(crawl__fill_pattern_match(matches[i].pattern, matches[i].yes), 1, "%s ~ %s", matches[i].pattern,
                 matches[i].yes);
    cr_expect_eq(crawl__fill_pattern_match(matches[i].pattern, matches[i].no), 0, "%s !~ %s", matches[i].pattern,
                 matches[i].no);
  }
}

Test(fill_pattern, makes_a_string_that_matches) {
  for (size_t i = 0; i < sizeof matches / sizeof *matches; i++) {
    char out[CRAWL_FILL_VALUE_MAX];
    cr_assert_eq(crawl__fill_pattern_make(matches[i].pattern, "5", 0, out, sizeof out), 0, "%s", matches[i].pattern);
    cr_expect_eq(crawl__fill_pattern_match(matches[i].pattern, out), 1, "%s made \"%s\"", matches[i].pattern, out);
  }
  char out[64];
  cr_assert_eq(crawl__fill_pattern_make("\\d{3}-\\d{4}", "5", 0, out, sizeof out), 0);
  cr_expect_str_eq(out, "555-5555", "the preferred digit is taken");
  cr_assert_eq(crawl__fill_pattern_make("[a-z]+", NULL, 4, out, sizeof out), 0);
  cr_expect_eq(strlen(out), 5, "extra repetitions grow the first item that may repeat: \"%s\"", out);
}

Test(fill_pattern, outside_the_subset_is_reported_not_guessed) {
  static const char *const unsupported[] = {"(a)\\1", "\\bword", "(?=a)a", "[\xc3\xa4]", "a{2,1}", "a**", "(ab", "[ab",
                                            "\\u0041"};
  char out[32];
  for (size_t i = 0; i < sizeof unsupported / sizeof *unsupported; i++) {
    cr_expect_eq(crawl__fill_pattern_match(unsupported[i], "a"), -1, "%s", unsupported[i]);
    cr_expect_eq(crawl__fill_pattern_make(unsupported[i], NULL, 0, out, sizeof out), -1, "%s", unsupported[i]);
  }
  cr_expect_eq(crawl__fill_pattern_make("a{60}", NULL, 0, out, sizeof out), -1, "too long for the buffer");
  cr_expect_eq(crawl__fill_pattern_match("(a*)*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), -1,
               "a catastrophic pattern runs out of steps instead of hanging");
}

/* ---- values ---- */
Test(fill_value, types_and_labels_give_synthetic_values) {
  char v[CRAWL_FILL_VALUE_MAX];
  crawl_fill_field f = field("email");
  cr_expect_eq(value_of(&f, v), CRAWL_FILL_OK);
  cr_expect_str_eq(v, "uiap.draft@example.invalid");
  f = field("text");
  f.label = "Mobile phone";
  value_of(&f, v);
  cr_expect(strstr(v, "555") != NULL, "a phone by its label: %s", v);
  f = field(NULL);
  f.name = "username";
  value_of(&f, v);
  cr_expect_str_eq(v, "uiap_draft", "a user name is not a person's name");
  f = field("text");
  f.autocomplete = "shipping postal-code";
  value_of(&f, v);
  cr_expect_str_eq(v, "12345");
  f = field("url");
  value_of(&f, v);
  cr_expect(strstr(v, "example.invalid") != NULL, "%s", v);
}

Test(fill_value, number_respects_min_max_and_step) {
  char v[CRAWL_FILL_VALUE_MAX];
  crawl_fill_field f = field("number");
  f.min = "18", f.max = "99", f.step = "5";
  cr_expect_eq(value_of(&f, v), CRAWL_FILL_OK);
  cr_expect_str_eq(v, "58", "the middle on the grid from min (18 + 8*5)");
  f.min = "0.5", f.max = "1", f.step = "0.25";
  value_of(&f, v);
  cr_expect_str_eq(v, "0.75");
  f = field("number");
  f.max = "10";
  value_of(&f, v);
  cr_expect_str_eq(v, "10");
  f = field("number");
  f.min = "100", f.step = "7";
  value_of(&f, v);
  cr_expect_str_eq(v, "100");
  f = field("range");
  f.min = "1", f.max = "2", f.step = "any";
  value_of(&f, v);
  cr_expect_str_eq(v, "1.5");
  f = field("number");
  f.min = "5", f.max = "1";
  cr_expect_eq(value_of(&f, v), CRAWL_FILL_FALLBACK, "no valid value: said, not hidden");
}

Test(fill_value, dates_stay_within_min_and_max) {
  char v[CRAWL_FILL_VALUE_MAX];
  crawl_fill_field f = field("date");
  value_of(&f, v);
  cr_expect_str_eq(v, "2030-06-15");
  f.min = "2031-02-01";
  value_of(&f, v);
  cr_expect_str_eq(v, "2031-02-01");
  f = field("date");
  f.max = "2001-01-01";
  value_of(&f, v);
  cr_expect_str_eq(v, "2001-01-01");
  f = field("time");
  value_of(&f, v);
  cr_expect_str_eq(v, "12:00");
}

Test(fill_value, lengths_and_patterns) {
  char v[CRAWL_FILL_VALUE_MAX];
  crawl_fill_field f = field("text");
  f.name = "full_name";
  f.maxlength = 6;
  value_of(&f, v);
  cr_expect_str_eq(v, "Uiap D", "cut to maxlength");
  f = field("text");
  f.minlength = 12;
  value_of(&f, v);
  cr_expect_eq(strlen(v), 12, "padded to minlength: %s", v);
  f = field("tel");
  f.pattern = "[0-9]{3}-[0-9]{4}";
  const char *kind = NULL, *note = NULL;
  cr_expect_eq(crawl__fill_value(&f, v, sizeof v, &kind, &note), CRAWL_FILL_OK);
  cr_expect_str_eq(v, "555-0100", "made from the pattern with the phone's digits first: %s", v);
  cr_expect_str_eq(kind, "pattern");
  f = field("text");
  f.label = "Postal code";
  f.pattern = "[A-Z]{2}-[0-9]{4}";
  f.minlength = 7;
  cr_expect_eq(value_of(&f, v), CRAWL_FILL_OK);
  cr_expect_eq(crawl__fill_pattern_match(f.pattern, v), 1, "%s", v);
  f = field("text");
  f.pattern = "(?<x>a)";
  cr_expect_eq(crawl__fill_value(&f, v, sizeof v, &kind, &note), CRAWL_FILL_FALLBACK);
  cr_expect(note && strstr(note, "pattern"), "the fallback says why");
}

Test(fill_value, choices_checkboxes_and_what_is_never_filled) {
  char v[CRAWL_FILL_VALUE_MAX];
  static const char *const opts[] = {"", "de", "fr"};
  crawl_fill_field f = {.tag = "select", .options = opts, .noptions = 3, .minlength = -1, .maxlength = -1};
  value_of(&f, v);
  cr_expect_str_eq(v, "de", "the placeholder option (no value) is passed over");
  f = field("radio");
  f.options = opts + 2, f.noptions = 1;
  value_of(&f, v);
  cr_expect_str_eq(v, "fr");
  f = field("checkbox");
  cr_expect_eq(value_of(&f, v), CRAWL_FILL_SKIP, "an optional checkbox (a newsletter) is not ticked");
  f.required = 1;
  cr_expect_eq(value_of(&f, v), CRAWL_FILL_OK);
  cr_expect_str_eq(v, "on");
  static const char *const never[] = {"password", "file", "hidden", "submit"};
  for (size_t i = 0; i < sizeof never / sizeof *never; i++) {
    f = field(never[i]);
    f.required = 1;
    cr_expect_eq(value_of(&f, v), CRAWL_FILL_SKIP, "%s", never[i]);
  }
  f = field("text");
  f.autocomplete = "one-time-code";
  cr_expect_eq(value_of(&f, v), CRAWL_FILL_SKIP);
  f = field("text");
  f.autocomplete = "cc-number";
  cr_expect_eq(value_of(&f, v), CRAWL_FILL_SKIP);
  cr_expect_str_eq(v, "", "nothing written for a skipped field");
}

/* crawler_text.c -- the value safe_explore types into a search or filter
 * field (act_text.c crawl__act_text_choose): a word of the items near the
 * field, never one of an item holding an e-mail address or phone number,
 * of a column that names people, or holding a secret of the run; else the
 * probe word "test". Enter only where it submits a search, not for a list
 * filter. And the value round-trips through a transition's args. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "crawl_secrets.h"

/* The value chosen for items (a JSON array of [text, header]) under rule. */
static void choose(action *a, const char *items, const char *rule, const crawl__secrets *sec) {
  memset(a, 0, sizeof *a);
  snprintf(a->cls.rule, sizeof a->cls.rule, "%s", rule);
  act_field f = {.items = cJSON_Parse(items)};
  cr_assert(f.items, "bad test items %s", items);
  crawl__act_text_choose(a, &f, sec);
  cJSON_Delete(f.items);
}

Test(crawler_text, the_longest_word_of_the_first_item) {
  action a;
  choose(&a, "[[\"Mango chutney\",\"\"],[\"Quince jelly\",\"\"]]", "text.form.get", NULL);
  cr_expect_str_eq(a.text, "chutney");
  cr_expect_eq(a.text_probe, 0);
  cr_expect_eq(a.text_enter, 1, "a GET form's field is submitted with Enter");
  free(a.text);
  choose(&a, "[[\"12 x 400 g \\u2014 Crème brûlée\",\"\"]]", "text.filter", NULL);
  cr_expect_str_eq(a.text, "brûlée", "letters only (Latin-1 letters too): digits, units and dashes are no word");
  cr_expect_eq(a.text_enter, 0, "a list filter filters as it is typed into: no Enter");
  free(a.text);
}

Test(crawler_text, personal_data_is_never_typed) {
  action a;
  choose(&a, "[[\"Write to alice.wonderly@example.com\",\"\"],[\"Call +1 555 010 0199\",\"\"],"
             "[\"Bartholomew Quist\",\"Full name\"],[\"Gooseberry fool\",\"Dessert\"]]", "text.searchbox", NULL);
  cr_expect_str_eq(a.text, "Gooseberry", "items with an address, a phone number or in a name column are skipped");
  free(a.text);
  choose(&a, "[[\"Alice Wonderly\",\"Name\"],[\"bob@example.org\",\"\"]]", "text.filter", NULL);
  cr_expect_str_eq(a.text, "test", "nothing usable: the probe word");
  cr_expect_eq(a.text_probe, 1);
  free(a.text);
}

Test(crawler_text, secrets_are_never_typed) {
  crawl__secrets *sec = crawl__secrets_new();
  crawl__secrets_add(sec, "Marmalade-Xq7");
  crawl__secrets_add(sec, "Persimmon");
  action a;
  choose(&a, "[[\"token Marmalade-Xq7 expires\",\"\"],[\"Persimmon tart\",\"\"],[\"Fig roll\",\"\"]]",
         "text.searchbox", sec);
  cr_expect_str_eq(a.text, "roll", "an item holding a secret gives no word (not even \"expires\")");
  free(a.text);
  crawl__secrets_free(sec);
}

Test(crawler_text, the_value_round_trips_through_args) {
  action a = {.action_id = "ui.enterText", .text = "chutney", .text_enter = 1};
  cJSON *args = cJSON_CreateObject();
  crawl__act_text_args(args, &a);
  action b = {.action_id = "ui.enterText"};
  crawl__act_text_from_args(&b, args);
  cr_expect_str_eq(b.text, "chutney");
  cr_expect_eq(b.text_enter, 1);
  cr_expect_eq(b.text_probe, 0);
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(args, "valueSource")), "page");
  free(b.text);
  action c = {.action_id = "ui.activate"};
  crawl__act_text_from_args(&c, args);
  cr_expect_null(c.text, "only a ui.enterText takes a text from args");
  cJSON_Delete(args);
}

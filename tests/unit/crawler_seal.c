/* crawler_seal.c -- what a sealed probe did to the client storage
 * (crawler/run/seal_diff.c): two snapshots compared into keys added,
 * changed, removed, and stored lists or objects that lost entries, per
 * channel (localStorage, sessionStorage, cookies, IndexedDB records, Cache
 * Storage entries); a change names the key, never the value; the losses
 * are kept when there are more changes than room. Also pol_probeable: only
 * safe_explore with probing on, only rule default.unknown. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "pol.h"
#include "seal.h"

static cJSON *J(const char *s) {
  cJSON *j = cJSON_Parse(s);
  cr_assert(j, "test JSON parses: %s", s);
  return j;
}

/* The change of d on (channel, key), or NULL. */
static const crawl_seal_change *find(const crawl_seal_diff *d, const char *channel, const char *key) {
  for (size_t i = 0; i < d->n; i++)
    if (!strcmp(d->v[i].channel, channel) && !strcmp(d->v[i].key, key)) return &d->v[i];
  return NULL;
}

static void diff(const char *b, const char *a, crawl_seal_diff *d) {
  cJSON *jb = J(b), *ja = J(a);
  crawl__seal_diff(jb, ja, d);
  cJSON_Delete(jb);
  cJSON_Delete(ja);
}

Test(seal, equal_snapshots_differ_in_nothing) {
  const char *s = "{\"localStorage\":{\"a\":\"1\",\"list\":\"[1,2]\"},\"cookies\":{\"pref; h; /\":\"x\"},"
                  "\"indexedDB\":{\"db/items\":{\"records\":{\"1\":\"\\\"one\\\"\"}}},\"cacheStorage\":{\"c\":[\"http://h/a\"]}}";
  crawl_seal_diff d;
  diff(s, s, &d);
  cr_expect_eq(d.n, 0);
  cr_expect_eq(crawl__seal_lost(&d), 0);
  crawl__seal_diff_release(&d);
}

Test(seal, added_changed_removed_by_channel) {
  crawl_seal_diff d;
  diff("{\"localStorage\":{\"notes\":\"keep me\",\"tab\":\"a\"},\"sessionStorage\":{\"s\":\"1\"}}",
       "{\"localStorage\":{\"tab\":\"b\",\"theme\":\"dark\"},\"sessionStorage\":{}}", &d);
  cr_expect_eq(d.counts[CRAWL_SEAL_ADDED], 1);
  cr_expect_eq(d.counts[CRAWL_SEAL_CHANGED], 1);
  cr_expect_eq(d.counts[CRAWL_SEAL_REMOVED], 2);
  cr_expect_eq(crawl__seal_lost(&d), 2, "a key removed is stored data lost");
  const crawl_seal_change *c = find(&d, "localStorage", "notes");
  cr_assert(c);
  cr_expect_eq(c->kind, CRAWL_SEAL_REMOVED);
  cr_expect_eq(find(&d, "localStorage", "tab")->kind, CRAWL_SEAL_CHANGED);
  cr_expect_eq(find(&d, "localStorage", "theme")->kind, CRAWL_SEAL_ADDED);
  cr_expect_eq(find(&d, "sessionStorage", "s")->kind, CRAWL_SEAL_REMOVED);
  for (size_t i = 0; i < d.n; i++) /* keys only: no value is in a change */
    cr_expect(!strstr(d.v[i].key, "keep me") && !strstr(d.v[i].key, "dark"), "%s", d.v[i].key);
  crawl__seal_diff_release(&d);
}

Test(seal, a_stored_list_or_object_that_lost_entries_shrank) {
  crawl_seal_diff d;
  diff("{\"localStorage\":{\"list\":\"[\\\"a\\\",\\\"b\\\",\\\"c\\\"]\",\"more\":\"[1]\",\"obj\":\"{\\\"x\\\":1,\\\"y\\\":2}\","
       "\"swap\":\"[1,2]\",\"grow\":\"{\\\"x\\\":1}\",\"gone\":\"[1]\"}}",
       "{\"localStorage\":{\"list\":\"[\\\"a\\\",\\\"b\\\"]\",\"more\":\"[1,2]\",\"obj\":\"{\\\"x\\\":1}\","
       "\"swap\":\"[1,3]\",\"grow\":\"{\\\"x\\\":2,\\\"z\\\":3}\",\"gone\":\"\"}}", &d);
  cr_expect_eq(find(&d, "localStorage", "list")->kind, CRAWL_SEAL_SHRUNK, "a list lost an item");
  cr_expect_eq(find(&d, "localStorage", "more")->kind, CRAWL_SEAL_CHANGED, "a list that only grew");
  cr_expect_eq(find(&d, "localStorage", "obj")->kind, CRAWL_SEAL_SHRUNK, "an object lost a member");
  cr_expect_eq(find(&d, "localStorage", "swap")->kind, CRAWL_SEAL_SHRUNK, "an item replaced is an item lost");
  cr_expect_eq(find(&d, "localStorage", "grow")->kind, CRAWL_SEAL_CHANGED, "members changed and added, none lost");
  cr_expect_eq(find(&d, "localStorage", "gone")->kind, CRAWL_SEAL_SHRUNK, "a list emptied into another value");
  crawl__seal_diff_release(&d);
}

Test(seal, lost_entries_reads_json_only) {
  cr_expect_eq(crawl__seal_lost_entries("[1,2,2]", "[2,1]"), 1, "duplicates count");
  cr_expect_eq(crawl__seal_lost_entries("[1,2,2]", "[2,2,1,4]"), 0);
  cr_expect_eq(crawl__seal_lost_entries("[]", "\"x\""), 0, "an empty list has nothing to lose");
  cr_expect_eq(crawl__seal_lost_entries("plain text", "other"), 0, "not JSON: a change");
  cr_expect_eq(crawl__seal_lost_entries("5", "4"), 0, "a number: a change");
  cr_expect_eq(crawl__seal_lost_entries("{\"a\":{\"b\":1}}", "{\"a\":{}}"), 0, "top-level entries only");
  cr_expect_eq(crawl__seal_lost_entries(NULL, "[1]"), 0);
  cr_expect_eq(crawl__seal_lost_entries("[1]", NULL), 1);
}

Test(seal, indexeddb_records_cookies_and_cache_entries) {
  crawl_seal_diff d;
  diff("{\"indexedDB\":{\"probe/items\":{\"records\":{\"1\":\"\\\"one\\\"\",\"2\":\"[1,2]\",\"3\":null}}},"
       "\"cookies\":{\"pref; h; /\":\"keep\",\"sid; h; /\":\"s\"},\"cacheStorage\":{\"v1\":[\"http://h/a\",\"http://h/b\"]}}",
       "{\"indexedDB\":{\"probe/items\":{\"records\":{\"2\":\"[1]\",\"3\":null,\"4\":\"\\\"four\\\"\"}}},"
       "\"cookies\":{\"sid; h; /\":\"t\"},\"cacheStorage\":{\"v1\":[\"http://h/a\"],\"v2\":[\"http://h/c\"]}}", &d);
  cr_expect_eq(find(&d, "IndexedDB", "probe/items 1")->kind, CRAWL_SEAL_REMOVED);
  cr_expect_eq(find(&d, "IndexedDB", "probe/items 2")->kind, CRAWL_SEAL_SHRUNK);
  cr_expect_null(find(&d, "IndexedDB", "probe/items 3"), "a value JSON cannot carry, on both sides: unchanged");
  cr_expect_eq(find(&d, "IndexedDB", "probe/items 4")->kind, CRAWL_SEAL_ADDED);
  cr_expect_eq(find(&d, "cookie", "pref; h; /")->kind, CRAWL_SEAL_REMOVED, "a cookie deleted");
  cr_expect_eq(find(&d, "cookie", "sid; h; /")->kind, CRAWL_SEAL_CHANGED);
  cr_expect_eq(find(&d, "Cache Storage", "v1 http://h/b")->kind, CRAWL_SEAL_REMOVED);
  cr_expect_eq(find(&d, "Cache Storage", "v2 http://h/c")->kind, CRAWL_SEAL_ADDED);
  cr_expect_eq(crawl__seal_lost(&d), 4);
  crawl__seal_diff_release(&d);
}

Test(seal, a_whole_database_gone_is_every_record_removed) {
  crawl_seal_diff d;
  diff("{\"indexedDB\":{\"db/a\":{\"records\":{\"1\":\"1\",\"2\":\"2\"}}}}", "{}", &d);
  cr_expect_eq(d.counts[CRAWL_SEAL_REMOVED], 2);
  crawl__seal_diff_release(&d);
}

Test(seal, losses_are_kept_when_changes_overflow) {
  /* 100 keys added, then one removed: the removal is listed whatever the order */
  cJSON *b = J("{\"localStorage\":{\"zz-keep\":\"1\"}}"), *a = J("{\"localStorage\":{}}");
  cJSON *ls = cJSON_GetObjectItem(a, "localStorage");
  for (int i = 0; i < 100; i++) {
    char k[16];
    snprintf(k, sizeof k, "k%03d", i);
    cJSON_AddStringToObject(ls, k, "v");
  }
  crawl_seal_diff d;
  crawl__seal_diff(b, a, &d);
  cr_expect_eq(d.n, CRAWL_SEAL_KEPT);
  cr_expect_eq(d.counts[CRAWL_SEAL_ADDED], 100);
  cr_expect_eq(d.counts[CRAWL_SEAL_REMOVED], 1);
  const crawl_seal_change *c = find(&d, "localStorage", "zz-keep");
  cr_assert(c, "the loss is listed");
  cr_expect_eq(c->kind, CRAWL_SEAL_REMOVED);
  crawl__seal_diff_release(&d);
  cJSON_Delete(a);
  cJSON_Delete(b);
}

Test(seal, only_default_unknown_in_safe_explore_with_probing_is_probeable) {
  pol_classification c = {.side_effect = POL_SE_UNKNOWN, .risk = POL_RISK_NONE};
  snprintf(c.rule, sizeof c.rule, "default.unknown");
  pol_policy on = {.mode = POL_MODE_SAFE_EXPLORE, .probe_unknown = 1}, off = {.mode = POL_MODE_SAFE_EXPLORE};
  pol_policy observe = {.mode = POL_MODE_OBSERVE_ONLY, .probe_unknown = 1};
  pol_policy sandbox = {.mode = POL_MODE_SANDBOX_WRITE, .probe_unknown = 1};
  pol_subject s = {.role = "button", .name = "Items", .action = "ui.activate"};
  cr_expect_eq(pol_probeable(&on, &s, &c), 1);
  cr_expect_eq(pol_probeable(&off, &s, &c), 0, "--no-probe");
  cr_expect_eq(pol_probeable(&observe, &s, &c), 0, "observe_only never probes");
  cr_expect_eq(pol_probeable(&sandbox, &s, &c), 0);
  cr_expect_eq(pol_probeable(NULL, &s, &c), 0);
  cr_expect_eq(pol_probeable(&on, NULL, &c), 0);
  pol_classification icon = c;
  snprintf(icon.rule, sizeof icon.rule, "icon.close.unknown");
  cr_expect_eq(pol_probeable(&on, &s, &icon), 0, "an icon is evidence: held");
  pol_classification submit = c;
  snprintf(submit.rule, sizeof submit.rule, "native.submit.implicit");
  cr_expect_eq(pol_probeable(&on, &s, &submit), 0, "a native fact: held");
  pol_classification confirm = c;
  confirm.risk = POL_RISK_CONFIRM;
  cr_expect_eq(pol_probeable(&on, &s, &confirm), 0, "data-uiap-risk: never probed");
  /* a control without a word is an icon of something: held */
  static const char *const wordless[] = {"", "\xEF\x87\xB8" /* U+F1F8, an icon font's trash */, "\xE2\x98\x85" /* ★ */,
                                         "\xF0\x9F\x97\x91" /* 🗑 */, "+", "x", "...", "-", "\xC3\x97" "1" /* ×1 */};
  for (size_t i = 0; i < sizeof wordless / sizeof *wordless; i++) {
    pol_subject w = {.role = "button", .name = wordless[i], .action = "ui.activate"};
    cr_expect_eq(pol_probeable(&on, &w, &c), 0, "wordless name %zu", i);
  }
  /* a figure is a datum (a grid's cell, a page number), not an icon: probed */
  /* a control without any name: a telling class word, outside an item of a
   * collection, makes it probeable; a small caret is a disclosure */
  static const struct { const char *name, *classes, *container; int want; } named_by_class[] = {
    {"", "ql-picker-item ql-selected", NULL, 1},
    {"", "btn btn-x", NULL, 0},
    {"", "btn active", NULL, 0},
    {"", "chip-tag", "listitem", 0},
    {"", "ql-picker-item", "repeated", 1}, /* a toolbar's groups are alike, no collection */
    {"Go", NULL, NULL, 1},
    {"\xE2\x96\xB8", NULL, NULL, 1},      /* ▸ */
    {" \xE2\x96\xBE ", NULL, NULL, 1},    /* ▾ */
    {"\xE2\x96\xB6", NULL, NULL, 0},      /* ▶: run, play */
    {"\xE2\x86\xA9", NULL, NULL, 1},      /* ↩: return, load */
    {"\xE2\x86\xA9", NULL, "listitem", 0}, /* ↩ on an entry: a reply, an undo of it */
    {"\xE2\x9F\xB3 \xE2\x86\x92", NULL, NULL, 1}, /* ⟳ → */
    {"\xE2\x86\x90\xE2\x86\x90\xE2\x86\x90", NULL, NULL, 0}, /* three arrows: a drawing */
    {"\xE2\x86\x90x", NULL, NULL, 0},
    {">>", NULL, NULL, 1},                  /* a dual list box's "move all" */
    {"\xC2\xBB", NULL, NULL, 1},            /* » a pager */
    {"\xE2\x80\xB9", NULL, NULL, 1},       /* ‹ */
    {"<", NULL, "listitem", 0},
    {">>", NULL, "card", 1},                /* a dashboard card's dual list box */
    {"", "btn fa fa-chevron-up", "collection", 1}, /* a time picker's arrow */
    {"", "fa fa-arrow-left", "listitem", 0},
    {"", "fa fa-chevron-down", NULL, 1},
    {"\xE2\x86\xA9", NULL, "row", 0},      /* ↩ on a table row */
    {"<<<", NULL, NULL, 0},
    {"->", NULL, NULL, 0},
    {"\xE2\x96\xB8\xE2\x96\xB8", NULL, NULL, 0},
  };
  for (size_t i = 0; i < sizeof named_by_class / sizeof *named_by_class; i++) {
    pol_subject w = {.role = "button", .name = named_by_class[i].name, .icon_classes = named_by_class[i].classes,
                     .container_kind = named_by_class[i].container, .action = "ui.activate"};
    cr_expect_eq(pol_probeable(&on, &w, &c), named_by_class[i].want, "case %zu", i);
  }
  static const char *const words[] = {"Go",         "Next view", "\xE8\xA8\xAD\xE5\xAE\x9A" /* 設定 */,
                                      "Stufe 2",    "1001",      "37.5",
                                      "2024-02-11", "10:30",     "\xE2\x82\xAC 1,234.00" /* € */};
  for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
    pol_subject w = {.role = "button", .name = words[i], .action = "ui.activate"};
    cr_expect_eq(pol_probeable(&on, &w, &c), 1, "%s", words[i]);
  }
  /* words decide first: a "Delete" is never probed */
  pol_subject del = {.role = "button", .name = "Delete", .action = "ui.activate"};
  pol_classification dc;
  pol_classify(&del, &dc);
  cr_expect_eq(pol_probeable(&on, &del, &dc), 0, "rule %s", dc.rule);
  pol_subject plain = {.role = "button", .name = "Teal", .action = "ui.activate"};
  pol_classification pc;
  pol_classify(&plain, &pc);
  cr_expect_eq(pol_probeable(&on, &plain, &pc), 1, "rule %s", pc.rule);
}

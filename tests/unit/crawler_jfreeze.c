/* crawler_jfreeze.c -- frozen JSON (crawl__jfreeze in crawler/common/json.c),
 * the compact read-only copies in which the package build and the workflow
 * finder keep the journal's records. A frozen record must read exactly like
 * the parsed one (same members, order, types and values: then every getter
 * the package uses sees the same, and the package comes out byte for byte
 * the same), outlive nothing but its arena, and cost less than the parse. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crawl_journal.h"
#include "crawl_util.h"

#define FIXTURES UIAP_SRC "/tests/fixtures"

/* Node by node: type, member name, values, children in order (cJSON_Compare
 * cannot tell duplicate member names apart). */
static void same_nodes(const cJSON *a, const cJSON *b) {
  for (; a || b; a = a->next, b = b->next) {
    cr_assert(a && b);
    cr_assert_eq(b->type, a->type);
    cr_assert((!a->string && !b->string) || (a->string && b->string && !strcmp(a->string, b->string)));
    cr_assert((!a->valuestring && !b->valuestring) ||
              (a->valuestring && b->valuestring && !strcmp(a->valuestring, b->valuestring)));
    cr_assert_eq(b->valueint, a->valueint);
    cr_assert(b->valuedouble == a->valuedouble);
    cr_assert_eq(!a->child, !b->child);
    if (a->child) {
      cr_assert_eq(a->child->prev == a->child, b->child->prev == b->child);
      same_nodes(a->child, b->child);
    }
  }
}

/* Frozen and parsed print the same and are the same node by node. */
static void same(const cJSON *parsed, const cJSON *frozen) {
  char *a = cJSON_PrintUnformatted(parsed), *b = cJSON_PrintUnformatted(frozen);
  cr_assert_str_eq(b, a);
  free(a);
  free(b);
  cr_assert_eq(cJSON_IsObject(frozen), cJSON_IsObject(parsed));
  cr_assert_null(frozen->next);
  cr_assert_eq(frozen->type, parsed->type);
  same_nodes(parsed->child, frozen->child);
}

Test(jfreeze, every_kind_of_value_in_its_order) {
  static const char text[] =
    "{\"type\":\"x\",\"s\":\"\",\"u\":\"\\u00e9\\u4e2d \\\"q\\\" \\n\",\"i\":42,\"neg\":-7,\"d\":0.1,"
    "\"big\":12345678901234,\"t\":true,\"f\":false,\"n\":null,\"e\":{},\"ea\":[],"
    "\"a\":[1,\"two\",[3,[4,{\"five\":5}]],null,{\"k\":\"v\",\"k\":\"dup\"}],\"dup\":1,\"dup\":2}";
  cJSON *p = cJSON_Parse(text);
  cr_assert(p);
  crawl__jarena ar = {0};
  const cJSON *f = crawl__jfreeze(&ar, p);
  same(p, f);
  /* the getters the package uses */
  cr_assert_str_eq(crawl__str(f, "u"), "\xc3\xa9\xe4\xb8\xad \"q\" \n");
  cr_assert_eq(crawl__num(f, "big", 0), 12345678901234.0);
  cr_assert_eq(cJSON_GetObjectItemCaseSensitive(f, "i")->valueint, 42);
  cr_assert_eq(crawl__num(f, "dup", 0), 1); /* the first of two, as parsed */
  const cJSON *a = crawl__arr(f, "a");
  cr_assert_eq(cJSON_GetArraySize(a), 5);
  cr_assert_eq(a->child->prev, cJSON_GetArrayItem(a, 4)); /* cJSON's link: first->prev is the last */
  cr_assert(cJSON_IsNull(cJSON_GetArrayItem(a, 3)));
  cr_assert_null(f->string);
  cJSON_Delete(p);
  crawl__jarena_release(&ar);
  cr_assert_null(ar.blocks);
  cr_assert_null(crawl__jfreeze(&ar, NULL));
}

typedef struct { crawl__jarena ar; long n; } walk;
static int check_record(void *ud, const char *type, cJSON *rec) {
  walk *w = ud;
  (void)type;
  same(rec, crawl__jfreeze(&w->ar, rec));
  w->n++;
  return 0;
}

/* Every record of every recorded journal under tests/fixtures reads the same frozen. */
Test(jfreeze, every_fixture_journal_record_reads_the_same) {
  static const char *const dirs[] = {"journals/normal", "journals/interrupted", "merge", "reports"};
  walk w = {0};
  for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", FIXTURES, dirs[i]);
    DIR *d = opendir(path);
    if (!d) continue;
    (void)crawl__journal_read_all(path, check_record, &w, NULL, NULL, 0);
    struct dirent *e;
    while ((e = readdir(d))) { /* and one level down (a fixture per folder) */
      if (e->d_name[0] == '.') continue;
      char sub[1024];
      snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
      (void)crawl__journal_read_all(sub, check_record, &w, NULL, NULL, 0);
    }
    closedir(d);
  }
  cr_assert_gt(w.n, 20, "records checked: %ld", w.n);
  crawl__jarena_release(&w.ar);
}

/* A duplicate is an ordinary tree: it outlives the arena and is deleted as usual. */
Test(jfreeze, a_duplicate_outlives_the_arena) {
  cJSON *p = cJSON_Parse("{\"type\":\"transition\",\"decision\":{\"effect\":\"allow\",\"text\":\"safe\"},\"args\":{\"v\":[1,2]}}");
  crawl__jarena ar = {0};
  const cJSON *f = crawl__jfreeze(&ar, p);
  cJSON *d = cJSON_Duplicate(crawl__get(f, "decision"), 1), *o = cJSON_CreateObject();
  cJSON_AddItemToObject(o, "args", cJSON_Duplicate(crawl__get(f, "args"), 1));
  crawl__jarena_release(&ar);
  same(cJSON_GetObjectItemCaseSensitive(p, "decision"), d);
  char *t = cJSON_PrintUnformatted(o);
  cr_assert_str_eq(t, "{\"args\":{\"v\":[1,2]}}");
  free(t);
  cJSON_Delete(d);
  cJSON_Delete(o);
  cJSON_Delete(p);
}

/* Repeated strings are stored once; big strings and many records spill over
 * blocks; the arena holds less than the parsed records would. */
Test(jfreeze, strings_are_stored_once_and_blocks_grow) {
  crawl__jarena ar = {0};
  const cJSON *first = NULL, *last = NULL;
  char *big = malloc(100001);
  memset(big, 'x', 100000);
  big[100000] = 0;
  for (int i = 0; i < 5000; i++) {
    char text[256];
    snprintf(text, sizeof text,
             "{\"type\":\"decision\",\"stateId\":\"s_%d\",\"actionId\":\"ui.activate\",\"effect\":\"deny\","
             "\"text\":\"deny: destructive (rule lexicon.en.delete)\",\"n\":%d}", i % 50, i);
    cJSON *p = cJSON_Parse(text);
    if (i == 2500) cJSON_AddStringToObject(p, "big", big);
    const cJSON *f = crawl__jfreeze(&ar, p);
    same(p, f);
    cJSON_Delete(p);
    if (!first) first = f;
    last = f;
  }
  cr_assert_eq(crawl__str(first, "text"), crawl__str(last, "text")); /* one copy */
  cr_assert_eq(crawl__num(last, "n", 0), 4999);
  /* 5000 records of 7 members: 35,000 nodes of sizeof(cJSON), the big
   * string and the distinct short strings; the parsed trees take twice that
   * and more (a key and a value allocation per member) */
  size_t nodes = 35001 * sizeof(cJSON);
  cr_assert_lt(ar.bytes, nodes + 100000 + 64 * 1024 * 3, "arena %zu bytes", ar.bytes);
  cr_assert_gt(ar.bytes, nodes);
  free(big);
  crawl__jarena_release(&ar);
}

/* ---- crawl__jarena_parse: straight into the arena ---------------------------- */
/* text parsed both ways: the same result, node by node (or both fail). */
static int parse_both(crawl__jarena *ar, const char *text, size_t len) {
  cJSON *p = cJSON_ParseWithLength(text, len);
  const cJSON *f = crawl__jarena_parse(ar, text, len);
  cr_assert_eq(!p, !f, "cJSON %s, the arena %s: %.80s", p ? "parses" : "fails", f ? "parses" : "fails", text);
  if (p) same(p, f);
  cJSON_Delete(p);
  return p != NULL;
}

static long parse_tree(crawl__jarena *ar, const char *dir) {
  long n = 0;
  DIR *d = opendir(dir);
  if (!d) return 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    size_t l = strlen(e->d_name);
    if (e->d_type == DT_DIR) { n += parse_tree(ar, path); continue; }
    if (l < 5 || (strcmp(e->d_name + l - 5, ".json") && strcmp(e->d_name + l - 6, ".jsonl"))) continue;
    size_t len;
    int err;
    char *text = crawl__file_read(path, CRAWL__FILE_MAX, &len, &err);
    if (!text) continue;
    if (!strcmp(e->d_name + l - 5, ".json")) n += parse_both(ar, text, len);
    else
      for (char *line = text, *nl; line < text + len; line = nl + 1) {
        nl = memchr(line, '\n', (size_t)(text + len - line));
        if (!nl) nl = text + len;
        n += parse_both(ar, line, (size_t)(nl - line));
      }
    free(text);
  }
  closedir(d);
  return n;
}

/* Every JSON file and JSON line under tests/fixtures (packages, PageGraphs,
 * journals, CDP replies): the same as cJSON's parse, frozen. */
Test(jarena_parse, every_fixture_reads_as_cjson_reads_it, .timeout = 120) {
  crawl__jarena ar = {0};
  long n = parse_tree(&ar, FIXTURES);
  cr_assert_gt(n, 100, "documents parsed: %ld", n);
  crawl__jarena_release(&ar);
}

/* The corners of cJSON's rules: escapes, surrogate pairs, numbers, nesting,
 * what it refuses, what it leaves after the value. */
Test(jarena_parse, the_corners_of_the_grammar) {
  static const char *const ok[] = {
    "{\"a\" : [ 1 , -2.5e3 , 0.1 , 1E400 , -1e-400, 2147483648, -2147483649 ] }",
    "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\u4e2d\\ud83d\\ude00\"",
    "[]", "{}", "[[[]]]", "  true ", "false", "null", "12 trailing", "[1,2]xyz",
    "{\"k\":1,\"k\":2}", "\"a\\u0000b\"", "-0", "1.5.5", "[1e5,1e+5,1E-5]", "\"tab\there\"",
  };
  static const char *const bad[] = {
    "", "   ", "[1,", "[1 2]", "{\"a\" 1}", "{a:1}", "\"open", "\"\\x\"", "\"\\ud83d\"", "\"\\ude00\"",
    "tru", "-", "+1", "[,]", "{\"a\":}", "{\"a\":1,}",
  };
  crawl__jarena ar = {0};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) cr_assert(parse_both(&ar, ok[i], strlen(ok[i])), "%s", ok[i]);
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) cr_assert_not(parse_both(&ar, bad[i], strlen(bad[i])), "%s", bad[i]);
  /* nesting: cJSON's limit, on both sides */
  char deep[2 * 1002 + 1];
  for (int depth = 1000; depth <= 1001; depth++) {
    memset(deep, '[', (size_t)depth);
    memset(deep + depth, ']', (size_t)depth);
    parse_both(&ar, deep, 2 * (size_t)depth);
  }
  /* only len bytes are read */
  cr_assert(parse_both(&ar, "[1,2]", 5));
  cr_assert_not(parse_both(&ar, "[1,2]", 4));
  cr_assert(parse_both(&ar, "123456", 3));
  /* where cJSON releases differ, the arena gives no answer (the callers parse
   * with cJSON then): a byte-order mark, a number of 63 characters or more */
  static const char bom[] = "\xEF\xBB\xBF[1]";
  cr_assert_null(crawl__jarena_parse(&ar, bom, sizeof bom - 1));
  char num[80];
  memset(num, '6', 70);
  num[70] = 0;
  cr_assert_null(crawl__jarena_parse(&ar, num, 70));
  cr_assert(parse_both(&ar, num, 62), "62 digits are read as cJSON reads them");
  crawl__jarena_release(&ar);
}

/* crawler_graphql.c -- the write guard's GraphQL reader (crawler/run/graphql.c):
 * queries (keyword and { } shorthand) are reads, a mutation or a subscription
 * anywhere is a write and named, strings, block strings, comments and
 * fragments are skipped, and whatever it cannot parse is not a read;
 * request bodies: application/graphql, JSON, batches, persisted queries. */
#include <criterion/criterion.h>
#include <string.h>

#include "crawl.h"
#include "graphql.h"

static crawl_gql_kind scan(const char *doc, char *name, size_t n) { return crawl__gql_scan(doc, strlen(doc), name, n); }

Test(graphql, queries_are_reads) {
  static const char *const reads[] = {
    "{ items { id name } }",
    "query { items { id } }",
    "query Feed($first: Int = 10, $f: Filter = {a: [1, 2], b: \"}\"}) @live { feed(first: $first) { id } }",
    "# a comment { mutation\nquery Q { a(s: \"mutation { x }\") }",
    "query Q { a(doc: \"\"\"\n mutation M { x } \\\"\"\" still \"\"\") }",
    "fragment F on Item { id name } query Q { items { ...F ... on Item { id } } }",
    "\xEF\xBB\xBF query A { a } , query B { b }",
  };
  for (size_t i = 0; i < sizeof reads / sizeof *reads; i++)
    cr_expect_eq(scan(reads[i], NULL, 0), CRAWL_GQL_READ, "%s", reads[i]);
  char name[64];
  cr_expect_eq(scan("query Feed { a }", name, sizeof name), CRAWL_GQL_READ);
  cr_expect_str_eq(name, "query Feed");
}

Test(graphql, a_mutation_or_subscription_anywhere_is_a_write) {
  char name[64];
  cr_expect_eq(scan("mutation AddItem($n: String) { addItem(name: $n) { id } }", name, sizeof name), CRAWL_GQL_WRITE);
  cr_expect_str_eq(name, "mutation AddItem");
  cr_expect_eq(scan("query A { a } mutation Sync { sync }", name, sizeof name), CRAWL_GQL_WRITE);
  cr_expect_str_eq(name, "mutation Sync");
  cr_expect_eq(scan("subscription { ticks }", name, sizeof name), CRAWL_GQL_WRITE);
  cr_expect_str_eq(name, "subscription");
  cr_expect_eq(scan("fragment F on T { a } mutation M @x(y: 1) { m { ...F } }", NULL, 0), CRAWL_GQL_WRITE);
}

Test(graphql, what_it_cannot_parse_is_not_a_read) {
  static const char *const bad[] = {
    "", "   # only a comment", "fragment F on T { a }", "shoes", "query Q { a ", "query Q { a ) }",
    "query Q { a(s: \"unterminated) }", "query Q { a(s: \"\"\" never closed ) }", "type Query { a: Int }",
    "schema { query: Q }", "query Q", "mutation", "{ a } extra", "query Q { a } }", "query Q { a(s: \"a\nb\") }",
    "query Q { a(x: 1 ^ 2) }", "fragment on on T { a }", "query Q { a(x: ..) }",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    cr_expect_eq(scan(bad[i], NULL, 0), CRAWL_GQL_BAD, "%s", bad[i]);
  char deep[2000] = "query Q ";
  for (int i = 0; i < 300; i++) strcat(deep, "{a");
  cr_expect_eq(scan(deep, NULL, 0), CRAWL_GQL_BAD, "nesting beyond the cap");
  cr_expect_eq(crawl__gql_scan("{ a }\0 mutation M { m }", 23, NULL, 0), CRAWL_GQL_BAD, "a NUL byte");
}

static crawl_gql_verdict req(const char *ct, const char *body, const char *const *allowed, char *what, size_t n) {
  return crawl__gql_request(ct, body, strlen(body), allowed, what, n);
}

Test(graphql, request_bodies) {
  char w[256];
  cr_expect_eq(req("application/json", "{\"query\":\"{ items { id } }\"}", NULL, w, sizeof w), CRAWL_GQL_QUERY);
  cr_expect_eq(req("application/json", "{\"query\":\"mutation Sync { sync }\",\"operationName\":\"Sync\"}", NULL, w,
                   sizeof w), CRAWL_GQL_MUTATION);
  cr_expect(strstr(w, "mutation Sync"), "%s", w);
  cr_expect_eq(req("application/graphql; charset=utf-8", "query Q { a }", NULL, w, sizeof w), CRAWL_GQL_QUERY);
  cr_expect_eq(req("application/graphql", "mutation { a }", NULL, w, sizeof w), CRAWL_GQL_MUTATION);
  cr_expect_eq(req(NULL, "[{\"query\":\"{ a }\"},{\"query\":\"query B { b }\"}]", NULL, w, sizeof w), CRAWL_GQL_QUERY);
  cr_expect_eq(req(NULL, "[{\"query\":\"{ a }\"},{\"query\":\"mutation M { b }\"}]", NULL, w, sizeof w),
               CRAWL_GQL_MUTATION);
  cr_expect_eq(req(NULL, "[{\"query\":\"{ a }\"},{\"name\":\"x\"}]", NULL, w, sizeof w), CRAWL_GQL_UNKNOWN);
  cr_expect_eq(req(NULL, "{\"query\":\"shoes\"}", NULL, w, sizeof w), CRAWL_GQL_UNKNOWN);
  /* no GraphQL at all */
  cr_expect_eq(req("application/json", "{\"name\":\"x\"}", NULL, w, sizeof w), CRAWL_GQL_NONE);
  cr_expect_eq(req("application/json", "{\"id\":3}", NULL, w, sizeof w), CRAWL_GQL_NONE);
  cr_expect_eq(req("application/json", "{\"query\":{\"match\":1}}", NULL, w, sizeof w), CRAWL_GQL_NONE);
  cr_expect_eq(req("text/plain", "mutation { a }", NULL, w, sizeof w), CRAWL_GQL_NONE);
  cr_expect_eq(req(NULL, "[]", NULL, w, sizeof w), CRAWL_GQL_NONE);
}

Test(graphql, persisted_queries_pass_only_by_name) {
  static const char apq[] =
    "{\"operationName\":\"SavedFeed\",\"variables\":{},"
    "\"extensions\":{\"persistedQuery\":{\"version\":1,\"sha256Hash\":\"abc\"}}}";
  static const char *const allowed[] = {"SavedFeed", NULL}, *const other[] = {"Other", NULL};
  char w[256];
  cr_expect_eq(req("application/json", apq, NULL, w, sizeof w), CRAWL_GQL_UNKNOWN);
  cr_expect(strstr(w, "SavedFeed"), "%s", w);
  cr_expect_eq(req("application/json", apq, other, w, sizeof w), CRAWL_GQL_UNKNOWN);
  cr_expect_eq(req("application/json", apq, allowed, w, sizeof w), CRAWL_GQL_NAMED);
  cr_expect_eq(req(NULL, "{\"documentId\":\"d1\",\"operationName\":\"SavedFeed\"}", allowed, w, sizeof w),
               CRAWL_GQL_NAMED);
  cr_expect_eq(req(NULL, "{\"id\":\"d1\",\"variables\":{}}", allowed, w, sizeof w), CRAWL_GQL_UNKNOWN);
  /* a document is read, whatever its name: an allowed name does not make a mutation a read */
  cr_expect_eq(req(NULL, "{\"query\":\"mutation SavedFeed { x }\",\"operationName\":\"SavedFeed\"}", allowed, w,
                   sizeof w), CRAWL_GQL_MUTATION);
}

/* --allow-read entries and the plan's environment.metadata.allowRead (crawler/run/plan.c). */
Test(graphql, allow_read_entries) {
  static const char *const good[] = {"POST /api/search", "PUT /x", "graphql:SavedItems", "graphql:_a1", NULL};
  static const char *const bad[] = {"/api/search", "post /x", "POST api", "POST  /x", "POST /a b", "graphql:",
                                    "graphql:1a", "graphql:a-b", "PO /x", NULL};
  for (int i = 0; good[i]; i++) cr_expect(crawl_read_entry_ok(good[i]), "%s", good[i]);
  for (int i = 0; bad[i]; i++) cr_expect(!crawl_read_entry_ok(bad[i]), "%s", bad[i]);
  cJSON *plan = cJSON_Parse("{\"environment\":{\"metadata\":{\"allowRead\":[\"POST /s\",\"graphql:Q\"]}}}");
  const char *out[4] = {"--allow-read given"};
  int n = 1;
  cr_expect_eq(crawl_plan_allow_read(plan, out, &n, 3, NULL), CRAWL_OK);
  cr_expect_eq(n, 3);
  cr_expect_str_eq(out[2], "graphql:Q");
  n = 2;
  crawl_plan_error e;
  cr_expect_eq(crawl_plan_allow_read(plan, out, &n, 3, &e), CRAWL_ARG, "past the limit");
  cr_expect(strstr(e.msg, "/environment/metadata/allowRead"), "%s", e.msg);
  cJSON_Delete(plan);
  plan = cJSON_Parse("{\"environment\":{\"metadata\":{\"allowRead\":\"POST /s\"}}}");
  n = 0;
  cr_expect_eq(crawl_plan_allow_read(plan, out, &n, 3, &e), CRAWL_ARG, "not an array");
  cJSON_Delete(plan);
}

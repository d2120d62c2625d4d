/* fuzz_graphql.c -- libFuzzer target for the write guard's GraphQL reader
 * (crawler/run/graphql.h): every request body it reads comes from a page.
 * The input is a GraphQL document's bytes. Besides "no crash, no leak, no
 * undefined behaviour" it checks what the header promises:
 *   - the verdict is the same with and without a name buffer, and the name
 *     says the deciding operation's type (query for a read, mutation or
 *     subscription for a write);
 *   - a read followed on a new line by a mutation is a write (a mutation
 *     is never hidden by what comes before it), and nothing followed by
 *     a stray token is a read (fails closed);
 *   - as a request body (application/graphql, and as JSON {"query": doc})
 *     the verdict is the document's.
 * Seeds: corpus/graphql/. */
#include "graphql.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x) do { if (!(x)) abort(); } while (0)

static crawl_gql_verdict expected(crawl_gql_kind k) {
  return k == CRAWL_GQL_READ ? CRAWL_GQL_QUERY : k == CRAWL_GQL_WRITE ? CRAWL_GQL_MUTATION : CRAWL_GQL_UNKNOWN;
}

static void check_appended(const char *doc, size_t size, crawl_gql_kind k, const char *tail, crawl_gql_kind want) {
  size_t tl = strlen(tail);
  char *d = malloc(size + tl);
  CHECK(d);
  memcpy(d, doc, size);
  memcpy(d + size, tail, tl);
  if (k == CRAWL_GQL_READ) CHECK(crawl__gql_scan(d, size + tl, NULL, 0) == want);
  free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *doc = (const char *)data;
  char name[160];
  crawl_gql_kind k = crawl__gql_scan(doc, size, name, sizeof name);
  CHECK(k == crawl__gql_scan(doc, size, NULL, 0));
  CHECK(strlen(name) < sizeof name);
  if (k == CRAWL_GQL_READ) CHECK(!strncmp(name, "query", 5));
  if (k == CRAWL_GQL_WRITE) CHECK(!strncmp(name, "mutation", 8) || !strncmp(name, "subscription", 12));
  if (k == CRAWL_GQL_BAD) CHECK(!name[0]);
  check_appended(doc, size, k, "\nmutation Fz { m }", CRAWL_GQL_WRITE);
  check_appended(doc, size, k, "\n}", CRAWL_GQL_BAD);
  char what[256];
  CHECK(crawl__gql_request("application/graphql", doc, size, NULL, what, sizeof what) == expected(k));
  if (!memchr(doc, 0, size)) {
    char *s = malloc(size + 1);
    CHECK(s);
    memcpy(s, doc, size);
    s[size] = 0;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "query", s);
    char *body = cJSON_PrintUnformatted(o);
    if (body) CHECK(crawl__gql_request("application/json", body, strlen(body), NULL, what, sizeof what) == expected(k));
    cJSON_free(body);
    cJSON_Delete(o);
    free(s);
  }
  crawl__gql_request(NULL, doc, size, NULL, what, sizeof what); /* as JSON: no crash */
  return 0;
}

/* graphql.h -- what a GraphQL request asks for (graphql.c): the write
 * guard's way to tell a query (a read) from a mutation or a subscription
 * in a request body the page sends. Internal to crawler/run/. */
#ifndef UIAP_GRAPHQL_H
#define UIAP_GRAPHQL_H

#include <stddef.h>

/* One GraphQL document's operations, as far as the guard needs them. */
typedef enum crawl_gql_kind {
  CRAWL_GQL_BAD = 0,   /* not an executable document the scanner can read: not a read */
  CRAWL_GQL_READ,      /* one or more operations, every one a query ({...} shorthand too) */
  CRAWL_GQL_WRITE,     /* a mutation or a subscription somewhere in it */
} crawl_gql_kind;

/* Scans the document text[0..len) (untrusted, need not be terminated):
 * strings, block strings ("""..."""), comments and commas are skipped,
 * fragment definitions may stand beside the operations, anything else
 * (type system definitions, unbalanced brackets, nesting deeper than 256,
 * stray tokens, no operation at all) is CRAWL_GQL_BAD. When name is not
 * NULL it receives (at most n-1 bytes) the operation that decided: the
 * first mutation or subscription's type and name ("mutation AddItem",
 * "subscription" when anonymous), else the first query's ("query Feed"). */
crawl_gql_kind crawl__gql_scan(const char *text, size_t len, char *name, size_t n);

/* What a request body is, for the write guard. */
typedef enum crawl_gql_verdict {
  CRAWL_GQL_NONE = 0,  /* no GraphQL request (not JSON with query, id,
                          documentId or extensions.persistedQuery, nor
                          application/graphql) */
  CRAWL_GQL_QUERY,     /* every operation a query: a read */
  CRAWL_GQL_NAMED,     /* persisted operations whose operationName the
                          caller allows (allowed_ops): a read by the user's word */
  CRAWL_GQL_MUTATION,  /* a mutation or subscription: a write */
  CRAWL_GQL_UNKNOWN,   /* GraphQL the guard cannot read (a persisted query
                          not allowed, a document it cannot parse): not a read */
} crawl_gql_verdict;

/* The body body[0..len) of a request with Content-Type content_type (may
 * be NULL): an application/graphql document, or JSON with a document in
 * "query", a persisted query (no "query"; an extensions.persistedQuery
 * hash, an "id" or a "documentId"), or a batched array of such objects
 * (every element must be a read for the batch to be one). allowed_ops
 * (NULL-terminated, may be NULL): operation names whose persisted queries
 * are reads. what (n bytes, may be NULL) says what was found: "a GraphQL
 * mutation AddItem", "a GraphQL query Feed", "a persisted GraphQL query
 * Saved (its document is not sent)". Reads nothing but its arguments. */
crawl_gql_verdict crawl__gql_request(const char *content_type, const char *body, size_t len,
                                     const char *const *allowed_ops, char *what, size_t n);

#endif

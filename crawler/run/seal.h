/* seal.h -- the seal a probe runs under (docs/safety.md "Sealed probes"):
 * the page's sends refused (page_seal.c), its client storage snapshotted,
 * compared (seal_diff.c) and put back. Internal to crawler/run/. */
#ifndef UIAP_SEAL_H
#define UIAP_SEAL_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "crawl.h"

/* ---- the storage diff (seal_diff.c): pure, no browser ---------------------------- */
/* A snapshot is JSON (page_seal.c makes it): {"localStorage": {key: value},
 * "sessionStorage": {...}, "cookies": {"name; domain; path": value},
 * "indexedDB": {"db/store": {"records": {keyJSON: valueJSON or null}}},
 * "cacheStorage": {cache: [url, ...]}}. Values are compared, never kept
 * in a change. */
typedef enum {
  CRAWL_SEAL_ADDED,   /* a key that was not there */
  CRAWL_SEAL_CHANGED, /* a value that changed and lost nothing */
  CRAWL_SEAL_REMOVED, /* a key, record, cookie or cache entry gone */
  CRAWL_SEAL_SHRUNK,  /* a stored JSON list or object that lost entries */
} crawl_seal_kind;

typedef struct crawl_seal_change {
  const char *channel; /* "localStorage", "sessionStorage", "cookie", "IndexedDB", "Cache Storage"; static */
  char *key;           /* the key (an IndexedDB record: "db/store key"), never a value */
  crawl_seal_kind kind;
} crawl_seal_change;

#define CRAWL_SEAL_KEPT 64 /* changes listed; the rest only counted */
typedef struct crawl_seal_diff {
  crawl_seal_change v[CRAWL_SEAL_KEPT]; /* the destructive ones first, in the order found */
  size_t n;
  long counts[4];                        /* every change by kind, listed or not */
} crawl_seal_diff;

/* before -> after into *out (zeroed first; crawl__seal_diff_release frees
 * the keys). A channel missing from a snapshot counts as empty. */
void crawl__seal_diff(const cJSON *before, const cJSON *after, crawl_seal_diff *out);
void crawl__seal_diff_release(crawl_seal_diff *d);
/* Removed or shrunk: stored data lost. */
long crawl__seal_lost(const crawl_seal_diff *d);
const char *crawl__seal_kind_name(crawl_seal_kind k); /* "added", "changed", "removed", "shrunk" */
/* 1 when JSON text `after` lost top-level entries of JSON list or object
 * `before` (an element of the list, a member of the object): a stored list
 * that lost an item. 0 when before is no list or object, or nothing was lost. */
int crawl__seal_lost_entries(const char *before, const char *after);

/* ---- the page's seal (page_seal.c) ---------------------------------------------- */
/* Seal (on) or unseal the page: WebSocket and RTCDataChannel sends,
 * WebTransport, messages to service and shared workers and BroadcastChannel
 * fail in the page's documents and in every document that starts while
 * sealed (js/page_seal.js); each refusal is counted (crawl__page_seal_refused).
 * The network guard (page_guard.c) is on anyway. */
crawl_code crawl__page_seal(crawl_page *p, int on);
int crawl__page_sealed(const crawl_page *p);
/* Sends refused while sealed, and the last ("WebSocket ws://h/path"). */
int crawl__page_seal_refused(const crawl_page *p, const char **last);
/* From the page's binding: "CHANNEL what". */
void crawl__page_seal_report(crawl_page *p, const char *payload);

/* The client storage of the page's origin and its cookies, as a snapshot
 * (above) with the cookies' full records for the restore ("cookieRecords");
 * *out owned by the caller. Values stay in memory: never logged or written.
 * CRAWL_ARG with why when the page's storage cannot be read whole (too large,
 * unreadable). */
crawl_code crawl__page_storage_snapshot(crawl_page *p, cJSON **out, char *why, size_t whylen);
/* Put snap back: what was added is removed, what changed or went is set
 * again (an IndexedDB value that JSON cannot carry, a Cache Storage entry
 * and anything of another origin than the page's now cannot be: *lost says
 * which, caller frees, NULL when everything was). */
crawl_code crawl__page_storage_restore(crawl_page *p, const cJSON *snap, char **lost);

#endif

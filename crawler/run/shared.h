/* shared.h -- a run's frontier shared on Redis by several worker processes
 * (docs/scale.md): which states exist (by fingerprint), which wait to be
 * expanded, who holds which one (a lease with an expiry, taken back when it
 * runs out: a worker that died gives its work back), and which actions of a
 * state are done. Nothing here talks to a browser or writes a file; the
 * explorer (explore.c) mirrors what it needs into its own table. Internal to
 * crawler/run/.
 *
 * Keys, all under "uiap:<runId>:" in the URL's database:
 *   seen    hash    fingerprint -> stateId
 *   states  hash    stateId -> the state's journal record (JSON)
 *   queue   list    stateIds waiting to be expanded (oldest first)
 *   leases  zset    stateId -> lease expiry (Redis server time, ms)
 *   owner   hash    stateId -> the worker holding its lease
 *   done    set     stateIds expanded
 *   acts:ID set     keys of state ID's actions already done
 *   fold    hash    fold key (content and route) -> stateId
 *   edges   list    transitions, for every worker's paths (JSON)
 *   transitions     the run's transition count
 * Values read back are untrusted (crawl__shared_key): states, seen, fold,
 * edges and acts carry a tag; ids in queue, leases, owner and done do not
 * (a forged one names no record with a good tag, and is finished unused).  * Every step that must not interleave with another worker's (lease, renew,
 * release, done, register) is one Lua script, so it runs atomically. */
#ifndef UIAP_SHARED_H
#define UIAP_SHARED_H

#include <stddef.h>

typedef struct crawl__shared crawl__shared;

/* Connect to url: redis://[[USER]:PASSWORD@]HOST[:PORT][/DB] (rediss:// for
 * TLS: the server's certificate checked against the CA file named by
 * UIAP_REDIS_CACERT, else the system's CAs, and the host) or
 * unix:///PATH[?db=N], for run run_id; leases last lease_ms (0: 30000). NULL with one line in
 * err (never the password) when the URL is malformed or Redis does not
 * answer within timeout_ms. */
crawl__shared *crawl__shared_open(const char *url, const char *run_id, int lease_ms, int timeout_ms, char *err,
                                  size_t errlen);
void crawl__shared_close(crawl__shared *sh);
/* The last error (one line), "" when none. */
const char *crawl__shared_error(const crawl__shared *sh);

/* The run's key (out of band: UIAP_FRONTIER_KEY, or the one crawl
 * --workers makes; never stored in Redis), CRAWL__FRONTIER_KEY_MIN to
 * CRAWL__FRONTIER_KEY_MAX bytes: every record written from now on carries
 * a tag (HMAC-SHA256 of its kind, where it lives and its bytes), and one
 * read back without a good tag is dropped (NULL, as if absent), counted
 * (crawl__shared_dropped) and named once in a warning line. Without a key
 * (a progress watch reads counts only) records are neither tagged nor
 * checked. 0, or -1 when key has the wrong length. */
#define CRAWL__FRONTIER_KEY_MIN 16
#define CRAWL__FRONTIER_KEY_MAX 256
int crawl__shared_key(crawl__shared *sh, const char *key);
/* Every string written from now on passes s (the run's secret list, not
 * owned; it outlives sh); the URL's password and the key join s. */
struct crawl__secrets;
void crawl__shared_use_secrets(crawl__shared *sh, struct crawl__secrets *s);
/* Records dropped for a bad tag so far. */
long crawl__shared_dropped(const crawl__shared *sh);

/* A stored value is "TAG VALUE": TAG is the hex HMAC-SHA256, under the
 * run's key (nkey bytes), of "KIND\nFIELD\nVALUE" (what the record is and
 * where it lives: a good record moved to another state id or kind fails
 * too). record_tag: the tag of v (vlen bytes) into out. record_check: the
 * offset of the value in s (len bytes) when its tag is good, else -1. */
#define CRAWL__TAG_HEX 64
void crawl__record_tag(const unsigned char *key, size_t nkey, const char *kind, const char *field, const char *v,
                       size_t vlen, char out[CRAWL__TAG_HEX + 1]);
long crawl__record_check(const unsigned char *key, size_t nkey, const char *kind, const char *field, const char *s,
                         size_t len);

/* The stateId known for fingerprint fp (caller frees), NULL when none (or
 * on an error: see crawl__shared_error). */
char *crawl__shared_known(crawl__shared *sh, const char *fp);
/* Register state id with fingerprint fp and its record (JSON text); queued
 * for expansion when expand, else held back (at the depth budget). 1
 * registered, 0 someone else registered fp first (*winner, caller frees,
 * gets its id), -1 error. */
int crawl__shared_register(crawl__shared *sh, const char *fp, const char *id, const char *record, int expand,
                           char **winner);
/* Fold keys: one state under several keys of its own (a hash-routed page
 * at "page.html" and at "page.html#/home" is one state). note: key names
 * id unless it names another already (1 noted, 0 taken, -1 error); find:
 * the state key names (caller frees), NULL when none or on error. */
int crawl__shared_fold_note(crawl__shared *sh, const char *key, const char *id);
char *crawl__shared_fold_find(crawl__shared *sh, const char *key);
/* This worker's name on the frontier (host:pid:random). */
const char *crawl__shared_owner(const crawl__shared *sh);
/* The run's transitions between two states, for every worker's paths: push
 * one record (JSON text), or read those from index `from` on (*recs, *n:
 * caller frees each and the array; in the order pushed; one whose tag is
 * bad is NULL in its place). 0, or -1 error. */
int crawl__shared_edge_push(crawl__shared *sh, const char *record);
int crawl__shared_edges(crawl__shared *sh, long from, char ***recs, size_t *n);
/* The record of state id (caller frees), NULL when unknown or on error. */
char *crawl__shared_record(crawl__shared *sh, const char *id);
/* States registered so far, -1 on error. */
long crawl__shared_count(crawl__shared *sh);
/* The run's transition count, after adding by (a worker reserves one
 * before an action and gives it back when the action recorded none: the
 * run's maxTransitions). -1 on error. */
long crawl__shared_transitions_add(crawl__shared *sh, long by);

/* Lease the next state to expand, taking back expired leases first: the
 * first of prefer (nprefer ids, at most CRAWL__LEASE_PREFER_MAX, nearest to
 * the worker's page first) still queued, else the oldest queued.
 * CRAWL__LEASED (*id set, caller frees), CRAWL__WAIT (the queue is empty
 * but others hold leases: their states may add more), CRAWL__DRAINED
 * (nothing queued, nothing leased: the run is done), or -1 on error.
 * *reclaimed: how many expired leases were taken back. */
enum { CRAWL__DRAINED = 0, CRAWL__LEASED = 1, CRAWL__WAIT = 2 };
#define CRAWL__LEASE_PREFER_MAX 32
int crawl__shared_lease(crawl__shared *sh, const char *const *prefer, int nprefer, char **id, int *reclaimed);
/* Lease state id when it is still queued (a worker that just found it goes
 * on from there): 1 leased, 0 another worker holds it now, 2 nobody holds
 * it and it is not queued (finished, or held back at the depth budget),
 * -1 error. */
int crawl__shared_take(crawl__shared *sh, const char *id);
/* Extend the lease on id: 1 still ours, 0 lost (expired and taken by
 * another worker: stop working on it), -1 error. */
int crawl__shared_renew(crawl__shared *sh, const char *id);
/* id is expanded: the lease ends (1), 0 when it was no longer ours. */
int crawl__shared_finish(crawl__shared *sh, const char *id);
/* A state held back at registration is nearer than it was found: to the
 * front of the queue. 1 moved, 0 it was not held back (queued, leased or
 * done already), -1 error. */
int crawl__shared_unhold(crawl__shared *sh, const char *id);
/* Give the lease on id back unfinished (to the front of the queue). */
int crawl__shared_release(crawl__shared *sh, const char *id);

/* Action key of state id: mark done (1 newly, 0 already), or the keys
 * already done (*keys, *n; caller frees each and the array). -1 error. */
int crawl__shared_act_done(crawl__shared *sh, const char *id, const char *key);
int crawl__shared_acts(crawl__shared *sh, const char *id, char ***keys, size_t *n);

/* Split url into its parts (exposed for the unit tests). 0, or -1 with why. */
typedef struct crawl__redis_url {
  char host[256];
  int port;                   /* 0 for a unix socket */
  char path[512];             /* unix socket path, "" for TCP */
  char user[128];             /* an ACL user (AUTH user password), "" none */
  char password[256];         /* percent-decoded; a secret of the run */
  int db;
  int tls;                    /* rediss:// */
} crawl__redis_url;
int crawl__redis_url_parse(const char *url, crawl__redis_url *u, const char **why);

/* rediss:// (shared_tls.c): a TLS connection to host:port whose server
 * certificate is checked against cafile (NULL: the system's CAs) and host
 * (a DNS name or an IP address), within timeout_ms; the returned socket
 * speaks plain RESP for hiredis (redisConnectFd, which owns it) while a
 * thread carries the bytes over TLS. -1 with one line in err. Close *t
 * after hiredis let go of the socket. */
typedef struct crawl__tls_pipe crawl__tls_pipe;
int crawl__tls_pipe_open(const char *host, int port, const char *cafile, int timeout_ms, crawl__tls_pipe **t,
                         char *err, size_t errlen);
void crawl__tls_pipe_close(crawl__tls_pipe *t);

#endif

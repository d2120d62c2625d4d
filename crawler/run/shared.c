/* shared.c -- the frontier shared on Redis (see shared.h). One connection
 * per worker, commands with a timeout, one reconnect on a dropped socket;
 * the steps that must be atomic are Lua scripts run with EVAL. What is read
 * back is untrusted: every record carries a tag (HMAC-SHA256 under the
 * run's key, which never goes to Redis), and one without a good tag is
 * dropped; every string written passes the run's secret list first. */
#include "shared.h"
#include "crawl.h"
#include "crawl_secrets.h"
#include "crawl_strmap.h"
#include "crawl_util.h"

#include <hiredis/hiredis.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

enum { K_SEEN, K_STATES, K_QUEUE, K_LEASES, K_OWNER, K_DONE, K_DEEP, K_FOLD, K_EDGES, K_TRANS, K_N };
static const char *const key_names[K_N] = {"seen", "states", "queue", "leases", "owner", "done", "deep", "fold",
                                           "edges", "transitions"};

struct crawl__shared {
  redisContext *c;
  crawl__tls_pipe *tls;       /* rediss://: what carries c's bytes */
  crawl__redis_url u;
  struct timeval tv;
  char key[K_N][200];         /* uiap:{runId}:NAME (one hash slot on a cluster) */
  char prefix[160];
  char owner[160];            /* this worker: host:pid:random */
  char lease_ms[16];
  char err[256];
  unsigned char mac[CRAWL__FRONTIER_KEY_MAX]; /* the run's key ("" : none, records are not tagged) */
  size_t nmac;
  const crawl__secrets *secrets; /* what every string written passes (NULL: none) */
  long dropped;                  /* records read back without a good tag */
  crawl__strmap warned;          /* "kind|field" of the records a warning named */
};

/* The server's clock in ms, so leases mean the same on every machine. */
#define NOW_MS "local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) "

/* KEYS queue leases owner; ARGV owner leaseMs [preferred ids, nearest first]:
 * the first preferred id still queued, else the oldest */
static const char lease_lua[] = NOW_MS
  "local exp = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now) "
  "for i = #exp, 1, -1 do redis.call('ZREM', KEYS[2], exp[i]) redis.call('HDEL', KEYS[3], exp[i]) "
  "redis.call('LPUSH', KEYS[1], exp[i]) end "
  "local id = nil "
  "for i = 3, #ARGV do if redis.call('LREM', KEYS[1], 1, ARGV[i]) > 0 then id = ARGV[i] break end end "
  "if not id then id = redis.call('LPOP', KEYS[1]) end "
  "if id then redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), id) redis.call('HSET', KEYS[3], id, ARGV[1]) "
  "return {1, id, #exp} end "
  "if redis.call('ZCARD', KEYS[2]) == 0 then return {0, '', #exp} end "
  "return {2, '', #exp}";
/* KEYS queue leases owner; ARGV owner leaseMs id */
static const char take_lua[] =
  "if redis.call('LREM', KEYS[1], 1, ARGV[3]) == 0 then "
  "if redis.call('HEXISTS', KEYS[3], ARGV[3]) == 1 then return 0 end return 2 end " NOW_MS
  "redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[3]) redis.call('HSET', KEYS[3], ARGV[3], ARGV[1]) "
  "return 1";
/* KEYS leases owner; ARGV owner leaseMs id */
static const char renew_lua[] =
  "if redis.call('HGET', KEYS[2], ARGV[3]) ~= ARGV[1] then return 0 end " NOW_MS
  "redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3]) return 1";
/* KEYS leases owner done; ARGV owner id */
static const char finish_lua[] =
  "if redis.call('HGET', KEYS[2], ARGV[2]) ~= ARGV[1] then return 0 end "
  "redis.call('ZREM', KEYS[1], ARGV[2]) redis.call('HDEL', KEYS[2], ARGV[2]) redis.call('SADD', KEYS[3], ARGV[2]) "
  "return 1";
/* KEYS leases owner queue; ARGV owner id */
static const char release_lua[] =
  "if redis.call('HGET', KEYS[2], ARGV[2]) ~= ARGV[1] then return 0 end "
  "redis.call('ZREM', KEYS[1], ARGV[2]) redis.call('HDEL', KEYS[2], ARGV[2]) redis.call('LPUSH', KEYS[3], ARGV[2]) "
  "return 1";
/* KEYS seen states queue deep; ARGV fp id record expand seen-value */
static const char register_lua[] =
  "local known = redis.call('HGET', KEYS[1], ARGV[1]) "
  "if known then return {0, known} end "
  "redis.call('HSET', KEYS[1], ARGV[1], ARGV[5]) redis.call('HSET', KEYS[2], ARGV[2], ARGV[3]) "
  "if ARGV[4] == '1' then redis.call('RPUSH', KEYS[3], ARGV[2]) else redis.call('SADD', KEYS[4], ARGV[2]) end "
  "return {1, ARGV[2]}";
/* KEYS deep queue; ARGV id */
static const char unhold_lua[] =
  "if redis.call('SREM', KEYS[1], ARGV[1]) == 0 then return 0 end "
  "redis.call('LPUSH', KEYS[2], ARGV[1]) return 1";

/* ---- the URL ----------------------------------------------------------------- */
static int parse_db(const char *s, int *db) {
  char *end;
  long v = strtol(s, &end, 10);
  if (end == s || *end || v < 0 || v > 1000000) return -1;
  *db = (int)v;
  return 0;
}

static int parse_unix(const char *p, crawl__redis_url *u, const char **why) {
  const char *q = strchr(p, '?');
  size_t n = q ? (size_t)(q - p) : strlen(p);
  if (!n || *p != '/' || n >= sizeof u->path) { *why = "unix:// needs an absolute socket path"; return -1; }
  memcpy(u->path, p, n);
  if (q && (strncmp(q, "?db=", 4) || parse_db(q + 4, &u->db))) { *why = "expected ?db=N after the socket path"; return -1; }
  return 0;
}

/* s[0..n) percent-decoded into out (cap bytes). 0, or -1 when too long. */
static int pct_decode(const char *s, size_t n, char *out, size_t cap) {
  size_t o = 0;
  for (size_t i = 0; i < n; i++, o++) {
    if (o + 1 >= cap) return -1;
    char hex[3] = {0};
    if (s[i] == '%' && i + 2 < n && isxdigit((unsigned char)s[i + 1]) && isxdigit((unsigned char)s[i + 2])) {
      memcpy(hex, s + i + 1, 2);
      out[o] = (char)strtol(hex, NULL, 16);
      i += 2;
    } else {
      out[o] = s[i];
    }
  }
  out[o] = 0;
  return 0;
}

/* HOST[:PORT][/DB] after an optional "[USER]:PASSWORD@" (or "PASSWORD@"). */
static int parse_tcp(const char *p, crawl__redis_url *u, const char **why) {
  const char *at = strrchr(p, '@');
  if (at) {
    const char *colon = memchr(p, ':', (size_t)(at - p)), *pw = colon ? colon + 1 : p;
    if (colon && pct_decode(p, (size_t)(colon - p), u->user, sizeof u->user)) { *why = "user name too long"; return -1; }
    if (pct_decode(pw, (size_t)(at - pw), u->password, sizeof u->password)) { *why = "password too long"; return -1; }
    p = at + 1;
  }
  size_t hn = strcspn(p, ":/");
  if (!hn || hn >= sizeof u->host) { *why = "missing host"; return -1; }
  memcpy(u->host, p, hn);
  p += hn;
  u->port = 6379;
  if (*p == ':') {
    char *end;
    long v = strtol(p + 1, &end, 10);
    if (end == p + 1 || v < 1 || v > 65535) { *why = "invalid port"; return -1; }
    u->port = (int)v;
    p = end;
  }
  if (*p == '/' && p[1] && parse_db(p + 1, &u->db)) { *why = "the database must be a number"; return -1; }
  if (*p && *p != '/') { *why = "unexpected text after the port"; return -1; }
  return 0;
}

int crawl__redis_url_parse(const char *url, crawl__redis_url *u, const char **why) {
  memset(u, 0, sizeof *u);
  if (!url) { *why = "no URL"; return -1; }
  if (!strncmp(url, "unix://", 7)) return parse_unix(url + 7, u, why);
  if (!strncmp(url, "redis://", 8)) return parse_tcp(url + 8, u, why);
  if (!strncmp(url, "rediss://", 9)) {
    u->tls = 1;
    return parse_tcp(url + 9, u, why);
  }
  *why = "expected redis://HOST:PORT/DB, rediss://HOST:PORT/DB or unix:///PATH";
  return -1;
}

/* ---- commands ------------------------------------------------------------------ */
static void set_err(crawl__shared *sh, const char *what, const char *detail) {
  snprintf(sh->err, sizeof sh->err, "redis %s: %s", what, detail ? detail : "no reply");
}

/* A new connection to the URL's server: sh->c, and sh->tls for rediss://.
 * 0, or -1 with sh->err. */
static int dial(crawl__shared *sh) {
  const crawl__redis_url *u = &sh->u;
  if (u->tls) {
    char err[240];
    int ms = (int)(sh->tv.tv_sec * 1000 + sh->tv.tv_usec / 1000);
    int fd = crawl__tls_pipe_open(u->host, u->port, getenv("UIAP_REDIS_CACERT"), ms, &sh->tls, err, sizeof err);
    if (fd < 0) {
      set_err(sh, "connect", err);
      return -1;
    }
    sh->c = redisConnectFd(fd);
  } else {
    sh->c = u->path[0] ? redisConnectUnixWithTimeout(u->path, sh->tv) : redisConnectWithTimeout(u->host, u->port, sh->tv);
  }
  if (!sh->c || sh->c->err) {
    set_err(sh, "connect", sh->c ? sh->c->errstr : "out of memory");
    return -1;
  }
  return 0;
}

/* The connection and what carries it, gone. */
static void hang_up(crawl__shared *sh) {
  if (sh->c) redisFree(sh->c);
  sh->c = NULL;
  crawl__tls_pipe_close(sh->tls);
  sh->tls = NULL;
}

/* One reply of the handshake: 0 when it is no error. */
static int hello_reply(crawl__shared *sh, const char *what, redisReply *rp) {
  int bad = !rp || rp->type == REDIS_REPLY_ERROR;
  if (bad) set_err(sh, what, !rp ? sh->c->errstr : !strcmp(what, "AUTH") ? "refused" : rp->str);
  if (rp) freeReplyObject(rp);
  return bad ? -1 : 0;
}

/* AUTH and SELECT on a new connection; 0 ok. */
static int hello(crawl__shared *sh) {
  redisSetTimeout(sh->c, sh->tv);
  if (sh->u.password[0] && hello_reply(sh, "AUTH", sh->u.user[0] ? redisCommand(sh->c, "AUTH %s %s", sh->u.user, sh->u.password)
                                                                 : redisCommand(sh->c, "AUTH %s", sh->u.password)))
    return -1;
  if (hello_reply(sh, "SELECT", redisCommand(sh->c, "SELECT %d", sh->u.db))) return -1;
  sh->err[0] = 0;
  return 0;
}

static int connect_to(crawl__shared *sh) {
  hang_up(sh);
  return dial(sh) ? -1 : hello(sh);
}

/* One command (argv); on a dropped connection one reconnect and one more
 * try. NULL (error in sh->err) or a reply that is not an error. */
static redisReply *cmd(crawl__shared *sh, int argc, const char **argv) {
  for (int attempt = 0; attempt < 2; attempt++) {
    if (!sh->c || sh->c->err) {
      if (connect_to(sh) != 0) continue;
    }
    redisReply *rp = redisCommandArgv(sh->c, argc, argv, NULL);
    if (!rp) {
      set_err(sh, argv[0], sh->c->errstr);
      continue;
    }
    if (rp->type == REDIS_REPLY_ERROR) {
      set_err(sh, argv[0], rp->str);
      freeReplyObject(rp);
      return NULL;
    }
    return rp;
  }
  return NULL;
}

/* EVAL script over the keys named by ks (nk of them) with args. */
static redisReply *eval(crawl__shared *sh, const char *script, const int *ks, int nk, const char *const *args,
                        int na) {
  const char *argv[8 + 2 + CRAWL__LEASE_PREFER_MAX];
  char nkeys[8];
  snprintf(nkeys, sizeof nkeys, "%d", nk);
  int n = 0;
  argv[n++] = "EVAL";
  argv[n++] = script;
  argv[n++] = nkeys;
  for (int k = 0; k < nk; k++) argv[n++] = sh->key[ks[k]];
  for (int k = 0; k < na; k++) argv[n++] = args[k];
  return cmd(sh, n, argv);
}

static long int_reply(redisReply *rp) {
  long v = rp && rp->type == REDIS_REPLY_INTEGER ? (long)rp->integer : -1;
  if (rp) freeReplyObject(rp);
  return v;
}

/* An array reply as strings (*v, *n: caller frees each and the array; an
 * element that is no string is ""), reply freed. 0, or -1 when rp is no
 * array. */
static int strv_reply(redisReply *rp, char ***v, size_t *n) {
  *v = NULL;
  *n = 0;
  if (!rp || rp->type != REDIS_REPLY_ARRAY) {
    if (rp) freeReplyObject(rp);
    return -1;
  }
  *v = crawl__xcalloc(rp->elements + 1, sizeof **v);
  for (size_t i = 0; i < rp->elements; i++)
    (*v)[(*n)++] = rp->element[i]->type == REDIS_REPLY_STRING ? crawl__xstrndup(rp->element[i]->str, rp->element[i]->len)
                                                              : crawl__xstrdup("");
  freeReplyObject(rp);
  return 0;
}

/* ---- record tags, secrets ------------------------------------------------------------ */
#define TAG_HEX CRAWL__TAG_HEX

void crawl__record_tag(const unsigned char *key, size_t nkey, const char *kind, const char *field, const char *v,
                       size_t vlen, char out[CRAWL__TAG_HEX + 1]) {
  size_t nk = strlen(kind), nf = strlen(field), n = nk + nf + vlen + 2;
  unsigned char *buf = crawl__xmalloc(n), md[EVP_MAX_MD_SIZE];
  memcpy(buf, kind, nk);
  buf[nk] = '\n';
  memcpy(buf + nk + 1, field, nf);
  buf[nk + 1 + nf] = '\n';
  memcpy(buf + nk + nf + 2, v, vlen);
  unsigned int mdlen = 0;
  HMAC(EVP_sha256(), key, (int)nkey, buf, n, md, &mdlen);
  free(buf);
  for (unsigned k = 0; k < 32; k++) snprintf(out + 2 * k, 3, "%02x", k < mdlen ? md[k] : 0);
}

long crawl__record_check(const unsigned char *key, size_t nkey, const char *kind, const char *field, const char *s,
                         size_t len) {
  char tag[TAG_HEX + 1];
  if (len <= TAG_HEX || s[TAG_HEX] != ' ' || memchr(s, 0, len)) return -1;
  crawl__record_tag(key, nkey, kind, field, s + TAG_HEX + 1, len - TAG_HEX - 1, tag);
  return CRYPTO_memcmp(tag, s, TAG_HEX) ? -1 : TAG_HEX + 1;
}

/* v (scrubbed) with its tag in front, to store (caller frees). No key: v. */
static char *seal(const crawl__shared *sh, const char *kind, const char *field, const char *v) {
  if (!sh->nmac) return crawl__xstrdup(v);
  char tag[TAG_HEX + 1];
  crawl__record_tag(sh->mac, sh->nmac, kind, field, v, strlen(v), tag);
  return crawl__xprintf("%s %s", tag, v);
}

/* One warning line per record a worker drops, however often it reads it. */
static void dropped(crawl__shared *sh, const char *kind, const char *field) {
  sh->dropped++;
  char *k = crawl__xprintf("%s|%.200s", kind, field);
  if (crawl__strmap_get(&sh->warned, k) < 0) {
    crawl__strmap_put(&sh->warned, k, 1);
    crawl_log(CRAWL_LOG_WARN, "frontier", "dropped a forged or damaged %s record of the shared frontier (%.80s): "
              "its tag does not match the run's key", kind, field);
  }
  free(k);
}

/* The value stored as s (len bytes) when its tag is good (caller frees);
 * NULL, counted and warned, when it is not. No key: s as it is. */
static char *unseal(crawl__shared *sh, const char *kind, const char *field, const char *s, size_t len) {
  if (!sh->nmac) return crawl__xstrndup(s, len);
  long at = crawl__record_check(sh->mac, sh->nmac, kind, field, s, len);
  if (at > 0) return crawl__xstrndup(s + at, len - (size_t)at);
  dropped(sh, kind, field);
  return NULL;
}

/* A bulk string reply unsealed (NULL for nil or a bad tag), reply freed. */
static char *sealed_reply(crawl__shared *sh, const char *kind, const char *field, redisReply *rp) {
  char *v = rp && rp->type == REDIS_REPLY_STRING ? unseal(sh, kind, field, rp->str, rp->len) : NULL;
  if (rp) freeReplyObject(rp);
  return v;
}

/* s through the run's secret list (a copy; caller frees). */
static char *clean(const crawl__shared *sh, const char *s) { return crawl__secrets_scrub(sh->secrets, s, NULL); }

int crawl__shared_key(crawl__shared *sh, const char *key) {
  size_t n = key ? strlen(key) : 0;
  if (n < CRAWL__FRONTIER_KEY_MIN || n > sizeof sh->mac) return -1;
  memcpy(sh->mac, key, n);
  sh->nmac = n;
  return 0;
}

void crawl__shared_use_secrets(crawl__shared *sh, crawl__secrets *s) {
  sh->secrets = s;
  if (sh->u.password[0]) crawl__secrets_add(s, sh->u.password);
  if (sh->nmac) {
    char *k = crawl__xstrndup((const char *)sh->mac, sh->nmac);
    crawl__secrets_add(s, k);
    free(k);
  }
}

long crawl__shared_dropped(const crawl__shared *sh) { return sh ? sh->dropped : 0; }

/* ---- open, close ----------------------------------------------------------------- */
crawl__shared *crawl__shared_open(const char *url, const char *run_id, int lease_ms, int timeout_ms, char *err,
                                  size_t errlen) {
  const char *why = NULL;
  crawl__shared *sh = crawl__xcalloc(1, sizeof *sh);
  if (crawl__redis_url_parse(url, &sh->u, &why) != 0) {
    snprintf(err, errlen, "--frontier: %s", why);
    free(sh);
    return NULL;
  }
  int ms = timeout_ms > 0 ? timeout_ms : 5000;
  sh->tv = (struct timeval){.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};
  snprintf(sh->prefix, sizeof sh->prefix, "uiap:{%.120s}:", run_id ? run_id : "run");
  for (int k = 0; k < K_N; k++) snprintf(sh->key[k], sizeof sh->key[k], "%s%s", sh->prefix, key_names[k]);
  char host[64] = "";
  gethostname(host, sizeof host - 1);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  snprintf(sh->owner, sizeof sh->owner, "%.63s:%d:%lx", host, (int)getpid(), (unsigned long)ts.tv_nsec);
  snprintf(sh->lease_ms, sizeof sh->lease_ms, "%d", lease_ms > 0 ? lease_ms : 30000);
  if (connect_to(sh) != 0) {
    snprintf(err, errlen, "--frontier %s%s: %s", sh->u.path[0] ? "unix://" : sh->u.tls ? "rediss://" : "redis://",
             sh->u.path[0] ? sh->u.path : sh->u.host, sh->err);
    crawl__shared_close(sh);
    return NULL;
  }
  return sh;
}

void crawl__shared_close(crawl__shared *sh) {
  if (!sh) return;
  hang_up(sh);
  OPENSSL_cleanse(sh->u.password, sizeof sh->u.password);
  OPENSSL_cleanse(sh->mac, sizeof sh->mac);
  crawl__strmap_release(&sh->warned);
  free(sh);
}

const char *crawl__shared_error(const crawl__shared *sh) { return sh ? sh->err : ""; }

/* ---- states ---------------------------------------------------------------------- */
char *crawl__shared_known(crawl__shared *sh, const char *fp) {
  const char *argv[] = {"HGET", sh->key[K_SEEN], fp};
  return sealed_reply(sh, "seen", fp, cmd(sh, 3, argv));
}

int crawl__shared_fold_note(crawl__shared *sh, const char *key, const char *id) {
  char *k = clean(sh, key), *v = seal(sh, "fold", k, id);
  const char *argv[] = {"HSETNX", sh->key[K_FOLD], k, v};
  int rc = (int)int_reply(cmd(sh, 4, argv));
  free(k);
  free(v);
  return rc;
}

char *crawl__shared_fold_find(crawl__shared *sh, const char *key) {
  char *k = clean(sh, key);
  const char *argv[] = {"HGET", sh->key[K_FOLD], k};
  char *v = sealed_reply(sh, "fold", k, cmd(sh, 3, argv));
  free(k);
  return v;
}

const char *crawl__shared_owner(const crawl__shared *sh) { return sh->owner; }

int crawl__shared_edge_push(crawl__shared *sh, const char *record) {
  char *c = clean(sh, record), *v = seal(sh, "edge", "", c);
  const char *argv[] = {"RPUSH", sh->key[K_EDGES], v};
  int rc = int_reply(cmd(sh, 3, argv)) < 0 ? -1 : 0;
  free(c);
  free(v);
  return rc;
}

int crawl__shared_edges(crawl__shared *sh, long from, char ***recs, size_t *n) {
  char start[32];
  snprintf(start, sizeof start, "%ld", from);
  const char *argv[] = {"LRANGE", sh->key[K_EDGES], start, "-1"};
  if (strv_reply(cmd(sh, 4, argv), recs, n) != 0) return -1;
  for (size_t k = 0; k < *n; k++) { /* a bad tag: NULL in its place (the count of read records stays) */
    char *v = unseal(sh, "edge", "", (*recs)[k], strlen((*recs)[k]));
    free((*recs)[k]);
    (*recs)[k] = v;
  }
  return 0;
}

char *crawl__shared_record(crawl__shared *sh, const char *id) {
  const char *argv[] = {"HGET", sh->key[K_STATES], id};
  return sealed_reply(sh, "state", id, cmd(sh, 3, argv));
}

long crawl__shared_transitions_add(crawl__shared *sh, long by) {
  char n[32];
  snprintf(n, sizeof n, "%ld", by);
  const char *argv[] = {"INCRBY", sh->key[K_TRANS], n};
  return int_reply(cmd(sh, 3, argv));
}

long crawl__shared_count(crawl__shared *sh) {
  const char *argv[] = {"HLEN", sh->key[K_SEEN]};
  return int_reply(cmd(sh, 2, argv));
}

int crawl__shared_register(crawl__shared *sh, const char *fp, const char *id, const char *record, int expand,
                           char **winner) {
  static const int ks[] = {K_SEEN, K_STATES, K_QUEUE, K_DEEP};
  char *c = clean(sh, record), *rec = seal(sh, "state", id, c), *seen = seal(sh, "seen", fp, id);
  const char *args[] = {fp, id, rec, expand ? "1" : "0", seen};
  *winner = NULL;
  redisReply *rp = eval(sh, register_lua, ks, 4, args, 5);
  free(c);
  free(rec);
  free(seen);
  if (!rp || rp->type != REDIS_REPLY_ARRAY || rp->elements != 2) {
    if (rp) set_err(sh, "register", "unexpected reply");
    if (rp) freeReplyObject(rp);
    return -1;
  }
  int fresh = rp->element[0]->integer == 1;
  if (!fresh && rp->element[1]->type == REDIS_REPLY_STRING)
    *winner = unseal(sh, "seen", fp, rp->element[1]->str, rp->element[1]->len);
  freeReplyObject(rp);
  return fresh;
}

/* ---- leases ------------------------------------------------------------------------ */
int crawl__shared_lease(crawl__shared *sh, const char *const *prefer, int nprefer, char **id, int *reclaimed) {
  static const int ks[] = {K_QUEUE, K_LEASES, K_OWNER};
  const char *args[2 + CRAWL__LEASE_PREFER_MAX] = {sh->owner, sh->lease_ms};
  int na = 2;
  for (int k = 0; k < nprefer && k < CRAWL__LEASE_PREFER_MAX; k++) args[na++] = prefer[k];
  *id = NULL;
  *reclaimed = 0;
  redisReply *rp = eval(sh, lease_lua, ks, 3, args, na);
  if (!rp || rp->type != REDIS_REPLY_ARRAY || rp->elements != 3) {
    if (rp) set_err(sh, "lease", "unexpected reply");
    if (rp) freeReplyObject(rp);
    return -1;
  }
  int what = (int)rp->element[0]->integer;
  *reclaimed = (int)rp->element[2]->integer;
  if (what == CRAWL__LEASED) *id = crawl__xstrndup(rp->element[1]->str, rp->element[1]->len);
  freeReplyObject(rp);
  return what;
}

int crawl__shared_take(crawl__shared *sh, const char *id) {
  static const int ks[] = {K_QUEUE, K_LEASES, K_OWNER};
  const char *args[] = {sh->owner, sh->lease_ms, id};
  return (int)int_reply(eval(sh, take_lua, ks, 3, args, 3));
}

int crawl__shared_renew(crawl__shared *sh, const char *id) {
  static const int ks[] = {K_LEASES, K_OWNER};
  const char *args[] = {sh->owner, sh->lease_ms, id};
  return (int)int_reply(eval(sh, renew_lua, ks, 2, args, 3));
}

int crawl__shared_finish(crawl__shared *sh, const char *id) {
  static const int ks[] = {K_LEASES, K_OWNER, K_DONE};
  const char *args[] = {sh->owner, id};
  return (int)int_reply(eval(sh, finish_lua, ks, 3, args, 2));
}

int crawl__shared_unhold(crawl__shared *sh, const char *id) {
  static const int ks[] = {K_DEEP, K_QUEUE};
  const char *args[] = {id};
  return (int)int_reply(eval(sh, unhold_lua, ks, 2, args, 1));
}

int crawl__shared_release(crawl__shared *sh, const char *id) {
  static const int ks[] = {K_LEASES, K_OWNER, K_QUEUE};
  const char *args[] = {sh->owner, id};
  return (int)int_reply(eval(sh, release_lua, ks, 3, args, 2));
}

/* ---- actions ------------------------------------------------------------------------ */
int crawl__shared_act_done(crawl__shared *sh, const char *id, const char *key) {
  char k[400];
  snprintf(k, sizeof k, "%sacts:%s", sh->prefix, id);
  char *c = clean(sh, key), *v = seal(sh, "act", id, c);
  const char *argv[] = {"SADD", k, v};
  int rc = (int)int_reply(cmd(sh, 3, argv));
  free(c);
  free(v);
  return rc;
}

int crawl__shared_acts(crawl__shared *sh, const char *id, char ***keys, size_t *n) {
  char k[400];
  snprintf(k, sizeof k, "%sacts:%s", sh->prefix, id);
  const char *argv[] = {"SMEMBERS", k};
  if (strv_reply(cmd(sh, 2, argv), keys, n) != 0) return -1;
  size_t m = 0;
  for (size_t i = 0; i < *n; i++) { /* the members with a good tag, in order */
    char *v = unseal(sh, "act", id, (*keys)[i], strlen((*keys)[i]));
    free((*keys)[i]);
    if (v) (*keys)[m++] = v;
  }
  *n = m;
  return 0;
}

/* ---- crawl_watch (crawl.h): the run's counts, for a progress line ---- */
/* A watch is a connection of its own to the frontier (crawl__shared). */
crawl_watch *crawl_watch_open(const char *frontier, const char *run_id, char *err, size_t errlen) {
  return (crawl_watch *)crawl__shared_open(frontier, run_id, 0, 1000, err, errlen);
}

int crawl_watch_read(crawl_watch *w, crawl_progress *p) {
  crawl__shared *sh = (crawl__shared *)w;
  long states = crawl__shared_count(sh), transitions = crawl__shared_transitions_add(sh, 0);
  if (states < 0 || transitions < 0) return -1;
  p->states = states;
  p->transitions = transitions;
  return 0;
}

void crawl_watch_close(crawl_watch *w) { crawl__shared_close((crawl__shared *)w); }

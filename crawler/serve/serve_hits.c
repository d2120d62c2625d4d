/* serve_hits.c -- the static server's hit counters: every request (any
 * method) counted per "METHOD path" in a flat list of at most
 * CRAWL_SERVER_HIT_PATHS keys (later new keys count in "other"), read by
 * crawl_server_hits and, for the tests' servers, by GET /__hits. The one
 * state the server thread shares with callers: s->mu guards it. Not here:
 * which requests are counted (serve_http.c). */
#include "serve_int.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

void serve__hit_count(crawl_server *s, const char *method, const char *path)
{
  size_t mlen = strlen(method), plen = strlen(path);
  pthread_mutex_lock(&s->mu);
  s->total++;
  for (size_t i = 0; i < s->nhits; i++) {
    serve_hit *h = &s->hits[i];
    if (h->plen == mlen + 1 && memcmp(h->key, method, mlen) == 0 &&
        strcmp(h->key + h->plen, path) == 0) {
      h->n++;
      pthread_mutex_unlock(&s->mu);
      return;
    }
  }
  if (s->nhits == CRAWL_SERVER_HIT_PATHS) {
    s->other++;
    pthread_mutex_unlock(&s->mu);
    return;
  }
  if (s->nhits == s->caphits) {
    s->caphits = s->caphits ? s->caphits * 2 : 32;
    s->hits = crawl__xrealloc(s->hits, s->caphits * sizeof *s->hits);
  }
  serve_hit *h = &s->hits[s->nhits++];
  h->key = crawl__xrealloc(NULL, mlen + 1 + plen + 1);
  memcpy(h->key, method, mlen);
  h->key[mlen] = ' ';
  memcpy(h->key + mlen + 1, path, plen + 1);
  h->plen = mlen + 1;
  h->n = 1;
  pthread_mutex_unlock(&s->mu);
}

void serve__hit_reset(crawl_server *s)
{
  pthread_mutex_lock(&s->mu);
  for (size_t i = 0; i < s->nhits; i++)
    free(s->hits[i].key);
  s->nhits = 0;
  s->other = 0;
  s->total = 0;
  pthread_mutex_unlock(&s->mu);
}

/* The counters as JSON text; caller frees. */
char *serve__hit_json(crawl_server *s)
{
  /* out of memory aborts in crawl__jx / crawl__jtext (crawl_util.h) */
  cJSON *root = crawl__jx(cJSON_CreateObject()), *reqs = crawl__jx(cJSON_CreateObject());
  pthread_mutex_lock(&s->mu);
  cJSON_AddNumberToObject(root, "total", (double)s->total);
  for (size_t i = 0; i < s->nhits; i++)
    cJSON_AddNumberToObject(reqs, s->hits[i].key, (double)s->hits[i].n);
  /* no real key collides: they all hold a space */
  if (s->other)
    cJSON_AddNumberToObject(reqs, "other", (double)s->other);
  pthread_mutex_unlock(&s->mu);
  cJSON_AddItemToObject(root, "requests", reqs);
  char *txt = crawl__jtext(root, 0);
  cJSON_Delete(root);
  return txt;
}

long crawl_server_hits(crawl_server *s, const char *prefix)
{
  if (!s)
    return 0;
  size_t pl = prefix ? strlen(prefix) : 0;
  long n = 0;
  pthread_mutex_lock(&s->mu);
  if (!prefix)
    n = s->total;
  else
    for (size_t i = 0; i < s->nhits; i++)
      if (strncmp(s->hits[i].key + s->hits[i].plen, prefix, pl) == 0)
        n += s->hits[i].n;
  pthread_mutex_unlock(&s->mu);
  return n;
}

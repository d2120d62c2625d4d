/* fuzz_session.c -- libFuzzer target for the session parsers (session.c):
 * crawl_session_storage_state, crawl_session_cookies_txt and
 * crawl_session_header, the readers of `--storage-state FILE`, `--cookies
 * FILE` and `--header` (files a user got from elsewhere). The first byte
 * picks the parser, the rest is the input. Besides "no crash, no leak, no
 * undefined behaviour" it checks what they promise:
 *   - CRAWL_OK, or CRAWL_ARG with the session unchanged and a non-empty
 *     one-line reason;
 *   - what is accepted builds its CDP params (cookies, merged headers,
 *     localStorage scripts) and every value is a secret of the run.
 * Seeds: corpus/session/. */
#include "crawl.h"
#include "crawl_secrets.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x) do { if (!(x)) abort(); } while (0)

static void use(const crawl_session *s) {
  cJSON *c = crawl_session_cookie_params(s);
  CHECK((c != NULL) == (s->ncookies > 0));
  cJSON_Delete(c);
  cJSON *h = crawl_session_merge_headers(s, NULL);
  CHECK((size_t)cJSON_GetArraySize(h) == s->nheaders);
  cJSON_Delete(h);
  for (size_t i = 0; i < s->nstorage; i++) free(crawl_session_storage_script(s, s->storage[i].origin));
  crawl__secrets *sec = crawl__secrets_new();
  crawl__session_secrets(s, sec);
  crawl__secrets_free(sec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int which = data[0] % 3;
  char *text = malloc(size);
  CHECK(text);
  memcpy(text, data + 1, size - 1);
  text[size - 1] = 0;
  crawl_session s = {0};
  char err[320] = "";
  crawl_code rc = which == 0   ? crawl_session_storage_state(&s, text, size - 1, err, sizeof err)
                  : which == 1 ? crawl_session_cookies_txt(&s, text, size - 1, err, sizeof err)
                               : crawl_session_header(&s, text, err, sizeof err);
  if (rc != CRAWL_OK) {
    CHECK(rc == CRAWL_ARG && err[0] && !strchr(err, '\n'));
    CHECK(!crawl_session_any(&s));
  } else {
    use(&s);
  }
  crawl_session_release(&s);
  free(text);
  return 0;
}

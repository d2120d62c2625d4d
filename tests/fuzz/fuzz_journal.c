/* fuzz_journal.c -- libFuzzer target for the journal reader
 * (crawl__journal_parse: every reader of journal.jsonl goes through it; a
 * crawl directory handed to `uiap-crawl report` may come from anyone).
 * Besides "no crash, no leak, no undefined behaviour" it checks the reading
 * rules: every record handed over is an object with a string type of the
 * known list; counts add up to at most the number of lines; only the last
 * line can be torn; a type filter hands over a subset. */
#include "crawl_journal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x) do { if (!(x)) abort(); } while (0)

static int known(const char *t) {
  for (const char *const *k = crawl__journal_types; *k; k++)
    if (!strcmp(*k, t)) return 1;
  return 0;
}

static int check_rec(void *ud, const char *type, cJSON *rec) {
  long *n = ud;
  CHECK(cJSON_IsObject(rec));
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(rec, "type");
  CHECK(cJSON_IsString(t) && !strcmp(t->valuestring, type) && known(type));
  ++*n;
  if (!(*n & 1)) return 0;  /* the reader frees it */
  cJSON_Delete(rec);        /* kept: ours now */
  return 1;
}

static int count_only(void *ud, const char *type, cJSON *rec) {
  (void)type;
  (void)rec;
  ++*(long *)ud;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  long lines = 1;
  for (size_t i = 0; i < size; i++) lines += data[i] == '\n';
  char *a = malloc(size + 1), *b = malloc(size + 1);
  memcpy(a, data, size);
  memcpy(b, data, size);
  long kept = 0, filtered = 0;
  crawl__journal_stats st, sf;
  crawl__journal_parse(a, size, NULL, check_rec, &kept, &st);
  CHECK(st.records == kept);
  CHECK(st.records + st.malformed + st.unknown + st.torn <= lines);
  CHECK(st.torn == 0 || st.torn == 1);
  static const char *const some[] = {"state", "transition", NULL};
  crawl__journal_parse(b, size, some, count_only, &filtered, &sf);
  CHECK(filtered <= kept);
  free(a);
  free(b);
  return 0;
}

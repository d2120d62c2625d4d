/* fuzz_jarena.c -- libFuzzer target for crawl__jarena_parse, the JSON
 * parser that reads journal records and package.json straight into frozen
 * nodes (a crawl directory handed to `uiap-crawl report` may come from
 * anyone). Differential: it must accept exactly what
 * cJSON_ParseWithLengthOpts(text, len, NULL, 0) accepts and give the same
 * tree, and a frozen copy of cJSON's tree (crawl__jfreeze) must equal it. */
#include "crawl_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x) do { if (!(x)) abort(); } while (0)

/* Same tree, child by child in order (cJSON_Compare looks object members up
 * by key, so a repeated key fails it even against itself). */
static int same(const cJSON *a, const cJSON *b, int depth) {
  if (!a || !b) return a == b;
  if ((a->type & 0xFF) != (b->type & 0xFF) || depth > 2000) return 0;
  if ((a->string == NULL) != (b->string == NULL) || (a->string && strcmp(a->string, b->string))) return 0;
  if (cJSON_IsString(a) && strcmp(a->valuestring, b->valuestring)) return 0;
  if (cJSON_IsNumber(a) && !(a->valuedouble == b->valuedouble && a->valueint == b->valueint)) return 0;
  const cJSON *x = a->child, *y = b->child;
  for (; x && y; x = x->next, y = y->next)
    if (!same(x, y, depth + 1)) return 0;
  return x == NULL && y == NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = 0;
  cJSON *ref = cJSON_ParseWithLengthOpts(text, size, NULL, 0);
  crawl__jarena a = {0}, b = {0};
  const cJSON *got = crawl__jarena_parse(&a, text, size);
  if (!ref) {
    if (got && getenv("FUZZ_SHOW")) fprintf(stderr, "cjson refuses, jarena accepts\n");
    CHECK(!got); /* the caller falls back to cJSON for the error's place */
  } else if (got) {
    if (!same(ref, got, 0) && getenv("FUZZ_SHOW")) { char *x = cJSON_PrintUnformatted(ref), *y = cJSON_PrintUnformatted(got); fprintf(stderr, "cjson %s\njarena %s\n", x, y); free(x); free(y); }
    CHECK(same(ref, got, 0));
    const cJSON *frozen = crawl__jfreeze(&b, ref);
    CHECK(frozen && same(ref, frozen, 0));
  }
  cJSON_Delete(ref);
  crawl__jarena_release(&a);
  crawl__jarena_release(&b);
  free(text);
  return 0;
}

/* crawler_schema.c -- the UIAP schema the crawler is built with
 * (crawler/package/uiap-schema.json, embedded into `uiap-crawl validate`)
 * is the project's own copy of the spec's schema.json. This test notices
 * when the spec (UIAP_SHARED/spec/schema.json) moves on without it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define COPY "crawler/package/uiap-schema.json"

Test(schema, the_copy_is_the_spec_schema_byte_for_byte) {
  const char *spec = t_shared("spec/schema.json");
  size_t ncopy = 0, nspec = 0;
  char *copy = t_read_file(UIAP_SRC "/" COPY, &ncopy);
  char *want = t_read_file(spec, &nspec);
  cr_assert(copy, "cannot read %s", UIAP_SRC "/" COPY);
  cr_assert(want, "cannot read %s", spec);
  size_t at = 0, line = 1;
  while (at < ncopy && at < nspec && copy[at] == want[at])
    line += copy[at++] == '\n';
  cr_assert(at == ncopy && at == nspec,
            "%s differs from %s at line %zu (byte %zu; sizes %zu and %zu): review the spec change, "
            "then copy it over and rebuild",
            COPY, spec, line, at, ncopy, nspec);
  free(copy);
  free(want);
}

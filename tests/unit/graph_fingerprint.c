/* graph_fingerprint.c -- pg_fingerprint on the pages a crawl meets at its
 * edges: an empty page (a blank tab, an error page with nothing in it)
 * has a content fingerprint like any other (the soak suite's AdminLTE
 * crawl under UBSan stopped a worker on it: qsort of no lines, a NULL
 * array). */
#include <criterion/criterion.h>
#include <string.h>

#include "pg.h"

Test(fingerprint, an_empty_page_has_a_content_fingerprint) {
  pg_graph g;
  memset(&g, 0, sizeof g);
  g.focus_element = -1;
  pg_fp_policy content = {.ignore_route = 1};
  char a[33] = "", b[33] = "";
  pg_fingerprint(&g, &content, a, NULL);
  pg_fingerprint(&g, &content, b, NULL);
  cr_expect_eq(strlen(a), 32, "a fingerprint of 32 hex digits: \"%s\"", a);
  cr_expect_str_eq(a, b, "the same empty page, the same fingerprint");
  char with_route[33] = "";
  pg_fingerprint(&g, NULL, with_route, NULL);
  cr_expect_str_neq(a, with_route, "the route (none) still counts when it is not ignored");
}

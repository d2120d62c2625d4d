/* capture.c -- end-to-end: the capture after an action (issue 29, "a cheaper
 * capture after an action"): what a capture of the bench's large-10000 page
 * costs, by part, after an action that changes one element.
 *
 * The page comes from the shared bench generator
 * (UIAP_SHARED/bench/pages/gen_large.py --n 10000), written to a temp
 * directory and served with the project's own server.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crawl.h"
#include "support.h"

typedef struct {
  cdp_client *c;
  crawl_page *p;
} lib;

static void lib_open(lib *l, const char *url) {
  char err[256];
  cr_assert_eq(cdp_launch(NULL, &l->c, err, sizeof err), CDP_OK, "launch: %s", err);
  cr_assert_eq(crawl_page_open(l->c, NULL, &l->p), CRAWL_OK, "open: %s", crawl_page_errmsg(l->p));
  cr_assert_eq(crawl_page_goto(l->p, url), CRAWL_OK, "goto %s: %s", url, crawl_page_errmsg(l->p));
}

static void lib_close(lib *l) {
  crawl_page_close(l->p);
  cdp_client_free(l->c);
}

static void lib_eval(lib *l, const char *js) {
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddStringToObject(a, "expression", js);
  cr_assert_eq(cdp_call(l->c, crawl_page_session(l->p), "Runtime.evaluate", a, &res, 10000), CDP_OK);
  cJSON_Delete(res);
}

/* The large page of n elements, generated into a temp dir and served: its URL. */
static char *large_page(int n) {
  const char *gen = t_shared("bench/pages/gen_large.py");
  char *dir = t_tmpdir();
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "python3 '%s' --n %d --out '%s' >/dev/null", gen, n, dir);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  int port = t_serve_root(dir);
  cr_assert(port > 0);
  char *url = malloc(256);
  snprintf(url, 256, "http://127.0.0.1:%d/large-%d.html", port, n);
  return url;
}

/* The debug lines of the capture component, printed with a prefix. */
static void log_capture(void *ud, crawl_log_level lvl, const char *component, const char *msg) {
  if (ud && !strcmp(component, "capture") && lvl == CRAWL_LOG_DEBUG) fprintf(stderr, "  [%s] %s\n", (const char *)ud, msg);
}

static int cmp_ll(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

/* The n-th checkbox in view of g, NULL when there is none. */
static const pg_element *checkbox_in_view(const pg_graph *g, int n) {
  for (size_t i = 0; i < g->nelements; i++)
    if (!strcmp(g->elements[i].role, "checkbox") && g->elements[i].in_viewport && n-- == 0) return &g->elements[i];
  return NULL;
}

#define ROUNDS 7
Test(capture, large_10000_cost, .timeout = 600) {
  setenv("UIAP_CAPTURE_PATCH", "1", 1);
  char *url = large_page(10000);
  lib l;
  lib_open(&l, url);
  pg_options o = {0};
  pg_graph *g = NULL;
  lib_eval(&l, "document.querySelector('table').scrollIntoView()");
  cr_assert_eq(crawl_page_settle(l.p), CRAWL_OK);
  cr_assert_eq(crawl_page_capture(l.p, &o, &g), CRAWL_OK, "%s", crawl_page_errmsg(l.p)); /* warm */
  long long full[ROUNDS], patched[ROUNDS];
  unsigned long np0, nv, nd, np;
  crawl_page_patch_counts(l.p, &np0, &nv, &nd);
  crawl_log_set(log_capture, getenv("UIAP_CAPTURE_LOG") ? "capture" : NULL, CRAWL_LOG_DEBUG);
  for (int r = 0; r < ROUNDS; r++) {
    const pg_element *cb = checkbox_in_view(g, r % 4);
    cr_assert(cb, "a checkbox in view");
    cr_assert_eq(crawl_page_click(l.p, cb->bbox.x + cb->bbox.w / 2, cb->bbox.y + cb->bbox.h / 2), CRAWL_OK);
    cr_assert_eq(crawl_page_settle(l.p), CRAWL_OK);
    pg_graph *pg = NULL;
    long long t0 = cdp_now_ms();
    cr_assert_eq(crawl_page_capture(l.p, &o, &pg), CRAWL_OK, "%s", crawl_page_errmsg(l.p));
    patched[r] = cdp_now_ms() - t0;
    lib_eval(&l, "window.__uiap_cp.dirty++"); /* the witness doubts: a full capture of the same page */
    pg_graph_free(g);
    t0 = cdp_now_ms();
    cr_assert_eq(crawl_page_capture(l.p, &o, &g), CRAWL_OK, "%s", crawl_page_errmsg(l.p));
    full[r] = cdp_now_ms() - t0;
    char where[512];
    cr_expect(pg_graph_same(pg, g, where, sizeof where), "round %d: the patched graph differs at %s", r, where);
    pg_graph_free(pg);
    fprintf(stderr, "round %d: patched %lld ms, full %lld ms\n", r, patched[r], full[r]);
  }
  crawl_log_set(NULL, NULL, CRAWL_LOG_WARN);
  crawl_page_patch_counts(l.p, &np, &nv, &nd);
  cr_expect_eq(np - np0, ROUNDS, "every capture after a click was patched (%lu of %d)", np - np0, ROUNDS);
  qsort(full, ROUNDS, sizeof *full, cmp_ll);
  qsort(patched, ROUNDS, sizeof *patched, cmp_ll);
  fprintf(stderr, "large-10000, capture after a checkbox click: patched median %lld ms, full median %lld ms (%.0f %%)\n",
          patched[ROUNDS / 2], full[ROUNDS / 2], 100.0 * (double)patched[ROUNDS / 2] / (double)full[ROUNDS / 2]);
  cr_expect_leq(patched[ROUNDS / 2] * 5, full[ROUNDS / 2], "the patched capture costs at most 20 %% of a full one");
  pg_graph_free(g);
  lib_close(&l);
  free(url);
}

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
#include <dirent.h>
#include <sys/stat.h>
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

/* ---- every fixture: patched graphs equal full captures ---------------------------- */
typedef struct {
  int pages, skipped, rounds, patched, unstable, differ;
} tally;

/* The witness' count of changes it ever saw (-1: none in the page). */
static long witness_total(lib *l) {
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddStringToObject(a, "expression", "window.__uiap_cp?window.__uiap_cp.total:-1");
  cJSON_AddBoolToObject(a, "returnByValue", 1);
  cr_assert_eq(cdp_call(l->c, crawl_page_session(l->p), "Runtime.evaluate", a, &res, 10000), CDP_OK);
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "result"), "value");
  long n = cJSON_IsNumber(v) ? (long)v->valuedouble : -1;
  cJSON_Delete(res);
  return n;
}

/* A capture with patching on (patched when the page's witness vouches),
 * then a full one of the same page (the witness made to doubt), compared.
 * A page that changed by itself between the two (a clock: the witness saw
 * a change) is not compared. */
static void compare_round(lib *l, tally *t, const char *url, const char *what) {
  const pg_options o = {0};
  unsigned long p0, p1, v, d;
  pg_graph *pg = NULL, *f = NULL;
  crawl_page_patch_counts(l->p, &p0, &v, &d);
  if (crawl_page_capture(l->p, &o, &pg) != CRAWL_OK) return;
  crawl_page_patch_counts(l->p, &p1, &v, &d);
  long seen = witness_total(l);
  lib_eval(l, "window.__uiap_cp&&window.__uiap_cp.dirty++");
  if (crawl_page_capture(l->p, &o, &f) == CRAWL_OK) {
    t->rounds++;
    t->patched += p1 > p0;
    char where[512];
    if (p1 > p0 && witness_total(l) != seen) {
      t->unstable++;
    } else if (p1 > p0 && !pg_graph_same(pg, f, where, sizeof where)) {
      t->differ++;
      cr_expect(0, "%s, %s: the patched graph differs from a full capture at %s", url, what, where);
      if (getenv("UIAP_CAPTURE_DUMP")) {
        cJSON *ja = pg_graph_to_json(pg), *jb = pg_graph_to_json(f);
        char *a = cJSON_Print(ja), *b = cJSON_Print(jb);
        t_write_file("/tmp/uiap-capture-patched.json", a);
        t_write_file("/tmp/uiap-capture-full.json", b);
        free(a);
        free(b);
        cJSON_Delete(ja);
        cJSON_Delete(jb);
      }
    }
  }
  pg_graph_free(pg);
  pg_graph_free(f);
}

static const char *const ACT_ROLES[] = {"checkbox", "radio", "switch", "textbox", "searchbox", "spinbutton", "combobox"};

/* Up to 8 controls of the page: clicked (a text field also typed into, a
 * select moved on by a key), each followed by a compared round. */
static void act_on_controls(lib *l, tally *t, const char *url, const pg_graph *g) {
  int done = 0;
  for (size_t i = 0; i < g->nelements && done < 8; i++) {
    const pg_element *e = &g->elements[i];
    size_t r = 0;
    while (r < sizeof ACT_ROLES / sizeof *ACT_ROLES && strcmp(e->role, ACT_ROLES[r])) r++;
    if (r == sizeof ACT_ROLES / sizeof *ACT_ROLES || !e->in_viewport || !e->has_bbox || e->bbox.w < 2) continue;
    if (crawl_page_click(l->p, e->bbox.x + e->bbox.w / 2, e->bbox.y + e->bbox.h / 2) != CRAWL_OK) continue;
    if (r >= 3 && r <= 5) crawl_page_insert_text(l->p, r == 5 ? "12" : "abc");
    if (r == 6) crawl_page_key(l->p, "ArrowDown");
    if (crawl_page_settle(l->p) != CRAWL_OK) return;
    char what[300];
    snprintf(what, sizeof what, "after acting on %s \"%s\"", e->role, e->name ? e->name : "");
    compare_round(l, t, url, what);
    done++;
  }
}

static void check_page(lib *l, tally *t, const char *url) {
  if (crawl_page_goto(l->p, url) != CRAWL_OK || crawl_page_settle(l->p) != CRAWL_OK) {
    t->skipped++;
    return;
  }
  pg_graph *g = NULL;
  if (crawl_page_capture(l->p, &(pg_options){0}, &g) != CRAWL_OK) {
    t->skipped++;
    return;
  }
  t->pages++;
  compare_round(l, t, url, "with no action");
  act_on_controls(l, t, url, g);
  pg_graph_free(g);
}

/* The .html files under dir (relative to tests/fixtures), recursively. */
static void each_page(lib *l, tally *t, const char *rel) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/fixtures/%s", UIAP_SRC, rel);
  DIR *d = opendir(path);
  if (!d) return;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (de->d_name[0] == '.') continue;
    char sub[1024], full[2048];
    snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", de->d_name);
    snprintf(full, sizeof full, "%s/tests/fixtures/%s", UIAP_SRC, sub);
    struct stat st;
    if (stat(full, &st)) continue;
    if (S_ISDIR(st.st_mode)) {
      each_page(l, t, sub);
    } else if (strlen(sub) > 5 && !strcmp(sub + strlen(sub) - 5, ".html")) {
      char p[1100];
      snprintf(p, sizeof p, "/%s", sub);
      if (!cdp_client_alive(l->c)) break;
      check_page(l, t, t_fixture_url(0, NULL, p));
    }
  }
  closedir(d);
}

Test(capture, fixtures_patched_equal_full, .timeout = 1200) {
  setenv("UIAP_CAPTURE_PATCH", "1", 1);
  const char *dirs = getenv("UIAP_CAPTURE_FIXTURES"); /* one folder, to look closer */
  lib l;
  char err[256];
  cr_assert_eq(cdp_launch(NULL, &l.c, err, sizeof err), CDP_OK, "launch: %s", err);
  cr_assert_eq(crawl_page_open(l.c, NULL, &l.p), CRAWL_OK, "open: %s", crawl_page_errmsg(l.p));
  tally t = {0};
  each_page(&l, &t, dirs ? dirs : "");
  fprintf(stderr, "fixtures: %d pages (%d not loaded), %d rounds, %d patched, %d differing, %d on pages that change by themselves\n",
          t.pages, t.skipped, t.rounds, t.patched, t.differ, t.unstable);
  cr_expect_eq(t.differ, 0, "every patched graph equals a full capture");
  cr_expect_gt(t.patched, 20, "patched captures were made (%d)", t.patched);
  lib_close(&l);
}

/* ---- crawls: every patched capture checked against a full one ---------------------- */
/* A crawl of each page with patching on and UIAP_CAPTURE_VERIFY=1 (each
 * patched capture also taken in full and compared): no difference, and the
 * crawls made patched captures at all (value-only actions: fields typed
 * into, boxes ticked). */
Test(capture, crawls_check_patched_against_full, .timeout = 600) {
  static const char *const pages[] = {"/spa/index.html", "/signup/index.html", "/widgets/grid.html",
                                      "/fidelity/structure.html", "/safety/sensitive.html", "/snapshot/states.html"};
  setenv("UIAP_CAPTURE_PATCH", "1", 1);
  setenv("UIAP_CAPTURE_VERIFY", "1", 1);
  long checked = 0;
  for (size_t i = 0; i < sizeof pages / sizeof *pages; i++) {
    char *dir = t_tmpdir(), out[600];
    snprintf(out, sizeof out, "%s/out", dir);
    const char *argv[] = {UIAP_BIN, "crawl", t_fixture_url(0, NULL, pages[i]), "--workers", "1", "--max-states", "15",
                          "--max-runtime-ms", "30000", "--verbose", "-o", out, NULL};
    t_run run = t_run_argv(argv, 90000);
    cr_expect_eq(run.status, 0, "crawl of %s: exit %d: %s", pages[i], run.status, run.err);
    cr_expect_null(strstr(run.err, "differs from a full one"), "%s: a patched capture differed: %s", pages[i],
                   strstr(run.err, "differs from a full one") ? strstr(run.err, "differs from a full one") : "");
    for (const char *s = run.err; (s = strstr(s, "patched capture checked: the same")); s++) checked++;
    t_run_free(&run);
    t_rm_rf(dir);
    free(dir);
  }
  unsetenv("UIAP_CAPTURE_VERIFY");
  fprintf(stderr, "crawls: %ld patched captures checked against full ones\n", checked);
  cr_expect_gt(checked, 3, "the crawls made patched captures (%ld checked)", checked);
}

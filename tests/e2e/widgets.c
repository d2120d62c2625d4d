/* widgets.c -- end-to-end: spending the budget on new ground on widget-rich
 * pages (issue 27 section 4), in real Chromium on the fixture server,
 * safe_explore, fixtures in tests/fixtures/widgets/:
 * - console.html: an API console in a shadow root whose search dialog of
 *   ten tick boxes could fill any budget with combinations, and whose
 *   navigation is <div>s without a role (listeners, an onclick attribute, a
 *   pointer cursor with a delegated listener): within 8 states the views
 *   are reached, by candidates marked inferred;
 * - tree.html: per-node tools that take clicks only under :hover: clicked
 *   (no "obscured"), and the remove glyph among them still denied;
 * - grid.html: column headers with aria-sort: allowed as local UI
 *   (signal.sort) and clicked, not sent to review;
 * - clickables.html (snapshot): which boxes become inferred candidates.
 * Writes would go to /danger/, which the fixture server counts. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

typedef struct {
  t_run run;
  char *dir;
  char out[600];
  cJSON *pkg;
  long writes;       /* requests under /danger/ during the run ... */
  char wrote[2048];  /* ... by "METHOD path" */
} run_res;

static const char *page(const char *name) {
  char path[300];
  snprintf(path, sizeof path, "/widgets/%s", name);
  return t_fixture_url(0, NULL, path);
}

/* `uiap-crawl crawl PAGE --max-states N -o OUT`, counting what reached /danger/. */
static void crawl(run_res *r, const char *name, const char *max_states) {
  memset(r, 0, sizeof *r);
  r->dir = t_tmpdir();
  cr_assert(r->dir);
  snprintf(r->out, sizeof r->out, "%s/out", r->dir);
  const char *argv[] = {UIAP_BIN, "crawl", page(name), "--max-states", max_states, "--max-runtime-ms", "40000",
                        "-o", r->out, NULL};
  cJSON *before = t_fixture_hit_table();
  r->run = t_run_argv(argv, 90000);
  usleep(300000);
  r->writes = t_fixture_hits_since(before, "/danger/", r->wrote, sizeof r->wrote);
  cJSON_Delete(before);
  cr_expect_eq(r->run.status, 0, "crawl of %s: exit %d: %s", name, r->run.status, r->run.err);
  char pkg[700], msg[4096];
  snprintf(pkg, sizeof pkg, "%s/package.json", r->out);
  r->pkg = t_package_read(pkg);
  cr_assert(r->pkg, "crawl of %s wrote no package: %s", name, r->run.err);
  cr_expect_eq(t_validate("DiscoveryPackage", pkg, msg, sizeof msg), 0, "the package validates: %s", msg);
}

static void done(run_res *r) {
  t_rm_rf(r->dir);
  free(r->dir);
  cJSON_Delete(r->pkg);
  t_run_free(&r->run);
}

#define EXPECT_NO_WRITES(r, what) \
  cr_expect_eq((r).writes, 0, "%ld requests reached /danger/ during %s: %s", (r).writes, what, (r).wrote)

static const char *str(const cJSON *o, const char *k) { return cJSON_GetStringValue(cJSON_GetObjectItem(o, k)); }

/* Journal records of type whose target has this name (and, when rule is
 * not NULL, whose decision's rule is rule). */
static int records(const run_res *r, const char *type, const char *name, const char *rule) {
  cJSON *ts = t_journal_records(r->out, type);
  int n = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, ts) {
    const char *tn = str(cJSON_GetObjectItem(t, "target"), "name");
    const char *tr = str(cJSON_GetObjectItem(t, "decision"), "rule");
    if (!tr) tr = str(t, "rule");
    n += tn && !strcmp(tn, name) && (!rule || (tr && !strcmp(tr, rule)));
  }
  cJSON_Delete(ts);
  return n;
}

/* Failures whose reason holds needle. */
static int failures_saying(const run_res *r, const char *needle, char *first, size_t cap) {
  cJSON *fs = t_journal_records(r->out, "failure");
  int n = 0;
  const cJSON *f;
  first[0] = 0;
  cJSON_ArrayForEach(f, fs) {
    char *text = cJSON_PrintUnformatted(f);
    if (text && strstr(text, needle) && !n++) snprintf(first, cap, "%.300s", text);
    free(text);
  }
  cJSON_Delete(fs);
  return n;
}

/* The states of the crawl whose file holds text. */
static int states_showing(const run_res *r, const char *text) {
  char dir[700];
  snprintf(dir, sizeof dir, "%s/states", r->out);
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  while (d && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[1000];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    char *s = t_read_file(path, NULL);
    n += s && strstr(s, text);
    free(s);
  }
  if (d) closedir(d);
  return n;
}

/* 1 when some state file has an element with this role and name whose
 * semantics name source `source`. */
static int element_sourced(const run_res *r, const char *role, const char *name, const char *source) {
  char dir[700];
  snprintf(dir, sizeof dir, "%s/states", r->out);
  DIR *d = opendir(dir);
  struct dirent *e;
  int found = 0;
  while (d && !found && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[1000];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    char *s = t_read_file(path, NULL);
    cJSON *st = s ? cJSON_Parse(s) : NULL;
    free(s);
    const cJSON *g = cJSON_GetObjectItem(st, "graph");
    const cJSON *el = t_element(g ? g : st, role, name);
    found = el && t_has(cJSON_GetObjectItem(el, "semantics"), "sources", source);
    cJSON_Delete(st);
  }
  if (d) closedir(d);
  return found;
}

static const char *const views[][2] = {
  {"View overview", "Show servers"},   {"Show authentication", "Show key example"},
  {"View endpoints", "GET /pets"},     {"View models", "Show Pet schema"},
  {"Show changelog", "Show older versions"},
};

/* Within 8 states the console's five views are reached through its <div>
 * navigation -- two with listeners of their own, one by an onclick
 * attribute, two by a pointer cursor and a delegated listener -- and not
 * only tick-box combinations of the search dialog: each nav item is a
 * candidate marked inferred and was clicked into a state showing its view. */
Test(widgets, navigation_views_are_reached_within_a_small_budget, .timeout = 150) {
  run_res r;
  crawl(&r, "console.html", "8");
  EXPECT_NO_WRITES(r, "the crawl of console.html");
  int reached = 0;
  for (size_t k = 0; k < sizeof views / sizeof *views; k++) {
    int clicked = records(&r, "transition", views[k][0], NULL);
    int shown = states_showing(&r, views[k][1]);
    cr_expect_geq(clicked, 1, "the nav item \"%s\" was clicked", views[k][0]);
    cr_expect_geq(shown, 1, "a state shows the view of \"%s\" (its \"%s\")", views[k][0], views[k][1]);
    cr_expect(element_sourced(&r, "generic", views[k][0], "inferred"), "\"%s\" is a candidate marked inferred",
              views[k][0]);
    reached += clicked && shown;
  }
  cr_expect_eq(reached, 5, "all five views within 8 states, not only tick-box combinations");
  cr_expect_geq(records(&r, "transition", "Search operations", NULL), 1, "the search dialog was opened too");
  done(&r);
}

/* The JSON tree's per-node tools take clicks only while the pointer is
 * over their row: hovered first, they are clicked (no failure says
 * "obscured"); the remove glyph among them is denied before any of that,
 * and its DELETE never leaves the page. */
Test(widgets, hover_tools_are_clicked_and_the_remove_glyph_stays_denied, .timeout = 150) {
  run_res r;
  crawl(&r, "tree.html", "8");
  EXPECT_NO_WRITES(r, "the crawl of tree.html");
  char first[400];
  cr_expect_eq(failures_saying(&r, "obscured", first, sizeof first), 0, "no click failed as obscured: %s", first);
  cr_expect_eq(records(&r, "transition", "Show value", NULL), 3, "\"Show value\" of each of the three rows was clicked");
  cr_expect_eq(records(&r, "transition", "View path", NULL), 3, "\"View path\" of each row was clicked");
  cr_expect_eq(records(&r, "transition", "\xC3\x97", NULL), 0, "the remove glyph was never clicked");
  cr_expect_geq(records(&r, "decision", "\xC3\x97", "icon.close.item"), 1, "the gate denied the remove glyph");
  cr_expect(t_review_mentions(r.pkg, "unsafe_action_candidate", "\xC3\x97"), "the denial is a review item");
  done(&r);
}

/* Column headers with aria-sort, and a sort button inside one, are local
 * UI (rule signal.sort): allowed, clicked, and not sent to review. */
Test(widgets, sort_headers_are_local_ui, .timeout = 150) {
  run_res r;
  crawl(&r, "grid.html", "8");
  EXPECT_NO_WRITES(r, "the crawl of grid.html");
  static const char *const heads[] = {"Name", "Price", "Stock"};
  for (size_t k = 0; k < 3; k++) {
    cr_expect_geq(records(&r, "transition", heads[k], "signal.sort"), 1, "the header \"%s\" was clicked as local UI",
                  heads[k]);
    cr_expect_eq(records(&r, "decision", heads[k], NULL), 0, "no decision held or denied \"%s\"", heads[k]);
    char quoted[32];
    snprintf(quoted, sizeof quoted, "\"%s\"", heads[k]);
    cr_expect(!t_review_mentions(r.pkg, "unsafe_action_candidate", quoted), "\"%s\" is not in review", heads[k]);
  }
  cr_expect(element_sourced(&r, "columnheader", "Name", "inferred"),
            "the <th> with a listener and no button is a candidate marked inferred");
  done(&r);
}

static int inferred(const cJSON *g, const char *role, const char *name) {
  const cJSON *el = t_element(g, role, name);
  return el && t_has(cJSON_GetObjectItem(el, "semantics"), "sources", "inferred") &&
         t_has(el, "supportedActions", "ui.activate");
}

/* Which boxes the page made clickable become candidates (clickables.html
 * says why each is or is not one), and at most 256 of a capture. */
Test(widgets, clickable_boxes_without_a_role_are_inferred_candidates, .timeout = 90) {
  t_run run;
  int left;
  cJSON *g = t_snapshot(&run, &left, page("clickables.html"), NULL);
  cr_assert(g, "snapshot of clickables.html failed (exit %d): %s", run.status, run.err);
  cr_expect_eq(left, 0, "Chromium or its temp profile outlived the run");
  cr_expect(inferred(g, "generic", "Open report"), "an ng-click attribute");
  cr_expect(inferred(g, "generic", "Details"), "tabindex 0");
  cr_expect(inferred(g, "listitem", "Reports"), "a pointer cursor (delegated listener)");
  cr_expect(inferred(g, "listitem", "Archive"), "a pointer cursor (delegated listener)");
  cr_expect(inferred(g, "generic", "Favourite"), "a listener on a span of a clickable card");
  cr_expect(!t_element(g, NULL, "Hidden by -1"), "tabindex -1 is no tab stop");
  cr_expect(!t_element(g, NULL, "Card title Favourite"), "the card holds a candidate: a container");
  cr_expect(!t_element(g, NULL, "Reports Archive"), "the delegating list holds candidates: a container");
  cr_expect(!t_element(g, NULL, "Click anywhere to dismiss"), "a page-sized click catcher is no control");
  cr_expect(!t_element(g, NULL, "Wrapper text Real button"), "the box around a real button is not");
  cr_expect(t_element(g, "button", "Real button"), "the real button is the control");
  cr_expect(!t_element(g, "generic", "\xE2\x98\x85"), "the icon inside a button is not");
  cr_expect(t_element(g, "button", "Digest"), "a web component's button is the control");
  int hosts = 0;
  const cJSON *h;
  cJSON_ArrayForEach(h, cJSON_GetObjectItem(g, "elements")) {
    const char *tag = str(cJSON_GetObjectItem(h, "semantics"), "tagName");
    hosts += tag && !strcmp(tag, "x-button") && cJSON_GetArraySize(cJSON_GetObjectItem(h, "supportedActions")) > 0;
  }
  cr_expect_eq(hosts, 0, "the host around it, whose listener is the button's, is no second control");
  int n = 0, tiles = 0;
  const cJSON *el;
  cJSON_ArrayForEach(el, cJSON_GetObjectItem(g, "elements")) {
    n += t_has(cJSON_GetObjectItem(el, "semantics"), "sources", "inferred");
    const char *name = str(el, "name");
    tiles += name && !strncmp(name, "Tile ", 5);
  }
  cr_expect_eq(n, 256, "at most 256 inferred candidates in a capture (of 305)");
  cr_expect_gt(tiles, 200, "the tiles are candidates up to the cap");
  cJSON_Delete(g);
  t_run_free(&run);
}

/* Transitions by a control named name that left their state. */
static int moves(const run_res *r, const char *name) {
  cJSON *ts = t_journal_records(r->out, "transition");
  int n = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, ts) {
    const char *tn = str(cJSON_GetObjectItem(t, "target"), "name"), *from = str(t, "fromStateId"), *to = str(t, "toStateId");
    n += tn && !strcmp(tn, name) && from && to && strcmp(from, to);
  }
  cJSON_Delete(ts);
  return n;
}

/* Controls below the fold are scrolled to and clicked (the hit test takes
 * the page's coordinates: before, every one of them failed as "obscured",
 * 67 % of AdminLTE's actions), also while a loading screen still slides
 * away after the load; a button a box covers for good fails as obscured,
 * naming the box, and its neighbour under the same box fails at once. */
Test(widgets, below_the_fold_and_behind_a_loading_screen, .timeout = 150) {
  run_res r;
  crawl(&r, "long.html", "8");
  EXPECT_NO_WRITES(r, "the crawl of long.html");
  cr_expect_geq(records(&r, "transition", "Reports", NULL), 1, "\"Reports\" (second screen) was clicked");
  cr_expect_geq(records(&r, "transition", "Charts", NULL), 1, "\"Charts\" (third screen) was clicked");
  cr_expect_geq(moves(&r, "Reports"), 1, "\"Reports\" led to another state");
  cr_expect_geq(moves(&r, "Charts"), 1, "\"Charts\" led to another state");
  char first[400];
  cr_expect_eq(records(&r, "transition", "Calendar", NULL), 0, "the covered \"Calendar\" was not clicked");
  cr_expect_geq(failures_saying(&r, "(div.cover)", first, sizeof first), 2,
                "the covered buttons failed as obscured by div.cover: %s", first);
  cr_expect_eq(failures_saying(&r, "preloader", first, sizeof first), 0, "nothing failed on the loading screen: %s", first);
  done(&r);
}

/* graph_patch.c -- a parsed snapshot brought up to date (pg_snapshot_set_control)
 * builds the same graph as a snapshot taken after the change, and
 * pg_graph_same tells two graphs apart. Recorded from real Chromium:
 * tests/fixtures/recorded/patch-before.json and patch-after.json, of
 * patch.html before and after ticking the box, typing "abc" into the name,
 * writing "hi" into the note and choosing "Two". */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_int.h"
#include "support.h"

#define REC(name) UIAP_SRC "/tests/fixtures/recorded/" name

static pg_snapshot *load(const char *path) {
  size_t len = 0;
  char *text = t_read_file(path, &len);
  cr_assert(text, "cannot read %s", path);
  pg_snapshot *s = NULL;
  cr_assert_eq(pg_snapshot_parse(text, len, &s), PG_OK, "%s", path);
  free(text);
  return s;
}

static pg_graph *build(const pg_snapshot *s) {
  pg_input in = {.snapshot = s};
  pg_options o = {.revision = 1, .include_non_interactive = 1};
  pg_graph *g = NULL;
  cr_assert_eq(pg_build(&in, &o, &g), PG_OK);
  return g;
}

/* The backend id of the node whose id attribute is id (0: none). */
static int backend_of(const pg_snapshot *s, const char *id) {
  const pg__snap_doc *d = &s->docs[0];
  for (size_t i = 0; i < d->nattr_nodes && i < d->nbackend; i++)
    for (uint32_t k = d->attr_off[i]; k + 1 < d->attr_off[i + 1]; k += 2)
      if (!strcmp(pg__snapshot_str(s, d->attr[k]), "id") && !strcmp(pg__snapshot_str(s, d->attr[k + 1]), id))
        return d->backend[i];
  return 0;
}

/* The backend id of the n-th node named tag. */
static int backend_of_tag(const pg_snapshot *s, const char *tag, int n) {
  const pg__snap_doc *d = &s->docs[0];
  for (size_t i = 0; i < d->nname && i < d->nbackend; i++)
    if (!strcmp(pg__snapshot_str(s, d->name[i]), tag) && n-- == 0) return d->backend[i];
  return 0;
}

Test(graph_patch, patched_snapshot_builds_the_graph_of_a_new_one) {
  pg_snapshot *before = load(REC("patch-before.json")), *after = load(REC("patch-after.json"));
  cr_assert(pg_snapshot_patchable(before));
  pg_graph *ga = build(after), *gb = build(before);
  char where[512];
  cr_expect_not(pg_graph_same(gb, ga, where, sizeof where), "the recorded change shows in the graphs");
  cr_expect(strlen(where) > 0);
  /* what the page's witness reports after the change */
  cr_assert_eq(pg_snapshot_set_control(before, backend_of(before, "agree"), "on", 1, 0), PG_OK);
  cr_assert_eq(pg_snapshot_set_control(before, backend_of(before, "name"), "abc", 0, 0), PG_OK);
  cr_assert_eq(pg_snapshot_set_control(before, backend_of(before, "note"), "hi", 0, 0), PG_OK);
  cr_assert_eq(pg_snapshot_set_control(before, backend_of(before, "pick"), "Two", 0, 0), PG_OK);
  cr_assert_eq(pg_snapshot_set_control(before, backend_of_tag(before, "OPTION", 0), "One", 0, 0), PG_OK);
  cr_assert_eq(pg_snapshot_set_control(before, backend_of_tag(before, "OPTION", 1), "Two", 0, 1), PG_OK);
  pg_graph *gp = build(before);
  cr_expect(pg_graph_same(gp, ga, where, sizeof where), "patched differs from recorded at %s", where);
  pg_graph_free(ga);
  pg_graph_free(gb);
  pg_graph_free(gp);
  pg_snapshot_free(before);
  pg_snapshot_free(after);
}

Test(graph_patch, patching_back_gives_the_first_graph) {
  pg_snapshot *after = load(REC("patch-after.json")), *before = load(REC("patch-before.json"));
  cr_assert_eq(pg_snapshot_set_control(after, backend_of(after, "agree"), "on", 0, 0), PG_OK);
  cr_assert_eq(pg_snapshot_set_control(after, backend_of(after, "name"), "", 0, 0), PG_OK);
  cr_assert_eq(pg_snapshot_set_control(after, backend_of(after, "note"), "", 0, 0), PG_OK);
  cr_assert_eq(pg_snapshot_set_control(after, backend_of_tag(after, "OPTION", 0), "One", 0, 1), PG_OK);
  cr_assert_eq(pg_snapshot_set_control(after, backend_of_tag(after, "OPTION", 1), "Two", 0, 0), PG_OK);
  pg_graph *gp = build(after), *gb = build(before);
  char where[512];
  cr_expect(pg_graph_same(gp, gb, where, sizeof where), "patched back differs at %s", where);
  pg_graph_free(gp);
  pg_graph_free(gb);
  pg_snapshot_free(after);
  pg_snapshot_free(before);
}

Test(graph_patch, what_cannot_be_patched_says_so) {
  pg_snapshot *s = load(REC("snapshot-small.json")); /* a frame and shadow roots */
  cr_expect_not(pg_snapshot_patchable(s));
  cr_expect_eq(pg_snapshot_set_control(s, 1, "x", 0, 0), PG_INPUT);
  pg_snapshot_free(s);
  pg_snapshot *b = load(REC("patch-before.json"));
  cr_expect_eq(pg_snapshot_set_control(b, 987654, "x", 0, 0), PG_INPUT, "no such node");
  cr_expect_eq(pg_snapshot_set_control(b, backend_of_tag(b, "BUTTON", 0), "x", 0, 0), PG_INPUT, "not a control");
  cr_expect_eq(pg_snapshot_set_control(NULL, 1, "x", 0, 0), PG_INPUT);
  pg_snapshot_free(b);
}

Test(graph_patch, same_ignores_only_the_revision) {
  pg_snapshot *s = load(REC("patch-before.json"));
  pg_input in = {.snapshot = s};
  pg_options o1 = {.revision = 1}, o2 = {.revision = 2}, o3 = {.revision = 1, .include_hidden = 1, .include_non_interactive = 1};
  pg_graph *a = NULL, *b = NULL, *c = NULL;
  cr_assert_eq(pg_build(&in, &o1, &a), PG_OK);
  cr_assert_eq(pg_build(&in, &o2, &b), PG_OK);
  cr_assert_eq(pg_build(&in, &o3, &c), PG_OK);
  char where[512];
  cr_expect(pg_graph_same(a, b, where, sizeof where), "%s", where);
  cr_expect_not(pg_graph_same(a, c, where, sizeof where));
  cr_expect_not(pg_graph_same(a, NULL, NULL, 0));
  pg_graph_free(a);
  pg_graph_free(b);
  pg_graph_free(c);
  pg_snapshot_free(s);
}

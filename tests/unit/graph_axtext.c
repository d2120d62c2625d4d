/* graph_axtext.c -- pg_ax_compact on an Accessibility.getFullAXTree reply
 * recorded from real Chromium (tests/fixtures/recorded/axtree-small.json, of
 * snapshot-small.html): the compacted text parses to exactly the original
 * tree minus the dropped members, and the graph built from it is the same;
 * malformed text is left alone. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "pg.h"
#include "support.h"

#define FIXTURES UIAP_SRC "/tests/fixtures/recorded/"

static const char *const dropped[] = {"nodeId", "parentId", "childIds", "frameId", "chromeRole"};

/* What pg_ax_compact promises, done on the tree: drop the members, and the
 * name sources without a value (all of "sources" when none is left). */
static void filter_nodes(cJSON *nodes) {
  cJSON *n;
  cJSON_ArrayForEach(n, nodes) {
    if (!cJSON_IsObject(n)) continue;
    for (size_t i = 0; i < sizeof dropped / sizeof *dropped; i++)
      while (cJSON_GetObjectItemCaseSensitive(n, dropped[i])) cJSON_DeleteItemFromObjectCaseSensitive(n, dropped[i]);
    cJSON *name = cJSON_GetObjectItemCaseSensitive(n, "name");
    cJSON *src = cJSON_GetObjectItemCaseSensitive(name, "sources");
    if (!cJSON_IsArray(src)) continue;
    for (int k = cJSON_GetArraySize(src) - 1; k >= 0; k--) {
      cJSON *s = cJSON_GetArrayItem(src, k);
      if (!cJSON_IsObject(s) || !cJSON_GetObjectItemCaseSensitive(s, "value")) cJSON_DeleteItemFromArray(src, k);
    }
    if (!cJSON_GetArraySize(src)) cJSON_DeleteItemFromObjectCaseSensitive(name, "sources");
  }
}

Test(axtext, recorded_reply) {
  size_t len;
  char *text = t_read_file(FIXTURES "axtree-small.json", &len);
  cr_assert(text);
  cJSON *want = cJSON_ParseWithLength(text, len);
  cr_assert(want);
  cJSON *nodes = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(want, "result"), "nodes");
  int count = cJSON_GetArraySize(nodes);
  cr_assert_gt(count, 20);
  filter_nodes(nodes);

  size_t n = pg_ax_compact(text, len);
  cr_expect_lt(n, len * 7 / 10, "%zu of %zu bytes left", n, len);
  cr_expect_eq(text[n], '\0');
  cJSON *got = cJSON_ParseWithLength(text, n);
  cr_assert(got, "the compacted text is JSON");
  char *a = cJSON_PrintUnformatted(want), *b = cJSON_PrintUnformatted(got);
  cr_expect_str_eq(b, a);
  cr_expect_null(strstr(text, "\"childIds\""));
  cr_expect_null(strstr(text, "\"chromeRole\""));
  cr_expect(strstr(text, "\"backendDOMNodeId\"") && strstr(text, "\"properties\"") && strstr(text, "\"sessionId\""));
  /* a second pass has nothing left to take */
  cr_expect_eq(pg_ax_compact(text, n), n);
  free(a);
  free(b);
  cJSON_Delete(want);
  cJSON_Delete(got);
  free(text);
}

/* What a user sees does not change: the graph from the compacted tree, with
 * every option that changes what is read. (Fails when build.c starts reading
 * a member that pg_ax_compact drops: take it off the list then.) */
Test(axtext, same_graph) {
  size_t slen, alen;
  char *snap = t_read_file(FIXTURES "snapshot-small.json", &slen);
  char *ax = t_read_file(FIXTURES "axtree-small.json", &alen);
  cr_assert(snap && ax);
  pg_snapshot *s = NULL;
  cr_assert_eq(pg_snapshot_parse(snap, slen, &s), PG_OK);
  char *compact = malloc(alen + 1);
  memcpy(compact, ax, alen + 1);
  size_t clen = pg_ax_compact(compact, alen);
  cJSON *msg[2] = {cJSON_ParseWithLength(ax, alen), cJSON_ParseWithLength(compact, clen)};
  cr_assert(msg[0] && msg[1]);
  for (int opt = 0; opt < 4; opt++) {
    char *out[2];
    for (int k = 0; k < 2; k++) {
      const cJSON *axr[1] = {cJSON_GetObjectItemCaseSensitive(msg[k], "result")};
      pg_input in = {.snapshot = s, .ax = axr, .nax = 1};
      pg_options o = {.revision = 1, .include_hidden = opt & 1, .include_non_interactive = opt >> 1};
      pg_graph *g = NULL;
      cr_assert_eq(pg_build(&in, &o, &g), PG_OK);
      cJSON *j = pg_graph_to_json(g);
      out[k] = cJSON_PrintUnformatted(j);
      cJSON_Delete(j);
      pg_graph_free(g);
    }
    cr_expect_str_eq(out[1], out[0], "options %d", opt);
    cr_expect(strstr(out[0], "\"Ada Lovelace\""), "the graph has the input's value");
    free(out[0]);
    free(out[1]);
  }
  cJSON_Delete(msg[0]);
  cJSON_Delete(msg[1]);
  pg_snapshot_free(s);
  free(compact);
  free(snap);
  free(ax);
}

Test(axtext, cases) {
  static const struct { const char *in, *out; } cases[] = {
    {"{\"id\":1,\"result\":{\"nodes\":[{\"nodeId\":\"1\",\"ignored\":false,\"childIds\":[\"2\"],\"backendDOMNodeId\":5}]}}",
     "{\"id\":1,\"result\":{\"nodes\":[{\"ignored\":false,\"backendDOMNodeId\":5}]}}"},
    {"{ \"nodes\" : [ { \"parentId\" : \"1\" } , 7 , { } ] }", "{\"nodes\":[{},7,{}]}"},
    {"{\"nodes\":[{\"ignored\":true,\"ignoredReasons\":[{\"name\":\"notRendered\"}],\"chromeRole\":{}}]}",
     "{\"nodes\":[{\"ignored\":true,\"ignoredReasons\":[{\"name\":\"notRendered\"}]}]}"},
    {"{\"nodes\":[{\"name\":{\"type\":\"computedString\",\"value\":\"x\",\"sources\":[{\"type\":\"attribute\"},"
     "{\"type\":\"contents\",\"value\":{\"value\":\"x\"}},1]}}]}",
     "{\"nodes\":[{\"name\":{\"type\":\"computedString\",\"value\":\"x\",\"sources\":[{\"type\":\"contents\",\"value\":{\"value\":\"x\"}}]}}]}"},
    {"{\"nodes\":[{\"name\":{\"sources\":[{\"type\":\"attribute\"}],\"value\":\"\"}}]}", "{\"nodes\":[{\"name\":{\"value\":\"\"}}]}"},
    {"{\"nodes\":[{\"name\":{\"sources\":[]}}]}", "{\"nodes\":[{\"name\":{}}]}"},
    {"{\"other\":{\"nodes\":[{\"nodeId\":\"1\"}]},\"nodeId\":2}", "{\"other\":{\"nodes\":[{\"nodeId\":\"1\"}]},\"nodeId\":2}"},
    {"{\"nodes\":[{\"n\\u006fdeId\":\"1\",\"frameId\":\"F\"}]}", "{\"nodes\":[{\"n\\u006fdeId\":\"1\"}]}"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *t = strdup(cases[i].in);
    size_t n = pg_ax_compact(t, strlen(t));
    cr_expect_eq(n, strlen(cases[i].out), "case %zu", i);
    cr_expect_str_eq(t, cases[i].out, "case %zu", i);
    free(t);
  }
  /* malformed: left exactly as it was */
  static const char *const bad[] = {
    "{\"nodes\":[{\"nodeId\":\"1\"}]", "{\"nodes\":[{\"nodeId\":\"1\"}]}x", "{\"nodes\":[{\"nodeId\":tru}]}",
    "{\"nodes\":[{\"nodeId\":01}]}", "{\"nodes\":[{\"nodeId\":\"\\x\"}]}", "{\"nodes\":[{\"nodeId\" 1}]}",
    "{\"nodes\":[{\"nodeId\":1,}]}", "", "   ", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char *t = strdup(bad[i]);
    cr_expect_eq(pg_ax_compact(t, strlen(t)), strlen(bad[i]), "%s", bad[i]);
    cr_expect_str_eq(t, bad[i]);
    free(t);
  }
  cr_expect_eq(pg_ax_compact(NULL, 0), 0);
}

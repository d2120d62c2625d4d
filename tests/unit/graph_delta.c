/* graph_delta.c -- pg_delta_compute / pg_delta_apply / pg_delta_signals on
 * small hand-written PageGraphs: applying the computed ops turns the old
 * graph into the new one; ops never refer to a document or scope unknown at
 * that point (a new frame with a new root scope and nested scopes, removals
 * children first); a revision gap and bad references are refused and leave
 * the graph as it was; the graph-derived signals fire once per change;
 * pg_change_signals finds collection counts and elements that came or went. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "pg.h"

static const char OLD[] =
  "{\"modelVersion\":\"0.1\",\"profile\":\"web@0.1\",\"revision\":\"rev_1\",\"rootDocumentId\":\"doc_root\","
  "\"route\":{\"url\":\"http://a/x\",\"title\":\"X\"},\"viewport\":{\"width\":1,\"height\":1,\"scrollX\":0,\"scrollY\":0},"
  "\"documents\":[{\"documentId\":\"doc_root\",\"frameId\":\"F0\",\"access\":\"same-origin\",\"rootScopeId\":\"scope_route\"}],"
  "\"scopes\":[{\"scopeId\":\"scope_route\",\"kind\":\"route\",\"documentId\":\"doc_root\"},"
  "{\"scopeId\":\"sc_5\",\"kind\":\"form\",\"documentId\":\"doc_root\",\"parentScopeId\":\"scope_route\"},"
  "{\"scopeId\":\"sc_6\",\"kind\":\"region\",\"documentId\":\"doc_root\",\"parentScopeId\":\"sc_5\"}],"
  "\"elements\":["
  "{\"instanceId\":\"el_1\",\"documentId\":\"doc_root\",\"scopeId\":\"scope_route\",\"role\":\"button\",\"name\":\"Save\",\"state\":{},\"affordances\":[],\"supportedActions\":[]},"
  "{\"instanceId\":\"el_2\",\"documentId\":\"doc_root\",\"scopeId\":\"sc_6\",\"role\":\"textbox\",\"name\":\"Email\",\"state\":{\"invalid\":false},\"affordances\":[],\"supportedActions\":[]},"
  "{\"instanceId\":\"el_3\",\"documentId\":\"doc_root\",\"scopeId\":\"sc_5\",\"role\":\"button\",\"name\":\"Gone\",\"state\":{},\"affordances\":[],\"supportedActions\":[]}],"
  "\"relations\":[{\"relationId\":\"rel_1\",\"type\":\"labels\",\"from\":\"el_3\",\"to\":\"el_2\"}],"
  "\"focus\":{\"documentId\":\"doc_root\",\"target\":\"el_3\"}}";

/* el_1 renamed; the form and its region gone with el_3; el_2 moved to a new
 * dialog and invalid; a new frame whose root scope holds a nested scope;
 * route changed; focus moved into the frame. */
static const char NEW[] =
  "{\"modelVersion\":\"0.1\",\"profile\":\"web@0.1\",\"revision\":\"rev_2\",\"rootDocumentId\":\"doc_root\","
  "\"route\":{\"url\":\"http://a/y\",\"title\":\"Y\"},\"viewport\":{\"width\":1,\"height\":1,\"scrollX\":0,\"scrollY\":0},"
  "\"documents\":[{\"documentId\":\"doc_root\",\"frameId\":\"F0\",\"access\":\"same-origin\",\"rootScopeId\":\"scope_route\"},"
  "{\"documentId\":\"doc_F1\",\"frameId\":\"F1\",\"parentFrameId\":\"F0\",\"parentDocumentId\":\"doc_root\",\"access\":\"same-origin\",\"rootScopeId\":\"scope_frame_F1\"}],"
  "\"scopes\":[{\"scopeId\":\"sc_9\",\"kind\":\"region\",\"documentId\":\"doc_F1\",\"parentScopeId\":\"scope_frame_F1\"},"
  "{\"scopeId\":\"scope_frame_F1\",\"kind\":\"iframe-root\",\"documentId\":\"doc_F1\",\"parentScopeId\":\"scope_route\"},"
  "{\"scopeId\":\"scope_route\",\"kind\":\"route\",\"documentId\":\"doc_root\"},"
  "{\"scopeId\":\"sc_7\",\"kind\":\"dialog\",\"documentId\":\"doc_root\",\"parentScopeId\":\"scope_route\",\"name\":\"Edit\",\"state\":{\"open\":true}}],"
  "\"elements\":["
  "{\"instanceId\":\"el_1\",\"documentId\":\"doc_root\",\"scopeId\":\"scope_route\",\"role\":\"button\",\"name\":\"Save all\",\"state\":{},\"affordances\":[],\"supportedActions\":[]},"
  "{\"instanceId\":\"el_2\",\"documentId\":\"doc_root\",\"scopeId\":\"sc_7\",\"role\":\"textbox\",\"name\":\"Email\",\"state\":{\"invalid\":true},\"affordances\":[],\"supportedActions\":[]},"
  "{\"instanceId\":\"el_8\",\"documentId\":\"doc_F1\",\"scopeId\":\"sc_9\",\"role\":\"link\",\"name\":\"In frame\",\"state\":{},\"affordances\":[],\"supportedActions\":[]}],"
  "\"focus\":{\"documentId\":\"doc_F1\",\"target\":\"el_8\"}}";

static cJSON *parse(const char *s) {
  cJSON *j = cJSON_Parse(s);
  cr_assert(j, "fixture JSON parses");
  return j;
}

static cJSON *delta(const cJSON *ops, const char *base, const char *rev) {
  cJSON *d = cJSON_CreateObject();
  cJSON_AddStringToObject(d, "subscriptionId", "sub_1");
  cJSON_AddStringToObject(d, "revision", rev);
  cJSON_AddStringToObject(d, "baseRevision", base);
  cJSON_AddItemToObject(d, "ops", cJSON_Duplicate(ops, 1));
  return d;
}

/* Compare the parts deltas carry, arrays as sets by id. */
static int same_item_set(const cJSON *a, const cJSON *b, const char *key) {
  if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b)) return 0;
  const cJSON *x, *y;
  cJSON_ArrayForEach(x, a) {
    int found = 0;
    cJSON_ArrayForEach(y, b)
      if (!strcmp(cJSON_GetObjectItem(x, key)->valuestring, cJSON_GetObjectItem(y, key)->valuestring))
        found = cJSON_Compare(x, y, 1);
    if (!found) return 0;
  }
  return 1;
}

static void expect_same_graph(const cJSON *a, const cJSON *b) {
  cr_expect(same_item_set(cJSON_GetObjectItem(a, "documents"), cJSON_GetObjectItem(b, "documents"), "documentId"));
  cr_expect(same_item_set(cJSON_GetObjectItem(a, "scopes"), cJSON_GetObjectItem(b, "scopes"), "scopeId"));
  cr_expect(same_item_set(cJSON_GetObjectItem(a, "elements"), cJSON_GetObjectItem(b, "elements"), "instanceId"));
  static const char *const single[] = {"route", "focus", "selection", "revision"};
  for (int k = 0; k < 4; k++) {
    const cJSON *x = cJSON_GetObjectItem(a, single[k]), *y = cJSON_GetObjectItem(b, single[k]);
    cr_expect((!x && !y) || (x && y && cJSON_Compare(x, y, 1)), "%s is the same", single[k]);
  }
}

Test(delta, apply_of_compute_gives_the_new_graph) {
  cJSON *a = parse(OLD), *b = parse(NEW), *ops = NULL;
  cr_assert_eq(pg_delta_compute(a, b, &ops), PG_OK);
  cJSON *d = delta(ops, "rev_1", "rev_2");
  char err[256];
  cr_assert_eq(pg_delta_apply(a, d, err, sizeof err), PG_DELTA_OK, "%s", err);
  expect_same_graph(a, b);
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(a, "relations")), 0, "the relation from removed el_3 is dropped");
  /* the reverse step too */
  cJSON *a2 = parse(OLD), *back = NULL;
  cr_assert_eq(pg_delta_compute(b, a2, &back), PG_OK);
  cJSON *d2 = delta(back, "rev_2", "rev_3");
  cr_assert_eq(pg_delta_apply(a, d2, err, sizeof err), PG_DELTA_OK, "%s", err);
  cJSON_ReplaceItemInObject(a2, "revision", cJSON_CreateString("rev_3"));
  expect_same_graph(a, a2);
  cJSON_Delete(a); cJSON_Delete(a2); cJSON_Delete(b); cJSON_Delete(ops); cJSON_Delete(back); cJSON_Delete(d); cJSON_Delete(d2);
}

Test(delta, op_order_never_refers_to_the_unknown) {
  cJSON *a = parse(OLD), *b = parse(NEW), *ops = NULL;
  cr_assert_eq(pg_delta_compute(a, b, &ops), PG_OK);
  /* positions of some ops */
  int doc_first = -1, doc_again = -1, frame_root = -1, inner = -1, dialog = -1, el2 = -1, rm_sc6 = -1, rm_sc5 = -1, rm_el3 = -1,
      focus = -1, i = 0;
  const cJSON *op;
  cJSON_ArrayForEach(op, ops) {
    const char *k = cJSON_GetObjectItem(op, "op")->valuestring;
    const cJSON *v = cJSON_GetObjectItem(op, !strcmp(k, "upsertDocument") ? "document" : !strcmp(k, "upsertScope") ? "scope" : "element");
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(v, !strcmp(k, "upsertDocument") ? "documentId" : !strcmp(k, "upsertScope") ? "scopeId" : "instanceId"));
    if (!strcmp(k, "upsertDocument") && !strcmp(id, "doc_F1")) {
      if (doc_first < 0) {
        doc_first = i;
        cr_expect_null(cJSON_GetObjectItem(v, "rootScopeId"), "first without its root scope, which is not known yet");
      } else {
        doc_again = i;
        cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(v, "rootScopeId")), "scope_frame_F1");
      }
    }
    if (!strcmp(k, "upsertScope") && !strcmp(id, "scope_frame_F1")) frame_root = i;
    if (!strcmp(k, "upsertScope") && !strcmp(id, "sc_9")) inner = i;
    if (!strcmp(k, "upsertScope") && !strcmp(id, "sc_7")) dialog = i;
    if (!strcmp(k, "upsertElement") && !strcmp(id, "el_2")) el2 = i;
    if (!strcmp(k, "removeScope") && !strcmp(cJSON_GetObjectItem(op, "scopeId")->valuestring, "sc_6")) rm_sc6 = i;
    if (!strcmp(k, "removeScope") && !strcmp(cJSON_GetObjectItem(op, "scopeId")->valuestring, "sc_5")) rm_sc5 = i;
    if (!strcmp(k, "removeElement") && !strcmp(cJSON_GetObjectItem(op, "instanceId")->valuestring, "el_3")) rm_el3 = i;
    if (!strcmp(k, "setFocus")) focus = i;
    i++;
  }
  cr_expect(doc_first >= 0 && doc_first < frame_root && frame_root < inner && inner < doc_again,
            "document, its root scope, the scope inside, the document again (%d %d %d %d)", doc_first, frame_root, inner, doc_again);
  cr_expect(dialog >= 0 && dialog < el2, "the dialog scope before the element moved into it");
  cr_expect(el2 < focus && focus < rm_el3, "focus moves off el_3 before it is removed");
  cr_expect(rm_el3 < rm_sc6 && rm_sc6 < rm_sc5, "removals children first");
  cJSON_Delete(a); cJSON_Delete(b); cJSON_Delete(ops);
}

Test(delta, nothing_changed_gives_no_ops) {
  cJSON *a = parse(OLD), *b = parse(OLD), *ops = NULL;
  cJSON_ReplaceItemInObject(b, "revision", cJSON_CreateString("rev_9"));
  cJSON_ReplaceItemInObject(b, "viewport", cJSON_CreateString("ignored"));
  cr_assert_eq(pg_delta_compute(a, b, &ops), PG_OK);
  cr_expect_eq(cJSON_GetArraySize(ops), 0, "revision and viewport are not state changes");
  cJSON_Delete(a); cJSON_Delete(b); cJSON_Delete(ops);
}

Test(delta, revision_gap_asks_for_a_snapshot) {
  cJSON *a = parse(OLD), *b = parse(NEW), *ops = NULL;
  cr_assert_eq(pg_delta_compute(a, b, &ops), PG_OK);
  cJSON *d = delta(ops, "rev_0", "rev_2");
  char *before = cJSON_PrintUnformatted(a), err[256];
  cr_expect_eq(pg_delta_apply(a, d, err, sizeof err), PG_DELTA_GAP);
  cr_expect(strstr(err, "snapshot"), "%s", err);
  char *after = cJSON_PrintUnformatted(a);
  cr_expect_str_eq(after, before, "the graph is unchanged");
  cr_expect_str_eq(pg_delta_strerror(PG_DELTA_GAP), "revision gap: ask for a new snapshot");
  free(before); free(after);
  cJSON_Delete(a); cJSON_Delete(b); cJSON_Delete(ops); cJSON_Delete(d);
}

Test(delta, unknown_references_are_refused_all_or_nothing) {
  static const char *const bad[] = {
    "[{\"op\":\"upsertElement\",\"element\":{\"instanceId\":\"el_1\",\"documentId\":\"doc_root\",\"scopeId\":\"scope_route\",\"role\":\"button\",\"name\":\"Changed\"}},"
    " {\"op\":\"upsertElement\",\"element\":{\"instanceId\":\"el_9\",\"documentId\":\"doc_root\",\"scopeId\":\"sc_404\",\"role\":\"button\"}}]",
    "[{\"op\":\"upsertScope\",\"scope\":{\"scopeId\":\"sc_8\",\"kind\":\"region\",\"documentId\":\"doc_404\"}}]",
    "[{\"op\":\"removeScope\",\"scopeId\":\"sc_5\"}]", /* leaves sc_6 and el_3 without their scope */
    "[{\"op\":\"setFocus\",\"focus\":{\"documentId\":\"doc_root\",\"target\":\"el_404\"}}]",
    "[{\"op\":\"frobnicate\"}]",
    "[{\"op\":\"removeDocument\",\"documentId\":\"doc_404\"}]",
  };
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    cJSON *a = parse(OLD), *ops = parse(bad[k]);
    cJSON *d = delta(ops, "rev_1", "rev_2");
    char *before = cJSON_PrintUnformatted(a), err[256];
    cr_expect_eq(pg_delta_apply(a, d, err, sizeof err), PG_DELTA_INVALID, "case %zu refused", k);
    char *after = cJSON_PrintUnformatted(a);
    cr_expect_str_eq(after, before, "case %zu: the graph is unchanged (%s)", k, err);
    free(before); free(after);
    cJSON_Delete(a); cJSON_Delete(ops); cJSON_Delete(d);
  }
  cJSON *a = parse(OLD), *d = cJSON_Parse("{\"revision\":\"rev_2\"}");
  cr_expect_eq(pg_delta_apply(a, d, NULL, 0), PG_DELTA_INVALID, "no ops, no baseRevision");
  cJSON_Delete(a); cJSON_Delete(d);
}

Test(delta, remove_document_cascades) {
  cJSON *b = parse(NEW);
  cJSON *ops = parse("[{\"op\":\"setFocus\",\"focus\":{\"documentId\":\"doc_root\"}},{\"op\":\"removeDocument\",\"documentId\":\"doc_F1\"}]");
  cJSON_ReplaceItemInObject(b, "revision", cJSON_CreateString("rev_1"));
  cJSON *d = delta(ops, "rev_1", "rev_2");
  char err[256];
  cr_assert_eq(pg_delta_apply(b, d, err, sizeof err), PG_DELTA_OK, "%s", err);
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(b, "elements")) cr_expect_str_neq(cJSON_GetObjectItem(e, "documentId")->valuestring, "doc_F1");
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(b, "scopes")) cr_expect_str_neq(cJSON_GetObjectItem(e, "documentId")->valuestring, "doc_F1");
  cJSON_Delete(b); cJSON_Delete(ops); cJSON_Delete(d);
}

Test(delta, signals_from_the_graphs) {
  cJSON *a = parse(OLD), *b = parse(NEW), *sigs = cJSON_CreateArray();
  unsigned long seq = 7;
  int n = pg_delta_signals(a, b, "sig_", &seq, sigs);
  int route = 0, opened = 0, closed = 0, valid = 0;
  const cJSON *s;
  cJSON_ArrayForEach(s, sigs) {
    const char *k = cJSON_GetObjectItem(s, "kind")->valuestring;
    route += !strcmp(k, "route.changed");
    opened += !strcmp(k, "dialog.opened");
    closed += !strcmp(k, "dialog.closed");
    if (!strcmp(k, "validation.changed")) {
      valid++;
      cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "target"), "instanceId")->valuestring, "el_2");
      cr_expect_str_eq(cJSON_GetObjectItem(s, "level")->valuestring, "error");
    }
    if (!strcmp(k, "dialog.opened")) cr_expect_str_eq(cJSON_GetObjectItem(s, "scopeId")->valuestring, "sc_7");
  }
  cr_expect(n == 3 && route == 1 && opened == 1 && closed == 0 && valid == 1, "%d signals", n);
  cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(sigs, 0), "signalId")->valuestring, "sig_7");
  cr_expect_eq(seq, 10);
  /* and back: the dialog closes, the field turns valid */
  cJSON *back = cJSON_CreateArray();
  pg_delta_signals(b, a, "sig_", &seq, back);
  int closed2 = 0;
  cJSON_ArrayForEach(s, back) closed2 += !strcmp(cJSON_GetObjectItem(s, "kind")->valuestring, "dialog.closed");
  cr_expect_eq(closed2, 1);
  cJSON_Delete(a); cJSON_Delete(b); cJSON_Delete(sigs); cJSON_Delete(back);
}

/* pg_change_signals: one page before and after a step. The table's rows
 * (a rowgroup, ids of a reload: matched by kind and name) go from 2 to 3;
 * "Show filters" goes, a checkbox comes; a second "Edit" comes (two of one
 * key before, three after: one appeared); a status and a dialog's button
 * come too but have signals of their own. */
#define PG_HEAD "{\"modelVersion\":\"0.1\",\"profile\":\"web@0.1\",\"revision\":\"r\",\"rootDocumentId\":\"doc_root\"," \
  "\"route\":{\"url\":\"http://a/x\"},\"viewport\":{\"width\":1,\"height\":1,\"scrollX\":0,\"scrollY\":0}," \
  "\"documents\":[{\"documentId\":\"doc_root\",\"frameId\":\"F0\",\"access\":\"same-origin\",\"rootScopeId\":\"scope_route\"}],"
#define PG_EL(id, scope, role, name) "{\"instanceId\":\"" id "\",\"documentId\":\"doc_root\",\"scopeId\":\"" scope \
  "\",\"role\":\"" role "\",\"name\":\"" name "\",\"state\":{\"visible\":true},\"affordances\":[],\"supportedActions\":[]}"
static const char STEP_OLD[] = PG_HEAD
  "\"scopes\":[{\"scopeId\":\"scope_route\",\"kind\":\"route\",\"documentId\":\"doc_root\"},"
  "{\"scopeId\":\"sc_1\",\"kind\":\"collection\",\"name\":\"Results\",\"documentId\":\"doc_root\",\"parentScopeId\":\"scope_route\"},"
  "{\"scopeId\":\"sc_2\",\"kind\":\"rowgroup\",\"documentId\":\"doc_root\",\"parentScopeId\":\"sc_1\"}],"
  "\"elements\":[" PG_EL("el_1", "sc_2", "button", "Item 1") "," PG_EL("el_2", "sc_2", "button", "Item 2") ","
  PG_EL("el_3", "scope_route", "button", "Show filters") "," PG_EL("el_4", "scope_route", "button", "Edit") ","
  PG_EL("el_5", "scope_route", "button", "Edit") "]}";
static const char STEP_NEW[] = PG_HEAD
  "\"scopes\":[{\"scopeId\":\"scope_route\",\"kind\":\"route\",\"documentId\":\"doc_root\"},"
  "{\"scopeId\":\"sc_11\",\"kind\":\"collection\",\"name\":\"Results\",\"documentId\":\"doc_root\",\"parentScopeId\":\"scope_route\"},"
  "{\"scopeId\":\"sc_12\",\"kind\":\"rowgroup\",\"documentId\":\"doc_root\",\"parentScopeId\":\"sc_11\"},"
  "{\"scopeId\":\"sc_13\",\"kind\":\"dialog\",\"name\":\"Help\",\"documentId\":\"doc_root\",\"parentScopeId\":\"scope_route\",\"state\":{\"open\":true}}],"
  "\"elements\":[" PG_EL("el_11", "sc_12", "button", "Item 1") "," PG_EL("el_12", "sc_12", "button", "Item 2") ","
  PG_EL("el_13", "sc_12", "button", "Item 3") "," PG_EL("el_14", "scope_route", "checkbox", "Only mine") ","
  PG_EL("el_15", "scope_route", "button", "Edit") "," PG_EL("el_16", "scope_route", "button", "Edit") ","
  PG_EL("el_17", "scope_route", "button", "Edit") "," PG_EL("el_18", "scope_route", "status", "Saved") ","
  PG_EL("el_19", "sc_13", "button", "Close") "]}";

static int kind_count(const cJSON *sigs, const char *kind, const char *role, const char *name) {
  int n = 0;
  const cJSON *s;
  cJSON_ArrayForEach(s, sigs) {
    const cJSON *t = cJSON_GetObjectItem(s, "target");
    if (strcmp(cJSON_GetObjectItem(s, "kind")->valuestring, kind)) continue;
    if (role && (!t || strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(t, "role")), role) ||
                 strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(t, "name")), name)))
      continue;
    n++;
  }
  return n;
}

Test(delta, change_signals_count_collections_and_elements) {
  cJSON *a = parse(STEP_OLD), *b = parse(STEP_NEW), *sigs = cJSON_CreateArray();
  int n = pg_change_signals(a, b, sigs);
  cr_expect_eq(kind_count(sigs, "collection.count_changed", NULL, NULL), 1, "the rowgroup grew");
  const cJSON *s;
  cJSON_ArrayForEach(s, sigs)
    if (!strcmp(cJSON_GetObjectItem(s, "kind")->valuestring, "collection.count_changed"))
      cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(s, "scopeId")), "sc_12", "the new capture's scope");
  cr_expect_eq(kind_count(sigs, "element.appeared", "checkbox", "Only mine"), 1);
  cr_expect_eq(kind_count(sigs, "element.appeared", "button", "Edit"), 1, "one more Edit: one signal");
  cr_expect_eq(kind_count(sigs, "element.disappeared", "button", "Show filters"), 1);
  cr_expect_eq(kind_count(sigs, "element.appeared", "status", "Saved"), 0, "a status is a toast, not this");
  cr_expect_eq(kind_count(sigs, "element.appeared", "button", "Close"), 0, "a dialog's contents: dialog.opened");
  cr_expect_eq(kind_count(sigs, "element.appeared", "button", "Item 3"), 0, "a row: the count");
  cr_expect_eq(n, 4, "%d signals", n);
  cJSON_ArrayForEach(s, sigs) {
    const cJSON *t = cJSON_GetObjectItem(s, "target");
    cr_expect(!t || !cJSON_GetObjectItem(t, "instanceId"), "no per-capture id in a success signal's target");
  }
  /* nothing changed: nothing */
  cJSON *none = cJSON_CreateArray();
  cr_expect_eq(pg_change_signals(b, b, none), 0);
  cJSON_Delete(a); cJSON_Delete(b); cJSON_Delete(sigs); cJSON_Delete(none);
}

Test(delta, malformed_graphs) {
  cJSON *ops = (cJSON *)1;
  cJSON *g = parse("{\"elements\":[{\"name\":\"no id\"}]}");
  cr_expect_eq(pg_delta_compute(NULL, g, &ops), PG_INPUT);
  cr_expect_null(ops);
  cJSON *orphan = parse("{\"documents\":[{\"documentId\":\"d\",\"parentDocumentId\":\"nowhere\"}]}");
  cr_expect_eq(pg_delta_compute(NULL, orphan, &ops), PG_INPUT, "a parent the graph lacks");
  cJSON_Delete(g);
  cJSON_Delete(orphan);
}

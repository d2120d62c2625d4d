/* graph_snapshot.c -- pg_snapshot_parse on a DOMSnapshot.captureSnapshot reply
 * recorded from real Chromium (tests/fixtures/recorded/snapshot-small.json, of
 * snapshot-small.html: an iframe, an open and a closed shadow root, an input
 * with a value, a checked checkbox), then on malformed text: every cut of that
 * reply, bad escapes, lone surrogates, deep nesting, out-of-range numbers,
 * wrong types. Malformed input must give PG_INPUT (or a valid struct), never a
 * crash; run it under ASan (UIAP_SANITIZE) to make "never" mean something.
 * Also data-uiap-risk on the reply's submit button, from the snapshot to the
 * published graph and the policy's verdict: one reading for both. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_int.h"
#include "pol.h"
#include "support.h"

#define RECORDED UIAP_SRC "/tests/fixtures/recorded/snapshot-small.json"

static char *recorded(size_t *len) {
  char *s = t_read_file(RECORDED, len);
  cr_assert(s, "cannot read %s", RECORDED);
  return s;
}

/* Parse exactly len bytes from a block of that size, so that ASan sees any
 * read past the end. */
static pg_code parse_n(const char *text, size_t len, pg_snapshot **out) {
  char *copy = malloc(len ? len : 1);
  memcpy(copy, text, len);
  pg_code rc = pg_snapshot_parse(copy, len, out);
  free(copy);
  return rc;
}
static pg_code parse(const char *text, pg_snapshot **out) { return parse_n(text, strlen(text), out); }

/* Value of attribute `name` of node i, NULL if it has none. */
static const char *attr_of(const pg_snapshot *s, const pg__snap_doc *d, size_t i, const char *name) {
  if (i >= d->nattr_nodes) return NULL;
  for (uint32_t k = d->attr_off[i]; k + 1 < d->attr_off[i + 1]; k += 2)
    if (!strcmp(pg__snapshot_str(s, d->attr[k]), name)) return pg__snapshot_str(s, d->attr[k + 1]);
  return NULL;
}
/* Node whose id attribute is `id`, or -1. */
static int node_by_id(const pg_snapshot *s, const pg__snap_doc *d, const char *id) {
  for (size_t i = 0; i < d->nattr_nodes; i++) {
    const char *v = attr_of(s, d, i, "id");
    if (v && !strcmp(v, id)) return (int)i;
  }
  return -1;
}
/* Position of node i in a sparse index list, or -1. */
static int sparse_at(const pg__snap_sparse *sp, int i) {
  for (size_t k = 0; k < sp->nindex; k++)
    if (sp->index[k] == i) return (int)k;
  return -1;
}
static const char *sparse_str(const pg_snapshot *s, const pg__snap_sparse *sp, int i) {
  int k = sparse_at(sp, i);
  return k >= 0 && (size_t)k < sp->nvalue ? pg__snapshot_str(s, sp->value[k]) : NULL;
}

Test(snapshot, recorded_reply) {
  size_t len;
  char *text = recorded(&len);
  pg_snapshot *s = NULL;
  cr_assert_eq(pg_snapshot_parse(text, len, &s), PG_OK);
  free(text); /* the snapshot keeps nothing of the text */
  cr_assert_eq(pg_snapshot_document_count(s), 2);
  cr_expect_eq(pg_snapshot_node_count(s), 59 + 9);

  const pg__snap_doc *d = &s->docs[0];
  cr_expect_str_eq(pg__snapshot_str(s, d->document_url), "http://127.0.0.1:8931/snapshot-small.html");
  /* sent as \u201c, \u201d, \u00e9, \u2713 */
  cr_expect_str_eq(pg__snapshot_str(s, d->title), "Small \xE2\x80\x9Csnapshot\xE2\x80\x9D \xC3\xA9 \xE2\x9C\x93");
  cr_expect_eq(strlen(pg__snapshot_str(s, d->frame_id)), 32);
  cr_expect_str_eq(pg__snapshot_str(s, -1), "");
  cr_expect_str_eq(pg__snapshot_str(s, 1 << 30), "");
  cr_expect_eq(d->nparent, 59);
  cr_expect(d->ntype == 59 && d->nname == 59 && d->nvalue == 59 && d->nbackend == 59 && d->nattr_nodes == 59);
  cr_expect_eq(d->parent[0], -1);
  cr_expect_eq(d->type[0], 9);
  cr_expect_str_eq(pg__snapshot_str(s, d->name[0]), "#document");

  int name = node_by_id(s, d, "name"), ok = node_by_id(s, d, "ok"), t = node_by_id(s, d, "t");
  int fr = node_by_id(s, d, "fr"), in_open = node_by_id(s, d, "in-open"), in_closed = node_by_id(s, d, "in-closed");
  cr_assert(name > 0 && ok > 0 && t > 0 && fr > 0 && in_open > 0 && in_closed > 0);
  cr_expect_str_eq(pg__snapshot_str(s, d->name[name]), "INPUT");
  cr_expect_str_eq(attr_of(s, d, name, "type"), "text");
  cr_expect_str_eq(sparse_str(s, &d->input_value, name), "Ada Lovelace");
  cr_expect_geq(sparse_at(&d->input_checked, ok), 0, "the checked checkbox is in inputChecked");
  cr_expect_lt(sparse_at(&d->input_checked, name), 0);
  cr_expect_eq(d->input_checked.nvalue, 0, "a rare boolean has no values");
  cr_expect_str_eq(sparse_str(s, &d->text_value, t), "Line one\nLine \"two\"\ttab");
  cr_expect_str_eq(sparse_str(s, &d->shadow_root_type, in_open), "open");
  cr_expect_str_eq(sparse_str(s, &d->shadow_root_type, in_closed), "closed");
  cr_expect_str_eq(pg__snapshot_str(s, d->name[d->parent[in_open]]), "DIV", "shadow children hang off the host");
  int k = sparse_at(&d->content_document_index, fr);
  cr_assert_geq(k, 0);
  cr_expect_eq(d->content_document_index.value[k], 1);
  cr_expect_geq(sparse_at(&d->is_clickable, name), 0);
  /* the empty value of <option selected> is -1 */
  int opt = d->option_selected.nindex ? d->option_selected.index[0] : -1;
  cr_assert_geq(opt, 0);
  cr_expect_str_eq(attr_of(s, d, (size_t)opt, "selected"), "");

  /* layout */
  cr_expect_eq(d->nlayout_node, 39);
  cr_expect_eq(d->style_stride, 4);
  cr_expect_eq(d->nstyles, 39);
  cr_expect_eq(d->styles[0], -1, "the first (empty) style entry is padded");
  cr_expect_str_eq(pg__snapshot_str(s, d->styles[4 * 1 + 0]), "block");
  cr_expect_str_eq(pg__snapshot_str(s, d->styles[4 * 1 + 1]), "visible");
  cr_expect_eq(d->nbounds, 39);
  cr_expect_eq(d->nclient_rects, 39);
  cr_expect_eq(d->npaint, 39);
  cr_expect(d->bounds[0] == 0 && d->bounds[2] == 1280 && d->bounds[3] == 800);
  cr_expect(d->client_rects[0] == 0 && d->client_rects[2] == 0, "an empty clientRects entry reads as zeros");
  cr_expect(d->client_rects[4 + 2] == 1280 && d->client_rects[4 + 3] == 800);
  int lay_name = -1;
  for (size_t l = 0; l < d->nlayout_node; l++)
    if (d->layout_node[l] == name) lay_name = (int)l;
  cr_assert_geq(lay_name, 0);
  cr_expect(d->bounds[4 * lay_name + 2] == 179 && d->bounds[4 * lay_name + 3] == 21);
  cr_expect(d->bounds[4 * lay_name + 0] == 60.296875);

  const pg__snap_doc *c = &s->docs[1];
  cr_expect_str_eq(pg__snapshot_str(s, c->document_url), "about:srcdoc");
  cr_expect_str_eq(pg__snapshot_str(s, c->title), "Child");
  cr_expect_eq(c->nparent, 9);
  cr_expect_geq(node_by_id(s, c, "cb"), 0);
  pg_snapshot_free(s);
}

/* What a user sees: the graph built from the parsed reply (no AX data). */
Test(snapshot, builds_the_graph) {
  size_t len;
  char *text = recorded(&len);
  pg_snapshot *s = NULL;
  cr_assert_eq(pg_snapshot_parse(text, len, &s), PG_OK);
  free(text);
  pg_input in = {.snapshot = s};
  pg_options o = {.revision = 1};
  pg_graph *g = NULL;
  cr_assert_eq(pg_build(&in, &o, &g), PG_OK);
  cr_expect_eq(g->ndocuments, 2);
  cr_expect_eq(g->closed_shadow_hosts, 1);
  int saw_value = 0, saw_checked = 0, saw_open = 0, saw_child = 0;
  for (size_t i = 0; i < g->nelements; i++) {
    const pg_element *e = &g->elements[i];
    if (e->text_value && !strcmp(e->text_value, "Ada Lovelace")) saw_value = 1;
    if (e->input_type && !strcmp(e->input_type, "checkbox") && pg_state_is(&e->state, PG_ST_CHECKED)) saw_checked = 1;
    if (e->name && !strcmp(e->name, "Open inside") && e->shadow_host_id) saw_open = 1;
    if (e->name && !strcmp(e->name, "Child button") && e->document == 1) saw_child = 1;
    cr_expect(!e->name || !strstr(e->name, "Closed inside"), "nothing from the closed shadow root");
  }
  cr_expect(saw_value && saw_checked && saw_open && saw_child, "value %d checked %d open %d child %d",
            saw_value, saw_checked, saw_open, saw_child);
  pg_graph_free(g);
  pg_snapshot_free(s);
}

Test(snapshot, result_object_alone) {
  size_t len;
  char *text = recorded(&len);
  char *r = strstr(text, "\"result\":");
  cr_assert(r);
  r += strlen("\"result\":");
  char *end = strstr(r, "},\"sessionId\"");
  cr_assert(end);
  pg_snapshot *s = NULL;
  cr_assert_eq(parse_n(r, (size_t)(end + 1 - r), &s), PG_OK);
  cr_expect_eq(pg_snapshot_node_count(s), 68);
  pg_snapshot_free(s);
  free(text);
}

Test(snapshot, every_cut_of_the_reply_is_rejected) {
  size_t len;
  char *text = recorded(&len);
  size_t bad = 0;
  for (size_t n = 0; n < len; n++) {
    pg_snapshot *s = (pg_snapshot *)1;
    pg_code rc = parse_n(text, n, &s);
    if (rc != PG_INPUT || s != NULL) bad++;
    if (rc == PG_OK) pg_snapshot_free(s);
  }
  cr_expect_eq(bad, 0, "%zu of %zu prefixes were not rejected", bad, len);
  free(text);
}

/* The one string of {"documents":[],"strings":[S]}. */
static pg_code one_string(const char *json_string, char *out, size_t cap) {
  char buf[512];
  snprintf(buf, sizeof buf, "{\"documents\":[],\"strings\":[%s]}", json_string);
  pg_snapshot *s = NULL;
  pg_code rc = parse(buf, &s);
  if (rc == PG_OK) {
    cr_assert_eq(s->nstrings, 1);
    snprintf(out, cap, "%s", pg__snapshot_str(s, 0));
    pg_snapshot_free(s);
  }
  return rc;
}

Test(snapshot, strings) {
  static const struct { const char *in, *out; } ok[] = {
    {"\"plain\"", "plain"},
    {"\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\b\f\n\r\t"},
    {"\"\\u00e9\\u20AC\"", "\xC3\xA9\xE2\x82\xAC"},
    {"\"\\ud83d\\ude00\"", "\xF0\x9F\x98\x80"},                  /* a surrogate pair */
    {"\"\\ud800\"", "\xEF\xBF\xBD"},                              /* lone high */
    {"\"a\\udc00b\"", "a\xEF\xBF\xBD" "b"},                       /* lone low */
    {"\"\\ud800\\u0041\"", "\xEF\xBF\xBD" "A"},                   /* high, then no low */
    {"\"\\ud800\\ud800\\udc00\"", "\xEF\xBF\xBD\xF0\x90\x80\x80"}, /* high, then a pair */
    {"\"\\ud800x\"", "\xEF\xBF\xBDx"},
    {"\"\\u0001\\u001f\"", "\x01\x1f"},                           /* control characters kept */
    {"\"tab\there\"", "tab\there"},
    {"\"\xC3\xA9\xF0\x9F\x98\x80\"", "\xC3\xA9\xF0\x9F\x98\x80"}, /* valid UTF-8 as is */
    {"\"\xFFx\"", "\xEF\xBF\xBDx"},                               /* invalid bytes */
    {"\"\xC3x\"", "\xEF\xBF\xBDx"},                               /* truncated sequence */
    {"\"\xE2\x82x\"", "\xEF\xBF\xBDx"},                           /* maximal subpart: one U+FFFD */
    {"\"\xED\xA0\x80\"", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"}, /* an encoded surrogate */
    {"\"\xC0\xAF\"", "\xEF\xBF\xBD\xEF\xBF\xBD"},                 /* overlong */
    {"\"\xF4\x90\x80\x80\"", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"}, /* > U+10FFFF */
    {"\"\"", ""},
  };
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    char out[256];
    cr_expect_eq(one_string(ok[i].in, out, sizeof out), PG_OK, "%s", ok[i].in);
    cr_expect_str_eq(out, ok[i].out, "case %zu", i);
  }
  static const char *const bad[] = {
    "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"", "\"\\uZZZZ\"", "\"\\", "\"abc", "\"\\u", "\"\\ud800\\u12\"",
    "'single'", "1", "null", "[\"nested\"]",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char out[256];
    cr_expect_eq(one_string(bad[i], out, sizeof out), PG_INPUT, "%s", bad[i]);
  }
}

static pg_code parse_doc(const char *doc_body) {
  char buf[4096];
  snprintf(buf, sizeof buf, "{\"documents\":[{%s}],\"strings\":[\"a\",\"b\"]}", doc_body);
  pg_snapshot *s = NULL;
  pg_code rc = parse(buf, &s);
  pg_snapshot_free(s);
  return rc;
}

Test(snapshot, numbers_and_types) {
  static const char *const ok[] = {
    "\"nodes\":{\"parentIndex\":[-1,0,2147483647,-2147483648]}",
    "\"nodes\":{\"parentIndex\":[1.5, 2e0, -0, 0.0]}",   /* cut toward zero, as cJSON's valueint */
    "\"scrollOffsetX\":1e300,\"scrollOffsetY\":-1.5e-3,\"contentWidth\":1e-400",
    "\"documentURL\":0, \"title\" : 1 ,\"frameId\":\n-1",
    "\"nodes\":{\"attributes\":[[],[0,1],[0]]}",         /* an odd entry is kept; readers take pairs */
    "\"layout\":{\"styles\":[[],[0],[0,1,0],[1]],\"bounds\":[[],[1,2,3,4,5]],\"clientRects\":[]}",
    "\"nodes\":{\"isClickable\":{\"index\":[0]},\"textValue\":{\"index\":[],\"value\":[]}}",
    "\"unknown\":{\"a\":[true,false,null,\"s\\\"\",-1.5e3,{},[]],\"b\":{\"c\":{}}}",
    "\"nodes\":{\"pseudoType\":{\"index\":[1],\"value\":[\"x\"]},\"parentIndex\":[]}",
    "\"documentURL\":0,\"documentURL\":\"second one is skipped\"",
  };
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) cr_expect_eq(parse_doc(ok[i]), PG_OK, "%s", ok[i]);
  static const char *const bad[] = {
    "\"nodes\":{\"parentIndex\":[2147483648]}",
    "\"nodes\":{\"parentIndex\":[-2147483649]}",
    "\"nodes\":{\"parentIndex\":[1e10]}",
    "\"nodes\":{\"parentIndex\":[99999999999999999999]}",
    "\"nodes\":{\"parentIndex\":[01]}",
    "\"nodes\":{\"parentIndex\":[1.]}",
    "\"nodes\":{\"parentIndex\":[.5]}",
    "\"nodes\":{\"parentIndex\":[+1]}",
    "\"nodes\":{\"parentIndex\":[1,]}",
    "\"nodes\":{\"parentIndex\":[,1]}",
    "\"nodes\":{\"parentIndex\":[1 2]}",
    "\"nodes\":{\"parentIndex\":[\"x\"]}",
    "\"nodes\":{\"parentIndex\":[true]}",
    "\"nodes\":{\"parentIndex\":[null]}",
    "\"nodes\":{\"parentIndex\":\"x\"}",
    "\"nodes\":{\"parentIndex\":{}}",
    "\"nodes\":[]",
    "\"nodes\":{\"attributes\":[1]}",
    "\"nodes\":{\"attributes\":[[\"x\"]]}",
    "\"nodes\":{\"shadowRootType\":[1]}",
    "\"nodes\":{\"shadowRootType\":{\"index\":[\"x\"]}}",
    "\"documentURL\":\"x\"",
    "\"documentURL\":null",
    "\"scrollOffsetX\":\"1\"",
    "\"scrollOffsetX\":1e400",                          /* no double holds it */
    "\"layout\":{\"bounds\":[[0,0,-1e309,1]]}",
    "\"layout\":{\"bounds\":[[1,\"a\"]]}",
    "\"layout\":{\"bounds\":[1]}",
    "\"layout\":{\"styles\":[[0.5e99]]}",
    "\"layout\":[]",
    "\"unknown\":[1,2",
    "\"unknown\":tru",
    "\"unknown\":{\"a\"}",
    "\"unknown\":{1:2}",
    "\"unknown\":[}",
    "\"unknown\":-",
    "\"unknown\":1e",
    "\"unknown\":\"\\",
    "\"a\" \"b\"",
    "\"a\":1,",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) cr_expect_eq(parse_doc(bad[i]), PG_INPUT, "%s", bad[i]);
}

Test(snapshot, document_values) {
  pg_snapshot *s = NULL;
  cr_assert_eq(parse("{\"documents\":[{\"documentURL\":1,\"scrollOffsetX\":12.5,\"scrollOffsetY\":-0.1,"
                     "\"contentWidth\":1280,\"contentHeight\":1e3,\"nodes\":{\"parentIndex\":[1.9,-1.9]},"
                     "\"layout\":{\"styles\":[[],[0],[0,1,0]]}}],\"strings\":[\"a\",\"b\"]}", &s), PG_OK);
  const pg__snap_doc *d = &s->docs[0];
  cr_expect_str_eq(pg__snapshot_str(s, d->document_url), "b");
  cr_expect_eq(d->title, -1);
  cr_expect(d->scroll_x == 12.5 && d->scroll_y == -0.1 && d->content_width == 1280 && d->content_height == 1000);
  cr_expect(d->parent[0] == 1 && d->parent[1] == -1);
  /* styles of different lengths: the longest sets the stride, the rest is -1 */
  cr_expect_eq(d->style_stride, 3);
  cr_expect_eq(d->nstyles, 3);
  static const int32_t want[] = {-1, -1, -1, 0, -1, -1, 0, 1, 0};
  for (int i = 0; i < 9; i++) cr_expect_eq(d->styles[i], want[i], "styles[%d]", i);
  pg_snapshot_free(s);
}

Test(snapshot, top_level) {
  static const struct { const char *in; pg_code rc; } cases[] = {
    {"{\"documents\":[],\"strings\":[]}", PG_OK},
    {" \n{\"strings\":[],\"documents\":[]}\t\r\n", PG_OK},
    {"{\"id\":3,\"result\":{\"documents\":[],\"strings\":[]},\"sessionId\":\"S\"}", PG_OK},
    {"{\"documents\":[]}", PG_INPUT},
    {"{\"strings\":[]}", PG_INPUT},
    {"{\"id\":3,\"error\":{\"code\":-32000,\"message\":\"no\"}}", PG_INPUT},
    {"{\"result\":{\"result\":{\"documents\":[],\"strings\":[]}}}", PG_INPUT},
    {"{\"documents\":{},\"strings\":[]}", PG_INPUT},
    {"{\"documents\":[1],\"strings\":[]}", PG_INPUT},
    {"{\"documents\":[],\"strings\":[]}x", PG_INPUT},
    {"{\"documents\":[],\"strings\":[]}{}", PG_INPUT},
    {"[]", PG_INPUT},
    {"", PG_INPUT},
    {"   ", PG_INPUT},
    {"{", PG_INPUT},
    {"{\"documents\":[],\"strings\":[]", PG_INPUT},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    pg_snapshot *s = NULL;
    cr_expect_eq(parse(cases[i].in, &s), cases[i].rc, "%s", cases[i].in);
    cr_expect((cases[i].rc == PG_OK) == (s != NULL));
    pg_snapshot_free(s);
  }
  pg_snapshot *s = (pg_snapshot *)1;
  cr_expect_eq(pg_snapshot_parse(NULL, 0, &s), PG_INPUT);
  cr_expect_null(s);
  pg_snapshot_free(NULL);
  cr_expect_eq(pg_snapshot_node_count(NULL), 0);
}

/* 10,000 levels of [[[... and {"a":{"a":... wherever a value can go. */
Test(snapshot, deep_nesting) {
  enum { DEPTH = 10000 };
  static const char *const where[] = {
    "{\"x\":%s,\"documents\":[],\"strings\":[]}",
    "{\"documents\":[{\"x\":%s}],\"strings\":[]}",
    "{\"documents\":[{\"nodes\":{\"x\":%s}}],\"strings\":[]}",
    "{\"documents\":[{\"nodes\":{\"attributes\":%s}}],\"strings\":[]}",
    "{\"documents\":[{\"layout\":{\"bounds\":%s}}],\"strings\":[]}",
    "{\"documents\":%s,\"strings\":[]}",
    "{\"result\":%s}",
  };
  char *arr = malloc(2 * DEPTH + 1), *obj = malloc(6 * DEPTH + 2);
  for (int i = 0; i < DEPTH; i++) arr[i] = '[', arr[DEPTH + i] = ']';
  arr[2 * DEPTH] = 0;
  size_t o = 0;
  for (int i = 0; i < DEPTH; i++) memcpy(obj + o, "{\"a\":", 5), o += 5;
  obj[o++] = '1';
  for (int i = 0; i < DEPTH; i++) obj[o++] = '}';
  obj[o] = 0;
  const char *vals[] = {arr, obj};
  for (size_t w = 0; w < sizeof where / sizeof *where; w++)
    for (int v = 0; v < 2; v++) {
      size_t n = strlen(where[w]) + strlen(vals[v]);
      char *buf = malloc(n);
      snprintf(buf, n, where[w], vals[v]);
      pg_snapshot *s = NULL;
      cr_expect_eq(parse(buf, &s), PG_INPUT, "case %zu/%d", w, v);
      free(buf);
    }
  /* shallow nesting in an unknown key is fine */
  pg_snapshot *s = NULL;
  cr_expect_eq(parse("{\"x\":[[[[[[[[[[{\"a\":[[[{}]]]}]]]]]]]]]],\"documents\":[],\"strings\":[]}", &s), PG_OK);
  pg_snapshot_free(s);
  free(arr);
  free(obj);
}

/* Byte flips of the recorded reply: whatever parses must build, and nothing
 * may crash. A fixed seed keeps it repeatable. */
Test(snapshot, mutations_never_crash) {
  size_t len;
  char *text = recorded(&len);
  unsigned long long x = 0x9E3779B97F4A7C15ull;
  static const char pool[] = "[]{},:\"\\0123456789-.eE ux";
  int parsed = 0;
  for (int round = 0; round < 3000; round++) {
    char *m = malloc(len);
    memcpy(m, text, len);
    int flips = 1 + round % 4;
    for (int f = 0; f < flips; f++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      size_t at = (size_t)(x % len);
      m[at] = (x >> 32) & 1 ? pool[(x >> 40) % (sizeof pool - 1)] : (char)(x >> 48);
    }
    pg_snapshot *s = NULL;
    if (pg_snapshot_parse(m, len, &s) == PG_OK) {
      parsed++;
      pg_input in = {.snapshot = s};
      pg_graph *g = NULL;
      pg_options o = {.revision = 1, .include_hidden = round & 1, .include_non_interactive = round & 2};
      if (pg_build(&in, &o, &g) == PG_OK) pg_graph_free(g);
      pg_snapshot_free(s);
    }
    free(m);
  }
  cr_log_info("%d of 3000 mutants parsed", parsed);
  free(text);
}

/* ---- data-uiap-risk: one reading, graph and policy ----------------------- */
/* The recorded reply with data-uiap-risk=value (NULL: none) on its submit
 * button ("Send"), built into a graph; *send is that button's element. */
static pg_graph *graph_with_risk(const char *value, pg_snapshot **snap, const pg_element **send) {
  size_t len;
  char *text = recorded(&len);
  cJSON *root = cJSON_ParseWithLength(text, len);
  free(text);
  cJSON *res = cJSON_GetObjectItem(root, "result");
  cJSON *strings = cJSON_GetObjectItem(res, "strings");
  cJSON *nodes = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(res, "documents"), 0), "nodes");
  cJSON *names = cJSON_GetObjectItem(nodes, "nodeName"), *attrs = cJSON_GetObjectItem(nodes, "attributes");
  cJSON *button = NULL;
  for (int i = 0; i < cJSON_GetArraySize(names) && !button; i++) {
    cJSON *a = cJSON_GetArrayItem(attrs, i);
    const char *nm = cJSON_GetStringValue(cJSON_GetArrayItem(strings, cJSON_GetArrayItem(names, i)->valueint));
    if (nm && !strcmp(nm, "BUTTON") && cJSON_GetArraySize(a) == 2 &&
        !strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(strings, cJSON_GetArrayItem(a, 1)->valueint)), "submit"))
      button = a;
  }
  cr_assert(button, "the recorded reply has its submit button");
  if (value) {
    int k = cJSON_GetArraySize(strings);
    cJSON_AddItemToArray(strings, cJSON_CreateString("data-uiap-risk"));
    cJSON_AddItemToArray(strings, cJSON_CreateString(value));
    cJSON_AddItemToArray(button, cJSON_CreateNumber(k));
    cJSON_AddItemToArray(button, cJSON_CreateNumber(k + 1));
  }
  text = cJSON_PrintUnformatted(root);
  cJSON_Delete(root);
  cr_assert_eq(parse(text, snap), PG_OK);
  free(text);
  pg_input in = {.snapshot = *snap};
  pg_options o = {.revision = 1};
  pg_graph *g = NULL;
  cr_assert_eq(pg_build(&in, &o, &g), PG_OK);
  *send = NULL;
  for (size_t i = 0; i < g->nelements; i++)
    if (g->elements[i].name && !strcmp(g->elements[i].name, "Send")) *send = &g->elements[i];
  cr_assert(*send, "the submit button is published");
  return g;
}

/* RiskDescriptor.level the graph's JSON publishes for element e, or NULL. */
static char *published_level(const pg_graph *g, const pg_element *e) {
  cJSON *j = pg_graph_to_json(g), *it;
  char *level = NULL;
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(j, "elements")) {
    if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(it, "instanceId")), e->instance_id)) continue;
    const char *l = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(it, "risk"), "level"));
    if (l) level = strdup(l);
  }
  cJSON_Delete(j);
  return level;
}

Test(snapshot, risk_attribute_means_the_same_to_graph_and_policy) {
  char safe_then_more[128], padded_blocked[512];
  snprintf(safe_then_more, sizeof safe_then_more, "safe%*sx", 100, ""); /* longer than the cap */
  snprintf(padded_blocked, sizeof padded_blocked, "%*sblocked%*s", 200, "", 200, "");
  static const char *const names[] = {[POL_RISK_NONE] = NULL, [POL_RISK_SAFE] = "safe",
                                      [POL_RISK_CONFIRM] = "confirm", [POL_RISK_BLOCKED] = "blocked"};
  const struct {
    const char *value;
    pol_risk_level want;
  } cases[] = {
    {" Blocked ", POL_RISK_BLOCKED},  {"BLOCKED", POL_RISK_BLOCKED},
    {"\tblocked\n", POL_RISK_BLOCKED}, {padded_blocked, POL_RISK_BLOCKED},
    {"confirm", POL_RISK_CONFIRM},    {"safe", POL_RISK_SAFE},
    {" Safe", POL_RISK_SAFE},         {"bogus", POL_RISK_CONFIRM},
    {"", POL_RISK_CONFIRM},           {safe_then_more, POL_RISK_CONFIRM},
    {NULL, POL_RISK_NONE},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *v = cases[i].value, *want = names[cases[i].want];
    char label[48];
    snprintf(label, sizeof label, "case %zu %s%.24s%s", i, v ? "\"" : "", v ? v : "(absent)", v ? "\"" : "");
    pg_snapshot *s = NULL;
    const pg_element *e = NULL;
    pg_graph *g = graph_with_risk(v, &s, &e);
    cr_expect(!e->risk_attr || strlen(e->risk_attr) <= PG_RISK_ATTR_MAX, "%s: kept capped", label);
    /* what the graph publishes */
    char *level = published_level(g, e);
    if (want) cr_expect(level && !strcmp(level, want), "%s: published %s, want %s", label, level, want);
    else cr_expect_null(level, "%s: no risk published", label);
    free(level);
    /* what the policy makes of the element, filled as the crawler does */
    pol_subject sub = {.role = e->role, .name = e->name, .tag = e->tag, .input_type = e->input_type,
                       .href = e->href, .form_method = e->form_method, .is_submit = e->is_submit,
                       .risk = e->risk_attr, .page_origin = "http://127.0.0.1:8931"};
    pol_classification c;
    pol_decision d;
    cr_assert_eq(pol_classify(&sub, &c), POL_OK);
    cr_assert_eq(pol_decide(NULL, &sub, &c, &d), POL_OK);
    cr_expect_eq(c.risk, cases[i].want, "%s: the policy reads %d, want %d", label, c.risk, cases[i].want);
    if (cases[i].want == POL_RISK_BLOCKED)
      cr_expect(!strcmp(c.rule, "annotation.risk.blocked") && d.effect == POL_EFFECT_DENY,
                "%s: never executed (%s, %s)", label, c.rule, pol_effect_name(d.effect));
    if (!v) cr_expect(strncmp(c.rule, "annotation.risk", 15), "%s: no annotation rule (%s)", label, c.rule);
    pg_graph_free(g);
    pg_snapshot_free(s);
  }
}

/* fuzz_snapshot.c -- libFuzzer target for pg_snapshot_parse, the reader of
 * the DOMSnapshot.captureSnapshot reply (untrusted: page content), and for
 * pg_build on whatever it accepts.
 *
 *   CC=clang cmake -S . -B build-fuzz -DUIAP_FUZZ=ON && cmake --build build-fuzz --target fuzz_snapshot
 *   build-fuzz/tests/fuzz/fuzz_snapshot -dict=tests/fuzz/snapshot.dict \
 *       -max_total_time=300 new-corpus/ tests/fuzz/corpus/snapshot/
 *
 * Besides "no crash, no leak, no undefined behaviour" it checks what the
 * parser promises: offsets in range, every string NUL-terminated and valid
 * UTF-8, arrays as long as their counts say (ASan checks the reads). */
#include "pg_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x) do { if (!(x)) abort(); } while (0)

/* 1 if s[0..n) is valid UTF-8 (no surrogates, nothing above U+10FFFF). */
static int valid_utf8(const unsigned char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    unsigned char b = s[i];
    size_t need;
    unsigned lo = 0x80, hi = 0xBF;
    if (b < 0x80) { i++; continue; }
    if (b >= 0xC2 && b <= 0xDF) need = 1;
    else if (b >= 0xE0 && b <= 0xEF) { need = 2; if (b == 0xE0) lo = 0xA0; if (b == 0xED) hi = 0x9F; }
    else if (b >= 0xF0 && b <= 0xF4) { need = 3; if (b == 0xF0) lo = 0x90; if (b == 0xF4) hi = 0x8F; }
    else return 0;
    if (n - i - 1 < need) return 0;
    for (size_t k = 1; k <= need; k++) {
      unsigned c = s[i + k];
      if (k == 1 ? (c < lo || c > hi) : (c < 0x80 || c > 0xBF)) return 0;
    }
    i += need + 1;
  }
  return 1;
}

static int64_t touch_i32(const int32_t *v, size_t n) {
  int64_t sum = 0;
  for (size_t i = 0; i < n; i++) sum += v[i];
  return sum;
}

static void check(const pg_snapshot *s) {
  CHECK(valid_utf8((const unsigned char *)s->text, s->text_len));
  for (size_t i = 0; i < s->nstrings; i++) {
    CHECK(s->str_off[i] < s->text_len);
    CHECK(memchr(s->text + s->str_off[i], 0, s->text_len - s->str_off[i]) != NULL);
  }
  CHECK(s->text_len == 0 || s->text[s->text_len - 1] == 0);
  volatile int64_t sink = 0;
  for (size_t d = 0; d < s->ndocs; d++) {
    const pg__snap_doc *x = &s->docs[d];
    sink += touch_i32(x->parent, x->nparent) + touch_i32(x->type, x->ntype) + touch_i32(x->name, x->nname) +
            touch_i32(x->value, x->nvalue) + touch_i32(x->backend, x->nbackend);
    if (x->nattr_nodes) {
      CHECK(x->attr_off[0] == 0);
      for (size_t i = 0; i < x->nattr_nodes; i++) CHECK(x->attr_off[i] <= x->attr_off[i + 1]);
      sink += touch_i32(x->attr, x->attr_off[x->nattr_nodes]);
    }
    const pg__snap_sparse *sp[] = {&x->shadow_root_type, &x->text_value, &x->input_value, &x->input_checked,
                                   &x->option_selected, &x->content_document_index, &x->is_clickable};
    for (size_t k = 0; k < sizeof sp / sizeof *sp; k++)
      sink += touch_i32(sp[k]->index, sp[k]->nindex) + touch_i32(sp[k]->value, sp[k]->nvalue);
    sink += touch_i32(x->layout_node, x->nlayout_node) + touch_i32(x->paint, x->npaint);
    CHECK(x->style_stride >= 0 && x->style_stride <= 64);
    sink += touch_i32(x->styles, x->nstyles * (size_t)x->style_stride);
    for (size_t i = 0; i < 4 * x->nbounds; i++) sink += (int64_t)(x->bounds[i] != 0);
    for (size_t i = 0; i < 4 * x->nclient_rects; i++) sink += (int64_t)(x->client_rects[i] != 0);
  }
  (void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pg_snapshot *s = NULL;
  pg_code rc = pg_snapshot_parse((const char *)data, size, &s);
  CHECK((rc == PG_OK) == (s != NULL));
  CHECK(rc == PG_OK || rc == PG_INPUT);
  if (!s) return 0;
  check(s);
  /* the builder must take any snapshot the parser accepts */
  pg_input in = {.snapshot = s};
  pg_options o = {.revision = 1, .include_hidden = size & 1, .include_non_interactive = size >> 1 & 1,
                  .max_nodes = size >> 2 & 1 ? 3 : 0};
  pg_graph *g = NULL;
  if (pg_build(&in, &o, &g) == PG_OK) {
    cJSON *j = pg_graph_to_json(g);
    char *t = pg_graph_to_text(g);
    cJSON_Delete(j);
    free(t);
    pg_graph_free(g);
  }
  pg_snapshot_free(s);
  return 0;
}

/* crawler_mask.c -- boxes painted over a PNG (crawler/run/mask.c), as
 * screenshots are written: every pixel of a mask box is black in the file,
 * the others are as they were, whatever colour type and row filters the
 * PNG came with; a PNG this cannot read gives an error and no output, so
 * the crawler writes no screenshot. The PNGs are made here with zlib. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "run_int.h"

typedef struct { unsigned char *p; size_t n, cap; } bytes;

static void put(bytes *b, const void *s, size_t n) {
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2 + 64;
    b->p = realloc(b->p, b->cap);
    cr_assert(b->p);
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
}
static void put32(bytes *b, uint32_t v) {
  unsigned char c[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16), (unsigned char)(v >> 8), (unsigned char)v};
  put(b, c, 4);
}
static void chunk(bytes *b, const char *type, const unsigned char *d, size_t n) {
  put32(b, (uint32_t)n);
  put(b, type, 4);
  if (n) put(b, d, n);
  uLong crc = crc32(crc32(0, Z_NULL, 0), (const Bytef *)type, 4);
  if (n) crc = crc32(crc, d, (uInt)n);
  put32(b, (uint32_t)crc);
}

static int paeth(int a, int b, int c) {
  int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* A PNG of w x h pixels of ctype (channels bytes each, given as px, rows
 * packed), row y filtered with filter y % 5; depth and interlace as given
 * (to make ones mask.c must refuse). */
static bytes make_png(const unsigned char *px, uint32_t w, uint32_t h, int ctype, int channels, int depth, int interlace,
                      const unsigned char *plte, int nplte, const unsigned char *trns, int ntrns) {
  size_t stride = (size_t)w * (size_t)channels;
  unsigned char *raw = malloc((stride + 1) * h);
  for (uint32_t y = 0; y < h; y++) {
    const unsigned char *row = px + y * stride, *prev = y ? px + (y - 1) * stride : NULL;
    unsigned char *o = raw + y * (stride + 1);
    int ft = (int)(y % 5);
    o[0] = (unsigned char)ft;
    for (size_t i = 0; i < stride; i++) {
      int a = i >= (size_t)channels ? row[i - channels] : 0, b = prev ? prev[i] : 0,
          c = prev && i >= (size_t)channels ? prev[i - channels] : 0;
      int pred = ft == 1 ? a : ft == 2 ? b : ft == 3 ? (a + b) / 2 : ft == 4 ? paeth(a, b, c) : 0;
      o[1 + i] = (unsigned char)(row[i] - pred);
    }
  }
  uLongf zl = compressBound((uLong)((stride + 1) * h));
  unsigned char *z = malloc(zl);
  cr_assert_eq(compress(z, &zl, raw, (uLong)((stride + 1) * h)), Z_OK);
  free(raw);
  bytes b = {0};
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  put(&b, sig, 8);
  unsigned char ihdr[13] = {0};
  for (int k = 0; k < 4; k++) ihdr[k] = (unsigned char)(w >> (24 - 8 * k)), ihdr[4 + k] = (unsigned char)(h >> (24 - 8 * k));
  ihdr[8] = (unsigned char)depth, ihdr[9] = (unsigned char)ctype, ihdr[12] = (unsigned char)interlace;
  chunk(&b, "IHDR", ihdr, 13);
  if (plte) chunk(&b, "PLTE", plte, (size_t)nplte * 3);
  if (trns) chunk(&b, "tRNS", trns, (size_t)ntrns);
  /* the data in two IDAT chunks, as encoders split it */
  chunk(&b, "IDAT", z, zl / 2);
  chunk(&b, "IDAT", z + zl / 2, zl - zl / 2);
  chunk(&b, "IEND", NULL, 0);
  free(z);
  return b;
}

/* Decode what mask.c writes (8-bit RGB or RGBA, filter none) into RGBA. */
static unsigned char *read_back(const unsigned char *png, size_t len, uint32_t *w, uint32_t *h) {
  cr_assert_geq(len, 33u);
  *w = (uint32_t)png[16] << 24 | (uint32_t)png[17] << 16 | (uint32_t)png[18] << 8 | png[19];
  *h = (uint32_t)png[20] << 24 | (uint32_t)png[21] << 16 | (uint32_t)png[22] << 8 | png[23];
  int ch = png[25] == 6 ? 4 : 3;
  cr_assert(png[25] == 6 || png[25] == 2, "colour type %d", png[25]);
  bytes z = {0};
  for (size_t pos = 8; pos + 12 <= len;) {
    uint32_t n = (uint32_t)png[pos] << 24 | (uint32_t)png[pos + 1] << 16 | (uint32_t)png[pos + 2] << 8 | png[pos + 3];
    if (!memcmp(png + pos + 4, "IDAT", 4)) put(&z, png + pos + 8, n);
    pos += 12 + n;
  }
  size_t stride = (size_t)*w * (size_t)ch;
  uLongf rl = (uLongf)((stride + 1) * *h);
  unsigned char *raw = malloc(rl), *out = malloc((size_t)*w * *h * 4);
  cr_assert_eq(uncompress(raw, &rl, z.p, (uLong)z.n), Z_OK);
  for (uint32_t y = 0; y < *h; y++) {
    cr_assert_eq(raw[y * (stride + 1)], 0, "filter none");
    for (uint32_t x = 0; x < *w; x++) {
      const unsigned char *p = raw + y * (stride + 1) + 1 + x * (size_t)ch;
      unsigned char *o = out + ((size_t)y * *w + x) * 4;
      o[0] = p[0], o[1] = p[1], o[2] = p[2], o[3] = ch == 4 ? p[3] : 255;
    }
  }
  free(raw);
  free(z.p);
  return out;
}

#define W 40
#define H 30

/* An image in ctype: a gradient, so that the filters have work to do. */
static void gradient(unsigned char *px, int ctype, int channels) {
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      unsigned char *p = px + ((size_t)y * W + (size_t)x) * (size_t)channels;
      unsigned char v = (unsigned char)(100 + x * 3 + y);
      if (ctype == 3) p[0] = (unsigned char)((x + y) % 4);
      else for (int c = 0; c < channels; c++) p[c] = (unsigned char)(v + 20 * c);
      if (ctype == 4 || ctype == 6) p[channels - 1] = 200;
    }
}

static void expect_masked(int ctype, int channels) {
  unsigned char px[W * H * 4];
  gradient(px, ctype, channels);
  static const unsigned char plte[12] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 0}, trns[4] = {255, 255, 255, 128};
  bytes in = make_png(px, W, H, ctype, channels, 8, 0, ctype == 3 ? plte : NULL, 4, ctype == 3 ? trns : NULL, 4);
  /* the viewport is 20 x 15 CSS px: two image pixels per CSS px */
  const pg_rect rects[] = {{5, 2.5, 5, 5}, {-3, 12, 4, 10}, {1, 1, 0, 9}};
  unsigned char *out = NULL;
  size_t outlen = 0;
  char err[200] = "";
  cr_assert_eq(crawl__png_mask(in.p, in.n, rects, 3, 20, 15, &out, &outlen, err, sizeof err), 0, "type %d: %s", ctype, err);
  uint32_t w, h;
  unsigned char *got = read_back(out, outlen, &w, &h);
  cr_assert(w == W && h == H);
  for (uint32_t y = 0; y < H; y++)
    for (uint32_t x = 0; x < W; x++) {
      const unsigned char *g = got + ((size_t)y * W + x) * 4;
      /* box 1: x 10..20, y 5..15 in image px, one more pixel around;
       * box 2: off the left edge, x 0..2+1, y 24..30; box 3 is empty */
      int in1 = x >= 9 && x < 21 && y >= 4 && y < 16, in2 = x < 3 && y >= 23;
      if (in1 || in2) {
        cr_expect(g[0] == 0 && g[1] == 0 && g[2] == 0 && g[3] == 255, "type %d: (%u, %u) is black: %d %d %d %d", ctype,
                  x, y, g[0], g[1], g[2], g[3]);
        continue;
      }
      /* the pixel as it was */
      const unsigned char *p = px + ((size_t)y * W + x) * (size_t)channels;
      unsigned char r, gr, b, a = 255;
      if (ctype == 3) r = plte[3 * p[0]], gr = plte[3 * p[0] + 1], b = plte[3 * p[0] + 2], a = trns[p[0]];
      else if (channels <= 2) r = gr = b = p[0], a = channels == 2 ? p[1] : 255;
      else r = p[0], gr = p[1], b = p[2], a = channels == 4 ? p[3] : 255;
      cr_expect(g[0] == r && g[1] == gr && g[2] == b && g[3] == a, "type %d: (%u, %u) unchanged", ctype, x, y);
      if (g[0] != r) return;
    }
  free(got);
  free(out);
  free(in.p);
}

Test(mask, paints_boxes_in_every_colour_type) {
  expect_masked(6, 4);
  expect_masked(2, 3);
  expect_masked(0, 1);
  expect_masked(4, 2);
  expect_masked(3, 1);
}

Test(mask, a_png_it_cannot_read_gives_nothing) {
  unsigned char px[W * H * 4];
  gradient(px, 6, 4);
  const pg_rect r = {0, 0, 5, 5};
  struct { const char *what; bytes png; double vw; } cs[5];
  cs[0].what = "16-bit", cs[0].png = make_png(px, W / 2, H, 6, 8, 16, 0, NULL, 0, NULL, 0), cs[0].vw = 20;
  cs[1].what = "interlaced", cs[1].png = make_png(px, W, H, 6, 4, 8, 1, NULL, 0, NULL, 0), cs[1].vw = 20;
  cs[2].what = "a broken CRC", cs[2].png = make_png(px, W, H, 6, 4, 8, 0, NULL, 0, NULL, 0), cs[2].vw = 20;
  cs[2].png.p[45] ^= 1; /* inside the first IDAT's data */
  cs[3].what = "cut off", cs[3].png = make_png(px, W, H, 6, 4, 8, 0, NULL, 0, NULL, 0), cs[3].vw = 20;
  cs[3].png.n -= 20;
  cs[4].what = "no viewport size", cs[4].png = make_png(px, W, H, 6, 4, 8, 0, NULL, 0, NULL, 0), cs[4].vw = 0;
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
    unsigned char *out = (unsigned char *)"x";
    size_t outlen = 1;
    char err[200] = "";
    cr_expect_eq(crawl__png_mask(cs[i].png.p, cs[i].png.n, &r, 1, cs[i].vw, 15, &out, &outlen, err, sizeof err), -1,
                 "%s is refused", cs[i].what);
    cr_expect(out == NULL && outlen == 0, "%s: no output", cs[i].what);
    cr_expect(err[0], "%s: says why", cs[i].what);
    free(cs[i].png.p);
  }
  unsigned char *out = NULL;
  size_t outlen = 0;
  char err[200] = "";
  cr_expect_eq(crawl__png_mask((const unsigned char *)"GIF89a", 6, &r, 1, 20, 15, &out, &outlen, err, sizeof err), -1);
  cr_expect_str_eq(err, "not a PNG");
}

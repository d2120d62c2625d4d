/* mask.c -- paint boxes over a PNG: what a screenshot must not show
 * (pg_graph.masks) becomes solid black before the file is written.
 *
 * The PNG is Chromium's (Page.captureScreenshot): 8-bit greyscale, RGB,
 * palette, grey+alpha or RGBA, not interlaced. It is decoded (zlib inflate,
 * the five row filters), the boxes are filled, and it is written again as
 * RGB or RGBA (filter none, zlib). Anything else -- another bit depth,
 * interlacing, a broken chunk, a CRC that does not match, sizes past the
 * caps -- is an error: the caller writes no screenshot (fail closed).
 * Nothing here is specific to a browser: the tests feed it PNGs they make.
 */
#include "run_int.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define PNG_MAX_SIDE 32768
#define PNG_MAX_RAW ((size_t)512 << 20) /* decoded bytes */

static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static void put32(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

typedef struct {
  uint32_t w, h;
  int ctype;                  /* 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA */
  int channels;               /* bytes per pixel as stored */
  unsigned char plte[768];    /* palette: RGB triples */
  unsigned char trns[256];    /* palette alpha */
  int nplte, ntrns;
  unsigned char *idat;        /* the IDAT chunks, joined */
  size_t nidat;
} png_in;

static int fail(char *err, size_t errlen, const char *msg) {
  if (err && errlen) snprintf(err, errlen, "%s", msg);
  return -1;
}

/* The chunks of png into *in. */
static int read_chunks(const unsigned char *png, size_t len, png_in *in, char *err, size_t errlen) {
  if (len < 8 || memcmp(png, png_sig, 8)) return fail(err, errlen, "not a PNG");
  int have_ihdr = 0, have_end = 0;
  size_t cap = 0;
  for (size_t pos = 8; pos < len && !have_end;) {
    if (len - pos < 12) return fail(err, errlen, "PNG: a chunk is cut off");
    uint32_t n = be32(png + pos);
    const unsigned char *type = png + pos + 4, *data = png + pos + 8;
    if (n > len - pos - 12) return fail(err, errlen, "PNG: a chunk is cut off");
    if (crc32(crc32(0L, Z_NULL, 0), type, n + 4) != be32(data + n)) return fail(err, errlen, "PNG: a chunk's CRC is wrong");
    if (!memcmp(type, "IHDR", 4)) {
      if (n != 13) return fail(err, errlen, "PNG: bad IHDR");
      in->w = be32(data), in->h = be32(data + 4);
      int depth = data[8];
      in->ctype = data[9];
      static const int channels[7] = {1, 0, 3, 1, 2, 0, 4};
      if (in->ctype > 6 || !channels[in->ctype] || depth != 8)
        return fail(err, errlen, "PNG: not 8-bit grey, RGB, palette, grey+alpha or RGBA");
      if (data[10] || data[11] || data[12]) return fail(err, errlen, "PNG: interlaced or an unknown method");
      if (!in->w || !in->h || in->w > PNG_MAX_SIDE || in->h > PNG_MAX_SIDE) return fail(err, errlen, "PNG: size out of range");
      in->channels = channels[in->ctype];
      have_ihdr = 1;
    } else if (!memcmp(type, "PLTE", 4)) {
      if (n % 3 || n > 768) return fail(err, errlen, "PNG: bad palette");
      memcpy(in->plte, data, n);
      in->nplte = (int)(n / 3);
    } else if (!memcmp(type, "tRNS", 4)) {
      if (in->ctype == 3 && n <= 256) memcpy(in->trns, data, n), in->ntrns = (int)n;
    } else if (!memcmp(type, "IDAT", 4)) {
      if (in->nidat + n > cap) {
        cap = (in->nidat + n) * 2;
        in->idat = crawl__xrealloc(in->idat, cap);
      }
      memcpy(in->idat + in->nidat, data, n);
      in->nidat += n;
    } else if (!memcmp(type, "IEND", 4)) {
      have_end = 1;
    }
    pos += 12 + (size_t)n;
  }
  if (!have_ihdr || !in->nidat) return fail(err, errlen, "PNG: no image data");
  if (in->ctype == 3 && !in->nplte) return fail(err, errlen, "PNG: palette image without a palette");
  return 0;
}

static int paeth(int a, int b, int c) {
  int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Undo the row filters of raw (h rows of 1 + stride bytes) in place. */
static int unfilter(unsigned char *raw, uint32_t h, size_t stride, int bpp) {
  unsigned char *prev = NULL;
  for (uint32_t y = 0; y < h; y++) {
    unsigned char *row = raw + (size_t)y * (stride + 1), ft = row[0], *px = row + 1;
    for (size_t i = 0; i < stride; i++) {
      int a = i >= (size_t)bpp ? px[i - bpp] : 0, b = prev ? prev[i] : 0, c = prev && i >= (size_t)bpp ? prev[i - bpp] : 0;
      switch (ft) {
      case 0: break;
      case 1: px[i] = (unsigned char)(px[i] + a); break;
      case 2: px[i] = (unsigned char)(px[i] + b); break;
      case 3: px[i] = (unsigned char)(px[i] + (a + b) / 2); break;
      case 4: px[i] = (unsigned char)(px[i] + paeth(a, b, c)); break;
      default: return -1;
      }
    }
    prev = px;
  }
  return 0;
}

/* The image as out_channels (3 or 4) bytes per pixel, rows packed. */
static unsigned char *to_rgb(const png_in *in, const unsigned char *raw, int out_channels) {
  size_t stride = (size_t)in->w * (size_t)in->channels;
  unsigned char *img = crawl__xmalloc((size_t)in->w * in->h * (size_t)out_channels);
  for (uint32_t y = 0; y < in->h; y++) {
    const unsigned char *px = raw + (size_t)y * (stride + 1) + 1;
    unsigned char *o = img + (size_t)y * in->w * (size_t)out_channels;
    for (uint32_t x = 0; x < in->w; x++, o += out_channels) {
      const unsigned char *p = px + (size_t)x * (size_t)in->channels;
      unsigned char r, g, b, a = 255;
      switch (in->ctype) {
      case 0: r = g = b = p[0]; break;
      case 4: r = g = b = p[0], a = p[1]; break;
      case 2: r = p[0], g = p[1], b = p[2]; break;
      case 6: r = p[0], g = p[1], b = p[2], a = p[3]; break;
      default: { /* palette: an index past the palette reads as black */
        int k = p[0];
        r = k < in->nplte ? in->plte[3 * k] : 0, g = k < in->nplte ? in->plte[3 * k + 1] : 0;
        b = k < in->nplte ? in->plte[3 * k + 2] : 0, a = k < in->ntrns ? in->trns[k] : 255;
      }
      }
      o[0] = r, o[1] = g, o[2] = b;
      if (out_channels == 4) o[3] = a;
    }
  }
  return img;
}

/* Fill each rect (CSS px; scaled by sx, sy to image px; widened to whole
 * pixels, and by one pixel on every side for antialiased edges) with
 * opaque black. */
static void paint(unsigned char *img, uint32_t w, uint32_t h, int ch, const pg_rect *rects, size_t n, double sx,
                  double sy) {
  for (size_t k = 0; k < n; k++) {
    const pg_rect *r = &rects[k];
    if (!(r->w > 0 && r->h > 0)) continue; /* NaN too */
    double x0 = floor(r->x * sx) - 1, y0 = floor(r->y * sy) - 1;
    double x1 = ceil((r->x + r->w) * sx) + 1, y1 = ceil((r->y + r->h) * sy) + 1;
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > w) x1 = w;
    if (y1 > h) y1 = h;
    if (!(x1 > x0 && y1 > y0)) continue;
    for (uint32_t y = (uint32_t)y0; y < (uint32_t)y1; y++) {
      unsigned char *o = img + ((size_t)y * w + (uint32_t)x0) * (size_t)ch;
      for (uint32_t x = (uint32_t)x0; x < (uint32_t)x1; x++, o += ch) {
        o[0] = o[1] = o[2] = 0;
        if (ch == 4) o[3] = 255;
      }
    }
  }
}

static void put_chunk(crawl__buf *b, const char *type, const unsigned char *data, size_t n) {
  unsigned char hdr[8];
  put32(hdr, (uint32_t)n);
  memcpy(hdr + 4, type, 4);
  crawl__buf_put(b, (const char *)hdr, 8);
  if (n) crawl__buf_put(b, (const char *)data, n);
  uLong crc = crc32(crc32(0L, Z_NULL, 0), (const Bytef *)type, 4);
  if (n) crc = crc32(crc, data, (uInt)n);
  unsigned char c[4];
  put32(c, (uint32_t)crc);
  crawl__buf_put(b, (const char *)c, 4);
}

/* img (w x h, ch 3 or 4) as a PNG (filter none on every row). */
static int encode(const unsigned char *img, uint32_t w, uint32_t h, int ch, unsigned char **out, size_t *outlen,
                  char *err, size_t errlen) {
  size_t stride = (size_t)w * (size_t)ch, rawlen = (stride + 1) * h;
  unsigned char *raw = crawl__xmalloc(rawlen);
  for (uint32_t y = 0; y < h; y++) {
    raw[(size_t)y * (stride + 1)] = 0;
    memcpy(raw + (size_t)y * (stride + 1) + 1, img + (size_t)y * stride, stride);
  }
  uLongf zlen = compressBound((uLong)rawlen);
  unsigned char *z = crawl__xmalloc(zlen);
  int zr = compress2(z, &zlen, raw, (uLong)rawlen, 6);
  free(raw);
  if (zr != Z_OK) {
    free(z);
    return fail(err, errlen, "PNG: compressing the masked image failed");
  }
  crawl__buf b = {0};
  crawl__buf_put(&b, (const char *)png_sig, 8);
  unsigned char ihdr[13];
  put32(ihdr, w);
  put32(ihdr + 4, h);
  ihdr[8] = 8, ihdr[9] = ch == 4 ? 6 : 2, ihdr[10] = ihdr[11] = ihdr[12] = 0;
  put_chunk(&b, "IHDR", ihdr, sizeof ihdr);
  put_chunk(&b, "IDAT", z, zlen);
  put_chunk(&b, "IEND", NULL, 0);
  free(z);
  *outlen = b.n;
  *out = (unsigned char *)crawl__buf_take(&b);
  return 0;
}

int crawl__png_mask(const unsigned char *png, size_t len, const pg_rect *rects, size_t n, double vw, double vh,
                    unsigned char **out, size_t *outlen, char *err, size_t errlen) {
  *out = NULL;
  *outlen = 0;
  png_in in = {0};
  if (read_chunks(png, len, &in, err, errlen)) {
    free(in.idat);
    return -1;
  }
  if (!(vw > 0 && vh > 0)) {
    free(in.idat);
    return fail(err, errlen, "the viewport's size is unknown");
  }
  size_t stride = (size_t)in.w * (size_t)in.channels, rawlen = (stride + 1) * in.h;
  if (rawlen > PNG_MAX_RAW) {
    free(in.idat);
    return fail(err, errlen, "PNG: too large");
  }
  unsigned char *raw = crawl__xmalloc(rawlen);
  uLongf got = (uLongf)rawlen;
  int zr = uncompress(raw, &got, in.idat, (uLong)in.nidat);
  free(in.idat);
  if (zr != Z_OK || got != rawlen || unfilter(raw, in.h, stride, in.channels)) {
    free(raw);
    return fail(err, errlen, "PNG: the image data cannot be read");
  }
  int alpha = in.ctype == 4 || in.ctype == 6 || (in.ctype == 3 && in.ntrns);
  int ch = alpha ? 4 : 3;
  unsigned char *img = to_rgb(&in, raw, ch);
  free(raw);
  paint(img, in.w, in.h, ch, rects, n, in.w / vw, in.h / vh);
  int rc = encode(img, in.w, in.h, ch, out, outlen, err, errlen);
  free(img);
  return rc;
}

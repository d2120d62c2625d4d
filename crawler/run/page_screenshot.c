/* page_screenshot.c -- screenshots: the viewport with what the graph
 * withholds painted over (a capture before the screenshot and one right
 * after it: both sets of masks), or none at all when any step fails.
 *
 * Not here: which boxes are withheld (graph/build.c collect_masks), how
 * they are painted (mask.c).
 */
#include "page_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int b64val(int ch) {
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
  if (ch >= '0' && ch <= '9') return ch - '0' + 52;
  if (ch == '+') return 62;
  if (ch == '/') return 63;
  return -1;
}

/* The viewport as Chromium paints it: PNG bytes (caller frees), unmasked. */
static crawl_code screenshot_raw(crawl_page *p, unsigned char **png, size_t *len) {
  *png = NULL;
  *len = 0;
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddStringToObject(a, "format", "png");
  crawl_code rc = crawl__page_call(p, "Page.captureScreenshot", a, &res);
  if (rc) return rc;
  const char *d = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "data"));
  if (d) {
    size_t n = strlen(d);
    unsigned char *out = crawl__xrealloc(NULL, n / 4 * 3 + 3);
    size_t o = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
      int v = b64val((unsigned char)d[i]);
      if (v < 0) continue;
      acc = acc << 6 | (unsigned)v;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out[o++] = (unsigned char)(acc >> bits);
      }
    }
    *png = out;
    *len = o;
  }
  cJSON_Delete(res);
  if (!*png || !*len) {
    free(*png);
    *png = NULL;
    snprintf(p->err, sizeof p->err, "Page.captureScreenshot returned no image");
    return CRAWL_CAPTURE;
  }
  return CRAWL_OK;
}

/* The masks of a capture taken before the screenshot and of one taken right
 * after it: what moved in between is covered where it was and where it is.
 * Any step that fails leaves no PNG (fail closed), p->err says why. */
crawl_code crawl_page_screenshot(crawl_page *p, const pg_graph *g, const pg_options *o, unsigned char **png,
                                 size_t *len) {
  *png = NULL;
  *len = 0;
  pg_graph *before = NULL, *after = NULL;
  unsigned char *raw = NULL;
  size_t rawlen = 0;
  crawl_code rc = g ? CRAWL_OK : crawl_page_capture(p, o, &before);
  if (!g) g = before;
  if (!rc) rc = screenshot_raw(p, &raw, &rawlen);
  if (!rc) rc = crawl_page_capture(p, o, &after);
  if (rc) {
    char why[sizeof p->err];
    snprintf(why, sizeof why, "%s", p->err);
    snprintf(p->err, sizeof p->err, "no mask for the screenshot: %.400s", why);
  } else if (g->mask_overflow || after->mask_overflow) {
    snprintf(p->err, sizeof p->err, "more than %d boxes to mask in the screenshot", PG_MASKS_MAX);
    rc = CRAWL_CAPTURE;
  } else {
    size_t n = g->nmasks + after->nmasks;
    pg_rect *rects = crawl__xmalloc((n ? n : 1) * sizeof *rects);
    if (g->nmasks) memcpy(rects, g->masks, g->nmasks * sizeof *rects);
    if (after->nmasks) memcpy(rects + g->nmasks, after->masks, after->nmasks * sizeof *rects);
    char why[300];
    if (crawl__png_mask(raw, rawlen, rects, n, after->vp_width, after->vp_height, png, len, why, sizeof why)) {
      snprintf(p->err, sizeof p->err, "masking the screenshot: %s", why);
      rc = CRAWL_CAPTURE;
    }
    free(rects);
  }
  free(raw);
  pg_graph_free(before);
  pg_graph_free(after);
  return rc;
}

/* conformance.c -- end-to-end: the role and accessible name the tool
 * publishes, checked against the web-platform-tests cases in
 * shared/conformance/wpt (manifest.json) and against Chromium's own answer
 * for each case (baseline.json).
 *
 * The corpus is found through UIAP_SHARED (support.h: t_shared); without it
 * the test is skipped (fails under CI=true). The pages are served from the
 * shared folder by the project's own server
 * (which sends charset=utf-8, as the baseline run did). Each page is
 * captured once with
 *   uiap-crawl snapshot URL --include-non-interactive --include-hidden
 *                           --hint-attr data-testname -o FILE
 * and validated against PageGraph. A case's element is the one whose
 * metadata.hintAttr equals the case's testname.
 *
 * Chromium is the ceiling for a tool that reads Chromium's accessibility
 * tree, so the assertion is: every case Chromium passes, the tool passes.
 * Where Chromium fails, ours is reported next to Chromium's but does not
 * fail the test. A case whose element is missing from the graph fails.
 *
 * stderr gets one summary line,
 *   conformance: N of M cases match Chromium (Chromium passes K)
 * and one line per case where ours differs from Chromium. With
 * UIAP_CONFORMANCE_REPORT=FILE set, a Markdown report (per-file table and
 * the differing cases) is written to FILE as well (see docs/conformance.md).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static const cJSON *item(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static const char *str(const cJSON *o, const char *k) { return cJSON_GetStringValue(item(o, k)); }

static cJSON *load_json(const char *path) {
  char *text = t_read_file(path, NULL);
  cJSON *j = text ? cJSON_Parse(text) : NULL;
  free(text);
  return j;
}

/* wpt's aria-utils.js: runs of ASCII whitespace [\t\n\f\r ] become one
 * space, ends trimmed; U+00A0 and U+2800 are kept. NULL counts as "". */
static char *norm(const char *s) {
  if (!s) s = "";
  char *o = malloc(strlen(s) + 1);
  size_t n = 0;
  int sp = 0;
  for (; *s; s++) {
    if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\f' || *s == '\r') {
      sp = 1;
      continue;
    }
    if (sp && n) o[n++] = ' ';
    sp = 0;
    o[n++] = *s;
  }
  o[n] = 0;
  return o;
}

/* A quoted, escaped copy for one-line output (testnames hold newlines). */
static const char *q(const char *s, char *buf, size_t cap) {
  if (!s) return "(missing)";
  size_t n = 0;
  buf[n++] = '"';
  for (; *s && n + 8 < cap; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') { buf[n++] = '\\'; buf[n++] = (char)c; }
    else if (c == '\n') { buf[n++] = '\\'; buf[n++] = 'n'; }
    else if (c == '\t') { buf[n++] = '\\'; buf[n++] = 't'; }
    else if (c < 0x20) n += (size_t)snprintf(buf + n, cap - n, "\\u%04x", c);
    else buf[n++] = (char)c;
  }
  buf[n++] = '"';
  buf[n] = 0;
  return buf;
}

typedef struct {
  const char *file;
  int cases, chromium_pass, ours_pass, match;
} file_stat;

typedef struct {
  char *line; /* Markdown table row for the report */
} diff_row;

static int in_accepted(const cJSON *c, const char *role) {
  if (!role) return 0;
  const cJSON *acc = item(c, "acceptedroles"), *a;
  if (!acc) return !strcmp(role, str(c, "expectedrole") ? str(c, "expectedrole") : "");
  cJSON_ArrayForEach(a, acc)
    if (cJSON_IsString(a) && !strcmp(a->valuestring, role)) return 1;
  return 0;
}

/* Markdown-safe cell: | and newlines escaped, backticked. */
static void md_cell(FILE *f, const char *s) {
  if (!s) { fputs(" (missing) |", f); return; }
  fputs(" `", f);
  if (!*s) fputs("\"\"", f);
  for (; *s; s++) {
    if (*s == '|') fputs("\\|", f);
    else if (*s == '\n') fputs("\\n", f);
    else if (*s == '`') fputc('\'', f);
    else fputc(*s, f);
  }
  fputs("` |", f);
}

/* testname as a snapshot publishes it when the page's password fields
 * hold "test" (comp_host_language_label.html: <input type=password
 * value='test'>): a password is a secret of the snapshot, and every string
 * holding it shows "[redacted]" (docs/safety.md), a hint attribute
 * ("... input[type=password][value='test']") included. Caller frees. */
static char *redacted(const char *testname) {
  size_t n = strlen(testname);
  char *out = malloc(n * 3 + 1), *o = out;
  for (const char *p = testname; *p;) {
    if (!strncmp(p, "test", 4)) {
      o += sprintf(o, "[redacted]");
      p += 4;
    } else {
      *o++ = *p++;
    }
  }
  *o = 0;
  return out;
}

Test(conformance, wpt_roles_and_names, .timeout = 180) {
  const char *wpt = t_shared("conformance/wpt");
  char path[4200];
  snprintf(path, sizeof path, "%s/manifest.json", wpt);
  cJSON *manifest = load_json(path);
  snprintf(path, sizeof path, "%s/baseline.json", wpt);
  cJSON *baseline = load_json(path);
  cr_assert(manifest && baseline, "%s/{manifest,baseline}.json are readable", wpt);
  int port = t_serve_root(wpt);
  cr_assert(port > 0, "the project's server serves %s", wpt);

  const char *report_path = getenv("UIAP_CONFORMANCE_REPORT");
  FILE *report_rows = report_path ? tmpfile() : NULL;

  const cJSON *files = item(manifest, "files"), *results = item(baseline, "results");
  file_stat stats[64];
  int nstats = 0;
  int total = 0, match = 0, chromium_pass = 0, ours_pass = 0, failures = 0, missing = 0, dups = 0;
  const cJSON *fe;
  cJSON_ArrayForEach(fe, files) {
    const char *file = str(fe, "file");
    cr_assert(file);
    char url[1024];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/%s", port, file);
    const char *const args[] = {"--include-non-interactive", "--include-hidden", "--hint-attr", "data-testname", NULL};
    t_run run;
    int left = 0;
    cJSON *g = t_snapshot(&run, &left, url, args); /* also validates against PageGraph */
    cr_expect(g, "snapshot of %s failed or is not a valid PageGraph (exit %d): %s", file, run.status, run.err);
    cr_expect_eq(left, 0, "Chromium or its temp profile outlived the run for %s", file);
    t_run_free(&run);
    file_stat *fs = nstats < 64 ? &stats[nstats++] : &stats[63];
    *fs = (file_stat){.file = file};

    const cJSON *c;
    cJSON_ArrayForEach(c, item(fe, "cases")) {
      const char *testname = str(c, "testname");
      /* Chromium's answer for this case */
      const cJSON *r = NULL, *x;
      cJSON_ArrayForEach(x, results)
        if (!strcmp(str(x, "file"), file) && !strcmp(str(x, "testname"), testname)) { r = x; break; }
      cr_assert(r, "baseline.json has %s / %s", file, testname);
      /* our element: metadata.hintAttr == testname. Should a testname occur
       * more than once, the light-DOM one is the case (the baseline's
       * querySelectorAll does not look into shadow trees), else the first. */
      const cJSON *el = NULL, *e, *elements = g ? item(g, "elements") : NULL;
      int count = 0;
      char *hidden = redacted(testname);
      cJSON_ArrayForEach(e, elements) {
        const char *h = str(item(e, "metadata"), "hintAttr");
        if (!h || (strcmp(h, testname) && strcmp(h, hidden))) continue;
        count++;
        int light = !item(item(e, "semantics"), "shadowHostId");
        if (!el || (light && item(item(el, "semantics"), "shadowHostId"))) el = e;
      }
      free(hidden);
      int is_role = item(c, "expectedrole") != NULL;
      int cpass = cJSON_IsTrue(item(r, "pass"));
      char *expected, *chromium, *ours = NULL;
      int opass, same;
      if (is_role) {
        expected = strdup(str(c, "expectedrole"));
        chromium = strdup(str(r, "chromiumRole") ? str(r, "chromiumRole") : "");
        if (el) ours = strdup(str(el, "role") ? str(el, "role") : "");
        opass = in_accepted(c, ours);
        same = ours && (!strcmp(ours, chromium) || (opass && cpass));
      } else {
        expected = norm(str(c, "expectedlabel"));
        chromium = norm(str(r, "chromiumName"));
        if (el) ours = norm(str(el, "name"));
        opass = ours && !strcmp(ours, expected);
        same = ours && !strcmp(ours, chromium);
      }
      total++;
      fs->cases++;
      chromium_pass += cpass;
      fs->chromium_pass += cpass;
      ours_pass += opass;
      fs->ours_pass += opass;
      match += same;
      fs->match += same;
      missing += !el;
      if (count > 1) dups++;
      if (!same) {
        const char *verdict = cpass && !opass ? "FAIL" : !cpass && opass ? "better" : "chromium-fails";
        char b1[1200], b2[1200], b3[1200], b4[1200];
        fprintf(stderr, "conformance %s: %s %s: %s expected %s, chromium %s, ours %s%s\n", verdict, file,
                q(testname, b1, sizeof b1), is_role ? "role" : "name", q(expected, b2, sizeof b2),
                q(chromium, b3, sizeof b3), q(ours, b4, sizeof b4), count > 1 ? " (several elements)" : "");
        if (report_rows) {
          fprintf(report_rows, "| %s | %s |", verdict, file);
          md_cell(report_rows, testname);
          fprintf(report_rows, " %s |", is_role ? "role" : "name");
          md_cell(report_rows, expected);
          md_cell(report_rows, chromium);
          md_cell(report_rows, ours);
          fputc('\n', report_rows);
        }
      }
      failures += cpass && !opass;
      free(expected);
      free(chromium);
      free(ours);
    }
    cJSON_Delete(g);
  }
  fprintf(stderr, "conformance: %d of %d cases match Chromium (Chromium passes %d)\n", match, total, chromium_pass);
  fprintf(stderr, "conformance: ours passes %d of %d; %d case(s) Chromium passes and we fail; %d element(s) missing%s\n",
          ours_pass, total, failures, missing, dups ? "; some testnames match several elements" : "");

  if (report_path) {
    FILE *f = fopen(report_path, "w");
    cr_assert(f, "cannot write %s", report_path);
    fprintf(f, "| file | cases | Chromium passes | ours passes | ours = Chromium |\n| --- | ---: | ---: | ---: | ---: |\n");
    for (int i = 0; i < nstats; i++)
      fprintf(f, "| %s | %d | %d | %d | %d |\n", stats[i].file, stats[i].cases, stats[i].chromium_pass,
              stats[i].ours_pass, stats[i].match);
    fprintf(f, "| **total** | **%d** | **%d** | **%d** | **%d** |\n\n", total, chromium_pass, ours_pass, match);
    fprintf(f, "| verdict | file | testname | check | expected | Chromium | ours |\n"
               "| --- | --- | --- | --- | --- | --- | --- |\n");
    rewind(report_rows);
    char buf[4096];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, report_rows)) > 0) fwrite(buf, 1, k, f);
    fclose(f);
    fclose(report_rows);
  }
  cr_expect_eq(failures, 0, "%d case(s) that Chromium passes fail here: see the 'conformance FAIL:' lines",
               failures);
  int declared = 0;
  cJSON_ArrayForEach(fe, files) declared += item(fe, "caseCount") ? item(fe, "caseCount")->valueint : 0;
  cr_expect(total > 0 && total == declared, "read %d cases, manifest.json declares %d", total, declared);
  cJSON_Delete(manifest);
  cJSON_Delete(baseline);
}

/* entity.c -- end-to-end: one state per functional page, not per URL
 * (issue 27 section 4; docs/fingerprint.md). `uiap-crawl crawl` is given
 * every page of the clinic fixture (tests/fixtures/clinic: owners, pets,
 * visits, vets; forms with their error variants) as a seed, and its states
 * are held against the human grouping in labels.tsv: entity pages
 * (/owners/1/ .. /owners/8/, and vets named by a word, /vets/james-carter/)
 * fold into one state each, a form showing validation errors is a state of
 * its own, and the pairwise F1 of the grouping is at least 0.9 (the
 * fingerprint by raw URL scored 0 on this set). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crawl.h"
#include "support.h"

#define MAX_PAGES 128

typedef struct { char path[256], human[64]; } label;
static label labels[MAX_PAGES];
static int nlabels;

static void read_labels(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/fixtures/clinic/labels.tsv", UIAP_SRC);
  char *text = t_read_file(path, NULL);
  cr_assert(text, "read %s", path);
  nlabels = 0;
  for (char *line = strtok(text, "\n"); line && nlabels < MAX_PAGES; line = strtok(NULL, "\n")) {
    char *tab = strchr(line, '\t');
    if (*line == '#' || !tab) continue;
    *tab = 0;
    snprintf(labels[nlabels].path, sizeof labels[0].path, "%s", line);
    snprintf(labels[nlabels].human, sizeof labels[0].human, "%s", tab + 1);
    nlabels++;
  }
  free(text);
  cr_assert_gt(nlabels, 40, "the labelled set has its pages");
}

static const char *human_of(const char *path) {
  for (int i = 0; i < nlabels; i++)
    if (!strcmp(labels[i].path, path)) return labels[i].human;
  return NULL;
}

/* the path and query of url (after its origin) */
static const char *rel_of(const char *url) {
  const char *p = strstr(url, "://");
  p = p ? strchr(p + 3, '/') : NULL;
  return p ? p : url;
}

/* Every labelled page crawled as a seed; the seed records' (page, state). */
static char *crawl_clinic(cJSON **seeds_out) {
  char *dir = t_tmpdir(), out[600];
  snprintf(out, sizeof out, "%s/out", dir);
  const char *argv[MAX_PAGES + 16];
  char *urls[MAX_PAGES];
  int n = 0;
  argv[n++] = UIAP_BIN;
  argv[n++] = "crawl";
  for (int i = 0; i < nlabels; i++) argv[n++] = urls[i] = strdup(t_fixture_url(0, NULL, labels[i].path));
  const char *rest[] = {"--workers", "1", "--max-transitions", "40", "--quiet", "-o", out, NULL};
  for (int i = 0; rest[i]; i++) argv[n++] = rest[i];
  argv[n] = NULL;
  t_run run = t_run_argv(argv, 300000);
  cr_assert_eq(run.status, 0, "crawl exits 0: %s", run.err);
  t_run_free(&run);
  for (int i = 0; i < nlabels; i++) free(urls[i]);
  *seeds_out = t_journal_records(out, "seed");
  return dir;
}

/* The state the crawl put page path in ("" when it has none). */
static const char *state_of(const cJSON *seeds, const char *path) {
  const cJSON *s;
  cJSON_ArrayForEach(s, seeds) {
    const char *url = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "url"));
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "stateId"));
    if (url && id && !strcmp(rel_of(url), path)) return id;
  }
  return "";
}

Test(entity, one_state_per_functional_page, .timeout = 320) {
  read_labels();
  cJSON *seeds = NULL;
  char *dir = crawl_clinic(&seeds);
  /* entity pages by id and by a word are one state each */
  const char *owner1 = state_of(seeds, "/clinic/owners/1/");
  cr_expect(*owner1, "owner 1's page was captured");
  for (int k = 2; k <= 8; k++) {
    char p[64];
    snprintf(p, sizeof p, "/clinic/owners/%d/", k);
    cr_expect_str_eq(state_of(seeds, p), owner1, "%s is the state of /clinic/owners/1/ (another owner)", p);
  }
  const char *vet = state_of(seeds, "/clinic/vets/james-carter/");
  cr_expect(*vet);
  cr_expect_str_eq(state_of(seeds, "/clinic/vets/sharon-jenkins/"), vet, "a vet named by a word: the same state");
  cr_expect_str_neq(vet, owner1, "an owner is not a vet");
  cr_expect_str_neq(state_of(seeds, "/clinic/vets/"), vet, "the list is not a vet's page");
  /* the error variant of a form is a state of its own */
  const char *form = state_of(seeds, "/clinic/owners/new/"), *errs = state_of(seeds, "/clinic/owners/new/?_=err");
  cr_expect(*form && *errs);
  cr_expect_str_neq(form, errs, "the form with 'must not be empty' next to its fields is not the clean form");
  cr_expect_str_neq(state_of(seeds, "/clinic/owners/1/edit/"), form, "editing an owner is not adding one");
  const char *pet_errs = state_of(seeds, "/clinic/owners/1/pets/new/?_=err");
  cr_expect_str_eq(state_of(seeds, "/clinic/owners/2/pets/new/?_=err"), pet_errs, "one error state for every owner's pet form");
  cr_expect_str_neq(state_of(seeds, "/clinic/owners/2/pets/new/"), pet_errs);
  /* pairwise against the human grouping */
  long tp = 0, fp = 0, fn = 0;
  for (int i = 0; i < nlabels; i++)
    for (int j = i + 1; j < nlabels; j++) {
      const char *si = state_of(seeds, labels[i].path), *sj = state_of(seeds, labels[j].path);
      cr_expect(*si && *sj, "every labelled page was captured (%s, %s)", labels[i].path, labels[j].path);
      int c = !strcmp(si, sj), h = !strcmp(labels[i].human, labels[j].human);
      tp += c && h;
      fp += c && !h;
      fn += h && !c;
    }
  double p = tp + fp ? (double)tp / (double)(tp + fp) : 1, r = tp + fn ? (double)tp / (double)(tp + fn) : 1;
  double f1 = p + r > 0 ? 2 * p * r / (p + r) : 0;
  cr_log_info("clinic: precision %.3f recall %.3f F1 %.3f over %d pages", p, r, f1, nlabels);
  cr_expect_geq(f1, 0.9, "pairwise F1 against the human grouping: %.3f (precision %.3f, recall %.3f)", f1, p, r);
  cr_expect_eq(human_of("/clinic/owners/new/?_=err") != NULL, 1);
  cJSON_Delete(seeds);
  t_rm_rf(dir);
  free(dir);
}

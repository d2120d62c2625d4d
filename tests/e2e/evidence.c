/* evidence.c -- end-to-end: what a crawl keeps as evidence and what it
 * keeps out of every output (tests/fixtures/evidence/).
 *  - accessibility records (discovery-mapper 11.2, 17): every state of a
 *    crawl has DIR/accessibility/<id>.json, the package cites it (and the
 *    screenshot) on the state and on the catalog entries, the evidence
 *    index says where it lives; the record holds no password (typed into
 *    a field, or turned into type=text by a "Show" toggle), nothing of a
 *    closed shadow root or of another site's frame;
 *  - --redact pii (both texts' security considerations): the names, e-mail
 *    addresses and phone numbers of a contact list, in text and in fields,
 *    are in no output file of crawl, snapshot or observe, nor on the
 *    terminal, and not on the screenshots; without the flag the graph has
 *    them (so the test can fail).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

#define BUDGET_MS "20000"

typedef struct {
  t_run run;
  char *dir;       /* holds the output */
  char out[600];   /* OUT of a crawl, the -o file otherwise */
  cJSON *pkg;
} run_res;

/* `uiap-crawl CMD URL ARGS... -o OUT` (a crawl: --max-runtime-ms too). */
static void run_cli(run_res *r, const char *cmd, const char *url, const char *const *args) {
  memset(r, 0, sizeof *r);
  int crawl = !strcmp(cmd, "crawl");
  r->dir = t_tmpdir();
  cr_assert(r->dir);
  snprintf(r->out, sizeof r->out, "%s/%s", r->dir, crawl ? "out" : "out.json");
  const char *argv[40];
  int n = 0;
  argv[n++] = UIAP_BIN;
  argv[n++] = cmd;
  argv[n++] = url;
  for (int i = 0; args && args[i] && n < 32; i++) argv[n++] = args[i];
  if (crawl) {
    argv[n++] = "--max-runtime-ms";
    argv[n++] = BUDGET_MS;
  }
  argv[n++] = "-o";
  argv[n++] = r->out;
  argv[n] = NULL;
  r->run = t_run_argv(argv, 90000);
  cr_assert_eq(r->run.status, 0, "%s of %s: exit %d: %s", cmd, url, r->run.status, r->run.err);
  if (!crawl) return;
  char pkg[700], msg[4096];
  snprintf(pkg, sizeof pkg, "%s/package.json", r->out);
  r->pkg = t_package_read(pkg);
  cr_assert(r->pkg, "the crawl of %s wrote a package", url);
  cr_expect_eq(t_validate("DiscoveryPackage", pkg, msg, sizeof msg), 0, "the package validates: %s", msg);
}

static void done(run_res *r) {
  t_rm_rf(r->dir);
  free(r->dir);
  cJSON_Delete(r->pkg);
  t_run_free(&r->run);
}

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static const char *str(const cJSON *o, const char *k) {
  const char *s = cJSON_GetStringValue(get(o, k));
  return s ? s : "";
}

/* The first member of array arr whose key equals v. */
static const cJSON *find(const cJSON *arr, const char *key, const char *v) {
  const cJSON *x;
  cJSON_ArrayForEach(x, arr) if (!strcmp(str(x, key), v)) return x;
  return NULL;
}

/* None of needles in any file below dir, nor on the terminal. */
static void expect_absent(const run_res *r, const char *what, const char *const *needles) {
  char found[4096];
  int n = t_tree_grep(r->dir, needles, found, sizeof found);
  cr_expect_eq(n, 0, "the output of %s holds %s", what, found);
  for (int i = 0; needles[i]; i++) {
    cr_expect(!strstr(r->run.out, needles[i]), "stdout of %s shows \"%s\"", what, needles[i]);
    cr_expect(!strstr(r->run.err, needles[i]), "stderr of %s shows \"%s\"", what, needles[i]);
  }
}

/* ---- accessibility records ------------------------------------------------------ */
static const char *const signin_secrets[] = {"TYPED-SECRET-pw1", "REVEAL-SECRET-pw2", "CLOSED-SHADOW-SECRET",
                                             "CROSS-ORIGIN-SECRET", NULL};

/* The record's node of the field named name. */
static const cJSON *record_field(const cJSON *rec, const char *name) {
  const cJSON *n;
  cJSON_ArrayForEach(n, get(rec, "nodes"))
    if (!strcmp(str(get(n, "name"), "value"), name)) return n;
  return NULL;
}

/* 1 when the record node says pressed="true". */
static int pressed(const cJSON *node) {
  const cJSON *p;
  cJSON_ArrayForEach(p, get(node, "properties"))
    if (!strcmp(str(p, "name"), "pressed")) return !strcmp(str(get(p, "value"), "value"), "true");
  return 0;
}

Test(evidence, every_state_has_an_accessibility_record, .timeout = 150) {
  char path[300];
  snprintf(path, sizeof path, "/evidence/signin.html?port=%d", t_fixture_port(1));
  run_res r;
  const char *const args[] = {"--screenshots", NULL};
  run_cli(&r, "crawl", t_fixture_url(0, NULL, path), args);
  cJSON *states = t_journal_records(r.out, "state"), *trs = t_journal_records(r.out, "transition");
  cr_assert_geq(cJSON_GetArraySize(states), 2, "the crawl found more than one state");
  int shown = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, trs) shown += !strcmp(str(get(t, "target"), "name"), "Show");
  cr_expect_geq(shown, 1, "the \"Show\" toggle was clicked (else the revealed password proves nothing)");
  const cJSON *idx = get(get(r.pkg, "evidenceIndex"), "entries");
  const cJSON *pstates = get(get(r.pkg, "transitionGraph"), "states");
  const cJSON *s;
  int revealed = 0;
  cJSON_ArrayForEach(s, states) {
    const char *id = str(s, "stateId"), *ref = str(s, "accessibilityRef");
    char want[200], axid[200];
    snprintf(want, sizeof want, "accessibility/%s.json", id);
    cr_expect_str_eq(ref, want, "state %s has its accessibility record", id);
    cJSON *rec = t_json_at(r.out, want);
    cr_assert(rec, "%s is JSON", want);
    cr_expect_str_eq(str(rec, "stateId"), id);
    cr_expect_gt(cJSON_GetArraySize(get(rec, "nodes")), 3, "%s holds the AX facts of the elements", want);
    const cJSON *pw = record_field(rec, "Password"), *npw = record_field(rec, "New password");
    cr_assert(pw && npw, "%s has both password fields", want);
    cr_expect_str_eq(str(get(pw, "value"), "value"), "[redacted]", "the typed password: masked in %s", want);
    cr_expect_str_eq(str(get(npw, "value"), "value"), "[redacted]");
    revealed += pressed(record_field(rec, "Show"));
    cJSON_Delete(rec);
    /* the package cites it, and the screenshot, on the state; the index says where */
    snprintf(axid, sizeof axid, "ax_%s", id);
    const cJSON *ps = find(pstates, "stateId", id);
    cr_assert(ps, "the package has state %s", id);
    cr_expect(find(get(ps, "discoveredBy"), "refId", axid), "state %s cites %s", id, axid);
    const cJSON *e = find(idx, "refId", axid);
    cr_expect(e && !strcmp(str(e, "source"), "accessibility") && !strcmp(str(e, "path"), want),
              "the evidence index says %s lives in %s", axid, want);
    if (*str(s, "screenshotRef")) {
      char shot[200];
      snprintf(shot, sizeof shot, "shot_%s", id);
      const cJSON *se = find(get(ps, "discoveredBy"), "refId", shot);
      cr_expect(se && !strcmp(str(se, "source"), "screenshot"), "state %s cites its screenshot", id);
      cr_expect(find(idx, "refId", shot), "the index has %s", shot);
    }
  }
  cr_expect_gt(revealed, 0, "a record of a state with the password shown (Show pressed)");
  /* catalog entries cite the records of the states they came from */
  int cited = 0;
  const cJSON *el;
  cJSON_ArrayForEach(el, get(get(r.pkg, "elementCatalog"), "elements")) {
    const cJSON *a = find(get(el, "discoveredBy"), "source", "accessibility");
    if (a && !strncmp(str(a, "refId"), "ax_s_", 5)) cited++;
  }
  cr_expect_geq(cited, 4, "elements cite accessibility records (%d)", cited);
  /* what the graph withholds is in no record, no file, no terminal line */
  expect_absent(&r, "the crawl of signin.html", signin_secrets);
  cJSON_Delete(states);
  cJSON_Delete(trs);
  done(&r);
}

/* ---- --redact pii ----------------------------------------------------------------- */
static const char *const personal[] = {
  "Ingrid", "Bergstrom", "ingrid.bergstrom@example.org", "+46 8 555 012 34", "Kwame", "Mensah",
  "k.mensah@example.net", "(030) 901-8207", "Marisol", "Quintana", "marisol.q@example.com",
  "+1 (555) 010-0199", "help.desk@example.net", "+49 30 901820", "901-8207", "010-0199", NULL};
/* what is not personal data stays */
static const char *const kept[] = {"ORD-2024-0412, 2026-03-14, $1,249.00", "Prefers calls after 5pm", NULL};

/* How many of personal and of kept the file holds. */
static void count_in(const char *file, int *npersonal, int *nkept) {
  char *text = t_read_file(file, NULL);
  cr_assert(text, "%s was written", file);
  *npersonal = *nkept = 0;
  for (int i = 0; personal[i]; i++) *npersonal += strstr(text, personal[i]) != NULL;
  for (int i = 0; kept[i]; i++) *nkept += strstr(text, kept[i]) != NULL;
  free(text);
}

static long magenta_pixels(const char *file) {
  const char *const argv[] = {"/usr/bin/env", "python3", UIAP_SRC "/tests/support/png_colors.py", file, "ff00ff", NULL};
  t_run p = t_run_argv(argv, 60000);
  cr_assert_eq(p.status, 0, "png_colors.py %s: %s", file, p.err);
  long n = atol(p.out + strlen("ff00ff "));
  t_run_free(&p);
  return n;
}

/* The most magenta (personal data) any screenshot of the crawl shows. */
static long most_magenta(const run_res *r) {
  char dir[700];
  snprintf(dir, sizeof dir, "%s/screenshots", r->out);
  DIR *d = opendir(dir);
  cr_assert(d, "the crawl wrote %s", dir);
  long most = -1;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strstr(e->d_name, ".png")) continue;
    char file[1000];
    snprintf(file, sizeof file, "%s/%s", dir, e->d_name);
    long n = magenta_pixels(file);
    if (n > most) most = n;
  }
  closedir(d);
  return most;
}

Test(redact, snapshot_without_the_flag_shows_personal_data, .timeout = 90) {
  run_res r;
  run_cli(&r, "snapshot", t_fixture_url(0, NULL, "/evidence/contacts.html"), NULL);
  int np, nk;
  count_in(r.out, &np, &nk);
  cr_expect_eq(np, 16, "the plain graph has every name, address and number (%d of 16)", np);
  cr_expect_eq(nk, 2);
  done(&r);
}

Test(redact, snapshot_and_observe_mask_personal_data, .timeout = 120) {
  run_res r;
  const char *const args[] = {"--redact", "pii", NULL};
  run_cli(&r, "snapshot", t_fixture_url(0, NULL, "/evidence/contacts.html"), args);
  int np, nk;
  count_in(r.out, &np, &nk);
  cr_expect_eq(nk, 2, "dates, prices, order numbers and notes stay");
  char *text = t_read_file(r.out, NULL);
  cr_expect(strstr(text, "[name]") && strstr(text, "[email]") && strstr(text, "[phone]"), "the masks show: %.300s", text);
  free(text);
  expect_absent(&r, "snapshot --redact pii", personal);
  done(&r);
  const char *const obs[] = {"--redact", "pii", "--duration-ms", "1500", NULL};
  run_cli(&r, "observe", t_fixture_url(0, NULL, "/evidence/contacts.html"), obs);
  count_in(r.out, &np, &nk);
  cr_expect_eq(nk, 2, "observe: what is not personal data stays");
  expect_absent(&r, "observe --redact pii", personal);
  done(&r);
}

Test(redact, crawl_masks_personal_data_everywhere, .timeout = 150) {
  run_res r;
  const char *const plain[] = {"--screenshots", NULL};
  run_cli(&r, "crawl", t_fixture_url(0, NULL, "/evidence/contacts.html"), plain);
  long shown = most_magenta(&r);
  cr_expect_gt(shown, 2000, "without --redact pii the screenshots show the personal data (%ld pixels)", shown);
  done(&r);
  const char *const args[] = {"--redact", "pii", "--screenshots", NULL};
  run_cli(&r, "crawl", t_fixture_url(0, NULL, "/evidence/contacts.html"), args);
  expect_absent(&r, "crawl --redact pii", personal);
  cJSON *states = t_journal_records(r.out, "state");
  cr_assert_geq(cJSON_GetArraySize(states), 1);
  const cJSON *s = cJSON_GetArrayItem(states, 0);
  cJSON *g = t_json_at(r.out, str(s, "pageGraphRef"));
  cr_assert(g);
  char *text = cJSON_PrintUnformatted(g);
  cr_expect(strstr(text, "[name]") && strstr(text, "[email]") && strstr(text, "[phone]"));
  cr_expect(strstr(text, "ORD-2024-0412, 2026-03-14, $1,249.00"), "not personal data: kept");
  free(text);
  cJSON_Delete(g);
  cJSON_Delete(states);
  long left = most_magenta(&r);
  cr_expect_lt(left, 50, "masked screenshots show no personal data (%ld magenta pixels)", left);
  done(&r);
}

/* `uiap-crawl mcp [--redact pii]` fed navigate and snapshot: its stdout. */
static t_run mcp_session(const char *flag) {
  char script[2048];
  snprintf(script, sizeof script,
           "printf '%%s\\n' "
           "'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-03-26\","
           "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}' "
           "'{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"navigate\",\"arguments\":{\"url\":\"%s\"}}}' "
           "'{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"snapshot\",\"arguments\":{}}}' "
           "| \"%s\" mcp %s",
           t_fixture_url(0, NULL, "/evidence/contacts.html"), UIAP_BIN, flag);
  const char *const argv[] = {"/bin/sh", "-c", script, NULL};
  t_run r = t_run_argv(argv, 90000);
  cr_assert_eq(r.status, 0, "mcp %s: exit %d: %s", flag, r.status, r.err);
  return r;
}

Test(redact, mcp_replies_mask_personal_data, .timeout = 150) {
  t_run plain = mcp_session("");
  cr_expect(strstr(plain.out, "Marisol Quintana") && strstr(plain.out, "k.mensah@example.net"),
            "without --redact pii the snapshot reply shows them: %.400s", plain.out);
  t_run_free(&plain);
  t_run r = mcp_session("--redact pii");
  cr_expect(strstr(r.out, "[name]") && strstr(r.out, "[email]") && strstr(r.out, "[phone]"), "%.400s", r.out);
  for (int i = 0; personal[i]; i++) {
    cr_expect(!strstr(r.out, personal[i]), "an mcp reply shows \"%s\"", personal[i]);
    cr_expect(!strstr(r.err, personal[i]), "mcp's stderr shows \"%s\"", personal[i]);
  }
  t_run_free(&r);
}

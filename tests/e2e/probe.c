/* probe.c -- end-to-end: sealed probes (issue 27 section 1, docs/safety.md
 * "Sealed probes") in real Chromium on the fixture server, safe_explore.
 * tests/fixtures/probe/index.html has plain buttons whose names settle
 * nothing: view switchers (one of them remembers the view in localStorage)
 * and writers behind neutral names (a fetch POST, a localStorage key
 * removed, an IndexedDB record deleted, a cookie expired, a WebSocket send,
 * a stored list that loses an entry), and a "Delete notes" the words settle.
 * Every load of the page reports whether its seeded storage is intact
 * (/__test/probe-storage/ok or .../bad-WHAT); writes go to /danger/, which
 * the fixture server counts. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

typedef struct {
  t_run run;
  char *dir;
  char out[600];
  cJSON *pkg;
  long writes;       /* requests under /danger/ during the run ... */
  char wrote[2048];  /* ... by "METHOD path" */
  long intact, broken; /* the page's own storage reports during the run */
} run_res;

static void crawl(run_res *r, const char *const *extra) {
  memset(r, 0, sizeof *r);
  r->dir = t_tmpdir();
  cr_assert(r->dir);
  snprintf(r->out, sizeof r->out, "%s/out", r->dir);
  const char *argv[40];
  int n = 0;
  argv[n++] = UIAP_BIN;
  argv[n++] = "crawl";
  argv[n++] = t_fixture_url(0, NULL, "/probe/index.html");
  for (int i = 0; extra && extra[i] && n < 30; i++) argv[n++] = extra[i];
  argv[n++] = "--max-runtime-ms";
  argv[n++] = "60000";
  argv[n++] = "-o";
  argv[n++] = r->out;
  argv[n] = NULL;
  cJSON *before = t_fixture_hit_table();
  long ok0 = t_fixture_hits("/__test/probe-storage/ok"), bad0 = t_fixture_hits("/__test/probe-storage/bad");
  r->run = t_run_argv(argv, 110000);
  usleep(300000);
  r->writes = t_fixture_hits_since(before, "/danger/", r->wrote, sizeof r->wrote);
  r->intact = t_fixture_hits("/__test/probe-storage/ok") - ok0;
  r->broken = t_fixture_hits("/__test/probe-storage/bad") - bad0;
  cJSON_Delete(before);
  cr_expect_eq(r->run.status, 0, "crawl: exit %d: %s", r->run.status, r->run.err);
  char pkg[700], msg[4096];
  snprintf(pkg, sizeof pkg, "%s/package.json", r->out);
  char *text = t_read_file(pkg, NULL);
  r->pkg = text ? cJSON_Parse(text) : NULL;
  free(text);
  cr_assert(r->pkg, "the crawl wrote no package: %s", r->run.err);
  cr_expect_eq(t_validate("DiscoveryPackage", pkg, msg, sizeof msg), 0, "the package validates: %s", msg);
}

static void done(run_res *r) {
  t_rm_rf(r->dir);
  free(r->dir);
  cJSON_Delete(r->pkg);
  t_run_free(&r->run);
}

/* Journal records of type whose target is named name and whose rule (the
 * decision's, for a transition) starts with rule (NULL: any). */
static int records(const run_res *r, const char *type, const char *name, const char *rule) {
  cJSON *ts = t_journal_records(r->out, type);
  int n = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, ts) {
    const char *tn = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "target"), "name"));
    const cJSON *d = cJSON_GetObjectItem(t, "decision");
    const char *ru = cJSON_GetStringValue(cJSON_GetObjectItem(d ? d : t, "rule"));
    n += tn && !strcmp(tn, name) && (!rule || (ru && !strncmp(ru, rule, strlen(rule))));
  }
  cJSON_Delete(ts);
  return n;
}

/* The state first reached by a control named name (its "via"), or NULL
 * (caller frees). */
static char *state_via(const run_res *r, const char *name) {
  cJSON *st = t_journal_records(r->out, "state");
  char *id = NULL;
  const cJSON *s;
  cJSON_ArrayForEach(s, st) {
    const char *vn = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "via"), "target"), "name"));
    if (vn && !strcmp(vn, name) && !id) id = strdup(cJSON_GetStringValue(cJSON_GetObjectItem(s, "stateId")));
  }
  cJSON_Delete(st);
  return id;
}

static double gate_num(const run_res *r, const char *member, const char *key) {
  const cJSON *g = cJSON_GetObjectItem(cJSON_GetObjectItem(r->pkg, "metadata"), "gate");
  const cJSON *v = cJSON_GetObjectItem(member ? cJSON_GetObjectItem(g, member) : g, key);
  return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* The writers: name, what their review item names, the rule. */
static const struct { const char *name, *says, *rule; } writers[] = {
  {"Teal", "POST http://", "probe.write"},
  {"Amber", "localStorage key \"notes\" removed", "probe.destructive"},
  {"Olive", "IndexedDB key \"probe/items 1\" removed", "probe.destructive"},
  {"Plum", "cookie key \"pref;", "probe.destructive"},
  {"Slate", "WebSocket ws://", "probe.write"},
  {"Ivory", "localStorage key \"list\" lost entries", "probe.destructive"},
  {"\xE2\x9F\xB3" /* ⟳ */, "POST http://", "probe.write"},
};

/* The view switchers are tried under the seal and kept (rule probe.sealed,
 * with their states); each writer is probed, denied with the channel and
 * the request or key named, and what it reached is never published; no
 * write reaches the server, the page finds its storage intact on every
 * load, and no stored value is in any output. */
Test(probe, view_switchers_pass_and_writers_are_denied, .timeout = 150) {
  run_res r;
  crawl(&r, NULL);
  cr_expect_eq(r.writes, 0, "%ld requests reached /danger/: %s", r.writes, r.wrote);
  cr_expect_geq(r.intact, 2, "the page loaded again after probes and found its storage intact (%ld reports)", r.intact);
  cr_expect_eq(r.broken, 0, "no load found its seeded storage changed (%ld reports)", r.broken);
  static const char *const views[] = {"Items", "About", "Go", "Coral", "\xE2\x86\xA9" /* ↩ */};
  char *reached[5] = {0};
  for (size_t i = 0; i < 5; i++) {
    cr_expect_geq(records(&r, "transition", views[i], "probe.sealed"), 1, "%s: a transition with rule probe.sealed",
                  views[i]);
    reached[i] = state_via(&r, views[i]);
    cr_expect(reached[i], "%s: its view is a state of its own", views[i]);
    for (size_t k = 0; k < i; k++)
      cr_expect(!reached[i] || !reached[k] || strcmp(reached[i], reached[k]), "%s and %s: two views", views[i], views[k]);
  }
  for (size_t i = 0; i < 5; i++) free(reached[i]);
  /* the remembered view: an added key, listed by key in the transition's metadata */
  cJSON *ts = t_journal_records(r.out, "transition");
  int coral_keys = 0, evidence = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, ts) {
    const cJSON *pr = cJSON_GetObjectItem(cJSON_GetObjectItem(t, "metadata"), "probe");
    const cJSON *k;
    cJSON_ArrayForEach(k, cJSON_GetObjectItem(pr, "storageAdded"))
      coral_keys += !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(k, "key")) ?: "", "tab");
    const cJSON *ev = cJSON_GetObjectItem(cJSON_GetObjectItem(t, "decision"), "evidence");
    if (cJSON_GetArraySize(ev) == 2 && !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(ev, 1), "note")) ?: "", "no write attempted"))
      evidence++;
  }
  cJSON_Delete(ts);
  cr_expect_geq(coral_keys, 1, "Coral's transition lists the localStorage key it added");
  cr_expect_geq(evidence, 4, "probed transitions carry transition + network evidence");
  for (size_t i = 0; i < sizeof writers / sizeof *writers; i++) {
    cr_expect_geq(records(&r, "decision", writers[i].name, writers[i].rule), 1, "%s: denied by rule %s",
                  writers[i].name, writers[i].rule);
    cr_expect_eq(records(&r, "transition", writers[i].name, NULL), 0, "%s: no transition published", writers[i].name);
    char *st = state_via(&r, writers[i].name);
    cr_expect_null(st, "%s: the state it reached is not published (%s)", writers[i].name, st ? st : "");
    free(st);
    cr_expect(t_review_mentions(r.pkg, "unsafe_action_candidate", writers[i].says), "%s: the review names %s",
              writers[i].name, writers[i].says);
  }
  cr_expect(t_review_mentions(r.pkg, "unsafe_action_candidate", "Probed under the seal"), "the review says it was probed");
  /* words decide first: "Delete notes" is denied by the lexicon, never probed */
  cr_expect_eq(records(&r, "transition", "Delete notes", NULL), 0, "\"Delete notes\" was never clicked");
  cr_expect_eq(records(&r, "decision", "Delete notes", "probe."), 0, "\"Delete notes\" was never probed");
  cr_expect_geq(records(&r, "decision", "Delete notes", NULL), 1, "\"Delete notes\" was decided by its words");
  /* an arrow on a list entry may remove it: held, never probed */
  cr_expect_eq(records(&r, "decision", "\xE2\x86\xAA", "probe."), 0, "the entry's \"↪\" was never probed");
  cr_expect_geq(records(&r, "decision", "\xE2\x86\xAA", "default.unknown"), 1, "the entry's \"↪\" is held");
  /* the gate counts what the probes decided */
  cr_expect_geq(gate_num(&r, "probed", "allow"), 5);
  cr_expect_geq(gate_num(&r, "probed", "deny"), 7);
  cr_expect_geq(gate_num(&r, NULL, "allow"), gate_num(&r, "probed", "allow"), "probed allows count as allowed");
  /* no stored value in any output */
  static const char *const values[] = {"keep me", "[\\\"a\\\",\\\"b\\\",\\\"c\\\"]", "\"coral\"", "pref=keep", NULL};
  char found[1024] = "";
  cr_expect_eq(t_tree_grep(r.out, values, found, sizeof found), 0, "a stored value was published: %s", found);
  done(&r);
}

/* --no-probe: those controls are held for review (default.unknown), as
 * before; nothing is probed, nothing written. */
Test(probe, no_probe_holds_them, .timeout = 150) {
  run_res r;
  const char *const args[] = {"--no-probe", NULL};
  crawl(&r, args);
  cr_expect_eq(r.writes, 0, "%ld requests reached /danger/: %s", r.writes, r.wrote);
  cr_expect_eq(r.broken, 0);
  cr_expect_eq(records(&r, "transition", "Items", NULL), 0, "Items is held, not clicked");
  cr_expect_eq(records(&r, "transition", "Teal", NULL), 0);
  cr_expect_geq(records(&r, "decision", "Teal", "default.unknown"), 1, "Teal is held as default.unknown");
  cr_expect_eq(gate_num(&r, "probed", "allow") + gate_num(&r, "probed", "deny"), 0, "nothing probed");
  cr_expect_geq(gate_num(&r, NULL, "review"), 10, "the unknown controls are held");
  done(&r);
}

/* observe_only never probes (nor clicks anything that activates). */
Test(probe, observe_only_never_probes, .timeout = 150) {
  run_res r;
  const char *const args[] = {"--mode", "observe_only", NULL};
  crawl(&r, args);
  cr_expect_eq(r.writes, 0, "%ld requests reached /danger/: %s", r.writes, r.wrote);
  cr_expect_eq(records(&r, "transition", "Items", NULL), 0);
  cr_expect_eq(records(&r, "decision", "Teal", "probe."), 0);
  cr_expect_eq(gate_num(&r, "probed", "allow") + gate_num(&r, "probed", "deny"), 0, "nothing probed");
  done(&r);
}

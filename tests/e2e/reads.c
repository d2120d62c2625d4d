/* reads.c -- end-to-end: reads over POST (issue 27, docs/safety.md "Reads
 * over POST") in real Chromium on the fixture server, safe_explore: a
 * GraphQL app (tests/fixtures/safety/graphql.html) whose list loads by a
 * query at load and on a click, whose mutation behind a neutral name never
 * reaches the server, whose persisted query passes only by name
 * (--allow-read graphql:Name); --allow-read 'POST /path' lets that endpoint
 * through and no other; a page whose own load sends a mutation
 * (graphql-load.html) gets a review item on its route and a line from
 * snapshot. Writes go to /danger/..., which the fixture server counts. */
#include <criterion/criterion.h>
#include <dirent.h>
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
} run_res;

static const char *page(const char *name) {
  char path[300];
  snprintf(path, sizeof path, "/safety/%s", name);
  return t_fixture_url(0, NULL, path);
}

/* `uiap-crawl crawl|snapshot ARGS... -o OUT`, counting what reached /danger/. */
static void run_cli(run_res *r, const char *cmd, const char *const *args) {
  memset(r, 0, sizeof *r);
  int crawl = !strcmp(cmd, "crawl");
  r->dir = t_tmpdir();
  cr_assert(r->dir);
  snprintf(r->out, sizeof r->out, "%s/%s", r->dir, crawl ? "out" : "graph.json");
  const char *argv[40];
  int n = 0;
  argv[n++] = UIAP_BIN;
  argv[n++] = cmd;
  for (int i = 0; args[i] && n < 32; i++) argv[n++] = args[i];
  if (crawl) {
    argv[n++] = "--max-runtime-ms";
    argv[n++] = "20000";
  }
  argv[n++] = "-o";
  argv[n++] = r->out;
  argv[n] = NULL;
  cJSON *before = t_fixture_hit_table();
  r->run = t_run_argv(argv, 70000);
  usleep(300000);
  r->writes = t_fixture_hits_since(before, "/danger/", r->wrote, sizeof r->wrote);
  cJSON_Delete(before);
  cr_expect_eq(r->run.status, 0, "%s of %s: exit %d: %s", cmd, args[0], r->run.status, r->run.err);
  if (!crawl) return;
  char pkg[700], msg[4096];
  snprintf(pkg, sizeof pkg, "%s/package.json", r->out);
  char *text = t_read_file(pkg, NULL);
  r->pkg = text ? cJSON_Parse(text) : NULL;
  free(text);
  cr_assert(r->pkg, "crawl of %s wrote no package: %s", args[0], r->run.err);
  cr_expect_eq(t_validate("DiscoveryPackage", pkg, msg, sizeof msg), 0, "the package validates: %s", msg);
}

static void done(run_res *r) {
  t_rm_rf(r->dir);
  free(r->dir);
  cJSON_Delete(r->pkg);
  t_run_free(&r->run);
}

/* A run note of the package that holds needle. */
static int note_says(const cJSON *pkg, const char *needle) {
  const cJSON *it;
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(cJSON_GetObjectItem(pkg, "run"), "notes"))
    if (cJSON_IsString(it) && strstr(it->valuestring, needle)) return 1;
  return 0;
}

/* Transitions whose target has this name (the journal's). */
static int clicks(const run_res *r, const char *name) {
  cJSON *ts = t_journal_records(r->out, "transition");
  int n = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, ts) {
    const char *tn = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "target"), "name"));
    n += tn && !strcmp(tn, name);
  }
  cJSON_Delete(ts);
  return n;
}

/* 1 when some state file of the crawl holds text. */
static int a_state_shows(const run_res *r, const char *text) {
  char dir[700];
  snprintf(dir, sizeof dir, "%s/states", r->out);
  DIR *d = opendir(dir);
  struct dirent *e;
  int found = 0;
  while (d && !found && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[1000];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    char *s = t_read_file(path, NULL);
    found = s && strstr(s, text);
    free(s);
  }
  if (d) closedir(d);
  return found;
}

#define EXPECT_NO_WRITES(r, what) \
  cr_expect_eq((r).writes, 0, "%ld requests reached /danger/ during %s: %s", (r).writes, what, (r).wrote)

/* The list loads by its query at load and on "Show items"; the mutation
 * behind "Show details" is clicked and never arrives; the persisted query
 * is blocked; the search and the report are both blocked (no --allow-read). */
Test(reads, graphql_queries_load_and_the_mutation_never_runs, .timeout = 120) {
  long persisted0 = t_fixture_hits("/__test/persisted"), search0 = t_fixture_hits("/__test/search");
  run_res r;
  const char *const args[] = {page("graphql.html"), NULL};
  run_cli(&r, "crawl", args);
  EXPECT_NO_WRITES(r, "the crawl of graphql.html");
  cr_expect(a_state_shows(&r, "Gamma"), "the list loaded by the query at load is in a state");
  cr_expect_geq(clicks(&r, "Show items"), 1, "\"Show items\" was clicked");
  cr_expect(a_state_shows(&r, "Delta"), "the list loaded by the query on a click is in a state");
  cr_expect_geq(clicks(&r, "Show details"), 1, "\"Show details\" was clicked (the guard, not the gate, stops it)");
  cr_expect(t_review_mentions(r.pkg, "unsafe_action_candidate", "a GraphQL mutation MarkSeen"),
            "the blocked mutation is named in a review item");
  cr_expect_geq(clicks(&r, "Show saved"), 1, "\"Show saved\" was clicked");
  cr_expect_eq(t_fixture_hits("/__test/persisted") - persisted0, 0, "the persisted query was blocked");
  cr_expect(t_review_mentions(r.pkg, "unsafe_action_candidate", "persisted GraphQL operation SavedItems"),
            "the blocked persisted query is named");
  cr_expect_eq(t_fixture_hits("/__test/search") - search0, 0, "the search POST was blocked");
  cr_expect(!t_review_mentions(r.pkg, "coverage_gap", "own load"), "the page's own load wrote nothing");
  cr_expect(note_says(r.pkg, "through as reads"), "a run note counts the reads let through");
  done(&r);
}

/* --allow-read graphql:SavedItems lets the persisted query through;
 * --allow-read 'POST /__test/search' the search; the report and the
 * mutation stay blocked. */
Test(reads, allow_read_lets_those_reads_through_only, .timeout = 120) {
  long persisted0 = t_fixture_hits("/__test/persisted"), search0 = t_fixture_hits("/__test/search");
  run_res r;
  const char *const args[] = {page("graphql.html"), "--allow-read", "graphql:SavedItems", "--allow-read",
                              "POST /__test/search", NULL};
  run_cli(&r, "crawl", args);
  EXPECT_NO_WRITES(r, "the crawl of graphql.html with --allow-read");
  cr_expect_geq(t_fixture_hits("/__test/persisted") - persisted0, 1, "the persisted query allowed by name arrived");
  cr_expect_geq(t_fixture_hits("/__test/search") - search0, 1, "the allowed search arrived");
  cr_expect_geq(clicks(&r, "Show report"), 1, "\"Show report\" was clicked");
  cr_expect(t_review_mentions(r.pkg, "unsafe_action_candidate", "/danger/report"), "the report POST was blocked and named");
  done(&r);
  const char *const bad[] = {UIAP_BIN, "crawl", page("graphql.html"), "--allow-read", "/api/search", "-o", "/tmp/x", NULL};
  t_run b = t_run_argv(bad, 10000);
  cr_expect_eq(b.status, 2, "an entry without a method is a usage error: %s", b.err);
  cr_expect(strstr(b.err, "--allow-read"), "the line names the option: %s", b.err);
  t_run_free(&b);
}

/* The plan's environment.metadata.allowRead works as --allow-read. */
Test(reads, the_plan_allow_read_works_as_the_option, .timeout = 120) {
  long search0 = t_fixture_hits("/__test/search");
  char *pdir = t_tmpdir(), plan[700], body[2048];
  snprintf(plan, sizeof plan, "%s/plan.json", pdir);
  snprintf(body, sizeof body,
           "{\"environment\":{\"environmentId\":\"e\",\"baseUrl\":\"%s\",\"metadata\":{\"allowRead\":"
           "[\"POST /__test/search\"]}}}", page("graphql.html"));
  FILE *f = fopen(plan, "w");
  cr_assert(f);
  fputs(body, f);
  fclose(f);
  run_res r;
  const char *const args[] = {"--plan", plan, NULL};
  run_cli(&r, "crawl", args);
  EXPECT_NO_WRITES(r, "the crawl of the plan");
  cr_expect_geq(t_fixture_hits("/__test/search") - search0, 1, "the search the plan allows arrived");
  done(&r);
  snprintf(body, sizeof body,
           "{\"environment\":{\"environmentId\":\"e\",\"baseUrl\":\"%s\",\"metadata\":{\"allowRead\":[\"/x\"]}}}",
           page("graphql.html"));
  f = fopen(plan, "w");
  fputs(body, f);
  fclose(f);
  const char *const bad[] = {UIAP_BIN, "crawl", "--plan", plan, "-o", "/tmp/x-reads", NULL};
  t_run b = t_run_argv(bad, 10000);
  cr_expect_eq(b.status, 2, "a bad allowRead entry refuses the plan: %s", b.err);
  cr_expect(strstr(b.err, "allowRead"), "the line names allowRead: %s", b.err);
  t_run_free(&b);
  t_rm_rf(pdir);
  free(pdir);
}

/* snapshot: the list the query at load fetched is in the graph, nothing
 * was said on stderr; --allow-read is checked as for crawl (33 times: exit 2). */
Test(reads, snapshot_shows_what_a_query_loaded, .timeout = 90) {
  run_res r;
  const char *const args[] = {page("graphql.html"), "--allow-read", "POST /__test/search", NULL};
  run_cli(&r, "snapshot", args);
  EXPECT_NO_WRITES(r, "the snapshot of graphql.html");
  char *g = t_read_file(r.out, NULL);
  cr_expect(g && strstr(g, "Gamma"), "the graph shows the list the query loaded");
  free(g);
  cr_expect(!strstr(r.run.err, "own load"), "nothing to say about the load: %s", r.run.err);
  done(&r);
  const char *argv[80];
  int n = 0;
  argv[n++] = UIAP_BIN;
  argv[n++] = "snapshot";
  argv[n++] = page("graphql.html");
  for (int i = 0; i < 33; i++) argv[n++] = "--allow-read", argv[n++] = "POST /x";
  argv[n] = NULL;
  t_run b = t_run_argv(argv, 10000);
  cr_expect_eq(b.status, 2, "33 --allow-read: exit 2: %s", b.err);
  cr_expect(strstr(b.err, "--allow-read") && strstr(b.err, "at most 32"), "the line names the limit: %s", b.err);
  t_run_free(&b);
}

/* A page whose own load sends a mutation: blocked, a coverage_gap review
 * item on its route naming the operation; snapshot says it on stderr. */
Test(reads, a_write_at_load_is_said, .timeout = 120) {
  run_res r;
  const char *const args[] = {page("graphql-load.html"), NULL};
  run_cli(&r, "crawl", args);
  EXPECT_NO_WRITES(r, "the crawl of graphql-load.html");
  cr_expect(t_review_mentions(r.pkg, "coverage_gap", "The page's own load sent POST"), "a review item says the load wrote");
  cr_expect(t_review_mentions(r.pkg, "coverage_gap", "a GraphQL mutation TrackVisit"), "it names the mutation");
  done(&r);
  run_cli(&r, "snapshot", args);
  EXPECT_NO_WRITES(r, "the snapshot of graphql-load.html");
  const char *line = strstr(r.run.err, "the page's own load sent POST");
  cr_expect(line && strstr(line, "TrackVisit"), "snapshot says it on stderr: %s", r.run.err);
  done(&r);
}

/* A read the page's own load POSTs (not GraphQL): without --allow-read it
 * is failed, the list stays empty and a review item says why; with
 * --allow-read 'POST /__test/search' it arrives, the list loads and its
 * entries are clicked, and nothing is said about the load. */
Test(reads, allow_read_lets_a_load_time_read_through, .timeout = 150) {
  long search0 = t_fixture_hits("/__test/search");
  run_res r;
  const char *const plain[] = {page("search-load.html"), NULL};
  run_cli(&r, "crawl", plain);
  EXPECT_NO_WRITES(r, "the crawl of search-load.html");
  cr_expect_eq(t_fixture_hits("/__test/search") - search0, 0, "without --allow-read the load's POST never arrived");
  cr_expect(t_review_mentions(r.pkg, "coverage_gap", "The page's own load sent POST"), "a review item says the load wrote");
  cr_expect(t_review_mentions(r.pkg, "coverage_gap", "/__test/search"), "it names the endpoint");
  cr_expect_eq(clicks(&r, "Open tickets"), 0, "the list never loaded, so nothing of it was clicked");
  done(&r);
  const char *const allowed[] = {page("search-load.html"), "--allow-read", "POST /__test/search", NULL};
  run_cli(&r, "crawl", allowed);
  EXPECT_NO_WRITES(r, "the crawl of search-load.html with --allow-read");
  cr_expect_geq(t_fixture_hits("/__test/search") - search0, 1, "the allowed load-time search arrived");
  cr_expect(!t_review_mentions(r.pkg, "coverage_gap", "The page's own load sent POST"), "nothing said about the load");
  cr_expect_geq(clicks(&r, "Open tickets"), 1, "the list the read loaded was explored");
  done(&r);
}

/* observe takes --allow-read as crawl and snapshot do: the tab watched
 * loads the list only when the read is allowed; the POST arrives only then. */
Test(reads, observe_takes_allow_read, .timeout = 120) {
  for (int allowed = 0; allowed < 2; allowed++) {
    long search0 = t_fixture_hits("/__test/search");
    char *dir = t_tmpdir(), out[700];
    snprintf(out, sizeof out, "%s/observe.jsonl", dir);
    const char *argv[] = {UIAP_BIN, "observe", page("search-load.html"), "--duration-ms", "2500", "-o", out,
                          allowed ? "--allow-read" : NULL, "POST /__test/search", NULL};
    t_run r = t_run_argv(argv, 60000);
    cr_expect_eq(r.status, 0, "observe exits 0: %s", r.err);
    char *text = t_read_file(out, NULL);
    int listed = text && strstr(text, "Open tickets");
    long hits = t_fixture_hits("/__test/search") - search0;
    if (allowed) {
      cr_expect(listed, "with --allow-read the observed page shows the list the read loaded");
      cr_expect_geq(hits, 1, "with --allow-read the read arrived");
    } else {
      cr_expect(!listed, "without --allow-read the list never loaded");
      cr_expect_eq(hits, 0, "without --allow-read the read never arrived");
    }
    free(text);
    t_run_free(&r);
    t_rm_rf(dir);
    free(dir);
  }
}

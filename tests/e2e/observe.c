/* observe.c -- end-to-end: web.observe against self-mutating fixture pages
 * in real headless Chromium (tests/fixtures/observe/).
 *
 * The property: applying the streamed deltas to the first snapshot gives the
 * graph of a fresh capture taken at the end (modulo revision, metadata, and
 * what 10.3 has no op for: relations, viewport). Plus: every message
 * validates against schema.json, revisions chain, each signal kind fires
 * once for its event and never for a ticking clock, an element keeps its
 * instanceId while it is the same node, and nothing from a cross-origin
 * frame, a closed shadow root or a password field appears in any message.
 * observe_connect: `observe --connect` attached to a tab a second CDP client
 * drives, in a Chromium the test starts itself, sees what that client does,
 * opens and closes no tab and leaves nothing of its own in the page.
 * The measure suite prints the latency from a DOM change to its delta and the
 * CPU cost of observing an idle page. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "crawl.h"
#include "support.h"

/* observe's messages as JSON Lines on the FILE ud (crawl_observe_msg_cb),
 * as `uiap-crawl observe` writes them */
static int t_observe_line(void *ud, const cJSON *msg) {
  char *text = cJSON_PrintUnformatted(msg);
  int rc = !text || fputs(text, ud) < 0 || fputc('\n', ud) < 0 || fflush(ud) != 0 ? -1 : 0;
  free(text);
  return rc;
}

/* ---- helpers ------------------------------------------------------------------ */
static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static const char *get_str(const cJSON *o, const char *k) { return cJSON_GetStringValue(get(o, k)); }

/* Messages of a JSON Lines text, as an array (caller deletes). */
static cJSON *parse_lines(const char *text) {
  cJSON *arr = cJSON_CreateArray();
  const char *p = text;
  int line = 0;
  while (p && *p) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    line++;
    if (n) {
      cJSON *m = cJSON_ParseWithLength(p, n);
      cr_assert(m, "line %d is not JSON: %.200s", line, p);
      cJSON_AddItemToArray(arr, m);
    }
    p = nl ? nl + 1 : NULL;
  }
  return arr;
}

static unsigned long long rev_num(const char *r) {
  cr_assert(r && !strncmp(r, "rev_", 4), "revision %s is rev_N", r ? r : "(null)");
  return strtoull(r + 4, NULL, 10);
}

static int cmp_by_id(const void *a, const void *b) {
  const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
  static const char *const keys[] = {"instanceId", "scopeId", "documentId"};
  for (int k = 0; k < 3; k++) {
    const char *u = get_str(x, keys[k]), *v = get_str(y, keys[k]);
    if (u && v) return strcmp(u, v);
  }
  return 0;
}

static void sort_array(cJSON *g, const char *key) {
  cJSON *arr = cJSON_GetObjectItemCaseSensitive(g, key);
  int n = cJSON_GetArraySize(arr);
  if (n < 2) return;
  cJSON **v = malloc(sizeof *v * (size_t)n);
  for (int i = 0; i < n; i++) v[i] = cJSON_DetachItemFromArray(arr, 0);
  qsort(v, (size_t)n, sizeof *v, cmp_by_id);
  for (int i = 0; i < n; i++) cJSON_AddItemToArray(arr, v[i]);
  free(v);
}

/* The graph without what deltas do not carry, arrays in id order. */
static cJSON *canon(const cJSON *g) {
  cJSON *c = cJSON_Duplicate(g, 1);
  static const char *const drop[] = {"revision", "metadata", "relations", "viewport", "signals"};
  for (size_t i = 0; i < sizeof drop / sizeof *drop; i++) cJSON_DeleteItemFromObjectCaseSensitive(c, drop[i]);
  sort_array(c, "documents");
  sort_array(c, "scopes");
  sort_array(c, "elements");
  return c;
}

/* Where two canonical graphs differ first, for the failure message. */
static void first_difference(const cJSON *a, const cJSON *b, char *out, size_t n) {
  snprintf(out, n, "(no difference found)");
  static const char *const arrays[][2] = {{"documents", "documentId"}, {"scopes", "scopeId"}, {"elements", "instanceId"}};
  for (int k = 0; k < 3; k++) {
    const cJSON *x = get(a, arrays[k][0]), *y = get(b, arrays[k][0]), *it;
    cJSON_ArrayForEach(it, x) {
      const char *id = get_str(it, arrays[k][1]);
      const cJSON *other = NULL, *o;
      cJSON_ArrayForEach(o, y) if (!strcmp(get_str(o, arrays[k][1]), id)) other = o;
      if (!other || !cJSON_Compare(it, other, 1)) {
        char *s1 = cJSON_PrintUnformatted(it), *s2 = other ? cJSON_PrintUnformatted(other) : strdup("(missing)");
        snprintf(out, n, "%s %s\n applied: %.1500s\n fresh:   %.1500s", arrays[k][0], id, s1, s2);
        free(s1);
        free(s2);
        return;
      }
    }
    cJSON_ArrayForEach(it, y) {
      const char *id = get_str(it, arrays[k][1]);
      int found = 0;
      const cJSON *o;
      cJSON_ArrayForEach(o, x) found |= !strcmp(get_str(o, arrays[k][1]), id);
      if (!found) {
        snprintf(out, n, "%s %s: only in the fresh graph", arrays[k][0], id);
        return;
      }
    }
  }
  static const char *const single[] = {"route", "focus", "selection", "rootDocumentId"};
  for (size_t k = 0; k < sizeof single / sizeof *single; k++)
    if (!get(a, single[k]) != !get(b, single[k]) || (get(a, single[k]) && !cJSON_Compare(get(a, single[k]), get(b, single[k]), 1))) {
      snprintf(out, n, "%s differs", single[k]);
      return;
    }
}

/* Apply the stream to its first snapshot: every delta must apply, chain its
 * revisions, and refer only to what is known. Returns the applied graph. */
static cJSON *replay(const cJSON *msgs, int *ndeltas, int *nops) {
  cJSON *graph = NULL;
  unsigned long long prev = 0;
  *ndeltas = *nops = 0;
  const cJSON *m;
  int i = 0;
  cJSON_ArrayForEach(m, msgs) {
    const char *type = get_str(m, "type");
    const cJSON *p = get(m, "payload");
    if (!strcmp(type, "web.observe.started")) {
      cr_expect_eq(i, 0, "web.observe.started comes first");
    } else if (!strcmp(type, "web.state.snapshot")) {
      cr_assert_null(graph, "one snapshot");
      graph = cJSON_Duplicate(get(p, "graph"), 1);
      prev = rev_num(get_str(graph, "revision"));
    } else if (!strcmp(type, "web.state.delta")) {
      cr_assert(graph, "the snapshot comes before the first delta");
      unsigned long long r = rev_num(get_str(p, "revision")), base = rev_num(get_str(p, "baseRevision"));
      cr_assert_eq(base, prev, "delta %llu: baseRevision is the previous revision %llu, not %llu", r, prev, base);
      cr_assert_gt(r, prev, "revisions strictly increase");
      char err[512];
      pg_delta_code rc = pg_delta_apply(graph, p, err, sizeof err);
      cr_assert_eq(rc, PG_DELTA_OK, "delta rev_%llu applies: %s", r, err);
      prev = r;
      (*ndeltas)++;
      *nops += cJSON_GetArraySize(get(p, "ops"));
    }
    i++;
  }
  const cJSON *last = cJSON_GetArrayItem(msgs, cJSON_GetArraySize(msgs) - 1);
  cr_expect_str_eq(get_str(last, "type"), "web.observe.stopped", "web.observe.stopped comes last");
  return graph;
}

/* Validate the stream: envelopes, then each payload by its type. */
static void validate_stream(const char *path, const cJSON *msgs) {
  char msg[4096];
  cr_assert_eq(t_validate("UiapMessage", path, msg, sizeof msg), 0, "messages of %s: %s", path, msg);
  static const char *const defs[][2] = {
    {"web.observe.started", "WebObserveStartedPayload"}, {"web.state.snapshot", "WebStateSnapshotPayload"},
    {"web.state.delta", "WebStateDeltaPayload"},         {"web.signal", "WebSignalPayload"},
    {"web.observe.stopped", "WebObserveStoppedPayload"},
  };
  for (size_t k = 0; k < sizeof defs / sizeof *defs; k++) {
    char p2[600];
    snprintf(p2, sizeof p2, "%s.%s.jsonl", path, defs[k][1]);
    FILE *f = fopen(p2, "w");
    cr_assert(f);
    int n = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, msgs) {
      if (strcmp(get_str(m, "type"), defs[k][0])) continue;
      char *t = cJSON_PrintUnformatted(get(m, "payload"));
      fprintf(f, "%s\n", t);
      free(t);
      n++;
    }
    fclose(f);
    if (n) cr_expect_eq(t_validate(defs[k][1], p2, msg, sizeof msg), 0, "%s payloads: %s", defs[k][0], msg);
    unlink(p2);
  }
}

static void no_secrets(const char *text, const char *what) {
  static const char *const secrets[] = {"XO-SECRET", "CLOSED-SECRET", "hunter2"};
  for (size_t k = 0; k < sizeof secrets / sizeof *secrets; k++)
    cr_expect_null(strstr(text, secrets[k]), "%s: \"%s\" crossed a boundary: ...%.200s", what, secrets[k],
                   strstr(text, secrets[k]) ? strstr(text, secrets[k]) - 40 : "");
}

static cdp_client *launch(void) {
  cdp_client *c = NULL;
  char err[512];
  cdp_launch_opts lo = {0};
  cr_assert_eq(cdp_launch(&lo, &c, err, sizeof err), CDP_OK, "Chromium starts: %s", err);
  return c;
}

/* ---- the property --------------------------------------------------------------- */
/* While the run goes on, the stream is read back and applied as a consumer
 * would; at the end of every round (the page pauses, showing {round-N}) the
 * applied graph is compared with a fresh capture of the same page. */
typedef struct checker {
  crawl_page *p;
  const char *path;
  long offset;
  cJSON *applied;
  unsigned long long prev;
  int next_round, rounds, checks, deltas, ops;
  int seed;
} checker;

static int has_stable(const cJSON *g, const char *sid) {
  const cJSON *e;
  cJSON_ArrayForEach(e, get(g, "elements")) if (get_str(e, "stableId") && !strcmp(get_str(e, "stableId"), sid)) return 1;
  return 0;
}

static void compare_fresh(checker *k, const char *when) {
  pg_graph *g = NULL;
  pg_options go = {0};
  cr_assert_eq(crawl_page_capture(k->p, &go, &g), CRAWL_OK, "fresh capture");
  cJSON *fresh = pg_graph_to_json(g);
  pg_graph_free(g);
  cJSON *a = canon(k->applied), *b = canon(fresh);
  char diff[4000];
  first_difference(a, b, diff, sizeof diff);
  cr_assert(cJSON_Compare(a, b, 1), "seed %d, %s: applied deltas != fresh snapshot: %s", k->seed, when, diff);
  k->checks++;
  cJSON_Delete(a);
  cJSON_Delete(b);
  cJSON_Delete(fresh);
}

/* Apply what the stream holds beyond k->offset (whole lines only). */
static void catch_up(checker *k) {
  FILE *f = fopen(k->path, "r");
  cr_assert(f);
  fseek(f, k->offset, SEEK_SET);
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, f)) > 0 && line[n - 1] == '\n') {
    k->offset += n;
    cJSON *m = cJSON_ParseWithLength(line, (size_t)n);
    cr_assert(m, "a line of JSON");
    const char *type = get_str(m, "type");
    const cJSON *p = get(m, "payload");
    if (!strcmp(type, "web.state.snapshot")) {
      k->applied = cJSON_Duplicate(get(p, "graph"), 1);
      k->prev = rev_num(get_str(k->applied, "revision"));
    } else if (!strcmp(type, "web.state.delta")) {
      cr_assert(k->applied, "the snapshot comes first");
      unsigned long long r = rev_num(get_str(p, "revision")), base = rev_num(get_str(p, "baseRevision"));
      cr_assert_eq(base, k->prev, "baseRevision is the previous revision");
      cr_assert_gt(r, k->prev, "revisions strictly increase");
      char err[512];
      pg_delta_code rc = pg_delta_apply(k->applied, p, err, sizeof err);
      cr_assert_eq(rc, PG_DELTA_OK, "seed %d: delta rev_%llu applies: %s", k->seed, r, err);
      k->prev = r;
      k->deltas++;
      k->ops += cJSON_GetArraySize(get(p, "ops"));
    }
    cJSON_Delete(m);
  }
  free(line);
  fclose(f);
}

/* At a confirmed state (a capture that found nothing new) showing the
 * round's button: compare. */
static void on_capture_check(void *ud, unsigned long long rev, const cJSON *graph, int published) {
  checker *k = ud;
  catch_up(k);
  if (published || k->next_round > k->rounds) return;
  char sid[32];
  if (k->next_round < k->rounds) snprintf(sid, sizeof sid, "round-%d", k->next_round);
  else snprintf(sid, sizeof sid, "done");
  if (!has_stable(k->applied, sid)) return;
  compare_fresh(k, sid);
  k->next_round++;
}

static void property_run(cdp_client *c, int seed, int rounds, int steps, int throttle) {
  char path[256], url[512];
  snprintf(path, sizeof path, "/tmp/uiap-observe-%d-%d.jsonl", (int)getpid(), seed);
  snprintf(url, sizeof url, "%s?seed=%d&steps=%d&rounds=%d&interval=40&delay=20&xo=%d",
           t_fixture_url(0, NULL, "/observe/random.html"), seed, steps, rounds, t_fixture_port(1));
  /* start; then each round's button; then done */
  cJSON *script = cJSON_CreateArray();
  cJSON *st = cJSON_Parse("{\"step\":\"click\",\"target\":{\"stableId\":\"start\"}}");
  cJSON_AddItemToArray(script, st);
  for (int r = 1; r < rounds; r++) {
    char sid[32];
    snprintf(sid, sizeof sid, "round-%d", r);
    cJSON *w = cJSON_CreateObject(), *t = cJSON_CreateObject();
    cJSON_AddStringToObject(w, "step", "wait");
    cJSON_AddStringToObject(t, "stableId", sid);
    cJSON_AddItemToObject(w, "target", t);
    cJSON_AddNumberToObject(w, "timeoutMs", 30000);
    cJSON_AddItemToArray(script, w);
    cJSON *cl = cJSON_Duplicate(w, 1);
    cJSON_ReplaceItemInObject(cl, "step", cJSON_CreateString("click"));
    cJSON_AddItemToArray(script, cl);
  }
  cJSON_AddItemToArray(script, cJSON_Parse("{\"step\":\"wait\",\"target\":{\"stableId\":\"done\"},\"timeoutMs\":30000}"));
  char err[256];
  cr_assert_eq(crawl_observe_script_check(script, err, sizeof err), 0, "%s", err);
  crawl_page *p = NULL;
  cr_assert_eq(crawl_page_open(c, NULL, &p), CRAWL_OK, "a tab opens");
  checker k = {.p = p, .path = path, .rounds = rounds, .next_round = 1, .seed = seed};
  crawl_observe_opts o = {.url = url, .page = p, .throttle_ms = throttle, .script = script,
                          .on_capture = on_capture_check, .on_capture_ud = &k};
  FILE *f = fopen(path, "w");
  cr_assert(f);
  crawl_observe_stats stats;
  crawl_code rc = crawl_observe_run(c, &o, t_observe_line, f, &stats);
  fclose(f);
  cr_assert_eq(rc, CRAWL_OK, "observe %s: %s (%s)", url, crawl_strerror(rc), stats.error);
  cr_expect_str_eq(stats.stopped_by, "script");
  catch_up(&k);
  compare_fresh(&k, "the end");
  cr_expect_eq(k.checks, rounds + 1, "seed %d: every round was compared (%d of %d)", seed, k.checks, rounds + 1);
  cr_expect_gt(k.deltas, rounds, "seed %d: the page changed, so there were deltas (%d)", seed, k.deltas);
  char *text = t_read_file(path, NULL);
  cr_assert(text);
  cJSON *msgs = parse_lines(text);
  int nd, no;
  cJSON *again = replay(msgs, &nd, &no); /* the whole stream, once more, from the top */
  cJSON_Delete(again);
  no_secrets(text, url);
  validate_stream(path, msgs);
  fprintf(stderr, "observe property: seed %d, %d rounds x %d steps, throttle %d: %d deltas, %d ops, %d comparisons "
          "with a fresh capture, %ld captures (%ld unchanged)\n",
          seed, rounds, steps, throttle, k.deltas, k.ops, k.checks, stats.captures, stats.unchanged);
  crawl_page_close(p);
  cJSON_Delete(k.applied);
  cJSON_Delete(msgs);
  cJSON_Delete(script);
  free(text);
  unlink(path);
}

/* 4 seeds x 50 rounds x 6 steps: 1200 random mutations, 200 mutation
 * sequences each compared with a fresh capture, under four throttles. */
Test(observe_property, deltas_replay_to_the_fresh_snapshot, .timeout = 600) {
  cdp_client *c = launch();
  static const int throttles[] = {-1, 0, 250, 40};
  for (int seed = 1; seed <= 4; seed++) property_run(c, seed, 25, 6, throttles[seed - 1]);
  cdp_client_free(c);
}

/* ---- the CLI -------------------------------------------------------------------- */
static void need_observe_command(void) {
  const char *argv[] = {UIAP_BIN, "observe", "--help", NULL};
  t_run r = t_run_argv(argv, 10000);
  int ok = r.status == 0;
  t_run_free(&r);
  cr_assert(ok, "uiap-crawl has an observe command (main.c dispatches to cli_cmd_observe)");
}

static cJSON *run_cli(const char *const *argv, t_run *r, char *path, size_t pathlen) {
  need_observe_command();
  *r = t_run_argv(argv, 120000);
  cr_assert_eq(r->status, 0, "uiap-crawl observe exits 0 (%d): %s", r->status, r->err);
  snprintf(path, pathlen, "/tmp/uiap-observe-cli-%d.jsonl", (int)getpid());
  t_write_file(path, r->out);
  return parse_lines(r->out);
}

static int count_kind(const cJSON *msgs, const char *kind, int in_deltas, const cJSON **last) {
  int n = 0;
  const cJSON *m, *s;
  cJSON_ArrayForEach(m, msgs) {
    const char *type = get_str(m, "type");
    if (in_deltas && !strcmp(type, "web.state.delta")) {
      cJSON_ArrayForEach(s, get(get(m, "payload"), "signals"))
        if (!kind || !strcmp(get_str(s, "kind"), kind)) { n++; if (last) *last = s; }
    } else if (!in_deltas && !strcmp(type, "web.signal")) {
      s = get(get(m, "payload"), "signal");
      if (!kind || !strcmp(get_str(s, "kind"), kind)) { n++; if (last) *last = s; }
    }
  }
  return n;
}

Test(observe_signals, each_kind_once_and_none_for_the_clock, .timeout = 180) {
  const char *argv[] = {UIAP_BIN, "observe", t_fixture_url(0, NULL, "/observe/signals.html"), "--script",
                        UIAP_SRC "/tests/fixtures/observe/signals-script.json", "--signals", "all",
                        "--allow-writes" /* its form submits on purpose */, NULL};
  t_run r;
  char path[256];
  cJSON *msgs = run_cli(argv, &r, path, sizeof path);
  static const struct { const char *kind; int n; } want[] = {
    {"dialog.opened", 1}, {"dialog.closed", 1}, {"toast.shown", 1}, {"status.changed", 1},
    {"validation.changed", 1}, {"submission.started", 1}, {"submission.finished", 1}, {"route.changed", 2},
  };
  int total = 0;
  for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
    cr_expect_eq(count_kind(msgs, want[k].kind, 1, NULL), want[k].n, "%s in deltas: %d, want %d", want[k].kind,
                 count_kind(msgs, want[k].kind, 1, NULL), want[k].n);
    cr_expect_eq(count_kind(msgs, want[k].kind, 0, NULL), want[k].n, "%s as web.signal", want[k].kind);
    total += want[k].n;
  }
  cr_expect_eq(count_kind(msgs, NULL, 1, NULL), total, "no other signal (the clock ticks all the time)");
  const cJSON *s = NULL;
  count_kind(msgs, "toast.shown", 1, &s);
  cr_expect(s && strstr(get_str(s, "text"), "[redacted]"), "the toast's echo of the password is masked");
  cr_expect_str_eq(get_str(s, "level"), "success");
  count_kind(msgs, "submission.finished", 1, &s);
  cr_expect_str_eq(get_str(s, "level"), "success", "the POST answered 200");
  cr_expect(cJSON_GetNumberValue(get(get(s, "detail"), "requests")) == 1, "one request belongs to the submit");
  cr_expect_str_eq(get_str(get(get(s, "detail"), "endpoint"), "template"), "/__test/slow",
                   "the submission names its endpoint's template (issue 28)");
  cr_expect_str_eq(get_str(get(get(s, "detail"), "endpoint"), "method"), "POST");
  const char *form = get_str(s, "scopeId");
  count_kind(msgs, "submission.started", 1, &s);
  cr_expect(form && get_str(s, "scopeId") && !strcmp(form, get_str(s, "scopeId")), "both name the form scope");
  count_kind(msgs, "validation.changed", 1, &s);
  cr_expect_str_eq(get_str(get(s, "target"), "stableId"), "email");
  cr_expect_str_eq(get_str(s, "level"), "error");
  int same = 0, full = 0;
  const cJSON *m, *x;
  cJSON_ArrayForEach(m, msgs)
    cJSON_ArrayForEach(x, get(get(m, "payload"), "signals"))
      if (!strcmp(get_str(x, "kind"), "route.changed")) {
        if (cJSON_IsTrue(get(get(x, "detail"), "sameDocument"))) same++;
        else full++;
      }
  cr_expect(same == 1 && full == 1, "one same-document and one full navigation (%d, %d)", same, full);
  no_secrets(r.out, "signals");
  validate_stream(path, msgs);
  int nd, no;
  cJSON *applied = replay(msgs, &nd, &no);
  cJSON_Delete(applied);
  cJSON_Delete(msgs);
  unlink(path);
  t_run_free(&r);
}

Test(observe_ids, same_node_same_instance_id, .timeout = 120) {
  const char *argv[] = {UIAP_BIN, "observe", t_fixture_url(0, NULL, "/observe/ids.html"), "--script",
                        UIAP_SRC "/tests/fixtures/observe/ids-script.json", NULL};
  t_run r;
  char path[256];
  cJSON *msgs = run_cli(argv, &r, path, sizeof path);
  const cJSON *snap = get(get(cJSON_GetArrayItem(msgs, 1), "payload"), "graph");
  cr_assert(snap, "a snapshot comes second");
  const char *ren = NULL, *rep = NULL;
  const cJSON *e;
  cJSON_ArrayForEach(e, get(snap, "elements")) {
    if (get_str(e, "stableId") && !strcmp(get_str(e, "stableId"), "ren")) ren = get_str(e, "instanceId");
    if (get_str(e, "name") && !strcmp(get_str(e, "name"), "Replace me")) rep = get_str(e, "instanceId");
  }
  cr_assert(ren && rep);
  int renamed = 0, ren_removed = 0, rep_removed = 0, rep_new = 0;
  const cJSON *m, *op;
  cJSON_ArrayForEach(m, msgs) {
    cJSON_ArrayForEach(op, get(get(m, "payload"), "ops")) {
      const char *kind = get_str(op, "op");
      const cJSON *el = get(op, "element");
      if (!strcmp(kind, "upsertElement") && !strcmp(get_str(el, "instanceId"), ren) && get_str(el, "name") &&
          !strcmp(get_str(el, "name"), "Renamed"))
        renamed++;
      if (!strcmp(kind, "removeElement") && !strcmp(get_str(op, "instanceId"), ren)) ren_removed++;
      if (!strcmp(kind, "removeElement") && !strcmp(get_str(op, "instanceId"), rep)) rep_removed++;
      if (!strcmp(kind, "upsertElement") && get_str(el, "name") && !strcmp(get_str(el, "name"), "Replace me") &&
          strcmp(get_str(el, "instanceId"), rep))
        rep_new++;
    }
  }
  cr_expect_eq(renamed, 1, "the renamed button is one upsertElement with its old instanceId");
  cr_expect_eq(ren_removed, 0, "and never removed");
  cr_expect(rep_removed == 1 && rep_new == 1, "a replaced node is a new instance (removed %d, new %d)", rep_removed, rep_new);
  validate_stream(path, msgs);
  cJSON_Delete(msgs);
  unlink(path);
  t_run_free(&r);
}

Test(observe_cli, clock_only_page_stays_silent_and_delta_only_mode, .timeout = 120) {
  /* ids.html without the script: only its clock ticks (outside any live region) */
  const char *argv[] = {UIAP_BIN, "observe", t_fixture_url(0, NULL, "/observe/ids.html"), "--duration-ms", "2500",
                        "--mode", "delta-only", "--signals", "all", NULL};
  t_run r;
  char path[256];
  cJSON *msgs = run_cli(argv, &r, path, sizeof path);
  cr_assert_eq(cJSON_GetArraySize(msgs), 2, "started and stopped only: no snapshot (delta-only), no delta, no "
               "signal for a clock (%d messages)", cJSON_GetArraySize(msgs));
  cr_expect_str_eq(get_str(cJSON_GetArrayItem(msgs, 0), "type"), "web.observe.started");
  cr_expect(get_str(get(cJSON_GetArrayItem(msgs, 0), "payload"), "initialRevision"));
  const cJSON *stop = cJSON_GetArrayItem(msgs, 1);
  cr_expect_str_eq(get_str(stop, "type"), "web.observe.stopped");
  cr_expect_str_eq(get_str(get(stop, "payload"), "reason"), "duration");
  validate_stream(path, msgs);
  cJSON_Delete(msgs);
  unlink(path);
  t_run_free(&r);
}

Test(observe_cli, usage_errors) {
  need_observe_command();
  const char *a1[] = {UIAP_BIN, "observe", NULL};
  t_run r = t_run_argv(a1, 10000);
  cr_expect_eq(r.status, 2, "no URL: usage error");
  t_run_free(&r);
  const char *a2[] = {UIAP_BIN, "observe", "http://127.0.0.1:9/", "--signals", "toast.shown,bogus", NULL};
  r = t_run_argv(a2, 10000);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "bogus"), "names the bad value: %s", r.err);
  t_run_free(&r);
  char *tmp = t_tmpdir(), sp[600];
  snprintf(sp, sizeof sp, "%s/s.json", tmp);
  t_write_file(sp, "[{\"step\":\"click\"}]");
  const char *a3[] = {UIAP_BIN, "observe", "http://127.0.0.1:9/", "--script", sp, NULL};
  r = t_run_argv(a3, 10000);
  cr_expect_eq(r.status, 2, "a bad script is a usage error before any browser starts");
  cr_expect(strstr(r.err, "step 0"), "%s", r.err);
  t_run_free(&r);
  unlink(sp);
  rmdir(tmp);
  free(tmp);
}

Test(observe_cli, sigint_stops_with_a_stopped_message, .timeout = 60) {
  need_observe_command();
  char *tmp = t_tmpdir(), outp[600];
  snprintf(outp, sizeof outp, "%s.out", tmp);
  char url[512];
  snprintf(url, sizeof url, "%s", t_fixture_url(0, NULL, "/observe/idle.html")); /* server up before the fork */
  pid_t pid = fork();
  if (pid == 0) {
    setenv("TMPDIR", tmp, 1);
    freopen(outp, "w", stdout);
    freopen("/dev/null", "w", stderr);
    execl(UIAP_BIN, UIAP_BIN, "observe", url, (char *)NULL);
    _exit(127);
  }
  /* wait for the snapshot */
  for (int i = 0; i < 300; i++) {
    char *t = t_read_file(outp, NULL);
    int ok = t && strstr(t, "web.state.snapshot");
    free(t);
    if (ok) break;
    usleep(50000);
  }
  usleep(300000);
  kill(pid, SIGINT);
  int st = 0, waited = 0;
  while (waitpid(pid, &st, WNOHANG) == 0 && waited < 5000) {
    usleep(50000);
    waited += 50;
  }
  cr_assert_lt(waited, 5000, "stopped within 5 s of SIGINT");
  cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 130, "exit 130");
  char *text = t_read_file(outp, NULL);
  cJSON *msgs = parse_lines(text);
  const cJSON *last = cJSON_GetArrayItem(msgs, cJSON_GetArraySize(msgs) - 1);
  cr_expect_str_eq(get_str(last, "type"), "web.observe.stopped");
  cr_expect_str_eq(get_str(get(last, "payload"), "reason"), "signal");
  for (int i = 0; i < 60 && t_count_procs(tmp) > 0; i++) usleep(50000);
  cr_expect_eq(t_count_procs(tmp), 0, "no Chromium left");
  cJSON_Delete(msgs);
  free(text);
  unlink(outp);
  rmdir(tmp);
  free(tmp);
}

/* ---- the page goes away -------------------------------------------------------------- */
typedef struct { cdp_client *c; int closed; } closer;

/* After the snapshot, close the observed tab as a user would. */
static void close_tab(void *ud, unsigned long long rev, const cJSON *graph, int published) {
  closer *k = ud;
  if (k->closed++) return;
  cJSON *res = NULL;
  cr_assert_eq(cdp_call(k->c, NULL, "Target.getTargets", NULL, &res, 5000), CDP_OK);
  const cJSON *t;
  cJSON_ArrayForEach(t, get(res, "targetInfos")) {
    const char *url = get_str(t, "url");
    if (url && strstr(url, "/observe/idle.html")) {
      cJSON *a = cJSON_CreateObject();
      cJSON_AddStringToObject(a, "targetId", get_str(t, "targetId"));
      int id = cdp_send(k->c, NULL, "Target.closeTarget", a);
      if (id > 0) cdp_abandon(k->c, id);
    }
  }
  cJSON_Delete(res);
}

Test(observe_lifecycle, closing_the_page_stops_the_stream, .timeout = 60) {
  cdp_client *c = launch();
  closer k = {c, 0};
  crawl_observe_opts o = {.url = t_fixture_url(0, NULL, "/observe/idle.html"), .on_capture = close_tab, .on_capture_ud = &k,
                          .duration_ms = 20000};
  char path[256];
  snprintf(path, sizeof path, "/tmp/uiap-observe-close-%d.jsonl", (int)getpid());
  FILE *f = fopen(path, "w");
  crawl_observe_stats st;
  long long t0 = cdp_now_ms();
  crawl_code rc = crawl_observe_run(c, &o, t_observe_line, f, &st);
  fclose(f);
  cr_expect_eq(rc, CRAWL_OK, "%s", st.error);
  cr_expect_str_eq(st.stopped_by, "pageClosed");
  cr_expect_lt(cdp_now_ms() - t0, 10000, "stopped when the tab closed, not at the end of the duration");
  char *text = t_read_file(path, NULL);
  cJSON *msgs = parse_lines(text);
  const cJSON *last = cJSON_GetArrayItem(msgs, cJSON_GetArraySize(msgs) - 1);
  cr_expect_str_eq(get_str(last, "type"), "web.observe.stopped");
  cr_expect_str_eq(get_str(get(last, "payload"), "reason"), "pageClosed");
  cJSON_Delete(msgs);
  free(text);
  unlink(path);
  cdp_client_free(c);
}

typedef struct { cdp_client *c; crawl_page *p; int done; } crasher;

static void crash_tab(void *ud, unsigned long long rev, const cJSON *graph, int published) {
  crasher *k = ud;
  if (k->done++) return;
  int id = cdp_send(k->c, crawl_page_session(k->p), "Page.crash", NULL);
  if (id > 0) cdp_abandon(k->c, id);
}

Test(observe_lifecycle, a_crash_stops_the_stream, .timeout = 60) {
  cdp_client *c = launch();
  crawl_page *p = NULL;
  cr_assert_eq(crawl_page_open(c, NULL, &p), CRAWL_OK);
  crasher k = {c, p, 0};
  crawl_observe_opts o = {.url = t_fixture_url(0, NULL, "/observe/idle.html"), .page = p, .on_capture = crash_tab,
                          .on_capture_ud = &k, .duration_ms = 20000};
  char path[256];
  snprintf(path, sizeof path, "/tmp/uiap-observe-crash-%d.jsonl", (int)getpid());
  FILE *f = fopen(path, "w");
  crawl_observe_stats st;
  crawl_code rc = crawl_observe_run(c, &o, t_observe_line, f, &st);
  fclose(f);
  cr_expect_eq(rc, CRAWL_CRASHED, "%s", crawl_strerror(rc));
  char *text = t_read_file(path, NULL);
  cJSON *msgs = parse_lines(text);
  const cJSON *last = cJSON_GetArrayItem(msgs, cJSON_GetArraySize(msgs) - 1);
  cr_expect_str_eq(get_str(get(last, "payload"), "reason"), "crashed");
  cJSON_Delete(msgs);
  free(text);
  unlink(path);
  crawl_page_close(p);
  cdp_client_free(c);
}

/* ---- measurements ------------------------------------------------------------------ */
static int cmp_ll(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return x < y ? -1 : x > y;
}

static long long ts_ms(const char *ts) {
  struct tm tm = {0};
  int ms = 0;
  if (sscanf(ts, "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms) != 7)
    return 0;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return (long long)timegm(&tm) * 1000 + ms;
}

static void latency_run(int throttle_arg, const char *label) {
  char th[16];
  snprintf(th, sizeof th, "%d", throttle_arg);
  const char *argv[] = {UIAP_BIN, "observe", t_fixture_url(0, NULL, "/observe/latency.html?n=30"), "--script",
                        UIAP_SRC "/tests/fixtures/observe/wait-done.json", "--throttle-ms", th, NULL};
  t_run r;
  char path[256];
  cJSON *msgs = run_cli(argv, &r, path, sizeof path);
  long long lat[64];
  int n = 0;
  const cJSON *m, *op;
  cJSON_ArrayForEach(m, msgs) {
    if (strcmp(get_str(m, "type"), "web.state.delta")) continue;
    long long at = ts_ms(get_str(m, "ts"));
    cJSON_ArrayForEach(op, get(get(m, "payload"), "ops")) {
      const char *name = get_str(get(op, "element"), "name");
      long long t;
      if (name && sscanf(name, "t %lld", &t) == 1 && t > 0 && n < 64) lat[n++] = at - t;
    }
  }
  cr_assert_gt(n, 20, "most renames reached a delta (%d)", n);
  qsort(lat, (size_t)n, sizeof *lat, cmp_ll);
  fprintf(stderr, "observe latency (%s): DOM change -> delta on stdout: median %lld ms, p90 %lld ms, max %lld ms (%d changes)\n",
          label, lat[n / 2], lat[n * 9 / 10], lat[n - 1], n);
  cr_expect_lt(lat[n / 2], 1000, "median latency under a second");
  cJSON_Delete(msgs);
  unlink(path);
  t_run_free(&r);
}

Test(observe_measure, latency, .timeout = 180) {
  latency_run(0, "--throttle-ms 0");
  latency_run(100, "default throttle 100 ms");
}

/* CPU seconds (user+system) of pid and its descendants. */
static double tree_cpu(pid_t root) {
  DIR *d = opendir("/proc");
  if (!d) return 0;
  enum { MAXP = 4096 };
  static int pids[MAXP], ppids[MAXP];
  static double cpu[MAXP];
  int n = 0;
  struct dirent *de;
  long hz = sysconf(_SC_CLK_TCK);
  while ((de = readdir(d)) && n < MAXP) {
    int pid = atoi(de->d_name);
    if (pid <= 0) continue;
    char p[64], buf[1024];
    snprintf(p, sizeof p, "/proc/%d/stat", pid);
    FILE *f = fopen(p, "r");
    if (!f) continue;
    size_t k = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[k] = 0;
    char *rp = strrchr(buf, ')');
    if (!rp) continue;
    int ppid = 0;
    unsigned long ut = 0, stt = 0;
    /* after ")": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
    if (sscanf(rp + 2, "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ppid, &ut, &stt) != 3) continue;
    pids[n] = pid;
    ppids[n] = ppid;
    cpu[n] = (double)(ut + stt) / (double)hz;
    n++;
  }
  closedir(d);
  double sum = 0;
  for (int i = 0; i < n; i++)
    for (int p = pids[i], hops = 0; p > 1 && hops < 64; hops++) {
      if (p == root) { sum += cpu[i]; break; }
      int next = 0;
      for (int j = 0; j < n; j++) if (pids[j] == p) next = ppids[j];
      p = next;
    }
  return sum;
}

static double self_cpu(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* Observing an idle page: CPU of this process and of the browser tree, per
 * minute, against the same page open but not observed. UIAP_IDLE_MS sets
 * the window (default 10000), UIAP_IDLE_PAGE the fixture (default
 * /observe/idle.html; /observe/ids.html has a clock ticking at 10 Hz). */
Test(observe_measure, idle_cpu, .timeout = 400) {
  long ms = getenv("UIAP_IDLE_MS") ? atol(getenv("UIAP_IDLE_MS")) : 10000;
  cdp_client *c = launch();
  pid_t bpid = cdp_client_pid(c);
  const char *page = getenv("UIAP_IDLE_PAGE") ? getenv("UIAP_IDLE_PAGE") : "/observe/idle.html";
  const char *url = t_fixture_url(0, NULL, page);
  /* baseline: the page open, nobody observing */
  crawl_page *p = NULL;
  cr_assert_eq(crawl_page_open(c, NULL, &p), CRAWL_OK);
  cr_assert_eq(crawl_page_goto(p, url), CRAWL_OK);
  for (long long end = cdp_now_ms() + 3000; cdp_now_ms() < end;) cdp_pump(c, 200); /* start-up is over */
  double b0 = tree_cpu(bpid), s0 = self_cpu();
  for (long long end = cdp_now_ms() + ms; cdp_now_ms() < end;) cdp_pump(c, 200);
  double b1 = tree_cpu(bpid), s1 = self_cpu();
  crawl_page_close(p);
  /* observed: the page loaded first, so the window holds the observing only */
  cr_assert_eq(crawl_page_open(c, NULL, &p), CRAWL_OK);
  cr_assert_eq(crawl_page_goto(p, url), CRAWL_OK);
  FILE *f = fopen("/dev/null", "w");
  crawl_observe_opts o = {.page = p, .duration_ms = ms};
  crawl_observe_stats st;
  double b2 = tree_cpu(bpid), s2 = self_cpu();
  cr_assert_eq(crawl_observe_run(c, &o, t_observe_line, f, &st), CRAWL_OK, "%s", st.error);
  double b3 = tree_cpu(bpid), s3 = self_cpu();
  fclose(f);
  crawl_page_close(p);
  cdp_client_free(c);
  double per_min = 60000.0 / (double)ms;
  fprintf(stderr,
          "observe idle CPU per minute (%s, %ld ms windows): not observed: browser %.2f s, us %.3f s; observed: "
          "browser %.2f s, us %.3f s (%ld captures, %ld unchanged, the first capture included)\n",
          page, ms, (b1 - b0) * per_min, (s1 - s0) * per_min, (b3 - b2) * per_min, (s3 - s2) * per_min, st.captures,
          st.unchanged);
  if (!getenv("UIAP_IDLE_PAGE"))
    cr_expect_lt(st.captures, 5, "an idle page is not captured again and again (%ld)", st.captures);
}

/* ---- --connect: a page another client drives ------------------------------------------ */
/* A Chromium of the test's own on --remote-debugging-port=0 (the port read
 * from DevToolsActivePort), reached by observe over --connect and by the
 * test over a second CDP connection that plays the other tool. */
static t_browser ext;
static void ext_start(void) { t_browser_start(&ext, "connect"); }
static void ext_stop(void) { t_browser_stop(&ext); }

static const char *ext_endpoint(void) {
  static char u[64];
  snprintf(u, sizeof u, "http://127.0.0.1:%d", ext.port);
  return u;
}

TestSuite(observe_connect, .fini = ext_stop, .timeout = 120);

/* The other tool: its own connection and a tab of its own on url, loaded. */
static cdp_client *driver_open(const char *url, char **session, char **target) {
  cdp_client *c = NULL;
  char err[512] = "";
  cr_assert_eq(cdp_connect(ext_endpoint(), 15000, &c, err, sizeof err), CDP_OK, "the driver connects: %s", err);
  cr_assert_eq(cdp_open_page(c, url, session, target, 15000), CDP_OK, "the driver opens %s: %s", url,
               cdp_client_errmsg(c));
  for (long long end = cdp_now_ms() + 15000;;) {
    cJSON *a = cJSON_CreateObject(), *res = NULL;
    cJSON_AddStringToObject(a, "expression", "document.readyState==='complete'&&!!document.getElementById('add')");
    cJSON_AddBoolToObject(a, "returnByValue", 1);
    cdp_code rc = cdp_call(c, *session, "Runtime.evaluate", a, &res, 10000);
    int ok = rc == CDP_OK && cJSON_IsTrue(get(get(res, "result"), "value"));
    cJSON_Delete(res);
    if (ok) break;
    cr_assert_lt(cdp_now_ms(), end, "the driver's page loads");
    usleep(50000);
  }
  return c;
}

/* Evaluate expr in the driver's page; the value as JSON text (caller frees). */
static char *driver_eval(cdp_client *c, const char *session, const char *expr) {
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddStringToObject(a, "expression", expr);
  cJSON_AddBoolToObject(a, "returnByValue", 1);
  cr_assert_eq(cdp_call(c, session, "Runtime.evaluate", a, &res, 10000), CDP_OK, "%s: %s", expr, cdp_client_errmsg(c));
  cr_assert_null(get(res, "exceptionDetails"), "%s threw", expr);
  char *v = cJSON_PrintUnformatted(get(get(res, "result"), "value"));
  cJSON_Delete(res);
  return v;
}

/* Page targets in the browser; *has: whether target_id is among them. */
static int page_targets(cdp_client *c, const char *target_id, int *has) {
  cJSON *res = NULL;
  cr_assert_eq(cdp_call(c, NULL, "Target.getTargets", NULL, &res, 10000), CDP_OK, "%s", cdp_client_errmsg(c));
  int n = 0;
  if (has) *has = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, get(res, "targetInfos")) {
    if (strcmp(get_str(t, "type"), "page")) continue;
    n++;
    if (has && target_id && !strcmp(get_str(t, "targetId"), target_id)) *has = 1;
  }
  cJSON_Delete(res);
  return n;
}

static int wait_child(pid_t pid, int timeout_ms) {
  int st = 0;
  for (long long end = cdp_now_ms() + timeout_ms; waitpid(pid, &st, WNOHANG) == 0;) {
    if (cdp_now_ms() > end) {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      return -1;
    }
    usleep(50000);
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

Test(observe_connect, watches_the_page_another_client_drives) {
  need_observe_command();
  char url[512];
  snprintf(url, sizeof url, "%s", t_fixture_url(0, NULL, "/observe/connect.html")); /* server up before the fork */
  ext_start();
  char *sess = NULL, *tid = NULL;
  cdp_client *drv = driver_open(url, &sess, &tid);
  free(driver_eval(drv, sess, "window.__driverMark=42"));
  int pages = page_targets(drv, NULL, NULL);
  cr_assert_eq(pages, 2, "the browser's first tab and the driver's (%d)", pages);

  char outp[256], errp[256];
  snprintf(outp, sizeof outp, "/tmp/uiap-observe-connect-%d.jsonl", (int)getpid());
  snprintf(errp, sizeof errp, "/tmp/uiap-observe-connect-%d.err", (int)getpid());
  pid_t pid = fork();
  if (pid == 0) {
    freopen(outp, "w", stdout);
    freopen(errp, "w", stderr);
    execl(UIAP_BIN, UIAP_BIN, "observe", "--connect", ext_endpoint(), "--target-url", "/observe/connect.html",
          "--duration-ms", "5000", "--signals", "all", (char *)NULL);
    _exit(127);
  }
  int snap = 0;
  for (long long end = cdp_now_ms() + 20000; !snap && cdp_now_ms() < end; usleep(50000)) {
    char *t = t_read_file(outp, NULL);
    snap = t && strstr(t, "web.state.snapshot");
    free(t);
  }
  cr_assert(snap, "observe printed its snapshot");
  int has = 0;
  cr_expect_eq(page_targets(drv, tid, &has), pages, "observe opened no tab");
  cr_expect(has, "the driver's tab is there");

  /* meanwhile observe's instrumentation is in the page (so that its removal below means something) */
  char *v = driver_eval(drv, sess, "Object.getOwnPropertyNames(window).filter(k=>/^__uiap.*_(on|off|el|base)$/.test(k)).length");
  cr_expect_str_eq(v, "6", "the mutation counter and the reporter are installed in the loaded page");
  free(v);
  v = driver_eval(drv, sess, "/\\[native code\\]/.test(String(Element.prototype.attachShadow))");
  cr_expect_str_eq(v, "false", "the reporter wraps attachShadow while it observes");
  free(v);

  /* the other tool clicks: a new button and a message in a live region */
  usleep(300000);
  free(driver_eval(drv, sess, "document.getElementById('add').click()"));
  int status = wait_child(pid, 30000);
  char *err = t_read_file(errp, NULL);
  cr_assert_eq(status, 0, "observe --connect exits 0 (%d): %s", status, err ? err : "");

  char *text = t_read_file(outp, NULL);
  cr_assert(text);
  cJSON *msgs = parse_lines(text);
  validate_stream(outp, msgs);
  int nd, no;
  cJSON *applied = replay(msgs, &nd, &no);
  const cJSON *snapshot = get(get(cJSON_GetArrayItem(msgs, 1), "payload"), "graph");
  cr_expect_str_eq(get_str(get(snapshot, "route"), "url"), url, "the snapshot is of the driver's page");
  cr_expect_null(t_element(snapshot, "button", "Added by the driver 1"), "not there before the click");
  int upserted = 0;
  const cJSON *m, *op;
  cJSON_ArrayForEach(m, msgs) {
    if (strcmp(get_str(m, "type"), "web.state.delta")) continue;
    cJSON_ArrayForEach(op, get(get(m, "payload"), "ops")) {
      const char *name = get_str(get(op, "element"), "name");
      upserted += !strcmp(get_str(op, "op"), "upsertElement") && name && !strcmp(name, "Added by the driver 1");
    }
  }
  cr_expect_eq(upserted, 1, "a delta upserts the button the other client's click added (%d)", upserted);
  cr_expect(t_element(applied, "button", "Added by the driver 1"), "the deltas applied to the snapshot show it");
  const cJSON *sg = NULL;
  cr_expect_eq(count_kind(msgs, "toast.shown", 1, &sg), 1, "the live region's message is signalled in a delta");
  cr_expect(sg && get_str(sg, "text") && strstr(get_str(sg, "text"), "Added 1 item"), "with its text");
  cr_expect_eq(count_kind(msgs, "toast.shown", 0, NULL), 1, "and at once as web.signal (--signals all)");
  const cJSON *last = cJSON_GetArrayItem(msgs, cJSON_GetArraySize(msgs) - 1);
  cr_expect_str_eq(get_str(get(last, "payload"), "reason"), "duration");

  /* afterwards: the same tabs, the page neither reloaded nor left with our instrumentation */
  cr_expect_eq(page_targets(drv, tid, &has), pages, "no tab opened or closed");
  cr_expect(has, "the attached tab is still open");
  v = driver_eval(drv, sess, "window.__driverMark");
  cr_expect_str_eq(v, "42", "the page was not reloaded");
  free(v);
  v = driver_eval(drv, sess, "document.querySelectorAll('#list button').length");
  cr_expect_str_eq(v, "1", "what the driver did is still there");
  free(v);
  v = driver_eval(drv, sess,
                  "[Element.prototype.attachShadow,window.alert,window.confirm].every(f=>/\\[native code\\]/.test(String(f)))");
  cr_expect_str_eq(v, "true", "attachShadow given back, dialogs never taken over");
  free(v);
  v = driver_eval(drv, sess, "Object.getOwnPropertyNames(window).filter(k=>/^__uiap.*_(on|off|el|base)$/.test(k))");
  cr_expect_str_eq(v, "[]", "the observers in the page are switched off");
  free(v);
  free(driver_eval(drv, sess, "document.getElementById('add').click()"));
  v = driver_eval(drv, sess, "document.querySelectorAll('#list button').length");
  cr_expect_str_eq(v, "2", "the page works on without observe");
  free(v);

  cJSON_Delete(applied);
  cJSON_Delete(msgs);
  free(text);
  free(err);
  unlink(outp);
  unlink(errp);
  free(sess);
  free(tid);
  cdp_client_free(drv);
}

/* No page fits: one line on stderr, exit 6 (--connect failed), no tab opened. */
Test(observe_connect, no_matching_page_is_one_line_and_exit_6) {
  need_observe_command();
  char url[512];
  snprintf(url, sizeof url, "%s", t_fixture_url(0, NULL, "/observe/connect.html"));
  ext_start();
  char *sess = NULL, *tid = NULL;
  cdp_client *drv = driver_open(url, &sess, &tid);
  int pages = page_targets(drv, NULL, NULL);
  char prefix[600];
  snprintf(prefix, sizeof prefix, "%s", t_fixture_url(0, NULL, "/observe/nothing-here.html"));
  static const struct { const char *opt, *val, *says; } cases[] = {
    {"--target-url", "/no-such-page", "no page target's URL contains \"/no-such-page\""},
    {"--target", "0123456789ABCDEF0123456789ABCDEF", "no target 0123456789ABCDEF0123456789ABCDEF"},
    {NULL, NULL, "no page chosen, and there is not exactly one"},
    {"", NULL, "no page target's URL starts with "},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    const char *argv[12];
    int n = 0;
    argv[n++] = UIAP_BIN;
    argv[n++] = "observe";
    argv[n++] = "--connect";
    argv[n++] = ext_endpoint();
    if (cases[k].opt && cases[k].val) {
      argv[n++] = cases[k].opt;
      argv[n++] = cases[k].val;
    } else if (cases[k].opt) {
      argv[n++] = prefix; /* a URL: only chooses the page */
    }
    argv[n++] = "--duration-ms";
    argv[n++] = "2000";
    argv[n] = NULL;
    t_run r = t_run_argv(argv, 20000);
    cr_expect_eq(r.status, 6, "case %zu: exit 6 (%d): %s", k, r.status, r.err);
    cr_expect_lt(r.ms, 10000, "case %zu: fails at once (%lld ms)", k, r.ms);
    cr_expect_str_eq(r.out, "", "case %zu: nothing on stdout", k);
    const char *nl = strchr(r.err, '\n');
    cr_expect(nl && nl[1] == 0, "case %zu: one line on stderr: %s", k, r.err);
    cr_expect(!strncmp(r.err, "uiap-crawl: ", 12) && strstr(r.err, cases[k].says), "case %zu: says \"%s\": %s", k,
              cases[k].says, r.err);
    cr_expect(strstr(r.err, "(2 page targets: ") && strstr(r.err, tid), "case %zu: how many pages, and which: %s", k,
              r.err);
    t_run_free(&r);
  }
  int has = 0;
  cr_expect_eq(page_targets(drv, tid, &has), pages, "no tab opened or closed");
  cr_expect(has);
  free(sess);
  free(tid);
  cdp_client_free(drv);
}

/* The usual end of an interactive --connect run is Ctrl-C: the stream ends
 * with its stopped message, and the page is left as it was all the same. */
Test(observe_connect, sigint_leaves_the_page_as_it_was) {
  need_observe_command();
  char url[512];
  snprintf(url, sizeof url, "%s", t_fixture_url(0, NULL, "/observe/connect.html"));
  ext_start();
  char *sess = NULL, *tid = NULL;
  cdp_client *drv = driver_open(url, &sess, &tid);
  int pages = page_targets(drv, NULL, NULL);
  char outp[256];
  snprintf(outp, sizeof outp, "/tmp/uiap-observe-connect-int-%d.jsonl", (int)getpid());
  pid_t pid = fork();
  if (pid == 0) {
    freopen(outp, "w", stdout);
    freopen("/dev/null", "w", stderr);
    execl(UIAP_BIN, UIAP_BIN, "observe", "--connect", ext_endpoint(), "--target", tid, (char *)NULL);
    _exit(127);
  }
  int snap = 0;
  for (long long end = cdp_now_ms() + 20000; !snap && cdp_now_ms() < end; usleep(50000)) {
    char *t = t_read_file(outp, NULL);
    snap = t && strstr(t, "web.state.snapshot");
    free(t);
  }
  cr_assert(snap, "observe printed its snapshot");
  char *v = driver_eval(drv, sess, "Object.getOwnPropertyNames(window).filter(k=>/^__uiap.*_(on|off|el|base)$/.test(k)).length");
  cr_expect_str_eq(v, "6", "observe's scripts are in the page");
  free(v);
  kill(pid, SIGINT);
  int status = wait_child(pid, 10000);
  cr_expect_eq(status, 130, "exit 130 after SIGINT (%d)", status);
  char *text = t_read_file(outp, NULL);
  cJSON *msgs = parse_lines(text ? text : "");
  const cJSON *last = cJSON_GetArrayItem(msgs, cJSON_GetArraySize(msgs) - 1);
  cr_expect_str_eq(get_str(last, "type"), "web.observe.stopped");
  cr_expect_str_eq(get_str(get(last, "payload"), "reason"), "signal");
  int has = 0;
  cr_expect_eq(page_targets(drv, tid, &has), pages, "no tab opened or closed");
  cr_expect(has, "the attached tab is still open");
  v = driver_eval(drv, sess, "Object.getOwnPropertyNames(window).filter(k=>/^__uiap.*_(on|off|el|base)$/.test(k))");
  cr_expect_str_eq(v, "[]", "interrupted, observe still switched its scripts off");
  free(v);
  v = driver_eval(drv, sess, "/\\[native code\\]/.test(String(Element.prototype.attachShadow))");
  cr_expect_str_eq(v, "true", "and gave attachShadow back");
  free(v);
  cJSON_Delete(msgs);
  free(text);
  unlink(outp);
  free(sess);
  free(tid);
  cdp_client_free(drv);
}

/* explore.c -- the discovery run: seeds, breadth-first exploration behind
 * the safety gate, state restore, budgets, and the journal.
 *
 * The run's shared state (state table, known edges, counters, journal) lives
 * in `run`; everything that drives the one tab goes through crawl_page_* and
 * the act_* helpers below, so a later multi-tab runner can share `run`.
 *
 * Order of work (discovery-mapper section 10): prepare (browser, tab, guard),
 * seed (load each seed URL, capture the initial states), explore (BFS over
 * states; per state, its actions in priority order: local UI first, then
 * navigation), then extract/synthesize/review via the package builder, which
 * reads the journal. Every action is decided by the policy first and the
 * decision is journaled, also for actions never taken.
 */
#include "crawl.h"
#include "crawl_journal.h"
#include "crawl_secrets.h"
#include "crawl_strmap.h"
#include "frontier.h"
#include "shared.h"
#include "run_int.h"
#include "timing.h"
#include "act.h"

#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CRAWL__PRINCIPALS_MAX 16
#define RELOGINS_MAX 3

typedef struct run {
  const crawl_opts *o;
  cdp_client *c;
  crawl_page *page;
  crawl__journal *jl;       /* DIR/journal.jsonl, appended to */
  crawl__secrets *secrets;  /* every value a capture redacted: the journal, the
                               state files and the log pass through it */
  char dir[4096];
  frontier f;               /* states, edges, outcomes: shared by whatever drives tabs */
  long transitions, self_loops, decisions, failures, reviews;
  long long t0;
  int cur;                  /* current state index, -1 unknown */
  pg_graph *g;              /* capture of the current page */
  char cur_fp[33], cur_cfp[33];
  crawl__strmap route_alias; /* route key -> the seed state whose route it showed
                               (observe's fold: "page.html#/home" showing what the
                               seed "page.html" shows); captures there are
                               fingerprinted under the seed's route, so a state
                               has one id whichever URL a worker reached it by */
  const char *stopped_by;
  char run_id[64];
  crawl_budget b;
  const char *allowed[66];
  char page_origin[512];
  char (*seed_origins)[512]; /* the seeds' origins: with allowed, the run's scope for
                               URLs it reads back (scope_has) */
  int nseed_origins;
  const char **scope;       /* allowed, then the seeds' origins (NULL-terminated): where
                               navigate() may load */
  int cancelled;
  int fatal;                /* browser gone, tab crashed or hung */
  int guard_stop;           /* a target could not be guarded: stop, no restart */
  int allow_ws;             /* the plan lets actions open WebSockets (reported, not refused) */
  crawl_timing tm;          /* where the time goes, per phase (--verbose, the "end" record) */
  int in_restore;           /* settling and captures count as restore time */
  int hops_ok, hops_bad;    /* hash_hop: same-document restores that landed / did not */
  int restarts;
  int reconnects;           /* --connect: dropped connections reconnected (recover) */
  long dialogs, popups;     /* of tabs already closed */
  char seed_err[512];       /* why the first seed that failed to load failed */
  int pri;                  /* the principal exploring (index), -1: none */
  char *contexts[CRAWL__PRINCIPALS_MAX]; /* each principal's browser context */
  int signed_out;           /* the last capture was a sign-in page or a 401/419 */
  int relogins;             /* of the current principal */
  int kept[CRAWL__PRINCIPALS_MAX]; /* its context holds its cookies and localStorage */
  crawl_page_opts po;
  /* per control (action + role + name): how often it changed the state */
  struct loopstat { char *key; int self, moved, signals; action a; } *loops;
  int nloops, caploops;
  crawl__strmap by_loop;    /* index of loops */
  int deviations;           /* walks that ended off their path since the last step */
  long depths_at;           /* r->transitions when the depths were last lowered (fr_depths) */
  const pg_graph *before;   /* the capture before an action, while r->g is NULL */
  /* JSON of the two latest graphs asked for, by revision (unique per
   * process): a graph is converted once, whether for its state file or for
   * the signals of the steps into and out of it */
  struct { char *revision; cJSON *json; } gjc[2];
  int gj_last;              /* the slot returned last */
  crawl__shared *sh;        /* the frontier shared with other workers (--frontier), or NULL */
  int sh_lost;              /* the shared frontier stopped answering */
  int sh_spent;             /* the run's maxTransitions are taken (by all workers) */
  long sh_edges;            /* the shared frontier's transitions read so far (shared_edges_in) */
  int phase;                /* the lifecycle step reached (run_phases), -1: none yet */
  char err[512];
} run;

/* ---- small helpers ---------------------------------------------------------- */
/* An open dialog, or an open modal drawer (a dialog that slides in from an edge). */
static int open_dialog(const pg_scope *sc) {
  return pg_state_is(&sc->state, PG_ST_OPEN) &&
         (sc->kind == PG_SCOPE_DIALOG || (sc->kind == PG_SCOPE_DRAWER && pg_state_is(&sc->state, PG_ST_MODAL)));
}

static long elapsed(const run *r) { return (long)(cdp_now_ms() - r->t0); }

/* JSON of g, borrowed: it stays valid until another graph is asked for
 * after the next call (the slot not returned last is the one replaced). */
static const cJSON *graph_json(run *r, const pg_graph *g) {
  for (int k = 0; k < 2; k++)
    if (r->gjc[k].revision && g->revision && !strcmp(r->gjc[k].revision, g->revision)) {
      r->gj_last = k;
      return r->gjc[k].json;
    }
  int k = !r->gj_last;
  free(r->gjc[k].revision);
  cJSON_Delete(r->gjc[k].json);
  r->gjc[k].revision = crawl__xstrdup(g->revision);
  r->gjc[k].json = pg_graph_to_json(g);
  r->gj_last = k;
  return r->gjc[k].json;
}

/* Empty graph_json's cache. */
static void graph_json_drop(run *r) {
  for (int k = 0; k < 2; k++) {
    free(r->gjc[k].revision);
    cJSON_Delete(r->gjc[k].json);
    r->gjc[k].revision = NULL;
    r->gjc[k].json = NULL;
  }
}

/* origin of an absolute URL into buf ("" when it has none): pg_url.h */
static void url_origin(const char *url, char *buf, size_t n) {
  if (!url || pg_url_origin(url, buf, n) < 0) buf[0] = 0;
}

/* ---- journal ------------------------------------------------------------------- */
/* One record (o consumed) into the journal; crawl_journal.h does the writing. */
static void jl_write(run *r, const char *type, cJSON *o) { crawl__journal_write(r->jl, type, o); }

static void jl_note(run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void jl_note(run *r, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "text", buf);
  jl_write(r, "note", o);
  crawl_log(CRAWL_LOG_INFO, "crawl", "%s", buf);
}

/* Tell the caller's progress callback, if any, where the run is. */
static void report_progress(run *r, const char *status, const char *route) {
  if (!r->o->progress) return;
  char *shown = crawl__secrets_scrub(r->secrets, route, NULL); /* a URL's query may hold a secret */
  crawl_progress p = {.run_id = r->run_id, .status = status, .states = r->f.nst, .transitions = r->transitions,
                      .decisions = r->decisions, .elapsed_ms = elapsed(r), .route = shown};
  r->o->progress(r->o->progress_ud, &p);
  free(shown);
}

/* The run's lifecycle in the mapper's order (10.1, 10.2): plan, prepare the
 * environment, resolve the seeds, explore, then extract, synthesize
 * workflow candidates, review. "completed", "failed" and "cancelled" are
 * the end record's. */
static const char *const run_phases[] = {"planning", "preparing", "seeding", "exploring",
                                         "extracting", "synthesizing", "reviewing"};
#define RUN_NPHASES ((int)(sizeof run_phases / sizeof run_phases[0]))

/* The step the run is in, for progress reports between status lines. */
static const char *run_phase(const run *r) { return run_phases[r->phase < 0 ? 0 : r->phase]; }

/* A status line when the run reaches step `status`; a step reached already
 * (the next principal seeding, exploring again) or passed is not repeated,
 * so the journal and the progress reports go in the lifecycle's order. */
static void jl_status(run *r, const char *status) {
  int k = 0;
  while (k < RUN_NPHASES && strcmp(run_phases[k], status)) k++;
  if (k == RUN_NPHASES || k <= r->phase) return;
  r->phase = k;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "status", status);
  jl_write(r, "status", o);
  report_progress(r, status, NULL);
}

static cJSON *target_json(const action *a) {
  cJSON *t = cJSON_CreateObject();
  if (a->stable_id) cJSON_AddStringToObject(t, "stableId", a->stable_id);
  cJSON_AddStringToObject(t, "role", a->role ? a->role : "");
  cJSON_AddStringToObject(t, "name", a->name ? a->name : "");
  if (a->scope_id) cJSON_AddStringToObject(t, "scopeId", a->scope_id);
  if (a->document_id) cJSON_AddStringToObject(t, "documentId", a->document_id);
  if (a->scope_key) cJSON_AddStringToObject(t, "scopeKey", a->scope_key);
  cJSON_AddNumberToObject(t, "ordinal", a->ordinal);
  return t;
}

/* The option a ui.choose picks, as the transition's args. */
static void add_args(cJSON *o, const action *a) {
  if (!a->option) return;
  cJSON *args = cJSON_AddObjectToObject(o, "args");
  cJSON_AddStringToObject(args, "option", a->option);
  cJSON_AddNumberToObject(args, "optionIndex", a->option_index);
  cJSON_AddNumberToObject(args, "fromIndex", a->option_from);
}

static void jl_review(run *r, const char *kind, const char *severity, int state, const action *a,
                      const char *remediation, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
static void jl_review(run *r, const char *kind, const char *severity, int state, const action *a,
                      const char *remediation, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "kind", kind);
  cJSON_AddStringToObject(o, "severity", severity);
  cJSON_AddStringToObject(o, "description", buf);
  if (state >= 0) {
    cJSON_AddStringToObject(o, "stateId", r->f.st[state].id);
    if (r->f.st[state].route_id) cJSON_AddStringToObject(o, "routeId", r->f.st[state].route_id);
  }
  if (a) {
    cJSON_AddStringToObject(o, "actionId", a->action_id);
    cJSON_AddItemToObject(o, "target", target_json(a));
  }
  if (remediation) cJSON_AddStringToObject(o, "remediation", remediation);
  jl_write(r, "review", o);
  r->reviews++;
}

/* ---- states ----------------------------------------------------------------------- */
static int find_state(const run *r, const char *fp) { return fr_find_state(&r->f, fp); }

/* States on routeId route (a template counts its pages together). */
static int route_count(const run *r, const char *route) {
  int n = 0;
  for (int i = 0; i < r->f.nst; i++)
    if (route && r->f.st[i].route_id && !strcmp(r->f.st[i].route_id, route)) n++;
  return n;
}

/* The routeId of the current capture on route key rk: the page's
 * data-uiap-route or its router's route, else rk's template
 * (pg_route_template; caller frees). */
static char *route_id_of(const run *r, const char *rk) {
  if (r->g && r->g->route_source != PG_ROUTE_URL && r->g->route_id) return crawl__xstrdup(r->g->route_id);
  return pg_route_template(rk, NULL, NULL);
}

/* The slot for one more state, zeroed, at r->f.st[r->f.nst] (the table
 * grows as needed; the caller fills it and counts it). */
static state *state_slot(run *r) {
  if (r->f.nst == r->f.capst) {
    r->f.capst = r->f.capst ? r->f.capst * 2 : 64;
    r->f.st = crawl__xrealloc(r->f.st, (size_t)r->f.capst * sizeof *r->f.st);
  }
  state *s = &r->f.st[r->f.nst];
  memset(s, 0, sizeof *s);
  return s;
}

/* 1 when a budget refuses one more state on route (journaled). */
static int state_refused(run *r, const char *route) {
  long n = r->sh ? crawl__shared_count(r->sh) : r->f.nst; /* shared: the run's, not this worker's */
  if (n >= r->b.max_states) {
    if (!r->stopped_by) {
      r->stopped_by = "maxStates";
      cJSON *o = cJSON_CreateObject();
      cJSON_AddStringToObject(o, "budget", "maxStates");
      cJSON_AddNumberToObject(o, "limit", (double)r->b.max_states);
      jl_write(r, "budget", o);
    }
    return 1;
  }
  if (r->b.max_per_route > 0 && route_count(r, route) >= r->b.max_per_route) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "budget", "maxPerRoute");
    cJSON_AddNumberToObject(o, "limit", (double)r->b.max_per_route);
    cJSON_AddStringToObject(o, "routeId", route ? route : "");
    jl_write(r, "budget", o);
    return 1;
  }
  return 0;
}

/* What the run's graphs publish: its bridges, --redact pii. */
static pg_options run_graph_opts(const run *r) {
  return (pg_options){.bridge_origins = r->o->bridge_origins, .allow_bridges = r->o->allow_bridges,
                      .redact_pii = r->o->redact_pii};
}

static void note_error(run *r, crawl_code rc);
static int sign_in_again(run *r);
static int sign_in(run *r, int again);

/* DIR/accessibility/<id>.json: the capture's accessibility record
 * (pg_ax_record_of: only what the graph publishes), with the state's id and
 * URL, through the run's secret list and filter as the graph is; its path
 * relative to DIR into ax_rel ("" when there is none). */
static void ax_record_file(run *r, const state *s, char *ax_rel, size_t axlen) {
  ax_rel[0] = 0;
  cJSON *rec = r->g ? pg_ax_record_of(r->g) : NULL;
  if (!rec) return;
  char path[4400], rel[128];
  snprintf(rel, sizeof rel, "accessibility/%s.json", s->id);
  snprintf(path, sizeof path, "%s/%s", r->dir, rel);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "stateId", s->id);
  if (r->g->route_url) cJSON_AddStringToObject(o, "url", r->g->route_url);
  cJSON_AddStringToObject(o, "pageGraphRevision", r->g->revision);
  for (cJSON *it; (it = rec->child);) cJSON_AddItemToObject(o, it->string, cJSON_DetachItemViaPointer(rec, it));
  cJSON_Delete(rec);
  crawl__secrets_scrub_json(r->secrets, o);
  char *text = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  int e = text ? crawl__file_write(path, text, strlen(text)) : ENOMEM;
  free(text);
  if (e) jl_note(r, "could not write %s: %s", rel, strerror(e));
  else snprintf(ax_rel, axlen, "%s", rel);
}

/* The state record o with its accessibilityRef, the file written first. */
static cJSON *with_ax(run *r, const state *s, cJSON *o) {
  char ax_rel[160];
  ax_record_file(r, s, ax_rel, sizeof ax_rel);
  if (ax_rel[0]) cJSON_AddStringToObject(o, "accessibilityRef", ax_rel);
  return o;
}

/* The state's files: DIR/states/<id>.json (its PageGraph, path relative to
 * DIR into rel; what the graph did not redact itself but an earlier capture
 * did -- the run's secret list -- redacted too) and, with screenshots,
 * DIR/screenshots/<id>.png (into shot_rel, "" when there is none): masked
 * (crawl_page_screenshot), or not written at all, with a note that says why. */
static void state_files(run *r, const state *s, char *rel, size_t rellen, char *shot_rel, size_t shotlen) {
  char path[4400];
  snprintf(rel, rellen, "states/%s.json", s->id);
  snprintf(path, sizeof path, "%s/%s", r->dir, rel);
  const cJSON *gj = graph_json(r, r->g);
  cJSON *copy = gj ? cJSON_Duplicate(gj, 1) : NULL;
  crawl__secrets_scrub_json(r->secrets, copy);
  char *text = copy ? cJSON_PrintUnformatted(copy) : NULL; /* NULL: no graph JSON */
  cJSON_Delete(copy);
  int e = text ? crawl__file_write(path, text, strlen(text)) : ENOMEM;
  if (e) jl_note(r, "could not write %s: %s", rel, strerror(e));
  free(text);
  shot_rel[0] = 0;
  if (!r->o->screenshots) return;
  unsigned char *png = NULL;
  size_t len = 0;
  pg_options go = run_graph_opts(r);
  crawl_code rc = crawl_page_screenshot(r->page, r->g, &go, &png, &len);
  if (rc == CRAWL_OK) {
    snprintf(shot_rel, shotlen, "screenshots/%s.png", s->id);
    snprintf(path, sizeof path, "%s/%s", r->dir, shot_rel);
    if ((e = crawl__file_write(path, (const char *)png, len)) != 0) {
      jl_note(r, "could not write %s: %s", shot_rel, strerror(e));
      shot_rel[0] = 0;
    }
  } else {
    jl_note(r, "no screenshot of %s: %s", s->id, crawl_page_errmsg(r->page));
    note_error(r, rc);
  }
  free(png);
}

/* The journal's "state" record for state s (the current capture), reached
 * by via (NULL for a seed's). */
static cJSON *state_record(run *r, const state *s, const action *via, const char *route, const char *rel,
                           const char *shot_rel) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "stateId", s->id);
  cJSON_AddStringToObject(o, "fingerprint", s->fp);
  cJSON_AddStringToObject(o, "contentFingerprint", s->cfp);
  cJSON_AddStringToObject(o, "routeId", s->route_id ? s->route_id : "");
  if (route && (!s->route_id || strcmp(route, s->route_id))) cJSON_AddStringToObject(o, "routeKey", route);
  if (s->url) cJSON_AddStringToObject(o, "url", s->url);
  if (s->title) cJSON_AddStringToObject(o, "title", s->title);
  cJSON_AddNumberToObject(o, "depth", s->depth);
  cJSON_AddNumberToObject(o, "seed", s->seed);
  if (s->parent >= 0) cJSON_AddStringToObject(o, "parentStateId", r->f.st[s->parent].id);
  if (via) {
    cJSON *v = cJSON_AddObjectToObject(o, "via");
    cJSON_AddStringToObject(v, "actionId", via->action_id);
    cJSON_AddItemToObject(v, "target", target_json(via));
    add_args(v, via);
    cJSON_AddBoolToObject(v, "escape", via->escape);
  }
  if (r->pri >= 0) cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "metadata"), "principal", r->o->principals[r->pri].id);
  cJSON_AddStringToObject(o, "pageGraphRef", rel);
  if (shot_rel[0]) cJSON_AddStringToObject(o, "screenshotRef", shot_rel);
  cJSON *scopes = cJSON_AddArrayToObject(o, "scopeIds");
  cJSON *modal = cJSON_AddArrayToObject(o, "modalStack");
  for (size_t k = 0; k < r->g->nscopes; k++) {
    const pg_scope *sc = &r->g->scopes[k];
    cJSON_AddItemToArray(scopes, cJSON_CreateString(sc->scope_id));
    if ((sc->kind == PG_SCOPE_DIALOG || sc->kind == PG_SCOPE_DRAWER || sc->kind == PG_SCOPE_POPOVER) &&
        pg_state_is(&sc->state, PG_ST_OPEN))
      cJSON_AddItemToArray(modal, cJSON_CreateString(sc->scope_id));
  }
  return o;
}

/* The record o (consumed) as the journal's "state" line; with a shared
 * frontier, also as JSON text for it (*shared, redacted as the journal
 * line is; caller frees). */
static void state_line(run *r, cJSON *o, char **shared) {
  if (shared) {
    cJSON *copy = cJSON_Duplicate(o, 1);
    crawl__secrets_scrub_json(r->secrets, copy);
    *shared = cJSON_PrintUnformatted(copy);
    cJSON_Delete(copy);
  }
  jl_write(r, "state", o);
  crawl__journal_sync(r->jl);
}

static int shared_known(run *r, const char *rk);
static void shared_add(run *r, int idx, const char *record);

/* Register the current capture as a new state: the table, its files, its
 * journal line (and the shared frontier's record). Returns its index, or
 * -1 when a budget refuses it. */
static int add_state(run *r, int parent, const action *via, int seed, const char *route) {
  int known = r->sh ? shared_known(r, route) : -1; /* another worker found it first */
  if (known >= 0) return known;
  char *route_id = route_id_of(r, route);
  if (state_refused(r, route_id)) {
    free(route_id);
    return -1;
  }
  state *s = state_slot(r);
  memcpy(s->fp, r->cur_fp, sizeof s->fp);
  memcpy(s->cfp, r->cur_cfp, sizeof s->cfp);
  char id[40];
  snprintf(id, sizeof id, "s_%.16s", s->fp);
  for (int k = 0; k < r->f.nst; k++) /* a 64-bit prefix collision: lengthen */
    if (!strcmp(r->f.st[k].id, id)) snprintf(id, sizeof id, "s_%.32s", s->fp);
  s->id = crawl__xstrdup(id);
  s->url = crawl__xstrdup(r->g->route_url);
  s->route = crawl__xstrdup(route);
  s->route_id = route_id;
  s->title = crawl__xstrdup(r->g->route_title);
  s->parent = parent;
  fr_action_copy(&s->via, via);
  s->depth = parent >= 0 ? r->f.st[parent].depth + 1 : 0;
  s->seed = seed;
  s->principal = r->pri < 0 ? 0 : r->pri;
  s->addressable = parent < 0 ? 1 : -1;
  int idx = r->f.nst++;
  fr_index_state(&r->f, idx);
  char rel[200], shot_rel[200], *shared = NULL;
  state_files(r, s, rel, sizeof rel, shot_rel, sizeof shot_rel);
  state_line(r, with_ax(r, s, state_record(r, s, via, route, rel, shot_rel)), r->sh ? &shared : NULL);
  if (shared) shared_add(r, idx, shared);
  free(shared);
  return idx;
}

/* A state the table has from the shared frontier, not from this worker's
 * own capture: once the page shows it, its files and journal line, so each
 * worker's journal names every state it worked in. */
static void journal_mirrored(run *r, int si) {
  state *s = &r->f.st[si];
  if (!s->mirrored || !r->g) return;
  s->mirrored = 0;
  char rel[200], shot_rel[200];
  state_files(r, s, rel, sizeof rel, shot_rel, sizeof shot_rel);
  state_line(r, with_ax(r, s, state_record(r, s, s->parent >= 0 ? &s->via : NULL, s->route, rel, shot_rel)), NULL);
}

/* ---- actions of a state ---------------------------------------------------------------- */

static const char *action_for(const pg_element *e) { return crawl__act_for(e); }

static int cmp_action(const void *a, const void *b) {
  const action *x = a, *y = b;
  return x->rank - y->rank;
}

static void decide(run *r, action *a, const pg_element *e) {
  crawl__act_decide(&r->o->policy, r->page_origin, r->allowed, a, e);
}

/* Ordinal of each element among the elements before it with the same role
 * and name (caller frees): one pass with a string map from role and name
 * to the latest ordinal, so a page of 100,000 elements costs milliseconds,
 * not n^2 string compares. */
static int *element_ordinals(const pg_graph *g) {
  size_t n = g->nelements;
  int *ord = crawl__xcalloc(n ? n : 1, sizeof *ord);
  crawl__strmap seen = {0};
  crawl__buf key = {0};
  for (size_t i = 0; i < n; i++) {
    key.n = 0;
    crawl__buf_puts(&key, g->elements[i].role);
    crawl__buf_put(&key, "\x1f", 1);
    crawl__buf_puts(&key, g->elements[i].name ? g->elements[i].name : "");
    int added;
    long prev = crawl__strmap_intern(&seen, key.p, 0, &added);
    if (!added) crawl__strmap_put(&seen, key.p, ord[i] = (int)prev + 1);
  }
  crawl__buf_free(&key);
  crawl__strmap_release(&seen);
  return ord;
}

/* A <select> the crawler may choose in: visible, enabled, not sensitive. */
static int is_select(const pg_element *e) {
  return e->tag && !strcasecmp(e->tag, "select") && !e->sensitive && pg_state_is(&e->state, PG_ST_VISIBLE) &&
         pg_state_is(&e->state, PG_ST_ENABLED);
}

/* The options of every <select> of g, per element index (NULL for the
 * others; the caller frees with free_select_options): js/select_options.js
 * gives a single-choice <select>'s selected index and its options' labels
 * and disabled flags, {"i":N,"o":[[label,disabled],...]} (at most 64).
 * Fetched in two pipelined batches (resolve, then call) however many
 * selects there are. NULL when g has none. */
static cJSON **select_options(run *r, const pg_graph *g) {
  size_t n = 0;
  for (size_t i = 0; i < g->nelements; i++) n += is_select(&g->elements[i]);
  if (!n) return NULL;
  cJSON **out = crawl__xcalloc(g->nelements, sizeof *out);
  int *ids = crawl__xcalloc(g->nelements, sizeof *ids);
  const char *sess = crawl_page_session(r->page);
  for (size_t i = 0; i < g->nelements; i++) {
    if (!is_select(&g->elements[i])) continue;
    cJSON *a = cJSON_CreateObject();
    cJSON_AddNumberToObject(a, "backendNodeId", g->elements[i].backend_node_id);
    ids[i] = cdp_send(r->c, sess, "DOM.resolveNode", a);
  }
  for (size_t i = 0; i < g->nelements; i++) {
    if (ids[i] <= 0) continue;
    cJSON *res = NULL;
    int id = ids[i];
    ids[i] = 0;
    if (cdp_wait(r->c, id, &res, 5000) != CDP_OK) { cJSON_Delete(res); continue; }
    const char *oid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "object"), "objectId"));
    if (oid) {
      cJSON *a = cJSON_CreateObject();
      cJSON_AddStringToObject(a, "objectId", oid);
      cJSON_AddStringToObject(a, "functionDeclaration", CRAWL__JS(select_options));
      cJSON_AddBoolToObject(a, "returnByValue", 1);
      ids[i] = cdp_send(r->c, sess, "Runtime.callFunctionOn", a);
    }
    cJSON_Delete(res);
  }
  for (size_t i = 0; i < g->nelements; i++) {
    if (ids[i] <= 0) continue;
    cJSON *res = NULL;
    if (cdp_wait(r->c, ids[i], &res, 5000) == CDP_OK)
      out[i] = cJSON_DetachItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "result"), "value");
    cJSON_Delete(res);
  }
  free(ids);
  return out;
}

static void free_select_options(cJSON **opts, size_t n) {
  for (size_t i = 0; opts && i < n; i++) cJSON_Delete(opts[i]);
  free(opts);
}

/* Action aid on element e of g, the ordinal-th of its role and name: its
 * identity (strings owned by a, fr_action_free), not yet decided. */
static void action_init(action *a, const char *aid, const pg_graph *g, const pg_element *e, int ordinal) {
  a->action_id = crawl__xstrdup(aid);
  a->role = crawl__xstrdup(e->role);
  a->name = crawl__xstrdup(e->name ? e->name : "");
  a->stable_id = crawl__xstrdup(e->stable_id);
  a->href = crawl__xstrdup(e->href);
  a->scope_id = e->scope >= 0 ? crawl__xstrdup(g->scopes[e->scope].scope_id) : NULL;
  a->scope_key = crawl__act_scope_key(g, e->scope);
  a->document_id = crawl__xstrdup(g->documents[e->document].document_id);
  a->ordinal = ordinal;
  a->backend = e->backend_node_id;
}

/* Slot n of s's action table, zeroed, the table grown when it is full:
 * every action starts from nothing, whatever the slot held (an option
 * label left by realloc's fresh memory was read as this action's own). */
static action *acts_slot(state *s, int n) {
  if (n >= s->cap_acts) {
    s->cap_acts = n >= 8 ? n * 2 : 8;
    s->acts = crawl__xrealloc(s->acts, (size_t)s->cap_acts * sizeof *s->acts);
  }
  memset(&s->acts[n], 0, sizeof s->acts[n]);
  return &s->acts[n];
}

#define MAX_OPTIONS 8
/* ui.choose actions for a single-choice <select> e: the options other than
 * the selected one, not disabled, the first MAX_OPTIONS. Appends to
 * st[si].acts from index n (acts_slot); returns the new count. */
static int select_actions(run *r, int si, const pg_element *e, const cJSON *v, int ordinal, int n) {
  if (!cJSON_IsObject(v)) return n;
  const cJSON *opts = cJSON_GetObjectItemCaseSensitive(v, "o"), *sel = cJSON_GetObjectItemCaseSensitive(v, "i");
  int cur = cJSON_IsNumber(sel) ? sel->valueint : -1, made = 0, k = 0, nopt = cJSON_GetArraySize(opts);
  /* The arrow keys select every enabled option between the selected one and
   * the target, and the page sees a change for each: choosing k is allowed
   * only when every option on the way is. blocked[j]: option j is denied. */
  act_decision blocked[64];
  for (int j = 0; j < nopt && j < 64; j++) {
    const cJSON *oj = cJSON_GetArrayItem(opts, j);
    blocked[j].effect = POL_EFFECT_ALLOW;
    if (cJSON_IsTrue(cJSON_GetArrayItem(oj, 1))) continue; /* disabled: the keys skip it */
    action t = {.action_id = "ui.choose", .role = e->role, .name = e->name ? e->name : "",
                .option = cJSON_GetStringValue(cJSON_GetArrayItem(oj, 0))};
    if (!t.option) continue;
    decide(r, &t, e);
    blocked[j] = t.dec;
  }
  state *s = &r->f.st[si];
  const cJSON *o;
  cJSON_ArrayForEach(o, opts) {
    const char *label = cJSON_GetStringValue(cJSON_GetArrayItem(o, 0));
    int idx = k++;
    if (idx == cur || cJSON_IsTrue(cJSON_GetArrayItem(o, 1)) || !label || made == MAX_OPTIONS) continue;
    action *a = acts_slot(s, n);
    action_init(a, "ui.choose", r->g, e, ordinal);
    a->option = crawl__xstrdup(label);
    a->option_index = idx;
    a->option_from = cur;
    decide(r, a, e);
    for (int j = cur < idx ? cur + 1 : idx + 1; a->dec.effect == POL_EFFECT_ALLOW && j < (cur < idx ? idx : cur) && j < 64; j++)
      if (blocked[j].effect != POL_EFFECT_ALLOW) {
        char why[384];
        a->dec = blocked[j];
        snprintf(why, sizeof why,
                 "%s: the arrow keys pass over option %d on the way, which the policy does not allow", 
                 pol_effect_name(blocked[j].effect), j);
        a->dec.text = crawl__act_text(why);
      }
    n++;
    made++;
  }
  return n;
}

/* Build the action list of state si from the current capture. */
static void build_actions(run *r, int si) {
  state *s = &r->f.st[si];
  const pg_graph *g = r->g;
  s->cap_acts = (int)(g->nelements + g->nscopes + 1);
  s->acts = crawl__xcalloc((size_t)s->cap_acts, sizeof *s->acts);
  int n = 0;
  int *ord = element_ordinals(g);
  cJSON **sel_opts = select_options(r, g);
  /* an open modal dialog: only what is inside it can be reached */
  int modal = -1;
  for (size_t k = 0; k < g->nscopes; k++)
    if (open_dialog(&g->scopes[k]) && pg_state_is(&g->scopes[k].state, PG_ST_MODAL))
      modal = (int)k;
  for (size_t i = 0; i < g->nelements; i++) {
    const pg_element *e = &g->elements[i];
    if (!pg_state_is(&e->state, PG_ST_VISIBLE) || !pg_state_is(&e->state, PG_ST_ENABLED) || !e->actions) continue;
    if (modal >= 0) {
      int inside = 0;
      for (int sc = e->scope; sc >= 0 && !inside; sc = g->scopes[sc].parent) inside = sc == modal;
      if (!inside) continue;
    }
    if (is_select(e)) {
      n = select_actions(r, si, e, sel_opts ? sel_opts[i] : NULL, ord[i], n);
      s = &r->f.st[si];
      continue;
    }
    const char *aid = action_for(e);
    if (!aid) continue;
    action *a = acts_slot(s, n);
    action_init(a, aid, g, e, ord[i]);
    a->here = (!strcmp(e->role, "tab") && pg_state_is(&e->state, PG_ST_SELECTED)) ||
              (e->href && s->url && !strcmp(e->href, s->url));
    decide(r, a, e);
    n++;
  }
  free(ord);
  free_select_options(sel_opts, g->nelements);
  /* an open dialog can be dismissed with Escape */
  for (size_t k = 0; k < g->nscopes; k++) {
    const pg_scope *sc = &g->scopes[k];
    if (!open_dialog(sc)) continue;
    action *a = acts_slot(s, n++);
    a->action_id = crawl__xstrdup("ui.dismiss");
    a->role = crawl__xstrdup("dialog");
    a->name = crawl__xstrdup(sc->name ? sc->name : "");
    a->stable_id = crawl__xstrdup(sc->stable_id);
    a->scope_id = crawl__xstrdup(sc->scope_id);
    a->escape = 1;
    decide(r, a, NULL);
    a->rank = FR_RANK_DISMISS; /* after its own buttons: a Close button is the natural exit */
    break;
  }
  s->nacts = n;
  qsort(s->acts, (size_t)n, sizeof *s->acts, cmp_action);
  /* room was made for every element; the table keeps what it holds (an
   * action is ~600 bytes, a state has a few actionable elements of many) */
  s->acts = crawl__xrealloc(s->acts, (size_t)(n ? n : 1) * sizeof *s->acts);
  s->cap_acts = n;
}

/* Identity of an action within its state, as the journal records it. */
static void action_key(char *buf, size_t n, const char *action_id, const cJSON *target_or_null,
                       const cJSON *args_or_null, const action *a) {
  if (a) {
    snprintf(buf, n, "%s|%s|%s|%s|%d%s%.200s", a->action_id ? a->action_id : "", a->role ? a->role : "",
             a->name ? a->name : "", a->stable_id ? a->stable_id : "", a->ordinal, a->option ? "|" : "",
             a->option ? a->option : "");
    return;
  }
  const char *option = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args_or_null, "option"));
  const cJSON *t = target_or_null;
  const cJSON *ord = cJSON_GetObjectItemCaseSensitive(t, "ordinal");
  const char *sid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "stableId"));
  const char *role = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "role"));
  const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "name"));
  snprintf(buf, n, "%s|%s|%s|%s|%d%s%.200s", action_id ? action_id : "", role ? role : "", name ? name : "",
           sid ? sid : "", cJSON_IsNumber(ord) ? ord->valueint : 0, option ? "|" : "", option ? option : "");
}









/* ---- observing the page ----------------------------------------------------------------- */
/* Settle, capture, fingerprint. Returns the state index of the capture, or -1
 * when unknown; *rc gets the error. */
/* A visible progress bar in g that `before` did not have: the page is still
 * loading what the action asked for (a busy indicator that was there all
 * along is background noise). */
static int new_busy(const pg_graph *g, const pg_graph *before) {
  for (size_t i = 0; i < g->nelements; i++) {
    const pg_element *e = &g->elements[i];
    if (strcmp(e->role, "progressbar") || !pg_state_is(&e->state, PG_ST_VISIBLE)) continue;
    int seen = 0;
    for (size_t j = 0; before && j < before->nelements && !seen; j++)
      seen = before->elements[j].backend_node_id == e->backend_node_id &&
             pg_state_is(&before->elements[j].state, PG_ST_VISIBLE);
    if (!seen) return 1;
  }
  return 0;
}

/* The recipe that tells the app's sign-in page: the principal's, else the
 * first any principal has. */
static const crawl_login *signin_recipe(const run *r) {
  if (r->pri >= 0 && r->o->principals[r->pri].login) return r->o->principals[r->pri].login;
  for (size_t k = 0; k < r->o->nprincipals; k++)
    if (r->o->principals[k].login) return r->o->principals[k].login;
  return NULL;
}

/* Signed out: the main document said 401 or 419, or g is the sign-in page. */
static int signed_out(const run *r, const pg_graph *g) {
  if (r->pri < 0) return 0;
  int st = crawl_page_status(r->page);
  return st == 401 || st == 419 || crawl__login_page(signin_recipe(r), g->route_url, g);
}

/* States are the principal's: the same page seen by two principals is two
 * states (fp: 32 hex digits, rewritten in place). */
static void principal_salt(const run *r, char *fp) {
  if (r->pri < 0) return;
  char *a = crawl__xprintf("%s\n%s", r->o->principals[r->pri].id, fp), *b = crawl__xprintf("%s\n%s", fp, a);
  snprintf(fp, 33, "%016llx%016llx", (unsigned long long)crawl__hash(a), (unsigned long long)crawl__hash(b));
  free(a);
  free(b);
}

/* A hash-routed app shows its default route at "page.html" and at
 * "page.html#/home": the same UI (content fingerprint) under route keys a
 * and b, one with a route fragment and one without, is one state. Only a
 * fixed route can be the default one: a fragment that takes parameters
 * (#/page/2, #/item/42) is one page of its template, a route of its own
 * even when its page looks like the seed's (issue 25; docs/decisions.md). */
static int default_route_alias(const char *a, const char *b) {
  if (!a || !b) return 0;
  size_t la = strcspn(a, "#"), lb = strcspn(b, "#");
  if (la != lb || strncmp(a, b, la) || (a[la] && b[lb])) return 0;
  const char *frag = a[la] ? a + la : b + lb;
  pg_route_param *params = NULL;
  size_t nparams = 0;
  free(pg_route_template(frag, &params, &nparams));
  pg_route_params_free(params, nparams);
  return nparams == 0;
}

#define BUSY_ROUNDS 8
static int observe(run *r, crawl_code *rc, char **route) {
  pg_graph *prev = r->g;   /* ours to free once the new capture is in */
  const pg_graph *before = prev ? prev : r->before; /* the step's, alive until we return */
  r->before = NULL;
  r->g = NULL;
  pg_options go = run_graph_opts(r);
  char *rk = NULL;
  /* Settle, capture, fingerprint. A capture that would be a new state while
   * a busy indicator the action brought up is showing is looked at again
   * after settling (a bounded number of rounds): a loading screen is not a
   * state. Known states cost nothing extra. */
  for (int round = 0; round < BUSY_ROUNDS; round++) {
    pg_graph *g = NULL;
    long long t0 = cdp_now_ms();
    *rc = crawl_page_settle(r->page);
    long long t1 = cdp_now_ms();
    if (!*rc) *rc = crawl_page_capture(r->page, &go, &g);
    if (!r->in_restore) {
      crawl__timing_add(&r->tm, CRAWL_PH_SETTLE, t1 - t0);
      crawl__timing_add(&r->tm, CRAWL_PH_CAPTURE, cdp_now_ms() - t1);
    }
    if (!*rc && (r->signed_out = signed_out(r, g)) != 0) *rc = CRAWL_NAVIGATE; /* not a state of the principal */
    if (*rc) {
      pg_graph_free(g);
      if (!r->g) r->g = prev; /* keep a graph around, as before the call */
      else pg_graph_free(prev);
      free(rk);
      return -1;
    }
    pg_graph_free(r->g); /* an earlier round's capture */
    r->g = g;
    free(rk);
    rk = NULL;
    pg_fp_policy fp = r->o->fp;
    fp.base_origin = r->page_origin;
    long long t2 = cdp_now_ms();
    rk = pg_route_key_rel(g->route_url, r->page_origin);
    long canon = rk ? crawl__strmap_get(&r->route_alias, rk) : -1;
    if (canon >= 0) { /* this URL shows a seed's route: fingerprinted and named as that route */
      free(rk);
      rk = crawl__xstrdup(r->f.st[canon].route);
    }
    fp.route_key = rk;
    pg_fingerprint(g, &fp, r->cur_fp, NULL);
    fp.route_key = NULL;
    fp.ignore_route = 1;
    pg_fingerprint(g, &fp, r->cur_cfp, NULL);
    if (!r->in_restore) crawl__timing_add(&r->tm, CRAWL_PH_FINGERPRINT, cdp_now_ms() - t2);
    principal_salt(r, r->cur_fp);
    principal_salt(r, r->cur_cfp);
    r->cur = find_state(r, r->cur_fp);
    if (r->cur < 0) {
      for (int i = 0; i < r->f.nst && r->cur < 0; i++)
        if (!strcmp(r->f.st[i].cfp, r->cur_cfp) && default_route_alias(r->f.st[i].route, rk)) r->cur = i;
      if (r->cur >= 0) {
        memcpy(r->cur_fp, r->f.st[r->cur].fp, sizeof r->cur_fp);
        if (r->f.st[r->cur].depth == 0) crawl__strmap_put(&r->route_alias, rk, r->cur);
      }
    }
    if (r->cur >= 0 || !new_busy(g, before)) break;
  }
  pg_graph_free(prev);
  if (route) *route = rk;
  else free(rk);
  return r->cur;
}

/* Observed signals of a transition (SuccessSignal), from the graphs before
 * and after: route, dialog and validation changes come from the machinery
 * observe publishes with (pg_delta_signals); a status or alert element that
 * appeared with text is a toast (observe sees those as live-region events);
 * on the same route, collection counts and elements that appeared or went
 * (pg_change_signals). */
static cJSON *signals_between(run *r, const pg_graph *a, const char *route_a, const pg_graph *b, const char *route_b) {
  cJSON *arr = cJSON_CreateArray(), *ws = cJSON_CreateArray();
  unsigned long seq = 0;
  const cJSON *ja = graph_json(r, a), *jb = graph_json(r, b); /* b takes the other slot: ja stays */
  pg_delta_signals(ja, jb, "sig_", &seq, ws);
  const cJSON *w;
  int routed = 0;
  cJSON_ArrayForEach(w, ws) {
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(w, "kind"));
    if (!kind) continue;
    if (!strcmp(kind, "route.changed")) {
      /* the crawler's route is its route key (query normalised), not the raw URL */
      if (!route_a || !route_b || !strcmp(route_a, route_b) || routed++) continue;
      cJSON *sg = cJSON_CreateObject();
      cJSON_AddStringToObject(sg, "kind", "route.changed");
      cJSON_AddStringToObject(sg, "pattern", route_b);
      cJSON_AddItemToArray(arr, sg);
    } else if (!strcmp(kind, "dialog.opened") || !strcmp(kind, "dialog.closed") || !strcmp(kind, "validation.changed")) {
      cJSON *sg = cJSON_CreateObject();
      cJSON_AddStringToObject(sg, "kind", kind);
      const char *scope = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(w, "scopeId"));
      if (scope) cJSON_AddStringToObject(sg, "scopeId", scope);
      cJSON_AddItemToArray(arr, sg);
    }
  }
  cJSON_Delete(ws);
  /* a status or alert element that appeared with text: a toast */
  for (size_t k = 0; k < b->nelements; k++) {
    const pg_element *e = &b->elements[k];
    if (!e->name || !*e->name || (strcmp(e->role, "status") && strcmp(e->role, "alert"))) continue;
    int before = 0;
    for (size_t j = 0; j < a->nelements; j++)
      if (a->elements[j].name && !strcmp(a->elements[j].name, e->name) && !strcmp(a->elements[j].role, e->role)) before = 1;
    if (!before) {
      cJSON *s = cJSON_CreateObject();
      cJSON_AddStringToObject(s, "kind", "toast.contains");
      cJSON_AddStringToObject(s, "text", e->name);
      cJSON_AddItemToArray(arr, s);
      break;
    }
  }
  if (route_a && route_b && !strcmp(route_a, route_b)) pg_change_signals(ja, jb, arr);
  return arr;
}

/* Perform action a on the current page (act.c: found again and decided
 * again there; *refused, may be NULL, says why nothing was done). An
 * ambiguous target is a review item of the state the page is in; a refusal
 * is logged (the caller records the failure). */
static crawl_code perform_(run *r, const action *a, act_refusal *refused, char *why, size_t whylen) {
  act_gate gate = {.policy = &r->o->policy, .page_origin = r->page_origin, .allowed = (const char *const *)r->allowed};
  act_refusal ignored;
  if (!refused) refused = &ignored;
  crawl_code rc = crawl__act_perform(r->page, r->g, &gate, a, NULL, refused, why, whylen);
  if (*refused == ACT_AMBIGUOUS)
    jl_review(r, "ambiguous_target", "medium", r->cur, a,
              "Make every data-uiap-id unique within a page (add the row or item key to repeated controls).", "%s",
              why);
  else if (*refused == ACT_REFUSED)
    crawl_log(CRAWL_LOG_WARN, "gate", "%s %s \"%s\": %s", a->action_id, a->role, a->name ? a->name : "", why);
  return rc;
}

static crawl_code perform(run *r, const action *a, char *why, size_t whylen) {
  return perform_(r, a, NULL, why, whylen);
}

/* Load url (a state's, a route to probe) through the one path for
 * navigations (crawl__act_navigate): inside the run's scope (its origins
 * and the seeds'), never a URL that reads as a logout or a deletion. A
 * refusal is logged; CRAWL_ARG with why. */
static crawl_code navigate(run *r, const char *url, int same_document, char *why, size_t whylen) {
  act_gate gate = {.policy = &r->o->policy, .page_origin = r->page_origin, .allowed = (const char *const *)r->scope};
  act_refusal refused;
  crawl_code rc = crawl__act_navigate(r->page, &gate, url, same_document, &refused, why, whylen);
  if (refused == ACT_REFUSED) crawl_log(CRAWL_LOG_WARN, "gate", "%.300s: %s", url ? url : "", why);
  return rc;
}

/* ---- what the run reads back: untrusted (docs/safety.md) ----------------------------- */
/* 1 when url lies in the run's own scope: its origin is the page's, one the
 * options allow, or a seed's. A URL read back (a state of the shared
 * frontier, of a resumed journal) never widens it. */
static int scope_has(const run *r, const char *url) {
  act_gate gate = {.page_origin = r->page_origin,
                   .allowed = r->scope ? (const char *const *)r->scope : (const char *const *)r->allowed};
  return crawl__act_in_scope(&gate, url);
}

/* Action rec, recorded earlier (a state's path, a known edge: this run's,
 * a resumed journal's or another worker's), on the current page through
 * the one path (perform_: found on the page, decided again by the gate on
 * that element as it is now; a recorded action carries no decision of its
 * own). Refused: nothing is done, a warning line and a review item say so,
 * CRAWL_ARG with why. State si: where the recorded path leads. */
static crawl_code replay(run *r, int si, const action *rec, char *why, size_t whylen) {
  if (!rec->escape && !r->g) {
    snprintf(why, whylen, "the recorded target is not on the page (no capture)");
    return CRAWL_ARG;
  }
  act_refusal refused;
  crawl_code rc = perform_(r, rec, &refused, why, whylen);
  if (refused != ACT_REFUSED) return rc;
  const char *role = rec->role ? rec->role : "", *name = rec->name ? rec->name : "";
  crawl_log(CRAWL_LOG_WARN, "crawl", "not replaying %s %s \"%.80s\" on the way to %s: %s", rec->action_id, role, name,
            r->f.st[si].id, why);
  jl_review(r, "custom", "high", si, rec, "Check where the recorded path came from (another worker, a resumed journal).",
            "A recorded path to this state asks for %s on %s \"%.120s\": it was not performed (%.600s).",
            rec->action_id, role, name, why);
  return rc;
}

/* 1 when state si's URL may be loaded: in the run's scope. Else (a record
 * read back that names another origin) a warning, once, and never loaded. */
static int url_loadable(run *r, int si) {
  state *s = &r->f.st[si];
  if (scope_has(r, s->url)) return 1;
  if (s->addressable != 0)
    crawl_log(CRAWL_LOG_WARN, "crawl", "not loading state %s: its URL %.200s is outside the run's scope", s->id,
              s->url ? s->url : "(none)");
  s->addressable = 0;
  return 0;
}


static int budget_stop(run *r) {
  while (r->o->pause && *r->o->pause && !(r->o->cancel && *r->o->cancel)) usleep(50000);
  if (r->o->cancel && *r->o->cancel) {
    r->cancelled = 1;
    if (!r->stopped_by) r->stopped_by = "signal";
    return 1;
  }
  if (r->stopped_by) return 1;
  if (r->sh ? r->sh_spent : r->transitions >= r->b.max_transitions) {
    r->stopped_by = "maxTransitions";
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "budget", "maxTransitions");
    cJSON_AddNumberToObject(o, "limit", (double)r->b.max_transitions);
    jl_write(r, "budget", o);
    return 1;
  }
  if (elapsed(r) >= r->b.max_runtime_ms) {
    r->stopped_by = "maxRuntimeMs";
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "budget", "maxRuntimeMs");
    cJSON_AddNumberToObject(o, "limit", (double)r->b.max_runtime_ms);
    jl_write(r, "budget", o);
    return 1;
  }
  return 0;
}

/* 1 when rc or the cancel flag says the run was cancelled (noted: the run
 * ends with what it collected, status "cancelled", whatever failed on the
 * way, since a cancel interrupts the browser call under way). */
static int cancel_seen(run *r, crawl_code rc) {
  if (rc != CRAWL_CANCELLED && !(r->o->cancel && *r->o->cancel)) return 0;
  r->cancelled = 1;
  if (!r->stopped_by) r->stopped_by = "signal";
  return 1;
}

static void note_error(run *r, crawl_code rc) {
  if (cancel_seen(r, rc)) {
    return;
  } else if (rc == CRAWL_GUARD) {
    /* fail closed: going on (or restarting into the same page) would run
     * something the guard does not cover */
    r->fatal = r->guard_stop = 1;
    r->stopped_by = "guard";
    snprintf(r->err, sizeof r->err, "%s", crawl_page_errmsg(r->page));
  } else if (rc == CRAWL_BROWSER || rc == CRAWL_CRASHED || rc == CRAWL_TIMEOUT) {
    if (!cdp_client_alive(r->c) || rc == CRAWL_CRASHED || rc == CRAWL_TIMEOUT) {
      r->fatal = 1;
      snprintf(r->err, sizeof r->err, "%s", crawl_page_errmsg(r->page));
    }
  }
}

static void strv_free(char **v, size_t n) {
  for (size_t k = 0; k < n; k++) free(v[k]);
  free(v);
}

/* After the browser died or the tab crashed or hung: a new tab (or a new
 * browser), bounded. Under --connect (o->reconnect) a dead connection is a
 * dropped socket, not a crash: a pool closes long sessions. It is
 * reconnected, bounded by max_reconnects apart from max_restarts, noted in
 * the journal, not a review item. 0 when exploring can go on from a
 * restored state. */
static int recover(run *r) {
  int browser_dead = !cdp_client_alive(r->c), dropped = browser_dead && r->o->reconnect;
  int mr = r->o->max_reconnects, max = dropped ? (mr > 0 ? mr : mr < 0 ? 0 : 10)
                                                : (r->o->max_restarts > 0 ? r->o->max_restarts : 3);
  int *count = dropped ? &r->reconnects : &r->restarts;
  const char *what = dropped ? "the connection to the browser pool dropped" : "the browser died";
  if (r->cancelled) return -1;
  if (r->guard_stop) {
    jl_note(r, "stopped: %s", r->err);
    return -1;
  }
  if (*count >= max) {
    jl_note(r, "stopped: %s; %d %s already, giving up", r->err, *count, dropped ? "reconnects" : "restarts");
    if (!r->stopped_by) r->stopped_by = "error";
    return -1;
  }
  (*count)++;
  long long t0 = cdp_now_ms();
  if (r->page) {
    r->dialogs += crawl_page_dialogs(r->page);
    r->popups += crawl_page_popups(r->page);
  }
  /* the fields the old tab found sensitive stay so in the new one */
  const char *const *old_keys;
  size_t nkeys = crawl__page_sensitive_keys(r->page, &old_keys);
  char **keys = crawl__xcalloc(nkeys + 1, sizeof *keys);
  for (size_t k = 0; k < nkeys; k++) keys[k] = crawl__xstrdup(old_keys[k]);
  crawl_page_close(r->page);
  r->page = NULL;
  if (browser_dead) {
    if (!r->o->relaunch || r->o->relaunch(r->o->relaunch_ud, &r->c) != CDP_OK) {
      jl_note(r, "stopped: %s (%s) and %s", what, r->err, dropped ? "reconnecting failed" : "could not be restarted");
      if (!r->stopped_by) r->stopped_by = "error";
      strv_free(keys, nkeys);
      return -1;
    }
  }
  crawl_code rc = crawl_page_open(r->c, &r->po, &r->page);
  if (!rc) {
    crawl__page_use_secrets(r->page, r->secrets);
    crawl__page_remember_keys(r->page, (const char *const *)keys, nkeys);
  }
  strv_free(keys, nkeys);
  if (rc && cancel_seen(r, rc)) return -1;
  if (rc) {
    jl_note(r, "stopped: could not open a new tab: %s", crawl_page_errmsg(r->page));
    if (!r->stopped_by) r->stopped_by = "error";
    return -1;
  }
  if (r->cur >= 0 && !dropped)
    jl_review(r, "custom", "high", r->cur, NULL, "Check the page for crashes or endless scripts.",
              "The %s while in this state (%s); it was replaced and exploring went on.",
              browser_dead ? "browser died" : "tab crashed or stopped answering", r->err);
  jl_note(r, "%s (%s); %s in %lld ms (%s %d of %d)", browser_dead ? what : "the tab crashed or hung", r->err,
          dropped ? "reconnected" : browser_dead ? "started a new browser" : "opened a new tab", cdp_now_ms() - t0,
          dropped ? "reconnect" : "restart", *count, max);
  r->fatal = 0;
  r->cur = -1;
  pg_graph_free(r->g);
  r->g = NULL;
  return 0;
}


/* Take known edge e from the current page. 0 when it landed where it did before. */
static int walk_edge(run *r, const edge *e) {
  char why[256];
  crawl_code rc = replay(r, e->to, &e->a, why, sizeof why);
  if (!rc) observe(r, &rc, NULL);
  if (rc) { note_error(r, rc); return -1; }
  return r->cur == e->to ? 0 : -1;
}

/* The cheapest way back to a hash-routed state: a same-document navigation
 * from the page that is there (the app's router draws the route), kept only
 * when the capture is that state; otherwise the caller loads it afresh. An
 * app whose router does not answer hash changes stops being asked after a
 * few misses. 1: the page is in state si. */
static int hash_hop(run *r, int si) {
  const char *cur = r->page ? crawl_page_url(r->page) : NULL, *url = r->f.st[si].url;
  if (!cur || !url || (r->hops_bad >= 4 && r->hops_bad > 2 * r->hops_ok)) return 0;
  size_t lc = strcspn(cur, "#"), lu = strcspn(url, "#");
  if (lc != lu || strncmp(cur, url, lc) || !url[lu] || !strcmp(cur, url)) return 0;
  char why[512];
  crawl_code rc = navigate(r, url, 1, why, sizeof why);
  if (rc == CRAWL_ARG) return 0;
  if (!rc) observe(r, &rc, NULL);
  if (rc) {
    note_error(r, rc);
    return 0;
  }
  if (r->cur == si) r->hops_ok++;
  else r->hops_bad++;
  crawl_log(CRAWL_LOG_DEBUG, "restore", "state %s by a hash change: %s", r->f.st[si].id,
            r->cur == si ? "landed" : "landed elsewhere; loading it");
  return r->cur == si;
}

/* Bring the page to state si by reloading its nearest URL-addressable
 * ancestor and replaying the recorded path (the planner has already looked
 * for a cheaper path over known edges). 0 on success. */
static int restore_path(run *r, int si) {
  crawl_code rc;
  char why[256];
  /* ancestors of si, nearest first */
  int chain[256], nchain = 0;
  for (int a = si; a >= 0 && nchain < 256; a = r->f.st[a].parent) chain[nchain++] = a;
  for (int k = 0; k < nchain; k++) {
    state *a = &r->f.st[chain[k]];
    if (a->addressable == 0 || !url_loadable(r, chain[k])) continue;
    if (a->addressable < 0 && a->parent >= 0 && a->url && r->f.st[a->parent].url &&
        !strcmp(a->url, r->f.st[a->parent].url)) {
      a->addressable = 0; /* same URL as its parent: not URL-addressable */
      continue;
    }
    int hopped = hash_hop(r, chain[k]);
    if (r->fatal || r->cancelled || r->signed_out) return -1;
    if (hopped) rc = CRAWL_OK;
    else if ((rc = navigate(r, a->url, 0, why, sizeof why)) == CRAWL_OK) observe(r, &rc, NULL);
    else if (rc == CRAWL_ARG) { a->addressable = 0; continue; } /* refused: not by its URL */
    else { note_error(r, rc); if (r->fatal || r->cancelled) return -1; continue; }
    if (rc) { note_error(r, rc); if (r->fatal || r->cancelled || r->signed_out) return -1; continue; }
    if (r->cur != chain[k]) {
      if (a->addressable < 0) a->addressable = 0;
      continue;
    }
    if (!hopped) a->addressable = 1; /* a load showed it (a hop proves nothing about loads) */
    /* replay down the chain */
    int ok = 1;
    for (int j = k - 1; j >= 0 && ok; j--) {
      state *child = &r->f.st[chain[j]];
      rc = replay(r, chain[j], &child->via, why, sizeof why);
      if (rc) { note_error(r, rc); ok = 0; break; }
      observe(r, &rc, NULL);
      if (rc) { note_error(r, rc); ok = 0; break; }
      if (r->cur != chain[j]) ok = 0;
    }
    if (ok) return 0;
    if (r->fatal || r->cancelled || r->signed_out) return -1;
    break;
  }
  return -1;
}

/* State si could not be restored (for good): a review item. */
static void unrestorable(run *r, int si) {
  jl_review(r, "custom", "medium", si, NULL,
            "Make the state reachable deterministically (a URL or a stable path).",
            "Could not restore state %s: replaying its recorded path landed in a different state.", r->f.st[si].id);
}


/* restore_path, timed as a whole (its loads, clicks and captures). */
static int restore(run *r, int si) {
  if (r->cur == si) return 0;
  crawl_log(CRAWL_LOG_DEBUG, "restore", "state %s from %s", r->f.st[si].id, r->cur >= 0 ? r->f.st[r->cur].id : "an unknown state");
  long long t0 = cdp_now_ms();
  r->in_restore = 1;
  int rc = restore_path(r, si);
  r->in_restore = 0;
  crawl__timing_add(&r->tm, CRAWL_PH_RESTORE, cdp_now_ms() - t0);
  return rc;
}

/* ---- resume: rebuild the run from its journal ----------------------------------- */
static void action_from_json(action *a, const char *action_id, const cJSON *t, const cJSON *args, int escape) {
  memset(a, 0, sizeof *a);
  a->action_id = crawl__xstrdup(action_id ? action_id : "ui.activate");
  a->role = crawl__xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "role")));
  a->name = crawl__xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "name")));
  a->stable_id = crawl__xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "stableId")));
  a->scope_key = crawl__xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "scopeKey")));
  const cJSON *ord = cJSON_GetObjectItemCaseSensitive(t, "ordinal");
  a->ordinal = cJSON_IsNumber(ord) ? ord->valueint : 0;
  a->escape = escape;
  a->option = crawl__xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "option")));
  const cJSON *oi = cJSON_GetObjectItemCaseSensitive(args, "optionIndex");
  a->option_index = cJSON_IsNumber(oi) ? oi->valueint : 0;
  const cJSON *fi = cJSON_GetObjectItemCaseSensitive(args, "fromIndex");
  a->option_from = cJSON_IsNumber(fi) ? fi->valueint : -1;
}

static int state_by_id(const run *r, const char *id) {
  for (int i = 0; id && i < r->f.nst; i++)
    if (!strcmp(r->f.st[i].id, id)) return i;
  return -1;
}

static void add_done(state *s, const char *key) {
  s->done = crawl__xrealloc(s->done, (size_t)(s->ndone + 1) * sizeof *s->done);
  s->done[s->ndone++] = crawl__xstrdup(key);
}

/* The n actions with these keys are done in s (by this run's journal or
 * another worker): kept for when s is prepared, and marked now if it is
 * (each action's key made once). */
static void mark_done(state *s, char *const *keys, size_t n) {
  for (size_t k = 0; k < n; k++) add_done(s, keys[k]);
  for (int i = 0; i < s->nacts; i++) {
    char key[1200];
    if (s->acts[i].done) continue;
    action_key(key, sizeof key, NULL, NULL, NULL, &s->acts[i]);
    for (size_t k = 0; k < n && !s->acts[i].done; k++) s->acts[i].done = !strcmp(keys[k], key);
  }
}

/* A "state" line: the state back in the table (once per id). */
static void resume_state(run *r, const cJSON *j, const char *sid) {
  state *st = state_slot(r);
  snprintf(st->fp, sizeof st->fp, "%s", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "fingerprint")) ?: "");
  snprintf(st->cfp, sizeof st->cfp, "%s", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "contentFingerprint")) ?: "");
  st->id = crawl__xstrdup(sid);
  st->url = crawl__xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "url")));
  /* routeKey only when it differs from routeId (journals before it: the key) */
  const char *rid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "routeId"));
  const char *rkey = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "routeKey"));
  st->route = crawl__xstrdup(rkey ? rkey : rid);
  st->route_id = crawl__xstrdup(rid);
  st->title = crawl__xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "title")));
  const cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "depth"), *sd = cJSON_GetObjectItemCaseSensitive(j, "seed");
  st->depth = cJSON_IsNumber(d) ? d->valueint : 0;
  st->seed = cJSON_IsNumber(sd) ? sd->valueint : 0;
  st->parent = state_by_id(r, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "parentStateId")));
  const cJSON *via = cJSON_GetObjectItemCaseSensitive(j, "via");
  if (via)
    action_from_json(&st->via, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(via, "actionId")),
                     cJSON_GetObjectItemCaseSensitive(via, "target"), cJSON_GetObjectItemCaseSensitive(via, "args"),
                     cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(via, "escape")));
  st->addressable = st->parent < 0 ? 1 : -1;
  fr_index_state(&r->f, r->f.nst++);
}

/* A "transition" line: done in its state, an outcome, an edge or a self loop. */
/* A transition record (this run's journal, or another worker's on the
 * shared frontier) into the table: the action done in `from`, its outcome,
 * its time, and the edge. */
static void known_transition(run *r, int from, int to, const cJSON *j) {
  const char *aid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "viaActionId"));
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "target"), *args = cJSON_GetObjectItemCaseSensitive(j, "args");
  char key[1200];
  action_key(key, sizeof key, aid, t, args, NULL);
  char *one = key;
  mark_done(&r->f.st[from], &one, 1);
  int pk, pkr;
  fr_outcome_keys(&r->f, key, r->f.st[from].route, &pk, &pkr);
  fr_outcome_note(&r->f, pk, pkr, from, to);
  const cJSON *dur = cJSON_GetObjectItemCaseSensitive(j, "durationMs");
  int took = cJSON_IsNumber(dur) && dur->valuedouble > 0 && dur->valuedouble < 3600000 ? (int)dur->valuedouble : 0;
  if (from == to) {
    fr_note_ms(&r->f, pk, -1, took);
    return;
  }
  action a;
  const char *role = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "role"));
  action_from_json(&a, aid, t, args, aid && !strcmp(aid, "ui.dismiss") && role && !strcmp(role, "dialog"));
  fr_note_ms(&r->f, pk, fr_add_edge(&r->f, from, to, &a), took);
  fr_relax(&r->f, from, to, &a); /* the depths the run had found, not the first ones */
  fr_action_free(&a);
}

static void resume_transition(run *r, const cJSON *j) {
  int from = state_by_id(r, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "fromStateId")));
  int to = state_by_id(r, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "toStateId")));
  r->transitions++;
  if (from < 0 || to < 0) return;
  r->self_loops += from == to;
  known_transition(r, from, to, j);
}

/* One journal record back into the run (crawl__journal_read's callback). */
static int resume_record(void *ud, const char *type, cJSON *j) {
  run *r = ud;
  const char *sid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "stateId"));
  if (!strcmp(type, "run")) {
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "runId"));
    if (id) snprintf(r->run_id, sizeof r->run_id, "%s", id);
  } else if (!strcmp(type, "state") && sid && state_by_id(r, sid) < 0) {
    resume_state(r, j, sid);
  } else if (!strcmp(type, "transition")) {
    resume_transition(r, j);
  } else if (!strcmp(type, "failure")) {
    int st = state_by_id(r, sid);
    r->failures++;
    if (st >= 0) {
      char key[1200];
      action_key(key, sizeof key, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "actionId")),
                 cJSON_GetObjectItemCaseSensitive(j, "target"), cJSON_GetObjectItemCaseSensitive(j, "args"), NULL);
      add_done(&r->f.st[st], key);
    }
  } else if (!strcmp(type, "decision")) {
    int st = state_by_id(r, sid);
    r->decisions++;
    if (st >= 0) r->f.st[st].decided = 1;
  } else if (!strcmp(type, "review")) {
    r->reviews++;
  }
  return 0;
}

/* The record types a resumed run reads back. */
static const char *const resume_types[] = {"run", "state", "transition", "failure", "decision", "review", NULL};

/* ---- seeds ------------------------------------------------------------------------- */
typedef struct seed {
  char *url;
  cJSON *json;
  int resolved;
  int settled;   /* unusable: its seed line and review were written at planning (plan_seeds) */
} seed;

static const char *seed_kind(const seed *sd) {
  return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sd->json, "kind"));
}
/* Menu and action seeds name a control on the seed pages. */
static int is_control_seed(const seed *sd) {
  const char *k = seed_kind(sd);
  return !sd->url && !sd->settled && k && (!strcmp(k, "menu") || !strcmp(k, "action"));
}

/* A seed's URL or route against the base URL (RFC 3986: "../", "?q", "#f",
 * "//host" included), or NULL. Caller frees. */
static char *resolve_url(const char *base, const char *ref) {
  if (!ref) return NULL;
  if (!base) return pg_url_normalize(ref);
  return pg_url_resolve(base, ref);
}

/* ---- the run ------------------------------------------------------------------------- */
static void count_loop(run *r, const action *a, int self, int nsignals) {
  char key[1200];
  snprintf(key, sizeof key, "%s|%s|%s", a->action_id, a->role ? a->role : "", a->name ? a->name : "");
  int i = (int)crawl__strmap_get(&r->by_loop, key);
  if (i < 0) {
    i = r->nloops;
    crawl__strmap_put(&r->by_loop, key, i);
    if (r->nloops == r->caploops) {
      r->caploops = r->caploops ? r->caploops * 2 : 32;
      r->loops = crawl__xrealloc(r->loops, (size_t)r->caploops * sizeof *r->loops);
    }
    memset(&r->loops[i], 0, sizeof r->loops[i]);
    r->loops[i].key = crawl__xstrdup(key);
    fr_action_copy(&r->loops[i].a, a);
    r->nloops++;
  }
  if (self) r->loops[i].self++;
  else r->loops[i].moved++;
  r->loops[i].signals += nsignals;
}

static void finish(run *r, crawl_summary *sum) {
  /* controls that never changed anything: the spec wants a review item
   * (this is the live side of "reviewing"; the package build derives the rest) */
  for (int i = 0; i < r->nloops; i++) {
    struct loopstat *l = &r->loops[i];
    if (!l->moved && l->self && !l->signals)
      jl_review(r, "missing_success_signal", "low", -1, &l->a,
                "Give the control an observable effect (a status message, a route or state change) or annotate what it does.",
                CRAWL__LOOP_REVIEW_FMT, l->a.action_id, l->self);
    free(l->key);
    fr_action_free(&l->a);
  }
  free(r->loops);
  r->loops = NULL;
  r->nloops = 0;
  const char *status = r->cancelled ? "cancelled" : r->fatal ? "failed" : "completed";
  cJSON *o = cJSON_CreateObject();
  char ts[64];
  cJSON_AddStringToObject(o, "status", status);
  cJSON_AddStringToObject(o, "finishedAt", crawl__time_iso(ts, sizeof ts));
  cJSON_AddStringToObject(o, "stoppedBy", r->stopped_by ? r->stopped_by : "frontier");
  cJSON_AddItemToObject(o, "timing", crawl__timing_json(&r->tm));
  jl_write(r, "end", o);
  char tm[512];
  crawl__timing_format(&r->tm, (long)r->tm.ph[CRAWL_PH_ACT].count, tm, sizeof tm);
  crawl_log(CRAWL_LOG_INFO, "crawl", "time per action: %s", tm);
  sum->states = r->f.nst;
  sum->transitions = r->transitions;
  sum->self_loops = r->self_loops;
  sum->decisions = r->decisions;
  sum->failures = r->failures;
  sum->reviews = r->reviews;
  sum->stopped_by = r->stopped_by ? r->stopped_by : "frontier";
  sum->status = status;
}

static int mkdir_p(const char *dir) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s", dir);
  for (char *p = tmp + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
      *p = '/';
    }
  return mkdir(tmp, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

/* Build the action list of state si (the page shows si) and journal the
 * gate's decisions for what it will not do. */
static void prepare_state(run *r, int si) {
  state *s = &r->f.st[si];
  build_actions(r, si);
  s = &r->f.st[si];
  for (int i = 0; i < s->nacts; i++) {
    char key[1200];
    action_key(key, sizeof key, NULL, NULL, NULL, &s->acts[i]);
    for (int k = 0; k < s->ndone; k++)
      if (!strcmp(s->done[k], key)) s->acts[i].done = 1;
    fr_outcome_keys(&r->f, key, s->route, &s->acts[i].pk, &s->acts[i].pkr);
  }
  fr_state_sig(&r->f, si);
  if (s->decided) return; /* a resumed run journaled them already */
  s->decided = 1;
  long allowed = 0;
  for (int i = 0; i < s->nacts; i++) {
    action *a = &s->acts[i];
    if (a->dec.effect == POL_EFFECT_ALLOW) { allowed++; continue; }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "stateId", s->id);
    cJSON_AddStringToObject(o, "actionId", a->action_id);
    cJSON_AddItemToObject(o, "target", target_json(a));
    add_args(o, a);
    cJSON_AddStringToObject(o, "sideEffectClass", pol_side_effect_name(a->cls.side_effect));
    cJSON_AddStringToObject(o, "effect", pol_effect_name(a->dec.effect));
    cJSON_AddStringToObject(o, "reason", pol_reason_name(a->dec.reason));
    cJSON_AddStringToObject(o, "rule", a->cls.rule);
    if (a->cls.keyword) cJSON_AddStringToObject(o, "keyword", a->cls.keyword);
    cJSON_AddStringToObject(o, "text", a->dec.text ? a->dec.text : "");
    jl_write(r, "decision", o);
    r->decisions++;
  }
  /* what the gate let through here (the package's metadata.gate) */
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "stateId", s->id);
  cJSON_AddNumberToObject(o, "allowed", (double)allowed);
  jl_write(r, "gate", o);
}

/* ---- one step -------------------------------------------------------------------------- */
/* What the page counted before an action: its side effects are the difference. */
typedef struct step_marks {
  int blocked, dialogs, popups, websockets, ws_frames, ws_unguarded;
  long long t;                /* when the action started */
} step_marks;

/* What the write guard turned away during an action, as review items on
 * the control (the request with the guard's reason: "POST url (a write)",
 * "GET url (its URL reads as a logout ...)"), and counts on transition o. */
static void journal_guarded(run *r, int from, const action *a, const step_marks *m, cJSON *o) {
  const char *last = NULL, *ws_last = NULL;
  int blocked = crawl_page_blocked(r->page, &last), frames = 0, unguarded = 0;
  int ws = crawl_page_websockets(r->page, &frames, &unguarded, &ws_last);
  static const char fix[] = "Annotate the control with data-uiap-risk, or give it a name that says what it does.";
  if (blocked > m->blocked) {
    cJSON_AddNumberToObject(o, "blockedRequests", blocked - m->blocked);
    jl_review(r, "unsafe_action_candidate", "high", from, a, fix,
              "Activating this control made a request the write guard blocked: %s.", last ? last : "a request");
  }
  if (ws > m->websockets)
    jl_review(r, "unsafe_action_candidate", "medium", from, a, fix,
              "Activating this control tried to open a WebSocket (%s); the write guard refused it, since "
              "what an app sends over it cannot be read.", ws_last ? ws_last : "?");
  if (unguarded > m->ws_unguarded && r->allow_ws)
    jl_review(r, "unsafe_action_candidate", "medium", from, a, fix,
              "Activating this control opened a WebSocket (%s), allowed by the plan "
              "(environment.metadata.allowWebSockets); what was sent over it is unknown.", ws_last ? ws_last : "?");
  else if (unguarded > m->ws_unguarded)
    jl_review(r, "unsafe_action_candidate", "high", from, a, fix,
              "Activating this control opened a WebSocket (%s) the write guard could not refuse (from a "
              "worker the page started before); what was sent over it is unknown.", ws_last ? ws_last : "?");
  if (frames > m->ws_frames)
    jl_review(r, "unsafe_action_candidate", "medium", from, a, fix,
              "Activating this control sent %d WebSocket frame%s on a connection the page had opened "
              "(not readable by the guard).", frames - m->ws_frames, frames - m->ws_frames == 1 ? "" : "s");
}

/* Fields that only the tab's memory keeps secret in g (a toggle turned a
 * password into text) and that were not so in before. */
static int newly_revealed(const pg_graph *before, const pg_graph *g) {
  int n = 0;
  for (size_t k = 0; g && k < g->nsensitive_fields; k++) {
    if (!g->sensitive_fields[k].revealed) continue;
    int seen = 0;
    for (size_t j = 0; before && j < before->nsensitive_fields && !seen; j++)
      seen = before->sensitive_fields[j].revealed &&
             before->sensitive_fields[j].backend_node_id == g->sensitive_fields[k].backend_node_id;
    n += !seen;
  }
  return n;
}

/* A control that shows a password's value: the value stays withheld (the
 * tab remembers the field), but a person should know the app does this. */
static void journal_revealed(run *r, int from, const action *a, const pg_graph *before) {
  int n = newly_revealed(before, r->g);
  if (n)
    jl_review(r, "unsafe_action_candidate", "medium", from, a,
              "Nothing to fix if the toggle is intended; the crawler keeps the value withheld.",
              "Activating this control revealed password field%s: %d field%s that %s a password now "
              "show%s %s value as text (withheld in every output).", n == 1 ? "" : "s", n, n == 1 ? "" : "s",
              n == 1 ? "was" : "were", n == 1 ? "s" : "", n == 1 ? "its" : "their");
}

/* The journal's "failure" line: action a of state s could not be performed (why). */
static void journal_failure(run *r, const state *s, const action *a, const char *why) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "stateId", s->id);
  cJSON_AddStringToObject(o, "actionId", a->action_id);
  cJSON_AddItemToObject(o, "target", target_json(a));
  add_args(o, a);
  cJSON_AddStringToObject(o, "reason", why);
  jl_write(r, "failure", o);
  r->failures++;
}

/* Browser side effects the page caused since m, as custom signals into sigs. */
static void side_effect_signals(run *r, cJSON *sigs, const step_marks *m) {
  static const char *const side[] = {"javascript dialog dismissed", "popup window closed"};
  int counts[2] = {crawl_page_dialogs(r->page) - m->dialogs, crawl_page_popups(r->page) - m->popups};
  for (int k = 0; k < 2; k++)
    if (counts[k] > 0) {
      cJSON *sg = cJSON_CreateObject();
      cJSON_AddStringToObject(sg, "kind", "custom");
      cJSON_AddStringToObject(sg, "text", side[k]);
      cJSON_AddItemToArray(sigs, sg);
    }
}

/* 1 when the current capture, on route key rk, is state `to` under another
 * route: a route folded into an equal state (pagination "#/page/2" showing
 * what "#/page/1" does, a default route at "page.html" and "#/home"). */
static int folded(const run *r, int to, const char *rk) {
  return to >= 0 && rk && r->f.st[to].route && strcmp(rk, r->f.st[to].route);
}

/* The route of the current capture (its graph's RouteContext, the routeId
 * as the crawler names it) as member "route" of o: a route visited but
 * folded into a state of another route still reaches the route catalog. */
static void landed_route(run *r, cJSON *o, const char *rk) {
  cJSON *rt = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(graph_json(r, r->g), "route"), 1);
  if (!rt) return;
  char *id = route_id_of(r, rk);
  cJSON_DeleteItemFromObjectCaseSensitive(rt, "routeId");
  if (id) cJSON_AddStringToObject(rt, "routeId", id);
  free(id);
  cJSON_AddItemToObject(o, "route", rt);
}

/* The journal's "transition" line: a took the page from state `from`
 * (captured as `before`) to `to` (the current capture, on route); guarded:
 * the write guard failed its navigation. A review when the guard blocked
 * anything since m. */
static void shared_edge_out(run *r, const cJSON *o);

static void journal_transition(run *r, int from, int to, const action *a, const pg_graph *before,
                               const char *route, int guarded, const step_marks *m) {
  char tid[32];
  snprintf(tid, sizeof tid, "t_%05ld", r->transitions);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "transitionId", tid);
  cJSON_AddStringToObject(o, "fromStateId", r->f.st[from].id);
  cJSON_AddStringToObject(o, "toStateId", r->f.st[to].id);
  cJSON_AddStringToObject(o, "viaActionId", a->action_id);
  cJSON_AddItemToObject(o, "target", target_json(a));
  add_args(o, a);
  cJSON_AddStringToObject(o, "sideEffectClass", pol_side_effect_name(a->cls.side_effect));
  cJSON *sigs = guarded ? cJSON_CreateArray() : signals_between(r, before, r->f.st[from].route, r->g, route);
  side_effect_signals(r, sigs, m);
  count_loop(r, a, to == from, cJSON_GetArraySize(sigs));
  cJSON_AddItemToObject(o, "observedSignals", sigs);
  cJSON *d = cJSON_AddObjectToObject(o, "decision");
  cJSON_AddStringToObject(d, "effect", pol_effect_name(a->dec.effect));
  cJSON_AddStringToObject(d, "reason", pol_reason_name(a->dec.reason));
  cJSON_AddStringToObject(d, "rule", a->cls.rule);
  cJSON_AddStringToObject(d, "text", a->dec.text ? a->dec.text : "");
  cJSON_AddBoolToObject(o, "selfLoop", to == from);
  if (!guarded && folded(r, to, route)) landed_route(r, o, route);
  cJSON_AddNumberToObject(o, "durationMs", (double)(cdp_now_ms() - m->t));
  journal_guarded(r, from, a, m, o);
  if (!guarded) journal_revealed(r, from, a, before);
  if (r->sh && to != from) shared_edge_out(r, o);
  jl_write(r, "transition", o);
}

static void shared_did(run *r, int si, int i);
static void shared_failed(run *r);

/* Execute action i of state si (the page shows si) and record where it led. */
/* What the page has counted so far, and now. */
static step_marks marks_now(run *r) {
  step_marks m = {.blocked = crawl_page_blocked(r->page, NULL), .dialogs = crawl_page_dialogs(r->page),
                  .popups = crawl_page_popups(r->page), .t = cdp_now_ms()};
  m.websockets = crawl_page_websockets(r->page, &m.ws_frames, &m.ws_unguarded, NULL);
  return m;
}

/* 1 when the page shows state si under another route than si's own. */
static int shown_elsewhere(const run *r, int si) {
  char *rk = r->g ? pg_route_key_rel(r->g->route_url, r->page_origin) : NULL;
  int d = folded(r, si, rk);
  free(rk);
  return d;
}

static void step_(run *r, int si, int i) {
  action *a = &r->f.st[si].acts[i];
  a->done = 1;
  r->deviations = 0;
  char why[256] = "";
  step_marks m = marks_now(r);
  crawl_code rc = perform(r, a, why, sizeof why);
  if (rc == CRAWL_ARG && r->cur == si && shown_elsewhere(r, si)) {
    /* the page shows si under another route (folded): what it lists need
     * not be si's (page 3's items, not page 1's); once more on si's own page */
    r->cur = -1;
    if (restore(r, si) == 0) {
      m = marks_now(r);
      rc = perform(r, a, why, sizeof why);
    } else if (!r->fatal && !r->cancelled && !r->signed_out) {
      unrestorable(r, si);
    }
  }
  crawl__timing_add(&r->tm, CRAWL_PH_ACT, cdp_now_ms() - m.t);
  if (rc == CRAWL_ARG) {
    journal_failure(r, &r->f.st[si], a, why);
    return;
  }
  if (rc) {
    note_error(r, rc);
    if (r->fatal) a->done = 0; /* try it again after recovering */
    return;
  }
  pg_graph *saved = r->g; /* the graph before the action, for signals */
  r->g = NULL;
  r->before = saved;
  char *route = NULL;
  int to = observe(r, &rc, &route);
  if (rc) {
    /* keep a graph around; the page is somewhere we do not know */
    if (!r->g) r->g = saved;
    else pg_graph_free(saved);
    r->cur = -1;
    free(route);
    note_error(r, rc);
    if (r->fatal || r->signed_out) r->f.st[si].acts[i].done = 0; /* its outcome is unknown: again */
    return;
  }
  /* a navigation the write guard failed shows the browser's error page:
   * the app stayed in si (the next step restores it) */
  int guarded = crawl_page_blocked(r->page, NULL) > m.blocked && r->g && r->g->route_url &&
                !strncmp(r->g->route_url, "chrome-error:", 13);
  if (guarded) to = si;
  if (to < 0) {
    to = add_state(r, si, a, r->f.st[si].seed, route);
    if (to < 0) {
      /* a budget refused the state: we are somewhere unregistered */
      pg_graph_free(saved);
      free(route);
      r->cur = -1;
      return;
    }
    r->cur = to;
  }
  if (r->f.st[to].mirrored && r->cur == to) journal_mirrored(r, to);
  a = &r->f.st[si].acts[i];
  fr_outcome_note(&r->f, a->pk, a->pkr, si, to);
  r->transitions++;
  int took = (int)(cdp_now_ms() - m.t);
  if (to == si) r->self_loops++, fr_note_ms(&r->f, a->pk, -1, took);
  else {
    fr_note_ms(&r->f, a->pk, fr_add_edge(&r->f, si, to, a), took);
    fr_relax(&r->f, si, to, a);
  }
  journal_transition(r, si, to, a, saved, route, guarded, &m);
  pg_graph_free(saved);
  free(route);
  report_progress(r, run_phase(r), r->cur >= 0 ? r->f.st[r->cur].route_id : NULL);
}

/* Shared: one of the run's maxTransitions reserved for the next action
 * (1), or none left (0: r->sh_spent, budget_stop reports it; or the
 * frontier stopped answering). */
static int shared_reserve(run *r) {
  long n = crawl__shared_transitions_add(r->sh, 1);
  if (n < 0) {
    shared_failed(r);
    return 0;
  }
  if (n <= r->b.max_transitions) return 1;
  crawl__shared_transitions_add(r->sh, -1);
  r->sh_spent = 1;
  return 0;
}

/* step_, then, on a shared frontier, the action is done for every worker
 * (after its journal line: a worker killed before that has it redone). A
 * shared run reserves the transition first and gives it back when the
 * action recorded none. */
static void step(run *r, int si, int i) {
  if (r->sh && !shared_reserve(r)) return;
  long before = r->transitions;
  step_(r, si, i);
  if (r->sh && r->transitions == before && crawl__shared_transitions_add(r->sh, -1) < 0) shared_failed(r);
  if (r->sh && r->f.st[si].acts[i].done) shared_did(r, si, i);
}

/* ---- the run: open ----------------------------------------------------------------------- */
/* Budgets with their defaults, the output folders, and the journal opened
 * for appending (a torn last line cut off), then, when resuming, read back:
 * states, edges, what was done, counters (*resumed: a run to continue was
 * there). */
static crawl_code run_open(run *r, const crawl_opts *o, crawl_summary *sum, int *resumed) {
  r->b = o->budget;
  if (r->b.max_states <= 0) r->b.max_states = 200;
  if (r->b.max_transitions <= 0) r->b.max_transitions = 2000;
  if (r->b.max_depth <= 0) r->b.max_depth = 12;
  r->f.max_depth = r->b.max_depth;
  if (r->b.max_runtime_ms <= 0) r->b.max_runtime_ms = 600000;
  snprintf(r->dir, sizeof r->dir, "%s", o->out_dir);
  char path[8400];
  snprintf(path, sizeof path, "%s/states", r->dir);
  if (mkdir_p(path) != 0) {
    snprintf(sum->error, sizeof sum->error, "cannot create %.300s: %s", path, strerror(errno));
    return CRAWL_IO;
  }
  if (o->screenshots) {
    snprintf(path, sizeof path, "%s/screenshots", r->dir);
    mkdir_p(path);
  }
  snprintf(path, sizeof path, "%s/accessibility", r->dir);
  mkdir_p(path);
  snprintf(path, sizeof path, "%s/" CRAWL__JOURNAL_FILE, r->dir);
  *resumed = 0;
  if (o->resume && access(path, F_OK) != 0) {
    snprintf(sum->error, sizeof sum->error, "nothing to resume: %.300s does not exist", path);
    return CRAWL_IO;
  }
  char err[480];
  r->jl = crawl__journal_open(r->dir, 1, err, sizeof err);
  if (!r->jl) {
    snprintf(sum->error, sizeof sum->error, "cannot write %s", err);
    return CRAWL_IO;
  }
  r->secrets = crawl__secrets_for(o->session, o->redact_pii); /* before the first line */
  crawl__journal_secrets(r->jl, r->secrets);
  crawl__secrets_add_all(r->secrets, o->secrets);  /* the caller's: --connect's credentials */
  crawl__secrets_add_url(r->secrets, o->frontier, 1);
  for (int i = 0; o->urls && o->urls[i]; i++) crawl__secrets_add_url(r->secrets, o->urls[i], 0);
  crawl__log_secrets(r->secrets);
  if (!o->resume) return CRAWL_OK;
  crawl__journal_stats st;
  if (crawl__journal_read(r->dir, resume_types, resume_record, r, &st, err, sizeof err)) {
    snprintf(sum->error, sizeof sum->error, "cannot resume: %s", err);
    return CRAWL_IO;
  }
  *resumed = st.records > 0 && r->run_id[0];
  return CRAWL_OK;
}

/* ---- the run: seeds ------------------------------------------------------------------------ */
/* A plan's payload: the plan itself, or a uiap.discovery.plan message's. */
static const cJSON *plan_payload(const cJSON *plan) {
  const cJSON *payload = cJSON_GetObjectItemCaseSensitive(plan, "payload");
  return plan && payload ? payload : plan;
}

static void seed_set(seed *sd, char *url, cJSON *json) {
  sd->url = url;
  sd->json = json;
  sd->resolved = 0;
  sd->settled = 0;
}

/* A documentation seed's page: a ref that is a URL or a path (from "/")
 * against the base URL; another ref (a document name, "guide.pdf") is
 * none (NULL). Caller frees. */
static char *doc_url(const char *base, const char *ref) {
  if (!ref || !ref[0]) return NULL;
  if (ref[0] == '/' && ref[1] != '/') return resolve_url(base, ref);
  if (!strncmp(ref, "http://", 7) || !strncmp(ref, "https://", 8)) return resolve_url(base, ref);
  return NULL;
}

static cJSON *url_seed_json(const char *url) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "kind", "url");
  cJSON_AddStringToObject(j, "url", url);
  return j;
}

/* The seeds, at most max: the URLs (NULL-terminated, may be NULL), then
 * the plan's seeds (a url or route seed resolved against base, a
 * documentation seed too when its ref is a URL or a path; menu and action
 * seeds, without a URL, are driven after the seed pages, workflow seeds
 * resolved by the package), else base itself. Reads
 * nothing but its arguments. The caller frees each seed's url and json
 * (seeds_free). Returns the count. */
static int seeds_collect(const char *const *urls, const cJSON *plan_seeds, const char *base, seed *seeds, int max) {
  int n = 0;
  for (int i = 0; urls && urls[i] && n < max; i++) seed_set(&seeds[n++], crawl__xstrdup(urls[i]), url_seed_json(urls[i]));
  const cJSON *sj;
  cJSON_ArrayForEach(sj, plan_seeds) {
    if (n >= max) break;
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sj, "kind"));
    char *url = NULL;
    if (kind && !strcmp(kind, "url")) url = resolve_url(base, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sj, "url")));
    else if (kind && !strcmp(kind, "route")) url = resolve_url(base, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sj, "routeId")));
    else if (kind && !strcmp(kind, "documentation")) url = doc_url(base, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sj, "ref")));
    seed_set(&seeds[n++], url, cJSON_Duplicate(sj, 1));
  }
  if (!n && base && max > 0) seed_set(&seeds[n++], crawl__xstrdup(base), url_seed_json(base));
  return n;
}

/* url (freed) with query's parameters added, before any fragment. */
static char *with_query(char *url, const char *query) {
  if (!url) return NULL;
  size_t at = strcspn(url, "#");
  char *out = crawl__xprintf("%.*s%s%s%s", (int)at, url, memchr(url, '?', at) ? "&" : "?", query, url + at);
  free(url);
  return out;
}

static void seeds_free(seed *seeds, int n) {
  for (int i = 0; i < n; i++) {
    free(seeds[i].url);
    cJSON_Delete(seeds[i].json);
  }
}

/* The page's origin (base's) and the origins in scope: it, then allow_origins. */
static void run_origins(run *r, const char *base) {
  url_origin(base, r->page_origin, sizeof r->page_origin);
  int na = 0;
  r->allowed[na++] = r->page_origin;
  for (int i = 0; r->o->allow_origins && r->o->allow_origins[i] && na < 64; i++) r->allowed[na++] = r->o->allow_origins[i];
  r->allowed[na] = NULL;
}

/* The journal's "seed" line for seed i, so (consumed), not resolved: why. */
static void seed_unresolved(run *r, cJSON *so, const char *why) {
  cJSON_AddBoolToObject(so, "resolved", 0);
  cJSON_AddStringToObject(so, "reason", why);
  jl_write(r, "seed", so);
}

/* Seed kinds (discovery-mapper 9.1) and the field each names its target by. */
static const struct { const char *kind, *field; } seed_kinds[] = {
  {"url", "url"}, {"route", "routeId"}, {"menu", "label"}, {"action", "actionId"},
  {"workflow", "workflowId"}, {"documentation", "ref"}};

/* Why seed sd cannot be used at all (into buf), or NULL: an unknown kind, a
 * missing target, a documentation ref that is no page of the run's origins. */
static const char *seed_problem(const run *r, const seed *sd, char *buf, size_t n) {
  const char *kind = seed_kind(sd);
  size_t k = 0;
  while (k < sizeof seed_kinds / sizeof *seed_kinds && (!kind || strcmp(seed_kinds[k].kind, kind))) k++;
  if (k == sizeof seed_kinds / sizeof *seed_kinds) {
    snprintf(buf, n, "seed kind %.100s is not one of the mapper's (url, route, menu, action, workflow, documentation)",
             kind ? kind : "(none)");
    return buf;
  }
  const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sd->json, seed_kinds[k].field));
  if (!v || !v[0]) {
    snprintf(buf, n, "a %s seed needs a non-empty %s", kind, seed_kinds[k].field);
    return buf;
  }
  if (strcmp(kind, "documentation")) return NULL;
  if (!sd->url) {
    snprintf(buf, n, "the ref %.300s names no page of the app (a URL or a path from \"/\"); the crawler reads "
             "documentation only as pages on the run's origins", v);
    return buf;
  }
  char o[512];
  url_origin(sd->url, o, sizeof o);
  for (int i = 0; r->allowed[i]; i++)
    if (!strcmp(o, r->allowed[i])) return NULL;
  snprintf(buf, n, "%.300s is outside the run's origins (add its origin with --allow-origin)", sd->url);
  return buf;
}

/* Planning: each seed that cannot be used gets its seed line and a
 * coverage_gap with the reason now, and is not loaded. */
static void plan_seeds(run *r, seed *seeds, int nseeds) {
  char why[900];
  for (int i = 0; i < nseeds; i++) {
    const char *reason = seed_problem(r, &seeds[i], why, sizeof why);
    if (!reason) continue;
    const char *kind = seed_kind(&seeds[i]);
    cJSON *so = cJSON_CreateObject();
    cJSON_AddNumberToObject(so, "index", i);
    cJSON_AddItemToObject(so, "seed", cJSON_Duplicate(seeds[i].json, 1));
    seed_unresolved(r, so, reason);
    jl_review(r, "coverage_gap", "medium", -1, NULL,
              "Give the seed a target the crawler can open: a URL or path on the app's origins, a route, a menu "
              "label, an action or workflow id.",
              "Seed %d (%s) could not be resolved: %s.", i, kind ? kind : "?", reason);
    free(seeds[i].url);
    seeds[i].url = NULL;
    seeds[i].settled = 1;
  }
}

/* The principals the run explores as (only those) and the authMode they
 * make: seeded when one signs in with a recipe, else session_reuse. */
static void env_principals(const crawl_opts *o, cJSON *e) {
  int seeded = 0;
  cJSON_DeleteItemFromObjectCaseSensitive(e, "principalProfiles");
  cJSON *pp = cJSON_AddArrayToObject(e, "principalProfiles");
  for (size_t k = 0; k < o->nprincipals; k++) {
    cJSON_AddItemToArray(pp, cJSON_Duplicate(o->principals[k].profile, 1));
    seeded |= o->principals[k].login != NULL;
  }
  cJSON_DeleteItemFromObjectCaseSensitive(e, "authMode");
  cJSON_AddStringToObject(e, "authMode", seeded ? "seeded" : "session_reuse");
}

/* With no principals the run still explores as someone (mapper 11.1): the
 * session it was handed (storage state, cookies, headers, a browser it
 * attached to), or nobody signed in. */
static void env_default_principal(const crawl_opts *o, cJSON *e) {
  int given = crawl_session_any(o->session) || o->session_reuse;
  cJSON *pp = cJSON_AddArrayToObject(e, "principalProfiles"), *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "id", given ? "session" : "anonymous");
  cJSON_AddStringToObject(p, "description", given ? "whoever the session handed to the crawler is signed in as"
                                                   : "nobody signed in: a fresh browser profile");
  cJSON_AddItemToArray(pp, p);
}

/* The UIAP profiles and extensions this run speaks (mapper 11.1); the app's
 * own annotations and bridges are read as the pages show them (their
 * evidence in the catalogs: annotation, app_registry). */
static void env_profiles(cJSON *e) {
  cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "metadata");
  if (!cJSON_IsObject(m)) {
    cJSON_DeleteItemFromObjectCaseSensitive(e, "metadata");
    m = cJSON_AddObjectToObject(e, "metadata");
  }
  cJSON_DeleteItemFromObjectCaseSensitive(m, "uiap");
  cJSON *u = cJSON_AddObjectToObject(m, "uiap");
  static const char *const profiles[] = {"web@0.1"};
  static const char *const extensions[] = {"uiap.discovery@0.1", "uiap.policy@0.1", "uiap.workflow@0.1"};
  cJSON_AddItemToObject(u, "profiles", cJSON_CreateStringArray(profiles, 1));
  cJSON_AddItemToObject(u, "extensions", cJSON_CreateStringArray(extensions, 3));
  static const char *const annotations[] = {"data-uiap-id", "data-uiap-scope", "data-uiap-meaning", "data-uiap-action",
                                            "data-uiap-risk", "data-uiap-sensitive", "data-uiap-route", "data-uiap-role"};
  cJSON_AddItemToObject(u, "annotationsRead", cJSON_CreateStringArray(annotations, 8));
}

/* The run record's environment (caller owns): the plan's, with defaults for
 * its id, base URL and locale, and this run's viewport, budgets and safety. */
static cJSON *run_environment(const run *r, const cJSON *env, const char *base) {
  const crawl_opts *o = r->o;
  cJSON *e = env ? cJSON_Duplicate(env, 1) : cJSON_CreateObject();
  if (!cJSON_GetObjectItemCaseSensitive(e, "environmentId")) cJSON_AddStringToObject(e, "environmentId", "default");
  if (!cJSON_GetObjectItemCaseSensitive(e, "baseUrl")) cJSON_AddStringToObject(e, "baseUrl", base ? base : "");
  if (o->locale && !cJSON_GetObjectItemCaseSensitive(e, "locale")) cJSON_AddStringToObject(e, "locale", o->locale);
  if (crawl_session_any(o->session) || o->session_reuse) { /* signed in with what it was given */
    cJSON_DeleteItemFromObjectCaseSensitive(e, "authMode");
    cJSON_AddStringToObject(e, "authMode", "session_reuse");
  }
  if (o->nprincipals) env_principals(o, e);
  else if (!cJSON_GetObjectItemCaseSensitive(e, "principalProfiles")) env_default_principal(o, e);
  env_profiles(e);
  cJSON_DeleteItemFromObjectCaseSensitive(e, "viewport");
  cJSON *vp = cJSON_AddObjectToObject(e, "viewport");
  cJSON_AddNumberToObject(vp, "width", o->width ? o->width : 1280);
  cJSON_AddNumberToObject(vp, "height", o->height ? o->height : 800);
  cJSON_DeleteItemFromObjectCaseSensitive(e, "budgets");
  cJSON *bj = cJSON_AddObjectToObject(e, "budgets");
  cJSON_AddNumberToObject(bj, "maxStates", (double)r->b.max_states);
  cJSON_AddNumberToObject(bj, "maxTransitions", (double)r->b.max_transitions);
  cJSON_AddNumberToObject(bj, "maxDepth", (double)r->b.max_depth);
  cJSON_AddNumberToObject(bj, "maxRuntimeMs", (double)r->b.max_runtime_ms);
  if (r->b.max_per_route > 0) cJSON_AddNumberToObject(bj, "maxPerRoute", (double)r->b.max_per_route);
  cJSON_DeleteItemFromObjectCaseSensitive(e, "safety");
  cJSON *sf = cJSON_AddObjectToObject(e, "safety");
  cJSON_AddStringToObject(sf, "defaultMode", pol_mode_name(o->policy.mode));
  cJSON_AddBoolToObject(sf, "allowExternalEffects", o->policy.allow_external_effects);
  cJSON_AddBoolToObject(sf, "allowDestructiveActions", o->policy.allow_destructive_actions);
  cJSON_AddBoolToObject(sf, "allowAuthFlows", o->policy.allow_auth_flows);
  cJSON_AddBoolToObject(sf, "allowPaymentFlows", o->policy.allow_payment_flows);
  return e;
}

/* The journal's "run" line (a new run id), or on a resumed run a note. */
static void journal_run(run *r, const cJSON *env, const char *base, const seed *seeds, int nseeds, int resumed) {
  if (resumed) {
    jl_note(r, "resumed after an interruption: %d states, %ld transitions already recorded", r->f.nst, r->transitions);
    return;
  }
  if (r->o->run_id) snprintf(r->run_id, sizeof r->run_id, "%s", r->o->run_id);
  else snprintf(r->run_id, sizeof r->run_id, "run_%lld_%d", (long long)time(NULL), (int)getpid());
  char ts[64];
  cJSON *rl = cJSON_CreateObject();
  cJSON_AddStringToObject(rl, "runId", r->run_id);
  cJSON_AddStringToObject(rl, "startedAt", crawl__time_iso(ts, sizeof ts));
  cJSON_AddNumberToObject(rl, "journalVersion", 1);
  cJSON_AddStringToObject(rl, "tool", "uiap-crawl");
  cJSON *renv = run_environment(r, env, base);
  cJSON_AddItemToObject(rl, "environment", renv);
  if (r->allowed[1]) { /* --allow-origin: in the run's scope (merge checks states against it) */
    cJSON *md = cJSON_GetObjectItemCaseSensitive(renv, "metadata");
    if (!md) md = cJSON_AddObjectToObject(renv, "metadata");
    cJSON *ao = cJSON_IsObject(md) ? cJSON_AddArrayToObject(md, "allowedOrigins") : NULL;
    for (int i = 1; ao && r->allowed[i]; i++) cJSON_AddItemToArray(ao, cJSON_CreateString(r->allowed[i]));
  }
  cJSON *sa = cJSON_AddArrayToObject(rl, "seeds");
  for (int i = 0; i < nseeds; i++) cJSON_AddItemToArray(sa, cJSON_Duplicate(seeds[i].json, 1));
  jl_write(r, "run", rl);
}

/* The plan lets actions open WebSockets: environment.metadata.allowWebSockets
 * (the spec's safety policy has no word for it; docs/safety.md). */
static int plan_allows_websockets(const cJSON *plan) {
  const cJSON *env = cJSON_GetObjectItemCaseSensitive(plan_payload(plan), "environment");
  return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "metadata"),
                                                       "allowWebSockets"));
}

/* The tab, behind the write guard unless the run may write. */
static void run_open_tab(run *r) {
  const crawl_opts *o = r->o;
  r->allow_ws = plan_allows_websockets(o->plan);
  r->po = (crawl_page_opts){.width = o->width, .height = o->height, .locale = o->locale, .ax_record = 1,
                            .settle_quiet_ms = o->settle_quiet_ms ? o->settle_quiet_ms : 200,
                            .settle_early = !o->settle_quiet_ms, /* --settle-ms: the window asked for */
                            .settle_max_ms = o->settle_max_ms ? o->settle_max_ms : 3000,
                            .nav_timeout_ms = 15000, .call_timeout_ms = 10000,
                            .block_writes = crawl_guard_for_mode(&o->policy, 0),
                            .allow_websockets = r->allow_ws, .allow_beacons = o->allow_beacons,
                            .allowed_origins = r->allowed,
                            .session = r->pri >= 0 ? &o->principals[r->pri].session : o->session,
                            .browser_context = r->pri >= 0 ? r->contexts[r->pri] : NULL,
                            .session_kept = r->pri >= 0 && r->kept[r->pri]};
  crawl_code rc = crawl_page_open(r->c, &r->po, &r->page);
  if (rc && cancel_seen(r, rc)) { /* cancelled while the tab opened: no tab, nothing failed */
    crawl_page_close(r->page);
    r->page = NULL;
    return;
  }
  if (rc) {
    snprintf(r->err, sizeof r->err, "%s", crawl_page_errmsg(r->page));
    jl_note(r, "could not open a tab: %s", r->err);
    r->fatal = 1;
    r->guard_stop = rc == CRAWL_GUARD;
    r->stopped_by = r->guard_stop ? "guard" : "error";
  } else {
    crawl__page_use_secrets(r->page, r->secrets);
    if (r->pri >= 0) r->kept[r->pri] = 1; /* a principal's own context keeps them */
  }
}

/* Load URL seed i and register its state; the "seed" line says how it went. */
static void seed_load(run *r, seed *sd, int i) {
  cJSON *so = cJSON_CreateObject();
  cJSON_AddNumberToObject(so, "index", i);
  cJSON_AddItemToObject(so, "seed", cJSON_Duplicate(sd->json, 1));
  if (!sd->url) {
    seed_unresolved(r, so, is_control_seed(sd) ? "a menu or action seed is resolved on the seed pages once they are loaded"
                           : "a workflow seed is resolved against the workflow candidates synthesized from the run");
    return;
  }
  crawl_code rc = crawl_page_load(r->page, sd->url);
  if (rc) {
    note_error(r, rc);
    seed_unresolved(r, so, crawl_page_errmsg(r->page));
    jl_review(r, "coverage_gap", "high", -1, NULL, "Check that the seed URL is reachable from the crawler.",
              "Seed %d (%s) could not be loaded: %s", i, sd->url, crawl_page_errmsg(r->page));
    if (!r->seed_err[0]) snprintf(r->seed_err, sizeof r->seed_err, "%s", crawl_page_errmsg(r->page));
    return;
  }
  char *route = NULL;
  int si = observe(r, &rc, &route);
  if (rc) {
    note_error(r, rc);
    free(route);
    seed_unresolved(r, so, crawl_page_errmsg(r->page));
    return;
  }
  if (si < 0) {
    si = add_state(r, -1, NULL, i, route);
    r->cur = si;
  } else if (folded(r, si, route)) {
    cJSON_AddStringToObject(so, "stateId", r->f.st[si].id);
    landed_route(r, so, route);
  }
  if (!crawl_page_settled(r->page))
    jl_review(r, "custom", "medium", si, NULL,
              "Check the page for redirect or refresh loops and for content that changes without end.",
              "Seed %d (%s) did not settle within %d ms: it kept changing or navigating, or its script did not stop; "
              "it was captured as it was.",
              i, sd->url, r->po.settle_max_ms);
  sd->resolved = 1;
  cJSON_AddBoolToObject(so, "resolved", 1);
  cJSON_AddStringToObject(so, "url", sd->url);
  if (si >= 0) cJSON_AddStringToObject(so, "stateId", r->f.st[si].id); /* new or met before */
  jl_write(r, "seed", so);
  free(route);
}

/* A seed that hangs the tab costs a new tab, not the other seeds; a seed
 * whose state a resumed run recorded is not loaded again. */
static void drive_url_seeds(run *r, seed *seeds, int nseeds) {
  for (int i = 0; i < nseeds && !budget_stop(r) && !(r->fatal && recover(r) != 0); i++) {
    int have = 0;
    for (int k = 0; k < r->f.nst; k++)
      have |= r->f.st[k].seed == i && r->f.st[k].parent < 0 && r->f.st[k].principal == (r->pri < 0 ? 0 : r->pri);
    if (have || seeds[i].settled) continue;
    seed_load(r, &seeds[i], i);
    /* sent to sign-in: a recipe signs in again and the seed is loaded once more */
    if (r->signed_out && r->o->principals[r->pri].login && sign_in(r, 1) == 0) seed_load(r, &seeds[i], i);
  }
}

/* The element of g a menu seed (label: a link, menu item or tab of that
 * name) or an action seed (aid: that data-uiap-action) names, or NULL. */
static const pg_element *seed_element(const pg_graph *g, const char *label, const char *aid) {
  for (size_t k = 0; g && k < g->nelements; k++) {
    const pg_element *e = &g->elements[k];
    if (label && e->name && !strcmp(e->name, label) &&
        (!strcmp(e->role, "link") || !strncmp(e->role, "menuitem", 8) || !strcmp(e->role, "tab")))
      return e;
    if (aid && e->app_action && !strcmp(e->app_action, aid)) return e;
  }
  return NULL;
}

/* The first action of s on element el (same role, name and stable id), or -1. */
static int action_on(const state *s, const pg_element *el) {
  for (int k = 0; k < s->nacts; k++) {
    const action *ac = &s->acts[k];
    if (!strcmp(ac->role, el->role) && !strcmp(ac->name ? ac->name : "", el->name ? el->name : "") &&
        (!el->stable_id || (ac->stable_id && !strcmp(ac->stable_id, el->stable_id))))
      return k;
  }
  return -1;
}

/* The action a menu or action seed names, in the first seed state that has
 * it (each restored and prepared in turn): its index, its state in *si; -1
 * when none has it. */
static int seed_control(run *r, const cJSON *json, int *found) {
  const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(json, "kind"));
  const char *label = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(json, "label"));
  const char *aid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(json, "actionId"));
  int is_menu = kind && !strcmp(kind, "menu") && label, is_action = kind && !strcmp(kind, "action") && aid;
  for (int si = 0; si < r->f.nst && (is_menu || is_action); si++) {
    if (r->f.st[si].parent >= 0 || r->f.st[si].dead) continue;
    if (r->cur != si && restore(r, si) != 0) {
      if (!r->fatal && !r->cancelled && !r->signed_out) unrestorable(r, si);
      continue;
    }
    if (!r->f.st[si].acts) prepare_state(r, si);
    const pg_element *el = seed_element(r->g, is_menu ? label : NULL, is_action ? aid : NULL);
    int k = el ? action_on(&r->f.st[si], el) : -1;
    if (k >= 0) {
      *found = si;
      return k;
    }
  }
  return -1;
}

/* Menu and action seeds: the control of a seed state they name, driven
 * first when the policy allows it. */
static void drive_control_seeds(run *r, seed *seeds, int nseeds) {
  for (int i = 0; i < nseeds && !r->cancelled && !r->fatal; i++) {
    if (!is_control_seed(&seeds[i])) continue; /* workflow seeds: the package's */
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(seeds[i].json, "kind"));
    int si = -1, k = seed_control(r, seeds[i].json, &si);
    if (k < 0) {
      jl_review(r, "coverage_gap", "high", -1, NULL, "Check the seed against the app, or add the annotation it names.",
                "Seed %d (%s) could not be resolved: no matching control on the seed pages.", i, kind ? kind : "?");
      jl_note(r, "seed %d (%s) unresolved", i, kind ? kind : "?");
      continue;
    }
    action *ac = &r->f.st[si].acts[k];
    seeds[i].resolved = 1;
    if (ac->dec.effect != POL_EFFECT_ALLOW) {
      jl_note(r, "seed %d (%s) resolved to %s \"%s\" in %s, not driven: %s", i, kind, ac->role, ac->name ? ac->name : "",
              r->f.st[si].id, ac->dec.text ? ac->dec.text : "");
      continue;
    }
    jl_note(r, "seed %d (%s) resolved to %s \"%s\" in %s and driven first", i, kind, ac->role, ac->name ? ac->name : "",
            r->f.st[si].id);
    if (!ac->done && !budget_stop(r)) step(r, si, k);
  }
}

static int control_seeds(const seed *seeds, int nseeds) {
  int n = 0;
  for (int i = 0; i < nseeds; i++) n += is_control_seed(&seeds[i]);
  return n;
}

/* ---- the run: explore ------------------------------------------------------------------------ */
/* Where to work next: unpredictable local UI a few steps away (finish
 * what is near before following links away: coming back costs a reload),
 * else unpredictable actions wherever they are: in the current state, else
 * the nearest state over known edges and predictable controls (path, *len
 * hops), else the oldest (*len -1: reload and replay); then the rest the
 * same way. A walk that went astray three times in a row falls back to
 * reloading. Returns the state (-1: the frontier is empty) and its tier in
 * *tier. */
static int explore_target(run *r, fr_hop *path, int *len, int *tier) {
  int target = -1;
  *tier = FR_TIER_LOCAL;
  if (r->deviations < 3) target = fr_plan_path(&r->f, r->cur, FR_TIER_LOCAL, FR_LIKELY_HOPS, path, len);
  for (int t = FR_TIER_NEW; t <= FR_TIER_ANY && target < 0; t++) {
    *tier = t;
    if (r->deviations < 3) target = fr_plan_path(&r->f, r->cur, t, FR_MAX_HOPS, path, len);
    if (target >= 0 && *len > r->f.st[target].depth + 2) *len = -1; /* a reload is cheaper */
    for (int k = 0; k < r->f.nst && target < 0; k++)
      if (fr_pending(&r->f, k, t)) { target = k; *len = -1; }
  }
  return target;
}

/* Walk the len hops of path; 1 when the page arrived at target. */
static int walk_path(run *r, const fr_hop *path, int len, int target) {
  for (int h = 0; h < len && !r->fatal && !r->cancelled && !r->signed_out && !budget_stop(r); h++) {
    if (path[h].edge >= 0) walk_edge(r, &r->f.ed[path[h].edge]);
    else step(r, path[h].from, path[h].act);
    if (r->cur != path[h].to) { r->deviations++; break; }
  }
  return r->cur == target;
}

/* A state whose restore failed this often is given up (dead): the first
 * failure may be a slow load on a busy machine, not a path that is gone. */
#define RESTORE_TRIES 2

/* Greedy online exploration: go on from where the page is while the
 * current state has untried actions; otherwise the nearest state (over
 * known edges) that has some; otherwise the oldest, by reload and replay. */
static int shared_more(run *r);
static int shared_hold(run *r, int si);
static void shared_settle(run *r, int si);
static void shared_release_all(run *r);
static void shared_refresh(run *r);

static void explore(run *r) {
  while (!budget_stop(r) && !r->sh_lost) {
    if (r->fatal && recover(r) != 0) break;
    if (r->signed_out && sign_in_again(r) != 0) break;
    fr_hop path[FR_MAX_HOPS];
    int len = 0, tier;
    if (r->transitions - r->depths_at >= 32) { /* what is one likely click from a seed is not deep */
      fr_depths(&r->f);
      r->depths_at = r->transitions;
    }
    fr_learn(&r->f);
    if (r->sh) shared_refresh(r);
    int target = explore_target(r, path, &len, &tier);
    if (target < 0 && (!r->sh || shared_more(r) < 0)) break; /* frontier empty (shared: drained) */
    if (target < 0) continue;                                  /* leased one, or waited */
    if (r->sh && !shared_hold(r, target)) continue;            /* another worker's: plan again */
    if (len > 0) {
      long long t0 = cdp_now_ms();
      r->in_restore = 1;
      int walked = walk_path(r, path, len, target);
      r->in_restore = 0;
      crawl__timing_add(&r->tm, CRAWL_PH_RESTORE, cdp_now_ms() - t0);
      if (!walked) continue; /* plan again from where we are */
    } else if (r->cur != target && restore(r, target) != 0) {
      if (r->cancelled) break;
      if (r->fatal || r->signed_out) continue; /* recover or sign in at the top */
      if (++r->f.st[target].restore_fails < RESTORE_TRIES) continue; /* a slow load, a busy machine: again */
      r->f.st[target].dead = 1;
      unrestorable(r, target);
      if (r->sh) shared_settle(r, target);
      continue;
    }
    if (r->sh && r->f.st[target].mirrored) journal_mirrored(r, target);
    if (!r->f.st[target].acts) prepare_state(r, target);
    int i = fr_next_action(&r->f, target, tier);
    if (i < 0) i = fr_next_action(&r->f, target, FR_TIER_ANY);
    if (i >= 0) step(r, target, i);
    if (r->sh) shared_settle(r, target);
  }
  if (r->sh) shared_release_all(r);
}


/* ---- the run: a frontier shared with other workers (docs/scale.md) ---------------------------- */
/* How long a state another worker holds is left out of planning: it holds
 * one state at a time and moves on after a few actions, giving it back. */
#define FOREIGN_RETRY_MS 1000

/* The shared frontier failed (Redis gone after its one reconnect): stop. */
static void shared_failed(run *r) {
  if (r->sh_lost) return;
  r->sh_lost = 1;
  snprintf(r->err, sizeof r->err, "the shared frontier stopped answering: %s", crawl__shared_error(r->sh));
  jl_note(r, "stopped: %s", r->err);
  if (!r->stopped_by) r->stopped_by = "error";
}

/* State id of the shared frontier in the table, its ancestors first (from
 * their records). -1 when the frontier does not know it. */
static int shared_mirror(run *r, const char *id, int hops) {
  int k = state_by_id(r, id);
  if (k >= 0 || hops > 256) return k;
  char *rec = crawl__shared_record(r->sh, id);
  cJSON *j = rec ? cJSON_Parse(rec) : NULL;
  free(rec);
  if (!j) return -1;
  const char *url = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "url"));
  if (!scope_has(r, url)) { /* another worker's state never widens this run's scope */
    crawl_log(CRAWL_LOG_WARN, "frontier", "dropped state %.80s of the shared frontier: its URL %.200s is outside "
              "the run's scope", id, url ? url : "(none)");
    cJSON_Delete(j);
    return -1;
  }
  const char *pid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "parentStateId"));
  if (pid) shared_mirror(r, pid, hops + 1);
  resume_state(r, j, id);
  cJSON_Delete(j);
  r->f.st[r->f.nst - 1].mirrored = 1;
  r->f.st[r->f.nst - 1].held_back = r->f.st[r->f.nst - 1].depth >= r->b.max_depth;
  return r->f.nst - 1;
}

/* The fold key of a state with content fingerprint cfp on route rk: its
 * content and the route without its fragment, and whether it had one
 * (other: the key of the counterpart, with a fragment where rk has none
 * and the reverse). observe() folds the two in one table; the shared
 * frontier's fold keys do so across workers. */
static void fold_key(char *buf, size_t n, const char *cfp, const char *rk, int other) {
  size_t base = strcspn(rk ? rk : "", "#");
  int frag = rk && rk[base] != 0;
  snprintf(buf, n, "%s|%.*s|%d", cfp, (int)(base < 900 ? base : 900), rk ? rk : "", other ? !frag : frag);
}

/* The current capture is a state another worker registered (under its
 * fingerprint, or the same page with or without a route fragment: folded
 * as observe() does): its index in the table (mirrored, and journaled
 * here: the page shows it); -1 when it is new to the run. */
static int shared_known(run *r, const char *rk) {
  char *id = crawl__shared_known(r->sh, r->cur_fp);
  if (!id && !crawl__shared_error(r->sh)[0]) {
    char key[1100];
    fold_key(key, sizeof key, r->cur_cfp, rk, 1);
    id = crawl__shared_fold_find(r->sh, key);
  }
  if (!id) {
    if (crawl__shared_error(r->sh)[0]) shared_failed(r);
    return -1;
  }
  int k = shared_mirror(r, id, 0);
  free(id);
  if (k >= 0) {
    memcpy(r->cur_fp, r->f.st[k].fp, sizeof r->cur_fp);
    journal_mirrored(r, k);
  }
  return k;
}

/* State idx is new to this worker: offer it to the run (queued for
 * expansion unless at the depth budget). */
static void shared_add(run *r, int idx, const char *record) {
  char *winner = NULL;
  const state *s = &r->f.st[idx];
  if (crawl__shared_register(r->sh, s->fp, s->id, record, s->depth < r->b.max_depth, &winner) < 0) shared_failed(r);
  free(winner); /* the same fingerprint gives the same id */
  r->f.st[idx].held_back = s->depth >= r->b.max_depth;
  char key[1100];
  fold_key(key, sizeof key, s->cfp, s->route, 0);
  if (crawl__shared_fold_note(r->sh, key, s->id) < 0) shared_failed(r);
}

/* Transition o (a journal record) for the other workers' paths: what it
 * needs to be walked and timed, scrubbed as the state records are. */
static void shared_edge_out(run *r, const cJSON *o) {
  static const char *const keep[] = {"fromStateId", "toStateId", "viaActionId", "target", "args", "durationMs"};
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, "by", crawl__shared_owner(r->sh));
  for (size_t k = 0; k < sizeof keep / sizeof *keep; k++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, keep[k]);
    if (v) cJSON_AddItemToObject(e, keep[k], cJSON_Duplicate(v, 1));
  }
  crawl__secrets_scrub_json(r->secrets, e);
  char *text = cJSON_PrintUnformatted(e);
  if (text && crawl__shared_edge_push(r->sh, text) < 0) shared_failed(r);
  free(text);
  cJSON_Delete(e);
}

/* A state of another worker's transition in the table: one new to this
 * worker is the other's to expand (it is there, and goes on from it). Until
 * this worker leases it, it is learned: only its predictable work is
 * planned here (FR_TIER_ANY: the links every state has, which land a
 * worker on a page the other found). Planning all of it after a while (1 s,
 * 5 s) made R=20 at 40 s find far fewer states (199-217 of 260 against
 * 260): both workers crowded into what one of them had just found. */
static int edge_end(run *r, const char *id) {
  int known = state_by_id(r, id);
  if (known >= 0) return known;
  int k = shared_mirror(r, id, 0);
  if (k >= 0) r->f.st[k].learned = 1;
  return k;
}

/* The other workers' transitions since the last call, into the table: this
 * worker's paths use their edges (and what they did is done here), so it
 * walks the run's graph, not the half it took itself. */
static void shared_edges_in(run *r) {
  char **recs = NULL;
  size_t n = 0;
  if (crawl__shared_edges(r->sh, r->sh_edges, &recs, &n) < 0) {
    shared_failed(r);
    return;
  }
  const char *me = crawl__shared_owner(r->sh);
  for (size_t k = 0; k < n; k++) {
    cJSON *j = cJSON_Parse(recs[k]);
    const char *by = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "by"));
    if (j && by && strcmp(by, me)) {
      int from = edge_end(r, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "fromStateId")));
      int to = edge_end(r, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "toStateId")));
      if (from >= 0 && to >= 0 && from != to) known_transition(r, from, to, j);
    }
    cJSON_Delete(j);
  }
  r->sh_edges += (long)n;
  strv_free(recs, n);
}

/* Before each plan: states another worker held are planned again once
 * FOREIGN_RETRY_MS have passed (shared_hold); states held back at the depth
 * budget that this worker now knows a shorter way to (fr_relax, fr_depths)
 * go to the queue, for whoever is free: maxDepth holds back what is deep,
 * not what one worker found the long way. */
static void shared_refresh(run *r) {
  long long now = cdp_now_ms();
  shared_edges_in(r);
  for (int k = 0; k < r->f.nst && !r->sh_lost; k++) {
    state *s = &r->f.st[k];
    if (s->foreign && s->foreign_until && now >= s->foreign_until) s->foreign = 0, s->foreign_until = 0;
    if (!s->held_back || s->depth >= r->b.max_depth) continue;
    s->held_back = 0;
    s->foreign = 0;
    if (crawl__shared_unhold(r->sh, s->id) < 0) shared_failed(r);
  }
}

/* What any worker already did in state si, as done in the table. */
static void shared_pull_done(run *r, int si) {
  char **keys = NULL;
  size_t n = 0;
  if (crawl__shared_acts(r->sh, r->f.st[si].id, &keys, &n) != 0) {
    shared_failed(r);
    return;
  }
  mark_done(&r->f.st[si], keys, n);
  strv_free(keys, n);
}

/* Action i of state si was done here: so on the shared frontier (step()). */
static void shared_did(run *r, int si, int i) {
  char key[1200];
  action_key(key, sizeof key, NULL, NULL, NULL, &r->f.st[si].acts[i]);
  if (crawl__shared_act_done(r->sh, r->f.st[si].id, key) < 0) shared_failed(r);
}

/* Give up the lease on si: finished when nothing is left in it (or it is
 * dead), else back to the front of the queue for whoever is free. */
static void shared_let_go(run *r, int si) {
  state *s = &r->f.st[si];
  if (!s->held) return;
  s->held = 0;
  int rc = fr_untried(&r->f, si, FR_TIER_ANY) ? crawl__shared_release(r->sh, s->id) : crawl__shared_finish(r->sh, s->id);
  if (rc < 0) shared_failed(r);
}

/* The planner picked si: work in it only under our lease, taken from the
 * queue when nobody holds it (then what others did there is pulled in).
 * A worker holds one lease at a time: the states it leaves go back to the
 * queue (front) unless finished, so an idle worker never waits on work a
 * busy one merely holds. One that can not be taken is another worker's
 * (foreign): one it holds is planned again after FOREIGN_RETRY_MS (it is
 * likely back in the queue, near this worker's page), a finished one not
 * again unless leased. */
static int shared_hold(run *r, int si) {
  state *s = &r->f.st[si];
  if (!s->held) {
    int took = crawl__shared_take(r->sh, s->id);
    if (took < 0) shared_failed(r);
    if (took != 1) {
      s->foreign = 1;
      s->foreign_until = took == 0 ? cdp_now_ms() + FOREIGN_RETRY_MS : 0;
      return 0;
    }
    s->held = 1;
    s->learned = 0;
    shared_pull_done(r, si);
  }
  for (int k = 0; k < r->f.nst; k++) {
    state *h = &r->f.st[k];
    if (!h->held) continue;
    if (k != si) { /* left for work elsewhere: finished, or back to the queue for whoever is free */
      shared_let_go(r, k);
      continue;
    }
    int mine = crawl__shared_renew(r->sh, h->id);
    if (mine < 0) shared_failed(r);
    if (mine == 0) h->held = 0, h->foreign = 1, h->foreign_until = cdp_now_ms() + FOREIGN_RETRY_MS;
  }
  return s->held;
}

/* After working in si: finished when nothing is left in it. */
static void shared_settle(run *r, int si) {
  if (r->f.st[si].held && !fr_untried(&r->f, si, FR_TIER_ANY)) shared_let_go(r, si);
}

static void shared_release_all(run *r) {
  for (int k = 0; k < r->f.nst && !r->sh_lost; k++) shared_let_go(r, k);
}

/* Wait ms, in slices, unless cancelled. */
static void shared_wait(run *r, int ms) {
  for (int t = 0; t < ms && !(r->o->cancel && *r->o->cancel); t += 50) usleep(50000);
}

/* The states this worker knows that it could take next, nearest to the
 * page first (into ids, at most max; borrowed): not its own, not dead. */
static int shared_prefer(run *r, const char **ids, int max) {
  int *near = crawl__xrealloc(NULL, (size_t)(r->f.nst ? r->f.nst : 1) * sizeof *near);
  int n = fr_nearest(&r->f, r->cur, near, r->f.nst), k = 0;
  for (int i = 0; i < n && k < max; i++) {
    const state *s = &r->f.st[near[i]];
    if (!s->held && !s->dead) ids[k++] = s->id;
  }
  free(near);
  return k;
}

/* Nothing to do here: lease the queued state nearest to the page, else the
 * oldest (1), wait while others hold leases (0: their states may add
 * more), or -1: drained, or failed. */
static int shared_more(run *r) {
  char *id = NULL;
  const char *prefer[CRAWL__LEASE_PREFER_MAX];
  int np = shared_prefer(r, prefer, CRAWL__LEASE_PREFER_MAX);
  int back = 0, what = crawl__shared_lease(r->sh, prefer, np, &id, &back);
  if (back) jl_note(r, "took back %d expired lease%s of another worker", back, back == 1 ? "" : "s");
  if (what < 0) shared_failed(r);
  if (what == CRAWL__WAIT) shared_wait(r, 200);
  if (what != CRAWL__LEASED) return what == CRAWL__WAIT ? 0 : -1;
  int si = shared_mirror(r, id, 0);
  if (si < 0) {
    jl_note(r, "state %s has no record on the shared frontier; skipped", id);
    crawl__shared_finish(r->sh, id);
  } else {
    state *s = &r->f.st[si];
    s->held = 1;
    s->foreign = 0;
    s->foreign_until = 0;
    s->learned = 0;
    /* queued means within the depth budget: another worker knows a shorter
     * way than this one's table (shared_refresh) */
    if (s->depth >= r->b.max_depth) s->depth = r->b.max_depth - 1;
    s->held_back = 0;
    shared_pull_done(r, si);
    shared_settle(r, si); /* nothing this worker can do there (dead): finished at once */
  }
  free(id);
  return 1;
}


/* ---- the run: principals (docs/principals.md) ---------------------------------------------- */
/* The principal signs in with its recipe on the current tab (again: bounded
 * per principal). 0 when signed in. */
static int sign_in(run *r, int again) {
  const crawl_principal *pr = &r->o->principals[r->pri];
  char why[512];
  r->signed_out = 0;
  r->cur = -1;
  pg_graph_free(r->g);
  r->g = NULL;
  if (again && r->relogins >= RELOGINS_MAX) {
    jl_note(r, "signed out as %s again; %d sign-ins already: stopped exploring as it", pr->id, RELOGINS_MAX);
    jl_review(r, "coverage_gap", "high", -1, NULL, "Check why the app ends this principal's sessions so often.",
              "The session of principal %s kept ending; exploring as it stopped after %d new sign-ins.", pr->id,
              RELOGINS_MAX);
    return -1;
  }
  r->relogins += again;
  crawl_code rc = crawl__login_run(r->page, pr->login, &r->o->policy, (const char *const *)r->allowed, r->secrets, why,
                                   sizeof why);
  if (rc) {
    note_error(r, rc);
    jl_note(r, "signing in as %s failed: %s", pr->id, why);
    jl_review(r, "coverage_gap", "high", -1, NULL, "Check the principal's login recipe and its environment variables.",
              "Signing in as %s with its recipe failed: %s", pr->id, why);
    return -1;
  }
  if (again) jl_note(r, "signed out as %s; signed in again with its recipe (%d of %d)", pr->id, r->relogins, RELOGINS_MAX);
  else jl_note(r, "signed in as %s with its recipe", pr->id);
  return 0;
}

/* Signed out while exploring: sign in again, or stop this principal. */
static int sign_in_again(run *r) {
  const crawl_principal *pr = &r->o->principals[r->pri];
  if (pr->login) return sign_in(r, 1);
  r->signed_out = 0;
  jl_note(r, "signed out as %s, which has no login recipe: stopped exploring as it", pr->id);
  jl_review(r, "coverage_gap", "high", -1, NULL,
            "Give the principal a login recipe (environment.metadata.principals.<id>.login) or a fresh session.",
            "The session of principal %s ended during the crawl; it has no login recipe, so exploring as it stopped.",
            pr->id);
  return -1;
}

/* A browser context of its own (its own cookie jar and storage), or NULL. */
static char *new_context(run *r) {
  cJSON *res = NULL;
  if (cdp_call(r->c, NULL, "Target.createBrowserContext", cJSON_CreateObject(), &res, 10000) != CDP_OK) return NULL;
  const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "browserContextId"));
  char *out = id ? crawl__xstrdup(id) : NULL;
  cJSON_Delete(res);
  return out;
}

static void close_tab(run *r) {
  if (r->page) {
    r->dialogs += crawl_page_dialogs(r->page);
    r->popups += crawl_page_popups(r->page);
  }
  crawl_page_close(r->page);
  r->page = NULL;
  pg_graph_free(r->g);
  r->g = NULL;
  r->cur = -1;
}

/* Explore as principal k: a fresh context, its session or its recipe, the
 * seeds, exploring; the states of the principals before stay as they are. */
static void explore_as(run *r, int k, seed *seeds, int nseeds) {
  const crawl_principal *pr = &r->o->principals[k];
  for (int i = 0; i < r->f.nst; i++) r->f.st[i].dead = 1;
  r->pri = k;
  r->relogins = r->signed_out = 0;
  r->cur = -1;
  if (!(r->contexts[k] = new_context(r))) {
    jl_note(r, "no browser context for principal %s: %s", pr->id, cdp_client_errmsg(r->c));
    return;
  }
  crawl__session_secrets(&pr->session, r->secrets);
  crawl__login_secrets(pr->login, r->secrets);
  jl_note(r, "exploring as principal %s (%s)", pr->id, pr->login ? "login recipe" : "session");
  run_open_tab(r);
  if (r->fatal || (pr->login && sign_in(r, 0))) {
    close_tab(r);
    r->fatal = 0;
    return;
  }
  drive_url_seeds(r, seeds, nseeds);
  drive_control_seeds(r, seeds, nseeds);
  jl_status(r, "exploring");
  explore(r);
  close_tab(r);
}

/* ---- access probing ---- */
typedef struct probe_route { char key[512]; const char *url; unsigned reached, offered; } probe_route;

/* Route url (its key) in v: reached (1) or offered (0) to principal pri.
 * Only a reached route is added: a link's target is marked offered on a
 * route some principal reached, never added by itself (a denied control's
 * target, an <a download> say, is never fetched). */
static void probe_add(run *r, probe_route *v, int *n, int max, const char *url, int pri, int reached) {
  char key[512], o[512];
  if (!url || strncmp(url, "http", 4)) return;
  url_origin(url, o, sizeof o);
  if (strcmp(o, r->page_origin)) return; /* the app's own routes only */
  crawl__access_route(url, key, sizeof key);
  int k = 0;
  while (k < *n && strcmp(v[k].key, key)) k++;
  if (k == *n && (*n == max || !reached)) return;
  if (k == *n) {
    memset(&v[k], 0, sizeof v[k]);
    snprintf(v[k].key, sizeof v[k].key, "%s", key);
    v[k].url = url;
    (*n)++;
  }
  v[k].offered |= 1u << pri;
  if (reached) v[k].reached |= 1u << pri;
}

/* The routes the principals' states show (reached: by a seed or an allowed
 * action), and which of them each principal's states link to (offered). */
static int probe_routes(run *r, probe_route *v, int max) {
  int n = 0;
  for (int i = 0; i < r->f.nst; i++) probe_add(r, v, &n, max, r->f.st[i].url, r->f.st[i].principal, 1);
  for (int i = 0; i < r->f.nst; i++)
    for (int k = 0; k < r->f.st[i].nacts; k++) probe_add(r, v, &n, max, r->f.st[i].acts[k].href, r->f.st[i].principal, 0);
  return n;
}

/* Open url as the principal of the current tab; signed out on the way
 * (a recipe principal): sign in again once and retry. */
static crawl__access probe_one(run *r, const char *url) {
  char why[512];
  for (int attempt = 0; attempt < 2; attempt++) {
    pg_graph *g = NULL;
    pg_options go = {.redact_pii = r->o->redact_pii};
    crawl_code rc = navigate(r, url, 0, why, sizeof why); /* a logout, a deletion: refused, absent */
    if (!rc) rc = crawl_page_capture(r->page, &go, &g);
    if (rc) return CRAWL__ACCESS_ABSENT;
    int st = crawl_page_status(r->page);
    int signin = crawl__login_page(signin_recipe(r), g->route_url, g) || st == 401 || st == 419;
    crawl__access a = crawl__access_classify(st, signin, g);
    pg_graph_free(g);
    if (!signin || !r->o->principals[r->pri].login || attempt || sign_in(r, 1)) return a;
  }
  return CRAWL__ACCESS_DENIED;
}

static void probe_review(run *r, const char *pid, const probe_route *rt) {
  jl_review(r, "custom", "high", -1, NULL,
            "Check the route's access control: deny it on the server for principals that are not offered it.",
            "Principal %s can open %s directly, although its navigation never offers it (likely access-control gap).",
            pid, rt->key);
}

static void access_write(run *r, cJSON *o) {
  char path[4400];
  snprintf(path, sizeof path, "%s/access.json", r->dir);
  crawl__secrets_scrub_json(r->secrets, o);
  char *t = cJSON_Print(o);
  int e = crawl__file_write(path, t, strlen(t));
  if (e) jl_note(r, "could not write access.json: %s", strerror(e));
  free(t);
}

static void probe_access(run *r) {
  probe_route rts[256];
  int n = probe_routes(r, rts, 256);
  cJSON *o = cJSON_CreateObject(), *ps = cJSON_AddArrayToObject(o, "principals");
  cJSON *routes = cJSON_AddObjectToObject(o, "routes");
  for (size_t k = 0; k < r->o->nprincipals; k++) cJSON_AddItemToArray(ps, cJSON_CreateString(r->o->principals[k].id));
  for (int i = 0; i < n; i++) cJSON_AddObjectToObject(routes, rts[i].key);
  jl_note(r, "probing access: %d routes as each of %zu principals", n, r->o->nprincipals);
  for (size_t k = 0; k < r->o->nprincipals && !r->cancelled; k++) {
    const char *pid = r->o->principals[k].id;
    r->pri = (int)k;
    r->relogins = 0;
    if (r->contexts[k]) run_open_tab(r);
    for (int i = 0; i < n; i++) {
      unsigned me = 1u << k;
      crawl__access a = rts[i].reached & me ? CRAWL__ACCESS_REACHED : CRAWL__ACCESS_ABSENT;
      if (!a && r->page && !r->fatal) a = probe_one(r, rts[i].url);
      if (a == CRAWL__ACCESS_DIRECT && (rts[i].offered & me)) a = CRAWL__ACCESS_REACHED; /* offered, shown */
      cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(routes, rts[i].key), pid, crawl__access_name(a));
      if (a == CRAWL__ACCESS_DIRECT) probe_review(r, pid, &rts[i]);
    }
    close_tab(r);
    r->fatal = 0;
  }
  cJSON_AddObjectToObject(o, "actions"); /* by semanticKey, once the package is written */
  access_write(r, o);
  cJSON_Delete(o);
}

/* Each principal in turn, then the access probe; the contexts go at the end. */
static void explore_principals(run *r, seed *seeds, int nseeds) {
  jl_status(r, "seeding");
  for (size_t k = 0; k < r->o->nprincipals && k < CRAWL__PRINCIPALS_MAX && !r->cancelled && !r->guard_stop; k++)
    explore_as(r, (int)k, seeds, nseeds);
  if (!r->cancelled && !r->guard_stop) probe_access(r);
  for (size_t k = 0; k < CRAWL__PRINCIPALS_MAX; k++) {
    if (!r->contexts[k]) continue;
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "browserContextId", r->contexts[k]);
    cdp_call(r->c, NULL, "Target.disposeBrowserContext", a, NULL, 5000);
    free(r->contexts[k]);
    r->contexts[k] = NULL;
  }
}

/* ---- the run: close ---------------------------------------------------------------------------- */
/* The closing notes, the depth budget, the end line; then the package. */
static crawl_code run_close(run *r, crawl_summary *sum) {
  if (r->stopped_by) jl_note(r, "stopped by %s", r->stopped_by);
  if (r->page) {
    r->dialogs += crawl_page_dialogs(r->page);
    r->popups += crawl_page_popups(r->page);
  }
  if (r->dialogs) jl_note(r, "dismissed %ld JavaScript dialogs (alert, confirm, prompt, beforeunload)", r->dialogs);
  if (r->popups) jl_note(r, "closed %ld popup windows", r->popups);
  if (crawl__secrets_dropped(r->secrets))
    jl_note(r, "the secret list was full (%d values): %ld more redacted values were not remembered; later "
            "outputs may hold them", CRAWL__SECRETS_MAX, crawl__secrets_dropped(r->secrets));
  int depth_capped = 0;
  for (int si = 0; si < r->f.nst; si++) depth_capped += r->f.st[si].depth >= r->b.max_depth;
  if (depth_capped) {
    cJSON *bo = cJSON_CreateObject();
    cJSON_AddStringToObject(bo, "budget", "maxDepth");
    cJSON_AddNumberToObject(bo, "limit", (double)r->b.max_depth);
    jl_write(r, "budget", bo);
  }
  /* 5.-7.: the catalogs, the workflow candidates and the review queue come
   * from the journal (crawl_package_write, right after the end record);
   * the statuses say so in the lifecycle's order */
  jl_status(r, "extracting");
  jl_status(r, "synthesizing");
  jl_status(r, "reviewing");
  finish(r, sum);
  crawl_page_close(r->page);
  r->page = NULL;
  pg_graph_free(r->g);
  r->g = NULL;
  crawl__journal_close(r->jl);
  r->jl = NULL;
  /* the package comes from the journal and the state files alone: the
   * run's tables go first, so its build reuses their memory (docs/performance.md) */
  fr_free(&r->f);
  graph_json_drop(r);
#ifdef __GLIBC__
  /* what exploring freed goes back to the system before the build grows:
   * left resident, the freed pieces that the build's allocations do not
   * fit stayed counted in the run's peak (docs/measurements-memory.md) */
  malloc_trim(0);
#endif
  return crawl_package_make(r->dir, r->o->package, sum->error, sizeof sum->error);
}

static void run_free(run *r) {
  if (r->sh && crawl__shared_dropped(r->sh))
    crawl_log(CRAWL_LOG_WARN, "frontier", "%ld records of the shared frontier were dropped: forged or damaged "
              "(their tags do not match the run's key)", crawl__shared_dropped(r->sh));
  free(r->seed_origins);
  r->seed_origins = NULL;
  free(r->scope);
  r->scope = NULL;
  crawl__shared_close(r->sh);
  r->sh = NULL;
  crawl__timing_release(&r->tm);
  crawl__journal_close(r->jl);
  r->jl = NULL;
  crawl__log_secrets(NULL);
  crawl__secrets_free(r->secrets);
  r->secrets = NULL;
  fr_free(&r->f);
  crawl__strmap_release(&r->by_loop);
  crawl__strmap_release(&r->route_alias);
  graph_json_drop(r);
}

/* The shared frontier of o (none: CRAWL_OK and r->sh NULL), with the
 * run's key: a frontier without one is refused (its records could not be
 * told from forged ones). */
static crawl_code shared_open(run *r, crawl_summary *sum) {
  const crawl_opts *o = r->o;
  if (!o->frontier) return CRAWL_OK;
  size_t nk = o->frontier_key ? strlen(o->frontier_key) : 0;
  if (nk < CRAWL__FRONTIER_KEY_MIN || nk > CRAWL__FRONTIER_KEY_MAX) {
    snprintf(sum->error, sizeof sum->error, "--frontier needs the run's key in UIAP_FRONTIER_KEY (%d to %d bytes, "
             "the same on every worker; docs/scale.md)%s", CRAWL__FRONTIER_KEY_MIN, CRAWL__FRONTIER_KEY_MAX,
             nk ? ": the one given has the wrong length" : "");
    return CRAWL_ARG;
  }
  if (!(r->sh = crawl__shared_open(o->frontier, o->run_id, o->lease_ms, 5000, sum->error, sizeof sum->error)))
    return CRAWL_FRONTIER;
  crawl__shared_key(r->sh, o->frontier_key);
  return CRAWL_OK;
}

crawl_code crawl_run(cdp_client *c, const crawl_opts *o, crawl_summary *sum) {
  memset(sum, 0, sizeof *sum);
  run R = {.o = o, .c = c, .cur = -1, .pri = -1, .phase = -1, .t0 = cdp_now_ms()}, *r = &R;
  crawl_code rc0;
  if ((rc0 = shared_open(r, sum)) != CRAWL_OK) return rc0; /* before anything is written */
  int resumed;
  crawl_code rc = run_open(r, o, sum, &resumed);
  if (rc) {
    run_free(r);
    return rc;
  }
  if (r->sh) crawl__shared_use_secrets(r->sh, r->secrets);
  const cJSON *plan = plan_payload(o->plan);
  const cJSON *env = cJSON_GetObjectItemCaseSensitive(plan, "environment");
  const char *base = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(env, "baseUrl"));
  const cJSON *plan_sd = cJSON_GetObjectItemCaseSensitive(plan, "seeds");
  int maxseeds = cJSON_GetArraySize(plan_sd) + 1; /* every seed given, or the base URL */
  for (int i = 0; o->urls && o->urls[i]; i++) maxseeds++;
  seed *seeds = crawl__xcalloc((size_t)maxseeds, sizeof *seeds);
  int nseeds = seeds_collect(o->urls, plan_sd, base, seeds, maxseeds);
  for (int i = 0; i < nseeds && o->seed_query; i++) seeds[i].url = with_query(seeds[i].url, o->seed_query);
  for (int i = 0; i < nseeds && !base; i++) base = seeds[i].url; /* else the first seed URL */
  run_origins(r, base);
  r->seed_origins = crawl__xcalloc((size_t)nseeds + 1, sizeof *r->seed_origins);
  for (int i = 0; i < nseeds; i++) url_origin(seeds[i].url, r->seed_origins[r->nseed_origins++], 512);
  int nscope = 0;
  while (r->allowed[nscope]) nscope++;
  r->scope = crawl__xcalloc((size_t)(nscope + nseeds + 1), sizeof *r->scope);
  for (int i = 0; i < nscope; i++) r->scope[i] = r->allowed[i];
  for (int i = 0; i < nseeds; i++) r->scope[nscope + i] = r->seed_origins[i];
  journal_run(r, env, base, seeds, nseeds, resumed);
  jl_status(r, "planning");
  plan_seeds(r, seeds, nseeds);
  jl_status(r, "preparing");
  if (o->nprincipals) {
    explore_principals(r, seeds, nseeds);
  } else {
    run_open_tab(r);
    jl_status(r, "seeding");
    drive_url_seeds(r, seeds, nseeds);
    if (!r->sh) drive_control_seeds(r, seeds, nseeds);
    else if (control_seeds(seeds, nseeds))
      jl_note(r, "control seeds are not driven first with a shared frontier; the workers explore from the URL seeds");
    jl_status(r, "exploring");
    explore(r);
  }
  cancel_seen(r, CRAWL_OK); /* cancelled in any phase: the package says so */
  crawl_code prc = run_close(r, sum);
  if (!prc && o->nprincipals && !r->cancelled && !r->guard_stop) {
    char aerr[512];
    if (crawl_access_actions_write(r->dir, aerr, sizeof aerr))
      crawl_log(CRAWL_LOG_WARN, "crawl", "access.json keeps no actions: %s", aerr);
  }
  run_free(r);
  seeds_free(seeds, nseeds);
  free(seeds);
  if (prc) return prc;
  if (r->guard_stop) { /* the package is written; the CLI exits with the guard's code */
    snprintf(sum->error, sizeof sum->error, "%.500s", r->err);
    return CRAWL_OK;
  }
  if (r->fatal && !r->cancelled) { /* a cancelled run's package says "cancelled" (mapper 14.7) */
    snprintf(sum->error, sizeof sum->error, "%.500s", r->err);
    return CRAWL_BROWSER;
  }
  if (r->sh_lost) { /* the package holds what this worker found */
    snprintf(sum->error, sizeof sum->error, "%.500s", r->err);
    return CRAWL_FRONTIER;
  }
  /* NB: run_free emptied the table, so this always copies seed_err (""
   * when every seed loaded), as it did before the split */
  if (!r->f.nst) snprintf(sum->error, sizeof sum->error, "%.500s", r->seed_err); /* no seed loaded: why */
  return CRAWL_OK;
}

/* crawl_pkg.h -- the package side's public API: the Discovery Package built
 * from a crawl directory (journal + state files), the reports, workflows,
 * diff and schema validation. No browser, no network: a CI job that only
 * reads packages links this library (and cJSON, policy) without cdp or
 * libwebsockets.
 */
#ifndef UIAP_CRAWL_PKG_H
#define UIAP_CRAWL_PKG_H

#include <stddef.h>
#include <cjson/cJSON.h>

#include "crawl_common.h"

/* ---- discovery package ---- */
/* Derive the DiscoveryPackage (discovery-mapper section 6) from a crawl
 * directory alone: DIR/journal.jsonl (docs/journal.md) and the PageGraph
 * state files its `state` lines name. No browser; the same files always give
 * the same package (every array sorted; review item ids are hashes of what
 * they are about), so two crawls of one app differ only in run ids and times.
 * A torn last journal line is ignored, lines of unknown type are skipped,
 * malformed lines are counted in run.notes. A journal without an `end`
 * record gives run.status "failed" and a note. A missing or unreadable state
 * file is a note, and what depends on it has low confidence.
 *
 * On CRAWL_OK *package is a new cJSON object the caller frees with
 * cJSON_Delete. Errors: CRAWL_IO (journal unreadable), CRAWL_ARG (NULL
 * arguments, or no `run` record); err gets one line (may be NULL). */
crawl_code crawl_package_build(const char *dir, cJSON **package, char *err, size_t errlen);
/* Build and write DIR/package.json atomically (a temporary file in DIR,
 * fsync, rename). Errors as crawl_package_build, CRAWL_IO when writing. */
crawl_code crawl_package_write(const char *dir, char *err, size_t errlen);

/* A package as the reports, the gate line and the review count read it
 * (crawl_package_reports, crawl_package_gate_line,
 * crawl_package_review_count): read only, in a compact frozen form. Opaque. */
typedef struct crawl_package crawl_package;
/* crawl_package_write, and *pkg the package just written, parsed from the
 * text in hand: package.json is not read back. pkg NULL: only written.
 * Errors as crawl_package_write (*pkg NULL). Free with crawl_package_free. */
crawl_code crawl_package_make(const char *dir, crawl_package **pkg, char *err, size_t errlen);
/* DIR/package.json as it is. Errors: CRAWL_ARG (no dir or pkg), CRAWL_IO
 * (unreadable or not JSON: "PATH: reason"). */
crawl_code crawl_package_open(const char *dir, crawl_package **pkg, char *err, size_t errlen);
/* The package (read only; lives as long as pkg). */
const cJSON *crawl_package_json(const crawl_package *pkg);
/* NULL is a no-op. */
void crawl_package_free(crawl_package *pkg);

/* ---- a reviewer's decisions (docs/review.md) ---- */
/* The crawler never marks its own results "verified" (they are proposals
 * until a person reviews them); "verified" comes from a reviewer only.
 * crawl_reviewed_load reads FILE -- a decisions file
 * {"reviewDecisions":[{"catalog":"elements"|"actions"|"workflows","key":..,
 * "decision":"verified","role"?,"reviewer"?}]} or a previous
 * DiscoveryPackage (its entries whose reviewState is "verified") -- into
 * *decisions, that file's shape in canonical order (caller frees).
 * crawl_reviewed_save writes them as DIR/reviewed.json. Every package build
 * of DIR (crawl_package_build) applies DIR/reviewed.json with
 * crawl_reviewed_apply: an entry whose stable key still matches (element:
 * stableId, else semanticKey, and the role when the decision names one;
 * action and workflow: id) becomes "verified"; a run note counts the
 * verified entries and the decisions that match nothing. Returns the number
 * of entries verified (0 when DIR has no reviewed.json). Errors: CRAWL_ARG
 * (FILE unreadable, not JSON, not one of the two shapes, a bad decision),
 * CRAWL_IO (DIR/reviewed.json not writable); err gets one line. */
crawl_code crawl_reviewed_load(const char *file, cJSON **decisions, char *err, size_t errlen);
crawl_code crawl_reviewed_save(const char *dir, const cJSON *decisions, char *err, size_t errlen);
int crawl_reviewed_apply(cJSON *package, const char *dir);

/* ---- merge ---- */
/* One crawl directory out of the directories of several workers of one run
 * that shared a frontier (docs/merge.md): out gets one journal -- the first
 * directory's `run` record, every state once (the first by time), every
 * transition once (renumbered t_00001... in time order, viaTransitionId
 * rewritten), decisions, failures, reviews, seeds, budgets, statuses and
 * notes once, one `end` -- the state files and screenshots of the states
 * kept, and out/package.json (crawl_package_write). Reports are the
 * caller's (crawl_reports_write). dirs[0..n-1] must each hold a
 * journal.jsonl with a `run` record, all with the same runId; out must be
 * new or empty and none of the inputs.
 *
 * o may be NULL (defaults); st (may be NULL) gets the counts. Errors:
 * CRAWL_ARG (an input without a journal or a run record, runIds that
 * differ, out one of the inputs, a directory given twice), CRAWL_IO (out
 * not empty, or a file in out not writable, or the package not written);
 * err gets one line (may be NULL). */
typedef struct crawl_merge_opts {
  int force;                 /* merge different runIds; write into a non-empty out */
} crawl_merge_opts;
typedef struct crawl_merge_stats {
  long dirs;                 /* directories merged */
  long states, transitions;  /* records in out/journal.jsonl */
  long self_loops, decisions, failures, reviews; /* of them: self-loops, and decision, failure, review records */
  long dup_states, dup_transitions; /* dropped: another worker's copy is kept */
  long dup_other;            /* other records dropped as duplicates (status, seed, ...) */
  long unended;              /* inputs without an `end` record (a stopped worker) */
  long foreign;              /* states outside the run's origins (baseUrl, seeds,
                                environment.metadata.allowedOrigins of the first
                                input's run record): dropped with what names them */
  const char *stopped_by;    /* static: the merged end's stoppedBy ("frontier", "maxRuntimeMs", ...,
                                "other"), NULL without one */
} crawl_merge_stats;
crawl_code crawl_merge(const char *const *dirs, int n, const char *out, const crawl_merge_opts *o,
                       crawl_merge_stats *st, char *err, size_t errlen);

/* ---- reports ---- */
/* What people and CI systems read beside DIR/package.json; see
 * docs/reports.md. All of it is derived from the package (plus the journal's
 * decision lines and the screenshots, when present): no browser, no network. */

/* Write DIR/graph.dot (states and transitions), DIR/review.sarif (SARIF
 * 2.1.0: one result per review item, one rule per review kind, level by
 * severity), DIR/junit.xml (one test case per seed and per route; review
 * items at or above junit_fail_on are its failure) and DIR/report.html (one
 * self-contained page: summary, coverage, routes, the transition graph as
 * SVG, states with screenshot thumbnails, the review queue with filters, the
 * safety decisions, workflow candidates). Every file is replaced atomically.
 * o may be NULL (all defaults). Errors: CRAWL_ARG (no dir), CRAWL_IO
 * (package unreadable or not a DiscoveryPackage, or a file not writable);
 * err gets one line (may be NULL). */
typedef enum {
  CRAWL_LAYOUT_AUTO,          /* Graphviz `dot` when on PATH, else built-in */
  CRAWL_LAYOUT_BUILTIN,       /* the layered layout in report.c */
  CRAWL_LAYOUT_DOT,           /* Graphviz only; built-in if it fails */
} crawl_layout;
typedef struct crawl_report_opts {
  crawl_layout layout;
  const char *dot;            /* Graphviz binary; NULL: "dot" on PATH */
  int dot_timeout_ms;         /* 0: 20000 */
  const char *junit_fail_on;  /* "low" | "medium" | "high"; NULL: "medium" */
  size_t max_embed_bytes;     /* screenshot bytes embedded in report.html; 0: 64 MiB */
} crawl_report_opts;
crawl_code crawl_reports_write(const char *dir, const crawl_report_opts *o, char *err, size_t errlen);
/* The same from a package in memory (crawl_package_make/_open), into the
 * directory it came from. */
crawl_code crawl_package_reports(const crawl_package *pkg, const crawl_report_opts *o, char *err, size_t errlen);

/* Review items of severity min_severity ("low", "medium", "high") or worse
 * in DIR/package.json (or in the package file dir names), into *count. For
 * `crawl --fail-on`. Errors: CRAWL_ARG (bad severity), CRAWL_IO. */
crawl_code crawl_review_count(const char *dir, const char *min_severity, long *count, char *err, size_t errlen);
/* The same of a package in memory. */
crawl_code crawl_package_review_count(const crawl_package *pkg, const char *min_severity, long *count, char *err,
                                      size_t errlen);

/* What the safety gate cost, from metadata.gate of DIR/package.json (or
 * the package file dir names), as one line into line (n bytes, cut to
 * fit): "gate: 120 allowed, 14 denied (destructive 9, billing_change 3),
 * 6 held (unknown 6), 3 skipped (write 3)" -- actions counted once per
 * state. Errors: CRAWL_ARG, CRAWL_IO. */
crawl_code crawl_gate_line(const char *dir, char *line, size_t n, char *err, size_t errlen);
/* The same of a package in memory. */
crawl_code crawl_package_gate_line(const crawl_package *pkg, char *line, size_t n);

/* When most of the run's actions failed (metadata.actionFailures: at least
 * 3 failed and at least half of those attempted; docs/decisions.md), that
 * in one line into line (n bytes): "most actions failed: 22 of 22
 * attempted (100%); commonest reason: detached (21)"; else line is "".
 * Errors: CRAWL_ARG. */
crawl_code crawl_package_failure_line(const crawl_package *pkg, char *line, size_t n);

/* Compare two packages (discovery-mapper 17): routes, scopes, elements (by
 * stableId, else semanticKey), actions, states, transitions (by from state,
 * action and target), review items and workflows, each added / removed /
 * changed, and the coverage counters. *diff is a new object the caller frees:
 * {"old":{...},"new":{...},"sections":{"routes":{"added":[..],"removed":[..],
 * "changed":[{"key":..,"fields":{"f":{"old":..,"new":..}}}]},...},
 * "coverage":{...},"regression":bool,"regressions":[text,...]}.
 * A regression: a route, element or action disappeared, or a review item of
 * severity high appeared (new, or raised to high). *regression may be NULL.
 * Errors: CRAWL_ARG (NULL or not packages). */
crawl_code crawl_package_diff(const cJSON *old_pkg, const cJSON *new_pkg, cJSON **diff, int *regression);
/* Principal id's view of a package of a principals run (principals.c,
 * docs/principals.md): a copy with only the routes, elements, actions and
 * states it saw (their metadata.principals / metadata.principal), and the
 * edges between those states; entries that name no principal stay. NULL
 * when environment.principalProfiles does not list id. Caller frees. */
cJSON *crawl_package_principal_view(const cJSON *pkg, const char *id);
/* DIR/access.json's "actions" from DIR/package.json: {semanticKey:
 * [principal...]}, the principals that took each action (an edge from one
 * of their states on that target). CRAWL_IO with err when a file cannot be
 * read or written. */
crawl_code crawl_access_actions_write(const char *dir, char *err, size_t errlen);
/* DIR/api.json (the endpoint catalog, docs/api.md) as a new tree the
 * caller frees; when DIR has none, rebuilt in memory from DIR/journal.jsonl
 * (nothing written). CRAWL_IO / CRAWL_ARG with err. */
crawl_code crawl_api_load(const char *dir, cJSON **api, char *err, size_t errlen);
/* diff["api"] (replaced): {"added":["GET /api/x"],"removed":[..],
 * "statusChanged":[{"key","principal"?,"old":[..],"new":[..]}]}, endpoints
 * matched by method and template (docs/reports.md). crawl_diff_text shows it. */
void crawl_api_diff(cJSON *diff, const cJSON *old_api, const cJSON *new_api);
/* The endpoint template of one URL path ("/api/pets/3/adopt" ->
 * "/api/pets/{petId}/adopt"; no query) with the names api.json gives
 * value parameters (docs/api.md "Templates"); caller frees. */
char *crawl_api_path_template(const char *path);
/* The diff as text for people (caller frees). color: ANSI colors. */
char *crawl_diff_text(const cJSON *diff, int color);

/* Validate a document against a definition of the UIAP schema compiled into
 * the library (crawler/package/uiap-schema.json). definition NULL: by the document's
 * shape ("uiap" -> UiapMessage, "spec"+"modelVersion" -> DiscoveryPackage,
 * "profile" -> PageGraph). A message whose type the specs name also has its
 * payload checked against that payload's definition. On CRAWL_OK, out tells
 * whether it is valid (nerrors == 0) and holds the first errors in document
 * order, each with the JSON pointer of the offending value. Errors: CRAWL_ARG
 * (unknown definition, shape not recognised; for the file variant also not
 * JSON, with line and column), CRAWL_IO (file unreadable). */
#define CRAWL_SCHEMA_MAX_ERRORS 20
#define CRAWL_SCHEMA_PATH_MAX 256
typedef struct crawl_schema_error {
  char path[CRAWL_SCHEMA_PATH_MAX]; /* JSON pointer; "/" for the document */
  char message[256];
} crawl_schema_error;
typedef struct crawl_validation {
  const char *definition;          /* static: the definition checked */
  const char *payload_definition;  /* static, or NULL */
  long nerrors;                    /* all errors; errors[] holds the first ones */
  crawl_schema_error errors[CRAWL_SCHEMA_MAX_ERRORS];
} crawl_validation;
crawl_code crawl_validate_json(const cJSON *doc, const char *definition, crawl_validation *out, char *err, size_t errlen);
crawl_code crawl_validate_file(const char *path, const char *definition, crawl_validation *out, char *err, size_t errlen);
const char *crawl_schema_guess(const cJSON *doc);
int crawl_schema_has(const char *definition);

#endif

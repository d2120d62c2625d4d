/* report_int.h -- what the parts of the reports (crawler/package/report*.c)
 * share and nothing outside this folder sees: the limits, the review kinds
 * (SARIF rules) and route colours, the model read from the package (rp: its
 * states, drawn edges and routes), the HTML table columns as data, and each
 * part's entry points. The public API is crawl_reports_write and friends in
 * crawl_pkg.h.
 */
#ifndef UIAP_REPORT_INT_H
#define UIAP_REPORT_INT_H

#include "crawl_pkg.h"
#include "pkg_int.h"
#include "crawl_journal.h"
#include "crawl_strmap.h"
#include "crawl_util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define RP_LABEL_MAX     30            /* characters of a route in a graph node */
#define RP_EDGE_LIST_MAX 40            /* outgoing transitions listed per state */
#define RP_EMBED_DEFAULT ((size_t)64 << 20)
#define RP_PNG_MAX       ((size_t)16 << 20)

/* ---- vocabularies (report.c) ---------------------------------------------------------- */
/* Review kinds: the SARIF rules, in the spec's order (ruleIndex is stable). */
typedef struct rp_kind {
  const char *kind, *name, *short_text, *help;
} rp_kind;
extern const rp_kind rp_kinds[11];
#define RP_NKINDS (sizeof rp_kinds / sizeof *rp_kinds)
int rp_kind_index(const char *k);
/* Route colours (fill), cycled in route catalog order. */
extern const char *const rp_palette[10];
#define RP_NPALETTE (sizeof rp_palette / sizeof *rp_palette)

/* ---- the model read from the package ---------------------------------------------- */
typedef struct rp_state {
  const cJSON *node;
  const char *id, *route, *title, *url, *shot;
  int color, layer;
  double pos;
  int nout, nin;
} rp_state;

typedef struct rp_edge { int from, to, count; const cJSON *first; } rp_edge; /* drawn edges */

typedef struct rp {
  const char *dir;
  const crawl_report_opts *o;
  const cJSON *pkg;          /* the kept package's (crawl_package): read only */
  crawl__jarena jar;         /* decision records read here (rp_decisions) */
  const cJSON **dec_own;     /* ... and their list */
  rp_state *st;
  size_t nst;
  rp_edge *ed;
  size_t ned;
  const cJSON *const *dec;   /* the journal's decision records, frozen into jar, in file order ... */
  size_t ndec, capdec;
  int have_dec;              /* ... or 0: the journal was not readable */
  const cJSON *routes;       /* routeCatalog.routes */
  const cJSON **route_v;     /* its entries, in order */
  crawl__strmap route_index; /* routeId -> index in route_v (the first of an id) */
  crawl__strmap st_index;    /* stateId -> index in st (the first of an id) */
  cJSON *access;             /* DIR/access.json of a principals run, or NULL */
  char *err;
  size_t errlen;
} rp;


/* ---- HTML helpers (report_html.c) -------------------------------------------------------- */
static inline void h(crawl__buf *b, const char *s) { crawl__buf_html(b, s); }

/* A table column as data: its heading and what its cell shows of the row's
 * object o (a package entry). */
typedef enum {
  HC_TEXT,  /* o[key] as text */
  HC_CODE,  /* o[key] as code (– when absent) */
  HC_LIST,  /* the array o[key], at most max, as text or (code) as code */
  HC_NUM,   /* o.metadata[key] as a whole number, 0 when absent */
  HC_YESNO, /* o[key] true: yes, else no */
  HC_FN,    /* what fn(b, o, ctx) writes */
} h_kind;
typedef struct h_col {
  const char *head;
  h_kind kind;
  const char *key;
  size_t max;
  int code;
  void (*fn)(crawl__buf *b, const cJSON *o, const void *ctx);
  const char *td; /* the cell's attributes (" class=..."), or NULL */
} h_col;
#define H_NCOLS(cols) (sizeof (cols) / sizeof *(cols))
#define H_TEXT(head, key) {head, HC_TEXT, key, 0, 0, NULL, NULL}
#define H_CODE(head, key) {head, HC_CODE, key, 0, 0, NULL, NULL}
#define H_LIST(head, key, max, code) {head, HC_LIST, key, max, code, NULL, NULL}
#define H_NUM(head, key) {head, HC_NUM, key, 0, 0, NULL, NULL}
#define H_YESNO(head, key) {head, HC_YESNO, key, 0, 0, NULL, NULL}
#define H_FN(head, fn) {head, HC_FN, NULL, 0, 0, fn, NULL}

/* ---- report.c -------------------------------------------------------------- */
int rp_kind_index(const char *k);
long rp_state_index(const rp *r, const char *id);
int rp_route_color(const rp *r, const char *route);
const cJSON *rp_route_entry(const rp *r, const char *route);
void rp_model(rp *r);
void rp_decisions(rp *r);

/* ---- report_graph.c -------------------------------------------------------- */
void rp_target_label(crawl__buf *b, const cJSON *t);
char *rp_dot(rp *r, int labels);
char *rp_svg_dot(rp *r);
char *rp_svg_builtin(rp *r);

/* ---- report_ci.c ----------------------------------------------------------- */
cJSON *rp_sarif(const rp *r);
double rp_run_seconds(const cJSON *run);
char *rp_junit(const rp *r, int fail_at);

/* ---- report_html.c --------------------------------------------------------- */
void rp_h_code(crawl__buf *b, const char *s);
void rp_h_list(crawl__buf *b, const cJSON *arr, size_t max, int code);
void rp_h_sev(crawl__buf *b, const char *sev);
void rp_h_signal(crawl__buf *b, const cJSON *sg);
void rp_h_thead(crawl__buf *b, const h_col *cols, size_t n);
void rp_h_cells(crawl__buf *b, const h_col *cols, size_t n, const cJSON *o, const void *ctx);
void rp_buf_base64(crawl__buf *b, const unsigned char *p, size_t n);
char *rp_html(rp *r, const char *svg, const char *how);

/* ---- report_html_sections.c ------------------------------------------------ */
void rp_html_summary(crawl__buf *b, const rp *r);
void rp_html_routes(crawl__buf *b, const rp *r);
void rp_html_graph(crawl__buf *b, const rp *r, const char *svg, const char *how);
void rp_html_states(crawl__buf *b, rp *r, size_t *embedded);
void rp_html_review(crawl__buf *b, const rp *r);
void rp_html_safety(crawl__buf *b, const rp *r);
void rp_html_workflows(crawl__buf *b, const rp *r);
void rp_html_actions(crawl__buf *b, const rp *r);
void rp_html_access(crawl__buf *b, const rp *r);

/* ---- report_html_api.c ----------------------------------------------------- */
cJSON *rp_api_load(const rp *r);
void rp_html_api(crawl__buf *b, const cJSON *api);

#endif

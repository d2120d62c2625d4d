/* observe_int.h -- what the files of web.observe share (observe.c,
 * observe_signals.c, observe_script.c) and nothing else sees: the run's
 * state and the helpers one of them defines and another calls. Internal to
 * crawler/run/.
 */
#ifndef UIAP_OBSERVE_INT_H
#define UIAP_OBSERVE_INT_H

#include "crawl.h"
#include "run_int.h"

/* ---- state -------------------------------------------------------------------------- */
#define MAX_SUBMITS 16
#define MAX_REQS 32
#define SUBMIT_WINDOW_MS 1000    /* requests starting this soon after a submit belong to it */
#define SUBMIT_GRACE_MS 150       /* ... and after the last one ended */
#define SUBMIT_TIMEOUT_MS 30000
#define STEP_QUIET_MS 150        /* a script step waits for this much quiet */
#define STEP_MAX_WAIT_MS 3000    /* ... but not longer than this */
#define KEY_CACHE 256
/* A change is captured once more this long after it was published: the
 * accessibility tree can lag the DOM, so a capture made while the page
 * moved may mix two states; the second capture corrects it. */
#define CONFIRM_MS 150
/* Noise: a clock ticking outside anything published mutates the DOM but
 * changes no graph. After NOISE_AFTER such captures in a row the throttle
 * for mutation-only changes doubles from 125 ms up to NOISE_MAX_MS; a
 * published change, or anything the reporter or a navigation reports
 * (focus, input, live regions, submits), is captured at the normal pace. */
#define NOISE_AFTER 4
#define NOISE_MAX_MS 1000

typedef struct submit {
  int active;
  int ctx, key;                 /* the form, as the reporter names it */
  long long t0;
  char *scope_id;               /* form scope, when the graph has it */
  char *document_id;
  char method[16];
  char *req[MAX_REQS];
  int nreq, ndone, failed, status;
  long long last_done;
  int started_sent;
  int from_request;             /* no form: a non-GET request of the app's origins began it */
  char emethod[16];             /* its endpoint: the first request of the app's origins ... */
  char *endpoint;               /* ... its path template, "{id}" style (crawl__netlog_template) */
} submit;

typedef struct { int ctx, key, backend; } key_entry;

/* Requests of the last moments, for a submit reported after its request. */
#define RECENT 32
typedef struct { char *rid; long long t; } recent_req;

typedef struct obs {
  cdp_client *c;
  crawl_page *p;
  const crawl_observe_opts *o;
  crawl_observe_msg_cb on_msg;  /* where the messages go */
  void *on_msg_ud;
  crawl_observe_stats *st;
  char sub[64], sig_prefix[80];
  const char *source_id;
  unsigned long msg_seq, sig_seq;
  unsigned long long rev;        /* revision of `graph` */
  cJSON *graph;                  /* what the consumer has: the last published graph */
  pg_graph *last;                /* the latest capture (published or not) */
  cJSON *pending;                /* signals for the next delta */
  cJSON *reports;                /* binding reports to handle: [{ctx, report}] */
  unsigned long seen;            /* crawl_page_changes at the last capture */
  int own_dirty;
  long long last_capture, t_start;
  long long last_delta;           /* last delta published (or snapshot, or step done) */
  long long retry_at;             /* after a failed capture */
  long long confirm_at;           /* capture once more then, to confirm a change (0: none) */
  int noise;                      /* captures in a row that mutations caused and that showed nothing */
  int throttle;
  char binding[64];
  char *script_id;
  int subs[16], nsubs;
  int closed, crashed;
  int nav_full, nav_same;
  submit submits[MAX_SUBMITS];
  recent_req recent[RECENT];
  unsigned nrecent;
  key_entry keys[KEY_CACHE];
  int nkeys;
  /* script */
  int step;                      /* index of the next step */
  int nsteps;
  long long step_started, step_deadline, prev_step_done;
  int step_waiting;
  char err[512];
} obs;
/* ---- observe.c: output ------------------------------------------------------------------- */
/* A new signal of kind (caller publishes it). */
cJSON *crawl__obs_signal_new(obs *s, const char *kind);
/* sg (consumed) into the next delta; also sent at once as web.signal when
 * its kind was asked for. */
void crawl__obs_signal_publish(obs *s, cJSON *sg);

/* ---- observe_signals.c: events, live regions, submits ------------------------------------ */
/* The bit of a signal kind's name, or -1. */
int crawl__obs_kind_bit(const char *name);
/* Event callbacks (ud = the run), subscribed by observe.c. */
void crawl__obs_on_binding(void *ud, const char *session, const char *method, const cJSON *params);
void crawl__obs_on_nav(void *ud, const char *session, const char *method, const cJSON *params);
void crawl__obs_on_closed(void *ud, const char *session, const char *method, const cJSON *params);
void crawl__obs_on_network(void *ud, const char *session, const char *method, const cJSON *params);
/* The reporter's batches handled against g: live regions become signals. */
void crawl__obs_reports_take(obs *s, const pg_graph *g);
/* submission.started for new submits. */
void crawl__obs_submits_resolve(obs *s);
/* submission.finished for the submits that are done (force: all). */
void crawl__obs_submits_check(obs *s, long long now, int force);
void crawl__obs_submit_free(submit *b);

/* ---- observe_script.c: the script ------------------------------------------------------------ */
/* Run the current step: CRAWL_OK when done (or still waiting:
 * s->step_waiting), an error when it failed (s->err says why). */
crawl_code crawl__obs_step_run(obs *s, long long now);

#endif

/* crawl.h -- the live side's public API (needs a browser): a tab over CDP
 * (crawl_page_*), the discovery run, plans, observe. The package side is
 * crawl_pkg.h (included), the static server crawl_serve.h.
 *
 * Library code never prints: messages go through crawl_log_set().
 */
#ifndef UIAP_CRAWL_H
#define UIAP_CRAWL_H

#include <stddef.h>
#include <cjson/cJSON.h>

#include "cdp.h"
#include "pg.h"
#include "crawl_common.h"
#include "crawl_pkg.h"

/* ---- a signed-in session (session.c; docs/sessions.md) ------------------- */
/* What a crawl brings along to get behind a login: cookies (a Playwright
 * storageState's or a Netscape cookies.txt's), localStorage per origin (a
 * storageState's) and extra request headers (--header). The parsers are
 * pure (no browser); the tab applies a session (crawl_page_opts.session).
 * Zero-initialise; free what the parsers added with crawl_session_release.
 * Every value (cookie, header, localStorage) is a secret of the run. */
typedef struct crawl_cookie {
  char *name, *value;
  char *domain;               /* without a leading '.' */
  char *path;                 /* "/" when none was given */
  double expires;             /* seconds since the epoch; <= 0: a session cookie */
  int host_only;              /* 1: the host itself only (no leading '.' in the file,
                                 or include-subdomains FALSE) */
  int http_only, secure;
  const char *same_site;      /* static: "Strict", "Lax", "None", or NULL */
  int public_value;           /* 1: not a secret, not a sign-in (a feature flag) */
} crawl_cookie;

typedef struct crawl_storage_item {
  char *origin;               /* "http://host:port" as given */
  char *name, *value;
  int public_value;           /* 1: not a secret, not a sign-in (a feature flag) */
} crawl_storage_item;

typedef struct crawl_header {
  char *name, *value;
} crawl_header;

typedef struct crawl_session {
  crawl_cookie *cookies;
  size_t ncookies;
  crawl_storage_item *storage;
  size_t nstorage;
  crawl_header *headers;
  size_t nheaders;
} crawl_session;

#define CRAWL_SESSION_MAX_ITEMS 10000 /* cookies, items or headers, each */

/* Add what text (len bytes, NUL not needed) holds to *s. Return CRAWL_OK,
 * or CRAWL_ARG with *s unchanged and one line in err (never a value from
 * the text: a path in the JSON, or a line number, and what is wrong). */
/* Playwright's storageState JSON: {"cookies":[{name, value, domain, path,
 * expires, httpOnly, secure, sameSite}], "origins":[{origin,
 * localStorage:[{name, value}]}]}; both arrays optional. */
crawl_code crawl_session_storage_state(crawl_session *s, const char *text, size_t len, char *err, size_t errlen);
/* Netscape cookies.txt (curl, browser exports): 7 tab-separated fields a
 * line (domain, include-subdomains, path, secure, expiry, name, value);
 * "#HttpOnly_" before the domain marks an HttpOnly cookie; other lines
 * starting with '#', and blank ones, are skipped; CRLF is fine. */
crawl_code crawl_session_cookies_txt(crawl_session *s, const char *text, size_t len, char *err, size_t errlen);
/* One "Name: value" header (--header): name an HTTP token, not one the
 * browser owns (Host, Content-Length, Connection, Transfer-Encoding),
 * value without CR, LF or NUL, spaces around it dropped. */
crawl_code crawl_session_header(crawl_session *s, const char *line, char *err, size_t errlen);
/* 1 when s holds anything (the run's environment says authMode
 * "session_reuse"). NULL: 0. */
int crawl_session_any(const crawl_session *s);
/* Frees what the parsers added and zeroes *s. */
void crawl_session_release(crawl_session *s);

/* For the tab (pure, unit-tested): the params of Network.setCookies for
 * s's cookies (caller frees; NULL when there are none); the headers of a
 * paused request (Fetch.requestPaused request.headers, an object; may be
 * NULL) with s's added, a same-named one (any case) replaced, as the array
 * of {name, value} Fetch.continueRequest takes (caller frees); the script
 * that sets origin's localStorage items (caller frees; NULL when s has
 * none for origin). */
cJSON *crawl_session_cookie_params(const crawl_session *s);
cJSON *crawl_session_merge_headers(const crawl_session *s, const cJSON *request_headers);
char *crawl_session_storage_script(const crawl_session *s, const char *origin);
/* Internal to crawler/ (crawl_secrets.h): every value of s (cookies,
 * localStorage, headers) into the secret list sec. s NULL: nothing. */
struct crawl__secrets;
/* A Playwright storageState document ({cookies, origins}; caller frees) from
 * what a sign-in left in the browser: cookies as Storage.getCookies lists
 * them (a CDP Network.Cookie array), storage an object {origin: [[name,
 * value], ...]} of localStorage items (session_save.c; `login --save-state`).
 * crawl_session_storage_state reads it back. */
cJSON *crawl_session_state_from_cdp(const cJSON *cookies, const cJSON *storage);
/* Write a storageState document to path as indented JSON, mode 0600 (it
 * holds the session). 0, or the errno of the write. */
int crawl_session_state_write(const cJSON *state, const char *path);

/* A person's sign-in in a visible tab (login_capture.c; `uiap-crawl login`):
 * one look every 500 ms (the tab's URL, its origin's localStorage, the
 * browser's cookies) until the window closes, the URL starts with until,
 * timeout_ms pass or *cancel is lifted. DONE (the window closed after a
 * look, or until was reached): out->state is the last look as a
 * storageState (caller frees) and out->ncookies the cookies the browser
 * reported; otherwise out->state is NULL. */
typedef struct crawl_login_capture_opts {
  const char *until;              /* NULL: done when the window closes */
  long timeout_ms;
  volatile sig_atomic_t *cancel;  /* NULL: never */
} crawl_login_capture_opts;

typedef enum crawl_login_end {
  CRAWL_LOGIN_DONE,
  CRAWL_LOGIN_GONE,               /* the browser closed before the page loaded */
  CRAWL_LOGIN_TIMEOUT,
  CRAWL_LOGIN_CANCELLED,
} crawl_login_end;

typedef struct crawl_login_capture_out {
  cJSON *state;
  int ncookies;
} crawl_login_capture_out;

crawl_login_end crawl_login_capture(cdp_client *c, const char *session, const crawl_login_capture_opts *o,
                                    crawl_login_capture_out *out);

void crawl__session_secrets(const crawl_session *s, struct crawl__secrets *sec);

/* ---- principals and login recipes (login.c; docs/principals.md) ---------- */
/* A sign-in recipe: load url, do the steps (ui.enterText into a field,
 * ui.activate a button), and check where the page ended up. A step's target
 * resolves like any target (web 3.2, mapper 11.5; crawl__login_target): its
 * stable id, else role and accessible name (in scope), else role and
 * ordinal (in scope), else the CSS selector, a local hint (web 5.8). Values
 * come only from the environment (${env:NAME}); parsed values are secrets
 * of the run (crawl__login_secrets). */
typedef struct crawl_login_step {
  char *action;               /* "ui.enterText" or "ui.activate" */
  char *stable_id;            /* target.stableId (data-uiap-id), or NULL */
  char *role, *name;          /* target.role, .name; either may be NULL */
  char *scope;                /* target.scopeId: the stable id or name of a scope
                                 (a form, a dialog) the target lies in; NULL: any */
  int ordinal;                /* target.ordinal: the ordinal-th match in document
                                 order, 0-based; -1: not given (the first) */
  char *css;                  /* target.css: a selector, a local hint; NULL: none */
  char *value;                /* ui.enterText: the expanded value; else NULL */
} crawl_login_step;

typedef struct crawl_login {
  char *url;                  /* the sign-in page */
  crawl_login_step *steps;
  size_t nsteps;
  char *success_prefix;       /* success.urlPrefix; NULL: anywhere off the sign-in page */
} crawl_login;

/* in with every ${env:NAME} replaced by the variable's value into *out
 * (caller frees). whole: in must be exactly one reference (a recipe's
 * value: never literal in the plan). CRAWL_ARG with one line in err (the
 * variable's name, never a value) when a variable is unset, a reference is
 * malformed, or whole is broken. */
crawl_code crawl_env_expand(const char *in, int whole, char **out, char *err, size_t errlen);
/* A recipe ({url, steps, success?}) into *l (zeroed first; release with
 * crawl_login_release, also after an error). err starts with the JSON path
 * below the recipe ("/steps/1/value ..."). */
crawl_code crawl_login_parse(const cJSON *j, crawl_login *l, char *err, size_t errlen);
void crawl_login_release(crawl_login *l);

/* A principal of the plan: environment.principalProfiles[i], with what
 * environment.metadata.principals.<id> adds: login (a recipe) and
 * storageState (a path the caller loads into session). */
typedef struct crawl_principal {
  char *id;
  cJSON *profile;             /* the DiscoveryPrincipalProfile, a copy */
  crawl_login *login;         /* NULL: no recipe */
  char *storage_state;        /* NULL: none */
  crawl_session session;      /* the caller fills it (--storage-state's parser) */
} crawl_principal;

/* The plan's principals, in plan order; pick (NULL-terminated, may be NULL:
 * all) keeps only those ids, each of which must exist. *v and *n always
 * set; free with crawl_principals_free. CRAWL_ARG with a JSON path in err. */
crawl_code crawl_principals_parse(const cJSON *plan, const char *const *pick, crawl_principal **v, size_t *n,
                                  char *err, size_t errlen);
void crawl_principals_free(crawl_principal *v, size_t n);
void crawl__login_secrets(const crawl_login *l, struct crawl__secrets *sec);

/* ---- one page (tab) ------------------------------------------------------- */
/* A page owns one CDP session on one tab: navigation, settling (network and
 * DOM quiet, with a hard cap), JavaScript dialogs dismissed, popups noted,
 * and capture of a PageGraph in a constant number of round trips. */
typedef struct crawl_page crawl_page;
typedef struct crawl_page_opts {
  int width, height;          /* viewport; 0: 1280x800 */
  const char *locale;         /* a language tag ("de-DE"): Intl, navigator.language,
                                 Accept-Language; NULL: the browser's */
  const char *user_agent;     /* the User-Agent header and navigator.userAgent,
                                 verbatim; NULL: the browser's own string with
                                 "HeadlessChrome" as "Chrome", the string of
                                 `login`'s headed browser (docs/sessions.md) */
  int nav_timeout_ms;         /* 0: 30000; the load event, after which we capture anyway */
  int settle_quiet_ms;        /* 0: 250; no network, no DOM mutation for this long */
  int settle_max_ms;          /* 0: 5000; hard cap on settling */
  int settle_early;           /* 1: settled as soon as the page is quiet for 50 ms
                                 and has no short timer, animation frame or
                                 animation pending (its own evidence); the
                                 quiet window is the fallback */
  int call_timeout_ms;        /* 0: 30000; any single CDP call */
  int block_writes;           /* 1: the write guard, in the page and in every
                                 frame, worker, service and shared worker under
                                 it, each paused until guarded: any request but
                                 GET/HEAD/OPTIONS fails (beacons, pings and
                                 keepalive too), so do GETs whose URL reads as a
                                 logout, deletion or billing change, and
                                 top-level navigations off the allowed origins;
                                 popups are closed before they run; WebSocket
                                 handshakes after an action are blocked. A
                                 target that cannot be guarded fails the page:
                                 CRAWL_GUARD from every call after it */
  int allow_websockets;       /* 1: with block_writes, WebSockets an action opens
                                 are let through (the plan's
                                 environment.metadata.allowWebSockets) and
                                 reported, not refused */
  const char *const *allow_beacons; /* NULL-terminated path prefixes ("/__state"):
                                 with block_writes, a beacon (resource type Ping:
                                 sendBeacon, <a ping>) to an allowed origin whose
                                 path starts with one goes through; NULL: none */
  const char *const *allow_reads; /* NULL-terminated --allow-read entries: "POST
                                 /api/search" (method and path prefix: with
                                 block_writes, such requests to an allowed origin
                                 go through as reads, unless their body is a
                                 GraphQL mutation or subscription) and
                                 "graphql:Name" (a persisted GraphQL query of
                                 that operation name is a read); NULL: none.
                                 GraphQL documents of queries only are reads
                                 in any case (docs/safety.md) */
  const char *const *allowed_origins; /* NULL-terminated; the page's own origin
                                 at open is always allowed */
  size_t ax_full_limit;       /* snapshot nodes above which AX is fetched only for
                                 candidates in view; 0: 20000 */
  int ax_record;              /* 1: each capture's graph keeps its elements'
                                 accessibility nodes for a record
                                 (pg_ax_retain, pg_ax_record_of) */
  const crawl_session *session; /* borrowed, NULL: none. crawl_page_open sets
                                 its cookies and localStorage before the first
                                 navigation; its headers go on every request
                                 to an allowed origin (the page's own and
                                 allowed_origins), never to another. Fetch is
                                 then on also without block_writes. */
  int session_kept;           /* the session's cookies and localStorage are in the
                                 tab's context already (an earlier tab of it set
                                 them): only its headers are applied */
  const char *browser_context; /* Target.createBrowserContext's id: the tab opens
                                 in it (a principal's own cookies and storage);
                                 NULL: the default context */
  const struct crawl__secrets *secrets; /* more values the tab never publishes
                                 (the command line's URL credentials, cli_secrets);
                                 NULL: the session's only */
} crawl_page_opts;

crawl_code crawl_page_open(cdp_client *c, const crawl_page_opts *o, crawl_page **out);

/* Which open page crawl_page_attach takes: target_id if set (it must be a
 * page), else the first page target (in Target.getTargets order) whose URL
 * contains url_contains, else the first whose URL starts with url_prefix;
 * all NULL: the only page target, when there is exactly one. A selector that
 * matches nothing is an error, never a fallback to another page. */
typedef struct crawl_attach_opts {
  const char *target_id;
  const char *url_contains;
  const char *url_prefix;
} crawl_attach_opts;

/* Attach (flatten) to a page that is already open, e.g. a tab another tool
 * drives in a browser reached with cdp_connect, instead of opening one. The
 * page is not navigated, reloaded, resized or focused, its dialogs and popups
 * are left to its owner, nothing browser-wide is set; the change observer
 * (crawl_page_changes) is installed into the loaded document, in every frame,
 * and into documents to come. o: width/height are not used (the page keeps
 * its size); block_writes guards the page's own origin plus allowed_origins.
 * sel may be NULL (the only page target). *out is always set, also on
 * error (crawl_page_errmsg tells; release it as below):
 * CRAWL_ARG when no page target fits, with a one-line reason that says how
 * many page targets there are and names the first three; CRAWL_BROWSER etc.
 * when CDP fails. */
crawl_code crawl_page_attach(cdp_client *c, const crawl_page_opts *o, const crawl_attach_opts *sel,
                             crawl_page **out);
/* Release a page without closing its tab: the change observer is switched
 * off in every frame of the current document, the session detached (which
 * drops its bindings and scripts for new documents), p freed. For an attached
 * page use this, not crawl_page_close (which would leave the session attached
 * until the client is freed; it never closes an attached tab). Also works for
 * a page from crawl_page_open, whose tab then stays open. NULL is a no-op. */
void crawl_page_detach(crawl_page *p);
/* Navigate and wait for load (bounded) and settle. */
crawl_code crawl_page_goto(crawl_page *p, const char *url);
/* Wait for network and DOM quiet, at most settle_max_ms. Returns CRAWL_OK
 * also when the cap was hit. crawl_page_settled() is 0 then, and also after
 * the last load or settle stopped a navigation loop or terminated a script
 * that did not yield. */
crawl_code crawl_page_settle(crawl_page *p);
int crawl_page_settled(const crawl_page *p);
/* 1 when the page settled on evidence (no timer, animation frame, idle
 * callback or running animation pending, no request in flight) and nothing
 * happened since: what is on screen is not moving, so an element's box needs
 * no second look two animation frames later. */
int crawl_page_still(const crawl_page *p);
/* Capture the current state into a new graph (caller frees). */
crawl_code crawl_page_capture(crawl_page *p, const pg_options *o, pg_graph **out);
/* Patched captures (UIAP_CAPTURE_PATCH=1, docs/performance.md): how many
 * were made, how many were checked against a full capture, and how many of
 * those differed (page_patch.c). */
void crawl_page_patch_counts(const crawl_page *p, unsigned long *patched, unsigned long *verified, unsigned long *differ);
const char *crawl_page_errmsg(const crawl_page *p);
const char *crawl_page_session(const crawl_page *p);
cdp_client *crawl_page_client(const crawl_page *p);
/* JavaScript dialogs dismissed and popups closed since the page opened. */
int crawl_page_dialogs(const crawl_page *p);
int crawl_page_popups(const crawl_page *p);
/* Requests the write guard failed since the page opened; the last one's
 * "METHOD url (why)" (NULL if none). */
int crawl_page_blocked(const crawl_page *p, const char **last);
/* Of those, the writes (any method but GET/HEAD/OPTIONS) blocked while a
 * load (crawl_page_goto) ran, before any action: the page's own load
 * wanted to write, or sent a POST the guard could not read as a read. *last (may be NULL): the latest, as for crawl_page_blocked. */
int crawl_page_load_blocked(const crawl_page *p, const char **last);
/* That in one sentence for a person (NULL when nothing was): the latest
 * request with the guard's reason, how many more, and the --allow-read
 * entry that would let it through when it may be a read (never for a
 * GraphQL mutation). Caller frees. */
char *crawl_page_load_writes_text(const crawl_page *p);
/* Requests the guard let through as reads although not GET/HEAD/OPTIONS
 * (GraphQL queries, --allow-read: crawl_page_opts.allow_reads); *last (may
 * be NULL): the latest, "POST url (a GraphQL query Feed)", owned by p. */
int crawl_page_reads(const crawl_page *p, const char **last);
/* WebSockets the page tried to open after an action (refused by the
 * guard); *unguarded: opened after an action all the same (from a worker,
 * where the guard cannot refuse them); *frames: frames sent after an action
 * on connections opened before; *last: the last one's URL (NULL if none).
 * Pointers may be NULL. */
int crawl_page_websockets(const crawl_page *p, int *frames, int *unguarded, const char **last);
/* Load url as a fresh document (a same-document navigation is followed by a
 * reload), then settle. */
crawl_code crawl_page_load(crawl_page *p, const char *url);
/* HTTP status of the last top-frame document response (a redirect's
 * target's), 0 when none was seen. */
int crawl_page_status(const crawl_page *p);
/* Current URL of the top frame (as last reported), or NULL. */
const char *crawl_page_url(const crawl_page *p);
/* Click at a viewport point / press a key, with real input events. */
crawl_code crawl_page_click(crawl_page *p, double x, double y);
crawl_code crawl_page_key(crawl_page *p, const char *key);
/* Type text into the focused element (Input.insertText: input events, no keys). */
crawl_code crawl_page_insert_text(crawl_page *p, const char *text);
/* Screenshot of the viewport as PNG bytes (caller frees), with what the
 * graph withholds painted over in solid black (pg_graph.masks: sensitive
 * elements and text, closed shadow roots, frames of other origins, in
 * every frame). The boxes are those of g -- the capture the screenshot
 * goes with; NULL: one is taken first -- and of a capture taken right
 * after the screenshot (with o, the run's bridges; NULL: none), so that
 * what moved in between is covered at both places. Fails closed: when a
 * mask cannot be made or applied (a capture fails, too many boxes, a PNG
 * this cannot read), no PNG, CRAWL_CAPTURE or the capture's error, and
 * crawl_page_errmsg says why. */
crawl_code crawl_page_screenshot(crawl_page *p, const pg_graph *g, const pg_options *o, unsigned char **png,
                                 size_t *len);
void crawl_page_close(crawl_page *p);

/* ---- discovery run ---------------------------------------------------------- */
#include "pol.h"

/* ---- one decision, written once: a tab's guard, its secrets (snapshot.c) ---- */
/* Whether a tab opens behind the write guard (crawl_page_opts.block_writes),
 * for every tool that opens or attaches one (crawl, mcp, snapshot, observe,
 * listen): yes, unless pol is sandbox_write with allow_destructive_actions
 * (the one mode that may write), or allow_writes (the user lifted it for
 * this tab: observe --allow-writes, or a tab another tool drives that
 * observe --connect attaches to). pol NULL: a tool that only reads
 * (snapshot, observe, listen's web profile), as observe_only. */
int crawl_guard_for_mode(const pol_policy *pol, int allow_writes);

/* A capture of p for a tool to publish (snapshot, observe, listen, mcp),
 * through the tab's secret list: the values of the session the tab opened
 * with (crawl_page_opts.session: cookies, localStorage, headers), every
 * value a capture of the tab redacted before (a password field's value that
 * the page shows elsewhere later), and with go->redact_pii the personal
 * values and pg_pii_mask. A run or mcp session that shares one list among
 * its tabs hands it to each tab (crawl__page_use_secrets). *g (may be NULL):
 * the graph (caller frees); *json (may be NULL): its PageGraph JSON,
 * scrubbed (caller frees). */
crawl_code crawl_page_snapshot(crawl_page *p, const pg_options *go, pg_graph **g, cJSON **json);
/* text with p's secrets replaced by "[redacted]": a new string (caller
 * frees), for what a tool prints beside the graph (text, envelopes). */
char *crawl_page_scrub(const crawl_page *p, const char *text);
/* The tab's secret list (borrowed; for crawl__log_secrets while p is open). */
struct crawl__secrets *crawl_page_secrets(const crawl_page *p);
/* A new secret list for a tab, a run or a tool's session: the session's
 * values (may be NULL) and, with redact_pii, pg_pii_mask. Free with
 * crawl__secrets_free. */
struct crawl__secrets *crawl__secrets_for(const crawl_session *session, int redact_pii);

typedef struct crawl_budget {
  long max_states;            /* 0: 200 */
  long max_transitions;       /* 0: 2000 */
  long max_depth;             /* 0: 12 */
  long max_runtime_ms;        /* 0: 600000 */
  long max_per_route;         /* 0: no limit */
} crawl_budget;

typedef struct crawl_progress {
  const char *run_id;
  const char *status;         /* DiscoveryRunStatus */
  long states, transitions, frontier, decisions; /* decisions -1: not known (crawl --workers' parent) */
  long elapsed_ms;
  const char *route;          /* current route key */
} crawl_progress;

/* ---- watching a shared run (crawl --workers' progress line) ---- */
/* A connection to the shared frontier of run_id at frontier (a --frontier
 * URL); NULL with one line in err when Redis does not answer. */
typedef struct crawl_watch crawl_watch;
crawl_watch *crawl_watch_open(const char *frontier, const char *run_id, char *err, size_t errlen);
/* The run's states and transitions so far into p->states, p->transitions
 * (the other fields untouched): 0, or -1 when Redis did not answer. */
int crawl_watch_read(crawl_watch *w, crawl_progress *p);
void crawl_watch_close(crawl_watch *w);

typedef struct crawl_opts {
  const char *out_dir;        /* required; created if missing */
  const char *const *urls;    /* seed URLs (NULL-terminated) */
  const cJSON *plan;          /* optional DiscoveryPlanPayload or uiap.discovery.plan message */
  pol_policy policy;          /* mode and allow flags */
  crawl_budget budget;
  const char *const *allow_origins; /* extra origins in scope (NULL-terminated) */
  const char *const *allow_beacons; /* path prefixes (crawl_page_opts.allow_beacons) */
  const char *const *allow_reads; /* crawl_page_opts.allow_reads; the plan's
                                 environment.metadata.allowRead are added */
  const char *seed_query;     /* "a=1&b=2" added to every seed URL (feature flags), or NULL */
  int width, height;          /* viewport; 0: 1280x800 */
  const char *locale;
  const char *user_agent;     /* crawl_page_opts.user_agent */
  int screenshots;            /* write screenshots/<stateId>.png */
  int redact_pii;             /* --redact pii: personal data masked in every graph
                                 (pg_options.redact_pii) and in everything written
                                 (journal, state files, logs: pg_pii_mask) */
  pg_fp_policy fp;
  const char *const *bridge_origins; /* cross-origin frames published as bridged (NULL-terminated) */
  int allow_bridges;          /* also frames that declare <meta name="uiap-bridge"> (pg_options) */
  int settle_quiet_ms;        /* 0: 200 */
  int settle_max_ms;          /* 0: 3000 */
  int resume;                 /* continue the run journaled in out_dir */
  /* --baseline: last night's crawl directory, tonight's knowledge
   * (docs/nightly.md); NULL: none. A directory that cannot be used makes
   * crawl_run return CRAWL_BASELINE before anything is written. reverify:
   * the percent of carried transitions executed again (0: 10; -1: none). */
  const char *baseline;
  int reverify;
  const crawl_session *session; /* signed in: cookies, localStorage, headers
                                 (crawl_page_opts.session); its values are
                                 secrets of the run; authMode "session_reuse" */
  const struct crawl__secrets *secrets; /* the caller's secrets, also the run's
                                 (the CLI: credentials in the URLs on its
                                 command line, docs/safety.md); NULL: none */
  int session_reuse;          /* authMode "session_reuse" without a session
                                 (a reused browser profile, --user-data-dir) */
  const crawl_principal *principals; /* explore as each in turn (its own browser
                                 context, its recipe or session; session above
                                 is then not used), then probe every route
                                 each reached as the others (DIR/access.json);
                                 docs/principals.md */
  size_t nprincipals;
  /* A frontier shared with other workers on Redis (docs/scale.md):
   * redis://HOST:PORT/DB or unix:///PATH; NULL: this process alone. All
   * workers of a run give the same run_id (also the journal's runId when
   * set); leases last lease_ms (0: 30000). */
  const char *frontier;
  const char *run_id;
  int lease_ms;
  /* The run's key for the shared frontier, the same on every worker and
   * never stored in Redis (UIAP_FRONTIER_KEY; crawl --workers makes one):
   * what authenticates the records other workers wrote (docs/scale.md).
   * Required with frontier: 16 to 256 bytes. */
  const char *frontier_key;
  /* A fresh browser when the old one died: free *c, start another, store it
   * in *c. NULL: no restarts. At most max_restarts (0: 3) per run. */
  cdp_code (*relaunch)(void *ud, cdp_client **c);
  void *relaunch_ud;
  int max_restarts;
  int reconnect;              /* the browser is a --connect endpoint (a pool):
                                 a dead connection is a dropped socket, which
                                 relaunch reconnects; a journal note, no review
                                 item; counted against max_reconnects (0: 10
                                 per run; negative: none), not max_restarts */
  int max_reconnects;
  volatile sig_atomic_t *cancel;
  /* While *pause is nonzero the run waits (its browser and frontier kept)
   * before its next step, checking cancel every 50 ms; NULL: never. The
   * time paused counts against maxRuntimeMs. */
  volatile sig_atomic_t *pause;
  void (*progress)(void *ud, const crawl_progress *p);
  void *progress_ud;
  /* non-NULL: *package gets the package the run wrote (crawl_package_make),
   * for the reports and the verdict; the caller frees it (crawl_package_free) */
  crawl_package **package;
} crawl_opts;

typedef struct crawl_summary {
  long states, transitions, self_loops, decisions, failures, reviews;
  const char *stopped_by;     /* static: "frontier", "maxStates", ..., "signal", "error" */
  const char *status;         /* completed | cancelled | failed */
  char error[512];
} crawl_summary;

/* Explore from the seeds and write DIR/journal.jsonl, DIR/states/, and
 * DIR/package.json. Returns CRAWL_OK when a package was written (also when a
 * budget or a signal stopped the run: see sum->stopped_by). */
crawl_code crawl_run(cdp_client *c, const crawl_opts *o, crawl_summary *sum);

/* ---- discovery plan (--plan) -------------------------------------------- */
/* Why a plan was refused: one line, no newline. */
typedef struct crawl_plan_error {
  int line, column;           /* not JSON: where it stops being JSON (1-based,
                                 columns in bytes); 0 when it is JSON */
  char msg[320];              /* "not valid JSON (line 3, column 5)", or a JSON
                                 path and what is wrong with it:
                                 "/seeds/2/kind must be a string" */
} crawl_plan_error;

/* Parse and check a plan: a DiscoveryPlanPayload ({environment, seeds}) or a
 * whole uiap.discovery.plan message (the payload is read). text is
 * NUL-terminated; anything after the JSON value is ignored. Checked:
 * environment is an object with string environmentId and baseUrl, seeds (if
 * any) an array of objects with a string kind, budgets (if any) are numbers
 * >= 1, safety.defaultMode (if any) a known mode.
 * Then it applies: each environment.budgets value fills the budget that is
 * still 0 in *budget (a value set from a flag wins), safety.defaultMode sets
 * policy->mode unless keep_mode (--mode was given), and the four
 * safety.allow* flags set policy's (absent = false).
 * CRAWL_OK: *plan is the whole parsed document (the caller frees it with
 * cJSON_Delete, after the run when crawl_opts.plan points to it).
 * CRAWL_ARG: *plan is NULL, *budget and *policy are unchanged, and *err (may
 * be NULL) says why. */
crawl_code crawl_plan_parse(const char *text, int keep_mode, crawl_budget *budget,
                            pol_policy *policy, cJSON **plan, crawl_plan_error *err);

/* The plan's featureFlags, applied where environment.metadata.featureFlagDelivery
 * says how: {"flag": {"cookie": NAME} | {"localStorage": KEY} | {"query": PARAM}}.
 * A cookie (host-only, path /) and a localStorage item go to the baseUrl's
 * origin through *s (public values: no secrets, no sign-in); query
 * parameters are appended to query (cap bytes, "a=1&b=2"). Every flag is
 * recorded in environment.metadata.featureFlagsApplied ({"flag": "cookie
 * NAME" | "localStorage KEY" | "query PARAM" | "recorded only"}) of plan.
 * CRAWL_ARG with *err when a delivery is malformed. */
crawl_code crawl_plan_feature_flags(cJSON *plan, crawl_session *s, char *query, size_t cap,
                                    crawl_plan_error *err);

/* 1: s is an --allow-read entry: "METHOD /path-prefix" (an upper-case
 * method, one space, a path from "/", no spaces or control characters) or
 * "graphql:Name" (a GraphQL operation name). */
int crawl_read_entry_ok(const char *s);
/* 1: s can be a User-Agent (--user-agent): not empty, no control character. */
int crawl_user_agent_ok(const char *s);

/* The plan's environment.metadata.allowRead (an array of such entries)
 * appended to out[*n..max) (strings inside plan; *n advanced). CRAWL_ARG
 * with *err (a JSON path) when it is no array of valid entries or more
 * than max in all; crawl_plan_parse refuses such a plan. */
crawl_code crawl_plan_allow_read(const cJSON *plan, const char **out, int *n, int max, crawl_plan_error *err);

/* The nightly options of a parsed plan: environment.metadata.baseline (a
 * directory, into *dir when it is NULL: a string inside plan) and
 * .reverify (a percent, into *reverify when it is 0; 0% as -1). CRAWL_ARG
 * with *err when either is malformed. docs/nightly.md. */
crawl_code crawl_plan_baseline(const cJSON *plan, const char **dir, int *reverify, crawl_plan_error *err);

/* The browser a parsed plan asks for: environment.viewport fills
 * width and height when the width is 0, environment.locale (a language tag such
 * as "de-DE") fills *locale when it is NULL (a string inside plan). CRAWL_ARG
 * with *err when either is malformed. */
crawl_code crawl_plan_browser(const cJSON *plan, int *width, int *height, const char **locale,
                              crawl_plan_error *err);

/* ---- MCP server (mcp.c, mcp_tools.c; docs/mcp.md) ------------------------- */
/* The Model Context Protocol over one tab: an agent navigates, reads a
 * compact snapshot marked with the safety policy's decisions, acts through
 * the crawler's own decision and click, reads what changed, and runs a
 * bounded crawl. The library handles one JSON-RPC message at a time; the
 * caller owns the transport (stdio: cmd_mcp.c). Every reply passes through
 * the session's redaction. Zero-initialise the options. */
typedef struct crawl_mcp crawl_mcp;
typedef struct crawl_mcp_opts {
  pol_policy policy;          /* --mode; the tab is behind the write guard unless
                                 sandbox_write with destructive actions allowed */
  const char *const *allow_origins; /* besides the first URL's origin (NULL-terminated;
                                 borrowed while the server lives) */
  const char *const *allow_reads; /* crawl_page_opts.allow_reads, for the tab and
                                 the crawl tool's crawls (borrowed) */
  const char *output_root;    /* crawl packages go into fresh directories under it;
                                 NULL: $TMPDIR, else /tmp */
  int width, height;          /* viewport; 0: 1280x800 */
  const char *version;        /* serverInfo.version */
  /* The browser, started on the first tool call that needs it: 0 with *c
   * set (the server frees it), or nonzero with why in err. */
  int (*browser)(void *ud, cdp_client **c, char *err, size_t errlen);
  void *browser_ud;
  int redact_pii;             /* --redact pii: personal data masked in every graph
                                 and reply, and in the crawls the crawl tool runs */
} crawl_mcp_opts;

crawl_mcp *crawl_mcp_new(const crawl_mcp_opts *o);
/* One message (len bytes, a JSON-RPC request or notification) in; the
 * reply (one line of JSON, no newline; caller frees) or NULL when none is
 * due (a notification). Malformed input gets an error reply, never an
 * abort. */
char *crawl_mcp_handle(crawl_mcp *m, const char *msg, size_t len);
/* Closes the tab and the browser. NULL is a no-op. */
void crawl_mcp_free(crawl_mcp *m);

/* ---- observe ---- */
#include <stdio.h>

/* Change detection on an open page (page.c, page_settle.c): a counter of the DOM
 * mutations the page's MutationObserver reported, loads, and navigations of
 * any frame (same-document ones too). crawl_page_wait_change pumps events
 * until the counter moves (CRAWL_OK) or timeout_ms passes (CRAWL_TIMEOUT). */
unsigned long crawl_page_changes(const crawl_page *p);
crawl_code crawl_page_wait_change(crawl_page *p, int timeout_ms);

/* WebSignalKind, a bit each (crawl_observe_opts.signals). */
#define CRAWL_SIGNAL_KINDS(X)                                                  \
  X(ROUTE_CHANGED, "route.changed") X(TOAST_SHOWN, "toast.shown")              \
  X(STATUS_CHANGED, "status.changed") X(VALIDATION_CHANGED, "validation.changed") \
  X(DIALOG_OPENED, "dialog.opened") X(DIALOG_CLOSED, "dialog.closed")          \
  X(SUBMISSION_STARTED, "submission.started")                                  \
  X(SUBMISSION_FINISHED, "submission.finished")
typedef enum {
#define CRAWL__SKE(name, str) CRAWL_SIG_##name,
  CRAWL_SIGNAL_KINDS(CRAWL__SKE)
#undef CRAWL__SKE
  CRAWL_SIG__COUNT
} crawl_signal_kind;
const char *crawl_signal_kind_name(crawl_signal_kind k);
/* "route.changed,toast.shown" or "all" into bits; -1 on an unknown name. */
int crawl_signal_kinds_parse(const char *csv, unsigned *out);

typedef enum { CRAWL_OBSERVE_SNAPSHOT_DELTA, CRAWL_OBSERVE_DELTA_ONLY } crawl_observe_mode;

/* Zero means the default. */
typedef struct crawl_observe_opts {
  const char *url;              /* load this first; NULL: observe `page` as it is */
  crawl_page *page;             /* observe this open page (left open); NULL: open a tab */
  crawl_page_opts page_opts;    /* for the tab it opens */
  crawl_observe_mode mode;      /* snapshot+delta: a web.state.snapshot comes first */
  pg_options graph;             /* what the graphs publish; .revision is ignored */
  int throttle_ms;              /* at most one capture per this; 0: 100, < 0: none */
  long duration_ms;             /* 0: until cancelled, the page closes, or the script ends */
  unsigned signals;             /* kinds also printed at once as web.signal (bit per
                                   crawl_signal_kind); every signal goes into the
                                   deltas whatever this says */
  const cJSON *script;          /* steps to drive the page (docs/observe.md), or NULL;
                                   check it first with crawl_observe_script_check */
  const char *subscription_id;  /* NULL: generated */
  const char *source_id;        /* envelope source.id; NULL: "uiap-crawl" */
  volatile sig_atomic_t *cancel;  /* a cancelled run lifts the client's cancel flag
                                   (cdp_client_set_cancel(c, NULL)) to take its
                                   scripts out of the page; set it again if needed */
  /* called after every capture with the consumer's graph (borrowed) and
   * its revision; published: this capture was published (the snapshot, or
   * a delta), else it showed nothing new and confirms the graph */
  void (*on_capture)(void *ud, unsigned long long revision, const cJSON *graph, int published);
  void *on_capture_ud;
} crawl_observe_opts;

typedef struct crawl_observe_stats {
  long messages, deltas, signals, ops;
  long captures, unchanged;     /* captures, and those that showed no change */
  long long capture_ms, elapsed_ms;
  const char *stopped_by;       /* static: duration | signal | pageClosed | crashed | script | error */
  char error[512];
} crawl_observe_stats;

/* One message of an observation: a UIAP event in the envelope of
 * core-decisions.md, its secrets already scrubbed (borrowed: valid during
 * the call). 0, or -1 when it could not be delivered (the run then stops:
 * CRAWL_IO). cmd_observe.c writes each as one JSON Line. */
typedef int (*crawl_observe_msg_cb)(void *ud, const cJSON *msg);

/* Observe a page and hand UIAP messages to on_msg (ud passed through):
 * web.observe.started {subscriptionId,
 * initialRevision}, the snapshot (snapshot+delta mode), web.state.delta
 * {revision, baseRevision = the previous one, ops, signals} whenever a
 * capture differs from the last published graph or signals are pending,
 * web.signal for the kinds asked for, and web.observe.stopped {subscriptionId,
 * reason} at the end: duration over (after a last capture), *cancel set, the
 * page closed or crashed, or the script done and the page quiet. Returns
 * CRAWL_OK for those ends but cancel (CRAWL_CANCELLED) and a crash
 * (CRAWL_CRASHED); on an error (a failed script step: CRAWL_TIMEOUT,
 * CRAWL_NAVIGATE, CRAWL_ARG) the stopped message says "error" and st->error
 * the reason. st may be NULL. */
crawl_code crawl_observe_run(cdp_client *c, const crawl_observe_opts *o, crawl_observe_msg_cb on_msg, void *ud,
                             crawl_observe_stats *st);

/* 0 when script is an array of valid steps; else -1 and one line in err. */
int crawl_observe_script_check(const cJSON *script, char *err, size_t errlen);

/* ---- seed kinds (seeds.c) ------------------------------------------------------ */
/* What a crawl or a listen session does with a kind of seed. */
typedef enum {
  CRAWL_SEED_REFUSED = 0,      /* not served: refused, naming the kinds that are */
  CRAWL_SEED_PAGE,             /* a page to load; its origin joins the run's scope */
  CRAWL_SEED_PAGE_BASE,        /* a page, on environment.baseUrl's origin only */
  CRAWL_SEED_PAGE_ALLOWED,     /* a page (a URL, or a path from "/") on the run's origins only */
  CRAWL_SEED_CONTROL,          /* a control on the seed pages (menu label, data-uiap-action), driven first */
  CRAWL_SEED_PACKAGE,          /* resolved by the package against its workflow candidates */
} crawl_seed_use;

/* Who reads the seeds: crawl_run, or a listen session's plan check. */
typedef enum { CRAWL_SEEDS_RUN, CRAWL_SEEDS_LISTEN } crawl_seed_user;

typedef struct crawl_seed_kind {
  const char *kind;             /* "url", "route", "menu", "action", "workflow", "documentation" */
  const char *field;            /* the member that names its target */
  crawl_seed_use use[2];       /* by crawl_seed_user */
} crawl_seed_kind;

/* The table's row of kind (static), or NULL for an unknown kind or NULL. */
const crawl_seed_kind *crawl_seed_kind_find(const char *kind);
/* What user does with seed sd (by its "kind"); CRAWL_SEED_REFUSED when unknown. */
crawl_seed_use crawl_seed_use_of(const cJSON *sd, crawl_seed_user user);

/* What crawl_seed_problem checks a seed against. */
typedef struct crawl_seed_check {
  crawl_seed_user user;
  const char *base;             /* PAGE_BASE: environment.baseUrl */
  const char *url;              /* PAGE_ALLOWED: the seed's page as the run resolved it (NULL: none) */
  const char *const *allowed;   /* PAGE_ALLOWED: the run's origins, NULL-terminated */
} crawl_seed_check;

/* Why seed sd (a plan's seed object) cannot be used by c->user (one line
 * into buf, n bytes; returns buf), or NULL when it can: a kind it does not
 * serve, a missing target, a page outside the origins its use allows. */
const char *crawl_seed_problem(const cJSON *sd, const crawl_seed_check *c, char *buf, size_t n);

/* ---- resume and the output directory (explore_resume.c, outdir.c) ---------------- */
/* The plan of the run journaled in dir, for --resume without seeds or a
 * plan: the environment and seeds of its first record (a "run" record), as
 * a DiscoveryPlanPayload's JSON text (*text; caller frees), read as a plan
 * is (crawl_plan_parse). CRAWL_OK; else *text is NULL and err has one line:
 * CRAWL_ARG when dir has no journal or it does not start with a run record. */
crawl_code crawl_resume_plan(const char *dir, char **text, char *err, size_t errlen);

/* dir made ready for a run: one that holds another run's journal is refused
 * unless force (then the files a run owns are removed: crawl_out_clear) or
 * resume; created when missing (*made: 1 when this call created it);
 * writable. CRAWL_OK, or CRAWL_IO with one line in err. */
crawl_code crawl_out_prepare(const char *dir, int resume, int force, int *made, char *err, size_t errlen);
/* The files and folders a run owns in dir (journal, states, screenshots,
 * accessibility, package and reports, access.json, reviewed.json,
 * workers/) removed; anything else stays. 0, or -1 when one could not be. */
int crawl_out_clear(const char *dir);
/* path and everything below it, as rm -rf: symbolic links are removed,
 * never followed (a directory crawl_out_prepare made). Refuses "" and "/".
 * 0 or -1. */
int crawl_out_remove(const char *path);

/* ---- the browser behind a run (browser.c) ------------------------------------------ */
/* Connect to the browser (pool) at url, waiting while it answers HTTP 429
 * or 503 for up to timeout_ms overall (0: 60000); previous: the dead
 * connection, on a reconnect (its tabs still open are closed). A warning
 * when the pool made the run wait. cancel (may be NULL): a wait ends early,
 * and the client's calls too. CDP_OK with *c (caller frees), or a code with
 * one line in err. */
cdp_code crawl_pool_connect(const char *url, long timeout_ms, const cdp_client *previous,
                            volatile sig_atomic_t *cancel, cdp_client **c, char *err, size_t errlen);

/* What crawl_relaunch needs: the caller's client pointer, which follows the
 * run's (the old client is freed by crawl_relaunch, so it is NULL after a
 * failure, never the freed one), how to start a browser or where to
 * reconnect, and why the last relaunch failed. Zero-initialise. */
typedef struct crawl_relaunch_ctx {
  cdp_client **c;
  cdp_launch_opts lo;           /* a new browser like the first one */
  const char *connect;          /* or a new connection to this pool (crawl_pool_connect) */
  long connect_timeout_ms;
  volatile sig_atomic_t *cancel;
  char err[1024];               /* why the last relaunch failed ("" when none did) */
} crawl_relaunch_ctx;

/* crawl_opts.relaunch with a crawl_relaunch_ctx as ud: a new browser after
 * the old one died, or a new connection to the pool after it dropped. */
cdp_code crawl_relaunch(void *ud, cdp_client **c);

/* ---- crawl --workers N on one machine (workers.c) ------------------------------------ */
#include <sys/types.h>
/* Start argv (execvp of exe) as a child with stdin and stdout on /dev/null
 * and stderr into the file log. The child gets SIGTERM when the parent dies
 * (SIGKILL, OOM): a worker then writes its package and closes its browser,
 * the private redis-server goes; none is left behind. Its pid (-1: fork
 * failed); a child that cannot exec exits 127 with a line in log. */
pid_t crawl_spawn(char *const *argv, const char *exe, const char *log);

/* The workers' private redis-server. */
typedef struct crawl_workers_redis {
  pid_t pid;
  char sockdir[64];             /* /tmp/uiap-redis-XXXXXX: a unix socket path is short */
  char sock[128];
  char url[160];                /* unix://SOCK: the workers' --frontier */
} crawl_workers_redis;

/* A private redis-server on a unix socket (no port, no persistence), its
 * log in dir/redis.log (dir created, mode 0700), answering PING within 5 s.
 * CRAWL_OK with *wr filled; else nothing is left running, and one line in
 * err: CRAWL_IO (dir or the socket's directory), CRAWL_FRONTIER (no
 * redis-server, or it did not answer). */
crawl_code crawl_workers_redis_start(const char *dir, crawl_workers_redis *wr, char *err, size_t errlen);
/* The server stopped and waited for, its socket and directory removed. */
void crawl_workers_redis_stop(crawl_workers_redis *wr);

/* The run in N processes: a private redis-server (above), a fresh frontier
 * key in UIAP_FRONTIER_KEY of this process (which the workers inherit;
 * never in argv, never in Redis), N workers of exe sharing its frontier,
 * each into OUT/workers/wK (its stderr in OUT/workers/wK.log), then one
 * package merged into OUT (crawl_merge). The exit statuses are the
 * program's own (the command line's): the run judges them only through
 * the sets given here. */
#define CRAWL_WORKERS_MAX 16
typedef struct crawl_workers_opts {
  int n;                          /* 1..CRAWL_WORKERS_MAX */
  const char *out;                /* OUT */
  const char *exe;                /* the program the workers run (execvp) */
  const char *const *argv;        /* a worker's command line, NULL-terminated: argv[0],
                                     the command, the seeds, the options; the run adds
                                     --frontier URL --run-id ID --verbose|--quiet -o OUT/workers/wK */
  const char *run_id;             /* the run all workers share */
  int verbose;                    /* the workers log in detail (--verbose, else --quiet),
                                     and after the merge each one's time per action is
                                     logged (crawl_log, INFO) */
  volatile sig_atomic_t *cancel;  /* non-zero: the signal it holds goes on to the workers
                                     (each writes its package), the run ends "cancelled";
                                     NULL: never */
  /* while the workers run, every 500 ms: the run's counts (status, states,
     transitions, elapsed_ms; decisions -1) from the shared frontier; may be NULL */
  void (*progress)(void *ud, const crawl_progress *p);
  void *progress_ud;
  const int *fatal;               /* a worker exiting with one of these fails the run */
  int nfatal;                     /* though the others went on */
  const int *cancelled;           /* how a worker ends on the signal passed on: */
  int ncancelled;                 /* no failure while *cancel */
  int killed;                     /* the status told for a worker a signal killed */
} crawl_workers_opts;

/* How the workers ended (docs/scale.md, "When a worker fails"). */
typedef struct crawl_worker_end {
  int code;                       /* its exit status (opts.killed: a signal killed it) */
  char why[512];                  /* the last line of its log without "uiap-crawl: " (a
                                     failed worker's own error line), or the signal */
} crawl_worker_end;
typedef struct crawl_workers_result {
  crawl_worker_end worker[CRAWL_WORKERS_MAX]; /* worker k (0-based) */
  int failed;                     /* workers that failed (not on the signal passed on) */
  int code;                       /* 0 leaves the verdict to the merged package; else every
                                     worker failed, or one with a fatal status: the run fails
                                     as that worker did */
  char why[512];                  /* then: that worker's line */
} crawl_workers_result;

/* The run of o. CRAWL_OK when the workers' directories were merged into
 * OUT, their counts in *sum (sum->error: the workers that failed, one
 * line; sum->status "cancelled" after the signal); else sum->error says
 * why: CRAWL_ARG (n out of range, or no exe, argv, out or run_id),
 * CRAWL_FRONTIER (redis-server does not start), CRAWL_IO, or the
 * merge's code (the workers' logs stay in OUT/workers). *res: how the
 * workers ended, filled whenever they ran (zero otherwise). Prints nothing
 * (opts.verbose: the time per action goes to crawl_log). */
crawl_code crawl_workers_run(const crawl_workers_opts *o, crawl_summary *sum, crawl_workers_result *res);
/* --resume OUT of a --workers run that stopped before its merge (its parent
 * was killed): without OUT/journal.jsonl, the journals in OUT/workers/wK
 * merged into OUT, to be resumed as one process. The number merged (0:
 * nothing to do), or -1 with one line in err. */
int crawl_workers_gather(const char *out, char *err, size_t errlen);

#endif

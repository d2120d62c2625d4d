/* run_int.h -- what the live side's files share and nothing else sees: the
 * JavaScript they inject into pages. Internal to crawler/run/; never
 * included from outside it. */
#ifndef UIAP_RUN_INT_H
#define UIAP_RUN_INT_H

#include <stddef.h>

#include "crawl.h"
#include "crawl_util.h"

/* ---- page scripts --------------------------------------------------------------- */
/* Each is crawler/run/js/NAME.js, compiled in at build time (CMakeLists.txt,
 * js/embed_js.cmake) as crawl__js_NAME: NUL-terminated, byte for byte the
 * file without its final newline. Static, never freed. A template is a printf
 * format; its arguments are noted. */
#define CRAWL__PAGE_SCRIPTS(X)                                                 \
  X(change_observer)          /* page_open.c: mutations, dialogs answered; %s x4: binding; keeps the page's pending short timers, frames and animations (BINDING__pending) */ \
  X(change_observer_attached) /* page_open.c: mutations only, with an off switch; %s: binding */ \
  X(change_observer_off)      /* page_open.c: the off switch; %s x2: binding */ \
  X(navigation_loop_guard)    /* page_settle.c: cancels the page's next navigation */ \
  X(selection)                /* page_capture.c: usel(), for the three below (not a script) */ \
  X(selection_anchor)         /* page_capture.c: %s: selection */                    \
  X(selection_focus)          /* page_capture.c: %s: selection */                    \
  X(page_facts)               /* page_capture.c: %s: selection */                    \
  X(shadow_hosts)             /* page_capture.c */                              \
  X(active_element)           /* page_capture.c */                              \
  X(bridge_meta)              /* page_bridge.c: %s: PG_BRIDGE_META */           \
  X(select_options)           /* act.c: a <select>'s options (function) */      \
  X(text_field)               /* act_text.c: a text field's form, landmark and nearby items (function) */ \
  X(two_animation_frames)     /* explore.c: a promise, two frames on */         \
  X(live_reporter)            /* observe.c: __B__: binding */                   \
  X(live_reporter_element)    /* observe.c: %s: binding, %d: element key */     \
  X(live_reporter_off)        /* observe.c: %s x2: binding */                   \
  X(live_reporter_baseline)   /* observe.c: %s x2: binding */                   \
  X(select_contents)          /* observe.c: selects a field's text (function) */ \
  X(page_guard)               /* page_open.c, page_guard.c: %s: binding, %d: allow WebSockets; refuses window.open, and WebSockets after input */ \
  X(worker_guard)             /* page_guard.c: %s: binding; a worker started after an action: refuses WebSockets */ \
  X(form_fields)              /* act_form.c: the fields of a submit control's form (function) */ \
  X(form_fill)                /* act_form.c: sets them to [[index, value], ...] (function) */ \
  X(form_validity)            /* act_form.c: the fields the browser holds invalid (function) */ \
  X(page_seal)                /* page_seal.c: %s: binding, %s: the switch; refuses sends while sealed */ \
  X(page_seal_on)             /* page_seal.c: %s: the switch, %d: on */ \
  X(storage_snapshot)         /* page_seal.c: a promise of the client storage as JSON text */ \
  X(storage_restore)          /* page_seal.c: %s: a snapshot; puts it back, a promise of what could not be */ \
  X(capture_patch)            /* page_patch.c: the patched capture's witness: (script)('base'|'diff') */

#define CRAWL__PAGE_SCRIPT_DECL(name)                                          \
  extern const unsigned char crawl__js_##name[];                               \
  extern const size_t crawl__js_##name##_len;
CRAWL__PAGE_SCRIPTS(CRAWL__PAGE_SCRIPT_DECL)
#undef CRAWL__PAGE_SCRIPT_DECL

/* The script NAME as a C string. */
#define CRAWL__JS(name) ((const char *)crawl__js_##name)

/* js with every __SENS__ replaced by PG_SENSITIVE_SELECTOR as a JavaScript
 * string literal: the page scripts find sensitive elements by the graph's
 * own rules (selection.js, live_reporter.js). Caller frees. (page_capture.c) */
char *crawl__js_sensitive(const char *js);

/* ---- what the tab withholds (page_capture.c, mask.c) ------------------------------- */
/* The run's secret list (crawl_secrets.h), borrowed while the page lives,
 * instead of the tab's own (crawl_page_secrets): every capture adds the
 * values its graph redacted (pg_graph.secrets). NULL: the tab's own again. */
struct crawl__secrets;
void crawl__page_use_secrets(crawl_page *p, struct crawl__secrets *s);
/* The keys of the fields the tab found sensitive (pg_sensitive_field.key;
 * borrowed, valid while p lives and captures nothing), and the same handed
 * to a tab that replaces it (copied): the fields of a page stay sensitive
 * across tabs of one run (node ids do not: they are the old renderer's). */
size_t crawl__page_sensitive_keys(const crawl_page *p, const char *const **keys);
void crawl__page_remember_keys(crawl_page *p, const char *const *keys, size_t n);

/* png (len bytes, Chromium's PNG of a viewport of vw x vh CSS px) with
 * every rect (CSS px, viewport coordinates) painted solid black, widened to
 * whole pixels and one more on each side: a new PNG in *out (*outlen
 * bytes; caller frees). 0, or -1 with one line in err when the PNG cannot
 * be read or written (then nothing is in *out). */
int crawl__png_mask(const unsigned char *png, size_t len, const pg_rect *rects, size_t n, double vw, double vh,
                    unsigned char **out, size_t *outlen, char *err, size_t errlen);

/* ---- the pointer (page_input.c) ---------------------------------------------------- */
/* The pointer moved to viewport point (x, y) with nothing pressed (hover),
 * then two animation frames (page_input.c). */
crawl_code crawl__page_hover(crawl_page *p, double x, double y);

/* Elements that covered a target for the whole wait of act.c's hit test
 * (a modal's backdrop, an overlay): the next target they cover fails at
 * once. Node ids are never reused, so a new document's overlay (a loading
 * screen shown again after a reload) is waited for again. */
int crawl__page_blocker_known(const crawl_page *p, int backend);
void crawl__page_blocker_note(crawl_page *p, int backend);

/* ---- login recipes (page_guard.c, page_input.c, login.c) ------------------------- */
/* Open the write guard for exactly one request: method to url (up to its
 * query), the submit of a login recipe; taken by the first request that
 * matches, then the guard is closed again. NULL, NULL: closed now. */
void crawl__page_allow_write(crawl_page *p, const char *method, const char *url);
/* The centre of node backend's first content quad, viewport CSS px
 * (DOM.getContentQuads; scroll it into view first). 0, or -1. */
int crawl__page_node_point(crawl_page *p, int backend, double *x, double *y);
/* ---- typing (page_input.c, act_text.c) -------------------------------------------- */
/* Most characters crawl__page_type_keys types. */
#define CRAWL__TYPE_MAX 48
/* Type text (UTF-8, its first CRAWL__TYPE_MAX characters) into the focused
 * field as a user does: keyDown and keyUp per character, so the page sees
 * keydown, keypress, input and keyup (a filter that listens to keyup
 * filters). Refuses on a failed guard, like every input. */
crawl_code crawl__page_type_keys(crawl_page *p, const char *text);
/* Press Enter with its text ("\r"): a key press that submits the focused
 * field's form (HTML implicit submission), unlike crawl_page_key("Enter"). */
crawl_code crawl__page_enter(crawl_page *p);
/* Documents the tab's top frame committed since it opened (its
 * Page.frameNavigated events; same-document navigations do not count): a
 * change across an action says the page it acted on is gone (page.c). */
int crawl__page_documents(const crawl_page *p);
/* Sign in on p with recipe l: its values join sec first, the cookies the
 * server set after it. Each step goes through crawl__act_perform under
 * policy (the sign-in page's origin and allowed in scope) as a recipe step.
 * CRAWL_OK when the page ended where the recipe says (success.urlPrefix,
 * else off the sign-in page); else a code and why. */
crawl_code crawl__login_run(crawl_page *p, const crawl_login *l, const pol_policy *policy, const char *const *allowed,
                            struct crawl__secrets *sec, char *why, size_t whylen);
/* 1 when url (up to its query) is the recipe's sign-in page, or g shows
 * every target of its steps that a capture alone can find (the sign-in
 * form where it was not) -- with a password field on the page when one of
 * them is found by its role and ordinal only (two text fields and a button
 * are no sign-in form without it) and when a step has a CSS hint only. */
int crawl__login_page(const crawl_login *l, const char *url, const pg_graph *g);
/* The element of g that step st targets, without the CSS hint: by its
 * stable id; else by role and accessible name (case-insensitive), in its
 * scope, the ordinal-th of them; else by role and ordinal, in its scope.
 * NULL: none. *how (may be NULL): "stableId", "role and name", "role and
 * ordinal". */
const pg_element *crawl__login_target(const pg_graph *g, const crawl_login_step *st, const char **how);

/* ---- access probing (access.c) ---------------------------------------------------- */
typedef enum { CRAWL__ACCESS_ABSENT, CRAWL__ACCESS_REACHED, CRAWL__ACCESS_DIRECT, CRAWL__ACCESS_DENIED } crawl__access;
const char *crawl__access_name(crawl__access a); /* "absent", "reached", ... */
/* What a route opened by URL showed: denied for an HTTP status >= 400, the
 * sign-in page, no capture (g NULL), the browser's error page, or a title
 * or heading that says so (forbidden, not allowed, ...); else direct. */
crawl__access crawl__access_classify(int status, int signin_page, const pg_graph *g);
/* The route key of access.json: url's path, without query and fragment. */
void crawl__access_route(const char *url, char *buf, size_t n);

#endif

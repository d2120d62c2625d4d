/* act.c -- one action, decided and performed: the policy's decision for
 * an action on an element (pol_classify + pol_decide, with the facts of the
 * element the policy reads), the element an action targets in a capture, and
 * the action done with real input: an actionable click (visible, enabled,
 * in view, stable, not obscured), a <select>'s option by arrow keys, text
 * typed after a click, Escape for a dialog. The discovery run (explore.c)
 * and the MCP server (mcp_tools.c) both come here, so they take the same
 * decision and the same click. */
#include "act.h"
#include "fill.h"
#include "run_int.h"
#include "crawl_strmap.h"
#include "pg_url.h"

#include <pthread.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the helpers below drive: the page, its client, and the capture
 * the target was found in. */
typedef struct act_ctx {
  crawl_page *page;
  cdp_client *c;
  const pg_graph *g;
} act_ctx;

const char *crawl__act_for(const pg_element *e) {
  const char *role = e->role;
  if (!strcmp(role, "link")) return "nav.navigate";
  if (!strcmp(role, "checkbox") || !strcmp(role, "switch") || !strcmp(role, "menuitemcheckbox")) return "ui.toggle";
  if (!strcmp(role, "radio") || !strcmp(role, "menuitemradio") || !strcmp(role, "option")) return "ui.choose";
  /* choosing a value is form entry, not navigation of the UI: comboboxes,
   * listboxes and sliders are not driven (yet); opening a native <select>
   * popup is not an app state */
  if (!strcmp(role, "combobox") || !strcmp(role, "listbox") || !strcmp(role, "slider")) return NULL;
  if (pg_state_has(&e->state, PG_ST_EXPANDED))
    return pg_state_is(&e->state, PG_ST_EXPANDED) ? "ui.collapse" : "ui.expand";
  if (!strcmp(role, "textbox") || !strcmp(role, "searchbox") || !strcmp(role, "spinbutton")) return "ui.enterText";
  return "ui.activate";
}
static pthread_mutex_t texts_lock = PTHREAD_MUTEX_INITIALIZER;
static crawl__strmap texts_index; /* sentence -> index in texts */
static char **texts;
static size_t ntexts, captexts;

const char *crawl__act_text(const char *text) {
  if (!text) return NULL;
  pthread_mutex_lock(&texts_lock);
  long i = crawl__strmap_get(&texts_index, text);
  if (i < 0) {
    if (ntexts == captexts) texts = crawl__xrealloc(texts, (captexts = captexts ? captexts * 2 : 32) * sizeof *texts);
    texts[ntexts] = crawl__xstrdup(text);
    crawl__strmap_put(&texts_index, text, (long)ntexts);
    i = (long)ntexts++;
  }
  const char *t = texts[i];
  pthread_mutex_unlock(&texts_lock);
  return t;
}

void crawl__act_decide(const pol_policy *policy, const char *page_origin, const char *const *allowed, action *a,
                       const pg_element *e) {
  crawl__act_decide_field(policy, page_origin, allowed, a, e, NULL);
}

void crawl__act_decide_field(const pol_policy *policy, const char *page_origin, const char *const *allowed, action *a,
                             const pg_element *e, const act_field *field) {
  /* choosing "Delete all" in a select is as dangerous as a button of that name */
  char named[1200];
  if (a->option) snprintf(named, sizeof named, "%s: %s", a->name ? a->name : "", a->option);
  pol_subject s = {
    .role = a->role, .name = a->option ? named : a->name, .action = a->action_id,
    .page_origin = page_origin, .allowed_origins = allowed,
  };
  size_t na = 0;
  while (allowed && allowed[na]) na++;
  s.n_allowed_origins = na;
  if (e) {
    s.tag = e->tag;
    s.input_type = e->input_type;
    s.href = e->href;
    s.form_method = e->form_method;
    s.is_submit = e->is_submit;
    s.has_download = e->has_download;
    s.opens_window = e->opens_window;
    s.autocomplete = e->autocomplete;
    s.risk = e->risk_attr; /* the policy reads it with pg_risk_parse */
    s.app_action = e->app_action;
    s.sensitive = e->sensitive ? "true" : NULL;
    s.context = e->context;
    s.has_aria_expanded = pg_state_has(&e->state, PG_ST_EXPANDED);
    s.aria_haspopup = e->aria_haspopup;
    s.has_aria_controls = e->has_aria_controls;
    s.sort_header = e->sort_header;
    s.container_role = e->container_role;
    s.form_action = e->submit_url;      /* formaction, else the owner form's action */
    s.container_kind = e->container_kind; /* what a close glyph does here */
    s.icon_classes = e->icon_classes;
    s.icon_text = e->icon_text;
  } else {
    s.container_role = "dialog";
  }
  if (field) crawl__act_field_subject(field, &s); /* a text field's form and surroundings (act_text.c) */
  pol_classify(&s, &a->cls);
  pol_decision d;
  pol_decide(policy, &s, &a->cls, &d);
  a->dec = (act_decision){.effect = d.effect, .reason = d.reason, .text = crawl__act_text(d.text)};
  a->probe = e && pol_probeable(policy, &s, &a->cls) && a->action_id && strcmp(a->action_id, "ui.enterText");
  /* priority (section 11.5): app actions and local UI first, then navigation;
   * what closes (collapse) after what opens: closing mostly returns to a
   * state already seen, opening shows what is new */
  int closes = a->action_id && !strcmp(a->action_id, "ui.collapse");
  a->rank = a->cls.side_effect == POL_SE_LOCAL_UI ? (e && e->app_action ? FR_RANK_APP : closes ? FR_RANK_CLOSE : FR_RANK_LOCAL)
          : a->cls.side_effect == POL_SE_NAVIGATION ? FR_RANK_NAV : FR_RANK_OTHER;
}

/* ---- targets and clicks ---- */
static int elem_matches(const pg_element *e, const char *role, const char *name, const char *stable_id) {
  if (stable_id && (!e->stable_id || strcmp(e->stable_id, stable_id))) return 0;
  return !strcmp(e->role, role) && !strcmp(e->name ? e->name : "", name ? name : "");
}

/* The key of scope s alone: "s:" and its stableId, else its kind and its
 * author's name with runs of digits as "#" (a count in "Cart (3)" changes);
 * NULL for the route scope and unnamed scopes. Caller frees. */
static char *scope_key_of(const pg_scope *sc) {
  if (sc->stable_id && *sc->stable_id) {
    char *k = crawl__xmalloc(strlen(sc->stable_id) + 3);
    sprintf(k, "s:%s", sc->stable_id);
    return k;
  }
  if (sc->kind == PG_SCOPE_ROUTE || !sc->name || !*sc->name) return NULL;
  char *k = crawl__xmalloc(strlen(sc->name) + 16), *o = k + sprintf(k, "%d:", (int)sc->kind);
  for (const char *p = sc->name; *p; p++) {
    int digit = *p >= '0' && *p <= '9';
    if (!digit) *o++ = *p;
    else if (p == sc->name || !(p[-1] >= '0' && p[-1] <= '9')) *o++ = '#';
  }
  *o = 0;
  return k;
}

char *crawl__act_scope_key(const pg_graph *g, int scope) {
  for (int s = scope, steps = 0; s >= 0 && (size_t)s < g->nscopes && steps < 4096; s = g->scopes[s].parent, steps++) {
    char *k = scope_key_of(&g->scopes[s]);
    if (k) return k;
  }
  return NULL;
}

/* 1: e's nearest identifiable scope has key. */
static int in_scope(const pg_graph *g, const pg_element *e, const char *key) {
  char *k = crawl__act_scope_key(g, e->scope);
  int same = k && !strcmp(k, key);
  free(k);
  return same;
}

/* 1: some scope of g has key (whatever it holds). */
static int scope_present(const pg_graph *g, const char *key) {
  for (size_t s = 0; s < g->nscopes; s++) {
    char *k = scope_key_of(&g->scopes[s]);
    int same = k && !strcmp(k, key);
    free(k);
    if (same) return 1;
  }
  return 0;
}

/* Role and name within the scope of key: the ordinal-th of the page when
 * it lies in that scope, else the first there; NULL when the scope holds
 * none. */
static const pg_element *find_in_scope(const pg_graph *g, const char *role, const char *name, const char *key,
                                       int ordinal) {
  const pg_element *first = NULL;
  int seen = 0;
  for (size_t i = 0; i < g->nelements; i++) {
    const pg_element *e = &g->elements[i];
    if (!elem_matches(e, role, name, NULL)) continue;
    int here = in_scope(g, e, key);
    if (here && seen == ordinal) return e;
    if (here && !first) first = e;
    seen++;
  }
  return first;
}

const pg_element *crawl__act_find(const pg_graph *g, const char *role, const char *name, const char *stable_id,
                                  const char *scope_key, int ordinal) {
  int seen = 0;
  if (!stable_id && scope_key && scope_present(g, scope_key))
    return find_in_scope(g, role, name, scope_key, ordinal);
  for (size_t i = 0; i < g->nelements; i++) {
    const pg_element *e = &g->elements[i];
    if (!elem_matches(e, role, name, stable_id)) continue;
    if (stable_id || seen++ == ordinal) return e;
  }
  return NULL;
}

/* Quad centre of a node (crawl__page_node_point). */
static int node_point(act_ctx *r, int backend, double *x, double *y) {
  return crawl__page_node_point(r->page, backend, x, y);
}

/* Actionability (section 11 / 13): attached, visible, enabled, in view,
 * stable across two animation frames, and the hit test at the click point
 * lands on the element (not on an overlay), with the pointer over it when
 * it does not at first (hover). Then a real click. */
static crawl_code act_click_(act_ctx *r, const pg_element *e, char *why, size_t whylen);

/* A failed check is "not actionable" only while the browser is fine. */
static crawl_code act_click(act_ctx *r, const pg_element *e, char *why, size_t whylen) {
  crawl_code rc = act_click_(r, e, why, whylen);
  if (rc == CRAWL_ARG && !cdp_client_alive(r->c)) return CRAWL_BROWSER;
  if (rc == CRAWL_ARG && strstr(why, "crashed")) return CRAWL_CRASHED;
  return rc;
}

static int in_viewport(const act_ctx *r, double x, double y) {
  return x >= 0 && y >= 0 && x < r->g->vp_width && y < r->g->vp_height;
}

/* Scrolls the target into view and waits until its box stays put across two
 * animation frames (three looks at most). 0, or CRAWL_ARG with why. */
static crawl_code settle_box(act_ctx *r, int target, double *x, double *y, char *why, size_t whylen) {
  cdp_client *c = r->c;
  const char *sess = crawl_page_session(r->page);
  cJSON *a = cJSON_CreateObject();
  cJSON_AddNumberToObject(a, "backendNodeId", target);
  cdp_code cr = cdp_call(c, sess, "DOM.scrollIntoViewIfNeeded", a, NULL, 10000);
  if (cr == CDP_CANCELLED) return CRAWL_CANCELLED;
  if (cr) { snprintf(why, whylen, "detached (%s)", cdp_client_errmsg(c)); return CRAWL_ARG; }
  double x1, y1;
  for (int attempt = 0;; attempt++) {
    if (node_point(r, target, &x1, &y1)) { snprintf(why, whylen, "no box (detached or hidden)"); return CRAWL_ARG; }
    a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "expression", CRAWL__JS(two_animation_frames));
    cJSON_AddBoolToObject(a, "awaitPromise", 1);
    cr = cdp_call(c, sess, "Runtime.evaluate", a, NULL, 2000);
    if (cr == CDP_CANCELLED) return CRAWL_CANCELLED;
    if (node_point(r, target, x, y)) { snprintf(why, whylen, "no box (detached or hidden)"); return CRAWL_ARG; }
    if (abs((int)(x1 - *x)) <= 1 && abs((int)(y1 - *y)) <= 1) break;
    if (attempt == 2) { snprintf(why, whylen, "not stable (still moving)"); return CRAWL_ARG; }
    usleep(100000);
  }
  if (!in_viewport(r, *x, *y)) {
    snprintf(why, whylen, "outside the viewport after scrolling");
    return CRAWL_ARG;
  }
  return CRAWL_OK;
}

/* The pointer over the target (mapper 11.5: hovering is part of being
 * actionable): a row's tools that take clicks only under :hover (a JSON
 * tree, a data grid's row actions) do so now; its box looked at again,
 * since hovering may move it. 0, or a code with why. */
static crawl_code hover_box(act_ctx *r, int target, double *x, double *y, char *why, size_t whylen) {
  crawl_code rc = crawl__page_hover(r->page, *x, *y);
  if (rc) { snprintf(why, whylen, "hovering failed"); return rc; }
  if (node_point(r, target, x, y)) { snprintf(why, whylen, "no box after hovering (detached or hidden)"); return CRAWL_ARG; }
  if (!in_viewport(r, *x, *y)) { snprintf(why, whylen, "outside the viewport after hovering"); return CRAWL_ARG; }
  return CRAWL_OK;
}

/* The page's scroll offset as the hit tests of one click use it: the
 * capture's while the page has not moved since (crawl_page_still), else
 * read once after scrolling the target into view (page_scroll). */
typedef struct scroll_at { double x, y; } scroll_at;

/* Page.getLayoutMetrics' visual viewport offset (CSS pixels); 0, 0 when it
 * cannot be read. */
static scroll_at page_scroll(act_ctx *r) {
  cJSON *res = NULL;
  scroll_at sc = {0, 0};
  if (cdp_call(r->c, crawl_page_session(r->page), "Page.getLayoutMetrics", cJSON_CreateObject(), &res, 5000) == CDP_OK) {
    const cJSON *vv = cJSON_GetObjectItemCaseSensitive(res, "cssVisualViewport");
    const cJSON *px = cJSON_GetObjectItemCaseSensitive(vv, "pageX"), *py = cJSON_GetObjectItemCaseSensitive(vv, "pageY");
    if (cJSON_IsNumber(px)) sc.x = px->valuedouble;
    if (cJSON_IsNumber(py)) sc.y = py->valuedouble;
  }
  cJSON_Delete(res);
  return sc;
}

/* The node the hit test at viewport point (x, y) lands on (0: none); < 0:
 * -CRAWL_CANCELLED. DOM.getNodeForLocation takes document coordinates: on
 * a scrolled page the viewport point is shifted by the scroll offset (the
 * viewport's point sent as is lands above the page: "No node found", and
 * every control below the fold looked obscured). */
static int hit_node(act_ctx *r, const scroll_at *sc, double x, double y) {
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddNumberToObject(a, "x", (int)(x + sc->x));
  cJSON_AddNumberToObject(a, "y", (int)(y + sc->y));
  cdp_code cr = cdp_call(r->c, crawl_page_session(r->page), "DOM.getNodeForLocation", a, &res, 5000);
  if (cr == CDP_CANCELLED) return -CRAWL_CANCELLED;
  const cJSON *hit = cJSON_GetObjectItemCaseSensitive(res, "backendNodeId");
  int hit_id = cJSON_IsNumber(hit) ? hit->valueint : 0;
  cJSON_Delete(res);
  return hit_id;
}

static int lands_on(const act_ctx *r, const pg_element *e, int target, int hit_id) {
  return hit_id > 0 && (pg_graph_contains(r->g, target, hit_id) || pg_graph_contains(r->g, e->backend_node_id, hit_id));
}

/* 1 when the hit test at (x, y) lands on the element or inside it; < 0:
 * -CRAWL_CANCELLED. *hit_id: where it landed. */
static int hits(act_ctx *r, const scroll_at *sc, const pg_element *e, int target, double x, double y, int *hit_id) {
  int h = hit_node(r, sc, x, y);
  if (h < 0) return h;
  if (hit_id) *hit_id = h;
  return lands_on(r, e, target, h);
}

/* "div.preloader.flex-column" for node (tag and up to 3 classes), or "" */
static void node_label(act_ctx *r, int node, char *out, size_t n) {
  out[0] = 0;
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddNumberToObject(a, "backendNodeId", node);
  if (node <= 0 || cdp_call(r->c, crawl_page_session(r->page), "DOM.describeNode", a, &res, 2000) != CDP_OK) {
    cJSON_Delete(res);
    return;
  }
  const cJSON *nd = cJSON_GetObjectItemCaseSensitive(res, "node"), *at;
  const char *tag = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(nd, "localName"));
  size_t len = (size_t)snprintf(out, n, "%s", tag ? tag : "?");
  int i = 0, classes = 0;
  cJSON_ArrayForEach(at, cJSON_GetObjectItemCaseSensitive(nd, "attributes")) {
    if (i++ % 2 || !cJSON_IsString(at) || strcmp(at->valuestring, "class") || !at->next) continue;
    const char *c = cJSON_GetStringValue(at->next);
    for (const char *w = c; w && *w && classes < 3 && len < n;) {
      w += strspn(w, " \t\n");
      size_t k = strcspn(w, " \t\n");
      if (k) len += (size_t)snprintf(out + len, n - len, ".%.*s", (int)(k < 40 ? k : 40), w), classes++;
      w += k;
    }
  }
  cJSON_Delete(res);
}

#define UNCOVER_WAIT_MS 1500 /* how long an overlay may take to go (a loading screen fading out) */
#define UNCOVER_STEP_MS 100

/* The target is covered by *blocker: wait until it is not (a preloader
 * that slides away after the load, an animation ending), looking again
 * every 100 ms for UNCOVER_WAIT_MS; a blocker that stays is noted, and what
 * it covers later fails at once. 1: uncovered now (x, y updated), 0: still
 * covered, < 0: -CRAWL_CANCELLED. */
static int wait_uncovered(act_ctx *r, const scroll_at *sc, const pg_element *e, int target, double *x, double *y,
                          int *blocker) {
  if (crawl__page_blocker_known(r->page, *blocker)) return 0;
  for (int waited = 0; waited < UNCOVER_WAIT_MS; waited += UNCOVER_STEP_MS) {
    usleep(UNCOVER_STEP_MS * 1000);
    if (node_point(r, target, x, y) || !in_viewport(r, *x, *y)) return 0;
    int h = hits(r, sc, e, target, *x, *y, blocker);
    if (h) return h;
    if (crawl__page_blocker_known(r->page, *blocker)) return 0;
  }
  crawl__page_blocker_note(r->page, *blocker);
  return 0;
}

/* The fast path: a page that settled on evidence and has not moved since
 * (crawl_page_still) with the target's centre in the viewport needs no
 * scrolling and no second look; a failed hit test there takes the full path
 * (an overflow container may clip it). */
static crawl_code act_click_(act_ctx *r, const pg_element *e, char *why, size_t whylen) {
  if (!pg_state_is(&e->state, PG_ST_VISIBLE)) { snprintf(why, whylen, "not visible"); return CRAWL_ARG; }
  if (!pg_state_is(&e->state, PG_ST_ENABLED)) { snprintf(why, whylen, "disabled"); return CRAWL_ARG; }
  int target = pg_element_click_node(e); /* a hidden input's label or host */
  double x, y;
  if (crawl_page_still(r->page) && !node_point(r, target, &x, &y) && in_viewport(r, x, y)) {
    scroll_at still = {r->g->vp_scroll_x, r->g->vp_scroll_y};
    int h = hits(r, &still, e, target, x, y, NULL);
    if (h < 0) return (crawl_code)-h;
    if (h) return crawl_page_click(r->page, (int)x, (int)y);
  }
  crawl_code rc = settle_box(r, target, &x, &y, why, whylen);
  if (rc) return rc;
  scroll_at sc = page_scroll(r);
  int blocker = 0, h = hits(r, &sc, e, target, x, y, NULL);
  if (h < 0) return (crawl_code)-h;
  if (!h && (rc = hover_box(r, target, &x, &y, why, whylen)) != CRAWL_OK) return rc;
  if (!h && (h = hits(r, &sc, e, target, x, y, &blocker)) < 0) return (crawl_code)-h;
  if (!h && (h = wait_uncovered(r, &sc, e, target, &x, &y, &blocker)) < 0) return (crawl_code)-h;
  if (!h) {
    char on[200];
    node_label(r, blocker, on, sizeof on);
    snprintf(why, whylen, "obscured: the hit test at (%d,%d) lands on another element (%s), also with the pointer "
             "over it, and it stayed for %.1f s", (int)x, (int)y, on[0] ? on : "none", UNCOVER_WAIT_MS / 1000.0);
    return CRAWL_ARG;
  }
  return crawl_page_click(r->page, (int)x, (int)y);
}

/* Call fn on the node (returnByValue); *out gets the result's value
 * (the caller frees). 0 on success. */
static int call_on_node(act_ctx *r, int backend, const char *fn, cJSON **out) {
  cdp_client *c = r->c;
  const char *sess = crawl_page_session(r->page);
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddNumberToObject(a, "backendNodeId", backend);
  if (cdp_call(c, sess, "DOM.resolveNode", a, &res, 5000) != CDP_OK) return cJSON_Delete(res), -1;
  const char *oid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "object"), "objectId"));
  if (!oid) { cJSON_Delete(res); return -1; }
  a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "objectId", oid);
  cJSON_Delete(res);
  res = NULL;
  cJSON_AddStringToObject(a, "functionDeclaration", fn);
  cJSON_AddBoolToObject(a, "returnByValue", 1);
  if (cdp_call(c, sess, "Runtime.callFunctionOn", a, &res, 5000) != CDP_OK) return cJSON_Delete(res), -1;
  *out = cJSON_DetachItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "result"), "value");
  cJSON_Delete(res);
  return *out ? 0 : -1;
}

/* The enabled option next to k from which one key press lands on k: the
 * nearest enabled one before k (ArrowDown), else after it (ArrowUp); -1
 * when k is the only enabled option. *down: the key is ArrowDown. */
static int option_before(const char *disabled, int n, int k, int *down) {
  for (int j = k - 1; j >= 0; j--)
    if (!disabled[j]) return *down = 1, j;
  for (int j = k + 1; j < n && j < 64; j++)
    if (!disabled[j]) return *down = 0, j;
  return -1;
}

/* The select shows option j, set without an event (the page is not told:
 * the key press after it is what it sees). 0, or -1 when it went away. */
static int preselect(act_ctx *r, const pg_element *e, int j) {
  char fn[96];
  snprintf(fn, sizeof fn, "function(){this.selectedIndex=%d;return this.selectedIndex}", j);
  cJSON *v = NULL;
  int ok = !call_on_node(r, e->backend_node_id, fn, &v) && cJSON_IsNumber(v) && v->valueint == j;
  cJSON_Delete(v);
  return ok ? 0 : -1;
}

/* Choose option k of a <select> as a person does, with one real key press
 * that lands on it: the select is first set, without an event, to the
 * enabled option next to k, then ArrowDown or ArrowUp selects k. The page
 * sees the input and change events of k alone, never those of the options
 * on the way -- a select that submits its form on every change (an
 * "onchange=submit" group filter) would leave on the first of them, and an
 * option on the way may be one the policy would deny. After the press the
 * page may act on the change: reset the select (an action menu), replace
 * it, or navigate away (a GET form submitted): each is the choice taken,
 * and the caller observes where the page went (mapper 11.5; issue 27). */
static crawl_code choose_option(act_ctx *r, const pg_element *e, int k, int from, char *why, size_t whylen) {
  cJSON *opts = NULL;
  if (call_on_node(r, e->backend_node_id, CRAWL__JS(select_options), &opts) || !cJSON_IsObject(opts)) {
    cJSON_Delete(opts);
    snprintf(why, whylen, "the select went away before it was touched");
    return CRAWL_ARG;
  }
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(opts, "o"), *si = cJSON_GetObjectItemCaseSensitive(opts, "i");
  int cur = cJSON_IsNumber(si) ? si->valueint : -1, n = cJSON_GetArraySize(list);
  char disabled[64] = {0};
  for (int j = 0; j < n && j < 64; j++) disabled[j] = cJSON_IsTrue(cJSON_GetArrayItem(cJSON_GetArrayItem(list, j), 1));
  cJSON_Delete(opts);
  /* the policy decided k on the select as it was then */
  if (from >= 0 && cur != from) {
    snprintf(why, whylen, "the select shows option %d, not %d as when choosing was decided", cur, from);
    return CRAWL_ARG;
  }
  if (k < 0 || k >= n || k >= 64 || disabled[k]) {
    snprintf(why, whylen, "option %d is not there or disabled", k);
    return CRAWL_ARG;
  }
  if (cur == k) return CRAWL_OK;
  int down = 1, j = option_before(disabled, n, k, &down);
  if (j < 0) {
    snprintf(why, whylen, "option %d is the only enabled option", k);
    return CRAWL_ARG;
  }
  if (j != cur && preselect(r, e, j)) {
    snprintf(why, whylen, "the select went away before it was touched");
    return CRAWL_ARG;
  }
  cJSON *a = cJSON_CreateObject();
  cJSON_AddNumberToObject(a, "backendNodeId", e->backend_node_id);
  cdp_code cr = cdp_call(r->c, crawl_page_session(r->page), "DOM.focus", a, NULL, 5000);
  if (cr == CDP_CANCELLED) return CRAWL_CANCELLED;
  if (cr) {
    if (j != cur) preselect(r, e, cur); /* as it was */
    snprintf(why, whylen, "cannot focus the select");
    return CRAWL_ARG;
  }
  /* the one press; whatever the page does with the change next is the
   * choice's outcome, observed by the caller */
  return crawl_page_key(r->page, down ? "ArrowDown" : "ArrowUp");
}

/* ---- the element decided on, found again ---- */
static int same_str(const char *a, const char *b) { return !strcmp(a ? a : "", b ? b : ""); }

/* 1 when e is what a names: role, name and stable id, and its scope when a
 * has one. */
static int is_target(const pg_graph *g, const pg_element *e, const action *a) {
  if (!same_str(e->role, a->role) || !same_str(e->name, a->name) || !same_str(e->stable_id, a->stable_id)) return 0;
  return !a->scope_key || in_scope(g, e, a->scope_key);
}

/* The elements carrying a's stable id and role, narrowed to a's name and
 * then to a's scope while more than one is left: 1 with *out when one is
 * left, 0 none, -1 several equally plausible (*n of them). One alone is
 * taken whatever its name now (a count in it changes): it is decided
 * again on what it says now. */
static int locate_stable(const pg_graph *g, const action *a, const pg_element **out, int *n) {
  int by_id = 0, by_name = 0, by_scope = 0;
  const pg_element *id1 = NULL, *name1 = NULL, *scope1 = NULL;
  for (size_t i = 0; i < g->nelements; i++) {
    const pg_element *e = &g->elements[i];
    if (!e->stable_id || strcmp(e->stable_id, a->stable_id) || !same_str(e->role, a->role)) continue;
    if (!by_id++) id1 = e;
    if (!same_str(e->name, a->name)) continue;
    if (!by_name++) name1 = e;
    if (a->scope_key && in_scope(g, e, a->scope_key) && !by_scope++) scope1 = e;
  }
  *n = by_id;
  *out = by_id == 1 ? id1 : by_name == 1 ? name1 : by_scope == 1 ? scope1 : NULL;
  if (*out) return 1;
  return by_id ? -1 : 0;
}

/* The element of g that a was decided on (mapper 11.5, 16): the node it
 * was decided on when that node is still there and still is a's target;
 * else by stable id (locate_stable); else by role and name in its scope
 * and ordinal (crawl__act_find). 1 found, 0 none, -1 ambiguous (*n
 * candidates). */
static int locate(const pg_graph *g, const action *a, const pg_element **out, int *n) {
  *out = NULL;
  *n = 0;
  for (size_t i = 0; a->backend > 0 && i < g->nelements; i++)
    if (g->elements[i].backend_node_id == a->backend) {
      if (is_target(g, &g->elements[i], a)) return *out = &g->elements[i], *n = 1;
      break;
    }
  if (a->stable_id) return locate_stable(g, a, out, n);
  *out = crawl__act_find(g, a->role, a->name, NULL, a->scope_key, a->ordinal);
  return *n = *out != NULL;
}

/* What a login recipe's step may do beyond an allow: sign in (a credential
 * typed, a form posted, a session set). Never a destruction, a payment,
 * something irreversible or an effect outside the app: a recipe that names
 * "Delete account" is refused like any other click. */
static const unsigned char recipe_sides[POL__SE_COUNT] = {
  [POL_SE_NONE] = 1, [POL_SE_READ] = 1, [POL_SE_NAVIGATION] = 1, [POL_SE_LOCAL_UI] = 1, [POL_SE_DRAFT] = 1,
  [POL_SE_REVERSIBLE_WRITE] = 1, [POL_SE_WRITE] = 1, [POL_SE_SECURITY_CHANGE] = 1, [POL_SE_UNKNOWN] = 1,
};

static int recipe_may(const act_gate *gate, const action *d) {
  return gate->recipe && d->cls.side_effect < POL__SE_COUNT && recipe_sides[d->cls.side_effect];
}

/* a decided again on e as it is now (its role, name and facts in this
 * capture) under the gate: 0 when that decision is allow, else the
 * refusal with why. a->dec must have been allow as well. */
static int decide_again(const act_gate *gate, const action *a, const pg_element *e, const act_field *field,
                        char *why, size_t whylen) {
  if (a->dec.effect != POL_EFFECT_ALLOW && !(gate->sealed && a->probe)) {
    snprintf(why, whylen, "not performed: the decision for it is %s, not allow", pol_effect_name(a->dec.effect));
    return -1;
  }
  action d = *a;
  if (e) {
    d.role = (char *)e->role;
    d.name = (char *)(e->name ? e->name : "");
  }
  crawl__act_decide_field(gate->policy, gate->page_origin, gate->allowed, &d, e, field);
  if (d.dec.effect == POL_EFFECT_ALLOW || recipe_may(gate, &d) || (gate->sealed && d.probe)) return 0;
  snprintf(why, whylen, "not performed: decided again on the element found now (%s \"%.120s\"), the gate says %s "
           "(%s): %.200s", d.role, d.name, pol_effect_name(d.dec.effect), pol_reason_name(d.dec.reason),
           d.dec.text ? d.dec.text : "");
  return -1;
}

static crawl_code perform(act_ctx *r, const act_gate *gate, const action *a, const char *value, act_refusal *refused,
                          char *why, size_t whylen) {
  const pg_element *e = NULL;
  int n = 0;
  if (!a->escape) {
    int found = locate(r->g, a, &e, &n);
    if (found < 0) {
      *refused = ACT_AMBIGUOUS;
      snprintf(why, whylen, "ambiguous target: %d elements carry the data-uiap-id \"%.100s\" with role %s and none "
               "is told apart by its name \"%.100s\" and scope; nothing was clicked", n, a->stable_id, a->role,
               a->name ? a->name : "");
      return CRAWL_ARG;
    }
    if (!e) {
      snprintf(why, whylen, "target not found in the current state");
      return CRAWL_ARG;
    }
  }
  /* a search typed: decided again on the field's form and surroundings as they are now */
  act_field now, *field = a->text && e && !crawl__act_field_read(r->page, e, &now) ? &now : NULL;
  int no = decide_again(gate, a, e, field, why, whylen);
  crawl__act_field_release(field);
  if (no) {
    *refused = ACT_REFUSED;
    return CRAWL_ARG;
  }
  if (a->escape) return crawl_page_key(r->page, "Escape");
  if (a->option) {
    if (!pg_state_is(&e->state, PG_ST_VISIBLE) || !pg_state_is(&e->state, PG_ST_ENABLED)) {
      snprintf(why, whylen, "not visible or disabled");
      return CRAWL_ARG;
    }
    return choose_option(r, e, a->option_index, a->option_from, why, whylen);
  }
  crawl__form_draft_keep(NULL);
  int draft = a->draft && e->is_submit && gate->policy && gate->policy->mode == POL_MODE_SANDBOX_WRITE;
  crawl_code rc = draft ? crawl__form_fill(r->page, e->backend_node_id, a->draft == 2, why, whylen)
                                           : CRAWL_OK;
  if (rc) return rc;
  rc = act_click(r, e, why, whylen);
  if (!rc && draft) crawl__form_after_submit(r->page, e->backend_node_id);
  if (rc || !a->action_id || strcmp(a->action_id, "ui.enterText")) return rc;
  if (e->sensitive && !gate->recipe) { /* the policy denies these; only a login recipe types into one */
    snprintf(why, whylen, "sensitive field");
    return CRAWL_ARG;
  }
  if (a->text) return crawl__act_text_type(r->page, e, a, why, whylen);
  char typed[CRAWL_FILL_VALUE_MAX];
  return crawl_page_insert_text(r->page, value ? value : crawl__form_value_for(e, typed, sizeof typed));
}

crawl_code crawl__act_perform(crawl_page *p, const pg_graph *g, const act_gate *gate, const action *a, const char *value,
                              act_refusal *refused, char *why, size_t whylen) {
  act_ctx r = {.page = p, .c = crawl_page_client(p), .g = g};
  act_refusal ignored;
  if (!refused) refused = &ignored;
  *refused = ACT_DONE;
  if (whylen) why[0] = 0;
  return perform(&r, gate, a, value, refused, why, whylen);
}

/* ---- navigations by URL ---- */
/* What a URL's words may say for the crawler to load it (pol_url_intent):
 * never a logout, a deletion, a billing change or something irreversible;
 * a recipe may sign in (security_change). */
static const unsigned char nav_refused[POL__SE_COUNT] = {
  [POL_SE_SECURITY_CHANGE] = 1, [POL_SE_DESTRUCTIVE] = 1, [POL_SE_BILLING_CHANGE] = 1, [POL_SE_IRREVERSIBLE] = 1,
};

int crawl__act_in_scope(const act_gate *gate, const char *url) {
  char o[512];
  if (!url || pg_url_origin(url, o, sizeof o) <= 0) return 0;
  if (gate->page_origin && !strcmp(o, gate->page_origin)) return 1;
  for (int i = 0; gate->allowed && gate->allowed[i]; i++)
    if (!strcmp(o, gate->allowed[i])) return 1;
  return 0;
}

crawl_code crawl__act_navigate(crawl_page *p, const act_gate *gate, const char *url, int same_document,
                               act_refusal *refused, char *why, size_t whylen) {
  act_refusal ignored;
  if (!refused) refused = &ignored;
  *refused = ACT_DONE;
  if (whylen) why[0] = 0;
  if (!crawl__act_in_scope(gate, url)) {
    *refused = ACT_REFUSED;
    snprintf(why, whylen, "not loaded: %.200s is outside the run's origins", url ? url : "(no URL)");
    return CRAWL_ARG;
  }
  pol_classification cls;
  pol_side_effect se = pol_url_intent(url, &cls);
  if (se < POL__SE_COUNT && nav_refused[se] && !(gate->recipe && se == POL_SE_SECURITY_CHANGE)) {
    *refused = ACT_REFUSED;
    snprintf(why, whylen, "not loaded: its URL reads as %s (rule %s)", pol_side_effect_name(se),
             cls.rule);
    return CRAWL_ARG;
  }
  return same_document ? crawl_page_goto(p, url) : crawl_page_load(p, url);
}

int crawl__act_call(crawl_page *p, int backend, const char *fn, cJSON **out) {
  act_ctx r = {.page = p, .c = crawl_page_client(p)};
  return call_on_node(&r, backend, fn, out);
}

/* Sends fn(e) for each element e of g that has a function, and returns the
 * ids (0: none). Step one of crawl__act_call_each: resolve every node. */
static int *resolve_each(cdp_client *c, const char *sess, const pg_graph *g, const char *const *fns) {
  int *ids = crawl__xcalloc(g->nelements ? g->nelements : 1, sizeof *ids);
  for (size_t i = 0; i < g->nelements; i++) {
    if (!fns[i]) continue;
    cJSON *a = cJSON_CreateObject();
    cJSON_AddNumberToObject(a, "backendNodeId", g->elements[i].backend_node_id);
    ids[i] = cdp_send(c, sess, "DOM.resolveNode", a);
  }
  return ids;
}

cJSON **crawl__act_call_each(crawl_page *p, const pg_graph *g, const char *const *fns) {
  cdp_client *c = crawl_page_client(p);
  const char *sess = crawl_page_session(p);
  int *ids = resolve_each(c, sess, g, fns);
  for (size_t i = 0; i < g->nelements; i++) { /* step two: call on each node resolved */
    if (ids[i] <= 0) continue;
    cJSON *res = NULL;
    int id = ids[i];
    ids[i] = 0;
    if (cdp_wait(c, id, &res, 5000) == CDP_OK) {
      const char *oid =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "object"), "objectId"));
      if (oid) {
        cJSON *a = cJSON_CreateObject();
        cJSON_AddStringToObject(a, "objectId", oid);
        cJSON_AddStringToObject(a, "functionDeclaration", fns[i]);
        cJSON_AddBoolToObject(a, "returnByValue", 1);
        ids[i] = cdp_send(c, sess, "Runtime.callFunctionOn", a);
      }
    }
    cJSON_Delete(res);
  }
  cJSON **out = crawl__xcalloc(g->nelements ? g->nelements : 1, sizeof *out);
  for (size_t i = 0; i < g->nelements; i++) { /* step three: the values */
    if (ids[i] <= 0) continue;
    cJSON *res = NULL;
    if (cdp_wait(c, ids[i], &res, 5000) == CDP_OK)
      out[i] = cJSON_DetachItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "result"), "value");
    cJSON_Delete(res);
  }
  free(ids);
  return out;
}

void crawl__act_results_free(cJSON **v, size_t n) {
  for (size_t i = 0; v && i < n; i++) cJSON_Delete(v[i]);
  free(v);
}

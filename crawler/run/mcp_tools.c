/* mcp_tools.c -- the MCP server's tools over one tab: navigate (into the
 * session's origins only), snapshot (the compact text tree, each element
 * marked with the policy's decision, or the PageGraph JSON), act (the
 * crawler's decision and click, act.c: a refused action does nothing),
 * changes (the delta since the last snapshot, and what the write guard
 * refused), crawl (a bounded discovery run into a fresh package).
 *
 * The tab is opened as the crawler opens its own (explore_tab.c
 * crawl__run_open_tab): behind the write guard unless sandbox_write with
 * destructive actions allowed, the session's origins in scope, and its
 * captures feed the session's secret list, through which every reply
 * passes (mcp.c). */
#include "act.h"
#include "netlog.h"
#include "mcp_int.h"
#include "pg_url.h"
#include "run_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- results ---------------------------------------------------------------- */
static void vsay(mcp__result *r, const char *fmt, va_list ap) {
  char line[2048];
  vsnprintf(line, sizeof line, fmt, ap);
  crawl__buf_puts(&r->text, line);
}

static void say(mcp__result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(mcp__result *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsay(r, fmt, ap);
  va_end(ap);
}

/* A tool error (isError): the call ran and failed or was refused. 0. */
static int fail(mcp__result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(mcp__result *r, const char *fmt, ...) {
  va_list ap;
  r->is_error = 1;
  va_start(ap, fmt);
  vsay(r, fmt, ap);
  va_end(ap);
  return 0;
}

/* Arguments that do not fit the schema: -32602. -1. */
static int bad(mcp__result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(mcp__result *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsay(r, fmt, ap);
  va_end(ap);
  return -1;
}

/* ---- the browser and the tab ------------------------------------------------------- */
static int need_browser(crawl_mcp *m, mcp__result *r) {
  if (m->c) return 0;
  char err[512] = "no browser configured";
  if (!m->o.browser || m->o.browser(m->o.browser_ud, &m->c, err, sizeof err) || !m->c) {
    m->c = NULL;
    fail(r, "cannot start the browser: %s", err);
    return -1;
  }
  return 0;
}

static int need_tab(crawl_mcp *m, mcp__result *r) {
  if (m->page) return 0;
  if (need_browser(m, r)) return -1;
  const pol_policy *pol = &m->o.policy;
  crawl_page_opts po = {.width = m->o.width, .height = m->o.height, .settle_quiet_ms = 200, .settle_early = 1,
                        .settle_max_ms = 3000, .nav_timeout_ms = 15000, .call_timeout_ms = 10000,
                        .block_writes = crawl_guard_for_mode(pol, 0),
                        .allowed_origins = m->allowed, .allow_reads = m->o.allow_reads};
  if (crawl_page_open(m->c, &po, &m->page)) {
    fail(r, "cannot open a tab: %s", crawl_page_errmsg(m->page));
    crawl_page_close(m->page);
    m->page = NULL;
    return -1;
  }
  crawl__page_use_secrets(m->page, m->secrets);
  return 0;
}

static int need_page(crawl_mcp *m, mcp__result *r) {
  if (m->page) return 0;
  fail(r, "no page yet: call navigate first");
  return -1;
}

void mcp__session_close(crawl_mcp *m) {
  crawl_page_close(m->page);
  m->page = NULL;
  if (m->c) cdp_client_free(m->c);
  m->c = NULL;
}

/* The current page's graph (interactive, visible elements), or a tool error;
 * its redacted values join the session's list. */
static pg_graph *capture(crawl_mcp *m, mcp__result *r) {
  pg_options go = {.redact_pii = m->o.redact_pii};
  pg_graph *g = NULL;
  if (crawl_page_snapshot(m->page, &go, &g, NULL) != CRAWL_OK) {
    fail(r, "capture failed: %s", crawl_page_errmsg(m->page));
    return NULL;
  }
  return g;
}

/* ---- origins ------------------------------------------------------------------ */
/* The allowed origins, for a message. */
static void origins_list(const crawl_mcp *m, char *buf, size_t n) {
  size_t k = 0;
  buf[0] = 0;
  for (int i = 0; m->allowed[i] && k < n; i++)
    k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? ", " : "", m->allowed[i]);
}

/* 0 when url is http(s) on an origin of the session; the first URL's
 * origin becomes the session's. Else a tool error, -1. */
static int origin_check(crawl_mcp *m, const char *url, mcp__result *r) {
  char origin[512], list[2048];
  if ((strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) || pg_url_origin(url, origin, sizeof origin) < 0) {
    fail(r, "refused: only http and https URLs can be opened");
    return -1;
  }
  if (!m->first_origin[0]) {
    snprintf(m->first_origin, sizeof m->first_origin, "%s", origin);
    int n = 0;
    while (m->allowed[n]) n++;
    memmove(&m->allowed[1], &m->allowed[0], (size_t)(n + 1) * sizeof *m->allowed);
    m->allowed[0] = m->first_origin;
    return 0;
  }
  for (int i = 0; m->allowed[i]; i++)
    if (pg_url_same_origin(m->allowed[i], origin)) return 0;
  origins_list(m, list, sizeof list);
  fail(r, "refused: %s is not an origin of this session (allowed: %s; start the server with --allow-origin "
          "to add one); nothing was loaded", origin, list);
  return -1;
}

/* ---- navigate ------------------------------------------------------------------ */
static int t_navigate(crawl_mcp *m, const cJSON *args, mcp__result *r) {
  const char *url = crawl__str(args, "url");
  if (!url) return bad(r, "navigate needs url (a string)");
  if (origin_check(m, url, r) || need_tab(m, r)) return 0;
  if (crawl_page_load(m->page, url) != CRAWL_OK) return fail(r, "could not load %s: %s", url, crawl_page_errmsg(m->page));
  int status = crawl_page_status(m->page);
  say(r, "loaded %s", crawl_page_url(m->page) ? crawl_page_url(m->page) : url);
  if (status) say(r, " (HTTP %d)", status);
  say(r, "; call snapshot to read the page");
  return 0;
}

/* ---- decisions ------------------------------------------------------------------ */
/* The action the crawler would take on e and its decision; 0 when it
 * takes none (hidden, disabled, not actionable, a kind it never drives). */
static int element_decision(crawl_mcp *m, const pg_element *e, action *a) {
  if (!pg_state_is(&e->state, PG_ST_VISIBLE) || !pg_state_is(&e->state, PG_ST_ENABLED) || !e->actions) return 0;
  const char *aid = crawl__act_for(e);
  if (!aid) return 0;
  *a = (action){.action_id = (char *)aid, .role = e->role, .name = e->name ? e->name : ""};
  crawl__act_decide(&m->o.policy, m->first_origin, m->allowed, a, e);
  return 1;
}

/* How a snapshot line reads a decision: "allowed", "denied: destructive". */
static const char *const effect_words[] = {
  [POL_EFFECT_ALLOW] = "allowed", [POL_EFFECT_SKIP] = "skipped", [POL_EFFECT_REVIEW] = "review",
  [POL_EFFECT_DENY] = "denied",
};

static int decision_note(void *ud, const pg_graph *g, size_t i, char *buf, size_t n) {
  action a;
  if (!element_decision(ud, &g->elements[i], &a)) return 0;
  if (a.dec.effect == POL_EFFECT_ALLOW) return snprintf(buf, n, "allowed");
  return snprintf(buf, n, "%s: %s", effect_words[a.dec.effect], pol_reason_name(a.dec.reason));
}

/* ---- snapshot ------------------------------------------------------------------ */
/* The graph JSON with each element's decision ({effect, reason, action});
 * at most max elements (0: all). */
static cJSON *snapshot_json(crawl_mcp *m, const pg_graph *g, size_t max) {
  cJSON *j = pg_graph_to_json(g);
  cJSON *els = cJSON_GetObjectItemCaseSensitive(j, "elements");
  size_t i = 0;
  for (cJSON *e = els ? els->child : NULL; e && i < g->nelements; e = e->next, i++) {
    action a;
    if (!element_decision(m, &g->elements[i], &a)) continue;
    cJSON *d = cJSON_AddObjectToObject(e, "policy");
    cJSON_AddStringToObject(d, "action", a.action_id);
    cJSON_AddStringToObject(d, "effect", pol_effect_name(a.dec.effect));
    cJSON_AddStringToObject(d, "reason", pol_reason_name(a.dec.reason));
  }
  size_t total = (size_t)cJSON_GetArraySize(els);
  if (max && total > max) {
    while ((size_t)cJSON_GetArraySize(els) > max) cJSON_DeleteItemFromArray(els, (int)max);
    cJSON_AddNumberToObject(j, "elementsLeftOut", (double)(total - max));
  }
  return j;
}

static int t_snapshot(crawl_mcp *m, const cJSON *args, mcp__result *r) {
  const char *format = crawl__str(args, "format"), *scope = crawl__str(args, "scope");
  const cJSON *mx = crawl__get(args, "maxNodes");
  if (format && strcmp(format, "text") && strcmp(format, "json")) return bad(r, "format is text or json, not %s", format);
  if (mx && (!cJSON_IsNumber(mx) || mx->valuedouble < 1)) return bad(r, "maxNodes is a number >= 1");
  size_t max = mx ? (size_t)mx->valuedouble : 0;
  if (need_page(m, r)) return 0;
  pg_graph *g = capture(m, r);
  if (!g) return 0;
  cJSON_Delete(m->snap);
  m->snap = pg_graph_to_json(g);
  m->snap_blocked = crawl_page_blocked(m->page, NULL);
  char *text;
  if (format && !strcmp(format, "json")) {
    cJSON *j = snapshot_json(m, g, max);
    text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
  } else {
    pg_text_opts to = {.scope_id = scope, .max_elements = max, .scope_ids = 1, .note = decision_note, .ud = m};
    text = pg_graph_to_text_opts(g, &to);
  }
  crawl__buf_puts(&r->text, text);
  free(text);
  pg_graph_free(g);
  return 0;
}

/* ---- changes ------------------------------------------------------------------ */
static const cJSON *by_key(const cJSON *graph, const char *array, const char *key, const char *id) {
  const cJSON *it;
  cJSON_ArrayForEach(it, crawl__get(graph, array)) {
    const char *v = crawl__str(it, key);
    if (v && id && !strcmp(v, id)) return it;
  }
  return NULL;
}

/* " checked: false -> true" for each state that differs. */
static void state_diff(crawl__buf *b, const cJSON *was, const cJSON *now) {
  const cJSON *s;
  cJSON_ArrayForEach(s, crawl__get(now, "state")) {
    const cJSON *o = crawl__get(crawl__get(was, "state"), s->string);
    char *a = o ? cJSON_PrintUnformatted(o) : crawl__xstrdup("unset"), *c = cJSON_PrintUnformatted(s);
    if (strcmp(a, c)) crawl__buf_printf(b, " %s: %s -> %s", s->string, a, c);
    free(a);
    free(c);
  }
  static const char *const texts[] = {"name", "textValue"};
  for (size_t k = 0; k < 2; k++) {
    const char *a = crawl__str(was, texts[k]), *c = crawl__str(now, texts[k]);
    if ((a || c) && (!a || !c || strcmp(a, c)))
      crawl__buf_printf(b, " %s: \"%s\" -> \"%s\"", texts[k], a ? a : "", c ? c : "");
  }
}

/* One line for an op on an element or scope: "+", "~" or "-", what, how. */
static void op_line(crawl__buf *b, const cJSON *old, const cJSON *op) {
  const char *kind = crawl__str(op, "op");
  int el = !strcmp(kind, "upsertElement") || !strcmp(kind, "removeElement");
  const char *arr = el ? "elements" : "scopes", *key = el ? "instanceId" : "scopeId";
  const cJSON *now = crawl__get(op, el ? "element" : "scope");
  const cJSON *was = by_key(old, arr, key, now ? crawl__str(now, key) : crawl__str(op, key));
  const cJSON *shown = now ? now : was;
  if (!shown) return;
  crawl__buf_printf(b, "%s %s", !now ? "-" : was ? "~" : "+", crawl__str(shown, el ? "role" : "kind"));
  if (crawl__str(shown, "name")) crawl__buf_printf(b, " \"%s\"", crawl__str(shown, "name"));
  if (now && was) state_diff(b, was, now);
  crawl__buf_puts(b, "\n");
}

static const char *const shown_ops[] = {"upsertElement", "removeElement", "upsertScope", "removeScope", NULL};

/* The delta between two graph JSONs, its signals and the write guard's
 * refusals since blocked0, as lines. */
static void changes_text(crawl_mcp *m, crawl__buf *b, const cJSON *old, const cJSON *now, int blocked0) {
  cJSON *ops = NULL, *sigs = cJSON_CreateArray();
  unsigned long seq = 1;
  size_t before = b->n;
  if (pg_delta_compute(old, now, &ops) == PG_OK) {
    const cJSON *op;
    cJSON_ArrayForEach(op, ops) {
      const char *kind = crawl__str(op, "op");
      for (int k = 0; kind && shown_ops[k]; k++)
        if (!strcmp(kind, shown_ops[k])) op_line(b, old, op);
      if (kind && !strcmp(kind, "setRoute")) crawl__buf_printf(b, "route: %s\n", crawl__str(crawl__get(op, "route"), "url"));
    }
  }
  pg_delta_signals(old, now, "sig_", &seq, sigs);
  const cJSON *s;
  cJSON_ArrayForEach(s, sigs) crawl__buf_printf(b, "signal: %s\n", crawl__str(s, "kind"));
  const char *last = NULL;
  int blocked = crawl_page_blocked(m->page, &last) - blocked0;
  if (blocked > 0)
    crawl__buf_printf(b, "write guard refused %d request%s; last: %s\n", blocked, blocked == 1 ? "" : "s",
                      last ? last : "?");
  if (b->n == before) crawl__buf_puts(b, "no changes\n");
  cJSON_Delete(ops);
  cJSON_Delete(sigs);
}

static int t_changes(crawl_mcp *m, const cJSON *args, mcp__result *r) {
  (void)args;
  if (need_page(m, r)) return 0;
  if (!m->snap) return fail(r, "no snapshot yet: call snapshot first (changes are counted from the last one)");
  pg_graph *g = capture(m, r);
  if (!g) return 0;
  cJSON *now = pg_graph_to_json(g);
  say(r, "since the last snapshot:\n");
  changes_text(m, &r->text, m->snap, now, m->snap_blocked);
  cJSON_Delete(now);
  pg_graph_free(g);
  return 0;
}

/* ---- act ------------------------------------------------------------------ */
static const char *const act_names[] = {"ui.activate", "click", "ui.toggle", "ui.expand", "ui.collapse",
                                        "ui.choose", "ui.dismiss", "nav.navigate", "ui.enterText", NULL};

/* 1: scope s of g is the scope with id `id` or lies inside it. */
static int scope_inside(const pg_graph *g, int s, const char *id) {
  for (int steps = 0; s >= 0 && (size_t)s < g->nscopes && steps < 4096; s = g->scopes[s].parent, steps++)
    if (!strcmp(g->scopes[s].scope_id, id)) return 1;
  return 0;
}

/* The target of args in g (web 3.2): by stableId, else role and name --
 * inside scopeId when given -- and ordinal (the n-th among those). */
static const pg_element *act_target(const pg_graph *g, const cJSON *t, int *ambiguous) {
  const char *sid = crawl__str(t, "stableId"), *scope = crawl__str(t, "scopeId");
  const char *role = crawl__str(t, "role"), *name = crawl__str(t, "name");
  int ordinal = (int)crawl__num(t, "ordinal", 0), seen = 0;
  if (sid) { /* with role and name when given; several alike: none (the caller says ambiguous) */
    const pg_element *found = NULL;
    for (size_t i = 0; i < g->nelements; i++) {
      const pg_element *e = &g->elements[i];
      if (!e->stable_id || strcmp(e->stable_id, sid) || (role && strcmp(e->role, role)) ||
          (name && strcmp(e->name ? e->name : "", name)))
        continue;
      if (found) return *ambiguous = 1, NULL;
      found = e;
    }
    return found;
  }
  if (!scope) return crawl__act_find(g, role, name, NULL, NULL, ordinal);
  for (size_t i = 0; role && i < g->nelements; i++) {
    const pg_element *e = &g->elements[i];
    if (strcmp(e->role, role) || strcmp(e->name ? e->name : "", name ? name : "")) continue;
    if (scope_inside(g, e->scope, scope) && seen++ == ordinal) return e;
  }
  return NULL;
}

/* Ordinal of e among the elements of g with its role and name. */
static int page_ordinal(const pg_graph *g, const pg_element *e) {
  int n = 0;
  for (const pg_element *x = g->elements; x < e; x++)
    n += !strcmp(x->role, e->role) && !strcmp(x->name ? x->name : "", e->name ? e->name : "");
  return n;
}

/* An open dialog by stableId or name, for ui.dismiss (Escape). */
static const pg_scope *act_dialog(const pg_graph *g, const cJSON *t) {
  const char *sid = crawl__str(t, "stableId"), *name = crawl__str(t, "name");
  for (size_t k = 0; k < g->nscopes; k++) {
    const pg_scope *sc = &g->scopes[k];
    if (!pg_state_is(&sc->state, PG_ST_OPEN) || (sc->kind != PG_SCOPE_DIALOG && sc->kind != PG_SCOPE_DRAWER)) continue;
    if (sid ? sc->stable_id && !strcmp(sc->stable_id, sid) : !name || (sc->name && !strcmp(sc->name, name))) return sc;
  }
  return NULL;
}

/* A <select>'s option by label: a->option, option_index, option_from, and
 * the decision, which also covers each option the arrow keys pass on the
 * way (as the crawler decides, explore.c select_actions). 0, or -1 with
 * a tool error. */
static int act_select(crawl_mcp *m, const pg_element *e, const char *label, action *a, mcp__result *r) {
  cJSON *v = NULL;
  if (crawl__act_call(m->page, e->backend_node_id, CRAWL__JS(select_options), &v) || !cJSON_IsObject(v)) {
    cJSON_Delete(v);
    return fail(r, "cannot read the select's options"), -1;
  }
  const cJSON *opts = crawl__get(v, "o");
  int cur = (int)crawl__num(v, "i", -1), k = -1, n = cJSON_GetArraySize(opts);
  for (int j = 0; j < n && k < 0; j++)
  {
    const char *l = cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetArrayItem(opts, j), 0));
    if (l && !strcmp(l, label)) k = j;
  }
  if (k < 0 || k >= 64) {
    cJSON_Delete(v);
    return fail(r, "the select has no option \"%s\"", label), -1;
  }
  a->action_id = "ui.choose";
  a->option = (char *)label;
  a->option_index = k;
  a->option_from = cur;
  crawl__act_decide(&m->o.policy, m->first_origin, m->allowed, a, e);
  for (int j = (cur < k ? cur : k) + 1; a->dec.effect == POL_EFFECT_ALLOW && j < (cur < k ? k : cur); j++) {
    action t = {.action_id = "ui.choose", .role = e->role, .name = a->name,
                .option = cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetArrayItem(opts, j), 0))};
    if (!t.option || cJSON_IsTrue(cJSON_GetArrayItem(cJSON_GetArrayItem(opts, j), 1))) continue;
    crawl__act_decide(&m->o.policy, m->first_origin, m->allowed, &t, e);
    if (t.dec.effect != POL_EFFECT_ALLOW) {
      char why[384];
      a->dec = t.dec;
      snprintf(why, sizeof why, "%s: the arrow keys pass over option %d on the way, which the policy does not allow",
               pol_effect_name(t.dec.effect), j);
      a->dec.text = crawl__act_text(why);
    }
  }
  cJSON_Delete(v);
  return 0;
}

/* The action on element e that args ask for, decided: 0, or -1 with a
 * tool error (an action this element does not take). */
static int act_element(crawl_mcp *m, const pg_element *e, const char *asked, const cJSON *args, action *a,
                       mcp__result *r) {
  const char *own = crawl__act_for(e), *option = crawl__str(args, "option");
  a->role = e->role;
  a->name = e->name ? e->name : "";
  a->stable_id = e->stable_id;
  if (option && e->tag && !strcasecmp(e->tag, "select")) return act_select(m, e, option, a, r);
  int generic = !strcmp(asked, "ui.activate") || !strcmp(asked, "click");
  if (!own || (!generic && strcmp(asked, own))) {
    fail(r, "%s \"%s\" takes %s, not %s", e->role, a->name, own ? own : "no action the crawler performs", asked);
    return -1;
  }
  a->action_id = (char *)own;
  crawl__act_decide(&m->o.policy, m->first_origin, m->allowed, a, e);
  return 0;
}

static void act_done(crawl_mcp *m, const action *a, const cJSON *before, int blocked0, mcp__result *r) {
  crawl_page_settle(m->page);
  pg_graph *g = capture(m, r);
  if (!g) return;
  cJSON *now = pg_graph_to_json(g);
  say(r, "done: %s %s \"%s\"%s%s\n", a->action_id, a->role, a->name, a->option ? " -> " : "", a->option ? a->option : "");
  changes_text(m, &r->text, before, now, blocked0);
  cJSON_Delete(now);
  pg_graph_free(g);
}

/* The action begins: what the page requested before is not its own. */
static void act_requests_begin(crawl_mcp *m) {
  crawl__netlog *nl = crawl__page_netlog(m->page);
  crawl__netlog_ctx ctx = {.phase = "action"};
  if (nl) cJSON_Delete(crawl__netlog_record(nl, &ctx, cdp_now_ms()));
  crawl__netlog_begin(nl, "action", cdp_now_ms());
}

/* The requests the action made, to the app's origins (netlog.c), as a line
 * "requests: [{method, template, status, guard}, ...]"; the log is
 * emptied for the next action. */
static void act_requests(crawl_mcp *m, mcp__result *r) {
  crawl__netlog *nl = crawl__page_netlog(m->page);
  if (!nl) return;
  cJSON *brief = crawl__netlog_brief(nl);
  char *t = cJSON_PrintUnformatted(brief);
  say(r, "requests: %s\n", t ? t : "[]");
  free(t);
  cJSON_Delete(brief);
  crawl__netlog_idle(nl); /* taken by the next action's begin */
}

static int act_args(const cJSON *args, const char **asked, const cJSON **target, mcp__result *r) {
  *asked = crawl__str(args, "action");
  *target = crawl__get(args, "target");
  if (!*asked || !cJSON_IsObject(*target)) return bad(r, "act needs action (a string) and target (an object)");
  if (!crawl__str(*target, "stableId") && !crawl__str(*target, "role") && strcmp(*asked, "ui.dismiss"))
    return bad(r, "target is {stableId} or {role, name, ordinal?}");
  for (int i = 0; act_names[i]; i++)
    if (!strcmp(*asked, act_names[i])) return 0;
  return bad(r, "unknown action %s (ui.activate, ui.toggle, ui.expand, ui.collapse, ui.choose, ui.dismiss, "
                "nav.navigate, ui.enterText)", *asked);
}

/* Decide a on g's page; refused: a tool error with the decision, nothing done. */
static int act_decided(crawl_mcp *m, pg_graph *g, const pg_element *e, const pg_scope *dialog, const cJSON *args,
                       mcp__result *r) {
  const char *asked = crawl__str(args, "action"), *value = crawl__str(args, "value");
  action a = {.escape = dialog != NULL};
  if (dialog) {
    a = (action){.action_id = "ui.dismiss", .role = "dialog", .name = dialog->name ? dialog->name : "", .escape = 1};
    crawl__act_decide(&m->o.policy, m->first_origin, m->allowed, &a, NULL);
  } else if (act_element(m, e, asked, args, &a, r)) {
    return 0;
  }
  if (a.dec.effect != POL_EFFECT_ALLOW)
    return fail(r, "refused: %s %s (side effect %s): %s Nothing was done.", pol_effect_name(a.dec.effect),
                pol_reason_name(a.dec.reason), pol_side_effect_name(a.cls.side_effect), a.dec.text ? a.dec.text : "");
  if (value && strcmp(a.action_id, "ui.enterText")) return fail(r, "value is for ui.enterText only");
  if (e) { /* perform finds e again: the node decided on, its ordinal on the page and its scope */
    a.ordinal = page_ordinal(g, e);
    a.scope_key = crawl__act_scope_key(g, e->scope);
    a.backend = e->backend_node_id;
  }
  cJSON *before = pg_graph_to_json(g);
  int blocked0 = crawl_page_blocked(m->page, NULL);
  char why[512] = "";
  act_gate gate = {.policy = &m->o.policy, .page_origin = m->first_origin, .allowed = m->allowed};
  act_requests_begin(m);
  crawl_code rc = crawl__act_perform(m->page, g, &gate, &a, value, NULL, why, sizeof why);
  if (rc) fail(r, "could not %s %s \"%s\": %s", a.action_id, a.role, a.name, why[0] ? why : crawl_strerror(rc));
  else act_done(m, &a, before, blocked0, r);
  act_requests(m, r);
  free(a.scope_key);
  cJSON_Delete(before);
  return 0;
}

static int t_act(crawl_mcp *m, const cJSON *args, mcp__result *r) {
  const char *asked;
  const cJSON *target;
  if (act_args(args, &asked, &target, r)) return -1;
  if (need_page(m, r)) return 0;
  pg_graph *g = capture(m, r);
  if (!g) return 0;
  const pg_scope *dialog = !strcmp(asked, "ui.dismiss") ? act_dialog(g, target) : NULL;
  int ambiguous = 0;
  const pg_element *e = dialog ? NULL : act_target(g, target, &ambiguous);
  if (!dialog && ambiguous)
    fail(r, "ambiguous target: several elements carry stableId \"%s\"; name the one you mean with role and name "
            "as well. Nothing was done.", crawl__str(target, "stableId"));
  else if (!dialog && !e)
    fail(r, "target not found on the current page (take a new snapshot)");
  else
    act_decided(m, g, e, dialog, args, r);
  pg_graph_free(g);
  return 0;
}

/* ---- crawl ------------------------------------------------------------------ */
static int crawl_dir(crawl_mcp *m, char *dir, size_t n) {
  const char *root = m->o.output_root ? m->o.output_root : getenv("TMPDIR");
  snprintf(dir, n, "%s/uiap-mcp-crawl-XXXXXX", root && *root ? root : "/tmp");
  return mkdtemp(dir) ? 0 : -1;
}

static int t_crawl(crawl_mcp *m, const cJSON *args, mcp__result *r) {
  const char *url = crawl__str(args, "url");
  double states = crawl__num(args, "maxStates", 50), ms = crawl__num(args, "maxRuntimeMs", 60000);
  if (!url) return bad(r, "crawl needs url (a string)");
  if (states < 1 || states > 10000) return bad(r, "maxStates is 1..10000");
  if (ms < 1000 || ms > 3600000) return bad(r, "maxRuntimeMs is 1000..3600000");
  if (origin_check(m, url, r)) return 0;
  char dir[4096], err[512] = "no browser configured";
  if (crawl_dir(m, dir, sizeof dir)) return fail(r, "cannot make a directory for the package under %s", dir);
  /* a browser of its own: the session's tab would take the run's tab for
   * a popup and close it, and the run starts from no cookies of the session */
  cdp_client *c = NULL;
  if (!m->o.browser || m->o.browser(m->o.browser_ud, &c, err, sizeof err) || !c)
    return fail(r, "cannot start a browser for the crawl: %s", err);
  const char *urls[] = {url, NULL};
  crawl_opts co = {.out_dir = dir, .urls = urls, .policy = m->o.policy, .allow_origins = m->allowed,
                   .allow_reads = m->o.allow_reads,
                   .budget = {.max_states = (long)states, .max_runtime_ms = (long)ms},
                   .width = m->o.width, .height = m->o.height, .redact_pii = m->o.redact_pii};
  crawl_summary sum = {0};
  crawl_code rc = crawl_run(c, &co, &sum);
  cdp_client_free(c);
  crawl__log_secrets(m->secrets); /* the run set its own list and cleared it */
  if (rc) return fail(r, "crawl failed: %s", sum.error[0] ? sum.error : crawl_strerror(rc));
  if (!sum.states || strcmp(sum.status, "completed")) r->is_error = 1; /* the package says why */
  say(r, "crawl %s: %ld states, %ld transitions, %ld decisions, %ld review items; stopped by %s\n", sum.status,
      sum.states, sum.transitions, sum.decisions, sum.reviews, sum.stopped_by);
  say(r, "package: %s/package.json\n", dir);
  return 0;
}

/* ---- the table ------------------------------------------------------------------ */
const mcp__tool mcp__tools[] = {
  {"navigate", "Load a URL in the tab. Only the session's origins: the first URL's, and those given with "
               "--allow-origin.",
   "{\"type\":\"object\",\"properties\":{\"url\":{\"type\":\"string\"}},\"required\":[\"url\"]}", t_navigate},
  {"snapshot", "The page's interactive elements as a compact tree (text, default) or PageGraph JSON; each "
               "element marked with the safety policy's decision for the action the crawler would take "
               "([allowed], [denied: destructive], ...). Scopes end with <scopeId>. Sets the baseline for changes.",
   "{\"type\":\"object\",\"properties\":{\"format\":{\"type\":\"string\",\"enum\":[\"text\",\"json\"]},"
   "\"scope\":{\"type\":\"string\",\"description\":\"a scopeId: only that scope\"},"
   "\"maxNodes\":{\"type\":\"integer\",\"minimum\":1}}}", t_snapshot},
  {"act", "Do one action on an element, after the crawler's safety decision: a refused action is an error "
          "naming the decision, and nothing happens. Target by stableId, or role and name, inside scopeId "
          "when given (ordinal: the n-th of those, from 0). Replies with what changed.",
   "{\"type\":\"object\",\"properties\":{\"action\":{\"type\":\"string\",\"enum\":[\"ui.activate\",\"click\","
   "\"ui.toggle\",\"ui.expand\",\"ui.collapse\",\"ui.choose\",\"ui.dismiss\",\"nav.navigate\",\"ui.enterText\"]},"
   "\"target\":{\"type\":\"object\",\"properties\":{\"stableId\":{\"type\":\"string\"},\"role\":{\"type\":\"string\"},"
   "\"name\":{\"type\":\"string\"},\"scopeId\":{\"type\":\"string\"},"
   "\"ordinal\":{\"type\":\"integer\",\"minimum\":0}}},"
   "\"value\":{\"type\":\"string\",\"description\":\"ui.enterText: the text\"},"
   "\"option\":{\"type\":\"string\",\"description\":\"ui.choose on a select: the option's label\"}},"
   "\"required\":[\"action\",\"target\"]}", t_act},
  {"changes", "What changed since the last snapshot: elements and scopes added (+), changed (~) or removed "
              "(-), the route, signals, and requests the write guard refused.",
   "{\"type\":\"object\",\"properties\":{}}", t_changes},
  {"crawl", "A bounded discovery run from url behind the same safety gate; returns the summary and the "
            "path of the UIAP package.",
   "{\"type\":\"object\",\"properties\":{\"url\":{\"type\":\"string\"},\"maxStates\":{\"type\":\"integer\","
   "\"minimum\":1},\"maxRuntimeMs\":{\"type\":\"integer\",\"minimum\":1000}},\"required\":[\"url\"]}", t_crawl},
  {NULL, NULL, NULL, NULL},
};

/* explore_actions.c -- the actions of a state: built from the current
 * capture (each actionable element, a <select>'s options, Escape for an
 * open dialog), decided by the gate (act.c) and ordered; the gate's
 * decisions journaled when the state is prepared; an action's identity as
 * the journal records it (action_key). Not their execution (explore_step.c). */
#include "explore_int.h"

#include <strings.h>

/* ---- actions of a state ---------------------------------------------------------------- */

static const char *action_for(const pg_element *e) { return crawl__act_for(e); }

#define MAX_TEXT_FIELDS 16 /* text fields per state whose form and surroundings are read */

static int cmp_action(const void *a, const void *b) {
  const action *x = a, *y = b;
  return x->rank - y->rank;
}

static void decide_plain(run *r, action *a, const pg_element *e) {
  crawl__act_decide(&r->o->policy, r->page_origin, r->allowed, a, e);
}

/* The gate's decision; a control nothing settles (a->probe) is to be
 * tried under the seal: allowed for now, its decision taken by the probe
 * (explore_probe.c). */
static void decide(run *r, action *a, const pg_element *e) {
  decide_plain(r, a, e);
  if (a->probe) crawl__run_probe_pending(a);
}

/* ui.enterText on e: decided on the field's form and surroundings as well
 * (act_text.c) when page_facts read them (v: js/text_field.js's value); a
 * field that reads (a search box, a GET form's field, a filter) gets its
 * value from the page. */
static void decide_text(run *r, action *a, const pg_element *e, const cJSON *v) {
  act_field f;
  if (!v || crawl__act_field_from(v, &f)) {
    decide(r, a, e);
    return;
  }
  crawl__act_decide_field(&r->o->policy, r->page_origin, r->allowed, a, e, &f);
  if (a->cls.side_effect == POL_SE_READ) crawl__act_text_choose(a, &f, r->secrets);
  crawl__act_field_release(&f);
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

/* What the gate reads of the page beyond the graph, per element index
 * (NULL for the others; crawl__act_results_free): for every <select>,
 * js/select_options.js (a single-choice select's selected index and its
 * options' labels and disabled flags, {"i":N,"o":[[label,disabled],...]},
 * at most 64); for the first MAX_TEXT_FIELDS text fields reach[] allows
 * where a mode may type a search (not observe_only), js/text_field.js
 * (act_text.c). All in two pipelined rounds however many there are. */
static cJSON **page_facts(run *r, const pg_graph *g, const char *reach) {
  const char **fns = crawl__xcalloc(g->nelements ? g->nelements : 1, sizeof *fns);
  int fields = 0, any = 0;
  int typing = r->o->policy.mode != POL_MODE_OBSERVE_ONLY;
  for (size_t i = 0; i < g->nelements; i++) {
    const pg_element *e = &g->elements[i];
    if (is_select(e)) fns[i] = CRAWL__JS(select_options);
    else if (typing && reach[i] && fields < MAX_TEXT_FIELDS && crawl__act_text_candidate(e) &&
             action_for(e) && !strcmp(action_for(e), "ui.enterText"))
      fns[i] = CRAWL__JS(text_field), fields++;
    any |= fns[i] != NULL;
  }
  cJSON **v = any ? crawl__act_call_each(r->page, g, fns) : NULL;
  free(fns);
  return v;
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
    decide_plain(r, &t, e); /* passed over unsealed: a probe candidate blocks the way */
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

/* reach[i]: element i of g can be acted on -- visible, enabled, with an
 * action, and inside the open modal dialog when there is one. Caller frees. */
static char *reachable(const pg_graph *g) {
  char *reach = crawl__xcalloc(g->nelements ? g->nelements : 1, 1);
  int modal = -1;
  for (size_t k = 0; k < g->nscopes; k++)
    if (crawl__run_open_dialog(&g->scopes[k]) && pg_state_is(&g->scopes[k].state, PG_ST_MODAL))
      modal = (int)k;
  for (size_t i = 0; i < g->nelements; i++) {
    const pg_element *e = &g->elements[i];
    if (!pg_state_is(&e->state, PG_ST_VISIBLE) || !pg_state_is(&e->state, PG_ST_ENABLED) || !e->actions) continue;
    int inside = modal < 0;
    for (int sc = e->scope; sc >= 0 && !inside; sc = g->scopes[sc].parent) inside = sc == modal;
    reach[i] = (char)inside;
  }
  return reach;
}

/* Build the action list of state si from the current capture. */
static void build_actions(run *r, int si) {
  state *s = &r->f.st[si];
  const pg_graph *g = r->g;
  s->cap_acts = (int)(g->nelements + g->nscopes + 1);
  s->acts = crawl__xcalloc((size_t)s->cap_acts, sizeof *s->acts);
  int n = 0;
  int *ord = element_ordinals(g);
  char *reach = reachable(g);
  cJSON **facts = page_facts(r, g, reach);
  for (size_t i = 0; i < g->nelements; i++) {
    const pg_element *e = &g->elements[i];
    if (!reach[i]) continue;
    if (is_select(e)) {
      n = select_actions(r, si, e, facts ? facts[i] : NULL, ord[i], n);
      s = &r->f.st[si];
      continue;
    }
    const char *aid = action_for(e);
    if (!aid) continue;
    action *a = acts_slot(s, n);
    action_init(a, aid, g, e, ord[i]);
    a->here = (!strcmp(e->role, "tab") && pg_state_is(&e->state, PG_ST_SELECTED)) ||
              (e->href && s->url && !strcmp(e->href, s->url));
    if (!strcmp(aid, "ui.enterText")) decide_text(r, a, e, facts ? facts[i] : NULL);
    else decide(r, a, e);
    n++;
  }
  free(reach);
  free(ord);
  crawl__act_results_free(facts, g->nelements);
  n = crawl__run_draft_actions(r, si, n); /* sandbox_write: form drafts */
  s = &r->f.st[si];
  /* an open dialog can be dismissed with Escape */
  for (size_t k = 0; k < g->nscopes; k++) {
    const pg_scope *sc = &g->scopes[k];
    if (!crawl__run_open_dialog(sc)) continue;
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
void crawl__run_action_key(char *buf, size_t n, const char *action_id, const cJSON *target_or_null,
                       const cJSON *args_or_null, const action *a) {
  if (a) {
    snprintf(buf, n, "%s|%s|%s|%s|%d%s%.200s%s", a->action_id ? a->action_id : "", a->role ? a->role : "",
             a->name ? a->name : "", a->stable_id ? a->stable_id : "", a->ordinal, a->option ? "|" : "",
             a->option ? a->option : "", a->draft == 2 ? "|draft:required_empty" : "");
    return;
  }
  const char *option = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args_or_null, "option"));
  const cJSON *t = target_or_null;
  const cJSON *ord = cJSON_GetObjectItemCaseSensitive(t, "ordinal");
  const char *sid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "stableId"));
  const char *role = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "role"));
  const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "name"));
  const char *draft = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(args_or_null, "draft"), "mode"));
  snprintf(buf, n, "%s|%s|%s|%s|%d%s%.200s%s", action_id ? action_id : "", role ? role : "", name ? name : "",
           sid ? sid : "", cJSON_IsNumber(ord) ? ord->valueint : 0, option ? "|" : "", option ? option : "",
           draft && !strcmp(draft, "required_empty") ? "|draft:required_empty" : "");
}

/* Build the action list of state si (the page shows si) and journal the
 * gate's decisions for what it will not do. */
void crawl__run_prepare_state(run *r, int si) {
  state *s = &r->f.st[si];
  build_actions(r, si);
  s = &r->f.st[si];
  for (int i = 0; i < s->nacts; i++) {
    char key[1200];
    crawl__run_action_key(key, sizeof key, NULL, NULL, NULL, &s->acts[i]);
    for (int k = 0; k < s->ndone; k++)
      if (!strcmp(s->done[k], key)) s->acts[i].done = 1;
    fr_outcome_keys(&r->f, key, s->route, &s->acts[i].pk, &s->acts[i].pkr);
  }
  if (r->bl) crawl__run_baseline_prepared(r, si);
  fr_state_sig(&r->f, si);
  if (s->decided) return; /* a resumed run journaled them already */
  s->decided = 1;
  long allowed = 0, probes = 0;
  for (int i = 0; i < s->nacts; i++) {
    action *a = &s->acts[i];
    if (a->probe) { probes++; continue; } /* decided by its probe (explore_probe.c) */
    if (a->dec.effect == POL_EFFECT_ALLOW) { allowed++; continue; }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "stateId", s->id);
    cJSON_AddStringToObject(o, "actionId", a->action_id);
    cJSON_AddItemToObject(o, "target", crawl__run_target_json(a));
    crawl__run_add_args(o, a);
    cJSON_AddStringToObject(o, "sideEffectClass", pol_side_effect_name(a->cls.side_effect));
    cJSON_AddStringToObject(o, "effect", pol_effect_name(a->dec.effect));
    cJSON_AddStringToObject(o, "reason", pol_reason_name(a->dec.reason));
    cJSON_AddStringToObject(o, "rule", a->cls.rule);
    if (a->cls.keyword) cJSON_AddStringToObject(o, "keyword", a->cls.keyword);
    cJSON_AddStringToObject(o, "text", a->dec.text ? a->dec.text : "");
    crawl__run_jl_write(r, "decision", o);
    r->decisions++;
  }
  /* what the gate let through here (the package's metadata.gate) */
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "stateId", s->id);
  cJSON_AddNumberToObject(o, "allowed", (double)allowed);
  if (probes) cJSON_AddNumberToObject(o, "probes", (double)probes);
  crawl__run_jl_write(r, "gate", o);
}

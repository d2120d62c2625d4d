/* explore_forms.c -- form drafts among a state's actions (sandbox_write
 * only, discovery-mapper 11.5 step 6): each submit control of a form is
 * clicked with its form filled first (action.draft 1, act_form.c), and once
 * more with one required field left empty (draft 2) to record the form's
 * validation; the draft's record goes into the transition's args.draft.
 * The fields of such a form are not typed into one by one as well.
 * Both are decided as the submit control itself is: the gate and the
 * plan's allow flags say whether it is clicked at all. */
#include "explore_int.h"

#include <stdio.h>

static const pg_element *element_of(const pg_graph *g, int backend) {
  for (size_t i = 0; backend > 0 && i < g->nelements; i++)
    if (g->elements[i].backend_node_id == backend) return &g->elements[i];
  return NULL;
}

/* The form scope e lies in (its nearest), or -1. */
static int form_scope(const pg_graph *g, const pg_element *e) {
  for (int sc = e ? e->scope : -1, steps = 0; sc >= 0 && (size_t)sc < g->nscopes && steps < 4096;
       sc = g->scopes[sc].parent, steps++)
    if (g->scopes[sc].kind == PG_SCOPE_FORM) return sc;
  return -1;
}

static const char *const field_actions[] = {"ui.enterText", "ui.toggle", "ui.choose"};

/* 1 when action a fills a field of a form in `drafted` (a draft fills it). */
static int filled_by_draft(const run *r, const action *a, const char *drafted) {
  if (a->draft) return 0;
  int field = 0;
  for (size_t k = 0; k < sizeof field_actions / sizeof *field_actions; k++) field |= !strcmp(a->action_id, field_actions[k]);
  int sc = field ? form_scope(r->g, element_of(r->g, a->backend)) : -1;
  return sc >= 0 && drafted[sc];
}

/* The field actions of the forms a draft fills, dropped from [0, n):
 * typed one by one they only multiply states of a half-filled form. */
static int drop_drafted_fields(run *r, int si, int n, const char *drafted) {
  state *s = &r->f.st[si];
  int kept = 0;
  for (int i = 0; i < n; i++) {
    if (filled_by_draft(r, &s->acts[i], drafted)) { fr_action_free(&s->acts[i]); continue; }
    if (kept != i) s->acts[kept] = s->acts[i];
    kept++;
  }
  return kept;
}

/* "mode|role|name|stableId": a draft of one submit control, once per run
 * (a second sign-up from the form's error state would be a second record). */
static void draft_key(char *buf, size_t n, const char *mode, const char *role, const char *name, const char *sid) {
  snprintf(buf, n, "%s|%s|%.300s|%.200s", mode, role ? role : "", name ? name : "", sid ? sid : "");
}

static int drafted_before(run *r, const action *a, int mode) {
  char key[700];
  draft_key(key, sizeof key, mode == 2 ? "required_empty" : "valid", a->role, a->name, a->stable_id);
  return crawl__strmap_get(&r->drafted, key) >= 0;
}

int crawl__run_draft_actions(run *r, int si, int n) {
  if (r->o->policy.mode != POL_MODE_SANDBOX_WRITE || !r->g->nscopes) return n;
  char *drafted = crawl__xcalloc(r->g->nscopes, 1);
  int base = n;
  for (int i = 0; i < base; i++) {
    state *s = &r->f.st[si];
    const pg_element *e = s->acts[i].option || s->acts[i].escape ? NULL : element_of(r->g, s->acts[i].backend);
    if (!e || !e->is_submit || !e->form_method) continue; /* no owner form */
    s->acts[i].draft = 1;
    s->acts[i].done |= drafted_before(r, &s->acts[i], 1);
    int sc = form_scope(r->g, e);
    if (sc >= 0) drafted[sc] = 1;
    if (s->acts[i].dec.effect != POL_EFFECT_ALLOW) continue; /* one decision line per control */
    if (n >= s->cap_acts) {
      s->cap_acts = n >= 8 ? n * 2 : 8;
      s->acts = crawl__xrealloc(s->acts, (size_t)s->cap_acts * sizeof *s->acts);
    }
    action *v = &s->acts[n++];
    fr_action_copy(v, &s->acts[i]);
    v->scope_id = crawl__xstrdup(s->acts[i].scope_id);
    v->document_id = crawl__xstrdup(s->acts[i].document_id);
    v->cls = s->acts[i].cls;
    v->dec = s->acts[i].dec;
    v->rank = s->acts[i].rank;
    v->backend = s->acts[i].backend;
    v->draft = 2;
    v->done = drafted_before(r, v, 2);
  }
  n = drop_drafted_fields(r, si, n, drafted);
  free(drafted);
  return n;
}

void crawl__run_add_draft(run *r, cJSON *o) {
  cJSON *d = crawl__form_draft_take();
  if (!d) return;
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "target");
  char key[700];
  draft_key(key, sizeof key, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "mode")),
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "role")),
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "name")),
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "stableId")));
  crawl__strmap_put(&r->drafted, key, 1);
  cJSON *args = cJSON_GetObjectItemCaseSensitive(o, "args");
  if (!cJSON_IsObject(args)) args = cJSON_AddObjectToObject(o, "args");
  cJSON_AddItemToObject(args, "draft", d);
}

/* workflow_candidate.c -- one workflow candidate built from one structure: its
 * parameters, the path from a seed, the input, commit and ensure steps,
 * the signals seen, which steps ran (metadata), its confidence and its
 * review items (missing_success_signal, workflow_uncertain).
 */
#include "workflow_int.h"
/* ---- building one candidate ------------------------------------------------------------ */
static int rec_matches(const wf_rec *r, const char *role, const char *name, const char *stable) {
  if (stable && r->stable_id) return !strcmp(stable, r->stable_id);
  return r->role && role && !strcmp(r->role, role) && !strcmp(r->name ? r->name : "", name ? name : "");
}

static cJSON *target_json(const char *stable, const char *role, const char *name, const char *scope) {
  cJSON *t = crawl__jx(cJSON_CreateObject());
  crawl__jstr(t, "stableId", stable);
  crawl__jstr(t, "role", role);
  crawl__jstr(t, "name", name);
  crawl__jstr(t, "scopeId", scope);
  return t;
}

void wf_ev_add(cJSON *ev, const char *source, const char *ref, const char *note) {
  if (!ref || cJSON_GetArraySize(ev) >= WF_EVIDENCE_MAX) return;
  cJSON *o = crawl__jx(cJSON_CreateObject());
  crawl__jstr(o, "source", source);
  crawl__jstr(o, "refId", ref);
  crawl__jstr(o, "note", note);
  crawl__jpush(ev, o);
}

typedef struct wf_param { char *name; int guessed; } wf_param;

/* A parameter name for field f, unique among used (and added to it). */
static wf_param param_name(const wf_field *f, crawl__strmap *used) {
  char *base = NULL;
  int guessed = 0;
  if (f->meaning && *f->meaning) base = wf_slug(f->meaning);
  if ((!base || !*base) && f->stable) {
    free(base);
    const char *dot = strrchr(f->stable, '.');
    base = wf_slug(dot ? dot + 1 : f->stable);
  }
  if ((!base || !*base) && f->name) { free(base); base = wf_slug(f->name); }
  if (!base || !*base) { free(base); base = wf_slug(f->role); guessed = 1; }
  char *name = crawl__xstrdup(base);
  for (int k = 2; crawl__strmap_get(used, name) >= 0; k++) {
    free(name);
    name = crawl__xprintf("%s_%d", base, k);
  }
  free(base);
  crawl__strmap_put(used, name, 0);
  return (wf_param){name, guessed};
}

static cJSON *param_json(const wf_field *f, const char *name) {
  cJSON *p = crawl__jx(cJSON_CreateObject());
  crawl__jstr(p, "name", name);
  const char *it = f->input_type;
  pol_subject s = {.role = f->role, .tag = f->tag, .input_type = it, .sensitive = f->sensitive ? "true" : NULL};
  pol_data_class dc = pol_subject_data_class(&s);
  if (dc == POL_DC_NONE && f->meaning) {
    pol_subject m = {.autocomplete = f->meaning};
    dc = pol_subject_data_class(&m);
  }
  const char *type = "string";
  if (!strcmp(f->role, "checkbox") || !strcmp(f->role, "switch")) type = "boolean";
  else if (!strcmp(f->role, "combobox") || !strcmp(f->role, "listbox") || !strcmp(f->role, "radio")) type = "enum";
  else if (!strcmp(f->role, "spinbutton") || !strcmp(f->role, "slider") || (it && (!strcmp(it, "number") || !strcmp(it, "range")))) type = "number";
  else if (it && (!strcmp(it, "date") || !strcmp(it, "datetime-local") || !strcmp(it, "month") || !strcmp(it, "week") || !strcmp(it, "time"))) type = "date";
  if ((it && !strcmp(it, "password")) || dc == POL_DC_CREDENTIAL || dc == POL_DC_SECRET) type = "secret";
  if (dc == POL_DC_NONE && f->editable && (!it || !strcmp(it, "text") || !strcmp(it, "search") || (f->tag && !strcasecmp(f->tag, "textarea"))))
    dc = POL_DC_FREE_TEXT;
  crawl__jstr(p, "type", type);
  crawl__jset(p, "required", cJSON_CreateBool(f->required));
  crawl__jstr(p, "meaning", f->meaning);
  if (dc != POL_DC_NONE) crawl__jstr(p, "dataClass", pol_data_class_name(dc));
  if (f->name) crawl__jstr(p, "description", f->name);
  return p;
}

static const char *field_action(const wf_field *f) {
  if (!strcmp(f->role, "checkbox") || !strcmp(f->role, "switch")) return "ui.toggle";
  if (!strcmp(f->role, "combobox") || !strcmp(f->role, "listbox") || !strcmp(f->role, "radio")) return "ui.choose";
  return "ui.enterText";
}

/* What happened to (action on) a target: executed (and signals), or gated. */
typedef struct wf_seen { int executed, with_signal; const wf_rec *gate; } wf_seen;
static wf_seen wf_seen_of(const wf *w, const char *role, const char *name, const char *stable, const char *route,
                          cJSON *signals /* canonical texts collected, may be NULL */, cJSON *ev) {
  wf_seen r = {0};
  for (size_t i = 0; i < w->nrecs; i++) {
    const wf_rec *x = w->recs[i];
    if (!rec_matches(x, role, name, stable)) continue;
    long si = wf_state_index(w, x->state);
    if (!stable && (si < 0 || strcmp(w->st[si].route, route))) continue; /* a name means something per route */
    if (x->kind == CRAWL__REC_TRANSITION) {
      r.executed++;
      int n = cJSON_GetArraySize(x->signals);
      if (n) r.with_signal++;
      if (ev) wf_ev_add(ev, "transition", x->id, NULL);
      const cJSON *sg;
      cJSON_ArrayForEach(sg, x->signals) {
        if (!signals || !cJSON_IsObject(sg)) continue;
        cJSON *c = cJSON_Duplicate(sg, 1);
        cJSON_DeleteItemFromObjectCaseSensitive(c, "scopeIdentity"); /* the journal's, not a SuccessSignal's */
        char *t = crawl__jtext(c, 0);
        cJSON_Delete(c);
        int dup = 0;
        const cJSON *u;
        cJSON_ArrayForEach(u, signals) dup |= !strcmp(u->valuestring, t);
        if (!dup) crawl__jpush(signals, cJSON_CreateString(t));
        free(t);
      }
    } else if (x->effect && strcmp(x->effect, "allow")) {
      static const char *const order[] = {"skip", "review", "deny"};
      int a = 0, b = 0;
      for (int k = 0; k < 3; k++) {
        if (!strcmp(order[k], x->effect)) a = k + 1;
        if (r.gate && !strcmp(order[k], r.gate->effect)) b = k + 1;
      }
      if (a > b) r.gate = x;
    }
  }
  return r;
}

static int cmp_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Texts (canonical JSON) -> sorted array of objects. */
static cJSON *signals_json(const cJSON *texts) {
  int n = cJSON_GetArraySize(texts);
  char **v = crawl__xcalloc((size_t)n, sizeof *v);
  int i = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, texts) v[i++] = t->valuestring;
  qsort(v, (size_t)n, sizeof *v, cmp_text);
  cJSON *a = crawl__jx(cJSON_CreateArray());
  for (i = 0; i < n; i++) crawl__jpush(a, crawl__jx(cJSON_Parse(v[i])));
  free(v);
  return a;
}


/* One candidate being built: what its sections fill in and hand on. */
typedef struct wf_cand {
  const wf_struct *s;
  const char *id;
  const char *commit_label;  /* the commit control in words */
  const char *commit_action;
  cJSON *c;                  /* the candidate (returned) */
  cJSON *steps, *ev, *routes, *inputs, *stepmeta; /* linked into c at the end */
  crawl__strmap used;        /* parameter names taken */
  cJSON *not_run;            /* steps never executed, in words */
  cJSON *sigtexts;           /* success signals, canonical texts */
  int np, no_path, guessed, nsig;
  wf_seen commit;            /* what happened to the commit control */
} wf_cand;

/* title and category */
static void cand_title(wf_cand *k) {
  const wf_struct *s = k->s;
  char *title;
  if (!strcmp(s->kind, "dialog") && s->scope_name && *s->scope_name && s->c_name && strcasecmp(s->scope_name, s->c_name))
    title = crawl__xprintf("%s: %s", s->scope_name, s->c_name);
  else title = crawl__xstrdup(s->c_name && *s->c_name ? s->c_name : s->scope_name ? s->scope_name : s->c_app ? s->c_app : k->id);
  crawl__jstr(k->c, "title", title);
  const char *texts[] = {title, s->c_app, s->scope_stable, s->scope_name, s->route};
  crawl__jstr(k->c, "category", wf_category(texts, sizeof texts / sizeof *texts));
  free(title);
}

/* The shortest recorded path from a seed to the structure's state: its
 * steps (executed), the entry condition, the routes it passes. */
static void cand_path(wf *w, wf_cand *k) {
  const wf_struct *s = k->s;
  long si = wf_state_index(w, s->state);
  int path[WF_MAX_STEPS_PATH + 1], np = 0; /* last edge first */
  k->no_path = si < 0 || w->st[si].dist < 0;
  for (long cur = si; cur >= 0 && w->st[cur].prev_edge >= 0 && np <= WF_MAX_STEPS_PATH;) {
    path[np++] = w->st[cur].prev_edge;
    cur = wf_state_index(w, crawl__str(w->edges[w->st[cur].prev_edge], "fromStateId"));
  }
  k->np = np;
  long start = si;
  if (np) start = wf_state_index(w, crawl__str(w->edges[path[np - 1]], "fromStateId"));
  if (start >= 0) crawl__jpush(k->routes, cJSON_CreateString(w->st[start].route));
  if (start >= 0 && !k->no_path) {
    cJSON *ec = crawl__jx(cJSON_CreateArray()), *cond = crawl__jx(cJSON_CreateObject());
    crawl__jstr(cond, "kind", "route");
    crawl__jstr(cond, "routeId", w->st[start].route);
    crawl__jstr(cond, "description", "start where the crawl started (a seed state)");
    crawl__jpush(ec, cond);
    crawl__jset(k->c, "entryConditions", ec);
  }
  for (int p = np - 1; p >= 0; p--) {
    const cJSON *e = w->edges[path[p]];
    cJSON *st = crawl__jx(cJSON_CreateObject());
    crawl__jstr(st, "type", "action");
    crawl__jstr(st, "actionId", crawl__str(e, "viaActionId"));
    if (cJSON_IsObject(crawl__get(e, "target"))) crawl__jset(st, "target", cJSON_Duplicate(crawl__get(e, "target"), 1));
    crawl__jpush(k->steps, st);
    cJSON *m = crawl__jx(cJSON_CreateObject());
    crawl__jset(m, "step", cJSON_CreateNumber(cJSON_GetArraySize(k->steps) - 1));
    crawl__jset(m, "executed", cJSON_CreateTrue());
    crawl__jstr(m, "transitionId", crawl__str(e, "transitionId"));
    crawl__jpush(k->stepmeta, m);
    wf_ev_add(k->ev, "transition", crawl__str(e, "transitionId"), p == np - 1 ? "path from a seed" : NULL);
    long to = wf_state_index(w, crawl__str(e, "toStateId"));
    if (to >= 0) {
      int dup = 0;
      const cJSON *r;
      cJSON_ArrayForEach(r, k->routes) dup |= !strcmp(r->valuestring, w->st[to].route);
      if (!dup) crawl__jpush(k->routes, cJSON_CreateString(w->st[to].route));
    }
  }
  if (si >= 0 && !cJSON_GetArraySize(k->routes)) crawl__jpush(k->routes, cJSON_CreateString(s->route));
  wf_ev_add(k->ev, "dom", s->state, !strcmp(s->kind, "action") ? "the control with the app action" : "the form or dialog structure");
  if (s->scope_stable) wf_ev_add(k->ev, "annotation", s->state, "data-uiap-id on the structure");
}

/* metadata.steps entry of the step just added: whether it ran, and the
 * strictest gate that held it back. */
static void cand_step_meta(wf_cand *k, int executed, const wf_rec *gate) {
  cJSON *m = crawl__jx(cJSON_CreateObject());
  crawl__jset(m, "step", cJSON_CreateNumber(cJSON_GetArraySize(k->steps) - 1));
  crawl__jset(m, "executed", cJSON_CreateBool(executed));
  if (gate) {
    char *g = crawl__xprintf("%s: %s (%s)", gate->effect, gate->reason ? gate->reason : "?", gate->rule ? gate->rule : "?");
    crawl__jstr(m, "gate", g);
    free(g);
  }
  crawl__jpush(k->stepmeta, m);
}

/* An action step on a target (parameter: NULL or the one it fills). */
static void cand_action_step(wf_cand *k, const char *action, cJSON *target, const char *parameter) {
  cJSON *st = crawl__jx(cJSON_CreateObject());
  crawl__jstr(st, "type", "action");
  crawl__jstr(st, "actionId", action);
  if (target) crawl__jset(st, "target", target);
  if (parameter) {
    cJSON *pnames = crawl__jx(cJSON_CreateArray());
    crawl__jpush(pnames, cJSON_CreateString(parameter));
    crawl__jset(st, "parameterNames", pnames);
  }
  crawl__jpush(k->steps, st);
}

/* The field of s whose accessible name is label (a draft field's label), or NULL. */
static const wf_field *field_labelled(const wf_struct *s, const char *label) {
  for (size_t f = 0; label && f < s->nfields; f++)
    if (s->fields[f].name && !strcmp(s->fields[f].name, label)) return &s->fields[f];
  return NULL;
}

/* Inputs from a draft that ran: one parameter and one step per field it
 * filled (workflow_draft.c), executed by the draft's transition. */
static void cand_draft_inputs(wf_cand *k, const cJSON *draft) {
  const wf_struct *s = k->s;
  const cJSON *fd;
  cJSON_ArrayForEach(fd, crawl__get(draft, "fields")) {
    if (!crawl__str(fd, "value")) continue; /* skipped or left empty: not vouched for */
    wf_field named = {.name = (char *)crawl__str(fd, "name"), .role = "textbox"};
    wf_param pn = param_name(&named, &k->used);
    crawl__jpush(k->inputs, wf_draft_param(fd, pn.name));
    const wf_field *on = field_labelled(s, crawl__str(fd, "label"));
    cand_action_step(k, wf_draft_action(fd), on ? target_json(on->stable, on->role, on->name, s->scope) : NULL, pn.name);
    cand_step_meta(k, 1, NULL);
    free(pn.name);
  }
}

/* Inputs: the fields a form draft filled when one ran (cand_draft_inputs),
 * else one parameter per field; a step per required field (every editable
 * one when none is marked required). */
static void cand_inputs(wf *w, wf_cand *k) {
  const wf_struct *s = k->s;
  const cJSON *draft = wf_draft_of(w, s);
  if (draft) {
    cand_draft_inputs(k, draft);
    return;
  }
  int any_required = 0;
  for (size_t f = 0; f < s->nfields; f++) any_required |= s->fields[f].required;
  for (size_t f = 0; f < s->nfields; f++) {
    const wf_field *fd = &s->fields[f];
    wf_param pn = param_name(fd, &k->used);
    k->guessed |= pn.guessed;
    crawl__jpush(k->inputs, param_json(fd, pn.name));
    int in_skeleton = any_required ? fd->required : fd->editable;
    if (in_skeleton) {
      const char *act = field_action(fd);
      cand_action_step(k, act, target_json(fd->stable, fd->role, fd->name, s->scope), pn.name);
      wf_seen seen = wf_seen_of(w, fd->role, fd->name, fd->stable, s->route, NULL, NULL);
      cand_step_meta(k, seen.executed > 0, seen.gate);
      if (!seen.executed) {
        char *t = crawl__xprintf("%s %s", act, pn.name);
        crawl__jpush(k->not_run, cJSON_CreateString(t));
        free(t);
      }
    }
    free(pn.name);
  }
}

/* The commit step, and the signals seen when it ran. */
static void cand_commit(wf *w, wf_cand *k) {
  const wf_struct *s = k->s;
  k->commit = wf_seen_of(w, s->c_role, s->c_name, s->c_stable, s->route, k->sigtexts, k->ev);
  k->commit_action = s->c_app ? s->c_app : s->c_submit ? "ui.submit" : "ui.activate";
  cand_action_step(k, k->commit_action, target_json(s->c_stable, s->c_role, s->c_name, s->c_scope), NULL);
  cand_step_meta(k, k->commit.executed > 0, k->commit.gate);
  if (!k->commit.executed) {
    char *t = crawl__xprintf("%s on %s", k->commit_action, k->commit_label);
    crawl__jpush(k->not_run, cJSON_CreateString(t));
    free(t);
  }
}

/* Signals: seen when the commit ran, else the app action's; an `ensure`
 * step when there are any. */
static void cand_signals(wf *w, wf_cand *k) {
  const wf_struct *s = k->s;
  if (!cJSON_GetArraySize(k->sigtexts) && s->c_app) {
    const cJSON *a;
    cJSON_ArrayForEach(a, crawl__arr2(w->pkg, "actionCatalog", "actions")) {
      if (!crawl__str(a, "id") || strcmp(crawl__str(a, "id"), s->c_app)) continue;
      const cJSON *sg;
      cJSON_ArrayForEach(sg, crawl__arr(a, "successSignals")) {
        char *t = crawl__jtext(sg, 0);
        crawl__jpush(k->sigtexts, cJSON_CreateString(t));
        free(t);
      }
    }
  }
  k->nsig = cJSON_GetArraySize(k->sigtexts);
  if (!k->nsig) return;
  cJSON *ens = crawl__jx(cJSON_CreateObject());
  crawl__jstr(ens, "type", "ensure");
  crawl__jset(ens, "signals", signals_json(k->sigtexts));
  crawl__jpush(k->steps, ens);
  crawl__jset(k->c, "successSignals", signals_json(k->sigtexts));
  wf_ev_add(k->ev, "signal", s->state, "signals observed after the commit");
}

/* The review item id of the package's missing_success_signal item for the
 * commit's app action, when there is one (package.c: its id hashes
 * "missing_success_signal\x1f<action>"): that item speaks for the workflow
 * too. Caller frees. */
static char *cand_action_item(wf *w, const wf_cand *k) {
  if (k->nsig || !k->s->c_app) return NULL;
  char *found = NULL;
  char *key = crawl__xprintf("missing_success_signal\x1f%s", k->s->c_app);
  char *rid = pk_review_id(key, 0);
  free(key);
  const cJSON *it;
  cJSON_ArrayForEach(it, crawl__arr2(w->pkg, "reviewQueue", "items"))
    if (crawl__str(it, "id") && !strcmp(crawl__str(it, "id"), rid)) found = crawl__xstrdup(rid);
  free(rid);
  return found;
}

/* missing_success_signal: no signal seen or declared for the commit. */
static void cand_review_signal(const wf_cand *k, wf_review *rv) {
  rv->kind = "missing_success_signal";
  rv->severity = 1;
  rv->desc = k->commit.executed
                 ? crawl__xprintf("Workflow candidate %s: its commit (%s on %s) ran %d time%s without an observable success signal.",
                                  k->id, k->commit_action, k->commit_label, k->commit.executed, k->commit.executed == 1 ? "" : "s")
                 : crawl__xprintf("Workflow candidate %s: its commit (%s on %s) was never executed, so no success signal was observed.",
                                  k->id, k->commit_action, k->commit_label);
  rv->remedy = crawl__xprintf("Declare a success signal for %s (a role=status or toast message, a dialog or route change), "
                              "or run the workflow in a sandbox (--mode sandbox_write) and verify it manually.", k->commit_label);
}

/* workflow_uncertain: steps never executed, an unnamed input, no path. */
static void cand_review_uncertain(const wf_cand *k, int observed_only, wf_review *rv) {
  crawl__buf why = {0};
  if (observed_only) {
    crawl__buf_puts(&why, "steps never executed (synthesized from observation): ");
    int n = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, k->not_run) crawl__buf_printf(&why, "%s%s", n++ ? ", " : "", x->valuestring);
  }
  if (k->guessed) crawl__buf_printf(&why, "%san input has no name, label or data-uiap-meaning", why.n ? "; " : "");
  if (k->no_path) crawl__buf_printf(&why, "%sno recorded path leads from a seed to it", why.n ? "; " : "");
  int risky = k->commit.gate && strcmp(k->commit.gate->effect, "skip");
  rv->kind = "workflow_uncertain";
  rv->severity = risky ? 1 : 0;
  rv->desc = crawl__xprintf("Workflow candidate %s (\"%s\") is uncertain: %s.", k->id,
                            crawl__str(k->c, "title") ? crawl__str(k->c, "title") : k->id, why.p);
  rv->remedy = crawl__xprintf("Review the skeleton by hand; annotate the %s and its fields (data-uiap-id, data-uiap-meaning, "
                              "data-uiap-action) and verify it in a sandbox environment.",
                              !strcmp(k->s->kind, "action") ? "control" : k->s->kind);
  crawl__buf_free(&why);
}

static void cand_metadata(wf_cand *k, int observed_only, char *action_item /* taken */) {
  cJSON *md = crawl__jx(cJSON_CreateObject());
  crawl__jstr(md, "source", k->s->kind);
  crawl__jstr(md, "stateId", k->s->state);
  crawl__jstr(md, "scopeId", k->s->scope);
  crawl__jset(md, "observedOnly", cJSON_CreateBool(observed_only));
  if (observed_only) {
    crawl__jset(md, "notExecuted", cJSON_Duplicate(k->not_run, 1));
    crawl__jstr(md, "note", "Synthesized from observation: some steps were never executed (discovery-mapper section 13 "
                            "allows synthesis without executing risky actions). Verify before use.");
  }
  crawl__jset(md, "steps", k->stepmeta);
  crawl__jset(md, "pathLength", cJSON_CreateNumber(k->np));
  if (action_item) {
    cJSON *ri = crawl__jx(cJSON_CreateArray());
    crawl__jpush(ri, cJSON_CreateString(action_item));
    crawl__jset(md, "reviewItems", ri); /* the caller adds the workflow's own items */
    free(action_item);
  }
  crawl__jset(k->c, "metadata", md);
}

/* The candidate for structure s (a new object the caller owns); its own
 * review items into rv (at most 2, *nrv of them; the caller frees their
 * texts). */
cJSON *wf_candidate(wf *w, const wf_struct *s, const char *id, wf_review *rv, size_t *nrv) {
  wf_cand k = {.s = s, .id = id};
  k.c = crawl__jx(cJSON_CreateObject());
  k.steps = crawl__jx(cJSON_CreateArray());
  k.ev = crawl__jx(cJSON_CreateArray());
  k.routes = crawl__jx(cJSON_CreateArray());
  k.inputs = crawl__jx(cJSON_CreateArray());
  k.stepmeta = crawl__jx(cJSON_CreateArray());
  k.not_run = crawl__jx(cJSON_CreateArray());
  k.sigtexts = crawl__jx(cJSON_CreateArray());
  k.commit_label = s->c_name && *s->c_name ? s->c_name : s->c_stable ? s->c_stable : s->c_role;
  crawl__jstr(k.c, "id", id);
  cand_title(&k);
  cand_path(w, &k);
  cand_inputs(w, &k);
  cand_commit(w, &k);
  cand_signals(w, &k);
  cJSON *done = crawl__jx(cJSON_CreateObject());
  crawl__jstr(done, "type", "complete");
  crawl__jpush(k.steps, done);
  crawl__jset(k.c, "routeIds", k.routes);
  if (cJSON_GetArraySize(k.inputs)) crawl__jset(k.c, "requiredInputs", k.inputs);
  else cJSON_Delete(k.inputs);
  crawl__jset(k.c, "stepSkeleton", k.steps);
  crawl__jset(k.c, "discoveredBy", k.ev);
  /* confidence (7.3) */
  int annotated = s->scope_stable || s->c_app;
  crawl__jstr(k.c, "confidence", k.commit.with_signal >= 2 && k.nsig == 1 ? "high" : k.nsig || annotated ? "medium" : "low");
  /* review */
  int observed_only = cJSON_GetArraySize(k.not_run) > 0;
  char *action_item = cand_action_item(w, &k);
  *nrv = 0;
  if (!k.nsig && !action_item) cand_review_signal(&k, &rv[(*nrv)++]);
  if (observed_only || k.guessed || k.no_path) cand_review_uncertain(&k, observed_only, &rv[(*nrv)++]);
  crawl__jstr(k.c, "reviewState", *nrv || action_item ? "needs_review" : "candidate");
  cand_metadata(&k, observed_only, action_item);
  cJSON_Delete(k.not_run);
  crawl__strmap_release(&k.used);
  cJSON_Delete(k.sigtexts);
  return k.c;
}

/* workflow_draft.c -- a workflow candidate's inputs from a form draft that
 * really ran (sandbox_write, crawler/run/act_form.c): the commit's
 * transition carries args.draft, the fields filled with their type,
 * required flag and constraints. Those fields are the candidate's
 * requiredInputs (WorkflowParameter: name, type, required, enum for
 * choices, the constraints in words in description, dataClass) instead of
 * the fields the graph shows; fields the draft skipped (sensitive, hidden,
 * an optional checkbox) are not inputs it can vouch for. */
#include "workflow_int.h"

#include "pol.h"

/* The draft record of the commit of s: the latest transition on its commit
 * control with args.draft of mode "valid" (else any draft); NULL: none. */
const cJSON *wf_draft_of(const wf *w, const wf_struct *s) {
  const cJSON *any = NULL, *valid = NULL;
  for (size_t i = 0; i < w->nrecs; i++) {
    const wf_rec *x = w->recs[i];
    if (x->kind != CRAWL__REC_TRANSITION) continue;
    int same = s->c_stable && x->stable_id ? !strcmp(s->c_stable, x->stable_id)
                                           : x->role && s->c_role && !strcmp(x->role, s->c_role) &&
                                                 !strcmp(x->name ? x->name : "", s->c_name ? s->c_name : "");
    const cJSON *d = crawl__get(crawl__get(x->json, "args"), "draft");
    if (!same || !cJSON_IsObject(d)) continue;
    any = d;
    if (crawl__str(d, "mode") && !strcmp(crawl__str(d, "mode"), "valid")) valid = d;
  }
  return valid ? valid : any;
}

static const struct { const char *type, *param; } types[] = {
  {"checkbox", "boolean"}, {"radio", "enum"}, {"select", "enum"}, {"number", "number"}, {"range", "number"},
  {"date", "date"}, {"datetime-local", "date"}, {"month", "date"}, {"week", "date"}, {"time", "date"},
};

static const char *param_type(const char *t) {
  for (size_t i = 0; t && i < sizeof types / sizeof *types; i++)
    if (!strcmp(types[i].type, t)) return types[i].param;
  return "string";
}

const char *wf_draft_action(const cJSON *field) {
  const char *p = param_type(crawl__str(field, "type"));
  return !strcmp(p, "boolean") ? "ui.toggle" : !strcmp(p, "enum") ? "ui.choose" : "ui.enterText";
}

/* "Phone; pattern [0-9]{3}-[0-9]{4}", "Age; min 18, max 120, step 1". */
static char *describe(const cJSON *field) {
  crawl__buf b = {0};
  const char *label = crawl__str(field, "label");
  if (label) crawl__buf_puts(&b, label);
  const cJSON *c = crawl__get(field, "constraints"), *it;
  int n = 0;
  cJSON_ArrayForEach(it, c) {
    if (!strcmp(it->string, "options") || !strcmp(it->string, "autocomplete")) continue;
    crawl__buf_puts(&b, n++ ? ", " : b.n ? "; " : "");
    if (cJSON_IsNumber(it)) crawl__buf_printf(&b, "%s %ld", it->string, (long)it->valuedouble);
    else if (cJSON_IsString(it)) crawl__buf_printf(&b, "%s %s", it->string, it->valuestring);
  }
  if (!b.n) return NULL;
  return b.p;
}

cJSON *wf_draft_param(const cJSON *field, const char *name) {
  cJSON *p = crawl__jx(cJSON_CreateObject());
  crawl__jstr(p, "name", name);
  const char *type = param_type(crawl__str(field, "type"));
  crawl__jstr(p, "type", type);
  crawl__jset(p, "required", cJSON_CreateBool(cJSON_IsTrue(crawl__get(field, "required"))));
  const cJSON *c = crawl__get(field, "constraints");
  if (!strcmp(type, "enum") && cJSON_IsArray(crawl__get(c, "options")))
    crawl__jset(p, "enum", cJSON_Duplicate(crawl__get(c, "options"), 1));
  pol_subject s = {.input_type = crawl__str(field, "type"), .autocomplete = crawl__str(c, "autocomplete")};
  pol_data_class dc = pol_subject_data_class(&s);
  if (dc != POL_DC_NONE) crawl__jstr(p, "dataClass", pol_data_class_name(dc));
  char *d = describe(field);
  crawl__jstr(p, "description", d);
  free(d);
  return p;
}

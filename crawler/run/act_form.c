/* act_form.c -- form drafts in sandbox_write: before an allowed submit
 * control is clicked, the fields of its form are read from the page
 * (js/form_fields.js: type, autocomplete, pattern, min/max/step, lengths,
 * required, options, label), given synthetic values (fill.c) and set
 * (js/form_fill.js: the value setter and input/change events a framework
 * listens to; a click for checkboxes and radios); the draft's record --
 * each field's name, type, constraints and value, or why it was skipped --
 * waits for the journal's transition line (crawl__form_draft_take). The
 * variant that leaves one required field empty reads, after the click, the
 * fields the browser's own validation holds invalid. Also the value a
 * single ui.enterText types (crawl__form_value_for). */
#include "act.h"
#include "fill.h"
#include "run_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The draft record of this thread's last action (one tab per thread). */
static _Thread_local cJSON *last_draft;

void crawl__form_draft_keep(cJSON *report) {
  cJSON_Delete(last_draft);
  last_draft = report;
}

cJSON *crawl__form_draft_take(void) {
  cJSON *d = last_draft;
  last_draft = NULL;
  return d;
}

const char *crawl__form_value_for(const pg_element *e, char *buf, size_t cap) {
  crawl_fill_field f = {.tag = e->tag, .type = e->input_type, .label = e->name, .autocomplete = e->autocomplete,
                        .meaning = e->meaning, .minlength = -1, .maxlength = -1, .sensitive = e->sensitive};
  if (e->tag && !strcmp(e->tag, "textarea")) f.type = NULL;
  if (crawl__fill_value(&f, buf, cap, NULL, NULL) == CRAWL_FILL_SKIP || !*buf) snprintf(buf, cap, "Uiap draft");
  return buf;
}

/* fn called on node backend of p with args (a JSON array, taken; NULL:
 * none), returnByValue: *out its value (caller frees). 0, or -1. */
static int call_fn(crawl_page *p, int backend, const char *fn, cJSON *args, cJSON **out) {
  cdp_client *c = crawl_page_client(p);
  const char *sess = crawl_page_session(p);
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddNumberToObject(a, "backendNodeId", backend);
  *out = NULL;
  if (cdp_call(c, sess, "DOM.resolveNode", a, &res, 5000) != CDP_OK) { cJSON_Delete(res); cJSON_Delete(args); return -1; }
  const char *oid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "object"), "objectId"));
  a = cJSON_CreateObject();
  if (oid) cJSON_AddStringToObject(a, "objectId", oid);
  cJSON_Delete(res);
  res = NULL;
  if (!cJSON_GetObjectItemCaseSensitive(a, "objectId")) { cJSON_Delete(a); cJSON_Delete(args); return -1; }
  cJSON_AddStringToObject(a, "functionDeclaration", fn);
  if (args) {
    cJSON *list = cJSON_AddArrayToObject(a, "arguments"), *one = cJSON_CreateObject();
    cJSON_AddItemToObject(one, "value", args);
    cJSON_AddItemToArray(list, one);
  }
  cJSON_AddBoolToObject(a, "returnByValue", 1);
  if (cdp_call(c, sess, "Runtime.callFunctionOn", a, &res, 5000) != CDP_OK) { cJSON_Delete(res); return -1; }
  *out = cJSON_DetachItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "result"), "value");
  cJSON_Delete(res);
  return *out ? 0 : -1;
}

static const char *jstr(const cJSON *o, const char *k) { return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k)); }
static long jlong(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(v) ? (long)v->valuedouble : -1;
}

/* A field as js/form_fields.js describes it, for fill.c (borrows from o;
 * opts receives its option values). */
static crawl_fill_field field_of(const cJSON *o, const char **opts) {
  crawl_fill_field f = {
    .tag = jstr(o, "tag"), .type = jstr(o, "type"), .name = jstr(o, "name"), .id = jstr(o, "id"),
    .label = jstr(o, "label"), .placeholder = jstr(o, "placeholder"), .autocomplete = jstr(o, "autocomplete"),
    .meaning = jstr(o, "meaning"), .pattern = jstr(o, "pattern"), .min = jstr(o, "min"), .max = jstr(o, "max"),
    .step = jstr(o, "step"), .minlength = jlong(o, "minlength"), .maxlength = jlong(o, "maxlength"),
    .required = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "required")),
    .sensitive = pg_attrs_sensitive(jstr(o, "type"), jstr(o, "sensitive"), jstr(o, "autocomplete")),
    .options = opts,
  };
  const cJSON *it;
  cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "options")) {
    if (f.noptions == CRAWL_FILL_OPTIONS_MAX) break;
    if (cJSON_IsString(it)) opts[f.noptions++] = it->valuestring;
  }
  if (f.tag && !strcmp(f.tag, "textarea")) f.type = NULL;
  return f;
}

/* The field's name as a workflow parameter would call it: name, else id,
 * else its label. */
static const char *field_name(const crawl_fill_field *f) {
  return f->name && *f->name ? f->name : f->id && *f->id ? f->id : f->label && *f->label ? f->label : "field";
}

/* The record of one field: name, type, required, constraints, and its
 * value with what it came from, or why it was skipped. */
static cJSON *field_record(const crawl_fill_field *f, crawl_fill_status st, const char *value, const char *kind,
                           const char *note) {
  cJSON *r = cJSON_CreateObject();
  cJSON_AddStringToObject(r, "name", field_name(f));
  cJSON_AddStringToObject(r, "type", f->type ? f->type : f->tag ? f->tag : "text");
  if (f->label && *f->label) cJSON_AddStringToObject(r, "label", f->label);
  cJSON_AddBoolToObject(r, "required", f->required);
  cJSON *c = cJSON_CreateObject();
  const char *attrs[][2] = {{"pattern", f->pattern}, {"min", f->min}, {"max", f->max}, {"step", f->step},
                            {"autocomplete", f->autocomplete}};
  for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++)
    if (attrs[i][1] && *attrs[i][1]) cJSON_AddStringToObject(c, attrs[i][0], attrs[i][1]);
  if (f->minlength >= 0) cJSON_AddNumberToObject(c, "minlength", (double)f->minlength);
  if (f->maxlength >= 0) cJSON_AddNumberToObject(c, "maxlength", (double)f->maxlength);
  if (f->noptions) {
    cJSON *o = cJSON_AddArrayToObject(c, "options");
    for (size_t i = 0; i < f->noptions; i++)
      if (*f->options[i]) cJSON_AddItemToArray(o, cJSON_CreateString(f->options[i]));
  }
  if (cJSON_GetArraySize(c)) cJSON_AddItemToObject(r, "constraints", c);
  else cJSON_Delete(c);
  if (st != CRAWL_FILL_SKIP) cJSON_AddStringToObject(r, "value", value);
  if (kind) cJSON_AddStringToObject(r, "from", kind);
  if (note) cJSON_AddStringToObject(r, st == CRAWL_FILL_SKIP ? "skipped" : "fallback", note);
  return r;
}

/* 1 when f may be the field left empty: required, and something a user
 * types or ticks (a select or radio group keeps a choice in many apps). */
static int may_leave_empty(const crawl_fill_field *f, crawl_fill_status st) {
  return f->required && st != CRAWL_FILL_SKIP && !(f->type && !strcmp(f->type, "radio")) &&
         !(f->tag && !strcmp(f->tag, "select"));
}

/* Values for the fields in `fields` (js/form_fields.js): the [index, value]
 * pairs to set into *set, the records into the report's "fields". Leaves
 * the first required field empty when leave_empty; its name into *left. */
static void draft_values(const cJSON *fields, int leave_empty, cJSON *set, cJSON *records, const char **left) {
  const cJSON *o;
  cJSON_ArrayForEach(o, fields) {
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "shown"))) continue; /* a honeypot or hidden step */
    const char *opts[CRAWL_FILL_OPTIONS_MAX];
    crawl_fill_field f = field_of(o, opts);
    char v[CRAWL_FILL_VALUE_MAX];
    const char *kind = NULL, *note = NULL;
    crawl_fill_status st = crawl__fill_value(&f, v, sizeof v, &kind, &note);
    if (leave_empty && !*left && may_leave_empty(&f, st)) {
      *left = field_name(&f);
      v[0] = 0;
      if (f.type && !strcmp(f.type, "checkbox")) snprintf(v, sizeof v, "off");
      cJSON *r = field_record(&f, CRAWL_FILL_SKIP, v, NULL, "left empty on purpose: the submit records the validation");
      cJSON_AddItemToArray(records, r);
    } else {
      cJSON_AddItemToArray(records, field_record(&f, st, v, kind, note));
      if (st == CRAWL_FILL_SKIP) continue;
    }
    cJSON *pair = cJSON_CreateArray();
    cJSON_AddItemToArray(pair, cJSON_CreateNumber(jlong(o, "i")));
    cJSON_AddItemToArray(pair, cJSON_CreateString(v));
    cJSON_AddItemToArray(set, pair);
  }
}

crawl_code crawl__form_fill(crawl_page *p, int backend, int leave_empty, char *why, size_t whylen) {
  crawl__form_draft_keep(NULL);
  cJSON *desc = NULL;
  if (call_fn(p, backend, CRAWL__JS(form_fields), NULL, &desc) || !cJSON_IsObject(desc)) {
    cJSON_Delete(desc);
    return CRAWL_OK; /* a submit control outside a form: nothing to fill */
  }
  cJSON *report = cJSON_CreateObject(), *set = cJSON_CreateArray();
  cJSON_AddStringToObject(report, "mode", leave_empty ? "required_empty" : "valid");
  cJSON *records = cJSON_AddArrayToObject(report, "fields");
  const char *left = NULL;
  draft_values(cJSON_GetObjectItemCaseSensitive(desc, "fields"), leave_empty, set, records, &left);
  if (leave_empty && !left) {
    cJSON_Delete(desc), cJSON_Delete(report), cJSON_Delete(set);
    snprintf(why, whylen, "not performed: the form has no required field to leave empty");
    return CRAWL_ARG;
  }
  if (left) cJSON_AddStringToObject(report, "leftEmpty", left);
  cJSON_Delete(desc);
  cJSON *res = NULL;
  if (call_fn(p, backend, CRAWL__JS(form_fill), set, &res) || !cJSON_IsArray(res)) {
    cJSON_Delete(res), cJSON_Delete(report);
    snprintf(why, whylen, "the form went away while it was being filled");
    return CRAWL_ARG;
  }
  cJSON_Delete(res);
  crawl__form_draft_keep(report);
  return CRAWL_OK;
}

void crawl__form_after_submit(crawl_page *p, int backend) {
  cJSON *bad = NULL;
  if (!last_draft || call_fn(p, backend, CRAWL__JS(form_validity), NULL, &bad) || !cJSON_IsArray(bad)) {
    cJSON_Delete(bad);
    return; /* the page went on (a navigation): nothing held it back */
  }
  cJSON *list = cJSON_AddArrayToObject(last_draft, "invalidFields");
  const cJSON *it;
  cJSON_ArrayForEach(it, bad) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", cJSON_GetStringValue(cJSON_GetArrayItem(it, 0)) ? cJSON_GetStringValue(cJSON_GetArrayItem(it, 0)) : "");
    cJSON_AddStringToObject(o, "message", cJSON_GetStringValue(cJSON_GetArrayItem(it, 1)) ? cJSON_GetStringValue(cJSON_GetArrayItem(it, 1)) : "");
    cJSON_AddItemToArray(list, o);
  }
  cJSON_Delete(bad);
}

/* json.c -- PageGraph serialisation: JSON (UIAP Web Profile 0.1) and a text
 * tree for people. Names of enums live here, generated from pg.h's lists
 * (data-uiap-risk's live with its parser, risk.c). */
#include "pg_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const state_names[] = {
#define PG__SN(name, str) str,
  PG_STATE_KEYS(PG__SN)
#undef PG__SN
};
static const char *const affordance_names[] = {
#define PG__AN(name, str) str,
  PG_AFFORDANCES(PG__AN)
#undef PG__AN
};
static const char *const action_names[] = {
#define PG__ACN(name, str) str,
  PG_ACTIONS(PG__ACN)
#undef PG__ACN
};
static const char *const source_names[] = {
#define PG__SRN(name, str) str,
  PG_SOURCES(PG__SRN)
#undef PG__SRN
};
static const char *const scope_names[] = {
  "route", "region", "form", "dialog", "drawer", "popover", "menu", "toolbar",
  "tabset", "tabpanel", "collection", "rowgroup", "iframe-root", "custom",
};
static const char *const access_names[] = {"same-origin", "bridged", "opaque"};

const char *pg_state_key_name(pg_state_key k) { return k < PG_ST__COUNT ? state_names[k] : "?"; }
const char *pg_affordance_name(pg_affordance a) { return a < PG_AF__COUNT ? affordance_names[a] : "?"; }
const char *pg_action_name(pg_action a) { return a < PG_AC__COUNT ? action_names[a] : "?"; }
const char *pg_scope_kind_name(pg_scope_kind k) { return k < PG_SCOPE__COUNT ? scope_names[k] : "custom"; }

static void add_str(cJSON *o, const char *k, const char *v) {
  if (v) cJSON_AddStringToObject(o, k, v);
}

/* Cut to two decimals: plenty for CSS pixels, and keeps outputs stable.
 * Page geometry is untrusted: a value too big to cut is kept as it is (a
 * double that big has no decimals), one that is not finite becomes 0. */
static double two_decimals(double v) {
  if (fabs(v) < 9e16) return (double)(long long)(v * 100) / 100;
  return isfinite(v) ? v : 0;
}

static cJSON *rect_json(pg_rect r) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "x", two_decimals(r.x));
  cJSON_AddNumberToObject(o, "y", two_decimals(r.y));
  cJSON_AddNumberToObject(o, "width", two_decimals(r.w));
  cJSON_AddNumberToObject(o, "height", two_decimals(r.h));
  return o;
}

static cJSON *state_json(const pg_state *s) {
  cJSON *o = cJSON_CreateObject();
  for (int k = 0; k < PG_ST__COUNT; k++) {
    if (!(s->has >> k & 1u)) continue;
    if (s->mixed >> k & 1u) cJSON_AddStringToObject(o, state_names[k], "mixed");
    else cJSON_AddBoolToObject(o, state_names[k], s->val >> k & 1u);
  }
  if (s->has_min) cJSON_AddNumberToObject(o, "valueMin", s->value_min);
  if (s->has_max) cJSON_AddNumberToObject(o, "valueMax", s->value_max);
  if (s->has_now) cJSON_AddNumberToObject(o, "valueNow", s->value_now);
  return o;
}

static cJSON *bits_json(uint32_t bits, const char *const *names, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int k = 0; k < n; k++)
    if (bits >> k & 1u) cJSON_AddItemToArray(a, cJSON_CreateString(names[k]));
  return a;
}

static cJSON *element_json(const pg_graph *g, const pg_element *e) {
  cJSON *o = cJSON_CreateObject();
  add_str(o, "instanceId", e->instance_id);
  add_str(o, "stableId", e->stable_id);
  add_str(o, "documentId", g->documents[e->document].document_id);
  if (e->scope >= 0) add_str(o, "scopeId", g->scopes[e->scope].scope_id);
  add_str(o, "role", e->role);
  add_str(o, "name", e->name);
  add_str(o, "description", e->description);
  cJSON_AddItemToObject(o, "state", state_json(&e->state));
  cJSON_AddItemToObject(o, "affordances", bits_json(e->affordances, affordance_names, PG_AF__COUNT));
  cJSON *acts = bits_json(e->actions, action_names, PG_AC__COUNT);
  if (e->app_action && pg_state_is(&e->state, PG_ST_ENABLED) && !e->inert) cJSON_AddItemToArray(acts, cJSON_CreateString(e->app_action));
  cJSON_AddItemToObject(o, "supportedActions", acts);
  if (e->has_bbox) cJSON_AddItemToObject(o, "bbox", rect_json(e->bbox));
  if (e->z) cJSON_AddNumberToObject(o, "zIndexHint", e->z);
  add_str(o, "textValue", e->text_value);
  if (e->text_value && !e->redacted) add_str(o, "semanticValue", e->text_value);
  if (e->meaning || e->app_action || e->name) {
    cJSON *th = cJSON_CreateObject();
    cJSON *sem = cJSON_AddObjectToObject(th, "semantic");
    add_str(sem, "role", e->role);
    add_str(sem, "name", e->name);
    if (e->scope >= 0) add_str(sem, "scopeId", g->scopes[e->scope].scope_id);
    if (e->meaning || e->app_action) {
      cJSON *an = cJSON_AddObjectToObject(th, "annotations");
      add_str(an, "meaning", e->meaning);
      add_str(an, "defaultAction", e->app_action);
    }
    cJSON_AddItemToObject(o, "targetHints", th);
  }
  cJSON *sm = cJSON_CreateObject();
  cJSON_AddItemToObject(sm, "sources", bits_json(e->sources, source_names, PG_SRC__COUNT));
  add_str(sm, "tagName", e->tag);
  add_str(sm, "inputType", e->input_type);
  add_str(sm, "ariaRole", e->aria_role);
  add_str(sm, "shadowHostId", e->shadow_host_id);
  const pg_document *d = &g->documents[e->document];
  if (d->depth > 0) {
    /* framePath: frame ids from the top document down to this one */
    const char *path[64];
    int n = 0;
    for (int k = e->document; k >= 0 && n < 64; k = g->documents[k].parent) path[n++] = g->documents[k].frame_id;
    cJSON *fp = cJSON_AddArrayToObject(sm, "framePath");
    for (int k = n - 1; k >= 0; k--) cJSON_AddItemToArray(fp, cJSON_CreateString(path[k] ? path[k] : ""));
  }
  cJSON_AddBoolToObject(sm, "interactable", e->interactable);
  cJSON_AddBoolToObject(sm, "attached", e->attached);
  cJSON_AddBoolToObject(sm, "inViewport", e->in_viewport);
  cJSON_AddBoolToObject(sm, "obscured", e->obscured);
  cJSON_AddItemToObject(o, "semantics", sm);
  pg_risk risk = pg_risk_parse(e->risk_attr);
  if (risk != PG_RISK_NONE) {
    cJSON *r = cJSON_AddObjectToObject(o, "risk");
    cJSON_AddStringToObject(r, "level", pg_risk_name(risk));
    cJSON_AddStringToObject(r, "reason", "data-uiap-risk");
  }
  if (e->redacted || e->hint_attr || e->sensitive || e->inert) {
    cJSON *m = cJSON_AddObjectToObject(o, "metadata");
    if (e->redacted) cJSON_AddBoolToObject(m, "redacted", 1);
    if (e->inert) cJSON_AddBoolToObject(m, "inert", 1);
    if (e->sensitive) cJSON_AddBoolToObject(m, "sensitive", 1);
    if (e->hint_attr) cJSON_AddStringToObject(m, "hintAttr", e->hint_attr);
  }
  return o;
}

/* RouteContext.query: a key given more than once holds its values in order. */
static void route_query_json(cJSON *q, const pg_graph *g) {
  for (size_t i = 0; i < g->nroute_query; i++) {
    const pg_kv *kv = &g->route_query[i];
    cJSON *had = cJSON_GetObjectItemCaseSensitive(q, kv->key);
    if (!had) {
      cJSON_AddStringToObject(q, kv->key, kv->value);
      continue;
    }
    if (cJSON_IsString(had)) {
      cJSON *arr = cJSON_CreateArray();
      cJSON_AddItemToArray(arr, cJSON_CreateString(had->valuestring));
      cJSON_ReplaceItemInObjectCaseSensitive(q, kv->key, arr);
      had = arr;
    }
    cJSON_AddItemToArray(had, cJSON_CreateString(kv->value));
  }
}

cJSON *pg_graph_to_json(const pg_graph *g) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "modelVersion", "0.1");
  cJSON_AddStringToObject(o, "profile", "web@0.1");
  cJSON_AddStringToObject(o, "revision", g->revision);
  cJSON_AddStringToObject(o, "rootDocumentId", g->root_document_id);
  cJSON *route = cJSON_AddObjectToObject(o, "route");
  add_str(route, "routeId", g->route_id);
  add_str(route, "url", g->route_url);
  add_str(route, "pathname", g->route_pathname);
  add_str(route, "title", g->route_title);
  if (g->nroute_params) {
    cJSON *pj = cJSON_AddObjectToObject(route, "params");
    for (size_t i = 0; i < g->nroute_params; i++) add_str(pj, g->route_params[i].key, g->route_params[i].value);
  }
  if (g->nroute_query) route_query_json(cJSON_AddObjectToObject(route, "query"), g);
  cJSON *vp = cJSON_AddObjectToObject(o, "viewport");
  cJSON_AddNumberToObject(vp, "width", g->vp_width);
  cJSON_AddNumberToObject(vp, "height", g->vp_height);
  cJSON_AddNumberToObject(vp, "scrollX", g->vp_scroll_x);
  cJSON_AddNumberToObject(vp, "scrollY", g->vp_scroll_y);
  cJSON_AddNumberToObject(vp, "devicePixelRatio", g->vp_dpr);
  cJSON *docs = cJSON_AddArrayToObject(o, "documents");
  for (size_t i = 0; i < g->ndocuments; i++) {
    const pg_document *d = &g->documents[i];
    cJSON *x = cJSON_CreateObject();
    add_str(x, "documentId", d->document_id);
    add_str(x, "frameId", d->frame_id ? d->frame_id : "");
    add_str(x, "parentFrameId", d->parent_frame_id);
    if (d->parent >= 0) add_str(x, "parentDocumentId", g->documents[d->parent].document_id);
    add_str(x, "access", access_names[d->access]);
    add_str(x, "origin", d->origin);
    add_str(x, "url", d->url);
    add_str(x, "title", d->title);
    add_str(x, "readyState", d->ready_state);
    if (d->has_bbox) cJSON_AddItemToObject(x, "bbox", rect_json(d->bbox));
    add_str(x, "rootScopeId", d->root_scope_id);
    add_str(x, "bridgeSessionId", d->bridge_session_id);
    cJSON_AddItemToArray(docs, x);
  }
  cJSON *scopes = cJSON_AddArrayToObject(o, "scopes");
  for (size_t i = 0; i < g->nscopes; i++) {
    const pg_scope *s = &g->scopes[i];
    cJSON *x = cJSON_CreateObject();
    add_str(x, "scopeId", s->scope_id);
    add_str(x, "kind", scope_names[s->kind]);
    add_str(x, "documentId", g->documents[s->document].document_id);
    if (s->parent >= 0) add_str(x, "parentScopeId", g->scopes[s->parent].scope_id);
    add_str(x, "stableId", s->stable_id);
    add_str(x, "name", s->name);
    if (s->state.has) cJSON_AddItemToObject(x, "state", state_json(&s->state));
    if (s->has_bbox) cJSON_AddItemToObject(x, "bbox", rect_json(s->bbox));
    cJSON_AddItemToArray(scopes, x);
  }
  cJSON *els = cJSON_AddArrayToObject(o, "elements");
  for (size_t i = 0; i < g->nelements; i++) cJSON_AddItemToArray(els, element_json(g, &g->elements[i]));
  if (g->nrelations) {
    cJSON *rels = cJSON_AddArrayToObject(o, "relations");
    for (size_t i = 0; i < g->nrelations; i++) {
      cJSON *x = cJSON_CreateObject();
      char id[32];
      snprintf(id, sizeof id, "rel_%zu", i + 1);
      cJSON_AddStringToObject(x, "relationId", id);
      cJSON_AddStringToObject(x, "type", g->relations[i].type);
      cJSON_AddStringToObject(x, "from", g->relations[i].from);
      cJSON_AddStringToObject(x, "to", g->relations[i].to);
      cJSON_AddItemToArray(rels, x);
    }
  }
  if (g->focus_document >= 0) {
    cJSON *f = cJSON_AddObjectToObject(o, "focus");
    cJSON_AddStringToObject(f, "documentId", g->documents[g->focus_document].document_id);
    if (g->focus_element >= 0) cJSON_AddStringToObject(f, "target", g->elements[g->focus_element].instance_id);
  }
  int anchor = g->selection_anchor >= 0 && (size_t)g->selection_anchor < g->nelements ? g->selection_anchor : -1;
  int focus = g->selection_focus >= 0 && (size_t)g->selection_focus < g->nelements ? g->selection_focus : -1;
  if (g->selection_text || anchor >= 0 || focus >= 0) {
    cJSON *s = cJSON_AddObjectToObject(o, "selection");
    if (anchor >= 0) cJSON_AddStringToObject(s, "anchorTarget", g->elements[anchor].instance_id);
    if (focus >= 0) cJSON_AddStringToObject(s, "focusTarget", g->elements[focus].instance_id);
    add_str(s, "text", g->selection_text);
  }
  cJSON *m = cJSON_AddObjectToObject(o, "metadata");
  cJSON_AddStringToObject(m, "generator", "uiap-crawl");
  static const char *const route_sources[] = {"url", "annotation", "router"};
  if (g->route_id) cJSON_AddStringToObject(m, "routeSource", route_sources[g->route_source]);
  if (g->route_source != PG_ROUTE_URL) add_str(m, "routeTemplate", g->route_template);
  cJSON_AddNumberToObject(m, "elementCandidates", (double)g->candidates);
  cJSON_AddBoolToObject(m, "truncated", g->truncated);
  cJSON_AddNumberToObject(m, "redactions", g->redactions);
  cJSON_AddNumberToObject(m, "opaqueFrames", g->opaque_frames);
  cJSON_AddNumberToObject(m, "closedShadowHosts", g->closed_shadow_hosts);
  return o;
}

/* ---- text tree ----------------------------------------------------------- */
typedef struct {
  crawl__buf s;            /* the text (crawl_base.h) */
  const pg_graph *g;
  const pg_text_opts *o;
  size_t shown, left;         /* element lines written, and those max_elements left out */
} text_ctx;

static void text_states(crawl__buf *s, const pg_element *e) {
  static const pg_state_key shown[] = {PG_ST_FOCUSED, PG_ST_CHECKED, PG_ST_SELECTED, PG_ST_EXPANDED,
                                       PG_ST_PRESSED, PG_ST_REQUIRED, PG_ST_INVALID, PG_ST_READONLY};
  int any = 0;
  for (size_t k = 0; k < sizeof shown / sizeof *shown; k++)
    if (pg_state_has(&e->state, shown[k]) && (pg_state_is(&e->state, shown[k]) || shown[k] == PG_ST_EXPANDED)) {
      crawl__buf_printf(s, "%s%s%s", any ? ", " : " [", pg_state_is(&e->state, shown[k]) ? "" : "not ", state_names[shown[k]]);
      any = 1;
    }
  if (!pg_state_is(&e->state, PG_ST_ENABLED)) { crawl__buf_printf(s, "%sdisabled", any ? ", " : " ["); any = 1; }
  if (!pg_state_is(&e->state, PG_ST_VISIBLE)) { crawl__buf_printf(s, "%shidden", any ? ", " : " ["); any = 1; }
  if (e->obscured) { crawl__buf_printf(s, "%sobscured", any ? ", " : " ["); any = 1; }
  if (any) crawl__buf_printf(s, "]");
}

static void text_element(text_ctx *t, size_t i, int depth) {
  const pg_element *e = &t->g->elements[i];
  if (t->o->max_elements && t->shown >= t->o->max_elements) { t->left++; return; }
  t->shown++;
  crawl__buf *s = &t->s;
  crawl__buf_printf(s, "%*s- %s", depth * 2, "", e->role);
  if (e->name) crawl__buf_printf(s, " \"%s\"", e->name);
  text_states(s, e);
  char note[256];
  if (t->o->note && t->o->note(t->o->ud, t->g, i, note, sizeof note) > 0) crawl__buf_printf(s, " [%s]", note);
  if (e->text_value) crawl__buf_printf(s, " = \"%s\"", e->text_value);
  if (e->stable_id) crawl__buf_printf(s, " {%s}", e->stable_id);
  crawl__buf_printf(s, "\n");
}

static void text_scope(text_ctx *t, int scope, int depth) {
  const pg_graph *g = t->g;
  const pg_scope *sc = &g->scopes[scope];
  crawl__buf *s = &t->s;
  crawl__buf_printf(s, "%*s%s", depth * 2, "", scope_names[sc->kind]);
  if (sc->name) crawl__buf_printf(s, " \"%s\"", sc->name);
  if (sc->stable_id) crawl__buf_printf(s, " {%s}", sc->stable_id);
  if (sc->kind == PG_SCOPE_IFRAME_ROOT || sc->node < 0) crawl__buf_printf(s, " (%s)", g->documents[sc->document].document_id);
  if (t->o->scope_ids) crawl__buf_printf(s, " <%s>", sc->scope_id);
  crawl__buf_printf(s, "\n");
  for (size_t e = 0; e < g->nelements; e++)
    if (g->elements[e].scope == scope) text_element(t, e, depth + 1);
  for (size_t k = 0; k < g->nscopes; k++)
    if (g->scopes[k].parent == scope) text_scope(t, (int)k, depth + 1);
}

char *pg_graph_to_text(const pg_graph *g) {
  pg_text_opts o = {0};
  return pg_graph_to_text_opts(g, &o);
}

/* The top scopes (or the one o->scope_id names), their elements, the
 * elements outside any scope, the opaque frames. */
static void text_body(text_ctx *t) {
  const pg_graph *g = t->g;
  if (t->o->scope_id) {
    for (size_t k = 0; k < g->nscopes; k++)
      if (!strcmp(g->scopes[k].scope_id, t->o->scope_id)) text_scope(t, (int)k, 0);
    return;
  }
  for (size_t k = 0; k < g->nscopes; k++)
    if (g->scopes[k].parent < 0) text_scope(t, (int)k, 0);
  for (size_t e = 0; e < g->nelements; e++)
    if (g->elements[e].scope < 0) text_element(t, e, 0);
  for (size_t d = 0; d < g->ndocuments; d++)
    if (g->documents[d].access == PG_ACCESS_OPAQUE)
      crawl__buf_printf(&t->s, "opaque frame %s\n", g->documents[d].origin ? g->documents[d].origin : "");
}

char *pg_graph_to_text_opts(const pg_graph *g, const pg_text_opts *o) {
  text_ctx t = {.g = g, .o = o};
  crawl__buf_printf(&t.s, "%s  %s  (%s)\n", g->route_title ? g->route_title : "", g->route_url ? g->route_url : "", g->revision);
  text_body(&t);
  if (t.left) crawl__buf_printf(&t.s, "... %zu more elements not shown (maxNodes %zu)\n", t.left, o->max_elements);
  char *text = crawl__buf_take(&t.s);
  pg_text_terminal_safe(text); /* titles, URLs, ids: page data */
  return text;
}

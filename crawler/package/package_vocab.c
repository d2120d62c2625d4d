/* package_vocab.c -- the fixed vocabularies of the DiscoveryPackage (run
 * statuses, scope kinds, review kinds, severities, signal kinds, UIState keys,
 * affordances, side-effect classes by severity, evidence sources, action
 * arguments, risk levels) as const tables, and the lookups on them. Data
 * only: no model, no journal.
 */
#include "pkg_int.h"
/* ---- fixed vocabularies (tables, not switch ladders) ------------------------ */
const char *const pk_run_statuses[] = {
  "planning", "preparing", "seeding", "exploring", "extracting", "synthesizing",
  "reviewing", "completed", "failed", "cancelled"};
const char *const pk_scope_kinds[] = {
  "route", "region", "form", "dialog", "drawer", "popover", "menu", "toolbar", "tabset",
  "tabpanel", "collection", "rowgroup", "iframe-root", "custom"};
const char *const pk_review_kinds[] = {
  "missing_stable_id", "duplicate_name", "ambiguous_target", "opaque_frame", "closed_shadow",
  "missing_success_signal", "unsafe_action_candidate", "inferred_only", "coverage_gap",
  "workflow_uncertain", "custom"};
const char *const pk_severities[] = {"low", "medium", "high"};
const char *const pk_signal_kinds[] = {
  "route.changed", "toast.contains", "dialog.opened", "dialog.closed", "validation.changed",
  "status.changed", "element.appeared", "element.disappeared", "collection.count_changed",
  "submission.finished", "custom"};
/* UIStateKey in UIState order. */
const char *const pk_state_keys[] = {
  "visible", "enabled", "focused", "focusable", "editable", "readonly", "required", "invalid",
  "checked", "selected", "expanded", "pressed", "open", "busy", "modal", "multiselectable",
  "valueMin", "valueMax", "valueNow"};
const char *const pk_affordance_order[] = {
  "read", "focus", "edit", "activate", "invoke", "toggle", "select", "choose", "expand",
  "collapse", "navigate", "scroll", "submit", "dismiss"};
/* Affordances that make an element interactive (missing_stable_id). */
const char *const pk_interactive_affordances[] = {
  "edit", "activate", "invoke", "toggle", "select", "choose", "expand", "collapse",
  "navigate", "submit", "dismiss"};
/* Primitive actions that fire an element's app action (data-uiap-action). */
const char *const pk_firing_actions[] = {"ui.activate", "ui.submit"};
/* Primitive actions that activate (for inferred_only severity). */
const char *const pk_activating_actions[] = {"ui.activate", "ui.toggle", "ui.submit", "ui.choose", "nav.navigate"};

/* SideEffectClass by severity, for "the most severe class seen". unknown
 * ranks above write: it is never executed autonomously. */
const pk_side_effect pk_side_effects[] = {
  {"none", 0}, {"read", 0}, {"navigation", 0}, {"local_ui", 0}, {"draft", 0},
  {"reversible_write", 0}, {"write", 0}, {"unknown", 0}, {"external_effect", 1},
  {"destructive", 1}, {"billing_change", 1}, {"security_change", 1}, {"irreversible", 1}};

/* PageGraph semantics.sources -> EvidenceSource. */
const pk_source pk_source_map[] = {
  {"agent-annotation", "annotation"}, {"app-registry", "app_registry"}, {"aria", "accessibility"},
  {"native-html", "dom"}, {"label-association", "dom"}, {"visible-text", "visible_text"},
  {"inferred", "inferred"}};

/* Primitive action arguments (ActionArgDescriptor). */
const pk_action_arg pk_action_args[] = {
  {"ui.enterText", "text", "string"}, {"ui.choose", "option", "string"}, {"nav.navigate", "url", "string"}};

int pk_index(const char *const *tab, size_t n, const char *s) {
  if (!s) return -1;
  for (size_t i = 0; i < n; i++)
    if (!strcmp(tab[i], s)) return (int)i;
  return -1;
}
int pk_se_rank(const char *s) {
  for (size_t i = 0; s && i < PK_COUNT(pk_side_effects); i++)
    if (!strcmp(pk_side_effects[i].name, s)) return (int)i;
  return -1;
}
int pk_se_dangerous(const char *s) {
  int r = pk_se_rank(s);
  return r >= 0 && pk_side_effects[r].dangerous;
}
int pk_is_primitive(const char *action) { return !strncmp(action, "ui.", 3) || !strncmp(action, "nav.", 4); }

const char *const pk_risk_names[] = {NULL, "safe", "confirm", "blocked"};
int pk_risk_parse(const char *s) {
  int i = s ? pk_index(pk_risk_names + 1, 3, s) : -1;
  return i < 0 ? RISK_NONE : i + 1;
}

/* ---- severities and review item ids: one of each for crawler/package ----------- */
int pk_severity_rank(const char *s) { return pk_index(pk_severities, PK_COUNT(pk_severities), s); }

char *pk_review_id(const char *key, int n) {
  unsigned long long h = (unsigned long long)(crawl__hash(key) & 0xffffffffffffull);
  return n > 0 ? crawl__xprintf("rev_%012llx_%d", h, n) : crawl__xprintf("rev_%012llx", h);
}

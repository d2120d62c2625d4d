/* observe_script.c -- observe's script (docs/observe.md): checking it
 * (crawl_observe_script_check) and running its steps one at a time
 * (navigate, click, type, press, wait), each target found in the latest
 * capture.
 *
 * Not here: when a step runs (the loop in observe.c waits for quiet).
 */
#include "observe_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the script ----------------------------------------------------------------------------- */
static int target_matches(const pg_element *e, const cJSON *t) {
  const char *id = crawl__str(t, "instanceId"), *stable = crawl__str(t, "stableId"), *role = crawl__str(t, "role"), *name = crawl__str(t, "name");
  if (id && strcmp(id, e->instance_id)) return 0;
  if (stable && (!e->stable_id || strcmp(stable, e->stable_id))) return 0;
  if (role && strcmp(role, e->role)) return 0;
  if (name && (!e->name || strcmp(name, e->name))) return 0;
  return 1;
}

static const pg_element *find_target(const pg_graph *g, const cJSON *t) {
  const cJSON *ord = crawl__get(t, "ordinal");
  int want = cJSON_IsNumber(ord) ? ord->valueint : 0, seen = 0;
  for (size_t i = 0; g && i < g->nelements; i++)
    if (target_matches(&g->elements[i], t) && seen++ == want) return &g->elements[i];
  return NULL;
}

static const char *const step_names[] = {"navigate", "click", "type", "press", "wait"};

int crawl_observe_script_check(const cJSON *script, char *err, size_t errlen) {
  if (!cJSON_IsArray(script)) {
    snprintf(err, errlen, "the script must be a JSON array of steps");
    return -1;
  }
  int i = 0;
  const cJSON *st;
  cJSON_ArrayForEach(st, script) {
    const char *name = crawl__str(st, "step");
    int known = 0;
    for (size_t k = 0; name && k < sizeof step_names / sizeof *step_names; k++) known |= !strcmp(name, step_names[k]);
    const cJSON *t = crawl__get(st, "target");
    if (!cJSON_IsObject(st) || !known) {
      snprintf(err, errlen, "step %d: \"step\" must be one of navigate, click, type, press, wait", i);
      return -1;
    }
    if (!strcmp(name, "navigate") && !crawl__str(st, "url")) {
      snprintf(err, errlen, "step %d: navigate needs \"url\"", i);
      return -1;
    }
    if ((!strcmp(name, "click") || !strcmp(name, "type")) &&
        (!cJSON_IsObject(t) || !(crawl__str(t, "stableId") || crawl__str(t, "instanceId") || crawl__str(t, "role") || crawl__str(t, "name")))) {
      snprintf(err, errlen, "step %d: %s needs \"target\" with stableId, instanceId, or role and name", i, name);
      return -1;
    }
    if (!strcmp(name, "type") && !crawl__str(st, "text")) {
      snprintf(err, errlen, "step %d: type needs \"text\"", i);
      return -1;
    }
    if (!strcmp(name, "press") && !crawl__str(st, "key")) {
      snprintf(err, errlen, "step %d: press needs \"key\" (Enter, Escape or Tab)", i);
      return -1;
    }
    if (!strcmp(name, "wait") && !cJSON_IsNumber(crawl__get(st, "ms")) && !cJSON_IsObject(t)) {
      snprintf(err, errlen, "step %d: wait needs \"ms\" or \"target\"", i);
      return -1;
    }
    i++;
  }
  return 0;
}

/* Centre of a node's first quad, after scrolling it into view. */
static crawl_code node_centre(obs *s, int backend, double *x, double *y) {
  const char *sess = crawl_page_session(s->p);
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddNumberToObject(a, "backendNodeId", backend);
  cdp_code r = cdp_call(s->c, sess, "DOM.scrollIntoViewIfNeeded", a, NULL, 10000);
  if (r == CDP_CANCELLED) return CRAWL_CANCELLED;
  a = cJSON_CreateObject();
  cJSON_AddNumberToObject(a, "backendNodeId", backend);
  r = cdp_call(s->c, sess, "DOM.getContentQuads", a, &res, 10000);
  if (r == CDP_CANCELLED) return CRAWL_CANCELLED;
  const cJSON *q = cJSON_GetArrayItem(crawl__get(res, "quads"), 0);
  if (r || cJSON_GetArraySize(q) < 8) {
    cJSON_Delete(res);
    return CRAWL_ARG;
  }
  double sx = 0, sy = 0;
  for (int i = 0; i < 4; i++) {
    sx += cJSON_GetArrayItem(q, i * 2)->valuedouble;
    sy += cJSON_GetArrayItem(q, i * 2 + 1)->valuedouble;
  }
  cJSON_Delete(res);
  *x = sx / 4;
  *y = sy / 4;
  return CRAWL_OK;
}

static crawl_code do_type(obs *s, const pg_element *e, const cJSON *st) {
  const char *sess = crawl_page_session(s->p);
  cJSON *a = cJSON_CreateObject();
  cJSON_AddNumberToObject(a, "backendNodeId", e->backend_node_id);
  cdp_code r = cdp_call(s->c, sess, "DOM.focus", a, NULL, 10000);
  if (r == CDP_CANCELLED) return CRAWL_CANCELLED;
  if (r) return CRAWL_ARG;
  if (cJSON_IsTrue(crawl__get(st, "clear"))) {
    cJSON *res = NULL;
    a = cJSON_CreateObject();
    cJSON_AddNumberToObject(a, "backendNodeId", e->backend_node_id);
    if (cdp_call(s->c, sess, "DOM.resolveNode", a, &res, 10000) == CDP_OK) {
      const char *oid = crawl__str(crawl__get(res, "object"), "objectId");
      if (oid) {
        cJSON *f = cJSON_CreateObject();
        cJSON_AddStringToObject(f, "objectId", oid);
        cJSON_AddStringToObject(f, "functionDeclaration", CRAWL__JS(select_contents));
        cdp_call(s->c, sess, "Runtime.callFunctionOn", f, NULL, 10000);
      }
    }
    cJSON_Delete(res);
  }
  a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "text", crawl__str(st, "text"));
  r = cdp_call(s->c, sess, "Input.insertText", a, NULL, 10000);
  return r == CDP_CANCELLED ? CRAWL_CANCELLED : r ? CRAWL_BROWSER : CRAWL_OK;
}

/* Resolve a navigate URL: absolute, or relative to the page's origin/path. */
static void resolve_url(obs *s, const char *u, char *out, size_t n) {
  const char *cur = s->last ? s->last->route_url : NULL;
  char *r = cur ? pg_url_resolve(cur, u) : NULL; /* pg_url.h: RFC 3986 */
  snprintf(out, n, "%s", r ? r : u);
  free(r);
}

/* Run the current step. Returns CRAWL_OK when it is done (or still
 * waiting: s->step_waiting), an error when it failed. */
crawl_code crawl__obs_step_run(obs *s, long long now) {
  const cJSON *st = cJSON_GetArrayItem(s->o->script, s->step);
  const char *name = crawl__str(st, "step");
  const cJSON *t = crawl__get(st, "target");
  const cJSON *tmo = crawl__get(st, "timeoutMs");
  if (!s->step_waiting) {
    s->step_started = now;
    s->step_deadline = now + (cJSON_IsNumber(tmo) ? (long long)tmo->valuedouble : 10000);
    crawl_log(CRAWL_LOG_INFO, "observe", "step %d: %s", s->step, name);
  }
  s->step_waiting = 0;
  if (!strcmp(name, "wait")) {
    const cJSON *ms = crawl__get(st, "ms");
    if (cJSON_IsNumber(ms) && !t) {
      if (now - s->step_started < (long long)ms->valuedouble) s->step_waiting = 1;
      return CRAWL_OK;
    }
    int gone = cJSON_IsTrue(crawl__get(st, "gone"));
    if ((find_target(s->last, t) != NULL) == gone) {
      if (now >= s->step_deadline) {
        snprintf(s->err, sizeof s->err, "script step %d: the target %s within %lld ms", s->step,
                 gone ? "did not go" : "did not appear", s->step_deadline - s->step_started);
        return CRAWL_TIMEOUT;
      }
      s->step_waiting = 1;
    }
    return CRAWL_OK;
  }
  if (!strcmp(name, "navigate")) {
    char url[8192];
    resolve_url(s, crawl__str(st, "url"), url, sizeof url);
    cJSON *a = cJSON_CreateObject(), *res = NULL;
    cJSON_AddStringToObject(a, "url", url);
    cdp_code r = cdp_call(s->c, crawl_page_session(s->p), "Page.navigate", a, &res, 30000);
    const char *e = crawl__str(res, "errorText");
    if (r == CDP_CANCELLED) {
      cJSON_Delete(res);
      return CRAWL_CANCELLED;
    }
    if (r || (e && *e)) {
      snprintf(s->err, sizeof s->err, "script step %d: cannot load %.200s: %.200s", s->step, url, e ? e : cdp_client_errmsg(s->c));
      cJSON_Delete(res);
      return CRAWL_NAVIGATE;
    }
    cJSON_Delete(res);
    return CRAWL_OK;
  }
  if (!strcmp(name, "press")) {
    crawl_code rc = crawl_page_key(s->p, crawl__str(st, "key"));
    if (rc == CRAWL_ARG) snprintf(s->err, sizeof s->err, "script step %d: unknown key %s", s->step, crawl__str(st, "key"));
    return rc;
  }
  /* click, type: the target must be in the latest capture (auto-wait) */
  const pg_element *e = find_target(s->last, t);
  if (!e) {
    if (now >= s->step_deadline) {
      char *what = cJSON_PrintUnformatted(t);
      snprintf(s->err, sizeof s->err, "script step %d: no element matches %s", s->step, what ? what : "");
      free(what);
      return CRAWL_TIMEOUT;
    }
    s->step_waiting = 1;
    return CRAWL_OK;
  }
  if (!strcmp(name, "type")) {
    crawl_code rc = do_type(s, e, st);
    if (rc && rc != CRAWL_CANCELLED) snprintf(s->err, sizeof s->err, "script step %d: cannot type into %s", s->step, e->instance_id);
    return rc;
  }
  double x, y;
  crawl_code rc = node_centre(s, pg_element_click_node(e), &x, &y);
  if (rc == CRAWL_OK) rc = crawl_page_click(s->p, x, y);
  if (rc && rc != CRAWL_CANCELLED) snprintf(s->err, sizeof s->err, "script step %d: cannot click %s", s->step, e->instance_id);
  return rc;
}

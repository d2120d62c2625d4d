/* explore_probe.c -- sealed probes (docs/safety.md "Sealed probes"): a
 * control the policy cannot settle (action.probe: rule default.unknown in
 * safe_explore) is tried with the page sealed (page_seal.c) and its client
 * storage snapshotted. It is allowed (rule probe.sealed) when nothing tried
 * to write over the network and no stored data was lost (seal_diff.c), and
 * its transition is recorded with the storage keys it added or changed;
 * otherwise it is denied (probe.write, probe.destructive) with a review item
 * naming the channel and the request or key, and the state it reached is
 * not published. The storage is put back after every probe, and after
 * every replay of a probed control. Values never leave memory. */
#include "explore_int.h"
#include "pg_url.h"
#include "seal.h"

static const char fix[] = "Annotate the control with data-uiap-risk or data-uiap-action, or give it a name that "
                          "says what it does.";

static void action_key(const action *a, char *key, size_t n);
static void deny(run *r, int si, action *a, int destructive, const char *what);

void crawl__run_probe_pending(action *a) {
  a->dec = (act_decision){.effect = POL_EFFECT_ALLOW, .reason = POL_REASON_SAFE,
                          .text = crawl__act_text("allow under the seal: nothing says what it does (rule "
                                                  "default.unknown), so it is probed with writes refused and "
                                                  "the storage kept; decided by what it tries")};
}

/* The journal's "decision" line for a, as it stands now. */
static void journal_decision(run *r, int si, const action *a) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "stateId", r->f.st[si].id);
  cJSON_AddStringToObject(o, "actionId", a->action_id);
  cJSON_AddItemToObject(o, "target", crawl__run_target_json(a));
  crawl__run_add_args(o, a);
  cJSON_AddStringToObject(o, "sideEffectClass", pol_side_effect_name(a->cls.side_effect));
  cJSON_AddStringToObject(o, "effect", pol_effect_name(a->dec.effect));
  cJSON_AddStringToObject(o, "reason", pol_reason_name(a->dec.reason));
  cJSON_AddStringToObject(o, "rule", a->cls.rule);
  cJSON_AddStringToObject(o, "text", a->dec.text ? a->dec.text : "");
  cJSON_AddBoolToObject(o, "probed", 1);
  crawl__run_jl_write(r, "decision", o);
  r->decisions++;
}

/* a is held after all (the seal could not go on): review, as without probes. */
static void hold(run *r, int si, action *a, const char *why) {
  char t[384];
  snprintf(t, sizeof t, "review: unknown (rule default.unknown); it could not be probed: %.200s", why);
  a->dec = (act_decision){.effect = POL_EFFECT_REVIEW, .reason = POL_REASON_UNKNOWN_SIDE_EFFECT,
                          .text = crawl__act_text(t)};
  a->probe = 0;
  a->done = 1;
  journal_decision(r, si, a);
}

/* The seal on and the storage snapshotted, the page's counts taken. */
static int seal_on(run *r, probe_ctx *pc, char *why, size_t whylen) {
  memset(pc, 0, sizeof *pc);
  crawl_code rc = crawl__page_seal(r->page, 1);
  if (rc) {
    snprintf(why, whylen, "%s", crawl_page_errmsg(r->page));
    crawl__page_seal(r->page, 0);
    return -1;
  }
  if (crawl__page_storage_snapshot(r->page, &pc->before, why, whylen)) {
    crawl__page_seal(r->page, 0);
    return -1;
  }
  pc->blocked = crawl_page_blocked(r->page, NULL);
  pc->ws_opened = crawl_page_websockets(r->page, &pc->ws_frames, &pc->ws_unguarded, NULL);
  pc->refused = crawl__page_seal_refused(r->page, NULL);
  return 0;
}

int crawl__run_probe_begin(run *r, int si, action *a, probe_ctx *pc) {
  char why[300], key[1200];
  action_key(a, key, sizeof key);
  long bad = crawl__strmap_get(&r->probed_bad, key);
  if (bad > 0) { /* the same control wrote when probed elsewhere */
    deny(r, si, a, bad == 2, NULL);
    return -1;
  }
  if (seal_on(r, pc, why, sizeof why) == 0) return 0;
  hold(r, si, a, why);
  return -1;
}

/* "POST http://h/path (a write)" without the query (it may carry values). */
static void request_of(const char *blocked, char *buf, size_t n) {
  const char *q = blocked ? strchr(blocked, '?') : NULL, *why = blocked ? strstr(blocked, " (") : NULL;
  if (!blocked) snprintf(buf, n, "a request");
  else if (q && (!why || q < why)) snprintf(buf, n, "%.*s%s", (int)(q - blocked), blocked, why ? why : "");
  else snprintf(buf, n, "%s", blocked);
}

/* What tried to leave over the network since pc, in words (channel and
 * request), into buf; 0 when nothing did. */
static int net_attempts(run *r, const probe_ctx *pc, char *buf, size_t n) {
  const char *last = NULL, *ws_last = NULL, *seal_last = NULL;
  int blocked = crawl_page_blocked(r->page, &last) - pc->blocked, frames, unguarded;
  int ws = crawl_page_websockets(r->page, &frames, &unguarded, &ws_last) - pc->ws_opened;
  int refused = crawl__page_seal_refused(r->page, &seal_last) - pc->refused;
  frames -= pc->ws_frames;
  unguarded -= pc->ws_unguarded;
  char req[700];
  buf[0] = 0;
  if (blocked > 0) {
    request_of(last, req, sizeof req);
    snprintf(buf, n, "a request, %s, failed by the write guard", req);
  } else if (refused > 0) {
    snprintf(buf, n, "a send, %.300s, refused by the seal", seal_last ? seal_last : "?");
  } else if (ws > 0 || unguarded > 0) {
    request_of(ws_last, req, sizeof req);
    snprintf(buf, n, "a WebSocket to %s, %s", req, ws > 0 ? "refused by the write guard" : "opened from a worker");
  } else if (frames > 0) {
    snprintf(buf, n, "%d WebSocket frame%s on a connection the page had open", frames, frames == 1 ? "" : "s");
  }
  return buf[0] != 0;
}

/* The storage put back, the seal off; a note when something could not be. */
static void seal_off(run *r, int si, const action *a, probe_ctx *pc) {
  char *lost = NULL;
  crawl__page_storage_restore(r->page, pc->before, &lost);
  crawl__page_seal(r->page, 0);
  if (lost)
    crawl__run_jl_review(r, "custom", "medium", si, a, "Check the app's stored data by hand.",
                         "After probing this control under the seal, the client storage could not be put back "
                         "whole: %.600s.", lost);
  free(lost);
  cJSON_Delete(pc->before);
  pc->before = NULL;
}

void crawl__run_probe_abort(run *r, int si, const action *a, probe_ctx *pc) { seal_off(r, si, a, pc); }

/* "localStorage key \"cart\" removed" for the first lost entry of d. */
static void first_loss(const crawl_seal_diff *d, char *buf, size_t n) {
  for (size_t i = 0; i < d->n; i++)
    if (d->v[i].kind == CRAWL_SEAL_REMOVED || d->v[i].kind == CRAWL_SEAL_SHRUNK) {
      snprintf(buf, n, "%s key \"%.200s\" %s%s", d->v[i].channel, d->v[i].key,
               d->v[i].kind == CRAWL_SEAL_REMOVED ? "removed" : "lost entries (a stored list or object shrank)",
               crawl__seal_lost(d) > 1 ? ", and more" : "");
      return;
    }
  snprintf(buf, n, "stored data lost");
}

static void action_key(const action *a, char *key, size_t n) { crawl__run_action_key(key, n, NULL, NULL, NULL, a); }

/* Denied: the decision line; the first time for this control (what != NULL),
 * the review item and the page to be restored. */
static void deny(run *r, int si, action *a, int destructive, const char *what) {
  char t[384];
  a->cls.side_effect = destructive ? POL_SE_DESTRUCTIVE : POL_SE_WRITE;
  snprintf(a->cls.rule, sizeof a->cls.rule, "%s", destructive ? "probe.destructive" : "probe.write");
  snprintf(t, sizeof t, "deny: %s, found by probing under the seal (rule %s); never executed again",
           destructive ? "destructive: it deleted stored data" : "write: it tried to write over the network",
           a->cls.rule);
  a->dec = (act_decision){.effect = POL_EFFECT_DENY,
                          .reason = destructive ? POL_REASON_DESTRUCTIVE : POL_REASON_MANUAL_ONLY,
                          .text = crawl__act_text(t)};
  a->probe = 0;
  a->done = 1;
  journal_decision(r, si, a);
  if (!what) return; /* denied by its probe in another state: not tried again */
  char key[1200];
  action_key(a, key, sizeof key);
  crawl__strmap_put(&r->probed_bad, key, destructive ? 2 : 1);
  crawl__run_jl_review(r, "unsafe_action_candidate", "high", si, a, fix,
                       "Probed under the seal (its name, markup and icons said nothing about what it does): %s. "
                       "It is denied; the state it reached is not published, and the tab and its storage were "
                       "restored.", what);
  r->probes_denied++;
  r->cur = -1; /* the next step restores the page */
}

/* The keys added and changed, by channel and key, as the transition's
 * metadata.probe (never a value). */
static cJSON *probe_meta(const crawl_seal_diff *d) {
  cJSON *m = cJSON_CreateObject();
  cJSON_AddBoolToObject(m, "sealed", 1);
  cJSON_AddStringToObject(m, "network", "no write attempted");
  cJSON *added = cJSON_AddArrayToObject(m, "storageAdded"), *changed = cJSON_AddArrayToObject(m, "storageChanged");
  for (size_t i = 0; i < d->n; i++) {
    cJSON *k = cJSON_CreateObject();
    cJSON_AddStringToObject(k, "channel", d->v[i].channel);
    cJSON_AddStringToObject(k, "key", d->v[i].key);
    cJSON_AddItemToArray(d->v[i].kind == CRAWL_SEAL_ADDED ? added : changed, k);
  }
  long more = d->counts[CRAWL_SEAL_ADDED] + d->counts[CRAWL_SEAL_CHANGED] - (long)d->n;
  if (more > 0) cJSON_AddNumberToObject(m, "storageMore", (double)more);
  cJSON_AddBoolToObject(m, "storageRestored", 1);
  return m;
}

static void remember(run *r, const action *a) {
  char key[1200];
  action_key(a, key, sizeof key);
  crawl__strmap_put(&r->probed_ok, key, 1);
}

/* 1 when rec, recorded (a path, an edge: this worker's or another's), is a
 * control probed harmless here, or one the gate would leave to a probe on
 * the element of the current capture: it is replayed under the seal. */
int crawl__run_probe_known(const run *r, const action *rec) {
  char key[1200];
  action_key(rec, key, sizeof key);
  if (crawl__strmap_get(&r->probed_ok, key) >= 0) return 1;
  if (rec->escape || !r->g || !rec->role) return 0;
  const pg_element *e = crawl__act_find(r->g, rec->role, rec->name, rec->stable_id, rec->scope_key, rec->ordinal);
  if (!e) return 0;
  action d = *rec;
  crawl__act_decide(&r->o->policy, r->page_origin, r->allowed, &d, e);
  return d.probe;
}

/* The verdict on what happened since pc: 0 nothing lost and nothing sent,
 * 1 a write (what), 2 data lost (what); -1 the storage could not be read
 * again. *d: the storage diff (released by the caller). */
static int verdict(run *r, const probe_ctx *pc, crawl_seal_diff *d, char *what, size_t n) {
  char net[900], why[300], loss[400];
  memset(d, 0, sizeof *d);
  int wrote = net_attempts(r, pc, net, sizeof net);
  cJSON *after = NULL;
  if (crawl__page_storage_snapshot(r->page, &after, why, sizeof why)) {
    snprintf(what, n, "%s", why);
    return -1;
  }
  crawl__seal_diff(pc->before, after, d);
  cJSON_Delete(after);
  if (crawl__seal_lost(d)) {
    first_loss(d, loss, sizeof loss);
    snprintf(what, n, "it deleted stored data -- %s%s%s", loss, wrote ? "; and " : "", wrote ? net : "");
    return 2;
  }
  if (wrote) return snprintf(what, n, "it tried to write over the network -- %s", net), 1;
  return 0;
}

int crawl__run_probe_end(run *r, int si, action *a, probe_ctx *pc) {
  char what[1400];
  crawl_seal_diff d;
  int v = verdict(r, pc, &d, what, sizeof what);
  seal_off(r, si, a, pc);
  if (v < 0) {
    crawl__seal_diff_release(&d);
    hold(r, si, a, what);
    r->cur = -1;
    return 1;
  }
  if (v > 0) {
    crawl__seal_diff_release(&d);
    deny(r, si, a, v == 2, what);
    return 1;
  }
  snprintf(a->cls.rule, sizeof a->cls.rule, "probe.sealed");
  a->dec = (act_decision){.effect = POL_EFFECT_ALLOW, .reason = POL_REASON_SAFE,
                          .text = crawl__act_text("allow: probed under the seal (rule probe.sealed): no write "
                                                  "attempted, no stored data deleted")};
  a->probe = 0;
  cJSON_Delete(r->probe_meta);
  r->probe_meta = probe_meta(&d);
  crawl__seal_diff_release(&d);
  remember(r, a);
  r->probes_allowed++;
  return 0;
}

void crawl__run_probe_annotate(run *r, cJSON *o) {
  if (!r->probe_meta) return;
  const char *tid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "transitionId"));
  cJSON *ev = cJSON_AddArrayToObject(cJSON_GetObjectItemCaseSensitive(o, "decision"), "evidence");
  static const char *const sources[] = {"transition", "network"};
  for (int k = 0; k < 2 && ev; k++) {
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "source", sources[k]);
    cJSON_AddStringToObject(e, "refId", tid ? tid : "");
    if (k) cJSON_AddStringToObject(e, "note", "no write attempted");
    cJSON_AddItemToArray(ev, e);
  }
  cJSON_AddItemToObject(cJSON_AddObjectToObject(o, "metadata"), "probe", r->probe_meta);
  r->probe_meta = NULL;
}

crawl_code crawl__run_probe_replay(run *r, int si, const action *rec, act_refusal *refused, char *why,
                                   size_t whylen) {
  probe_ctx pc;
  if (seal_on(r, &pc, why, whylen)) {
    *refused = ACT_REFUSED;
    return CRAWL_ARG;
  }
  crawl_code rc = crawl__run_perform_(r, rec, refused, why, whylen);
  if (!rc) crawl_page_settle(r->page);
  char what[1400];
  crawl_seal_diff d;
  int v = rc ? 0 : verdict(r, &pc, &d, what, sizeof what);
  if (!rc) crawl__seal_diff_release(&d);
  seal_off(r, si, rec, &pc);
  if (!rc && v) {
    crawl__run_jl_review(r, "unsafe_action_candidate", "high", si, rec, fix,
                         "Replayed on the way to this state, a control that had been probed harmless under the "
                         "seal did not stay so: %.800s. The page and its storage were restored.", what);
    snprintf(why, whylen, "the probed control did not stay harmless when replayed");
    *refused = ACT_REFUSED;
    return CRAWL_ARG;
  }
  return rc;
}

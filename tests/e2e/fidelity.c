/* fidelity.c -- end-to-end: the PageGraph is right on pages with frames,
 * shadow DOM, dialogs, menus, tabs, popovers and forms, and its boundaries
 * hold (UIAP Web Profile sections 5.5-5.11, 8, 9; issue 3).
 *
 * Fixtures: tests/fixtures/fidelity/, served on two loopback ports. A
 * distinctive string (a "canary", ZQX...) sits wherever the tool must not
 * look: inside a cross-origin frame on the other port (same site: Chromium
 * renders it in-process, so DOMSnapshot and the accessibility tree include
 * it), inside a frame on "localhost" (another site: an out-of-process frame),
 * inside closed shadow roots, and in the values of password, sensitive and
 * payment fields. No canary may appear anywhere in any output.
 *
 * Most tests run the CLI (t_snapshot validates every output against
 * schema.json); the hit test and the filters drive the library directly,
 * so that one browser answers DOM.getNodeForLocation for the very capture.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crawl.h"
#include "support.h"

static const cJSON *item(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static const char *str(const cJSON *o, const char *k) { return cJSON_GetStringValue(item(o, k)); }
static int str_is(const cJSON *o, const char *k, const char *v) {
  const char *s = str(o, k);
  return s && v && !strcmp(s, v);
}

/* First member of array `list` of g whose string `key` equals val. */
static const cJSON *find(const cJSON *g, const char *list, const char *key, const char *val) {
  const cJSON *x;
  cJSON_ArrayForEach(x, item(g, list))
    if (str_is(x, key, val)) return x;
  return NULL;
}
static int count(const cJSON *g, const char *list, const char *key, const char *val) {
  int n = 0;
  const cJSON *x;
  cJSON_ArrayForEach(x, item(g, list)) n += val ? str_is(x, key, val) : 1;
  return n;
}
static const cJSON *scope(const cJSON *g, const char *id) { return find(g, "scopes", "scopeId", id); }

/* 1 if scope id or one of its ancestors is `anc`. */
static int scope_within(const cJSON *g, const char *id, const char *anc) {
  for (int steps = 0; id && steps < 64; steps++) {
    if (!strcmp(id, anc)) return 1;
    id = str(scope(g, id), "parentScopeId");
  }
  return 0;
}

static int has_relation(const cJSON *g, const char *type, const char *from, const char *to) {
  const cJSON *r;
  cJSON_ArrayForEach(r, item(g, "relations"))
    if (str_is(r, "type", type) && str_is(r, "from", from) && str_is(r, "to", to)) return 1;
  return 0;
}

static const char *id_of(const cJSON *el) { return str(el, "instanceId"); }

/* The first canary in text, or NULL. */
static const char *canary(const char *text) { return text ? strstr(text, "ZQX") : NULL; }
#define EXPECT_NO_CANARY(text, what)                                                  \
  do {                                                                                \
    const char *c_ = canary(text);                                                    \
    cr_expect(!c_, "%s leaks a canary: ...%.60s", what, c_ ? c_ : "");                \
  } while (0)

static void expect_no_canary_json(const cJSON *g, const char *what) {
  char *t = cJSON_PrintUnformatted(g);
  EXPECT_NO_CANARY(t, what);
  free(t);
}

/* canary.html with the other port's origin for frame (a) */
static const char *canary_url(void) {
  static char u[256];
  char path[64];
  snprintf(path, sizeof path, "/fidelity/canary.html?p1=%d", t_fixture_port(1));
  snprintf(u, sizeof u, "%s", t_fixture_url(0, NULL, path));
  return u;
}

static char *origin(int which, const char *host) {
  char *o = malloc(128);
  snprintf(o, 128, "http://%s:%d", host, t_fixture_port(which));
  return o;
}

#define SNAP(graph, url, args)                                                          \
  t_run run_;                                                                           \
  int left_ = 0;                                                                        \
  cJSON *graph = t_snapshot(&run_, &left_, url, args);                                  \
  cr_assert(graph, "snapshot of %s failed (exit %d): %s", url, run_.status, run_.err);  \
  cr_expect_eq(left_, 0, "Chromium or its temp profile outlived the run");              \
  EXPECT_NO_CANARY(run_.err, "stderr")

#define DONE(graph)   \
  cJSON_Delete(graph); \
  t_run_free(&run_)

/* ---- the library, for hit tests and filters ------------------------------ */
typedef struct {
  cdp_client *c;
  crawl_page *p;
} lib;

static void lib_open(lib *l, const char *url) {
  char err[256];
  cr_assert_eq(cdp_launch(NULL, &l->c, err, sizeof err), CDP_OK, "launch: %s", err);
  cr_assert_eq(crawl_page_open(l->c, NULL, &l->p), CRAWL_OK, "open: %s", crawl_page_errmsg(l->p));
  cr_assert_eq(crawl_page_goto(l->p, url), CRAWL_OK, "goto %s: %s", url, crawl_page_errmsg(l->p));
}

static pg_graph *lib_capture(lib *l, const pg_options *o) {
  pg_graph *g = NULL;
  cr_assert_eq(crawl_page_capture(l->p, o, &g), CRAWL_OK, "capture: %s", crawl_page_errmsg(l->p));
  return g;
}

/* The graph as JSON, validated against PageGraph. */
static cJSON *lib_json(const pg_graph *g) {
  cJSON *j = pg_graph_to_json(g);
  char *text = cJSON_PrintUnformatted(j);
  char path[] = "/tmp/uiap-fidelity-XXXXXX";
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  close(fd);
  t_write_file(path, text);
  char msg[4096];
  cr_expect_eq(t_validate("PageGraph", path, msg, sizeof msg), 0, "not a valid PageGraph: %s", msg);
  unlink(path);
  free(text);
  return j;
}

static void lib_close(lib *l) {
  crawl_page_close(l->p);
  cdp_client_free(l->c);
}

static const pg_element *lib_element(const pg_graph *g, const char *role, const char *name) {
  for (size_t i = 0; i < g->nelements; i++)
    if ((!role || !strcmp(g->elements[i].role, role)) && g->elements[i].name && !strcmp(g->elements[i].name, name))
      return &g->elements[i];
  return NULL;
}

/* ---- 1. canaries ------------------------------------------------------------ */
static void expect_redacted(const cJSON *g, const char *role, const char *name) {
  const cJSON *e = t_element(g, role, name);
  cr_expect(e, "the field %s \"%s\" is published", role, name);
  if (!e) return;
  cr_expect(str_is(e, "textValue", PG_REDACTED), "%s: textValue is %s", name, str(e, "textValue"));
  cr_expect(!item(e, "semanticValue"), "%s: no semanticValue", name);
  cr_expect(cJSON_IsTrue(item(item(e, "metadata"), "redacted")), "%s: metadata.redacted", name);
}

/* What both canary runs must show: the boundaries themselves. */
static void expect_boundaries(const cJSON *g) {
  char *o1 = origin(1, "127.0.0.1"), *o2 = origin(0, "localhost");
  const cJSON *port = find(g, "documents", "origin", o1), *host = find(g, "documents", "origin", o2);
  cr_expect(port, "the same-site frame on the other port is published (%s)", o1);
  cr_expect(host, "the frame on localhost is published (%s)", o2);
  const cJSON *docs[] = {port, host};
  for (int k = 0; k < 2; k++) {
    if (!docs[k]) continue;
    cr_expect(str_is(docs[k], "access", "opaque"), "%s is opaque", str(docs[k], "origin"));
    cr_expect(item(docs[k], "bbox"), "an opaque document has its frame's bbox");
    cr_expect(str_is(docs[k], "parentDocumentId", "doc_root"));
    cr_expect(!item(docs[k], "title") && !item(docs[k], "rootScopeId") && !item(docs[k], "readyState"),
              "an opaque document has no title, root scope or readyState");
    cr_expect_eq(count(g, "scopes", "documentId", str(docs[k], "documentId")), 0, "no scope inside an opaque frame");
    cr_expect_eq(count(g, "elements", "documentId", str(docs[k], "documentId")), 0, "no element inside an opaque frame");
  }
  /* frames inside the opaque frame are its content: not even metadata */
  cr_expect_eq(count(g, "documents", NULL, NULL), 3, "documents: the top and the two opaque frames, nothing nested");
  const cJSON *md = item(g, "metadata");
  cr_expect_eq(item(md, "opaqueFrames")->valueint, 2);
  /* closed shadow hosts: present, named only by themselves */
  const cJSON *widget = find(g, "elements", "stableId", "widget.closed");
  cr_expect(widget, "the closed host with data-uiap-id is published");
  const cJSON *ann = item(item(widget, "targetHints"), "annotations");
  cr_expect(!widget || str_is(ann, "meaning", "closed widget"), "the host's own data-uiap-meaning is kept");
  cr_expect(t_element(g, "group", "Labelled closed host"), "a closed host keeps its own aria-label");
  cr_expect(t_element(g, "button", "Send"), "a button's name leaves out closed content");
  cr_expect(t_element(g, "button", "Light label"), "aria-labelledby text leaves out closed content");
  cr_expect(t_element(g, "textbox", "Field label"), "label[for] text leaves out closed content");
  const cJSON *desc = t_element(g, "textbox", "Described field");
  cr_expect(desc && str_is(desc, "description", "Help text"), "a description leaves out closed content: %s",
            desc ? str(desc, "description") : "(missing)");
  cr_expect(t_element(g, "button", "Slotted light button"), "light content slotted into a closed root is published");
  cr_expect(t_element(g, "button", "Pay with"), "a name leaves out an embedded payment field's value");
  cr_expect(item(md, "closedShadowHosts")->valueint >= 5);
  int rolehost = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, item(g, "elements")) {
    const cJSON *sem = item(e, "semantics");
    if (str_is(e, "role", "button") && str_is(sem, "tagName", "div") && str_is(sem, "ariaRole", "button") &&
        !item(e, "textValue") && item(e, "bbox") && !strstr(str(e, "name") ? str(e, "name") : "", "Pay"))
      rolehost += !item(e, "name");
  }
  cr_expect_eq(rolehost, 1, "the role=button closed host is published, with no name from its inside");
  /* redaction */
  expect_redacted(g, "textbox", "Password");
  expect_redacted(g, "textbox", "Typed password");
  expect_redacted(g, "textbox", "Secret note");
  expect_redacted(g, "textbox", "Secret text");
  expect_redacted(g, "textbox", "Card number");
  expect_redacted(g, "combobox", "Expiry month");
  expect_redacted(g, "textbox", "Card code");
  expect_redacted(g, "textbox", "One-time code");
  cr_expect(item(md, "redactions")->valueint >= 8, "metadata counts the redactions");
  /* a name computed from a password field would show its length as bullets */
  char *t = cJSON_PrintUnformatted(g);
  cr_expect(!strstr(t, "\xe2\x80\xa2"), "no password bullets anywhere");
  free(t);
  free(o1);
  free(o2);
}

Test(fidelity_canary, default_json) {
  const char *const args[] = {NULL};
  SNAP(g, canary_url(), args);
  expect_no_canary_json(g, "the JSON");
  expect_boundaries(g);
  cr_expect(!t_element(g, NULL, "Hidden password"), "a display:none field is absent by default");
  DONE(g);
}

Test(fidelity_canary, with_hidden_and_non_interactive) {
  const char *const args[] = {"--include-hidden", "--include-non-interactive", NULL};
  SNAP(g, canary_url(), args);
  expect_no_canary_json(g, "the JSON (--include-hidden --include-non-interactive)");
  expect_boundaries(g);
  expect_redacted(g, "textbox", "Hidden password");
  cr_expect(!t_element(g, "option", NULL) && !t_element(g, "MenuListOption", NULL),
            "the options of a sensitive select (its possible values) are not published");
  DONE(g);
}

Test(fidelity_canary, text_output) {
  const char *variants[][3] = {{NULL}, {"--include-hidden", "--include-non-interactive", NULL}};
  for (int v = 0; v < 2; v++) {
    const char *argv[12] = {UIAP_BIN, "snapshot", canary_url(), "--format", "text"};
    int n = 5;
    for (int k = 0; variants[v][k]; k++) argv[n++] = variants[v][k];
    argv[n] = NULL;
    t_run r = t_run_argv(argv, 90000);
    cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    EXPECT_NO_CANARY(r.out, "the text tree");
    EXPECT_NO_CANARY(r.err, "stderr");
    cr_expect(strstr(r.out, "= \"[redacted]\""), "redacted fields show as such: %s", r.out);
    int opaque = 0;
    for (const char *s = r.out; (s = strstr(s, "opaque frame")); s++) opaque++;
    cr_expect_eq(opaque, 2, "two opaque frames listed: %s", r.out);
    cr_expect(strstr(r.out, "{widget.closed}"), "the closed host with its stableId: %s", r.out);
    t_run_free(&r);
  }
}

Test(fidelity_canary, bridged_same_site_frame) {
  char *o1 = origin(1, "127.0.0.1");
  const char *const args[] = {"--bridge-origin", o1, NULL};
  SNAP(g, canary_url(), args);
  const cJSON *doc = find(g, "documents", "origin", o1);
  cr_assert(doc, "the bridged frame is published");
  cr_expect(str_is(doc, "access", "bridged"));
  cr_expect(str(doc, "bridgeSessionId") && *str(doc, "bridgeSessionId"), "bridgeSessionId is set");
  cr_expect(str(doc, "rootScopeId"), "a bridged document has its iframe-root scope");
  const cJSON *btn = t_element(g, "button", "ZQXPORTARIA");
  cr_assert(btn, "the bridged frame's button is published");
  cr_expect(str_is(btn, "documentId", str(doc, "documentId")));
  const cJSON *fp = item(item(btn, "semantics"), "framePath");
  cr_expect_eq(cJSON_GetArraySize(fp), 2, "framePath: top frame, bridged frame");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(fp, 1)), str(doc, "frameId"));
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(fp, 0)), str(find(g, "documents", "documentId", "doc_root"), "frameId"));
  /* the other boundaries still hold */
  char *t = cJSON_PrintUnformatted(g);
  cr_expect(!strstr(t, "ZQXHOST"), "the localhost frame stays opaque");
  cr_expect(!strstr(t, "ZQXCLOSED") && !strstr(t, "ZQXPASSWORD") && !strstr(t, "ZQXSENSITIVE"),
            "closed roots and sensitive values stay hidden");
  free(t);
  DONE(g);
  free(o1);
}

/* An out-of-process frame (another site) bridged: captured over its own
 * session, placed in top-level viewport pixels. */
Test(fidelity_canary, bridged_out_of_process_frame) {
  char *o2 = origin(0, "localhost");
  const char *bridges[] = {o2, NULL};
  lib l = {0};
  lib_open(&l, canary_url());
  pg_options o = {.bridge_origins = bridges};
  pg_graph *pg = lib_capture(&l, &o);
  cJSON *g = lib_json(pg);
  const cJSON *doc = find(g, "documents", "origin", o2);
  cr_assert(doc, "the localhost frame is published");
  cr_expect(str_is(doc, "access", "bridged"), "access: %s", str(doc, "access"));
  const char *bsid = str(doc, "bridgeSessionId");
  cr_assert(bsid && *bsid, "bridgeSessionId is the frame's session");
  const cJSON *btn = t_element(g, "button", "ZQXHOSTARIA");
  cr_assert(btn, "the out-of-process frame's button is published");
  cr_expect(str_is(btn, "documentId", str(doc, "documentId")));
  cr_expect(str_is(btn, "scopeId", str(doc, "rootScopeId")));
  const cJSON *fp = item(item(btn, "semantics"), "framePath");
  cr_expect_eq(cJSON_GetArraySize(fp), 2);
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(fp, 1)), str(doc, "frameId"));
  /* the other cross-origin frame is not bridged: still opaque */
  char *t = cJSON_PrintUnformatted(g);
  cr_expect(!strstr(t, "ZQXPORT") && !strstr(t, "ZQXCLOSED") && !strstr(t, "ZQXPASSWORD"));
  free(t);
  /* where it is: the iframe's content box plus the frame-local box */
  const pg_element *e = lib_element(pg, "button", "ZQXHOSTARIA");
  cr_assert(e && e->has_bbox);
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddStringToObject(a, "frameId", str(doc, "frameId"));
  cr_assert_eq(cdp_call(l.c, crawl_page_session(l.p), "DOM.getFrameOwner", a, &res, 10000), CDP_OK);
  int owner = item(res, "backendNodeId")->valueint;
  cJSON_Delete(res);
  a = cJSON_CreateObject();
  cJSON_AddNumberToObject(a, "backendNodeId", owner);
  cr_assert_eq(cdp_call(l.c, crawl_page_session(l.p), "DOM.getBoxModel", a, &res, 10000), CDP_OK);
  const cJSON *content = item(item(res, "model"), "content");
  double cx = cJSON_GetArrayItem(content, 0)->valuedouble, cy = cJSON_GetArrayItem(content, 1)->valuedouble;
  cJSON_Delete(res);
  a = cJSON_CreateObject();
  cJSON_AddNumberToObject(a, "x", (int)(e->bbox.x + e->bbox.w / 2 - cx));
  cJSON_AddNumberToObject(a, "y", (int)(e->bbox.y + e->bbox.h / 2 - cy));
  cr_assert_eq(cdp_call(l.c, bsid, "DOM.getNodeForLocation", a, &res, 10000), CDP_OK, "%s", cdp_client_errmsg(l.c));
  int local = item(res, "backendNodeId")->valueint;
  cJSON_Delete(res);
  int offset = e->backend_node_id - (e->backend_node_id & ((1 << 24) - 1));
  cr_expect(offset > 0, "its ids are moved out of the page's range");
  cr_expect(pg_graph_contains(pg, e->backend_node_id, local + offset),
            "a click at the bbox centre lands on the button inside the frame (hit %d)", local);
  cJSON_Delete(g);
  pg_graph_free(pg);
  lib_close(&l);
  free(o2);
}

/* ---- 1b. bridges the frame declares (<meta name="uiap-bridge">) ------------- */
/* bridge.html with the other port for the in-process frames */
static const char *bridge_url(void) {
  static char u[256];
  char path[64];
  snprintf(path, sizeof path, "/fidelity/bridge.html?p1=%d", t_fixture_port(1));
  snprintf(u, sizeof u, "%s", t_fixture_url(0, NULL, path));
  return u;
}

/* The document whose url holds part (opaque ones carry their iframe's src). */
static const cJSON *doc_by_url(const cJSON *g, const char *part) {
  const cJSON *d;
  cJSON_ArrayForEach(d, item(g, "documents"))
    if (str(d, "url") && strstr(str(d, "url"), part)) return d;
  return NULL;
}

static void expect_opaque(const cJSON *g, const cJSON *doc, const char *what) {
  cr_assert(doc, "%s is published as a document", what);
  cr_expect(str_is(doc, "access", "opaque"), "%s is opaque (access %s)", what, str(doc, "access"));
  cr_expect(!item(doc, "title") && !item(doc, "rootScopeId") && !item(doc, "bridgeSessionId"),
            "%s: no title, root scope or bridge session", what);
  cr_expect_eq(count(g, "elements", "documentId", str(doc, "documentId")), 0, "%s: no element from inside", what);
  cr_expect_eq(count(g, "scopes", "documentId", str(doc, "documentId")), 0, "%s: no scope inside", what);
}

/* A bridged frame's button: in its document, with framePath top > frame,
 * in the frame's root scope. */
static const cJSON *expect_bridged_button(const cJSON *g, const cJSON *doc, const char *name) {
  cr_assert(doc, "the frame of \"%s\" is published", name);
  cr_expect(str_is(doc, "access", "bridged"), "%s: access %s", name, str(doc, "access"));
  cr_expect(str(doc, "bridgeSessionId") && *str(doc, "bridgeSessionId"), "%s: bridgeSessionId is set", name);
  cr_expect(str_is(doc, "parentDocumentId", "doc_root"));
  const cJSON *btn = t_element(g, "button", name);
  cr_assert(btn, "the bridged frame's button \"%s\" is published", name);
  cr_expect(str_is(btn, "documentId", str(doc, "documentId")), "%s: documentId %s", name, str(btn, "documentId"));
  cr_expect(scope_within(g, str(btn, "scopeId"), str(doc, "rootScopeId")), "%s: inside the frame's root scope", name);
  const cJSON *fp = item(item(btn, "semantics"), "framePath");
  cr_expect_eq(cJSON_GetArraySize(fp), 2, "%s: framePath is top frame, bridged frame", name);
  cr_expect(str_is(find(g, "documents", "documentId", "doc_root"), "frameId", cJSON_GetStringValue(cJSON_GetArrayItem(fp, 0))));
  cr_expect(str_is(doc, "frameId", cJSON_GetStringValue(cJSON_GetArrayItem(fp, 1))));
  return btn;
}

/* The meta-less cross-origin frames of the canary page stay opaque with
 * the flag: nothing of theirs anywhere. */
Test(fidelity_bridge, canary_frames_without_meta_stay_opaque) {
  const char *const args[] = {"--allow-bridges", NULL};
  SNAP(g, canary_url(), args);
  expect_no_canary_json(g, "the JSON (--allow-bridges)");
  expect_boundaries(g);
  DONE(g);
}

/* Without --allow-bridges a declared bridge changes nothing. */
Test(fidelity_bridge, declaration_needs_the_flag) {
  const char *const args[] = {NULL};
  SNAP(g, bridge_url(), args);
  expect_no_canary_json(g, "the JSON");
  const char *frames[] = {"bridge-star.html", "bridge-list.html", "bridge-wrong.html", "bridge-body.html"};
  for (size_t k = 0; k < 4; k++) expect_opaque(g, doc_by_url(g, frames[k]), frames[k]);
  char *t = cJSON_PrintUnformatted(g);
  cr_expect(!strstr(t, "bridged button") && !strstr(t, "Star bridge") && !strstr(t, "Listed bridge"),
            "nothing from inside a declaring frame without the flag");
  free(t);
  cr_expect_eq(item(item(g, "metadata"), "opaqueFrames")->valueint, 4);
  DONE(g);
}

/* With --allow-bridges: a frame that declares a bridge into this page (in
 * process: other port; out of process: localhost) is bridged, its elements
 * published; one that names another origin, or puts the meta in its body,
 * stays opaque. */
Test(fidelity_bridge, declared_bridges) {
  const char *const args[] = {"--allow-bridges", NULL};
  SNAP(g, bridge_url(), args);
  expect_no_canary_json(g, "the JSON (--allow-bridges)");
  const cJSON *star = doc_by_url(g, "bridge-star.html"), *list = doc_by_url(g, "bridge-list.html");
  const cJSON *port_btn = expect_bridged_button(g, star, "Port bridged button");
  const cJSON *host_btn = expect_bridged_button(g, list, "Host bridged button");
  char *o1 = origin(1, "127.0.0.1"), *o2 = origin(0, "localhost");
  cr_expect(str_is(star, "origin", o1) && str_is(list, "origin", o2), "origins %s, %s", str(star, "origin"),
            str(list, "origin"));
  cr_expect(str_is(star, "title", "Star bridge") && str_is(list, "title", "Listed bridge"), "a bridged document has its title");
  /* the localhost frame runs out of process: captured over its own session */
  const char *hid = id_of(host_btn), *pid = id_of(port_btn);
  cr_expect(hid && strchr(hid + 3, '_'), "the out-of-process frame's ids carry its frame prefix: %s", hid);
  cr_expect(pid && !strchr(pid + 3, '_'), "the in-process frame's ids are the page's: %s", pid);
  cr_expect(!str_is(list, "bridgeSessionId", str(star, "bridgeSessionId")));
  cr_expect(t_element(g, "link", "Port bridged link"), "the star frame's link");
  const cJSON *field = t_element(g, "textbox", "Host bridged field");
  cr_expect(field && str_is(field, "textValue", "plain value"), "the listed frame's field and its value");
  expect_opaque(g, doc_by_url(g, "bridge-wrong.html"), "a frame that names another origin");
  expect_opaque(g, doc_by_url(g, "bridge-body.html"), "a frame with the meta in its body");
  cr_expect_eq(item(item(g, "metadata"), "opaqueFrames")->valueint, 2);
  cr_expect_eq(count(g, "documents", NULL, NULL), 5);
  free(o1);
  free(o2);
  DONE(g);
}

/* ---- 2. same-origin frames and open shadow roots ----------------------------- */
static void expect_hit(lib *l, const pg_graph *g, const char *name) {
  const pg_element *e = lib_element(g, "button", name);
  cr_assert(e, "button \"%s\" is published", name);
  cr_assert(e->has_bbox);
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  cJSON_AddNumberToObject(a, "x", (int)(e->bbox.x + e->bbox.w / 2));
  cJSON_AddNumberToObject(a, "y", (int)(e->bbox.y + e->bbox.h / 2));
  cdp_code rc = cdp_call(l->c, crawl_page_session(l->p), "DOM.getNodeForLocation", a, &res, 10000);
  cr_assert_eq(rc, CDP_OK, "getNodeForLocation: %s", cdp_client_errmsg(l->c));
  int hit = item(res, "backendNodeId") ? item(res, "backendNodeId")->valueint : 0;
  cr_expect(hit == e->backend_node_id || pg_graph_contains(g, e->backend_node_id, hit),
            "a click at the centre of \"%s\"'s bbox lands on it (hit node %d, element %d)", name, hit,
            e->backend_node_id);
  cJSON_Delete(res);
}

Test(fidelity_frames, shadow_button_in_frame) {
  lib l = {0};
  lib_open(&l, t_fixture_url(0, NULL, "/fidelity/frames.html"));
  pg_graph *pg = lib_capture(&l, NULL);
  cJSON *g = lib_json(pg);
  const cJSON *root = find(g, "documents", "documentId", "doc_root");
  const cJSON *shadow = NULL, *outer = NULL, *inner = NULL, *d;
  cJSON_ArrayForEach(d, item(g, "documents")) {
    const char *u = str(d, "url");
    if (u && strstr(u, "/frame-shadow.html")) shadow = d;
    if (u && strstr(u, "/frame-outer.html")) outer = d;
    if (u && strstr(u, "/frame-inner.html")) inner = d;
  }
  cr_assert(root && shadow && outer && inner, "every same-origin frame, at depth 1 and 2, is a document");
  const cJSON *parents[][2] = {{shadow, root}, {outer, root}, {inner, outer}};
  for (int k = 0; k < 3; k++) {
    const cJSON *doc = parents[k][0], *par = parents[k][1];
    cr_expect(str_is(doc, "access", "same-origin"));
    cr_expect(str(doc, "frameId") && *str(doc, "frameId"));
    cr_expect(str_is(doc, "parentFrameId", str(par, "frameId")), "parentFrameId");
    cr_expect(str_is(doc, "parentDocumentId", str(par, "documentId")), "parentDocumentId");
    cr_expect(str_is(doc, "origin", str(root, "origin")), "origin");
    cr_expect(str_is(doc, "readyState", "complete"), "readyState: %s", str(doc, "readyState"));
    cr_expect(item(doc, "bbox"), "bbox of the frame");
    const cJSON *rs = scope(g, str(doc, "rootScopeId"));
    cr_expect(rs && str_is(rs, "kind", "iframe-root") && str_is(rs, "documentId", str(doc, "documentId")),
              "rootScopeId names an iframe-root scope of the document");
    cr_expect(rs && scope_within(g, str(rs, "parentScopeId"), str(par, "rootScopeId")),
              "the frame's scope sits in its parent document's scopes");
  }
  /* the inner frame's bbox, in top-level viewport pixels: inside the outer one */
  const cJSON *ob = item(outer, "bbox"), *ib = item(inner, "bbox");
  cr_expect(item(ib, "x")->valuedouble > item(ob, "x")->valuedouble + 30 &&
            item(ib, "y")->valuedouble > item(ob, "y")->valuedouble, "the depth-2 frame's bbox is in top-level pixels");

  const cJSON *btn = t_element(g, "button", "Shadow action");
  cr_assert(btn);
  cr_expect(str_is(btn, "documentId", str(shadow, "documentId")));
  cr_expect(str_is(btn, "scopeId", str(shadow, "rootScopeId")), "the innermost scope is the frame's root");
  const cJSON *sem = item(btn, "semantics");
  const cJSON *host = find(g, "elements", "instanceId", str(sem, "shadowHostId"));
  cr_assert(host, "shadowHostId names a published element: %s", str(sem, "shadowHostId"));
  cr_expect(str_is(item(host, "semantics"), "tagName", "x-card"), "the host is the x-card");
  const cJSON *fp = item(sem, "framePath");
  cr_expect_eq(cJSON_GetArraySize(fp), 2);
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(fp, 0)), str(root, "frameId"));
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(fp, 1)), str(shadow, "frameId"));
  const cJSON *nested = t_element(g, "button", "Nested shadow action");
  cr_assert(nested);
  const cJSON *nhost = find(g, "elements", "instanceId", str(item(nested, "semantics"), "shadowHostId"));
  cr_expect(nhost && str_is(item(nhost, "semantics"), "tagName", "x-inner"), "a nested root's host is the inner element");
  cr_expect(nhost && str_is(item(nhost, "semantics"), "shadowHostId", id_of(host)), "and that one sits in x-card's root");
  const cJSON *deep = t_element(g, "button", "Deep button");
  cr_assert(deep);
  cr_expect(str_is(deep, "documentId", str(inner, "documentId")));
  cr_expect_eq(cJSON_GetArraySize(item(item(deep, "semantics"), "framePath")), 3, "framePath: top, outer, inner");
  cr_expect(!item(item(deep, "semantics"), "shadowHostId"));

  expect_hit(&l, pg, "Shadow action");
  expect_hit(&l, pg, "Nested shadow action");
  expect_hit(&l, pg, "Deep button");
  expect_hit(&l, pg, "Outer frame button");
  expect_hit(&l, pg, "Top button");
  cJSON_Delete(g);
  pg_graph_free(pg);
  lib_close(&l);
}

Test(fidelity_shadow, nested_and_slotted) {
  const char *const args[] = {NULL};
  SNAP(g, t_fixture_url(0, NULL, "/fidelity/shadow-nest.html"), args);
  struct { const char *name, *host_tag; } want[] = {
    {"Card button", "x-card"},
    {"Nested shadow action", "x-inner"},
    {"Slotted card button", "x-card"}, /* x-card's light child, slotted into x-inner */
    {"Host2 shadow button", "x-host2"},
    {"Light A", NULL},                 /* document content slotted into x-host2 */
  };
  for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
    const cJSON *e = t_element(g, "button", want[k].name);
    cr_assert(e, "%s is published", want[k].name);
    const char *hid = str(item(e, "semantics"), "shadowHostId");
    if (!want[k].host_tag) {
      cr_expect(!hid, "%s is light DOM: no shadowHostId (%s)", want[k].name, hid);
      continue;
    }
    const cJSON *h = find(g, "elements", "instanceId", hid);
    cr_expect(h && str_is(item(h, "semantics"), "tagName", want[k].host_tag), "%s: host %s, got %s", want[k].name,
              want[k].host_tag, h ? str(item(h, "semantics"), "tagName") : hid);
  }
  DONE(g);
}

/* ---- 4. scopes and relations --------------------------------------------------- */
static const cJSON *scope_named(const cJSON *g, const char *kind, const char *name) {
  const cJSON *s;
  cJSON_ArrayForEach(s, item(g, "scopes"))
    if (str_is(s, "kind", kind) && (!name || str_is(s, "name", name))) return s;
  return NULL;
}

static void expect_in_scope(const cJSON *g, const char *role, const char *name, const cJSON *sc) {
  const cJSON *e = t_element(g, role, name);
  cr_expect(e && sc && str_is(e, "scopeId", str(sc, "scopeId")), "%s \"%s\" is in scope %s (it is in %s)", role, name,
            sc ? str(sc, "scopeId") : "(missing)", e ? str(e, "scopeId") : "(missing element)");
}

Test(fidelity_structure, scopes) {
  const char *const args[] = {NULL};
  SNAP(g, t_fixture_url(0, NULL, "/fidelity/structure.html"), args);
  const cJSON *route = scope(g, "scope_route"), *s;
  cr_assert(route && str_is(route, "kind", "route"));
  cJSON_ArrayForEach(s, item(g, "scopes")) {
    cr_expect(str(s, "scopeId"), "every scope has an id");
    cr_expect(str_is(s, "documentId", "doc_root"), "each scope has its one document");
    cr_expect(scope_within(g, str(s, "scopeId"), "scope_route"), "every chain ends at the route: %s", str(s, "scopeId"));
  }
  const cJSON *nav = scope_named(g, "region", "Main navigation");
  const cJSON *billing = scope_named(g, "region", "Billing");
  const cJSON *inline_dlg = scope_named(g, "dialog", "Inline dialog");
  const cJSON *aria_dlg = scope_named(g, "dialog", "Aria dialog");
  const cJSON *menu = scope_named(g, "menu", "Actions menu");
  const cJSON *tabset = scope_named(g, "tabset", "Settings tabs");
  const cJSON *panel = scope_named(g, "tabpanel", "General");
  const cJSON *pop = scope_named(g, "popover", "Tips");
  const cJSON *form = scope_named(g, "form", "Signup");
  const cJSON *custom = find(g, "scopes", "stableId", "checkout.summary");
  const cJSON *orders = scope_named(g, "collection", "Orders");
  const cJSON *colours = scope_named(g, "collection", "Colours");
  const cJSON *toolbar = scope_named(g, "toolbar", "Formatting");
  const cJSON *people = scope_named(g, "collection", "People");
  const cJSON *rowgroup = scope_named(g, "rowgroup", NULL);
  cr_assert(nav && billing && inline_dlg && aria_dlg && menu && tabset && panel && pop && form && custom && orders &&
            colours && toolbar && people && rowgroup, "every expected scope exists");
  cr_expect(str_is(rowgroup, "parentScopeId", str(people, "scopeId")), "the rowgroup sits in its grid");
  expect_in_scope(g, "button", "Bold", toolbar);
  expect_in_scope(g, "button", "Edit Ada", rowgroup);
  cr_expect(str_is(custom, "kind", "custom"));
  /* the main landmark is an unnamed region holding the rest */
  const cJSON *main = scope(g, str(billing, "parentScopeId"));
  cr_assert(main && str_is(main, "kind", "region") && str_is(main, "parentScopeId", "scope_route"),
            "Billing sits in the main region, main in the route");
  cr_expect(str_is(nav, "parentScopeId", "scope_route"));
  const cJSON *in_main[] = {inline_dlg, aria_dlg, menu, tabset, panel, pop, form, custom, orders, colours, toolbar, people};
  for (size_t k = 0; k < sizeof in_main / sizeof *in_main; k++)
    cr_expect(str_is(in_main[k], "parentScopeId", str(main, "scopeId")), "%s sits in main",
              str(in_main[k], "scopeId"));
  cr_expect_eq(count(g, "scopes", "kind", "tabpanel"), 1, "the hidden tab panel is no scope");
  /* states of layers */
  const cJSON *st = item(inline_dlg, "state");
  cr_expect(cJSON_IsTrue(item(st, "open")) && cJSON_IsFalse(item(st, "modal")), "<dialog open>: open, not modal");
  st = item(aria_dlg, "state");
  cr_expect(cJSON_IsTrue(item(st, "open")) && cJSON_IsTrue(item(st, "modal")), "role=dialog aria-modal: open, modal");
  cr_expect(cJSON_IsTrue(item(item(pop, "state"), "open")), "a shown popover is open");
  /* elements get the innermost scope */
  expect_in_scope(g, "link", "Home", nav);
  expect_in_scope(g, "button", "Update billing", billing);
  expect_in_scope(g, "button", "Unnamed section button", main);
  expect_in_scope(g, "button", "Inside inline dialog", inline_dlg);
  expect_in_scope(g, "button", "Inside aria dialog", aria_dlg);
  expect_in_scope(g, "menuitem", "Edit item", menu);
  expect_in_scope(g, "tab", "General", tabset);
  expect_in_scope(g, "textbox", "Display name", panel);
  expect_in_scope(g, "button", "Got it", pop);
  expect_in_scope(g, "textbox", "Email", form);
  expect_in_scope(g, "button", "Create account", form);
  expect_in_scope(g, "button", "Apply coupon", custom);
  expect_in_scope(g, "button", "Open A-1", orders);
  expect_in_scope(g, "option", "Red", colours);
  cr_expect(!t_element(g, NULL, "Hidden setting"), "the hidden panel's field is absent");
  DONE(g);
}

Test(fidelity_structure, relations) {
  const char *const args[] = {NULL};
  SNAP(g, t_fixture_url(0, NULL, "/fidelity/structure.html"), args);
  const cJSON *menubtn = t_element(g, "button", "Actions"), *menu = scope_named(g, "menu", "Actions menu");
  cr_assert(menubtn && menu);
  cr_expect(has_relation(g, "opens", id_of(menubtn), str(menu, "scopeId")), "aria-haspopup + aria-controls: opens");
  cr_expect(has_relation(g, "controls", id_of(menubtn), str(menu, "scopeId")), "aria-controls: controls");
  const cJSON *tab = t_element(g, "tab", "General"), *panel = scope_named(g, "tabpanel", "General");
  cr_assert(tab && panel);
  cr_expect(has_relation(g, "controls", id_of(tab), str(panel, "scopeId")), "a tab controls its panel");
  cr_expect(has_relation(g, "labels", id_of(tab), str(panel, "scopeId")), "and labels it (aria-labelledby)");
  const cJSON *tips = t_element(g, "button", "Show tips"), *pop = scope_named(g, "popover", "Tips");
  cr_assert(tips && pop);
  cr_expect(has_relation(g, "opens", id_of(tips), str(pop, "scopeId")), "popovertarget: opens");
  const cJSON *form = scope_named(g, "form", "Signup");
  const cJSON *create = t_element(g, "button", "Create account"), *outside = t_element(g, "button", "Submit from outside");
  const cJSON *cancel = t_element(g, "button", "Cancel signup");
  cr_assert(form && create && outside && cancel);
  cr_expect(has_relation(g, "submits", id_of(create), str(form, "scopeId")), "a submit button submits its form");
  cr_expect(has_relation(g, "submits", id_of(outside), str(form, "scopeId")), "form=\"id\" submits that form");
  cr_expect(!has_relation(g, "submits", id_of(cancel), str(form, "scopeId")), "a type=button does not");
  /* error texts and descriptions are published, so the relations have both ends */
  const cJSON *email = t_element(g, "textbox", "Email"), *user = t_element(g, "textbox", "User name");
  cr_assert(email && user);
  const cJSON *err = find(g, "elements", "textValue", "Enter a valid email address");
  const cJSON *hint = find(g, "elements", "textValue", "We never share it");
  const cJSON *taken = find(g, "elements", "textValue", "User name is taken");
  cr_assert(err && hint && taken, "error and hint texts are published with their text");
  cr_expect(has_relation(g, "error-for", id_of(err), id_of(email)), "aria-errormessage: error-for");
  cr_expect(has_relation(g, "describes", id_of(hint), id_of(email)), "aria-describedby: describes");
  cr_expect(!has_relation(g, "error-for", id_of(hint), id_of(email)), "a hint is no error");
  cr_expect(has_relation(g, "error-for", id_of(taken), id_of(user)),
            "a visible error text describing an aria-invalid field: error-for");
  cr_expect(has_relation(g, "describes", id_of(taken), id_of(user)));
  cr_expect_eq(t_state(email, "invalid"), 1);
  const cJSON *r;
  cJSON_ArrayForEach(r, item(g, "relations")) {
    const char *ends[] = {str(r, "from"), str(r, "to")};
    for (int k = 0; k < 2; k++)
      cr_expect(find(g, "elements", "instanceId", ends[k]) || scope(g, ends[k]), "relation %s: %s is published",
                str(r, "relationId"), ends[k]);
  }
  DONE(g);
}

Test(fidelity_structure, labels_with_non_interactive) {
  const char *const args[] = {"--include-non-interactive", NULL};
  SNAP(g, t_fixture_url(0, NULL, "/fidelity/structure.html"), args);
  const cJSON *email = t_element(g, "textbox", "Email"), *r, *label = NULL;
  cr_assert(email);
  cJSON_ArrayForEach(r, item(g, "relations"))
    if (str_is(r, "type", "labels") && str_is(r, "to", id_of(email))) label = find(g, "elements", "instanceId", str(r, "from"));
  cr_expect(label && str_is(item(label, "semantics"), "tagName", "label"), "label[for] labels the field");
  cr_expect(scope_named(g, "collection", NULL), "collections appear");
  DONE(g);
}

Test(fidelity_structure, modal_dialog) {
  const char *const args[] = {NULL};
  SNAP(g, t_fixture_url(0, NULL, "/fidelity/modal.html"), args);
  const cJSON *dlg = scope_named(g, "dialog", "Confirm delete");
  cr_assert(dlg, "the showModal() dialog is a dialog scope");
  cr_expect(cJSON_IsTrue(item(item(dlg, "state"), "open")) && cJSON_IsTrue(item(item(dlg, "state"), "modal")));
  const cJSON *keep = t_element(g, "button", "Keep it"), *behind = t_element(g, "button", "Behind the modal");
  cr_assert(keep);
  cr_expect(scope_within(g, str(keep, "scopeId"), str(dlg, "scopeId")), "the dialog's buttons are in it");
  cr_expect(cJSON_IsTrue(item(item(keep, "semantics"), "interactable")));
  cr_expect(!behind || cJSON_IsFalse(item(item(behind, "semantics"), "interactable")),
            "what the modal dialog makes inert is not interactable");
  DONE(g);
}

/* Web 5.7: supportedActions only what is really allowed. What an inert
 * attribute or an open modal dialog (showModal(), aria-modal="true") makes
 * inert reads, nothing else; ui.focus only where focus can go. */
static int has_action(const cJSON *el, const char *action) {
  const cJSON *a;
  cJSON_ArrayForEach(a, item(el, "supportedActions"))
    if (cJSON_IsString(a) && !strcmp(a->valuestring, action)) return 1;
  return 0;
}

/* el is published, inert: no actions, only the read affordance, not interactable */
static void expect_inert(const cJSON *el, const char *what) {
  cr_expect(el, "%s is published", what);
  if (!el) return;
  cr_expect_eq(cJSON_GetArraySize(item(el, "supportedActions")), 0, "%s (inert) offers no action", what);
  const cJSON *af = item(el, "affordances");
  cr_expect(cJSON_GetArraySize(af) == 1 && !strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(af, 0)) ?: "", "read"),
            "%s (inert) only reads", what);
  cr_expect(cJSON_IsFalse(item(item(el, "semantics"), "interactable")), "%s (inert) is not interactable", what);
  cr_expect(cJSON_IsTrue(item(item(el, "metadata"), "inert")), "%s says it is inert", what);
}

static void expect_live(const cJSON *el, const char *action, const char *what) {
  cr_expect(el && has_action(el, action), "%s offers %s", what, action);
  cr_expect(el && !item(el, "metadata"), "%s is not inert", what);
}

Test(fidelity_structure, inert_and_focus) {
  {
    const char *const args[] = {NULL};
    SNAP(g, t_fixture_url(0, NULL, "/fidelity/inert.html"), args);
    expect_live(t_element(g, "button", "Save draft"), "ui.activate", "a plain button");
    expect_live(t_element(g, "button", "Save draft"), "ui.focus", "a plain button");
    expect_inert(t_element(g, "button", "Frozen action"), "a button in an inert section");
    expect_inert(t_element(g, "link", "Frozen link"), "a link in an inert section");
    expect_inert(t_element(g, "textbox", "Frozen field"), "a field in an inert section");
    const cJSON *fake = t_element(g, "button", "Fake button"), *span = t_element(g, "button", "Focusable span");
    cr_assert(fake && span);
    cr_expect(has_action(fake, "ui.activate"), "role=button with a click handler activates");
    cr_expect(!has_action(fake, "ui.focus"), "a div with role=button and no tabindex cannot take focus: no ui.focus");
    cr_expect(has_action(span, "ui.focus"), "with tabindex=0 it can");
    const cJSON *el;
    cJSON_ArrayForEach(el, item(g, "elements"))
      if (str_is(el, "role", "generic")) cr_expect(!has_action(el, "ui.focus"), "a clickable div without tabindex: no ui.focus");
    DONE(g);
  }
  static const char *const modes[][2] = {{"native", "Native OK"}, {"aria", "Aria OK"}};
  for (size_t m = 0; m < 2; m++) {
    char path[96];
    snprintf(path, sizeof path, "/fidelity/inert.html?modal=%s", modes[m][0]);
    const char *const args[] = {NULL};
    SNAP(g, t_fixture_url(0, NULL, path), args);
    expect_live(t_element(g, "button", modes[m][1]), "ui.activate", "the modal's own button");
    expect_inert(t_element(g, "button", "Save draft"), "a button behind the modal");
    expect_inert(t_element(g, "link", "Next page"), "a link behind the modal");
    expect_inert(t_element(g, "button", "Focusable span"), "a focusable span behind the modal");
    DONE(g);
  }
}

/* Drawers (5.6): an off-canvas container a disclosure control opens, or a
 * dialog laid out that way. Closed ones -- moved out of view, hidden -- are
 * no scope; permanent sidebars, icon rails and centred dialogs are no
 * drawers. */
static int scopes_of_kind(const cJSON *g, const char *kind) { return count(g, "scopes", "kind", kind); }

Test(fidelity_structure, drawers) {
  {
    const char *const args[] = {NULL};
    SNAP(g, t_fixture_url(0, NULL, "/fidelity/drawer.html"), args);
    cr_expect_eq(scopes_of_kind(g, "drawer"), 1, "one drawer scope: the open one");
    const cJSON *dr = scope_named(g, "drawer", "Main menu");
    cr_assert(dr, "the open navigation drawer is a drawer scope");
    cr_expect(cJSON_IsTrue(item(item(dr, "state"), "open")), "an open drawer publishes state.open");
    cr_expect(cJSON_IsFalse(item(item(dr, "state"), "modal")));
    cr_expect(str_is(dr, "parentScopeId", "scope_route"));
    expect_in_scope(g, "link", "Drawer home", dr);
    expect_in_scope(g, "link", "Drawer settings", dr);
    cr_expect(!t_element(g, NULL, "Close"), "a close icon without context gets no name: the policy reads it by where it is");
  const cJSON *menu = t_element(g, "button", "Menu");
    cr_assert(menu);
    cr_expect(has_relation(g, "opens", id_of(menu), str(dr, "scopeId")), "its disclosure button opens it");
    /* closed drawers */
    cr_expect(!t_element(g, NULL, "Filter A") && !t_element(g, NULL, "Checkout"), "a hidden drawer's links are absent");
    cr_expect(!scope_named(g, "drawer", "Filters panel") && !scope_named(g, "drawer", "Cart") && !scope_named(g, "dialog", "Cart"), "hidden drawers are no scope");
    const cJSON *help = t_element(g, "link", "Help topics");
    cr_expect(help && !scope_within(g, str(help, "scopeId"), str(dr, "scopeId")), "an off-canvas drawer's link is not in a drawer");
    cr_expect(help && cJSON_IsFalse(item(item(help, "semantics"), "inViewport")), "and it is out of view");
    /* not drawers */
    cr_expect(scope_named(g, "region", "Sidebar"), "a permanent sidebar nobody toggles stays a region");
    cr_expect(scope_named(g, "toolbar", "Rail"), "an icon rail stays a toolbar");
    cr_expect(scope_named(g, "dialog", "Centred dialog"), "a centred dialog stays a dialog");
    DONE(g);
  }
  {
    const char *const args[] = {NULL};
    SNAP(g, t_fixture_url(0, NULL, "/fidelity/drawer.html?cart=1"), args);
    cr_expect_eq(scopes_of_kind(g, "drawer"), 2, "the opened cart is a second drawer");
    const cJSON *cart = scope_named(g, "drawer", "Cart");
    cr_assert(cart, "a dialog laid out as a drawer is a drawer scope");
    cr_expect(cJSON_IsTrue(item(item(cart, "state"), "open")) && cJSON_IsTrue(item(item(cart, "state"), "modal")),
              "open and modal (aria-modal)");
    expect_in_scope(g, "link", "Checkout", cart);
    DONE(g);
  }
  {
    const char *const args[] = {"--include-hidden", NULL};
    SNAP(g, t_fixture_url(0, NULL, "/fidelity/drawer.html"), args);
    const cJSON *filters = scope_named(g, "drawer", "Filters panel");
    cr_assert(filters, "with --include-hidden a closed drawer is a scope");
    cr_expect(cJSON_IsFalse(item(item(filters, "state"), "open")), "with state.open false");
    cr_expect(cJSON_IsTrue(item(item(scope_named(g, "drawer", "Main menu"), "state"), "open")));
    DONE(g);
  }
}

/* ---- 5. focus and selection ------------------------------------------------------ */
static const char *focus_url(const char *mode) {
  static char path[128];
  snprintf(path, sizeof path, "/fidelity/focus.html?mode=%s", mode);
  return t_fixture_url(0, NULL, path);
}

static void expect_focus(const cJSON *g, const char *role, const char *name) {
  const cJSON *e = t_element(g, role, name), *f = item(g, "focus");
  cr_assert(e, "the focused %s \"%s\" is published", role, name);
  cr_expect_eq(t_state(e, "focused"), 1, "state.focused");
  cr_expect(f && str_is(f, "target", id_of(e)), "focus.target names it");
  cr_expect(f && str_is(f, "documentId", str(e, "documentId")), "focus.documentId is its document");
}

Test(fidelity_focus, in_frame_shadow_and_hidden) {
  const char *const args[] = {NULL};
  {
    SNAP(g, focus_url("frame"), args);
    expect_focus(g, "textbox", "City");
    cr_expect(!str_is(item(g, "focus"), "documentId", "doc_root"), "focus is in the frame's document");
    DONE(g);
  }
  {
    SNAP(g, focus_url("shadow"), args);
    expect_focus(g, "button", "Shadow focus target");
    const cJSON *e = t_element(g, "button", "Shadow focus target");
    cr_expect(str(item(e, "semantics"), "shadowHostId"), "inside an open shadow root");
    DONE(g);
  }
  {
    SNAP(g, focus_url("hidden"), args);
    expect_focus(g, "textbox", "Ghost field");
    cr_expect_eq(t_state(t_element(g, "textbox", "Ghost field"), "visible"), 0, "published although invisible");
    DONE(g);
  }
}

/* The element a selection end names: published, of role (and name). */
static void expect_end(const cJSON *g, const char *mode, const char *end, const char *role, const char *name,
                       int in_top) {
  const char *id = str(item(g, "selection"), end);
  if (!role) {
    cr_expect(!id, "%s: no %s, got %s", mode, end, id);
    return;
  }
  const cJSON *e = find(g, "elements", "instanceId", id);
  cr_assert(e, "%s: %s names a published element (%s)", mode, end, id);
  cr_expect(str_is(e, "role", role), "%s: %s is a %s, not %s", mode, end, role, str(e, "role"));
  if (name) cr_expect(str_is(e, "name", name), "%s: %s is \"%s\", not \"%s\"", mode, end, name, str(e, "name"));
  cr_expect(in_top == str_is(e, "documentId", "doc_root"), "%s: %s is in %s", mode, end, str(e, "documentId"));
}

/* The step from one graph to the next as a delta (10.3) applies, and
 * leaves the consumer with the new selection. */
static void expect_delta_selection(const cJSON *old, const cJSON *cur, const char *mode) {
  cJSON *ops = NULL;
  cr_assert_eq(pg_delta_compute(old, cur, &ops), PG_OK, "%s: delta", mode);
  cJSON *delta = cJSON_CreateObject();
  cJSON_AddStringToObject(delta, "baseRevision", str(old, "revision"));
  cJSON_AddStringToObject(delta, "revision", str(cur, "revision"));
  cJSON_AddItemToObject(delta, "ops", ops);
  cJSON *applied = cJSON_Duplicate(old, 1);
  char err[256];
  cr_expect_eq(pg_delta_apply(applied, delta, err, sizeof err), PG_DELTA_OK, "%s: the delta applies: %s", mode, err);
  cr_expect(cJSON_Compare(item(applied, "selection"), item(cur, "selection"), 1) ||
            (!item(applied, "selection") && !item(cur, "selection")),
            "%s: the consumer has the new selection", mode);
  cJSON_Delete(applied);
  cJSON_Delete(delta);
}

Test(fidelity_focus, selection) {
  lib l = {0};
  lib_open(&l, focus_url("select"));
  struct { const char *mode, *want, *anchor_role, *anchor_name, *focus_role; int in_top; } cases[] = {
    {"select", "selected words", "paragraph", NULL, "paragraph", 1},
    {"frameselect", "Frame note text", "paragraph", NULL, "paragraph", 0},
    {"password", NULL, "textbox", "Password", "textbox", 1},   /* the field, never its value */
    {"closed", NULL, NULL, NULL, NULL, 1},                     /* inside a closed shadow root */
    {"span", "Start end of span.", "paragraph", NULL, "paragraph", 1},
    {"field", "quick brown", "textbox", "Plain field", "textbox", 1},
    {"sensitive", NULL, "textbox", "Sensitive field", "textbox", 1},
    {"across", "words and after. List", "paragraph", NULL, "listitem", 1},
    {"cover", NULL, NULL, NULL, NULL, 1},                      /* covers a sensitive text */
  };
  cJSON *prev = NULL;
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    if (k) cr_assert_eq(crawl_page_load(l.p, focus_url(cases[k].mode)), CRAWL_OK, "%s", crawl_page_errmsg(l.p));
    pg_graph *pg = lib_capture(&l, NULL);
    cJSON *g = lib_json(pg);
    const char *sel = str(item(g, "selection"), "text");
    if (cases[k].want)
      cr_expect(sel && !strcmp(sel, cases[k].want), "%s: selection.text is \"%s\", wanted \"%s\"", cases[k].mode, sel,
                cases[k].want);
    else
      cr_expect(!sel, "%s: no selection text, got \"%s\"", cases[k].mode, sel);
    expect_end(g, cases[k].mode, "anchorTarget", cases[k].anchor_role, cases[k].anchor_name, cases[k].in_top);
    expect_end(g, cases[k].mode, "focusTarget", cases[k].focus_role, cases[k].anchor_name, cases[k].in_top);
    expect_no_canary_json(g, cases[k].mode);
    char *t = cJSON_PrintUnformatted(g);
    cr_expect(!strstr(t, "\xe2\x80\xa2"), "%s: no password bullets", cases[k].mode);
    free(t);
    if (prev) expect_delta_selection(prev, g, cases[k].mode);
    cJSON_Delete(prev);
    prev = g;
    pg_graph_free(pg);
  }
  cJSON_Delete(prev);
  /* the cross-origin frame of the canary page holds a selection of its own */
  cr_assert_eq(crawl_page_load(l.p, canary_url()), CRAWL_OK);
  pg_graph *pg = lib_capture(&l, NULL);
  cr_expect(!pg->selection_text, "a cross-origin frame's selection is not the page's: %s", pg->selection_text);
  cr_expect(pg->selection_anchor < 0 && pg->selection_focus < 0, "and it names no element");
  pg_graph_free(pg);
  lib_close(&l);
}

/* ---- 6. limits and filters ------------------------------------------------------- */
Test(fidelity_limits, max_nodes_keeps_focus) {
  const char *const args[] = {"--max-nodes", "5", NULL};
  SNAP(g, t_fixture_url(0, NULL, "/fidelity/maxnodes.html"), args);
  cr_expect_eq(count(g, "elements", NULL, NULL), 5);
  const cJSON *last = t_element(g, "textbox", "Last field");
  cr_expect(last && t_state(last, "focused") == 1, "the focused field, last and out of view, is kept");
  cr_expect(last && cJSON_IsFalse(item(item(last, "semantics"), "inViewport")));
  const cJSON *md = item(g, "metadata");
  cr_expect(cJSON_IsTrue(item(md, "truncated")), "metadata.truncated");
  cr_expect(item(md, "elementCandidates")->valueint > 60, "metadata counts the candidates");
  cr_expect(str_is(item(g, "focus"), "target", id_of(last)));
  DONE(g);
}

Test(fidelity_limits, scope_and_document_filters) {
  lib l = {0};
  lib_open(&l, t_fixture_url(0, NULL, "/fidelity/structure.html"));
  pg_graph *all = lib_capture(&l, NULL);
  const pg_scope *form = NULL;
  for (size_t s = 0; s < all->nscopes; s++)
    if (all->scopes[s].kind == PG_SCOPE_FORM) form = &all->scopes[s];
  cr_assert(form);
  const char *scopes[] = {form->scope_id, NULL};
  pg_options o = {.scope_filter = scopes};
  pg_graph *pg = lib_capture(&l, &o);
  cJSON *g = lib_json(pg);
  cr_expect(t_element(g, "button", "Create account") && t_element(g, "textbox", "Email"), "the form's elements stay");
  cr_expect(!t_element(g, "button", "Update billing") && !t_element(g, "button", "Submit from outside"),
            "elements outside the scope go");
  const cJSON *e, *s;
  cJSON_ArrayForEach(e, item(g, "elements"))
    cr_expect(scope_within(g, str(e, "scopeId"), form->scope_id), "%s is inside the form", str(e, "name"));
  cJSON_ArrayForEach(s, item(g, "scopes"))
    cr_expect(scope_within(g, form->scope_id, str(s, "scopeId")) || scope_within(g, str(s, "scopeId"), form->scope_id),
              "scope %s is the form, inside it or on its chain", str(s, "scopeId"));
  cJSON_Delete(g);
  pg_graph_free(pg);
  pg_graph_free(all);

  cr_assert_eq(crawl_page_load(l.p, t_fixture_url(0, NULL, "/fidelity/frames.html")), CRAWL_OK);
  all = lib_capture(&l, NULL);
  const char *outer = NULL;
  for (size_t d = 0; d < all->ndocuments; d++)
    if (all->documents[d].url && strstr(all->documents[d].url, "frame-outer.html")) outer = all->documents[d].document_id;
  cr_assert(outer);
  const char *docs[] = {outer, NULL};
  pg_options od = {.document_filter = docs};
  pg = lib_capture(&l, &od);
  g = lib_json(pg);
  cr_expect(t_element(g, "button", "Outer frame button"));
  cr_expect(!t_element(g, "button", "Deep button") && !t_element(g, "button", "Top button"),
            "only the named document's elements");
  cJSON_ArrayForEach(e, item(g, "elements")) cr_expect(str_is(e, "documentId", outer));
  cJSON_Delete(g);
  pg_graph_free(pg);
  pg_graph_free(all);
  lib_close(&l);
}

/* ---- 7. inclusion rules ------------------------------------------------------------ */
Test(fidelity_inclusion, section_8) {
  const char *variants[][2] = {{NULL}, {"--include-non-interactive", NULL}};
  for (int v = 0; v < 2; v++) {
    SNAP(g, t_fixture_url(0, NULL, "/fidelity/inclusion.html"), variants[v]);
    const cJSON *ghost = t_element(g, "textbox", "Invisible focused");
    cr_expect(ghost && t_state(ghost, "focused") == 1 && t_state(ghost, "visible") == 0,
              "the focused element is published although invisible");
    const cJSON *inv = t_element(g, "textbox", "Collapsed invalid");
    cr_expect(inv && t_state(inv, "invalid") == 1, "an invalid field is published although hidden");
    cr_expect(!t_element(g, "textbox", "Collapsed valid"), "a hidden valid field is not");
    cr_expect(!t_element(g, NULL, "Hidden from AT"), "aria-hidden content is not published");
    const cJSON *e;
    cJSON_ArrayForEach(e, item(g, "elements")) {
      const char *role = str(e, "role");
      static const char *const never[] = {"StaticText", "InlineTextBox", "LineBreak", "text"};
      for (size_t k = 0; k < sizeof never / sizeof *never; k++)
        cr_expect(strcmp(role, never[k]), "no %s element (%s)", role, str(e, "instanceId"));
      /* decorative elements only when everything non-text is asked for,
       * and then as what they are */
      int decorative = !strcmp(role, "none") || !strcmp(role, "presentation");
      if (v == 0) cr_expect(!decorative, "no decorative element by default (%s)", str(e, "instanceId"));
      if (str_is(item(e, "semantics"), "tagName", "img") && !item(e, "name"))
        cr_expect(v == 1 && decorative, "a decorative image (alt=\"\") is role none, and only with "
                  "--include-non-interactive");
    }
    if (v == 1) cr_expect(t_element(g, NULL, "Company logo"), "a named image is content");
    DONE(g);
  }
}

/* ---- 8. what real apps showed (#16) ------------------------------------------------- */
/* A visually hidden native control (clipped, 1 px, opacity 0) behind a styled
 * label or host: published, visible, with the label's or host's box; the hit
 * test at its centre lands in that box, and a click there toggles it. */
static void expect_hidden_input_clickable(lib *l, const char *role, const char *name, const char *now) {
  pg_graph *g = lib_capture(l, NULL);
  const pg_element *e = lib_element(g, role, name);
  cr_assert(e, "the visually hidden %s \"%s\" is published", role, name);
  cr_expect(pg_state_is(&e->state, PG_ST_VISIBLE), "%s is visible (through its label or host)", name);
  cr_expect(e->has_bbox && e->bbox.w >= 20 && e->bbox.h >= 10, "%s: the box of its label or host (%.0fx%.0f)", name,
            e->bbox.w, e->bbox.h);
  cr_expect(e->click_backend_node_id && e->click_backend_node_id != e->backend_node_id,
            "%s: a click aims at its label or host", name);
  cJSON *a = cJSON_CreateObject(), *res = NULL;
  double x = e->bbox.x + e->bbox.w / 2, y = e->bbox.y + e->bbox.h / 2;
  cJSON_AddNumberToObject(a, "x", (int)x);
  cJSON_AddNumberToObject(a, "y", (int)y);
  cr_assert_eq(cdp_call(l->c, crawl_page_session(l->p), "DOM.getNodeForLocation", a, &res, 10000), CDP_OK);
  int hit = item(res, "backendNodeId") ? item(res, "backendNodeId")->valueint : 0;
  cJSON_Delete(res);
  cr_expect(pg_graph_contains(g, pg_element_click_node(e), hit), "%s: the hit test lands in its label/host (%d)", name,
            hit);
  cr_assert_eq(crawl_page_click(l->p, x, y), CRAWL_OK);
  pg_graph_free(g);
  g = lib_capture(l, NULL);
  e = lib_element(g, role, name);
  cr_assert(e);
  cr_expect(pg_state_is(&e->state, PG_ST_CHECKED), "a click at %s's box checks it", name);
  if (now) {
    const pg_element *o = lib_element(g, role, now);
    cr_expect(o && !pg_state_is(&o->state, PG_ST_CHECKED), "and unchecks %s", now);
  }
  pg_graph_free(g);
}

Test(fidelity_real_apps, visually_hidden_inputs) {
  const char *const args[] = {NULL};
  SNAP(g, t_fixture_url(0, NULL, "/fidelity/hidden-inputs.html"), args);
  const cJSON *sw = t_element(g, "switch", "Dark mode");
  cr_assert(sw, "the web-component switch (open shadow root, clipped input) is published");
  cr_expect(t_state(sw, "visible") == 1 && t_state(sw, "checked") == 0);
  cr_expect(t_has(sw, "supportedActions", "ui.toggle"), "the switch can be toggled");
  const cJSON *cb = t_element(g, "checkbox", "Accept terms");
  cr_assert(cb, "the Bootstrap-style .form-check-input (opacity 0, 1 px) is published");
  cr_expect(t_state(cb, "visible") == 1 && t_state(cb, "checked") == 0);
  cr_expect(item(item(cb, "bbox"), "width")->valuedouble >= 100, "with its label's box");
  const cJSON *r1 = t_element(g, "radio", "Free plan"), *r2 = t_element(g, "radio", "Pro plan");
  cr_assert(r1 && r2, "both Material-like radios are published");
  cr_expect(t_state(r1, "checked") == 1 && t_state(r2, "checked") == 0, "with their checked state from AX");
  DONE(g);

  lib l = {0};
  lib_open(&l, t_fixture_url(0, NULL, "/fidelity/hidden-inputs.html"));
  expect_hidden_input_clickable(&l, "switch", "Dark mode", NULL);
  expect_hidden_input_clickable(&l, "checkbox", "Accept terms", NULL);
  expect_hidden_input_clickable(&l, "radio", "Pro plan", "Free plan");
  lib_close(&l);
}

/* 1: s holds a private-use code point (U+E000..U+F8FF: EE 80 80..EF A3 BF). */
static int has_pua(const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; p && *p; p++)
    if ((p[0] == 0xEE || (p[0] == 0xEF && p[1] >= 0x80 && p[1] <= 0xA3)) && p[1] >= 0x80) return 1;
  return 0;
}

/* Icon-only controls named by an icon font's private-use glyphs: their
 * title, else -- marked inferred -- what their fa-* class names; a trash
 * can so named is destructive to the policy. */
Test(fidelity_real_apps, icon_font_names) {
  const char *const args[] = {NULL};
  SNAP(g, t_fixture_url(0, NULL, "/fidelity/icon-font.html"), args);
  struct { const char *name; int inferred; } want[] = {{"Menu", 1}, {"Search", 1}, {"Preferences", 0}, {"Delete", 1}};
  for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
    const cJSON *e = t_element(g, "button", want[k].name);
    cr_expect(e, "the icon-font button is named \"%s\"", want[k].name);
    if (!e) continue;
    cr_expect(t_has(item(e, "semantics"), "sources", "inferred") == want[k].inferred,
              "%s: the name is %s", want[k].name, want[k].inferred ? "marked inferred" : "the page's own (title)");
    cr_expect(!t_has(item(e, "semantics"), "sources", "visible-text"), "%s: not from visible text", want[k].name);
  }
  cr_expect(!t_element(g, NULL, "Close"), "a close icon without context gets no name: the policy reads it by where it is");
  const cJSON *menu = t_element(g, "button", "Menu");
  cr_expect(menu && t_state(menu, "expanded") == 0 && t_has(menu, "supportedActions", "ui.expand"),
            "the menu toggle can be expanded");
  const cJSON *e;
  cJSON_ArrayForEach(e, item(g, "elements"))
    cr_expect(!has_pua(str(e, "name")), "no name is a bare icon-font glyph (%s)", str(e, "instanceId"));
  DONE(g);

  lib l = {0};
  lib_open(&l, t_fixture_url(0, NULL, "/fidelity/icon-font.html"));
  pg_graph *pg = lib_capture(&l, NULL);
  const pg_element *trash = lib_element(pg, "button", "Delete");
  cr_assert(trash, "the trash can is named Delete");
  pol_subject s = {.role = trash->role, .name = trash->name, .tag = trash->tag, .icon_classes = trash->icon_classes,
                   .icon_text = trash->icon_text, .container_kind = trash->container_kind};
  pol_classification cls;
  cr_assert_eq(pol_classify(&s, &cls), POL_OK);
  cr_expect_eq(cls.side_effect, POL_SE_DESTRUCTIVE, "a trash can named Delete is destructive (rule %s)", cls.rule);
  pol_subject bare = {.role = "button", .name = "Delete"};
  pol_classification bcls;
  pol_classify(&bare, &bcls);
  cr_expect_eq(bcls.side_effect, POL_SE_DESTRUCTIVE, "its name alone says so (rule %s)", bcls.rule);
  pg_graph_free(pg);
  lib_close(&l);
}

/* semantics.sources say what decided (web profile 5.9; issue #16): aria for
 * a role attribute, native-html only when the tag's semantics did (or the
 * tag is a native control whose states are its own), inferred where a
 * heuristic did -- a plain div a click listener makes activatable. */
Test(fidelity_sources, what_decided) {
  const char *const args[] = {NULL};
  SNAP(g, t_fixture_url(0, NULL, "/fidelity/sources.html"), args);
  static const struct { const char *role, *name; int native, aria, inferred; } want[] = {
    {"button", "Save", 1, 0, 0},
    {"button", "Open panel", 0, 1, 0},
    {"checkbox", "Remember me", 0, 1, 0},
    {"button", "More actions", 0, 1, 0},
    {"switch", "Wifi", 1, 1, 0},
    {"button", "Print", 1, 0, 0},
    {"generic", NULL, 1, 0, 1}, /* the div: a generic element has no name from its text */
  };
  for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
    const cJSON *e = t_element(g, want[k].role, want[k].name);
    cr_expect(e, "%s \"%s\" is published", want[k].role, want[k].name ? want[k].name : "");
    if (!e) continue;
    const cJSON *sem = item(e, "semantics");
    const char *label = want[k].name ? want[k].name : "the listener's div";
    cr_expect_eq(t_has(sem, "sources", "native-html"), want[k].native, "%s: native-html %s", label,
                 want[k].native ? "expected" : "not expected");
    cr_expect_eq(t_has(sem, "sources", "aria"), want[k].aria, "%s: aria %s", label, want[k].aria ? "expected" : "not expected");
    cr_expect_eq(t_has(sem, "sources", "inferred"), want[k].inferred, "%s: inferred %s", label,
                 want[k].inferred ? "expected" : "not expected");
    cr_expect_gt(cJSON_GetArraySize(item(sem, "sources")), 0, "%s: at least one source", label);
  }
  const cJSON *refresh = t_element(g, "generic", NULL);
  cr_expect(refresh && t_has(refresh, "supportedActions", "ui.activate"), "the listener's div can be activated");
  DONE(g);
}

/* Role derivation order (web profile 6.1): native HTML, ARIA, then the app's
 * data-uiap-role -- only where neither of the first two gave a role, and
 * never a lie: a widget role on an element that cannot be operated is
 * ignored. The annotated element is named from its contents and its
 * source is agent-annotation, not native-html. */
Test(fidelity_sources, annotated_roles) {
  const char *const args[] = {"--include-non-interactive", NULL};
  SNAP(g, t_fixture_url(0, NULL, "/fidelity/annotated_roles.html"), args);
  const cJSON *go = t_element(g, "button", "Go on");
  cr_expect(go, "data-uiap-role=button on a focusable div with a listener is a button named by its text");
  if (go) {
    cr_expect(t_has(item(go, "semantics"), "sources", "agent-annotation"), "its source is the annotation");
    cr_expect(!t_has(item(go, "semantics"), "sources", "native-html"), "a div's tag decided nothing");
    cr_expect(t_has(go, "supportedActions", "ui.activate"));
  }
  cr_expect(t_element(g, "link", "Next tile"), "a clickable div annotated link is a link");
  cr_expect(!t_element(g, "button", "Not a button"), "a widget role on a div nothing can operate is ignored");
  cr_expect(t_element(g, "navigation", "Side menu"), "a structural role needs no listener");
  const cJSON *nb = t_element(g, "button", "Native button");
  cr_expect(nb && !t_element(g, "link", "Native button"), "the native role wins over the annotation");
  if (nb) cr_expect(!t_has(item(nb, "semantics"), "sources", "agent-annotation"));
  cr_expect(t_element(g, "tab", "Aria tab") && !t_element(g, "button", "Aria tab"), "ARIA wins over the annotation");
  const cJSON *e;
  cJSON_ArrayForEach(e, item(g, "elements"))
    cr_expect(!str_is(e, "role", "no-such-role"), "an unknown annotated role is not published");
  /* web 5.7: affordances and supportedActions agree; a disabled control reads, nothing else */
  const cJSON *off = t_element(g, "button", "Create video"), *on = t_element(g, "button", "Preview video");
  cr_expect(off && !t_has(off, "affordances", "invoke") && t_has(off, "affordances", "read"),
            "a disabled app action offers no invoke");
  cr_expect(on && t_has(on, "affordances", "invoke"), "an enabled app action does");
  DONE(g);
}

/* Wrappers of component frameworks -- custom-element hosts and slots with no
 * role, name, state, action or stable id -- are left out; one with a stable
 * id or a state stays, and so does the host of a control's shadow tree. */
Test(fidelity_real_apps, wrapper_noise) {
  const char *const args[] = {"--include-non-interactive", NULL};
  SNAP(g, t_fixture_url(0, NULL, "/fidelity/noise.html"), args);
  const cJSON *e, *tools = NULL;
  int panels = 0;
  cJSON_ArrayForEach(e, item(g, "elements")) {
    const char *tag = str(item(e, "semantics"), "tagName");
    cr_expect(!str_is(item(e, "semantics"), "tagName", "slot"), "no <slot> is published (%s)", id_of(e));
    cr_expect(!tag || (strcmp(tag, "x-layout") && strcmp(tag, "x-stack")), "no wrapper %s is published", tag);
    if (tag && !strcmp(tag, "x-panel")) {
      panels++;
      cr_expect(str_is(e, "stableId", "panel-main"), "only the x-panel with a stable id is published");
    }
    if (tag && !strcmp(tag, "x-tools")) tools = e;
  }
  cr_expect_eq(panels, 1, "one x-panel of two");
  cr_expect(t_element(g, "button", "Real action") && t_element(g, "button", "Panel action"),
            "the controls the wrappers hold are published");
  const cJSON *tab = NULL;
  cJSON_ArrayForEach(e, item(g, "elements")) if (str_is(item(e, "semantics"), "tagName", "x-tab")) tab = e;
  cr_expect(tab, "a custom element with a state and tabindex stays");
  const cJSON *tool = t_element(g, "button", "Shadow tool");
  cr_assert(tool && tools, "the host of a control's shadow tree stays");
  cr_expect(str_is(item(tool, "semantics"), "shadowHostId", id_of(tools)), "and shadowHostId names it");
  DONE(g);
}

/* A crawl of fixture page into a fresh directory: its output directory in
 * out (DIR/out; the caller t_rm_rf's the returned DIR and frees it). */
static char *crawl_out(const char *page, char *out, size_t cap) {
  char *dir = t_tmpdir(), tmpenv[600];
  char *tmp = t_tmpdir();
  snprintf(tmpenv, sizeof tmpenv, "TMPDIR=%s", tmp);
  snprintf(out, cap, "%s/out", dir);
  const char *argv[] = {"/usr/bin/env", tmpenv, UIAP_BIN, "crawl", t_fixture_url(0, NULL, page), "-o", out, NULL};
  t_run r = t_run_argv(argv, 300000);
  cr_expect_eq(r.status, 0, "crawl of %s: %s", page, r.err);
  t_run_free(&r);
  t_rm_rf(tmp);
  free(tmp);
  return dir;
}

/* The records of out/journal.jsonl (caller frees). */
static cJSON *journal_of(const char *out) {
  char path[700];
  snprintf(path, sizeof path, "%s/journal.jsonl", out);
  char *text = t_read_file(path, NULL);
  cJSON *lines = cJSON_CreateArray();
  for (char *line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n")) {
    cJSON *j = cJSON_Parse(line);
    if (j) cJSON_AddItemToArray(lines, j);
  }
  free(text);
  return lines;
}

/* A crawl of fixture page: its journal (caller frees). */
static cJSON *crawl_journal(const char *page) {
  char out[600];
  char *dir = crawl_out(page, out, sizeof out);
  cJSON *lines = journal_of(out);
  t_rm_rf(dir);
  free(dir);
  return lines;
}

/* 1: the journal holds a record of type whose action and target name match
 * (for a decision, effect too when not NULL). */
static int journal_has(const cJSON *lines, const char *type, const char *action, const char *name, const char *effect) {
  const cJSON *j;
  cJSON_ArrayForEach(j, lines) {
    if (!str_is(j, "type", type) || !str_is(item(j, "target"), "name", name)) continue;
    const char *a = str(j, !strcmp(type, "transition") ? "viaActionId" : "actionId");
    if (a && !strcmp(a, action) && (!effect || str_is(j, "effect", effect))) return 1;
  }
  return 0;
}

/* What the crawler does with them: the hidden switch and radios are
 * toggled through their labels and hosts, the menu and search toggles
 * named from their icons explored, the trash can so named refused. */
Test(fidelity_real_apps, crawled) {
  cJSON *j = crawl_journal("/fidelity/hidden-inputs.html");
  cr_expect(journal_has(j, "transition", "ui.toggle", "Dark mode", NULL), "the hidden switch was toggled");
  cr_expect(journal_has(j, "transition", "ui.choose", "Pro plan", NULL), "a hidden radio was chosen");
  cJSON_Delete(j);
  j = crawl_journal("/fidelity/icon-font.html");
  cr_expect(journal_has(j, "transition", "ui.expand", "Menu", NULL), "the icon-font menu toggle was explored");
  cr_expect(journal_has(j, "transition", "ui.activate", "Search", NULL), "the search toggle was explored");
  cr_expect(journal_has(j, "decision", "ui.activate", "Delete", "deny"), "the trash can named Delete was refused");
  cr_expect(!journal_has(j, "transition", "ui.activate", "Delete", NULL), "and never clicked");
  int close_review = 0;
  const cJSON *rec;
  cJSON_ArrayForEach(rec, j) close_review |= str_is(rec, "type", "decision") && str_is(rec, "rule", "icon.close.no_context") &&
                                             str_is(rec, "effect", "review");
  cr_expect(close_review, "the close icon without context still goes to review (icon.close.no_context)");
  cJSON_Delete(j);
}

/* ---- routes folded into one state (issue 16) ------------------------------ */

/* The route of the catalog with routeId id, or NULL. */
static const cJSON *catalog_route(const cJSON *pkg, const char *id) {
  return find(item(pkg, "routeCatalog"), "routes", "routeId", id);
}

/* 1: string array arr holds a string that ends with tail. */
static int has_suffix(const cJSON *arr, const char *tail) {
  const cJSON *x;
  size_t n = strlen(tail);
  cJSON_ArrayForEach(x, arr) {
    const char *s = cJSON_GetStringValue(x);
    if (s && strlen(s) >= n && !strcmp(s + strlen(s) - n, tail)) return 1;
  }
  return 0;
}

/* 1: some route of the catalog lists a URL ending with the route key rk. */
static int catalogued(const cJSON *pkg, const char *rk) {
  const cJSON *r;
  cJSON_ArrayForEach(r, item(item(pkg, "routeCatalog"), "routes")) if (has_suffix(item(r, "urls"), rk)) return 1;
  return 0;
}

/* 1: arr is exactly the strings want[0..n-1], in order. */
static int strings_are(const cJSON *arr, const char *const *want, int n) {
  if (cJSON_GetArraySize(arr) != n) return 0;
  for (int i = 0; i < n; i++)
    if (strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(arr, i)) ?: "", want[i])) return 0;
  return 1;
}

/* #/page/1..3 show the default view's list shell and fold into its state (a
 * self-loop each); every route the crawl visited is still in the catalog:
 * the pages under one template with the page numbers seen, the detail
 * pages under the name their page gives them (data-uiap-route), and every
 * state's PageGraph names its route. */
Test(fidelity_real_apps, folded_routes_catalogued, .timeout = 200) {
  char out[600], path[800];
  char *dir = crawl_out("/fidelity/routes.html", out, sizeof out);
  snprintf(path, sizeof path, "%s/package.json", out);
  cJSON *pkg = t_package_read(path), *j = journal_of(out);
  cr_assert(pkg, "the crawl wrote a package");
  /* ground truth: the routes the browser showed (state URLs, and the
   * route.changed signals of every transition, self-loops included) */
  int visited = 0, pages = 0;
  const cJSON *rec, *sg;
  cJSON_ArrayForEach(rec, j) {
    if (str_is(rec, "type", "state")) {
      const char *u = str(rec, "url");
      cr_expect(u && catalogued(pkg, strstr(u, "/fidelity/")), "state URL %s is in the route catalog", u);
      visited++;
    }
    if (!str_is(rec, "type", "transition")) continue;
    cJSON_ArrayForEach(sg, item(rec, "observedSignals")) {
      if (!str_is(sg, "kind", "route.changed")) continue;
      const char *rk = str(sg, "pattern");
      cr_expect(rk && catalogued(pkg, rk), "visited route %s is in the route catalog", rk);
      pages += rk && strstr(rk, "#/page/") != NULL;
      visited++;
    }
  }
  cr_expect_gt(pages, 2, "the crawl followed the page links");
  cr_expect_gt(visited, 4);
  /* the pages: one template, the numbers seen */
  const cJSON *pr = catalog_route(pkg, "/fidelity/routes.html#/page/:n");
  cr_assert(pr, "the pages have one template route /fidelity/routes.html#/page/:n");
  static const char *const nums[] = {"1", "2", "3"};
  cr_expect(strings_are(item(item(item(pr, "metadata"), "params"), "n"), nums, 3), "with the page numbers seen as params.n");
  for (int i = 0; i < 3; i++) {
    char tail[64];
    snprintf(tail, sizeof tail, "#/page/%s", nums[i]);
    cr_expect(has_suffix(item(pr, "urls"), tail), "and the URL of page %s", nums[i]);
  }
  cr_expect(catalog_route(pkg, "/fidelity/routes.html"), "the default view keeps its own route");
  /* the detail pages: named by data-uiap-route, their template beside it */
  const cJSON *dr = catalog_route(pkg, "item.detail");
  cr_assert(dr, "the detail route is named by its page's data-uiap-route");
  cr_expect(find(dr, "discoveredBy", "source", "annotation"), "on the page's word");
  cr_expect(!catalog_route(pkg, "/fidelity/routes.html#/item/:id"), "the annotation wins over the URL template");
  cr_expect(t_has(item(dr, "metadata"), "templates", "/fidelity/routes.html#/item/:id"), "which it lists");
  cr_expect_gt(cJSON_GetArraySize(item(item(item(dr, "metadata"), "params"), "id")), 0, "with the ids seen");
  /* review (mapper 16): the template route has no stable identity, the named one does */
  int unstable_pages = 0, unstable_detail = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, item(item(pkg, "reviewQueue"), "items")) {
    if (!str_is(it, "kind", "missing_stable_id") || !strstr(str(it, "description"), "no stable identity")) continue;
    unstable_pages += str_is(it, "routeId", "/fidelity/routes.html#/page/:n");
    unstable_detail += str_is(it, "routeId", "item.detail");
  }
  cr_expect_eq(unstable_pages, 1, "a review item: the page route has no stable identity");
  cr_expect_eq(unstable_detail, 0, "none for the route its page names");
  /* every state's PageGraph names its route, as the transition graph does */
  const cJSON *st;
  int details = 0;
  cJSON_ArrayForEach(st, item(item(pkg, "transitionGraph"), "states")) {
    snprintf(path, sizeof path, "%s/%s", out, str(st, "pageGraphRef"));
    char *text = t_read_file(path, NULL);
    cJSON *g = text ? cJSON_Parse(text) : NULL;
    free(text);
    cr_assert(g, "state file %s", path);
    const cJSON *route = item(g, "route");
    cr_expect(str(route, "routeId") && *str(route, "routeId"), "%s: route.routeId is set", str(st, "stateId"));
    cr_expect(str_is(route, "routeId", str(st, "routeId")), "%s: route.routeId %s is the state's %s", str(st, "stateId"),
              str(route, "routeId"), str(st, "routeId"));
    if (str_is(route, "routeId", "item.detail")) {
      details++;
      cr_expect(str(item(route, "params"), "id"), "a detail page's route.params.id");
      cr_expect(str_is(item(g, "metadata"), "routeSource", "annotation"));
    }
    cJSON_Delete(g);
  }
  cr_expect_gt(details, 0, "the detail pages were visited");
  cJSON_Delete(j);
  cJSON_Delete(pkg);
  t_rm_rf(dir);
  free(dir);
}

/* A snapshot's RouteContext: the template of a hash route with its params,
 * the query, and data-uiap-route winning over the template. */
Test(fidelity_real_apps, route_context) {
  const char *const args[] = {NULL};
  {
    SNAP(g, t_fixture_url(0, NULL, "/fidelity/routes.html?lang=en#/page/2"), args);
    const cJSON *route = item(g, "route");
    cr_expect(str_is(route, "routeId", "/fidelity/routes.html?lang=en#/page/:n"), "routeId: %s", str(route, "routeId"));
    cr_expect(str_is(item(route, "params"), "n", "2"), "params.n is the page number");
    cr_expect(str_is(item(route, "query"), "lang", "en"), "query.lang");
    cr_expect(str_is(item(g, "metadata"), "routeSource", "url"));
    DONE(g);
  }
  {
    SNAP(g, t_fixture_url(0, NULL, "/fidelity/routes.html#/item/7"), args);
    const cJSON *route = item(g, "route");
    cr_expect(str_is(route, "routeId", "item.detail"), "data-uiap-route wins: %s", str(route, "routeId"));
    cr_expect(str_is(item(route, "params"), "id", "7"), "params.id from the URL's template");
    cr_expect(str_is(item(g, "metadata"), "routeSource", "annotation"));
    cr_expect(str_is(item(g, "metadata"), "routeTemplate", "/fidelity/routes.html#/item/:id"));
    DONE(g);
  }
  /* the app's router names the route (Vue Router, Next.js): its name or template wins over ours */
  static const struct { const char *url, *route; } routers[] = {
    {"/fidelity/router.html#/orders/5", "/orders/:orderId"},
    {"/fidelity/router.html#/orders", "orders"},
    {"/fidelity/router.html?fw=next#/orders/5", "/orders/[orderId]"},
  };
  for (size_t k = 0; k < sizeof routers / sizeof *routers; k++) {
    SNAP(g, t_fixture_url(0, NULL, routers[k].url), args);
    const cJSON *route = item(g, "route");
    cr_expect(str_is(route, "routeId", routers[k].route), "%s: the router's %s, not %s", routers[k].url, routers[k].route,
              str(route, "routeId"));
    cr_expect(str_is(item(g, "metadata"), "routeSource", "router"), "%s: routeSource router", routers[k].url);
    if (strstr(routers[k].url, "/5")) cr_expect(str_is(item(route, "params"), "id", "5"), "params from the URL template");
    DONE(g);
  }
}

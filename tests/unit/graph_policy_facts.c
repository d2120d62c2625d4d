/* graph_policy_facts.c -- the facts pg_build hands the policy that are not
 * published: the effective submission of submit controls (formaction /
 * formmethod over the owner form's action / method, the owner found by
 * ancestry or form="id", URLs resolved against the base URL), the nearest
 * container kind around a control, its icon classes and ligature text, and
 * autocomplete-driven redaction in any letter case. Each page is a small
 * DOMSnapshot reply written here as a node table (no accessibility tree:
 * roles are implicit or explicit, names from attributes and contents), and
 * each case ends where a user notices it: the policy's verdict on the
 * element filled as the crawler fills it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_int.h"
#include "pol.h"

#define ORIGIN "http://127.0.0.1:8931"

/* One node of a page: index 0 is the document; parent is an index into the
 * same table. tag "#text" is a text node holding text. */
typedef struct {
  int parent;
  const char *tag;
  const char *text;    /* text nodes; for fields: the inputValue */
  const char *attrs[12]; /* name, value, ..., NULL */
} tnode;

/* The page node with a click listener (DOMSnapshot isClickable), or 0. */
static int clickable_node;

#define MAXN 64

typedef struct { cJSON *strings; int n; } interner;

static int intern(interner *in, const char *s) {
  for (int i = 0; i < in->n; i++)
    if (!strcmp(cJSON_GetArrayItem(in->strings, i)->valuestring, s)) return i;
  cJSON_AddItemToArray(in->strings, cJSON_CreateString(s));
  return in->n++;
}

static cJSON *ints(const int *v, int n) { return cJSON_CreateIntArray(v, n); }

/* The DOMSnapshot.captureSnapshot reply of page (n nodes after the
 * document), every element and text laid out in a visible box. */
static char *snapshot_json(const tnode *page, int n, const char *doc_url, const char *base_url) {
  interner in = {cJSON_CreateArray(), 0};
  int parent[MAXN], type[MAXN], name[MAXN], value[MAXN], backend[MAXN];
  int vidx[MAXN], vval[MAXN], nv = 0, clk[MAXN], nclk = 0;
  cJSON *attrs = cJSON_CreateArray();
  cr_assert_lt(n + 1, MAXN);
  parent[0] = -1, type[0] = 9, name[0] = intern(&in, "#document"), value[0] = -1, backend[0] = 1;
  cJSON_AddItemToArray(attrs, cJSON_CreateArray());
  for (int i = 1; i <= n; i++) {
    const tnode *t = &page[i - 1];
    int text = !strcmp(t->tag, "#text");
    parent[i] = t->parent, type[i] = text ? 3 : 1, name[i] = intern(&in, t->tag);
    value[i] = text ? intern(&in, t->text) : -1;
    backend[i] = 100 + i;
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; !text && t->attrs[k]; k += 2) {
      cJSON_AddItemToArray(a, cJSON_CreateNumber(intern(&in, t->attrs[k])));
      cJSON_AddItemToArray(a, cJSON_CreateNumber(intern(&in, t->attrs[k + 1])));
    }
    cJSON_AddItemToArray(attrs, a);
    if (!text && t->text) vidx[nv] = i, vval[nv++] = intern(&in, t->text);
    if (i == clickable_node) clk[nclk++] = i;
  }
  cJSON *nodes = cJSON_CreateObject();
  cJSON_AddItemToObject(nodes, "parentIndex", ints(parent, n + 1));
  cJSON_AddItemToObject(nodes, "nodeType", ints(type, n + 1));
  cJSON_AddItemToObject(nodes, "nodeName", ints(name, n + 1));
  cJSON_AddItemToObject(nodes, "nodeValue", ints(value, n + 1));
  cJSON_AddItemToObject(nodes, "backendNodeId", ints(backend, n + 1));
  cJSON_AddItemToObject(nodes, "attributes", attrs);
  cJSON *iv = cJSON_CreateObject();
  cJSON_AddItemToObject(iv, "index", ints(vidx, nv));
  cJSON_AddItemToObject(iv, "value", ints(vval, nv));
  cJSON_AddItemToObject(nodes, "inputValue", iv);
  cJSON *ck = cJSON_CreateObject();
  cJSON_AddItemToObject(ck, "index", ints(clk, nclk));
  cJSON_AddItemToObject(nodes, "isClickable", ck);
  /* layout: one box per node but the document */
  cJSON *ni = cJSON_CreateArray(), *styles = cJSON_CreateArray(), *bounds = cJSON_CreateArray();
  int st[4] = {intern(&in, "block"), intern(&in, "visible"), intern(&in, "1"), intern(&in, "auto")};
  for (int i = 1; i <= n; i++) {
    cJSON_AddItemToArray(ni, cJSON_CreateNumber(i));
    cJSON_AddItemToArray(styles, ints(st, 4));
    double b[4] = {10, 10 + 20.0 * i, 300, 18};
    cJSON_AddItemToArray(bounds, cJSON_CreateDoubleArray(b, 4));
  }
  cJSON *layout = cJSON_CreateObject();
  cJSON_AddItemToObject(layout, "nodeIndex", ni);
  cJSON_AddItemToObject(layout, "styles", styles);
  cJSON_AddItemToObject(layout, "bounds", bounds);
  cJSON *doc = cJSON_CreateObject();
  cJSON_AddNumberToObject(doc, "documentURL", intern(&in, doc_url));
  cJSON_AddNumberToObject(doc, "baseURL", intern(&in, base_url ? base_url : doc_url));
  cJSON_AddNumberToObject(doc, "title", intern(&in, "facts"));
  cJSON_AddNumberToObject(doc, "frameId", intern(&in, "F00000000000000000000000000000AA"));
  cJSON_AddItemToObject(doc, "nodes", nodes);
  cJSON_AddItemToObject(doc, "layout", layout);
  cJSON *docs = cJSON_CreateArray();
  cJSON_AddItemToArray(docs, doc);
  cJSON *res = cJSON_CreateObject();
  cJSON_AddItemToObject(res, "documents", docs);
  cJSON_AddItemToObject(res, "strings", in.strings);
  char *text = cJSON_PrintUnformatted(res);
  cJSON_Delete(res);
  return text;
}

typedef struct { pg_snapshot *snap; pg_graph *g; } built;

static built build(const tnode *page, int n, const char *doc_url, const char *base_url) {
  char *text = snapshot_json(page, n, doc_url, base_url);
  built b = {0};
  cr_assert_eq(pg_snapshot_parse(text, strlen(text), &b.snap), PG_OK);
  free(text);
  pg_input in = {.snapshot = b.snap};
  pg_options o = {.revision = 1};
  cr_assert_eq(pg_build(&in, &o, &b.g), PG_OK);
  return b;
}

static void release(built *b) {
  pg_graph_free(b->g);
  pg_snapshot_free(b->snap);
}

/* The graph's published JSON text (caller frees). */
static char *published(const built *b) {
  cJSON *j = pg_graph_to_json(b->g);
  char *text = cJSON_PrintUnformatted(j);
  cJSON_Delete(j);
  return text;
}

/* The element of page node i (its backendNodeId is 100 + i). */
static const pg_element *node_el(const built *b, int i) {
  for (size_t k = 0; k < b->g->nelements; k++)
    if (b->g->elements[k].backend_node_id == 100 + i) return &b->g->elements[k];
  cr_assert_fail("node %d is not published", i);
  return NULL;
}

/* The policy's verdict on e in safe_explore, the subject filled from the
 * element as the crawler's decide() fills it (crawler/run/explore.c), with
 * the new facts wired in. */
static void verdict(const pg_element *e, pol_classification *c, pol_decision *d) {
  pol_subject s = {
    .role = e->role, .name = e->name, .tag = e->tag, .input_type = e->input_type,
    .href = e->href, .page_origin = ORIGIN, .form_method = e->form_method,
    .form_action = e->submit_url, .is_submit = e->is_submit, .has_download = e->has_download,
    .opens_window = e->opens_window,
    .autocomplete = e->autocomplete, .risk = e->risk_attr, .app_action = e->app_action,
    .sensitive = e->sensitive ? "true" : NULL, .context = e->context,
    .has_aria_expanded = pg_state_has(&e->state, PG_ST_EXPANDED), .aria_haspopup = e->aria_haspopup,
    .has_aria_controls = e->has_aria_controls, .container_role = e->container_role,
    .container_kind = e->container_kind, .icon_classes = e->icon_classes, .icon_text = e->icon_text,
  };
  cr_assert_eq(pol_classify(&s, c), POL_OK);
  cr_assert_eq(pol_decide(NULL, &s, c, d), POL_OK);
}

/* ---- submissions --------------------------------------------------------- */

#define HTML {0, "HTML", NULL, {NULL}}, {1, "BODY", NULL, {NULL}}

static const tnode forms[] = {
  HTML,                                                                          /* 1, 2 */
  /* 3 */ {2, "FORM", NULL, {"id", "f1", "action", "/items", "method", "post", NULL}},
  /* 4 */ {3, "BUTTON", NULL, {"formaction", "/items/delete?all=1", "formmethod", "GET", NULL}},
  /* 5 */ {4, "#text", "Refresh list", {NULL}},
  /* 6 */ {2, "FORM", NULL, {"action", "/logout", "method", "POST", NULL}},
  /* 7 */ {6, "BUTTON", NULL, {NULL}},                        /* no type: a submit */
  /* 8 */ {7, "#text", "Go", {NULL}},
  /* 9 */ {2, "FORM", NULL, {"id", "f2", "action", "session/end/signout", "method", "post", NULL}},
  /* 10 */ {2, "FORM", NULL, {"id", "f3", "action", "/search", NULL}},
  /* 11 */ {10, "BUTTON", NULL, {"type", "submit", "form", "f2", NULL}}, /* inside f3, submits f2 */
  /* 12 */ {11, "#text", "Continue", {NULL}},
  /* 13 */ {10, "INPUT", NULL, {"type", "image", "alt", "Find", "formaction", "../x/./remove", NULL}},
  /* 14 */ {10, "BUTTON", NULL, {"type", "button", NULL}},   /* not a submit */
  /* 15 */ {14, "#text", "Preview", {NULL}},
  /* 16 */ {2, "FORM", NULL, {"action", "", NULL}},         /* empty action: the document */
  /* 17 */ {16, "INPUT", NULL, {"type", "submit", "value", "Search", NULL}},
  /* 18 */ {3, "BUTTON", NULL, {"formaction", "", NULL}},   /* formaction="" beats the form's */
  /* 19 */ {18, "#text", "Reload", {NULL}},
  /* 20 */ {10, "BUTTON", NULL, {"type", "submit", "form", "nowhere", NULL}}, /* no owner */
  /* 21 */ {20, "#text", "Apply", {NULL}},
  /* 22 */ {10, "BUTTON", NULL, {"formaction", "https://other.example/x", NULL}},
  /* 23 */ {22, "#text", "Elsewhere", {NULL}},
};
#define DOC ORIGIN "/app/list.html?page=2#top"
#define BASE ORIGIN "/app/base/"

Test(graph_facts, effective_submission) {
  built b = build(forms, sizeof forms / sizeof *forms, DOC, BASE);
  static const struct { int node; const char *method, *url; } want[] = {
    {4, "get", ORIGIN "/items/delete?all=1"},            /* formaction, formmethod */
    {7, "post", ORIGIN "/logout"},                       /* the form's, method lowered */
    {11, "post", BASE "session/end/signout"},            /* form="f2", relative to the base */
    {13, "get", ORIGIN "/app/x/remove"},                 /* dot segments; no method: get */
    {17, "get", ORIGIN "/app/list.html?page=2"},         /* action="": the document */
    {18, "post", ORIGIN "/app/list.html?page=2"},        /* formaction="": the document */
    {22, "get", "https://other.example/x"},
  };
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    const pg_element *e = node_el(&b, want[i].node);
    cr_expect(e->is_submit, "node %d submits", want[i].node);
    cr_expect(e->form_method && !strcmp(e->form_method, want[i].method), "node %d method %s, want %s",
              want[i].node, e->form_method, want[i].method);
    cr_expect(e->submit_url && !strcmp(e->submit_url, want[i].url), "node %d url %s, want %s", want[i].node,
              e->submit_url, want[i].url);
  }
  const pg_element *button = node_el(&b, 14);
  cr_expect(!button->is_submit && !button->submit_url && !button->form_method, "type=button submits nothing");
  const pg_element *orphan = node_el(&b, 20);
  cr_expect(orphan->is_submit && !orphan->submit_url && !orphan->form_method,
            "form= naming no form: no owner, no URL (%s)", orphan->submit_url);
  /* nothing of it is published */
  char *json = published(&b);
  cr_expect_null(strstr(json, "delete?all"), "submission URLs stay internal");
  cr_expect_null(strstr(json, "signout"));
  free(json);
  release(&b);
}

Test(graph_facts, submissions_reach_the_policy) {
  built b = build(forms, sizeof forms / sizeof *forms, DOC, BASE);
  static const struct { int node; const char *se, *rule, *effect; } want[] = {
    {4, "destructive", "url.delete", "deny"},              /* "Refresh list", GET /items/delete */
    {7, "security_change", "url.logout", "deny"},          /* "Go" in a logout form */
    {11, "security_change", "url.logout", "deny"},         /* form="f2", a sign-out form */
    {13, "destructive", "url.remove", "deny"},             /* an image button posting to /remove */
    {17, "read", "native.submit.get", "allow"},            /* a search form to itself */
    {22, "external_effect", "native.submit.cross_origin", "deny"},
  };
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    pol_classification c;
    pol_decision d;
    verdict(node_el(&b, want[i].node), &c, &d);
    cr_expect(!strcmp(pol_side_effect_name(c.side_effect), want[i].se) && !strcmp(c.rule, want[i].rule) &&
                  !strcmp(pol_effect_name(d.effect), want[i].effect),
              "node %d: %s/%s/%s, want %s/%s/%s (%s)", want[i].node, pol_side_effect_name(c.side_effect), c.rule,
              pol_effect_name(d.effect), want[i].se, want[i].rule, want[i].effect, d.text);
  }
  release(&b);
}

Test(graph_facts, submission_url_and_method) {
  static const struct { const char *base, *doc, *action, *want; } cs[] = {
    {"http://h/a/b/", "http://h/a/page?q#f", NULL, "http://h/a/page?q"},     /* no action: the document */
    {"http://h/a/b/", "http://h/a/page?q#f", " \t", "http://h/a/page?q"},    /* blank: the document */
    {"http://h/a/b/", "http://h/a/page", "../x/./remove", "http://h/a/x/remove"},
    {"", "http://h/a/page", "go", "http://h/a/go"},                          /* no base URL: the document's */
    {"https://h/a/", "https://h/a/", "\\logout", "https://h/logout"},        /* as browsers read "\" */
    {"https://h/a/", "https://h/a/", "/lo\ngout", "https://h/logout"},
    {"http://h/", "http://h/", "mailto:x@y", "mailto:x@y"},
    {"http://h/", "http://h/", "http://[::1:bad", "http://[::1:bad"},        /* unreadable: as written */
  };
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
    char *got = pg__submit_url(cs[i].base, cs[i].doc, cs[i].action);
    cr_expect(got && !strcmp(got, cs[i].want), "%s + %s: %s, want %s", cs[i].base, cs[i].action, got, cs[i].want);
    free(got);
  }
  cr_expect_null(pg__submit_url(NULL, NULL, "x"), "nothing to resolve against");
  /* the cap: a longer URL is cut to PG_SUBMIT_URL_MAX bytes (which the
   * policy reads as unknown); one the URL module refuses is kept as written */
  static const size_t lens[] = {PG_SUBMIT_URL_MAX + 99, PG_URL_MAX + 99};
  for (size_t k = 0; k < 2; k++) {
    char *action = malloc(lens[k] + 1);
    memset(action, 'a', lens[k]);
    action[0] = '/';
    memcpy(action + 1, "delete/", 7);
    action[lens[k]] = 0;
    char *u = pg__submit_url("http://h/", "http://h/", action);
    cr_assert(u, "a %zu-byte action", lens[k]);
    cr_expect_eq(strlen(u), PG_SUBMIT_URL_MAX, "a %zu-byte action is cut", lens[k]);
    cr_expect(strstr(u, "/delete/"), "its words are kept");
    free(u);
    free(action);
  }
  char m[16];
  cr_expect_str_eq(pg__submit_method(NULL, " POST ", m, sizeof m), "post");
  cr_expect_str_eq(pg__submit_method("Delete", "post", m, sizeof m), "delete", "formmethod wins, kept readable");
  cr_expect_str_eq(pg__submit_method("", "post", m, sizeof m), "get", "an empty value is GET");
  cr_expect_null(pg__submit_method(NULL, NULL, m, sizeof m));
}

/* ---- where a control sits, what it shows ---------------------------------- */

#define X_ "\xC3\x97" /* × */
static const tnode places[] = {
  HTML,                                                                     /* 1, 2 */
  /* 3 */ {2, "DIV", NULL, {"role", "dialog", "aria-label", "Delete project?", NULL}},
  /* 4 */ {3, "DIV", NULL, {"class", "modal-header", NULL}},
  /* 5 */ {4, "BUTTON", NULL, {"class", "x", NULL}},
  /* 6 */ {5, "#text", X_, {NULL}},
  /* 7 */ {2, "UL", NULL, {NULL}},
  /* 8 */ {7, "LI", NULL, {NULL}},
  /* 9 */ {8, "#text", "Milk", {NULL}},
  /* 10 */ {8, "BUTTON", NULL, {NULL}},
  /* 11 */ {10, "#text", X_, {NULL}},
  /* 12 */ {2, "TABLE", NULL, {NULL}},
  /* 13 */ {12, "TBODY", NULL, {NULL}},
  /* 14 */ {13, "TR", NULL, {NULL}},
  /* 15 */ {14, "TD", NULL, {NULL}},
  /* 16 */ {15, "BUTTON", NULL, {NULL}},
  /* 17 */ {16, "#text", "\xE2\x9C\x95", {NULL}},          /* ✕ */
  /* 18 */ {2, "DIV", NULL, {"class", "cards", NULL}},
  /* 19 */ {18, "DIV", NULL, {"class", "card shadow", NULL}},
  /* 20 */ {19, "BUTTON", NULL, {"class", "btn-close", "aria-label", "Close", NULL}},
  /* 21 */ {18, "DIV", NULL, {"class", "card", NULL}},
  /* 22 */ {2, "DIV", NULL, {"class", "toast", NULL}},
  /* 23 */ {22, "DIV", NULL, {"class", "toast-header", NULL}},
  /* 24 */ {23, "BUTTON", NULL, {NULL}},
  /* 25 */ {24, "#text", X_, {NULL}},
  /* 26 */ {2, "SPAN", NULL, {"class", "MuiChip-root", NULL}},
  /* 27 */ {26, "BUTTON", NULL, {NULL}},
  /* 28 */ {27, "#text", X_, {NULL}},
  /* 29 */ {2, "BUTTON", NULL, {NULL}},                     /* × in the open: unknown */
  /* 30 */ {29, "#text", X_, {NULL}},
  /* 31 */ {2, "BUTTON", NULL, {"class", "btn btn-sm", NULL}}, /* a nameless trash icon */
  /* 32 */ {31, "I", NULL, {"class", "fa fa-trash-can", "aria-hidden", "true", NULL}},
  /* 33 */ {2, "BUTTON", NULL, {NULL}},                     /* a material ligature */
  /* 34 */ {33, "SPAN", NULL, {"class", "material-icons", NULL}},
  /* 35 */ {34, "#text", "delete", {NULL}},
  /* 36 */ {2, "BUTTON", NULL, {"aria-label", "Search", NULL}}, /* a PUA glyph, labelled */
  /* 37 */ {36, "I", NULL, {"class", "icon icon-search", NULL}},
  /* 38 */ {37, "#text", "\xEE\xA2\xB6", {NULL}},          /* U+E8B6 */
  /* 39 */ {3, "DIV", NULL, {"class", "member", NULL}},     /* unmarked rows in the dialog */
  /* 40 */ {39, "BUTTON", NULL, {NULL}},
  /* 41 */ {40, "#text", X_, {NULL}},
  /* 42 */ {3, "DIV", NULL, {"class", "member", NULL}},
  /* 43 */ {3, "DIV", NULL, {"class", "member", NULL}},
  /* 44 */ {2, "BUTTON", NULL, {NULL}},                     /* an icon inside a nested control */
  /* 45 */ {44, "SPAN", NULL, {NULL}},
  /* 46 */ {45, "#text", "Options", {NULL}},
  /* 47 */ {44, "A", NULL, {"href", "#", NULL}},
  /* 48 */ {47, "I", NULL, {"class", "fa fa-trash", NULL}},
};

Test(graph_facts, container_kinds_and_icons) {
  built b = build(places, sizeof places / sizeof *places, ORIGIN "/app/", NULL);
  static const struct { int node; const char *kind; } kinds[] = {
    {5, "dialog"}, {10, "listitem"}, {16, "gridcell"}, {20, "card"}, {24, "toast"},
    {27, "chip"}, {29, NULL}, {40, "repeated"},
  };
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
    const pg_element *e = node_el(&b, kinds[i].node);
    if (kinds[i].kind)
      cr_expect(e->container_kind && !strcmp(e->container_kind, kinds[i].kind), "node %d: %s, want %s",
                kinds[i].node, e->container_kind, kinds[i].kind);
    else
      cr_expect_null(e->container_kind, "node %d: %s, want none", kinds[i].node, e->container_kind);
  }
  const pg_element *trash = node_el(&b, 31), *lig = node_el(&b, 33), *search = node_el(&b, 36);
  cr_expect_str_eq(trash->icon_classes, "btn btn-sm fa fa-trash-can");
  cr_expect_null(trash->icon_text);
  cr_expect_str_eq(lig->icon_classes, "material-icons");
  cr_expect_str_eq(lig->icon_text, "delete");
  cr_expect_str_eq(search->icon_classes, "icon icon-search");
  cr_expect_null(search->icon_text, "a private-use glyph is no ligature");
  cr_expect_null(node_el(&b, 44)->icon_classes, "a nested link's icon is its own");
  /* nothing of it is published */
  char *json = published(&b);
  cr_expect_null(strstr(json, "fa-trash-can"), "icon evidence stays internal");
  cr_expect_null(strstr(json, "\"repeated\""));
  free(json);
  release(&b);
}

Test(graph_facts, icons_reach_the_policy) {
  built b = build(places, sizeof places / sizeof *places, ORIGIN "/app/", NULL);
  static const struct { int node; const char *se, *rule, *effect, *explain; } want[] = {
    {5, "local_ui", "icon.close.dismiss", "allow", "closes the dialog"}, /* despite "Delete project?" */
    {10, "destructive", "icon.close.item", "deny", "removes a list item"},
    {16, "destructive", "icon.close.item", "deny", "removes a list item"},
    {20, "destructive", "icon.close.item", "deny", "removes a list item"}, /* "Close" on a card */
    {24, "local_ui", "icon.close.dismiss", "allow", "dismisses the notification"},
    {27, "local_ui", "icon.close.dismiss", "allow", "removes the chip"},
    {29, "unknown", "icon.close.no_context", "review", "nothing around settles"},
    {31, "destructive", "icon.delete", "deny", "trash"},
    {33, "destructive", "icon.delete", "deny", "trash"},
    {36, "local_ui", "signal.safe_word", "allow", NULL},
    {40, "destructive", "icon.close.item", "deny", "removes a list item"},
  };
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    pol_classification c;
    pol_decision d;
    verdict(node_el(&b, want[i].node), &c, &d);
    cr_expect(!strcmp(pol_side_effect_name(c.side_effect), want[i].se) && !strcmp(c.rule, want[i].rule) &&
                  !strcmp(pol_effect_name(d.effect), want[i].effect),
              "node %d: %s/%s/%s, want %s/%s/%s (%s)", want[i].node, pol_side_effect_name(c.side_effect), c.rule,
              pol_effect_name(d.effect), want[i].se, want[i].rule, want[i].effect, d.text);
    if (want[i].explain)
      cr_expect(c.explain && strstr(c.explain, want[i].explain) && strstr(d.text, want[i].explain),
                "node %d says \"%s\": %s", want[i].node, want[i].explain, d.text);
  }
  release(&b);
}

/* ---- autocomplete in any case ---------------------------------------------- */

static const tnode fields[] = {
  HTML,
  /* 3 */ {2, "INPUT", "4111 1111 1111 1111", {"type", "text", "autocomplete", "CC-NUMBER", NULL}},
  /* 4 */ {2, "INPUT", "123456", {"type", "text", "autocomplete", "section-x One-Time-Code", NULL}},
  /* 5 */ {2, "INPUT", "hunter2", {"type", "text", "autocomplete", "username Current-Password", NULL}},
  /* 6 */ {2, "INPUT", "Ada", {"type", "text", "autocomplete", "given-name", NULL}},
  /* 7 */ {2, "INPUT", "secret", {"type", "text", "autocomplete", "occ-number", NULL}},
};

Test(graph_facts, autocomplete_tokens_redact_in_any_case) {
  built b = build(fields, sizeof fields / sizeof *fields, ORIGIN "/pay", NULL);
  static const struct { int node; int sensitive; } want[] = {{3, 1}, {4, 1}, {5, 1}, {6, 0}, {7, 0}};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    const pg_element *e = node_el(&b, want[i].node);
    cr_expect_eq(e->sensitive, want[i].sensitive, "node %d (%s)", want[i].node, e->autocomplete);
    if (want[i].sensitive)
      cr_expect(e->redacted && !strcmp(e->text_value, PG_REDACTED), "node %d value masked: %s", want[i].node,
                e->text_value);
    else
      cr_expect(!e->redacted && e->text_value, "node %d value kept", want[i].node);
  }
  char *json = published(&b);
  cr_expect_null(strstr(json, "4111"), "no card number in the graph");
  cr_expect_null(strstr(json, "123456"), "no one-time code in the graph");
  free(json);
  /* and the policy reads the same field as a payment field */
  pol_classification c;
  pol_decision d;
  verdict(node_el(&b, 3), &c, &d);
  cr_expect_str_eq(c.rule, "native.autocomplete.payment");
  cr_expect_eq(d.effect, POL_EFFECT_DENY);
  release(&b);
}

Test(graph_facts, autocomplete_token_reader) {
  static const struct { const char *ac, *token; int want; } cs[] = {
    {"cc-number", "cc-number", 1},     {"CC-NUMBER", "cc-number", 1},  {"CC-Exp", "cc-", 1},
    {"billing cc-csc", "cc-", 1},      {"\tshipping\nCC-NAME ", "cc-", 1},
    {"occ-number", "cc-", 0},          {"cc", "cc-", 0},               {"one-time-codes", "one-time-code", 0},
    {"One-Time-Code", "one-time-code", 1}, {"", "cc-", 0},             {NULL, "cc-", 0},
  };
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++)
    cr_expect_eq(pg_autocomplete_has(cs[i].ac, cs[i].token), cs[i].want, "\"%s\" has %s", cs[i].ac, cs[i].token);
  cr_expect(pg_autocomplete_sensitive("NEW-PASSWORD"));
  cr_expect(!pg_autocomplete_sensitive("email"));
}

/* ---- semantics.sources: what decided (web profile 5.9, issue #16) ------------ */
/* Without an accessibility tree too: a role attribute is aria, not
 * native-html; the tag's own role is native-html; a native checkbox with
 * role=switch both; a div a click listener makes activatable inferred. */
static const tnode sources_page[] = {
  HTML,                                                                       /* 1, 2 */
  /* 3 */ {2, "BUTTON", NULL, {"type", "button", NULL}},
  /* 4 */ {3, "#text", "Save", {NULL}},
  /* 5 */ {2, "DIV", NULL, {"role", "button", "tabindex", "0", NULL}},
  /* 6 */ {5, "#text", "Open panel", {NULL}},
  /* 7 */ {2, "INPUT", NULL, {"type", "checkbox", "role", "switch", "aria-label", "Wifi", NULL}},
  /* 8 */ {2, "DIV", NULL, {NULL}}, /* clickable_node */
  /* 9 */ {8, "#text", "Refresh", {NULL}},
  /* 10 */ {2, "A", NULL, {"href", "/next", NULL}},
  /* 11 */ {10, "#text", "Next", {NULL}},
};

static int has_source(const pg_element *e, pg_source s) { return (e->sources >> s) & 1u; }

Test(graph_facts, semantic_sources_say_what_decided) {
  clickable_node = 8;
  built b = build(sources_page, sizeof sources_page / sizeof *sources_page, ORIGIN "/app/", NULL);
  clickable_node = 0;
  static const struct { int node; const char *role; int native, aria, inferred; } want[] = {
    {3, "button", 1, 0, 0}, {5, "button", 0, 1, 0}, {7, "switch", 1, 1, 0}, {8, "generic", 1, 0, 1}, {10, "link", 1, 0, 0},
  };
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    const pg_element *e = node_el(&b, want[i].node);
    cr_expect_str_eq(e->role, want[i].role, "node %d", want[i].node);
    cr_expect_eq(has_source(e, PG_SRC_NATIVE), want[i].native, "node %d (%s): native-html", want[i].node, e->role);
    cr_expect_eq(has_source(e, PG_SRC_ARIA), want[i].aria, "node %d (%s): aria", want[i].node, e->role);
    cr_expect_eq(has_source(e, PG_SRC_INFERRED), want[i].inferred, "node %d (%s): inferred", want[i].node, e->role);
  }
  release(&b);
}

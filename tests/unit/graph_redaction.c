/* graph_redaction.c -- what pg_build withholds, and what it tells the
 * crawler about it so that the crawler's own outputs withhold it too:
 *  - names and descriptions Chromium computed from a data-uiap-sensitive
 *    subtree (aria-labelledby, aria-describedby, <label for>, a sensitive
 *    button's own text), with and without the accessibility tree;
 *  - a field that was a password stays one after the page made it
 *    type=text: by node id, and by key after a reload;
 *  - the values it redacted (pg_graph.secrets) and the boxes a screenshot
 *    must not show (pg_graph.masks: sensitive elements, closed shadow
 *    roots, frames of other sites, same-origin frames at their offset);
 *  - one list of rules for the graph and the page scripts
 *    (pg_attrs_sensitive, PG_SENSITIVE_SELECTOR).
 * Pages are small DOMSnapshot replies written as node tables, with the AX
 * nodes Chromium would report for them where names matter. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_int.h"

#define ORIGIN "http://127.0.0.1:8931"
#define MAXN 64

/* One node: parent is an index into the same document's table (0 is the
 * document node itself, made by the builder). tag "#text" is a text node
 * holding text; for fields text is the inputValue. box: x, y, w, h in the
 * document (all 0: a default box, w < 0: no box). shadow: "open",
 * "closed" or NULL (the tree the node is in). frame: for an IFRAME, the
 * index of the document it shows (0: none). */
typedef struct {
  int parent;
  const char *tag;
  const char *text;
  const char *attrs[12];
  double box[4];
  const char *shadow;
  int frame;
} tnode;

typedef struct {
  const char *url;
  const tnode *nodes;
  int n;
  int backend_base; /* backendNodeIds: base + index */
} tdoc;

typedef struct { cJSON *strings; int n; } interner;

static int intern(interner *in, const char *s) {
  for (int i = 0; i < in->n; i++)
    if (!strcmp(cJSON_GetArrayItem(in->strings, i)->valuestring, s)) return i;
  cJSON_AddItemToArray(in->strings, cJSON_CreateString(s));
  return in->n++;
}

static cJSON *ints(const int *v, int n) { return cJSON_CreateIntArray(v, n); }

static cJSON *sparse_json(const int *idx, const int *val, int n) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddItemToObject(o, "index", ints(idx, n));
  if (val) cJSON_AddItemToObject(o, "value", ints(val, n));
  return o;
}

static cJSON *doc_json(interner *in, const tdoc *td, int di) {
  int n = td->n;
  cr_assert_lt(n + 1, MAXN);
  int parent[MAXN], type[MAXN], name[MAXN], value[MAXN], backend[MAXN];
  int vidx[MAXN], vval[MAXN], nv = 0, sidx[MAXN], sval[MAXN], ns = 0, cidx[MAXN], cval[MAXN], nc = 0;
  cJSON *attrs = cJSON_CreateArray();
  parent[0] = -1, type[0] = 9, name[0] = intern(in, "#document"), value[0] = -1, backend[0] = td->backend_base;
  cJSON_AddItemToArray(attrs, cJSON_CreateArray());
  for (int i = 1; i <= n; i++) {
    const tnode *t = &td->nodes[i - 1];
    int text = !strcmp(t->tag, "#text");
    parent[i] = t->parent, type[i] = text ? 3 : 1, name[i] = intern(in, t->tag);
    value[i] = text ? intern(in, t->text) : -1;
    backend[i] = td->backend_base + i;
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; !text && t->attrs[k]; k += 2) {
      cJSON_AddItemToArray(a, cJSON_CreateNumber(intern(in, t->attrs[k])));
      cJSON_AddItemToArray(a, cJSON_CreateNumber(intern(in, t->attrs[k + 1])));
    }
    cJSON_AddItemToArray(attrs, a);
    if (!text && t->text) vidx[nv] = i, vval[nv++] = intern(in, t->text);
    if (t->shadow) sidx[ns] = i, sval[ns++] = intern(in, t->shadow);
    if (t->frame) cidx[nc] = i, cval[nc++] = t->frame;
  }
  cJSON *nodes = cJSON_CreateObject();
  cJSON_AddItemToObject(nodes, "parentIndex", ints(parent, n + 1));
  cJSON_AddItemToObject(nodes, "nodeType", ints(type, n + 1));
  cJSON_AddItemToObject(nodes, "nodeName", ints(name, n + 1));
  cJSON_AddItemToObject(nodes, "nodeValue", ints(value, n + 1));
  cJSON_AddItemToObject(nodes, "backendNodeId", ints(backend, n + 1));
  cJSON_AddItemToObject(nodes, "attributes", attrs);
  cJSON_AddItemToObject(nodes, "inputValue", sparse_json(vidx, vval, nv));
  cJSON_AddItemToObject(nodes, "shadowRootType", sparse_json(sidx, sval, ns));
  cJSON_AddItemToObject(nodes, "contentDocumentIndex", sparse_json(cidx, cval, nc));
  cJSON *ni = cJSON_CreateArray(), *styles = cJSON_CreateArray(), *bounds = cJSON_CreateArray();
  int st[4] = {intern(in, "block"), intern(in, "visible"), intern(in, "1"), intern(in, "auto")};
  for (int i = 1; i <= n; i++) {
    const double *bx = td->nodes[i - 1].box;
    if (bx[2] < 0) continue;
    double b[4] = {10, 10 + 20.0 * i, 300, 18};
    if (bx[2] > 0) memcpy(b, bx, sizeof b);
    cJSON_AddItemToArray(ni, cJSON_CreateNumber(i));
    cJSON_AddItemToArray(styles, ints(st, 4));
    cJSON_AddItemToArray(bounds, cJSON_CreateDoubleArray(b, 4));
  }
  cJSON *layout = cJSON_CreateObject();
  cJSON_AddItemToObject(layout, "nodeIndex", ni);
  cJSON_AddItemToObject(layout, "styles", styles);
  cJSON_AddItemToObject(layout, "bounds", bounds);
  cJSON *doc = cJSON_CreateObject();
  char fid[40];
  snprintf(fid, sizeof fid, "F%031d", di + 1);
  cJSON_AddNumberToObject(doc, "documentURL", intern(in, td->url));
  cJSON_AddNumberToObject(doc, "baseURL", intern(in, td->url));
  cJSON_AddNumberToObject(doc, "title", intern(in, "redaction"));
  cJSON_AddNumberToObject(doc, "frameId", intern(in, fid));
  cJSON_AddItemToObject(doc, "nodes", nodes);
  cJSON_AddItemToObject(doc, "layout", layout);
  return doc;
}

static char *snapshot_json(const tdoc *docs, int ndocs) {
  interner in = {cJSON_CreateArray(), 0};
  cJSON *arr = cJSON_CreateArray();
  for (int d = 0; d < ndocs; d++) cJSON_AddItemToArray(arr, doc_json(&in, &docs[d], d));
  cJSON *res = cJSON_CreateObject();
  cJSON_AddItemToObject(res, "documents", arr);
  cJSON_AddItemToObject(res, "strings", in.strings);
  char *text = cJSON_PrintUnformatted(res);
  cJSON_Delete(res);
  return text;
}

/* ---- accessibility nodes ------------------------------------------------------ */
/* An AX node as Chromium reports it: role, name and the source that won
 * ("contents", "attribute" aria-label, "relatedElement" with attribute
 * aria-labelledby, or a native label: attribute NULL), description. */
typedef struct {
  int backend;
  const char *role, *name, *src, *src_attr, *description;
} tax;

static cJSON *ax_json(const tax *v, int n) {
  cJSON *res = cJSON_CreateObject(), *nodes = cJSON_AddArrayToObject(res, "nodes");
  for (int i = 0; i < n; i++) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "backendDOMNodeId", v[i].backend);
    cJSON *role = cJSON_AddObjectToObject(o, "role");
    cJSON_AddStringToObject(role, "type", "role");
    cJSON_AddStringToObject(role, "value", v[i].role);
    if (v[i].name) {
      cJSON *nm = cJSON_AddObjectToObject(o, "name");
      cJSON_AddStringToObject(nm, "type", "computedString");
      cJSON_AddStringToObject(nm, "value", v[i].name);
      cJSON *srcs = cJSON_AddArrayToObject(nm, "sources"), *s = cJSON_CreateObject();
      cJSON_AddStringToObject(s, "type", v[i].src);
      if (v[i].src_attr) cJSON_AddStringToObject(s, "attribute", v[i].src_attr);
      if (!strcmp(v[i].src, "relatedElement") && !v[i].src_attr) cJSON_AddStringToObject(s, "nativeSource", "labelfor");
      cJSON *sv = cJSON_AddObjectToObject(s, "value");
      cJSON_AddStringToObject(sv, "type", "computedString");
      cJSON_AddStringToObject(sv, "value", v[i].name);
      cJSON_AddItemToArray(srcs, s);
    }
    if (v[i].description) {
      cJSON *d = cJSON_AddObjectToObject(o, "description");
      cJSON_AddStringToObject(d, "type", "computedString");
      cJSON_AddStringToObject(d, "value", v[i].description);
    }
    cJSON_AddItemToArray(nodes, o);
  }
  return res;
}

/* ---- building ----------------------------------------------------------------- */
typedef struct { pg_snapshot *snap; cJSON *ax; pg_graph *g; } built;

static built build_with(const tdoc *docs, int ndocs, const tax *ax, int nax, const pg_input *extra,
                        const pg_options *opts) {
  char *text = snapshot_json(docs, ndocs);
  built b = {0};
  cr_assert_eq(pg_snapshot_parse(text, strlen(text), &b.snap), PG_OK);
  free(text);
  pg_input in = extra ? *extra : (pg_input){0};
  in.snapshot = b.snap;
  const cJSON *axs[1];
  if (ax) {
    b.ax = ax_json(ax, nax);
    axs[0] = b.ax;
    in.ax = axs;
    in.nax = 1;
  }
  pg_options o = opts ? *opts : (pg_options){0};
  o.revision = 1;
  cr_assert_eq(pg_build(&in, &o, &b.g), PG_OK);
  return b;
}

static built build(const tnode *page, int n, const tax *ax, int nax, const pg_input *extra, const pg_options *opts) {
  const tdoc d = {ORIGIN "/page", page, n, 100};
  return build_with(&d, 1, ax, nax, extra, opts);
}

static void release(built *b) {
  pg_graph_free(b->g);
  pg_snapshot_free(b->snap);
  cJSON_Delete(b->ax);
}

static char *published(const built *b) {
  cJSON *j = pg_graph_to_json(b->g);
  char *text = cJSON_PrintUnformatted(j);
  cJSON_Delete(j);
  return text;
}

/* The element of top-document node i (backendNodeId 100 + i), or NULL. */
static const pg_element *node_el(const built *b, int i) {
  for (size_t k = 0; k < b->g->nelements; k++)
    if (b->g->elements[k].backend_node_id == 100 + i) return &b->g->elements[k];
  return NULL;
}

#define HTML {0, "HTML", NULL, {NULL}, {0}, NULL, 0}, {1, "BODY", NULL, {NULL}, {0}, NULL, 0}
#define T(parent, text) {parent, "#text", text, {NULL}, {0}, NULL, 0}

/* ---- names and descriptions from sensitive subtrees --------------------------- */
static const tnode account[] = {
  HTML,
  /* 3 */ {2, "DIV", NULL, {"data-uiap-sensitive", "", NULL}, {0}, NULL, 0},
  /* 4 */ {3, "SPAN", NULL, {"id", "acct", NULL}, {0}, NULL, 0},
  /* 5 */ T(4, "ACCT-9911-SECRET"),
  /* 6 */ {3, "LABEL", NULL, {"for", "iban", NULL}, {0}, NULL, 0},
  /* 7 */ T(6, "IBAN-LABEL-SECRET"),
  /* 8 */ {2, "INPUT", NULL, {"id", "iban", NULL}, {0}, NULL, 0},
  /* 9 */ {2, "BUTTON", NULL, {"aria-labelledby", "acct", "aria-expanded", "false", NULL}, {0}, NULL, 0},
  /* 10 */ T(9, "Account"),
  /* 11 */ {2, "BUTTON", NULL, {"aria-describedby", "acct", "aria-expanded", "false", NULL}, {0}, NULL, 0},
  /* 12 */ T(11, "More"),
  /* 13 */ {2, "BUTTON", NULL, {"data-uiap-sensitive", "", "aria-expanded", "false", NULL}, {0}, NULL, 0},
  /* 14 */ T(13, "BTN-NAME-SECRET"),
  /* 15 */ {2, "BUTTON", NULL, {"data-uiap-sensitive", "", "aria-label", "Reveal", NULL}, {0}, NULL, 0},
  /* 16 */ T(15, "BTN2-TEXT-SECRET"),
  /* 17 */ {2, "LABEL", NULL, {"for", "pw", NULL}, {0}, NULL, 0},
  /* 18 */ T(17, "Password"),
  /* 19 */ {2, "INPUT", "PW2-SECRET-value", {"type", "password", "id", "pw", NULL}, {0}, NULL, 0},
};
#define N_ACCOUNT (int)(sizeof account / sizeof *account)

/* What Chromium says: every name computed over the sensitive text. */
static const tax account_ax[] = {
  {108, "textbox", "IBAN-LABEL-SECRET", "relatedElement", NULL, NULL},
  {109, "button", "ACCT-9911-SECRET", "relatedElement", "aria-labelledby", NULL},
  {111, "button", "More", "contents", NULL, "ACCT-9911-SECRET"},
  {113, "button", "BTN-NAME-SECRET", "contents", NULL, NULL},
  {115, "button", "Reveal", "attribute", "aria-label", NULL},
  {119, "textbox", "Password", "relatedElement", NULL, NULL},
};

static void expect_account_clean(const built *b, const char *how) {
  static const char *const secrets[] = {"ACCT-9911-SECRET", "IBAN-LABEL-SECRET", "BTN-NAME-SECRET", "BTN2-TEXT-SECRET",
                                        "PW2-SECRET-value"};
  char *json = published(b);
  for (size_t k = 0; k < sizeof secrets / sizeof *secrets; k++)
    cr_expect_null(strstr(json, secrets[k]), "%s: the graph publishes %s", how, secrets[k]);
  free(json);
  /* what is not sensitive keeps its name */
  const pg_element *more = node_el(b, 11), *pw = node_el(b, 19), *reveal = node_el(b, 15);
  cr_assert(more && pw && reveal, "%s: the buttons and the password field are published", how);
  cr_expect_str_eq(more->name ? more->name : "(none)", "More", "%s", how);
  cr_expect_str_eq(pw->name ? pw->name : "(none)", "Password", "%s", how);
  cr_expect_str_eq(reveal->name ? reveal->name : "(none)", "Reveal", "%s: an author's aria-label stays", how);
  cr_expect(pw->redacted && !strcmp(pw->text_value, PG_REDACTED), "%s: the password is masked", how);
}

Test(graph_redaction, names_from_sensitive_subtrees) {
  built b = build(account, N_ACCOUNT, account_ax, sizeof account_ax / sizeof *account_ax, NULL, NULL);
  expect_account_clean(&b, "with the AX tree");
  cr_expect_geq(b.g->redactions, 4, "the names and the description count as redactions (%d)", b.g->redactions);
  release(&b);
  b = build(account, N_ACCOUNT, NULL, 0, NULL, NULL);
  expect_account_clean(&b, "without the AX tree");
  release(&b);
}

/* ---- a password stays a password ------------------------------------------------ */
static const tnode login[] = {
  HTML,
  /* 3 */ {2, "FORM", NULL, {"id", "signin", NULL}, {0}, NULL, 0},
  /* 4 */ {3, "INPUT", "hunter2-SECRET-pw", {"type", "password", "id", "pw", "aria-label", "Password", NULL}, {0}, NULL, 0},
  /* 5 */ {3, "INPUT", "ada", {"type", "text", "id", "user", "aria-label", "User", NULL}, {0}, NULL, 0},
};
/* the same page after "Show": the field is type=text now */
static const tnode revealed[] = {
  HTML,
  /* 3 */ {2, "FORM", NULL, {"id", "signin", NULL}, {0}, NULL, 0},
  /* 4 */ {3, "INPUT", "hunter2-SECRET-pw", {"type", "text", "id", "pw", "aria-label", "Password", NULL}, {0}, NULL, 0},
  /* 5 */ {3, "INPUT", "ada", {"type", "text", "id", "user", "aria-label", "User", NULL}, {0}, NULL, 0},
};

static int shows(const built *b, const char *s) {
  char *json = published(b);
  int found = strstr(json, s) != NULL;
  free(json);
  return found;
}

Test(graph_redaction, revealed_password_stays_secret) {
  built first = build(login, 5, NULL, 0, NULL, NULL);
  pg_graph *g = first.g;
  cr_assert_eq(g->nsensitive_fields, 1, "one sensitive field (%zu)", g->nsensitive_fields);
  cr_expect_eq(g->sensitive_fields[0].backend_node_id, 104);
  cr_assert(g->sensitive_fields[0].key);
  cr_expect_str_eq(g->sensitive_fields[0].key, ORIGIN "/page|form id=signin|id=pw");
  cr_assert_eq(g->nsecrets, 1, "its value is a secret (%zu)", g->nsecrets);
  cr_expect_str_eq(g->secrets[0], "hunter2-SECRET-pw");
  cr_expect(!shows(&first, "hunter2-SECRET-pw"));
  cr_expect(!g->sensitive_fields[0].revealed, "a password field that is still one is not \"revealed\"");

  /* without memory the revealed value is published: what the memory is for */
  built bare = build(revealed, 5, NULL, 0, NULL, NULL);
  cr_expect(shows(&bare, "hunter2-SECRET-pw"), "a type=text field is published when nothing is remembered");
  release(&bare);

  /* the same node */
  const int nodes[] = {104};
  pg_input by_node = {.known_sensitive_nodes = nodes, .nknown_sensitive_nodes = 1};
  built again = build(revealed, 5, NULL, 0, &by_node, NULL);
  cr_expect(!shows(&again, "hunter2-SECRET-pw"), "remembered by node id");
  const pg_element *pw = node_el(&again, 4), *user = node_el(&again, 5);
  cr_assert(pw && user);
  cr_expect(pw->sensitive && pw->redacted);
  cr_expect(!user->sensitive && !user->redacted, "the other field is not touched");
  cr_expect_str_eq(pw->name, "Password");
  cr_assert_eq(again.g->nsensitive_fields, 1);
  cr_expect(again.g->sensitive_fields[0].revealed, "kept secret by memory only: revealed (for the review item)");
  release(&again);

  /* a reload: new node ids, the same key */
  const char *keys[] = {g->sensitive_fields[0].key};
  pg_input by_key = {.known_sensitive_keys = keys, .nknown_sensitive_keys = 1};
  const tdoc reloaded = {ORIGIN "/page?x=1", revealed, 5, 500};
  built fresh = build_with(&reloaded, 1, NULL, 0, &by_key, NULL);
  cr_expect(!shows(&fresh, "hunter2-SECRET-pw"), "remembered by key after a reload");
  cr_expect_eq(fresh.g->nsensitive_fields, 1);
  release(&fresh);
  /* a key of another form does not match */
  const char *other[] = {ORIGIN "/page|form id=other|id=pw"};
  pg_input by_other = {.known_sensitive_keys = other, .nknown_sensitive_keys = 1};
  built miss = build_with(&reloaded, 1, NULL, 0, &by_other, NULL);
  cr_expect(shows(&miss, "hunter2-SECRET-pw"), "another form's key is another field");
  release(&miss);
  release(&first);
}

/* ---- masks ------------------------------------------------------------------------- */
/* Top document: a sensitive block with text overflowing it, a card number,
 * a closed shadow host, a frame of another site (out of process), a
 * same-origin frame scrolled into place with a password in it, and an
 * ordinary button that stays visible. */
static const tnode screens[] = {
  HTML,
  /* 3 */ {2, "DIV", NULL, {"data-uiap-sensitive", "", NULL}, {10, 10, 300, 100}, NULL, 0},
  /* 4 */ {3, "#text", "SECRET", {NULL}, {10, 90, 500, 40}, NULL, 0}, /* wider than its block */
  /* 5 */ {2, "INPUT", "4111 1111 1111 1111", {"autocomplete", "CC-Number", "aria-label", "Card", NULL},
           {10, 120, 560, 50}, NULL, 0},
  /* 6 */ {2, "DIV", NULL, {"id", "closed", NULL}, {600, 10, 300, 160}, NULL, 0},
  /* 7 */ {6, "DIV", NULL, {NULL}, {600, 10, 300, 185}, "closed", 0}, /* taller than its host */
  /* 8 */ {2, "IFRAME", NULL, {"src", "http://localhost:9/blue.html", NULL}, {10, 200, 300, 150}, NULL, 0},
  /* 9 */ {2, "IFRAME", NULL, {"src", ORIGIN "/inner.html", NULL}, {400, 200, 300, 150}, NULL, 1},
  /* 10 */ {2, "BUTTON", NULL, {"aria-expanded", "false", NULL}, {10, 400, 100, 30}, NULL, 0},
  /* 11 */ T(10, "Details"),
};

static const tnode inner[] = {
  HTML,
  /* 3 */ {2, "INPUT", "inner-SECRET-pw", {"type", "password", "aria-label", "Inner", NULL}, {20, 30, 100, 20}, NULL, 0},
};

static int covered(const pg_graph *g, double x, double y) {
  for (size_t k = 0; k < g->nmasks; k++) {
    const pg_rect *r = &g->masks[k];
    if (x >= r->x && x < r->x + r->w && y >= r->y && y < r->y + r->h) return 1;
  }
  return 0;
}

Test(graph_redaction, masks_cover_what_the_graph_withholds) {
  const tdoc docs[] = {{ORIGIN "/screens.html", screens, sizeof screens / sizeof *screens, 100},
                       {ORIGIN "/inner.html", inner, sizeof inner / sizeof *inner, 300}};
  const pg_frame_info frames[] = {{.frame_id = "OOPIF1", .oopif = 1, .owner_backend_node_id = 108}};
  pg_input in = {.frames = frames, .nframes = 1};
  built b = build_with(docs, 2, NULL, 0, &in, NULL);
  const pg_graph *g = b.g;
  cr_expect(!g->mask_overflow);
  static const struct { double x, y; const char *what; } hidden[] = {
    {12, 12, "the sensitive block's corner"},       {309, 109, "its far corner"},
    {450, 100, "its text, out of the block"},       {15, 125, "the card number"},
    {569, 169, "the card field's far corner"},      {605, 15, "the closed shadow root"},
    {899, 169, "the closed host's far corner"},     {605, 190, "the closed root below its host"},     {15, 205, "the frame of another site"},
    {309, 349, "its far corner"},                   {400 + 20 + 5, 200 + 30 + 5, "the password in the same-origin frame"},
  };
  for (size_t k = 0; k < sizeof hidden / sizeof *hidden; k++)
    cr_expect(covered(g, hidden[k].x, hidden[k].y), "(%g, %g), %s, is masked", hidden[k].x, hidden[k].y, hidden[k].what);
  static const struct { double x, y; const char *what; } shown[] = {
    {15, 405, "the Details button"}, {405, 205, "the same-origin frame around the password"},
    {650, 300, "the same-origin frame's other corner"}, {1000, 50, "the page beside it all"},
  };
  for (size_t k = 0; k < sizeof shown / sizeof *shown; k++)
    cr_expect(!covered(g, shown[k].x, shown[k].y), "(%g, %g), %s, is not masked", shown[k].x, shown[k].y, shown[k].what);
  /* the values are secrets of the capture */
  int card = 0, inner_pw = 0;
  for (size_t k = 0; k < g->nsecrets; k++) {
    card |= !strcmp(g->secrets[k], "4111 1111 1111 1111");
    inner_pw |= !strcmp(g->secrets[k], "inner-SECRET-pw");
  }
  cr_expect(card && inner_pw, "the card number and the frame's password are secrets (%zu)", g->nsecrets);
  release(&b);
}

/* A frame inside a sensitive container is sensitive all through. */
static const tnode wrapped[] = {
  HTML,
  /* 3 */ {2, "DIV", NULL, {"data-uiap-sensitive", "", NULL}, {0, 0, 400, 300}, NULL, 0},
  /* 4 */ {3, "IFRAME", NULL, {"src", ORIGIN "/inner2.html", NULL}, {0, 0, 400, 300}, NULL, 1},
};
static const tnode inner2[] = {
  HTML,
  /* 3 */ {2, "BUTTON", NULL, {"aria-expanded", "false", NULL}, {5, 5, 100, 20}, NULL, 0},
  /* 4 */ T(3, "FRAME-TEXT-SECRET"),
};

Test(graph_redaction, frame_in_a_sensitive_container) {
  const tdoc docs[] = {{ORIGIN "/w.html", wrapped, 4, 100}, {ORIGIN "/inner2.html", inner2, 4, 300}};
  built b = build_with(docs, 2, NULL, 0, NULL, NULL);
  cr_expect(!shows(&b, "FRAME-TEXT-SECRET"));
  cr_expect(covered(b.g, 10, 10));
  release(&b);
}

/* ---- one list of rules ----------------------------------------------------------- */
Test(graph_redaction, one_list_of_rules) {
  static const struct { const char *type, *sens, *ac; int want; } cs[] = {
    {"password", NULL, NULL, 1}, {"PassWord", NULL, NULL, 1},     {"text", NULL, NULL, 0},
    {NULL, "", NULL, 1},         {NULL, "true", NULL, 1},         {NULL, "false", NULL, 0},
    {NULL, NULL, "CC-NUMBER", 1}, {NULL, NULL, "One-Time-Code", 1}, {NULL, NULL, "billing cc-exp", 1},
    {NULL, NULL, "email", 0},    {NULL, NULL, "occ-number", 0},   {NULL, NULL, NULL, 0},
  };
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++)
    cr_expect_eq(pg_attrs_sensitive(cs[i].type, cs[i].sens, cs[i].ac), cs[i].want, "type %s, sensitive %s, autocomplete %s",
                 cs[i].type ? cs[i].type : "-", cs[i].sens ? cs[i].sens : "-", cs[i].ac ? cs[i].ac : "-");
  /* the page scripts' selector: every token, with the operator its kind
   * needs (a prefix token as a substring, a whole token as a token) */
  const char *sel = PG_SENSITIVE_SELECTOR;
#define CHECK_TOKEN(tok, op)                                                                        \
  do {                                                                                              \
    size_t tl = strlen(tok);                                                                        \
    cr_expect_str_eq(op, tok[tl - 1] == '-' ? "*=" : "~=", "the operator for %s", tok);             \
    cr_expect(strstr(sel, "[autocomplete" op "\"" tok "\" i]"), "the selector finds %s: %s", tok, sel); \
    cr_expect(pg_autocomplete_sensitive(tok[tl - 1] == '-' ? tok "x" : tok), "the graph reads %s", tok); \
  } while (0);
  PG_SENSITIVE_TOKENS(CHECK_TOKEN)
#undef CHECK_TOKEN
  cr_expect(!strchr(sel, '\'') && !strchr(sel, '\\'), "the selector fits a single-quoted JavaScript literal");
  cr_expect(strstr(sel, "[type=password i]"));
  cr_expect(strstr(sel, "[data-uiap-sensitive]:not([data-uiap-sensitive=false])"));
}

/* ---- the accessibility record (pg_ax_record) ------------------------------------- */
/* The AX nodes of `revealed` as Chromium gives them after "Show": the
 * password field is type=text, so its value is there in plain text; plus a
 * node the graph does not publish (a closed shadow tree's button). */
static cJSON *revealed_ax(void) {
  static const tax v[] = {{104, "textbox", "Password", "attribute", "aria-label", NULL},
                          {105, "textbox", "User", "attribute", "aria-label", NULL},
                          {107, "button", "Inside-closed-SECRET", "contents", NULL, NULL}};
  cJSON *ax = ax_json(v, 3), *n;
  const char *values[] = {"hunter2-SECRET-pw", "ada", NULL};
  int i = 0;
  cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(ax, "nodes")) {
    if (i < 2) {
      cJSON *val = cJSON_AddObjectToObject(n, "value");
      cJSON_AddStringToObject(val, "type", "string");
      cJSON_AddStringToObject(val, "value", values[i]);
    }
    cJSON *props = cJSON_AddArrayToObject(n, "properties"), *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "name", "focusable");
    cJSON *pv = cJSON_AddObjectToObject(p, "value");
    cJSON_AddStringToObject(pv, "type", "booleanOrUndefined");
    cJSON_AddBoolToObject(pv, "value", 1);
    cJSON_AddItemToArray(props, p);
    cJSON *u = cJSON_CreateObject();
    cJSON_AddStringToObject(u, "name", "url");
    cJSON *uv = cJSON_AddObjectToObject(u, "value");
    cJSON_AddStringToObject(uv, "type", "string");
    cJSON_AddStringToObject(uv, "value", "http://x.test/?pw=hunter2-SECRET-pw");
    cJSON_AddItemToArray(props, u);
    i++;
  }
  return ax;
}

static const tnode revealed_closed[] = {
  HTML,
  /* 3 */ {2, "FORM", NULL, {"id", "signin", NULL}, {0}, NULL, 0},
  /* 4 */ {3, "INPUT", "hunter2-SECRET-pw", {"type", "text", "id", "pw", "aria-label", "Password", NULL}, {0}, NULL, 0},
  /* 5 */ {3, "INPUT", "ada", {"type", "text", "id", "user", "aria-label", "User", NULL}, {0}, NULL, 0},
  /* 6 */ {2, "DIV", NULL, {NULL}, {0}, NULL, 0},
  /* 7 */ {6, "BUTTON", NULL, {NULL}, {0}, "closed", 0},
  /* 8 */ T(7, "Inside-closed-SECRET"),
};

Test(graph_redaction, ax_record_holds_only_what_the_graph_publishes) {
  char *text = snapshot_json(&(tdoc){ORIGIN "/page", revealed_closed, 8, 100}, 1);
  pg_snapshot *snap = NULL;
  cr_assert_eq(pg_snapshot_parse(text, strlen(text), &snap), PG_OK);
  free(text);
  cJSON *ax = revealed_ax();
  const cJSON *axs[1] = {ax};
  const int nodes[] = {104}; /* an earlier capture saw a password here */
  pg_input in = {.snapshot = snap, .ax = axs, .nax = 1, .known_sensitive_nodes = nodes, .nknown_sensitive_nodes = 1};
  pg_graph *g = NULL;
  cr_assert_eq(pg_build(&in, &(pg_options){.revision = 1}, &g), PG_OK);
  cJSON *rec = pg_ax_record(g, &in);
  cr_assert(rec);
  char *out = cJSON_PrintUnformatted(rec);
  cr_expect_null(strstr(out, "hunter2-SECRET-pw"), "the revealed password is not in the record: %s", out);
  cr_expect_null(strstr(out, "Inside-closed-SECRET"), "nothing of a closed shadow tree: %s", out);
  cr_expect_null(strstr(out, "\"url\""), "no link URLs");
  cr_expect(strstr(out, "\"ada\""), "a plain field's value is an AX fact kept: %s", out);
  cr_expect(strstr(out, "\"Password\"") && strstr(out, "\"focusable\""), "names and states stay: %s", out);
  const cJSON *n, *list = cJSON_GetObjectItemCaseSensitive(rec, "nodes");
  int pw = 0;
  cJSON_ArrayForEach(n, list) {
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(n, "instanceId"));
    cr_expect(id && !strncmp(id, "el_", 3), "each node names its element");
    if (cJSON_GetObjectItemCaseSensitive(n, "backendDOMNodeId")->valueint == 104) {
      pw = 1;
      const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(n, "value"), "value");
      cr_expect_str_eq(cJSON_GetStringValue(v), PG_REDACTED);
    }
  }
  cr_expect(pw, "the password field's node is there, its value masked");
  cr_expect_eq(cJSON_GetObjectItemCaseSensitive(rec, "elementsWithAccessibility")->valueint, cJSON_GetArraySize(list));
  /* in two steps (the crawler's way): the same record, the nodes moved */
  int before = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ax, "nodes"));
  pg_ax_retain(g, &in);
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ax, "nodes")), before - cJSON_GetArraySize(list),
               "the published elements' nodes moved into the graph");
  cJSON *again = pg_ax_record_of(g);
  char *out2 = cJSON_PrintUnformatted(again);
  cr_expect_str_eq(out2, out, "pg_ax_record_of gives what pg_ax_record gave");
  pg_ax_retain(g, &in); /* a second retain does nothing */
  cr_expect_eq(cJSON_GetArraySize(g->ax_nodes), cJSON_GetArraySize(list));
  free(out2);
  cJSON_Delete(again);
  free(out);
  cJSON_Delete(rec);
  pg_graph_free(g); /* frees the retained nodes */
  cJSON_Delete(ax);
  pg_snapshot_free(snap);
}

/* ---- personal data (--redact pii) ------------------------------------------------------ */
static const tnode contacts[] = {
  HTML,
  /* 3 */ {2, "TABLE", NULL, {NULL}, {0}, NULL, 0},
  /* 4 */ {3, "THEAD", NULL, {NULL}, {0}, NULL, 0},
  /* 5 */ {4, "TR", NULL, {NULL}, {0}, NULL, 0},
  /* 6 */ {5, "TH", NULL, {NULL}, {0}, NULL, 0},
  /* 7 */ T(6, "Name"),
  /* 8 */ {5, "TH", NULL, {NULL}, {0}, NULL, 0},
  /* 9 */ T(8, "Contact"),
  /* 10 */ {3, "TBODY", NULL, {NULL}, {0}, NULL, 0},
  /* 11 */ {10, "TR", NULL, {NULL}, {0}, NULL, 0},
  /* 12 */ {11, "TD", NULL, {NULL}, {0}, NULL, 0},
  /* 13 */ {12, "A", NULL, {"href", "/c/1", NULL}, {0}, NULL, 0},
  /* 14 */ T(13, "Ingrid Bergstrom"),
  /* 15 */ {11, "TD", NULL, {NULL}, {0}, NULL, 0},
  /* 16 */ {15, "A", NULL, {"href", "mailto:ingrid.b@example.org", NULL}, {0}, NULL, 0},
  /* 17 */ T(16, "ingrid.b@example.org"),
  /* 18 */ {2, "FORM", NULL, {"id", "edit", NULL}, {0}, NULL, 0},
  /* 19 */ {18, "INPUT", "Tomasz Wielki", {"type", "text", "name", "full_name", "aria-label", "Full name", NULL}, {0}, NULL, 0},
  /* 20 */ {18, "INPUT", "+48 22 555 01 99", {"type", "tel", "aria-label", "Mobile", NULL}, {0}, NULL, 0},
  /* 21 */ {18, "INPUT", "t.wielki@example.net", {"type", "email", "aria-label", "Mail", NULL}, {0}, NULL, 0},
  /* 22 */ {18, "INPUT", "Quarterly report", {"type", "text", "name", "subject", "aria-label", "Subject", NULL}, {0}, NULL, 0},
  /* 23 */ {2, "BUTTON", NULL, {NULL}, {0}, NULL, 0},
  /* 24 */ T(23, "Call Tomasz Wielki at +48 22 555 01 99"),
};

Test(graph_redaction, pii_masked_when_asked) {
  static const char *const personal[] = {"Ingrid Bergstrom", "ingrid.b@example.org", "Tomasz Wielki",
                                         "+48 22 555 01 99", "t.wielki@example.net"};
  built plain = build(contacts, 24, NULL, 0, NULL, NULL);
  char *json = published(&plain);
  for (size_t k = 0; k < sizeof personal / sizeof *personal; k++)
    cr_expect(strstr(json, personal[k]), "without --redact pii the graph shows %s", personal[k]);
  free(json);
  cr_expect_eq(plain.g->npii, 0);
  size_t masks0 = plain.g->nmasks;
  release(&plain);

  built b = build(contacts, 24, NULL, 0, NULL, &(pg_options){.redact_pii = 1});
  json = published(&b);
  for (size_t k = 0; k < sizeof personal / sizeof *personal; k++)
    cr_expect_null(strstr(json, personal[k]), "%s is masked: %s", personal[k], json);
  cr_expect(strstr(json, "Quarterly report"), "a subject is not personal data");
  const pg_element *name = node_el(&b, 19), *tel = node_el(&b, 20), *mail = node_el(&b, 21), *link = node_el(&b, 13),
                   *call = node_el(&b, 23);
  cr_assert(name && tel && mail && link && call);
  cr_expect_str_eq(name->text_value, "[name]");
  cr_expect_str_eq(tel->text_value, "[phone]");
  cr_expect_str_eq(mail->text_value, "[email]");
  cr_expect(name->redacted && tel->redacted && mail->redacted);
  cr_expect_str_eq(link->name, "[name]", "a name column's cell");
  cr_expect_str_eq(call->name, "Call [name] at [phone]", "a value found in a field is masked in other texts");
  cr_expect_eq(b.g->npii, 4, "the values masked, for the crawler's filter (%zu)", b.g->npii);
  cr_expect_gt(b.g->nmasks, masks0, "the masked elements' boxes are masked in screenshots");
  free(json);
  release(&b);
}

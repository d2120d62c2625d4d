/* pg.h -- the PageGraph: a reduced semantic graph of one UI state (UIAP Web
 * Profile 0.1), built from recorded CDP replies, serialised to JSON.
 *
 * graph/ does not talk to the browser: the crawler captures the replies
 * (DOMSnapshot, accessibility tree, frame tree, page facts) and hands them to
 * pg_build(). That keeps the builder pure, testable on recorded replies, and
 * fuzzable.
 *
 * Ownership: a pg_graph owns every string and array it points to (one arena).
 * pg_graph_free releases all of it. cJSON results of pg_graph_to_json belong
 * to the caller.
 */
#ifndef UIAP_PG_H
#define UIAP_PG_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "crawl_base.h" /* crawl__intmap (pg_graph.parent_of) */

#include "pg_url.h" /* the URL module: resolution, normalisation, origins */

#define PG_ERRNO_MAP(X)                              \
  X(OK,     "ok")                                    \
  X(NOMEM,  "out of memory")                         \
  X(INPUT,  "malformed capture input")               \
  X(EMPTY,  "the capture holds no document")

typedef enum {
#define PG__ENUM(name, msg) PG_##name,
  PG_ERRNO_MAP(PG__ENUM)
#undef PG__ENUM
  PG__ECOUNT
} pg_code;
const char *pg_strerror(pg_code c);

/* ---- UI state ------------------------------------------------------------ */
/* Boolean state keys, in UIState order. A key is published only when its bit
 * is set in pg_state.has. */
#define PG_STATE_KEYS(X) \
  X(VISIBLE, "visible") X(ENABLED, "enabled") X(FOCUSED, "focused")          \
  X(FOCUSABLE, "focusable") X(EDITABLE, "editable") X(READONLY, "readonly")  \
  X(REQUIRED, "required") X(INVALID, "invalid") X(CHECKED, "checked")        \
  X(SELECTED, "selected") X(EXPANDED, "expanded") X(PRESSED, "pressed")      \
  X(OPEN, "open") X(BUSY, "busy") X(MODAL, "modal")                          \
  X(MULTISELECTABLE, "multiselectable")
typedef enum {
#define PG__SK(name, str) PG_ST_##name,
  PG_STATE_KEYS(PG__SK)
#undef PG__SK
  PG_ST__COUNT
} pg_state_key;

typedef struct pg_state {
  uint32_t has;     /* bit k: key k present */
  uint32_t val;     /* bit k: its value */
  uint32_t mixed;   /* bit k: "mixed" (checked, pressed) */
  double value_min, value_max, value_now;
  unsigned has_min : 1, has_max : 1, has_now : 1;
} pg_state;

static inline void pg_state_set(pg_state *s, pg_state_key k, int v) {
  s->has |= 1u << k;
  if (v) s->val |= 1u << k; else s->val &= ~(1u << k);
}
static inline int pg_state_is(const pg_state *s, pg_state_key k) {
  return (s->has >> k & 1u) && (s->val >> k & 1u);
}
static inline int pg_state_has(const pg_state *s, pg_state_key k) { return s->has >> k & 1u; }
const char *pg_state_key_name(pg_state_key k);

/* ---- affordances and primitive actions ---------------------------------- */
#define PG_AFFORDANCES(X) \
  X(READ, "read") X(FOCUS, "focus") X(EDIT, "edit") X(ACTIVATE, "activate")   \
  X(INVOKE, "invoke") X(TOGGLE, "toggle") X(SELECT, "select")                 \
  X(CHOOSE, "choose") X(EXPAND, "expand") X(COLLAPSE, "collapse")             \
  X(NAVIGATE, "navigate") X(SCROLL, "scroll") X(SUBMIT, "submit")             \
  X(DISMISS, "dismiss")
typedef enum {
#define PG__AF(name, str) PG_AF_##name,
  PG_AFFORDANCES(PG__AF)
#undef PG__AF
  PG_AF__COUNT
} pg_affordance;

#define PG_ACTIONS(X) \
  X(FOCUS, "ui.focus") X(ACTIVATE, "ui.activate") X(ENTER_TEXT, "ui.enterText") \
  X(CLEAR_TEXT, "ui.clearText") X(TOGGLE, "ui.toggle") X(CHOOSE, "ui.choose")   \
  X(SUBMIT, "ui.submit") X(EXPAND, "ui.expand") X(COLLAPSE, "ui.collapse")      \
  X(DISMISS, "ui.dismiss") X(SCROLL, "ui.scroll") X(NAVIGATE, "nav.navigate")   \
  X(BACK, "nav.back")
typedef enum {
#define PG__AC(name, str) PG_AC_##name,
  PG_ACTIONS(PG__AC)
#undef PG__AC
  PG_AC__COUNT
} pg_action;
const char *pg_affordance_name(pg_affordance a);
const char *pg_action_name(pg_action a);

/* Semantic sources (WebSemantics.sources), a bit each. */
#define PG_SOURCES(X) \
  X(NATIVE, "native-html") X(ARIA, "aria") X(LABEL, "label-association")      \
  X(TEXT, "visible-text") X(ANNOTATION, "agent-annotation")                   \
  X(REGISTRY, "app-registry") X(INFERRED, "inferred")
typedef enum {
#define PG__SRC(name, str) PG_SRC_##name,
  PG_SOURCES(PG__SRC)
#undef PG__SRC
  PG_SRC__COUNT
} pg_source;

/* ---- personal data (pii.c): --redact pii ------------------------------- */
/* What stands in place of masked personal data (docs/safety.md). */
#define PG_PII_EMAIL_MASK "[email]"
#define PG_PII_PHONE_MASK "[phone]"
#define PG_PII_NAME_MASK "[name]"
typedef enum { PG_PII_NONE, PG_PII_EMAIL, PG_PII_PHONE, PG_PII_NAME } pg_pii_kind;
/* The first e-mail address ("%40" counts as '@') or phone number in
 * text[from, n): its start, length and kind; 0 when there is none. A phone
 * number: 7 to 15 digits in groups ("+1 (555) 010-0199", "030 1234 5678",
 * "555.010.0199"), or after a '+' in one run; not dates, year ranges, times,
 * IP addresses, dotted thousands, prices (a currency next to it), numbers
 * with a decimal part, or digits glued to letters or to '-', '/', '#'. */
int pg_pii_find(const char *text, size_t n, size_t from, size_t *start, size_t *len, pg_pii_kind *kind);
/* text with every address and phone number replaced by its mask: a new
 * string (caller frees), NULL when nothing matched (or text is NULL).
 * *hits (may be NULL): how many. */
char *pg_pii_mask(const char *text, int *hits);
/* The mask of a kind ("[email]"), NULL for PG_PII_NONE. Static. */
const char *pg_pii_label(pg_pii_kind k);
/* 1 when a label or column header says "a person's name": "Name", "Full
 * name", "Last name:", "Vorname *", "Username"; not "Company name". */
int pg_pii_name_label(const char *label);
/* What a form field holds, from its type, autocomplete tokens, name and id
 * attributes and label (any may be NULL): type=email / autocomplete email:
 * PG_PII_EMAIL; type=tel / tel*: PG_PII_PHONE; name, given-name,
 * family-name, additional-name, nickname, honorific-*, username, or a
 * name/id such as "full_name", "lastName", "user[first_name]", or a label
 * pg_pii_name_label accepts: PG_PII_NAME; else PG_PII_NONE. */
pg_pii_kind pg_pii_field_kind(const char *type, const char *autocomplete, const char *name, const char *id,
                              const char *label);

/* ---- graph --------------------------------------------------------------- */
typedef struct pg_rect { double x, y, w, h; } pg_rect;

typedef enum { PG_ACCESS_SAME_ORIGIN, PG_ACCESS_BRIDGED, PG_ACCESS_OPAQUE } pg_access;

typedef struct pg_document {
  char *document_id;
  char *frame_id;
  char *parent_frame_id;        /* NULL for the top document */
  int parent;                   /* index in graph->documents, -1 for top */
  pg_access access;
  char *origin, *url, *title;
  char *ready_state;            /* loading|interactive|complete, or NULL */
  pg_rect bbox;                 /* frame box in top-level viewport px */
  int has_bbox;
  char *root_scope_id;
  char *bridge_session_id;
  int depth;                    /* 0 for top */
} pg_document;

typedef enum {
  PG_SCOPE_ROUTE, PG_SCOPE_REGION, PG_SCOPE_FORM, PG_SCOPE_DIALOG, PG_SCOPE_DRAWER,
  PG_SCOPE_POPOVER, PG_SCOPE_MENU, PG_SCOPE_TOOLBAR, PG_SCOPE_TABSET,
  PG_SCOPE_TABPANEL, PG_SCOPE_COLLECTION, PG_SCOPE_ROWGROUP, PG_SCOPE_IFRAME_ROOT,
  PG_SCOPE_CUSTOM, PG_SCOPE__COUNT
} pg_scope_kind;
const char *pg_scope_kind_name(pg_scope_kind k);

typedef struct pg_scope {
  char *scope_id;
  pg_scope_kind kind;
  int document;                 /* index into documents */
  int parent;                   /* index into scopes, -1 for none */
  char *stable_id, *name;
  pg_state state;
  pg_rect bbox;
  int has_bbox;
  int node;                     /* capture node key, -1 for document scopes */
} pg_scope;

/* ---- data-uiap-risk (risk.c) -------------------------------------------- */
/* RiskDescriptor.level. The one parser of data-uiap-risk, for the graph's
 * JSON and the policy alike: blanks (space, tab, CR, LF) around the value
 * and ASCII case are ignored; "safe", "confirm", "blocked"; any other value,
 * "" included, is PG_RISK_CONFIRM; NULL (no attribute) is PG_RISK_NONE. */
typedef enum { PG_RISK_NONE, PG_RISK_SAFE, PG_RISK_CONFIRM, PG_RISK_BLOCKED } pg_risk;
pg_risk pg_risk_parse(const char *text);
/* "safe", "confirm", "blocked"; NULL for PG_RISK_NONE. Static. */
const char *pg_risk_name(pg_risk r);
/* Longest pg_element.risk_attr kept, in bytes. */
#define PG_RISK_ATTR_MAX 64

/* ---- autocomplete tokens (autofill.c) ----------------------------------- */
/* The one reader of the autocomplete attribute, for redaction and policy. */
#define PG_AUTOCOMPLETE_MAX 512 /* bytes of an attribute value looked at */
/* 1 when ac (an autocomplete attribute value) holds token among its
 * whitespace-separated tokens, ASCII case-insensitively ("CC-Number" holds
 * "cc-number"); token is lower case, and one ending in '-' ("cc-") matches
 * every token that starts with it. NULL or empty: 0. */
int pg_autocomplete_has(const char *ac, const char *token);
/* 1 when ac marks a field whose value is never published: a cc-* token,
 * one-time-code, current-password or new-password (any case). */
int pg_autocomplete_sensitive(const char *ac);

/* ---- what is sensitive: the one list of rules (autofill.c) ------------------ */
/* The autocomplete tokens of pg_autocomplete_sensitive, lower case, each with
 * the CSS attribute operator that finds it from a page script: "~=" a whole
 * token, "*=" a prefix (a token ending in '-'; as a substring match it also
 * finds "occ-x" in a page: more, never less). X(token, css_operator). */
#define PG_SENSITIVE_TOKENS(X) \
  X("cc-", "*=") X("one-time-code", "~=") X("current-password", "~=") X("new-password", "~=")
/* 1 when an element with these attribute values (NULL: absent) is
 * sensitive itself: type password (any case), data-uiap-sensitive present
 * and not "false", or a sensitive autocomplete token. pg_build withholds
 * such a field's value, and all that such an element holds (its text, the
 * names and descriptions computed from it, its boxes in a screenshot:
 * pg_graph.masks). */
int pg_attrs_sensitive(const char *type, const char *data_uiap_sensitive, const char *autocomplete);
/* The same rules as one CSS selector list, for the page scripts that must
 * find sensitive elements in the page (live-region text, the selection):
 * generated from PG_SENSITIVE_TOKENS, so the two cannot drift apart. */
#define PG__SENSITIVE_SEL(tok, op) ",[autocomplete" op "\"" tok "\" i]"
#define PG_SENSITIVE_SELECTOR \
  "[type=password i],[data-uiap-sensitive]:not([data-uiap-sensitive=false])" PG_SENSITIVE_TOKENS(PG__SENSITIVE_SEL)

/* ---- facts for the policy (not published) --------------------------------- */
/* Longest pg_element.submit_url kept, in bytes: a longer URL is cut to this
 * length, and the policy reads a form action that long as unknown (its
 * tail, where a "?action=delete" may sit, is lost). */
#define PG_SUBMIT_URL_MAX 4096
/* Longest pg_element.icon_classes (whole tokens only) and icon_text. */
#define PG_ICON_CLASSES_MAX 256
#define PG_ICON_TEXT_MAX 32
/* pg_element.container_kind: the nearest container around a control that
 * tells what a close or minus glyph on it does (policy: icons). Static
 * strings, nearest first (the climb stops at the first that matches):
 *   dismiss: "dialog", "alertdialog" (role, <dialog>, class modal/dialog),
 *            "popover" (popover attribute, role tooltip, class popover),
 *            "toast" (role status/alert, aria-live, class toast/snackbar/
 *            alert/notification), "drawer" (the drawer scope, class drawer/
 *            offcanvas), "menu" (role menu/menubar), "chip" (class chip/
 *            tag/token)
 *   item:    "listitem" (role, <li>, class ...-item), "row" (role, <tr>,
 *            class table-row), "gridcell" (cell, gridcell, headers),
 *            "option", "treeitem", "menuitem", "article" (of a feed, or
 *            among sibling articles), "card" (class card, among sibling
 *            cards or in a collection), "collection" (inside a list, table,
 *            grid, tree, listbox or feed but no item of it), "repeated"
 *            (inside one of three or more siblings with the same tag and
 *            class: an entry of an unmarked collection)
 *   neither: "tab"
 * NULL: none up to the top of the document. */

typedef struct pg_element {
  char *instance_id;
  char *stable_id;
  int document;                 /* index into documents */
  int scope;                    /* index into scopes, -1 for none */
  char *role, *name, *description;
  pg_state state;
  uint32_t affordances;         /* bit per pg_affordance */
  uint32_t actions;             /* bit per pg_action */
  char *app_action;             /* data-uiap-action, also in supportedActions */
  pg_rect bbox;
  int has_bbox;
  int z;                        /* paint order, for zIndexHint */
  char *text_value;             /* already redacted */
  char *meaning;                /* data-uiap-meaning */
  char *risk_attr;              /* data-uiap-risk, blanks around it dropped, at
                                   most PG_RISK_ATTR_MAX bytes (a longer value
                                   is cut and ends in "..."); NULL: absent.
                                   Read it with pg_risk_parse. */
  uint32_t sources;             /* bit per pg_source */
  char *tag, *input_type, *aria_role;
  char *href;                   /* resolved link target, for navigation */
  char *shadow_host_id;         /* instanceId of the open shadow host */
  int in_viewport, obscured, interactable, attached;
  int inert;                    /* under an inert attribute or outside an open
                                   modal dialog: no actions (web 5.7) */
  int redacted;                 /* 1: a value was masked */
  int sensitive;                /* password / data-uiap-sensitive / payment / otp */
  char *hint_attr;              /* value of opts.hint_attr, if asked for */
  /* facts the policy needs (not published as such) */
  char *form_method;            /* submit controls: the method the submission
                                   uses, lower case: the control's formmethod
                                   when it has one, else its owner form's
                                   method, else "get" ("" is "get"); any
                                   other value as written ("put", "delete")
                                   so that the policy can read it; NULL when
                                   there is no owner form */
  char *submit_url;             /* submit controls: the absolute URL the
                                   submission requests: formaction, else the
                                   owner form's action, resolved against the
                                   document's base URL (empty: the document's
                                   URL); at most PG_SUBMIT_URL_MAX bytes.
                                   Markup, not a field value; never published */
  int is_submit;
  int has_download;
  int opens_window;             /* target= names another browsing context
                                   (_blank, a window name): not _self,
                                   _parent, _top or empty; for policy */
  char *autocomplete;
  char *context;                /* nearest heading / dialog name, for policy */
  char *aria_haspopup;          /* aria-haspopup value, for policy */
  int has_aria_controls;
  int sort_header;              /* a table or grid header that sorts (aria-sort on it), or
                                   a control inside one: for policy (sorting is local UI) */
  char *container_role;         /* nearest tablist/menu/menubar/dialog/toolbar/listbox */
  const char *container_kind;   /* nearest container that tells what a close
                                   glyph does (see above), static, or NULL */
  char *icon_classes;           /* class tokens of the control and of its icon
                                   elements (<i>, <span>, <svg>, <mat-icon>
                                   inside it, not inside a nested control),
                                   space separated, at most
                                   PG_ICON_CLASSES_MAX bytes; NULL: none */
  char *icon_text;              /* the text of an icon element in it when it
                                   reads like a font ligature ("delete",
                                   "remove_circle": [a-z0-9_], at most
                                   PG_ICON_TEXT_MAX bytes), or NULL */
  int live;                     /* inside a live region / status / timer: noise for fingerprints */
  int selection_only;           /* published only because the text selection lies in it */
  int backend_node_id;
  int click_backend_node_id;    /* the node a click aims at and a hit test may
                                   land in, when not the element itself: the
                                   label or open shadow host of a visually
                                   hidden native checkbox/radio/switch (its
                                   bbox is that node's box); 0: the element */
  char *field_note;             /* fields: the visible text next to the field in
                                   its own container (a validation message, a
                                   hint), not its label (build_notes.c); only
                                   fingerprinted, never published; NULL: none */
} pg_element;

/* The node to click for e: click_backend_node_id, else backend_node_id. */
static inline int pg_element_click_node(const pg_element *e) {
  return e->click_backend_node_id ? e->click_backend_node_id : e->backend_node_id;
}

typedef struct pg_relation {
  char *type;                   /* "labels", "controls", ... */
  char *from, *to;              /* instanceIds or scopeIds */
} pg_relation;

/* A name and a value (route parameters and query). */
typedef struct pg_kv { char *key, *value; } pg_kv;

enum { PG_ROUTE_URL, PG_ROUTE_ANNOTATION, PG_ROUTE_ROUTER };

typedef struct pg_graph {
  char *revision;
  char *root_document_id;
  char *route_url, *route_pathname, *route_title;
  /* RouteContext.routeId: the page's data-uiap-route, else the route the
   * app's router names (pg_input.page "router"), else the template of the
   * URL (pg_route_template); route_source says which */
  char *route_id;
  char *route_template;         /* the URL's template, also when named */
  int route_source;             /* PG_ROUTE_URL, _ANNOTATION, _ROUTER */
  /* RouteContext.params (what the template took out of the URL) and
   * .query (the URL's query, volatile keys dropped: pg_route_key) */
  pg_kv *route_params;    size_t nroute_params;
  pg_kv *route_query;     size_t nroute_query;
  double vp_width, vp_height, vp_scroll_x, vp_scroll_y, vp_dpr;
  pg_document *documents; size_t ndocuments;
  pg_scope *scopes;       size_t nscopes;
  pg_element *elements;   size_t nelements;
  pg_relation *relations; size_t nrelations;
  int focus_document;           /* -1: none */
  int focus_element;            /* index into elements, -1: none */
  /* the text selection (SelectionState): the elements its anchor and focus
   * lie in (indexes into elements, -1: none) and its text (NULL: none, or
   * redacted: a password or sensitive field, a closed shadow root) */
  int selection_anchor, selection_focus;
  char *selection_text;
  /* metadata */
  int truncated;                /* max_nodes cut the element list */
  size_t candidates;            /* elements before max_nodes */
  int redactions;               /* values masked */
  int opaque_frames, closed_shadow_hosts;
  /* What the graph withheld, for the caller's own outputs (never published):
   * - masks: the boxes a screenshot of this capture must not show, in
   *   top-level viewport CSS px (see pg_build); mask_overflow: more than
   *   PG_MASKS_MAX were needed, the list is incomplete (a screenshot must
   *   not be written);
   * - sensitive_fields: the fields that were sensitive (for the caller to
   *   remember: pg_input.known_sensitive_*);
   * - secrets: the values of sensitive fields (passwords, card numbers,
   *   one-time codes, the text of a sensitive textarea), NUL-terminated,
   *   each at most once, for the caller's redaction of what it writes
   *   beside the graph (the crawler's run-wide secret list). */
  pg_rect *masks;         size_t nmasks;
  int mask_overflow;
  struct pg_sensitive_field *sensitive_fields; size_t nsensitive_fields;
  char **secrets;         size_t nsecrets;
  /* --redact pii (pg_options.redact_pii): the personal values the graph
   * masked (a name field's value, a name column's text, an e-mail or phone
   * field's value), each with its kind, for the caller's filter of what it
   * writes beside the graph; NULL-terminated strings in the arena. */
  char **pii_values;      pg_pii_kind *pii_kinds; size_t npii;
  /* The accessibility nodes of the elements (pg_ax_retain): ax_nodes
   * holds them (pg_graph_free deletes it), ax_of[k] is element k's or
   * NULL. Both NULL when none were retained. */
  cJSON *ax_nodes;
  const cJSON **ax_of;
  struct pg__arena *arena;
  /* visible h1/h2 texts of the top document, for state identity only
   * (not published) */
  char **headings;
  size_t nheadings;
  /* backendNodeId -> parent backendNodeId of every captured node (hit tests) */
  crawl__intmap parent_of;
} pg_graph;

/* A field pg_build treated as sensitive: by node, and by a key that
 * survives a reload (NULL when the field has neither id nor name): the
 * document's URL without query and fragment, the form owner (id, else
 * name, else action) and the field's id (else name), e.g.
 * "http://a.test/login|form id=f|id=pw". Strings in the graph's arena.
 * revealed: 1 when only the memory (pg_input.known_sensitive_*) keeps it
 * sensitive: its own attributes no longer say so (a "Show" toggle turned a
 * password into type=text) and nothing around it is sensitive. */
typedef struct pg_sensitive_field {
  int backend_node_id;
  const char *key;
  int revealed;
} pg_sensitive_field;

#define PG_MASKS_MAX 20000

/* ---- the DOMSnapshot reply ------------------------------------------------ */
/* A DOMSnapshot.captureSnapshot reply, parsed into compact arrays (int32 per
 * node and layout object, every string unescaped once into one block):
 * a fraction of the size of a JSON tree of it. */
typedef struct pg_snapshot pg_snapshot;

/* Parse the reply text: json holds len bytes (no NUL needed), either the
 * whole message {"id":N,"result":{"documents":[..],"strings":[..]},...} or
 * the result object alone. Strings become valid UTF-8 (a lone surrogate or
 * a bad byte sequence turns into U+FFFD); unknown keys are skipped.
 * On success *out is a new snapshot that does not refer to json (free json at
 * once) and that the caller frees with pg_snapshot_free. Malformed input
 * gives PG_INPUT and *out NULL; it never crashes. */
pg_code pg_snapshot_parse(const char *json, size_t len, pg_snapshot **out);
void pg_snapshot_free(pg_snapshot *s);
/* Number of documents, and of nodes over all documents. */
size_t pg_snapshot_document_count(const pg_snapshot *s);
size_t pg_snapshot_node_count(const pg_snapshot *s);

/* Patching a snapshot (snapshot_patch.c; the patched capture after an
 * action). 1 when s can be patched: one document, no shadow root, no frame. */
int pg_snapshot_patchable(const pg_snapshot *s);
/* The form control backend_node_id of s now holds value (an input's or a
 * textarea's), checked (a checkbox or radio) and selected (an option), as
 * DOMSnapshot would report them; a select is left as it is (its options
 * carry the state). PG_INPUT: s cannot be patched or has no such control
 * (the caller captures in full). The caller proves nothing else changed. */
pg_code pg_snapshot_set_control(pg_snapshot *s, int backend_node_id, const char *value, int checked, int selected);

/* 1 when a and b say the same (their JSON, the revision aside, and the
 * values they redacted); else 0 and where (n bytes, may be NULL) names the
 * first difference, e.g. "elements[12].state" (graph_same.c). */
int pg_graph_same(const pg_graph *a, const pg_graph *b, char *where, size_t n);

/* Shrink the text of an Accessibility.getFullAXTree/getPartialAXTree reply
 * in place, before it is parsed: the members of each node that pg_build
 * never reads (nodeId, parentId, childIds, frameId, chromeRole, and name
 * sources without a value) are cut out; the rest
 * stays byte for byte. Takes the whole message or the result object.
 * Returns the new length (json is NUL-terminated there when it shrank);
 * text that is not JSON, or nested deeper than 64, is left as it was and
 * len returned. */
size_t pg_ax_compact(char *json, size_t len);

/* ---- building ------------------------------------------------------------ */
/* What the crawler captured. Everything is borrowed. */
typedef struct pg_frame_info {
  const char *frame_id;
  const char *parent_frame_id;
  const char *url;              /* as the frame tree says */
  const char *origin;           /* securityOrigin, may be NULL */
  int oopif;                    /* 1: out-of-process (separate target) */
  int owner_backend_node_id;    /* iframe element in the parent, 0 unknown */
} pg_frame_info;

typedef struct pg_input {
  const pg_snapshot *snapshot;  /* DOMSnapshot.captureSnapshot reply (top session) */
  const cJSON *const *ax;       /* getFullAXTree/partial results ("nodes"), one per frame */
  size_t nax;
  const pg_frame_info *frames;  /* frame facts (from Page.getFrameTree + targets) */
  size_t nframes;
  const cJSON *page;            /* page facts: {"vw","vh","sx","sy","dpr","title",
                                   "url","readyState","selection",
                                   "frames":[{"url","readyState"}] (same-origin frames)} */
  int focused_backend_node_id;  /* deepest focused node, 0 none */
  /* The elements the text selection's anchor and focus lie in (a focused
   * text field for a selection inside it; the element around the DOM
   * range's end otherwise), as the page facts' "selection" text describes
   * them; 0 none. The published target is the nearest element around that
   * carries a role (pg_build). */
  int selection_anchor_backend_node_id, selection_focus_backend_node_id;
  const char *top_frame_id;
  /* backendNodeIds of the elements that host an open shadow root inside
   * another shadow tree (nested hosts; NULL: unknown). The flat snapshot
   * cannot tell a nested host's shadow children from a plain element's
   * children. */
  const int *open_hosts;
  size_t nopen_hosts;
  /* Bridged out-of-process frames, captured over their own sessions (only
   * frames whose origin the run bridges, or that declare a bridge the run
   * allows; see pg_subframe). */
  const struct pg_subframe *subframes;
  size_t nsubframes;
  /* Fields an earlier capture of the same tab found sensitive
   * (pg_graph.sensitive_fields), kept sensitive whatever they look like now
   * (a "Show" toggle that turned a password into type=text): by
   * backendNodeId (fields only: INPUT, TEXTAREA, SELECT), and by key for a
   * reload, where the same field has a new node id. NULL: none. */
  const int *known_sensitive_nodes;
  size_t nknown_sensitive_nodes;
  const char *const *known_sensitive_keys;
  size_t nknown_sensitive_keys;
} pg_input;

/* An out-of-process frame (a separate target) captured on its own session:
 * its DOMSnapshot (frame-local coordinates) and accessibility tree. Its
 * backendNodeIds are another renderer's: in the graph they are offset by
 * (index + 1) << 24 (pg_element.backend_node_id; not valid on the page's
 * session), and its instanceIds read el_<frame id prefix>_<id>. */
typedef struct pg_subframe {
  const pg_snapshot *snapshot;  /* DOMSnapshot.captureSnapshot on the frame's session */
  const cJSON *ax;              /* its getFullAXTree result ("nodes"), may be NULL */
  const char *frame_id;         /* == its target id */
  const char *session_id;       /* published as bridgeSessionId */
  int owner_backend_node_id;    /* the iframe element, as the page's session knows it */
} pg_subframe;

typedef struct pg_options {
  int include_hidden;
  int include_non_interactive;
  size_t max_nodes;             /* 0: no cap */
  const char *const *bridge_origins; /* NULL-terminated, or NULL */
  /* 1: a cross-origin frame whose document declares
   * <meta name="uiap-bridge" content="ORIGIN ..."> naming the top
   * document's origin (or "*") is published as bridged too (see
   * pg_bridge_consents). 0: such a meta changes nothing. */
  int allow_bridges;
  const char *const *scope_filter;   /* scopeIds to keep, NULL-terminated, or NULL */
  const char *const *document_filter;
  const char *hint_attr;        /* copy this attribute into metadata (debug aid) */
  /* --redact pii: personal data masked before anything is published
   * (docs/safety.md): e-mail addresses and phone numbers in every text
   * (names, descriptions, values, scope names, titles, the selection), the
   * values of fields that hold a name, an e-mail address or a phone number
   * (pg_pii_field_kind), and the texts of table cells under a column
   * header that says name (pg_pii_name_label) or of elements marked up as
   * a person's name (itemprop name/givenName/familyName, class fn or
   * p-name); a masked value found once is masked wherever it appears in
   * the capture. The masked elements' boxes join pg_graph.masks. */
  int redact_pii;
  unsigned long long revision;  /* 0: next from a process counter */
} pg_options;

/* ---- bridges ------------------------------------------------------------- */
#define PG_BRIDGE_META "uiap-bridge"
/* 1 when content -- the content attribute of a frame document's
 * <meta name="uiap-bridge"> -- consents to the frame being published into a
 * page of origin top_origin: a list of origins (separated by spaces or
 * commas) that holds top_origin, or the token "*". NULL, empty or anything
 * else: 0. Origins compare ASCII case-insensitively, a trailing "/" ignored. */
int pg_bridge_consents(const char *content, const char *top_origin);
/* The content of the first <meta name="uiap-bridge"> that is a child of the
 * <head> of the snapshot document showing frame frame_id (NULL: the first
 * document); NULL when there is none. Points into s. */
const char *pg_snapshot_bridge_meta(const pg_snapshot *s, const char *frame_id);

/* The accessibility record of a capture (discovery-mapper 11.2): for
 * each element of g (built from in) that has an accessibility node, that
 * node as the AX tree gave it, compacted -- {"instanceId",
 * "backendDOMNodeId", "role", "ignored", "ignoredReasons", "name" (with
 * its sources), "description", "value", "properties"} -- and
 * "elements", "elementsWithAccessibility" counts. It holds nothing the
 * graph withholds: only published elements' nodes; a name, description or
 * value that differs from the graph's is the graph's ("[redacted]",
 * "[name]"); texts the graph does not publish (URLs, value texts, role
 * descriptions, related nodes' texts, other name sources' values) are
 * left out. A new object (caller deletes), NULL when g or in is NULL. */
cJSON *pg_ax_record(const pg_graph *g, const pg_input *in);
/* The same in two steps, for a caller that writes the record of only some
 * captures: pg_ax_retain moves the accessibility nodes of g's elements out
 * of in's replies (in->ax, in->subframes[].ax: the caller must own them,
 * and they lose those nodes) into g -- no copy, a hash lookup per node --
 * and pg_ax_record_of(g) makes the record from them when it is wanted
 * (NULL when nothing was retained). A second retain does nothing. */
void pg_ax_retain(pg_graph *g, const pg_input *in);
cJSON *pg_ax_record_of(const pg_graph *g);

/* Build a graph from a capture. *out is NULL on error. */
pg_code pg_build(const pg_input *in, const pg_options *opts, pg_graph **out);
void pg_graph_free(pg_graph *g);

/* 1 when node (a backendNodeId from this capture) is ancestor or a
 * descendant-or-self of ancestor in the flattened tree (shadow-including). */
int pg_graph_contains(const pg_graph *g, int ancestor, int node);

/* Serialise. Returns a new cJSON object (PageGraph), NULL on out of memory. */
cJSON *pg_graph_to_json(const pg_graph *g);
/* A text tree for people: scope > element: role "name" [states] {stableId}. */
char *pg_graph_to_text(const pg_graph *g);
/* The same with choices (zero: as pg_graph_to_text). note: called for each
 * element shown; writes a note (NUL-terminated, at most n bytes) printed
 * in brackets after the states, returns > 0 to show it. */
typedef struct pg_text_opts {
  const char *scope_id;         /* only this scope and what is inside it; NULL: all */
  size_t max_elements;          /* at most this many element lines, then a line
                                   saying how many were left out; 0: all */
  int scope_ids;                /* 1: each scope line ends with <scopeId> */
  int (*note)(void *ud, const pg_graph *g, size_t element, char *buf, size_t n);
  void *ud;
} pg_text_opts;
char *pg_graph_to_text_opts(const pg_graph *g, const pg_text_opts *o);

/* Next revision number of this process (monotonic). */
unsigned long long pg_next_revision(void);

/* ---- state fingerprints (discovery-mapper 11.3) ----------------------- */
/* Zero means the default: toasts, spinners and live regions ignored, field
 * values ignored, collections by bucketed row count. */
typedef struct pg_fp_policy {
  int include_text_values;      /* field values are part of the state */
  int exact_collections;        /* row text of collections is part of the state */
  int keep_toasts;              /* status/alert/log regions count */
  int keep_spinners;            /* progressbar/timer count */
  int ignore_route;             /* leave the route out (content fingerprint) */
  const char *base_origin;      /* stripped from route keys ("http://host:port"),
                                   so ids do not depend on the server's port */
  const char *route_key;        /* when set: the route key to fingerprint under,
                                   in place of the graph's (an alias's route); its
                                   template (pg_route_template) is what counts */
  int ignore_collection_sizes;  /* leave the bucketed row counts out (a page's
                                   layout, for pg_route_learn) */
} pg_fp_policy;

/* Normalised URL for route identity: scheme://host:port/path, query keys
 * sorted with volatile ones (utm_*, session ids, cache busters) dropped, the
 * fragment kept only when it looks like a client-side route ("#/x", "#!x").
 * Caller frees. */
char *pg_route_key(const char *url);
/* The same, relative to base_origin when the URL is on it. */
char *pg_route_key_rel(const char *url, const char *base_origin);

/* Route templates learned from the pages of a run (route_learn.c;
 * docs/fingerprint.md): a word segment of a route becomes ":param" once two
 * pages that differ only in that segment (the same path around it) showed
 * the same layout (a fingerprint without route and row counts). The result
 * depends only on the set of (route, layout) pairs noted, not their order. */
typedef struct pg_route_learner pg_route_learner;
pg_route_learner *pg_route_learner_new(void);
void pg_route_learner_free(pg_route_learner *l);
/* Note a page: its route key (pg_route_key_rel) and layout. Returns 1 when
 * that taught a new parameter. */
int pg_route_learn(pg_route_learner *l, const char *route_key, const char *layout);
/* pg_route_template of route_key with the learned segments as ":param"
 * (":param2", ... for more); the values taken out into *params as
 * pg_route_template does (learned ones last). l may be NULL. Caller frees. */
struct pg_route_param;
char *pg_route_learned_template(const pg_route_learner *l, const char *route_key, struct pg_route_param **params,
                                size_t *nparams);

/* 32 hex digits (XXH3-128) over what section 11.3 names; out must hold 33
 * bytes. The route key used is written to *route_key (caller frees) when
 * route_key is not NULL. */
void pg_fingerprint(const pg_graph *g, const pg_fp_policy *p, char out[33], char **route_key);

/* ---- text helpers (UTF-8) ----------------------------------------------- */
/* Copy s (length n) into valid UTF-8 with control characters removed and
 * whitespace collapsed; at most max bytes (0: no cap). Caller frees. */
char *pg_text_clean(const char *s, size_t n, size_t max);
/* Make text safe to print on a terminal, in place (see graph/text.c):
 * control characters (but tab and newline), C1 controls and invalid UTF-8
 * become '?'. Returns the new length. For every text output a person reads
 * in a terminal (snapshot --format text, diff, error lines). */
size_t pg_text_terminal_safe(char *s);

/* The string published in place of a redacted value. */
#define PG_REDACTED "[redacted]"

/* ---- deltas ---- */
/* Deltas between PageGraphs (web-profile 10.3) in their JSON form
 * (pg_graph_to_json), the signals a change shows (5.12), and the consumer
 * side. Documents, scopes and elements are matched by documentId, scopeId
 * and instanceId: an element keeps its instanceId while it is the same DOM
 * node (el_<backendNodeId>), so a renamed button is one upsertElement.
 * relations, viewport, signals and metadata have no op in 10.3: deltas leave
 * them out. Graphs are only read, except by pg_delta_apply. */

/* The ops (WebDeltaOp[]) that turn old_graph into new_graph, ordered so that
 * no op refers to a document or scope unknown at that point: upsertDocument
 * (parents first; a document whose root scope is new goes first without
 * rootScopeId and again after the scopes), upsertScope (parents first),
 * upsertElement, setRoute, setFocus, setSelection, then removeElement,
 * removeScope and removeDocument (children first). old_graph NULL: all is
 * new. On PG_OK *ops is a new array (caller deletes), empty when nothing
 * changed. PG_INPUT (*ops NULL) when a graph is not a PageGraph or refers to
 * a document or scope it does not hold. */
pg_code pg_delta_compute(const cJSON *old_graph, const cJSON *new_graph, cJSON **ops);

/* Signals (WebSignal objects) the step from old_graph to new_graph shows,
 * appended to the array signals: route.changed (route.url differs),
 * dialog.opened / dialog.closed (a dialog scope appears or goes, or its open
 * state flips), validation.changed (an element's invalid state flips).
 * signalIds are id_prefix followed by (*seq)++. Returns how many were added.
 * Live regions and submissions are not in the graph: the observer adds them. */
int pg_delta_signals(const cJSON *old_graph, const cJSON *new_graph, const char *id_prefix,
                     unsigned long *seq, cJSON *signals);

/* Success signals (discovery-mapper 15.5, SuccessSignal objects: kind,
 * scopeId, target, text) of one step within a page, appended to the array
 * signals: collection.count_changed (a collection or rowgroup scope of both
 * captures -- the same scopeId, else kind, name and stableId -- holds another
 * number of elements), element.appeared / element.disappeared (visible
 * elements, told apart by role, name and stableId, that one capture has
 * more of; not statuses, spinners, a dialog's contents or a collection's
 * rows, which have signals of their own), at most PG_CHANGE_SIGNALS_MAX of
 * each kind, in document order. Targets carry role, name and stableId, no
 * per-capture ids. A change of route makes everything new: the caller
 * leaves this out then. Returns how many were added. */
#define PG_CHANGE_SIGNALS_MAX 4
int pg_change_signals(const cJSON *old_graph, const cJSON *new_graph, cJSON *signals);

#define PG_DELTA_ERRNO_MAP(X)                                \
  X(OK,      "applied")                                      \
  X(GAP,     "revision gap: ask for a new snapshot")         \
  X(INVALID, "malformed delta or unknown reference")
typedef enum {
#define PG__DENUM(name, msg) PG_DELTA_##name,
  PG_DELTA_ERRNO_MAP(PG__DENUM)
#undef PG__DENUM
  PG_DELTA__ECOUNT
} pg_delta_code;
const char *pg_delta_strerror(pg_delta_code c);

/* Apply a WebStateDeltaPayload to graph (a PageGraph, changed in place; the
 * delta is only read). PG_DELTA_GAP: baseRevision is not the graph's
 * revision, so a delta was missed: ask for a new snapshot (10.3).
 * PG_DELTA_INVALID: malformed, or an op refers to an unknown document, scope
 * or element, or leaves one behind without its parent. On either error the
 * graph is unchanged (all or nothing) and err gets one line (may be NULL).
 * On PG_DELTA_OK the graph carries the delta's revision, and relations whose
 * ends are gone are dropped. */
pg_delta_code pg_delta_apply(cJSON *graph, const cJSON *delta, char *err, size_t errlen);

#endif

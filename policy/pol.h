/* pol.h -- safety policy: side-effect classification, action decisions and
 * redaction helpers. The public API of the policy/ module.
 *
 * Before the crawler performs any action on a page element it describes the
 * target as a pol_subject, asks pol_classify() which SideEffectClass the
 * action has (and which rule decided it), then asks pol_decide() whether the
 * run's safety policy lets it execute (allow | skip | review | deny, spec
 * discovery-mapper section 13). Classification follows the spec's order of
 * evidence: app annotations (data-uiap-*), native HTML semantics, keyword
 * lexicons over the accessible name and nearby text (English and German),
 * then role-based defaults. Anything without evidence is "unknown", and
 * unknown is never executed autonomously.
 *
 * The module is pure C11 over libc: no allocation, no I/O, no globals that
 * change. Every function is reentrant. Library code never prints.
 *
 * Ownership: a pol_subject only borrows the caller's strings for the length of
 * the call. Results are written into caller-owned structs; the const char *
 * fields in them point at static tables (valid for the program's lifetime,
 * never freed).
 */
#ifndef UIAP_POL_H
#define UIAP_POL_H

#include <stddef.h>

/* One error enum for the module, generated from one list (name, message). */
#define POL_ERRNO_MAP(X)                                                    \
  X(OK,    "ok")                                                             \
  X(ARG,   "invalid argument")                                               \
  X(PARSE, "unknown name")

typedef enum {
#define POL__ENUM(name, msg) POL_##name,
  POL_ERRNO_MAP(POL__ENUM)
#undef POL__ENUM
  POL__ECOUNT
} pol_code;

const char *pol_strerror(pol_code code);

/* SideEffectClass (uiap.d.ts). Names are the spec strings, in this order. */
#define POL_SIDE_EFFECT_MAP(X)                                              \
  X(NONE,             "none")                                                \
  X(READ,             "read")                                                \
  X(NAVIGATION,       "navigation")                                          \
  X(LOCAL_UI,         "local_ui")                                            \
  X(DRAFT,            "draft")                                               \
  X(REVERSIBLE_WRITE, "reversible_write")                                    \
  X(WRITE,            "write")                                               \
  X(EXTERNAL_EFFECT,  "external_effect")                                     \
  X(DESTRUCTIVE,      "destructive")                                         \
  X(BILLING_CHANGE,   "billing_change")                                      \
  X(SECURITY_CHANGE,  "security_change")                                     \
  X(IRREVERSIBLE,     "irreversible")                                        \
  X(UNKNOWN,          "unknown")

typedef enum {
#define POL__ENUM(name, str) POL_SE_##name,
  POL_SIDE_EFFECT_MAP(POL__ENUM)
#undef POL__ENUM
  POL__SE_COUNT
} pol_side_effect;

/* "local_ui" etc.; "?" for a value out of range. */
const char *pol_side_effect_name(pol_side_effect se);
/* Exact spec string -> enum. POL_PARSE for anything else (*out untouched). */
pol_code pol_side_effect_parse(const char *s, pol_side_effect *out);

/* DataClass (uiap.d.ts): what kind of data an element holds or asks for. */
#define POL_DATA_CLASS_MAP(X)                                               \
  X(NONE,       "none")                                                      \
  X(PII,        "pii")                                                       \
  X(CREDENTIAL, "credential")                                                \
  X(SECRET,     "secret")                                                    \
  X(PAYMENT,    "payment")                                                   \
  X(FINANCIAL,  "financial")                                                 \
  X(CONTACT,    "contact")                                                   \
  X(FREE_TEXT,  "free_text")

typedef enum {
#define POL__ENUM(name, str) POL_DC_##name,
  POL_DATA_CLASS_MAP(POL__ENUM)
#undef POL__ENUM
  POL__DC_COUNT
} pol_data_class;

const char *pol_data_class_name(pol_data_class dc);

/* RiskDescriptor.level as read from data-uiap-risk. */
typedef enum {
  POL_RISK_NONE = 0, /* attribute absent */
  POL_RISK_SAFE,     /* "safe" */
  POL_RISK_CONFIRM,  /* "confirm", and any value we do not recognise */
  POL_RISK_BLOCKED   /* "blocked" */
} pol_risk_level;

/* What is known about the target of one candidate action. Zero-initialise
 * and fill what you know; NULL / 0 means "absent or unknown". All strings
 * are UTF-8 and only borrowed during the call. Attribute values are taken as
 * the page has them (case and surrounding blanks do not matter). */
typedef struct pol_subject {
  const char *role;          /* computed ARIA role ("button", "tab", ...) */
  const char *name;          /* accessible name */
  const char *tag;           /* tagName ("A", "button", "INPUT", "SUMMARY") */
  const char *input_type;    /* type attribute of <input>/<button> */
  const char *href;          /* resolved absolute URL of a link, or NULL */
  const char *page_origin;   /* origin of the page, "http://127.0.0.1:8000" */
  const char *const *allowed_origins; /* further origins that count as "in" */
  size_t n_allowed_origins;
  const char *form_method;   /* submit controls: the method of the
                                submission (pg_element.form_method: the
                                control's formmethod, else its form's
                                method), any case; "post", "put", "patch"
                                are writes, "delete" is destructive, "get"
                                a read, "dialog" local UI; NULL: not given */
  const char *form_action;   /* submit controls: the absolute URL the
                                submission requests (pg_element.submit_url:
                                formaction, else the form's action). Its
                                words decide like a link's (pol_url_intent):
                                a GET to /items/delete is destructive,
                                whatever the button says */
  int is_submit;             /* activating it submits its form */
  int has_download;          /* `download` attribute present */
  int opens_window;          /* target= names another browsing context
                                (_blank, a window name): a link that opens
                                a window is no plain link (its nearby
                                text still counts) */
  const char *autocomplete;  /* autocomplete attribute (tokens) */
  const char *risk;          /* data-uiap-risk (read by pg_risk_parse) */
  const char *app_action;    /* data-uiap-action, e.g. "project.delete" */
  const char *sensitive;     /* data-uiap-sensitive ("" or "true" = yes) */
  const char *context;       /* nearby text: enclosing dialog or section
                                heading, the name of the menu, ... */
  const char *action;        /* action to perform: "ui.activate", "ui.toggle",
                                "ui.choose", "ui.expand", "ui.dismiss",
                                "nav.navigate", "ui.enterText", "ui.submit",
                                ... or an app action id; NULL = ui.activate */
  int in_opaque;             /* inside an opaque boundary (cross-origin frame
                                without bridge, closed shadow root) */
  /* Local-UI signals. */
  int has_aria_expanded;     /* aria-expanded present (true or false) */
  const char *aria_haspopup; /* aria-haspopup value ("menu", "dialog", "true") */
  int has_aria_controls;     /* aria-controls present */
  int sort_header;           /* a column or row header with aria-sort, or a
                                control inside one (pg_element.sort_header) */
  const char *container_role;/* role of the nearest composite container:
                                "tablist", "menu", "menubar", "dialog",
                                "alertdialog", "toolbar", "listbox", ... */
  /* Icon-only controls (a close glyph, a trash can, an icon font glyph):
   * what they do depends on where they are (policy/icons.c). */
  const char *container_kind;/* the nearest container that tells
                                (pg_element.container_kind): "dialog",
                                "alertdialog", "popover", "toast", "drawer",
                                "menu", "chip" -- a close glyph dismisses;
                                "listitem", "row", "gridcell", "option",
                                "treeitem", "menuitem", "article", "card",
                                "collection", "repeated" -- it removes the
                                item; "tab" or NULL -- unknown. NULL falls
                                back to container_role */
  const char *icon_classes;  /* class tokens of the control and its icon
                                elements, space separated
                                (pg_element.icon_classes): "fa fa-trash" */
  const char *icon_text;     /* icon font ligature text in it
                                (pg_element.icon_text): "delete", "close" */
  /* Text entry (ui.enterText, policy/typing.c): where the field sits. For
   * a text field, form_method and form_action above are its owner form's
   * method ("get" when the form states none) and the absolute URL the form
   * submits to; form_method NULL: the field belongs to no form. */
  const char *form_submits;  /* the names of its form's submit controls,
                                separated by " | " (the lexicon reads them:
                                "Sign up", "Save" make it a write form) */
  int form_personal;         /* its form asks for a password, payment data,
                                a one-time code or personal data (e-mail,
                                phone, name, address): a write form */
  int in_search;             /* inside a search landmark (role=search,
                                <search>) */
  int near_collection;       /* a list, table, grid or listbox of two or
                                more visible items shares its section */
} pol_subject;

/* The verdict of pol_classify. Plain data, caller-owned. */
typedef struct pol_classification {
  pol_side_effect side_effect;
  pol_data_class data_class;  /* of the subject (see pol_subject_data_class) */
  pol_risk_level risk;        /* parsed data-uiap-risk */
  char rule[48];              /* stable id of the deciding rule, e.g.
                                 "annotation.risk.blocked", "native.password",
                                 "lexicon.en.delete", "url.logout",
                                 "role.tab", "signal.expanded",
                                 "default.unknown" (see docs at the tables) */
  const char *keyword;        /* the matched lexicon keyword (normalised,
                                 lower case), or NULL; static */
  const char *where;          /* which input held the evidence: "name",
                                 "context", "app_action", "href",
                                 "form_action", "attribute", "role",
                                 "action", "icon", "class" (a nameless
                                 control's class words), or NULL; static */
  const char *explain;        /* what the action does as the deciding rule
                                 reads it, for people: "removes a list
                                 item", "closes the dialog", "the URL it
                                 requests reads as a logout"; static (no
                                 page text); NULL when the rule has none */
  int inferred;               /* 1: the deciding evidence was inferred (an
                                 icon glyph, class or ligature, and where it
                                 sits), not stated by the page's words or
                                 markup */
} pol_classification;

/* Classify the side effect of performing s->action on s. Always fills *out
 * (UNKNOWN / "default.unknown" when nothing is known). POL_ARG if s or out
 * is NULL. */
pol_code pol_classify(const pol_subject *s, pol_classification *out);

/* Longest URL whose words pol_url_intent reads, in bytes. */
#define POL_URL_MAX 8192

/* The side effect a URL's own words name: its path segments, query keys
 * and values and fragment (percent-encodings decoded, camelCase split,
 * whole words), read with the URL rows of the lexicon (policy/lexicon.c):
 * "/logout", "/signout", "/users/sign-out", "/konto/abmelden" ->
 * security_change (rule "url.logout"); "/items/3/delete", "?action=delete",
 * "/remove", "/destroy", "/loeschen" -> destructive; "/unsubscribe",
 * "/cancel-subscription", "/checkout" -> billing_change; nothing -> none
 * ("url.none"). A URL longer than POL_URL_MAX is unknown ("url.too_long")
 * unless its first POL_URL_MAX bytes already name something. The host is
 * not read, nor the origin judged: pol_classify does that with the page's
 * origin. Links (s->href) and form submissions (s->form_action) are
 * classified with this same reading, so it is the one URL rule table.
 *
 * For the crawler's network guard: a GET request the page makes whose URL
 * reads as security_change (logout) or destructive should fail before it
 * reaches the server (Fetch.failRequest), since clicking a harmless-looking
 * control may still fire it.
 *
 * url may be absolute ("http://h/a/logout") or a path ("/a/logout?x").
 * Fills *out (rule, keyword, where "url", explain; may be NULL) and
 * returns its side_effect. NULL url -> none. */
pol_side_effect pol_url_intent(const char *url, pol_classification *out);

/* DataClass of a field from its input type, autocomplete tokens and
 * data-uiap-sensitive: password / current-password / new-password ->
 * credential, one-time-code / data-uiap-sensitive -> secret, cc-* ->
 * payment, transaction-* -> financial, email / tel -> contact, name /
 * address / bday parts -> pii, else none. Tokens in any letter case
 * ("CC-NUMBER", "One-Time-Code"). NULL -> none. */
pol_data_class pol_subject_data_class(const pol_subject *s);

/* ---- decisions ---------------------------------------------------------- */

/* DiscoverySafetyPolicy.defaultMode. Zero is safe_explore, the default. */
#define POL_MODE_MAP(X)                                                     \
  X(SAFE_EXPLORE,  "safe_explore")                                           \
  X(OBSERVE_ONLY,  "observe_only")                                           \
  X(SANDBOX_WRITE, "sandbox_write")

typedef enum {
#define POL__ENUM(name, str) POL_MODE_##name,
  POL_MODE_MAP(POL__ENUM)
#undef POL__ENUM
  POL__MODE_COUNT
} pol_mode;

const char *pol_mode_name(pol_mode m);
pol_code pol_mode_parse(const char *s, pol_mode *out);

/* DiscoverySafetyPolicy. Zero-initialised = safe_explore, nothing extra.
 * The allow flags take effect in sandbox_write only (discovery-mapper
 * section 8: safe_explore runs only reversible, non-destructive,
 * non-external actions; observe_only runs nothing that activates). In the
 * other modes a set flag leaves the deny as it is, and the decision's
 * sentence says that the flag was ignored. */
typedef struct pol_policy {
  pol_mode mode;
  int allow_destructive_actions; /* sandbox_write: lifts deny for destructive,
                                    irreversible */
  int allow_payment_flows;       /* ... for billing_change */
  int allow_auth_flows;          /* ... for security_change */
  int allow_external_effects;    /* ... for external_effect */
  int probe_unknown;             /* safe_explore: a control nothing settles
                                    (rule default.unknown) may be tried under
                                    the crawler's seal (pol_probeable); 0: it
                                    is held for review, as always */
} pol_policy;

/* DiscoveryActionPolicyDecision.effect, in increasing strictness. */
#define POL_EFFECT_MAP(X)                                                   \
  X(ALLOW,  "allow")                                                         \
  X(SKIP,   "skip")                                                          \
  X(REVIEW, "review")                                                        \
  X(DENY,   "deny")

typedef enum {
#define POL__ENUM(name, str) POL_EFFECT_##name,
  POL_EFFECT_MAP(POL__ENUM)
#undef POL__ENUM
  POL__EFFECT_COUNT
} pol_effect;

const char *pol_effect_name(pol_effect e);

/* DiscoveryActionPolicyDecision.reason. */
#define POL_REASON_MAP(X)                                                   \
  X(SAFE,               "safe")                                              \
  X(UNKNOWN_SIDE_EFFECT,"unknown_side_effect")                               \
  X(DESTRUCTIVE,        "destructive")                                       \
  X(EXTERNAL_EFFECT,    "external_effect")                                   \
  X(CREDENTIAL,         "credential")                                        \
  X(PAYMENT,            "payment")                                           \
  X(SECURITY_SENSITIVE, "security_sensitive")                                \
  X(BUDGET_EXCEEDED,    "budget_exceeded")                                   \
  X(OPAQUE_BOUNDARY,    "opaque_boundary")                                   \
  X(MANUAL_ONLY,        "manual_only")

typedef enum {
#define POL__ENUM(name, str) POL_REASON_##name,
  POL_REASON_MAP(POL__ENUM)
#undef POL__ENUM
  POL__REASON_COUNT
} pol_reason;

const char *pol_reason_name(pol_reason r);

typedef struct pol_decision {
  pol_effect effect;
  pol_reason reason;
  char text[384];  /* one human sentence; holds no page text, only rule ids,
                      lexicon keywords and policy names, so it may be logged */
} pol_decision;

/* Decide whether the action classified in *c may run under *policy.
 * policy NULL = the zero policy (safe_explore). s may be NULL; it is only
 * consulted for in_opaque. The rules are the table in decide.c. POL_ARG if
 * c or out is NULL. Only pol_decide's caller can know budgets:
 * POL_REASON_BUDGET_EXCEEDED is never produced here. */
pol_code pol_decide(const pol_policy *policy, const pol_subject *s,
                    const pol_classification *c, pol_decision *out);

/* 1 when the action classified in *c may be tried under a seal instead of
 * being held (crawler/run/explore_probe.c, docs/safety.md "Sealed probes"):
 * the policy is safe_explore with probe_unknown set, and the class is
 * unknown for want of any evidence (rule "default.unknown": no annotation,
 * no native fact, no lexicon word, no icon). Never in observe_only or
 * sandbox_write, never for data-uiap-risk, never for a control any rule
 * read (a submit without a method, an icon without context), never for a
 * control without a word in its name (s->name: an icon-font glyph, a
 * symbol, nothing -- an icon is evidence of something, just not of what).
 * pol_decide still says review for it: only a caller that seals the page
 * may act. */
int pol_probeable(const pol_policy *policy, const pol_subject *s, const pol_classification *c);

/* ---- redaction ---------------------------------------------------------- */

/* 1 if the field's value must never be recorded or logged: password inputs,
 * data-uiap-sensitive (present and not "false"), autocomplete tokens cc-*,
 * one-time-code, current-password, new-password. 0 otherwise (also NULL). */
int pol_is_sensitive_field(const pol_subject *s);

/* The string that replaces a sensitive value: "\u2022\u2022\u2022\u2022"
 * ("••••", four U+2022 BULLET, UTF-8, 12 bytes). Always the same length, so
 * it reveals nothing about the value, not even whether it was empty. Static. */
const char *pol_mask(void);

#endif

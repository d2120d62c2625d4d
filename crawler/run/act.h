/* act.h -- one action, decided and performed (act.c): what the discovery
 * run and the MCP server share, so both take the same decision and the
 * same click. Internal to crawler/run/. */
#ifndef UIAP_ACT_H
#define UIAP_ACT_H

#include <stddef.h>

#include "crawl.h"
#include "frontier.h"

struct crawl__secrets;

/* The action the crawler takes on e by default ("nav.navigate" for a link,
 * "ui.toggle", "ui.choose", "ui.expand"/"ui.collapse", "ui.enterText",
 * "ui.activate"), or NULL when it drives none (combobox, listbox, slider).
 * Static. */
const char *crawl__act_for(const pg_element *e);

/* Classify and decide a (its action_id, role, name, option) on element e
 * (NULL: a dialog's Escape) under policy, on a page of page_origin with
 * allowed (NULL-terminated, may be NULL) also in scope: fills a->cls,
 * a->dec, a->rank (exploration priority) and a->probe (1: the decision is
 * review for want of evidence and the policy lets it be probed under a
 * seal; any action but text entry). */
void crawl__act_decide(const pol_policy *policy, const char *page_origin, const char *const *allowed, action *a,
                       const pg_element *e);

/* text, kept once for the process (thread-safe): the decision sentences
 * actions point at. Never freed; a run meets a few dozen. */
const char *crawl__act_text(const char *text);

/* The element of g a names (web 3.2, mapper 11.5): by stable_id, role
 * and name when stable_id is set (the first such); else by role and name within the scope of scope_key
 * (crawl__act_scope_key) when g has that scope -- the ordinal-th of the
 * page if it lies there, else the first there, NULL when the scope holds
 * none; else (no key, or the scope is gone) the ordinal-th (0-based) with
 * this role and name. NULL: none. Points into g. */
const pg_element *crawl__act_find(const pg_graph *g, const char *role, const char *name, const char *stable_id,
                                  const char *scope_key, int ordinal);

/* What identifies scope index `scope` of g, or the nearest ancestor that
 * can be identified, across captures (a scopeId is one capture's): its
 * stableId, else its kind and author name (digits as "#"). NULL: none
 * (the route scope, unnamed scopes). Caller frees. */
char *crawl__act_scope_key(const pg_graph *g, int scope);

/* What an action is decided under: the run's policy, the page's origin and
 * the other origins in scope (NULL-terminated, may be NULL). */
typedef struct act_gate {
  const pol_policy *policy;
  const char *page_origin;
  const char *const *allowed;
  int recipe;     /* a principal's login recipe step (login.c): the user's
                     own sign-in, which may type into a sensitive field and
                     may do what signing in does (act.c recipe_may), never
                     what destroys, pays, cannot be undone or leaves the app */
  int sealed;     /* the page is sealed for a probe (explore_probe.c): a control
                     nothing settles (action.probe, pol_probeable) may be acted on */
} act_gate;

/* Why crawl__act_perform did nothing on purpose. */
typedef enum {
  ACT_DONE,       /* performed, or failed for another reason (why) */
  ACT_AMBIGUOUS,  /* several elements are equally plausible targets (mapper 16) */
  ACT_REFUSED,    /* a's decision, or the decision taken again on the element
                     found now, is not allow */
} act_refusal;

/* The one path from a decision to input: every click, key press and choice
 * the crawler makes on a page goes through here. Finds the element a was
 * decided on in p's capture g (the node it was decided on when still
 * there, else by stable id, role, name and scope, else by role, name,
 * scope and ordinal), decides a again under gate on that element as it is
 * now, and does exactly a only when a->dec and that decision are both
 * allow: Escape (a->escape), the option a->option_index of a <select>
 * (a->option), else an actionable click, then for ui.enterText the text
 * value (NULL: a draft value by the field's type; a sensitive field is
 * never typed into). Several equally plausible targets: nothing is done,
 * *refused = ACT_AMBIGUOUS; a decision other than allow: nothing is done,
 * *refused = ACT_REFUSED (refused may be NULL). CRAWL_ARG with why when
 * nothing was done (refused, target missing, not actionable);
 * CRAWL_BROWSER/CRAWL_CRASHED when the browser is gone. */
crawl_code crawl__act_perform(crawl_page *p, const pg_graph *g, const act_gate *gate, const action *a, const char *value,
                              act_refusal *refused, char *why, size_t whylen);

/* The one path for a navigation the crawler makes by URL (restoring a
 * state, a hash hop, an access probe, a recipe's sign-in page): url decided
 * under gate, then loaded (same_document: a same-document navigation,
 * crawl_page_goto; else crawl_page_load). Refused, nothing loaded,
 * *refused = ACT_REFUSED (may be NULL), CRAWL_ARG with why: an origin other
 * than gate->page_origin and gate->allowed; a URL whose words read as a
 * logout or security change (allowed to a recipe), a deletion, a billing
 * change or something irreversible (pol_url_intent): the write guard lets
 * the URL the crawler itself loads through, so this is where such a URL --
 * from a journal, another worker, a forged record -- is stopped. */
crawl_code crawl__act_navigate(crawl_page *p, const act_gate *gate, const char *url, int same_document,
                               act_refusal *refused, char *why, size_t whylen);

/* 1 when url's origin is gate->page_origin or one of gate->allowed: the one
 * scope check for URLs the crawler loads or reads back. */
int crawl__act_in_scope(const act_gate *gate, const char *url);

/* ---- typing that only reads (act_text.c) ---- */
/* What the policy reads about a text field beyond the graph
 * (js/text_field.js): its owner form and where it sits, and the visible
 * items nearest to it. Owned; crawl__act_field_release. */
typedef struct act_field {
  char *method;   /* the owner form's method, lower case ("get" when it states
                     none; the default button's formmethod first); NULL: no form */
  char *action;   /* the absolute URL the form submits to */
  char *submits;  /* the names of its submit controls, " | " separated */
  int personal;   /* the form asks for a password, payment or personal data */
  int in_search;  /* inside a search landmark */
  int near;       /* two or more visible list items share its section */
  cJSON *items;   /* [[text, column header], ...]: its datalist, the list it
                     controls, the list of its section, else the page's */
} act_field;

/* 1 for a field the crawler may type a search into when the policy says it
 * reads: a searchbox, or a textbox that is an <input>; never a sensitive one. */
int crawl__act_text_candidate(const pg_element *e);
/* Reads the facts of field e of p into *f. 0, or -1 (nothing to release). */
int crawl__act_field_read(crawl_page *p, const pg_element *e, act_field *f);
/* The same from v, the value js/text_field.js returned (borrowed). */
int crawl__act_field_from(const cJSON *v, act_field *f);
void crawl__act_field_release(act_field *f); /* NULL: nothing */
/* Copies f's facts into s (borrowed: f must outlive s's use). */
void crawl__act_field_subject(const act_field *f, pol_subject *s);
/* crawl__act_decide with the facts f of a text field (NULL: none). */
void crawl__act_decide_field(const pol_policy *policy, const char *page_origin, const char *const *allowed, action *a,
                             const pg_element *e, const act_field *f);
/* The value a (decided: a read) types, from f's items: the longest word of
 * the first usable item (letters only, 3 to 24 bytes; an item with an
 * e-mail address or phone number, in a column that names a person, or
 * holding a value of sec is never used), else the probe word "test";
 * a->text_enter unless a is a list filter (rule text.filter). */
void crawl__act_text_choose(action *a, const act_field *f, const struct crawl__secrets *sec);
/* Types a->text into e (focused by the click before): its contents
 * selected, the value typed key by key, then Enter when a->text_enter. */
crawl_code crawl__act_text_type(crawl_page *p, const pg_element *e, const action *a, char *why, size_t whylen);
/* a's value as a transition's args ({"text", "valueSource": "page" |
 * "probe", "submitKey": "Enter"}), and back from a journal's args. */
void crawl__act_text_args(cJSON *args, const action *a);
void crawl__act_text_from_args(action *a, const cJSON *args);

/* Call fn (a function declaration) on node backend of p, returnByValue:
 * *out the value (caller frees). 0, or -1. */
int crawl__act_call(crawl_page *p, int backend, const char *fn, cJSON **out);
/* crawl__act_call of fns[i] (NULL: none) on element i of g, for all of them
 * in two pipelined rounds (resolve every node, then call on each): the
 * values by element index (NULL where a call failed or there was none),
 * freed with crawl__act_results_free(v, g->nelements). */
cJSON **crawl__act_call_each(crawl_page *p, const pg_graph *g, const char *const *fns);
void crawl__act_results_free(cJSON **v, size_t n);

/* ---- form drafts in sandbox_write (act_form.c) ---- */
/* The synthetic value a single ui.enterText types into e (fill.c, from its
 * type, autocomplete, data-uiap-meaning and name), into buf. Returns buf. */
const char *crawl__form_value_for(const pg_element *e, char *buf, size_t cap);

/* Fill the form of submit control `backend` on p with synthetic values
 * (fill.c), leaving its first required field empty when leave_empty; the
 * draft's record is kept for crawl__form_draft_take. CRAWL_OK (also when
 * the control has no form: nothing is filled), or CRAWL_ARG with why
 * (leave_empty and no required field; the form went away). */
crawl_code crawl__form_fill(crawl_page *p, int backend, int leave_empty, char *why, size_t whylen);

/* After the submit click: the fields the browser holds invalid, added to
 * the kept record as "invalidFields" (nothing when the page went on). */
void crawl__form_after_submit(crawl_page *p, int backend);

/* The record of this thread's last draft ({"mode", "fields": [{name, type,
 * label?, required, constraints?, value | skipped, from, fallback?}],
 * "leftEmpty"?, "invalidFields"?}), handed over (caller frees), or NULL;
 * keep replaces (and frees) the one kept. */
cJSON *crawl__form_draft_take(void);
void crawl__form_draft_keep(cJSON *report);

#endif

/* pol_int.h -- private to policy/: the keyword lexicon, text normalisation
 * and URL helpers shared by classify.c, decide.c and the unit tests.
 * Never included from outside this folder (tests excepted). */
#ifndef UIAP_POL_INT_H
#define UIAP_POL_INT_H

#include <stddef.h>
#include "pol.h"

/* Page text is untrusted: at most this many bytes of a name, context, URL or
 * action id are looked at (the rest is cut at a character boundary). */
#define POL__TEXT_MAX 512

/* ---- lexicon (lexicon.c) ------------------------------------------------ */

enum {
  POL__EN = 0,
  POL__DE = 1
};

/* Entry flags. */
enum {
  POL__LX_SAFE   = 1 << 0, /* local-UI word: a signal, never a side effect */
  POL__LX_WHOLE  = 1 << 1, /* (SAFE) counts only when the whole text is made
                              of SAFE/FILLER words: "Close" yes, "Close
                              issue" no */
  POL__LX_DIALOG = 1 << 2, /* (SAFE) counts only inside a dialog or for
                              ui.dismiss: "Cancel" */
  POL__LX_URL    = 1 << 3, /* also matched against URL path/query/fragment */
  POL__LX_FILLER = 1 << 4, /* neutral word that may sit next to a WHOLE safe
                              word ("Close dialog", "Alle schließen") */
  POL__LX_CHANNEL = 1 << 5 /* names a contact channel ("call"): on a plain
                              same-origin link the href says where it goes,
                              so it does not count (POL__SCAN_LINK) */
};

typedef struct pol__lex_entry {
  const char *phrase;        /* as written (may hold umlauts); normalised
                                before matching */
  unsigned char cls;         /* pol_side_effect */
  unsigned char lang;        /* POL__EN / POL__DE */
  unsigned char flags;       /* POL__LX_* */
  const char *group;         /* rule id stem; NULL = the folded phrase */
} pol__lex_entry;

extern const pol__lex_entry pol__lexicon[];
extern const size_t pol__lexicon_len;

/* Normalise text for matching: ASCII lower case; Latin-1 capitals lowered;
 * ä ö ü ß (and capitals, ẞ) folded to ae oe ue ss so "löschen" and
 * "loeschen" are one word; every run of punctuation or blanks (ASCII,
 * U+00A0-U+00BF, U+2000-U+206F), icon-font code points (private use
 * areas) and variation selectors becomes one space; with split_camel a
 * lower-to-upper step splits a word ("deleteUser" -> "delete user").
 * The result starts and ends with one space (" delete project "), so a
 * phrase matches on word boundaries iff " phrase " occurs in it.
 * Writes at most cap-1 bytes plus NUL; returns the length. */
size_t pol__normalize(const char *in, int split_camel, char *buf, size_t cap);

typedef struct pol__scan {
  const pol__lex_entry *risky;  /* worst side-effect word, or NULL */
  const pol__lex_entry *safe;   /* the local-UI word that gave the signal */
  int safe_signal;              /* local-UI signal and no risky word */
} pol__scan;

/* Scan flags. */
enum {
  POL__SCAN_URL    = 1 << 0, /* only POL__LX_URL entries; implies CAMEL */
  POL__SCAN_CAMEL  = 1 << 1, /* split camelCase words (ids, URLs) */
  POL__SCAN_DIALOG = 1 << 2, /* inside a dialog: POL__LX_DIALOG words count */
  POL__SCAN_LINK   = 1 << 3  /* a plain same-origin link's name:
                                POL__LX_CHANNEL words do not count */
};

/* Scan text against the lexicon with POL__SCAN_* flags. Matching rules:
 *  - a phrase matches whole words only ("deleted" is not "delete");
 *  - a hit inside a longer hit is superseded by it ("remove filter" beats
 *    "remove"; "close account" beats "close");
 *  - of the remaining risky hits the highest pol__rank wins (tie: the
 *    longer phrase, then the earlier one). */
void pol__lexicon_scan(const char *text, int flags, pol__scan *out);

/* Rule id for an entry: "lexicon.de.loeschen" (prefix + language + stem),
 * or without the language "url.logout" (with_lang 0). Always
 * NUL-terminated within cap. */
void pol__lexicon_rule(const pol__lex_entry *e, const char *prefix, int with_lang,
                       char *buf, size_t cap);

/* Severity order used to combine evidence: the worst class wins. */
int pol__rank(pol_side_effect se);

/* ASCII case-insensitive compare of a trimmed attribute value. */
int pol__attr_eq(const char *value, const char *word);

/* ---- icons (icons.c) ---------------------------------------------------- */

/* What an icon means, in increasing severity. */
enum {
  POL__ICON_NONE = 0,
  POL__ICON_CLOSE,   /* ×, fa-xmark, "close": dismiss or remove, by context */
  POL__ICON_MINUS,   /* −, fa-minus, "remove_circle": removes an item */
  POL__ICON_DELETE   /* 🗑, fa-trash, "delete": destructive anywhere */
};

typedef struct pol__icon {
  int meaning;        /* POL__ICON_*: the worst of name glyphs, classes, ligature */
  const char *token;  /* the table's spelling of that evidence; static */
  const char *source; /* "name", "class", "ligature"; static */
  int name_is_icon;   /* the accessible name holds no words (glyphs,
                         private-use code points) or is the ligature's text */
} pol__icon;

/* Read the icon evidence of s (name, icon_classes, icon_text). */
void pol__icon_read(const pol_subject *s, pol__icon *out);

/* What the container around s makes of a close glyph. */
enum {
  POL__CTX_NONE = 0, /* no container that tells */
  POL__CTX_DISMISS,  /* dialog, popover, toast, drawer, menu, chip */
  POL__CTX_ITEM,     /* an entry of a collection: the glyph removes it */
  POL__CTX_OTHER     /* a tab: closing it may discard something */
};

/* POL__CTX_* of s->container_kind (else s->container_role); *phrase: what a
 * close glyph does there ("closes the dialog", "removes a list item"),
 * static. */
int pol__icon_context(const pol_subject *s, const char **phrase);

/* ---- URLs (url.c) ------------------------------------------------------- */

/* The worst URL row of the lexicon among the words of rest (a URL's path,
 * query and fragment, or a relative reference): percent-encodings decoded,
 * read in overlapping windows up to POL_URL_MAX bytes. NULL: none. *too_long
 * is set when rest is longer than that (the words past it are not read). */
const pol__lex_entry *pol__url_words(const char *rest, int *too_long);

/* "the URL it requests reads as ..." for the class of a URL rule, or NULL. */
const char *pol__url_explain(pol_side_effect se);

typedef enum {
  POL__URL_NONE = 0,   /* NULL or empty */
  POL__URL_HTTP,       /* http: or https: */
  POL__URL_SCRIPT,     /* javascript: (behaves like a button) */
  POL__URL_OTHER,      /* mailto:, tel:, sms:, file:, data:, blob:, ... */
  POL__URL_RELATIVE    /* no scheme: the caller did not resolve it */
} pol__url_kind;

/* Scheme of url lower-cased into scheme (cap bytes, may be empty) and its
 * kind, read as browsers do (pg_url_scheme: leading C0 controls skipped,
 * tabs and newlines inside ignored). Origins and paths: pg_url.h. */
pol__url_kind pol__url_scheme(const char *url, char *scheme, size_t cap);

/* ---- text entry (typing.c) ---------------------------------------------- */

/* What typing into the text field s does (s->action is ui.enterText), from
 * the field, its form and where it sits; name is the lexicon's reading of
 * its name. Every member static. */
typedef struct pol__text_verdict {
  pol_side_effect se;   /* read (a search or filter) or draft */
  const char *rule;     /* "text.searchbox", "text.form.get", ...,
                           "action.text_entry" */
  const char *keyword;  /* the word that decided, or NULL */
  const char *where;    /* "role", "form_method", "form_submits", ... */
  const char *explain;  /* for people */
  int inferred;         /* the filter rule: inferred from the layout */
} pol__text_verdict;

void pol__text_entry(const pol_subject *s, const pol__scan *name, pol__text_verdict *out);

#endif

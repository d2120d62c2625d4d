/* fill.h -- synthetic values for form drafts in sandbox_write (fill.c) and
 * the small regular-expression subset that makes them match an HTML
 * `pattern` (fill_pattern.c). Pure functions: a field's description in, a
 * value out; no browser, no allocation the caller must free. The values
 * are valid for the field's type and constraints and clearly synthetic
 * (reserved domains, 555 numbers, "Uiap Draft"); never a credential, a
 * card number or a one-time code: such fields are skipped. Internal to
 * crawler/run/. */
#ifndef UIAP_FILL_H
#define UIAP_FILL_H

#include <stddef.h>

#define CRAWL_FILL_VALUE_MAX 256   /* a value, NUL included */
#define CRAWL_FILL_OPTIONS_MAX 64  /* options of a select or radio group read */

/* What a form field says about itself (the page's attributes, as read by
 * js/form_fields.js). Every string may be NULL (absent). */
typedef struct crawl_fill_field {
  const char *tag;            /* "input", "textarea", "select" */
  const char *type;           /* input type ("email", "tel", "number", ...); radio and
                                 checkbox groups keep theirs; NULL: text */
  const char *name, *id, *label, *placeholder;
  const char *autocomplete, *meaning; /* autocomplete tokens, data-uiap-meaning */
  const char *pattern;        /* the HTML pattern attribute (matched as a whole) */
  const char *min, *max, *step;
  long minlength, maxlength;  /* -1: none */
  int required;
  int sensitive;              /* pg_attrs_sensitive: password, one-time code, card data */
  const char *const *options; /* select: the values of its enabled options; radio group:
                                 the values of its enabled radios (in page order) */
  size_t noptions;
} crawl_fill_field;

typedef enum {
  CRAWL_FILL_OK,              /* value is valid for everything the field declares */
  CRAWL_FILL_FALLBACK,        /* a value was made, but a constraint was not understood
                                 (an unsupported pattern): *note says which */
  CRAWL_FILL_SKIP,            /* not filled (sensitive, a file, an optional checkbox,
                                 no option to choose): *note says why */
} crawl_fill_status;

/* The value for f into out (cap bytes, at least 2): derived from its type,
 * autocomplete tokens and data-uiap-meaning, else the words of its label,
 * name, id and placeholder (e-mail, phone, URL, postal code, name, ...),
 * shaped by pattern, min/max/step, minlength/maxlength and options. A
 * checkbox's value is "on" when it is to be checked (only a required one
 * is); a radio group's or select's value is the option chosen. *kind (static):
 * what the value was derived from ("email", "number", "pattern", ...);
 * *note (static or NULL): why it fell back or was skipped. */
crawl_fill_status crawl__fill_value(const crawl_fill_field *f, char *out, size_t cap, const char **kind,
                                    const char **note);

/* ---- the pattern subset (fill_pattern.c) ---- */
/* Supported: literals, escapes (\d \D \w \W \s \S and escaped
 * punctuation), '.', classes with ranges and negation, groups ((...),
 * (?:...)) with alternatives, and the quantifiers ? * + {n} {n,} {n,m}
 * (a lazy '?' after them is read and ignored); '^' and '$' at the ends.
 * Not: back references, look-around, \b, Unicode escapes, non-ASCII in a
 * class. The pattern is matched against the whole value, as HTML does. */

/* Make a string matching pattern into out: each repeated item as often as
 * its minimum asks, plus `extra` more times for the first item that may
 * repeat (to reach a minlength); characters taken from prefer first when a
 * class allows one of them. 0, or -1: the pattern is outside the subset,
 * or the value would not fit in cap. */
int crawl__fill_pattern_make(const char *pattern, const char *prefer, int extra, char *out, size_t cap);

/* 1 when s matches pattern as a whole, 0 when not, -1 when the pattern is
 * outside the subset (or matching it took too many steps). */
int crawl__fill_pattern_match(const char *pattern, const char *s);

#endif

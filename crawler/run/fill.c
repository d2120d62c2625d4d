/* fill.c -- the value a form draft types into one field (fill.h): what the
 * field is (its type, autocomplete tokens, data-uiap-meaning, else the
 * words of its label and name: tables below), the synthetic value for
 * that, then the field's own constraints: options, min/max/step,
 * minlength/maxlength and pattern (fill_pattern.c). Values are obviously
 * synthetic -- reserved domains (example.invalid), 555 numbers, "Uiap
 * Draft" -- and never a secret: sensitive fields are skipped. */
#include "fill.h"
#include "pg.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* What a field is for, and its synthetic value. prefer: the characters a
 * pattern's classes take, in this order where they can (fill_pattern.c
 * pick): a phone pattern gets 555-0100, not 000-0000. */
typedef struct fill_kind { const char *kind, *value, *prefer; } fill_kind;

static const fill_kind kinds[] = {
  {"email", "uiap.draft@example.invalid", "uiap.draft@example.invalid"},
  {"tel", "+1 555 0100", "5550100"},
  {"url", "https://example.invalid/uiap-draft", "https://example.invalid/uiap-draft"},
  {"postal", "12345", "12345"},
  {"given_name", "Uiap", "Uiap"},
  {"family_name", "Draft", "Draft"},
  {"name", "Uiap Draft", "Uiap Drft"},
  {"username", "uiap_draft", "uiapdrft_"},
  {"organization", "Uiap Draft Org", "Uiap Drft"},
  {"street", "1 Draft Street", "1 DraftSe"},
  {"city", "Draftville", "Draftvile"},
  {"country", "Draftland", "Draftlnd"},
  {"search", "draft", "draft"},
  {"title", "Draft title (uiap)", "Draft"},
  {"text_long", "Draft text written by uiap-crawl.", "Draft"},
  {"text", "Uiap draft", "Uiap draft"},
};

static const fill_kind *kind_named(const char *k) {
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    if (!strcmp(kinds[i].kind, k)) return &kinds[i];
  return &kinds[sizeof kinds / sizeof *kinds - 1];
}

/* input type -> kind */
static const struct { const char *type, *kind; } by_type[] = {
  {"email", "email"}, {"tel", "tel"}, {"url", "url"}, {"search", "search"},
};

/* autocomplete token -> kind (pg_autocomplete_has: a trailing '-' is a prefix) */
static const struct { const char *token, *kind; } by_token[] = {
  {"email", "email"}, {"tel", "tel"}, {"tel-", "tel"}, {"url", "url"}, {"postal-code", "postal"},
  {"given-name", "given_name"}, {"family-name", "family_name"}, {"name", "name"}, {"nickname", "username"},
  {"username", "username"}, {"organization", "organization"}, {"street-address", "street"},
  {"address-line1", "street"}, {"address-level2", "city"}, {"country-name", "country"},
};

/* words of the label, name, id or placeholder -> kind, first match wins
 * (so "username" is a user name before it is a name) */
static const struct { const char *word, *kind; } by_word[] = {
  {"e-mail", "email"}, {"email", "email"}, {"mail", "email"},
  {"phone", "tel"}, {"mobile", "tel"}, {"telefon", "tel"}, {"tel", "tel"},
  {"zip", "postal"}, {"postal", "postal"}, {"postcode", "postal"}, {"plz", "postal"},
  {"website", "url"}, {"homepage", "url"}, {"url", "url"},
  {"user", "username"}, {"login", "username"},
  {"first name", "given_name"}, {"first_name", "given_name"}, {"firstname", "given_name"},
  {"given", "given_name"}, {"vorname", "given_name"},
  {"last name", "family_name"}, {"last_name", "family_name"}, {"lastname", "family_name"},
  {"surname", "family_name"}, {"family", "family_name"}, {"nachname", "family_name"},
  {"company", "organization"}, {"organi", "organization"}, {"firma", "organization"},
  {"street", "street"}, {"address", "street"}, {"strasse", "street"},
  {"city", "city"}, {"town", "city"}, {"country", "country"},
  {"title", "title"}, {"subject", "title"},
  {"message", "text_long"}, {"comment", "text_long"}, {"description", "text_long"}, {"notes", "text_long"},
  {"search", "search"}, {"name", "name"},
};

/* Types a draft never types into. */
static const char *const skipped_types[] = {"hidden", "file", "submit", "reset", "button", "image", "password"};

static int has_word(const char *text, const char *word) {
  if (!text) return 0;
  size_t n = strlen(word);
  for (const char *p = text; *p; p++)
    if (!strncasecmp(p, word, n)) return 1;
  return 0;
}

static int type_is(const crawl_fill_field *f, const char *t) { return f->type && !strcasecmp(f->type, t); }

/* The kind of a text-like field. */
static const fill_kind *text_kind(const crawl_fill_field *f) {
  for (size_t i = 0; i < sizeof by_type / sizeof *by_type; i++)
    if (type_is(f, by_type[i].type)) return kind_named(by_type[i].kind);
  for (size_t i = 0; i < sizeof by_token / sizeof *by_token; i++)
    if (pg_autocomplete_has(f->autocomplete, by_token[i].token) || pg_autocomplete_has(f->meaning, by_token[i].token))
      return kind_named(by_token[i].kind);
  const char *texts[] = {f->meaning, f->label, f->name, f->id, f->placeholder};
  for (size_t t = 0; t < sizeof texts / sizeof *texts; t++)
    for (size_t i = 0; i < sizeof by_word / sizeof *by_word; i++)
      if (has_word(texts[t], by_word[i].word)) return kind_named(by_word[i].kind);
  return kind_named(f->tag && !strcasecmp(f->tag, "textarea") ? "text_long" : "text");
}

static void put(char *out, size_t cap, const char *v) { snprintf(out, cap, "%s", v); }

/* ---- numbers ---- */
static int num(const char *s, double *v) {
  char *end;
  if (!s || !*s) return 0;
  *v = strtod(s, &end);
  return end != s && !*end && isfinite(*v);
}

static void fmt_num(double v, char *out, size_t cap) {
  if (fabs(v) < 1e-12) v = 0;
  snprintf(out, cap, "%.10g", v);
}

/* A number within [min, max] on the step grid (base min, else 0): the
 * middle of the range, else the minimum, else 42, moved onto the grid. */
static crawl_fill_status fill_number(const crawl_fill_field *f, char *out, size_t cap, const char **note) {
  double lo = 0, hi = 0, step = 1, want = 42;
  int has_lo = num(f->min, &lo), has_hi = num(f->max, &hi);
  if (f->step && !strcasecmp(f->step, "any")) step = 0;
  else if (num(f->step, &step) && step <= 0) step = 1;
  else if (!f->step) step = 1;
  if (has_lo && has_hi && hi < lo) {
    *note = "min is above max: no value is valid";
    put(out, cap, f->min);
    return CRAWL_FILL_FALLBACK;
  }
  if (has_lo && has_hi) want = lo + (hi - lo) / 2;
  else if (has_lo) want = lo > 42 ? lo : 42;
  else if (has_hi) want = hi < 42 ? hi : 42;
  double base = has_lo ? lo : 0, v = want;
  if (step > 0) {
    v = base + floor((want - base) / step + 1e-9) * step;
    if (has_lo && v < lo) v += step;
    if (has_hi && v > hi) v -= step;
    if ((has_lo && v < lo - 1e-9) || (has_hi && v > hi + 1e-9)) v = has_lo ? lo : hi;
  }
  fmt_num(v, out, cap);
  return CRAWL_FILL_OK;
}

/* ---- dates and times: ISO forms compare as strings ---- */
static const struct { const char *type, *value; } date_defaults[] = {
  {"date", "2030-06-15"}, {"month", "2030-06"}, {"week", "2030-W24"}, {"time", "12:00"},
  {"datetime-local", "2030-06-15T12:00"},
};

static int date_type(const crawl_fill_field *f) {
  for (size_t i = 0; i < sizeof date_defaults / sizeof *date_defaults; i++)
    if (type_is(f, date_defaults[i].type)) return (int)i;
  return -1;
}

/* The default, else min when the default is before it, else max when after. */
static crawl_fill_status fill_date(const crawl_fill_field *f, int k, char *out, size_t cap) {
  const char *v = date_defaults[k].value;
  if (f->min && *f->min && strcmp(v, f->min) < 0) v = f->min;
  else if (f->max && *f->max && strcmp(v, f->max) > 0) v = f->max;
  put(out, cap, v);
  return CRAWL_FILL_OK;
}

/* ---- text: kind, then lengths, then pattern ---- */
static void fit_length(const crawl_fill_field *f, char *out, size_t cap) {
  size_t n = strlen(out);
  if (f->maxlength >= 0 && n > (size_t)f->maxlength) out[n = (size_t)f->maxlength] = 0;
  while (f->minlength >= 0 && n < (size_t)f->minlength && n + 1 < cap) out[n++] = 'x', out[n] = 0;
}

static int length_ok(const crawl_fill_field *f, const char *v) {
  size_t n = strlen(v);
  return (f->maxlength < 0 || n <= (size_t)f->maxlength) && (f->minlength < 0 || n >= (size_t)f->minlength);
}

static crawl_fill_status fill_text(const crawl_fill_field *f, char *out, size_t cap, const char **kind,
                                   const char **note) {
  const fill_kind *k = text_kind(f);
  *kind = k->kind;
  put(out, cap, k->value);
  fit_length(f, out, cap);
  if (!f->pattern || !*f->pattern) return CRAWL_FILL_OK;
  int m = crawl__fill_pattern_match(f->pattern, out);
  if (m == 1) return CRAWL_FILL_OK;
  if (m < 0) {
    *note = "the pattern is outside the supported subset: the usual value was used";
    return CRAWL_FILL_FALLBACK;
  }
  char made[CRAWL_FILL_VALUE_MAX];
  long need = f->minlength;
  for (int extra = 0; extra <= 64; extra = extra ? extra * 2 : 1) {
    if (crawl__fill_pattern_make(f->pattern, k->prefer, extra, made, sizeof made)) break;
    if (crawl__fill_pattern_match(f->pattern, made) == 1 && length_ok(f, made)) {
      put(out, cap, made);
      *kind = "pattern";
      return CRAWL_FILL_OK;
    }
    if (need < 0 || strlen(made) >= (size_t)need) break;
  }
  *note = "no value made from the pattern fits the field's length limits: the usual value was used";
  return CRAWL_FILL_FALLBACK;
}

/* ---- choices ---- */
static crawl_fill_status fill_choice(const crawl_fill_field *f, char *out, size_t cap, const char **note) {
  for (size_t i = 0; i < f->noptions; i++)
    if (f->options[i] && *f->options[i]) {
      put(out, cap, f->options[i]);
      return CRAWL_FILL_OK;
    }
  *note = "no option with a value to choose";
  return CRAWL_FILL_SKIP;
}

crawl_fill_status crawl__fill_value(const crawl_fill_field *f, char *out, size_t cap, const char **kind,
                                    const char **note) {
  const char *k_ = NULL, *n_ = NULL;
  if (!kind) kind = &k_;
  if (!note) note = &n_;
  *kind = NULL;
  *note = NULL;
  if (!out || cap < 2) return CRAWL_FILL_SKIP;
  out[0] = 0;
  if (f->sensitive || pg_autocomplete_sensitive(f->autocomplete)) {
    *note = "a sensitive field (password, one-time code or card data): never filled";
    return CRAWL_FILL_SKIP;
  }
  for (size_t i = 0; i < sizeof skipped_types / sizeof *skipped_types; i++)
    if (type_is(f, skipped_types[i])) {
      *note = "a field of this type is not filled";
      return CRAWL_FILL_SKIP;
    }
  if (type_is(f, "checkbox")) {
    *kind = "checkbox";
    if (!f->required) { *note = "an optional checkbox is left as it is"; return CRAWL_FILL_SKIP; }
    put(out, cap, "on");
    return CRAWL_FILL_OK;
  }
  if (type_is(f, "radio") || (f->tag && !strcasecmp(f->tag, "select"))) {
    *kind = "option";
    return fill_choice(f, out, cap, note);
  }
  if (type_is(f, "number") || type_is(f, "range")) {
    *kind = "number";
    return fill_number(f, out, cap, note);
  }
  int d = date_type(f);
  if (d >= 0) {
    *kind = date_defaults[d].type;
    return fill_date(f, d, out, cap);
  }
  if (type_is(f, "color")) {
    *kind = "color";
    put(out, cap, "#336699");
    return CRAWL_FILL_OK;
  }
  return fill_text(f, out, cap, kind, note);
}

/* autofill.c -- the one reader of the autocomplete attribute's tokens.
 *
 * WHATWG autofill field names are ASCII case-insensitive ("CC-NUMBER",
 * "One-Time-Code" are "cc-number", "one-time-code") and whitespace
 * separated, with section-*, shipping/billing and webauthn tokens around
 * the field name ("section-pay billing cc-number"). The graph's redaction
 * (which fields never have their value published) and the policy's data
 * classes (policy/classify.c) both match tokens here, so the two can never
 * read an attribute differently. pg_attrs_sensitive is the whole rule of
 * what is sensitive (password type, data-uiap-sensitive, these tokens);
 * PG_SENSITIVE_SELECTOR in pg.h says the same in CSS for page scripts.
 */
#include "pg_int.h"

#include <string.h>
#include <strings.h>

static int is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f'; }
static char lower(char ch) { return (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch); }

/* 1 when tok (n bytes) is pattern, ASCII case-insensitively; a pattern
 * ending in '-' matches every token it starts. */
static int token_is(const char *tok, size_t n, const char *pattern) {
  size_t pl = strlen(pattern);
  int prefix = pl && pattern[pl - 1] == '-';
  if (prefix ? n < pl : n != pl) return 0;
  for (size_t i = 0; i < pl; i++)
    if (lower(tok[i]) != pattern[i]) return 0;
  return 1;
}

int pg_autocomplete_has(const char *ac, const char *token) {
  if (!ac || !token || !*token) return 0;
  const char *end = ac + strnlen(ac, PG_AUTOCOMPLETE_MAX);
  for (const char *p = ac; p < end;) {
    while (p < end && is_space(*p)) p++;
    const char *t = p;
    while (p < end && !is_space(*p)) p++;
    if (p > t && token_is(t, (size_t)(p - t), token)) return 1;
  }
  return 0;
}

/* Tokens whose field's value is never published (credentials, one-time
 * codes, card data): PG_SENSITIVE_TOKENS, which also makes the page
 * scripts' selector (PG_SENSITIVE_SELECTOR). Lower case; a trailing '-' is
 * a prefix. */
#define PG__TOKEN(tok, op) tok,
static const char *const sensitive_tokens[] = {PG_SENSITIVE_TOKENS(PG__TOKEN)};
#undef PG__TOKEN

int pg_autocomplete_sensitive(const char *ac) {
  for (size_t i = 0; i < sizeof sensitive_tokens / sizeof *sensitive_tokens; i++)
    if (pg_autocomplete_has(ac, sensitive_tokens[i])) return 1;
  return 0;
}

int pg_attrs_sensitive(const char *type, const char *data_uiap_sensitive, const char *autocomplete) {
  if (type && !strcasecmp(type, "password")) return 1;
  if (data_uiap_sensitive && strcmp(data_uiap_sensitive, "false")) return 1;
  return pg_autocomplete_sensitive(autocomplete);
}

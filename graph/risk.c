/* risk.c -- the one reading of data-uiap-risk.
 *
 * pg_build keeps the attribute's text on the element (pg__risk_attr); the
 * graph's JSON and the policy (policy/classify.c) both read that text with
 * pg_risk_parse, so a value means the same to every consumer. The rule is
 * the policy's: blanks around the value and letter case do not matter;
 * "safe", "confirm", "blocked"; any other value, "" included, is "confirm"
 * (an annotation we cannot read must not make a control look harmless);
 * no attribute is no annotation.
 */
#include "pg_int.h"

#include <string.h>

/* The values, by level: what the attribute says and the JSON publishes. */
static const char *const risk_words[] = {
  [PG_RISK_NONE] = NULL,
  [PG_RISK_SAFE] = "safe",
  [PG_RISK_CONFIRM] = "confirm",
  [PG_RISK_BLOCKED] = "blocked",
};

static int is_blank(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; }

/* s without the blanks around it: *n bytes from the returned pointer. */
static const char *trim(const char *s, size_t *n) {
  while (is_blank(*s)) s++;
  size_t len = strlen(s);
  while (len && is_blank(s[len - 1])) len--;
  *n = len;
  return s;
}

/* s[0..n) equals word, ASCII letters compared without case. */
static int word_is(const char *s, size_t n, const char *word) {
  if (n != strlen(word)) return 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char a = (unsigned char)s[i];
    if (a >= 'A' && a <= 'Z') a = (unsigned char)(a + 32);
    if (a != (unsigned char)word[i]) return 0;
  }
  return 1;
}

pg_risk pg_risk_parse(const char *text) {
  if (!text) return PG_RISK_NONE;
  size_t n;
  const char *v = trim(text, &n);
  for (size_t i = 1; i < sizeof risk_words / sizeof *risk_words; i++)
    if (word_is(v, n, risk_words[i])) return (pg_risk)i;
  return PG_RISK_CONFIRM;
}

const char *pg_risk_name(pg_risk r) {
  return (unsigned)r < sizeof risk_words / sizeof *risk_words ? risk_words[r] : NULL;
}

/* Kept trimmed so that the cap cannot change the verdict: a trimmed value
 * longer than the cap is no known word, and neither is its cut form, which
 * ends in "..." (a cut of "safe" + blanks + "x" must not read "safe"). */
char *pg__risk_attr(pg__arena *a, const char *raw) {
  if (!raw) return NULL;
  size_t n;
  const char *v = trim(raw, &n);
  if (n <= PG_RISK_ATTR_MAX) return pg__strndup(a, v, n);
  size_t cut = PG_RISK_ATTR_MAX - 3;
  while (cut && ((unsigned char)v[cut] & 0xC0) == 0x80) cut--; /* on a character boundary */
  return pg__printf(a, "%.*s...", (int)cut, v);
}

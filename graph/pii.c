/* pii.c -- personal data for --redact pii (pg.h: "personal data"): the
 * detectors of e-mail addresses and phone numbers in any text, and of form
 * fields and table columns that hold a person's name. One module, so that
 * the graph, the crawler's write filter and the tests share one list of
 * rules. Careful before general: a phone number needs the shape of one
 * (seven to fifteen digits in groups, or a leading '+'), and dates, times,
 * prices, version numbers, IP addresses and identifiers glued to letters
 * are left alone. */
#include "pg_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- e-mail addresses ---------------------------------------------------- */
static int local_char(unsigned char ch) { return isalnum(ch) || (ch && strchr("._%+-_", ch)); }
static int label_char(unsigned char ch) { return isalnum(ch) || ch == '-'; }

/* A file name like icon@2x.png, not an address. */
static int file_like(const char *dom, size_t len, const char *last) {
  static const char *const exts[] = {"png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "bmp", "avif", "css", "js"};
  for (size_t k = 0; k < sizeof exts / sizeof *exts; k++)
    if (!strcasecmp(last, exts[k])) return 1;
  size_t d = 0;
  while (d < len && isdigit((unsigned char)dom[d])) d++;
  return d > 0 && d < len && (dom[d] == 'x' || dom[d] == 'X') && (d + 1 == len || dom[d + 1] == '.');
}

/* An address whose '@' (or "%40": at_len 3) is at text[at]: *start and
 * *end (exclusive); 0 when there is none. */
static int email_at(const char *text, size_t n, size_t at, size_t at_len, size_t *start, size_t *end) {
  size_t s = at;
  while (s > 0 && local_char((unsigned char)text[s - 1])) s--;
  while (s < at && (text[s] == '.' || text[s] == '%' || text[s] == '+' || text[s] == '-')) s++;
  if (s == at) return 0;
  size_t p = at + at_len, labels = 0, last = p, e = p;
  for (;;) {
    size_t q = p;
    while (q < n && label_char((unsigned char)text[q])) q++;
    if (q == p) break;
    labels++;
    last = p;
    e = q;
    if (q + 1 < n && text[q] == '.' && label_char((unsigned char)text[q + 1])) p = q + 1;
    else break;
  }
  if (labels < 2 || e - last < 2 || e - last > 24) return 0;
  char tld[32];
  memcpy(tld, text + last, e - last);
  tld[e - last] = 0;
  for (size_t k = 0; tld[k]; k++)
    if (!isalpha((unsigned char)tld[k])) return 0;
  if (file_like(text + at + at_len, e - at - at_len, tld)) return 0;
  *start = s;
  *end = e;
  return 1;
}

/* ---- phone numbers ------------------------------------------------------- */
typedef struct {
  int digits, groups, len[24], plus, paren;
  char sep[24];   /* separator before group k (0: none) */
} phone_shape;

static int is_sep(char ch) { return ch == ' ' || ch == '-' || ch == '.' || ch == '/'; }

/* The longest run of digit groups from text[p]; *end after it. */
static void phone_scan(const char *text, size_t n, size_t p, phone_shape *sh, size_t *end) {
  memset(sh, 0, sizeof *sh);
  if (text[p] == '+') {
    sh->plus = 1;
    p++;
  }
  char sep = 0;
  for (;;) {
    size_t q = p;
    int paren = q < n && text[q] == '(';
    if (paren) q++;
    size_t d0 = q;
    while (q < n && isdigit((unsigned char)text[q])) q++;
    if (q == d0 || (paren && (q >= n || text[q] != ')'))) break;
    if (paren) {
      q++;
      sh->paren = 1;
    }
    if (sh->groups < 24) {
      sh->len[sh->groups] = (int)((paren ? q - 1 : q) - d0);
      sh->sep[sh->groups] = sep;
      sh->groups++;
    }
    sh->digits += (int)((paren ? q - 1 : q) - d0);
    *end = q;
    p = q;
    sep = 0;
    if (p < n && is_sep(text[p]) && p + 1 < n && (isdigit((unsigned char)text[p + 1]) || text[p + 1] == '(')) {
      sep = text[p];
      p++;
    } else if (!(p < n && (text[p] == '(' || (paren && isdigit((unsigned char)text[p]))))) {
      break; /* "(0)30": digits may follow a bracketed group at once */
    }
  }
}

/* A currency sign or code next to [s, e): a price, not a number to call. */
static int currency_near(const char *text, size_t n, size_t s, size_t e) {
  static const char *const signs[] = {"$", "\xe2\x82\xac", "\xc2\xa3", "\xc2\xa5", "EUR", "USD", "GBP", "CHF", "JPY"};
  size_t b = s;
  while (b > 0 && text[b - 1] == ' ') b--;
  size_t a = e;
  while (a < n && text[a] == ' ') a++;
  for (size_t k = 0; k < sizeof signs / sizeof *signs; k++) {
    size_t l = strlen(signs[k]);
    if (b >= l && !memcmp(text + b - l, signs[k], l)) return 1;
    if (a + l <= n && !memcmp(text + a, signs[k], l)) return 1;
  }
  return 0;
}

static int year(const char *text, size_t at) {
  int y = atoi(text + at);
  return y >= 1000 && y <= 2999;
}

/* Dates (2026-12-01, 01.12.2026, 1/2/26), years (1990-2020), IP
 * addresses, and dotted thousands (1.234.567): not phone numbers. */
static int not_a_phone(const phone_shape *sh, const char *text, size_t s) {
  if (sh->plus || sh->paren) return 0;
  int same = 1;
  for (int k = 2; k < sh->groups; k++) same &= sh->sep[k] == sh->sep[1];
  char sp = sh->groups > 1 ? sh->sep[1] : 0;
  const int *l = sh->len;
  if (sh->groups == 3 && same && sp != ' ' &&
      ((l[0] == 4 && l[1] <= 2 && l[2] <= 2) || (l[0] <= 2 && l[1] <= 2 && (l[2] == 4 || l[2] == 2))))
    return 1;
  int years = 1; /* 1990-2020, "2024 2025 2026": years, not a number */
  size_t at = s;
  for (int k = 0; k < sh->groups; k++) {
    years &= l[k] == 4 && year(text, at);
    at += (size_t)l[k] + 1;
  }
  if (years) return 1;
  if (sh->groups == 4 && same && sp == '.' && l[0] <= 3 && l[1] <= 3 && l[2] <= 3 && l[3] <= 3) return 1;
  if (sp == '.' && same) {
    int thousands = 1;
    for (int k = 1; k < sh->groups; k++) thousands &= l[k] == 3;
    if (thousands) return 1;
  }
  return 0;
}

static int phone_shape_ok(const phone_shape *sh) {
  if (sh->digits < 7 || sh->digits > 15) return 0;
  if (!sh->plus && !sh->paren && sh->groups < 2) return 0;
  for (int k = 0; k < sh->groups; k++)
    if (sh->len[k] < 2 && !(k <= 1 && sh->plus) && !(sh->paren && sh->len[k] == 1)) return 0;
  return 1;
}

static int boundary_before(const char *text, size_t s) {
  if (!s) return 1;
  unsigned char ch = (unsigned char)text[s - 1];
  return !isalnum(ch) && !strchr("_-./#@&%+", ch);
}

/* After [s, e): no letter or digit glued on, no decimal part, no time. */
static int boundary_after(const char *text, size_t n, size_t e) {
  if (e >= n) return 1;
  unsigned char ch = (unsigned char)text[e];
  if (isalnum(ch) || ch == '_' || ch == '%' || ch == '@') return 0;
  if ((ch == '.' || ch == ',' || ch == ':' || ch == '-' || ch == '/') && e + 1 < n && isdigit((unsigned char)text[e + 1]))
    return 0;
  return 1;
}

/* A phone number starting at text[s] (a '+', '(' or digit after a
 * boundary): its end; 0 when there is none. *skip: where to go on. */
static size_t phone_at(const char *text, size_t n, size_t s, size_t *skip) {
  phone_shape sh;
  size_t e = s;
  phone_scan(text, n, s, &sh, &e);
  *skip = e > s ? e : s + 1; /* the run whole: no tail of a rejected one is a number */
  if (e == s || !boundary_before(text, s) || !boundary_after(text, n, e) || !phone_shape_ok(&sh) ||
      not_a_phone(&sh, text, s) || currency_near(text, n, s, e))
    return 0;
  return e;
}

int pg_pii_find(const char *text, size_t n, size_t from, size_t *start, size_t *len, pg_pii_kind *kind) {
  if (!text) return 0;
  for (size_t p = from; p < n;) {
    unsigned char ch = (unsigned char)text[p];
    size_t at_len = ch == '@' ? 1 : (ch == '%' && p + 2 < n && text[p + 1] == '4' && text[p + 2] == '0') ? 3 : 0;
    size_t s, e, skip;
    if (at_len && email_at(text, n, p, at_len, &s, &e) && s >= from) {
      *start = s;
      *len = e - s;
      *kind = PG_PII_EMAIL;
      return 1;
    }
    if (isdigit(ch) || ((ch == '+' || ch == '(') && p + 1 < n && isdigit((unsigned char)text[p + 1]))) {
      if ((e = phone_at(text, n, p, &skip)) != 0) {
        /* an address that starts with digits (5551234@x.org) is the address */
        size_t q = e;
        while (q < n && local_char((unsigned char)text[q])) q++;
        if (!(q < n && text[q] == '@')) {
          *start = p;
          *len = e - p;
          *kind = PG_PII_PHONE;
          return 1;
        }
      }
      p = skip;
      continue;
    }
    p++;
  }
  return 0;
}

const char *pg_pii_label(pg_pii_kind k) {
  static const char *const labels[] = {NULL, PG_PII_EMAIL_MASK, PG_PII_PHONE_MASK, PG_PII_NAME_MASK};
  return k > PG_PII_NONE && k <= PG_PII_NAME ? labels[k] : NULL;
}

char *pg_pii_mask(const char *text, int *hits) {
  if (hits) *hits = 0;
  if (!text) return NULL;
  size_t n = strlen(text), from = 0, s, l;
  pg_pii_kind k;
  char *out = NULL;
  size_t olen = 0, ocap = 0;
  int count = 0;
  while (pg_pii_find(text, n, from, &s, &l, &k)) {
    const char *lab = pg_pii_label(k);
    size_t need = olen + (s - from) + strlen(lab) + 1;
    if (need > ocap) {
      ocap = need * 2 + 64;
      out = crawl__xrealloc(out, ocap);
    }
    memcpy(out + olen, text + from, s - from);
    olen += s - from;
    memcpy(out + olen, lab, strlen(lab));
    olen += strlen(lab);
    from = s + l;
    count++;
  }
  if (!count) return NULL;
  size_t rest = n - from;
  out = crawl__xrealloc(out, olen + rest + 1);
  memcpy(out + olen, text + from, rest);
  out[olen + rest] = 0;
  if (hits) *hits = count;
  return out;
}

/* ---- names ------------------------------------------------------------- */
/* label lower-cased, trimmed, "(...)", '*' and ':' dropped, blanks collapsed. */
static void norm_label(const char *s, char *out, size_t cap) {
  size_t o = 0;
  int depth = 0, space = 0;
  for (; s && *s && o + 2 < cap; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '(') depth++;
    else if (ch == ')' && depth) depth--;
    else if (depth || ch == '*' || ch == ':') continue;
    else if (isspace(ch) || ch == '_') space = o > 0;
    else {
      if (space) out[o++] = ' ';
      space = 0;
      out[o++] = (char)tolower(ch);
    }
  }
  out[o] = 0;
}

/* Labels and column headers that say "a person's name". Not "company
 * name", "file name", "project name": those are not people. */
static const char *const name_labels[] = {
  "name", "full name", "fullname", "your name", "first name", "last name", "given name", "family name",
  "surname", "middle name", "first and last name", "contact name", "person", "customer name",
  "customer", "display name", "user name", "username", "nickname", "vorname", "nachname", "familienname",
  "vor- und nachname", "name, vorname", "benutzername", "nom", "prénom", "nombre", "apellido", "apellidos",
  "cognome", "nome"};

int pg_pii_name_label(const char *label) {
  char buf[128];
  norm_label(label, buf, sizeof buf);
  for (size_t k = 0; k < sizeof name_labels / sizeof *name_labels; k++)
    if (!strcmp(buf, name_labels[k])) return 1;
  return 0;
}

/* name/id attribute: letters and digits only, lower case. */
static void norm_attr(const char *s, char *out, size_t cap) {
  size_t o = 0;
  for (; s && *s && o + 1 < cap; s++)
    if (isalnum((unsigned char)*s)) out[o++] = (char)tolower((unsigned char)*s);
  out[o] = 0;
}

static int ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

static int name_attr(const char *v) {
  static const char *const exact[] = {"name", "fname", "lname", "username", "vorname", "nachname", "nickname"};
  static const char *const suffix[] = {"fullname", "firstname", "lastname", "givenname", "familyname",
                                       "surname", "middlename", "contactname", "customername", "yourname",
                                       "username"};
  char buf[96];
  norm_attr(v, buf, sizeof buf);
  if (!buf[0]) return 0;
  for (size_t k = 0; k < sizeof exact / sizeof *exact; k++)
    if (!strcmp(buf, exact[k])) return 1;
  for (size_t k = 0; k < sizeof suffix / sizeof *suffix; k++)
    if (ends_with(buf, suffix[k])) return 1;
  return 0;
}

static const char *const name_tokens[] = {"name", "given-name", "family-name", "additional-name", "nickname",
                                          "honorific-prefix", "honorific-suffix", "username"};

pg_pii_kind pg_pii_field_kind(const char *type, const char *autocomplete, const char *name, const char *id,
                              const char *label) {
  if ((type && !strcasecmp(type, "email")) || pg_autocomplete_has(autocomplete, "email")) return PG_PII_EMAIL;
  if ((type && !strcasecmp(type, "tel")) || pg_autocomplete_has(autocomplete, "tel")) return PG_PII_PHONE;
  for (size_t k = 0; k < sizeof name_tokens / sizeof *name_tokens; k++)
    if (pg_autocomplete_has(autocomplete, name_tokens[k])) return PG_PII_NAME;
  if (pg_autocomplete_has(autocomplete, "tel-")) return PG_PII_PHONE;
  if (name_attr(name) || name_attr(id) || pg_pii_name_label(label)) return PG_PII_NAME;
  return PG_PII_NONE;
}

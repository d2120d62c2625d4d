/* graph_pii.c -- the detectors behind --redact pii (graph/pii.c): e-mail
 * addresses and phone numbers in text (positives in several formats,
 * negatives that look alike: dates, times, prices, versions, IP
 * addresses, identifiers), the masking of a text, and which form fields
 * and labels hold a person's name. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "pg.h"

/* text, and what pg_pii_mask makes of it (NULL: left alone) */
static const struct { const char *in, *out; } masked[] = {
  /* e-mail addresses */
  {"jane.doe@example.com", "[email]"},
  {"Write to Help.Desk+crm@mail.example.co.uk today", "Write to [email] today"},
  {"mailto:o'neil@x.io", "mailto:o'[email]"},
  {"<jane_doe99@sub.example.org>", "<[email]>"},
  {"a@b.de, c.d@e-f.com", "[email], [email]"},
  {"/contacts?email=jane%40example.com&x=1", "/contacts?email=[email]&x=1"},
  {"5551234@pager.example.net", "[email]"},
  /* phone numbers */
  {"+1 (555) 010-0199", "[phone]"},
  {"Call +49 30 901820 now", "Call [phone] now"},
  {"tel:+15550100199", "tel:[phone]"},
  {"(030) 1234-5678", "[phone]"},
  {"030 1234 5678", "[phone]"},
  {"555-010-0199", "[phone]"},
  {"555.010.0199", "[phone]"},
  {"+44 20 7946 0958.", "[phone]."},
  {"+49 (0)30 123456", "[phone]"},
  {"Phone: 0171/1234567", "Phone: [phone]"},
  {"+33 1 23 45 67 89", "[phone]"},
  {"jane@example.com / +1 555 010 0199", "[email] / [phone]"},
};

/* texts that are not personal data */
static const char *const untouched[] = {
  /* dates and times */
  "2026-12-01", "01.12.2026", "12/01/2026", "1/2/26", "2026-12-01T19:21:25.123Z", "19:21:25",
  "2026-12-01 19:21", "1990-2020", "2024 2025 2026", "Showing 1 - 10 of 1234",
  /* prices and amounts */
  "$1,234,567.00", "1.234.567,89 \xe2\x82\xac", "EUR 12 345 678", "12 345 678 \xe2\x82\xac", "USD 1 555 010 0199",
  "1.234.567", "3.14159265", "12345678,90",
  /* versions, addresses, ids */
  "10.0.19041.1", "192.168.100.200", "v1.2.3", "ORD-2024-0012-3456", "#12345678", "ID 12345678",
  "123e4567-e89b-12d3-a456-426614174000", "978-3-16-148410-0", "4111 1111 1111 1111", "s_1234567890abcdef",
  "DE89 3704 0044 0532 0130 00", "x2024 0012 3456", "width=1280&height=800", "99.5%", "0.25",
  /* e-mail look-alikes */
  "icon@2x.png", "logo@3x.webp", "@jane", "user@localhost", "a@b", "name@domain.c1",
  "rev_1234567", "page 1234 of 5678",
};

Test(graph_pii, masks_addresses_and_numbers) {
  for (size_t k = 0; k < sizeof masked / sizeof *masked; k++) {
    int hits = 0;
    char *m = pg_pii_mask(masked[k].in, &hits);
    cr_expect(m, "\"%s\" holds personal data", masked[k].in);
    if (m) cr_expect_str_eq(m, masked[k].out, "\"%s\"", masked[k].in);
    cr_expect_gt(hits, 0);
    free(m);
  }
}

Test(graph_pii, leaves_look_alikes_alone) {
  for (size_t k = 0; k < sizeof untouched / sizeof *untouched; k++) {
    char *m = pg_pii_mask(untouched[k], NULL);
    cr_expect_null(m, "\"%s\" is not personal data, but became \"%s\"", untouched[k], m ? m : "");
    free(m);
  }
  cr_expect_null(pg_pii_mask(NULL, NULL));
  cr_expect_null(pg_pii_mask("", NULL));
}

Test(graph_pii, find_reports_kind_and_span) {
  const char *t = "Jane: jane@example.com, +1 555 010 0199";
  size_t s, l;
  pg_pii_kind k;
  cr_assert(pg_pii_find(t, strlen(t), 0, &s, &l, &k));
  cr_expect_eq(k, PG_PII_EMAIL);
  cr_expect_eq(s, 6);
  cr_expect_eq(l, strlen("jane@example.com"));
  cr_assert(pg_pii_find(t, strlen(t), s + l, &s, &l, &k));
  cr_expect_eq(k, PG_PII_PHONE);
  cr_expect_str_eq(t + s, "+1 555 010 0199");
  cr_expect_not(pg_pii_find(t, strlen(t), s + l, &s, &l, &k));
  cr_expect_str_eq(pg_pii_label(PG_PII_NAME), "[name]");
  cr_expect_null(pg_pii_label(PG_PII_NONE));
}

Test(graph_pii, name_labels) {
  static const char *const yes[] = {"Name", "Full name", "full name *", "Last name:", "First Name (required)",
                                    "Surname", "Vorname", "Nachname *", "Username", "Contact name", "Display name"};
  static const char *const no[] = {"Company name", "File name", "Project name", "Domain name", "Names and numbers",
                                   "E-mail", "Phone", "", "Product", "Contact"};
  for (size_t k = 0; k < sizeof yes / sizeof *yes; k++) cr_expect(pg_pii_name_label(yes[k]), "\"%s\"", yes[k]);
  for (size_t k = 0; k < sizeof no / sizeof *no; k++) cr_expect_not(pg_pii_name_label(no[k]), "\"%s\"", no[k]);
  cr_expect_not(pg_pii_name_label(NULL));
}

Test(graph_pii, field_kinds) {
  static const struct { const char *type, *ac, *name, *id, *label; pg_pii_kind want; } cases[] = {
    {"email", NULL, NULL, NULL, NULL, PG_PII_EMAIL},
    {"text", "work email", NULL, NULL, "Contact", PG_PII_EMAIL},
    {"tel", NULL, NULL, NULL, NULL, PG_PII_PHONE},
    {"text", "tel-national", NULL, NULL, NULL, PG_PII_PHONE},
    {"text", "shipping given-name", NULL, NULL, NULL, PG_PII_NAME},
    {"text", "family-name", NULL, NULL, NULL, PG_PII_NAME},
    {"text", "username", NULL, NULL, NULL, PG_PII_NAME},
    {"text", NULL, "full_name", NULL, NULL, PG_PII_NAME},
    {"text", NULL, "user[first_name]", NULL, NULL, PG_PII_NAME},
    {"text", NULL, NULL, "lastName", NULL, PG_PII_NAME},
    {NULL, NULL, "q", "search", "Full name", PG_PII_NAME},
    {"text", NULL, "company_name", "company", "Company name", PG_PII_NONE},
    {"text", NULL, "filename", NULL, "File", PG_PII_NONE},
    {"text", "off", "q", "search", "Search", PG_PII_NONE},
    {"number", NULL, "qty", NULL, "Quantity", PG_PII_NONE},
    {NULL, NULL, NULL, NULL, NULL, PG_PII_NONE},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
    cr_expect_eq(pg_pii_field_kind(cases[k].type, cases[k].ac, cases[k].name, cases[k].id, cases[k].label),
                 cases[k].want, "case %zu", k);
}

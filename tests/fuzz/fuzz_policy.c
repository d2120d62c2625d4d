/* fuzz_policy.c -- libFuzzer target for the policy's readers of page text:
 * pol_classify (lexicons over names, context and URLs; icon glyphs,
 * classes and ligatures; submissions), pol_decide, pol_url_intent and the
 * autocomplete reader.
 *
 *   CC=clang cmake -S . -B build-fuzz -DUIAP_FUZZ=ON && cmake --build build-fuzz --target fuzz_policy
 *   build-fuzz/tests/fuzz/fuzz_policy -max_total_time=300 new-corpus/ tests/fuzz/corpus/policy/
 *
 * The input is the subject's text fields, one a line (see `fields`).
 * Besides "no crash, no leak, no undefined behaviour" it checks what the
 * policy promises: a verdict in range, the same verdict twice; a link
 * whose URL reads as destructive, logout or payment is never allowed (one
 * URL reading for links and pol_url_intent); a close glyph on a list item
 * and a trash icon are never allowed; allow flags lift nothing in
 * safe_explore. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pol.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

static const size_t fields[] = {
  offsetof(pol_subject, name),           offsetof(pol_subject, context),
  offsetof(pol_subject, href),           offsetof(pol_subject, form_action),
  offsetof(pol_subject, form_method),    offsetof(pol_subject, autocomplete),
  offsetof(pol_subject, icon_classes),   offsetof(pol_subject, icon_text),
  offsetof(pol_subject, container_kind), offsetof(pol_subject, container_role),
  offsetof(pol_subject, role),           offsetof(pol_subject, app_action),
  offsetof(pol_subject, action),         offsetof(pol_subject, risk),
  offsetof(pol_subject, input_type),
};
#define NFIELDS (sizeof fields / sizeof fields[0])

static int deny_class(pol_side_effect se)
{
  return se == POL_SE_DESTRUCTIVE || se == POL_SE_IRREVERSIBLE || se == POL_SE_SECURITY_CHANGE ||
         se == POL_SE_BILLING_CHANGE || se == POL_SE_EXTERNAL_EFFECT;
}

static void verdict(const pol_subject *s, const pol_policy *p, pol_classification *c, pol_decision *d)
{
  CHECK(pol_classify(s, c) == POL_OK);
  CHECK((unsigned)c->side_effect < POL__SE_COUNT && c->rule[0] && memchr(c->rule, 0, sizeof c->rule));
  CHECK(pol_decide(p, s, c, d) == POL_OK);
  CHECK((unsigned)d->effect < POL__EFFECT_COUNT && memchr(d->text, 0, sizeof d->text));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = 0;
  pol_subject s = {.page_origin = "http://127.0.0.1:8000", .is_submit = size && data[0] & 1};
  char *p = text;
  for (size_t f = 0; f < NFIELDS && p; f++) {
    char *nl = strchr(p, '\n');
    if (nl)
      *nl = 0;
    *(const char **)((char *)&s + fields[f]) = *p ? p : NULL;
    p = nl ? nl + 1 : NULL;
  }
  pol_classification c, c2;
  pol_decision d, d2;
  verdict(&s, NULL, &c, &d);
  verdict(&s, NULL, &c2, &d2);
  CHECK(c.side_effect == c2.side_effect && !strcmp(c.rule, c2.rule) && d.effect == d2.effect);
  if (deny_class(c.side_effect))
    CHECK(d.effect == POL_EFFECT_DENY);
  pol_policy all = {.allow_destructive_actions = 1, .allow_payment_flows = 1, .allow_auth_flows = 1,
                    .allow_external_effects = 1};
  verdict(&s, &all, &c2, &d2);
  CHECK(d2.effect == d.effect); /* safe_explore: flags lift nothing */

  /* one URL reading: a link whose URL names a denied class is denied */
  pol_classification u;
  pol_side_effect ue = pol_url_intent(s.href, &u);
  CHECK(ue == u.side_effect && (unsigned)ue < POL__SE_COUNT);
  if (s.href && deny_class(ue)) {
    pol_subject link = {.role = "link", .name = s.name, .href = s.href, .page_origin = s.page_origin};
    verdict(&link, NULL, &c2, &d2);
    CHECK(d2.effect == POL_EFFECT_DENY);
  }
  /* a close glyph on a list item, a trash icon: never executed */
  pol_subject x = {.role = "button", .name = "\xC3\x97", .container_kind = "listitem",
                   .icon_classes = s.icon_classes, .icon_text = s.icon_text};
  verdict(&x, NULL, &c2, &d2);
  CHECK(d2.effect == POL_EFFECT_DENY);
  pol_subject t = {.role = "button", .icon_classes = "fa fa-trash", .container_kind = s.container_kind,
                   .container_role = s.container_role};
  verdict(&t, NULL, &c2, &d2);
  CHECK(d2.effect == POL_EFFECT_DENY);
  free(text);
  return 0;
}

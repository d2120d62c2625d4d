/* secrets_int.h -- between the secret list (secrets.c) and the spellings
 * of a secret it keeps (secret_forms.c). Never leaves crawler/common. */
#ifndef UIAP_SECRETS_INT_H
#define UIAP_SECRETS_INT_H

#include <stddef.h>

#include "crawl_secrets.h"

/* One spelling of the value being added (v, n bytes, copied), replaced by
 * mask; value: 1 for the value as added. A spelling the list already has
 * is not kept twice. */
void crawl__secrets_form(crawl__secrets *s, const char *v, size_t n, const char *mask, int value);
/* Every other spelling of value v (n bytes): its upper- and lower-case
 * forms, its hex (either case), its base64 (standard and URL-safe, at each
 * of the three alignments), each through crawl__secrets_form. */
void crawl__secret_forms(crawl__secrets *s, const char *v, size_t n, const char *mask);

#endif

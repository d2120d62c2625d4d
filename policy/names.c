/* names.c -- enum <-> spec string tables of the policy module (error codes,
 * side-effect classes, data classes, modes, effects, reasons) and the
 * redaction mask. Every table is generated from the X-macro lists in pol.h,
 * so a name can never drift from its enum. */
#include <string.h>

#include "pol_int.h"

#define STR2(name, str) str,

static const char *const err_msgs[] = {
#define POL__MSG(name, msg) msg,
  POL_ERRNO_MAP(POL__MSG)
#undef POL__MSG
};
static const char *const se_names[] = {POL_SIDE_EFFECT_MAP(STR2)};
static const char *const dc_names[] = {POL_DATA_CLASS_MAP(STR2)};
static const char *const mode_names[] = {POL_MODE_MAP(STR2)};
static const char *const effect_names[] = {POL_EFFECT_MAP(STR2)};
static const char *const reason_names[] = {POL_REASON_MAP(STR2)};

#define NAME_OF(table, v) \
  ((unsigned)(v) < sizeof table / sizeof table[0] ? table[v] : "?")

const char *pol_strerror(pol_code code) { return NAME_OF(err_msgs, code); }
const char *pol_side_effect_name(pol_side_effect se) { return NAME_OF(se_names, se); }
const char *pol_data_class_name(pol_data_class dc) { return NAME_OF(dc_names, dc); }
const char *pol_mode_name(pol_mode m) { return NAME_OF(mode_names, m); }
const char *pol_effect_name(pol_effect e) { return NAME_OF(effect_names, e); }
const char *pol_reason_name(pol_reason r) { return NAME_OF(reason_names, r); }

static int lookup(const char *const *table, size_t n, const char *s)
{
  for (size_t i = 0; s && i < n; i++)
    if (!strcmp(table[i], s))
      return (int)i;
  return -1;
}

pol_code pol_side_effect_parse(const char *s, pol_side_effect *out)
{
  int i = lookup(se_names, POL__SE_COUNT, s);
  if (i < 0 || !out)
    return i < 0 ? POL_PARSE : POL_ARG;
  *out = (pol_side_effect)i;
  return POL_OK;
}

pol_code pol_mode_parse(const char *s, pol_mode *out)
{
  int i = lookup(mode_names, POL__MODE_COUNT, s);
  if (i < 0 || !out)
    return i < 0 ? POL_PARSE : POL_ARG;
  *out = (pol_mode)i;
  return POL_OK;
}

/* Four U+2022 BULLET: fixed length, so the mask reveals nothing about the
 * value (not its length, not whether it was empty). */
const char *pol_mask(void) { return "\xE2\x80\xA2\xE2\x80\xA2\xE2\x80\xA2\xE2\x80\xA2"; }

/* pg_int.h -- private to graph/: the arena and the role tables. */
#ifndef UIAP_PG_INT_H
#define UIAP_PG_INT_H

#include "pg.h"

/* One arena per graph: every string of a capture, freed at once. */
typedef struct pg__arena pg__arena;
pg__arena *pg__arena_new(void);
void pg__arena_free(pg__arena *a);
void *pg__alloc(pg__arena *a, size_t n);           /* zeroed; aborts on OOM */
char *pg__strdup(pg__arena *a, const char *s);      /* NULL -> NULL */
char *pg__strndup(pg__arena *a, const char *s, size_t n);
char *pg__printf(pg__arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Out-of-memory aborts here, in one place. */
void *pg__xmalloc(size_t n);
void *pg__xrealloc(void *p, size_t n);

/* Role facts, one row per computed role (roles.c). */
enum {
  PG__R_INTERACTIVE = 1u << 0,  /* published by default when visible */
  PG__R_STATUS      = 1u << 1,  /* status / feedback: published by default */
  PG__R_TEXT        = 1u << 2,  /* text, never an element */
  PG__R_EDITABLE    = 1u << 3,  /* takes text input */
  PG__R_CHECKABLE   = 1u << 4,
  PG__R_CHOOSER     = 1u << 5,  /* combobox / listbox */
  PG__R_OPTION      = 1u << 6,
  PG__R_NAVLINK     = 1u << 7,
  PG__R_ACTIVATE    = 1u << 8,  /* activatable by click */
  PG__R_RANGE       = 1u << 9,
  PG__R_NOISE       = 1u << 10, /* timer, marquee: not published by default */
};
typedef struct pg__role_info {
  const char *role;
  unsigned flags;
  int scope;                     /* pg_scope_kind, or -1 */
} pg__role_info;
const pg__role_info *pg__role_lookup(const char *role);

/* Map a Chromium-internal role to its ARIA name (NULL: not an element). */
const char *pg__role_normalize(const char *chrome_role);
/* Implicit role from tag (and input type) when no AX data is available. */
const char *pg__role_from_tag(const char *tag, const char *type, int has_href);

#endif

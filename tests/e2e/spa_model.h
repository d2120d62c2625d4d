/* spa_model.h -- the state space of tests/fixtures/spa/index.html, as a
 * model the crawl tests compare the crawler's result with. */
#ifndef UIAP_TEST_SPA_MODEL_H
#define UIAP_TEST_SPA_MODEL_H

#include <string.h>

/* ---- the model of tests/fixtures/spa/index.html ---------------------------------- */
typedef struct { int route, tab, exp, menu, dialog; } mstate;

enum { C_NAV0, C_NAV1, C_MENU, C_REFRESH, C_TAB0, C_TAB1, C_ACC, C_DETAILS, C_CLOSE, C_ESCAPE, C__N };

/* Is control c visible and allowed in s; where does it lead? */
static inline int model_step(mstate s, int c, mstate *out) {
  mstate n = s;
  if (s.dialog) {
    if (c != C_CLOSE && c != C_ESCAPE) return 0;
    n.dialog = 0;
    *out = n;
    return 1;
  }
  if (c == C_CLOSE || c == C_ESCAPE) return 0;
  if (c == C_REFRESH && !s.menu) return 0;
  if (c == C_ACC && s.tab != 0) return 0;
  n.menu = 0;
  switch (c) {
  case C_NAV0: case C_NAV1: {
    int r = c == C_NAV0 ? 0 : 1;
    if (r != s.route) n = (mstate){r, 0, 0, 0, 0};
    break;
  }
  case C_MENU: n.menu = !s.menu; break;
  case C_TAB0: case C_TAB1: {
    int t = c == C_TAB0 ? 0 : 1;
    if (t != s.tab) { n.tab = t; n.exp = 0; }
    break;
  }
  case C_ACC: n.exp ^= 1; break;
  case C_DETAILS: n.dialog = 1; break;
  default: break;
  }
  *out = n;
  return 1;
}

static inline int mindex(const mstate *v, int n, mstate s) {
  for (int i = 0; i < n; i++)
    if (!memcmp(&v[i], &s, sizeof s)) return i;
  return -1;
}

/* BFS over the model: number of states and of (state, control) pairs that
 * change the state. */
static inline void model_counts(int *nstates, int *ntransitions) {
  mstate v[256];
  int n = 1, t = 0;
  v[0] = (mstate){0, 0, 0, 0, 0};
  for (int i = 0; i < n; i++)
    for (int c = 0; c < C__N; c++) {
      mstate to;
      if (!model_step(v[i], c, &to)) continue;
      if (memcmp(&to, &v[i], sizeof to)) t++;
      if (mindex(v, n, to) < 0) v[n++] = to;
    }
  *nstates = n;
  *ntransitions = t;
}

#endif

/* api_int.h -- what the parts of the endpoint catalog (api.c: the model from
 * the `requests` records, api_template.c: templates, api_out.c: api.json,
 * api_diff.c: two runs compared) share. docs/api.md. */
#ifndef UIAP_API_INT_H
#define UIAP_API_INT_H

#include "pkg_int.h"

#define API_NKINDS 4
#define API_CALLERS_MAX 20   /* calledFrom.transitions (and .actions) listed per endpoint */
#define API_EXAMPLES_MAX 3

/* One endpoint: method + origin + template. Sets hold pool strings. */
typedef struct api_ep {
  char *id, *method, *origin, *tpl;
  char **params; size_t nparams;
  int kind;                 /* rank in api_kinds */
  strset query, statuses, ctypes, examples;
  strset loads, states, routes;
  strset transitions;       /* "transitionId \x1f actionId \x1f target JSON" */
  strset actions;           /* self-loops: "stateId \x1f actionId \x1f target JSON" */
  strset principals;        /* "principal \x1f status" ("" when nothing came back) */
  strset bkinds, shapes, gql; /* body kinds, shape JSON texts, "name \x1f type" */
  long count, passed, read, stopped;
} api_ep;

struct pk_api {
  pk_tpl_learner *learner;
  strset ep_keys; api_ep *eps;    /* "origin \x1f template \x1f method" */
  long assets;
  strset stopped;                 /* "sort key \x1e entry JSON" */
  strset tr_ids; strset *tr_cites;   /* transitionId -> "ep id \x1f note" */
  strset act_ids; strset *act_cites; /* actionId -> the same */
};

extern const char *const api_kinds[API_NKINDS];
/* guard "write" or "write_intent". */
int api_stopped(const char *guard);

#endif

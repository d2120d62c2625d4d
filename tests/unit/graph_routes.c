/* graph_routes.c -- route templates learned from a run's pages
 * (pg_route_learner) and the fingerprint's rules for entity pages and
 * forms (docs/fingerprint.md): one route per template, a learned word
 * segment only when two pages that differ in it share a layout, the
 * result independent of the order pages were seen in; validation errors
 * (aria-invalid, a text next to a field) are a state of their own, the
 * checked or selected value of a form control is not unless values count. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "pg.h"
#include "pg_url.h"

static char *learned(const pg_route_learner *l, const char *rk) { return pg_route_learned_template(l, rk, NULL, NULL); }

Test(route_learn, siblings_with_one_layout_become_a_param) {
  pg_route_learner *l = pg_route_learner_new();
  cr_expect_eq(pg_route_learn(l, "/owners/george", "L1"), 0, "one page teaches nothing");
  char *t = learned(l, "/owners/george");
  cr_expect_str_eq(t, "/owners/george");
  free(t);
  cr_expect_eq(pg_route_learn(l, "/owners/betty", "L1"), 1, "a sibling with the same layout teaches a param");
  pg_route_param *p = NULL;
  size_t np = 0;
  t = pg_route_learned_template(l, "/owners/carol", &p, &np);
  cr_expect_str_eq(t, "/owners/:param", "a third owner, never seen, is on the learned route");
  cr_expect_eq(np, 1);
  cr_expect_str_eq(p[0].name, "param");
  cr_expect_str_eq(p[0].value, "carol", "the observed value is the param's");
  pg_route_params_free(p, np);
  free(t);
  t = learned(l, "/owners/george/edit");
  cr_expect_str_eq(t, "/owners/george/edit", "another shape around the segment is learned on its own");
  free(t);
  pg_route_learner_free(l);
}

Test(route_learn, siblings_with_other_layouts_stay_apart) {
  pg_route_learner *l = pg_route_learner_new();
  pg_route_learn(l, "/owners/find", "FINDFORM");
  pg_route_learn(l, "/owners/new", "OWNERFORM");
  pg_route_learn(l, "/owners/list", "TABLE");
  char *t = learned(l, "/owners/new");
  cr_expect_str_eq(t, "/owners/new", "pages of different layouts under one parent are places, not records");
  free(t);
  pg_route_learner_free(l);
}

Test(route_learn, ids_need_no_learning_and_mix_with_learned_words) {
  pg_route_learner *l = pg_route_learner_new();
  char *t = learned(l, "/owners/3/pets/7");
  cr_expect_str_eq(t, "/owners/:id/pets/:id2", "numeric ids are params without learning");
  free(t);
  pg_route_learn(l, "/vets/james-carter/", "VET");
  pg_route_learn(l, "/vets/helen-leary/", "VET");
  t = learned(l, "/vets/linda-douglas/");
  cr_expect_str_eq(t, "/vets/:param/");
  free(t);
  pg_route_learn(l, "/#/docs/intro", "DOC");
  pg_route_learn(l, "/#/docs/setup", "DOC");
  t = learned(l, "/#/docs/faq?tab=a");
  cr_expect_str_eq(t, "/#/docs/:param?tab=a", "client-side routes learn too; the query stays");
  free(t);
  pg_route_learner_free(l);
}

Test(route_learn, the_order_pages_are_seen_in_does_not_matter) {
  const char *pages[][2] = {{"/a/x", "1"}, {"/a/y", "2"}, {"/a/z", "1"}, {"/b/x", "3"}, {"/b/q", "4"}};
  const char *probe[] = {"/a/w", "/b/w", "/a/x", "/b/q"};
  char *first[4];
  for (int order = 0; order < 2; order++) {
    pg_route_learner *l = pg_route_learner_new();
    for (int i = 0; i < 5; i++) {
      int k = order ? 4 - i : i;
      pg_route_learn(l, pages[k][0], pages[k][1]);
    }
    for (int j = 0; j < 4; j++) {
      char *t = learned(l, probe[j]);
      if (!order) first[j] = t;
      else {
        cr_expect_str_eq(t, first[j], "%s: the same template whichever page came first", probe[j]);
        free(t);
        free(first[j]);
      }
    }
    pg_route_learner_free(l);
  }
}

/* ---- the fingerprint ---- */
static pg_element el(const char *role, const char *name) {
  pg_element e;
  memset(&e, 0, sizeof e);
  e.role = (char *)role;
  e.name = (char *)name;
  pg_state_set(&e.state, PG_ST_VISIBLE, 1);
  pg_state_set(&e.state, PG_ST_ENABLED, 1);
  e.scope = -1;
  return e;
}

static void fp_of(pg_element *els, size_t n, const char *route, const pg_fp_policy *base, char out[33]) {
  pg_graph g;
  memset(&g, 0, sizeof g);
  g.focus_element = -1;
  g.elements = els;
  g.nelements = n;
  g.route_url = (char *)route;
  pg_fp_policy p = base ? *base : (pg_fp_policy){0};
  pg_fingerprint(&g, &p, out, NULL);
}

Test(fingerprint, entity_pages_share_their_route_template) {
  pg_element e[] = {el("button", "Edit Owner"), el("heading", "Owner Information")};
  char a[33], b[33], c[33];
  fp_of(e, 2, "http://h/owners/3", NULL, a);
  fp_of(e, 2, "http://h/owners/4", NULL, b);
  cr_expect_str_eq(a, b, "/owners/3 and /owners/4 showing the same page are one state");
  pg_element other[] = {el("button", "Edit Pet"), el("heading", "Pet")};
  fp_of(other, 2, "http://h/owners/4", NULL, c);
  cr_expect_str_neq(a, c, "another page under the same template is another state");
  pg_fp_policy pol = {.route_key = "/vets/:param"};
  fp_of(e, 2, "http://h/vets/x", &pol, a);
  pol.route_key = "/vets/:param";
  fp_of(e, 2, "http://h/vets/y", &pol, b);
  cr_expect_str_eq(a, b, "a learned template given as the route key");
}

Test(fingerprint, validation_errors_are_a_state_of_their_own) {
  pg_element clean[] = {el("textbox", "First Name"), el("button", "Add Owner")};
  pg_element marked[] = {el("textbox", "First Name"), el("button", "Add Owner")};
  pg_state_set(&marked[0].state, PG_ST_INVALID, 1);
  pg_element texted[] = {el("textbox", "First Name"), el("button", "Add Owner")};
  texted[0].field_note = "must not be empty";
  pg_element other_error[] = {el("textbox", "First Name"), el("button", "Add Owner")};
  other_error[0].field_note = "is required";
  char a[33], b[33], c[33], d[33];
  fp_of(clean, 2, "http://h/owners/new", NULL, a);
  fp_of(marked, 2, "http://h/owners/new", NULL, b);
  fp_of(texted, 2, "http://h/owners/new", NULL, c);
  fp_of(other_error, 2, "http://h/owners/new", NULL, d);
  cr_expect_str_neq(a, b, "aria-invalid: not the clean form");
  cr_expect_str_neq(a, c, "an error shown only as text next to the field: not the clean form");
  cr_expect_str_neq(c, d, "another message is another state");
  pg_element counted[] = {el("textbox", "Bio"), el("button", "Save")}, counted2[] = {el("textbox", "Bio"), el("button", "Save")};
  counted[0].field_note = "12 characters left";
  counted2[0].field_note = "140 characters left";
  fp_of(counted, 2, "http://h/p", NULL, a);
  fp_of(counted2, 2, "http://h/p", NULL, b);
  cr_expect_str_eq(a, b, "digits in a note are normalised as in names (a counter is not a state)");
}

Test(fingerprint, form_values_that_change_nothing_else_are_one_state) {
  pg_element off[] = {el("checkbox", "Insured"), el("radio", "Cat"), el("option", "dog"), el("button", "Add Pet")};
  pg_element on[] = {el("checkbox", "Insured"), el("radio", "Cat"), el("option", "dog"), el("button", "Add Pet")};
  pg_state_set(&off[0].state, PG_ST_CHECKED, 0);
  pg_state_set(&on[0].state, PG_ST_CHECKED, 1);
  pg_state_set(&off[1].state, PG_ST_CHECKED, 0);
  pg_state_set(&on[1].state, PG_ST_CHECKED, 1);
  pg_state_set(&off[2].state, PG_ST_SELECTED, 0);
  pg_state_set(&on[2].state, PG_ST_SELECTED, 1);
  char a[33], b[33];
  fp_of(off, 4, "http://h/pets/new", NULL, a);
  fp_of(on, 4, "http://h/pets/new", NULL, b);
  cr_expect_str_eq(a, b, "ticking a box or choosing an option alone is the same state");
  pg_fp_policy values = {.include_text_values = 1};
  fp_of(off, 4, "http://h/pets/new", &values, a);
  fp_of(on, 4, "http://h/pets/new", &values, b);
  cr_expect_str_neq(a, b, "with values counting, they are two");
  pg_element revealed[] = {el("checkbox", "Microchipped"), el("textbox", "Chip number")};
  pg_state_set(&off[0].state, PG_ST_CHECKED, 0);
  pg_state_set(&revealed[0].state, PG_ST_CHECKED, 1);
  fp_of(off, 1, "http://h/pets/new", NULL, a);
  fp_of(revealed, 2, "http://h/pets/new", NULL, b);
  cr_expect_str_neq(a, b, "a box that reveals a field changes something else: two states");
  pg_element tab0[] = {el("tab", "Overview")}, tab1[] = {el("tab", "Overview")};
  pg_state_set(&tab0[0].state, PG_ST_SELECTED, 0);
  pg_state_set(&tab1[0].state, PG_ST_SELECTED, 1);
  fp_of(tab0, 1, "http://h/x", NULL, a);
  fp_of(tab1, 1, "http://h/x", NULL, b);
  cr_expect_str_neq(a, b, "a selected tab is a view, not a form value");
}

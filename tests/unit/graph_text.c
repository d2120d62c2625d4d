/* graph_text.c -- text a person reads in a terminal: nothing a page puts
 * in a title, name, id or URL can reach the terminal as a control. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg.h"

Test(terminal_safe, controls_c1_and_broken_utf8_become_question_marks) {
  static const struct { const char *in, *out; } cases[] = {
    {"plain text", "plain text"},
    {"tab\tand\nnewline stay", "tab\tand\nnewline stay"},
    {"\x1b]0;pwned\x07title", "?]0;pwned?title"},
    {"clear\x1b[2J", "clear?[2J"},
    {"carriage\rreturn", "carriage?return"},
    {"c1 \xc2\x9b" "2J csi", "c1 ?2J csi"},
    {"lone \x9b byte", "lone ? byte"},
    {"del\x7f", "del?"},
    {"umlaut \xc3\xa4 and emoji \xf0\x9f\x97\x91 kept", "umlaut \xc3\xa4 and emoji \xf0\x9f\x97\x91 kept"},
    {"truncated \xe2\x82", "truncated ??"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char buf[128];
    snprintf(buf, sizeof buf, "%s", cases[i].in);
    size_t n = pg_text_terminal_safe(buf);
    cr_expect_str_eq(buf, cases[i].out, "case %zu", i);
    cr_expect_eq(n, strlen(cases[i].out), "case %zu length", i);
  }
}

/* ---- the text tree with options (pg_graph_to_text_opts, used by `mcp`) ---- */
/* A hand-made graph: a route scope holding a dialog scope; two buttons in
 * the route, one checkbox in the dialog. */
static pg_document tt_doc = {.document_id = "doc_root", .parent = -1, .access = PG_ACCESS_SAME_ORIGIN};
static pg_scope tt_scopes[] = {
  {.scope_id = "sc_route", .kind = PG_SCOPE_ROUTE, .parent = -1, .name = "Home", .node = -1},
  {.scope_id = "sc_dlg", .kind = PG_SCOPE_DIALOG, .parent = 0, .name = "Settings", .node = 7},
};
static pg_element tt_els[] = {
  {.role = "button", .name = "Delete", .scope = 0},
  {.role = "button", .name = "Save", .scope = 0},
  {.role = "checkbox", .name = "Dark mode", .scope = 1},
};

static pg_graph tt_graph(void) {
  pg_graph g = {.revision = "rev_1", .route_title = "Home", .route_url = "http://h/", .documents = &tt_doc,
                .ndocuments = 1, .scopes = tt_scopes, .nscopes = 2, .elements = tt_els, .nelements = 3};
  for (size_t i = 0; i < 3; i++) {
    pg_state_set(&tt_els[i].state, PG_ST_VISIBLE, 1);
    pg_state_set(&tt_els[i].state, PG_ST_ENABLED, 1);
  }
  return g;
}

static int tt_note(void *ud, const pg_graph *g, size_t i, char *buf, size_t n) {
  (*(int *)ud)++;
  if (i == 1) return 0; /* no note for Save */
  return snprintf(buf, n, "%s", !strcmp(g->elements[i].name, "Delete") ? "denied: destructive" : "allowed");
}

Test(text_tree, notes_scope_ids_scope_filter_and_cap) {
  pg_graph g = tt_graph();
  int calls = 0;
  pg_text_opts o = {.scope_ids = 1, .note = tt_note, .ud = &calls};
  char *t = pg_graph_to_text_opts(&g, &o);
  cr_expect_str_eq(t, "Home  http://h/  (rev_1)\n"
                      "route \"Home\" (doc_root) <sc_route>\n"
                      "  - button \"Delete\" [denied: destructive]\n"
                      "  - button \"Save\"\n"
                      "  dialog \"Settings\" <sc_dlg>\n"
                      "    - checkbox \"Dark mode\" [allowed]\n");
  cr_expect_eq(calls, 3);
  free(t);
  o.scope_id = "sc_dlg";
  t = pg_graph_to_text_opts(&g, &o);
  cr_expect_str_eq(t, "Home  http://h/  (rev_1)\n"
                      "dialog \"Settings\" <sc_dlg>\n"
                      "  - checkbox \"Dark mode\" [allowed]\n");
  free(t);
  o = (pg_text_opts){.max_elements = 1};
  t = pg_graph_to_text_opts(&g, &o);
  cr_expect(strstr(t, "- button \"Delete\"\n"), "%s", t);
  cr_expect(!strstr(t, "Save") && !strstr(t, "Dark mode"), "%s", t);
  cr_expect(strstr(t, "... 2 more elements not shown (maxNodes 1)\n"), "%s", t);
  free(t);
  /* no options: as pg_graph_to_text */
  char *a = pg_graph_to_text(&g);
  o = (pg_text_opts){0};
  t = pg_graph_to_text_opts(&g, &o);
  cr_expect_str_eq(a, t);
  cr_expect(!strstr(a, "<sc_"), "%s", a);
  free(a);
  free(t);
}

/* graph_text.c -- text a person reads in a terminal: nothing a page puts
 * in a title, name, id or URL can reach the terminal as a control. */
#include <criterion/criterion.h>
#include <stdio.h>
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

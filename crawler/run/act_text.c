/* act_text.c -- typing that only reads (issue 27, section 3): the facts the
 * policy needs about a text field (its owner form, a search landmark, a
 * list around it: js/text_field.js), the value typed into a search or
 * filter field (a word of a visible item near it, else the probe word),
 * typing it key by key and pressing Enter where that submits a search, and
 * the value as a transition's args. Which fields only read is the policy's
 * (policy/typing.c); performing stays act.c's one path (crawl__act_perform
 * comes here for the typing). docs/safety.md "Typing".
 */
#include "act.h"
#include "run_int.h"
#include "crawl_secrets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The value typed when no visible item near the field gives a word. */
#define PROBE_WORD "test"
/* Bytes of a word taken from the page: 3 to 24. */
#define WORD_MIN 3
#define WORD_MAX 24

int crawl__act_text_candidate(const pg_element *e) {
  if (!e || e->sensitive || !e->role) return 0;
  if (!strcmp(e->role, "searchbox")) return 1;
  return !strcmp(e->role, "textbox") && e->tag && !strcasecmp(e->tag, "input");
}

static char *dup_str(const cJSON *o, const char *key) {
  return crawl__xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key)));
}

static int flag(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) && v->valueint != 0;
}

/* The submit names joined by " | ", at most 480 bytes. */
static char *join_submits(const cJSON *arr) {
  crawl__buf b = {0};
  const cJSON *s;
  cJSON_ArrayForEach(s, arr) {
    const char *t = cJSON_GetStringValue(s);
    if (!t || !*t || b.n + strlen(t) > 480) continue;
    if (b.n) crawl__buf_puts(&b, " | ");
    crawl__buf_puts(&b, t);
  }
  if (!b.n) return NULL;
  return b.p; /* NUL-terminated by crawl__buf */
}

int crawl__act_field_from(const cJSON *v, act_field *f) {
  memset(f, 0, sizeof *f);
  if (!cJSON_IsObject(v)) return -1;
  f->method = dup_str(v, "m");
  f->action = dup_str(v, "a");
  f->submits = join_submits(cJSON_GetObjectItemCaseSensitive(v, "s"));
  f->personal = flag(v, "p");
  f->in_search = flag(v, "l");
  f->near = flag(v, "c");
  f->items = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(v, "i"), 1);
  return 0;
}

int crawl__act_field_read(crawl_page *p, const pg_element *e, act_field *f) {
  cJSON *v = NULL;
  memset(f, 0, sizeof *f);
  int rc = crawl__act_call(p, e->backend_node_id, CRAWL__JS(text_field), &v) ? -1 : crawl__act_field_from(v, f);
  cJSON_Delete(v);
  return rc;
}

void crawl__act_field_release(act_field *f) {
  if (!f) return;
  free(f->method);
  free(f->action);
  free(f->submits);
  cJSON_Delete(f->items);
  memset(f, 0, sizeof *f);
}

void crawl__act_field_subject(const act_field *f, pol_subject *s) {
  s->form_method = f->method;
  s->form_action = f->action;
  s->form_submits = f->submits;
  s->form_personal = f->personal;
  s->in_search = f->in_search;
  s->near_collection = f->near;
}

/* ---- the value ---------------------------------------------------------------------- */
/* Length of the letter at s (an ASCII letter, or a Latin-1 letter in UTF-8:
 * 0xC3 0x80..0xBF but the signs x and /), 0 for anything else. */
static int letter(const unsigned char *s) {
  if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')) return 1;
  if (*s == 0xC3 && s[1] >= 0x80 && s[1] <= 0xBF && s[1] != 0x97 && s[1] != 0xB7) return 2;
  return 0;
}

/* The longest word of text (letters only, WORD_MIN..WORD_MAX bytes) that
 * holds no secret of sec into buf; 0 when there is none. */
static int longest_word(const char *text, const crawl__secrets *sec, char *buf, size_t cap) {
  const unsigned char *s = (const unsigned char *)text;
  size_t best = 0;
  while (*s) {
    const unsigned char *w = s;
    int k;
    while ((k = letter(s))) s += k;
    size_t n = (size_t)(s - w);
    if (n >= WORD_MIN && n <= WORD_MAX && n > best && n < cap) {
      char word[WORD_MAX + 1];
      memcpy(word, w, n);
      word[n] = 0;
      int hits = 0;
      free(crawl__secrets_scrub(sec, word, &hits));
      if (!hits) {
        memcpy(buf, word, n + 1);
        best = n;
      }
    }
    if (s == w) s++;
  }
  return best > 0;
}

/* 1 when an item may give the value: no e-mail address or phone number in
 * it (pg_pii_find), not in a column whose header names a person
 * (pg_pii_name_label), no secret of the run in it. */
static int item_usable(const char *text, const char *header, const crawl__secrets *sec) {
  size_t st, len;
  pg_pii_kind kind;
  if (pg_pii_find(text, strlen(text), 0, &st, &len, &kind)) return 0;
  if (header && *header && pg_pii_name_label(header)) return 0;
  int hits = 0;
  free(crawl__secrets_scrub(sec, text, &hits));
  return hits == 0;
}

void crawl__act_text_choose(action *a, const act_field *f, const crawl__secrets *sec) {
  char word[WORD_MAX + 1] = "";
  int found = 0;
  const cJSON *it, *items = f ? f->items : NULL;
  cJSON_ArrayForEach(it, items) {
    const char *text = cJSON_GetStringValue(cJSON_GetArrayItem(it, 0));
    const char *header = cJSON_GetStringValue(cJSON_GetArrayItem(it, 1));
    if (text && item_usable(text, header, sec) && longest_word(text, sec, word, sizeof word)) {
      found = 1;
      break;
    }
  }
  free(a->text);
  a->text = crawl__xstrdup(found ? word : PROBE_WORD);
  a->text_probe = !found;
  /* a list filter filters as it is typed into; a search runs on Enter (a
   * GET form's implicit submission, a script's search box) */
  a->text_enter = strcmp(a->cls.rule, "text.filter") != 0;
}

/* ---- typing ------------------------------------------------------------------------ */
crawl_code crawl__act_text_type(crawl_page *p, const pg_element *e, const action *a, char *why, size_t whylen) {
  cJSON *v = NULL;
  crawl__act_call(p, e->backend_node_id, CRAWL__JS(select_contents), &v); /* the value replaces what it held */
  cJSON_Delete(v);
  crawl_code rc = crawl__page_type_keys(p, a->text);
  if (!rc && a->text_enter) rc = crawl__page_enter(p);
  if (rc && whylen && !why[0]) snprintf(why, whylen, "typing \"%.40s\" failed: %s", a->text, crawl_page_errmsg(p));
  return rc;
}

/* ---- the value as args --------------------------------------------------------------- */
void crawl__act_text_args(cJSON *args, const action *a) {
  cJSON_AddStringToObject(args, "text", a->text);
  cJSON_AddStringToObject(args, "valueSource", a->text_probe ? "probe" : "page");
  if (a->text_enter) cJSON_AddStringToObject(args, "submitKey", "Enter");
}

void crawl__act_text_from_args(action *a, const cJSON *args) {
  const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "text"));
  if (!t || !a->action_id || strcmp(a->action_id, "ui.enterText")) return;
  a->text = crawl__xstrdup(t);
  const char *src = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "valueSource"));
  a->text_probe = src && !strcmp(src, "probe");
  a->text_enter = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "submitKey")) != NULL;
}

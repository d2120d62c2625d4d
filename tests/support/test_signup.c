/* test_signup.c -- the server side of fixtures/signup (tests/e2e/forms.c):
 * POST /__test/signup validates the urlencoded form field by field as a
 * real app would (not trusting the browser's checks) and answers 200
 * "Account created" or 422 with the errors; every accepted body is kept.
 * GET /__test/signup/log answers {"accepted":[body,...],"rejected":N}, so a
 * test can see what reached the server and what it accepted. */
#include "support.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cJSON *accepted;
static int rejected;

/* The decoded value of field name in an urlencoded body into out; 0 when absent. */
static int field(const char *body, const char *name, char *out, size_t cap) {
  size_t n = strlen(name);
  for (const char *p = body; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL) {
    if (strncmp(p, name, n) || p[n] != '=') continue;
    size_t o = 0;
    for (const char *v = p + n + 1; *v && *v != '&' && o + 1 < cap; v++) {
      unsigned hex;
      if (*v == '+') out[o++] = ' ';
      else if (*v == '%' && isxdigit((unsigned char)v[1]) && isxdigit((unsigned char)v[2]) && sscanf(v + 1, "%2x", &hex) == 1)
        out[o++] = (char)hex, v += 2;
      else out[o++] = *v;
    }
    out[o] = 0;
    return 1;
  }
  out[0] = 0;
  return 0;
}

static int digits(const char *s, size_t n) {
  if (strlen(s) != n) return 0;
  for (size_t i = 0; i < n; i++)
    if (!isdigit((unsigned char)s[i])) return 0;
  return 1;
}

static int number_in(const char *s, long lo, long hi, long step) {
  char *end;
  long v = strtol(s, &end, 10);
  return *s && !*end && v >= lo && v <= hi && (v - lo) % step == 0;
}

/* The errors of body, "; "-separated, into err ("" when it is valid). */
static void validate(const char *body, char *err, size_t cap) {
  char v[256];
  err[0] = 0;
#define BAD(what) snprintf(err + strlen(err), cap - strlen(err), "%s%s", *err ? "; " : "", what)
  if (!field(body, "full_name", v, sizeof v) || !*v || strlen(v) > 12) BAD("full_name");
  field(body, "email", v, sizeof v);
  if (!strchr(v, '@') || !strchr(strchr(v, '@'), '.')) BAD("email");
  field(body, "phone", v, sizeof v);
  if (strlen(v) != 8 || v[3] != '-' || !digits((char[4]){v[0], v[1], v[2], 0}, 3) || !digits(v + 4, 4)) BAD("phone");
  field(body, "age", v, sizeof v);
  if (!number_in(v, 18, 120, 1)) BAD("age");
  field(body, "seats", v, sizeof v);
  if (!number_in(v, 5, 50, 5)) BAD("seats");
  field(body, "start", v, sizeof v);
  if (strlen(v) != 10 || v[4] != '-' || v[7] != '-' || strcmp(v, "2031-02-01") < 0) BAD("start");
  field(body, "website", v, sizeof v);
  if (*v && strncmp(v, "http://", 7) && strncmp(v, "https://", 8)) BAD("website");
  field(body, "postal", v, sizeof v);
  if (!digits(v, 5)) BAD("postal");
  field(body, "plan", v, sizeof v);
  if (strcmp(v, "free") && strcmp(v, "team")) BAD("plan");
  field(body, "contact", v, sizeof v);
  if (strcmp(v, "mail") && strcmp(v, "phone")) BAD("contact");
  field(body, "terms", v, sizeof v);
  if (strcmp(v, "yes")) BAD("terms");
  if (field(body, "company_url", v, sizeof v) && *v) BAD("company_url (a honeypot)");
#undef BAD
}

static void html(crawl_response *res, int code, const char *title, const char *text) {
  char page[1024];
  snprintf(page, sizeof page, "<!doctype html><title>%s</title><h1>%s</h1><p role=\"status\">%s</p>"
           "<a href=\"/signup/index.html\">Back to the form</a>", title, title, text);
  crawl_response_status(res, code);
  crawl_response_body(res, "text/html; charset=utf-8", page, strlen(page));
}

int t_signup(const crawl_request *req, crawl_response *res) {
  if (!strcmp(req->path, "/__test/signup/log")) {
    pthread_mutex_lock(&lock);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "accepted", accepted ? cJSON_Duplicate(accepted, 1) : cJSON_CreateArray());
    cJSON_AddNumberToObject(o, "rejected", rejected);
    pthread_mutex_unlock(&lock);
    char *txt = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    crawl_response_body(res, "application/json", txt, strlen(txt));
    free(txt);
    return 1;
  }
  if (strcmp(req->path, "/__test/signup")) return 0;
  if (strcmp(req->method, "POST")) {
    html(res, 405, "Sign up", "POST only");
    return 1;
  }
  char err[512];
  validate(req->body ? req->body : "", err, sizeof err);
  pthread_mutex_lock(&lock);
  if (*err) rejected++;
  else {
    if (!accepted) accepted = cJSON_CreateArray();
    cJSON_AddItemToArray(accepted, cJSON_CreateString(req->body));
  }
  pthread_mutex_unlock(&lock);
  if (*err) html(res, 422, "Please correct the form", err);
  else html(res, 200, "Welcome", "Account created");
  return 1;
}

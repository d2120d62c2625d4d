/* cdp_ws.c -- the WebSocket transport and cdp_connect against a real headless
 * Chromium started here with --remote-debugging-port=0, plus the error paths
 * (closed port, silent server, malformed URL) which need no browser. */
#include <criterion/criterion.h>

#include "cdp_int.h"
#include "support.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHROMIUM "/usr/bin/chromium"

/* The browser of the current test; the suite's fini always tears it down. */
static struct {
  pid_t pid;
  char profile[256];
  int port;
  char ws_path[256];   /* /devtools/browser/ID */
} br;

static void browser_stop(void) {
  if (br.pid > 0) {
    kill(-br.pid, SIGKILL);
    kill(br.pid, SIGKILL);
    waitpid(br.pid, NULL, 0);
    br.pid = 0;
  }
  if (br.profile[0]) {
    for (int i = 0; i < 5 && access(br.profile, F_OK) == 0; i++) {
      cdp__rmtree(br.profile); /* renderers may write for a moment after the kill */
      if (access(br.profile, F_OK) == 0) usleep(100000);
    }
    br.profile[0] = '\0';
  }
}

/* Start Chromium on a random debugging port; read the port and browser path
 * from <profile>/DevToolsActivePort. */
static void browser_start(void) {
  memset(&br, 0, sizeof br);
  snprintf(br.profile, sizeof br.profile, "/tmp/uiap-test-ws-XXXXXX");
  cr_assert_not_null(mkdtemp(br.profile), "mkdtemp: %s", strerror(errno));
  char udd[300];
  snprintf(udd, sizeof udd, "--user-data-dir=%s", br.profile);
  const char *argv[] = {CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                        "--disable-quic", "--no-first-run", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync",
                        "--remote-debugging-port=0", udd, "about:blank", NULL};
  t_chromium_start(argv, br.profile, &br.pid, &br.port, br.ws_path);
}

TestSuite(cdp_ws, .fini = browser_stop, .timeout = 120);

static char *http_url(void) {
  static char u[64];
  snprintf(u, sizeof u, "http://127.0.0.1:%d", br.port);
  return u;
}

static char *ws_url(void) {
  static char u[400];
  snprintf(u, sizeof u, "ws://127.0.0.1:%d%s", br.port, br.ws_path);
  return u;
}

static cdp_client *connect_ok(const char *url) {
  cdp_client *c = NULL;
  char err[512] = "";
  cdp_code rc = cdp_connect(url, 15000, &c, err, sizeof err);
  cr_assert_eq(rc, CDP_OK, "cdp_connect(%s): %s: %s", url, cdp_strerror(rc), err);
  cr_assert_not_null(c);
  return c;
}

/* Evaluate expr in the page; returns the "result" object of the reply. */
static cJSON *evaluate(cdp_client *c, const char *session, const char *expr, cdp_code *rc,
                       int timeout_ms) {
  cJSON *p = cJSON_CreateObject(), *res = NULL;
  cJSON_AddStringToObject(p, "expression", expr);
  cJSON_AddBoolToObject(p, "returnByValue", 1);
  *rc = cdp_call(c, session, "Runtime.evaluate", p, &res, timeout_ms);
  return res;
}

static const cJSON *eval_value(const cJSON *res) {
  const cJSON *r = cJSON_GetObjectItemCaseSensitive(res, "result");
  return cJSON_GetObjectItemCaseSensitive(r, "value");
}

static void on_event(void *ud, const char *session, const char *method, const cJSON *params) {
  (*(int *)ud)++;
}

Test(cdp_ws, connect_over_http_reads_json_version) {
  browser_start();
  cdp_client *c = connect_ok(http_url());
  cr_expect_eq(cdp_client_pid(c), 0, "an attached browser has no pid of ours");
  cr_expect_null(cdp_client_profile(c));
  cr_expect(cdp_client_alive(c));
  cJSON *res = NULL;
  cdp_code rc = cdp_call(c, NULL, "Browser.getVersion", NULL, &res, 10000);
  cr_assert_eq(rc, CDP_OK, "%s", cdp_client_errmsg(c));
  const cJSON *product = cJSON_GetObjectItemCaseSensitive(res, "product");
  cr_expect(cJSON_IsString(product) && strstr(product->valuestring, "Chrom"),
            "product names Chromium");
  cJSON_Delete(res);

  /* an idle poll returns after about its timeout, not later */
  long long t0 = cdp_now_ms();
  cr_assert_eq(cdp_pump(c, 300), CDP_OK);
  long long took = cdp_now_ms() - t0;
  cr_expect(took >= 250 && took < 1200, "cdp_pump(300) took %lld ms", took);
  t0 = cdp_now_ms();
  cr_assert_eq(cdp_pump(c, 0), CDP_OK);
  cr_expect(cdp_now_ms() - t0 < 200, "cdp_pump(0) does not block");
  cdp_client_free(c);

  /* detaching left the browser running: a second attach works */
  c = connect_ok(http_url());
  cdp_client_free(c);
  cr_expect_eq(waitpid(br.pid, NULL, WNOHANG), 0, "cdp_client_free did not kill the browser");
}

Test(cdp_ws, ws_url_big_messages_both_ways) {
  browser_start();
  cdp_client *c = connect_ok(ws_url());
  char *session = NULL;
  cdp_code rc = cdp_open_page(c, "about:blank", &session, NULL, 15000);
  cr_assert_eq(rc, CDP_OK, "cdp_open_page: %s", cdp_client_errmsg(c));

  int navigated = 0;
  cdp_on(c, "Page.frameNavigated", on_event, &navigated);
  cr_assert_eq(cdp_call(c, session, "Page.enable", NULL, NULL, 10000), CDP_OK, "%s",
               cdp_client_errmsg(c));
  cJSON *p = cJSON_CreateObject(), *res = NULL;
  cJSON_AddStringToObject(p, "url", "data:text/html,<title>ws</title><p>hello</p>");
  rc = cdp_call(c, session, "Page.navigate", p, &res, 15000);
  cr_assert_eq(rc, CDP_OK, "Page.navigate: %s", cdp_client_errmsg(c));
  cJSON_Delete(res);
  for (long long end = cdp_now_ms() + 10000; !navigated && cdp_now_ms() < end;)
    cr_assert_eq(cdp_pump(c, 100), CDP_OK);
  cr_expect(navigated > 0, "Page.frameNavigated arrived over the WebSocket");

  /* 30 MB reply: many lws fragments reassembled into one message */
  long long t0 = cdp_now_ms();
  res = evaluate(c, session, "'x'.repeat(30e6)", &rc, 60000);
  cr_assert_eq(rc, CDP_OK, "30 MB evaluate: %s", cdp_client_errmsg(c));
  const cJSON *v = eval_value(res);
  cr_assert(cJSON_IsString(v), "value is a string");
  cr_expect_eq(strlen(v->valuestring), 30000000u);
  cr_expect(v->valuestring[0] == 'x' && v->valuestring[29999999] == 'x');
  cJSON_Delete(res);
  long long took = cdp_now_ms() - t0;
  cr_expect(took < 20000, "30 MB reply took %lld ms", took);

  /* 2 MB request: written as several frames (or one), reassembled by Chromium */
  size_t n = 2u * 1024 * 1024;
  char *expr = malloc(n + 32);
  cr_assert_not_null(expr);
  expr[0] = '\'';
  for (size_t i = 1; i <= n; i++) expr[i] = (char)('a' + i % 26);
  strcpy(expr + n + 1, "'.length");
  res = evaluate(c, session, expr, &rc, 30000);
  free(expr);
  cr_assert_eq(rc, CDP_OK, "2 MB evaluate: %s", cdp_client_errmsg(c));
  v = eval_value(res);
  cr_assert(cJSON_IsNumber(v), "value is a number");
  cr_expect_eq((size_t)v->valuedouble, n);
  cJSON_Delete(res);

  /* a small call still works after the big ones (framing stayed in sync) */
  res = evaluate(c, session, "6*7", &rc, 10000);
  cr_assert_eq(rc, CDP_OK, "%s", cdp_client_errmsg(c));
  cr_expect_eq(eval_value(res)->valueint, 42);
  cJSON_Delete(res);
  free(session);
  cdp_client_free(c);
}

Test(cdp_ws, browser_killed_pending_call_returns_closed) {
  browser_start();
  cdp_client *c = connect_ok(ws_url());
  char *session = NULL;
  cr_assert_eq(cdp_open_page(c, "about:blank", &session, NULL, 15000), CDP_OK, "%s",
               cdp_client_errmsg(c));
  /* a call that never gets a reply */
  cJSON *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "expression", "new Promise(() => {})");
  cJSON_AddBoolToObject(p, "awaitPromise", 1);
  int id = cdp_send(c, session, "Runtime.evaluate", p);
  cr_assert_gt(id, 0);
  cr_assert_eq(cdp_pump(c, 200), CDP_OK); /* the request is out */
  kill(-br.pid, SIGKILL);
  long long t0 = cdp_now_ms();
  cdp_code rc = cdp_wait(c, id, NULL, 20000);
  long long took = cdp_now_ms() - t0;
  cr_expect_eq(rc, CDP_CLOSED, "pending call: %s (%s)", cdp_strerror(rc), cdp_client_errmsg(c));
  cr_expect(took < 3000, "noticed the dead browser after %lld ms", took);
  cr_expect(strlen(cdp_client_errmsg(c)) > 0);
  cr_expect_not(cdp_client_alive(c));
  t0 = cdp_now_ms();
  rc = cdp_call(c, NULL, "Browser.getVersion", NULL, NULL, 5000);
  cr_expect_eq(rc, CDP_CLOSED, "later calls fail at once");
  cr_expect(cdp_now_ms() - t0 < 500);
  free(session);
  cdp_client_free(c);
}

/* A loopback port with nothing listening. */
static int closed_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  cr_assert(bind(fd, (struct sockaddr *)&a, sizeof a) == 0);
  cr_assert(getsockname(fd, (struct sockaddr *)&a, &len) == 0);
  close(fd);
  return ntohs(a.sin_port);
}

Test(cdp_ws, closed_port_is_connect_error_quickly) {
  int port = closed_port();
  const char *fmts[] = {"http://127.0.0.1:%d", "ws://127.0.0.1:%d/devtools/browser/x"};
  for (int i = 0; i < 2; i++) {
    char url[128], err[512] = "";
    snprintf(url, sizeof url, fmts[i], port);
    cdp_client *c = (cdp_client *)1;
    long long t0 = cdp_now_ms();
    cdp_code rc = cdp_connect(url, 10000, &c, err, sizeof err);
    long long took = cdp_now_ms() - t0;
    cr_expect_eq(rc, CDP_CONNECT, "%s: %s", url, cdp_strerror(rc));
    cr_expect_null(c);
    cr_expect(took < 2000, "%s: took %lld ms", url, took);
    cr_expect(strstr(err, url) != NULL, "message names the URL: %s", err);
    cr_expect(strchr(err, '\n') == NULL, "one line: %s", err);
  }
}

/* A server that accepts the TCP connection and then says nothing. */
Test(cdp_ws, silent_server_times_out) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  cr_assert(bind(fd, (struct sockaddr *)&a, sizeof a) == 0);
  cr_assert(listen(fd, 8) == 0);
  cr_assert(getsockname(fd, (struct sockaddr *)&a, &len) == 0);
  const char *fmts[] = {"http://127.0.0.1:%d", "ws://127.0.0.1:%d/devtools/browser/x"};
  for (int i = 0; i < 2; i++) {
    char url[128], err[512] = "";
    snprintf(url, sizeof url, fmts[i], ntohs(a.sin_port));
    cdp_client *c = NULL;
    long long t0 = cdp_now_ms();
    cdp_code rc = cdp_connect(url, 700, &c, err, sizeof err);
    long long took = cdp_now_ms() - t0;
    cr_expect_eq(rc, CDP_CONNECT, "%s: %s", url, cdp_strerror(rc));
    cr_expect_null(c);
    cr_expect(took >= 600 && took < 2000, "%s: returned after %lld ms", url, took);
    cr_expect(strstr(err, url) != NULL, "message names the URL: %s", err);
  }
  close(fd);
}

Test(cdp_ws, malformed_url_is_arg_error) {
  const char *bad[] = {"", "localhost:9222", "ftp://127.0.0.1:9222", "http://", "http://:9222",
                       "http://127.0.0.1:99999", "http://127.0.0.1:12ab", "ws://[::1",
                       "wss://127.0.0.1:9222/devtools/browser/x"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char err[512] = "";
    cdp_client *c = (cdp_client *)1;
    cdp_code rc = cdp_connect(bad[i], 1000, &c, err, sizeof err);
    cr_expect_eq(rc, CDP_ARG, "'%s': %s (%s)", bad[i], cdp_strerror(rc), err);
    cr_expect_null(c);
    cr_expect(err[0] != '\0', "'%s' has a message", bad[i]);
  }
  cr_expect_eq(cdp_connect(NULL, 1000, &(cdp_client *){NULL}, NULL, 0), CDP_ARG);
}

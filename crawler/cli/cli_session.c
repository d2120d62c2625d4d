/* cli_session.c -- the session options `crawl` and `snapshot` share
 * (cli_int.h): --storage-state FILE, --cookies FILE, --header 'Name: value'
 * into a crawl_session (the parsers are the library's, session.c), and
 * --user-data-dir DIR checked. A refusal is one line that names the file and
 * the place in it, never a value; the exit code is CLI_EXIT_USAGE, before
 * any browser starts. */
#include "cli_int.h"
#include "crawl.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SESSION_FILE_MAX (64u << 20) /* a bigger session file is refused */

typedef crawl_code (*file_parser)(crawl_session *s, const char *text, size_t len, char *err, size_t errlen);

static const struct { cli_session_kind kind; const char *option, *what; file_parser parse; } session_files[] = {
  {CLI_SESSION_STATE, "--storage-state", "storage state", crawl_session_storage_state},
  {CLI_SESSION_COOKIES, "--cookies", "cookies file", crawl_session_cookies_txt},
};

/* path's bytes into *text (caller frees), or the usage exit code after the line. */
static int session_read(const char *option, const char *path, char **text, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return cli_fail(CLI_EXIT_USAGE, "%s: cannot read %s: %s", option, path, strerror(errno));
  int oom = cli_read_all(f, SESSION_FILE_MAX, text, len);
  fclose(f);
  if (oom) return cli_fail(CLI_EXIT_INTERNAL, "out of memory reading %s", path);
  if (*len > SESSION_FILE_MAX) return cli_fail(CLI_EXIT_USAGE, "%s: %s is larger than 64 MiB", option, path);
  return CLI_CONTINUE;
}

int cli_session_arg(crawl_session *s, cli_session_kind kind, const char *v) {
  char err[320];
  if (kind == CLI_SESSION_HEADER)
    return crawl_session_header(s, v, err, sizeof err) == CRAWL_OK ? CLI_CONTINUE : cli_fail(CLI_EXIT_USAGE, "%s", err);
  for (size_t i = 0; i < sizeof session_files / sizeof *session_files; i++) {
    if (session_files[i].kind != kind) continue;
    char *text = NULL;
    size_t len = 0;
    int code = session_read(session_files[i].option, v, &text, &len);
    if (code == CLI_CONTINUE && session_files[i].parse(s, text ? text : "", len, err, sizeof err) != CRAWL_OK)
      code = cli_fail(CLI_EXIT_USAGE, "%s: %s %s is malformed: %s", session_files[i].option, session_files[i].what, v, err);
    free(text);
    return code;
  }
  return cli_fail(CLI_EXIT_INTERNAL, "unknown session option");
}

int cli_user_data_dir_arg(const char *dir) {
  struct stat st;
  if (!*dir) return cli_fail(CLI_EXIT_USAGE, "--user-data-dir needs a directory");
  if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
    return cli_fail(CLI_EXIT_USAGE, "--user-data-dir %s is not a directory", dir);
  return CLI_CONTINUE;
}

int cli_principals(const struct cJSON *plan, const char *const *pick, struct crawl_principal **v, size_t *n) {
  char err[400];
  if (crawl_principals_parse(plan, pick, v, n, err, sizeof err) != CRAWL_OK)
    return cli_fail(CLI_EXIT_USAGE, "plan: %s", err);
  for (size_t k = 0; k < *n; k++) {
    if (!(*v)[k].storage_state) continue;
    int code = cli_session_arg(&(*v)[k].session, CLI_SESSION_STATE, (*v)[k].storage_state);
    if (code != CLI_CONTINUE) return code;
  }
  return CLI_CONTINUE;
}

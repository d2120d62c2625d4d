/* serve_files.c -- the folder the static server serves: a decoded URL path
 * resolved to a regular file inside root (no ".." segment, symlinks
 * followed by realpath and the result checked against root: 403 outside,
 * 404 missing, 301 a directory named without its slash), the SPA fallback
 * to /index.html, and a file's response: its MIME type by extension, its
 * length, its body left for serve.c to send in chunks. Not here: parsing
 * and routing the request (serve_http.c). */
#include "serve_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- tables ------------------------------------------------------------- */

static const struct {
  const char *ext;    /* lower case, with the dot */
  const char *type;
} serve_types[] = {
  { ".html",  "text/html; charset=utf-8" },
  { ".htm",   "text/html; charset=utf-8" },
  { ".js",    "text/javascript; charset=utf-8" },
  { ".mjs",   "text/javascript; charset=utf-8" },
  { ".css",   "text/css; charset=utf-8" },
  { ".json",  "application/json" },
  { ".map",   "application/json" },
  { ".svg",   "image/svg+xml" },
  { ".png",   "image/png" },
  { ".jpg",   "image/jpeg" },
  { ".jpeg",  "image/jpeg" },
  { ".gif",   "image/gif" },
  { ".webp",  "image/webp" },
  { ".ico",   "image/x-icon" },
  { ".txt",   "text/plain; charset=utf-8" },
  { ".woff2", "font/woff2" },
  { ".wasm",  "application/wasm" },
};

static const char *serve_content_type(const char *path)
{
  const char *slash = strrchr(path, '/');
  const char *dot = strrchr(slash ? slash : path, '.');
  if (dot)
    for (size_t i = 0; i < sizeof serve_types / sizeof serve_types[0]; i++)
      if (strcasecmp(dot, serve_types[i].ext) == 0)
        return serve_types[i].type;
  return "application/octet-stream";
}

/* Resolve a decoded URL path to a regular file inside root. Returns 0 and a
 * malloc'd real path in *out, or an HTTP status: 404 missing, 403 outside
 * root or not a regular file, 301 a directory named without its slash. */
static int serve_resolve(crawl_server *s, const char *dpath, char **out)
{
  *out = NULL;
  /* No ".." segment, whatever the encoding was. */
  for (const char *p = dpath; *p;) {
    const char *e = strchr(p, '/');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n == 2 && p[0] == '.' && p[1] == '.')
      return 403;
    p = e ? e + 1 : p + n;
  }
  size_t dl = strlen(dpath);
  int dir_wanted = dl == 0 || dpath[dl - 1] == '/';
  char *fs = crawl__xrealloc(NULL, s->rootlen + dl + sizeof "/index.html");
  memcpy(fs, s->root, s->rootlen);
  memcpy(fs + s->rootlen, dpath, dl + 1);
  if (dir_wanted)
    strcat(fs, "index.html");
  /* realpath follows every symlink, so the prefix check sees where the
   * file really is. */
  char *real = realpath(fs, NULL);
  int err = errno;
  free(fs);
  if (!real)
    return err == EACCES ? 403 : 404;
  struct stat st;
  int code = 0;
  if (strncmp(real, s->root, s->rootlen) != 0 ||
      (real[s->rootlen] != '/' && real[s->rootlen] != '\0'))
    code = 403;
  else if (stat(real, &st) != 0)
    code = 404;
  else if (S_ISDIR(st.st_mode))
    code = dir_wanted ? 404 : 301;
  else if (!S_ISREG(st.st_mode))
    code = 403;
  if (code) {
    free(real);
    return code;
  }
  *out = real;
  return 0;
}

/* Serve the file at real path fs, with optional extra header lines. */
static void serve_file(serve_conn *c, const serve_req *r, const char *fs, const char *extra)
{
  int fd = open(fs, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (fd >= 0)
      close(fd);
    serve__error(c, r, 404);
    return;
  }
  serve__head(c, 200, serve_content_type(fs), (long long)st.st_size, extra);
  if (r->head || st.st_size == 0) {
    close(fd);
    return;
  }
  c->file_fd = fd;
  c->file_left = (long long)st.st_size;
}

/* GET/HEAD of a path under root, with the SPA fallback for extension-less
 * paths. A directory named without its slash is redirected to it when
 * redirect_dirs is set (a URL the client asked for), else it is 404. */
void serve__static(crawl_server *s, serve_conn *c, const serve_req *r,
                         const char *dpath, const char *extra, int redirect_dirs)
{
  char *fs = NULL;
  int code = serve_resolve(s, dpath, &fs);
  if (code == 404 && s->spa_fallback) {
    const char *last = strrchr(dpath, '/');
    if (!strchr(last ? last + 1 : dpath, '.'))
      code = serve_resolve(s, "/index.html", &fs);
  }
  if (code == 301 && !redirect_dirs)
    code = 404;
  if (code == 301) {
    /* "/docs" is a directory: send the client to "/docs/" so that relative
     * links inside its index.html resolve against the directory. */
    crawl__buf loc = { 0 };
    crawl__buf_printf(&loc, "Location: %s/%s%s\r\n", r->path, *r->query ? "?" : "", r->query);
    serve__respond(c, r, 301, "text/plain; charset=utf-8", "moved\n", 6, loc.p);
    free(loc.p);
    return;
  }
  if (code) {
    serve__error(c, r, code);
    return;
  }
  serve_file(c, r, fs, extra);
  free(fs);
}

/* workers.c -- what crawl --workers N needs from the library on one machine
 * (docs/scale.md): a child process tied to its parent (crawl_spawn: the
 * workers and the private redis-server), and that private redis-server on
 * a unix socket, started, asked PING through hiredis (as the shared
 * frontier speaks to it, shared.c) and stopped. Which workers run with
 * which options, and how their ends are judged, is the command line's
 * (crawler/cli/cli_workers.c). */
#include "crawl.h"

#include <hiredis/hiredis.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

pid_t crawl_spawn(char *const *argv, const char *exe, const char *log) {
  pid_t parent = getpid(), pid = fork();
  if (pid != 0) return pid;
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(127); /* the parent died before prctl */
  freopen("/dev/null", "r", stdin);
  freopen(log, "w", stderr);
  freopen("/dev/null", "w", stdout);
  execvp(exe, argv);
  fprintf(stderr, "uiap-crawl: cannot start %s: %s\n", exe, strerror(errno));
  _exit(127);
}

/* The private redis-server answers PING on sock within ms. */
static int redis_ready(const char *sock, int ms) {
  for (int t = 0; t < ms; t += 50) {
    struct timeval tv = {.tv_sec = 1};
    redisContext *c = redisConnectUnixWithTimeout(sock, tv);
    redisReply *rep = c && !c->err ? redisCommand(c, "PING") : NULL;
    int ok = rep && rep->type == REDIS_REPLY_STATUS && !strcmp(rep->str, "PONG");
    freeReplyObject(rep);
    redisFree(c);
    if (ok) return 1;
    usleep(50000);
  }
  return 0;
}

crawl_code crawl_workers_redis_start(const char *dir, crawl_workers_redis *wr, char *err, size_t errlen) {
  char log[4400];
  memset(wr, 0, sizeof *wr);
  snprintf(wr->sockdir, sizeof wr->sockdir, "/tmp/uiap-redis-XXXXXX"); /* a unix socket path has 108 bytes at most */
  if ((mkdir(dir, 0700) != 0 && errno != EEXIST) || !mkdtemp(wr->sockdir)) {
    snprintf(err, errlen, "cannot create %.400s: %s", dir, strerror(errno));
    wr->sockdir[0] = 0;
    return CRAWL_IO;
  }
  snprintf(wr->sock, sizeof wr->sock, "%s/redis.sock", wr->sockdir);
  snprintf(log, sizeof log, "%s/redis.log", dir);
  char *rargv[] = {"redis-server", "--port", "0", "--unixsocket", wr->sock, "--unixsocketperm", "700", "--save", "",
                   "--appendonly", "no", NULL};
  wr->pid = crawl_spawn(rargv, "redis-server", log);
  if (!redis_ready(wr->sock, 5000)) {
    crawl_workers_redis_stop(wr);
    snprintf(err, errlen, "--workers needs redis-server (Debian: redis-server); see %.300s", log);
    return CRAWL_FRONTIER;
  }
  snprintf(wr->url, sizeof wr->url, "unix://%s", wr->sock);
  return CRAWL_OK;
}

void crawl_workers_redis_stop(crawl_workers_redis *wr) {
  if (wr->pid > 0) {
    kill(wr->pid, SIGTERM);
    waitpid(wr->pid, NULL, 0);
  }
  wr->pid = 0;
  if (wr->sock[0]) unlink(wr->sock);
  if (wr->sockdir[0]) rmdir(wr->sockdir);
}

/* cmd_crawl.c -- `uiap-crawl crawl URL|DIR... -o OUT`: explores the app
 * behind the seeds with the safety gate on (crawl_run) and writes a
 * Discovery Package into OUT, then its reports. A directory seed is served
 * on loopback; --plan reads a DiscoveryPlan; --resume continues a run. The
 * steps: options, setup (resume, plan, seeds, output directory), the
 * browser, the run, the verdict. */
#include "cli_int.h"
#include "crawl.h"
#include "crawl_serve.h"
#include "crawl_base.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char cli_help_crawl[] =
  "usage: uiap-crawl crawl URL|DIR [URL...] -o OUT [options]\n"
  "       uiap-crawl crawl --plan plan.json -o OUT [options]\n"
  "\n"
  "Explores the app behind the seeds with the safety gate on and writes a\n"
  "Discovery Package: OUT/package.json, OUT/states/, OUT/journal.jsonl.\n"
  "A directory is served read-only on loopback and crawled from its index.html.\n"
  "Every URL given is a seed, however many.\n"
  "\n"
  "  -o, --output DIR          output directory (required)\n"
  "  --plan FILE               DiscoveryPlanPayload or uiap.discovery.plan message\n"
  "  --principal ID            with --plan: explore as this principal (repeatable;\n"
  "                            default: every principal of the plan)\n"
  "  --mode MODE               observe_only | safe_explore (default) | sandbox_write\n"
  "  --max-states N            stop after N distinct states (default 200)\n"
  "  --max-transitions N       stop after N executed actions (default 2000)\n"
  "  --max-depth N             do not expand states deeper than N (default 12)\n"
  "  --max-runtime-ms N        stop after N ms (default 600000)\n"
  "  --max-per-route N         at most N states per route\n"
  "  --allow-origin ORIGIN     another origin in scope (repeatable, at most 32)\n"
  "  --allow-beacon PATH       let beacons (sendBeacon, <a ping>) to PATH... on the app's\n"
  "                            origins through the write guard: telemetry known to be\n"
  "                            harmless, such as a test bench's (at most 32; docs/safety.md)\n"
  "  --allow-read 'METHOD /path'  requests of METHOD to /path... on the app's origins\n"
  "                            are reads (a search or report endpoint): the write guard\n"
  "                            lets them through, unless the body is a GraphQL mutation.\n"
  "                            'graphql:Name': a persisted GraphQL query of that\n"
  "                            operation name is a read. GraphQL queries pass anyway.\n"
  "                            Repeatable, at most 32; the plan's\n"
  "                            environment.metadata.allowRead adds more (docs/safety.md)\n"
  "  --bridge-origin ORIGIN    publish frames of ORIGIN as bridged (at most 32)\n"
  "  --allow-bridges           also frames whose document declares <meta name=\"uiap-bridge\">\n"
  "  --viewport WxH            viewport (default 1280x800)\n"
  "  --locale LANG             browser language, e.g. de-DE\n"
  "  --user-agent STRING       the User-Agent, verbatim (default: the browser's, with\n"
  "                            HeadlessChrome as Chrome, as `login`'s browser says it)\n"
  "  --no-probe                hold controls nothing settles (rule default.unknown) for\n"
  "                            review instead of trying them under the seal\n"
  "                            (safe_explore; docs/safety.md \"Sealed probes\")\n"
  "  --screenshots             write OUT/screenshots/<stateId>.png (what the graph\n"
  "                            withholds painted over)\n"
  "  --redact pii              mask e-mail addresses, phone numbers and person names\n"
  "                            ([email], [phone], [name]) before anything is written\n"
  "                            (docs/safety.md)\n"
  "  --include-text-values     field values are part of a state's identity\n"
  "  --force                   overwrite an output directory that holds another run\n"
  "  --reviewed FILE           a reviewer's decisions (a decisions file or a previous\n"
  "                            package, docs/review.md): the entries they verified are\n"
  "                            \"verified\" in this package when they still match\n"
  "  --fail-on SEVERITY        exit 10 when the package has review items of SEVERITY\n"
  "                            (low | medium | high) or worse\n"
  "  --resume DIR              continue the run journaled in DIR (after a kill or a crash)\n"
  "  --baseline DIR            last night's crawl directory as knowledge: its states are\n"
  "                            verified, the transitions of unchanged ones carried over,\n"
  "                            changed, new and never tried ones explored (docs/nightly.md;\n"
  "                            also the plan's environment.metadata.baseline)\n"
  "  --reverify N[%]           with --baseline: re-execute N percent of the carried\n"
  "                            transitions, picked by a hash (default 10)\n"
  "  --frontier URL            share the run's frontier with other workers on Redis:\n"
  "                            redis://HOST:PORT/DB or unix:///PATH (docs/scale.md)\n"
  "  --run-id ID               with --frontier: the run all workers share (required)\n"
  "                            (and UIAP_FRONTIER_KEY in the environment: the run's\n"
  "                            key, 16 to 256 bytes, the same on every worker)\n"
  "  --lease-ms N              with --frontier: a state a worker took is given back to\n"
  "                            the others N ms after its last sign of life (default 30000)\n"
  "  --workers N|auto          N worker processes on one run (a private redis-server,\n"
  "                            then one merged package). Default auto: one per core,\n"
  "                            at most 4 and one per 512 MB of free memory, when the run\n"
  "                            can be split, else 1 (docs/scale.md); UIAP_WORKERS sets\n"
  "                            the default\n"
  "  --progress jsonl          uiap.discovery.progress events as JSON lines on stdout\n"
  "                            (a live line on stderr is the default on a terminal)\n"
  CLI_SESSION_HELP
  "  --chromium PATH, --connect URL, --headful   as for snapshot\n"
  "  --connect-timeout-ms N    --connect to a browser pool: keep trying this long while\n"
  "                            it answers HTTP 429 or 503 (default 60000; docs/pools.md)\n"
  "  --max-reconnects N        --connect: reconnect a dropped connection at most N times\n"
  "                            per run (default 10; 0: never)\n"
  "  --quiet, --verbose\n";

typedef struct {
  crawl_opts co;
  const char **urls;             /* the seeds given (nurls, NULL-terminated); as many as typed */
  char **url_bufs;              /* each seed as a URL (crawl_seeds), freed by crawl_cli_free */
  const char *allow[33], *bridge[33], *beacon[33], *reads[33];
  int nurls, nallow, nbridge, nbeacon, nreads;
  const char *plan_path, *chromium, *connect, *fail_on, *user_data_dir;
  crawl_session session;        /* --storage-state, --cookies, --header; feature flags */
  char flag_query[4096];        /* the plan's feature flags delivered as query parameters */
  const char *pick[17];         /* --principal IDs */
  int npick;
  crawl_principal *principals;  /* the plan's (docs/principals.md) */
  size_t nprincipals;
  int force, headful, mode_flag, verbosity, progress_jsonl, isatty_err;
  int no_probe;                 /* --no-probe: controls nothing settles are held, not probed */
  int workers;                  /* --workers N (> 1: cli_workers.c) */
  int argc;                     /* the command's own argv, for the workers */
  char **argv;
  long connect_timeout_ms;      /* --connect-timeout-ms (0: 60000) */
  long max_reconnects;          /* --max-reconnects (-1: not given, 10) */
  char resume_plan[8300];       /* the name of the plan --resume reads back (no file) */
  char *resume_text;            /* that plan (crawl_resume_plan), freed by crawl_cli_release */
  cJSON *plan;
  const char *reviewed_path;    /* --reviewed FILE */
  cJSON *reviewed;              /* its decisions, saved as OUT/reviewed.json */
  crawl_server *server;         /* serving the directory seed */
  int made;                     /* we created co.out_dir */
  crawl_package *pkg;           /* the package the run wrote (crawl_opts.package), for the verdict */
} crawl_cli;

/* ---- options ---------------------------------------------------------------- */
/* The budget options: option, spelling, crawl_budget field, range. */
#define CRAWL_BUDGETS(X)                                       \
  X(MAX_STATES, "max-states", max_states, 1, 100000)           \
  X(MAX_TRANSITIONS, "max-transitions", max_transitions, 1, 10000000) \
  X(MAX_DEPTH, "max-depth", max_depth, 1, 1000)                \
  X(MAX_RUNTIME, "max-runtime-ms", max_runtime_ms, 1000, 86400000) \
  X(MAX_PER_ROUTE, "max-per-route", max_per_route, 1, 100000)

/* Options that take a number and are no budget: option, spelling, crawl_cli field, range. */
#define CRAWL_NUMBERS(X)                                                          \
  X(CONNECT_TIMEOUT, "connect-timeout-ms", connect_timeout_ms, 1000, 3600000)    \
  X(MAX_RECONNECTS, "max-reconnects", max_reconnects, 0, 1000)

enum {
  OPT_PLAN = 256, OPT_MODE, OPT_ALLOW_ORIGIN, OPT_ALLOW_BEACON, OPT_ALLOW_READ, OPT_BRIDGE_ORIGIN, OPT_ALLOW_BRIDGES, OPT_VIEWPORT, OPT_LOCALE,
  OPT_USER_AGENT, OPT_NO_PROBE,
  OPT_SCREENSHOTS, OPT_TEXT_VALUES, OPT_FORCE, OPT_PROGRESS, OPT_FAIL_ON, OPT_RESUME, OPT_CHROMIUM, OPT_CONNECT,
  OPT_HEADFUL, OPT_QUIET, OPT_VERBOSE, OPT_STORAGE_STATE, OPT_COOKIES, OPT_HEADER, OPT_USER_DATA_DIR,
  OPT_PRINCIPAL, OPT_FRONTIER, OPT_RUN_ID, OPT_LEASE_MS, OPT_WORKERS, OPT_REVIEWED, OPT_REDACT, OPT_BASELINE,
  OPT_REVERIFY,
#define CRAWL__BUDGET_ENUM(opt, name, field, lo, hi) OPT_##opt,
  CRAWL_BUDGETS(CRAWL__BUDGET_ENUM)
  CRAWL_NUMBERS(CRAWL__BUDGET_ENUM)
#undef CRAWL__BUDGET_ENUM
};

static const struct { int opt; const char *name; size_t off; long lo, hi; } budgets[] = {
#define CRAWL__BUDGET_ROW(opt, name, field, lo, hi) {OPT_##opt, name, offsetof(crawl_budget, field), lo, hi},
  CRAWL_BUDGETS(CRAWL__BUDGET_ROW)
#undef CRAWL__BUDGET_ROW
};

static const struct option longopts[] = {
  {"help", no_argument, NULL, 'h'},
  {"output", required_argument, NULL, 'o'},
  {"plan", required_argument, NULL, OPT_PLAN},
  {"mode", required_argument, NULL, OPT_MODE},
#define CRAWL__BUDGET_OPT(opt, name, field, lo, hi) {name, required_argument, NULL, OPT_##opt},
  CRAWL_BUDGETS(CRAWL__BUDGET_OPT)
  CRAWL_NUMBERS(CRAWL__BUDGET_OPT)
#undef CRAWL__BUDGET_OPT
  {"allow-origin", required_argument, NULL, OPT_ALLOW_ORIGIN},
  {"allow-beacon", required_argument, NULL, OPT_ALLOW_BEACON},
  {"allow-read", required_argument, NULL, OPT_ALLOW_READ},
  {"bridge-origin", required_argument, NULL, OPT_BRIDGE_ORIGIN},
  {"allow-bridges", no_argument, NULL, OPT_ALLOW_BRIDGES},
  {"viewport", required_argument, NULL, OPT_VIEWPORT},
  {"locale", required_argument, NULL, OPT_LOCALE},
  {"user-agent", required_argument, NULL, OPT_USER_AGENT},
  {"screenshots", no_argument, NULL, OPT_SCREENSHOTS},
  {"no-probe", no_argument, NULL, OPT_NO_PROBE},
  {"include-text-values", no_argument, NULL, OPT_TEXT_VALUES},
  {"redact", required_argument, NULL, OPT_REDACT},
  {"force", no_argument, NULL, OPT_FORCE},
  {"progress", required_argument, NULL, OPT_PROGRESS},
  {"fail-on", required_argument, NULL, OPT_FAIL_ON},
  {"resume", required_argument, NULL, OPT_RESUME},
  {"baseline", required_argument, NULL, OPT_BASELINE},
  {"reverify", required_argument, NULL, OPT_REVERIFY},
  {"chromium", required_argument, NULL, OPT_CHROMIUM},
  {"connect", required_argument, NULL, OPT_CONNECT},
  {"headful", no_argument, NULL, OPT_HEADFUL},
  {"quiet", no_argument, NULL, OPT_QUIET},
  {"verbose", no_argument, NULL, OPT_VERBOSE},
  {"storage-state", required_argument, NULL, OPT_STORAGE_STATE},
  {"cookies", required_argument, NULL, OPT_COOKIES},
  {"header", required_argument, NULL, OPT_HEADER},
  {"principal", required_argument, NULL, OPT_PRINCIPAL},
  {"user-data-dir", required_argument, NULL, OPT_USER_DATA_DIR},
  {"frontier", required_argument, NULL, OPT_FRONTIER},
  {"run-id", required_argument, NULL, OPT_RUN_ID},
  {"lease-ms", required_argument, NULL, OPT_LEASE_MS},
  {"workers", required_argument, NULL, OPT_WORKERS},
  {"reviewed", required_argument, NULL, OPT_REVIEWED},
  {NULL, 0, NULL, 0},
};

/* A budget option's value into co.budget: CLI_CONTINUE, or the usage exit code. */
static int crawl_budget_arg(crawl_cli *x, int c, const char *v) {
  for (size_t i = 0; i < sizeof budgets / sizeof *budgets; i++) {
    if (budgets[i].opt != c) continue;
    long n;
    if (cli_parse_long(v, budgets[i].lo, budgets[i].hi, &n))
      return cli_fail(CLI_EXIT_USAGE, "--%s takes a number from %ld to %ld, not %s", budgets[i].name, budgets[i].lo,
                      budgets[i].hi, v);
    *(long *)((char *)&x->co.budget + budgets[i].off) = n;
  }
  return CLI_CONTINUE;
}

/* --connect-timeout-ms, --max-reconnects into their crawl_cli field:
 * CLI_CONTINUE, or the usage exit code. */
static int crawl_number_arg(crawl_cli *x, int c, const char *v) {
  static const struct { int opt; const char *name; size_t off; long lo, hi; } numbers[] = {
#define CRAWL__NUMBER_ROW(opt, name, field, lo, hi) {OPT_##opt, name, offsetof(crawl_cli, field), lo, hi},
    CRAWL_NUMBERS(CRAWL__NUMBER_ROW)
#undef CRAWL__NUMBER_ROW
  };
  for (size_t i = 0; i < sizeof numbers / sizeof *numbers; i++) {
    long n;
    if (numbers[i].opt != c) continue;
    if (cli_parse_long(v, numbers[i].lo, numbers[i].hi, &n))
      return cli_fail(CLI_EXIT_USAGE, "--%s takes a number from %ld to %ld, not %s", numbers[i].name, numbers[i].lo,
                      numbers[i].hi, v);
    *(long *)((char *)x + numbers[i].off) = n;
  }
  return CLI_CONTINUE;
}

/* An option with a choice of values: CLI_CONTINUE, or the usage exit code. */
static int crawl_choice_arg(crawl_cli *x, int c, const char *v) {
  if (c == OPT_MODE) {
    x->mode_flag = 1;
    if (pol_mode_parse(v, &x->co.policy.mode) != POL_OK)
      return cli_fail(CLI_EXIT_USAGE, "--mode takes observe_only, safe_explore or sandbox_write, not %s", v);
  } else if (c == OPT_PROGRESS) {
    if (strcmp(v, "jsonl") && strcmp(v, "tty")) return cli_fail(CLI_EXIT_USAGE, "--progress takes jsonl or tty, not %s", v);
    x->progress_jsonl = !strcmp(v, "jsonl");
  } else {
    if (strcmp(v, "low") && strcmp(v, "medium") && strcmp(v, "high"))
      return cli_fail(CLI_EXIT_USAGE, "--fail-on takes low, medium or high, not %s", v);
    x->fail_on = v;
  }
  return CLI_CONTINUE;
}

/* --frontier, --run-id, --lease-ms: CLI_CONTINUE, or the usage exit code. */
static int crawl_shared_arg(crawl_cli *x, int c, const char *v) {
  long n;
  if (c == OPT_FRONTIER) {
    x->co.frontier = v;
  } else if (c == OPT_RUN_ID) {
    size_t len = strlen(v);
    if (!len || len > 64 || v[strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")])
      return cli_fail(CLI_EXIT_USAGE, "--run-id takes 1 to 64 letters, digits, '.', '_' or '-'");
    x->co.run_id = v;
  } else if (c == OPT_WORKERS) {
    if (!strcmp(v, "auto")) x->workers = 0;
    else if (cli_parse_long(v, 1, 16, &n))
      return cli_fail(CLI_EXIT_USAGE, "--workers takes auto or a number from 1 to 16, not %s", v);
    else x->workers = (int)n;
  } else {
    if (cli_parse_long(v, 1000, 3600000, &n))
      return cli_fail(CLI_EXIT_USAGE, "--lease-ms takes a number from 1000 to 3600000, not %s", v);
    x->co.lease_ms = (int)n;
  }
  return CLI_CONTINUE;
}

/* --reverify N or N%: 0..100 into co.reverify (0 as -1: none). */
static int crawl_reverify_arg(crawl_cli *x, const char *v) {
  char num[16];
  size_t n = strlen(v);
  if (n && v[n - 1] == '%') n--;
  long pct;
  snprintf(num, sizeof num, "%.*s", (int)(n < sizeof num ? n : sizeof num - 1), v);
  if (!n || n >= sizeof num || cli_parse_long(num, 0, 100, &pct))
    return cli_fail(CLI_EXIT_USAGE, "--reverify takes a percent from 0 to 100, not %s", v);
  x->co.reverify = pct ? (int)pct : -1;
  return CLI_CONTINUE;
}

/* A session option (cli_session.c): CLI_CONTINUE, or the usage exit code. */
static int crawl_session_opt(crawl_cli *x, int c, const char *v) {
  if (c == OPT_USER_DATA_DIR) {
    x->user_data_dir = v;
    x->co.session_reuse = 1;
    return cli_user_data_dir_arg(v);
  }
  x->co.session = &x->session;
  return cli_session_arg(&x->session, c == OPT_STORAGE_STATE ? CLI_SESSION_STATE
                                      : c == OPT_COOKIES     ? CLI_SESSION_COOKIES
                                                             : CLI_SESSION_HEADER, v);
}

static int crawl_parse(int argc, char **argv, crawl_cli *x) {
  cli_getopt g;
  int c, code;
  cli_getopt_init(&g, argc, argv, "-:ho:", longopts);
  while ((c = cli_getopt_next(&g)) != -1) {
    const char *v = g.arg;
    switch (c) {
    case 'h': fputs(cli_help_crawl, stdout); return CLI_EXIT_OK;
    case 'o': x->co.out_dir = v; break;
    case OPT_PLAN: x->plan_path = v; break;
    case OPT_REVIEWED: x->reviewed_path = v; break;
    case OPT_MODE: case OPT_PROGRESS: case OPT_FAIL_ON:
      if ((code = crawl_choice_arg(x, c, v)) != CLI_CONTINUE) return code;
      break;
    case OPT_ALLOW_ORIGIN:
      if (x->nallow == 32) return cli_fail(CLI_EXIT_USAGE, "--allow-origin: at most 32");
      x->allow[x->nallow++] = v;
      break;
    case OPT_ALLOW_BEACON:
      if (v[0] != '/') return cli_fail(CLI_EXIT_USAGE, "--allow-beacon takes a path that starts with /");
      if (x->nbeacon == 32) return cli_fail(CLI_EXIT_USAGE, "--allow-beacon: at most 32");
      x->beacon[x->nbeacon++] = v;
      break;
    case OPT_ALLOW_READ:
      if ((code = cli_allow_read_arg(v, x->reads, &x->nreads)) != CLI_CONTINUE) return code;
      break;
    case OPT_BRIDGE_ORIGIN:
      if (x->nbridge == 32) return cli_fail(CLI_EXIT_USAGE, "--bridge-origin: at most 32");
      x->bridge[x->nbridge++] = v;
      break;
    case OPT_ALLOW_BRIDGES: x->co.allow_bridges = 1; break;
    case OPT_VIEWPORT:
      if ((code = cli_viewport_arg(v, &x->co.width, &x->co.height))) return code;
      break;
    case OPT_LOCALE: x->co.locale = v; break;
    case OPT_USER_AGENT:
      if (!crawl_user_agent_ok(v))
        return cli_fail(CLI_EXIT_USAGE, "--user-agent takes a non-empty string without control characters");
      x->co.user_agent = v;
      break;
    case OPT_SCREENSHOTS: x->co.screenshots = 1; break;
    case OPT_NO_PROBE: x->no_probe = 1; break;
    case OPT_TEXT_VALUES: x->co.fp.include_text_values = 1; break;
    case OPT_REDACT:
      if ((code = cli_redact_arg(v, &x->co.redact_pii)) != CLI_CONTINUE) return code;
      break;
    case OPT_FORCE: x->force = 1; break;
    case OPT_RESUME: x->co.out_dir = v; x->co.resume = 1; break;
    case OPT_BASELINE: x->co.baseline = v; break;
    case OPT_REVERIFY:
      if ((code = crawl_reverify_arg(x, v)) != CLI_CONTINUE) return code;
      break;
    case OPT_CHROMIUM: x->chromium = v; break;
    case OPT_CONNECT: x->connect = v; break;
    case OPT_HEADFUL: x->headful = 1; break;
    case OPT_QUIET: x->verbosity = 0; break;
    case OPT_VERBOSE: x->verbosity++; break;
#define CRAWL__BUDGET_CASE(opt, name, field, lo, hi) case OPT_##opt:
    CRAWL_BUDGETS(CRAWL__BUDGET_CASE)
#undef CRAWL__BUDGET_CASE
      if ((code = crawl_budget_arg(x, c, v)) != CLI_CONTINUE) return code;
      break;
#define CRAWL__NUMBER_CASE(opt, name, field, lo, hi) case OPT_##opt:
    CRAWL_NUMBERS(CRAWL__NUMBER_CASE)
#undef CRAWL__NUMBER_CASE
      if ((code = crawl_number_arg(x, c, v)) != CLI_CONTINUE) return code;
      break;
    case OPT_STORAGE_STATE: case OPT_COOKIES: case OPT_HEADER: case OPT_USER_DATA_DIR:
      if ((code = crawl_session_opt(x, c, v)) != CLI_CONTINUE) return code;
      break;
    case OPT_FRONTIER: case OPT_RUN_ID: case OPT_LEASE_MS: case OPT_WORKERS:
      if ((code = crawl_shared_arg(x, c, v)) != CLI_CONTINUE) return code;
      break;
    case OPT_PRINCIPAL:
      if (x->npick == 16) return cli_fail(CLI_EXIT_USAGE, "--principal: at most 16");
      x->pick[x->npick++] = v;
      break;
    case 1: x->urls[x->nurls++] = v; break; /* urls holds argc of them */
    default: return cli_bad_option(&g, c);
    }
  }
  return CLI_CONTINUE;
}

/* ---- setup -------------------------------------------------------------------- */
/* --resume DIR without seeds or --plan: the environment and seeds of the
 * run's own first record (crawl_resume_plan), read as --plan is; messages
 * name it DIR/.resume-plan.json, as when it was a file. */
static int crawl_resume_plan_load(crawl_cli *x) {
  const char *dir = x->co.out_dir;
  char err[8400];
  if (crawl_resume_plan(dir, &x->resume_text, err, sizeof err) != CRAWL_OK)
    return cli_fail(CLI_EXIT_USAGE, "%s", err);
  snprintf(x->resume_plan, sizeof x->resume_plan, "%s/.resume-plan.json", dir);
  x->plan_path = x->resume_plan;
  return CLI_CONTINUE;
}

/* --plan: budgets and safety from the plan, where no flag set them. */
static int crawl_load_plan(crawl_cli *x) {
  const char *path = x->plan_path;
  char *text = x->resume_text;
  if (!text) {
    FILE *f = fopen(path, "rb");
    if (!f) return cli_fail(CLI_EXIT_USAGE, "cannot read plan %s: %s", path, strerror(errno));
    size_t len;
    int oom = cli_read_all(f, SIZE_MAX, &text, &len);
    fclose(f);
    if (oom) {
      free(text);
      return cli_fail(CLI_EXIT_INTERNAL, "out of memory reading plan %s", path);
    }
    if (!text) return cli_fail(CLI_EXIT_USAGE, "plan %s is empty", path);
    text[len] = 0;
  }
  x->resume_text = NULL;
  crawl_plan_error pe;
  crawl_code pc = crawl_plan_parse(text, x->mode_flag, &x->co.budget, &x->co.policy, &x->plan, &pe);
  free(text);
  if (pc != CRAWL_OK && pe.line)
    return cli_fail(CLI_EXIT_USAGE, "plan %s is not valid JSON (line %d, column %d)", path, pe.line, pe.column);
  if (pc != CRAWL_OK) return cli_fail(CLI_EXIT_USAGE, "plan %s: %s", path, pe.msg);
  /* the plan's viewport and locale, where no flag set them */
  if (crawl_plan_browser(x->plan, &x->co.width, &x->co.height, &x->co.locale, &pe) != CRAWL_OK)
    return cli_fail(CLI_EXIT_USAGE, "plan %s: %s", path, pe.msg);
  /* its feature flags, where it says how (cookie, localStorage, query) */
  size_t had = x->session.ncookies + x->session.nstorage;
  if (crawl_plan_feature_flags(x->plan, &x->session, x->flag_query, sizeof x->flag_query, &pe) != CRAWL_OK)
    return cli_fail(CLI_EXIT_USAGE, "plan %s: %s", path, pe.msg);
  if (x->session.ncookies + x->session.nstorage > had) x->co.session = &x->session;
  if (x->flag_query[0]) x->co.seed_query = x->flag_query;
  return CLI_CONTINUE;
}

/* The seeds as URLs; a directory is served on loopback (one at most). */
static int crawl_seeds(crawl_cli *x) {
  for (int i = 0; i < x->nurls; i++) {
    struct stat st;
    if (stat(x->urls[i], &st) == 0 && S_ISDIR(st.st_mode)) {
      if (x->server) return cli_fail(CLI_EXIT_USAGE, "crawl serves one directory at a time");
      crawl_server_opts so = {.root = x->urls[i], .spa_fallback = 1};
      crawl_server *s = NULL;
      char err[256];
      if (crawl_server_start(&so, &s, err, sizeof err) != 0) return cli_fail(CLI_EXIT_INTERNAL, "%s", err);
      x->server = s;
      x->url_bufs[i] = crawl__xprintf("http://127.0.0.1:%d/", crawl_server_port(s));
    } else {
      x->url_bufs[i] = crawl__xcalloc(1, 8192);
      int nu = cli_url_normalize(x->urls[i], x->url_bufs[i], 8192);
      if (nu == -1) return cli_fail(CLI_EXIT_USAGE, "unsupported URL (only http, https and file): %s", x->urls[i]);
      if (nu == -2) return cli_fail(CLI_EXIT_USAGE, "not a URL, file or directory: %s", x->urls[i]);
    }
    x->urls[i] = x->url_bufs[i];
  }
  x->urls[x->nurls] = NULL;
  x->allow[x->nallow] = NULL;
  x->bridge[x->nbridge] = NULL;
  x->co.urls = x->urls;
  x->co.secrets = cli_secrets(); /* the credentials of its URLs: the run's too */
  x->co.allow_origins = x->allow;
  x->beacon[x->nbeacon] = NULL;
  x->co.allow_beacons = x->nbeacon ? x->beacon : NULL;
  x->reads[x->nreads] = NULL;
  x->co.allow_reads = x->nreads ? x->reads : NULL;
  x->co.bridge_origins = x->nbridge ? x->bridge : NULL;
  x->co.plan = x->plan;
  return CLI_CONTINUE;
}

/* The output directory: not another run's (unless --force), created, writable. */
static int crawl_prepare_out(crawl_cli *x) {
  char err[8400];
  if (crawl_out_prepare(x->co.out_dir, x->co.resume, x->force, &x->made, err, sizeof err) != CRAWL_OK)
    return cli_fail(CLI_EXIT_OUTPUT, "%s", err);
  return CLI_CONTINUE;
}

/* The plan's principals (before the browser starts: a missing variable is a
 * usage error): explored as each when --principal picks some or a plan's
 * principal has a recipe or a storage state. */
static int crawl_principals(crawl_cli *x) {
  if (x->npick && !x->plan) return cli_fail(CLI_EXIT_USAGE, "--principal needs --plan");
  if (!x->plan) return CLI_CONTINUE;
  x->pick[x->npick] = NULL;
  int code = cli_principals(x->plan, x->npick ? x->pick : NULL, &x->principals, &x->nprincipals);
  if (code != CLI_CONTINUE) return code;
  int any = x->npick > 0;
  for (size_t k = 0; k < x->nprincipals; k++) any |= x->principals[k].login || x->principals[k].storage_state;
  if (!any) return CLI_CONTINUE;
  if (x->co.session) return cli_fail(CLI_EXIT_USAGE, "the plan's principals bring their own sessions: drop --storage-state, --cookies and --header");
  x->co.principals = x->principals;
  x->co.nprincipals = x->nprincipals;
  return CLI_CONTINUE;
}

/* --reviewed FILE, read before anything starts (a bad file is a usage error)... */
static int crawl_load_reviewed(crawl_cli *x) {
  char err[1024];
  if (!x->reviewed_path) return CLI_CONTINUE;
  if (crawl_reviewed_load(x->reviewed_path, &x->reviewed, err, sizeof err))
    return cli_fail(CLI_EXIT_USAGE, "--reviewed: %s", err);
  return CLI_CONTINUE;
}

/* ...and kept in the output directory, where every package build reads it. */
static int crawl_save_reviewed(crawl_cli *x) {
  char err[1024];
  if (!x->reviewed) return CLI_CONTINUE;
  crawl_code rc = crawl_reviewed_save(x->co.out_dir, x->reviewed, err, sizeof err);
  cJSON_Delete(x->reviewed);
  x->reviewed = NULL;
  return rc ? cli_fail(CLI_EXIT_OUTPUT, "%s", err) : CLI_CONTINUE;
}

/* A plan seed that names a control (menu, action): driven first, by one
 * process only. */
static int plan_control_seeds(const cJSON *plan) {
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(plan, "payload");
  const cJSON *seeds = cJSON_GetObjectItemCaseSensitive(p ? p : plan, "seeds"), *sd;
  cJSON_ArrayForEach(sd, seeds)
    if (crawl_seed_use_of(sd, CRAWL_SEEDS_RUN) == CRAWL_SEED_CONTROL) return 1;
  return 0;
}

/* MB of memory available now (MemAvailable), -1 unknown. */
static long available_mb(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1) break;
  if (f) fclose(f);
  return kb < 0 ? -1 : kb / 1024;
}

/* Why this run cannot be split over workers, or NULL. */
static const char *one_worker_only(const crawl_cli *x) {
  if (x->co.frontier) return "--frontier: this process is one worker";
  if (x->co.resume) return "--resume continues one journal";
  if (x->co.baseline) return "--baseline runs in one process";
  if (x->co.nprincipals) return "principals explore in one process";
  if (x->connect) return "--connect drives one browser";
  if (x->headful) return "--headful shows one browser";
  if (x->user_data_dir) return "--user-data-dir is one browser's profile";
  if (x->progress_jsonl) return "--progress jsonl comes from one process";
  if (x->plan && plan_control_seeds(x->plan)) return "the plan's menu and action seeds are driven by one process";
  char *redis = crawl__find_on_path("redis-server");
  int have_redis = redis != NULL;
  free(redis);
  if (!have_redis) return "no redis-server for the workers' frontier";
  return NULL;
}

/* --workers auto (the default): one per core, at most 4 and one per 512 MB
 * of available memory (each has its own Chromium), when the run can be
 * split; else 1. UIAP_WORKERS (a number or auto) sets the default. */
#define AUTO_WORKERS_MAX 4
static int auto_workers(const crawl_cli *x) {
  const char *env = getenv("UIAP_WORKERS"), *why = one_worker_only(x);
  long n;
  if (why) {
    crawl_log(CRAWL_LOG_INFO, "crawl", "one worker: %s", why);
    return 1;
  }
  if (env && *env && strcmp(env, "auto") && !cli_parse_long(env, 1, 16, &n)) return (int)n;
  long cores = sysconf(_SC_NPROCESSORS_ONLN), mb = available_mb();
  n = cores < 1 ? 1 : cores;
  if (n > AUTO_WORKERS_MAX) n = AUTO_WORKERS_MAX;
  if (mb >= 0 && n > mb / 512) n = mb / 512 < 1 ? 1 : mb / 512;
  crawl_log(CRAWL_LOG_INFO, "crawl", "%ld worker%s (auto: %ld cores, %ld MB available; --workers N to choose)", n,
            n == 1 ? "" : "s", cores, mb);
  return (int)n;
}

/* --baseline (or the plan's environment.metadata.baseline and .reverify):
 * one process, a new run, no shared frontier. */
static int crawl_baseline_opts(crawl_cli *x) {
  crawl_plan_error pe;
  if (x->plan && crawl_plan_baseline(x->plan, &x->co.baseline, &x->co.reverify, &pe) != CRAWL_OK)
    return cli_fail(CLI_EXIT_USAGE, "plan %s: %s", x->plan_path, pe.msg);
  if (!x->co.baseline) return CLI_CONTINUE;
  if (x->co.resume || x->co.frontier || x->co.nprincipals)
    return cli_fail(CLI_EXIT_USAGE, "--baseline starts a new run in one process: not with --resume, --frontier or principals");
  if (x->workers > 1) return cli_fail(CLI_EXIT_USAGE, "--baseline runs in one process: not with --workers %d", x->workers);
  x->workers = 1;
  return CLI_CONTINUE;
}

static int crawl_setup(crawl_cli *x) {
  int code;
  if (!x->co.out_dir) return cli_fail(CLI_EXIT_USAGE, "crawl needs an output directory (-o DIR)");
  char err[512];
  int gathered = x->co.resume ? crawl_workers_gather(x->co.out_dir, err, sizeof err) : 0;
  if (gathered < 0)
    return cli_fail(CLI_EXIT_OUTPUT, "cannot merge the workers' journals in %s to resume: %s", x->co.out_dir, err);
  if (x->co.resume && !x->nurls && !x->plan_path && (code = crawl_resume_plan_load(x)) != CLI_CONTINUE) return code;
  if (!x->nurls && !x->plan_path)
    return cli_fail(CLI_EXIT_USAGE, "crawl needs a URL, a directory or --plan (see uiap-crawl crawl --help)");
  cli_log_setup(x->verbosity);
  if (gathered > 0)
    crawl_log(CRAWL_LOG_INFO, "crawl", "resuming the run of %d workers in %s as one process", gathered, x->co.out_dir);
  if (x->plan_path && (code = crawl_load_plan(x)) != CLI_CONTINUE) return code;
  x->co.policy.probe_unknown = !x->no_probe; /* pol_probeable: safe_explore only */
  if ((code = crawl_principals(x)) != CLI_CONTINUE) return code;
  if ((x->co.run_id || x->co.lease_ms) && !x->co.frontier)
    return cli_fail(CLI_EXIT_USAGE, "--run-id and --lease-ms go with --frontier");
  if (x->co.frontier && !x->co.run_id)
    return cli_fail(CLI_EXIT_USAGE, "--frontier needs --run-id (the same on every worker of the run)");
  if (x->co.frontier) { /* the records of other workers are told from forged ones by the run's key */
    const char *key = getenv("UIAP_FRONTIER_KEY");
    size_t nk = key ? strlen(key) : 0;
    if (nk < 16 || nk > 256)
      return cli_fail(CLI_EXIT_USAGE, "--frontier needs the run's key in UIAP_FRONTIER_KEY: 16 to 256 bytes, the "
                      "same on every worker, never stored in Redis (docs/scale.md)%s", nk ? "; the one set has the wrong length" : "");
    x->co.frontier_key = key;
  }
  if ((code = crawl_baseline_opts(x)) != CLI_CONTINUE) return code;
  if (x->workers > 1 && (x->co.frontier || x->co.resume || x->co.nprincipals || x->connect))
    return cli_fail(CLI_EXIT_USAGE, "--workers runs its own frontier: not with --frontier, --resume, --connect or principals");
  if (x->co.frontier && x->co.nprincipals)
    return cli_fail(CLI_EXIT_USAGE, "--frontier does not explore as principals yet (docs/scale.md)");
  if (!x->workers) x->workers = auto_workers(x);
  if ((code = crawl_seeds(x)) != CLI_CONTINUE) return code;
  if ((code = crawl_load_reviewed(x)) != CLI_CONTINUE) return code;
  if ((code = crawl_prepare_out(x)) != CLI_CONTINUE) return code;
  return crawl_save_reviewed(x);
}

static void crawl_cli_release(crawl_cli *x) {
  crawl_server_stop(x->server);
  x->server = NULL;
  cJSON_Delete(x->plan);
  x->plan = NULL;
  cJSON_Delete(x->reviewed);
  x->reviewed = NULL;
  free(x->resume_text);
  x->resume_text = NULL;
  crawl_session_release(&x->session);
  crawl_principals_free(x->principals, x->nprincipals);
  x->principals = NULL;
  x->nprincipals = 0;
}

/* ---- the run -------------------------------------------------------------------- */
/* crawl_opts.progress: uiap.discovery.progress JSON lines on stdout
 * (--progress jsonl), else a live line on a terminal's stderr. */
static void progress_line(void *ud, const crawl_progress *p) {
  const crawl_cli *x = ud;
  if (x->progress_jsonl) {
    static long seq;
    char id[64];
    cJSON *pl = cJSON_CreateObject();
    snprintf(id, sizeof id, "msg_progress_%ld", ++seq);
    cJSON_AddStringToObject(pl, "runId", p->run_id ? p->run_id : "");
    cJSON_AddStringToObject(pl, "status", p->status);
    if (p->route) cJSON_AddStringToObject(pl, "currentRouteId", p->route);
    cJSON_AddNumberToObject(pl, "visitedStates", (double)p->states);
    cJSON_AddNumberToObject(pl, "visitedTransitions", (double)p->transitions);
    cJSON *m = crawl_envelope(&(crawl_msg){.type = "uiap.discovery.progress", .id = id}, pl);
    char *t = cJSON_PrintUnformatted(m);
    cJSON_Delete(m);
    if (t) {
      puts(t);
      fflush(stdout);
    }
    free(t);
    return;
  }
  if (!x->isatty_err || x->verbosity <= 0) return;
  char nc[48] = ""; /* the workers' parent does not know it: -1 */
  if (p->decisions >= 0) snprintf(nc, sizeof nc, "  not clicked %ld", p->decisions);
  fprintf(stderr, "\r\033[K%-10s states %ld  transitions %ld%s  %lds  %.60s", p->status, p->states, p->transitions,
          nc, p->elapsed_ms / 1000, p->route ? p->route : "");
  fflush(stderr);
}

/* ---- the browser: a pool behind --connect (browser.c) ------------------------------------ */
/* The first connection to --connect: CLI_EXIT_OK, or the exit code after one line. */
static int crawl_connect(const crawl_cli *x, cdp_client **c) {
  char err[1024] = "";
  cdp_code rc = crawl_pool_connect(x->connect, x->connect_timeout_ms, NULL, &cli_signal, c, err, sizeof err);
  if (rc == CDP_OK) return CLI_EXIT_OK;
  if (rc == CDP_CANCELLED) return cli_exit_signal();
  if (rc == CDP_BUSY)
    return cli_fail(CLI_EXIT_CONNECT, "%s (--connect-timeout-ms %ld)", err,
                    x->connect_timeout_ms > 0 ? x->connect_timeout_ms : 60000L);
  return cli_fail(rc == CDP_ARG ? CLI_EXIT_USAGE : CLI_EXIT_CONNECT, "%s", err);
}

/* The output directory we created, removed again (it holds at most the
 * reviewer's decisions we put there). */
static void unmake_out(const crawl_cli *x) {
  char path[8300];
  snprintf(path, sizeof path, "%s/reviewed.json", x->co.out_dir);
  if (x->reviewed_path) unlink(path);
  rmdir(x->co.out_dir);
}

/* The exit code for how the run ended, after the summary and the reports. */
static int crawl_verdict(crawl_cli *x, crawl_code rc, const crawl_summary *sum) {
  const char *dir = x->co.out_dir;
  if (rc == CRAWL_BASELINE) { /* refused before anything was written */
    if (x->made) unmake_out(x);
    return cli_fail(CLI_EXIT_BASELINE, "%s", sum->error);
  }
  if (!x->pkg) (void)crawl_package_open(dir, &x->pkg, NULL, 0); /* the workers' merge wrote it: read once */
  if (rc == CRAWL_IO) return cli_fail(CLI_EXIT_OUTPUT, "%s", sum->error);
  if (x->verbosity > 0)
    fprintf(stderr,
            "uiap-crawl: %s: %ld states, %ld transitions (%ld self-loops), %ld actions not taken, "
            "%ld failed, %ld review findings; stopped by %s\n"
            "uiap-crawl: package: %s/package.json\n",
            sum->status ? sum->status : "failed", sum->states, sum->transitions, sum->self_loops, sum->decisions,
            sum->failures, sum->reviews, sum->stopped_by ? sum->stopped_by : "?", dir);
  char gate[1024];
  if (x->verbosity > 0 && rc != CRAWL_FRONTIER && x->pkg && crawl_package_gate_line(x->pkg, gate, sizeof gate) == CRAWL_OK)
    fprintf(stderr, "uiap-crawl: %s\n", gate);
  if (x->verbosity > 0 && rc != CRAWL_FRONTIER && x->pkg && crawl_package_failure_line(x->pkg, gate, sizeof gate) == CRAWL_OK &&
      gate[0])
    fprintf(stderr, "uiap-crawl: warning: %s\n", gate);
  if (rc == CRAWL_FRONTIER && x->made) unmake_out(x); /* only when nothing was written */
  if (rc != CRAWL_OK)
    return cli_fail(rc == CRAWL_BROWSER    ? (x->connect ? CLI_EXIT_CONNECT : CLI_EXIT_BROWSER)
                    : rc == CRAWL_FRONTIER ? CLI_EXIT_FRONTIER
                                           : CLI_EXIT_INTERNAL, "%s", sum->error);
  if (sum->status && !strcmp(sum->status, "cancelled")) return cli_exit_signal();
  char rerr[1024];
  if ((x->pkg ? crawl_package_reports(x->pkg, NULL, rerr, sizeof rerr) : crawl_reports_write(dir, NULL, rerr, sizeof rerr)) != CRAWL_OK && x->verbosity > 0)
    fprintf(stderr, "uiap-crawl: warning: reports not written: %s\n", rerr);
  if (sum->stopped_by && !strcmp(sum->stopped_by, "guard")) /* failed closed; the package is written */
    return cli_fail(CLI_EXIT_GUARD, "%s", sum->error);
  if (sum->states == 0) /* the package and reports are written; they list each seed's failure */
    return cli_fail(CLI_EXIT_NAVIGATE, "no seed could be loaded%s%s", sum->error[0] ? ": " : "", sum->error);
  if (!x->fail_on) return CLI_EXIT_OK;
  long nrev = 0;
  if ((x->pkg ? crawl_package_review_count(x->pkg, x->fail_on, &nrev, rerr, sizeof rerr)
              : crawl_review_count(dir, x->fail_on, &nrev, rerr, sizeof rerr)) != CRAWL_OK)
    return cli_fail(CLI_EXIT_INTERNAL, "%s", rerr);
  if (nrev > 0)
    return cli_fail(CLI_EXIT_REVIEW, "%ld review item%s of severity %s or worse (--fail-on %s)", nrev,
                    nrev == 1 ? "" : "s", x->fail_on, x->fail_on);
  return CLI_EXIT_OK;
}

/* The workers failed as one (crawl_workers_result): the run fails as a single
 * process would have, with the worker's line. A browser that did not start
 * (or a pool not reached) leaves nothing behind; else the merged package and
 * reports are written first. */
static int crawl_workers_failed(crawl_cli *x, crawl_code rc, crawl_summary *sum, const crawl_workers_result *end) {
  static const char noseed[] = "no seed could be loaded";
  if (end->code == CLI_EXIT_BROWSER || end->code == CLI_EXIT_CONNECT || end->code == CLI_EXIT_USAGE) {
    if (x->made) crawl_out_remove(x->co.out_dir);
    else crawl_out_clear(x->co.out_dir);
    return cli_fail(end->code, "%s", end->why);
  }
  if (rc) return cli_fail(end->code, "%s", end->why); /* nothing merged: the workers' logs are in OUT/workers */
  const char *why = end->why;
  if (end->code == CLI_EXIT_NAVIGATE && !strncmp(why, noseed, sizeof noseed - 1)) /* crawl_verdict says it again */
    why += strspn(why + sizeof noseed - 1, ": ") + sizeof noseed - 1;
  snprintf(sum->error, sizeof sum->error, "%s", why);
  int code = crawl_verdict(x, CRAWL_OK, sum);
  return code == CLI_EXIT_OK || code == CLI_EXIT_REVIEW ? cli_fail(end->code, "%s", end->why) : code;
}

/* --workers N: the run in N processes, merged (cli_workers.c). */
static int crawl_execute_workers(crawl_cli *x) {
  char exe[4096], run_id[64];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return cli_fail(CLI_EXIT_INTERNAL, "--workers: cannot find this program (/proc/self/exe)");
  exe[n] = 0;
  snprintf(run_id, sizeof run_id, "run_%lld_%d", (long long)time(NULL), (int)getpid());
  cli_workers w = {.n = x->workers, .out = x->co.out_dir, .exe = exe, .run_id = run_id, .argc = x->argc,
                   .argv = x->argv, .longopts = longopts, .urls = x->urls, .nurls = x->nurls,
                   .verbose = x->verbosity > 1};
  x->isatty_err = isatty(2);
  if (x->isatty_err && x->verbosity > 0) w.progress = progress_line, w.progress_ud = x;
  crawl_summary sum;
  crawl_workers_result end;
  crawl_code rc = cli_workers_run(&w, &sum, &end);
  if (w.progress) fputs("\r\033[K", stderr);
  crawl_cli_release(x);
  if (end.code) return crawl_workers_failed(x, rc, &sum, &end);
  if (!rc && sum.error[0] && x->verbosity > 0) fprintf(stderr, "uiap-crawl: warning: %s\n", sum.error);
  sum.error[0] = rc ? sum.error[0] : 0;
  return crawl_verdict(x, rc, &sum);
}

static int crawl_execute(crawl_cli *x) {
  if (x->workers > 1) return crawl_execute_workers(x);
  crawl_opts *co = &x->co;
  cdp_client *c;
  crawl_relaunch_ctx rx = {.c = &c, .connect = x->connect, .connect_timeout_ms = x->connect_timeout_ms,
                           .cancel = &cli_signal,
                           .lo = {.chromium = x->chromium, .headful = x->headful, .width = co->width,
                                  .height = co->height, .lang = co->locale, .user_data_dir = x->user_data_dir}};
  int code = x->connect ? crawl_connect(x, &c) : cli_browser_open(NULL, 0, &rx.lo, &c);
  if (code) {
    crawl_cli_release(x);
    if (x->made) unmake_out(x);
    return code;
  }
  co->cancel = &cli_signal;
  co->relaunch = crawl_relaunch;
  co->relaunch_ud = &rx;
  co->reconnect = x->connect != NULL;
  co->max_reconnects = x->max_reconnects < 0 ? 0 : x->max_reconnects == 0 ? -1 : (int)x->max_reconnects;
  x->isatty_err = isatty(2);
  co->progress = progress_line;
  co->progress_ud = x;
  co->package = &x->pkg;
  crawl_summary sum;
  crawl_code rc = crawl_run(c, co, &sum);
  if (x->isatty_err && x->verbosity > 0) fputs("\r\033[K", stderr);
  cdp_client_free(c); /* NULL when the last relaunch failed */
  crawl_cli_release(x);
  if (rx.err[0]) { /* the browser was lost for good: the run's line says why */
    snprintf(sum.error, sizeof sum.error, "%.400s; the run stopped there", rx.err);
    if (rc == CRAWL_OK) rc = CRAWL_BROWSER;
  }
  return crawl_verdict(x, rc, &sum);
}

int cli_cmd_crawl(int argc, char **argv) {
  crawl_cli x = {.verbosity = 1, .argc = argc, .argv = argv, .max_reconnects = -1};
  /* every operand is a seed: no more of them than argv has */
  x.urls = crawl__xcalloc((size_t)argc + 1, sizeof *x.urls);
  x.url_bufs = crawl__xcalloc((size_t)argc + 1, sizeof *x.url_bufs);
  int code = crawl_parse(argc, argv, &x);
  if (code == CLI_CONTINUE) code = crawl_setup(&x);
  if (code == CLI_CONTINUE) code = crawl_execute(&x);
  crawl_package_free(x.pkg);
  crawl_cli_release(&x);
  for (int i = 0; i < argc; i++) free(x.url_bufs[i]);
  free(x.url_bufs);
  free(x.urls);
  return code;
}

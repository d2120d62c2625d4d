/* snapshot.c -- one decision, written once, for every tool that opens a
 * tab (crawl, mcp, snapshot, observe, listen): whether the tab is behind
 * the write guard (crawl_guard_for_mode), which secret list a tab or a
 * session starts with (crawl__secrets_for), and a capture published
 * through the tab's list (crawl_page_snapshot, crawl_page_scrub). */
#include "crawl.h"
#include "crawl_secrets.h"
#include "run_int.h"

int crawl_guard_for_mode(const pol_policy *pol, int allow_writes) {
  if (allow_writes) return 0;
  return !pol || pol->mode != POL_MODE_SANDBOX_WRITE || !pol->allow_destructive_actions;
}

crawl__secrets *crawl__secrets_for(const crawl_session *session, int redact_pii) {
  crawl__secrets *s = crawl__secrets_new();
  if (redact_pii) crawl__secrets_filter(s, pg_pii_mask); /* before the first line it filters */
  crawl__session_secrets(session, s);                    /* cookie, header, localStorage values */
  return s;
}

crawl_code crawl_page_snapshot(crawl_page *p, const pg_options *go, pg_graph **g, cJSON **json) {
  crawl__secrets *sec = crawl_page_secrets(p);
  pg_graph *graph = NULL;
  if (g) *g = NULL;
  if (json) *json = NULL;
  if (go && go->redact_pii) crawl__secrets_filter(sec, pg_pii_mask);
  crawl_code rc = crawl_page_capture(p, go, &graph); /* its redacted values join sec */
  if (rc) return rc;
  if (json) {
    *json = pg_graph_to_json(graph);
    if (!*json) {
      pg_graph_free(graph);
      return CRAWL_NOMEM;
    }
    crawl__secrets_scrub_json(sec, *json);
  }
  if (g) *g = graph;
  else pg_graph_free(graph);
  return CRAWL_OK;
}

char *crawl_page_scrub(const crawl_page *p, const char *text) {
  return crawl__secrets_scrub(crawl_page_secrets((crawl_page *)p), text, NULL);
}

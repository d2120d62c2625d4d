/* mcp_int.h -- what the MCP server's two files share: the session (one
 * browser, one tab, the last snapshot) and the tool table. mcp.c speaks
 * JSON-RPC; mcp_tools.c does the tools. Internal to crawler/run/. */
#ifndef UIAP_MCP_INT_H
#define UIAP_MCP_INT_H

#include "crawl.h"
#include "crawl_secrets.h"
#include "crawl_util.h"

#define MCP__ORIGINS_MAX 64

struct crawl_mcp {
  crawl_mcp_opts o;
  cdp_client *c;              /* NULL until a tool needs the browser */
  crawl_page *page;           /* the tab, opened by the first navigate */
  crawl__secrets *secrets;    /* every value a capture redacted: no reply holds one */
  char first_origin[512];     /* the first URL's: in scope with o.allow_origins */
  const char *allowed[MCP__ORIGINS_MAX + 2]; /* NULL-terminated: first_origin, then those */
  cJSON *snap;                /* the last snapshot's graph (JSON): what `changes` compares with */
  int snap_blocked;           /* crawl_page_blocked at that snapshot */
  int crawls;                 /* crawl packages written (their directory names) */
};

/* A tool's result: text (the first content item), and is_error. A handler
 * returns 0, or -1 for arguments that do not fit its schema (a JSON-RPC
 * -32602 with text as the message). */
typedef struct mcp__result {
  crawl__buf text;
  int is_error;
} mcp__result;

typedef struct mcp__tool {
  const char *name, *description;
  const char *schema;         /* inputSchema, JSON text */
  int (*run)(crawl_mcp *m, const cJSON *args, mcp__result *r);
} mcp__tool;

/* The tools, NULL-name-terminated (mcp_tools.c). */
extern const mcp__tool mcp__tools[];

/* Tear down the tab and the browser (mcp_tools.c). */
void mcp__session_close(crawl_mcp *m);

#endif

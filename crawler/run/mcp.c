/* mcp.c -- the MCP server's protocol side: JSON-RPC 2.0 messages of the
 * Model Context Protocol (lifecycle, ping, tools/list, tools/call), one at a
 * time, answered as one line of JSON. The transport (stdio) is the
 * caller's; the tools are mcp_tools.c. Every reply is scrubbed of the
 * session's secrets before it leaves. */
#include "mcp_int.h"

#include <stdlib.h>
#include <string.h>

/* Revisions this server speaks, newest first: an initialize asking for one
 * of them gets it back, any other the newest. */
static const char *const protocol_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL};

#define RPC_PARSE_ERROR -32700
#define RPC_INVALID_REQUEST -32600
#define RPC_METHOD_NOT_FOUND -32601
#define RPC_INVALID_PARAMS -32602

typedef struct rpc_reply {
  cJSON *result;              /* or */
  int code;                   /* an error, with message */
  char message[512];
} rpc_reply;

static void rpc_error(rpc_reply *r, int code, const char *message) {
  r->code = code;
  snprintf(r->message, sizeof r->message, "%s", message);
}

static cJSON *tools_list(void) {
  cJSON *tools = cJSON_CreateArray();
  for (const mcp__tool *t = mcp__tools; t->name; t++) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", t->name);
    cJSON_AddStringToObject(o, "description", t->description);
    cJSON_AddItemToObject(o, "inputSchema", cJSON_Parse(t->schema));
    cJSON_AddItemToArray(tools, o);
  }
  cJSON *res = cJSON_CreateObject();
  cJSON_AddItemToObject(res, "tools", tools);
  return res;
}

static void on_initialize(crawl_mcp *m, const cJSON *params, rpc_reply *r) {
  const char *asked = crawl__str(params, "protocolVersion"), *v = protocol_versions[0];
  for (int i = 0; asked && protocol_versions[i]; i++)
    if (!strcmp(asked, protocol_versions[i])) v = protocol_versions[i];
  r->result = cJSON_CreateObject();
  cJSON_AddStringToObject(r->result, "protocolVersion", v);
  cJSON_AddItemToObject(cJSON_AddObjectToObject(r->result, "capabilities"), "tools", cJSON_CreateObject());
  cJSON *info = cJSON_AddObjectToObject(r->result, "serverInfo");
  cJSON_AddStringToObject(info, "name", "uiap-crawl");
  cJSON_AddStringToObject(info, "version", m->o.version ? m->o.version : "0");
  cJSON_AddStringToObject(r->result, "instructions",
                          "Drive one browser tab behind uiap-crawl's safety gate: navigate, snapshot (each "
                          "element marked with the policy's decision), act, changes, crawl.");
}

static void on_tools_call(crawl_mcp *m, const cJSON *params, rpc_reply *r) {
  const char *name = crawl__str(params, "name");
  const cJSON *args = crawl__get(params, "arguments");
  if (!name) return rpc_error(r, RPC_INVALID_PARAMS, "tools/call needs params.name");
  if (args && !cJSON_IsObject(args)) return rpc_error(r, RPC_INVALID_PARAMS, "params.arguments must be an object");
  const mcp__tool *t = mcp__tools;
  while (t->name && strcmp(t->name, name)) t++;
  if (!t->name) {
    snprintf(r->message, sizeof r->message, "unknown tool: %.200s", name);
    r->code = RPC_INVALID_PARAMS;
    return;
  }
  cJSON *none = args ? NULL : cJSON_CreateObject();
  mcp__result res = {0};
  int rc = t->run(m, args ? args : none, &res);
  cJSON_Delete(none);
  char *text = crawl__buf_take(&res.text);
  if (rc) {
    rpc_error(r, RPC_INVALID_PARAMS, text ? text : "invalid arguments");
  } else {
    r->result = cJSON_CreateObject();
    cJSON *item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "type", "text");
    cJSON_AddStringToObject(item, "text", text ? text : "");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(r->result, "content"), item);
    cJSON_AddBoolToObject(r->result, "isError", res.is_error);
  }
  free(text);
}

/* Methods, by name. */
static const struct {
  const char *method;
  void (*fn)(crawl_mcp *m, const cJSON *params, rpc_reply *r);
} methods[] = {
  {"initialize", on_initialize},
  {"tools/call", on_tools_call},
};

static void dispatch(crawl_mcp *m, const char *method, const cJSON *params, rpc_reply *r) {
  if (!strcmp(method, "ping")) { r->result = cJSON_CreateObject(); return; }
  if (!strcmp(method, "tools/list")) { r->result = tools_list(); return; }
  for (size_t i = 0; i < sizeof methods / sizeof *methods; i++)
    if (!strcmp(method, methods[i].method)) return methods[i].fn(m, params, r);
  snprintf(r->message, sizeof r->message, "method not found: %.200s", method);
  r->code = RPC_METHOD_NOT_FOUND;
}

/* The reply to id (NULL: null) as a line, scrubbed; r's result consumed. */
static char *reply_line(crawl_mcp *m, const cJSON *id, rpc_reply *r) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "jsonrpc", "2.0");
  cJSON_AddItemToObject(o, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
  if (r->result) {
    cJSON_AddItemToObject(o, "result", r->result);
  } else {
    cJSON *e = cJSON_AddObjectToObject(o, "error");
    cJSON_AddNumberToObject(e, "code", r->code);
    cJSON_AddStringToObject(e, "message", r->message);
  }
  crawl__secrets_scrub_json(m->secrets, o);
  char *line = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  return line;
}

char *crawl_mcp_handle(crawl_mcp *m, const char *msg, size_t len) {
  rpc_reply r = {0};
  cJSON *j = cJSON_ParseWithLength(msg, len);
  if (!j) {
    rpc_error(&r, RPC_PARSE_ERROR, "parse error: not JSON");
    return reply_line(m, NULL, &r);
  }
  const cJSON *id = crawl__get(j, "id");
  const char *method = crawl__str(j, "method");
  const cJSON *params = crawl__get(j, "params");
  if (!cJSON_IsObject(j) || !method || (id && !cJSON_IsString(id) && !cJSON_IsNumber(id)) ||
      (params && !cJSON_IsObject(params) && !cJSON_IsArray(params))) {
    int is_response = cJSON_IsObject(j) && !method && (crawl__get(j, "result") || crawl__get(j, "error"));
    cJSON *idc = cJSON_IsObject(j) && (cJSON_IsString(id) || cJSON_IsNumber(id)) ? cJSON_Duplicate(id, 1) : NULL;
    cJSON_Delete(j);
    if (is_response) { cJSON_Delete(idc); return NULL; } /* an answer to nothing we asked: ignored */
    rpc_error(&r, RPC_INVALID_REQUEST, "invalid request: a JSON-RPC 2.0 object with a method is expected");
    char *line = reply_line(m, idc, &r);
    cJSON_Delete(idc);
    return line;
  }
  if (!id) { /* a notification (initialized, cancelled, ...): no reply */
    cJSON_Delete(j);
    return NULL;
  }
  dispatch(m, method, params, &r);
  char *line = reply_line(m, id, &r);
  cJSON_Delete(j);
  return line;
}

crawl_mcp *crawl_mcp_new(const crawl_mcp_opts *o) {
  crawl_mcp *m = crawl__xcalloc(1, sizeof *m);
  m->o = *o;
  m->secrets = crawl__secrets_for(NULL, o->redact_pii); /* the session's, shared by its tabs */
  crawl__log_secrets(m->secrets); /* page text in a log line is scrubbed too */
  int n = 0;
  for (int i = 0; o->allow_origins && o->allow_origins[i] && n < MCP__ORIGINS_MAX; i++)
    m->allowed[n++] = o->allow_origins[i];
  m->allowed[n] = NULL;
  return m;
}

void crawl_mcp_free(crawl_mcp *m) {
  if (!m) return;
  mcp__session_close(m);
  crawl__log_secrets(NULL);
  cJSON_Delete(m->snap);
  crawl__secrets_free(m->secrets);
  free(m);
}

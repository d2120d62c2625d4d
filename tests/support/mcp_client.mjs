// mcp_client.mjs -- the MCP test client (tests/e2e/mcp.c): starts
// `UIAP_BIN mcp ARGS...` over stdio with the official SDK's
// StdioClientTransport, lists the tools, runs a scripted sequence of tool
// calls and prints one JSON object on stdout:
//   {server: {name, version}, protocolVersion, tools: [names],
//    results: [{tool, isError, text}]}
// usage: node mcp_client.mjs UIAP_BIN STEPS_JSON [SERVER_ARG...]
//   STEPS_JSON: [{"tool": "navigate", "args": {"url": "..."}}, ...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, stepsJson, ...serverArgs] = process.argv.slice(2);
if (!bin || !stepsJson) {
  console.error("usage: node mcp_client.mjs UIAP_BIN STEPS_JSON [SERVER_ARG...]");
  process.exit(2);
}
const steps = JSON.parse(stepsJson);
const transport = new StdioClientTransport({ command: bin, args: ["mcp", ...serverArgs], stderr: "inherit",
                                             env: process.env });
const client = new Client({ name: "uiap-mcp-test", version: "1.0.0" });
await client.connect(transport);
const out = {
  server: client.getServerVersion(),
  protocolVersion: transport._protocolVersion ?? null,
  tools: (await client.listTools()).tools.map((t) => t.name),
  results: [],
};
for (const s of steps) {
  const res = await client.callTool({ name: s.tool, arguments: s.args ?? {} }, undefined, { timeout: 180000 });
  out.results.push({ tool: s.tool, isError: !!res.isError, text: res.content.map((c) => c.text).join("") });
}
await client.close();
console.log(JSON.stringify(out));

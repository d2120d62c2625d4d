// mcp-size.mjs -- the size of one page's snapshot as an agent gets it over
// MCP: uiap-crawl's `snapshot` (text) beside Playwright MCP's
// `browser_snapshot`, each the whole text of the tool's reply, in bytes.
// Both servers run headless Chromium at the same viewport (1280x900).
//
//   node scripts/mcp-size.mjs --uiap build/uiap-crawl --peers DIR URL...
//
// DIR holds node_modules with @playwright/mcp and @modelcontextprotocol/sdk
// (the bench's peers/ folder). Prints one JSON line per URL:
//   {url, uiap: {bytes, lines}, playwright: {bytes, lines, version}}
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const take = (flag) => { const i = args.indexOf(flag); return i < 0 ? null : args.splice(i, 2)[1]; };
const uiap = take('--uiap'), peers = take('--peers');
if (!uiap || !peers || !args.length) {
  console.error('usage: node mcp-size.mjs --uiap BIN --peers DIR URL...');
  process.exit(2);
}
const require = createRequire(join(resolve(peers), 'x.js'));
const load = (spec) => import(pathToFileURL(require.resolve(spec)).href);
const { Client } = await load('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = await load('@modelcontextprotocol/sdk/client/stdio.js');
const pwDir = dirname(require.resolve('@playwright/mcp/package.json'));
const pwVersion = require('@playwright/mcp/package.json').version;
const chrome = process.env.CHROME_BIN || '/usr/bin/chromium';

const servers = {
  uiap: { command: resolve(uiap), args: ['mcp', '--quiet', '--viewport', '1280x900'],
          navigate: 'navigate', snapshot: 'snapshot' },
  playwright: { command: process.execPath,
                args: [join(pwDir, 'cli.js'), '--headless', '--isolated', '--no-sandbox', '--executable-path', chrome,
                       '--viewport-size', '1280x900', '--output-dir', join(tmpdir(), 'playwright-mcp-output')],
                navigate: 'browser_navigate', snapshot: 'browser_snapshot' },
};

const text = (r) => r.content.map((c) => c.text || '').join('');

async function measure(srv, url) {
  const transport = new StdioClientTransport({ command: srv.command, args: srv.args, stderr: 'ignore' });
  const client = new Client({ name: 'uiap-mcp-size', version: '1' });
  await client.connect(transport);
  const nav = await client.callTool({ name: srv.navigate, arguments: { url } }, undefined, { timeout: 120000 });
  if (nav.isError) throw new Error(`${srv.navigate}: ${text(nav).slice(0, 300)}`);
  const snap = await client.callTool({ name: srv.snapshot, arguments: {} }, undefined, { timeout: 120000 });
  if (snap.isError) throw new Error(`${srv.snapshot}: ${text(snap).slice(0, 300)}`);
  await client.close();
  const t = text(snap);
  return { bytes: Buffer.byteLength(t), lines: t.split('\n').length };
}

for (const url of args) {
  const u = await measure(servers.uiap, url);
  const p = await measure(servers.playwright, url);
  console.log(JSON.stringify({ url, uiap: u, playwright: { ...p, version: pwVersion } }));
}

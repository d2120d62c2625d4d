// uiap_ws_client.mjs -- the WebSocket client of tests/e2e/listen.c: walks one
// scripted UIAP session against `uiap-crawl listen` and prints a JSON report
// of what it saw; every message the server sent is written to OUT.jsonl (one
// a line) for the caller to validate against the schema.
// usage: node uiap_ws_client.mjs WS_URL APP_BASE_URL OUT.jsonl [SCENARIO]
// SCENARIO: session (the default: the whole session), cancel-heavy (a run on
// big.html paused, resumed and cancelled in two phases; each result's
// package is written to OUT.jsonl.<n>.package.json), secret (listen on
// secret.html: two web.state.get 5 s apart and an observation, reporting
// whether any message holds the page's password).
import { writeFileSync } from "node:fs";
import WebSocket from "ws";

const [wsUrl, appBase, outPath, scenario = "session"] = process.argv.slice(2);
if (!wsUrl || !appBase || !outPath) { console.error("usage: uiap_ws_client.mjs WS_URL APP_BASE_URL OUT.jsonl [SCENARIO]"); process.exit(2); }
const report = { refusals: {}, errors: {}, steps: [] };
const received = [];
let seq = 0;

// Whether a handshake is refused (resolves true) or opens (false).
function refused(url, headers) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on("open", () => { ws.close(); resolve(false); });
    ws.on("unexpected-response", () => resolve(true));
    ws.on("error", () => resolve(true));
  });
}

function open(url) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const inbox = [];
    const waiters = [];
    ws.on("message", (data) => {
      const text = data.toString();
      received.push(text);
      let m; try { m = JSON.parse(text); } catch { m = { unparsable: text }; }
      m.__at = Date.now();
      inbox.push(m);
      for (const w of [...waiters]) w();
    });
    ws.on("open", () => resolve({ ws, inbox, waiters }));
    ws.on("error", reject);
  });
}

// The first message in the inbox (from index from on) that pred accepts.
function waitFor(c, pred, ms, what) {
  return new Promise((resolve, reject) => {
    const look = () => c.inbox.find(pred);
    const hit = look();
    if (hit) return resolve(hit);
    const timer = setTimeout(() => { c.waiters.splice(c.waiters.indexOf(check), 1); reject(new Error(`timeout (${ms} ms) waiting for ${what}`)); }, ms);
    const check = () => { const m = look(); if (m) { clearTimeout(timer); c.waiters.splice(c.waiters.indexOf(check), 1); resolve(m); } };
    c.waiters.push(check);
  });
}

function msg(type, payload) {
  return { uiap: "0.1", kind: "request", type, id: `c_${++seq}`, ts: new Date().toISOString(),
           source: { role: "agent", id: "uiap-ws-client" }, payload };
}

async function request(c, type, payload, ms = 60000) {
  const m = msg(type, payload);
  c.ws.send(JSON.stringify(m));
  return waitFor(c, (x) => x.correlationId === m.id, ms, `the reply to ${type}`);
}

async function raw(c, text, id, ms = 10000) {
  const before = c.inbox.length;
  c.ws.send(text);
  return waitFor(c, (x) => (id ? x.correlationId === id : c.inbox.indexOf(x) >= before && x.kind === "error"), ms, "an error");
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const brief = (m) => ({ kind: m.kind, type: m.type, correlationId: m.correlationId ?? null, sessionId: m.sessionId ?? null,
                        code: m.payload?.code ?? null });

function plan(seeds, budgets) {
  return { environment: { environmentId: "listen-e2e", baseUrl: appBase, budgets,
                          safety: { defaultMode: "safe_explore" } }, seeds };
}

async function main() {
  const noToken = wsUrl.replace(/\?token=.*/, "");
  report.refusals.noToken = await refused(noToken);
  report.refusals.badToken = await refused(noToken + "?token=0000");
  report.refusals.badPath = await refused(wsUrl.replace("/uiap?", "/other?"));
  report.refusals.foreignOrigin = await refused(wsUrl, { Origin: "http://evil.example" });
  report.refusals.lookalikeOrigin = await refused(wsUrl, { Origin: "http://127.0.0.1.evil.example" });
  report.refusals.loopbackOrigin = await refused(wsUrl, { Origin: "http://localhost:5173" });

  const c = await open(wsUrl);
  report.errors.beforeInit = brief(await request(c, "web.state.get", {}));
  report.errors.notJson = brief(await raw(c, "{not json"));
  report.errors.noType = brief(await raw(c, JSON.stringify({ uiap: "0.1", kind: "request", id: "m_notype", payload: {} }), "m_notype"));
  report.errors.unknownType = brief(await request(c, "web.frobnicate", {}));
  report.errors.notRequest = brief(await raw(c, JSON.stringify({ ...msg("web.state.get", {}), id: "m_event", kind: "event" }), "m_event"));

  const init = await request(c, "session.initialize",
    { supportedProfiles: ["web@0.1"], extensions: [{ id: "uiap.discovery", versions: ["0.1"] }] });
  report.initialized = { kind: init.kind, type: init.type, payload: init.payload, sessionId: init.sessionId ?? null };
  report.errors.initTwice = brief(await request(c, "session.initialize", { supportedProfiles: ["web@0.1"] }));

  const snap = await request(c, "web.state.get", { includeNonInteractive: true });
  report.snapshot = { ...brief(snap), elements: snap.payload?.graph?.elements?.length ?? -1,
                      names: (snap.payload?.graph?.elements ?? []).map((e) => e.name ?? "") };
  report.errors.badGet = brief(await request(c, "web.state.get", { maxNodes: "many" }));
  report.errors.badSignals = brief(await request(c, "web.observe.start", { signals: ["no.such"] }));

  // observe: started, the snapshot, deltas while the ticker adds buttons
  const started = await request(c, "web.observe.start", { throttleMs: 100, signals: ["status.changed"] });
  const sub = started.payload?.subscriptionId;
  const isSub = (x) => x.payload?.subscriptionId === sub;
  const osnap = await waitFor(c, (x) => x.type === "web.state.snapshot" && !x.correlationId, 30000, "the observe snapshot");
  await waitFor(c, (x) => x.type === "web.state.delta" && isSub(x) &&
    JSON.stringify(x.payload.ops).includes("Item 3"), 30000, "a delta with Item 3");
  const signal = await waitFor(c, (x) => x.type === "web.signal" && x.payload?.signal?.kind === "status.changed", 30000, "a status.changed signal");
  report.errors.observeTwice = brief(await request(c, "web.observe.start", {}));
  report.errors.stopUnknown = brief(await request(c, "web.observe.stop", { subscriptionId: "nope" }));
  const stopped = await request(c, "web.observe.stop", { subscriptionId: sub });
  const deltas = c.inbox.filter((x) => x.type === "web.state.delta" && isSub(x));
  let prev = osnap.payload?.graph?.revision, chain = true;
  for (const d of deltas) { chain &&= d.payload.baseRevision === prev; prev = d.payload.revision; }
  report.observe = { started: brief(started), subscriptionId: sub ?? null, initialRevision: started.payload?.initialRevision ?? null,
                     snapshotRevision: osnap.payload?.graph?.revision ?? null, deltas: deltas.length, chain,
                     sessionIds: [...new Set(deltas.map((d) => d.sessionId))], stopped: brief(stopped),
                     stoppedSub: stopped.payload?.subscriptionId ?? null, signal: brief(signal) };

  // discovery: plan, start, pause, resume, result, package.get
  const planned = await request(c, "uiap.discovery.plan", plan([
    { kind: "url", url: "index.html" },
    { kind: "url", url: "http://example.invalid/elsewhere" },
    { kind: "workflow", workflowId: "checkout" },
  ], { maxStates: 10, maxRuntimeMs: 120000 }));
  const runId = planned.payload?.runId;
  const isRun = (x) => x.payload?.runId === runId;
  const disc = { planned: brief(planned), runId: runId ?? null, accepted: planned.payload?.acceptedSeeds ?? null,
                 rejected: planned.payload?.rejectedSeeds ?? null };
  disc.badPlan = brief(await request(c, "uiap.discovery.plan", { seeds: [] }));
  disc.unknownRun = brief(await request(c, "uiap.discovery.start", { runId: "run_none" }));
  disc.packageEarly = brief(await request(c, "uiap.discovery.package.get", { runId }));
  const st = await request(c, "uiap.discovery.start", { runId });
  await waitFor(c, (x) => x.type === "uiap.discovery.progress" && isRun(x) && x.payload.visitedStates >= 1, 60000, "a first state");
  const paused = await request(c, "uiap.discovery.pause", { runId, reason: "test" });
  await sleep(1500); // a step under way when the pause came ends first
  const statesAt = (t) => Math.max(0, ...c.inbox.filter((x) => x.type === "uiap.discovery.progress" && isRun(x) && x.__at <= t)
    .map((x) => x.payload.visitedStates ?? 0));
  const t1 = Date.now();
  await sleep(2500);
  const t2 = Date.now();
  disc.pausedStates = [statesAt(t1), statesAt(t2)];
  const early = await request(c, "uiap.discovery.plan", plan([{ kind: "url", url: "index.html" }], { maxStates: 2 }));
  disc.busy = brief(await request(c, "uiap.discovery.start", { runId: early.payload?.runId }));
  disc.resultWhilePaused = c.inbox.some((x) => x.type === "uiap.discovery.result" && isRun(x));
  const resumed = await request(c, "uiap.discovery.resume", { runId });
  const result = await waitFor(c, (x) => x.type === "uiap.discovery.result" && isRun(x), 150000, "the result");
  const pkg = await request(c, "uiap.discovery.package.get", { runId });
  Object.assign(disc, { started: brief(st), paused: { ...brief(paused), status: paused.payload?.status },
    resumed: { ...brief(resumed), status: resumed.payload?.status }, resultStatus: result.payload?.status,
    resultStates: result.payload?.package?.transitionGraph?.states?.length ?? null,
    resultAfterResume: result.__at >= resumed.__at, resultRunId: result.payload?.package?.run?.runId ?? null,
    progress: c.inbox.filter((x) => x.type === "uiap.discovery.progress" && isRun(x)).length,
    statuses: c.inbox.filter((x) => x.type === "uiap.discovery.progress" && isRun(x)).map((x) => x.payload.status)
      .filter((v, i, all) => i === 0 || all[i - 1] !== v),
    package: { ...brief(pkg), runId: pkg.payload?.package?.run?.runId ?? null, status: pkg.payload?.package?.run?.status ?? null,
               same: JSON.stringify(pkg.payload?.package) === JSON.stringify(result.payload?.package) } });
  disc.pauseOver = brief(await request(c, "uiap.discovery.pause", { runId }));

  // a run cancelled while it explores
  const p2 = await request(c, "uiap.discovery.plan", plan([{ kind: "url", url: "index.html" }], { maxStates: 50 }));
  const run2 = p2.payload?.runId;
  await request(c, "uiap.discovery.start", { runId: run2 });
  await waitFor(c, (x) => x.type === "uiap.discovery.progress" && x.payload?.runId === run2 && x.payload.status === "exploring", 60000, "run 2 exploring");
  const cancelled = await request(c, "uiap.discovery.cancel", { runId: run2, reason: "test" });
  const r2 = await waitFor(c, (x) => x.type === "uiap.discovery.result" && x.payload?.runId === run2, 60000, "run 2's result");
  disc.cancel = { ...brief(cancelled), status: cancelled.payload?.status, resultStatus: r2.payload?.status,
                  packageStatus: r2.payload?.package?.run?.status ?? null };
  report.discovery = disc;

  report.after = brief(await request(c, "web.state.get", {}));
  c.ws.close();
}

// Cancel a run on big.html (60,000 elements) and time its result. how:
// pauseWhen "start" (pause at once) or "exploring" (once the run reports
// it), pausedMs (then resume; null: cancel while paused), cancelAfterMs
// (after the resume, or after the start when pauseWhen is null). The
// result's package goes to OUT.jsonl.<n>.package.json.
async function cancelOne(c, n, how) {
  const planned = await request(c, "uiap.discovery.plan", plan([{ kind: "url", url: "big.html" }],
                                                               { maxStates: 500, maxRuntimeMs: 900000 }));
  const runId = planned.payload?.runId;
  const isRun = (x) => x.payload?.runId === runId;
  const st = await request(c, "uiap.discovery.start", { runId });
  let paused = null, resumed = null;
  if (how.pauseWhen === "exploring")
    await waitFor(c, (x) => x.type === "uiap.discovery.progress" && isRun(x) && x.payload.status === "exploring",
                  240000, "the run exploring");
  if (how.pauseWhen) paused = await request(c, "uiap.discovery.pause", { runId });
  if (how.pauseWhen && how.pausedMs !== null) {
    await sleep(how.pausedMs);
    resumed = await request(c, "uiap.discovery.resume", { runId });
  }
  await sleep(how.cancelAfterMs);
  const lastStatus = c.inbox.filter((x) => x.type === "uiap.discovery.progress" && isRun(x)).map((x) => x.payload.status).pop();
  const cancelled = await request(c, "uiap.discovery.cancel", { runId, reason: "test" });
  const t0 = cancelled.__at;
  const result = await waitFor(c, (x) => (x.type === "uiap.discovery.result" && isRun(x)) ||
                                         (x.kind === "error" && !x.correlationId && (x.payload?.message ?? "").includes(runId)),
                               120000, `run ${n}'s result`).catch(() => null);
  const pkg = result?.payload?.package;
  if (pkg) writeFileSync(`${outPath}.${n}.package.json`, JSON.stringify(pkg));
  return { how, started: brief(st), paused: paused?.payload?.status ?? null, resumed: resumed?.payload?.status ?? null,
           phase: lastStatus ?? null, cancelled: { ...brief(cancelled), status: cancelled.payload?.status ?? null },
           result: result ? brief(result) : null, resultStatus: result?.payload?.status ?? null,
           packageStatus: pkg?.run?.status ?? null, resultMs: result ? result.__at - t0 : null,
           error: result?.kind === "error" ? result.payload?.message ?? null : null };
}

// Runs cancelled in each phase: while the browser and tab open, while the
// seed loads and is captured (after a pause and resume), while exploring
// (paused, resumed, then a step's capture under way), and while paused.
const cancelPoints = [
  { pauseWhen: null, cancelAfterMs: 0 },
  { pauseWhen: "start", pausedMs: 1000, cancelAfterMs: 2000 },
  { pauseWhen: "exploring", pausedMs: 1000, cancelAfterMs: 4000 },
  { pauseWhen: "start", pausedMs: null, cancelAfterMs: 1500 },
];

async function cancelHeavy() {
  const c = await open(wsUrl);
  await request(c, "session.initialize",
    { supportedProfiles: ["web@0.1"], extensions: [{ id: "uiap.discovery", versions: ["0.1"] }] });
  report.runs = [];
  for (const [n, how] of cancelPoints.entries()) report.runs.push(await cancelOne(c, n, how));
  report.after = brief(await request(c, "web.state.get", { maxNodes: 10 }));
  c.ws.close();
}

// secret.html shows its password field's value in a heading 3 s after
// load: the snapshots and the observation must not carry it anywhere.
const SECRET = "Tr0ub4dor-77-listen";
async function secret() {
  const c = await open(wsUrl);
  await request(c, "session.initialize", { supportedProfiles: ["web@0.1"] });
  const s1 = await request(c, "web.state.get", { includeNonInteractive: true });
  await sleep(5000);
  const s2 = await request(c, "web.state.get", { includeNonInteractive: true });
  const started = await request(c, "web.observe.start", { throttleMs: 100 });
  const sub = started.payload?.subscriptionId;
  const shown = (x) => x.payload?.subscriptionId === sub && JSON.stringify(x.payload).includes("Your password is");
  const delta = await waitFor(c, (x) => x.type === "web.state.delta" && shown(x), 30000, "the heading in a delta").catch(() => null);
  await request(c, "web.observe.stop", { subscriptionId: sub });
  const names = (m) => JSON.stringify(m.payload?.graph ?? {});
  report.secret = {
    first: { type: s1.type, passwordField: (s1.payload?.graph?.elements ?? []).some((e) => e.role === "textbox" || e.name === "Password"),
             holdsSecret: names(s1).includes(SECRET) },
    second: { type: s2.type, heading: names(s2).includes("Your password is"), holdsSecret: names(s2).includes(SECRET),
              redacted: names(s2).includes("[redacted]") },
    observed: { delta: !!delta, holdsSecret: c.inbox.some((x) => x.payload?.subscriptionId === sub && JSON.stringify(x).includes(SECRET)) },
    anyMessage: received.some((t) => t.includes(SECRET)),
  };
  c.ws.close();
}

const scenarios = { session: main, "cancel-heavy": cancelHeavy, secret };
try {
  if (!scenarios[scenario]) throw new Error(`no scenario ${scenario}`);
  await scenarios[scenario]();
  report.ok = true;
} catch (e) {
  report.ok = false;
  report.error = String(e?.stack ?? e);
}
writeFileSync(outPath, received.map((t) => t.replace(/\n/g, " ")).join("\n") + "\n");
report.messages = received.length;
console.log(JSON.stringify(report));
process.exit(0);

#!/usr/bin/env node
// Opens neqo's qlog traces (run.sh --qlog DIR) in qvis's congestion view in
// headless Chromium and fails on any console error.
//
//   node integrations/neqo/qvis_check.mjs DIR|FILE.sqlog... [--shots DIR] [--timeout S]
//
// For every .sqlog under the arguments: serves the prebuilt qvis
// (../shared/tools/qvis/dist, or QVIS_DIST) and the trace on 127.0.0.1,
// opens #/congestion?file=<trace>, waits until the graph is drawn, then
// reports the trace's events (from the file), the browser's console errors,
// page errors and failed requests, whether the flow-control lines
// ("Connection flow control limit", "Sum of stream flow control limits")
// are on the canvas, and a screenshot (default /tmp/qvis-check/). Exits 1 if
// any trace has a console error or no graph.
//
// Needs Chromium (/usr/bin/chromium, or CHROMIUM) and playwright-core from
// npm, found by node's require (NODE_PATH works); installed outside the
// repository, for instance:
//   npm install --prefix target/qvis-tools playwright-core
//   NODE_PATH=target/qvis-tools/node_modules node integrations/neqo/qvis_check.mjs /tmp/q

import { createRequire } from "node:module";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "../..");

function die(msg) {
  console.error(`qvis_check: ${msg}`);
  process.exit(2);
}

let chromiumApi;
try {
  chromiumApi = createRequire(import.meta.url)("playwright-core").chromium;
} catch {
  die("playwright-core not found; install it outside the repository and point NODE_PATH at it:\n" +
    "  npm install --prefix target/qvis-tools playwright-core\n" +
    "  NODE_PATH=target/qvis-tools/node_modules node integrations/neqo/qvis_check.mjs DIR");
}

// ---------------------------------------------------------------- arguments
const inputs = [];
let shots = path.join(os.tmpdir(), "qvis-check");
let timeoutS = 180;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--shots") shots = path.resolve(argv[++i] ?? die("--shots needs a folder"));
  else if (argv[i] === "--timeout") timeoutS = Number(argv[++i] ?? die("--timeout needs seconds"));
  else if (argv[i] === "-h" || argv[i] === "--help") {
    console.log("usage: node integrations/neqo/qvis_check.mjs DIR|FILE.sqlog... [--shots DIR] [--timeout S]");
    process.exit(0);
  } else inputs.push(path.resolve(argv[i]));
}
if (inputs.length === 0) die("usage: qvis_check.mjs DIR|FILE.sqlog... [--shots DIR] [--timeout S]");

function sqlogsUnder(p) {
  const st = fs.statSync(p, { throwIfNoEntry: false });
  if (!st) die(`${p} does not exist`);
  if (st.isFile()) return [p];
  return fs.readdirSync(p, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => e.isDirectory() ? sqlogsUnder(path.join(p, e.name))
      : e.name.endsWith(".sqlog") ? [path.join(p, e.name)] : []);
}
const traces = inputs.flatMap(sqlogsUnder);
if (traces.length === 0) die(`no .sqlog files in ${inputs.join(", ")}`);

const QVIS = path.resolve(process.env.QVIS_DIST ?? path.join(ROOT, "../shared/tools/qvis/dist"));
if (!fs.existsSync(path.join(QVIS, "index.html"))) die(`no qvis at ${QVIS} (set QVIS_DIST)`);
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
if (!fs.existsSync(CHROMIUM)) die(`no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM)`);

// ------------------------------------------------------- the trace, read here
// JSON-SEQ: records separated by RS (0x1e); the first is the header.
function summarise(file) {
  const records = fs.readFileSync(file, "utf8").split("\x1e").map((r) => r.trim()).filter(Boolean);
  const header = JSON.parse(records[0]);
  const names = {};
  const frames = { sent: {}, received: {} };
  let bad = 0;
  for (const r of records.slice(1)) {
    let ev;
    try { ev = JSON.parse(r); } catch { bad++; continue; }
    names[ev.name] = (names[ev.name] ?? 0) + 1;
    const dir = ev.name === "transport:packet_sent" ? "sent" : ev.name === "transport:packet_received" ? "received" : null;
    if (dir) for (const f of ev.data?.frames ?? []) {
      if (f.frame_type === "max_data" || f.frame_type === "max_stream_data")
        frames[dir][f.frame_type] = (frames[dir][f.frame_type] ?? 0) + 1;
    }
  }
  const t = header.trace ?? {};
  return {
    events: records.length - 1, bad, names, frames,
    vantage: t.vantage_point?.type ?? "?",
    reference_time: t.common_fields?.reference_time,
  };
}

// ------------------------------------------------------------------ server
const MIME = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".map": "application/json",
  ".sqlog": "application/json-seq", ".qlog": "application/json", ".json": "application/json" };
const served = new Map(); // URL path -> file
traces.forEach((f, i) => served.set(`/traces/${i}.sqlog`, f));
const server = http.createServer((req, res) => {
  const url = req.url.split(/[?#]/)[0];
  let file = served.get(url);
  if (!file && url.startsWith("/qvis/")) {
    const p = path.resolve(QVIS, "." + decodeURIComponent(url.slice("/qvis".length)));
    if (p.startsWith(QVIS + path.sep) && fs.existsSync(p) && fs.statSync(p).isFile()) file = p;
  }
  if (!file) {
    // qvis's index.html names a favicon its build does not ship.
    res.writeHead(url === "/qvis/favicon.ico" ? 204 : 404);
    return res.end();
  }
  res.writeHead(200, { "Content-Type": MIME[path.extname(file)] ?? "application/octet-stream" });
  fs.createReadStream(file).pipe(res);
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const BASE = `http://127.0.0.1:${server.address().port}`;

// ----------------------------------------------------------------- browser
const browser = await chromiumApi.launch({
  executablePath: CHROMIUM,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});
fs.mkdirSync(shots, { recursive: true });

// Counts the canvas pixels of qvis's colours: the flow-control lines
// (#a80f3a connection, #ff69b4 sum of streams), data sent (#0000ff),
// acknowledged (#6b8e23), lost (#ff0000), cwnd (#8a2be2).
const COLOURS = { conn_fc: [0xa8, 0x0f, 0x3a], stream_fc: [0xff, 0x69, 0xb4], sent: [0, 0, 0xff],
  acked: [0x6b, 0x8e, 0x23], lost: [0xff, 0, 0], cwnd: [0x8a, 0x2b, 0xe2] };
async function canvasColours(page) {
  return page.evaluate((colours) => {
    const c = document.querySelector("#mainGraphContainer canvas");
    if (!c || !c.width || !c.height) return null;
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    const n = Object.fromEntries(Object.keys(colours).map((k) => [k, 0]));
    n.painted = 0;
    const entries = Object.entries(colours);
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 3] === 0) continue;
      n.painted++;
      if (d[i + 3] < 64) continue; // faint edges: their colour is not reliable
      for (const [k, [r, g, b]] of entries) {
        if (Math.abs(d[i] - r) + Math.abs(d[i + 1] - g) + Math.abs(d[i + 2] - b) <= 24) { n[k]++; break; }
      }
    }
    return n;
  }, COLOURS);
}

const rel = (f) => { const r = path.relative(process.cwd(), f); return r.startsWith("..") ? f : r; };
let failed = 0;
for (const [i, file] of traces.entries()) {
  const traceUrl = `${BASE}/traces/${i}.sqlog`;
  const pageUrl = `${BASE}/qvis/index.html#/congestion?file=${encodeURIComponent(traceUrl)}`;
  const sum = summarise(file);
  const errors = [];
  const ctx = await browser.newContext({ viewport: { width: 1600, height: 1300 } });
  const page = await ctx.newPage();
  page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text().slice(0, 300)}`); });
  page.on("pageerror", (e) => errors.push(`page error: ${String(e).slice(0, 300)}`));
  page.on("requestfailed", (r) => errors.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on("response", (r) => { if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`); });

  const t0 = Date.now();
  let colours = null;
  let drawn = false;
  try {
    await page.goto(pageUrl, { waitUntil: "load" });
    await page.waitForSelector("#mainGraphContainer canvas", { timeout: timeoutS * 1000 });
    // Drawn: data-sent pixels on the canvas, the same counts twice in a row.
    // (The canvas is drawn once, after parsing; qvis then idles.)
    let last = "";
    while (Date.now() - t0 < timeoutS * 1000) {
      colours = await canvasColours(page);
      const now = JSON.stringify(colours);
      if (colours && colours.sent > 0 && now === last) { drawn = true; break; }
      last = now;
      await page.waitForTimeout(1000);
    }
  } catch (e) {
    errors.push(`checker: ${String(e).split("\n")[0]}`);
  }
  const shot = path.join(shots, `${path.basename(path.dirname(file))}-${path.basename(file, ".sqlog")}.png`);
  await page.screenshot({ path: shot, fullPage: true }).catch(() => {});
  // The flow-control lines are drawn with the congestion info (cwnd, bytes in
  // flight); hide it and count again: what goes away are the lines.
  let hidden = null;
  if (drawn) {
    try {
      await page.getByRole("button", { name: "Toggle congestion info" }).click({ timeout: 10000 });
      await page.waitForTimeout(1500);
      hidden = await canvasColours(page);
    } catch (e) {
      errors.push(`checker: ${String(e).split("\n")[0]}`);
    }
  }
  await ctx.close();
  const lines = (k) => colours && hidden ? Math.max(0, colours[k] - hidden[k]) : 0;

  const fcFrames = (d) => Object.entries(sum.frames[d]).map(([k, v]) => `${v} ${k.toUpperCase()}`).join(", ") || "none";
  const ok = drawn && errors.length === 0;
  if (!ok) failed++;
  console.log(`${ok ? "ok  " : "FAIL"} ${rel(file)}`);
  console.log(`     ${sum.vantage}, ${(fs.statSync(file).size / 1e6).toFixed(1)} MB, ${sum.events} events` +
    (sum.bad ? ` (${sum.bad} unreadable)` : "") + `, reference_time ${sum.reference_time}`);
  console.log(`     ${Object.entries(sum.names).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(", ")}`);
  console.log(`     flow-control frames: received ${fcFrames("received")}; sent ${fcFrames("sent")}`);
  console.log(`     graph ${drawn ? "drawn" : "NOT drawn"} in ${((Date.now() - t0) / 1000).toFixed(1)} s; canvas pixels: ` +
    (colours ? Object.entries(colours).map(([k, v]) => `${k} ${v}`).join(", ") : "no canvas"));
  console.log(`     flow-control lines (pixels gone with "Toggle congestion info"): ` +
    `connection ${lines("conn_fc") ? "yes" : "no"} (${lines("conn_fc")} px), ` +
    `sum of streams ${lines("stream_fc") ? "yes" : "no"} (${lines("stream_fc")} px)`);
  console.log(`     console errors: ${errors.length}`);
  for (const e of errors.slice(0, 10)) console.log(`       ${e}`);
  if (errors.length > 10) console.log(`       ... ${errors.length - 10} more`);
  console.log(`     screenshot: ${shot}`);
}
await browser.close();
server.close();
console.log(`\n${traces.length - failed} of ${traces.length} traces open in qvis's congestion view without console errors`);
process.exit(failed ? 1 : 0);

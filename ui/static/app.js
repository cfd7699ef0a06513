// servesim explorer: the page's controls, its URL, the simulator worker
// and the charts. Every number shown comes from servesimCall in the
// worker (package explore, the CLI's library calls); this file only asks
// and draws.
"use strict";
const appStarted = performance.now();

// The controls, one per Request field (package explore), in form order.
const FIELDS = [
  { k: "model", fs: "server", label: "Model", type: "select", list: "models" },
  { k: "gpu", fs: "server", label: "GPU", type: "select", list: "gpus" },
  { k: "tp", fs: "server", label: "Tensor parallel (TP)", type: "int", min: 1, maxKey: "MaxTP" },
  { k: "replicas", fs: "server", label: "Replicas", type: "int", min: 1, maxKey: "MaxReplicas" },
  { k: "max_num_seqs", fs: "server", label: "max-num-seqs (0: vLLM's)", type: "int", min: 0 },
  { k: "max_num_batched_tokens", fs: "server", label: "max-num-batched-tokens (0: vLLM's)", type: "int", min: 0 },
  { k: "no_chunked_prefill", fs: "server", label: "Chunked prefill", type: "onoff" },
  { k: "no_prefix_caching", fs: "server", label: "Prefix caching", type: "onoff" },
  { k: "rate", fs: "workload", label: "Rate (req/s)", type: "num", min: 0.01, step: "any" },
  { k: "clients", fs: "workload", label: "Clients (closed loop)", type: "int", min: 1, maxKey: "MaxClients" },
  { k: "burstiness", fs: "workload", label: "Burstiness (1: Poisson)", type: "num", min: 0.01, step: "any" },
  { k: "dataset", fs: "workload", label: "Dataset (random: the lengths below; others: their published mean lengths)", type: "select", list: "datasets" },
  { k: "input_len", fs: "workload", label: "Input length (tokens)", type: "int", min: 1 },
  { k: "output_len", fs: "workload", label: "Output length (tokens)", type: "int", min: 1 },
  { k: "range_ratio", fs: "workload", label: "Length range ratio", type: "num", min: 0, max: 0.99, step: "any" },
  { k: "prompts", fs: "workload", label: "Requests per run", type: "int", min: 1, maxKey: "MaxPrompts" },
  { k: "warmups", fs: "workload", label: "Warm-up requests", type: "int", min: 0 },
  { k: "seed", fs: "workload", label: "Seed", type: "int", min: 0 },
  { k: "ttft_ms", fs: "slo", label: "TTFT bound (ms)", type: "num", min: 0, step: "any" },
  { k: "tpot_ms", fs: "slo", label: "TPOT bound (ms)", type: "num", min: 0, step: "any" },
  { k: "e2el_ms", fs: "slo", label: "E2E bound (ms, 0: none)", type: "num", min: 0, step: "any" },
  { k: "target", fs: "slo", label: "Attainment target", type: "num", min: 0.01, max: 1, step: "any" },
  { k: "replications", fs: "slo", label: "Replications per probe", type: "int", min: 1, maxKey: "MaxReplications" },
  { k: "boundary_replications", fs: "slo", label: "Replications near λ*", type: "int", min: 1 },
  { k: "precision", fs: "slo", label: "λ* bracket precision", type: "num", min: 0.01, max: 1, step: "any" },
  { k: "plan_rate", fs: "plan", label: "Target rate (req/s)", type: "num", min: 0.01, step: "any" },
];

let catalog = null;
let palette = ["#0072b2", "#d55e00", "#009e73", "#e69f00", "#cc79a7", "#56b4e9", "#000000", "#f0e442"];
const $ = (id) => document.getElementById(id);
const timings = { firstResult: null, updates: [], updatesAll: [], ready: [] };
window.servesimTimings = timings;
window.servesimState = { done: 0, running: false, callMs: {}, timeline: [], warm: false, precomputedMisses: 0 };
// rel is an absolute time of a worker (timeOrigin + now) on this page's
// clock, milliseconds from the navigation.
const rel = (t) => Math.round(t - performance.timeOrigin);
// logTimeline keeps one line per worker event and call (the benchmark
// logs them): "lane N: what from-to ms".
function logTimeline(line) { const tl = window.servesimState.timeline; if (tl.length < 2000) tl.push(line); }

// ---- the workers ----
// The simulator runs in LANES Web Workers on one compiled module (two on
// a machine with two cores or more). The calls of the latency view's
// loop go first, on whichever lane is free (so its sweep's runs are
// shared by both); the other loop's sweep comes next, then the command
// lines, profile, TP screen and plan, so the first view draws as soon as
// its own calls are done and the rest fills both lanes. A free lane takes
// the queued call of lowest priority that it may run (call's lane pins
// one), the earliest among equals.
const LANES = Math.max(1, Math.min(2, navigator.hardwareConcurrency || 1));

// The download and compilation start at once, before the page is built:
// compileStreaming compiles while the bytes arrive. A host that serves
// .wasm without its MIME type gets the buffered compile.
const modulePromise = (async () => {
  try {
    return await WebAssembly.compileStreaming(fetch("servesim.wasm"));
  } catch (e) {
    const resp = await fetch("servesim.wasm");
    if (!resp.ok) throw new Error("servesim.wasm: HTTP " + resp.status);
    return WebAssembly.compile(await resp.arrayBuffer());
  }
})();
const catalogPromise = fetch("catalog.json").then((r) => {
  if (!r.ok) throw new Error("catalog.json: HTTP " + r.status);
  return r.json();
});
// The default state's results, computed natively when the folder was
// written (ui.Precompute, the same explore.Call the wasm runs): the page
// draws them while the wasm still compiles, when its state is the
// default, and only then. Without the file the wasm computes it all.
const defaultResultsPromise = fetch("default-results.json")
  .then((r) => (r.ok ? r.json() : null))
  .catch(() => null);
let defaults = null; // {request, calls: [{fn, tag, slot, args, result}]}

let lanes = [];
let queue = [];
let nextId = 1;
let progressHook = null;
let raw = {};

// startLanes starts the workers at once, so each loads wasm_exec.js while
// the module still compiles, and hands them the module when it is ready.
function startLanes() {
  lanes = [];
  for (let i = 0; i < LANES; i++) lanes.push(newLane());
}

function newLane() {
  const lane = { worker: new Worker("worker.js"), job: null };
  lane.worker.onmessage = (ev) => onMessage(lane, ev.data);
  modulePromise.then((m) => lane.worker.postMessage({ type: "init", module: m }), () => {});
  return lane;
}

function onMessage(lane, m) {
  if (m.type === "progress") { if (lane.job && lane.job.progress && lane.job.fn === "search") lane.job.progress(m.rate); return; }
  if (m.type === "ready") {
    timings.ready.push(performance.now());
    const t = m.times;
    logTimeline(`lane ${lanes.indexOf(lane)}: script ${rel(t.started)}, wasm_exec.js ${rel(t.loaded)}, module ${rel(t.init)}, instantiated ${rel(t.instantiated)}, ready ${rel(t.ready)}`);
    return;
  }
  if (m.type === "fatal") { showError("the simulator did not start: " + m.error); return; }
  if (m.type !== "result" || !lane.job || lane.job.id !== m.id) return;
  const job = lane.job;
  lane.job = null;
  logTimeline(`lane ${lanes.indexOf(lane)}: ${job.tag}${job.slot === undefined ? "" : "[" + job.slot + "]"} ${rel(m.t0)}-${rel(m.t1)}`);
  // The freed lane picks its next call once the promise chains this
  // result starts have queued theirs (DISPATCH_HOPS microtasks later), so
  // the latency view's next call is not passed over for a longer one; not
  // a task later, which let the page's rendering of the views just drawn
  // (tens of milliseconds) run first while the lane idled.
  dispatchSoon(DISPATCH_HOPS);
  if (m.error) { job.reject(new Error(m.error)); return; }
  record(job, m.ok);
  if (memo.size >= MEMO_MAX) memo.clear();
  memo.set(job.key, m.ok);
  const ms = window.servesimState.callMs;
  ms[job.fn] = (ms[job.fn] || 0) + (performance.now() - job.t0);
  job.resolve(JSON.parse(m.ok));
}

// record keeps the worker's JSON as it came, for the tests that compare
// it with the CLI's byte for byte: raw[tag][slot] (slot: the call's place
// in its sweep, whichever lane ran it), in the raw of the update that
// asked for it (a call a newer update superseded finishes into its own).
function record(job, text) {
  const list = (job.raw[job.tag] = job.raw[job.tag] || []);
  if (job.slot === undefined) list.push(text); else list[job.slot] = text;
}

// DISPATCH_HOPS is deeper than the promise chains from a result to the
// call it leads to (one or two hops from a bench point or the search to
// the next latency call; a few more through Promise.all to the other
// views'); each hop of those chains and of dispatchSoon's is queued in
// turn, so they have queued their calls when it dispatches.
const DISPATCH_HOPS = 16;
function dispatchSoon(hops) {
  if (hops <= 0) dispatch();
  else queueMicrotask(() => dispatchSoon(hops - 1));
}

function dispatch() {
  lanes.forEach((lane, n) => {
    if (lane.job) return;
    let best = -1;
    for (let i = 0; i < queue.length; i++) {
      const a = queue[i];
      if (a.lane >= 0 && Math.min(a.lane, lanes.length - 1) !== n) continue;
      if (best < 0 || a.priority < queue[best].priority) best = i; // the queue is in arrival order
    }
    if (best < 0) return;
    const job = queue.splice(best, 1)[0];
    lane.job = job;
    job.t0 = performance.now();
    lane.worker.postMessage({ id: job.id, fn: job.fn, req: job.req, args: job.args });
  });
}

// memo holds results by what they depend on (keyOf), so a change reruns
// only the views it touches: the loop mode redraws, the plan's rate
// replans.
const memo = new Map();
const MEMO_MAX = 400;
const PLAN_ONLY = ["plan_rate", "plan_gpus"];
const LOOP_ONLY = ["loop", "clients"];

// IGNORES are the fields a call does not read (package explore), by tag:
// the plan chooses the deployment, the screen its replicas, a closed-loop
// bench point sends at once (no rate, no burstiness).
const IGNORES = { plan: ["tp", "replicas", "rate"], tp: ["replicas"], bench_closed: ["rate", "burstiness"] };

function keyOf(fn, tag, req, args) {
  let r = { ...req };
  for (const k of IGNORES[tag] || []) delete r[k];
  if (fn === "profile") r = { gpu: req.gpu };
  if (fn !== "plan" && fn !== "commands") for (const k of PLAN_ONLY) delete r[k];
  if (fn !== "commands" && fn !== "client_levels") for (const k of LOOP_ONLY) delete r[k];
  return fn + "\n" + JSON.stringify(r) + "\n" + JSON.stringify(args || null);
}

// call runs fn on its lane. opt: tag (the result's name in
// raw and IGNORES, default fn), slot (its index there), priority (lower
// first, default 1), lane (0 to pin it there; default -1, any lane).
// opt.pre (the default state's update only) holds the precomputed
// results by key; opt.raw, where the result is recorded (default: the
// current update's raw).
function call(fn, req, args, opt = {}) {
  const tag = opt.tag || fn;
  const key = keyOf(fn, tag, req, args);
  const into = opt.raw || raw;
  const pre = opt.pre && opt.pre.get(key);
  if (opt.pre && pre === undefined) window.servesimState.precomputedMisses++;
  const text = pre ?? memo.get(key);
  if (text !== undefined) {
    record({ tag, slot: opt.slot, raw: into }, text);
    return Promise.resolve(JSON.parse(text));
  }
  return new Promise((resolve, reject) => {
    queue.push({ id: nextId++, priority: opt.priority ?? 1, lane: opt.lane ?? -1, fn, tag, slot: opt.slot, req, args, key, raw: into, progress: progressHook, resolve, reject });
    dispatch();
  });
}

// sameRequest says whether two requests hold the same value in every
// field.
function sameRequest(a, b) {
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => k in b && JSON.stringify(a[k]) === JSON.stringify(b[k]));
}

// checkDefaults returns d when it is a default-results.json document
// (ui.Precomputed), else null: a file of another shape is not used.
function checkDefaults(d) {
  const ok = d && typeof d.request === "object" && d.request !== null && Array.isArray(d.calls) &&
    d.calls.every((c) => c && typeof c.fn === "string" && typeof c.tag === "string" && Number.isInteger(c.slot) && typeof c.result === "string");
  return ok ? d : null;
}

// precomputedFor returns the default state's results by call key when
// req is that state, else null.
function precomputedFor(req) {
  if (!defaults || !sameRequest(req, defaults.request)) return null;
  const m = new Map();
  for (const c of defaults.calls) m.set(keyOf(c.fn, c.tag, req, c.args), c.result);
  return m;
}

// warmUp runs the default state's calls on the workers once the page
// has drawn their precomputed results: their JIT is warm for the first
// change, their results go to memo (so a change of the loop or the
// plan's rate reruns only what it touches, as after any update), and
// each is checked against the precomputed bytes (a difference is a
// console error, which the browser tests fail on). A change supersedes
// it, as it does an update.
let warming = false;
function warmUp(req) {
  if (window.servesimState.warm || warming) return;
  warming = true;
  const into = {};
  window.servesimState.warmRaw = into;
  const t0 = performance.now();
  Promise.all(defaults.calls.map((c) => call(c.fn, req, c.args, { tag: c.tag, slot: c.slot < 0 ? undefined : c.slot, priority: 3, raw: into })
    .then(() => {
      const got = c.slot < 0 ? into[c.tag][0] : into[c.tag][c.slot];
      if (got !== c.result) console.error(`servesim: the wasm's ${c.tag}${c.slot < 0 ? "" : "[" + c.slot + "]"} differs from default-results.json`);
    })))
    .then(() => {
      warming = false;
      markWarm();
      logTimeline(`page: the workers ran the default state's calls ${Math.round(t0)}-${Math.round(performance.now())}`);
    }, () => { warming = false; });
}

function markWarm() {
  if (window.servesimState.warm) return;
  window.servesimState.warm = true;
  timings.warm = performance.now();
}

class Cancelled extends Error {}

// cancel ends the running work: the workers are ended and fresh ones
// started on the compiled module.
function cancel() {
  for (const lane of lanes) {
    lane.worker.terminate();
    if (lane.job) lane.job.reject(new Cancelled("cancelled"));
  }
  for (const job of queue) job.reject(new Cancelled("cancelled"));
  queue = [];
  startLanes();
}

// supersede makes way for a newer update: the queued calls are dropped,
// and each lane finishes the call it runs (its result is kept in memo,
// for when the page comes back to it), unless that call is the TP screen
// or the plan, or has run LONG_CALL_MS already: such a lane is ended and
// started afresh, as Cancel ends both. Ending a worker costs its restart
// (the module's instance and Go's start, about 0.2 s), more than most
// calls have left.
const LONG_CALL_MS = 150;
function supersede() {
  for (const job of queue) job.reject(new Cancelled("superseded"));
  queue = [];
  const now = performance.now();
  lanes.forEach((lane, i) => {
    const job = lane.job;
    if (!job || (job.fn !== "tp" && job.fn !== "plan" && now - job.t0 < LONG_CALL_MS)) return;
    lane.worker.terminate();
    job.reject(new Cancelled("superseded"));
    lanes[i] = newLane();
  });
}

// ---- the form and the URL ----
function buildForm() {
  for (const f of FIELDS) {
    const box = document.createElement("div");
    const id = "f-" + f.k;
    let input;
    if (f.type === "onoff") {
      box.className = "check";
      input = document.createElement("input");
      input.type = "checkbox";
    } else if (f.type === "select") {
      box.className = "field";
      input = document.createElement("select");
      for (const name of catalog[f.list]) {
        const o = document.createElement("option");
        o.value = o.textContent = name;
        input.appendChild(o);
      }
    } else {
      box.className = "field";
      input = document.createElement("input");
      input.type = "number";
      input.inputMode = f.type === "int" ? "numeric" : "decimal";
      input.step = f.type === "int" ? "1" : f.step;
      if (f.min !== undefined) input.min = f.min;
      if (f.max !== undefined) input.max = f.max;
      if (f.maxKey) input.max = catalog.limits[f.maxKey]; // explore's limits, defined there once
    }
    input.id = id;
    input.name = f.k;
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = f.label;
    if (f.type === "onoff") box.append(input, label); else box.append(label, input);
    const fs = $("fs-" + f.fs);
    fs.insertBefore(box, f.k === "plan_rate" ? $("plan-gpus") : null);
  }
  for (const g of catalog.priced_gpus) {
    const box = document.createElement("div");
    box.className = "check";
    const input = document.createElement("input");
    input.type = "checkbox";
    input.id = "plan-gpu-" + g;
    input.value = g;
    input.className = "plan-gpu";
    const label = document.createElement("label");
    label.htmlFor = input.id;
    label.textContent = "plan over " + g;
    box.append(input, label);
    $("plan-gpus").appendChild(box);
  }
}

function readForm() {
  const r = {};
  for (const f of FIELDS) {
    const el = $("f-" + f.k);
    if (f.type === "onoff") r[f.k] = !el.checked;
    else if (f.type === "select") r[f.k] = el.value;
    else r[f.k] = Number(el.value);
  }
  r.loop = $("loop-closed").checked ? "closed" : "open";
  r.plan_gpus = [...document.querySelectorAll(".plan-gpu:checked")].map((e) => e.value);
  return r;
}

function writeForm(r) {
  for (const f of FIELDS) {
    const el = $("f-" + f.k);
    if (f.type === "onoff") el.checked = !r[f.k];
    else el.value = String(r[f.k]);
  }
  $("loop-open").checked = r.loop !== "closed";
  $("loop-closed").checked = r.loop === "closed";
  for (const el of document.querySelectorAll(".plan-gpu")) el.checked = r.plan_gpus.includes(el.value);
}

// The URL holds every field that differs from the default, so a shared
// link reproduces the page.
function toURL(r) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(r)) {
    const d = catalog.default[k];
    const s = Array.isArray(v) ? v.join(",") : String(v);
    const ds = Array.isArray(d) ? d.join(",") : String(d);
    if (s !== ds) q.set(k, s);
  }
  const s = q.toString();
  return location.pathname + (s ? "?" + s : "");
}

function fromURL() {
  const r = JSON.parse(JSON.stringify(catalog.default));
  const q = new URLSearchParams(location.search);
  for (const [k, v] of q) {
    if (!(k in r)) continue;
    const d = r[k];
    if (Array.isArray(d)) r[k] = v ? v.split(",") : [];
    else if (typeof d === "boolean") r[k] = v === "true";
    else if (typeof d === "number") r[k] = Number(v);
    else r[k] = v;
  }
  return r;
}

// ---- charts (the style of report/chart: Okabe–Ito palette, legend
// outside the data, units on the axes) ----
const SVGNS = "http://www.w3.org/2000/svg";
function el(name, attrs, text) {
  const e = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function niceTicks(lo, hi, n) {
  if (!(hi > lo)) { hi = lo + 1; }
  const span = hi - lo;
  const step0 = span / Math.max(1, n);
  const mag = Math.pow(10, Math.floor(Math.log10(step0)));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= step0) || 10 * mag;
  const first = Math.floor(lo / step) * step;
  const out = [];
  for (let v = first; v <= hi + step * 0.5; v += step) out.push(Number(v.toPrecision(10)));
  return out;
}

function fmt(v) {
  if (v === null || v === undefined || !isFinite(v)) return "∞";
  const a = Math.abs(v);
  if (a >= 1000) return v.toFixed(0);
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  return Number(v.toPrecision(3)).toString();
}

// chart draws series of [x, y] points (null y skipped), optional bands
// [x0, x1) and horizontal lines, and returns the SVG.
function chart(o) {
  const W = 560, H = 380, L = 64, R = 16, T = 34, B = 92;
  const pts = o.series.flatMap((s) => s.points.filter((p) => p[1] !== null && isFinite(p[1]) && isFinite(p[0])));
  let xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
  for (const b of o.bands || []) { xs.push(b.x0); if (isFinite(b.x1)) xs.push(b.x1); }
  for (const h of o.hlines || []) ys.push(h.y);
  const xlo = o.xmin !== undefined ? o.xmin : Math.min(0, ...xs), xhi = Math.max(...xs, xlo + 1e-9);
  const ylo = o.ymin !== undefined ? o.ymin : 0, yhi = o.ymax !== undefined ? o.ymax : Math.max(...ys, ylo + 1e-9) * 1.05;
  const xt = o.xcats ? o.xcats.map((c) => c.v) : niceTicks(xlo, xhi, 6), yt = niceTicks(ylo, yhi, 5);
  const x0 = o.xcats ? xt[0] - 0.5 : xt[0], x1 = o.xcats ? xt[xt.length - 1] + 0.5 : Math.max(xt[xt.length - 1], xhi), y0 = Math.min(yt[0], ylo), y1 = Math.max(yt[yt.length - 1], yhi);
  const X = (v) => L + ((v - x0) / (x1 - x0)) * (W - L - R);
  const Y = (v) => H - B - ((v - y0) / (y1 - y0)) * (H - T - B);
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": o.title + ": " + o.ylabel + " against " + o.xlabel, "data-series": o.series.length, "data-points": pts.length });
  svg.appendChild(el("title", {}, o.title));
  svg.appendChild(el("rect", { x: 0, y: 0, width: W, height: H, fill: "#fff" }));
  const g = el("g", { "font-family": "'Liberation Sans', Arial, Helvetica, sans-serif", fill: "#222" });
  svg.appendChild(g);
  g.appendChild(el("text", { x: L, y: 20, "font-size": 15, "font-weight": "bold" }, o.title));
  for (const v of yt) {
    if (v < y0 || v > y1) continue;
    g.appendChild(el("line", { x1: L, x2: W - R, y1: Y(v), y2: Y(v), stroke: "#e3e3e3" }));
    g.appendChild(el("text", { x: L - 6, y: Y(v) + 4, "font-size": 12, "text-anchor": "end", fill: "#555" }, fmt(v)));
  }
  for (const v of xt) {
    if (v < x0 || v > x1) continue;
    g.appendChild(el("line", { x1: X(v), x2: X(v), y1: H - B, y2: H - B + 5, stroke: "#222" }));
    const cat = o.xcats && o.xcats.find((c) => c.v === v);
    g.appendChild(el("text", { x: X(v), y: H - B + 18, "font-size": 12, "text-anchor": "middle", fill: "#555" }, cat ? cat.label : fmt(v)));
  }
  for (const b of o.bands || []) {
    const xa = X(Math.max(b.x0, x0)), xb = X(isFinite(b.x1) ? Math.min(b.x1, x1) : x1);
    g.appendChild(el("rect", { class: "band", x: xa, y: T, width: Math.max(2, xb - xa), height: H - T - B, fill: "#888", "fill-opacity": 0.2, stroke: "#666" }));
    const right = xa > (L + W - R) / 2;
    g.appendChild(el("text", { class: "band-label", x: right ? xa - 4 : xb + 4, y: T + 30, "font-size": 12, "text-anchor": right ? "end" : "start", fill: "#222" }, b.label));
  }
  for (const h of o.hlines || []) {
    g.appendChild(el("line", { x1: L, x2: W - R, y1: Y(h.y), y2: Y(h.y), stroke: "#222", "stroke-dasharray": "4 3" }));
    g.appendChild(el("text", { x: W - R - 3, y: Y(h.y) - 4, "font-size": 11, "text-anchor": "end" }, h.label));
  }
  g.appendChild(el("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, stroke: "#222" }));
  g.appendChild(el("line", { x1: L, x2: L, y1: T, y2: H - B, stroke: "#222" }));
  g.appendChild(el("text", { x: (L + W - R) / 2, y: H - B + 36, "font-size": 13, "text-anchor": "middle" }, o.xlabel));
  g.appendChild(el("text", { x: 16, y: (T + H - B) / 2, "font-size": 13, "text-anchor": "middle", transform: `rotate(-90 16 ${(T + H - B) / 2})` }, o.ylabel));
  o.series.forEach((s, i) => {
    const c = s.color || palette[i % palette.length];
    const good = s.points.filter((p) => p[1] !== null && isFinite(p[1]) && isFinite(p[0]));
    if (good.length > 1 && !s.scatter) {
      g.appendChild(el("polyline", { class: "series", fill: "none", stroke: c, "stroke-width": 2, "stroke-dasharray": s.dash || "", points: good.map((p) => `${X(p[0])},${Y(p[1])}`).join(" "), "data-name": s.name }));
    }
    for (const p of good) g.appendChild(el("circle", { class: "point", cx: X(p[0]), cy: Y(p[1]), r: 4, fill: c, stroke: "#fff" }));
  });
  // The legend, below the axis, outside the data.
  const lg = el("g", { class: "legend" });
  let lx = L, ly = H - 26;
  o.series.forEach((s, i) => {
    const c = s.color || palette[i % palette.length];
    const w = 30 + 7 * s.name.length;
    if (lx + w > W - R) { lx = L; ly += 16; }
    if (s.scatter) lg.appendChild(el("circle", { cx: lx + 10, cy: ly - 4, r: 4, fill: c }));
    else lg.appendChild(el("line", { x1: lx, x2: lx + 20, y1: ly - 4, y2: ly - 4, stroke: c, "stroke-width": 2, "stroke-dasharray": s.dash || "" }));
    lg.appendChild(el("text", { x: lx + 24, y: ly, "font-size": 12, class: "legend-item" }, s.name));
    lx += w;
  });
  g.appendChild(lg);
  const div = document.createElement("div");
  div.className = "chart";
  div.appendChild(svg);
  return div;
}

// ---- the views ----
function bandLabel(lo, hi) { return "λ* ∈ [" + fmt(lo) + ", " + fmt(hi) + ") req/s"; }

function drawLatency(req, cap, open, closed, closedCap) {
  const box = $("charts-latency");
  box.replaceChildren();
  const isOpen = req.loop !== "closed";
  const pts = isOpen ? open : closed;
  const xOf = (p) => (isOpen ? p.rate : p.request_throughput);
  const xlabel = isOpen ? "offered rate (requests/s, open loop)" : "achieved throughput (requests/s, closed loop)";
  const band = isOpen
    ? { x0: cap.lower || 0, x1: cap.upper === null ? Infinity : cap.upper, label: bandLabel(cap.lower || 0, cap.upper), color: palette[2] }
    : { x0: closedCap.lower, x1: closedCap.upper === null ? Infinity : closedCap.upper, label: "SLO met up to " + fmt(closedCap.lower) + " req/s", color: palette[2] };
  for (const [key, name, bound] of [["ttft", "TTFT", req.ttft_ms], ["tpot", "TPOT", req.tpot_ms], ["e2el", "E2E", req.e2el_ms]]) {
    const series = [["p50", "p50_ms"], ["p90", "p90_ms"], ["p99", "p99_ms"]].map(([n, f], i) => ({
      name: n + (isOpen ? " open loop" : " closed loop"), color: palette[i], dash: i === 1 ? "5 3" : "",
      points: pts.map((p) => [xOf(p), p[key][f]]),
    }));
    const hl = bound > 0 ? [{ y: bound, label: name + " bound " + fmt(bound) + " ms" }] : [];
    box.appendChild(chart({ title: name + " percentiles", xlabel, ylabel: name + " (ms)", series, bands: [band], hlines: hl }));
  }
  box.classList.remove("stale");
  $("lambda-note").textContent = isOpen
    ? lambdaNote(req, cap)
    : `A closed loop of 1 to ${closed[closed.length - 1].clients} clients: the SLO holds up to ${fmt(closedCap.lower)} req/s of throughput` + (closedCap.upper !== null ? `, fails at ${fmt(closedCap.upper)}.` : ".");
}

// lambdaNote is the open loop's answer: λ*'s bracket under the SLO.
function lambdaNote(req, cap) {
  return `λ*, the largest open-loop rate every run sustains under the SLO (${sloText(req)}), lies in [${fmt(cap.lower)}, ${fmt(cap.upper)}) req/s: ${cap.runs} runs, ${cap.requests} simulated requests.` + failNote(cap);
}

// failNote says why the smallest failing probe of the search failed (the
// criteria are the SLO and also stability, failures and the send rate).
function failNote(cap) {
  const p = (cap.points || []).find((x) => !x.pass);
  if (!p) return "";
  const reasons = [...new Set(p.runs.flatMap((r) => r.reasons || []))];
  return reasons.length ? ` At ${fmt(p.rate)} req/s: ${reasons.join("; ")}.` : "";
}

function sloText(r) {
  const parts = [];
  if (r.ttft_ms > 0) parts.push("TTFT ≤ " + r.ttft_ms + " ms");
  if (r.tpot_ms > 0) parts.push("TPOT ≤ " + r.tpot_ms + " ms");
  if (r.e2el_ms > 0) parts.push("E2E ≤ " + r.e2el_ms + " ms");
  return parts.join(", ") + " for " + (100 * r.target).toFixed(1).replace(/\.0$/, "") + "% of requests";
}

function drawLoops(req, cap, open, closed, closedCap) {
  const box = $("charts-loops");
  box.replaceChildren();
  const top = closed.reduce((a, p) => (p.request_throughput > a.request_throughput ? p : a), closed[0]);
  box.appendChild(chart({
    title: "SLO attainment", xlabel: "requests/s (offered for open, achieved for closed)", ylabel: "SLO attainment (%)",
    series: [
      { name: "open loop (Poisson at the rate)", color: palette[0], points: open.map((p) => [p.rate, 100 * p.slo_attainment]) },
      { name: "closed loop (fixed clients)", color: palette[1], dash: "5 3", points: closed.map((p) => [p.request_throughput, 100 * p.slo_attainment]) },
    ],
    bands: [{ x0: cap.lower || 0, x1: cap.upper === null ? Infinity : cap.upper, label: bandLabel(cap.lower || 0, cap.upper), color: palette[2] }],
    hlines: [{ y: 100 * req.target, label: "target " + 100 * req.target + "%" }], ymin: 0, ymax: 100,
  }));
  box.appendChild(chart({
    title: "p99 TTFT", xlabel: "requests/s (offered for open, achieved for closed)", ylabel: "p99 TTFT (ms)",
    series: [
      { name: "open loop", color: palette[0], points: open.map((p) => [p.rate, p.ttft.p99_ms]) },
      { name: "closed loop", color: palette[1], dash: "5 3", points: closed.map((p) => [p.request_throughput, p.ttft.p99_ms]) },
    ],
    bands: [{ x0: cap.lower || 0, x1: cap.upper === null ? Infinity : cap.upper, label: bandLabel(cap.lower || 0, cap.upper) }],
    hlines: req.ttft_ms > 0 ? [{ y: req.ttft_ms, label: "TTFT bound " + fmt(req.ttft_ms) + " ms" }] : [],
  }));
  box.appendChild(chart({
    title: "Closed-loop throughput", xlabel: "clients (max concurrency)", ylabel: "throughput (requests/s)",
    series: [{ name: "closed loop: achieved throughput", color: palette[1], points: closed.map((p) => [p.clients, p.request_throughput]) }],
    hlines: cap.lower ? [{ y: cap.lower, label: "open-loop λ* ≥ " + fmt(cap.lower) }] : [],
  }));
  $("loops-note").textContent = `A fixed-concurrency benchmark of this server reports up to ${fmt(top.request_throughput)} req/s (${top.clients} clients); ` +
    `it meets the SLO up to ${fmt(closedCap.lower)} req/s. With open-loop arrivals the SLO breaks between ${fmt(cap.lower)} and ${fmt(cap.upper)} req/s.`;
}

function drawTP(v) {
  const box = $("charts-tp");
  box.replaceChildren();
  const rows = v.rows;
  box.appendChild(chart({
    title: "λ* per GPU: the bracket of each candidate", xlabel: "candidate (" + rows[0].gpus + " GPUs each)", ylabel: "λ* per GPU (requests/s)",
    series: rows.map((r, i) => ({ name: r.label + (r.fits ? "" : " (does not fit)"), color: palette[i], points: [[i + 1, r.lower_per_gpu], [i + 1, r.upper_per_gpu]] })),
    xcats: rows.map((r, i) => ({ v: i + 1, label: r.label })),
  }));
  $("tp-note").textContent = rows.map((r) => `${r.label}: ` + (r.fits ? `λ* per GPU in [${fmt(r.lower_per_gpu)}, ${fmt(r.upper_per_gpu)}) req/s` : "infeasible: " + r.why)).join("; ") + ".";
}

function drawPlan(p) {
  const box = $("charts-plan");
  box.replaceChildren();
  const ranked = p.ranked || [];
  const front = ranked.filter((x) => x.frontier);
  box.appendChild(chart({
    title: "Cost against p99 TTFT", xlabel: "cost (dollars per hour)", ylabel: "p99 TTFT (ms)",
    series: [
      { name: "frontier", color: palette[0], points: front.map((x) => [x.cost_per_hour, 1000 * x.ttft.p99]).sort((a, b) => a[0] - b[0]) },
      { name: "other deployments meeting the SLO", color: palette[1], scatter: true, points: ranked.filter((x) => !x.frontier).map((x) => [x.cost_per_hour, 1000 * x.ttft.p99]) },
    ],
  }));
  const t = document.createElement("table");
  t.innerHTML = "<caption class='sr-only'>Deployments meeting the SLO at the target rate, cheapest first</caption><thead><tr><th scope='col'>deployment</th><th scope='col'>replicas</th><th scope='col'>GPUs</th><th scope='col'>$/h</th><th scope='col'>p99 TTFT (ms)</th><th scope='col'>p99 TPOT (ms)</th><th scope='col'>frontier</th></tr></thead>";
  const tb = document.createElement("tbody");
  for (const x of ranked) {
    const tr = document.createElement("tr");
    for (const v of [x.name, x.replicas, x.gpus, x.cost_per_hour.toFixed(2), fmt(1000 * x.ttft.p99), fmt(1000 * x.tpot.p99), x.frontier ? "yes" : ""]) {
      const td = document.createElement("td");
      td.textContent = String(v);
      tr.appendChild(td);
    }
    tb.appendChild(tr);
  }
  t.appendChild(tb);
  $("plan-table").replaceChildren(t);
  const best = ranked[0];
  $("plan-note").textContent = best
    ? `Cheapest at ${p.rate} req/s: ${best.name} × ${best.replicas} ($${best.cost_per_hour.toFixed(2)}/h); ${p.candidates} candidates, ${p.simulated} simulated, ${p.runs} runs.`
    : `No deployment meets the SLO at ${p.rate} req/s (${p.candidates} candidates).`;
}

function drawProfile(pr) {
  const box = $("profile");
  box.replaceChildren();
  const dl = document.createElement("dl");
  for (const [k, v] of [["GPU", pr.gpu], ["profile version", pr.provenance.version], ["source", pr.provenance.source],
    ["fitted on", pr.provenance.fitted_on || "—"], ["bandwidth fraction", pr.bandwidth], ["GEMM efficiency, large steps", pr.gemm_max], ["error band", pr.errors], ["priced by", pr.priced_by]]) {
    const dt = document.createElement("dt"); dt.textContent = k;
    const dd = document.createElement("dd"); dd.textContent = String(v);
    dl.append(dt, dd);
  }
  box.appendChild(dl);
}

let commandText = "";
function drawCommands(c, req) {
  commandText = [
    "# servesim: lambda* (capacity), the run at this " + (req.loop === "closed" ? "concurrency" : "rate") + ", TP vs replicas, the plan",
    c.capacity, c.bench, c.tp, c.plan,
    "# the same server and benchmark on real GPUs",
    c.vllm_serve, c.vllm_bench,
  ].join("\n");
  $("commands").textContent = commandText;
}

// ---- the pipeline ----
function setStatus(text, frac) {
  $("status-text").textContent = text;
  if (frac !== undefined) $("progress").value = frac;
}
function showError(msg) { $("error").textContent = msg; }

let generation = 0;
let busy = false;

async function update(reason) {
  const gen = ++generation;
  if (busy || warming) { supersede(); warming = false; }
  busy = true;
  window.servesimState.running = true;
  const t0 = performance.now();
  // An update is timed from the change that asked for it.
  const from = changedAt ?? t0;
  changedAt = null;
  const req = readForm();
  logTimeline(`page: update ${gen} (${reason}) changed at ${Math.round(from)}, started ${Math.round(t0)}`);
  history.replaceState(null, "", toURL(req));
  raw = {};
  // The default state draws the results precomputed for it (no call
  // reaches a worker); any other state is computed in the wasm.
  const pre = precomputedFor(req);
  window.servesimLast = { req, raw, precomputed: pre !== null };
  showError("");
  const alive = () => gen === generation;
  // A superseded update's promise chains stop at their next call.
  const run = (fn, r, args, opt) => (alive() ? call(fn, r, args, pre ? { ...opt, pre } : opt) : Promise.reject(new Cancelled("superseded")));
  // Progress: the search's probes, then each bench point of the sweeps.
  let probes = 0, points = 0, total = 0;
  const show = () => setStatus(`λ* search: ${probes} probes; sweeps: ${points}/${total || "…"} runs`, Math.min(0.7, 0.3 * Math.min(1, probes / 10) + (total ? (0.4 * points) / total : 0)));
  progressHook = () => { probes++; show(); };
  show();
  // The latency view shows the current loop: its calls go first (priority
  // 0, either lane), and it is drawn as soon as they are done. The other
  // loop's sweep (for the loops view) takes a lane they leave free, and
  // the other views follow.
  const isOpen = req.loop !== "closed";
  const pin = (open) => ({ priority: open === isOpen ? 0 : 1 });
  const openSoFar = [];
  const bench = (args, tag, slot, open) => run("bench", req, args, { tag, slot, ...pin(open) })
    .then((p) => { points++; show(); if (tag === "bench_open") openSoFar[slot] = p; return p; });
  try {
    const capP = run("search", req, null, pin(true));
    const closedP = run("client_levels", req, null, pin(false)).then((levels) => {
      total += levels.length;
      return Promise.all(levels.map((c, i) => bench({ clients: c }, "bench_closed", i, false)));
    });
    const closedCapP = closedP.then((closed) => run("closed_capacity", req, { points: closed }, pin(false)));
    const openP = capP.then((cap) => run("sweep_rates", req, { lower: cap.lower || 0, upper: cap.upper || 0, n: catalog.sweep_points }, pin(true)))
      .then((rates) => {
        total += rates.length;
        return Promise.all(rates.map((r, i) => bench({ rate: r }, "bench_open", i, true)));
      });
    const drawFirst = (cap, open, closed, closedCap) => {
      if (!alive()) return;
      drawLatency(req, cap, open, closed, closedCap);
      noteFirst();
      if (timings.latency === undefined) timings.latency = performance.now();
      logTimeline(`page: latency view drawn ${Math.round(performance.now())}`);
    };
    const noteFirst = () => {
      if (timings.firstResult === null) { timings.firstResult = performance.now(); logTimeline(`page: first result drawn ${Math.round(timings.firstResult)}`); }
    };
    // The open loop's λ* is shown as soon as the search has it (the
    // note, with the curves of the state before greyed until the sweep's
    // eight runs redraw them). Only text changes, so the page's thread
    // hardly delays the sweep's next calls.
    if (isOpen) {
      capP.then((cap) => {
        if (!alive() || openSoFar.filter(Boolean).length === catalog.sweep_points) return;
        $("lambda-note").textContent = lambdaNote(req, cap) + " The latency curves follow.";
        $("charts-latency").classList.add("stale");
        noteFirst();
      }, () => {});
    }
    const latencyP = isOpen
      ? Promise.all([capP, openP]).then(([cap, open]) => drawFirst(cap, open, null, null))
      : Promise.all([closedP, closedCapP]).then(([closed, closedCap]) => drawFirst(null, null, closed, closedCap));
    // The other views' calls are queued once the latency view is drawn, so
    // they take no core from it (nor their first compilation); then
    // either lane runs them beside what is left of the loops view's.
    const later = { priority: 2 };
    const othersP = latencyP.then(() => {
      run("commands", req, null, later).then((c) => alive() && drawCommands(c, req), () => {});
      return Promise.all([
        run("profile", req, null, later).then((pr) => alive() && drawProfile(pr)),
        run("tp", req, null, later).then((v) => alive() && drawTP(v)),
        run("plan", req, null, later).then((p) => alive() && drawPlan(p)),
      ]);
    });
    othersP.catch(() => {}); // a failure is reported once, below
    const [cap, open, closed, closedCap] = await Promise.all([capP, openP, closedP, closedCapP]);
    await latencyP;
    progressHook = null;
    if (!alive()) return;
    drawLoops(req, cap, open, closed, closedCap);
    logTimeline(`page: loops view drawn ${Math.round(performance.now())}`);
    const dt = performance.now() - t0;
    if (timings.loops === undefined) timings.loops = performance.now();
    else timings.updates.push(performance.now() - from);
    setStatus("TP against replicas and the plan…", 0.75);
    await othersP;
    if (!alive()) return;
    logTimeline(`page: every view drawn ${Math.round(performance.now())}`);
    if (timings.allViews === undefined) timings.allViews = performance.now();
    else timings.updatesAll.push(performance.now() - from);
    setStatus(`done in ${(performance.now() - t0).toFixed(0)} ms (latency views in ${dt.toFixed(0)} ms)` +
      (pre ? "; the default state's results were computed when the page was built, every change runs in the page" : ""), 1);
    if (pre) warmUp(req);
    else markWarm();
  } catch (e) {
    if (e instanceof Cancelled) return;
    if (alive()) { showError(e.message); setStatus("stopped", 0); }
  } finally {
    if (alive()) { busy = false; window.servesimState.running = false; window.servesimState.done++; }
  }
}

// A change runs a task later, gathering what the same task changed (a
// pasted URL's fields). A gesture of many changes (a spin button held)
// runs each: a newer update supersedes the older one's calls (supersede),
// so it waits for little more than the call each lane is finishing.
let debounce = null;
let changedAt = null; // performance.now() of the first change not yet run
function scheduleUpdate() {
  if (changedAt === null) changedAt = performance.now();
  clearTimeout(debounce);
  debounce = setTimeout(() => update("change"), 0);
}

async function main() {
  startLanes();
  // The form is built, and the default state drawn, without waiting for
  // the module: its calls wait in the workers until it is compiled.
  modulePromise.then(() => {
    timings.compiled = performance.now();
    logTimeline(`page: module compiled ${Math.round(timings.compiled)}`);
  }, (e) => showError("could not load the simulator: " + e.message));
  try {
    [catalog, defaults] = await Promise.all([catalogPromise, defaultResultsPromise]);
    defaults = checkDefaults(defaults);
    const fetched = performance.getEntriesByType("resource").filter((e) => /(catalog|default-results)\.json$/.test(e.name))
      .map((e) => `${e.name.split("/").pop()} ${Math.round(e.startTime)}-${Math.round(e.responseEnd)}`);
    logTimeline(`page: app.js started ${Math.round(appStarted)}, catalog in ${Math.round(performance.now())} (${fetched.join(", ")})`);
  } catch (e) {
    showError("could not load the simulator: " + e.message);
    return;
  }
  palette = catalog.palette;
  buildForm();
  writeForm(fromURL());
  $("controls").addEventListener("change", scheduleUpdate);
  $("controls").addEventListener("submit", (e) => e.preventDefault());
  window.addEventListener("popstate", () => { writeForm(fromURL()); scheduleUpdate(); });
  $("cancel").addEventListener("click", () => {
    generation++;
    if (busy) cancel();
    busy = false;
    window.servesimState.running = false;
    setStatus("cancelled", 0);
  });
  $("copy").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(commandText); $("copied").textContent = "copied"; }
    catch (e) { $("copied").textContent = "select the text below to copy it"; }
  });
  update("load");
}

main();

// The simulator's thread: servesim compiled to WebAssembly runs here, so
// the page stays responsive, and cancelling is ending this worker.
// Messages in: {type: "init", module} once, then {id, fn, req, args}.
// Messages out: {type: "ready", times}, {type: "progress", id, rate},
// {type: "result", id, ok, error, t0, t1}, {type: "fatal", error}.
// Times are absolute milliseconds (timeOrigin + now), for the page's
// timeline (window.servesimState.timeline).
const abs = () => performance.timeOrigin + performance.now();
const started = abs();
importScripts("wasm_exec.js");
const loaded = abs();

let current = 0;
let ready;
const queue = [];

self.servesimProgress = (rate) => postMessage({ type: "progress", id: current, rate });

function run(msg) {
  current = msg.id;
  const t0 = abs();
  const r = self.servesimCall(msg.fn, JSON.stringify(msg.req), msg.args ? JSON.stringify(msg.args) : "");
  postMessage({ type: "result", id: msg.id, ok: r.ok, error: r.error, t0, t1: abs() });
}

onmessage = (ev) => {
  const msg = ev.data;
  if (msg.type === "init") {
    const go = new Go();
    const init = abs();
    let instantiated;
    self.servesimReady = () => {
      ready = true;
      postMessage({ type: "ready", times: { started, loaded, init, instantiated, ready: abs() } });
      while (queue.length) run(queue.shift());
    };
    WebAssembly.instantiate(msg.module, go.importObject)
      .then((inst) => { instantiated = abs(); go.run(inst); })
      .catch((e) => postMessage({ type: "fatal", error: String(e) }));
    return;
  }
  if (!ready) queue.push(msg);
  else run(msg);
};

// The simulator's thread: servesim compiled to WebAssembly runs here, so
// the page stays responsive, and cancelling is ending this worker.
// Messages in: {type: "init", module} once, then {id, fn, req, args}.
// Messages out: {type: "ready"}, {type: "progress", id, rate},
// {type: "result", id, ok, error}, {type: "fatal", error}.
importScripts("wasm_exec.js");

let current = 0;
let ready;
const queue = [];

self.servesimProgress = (rate) => postMessage({ type: "progress", id: current, rate });

function run(msg) {
  current = msg.id;
  const r = self.servesimCall(msg.fn, JSON.stringify(msg.req), msg.args ? JSON.stringify(msg.args) : "");
  postMessage({ type: "result", id: msg.id, ok: r.ok, error: r.error });
}

onmessage = (ev) => {
  const msg = ev.data;
  if (msg.type === "init") {
    const go = new Go();
    self.servesimReady = () => {
      ready = true;
      postMessage({ type: "ready" });
      while (queue.length) run(queue.shift());
    };
    WebAssembly.instantiate(msg.module, go.importObject)
      .then((inst) => go.run(inst))
      .catch((e) => postMessage({ type: "fatal", error: String(e) }));
    return;
  }
  if (!ready) queue.push(msg);
  else run(msg);
};

package explore

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim"
)

// benchConfigs keeps the sim.Config of the last request Bench built, so
// that the page's sweeps (one Bench call a rate or a concurrency, each
// the same request) build their server once: Scenario.Config resolves
// the model and the GPU by name, trying each first as a file (os.Stat),
// and under js/wasm every such call goes out to JavaScript and back,
// 2-3 ms a config in Node against 55 µs natively (BenchmarkCallSetup;
// in the browser, where no name can be a file, scenario now skips the
// calls, and a config still takes about 0.6 ms in wasm).
var benchConfigs struct {
	sync.Mutex
	key string
	cfg sim.Config
}

// benchConfig returns sc.Config() for Bench's scenario of r (r.scenario
// with bench true): the same value, built from the last config of the
// same request with this scenario's workload, the only part that
// differs between two of them (the rate or the clients; the server, the
// seed, the requests, the SLO and the percentiles follow r alone). Any
// error falls back to sc.Config(), so errors are its own.
func benchConfig(r Request, sc *scenario.Scenario) (sim.Config, error) {
	key, err := json.Marshal(r)
	if err != nil {
		return sc.Config()
	}
	benchConfigs.Lock()
	cached, ok := benchConfigs.cfg, benchConfigs.key == string(key)
	benchConfigs.Unlock()
	if ok {
		if w, err := sc.BuildWorkload(); err == nil {
			cfg := cached
			cfg.Workload = w
			cfg.Percentiles = slices.Clone(cached.Percentiles)
			if cfg.Validate() == nil {
				return cfg, nil
			}
		}
	}
	cfg, err := sc.Config()
	if err != nil {
		return cfg, err
	}
	benchConfigs.Lock()
	benchConfigs.key, benchConfigs.cfg = string(key), cfg
	benchConfigs.Unlock()
	return cfg, nil
}

// lastRequest is the last request Call parsed, by its JSON text: the page
// sends one request with each of an update's calls (about 25 after a
// change of the model), and under js/wasm Parse (encoding/json, then
// Validate) takes 0.4-0.7 ms against 23 µs natively
// (BenchmarkCallSetup/parse).
var lastRequest struct {
	sync.Mutex
	data string
	req  Request
}

// parseRequest is Parse(data), the request of the last call of the same
// bytes when there was one (a copy: PlanGPUs, its one field that refers
// to memory, is cloned; TestParseRequestMemo checks there is no other).
// Only a request Parse accepted is kept, so errors are Parse's own.
func parseRequest(data []byte) (Request, error) {
	lastRequest.Lock()
	hit, r := lastRequest.data == string(data) && len(data) > 0, lastRequest.req
	lastRequest.Unlock()
	if hit {
		r.PlanGPUs = slices.Clone(r.PlanGPUs)
		return r, nil
	}
	r, err := Parse(data)
	if err != nil {
		return r, err
	}
	lastRequest.Lock()
	lastRequest.data, lastRequest.req = string(data), r
	lastRequest.req.PlanGPUs = slices.Clone(r.PlanGPUs)
	lastRequest.Unlock()
	return r, nil
}

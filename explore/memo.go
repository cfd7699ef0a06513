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

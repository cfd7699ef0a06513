package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/internal/progress"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/vllmbench"
)

// runSpecSweep is `servesim capacity --spec-k K,...`: λ* for every k (0:
// off) and the rate where each k stops paying (capacity.SpecSweep).
func runSpecSweep(sc *scenario.Scenario, s capacity.Search, c capacityOptions, e *env, show bool) error {
	ks, err := cliflag.IntList("--spec-k", c.specK, 0, capacity.MaxSpecK)
	if err != nil {
		return err
	}
	tmpl := sc.Server.SpeculativeConfig
	if tmpl == nil && (len(ks) > 1 || ks[0] != 0) {
		return errors.New("capacity: --spec-k needs --speculative-config (or server.speculative_config): its method, draft and acceptance are those of every k; k replaces its num_speculative_tokens")
	}
	var rates []float64
	if c.specRates != "" {
		if rates, err = cliflag.FloatList(c.specRates); err != nil {
			return fmt.Errorf("capacity: --spec-rates %q: %v", c.specRates, err)
		}
	}
	sw := capacity.SpecSweep{Search: s, Ks: ks, Rates: rates, Config: func(k int) (sim.Config, error) {
		v := *sc
		v.Server.SpeculativeConfig = nil
		if k > 0 {
			sp := *tmpl
			sp.NumSpeculativeTokens = k
			v.Server.SpeculativeConfig = &sp
		}
		cfg, err := v.Config()
		if err != nil {
			return sim.Config{}, fmt.Errorf("%s", vllmbench.FlagFieldError(err))
		}
		return cfg, nil
	}}
	p := progress.Start(e.stderr, show, "searching k", 0)
	res, err := sw.Run()
	p.Stop()
	if err != nil {
		return fmt.Errorf("capacity: --spec-k: %w", err)
	}
	if c.asJSON {
		b, err := json.MarshalIndent(map[string]any{"scenario": sc.Name, "server": sc.Server.String(), "criteria": s.Criteria,
			"speculative": res.JSON()}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(e.stdout, "%s\n", b)
		return err
	}
	fmt.Fprintf(e.stdout, "capacity of %s by num_speculative_tokens: %s\n", sc.Server.String(), s.Criteria)
	if w := sc.ProbedWorkload(); w != "" {
		fmt.Fprintf(e.stdout, "workload: %s\n", w)
	}
	res.WriteTable(e.stdout)
	return nil
}

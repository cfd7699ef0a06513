package scenario

import (
	"fmt"
	"math"
	"slices"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
)

// Config returns the sim.Config of one run of the scenario as written
// (without its sweep), with seed Seed. Errors are *FieldError values
// naming the field's path, and its line when the scenario came from a file.
func (s *Scenario) Config() (sim.Config, error) {
	cfg, err := s.config()
	if err != nil {
		return sim.Config{}, s.locate(err)
	}
	return cfg, nil
}

func (s *Scenario) config() (sim.Config, error) {
	if err := s.checkTop(); err != nil {
		return sim.Config{}, err
	}
	w, err := s.workload()
	if err != nil {
		return sim.Config{}, err
	}
	srv, err := s.server()
	if err != nil {
		return sim.Config{}, err
	}
	if eng, ok := engineOf(srv); ok {
		pool, err := eng.Pool()
		if err != nil {
			return sim.Config{}, engineError(err)
		}
		if err := s.checkFit(w.Lengths, eng, &pool); err != nil {
			return sim.Config{}, err
		}
	}
	cfg := sim.Config{
		Workload:    w,
		Server:      srv,
		Seed:        s.Seed,
		Requests:    s.Requests,
		Warmup:      s.Warmup,
		Horizon:     s.Horizon,
		SLO:         s.SLO.Sim(),
		SummaryOnly: s.SummaryOnly,
		MaxInSystem: s.MaxInSystem,
		Percentiles: slices.Clone(s.Percentiles),
	}
	if len(cfg.Percentiles) == 0 {
		cfg.Percentiles = metrics.DefaultPercentiles()
	}
	if cfg.SummaryOnly && cfg.MaxInSystem == 0 && cfg.Requests > MaxRecordedRequests {
		// Sketches keep memory to the requests in the system, which an
		// overloaded run (or rate inf) makes all of them: stop it, as
		// unstable, where records would have stopped it (MaxInSystem).
		cfg.MaxInSystem = MaxInSystem
	}
	if err := cfg.Validate(); err != nil {
		return sim.Config{}, &FieldError{Cause: err, Class: ErrInvalid}
	}
	return cfg, nil
}

// engineOf returns the engine of one replica of srv.
func engineOf(srv sim.ServerConfig) (batching.Config, bool) {
	switch v := srv.(type) {
	case batching.Config:
		return v, true
	case batching.Cluster:
		return v.Engine, true
	case batching.Pipeline:
		st, err := v.Stage()
		return st, err == nil
	}
	return batching.Config{}, false
}

// checkTop validates the top-level counts and the SLO.
func (s *Scenario) checkTop() error {
	switch {
	case s.Requests < 0:
		return fieldErr("requests", "%d must be >= 0", s.Requests)
	case s.Requests == 0 && s.Horizon == 0:
		return fieldErr("requests", "0 with no horizon: set requests or horizon")
	case s.Warmup < 0:
		return fieldErr("warmup", "%d must be >= 0", s.Warmup)
	case s.Requests > 0 && s.Warmup >= s.Requests:
		return fieldErr("warmup", "%d must be < requests %d", s.Warmup, s.Requests)
	case !(s.Horizon >= 0) || math.IsInf(s.Horizon, 1):
		return fieldErr("horizon", "%v must be a finite number of seconds >= 0", s.Horizon)
	case s.MaxInSystem < 0:
		return fieldErr("max_in_system", "%d must be >= 0", s.MaxInSystem)
	case s.Replications < 1:
		return fieldErr("replications", "%d must be >= 1", s.Replications)
	}
	if err := s.checkSize(); err != nil {
		return err
	}
	for i, p := range s.Percentiles {
		if !(p >= 0 && p <= 100) {
			return fieldErr("percentiles", "percentiles[%d] %v must be in [0, 100]", i, p)
		}
	}
	for _, b := range []struct {
		name string
		v    float64
	}{{"ttft_ms", s.SLO.TTFTms}, {"tpot_ms", s.SLO.TPOTms}, {"e2el_ms", s.SLO.E2ELms}} {
		if !(b.v >= 0) || math.IsInf(b.v, 1) {
			return fieldErr("slo."+b.name, "%v must be a finite number of milliseconds >= 0", b.v)
		}
	}
	if !(s.SLO.Target > 0 && s.SLO.Target <= 1) {
		return fieldErr("slo.target", "%v must be in (0, 1]", s.SLO.Target)
	}
	return nil
}

// positive reports an error at path unless v > 0.
func positive(path string, v int) error {
	if v <= 0 {
		return fieldErr(path, "%d must be >= 1", v)
	}
	return nil
}

// nonNegative reports an error at path unless v ≥ 0.
func nonNegative(path string, v int) error {
	if v < 0 {
		return fieldErr(path, "%d must be >= 0", v)
	}
	return nil
}

// unused reports an error for the first field that is set although the
// kind in use ignores it.
func unused(prefix, kind string, fields ...field) error {
	for _, f := range fields {
		if f.set {
			return fieldErr(prefix+"."+f.name, "does not apply to %s", kind)
		}
	}
	return nil
}

// A field is a field name and whether the file set it.
type field struct {
	name string
	set  bool
}

func errorf(path string, err error) error {
	if err == nil {
		return nil
	}
	return &FieldError{Field: path, Cause: err, Class: ErrInvalid}
}

func quoteList(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%q", x)
	}
	return out
}

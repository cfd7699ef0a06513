package scenario

import (
	"fmt"
	"math"
	"sync"

	"github.com/servesim/servesim/workload"
)

// Arrival processes and length kinds a scenario may name.
var (
	processes   = []string{"poisson", "gamma", "constant", "ramp", "trace"}
	lengthKinds = []string{"random", "fixed", "lognormal", "trace", "pairs", "prefix_repetition"}
)

// workload builds the request stream.
// BuildWorkload returns the scenario's request stream.
func (s *Scenario) BuildWorkload() (workload.Workload, error) {
	w, err := s.workload()
	if err != nil {
		return workload.Workload{}, s.locate(err)
	}
	return w, nil
}

func (s *Scenario) workload() (workload.Workload, error) {
	w := s.Workload
	var out workload.Workload
	switch {
	case w.Arrival != nil && w.Closed != nil:
		return out, fieldErr("workload", "set one of arrival (open loop) and closed (closed loop), not both")
	case w.Arrival == nil && w.Closed == nil:
		return out, fieldErr("workload", "set arrival (open loop: arrival: {process: poisson, rate: 10}) or closed (closed loop: closed: {clients: 8})")
	}
	if err := nonNegative("workload.max_concurrency", w.MaxConcurrency); err != nil {
		return out, err
	}
	out.MaxConcurrency = w.MaxConcurrency
	if w.Arrival != nil {
		p, err := s.arrival()
		if err != nil {
			return out, err
		}
		out.Arrivals = p
	} else {
		if err := positive("workload.closed.clients", w.Closed.Clients); err != nil {
			return out, err
		}
		if w.Closed.Clients > workload.MaxClients {
			return out, fieldErr("workload.closed.clients", "%d exceeds %d, the most clients a run simulates (each holds an event from time 0)", w.Closed.Clients, workload.MaxClients)
		}
		if w.MaxConcurrency != 0 {
			return out, fieldErr("workload.max_concurrency", "applies to open loops; a closed loop's concurrency is closed.clients")
		}
		out.Clients = w.Closed.Clients
		if w.Closed.Think != "" {
			d, err := ParseDist(w.Closed.Think)
			if err != nil {
				return out, errorf("workload.closed.think", err)
			}
			out.Think = d
		}
	}
	l, err := s.lengths()
	if err != nil {
		return out, err
	}
	out.Lengths = l
	if w.Sessions != nil {
		ss, err := s.sessions()
		if err != nil {
			return out, err
		}
		out.Sessions = ss
	}
	if err := out.Validate(); err != nil {
		return out, errorf("workload", err)
	}
	return out, nil
}

// sessions builds the multi-turn sessions.
func (s *Scenario) sessions() (*workload.Sessions, error) {
	w := s.Workload
	const at = "workload.sessions"
	switch {
	case w.Arrival == nil:
		return nil, fieldErr(at, "need an open loop: arrival gives the session starts (arrival: {process: poisson, rate: 1})")
	case w.MaxConcurrency != 0:
		return nil, fieldErr("workload.max_concurrency", "does not apply to sessions (each session is its own closed loop)")
	case w.Sessions.Turns == "":
		return nil, fieldErr(at+".turns", "is required (a distribution: det:4, uniform:2,10)")
	case w.Sessions.SystemPrompt < 0:
		return nil, fieldErr(at+".system_prompt", "%d must be >= 0", w.Sessions.SystemPrompt)
	}
	turns, err := ParseDist(w.Sessions.Turns)
	if err != nil {
		return nil, errorf(at+".turns", err)
	}
	out := &workload.Sessions{Turns: turns, SystemPrompt: w.Sessions.SystemPrompt}
	if w.Sessions.Think != "" {
		if out.Think, err = ParseDist(w.Sessions.Think); err != nil {
			return nil, errorf(at+".think", err)
		}
	}
	return out, errorf(at, out.Validate())
}

// arrival builds the open-loop arrival process.
func (s *Scenario) arrival() (workload.Process, error) {
	a := s.Workload.Arrival
	const at = "workload.arrival"
	rate := float64(a.Rate)
	rateField := field{"rate", a.Rate != 0}
	burst := field{"burstiness", a.Burstiness != 0}
	norm := field{"normalize", a.Normalize}
	ramp := []field{{"start", a.Start != 0}, {"end", a.End != 0}, {"strategy", a.Strategy != ""}}
	trace := []field{{"path", a.Path != ""}, {"speedup", a.Speedup != 0}, {"window_start", a.WindowStart != 0}, {"window_end", a.WindowEnd != 0}}
	needRate := func(infOK bool) error {
		if !(rate > 0) || (!infOK && math.IsInf(rate, 1)) {
			return fieldErr(at+".rate", "%v must be a number > 0 (requests/s)", rate)
		}
		return nil
	}
	process := a.Process
	if process == "" {
		process = "poisson"
	}
	switch process {
	case "poisson":
		if a.Burstiness != 0 && a.Burstiness != 1 {
			return nil, fieldErr(at+".burstiness", "%v: Poisson arrivals have burstiness 1; use process: gamma", a.Burstiness)
		}
		if err := unused(at, "process poisson", append(ramp, trace...)...); err != nil {
			return nil, err
		}
		if err := needRate(true); err != nil {
			return nil, err
		}
		return workload.Poisson{Rate: rate, Normalize: a.Normalize}, nil
	case "gamma":
		if err := unused(at, "process gamma", append(ramp, trace...)...); err != nil {
			return nil, err
		}
		if err := needRate(true); err != nil {
			return nil, err
		}
		if !(a.Burstiness > 0) {
			return nil, fieldErr(at+".burstiness", "%v must be > 0 (1 is Poisson, < 1 burstier)", a.Burstiness)
		}
		return workload.Gamma{Rate: rate, Burstiness: a.Burstiness, Normalize: a.Normalize}, nil
	case "constant":
		if err := unused(at, "process constant", append(append(ramp, trace...), burst, norm)...); err != nil {
			return nil, err
		}
		if err := needRate(false); err != nil {
			return nil, err
		}
		return workload.Constant{Rate: rate}, nil
	case "ramp":
		if err := unused(at, "process ramp (it uses start and end)", append(trace, rateField, norm)...); err != nil {
			return nil, err
		}
		strategy := a.Strategy
		if strategy == "" {
			strategy = string(workload.RampLinear)
		}
		p := workload.Ramp{Start: a.Start, End: a.End, Strategy: workload.RampStrategy(strategy), Burstiness: a.Burstiness}
		switch {
		case !(a.Start > 0) || math.IsInf(a.Start, 1):
			return nil, fieldErr(at+".start", "%v must be a finite rate > 0", a.Start)
		case !(a.End > 0) || math.IsInf(a.End, 1):
			return nil, fieldErr(at+".end", "%v must be a finite rate > 0", a.End)
		case p.Strategy != workload.RampLinear && p.Strategy != workload.RampExponential:
			return nil, fieldErr(at+".strategy", "%q must be linear or exponential", a.Strategy)
		}
		return p, errorf(at, p.Validate())
	case "trace":
		if err := unused(at, "process trace (its times come from the file)", append(ramp, rateField, burst, norm)...); err != nil {
			return nil, err
		}
		if a.Path == "" {
			return nil, fieldErr(at+".path", "is required for process trace")
		}
		if !(a.Speedup >= 0) || math.IsInf(a.Speedup, 1) {
			return nil, fieldErr(at+".speedup", "%v must be a finite number >= 0", a.Speedup)
		}
		t, err := s.trace(a.Path)
		if err != nil {
			return nil, errorf(at+".path", err)
		}
		if t, err = window(t, a); err != nil {
			return nil, errorf(at+".window_start", err)
		}
		return t.Replay(a.Speedup), nil
	default:
		return nil, fieldErr(at+".process", "unknown process %q (known: %s)", a.Process, quoteList(processes))
	}
}

// lengths builds the (input, output) distribution.
func (s *Scenario) lengths() (workload.Lengths, error) {
	l := s.Workload.Lengths
	const at = "workload.lengths"
	logn := []field{{"input_sigma", l.InputSigma != 0}, {"output_sigma", l.OutputSigma != 0},
		{"correlation", l.Correlation != 0}, {"input_max", l.InputMax != 0}, {"output_max", l.OutputMax != 0}}
	trace := []field{{"path", l.Path != ""}, {"order", l.Order != ""}, {"block_size", l.BlockSize != 0}}
	repetition := []field{{"suffix_len", l.SuffixLen != 0}, {"num_prefixes", l.NumPrefixes != 0}}
	if l.PrefixLen < 0 {
		return nil, fieldErr(at+".prefix_len", "%d must be >= 0", l.PrefixLen)
	}
	if l.PrefixLen > workload.MaxTokens/2 {
		return nil, fieldErr(at+".prefix_len", "%d exceeds %d tokens (far beyond any model's context; it keeps token sums from overflowing)", l.PrefixLen, workload.MaxTokens/2)
	}
	ratio := field{"range_ratio", l.RangeRatio != 0}
	randomOnly := []field{ratio, {"output_range_ratio", l.OutputRangeRatio != nil}}
	pairs := field{"pairs", len(l.Pairs) > 0}
	// pair checks input and output against [0 or 1, limit].
	pair := func(limit int) error {
		const why = "tokens (far beyond any model's context; it keeps token sums from overflowing)"
		switch {
		case l.Input < 0:
			return fieldErr(at+".input", "%d must be >= 0", l.Input)
		case l.Output < 1:
			return fieldErr(at+".output", "%d must be >= 1", l.Output)
		case l.Input > limit:
			return fieldErr(at+".input", "%d exceeds %d %s", l.Input, limit, why)
		case l.Output > limit:
			return fieldErr(at+".output", "%d exceeds %d %s", l.Output, limit, why)
		}
		return nil
	}
	kind := l.Kind
	if kind == "" {
		kind = "random"
	}
	if l.Oversample && kind != "pairs" {
		return nil, fieldErr(at+".oversample", "applies to kind pairs only, not kind %s", kind)
	}
	var out workload.Lengths
	switch kind {
	case "prefix_repetition":
		if err := unused(at, "kind prefix_repetition", append(append(logn, trace...), ratio)...); err != nil {
			return nil, err
		}
		p := workload.PrefixRepetition{PrefixLen: l.PrefixLen, SuffixLen: l.SuffixLen, NumPrefixes: l.NumPrefixes, OutputLen: l.Output}
		if p.PrefixLen == 0 {
			p.PrefixLen = workload.DefaultPrefixRepetitionPrefixLen
		}
		if p.SuffixLen == 0 {
			p.SuffixLen = workload.DefaultPrefixRepetitionSuffixLen
		}
		if p.NumPrefixes == 0 {
			p.NumPrefixes = workload.DefaultPrefixRepetitionNumPrefixes
		}
		if err := p.Validate(); err != nil {
			return nil, errorf(at, err)
		}
		return p, nil
	case "random":
		if err := unused(at, "kind random", append(append(append(logn, trace...), pairs), repetition...)...); err != nil {
			return nil, err
		}
		if err := pair(workload.MaxTokens / 2); err != nil { // draws reach n(1+r) < 2n
			return nil, err
		}
		if !(l.RangeRatio >= 0 && l.RangeRatio < 1) {
			return nil, fieldErr(at+".range_ratio", "%v must be in [0, 1)", l.RangeRatio)
		}
		if q := l.OutputRangeRatio; q != nil && !(*q >= 0 && *q < 1) {
			return nil, fieldErr(at+".output_range_ratio", "%v must be in [0, 1)", *q)
		}
		out = workload.Random{InputLen: l.Input, OutputLen: l.Output, RangeRatio: l.RangeRatio, OutputRangeRatio: l.OutputRangeRatio}
	case "fixed":
		if err := unused(at, "kind fixed", append(append(append(append(logn, trace...), randomOnly...), pairs), repetition...)...); err != nil {
			return nil, err
		}
		if err := pair(workload.MaxTokens); err != nil {
			return nil, err
		}
		out = workload.Fixed{Input: l.Input, Output: l.Output}
	case "lognormal":
		if err := unused(at, "kind lognormal", append(append(append(trace, randomOnly...), pairs), repetition...)...); err != nil {
			return nil, err
		}
		if l.Input < 1 {
			return nil, fieldErr(at+".input", "%d (the median) must be >= 1", l.Input)
		}
		if err := pair(workload.MaxTokens); err != nil {
			return nil, err
		}
		for _, c := range []struct {
			name string
			v    int
		}{{"input_max", l.InputMax}, {"output_max", l.OutputMax}} {
			if c.v < 0 || c.v > workload.MaxTokens {
				return nil, fieldErr(at+"."+c.name, "%d must be in [0, %d] tokens (0: no cap below %d)", c.v, workload.MaxTokens, workload.MaxTokens)
			}
		}
		out = workload.LogNormal{InputMedian: float64(l.Input), InputSigma: l.InputSigma,
			OutputMedian: float64(l.Output), OutputSigma: l.OutputSigma, Correlation: l.Correlation,
			InputMax: l.InputMax, OutputMax: l.OutputMax}
	case "trace":
		if err := unused(at, "kind trace", append(append(append(logn, randomOnly...), pairs), repetition...)...); err != nil {
			return nil, err
		}
		if l.Path == "" {
			return nil, fieldErr(at+".path", "is required for kind trace")
		}
		t, err := s.trace(l.Path)
		if err != nil {
			return nil, errorf(at+".path", err)
		}
		if a := s.Workload.Arrival; a != nil && a.Process == "trace" && a.Path == l.Path {
			if t, err = window(t, a); err != nil {
				return nil, errorf("workload.arrival.window_start", err)
			}
		}
		if l.BlockSize < 0 {
			return nil, fieldErr(at+".block_size", "%d must be >= 1 (tokens per hash id)", l.BlockSize)
		}
		if l.BlockSize > 0 {
			t.BlockSize = l.BlockSize
		}
		order := l.Order
		if order == "" {
			order = "resample"
			if a := s.Workload.Arrival; a != nil && a.Process == "trace" && a.Path == l.Path {
				order = "sequence"
			}
		}
		switch order {
		case "resample":
			out = t.Empirical()
		case "sequence":
			out = t.Sequence()
		default:
			return nil, fieldErr(at+".order", "%q must be resample or sequence", l.Order)
		}
	case "pairs":
		if err := unused(at, "kind pairs", append(append(append(append(logn, trace[:2]...), randomOnly...), repetition...), field{"input", l.Input != 0}, field{"output", l.Output != 0})...); err != nil {
			return nil, err
		}
		if len(l.Pairs) == 0 {
			return nil, fieldErr(at+".pairs", "is required for kind pairs (a list of {input, output})")
		}
		switch {
		case l.Blocks != nil && l.Oversample:
			return nil, fieldErr(at+".oversample", "does not combine with blocks (rows drawn again would repeat their prefixes)")
		case l.Blocks != nil && len(l.Blocks) != len(l.Pairs):
			return nil, fieldErr(at+".blocks", "has %d lists for %d pairs: give one per pair", len(l.Blocks), len(l.Pairs))
		case l.Blocks != nil && l.BlockSize < 1:
			return nil, fieldErr(at+".block_size", "%d must be >= 1 (tokens per block id) with blocks", l.BlockSize)
		case l.Blocks == nil && l.BlockSize != 0:
			return nil, fieldErr(at+".block_size", "applies to kind pairs only with blocks")
		}
		out = workload.Sequence{Pairs: l.Pairs, Blocks: l.Blocks, BlockSize: l.BlockSize}
		if l.Oversample {
			out = workload.Oversampled{Pairs: l.Pairs}
		}
	default:
		return nil, fieldErr(at+".kind", "unknown kind %q (known: %s)", l.Kind, quoteList(lengthKinds))
	}
	if l.PrefixLen > 0 {
		out = workload.SharedPrefix{Tokens: l.PrefixLen, Lengths: out}
	}
	if err := out.Validate(); err != nil {
		return nil, errorf(at, err)
	}
	return out, nil
}

// window keeps the trace's requests of the arrival's window, if it has one.
func window(t workload.Trace, a *Arrival) (workload.Trace, error) {
	if a.WindowStart == 0 && a.WindowEnd == 0 {
		return t, nil
	}
	return t.Window(a.WindowStart, a.WindowEnd)
}

// traceCache keeps the traces a scenario and its sweep points read, so
// each file is parsed once.
type traceCache struct {
	mu sync.Mutex
	m  map[string]workload.Trace
}

func newTraceCache() *traceCache { return &traceCache{m: map[string]workload.Trace{}} }

// trace loads the trace at path (relative to the scenario's directory).
func (s *Scenario) trace(path string) (workload.Trace, error) {
	if s.traces == nil {
		s.traces = newTraceCache()
	}
	full := s.resolve(path)
	s.traces.mu.Lock()
	defer s.traces.mu.Unlock()
	if t, ok := s.traces.m[full]; ok {
		return t, nil
	}
	if st, err := statFile(full); err == nil && st.IsDir() {
		return workload.Trace{}, fmt.Errorf("%s is a directory: want a CSV or JSONL file of input and output lengths", path)
	}
	t, err := workload.LoadTrace(full)
	if err != nil {
		return workload.Trace{}, fmt.Errorf("%w", err)
	}
	s.traces.m[full] = t
	return t, nil
}

// PreloadTrace makes t the contents of the trace file path (resolved as
// the scenario resolves it) for every field that names it
// (workload.arrival.path, workload.lengths.path): a caller that read the
// file once, keeping only the rows it uses (workload.LoadTraceHead), does
// not have it read again, whole.
func (s *Scenario) PreloadTrace(path string, t workload.Trace) {
	if s.traces == nil {
		s.traces = newTraceCache()
	}
	s.traces.mu.Lock()
	defer s.traces.mu.Unlock()
	s.traces.m[s.resolve(path)] = t
}

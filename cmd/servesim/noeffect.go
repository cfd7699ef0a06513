package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// noEffect lists the `vllm bench serve` and `vllm serve` flags that
// servesim accepts and that change nothing in a simulation, with the
// argparse type vLLM gives them (their values are checked all the same)
// and why they do nothing. Source: testdata/vllm/flags.tsv.
var noEffect = []struct {
	name, kind, why string
}{
	// How to reach the server.
	{"base-url", "str", "no server is called"},
	{"host", "str", "no server is called"},
	{"port", "int", "no server is called"},
	{"endpoint", "str", "no server is called"},
	{"header", "str", "no server is called"},
	{"insecure", "bool", "no server is called"},
	{"ready-check-timeout-sec", "int", "no server is called"},
	{"request-id-prefix", "str", "no server is called"},
	{"profile", "bool", "no server is called"},
	{"custom-ensure-client-side-data", "bool", "no server is called"},
	// The client's tokenizer and datasets.
	{"tokenizer-mode", "str", "token counts do not depend on it"},
	{"trust-remote-code", "bool", "token counts do not depend on it"},
	{"no-stream", "bool", "datasets are read from local files"},
	{"skip-chat-template", "bool", "prompt lengths leave chat templates out"},
	{"custom-skip-chat-template", "bool", "prompt lengths leave chat templates out"},
	{"enable-multimodal-chat", "bool", "multimodal requests are not simulated"},
	{"random-batch-size", "int", "embedding backends are not simulated"},
	{"no-reranker", "bool", "rerank backends are not simulated"},
	// What a request asks of the model.
	{"ignore-eos", "bool", "every request runs to its output length"},
	{"temperature", "float", "sampling does not change a request's cost"},
	{"top-p", "float", "sampling does not change a request's cost"},
	{"top-k", "int", "sampling does not change a request's cost"},
	{"min-p", "float", "sampling does not change a request's cost"},
	{"frequency-penalty", "float", "sampling does not change a request's cost"},
	{"presence-penalty", "float", "sampling does not change a request's cost"},
	{"repetition-penalty", "float", "sampling does not change a request's cost"},
	{"use-beam-search", "bool", "vLLM does not use it either"},
	{"logprobs", "int", "sampling does not change a request's cost"},
	{"extra-body", "json", "request bodies are not sent"},
	{"chat-template-kwargs", "json", "prompt lengths leave chat templates out"},
	{"lora-modules", "str", "LoRA adapters are not modelled"},
	{"lora-assignment", "str", "LoRA adapters are not modelled"},
	// Output files servesim does not draw.
	{"plot-timeline", "bool", "servesim draws no timeline"},
	{"timeline-itl-thresholds", "str", "servesim draws no timeline"},
	{"plot-dataset-stats", "bool", "servesim draws no dataset plot"},
	// Datasets servesim does not read (their --dataset-name is an error).
	{"bfcl-categories", "str", "hf datasets are not read"},
	{"blazedit-min-distance", "float", "hf datasets are not read"},
	{"blazedit-max-distance", "float", "hf datasets are not read"},
	{"asr-max-audio-len-sec", "float", "audio datasets are not read"},
	{"asr-min-audio-len-sec", "float", "audio datasets are not read"},
	{"speed-bench-dataset-subset", "str", "the speed_bench dataset is not read"},
	{"speed-bench-output-len", "int", "the speed_bench dataset is not read"},
	{"speed-bench-category", "str", "the speed_bench dataset is not read"},
	{"timed-trace-label-timestamp", "str", "timed_trace rows use the default keys"},
	{"timed-trace-label-input-length", "str", "timed_trace rows use the default keys"},
	{"timed-trace-label-output-length", "str", "timed_trace rows use the default keys"},
	{"timed-trace-label-hash-ids", "str", "timed_trace rows use the default keys"},
	// vllm serve flags that do not change the modelled capacity.
	{"swap-space", "float", "vLLM v1 does not swap"},
	{"enforce-eager", "bool", "step times are modelled, not CUDA graphs"},
	{"no-enforce-eager", "bool", "step times are modelled, not CUDA graphs"},
	{"async-scheduling", "bool", "scheduling overhead is not modelled"},
	{"no-async-scheduling", "bool", "scheduling overhead is not modelled"},
	{"scheduling-policy", "str", "requests carry no priorities: fcfs and priority agree"},
	{"long-prefill-token-threshold", "int", "one partial prefill at a time is modelled"},
}

// noEffectNames returns the names of noEffect, for help.
func noEffectNames() []string {
	out := make([]string, len(noEffect))
	for i, f := range noEffect {
		out[i] = f.name
	}
	return out
}

// defineNoEffect adds the noEffect flags to fs.
func defineNoEffect(fs *flag.FlagSet) {
	for _, f := range noEffect {
		fs.Var(ignored{kind: f.kind}, f.name, "no effect in a simulation: "+f.why)
	}
}

// noteNoEffect writes one stderr line naming the given flags that have
// no effect in a simulation, unless quiet.
func noteNoEffect(w io.Writer, set map[string]bool, quiet bool) {
	var given []string
	for _, f := range noEffect {
		if set[f.name] {
			given = append(given, "--"+f.name)
		}
	}
	if len(given) == 0 || quiet {
		return
	}
	fmt.Fprintf(w, "servesim: note: %s: no effect in a simulation (see servesim bench -h)\n", strings.Join(given, ", "))
}

// ignored accepts a vLLM flag that has no meaning in a simulation, and
// checks its value as argparse would: kind is bool, int, float, json or
// str.
type ignored struct{ kind string }

func (i ignored) IsBoolFlag() bool { return i.kind == "bool" }
func (i ignored) String() string   { return "" }

func (i ignored) Set(s string) error {
	switch i.kind {
	case "bool":
		if _, err := strconv.ParseBool(s); err != nil {
			return errors.New("must be true or false")
		}
	case "int":
		if _, err := strconv.Atoi(strings.TrimSpace(s)); err != nil {
			return errors.New("must be a whole number")
		}
	case "float":
		if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
			return errors.New("must be a number")
		}
	}
	return nil
}

// stringList collects every value of a repeated flag (--metadata a=1
// --metadata b=2, which argparse writes --metadata a=1 b=2); an empty
// value adds nothing.
type stringList struct{ p *[]string }

func (l stringList) String() string {
	if l.p == nil {
		return ""
	}
	return strings.Join(*l.p, " ")
}

func (l stringList) Set(s string) error {
	if s != "" {
		*l.p = append(*l.p, s)
	}
	return nil
}

// triState is an optional boolean: unset, true or false (argparse's
// BooleanOptionalAction with default None).
type triState struct{ set, v bool }

func (t *triState) IsBoolFlag() bool { return true }
func (t *triState) String() string {
	if t == nil || !t.set {
		return ""
	}
	return strconv.FormatBool(t.v)
}

func (t *triState) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("must be true or false")
	}
	t.set, t.v = true, v
	return nil
}

// triNo is the --no- form of a triState.
type triNo struct{ t *triState }

func (n triNo) IsBoolFlag() bool { return true }
func (n triNo) String() string   { return "" }
func (n triNo) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("must be true or false")
	}
	n.t.set, n.t.v = true, !v
	return nil
}

// humanInt is a whole number >= min written as vLLM's human_readable_int
// reads it: 8192, 8k (8000), 8K (8192), 1.5m (1500000), 2M (2097152).
type humanInt struct {
	p   *int
	min int
}

func (v humanInt) String() string {
	if v.p == nil || *v.p == 0 {
		return ""
	}
	return strconv.Itoa(*v.p)
}

func (v humanInt) Set(s string) error {
	n, err := parseHumanInt(s)
	switch {
	case err != nil:
		return err
	case n < int64(v.min):
		return fmt.Errorf("must be >= %d", v.min)
	case n > math.MaxInt32:
		return fmt.Errorf("exceeds %d, the largest count a flag takes", math.MaxInt32)
	}
	*v.p = int(n)
	return nil
}

// parseHumanInt reads vLLM's human-readable integers: decimal suffixes
// k, m, g, t (powers of 1000, decimals allowed: 1.5k) and binary K, M, G,
// T (powers of 1024, whole numbers only); without a suffix, a whole
// number (1e6 works).
func parseHumanInt(s string) (int64, error) {
	s = strings.TrimSpace(s)
	bad := errors.New("must be a whole number, or one with a suffix: 8k = 8000, 8K = 8192, 1M = 1048576")
	if s == "" {
		return 0, bad
	}
	const units = "kmgtKMGT"
	i := strings.IndexByte(units, s[len(s)-1])
	if i < 0 {
		n, err := parseWhole(s)
		if err != nil {
			return 0, bad
		}
		return n, nil
	}
	num := s[:len(s)-1]
	var scale float64
	if i < 4 {
		scale = math.Pow(1000, float64(i+1))
	} else {
		scale = math.Pow(1024, float64(i-3))
		if strings.ContainsAny(num, ".eE") {
			return 0, bad
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 || f*scale >= 1<<62 || f*scale != math.Trunc(f*scale) {
		return 0, bad
	}
	return int64(f * scale), nil
}

// fractionValue is a number in (0, 1].
type fractionValue struct{ p *float64 }

func (v fractionValue) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.FormatFloat(*v.p, 'g', -1, 64)
}

func (v fractionValue) Set(s string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(f > 0 && f <= 1) {
		return errors.New("must be a number in (0, 1]")
	}
	*v.p = f
	return nil
}

package vllmbench

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// noEffect lists the `vllm bench serve` and `vllm serve` flags that
// servesim accepts and that change nothing in a simulation, with the
// argparse type vLLM gives them (their values are checked all the same)
// and why they do nothing. Source: cmd/servesim/testdata/vllm/flags.tsv.
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
	{"scheduling-policy", "str", "requests carry no priorities: fcfs and priority agree"},
	{"long-prefill-token-threshold", "int", "one partial prefill at a time is modelled"},
}

// NoEffectNames returns the names of the flags that have no effect in a
// simulation, for help.
func NoEffectNames() []string {
	out := make([]string, len(noEffect))
	for i, f := range noEffect {
		out[i] = f.name
	}
	return out
}

// DefineNoEffect adds the flags that have no effect in a simulation to
// fs, each an Ignored value.
func DefineNoEffect(fs *flag.FlagSet) {
	for _, f := range noEffect {
		fs.Var(Ignored{Kind: f.kind}, f.name, "no effect in a simulation: "+f.why)
	}
}

// NoteNoEffect writes to w one line naming the given flags (set: the
// names given) that have no effect in a simulation, unless quiet.
func NoteNoEffect(w io.Writer, set map[string]bool, quiet bool) {
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

// Ignored is a flag.Value that accepts a vLLM flag with no meaning in a
// simulation and checks its value as argparse would: Kind is bool, int,
// float, json or str.
type Ignored struct{ Kind string }

// IsBoolFlag reports whether the flag takes no value (Kind bool).
func (i Ignored) IsBoolFlag() bool { return i.Kind == "bool" }

// String is the flag's default: none.
func (i Ignored) String() string { return "" }

// Type is Kind, what the flag takes, for cliflag.Print.
func (i Ignored) Type() string { return i.Kind }

// Set checks s as a value of the flag's Kind and drops it.
func (i Ignored) Set(s string) error {
	switch i.Kind {
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

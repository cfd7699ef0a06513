package vllmbench

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/servesim/servesim/dataset"
	"github.com/servesim/servesim/hfmodels"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/workload"
)

// downloadOnly are vLLM datasets that need the Hugging Face hub or media
// files, with what to do instead.
var downloadOnly = map[string]string{
	"random-rerank": "rerank (pooling) requests are not simulated",
	"custom_audio":  "audio requests are not simulated",
	"custom_image":  "image requests are not simulated",
	"custom_mm":     "multimodal requests are not simulated",
	"speed_bench":   "SPEED-Bench is not read; a subset saved as custom JSONL (--dataset-name custom) works",
}

// simulatedDatasets are the --dataset-name values servesim reads.
var simulatedDatasets = []string{"random", "sharegpt", "burstgpt", "custom", "prefix_repetition", "spec_bench", "timed_trace", "hf", "sonnet", "random-mm", "multi_turn", "trace"}

// lengths sets the scenario's request count and length distribution from
// --dataset-name and its flags: vLLM's datasets (benchmarks/datasets.py)
// built with package dataset. (It lives here, not in dataset, because it
// fills in a scenario, a layer above dataset.)
func (o *Options) lengths(sc *scenario.Scenario) error {
	name := o.DatasetName
	if _, ok := downloadOnly[name]; !ok && !slices.Contains(simulatedDatasets, name) {
		return fmt.Errorf("--dataset-name: invalid choice %q (simulated: %s; vLLM's others fail with what to do instead)", name, strings.Join(simulatedDatasets, ", "))
	}
	pathless := name == "random" || name == "prefix_repetition" || name == "random-mm" || name == "random-rerank"
	if pathless && o.Given["dataset-path"] {
		return fmt.Errorf("cannot use '%s' dataset with --dataset-path: give the --dataset-name of the file (sharegpt, custom, burstgpt, ...) for %s", name, o.DatasetPath)
	}
	if why, ok := downloadOnly[name]; ok {
		return fmt.Errorf("--dataset-name %s: %s", name, why)
	}
	if o.TraceTimestamps && name != "trace" {
		return errors.New("--trace-timestamps needs --dataset-name trace (or timed_trace, which replays its timestamps by default)")
	}
	if !pathless && o.DatasetPath == "" {
		return fmt.Errorf("--dataset-name %s needs --dataset-path FILE", name)
	}
	n := o.NumPrompts
	wholeFile := name == "custom" || name == "spec_bench"
	if n < 1 && !wholeFile {
		return fmt.Errorf("--num-prompts %d must be >= 1 (custom and spec_bench take <= 0 as every row)", n)
	}
	opt := dataset.Options{NumPrompts: n, NoOversample: o.NoOversample, DisableShuffle: o.DisableShuffle,
		Rand: event.NewStream(o.Seed, "dataset")}
	if name == "sharegpt" || name == "custom" || name == "spec_bench" || name == "hf" || name == "sonnet" || name == "multi_turn" {
		tok, err := dataset.TokenizerFor(o.Tokenizer, o.Model)
		if err != nil {
			return err
		}
		opt.Tokenizer, o.Tokens = tok, fmt.Sprint(tok)
	}
	var pairs []workload.Pair
	var err error
	switch name {
	case "random":
		return o.randomLengths(sc)
	case "random-mm":
		return o.randomMMLengths(sc)
	case "trace", "timed_trace":
		return o.traceLengths(sc)
	case "prefix_repetition":
		// vLLM's dataset: NumPrefixes distinct shared prefixes, each
		// prompt with its own suffix; the engine's prefix cache sees the
		// sharing (workload.PrefixRepetition).
		p := o.PrefixRepetition
		switch {
		case p.NumPrefixes < 1:
			return fmt.Errorf("--prefix-repetition-num-prefixes %d must be >= 1", p.NumPrefixes)
		case n < p.NumPrefixes:
			return fmt.Errorf("--num-prompts %d must be >= --prefix-repetition-num-prefixes %d (every prefix needs a prompt)", n, p.NumPrefixes)
		case p.PrefixLen < 0 || p.SuffixLen < 0 || p.PrefixLen+p.SuffixLen < 1:
			return fmt.Errorf("--prefix-repetition-prefix-len %d + --prefix-repetition-suffix-len %d tokens must make a prompt of at least 1 token", p.PrefixLen, p.SuffixLen)
		case p.OutputLen < 1:
			return fmt.Errorf("--prefix-repetition-output-len %d must be >= 1", p.OutputLen)
		}
		sc.Requests = n
		sc.Workload.Lengths = scenario.Lengths{Kind: "prefix_repetition", PrefixLen: p.PrefixLen, SuffixLen: p.SuffixLen,
			NumPrefixes: p.NumPrefixes, Output: p.OutputLen}
		return nil
	case "sharegpt":
		opt.OutputLen = o.ShareGPTOutputLen
		pairs, err = dataset.ShareGPT(o.DatasetPath, opt)
	case "burstgpt":
		pairs, err = dataset.BurstGPT(o.DatasetPath, opt)
	case "custom":
		opt.OutputLen = o.CustomOutputLen
		pairs, err = dataset.Custom(o.DatasetPath, opt)
	case "spec_bench":
		opt.OutputLen = o.SpecBenchOutputLen
		pairs, err = dataset.SpecBench(o.DatasetPath, o.SpecBenchCategory, opt)
	case "hf":
		h := o.HF
		h.Path = o.DatasetPath
		var note string
		pairs, note, err = dataset.HF(h, opt)
		if note != "" && o.Notes != nil {
			fmt.Fprintf(o.Notes, "servesim: note: %s\n", note)
		}
	case "sonnet":
		return o.sonnetLengths(sc, opt)
	case "multi_turn":
		return o.multiTurnLengths(sc, opt)
	default:
		return fmt.Errorf("--dataset-name: invalid choice %q (simulated: %s)", name, strings.Join(simulatedDatasets, ", "))
	}
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "dataset: "))
	}
	// The rows read are at most --num-prompts; requests past them draw
	// rows again lazily, so memory follows the file, not the count.
	sc.Requests = dataset.Requests(opt, len(pairs))
	sc.Workload.Lengths = scenario.Lengths{Kind: "pairs", Pairs: pairs, Oversample: sc.Requests > len(pairs)}
	return nil
}

// sonnetLengths is vLLM's sonnet dataset: prompts of poem lines from
// --dataset-path sharing the file's first lines, which the prefix cache
// sees (the prompts' block ids, in the engine's block size).
func (o *Options) sonnetLengths(sc *scenario.Scenario, opt dataset.Options) error {
	s := o.Sonnet
	s.BlockSize = o.Server.BlockSize
	if s.BlockSize < 1 {
		s.BlockSize = scenario.Default().Server.BlockSize
	}
	r, err := dataset.Sonnet(o.DatasetPath, s, opt)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "dataset: "))
	}
	sc.Requests = len(r.Pairs)
	sc.Workload.Lengths = scenario.Lengths{Kind: "pairs", Pairs: r.Pairs, Blocks: r.Blocks, BlockSize: r.BlockSize}
	return nil
}

// multiTurnLengths reads a file of vLLM's multi-turn benchmark
// (benchmarks/multi_turn: conversations, or a generate_conversations
// configuration): one request per answer, later turns carrying the
// earlier turns as a prefix the cache sees (servesim's dataset: vllm
// bench serve has no such --dataset-name).
func (o *Options) multiTurnLengths(sc *scenario.Scenario, opt dataset.Options) error {
	bs := o.Server.BlockSize
	if bs < 1 {
		bs = scenario.Default().Server.BlockSize
	}
	r, err := dataset.MultiTurn(o.DatasetPath, bs, opt)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "dataset: "))
	}
	if len(r.Pairs) < o.NumPrompts && o.Notes != nil {
		fmt.Fprintf(o.Notes, "servesim: note: %s holds %d turns in %d conversations, fewer than --num-prompts %d: running them all once (a turn drawn again would not follow its history)\n",
			o.DatasetPath, r.Turns, r.Count, o.NumPrompts)
	}
	sc.Requests = len(r.Pairs)
	sc.Workload.Lengths = scenario.Lengths{Kind: "pairs", Pairs: r.Pairs, Blocks: r.Blocks, BlockSize: r.BlockSize}
	return nil
}

// randomMMLengths is vLLM's random-mm dataset: the random dataset's text
// and, in each prompt, the tokens of its images, counted from the model's
// vision config (dataset.Vision). The vision encoder's own time is not
// modelled: image tokens are prefilled as prompt tokens.
func (o *Options) randomMMLengths(sc *scenario.Scenario) error {
	if err := o.randomLengths(sc); err != nil {
		return err
	}
	cfg, name, err := o.modelConfig()
	if err != nil {
		return err
	}
	v, err := dataset.VisionOf(name, cfg)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "dataset: "))
	}
	m := dataset.DefaultRandomMM()
	m.BaseItems, m.ItemsRangeRatio = o.MM.BaseItems, o.MM.RangeRatio
	if m.LimitImages, m.LimitVideos, err = dataset.ParseMMLimit(o.MM.Limit, m); err == nil {
		m.Buckets, err = dataset.ParseBuckets(o.MM.Buckets)
	}
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "dataset: "))
	}
	rng := event.NewStream(o.Seed, "dataset")
	images, err := m.ImageTokens(v, o.NumPrompts, rng)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "dataset: "))
	}
	l := sc.Workload.Lengths
	text := workload.Random{InputLen: l.Input, OutputLen: l.Output, RangeRatio: l.RangeRatio, OutputRangeRatio: l.OutputRangeRatio}
	if err := text.Validate(); err != nil {
		return fmt.Errorf("--random-input-len/--random-output-len: %v", err)
	}
	pairs := make([]workload.Pair, o.NumPrompts)
	inputs := make([]int, o.NumPrompts)
	for i := range pairs {
		in, out := text.Sample(rng, i)
		inputs[i] = min(l.PrefixLen+in+images[i], workload.MaxTokens)
		pairs[i] = workload.Pair{Input: inputs[i], Output: out}
	}
	// --random-prefix-len's tokens open every prompt, as in random; the
	// images come after the text.
	bs := o.Server.BlockSize
	if bs < 1 {
		bs = scenario.Default().Server.BlockSize
	}
	blocks, err := dataset.PrefixBlocks(inputs, l.PrefixLen, bs)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "dataset: "))
	}
	sc.Workload.Lengths = scenario.Lengths{Kind: "pairs", Pairs: pairs, Blocks: blocks, BlockSize: bs}
	return nil
}

// modelConfig returns the config.json of the model served (--model, or
// the checkpoint --tokenizer names for a served name): a directory's or a
// file's, else the registry entry's.
func (o *Options) modelConfig() ([]byte, string, error) {
	try := func(m string) ([]byte, error) {
		if st, err := os.Stat(m); err == nil {
			if st.IsDir() {
				m = filepath.Join(m, "config.json")
			}
			return os.ReadFile(m)
		}
		if id, ok := hfmodels.ForCatalog(m); ok {
			m = id // a cost catalog name (llama-3.1-8b)
		}
		e, _, err := hfmodels.Resolve(m)
		return e.Config, err
	}
	cfg, err := try(o.Model)
	if err != nil && o.Tokenizer != "" {
		if c, terr := try(o.Tokenizer); terr == nil {
			return c, o.Tokenizer, nil
		}
	}
	if err != nil {
		return nil, "", fmt.Errorf("--model: %v", err)
	}
	return cfg, o.Model, nil
}

// randomLengths is vLLM's random dataset.
func (o *Options) randomLengths(sc *scenario.Scenario) error {
	in, out, err := dataset.ParseRangeRatio(o.RandomRangeRatio)
	if err != nil {
		return fmt.Errorf("--random-range-ratio %s: %w", o.RandomRangeRatio, err)
	}
	o.RangeIn, o.RangeOut = in, nil
	if out != in {
		o.RangeOut = &out
	}
	if o.RandomPrefixLen+int(math.Floor(float64(o.RandomInputLen)*(1-in))) < 1 {
		return fmt.Errorf("--random-prefix-len %d + --random-input-len %d (its low end at --random-range-ratio %v) leave prompts of no token: give at least 1 input token",
			o.RandomPrefixLen, o.RandomInputLen, in)
	}
	if o.RandomOutputLen < 1 {
		return fmt.Errorf("--random-output-len %d must be >= 1", o.RandomOutputLen)
	}
	sc.Requests = o.NumPrompts
	sc.Workload.Lengths = scenario.Lengths{Kind: "random", Input: o.RandomInputLen, Output: o.RandomOutputLen,
		RangeRatio: in, OutputRangeRatio: o.RangeOut, PrefixLen: o.RandomPrefixLen}
	return nil
}

// traceLengths reads servesim's trace (CSV or JSONL of lengths, resampled
// by row or, replayed, in order) and vLLM's timed_trace (its first
// --num-prompts rows, in order).
func (o *Options) traceLengths(sc *scenario.Scenario) error {
	if st, err := os.Stat(o.DatasetPath); err == nil && st.IsDir() {
		return fmt.Errorf("--dataset-path: %s is a directory: want a CSV or JSONL file", o.DatasetPath)
	}
	sc.Requests = o.NumPrompts
	if o.DatasetName == "trace" {
		sc.Workload.Lengths = scenario.Lengths{Kind: "trace", Path: o.DatasetPath, Order: "resample"}
		if o.TraceTimestamps {
			sc.Workload.Lengths.Order = "sequence"
		}
		return nil
	}
	if !strings.EqualFold(filepath.Ext(o.DatasetPath), ".jsonl") {
		return fmt.Errorf("--dataset-path %s: timed_trace reads a .jsonl file ({timestamp, input_length, output_length, hash_ids} a line)", o.DatasetPath)
	}
	// vLLM takes the first --num-prompts rows: only they are read, once,
	// for the lengths here and the arrivals (the scenario's trace).
	t, err := workload.LoadTraceHead(o.DatasetPath, o.NumPrompts)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "invalid workload: "))
	}
	sc.PreloadTrace(o.DatasetPath, t)
	pairs, blocks := dataset.TimedTrace(t.Rows[:min(o.NumPrompts, len(t.Rows))], o.TimedTraceChunk)
	sc.Requests = len(pairs)
	sc.Workload.Lengths = scenario.Lengths{Kind: "pairs", Pairs: pairs, Blocks: blocks}
	if blocks != nil {
		sc.Workload.Lengths.BlockSize = o.TimedTraceChunk
	}
	return nil
}

package dataset

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/servesim/servesim/internal/nearest"
	"github.com/servesim/servesim/workload"
)

// An HFDataset is one Hugging Face dataset vLLM's client reads with
// --dataset-name hf (vllm/benchmarks/datasets/huggingface.py@237145ea:
// each class's SUPPORTED_DATASET_PATHS).
type HFDataset struct {
	// ID is the Hugging Face id --dataset-path (or --hf-name) gives.
	ID string
	// Class is vLLM's dataset class.
	Class string
	// DefaultOutput is vLLM's DEFAULT_OUTPUT_LEN, tokens: every request's
	// output unless --hf-output-len; 0 where vLLM takes each row's
	// reference answer's length.
	DefaultOutput int
	// Media is what the rows carry besides text: "" (text only),
	// "image", "video" or "audio". The client counts only text tokens.
	Media string
}

// HFDatasets are the datasets vLLM's client knows, by id.
var HFDatasets = []HFDataset{
	{"Aeala/ShareGPT_Vicuna_unfiltered", "ConversationDataset", 0, ""},
	{"lmms-lab/LLaVA-OneVision-Data", "MultiModalConversationDataset", 0, "image"},
	{"lmarena-ai/VisionArena-Chat", "VisionArenaDataset", 128, "image"},
	{"lmarena-ai/vision-arena-bench-v0.1", "VisionArenaDataset", 128, "image"},
	{"yale-nlp/MMVU", "MMVUDataset", 128, "video"},
	{"likaixin/InstructCoder", "InstructCoderDataset", 200, ""},
	{"philschmid/mt-bench", "MTBenchDataset", 256, ""},
	{"vdaita/edit_5k_char", "BlazeditDataset", 4000, ""},
	{"vdaita/edit_10k_char", "BlazeditDataset", 4000, ""},
	{"AI-MO/aimo-validation-aime", "AIMODataset", 0, ""},
	{"AI-MO/NuminaMath-1.5", "AIMODataset", 0, ""},
	{"AI-MO/NuminaMath-CoT", "AIMODataset", 0, ""},
	{"zed-industries/zeta", "NextEditPredictionDataset", 0, ""},
	{"openslr/librispeech_asr", "ASRDataset", 128, "audio"},
	{"facebook/voxpopuli", "ASRDataset", 128, "audio"},
	{"LIUM/tedlium", "ASRDataset", 128, "audio"},
	{"edinburghcstr/ami", "ASRDataset", 128, "audio"},
	{"speechcolab/gigaspeech", "ASRDataset", 128, "audio"},
	{"kensho/spgispeech", "ASRDataset", 128, "audio"},
	{"mgoin/mlperf-inference-llama2-data", "MLPerfDataset", 0, ""},
	{"mgoin/mlperf-inference-llama3.1-data", "MLPerfDataset", 0, ""},
	{"Lin-Chen/MMStar", "MMStarDataset", 128, "image"},
}

// HFDefaultSplit is the split read when --hf-split is not given (vLLM's
// serve.py sets "train" for the datasets above).
const HFDefaultSplit = "train"

// HFLengths are the published token lengths of one dataset split
// (hf_lengths.tsv, shipped with the package).
type HFLengths struct {
	ID, Split string
	// Stat is how the lengths were published: "mean" (every request gets
	// the rounded mean; the spread is not known).
	Stat string
	// Prompt and Output are the mean prompt and output tokens; Output is
	// 0 where vLLM fixes the output length (HFDataset.DefaultOutput).
	Prompt, Output float64
	// Tokenizer counted the tokens; Source and Method say where the
	// numbers come from and how they were derived.
	Tokenizer, Source, Method string
}

//go:embed hf_lengths.tsv
var hfLengthsTSV string

// HFLengthTable returns the shipped lengths, in file order.
func HFLengthTable() []HFLengths {
	var out []HFLengths
	for i, line := range strings.Split(hfLengthsTSV, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 8 {
			panic(fmt.Sprintf("dataset: hf_lengths.tsv:%d: %d columns, want 8", i+1, len(f)))
		}
		l := HFLengths{ID: f[0], Split: f[1], Stat: f[2], Tokenizer: f[5], Source: f[6], Method: f[7]}
		var err error
		if l.Prompt, err = strconv.ParseFloat(f[3], 64); err != nil || l.Stat != "mean" {
			panic(fmt.Sprintf("dataset: hf_lengths.tsv:%d: prompt %q, stat %q: want a number and mean", i+1, f[3], f[2]))
		}
		if f[4] != "-" {
			if l.Output, err = strconv.ParseFloat(f[4], 64); err != nil {
				panic(fmt.Sprintf("dataset: hf_lengths.tsv:%d: output %q is not a number", i+1, f[4]))
			}
		}
		out = append(out, l)
	}
	return out
}

// HFOptions name the dataset as vLLM's hf flags do.
type HFOptions struct {
	// Path is --dataset-path: a Hugging Face id, or a local .jsonl or
	// .json file of the dataset's rows.
	Path string
	// Name is --hf-name, the id of a local Path ("" is Path).
	Name string
	// Split and Subset are --hf-split and --hf-subset ("" split is
	// HFDefaultSplit).
	Split, Subset string
	// OutputLen is --hf-output-len; 0 is the dataset's own.
	OutputLen int
}

// HF returns the request lengths of --dataset-name hf. A local file is
// read as its rows (readHFFile); an id is looked up in HFDatasets and its
// lengths taken from HFLengthTable: with only a mean published, every
// request gets it (the note says so). An id vLLM does not know, or one
// whose lengths are not published, is an error that says what to give
// instead.
func HF(h HFOptions, o Options) (pairs []workload.Pair, note string, err error) {
	if err := o.check(); err != nil {
		return nil, "", err
	}
	if h.OutputLen < 0 || h.OutputLen > workload.MaxTokens {
		return nil, "", fmt.Errorf("%w: --hf-output-len %d must be from 1 to %d", ErrDataset, h.OutputLen, workload.MaxTokens)
	}
	if st, serr := os.Stat(h.Path); serr == nil {
		if st.IsDir() {
			return nil, "", fileError(h.Path, "is a directory: give the .jsonl or .json file of its rows")
		}
		pairs, err := readHFFile(h, o)
		return pairs, "", err
	}
	id := h.Name
	if id == "" {
		id = h.Path
	}
	i := slices.IndexFunc(HFDatasets, func(d HFDataset) bool { return d.ID == id })
	if i < 0 {
		ids := make([]string, len(HFDatasets))
		for j, d := range HFDatasets {
			ids[j] = d.ID
		}
		return nil, "", fmt.Errorf("%w: --dataset-path %s is neither a local file nor a Hugging Face dataset vLLM's client knows (nearest: %s); save the rows as a .jsonl file and give its path",
			ErrDataset, id, strings.Join(nearest.Names(id, ids, 3, -1), ", "))
	}
	d := HFDatasets[i]
	split := h.Split
	if split == "" {
		split = HFDefaultSplit
	}
	var splits []string
	for _, l := range HFLengthTable() {
		if l.ID != d.ID {
			continue
		}
		if l.Split != split {
			splits = append(splits, l.Split)
			continue
		}
		if h.Subset != "" {
			return nil, "", fmt.Errorf("%w: --hf-subset %s of %s: no lengths are published per subset; save the subset's rows as a .jsonl file and give it as --dataset-path", ErrDataset, h.Subset, d.ID)
		}
		out := h.OutputLen
		if out == 0 {
			out = d.DefaultOutput
		}
		if out == 0 {
			out = max(1, int(math.Round(l.Output)))
		}
		in := max(1, int(math.Round(l.Prompt)))
		n := max(o.NumPrompts, 1)
		pairs = make([]workload.Pair, n)
		for k := range pairs {
			pairs[k] = workload.Pair{Input: in, Output: out}
		}
		note = fmt.Sprintf("--dataset-name hf %s (%s): only the mean prompt length is published (%.1f tokens, %s tokenizer; %s), so every request has %d input and %d output tokens",
			d.ID, split, l.Prompt, l.Tokenizer, l.Source, in, out)
		return pairs, note, nil
	}
	if len(splits) > 0 {
		return nil, "", fmt.Errorf("%w: --hf-split %s of %s: lengths are published for split %s only", ErrDataset, split, d.ID, strings.Join(splits, ", "))
	}
	return nil, "", fmt.Errorf("%w: --dataset-path %s: the token lengths of vLLM's %s are not published anywhere servesim could find; download its %s split, save the rows as a .jsonl file and give that file as --dataset-path (its text is tokenized like any file's)",
		ErrDataset, d.ID, d.Class, split)
}

// readHFFile reads a local file of a Hugging Face dataset's rows: a .json
// list of ShareGPT conversations, or a .jsonl file whose rows carry the
// text under the fields vLLM's classes read: "conversations" (the first
// turn the prompt, the second the reference answer), "turns" (MT-Bench,
// the first turn), "problem" and "solution" (AIMO), "input" and
// "instruction" (InstructCoder's prompt, as vLLM builds it), "question"
// (MMVU, MMStar), or "prompt" (vLLM's custom rows). The output is
// OutputLen, else the reference answer's tokens, else 256 (vLLM's
// custom default); a row without any of these fields is an error naming
// its line.
func readHFFile(h HFOptions, o Options) ([]workload.Pair, error) {
	switch strings.ToLower(filepath.Ext(h.Path)) {
	case ".json":
		o.OutputLen = h.OutputLen
		return ShareGPT(h.Path, o)
	case ".jsonl":
	default:
		return nil, fileError(h.Path, "want a .jsonl file of the dataset's rows, or a .json list of ShareGPT conversations")
	}
	tok := o.tokenizer()
	o.OutputLen = -1 // each row's own, checked below
	return jsonLines(h.Path, o, func(line int, obj map[string]json.RawMessage) (string, int, bool, error) {
		prompt, answer, ok := hfRowText(obj)
		if !ok {
			return "", 0, false, rowError(h.Path, line, "no text field vLLM's hf datasets read (conversations, turns, problem, input and instruction, question, prompt)")
		}
		out := h.OutputLen
		switch {
		case out > 0:
		case answer != "":
			out = tok.Count(answer)
		default:
			out = 256
		}
		return prompt, out, true, nil
	})
}

// hfRowText returns a row's prompt and reference answer ("" for none).
func hfRowText(obj map[string]json.RawMessage) (prompt, answer string, ok bool) {
	str := func(k string) string {
		var s string
		json.Unmarshal(obj[k], &s)
		return s
	}
	if raw, has := obj["conversations"]; has {
		var turns []struct {
			Value string `json:"value"`
		}
		if json.Unmarshal(raw, &turns) == nil && len(turns) >= 2 {
			return turns[0].Value, turns[1].Value, true
		}
		return "", "", false
	}
	if raw, has := obj["turns"]; has {
		var turns []string
		if json.Unmarshal(raw, &turns) == nil && len(turns) > 0 {
			return turns[0], "", true
		}
		return "", "", false
	}
	switch {
	case str("problem") != "":
		return str("problem"), str("solution"), true
	case str("instruction") != "":
		return str("input") + "\n\n" + str("instruction") + " Just output the code, do not include any explanation.", "", true
	case str("question") != "":
		return str("question"), str("output"), true
	case str("prompt") != "":
		return str("prompt"), "", true
	}
	return "", "", false
}

package dataset

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/servesim/servesim/workload"
)

// ShareGPT reads a ShareGPT JSON file (a list of {"conversations":
// [{"value": prompt}, {"value": reply}, ...]}, as
// ShareGPT_V3_unfiltered_cleaned_split.json) and samples requests as
// vLLM's ShareGPTDataset: entries with fewer than two turns are dropped,
// the rest shuffled; the prompt is the first turn and the output the
// second turn's token count (or OutputLen); rows are taken in order while
// valid (prompt and output of at least 4 tokens, the output check skipped
// when OutputLen is set; prompt at most 1024 and prompt + output at most
// 2048 tokens) until NumPrompts, then oversampled.
func ShareGPT(path string, o Options) ([]workload.Pair, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDataset, err)
	}
	type turn struct {
		Value string `json:"value"`
	}
	var entries []struct {
		Conversations []turn `json:"conversations"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&entries); err != nil {
		return nil, jsonError(path, data, err, "want a JSON list of {\"conversations\": [{\"value\": ...}, ...]} (ShareGPT)")
	}
	type convo struct{ prompt, reply string }
	var rows []convo
	for _, e := range entries {
		if len(e.Conversations) >= 2 {
			rows = append(rows, convo{e.Conversations[0].Value, e.Conversations[1].Value})
		}
	}
	if len(rows) == 0 {
		return nil, fileError(path, "no entry has two conversation turns (a prompt and a reply)")
	}
	shuffle(&o, rows)
	tok := o.tokenizer()
	var pairs []workload.Pair
	for _, r := range rows {
		if len(pairs) >= o.NumPrompts {
			break
		}
		in := tok.Count(r.prompt)
		out := o.OutputLen
		if out <= 0 {
			out = tok.Count(r.reply)
		}
		if validSequence(in, out, o.OutputLen > 0) {
			pairs = append(pairs, workload.Pair{Input: in, Output: out})
		}
	}
	if len(pairs) == 0 {
		return nil, fileError(path, "no conversation passes vLLM's filter (prompt and reply of 4 to 1024 tokens, 2048 together)")
	}
	return oversample(&o, pairs), nil
}

// validSequence is vLLM's is_valid_sequence with its defaults.
func validSequence(in, out int, fixedOutput bool) bool {
	const minLen, maxPrompt, maxTotal = 4, 1024, 2048
	return in >= minLen && (fixedOutput || out >= minLen) && in <= maxPrompt && in+out <= maxTotal
}

// jsonError turns a decoding error of data into one naming path and line.
func jsonError(path string, data []byte, err error, want string) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return fileError(path, "%v: %s", err, want)
	}
	return rowError(path, 1+bytes.Count(data[:off], []byte("\n")), "%v: %s", err, want)
}

// BurstGPT reads the BurstGPT CSV (BurstGPT_without_fails_2.csv: columns
// Timestamp, Model, Request tokens, Response tokens, ...) as vLLM's
// BurstGPTDataset: rows of model GPT-4 with a positive response, drawn
// NumPrompts times (with replacement when there are fewer rows); the
// input is Request tokens, the output Response tokens. Timestamps are not
// used (vLLM's arrivals come from --request-rate).
func BurstGPT(path string, o Options) ([]workload.Pair, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDataset, err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, fileError(path, "reading the header: %v", err)
	}
	model := -1
	for i, h := range header {
		if strings.EqualFold(strings.TrimSpace(h), "Model") {
			model = i
		}
	}
	if model < 0 || len(header) < 4 {
		return nil, rowError(path, 1, "header %q: want BurstGPT's columns Timestamp, Model, Request tokens, Response tokens", strings.Join(header, ","))
	}
	var rows []workload.Pair
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			return nil, fileError(path, "%v", err)
		}
		if len(rec) < 4 {
			return nil, rowError(path, line, "%d columns, want at least 4 (Timestamp, Model, Request tokens, Response tokens)", len(rec))
		}
		in, err1 := strconv.ParseFloat(strings.TrimSpace(rec[2]), 64)
		out, err2 := strconv.ParseFloat(strings.TrimSpace(rec[3]), 64)
		if err1 != nil || err2 != nil || in < 0 || out < 0 || in > workload.MaxTokens || out > workload.MaxTokens {
			return nil, rowError(path, line, "request tokens %q and response tokens %q must be whole numbers >= 0", rec[2], rec[3])
		}
		if strings.TrimSpace(rec[model]) != "GPT-4" || out <= 0 {
			continue
		}
		rows = append(rows, workload.Pair{Input: int(in), Output: int(out)})
	}
	if len(rows) == 0 {
		return nil, fileError(path, "no row of model GPT-4 with a positive response (vLLM's filter)")
	}
	n := max(o.NumPrompts, 1)
	out := make([]workload.Pair, 0, n)
	if n > len(rows) {
		for range n {
			out = append(out, rows[o.Rand.IntN(len(rows))])
		}
		return out, nil
	}
	for _, i := range o.Rand.Perm(len(rows))[:n] {
		out = append(out, rows[i])
	}
	return out, nil
}

// Custom reads vLLM's custom dataset: a .jsonl file, one {"prompt": text,
// "output_tokens": n} a line. The input is the prompt's token count; the
// output OutputLen, or each row's output_tokens when OutputLen is -1.
// Rows are shuffled, the first NumPrompts taken (every row when
// NumPrompts <= 0), then oversampled.
func Custom(path string, o Options) ([]workload.Pair, error) {
	if !strings.EqualFold(filepath.Ext(path), ".jsonl") {
		return nil, fileError(path, "the custom dataset must be a .jsonl file (one {\"prompt\": ..., \"output_tokens\": ...} a line)")
	}
	return jsonLines(path, o, func(line int, obj map[string]json.RawMessage) (workload.Pair, bool, error) {
		prompt, err := textField(obj, "prompt")
		if err != nil {
			return workload.Pair{}, false, rowError(path, line, "%v", err)
		}
		out := o.OutputLen
		if out < 0 {
			raw, ok := obj["output_tokens"]
			var n float64
			if !ok || json.Unmarshal(raw, &n) != nil || n < 1 || n != float64(int(n)) || n > workload.MaxTokens {
				return workload.Pair{}, false, rowError(path, line, "output_tokens must be a whole number >= 1 with --custom-output-len -1")
			}
			out = int(n)
		}
		return workload.Pair{Input: o.tokenizer().Count(prompt), Output: out}, true, nil
	})
}

// SpecBench reads Spec-Bench's question.jsonl: the prompt is the first of
// each row's "turns", the output OutputLen tokens; category, when not
// empty, keeps only rows of that category. Sampled like Custom.
func SpecBench(path, category string, o Options) ([]workload.Pair, error) {
	return jsonLines(path, o, func(line int, obj map[string]json.RawMessage) (workload.Pair, bool, error) {
		if category != "" {
			var c string
			if json.Unmarshal(obj["category"], &c) != nil || c != category {
				return workload.Pair{}, false, nil
			}
		}
		var turns []string
		if err := json.Unmarshal(obj["turns"], &turns); err != nil || len(turns) == 0 {
			return workload.Pair{}, false, rowError(path, line, "want \"turns\": a list of prompt strings")
		}
		return workload.Pair{Input: o.tokenizer().Count(turns[0]), Output: o.OutputLen}, true, nil
	})
}

// jsonLines reads a JSONL file row by row with row, then shuffles, takes
// NumPrompts (all when <= 0) and oversamples.
func jsonLines(path string, o Options, row func(line int, obj map[string]json.RawMessage) (workload.Pair, bool, error)) ([]workload.Pair, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if o.OutputLen == 0 {
		return nil, fileError(path, "no output length: give --output-len")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDataset, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
	var pairs []workload.Pair
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(text, &obj); err != nil {
			return nil, rowError(path, line, "not a JSON object: %v", err)
		}
		p, ok, err := row(line, obj)
		if err != nil {
			return nil, err
		}
		if ok {
			pairs = append(pairs, p)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fileError(path, "%v", err)
	}
	if len(pairs) == 0 {
		return nil, fileError(path, "no usable row")
	}
	shuffle(&o, pairs)
	if o.NumPrompts > 0 && len(pairs) > o.NumPrompts {
		pairs = pairs[:o.NumPrompts]
	}
	return oversample(&o, pairs), nil
}

// textField returns the string field key of obj.
func textField(obj map[string]json.RawMessage, key string) (string, error) {
	raw, ok := obj[key]
	if !ok {
		return "", fmt.Errorf("no %q field", key)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%q must be a string", key)
	}
	return s, nil
}

package dataset

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
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
	f, err := openBounded(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	const want = "want a JSON list of {\"conversations\": [{\"value\": ...}, ...]} (ShareGPT)"
	lim := &rowLimiter{r: f}
	dec := json.NewDecoder(bufio.NewReaderSize(lim, 64<<10))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		if err == nil {
			err = fmt.Errorf("the file starts with %v", tok)
		}
		return nil, fileError(path, "%v: %s", err, want)
	}
	type turn struct {
		Value string `json:"value"`
	}
	var entry struct {
		Conversations []turn `json:"conversations"`
	}
	tok := o.tokenizer()
	s := newSampler(&o)
	twoTurns := false
	for dec.More() && !s.full() {
		lim.start = dec.InputOffset()
		entry.Conversations = entry.Conversations[:0]
		if err := dec.Decode(&entry); err != nil {
			if errors.Is(err, errRowTooLong) {
				return nil, fileError(path, "entry at byte %d: %v", lim.start, err)
			}
			return nil, fileError(path, "entry at byte %d: %v: %s", lim.start, err, want)
		}
		if len(entry.Conversations) < 2 {
			continue
		}
		twoTurns = true
		prompt, reply := entry.Conversations[0].Value, entry.Conversations[1].Value
		err := s.offer(func() (workload.Pair, bool, error) {
			in := tok.Count(prompt)
			out := o.OutputLen
			if out <= 0 {
				out = tok.Count(reply)
			}
			return workload.Pair{Input: in, Output: out}, validSequence(in, out, o.OutputLen > 0), nil
		})
		if err != nil {
			return nil, err
		}
	}
	if !s.full() {
		if _, err := dec.Token(); err != nil {
			return nil, fileError(path, "at byte %d: %v: %s", dec.InputOffset(), err, want)
		}
	}
	if !twoTurns {
		return nil, fileError(path, "no entry has two conversation turns (a prompt and a reply)")
	}
	pairs := s.pairs()
	if len(pairs) == 0 {
		return nil, fileError(path, "no conversation passes vLLM's filter (prompt and reply of 4 to 1024 tokens, 2048 together)")
	}
	return pairs, nil
}

// validSequence is vLLM's is_valid_sequence with its defaults.
func validSequence(in, out int, fixedOutput bool) bool {
	const minLen, maxPrompt, maxTotal = 4, 1024, 2048
	return in >= minLen && (fixedOutput || out >= minLen) && in <= maxPrompt && in+out <= maxTotal
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
	f, err := openBounded(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lim := &rowLimiter{r: f}
	r := csv.NewReader(bufio.NewReaderSize(lim, 64<<10))
	r.ReuseRecord = true
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
	s := newSampler(&o)
	for !s.full() {
		lim.start = r.InputOffset()
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fileError(path, "%v", err)
		}
		line, _ := r.FieldPos(0) // only after a record: FieldPos panics without one
		if len(rec) < 4 || len(rec) <= model {
			return nil, rowError(path, line, "%d columns, want at least %d (Timestamp, Model, Request tokens, Response tokens, as the header)", len(rec), max(4, model+1))
		}
		in, err1 := strconv.ParseFloat(strings.TrimSpace(rec[2]), 64)
		out, err2 := strconv.ParseFloat(strings.TrimSpace(rec[3]), 64)
		if err1 != nil || err2 != nil || !(in >= 0) || !(out >= 0) || in > workload.MaxTokens || out > workload.MaxTokens || in != math.Trunc(in) || out != math.Trunc(out) {
			return nil, rowError(path, line, "request tokens %q and response tokens %q must be whole numbers from 0 to %d", rec[2], rec[3], workload.MaxTokens)
		}
		if strings.TrimSpace(rec[model]) != "GPT-4" || out <= 0 {
			continue
		}
		if err := s.offer(func() (workload.Pair, bool, error) {
			return workload.Pair{Input: int(in), Output: int(out)}, true, nil
		}); err != nil {
			return nil, err
		}
	}
	rows := s.pairs()
	if len(rows) == 0 {
		return nil, fileError(path, "no row of model GPT-4 with a positive response (vLLM's filter)")
	}
	return rows, nil
}

// Custom reads vLLM's custom dataset: a .jsonl file, one {"prompt": text,
// "output_tokens": n} a line. The input is the prompt's token count; the
// output OutputLen, or each row's output_tokens when OutputLen is -1.
// Rows are shuffled and the first NumPrompts taken (every row when
// NumPrompts <= 0); Requests says how many requests they make.
func Custom(path string, o Options) ([]workload.Pair, error) {
	if !strings.EqualFold(filepath.Ext(path), ".jsonl") {
		return nil, fileError(path, "the custom dataset must be a .jsonl file (one {\"prompt\": ..., \"output_tokens\": ...} a line)")
	}
	return jsonLines(path, o, func(line int, obj map[string]json.RawMessage) (string, int, bool, error) {
		prompt, err := textField(obj, "prompt")
		if err != nil {
			return "", 0, false, rowError(path, line, "%v", err)
		}
		out := o.OutputLen
		if out < 0 {
			raw, ok := obj["output_tokens"]
			var n float64
			if !ok || json.Unmarshal(raw, &n) != nil || n < 1 || n != math.Trunc(n) || n > workload.MaxTokens {
				return "", 0, false, rowError(path, line, "output_tokens %s must be a whole number from 1 to %d with --custom-output-len -1", raw, workload.MaxTokens)
			}
			out = int(n)
		}
		return prompt, out, true, nil
	})
}

// SpecBench reads Spec-Bench's question.jsonl: the prompt is the first of
// each row's "turns", the output OutputLen tokens; category, when not
// empty, keeps only rows of that category. Sampled like Custom.
func SpecBench(path, category string, o Options) ([]workload.Pair, error) {
	return jsonLines(path, o, func(line int, obj map[string]json.RawMessage) (string, int, bool, error) {
		if category != "" {
			var c string
			if json.Unmarshal(obj["category"], &c) != nil || c != category {
				return "", 0, false, nil
			}
		}
		var turns []string
		if err := json.Unmarshal(obj["turns"], &turns); err != nil || len(turns) == 0 {
			return "", 0, false, rowError(path, line, "want \"turns\": a list of prompt strings")
		}
		return turns[0], o.OutputLen, true, nil
	})
}

// jsonLines reads a JSONL file row by row with row (a row's prompt and
// output tokens, or ok false to skip it), keeping NumPrompts rows (all
// when <= 0) as the sampler does; prompts are tokenized only for rows
// that enter the sample. Lines are at most MaxRowBytes.
func jsonLines(path string, o Options, row func(line int, obj map[string]json.RawMessage) (string, int, bool, error)) ([]workload.Pair, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if o.OutputLen == 0 {
		return nil, fileError(path, "no output length: give --output-len")
	}
	f, err := openBounded(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxRow)
	tok := o.tokenizer()
	s := newSampler(&o)
	line := 0
	for sc.Scan() && !s.full() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(text, &obj); err != nil {
			return nil, rowError(path, line, "not a JSON object: %v", err)
		}
		prompt, out, ok, err := row(line, obj)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if err := s.offer(func() (workload.Pair, bool, error) {
			return workload.Pair{Input: tok.Count(prompt), Output: out}, true, nil
		}); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, rowError(path, line+1, "the line exceeds %d bytes (MaxRowBytes, 64 MiB)", MaxRowBytes)
		}
		return nil, fileError(path, "%v", err)
	}
	pairs := s.pairs()
	if len(pairs) == 0 {
		return nil, fileError(path, "no usable row")
	}
	return pairs, nil
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

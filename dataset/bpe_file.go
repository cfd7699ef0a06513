package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// tokenizerFile is the part of a Hugging Face tokenizer.json that token
// counts depend on. Truncation, padding and the decoder do not change
// what tokenizer(prompt).input_ids counts.
type tokenizerFile struct {
	AddedTokens []struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
	} `json:"added_tokens"`
	Normalizer    *normalizerConfig    `json:"normalizer"`
	PreTokenizer  *preTokenizerConfig  `json:"pre_tokenizer"`
	PostProcessor *postProcessorConfig `json:"post_processor"`
	Model         struct {
		Type                    string         `json:"type"`
		Dropout                 *float64       `json:"dropout"`
		UnkToken                *string        `json:"unk_token"`
		ContinuingSubwordPrefix *string        `json:"continuing_subword_prefix"`
		EndOfWordSuffix         *string        `json:"end_of_word_suffix"`
		FuseUnk                 bool           `json:"fuse_unk"`
		IgnoreMerges            bool           `json:"ignore_merges"`
		Vocab                   map[string]int `json:"vocab"`
		Merges                  mergeList      `json:"merges"`
	} `json:"model"`
}

type normalizerConfig struct {
	Type        string             `json:"type"`
	Normalizers []normalizerConfig `json:"normalizers"`
}

type preTokenizerConfig struct {
	Type          string               `json:"type"`
	Pretokenizers []preTokenizerConfig `json:"pretokenizers"`
	// Split
	Pattern struct {
		Regex  *string `json:"Regex"`
		String *string `json:"String"`
	} `json:"pattern"`
	Behavior string `json:"behavior"`
	Invert   bool   `json:"invert"`
	// ByteLevel
	AddPrefixSpace bool  `json:"add_prefix_space"`
	UseRegex       *bool `json:"use_regex"`
}

type postProcessorConfig struct {
	Type       string                `json:"type"`
	Processors []postProcessorConfig `json:"processors"`
	// TemplateProcessing
	Single []struct {
		SpecialToken *struct {
			ID string `json:"id"`
		} `json:"SpecialToken"`
		Sequence *struct {
			ID string `json:"id"`
		} `json:"Sequence"`
	} `json:"single"`
	SpecialTokens map[string]struct {
		IDs []int `json:"ids"`
	} `json:"special_tokens"`
	// RobertaProcessing, BertProcessing: [token, id]
	Cls []json.RawMessage `json:"cls"`
	Sep []json.RawMessage `json:"sep"`
}

type (
	normalizer   func(string) string
	preTokenizer func(pieces []string) []string
)

// build checks the file describes a byte-level BPE and makes its BPE.
func (f *tokenizerFile) build() (*BPE, error) {
	m := &f.Model
	switch {
	case m.Type != "BPE" && !(m.Type == "" && m.Merges != nil):
		return nil, fmt.Errorf("model.type %q: servesim reads byte-level BPE tokenizers only (GPT-2, Llama 3, Qwen, DeepSeek)", m.Type)
	case len(m.Vocab) == 0:
		return nil, errors.New("model.vocab is empty")
	case m.Dropout != nil && *m.Dropout != 0:
		return nil, fmt.Errorf("model.dropout %v: BPE dropout is not supported", *m.Dropout)
	case m.ContinuingSubwordPrefix != nil && *m.ContinuingSubwordPrefix != "":
		return nil, fmt.Errorf("model.continuing_subword_prefix %q is not supported", *m.ContinuingSubwordPrefix)
	case m.EndOfWordSuffix != nil && *m.EndOfWordSuffix != "":
		return nil, fmt.Errorf("model.end_of_word_suffix %q is not supported", *m.EndOfWordSuffix)
	}
	t := &BPE{ignoreMerges: m.IgnoreMerges, fuseUnk: m.FuseUnk, unk: -1,
		vocab: make(map[string]int, len(m.Vocab)), merges: make(map[uint64]merge, len(m.Merges))}
	if m.UnkToken != nil {
		id, ok := m.Vocab[*m.UnkToken]
		if !ok {
			return nil, fmt.Errorf("model.unk_token %q is not in model.vocab", *m.UnkToken)
		}
		t.unk = id
	}
	for tok, id := range m.Vocab {
		if raw, ok := rawBytes(tok); ok {
			t.vocab[raw] = id
		}
	}
	for b := range t.byteID {
		t.byteID[b] = -1
		if id, ok := t.vocab[string([]byte{byte(b)})]; ok {
			t.byteID[b] = id
		}
	}
	for i, p := range m.Merges {
		ia, oka := m.Vocab[p[0]]
		ib, okb := m.Vocab[p[1]]
		id, ok := m.Vocab[p[0]+p[1]]
		if !oka || !okb || !ok {
			return nil, fmt.Errorf("model.merges[%d] %q %q: %q, %q and %q must all be in model.vocab", i, p[0], p[1], p[0], p[1], p[0]+p[1])
		}
		t.merges[pairKey(ia, ib)] = merge{rank: i, id: id}
	}
	// The vocabulary is the model's and the added tokens', by content,
	// as get_vocab_size(with_added_tokens=True).
	t.vocabSize = len(m.Vocab)
	var added []addedToken
	extra := map[string]bool{}
	for _, a := range f.AddedTokens {
		added = append(added, addedToken{content: a.Content, id: a.ID})
		if _, ok := m.Vocab[a.Content]; !ok && !extra[a.Content] {
			extra[a.Content] = true
			t.vocabSize++
		}
	}
	t.added = newAddedTokens(added)
	var err error
	if t.normalize, err = f.Normalizer.build(); err != nil {
		return nil, err
	}
	if f.PreTokenizer == nil {
		return nil, errors.New("pre_tokenizer is null: servesim reads byte-level BPE tokenizers only (a ByteLevel pre-tokenizer, as GPT-2, Llama 3, Qwen, DeepSeek); SentencePiece-style BPE (Llama 2, Mistral) is not supported")
	}
	byteLevel := false
	if t.pre, err = f.PreTokenizer.build(&byteLevel); err != nil {
		return nil, err
	}
	if !byteLevel {
		return nil, errors.New("pre_tokenizer has no ByteLevel: servesim reads byte-level BPE tokenizers only (GPT-2, Llama 3, Qwen, DeepSeek); SentencePiece-style BPE (Llama 2, Mistral) is not supported")
	}
	if t.prefix, t.suffix, err = f.PostProcessor.build(); err != nil {
		return nil, err
	}
	return t, nil
}

// mergeList is model.merges: a list of "a b" (older files) or of
// ["a", "b"].
type mergeList [][2]string

func (l *mergeList) UnmarshalJSON(data []byte) error {
	if listOfLists(data) {
		var pairs [][]string
		if err := json.Unmarshal(data, &pairs); err != nil {
			return errors.New(`model.merges: want a list of "a b" or of ["a", "b"]`)
		}
		*l = make(mergeList, len(pairs))
		for i, p := range pairs {
			if len(p) != 2 {
				return fmt.Errorf("model.merges[%d] %q: want [\"a\", \"b\"]", i, p)
			}
			(*l)[i] = [2]string{p[0], p[1]}
		}
		return nil
	}
	var lines []string
	if err := json.Unmarshal(data, &lines); err != nil {
		return errors.New(`model.merges: want a list of "a b" or of ["a", "b"]`)
	}
	*l = make(mergeList, len(lines))
	for i, s := range lines {
		a, b, ok := strings.Cut(s, " ")
		if !ok || a == "" || b == "" || strings.Contains(b, " ") {
			return fmt.Errorf("model.merges[%d] %q: want two symbols separated by one space", i, s)
		}
		(*l)[i] = [2]string{a, b}
	}
	return nil
}

// listOfLists says whether JSON data starts with two brackets.
func listOfLists(data []byte) bool {
	n := 0
	for _, c := range data {
		switch c {
		case ' ', '\t', '\r', '\n':
		case '[':
			if n++; n == 2 {
				return true
			}
		default:
			return false
		}
	}
	return false
}

func (c *normalizerConfig) build() ([]normalizer, error) {
	if c == nil {
		return nil, nil
	}
	switch c.Type {
	case "NFC":
		return []normalizer{norm.NFC.String}, nil
	case "NFD":
		return []normalizer{norm.NFD.String}, nil
	case "NFKC":
		return []normalizer{norm.NFKC.String}, nil
	case "NFKD":
		return []normalizer{norm.NFKD.String}, nil
	case "Lowercase":
		return []normalizer{strings.ToLower}, nil
	case "Sequence":
		var out []normalizer
		for i := range c.Normalizers {
			n, err := c.Normalizers[i].build()
			if err != nil {
				return nil, err
			}
			out = append(out, n...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("normalizer %q is not supported (NFC, NFD, NFKC, NFKD, Lowercase and Sequence are)", c.Type)
}

// build returns the pre-tokenizer's steps, setting *byteLevel when one is
// ByteLevel. ByteLevel must come last: the steps work on raw bytes, which
// it would turn into characters for any step after it.
func (c *preTokenizerConfig) build(byteLevel *bool) ([]preTokenizer, error) {
	if *byteLevel {
		return nil, fmt.Errorf("pre_tokenizer %q after ByteLevel is not supported", c.Type)
	}
	switch c.Type {
	case "Sequence":
		var out []preTokenizer
		for i := range c.Pretokenizers {
			p, err := c.Pretokenizers[i].build(byteLevel)
			if err != nil {
				return nil, err
			}
			out = append(out, p...)
		}
		return out, nil
	case "Split":
		var pattern string
		switch {
		case c.Pattern.Regex != nil:
			pattern = *c.Pattern.Regex
		case c.Pattern.String != nil:
			pattern = regexp.QuoteMeta(*c.Pattern.String)
		default:
			return nil, errors.New("pre_tokenizer Split without a pattern")
		}
		if c.Behavior != "Isolated" && c.Behavior != "Removed" {
			return nil, fmt.Errorf("pre_tokenizer Split behavior %q is not supported (Isolated and Removed are)", c.Behavior)
		}
		sp, err := newSplitter(pattern)
		if err != nil {
			return nil, fmt.Errorf("pre_tokenizer Split: %v", err)
		}
		removed, invert := c.Behavior == "Removed", c.Invert
		return []preTokenizer{func(pieces []string) []string {
			var out []string
			for _, p := range pieces {
				out = sp.split(p, removed, invert, out)
			}
			return out
		}}, nil
	case "ByteLevel":
		*byteLevel = true
		addPrefix := c.AddPrefixSpace
		var sp *splitter
		if c.UseRegex == nil || *c.UseRegex {
			var err error
			if sp, err = newSplitter(gpt2Pattern); err != nil {
				panic(err) // a constant pattern
			}
		}
		return []preTokenizer{func(pieces []string) []string {
			out := pieces[:0:0]
			for _, p := range pieces {
				if p == "" {
					continue // Hugging Face prepends to no empty text
				}
				if addPrefix && !strings.HasPrefix(p, " ") {
					p = " " + p
				}
				if sp == nil {
					out = append(out, p)
					continue
				}
				out = sp.split(p, false, false, out)
			}
			return out
		}}, nil
	}
	return nil, fmt.Errorf("pre_tokenizer %q is not supported (ByteLevel, Split and Sequence are)", c.Type)
}

// build returns the ids the post-processor puts before and after the text
// of a single sequence.
func (c *postProcessorConfig) build() (prefix, suffix []int, err error) {
	if c == nil {
		return nil, nil, nil
	}
	switch c.Type {
	case "ByteLevel":
		return nil, nil, nil
	case "Sequence":
		for i := range c.Processors {
			p, s, err := c.Processors[i].build()
			if err != nil {
				return nil, nil, err
			}
			prefix = append(p, prefix...)
			suffix = append(suffix, s...)
		}
		return prefix, suffix, nil
	case "TemplateProcessing":
		seen := false
		for _, item := range c.Single {
			switch {
			case item.Sequence != nil:
				seen = true
			case item.SpecialToken != nil:
				tok, ok := c.SpecialTokens[item.SpecialToken.ID]
				if !ok {
					return nil, nil, fmt.Errorf("post_processor: special token %q of the single template is not in special_tokens", item.SpecialToken.ID)
				}
				if seen {
					suffix = append(suffix, tok.IDs...)
				} else {
					prefix = append(prefix, tok.IDs...)
				}
			}
		}
		return prefix, suffix, nil
	case "RobertaProcessing", "BertProcessing":
		cls, err1 := tokenID(c.Cls)
		sep, err2 := tokenID(c.Sep)
		if err := errors.Join(err1, err2); err != nil {
			return nil, nil, fmt.Errorf("post_processor %s: %v", c.Type, err)
		}
		return []int{cls}, []int{sep}, nil
	}
	return nil, nil, fmt.Errorf("post_processor %q is not supported (TemplateProcessing, RobertaProcessing, BertProcessing, ByteLevel and Sequence are)", c.Type)
}

// tokenID reads the id of a [token, id] pair.
func tokenID(pair []json.RawMessage) (int, error) {
	var id int
	if len(pair) != 2 || json.Unmarshal(pair[1], &id) != nil {
		return 0, errors.New("want cls and sep as [token, id]")
	}
	return id, nil
}

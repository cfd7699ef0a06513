package plan

import (
	"fmt"
	"strings"
	"unicode"
)

// WithServedName returns line, one or more `vllm serve` and `vllm bench
// serve` command lines (newline-separated, as a P/D deployment's), with
// `--served-model-name name` after the model of each: the checkpoint a
// server loads stays its positional argument, and a client keeps --model
// as the checkpoint its tokenizer comes from while it sends name as the
// API's model, as vLLM's bench client does. Other lines (a P/D proxy's)
// and an empty name leave line as it is.
func WithServedName(line, name string) string {
	if name == "" {
		return line
	}
	lines := strings.Split(line, "\n")
	for i, l := range lines {
		lines[i] = servedNameLine(l, name)
	}
	return strings.Join(lines, "\n")
}

// servedNameLine puts --served-model-name after the model of one line.
func servedNameLine(l, name string) string {
	lead := l[:len(l)-len(strings.TrimLeft(l, " "))]
	words := strings.Split(l[len(lead):], " ")
	at := -1
	switch {
	case len(words) >= 3 && words[0] == "vllm" && words[1] == "serve":
		at = 3 // vllm serve CHECKPOINT
	case len(words) >= 5 && words[0] == "vllm" && words[1] == "bench" && words[2] == "serve" && words[3] == "--model":
		at = 5 // vllm bench serve --model CHECKPOINT
	}
	if at < 0 {
		return l
	}
	out := append(append(words[:at:at], "--served-model-name", name), words[at:]...)
	return lead + strings.Join(out, " ")
}

// ValidateServedName checks a --served-model-name for the command lines:
// a name with white space, quotes or other characters a shell reads
// cannot be printed in them unquoted.
func ValidateServedName(name string) error {
	for _, r := range name {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) || strings.ContainsRune(`'"$\`+"`"+`;&|<>()*?#~!{}[]`, r) {
			return fmt.Errorf("%w: served_model_name %q: the character %q cannot stand unquoted in a vllm command line; use letters, digits and - _ . / : @ +", ErrInvalid, name, r)
		}
	}
	return nil
}

package dataset

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// gpt2Pattern is the pre-tokenizer regex of GPT-2, which a ByteLevel
// pre-tokenizer with use_regex applies.
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

// lookaheadTail ends the patterns of GPT-2, Llama 3, Qwen and tiktoken: a
// whitespace run that does not run into a non-space, else any run. Go's
// regexp has no look-ahead; splitter emulates it.
const lookaheadTail = `\s+(?!\S)|\s+`

// whiteSpace is the class body of Unicode White_Space, what \s matches in
// the Oniguruma regexes of tokenizer.json (Go's \s is ASCII only).
var whiteSpace = func() string {
	var b strings.Builder
	add := func(lo, hi, stride uint32) {
		if stride == 1 {
			fmt.Fprintf(&b, `\x{%X}-\x{%X}`, lo, hi)
			return
		}
		for r := lo; r <= hi; r += stride {
			fmt.Fprintf(&b, `\x{%X}`, r)
		}
	}
	for _, r := range unicode.White_Space.R16 {
		add(uint32(r.Lo), uint32(r.Hi), uint32(r.Stride))
	}
	for _, r := range unicode.White_Space.R32 {
		add(r.Lo, r.Hi, r.Stride)
	}
	return b.String()
}()

// wordChars is the class body of Oniguruma's Unicode \w.
const wordChars = `\p{L}\p{M}\p{Nd}\p{Pc}`

// A splitter finds the matches of a tokenizer.json regex in text.
type splitter struct {
	re *regexp.Regexp
	ws int // submatch of the final \s+ when the pattern ends in lookaheadTail, else -1
}

// newSplitter compiles an Oniguruma pattern of tokenizer.json for Go.
func newSplitter(pattern string) (*splitter, error) {
	core, tail := pattern, false
	if rest, ok := strings.CutSuffix(pattern, lookaheadTail); ok && (rest == "" || strings.HasSuffix(rest, "|") && !strings.HasSuffix(rest, `\|`)) {
		core, tail = rest, true
	}
	goRE, err := translateRegex(core)
	if err != nil {
		return nil, fmt.Errorf("regex %q: %v", pattern, err)
	}
	if tail {
		goRE += `(?P<trailingspace>[` + whiteSpace + `]+)`
	}
	re, err := regexp.Compile(goRE)
	if err != nil {
		return nil, fmt.Errorf("regex %q: %v (Go's regexp has no look-around but the %s that ends GPT-2-style patterns)", pattern, err, lookaheadTail)
	}
	s := &splitter{re: re, ws: -1}
	if tail {
		s.ws = re.SubexpIndex("trailingspace")
	}
	return s, nil
}

// translateRegex rewrites the classes whose meaning differs between
// Oniguruma (Unicode) and Go (ASCII): \s, \S, \d, \D, \w, \W. It rejects
// anchors, which splitter's matching of suffixes would move.
func translateRegex(p string) (string, error) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			i++
			e := p[i]
			var in, out string // replacement inside and outside a [class]
			switch e {
			case 's':
				in, out = whiteSpace, "["+whiteSpace+"]"
			case 'S':
				out = "[^" + whiteSpace + "]"
			case 'd':
				in, out = `\p{Nd}`, `\p{Nd}`
			case 'D':
				out = `\P{Nd}`
			case 'w':
				in, out = wordChars, "["+wordChars+"]"
			case 'W':
				out = "[^" + wordChars + "]"
			case 'b', 'B', 'A', 'z', 'Z', 'G':
				return "", fmt.Errorf(`the anchor \%c is not supported`, e)
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			if inClass && in == "" {
				return "", fmt.Errorf(`\%c inside [...] is not supported`, e)
			}
			if inClass {
				b.WriteString(in)
			} else {
				b.WriteString(out)
			}
			continue
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			// A ] first in the class (after an optional ^) is a literal.
			if i+1 < len(p) && p[i+1] == '^' {
				i++
				b.WriteByte('^')
			}
			if i+1 < len(p) && p[i+1] == ']' {
				i++
				b.WriteString(`\]`)
			}
			continue
		case c == '[' && inClass:
			return "", errors.New("nested [...] classes are not supported")
		case c == ']' && inClass:
			inClass = false
		case (c == '^' || c == '$') && !inClass:
			return "", fmt.Errorf("the anchor %c is not supported", c)
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

// Windows of text the regex is run on, in bytes: the first, and the
// margin a match must leave before a window's end to be accepted.
// Go's backtracking matcher clears a bitmap the size of its whole input
// on every call, so matching piece by piece in the remaining text would
// take time quadratic in its length.
const (
	firstWindow  = 256
	windowMargin = 16
)

// matches calls fn with the byte range of each match in s, left to right,
// as Oniguruma finds them: where the pattern's final \s+ alternative
// matched a run that a non-space follows, \s+(?!\S) would have matched all
// of it but its last character, which starts the next match.
//
// Each match is sought in a window of s from where the last one ended,
// doubled until the match ends windowMargin bytes before the window's end
// (or the window reaches the end of s). That gives the match the whole of
// s would when an alternative that fails does so within windowMargin bytes
// of where the chosen one ends, as in the patterns of GPT-2, Llama 3, Qwen
// and DeepSeek: their alternatives are runs of classes that fail within a
// few characters ('ll, a letter after a prefix) or run at least as far as
// the alternative that wins (\s*[\r\n]+ and \s+).
func (sp *splitter) matches(s string, fn func(lo, hi int)) {
	sp.matchesIn(s, firstWindow, windowMargin, fn)
}

func (sp *splitter) matchesIn(s string, window, margin int, fn func(lo, hi int)) {
	for pos := 0; pos < len(s); {
		var m []int
		end := pos
		for w := window; ; w *= 2 {
			end = min(len(s), pos+w)
			m = sp.re.FindStringSubmatchIndex(s[pos:end])
			if end == len(s) || m != nil && pos+m[1]+margin <= end {
				break
			}
		}
		if m == nil {
			return
		}
		lo, hi := pos+m[0], pos+m[1]
		if sp.ws >= 0 && m[2*sp.ws] >= 0 && hi < len(s) {
			if _, size := utf8.DecodeLastRuneInString(s[lo:hi]); hi-size > lo {
				hi -= size
			}
		}
		if hi == lo { // an empty match splits nothing
			_, size := utf8.DecodeRuneInString(s[hi:])
			pos = hi + size
			continue
		}
		fn(lo, hi)
		pos = hi
	}
}

// split cuts s into the pieces of a Split pre-tokenizer: the matches and
// the text between them (Isolated), or only the text between (Removed);
// invert swaps the roles of matches and the text between.
func (sp *splitter) split(s string, removed, invert bool, out []string) []string {
	keep := func(piece string, isMatch bool) {
		if piece != "" && (!removed || isMatch == invert) {
			out = append(out, piece)
		}
	}
	last := 0
	sp.matches(s, func(lo, hi int) {
		keep(s[last:lo], false)
		keep(s[lo:hi], true)
		last = hi
	})
	keep(s[last:], false)
	return out
}

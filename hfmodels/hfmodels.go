// Package hfmodels is servesim's registry of Hugging Face model
// architectures: for each public checkpoint id (such as
// "Qwen/Qwen2.5-7B-Instruct") the fields of its published config.json
// that the cost model reads, kept as data (models.json, embedded) with the
// file they came from.
//
// Each entry's config is a trimmed config.json: the fields
// cost.ParseHFConfig reads (shape, mixture-of-experts and MLA fields,
// sliding windows, context length keys and rope_scaling, torch_dtype,
// quantization_config) and the vision tower's size (vision_config), as the
// checkpoint publishes them; a quantization_config's lists of skipped
// modules keep one attention entry, all the cost model reads. Nothing in
// the file is derived or guessed: an entry whose config was transcribed
// from a family's shared architecture says so in its source.
//
// Lookup resolves an id: exactly, case-insensitively; then by the alias
// rules of Aliases (Meta's renamed Llama ids, Hugging Face URLs, a trailing
// slash or revision). An unknown id is an error naming the three nearest
// ids and how to pass a config.json instead.
//
// This package is the single home of Hugging Face ids in servesim: the
// scenario's --model resolution, calibrate's model lookup and plan's
// `vllm serve` commands all read it.
package hfmodels

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/internal/nearest"
)

//go:embed models.json
var registryJSON []byte

// ErrUnknown is matched by the error of Lookup for an id the registry does
// not hold.
var ErrUnknown = errors.New("hfmodels: unknown model id")

// Entry is one checkpoint of the registry.
type Entry struct {
	// ID is the Hugging Face repository id, as the hub spells it.
	ID string `json:"id"`
	// Source names the published file the config was taken from (the
	// checkpoint's config.json, and the copy it was read from).
	Source string `json:"source"`
	// Revision is the hub commit of the config, where known ("" when the
	// copy does not record it).
	Revision string `json:"revision,omitempty"`
	// Catalog is the cost catalog model (cost.Model) of the same
	// architecture, "" for none.
	Catalog string `json:"catalog,omitempty"`
	// Instruct is the id of the instruction-tuned sibling a deployment
	// serves, when it differs from ID and shares the architecture.
	Instruct string `json:"instruct,omitempty"`
	// Config is the trimmed config.json.
	Config json.RawMessage `json:"config"`
}

// Model returns the entry's architecture as cost.ParseHFConfig reads its
// config, named by its id.
func (e Entry) Model() (cost.ModelSpec, error) {
	m, err := cost.ParseHFConfig(e.Config, e.ID)
	if err != nil {
		return m, fmt.Errorf("hfmodels: %s (from %s): %w", e.ID, e.Source, err)
	}
	return m, nil
}

var (
	loadOnce sync.Once
	entries  []Entry
	byID     map[string]int // lower-case id → index in entries
	loadErr  error
)

func load() {
	dec := json.NewDecoder(bytes.NewReader(registryJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&entries); err != nil {
		loadErr = fmt.Errorf("hfmodels: models.json: %w", err)
		return
	}
	byID = make(map[string]int, len(entries))
	for i, e := range entries {
		k := strings.ToLower(e.ID)
		if _, dup := byID[k]; dup {
			loadErr = fmt.Errorf("hfmodels: models.json: id %s is listed twice", e.ID)
			return
		}
		byID[k] = i
	}
}

func registry() ([]Entry, error) {
	loadOnce.Do(load)
	return entries, loadErr
}

// Entries returns every entry, sorted by id case-insensitively. The slice
// is a copy.
func Entries() []Entry {
	es, err := registry()
	if err != nil {
		panic(err) // the embedded file is checked by the tests
	}
	return slices.Clone(es)
}

// Aliases returns the ids under which id may be registered, most specific
// first, all lower-case:
//
//   - id itself, trimmed of spaces, of a "https://huggingface.co/" (or
//     "hf.co/") prefix, and of a trailing "/" or "@revision" or
//     "/tree/<revision>";
//   - Meta's renamed Llama ids: meta-llama/Llama-3.1-8B is
//     meta-llama/Meta-Llama-3.1-8B, and back.
func Aliases(id string) []string {
	k := strings.ToLower(strings.TrimSpace(id))
	for _, p := range []string{"https://", "http://", "huggingface.co/", "hf.co/"} {
		k = strings.TrimPrefix(k, p)
	}
	if i := strings.Index(k, "/tree/"); i >= 0 {
		k = k[:i]
	}
	if i := strings.LastIndex(k, "@"); i > 0 {
		k = k[:i]
	}
	k = strings.TrimRight(k, "/")
	out := []string{k}
	if org, name, ok := strings.Cut(k, "/"); ok && org == "meta-llama" {
		if n, ok := strings.CutPrefix(name, "meta-"); ok {
			out = append(out, org+"/"+n)
		} else {
			out = append(out, org+"/meta-"+name)
		}
	}
	return out
}

// Lookup returns the entry of id: the exact id, case-insensitively, then
// the alias rules of Aliases. An unknown id is an error matching
// ErrUnknown that names the three nearest ids and says how to pass the
// checkpoint's config.json instead.
func Lookup(id string) (Entry, error) {
	es, err := registry()
	if err != nil {
		return Entry{}, err
	}
	if e, ok := find(id); ok {
		return e, nil
	}
	return Entry{}, fmt.Errorf("%w: %q is not in servesim's registry of %d checkpoints (nearest: %s); "+
		"pass its config.json instead: --model DIR (a directory holding config.json) or --model FILE.json, "+
		"or list the registry with `servesim models`",
		ErrUnknown, id, len(es), strings.Join(Nearest(id, 3), ", "))
}

// find returns the entry of id by the exact id and the alias rules.
func find(id string) (Entry, bool) {
	es, err := registry()
	if err != nil {
		return Entry{}, false
	}
	for _, a := range Aliases(id) {
		if i, ok := byID[a]; ok {
			return es[i], true
		}
	}
	return Entry{}, false
}

// Nearest returns the n registry ids closest to id: first the names id's
// name begins with (a registered name with a suffix added, as
// "Qwen3-14B-Chatty" is Qwen3-14B's), then by edit distance between the
// lower-cased names (the part after the organization), ties broken by the
// whole id's distance and then by id.
func Nearest(id string, n int) []string {
	es, err := registry()
	if err != nil || n <= 0 {
		return nil
	}
	q := Aliases(id)[0]
	qname := q[strings.LastIndex(q, "/")+1:]
	type scored struct {
		id         string
		prefix     bool // qname begins with the entry's name
		name, full int
	}
	all := make([]scored, len(es))
	for i, e := range es {
		k := strings.ToLower(e.ID)
		n := k[strings.LastIndex(k, "/")+1:]
		all[i] = scored{e.ID, strings.HasPrefix(qname, n), nearest.EditDistance(qname, n), nearest.EditDistance(q, k)}
	}
	slices.SortFunc(all, func(a, b scored) int {
		if a.prefix != b.prefix {
			if a.prefix {
				return -1
			}
			return 1
		}
		if a.name != b.name {
			return a.name - b.name
		}
		if a.full != b.full {
			return a.full - b.full
		}
		return strings.Compare(a.id, b.id)
	})
	out := make([]string, 0, n)
	for i := 0; i < n && i < len(all); i++ {
		out = append(out, all[i].id)
	}
	return out
}

// ForCatalog returns the id a deployment of the cost catalog model name
// serves: the instruct sibling of the registry entry of that architecture
// when it has one, else its id; ok is false when no entry has the catalog
// name.
func ForCatalog(name string) (id string, ok bool) {
	es, err := registry()
	if err != nil {
		return "", false
	}
	for _, e := range es {
		if e.Catalog == name {
			if e.Instruct != "" {
				return e.Instruct, true
			}
			return e.ID, true
		}
	}
	return "", false
}

// CatalogFor returns the cost catalog model of id's architecture: the
// catalog name of its entry, or of the entry whose instruct sibling it is;
// ok is false when there is none.
func CatalogFor(id string) (name string, ok bool) {
	es, err := registry()
	if err != nil {
		return "", false
	}
	keys := Aliases(id)
	for _, e := range es {
		if e.Catalog == "" {
			continue
		}
		for _, k := range keys {
			if strings.ToLower(e.ID) == k || strings.ToLower(e.Instruct) == k {
				return e.Catalog, true
			}
		}
	}
	return "", false
}

// quantSuffixes are the name suffixes of quantized repackagings of a
// checkpoint, longest first, with the vLLM --quantization each implies.
var quantSuffixes = []struct{ suffix, quant string }{
	{"-fp8-dynamic", "fp8"}, {"-fp8-static", "fp8"}, {"-fp8", "fp8"},
	{"-gptq-int4", "gptq"}, {"-gptq-int8", "gptq"}, {"-gptq", "gptq"}, {"-awq", "awq"},
	{"-quantized.w4a16", "gptq"}, {"-quantized.w8a8", "int8"}, {"-w4a16", "gptq"}, {"-w8a8", "int8"}, {"-int4", "gptq"}, {"-int8", "int8"},
	{"-nvfp4", "nvfp4"}, {"-fp4", "nvfp4"}, {"-mxfp4", "mxfp4"},
}

// Resolve returns the entry of id as Lookup finds it; else, for a copy of
// a registered checkpoint under another organization or a local path that
// does not exist ("unsloth/Qwen3-8B", "/models/Qwen3-8B"), the entry of the
// same name (the last path element, case-insensitively); else the entry a
// quantized repackaging of a registered checkpoint names:
// an id whose name is a registered checkpoint's name followed by a
// quantization suffix (-FP8, -FP8-dynamic, -AWQ, -GPTQ-Int4, -W4A16,
// -W8A8, -NVFP4, -MXFP4 and the like), under any organization
// ("RedHatAI/Qwen3-14B-FP8-dynamic" is Qwen/Qwen3-14B), with the vLLM
// --quantization its suffix implies in quant ("" for an entry found by
// Lookup, whose config carries its own quantization). The checkpoint of the
// same organization is preferred; among several organizations the first id
// in registry order. The error is Lookup's.
func Resolve(id string) (e Entry, quant string, err error) {
	if e, ok := find(id); ok {
		return e, "", nil
	}
	k := Aliases(id)[0]
	org, name := "", k[strings.LastIndex(k, "/")+1:]
	if strings.Count(k, "/") == 1 {
		org = k[:strings.Index(k, "/")]
	}
	if f, ok := byName(org, name); ok && strings.Contains(k, "/") {
		return f, "", nil
	}
	for _, q := range quantSuffixes {
		base, ok := strings.CutSuffix(name, q.suffix)
		if !ok || base == "" {
			continue
		}
		if f, ok := byName(org, base); ok {
			return f, q.quant, nil
		}
	}
	_, err = Lookup(id)
	return Entry{}, "", err
}

// byName returns the entry whose name (the id after the organization) is
// name, case-insensitively, preferring organization org.
func byName(org, name string) (Entry, bool) {
	es, _ := registry()
	var found *Entry
	for i := range es {
		k := strings.ToLower(es[i].ID)
		o, n, _ := strings.Cut(k, "/")
		if n != name {
			continue
		}
		if o == org {
			return es[i], true
		}
		if found == nil {
			found = &es[i]
		}
	}
	if found == nil {
		return Entry{}, false
	}
	return *found, true
}

// Summary is one registry entry as `servesim models` lists it.
type Summary struct {
	ID        string
	Params    float64 // total parameters (cost.ModelSpec.TotalParams)
	Layers    int
	Context   int    // vLLM's default max_model_len, tokens
	Precision string // the weights' precision; with the routed experts' when it differs ("bf16, experts mxfp4")
	Source    string
}

// Summaries returns every entry's summary, in registry order.
func Summaries() ([]Summary, error) {
	es, err := registry()
	if err != nil {
		return nil, err
	}
	out := make([]Summary, 0, len(es))
	for _, e := range es {
		m, err := e.Model()
		if err != nil {
			return nil, err
		}
		p := m.GEMM.String()
		if m.ExpertWeightBytes > 0 && m.ExpertGEMM != m.GEMM {
			p += ", experts " + m.ExpertGEMM.String()
		}
		out = append(out, Summary{ID: e.ID, Params: m.TotalParams(), Layers: m.Layers, Context: m.MaxContext, Precision: p, Source: e.Source})
	}
	return out, nil
}

package calibrate

import (
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/servesim/servesim/cost"
)

// LoadModel returns the spec of the model with Hugging Face id id (such as
// Qwen/Qwen3-32B), read by cost.LoadHFConfig from its config.json in dir:
// the file <org>--<name>.json (the layout of shared/data/model_configs) or
// <org>/<name>/config.json, the names compared case-insensitively. Meta's
// renamed ids are the same model (meta-llama/Llama-3.1-70B is
// meta-llama/Meta-Llama-3.1-70B), and an "-Instruct" suffix, which changes
// the weights but not the architecture, is tried without it. When dir is
// "" or holds no config for id, a dense model of the cost catalog is
// returned by its id (Llama 3.1 8B/70B/405B, Qwen2.5 7B/72B, Mistral 7B),
// and a few models the shared data files measure from the configs this
// package embeds (Qwen3-14B).
// The precision is the checkpoint's, as its config says (see Served).
//
// The error matches ErrInvalid when no config or catalog model is found,
// and names the file when its config does not load.
func LoadModel(dir, id string) (cost.ModelSpec, error) {
	if dir != "" {
		path, err := findConfig(dir, id)
		if err != nil {
			return cost.ModelSpec{}, err
		}
		if path != "" {
			m, err := cost.LoadHFConfig(path)
			if err != nil {
				return cost.ModelSpec{}, fmt.Errorf("%w: model %s: %w", ErrInvalid, id, err)
			}
			return m, nil
		}
	}
	for _, c := range modelAliases(id) {
		if name, ok := catalogModels[c]; ok {
			return cost.Model(name)
		}
		if data, err := embeddedConfigs.ReadFile("configs/" + strings.ReplaceAll(c, "/", "--") + ".json"); err == nil {
			return cost.ParseHFConfig(data, id)
		}
	}
	where := "no model directory"
	if dir != "" {
		where = "no config in " + dir
	}
	return cost.ModelSpec{}, invalidf("model %s: %s and no catalog model", id, where)
}

// embeddedConfigs holds the config.json of models that a shared data file
// measures but neither shared/data/model_configs nor the cost catalog
// holds, named <org>--<name>.json in lower case: Qwen3-14B
// (huggingface.co/Qwen/Qwen3-14B/blob/main/config.json), which
// public_serving_runs.csv runs.
//
//go:embed configs/*.json
var embeddedConfigs embed.FS

// catalogModels maps lower-case Hugging Face ids to cost catalog models.
var catalogModels = map[string]string{
	"meta-llama/llama-3.1-8b": "llama-3.1-8b", "meta-llama/llama-3.1-70b": "llama-3.1-70b",
	"meta-llama/llama-3.1-405b": "llama-3.1-405b", "qwen/qwen2.5-7b": "qwen2.5-7b",
	"qwen/qwen2.5-72b": "qwen2.5-72b", "mistralai/mistral-7b-v0.1": "mistral-7b",
}

// modelAliases returns the lower-case ids under which id's architecture
// may be filed: itself, without "-instruct" (or Qwen's dated
// "-instruct-2507" and "-thinking-2507", the same architecture), and
// Meta's renamed form.
func modelAliases(id string) []string {
	key := strings.ToLower(strings.TrimSpace(id))
	out := []string{key}
	for _, suffix := range []string{"-instruct", "-instruct-2507", "-thinking-2507"} {
		if k := strings.TrimSuffix(key, suffix); k != key {
			out = append(out, k)
		}
	}
	for _, k := range out {
		org, name, ok := strings.Cut(k, "/")
		if !ok || org != "meta-llama" {
			continue
		}
		if n, ok := strings.CutPrefix(name, "meta-"); ok {
			out = append(out, org+"/"+n)
		} else {
			out = append(out, org+"/meta-"+name)
		}
	}
	return out
}

// ConfigPath returns the path of the config.json of the model with Hugging
// Face id id in dir, found as LoadModel finds it (the <org>--<name>.json
// and <org>/<name>/config.json layouts, case-insensitively, with Meta's
// renamed ids and without an "-Instruct" suffix), or "" when dir holds
// none. The error matches ErrInvalid when dir cannot be read.
func ConfigPath(dir, id string) (string, error) { return findConfig(dir, id) }

// findConfig returns the path of id's config in dir, or "" when there is
// none.
func findConfig(dir, id string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("%w: model directory: %w", ErrInvalid, err)
	}
	files := map[string]string{}
	for _, e := range entries {
		files[strings.ToLower(e.Name())] = e.Name()
	}
	for _, a := range modelAliases(id) {
		org, name, ok := strings.Cut(a, "/")
		if !ok {
			continue
		}
		if f, ok := files[org+"--"+name+".json"]; ok {
			return filepath.Join(dir, f), nil
		}
		if o, ok := files[org]; ok {
			sub, err := os.ReadDir(filepath.Join(dir, o))
			if err != nil {
				continue
			}
			for _, e := range sub {
				if strings.ToLower(e.Name()) != name {
					continue
				}
				p := filepath.Join(dir, o, e.Name(), "config.json")
				if _, err := os.Stat(p); err == nil {
					return p, nil
				} else if !errors.Is(err, os.ErrNotExist) {
					return "", fmt.Errorf("%w: %w", ErrInvalid, err)
				}
			}
		}
	}
	return "", nil
}

// Served returns m as a deployment with weight precision precision (a
// cost.ParsePrecision name, such as a point's Precision) runs it,
// cost.ModelSpec.Quantized: a checkpoint already of that family of formats
// as its config says (gpt-oss's MXFP4 experts stay MXFP4 when a row says
// fp4); a mixture-of-experts model in fp4 as NVIDIA's NVFP4 checkpoint of
// it, with only the routed experts quantized; any other 16-bit checkpoint
// with its linear layers quantized (the embedding and LM head keep 16
// bits). A quantized checkpoint cannot be served in 16 bits. The KV cache
// keeps the model's 16-bit type (vLLM's --kv-cache-dtype auto).
func Served(m cost.ModelSpec, precision string) (cost.ModelSpec, error) {
	p, err := cost.ParsePrecision(precision)
	if err != nil {
		return cost.ModelSpec{}, fmt.Errorf("%w: model %s: %w", ErrInvalid, m.Name, err)
	}
	if have := m.Stored(); have.Family() != cost.BF16 && p.Family() == cost.BF16 {
		return cost.ModelSpec{}, invalidf("model %s: the checkpoint is %s; serving it in %s is not modelled", m.Name, have, p)
	}
	m = m.Quantized(p)
	return m, m.Validate()
}

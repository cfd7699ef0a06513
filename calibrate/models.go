package calibrate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/hfmodels"
)

// LoadModel returns the spec of the model with Hugging Face id id (such as
// Qwen/Qwen3-32B), read by cost.LoadHFConfig from its config.json in dir:
// the file <org>--<name>.json (the layout of shared/data/model_configs) or
// <org>/<name>/config.json, the names compared case-insensitively. Meta's
// renamed ids are the same model (meta-llama/Llama-3.1-70B is
// meta-llama/Meta-Llama-3.1-70B), and an "-Instruct" suffix, which changes
// the weights but not the architecture, is tried without it. When dir is
// "" or holds no config for id, the model is servesim's registry entry of
// id (hfmodels.Resolve, without a quantized repackaging's implied
// precision), else the cost catalog model whose registry entry names id
// as its instruct checkpoint (hfmodels.CatalogFor).
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
	if e, quant, err := hfmodels.Resolve(id); err == nil && quant == "" {
		return e.Model()
	}
	if name, ok := hfmodels.CatalogFor(id); ok {
		return cost.Model(name)
	}
	where := "no model directory"
	if dir != "" {
		where = "no config in " + dir
	}
	return cost.ModelSpec{}, invalidf("model %s: %s and no catalog model", id, where)
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

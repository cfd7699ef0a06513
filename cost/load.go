package cost

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// LoadModel reads a ModelSpec from a JSON (.json) or YAML (.yaml, .yml) file
// whose keys are the struct's snake_case tags, rejects unknown keys, and
// validates the result.
//
//	name: my-13b
//	hidden: 5120
//	intermediate: 13824
//	layers: 40
//	heads: 40
//	kv_heads: 40
//	head_dim: 128
//	vocab: 32000
//	weight_bytes: 2
//	kv_bytes: 2
//	act_bytes: 2
func LoadModel(path string) (ModelSpec, error) {
	var m ModelSpec
	if err := decodeFile(path, &m); err != nil {
		return ModelSpec{}, err
	}
	if err := m.Validate(); err != nil {
		return ModelSpec{}, within(path, err)
	}
	return m, nil
}

// LoadGPU reads a GPUSpec from a JSON (.json) or YAML (.yaml, .yml) file
// whose keys are the struct's snake_case tags, rejects unknown keys, and
// validates the result.
//
//	name: my-gpu
//	memory_bytes: 34359738368
//	bandwidth_bytes_per_s: 1.0e12
//	peak_flops: {bf16: 2.0e14}
//	all_reduce:
//	  - {ranks: 0, alpha_s: 2.0e-5, bus_bandwidth_bytes_per_s: 5.0e10}
func LoadGPU(path string) (GPUSpec, error) {
	var g GPUSpec
	if err := decodeFile(path, &g); err != nil {
		return GPUSpec{}, err
	}
	if err := g.Validate(); err != nil {
		return GPUSpec{}, within(path, err)
	}
	return g, nil
}

func decodeFile(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".json":
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		err = dec.Decode(v)
	case ".yaml", ".yml":
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		err = dec.Decode(v)
		if errors.Is(err, io.EOF) {
			err = errors.New("empty document")
		}
	default:
		return invalidf("%s: extension %q must be .json, .yaml or .yml", path, ext)
	}
	if err != nil {
		return invalidf("%s: %v", path, err)
	}
	return nil
}

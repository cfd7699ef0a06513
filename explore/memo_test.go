package explore

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// TestBenchConfigMemo checks that Bench's reuse of the last request's
// config (benchConfig) changes no byte: each request's sweep points, run
// in turn so that every call after the first reuses the config, against
// the same points each built afresh (the memo emptied before each call),
// and each reused sim.Config against a fresh Scenario.Config but for its
// server, compared by its JSON.
func TestBenchConfigMemo(t *testing.T) {
	base := modelChange()
	var reqs []Request
	add := func(f func(r *Request)) {
		r := base
		r.PlanGPUs = append([]string(nil), base.PlanGPUs...)
		f(&r)
		reqs = append(reqs, r)
	}
	add(func(r *Request) {})
	add(func(r *Request) { r.Model = Default().Model })
	add(func(r *Request) { r.TP, r.Replicas, r.MaxNumSeqs = 2, 2, 64 })
	add(func(r *Request) { r.Burstiness, r.RangeRatio, r.Seed = 2.5, 0.3, 9 })
	add(func(r *Request) { r.NoChunkedPrefill, r.NoPrefixCaching, r.Prompts, r.Warmups = true, true, 120, 10 })
	add(func(r *Request) { r.Dataset = Datasets()[0] })
	add(func(r *Request) { r.GPU, r.TTFT, r.TPOT, r.E2EL = "l40s", 0, 0, 30000 })
	type load struct {
		rate    float64
		clients int
	}
	loads := []load{{rate: 4}, {rate: 11.5}, {clients: 1}, {rate: 30}, {clients: 8}, {clients: 64}, {rate: 0.7}}
	point := func(r Request, l load) string {
		p, err := Bench(r, l.rate, l.clients)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for i, r := range reqs {
		fresh := make([]string, len(loads))
		for j, l := range loads {
			benchConfigs.Lock()
			benchConfigs.key = ""
			benchConfigs.Unlock()
			fresh[j] = point(r, l)
		}
		for j, l := range loads {
			if got := point(r, l); got != fresh[j] {
				t.Errorf("request %d at %+v: reused config gives\n%s\nfresh\n%s", i, l, got, fresh[j])
			}
			rate := l.rate
			if l.clients > 0 {
				rate = math.Inf(1)
			}
			sc := r.scenario(true, rate, l.clients)
			memo, err := benchConfig(r, sc)
			if err != nil {
				t.Fatal(err)
			}
			want, err := sc.Config()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(memo.Percentiles, want.Percentiles) {
				t.Errorf("request %d at %+v: percentiles %v, want %v", i, l, memo.Percentiles, want.Percentiles)
			}
			memo.Server, want.Server = nil, nil
			if !reflect.DeepEqual(memo, want) {
				t.Errorf("request %d at %+v: config %+v, want %+v", i, l, memo, want)
			}
		}
	}
}

// TestParseRequestMemo checks that Call's reuse of the last request
// (parseRequest) returns what Parse returns, errors included, for
// requests given in turn, each three times, that a caller changing the
// returned request changes no later one, and that PlanGPUs is the only
// field of Request that refers to memory (the copy clones it alone).
func TestParseRequestMemo(t *testing.T) {
	rt := reflect.TypeFor[Request]()
	for i := range rt.NumField() {
		f := rt.Field(i)
		switch f.Type.Kind() {
		case reflect.Bool, reflect.Int, reflect.Uint64, reflect.Float64, reflect.String:
		default:
			if f.Name != "PlanGPUs" {
				t.Errorf("Request.%s is a %s: parseRequest must copy it", f.Name, f.Type)
			}
		}
	}
	def, err := json.Marshal(Default())
	if err != nil {
		t.Fatal(err)
	}
	inputs := []string{string(def), `{}`, `{"model": "qwen2.5-7b", "plan_gpus": ["h100-sxm"]}`, `{"tp": 99}`,
		`{"rate": -1}`, `{"nope": 1}`, `not json`, `{"model": "no-such-model"}`}
	for round := range 2 {
		for _, in := range inputs {
			for range 3 {
				want, werr := Parse([]byte(in))
				got, gerr := parseRequest([]byte(in))
				if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
					t.Fatalf("round %d, %s: error %v, Parse's %v", round, in, gerr, werr)
				}
				if werr == nil && !reflect.DeepEqual(got, want) {
					t.Fatalf("round %d, %s: %+v, Parse's %+v", round, in, got, want)
				}
				if werr == nil && len(got.PlanGPUs) > 0 {
					got.PlanGPUs[0] = "changed by the caller"
				}
			}
		}
	}
}

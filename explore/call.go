package explore

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/servesim/servesim/report/chart/palette"
)

// Args are the extra arguments of a Call: the load of a bench run, the
// bracket of SweepRates, the points of ClosedCapacity.
type Args struct {
	Rate    float64 `json:"rate"`
	Clients int     `json:"clients"`
	Lower   float64 `json:"lower"`
	Upper   float64 `json:"upper"` // 0: unknown (+Inf)
	N       int     `json:"n"`
	Points  []Point `json:"points"`
}

// Catalog is what the page's menus and charts need: the catalog's models
// and GPUs, the GPUs with a price (the plan's), the chart palette, the
// defaults and the limits.
type Catalog struct {
	Models []string `json:"models"`
	// Datasets are the Request.Dataset choices: RandomDataset first.
	Datasets []string `json:"datasets"`
	GPUs     []string `json:"gpus"`
	Priced   []string `json:"priced_gpus"`
	Palette  []string `json:"palette"`
	Default  Request  `json:"default"`
	Limits   Limits   `json:"limits"`
	// SweepPoints is the number of rates of the page's open-loop sweep
	// (the sweep_rates call's n).
	SweepPoints int `json:"sweep_points"`
}

// Limits are the bounds Validate applies, for the page's inputs.
type Limits struct {
	MaxPrompts, MaxReplications, MaxClients, MaxTP, MaxReplicas int
}

// Commands are the command lines of a request: servesim's for each view
// and vLLM's for the server and the benchmark.
type Commands struct {
	Bench     string `json:"bench"`
	Capacity  string `json:"capacity"`
	TP        string `json:"tp"`
	Plan      string `json:"plan"`
	VLLMServe string `json:"vllm_serve"`
	VLLMBench string `json:"vllm_bench"`
}

// maxCallBytes bounds a call's request and arguments: a page state is a
// few hundred bytes, a list of points a few kilobytes.
const maxCallBytes = 1 << 20

// Call runs the function fn of the page's JS interface on a JSON request
// and JSON arguments (either may be empty for functions that need none)
// and returns its JSON result. progress, when not nil, hears each rate a
// search probes. The functions: catalog, commands, bench, search, tp,
// plan, profile, sweep_rates, client_levels, closed_capacity.
func Call(fn string, request, args []byte, progress func(rate float64)) ([]byte, error) {
	if len(request) > maxCallBytes || len(args) > maxCallBytes {
		return nil, fmt.Errorf("explore: %s: request of %d bytes and arguments of %d exceed %d bytes", fn, len(request), len(args), maxCallBytes)
	}
	if fn == "catalog" {
		return json.Marshal(catalog())
	}
	req, err := parseRequest(orEmpty(request))
	if err != nil {
		return nil, err
	}
	var a Args
	if len(args) > 0 {
		dec := json.NewDecoder(strings.NewReader(string(args)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil {
			return nil, fmt.Errorf("explore: %s: the arguments are not valid JSON for Args: %w", fn, err)
		}
	}
	var v any
	switch fn {
	case "commands":
		c := Commands{Capacity: CapacityCommand(req), TP: TPCommand(req), Plan: PlanCommand(req)}
		if req.Loop == Closed {
			c.Bench = BenchCommand(req, math.Inf(1), req.Clients)
		} else {
			c.Bench = BenchCommand(req, req.Rate, 0)
		}
		c.VLLMServe, c.VLLMBench, err = VLLMCommands(req)
		v = c
	case "bench":
		v, err = Bench(req, a.Rate, a.Clients)
	case "search":
		v, err = Search(req, progress)
	case "tp":
		v, err = TPvsReplicas(req)
	case "plan":
		v, err = Plan(req)
	case "profile":
		v, err = ProfileOf(req)
	case "sweep_rates":
		hi := a.Upper
		if hi == 0 {
			hi = math.Inf(1)
		}
		n := a.N
		if n < 2 || n > 64 {
			return nil, fieldErr("n", n, "must be in [2, 64] rates")
		}
		v = SweepRates(a.Lower, hi, n)
	case "client_levels":
		v = ClientLevels(req)
	case "closed_capacity":
		lo, hi := ClosedCapacity(req.Target, a.Points)
		v = map[string]any{"lower": lo, "upper": hi}
	default:
		return nil, fmt.Errorf("explore: unknown function %q (catalog, commands, bench, search, tp, plan, profile, sweep_rates, client_levels, closed_capacity)", fn)
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func orEmpty(b []byte) []byte {
	if len(b) == 0 {
		return []byte("{}")
	}
	return b
}

func catalog() Catalog {
	c := Catalog{Models: Models(), GPUs: GPUs(), Datasets: append([]string{RandomDataset}, Datasets()...), Default: Default(),
		Limits: Limits{MaxPrompts, MaxReplications, MaxClients, MaxTP, MaxReplicas}}
	c.Priced = pricedGPUs()
	c.Palette = palette.Hex()
	c.SweepPoints = SweepPoints
	return c
}

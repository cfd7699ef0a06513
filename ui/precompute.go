package ui

import (
	"encoding/json"
	"fmt"

	"github.com/servesim/servesim/explore"
)

// DefaultResultsName is the default state's results, computed natively
// by Write (Precompute) and written beside catalog.json, so that the page
// draws its first view without waiting for the wasm: the page uses them
// only when its state is the default (its URL names no field that
// differs), and its workers then run the same calls, keeping their own
// results for later changes.
const DefaultResultsName = "default-results.json"

// Precomputed is the default-results.json document: the request and
// each call the page makes for it, in the order the page asks for them.
type Precomputed struct {
	Request explore.Request   `json:"request"`
	Calls   []PrecomputedCall `json:"calls"`
}

// PrecomputedCall is one call of the page's update: its function, the
// name the page keeps its result under (tag, and slot, its place in a
// sweep, or -1), its arguments, and its result: the JSON text of
// explore.Call, byte for byte what the wasm returns for the same call.
type PrecomputedCall struct {
	Fn     string          `json:"fn"`
	Tag    string          `json:"tag"`
	Slot   int             `json:"slot"`
	Args   json.RawMessage `json:"args"`
	Result string          `json:"result"`
}

// The arguments as the page writes them, in its key order.
type sweepArgs struct {
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
	N     int     `json:"n"`
}
type rateArgs struct {
	Rate float64 `json:"rate"`
}
type clientsArgs struct {
	Clients int `json:"clients"`
}
type pointsArgs struct {
	Points []json.RawMessage `json:"points"`
}

// Precompute runs, natively and through explore.Call (the function the
// wasm runs), every call of the page's update for req: the lambda*
// search, the open loop's sweep rates and bench points, the client levels
// and closed-loop bench points and their capacity, the command lines,
// the profile, the TP screen and the plan.
func Precompute(req explore.Request) (*Precomputed, error) {
	reqJSON, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	out := &Precomputed{Request: req}
	do := func(fn, tag string, slot int, args any) ([]byte, error) {
		var a []byte
		if args != nil {
			if a, err = json.Marshal(args); err != nil {
				return nil, err
			}
		}
		res, err := explore.Call(fn, reqJSON, a, nil)
		if err != nil {
			return nil, fmt.Errorf("ui: the default state's %s: %w", tag, err)
		}
		out.Calls = append(out.Calls, PrecomputedCall{Fn: fn, Tag: tag, Slot: slot, Args: a, Result: string(res)})
		return res, nil
	}
	capJSON, err := do("search", "search", -1, nil)
	if err != nil {
		return nil, err
	}
	var capRes struct{ Lower, Upper *float64 }
	if err := json.Unmarshal(capJSON, &capRes); err != nil {
		return nil, err
	}
	levelsJSON, err := do("client_levels", "client_levels", -1, nil)
	if err != nil {
		return nil, err
	}
	var levels []int
	if err := json.Unmarshal(levelsJSON, &levels); err != nil {
		return nil, err
	}
	sa := sweepArgs{N: explore.SweepPoints}
	if capRes.Lower != nil {
		sa.Lower = *capRes.Lower
	}
	if capRes.Upper != nil {
		sa.Upper = *capRes.Upper
	}
	ratesJSON, err := do("sweep_rates", "sweep_rates", -1, sa)
	if err != nil {
		return nil, err
	}
	var rates []float64
	if err := json.Unmarshal(ratesJSON, &rates); err != nil {
		return nil, err
	}
	for i, r := range rates {
		if _, err := do("bench", "bench_open", i, rateArgs{r}); err != nil {
			return nil, err
		}
	}
	points := pointsArgs{Points: []json.RawMessage{}}
	for i, c := range levels {
		p, err := do("bench", "bench_closed", i, clientsArgs{c})
		if err != nil {
			return nil, err
		}
		points.Points = append(points.Points, p)
	}
	if _, err := do("closed_capacity", "closed_capacity", -1, points); err != nil {
		return nil, err
	}
	for _, fn := range []string{"commands", "profile", "tp", "plan"} {
		if _, err := do(fn, fn, -1, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

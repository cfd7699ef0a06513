package explore

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// pageCall is one explore.Call of the page's update.
type pageCall struct {
	fn, tag string
	args    []byte
}

// pageUpdate runs, through Call, every call the page makes for req (the
// order of ui.Precompute: the search, the client levels, the sweep rates
// and their bench points, the closed loop's bench points and capacity,
// the commands, the profile, the TP screen and the plan), calling each
// with its tag and its result, and returns the calls.
func pageUpdate(tb testing.TB, req Request, each func(c pageCall, res []byte)) {
	tb.Helper()
	reqJSON, err := json.Marshal(req)
	if err != nil {
		tb.Fatal(err)
	}
	do := func(fn, tag string, args any) []byte {
		var a []byte
		if args != nil {
			if a, err = json.Marshal(args); err != nil {
				tb.Fatal(err)
			}
		}
		res, err := Call(fn, reqJSON, a, nil)
		if err != nil {
			tb.Fatalf("%s: %v", tag, err)
		}
		if each != nil {
			each(pageCall{fn, tag, a}, res)
		}
		return res
	}
	var capRes struct{ Lower, Upper *float64 }
	if err := json.Unmarshal(do("search", "search", nil), &capRes); err != nil {
		tb.Fatal(err)
	}
	var levels []int
	if err := json.Unmarshal(do("client_levels", "client_levels", nil), &levels); err != nil {
		tb.Fatal(err)
	}
	sa := struct {
		Lower float64 `json:"lower"`
		Upper float64 `json:"upper"`
		N     int     `json:"n"`
	}{N: 8}
	if capRes.Lower != nil {
		sa.Lower = *capRes.Lower
	}
	if capRes.Upper != nil {
		sa.Upper = *capRes.Upper
	}
	var rates []float64
	if err := json.Unmarshal(do("sweep_rates", "sweep_rates", sa), &rates); err != nil {
		tb.Fatal(err)
	}
	for i, r := range rates {
		do("bench", fmt.Sprintf("bench_open_%d", i), map[string]float64{"rate": r})
	}
	var points []json.RawMessage
	for i, c := range levels {
		points = append(points, do("bench", fmt.Sprintf("bench_closed_%d", i), map[string]int{"clients": c}))
	}
	do("closed_capacity", "closed_capacity", map[string]any{"points": points})
	for _, fn := range []string{"commands", "profile", "tp", "plan"} {
		do(fn, fn, nil)
	}
}

// modelChange is the request after the page's change of the model
// (BenchmarkPage's qwen2.5-7b; the rest the default).
func modelChange() Request {
	r := Default()
	r.Model = "qwen2.5-7b"
	return r
}

// BenchmarkModelChange times natively every call the page makes after a
// change of the model, one update an iteration: ms-<tag> is one call's
// milliseconds, ms-update the whole update's.
func BenchmarkModelChange(b *testing.B) {
	r := modelChange()
	total := map[string]float64{}
	var order []string
	n := 0
	for b.Loop() {
		last := now()
		pageUpdate(b, r, func(c pageCall, _ []byte) {
			t := now()
			if _, ok := total[c.tag]; !ok {
				order = append(order, c.tag)
			}
			total[c.tag] += t - last
			last = t
		})
		n++
	}
	sum := 0.0
	for _, tag := range order {
		switch tag {
		case "search", "bench_closed_0", "tp", "plan":
			b.ReportMetric(total[tag]/float64(n), "ms-"+tag)
		}
		sum += total[tag]
	}
	b.ReportMetric(sum/float64(n), "ms-update")
	if testing.Verbose() {
		for _, tag := range order {
			b.Logf("%-16s %8.2f ms", tag, total[tag]/float64(n))
		}
	}
}

var start = time.Now()

// now is milliseconds since the package's tests started.
func now() float64 { return float64(time.Since(start).Microseconds()) / 1000 }

// BenchmarkModelChangeCall times each call of the model change's update
// alone, natively: one sub-benchmark a call, ms-call its milliseconds
// (run one with -cpuprofile to see where its time goes).
func BenchmarkModelChangeCall(b *testing.B) {
	r := modelChange()
	reqJSON, err := json.Marshal(r)
	if err != nil {
		b.Fatal(err)
	}
	var calls []pageCall
	pageUpdate(b, r, func(c pageCall, _ []byte) { calls = append(calls, c) })
	for _, c := range calls {
		b.Run(c.tag, func(b *testing.B) {
			t0 := time.Now()
			for b.Loop() {
				if _, err := Call(c.fn, reqJSON, c.args, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(time.Since(t0).Microseconds())/1000/float64(b.N), "ms-call")
		})
	}
}

// TestModelChangeTimeline logs, with -v, each call's milliseconds in the
// first update after the default state's (the page's warm-up), then in a
// second run of the same update: what the first change of the model
// costs over warm code.
func TestModelChangeTimeline(t *testing.T) {
	if !testing.Verbose() {
		t.Skip("a timing log: run with -v")
	}
	for i, r := range []Request{Default(), modelChange(), modelChange()} {
		last := now()
		var line []string
		pageUpdate(t, r, func(c pageCall, _ []byte) {
			tm := now()
			line = append(line, fmt.Sprintf("%s %.1f", c.tag, tm-last))
			last = tm
		})
		t.Logf("update %d (%s): %s", i, r.Model, strings.Join(line, ", "))
	}
}

// TestModelChangeRepeatable runs the model change's update twice in one
// process and checks that every call returns the same bytes both times:
// what any memoising of work across calls (a cache of compiled
// deployments, lookups or runs) must keep.
func TestModelChangeRepeatable(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the page's update twice")
	}
	var first []string
	pageUpdate(t, modelChange(), func(c pageCall, res []byte) { first = append(first, c.tag+" "+string(res)) })
	i := 0
	pageUpdate(t, modelChange(), func(c pageCall, res []byte) {
		if got := c.tag + " " + string(res); i >= len(first) || got != first[i] {
			t.Errorf("call %d (%s) of the second update differs from the first's", i, c.tag)
		}
		i++
	})
	if i != len(first) {
		t.Errorf("the second update made %d calls, the first %d", i, len(first))
	}
}

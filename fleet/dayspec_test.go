package fleet_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/fleet"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim/metrics"
)

func daySpec(t *testing.T) fleet.DaySpec {
	t.Helper()
	model, err := cost.Model("llama-3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	h100, err := cost.GPU("h100-sxm")
	if err != nil {
		t.Fatal(err)
	}
	a100, err := cost.GPU("a100-80gb")
	if err != nil {
		t.Fatal(err)
	}
	return fleet.DaySpec{Model: model, GPUs: []cost.GPUSpec{h100, a100}, TP: 1, Policy: fleet.Policy{Kind: fleet.Fixed, Replicas: 2},
		Rate: 4, Hours: 30, PeakHour: 14, Trough: 0.25, SLO: metrics.SLO{TTFT: 2, TPOT: 0.1}, Prices: plan.Prices{"a100-80gb": 1.5},
		StorageBandwidth: 1e9, Attainment: 0.99, Seed: 1}
}

// TestDaySpecOptions: a pool per GPU, each priced from Prices or the
// built-in list, the diurnal rates repeated past 24 hours, and a case per
// ranked policy and GPU.
func TestDaySpecOptions(t *testing.T) {
	t.Parallel()
	d := daySpec(t)
	d.Rank = []fleet.NamedPolicy{{Name: "fixed:1", Policy: fleet.Policy{Kind: fleet.Fixed, Replicas: 1}}, {Name: "fixed:3", Policy: fleet.Policy{Kind: fleet.Fixed, Replicas: 3}}}
	o, cases, err := d.Options()
	if err != nil {
		t.Fatal(err)
	}
	h100, _ := fleet.DefaultPrice("h100-sxm")
	if p := o.Fleet.Pools; len(p) != 2 || p[0].Price != h100 || p[1].Price != 1.5 || p[0].Engine.Deployment.TP != 1 {
		t.Errorf("pools %+v", p)
	}
	if n := len(o.Day.Rates); n != 48 || o.Day.Rates[0] != o.Day.Rates[24] || o.Day.Span != 30*3600 {
		t.Errorf("%d hourly rates over %v s", n, o.Day.Span)
	}
	var names []string
	for _, c := range cases {
		names = append(names, c.Name)
	}
	if got, want := strings.Join(names, ","), "h100-sxm fixed:1,h100-sxm fixed:3,a100-80gb fixed:1,a100-80gb fixed:3"; got != want {
		t.Errorf("cases %s, want %s", got, want)
	}
	if o.Day.Trace != nil || len(o.Day.Phases) != 1 || o.Fleet.Startup.StorageBandwidth != 1e9 {
		t.Errorf("arrivals: trace %v, phases %d; startup %+v", o.Day.Trace, len(o.Day.Phases), o.Fleet.Startup)
	}
}

// TestDaySpecValidate: each bad number is a field error naming it.
func TestDaySpecValidate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		field string
		edit  func(*fleet.DaySpec)
	}{
		{"rate", func(d *fleet.DaySpec) { d.Rate = 0 }},
		{"trough", func(d *fleet.DaySpec) { d.Trough = 1.5 }},
		{"hours", func(d *fleet.DaySpec) { d.Hours = 169 }},
		{"attainment", func(d *fleet.DaySpec) { d.Attainment = 1.5 }},
		{"gpus", func(d *fleet.DaySpec) { d.GPUs = nil }},
		{"policy", func(d *fleet.DaySpec) { d.Policy = fleet.Policy{Kind: fleet.Fixed} }},
		{"rank", func(d *fleet.DaySpec) {
			d.Rank = []fleet.NamedPolicy{{Name: "fixed", Policy: fleet.Policy{Kind: fleet.Fixed}}}
		}},
	} {
		d := daySpec(t)
		tt.edit(&d)
		if _, _, err := d.Options(); fielderr.Of(err) == nil || fielderr.Of(err).Field != tt.field {
			t.Errorf("%s: %v, want a field error at %s", tt.field, err, tt.field)
		}
	}
	d := daySpec(t)
	d.Prices = nil
	d.GPUs = append(d.GPUs, cost.GPUSpec{Name: "no-such-gpu"})
	if _, _, err := d.Options(); err == nil || !strings.Contains(err.Error(), "--prices no-such-gpu=DOLLARS") {
		t.Errorf("a GPU without a price: %v", err)
	}
}

// TestWriteRanked: the cheapest fleet that meets the target closes the
// table.
func TestWriteRanked(t *testing.T) {
	t.Parallel()
	d := daySpec(t)
	d.Hours, d.GPUs = 0.1, d.GPUs[:1]
	d.Rank = []fleet.NamedPolicy{{Name: "fixed:1", Policy: fleet.Policy{Kind: fleet.Fixed, Replicas: 1}}, {Name: "fixed:2", Policy: fleet.Policy{Kind: fleet.Fixed, Replicas: 2}}}
	o, cases, err := d.Options()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := fleet.WriteRanked(&b, o, cases, 0.99, "day"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "day (") || !strings.Contains(b.String(), "cheapest at >= 99% attainment: h100-sxm fixed:1") {
		t.Errorf("ranking:\n%s", b.String())
	}
}

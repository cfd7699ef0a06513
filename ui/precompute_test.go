package ui

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/servesim/servesim/explore"
)

// TestDefaultResultsAreTheLibrarys reads the default-results.json that
// Write ships beside catalog.json and checks that it is the default
// state, the catalog's, and that every result is, byte for byte, the JSON
// of the library's own calls for it (recomputed here, not read from a
// file): the lambda* search, the sweep's rates and bench points, the
// client levels and closed-loop points, the closed loop's capacity, the
// command lines, the profile, the TP screen and the plan.
// (cmd/servesim's TestExploreMatchesCLI shows the CLI prints the same;
// TestPageDefaultResults, that the page's wasm computes the same.)
func TestDefaultResultsAreTheLibrarys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, DefaultResultsName))
	if err != nil {
		t.Fatal(err)
	}
	var pre Precomputed
	if err := json.Unmarshal(data, &pre); err != nil {
		t.Fatal(err)
	}
	var cat explore.Catalog
	catData, err := os.ReadFile(filepath.Join(dir, CatalogName))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(catData, &cat); err != nil {
		t.Fatal(err)
	}
	req := explore.Default()
	if got, want := marshal(t, pre.Request), marshal(t, req); got != want {
		t.Fatalf("default-results.json is for %s, want the default %s", got, want)
	}
	if got, want := marshal(t, cat.Default), marshal(t, req); got != want {
		t.Fatalf("catalog.json's default %s is not explore.Default %s", got, want)
	}
	raw := map[string][]string{}
	for _, c := range pre.Calls {
		if c.Slot < 0 {
			raw[c.Tag] = append(raw[c.Tag], c.Result)
			continue
		}
		list := raw[c.Tag]
		for len(list) <= c.Slot {
			list = append(list, "")
		}
		list[c.Slot] = c.Result
		raw[c.Tag] = list
	}
	for tag, list := range raw {
		if tag != "bench_open" && tag != "bench_closed" && len(list) != 1 {
			t.Errorf("%s: %d results, want 1", tag, len(list))
		}
	}
	cap := compareWithLibrary(t, req, raw)
	if cap.Lower == nil {
		t.Fatal("the default state's lambda* has no lower bound: the sweep would be empty")
	}
	lo, hi := *cap.Lower, math.Inf(1)
	up := 0.0
	if cap.Upper != nil {
		hi, up = *cap.Upper, *cap.Upper
	}
	if got, want := first(raw["sweep_rates"]), marshal(t, explore.SweepRates(lo, hi, explore.SweepPoints)); got != want {
		t.Errorf("sweep_rates: %s, want %s", got, want)
	}
	for _, c := range pre.Calls {
		if c.Tag == "sweep_rates" {
			if got, want := string(c.Args), marshal(t, sweepArgs{lo, up, explore.SweepPoints}); got != want {
				t.Errorf("sweep_rates' arguments %s, want %s", got, want)
			}
		}
	}
	levels := explore.ClientLevels(req)
	if got, want := first(raw["client_levels"]), marshal(t, levels); got != want {
		t.Errorf("client_levels: %s, want %s", got, want)
	}
	if len(raw["bench_open"]) != explore.SweepPoints || len(raw["bench_closed"]) != len(levels) {
		t.Errorf("%d open and %d closed bench points, want %d and %d", len(raw["bench_open"]), len(raw["bench_closed"]), explore.SweepPoints, len(levels))
	}
	var points []explore.Point
	for _, c := range levels {
		pt, err := explore.Bench(req, 0, c)
		if err != nil {
			t.Fatal(err)
		}
		points = append(points, *pt)
	}
	clo, cup := explore.ClosedCapacity(req.Target, points)
	if got, want := first(raw["closed_capacity"]), marshal(t, map[string]any{"lower": clo, "upper": cup}); got != want {
		t.Errorf("closed_capacity: %s, want %s", got, want)
	}
	serve, bench, err := explore.VLLMCommands(req)
	if err != nil {
		t.Fatal(err)
	}
	cmds := explore.Commands{Capacity: explore.CapacityCommand(req), Bench: explore.BenchCommand(req, req.Rate, 0),
		TP: explore.TPCommand(req), Plan: explore.PlanCommand(req), VLLMServe: serve, VLLMBench: bench}
	if got, want := first(raw["commands"]), marshal(t, cmds); got != want {
		t.Errorf("commands: %s, want %s", got, want)
	}
	prof, err := explore.ProfileOf(req)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := first(raw["profile"]), marshal(t, prof); got != want {
		t.Errorf("profile: %s, want %s", got, want)
	}
	want := []string{"bench_closed", "bench_open", "client_levels", "closed_capacity", "commands", "plan", "profile", "search", "sweep_rates", "tp"}
	var tags []string
	for tag := range raw {
		tags = append(tags, tag)
	}
	slices.Sort(tags)
	if !slices.Equal(tags, want) {
		t.Errorf("default-results.json holds %v, want the page's calls %v", tags, want)
	}
}

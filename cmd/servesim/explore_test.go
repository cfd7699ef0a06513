package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/explore"
)

// exploreRequests are the page states whose numbers must equal the CLI's:
// the default, TP 2, another rate, bursty arrivals, two replicas with
// engine caps and prefix caching off.
func exploreRequests() map[string]explore.Request {
	d := explore.Default()
	tp2 := d
	tp2.TP = 2
	rate := d
	rate.Rate, rate.Seed = 7, 3
	bursty := d
	bursty.Burstiness, bursty.RangeRatio, bursty.E2EL = 0.5, 0.2, 8000
	caps := d
	caps.Replicas, caps.MaxNumSeqs, caps.MaxNumBatchedTokens, caps.NoPrefixCaching, caps.Model = 2, 64, 4096, true, "qwen2.5-7b"
	hf := d
	hf.Dataset = "Aeala/ShareGPT_Vicuna_unfiltered"
	registry := d // a model by its Hugging Face id, from the registry
	registry.Model = "Qwen/Qwen3-8B"
	return map[string]explore.Request{"default": d, "tp2": tp2, "rate": rate, "bursty": bursty, "caps": caps, "hf": hf, "registry": registry}
}

// cliArgs splits one of explore's command lines into the arguments of run
// (without "servesim").
func cliArgs(t *testing.T, line string) []string {
	t.Helper()
	f := strings.Fields(line)
	if f[0] != "servesim" {
		t.Fatalf("command %q does not start with servesim", line)
	}
	return f[1:]
}

// TestExploreMatchesCLI runs the command line the page's "Copy as
// command" gives and checks that the CLI prints the page's numbers byte
// for byte: the capacity search's JSON (bracket, every probe and run),
// bench's percentiles and throughput, and plan's whole JSON document.
func TestExploreMatchesCLI(t *testing.T) {
	t.Parallel()
	for name, req := range exploreRequests() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// capacity
			got, err := explore.Search(req, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := runCLI(cliArgs(t, got.Command)...)
			if r.code != 0 {
				t.Fatalf("%s: exit %d: %s", got.Command, r.code, r.stderr)
			}
			var cli map[string]json.RawMessage
			if err := json.Unmarshal([]byte(r.stdout), &cli); err != nil {
				t.Fatal(err)
			}
			page, _ := json.Marshal(got)
			var pm map[string]json.RawMessage
			if err := json.Unmarshal(page, &pm); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"criteria", "lower", "upper", "points", "runs", "requests"} {
				var c bytes.Buffer
				if err := json.Compact(&c, cli[k]); err != nil {
					t.Fatalf("%s: %v", k, err)
				}
				if !bytes.Equal(c.Bytes(), pm[k]) {
					t.Errorf("capacity %s: page %s, CLI %s", k, pm[k], c.Bytes())
				}
			}

			// bench, open and closed
			for _, p := range []struct {
				rate    float64
				clients int
			}{{req.Rate * 1.5, 0}, {0, 16}} {
				pt, err := explore.Bench(req, p.rate, p.clients)
				if err != nil {
					t.Fatal(err)
				}
				dir := t.TempDir()
				args := append(cliArgs(t, pt.Command), "--save-result", "--result-dir", dir, "--result-filename", "r.json", "--quiet")
				if r := runCLI(args...); r.code != 0 {
					t.Fatalf("%s: exit %d: %s", pt.Command, r.code, r.stderr)
				}
				data, err := os.ReadFile(filepath.Join(dir, "r.json"))
				if err != nil {
					t.Fatal(err)
				}
				var res map[string]any
				if err := json.Unmarshal(data, &res); err != nil {
					t.Fatal(err)
				}
				check := func(key string, v any) {
					t.Helper()
					want, _ := json.Marshal(res[key])
					have, _ := json.Marshal(v)
					if !bytes.Equal(want, have) {
						t.Errorf("%s: %s: page %s, CLI %s", pt.Command, key, have, want)
					}
				}
				check("request_throughput", pt.Throughput)
				for _, m := range []struct {
					name string
					l    explore.Latency
				}{{"ttft", pt.TTFT}, {"tpot", pt.TPOT}, {"e2el", pt.E2E}} {
					check("p50_"+m.name+"_ms", m.l.P50)
					check("p90_"+m.name+"_ms", m.l.P90)
					check("p99_"+m.name+"_ms", m.l.P99)
				}
			}
		})
	}
}

// TestExplorePlanMatchesCLI checks the plan view's JSON against servesim
// plan --format json, byte for byte, for the default page.
func TestExplorePlanMatchesCLI(t *testing.T) {
	t.Parallel()
	req := explore.Default()
	res, err := explore.Plan(req)
	if err != nil {
		t.Fatal(err)
	}
	page, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	line := explore.PlanCommand(req)
	r := runCLI(cliArgs(t, line)...)
	if r.code != 0 {
		t.Fatalf("%s: exit %d: %s", line, r.code, r.stderr)
	}
	if !bytes.Equal(append(page, '\n'), []byte(r.stdout)) {
		t.Errorf("%s: the CLI's JSON differs from the page's (%d bytes against %d)", line, len(r.stdout), len(page)+1)
	}
}

package calibrate

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/internal/shareddata"
)

func TestReadSiliconCSV(t *testing.T) {
	t.Parallel()
	pts := siliconDense(t)
	if len(pts) != 90 {
		t.Fatalf("%d dense BF16 rows, want 90", len(pts))
	}
	tps := map[int]int{}
	for _, p := range pts {
		tps[p.TP]++
		if p.Model != "Qwen/Qwen3-32B" || p.GPU != "h100-sxm" || p.BackendVersion != "0.12.0" {
			t.Fatalf("row %s: %s on %s, vLLM %s", p.ID, p.Model, p.GPU, p.BackendVersion)
		}
	}
	if tps[2] != 30 || tps[4] != 30 || tps[8] != 30 {
		t.Errorf("rows per TP %v, want 30 each of 2, 4, 8", tps)
	}
	// The first TP2 row: 1024x128 at 8 clients, 154.2 ms TTFT, 18.04 ms TPOT.
	var first Point
	for _, p := range pts {
		if p.TP == 2 && p.Input == 1024 && p.Output == 128 && p.Concurrency == 8 {
			first = p
		}
	}
	if math.Abs(first.Measured.TTFT-0.1542) > 1e-4 || math.Abs(first.Measured.TPOT-0.01804) > 1e-5 {
		t.Errorf("tp2 1024x128 c8: %+v", first.Measured)
	}
	if want := first.Measured.TTFT + 127*first.Measured.TPOT; first.Measured.E2E != want {
		t.Errorf("E2E %v, want TTFT + 127 TPOT = %v", first.Measured.E2E, want)
	}
	if first.MaxNumSeqs != 512 || first.MaxNumBatchedTokens != 8+1024+1500 {
		t.Errorf("scheduler %d/%d, want aiconfigurator's 512 / 8+1024+1500", first.MaxNumSeqs, first.MaxNumBatchedTokens)
	}
	// A data-parallel row: every request to the first group, and, with 512
	// or more clients a group, max_num_seqs twice that (the deployment
	// plugin's rule).
	var dp, big Point
	for _, p := range silicon(t) {
		switch {
		case p.DP == 2 && p.TP == 2 && p.Concurrency == 64 && p.GPU == "b200":
			dp = p
		case p.DP == 2 && p.Concurrency == 1024 && p.GPU == "b200":
			big = p
		}
	}
	if dp.DPRouter != batching.DPFirstGroup || dp.MaxNumSeqs != 512 || dp.MaxNumBatchedTokens != 32+dp.Input+1500 {
		t.Errorf("dp2 c64: router %q, scheduler %d/%d, want first-group, 512 / 32+ISL+1500", dp.DPRouter, dp.MaxNumSeqs, dp.MaxNumBatchedTokens)
	}
	if big.MaxNumSeqs != 1024 || big.MaxNumBatchedTokens != 512+big.Input+1500 {
		t.Errorf("dp2 c1024: scheduler %d/%d, want 1024 / 512+ISL+1500", big.MaxNumSeqs, big.MaxNumBatchedTokens)
	}
	if _, err := ReadSiliconCSV(strings.NewReader("id,isl\nx,1\n"), "bad.csv"); !errors.Is(err, ErrInvalid) {
		t.Errorf("missing columns: %v, want ErrInvalid", err)
	}
}

func TestReadVLLMResult(t *testing.T) {
	t.Parallel()
	const js = `{"date": "20250101-000000", "backend": "vllm", "model_id": "Qwen/Qwen3-32B", "num_prompts": 320,
	"request_rate": "inf", "burstiness": 1.0, "max_concurrency": 32, "duration": 60.5, "completed": 320,
	"total_input_tokens": 327680, "total_output_tokens": 163840, "request_throughput": 5.3,
	"output_throughput": 2708.1, "total_token_throughput": 8124.3, "mean_ttft_ms": 250.5, "median_ttft_ms": 240,
	"mean_tpot_ms": 21.0, "mean_itl_ms": 20.9, "mean_e2el_ms": 10980.0}`
	p, err := ReadVLLMResult(strings.NewReader(js), "run.json")
	if err != nil {
		t.Fatal(err)
	}
	if p.Concurrency != 32 || p.Input != 1024 || p.Output != 512 || p.NumPrompts != 320 || p.Model != "Qwen/Qwen3-32B" {
		t.Errorf("setup %+v", p)
	}
	want := Metrics{TTFT: 0.2505, TPOT: 0.021, ITL: 0.0209, E2E: 10.98, OutputThroughput: 2708.1}
	if p.Measured != want {
		t.Errorf("metrics %+v, want %+v", p.Measured, want)
	}
	open, err := ReadVLLMResult(strings.NewReader(`{"request_rate": 4.5, "max_concurrency": null, "completed": 10,
		"total_input_tokens": 1000, "total_output_tokens": 500, "mean_ttft_ms": 1}`), "open.json")
	if err != nil || open.Rate != 4.5 || open.Concurrency != 0 || open.MaxConcurrency != 0 {
		t.Errorf("open loop: %+v, %v", open, err)
	}
	if _, err := ReadVLLMResult(strings.NewReader(`{"completed": 0}`), "empty.json"); !errors.Is(err, ErrInvalid) {
		t.Errorf("no completed request: %v, want ErrInvalid", err)
	}
}

// TestModelable checks that every row of the calibration CSV can be
// re-simulated once the model configs are at hand (dense and MoE, BF16 to
// FP4), and that without them the rows of models outside the cost catalog
// are skipped with a reason matching ErrInvalid.
func TestModelable(t *testing.T) {
	t.Parallel()
	f, err := os.Open(shareddata.Path(t, "aiconfigurator_vllm_silicon.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	all, err := ReadSiliconCSV(f, "silicon")
	if err != nil {
		t.Fatal(err)
	}
	dpep := 0
	for _, p := range all {
		if p.DP == 4 && p.EP == 16 && p.TP == 4 {
			dpep++
		}
	}
	if dpep != 61 {
		t.Errorf("%d rows at TP 4, DP 4, EP 16, want 61 (attention_dp_size, moe_ep_size)", dpep)
	}
	s := Simulator{ModelDir: modelDir(t)}
	if ok, skipped := s.Modelable(all, testProfile()); len(ok) != len(all) {
		t.Errorf("%d of %d rows modelable; first skipped: %v", len(ok), len(all), skipped[0].Reason)
	}
	// without configs, servesim's registry holds every model of the file
	ok, skipped := (Simulator{}).Modelable(all, testProfile())
	if len(ok) != len(all) {
		t.Errorf("without configs %d modelable of %d, want all (the registry's); first skipped: %v", len(ok), len(all), skipped)
	}
	for _, sk := range skipped {
		if !errors.Is(sk.Reason, ErrInvalid) {
			t.Fatalf("%s: %v does not match ErrInvalid", sk.Point.ID, sk.Reason)
		}
	}
}

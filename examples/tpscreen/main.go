// Command tpscreen pre-screens tensor-parallel degrees with the cost model.
//
// It first reproduces the reference TP screen of
// docs/reference-numbers.md#tp-cost-model (the ideal
// projection-plus-all-reduce model with explicit assumptions: 120 TFLOP/s,
// α = 8 µs, B = 150 GB/s), then screens Llama-3.1-70B on H100 SXM for
// p = 1, 2, 4, 8: shape, memory, KV pool, predicted decode step times and
// the token threshold T*.
//
//	go run ./examples/tpscreen
package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/screen"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tpscreen:", err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	reference(w)
	fmt.Fprintln(w)
	if err := screenTP(w, "llama-3.1-70b", "h100-sxm", []int{1, 2, 4, 8}); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return shapes(w)
}

// reference prints the TP table and figures of
// docs/reference-numbers.md#tp-cost-model.
func reference(w io.Writer) {
	ref := screen.ReferenceTPModel()
	m := ref.Model
	ab, _ := ref.Comm.Params(2)
	fmt.Fprintf(w, "Reference TP screen (docs/reference-numbers.md): H=%d, I=%d, H_KV=%d, L=%d, e_a=%g bytes\n",
		m.Hidden, m.Intermediate, m.KVHeads*m.HeadDim, m.Layers, m.ActBytes)
	fmt.Fprintf(w, "assumptions: %.0f TFLOP/s effective projections, α=%.0f µs, B=%.0f GB/s, ideal 1/p GEMM split\n",
		ref.ProjFLOPS/1e12, ab.Alpha*1e6, ab.BusBandwidth/1e9)
	payload := m.AllReducePayload(32)
	traffic := ref.StepTraffic(32, 4)
	fmt.Fprintf(w, "all-reduce payload at T=32: %.0f bytes (%.0f KiB)\n", payload, payload/1024)
	fmt.Fprintf(w, "per-step bus traffic per rank at p=4, T=32: %.0f bytes (%.0f MiB) over %d all-reduces\n",
		traffic, traffic/(1<<20), 2*m.Layers)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "speed-up t1/tp")
	fmt.Fprintln(w, "T   TP=2   TP=4   TP=8")
	for _, tokens := range []float64{1, 4, 8, 16, 32} {
		fmt.Fprintf(w, "%-2.0f", tokens)
		for _, p := range []int{2, 4, 8} {
			fmt.Fprintf(w, "  %.2fx", ref.Speedup(tokens, p))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "token threshold T* (TP=p beats one GPU for T > T*)")
	for _, p := range []int{2, 4, 8} {
		fmt.Fprintf(w, "  p=%d: T* = %.2f tokens\n", p, threshold(ref, p))
	}
	slow := ref
	slow.Comm = cost.AlphaBetaTable{{Alpha: 8e-6, BusBandwidth: 1e9}}
	if _, ok := slow.Threshold(4); !ok {
		fmt.Fprintln(w, "  p=4 over a 1 GB/s link: no T helps (the bandwidth term exceeds the compute saving)")
	}
}

func threshold(t screen.TPModel, p int) float64 {
	star, ok := t.Threshold(p)
	if !ok {
		return math.Inf(1)
	}
	return star
}

// screenTP prints the TP screen of one model on one GPU.
func screenTP(w io.Writer, modelName, gpuName string, degrees []int) error {
	model, err := cost.Model(modelName)
	if err != nil {
		return err
	}
	gpu, err := cost.GPU(gpuName)
	if err != nil {
		return err
	}
	const (
		util      = 0.90
		blockSize = 16
		context   = 1152 // average context of 1024 in / 256 out
	)
	eff := cost.DefaultEfficiency()
	fmt.Fprintf(w, "TP screen: %s on %s (%.0f GiB, %.2f TB/s, %.0f TFLOP/s BF16, %s)\n",
		model.Name, gpu.Name, gpu.MemoryBytes/cost.GiB, gpu.BandwidthBytesPerS/1e12, gpu.PeakFLOPS.BF16/1e12, gpu.Interconnect)
	fmt.Fprintf(w, "gpu_memory_utilization %.2f, block %d tokens, runtime reserve %.1f GiB per rank\n",
		util, blockSize, float64(cost.DefaultRuntimeReserveBytes)/cost.GiB)
	fmt.Fprintf(w, "efficiency: bandwidth %.2f, FLOPs %.2f, step overhead %.1f ms\n", eff.Bandwidth, eff.FLOPs, eff.StepOverhead*1e3)
	fmt.Fprintln(w, "all-reduce: decode steps as vLLM dispatches it (custom and symmetric-memory fits, NCCL above);"+
		" T* with the NCCL α–β fitted from DGX H100 data")
	fmt.Fprintf(w, "weights %.1f GiB in all (%.4g parameters), KV %.0f KiB per token for the whole model\n",
		model.WeightBytesTotal()/cost.GiB, model.TotalParams(), model.KVBytesPerToken()/1024)
	tpm := screen.TPModel{Model: model, ProjFLOPS: gpu.PeakFLOPS.BF16 * eff.FLOPs, Comm: gpu.AllReduce}
	for _, p := range degrees {
		d := cost.Deployment{Model: model, GPU: gpu, TP: p, Eff: eff, GPUMemoryUtilization: util}
		fmt.Fprintf(w, "\nTP=%d\n", p)
		shape, err := d.Shape()
		if err != nil {
			fmt.Fprintf(w, "  shape: impossible: %v\n", err)
			continue
		}
		verdict := "ok"
		if shape.KVReplication > 1 {
			verdict = "ok, KV heads replicated"
		}
		fmt.Fprintf(w, "  shape: %s; %s\n", verdict, shape)
		mem, err := d.Memory(blockSize)
		fits := true
		switch {
		case errors.Is(err, cost.ErrDoesNotFit):
			fits = false
			fmt.Fprintf(w, "  memory/rank: usable %.1f GiB < weights %.1f GiB + runtime %.1f GiB: does not fit\n",
				mem.UsableBytes/cost.GiB, mem.WeightBytes/cost.GiB, mem.RuntimeBytes/cost.GiB)
			fmt.Fprintln(w, "  KV pool/rank: none")
		case err != nil:
			return err
		default:
			fmt.Fprintf(w, "  memory/rank: usable %.1f GiB = weights %.1f + runtime %.1f + KV pool %.1f GiB: fits\n",
				mem.UsableBytes/cost.GiB, mem.WeightBytes/cost.GiB, mem.RuntimeBytes/cost.GiB, mem.KVPoolBytes/cost.GiB)
			fmt.Fprintf(w, "  KV pool/rank: %d tokens (%d blocks) at %.0f KiB per token per rank = %.0f requests of %d tokens\n",
				mem.KVTokens, mem.KVBlocks, mem.KVBytesPerToken/1024, float64(mem.KVTokens)/1280, 1280)
		}
		label := ""
		if !fits {
			label = " (hypothetical)"
		}
		fmt.Fprintf(w, "  decode step%s, context %d:", label, context)
		for _, batch := range []int{1, 8, 32} {
			s := d.Step(cost.DecodeBatch(batch, context))
			fmt.Fprintf(w, "  batch %d %.2f ms (comm %.2f)", batch, s.Time*1e3, s.CommTime*1e3)
		}
		fmt.Fprintln(w)
		if p == 1 {
			fmt.Fprintln(w, "  T*: n/a (one GPU)")
			continue
		}
		ab, _ := gpu.AllReduce.Params(p)
		if star, ok := tpm.Threshold(p); ok {
			fmt.Fprintf(w, "  T* = %.1f tokens (compute-only model: projections at %.0f TFLOP/s, α=%.1f µs, B=%.0f GB/s)\n",
				star, tpm.ProjFLOPS/1e12, ab.Alpha*1e6, ab.BusBandwidth/1e9)
		} else {
			fmt.Fprintln(w, "  T*: no T helps")
		}
	}
	fmt.Fprintln(w, "\nDecode at small batch is memory-bound, so the roofline step times above still fall")
	fmt.Fprintln(w, "with p (each rank streams 1/p of the weights); T* is the compute-only criterion of docs/cost-model.md.")
	return nil
}

// shapes shows the two other shape verdicts: impossible and replicated KV.
func shapes(w io.Writer) error {
	fmt.Fprintln(w, "shape checks elsewhere")
	for _, c := range []struct {
		model string
		p     int
	}{{"qwen2.5-7b", 8}, {"llama-3.1-8b", 16}} {
		m, err := cost.Model(c.model)
		if err != nil {
			return err
		}
		s, err := m.Shape(c.p)
		if err != nil {
			fmt.Fprintf(w, "  %s TP=%d: impossible: %v\n", c.model, c.p, err)
			continue
		}
		fmt.Fprintf(w, "  %s TP=%d: %s\n", c.model, c.p, s)
	}
	return nil
}

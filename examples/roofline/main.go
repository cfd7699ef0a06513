// Command roofline prints the decode-step roofline floors and the KV-pool
// arithmetic of docs/reference-numbers.md#roofline-floors: Qwen2.5-7B in
// BF16 on an RTX 4090, 1024 prompt tokens and 256 output tokens per
// request.
//
//	go run ./examples/roofline
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/servesim/servesim/cost"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "roofline:", err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	model, err := cost.Model("qwen2.5-7b")
	if err != nil {
		return err
	}
	gpu, err := cost.GPU("rtx4090")
	if err != nil {
		return err
	}
	const (
		in, out = 1024, 256
		context = (in + in + out) / 2.0 // average KV entries attended over the decode
	)
	floor := cost.Deployment{Model: model, GPU: gpu, TP: 1} // zero Efficiency: the ideal floor
	tuned := floor
	tuned.Eff = cost.DefaultEfficiency()
	kv := model.KVBytesPerToken()

	fmt.Fprintf(w, "%s on %s, %d in / %d out, average context (%d+%d)/2 = %.0f tokens\n",
		model.Name, gpu.Name, in, out, in, in+out, context)
	fmt.Fprintf(w, "matmul parameters %.3g (BF16: %.2f GB streamed per step); KV %.0f bytes (%.0f KiB) per token; %.0f GB/s\n",
		model.MatmulParams(), model.MatmulWeightBytes()/1e9, kv, kv/1024, gpu.BandwidthBytesPerS/1e9)
	fmt.Fprintf(w, "KV per request at that context: %.2f MB\n", context*kv/1e6)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "decode step: floor = (weights + C × context × KV/token) / bandwidth")
	fmt.Fprintln(w, " C   bytes/step  floor      bound   +KV writes  predicted*  tokens/s*")
	for _, c := range []int{1, 8, 32, 64} {
		b := cost.DecodeBatch(c, context)
		s := floor.Step(b)
		withWrites := (s.Bytes + s.KVWriteBytes) / gpu.BandwidthBytesPerS
		p := tuned.Step(b)
		fmt.Fprintf(w, "%2d   %6.2f GB  %5.2f ms   %-6s  %5.2f ms    %5.2f ms    %6.0f\n",
			c, s.Bytes/1e9, s.Time*1e3, s.Bound, withWrites*1e3, p.Time*1e3, float64(c)/p.Time)
	}
	eff := tuned.Eff
	fmt.Fprintf(w, "* with DefaultEfficiency: bandwidth %.2f, FLOPs %.2f, overhead %.1f ms per step\n",
		eff.Bandwidth, eff.FLOPs, eff.StepOverhead*1e3)
	fmt.Fprintln(w)

	const reqTokens = in + out
	fmt.Fprintln(w, "KV pool")
	const kvGiB = 6.41
	tokens := kvGiB * cost.GiB / kv
	fmt.Fprintf(w, "  %.2f GiB / %.0f KiB per token = %.0f tokens ≈ %.1f requests of %d tokens\n",
		kvGiB, kv/1024, tokens, tokens/reqTokens, reqTokens)
	floor.GPUMemoryUtilization = 0.90
	mem, err := floor.Memory(16)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "  Memory at gpu_memory_utilization 0.90, blocks of 16: usable %.2f GiB − weights %.2f GiB − runtime %.2f GiB = %.2f GiB\n",
		mem.UsableBytes/cost.GiB, mem.WeightBytes/cost.GiB, mem.RuntimeBytes/cost.GiB, mem.KVPoolBytes/cost.GiB)
	fmt.Fprintf(w, "  → %d blocks of %d = %d tokens ≈ %.1f requests of %d tokens\n",
		mem.KVBlocks, mem.BlockSize, mem.KVTokens, float64(mem.KVTokens)/reqTokens, reqTokens)
	return nil
}

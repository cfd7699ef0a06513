package cost_test

import (
	"fmt"

	"github.com/servesim/servesim/cost"
)

// Decode-step roofline floors of Qwen2.5-7B on an RTX 4090
// (docs/reference-numbers.md#roofline-floors); the zero Efficiency is the
// ideal floor.
func ExampleDeployment_Step() {
	model, _ := cost.Model("qwen2.5-7b")
	gpu, _ := cost.GPU("rtx4090")
	d := cost.Deployment{Model: model, GPU: gpu, TP: 1}
	for _, c := range []int{1, 8, 32, 64} {
		s := d.Step(cost.DecodeBatch(c, 1152))
		fmt.Printf("C=%-2d %.2f ms (%s-bound, %.2f GB read)\n", c, s.Time*1e3, s.Bound, s.Bytes/1e9)
	}
	// Output:
	// C=1  14.09 ms (memory-bound, 14.21 GB read)
	// C=8  14.55 ms (memory-bound, 14.67 GB read)
	// C=32 16.13 ms (memory-bound, 16.25 GB read)
	// C=64 18.22 ms (memory-bound, 18.37 GB read)
}

// The KV pool of Qwen2.5-7B on an RTX 4090 at gpu_memory_utilization 0.9.
func ExampleDeployment_Memory() {
	model, _ := cost.Model("qwen2.5-7b")
	gpu, _ := cost.GPU("rtx4090")
	d := cost.Deployment{Model: model, GPU: gpu, TP: 1, GPUMemoryUtilization: 0.9}
	mem, err := d.Memory(16)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("usable %.1f GiB - weights %.2f GiB - runtime %.1f GiB = KV %.2f GiB\n",
		mem.UsableBytes/cost.GiB, mem.WeightBytes/cost.GiB, mem.RuntimeBytes/cost.GiB, mem.KVPoolBytes/cost.GiB)
	fmt.Printf("%d blocks of %d = %d tokens = %.1f requests of 1280 tokens\n",
		mem.KVBlocks, mem.BlockSize, mem.KVTokens, float64(mem.KVTokens)/1280)
	// Output:
	// usable 21.6 GiB - weights 14.19 GiB - runtime 1.0 GiB = KV 6.41 GiB
	// 7507 blocks of 16 = 120112 tokens = 93.8 requests of 1280 tokens
}

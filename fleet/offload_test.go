package fleet_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/fleet"
	"github.com/servesim/servesim/internal/shareddata"
	"github.com/servesim/servesim/workload"
)

// offloadDay is an hour of the Mooncake conversation trace at 1 req/s
// (its turns share prefixes by hash id: an unbounded cache would serve
// about 32% of the prompt tokens) on two H100s whose KV pool holds 8 GiB
// (about 64k tokens of Llama-3.1-8B, five of its 12k-token prompts), so
// the GPU prefix cache evicts what later turns would reuse.
func offloadDay(t *testing.T, off *batching.KVOffload) *fleet.Report {
	return offloadDayAt(t, off, 2, 1)
}

// offloadDayAt is offloadDay on replicas replicas at rate req/s.
func offloadDayAt(t *testing.T, off *batching.KVOffload, replicas int, rate float64) *fleet.Report {
	t.Helper()
	tr, err := workload.LoadTrace(shareddata.Path(t, "mooncake_conversation_trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	m, _ := cost.Model("llama-3.1-8b")
	g, _ := cost.GPU("h100-sxm")
	d := fleet.DaySpec{Model: m, GPUs: []cost.GPUSpec{g}, TP: 1, Policy: fleet.Policy{Kind: fleet.Fixed, Replicas: replicas}, Rate: rate, Hours: 1, PeakHour: 14, Trough: 1,
		Trace: &tr, Attainment: 0.99, StorageBandwidth: fleet.DefaultStartup.StorageBandwidth, Seed: 1, KVOffload: off}
	o, _, err := d.Options()
	if err != nil {
		t.Fatal(err)
	}
	for i := range o.Fleet.Pools {
		e := &o.Fleet.Pools[i].Engine
		e.Deployment.KVCacheMemory = 8 << 30
		e.MaxModelLen = 32768
	}
	rep, err := fleet.Run(o)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestDayKVOffload: on a day whose requests share prefixes and whose GPU
// pool evicts them, a 512 GiB host buffer per replica raises the share of
// prompt tokens served from cache and lowers the mean TTFT against the
// same day without it, with either backend; the summary shows the
// offload line, and only then.
func TestDayKVOffload(t *testing.T) {
	t.Parallel()
	without := offloadDay(t, nil)
	with := offloadDay(t, batching.DefaultKVOffload(512))
	gpu, _ := without.Total.Stat("prefix_cache_hit_rate")
	total, ok := with.Total.Stat("prefix_cache_total_hit_rate")
	if !ok {
		t.Fatal("the offload day reports no prefix_cache_total_hit_rate")
	}
	ttft0, ttft1 := without.Result.TTFT().Mean(), with.Result.TTFT().Mean()
	t.Logf("prefix hit rate %.2f%% -> %.2f%% (GPU+CPU), mean TTFT %.1f -> %.1f ms, attainment %.2f%% -> %.2f%%", 100*gpu, 100*total,
		1000*ttft0, 1000*ttft1, 100*without.Total.Attainment(), 100*with.Total.Attainment())
	if total < gpu+0.10 {
		t.Errorf("hit rate with offload %.4f, want at least 10 points above %.4f without", total, gpu)
	}
	if ttft1 > 0.95*ttft0 {
		t.Errorf("mean TTFT with offload %.4f s, want at most 95%% of %.4f s without", ttft1, ttft0)
	}
	// LMCache's backend on the same day: its 256-token chunks of prompt
	// serve the later turns too, its synchronous transfers show.
	lmOff := batching.DefaultKVOffload(512)
	lmOff.Backend = batching.OffloadBackendLMCache
	lm := offloadDay(t, lmOff)
	lmTotal, _ := lm.Total.Stat("prefix_cache_total_hit_rate")
	sync, _ := lm.Total.Stat("kv_offload_sync_time")
	t.Logf("lmcache: prefix hit rate %.2f%%, mean TTFT %.1f ms, %.1f s of steps waiting for transfers", 100*lmTotal, 1000*lm.Result.TTFT().Mean(), sync)
	if lmTotal < gpu+0.10 || !(sync > 0) {
		t.Errorf("lmcache: hit rate %.4f, want at least 10 points above %.4f; sync time %v s, want > 0", lmTotal, gpu, sync)
	}
	if line := lm.Total.OffloadSummary(); !strings.HasSuffix(line, fmt.Sprintf("; steps waited %.1f s for synchronous transfers", sync)) {
		t.Errorf("lmcache's offload line %q does not end with its transfer time", line)
	}
	var b strings.Builder
	if err := with.WriteHours(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\nKV offload: prefix hits ") {
		t.Errorf("the offload day's summary has no offload line:\n%s", b.String())
	}
	b.Reset()
	if err := without.WriteHours(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "KV offload") {
		t.Errorf("a day without offload shows an offload line:\n%s", b.String())
	}
}

// TestDayKVOffloadErrors: bad offloading settings are field errors naming
// the flag, the value and the limit.
func TestDayKVOffloadErrors(t *testing.T) {
	t.Parallel()
	m, _ := cost.Model("llama-3.1-8b")
	g, _ := cost.GPU("h100-sxm")
	base := fleet.DaySpec{Model: m, GPUs: []cost.GPUSpec{g}, TP: 1, Policy: fleet.Policy{Kind: fleet.Fixed, Replicas: 2}, Rate: 1, Hours: 1, Trough: 0.5, Attainment: 0.99}
	bw := batching.DefaultKVOffload(8)
	bw.Bandwidth = -1
	be := batching.DefaultKVOffload(8)
	be.Backend = "mooncake"
	hd := batching.DefaultKVOffload(8)
	hd.Backend, hd.HalfDuplex = batching.OffloadBackendLMCache, true
	for _, tc := range []struct {
		off        *batching.KVOffload
		field, msg string
	}{
		{batching.DefaultKVOffload(2e6), "kv-offloading-size", "kv-offloading-size: 2e+06 must be a number of GiB in [0, 1048576]"},
		{bw, "pcie-bandwidth", "pcie-bandwidth: -1 must be a finite number of bytes/s > 0"},
		{be, "kv-offloading-backend", `kv-offloading-backend: "mooncake" is not modelled`},
		{hd, "kv-offload.pcie_half_duplex", `kv-offload.pcie_half_duplex: true does not apply to kv_offloading_backend "lmcache"`},
	} {
		d := base
		d.KVOffload = tc.off
		err := d.Validate()
		var fe *fielderr.Error
		if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%+v: error %v, want a field error on %s with %q", tc.off, err, tc.field, tc.msg)
		}
	}
	if _, err := batching.NewKVOffload(0, "", 25e9); err == nil || !strings.Contains(err.Error(), "pcie_bandwidth: 2.5e+10 needs kv_offloading_size") {
		t.Errorf("a bandwidth without a size: %v", err)
	}
}

// TestDayKVOffloadLoadedRequestsPass: one replica at 0.8 req/s on the same
// small pool used to stop with "idle with 11 waiting and 0 running": a
// preempted request at the head of the line did not fit beside the blocks
// of four loaded requests waiting behind it, and nothing ran to free any.
// The head now steps aside for them, and the day runs to its end with
// every request ended.
func TestDayKVOffloadLoadedRequestsPass(t *testing.T) {
	t.Parallel()
	rep := offloadDayAt(t, batching.DefaultKVOffload(512), 1, 0.8)
	if n := rep.Result.InFlight; n != 0 {
		t.Errorf("%d requests still in flight at the end of the day", n)
	}
	if rep.Result.Completed == 0 {
		t.Error("no request completed")
	}
}

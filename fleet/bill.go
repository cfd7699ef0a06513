package fleet

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/servesim/servesim/plan"
)

// Power is one GPU's power model, watts: Idle when it computes nothing,
// Board at full utilisation; a step of utilisation u draws
// Idle + (Board − Idle)·u.
type Power struct {
	Idle  float64 `json:"idle_w" yaml:"idle_w"`
	Board float64 `json:"board_w" yaml:"board_w"`
}

// Validate requires 0 ≤ Idle ≤ Board, both finite.
func (p Power) Validate() error {
	if !(p.Idle >= 0) || !(p.Board >= p.Idle) || math.IsInf(p.Board, 1) {
		return invalidf("power idle %v W and board %v W must be finite with 0 <= idle <= board", p.Idle, p.Board)
	}
	return nil
}

// Watts returns the draw at utilisation u.
func (p Power) Watts(u float64) float64 { return p.Idle + (p.Board-p.Idle)*u }

// defaultPower holds the board power of each GPU from its vendor's
// datasheet (maximum board power / TDP, SXM or OAM parts at their
// default limit), read in May 2026:
//
//	h100-sxm, h200: 700 W (NVIDIA H100 and H200 Tensor Core GPU datasheets)
//	h100-pcie: 350 W (NVIDIA H100 datasheet, PCIe)
//	a100-80gb, a100-40gb: 400 W (NVIDIA A100 datasheet, SXM)
//	l40s: 350 W (NVIDIA L40S datasheet); l4: 72 W (NVIDIA L4 datasheet)
//	a10g: 150 W (NVIDIA A10 datasheet); rtx4090: 450 W (NVIDIA spec page)
//	b200: 1000 W (NVIDIA HGX B200, per GPU); mi300x: 750 W (AMD datasheet)
//
// Datasheets give no idle power. The idle figures assume 10% of board
// power (an H200 at 80 W idle against 700 W is one public measurement of
// that size); they are a documented assumption, not a measurement: pass
// a measured Power (nvidia-smi --query-gpu=power.draw on an idle, loaded
// GPU) for anything that matters.
var defaultPower = map[string]Power{
	"h100-sxm":  {70, 700},
	"h200":      {70, 700},
	"h100-pcie": {35, 350},
	"a100-80gb": {40, 400},
	"a100-40gb": {40, 400},
	"l40s":      {35, 350},
	"l4":        {7.2, 72},
	"a10g":      {15, 150},
	"rtx4090":   {45, 450},
	"b200":      {100, 1000},
	"mi300x":    {75, 750},
}

// PowerSource names where DefaultPower comes from, for reports.
const PowerSource = "vendor datasheets' board power (May 2026); idle assumed 10% of board"

// DefaultPower returns the built-in power model of GPU gpu (a cost catalog
// name), or an error saying to pass one.
func DefaultPower(gpu string) (Power, error) {
	p, ok := defaultPower[gpu]
	if !ok {
		return Power{}, invalidf("gpu %q has no default power (known: %v): set the pool's power", gpu, slices.Sorted(maps.Keys(defaultPower)))
	}
	return p, nil
}

// DefaultPrice returns plan's built-in price of GPU gpu, dollars per
// GPU-hour (plan.PriceSource), or an error saying to pass one.
func DefaultPrice(gpu string) (float64, error) {
	p, ok := plan.DefaultPrices()[gpu]
	if !ok {
		return 0, invalidf("gpu %q has no default price (%s): set the pool's price", gpu, plan.PriceSource)
	}
	return p, nil
}

// Startup is how long a new replica takes to serve, seconds: a node to
// start, the image to pull, the weights to load (the replica's weight
// bytes over StorageBandwidth, all ranks reading through one node's
// storage), and CUDA-graph capture with warm-up. The replica is billed
// from the moment it is asked for.
type Startup struct {
	NodeStart    float64 `json:"node_start" yaml:"node_start"`
	ImagePull    float64 `json:"image_pull" yaml:"image_pull"`
	GraphCapture float64 `json:"graph_capture" yaml:"graph_capture"`
	// StorageBandwidth is bytes/s; +Inf loads instantly.
	StorageBandwidth float64 `json:"storage_bandwidth" yaml:"storage_bandwidth"`
}

// DefaultStartup is an assumed cold start on a cloud GPU node, not a
// measurement: 120 s to provision and boot a node, 60 s to pull a vLLM
// image (about 10 GB at some 170 MB/s), weights at 1 GB/s (a network
// volume or object store; local NVMe is several times faster), and 30 s
// of CUDA-graph capture and warm-up (vLLM logs graph capture in the tens
// of seconds). Pass measured figures for your platform.
var DefaultStartup = Startup{NodeStart: 120, ImagePull: 60, GraphCapture: 30, StorageBandwidth: 1e9}

// Validate requires finite times ≥ 0 and a bandwidth > 0.
func (s Startup) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"node_start", s.NodeStart}, {"image_pull", s.ImagePull}, {"graph_capture", s.GraphCapture}} {
		if !(f.v >= 0) || math.IsInf(f.v, 1) {
			return invalidf("startup %s %v s must be a finite number >= 0", f.name, f.v)
		}
	}
	if !(s.StorageBandwidth > 0) {
		return invalidf("startup storage_bandwidth %v bytes/s must be > 0 (+Inf loads instantly)", s.StorageBandwidth)
	}
	return nil
}

// Delay returns the start-up time of a replica holding weightBytes.
func (s Startup) Delay(weightBytes float64) float64 {
	return s.NodeStart + s.ImagePull + weightBytes/s.StorageBandwidth + s.GraphCapture
}

func (s Startup) String() string {
	return fmt.Sprintf("node %gs + image %gs + weights at %g GB/s + graphs %gs", s.NodeStart, s.ImagePull, s.StorageBandwidth/1e9, s.GraphCapture)
}

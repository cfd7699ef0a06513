package plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/cost/topology"
	"github.com/servesim/servesim/disagg"
	"github.com/servesim/servesim/sim"
)

// PDShape is one disaggregated configuration of a plan's space
// (Space.Disaggregated): a unit of Prefill prefill and Decode decode
// instances (the P:D ratio), each pool with its GPU type and TP. An empty
// PrefillGPU or DecodeGPU searches every GPU of the space for that pool, a
// zero PrefillTP or DecodeTP every TP degree of the space; the plan then
// finds the fewest units that pass (n units: n·Prefill and n·Decode
// instances behind one proxy), beside the colocated candidates, under
// the same objective.
type PDShape struct {
	Prefill    int    `json:"prefill_instances" yaml:"prefill_instances"`
	Decode     int    `json:"decode_instances" yaml:"decode_instances"`
	PrefillGPU string `json:"prefill_gpu,omitempty" yaml:"prefill_gpu,omitempty"`
	PrefillTP  int    `json:"prefill_tp,omitempty" yaml:"prefill_tp,omitempty"`
	DecodeGPU  string `json:"decode_gpu,omitempty" yaml:"decode_gpu,omitempty"`
	DecodeTP   int    `json:"decode_tp,omitempty" yaml:"decode_tp,omitempty"`
}

// maxPDUnit bounds the instances of one side of a P/D unit.
const maxPDUnit = 16

// String writes the shape as ParsePDShapes reads it: "2P1D",
// "2P1D:h100-sxm/4:a100-80gb/4" ("*" for a pool's GPU or TP left to the
// search).
func (s PDShape) String() string {
	out := fmt.Sprintf("%dP%dD", s.Prefill, s.Decode)
	if s.PrefillGPU == "" && s.PrefillTP == 0 && s.DecodeGPU == "" && s.DecodeTP == 0 {
		return out
	}
	pool := func(g string, tp int) string {
		if g == "" {
			g = "*"
		}
		t := "*"
		if tp > 0 {
			t = strconv.Itoa(tp)
		}
		return g + "/" + t
	}
	return out + ":" + pool(s.PrefillGPU, s.PrefillTP) + ":" + pool(s.DecodeGPU, s.DecodeTP)
}

// ParsePDShapes reads a comma-separated list of shapes: "xPyD" (each
// pool's GPU and TP searched) or "xPyD:GPU/TP:GPU/TP" for the prefill and
// the decode pool, "*" leaving a GPU or a TP to the search
// ("2P1D:h100-sxm/4:a100-80gb/*").
func ParsePDShapes(text string) ([]PDShape, error) {
	var out []PDShape
	for _, f := range strings.Split(text, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		s, err := parsePDShape(f)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no P/D shape in %q: give xPyD or xPyD:GPU/TP:GPU/TP", ErrInvalid, text)
	}
	return out, nil
}

func parsePDShape(f string) (PDShape, error) {
	bad := func(why string) error {
		return fmt.Errorf("%w: P/D shape %q: %s (want xPyD or xPyD:GPU/TP:GPU/TP, e.g. 2P1D:h100-sxm/4:a100-80gb/4)", ErrInvalid, f, why)
	}
	parts := strings.Split(f, ":")
	if len(parts) != 1 && len(parts) != 3 {
		return PDShape{}, bad("it has " + strconv.Itoa(len(parts)) + " colon-separated parts")
	}
	ratio := strings.ToUpper(parts[0])
	x, y, ok := strings.Cut(strings.TrimSuffix(ratio, "D"), "P")
	if !ok || !strings.HasSuffix(ratio, "D") {
		return PDShape{}, bad("the ratio is not xPyD")
	}
	var s PDShape
	var err error
	if s.Prefill, err = strconv.Atoi(x); err != nil {
		return PDShape{}, bad("prefill count " + strconv.Quote(x) + " is not a whole number")
	}
	if s.Decode, err = strconv.Atoi(y); err != nil {
		return PDShape{}, bad("decode count " + strconv.Quote(y) + " is not a whole number")
	}
	if len(parts) == 3 {
		for i, dst := range []struct {
			gpu *string
			tp  *int
		}{{&s.PrefillGPU, &s.PrefillTP}, {&s.DecodeGPU, &s.DecodeTP}} {
			g, t, ok := strings.Cut(parts[1+i], "/")
			if !ok {
				return PDShape{}, bad("pool " + strconv.Quote(parts[1+i]) + " is not GPU/TP")
			}
			if g != "*" {
				*dst.gpu = g
			}
			if t != "*" {
				if *dst.tp, err = strconv.Atoi(t); err != nil || *dst.tp < 1 {
					return PDShape{}, bad("tp " + strconv.Quote(t) + " is not a whole number >= 1 or *")
				}
			}
		}
	}
	return s, s.validate(-1, nil)
}

// validate checks the counts, and with gpus (the space's GPU names) that
// a named GPU is searched; i ≥ 0 names the shape's index in errors.
func (s PDShape) validate(i int, gpus []string) error {
	name := "P/D shape " + s.String()
	if i >= 0 {
		name = fmt.Sprintf("disaggregated[%d] %s", i, s.String())
	}
	switch {
	case s.Prefill < 1 || s.Prefill > maxPDUnit || s.Decode < 1 || s.Decode > maxPDUnit:
		return fmt.Errorf("%w: %s: prefill and decode instances %d and %d must each be in [1, %d]", ErrInvalid, name, s.Prefill, s.Decode, maxPDUnit)
	case s.PrefillTP < 0 || s.DecodeTP < 0:
		return fmt.Errorf("%w: %s: tp must be >= 1 (0: searched)", ErrInvalid, name)
	}
	if gpus != nil {
		for _, g := range []string{s.PrefillGPU, s.DecodeGPU} {
			if g != "" && !slices.Contains(gpus, g) {
				return fmt.Errorf("%w: %s: gpu %s is not among the GPUs searched (%s): add it to the GPUs", ErrInvalid, name, g, strings.Join(gpus, ", "))
			}
		}
	}
	return nil
}

// PDSettings describes a disaggregated candidate: each pool's engine
// settings and its instances a unit, and the KV link.
type PDSettings struct {
	Prefill          Settings `json:"prefill"`
	Decode           Settings `json:"decode"`
	PrefillInstances int      `json:"prefill_instances_per_unit"`
	DecodeInstances  int      `json:"decode_instances_per_unit"`
	Link             string   `json:"kv_link"`
}

// PDUnit is the Replica of a disaggregated candidate: n units are
// n·X prefill and n·Y decode instances of PD behind its proxy.
type PDUnit struct {
	PD   PD
	X, Y int
}

// Servers returns n units' pools.
func (u PDUnit) Servers(n int) sim.ServerConfig { return u.PD.Config(u.X*n, u.Y*n) }

// Screen rejects a unit whose prefill or decode engine vLLM would refuse
// (Invalid) or whose weights leave no room for one request's KV
// (DoesNotFit), each pool by Engine.Screen. It gives no roofline: a pool's
// own (Engine.Screen's, for whole requests) bounds neither side alone.
func (u PDUnit) Screen(d Demand) Screening {
	for _, side := range []struct {
		name string
		e    Engine
	}{{"prefill", u.PD.Prefill}, {"decode", u.PD.Decode}} {
		sc := side.e.Screen(d)
		if sc.Reason == Invalid || sc.Reason == DoesNotFit {
			return Screening{Reason: sc.Reason, Why: side.name + " pool: " + sc.Why}
		}
	}
	return Screening{}
}

// pdCount returns the disaggregated candidates of the space (bounded by
// MaxCandidates+1).
func (s Space) pdCount() int {
	n := 0
	for _, sh := range s.Disaggregated {
		k := 1
		for _, c := range []int{pick(sh.PrefillGPU == "", len(s.GPUs)), pick(sh.PrefillTP == 0, len(s.TP)),
			pick(sh.DecodeGPU == "", len(s.GPUs)), pick(sh.DecodeTP == 0, len(s.TP)), len(orDefault(s.Precisions, cost.BF16))} {
			k *= c
		}
		n += k
		if n > MaxCandidates {
			return MaxCandidates + 1
		}
	}
	return n
}

func pick(all bool, n int) int {
	if all {
		return n
	}
	return 1
}

// validatePD checks the space's disaggregated shapes.
func (p Plan) validatePD() error {
	names := make([]string, len(p.Space.GPUs))
	for i, g := range p.Space.GPUs {
		names[i] = g.GPU.Name
	}
	for i, sh := range p.Space.Disaggregated {
		if err := sh.validate(i, names); err != nil {
			return err
		}
		if n := max(sh.Prefill, sh.Decode) * p.Search.MaxReplicas; n > disagg.MaxInstances {
			return fmt.Errorf("%w: disaggregated[%d] %s times max_replicas %d make %d instances of one pool, more than %d: lower max_replicas or the shape's counts",
				ErrInvalid, i, sh, p.Search.MaxReplicas, n, disagg.MaxInstances)
		}
	}
	if len(p.Space.Disaggregated) > 0 && p.Model.Experts > 0 && len(p.Space.DataParallel) > 0 && slices.Max(p.Space.DataParallel) > 1 {
		return fmt.Errorf("%w: disaggregated: pools with data_parallel > 1 are not modelled: leave data_parallel out of a P/D plan", ErrInvalid)
	}
	return nil
}

// pdCandidates appends the disaggregated candidates, numbered from
// len(out): for each shape, each pool's GPU (prefill-major) and TP, and
// each precision (both pools alike). Each pool's scheduler knobs are the
// first of the space's lists (or the engine template's), at that pool's
// GPU's vllm serve defaults when unset; the KV link is
// topology.DefaultLinkName.
func (p Plan) pdCandidates(out []Candidate) []Candidate {
	s := p.Space
	maxLen := p.maxModelLen()
	link, _ := topology.LinkByName(topology.DefaultLinkName)
	gpus := func(name string) []GPUOption {
		if name == "" {
			return s.GPUs
		}
		i := slices.IndexFunc(s.GPUs, func(g GPUOption) bool { return g.GPU.Name == name })
		return s.GPUs[i : i+1]
	}
	tps := func(tp int) []int {
		if tp == 0 {
			return s.TP
		}
		return []int{tp}
	}
	settings := func(g GPUOption, tp int, prec cost.Precision) Settings {
		chunk := orDefault(s.ChunkedPrefill, p.Engine.EnableChunkedPrefill)[0]
		seqs, mnbt := serveKnobs(g.GPU, orDefault(s.MaxNumSeqs, p.Engine.MaxNumSeqs)[0], orDefault(s.MaxNumBatchedTokens, p.Engine.MaxNumBatchedTokens)[0], chunk, maxLen)
		return Settings{GPU: g.GPU.Name, TP: tp, MaxNumSeqs: seqs, MaxNumBatchedTokens: mnbt, ChunkedPrefill: chunk, Precision: prec, MaxModelLen: maxLen}
	}
	for _, sh := range s.Disaggregated {
		for _, pg := range gpus(sh.PrefillGPU) {
			for _, ptp := range tps(sh.PrefillTP) {
				for _, dg := range gpus(sh.DecodeGPU) {
					for _, dtp := range tps(sh.DecodeTP) {
						for _, prec := range orDefault(s.Precisions, cost.BF16) {
							ps, ds := settings(pg, ptp, prec), settings(dg, dtp, prec)
							pprice, _ := pg.price()
							dprice, _ := dg.price()
							gpuCount := sh.Prefill*ptp + sh.Decode*dtp
							c := Candidate{Index: len(out), GPUs: gpuCount,
								PricePerGPUHour: (float64(sh.Prefill*ptp)*pprice + float64(sh.Decode*dtp)*dprice) / float64(gpuCount),
								Name:            fmt.Sprintf("%dP%dD %s tp%d / %s tp%d %s", sh.Prefill, sh.Decode, pg.GPU.Name, ptp, dg.GPU.Name, dtp, prec),
								Settings:        Settings{GPU: pg.GPU.Name + "+" + dg.GPU.Name, Precision: prec},
								Disagg:          &PDSettings{Prefill: ps, Decode: ds, PrefillInstances: sh.Prefill, DecodeInstances: sh.Decode, Link: link.Name}}
							pe, pok := p.engine(pg, ps).(Engine)
							de, dok := p.engine(dg, ds).(Engine)
							if !pok || !dok {
								c.Replica = unbuildable{reason: Invalid, why: "a pool's precision does not apply to " + p.Model.Name}
							} else {
								c.Replica = PDUnit{PD: PD{Prefill: pe, Decode: de, PrefillPrice: pprice, DecodePrice: dprice, Link: link}, X: sh.Prefill, Y: sh.Decode}
							}
							out = append(out, c)
						}
					}
				}
			}
		}
	}
	return out
}

// pdCommands returns the command lines of n units of a disaggregated
// winner, one per line: each instance's vllm serve, the proxy's, and the
// vllm bench serve that checks it through the proxy (port 8000).
func (p Plan) pdCommands(u PDUnit, n int) (serve, bench string) {
	lines := PDServeCommands(p.served(), u.PD, u.X*n, u.Y*n)
	return strings.Join(lines, "\n  "), BenchCommand(p.served(), p.Objective, n*p.Search.Requests, n*p.Search.Warmup)
}

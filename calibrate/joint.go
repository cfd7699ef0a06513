package calibrate

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/servesim/servesim/cost"
	"gonum.org/v1/gonum/mat"
)

// TermPrior is the prior of one knob in FitJoint: the start profile's
// value is its centre, Uncertainty its width, and the fit moves the knob
// only inside [centre/e^u, centre·e^u] (multiplicative: u = Uncertainty, a
// log ratio) or [centre − u, centre + u] clipped at 0 (Additive: u in the
// knob's unit, for a knob whose prior is 0).
type TermPrior struct {
	Knob        Knob
	Uncertainty float64
	Additive    bool
	// Why says where the centre and the width come from.
	Why string
}

// The default priors of FitJoint. The kernel terms are per GPU, centred
// on the catalog profile (per-operator measurements, cost/profiles); the
// CPU-side terms are per vLLM version band, centred on the catalog's
// values (the same on every GPU: the serving fit of H100 version 7).
var (
	// DefaultKernelPriors are the per-GPU kernel terms: the large-step
	// GEMM fraction (±15%: aiconfigurator's per-operator GEMM tables spread
	// that much between shapes at one precision), the weight-streaming
	// fraction (±10%: the per-operator small-batch GEMMs' spread) and the
	// per-layer kernel time (×/÷ 1.5: the catalog fits it on serving rows;
	// it is not a per-operator number).
	DefaultKernelPriors = []TermPrior{
		{GEMMMax, math.Log(1.15), false, "per-operator GEMM tables of the GPU, ±15%"},
		{Bandwidth, math.Log(1.10), false, "per-operator small-batch GEMMs of the GPU, ±10%"},
		{StepPerLayer, math.Log(1.5), false, "catalog serving fit, ×/÷ 1.5"},
	}
	// DefaultCPUPriors are the per-version-band CPU-side terms a + b·running
	// and the frontend: the fixed step time (0 + 2 ms: the catalog has
	// none), the time per running sequence and the per-request frontend
	// time (each ×/÷ 2 around the catalog's H100 serving fit).
	DefaultCPUPriors = []TermPrior{
		{StepBase, 0.002, true, "catalog 0, + up to 2 ms"},
		{StepPerSeq, math.Log(2), false, "catalog serving fit, ×/÷ 2"},
		{Frontend, math.Log(2), false, "catalog serving fit, ×/÷ 2"},
	}
)

// StudyJointOptions are the joint fit of docs/fidelity.md's regime study
// and of `servesim calibrate --joint`: every term of DefaultKernelPriors
// (the GEMM fraction per GPU and precision family) and DefaultCPUPriors,
// on at most 12 runs of each (GPU, version band, precision family) cell, 5
// Levenberg–Marquardt iterations.
var StudyJointOptions = JointOptions{GEMMByPrecision: true, MaxRowsPerCell: 12, Iterations: 5}

// JointOptions configures FitJoint.
type JointOptions struct {
	// Kernel are the per-GPU terms (nil: DefaultKernelPriors).
	Kernel []TermPrior
	// CPU are the per-version-band terms (nil: DefaultCPUPriors).
	CPU []TermPrior
	// Band names a point's vLLM version band (nil: VersionBand of its
	// BackendVersion).
	Band func(Point) string
	// GEMMByPrecision fits the large-step GEMM fraction (GEMMMax, when
	// among Kernel) per GPU and weight-precision family (GEMMFamily) rather
	// than per GPU: FP8 and FP4 GEMMs reach other fractions of their peaks
	// than BF16 ones, and per-operator tables time them with other kernels
	// (block-scaled FP8 among them) than a serving checkpoint runs.
	GEMMByPrecision bool
	// Start returns the profile a GPU's terms start from, their priors'
	// centres (nil: cost.DefaultProfile of the GPU).
	Start func(gpu string) (cost.Profile, error)
	// Metrics are compared where measured (nil: TPOT and TTFT).
	Metrics []Metric
	// MaxRowsPerCell caps the points of each (GPU, band, GEMMFamily) cell
	// the fit simulates, taken evenly from the cell in ID order and each
	// weighted by the cell's points over those taken (0: every point).
	MaxRowsPerCell int
	// Iterations bounds the Levenberg–Marquardt iterations (0: 8).
	Iterations int
	// MaxSimulations bounds the simulations of the whole (sampled) set,
	// counted in whole-set equivalents, Jacobian columns included (0: 80).
	MaxSimulations int
	// Noise is the relative error a row is expected to have on its own,
	// which weighs the prior against the data: the loss adds
	// (Noise²/rows)·Σ z², z a term's move in units of its uncertainty.
	// 0 estimates it from the rows (EstimateNoise of their log errors at
	// the priors); negative: no prior term, the bounds only.
	Noise float64
}

// JointTerm is one fitted term: a knob of one GPU (kernel terms) or of
// one vLLM version band (CPU-side terms).
type JointTerm struct {
	Knob Knob
	// Group is the GPU (kernel terms), the GPU and a weight-precision
	// family ("h100-sxm fp8": GEMMByPrecision) or the version band
	// (CPU-side).
	Group string
	// CPU is set for a version-band term.
	CPU bool
	// Prior is the centre, Value the fitted value, Uncertainty the
	// prior's width (a log ratio, or the knob's unit when Additive).
	Prior, Value, Uncertainty float64
	Additive                  bool
	// Rows counts the fitted points this term prices (0: left at its
	// prior).
	Rows int
}

// Moved returns how far the fit moved the term, in units of its
// uncertainty, in [−1, 1].
func (t JointTerm) Moved() float64 {
	if t.Additive {
		return (t.Value - t.Prior) / t.Uncertainty
	}
	return math.Log(t.Value/t.Prior) / t.Uncertainty
}

func (t JointTerm) at(x float64) float64 {
	if t.Additive {
		return math.Max(0, t.Prior+t.Uncertainty*math.Tanh(x))
	}
	v := t.Prior * math.Exp(t.Uncertainty*math.Tanh(x))
	if knobs[t.Knob].fraction {
		v = math.Min(v, 1)
	}
	return v
}

// JointFit is the outcome of FitJoint: every term, and the profile each
// (GPU, band) pair prices with.
type JointFit struct {
	Terms []JointTerm
	// Rows counts the points simulated in the fit.
	Rows int
	// StartLoss and Loss are the robust loss (JointLoss) of the fitted
	// points plus the prior term, at the priors and fitted.
	StartLoss, Loss float64
	// Iterations counts the Levenberg–Marquardt iterations run.
	Iterations int
	// Noise is the per-row relative error the prior was weighed against
	// (JointOptions.Noise, or its estimate); 0 without a prior term.
	Noise float64
	band  func(Point) string
	start func(string) (cost.Profile, error)
}

// GEMMFamily returns the weight-precision family of a point's GEMMs:
// "fp8" (FP8 and INT8 weights), "fp4" (NVFP4, MXFP4, INT4) or "bf16".
func GEMMFamily(p Point) string {
	switch q := strings.ToLower(p.Precision); {
	case strings.Contains(q, "fp8"), strings.Contains(q, "int8"):
		return "fp8"
	case strings.Contains(q, "4"):
		return "fp4"
	}
	return "bf16"
}

// applies reports whether t prices a point of gpu, band and family.
func (t JointTerm) applies(gpu, band, family string) bool {
	if t.CPU {
		return t.Group == band
	}
	return t.Group == gpu || t.Group == gpu+" "+family
}

// Profile returns the profile a point of gpu in band, of weight-precision
// family (GEMMFamily), runs under: the start profile of gpu with the
// fitted kernel terms of gpu (and family) and the CPU-side terms of band;
// a GPU, family or band the fit had no points of keeps its prior.
func (j JointFit) Profile(gpu, band, family string) (cost.Profile, error) {
	p, err := j.start(gpu)
	if err != nil {
		return cost.Profile{}, err
	}
	for _, t := range j.Terms {
		if t.applies(gpu, band, family) {
			t.Knob.Set(&p, t.Value)
		}
	}
	p.Provenance.Source = fmt.Sprintf("calibrate.FitJoint (%s, band %s) from %s", gpu, band, p.Provenance.Source)
	p.Provenance.Version += "+joint"
	return p, nil
}

// Residuals re-simulates points, each under Profile of its GPU and band.
func (j JointFit) Residuals(s Simulator, points []Point, metrics []Metric) ([]Residual, error) {
	order, cells := j.cells(points)
	var out []Residual
	for _, c := range order {
		prof, err := j.Profile(c.gpu, c.band, c.family)
		if err != nil {
			return nil, err
		}
		rs, err := s.Residuals(pick(points, cells[c]), prof, metrics)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return out, nil
}

// VersionBand returns the vLLM version band of a version string: "0.11-0.12"
// (the V1 engine before async scheduling), "0.13-0.17", "0.18+" (a
// nightly counts as the newest), or "unrecorded" for "".
func VersionBand(version string) string {
	minor, ok := vllmMinor(version)
	switch {
	case !ok:
		return "unrecorded"
	case minor <= 12:
		return "0.11-0.12"
	case minor <= 17:
		return "0.13-0.17"
	}
	return "0.18+"
}

// vllmMinor returns the minor number of a vLLM version "0.X[.Y]" (a
// leading "v" allowed), math.MaxInt for a nightly (the newest), and false
// for "" or anything else.
func vllmMinor(version string) (int, bool) {
	v := strings.TrimPrefix(strings.TrimSpace(version), "v")
	if strings.HasPrefix(v, "nightly") {
		return math.MaxInt, true
	}
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 || parts[0] != "0" {
		return 0, false
	}
	minor, err := strconv.Atoi(parts[1])
	return minor, err == nil
}

// JointLoss is FitJoint's loss of a set of residuals: the mean of a
// pseudo-Huber function of each log error, δ²(√(1 + (e/δ)²) − 1) with
// δ = 0.25, quadratic within about 25% and linear beyond, so that the rows
// a model gap leaves several times off (closed-loop lockstep, data-parallel
// approximations: docs/fidelity.md) do not pull every term. A
// non-positive prediction counts as a log error of 10.
func JointLoss(rs []Residual) float64 {
	es := make([]float64, len(rs))
	for i, r := range rs {
		es[i] = 10
		if r.Predicted > 0 && !math.IsInf(r.Predicted, 0) {
			es[i] = math.Log(r.Predicted / r.Measured)
		}
	}
	return huberMean(es, nil)
}

// huberDelta is JointLoss's δ: log errors within about 25% count
// quadratically.
const huberDelta = 0.25

// huberMean is the mean pseudo-Huber function of log errors, weighted by
// ws (nil: equal weights; 0 for no errors).
func huberMean(es, ws []float64) float64 {
	s, sw := 0.0, 0.0
	for i, e := range es {
		w := 1.0
		if ws != nil {
			w = ws[i]
		}
		s += w * huberDelta * huberDelta * (math.Sqrt(1+e*e/(huberDelta*huberDelta)) - 1)
		sw += w
	}
	if sw == 0 {
		return 0
	}
	return s / sw
}

// FitJoint fits one set of terms over every point at once: kernel terms
// per GPU (opt.Kernel) and CPU-side terms per vLLM version band (opt.CPU),
// each bounded by its prior (TermPrior) and weighed against it (Noise).
// The loss is JointLoss of every point's metrics, each point priced by its
// GPU's kernel terms and its band's CPU-side terms, plus the prior term
// (Noise²/rows)·Σ z². It is minimised over all terms together by
// Levenberg–Marquardt on the log errors, robust weights recomputed each
// iteration (iteratively reweighted least squares of the pseudo-Huber
// loss), with a finite-difference Jacobian: a term prices only its own
// GPU's or band's points, so its column re-simulates only those.
// Every evaluation simulates with the same seeds, so the fit is
// deterministic.
func (s Simulator) FitJoint(points []Point, opt JointOptions) (JointFit, error) {
	if len(points) == 0 {
		return JointFit{}, invalidf("joint fit: no points")
	}
	if opt.Kernel == nil {
		opt.Kernel = DefaultKernelPriors
	}
	if opt.CPU == nil {
		opt.CPU = DefaultCPUPriors
	}
	for _, tp := range append(append([]TermPrior{}, opt.Kernel...), opt.CPU...) {
		if _, ok := knobs[tp.Knob]; !ok {
			return JointFit{}, invalidf("joint fit: unknown knob %q", tp.Knob)
		}
		if !(tp.Uncertainty > 0) || math.IsInf(tp.Uncertainty, 0) {
			return JointFit{}, invalidf("joint fit: knob %s: uncertainty %v must be > 0 and finite", tp.Knob, tp.Uncertainty)
		}
	}
	if opt.Band == nil {
		opt.Band = func(p Point) string { return VersionBand(p.BackendVersion) }
	}
	if opt.Start == nil {
		opt.Start = func(name string) (cost.Profile, error) {
			g, err := cost.GPU(name)
			if err != nil {
				return cost.Profile{}, err
			}
			return cost.DefaultProfile(g), nil
		}
	}
	if opt.Metrics == nil {
		opt.Metrics = []Metric{TPOT, TTFT}
	}
	if opt.Iterations <= 0 {
		opt.Iterations = 8
	}
	if opt.MaxSimulations <= 0 {
		opt.MaxSimulations = 80
	}
	if math.IsNaN(opt.Noise) || math.IsInf(opt.Noise, 1) {
		return JointFit{}, invalidf("joint fit: noise %v must be a finite relative error (0: estimated from the rows; negative: no prior term)", opt.Noise)
	}
	pts, ptW := sampleCells(points, opt.Band, opt.MaxRowsPerCell)
	j := JointFit{Rows: len(pts), band: opt.Band, start: opt.Start}
	gpuPts, famPts, bandPts := map[string][]int{}, map[string][]int{}, map[string][]int{}
	for i, p := range pts {
		gpuPts[p.GPU] = append(gpuPts[p.GPU], i)
		famPts[p.GPU+" "+GEMMFamily(p)] = append(famPts[p.GPU+" "+GEMMFamily(p)], i)
		bandPts[opt.Band(p)] = append(bandPts[opt.Band(p)], i)
	}
	var members [][]int // the points each term prices
	add := func(groups map[string][]int, priors []TermPrior, cpu bool) error {
		ks := make([]string, 0, len(groups))
		for k := range groups {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, g := range ks {
			gpu := g
			if !cpu {
				gpu = pts[groups[g][0]].GPU
			}
			if cpu {
				// A band's centre is the start profile of its first
				// point's GPU (the catalog's CPU-side terms are the same
				// on every GPU).
				gpu = pts[groups[g][0]].GPU
			}
			prof, err := opt.Start(gpu)
			if err != nil {
				return err
			}
			for _, tp := range priors {
				centre := tp.Knob.Get(prof)
				if !tp.Additive && !(centre > 0) {
					return invalidf("joint fit: knob %s of %s: a multiplicative prior needs a centre > 0, the start has %v (make it Additive)", tp.Knob, g, centre)
				}
				j.Terms = append(j.Terms, JointTerm{Knob: tp.Knob, Group: g, CPU: cpu, Prior: centre, Value: centre,
					Uncertainty: tp.Uncertainty, Additive: tp.Additive, Rows: len(groups[g])})
				members = append(members, groups[g])
			}
		}
		return nil
	}
	kernel := opt.Kernel
	if opt.GEMMByPrecision {
		var rest []TermPrior
		for _, tp := range opt.Kernel {
			if tp.Knob == GEMMMax {
				if err := add(famPts, []TermPrior{tp}, false); err != nil {
					return JointFit{}, err
				}
			} else {
				rest = append(rest, tp)
			}
		}
		kernel = rest
	}
	if err := add(gpuPts, kernel, false); err != nil {
		return JointFit{}, err
	}
	if err := add(bandPts, opt.CPU, true); err != nil {
		return JointFit{}, err
	}
	// logErrs returns the log error of every measured metric of the
	// points idx under x, in (point, metric) order.
	simulated := 0
	logErrs := func(x []float64, idx []int) ([]float64, error) {
		terms := append([]JointTerm{}, j.Terms...)
		for k := range terms {
			terms[k].Value = terms[k].at(x[k])
		}
		jf := j
		jf.Terms = terms
		sub := make([]Point, len(idx))
		for i, k := range idx {
			sub[i] = pts[k]
		}
		simulated += len(idx)
		pred, err := jf.predict(s, sub)
		if err != nil {
			return nil, err
		}
		var out []float64
		for i, p := range sub {
			for _, m := range opt.Metrics {
				if v := p.Measured.Get(m); v > 0 {
					e := 10.0
					if pv := pred[i].Get(m); pv > 0 && !math.IsInf(pv, 0) {
						e = math.Log(pv / v)
					}
					out = append(out, e)
				}
			}
		}
		return out, nil
	}
	all := make([]int, len(pts))
	for i := range all {
		all[i] = i
	}
	// rowsOf maps each point to its residuals' positions.
	// rowW weighs each residual by the points of its cell its point
	// stands for (1 without sampling), sumW is their sum.
	var rowsOf [][]int
	var rowW []float64
	n, sumW := 0, 0.0
	for i, p := range pts {
		var r []int
		for _, m := range opt.Metrics {
			if p.Measured.Get(m) > 0 {
				r = append(r, n)
				rowW = append(rowW, ptW[i])
				sumW += ptW[i]
				n++
			}
		}
		rowsOf = append(rowsOf, r)
	}
	if n == 0 {
		return JointFit{}, invalidf("joint fit: no measured metric among %v", opt.Metrics)
	}
	nt := len(j.Terms)
	x := make([]float64, nt)
	e, err := logErrs(x, all)
	if err != nil {
		return JointFit{}, err
	}
	noise := math.Max(opt.Noise, 0)
	if opt.Noise == 0 {
		noise = EstimateNoise(e)
	}
	j.Noise = noise
	moved := func(x []float64) float64 {
		z := 0.0
		for _, v := range x {
			z += math.Tanh(v) * math.Tanh(v)
		}
		return noise * noise * z / float64(len(points))
	}
	objective := func(e, x []float64) float64 { return huberMean(e, rowW) + moved(x) }
	j.StartLoss = objective(e, x)
	f := j.StartLoss
	lambda := 1e-2
	const h = 1e-3
	for iter := 0; iter < opt.Iterations && simulated < opt.MaxSimulations*len(pts); iter++ {
		// Robust weights of the current errors, and the Jacobian of the
		// log errors by forward differences, one term's points at a time.
		w := make([]float64, n)
		for i, v := range e {
			w[i] = rowW[i] / math.Sqrt(1+v*v/(huberDelta*huberDelta))
		}
		jac := make([][]float64, nt) // jac[k][row]
		for k := range nt {
			xk := append([]float64{}, x...)
			xk[k] += h
			ek, err := logErrs(xk, members[k])
			if err != nil {
				return JointFit{}, err
			}
			col := make([]float64, n)
			r := 0
			for _, pi := range members[k] {
				for _, row := range rowsOf[pi] {
					col[row] = (ek[r] - e[row]) / h
					r++
				}
			}
			jac[k] = col
		}
		// Normal equations of the weighted least squares: data rows
		// √(w/n)·e and prior rows (noise/√rows)·tanh x, linearised.
		a := mat.NewSymDense(nt, nil)
		g := make([]float64, nt)
		pw := noise * noise / float64(len(points))
		for k := range nt {
			for l := k; l < nt; l++ {
				v := 0.0
				for row := range n {
					v += w[row] * jac[k][row] * jac[l][row]
				}
				a.SetSym(k, l, v/sumW)
			}
			v := 0.0
			for row := range n {
				v += w[row] * jac[k][row] * e[row]
			}
			d := 1 - math.Tanh(x[k])*math.Tanh(x[k]) // d tanh / dx
			a.SetSym(k, k, a.At(k, k)+pw*d*d)
			g[k] = v/sumW + pw*math.Tanh(x[k])*d
		}
		improved := false
		for try := 0; try < 6; try++ {
			damped := mat.NewSymDense(nt, nil)
			damped.CopySym(a)
			for k := range nt {
				damped.SetSym(k, k, a.At(k, k)*(1+lambda)+1e-12)
			}
			var step mat.VecDense
			if err := step.SolveVec(damped, mat.NewVecDense(nt, g)); err != nil {
				lambda *= 10
				continue
			}
			xn := make([]float64, nt)
			for k := range nt {
				xn[k] = x[k] - step.AtVec(k)
			}
			en, err := logErrs(xn, all)
			if err != nil {
				return JointFit{}, err
			}
			if fn := objective(en, xn); fn < f {
				x, e, f = xn, en, fn
				lambda = math.Max(lambda/10, 1e-7)
				improved = true
				break
			}
			lambda *= 10
		}
		j.Iterations++
		if !improved {
			break
		}
	}
	for k := range j.Terms {
		j.Terms[k].Value = j.Terms[k].at(x[k])
	}
	j.Loss = f
	return j, nil
}

// MinNoise is the least per-row relative error EstimateNoise returns:
// repeated benchmark runs of one setup differ by a few per cent, so no
// row pins a term more finely than about 10%.
const MinNoise = 0.1

// EstimateNoise returns the per-row relative error of log errors es: their
// spread about their median, 1.4826 × the median absolute deviation (the
// standard deviation for normal errors, unmoved by a few wild rows), and
// at least MinNoise. A shared offset (every row 20% slow) is what the
// terms are there to correct, so it does not count; rows that disagree
// with one another (two sources that measure one setup differently) do,
// and weigh the prior more: the fit moves a term only as far as rows
// that agree ask for. No errors give MinNoise.
func EstimateNoise(es []float64) float64 {
	if len(es) == 0 {
		return MinNoise
	}
	s := append([]float64(nil), es...)
	med := median(s)
	for i, v := range s {
		s[i] = math.Abs(v - med)
	}
	return math.Max(MinNoise, 1.4826*median(s))
}

// predict re-simulates points under their GPU's and band's profiles and
// returns their metrics in the points' order.
func (j JointFit) predict(s Simulator, points []Point) ([]Metrics, error) {
	order, cells := j.cells(points)
	out := make([]Metrics, len(points))
	for _, c := range order {
		prof, err := j.Profile(c.gpu, c.band, c.family)
		if err != nil {
			return nil, err
		}
		m, err := s.Predict(pick(points, cells[c]), prof)
		if err != nil {
			return nil, err
		}
		for i, k := range cells[c] {
			out[k] = m[i]
		}
	}
	return out, nil
}

// jointCell is the (GPU, version band, weight-precision family) a point's
// terms are priced by.
type jointCell struct{ gpu, band, family string }

// cells groups points by jointCell: the cells in order of first
// appearance, and each one's point indices in order.
func (j JointFit) cells(points []Point) ([]jointCell, map[jointCell][]int) {
	idx := map[jointCell][]int{}
	var order []jointCell
	for i, p := range points {
		c := jointCell{p.GPU, j.band(p), GEMMFamily(p)}
		if _, ok := idx[c]; !ok {
			order = append(order, c)
		}
		idx[c] = append(idx[c], i)
	}
	return order, idx
}

// pick returns points[k] for each k of idx, in order.
func pick(points []Point, idx []int) []Point {
	out := make([]Point, len(idx))
	for i, k := range idx {
		out[i] = points[k]
	}
	return out
}

// sampleCells returns at most n points of each (GPU, band, family) cell,
// evenly spaced in ID order (every point when n ≤ 0), cells in sorted
// order, and each one's weight: the cell's points over those taken, so
// that the sample's weighted loss stands for the whole set's.
func sampleCells(points []Point, band func(Point) string, n int) ([]Point, []float64) {
	cells := map[string][]Point{}
	for _, p := range points {
		k := p.GPU + "\x00" + band(p) + "\x00" + GEMMFamily(p)
		cells[k] = append(cells[k], p)
	}
	var out []Point
	var ws []float64
	for _, k := range sortedGroups(cells) {
		c := cells[k]
		sort.SliceStable(c, func(a, b int) bool { return c[a].ID < c[b].ID })
		if n <= 0 || len(c) <= n {
			out = append(out, c...)
			for range c {
				ws = append(ws, 1)
			}
			continue
		}
		for i := range n {
			out = append(out, c[i*len(c)/n])
			ws = append(ws, float64(len(c))/float64(n))
		}
	}
	return out, ws
}

func sortedGroups(m map[string][]Point) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

package cost

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Measurement is one observed engine step.
type Measurement struct {
	// Batch is the shape of the step.
	Batch Batch
	// Time is the measured step time in seconds. For steady decode-only
	// steps the inter-token latency (ITL) is the step time: a decode step
	// of seqs requests at average context ctx that took itl seconds is
	// Measurement{Batch: DecodeBatch(seqs, ctx), Time: itl}.
	Time float64
}

// FitResult is the outcome of Fit.
type FitResult struct {
	// Eff is the fitted efficiency. A knob the points cannot determine
	// keeps its prior (the deployment's value, or DefaultEfficiency's when
	// that is zero).
	Eff Efficiency
	// BandwidthFitted reports whether some points were memory-bound, so
	// that Eff.Bandwidth comes from the data.
	BandwidthFitted bool
	// FLOPsFitted reports whether some points were compute-bound, so that
	// Eff.FLOPs comes from the data.
	FLOPsFitted bool
	// MemoryBound and ComputeBound count the points in each regime under
	// the fitted knobs.
	MemoryBound, ComputeBound int
	// RMSE is the root-mean-square error of the fitted step times, in
	// seconds.
	RMSE float64
	// MaxRelErr is the largest |predicted − measured| / measured.
	MaxRelErr float64
}

// Fit estimates the efficiency knobs of d — achieved bandwidth fraction,
// achieved FLOP fraction and per-step overhead — from measured steps, by
// least squares on the step-time model of Deployment.Step:
//
//	time − comm = max(m·x, c·z) + o,   x = 1/Eff.Bandwidth, z = 1/Eff.FLOPs
//
// where m and c are each step's ideal memory and compute times and comm its
// all-reduce time (taken as known from d). The max makes the problem
// piecewise linear: Fit classifies each point as memory- or compute-bound
// under the current estimate, solves the linear least-squares problem of
// that classification (gonum QR), and repeats until the classification
// settles, keeping the best fit seen. A negative overhead is clamped to 0.
//
// Decode points at a few batch sizes and contexts determine Bandwidth and
// StepOverhead; large prefill steps are needed for FLOPs. Fit needs at least
// as many points as unknowns. It fails with ErrFit when the points are
// degenerate or a fitted fraction exceeds 1 (measurements faster than the
// GPU's peak: check the GPU spec); the FitResult is still filled in then.
func Fit(d Deployment, points []Measurement) (FitResult, error) {
	if err := d.Validate(); err != nil {
		return FitResult{}, err
	}
	if len(points) < 2 {
		return FitResult{}, errorf(ErrFit, "fit needs >= 2 measurements, got %d", len(points))
	}
	ideal := d
	ideal.Eff = Efficiency{}
	ideal.Profile = nil
	sm := ideal.compile()
	n := len(points)
	m, c, y := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, p := range points {
		if err := p.Batch.validate(); err != nil {
			return FitResult{}, within(fmt.Sprintf("measurement %d", i), err)
		}
		if p.Batch.Tokens() == 0 {
			return FitResult{}, invalidf("measurement %d: empty batch", i)
		}
		if !positiveFinite(p.Time) {
			return FitResult{}, invalidf("measurement %d: time %v must be a finite number > 0", i, p.Time)
		}
		sc := sm.Step(p.Batch)
		m[i], c[i], y[i] = sc.MemoryTime, sc.ComputeTime, p.Time-sc.CommTime
	}

	prior := d.Eff
	def := DefaultEfficiency()
	if prior.Bandwidth == 0 {
		prior.Bandwidth = def.Bandwidth
	}
	if prior.FLOPs == 0 {
		prior.FLOPs = def.FLOPs
	}
	x, z := 1/prior.Bandwidth, 1/prior.FLOPs

	var (
		best    FitResult
		bestSSE = math.Inf(1)
		lastErr error
		memB    = make([]bool, n)
	)
	for iter := 0; iter < 50; iter++ {
		changed := false
		for i := range n {
			mb := m[i]*x >= c[i]*z
			changed = changed || mb != memB[i] || iter == 0
			memB[i] = mb
		}
		if !changed {
			break
		}
		nx, nz, o, fitX, fitZ, err := solveFit(m, c, y, memB, x, z)
		if err != nil {
			lastErr = err
			break
		}
		x, z = nx, nz
		sse, maxRel, nm := 0.0, 0.0, 0
		for i := range n {
			pred := math.Max(m[i]*x, c[i]*z) + o
			r := pred - y[i]
			sse += r * r
			maxRel = math.Max(maxRel, math.Abs(r)/points[i].Time)
			if m[i]*x >= c[i]*z {
				nm++
			}
		}
		if sse < bestSSE {
			bestSSE = sse
			best = FitResult{
				Eff:             Efficiency{Bandwidth: 1 / x, FLOPs: 1 / z, StepOverhead: o},
				BandwidthFitted: fitX, FLOPsFitted: fitZ,
				MemoryBound: nm, ComputeBound: n - nm,
				RMSE: math.Sqrt(sse / float64(n)), MaxRelErr: maxRel,
			}
		}
	}
	if math.IsInf(bestSSE, 1) {
		return FitResult{}, errorf(ErrFit, "%v", lastErr)
	}
	const tol = 1e-9
	if best.Eff.Bandwidth > 1+tol {
		return best, errorf(ErrFit, "fitted bandwidth efficiency %.3f > 1: steps are faster than gpu %q's %.4g B/s allows", best.Eff.Bandwidth, d.GPU.Name, d.GPU.BandwidthBytesPerS)
	}
	if best.Eff.FLOPs > 1+tol {
		return best, errorf(ErrFit, "fitted flops efficiency %.3f > 1: steps are faster than gpu %q's peak allows", best.Eff.FLOPs, d.GPU.Name)
	}
	best.Eff.Bandwidth = math.Min(best.Eff.Bandwidth, 1)
	best.Eff.FLOPs = math.Min(best.Eff.FLOPs, 1)
	return best, nil
}

// solveFit solves the linear least-squares problem of one classification:
// y ≈ x·m (memory-bound points) or z·c (compute-bound points) + o. A class
// without points keeps its coefficient (x0 or z0) and moves to the
// right-hand side. A negative o is refitted as o = 0.
func solveFit(m, c, y []float64, memB []bool, x0, z0 float64) (x, z, o float64, fitX, fitZ bool, err error) {
	for _, mb := range memB {
		fitX = fitX || mb
		fitZ = fitZ || !mb
	}
	x, z = x0, z0
	for _, intercept := range []bool{true, false} {
		cols := 0
		if fitX {
			cols++
		}
		if fitZ {
			cols++
		}
		if intercept {
			cols++
		}
		n := len(y)
		if n < cols {
			return 0, 0, 0, false, false, fmt.Errorf("%d measurements cannot determine %d unknowns", n, cols)
		}
		a := mat.NewDense(n, cols, nil)
		rhs := mat.NewVecDense(n, nil)
		for i := range n {
			j := 0
			r := y[i]
			if fitX {
				if memB[i] {
					a.Set(i, j, m[i])
				}
				j++
			} else if memB[i] {
				r -= x0 * m[i]
			}
			if fitZ {
				if !memB[i] {
					a.Set(i, j, c[i])
				}
				j++
			} else if !memB[i] {
				r -= z0 * c[i]
			}
			if intercept {
				a.Set(i, j, 1)
			}
			rhs.SetVec(i, r)
		}
		var sol mat.VecDense
		if err := sol.SolveVec(a, rhs); err != nil {
			return 0, 0, 0, false, false, fmt.Errorf("degenerate measurements: %v", err)
		}
		j := 0
		if fitX {
			x = sol.AtVec(j)
			j++
		}
		if fitZ {
			z = sol.AtVec(j)
			j++
		}
		o = 0
		if intercept {
			o = sol.AtVec(j)
		}
		if o >= 0 {
			break
		}
	}
	if !(x > 0) || !(z > 0) {
		return 0, 0, 0, false, false, fmt.Errorf("fitted inverse efficiencies x=%v z=%v must be > 0", x, z)
	}
	return x, z, o, fitX, fitZ, nil
}

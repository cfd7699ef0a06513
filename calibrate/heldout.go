package calibrate

import (
	"sort"

	"github.com/servesim/servesim/jobs"
)

// JointFold is one held-out group of HeldOut: the group's key, the joint fit
// on every other group's points, and the group's points predicted by it.
type JointFold struct {
	Key       string
	Fit       JointFit
	Residuals []Residual
}

// HeldOut is the held-out study of FitJoint: for each group of points
// (group maps a point to its key: its source for leave-one-source-out, its
// GPU for leave-one-GPU-out) it fits the joint terms on the other groups'
// points under opt and predicts the group's points (opt.Metrics, TPOT and
// TTFT when nil). A GPU, family or band no training point measures keeps
// its prior. The folds, in sorted key order, run in parallel on up to
// s.Workers goroutines (jobs.Each); each is deterministic, so the result
// does not depend on the parallelism. One group alone is an error: it
// leaves nothing to fit on.
func (s Simulator) HeldOut(points []Point, group func(Point) string, opt JointOptions) ([]JointFold, error) {
	byKey := map[string][]Point{}
	for _, p := range points {
		byKey[group(p)] = append(byKey[group(p)], p)
	}
	if len(byKey) < 2 {
		return nil, invalidf("held out: %d groups among %d points: leaving one out needs at least 2", len(byKey), len(points))
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	metrics := opt.Metrics
	if metrics == nil {
		metrics = []Metric{TPOT, TTFT}
	}
	out := make([]JointFold, len(keys))
	err := jobs.Each(len(keys), jobs.All, s.Workers, func(k, _ int) error {
		var train []Point
		for _, p := range points {
			if group(p) != keys[k] {
				train = append(train, p)
			}
		}
		fit, err := s.FitJoint(train, opt)
		if err != nil {
			return err
		}
		rs, err := fit.Residuals(s, byKey[keys[k]], metrics)
		if err != nil {
			return err
		}
		out[k] = JointFold{Key: keys[k], Fit: fit, Residuals: rs}
		return nil
	})
	return out, err
}

// JointFoldResiduals returns every fold's residuals, in fold order.
func JointFoldResiduals(folds []JointFold) []Residual {
	var out []Residual
	for _, f := range folds {
		out = append(out, f.Residuals...)
	}
	return out
}

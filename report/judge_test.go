package report

import (
	"testing"
	"time"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/vllmbench"
)

// TestBenchFileOnePassRule: a servesim bench result file is judged by
// capacity's rule, as run and capacity judge the run. max_model_len 1700
// rejects about a fifth of the random requests (inputs up to 1946 + 128
// out), so attainment clears the 0.5 target while the failure rate is far
// above capacity's 0.1%: the old attainment-only rule passed it.
func TestBenchFileOnePassRule(t *testing.T) {
	t.Parallel()
	for name, tt := range map[string]struct {
		maxModelLen int
		pass        bool
	}{"rejections": {1700, false}, "clean": {0, true}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := vllmbench.Defaults(true)
			o.NumPrompts, o.RequestRate, o.Seed, o.RandomRangeRatio = 300, 4, 3, "0.9"
			o.Server.MaxModelLen = tt.maxModelLen
			o.SLO = scenario.SLO{TTFTms: 5000, TPOTms: 200, Target: 0.5}
			sc, res := runBench(t, &o)
			verdict := capacity.DefaultCriteria(sc.SLO.Sim(), sc.SLO.Target).Judge(res, res.RequestRate)
			if verdict.Pass != tt.pass || (!tt.pass && !(res.Attainment >= 0.5 && verdict.FailureRate > 0.05)) {
				t.Fatalf("the case needs capacity's verdict %v (got %s) and, failing, attainment >= 0.5 (%v) with failures (%v)",
					tt.pass, verdict, res.Attainment, verdict.FailureRate)
			}
			data, err := vllmbench.ResultJSON(&o, sc, res, "20260102-030405", time.Unix(0, 0))
			if err != nil {
				t.Fatal(err)
			}
			r, err := Parse(data, "bench.json")
			if err != nil {
				t.Fatal(err)
			}
			if r.Points[0].Pass != tt.pass {
				t.Errorf("the report of the bench file says pass %v, capacity's rule %v", r.Points[0].Pass, tt.pass)
			}
		})
	}
}

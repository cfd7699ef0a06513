package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/report"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim"
)

// TestOnePassRule: servesim run, capacity's rule and the report judge the
// same run alike. The failing case is one the old run and report rules
// (attainment >= target and stable) passed: max_model_len 1700 rejects the
// random requests longer than it (inputs up to 1946 + 128 out), about a
// fifth of them, so attainment clears the 0.5 target while the failure
// rate is far above capacity's 0.1%.
func TestOnePassRule(t *testing.T) {
	t.Parallel()
	const base = "name: judge\nrequests: 300\nseed: 3\nworkload:\n  arrival: {rate: 4}\n" +
		"  lengths: {kind: random, input: 1024, output: 128, range_ratio: 0.9}\nslo: {ttft_ms: 5000, tpot_ms: 200, target: 0.5}\n"
	for name, tt := range map[string]struct {
		server string
		pass   bool
	}{
		"rejections": {"server: {max_model_len: 1700}\n", false},
		"clean":      {"server: {}\n", true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "s.yaml")
			require.NoError(t, os.WriteFile(file, []byte(base+tt.server), 0o644))

			sc, err := scenario.Load(file)
			require.NoError(t, err)
			x, err := sc.Experiment()
			require.NoError(t, err)
			require.Equal(t, 1, x.Size())
			_, cfg := x.Job(0)
			res, err := sim.Run(cfg)
			require.NoError(t, err)
			capVerdict := capacity.DefaultCriteria(sc.SLO.Sim(), sc.SLO.Target).Judge(res, res.RequestRate)
			if !tt.pass {
				require.Greater(t, capVerdict.FailureRate, 0.05, "the case needs rejections")
				require.GreaterOrEqual(t, res.Attainment, 0.5, "and attainment above the target")
			}
			assert.Equal(t, tt.pass, capVerdict.Pass, "capacity: %s", capVerdict)

			r := mustRun(t, "run", file, "--format", "json", "--quiet")
			out, err := scenario.ReadRunFile([]byte(r.stdout))
			require.NoError(t, err)
			rows, err := report.Rows(out)
			require.NoError(t, err)
			assert.Equal(t, tt.pass, rows[0].Pass, "servesim run")

			saved := filepath.Join(t.TempDir(), "run.json")
			require.NoError(t, os.WriteFile(saved, []byte(r.stdout), 0o644))
			rep, err := report.Load(saved)
			require.NoError(t, err)
			assert.Equal(t, tt.pass, rep.Points[0].Pass, "report of the run file")
			assert.Equal(t, tt.pass, report.FromResult(res, "lib").Points[0].Pass, "report of the library result")
		})
	}
}

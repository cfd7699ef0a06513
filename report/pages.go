package report

import (
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/report/chart"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/screen"
)

// The pages of the --report FILE flag of run and merge, capacity and tp
// (bench's is its result JSON's), and run's --plot.

// WriteSweepPlot draws the charts of a run or merge output (SweepCharts)
// to path, a .png or .svg file.
func WriteSweepPlot(path string, out *scenario.RunFile) error {
	r, err := FromRunFile(out)
	if err != nil {
		return err
	}
	return chart.WriteFile(path, SweepCharts(r)...)
}

// WriteRunPage writes the page of a run or merge output to path.
func WriteRunPage(path string, out *scenario.RunFile) error {
	r, err := FromRunFile(out)
	if err != nil {
		return err
	}
	return WriteFile(path, []*Run{r}, Options{Title: "servesim run " + out.Scenario})
}

// WriteCapacityPage writes the page of a capacity search or grid on the
// named scenario and server to path: its probes and the [lo, hi) bracket.
func WriteCapacityPage(path, scenario, server string, crit capacity.Criteria, points []capacity.Point, lo, hi float64) error {
	r := FromCapacity(crit, points, lo, hi)
	r.Label = "capacity"
	r.Setup = append([]Field{{Key: "scenario", Value: scenario}, {Key: "server", Value: server}}, r.Setup...)
	return WriteFile(path, []*Run{r}, Options{Title: "servesim capacity: " + server})
}

// WriteScreenPage writes the page of a TP screen to path.
func WriteScreenPage(path string, s screen.Study, rep *screen.Report) error {
	r := FromScreen(s, rep)
	r.Label = "tp"
	return WriteFile(path, []*Run{r}, Options{Title: "servesim tp: " + s.Engine.Deployment.Model.Name + " on " + s.Engine.Deployment.GPU.Name})
}

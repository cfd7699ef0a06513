package report

import (
	"io"
	"os"
	"testing"
)

// FuzzParse: no input makes Parse panic, and a run it accepts always
// makes a page.
func FuzzParse(f *testing.F) {
	for _, file := range []string{vllmDetailed, capacityFile} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"backend": "servesim", "duration": 1, "completed": 1, "p99_ttft_ms": 5, "ttfts": [0.1, null], "series": [{"name": "e", "names": ["running"], "times": [0, 1], "values": [[1], [2]]}]}`))
	f.Add([]byte(`{"format": "servesim-run/1", "param": "workload.arrival.rate", "values": [1, 2], "slo": {"ttft_ms": 5, "target": 0.9}, "results": [{"point": 1, "result": {"duration": 2, "completed": 3, "slo_attainment": 0.5}}]}`))
	f.Add([]byte(`{"criteria": {"slo": {"ttft": 1}, "target": 0.9}, "lower": null, "upper": 3, "points": [{"rate": 3, "runs": [{"attainment": 0.5}]}]}`))
	f.Add([]byte("{\"duration\": 1, \"completed\": 1, \"request_rate\": 1}\n{\"duration\": 2, \"completed\": 2, \"request_rate\": \"inf\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data, "fuzz.json")
		if err != nil {
			return
		}
		if err := WriteHTML(io.Discard, []*Run{r, r}, Options{}); err != nil {
			t.Fatalf("a parsed run makes no page: %v", err)
		}
	})
}

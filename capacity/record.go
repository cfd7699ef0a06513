package capacity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
)

// Record is what the acceptance rule reads of one run: the fields of a
// sim.Result that Judge looks at, under the names of the result's JSON, so
// a run judged in the process that ran it and one read back from a file
// (servesim run's records, a bench result) get the same verdict. RecordOf
// takes them from a result; ParseRecord from its JSON.
type Record struct {
	Seed        uint64 `json:"seed"`
	Replication int    `json:"replication"`
	// Attainment is the joint SLO attainment (slo_attainment).
	Attainment float64 `json:"slo_attainment"`
	// Failed counts failed and rejected measured requests ("failed" of
	// the JSON, which holds both); Measured the measured requests.
	Failed   int `json:"failed"`
	Measured int `json:"measured"`
	// Injected is every request of the run, warm-up included
	// (num_requests).
	Injected int `json:"num_requests"`
	// SendRate and ArrivalRate are requests per second; RequestRate the
	// arrival process's target (+Inf for a burst: "inf" in the JSON).
	SendRate    float64 `json:"send_rate"`
	ArrivalRate float64 `json:"arrival_rate"`
	RequestRate float64 `json:"-"`
	// Stability is the queue-growth verdict; StoppedBy the early stop.
	Stability metrics.Stability `json:"stability"`
	StoppedBy sim.StopReason    `json:"stopped_by"`
}

// RecordOf returns the record of res.
func RecordOf(res *sim.Result) Record {
	return Record{
		Seed: res.Seed, Replication: res.Replication, Attainment: res.Attainment,
		Failed: res.Failed + res.Rejected, Measured: res.Measured, Injected: res.Injected,
		SendRate: res.SendRate, ArrivalRate: res.ArrivalRate, RequestRate: res.RequestRate,
		Stability: res.Stability, StoppedBy: res.StoppedBy,
	}
}

// ParseRecord reads the record of a sim.Result's JSON (json.Marshal of a
// *sim.Result). It fails when a field the rule reads is missing, so a file
// that is not a servesim result is not judged as a clean pass.
func ParseRecord(data []byte) (Record, error) {
	var r struct {
		Record
		RequestRate json.RawMessage `json:"request_rate"`
	}
	var has map[string]json.RawMessage
	if err := json.Unmarshal(data, &has); err != nil {
		return Record{}, fmt.Errorf("result: %w", err)
	}
	for _, k := range []string{"slo_attainment", "failed", "measured", "send_rate", "arrival_rate", "stability", "request_rate"} {
		if _, ok := has[k]; !ok {
			return Record{}, fmt.Errorf("result: no %q field: not a servesim result", k)
		}
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return Record{}, fmt.Errorf("result: %w", err)
	}
	rec := r.Record
	switch raw := bytes.TrimSpace(r.RequestRate); {
	case string(raw) == `"inf"`:
		rec.RequestRate = math.Inf(1)
	default:
		if err := json.Unmarshal(raw, &rec.RequestRate); err != nil {
			return Record{}, fmt.Errorf("result: request_rate %s is not a number or \"inf\"", raw)
		}
	}
	return rec, nil
}

// FailureRate is the share of measured requests that failed or were
// rejected.
func (r Record) FailureRate() float64 {
	if r.Measured == 0 {
		return 0
	}
	return float64(r.Failed) / float64(r.Measured)
}

// JudgeRecord applies the criteria to a run's record, with its own
// request rate as the target: the rule of Judge, which calls it.
func (c Criteria) JudgeRecord(r Record) Verdict {
	return c.judge(r, r.RequestRate)
}

// Package simtest holds what the servers' tests share: a byte dump of
// everything a run reports, so that two runs meant to be identical (a fast
// path against the plain one) compare byte for byte.
package simtest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"

	"github.com/servesim/servesim/sim"
)

// Dump returns everything res reports, as bytes: the result's JSON, the
// request records and the engines' time series as JSON, then the pooled
// ITL values and every request's token gaps as float64 bits.
func Dump(res *sim.Result) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, v := range []any{res, res.Requests, res.Series} {
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
	}
	floats := func(xs []float64) {
		for _, x := range xs {
			buf.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(x)))
		}
	}
	floats(res.ITL().Values())
	for i := range res.Requests {
		floats(res.TokenGaps(&res.Requests[i]))
	}
	return buf.Bytes(), nil
}

package plan

import "fmt"

// ShortLabel names a ranked candidate in a plot: "h100-sxm tp4 fp8 x2"
// ("no-chunk" when chunked prefill is off).
func (x Ranked) ShortLabel() string {
	if x.Settings.TP == 0 {
		return fmt.Sprintf("%s x%d", x.label(), x.Replicas)
	}
	chunk := ""
	if !x.Settings.ChunkedPrefill {
		chunk = " no-chunk"
	}
	return fmt.Sprintf("%s %s %s%s x%d", x.Settings.GPU, x.Settings.parallel(), x.Settings.Precision, chunk, x.Replicas)
}

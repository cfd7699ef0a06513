package plan

import (
	"maps"
	"slices"
	"strings"
)

// Prices maps a GPU's catalog name (cost.GPU) to its on-demand price in US
// dollars per GPU-hour.
type Prices map[string]float64

// defaultPrices are on-demand list prices of one GPU for one hour, from
// Modal's public price page, https://modal.com/pricing, which lists every
// GPU type at a per-second rate: H100 $0.001097/s, A100 80 GB $0.000694/s,
// L40S $0.000542/s, as listed in May 2026 (times 3600: $3.9492, $2.4984
// and $1.9512 an hour). Modal bills the seconds a container holds the GPU,
// so for an always-on deployment the rate is the hourly price. The
// catalog's other GPUs (h200, b200, rtx4090, mi300x) have no entry: pass
// their price (GPUOption.PricePerHour), as for any GPU whose price you
// negotiate.
var defaultPrices = Prices{
	"h100-sxm":  0.001097 * 3600,
	"a100-80gb": 0.000694 * 3600,
	"l40s":      0.000542 * 3600,
}

// DefaultPrices returns a copy of the built-in price list (see
// PriceSource).
func DefaultPrices() Prices { return maps.Clone(defaultPrices) }

// PriceSource names where DefaultPrices come from, for reports.
const PriceSource = "modal.com/pricing, on-demand per-second GPU rates x 3600, May 2026"

// Names returns the GPU names with a price, sorted.
func (p Prices) Names() []string {
	names := slices.Collect(maps.Keys(p))
	slices.Sort(names)
	return names
}

// String lists the prices as "name $x.xx/h", sorted by name.
func (p Prices) String() string {
	var b strings.Builder
	for i, n := range p.Names() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n + " $" + formatMoney(p[n]) + "/h")
	}
	return b.String()
}

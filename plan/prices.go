package plan

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/servesim/servesim/cost"
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

// ParsePrices parses "name=dollars,name=dollars" ("h100-sxm=2.99,l40s=0.89"),
// dollars per GPU-hour, as a command line passes prices that override
// DefaultPrices.
func ParsePrices(s string) (Prices, error) {
	out := Prices{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, v, ok := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || name == "" || err != nil || !(x >= 0) || math.IsInf(x, 1) {
			return nil, fmt.Errorf("%w: price %q must look like gpu=dollars-per-hour, e.g. h100-sxm=2.99", ErrInvalid, part)
		}
		out[name] = x
	}
	return out, nil
}

// DefaultSpace returns the space a plan searches when asked nothing more:
// every GPU with a built-in price, at that price; TP 1, 2, 4 and 8; the
// engine template's scheduler settings; BF16 and FP8.
func DefaultSpace() (Space, error) {
	var s Space
	for _, name := range defaultPrices.Names() {
		g, err := cost.GPU(name)
		if err != nil {
			return Space{}, err
		}
		s.GPUs = append(s.GPUs, GPUOption{GPU: g})
	}
	s.TP = []int{1, 2, 4, 8}
	s.Precisions = []cost.Precision{cost.BF16, cost.FP8}
	return s, nil
}

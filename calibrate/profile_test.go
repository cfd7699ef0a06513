package calibrate

import (
	"fmt"

	"github.com/servesim/servesim/cost"
)

// catalogProfile returns the profile file of catalog GPU name
// (cost/profiles/<name>.yaml) as cost.DefaultProfile gives it, and an
// error when the GPU has no file of its own (DefaultProfile would borrow
// another GPU's numbers).
func catalogProfile(name string) (cost.Profile, error) {
	g, err := cost.GPU(name)
	if err != nil {
		return cost.Profile{}, err
	}
	p := cost.DefaultProfile(g)
	if from := p.Provenance.BorrowedFrom; from != "" {
		return cost.Profile{}, fmt.Errorf("gpu %q has no profile file: DefaultProfile borrows %s's", name, from)
	}
	return p, nil
}

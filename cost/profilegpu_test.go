package cost

import (
	"errors"
	"strings"
	"testing"
)

// TestProfileForGPU: a profile is for the GPU it names; naming none or
// another is an ErrInvalidSpec error that names both GPUs and the way out.
func TestProfileForGPU(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, profileGPU, gpu string
		want                  string // "" for no error
	}{
		{"same GPU", "h100-sxm", "h100-sxm", ""},
		{"another GPU", "h100-sxm", "h200", `the profile describes h100-sxm, not the deployment's h200: give h200's profile`},
		{"no GPU", "", "h200", "the profile names no GPU (its gpu field is empty): set gpu to the catalog name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Profile{GPU: tt.profileGPU}.ForGPU(tt.gpu)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("ForGPU: %v, want nil", err)
			case tt.want != "" && (!errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("ForGPU: %v, want ErrInvalidSpec with %q", err, tt.want)
			}
		})
	}
}

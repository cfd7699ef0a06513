package nearest

import (
	"fmt"
	"testing"
)

func TestEditDistance(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3},
		{"kitten", "sitting", 3}, // the textbook pair: two substitutions, one insertion
		{"num-promts", "num-prompts", 1},
		{"flaw", "lawn", 2},
		{"h100", "h100-sxm", 4},
	} {
		if got := EditDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := EditDistance(tt.b, tt.a); got != tt.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d (symmetry)", tt.b, tt.a, got, tt.want)
		}
	}
}

func ExampleNames() {
	fmt.Println(Names("num-promts", []string{"seed", "num-prompts", "num-warmups"}, 2, 3))
	// Output: [num-prompts]
}

package quoted

import (
	"fmt"
	"testing"
)

func TestContainsPart(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		msg, s string
		want   bool
	}{
		{`"8GiX" is not a byte count`, "8GiX", true},
		{`rate "abc" must be a number`, "  abc ", true},
		{`"" is empty`, "x", false},
		{`no quotes here`, "here", false},
		{`"other" is wrong`, "input", false},
		{`unterminated "abc`, "abc", false},
	} {
		if got := ContainsPart(tt.msg, tt.s); got != tt.want {
			t.Errorf("ContainsPart(%q, %q) = %v, want %v", tt.msg, tt.s, got, tt.want)
		}
	}
}

func ExampleContainsPart() {
	fmt.Println(ContainsPart(`--grid "5,x": "x" is not a number`, "5,x"))
	// Output: true
}

package langevin

import (
	"math"
	"strings"
	"testing"
)

// TestDecreasingBounds checks each bound of Decreasing.Validate on its own
// (the other settings valid): a and b at 0 and ∞ are refused with an error
// naming them, γ at 0.5 is refused, and γ = 1 with the smallest positive a and
// b is accepted.
func TestDecreasingBounds(t *testing.T) {
	for _, c := range []struct {
		d    Decreasing
		want string
	}{
		{Decreasing{A: 0, B: 1, Gamma: 0.75}, "a = 0"},
		{Decreasing{A: math.Inf(1), B: 1, Gamma: 0.75}, "a = +Inf"},
		{Decreasing{A: 1, B: 0, Gamma: 0.75}, "b = 0"},
		{Decreasing{A: 1, B: math.Inf(1), Gamma: 0.75}, "b = +Inf"},
		{Decreasing{A: 1, B: 1, Gamma: 0.5}, "γ = 0.5"},
		{Decreasing{A: 1, B: 1, Gamma: math.Nextafter(1, 2)}, "γ = 1.0000000000000002"},
	} {
		if err := c.d.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one naming %q", c.d, err, c.want)
		}
	}
	tiny := math.SmallestNonzeroFloat64
	if err := (Decreasing{A: tiny, B: tiny, Gamma: 1}).Validate(); err != nil {
		t.Errorf("a = b = %g, γ = 1: %v", tiny, err)
	}
}

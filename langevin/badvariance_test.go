package langevin

import (
	"math"
	"testing"
)

// TestBadVariance checks the first refused coordinate: NaN, ±Inf and
// negative variances are refused; 0 and the largest finite float are not.
func TestBadVariance(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want int
	}{
		{nil, -1},
		{[]float64{0, 1, math.MaxFloat64}, -1},
		{[]float64{0, math.NaN(), -1}, 1},
		{[]float64{2, 3, math.Inf(1)}, 2},
		{[]float64{math.Inf(-1)}, 0},
		{[]float64{1, -1e-300}, 1},
	} {
		if got := BadVariance(c.v); got != c.want {
			t.Errorf("BadVariance(%v) = %d, want %d", c.v, got, c.want)
		}
	}
}

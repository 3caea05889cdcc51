package langevin

import (
	"math"
	"testing"
)

// TestLowRankClipThreshold checks which negative directions the dense path
// (n > p) counts as clipped: those below −1e-9 of the budget 2τη, not the
// rounding-level ones just under zero. One coordinate, rows −a, 0, a: the
// centred Gram matrix is 2a², so C = 2τη − η²·f/(n − 1)·2a² = 2τη − η²f a²,
// and a is chosen to put C at −r·2τη. Both sides clip the direction to no
// noise; r = 1e-10 and 1e-8 sit a factor 10 either side of the threshold,
// far outside rounding (relative 1e-16).
func TestLowRankClipThreshold(t *testing.T) {
	const f, eta, tau = 50.0, 0.01, 1.5
	budget := 2 * tau * eta
	for _, c := range []struct {
		r    float64
		want int
	}{{1e-10, 0}, {1e-8, 1}} {
		a := math.Sqrt(budget * (1 + c.r) / (eta * eta * f))
		var lr LowRank
		xi := []float64{1}
		if got := lr.apply(xi, []float64{-a, 0, a}, 3, f, eta, tau); got != c.want || xi[0] != 0 {
			t.Errorf("C = −%g·2τη: %d clipped directions, noise %v; want %d and no noise", c.r, got, xi[0], c.want)
		}
	}
}

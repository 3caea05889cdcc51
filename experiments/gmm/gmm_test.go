package gmm

import (
	"math"
	"testing"
)

// Exact draws follow the exact density: their TV distance on 48 bins is
// within Monte Carlo error. E TV ≤ ½ Σ_i √(p_i(1 − p_i)/n) ≤ ½ √(B/n) by
// Cauchy–Schwarz; with n = 10⁵ and B = 48 that is 0.011, and TV is
// concentrated (bounded differences 1/n: sd ≤ 1/(2√n) = 0.0016), so
// 0.011 + 4·0.0016 bounds it.
func TestExactDraws(t *testing.T) {
	ex := MixtureExact()
	if !(math.Abs(ex.Right-0.6) <= 1e-6) {
		t.Errorf("exact right-mode weight %v, want 0.6", ex.Right)
	}
	xs := ex.Draw(100000, 1)
	if tv := ex.Grid.TV(xs, 48); !(tv <= 0.011+4*0.0016) {
		t.Errorf("TV of exact draws = %v", tv)
	}
}

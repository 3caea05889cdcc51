package diag

import (
	"math"
	"math/rand/v2"
	"testing"
)

// KHat recovers the shape of exact generalized Pareto draws. With S
// independent draws the fitted tail holds M = ⌊3√S⌋ of them (r_eff = 1)
// and the shape's estimate has a standard error of about (1 + k)/√M
// (Zhang and Stephens 2009, §4); posterior's prior at 1/2 worth 10 draws
// moves it by at most 10/(M + 10)·|k − 1/2|. The tolerance is 4 standard
// errors plus that pull. The draws' left tail is bounded (its shape
// negative), so k̂ is the right tail's: a fit of the wrong tail, a wrong
// cutoff or grid fails here as well as against posterior's values in
// TestPosteriorReference.
func TestKHatRecoversShape(t *testing.T) {
	const m, n = 4, 25000
	for i, k := range []float64{0, 0.25, 0.5, 0.75} {
		rng := rand.New(rand.NewPCG(uint64(11+i), 5))
		chains := make([][]float64, m)
		for c := range chains {
			chains[c] = make([]float64, n)
			for j := range chains[c] {
				u := rng.Float64()
				if k == 0 {
					chains[c][j] = -math.Log1p(-u)
				} else {
					chains[c][j] = math.Expm1(-k*math.Log1p(-u)) / k
				}
			}
		}
		got := KHat(chains)
		tail := math.Floor(3 * math.Sqrt(m*n))
		tol := 4*(1+k)/math.Sqrt(tail) + 10/(tail+10)*math.Abs(k-0.5)
		if !(math.Abs(got-k) <= tol) {
			t.Errorf("k = %g: k̂ %.3f, want within %.3f", k, got, tol)
		}
		// Mirrored, the heavy tail is the left one.
		for _, ch := range chains {
			for j := range ch {
				ch[j] = -ch[j]
			}
		}
		if mirrored := KHat(chains); mirrored != got {
			t.Errorf("k = %g: k̂ of −x %.6f, of x %.6f: the tails are not both fitted", k, mirrored, got)
		}
	}
}

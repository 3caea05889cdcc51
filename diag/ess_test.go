package diag

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestESSOfAR1(t *testing.T) {
	// For an AR(1) chain with coefficient ρ the exact effective size is
	// n(1 − ρ)/(1 + ρ). The estimator's relative error is about
	// √(2L/n) for L lags used (≈ 2/(1 − ρ)); allow 5 times that.
	rng := rand.New(rand.NewPCG(9, 9))
	const n = 200000
	for _, rho := range []float64{0, 0.5, 0.9} {
		xs := make([]float64, n)
		for i := 1; i < n; i++ {
			xs[i] = rho*xs[i-1] + rng.NormFloat64()
		}
		want := n * (1 - rho) / (1 + rho)
		tol := 5 * math.Sqrt(2*(2/(1-rho))/n)
		if got := ESS(xs); !(math.Abs(got/want-1) <= tol) {
			t.Errorf("ρ = %v: ESS %.0f, exact %.0f (tolerance %.1f%%)", rho, got, want, 100*tol)
		}
	}
	if !math.IsNaN(ESS([]float64{1, 1, 1, 1, 1})) {
		t.Error("ESS of a constant chain is not NaN")
	}
}

package exchange

import (
	"math"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// ar1Variance runs one chain on U = λθ²/2 with gradient noise of variance s²
// and returns the sample variance of n states after a burn-in, with the
// relative standard error of that estimate.
//
// The chain is the AR(1) process θ' = ρθ + ε with ρ = 1 − ηλ, for which the
// sample variance of n Gaussian states has relative standard error
// √(2(1 + ρ²)/(n(1 − ρ²))).
func ar1Variance(t *testing.T, pol langevin.Policy, lambda, tau, eta, s float64, n int) (v, relSE float64) {
	t.Helper()
	est := energy.NewNoisy(energy.Quadratic{Lambda: []float64{lambda}}, 0, s)
	cfg := Config{Levels: []Level{{Tau: tau, Est: est, Eta: langevin.Constant{Step: eta}, Noise: pol}}, Seed: 7}
	v = meanSquare(t, mustNew(t, cfg, [][]float64{{0}}), 2000, n)
	rho := 1 - eta*lambda
	return v, math.Sqrt(2 * (1 + rho*rho) / (float64(n) * (1 - rho*rho)))
}

// meanSquare runs the one-coordinate chain smp burn steps, then n more,
// and returns the mean square of those n states: their variance, the
// exact mean being 0.
func meanSquare(t *testing.T, smp *Sampler, burn, n int) float64 {
	t.Helper()
	tr, err := Collect(smp, Plan{Burn: burn, Keep: n, Thin: 1})
	if err != nil {
		t.Fatal(err)
	}
	var ss float64
	for _, x := range tr.Data {
		ss += x * x
	}
	return ss / float64(n)
}

func TestStationaryVarianceGaussian(t *testing.T) {
	skipSlow(t)
	const lambda, tau, n = 1.0, 1.0, 2_000_000
	for _, c := range []struct{ eta, s float64 }{{0.1, 2}, {0.05, 4}, {0.2, 1.5}} {
		d := lambda * (2 - c.eta*lambda)
		for _, k := range []struct {
			pol  langevin.Policy
			want float64
		}{
			{langevin.SGLD, (2*tau + c.eta*c.s*c.s) / d},
			{langevin.Corrected, 2 * tau / d},
		} {
			got, rel := ar1Variance(t, k.pol, lambda, tau, c.eta, c.s, n)
			// 5 standard errors: a false alarm has probability < 1e-6.
			if !(math.Abs(got/k.want-1) <= 5*rel) {
				t.Errorf("η=%v s=%v %v: stationary variance %.5f, exact %.5f (tolerance %.2f%%)", c.eta, c.s, k.pol, got, k.want, 500*rel)
			}
		}
	}
}

func TestOverBudgetClampsAndStaysFinite(t *testing.T) {
	// η²s² = 0.25·100 = 25 > 2τη = 0.5: the gradient noise alone is hotter
	// than τ, so no noise can be injected.
	est := energy.NewNoisy(energy.Quadratic{Lambda: []float64{1, 1}}, 0, 10)
	cfg := Config{Levels: []Level{{Tau: 1, Est: est, Eta: langevin.Constant{Step: 0.5}, Noise: langevin.Corrected}}, Seed: 1}
	smp := mustNew(t, cfg, [][]float64{{0, 0}})
	tr, err := Collect(smp, Plan{Keep: 1000, Thin: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range tr.Data {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			t.Fatalf("state %v is not finite", x)
		}
	}
	st := smp.Stats().Levels[0]
	if st.Clamped != 2000 || st.ClampedSteps != 1000 {
		t.Errorf("clamped %d coordinate-steps in %d steps, want 2000 in 1000", st.Clamped, st.ClampedSteps)
	}
}

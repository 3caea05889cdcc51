package exchange

import (
	"fmt"
	"math"
	"testing"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
)

// effectiveSize estimates the effective sample size of the indicator x > 0
// (which mode a sample is in, the slowest statistic of a bimodal chain) by
// batch means over 50 batches.
func effectiveSize(xs []float64) float64 {
	const batches = 50
	m := len(xs) / batches
	var mean float64
	bm := make([]float64, batches)
	for b := range bm {
		for _, x := range xs[b*m : (b+1)*m] {
			if x > 0 {
				bm[b]++
			}
		}
		bm[b] /= float64(m)
		mean += bm[b] / batches
	}
	var vb float64
	for _, v := range bm {
		vb += (v - mean) * (v - mean) / (batches - 1)
	}
	v1 := mean * (1 - mean) // variance of one indicator
	return math.Min(float64(len(xs)), v1/vb*float64(m))
}

func TestExactLaddersMatchTemperedMixture(t *testing.T) {
	skipSlow(t)
	for _, c := range []struct{ levels, keep int }{{2, 200_000}, {4, 60_000}} {
		t.Run(fmt.Sprintf("K=%d", c.levels), func(t *testing.T) { exactLadder(t, c.levels, c.keep) })
	}
}

// exactLadder runs K levels with exact energies and the exact swap rule on
// the paper's mixture and compares the coldest and hottest levels with
// π^(1/τ1) and π^(1/τ2).
func exactLadder(t *testing.T, K, keep int) {
	mix := models.PaperMixture()
	const tau1, tau2, eta = 1.0, 10.0, 0.002
	est := energy.Exact{E: mix}
	cfg, err := ReSGLDMethod.Config(Setup{Tau1: tau1, Tau2: tau2, Levels: K, Eta: langevin.Constant{Step: eta}, Cold: est, PerStep: true, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Swap.Rule = Exact
	init := make([][]float64, K)
	for l := range init {
		init[l] = []float64{0}
	}
	smp := mustNew(t, cfg, init)
	// Record the coldest and hottest levels every 10th step.
	cold, hot := make([]float64, 0, keep), make([]float64, 0, keep)
	for i := 0; i < 10*keep+10_000; i++ {
		if err := smp.Step(); err != nil {
			t.Fatal(err)
		}
		if i >= 10_000 && i%10 == 0 {
			cold, hot = append(cold, smp.State(0)[0]), append(hot, smp.State(K - 1)[0])
		}
	}
	u := func(x float64) float64 { return mix.U([]float64{x}) }
	const bins = 40
	for _, c := range []struct {
		name    string
		tau     float64
		xs      []float64
		lo, hi  float64
		maxCurv float64 // largest U''/τ where the density lives
	}{
		{"cold", tau1, cold, -8, 6, 4},
		{"hot", tau2, hot, -40, 40, 0.4},
	} {
		g := diag.Tempered1D(u, c.tau, c.lo, c.hi, 8000)
		tv := g.TV(c.xs, bins)
		ne := effectiveSize(c.xs)
		// Monte Carlo: E[TV] ≤ ½ Σ_b √(p_b/n) ≤ ½√(B/n) by Cauchy–Schwarz,
		// with n the effective size (of the slowest statistic, so an
		// underestimate for the others). Allow 3 times that, plus the
		// discretisation bias of the Euler step, which shifts variances by
		// a relative ηU''/2 and so TV by at most about that much.
		tol := 3*0.5*math.Sqrt(bins/ne) + eta*c.maxCurv/2
		// Written so that a NaN TV or tolerance fails: a chain that never
		// changes mode has no between-batch spread and a NaN effective size.
		if !(tv <= tol) {
			t.Errorf("%s chain: TV to π^(1/τ) = %.4f over %d bins, tolerance %.4f (effective size %.0f)", c.name, tv, bins, tol, ne)
		}
		// The weight of the right-hand mode, the slowest statistic, on its
		// own: its standard error is √(w(1 − w)/n_eff); allow 4.5 of them
		// plus the same discretisation bias. At K = 2 that is about 0.014
		// (0.026 at K = 4), where the TV tolerance would pass a weight
		// error of 0.035.
		w := 1 - g.CDF(0)
		var right float64
		for _, x := range c.xs {
			if x > 0 {
				right++
			}
		}
		right /= float64(len(c.xs))
		wtol := 4.5*math.Sqrt(w*(1-w)/ne) + eta*c.maxCurv/2
		if !(math.Abs(right-w) <= wtol) {
			t.Errorf("%s chain: right-mode weight %.4f, exact %.4f, tolerance %.4f (effective size %.0f)", c.name, right, w, wtol, ne)
		}
		t.Logf("%s: TV %.4f, tolerance %.4f; weight %.4f (exact %.4f, tolerance %.4f); effective size %.0f", c.name, tv, tol, right, w, wtol, ne)
	}
	for l, p := range smp.Stats().Pairs {
		if p.Accepts == 0 {
			t.Errorf("pair %d: no swaps in %d attempts", l, p.Attempts)
		}
	}
}

package nuts

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// Warmup from a given inverse metric: started at the target's own
// covariance (sds 0.01 to 100), the first window's trajectories need far
// fewer gradients than from the identity, whose scales are off by 10⁴;
// a metric of the wrong size is refused.
func TestWarmupFromInvMetric(t *testing.T) {
	sd := []float64{0.01, 1, 100}
	cov, diag := equicorr(sd, 0), variances(sd)
	g := newGauss(make([]float64, 3), cov)
	grads := func(inv []float64, dense bool) int {
		cfg := DefaultConfig()
		cfg.InvMetric, cfg.Dense = inv, dense
		_, _, st, err := Warmup(g, []float64{0.001, 0.1, 10}, 150, rand.New(rand.NewPCG(4, 5)), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return st.GradEvals
	}
	ident, given, givenDense := grads(nil, false), grads(diag, false), grads(cov, true)
	t.Logf("gradients in 150 warmup transitions: from the identity %d, from the covariance %d (diagonal), %d (dense)", ident, given, givenDense)
	// From the identity the step must suit sd 0.01 and the trajectory
	// span sd 100: about 10⁴ leapfrog steps, capped at 2^10 − 1 a
	// transition until the first window ends; from the covariance a
	// handful a transition.
	if !(given*10 < ident) || !(givenDense*10 < ident) {
		t.Errorf("warmup from the covariance took %d and %d gradients, from the identity %d: the initial metric is not used", given, givenDense, ident)
	}
	cfg := DefaultConfig()
	cfg.InvMetric = []float64{1, 1}
	if _, _, _, err := Warmup(g, []float64{0, 0, 0}, 10, rand.New(rand.NewPCG(1, 1)), cfg); err == nil || !strings.Contains(err.Error(), "initial metric") {
		t.Errorf("an initial metric of 2 entries for 3 coordinates: %v", err)
	}
}

// WarmupStats.Variances are the last window's sample variances before
// Stan's shrinkage: on a coordinate of sd 10⁻³ the shrinkage adds
// 10⁻³·5/(k+5) ≈ 10⁻⁵ to a variance of 10⁻⁶, so the metric reads it ten
// times too wide, while the raw variance of k ≈ 500 draws of effective
// size ≳ 100 is within 4·√(2/100) ≈ 57% (a conservative bound; the
// metric's error is 900%).
func TestWarmupVariances(t *testing.T) {
	for _, dense := range []bool{false, true} {
		g := newGauss(make([]float64, 2), []float64{1e-6, 0, 0, 1})
		cfg := DefaultConfig()
		cfg.Dense = dense
		tuned, _, st, err := Warmup(g, []float64{0, 0}, 1000, rand.New(rand.NewPCG(8, 9)), cfg)
		if err != nil {
			t.Fatal(err)
		}
		metric := tuned.InvMetric[0]
		if len(st.Variances) != 2 || !(st.Variances[0] > 1e-6/1.57 && st.Variances[0] < 1e-6*1.57) {
			t.Errorf("dense %v: the last window's variance of a coordinate of variance 1e-6: %v (the metric's %v)", dense, st.Variances, metric)
		}
		if !(metric > 5e-6) {
			t.Errorf("dense %v: the metric's variance %v: the shrinkage this test is about is gone", dense, metric)
		}
	}
}

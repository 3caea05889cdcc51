package variance_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/variance"
)

// script is a one-dimensional estimator whose i-th gradient draw is g[i]
// and i-th energy draw is u[i] (cyclically), whatever θ: the sample
// variances a model computes from it are known exactly.
type script struct {
	g, u      []float64
	gi, ui    int
	gradCalls int
	theta     []float64 // the state of the last draw
}

func (s *script) Dim() int { return 1 }
func (s *script) Grad(grad, gradVar, theta []float64, _ *rand.Rand) {
	grad[0] = s.g[s.gi%len(s.g)]
	s.gi++
	s.gradCalls++
	s.theta = theta
}
func (s *script) Energy(theta []float64, _ *rand.Rand) (float64, float64) {
	u := s.u[s.ui%len(s.u)]
	s.ui++
	return u, 0
}
func (s *script) KnowsVariance() bool { return false }

// The running average weighs its m updates equally, ŝ²_m = (1 − 1/m)ŝ²_{m−1} +
// (1/m)ŝ²(θ_m), updates at the steps k with k mod Period = 0 only, and takes
// each update's sample variance of Repeats draws with divisor Repeats − 1.
// With two draws (0, d) an update's sample variance is d²/2.
func TestRunningWeightsAndPeriod(t *testing.T) {
	est := &script{g: []float64{0, 1, 0, 2, 0, 3}, u: []float64{0, 2, 0, 4, 0, 6}}
	r, err := variance.NewRunning(2, 3)
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{0.7}
	rng := rand.New(rand.NewPCG(1, 1))
	g := make([]float64, 1)
	wantG := []float64{0.5, (0.5 + 2) / 2, (0.5 + 2 + 4.5) / 3}
	wantU := []float64{2, (2 + 8) / 2.0, (2 + 8 + 18) / 3.0}
	for k := 0; k < 9; k++ {
		if err := r.Observe(k, theta, est, rng); err != nil {
			t.Fatal(err)
		}
		m := k/3 + 1 // updates at k = 0, 3, 6
		if r.Updates() != m || est.gradCalls != 2*m {
			t.Fatalf("after step %d: %d updates, %d draws; want %d and %d", k, r.Updates(), est.gradCalls, m, 2*m)
		}
		r.GradVar(g, theta, nil)
		if !(math.Abs(g[0]-wantG[m-1]) <= 1e-12) {
			t.Errorf("after step %d: ŝ² = %v, want %v", k, g[0], wantG[m-1])
		}
		if v := r.EnergyVar(theta, 0, false); !(math.Abs(v-wantU[m-1]) <= 1e-12) {
			t.Errorf("after step %d: σ̂² = %v, want %v", k, v, wantU[m-1])
		}
	}
	if &est.theta[0] != &theta[0] {
		t.Error("the draws were not made at the observed state")
	}
	if r.NeedsReport() {
		t.Error("Running needs no reports")
	}
}

func TestRunningSettingsAndNaN(t *testing.T) {
	for _, c := range []struct{ repeats, period int }{{1, 1}, {2, 0}} {
		if _, err := variance.NewRunning(c.repeats, c.period); err == nil {
			t.Errorf("repeats %d, period %d accepted", c.repeats, c.period)
		}
	}
	if _, err := variance.NewRunning(2, 1); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		g, u []float64
		want string
	}{
		{[]float64{0, math.Inf(1)}, []float64{0, 1}, "gradient coordinate 0"},
		{[]float64{0, 1}, []float64{0, math.NaN()}, "energy estimates are not finite"},
	} {
		r, _ := variance.NewRunning(2, 1)
		err := r.Observe(0, []float64{0}, &script{g: c.g, u: c.u}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
}

// Known passes the estimator's reports through.
func TestKnownPassesReports(t *testing.T) {
	var k variance.Known
	dst := []float64{0, 0}
	k.GradVar(dst, nil, []float64{3, 4})
	if dst[0] != 3 || dst[1] != 4 || k.EnergyVar(nil, 5, true) != 5 || !k.NeedsReport() || k.Observe(0, nil, nil, nil) != nil {
		t.Error("Known does not pass the reports through")
	}
}

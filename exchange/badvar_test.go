package exchange

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// brokenVar reports variance bad from its after-th draw on: a broken
// estimator or variance model.
type brokenVar struct {
	energy.Estimator
	bad          float64
	after, calls int
}

func (b *brokenVar) Grad(grad, gradVar, theta []float64, rng *rand.Rand) {
	b.Estimator.Grad(grad, gradVar, theta, rng)
	if b.calls++; b.calls > b.after && gradVar != nil {
		gradVar[len(gradVar)-1] = b.bad
	}
}

func (b *brokenVar) Energy(theta []float64, rng *rand.Rand) (float64, float64) {
	u, v := b.Estimator.Energy(theta, rng)
	if b.calls > b.after {
		v = b.bad
	}
	return u, v
}

// A NaN, infinite or negative gradient or energy variance stops the run
// with an error naming the level and the step, and no sample made with it
// is returned.
func TestBrokenVarianceStops(t *testing.T) {
	for _, bad := range []float64{math.NaN(), -0.5, math.Inf(1)} {
		for _, c := range []struct {
			noise langevin.Policy
			sw    Swap
			want  string
		}{
			{langevin.Corrected, Swap{Rule: FReSGLD}, "level 1 at step 10: the gradient coordinate 1 variance is"},
			// Under SGLD noise only the swap uses variances: the swap
			// after step 10 draws the first broken energy.
			{langevin.SGLD, Swap{Rule: FReSGLD, PerStep: true}, "level 1 at step 10: the energy variance is"},
		} {
			est := &brokenVar{Estimator: energy.NewNoisy(energy.NewIsoQuadratic(2, 1), 0.1, 0.1), bad: bad, after: 10}
			cfg := Config{Levels: []Level{
				{Tau: 1, Est: energy.NewNoisy(energy.NewIsoQuadratic(2, 1), 0.1, 0.1), Eta: langevin.Constant{Step: 0.01}, Noise: c.noise},
				{Tau: 2, Est: est, Eta: langevin.Constant{Step: 0.01}, Noise: c.noise},
			}, Swap: c.sw, Seed: 1}
			s := mustNew(t, cfg, [][]float64{{0, 0}, {0, 0}})
			tr, err := Collect(s, Plan{Keep: 100, Thin: 1})
			want := c.want
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("ŝ² = %v, %v: error %v, want one containing %q", bad, c.noise, err, want)
			}
			if n := tr.Len(); n != 10 {
				t.Errorf("ŝ² = %v, %v: %d samples kept, want those before the broken report", bad, c.noise, n)
			}
			for _, x := range tr.Data {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("ŝ² = %v: a kept sample is %v", bad, x)
				}
			}
		}
	}
}

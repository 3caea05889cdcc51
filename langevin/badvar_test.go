package langevin

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A NaN, infinite or negative gradient variance is a broken report: the
// step must not inject a made-up amount of noise (none for NaN, which ran
// the chain 20 times too cold; more than the budget for a negative one),
// nor count it as a clamp. It makes that coordinate NaN and the step not
// finite, so the sampler stops and names it.
func TestStepRefusesBrokenVariance(t *testing.T) {
	for _, bad := range []float64{math.NaN(), -1, math.Inf(1), math.Inf(-1)} {
		theta, grad := []float64{1, 2}, []float64{0.5, 0.5}
		vars := []float64{0.1, bad}
		c, finite := Step(theta, grad, vars, make([]float64, 2), 0.01, 1, Corrected, rand.New(rand.NewPCG(1, 1)))
		if finite || c != 0 || !math.IsNaN(theta[1]) {
			t.Errorf("ŝ² = %v: finite %v, clamped %d, θ = %v; want not finite, 0 clamped, θ_1 NaN", bad, finite, c, theta)
		}
		if math.IsNaN(theta[0]) {
			t.Errorf("ŝ² = %v on coordinate 1 spoiled coordinate 0: θ = %v", bad, theta)
		}
	}
	// A huge but finite variance is a real clamp.
	theta := []float64{1}
	if c, finite := Step(theta, []float64{0}, []float64{math.MaxFloat64}, make([]float64, 1), 0.01, 1, Corrected, rand.New(rand.NewPCG(1, 1))); c != 1 || !finite || theta[0] != 1 {
		t.Errorf("ŝ² = MaxFloat64: clamped %d, finite %v, θ = %v; want 1 clamp and no move", c, finite, theta)
	}
}

// The SGLD step is θ − ηg + √(2τη)ξ with ξ the stream's next normals, one
// per coordinate in order, whatever gradVar says; the corrected step with
// ŝ² = 0 is the same step.
func TestStepExactDraws(t *testing.T) {
	const eta, tau = 0.02, 3.0
	grad := []float64{1.5, -2}
	for _, pol := range []Policy{SGLD, Corrected} {
		theta := []float64{0.25, -1}
		rng := rand.New(rand.NewPCG(4, 5))
		c, finite := Step(theta, grad, []float64{0, 0}, make([]float64, 2), eta, tau, pol, rng)
		ref := rand.New(rand.NewPCG(4, 5))
		sd := math.Sqrt(2 * tau * eta)
		want := []float64{0.25 - eta*1.5 + sd*ref.NormFloat64(), -1 + eta*2 + sd*ref.NormFloat64()}
		if c != 0 || !finite || math.Abs(theta[0]-want[0]) > 1e-15 || math.Abs(theta[1]-want[1]) > 1e-15 {
			t.Errorf("%v: θ = %v (clamped %d), want %v", pol, theta, c, want)
		}
	}
}

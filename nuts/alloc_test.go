package nuts

import (
	"math/rand/v2"
	"testing"

	"github.com/fresgld/fresgld/energy"
)

// A Step allocates nothing, under either metric, whether the energy
// computes U and ∇U in one pass or not, and whether theta is the state the
// kernel left or a new one.
func TestStepAllocs(t *testing.T) {
	const p = 5
	g := newGauss(make([]float64, p), equicorr([]float64{1, 2, 3, 4, 5}, 0.6))
	q := energy.Quadratic{Lambda: []float64{1, 2, 3, 4, 5}}
	diag := Tuned{StepSize: 0.3, InvMetric: []float64{1, 2, 3, 4, 5}}
	dense := Tuned{StepSize: 0.3, Dense: true, InvMetric: g.cov}
	for _, c := range []struct {
		name  string
		e     energy.Energy
		tuned Tuned
	}{
		{"diagonal, one pass", g, diag},
		{"dense, one pass", g, dense},
		{"diagonal, U and Grad", q, diag},
		{"dense, U and Grad", q, dense},
	} {
		k, err := NewKernel(c.e, c.tuned, Config{})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(51, 1))
		x := make([]float64, p)
		var i int
		allocs := testing.AllocsPerRun(200, func() {
			if i++; i%7 == 0 {
				x[0] += 0.01 // a state from outside now and then
			}
			k.Step(x, rng)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations a step", c.name, allocs)
		}
	}
}

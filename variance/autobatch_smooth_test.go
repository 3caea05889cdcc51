package variance_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/variance"
)

// With Smooth, GradVar passes the draw's own report through until a full
// window of Every draws has been seen (the pilot alone is one draw), and
// then reports N(N − n)/n · S̄², the window's mean per-example spread, with
// the n in force.
func TestAutoBatchSmoothAfterFullWindow(t *testing.T) {
	const N, every = 500, 10
	terms := newLocTerms(N, []float64{2}, 9)
	mb, _ := energy.NewMinibatch(terms, 20)
	eta := langevin.Constant{Step: 1e-5}
	a, err := variance.NewAutoBatch(mb, 1, eta, variance.AutoOptions{Min: 20, Max: 20, Every: every, Smooth: true})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	theta, grad, rep, dst := []float64{0.3}, make([]float64, 1), make([]float64, 1), make([]float64, 1)
	var spread float64 // Σ s² of the window's draws
	for k := 0; k <= every; k++ {
		if err := a.Observe(k, theta, mb, rng); err != nil {
			t.Fatal(err)
		}
		mb.Grad(grad, rep, theta, rng)
		a.GradVar(dst, theta, rep)
		if k < every && dst[0] != rep[0] {
			t.Fatalf("step %d, before a full window: ŝ² = %v, want the draw's own %v", k, dst[0], rep[0])
		}
		if k == every {
			want := energy.FPC(N, 20) * spread / every
			if math.Abs(dst[0]-want) > 1e-12*want || dst[0] == rep[0] {
				t.Errorf("after a full window: ŝ² = %v, want the smoothed %v (own %v)", dst[0], want, rep[0])
			}
		}
		if k < every {
			spread += rep[0] / energy.FPC(N, 20)
		}
	}
}

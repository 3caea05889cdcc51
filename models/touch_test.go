package models_test

import (
	"math/rand/v2"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/models"
)

// TestTouchChangesNothing checks that the prefetch pass leaves the draws
// bit-identical: same seed, same minibatches, same estimates.
func TestTouchChangesNothing(t *testing.T) {
	l, _, err := models.SyntheticLogistic(500, 7, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := energy.NewMinibatch(l, 20)
	b, _ := energy.NewMinibatch(untouched{l}, 20)
	ra, rb := rand.New(rand.NewPCG(1, 1)), rand.New(rand.NewPCG(1, 1))
	theta := []float64{0.1, -0.2, 0.3, 0, 1, -1, 0.5}
	ga, gb, va, vb := make([]float64, 7), make([]float64, 7), make([]float64, 7), make([]float64, 7)
	for k := 0; k < 50; k++ {
		a.Grad(ga, va, theta, ra)
		b.Grad(gb, vb, theta, rb)
		for j := range ga {
			if ga[j] != gb[j] || va[j] != vb[j] {
				t.Fatalf("draw %d coordinate %d: (%v, %v) with Touch, (%v, %v) without", k, j, ga[j], va[j], gb[j], vb[j])
			}
		}
		ua, sa := a.Energy(theta, ra)
		ub, sb := b.Energy(theta, rb)
		if ua != ub || sa != sb {
			t.Fatalf("energy draw %d: (%v, %v) with Touch, (%v, %v) without", k, ua, sa, ub, sb)
		}
	}
}

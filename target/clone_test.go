package target

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A clone keeps the energy size of its original and can draw at it: a
// ladder clones the hot estimator for every level above the first, after
// the caller has set its energy size.
func TestMinibatchCloneKeepsEnergySize(t *testing.T) {
	const N, p = 200, 2
	ts := newShiftTerms(N, p, 5)
	theta := []float64{0.3, -0.2}
	for _, ne := range []int{N, 30} { // the shuffle and the rejection draws
		mb, _ := NewMinibatch(ts, 3)
		if err := mb.SetEnergySize(ne); err != nil {
			t.Fatal(err)
		}
		c := mb.Clone().(*Minibatch)
		if c.EnergySize() != ne || c.Size() != 3 {
			t.Fatalf("clone: energy size %d, size %d; want %d, 3", c.EnergySize(), c.Size(), ne)
		}
		u, v := c.Energy(theta, rand.New(rand.NewPCG(1, 2)))
		if c.EnergyCost() != float64(ne) || math.IsNaN(u) {
			t.Errorf("clone's energy draw: Û = %v, cost %v, want cost %d", u, c.EnergyCost(), ne)
		}
		if ne == N {
			want, _, _, _ := exact(ts, theta, N)
			if math.Abs(u-want) > 1e-9*(1+math.Abs(want)) || v != 0 {
				t.Errorf("clone at n = N: Û = %v, variance %v; want U = %v exactly", u, v, want)
			}
		}
	}
}

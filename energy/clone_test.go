package energy

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

// Which estimators declare their energies exact: Exact always, Noisy only
// without energy noise, a Minibatch only at energy size N.
func TestExactEnergyDeclarations(t *testing.T) {
	q := NewIsoQuadratic(1, 1)
	mb, _ := NewMinibatch(newShiftTerms(20, 1, 2), 5)
	cases := []struct {
		name string
		est  ExactEnergy
		want bool
	}{
		{"exact", Exact{E: q}, true},
		{"noisy gradient only", NewNoisy(q, 0, 3), true},
		{"noisy energy", NewNoisy(q, 0.1, 0), false},
		{"minibatch n = 5 of 20", mb, false},
	}
	for _, c := range cases {
		if got := c.est.ExactEnergy(); got != c.want {
			t.Errorf("%s: ExactEnergy = %v, want %v", c.name, got, c.want)
		}
	}
	mb.SetEnergySize(20)
	if !mb.ExactEnergy() {
		t.Error("minibatch with energies of all 20: not exact")
	}
	if _, ok := Estimator(Hidden{Estimator: Exact{E: q}}).(ExactEnergy); ok {
		t.Error("Hidden declares its energies: a black box cannot")
	}
}

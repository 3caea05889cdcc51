package analysis

import (
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Chains that each stay at the mode they started in are warned about, with
// the stuck chain's share and the pooled one; chains that each visit both
// modes at random (independent draws, shares within a few binomial
// standard errors of each other) are not.
func TestOccupancyWarnings(t *testing.T) {
	h := mat.NewSymDense(1, []float64{1})
	s := &ModeSearch{Modes: []Mode{{Theta: []float64{0}, H: h, Weight: 0.5}, {Theta: []float64{10}, H: h, Weight: 0.5}}}
	rng := rand.New(rand.NewPCG(1, 2))
	chain := func(pick func() float64) *Chain {
		c := &Chain{Columns: []string{"x"}, Cols: [][]float64{nil}}
		for range 1000 {
			c.Cols[0] = append(c.Cols[0], pick()+rng.NormFloat64())
		}
		return c
	}
	either := func() float64 { return 10 * float64(rng.IntN(2)) }
	stuck := []*Chain{chain(func() float64 { return 0 }), chain(either), chain(func() float64 { return 10 }), chain(either)}
	o := s.occupancy(stuck, []string{"x"})
	ws := o.Warnings(s, []int{1, 2, 3, 4})
	if len(ws) != 1 || ws[0].Code != "modes-not-crossed" || !strings.Contains(ws[0].Message, "chain 1 spent 100%") && !strings.Contains(ws[0].Message, "chain 3 spent 100%") {
		t.Errorf("stuck chains: %+v (shares %v, pooled %v)", ws, o.Chain, o.Pooled)
	}
	mixed := []*Chain{chain(either), chain(either), chain(either), chain(either)}
	o = s.occupancy(mixed, []string{"x"})
	if ws := o.Warnings(s, []int{1, 2, 3, 4}); len(ws) != 0 {
		t.Errorf("mixing chains: %+v (R̂ %v)", ws, o.Rhat)
	}
}

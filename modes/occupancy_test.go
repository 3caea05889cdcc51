package modes

import (
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/results"
)

// Chains that each stay at the mode they started in are warned about, with
// the stuck chain's share and the pooled one; chains that each visit both
// modes at random (independent draws, shares within a few binomial
// standard errors of each other) are not.
func TestOccupancyWarnings(t *testing.T) {
	h := mat.NewSymDense(1, []float64{1})
	s := &ModeSearch{Modes: []Mode{{Theta: []float64{0}, H: h, Weight: 0.5}, {Theta: []float64{10}, H: h, Weight: 0.5}}}
	rng := rand.New(rand.NewPCG(1, 2))
	chain := func(pick func() float64) *results.Chain {
		c := &results.Chain{Columns: []string{"x"}, Cols: [][]float64{nil}}
		for range 1000 {
			c.Cols[0] = append(c.Cols[0], pick()+rng.NormFloat64())
		}
		return c
	}
	either := func() float64 { return 10 * float64(rng.IntN(2)) }
	stuck := []*results.Chain{chain(func() float64 { return 0 }), chain(either), chain(func() float64 { return 10 }), chain(either)}
	o := s.Occupancy(stuck, []string{"x"})
	ws := o.Warnings(s, []int{1, 2, 3, 4})
	if len(ws) != 1 || ws[0].Code != "modes-not-crossed" || !strings.Contains(ws[0].Message, "chain 1 spent 100%") && !strings.Contains(ws[0].Message, "chain 3 spent 100%") {
		t.Errorf("stuck chains: %+v (shares %v, pooled %v)", ws, o.Chain, o.Pooled)
	}
	// Each chain wholly at one mode: the indicator's R̂ is 0/0.
	apart := []*results.Chain{chain(func() float64 { return 0 }), chain(func() float64 { return 10 }), chain(func() float64 { return 0 }), chain(func() float64 { return 10 })}
	o = s.Occupancy(apart, []string{"x"})
	if ws := o.Warnings(s, []int{1, 2, 3, 4}); len(ws) != 1 || !strings.Contains(ws[0].Message, "no chain moved") {
		t.Errorf("chains wholly apart: %+v (shares %v, R̂ %v)", ws, o.Chain, o.Rhat)
	}
	mixed := []*results.Chain{chain(either), chain(either), chain(either), chain(either)}
	o = s.Occupancy(mixed, []string{"x"})
	if ws := o.Warnings(s, []int{1, 2, 3, 4}); len(ws) != 0 {
		t.Errorf("mixing chains: %+v (R̂ %v)", ws, o.Rhat)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// The warning names the parameters in which the mode the chains disagree
// on differs most from the heaviest other mode, in that mode's conditional
// sds: here b (4 apart at sd 0.5, 8 sds) before c (6 apart at sd 1, 6
// sds), and not a (10 apart at sd 10, 1 sd), which the raw distance would
// name first. Against mode 1 itself, the heaviest other is mode 2, which
// differs in c alone.
func TestOccupancyNamesWhatDiffers(t *testing.T) {
	h := mat.NewSymDense(3, []float64{0.01, 0, 0, 0, 4, 0, 0, 0, 1})
	s := &ModeSearch{Modes: []Mode{
		{Theta: []float64{0, 0, 0}, H: h, Weight: 0.6},
		{Theta: []float64{0, 0, 3}, H: h, Weight: 0.3},
		{Theta: []float64{10, 4, 6}, H: h, Weight: 0.1},
	}}
	o := &Occupancy{names: []string{"a", "b", "c"}}
	if got, want := o.differ(s, 2), "mode 3 differs most from mode 1 in b (4 against 0, 8 sds apart) and c (6 against 0, 6 sds apart)"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got, want := o.differ(s, 0), "mode 1 differs most from mode 2 in c (0 against 3, 3 sds apart)"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// A chain an interrupt stopped before its first draw has no shares: it is
// left out, and the warning about the others names their chains and a
// pooled share that is a number (it said "the chains together NaN%").
func TestOccupancyLeavesOutEmptyChains(t *testing.T) {
	h := mat.NewSymDense(1, []float64{1})
	s := &ModeSearch{Modes: []Mode{{Theta: []float64{0}, H: h, Weight: 0.5}, {Theta: []float64{10}, H: h, Weight: 0.5}}}
	rng := rand.New(rand.NewPCG(3, 4))
	at := func(mu float64, n int) *results.Chain {
		c := &results.Chain{Columns: []string{"x"}, Cols: [][]float64{nil}}
		for range n {
			c.Cols[0] = append(c.Cols[0], mu+rng.NormFloat64())
		}
		return c
	}
	o := s.Occupancy([]*results.Chain{at(0, 0), at(0, 500), at(10, 500), at(0, 0)}, []string{"x"})
	ws := o.Warnings(s, []int{1, 2, 3, 4})
	if len(ws) != 1 || strings.Contains(ws[0].Message, "NaN") || !strings.Contains(ws[0].Message, "together 50%") || !(strings.Contains(ws[0].Message, "chain 2 ") || strings.Contains(ws[0].Message, "chain 3 ")) {
		t.Errorf("%+v (shares %v, pooled %v)", ws, o.Chain, o.Pooled)
	}
}

// Chains of unequal lengths (an interrupted run's) that share the modes
// alike raise no warning: R̂ reads the first draws of each, as many as the
// shortest holds. It read all of them, was NaN, and warned that "no chain
// moved" of chains whose shares were 46% and 47%.
func TestOccupancyUnequalChains(t *testing.T) {
	h := mat.NewSymDense(1, []float64{1})
	s := &ModeSearch{Modes: []Mode{{Theta: []float64{0}, H: h, Weight: 0.5}, {Theta: []float64{10}, H: h, Weight: 0.5}}}
	rng := rand.New(rand.NewPCG(7, 8))
	either := func(n int) *results.Chain {
		c := &results.Chain{Columns: []string{"x"}, Cols: [][]float64{nil}}
		for range n {
			c.Cols[0] = append(c.Cols[0], 10*float64(rng.IntN(2))+rng.NormFloat64())
		}
		return c
	}
	o := s.Occupancy([]*results.Chain{either(1000), either(1000), either(666), either(589)}, []string{"x"})
	if ws := o.Warnings(s, []int{1, 2, 3, 4}); len(ws) != 0 {
		t.Errorf("%+v (R̂ %v)", ws, o.Rhat)
	}
}

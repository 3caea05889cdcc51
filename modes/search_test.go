package modes

import (
	"math"
	"testing"

	"github.com/fresgld/fresgld/internal/testenergy"
	"github.com/fresgld/fresgld/models"
)

// The search finds both modes of the paper's mixture 0.4·N(−4, 0.7²) +
// 0.6·N(3, 0.5²), weighs them by Laplace as the mixture does (the
// components overlap by less than e^−40 at the modes, so the Laplace
// weights are the mixture's to 1e-9), and reads the barrier between them
// as the grid of 64 points along the segment sees it: within c·Δ²/8 of the
// true maximum (Δ the segment's spacing, c the curvature at the top, read
// here from a fine grid), never above it.
func TestSearchModesMixture(t *testing.T) {
	mix := models.PaperMixture()
	s, err := SearchModes(testenergy.MixTerms{M: mix}, []float64{0}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Modes) != 2 {
		t.Fatalf("%d modes: %s", len(s.Modes), s.Line())
	}
	if m := s.Modes[0]; math.Abs(m.Theta[0]-3) > 1e-6 || math.Abs(m.Weight-0.6) > 1e-9 {
		t.Errorf("heaviest mode at %v, weight %v; want 3 and 0.6", m.Theta, m.Weight)
	}
	if m := s.Modes[1]; math.Abs(m.Theta[0]+4) > 1e-6 || math.Abs(m.Weight-0.4) > 1e-9 {
		t.Errorf("second mode at %v, weight %v; want −4 and 0.4", m.Theta, m.Weight)
	}
	top, at := math.Inf(-1), 0.0
	const cells = 70_000
	for k := range cells {
		x := -4 + 7*float64(k)/cells
		if u := mix.U([]float64{x}); u > top {
			top, at = u, x
		}
	}
	const d = 1e-3
	c := math.Abs(mix.U([]float64{at + d})+mix.U([]float64{at - d})-2*top) / (d * d)
	want := top - max(s.Modes[0].U, s.Modes[1].U)
	if b, tol := s.BarrierAbove(0), c*(7.0/barrierPoints)*(7.0/barrierPoints)/8; !(b <= want+1e-9 && b >= want-tol) {
		t.Errorf("barrier %v, true %v (grid tolerance %v)", b, want, tol)
	}
}

// Two minima with no barrier between them worth the name (0.1 nats) are
// one basin: the search files the second under the first as it finds it
// (ModeSearch.keep), and the plan is the one-mode plan's; a barrier of 5
// nats keeps two  OneBasin does the same to modes already found.
func TestOneBasin(t *testing.T) {
	for _, c := range []struct {
		h   float64
		one bool
	}{{0.1, true}, {5, false}} {
		s, err := SearchModes(EnergyTerms(testenergy.DoubleWell{H: c.h}), []float64{0.9, 0}, 3)
		if err != nil {
			t.Fatal(err)
		}
		if c.one && (len(s.Modes) != 1 || s.Merged == 0) {
			t.Errorf("barrier %v nats: %s, want one mode and a minimum merged into it", c.h, s.Line())
		}
		if !c.one && (len(s.Modes) != 2 || s.OneBasin()) {
			t.Errorf("barrier %v nats: %s, want two modes", c.h, s.Line())
		}
		t.Log(s.Line())
	}
	two := &ModeSearch{Modes: []Mode{{Weight: 0.5}, {Weight: 0.5, barrier: 0.1}}}
	if !two.OneBasin() || len(two.Modes) != 1 || two.Merged != 1 {
		t.Errorf("two modes 0.1 nats apart: %d left, %d merged; want 1 and 1", len(two.Modes), two.Merged)
	}
}

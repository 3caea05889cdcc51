package diag

import (
	"math"
	"testing"
)

func uniformGrid(lo, hi float64, cells int) Grid1D {
	g := Grid1D{Lo: lo, Hi: hi, Dens: make([]float64, cells)}
	for i := range g.Dens {
		g.Dens[i] = 1 / (hi - lo)
	}
	return g
}

func TestW2KnownAnswers(t *testing.T) {
	u := uniformGrid(-1, 1, 64)
	cases := []struct {
		name    string
		samples []float64
		want    float64
	}{
		// One point at 0 against U(−1,1): W2² = E X² = 1/3.
		{"point at centre", []float64{0}, math.Sqrt(1.0 / 3)},
		// Two points at ∓½: each half is U of width 1 about its point.
		{"two points", []float64{0.5, -0.5}, math.Sqrt(1.0 / 12)},
		// A point at 2: E(X − 2)² = 4 + 1/3.
		{"point outside", []float64{2}, math.Sqrt(4 + 1.0/3)},
	}
	for _, c := range cases {
		if got := u.W2(c.samples); !(math.Abs(got-c.want) <= 1e-12) {
			t.Errorf("%s: W2 = %.15g, want %.15g", c.name, got, c.want)
		}
	}
	// n points at the centres of n equal-mass pieces of U(−1,1): each piece
	// is U of width 2/n about its point, so W2² = (2/n)²/12. Cells (64) and
	// pieces (n) interleave without aligning for n = 10.
	for _, n := range []int{10, 64, 1000} {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = -1 + (float64(i)+0.5)*2/float64(n)
		}
		want := 2 / float64(n) / math.Sqrt(12)
		if got := u.W2(xs); !(math.Abs(got-want) <= 1e-12) {
			t.Errorf("%d centred points: W2 = %.15g, want %.15g", n, got, want)
		}
	}
	// A shifted Gaussian grid against points at the quantiles of the
	// unshifted one: W2 ≈ the shift (up to the quantisation W2 of the
	// points, < 0.01 for 4000 points), and GaussianW2 agrees.
	g := Tempered1D(func(x float64) float64 { return (x - 0.3) * (x - 0.3) / 2 }, 1, -10, 10, 20000)
	n0 := Tempered1D(func(x float64) float64 { return x * x / 2 }, 1, -10, 10, 20000)
	xs := make([]float64, 4000)
	for i := range xs {
		xs[i] = n0.Quantile((float64(i) + 0.5) / 4000)
	}
	if got := g.W2(xs); !(math.Abs(got-0.3) <= 0.01) {
		t.Errorf("shifted Gaussian: W2 = %v, want ≈ 0.3", got)
	}
	if got := GaussianW2(0.3, 1, 0, 1); !(math.Abs(got-0.3) <= 1e-15) {
		t.Errorf("GaussianW2 shift = %v", got)
	}
	if got := GaussianW2(0, 4, 0, 1); !(math.Abs(got-1) <= 1e-15) {
		t.Errorf("GaussianW2 scale = %v", got)
	}
	if !math.IsNaN(u.W2(nil)) {
		t.Error("W2 of no samples is not NaN")
	}
}

func TestModes(t *testing.T) {
	// Two bumps: U(−3,−1) with mass 0.4 and U(1,3) with mass 0.6, joined by
	// a low plateau.
	g := Grid1D{Lo: -4, Hi: 4, Dens: make([]float64, 80)}
	for i := range g.Dens {
		x := -4 + (float64(i)+0.5)*0.1
		switch {
		case x > -3 && x < -1:
			g.Dens[i] = 0.2
		case x > 1 && x < 3:
			g.Dens[i] = 0.3
		}
	}
	g.Dens[40] = 0 // x = 0.05 is the (first) least-dense point between −2 and 2.
	if s := g.Split(-2, 2); s < -1 || s > 1 {
		t.Errorf("Split = %v, want in the gap (−1, 1)", s)
	}
	if w := 1 - g.CDF(g.Split(-2, 2)); !(math.Abs(w-0.6) <= 1e-12) {
		t.Errorf("exact right weight %v, want 0.6", w)
	}
	if w := RightWeight([]float64{-2, 2, 2, 0.5, -0.5}, 0); w != 0.6 {
		t.Errorf("RightWeight = %v, want 0.6", w)
	}
	if !math.IsNaN(RightWeight(nil, 0)) {
		t.Error("RightWeight of nothing is not NaN")
	}
}

package models

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/integrate/quad"
)

func TestMixtureDensityAndGradient(t *testing.T) {
	m := PaperMixture()
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	// exp(−U) is a density: it integrates to 1 (Gauss–Legendre, 2000
	// nodes on [−15, 15], where the tails are below 1e-60).
	if z := quad.Fixed(m.Density, -15, 15, 2000, nil, 0); !(math.Abs(z-1) <= 1e-10) {
		t.Errorf("∫exp(−U) = %v", z)
	}
	g := []float64{0}
	for _, x := range []float64{-6, -4, -0.5, 0, 2.2, 3, 40} {
		m.Grad(g, []float64{x})
		want := fd.Derivative(func(y float64) float64 { return m.U([]float64{y}) }, x, &fd.Settings{Formula: fd.Central, Step: 1e-5})
		if !(math.Abs(g[0]-want) <= 1e-6*math.Max(1, math.Abs(want))) {
			t.Errorf("U'(%v) = %v, finite difference %v", x, g[0], want)
		}
	}
	// Far in the tails U stays finite (log-sum-exp, no underflow to log 0).
	if u := m.U([]float64{1e3}); math.IsInf(u, 0) || math.IsNaN(u) {
		t.Errorf("U(1000) = %v", u)
	}
	for _, bad := range []Mixture{{}, {Weights: []float64{1}, Means: []float64{0}, SDs: []float64{0}}, {Weights: []float64{0.5}, Means: []float64{0}, SDs: []float64{1}}} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

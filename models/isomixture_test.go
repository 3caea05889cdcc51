package models

import (
	"math"
	"testing"
)

func TestIsoMixture(t *testing.T) {
	m := FourModes()
	// The gradient against central differences of U: with step h the
	// difference has error O(h²·U''') ≈ 1e-8 here; 1e-6 leaves room.
	theta := []float64{0.7, -1.2, 0.3, 2.0, -0.5}
	g := make([]float64, 5)
	m.Grad(g, theta)
	const h = 1e-5
	for j := range theta {
		x := append([]float64(nil), theta...)
		x[j] += h
		up := m.U(x)
		x[j] -= 2 * h
		fd := (up - m.U(x)) / (2 * h)
		if !(math.Abs(fd-g[j]) <= 1e-6) {
			t.Errorf("∂U/∂θ_%d = %v, central difference %v", j, g[j], fd)
		}
	}
	// At a component's centre, far from the others, U is −log of its
	// weighted peak density, w/(2π)^(5/2), up to the others' e^(−18) share.
	want := -math.Log(0.4) + 2.5*math.Log(2*math.Pi)
	if u := m.U([]float64{3, 3, 0, 0, 0}); !(math.Abs(u-want) <= 1e-6) {
		t.Errorf("U at the heaviest centre = %v, want %v", u, want)
	}
	if _, err := NewIsoMixture([]float64{0.5, 0.6}, [][]float64{{0}, {1}}); err == nil {
		t.Error("weights summing to 1.1 accepted")
	}
}

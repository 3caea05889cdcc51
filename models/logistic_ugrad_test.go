package models

import (
	"math"
	"testing"
)

// UGrad gives U and ∇U bit for bit as U and Grad do, at states near and far
// from the mode (both signs of every logit).
func TestLogisticUGrad(t *testing.T) {
	l, _, err := SyntheticLogistic(300, 7, 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	g1, g2 := make([]float64, 7), make([]float64, 7)
	for _, theta := range [][]float64{make([]float64, 7), {3, -2, 1, 0.5, -4, 2, 1}} {
		u := l.UGrad(g1, theta)
		l.Grad(g2, theta)
		if w := l.U(theta); math.Float64bits(u) != math.Float64bits(w) {
			t.Errorf("at %v: UGrad's energy %v, U's %v", theta, u, w)
		}
		for j := range g1 {
			if math.Float64bits(g1[j]) != math.Float64bits(g2[j]) {
				t.Errorf("at %v: coordinate %d: UGrad %v, Grad %v", theta, j, g1[j], g2[j])
			}
		}
	}
}

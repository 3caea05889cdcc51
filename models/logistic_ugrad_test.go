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

// EnergyOn is the sum of Term over the listed rows, to rounding, whatever
// their number modulo four.
func TestLogisticEnergyOn(t *testing.T) {
	l, _, err := SyntheticLogistic(300, 7, 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{3, -2, 1, 0.5, -4, 2, 1}
	for _, rows := range [][]int32{{5}, {0, 1, 2, 3}, {299, 7, 7, 100, 42, 3, 250}} {
		var want float64
		for _, i := range rows {
			want += l.Term(nil, theta, int(i))
		}
		if got := l.EnergyOn(theta, rows); !(math.Abs(got-want) <= 1e-12*math.Abs(want)) {
			t.Errorf("rows %v: %v, Σ Term %v", rows, got, want)
		}
	}
}

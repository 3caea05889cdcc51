package target

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestNoisyMomentsAndReports(t *testing.T) {
	q := Quadratic{Lambda: []float64{1, 2}}
	sd := func(theta []float64, j int) float64 { return 1 + float64(j) + theta[0] }
	n := &Noisy{E: q, EnergySD: func(_ []float64, u float64) float64 { return 0.5 + u }, GradSD: sd}
	theta := []float64{0.5, -1}
	rng := rand.New(rand.NewPCG(3, 4))
	const draws = 100000
	g, v := make([]float64, 2), make([]float64, 2)
	var gm, gs [2]float64
	var um, us float64
	u0 := q.U(theta)
	for range draws {
		n.Grad(g, v, theta, rng)
		for j := range g {
			d := g[j] - q.Lambda[j]*theta[j]
			gm[j] += d
			gs[j] += d * d
		}
		u, s2 := n.Energy(theta, rng)
		if want := (0.5 + u0) * (0.5 + u0); s2 != want {
			t.Fatalf("reported σ² = %v, want %v", s2, want)
		}
		um += u - u0
		us += (u - u0) * (u - u0)
	}
	for j := range g {
		s := sd(theta, j)
		if v[j] != s*s {
			t.Errorf("reported ŝ²_%d = %v, want %v", j, v[j], s*s)
		}
		// Mean within 5 standard errors s/√n, variance within 5 relative
		// standard errors √(2/n).
		if m := gm[j] / draws; !(math.Abs(m) <= 5*s/math.Sqrt(draws)) {
			t.Errorf("gradient noise %d has mean %v", j, m)
		}
		if vv := gs[j] / draws; !(math.Abs(vv/(s*s)-1) <= 5*math.Sqrt(2.0/draws)) {
			t.Errorf("gradient noise %d has variance %v, want %v", j, vv, s*s)
		}
	}
	s := 0.5 + u0
	if m := um / draws; !(math.Abs(m) <= 5*s/math.Sqrt(draws)) {
		t.Errorf("energy noise has mean %v", m)
	}
	if vv := us / draws; !(math.Abs(vv/(s*s)-1) <= 5*math.Sqrt(2.0/draws)) {
		t.Errorf("energy noise has variance %v, want %v", vv, s*s)
	}
	h := Hidden{Estimator: n}
	if h.KnowsVariance() {
		t.Error("Hidden reports variance")
	}
	if _, s2 := h.Energy(theta, rng); s2 != 0 {
		t.Errorf("Hidden energy variance %v", s2)
	}
}

package energy

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

// The constant-noise fast path, which writes the gradient variances in the
// pass that draws the noise, draws what a gradient without variances does:
// the same bits from the same stream.
func TestNoisyConstantPathsSameBits(t *testing.T) {
	q := NewIsoQuadratic(5, 1.5)
	sigma, s := 0.7, 1.3 // variables: a constant σ*σ would be folded exactly
	fast := NewNoisy(q, sigma, s)
	slow := &Noisy{E: q, EnergySD: func([]float64, float64) float64 { return 0.7 }, ConstGradSD: 1.3}
	r1, r2 := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2))
	theta := []float64{0.1, -2, 3, 0, 1}
	g1, g2, v1 := make([]float64, 5), make([]float64, 5), make([]float64, 5)
	for k := range 50 {
		fast.Grad(g1, v1, theta, r1)
		slow.Grad(g2, nil, theta, r2)
		u1, s1 := fast.Energy(theta, r1)
		u2, s2 := slow.Energy(theta, r2)
		if math.Float64bits(u1) != math.Float64bits(u2) || s1 != s2 || s1 != sigma*sigma {
			t.Fatalf("draw %d: energy %v (σ² %v), want %v (σ² %v)", k, u1, s1, u2, s2)
		}
		for j := range g1 {
			if math.Float64bits(g1[j]) != math.Float64bits(g2[j]) || v1[j] != s*s {
				t.Fatalf("draw %d: ∇Û_%d = %v (ŝ² %v), want %v (ŝ² %v)", k, j, g1[j], v1[j], g2[j], s*s)
			}
		}
	}
}

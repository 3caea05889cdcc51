package models

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestExpitStable(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{0, 0.5}, {800, 1}, {-800, 0}, {math.Log(3), 0.75}, {-math.Log(3), 0.25},
	} {
		if got := Expit(c.x); math.Abs(got-c.want) > 1e-15 || math.IsNaN(got) {
			t.Errorf("Expit(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}

// The estimator's draws have the stated means and variances: checked by
// Monte Carlo, within 4 standard errors of n draws.
func TestStateNoisyMoments(t *testing.T) {
	m := PaperMixture()
	est := StateNoisy(m)
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 40000
	for _, x := range []float64{-4, 0, 3} {
		theta := []float64{x}
		g := make([]float64, 1)
		gv := make([]float64, 1)
		exact := make([]float64, 1)
		m.Grad(exact, theta)
		u := m.U(theta)
		s, sig := StateGradSD(x), StateEnergySD(u)
		var gs, es, ess float64
		for range n {
			est.Grad(g, gv, theta, rng)
			gs += g[0] - exact[0]
			e, v := est.Energy(theta, rng)
			es += e - u
			ess += (e - u) * (e - u)
			if math.Abs(gv[0]-s*s) > 1e-12 || math.Abs(v-sig*sig) > 1e-12 {
				t.Fatalf("θ=%v: reported variances %v, %v; want %v, %v", x, gv[0], v, s*s, sig*sig)
			}
		}
		if d := gs / n; !(math.Abs(d) <= 4*s/math.Sqrt(n)) {
			t.Errorf("θ=%v: gradient noise mean %v, beyond 4 SE %v", x, d, 4*s/math.Sqrt(n))
		}
		if d := es / n; !(math.Abs(d) <= 4*sig/math.Sqrt(n)) {
			t.Errorf("θ=%v: energy noise mean %v", x, d)
		}
		// Var of the sample second moment of N(0,σ²) is 2σ⁴/n.
		if d := ess/n - sig*sig; !(math.Abs(d) <= 4*sig*sig*math.Sqrt(2.0/n)) {
			t.Errorf("θ=%v: energy noise variance off by %v", x, d)
		}
	}
}

package langevin

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestCorrectedNoiseFillsBudget(t *testing.T) {
	// Coordinates with ŝ² = 0, 16, 16 and 48 under η = 1/8, τ = 1 (exact
	// in binary): the budget 2τη = 1/4 leaves injected variances 1/4, 0, 0
	// (exactly at the budget), and −1/2 → clamped.
	const eta, tau, n = 0.125, 1.0, 200000
	vars := []float64{0, 16, 16, 48}
	want := []float64{0.25, 0, 0, 0}
	rng := rand.New(rand.NewPCG(1, 2))
	theta := make([]float64, 4)
	grad := []float64{1, 2, 3, 4}
	sum, scratch := make([]float64, 4), make([]float64, 4)
	var clamped int
	for range n {
		for j := range theta {
			theta[j] = 0
		}
		c, ok := Step(theta, grad, vars, scratch, eta, tau, Corrected, rng)
		if !ok {
			t.Fatal("not finite")
		}
		clamped += c
		for j, x := range theta {
			d := x + eta*grad[j] // the injected noise
			sum[j] += d * d
		}
	}
	for j := range vars {
		got := sum[j] / n
		// The mean of n squared normals has relative sd √(2/n): 5 of them.
		if !(math.Abs(got-want[j]) <= 5*want[j]*math.Sqrt(2.0/n)) {
			t.Errorf("coordinate %d: injected variance %v, want %v", j, got, want[j])
		}
	}
	if clamped != n {
		t.Errorf("clamped %d coordinate-steps, want %d (one coordinate over budget)", clamped, n)
	}
}

func TestStepReportsNonFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	theta := []float64{0, 0}
	if _, ok := Step(theta, []float64{math.Inf(1), 0}, nil, make([]float64, 2), 0.1, 1, SGLD, rng); ok {
		t.Error("an infinite gradient gave a finite state")
	}
}

func TestSchedules(t *testing.T) {
	d := Decreasing{A: 0.5, B: 10, Gamma: 0.55}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := (Decreasing{A: 1, B: 1, Gamma: 1}).Validate(); err != nil {
		t.Errorf("γ = 1: %v", err)
	}
	if got, want := d.Eta(90), 0.5*math.Pow(100, -0.55); got != want {
		t.Errorf("η_90 = %v, want %v", got, want)
	}
	for _, bad := range []Schedule{Constant{0}, Constant{math.Inf(1)}, Decreasing{A: 1, B: 0, Gamma: 0.5}, Decreasing{A: -1, B: 1, Gamma: 0.5}, Decreasing{A: 1, B: 1, Gamma: -0.1},
		Decreasing{A: 1, B: 1, Gamma: 0}, Decreasing{A: 1, B: 1, Gamma: 0.5}, Decreasing{A: 1, B: 1, Gamma: 1.01}, Decreasing{A: 1, B: 1, Gamma: math.NaN()}} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

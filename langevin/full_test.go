package langevin

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLowRankStepIsDriftPlusNoise checks Step against its definition: from
// equal random streams, θ − η·grad + ζ with ζ the draw of Noise, bit for bit;
// the same count of clipped directions (the rows spread widely along one
// coordinate only, so some directions are clipped and some not); finiteness
// reported both ways; and no allocation once the workspace has its size.
func TestLowRankStepIsDriftPlusNoise(t *testing.T) {
	const n, p = 6, 4
	const f, eta, tau = 50.0, 0.1, 1.0
	src := rand.New(rand.NewPCG(3, 4))
	rows := make([]float64, n*p)
	for i := range rows { // wide along the first coordinate only
		rows[i] = 0.01 * src.NormFloat64()
		if i%p == 0 {
			rows[i] *= 300
		}
	}
	grad, theta := make([]float64, p), make([]float64, p)
	for j := range grad {
		grad[j], theta[j] = src.NormFloat64(), src.NormFloat64()
	}
	var step, noise LowRank
	r1, r2 := rand.New(rand.NewPCG(7, 8)), rand.New(rand.NewPCG(7, 8))
	for draw := range 5 {
		xi := make([]float64, p)
		wantClamped := noise.Noise(xi, rows, n, f, eta, tau, r2)
		want := make([]float64, p)
		for j := range want {
			want[j] = theta[j] - eta*grad[j] + xi[j]
		}
		clamped, finite := step.Step(theta, grad, rows, n, f, eta, tau, r1)
		if clamped != wantClamped || clamped == 0 || clamped == p || !finite {
			t.Fatalf("draw %d: %d clipped directions (Noise: %d), finite %v", draw, clamped, wantClamped, finite)
		}
		for j := range want {
			if math.Float64bits(theta[j]) != math.Float64bits(want[j]) {
				t.Fatalf("draw %d: θ_%d = %v, want θ − η·grad + ζ = %v", draw, j, theta[j], want[j])
			}
		}
	}
	if a := testing.AllocsPerRun(20, func() { step.Step(theta, grad, rows, n, f, eta, tau, r1) }); a != 0 {
		t.Errorf("%v allocations per step", a)
	}
	grad[2] = math.Inf(1)
	if _, finite := step.Step(theta, grad, rows, n, f, eta, tau, r1); finite {
		t.Error("a step to an infinite state reported finite")
	}
}

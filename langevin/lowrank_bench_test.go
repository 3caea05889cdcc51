package langevin

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkLowRank times one low-rank noise draw, O(min(n,p)²·max(n,p)),
// against the diagonal correction's O(p) (BenchmarkDiagNoise).
func BenchmarkLowRank(b *testing.B) {
	for _, sz := range []struct{ n, p int }{{10, 100}, {100, 100}, {10, 1000}, {100, 1000}} {
		b.Run(fmt.Sprintf("n=%d/p=%d", sz.n, sz.p), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			rows := make([]float64, sz.n*sz.p)
			for i := range rows {
				rows[i] = rng.NormFloat64()
			}
			var lr LowRank
			dst := make([]float64, sz.p)
			lr.Noise(dst, rows, sz.n, 10, 0.01, 1, rng) // sizes the workspace
			b.ReportAllocs()
			for b.Loop() {
				lr.Noise(dst, rows, sz.n, 10, 0.01, 1, rng)
			}
		})
	}
}

// BenchmarkDiagNoise times the corrected step's own noise at the same p.
func BenchmarkDiagNoise(b *testing.B) {
	for _, p := range []int{100, 1000} {
		b.Run(fmt.Sprintf("p=%d", p), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			theta, grad, gv, xi := make([]float64, p), make([]float64, p), make([]float64, p), make([]float64, p)
			b.ReportAllocs()
			for b.Loop() {
				Step(theta, grad, gv, xi, 0.01, 1, Corrected, rng)
			}
		})
	}
}

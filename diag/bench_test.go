package diag

import (
	"math/rand/v2"
	"testing"
)

// benchParams is p parameters of m chains of n AR(1) draws with coefficient
// rho (0 for independent draws).
func benchParams(p, m, n int, rho float64) [][][]float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([][][]float64, p)
	for k := range out {
		out[k] = make([][]float64, m)
		for c := range out[k] {
			x := make([]float64, n)
			prev := 0.0
			for i := range x {
				prev = rho*prev + rng.NormFloat64()
				x[i] = prev
			}
			out[k][c] = x
		}
	}
	return out
}

// BenchmarkSummarize is one parameter of 4 chains × 10⁴ draws.
func BenchmarkSummarize(b *testing.B) {
	for _, rho := range []float64{0, 0.9} {
		x := benchParams(1, 4, 10000, rho)[0]
		b.Run(map[float64]string{0: "iid", 0.9: "ar0.9"}[rho], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Summarize(x)
			}
		})
	}
}

// BenchmarkSummarizeAll is the case: 1000 parameters of 4 chains ×
// 10⁴ draws, on all of GOMAXPROCS.
func BenchmarkSummarizeAll(b *testing.B) {
	for _, rho := range []float64{0, 0.9} {
		x := benchParams(1000, 4, 10000, rho)
		b.Run(map[float64]string{0: "iid", 0.9: "ar0.9"}[rho], func(b *testing.B) {
			for b.Loop() {
				SummarizeAll(x)
			}
		})
	}
}

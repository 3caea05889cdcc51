package exchange

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/target"
)

var benchDims = []int{1, 100, 10000}

// BenchmarkStep times one two-chain f-reSGLD step on U = ½|θ|² with the
// paper's kind of noisy estimator (Gaussian noise on the gradient and the
// energy, known variances) and a swap attempt every step. Per step it draws
// 4p + 2 normals: p gradient-noise and p injected per chain, one per energy.
func BenchmarkStep(b *testing.B) {
	for _, conc := range []bool{false, true} {
		for _, p := range benchDims {
			name := fmt.Sprintf("p=%d", p)
			if conc {
				name += "/concurrent"
			}
			b.Run(name, func(b *testing.B) {
				q := target.NewIsoQuadratic(p, 1)
				cold, hot := target.NewNoisy(q, 1, 2), target.NewNoisy(q, 3, 5)
				cfg := Config{Levels: []Level{
					{Tau: 1, Est: cold, Eta: langevin.Constant{Step: 0.01}, Noise: langevin.Corrected},
					{Tau: 10, Est: hot, Eta: langevin.Constant{Step: 0.01}, Noise: langevin.Corrected},
				}, Swap: Swap{Rule: FReSGLD, PerStep: true}, Seed: 1, Concurrent: conc}
				s, err := New(cfg, [][]float64{make([]float64, p), make([]float64, p)})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				for range 100 { // past first-step setup
					s.Step()
				}
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					if err := s.Step(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkFloor draws the normals one BenchmarkStep step draws, 4p + 2,
// from the same generator: the cost no sampler on this estimator can avoid.
func BenchmarkFloor(b *testing.B) {
	for _, p := range benchDims {
		b.Run(fmt.Sprintf("p=%d", p), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 0))
			var sink float64
			b.ReportAllocs()
			for range b.N {
				for range 4*p + 2 {
					sink += rng.NormFloat64()
				}
			}
			if sink == 0.5 {
				b.Log(sink)
			}
		})
	}
}

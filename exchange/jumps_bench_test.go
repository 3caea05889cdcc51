package exchange

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// BenchmarkJumpStep times a MALA level's step on U = ½|θ|² in p
// dimensions (modes=0, the peer) against the same level with jumps among
// k modes whose Hessians are dense, at the plan's rate of a tenth and at
// rate 1 (every step a jump). A jump's own cost is a draw, a triangular
// solve and the mixture's density at the proposal (k triangular
// products), and at the current state unless kept from the last jump,
// on top of the one pass that a MALA step makes too. On this energy the
// pass is nearly free, so the ratio is the jumps' overhead at its
// largest; on a model with N terms a pass costs N gradient terms.
func BenchmarkJumpStep(b *testing.B) {
	for _, p := range []int{6, 60} {
		for _, c := range []struct {
			k    int
			rate float64
		}{{0, 0}, {1, 1}, {10, 0.1}, {10, 1}} {
			b.Run(fmt.Sprintf("p=%d/modes=%d/rate=%g", p, c.k, c.rate), func(b *testing.B) {
				lv := Level{Tau: 1, Est: energy.Exact{E: energy.NewIsoQuadratic(p, 1)}, Eta: langevin.Constant{Step: 0.5}, Metropolis: true}
				if c.k > 0 {
					lv.Jumps = benchJumps(b, p, c.k, c.rate)
				}
				s := mustNew(b, Config{Levels: []Level{lv}, Seed: 1}, [][]float64{make([]float64, p)})
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

// benchJumps are k modes at random centres near 0 with dense Hessians
// I + AAᵀ/p.
func benchJumps(b *testing.B, p, k int, rate float64) *Jumps {
	rng := rand.New(rand.NewPCG(2, 0))
	var means [][]float64
	var hess []mat.Symmetric
	for range k {
		m := make([]float64, p)
		a := mat.NewDense(p, p, nil)
		for i := range p {
			m[i] = 0.1 * rng.NormFloat64()
			for j := range p {
				a.Set(i, j, rng.NormFloat64())
			}
		}
		h := mat.NewSymDense(p, nil)
		h.SymOuterK(1/float64(p), a)
		for i := range p {
			h.SetSym(i, i, h.At(i, i)+1)
		}
		means, hess = append(means, m), append(hess, h)
	}
	j, err := NewJumps(rate, means, hess, make([]float64, k))
	if err != nil {
		b.Fatal(err)
	}
	return j
}

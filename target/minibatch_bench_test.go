package target

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkDraw times the index draw alone, whose work and memory do not
// depend on N.
func BenchmarkDraw(b *testing.B) {
	for _, N := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("N=%d/n=100", N), func(b *testing.B) {
			m := &Minibatch{s: sampler{N: N}}
			m.s.size(100)
			rng := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			for b.Loop() {
				m.draw(rng)
			}
		})
	}
}

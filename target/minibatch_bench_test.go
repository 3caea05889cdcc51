package target

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkDraw times the index draw alone: a partial Fisher–Yates shuffle of
// n positions, whose work does not depend on N (its memory traffic does).
func BenchmarkDraw(b *testing.B) {
	for _, N := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("N=%d/n=100", N), func(b *testing.B) {
			m, err := NewMinibatch(newShiftTerms(2, 1, 1), 2)
			if err != nil {
				b.Fatal(err)
			}
			m.perm = make([]int32, N)
			for i := range m.perm {
				m.perm[i] = int32(i)
			}
			m.n = 100
			rng := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			for b.Loop() {
				m.draw(rng)
			}
		})
	}
}

package energy

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkDraw times the index draw alone: by rejection (what a Minibatch
// does for n ≤ N/4), whose work and memory do not depend on N, and by a
// partial Fisher–Yates shuffle of a permutation of all N indices, whose work
// does not either but which reads one random entry of a 4N-byte array per
// index.
func BenchmarkDraw(b *testing.B) {
	for _, N := range []int{10_000, 100_000, 1_000_000} {
		for _, method := range []string{"reject", "shuffle"} {
			b.Run(fmt.Sprintf("N=%d/n=100/method=%s", N, method), func(b *testing.B) {
				s := &sampler{N: N}
				s.size(100)
				draw := s.draw
				if method == "shuffle" {
					s.perm = make([]int32, N)
					for i := range s.perm {
						s.perm[i] = int32(i)
					}
					draw = s.shuffle
				}
				rng := rand.New(rand.NewPCG(1, 2))
				b.ReportAllocs()
				for b.Loop() {
					draw(rng)
				}
			})
		}
	}
}

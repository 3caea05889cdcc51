package energy

import (
	"math/rand/v2"

	"github.com/fresgld/fresgld/internal/pad"
)

// sampler draws n distinct indices of N uniformly at random, in O(n)
// expected work and O(n) memory that stays in cache, never O(N):
//
//   - for n ≤ N/4, by rejection: uniform indices, duplicates rejected
//     through an open-addressing set of at least 4n slots whose entries are
//     stamped with the draw's number, so it is never cleared. At most a
//     quarter of the indices are taken, so a candidate is rejected with
//     probability below 1/4: under 4n/3 candidates on average.
//   - for n > N/4, by a partial Fisher–Yates shuffle of a persistent
//     permutation of the N < 4n indices, allocated the first time it is
//     needed. Each draw is uniform whatever the permutation's current order.
//
// A persistent permutation for every n would cost a cache miss per index at
// large N, on top of the miss on each example's data.
type sampler struct {
	N    int
	idx  []int32 // the draw
	perm []int32 // Fisher–Yates state, nil until needed

	cur []int32 // the last draw

	keys  []int32
	stamp []uint32
	gen   uint32
	shift uint // 32 − log2(len(keys))
}

// size prepares for draws of up to n (allocating only when n grows) and
// makes n the size of draw.
func (s *sampler) size(n int) {
	s.reserve(n)
	s.idx = s.idx[:n]
}

// reserve prepares for draws of n without changing the size of draw.
func (s *sampler) reserve(n int) {
	if cap(s.idx) < n {
		s.idx = pad.Slice[int32](n)[:len(s.idx)]
	}
	if 4*n > s.N {
		if s.perm == nil {
			s.perm = make([]int32, s.N)
			for i := range s.perm {
				s.perm[i] = int32(i)
			}
		}
		return
	}
	slots := 4
	for slots < 4*n {
		slots *= 2
	}
	if len(s.keys) < slots {
		s.keys = pad.Slice[int32](slots)
		s.stamp = pad.Slice[uint32](slots)
		s.gen = 0
		s.shift = 32
		for l := len(s.keys); l > 1; l /= 2 {
			s.shift--
		}
	}
}

// shuffle draws by a partial Fisher–Yates shuffle of perm.
func (s *sampler) shuffle(rng *rand.Rand) []int32 { return s.shuffleN(rng, len(s.idx)) }

func (s *sampler) shuffleN(rng *rand.Rand, n int) []int32 {
	if n < s.N {
		for k := 0; k < n; k++ {
			j := k + rng.IntN(s.N-k)
			s.perm[k], s.perm[j] = s.perm[j], s.perm[k]
		}
	}
	s.cur = s.perm[:n]
	return s.cur
}

// draw returns a fresh uniformly random ordered sample of distinct indices,
// as many as the last size.
func (s *sampler) draw(rng *rand.Rand) []int32 { return s.drawN(rng, len(s.idx)) }

// drawN draws n indices; n must have been reserved.
func (s *sampler) drawN(rng *rand.Rand, n int) []int32 {
	if 4*n > s.N {
		return s.shuffleN(rng, n)
	}
	s.gen++
	if s.gen == 0 { // wrapped: old stamps could collide
		clear(s.stamp)
		s.gen = 1
	}
	mask := uint32(len(s.keys) - 1) // the hash is already below len(keys)
	idx := s.idx[:n]
	for k := 0; k < n; {
		i := int32(rng.IntN(s.N))
		h := (uint32(i) * 0x9E3779B1) >> s.shift & mask
		for s.stamp[h] == s.gen && s.keys[h] != i {
			h = (h + 1) & mask
		}
		if s.stamp[h] == s.gen {
			continue // already taken
		}
		s.stamp[h], s.keys[h] = s.gen, i
		idx[k] = i
		k++
	}
	s.cur = idx
	return s.cur
}

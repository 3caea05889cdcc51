package energy

import "math/rand/v2"

// Indices draws minibatches of distinct example indices, uniformly without
// replacement, in O(n) expected work and no allocation once it has seen the
// largest n (the sampler of Minibatch, for callers that evaluate the terms
// themselves, such as swap energies).
type Indices struct{ s sampler }

// NewIndices returns a drawer over N examples.
func NewIndices(N int) *Indices { return &Indices{s: sampler{N: N}} }

// Len is N.
func (d *Indices) Len() int { return d.s.N }

// Draw returns n distinct indices of [0, N), valid until the next Draw.
// n must lie in [1, N].
func (d *Indices) Draw(rng *rand.Rand, n int) []int32 {
	d.s.reserve(n)
	return d.s.drawN(rng, n)
}

package exchange

import (
	"fmt"
	"math"

	"github.com/fresgld/fresgld/energy"
)

// thinEventCost is the per-example evaluations a thinning event costs: the
// example's score at both states and at the expansion point.
const thinEventCost = 3

// expand builds ThinnedEnergies' expansion about at (nil: start, the cold
// level's initial state): two passes over the data, charged to the cold
// level as anchor passes.
func (s *Sampler) expand(at, start []float64) error {
	if at == nil {
		at = start
	}
	e, err := energy.NewExpansion(s.data.Terms.(energy.CubicTerms), at)
	if err != nil {
		return fmt.Errorf("swap energies thinned: %w", err)
	}
	s.data.expansion = e
	c := &s.lv[0].stats.Cost.Anchor
	c.Calls++
	c.Units += 2 * float64(s.data.N)
	return nil
}

// thinnedRatio is ThinnedEnergies' decision for x (at level l) and y (at
// level l + 1) as a log-ratio whose min(1, e^lr) is the chance to accept:
// the expansion's factor, log S = τδ·[U_0(x) − U_0(y) + QuadDiff(x, y)],
// when the remainders' thinning passed, −∞ when it did not. Its mean
// min(1, e^lr) is then the attempt's acceptance probability, as ProbSum
// needs. The thinning is drawn first, whatever the first factor: the two
// are independent and their order does not matter.
//
// When Λ, the thinning's expected number of events at most, would cost more
// than the full pass (states far from the expansion point: a hot level's),
// the attempt takes the plain Metropolis ratio on exact energies instead.
// Λ is symmetric in x and y, so the forward and the reverse swap choose
// the same test, and each test keeps detailed balance on its own. A
// thinning bound found violated, or an intensity that is not a number,
// stops the run with ThinAt's error.
func (s *Sampler) thinnedRatio(l int, x, y []float64) (float64, error) {
	e, td, p := s.data.expansion, s.td[l], &s.pairs[l]
	in := e.Intensity(td, x, y)
	if thinEventCost*in*e.Weight() > 2*float64(s.data.N) {
		p.Confirmed++
		d := s.exactDiff(l, x, y)
		return td * d, finiteDiff(l, s.k, d, 0)
	}
	pass, n, err := e.ThinAt(s.srng, td, in, x, y)
	c := float64(thinEventCost*n+len(x)) / 2 // the events and QuadDiff's p² multiply-adds
	s.spend(l, c)
	s.spend(l+1, c)
	p.Screened += int64(2 * n)
	if err != nil {
		return 0, fmt.Errorf("levels %d and %d: swap at step %d: %w", l, l+1, s.k, err)
	}
	if !pass {
		return math.Inf(-1), nil
	}
	t := s.data.Terms
	d := t.Prior(nil, x) - t.Prior(nil, y) + e.QuadDiff(x, y)
	return td * d, finiteDiff(l, s.k, d, 0)
}

// ThinnedCost predicts the per-example evaluations of a thinned attempt on
// the ladder taus, every pair offered a swap, when each level's state is
// drawn from the Laplace approximation at e's point tempered to the level's
// temperature (Expansion.MeanRate): each pair's events at their mean rate,
// or the full pass of each of its two states where that is cheaper (as
// thinnedRatio falls back), and its quadratic's p² multiply-adds as p, as
// the sampler charges them. Only for a posterior that approximation
// describes, a log-concave one: states far from the point, in another mode,
// cost full passes it does not foresee.
func ThinnedCost(e *energy.Expansion, taus []float64, N int) float64 {
	var c float64
	for l := range len(taus) - 1 {
		td := 1/taus[l] - 1/taus[l+1]
		c += min(thinEventCost*e.MeanRate(td, taus[l], taus[l+1]), 2*float64(N)) + float64(len(e.Point()))
	}
	return c
}

package exchange

import (
	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/exchange/jumps"
)

// Jumps is the independence proposal between known modes of a
// Metropolis-adjusted level (Level.Jumps), drawn in place of the level's
// MALA step with probability Rate: jumps.Proposal, which says how it
// keeps the law.
type Jumps = jumps.Proposal

// NewJumps is jumps.New: the proposal from the modes' centres, their
// Hessians (of U, positive definite) and log weights, at rate jumps a step.
func NewJumps(rate float64, means [][]float64, hess []mat.Symmetric, logW []float64) (*Jumps, error) {
	return jumps.New(rate, means, hess, logW)
}

package exchange

import "github.com/fresgld/fresgld/exchange/barrier"

// Barrier is the cumulative communication barrier Λ(τ) of a ladder,
// estimated from its adjacent pairs' rejection rates: barrier.Barrier,
// which says how, and how Adapt's schedule splits it.
type Barrier = barrier.Barrier

// NewBarrier is barrier.New: Λ from the temperatures (cold to hot, strictly
// increasing) and the rejection rate of each adjacent pair.
func NewBarrier(taus, rejection []float64) (*Barrier, error) { return barrier.New(taus, rejection) }

package exchange

import (
	"fmt"
	"math"
	"testing"

	"github.com/fresgld/fresgld/energy"
)

// batchOnly answers batches and nothing else: its per-example Term is NaN,
// so a swap that reached for it would fail or go astray.
type batchOnly struct{ *energy.PerTerm }

func (batchOnly) Term(grad, _ []float64, _ int) float64 {
	for j := range grad {
		grad[j] = math.NaN()
	}
	return math.NaN()
}

// The swap energies that a batch can answer (minibatch, pair and exact)
// ask a BatchTerms for batches alone, decide every attempt as they decide
// it from the per-example terms, and allocate nothing doing so.
func TestSwapEnergiesTakeBatches(t *testing.T) {
	for _, mode := range []EnergyMode{MinibatchEnergies, PairEnergies, ExactEnergies} {
		var stats [2]string
		for k, terms := range []energy.Terms{outliers, batchOnly{energy.NewPerTerm(outliers)}} {
			s := swapEverySampler(t, terms, mode)
			// Close enough states that screens both pass and fail.
			x, y := []float64{0.3}, []float64{0}
			for range 200 {
				if _, err := s.decide(0, x, y); err != nil {
					t.Fatalf("%v: %v", mode, err)
				}
			}
			p := s.Stats().Pairs[0]
			stats[k] = fmt.Sprintf("%d attempts, %d accepted, %d confirmed, acceptance sum %.12g", p.Attempts, p.Accepts, p.Confirmed, p.ProbSum)
			if a := testing.AllocsPerRun(50, func() { s.decide(0, x, y) }); a != 0 {
				t.Errorf("%v: %v allocations per attempt", mode, a)
			}
		}
		if stats[0] != stats[1] {
			t.Errorf("%v: per example %s; by batch %s", mode, stats[0], stats[1])
		}
	}
}

package exchange

import (
	"fmt"
	"math"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
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
			est, _ := energy.NewMinibatch(terms, 3)
			cfg := Config{Levels: []Level{
				{Tau: 1, Est: est, Eta: langevin.Constant{Step: 0.01}},
				{Tau: 4, Est: est.Clone(), Eta: langevin.Constant{Step: 0.01}},
			}, Swap: Swap{Rule: FReSGLD, PerStep: true}, Seed: 1, Energies: Energies{Mode: mode, Terms: terms, ExactEvery: 1}}
			s := mustNew(t, cfg, [][]float64{{0}, {1}})
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

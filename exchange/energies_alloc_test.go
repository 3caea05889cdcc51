package exchange

import (
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// swapEverySampler is f-reSGLD on terms at τ = 1 and 4, size-3
// minibatches, attempting a swap every step (ExactEvery 1 for the exact
// mode too) with its energies under mode, started at 0 and 1.
func swapEverySampler(t *testing.T, terms energy.Terms, mode EnergyMode) *Sampler {
	t.Helper()
	est, _ := energy.NewMinibatch(terms, 3)
	cfg := Config{Levels: []Level{
		{Tau: 1, Est: est, Eta: langevin.Constant{Step: 0.01}},
		{Tau: 4, Est: est.Clone(), Eta: langevin.Constant{Step: 0.01}},
	}, Swap: Swap{Rule: FReSGLD, PerStep: true}, Seed: 1, Energies: Energies{Mode: mode, Terms: terms, ExactEvery: 1}}
	return mustNew(t, cfg, [][]float64{{0}, {1}})
}

// The swap-energy machinery allocates nothing per swap attempt once warm,
// screen and confirmation included: the index drawer and anchors are made
// up front.
func TestSwapEnergiesAllocateNothing(t *testing.T) {
	for _, mode := range []EnergyMode{MinibatchEnergies, CVEnergies, PairEnergies, PairCVEnergies, ExactEnergies, TaylorEnergies, PairTaylorEnergies} {
		s := swapEverySampler(t, outliers, mode)
		// x's energy is far above y's: every screen passes and goes to
		// the full data.
		x, y := []float64{40}, []float64{0}
		for range 100 {
			s.decide(0, x, y)
		}
		if a := testing.AllocsPerRun(200, func() { s.decide(0, x, y) }); a != 0 {
			t.Errorf("%v: %v allocations per swap attempt", mode, a)
		}
		if p := s.Stats().Pairs[0]; mode != ExactEnergies && p.Confirmed == 0 {
			t.Errorf("%v: no attempt was confirmed: the confirmation's allocations were not measured", mode)
		}
	}
}

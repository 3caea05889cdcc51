package exchange_test

import (
	"fmt"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
)

// Four independent two-level ladders on the paper's mixture, run in
// parallel, each reducing its cold draws to the weight of the right-hand
// mode as it goes, without storing them. Chain c draws from streams seeded
// by ChainSeed(1, c): the same draws whether it runs alone or with others.
func ExampleRunChains() {
	mix := models.PaperMixture()
	plan := exchange.Plan{Burn: 2000, Keep: 20000, Thin: 2}
	const chains = 4
	smps := make([]*exchange.Sampler, chains)
	sinks := make([]exchange.Sink, chains)
	right := make([]int, chains)
	for c := range smps {
		cfg, err := exchange.FReSGLDMethod.Config(exchange.Setup{
			Tau1: 1, Tau2: 10, Eta: langevin.Constant{Step: 0.03},
			Cold: energy.NewNoisy(mix, 1, 2), Hot: energy.NewNoisy(mix, 3, 5),
			PerStep: true, Seed: exchange.ChainSeed(1, c+1),
		})
		if err != nil {
			panic(err)
		}
		if smps[c], err = exchange.New(cfg, [][]float64{{0}, {0}}); err != nil {
			panic(err)
		}
		sinks[c] = exchange.SinkFunc(func(step int, s *exchange.Sampler) error {
			if _, ok := plan.Retained(step); ok && s.State(0)[0] > 0 {
				right[c]++
			}
			return nil
		})
	}
	for c, r := range exchange.RunChains(smps, plan, sinks, 0) {
		if r.Err != nil {
			panic(r.Err)
		}
		fmt.Printf("chain %d: right-hand mode weight %.2f (exact 0.60)\n", c+1, float64(right[c])/float64(plan.Keep))
	}
	// Each chain alone is a noisy estimate; their spread is what R̂ and the
	// MCSE (package diag) measure.

	// Output:
	// chain 1: right-hand mode weight 0.67 (exact 0.60)
	// chain 2: right-hand mode weight 0.62 (exact 0.60)
	// chain 3: right-hand mode weight 0.60 (exact 0.60)
	// chain 4: right-hand mode weight 0.59 (exact 0.60)
}

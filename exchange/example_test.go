package exchange_test

import (
	"fmt"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
)

// Two chains on the paper's mixture: the cold one on an accurate estimator,
// the hot one on a four-times noisier gradient that f-reSGLD counts as part
// of its temperature.
func Example() {
	mix := models.PaperMixture()
	setup := exchange.Setup{
		Tau1: 1, Tau2: 10, Eta: langevin.Constant{Step: 0.03},
		Cold:    energy.NewNoisy(mix, 1, 2), // Û ~ N(U, 1), ∇Û ~ N(∇U, 2²)
		Hot:     energy.NewNoisy(mix, 3, 5), // Û ~ N(U, 3²), ∇Û ~ N(∇U, 5²)
		PerStep: true,                       // attempt a swap every step
		Seed:    1,
	}
	cfg, err := exchange.FReSGLDMethod.Config(setup)
	if err != nil {
		panic(err)
	}
	s, err := exchange.New(cfg, [][]float64{{0}, {0}})
	if err != nil {
		panic(err)
	}
	tr, err := exchange.Collect(s, exchange.Plan{Burn: 5000, Keep: 20000, Thin: 5})
	if err != nil {
		panic(err)
	}
	right := 0
	for _, x := range tr.Coord(0) {
		if x > 0 {
			right++
		}
	}
	fmt.Printf("weight of the right-hand mode: %.2f (exact 0.60)\n", float64(right)/float64(tr.Len()))
	// Output: weight of the right-hand mode: 0.60 (exact 0.60)
}

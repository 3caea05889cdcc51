package variance_test

import (
	"fmt"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/variance"
)

// An f-reSGLD ladder on logistic regression: the cold chain on a fixed
// minibatch of 1000, the hot chain on whatever small minibatch puts its
// gradient noise at 90% of its noise budget. Swaps draw their energies on a
// common minibatch of the data and confirm on the full data (PairEnergies).
func ExampleNewAutoBatch() {
	data, _, err := models.SyntheticLogistic(100_000, 10, 1, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	eta := langevin.Constant{Step: 1e-6}
	cold, _ := energy.NewMinibatch(data, 1000)
	hot, _ := energy.NewMinibatch(data, 100) // the pilot's size
	const tau1, tau2 = 1, 10
	auto, err := variance.NewAutoBatch(hot, tau2, eta, variance.AutoOptions{Share: 0.9, Every: 100})
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, _ := exchange.FReSGLDMethod.Config(exchange.Setup{
		Tau1: tau1, Tau2: tau2, Eta: eta, Cold: cold, Hot: hot,
		HotVar: func() variance.Model { return auto },
		A:      1, Seed: 1,
		Energies: exchange.Energies{Mode: exchange.PairEnergies, Terms: data},
	})
	s, err := exchange.New(cfg, [][]float64{make([]float64, 10), make([]float64, 10)})
	if err != nil {
		fmt.Println(err)
		return
	}
	for k := 0; k < 1000; k++ {
		if err := s.Step(); err != nil {
			fmt.Println(err)
			return
		}
	}
	st := auto.Stats()
	fmt.Printf("hot chain n from %d to %d over %d checks\n", st.Lo, st.Hi, st.Checks)
	if w := auto.Warning(); w != "" {
		fmt.Println(w)
	}
	// Output: hot chain n from 101 to 187 over 10 checks
}

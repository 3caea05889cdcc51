package exchange

import (
	"strings"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// TestEnergiesPeriods checks the bounds on the anchor and exact
// periods: a negative one is refused with an error naming
// it, and 1, the smallest allowed, is accepted for each.
func TestEnergiesPeriods(t *testing.T) {
	est, _ := energy.NewMinibatch(outliers, 3)
	cfg := func(e Energies) Config {
		return Config{Levels: []Level{{Tau: 1, Est: est.Clone(), Eta: langevin.Constant{Step: 0.01}}, {Tau: 2, Est: est.Clone(), Eta: langevin.Constant{Step: 0.01}}},
			Swap: Swap{Rule: FReSGLD, PerStep: true}, Energies: e}
	}
	for _, c := range []struct {
		e    Energies
		want string
	}{
		{Energies{Mode: CVEnergies, Terms: outliers, AnchorEvery: -1}, "anchor period"},
		{Energies{Mode: CVEnergies, Terms: outliers, ExactEvery: -1}, "exact swap period"},
	} {
		if _, err := New(cfg(c.e), [][]float64{{0}, {0}}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one naming %q", c.e, err, c.want)
		}
	}
	ones := Energies{Mode: CVEnergies, Terms: outliers, AnchorEvery: 1, ExactEvery: 1}
	if _, err := New(cfg(ones), [][]float64{{0}, {0}}); err != nil {
		t.Errorf("periods of 1: %v", err)
	}
}

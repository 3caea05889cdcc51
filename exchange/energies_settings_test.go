package exchange

import (
	"strings"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// The draw mode's penalty rule keeps the laws only for Gaussian energy
// noise: New refuses it on minibatch estimators unless the noise is
// declared Gaussian, and accepts it on estimators of Gaussian noise
// (energy.Noisy), on exact minibatches (n = N) and on one level.
func TestDrawModeRefusesMinibatches(t *testing.T) {
	mb, _ := energy.NewMinibatch(outliers, 3)
	full, _ := energy.NewMinibatch(outliers, outliers.Len())
	noisy := energy.NewNoisy(energy.NewIsoQuadratic(1, 1), 1, 1)
	eta := langevin.Constant{Step: 0.01}
	for _, c := range []struct {
		name     string
		ests     []energy.Estimator
		gaussian bool
		ok       bool
	}{
		{"minibatches", []energy.Estimator{mb, mb.Clone()}, false, false},
		{"minibatches declared Gaussian", []energy.Estimator{mb, mb.Clone()}, true, true},
		{"minibatch above Gaussian noise", []energy.Estimator{noisy, mb}, false, false},
		{"Gaussian noise", []energy.Estimator{noisy, noisy}, false, true},
		{"full batches", []energy.Estimator{full, full.Clone()}, false, true},
		{"one level", []energy.Estimator{mb}, false, true},
	} {
		var lv []Level
		var init [][]float64
		for l, e := range c.ests {
			lv = append(lv, Level{Tau: float64(1 + 3*l), Est: e, Eta: eta})
			init = append(init, []float64{0})
		}
		_, err := New(Config{Levels: lv, Swap: Swap{Rule: FReSGLD, PerStep: true}, Energies: Energies{Gaussian: c.gaussian}}, init)
		if (err == nil) != c.ok {
			t.Errorf("%s: error %v, want one: %v", c.name, err, !c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "Energies.Gaussian") {
			t.Errorf("%s: the error %q does not name Energies.Gaussian", c.name, err)
		}
	}
}

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

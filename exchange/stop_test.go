package exchange_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
)

func stopSetup() exchange.Setup {
	mix := models.PaperMixture()
	return exchange.Setup{
		Tau1: 1, Tau2: 10, Eta: langevin.Constant{Step: 0.03},
		Cold: energy.NewNoisy(mix, 1, 2), Hot: energy.NewNoisy(mix, 3, 5),
		PerStep: true, Seed: 1,
	}
}

// Closing Plan.Stop ends a run before its next step: a run stopped before
// it began takes no step (a chain still waiting for a core), one stopped
// from its sink at step 7 ends after exactly 7, and RunChains reports
// ErrStopped for every chain.
func TestPlanStop(t *testing.T) {
	cfg, err := exchange.FReSGLDMethod.Config(stopSetup())
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	close(closed)
	s, _ := exchange.New(cfg, [][]float64{{0}, {0}})
	if err := exchange.Run(s, exchange.Plan{Keep: 100, Thin: 1, Stop: closed}, nil); !errors.Is(err, exchange.ErrStopped) || s.Steps() != 0 {
		t.Errorf("stopped before it began: error %v after %d steps", err, s.Steps())
	}
	stop := make(chan struct{})
	s, _ = exchange.New(cfg, [][]float64{{0}, {0}})
	sink := exchange.SinkFunc(func(step int, _ *exchange.Sampler) error {
		if step == 7 {
			close(stop)
		}
		return nil
	})
	if err := exchange.Run(s, exchange.Plan{Keep: 100, Thin: 1, Stop: stop}, sink); !errors.Is(err, exchange.ErrStopped) || s.Steps() != 7 {
		t.Errorf("stopped at step 7: error %v after %d steps", err, s.Steps())
	}
	a, _ := exchange.New(cfg, [][]float64{{0}, {0}})
	b, _ := exchange.New(cfg, [][]float64{{0}, {0}})
	for i, r := range exchange.RunChains([]*exchange.Sampler{a, b}, exchange.Plan{Keep: 100, Thin: 1, Stop: closed}, nil, 1) {
		if !errors.Is(r.Err, exchange.ErrStopped) || r.Stats.Steps != 0 {
			t.Errorf("chain %d: error %v after %d steps", i, r.Err, r.Stats.Steps)
		}
	}
}

// Closing AdaptOptions.Stop ends the tuning with ErrStopped; rounds whose
// step count would wrap are refused before any step.
func TestAdaptStop(t *testing.T) {
	st := stopSetup()
	build := exchange.FReSGLDMethod.Build(st)
	closed := make(chan struct{})
	close(closed)
	init := [][]float64{{0}, {0}, {0}}
	if _, err := exchange.Adapt(build, []float64{1, 3, 10}, init, exchange.AdaptOptions{Rounds: 30, First: 1000, Stop: closed}); !errors.Is(err, exchange.ErrStopped) {
		t.Errorf("tuning with a closed Stop: error %v", err)
	}
	if _, err := exchange.Adapt(build, []float64{1, 3, 10}, init, exchange.AdaptOptions{Rounds: 60, First: 500}); err == nil || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("60 rounds from 500 steps (500·2⁵⁹ steps in the last): error %v, want the overflow named", err)
	}
}

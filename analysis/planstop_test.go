package analysis

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fresgld/fresgld/internal/testenergy"
	"github.com/fresgld/fresgld/modes"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/results"
)

// slowWell is a double well whose every U and ∇U takes 5 ms: a plan of
// hundreds of evaluations, as a model in another process makes.
type slowWell struct{ testenergy.DoubleWell }

func (s slowWell) U(x []float64) float64 { time.Sleep(5 * time.Millisecond); return s.DoubleWell.U(x) }
func (s slowWell) Grad(g, x []float64) {
	time.Sleep(5 * time.Millisecond)
	s.DoubleWell.Grad(g, x)
}

// The plan stops within a few evaluations of its context's cancelling,
// at whichever stage it is (the mode search, the step's tuning, the
// pilot), with ErrInterrupted naming the stage; without the stop it runs
// its hundreds of slow evaluations to the end.
func TestPlanStops(t *testing.T) {
	for _, after := range []time.Duration{300 * time.Millisecond, 3 * time.Second} {
		ctx, cancel := context.WithCancel(context.Background())
		o := DefaultOptions()
		time.AfterFunc(after, cancel)
		start := time.Now()
		_, err := planDefaults(ctx, plan.Model{Terms: modes.EnergyTerms(slowWell{testenergy.DoubleWell{H: 4}})}, &o, &Result{})
		late := time.Since(start) - after
		t.Logf("cancelled after %v: stopped %v later: %v", after, late.Round(time.Millisecond), err)
		if !errors.Is(err, results.ErrInterrupted) || !strings.Contains(err.Error(), "while planning the run (") {
			t.Errorf("cancelled after %v: %v, want ErrInterrupted while planning", after, err)
		}
		if late > time.Second {
			t.Errorf("cancelled after %v: stopped %v later", after, late)
		}
	}
}

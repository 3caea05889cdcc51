package plan

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/modes"
	"github.com/fresgld/fresgld/results"
)

// cauchyStop is a 2-d product of standard Cauchy densities, whose Laplace
// fit is poor (the plan chooses NUTS over MALA), that cancels the run when
// the plan's status says the chains' NUTS warmups are under way.
type cauchyStop struct {
	st     *Status
	cancel func()
}

func (c cauchyStop) check() {
	if strings.HasPrefix(c.st.Now(), "warming up") {
		c.cancel()
	}
}

func (cauchyStop) Dim() int { return 2 }

func (c cauchyStop) U(x []float64) float64 {
	c.check()
	u := 0.0
	for _, v := range x {
		u += math.Log1p(v * v)
	}
	return u
}

func (c cauchyStop) Grad(g, x []float64) {
	c.check()
	for i, v := range x {
		g[i] = 2 * v / (1 + v*v)
	}
}

// A stop during the chains' NUTS warmups ends the plan with ErrInterrupted,
// naming the stage. It fails where the interrupted warmups count as NUTS
// failing and the plan falls back to MALA at the mode (the run went on,
// on its stopped context: "chain 1 of 4 stopped after 0 steps (its draws
// are kept): burn-in = -9223372036854775808: must be ≥ 0", four empty
// chain files and a summary).
func TestPlanStopsInNUTSWarmups(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := NewStatus(ctx, 0)
	m := Model{Terms: modes.EnergyTerms(cauchyStop{st, cancel})}
	cp, note, err := PlanFor(m, 1, false, []int{1, 2, 3, 4}, st)
	if ctx.Err() == nil {
		t.Fatalf("the plan never warmed up NUTS chains (%T, %q): the test needs one that does", cp, note)
	}
	if !errors.Is(err, results.ErrInterrupted) || !strings.Contains(err.Error(), "warming up") {
		t.Errorf("stopped in the NUTS warmups: plan %T, note %q, error %v; want ErrInterrupted while warming up", cp, note, err)
	}
}

// ridgeStop is cauchyStop's hook on U = x₀²/2 in two dimensions: x₁ is
// flat, so the mode search finds no mode and the plan warms NUTS up.
type ridgeStop struct{ cauchyStop }

func (r ridgeStop) U(x []float64) float64 {
	r.check()
	return x[0] * x[0] / 2
}

func (r ridgeStop) Grad(g, x []float64) {
	r.check()
	g[0], g[1] = x[0], 0
}

// Where the search found no mode, a stop during NUTS's warmups is said as
// the stop, not as the search's failure with the stop after it ("…no mode
// …; and NUTS: interrupted…").
func TestPlanStopsInNUTSWarmupsAfterNoMode(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := NewStatus(ctx, 0)
	_, _, err := PlanFor(Model{Terms: modes.EnergyTerms(ridgeStop{cauchyStop{st, cancel}})}, 1, false, []int{1, 2}, st)
	if ctx.Err() == nil {
		t.Fatalf("the plan never warmed up NUTS chains (%v): the test needs one that does", err)
	}
	if !errors.Is(err, results.ErrInterrupted) || strings.Contains(err.Error(), "and NUTS") {
		t.Errorf("stopped in NUTS's warmups after no mode: %v; want the stop alone", err)
	}
}

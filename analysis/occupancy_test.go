package analysis

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/modes"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/results"
)

// --levels 1 under the plan runs its sampler on one level across a barrier
// that would otherwise get a ladder (two modes 8 sds from the middle, a
// barrier of about 32 nats, which a MALA step at τ = 1 crosses about
// never); its jumps between the modes found (plan.JumpRate) cross it, so
// the chains share the modes as the target does (half each, within 4
// MCSE of the pooled share, from the chains' ESS) and the run does not
// warn that they did not cross. Without the jumps every chain stays where
// it started (the first at the heavier-listed mode, the second at the
// other: a share of exactly one half, but with R̂ of 0/0 and the warning).
// Other methods refuse one level.
func TestForcedOneLevelCrossesByJumps(t *testing.T) {
	mix, err := models.NewMixture([]float64{0.5, 0.5}, []float64{-8, 8}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Levels, o.Keep, o.Out = 1, 400, t.TempDir()
	res, err := Run(context.Background(), plan.Model{Terms: modes.EnergyTerms(mix), Names: []string{"x"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Plan == nil || res.Plan.Levels != 1 || res.Plan.Modes != 2 {
		t.Fatalf("plan %+v", res.Plan)
	}
	var right [][]float64
	for _, c := range res.Chains {
		var r []float64
		for _, x := range c.Cols[slices.Index(c.Columns, "x")] {
			r = append(r, b2f(x > 0))
		}
		right = append(right, r)
	}
	share, se := stat.Mean(slices.Concat(right...), nil), diag.MCSEMean(right)
	t.Logf("the right mode's share %.3f ± %.3f", share, se)
	if !(math.Abs(share-0.5) <= 4*se) {
		t.Errorf("one level with jumps: the right mode's share %.3f ± %.3f, want 0.5", share, se)
	}
	if slices.ContainsFunc(res.Warnings, func(w results.Warning) bool { return w.Code == "modes-not-crossed" }) {
		t.Errorf("one level with jumps warned that its chains did not cross: %+v", res.Warnings)
	}
	// The summary counts the jumps, a binomial share plan.JumpRate of the
	// steps (within 4 sds).
	lv := res.Summary.Clamped[0]
	if lv.Jumps == nil || lv.JumpRate == nil {
		t.Fatalf("the summary counts no jumps: %+v", lv)
	}
	if n, mean, sd := float64(*lv.Jumps), plan.JumpRate*float64(lv.Steps), math.Sqrt(plan.JumpRate*(1-plan.JumpRate)*float64(lv.Steps)); !(math.Abs(n-mean) <= 4*sd) {
		t.Errorf("%v jumps in %d steps: want %.0f ± %.0f", n, lv.Steps, mean, 4*sd)
	}
	s, err := modes.SearchModes(modes.EnergyTerms(mix), []float64{0}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if taus := plan.LadderTaus(s.BarrierAbove(modes.ModeWeight), 1); len(taus) < 2 {
		t.Errorf("the plan's own choice at barrier %.3g: %v, want a ladder", s.BarrierAbove(modes.ModeWeight), taus)
	}
	o.Method = exchange.FReSGLDMethod
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "--levels = 1") {
		t.Errorf("fresgld on one level: %v", err)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

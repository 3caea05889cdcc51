package analysis

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/results"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/models"
)

// Chains that each stay at the mode they started in are warned about, with
// the stuck chain's share and the pooled one; chains that each visit both
// modes at random (independent draws, shares within a few binomial
// standard errors of each other) are not.
func TestOccupancyWarnings(t *testing.T) {
	h := mat.NewSymDense(1, []float64{1})
	s := &ModeSearch{Modes: []Mode{{Theta: []float64{0}, H: h, Weight: 0.5}, {Theta: []float64{10}, H: h, Weight: 0.5}}}
	rng := rand.New(rand.NewPCG(1, 2))
	chain := func(pick func() float64) *results.Chain {
		c := &results.Chain{Columns: []string{"x"}, Cols: [][]float64{nil}}
		for range 1000 {
			c.Cols[0] = append(c.Cols[0], pick()+rng.NormFloat64())
		}
		return c
	}
	either := func() float64 { return 10 * float64(rng.IntN(2)) }
	stuck := []*results.Chain{chain(func() float64 { return 0 }), chain(either), chain(func() float64 { return 10 }), chain(either)}
	o := s.occupancy(stuck, []string{"x"})
	ws := o.Warnings(s, []int{1, 2, 3, 4})
	if len(ws) != 1 || ws[0].Code != "modes-not-crossed" || !strings.Contains(ws[0].Message, "chain 1 spent 100%") && !strings.Contains(ws[0].Message, "chain 3 spent 100%") {
		t.Errorf("stuck chains: %+v (shares %v, pooled %v)", ws, o.Chain, o.Pooled)
	}
	// Each chain wholly at one mode: the indicator's R̂ is 0/0.
	apart := []*results.Chain{chain(func() float64 { return 0 }), chain(func() float64 { return 10 }), chain(func() float64 { return 0 }), chain(func() float64 { return 10 })}
	o = s.occupancy(apart, []string{"x"})
	if ws := o.Warnings(s, []int{1, 2, 3, 4}); len(ws) != 1 || !strings.Contains(ws[0].Message, "no chain moved") {
		t.Errorf("chains wholly apart: %+v (shares %v, R̂ %v)", ws, o.Chain, o.Rhat)
	}
	mixed := []*results.Chain{chain(either), chain(either), chain(either), chain(either)}
	o = s.occupancy(mixed, []string{"x"})
	if ws := o.Warnings(s, []int{1, 2, 3, 4}); len(ws) != 0 {
		t.Errorf("mixing chains: %+v (R̂ %v)", ws, o.Rhat)
	}
}

// --levels 1 under the plan runs its sampler on one level across a barrier
// that would otherwise get a ladder (two modes 8 sds from the middle, a
// barrier of about 32 nats, which a MALA step at τ = 1 crosses about
// never); its jumps between the modes found (planJumpRate) cross it, so
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
	res, err := Run(context.Background(), Model{Terms: EnergyTerms(mix), Names: []string{"x"}}, o)
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
	// The summary counts the jumps, a binomial share planJumpRate of the
	// steps (within 4 sds).
	lv := res.Summary.Clamped[0]
	if lv.Jumps == nil || lv.JumpRate == nil {
		t.Fatalf("the summary counts no jumps: %+v", lv)
	}
	if n, mean, sd := float64(*lv.Jumps), planJumpRate*float64(lv.Steps), math.Sqrt(planJumpRate*(1-planJumpRate)*float64(lv.Steps)); !(math.Abs(n-mean) <= 4*sd) {
		t.Errorf("%v jumps in %d steps: want %.0f ± %.0f", n, lv.Steps, mean, 4*sd)
	}
	s, err := SearchModes(EnergyTerms(mix), []float64{0}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if taus := ladderTaus(s.barrierAbove(planModeWeight), 1); len(taus) < 2 {
		t.Errorf("the plan's own choice at barrier %.3g: %v, want a ladder", s.barrierAbove(planModeWeight), taus)
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

// The warning names the parameters in which the mode the chains disagree
// on differs most from the heaviest other mode, in that mode's conditional
// sds: here b (4 apart at sd 0.5, 8 sds) before c (6 apart at sd 1, 6
// sds), and not a (10 apart at sd 10, 1 sd), which the raw distance would
// name first. Against mode 1 itself, the heaviest other is mode 2, which
// differs in c alone.
func TestOccupancyNamesWhatDiffers(t *testing.T) {
	h := mat.NewSymDense(3, []float64{0.01, 0, 0, 0, 4, 0, 0, 0, 1})
	s := &ModeSearch{Modes: []Mode{
		{Theta: []float64{0, 0, 0}, H: h, Weight: 0.6},
		{Theta: []float64{0, 0, 3}, H: h, Weight: 0.3},
		{Theta: []float64{10, 4, 6}, H: h, Weight: 0.1},
	}}
	o := &Occupancy{names: []string{"a", "b", "c"}}
	if got, want := o.differ(s, 2), "mode 3 differs most from mode 1 in b (4 against 0, 8 sds apart) and c (6 against 0, 6 sds apart)"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got, want := o.differ(s, 0), "mode 1 differs most from mode 2 in c (0 against 3, 3 sds apart)"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// A chain an interrupt stopped before its first draw has no shares: it is
// left out, and the warning about the others names their chains and a
// pooled share that is a number (it said "the chains together NaN%").
func TestOccupancyLeavesOutEmptyChains(t *testing.T) {
	h := mat.NewSymDense(1, []float64{1})
	s := &ModeSearch{Modes: []Mode{{Theta: []float64{0}, H: h, Weight: 0.5}, {Theta: []float64{10}, H: h, Weight: 0.5}}}
	rng := rand.New(rand.NewPCG(3, 4))
	at := func(mu float64, n int) *results.Chain {
		c := &results.Chain{Columns: []string{"x"}, Cols: [][]float64{nil}}
		for range n {
			c.Cols[0] = append(c.Cols[0], mu+rng.NormFloat64())
		}
		return c
	}
	o := s.occupancy([]*results.Chain{at(0, 0), at(0, 500), at(10, 500), at(0, 0)}, []string{"x"})
	ws := o.Warnings(s, []int{1, 2, 3, 4})
	if len(ws) != 1 || strings.Contains(ws[0].Message, "NaN") || !strings.Contains(ws[0].Message, "together 50%") || !(strings.Contains(ws[0].Message, "chain 2 ") || strings.Contains(ws[0].Message, "chain 3 ")) {
		t.Errorf("%+v (shares %v, pooled %v)", ws, o.Chain, o.Pooled)
	}
}

// Chains of unequal lengths (an interrupted run's) that share the modes
// alike raise no warning: R̂ reads the first draws of each, as many as the
// shortest holds. It read all of them, was NaN, and warned that "no chain
// moved" of chains whose shares were 46% and 47%.
func TestOccupancyUnequalChains(t *testing.T) {
	h := mat.NewSymDense(1, []float64{1})
	s := &ModeSearch{Modes: []Mode{{Theta: []float64{0}, H: h, Weight: 0.5}, {Theta: []float64{10}, H: h, Weight: 0.5}}}
	rng := rand.New(rand.NewPCG(7, 8))
	either := func(n int) *results.Chain {
		c := &results.Chain{Columns: []string{"x"}, Cols: [][]float64{nil}}
		for range n {
			c.Cols[0] = append(c.Cols[0], 10*float64(rng.IntN(2))+rng.NormFloat64())
		}
		return c
	}
	o := s.occupancy([]*results.Chain{either(1000), either(1000), either(666), either(589)}, []string{"x"})
	if ws := o.Warnings(s, []int{1, 2, 3, 4}); len(ws) != 0 {
		t.Errorf("%+v (R̂ %v)", ws, o.Rhat)
	}
}

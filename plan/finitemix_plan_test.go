package plan

import (
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fresgld/fresgld/finitemix"
)

// The mixture's default plan is its own kernel with no mode search: the
// plan is a MixturePlan with K pair moves a sweep, a finite τ_int and a
// pilot of 2,500 sweeps a chain on small data; its chains start
// over-dispersed (chain 2 with every value in one component: one
// component's weight ≈ 1) and move at every step. Without ownPlan the
// plan would be a ModePlan. On large data the pilot's work is bounded
// (mixPilotWork: at 10⁶ values mixPilotMin sweeps a chain, so that the
// first draw comes in seconds), and without the bound its sweeps would
// not fall with N.
func TestMixturePlanIsTheKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n, want := range map[int]int{1000: PilotSteps, 20_000: 250, 1_000_000: mixPilotMin} {
		if got := mixPilotSweeps(n); got != want {
			t.Errorf("%d values: a pilot of %d sweeps a chain, want %d", n, got, want)
		}
	}
	for _, c := range []struct{ n, sweeps int }{{200, PilotSteps}} {
		y := make([]float64, c.n)
		for i := range y {
			y[i] = rng.NormFloat64() + 20*float64(i%2)
		}
		m, err := finitemix.NewFiniteMixture(y, 3, 1)
		if err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		plan, _, err := NewChainPlan(MixtureModel(m), 1, false)
		elapsed := time.Since(began)
		if err != nil {
			t.Fatal(err)
		}
		mp, ok := plan.(*MixturePlan)
		if !ok {
			t.Fatalf("n = %d: the plan is a %T, not the mixture's kernel", c.n, plan)
		}
		// The pilot's sweeps, timed, are the plan's cost estimate of the
		// run: positive, and no more than the plan's own wall time for
		// the pilot's sweeps run as many at once as there are cores.
		pilot := float64(PilotChains*mp.PilotSweeps) * mp.StepSeconds() / float64(min(PilotChains, runtime.GOMAXPROCS(0)))
		if !(mp.StepSeconds() > 0 && pilot <= elapsed.Seconds()) {
			t.Errorf("n = %d: %.3g s a sweep, %.3g s for the pilot's sweeps against %.3g s of planning", c.n, mp.StepSeconds(), pilot, elapsed.Seconds())
		}
		if pc := Cost(mp, elapsed, 4, 100, 1000, 1); pc == nil || !(pc.RunSeconds > 0) || !strings.Contains(planParts(mp), "sweeps") {
			t.Errorf("n = %d: the plan's cost against the run's: %+v, %q", c.n, pc, planParts(mp))
		}
		if mp.Moves != 3 || mp.PilotSweeps != c.sweeps || !(mp.IAT >= 1 && mp.IAT < planMaxIAT) {
			t.Errorf("n = %d: %d moves, %d pilot sweeps (want %d), τ_int %v", c.n, int(mp.Moves), mp.PilotSweeps, c.sweeps, mp.IAT)
		}
		if burn, thin, _ := mp.RunLength(1000); burn < mixBurnMin || thin < 1 {
			t.Errorf("n = %d: burn %d, thin %d", c.n, burn, thin)
		}
		s, err := mp.Sampler(1, 2) // chain 2 starts with every value in one component
		if err != nil {
			t.Fatal(err)
		}
		p := m.NewParams()
		m.Unpack(p, s.State(0))
		if math.Abs(p.W[0]+p.W[1]+p.W[2]-1) > 1e-12 || math.Max(p.W[0], math.Max(p.W[1], p.W[2])) < 0.99 {
			t.Errorf("n = %d: chain 2's start has weights %.3g, not one component holding every value", c.n, p.W)
		}
		before := append([]float64(nil), s.State(0)...)
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		if same(before, s.State(0)) {
			t.Errorf("n = %d: a sweep did not move", c.n)
		}
	}
}

func same(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

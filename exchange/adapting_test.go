package exchange

import (
	"slices"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// TestAnchorsStopAtEveryBurnIn checks when the anchored swap energies stop
// refreshing (adapting, refreshDue) at the edges of the burn-in: a run
// with no burn-in (Plan.Burn 0) keeps the anchors it was built with at
// every step, a run with burn-in 1 refreshes them once, at its only step,
// one with burn-in 6 (refreshes every 7 steps) at step 6 and not at 7,
// and one with burn-in 8 at steps 7 and 8 and never after. Each anchor is compared with its value after every step of a
// 60-step run.
//
// It would catch adapting taken as burn ≤ 0 → "always" (the anchors
// refreshed through a run without burn-in: TestRunFreezesAtBurnIn and
// TestNoAdaptationAfterBurnIn both run with a burn-in, and passed it), the
// last refresh at k + 1 == burn dropped or moved by one, and adapting's
// k + 1 ≤ burn taken as k ≤ burn or k + 1 < burn.
func TestAnchorsStopAtEveryBurnIn(t *testing.T) {
	for _, c := range []struct {
		burn int
		want []int // the steps after which the anchors are refreshed
	}{
		{0, nil},
		{1, []int{1}},
		{6, []int{6}},
		{8, []int{7, 8}},
	} {
		cold, _ := energy.NewMinibatch(curvedOutliers, 6)
		hot, _ := energy.NewMinibatch(curvedOutliers, 4)
		cfg := Config{Levels: []Level{
			{Tau: 1, Est: cold, Eta: langevin.Constant{Step: 0.01}},
			{Tau: 4, Est: hot, Eta: langevin.Constant{Step: 0.01}},
		}, Swap: Swap{Rule: FReSGLD, PerStep: true}, Seed: 5, Energies: Energies{Mode: TaylorEnergies, Terms: curvedOutliers, AnchorEvery: 7}}
		s := mustNew(t, cfg, [][]float64{{0}, {1}})
		// Anchors belong to replicas and travel with them through swaps.
		last := make([][]float64, len(s.data.anchors))
		for r, a := range s.data.anchors {
			last[r] = slices.Clone(a.Theta())
		}
		var got []int
		sink := SinkFunc(func(step int, s *Sampler) error {
			moved := false
			for r, a := range s.data.anchors {
				if !slices.Equal(a.Theta(), last[r]) {
					moved = true
					last[r] = slices.Clone(a.Theta())
				}
			}
			if moved {
				got = append(got, step)
			}
			return nil
		})
		if err := Run(s, Plan{Burn: c.burn, Keep: 60 - c.burn, Thin: 1}, sink); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("burn-in %d: anchors refreshed after steps %v, want %v", c.burn, got, c.want)
		}
	}
}

package exchange

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/variance"
)

// TestNoAdaptationAfterBurnIn runs a ladder whose every level adapts in its
// own way — a kernel-ridge model that has not yet recorded its points (the
// leader) and its follower, a running average, an automatic minibatch — with
// anchored swap energies, and checks that nothing they answer changes after
// burn-in: ŝ² and σ² at fixed probe states, the minibatch and energy sizes,
// the anchors, and the counts of updates, which must stop at burn-in exactly
// (each model observes every step, so its count at burn-in is the number
// of adapting steps).
//
// It catches: KRR without Freeze (the leader goes on recording and fits
// after burn-in, which the old KRR always did), Running or AutoBatch that
// ignores its freeze, a sampler that never calls freeze, and freezing one
// step early or late (the counts are burn ± 1). It runs at two seeds and
// two burn-ins, through Run and through a driver that steps the sampler
// itself and freezes it once its burn-in (counted in cost, say) is over,
// by FreezeAfter(s.Steps()), which must freeze at once.
func TestNoAdaptationAfterBurnIn(t *testing.T) {
	for _, c := range []struct {
		seed   uint64
		burn   int
		manual bool
	}{{3, 120, false}, {11, 97, false}, {5, 110, true}} {
		t.Run(fmt.Sprint(c.seed), func(t *testing.T) { noAdaptationAfterBurnIn(t, c.seed, c.burn, c.manual) })
	}
}

func noAdaptationAfterBurnIn(t *testing.T, seed uint64, burn int, manual bool) {
	const keep = 300
	eta := langevin.Constant{Step: 0.01}
	mb := func(n int) *energy.Minibatch { m, _ := energy.NewMinibatch(curvedOutliers, n); return m }
	hot := mb(4)
	auto, err := variance.NewAutoBatch(hot, 8, eta, variance.AutoOptions{Every: 1})
	if err != nil {
		t.Fatal(err)
	}
	leader, _ := variance.NewKRR(1000, 3, 1) // 1000 points: never fitted by recording alone
	follower := leader.Follower()
	running, _ := variance.NewRunning(3, 1)
	levels := []Level{
		{Tau: 1, Est: energy.Hidden{Estimator: mb(6)}, Eta: eta, Noise: langevin.Corrected, Var: follower},
		{Tau: 2, Est: energy.Hidden{Estimator: mb(6)}, Eta: eta, Noise: langevin.Corrected, Var: leader},
		{Tau: 4, Est: energy.Hidden{Estimator: mb(5)}, Eta: eta, Noise: langevin.Corrected, Var: running},
		{Tau: 8, Est: hot, Eta: eta, Var: auto},
	}
	cfg := Config{Levels: levels, Swap: Swap{Rule: FReSGLD, PerStep: true}, Seed: seed,
		Energies: Energies{Mode: TaylorEnergies, Terms: curvedOutliers, AnchorEvery: 7, Sizes: []int{6, 6, 5, 4}}}
	s := mustNew(t, cfg, [][]float64{{0}, {0.5}, {1}, {1.5}})
	defer s.Close()
	probes := [][]float64{{-1}, {0.3}, {2}}
	type print struct {
		answers  []float64
		counts   []int
		sizes    []int
		anchors  [][]float64
		fitted   bool
		adopted  bool
		recorded int
	}
	fingerprint := func() print {
		var p print
		for _, th := range probes {
			for _, m := range []variance.Model{follower, leader, running, auto} {
				g := []float64{math.NaN()}
				m.GradVar(g, th, []float64{0})
				p.answers = append(p.answers, g[0], m.EnergyVar(th, 0, false))
			}
		}
		p.counts = []int{running.Updates(), leader.Recorded(), auto.Stats().Checks}
		p.sizes = []int{hot.Size(), hot.EnergySize()}
		for _, a := range s.data.anchors {
			p.anchors = append(p.anchors, slices.Clone(a.Theta()))
		}
		p.fitted, p.adopted, p.recorded = leader.Fitted(), follower.Fitted(), leader.Recorded()
		return p
	}
	var atBurn print
	sink := SinkFunc(func(step int, s *Sampler) error {
		if step == burn {
			atBurn = fingerprint()
		}
		return nil
	})
	if manual {
		for step := 1; step <= burn+keep; step++ {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
			if step == burn {
				s.FreezeAfter(s.Steps())
			}
			sink(step, s)
		}
	} else if err := Run(s, Plan{Burn: burn, Keep: keep, Thin: 1}, sink); err != nil {
		t.Fatal(err)
	}
	end := fingerprint()
	// Each model observes once a step, at steps 0…burn−1: burn updates.
	if want := []int{burn, burn, burn}; !slices.Equal(atBurn.counts, want) {
		t.Errorf("updates at burn-in (running, kernel ridge, automatic minibatch) %v, want %v: adaptation did not stop at step %d", atBurn.counts, want, burn)
	}
	if !slices.Equal(end.counts, atBurn.counts) {
		t.Errorf("updates %v at the end, %v at burn-in", end.counts, atBurn.counts)
	}
	if !atBurn.fitted || !atBurn.adopted {
		t.Errorf("kernel ridge at burn-in: fitted %v, follower adopted %v; the freeze must fit on the %d states recorded", atBurn.fitted, atBurn.adopted, atBurn.recorded)
	}
	for i, a := range atBurn.answers {
		if b := end.answers[i]; !(a == b) { // NaN fails
			t.Errorf("answer %d (probe %d, model %d, %s): %v at burn-in, %v at the end", i, i/8, i%8/2, []string{"ŝ²", "σ²"}[i%2], a, b)
		}
	}
	if !slices.Equal(end.sizes, atBurn.sizes) {
		t.Errorf("hot sizes (batch, energy) %v at the end, %v at burn-in", end.sizes, atBurn.sizes)
	}
	for r := range end.anchors {
		if !slices.Equal(end.anchors[r], atBurn.anchors[r]) {
			t.Errorf("replica %d's anchor %v at the end, %v at burn-in", r, end.anchors[r], atBurn.anchors[r])
		}
	}
	if f := s.Stats().Frozen; f == nil || f.Step != burn {
		t.Errorf("frozen record %+v, want one at step %d", f, burn)
	}
}

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

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

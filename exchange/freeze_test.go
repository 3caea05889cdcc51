package exchange

import (
	"slices"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/variance"
)

// TestRunFreezesAtBurnIn checks that Run ends every adaptation at its
// plan's burn-in: the automatic minibatch makes no check after it (its size
// and the energy size stay those recorded in Stats().Frozen), the anchors
// are refreshed for the last time at its last step and stay there, and a
// checkpoint taken after it restores the frozen record. Switched off
// (adapting throughout), the check count grows past burn-in and the test
// fails.
func TestRunFreezesAtBurnIn(t *testing.T) {
	const burn, keep, every = 250, 500, 20
	hot, _ := energy.NewMinibatch(curvedOutliers, 2)
	auto, err := variance.NewAutoBatch(hot, 4, langevin.Constant{Step: 0.01}, variance.AutoOptions{Every: every})
	if err != nil {
		t.Fatal(err)
	}
	cold, _ := energy.NewMinibatch(curvedOutliers, 6)
	cfg := Config{Levels: []Level{
		{Tau: 1, Est: cold, Eta: langevin.Constant{Step: 0.01}},
		{Tau: 4, Est: hot, Eta: langevin.Constant{Step: 0.01}, Var: auto},
	}, Swap: Swap{Rule: FReSGLD, PerStep: true}, Seed: 5, Energies: Energies{Mode: TaylorEnergies, Terms: curvedOutliers, AnchorEvery: 7}}
	s := mustNew(t, cfg, [][]float64{{0}, {1}})
	var checks int
	var anchors [][]float64
	refreshes := 0
	sink := SinkFunc(func(step int, s *Sampler) error {
		if step%7 == 0 && step < burn {
			// Every refresh puts each level's anchor at the state of the
			// replica it belongs to, wherever swaps have moved it.
			refreshes++
			for l := range s.Levels() {
				if a := s.anchor(l).Theta(); !slices.Equal(a, s.State(l)) {
					t.Errorf("step %d: level %d's anchor %v, its replica's state %v", step, l, a, s.State(l))
				}
			}
		}
		if step == burn {
			checks = auto.Stats().Checks
			for _, a := range s.data.anchors {
				anchors = append(anchors, slices.Clone(a.Theta()))
			}
			// The last refresh puts each anchor at its own replica's state.
			for l := range s.Levels() {
				if a := s.anchor(l).Theta(); !slices.Equal(a, s.State(l)) {
					t.Errorf("after burn-in, level %d's anchor %v, its state %v", l, a, s.State(l))
				}
			}
		}
		return nil
	})
	if err := Run(s, Plan{Burn: burn, Keep: keep, Thin: 1}, sink); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if moved := s.Replica(0) != 0 || st.Pairs[0].Accepts > 0; !moved || refreshes == 0 {
		t.Errorf("%d swaps, %d refreshes: the anchors' routing is not tested", st.Pairs[0].Accepts, refreshes)
	}
	if want := burn/every + 1; checks != want || auto.Stats().Checks != want {
		t.Errorf("automatic minibatch: %d checks at burn-in, %d at the end; want %d and no more", checks, auto.Stats().Checks, want)
	}
	f := st.Frozen
	if f == nil || f.Step != burn {
		t.Fatalf("frozen record %+v, want one at step %d", f, burn)
	}
	if f.Batch[1] != hot.Size() || f.Batch[0] != 6 || f.EnergySize[1] != hot.EnergySize() {
		t.Errorf("frozen sizes %v (energy %v); the run ends at %d, %d (energy %d)", f.Batch, f.EnergySize, 6, hot.Size(), hot.EnergySize())
	}
	for r, a := range s.data.anchors {
		if !slices.Equal(a.Theta(), anchors[r]) || !slices.Equal(f.Anchors[r], anchors[r]) {
			t.Errorf("replica %d's anchor %v at the end, %v at burn-in, %v recorded", r, a.Theta(), anchors[r], f.Anchors[r])
		}
	}
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := New(cfg, [][]float64{{0}, {1}})
	if err := s2.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if g := s2.Stats().Frozen; g == nil || g.Step != burn || !slices.Equal(g.Batch, f.Batch) {
		t.Errorf("restored frozen record %+v, saved %+v", g, f)
	}
}

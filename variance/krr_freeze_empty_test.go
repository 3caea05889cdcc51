package variance

import (
	"math/rand/v2"
	"testing"
)

// TestKRRFrozenEmptyStaysEmpty checks a kernel-ridge model frozen before
// it recorded a single state (a burn-in shorter than its period, or a
// run without burn-in): it has no fit, and later Observes must neither
// draw nor record, so that it answers 0 through the whole run, leader and
// follower alike. TestKRRFreeze freezes after 30 points, where the fit
// made at Freeze stops the recording by itself; it passes with Observe's
// frozen check removed, and this test fails (the model records and fits
// during sampling, changing the chain's kernel).
func TestKRRFrozenEmptyStaysEmpty(t *testing.T) {
	est := newCountingNoisy(sigmoidNoise(1))
	rng := rand.New(rand.NewPCG(1, 2))
	k, _ := NewKRR(10, 5, 1)
	f := k.Follower()
	k.Freeze()
	f.Freeze()
	feed(t, k, est, 50, 1, rng)
	for i := range 50 {
		if err := f.Observe(i, []float64{float64(i%7) - 3}, est, rng); err != nil {
			t.Fatal(err)
		}
	}
	// A sampler's ŝ² buffer starts at 0; a model with nothing recorded
	// leaves it there.
	got, gotF := []float64{0}, []float64{0}
	k.GradVar(got, []float64{2.5}, nil)
	f.GradVar(gotF, []float64{2.5}, nil)
	ev := k.EnergyVar([]float64{2.5}, 0, false)
	if est.grads != 0 || k.Recorded() != 0 || k.Fitted() || f.Fitted() || got[0] != 0 || gotF[0] != 0 || ev != 0 {
		t.Errorf("frozen empty: %d draws, %d recorded, fitted %v (follower %v), ŝ²(2.5) = %v (follower %v), σ² %v; want none, 0",
			est.grads, k.Recorded(), k.Fitted(), f.Fitted(), got[0], gotF[0], ev)
	}
}

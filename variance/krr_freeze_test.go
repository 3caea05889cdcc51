package variance

import (
	"math/rand/v2"
	"testing"
)

// TestKRRFreeze checks the end of burn-in on a kernel-ridge model that has
// not yet recorded its points: Freeze fits on the states it has, the
// follower adopts that fit at once, later Observes record and draw
// nothing, and a checkpoint of the frozen model restores a frozen model
// (a restored leader that recorded again would fit anew on more points and
// change the chain's kernel during sampling).
func TestKRRFreeze(t *testing.T) {
	est := newCountingNoisy(sigmoidNoise(1))
	rng := rand.New(rand.NewPCG(1, 2))
	k, _ := NewKRR(100, 5, 1)
	f := k.Follower()
	feed(t, k, est, 30, 1, rng)
	k.Freeze()
	f.Freeze()
	if !k.Fitted() || !f.Fitted() || k.Recorded() != 30 {
		t.Fatalf("after Freeze on 30 points: fitted %v, follower %v, recorded %d", k.Fitted(), f.Fitted(), k.Recorded())
	}
	probe := []float64{2.5}
	want := []float64{0}
	k.GradVar(want, probe, nil)
	calls := est.grads
	feed(t, k, est, 50, 1, rng)
	for i := range 50 {
		if err := f.Observe(i, []float64{float64(i%7) - 3}, est, rng); err != nil {
			t.Fatal(err)
		}
	}
	got, gotF := []float64{0}, []float64{0}
	k.GradVar(got, probe, nil)
	f.GradVar(gotF, probe, nil)
	if est.grads != calls || k.Recorded() != 30 || got[0] != want[0] || gotF[0] != want[0] {
		t.Errorf("after Freeze: %d more draws, %d recorded, ŝ²(2.5) = %v (follower %v), was %v", est.grads-calls, k.Recorded(), got[0], gotF[0], want[0])
	}
	b, err := k.SaveState()
	if err != nil {
		t.Fatal(err)
	}
	r, _ := NewKRR(100, 5, 1)
	if err := r.RestoreState(b); err != nil {
		t.Fatal(err)
	}
	feed(t, r, est, 50, 1, rng)
	r.GradVar(got, probe, nil)
	if !r.Frozen() || r.Recorded() != 30 || got[0] != want[0] {
		t.Errorf("restored: frozen %v, %d recorded, ŝ²(2.5) = %v, saved %v", r.Frozen(), r.Recorded(), got[0], want[0])
	}
}

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

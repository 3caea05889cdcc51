package exchange

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// slow is an estimator whose gradient draw takes at least d of CPU time,
// like a PDE solve: work that pays for a hand-off to another goroutine.
type slow struct {
	energy.Estimator
	d time.Duration
}

func (s slow) Grad(grad, gradVar, theta []float64, rng *rand.Rand) {
	for t0 := time.Now(); time.Since(t0) < s.d; {
	}
	s.Estimator.Grad(grad, gradVar, theta, rng)
}

func poolLadder(t *testing.T, est energy.Estimator, concurrent bool) *Sampler {
	t.Helper()
	cfg := Config{Levels: []Level{
		{Tau: 1, Est: est, Eta: langevin.Constant{Step: 0.05}, Noise: langevin.Corrected},
		{Tau: 3, Est: est, Eta: langevin.Constant{Step: 0.05}, Noise: langevin.Corrected},
	}, Swap: Swap{Rule: FReSGLD, PerStep: true}, Seed: 5, Concurrent: concurrent}
	s := mustNew(t, cfg, [][]float64{{1, 1}, {0, 0}})
	return s
}

// TestPoolHandsOffOnlyWhenItPays checks the pool's decision at its first
// check. The rule itself is checked on fixed timings: steps of a few hundred
// nanoseconds (below any hand-off) stay on the caller; steps of a
// millisecond per level (far above the tens of microseconds a hand-off
// costs) are handed off. On a run the check must feed the rule the steps'
// real timings (a millisecond's busy loop takes at least a millisecond,
// however loaded the machine; the hand-off's own time is not bounded
// under load, so the run's decision is pinned to the rule's answer on the
// timings it was given, not to what a quiet machine would measure). The
// output is the same bits as sequential stepping in both cases, and when
// the decision changes mid-run.
func TestPoolHandsOffOnlyWhenItPays(t *testing.T) {
	n := func(d time.Duration) []time.Duration { return slices.Repeat([]time.Duration{d}, calibSteps) }
	if handsOff(n(300*time.Nanosecond), n(300*time.Nanosecond), n(10*time.Microsecond)) {
		t.Error("the rule hands off steps of 300 ns against a hand-off of 10 µs")
	}
	if !handsOff(n(time.Millisecond), n(time.Millisecond), n(30*time.Microsecond)) {
		t.Error("the rule keeps steps of 1 ms against a hand-off of 30 µs")
	}
	if handsOff(n(time.Millisecond), n(time.Millisecond), n(30 * time.Microsecond)[1:]) {
		t.Error("the rule hands off although some step's work was below the hand-off's minimum")
	}
	fast := energy.NewNoisy(energy.NewIsoQuadratic(2, 1), 1, 2)
	for _, c := range []struct {
		name string
		est  energy.Estimator
		want bool
	}{{"fast", fast, false}, {"slow", slow{fast, time.Millisecond}, true}} {
		seq, con := poolLadder(t, c.est, false), poolLadder(t, c.est, true)
		var given []time.Duration
		con.pool.decide = func(own, rest, hand []time.Duration) bool {
			given = append([]time.Duration(nil), own...)
			return handsOff(own, rest, hand)
		}
		for k := 0; k < calibSteps+4; k++ {
			if k == calibSteps+2 {
				con.pool.conc = !con.pool.conc // a change of mind keeps the stream
			}
			if err := seq.Step(); err != nil {
				t.Fatal(err)
			}
			if err := con.Step(); err != nil {
				t.Fatal(err)
			}
			if k == calibSteps && c.want && !(len(given) > 0 && median(given) >= time.Millisecond) {
				t.Errorf("%s: the check gave the rule own step times %v, want the level's millisecond", c.name, given)
			}
		}
		if seq.HandsOff() {
			t.Errorf("%s: a sequential sampler reports hand-offs", c.name)
		}
		if len(given) == 0 {
			t.Errorf("%s: the check never reached the rule", c.name)
		}
		var b1, b2 bytes.Buffer
		for l := range 2 {
			binary.Write(&b1, binary.LittleEndian, seq.State(l))
			binary.Write(&b2, binary.LittleEndian, con.State(l))
		}
		if !bytes.Equal(b1.Bytes(), b2.Bytes()) {
			t.Errorf("%s: concurrent and sequential states differ", c.name)
		}
		seq.Close()
		con.Close()
	}
}

package exchange

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/target"
)

// slow is an estimator whose gradient draw takes at least d of CPU time,
// like a PDE solve: work that pays for a hand-off to another goroutine.
type slow struct {
	target.Estimator
	d time.Duration
}

func (s slow) Grad(grad, gradVar, theta []float64, rng *rand.Rand) {
	for t0 := time.Now(); time.Since(t0) < s.d; {
	}
	s.Estimator.Grad(grad, gradVar, theta, rng)
}

func poolLadder(t *testing.T, est target.Estimator, concurrent bool) *Sampler {
	t.Helper()
	cfg := Config{Levels: []Level{
		{Tau: 1, Est: est, Eta: langevin.Constant{Step: 0.05}, Noise: langevin.Corrected},
		{Tau: 3, Est: est, Eta: langevin.Constant{Step: 0.05}, Noise: langevin.Corrected},
	}, Swap: Swap{Rule: FReSGLD, PerStep: true}, Seed: 5, Concurrent: concurrent}
	s, err := New(cfg, [][]float64{{1, 1}, {0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPoolHandsOffOnlyWhenItPays checks the pool's decision at its first
// check: steps of a few hundred nanoseconds (below any hand-off) stay on the
// caller; steps of a millisecond per level (far above the tens of
// microseconds a hand-off costs even on a loaded machine) are handed off.
// The output is the same bits as sequential stepping in both cases, and
// when the decision changes mid-run.
func TestPoolHandsOffOnlyWhenItPays(t *testing.T) {
	fast := target.NewNoisy(target.NewIsoQuadratic(2, 1), 1, 2)
	for _, c := range []struct {
		name string
		est  target.Estimator
		want bool
	}{{"fast", fast, false}, {"slow", slow{fast, time.Millisecond}, true}} {
		seq, con := poolLadder(t, c.est, false), poolLadder(t, c.est, true)
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
			if k == calibSteps {
				if got := con.HandsOff(); got != c.want {
					t.Errorf("%s: hands off %v after the first check, want %v (own %v, rest %v, hand-off %v)", c.name, got, c.want, con.pool.own, con.pool.rest, con.pool.hand)
				}
			}
		}
		if seq.HandsOff() {
			t.Errorf("%s: a sequential sampler reports hand-offs", c.name)
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

package exchange

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// TestProbSumBits checks that PairStats.ProbSum, added in batches, is bit
// for bit Σ exp(min(log Ŝ, 0)) over the attempts in their order, the sum recomputed here from the log-ratios OnSwap reports, on
// a run where both signs of log Ŝ occur.
func TestProbSumBits(t *testing.T) {
	est := energy.NewNoisy(energy.NewIsoQuadratic(2, 1), 1, 2)
	var want float64
	pos, neg := 0, 0
	cfg := Config{Levels: []Level{
		{Tau: 1, Est: est, Eta: langevin.Constant{Step: 0.05}, Noise: langevin.Corrected},
		{Tau: 3, Est: est, Eta: langevin.Constant{Step: 0.05}, Noise: langevin.Corrected},
	}, Swap: Swap{Rule: FReSGLD, PerStep: true}, Seed: 7,
		OnSwap: func(_ int, _, _ []float64, lr, _ float64, _ bool) {
			want += math.Exp(min(lr, 0))
			if lr >= 0 {
				pos++
			} else {
				neg++
			}
		}}
	s := mustNew(t, cfg, [][]float64{{1, 1}, {0, 0}})
	defer s.Close()
	// Stats read mid-batch and at a batch's end, and the run continued
	// after each read (attempts are added in batches of probBatch).
	for _, n := range []int{5000, 3, probBatch - 3, 2 * probBatch} {
		stepN(t, s, n)
		if got := s.Stats().Pairs[0].ProbSum; math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("after %d more steps: ProbSum %v, Σ exp(min(log Ŝ, 0)) = %v", n, got, want)
		}
	}
	if pos == 0 || neg == 0 {
		t.Errorf("log Ŝ ≥ 0 in %d attempts, < 0 in %d: the test needs both", pos, neg)
	}
}

// The batches add in the attempts' order: on log-ratios spread over many
// orders of magnitude, where floating-point sums depend on their order, the
// batched sum equals the one-at-a-time sum bit for bit, with folds forced
// at uneven points as Stats forces them.
func TestProbsFoldInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var b probs
	var got, want float64
	for i := range 1000 {
		lr := 40 * (rng.Float64() - 0.9) // log Ŝ in [−36, 4): Ŝ from 1e-16 up
		b.add(lr, &got)
		want += math.Exp(min(lr, 0))
		if i%37 == 0 {
			b.fold(&got)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("attempt %d: sum %v, want %v", i, got, want)
			}
		}
	}
	b.fold(&got)
	if math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("sum %v, want %v", got, want)
	}
}

var expSink float64

// BenchmarkExp times math.Exp on log-ratios like a swap's, once each
// depending on the last result (the latency a step waits for when it needs
// the result at once) and once independent of each other (what a batch
// costs per exponential):
//
//	go test ./exchange -run '^$' -bench Exp -count 4
func BenchmarkExp(b *testing.B) {
	b.Run("dependent", func(b *testing.B) {
		x := 0.0
		for range b.N {
			x = math.Exp(-3 + x*1e-3) // the next argument needs this result
		}
		expSink = x
	})
	b.Run("independent", func(b *testing.B) {
		var s float64
		for i := range b.N {
			s += math.Exp(-3 - float64(i&15)) // arguments known in advance
		}
		expSink = s
	})
}

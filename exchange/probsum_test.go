package exchange

import (
	"math"
	"testing"

	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/target"
)

// TestProbSumBits checks the shortcut in trySwap (no exponential when
// log Ŝ ≥ 0): PairStats.ProbSum is bit for bit Σ exp(min(log Ŝ, 0)) over the
// attempts, the sum recomputed here from the log-ratios OnSwap reports, on
// a run where both signs of log Ŝ occur.
func TestProbSumBits(t *testing.T) {
	est := target.NewNoisy(target.NewIsoQuadratic(2, 1), 1, 2)
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
	s, err := New(cfg, [][]float64{{1, 1}, {0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range 5000 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.Stats().Pairs[0].ProbSum; math.Float64bits(got) != math.Float64bits(want) {
		t.Errorf("ProbSum %v, Σ exp(min(log Ŝ, 0)) = %v", got, want)
	}
	if pos == 0 || neg == 0 {
		t.Errorf("log Ŝ ≥ 0 in %d attempts, < 0 in %d: the test needs both", pos, neg)
	}
}

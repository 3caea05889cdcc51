package exchange

import (
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// The step loop allocates nothing, swaps included, unless swap times are
// asked for; then they are all there.
func TestSwapRecordOptional(t *testing.T) {
	q := energy.NewIsoQuadratic(1, 1)
	for _, rec := range []bool{false, true} {
		cfg := Config{Levels: []Level{
			{Tau: 1, Est: energy.NewNoisy(q, 0, 1), Eta: langevin.Constant{Step: 0.01}},
			{Tau: 1.1, Est: energy.NewNoisy(q, 0, 1), Eta: langevin.Constant{Step: 0.01}},
		}, Swap: Swap{Rule: ReSGLD, PerStep: true}, Seed: 1, RecordSwaps: rec}
		s := mustNew(t, cfg, [][]float64{{0}, {0}})
		// One run of 5000 steps, so that the rare allocations of a growing
		// slice count (AllocsPerRun divides by the runs, rounding down).
		allocs := testing.AllocsPerRun(1, func() {
			stepN(t, s, 5000)
		})
		p := s.Stats().Pairs[0]
		// τ 1 and 1.1 on one energy: most swaps are accepted.
		if p.Accepts < p.Attempts/2 {
			t.Fatalf("only %d of %d swaps accepted: the test needs many", p.Accepts, p.Attempts)
		}
		if !rec && (allocs != 0 || p.Times != nil) {
			t.Errorf("no record: %v allocations in 5000 steps, %d times kept", allocs, len(p.Times))
		}
		if rec && len(p.Times) != p.Accepts {
			t.Errorf("record: %d times for %d swaps", len(p.Times), p.Accepts)
		}
	}
}

package main

import (
	"math"
	"slices"
	"testing"
)

// An interrupted run's chains, of unequal lengths, are pooled whole: the
// means are of every draw, the diagnostics of the equal-length layout that
// keeps the most draws; a chain that never started, or stopped by an error
// beside sound chains, is listed and left out.
func TestSummaryPoolsUnequalChains(t *testing.T) {
	ok := chainStats{Steps: 1000, Cost: 4000, Clamped: []int64{0, 0}, Attempts: []int{100}, Accepts: []int{10}}
	intr := ok
	intr.Stopped = errInterrupted.Error()
	never := chainStats{Stopped: errInterrupted.Error(), Clamped: []int64{0, 0}, Attempts: []int{0}, Accepts: []int{0}}
	dv := ok
	dv.Stopped = "level 1 diverged at step 500"
	for _, c := range []struct {
		name   string
		chains []*stanChain
		pooled []int // chains pooled
		diag   []int // chains of the layout
		L      int
	}{
		// 1000·2 = 2000 draws in the layout beat 300·3 = 900.
		{"one short", []*stanChain{fakeChain(1, 1000, 0, intr), fakeChain(2, 1000, 0, intr), fakeChain(3, 300, 0, intr)}, []int{1, 2, 3}, []int{1, 2}, 1000},
		// 900·3 = 2700 beat 1000·1.
		{"one long", []*stanChain{fakeChain(1, 1000, 0, intr), fakeChain(2, 900, 0, intr), fakeChain(3, 950, 0, intr)}, []int{1, 2, 3}, []int{1, 2, 3}, 900},
		{"never started", []*stanChain{fakeChain(1, 700, 0, intr), fakeChain(2, 800, 0, intr), fakeChain(3, 0, 0, never), fakeChain(4, 0, 0, never)}, []int{1, 2}, []int{1, 2}, 700},
		{"diverged", []*stanChain{fakeChain(1, 700, 0, intr), fakeChain(2, 400, 50, dv)}, []int{1}, []int{1}, 700},
		{"none started", []*stanChain{fakeChain(1, 0, 0, never), fakeChain(2, 0, 0, never)}, nil, nil, 0},
	} {
		s, err := summarizeChains(c.chains)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(s.Chains, c.pooled) || !slices.Equal(s.DiagChains, c.diag) || s.Draws != c.L || !s.Interrupted {
			t.Errorf("%s: pooled %v, layout %v × %d, interrupted %v; want %v, %v × %d", c.name, s.Chains, s.DiagChains, s.Draws, s.Interrupted, c.pooled, c.diag, c.L)
		}
		var all []float64
		for _, ch := range c.chains {
			if slices.Contains(c.pooled, ch.Header.ID) {
				all = append(all, ch.Cols[5]...)
			}
		}
		if s.PooledDraws != len(all) {
			t.Errorf("%s: %d draws pooled, want %d", c.name, s.PooledDraws, len(all))
		}
		if len(all) == 0 {
			if len(s.Parameters) != 0 {
				t.Errorf("%s: a table of no draws", c.name)
			}
			continue
		}
		mean := 0.0
		for _, x := range all {
			mean += x
		}
		mean /= float64(len(all))
		if p := s.Parameters[1]; math.Abs(p.Mean-mean) > 1e-12 {
			t.Errorf("%s: mean %v, the mean of every pooled draw %v", c.name, p.Mean, mean)
		}
		for _, pc := range s.PerChain {
			if pc.Draws != len(c.chains[pc.Chain-1].Cols[0]) || pc.Pooled != slices.Contains(c.pooled, pc.Chain) {
				t.Errorf("%s: per-chain %+v", c.name, pc)
			}
			if pc.Draws == 0 && pc.Status != statusNeverStarted {
				t.Errorf("%s: chain %d never started, status %q", c.name, pc.Chain, pc.Status)
			}
		}
	}
}

package exchange

import (
	"testing"
)

// TestThinnedFallsBackAtTheFullPassCost checks where a thinned attempt
// stops thinning and takes the exact energies: where its expected events
// cost more than the two states' full passes, 3Λ > 2N, Λ = Rate (the
// intensity times the remainders' total weight W). States placed so that
// 3Λ is 2N times 1.5 must fall back (one confirmation), and at 2N times
// 0.75 must thin (none). Both branches keep the law, so only this sees a
// wrong price: W dropped (an attempt that thins at 1.5 and pays 1.5 full
// passes in events on average), the event cost 3 dropped, or the cap
// taken as one full pass in place of two.
func TestThinnedFallsBackAtTheFullPassCost(t *testing.T) {
	s, lr, _ := thinnedLadder(t, 1)
	defer s.Close()
	e := s.data.expansion
	m := e.Point()[0]
	N := float64(lr.Len())
	if e.Weight() < 4 {
		t.Fatalf("W = %v: too small for the weight to matter", e.Weight())
	}
	// at finds the distance d at which 3·Rate(m + d, m − d) = target.
	at := func(target float64) float64 {
		lo, hi := 0.0, 100.0
		for range 200 {
			d := (lo + hi) / 2
			if thinEventCost*e.Rate(s.td[0], []float64{m + d}, []float64{m - d}) > target {
				hi = d
			} else {
				lo = d
			}
		}
		return (lo + hi) / 2
	}
	for _, c := range []struct {
		share     float64
		confirmed int
	}{{0.75, 0}, {1.5, 1}} {
		d := at(c.share * 2 * N)
		before := s.pairs[0].Confirmed
		if _, err := s.thinnedRatio(0, []float64{m + d}, []float64{m - d}); err != nil {
			t.Fatal(err)
		}
		if got := s.pairs[0].Confirmed - before; got != c.confirmed {
			t.Errorf("3Λ = %.1f·2N (W = %.3g): %d confirmations on the full data, want %d", c.share, e.Weight(), got, c.confirmed)
		}
	}
}

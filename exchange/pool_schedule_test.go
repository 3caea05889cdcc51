package exchange

import (
	"testing"
	"time"

	"github.com/fresgld/fresgld/energy"
)

// TestPoolCheckSchedule checks when the pool measures: a check of calibSteps
// steps starts at step 0; after a check that keeps the decision, no step
// is measured until the next check, which starts firstCheck doubled (the
// decision held) steps after the check ended.
func TestPoolCheckSchedule(t *testing.T) {
	est := energy.NewNoisy(energy.NewIsoQuadratic(2, 1), 1, 2)
	s := poolLadder(t, est, true)
	defer s.Close()
	p := s.pool
	// The decision is pinned: with the timings' own rule a check under load
	// (-race) sometimes switched to handing off, which restarts the gaps at
	// firstCheck, and the schedule tested here is that of a kept decision.
	p.decide = func(_, _, _ []time.Duration) bool { return false }
	step := func() {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	step()
	if p.left != calibSteps-1 {
		t.Fatalf("after step 0: %d steps left in the check, want %d", p.left, calibSteps-1)
	}
	for s.Steps() < calibSteps {
		step()
	}
	next := calibSteps + 2*firstCheck
	if p.left != 0 || p.next != next {
		t.Fatalf("after the first check: %d steps left, next check at %d; want 0 and %d", p.left, p.next, next)
	}
	for s.Steps() < next {
		step()
		if p.left != 0 {
			t.Fatalf("step %d: a check began before step %d", s.Steps()-1, next)
		}
	}
	step()
	if p.left != calibSteps-1 {
		t.Fatalf("step %d: %d steps left in the check, want %d", next, p.left, calibSteps-1)
	}
}

package plan

import (
	"testing"

	"github.com/fresgld/fresgld/nuts"
)

// TestNUTSStepIsFirstChains: the step a NUTS plan gives the chains' header
// (eta) is the lowest chain id's, every time. Read from the map in its
// order, it was any chain's, and a resume, which plans again, was refused
// for a header that differed from the run's ("written with the setting
// eta = 0.0481…, this run has eta = 0.2438…").
func TestNUTSStepIsFirstChains(t *testing.T) {
	np := &NUTSPlan{warm: map[int]*warmChain{}}
	for id := 1; id <= 8; id++ {
		np.warm[id] = &warmChain{tuned: nuts.Tuned{StepSize: float64(id) / 10}}
	}
	for range 100 {
		if got := np.Step(); got != 0.1 {
			t.Fatalf("Step() = %g, want chain 1's 0.1", got)
		}
	}
	if got := (&NUTSPlan{}).Step(); got == got {
		t.Errorf("Step() of no chain = %g, want NaN", got)
	}
}

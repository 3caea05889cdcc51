package plan

import (
	"math"
	"runtime"
	"strings"
	"testing"
	"time"
)

// timedPlan is a plan whose steps took sec seconds each.
type timedPlan struct {
	ChainPlan
	sec float64
}

func (p timedPlan) StepSeconds() float64 { return p.sec }

// The plan's cost is weighed against the run's estimate, the chains'
// steps at the measured time a step, as many chains at once as there are
// cores; above planShareMax it says so, with the numbers and the flag
// that lowers the share; below it, nothing, and nothing for a plan under
// planSecondsMin. A plan that timed no steps is not weighed.
func TestPlanCost(t *testing.T) {
	cores := min(4, runtime.GOMAXPROCS(0))
	waves := math.Ceil(4 / float64(cores))
	// 4 chains of 100 + 1000·2 steps at 10 ms: waves × 21 s.
	run := waves * 21
	c := Cost(timedPlan{sec: 1e-2}, time.Duration(run*float64(time.Second)), 4, 100, 1000, 2)
	if c == nil || math.Abs(c.RunSeconds-run) > 1e-9 || math.Abs(c.Share-0.5) > 1e-9 || !strings.Contains(c.Why, "50% of the plan and the run together") || !strings.Contains(c.Why, "raise --keep") {
		t.Errorf("a plan as long as its run: %+v", c)
	}
	c = Cost(timedPlan{sec: 1e-2}, time.Duration(run/4*float64(time.Second)), 4, 100, 1000, 2)
	if c == nil || math.Abs(c.Share-0.2) > 1e-9 || c.Why != "" {
		t.Errorf("a plan of a quarter of its run: %+v", c)
	}
	// The same share at a hundredth of the time: under planSecondsMin.
	c = Cost(timedPlan{sec: 1e-4}, time.Duration(run/100*float64(time.Second)), 4, 100, 1000, 2)
	if c == nil || math.Abs(c.Share-0.5) > 1e-9 || c.Why != "" {
		t.Errorf("a plan of %.2g s as long as its run: %+v", run/100, c)
	}
	if c := Cost(timedPlan{}, time.Second, 4, 100, 1000, 2); c != nil {
		t.Errorf("a plan that timed nothing: %+v", c)
	}
}

package plan

import (
	"fmt"
	"math"
	"runtime"
	"time"
)

// The plan is a cost the run pays before its first draw: a search, the
// steps' tuning, a pilot. Its parts have fixed bounds (at most 1 +
// modeStarts searches and rayAxes·2 + rayRandom rays of 11 points; a
// pilot of PilotChains × PilotSteps steps a level; malaRounds ×
// malaRoundSteps MALA steps; a NUTS warmup of nutsWarmup transitions a
// chain), but not bounds relative to the run, whose length the pilot
// decides. So once planned, the run weighs the plan against the run's
// own estimated time, and where the plan took more than planShareMax of
// the two, says so, and why, before the first draw.

// planShareMax is the share of the whole (plan and run) above which the
// plan's cost is reported before sampling: a quarter, so that the plan
// at most adds a third to what the run itself costs.
const planShareMax = 0.25

// planSecondsMin is the plan's wall time below which its share is not
// reported: a wait of a few seconds goes unnoticed, and most small
// models' plans (arK's took 0.09 s, 53% of its run) would otherwise say so
// on every run.
const planSecondsMin = 5

// stepTimer is a plan that timed its chains' steps while planning: the
// wall seconds one chain takes a step (a transition, for NUTS; every
// level's step, for a ladder).
type stepTimer interface {
	StepSeconds() float64
}

// PlanCost is the plan's cost against the run's, for summary.json.
type PlanCost struct {
	PlanSeconds float64 `json:"plan_seconds"`
	// RunSeconds is the run's estimate: the chains' steps (burn-in and
	// kept, thinning included) at the plan's measured seconds a step,
	// as many chains at once as there are cores.
	RunSeconds float64 `json:"run_seconds_estimated"`
	Share      float64 `json:"plan_share"`
	// Why says why the share is above planShareMax ("" below it).
	Why string `json:"why,omitempty"`
}

// Cost weighs the plan (elapsed, its wall time) against the run of
// chains chains, each burn + keep·thin steps; nil where the plan timed no
// steps.
func Cost(plan ChainPlan, elapsed time.Duration, chains, burn, keep, thin int) *PlanCost {
	st, ok := plan.(stepTimer)
	if !ok || !(st.StepSeconds() > 0) {
		return nil
	}
	steps := float64(burn + keep*thin)
	waves := math.Ceil(float64(chains) / float64(max(1, min(chains, runtime.GOMAXPROCS(0)))))
	run := waves * steps * st.StepSeconds()
	c := &PlanCost{PlanSeconds: elapsed.Seconds(), RunSeconds: run}
	c.Share = c.PlanSeconds / (c.PlanSeconds + run)
	if c.Share > planShareMax && c.PlanSeconds >= planSecondsMin {
		c.Why = fmt.Sprintf("the plan took %.3g s, %.0f%% of the plan and the run together (the run's %d chain(s) of %d steps at %.3g ms a step: about %.3g s), above the %.0f%% it aims at: its parts are fixed in size (%s), and this run is short beside them; a longer run (raise --keep) spends a smaller share on its plan",
			c.PlanSeconds, 100*c.Share, chains, burn+keep*thin, 1e3*st.StepSeconds(), run, 100*planShareMax, planParts(plan))
	}
	return c
}

// planParts says what the plan spent, for Cost's line.
func planParts(plan ChainPlan) string {
	switch p := plan.(type) {
	case *ModePlan:
		return fmt.Sprintf("%d searches for modes, a pilot of %d chains × %d steps on %d level(s)", p.Search.Starts, PilotChains, PilotSteps, len(p.Taus))
	case *NUTSPlan:
		return fmt.Sprintf("a warmup of %d transitions a chain", p.iters)
	case *MixturePlan:
		return fmt.Sprintf("a pilot of %d chains × %d sweeps", PilotChains, p.PilotSweeps)
	case *LogConcave:
		return fmt.Sprintf("the search for the mode, %d rounds of %d MALA steps tuning the step and, after a mode search, a NUTS pilot of %d transitions", malaRounds, malaRoundSteps, nutsPilotWarmup)
	}
	return "its search and pilots"
}

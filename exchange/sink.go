package exchange

import (
	"fmt"
	"slices"
)

// A Sink sees the ladder after every step, burn-in included: every level's
// state (s.State(l)), which replica sits where (s.Replica(l)) and the running
// counters (s.Accepts, s.ClampedSteps, s.Units). It lets a user stream or
// reduce a run without storing its draws. The state slices are the
// sampler's own: a sink copies what it keeps. A sink's error stops the run.
type Sink interface {
	Observe(step int, s *Sampler) error
}

// SinkFunc is a function used as a Sink.
type SinkFunc func(step int, s *Sampler) error

// Observe calls f.
func (f SinkFunc) Observe(step int, s *Sampler) error { return f(step, s) }

// Retained reports whether the state after step (counted from 1) is one
// the plan keeps, and its index among the kept samples.
func (p Plan) Retained(step int) (i int, ok bool) {
	if step <= p.Burn || (step-p.Burn)%p.Thin != 0 {
		return 0, false
	}
	return (step-p.Burn)/p.Thin - 1, true
}

// Run takes plan p's steps on s, showing the ladder to sink (nil: none)
// after each. With p.Budget > 0 it stops early, without error, after the
// first step at which the ladder has spent p.Budget cost units; s.Steps()
// then tells how far it went. A step's error or the sink's stops the run,
// and so does closing p.Stop (ErrStopped, checked before every step, so a
// run stopped before it began has taken no step). A resumed plan (p.Done)
// starts after the steps already taken. Adaptation ends with the plan's
// burn-in (Sampler.FreezeAfter), counted from p.Done.
func Run(s *Sampler, p Plan, sink Sink) error {
	if err := p.validate(s); err != nil {
		return err
	}
	s.FreezeAfter(s.Steps() + max(p.Burn-p.Done, 0))
	total := p.Steps()
	for i := p.Done + 1; i <= total; i++ {
		if p.Stop != nil && stopped(p.Stop) {
			return ErrStopped
		}
		if err := s.Step(); err != nil {
			return err
		}
		if sink != nil {
			if err := sink.Observe(i, s); err != nil {
				return fmt.Errorf("step %d: %w", i, err)
			}
		}
		if p.Progress != nil {
			p.Progress(i, total)
		}
		if p.Budget > 0 && s.Units() >= p.Budget {
			return nil
		}
	}
	return nil
}

// Collector is a Sink that keeps a plan's retained states of its level.
type Collector struct {
	Plan  Plan
	Trace Trace
}

// Observe appends the state of c.Plan.Level when the plan retains step.
func (c *Collector) Observe(step int, s *Sampler) error {
	if _, ok := c.Plan.Retained(step); ok {
		c.Trace.Data = append(c.Trace.Data, s.State(c.Plan.Level)...)
	}
	return nil
}

// Accepts is the number of swaps made so far between levels l and l+1.
func (s *Sampler) Accepts(l int) int { return s.pairs[l].Accepts }

// Attempts is the number of swap ratios evaluated so far between levels l
// and l+1.
func (s *Sampler) Attempts(l int) int { return s.pairs[l].Attempts }

// ClampedSteps is the number of steps so far at level l in which at least
// one coordinate's gradient noise exceeded the noise budget.
func (s *Sampler) ClampedSteps(l int) int64 { return s.lv[l].stats.ClampedSteps }

// ColdEnergy is U at the coldest level's state when the level holds it
// already: a Metropolis-adjusted level keeps U of its state for its next
// step. ok is false at any other level, or before its first step.
func (s *Sampler) ColdEnergy() (u float64, ok bool) {
	m := s.lv[0].mh
	if m == nil || !m.valid || !slices.Equal(m.x, s.State(0)) {
		return 0, false
	}
	return m.ux, true
}

// Accepted is level l's accepted proposals, and whether the level is
// Metropolis-adjusted (Level.Metropolis; else it makes none).
func (s *Sampler) Accepted(l int) (n int64, metropolis bool) {
	return s.lv[l].stats.Accepted, s.lv[l].mh != nil || s.lv[l].Kernel != nil
}

// Jumps is level l's jumps between the modes (Level.Jumps) and those
// accepted, and whether the level jumps at all.
func (s *Sampler) Jumps(l int) (n, accepted int64, on bool) {
	st := s.lv[l].stats
	return st.Jumps, st.JumpsAccepted, s.lv[l].jumps != nil
}

// Units is the cost spent so far by the whole ladder, in the estimators'
// units (per-example evaluations for minibatch estimators): every gradient
// and energy draw of every level, variance estimation and anchor passes
// included.
func (s *Sampler) Units() float64 {
	var u float64
	for l := range s.lv {
		u += s.lv[l].stats.Cost.Total()
	}
	return u
}

package plan

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/fresgld/fresgld/modes"
	"github.com/fresgld/fresgld/results"
)

// Status is what a plan is doing, for its progress lines: a plan at
// large N (a spike-and-slab logistic regression of 10⁴ rows pilots its
// kernel and a ladder for minutes) must not leave its user looking at one
// line. It carries the run's context too: every stage of the plan (the
// mode search, the steps' tuning, the pilots, the ladder's placing) checks
// it between steps, so that SIGINT and SIGTERM stop the plan within a
// step. Its methods do nothing on a nil *Status.
type Status struct {
	now atomic.Pointer[string]
	// caveat, once set, ends every line Now says: what the plan found
	// that the user should know while it goes on (a posterior with no
	// mode), not only in the warnings after the run.
	caveat atomic.Pointer[string]
	ctx    context.Context
	// search is the mode search's, once it ended; model its starts from
	// the model (Model.Starts).
	search *modes.ModeSearch
	model  int
	// adaptDelta is Options.AdaptDelta, for every NUTS warmup of the plan.
	adaptDelta float64
}

// NewStatus is the status of a plan for a run whose context is ctx, its
// NUTS warmups tuned to adaptDelta (Options.AdaptDelta).
func NewStatus(ctx context.Context, adaptDelta float64) *Status {
	return &Status{ctx: ctx, adaptDelta: adaptDelta}
}

// Now is what the plan is doing, for the run's progress lines.
func (s *Status) Now() string {
	now := "starting"
	if v := s.now.Load(); v != nil {
		now = *v
	}
	if c := s.caveat.Load(); c != nil {
		now += "; " + *c
	}
	return now
}

// Caveat sets what every later line of Now ends with.
func (s *Status) Caveat(format string, args ...any) {
	if s != nil {
		v := fmt.Sprintf(format, args...)
		s.caveat.Store(&v)
	}
}

// setSearch records the mode search s, with model starts of the model's
// own, for the run's notes and summary.
func (s *Status) setSearch(ms *modes.ModeSearch, model int) {
	if s != nil {
		s.search, s.model = ms, model
	}
}

// Searched is the mode search's summary; nil where there was none.
func (s *Status) Searched() *modes.SearchSummary {
	if s == nil || s.search == nil {
		return nil
	}
	return s.search.Summary(s.model)
}

// Stopped is ErrInterrupted, saying what the plan was doing, once the
// run's context is cancelled; nil before, and on a nil *Status.
func (s *Status) Stopped() error {
	if s == nil || s.ctx == nil || s.ctx.Err() == nil {
		return nil
	}
	now := "starting"
	if v := s.now.Load(); v != nil {
		now = *v
	}
	return fmt.Errorf("%w while planning the run (%s), before any draw: nothing to keep, no output written", results.ErrInterrupted, now)
}

// Stop is the channel the plan's samplers stop on (exchange.Plan.Stop):
// nil, never closed, without a context.
func (s *Status) Stop() <-chan struct{} {
	if s == nil || s.ctx == nil {
		return nil
	}
	return s.ctx.Done()
}

// Set says what the plan is doing now.
func (s *Status) Set(format string, args ...any) {
	if s != nil {
		v := fmt.Sprintf(format, args...)
		s.now.Store(&v)
	}
}

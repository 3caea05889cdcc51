package analysis

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/fresgld/fresgld/results"
)

// planStatus is what a plan is doing, for its progress lines: a plan at
// large N (a spike-and-slab logistic regression of 10⁴ rows pilots its
// kernel and a ladder for minutes) must not leave its user looking at one
// line. It carries the run's context too: every stage of the plan (the
// mode search, the steps' tuning, the pilots, the ladder's placing) checks
// it between steps, so that SIGINT and SIGTERM stop the plan within a
// step. Its methods do nothing on a nil *planStatus.
type planStatus struct {
	now atomic.Pointer[string]
	ctx context.Context
	// search is the mode search's, once it ended; model its starts from
	// the model (Model.Starts).
	search *ModeSearch
	model  int
	// adaptDelta is Options.AdaptDelta, for every NUTS warmup of the plan.
	adaptDelta float64
}

// setSearch records the mode search s, with model starts of the model's
// own, for the run's notes and summary.
func (s *planStatus) setSearch(ms *ModeSearch, model int) {
	if s != nil {
		s.search, s.model = ms, model
	}
}

// searched is the mode search's summary; nil where there was none.
func (s *planStatus) searched() *SearchSummary {
	if s == nil || s.search == nil {
		return nil
	}
	return s.search.Summary(s.model)
}

// stopped is ErrInterrupted, saying what the plan was doing, once the
// run's context is cancelled; nil before, and on a nil *planStatus.
func (s *planStatus) stopped() error {
	if s == nil || s.ctx == nil || s.ctx.Err() == nil {
		return nil
	}
	now := "starting"
	if v := s.now.Load(); v != nil {
		now = *v
	}
	return fmt.Errorf("%w while planning the run (%s), before any draw: nothing to keep, no output written", results.ErrInterrupted, now)
}

// stop is the channel the plan's samplers stop on (exchange.Plan.Stop):
// nil, never closed, without a context.
func (s *planStatus) stop() <-chan struct{} {
	if s == nil || s.ctx == nil {
		return nil
	}
	return s.ctx.Done()
}

func (s *planStatus) set(format string, args ...any) {
	if s != nil {
		v := fmt.Sprintf(format, args...)
		s.now.Store(&v)
	}
}

// report writes "<command>: planning the run: <status> (started … ago)"
// to w after FirstLine and then every LineEvery, until the returned stop
// is called.
func (s *planStatus) report(w io.Writer, command string) (stop func()) {
	start, done, finished := time.Now(), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		wait := FirstLine
		for {
			select {
			case <-done:
				return
			case <-time.After(wait):
			}
			now := "starting"
			if v := s.now.Load(); v != nil {
				now = *v
			}
			fmt.Fprintf(w, "%s: planning the run: %s (started %s ago)\n", command, now, time.Since(start).Round(time.Second))
			wait = LineEvery
		}
	}()
	return func() { close(done); <-finished }
}

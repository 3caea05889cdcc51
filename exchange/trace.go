package exchange

import (
	"errors"
	"fmt"
)

// Trace is a run of retained states of one level, stored flat.
type Trace struct {
	P    int       // dimension
	Data []float64 // sample i is Data[i*P : (i+1)*P]
}

// Len is the number of samples.
func (t Trace) Len() int {
	if t.P == 0 {
		return 0
	}
	return len(t.Data) / t.P
}

// At is sample i (a view).
func (t Trace) At(i int) []float64 { return t.Data[i*t.P : (i+1)*t.P] }

// Coord copies coordinate j of every sample.
func (t Trace) Coord(j int) []float64 {
	out := make([]float64, t.Len())
	for i := range out {
		out[i] = t.Data[i*t.P+j]
	}
	return out
}

// Plan says which states of a run to keep.
type Plan struct {
	Burn  int // steps discarded first
	Keep  int // samples retained
	Thin  int // steps between retained samples (≥ 1)
	Level int // the level recorded, 0 the coldest
	// Budget, if positive, stops the run after the first step at which
	// the ladder has spent this many cost units (Sampler.Units: per-example
	// evaluations for minibatch estimators), even if fewer than Keep
	// samples have been retained.
	Budget float64
	// Progress, if set, is called after every step with steps done and total.
	Progress func(done, total int)
	// Stop, if set, ends the run before the next step once it is closed:
	// Run returns ErrStopped, and every step taken stays taken. A closed
	// channel is how a signal handler reaches a run that may be waiting
	// for a core (RunChains) or deep in a long loop, within one step.
	Stop <-chan struct{}
	// Done is the number of the plan's steps already taken, by a run that
	// saved its sampler (Sampler.MarshalBinary) and is now resumed: Run
	// takes steps Done+1 … Steps() and numbers them so for the sink.
	Done int
}

// ErrStopped is the error of a run ended by its Plan.Stop or
// AdaptOptions.Stop.
var ErrStopped = errors.New("stopped")

// stopped reports whether stop is closed (never, for nil).
func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// Steps is the number of steps the plan takes.
func (p Plan) Steps() int { return p.Burn + p.Keep*p.Thin }

func (p Plan) validate(s *Sampler) error {
	switch {
	case p.Burn < 0:
		return fmt.Errorf("burn-in = %d: must be ≥ 0", p.Burn)
	case p.Keep < 1:
		return fmt.Errorf("samples to keep = %d: must be ≥ 1", p.Keep)
	case p.Thin < 1:
		return fmt.Errorf("thinning = %d: must be ≥ 1", p.Thin)
	case !(p.Budget >= 0):
		return fmt.Errorf("cost budget = %v: must be ≥ 0 (0: none)", p.Budget)
	case p.Done < 0 || p.Done > p.Steps():
		return fmt.Errorf("steps already taken = %d: must lie in [0, %d]", p.Done, p.Steps())
	case p.Level < 0 || p.Level >= s.Levels():
		return fmt.Errorf("recorded level %d: the ladder has levels 0..%d", p.Level, s.Levels()-1)
	}
	return nil
}

// Collect runs the sampler for p.Steps() steps (fewer if p.Budget runs
// out) and returns the retained states of p.Level. On error it returns every
// sample retained before it.
func Collect(s *Sampler, p Plan) (Trace, error) {
	c := Collector{Plan: p, Trace: Trace{P: s.Dim()}}
	if p.validate(s) == nil {
		keep := p.Keep
		if p.Budget > 0 {
			// Keep is then an upper bound, possibly a huge one: let the
			// trace grow past a modest start instead of reserving it.
			keep = min(keep, 1<<14)
		}
		c.Trace.Data = make([]float64, 0, keep*s.Dim())
	}
	err := Run(s, p, &c)
	return c.Trace, err
}

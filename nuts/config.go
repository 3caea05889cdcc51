package nuts

import (
	"errors"
	"fmt"
	"math"
)

// Config holds the sampler's and the adaptation's settings. A zero field
// takes its default (DefaultConfig, Stan's defaults); a negative one, or a
// Delta outside (0, 1), is an error.
type Config struct {
	// MaxDepth is the most doublings of a trajectory: at most 2^MaxDepth − 1
	// leapfrog steps a transition. Default 10.
	MaxDepth int
	// MaxDeltaH is the energy error H − H0 past which a leapfrog step is
	// divergent and the trajectory stops. Default 1000.
	MaxDeltaH float64
	// Dense asks Warmup for a dense metric (the covariance of the draws);
	// otherwise it adapts a diagonal one (their variances). NewKernel takes
	// the metric's kind from Tuned and ignores Dense.
	Dense bool
	// StepSize is the step size Warmup starts from before its first search
	// (Stan's stepsize); the dual averaging shrinks towards 10·StepSize
	// until the first metric window ends. Default 1.
	StepSize float64
	// Delta is the mean acceptance statistic the step size is tuned to.
	// Default 0.8.
	Delta float64
	// Gamma, Kappa and T0 are the dual averaging's regularisation scale,
	// the decay of its iterate average, and its offset in iterations.
	// Defaults 0.05, 0.75, 10.
	Gamma, Kappa, T0 float64
	// InitBuffer, TermBuffer and Window are the transitions of warmup before
	// the first metric window, after the last one, and in the first one
	// (each later window doubles). Defaults 75, 50, 25. When the three
	// exceed the warmup, they become 15%, 10% and the rest of it, as in
	// Stan.
	InitBuffer, TermBuffer, Window int
	// InvMetric, when set, is the inverse metric Warmup starts from (p
	// values for a diagonal one, p×p row-major for a dense one, as Dense
	// says), in place of the identity: a guess of the posterior's
	// covariance, such as the inverse Hessian at a mode, spares the first
	// window's trajectories the identity's mismatch of scales. The
	// windows replace it as they end.
	InvMetric []float64
	// Stop, when closed (a run's interrupt), ends Warmup between
	// transitions, with ErrStopped, and cuts a transition short between
	// leapfrog steps, leaving the state where the transition began: a
	// model at 50 ms a gradient spends 51 s on a trajectory of 1023 steps,
	// and a stop must not wait for it. nil: never.
	Stop <-chan struct{}
	// Progress, when set, is told after each warmup transition (for a
	// plan's progress line). It must be safe for concurrent use where
	// warmups run at once.
	Progress func()
}

// ErrStopped is Warmup's error when Config.Stop was closed.
var ErrStopped = errors.New("nuts: stopped")

// DefaultConfig returns Stan's defaults with a diagonal metric.
func DefaultConfig() Config {
	return Config{
		MaxDepth:   10,
		MaxDeltaH:  1000,
		StepSize:   1,
		Delta:      0.8,
		Gamma:      0.05,
		Kappa:      0.75,
		T0:         10,
		InitBuffer: 75,
		TermBuffer: 50,
		Window:     25,
	}
}

// filled returns c with its zero fields set to their defaults, or an error
// naming the first invalid one.
func (c Config) filled() (Config, error) {
	d := DefaultConfig()
	fi := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	ff := func(v *float64, def float64) {
		if *v == 0 {
			*v = def
		}
	}
	fi(&c.MaxDepth, d.MaxDepth)
	ff(&c.MaxDeltaH, d.MaxDeltaH)
	ff(&c.StepSize, d.StepSize)
	ff(&c.Delta, d.Delta)
	ff(&c.Gamma, d.Gamma)
	ff(&c.Kappa, d.Kappa)
	ff(&c.T0, d.T0)
	fi(&c.InitBuffer, d.InitBuffer)
	fi(&c.TermBuffer, d.TermBuffer)
	fi(&c.Window, d.Window)
	pos := func(name string, v float64) error {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("nuts: %s = %v must be positive and finite", name, v)
		}
		return nil
	}
	switch {
	case c.MaxDepth < 1 || c.MaxDepth > 30:
		return c, fmt.Errorf("nuts: MaxDepth = %d must be in 1…30", c.MaxDepth)
	case c.InitBuffer < 0 || c.TermBuffer < 0 || c.Window < 0:
		return c, fmt.Errorf("nuts: InitBuffer %d, TermBuffer %d, Window %d must not be negative", c.InitBuffer, c.TermBuffer, c.Window)
	case !(c.Delta > 0 && c.Delta < 1):
		return c, fmt.Errorf("nuts: Delta = %v must be in (0, 1)", c.Delta)
	}
	for _, e := range []error{pos("MaxDeltaH", c.MaxDeltaH), pos("StepSize", c.StepSize),
		pos("Gamma", c.Gamma), pos("Kappa", c.Kappa), pos("T0", c.T0)} {
		if e != nil {
			return c, e
		}
	}
	return c, nil
}

// Tuned is what warmup hands the sampler: a step size and an inverse metric
// M⁻¹ (the covariance the momenta's kinetic energy ½pᵀM⁻¹p is scaled by;
// Stan's inv_metric).
type Tuned struct {
	StepSize float64
	// Dense says InvMetric is the whole p×p matrix, row by row; otherwise
	// it is its diagonal, of length p.
	Dense     bool
	InvMetric []float64
}

// Transition is what one NUTS transition reports, as Stan's sampler
// diagnostics do.
type Transition struct {
	// Depth is the number of doublings (Stan's treedepth__), NLeapfrog the
	// leapfrog steps, each one gradient evaluation (n_leapfrog__).
	Depth, NLeapfrog int
	// Divergent is set when a leapfrog step's energy error passed
	// MaxDeltaH, or its energy was +∞ or NaN (divergent__).
	Divergent bool
	// AcceptStat is the mean over the trajectory's leapfrog states of the
	// Metropolis acceptance min(1, e^{H0−H}) (accept_stat__).
	AcceptStat float64
	// Energy is the Hamiltonian H = U + ½pᵀM⁻¹p at the chosen state
	// (energy__, for E-BFMI); StepSize the step size used (stepsize__).
	Energy, StepSize float64
	// Stopped is set when Config.Stop cut the transition short: the state
	// stayed where it began.
	Stopped bool
}

// checkTuned validates t for a target of dimension p.
func checkTuned(t Tuned, p int) error {
	if !(t.StepSize > 0) || math.IsInf(t.StepSize, 0) {
		return fmt.Errorf("nuts: step size %v must be positive and finite", t.StepSize)
	}
	want := p
	if t.Dense {
		want = p * p
	}
	if len(t.InvMetric) != want {
		return fmt.Errorf("nuts: inverse metric has %d entries, want %d for dimension %d (dense %v)", len(t.InvMetric), want, p, t.Dense)
	}
	for i, v := range t.InvMetric {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("nuts: inverse metric entry %d is %v", i, v)
		}
	}
	if !t.Dense {
		for i, v := range t.InvMetric {
			if !(v > 0) {
				return fmt.Errorf("nuts: inverse metric entry %d is %v, must be positive", i, v)
			}
		}
	}
	return nil
}

var errDim = errors.New("nuts: the energy has dimension 0")

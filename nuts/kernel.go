package nuts

import (
	"fmt"
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
)

// Kernel is a NUTS transition with a fixed step size and metric: a Markov
// kernel that leaves exp(−U) invariant. It implements exchange.Kernel. It
// keeps buffers and the last state's energy and gradient, so it is not safe
// for concurrent use; give each chain its own.
type Kernel struct {
	s *sampler
}

// NewKernel returns the kernel of t's step size and inverse metric (whose
// kind, diagonal or dense, t.Dense gives) on the target exp(−U) of e, with
// cfg's MaxDepth and MaxDeltaH (zero: the defaults). The kernel assumes e
// is a fixed function: it reuses U and ∇U at the state it left.
func NewKernel(e energy.Energy, t Tuned, cfg Config) (*Kernel, error) {
	cfg, err := cfg.filled()
	if err != nil {
		return nil, err
	}
	p := e.Dim()
	if p == 0 {
		return nil, errDim
	}
	if err := checkTuned(t, p); err != nil {
		return nil, err
	}
	m, err := newMetric(p, t.Dense, t.InvMetric)
	if err != nil {
		return nil, fmt.Errorf("nuts: %w", err)
	}
	s := newSampler(e, m, t.StepSize, cfg.MaxDepth, cfg.MaxDeltaH)
	s.stop = cfg.Stop
	return &Kernel{s: s}, nil
}

// Step moves theta in place by one NUTS transition, drawing from rng. It
// reports whether the state changed and the gradient evaluations made: the
// leapfrog steps, and one more when theta is not the state the last Step
// left (the energy and gradient there are then computed). It does not
// allocate. A theta where U or ∇U is not finite stays put, and the
// transition counts as divergent. A theta of the wrong length panics.
func (k *Kernel) Step(theta []float64, rng *rand.Rand) (moved bool, cost float64) {
	mv, c := k.s.transition(theta, rng)
	return mv, float64(c)
}

// Last is the last transition's report.
func (k *Kernel) Last() Transition { return k.s.last }

// Transitions is the number of Steps taken.
func (k *Kernel) Transitions() int { return k.s.transitions }

// Divergences is the number of divergent transitions so far.
func (k *Kernel) Divergences() int { return k.s.divergences }

// GradEvals is the number of gradient evaluations so far.
func (k *Kernel) GradEvals() int { return k.s.gradEvals }

// Tuned returns the kernel's step size and inverse metric.
func (k *Kernel) Tuned() Tuned {
	return Tuned{StepSize: k.s.eps, Dense: k.s.m.dense, InvMetric: k.s.m.values()}
}

// kernelState is what a Kernel carries between Steps: the last state's
// energy and gradient, and its counts.
type kernelState struct {
	Q, G                                []float64
	U, H                                float64
	Valid                               bool
	Transitions, Divergences, GradEvals int
}

// SaveState saves what the kernel carries between Steps (energy.StateSaver),
// so that a restored kernel reuses the energy and gradient at the state it
// left, as the uninterrupted one does, and counts on from its counts.
func (k *Kernel) SaveState() ([]byte, error) {
	s := k.s
	return energy.EncodeState(kernelState{Q: s.start.q, G: s.start.g, U: s.start.u, H: s.start.h, Valid: s.startValid,
		Transitions: s.transitions, Divergences: s.divergences, GradEvals: s.gradEvals})
}

// RestoreState restores what SaveState saved into a kernel of the same
// dimension.
func (k *Kernel) RestoreState(b []byte) error {
	var st kernelState
	if err := energy.DecodeState(b, &st, "NUTS kernel"); err != nil {
		return err
	}
	s := k.s
	if len(st.Q) != len(s.start.q) || len(st.G) != len(s.start.g) {
		return fmt.Errorf("nuts: a kernel state of dimension %d, this kernel's is %d", len(st.Q), len(s.start.q))
	}
	copy(s.start.q, st.Q)
	copy(s.start.g, st.G)
	s.start.u, s.start.h, s.startValid = st.U, st.H, st.Valid
	s.transitions, s.divergences, s.gradEvals = st.Transitions, st.Divergences, st.GradEvals
	return nil
}

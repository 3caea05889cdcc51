package stan

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
)

// Native is a compiled Stan model loaded into this process (dlopen): its
// energy U(θ) = −log p(θ) on the unconstrained scale with the Jacobian and
// its gradient, a call each, without a process's round trip (about 50 µs
// a request through a pipe on a busy machine, against the model's own
// gradient of a microsecond or less on small models). It is an
// energy.Terms of one example whose term is 0 (the whole density is the
// prior, as modes.EnergyTerms makes it) and an energy.EnergyGrad. It
// is safe for concurrent use.
//
// A state the model rejects has energy +Inf and a zero gradient (a
// sampler rejects a proposal there); Rejected counts them. Any other
// failure makes the energy NaN, which stops the sampler, and Err says
// why.
type Native struct {
	lib     *library
	p       int
	seed    uint64
	rejects atomic.Int64
	evals   atomic.Int64
	mu      sync.Mutex
	last    string // the latest rejection's message
	err     error
	// writeFails counts the draws whose generated quantities failed, and
	// writeMsg is the latest one's message.
	writeFails int64
	writeMsg   string
}

// Rejected is the number of states the model rejected and the message of
// the latest.
func (n *Native) Rejected() (int64, string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.rejects.Load(), n.last
}

// Evals is the number of evaluations of the log density (each with its
// gradient) so far.
func (n *Native) Evals() int64 { return n.evals.Load() }

// Err is the first failure other than a rejection, nil while there is none.
func (n *Native) Err() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.err
}

func (n *Native) Dim() int { return n.p }
func (n *Native) Len() int { return 1 }

// Term is the one example's term, 0.
func (n *Native) Term(grad, _ []float64, _ int) float64 {
	clear(grad)
	return 0
}

// Prior is U: the whole density.
func (n *Native) Prior(grad, theta []float64) float64 { return n.UGrad(grad, theta) }
func (n *Native) U(theta []float64) float64           { return n.UGrad(nil, theta) }
func (n *Native) Grad(grad, theta []float64)          { n.UGrad(grad, theta) }

// UGrad writes ∇U into grad (nil: the energy alone) and returns U.
func (n *Native) UGrad(grad, theta []float64) float64 {
	n.evals.Add(1)
	lp := n.lib.lpGrad(theta, grad)
	switch {
	case math.IsInf(lp, -1):
		n.rejects.Add(1)
		n.note(false)
		clear(grad)
		return math.Inf(1)
	case math.IsNaN(lp):
		n.note(true)
		for j := range grad {
			grad[j] = math.NaN()
		}
		return lp
	}
	for j := range grad {
		grad[j] = -grad[j]
	}
	return -lp
}

func (n *Native) note(failed bool) {
	msg := n.lib.message()
	n.mu.Lock()
	defer n.mu.Unlock()
	if failed && n.err == nil {
		n.err = &ModelError{Msg: msg}
	}
	if !failed {
		n.last = msg
	}
}

// ModelError is a failure of the model's code other than a rejection.
type ModelError struct{ Msg string }

func (e *ModelError) Error() string { return "the Stan model failed: " + e.Msg }

// Write fills out with Stan's values of the draw theta (Model.Constrained):
// constrained parameters, transformed parameters, generated quantities,
// their random numbers seeded by the run's seed and the draw. Safe for
// concurrent use, as plan.Model.Generate must be.
func (n *Native) Write(out, theta []float64) {
	if got := n.lib.write(theta, n.seed, out); got < len(out) {
		msg := n.lib.message()
		n.mu.Lock()
		n.writeMsg = msg
		n.writeFails++
		n.mu.Unlock()
	}
}

// WriteFailures is the number of draws whose transformed parameters or
// generated quantities failed (NaN from the failure on), and the latest
// message.
func (n *Native) WriteFailures() (int64, string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.writeFails, n.writeMsg
}

// Load loads the model into this process, its generated quantities'
// random numbers seeded by seed.
func (m *Model) Load(seed uint64) (*Native, error) {
	l, err := openLibrary(m.Bin.Lib, m.Data)
	if err != nil {
		return nil, err
	}
	n := &Native{lib: l, p: l.dim(), seed: seed}
	if n.p != len(m.Unconstrained) {
		l.close()
		return nil, fmt.Errorf("%s: %d unconstrained parameters, its program says %d", m.Bin.Lib, n.p, len(m.Unconstrained))
	}
	return n, nil
}

// Close frees the model.
func (n *Native) Close() { n.lib.close() }

package exchange

import (
	"fmt"
	"math"
	"slices"

	"github.com/fresgld/fresgld/energy"
)

// mala is the state of a Metropolis-adjusted level (Level.Metropolis): the
// energy, U and its gradient in the preconditioned coordinates at the state
// they were computed at, kept so that a step costs one pass (U and ∇U of the
// proposal), not two. The state is compared, not trusted: a swap, a restart
// or a checkpoint's restore that changes the replica at the level makes the
// next step recompute them.
type mala struct {
	e     energy.Energy
	units float64 // cost units of one U and ∇U pass: N for a data set
	x, gx []float64
	ux    float64
	valid bool
	y, gy []float64
	d     []float64
}

func newMALA(est energy.Estimator) (*mala, error) {
	ex, ok := est.(energy.Exact)
	if !ok {
		return nil, fmt.Errorf("a Metropolis-adjusted level needs exact energies and gradients (energy.Exact); %T is an estimate", est)
	}
	p := ex.Dim()
	m := &mala{e: ex.E, units: 1, x: make([]float64, p), gx: make([]float64, p), y: make([]float64, p), gy: make([]float64, p), d: make([]float64, p)}
	if t, ok := ex.E.(interface{ Len() int }); ok {
		m.units = float64(t.Len())
	}
	return m, nil
}

// metropolisStep is level l's MALA step at temperature τ in the
// coordinates φ = Rᵀθ of its preconditioner (the identity without one):
// the proposal φ' = φ − η∇_φU + w, w ~ N(0, 2τη·I), accepted with
// probability min(1, exp(−(U(θ') − U(θ))/τ) q(θ|θ')/q(θ'|θ)), where
// log q(θ'|θ) = −|φ' − φ + η∇_φU(θ)|²/(4τη) = −|w|²/(4τη). The level then
// targets exp(−U/τ) exactly, whatever η.
func (s *Sampler) metropolisStep(l int, lv *level, r *replica, k int) {
	m := lv.mh
	eta, tau := lv.Eta.Eta(k), lv.Tau
	if !m.valid || !slices.Equal(m.x, r.theta) {
		m.ux = energy.UGrad(m.e, m.gx, r.theta)
		lv.pre.Whiten(m.gx)
		copy(m.x, r.theta)
		m.valid = true
		s.countPass(lv)
		if math.IsNaN(m.ux) || math.IsInf(m.ux, 0) {
			if err := failed(m.e); err != nil {
				lv.err = fmt.Errorf("level %d at step %d: the energy failed: %w", l, k, err)
			} else {
				lv.err = fmt.Errorf("level %d: the energy is %v at the state of step %d", l, m.ux, k)
			}
			return
		}
	}
	if lv.jumps != nil && r.rng.Float64() < lv.jumps.Rate {
		s.jumpStep(l, lv, r, k)
		return
	}
	sd := math.Sqrt(2 * tau * eta)
	var w2 float64
	for j := range m.d {
		w := sd * r.rng.NormFloat64()
		w2 += w * w
		m.d[j] = w - eta*m.gx[j]
	}
	copy(m.y, m.d)
	lv.pre.Color(m.y)
	for j, x := range r.theta {
		m.y[j] += x
	}
	uy, ok := s.evalProposal(l, lv, k)
	if !ok {
		return
	}
	// φ − φ' + η∇_φU(θ') = −d + η∇_φU(θ').
	var b2 float64
	for j, g := range m.gy {
		b := eta*g - m.d[j]
		b2 += b * b
	}
	s.acceptProposal(lv, r, uy, (m.ux-uy)/tau-(b2-w2)/(4*tau*eta))
}

// evalProposal computes U and ∇U (whitened) at the level's proposal m.y,
// one pass. It reports false when the energy failed: a NaN proposal is
// rejected, as the Metropolis rule says, but an energy that failed (a
// model process that died answers NaN from then on) would leave the chain
// repeating its state as draws, so the level stops with an error.
func (s *Sampler) evalProposal(l int, lv *level, k int) (uy float64, ok bool) {
	m := lv.mh
	uy = energy.UGrad(m.e, m.gy, m.y)
	lv.pre.Whiten(m.gy)
	s.countPass(lv)
	if math.IsNaN(uy) {
		if err := failed(m.e); err != nil {
			lv.err = fmt.Errorf("level %d at step %d: the energy failed: %w", l, k, err)
			return uy, false
		}
	}
	return uy, true
}

// acceptProposal moves the replica to the proposal m.y, whose energy is
// uy, with probability min(1, e^logA) (NaN: rejected), keeping U and ∇U
// at the state for the next step. It reports whether it moved.
func (s *Sampler) acceptProposal(lv *level, r *replica, uy, logA float64) bool {
	if !(logA >= 0 || -r.rng.ExpFloat64() < logA) {
		return false
	}
	m := lv.mh
	copy(r.theta, m.y)
	copy(m.x, m.y)
	m.gx, m.gy = m.gy, m.gx
	m.ux = uy
	lv.stats.Accepted++
	return true
}

// countPass counts one U and ∇U pass as a gradient draw: the energy comes
// with it at little extra cost (energy.EnergyGrad).
func (s *Sampler) countPass(lv *level) {
	lv.stats.Cost.Grad.Calls++
	lv.stats.Cost.Grad.Units += lv.mh.units
}

// failed is the error of an energy that can fail and has (a model in
// another process: modelproc.Model.Err), else nil.
func failed(e energy.Energy) error {
	if f, ok := e.(interface{ Err() error }); ok {
		return f.Err()
	}
	return nil
}

// jumpStep is level l's jump (Level.Jumps): a draw y of the modes'
// mixture q at the level's τ, accepted with probability
// min(1, exp(−(U(y) − U(θ))/τ)·q(θ)/q(y)). Like a MALA step it costs one
// pass, U and ∇U at y, so that an accepted jump leaves the next step its
// gradient.
func (s *Sampler) jumpStep(l int, lv *level, r *replica, k int) {
	m, j, tau := lv.mh, lv.jumps, lv.Tau
	lv.stats.Jumps++
	j.Draw(m.y, tau, r.rng)
	uy, ok := s.evalProposal(l, lv, k)
	if !ok {
		return
	}
	lqy := j.LogQ(m.y, tau)
	if s.acceptProposal(lv, r, uy, (m.ux-uy)/tau+j.LogQKept(r.theta, tau)-lqy) {
		lv.stats.JumpsAccepted++
		j.Keep(m.y, tau, lqy)
	}
}

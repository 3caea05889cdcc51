package variance

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
)

// Running is the paper's §5.1 estimator for a black-box estimator: every
// Period steps it draws Repeats gradient and energy estimates at the current
// state, takes their sample variances ŝ²(θ_k) and σ̂²(θ_k), and keeps the
// running averages ŝ²_m = (1 − 1/m) ŝ²_{m−1} + (1/m) ŝ²(θ_k) over its m
// updates so far. It treats the variance as constant in θ.
type Running struct {
	Repeats int // draws per update, ≥ 2
	Period  int // steps between updates, ≥ 1

	m      int
	frozen bool      // burn-in is over: the averages stay
	gvar   []float64 // running average of ŝ², per coordinate
	evar   float64   // running average of σ̂²
	gv     []float64 // one update's sample variances
	rep    repeats
}

var _ Model = (*Running)(nil)

// NewRunning returns a Running model; it checks its settings.
func NewRunning(repeats, period int) (*Running, error) {
	if repeats < 2 {
		return nil, fmt.Errorf("running variance: repeats = %d, need at least 2 for a sample variance", repeats)
	}
	if period < 1 {
		return nil, fmt.Errorf("running variance: period = %d, need at least 1", period)
	}
	return &Running{Repeats: repeats, Period: period}, nil
}

// Updates is the number of updates made so far.
func (r *Running) Updates() int { return r.m }

// Freeze ends the updates: the averages stay as they are (the end of
// burn-in; see Freezer).
func (r *Running) Freeze() { r.frozen = true }

func (r *Running) Observe(k int, theta []float64, est energy.Estimator, rng *rand.Rand) error {
	if r.frozen || k%r.Period != 0 {
		return nil
	}
	if r.gvar == nil {
		r.gvar, r.gv = make([]float64, len(theta)), make([]float64, len(theta))
	}
	ev := r.rep.sample(r.gv, theta, est, rng, r.Repeats)
	r.m++
	w := 1 / float64(r.m)
	for j, v := range r.gv {
		r.gvar[j] += w * (v - r.gvar[j])
	}
	r.evar += w * (ev - r.evar)
	if math.IsNaN(r.evar) || math.IsInf(r.evar, 0) {
		return fmt.Errorf("running variance at step %d: energy estimates are not finite (σ̂² = %v)", k, r.evar)
	}
	for j, v := range r.gvar {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("running variance at step %d: gradient coordinate %d estimates are not finite (ŝ² = %v)", k, j, v)
		}
	}
	return nil
}

func (r *Running) GradVar(dst, _, _ []float64) { copy(dst, r.gvar) }

func (r *Running) EnergyVar([]float64, float64, bool) float64 { return r.evar }

func (*Running) NeedsReport() bool { return false }

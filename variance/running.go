package variance

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/target"
)

// Running is the paper's §5.1 estimator for a black-box estimator: every
// Period steps it draws Repeats gradient and energy estimates at the current
// state, takes their sample variances ŝ²(θ_k) and σ̂²(θ_k), and keeps the
// running averages ŝ²_m = (1 − 1/m) ŝ²_{m−1} + (1/m) ŝ²(θ_k) over its m
// updates so far. It treats the variance as constant in θ.
type Running struct {
	Repeats int // draws per update, ≥ 2
	Period  int // steps between updates, ≥ 1

	m        int
	gvar     []float64 // running average of ŝ², per coordinate
	evar     float64   // running average of σ̂²
	mean, m2 []float64 // Welford accumulators for one update
	draw     []float64
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

func (r *Running) Observe(k int, theta []float64, est target.Estimator, rng *rand.Rand) error {
	if k%r.Period != 0 {
		return nil
	}
	p := len(theta)
	if r.gvar == nil {
		r.gvar = make([]float64, p)
		r.mean = make([]float64, p)
		r.m2 = make([]float64, p)
		r.draw = make([]float64, p)
	}
	for j := range r.mean {
		r.mean[j], r.m2[j] = 0, 0
	}
	var emean, em2 float64
	for i := 1; i <= r.Repeats; i++ {
		est.Grad(r.draw, nil, theta, rng)
		u, _ := est.Energy(theta, rng)
		for j, g := range r.draw {
			d := g - r.mean[j]
			r.mean[j] += d / float64(i)
			r.m2[j] += d * (g - r.mean[j])
		}
		d := u - emean
		emean += d / float64(i)
		em2 += d * (u - emean)
	}
	r.m++
	w := 1 / float64(r.m)
	df := float64(r.Repeats - 1)
	for j := range r.gvar {
		r.gvar[j] += w * (r.m2[j]/df - r.gvar[j])
	}
	r.evar += w * (em2/df - r.evar)
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

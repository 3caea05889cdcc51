package energy

import (
	"math"
	"math/rand/v2"
)

// Exact turns an Energy into an Estimator with zero noise.
type Exact struct{ E Energy }

var _ Estimator = Exact{}

func (x Exact) Dim() int { return x.E.Dim() }

func (x Exact) Grad(grad, gradVar, theta []float64, _ *rand.Rand) {
	x.E.Grad(grad, theta)
	for j := range gradVar {
		gradVar[j] = 0
	}
}

func (x Exact) Energy(theta []float64, _ *rand.Rand) (float64, float64) { return x.E.U(theta), 0 }

func (Exact) KnowsVariance() bool { return true }

// ExactEnergy is true: Energy returns U(θ).
func (Exact) ExactEnergy() bool { return true }

// Noisy turns an exact Energy into an Estimator by adding independent
// Gaussian noise, as the paper's experiments do: Û ~ N(U, σ²(θ)) and
// ∇Û_j ~ N(∂_jU, s_j²(θ)). The noise levels may depend on the state.
type Noisy struct {
	E Energy
	// EnergySD returns σ(θ), the standard deviation of Û; u is U(θ), passed
	// because some noise models (the paper's among them) depend on it.
	// Nil means no energy noise.
	EnergySD func(theta []float64, u float64) float64
	// GradSD returns s_j(θ), the standard deviation of coordinate j of ∇Û.
	// Nil means no gradient noise. Ignored when ConstGradSD is set.
	GradSD func(theta []float64, j int) float64
	// ConstGradSD, when positive, is a state-independent s_j for every j:
	// the fast path that skips a function call per coordinate.
	ConstGradSD float64
}

var _ Estimator = (*Noisy)(nil)

// NewNoisy returns an estimator with constant noise: σ on the energy and s on
// every coordinate of the gradient.
func NewNoisy(e Energy, sigma, s float64) *Noisy {
	n := &Noisy{E: e, ConstGradSD: s}
	if sigma > 0 {
		n.EnergySD = func([]float64, float64) float64 { return sigma }
	}
	return n
}

func (n *Noisy) Dim() int { return n.E.Dim() }

func (n *Noisy) Grad(grad, gradVar, theta []float64, rng *rand.Rand) {
	n.E.Grad(grad, theta)
	switch {
	case n.ConstGradSD > 0:
		s := n.ConstGradSD
		if len(gradVar) == len(grad) {
			// One pass, not two: the variance is written beside the draw.
			for j := range grad {
				grad[j] += s * rng.NormFloat64()
				gradVar[j] = s * s
			}
			return
		}
		for j := range grad {
			grad[j] += s * rng.NormFloat64()
		}
		for j := range gradVar {
			gradVar[j] = s * s
		}
	case n.GradSD != nil:
		for j := range grad {
			s := n.GradSD(theta, j)
			grad[j] += s * rng.NormFloat64()
			if gradVar != nil {
				gradVar[j] = s * s
			}
		}
	default:
		for j := range gradVar {
			gradVar[j] = 0
		}
	}
}

func (n *Noisy) Energy(theta []float64, rng *rand.Rand) (float64, float64) {
	u := n.E.U(theta)
	if n.EnergySD == nil || math.IsNaN(u) || math.IsInf(u, 0) {
		return u, 0
	}
	s := n.EnergySD(theta, u)
	return u + s*rng.NormFloat64(), s * s
}

func (*Noisy) KnowsVariance() bool { return true }

// EnergyVarAt returns σ²(θ), the variance Energy reports at θ (it evaluates
// U(θ) when EnergySD needs it).
func (n *Noisy) EnergyVarAt(theta []float64) float64 {
	if n.EnergySD == nil {
		return 0
	}
	u := n.E.U(theta)
	if math.IsNaN(u) || math.IsInf(u, 0) {
		return 0
	}
	s := n.EnergySD(theta, u)
	return s * s
}

// ExactEnergy is true when there is no energy noise (EnergySD is nil).
func (n *Noisy) ExactEnergy() bool { return n.EnergySD == nil }

// Hidden hides an estimator's knowledge of its own variance, so that a
// sampler must estimate it; it models a black-box solver.
type Hidden struct{ Estimator }

func (h Hidden) Grad(grad, _, theta []float64, rng *rand.Rand) {
	h.Estimator.Grad(grad, nil, theta, rng)
}

func (h Hidden) Energy(theta []float64, rng *rand.Rand) (float64, float64) {
	u, _ := h.Estimator.Energy(theta, rng)
	return u, 0
}

func (Hidden) KnowsVariance() bool { return false }

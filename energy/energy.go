// Package energy holds energies and the noisy estimators the samplers step on.
//
// An Energy is exact: U(θ) and ∇U(θ). An Estimator is what a sampler really
// sees: a random draw Û(θ), ∇Û(θ), and, when it knows them, the variance σ² of
// Û and the per-coordinate variances ŝ² of ∇Û, both possibly depending on θ.
// Slices are destination first, as in gonum: Grad(grad, theta).
package energy

import (
	"math"
	"math/rand/v2"
)

// Energy is an exact energy U with its gradient.
type Energy interface {
	// Dim is the dimension p of the state.
	Dim() int
	// U returns U(θ).
	U(theta []float64) float64
	// Grad writes ∇U(θ) into grad.
	Grad(grad, theta []float64)
}

// EnergyGrad is implemented by energies that compute U(θ) and ∇U(θ) in one
// pass, at about the cost of one of them: a sampler that needs both at
// every step (MALA) uses it.
type EnergyGrad interface {
	Energy
	// UGrad writes ∇U(θ) into grad and returns U(θ), each as U and Grad
	// would give them.
	UGrad(grad, theta []float64) float64
}

// UGrad is U and ∇U of e, in one pass when e is an EnergyGrad.
func UGrad(e Energy, grad, theta []float64) float64 {
	if f, ok := e.(EnergyGrad); ok {
		return f.UGrad(grad, theta)
	}
	e.Grad(grad, theta)
	return e.U(theta)
}

// Finite reports whether an energy u and its gradient g are both finite:
// no NaN and no ±Inf.
func Finite(u float64, g []float64) bool {
	if math.IsNaN(u) || math.IsInf(u, 0) {
		return false
	}
	for _, v := range g {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// Estimator draws noisy, unbiased estimates of U and ∇U.
//
// Implementations must not allocate: samplers call them once per step.
type Estimator interface {
	// Dim is the dimension p of the state.
	Dim() int
	// Grad writes a draw of ∇Û(θ) into grad. If gradVar is non-nil and
	// KnowsVariance is true, it also writes the per-coordinate variance
	// ŝ_j²(θ) of that draw into gradVar.
	Grad(grad, gradVar, theta []float64, rng *rand.Rand)
	// Energy returns a draw of Û(θ) and, if KnowsVariance is true, its
	// variance σ²(θ) (otherwise 0).
	Energy(theta []float64, rng *rand.Rand) (u, sigma2 float64)
	// KnowsVariance reports whether Grad and Energy report variances.
	KnowsVariance() bool
}

// Coster is implemented by estimators whose draws have a cost other than one
// unit each, such as a minibatch estimator whose cost is the number of
// per-example terms it evaluates. Samplers count cost in these units.
type Coster interface {
	// GradCost is the cost of the most recent Grad call.
	GradCost() float64
	// EnergyCost is the cost of the most recent Energy call.
	EnergyCost() float64
}

// Cloner is implemented by estimators that keep per-draw state (buffers, a
// minibatch size), so that a ladder can give each level a copy of its own.
// The copy shares the data and settings, not the state.
type Cloner interface {
	Clone() Estimator
}

// ExactEnergy is implemented by estimators that can say whether their
// energy draws are U(θ) itself, with no noise. A sampler whose swap rule
// needs exact energies refuses an estimator that does not say so: a noisy
// estimator that reports no variance (energy.Hidden, a black box) looks
// noise-free from its reports alone.
type ExactEnergy interface {
	ExactEnergy() bool
}

var (
	_ ExactEnergy = Exact{}
	_ ExactEnergy = (*Noisy)(nil)
	_ ExactEnergy = (*Minibatch)(nil)
)

// EnergyVarAt is implemented by estimators that can tell the variance σ²(θ)
// of an Energy draw at any state without making one. A ladder uses it to
// learn the variance a swap would carry if its two states traded levels.
type EnergyVarAt interface {
	EnergyVarAt(theta []float64) float64
}

var _ EnergyVarAt = (*Noisy)(nil)

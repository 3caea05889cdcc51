// Package variance holds the models that tell an f-reSGLD chain and the swap
// ratios how noisy an estimator is: the per-coordinate variance ŝ²(θ) of its
// gradient draws and the variance σ²(θ) of its energy draws.
package variance

import (
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
)

// Model supplies ŝ²(θ) and σ²(θ) for one level of a ladder.
//
// A sampler calls Observe once per step at the level's current state, before
// the gradient draw; a model may make extra draws from est there, and the
// sampler counts them as variance-estimation cost. Models must not allocate
// after their first Observe.
type Model interface {
	// Observe lets the model learn at step k from the state theta.
	Observe(k int, theta []float64, est energy.Estimator, rng *rand.Rand) error
	// GradVar writes ŝ²(θ) into dst. reported is the estimator's own
	// report for the current draw, or nil when it reports none.
	GradVar(dst, theta, reported []float64)
	// EnergyVar returns σ²(θ); reported is the estimator's own report
	// (meaningful only when known).
	EnergyVar(theta []float64, reported float64, known bool) float64
	// NeedsReport reports whether the model relies on the estimator's own
	// variance reports, so a sampler can reject estimators that make none.
	NeedsReport() bool
}

// Known trusts the estimator's own variance reports: the known-variance
// f-reSGLD of the paper, and the free estimate of a minibatch estimator.
type Known struct{}

var _ Model = Known{}

func (Known) Observe(int, []float64, energy.Estimator, *rand.Rand) error { return nil }

func (Known) GradVar(dst, _, reported []float64) { copy(dst, reported) }

func (Known) EnergyVar(_ []float64, reported float64, _ bool) float64 { return reported }

func (Known) NeedsReport() bool { return true }

// Bound is implemented by models tied to one level: to the estimator they
// act on and the temperature they are set for. A sampler refuses a bound
// model on a level whose estimator or temperature is not its own.
type Bound interface {
	Binding() (est energy.Estimator, tau float64)
}

// Freezer is implemented by models that adapt as the chain runs. A sampler
// calls Freeze at the end of burn-in; from then on the model's answers no
// longer depend on the chain's path, so the chain's kernel is fixed and
// keeps its law. Observe then changes nothing.
type Freezer interface{ Freeze() }

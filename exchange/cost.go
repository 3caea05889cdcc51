package exchange

import (
	"math/rand/v2"

	"github.com/fresgld/fresgld/target"
)

// Count is a number of estimator calls and their cost in the estimator's
// units (one per call unless the estimator is a target.Coster, such as a
// minibatch estimator counting per-example terms).
type Count struct {
	Calls int64   `json:"calls"`
	Units float64 `json:"units"`
}

// Cost is what one level spent.
type Cost struct {
	Grad      Count `json:"grad"`       // gradient draws of the chain
	Energy    Count `json:"energy"`     // energy draws of the swap ratios
	VarGrad   Count `json:"var_grad"`   // draws made only to estimate variances
	VarEnergy Count `json:"var_energy"` // (likewise)
	// Anchor is the full passes that refresh control-variate anchors of
	// swap energies (N units each).
	Anchor Count `json:"anchor"`
}

// Total is every unit the level spent: gradients, energies, variance
// estimation and anchor passes.
func (c Cost) Total() float64 {
	return c.Grad.Units + c.VarGrad.Units + c.Energy.Units + c.VarEnergy.Units + c.Anchor.Units
}

// TotalGrad is all gradient draws, variance estimation included.
func (c Cost) TotalGrad() Count {
	return Count{c.Grad.Calls + c.VarGrad.Calls, c.Grad.Units + c.VarGrad.Units}
}

// TotalEnergy is all energy draws, variance estimation included.
func (c Cost) TotalEnergy() Count {
	return Count{c.Energy.Calls + c.VarEnergy.Calls, c.Energy.Units + c.VarEnergy.Units}
}

// counted wraps an estimator and counts its draws into two Counts.
type counted struct {
	target.Estimator
	coster       target.Coster // nil: one unit a call
	grad, energy *Count
}

func newCounted(e target.Estimator, grad, energy *Count) counted {
	c, _ := e.(target.Coster)
	return counted{Estimator: e, coster: c, grad: grad, energy: energy}
}

func (c *counted) Grad(grad, gradVar, theta []float64, rng *rand.Rand) {
	c.Estimator.Grad(grad, gradVar, theta, rng)
	c.grad.Calls++
	if c.coster != nil {
		c.grad.Units += c.coster.GradCost()
	} else {
		c.grad.Units++
	}
}

func (c *counted) Energy(theta []float64, rng *rand.Rand) (float64, float64) {
	u, s2 := c.Estimator.Energy(theta, rng)
	c.energy.Calls++
	if c.coster != nil {
		c.energy.Units += c.coster.EnergyCost()
	} else {
		c.energy.Units++
	}
	return u, s2
}

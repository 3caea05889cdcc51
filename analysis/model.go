package analysis

import (
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/mala"
	"github.com/fresgld/fresgld/plan"
)

// energyOf is U(θ) of t: its own U when it has one (a fast path), else
// energy.Sum, the prior plus every term (one batch for an
// energy.BatchTerms, such as a model in another process).
func energyOf(t energy.Terms) func(theta []float64) float64 {
	if e, ok := t.(interface{ U([]float64) float64 }); ok {
		return e.U
	}
	return func(theta []float64) float64 { return energy.Sum(t, theta) }
}

// curvature is the model's own Curvature, or the generic one: the mode by
// Newton's method from Init (θ = 0 by default) and the Hessian's extreme eigenvalues there,
// by finite differences of the full gradient.
func curvature(m plan.Model, seed uint64) (plan.Curvature, error) {
	if m.Curvature != nil {
		return m.Curvature(seed)
	}
	var e energy.Energy = energy.NewFull(m.Terms)
	if own, ok := m.Terms.(energy.Energy); ok {
		e = own
	}
	start := m.Init
	if start == nil {
		start = make([]float64, m.Terms.Dim())
	}
	mode, lmin, lmax, err := mala.Curvature(e, start)
	if err != nil {
		return plan.Curvature{}, err
	}
	return plan.Curvature{Lmin: lmin, Lmax: lmax, Mode: mode, Note: "λ_max at the posterior mode"}, nil
}

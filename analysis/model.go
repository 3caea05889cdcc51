package analysis

import (
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/mala"
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
func (m Model) curvature(seed uint64) (Curvature, error) {
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
		return Curvature{}, err
	}
	return Curvature{Lmin: lmin, Lmax: lmax, Mode: mode, Note: "λ_max at the posterior mode"}, nil
}

// EnergyTerms is an energy with no data as a model: U_0 = U and one term
// that is 0, so that the plan (NewChainPlan) and the chain driver, which
// read Terms, take a density given whole, such as a mixture's.
func EnergyTerms(e energy.Energy) energy.Terms { return energyTerms{e} }

type energyTerms struct{ e energy.Energy }

func (t energyTerms) Dim() int { return t.e.Dim() }
func (energyTerms) Len() int   { return 1 }
func (energyTerms) Term(grad, _ []float64, _ int) float64 {
	clear(grad)
	return 0
}
func (t energyTerms) Prior(grad, theta []float64) float64 {
	if grad != nil {
		t.e.Grad(grad, theta)
	}
	return t.e.U(theta)
}

// U and Grad make the model its own exact energy (no pass over terms).
func (t energyTerms) U(theta []float64) float64  { return t.e.U(theta) }
func (t energyTerms) Grad(grad, theta []float64) { t.e.Grad(grad, theta) }

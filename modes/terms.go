package modes

import "github.com/fresgld/fresgld/energy"

// EnergyTerms is an energy with no data as a model: U_0 = U and one term
// that is 0, so that the plan (NewChainPlan) and the chain driver, which
// read Terms, take a density given whole, such as a mixture's.
func EnergyTerms(e energy.Energy) energy.Terms { return energyTerms{e} }

type energyTerms struct{ e energy.Energy }

func (t energyTerms) Dim() int { return t.e.Dim() }

func (energyTerms) Len() int { return 1 }

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
func (t energyTerms) U(theta []float64) float64 { return t.e.U(theta) }

func (t energyTerms) Grad(grad, theta []float64) { t.e.Grad(grad, theta) }

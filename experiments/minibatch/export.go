package minibatch

import "github.com/fresgld/fresgld/energy"

// SettingFor is the study's fixed setting rule (see the constants above)
// applied to the data t started from init: the step, cold n, burn-in and
// budgets from the Laplace approximation at the mode reached from init. It
// also returns that approximation's smallest and largest curvatures.
func SettingFor(t energy.Terms, init []float64, sz Size) (Setting, float64, float64, error) {
	return settingFor(termsEnergy{Terms: t, g: make([]float64, t.Dim())}, t.Len(), init, sz)
}

// Energy is the full energy of t with its gradient, for the Laplace
// approximation and exact grids.
func Energy(t energy.Terms) energy.Energy { return termsEnergy{Terms: t, g: make([]float64, t.Dim())} }

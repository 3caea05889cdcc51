package models

import "github.com/fresgld/fresgld/energy"

// PaperFixedNoise is the noise of the paper's fixed-noise mixture example
// (§5.1): the cold chain's estimator has Û ~ N(U, 1²), ∇Û ~ N(∇U, 2²), the
// hot chain's Û ~ N(U, 3²), ∇Û ~ N(∇U, 5²).
func PaperFixedNoise(e energy.Energy) (cold, hot *energy.Noisy) {
	return energy.NewNoisy(e, 1, 2), energy.NewNoisy(e, 3, 5)
}

package models

import (
	"math"

	"github.com/fresgld/fresgld/energy"
)

// Expit is the logistic function e^x/(1 + e^x), computed without overflow for any x.
func Expit(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// StateGradSD is the paper's §5.1 gradient noise, s(θ) = 5e^θ/(1 + e^θ):
// nearly noise-free on the left mode, sd ≈ 4.8 on the right one.
func StateGradSD(theta float64) float64 { return 5 * Expit(theta) }

// StateEnergySD is the paper's §5.1 energy noise, σ(θ) = 3e^U/(2(1 + e^U)),
// U = U(θ) the exact energy.
func StateEnergySD(u float64) float64 { return 1.5 * Expit(u) }

// StateNoisy is the paper's estimator with state-dependent noise on a
// one-dimensional energy e: Û ~ N(U, σ²(θ)), ∇Û ~ N(∇U, s²(θ)).
func StateNoisy(e energy.Energy) *energy.Noisy {
	return &energy.Noisy{
		E:        e,
		EnergySD: func(_ []float64, u float64) float64 { return StateEnergySD(u) },
		GradSD:   func(theta []float64, _ int) float64 { return StateGradSD(theta[0]) },
	}
}

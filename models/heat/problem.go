// Package heat is the paper's inverse heat-equation problem (§5.2): recover
// the centre x0 of an initial heat bump from one noisy reading of a sensor
// at time T. Every x0 at the same distance from the sensor explains the
// reading equally well, so the posterior concentrates on a circle around
// the sensor.
//
// The energy is the negative log-likelihood U(x0) = (y − G(x0))²/(2σ²),
// where G(x0) = u(x_s, T; x0) is the forward map: a Crank–Nicolson solve of
// the heat equation (package pde) at one of two fidelities, or the closed
// form of the manufactured solution for the exact posterior. The prior is
// uniform on the unit square; samplers enforce it by reflection at the
// walls (exchange.Config.Domain).
package heat

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/pde"
)

// Problem is one instance of the inverse problem.
type Problem struct {
	Bump   pde.Bump
	Sensor [2]float64 // x_s
	T      float64    // the time of the reading
	Truth  [2]float64 // the x0 that produced the measurement
	Sigma  float64    // observation noise standard deviation σ
	Y      float64    // the measurement y = G(Truth) + σ·ε
}

// The settings the paper leaves open, fixed here once for every method.
const (
	// PaperSigma is the observation noise: 0.5, a tenth of the noise-free
	// reading G(Truth) ≈ 5.0.
	PaperSigma = 0.5
	// PaperNoiseSeed seeds the single draw ε ~ N(0, 1) of the measurement
	// noise: y = G(Truth) + σ·ε with ε the first normal draw of
	// PCG(PaperNoiseSeed, 0).
	PaperNoiseSeed = 2023
)

// PaperTruth is the true centre: 0.15 above the sensor, so the circle of
// solutions (radius ≈ 0.15 around (0.3, 0.5)) lies well inside the square.
var PaperTruth = [2]float64{0.3, 0.65}

// Paper returns the problem of the paper's §5.2 (sensor at (0.3, 0.5),
// T = 0.03, bump width h = 0.1) with the observation settings above.
func Paper() Problem {
	p := Problem{Bump: pde.PaperBump(), Sensor: [2]float64{0.3, 0.5}, T: 0.03, Truth: PaperTruth, Sigma: PaperSigma}
	eps := rand.New(rand.NewPCG(PaperNoiseSeed, 0)).NormFloat64()
	p.Y = p.Exact(nil, p.Truth) + p.Sigma*eps
	return p
}

// Validate checks the problem's settings.
func (p Problem) Validate() error {
	c := pde.Config{N: pde.MinN, Steps: 1, T: p.T, Sensor: p.Sensor, Bump: p.Bump}
	if err := c.Validate(); err != nil {
		return err
	}
	switch {
	case !(p.Sigma > 0) || math.IsInf(p.Sigma, 0):
		return fmt.Errorf("observation noise σ = %v: must be positive and finite", p.Sigma)
	case math.IsNaN(p.Y) || math.IsInf(p.Y, 0):
		return fmt.Errorf("measurement y = %v: must be finite", p.Y)
	case !(p.Y > 0 && p.Y < p.Peak()):
		return fmt.Errorf("measurement y = %v: no centre explains it (readings lie in (0, %v))", p.Y, p.Peak())
	}
	return nil
}

// Exact is the closed-form forward map G(x0) = u(x_s, T; x0), with its
// gradient written into grad if non-nil.
func (p Problem) Exact(grad []float64, x0 [2]float64) float64 {
	return p.Bump.Reading(grad, p.Sensor, p.T, x0)
}

// Peak is the largest possible reading, G at x0 = x_s.
func (p Problem) Peak() float64 { return p.Bump.Beta() * math.Exp(-p.T) }

// Radius is the radius r* of the circle of exact solutions: G(x0) = y for
// every x0 with |x0 − x_s| = r*.
func (p Problem) Radius() float64 { return math.Sqrt(p.Bump.Alpha() * math.Log(p.Peak()/p.Y)) }

// RingWidth is the standard deviation of the distance |x0 − x_s| under the
// tempered posterior ∝ exp(−U/τ), to leading order: σ√τ/|G'(r*)|, with
// G'(r) = −2r/α·G(r).
func (p Problem) RingWidth(tau float64) float64 {
	r := p.Radius()
	return p.Sigma * math.Sqrt(tau) / (2 * r / p.Bump.Alpha() * p.Y)
}

// Stiffness is ∂²U/∂r² on the circle, G'(r*)²/σ²: the curvature across the
// ring that limits a Langevin step size.
func (p Problem) Stiffness() float64 {
	g := 2 * p.Radius() / p.Bump.Alpha() * p.Y
	return g * g / (p.Sigma * p.Sigma)
}

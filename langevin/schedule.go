// Package langevin holds one Langevin chain's update: the step-size schedule
// and the noise policy that decides how much Gaussian noise to inject.
package langevin

import (
	"fmt"
	"math"
)

// Schedule gives the step size η_k at step k = 0, 1, 2, ...
type Schedule interface {
	Eta(k int) float64
	// Validate returns an error naming the offending setting.
	Validate() error
}

// Constant is η_k = Eta.
type Constant struct{ Step float64 }

func (c Constant) Eta(int) float64 { return c.Step }

func (c Constant) Validate() error {
	if !(c.Step > 0) || math.IsInf(c.Step, 0) {
		return fmt.Errorf("step size η = %v: must be positive and finite", c.Step)
	}
	return nil
}

// Decreasing is η_k = A (B + k)^−Gamma, the classic SGLD schedule (Welling
// and Teh 2011). SGLD's convergence needs Σ η_k = ∞ (the chain travels
// arbitrarily far) and Σ η_k² < ∞ (the gradient noise averages out), which
// hold exactly for Gamma in (0.5, 1]; Validate refuses other values.
type Decreasing struct{ A, B, Gamma float64 }

func (d Decreasing) Eta(k int) float64 { return d.A * math.Pow(d.B+float64(k), -d.Gamma) }

func (d Decreasing) Validate() error {
	switch {
	case !(d.A > 0) || math.IsInf(d.A, 0):
		return fmt.Errorf("decreasing step size: a = %v must be positive and finite", d.A)
	case !(d.B > 0) || math.IsInf(d.B, 0):
		return fmt.Errorf("decreasing step size: b = %v must be positive and finite", d.B)
	case !(d.Gamma > 0.5) || d.Gamma > 1:
		return fmt.Errorf("decreasing step size: γ = %v must lie in (0.5, 1] (Σ η_k = ∞ and Σ η_k² < ∞)", d.Gamma)
	}
	return nil
}

// Cyclical is the cyclical step size of cyclical SGLD (Zhang, Li, Zhang,
// Chen and Wilson, ICLR 2020): cycles of Cycle steps, each a cosine from
// Eta0 down to nearly 0,
//
//	η_k = (Eta0/2)·[cos(π·r_k) + 1],  r_k = (k mod Cycle)/Cycle,
//
// (their α_k with k counted from 0), and each cycle's first Explore share of
// steps (r_k < Explore) an exploration stage without injected noise: large
// steps of plain stochastic gradient descent move the chain to a new mode,
// then the shrinking steps of the sampling stage sample around it. A sampler
// takes a step with Exploring(k) true at temperature 0 (see Phased).
type Cyclical struct {
	Eta0    float64
	Cycle   int
	Explore float64 // β in [0, 1)
}

func (c Cyclical) Eta(k int) float64 {
	r := float64(k%c.Cycle) / float64(c.Cycle)
	return c.Eta0 / 2 * (math.Cos(math.Pi*r) + 1)
}

// Exploring reports whether step k lies in its cycle's exploration stage.
func (c Cyclical) Exploring(k int) bool {
	return float64(k%c.Cycle)/float64(c.Cycle) < c.Explore
}

func (c Cyclical) Validate() error {
	switch {
	case !(c.Eta0 > 0) || math.IsInf(c.Eta0, 0):
		return fmt.Errorf("cyclical step size: η0 = %v must be positive and finite", c.Eta0)
	case c.Cycle < 2:
		return fmt.Errorf("cyclical step size: cycle of %d steps; need at least 2", c.Cycle)
	case !(c.Explore >= 0 && c.Explore < 1):
		return fmt.Errorf("cyclical step size: exploration share β = %v must lie in [0, 1) (1 would never sample)", c.Explore)
	}
	return nil
}

// Phased is a Schedule with noise-free steps: a sampler injects no noise
// at step k (it steps at temperature 0) when Exploring(k) is true.
type Phased interface {
	Schedule
	Exploring(k int) bool
}

var _ Phased = Cyclical{}

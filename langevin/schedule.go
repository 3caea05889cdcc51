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

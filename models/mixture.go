// Package models holds the targets of the paper's experiments and of the
// project's studies, each with its exact answer where one exists.
package models

import (
	"fmt"
	"math"

	"github.com/fresgld/fresgld/target"
)

// Mixture is a one-dimensional Gaussian mixture, exp(−U(θ)) = Σ_k w_k N(θ; μ_k, s_k²).
type Mixture struct {
	Weights, Means, SDs []float64
}

var _ target.Energy = Mixture{}

// PaperMixture is the paper's §5.1 target: 0.4 N(−4, 0.7²) + 0.6 N(3, 0.5²).
func PaperMixture() Mixture {
	return Mixture{Weights: []float64{0.4, 0.6}, Means: []float64{-4, 3}, SDs: []float64{0.7, 0.5}}
}

// Validate checks that the mixture is a probability density.
func (m Mixture) Validate() error {
	if len(m.Weights) == 0 || len(m.Means) != len(m.Weights) || len(m.SDs) != len(m.Weights) {
		return fmt.Errorf("mixture: %d weights, %d means, %d sds: need equal, non-zero counts", len(m.Weights), len(m.Means), len(m.SDs))
	}
	var tot float64
	for k, w := range m.Weights {
		if !(w > 0) || !(m.SDs[k] > 0) || math.IsInf(m.Means[k], 0) || math.IsNaN(m.Means[k]) {
			return fmt.Errorf("mixture component %d: weight %v, mean %v, sd %v: need weight > 0, sd > 0, finite mean", k, w, m.Means[k], m.SDs[k])
		}
		tot += w
	}
	if math.Abs(tot-1) > 1e-9 {
		return fmt.Errorf("mixture weights sum to %v, not 1", tot)
	}
	return nil
}

func (Mixture) Dim() int { return 1 }

// logTerms returns the largest log-term and Σ exp(term − max), for a stable
// log-sum-exp; grad, if non-nil, receives Σ exp(term − max)·d term/dθ.
func (m Mixture) logTerms(x float64) (mx, sum, dsum float64) {
	mx = math.Inf(-1)
	for k := range m.Weights {
		if t := m.logTerm(k, x); t > mx {
			mx = t
		}
	}
	for k := range m.Weights {
		e := math.Exp(m.logTerm(k, x) - mx)
		sum += e
		dsum += e * (x - m.Means[k]) / (m.SDs[k] * m.SDs[k])
	}
	return mx, sum, dsum
}

func (m Mixture) logTerm(k int, x float64) float64 {
	z := (x - m.Means[k]) / m.SDs[k]
	return math.Log(m.Weights[k]) - math.Log(m.SDs[k]) - 0.5*math.Log(2*math.Pi) - 0.5*z*z
}

// U is −log of the mixture density.
func (m Mixture) U(theta []float64) float64 {
	mx, sum, _ := m.logTerms(theta[0])
	return -(mx + math.Log(sum))
}

// Grad writes U'(θ) = Σ_k r_k (θ − μ_k)/s_k², r_k the responsibilities.
func (m Mixture) Grad(grad, theta []float64) {
	_, sum, dsum := m.logTerms(theta[0])
	grad[0] = dsum / sum
}

// Density is the mixture density exp(−U(x)).
func (m Mixture) Density(x float64) float64 { return math.Exp(-m.U([]float64{x})) }

package models

import (
	"fmt"
	"math"

	"github.com/fresgld/fresgld/energy"
)

// IsoMixture is a p-dimensional mixture of Gaussians with identity
// covariance: exp(−U(θ)) = Σ_k w_k N(θ; μ_k, I).
type IsoMixture struct {
	Weights []float64
	Means   [][]float64
	logW    []float64
}

var _ energy.Energy = (*IsoMixture)(nil)

// NewIsoMixture checks and returns the mixture.
func NewIsoMixture(weights []float64, means [][]float64) (*IsoMixture, error) {
	if len(weights) == 0 || len(means) != len(weights) {
		return nil, fmt.Errorf("iso mixture: %d weights and %d means: need equal, non-zero counts", len(weights), len(means))
	}
	m := &IsoMixture{Weights: weights, Means: means, logW: make([]float64, len(weights))}
	var tot float64
	for k, w := range weights {
		if !(w > 0) || len(means[k]) != len(means[0]) || len(means[0]) == 0 {
			return nil, fmt.Errorf("iso mixture component %d: weight %v, mean of dimension %d: need weight > 0 and equal positive dimensions", k, w, len(means[k]))
		}
		tot += w
		m.logW[k] = math.Log(w)
	}
	if math.Abs(tot-1) > 1e-9 {
		return nil, fmt.Errorf("iso mixture weights sum to %v, not 1", tot)
	}
	return m, nil
}

// FourModes is the five-dimensional mixture of four unit Gaussians centred
// at (±3, ±3, 0, 0, 0) with weights 0.1, 0.2, 0.3 and 0.4, in the order
// (−3, −3), (−3, +3), (+3, −3), (+3, +3).
func FourModes() *IsoMixture {
	m, _ := NewIsoMixture([]float64{0.1, 0.2, 0.3, 0.4}, [][]float64{
		{-3, -3, 0, 0, 0}, {-3, 3, 0, 0, 0}, {3, -3, 0, 0, 0}, {3, 3, 0, 0, 0}})
	return m
}

func (m *IsoMixture) Dim() int { return len(m.Means[0]) }

// logTerm is log w_k − |θ − μ_k|²/2 (the common −(p/2)log 2π left out).
func (m *IsoMixture) logTerm(k int, theta []float64) float64 {
	var d2 float64
	for j, x := range theta {
		d := x - m.Means[k][j]
		d2 += d * d
	}
	return m.logW[k] - d2/2
}

// U is −log of the mixture density.
func (m *IsoMixture) U(theta []float64) float64 {
	mx := math.Inf(-1)
	for k := range m.Weights {
		mx = math.Max(mx, m.logTerm(k, theta))
	}
	var s float64
	for k := range m.Weights {
		s += math.Exp(m.logTerm(k, theta) - mx)
	}
	return -(mx + math.Log(s)) + float64(len(theta))/2*math.Log(2*math.Pi)
}

// Grad writes ∇U(θ) = Σ_k r_k(θ)(θ − μ_k), r_k the responsibilities. It
// does not allocate: the responsibilities are accumulated in one pass with a
// running maximum.
func (m *IsoMixture) Grad(grad, theta []float64) {
	mx := math.Inf(-1)
	for k := range m.Weights {
		mx = math.Max(mx, m.logTerm(k, theta))
	}
	for j := range grad {
		grad[j] = 0
	}
	var s float64
	for k := range m.Weights {
		r := math.Exp(m.logTerm(k, theta) - mx)
		s += r
		for j, x := range theta {
			grad[j] += r * (x - m.Means[k][j])
		}
	}
	for j := range grad {
		grad[j] /= s
	}
}

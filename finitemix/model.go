package finitemix

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/models"
)

// FiniteMixture is a finite mixture of K normals for univariate data,
// y_i ~ Σ_k w_k N(μ_k, σ_k²), under Richardson and Green's (1997) prior
// with their β fixed at its prior mean: μ_k ~ N(ξ, R²) with ξ the data's
// midrange and R its range, precisions σ_k⁻² ~ Gamma(2, rate 0.02·R²),
// and w ~ Dirichlet(e0, …, e0). The means are ordered, μ_1 < … < μ_K,
// which removes the K! copies of each mode that relabelling makes;
// because the prior is exchangeable, the ordered posterior is the law of
// the sorted unordered one. The modes that remain are different
// explanations of the data (a group split in two, a group left to a wide
// component, an empty component), not copies of one another.
//
// The state θ ∈ ℝ^(3K−1) is unconstrained, on the scale of the
// standardised data z = (y − mean)/sd: θ_0 = μ_1, θ_k = log(μ_(k+1) − μ_k)
// (k < K), θ_(K+k) = log σ_(k+1), and θ_(2K+k) = a_(k+1) (k < K−1), the
// weights' logits against a_K = 0. Its prior carries the Jacobian of that
// map, so it is the posterior of (μ, σ, w) written in θ.
type FiniteMixture struct {
	// Z is the standardised data; Mean and SD undo it.
	Z        []float64
	Mean, SD float64
	K        int
	// The prior on the standardised scale.
	Xi, R, Alpha, Beta, E0 float64
}

var (
	_ energy.Terms      = (*FiniteMixture)(nil)
	_ energy.EnergyGrad = (*FiniteMixture)(nil)
	_ energy.Energy     = (*FiniteMixture)(nil)
)

// NewFiniteMixture standardises y and returns its K-component mixture with the
// Dirichlet weight e0 (1: uniform on the simplex; below 1, as in sparse
// finite mixtures, favouring empty components).
func NewFiniteMixture(y []float64, k int, e0 float64) (*FiniteMixture, error) {
	if k < 2 || k > 8 {
		return nil, fmt.Errorf("mixture: %d components: need 2 to 8", k)
	}
	if !(e0 > 0) || math.IsInf(e0, 0) {
		return nil, fmt.Errorf("mixture: Dirichlet weight %v: need a positive number", e0)
	}
	if len(y) < 2 {
		return nil, fmt.Errorf("mixture: %d values: need at least 2", len(y))
	}
	z, mean, sd, err := models.Standardise(y)
	if err != nil {
		return nil, fmt.Errorf("mixture: %w", err)
	}
	if !(sd > 0) {
		return nil, fmt.Errorf("mixture: all %d values are %v: nothing to mix", len(y), y[0])
	}
	m := &FiniteMixture{Z: z, Mean: mean, SD: sd, K: k, Alpha: 2, E0: e0}
	lo, hi := floats.Min(y), floats.Max(y)
	m.Xi, m.R = ((lo+hi)/2-mean)/sd, (hi-lo)/sd
	m.Beta = 0.02 * m.R * m.R
	return m, nil
}

func (m *FiniteMixture) Dim() int { return 3*m.K - 1 }
func (m *FiniteMixture) Len() int { return len(m.Z) }

// MixParams are a state's means, sds and weights on the standardised scale,
// the means in increasing order.
type MixParams struct {
	Mu, Sigma, W, LogW []float64
}

// NewParams returns room for a state's parameters.
func (m *FiniteMixture) NewParams() *MixParams {
	return &MixParams{Mu: make([]float64, m.K), Sigma: make([]float64, m.K), W: make([]float64, m.K), LogW: make([]float64, m.K)}
}

// Unpack writes θ's parameters into p.
func (m *FiniteMixture) Unpack(p *MixParams, theta []float64) {
	k := m.K
	p.Mu[0] = theta[0]
	for j := 1; j < k; j++ {
		p.Mu[j] = p.Mu[j-1] + math.Exp(theta[j])
	}
	amax := 0.0 // a_K = 0
	for j := range k {
		p.Sigma[j] = math.Exp(theta[k+j])
		if j < k-1 {
			amax = math.Max(amax, theta[2*k+j])
		}
	}
	var s float64
	for j := range k {
		a := 0.0
		if j < k-1 {
			a = theta[2*k+j]
		}
		p.LogW[j] = a - amax
		s += math.Exp(p.LogW[j])
	}
	ls := math.Log(s)
	for j := range k {
		p.LogW[j] -= ls
		p.W[j] = math.Exp(p.LogW[j])
	}
}

// Pack writes into theta the state of p's parameters (means strictly
// increasing, sds and weights positive); it inverts Unpack.
func (m *FiniteMixture) Pack(theta []float64, p *MixParams) {
	k := m.K
	theta[0] = p.Mu[0]
	for j := 1; j < k; j++ {
		theta[j] = math.Log(p.Mu[j] - p.Mu[j-1])
	}
	for j := range k {
		theta[k+j] = math.Log(p.Sigma[j])
		if j < k-1 {
			theta[2*k+j] = math.Log(p.W[j]) - math.Log(p.W[k-1])
		}
	}
}

const halfLog2Pi = 0.91893853320467274178

// term returns −log Σ_k w_k N(z; μ_k, σ_k²) and writes the responsibilities
// r_k into r.
func (m *FiniteMixture) term(r []float64, p *MixParams, z float64) float64 {
	lmax := math.Inf(-1)
	for j := range m.K {
		d := (z - p.Mu[j]) / p.Sigma[j]
		r[j] = p.LogW[j] - math.Log(p.Sigma[j]) - d*d/2
		lmax = math.Max(lmax, r[j])
	}
	var s float64
	for j := range m.K {
		r[j] = math.Exp(r[j] - lmax)
		s += r[j]
	}
	for j := range m.K {
		r[j] /= s
	}
	return halfLog2Pi - lmax - math.Log(s)
}

// Responsibilities writes into r (length K·N, row i at r[i·K:]) the
// probability that each data value came from each component under θ, and
// returns U(θ) less the prior.
func (m *FiniteMixture) Responsibilities(r []float64, p *MixParams, theta []float64) float64 {
	m.Unpack(p, theta)
	var u float64
	for i, z := range m.Z {
		u += m.term(r[i*m.K:(i+1)*m.K], p, z)
	}
	return u
}

// scratch holds a state's parameters and a term's working values for up
// to 8 components on the stack, so that Term, Prior and UGrad allocate
// nothing.
type scratch struct {
	mu, sigma, w, logw, r, dmu [8]float64
}

// unpack returns θ's parameters, held in s, and s's K-long r and dmu
// (zeroed).
func (m *FiniteMixture) unpack(s *scratch, theta []float64) (p MixParams, r, dmu []float64) {
	k := m.K
	p = MixParams{Mu: s.mu[:k], Sigma: s.sigma[:k], W: s.w[:k], LogW: s.logw[:k]}
	m.Unpack(&p, theta)
	return p, s.r[:k], s.dmu[:k]
}

// Term is U_i(θ) and its gradient. It unpacks θ each call; full passes go
// through UGrad, which unpacks once.
func (m *FiniteMixture) Term(grad, theta []float64, i int) float64 {
	var s scratch
	p, r, dmu := m.unpack(&s, theta)
	u := m.term(r, &p, m.Z[i])
	if grad != nil {
		clear(grad)
		m.addTermGrad(grad, dmu, r, &p, m.Z[i])
		m.chainMu(grad, dmu, theta)
	}
	return u
}

// addTermGrad adds −∂ log Σ_k w_k N(z; μ_k, σ_k²) to dmu (per μ_k) and to
// grad's log σ and logit coordinates.
func (m *FiniteMixture) addTermGrad(grad, dmu, r []float64, p *MixParams, z float64) {
	k := m.K
	for j := range k {
		d := (z - p.Mu[j]) / p.Sigma[j]
		dmu[j] -= r[j] * d / p.Sigma[j]
		grad[k+j] -= r[j] * (d*d - 1)
		if j < k-1 {
			grad[2*k+j] -= r[j] - p.W[j]
		}
	}
}

// chainMu adds to grad the gradient in θ's mean coordinates of a function
// whose gradient in μ is dmu: μ_j = θ_0 + Σ_(1≤l≤j) exp(θ_l).
func (m *FiniteMixture) chainMu(grad, dmu, theta []float64) {
	var tail float64
	for j := m.K - 1; j >= 1; j-- {
		tail += dmu[j]
		grad[j] += math.Exp(theta[j]) * tail
	}
	grad[0] += tail + dmu[0]
}

// Prior is U_0(θ), the prior's energy in θ (its Jacobian included, its
// constants left out), and its gradient.
func (m *FiniteMixture) Prior(grad, theta []float64) float64 { return m.uGrad(grad, theta, nil) }

// prior adds the prior's gradient to dmu and to grad's other coordinates.
func (m *FiniteMixture) prior(grad, dmu []float64, p *MixParams, theta []float64) float64 {
	k := m.K
	var u float64
	r2 := m.R * m.R
	for j := range k {
		d := p.Mu[j] - m.Xi
		u += d * d / (2 * r2)
		if j >= 1 {
			u -= theta[j] // the Jacobian of μ_(j+1) − μ_j = exp(θ_j)
		}
		// σ⁻² ~ Gamma(α, β) written in log σ: α·log τ − βτ + log 2, τ = e^(−2 log σ).
		tau := math.Exp(-2 * theta[k+j])
		u += 2*m.Alpha*theta[k+j] + m.Beta*tau
		// Dirichlet(e0) written in the logits: e0·Σ log w_k, the Jacobian
		// Π w_k of the softmax included.
		u -= m.E0 * p.LogW[j]
		if grad != nil {
			dmu[j] += d / r2
			if j >= 1 {
				grad[j]--
			}
			grad[k+j] += 2*m.Alpha - 2*m.Beta*tau
			if j < k-1 {
				grad[2*k+j] -= m.E0 * (1 - float64(k)*p.W[j])
			}
		}
	}
	return u
}

func (m *FiniteMixture) U(theta []float64) float64 { return m.UGrad(nil, theta) }

func (m *FiniteMixture) Grad(grad, theta []float64) { m.UGrad(grad, theta) }

// UGrad is U(θ) with its gradient (grad nil: U alone), one pass over the
// data.
func (m *FiniteMixture) UGrad(grad, theta []float64) float64 { return m.uGrad(grad, theta, m.Z) }

// uGrad is the prior's energy and the terms of the values z, with the
// gradient (grad nil: the energy alone): UGrad on the data, Prior on none.
func (m *FiniteMixture) uGrad(grad, theta, data []float64) float64 {
	var s scratch
	p, r, dmu := m.unpack(&s, theta)
	if grad != nil {
		clear(grad)
	}
	u := m.prior(grad, dmu, &p, theta)
	for _, z := range data {
		u += m.term(r, &p, z)
		if grad != nil {
			m.addTermGrad(grad, dmu, r, &p, z)
		}
	}
	if grad != nil {
		m.chainMu(grad, dmu, theta)
	}
	return u
}

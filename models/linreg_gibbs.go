package models

import (
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// Gibbs is the Gibbs sampler of George and McCulloch (1993) for a linear
// regression's spike-and-slab posterior with its likelihood raised to a
// power λ ∈ [0, 1] (the power posterior: λ = 1 the posterior, λ = 0 the
// prior): a step draws each indicator γ_j | β_j, slab with probability
// Inclusion(β_j), then β | γ, y from its Gaussian N(A⁻¹b, A⁻¹),
// A = λXᵀX/σ² + diag(1/s_{γ_j}²), b = λXᵀy/σ². Both are exact conditionals
// of the joint law of (β, γ) whose β-marginal is exp(−U_λ),
// U_λ = λ(U − U_0) + U_0, so the step leaves exp(−U_λ) invariant, and the
// prior's spike, the stiffest curvature of U, never limits a step: it is
// folded into the Gaussian that the step draws from exactly. A step costs
// a p×p Cholesky factorisation and two triangular solves, no pass over the
// data (XᵀX and Xᵀy are computed once). Not safe for concurrent use: give
// each chain its own.
type Gibbs struct {
	l      *LinReg
	lambda float64   // the likelihood's power
	xty    []float64 // b = λXᵀy/σ²
	a      blas64.Symmetric
	u      blas64.Triangular // the Cholesky factor U of A = UᵀU, in a's storage
	y      blas64.Vector
	cost   float64
}

// NewGibbs returns the Gibbs sampler of l's posterior (under the normal
// prior the indicators are always slab and a step is an exact draw from
// the Gaussian posterior).
func (l *LinReg) NewGibbs() *Gibbs { return l.NewTemperedGibbs(1) }

// NewTemperedGibbs returns the Gibbs sampler of the power posterior at
// lambda ∈ [0, 1].
func (l *LinReg) NewTemperedGibbs(lambda float64) *Gibbs {
	p := l.P
	l.gram()
	g := &Gibbs{l: l, lambda: lambda, xty: make([]float64, p), cost: float64(p*p)/6 + 2*float64(p)}
	for i, y := range l.Y {
		for j, v := range l.Row(i) {
			g.xty[j] += lambda * v * y * l.inv2
		}
	}
	g.a = blas64.Symmetric{Uplo: blas.Upper, N: p, Stride: p, Data: make([]float64, p*p)}
	g.u = blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: p, Stride: p, Data: g.a.Data}
	g.y = blas64.Vector{N: p, Inc: 1, Data: make([]float64, p)}
	return g
}

// Step is one sweep: every γ_j, then β. It reports the work done in
// example-gradient equivalents (p²/6 + 2p: the factorisation's p³/3 flops
// and the solves' 2p², over an example gradient's 2p) and moved false
// only if A was not positive definite, which XᵀX positive semi-definite
// plus a positive diagonal rules out.
func (g *Gibbs) Step(theta []float64, rng *rand.Rand) (bool, float64) {
	p, k := g.l.P, &g.l.prior
	for i, v := range g.l.xtx.RawSymmetric().Data {
		g.a.Data[i] = g.lambda * v
	}
	for j, b := range theta {
		prec := k.a1
		if !k.normal && rng.Float64() >= g.l.Beta.Inclusion(b) {
			prec = k.a0
		}
		g.a.Data[j*p+j] += prec
	}
	if _, ok := lapack64.Potrf(g.a); !ok {
		return false, g.cost
	}
	// β = A⁻¹b + U⁻¹z = U⁻¹(U⁻ᵀb + z): mean and noise in two solves.
	copy(g.y.Data, g.xty)
	blas64.Trsv(blas.Trans, g.u, g.y)
	for j := range g.y.Data {
		g.y.Data[j] += rng.NormFloat64()
	}
	blas64.Trsv(blas.NoTrans, g.u, g.y)
	copy(theta, g.y.Data)
	return true, g.cost
}

// Power is the energy of the power posterior at lambda > 0 written for a
// level at temperature τ = 1/λ: E_λ = (U − U_0) + U_0/λ, so that
// exp(−E_λ/τ) = exp(−λ(U − U_0) − U_0), the likelihood raised to lambda
// and the prior whole. A replica-exchange ladder of such levels (the exact
// swap rule reads each level's own energy) is a ladder of power
// posteriors, whose swaps compare likelihoods alone.
func (l *LinReg) Power(lambda float64) energy.Energy { return power{l, 1 / lambda} }

// coefPrior is coefficient j's −log prior at b and its derivative.
func (l *LinReg) coefPrior(_ int, b float64) (u, du float64) { return l.prior.energy(b) }

// powered is a model whose prior is independent across coefficients.
type powered interface {
	Dim() int
	U(theta []float64) float64
	Grad(grad, theta []float64)
	Prior(grad, theta []float64) float64
	coefPrior(j int, b float64) (u, du float64)
}

type power struct {
	l   powered
	inv float64 // 1/λ
}

func (t power) Dim() int { return t.l.Dim() }

func (t power) U(theta []float64) float64 {
	u0 := t.l.Prior(nil, theta)
	return t.l.U(theta) - u0 + t.inv*u0
}

// Grad adds (1/λ − 1)·∇U_0 coefficient by coefficient: no buffer, so the
// energy is safe for concurrent use as its model is.
func (t power) Grad(grad, theta []float64) {
	t.l.Grad(grad, theta)
	for j, b := range theta {
		_, g0 := t.l.coefPrior(j, b)
		grad[j] += (t.inv - 1) * g0
	}
}

package models

import (
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
)

// SlabMove is an exact kernel for a spike-and-slab logistic regression's
// power posterior, exp(−λ·Σ_i U_i(θ) − U_0(θ)): one sweep of
// Metropolis-within-Gibbs over the coefficients, each drawn from an
// independence proposal that depends on the others alone,
//
//	q_j(b) = ½·N(b; 0, s0²) + ½·N(b; m_j, (c·v_j)²)   (the intercept: the second alone),
//
// where m_j and v_j² are the mode and inverse curvature of the coefficient's
// conditional under the slab alone, found by two Newton steps from b = 0
// (a function of the other coefficients only, so the Metropolis–Hastings
// ratio π(b′)q(b)/π(b)q(b′) keeps the conditional, and the sweep the whole
// law), and c = 1.5 widens it against the logistic tails. The spike half
// proposes inside a spike whatever its width, which a gradient step of a
// size set by the slab cannot: this is the move between patterns that the
// linear model's Gibbs sampler makes by drawing each indicator exactly.
// A sweep costs about 4 passes over one column per coefficient and one
// pass to form x_i·θ: 5·N·p multiply-adds, reported as 5N example-gradient
// equivalents (an example gradient is p of them). Not safe for concurrent
// use: give each chain its own.
type SlabMove struct {
	l      *Logistic
	lambda float64
	z      []float64 // x_i·θ
}

// slabMoveWiden is c: the slab proposal's sd over the Laplace fit's.
const slabMoveWiden = 1.5

// NewSlabMove returns the kernel of l's power posterior at lambda ∈ (0, 1]
// (l must have the spike-and-slab prior).
func (l *Logistic) NewSlabMove(lambda float64) *SlabMove {
	return &SlabMove{l: l, lambda: lambda, z: make([]float64, len(l.Y))}
}

// loglik is λ·Σ_i U_i at x_i·θ = z_i + d·x_ij.
func (k *SlabMove) loglik(j int, d float64) float64 {
	l, p := k.l, k.l.P
	var u float64
	for i, zi := range k.z {
		z := zi + d*l.X[i*p+j]
		r, _ := logit(z)
		if l.Y[i] == 1 {
			u += math.Max(-z, 0) + r
		} else {
			u += math.Max(z, 0) + r
		}
	}
	return k.lambda * u
}

// slabFit is the mode and sd of coefficient j's conditional under the
// slab (or the intercept's normal prior) alone, given the others: two
// Newton steps from b = 0 on λ·Σ_i U_i + b²/(2s²), with the current
// coefficient b0 taken out of z.
func (k *SlabMove) slabFit(j int, b0, prec float64) (m, sd float64) {
	l, p := k.l, k.l.P
	b, h := 0.0, prec
	for range 2 {
		g := prec * b
		h = prec
		for i, zi := range k.z {
			x := l.X[i*p+j]
			s := sigmoid(zi + (b-b0)*x)
			g += k.lambda * (s - l.Y[i]) * x
			h += k.lambda * s * (1 - s) * x * x
		}
		b -= g / h
	}
	return b, 1 / math.Sqrt(h)
}

func normLogPDF(x, m, s float64) float64 {
	d := (x - m) / s
	return -0.5*d*d - math.Log(s)
}

// Step is one sweep over the coefficients, intercept included.
func (k *SlabMove) Step(theta []float64, rng *rand.Rand) (bool, float64) {
	l, p := k.l, k.l.P
	for i := range k.z {
		k.z[i] = dot(l.Row(i), theta)
	}
	cur := k.loglik(0, 0)
	moved := false
	s0 := l.Slab.Spike
	for j, b := range theta {
		spike := j != l.Intercept
		prec := l.slabPrec(j)
		m, sd := k.slabFit(j, b, prec)
		q := coefProposal{spike: spike, m: m, sd: sd * slabMoveWiden, s0: s0}
		nb := q.draw(rng)
		next := k.loglik(j, nb-b)
		u0, _ := l.coefPrior(j, b)
		u1, _ := l.coefPrior(j, nb)
		logr := (cur + u0) - (next + u1) + q.logPDF(b) - q.logPDF(nb)
		if math.IsNaN(logr) || math.Log(rng.Float64()) >= logr {
			continue
		}
		for i := range k.z {
			k.z[i] += (nb - b) * l.X[i*p+j]
		}
		theta[j], cur, moved = nb, next, true
	}
	return moved, 5 * float64(len(l.Y))
}

// coefProposal is a coefficient's independence proposal in SlabMove and
// ThinnedSlabMove: ½·N(0, s0²) + ½·N(m, sd²) for a coefficient with a
// spike, N(m, sd²) for the intercept.
type coefProposal struct {
	spike     bool
	m, sd, s0 float64
}

// draw draws from the proposal.
func (q coefProposal) draw(rng *rand.Rand) float64 {
	if q.spike && rng.Float64() < 0.5 {
		return q.s0 * rng.NormFloat64()
	}
	return q.m + q.sd*rng.NormFloat64()
}

// logPDF is the proposal's log density at x, up to a constant (the ½s
// cancel in a Metropolis–Hastings ratio).
func (q coefProposal) logPDF(x float64) float64 {
	if !q.spike {
		return normLogPDF(x, q.m, q.sd)
	}
	a, c := normLogPDF(x, 0, q.s0), normLogPDF(x, q.m, q.sd)
	return math.Max(a, c) + math.Log1p(math.Exp(-math.Abs(a-c)))
}

// slabPrec is the prior precision the coefficient moves fit their
// proposals with: the intercept's 1/σ₀², every other coefficient's slab
// 1/s1² (the spike's part of the proposal is N(0, s0²)).
func (l *Logistic) slabPrec(j int) float64 {
	if j == l.Intercept {
		return 1 / (l.Sigma0 * l.Sigma0)
	}
	return l.slab.a1
}

// coefPrior is coefficient j's −log prior at b and its derivative.
func (l *Logistic) coefPrior(j int, b float64) (u, du float64) {
	if l.slab == nil || j == l.Intercept {
		w := 1 / (l.Sigma0 * l.Sigma0)
		return 0.5 * w * b * b, w * b
	}
	return l.slab.energy(b)
}

// Power is the energy of the power posterior at lambda > 0 written for a
// level at temperature τ = 1/λ, E_λ = (U − U_0) + U_0/λ, as LinReg.Power.
func (l *Logistic) Power(lambda float64) energy.Energy { return power{l, 1 / lambda} }

// Package jumps holds the independence proposal between known modes that a
// Metropolis-adjusted level of a ladder draws in place of its MALA step
// (exchange.Level.Jumps).
package jumps

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Proposal is an independence proposal between known modes for a
// Metropolis-adjusted level (exchange.Level.Jumps): a mixture over the modes of
// their Laplace approximations N(m_k, τ·H_k⁻¹), widened to the level's
// temperature, each with a heavy-tailed defensive part (tailShare of
// it: Cauchy along each of the axes that whiten H_k), drawn in place of
// the level's MALA step with
// probability Rate and accepted with probability
// min(1, exp(−(U(θ') − U(θ))/τ)·q(θ)/q(θ')), q the mixture's density. A
// mixture of Metropolis–Hastings kernels that each leave exp(−U/τ)
// invariant leaves it invariant, whatever the modes, their Hessians and
// weights: they set how often a jump is accepted, not the law.
//
// A MALA step whose size suits the narrowest mode crosses a wide one in
// many steps, and a barrier not at all; a jump moves a chain between
// modes in one step where the Laplace approximations fit.
//
// Where a mode is skewed, its Gaussian misses the long side. A sinusoid's
// frequency whose peak lies against the end of its range, mapped to ℝ by
// a logit, has an exponential tail that runs many of its Laplace
// approximation's sds, where the Gaussian's density is vanishingly small:
// a chain that reaches the tail by MALA steps waits there for a jump to
// be accepted, and one that has not is never proposed it, so that a run
// of ordinary length misses the tail's mass (models.Harmonic on Johnson
// & Johnson's earnings: docs/experiments/tempering.md). The defensive part bounds
// the ratio of the target to q along the axes by a polynomial, so that
// the tail is proposed, and left, at a rate a run can see (Hesterberg's
// defensive importance sampling).
type Proposal struct {
	Rate   float64
	means  [][]float64
	chol   []blas64.Triangular // the lower Cholesky factors L_k of H_k
	logDet []float64           // log |L_k|
	logW   []float64           // log mixture weights, normalised
	// Scratch of one sampler: a Proposal belongs to one level of one sampler
	// (Clone).
	z, lq []float64
	// at, atTau and atLQ are the last state whose density was kept
	// (Keep): the state a jump leaves is most often the state the last
	// jump left or arrived at, and its density costs as much as the
	// proposal's.
	at          []float64
	atTau, atLQ float64
}

// tailShare is the share of each mode's proposal drawn from its
// defensive part. A fifth costs a fit that is right at most a fifth of
// its acceptance, and Cauchy tails, the heaviest whose density and draws
// are closed-form, dominate every tail lighter than |z|⁻².
const tailShare = 0.2

// New is the proposal from the modes' centres, their Hessians H_k
// (of U, positive definite) and log weights (normalised here), at rate
// jumps a step.
func New(rate float64, means [][]float64, hess []mat.Symmetric, logW []float64) (*Proposal, error) {
	if !(rate > 0 && rate <= 1) {
		return nil, fmt.Errorf("jumps: rate %v: need 0 < rate ≤ 1", rate)
	}
	if len(means) == 0 || len(hess) != len(means) || len(logW) != len(means) {
		return nil, errors.New("jumps: need as many centres, Hessians and weights, at least one")
	}
	p := len(means[0])
	j := &Proposal{Rate: rate, z: make([]float64, p), lq: make([]float64, len(means)), at: make([]float64, p), atTau: math.NaN()}
	norm := floats.LogSumExp(logW)
	for k, m := range means {
		if len(m) != p || hess[k].SymmetricDim() != p {
			return nil, fmt.Errorf("jumps: mode %d has dimension %d and a %d×%d Hessian, want %d", k, len(m), hess[k].SymmetricDim(), hess[k].SymmetricDim(), p)
		}
		var ch mat.Cholesky
		if !ch.Factorize(hess[k]) {
			return nil, fmt.Errorf("jumps: the Hessian of mode %d is not positive definite", k)
		}
		var l mat.TriDense
		ch.LTo(&l)
		raw := l.RawTriangular()
		var ld float64
		for i := range p {
			ld += math.Log(raw.Data[i*raw.Stride+i])
		}
		w := logW[k] - norm
		if math.IsNaN(w) || math.IsNaN(ld) {
			return nil, fmt.Errorf("jumps: mode %d: log weight %v, log det %v", k, logW[k], ld)
		}
		j.means = append(j.means, append([]float64(nil), m...))
		j.chol, j.logDet, j.logW = append(j.chol, raw), append(j.logDet, ld), append(j.logW, w)
	}
	return j, nil
}

// Dim is the dimension of the states it proposes.
func (j *Proposal) Dim() int { return len(j.z) }

// Clone is a copy with scratch of its own; the modes are shared.
func (j *Proposal) Clone() *Proposal {
	c := *j
	c.z, c.lq = make([]float64, len(j.z)), make([]float64, len(j.lq))
	c.at, c.atTau = make([]float64, len(j.z)), math.NaN()
	return &c
}

// Draw writes a draw of the mixture at temperature tau into y.
func (j *Proposal) Draw(y []float64, tau float64, rng *rand.Rand) {
	u, k := rng.Float64(), len(j.logW)-1
	for i, w := range j.logW {
		if u -= math.Exp(w); u < 0 {
			k = i
			break
		}
	}
	st := math.Sqrt(tau)
	if rng.Float64() < tailShare {
		for i := range y {
			y[i] = st * math.Tan(math.Pi*(rng.Float64()-0.5))
		}
	} else {
		for i := range y {
			y[i] = st * rng.NormFloat64()
		}
	}
	// y = m_k + √τ·L_k⁻ᵀ z.
	blas64.Trsv(blas.Trans, j.chol[k], blas64.Vector{N: len(y), Data: y, Inc: 1})
	for i, m := range j.means[k] {
		y[i] += m
	}
}

// LogQKept is LogQ(x, tau), from the kept value where x and tau are
// those kept, and kept for the next call.
func (j *Proposal) LogQKept(x []float64, tau float64) float64 {
	if tau == j.atTau && slices.Equal(x, j.at) {
		return j.atLQ
	}
	lq := j.LogQ(x, tau)
	j.Keep(x, tau, lq)
	return lq
}

// Keep keeps lq as the density at x and tau.
func (j *Proposal) Keep(x []float64, tau, lq float64) {
	copy(j.at, x)
	j.atTau, j.atLQ = tau, lq
}

// LogQ is the log density of the mixture at temperature tau at x.
func (j *Proposal) LogQ(x []float64, tau float64) float64 {
	p := float64(len(x))
	st := math.Sqrt(tau)
	// Each part's log normalising constant, and the temperature's.
	gaussC := math.Log1p(-tailShare) - p/2*math.Log(2*math.Pi)
	cauchyC := math.Log(tailShare) - p*math.Log(math.Pi)
	tauC := p / 2 * math.Log(tau)
	for k, m := range j.means {
		for i := range x {
			j.z[i] = (x[i] - m[i]) / st
		}
		// z ← L_kᵀ(x − m_k)/√τ: standard normal under the Gaussian part,
		// standard Cauchy in each coordinate under the defensive part.
		blas64.Trmv(blas.Trans, j.chol[k], blas64.Vector{N: len(x), Data: j.z, Inc: 1})
		// Σ log(1 + z_i²) as the log of a product, one logarithm for the
		// many (they were most of a jump's cost), flushed before it could
		// overflow.
		var gauss, cauchy float64
		prod := 1.0
		for _, v := range j.z {
			gauss -= v * v / 2
			if prod *= 1 + v*v; prod > 1e150 {
				cauchy -= math.Log(prod)
				prod = 1
			}
		}
		cauchy -= math.Log(prod)
		gauss += gaussC
		cauchy += cauchyC
		both := math.Max(gauss, cauchy)
		if !math.IsInf(both, -1) { // −∞ far out in both parts: no NaN
			both += math.Log1p(math.Exp(-math.Abs(gauss - cauchy)))
		}
		j.lq[k] = j.logW[k] + j.logDet[k] - tauC + both
	}
	return floats.LogSumExp(j.lq)
}

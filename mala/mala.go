// Package mala is the Metropolis-adjusted Langevin algorithm with full
// gradients: the exact reference sampler against which the stochastic
// gradient samplers are measured on posteriors without a closed form.
//
// A proposal is a Langevin step θ' = θ − h∇U(θ) + √(2h)ξ, accepted with the
// Metropolis–Hastings probability min(1, e^{U(θ)−U(θ')} q(θ|θ')/q(θ'|θ)),
// q(θ'|θ) ∝ exp(−|θ' − θ + h∇U(θ)|²/(4h)); the chain targets exp(−U)
// exactly for every h. Ill-conditioned targets are preconditioned by running
// the chain in coordinates z with θ = m + Lz (see Affine).
package mala

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
)

// Config is a run: the step h (the initial one when adapting), burn-in,
// retained samples, thinning and the seed of the chain's random stream.
type Config struct {
	Step             float64
	Burn, Keep, Thin int
	Seed             uint64
	// Adapt tunes h during burn-in towards the acceptance rate 0.574 (the
	// optimal rate of MALA in high dimension; Roberts & Rosenthal 1998).
	// The step is fixed after burn-in, so the retained chain is an exact
	// Markov chain.
	Adapt bool
}

// Result is a run's samples and what it cost.
type Result struct {
	P       int
	Samples []float64 // sample i is Samples[i*P:(i+1)*P]
	// Accept is the acceptance rate after burn-in, Step the h used then.
	Accept, Step float64
	// Evals counts evaluations of U and of ∇U (one each per step, plus one
	// each at the start): each is a full pass over the data for a posterior.
	Evals int
}

// Run samples exp(−U) from init.
func Run(e energy.Energy, init []float64, c Config) (Result, error) {
	p := e.Dim()
	switch {
	case len(init) != p:
		return Result{}, fmt.Errorf("mala: initial state has dimension %d, the energy %d", len(init), p)
	case !(c.Step > 0) || math.IsInf(c.Step, 0):
		return Result{}, fmt.Errorf("mala: step h = %v must be positive and finite", c.Step)
	case c.Burn < 0 || c.Keep < 1 || c.Thin < 1:
		return Result{}, fmt.Errorf("mala: burn-in %d, keep %d, thin %d: need burn ≥ 0, keep ≥ 1, thin ≥ 1", c.Burn, c.Keep, c.Thin)
	}
	rng := rand.New(rand.NewPCG(c.Seed, 0))
	x := append([]float64(nil), init...)
	gx := make([]float64, p)
	y := make([]float64, p)
	gy := make([]float64, p)
	ux := energy.UGrad(e, gx, x)
	if math.IsNaN(ux) || math.IsInf(ux, 0) {
		return Result{}, errors.New("mala: the energy is not finite at the initial state")
	}
	res := Result{P: p, Samples: make([]float64, 0, c.Keep*p), Evals: 1}
	h := c.Step
	var acc int
	total := c.Burn + c.Keep*c.Thin
	for k := 1; k <= total; k++ {
		s := math.Sqrt(2 * h)
		for j := range y {
			y[j] = x[j] - h*gx[j] + s*rng.NormFloat64()
		}
		uy := energy.UGrad(e, gy, y)
		res.Evals++
		// log q(x|y) − log q(y|x), each −|to − from + h∇U(from)|²/(4h).
		var fwd, bwd float64
		for j := range y {
			a := y[j] - x[j] + h*gx[j]
			b := x[j] - y[j] + h*gy[j]
			fwd += a * a
			bwd += b * b
		}
		logA := ux - uy - (bwd-fwd)/(4*h)
		ok := !math.IsNaN(logA) && (logA >= 0 || -rng.ExpFloat64() < logA)
		if ok {
			copy(x, y)
			copy(gx, gy)
			ux = uy
		}
		if k <= c.Burn {
			if c.Adapt {
				// Robbins–Monro on log h with gain k^−0.6.
				a := 0.0
				if ok {
					a = 1
				}
				h *= math.Exp((a - 0.574) / math.Pow(float64(k), 0.6))
			}
			continue
		}
		if ok {
			acc++
		}
		if (k-c.Burn)%c.Thin == 0 {
			res.Samples = append(res.Samples, x...)
		}
	}
	res.Step = h
	res.Accept = float64(acc) / float64(c.Keep*c.Thin)
	return res, nil
}

// Affine is the energy of z with θ = M + Lz, Ũ(z) = U(M + Lz) and
// ∇Ũ(z) = Lᵀ∇U(M + Lz), L lower triangular p×p row-major. With LLᵀ close
// to the target's covariance the chain in z sees a near-isotropic target.
type Affine struct {
	E    energy.Energy
	M, L []float64
	th   []float64
	g    []float64
}

// NewAffine wraps e; m and l are not copied.
func NewAffine(e energy.Energy, m, l []float64) *Affine {
	p := e.Dim()
	if len(m) != p || len(l) != p*p {
		panic("mala: affine map of the wrong size")
	}
	return &Affine{E: e, M: m, L: l, th: make([]float64, p), g: make([]float64, p)}
}

// Dim is p.
func (a *Affine) Dim() int { return len(a.M) }

// Theta writes θ = M + Lz into theta.
func (a *Affine) Theta(theta, z []float64) {
	p := len(a.M)
	for i := 0; i < p; i++ {
		s := a.M[i]
		for j := 0; j <= i; j++ {
			s += a.L[i*p+j] * z[j]
		}
		theta[i] = s
	}
}

// U is Ũ(z).
func (a *Affine) U(z []float64) float64 {
	a.Theta(a.th, z)
	return a.E.U(a.th)
}

// Grad writes ∇Ũ(z) = Lᵀ∇U(θ).
func (a *Affine) Grad(grad, z []float64) {
	a.Theta(a.th, z)
	a.E.Grad(a.g, a.th)
	a.pull(grad)
}

// UGrad is Ũ(z) and ∇Ũ(z) in one pass when the energy offers one.
func (a *Affine) UGrad(grad, z []float64) float64 {
	a.Theta(a.th, z)
	u := energy.UGrad(a.E, a.g, a.th)
	a.pull(grad)
	return u
}

// pull writes Lᵀ times the gradient in a.g into grad.
func (a *Affine) pull(grad []float64) {
	p := len(a.M)
	for j := 0; j < p; j++ {
		var s float64
		for i := j; i < p; i++ {
			s += a.L[i*p+j] * a.g[i]
		}
		grad[j] = s
	}
}

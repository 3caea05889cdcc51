package models

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
)

// ThinnedSlabMove is SlabMove with the data sum read through a second-order
// expansion about a point near the posterior (energy.Expansion), so that a
// sweep costs O(p²) and a few examples, not passes over all N of them. Each
// coefficient j is drawn as in SlabMove, from
//
//	q_j(b) = ½·N(b; 0, s0²) + ½·N(b; m_j, (c·v_j)²)   (the intercept: the second alone),
//
// but with m_j and v_j² the mode and inverse curvature of the coefficient's
// conditional under the expansion's quadratic and the slab (exact for a
// Gaussian likelihood, and within O(1/√N) of SlabMove's Newton fit), and
// accepted by a factorised Metropolis test (Cornish et al. 2019): one factor
// for the prior, the proposal and the quadratic's part of the likelihood,
// computed exactly in O(1), and one for each example's remainder, all drawn
// at once by Expansion.Thin on the few examples its Poisson events pick.
// The product of the factors keeps detailed balance as the single
// Metropolis factor does, so the sweep keeps the power posterior
// exp(−λ·Σ_i U_i(θ) − U_0(θ)) exactly, whatever the expansion point; the
// point sets only the cost. Where a proposal's events would cost more than
// two passes (a state far from the point), the test reads every example
// instead; the choice depends on the pair of states alone (Expansion.Rate
// is symmetric), so each test keeps detailed balance on its own. A
// thinning bound found violated (Expansion.Thin) stops the kernel: the
// sweep leaves the state where the failed test found it, Err says why, and
// every later sweep does nothing (exchange.FallibleKernel). Not safe for
// concurrent use: give each chain its own (the expansion may be shared).
type ThinnedSlabMove struct {
	l      *Logistic
	e      *energy.Expansion
	lambda float64
	y      []float64 // the proposed state
	err    error
}

// thinEventCost is the example scores a thinning event reads: at both
// states and at the expansion point.
const thinEventCost = 3

// NewThinnedSlabMove returns the thinned kernel of l's power posterior at
// lambda ∈ (0, 1], l's data expanded by e (l must have the spike-and-slab
// prior).
func (l *Logistic) NewThinnedSlabMove(e *energy.Expansion, lambda float64) *ThinnedSlabMove {
	return &ThinnedSlabMove{l: l, e: e, lambda: lambda, y: make([]float64, l.P)}
}

// Step is one sweep over the coefficients, intercept included. Its cost,
// in example-gradient equivalents as SlabMove's, is the examples its
// events read (three scores each), the fallbacks' passes, and 2p² + p
// multiply-adds a coefficient for the expansion's radii and conditional
// (2p + 1 units).
func (k *ThinnedSlabMove) Step(theta []float64, rng *rand.Rand) (bool, float64) {
	if k.err != nil {
		return false, 0
	}
	l, e, lam := k.l, k.e, k.lambda
	p, N := float64(l.P), float64(len(l.Y))
	copy(k.y, theta)
	moved := false
	var cost float64
	s0 := l.Slab.Spike
	for j, b := range theta {
		spike := j != l.Intercept
		prec := l.slabPrec(j)
		a, h := e.Coord(j, theta)
		q := coefProposal{spike: spike, m: -lam * a / (lam*h + prec), sd: slabMoveWiden / math.Sqrt(lam*h+prec), s0: s0}
		nb := q.draw(rng)
		k.y[j] = nb
		u0, _ := l.coefPrior(j, b)
		u1, _ := l.coefPrior(j, nb)
		rest := u0 - u1 + q.logPDF(b) - q.logPDF(nb) // all but the likelihood's
		cost += 2*p + 1
		var accept bool
		if in := e.Intensity(lam, theta, k.y); thinEventCost*in*e.Weight() > 2*N {
			accept = math.Log(rng.Float64()) < lam*k.dataDiff(theta, k.y)+rest
			cost += 2 * N
		} else if quad := a*(b-nb) + 0.5*h*(b-nb)*(b+nb); math.Log(rng.Float64()) < lam*quad+rest {
			// The remainders' factors only where the first passed: the
			// test accepts when both do, and they are drawn independently.
			pass, n, err := e.ThinAt(rng, lam, in, theta, k.y)
			accept = pass
			cost += thinEventCost * float64(n)
			if err != nil {
				k.y[j] = b
				k.err = fmt.Errorf("thinned spike-and-slab sweep at λ = %v, coefficient %d: %w", lam, j, err)
				return moved, cost
			}
		}
		if !accept {
			k.y[j] = b
			continue
		}
		theta[j], moved = nb, true
	}
	return moved, cost
}

// dataDiff is Σ_i [U_i(x) − U_i(y)], read from every example.
func (k *ThinnedSlabMove) dataDiff(x, y []float64) float64 {
	var d float64
	for i := range k.l.Y {
		row := k.l.Row(i)
		fx, _, _ := k.l.Derivs(i, dot(row, x))
		fy, _, _ := k.l.Derivs(i, dot(row, y))
		d += fx - fy
	}
	return d
}

// Lambda is the kernel's power of the likelihood (exchange.PowerKernel).
func (k *ThinnedSlabMove) Lambda() float64 { return k.lambda }

// Err is the failure that stopped the kernel's sweeps, nil while there is
// none (exchange.FallibleKernel).
func (k *ThinnedSlabMove) Err() error { return k.err }

// SwapLogRatio decides a swap of x at this level with y at a hotter level
// of power lambdaHot (exchange.PowerKernel), whose log S is
// c·Σ_i [U_i(x) − U_i(y)], c = λ − λ_hot, by the same factorised test as a
// sweep's: the quadratic's factor c·[Q(x) − Q(y)] as the log-ratio returned,
// the remainders' factors drawn by Expansion.Thin (−∞ when one fails), or,
// where its events would cost more than two passes, the exact log S. A
// thinning bound found violated, or an intensity that is not a number, is
// Expansion.Thin's error.
func (k *ThinnedSlabMove) SwapLogRatio(rng *rand.Rand, lambdaHot float64, x, y []float64) (lr, cost float64, err error) {
	c, e := k.lambda-lambdaHot, k.e
	p, N := float64(k.l.P), float64(len(k.l.Y))
	in := e.Intensity(c, x, y)
	if thinEventCost*in*e.Weight() > 2*N {
		return c * k.dataDiff(x, y), 2 * N, nil
	}
	pass, n, err := e.ThinAt(rng, c, in, x, y)
	cost = thinEventCost*float64(n) + 3*p // the radii and the quadratic's p² each
	if err != nil {
		return math.NaN(), cost, fmt.Errorf("thinned spike-and-slab swap at λ = %v and %v: %w", k.lambda, lambdaHot, err)
	}
	if !pass {
		return math.Inf(-1), cost, nil
	}
	return c * e.QuadDiff(x, y), cost, nil
}

// ThinnedSlabPays predicts whether ThinnedSlabMove's sweep costs less than
// SlabMove's on l's data expanded by e: a coefficient's test is predicted
// at thinEventCost·MeanRate(1, 1, 1) example scores (both states drawn
// from the Laplace approximation at the point) plus 2p + 1 for the
// expansion's arithmetic, against SlabMove's 5N/p a coefficient. High-leverage rows
// make the expansion's remainder bounds, and so its events, large: on
// wdbc's 569 rows the prediction is 16,700 against 259, and every test
// would read all the examples, while on generated data of 2,000 rows it is
// 165 against 909.
func (l *Logistic) ThinnedSlabPays(e *energy.Expansion) bool {
	thinned, every := l.ThinnedSlabCost(e)
	return thinned < every
}

// ThinnedSlabCost is the prediction ThinnedSlabPays compares: a
// coefficient's test through e, and SlabMove's, in example scores.
func (l *Logistic) ThinnedSlabCost(e *energy.Expansion) (thinned, every float64) {
	p, N := float64(l.P), float64(len(l.Y))
	return thinEventCost*e.MeanRate(1, 1, 1) + 2*p + 1, 5 * N / p
}

package models

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// MaxSlabExactDim is the most spike-and-slab coefficients (besides the
// intercept) SlabExact enumerates: 2^12 = 4096 patterns, each a few
// gradient passes and one or two Hessians, O(N·p²). Measured at q = 10
// (bench/slabref, on a shared two-core machine): the Laplace half 0.6–1 s
// at N = 569, 5 s at 10⁴, 140 s at 10⁵; the importance draws, one pass
// each, 2 s, 15 s and 290 s.
const MaxSlabExactDim = 12

// SlabExact is the reference posterior of a spike-and-slab logistic
// regression (NewSlabLogistic) with q ≤ MaxSlabExactDim coefficients in the
// spike-and-slab.
//
// Given the inclusion pattern γ the prior is N(0, D_γ), D_γ diagonal with
// s1² or s0² per coefficient (σ₀² for the intercept), so
//
//	p(γ | y) ∝ Π_j w^γ_j (1 − w)^(1 − γ_j) · Z_γ,   Z_γ = ∫ L(θ) N(θ; 0, D_γ) dθ,
//
// and every integrand L(θ)N(θ; 0, D_γ) is log-concave (the logistic
// likelihood is log-concave, the Gaussian prior too): it has one mode, found
// by Newton's method, and its Laplace approximation is close. For each
// pattern (enumerated in Gray-code order, so that each differs from the one
// before in one coefficient and Newton starts from that pattern's mode with
// its Hessian: a few gradient passes, then one exact Hessian at the mode for
// the Laplace determinant) this gives log Z_γ by Laplace. Then, for the
// heaviest patterns that hold all but slabISLeft of the Laplace weight,
// importance sampling with a multivariate Student-t proposal (ν = 5) centred
// at the mode, scaled by the inverse Hessian, corrects Laplace: Ẑ_γ is the
// mean importance weight. The t's tails are heavier than the integrand's
// (whose log is concave, falling at least quadratically away from the mode),
// so the weights are bounded and their variance finite: the estimates are
// unbiased and their standard errors, from the weights' spread, are
// measured, not assumed.
//
// Why it is accurate: (1) each Z_γ is an integral of a log-concave function
// estimated by importance sampling whose error is measured (the MCSEs below
// are delta-method propagations of every IS pattern's weights' spread into
// the inclusion probabilities, means, sds and pattern weights, which are
// ratios of sums over the patterns); (2) what is neglected is the IS of the
// light patterns, which enter with their Laplace weight, mode and Laplace
// sds: together they hold Light of the weight (≤ slabISLeft of the Laplace
// weight, about 10⁻⁴), so whatever Laplace's error on them, it moves an
// inclusion probability by less than Light; (3) the enumeration is
// complete: no pattern is left out. It is checked against brute-force
// quadrature on a grid (logistic_slab_exact_test.go).
type SlabExact struct {
	P                      int       // coefficients, the intercept among them
	Intercept              int       // the coefficient not in the spike-and-slab (−1: none)
	Mean, SD, Inclusion    []float64 // per coefficient (the intercept's inclusion is 1)
	MeanSE, SDSE, InclSE   []float64 // their Monte Carlo standard errors
	Patterns               []LinRegPattern
	PatternSE              []float64 // the standard errors of Patterns' weights
	Enumerated, Sampled    int       // patterns enumerated; patterns importance-sampled
	Light                  float64   // the weight of the patterns left at their Laplace approximation
	Draws                  int       // the importance draws' budget, shared by the sampled patterns in proportion to their Laplace weights
	ISDraws                int       // importance draws made (each a pass over the data)
	LaplaceTime, ISTime    time.Duration
	NewtonPasses, Hessians int // full passes over the data: gradients, Hessians
	Patterns99             int // the fewest heaviest patterns holding 99% of the weight
	draws                  []slabDraw
	qOnce                  sync.Once
	sorted                 [][]slabDraw // per coefficient, the draws sorted by value
}

// slabDraw is one importance draw of one coefficient with its normalised
// weight in the whole mixture.
type slabDraw struct{ v, w float64 }

// slabISLeft is the Laplace weight left to the patterns that are not
// importance-sampled.
const slabISLeft = 1e-4

// slabNu is the degrees of freedom of the Student-t proposal: heavy enough
// tails to bound the weights, light enough that few draws are wasted.
const slabNu = 5

// SlabExactDraws is the default budget of importance draws. Pattern γ
// takes a share of it proportional to its Laplace weight π_γ, at least
// slabMinDraws: an estimate's variance is Σ_γ π_γ²·v_γ/M_γ (v_γ the relative
// variance of γ's weights, near 1 for a log-concave integrand), which for a
// fixed total is least at M_γ ∝ π_γ, where it is v/budget. With 20000, an
// inclusion probability's MCSE is about 0.005·√v.
const SlabExactDraws = 20000

// slabMinDraws are the fewest draws of a sampled pattern: enough for its
// weights' spread, and so the standard errors, to mean something.
const slabMinDraws = 100

// SlabExact computes the reference posterior with a budget of draws
// importance draws (0: SlabExactDraws), from the PCG stream seed.
func (l *Logistic) SlabExact(draws int, seed uint64) (*SlabExact, error) {
	if l.slab == nil {
		return nil, errors.New("reference posterior: the model has the normal prior, not a spike-and-slab")
	}
	p := l.P
	var free []int
	for j := range p {
		if j != l.Intercept {
			free = append(free, j)
		}
	}
	q := len(free)
	if q > MaxSlabExactDim {
		return nil, fmt.Errorf("reference posterior: %d spike-and-slab coefficients; the enumeration of 2^q inclusion patterns is limited to q ≤ %d", q, MaxSlabExactDim)
	}
	if draws <= 0 {
		draws = SlabExactDraws
	}
	e := &SlabExact{P: p, Intercept: l.Intercept, Enumerated: 1 << q, Draws: draws}
	start := time.Now()
	pats, err := l.slabLaplace(e, free)
	if err != nil {
		return nil, err
	}
	e.LaplaceTime = time.Since(start)
	start = time.Now()
	if err := l.slabIS(e, pats, free, seed); err != nil {
		return nil, err
	}
	e.ISTime = time.Since(start)
	return e, nil
}

// slabIS importance-samples the heaviest patterns and combines every
// pattern into the mixture's moments, inclusion probabilities and pattern
// weights with their standard errors.
func (l *Logistic) slabIS(e *SlabExact, pats []slabPattern, free []int, seed uint64) error {
	p, q := l.P, len(free)
	slices.SortFunc(pats, func(a, b slabPattern) int { return cmp.Compare(b.logA+b.logZ, a.logA+a.logZ) })
	top := pats[0].logA + pats[0].logZ
	var lapTotal float64
	for _, pt := range pats {
		lapTotal += math.Exp(pt.logA + pt.logZ - top)
	}
	nIS := 0
	for cum := 0.0; nIS < len(pats) && cum < (1-slabISLeft)*lapTotal; nIS++ {
		cum += math.Exp(pats[nIS].logA + pats[nIS].logZ - top)
	}
	e.Sampled = nIS
	draws := func(k int) int { // pattern k's share of the budget
		pi := math.Exp(pats[k].logA+pats[k].logZ-top) / lapTotal
		return min(e.Draws, max(slabMinDraws, int(math.Ceil(pi*float64(e.Draws)))))
	}
	// Per pattern, its estimated weight a_γẐ_γ (relative to e^top) and,
	// for IS patterns, the draws and their weights on the same scale
	// divided by their number M, so that they sum to its weight.
	type isPattern struct {
		weight float64
		theta  []float64 // M×p draws
		w      []float64 // M weights
	}
	rng := rand.New(rand.NewPCG(seed, 0x51ab))
	lgam := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	pf := float64(p)
	tConst := lgam((slabNu+pf)/2) - lgam(slabNu/2.0) - pf/2*math.Log(slabNu*math.Pi)
	s := &slabSolver{l: l, p: p}
	z, delta := make([]float64, p), make([]float64, p)
	ws := make([]isPattern, len(pats))
	for k, pt := range pats {
		base := pt.logA + pt.logZ - top
		if k >= nIS {
			ws[k].weight = math.Exp(base)
			continue
		}
		s.prec = pt.prec
		// log f(θ) − log q(θ) − log Z_L, with log Z_L = −E(θ̂) + ½Σlog d − ½log|H|:
		// the ½Σlog d and (p/2)log 2π of f cancel against Z_L's and q's.
		var halfLogPrec float64
		for _, v := range pt.prec {
			halfLogPrec += 0.5 * math.Log(v)
		}
		logNorm := halfLogPrec - pf/2*math.Log(2*math.Pi) - (tConst + pt.logdH) - pt.logZ
		u := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: p, Stride: p, Data: pt.chol}
		M := draws(k)
		e.ISDraws += M
		ip := isPattern{theta: make([]float64, M*p), w: make([]float64, M)}
		var sum float64
		for i := range M {
			var c, r2 float64
			for range slabNu {
				v := rng.NormFloat64()
				c += v * v
			}
			scale := math.Sqrt(slabNu / c)
			for j := range z {
				z[j] = rng.NormFloat64() * scale
				r2 += z[j] * z[j]
			}
			copy(delta, z)
			blas64.Trsv(blas.NoTrans, u, blas64.Vector{N: p, Inc: 1, Data: delta}) // U δ = z: Cov δ = H⁻¹ (times the t's)
			th := ip.theta[i*p : (i+1)*p]
			for j := range th {
				th[j] = pt.mode[j] + delta[j]
			}
			lw := -s.energy(nil, th) + logNorm + (slabNu+pf)/2*math.Log1p(r2/slabNu)
			ip.w[i] = math.Exp(base + lw)
			if math.IsNaN(ip.w[i]) || math.IsInf(ip.w[i], 0) {
				return fmt.Errorf("reference posterior: inclusion pattern %0*b: importance weight %v", q, pt.mask, ip.w[i])
			}
			sum += ip.w[i]
		}
		for i := range ip.w {
			ip.w[i] /= float64(M)
		}
		ip.weight = sum / float64(M)
		ws[k] = ip
	}
	var S float64
	for _, ip := range ws {
		S += ip.weight
	}
	// The mixture's moments: IS patterns through their draws, the rest
	// through their Laplace normals.
	e.Mean, e.SD, e.Inclusion = make([]float64, p), make([]float64, p), make([]float64, p)
	second := make([]float64, p)
	for k, pt := range pats {
		ip := ws[k]
		if k >= nIS {
			e.Light += ip.weight / S
			for j := range p {
				m, v := pt.mode[j], laplaceVar(pt.chol, p, j)
				e.Mean[j] += ip.weight / S * m
				second[j] += ip.weight / S * (v + m*m)
			}
		} else {
			for i, w := range ip.w {
				th := ip.theta[i*p : (i+1)*p]
				for j, t := range th {
					e.Mean[j] += w / S * t
					second[j] += w / S * t * t
				}
			}
		}
		for b, j := range free {
			if pt.mask>>b&1 == 1 {
				e.Inclusion[j] += ip.weight / S
			}
		}
	}
	if l.Intercept >= 0 {
		e.Inclusion[l.Intercept] = 1
	}
	for j := range p {
		e.SD[j] = math.Sqrt(max(0, second[j]-e.Mean[j]*e.Mean[j]))
	}
	// Standard errors by the delta method: each estimate is a ratio of
	// sums over patterns of IS means, so it moves by Σ_draws of each draw's
	// influence (weight/S)·(h(draw) − estimate), independent across
	// patterns; its variance is Σ_patterns M·Var_i(influence_i).
	e.MeanSE, e.SDSE, e.InclSE = make([]float64, p), make([]float64, p), make([]float64, p)
	infl := make([]float64, e.Draws)
	varOf := func(x []float64) float64 {
		var m, s2 float64
		for _, v := range x {
			m += v
		}
		m /= float64(len(x))
		for _, v := range x {
			s2 += (v - m) * (v - m)
		}
		return float64(len(x)) * s2 / float64(len(x)-1)
	}
	// The patterns, heaviest first by their estimated weights (IS can
	// reorder Laplace's); the SEs of the heaviest nPat.
	order := make([]int, len(pats))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ws[b].weight, ws[a].weight) })
	nPat := min(len(pats), maxPatterns)
	patSE := make([]float64, nPat)
	for k := range nIS {
		ip := ws[k]
		infl := infl[:len(ip.w)]
		for j := range p {
			for i, w := range ip.w {
				infl[i] = w / S * (ip.theta[i*p+j] - e.Mean[j])
			}
			e.MeanSE[j] += varOf(infl)
			if e.SD[j] > 0 {
				for i, w := range ip.w {
					d := ip.theta[i*p+j] - e.Mean[j]
					infl[i] = w / S * (d*d - e.SD[j]*e.SD[j]) / (2 * e.SD[j])
				}
				e.SDSE[j] += varOf(infl)
			}
		}
		for b, j := range free {
			g := float64(pats[k].mask >> b & 1)
			for i, w := range ip.w {
				infl[i] = w / S * (g - e.Inclusion[j])
			}
			e.InclSE[j] += varOf(infl)
		}
		for r, kk := range order[:nPat] {
			pk := ws[kk].weight / S
			g := 0.0
			if kk == k {
				g = 1
			}
			for i, w := range ip.w {
				infl[i] = w / S * (g - pk)
			}
			patSE[r] += varOf(infl)
		}
	}
	for j := range p {
		e.MeanSE[j], e.SDSE[j], e.InclSE[j] = math.Sqrt(e.MeanSE[j]), math.Sqrt(e.SDSE[j]), math.Sqrt(e.InclSE[j])
	}
	var cum float64
	for _, k := range order {
		if cum < 0.99 {
			e.Patterns99++
		}
		cum += ws[k].weight / S
	}
	for r, k := range order[:nPat] {
		inc := make([]bool, p)
		for b, j := range free {
			inc[j] = pats[k].mask>>b&1 == 1
		}
		if l.Intercept >= 0 {
			inc[l.Intercept] = true
		}
		e.Patterns = append(e.Patterns, LinRegPattern{Include: inc, Weight: ws[k].weight / S})
		e.PatternSE = append(e.PatternSE, math.Sqrt(patSE[r]))
	}
	// The pooled draws for the quantiles, each weighted by its share.
	for k := range nIS {
		for i, w := range ws[k].w {
			for j := range p {
				e.draws = append(e.draws, slabDraw{ws[k].theta[i*p+j], w / S})
			}
		}
	}
	return nil
}

// laplaceVar is (H⁻¹)_jj from H's upper Cholesky factor U (H = UᵀU):
// |U⁻ᵀe_j|².
func laplaceVar(chol []float64, p, j int) float64 {
	x := make([]float64, p)
	x[j] = 1
	blas64.Trsv(blas.Trans, blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: p, Stride: p, Data: chol}, blas64.Vector{N: p, Inc: 1, Data: x})
	return dot(x, x)
}

// Quantile is the q-quantile of θ_j from the importance-sampled patterns'
// weighted draws (the light patterns, Light of the weight, left out).
func (e *SlabExact) Quantile(j int, q float64) float64 {
	e.qOnce.Do(func() {
		e.sorted = make([][]slabDraw, e.P)
		for k, d := range e.draws {
			e.sorted[k%e.P] = append(e.sorted[k%e.P], d)
		}
		for _, s := range e.sorted {
			slices.SortFunc(s, func(a, b slabDraw) int { return cmp.Compare(a.v, b.v) })
		}
	})
	s := e.sorted[j]
	var total float64
	for _, d := range s {
		total += d.w
	}
	var cum float64
	for _, d := range s {
		cum += d.w
		if cum >= q*total {
			return d.v
		}
	}
	return math.NaN()
}

// Moments are θ_j's mean, sd and inclusion probability.
func (e *SlabExact) Moments(j int) (mean, sd, inclusion float64) {
	return e.Mean[j], e.SD[j], e.Inclusion[j]
}

// MomentsSE are the Monte Carlo standard errors of Moments.
func (e *SlabExact) MomentsSE(j int) (mean, sd, inclusion float64) {
	return e.MeanSE[j], e.SDSE[j], e.InclSE[j]
}

// Heaviest are the heaviest inclusion patterns, heaviest first.
func (e *SlabExact) Heaviest() []LinRegPattern { return e.Patterns }

// HeaviestSE are the standard errors of Heaviest's weights.
func (e *SlabExact) HeaviestSE() []float64 { return e.PatternSE }

// Heading describes the reference, for the table's first line.
func (e *SlabExact) Heading() string {
	return fmt.Sprintf("reference posterior (%d inclusion patterns by Laplace, the heaviest %d importance-sampled, %d draws; the rest, %.2g of the weight, at Laplace; ± its Monte Carlo errors)", e.Enumerated, e.Sampled, e.ISDraws, e.Light)
}

// Cost is the reference's cost in one line.
func (e *SlabExact) Cost() string {
	return fmt.Sprintf("reference: %d patterns by Laplace in %.2fs (%d passes over the data, %d Hessians), %d importance-sampled in %.2fs (%d draws, a pass each); the rest hold %.2g of the weight",
		e.Enumerated, e.LaplaceTime.Seconds(), e.NewtonPasses, e.Hessians, e.Sampled, e.ISTime.Seconds(), e.ISDraws, e.Light)
}

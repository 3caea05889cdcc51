package models

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// MaxExactDim is the largest p for which LinRegExact enumerates the 2^p
// inclusion patterns: 2^20 ≈ 10⁶ Cholesky factorisations of p×p, seconds.
const MaxExactDim = 20

// LinRegExact is the exact posterior of a LinReg with its σ fixed.
//
// Given the inclusion pattern γ (γ_j = 1: β_j from the slab), the prior is
// N(0, D_γ), D_γ = diag(v_j), v_j = s1² or s0², and the likelihood is
// Gaussian, so β | γ, y ~ N(m_γ, A_γ⁻¹) with
//
//	A_γ = XᵀX/σ² + D_γ⁻¹,   m_γ = A_γ⁻¹ Xᵀy/σ²,
//
// and integrating β out gives the pattern's weight
//
//	log π_γ = Σ_j log(w or 1 − w) − ½ Σ_j log v_j − ½ log|A_γ| + ½ bᵀm_γ + const,
//
// b = Xᵀy/σ² (the constant, common to every γ, holds y'y/σ² and N log σ).
// The posterior of β is the mixture Σ_γ π_γ N(m_γ, A_γ⁻¹): its moments are
// the weighted moments of the components, the inclusion probability of
// coefficient j is Σ_γ π_γ γ_j, and the marginal CDF of β_j is
// Σ_γ π_γ Φ((x − m_γj)/√(A_γ⁻¹)_jj), from which the quantiles come by
// bisection. Everything depends on the data only through XᵀX and Xᵀy.
type LinRegExact struct {
	P                     int
	Mean, SD, Inclusion   []float64
	Patterns              []LinRegPattern // the heaviest maxPatterns, heaviest first
	comps                 []component     // the patterns kept for the CDF
	lo, hi                []float64       // per coefficient, a bracket of every quantile
	Enumerated, Neglected int             // patterns enumerated; patterns whose weight is below exactCut of the largest (left out of Patterns and the CDF)
}

// LinRegPattern is an inclusion pattern and its posterior weight.
type LinRegPattern struct {
	Include []bool
	Weight  float64
}

type component struct {
	w      float64
	mean   []float64
	sd     []float64
	inSlab uint32
}

// exactCut is the log weight, below the largest, under which a pattern is
// left out of the mixture's moments and CDF: e^−50 ≈ 2·10⁻²² of the
// heaviest, so that even 2^20 such patterns hold less than 10⁻¹⁵ of the
// mass.
const exactCut = 50

// maxPatterns is the number of heaviest patterns LinRegExact lists.
const maxPatterns = 32

// Exact computes the exact posterior from the model's data (O(Np²) for XᵀX,
// then the enumeration). It refuses p > MaxExactDim.
func (l *LinReg) Exact() (*LinRegExact, error) {
	p := l.P
	xtx, xty := make([]float64, p*p), make([]float64, p)
	for i := range l.Y {
		x := l.Row(i)
		for j, a := range x {
			xty[j] += a * l.Y[i]
			row := xtx[j*p : (j+1)*p]
			for k := j; k < p; k++ {
				row[k] += a * x[k]
			}
		}
	}
	for j := range p {
		for k := range j {
			xtx[j*p+k] = xtx[k*p+j]
		}
	}
	return NewLinRegExact(xtx, xty, p, l.Sigma, l.Beta)
}

// NewLinRegExact computes the exact posterior from the sufficient
// statistics XᵀX (p×p, row-major) and Xᵀy, the noise sd and the prior.
func NewLinRegExact(xtx, xty []float64, p int, sigma float64, prior SlabPrior) (*LinRegExact, error) {
	if p < 1 || p > MaxExactDim {
		return nil, fmt.Errorf("exact posterior: %d coefficients; the enumeration of 2^p inclusion patterns is limited to p ≤ %d", p, MaxExactDim)
	}
	if len(xtx) != p*p || len(xty) != p {
		return nil, fmt.Errorf("exact posterior: XᵀX of %d values and Xᵀy of %d for p = %d", len(xtx), len(xty), p)
	}
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, fmt.Errorf("exact posterior: noise sd σ = %v must be positive and finite", sigma)
	}
	if err := prior.Validate(); err != nil {
		return nil, fmt.Errorf("exact posterior: %w", err)
	}
	inv2 := 1 / (sigma * sigma)
	b := make([]float64, p)
	for j, v := range xty {
		b[j] = v * inv2
	}
	// Per coefficient, the prior's log weight and −½ log v of slab (1) and
	// spike (0), and its precision 1/v.
	var lw, prec [2]float64
	lw[1], prec[1] = math.Log(prior.W)-math.Log(prior.Slab), 1/(prior.Slab*prior.Slab)
	if !prior.Normal() {
		lw[0], prec[0] = math.Log1p(-prior.W)-math.Log(prior.Spike), 1/(prior.Spike*prior.Spike)
	}
	masks := []uint32{1<<p - 1} // the normal prior: every coefficient in the slab
	if !prior.Normal() {
		masks = make([]uint32, 1<<p)
		for m := range masks {
			masks[m] = uint32(m)
		}
	}
	a := mat.NewSymDense(p, nil)
	var chol mat.Cholesky
	bv := mat.NewVecDense(p, b)
	mv := mat.NewVecDense(p, nil)
	// factor sets A_γ, factorises it and returns log π_γ (unnormalised)
	// with m_γ in mv.
	factor := func(mask uint32) (float64, error) {
		var l float64
		for j := range p {
			for k := j; k < p; k++ {
				a.SetSym(j, k, xtx[j*p+k]*inv2)
			}
			in := mask >> j & 1
			a.SetSym(j, j, a.At(j, j)+prec[in])
			l += lw[in]
		}
		if !chol.Factorize(a) {
			return 0, fmt.Errorf("exact posterior: the precision matrix of inclusion pattern %0*b is not positive definite (XᵀX has non-finite or negative values?)", p, mask)
		}
		if err := chol.SolveVecTo(mv, bv); err != nil {
			return 0, fmt.Errorf("exact posterior: pattern %0*b: %v", p, mask, err)
		}
		return l - 0.5*chol.LogDet() + 0.5*mat.Dot(bv, mv), nil
	}
	logw := make([]float64, len(masks))
	top := math.Inf(-1)
	for i, m := range masks {
		l, err := factor(m)
		if err != nil {
			return nil, err
		}
		if math.IsNaN(l) || math.IsInf(l, 0) {
			return nil, fmt.Errorf("exact posterior: pattern %0*b has log weight %v", p, m, l)
		}
		logw[i] = l
		top = max(top, l)
	}
	var total float64
	for _, l := range logw {
		total += math.Exp(l - top)
	}
	e := &LinRegExact{P: p, Mean: make([]float64, p), SD: make([]float64, p), Inclusion: make([]float64, p), Enumerated: len(masks)}
	second := make([]float64, p)
	var inv mat.SymDense
	for i, m := range masks {
		if logw[i] < top-exactCut {
			e.Neglected++
			continue
		}
		w := math.Exp(logw[i]-top) / total
		factor(m)
		if err := chol.InverseTo(&inv); err != nil {
			return nil, fmt.Errorf("exact posterior: pattern %0*b: %v", p, m, err)
		}
		c := component{w: w, mean: make([]float64, p), sd: make([]float64, p), inSlab: m}
		for j := range p {
			mu, v := mv.AtVec(j), inv.At(j, j)
			c.mean[j], c.sd[j] = mu, math.Sqrt(v)
			e.Mean[j] += w * mu
			second[j] += w * (v + mu*mu)
			if m>>j&1 == 1 {
				e.Inclusion[j] += w
			}
		}
		e.comps = append(e.comps, c)
	}
	e.lo, e.hi = make([]float64, p), make([]float64, p)
	for j := range p {
		e.SD[j] = math.Sqrt(max(0, second[j]-e.Mean[j]*e.Mean[j]))
		e.lo[j], e.hi[j] = math.Inf(1), math.Inf(-1)
		for _, c := range e.comps {
			// Every component's CDF is below 10⁻²³ at 10 sds below its
			// mean and above 1 − 10⁻²³ at 10 above: the quantiles of
			// interest lie between.
			e.lo[j] = min(e.lo[j], c.mean[j]-10*c.sd[j])
			e.hi[j] = max(e.hi[j], c.mean[j]+10*c.sd[j])
		}
	}
	slices.SortFunc(e.comps, func(x, y component) int {
		switch {
		case x.w > y.w:
			return -1
		case x.w < y.w:
			return 1
		}
		return 0
	})
	for _, c := range e.comps[:min(len(e.comps), maxPatterns)] {
		inc := make([]bool, p)
		for j := range inc {
			inc[j] = c.inSlab>>j&1 == 1
		}
		e.Patterns = append(e.Patterns, LinRegPattern{Include: inc, Weight: c.w})
	}
	return e, nil
}

// CDF is P(β_j ≤ x | y).
func (e *LinRegExact) CDF(j int, x float64) float64 {
	var s float64
	for _, c := range e.comps {
		s += c.w * 0.5 * math.Erfc(-(x-c.mean[j])/(c.sd[j]*math.Sqrt2))
	}
	return s
}

// Quantile is the q-quantile of β_j, found by bisection on the CDF, which
// is continuous and increasing: 200 halvings of the bracket (at most
// 20 + 10 component sds wide) or until the midpoint no longer moves, far
// below any sampler's error.
func (e *LinRegExact) Quantile(j int, q float64) float64 {
	lo, hi := e.lo[j], e.hi[j]
	for range 200 {
		mid := 0.5 * (lo + hi)
		if mid <= lo || mid >= hi {
			break
		}
		if e.CDF(j, mid) < q {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 0.5 * (lo + hi)
}

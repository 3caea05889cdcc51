package models

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// MaxExactDim is the largest p for which LinRegExact enumerates the 2^p
// inclusion patterns: at p = 20, 2^20 Cholesky factorisations and inverses
// of 20×20, about 6 s on one core, and each quantile about 0.2 s (a CDF
// evaluation is an erfc per pattern kept).
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
	comps                 []component     // the patterns kept for the CDF, heaviest first
	pdfN                  int             // PDF's patterns: comps[:pdfN]
	pdfOnce               sync.Once
	lo, hi                []float64 // per coefficient, a bracket of every quantile
	Enumerated, Neglected int       // patterns enumerated; patterns whose weight is below exactCut of the largest (left out of Patterns and the CDF)
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
	npat := 1 << p
	if prior.Normal() {
		npat = 1 // every coefficient in the slab
	}
	// LAPACK on one reused p×p array, not mat.Cholesky: the latter also
	// estimates a condition number per factorisation, which at p = 20
	// costs more than the factorisation, 2^20 times.
	a := make([]float64, p*p)
	sym := blas64.Symmetric{Uplo: blas.Upper, N: p, Stride: p, Data: a}
	mv := blas64.Vector{N: p, Inc: 1, Data: make([]float64, p)}
	e := &LinRegExact{P: p, Mean: make([]float64, p), SD: make([]float64, p), Inclusion: make([]float64, p), Enumerated: npat}
	// The weights are accumulated against the largest log weight so far,
	// top: a new top rescales the sums by e^(old − new). Components are
	// kept for the CDF while within exactCut of the running top, and
	// filtered again against the final one.
	top := math.Inf(-1)
	var total float64
	second := make([]float64, p)
	type raw struct {
		logw     float64
		mask     uint32
		mean, sd []float64
	}
	var kept []raw
	for k := range npat {
		mask := uint32(k)
		if prior.Normal() {
			mask = 1<<p - 1
		}
		var l float64
		for j := range p {
			copy(a[j*p+j:(j+1)*p], xtx[j*p+j:(j+1)*p])
			for i := j; i < p; i++ {
				a[j*p+i] *= inv2
			}
			in := mask >> j & 1
			a[j*p+j] += prec[in]
			l += lw[in]
		}
		u, ok := lapack64.Potrf(sym)
		if !ok {
			return nil, fmt.Errorf("exact posterior: the precision matrix of inclusion pattern %0*b is not positive definite (XᵀX has non-finite or negative values?)", p, mask)
		}
		var logdet float64
		for j := range p {
			logdet += 2 * math.Log(a[j*p+j])
		}
		copy(mv.Data, b)
		blas64.Trsv(blas.Trans, u, mv) // Uᵀz = b
		blas64.Trsv(blas.NoTrans, u, mv)
		var bm float64
		for j, v := range b {
			bm += v * mv.Data[j]
		}
		l += -0.5*logdet + 0.5*bm
		if math.IsNaN(l) || math.IsInf(l, 0) {
			return nil, fmt.Errorf("exact posterior: pattern %0*b has log weight %v", p, mask, l)
		}
		if l < top-exactCut {
			e.Neglected++
			continue
		}
		if l > top {
			r := math.Exp(top - l) // 0 at the first pattern
			total *= r
			for j := range p {
				e.Mean[j] *= r
				second[j] *= r
				e.Inclusion[j] *= r
			}
			top = l
		}
		w := math.Exp(l - top)
		total += w
		if _, ok := lapack64.Potri(u); !ok {
			return nil, fmt.Errorf("exact posterior: pattern %0*b: the precision matrix cannot be inverted", p, mask)
		}
		c := raw{logw: l, mask: mask, mean: make([]float64, p), sd: make([]float64, p)}
		for j := range p {
			mu, v := mv.Data[j], a[j*p+j]
			c.mean[j], c.sd[j] = mu, math.Sqrt(v)
			e.Mean[j] += w * mu
			second[j] += w * (v + mu*mu)
			if mask>>j&1 == 1 {
				e.Inclusion[j] += w
			}
		}
		kept = append(kept, c)
	}
	for j := range p {
		e.Mean[j] /= total
		e.Inclusion[j] /= total
		e.SD[j] = math.Sqrt(max(0, second[j]/total-e.Mean[j]*e.Mean[j]))
	}
	for _, c := range kept {
		if c.logw < top-exactCut {
			e.Neglected++
			continue
		}
		e.comps = append(e.comps, component{w: math.Exp(c.logw-top) / total, mean: c.mean, sd: c.sd, inSlab: c.mask})
	}
	e.lo, e.hi = make([]float64, p), make([]float64, p)
	for j := range p {
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

// Moments are β_j's mean, sd and inclusion probability.
func (e *LinRegExact) Moments(j int) (mean, sd, inclusion float64) {
	return e.Mean[j], e.SD[j], e.Inclusion[j]
}

// Heaviest are the heaviest inclusion patterns, heaviest first.
func (e *LinRegExact) Heaviest() []LinRegPattern { return e.Patterns }

// Heading describes the enumeration, for the table's first line.
func (e *LinRegExact) Heading() string {
	return fmt.Sprintf("exact posterior (σ fixed; %d inclusion patterns, %d below e^-50 of the heaviest left out)", e.Enumerated, e.Neglected)
}

// CDF is P(β_j ≤ x | y).
func (e *LinRegExact) CDF(j int, x float64) float64 {
	var s float64
	for _, c := range e.comps {
		s += c.w * 0.5 * math.Erfc(-(x-c.mean[j])/(c.sd[j]*math.Sqrt2))
	}
	return s
}

// Quantile is the q-quantile of β_j: Newton's method on the CDF, which
// is smooth and increasing, safeguarded by bisection of the bracket
// [lo, hi] (at most 20 + 10 component sds wide, every step keeping the
// root inside); it stops when a step moves x by less than 10⁻¹¹ of the
// bracket or the CDF is within 10⁻¹⁴ of q (a sum of up to 2^20 terms is
// not more accurate than that: a tighter test would never be met). A CDF evaluation costs one erfc per mixture component (2^p at
// most), so Newton's few iterations matter at p = 20.
func (e *LinRegExact) Quantile(j int, q float64) float64 {
	lo, hi := e.lo[j], e.hi[j]
	x := e.Mean[j]
	for range 200 {
		f, d := e.cdfPDF(j, x)
		if math.Abs(f-q) <= 1e-14 {
			return x
		}
		if f < q {
			lo = x
		} else {
			hi = x
		}
		nx := x - (f-q)/d
		if !(nx > lo && nx < hi) { // Newton left the bracket, or d = 0
			nx = 0.5 * (lo + hi)
		}
		if math.Abs(nx-x) <= 1e-11*(e.hi[j]-e.lo[j]) || nx == lo || nx == hi {
			return nx
		}
		x = nx
	}
	return x
}

// cdfPDF is the CDF and density of β_j at x.
func (e *LinRegExact) cdfPDF(j int, x float64) (f, d float64) {
	for _, c := range e.comps {
		z := (x - c.mean[j]) / c.sd[j]
		f += c.w * 0.5 * math.Erfc(-z/math.Sqrt2)
		d += c.w * math.Exp(-0.5*z*z) / (c.sd[j] * math.Sqrt(2*math.Pi))
	}
	return f, d
}

// pdfMass is the weight PDF's patterns hold together: the heaviest
// patterns up to all but 10⁻⁴ of the mixture, so that the density it
// draws is off by at most 10⁻⁴ of the tallest pattern's peak, below what
// a figure shows, at a fraction of the patterns (on US crime's 2^15, the
// figures took 1.6 CPU s with every pattern).
const pdfMass = 1 - 1e-4

// PDF is β_j's marginal density at x, for figures: the mixture of the
// heaviest patterns' normals holding pdfMass of the weight.
func (e *LinRegExact) PDF(j int, x float64) float64 {
	e.pdfOnce.Do(func() {
		var w float64
		for e.pdfN < len(e.comps) && w < pdfMass {
			w += e.comps[e.pdfN].w
			e.pdfN++
		}
	})
	var d float64
	for _, c := range e.comps[:e.pdfN] {
		z := (x - c.mean[j]) / c.sd[j]
		d += c.w * math.Exp(-0.5*z*z) / c.sd[j]
	}
	return d / math.Sqrt(2*math.Pi)
}

package models

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// The Laplace half of SlabExact: each inclusion pattern's mode, by Newton's
// method warm-started from the previous pattern's, and its Laplace weight.

// slabPattern is one pattern's Laplace approximation.
type slabPattern struct {
	mask  uint32
	logA  float64   // Σ_j log(w or 1 − w)
	logZ  float64   // Laplace log Z_γ (without the constants common to every pattern)
	mode  []float64 // the integrand's mode
	chol  []float64 // the Hessian's upper Cholesky factor at the mode, p×p
	prec  []float64 // D_γ⁻¹
	logdH float64   // ½ log|H|
}

// slabSolver holds a Newton solve's work space.
type slabSolver struct {
	l          *Logistic
	p          int
	g, gt, d   []float64
	trial      []float64
	hdata, a   []float64 // the likelihood's Hessian (upper), and Hessian + D_γ
	passes     int
	hessians   int
	prec       []float64
	hdataValid bool
}

// energy is E_γ(θ) = −log L(θ) + ½ Σ_j θ_j²/v_j and, unless grad is nil,
// its gradient: one pass over the data.
func (s *slabSolver) energy(grad, theta []float64) float64 {
	var u float64
	for j, t := range theta {
		u += 0.5 * s.prec[j] * t * t
		if grad != nil {
			grad[j] = s.prec[j] * t
		}
	}
	s.passes++
	return u + s.l.pass(grad, theta, true)
}

// dataHessian writes Σ_i σ_i(1 − σ_i) x_i x_iᵀ at θ into hdata (upper).
func (s *slabSolver) dataHessian(theta []float64) {
	clear(s.hdata)
	s.l.dataHessian(s.hdata, theta, nil, len(s.l.Y))
	s.hessians++
	s.hdataValid = true
}

// factor writes the upper Cholesky factor of hdata + D_γ into a.
func (s *slabSolver) factor() bool {
	p := s.p
	for j := range p {
		copy(s.a[j*p+j:(j+1)*p], s.hdata[j*p+j:(j+1)*p])
		s.a[j*p+j] += s.prec[j]
	}
	_, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: p, Stride: p, Data: s.a})
	return ok
}

// solve overwrites v with (UᵀU)⁻¹v, U in a.
func (s *slabSolver) solve(v []float64) {
	u := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: s.p, Stride: s.p, Data: s.a}
	x := blas64.Vector{N: s.p, Inc: 1, Data: v}
	blas64.Trsv(blas.Trans, u, x)
	blas64.Trsv(blas.NoTrans, u, x)
}

// slabNewtonMax bounds a pattern's Newton iterations; every slabStale
// iterations the Hessian (at first the one carried from the previous
// pattern) is replaced by the current point's.
const (
	slabNewtonMax = 100
	slabStale     = 4
	slabFullStep  = 1e-6
)

// newton moves theta to the mode of E_γ, starting from the Hessian in
// hdata (the previous pattern's at its mode), and leaves the exact Hessian
// at the mode factored in a. It stops when the Newton decrement gᵀA⁻¹g is
// below 1e-10 (the mode to 10⁻⁵ posterior sds, far below what the Laplace
// weight or the IS proposal's centre need; the Laplace log weight is then
// off by 5·10⁻¹¹), as Logistic.Mode does.
func (s *slabSolver) newton(theta []float64) (float64, error) {
	if !s.hdataValid {
		s.dataHessian(theta)
	}
	u := s.energy(s.g, theta)
	for it := 0; ; it++ {
		if it > 0 && it%slabStale == 0 {
			s.dataHessian(theta)
		}
		if !s.factor() {
			return 0, fmt.Errorf("the Hessian is not positive definite")
		}
		copy(s.d, s.g)
		s.solve(s.d)
		dec := dot(s.d, s.g)
		if math.IsNaN(dec) {
			return 0, fmt.Errorf("the Newton decrement is NaN")
		}
		if dec < 1e-10 {
			break
		}
		if it == slabNewtonMax {
			return 0, fmt.Errorf("Newton's method did not converge in %d iterations (decrement %v)", it, dec)
		}
		t := 1.0
		for ; t > 1e-12; t /= 2 {
			for j := range theta {
				s.trial[j] = theta[j] - t*s.d[j]
			}
			// Below a decrement of slabFullStep the step is taken whole:
			// U's fall, dec/2, is then under the rounding of a sum of N
			// terms (≈ 10⁻¹⁶·U·√N, 2·10⁻⁹ at N = 10⁵), which would
			// decide the comparison, and Newton's full step converges.
			if ut := s.energy(s.gt, s.trial); ut <= u || dec < slabFullStep {
				u = ut
				copy(theta, s.trial)
				s.g, s.gt = s.gt, s.g
				break
			}
		}
		if t <= 1e-12 {
			break // at the mode to rounding
		}
	}
	// The Laplace determinant needs the Hessian at the mode itself.
	s.dataHessian(theta)
	if !s.factor() {
		return 0, fmt.Errorf("the Hessian at the mode is not positive definite")
	}
	return u, nil
}

// PatternMode is the mode of L(θ)·N(θ; 0, D_γ) for the inclusion pattern
// slab (slab[j]: coefficient j in the slab; the intercept's entry is not
// read), by Newton's method from 0: the posterior mode given γ.
func (l *Logistic) PatternMode(slab []bool) ([]float64, error) {
	if l.slab == nil || len(slab) != l.P {
		return nil, fmt.Errorf("pattern mode: %d inclusions for %d coefficients of a spike-and-slab model", len(slab), l.P)
	}
	p := l.P
	s := &slabSolver{l: l, p: p, g: make([]float64, p), gt: make([]float64, p), d: make([]float64, p), trial: make([]float64, p),
		hdata: make([]float64, p*p), a: make([]float64, p*p), prec: make([]float64, p)}
	for j := range p {
		switch {
		case j == l.Intercept:
			s.prec[j] = 1 / (l.Sigma0 * l.Sigma0)
		case slab[j]:
			s.prec[j] = l.slab.a1
		default:
			s.prec[j] = l.slab.a0
		}
	}
	theta := make([]float64, p)
	if _, err := s.newton(theta); err != nil {
		return nil, fmt.Errorf("pattern mode: %w", err)
	}
	return theta, nil
}

// slabLaplace finds every pattern's mode and Laplace log Z_γ.
func (l *Logistic) slabLaplace(e *SlabExact, free []int) ([]slabPattern, error) {
	p, q := l.P, len(free)
	s := &slabSolver{l: l, p: p, g: make([]float64, p), gt: make([]float64, p), d: make([]float64, p), trial: make([]float64, p),
		hdata: make([]float64, p*p), a: make([]float64, p*p), prec: make([]float64, p)}
	lw := [2]float64{math.Log1p(-l.Slab.W), math.Log(l.Slab.W)}
	theta := make([]float64, p)
	pats := make([]slabPattern, 0, 1<<q)
	for k := range 1 << q {
		mask := uint32(k ^ k>>1) // Gray code: one coefficient changes
		pt := slabPattern{mask: mask, prec: make([]float64, p)}
		for j := range p {
			pt.prec[j] = 1 / (l.Sigma0 * l.Sigma0)
		}
		var halfLogPrec float64
		for b, j := range free {
			in := mask >> b & 1
			pt.logA += lw[in]
			pt.prec[j] = l.slab.a0
			if in == 1 {
				pt.prec[j] = l.slab.a1
			}
		}
		for _, v := range pt.prec {
			halfLogPrec += 0.5 * math.Log(v)
		}
		s.prec = pt.prec
		u, err := s.newton(theta)
		if err != nil {
			return nil, fmt.Errorf("reference posterior: inclusion pattern %0*b: %w", q, mask, err)
		}
		for j := range p {
			pt.logdH += math.Log(s.a[j*p+j])
		}
		pt.logZ = -u + halfLogPrec - pt.logdH
		if math.IsNaN(pt.logZ) || math.IsInf(pt.logZ, 0) {
			return nil, fmt.Errorf("reference posterior: inclusion pattern %0*b has Laplace log Z = %v", q, mask, pt.logZ)
		}
		pt.mode = slices.Clone(theta)
		pt.chol = slices.Clone(s.a)
		pats = append(pats, pt)
	}
	e.NewtonPasses, e.Hessians = s.passes, s.hessians
	return pats, nil
}

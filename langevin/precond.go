package langevin

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Precond is a constant preconditioner M = H⁻¹ for the Langevin step, H a
// symmetric positive-definite matrix such as the Hessian of U at the mode:
//
//	θ' = θ − ηMĝ + √(2ητ)·M^{1/2}ξ.
//
// With H = RRᵀ (Cholesky) it is the plain step in the coordinates φ = Rᵀθ,
// where U's Hessian at the mode is I: every direction then relaxes at the
// same rate, and the step size is set by the posterior's shape in those
// coordinates, not by its stiffest direction. A constant M leaves the
// dynamics' invariant law exp(−U/τ) unchanged; the Euler step's own bias is
// that of the φ coordinates (a variance factor 1/(1 − ηλ/2) along an
// eigenvalue λ of R⁻¹∇²U R⁻ᵀ, 1/(1 − η/2) for a Gaussian whose Hessian is
// H). The step costs two triangular solves, 2p² flops; a diagonal H costs
// 2p.
//
// Under Corrected the gradient noise is counted in φ coordinates, where its
// variance is ŝ_j²/R_jj² for a diagonal H; a dense H would need the
// gradient's whole covariance, so New refuses Corrected with it (the
// control-variate gradients a preconditioner is meant for carry little
// noise: SGLD then adds little).
//
// A Precond holds buffers: give each chain its own (Clone).
type Precond struct {
	r    blas64.Triangular // the lower Cholesky factor R of a dense H
	diag []float64         // R_jj for a diagonal H, else nil
	v    []float64
	s2   []float64
}

// NewPrecond returns the preconditioner M = H⁻¹ of a dense symmetric
// positive-definite H.
func NewPrecond(h mat.Symmetric) (*Precond, error) {
	p := h.SymmetricDim()
	if p < 1 {
		return nil, errors.New("preconditioner: empty matrix")
	}
	var ch mat.Cholesky
	if !ch.Factorize(h) {
		return nil, errors.New("preconditioner: the matrix is not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	raw := l.RawTriangular()
	for j := range p {
		if d := raw.Data[j*raw.Stride+j]; !(d > 0) || math.IsInf(d, 0) {
			return nil, fmt.Errorf("preconditioner: Cholesky pivot %d is %v", j, d)
		}
	}
	return &Precond{r: raw, v: make([]float64, p), s2: make([]float64, p)}, nil
}

// NewDiagPrecond returns the preconditioner M = diag(h)⁻¹: each coordinate
// scaled by its own curvature h_j > 0.
func NewDiagPrecond(h []float64) (*Precond, error) {
	if len(h) == 0 {
		return nil, errors.New("preconditioner: no curvatures")
	}
	d := make([]float64, len(h))
	for j, x := range h {
		if !(x > 0) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("preconditioner: curvature %d is %v, must be positive and finite", j, x)
		}
		d[j] = math.Sqrt(x)
	}
	return &Precond{diag: d, v: make([]float64, len(h)), s2: make([]float64, len(h))}, nil
}

// Dim is the dimension p.
func (pc *Precond) Dim() int { return len(pc.v) }

// Diagonal reports whether H is diagonal.
func (pc *Precond) Diagonal() bool { return pc.diag != nil }

// Clone returns a preconditioner with the same H (shared) and buffers of
// its own.
func (pc *Precond) Clone() *Precond {
	c := *pc
	c.v, c.s2 = make([]float64, len(pc.v)), make([]float64, len(pc.v))
	return &c
}

// solve overwrites x with R⁻¹x (t = blas.NoTrans) or R⁻ᵀx (blas.Trans).
func (pc *Precond) solve(x []float64, t blas.Transpose) {
	if pc.diag != nil {
		for j, d := range pc.diag {
			x[j] /= d
		}
		return
	}
	blas64.Trsv(t, pc.r, blas64.Vector{N: len(x), Data: x, Inc: 1})
}

// Whiten overwrites g with R⁻¹g: a gradient in θ becomes the gradient in
// the coordinates φ = Rᵀθ. A nil Precond is the identity.
func (pc *Precond) Whiten(g []float64) {
	if pc != nil {
		pc.solve(g, blas.NoTrans)
	}
}

// Color overwrites d with R⁻ᵀd: a move in φ becomes the move in θ. A nil
// Precond is the identity.
func (pc *Precond) Color(d []float64) {
	if pc != nil {
		pc.solve(d, blas.Trans)
	}
}

// Step is the preconditioned Step: it moves theta in place by
// θ ← θ + R⁻ᵀ(−ηR⁻¹g + ξ), ξ the injected noise in φ coordinates (2τη per
// coordinate under SGLD; 2τη − η²ŝ_j²/R_jj² under Corrected, clamped at 0).
// It returns the clamped coordinates and whether the new state is finite.
// Under CorrectedFull, or Corrected with a dense H, it panics: New refuses
// those settings.
func (pc *Precond) Step(theta, grad, gradVar, scratch []float64, eta, tau float64, pol Policy, rng *rand.Rand) (clamped int, finite bool) {
	v := pc.v
	copy(v, grad)
	pc.solve(v, blas.NoTrans)
	var s2 []float64
	switch {
	case pol == Corrected && pc.diag != nil:
		s2 = pc.s2
		for j, d := range pc.diag {
			s2[j] = gradVar[j] / (d * d)
		}
	case pol != SGLD:
		panic("langevin: a preconditioned step takes SGLD, or Corrected with a diagonal preconditioner")
	}
	clamped = inject(scratch[:len(v)], s2, eta, tau, pol, rng)
	for j, x := range scratch[:len(v)] {
		v[j] = x - eta*v[j]
	}
	pc.solve(v, blas.Trans)
	finite = true
	for j, d := range v {
		x := theta[j] + d
		theta[j] = x
		if x-x != 0 {
			finite = false
		}
	}
	return clamped, finite
}

package models

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// hessianBlock is the number of rows weighted and added to the Hessian at a
// time: enough for gonum's Syrk to run at speed, small enough (≈ 200 kB at
// p = 100) that estimating a Hessian adds nothing to the peak memory of a
// run on large data.
const hessianBlock = 256

// HessianOf is the Hessian of U at θ estimated from the listed examples,
//
//	N/m · Σ_{i∈rows} σ_i(1 − σ_i) x_i x_iᵀ + I/σ₀²,   σ_i = σ(x_i·θ),  m = len(rows),
//
// exact when rows lists every example once, and otherwise unbiased for a
// uniform random subset. It costs O(m·p²) with gonum's Syrk, against the
// O(N·p²) of the exact Hessian.
func (l *Logistic) HessianOf(theta []float64, rows []int) *mat.SymDense {
	h := mat.NewSymDense(l.P, nil)
	l.hessian(h, theta, rows, len(rows))
	return h
}

// Hessian writes the exact Hessian of U at θ into h (every example; the
// plan's mode search reads it, modes.Hessianer).
func (l *Logistic) Hessian(h *mat.SymDense, theta []float64) {
	l.hessian(h, theta, nil, len(l.Y))
}

// hessian writes HessianOf(θ, rows) into h, or with rows nil the exact
// Hessian (the m = N examples in order); the prior's curvature at θ is on
// the diagonal (1/σ₀² under the normal prior).
func (l *Logistic) hessian(h *mat.SymDense, theta []float64, rows []int, m int) {
	p := l.P
	c := make([]float64, p*p)
	l.dataHessian(c, theta, rows, m)
	for i := range p {
		for j := i; j < p; j++ {
			v := c[i*p+j]
			if i == j {
				v += l.priorCurvature(i, theta[i])
			}
			h.SetSym(i, j, v)
		}
	}
}

// dataHessian adds N/m · Σ_{i∈rows} σ_i(1 − σ_i) x_i x_iᵀ into the upper
// triangle of c (p×p, row-major), rows nil meaning the m = N examples in
// order, hessianBlock rows at a time through gonum's Syrk.
func (l *Logistic) dataHessian(c []float64, theta []float64, rows []int, m int) {
	if m == 0 {
		return
	}
	p := l.P
	cs := blas64.Symmetric{N: p, Stride: p, Data: c, Uplo: blas.Upper}
	scale := float64(len(l.Y)) / float64(m)
	a := make([]float64, min(hessianBlock, m)*p)
	for lo := 0; lo < m; lo += hessianBlock {
		n := min(hessianBlock, m-lo)
		for k := range n {
			i := lo + k
			if rows != nil {
				i = rows[i]
			}
			x := l.Row(i)
			_, s := logit(dot(x, theta))
			w := math.Sqrt(s * (1 - s))
			dst := a[k*p : (k+1)*p]
			for j, v := range x {
				dst[j] = w * v
			}
		}
		blas64.Syrk(blas.Trans, scale, blas64.General{Rows: n, Cols: p, Stride: p, Data: a[:n*p]}, 1, cs)
	}
}

// Mode finds the posterior mode from init by Newton's method with exact
// gradients (O(Np) each) and the Hessian of the listed examples
// (HessianOf; all of them: plain Newton). The exact gradient makes the exact
// mode the only fixed point whatever the subset; the subset's Hessian only
// sets the speed, each iteration shrinking the error by about
// ‖I − H_S⁻¹H‖ (of order √(p/m) for a random subset of m examples). A step
// that does not lower U is halved. It stops when the Newton decrement
// gᵀH_S⁻¹g, twice the predicted fall of U in nats, is below 1e-10, and
// returns the mode and the subset's Hessian there.
func (l *Logistic) Mode(init []float64, rows []int, maxIter int) ([]float64, *mat.SymDense, error) {
	p := l.P
	m := append([]float64(nil), init...)
	g, trial := make([]float64, p), make([]float64, p)
	d := mat.NewVecDense(p, nil)
	u := l.U(m)
	for it := 0; ; it++ {
		l.Grad(g, m)
		h := l.HessianOf(m, rows)
		var ch mat.Cholesky
		if !ch.Factorize(h) {
			return nil, nil, fmt.Errorf("the Hessian is not positive definite at iteration %d", it)
		}
		if err := ch.SolveVecTo(d, mat.NewVecDense(p, g)); err != nil {
			return nil, nil, err
		}
		dec := mat.Dot(d, mat.NewVecDense(p, g))
		if dec < 1e-10 {
			return m, h, nil
		}
		if math.IsNaN(dec) || it == maxIter {
			return nil, nil, fmt.Errorf("Newton's method did not reach the mode in %d iterations (decrement %v nats)", it, dec/2)
		}
		t := 1.0
		for ; t > 1e-12; t /= 2 {
			for j := range trial {
				trial[j] = m[j] - t*d.AtVec(j)
			}
			if ut := l.U(trial); ut <= u {
				u = ut
				break
			}
		}
		if t <= 1e-12 {
			return m, h, nil // no decrease possible: at the mode to rounding
		}
		copy(m, trial)
	}
}

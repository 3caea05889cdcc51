package mala

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/energy"
)

// Laplace finds the mode m of exp(−U) from init and the Cholesky factor L
// (lower triangular, row-major) of the inverse Hessian there, the Gaussian
// approximation N(m, LLᵀ) used to precondition MALA. The Hessian is taken
// by central differences of ∇U (step 1e-5·(1 + |m_j|)) and symmetrised;
// the mode by damped Newton steps until |∇U|∞ < 1e-9 or, on badly scaled
// problems (unstandardised features) where the finite-difference Hessian
// limits the accuracy, until 200 steps have brought |∇U|∞ below
// 1e-6·(1 + |∇U(init)|∞).
// A preconditioner only changes the efficiency of MALA, never its target.
func Laplace(e energy.Energy, init []float64) (m, l []float64, err error) {
	p := e.Dim()
	m = append([]float64(nil), init...)
	g, step, trial := make([]float64, p), make([]float64, p), make([]float64, p)
	var h *mat.SymDense
	// Damped Newton: solve H d = ∇U, halve the step until U decreases.
	g0 := -1.0
	for it := 0; ; it++ {
		e.Grad(g, m)
		h = Hessian(e, m)
		gn := mat.Norm(mat.NewVecDense(p, g), math.Inf(1))
		if g0 < 0 {
			g0 = gn
		}
		if gn < 1e-9 || (it == 200 && gn < 1e-6*(1+g0)) {
			break
		}
		if it == 200 {
			return nil, nil, fmt.Errorf("mala: Newton's method did not find the mode in %d iterations (|∇U| = %v)", it, mat.Norm(mat.NewVecDense(p, g), math.Inf(1)))
		}
		var ch mat.Cholesky
		if !ch.Factorize(h) {
			return nil, nil, fmt.Errorf("mala: the Hessian is not positive definite at %v", m)
		}
		d := mat.NewVecDense(p, step)
		if err := ch.SolveVecTo(d, mat.NewVecDense(p, g)); err != nil {
			return nil, nil, err
		}
		u0 := e.U(m)
		t := 1.0
		for ; t > 1e-12; t /= 2 {
			for j := range trial {
				trial[j] = m[j] - t*step[j]
			}
			if e.U(trial) <= u0 {
				break
			}
		}
		if t <= 1e-12 {
			break // no decrease possible: at the mode to rounding
		}
		copy(m, trial)
	}
	var ch mat.Cholesky
	if !ch.Factorize(h) {
		return nil, nil, fmt.Errorf("mala: the Hessian at the mode is not positive definite")
	}
	var cov mat.SymDense
	if err := ch.InverseTo(&cov); err != nil {
		return nil, nil, fmt.Errorf("mala: inverting the Hessian: %w", err)
	}
	var cc mat.Cholesky
	if !cc.Factorize(&cov) {
		return nil, nil, fmt.Errorf("mala: the inverse Hessian is not positive definite")
	}
	var lt mat.TriDense
	cc.LTo(&lt)
	l = make([]float64, p*p)
	for i := 0; i < p; i++ {
		for j := 0; j <= i; j++ {
			l[i*p+j] = lt.At(i, j)
		}
	}
	return m, l, nil
}

// Hessian is ∇²U at m by central differences of ∇U, symmetrised.
func Hessian(e energy.Energy, m []float64) *mat.SymDense {
	p := len(m)
	h := mat.NewSymDense(p, nil)
	gp, gm, x := make([]float64, p), make([]float64, p), append([]float64(nil), m...)
	cols := make([][]float64, p)
	for j := 0; j < p; j++ {
		d := 1e-5 * (1 + math.Abs(m[j]))
		x[j] = m[j] + d
		e.Grad(gp, x)
		x[j] = m[j] - d
		e.Grad(gm, x)
		x[j] = m[j]
		cols[j] = make([]float64, p)
		for i := range gp {
			cols[j][i] = (gp[i] - gm[i]) / (2 * d)
		}
	}
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			h.SetSym(i, j, (cols[i][j]+cols[j][i])/2)
		}
	}
	return h
}

// Curvature returns the mode m of exp(−U) reached from init by Newton's
// method and the smallest and largest eigenvalues of the Hessian of U there:
// the stiffest and the slowest directions a Langevin step size must respect.
func Curvature(e energy.Energy, init []float64) (m []float64, lmin, lmax float64, err error) {
	m, _, err = Laplace(e, init)
	if err != nil {
		return nil, 0, 0, err
	}
	var es mat.EigenSym
	if !es.Factorize(Hessian(e, m), false) {
		return nil, 0, 0, fmt.Errorf("mala: eigenvalues of the Hessian did not converge")
	}
	ev := es.Values(nil)
	return m, ev[0], ev[len(ev)-1], nil
}

package models

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// CurvatureBound bounds the largest eigenvalue of the Hessian of U over
// every θ: ∇²U = Xᵀ diag(σ_i(1 − σ_i)) X + I/σ₀² ⪯ XᵀX/4 + I/σ₀², so
//
//	λ_max(∇²U(θ)) ≤ λ_max(XᵀX)/4 + 1/σ₀²
//
// (under the spike-and-slab, the largest prior curvature, 1/s0² or 1/σ₀²,
// in place of 1/σ₀²).
//
// λ_max(XᵀX) comes from power iteration with gonum's matrix–vector
// kernels, two passes over the data per iteration (O(Np), against O(Np²)
// for a Hessian), from a fixed random start, until the Rayleigh quotient
// changes by less than tol relatively or after maxIter iterations. The
// Rayleigh quotient approaches λ_max from below; where the top eigenvalues
// are close, it stops within their spread, which matters little for a step
// size taken a safe factor below 2/λ_max.
func (l *Logistic) CurvatureBound(tol float64, maxIter int) float64 {
	N, p := len(l.Y), l.P
	X := blas64.General{Rows: N, Cols: p, Stride: p, Data: l.X}
	rng := rand.New(rand.NewPCG(1, 1))
	v := make([]float64, p)
	for j := range v {
		v[j] = rng.NormFloat64()
	}
	xv := make([]float64, N)
	w := make([]float64, p)
	vv := blas64.Vector{N: p, Inc: 1, Data: v}
	xvv := blas64.Vector{N: N, Inc: 1, Data: xv}
	wv := blas64.Vector{N: p, Inc: 1, Data: w}
	blas64.Scal(1/blas64.Nrm2(vv), vv)
	lam := 0.0
	for it := 0; it < maxIter; it++ {
		blas64.Gemv(blas.NoTrans, 1, X, vv, 0, xvv) // Xv
		blas64.Gemv(blas.Trans, 1, X, xvv, 0, wv)   // XᵀXv
		next := blas64.Dot(vv, wv)                  // Rayleigh quotient, |v| = 1
		nw := blas64.Nrm2(wv)
		if nw == 0 {
			break // X = 0
		}
		copy(v, w)
		blas64.Scal(1/nw, vv)
		done := math.Abs(next-lam) <= tol*next
		lam = next
		if done {
			break
		}
	}
	return lam/4 + l.maxPriorCurvature()
}

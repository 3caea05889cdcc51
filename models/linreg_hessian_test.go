package models

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The prior's energy is −log of the mixture density computed directly
// (plus log √(2π)), and Hessian agrees with central differences of Grad,
// at points in the spike, the slab and between them, where the prior's
// curvature is negative.
func TestLinRegPriorAndHessian(t *testing.T) {
	for _, l := range linregCases(t) {
		p, pr := l.P, l.Beta
		for _, theta := range [][]float64{{0.3, -0.02, 0.1}, {0.001, 0.2, -1}, {0, 0.12, -0.15}} {
			var want float64
			for _, b := range theta {
				d := pr.W * math.Exp(-b*b/(2*pr.Slab*pr.Slab)) / pr.Slab
				if !pr.Normal() {
					d += (1 - pr.W) * math.Exp(-b*b/(2*pr.Spike*pr.Spike)) / pr.Spike
				}
				want -= math.Log(d)
			}
			if pr.Normal() {
				want -= float64(p) * math.Log(pr.Slab) // the normal prior drops log s1
			}
			// Both are sums of three terms of size ≤ 10: rounding ≤ 1e-13.
			if got := l.Prior(nil, theta); math.Abs(got-want) > 1e-12 {
				t.Errorf("%+v at %v: prior energy %v, direct %v", pr, theta, got, want)
			}
			h := mat.NewSymDense(p, nil)
			l.Hessian(h, theta)
			const d = 1e-6
			gp, gm := make([]float64, p), make([]float64, p)
			for j := range p {
				up, dn := append([]float64(nil), theta...), append([]float64(nil), theta...)
				up[j] += d
				dn[j] -= d
				l.Grad(gp, up)
				l.Grad(gm, dn)
				for i := range p {
					fd := (gp[i] - gm[i]) / (2 * d)
					// Central differences err by d²·U⁗/6 (U⁗ ≤ 3/s0⁴·(1 + …)
					// ≈ 10⁶ here, so 2e-7) plus rounding ε·|∇U|/d ≈ 1e-9.
					if math.Abs(fd-h.At(i, j)) > 1e-5*(1+math.Abs(fd)) {
						t.Errorf("%+v at %v: H[%d,%d] = %v, central difference %v", pr, theta, i, j, h.At(i, j), fd)
					}
				}
			}
		}
	}
}
